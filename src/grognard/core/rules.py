"""Rule traceability: which code implements which rule id, and which tests cover it.

Rule code registers itself with :func:`implements`::

    @implements("OT 9F2")
    def retreat_priorities(...):
        \"\"\"OT 9F2: ...\"\"\"

Tests declare what they cover with the pytest marker ``@pytest.mark.rules("OT 9F2")``.
Each rule system ships the complete list of its seed's rule ids (``data/rules.toml``);
:func:`coverage` joins the three into the report printed by ``grognard rules``.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_IMPLEMENTED: dict[str, list[str]] = {}

STATUSES = ("tested", "implemented", "missing", "outside-seeds")


def implements(*rule_ids: str) -> Callable[[F], F]:
    """Register the decorated function or class as implementing ``rule_ids``."""

    def deco(obj: F) -> F:
        where = f"{obj.__module__}:{getattr(obj, '__qualname__', getattr(obj, '__name__', '?'))}"
        for rid in rule_ids:
            norm = normalise(rid)
            lst = _IMPLEMENTED.setdefault(norm, [])
            if where not in lst:
                lst.append(where)
        return obj

    return deco


def register(rule_id: str, where: str) -> None:
    """Register an implementation that is not a decorated object (data-driven rules)."""
    lst = _IMPLEMENTED.setdefault(normalise(rule_id), [])
    if where not in lst:
        lst.append(where)


def implemented() -> dict[str, list[str]]:
    return {k: list(v) for k, v in _IMPLEMENTED.items()}


def normalise(rule_id: str) -> str:
    return " ".join(rule_id.split()).upper()


@dataclass(frozen=True)
class RuleEntry:
    id: str
    title: str
    tier: str = ""
    outside: str = ""
    note: str = ""


def load_rule_list(path: Path) -> list[RuleEntry]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = []
    seen = set()
    for i, r in enumerate(data.get("rule", [])):
        unknown = set(r) - {"id", "title", "tier", "outside", "note"}
        if unknown:
            raise ValueError(f"{path}: rule[{i}]: unknown key(s) {sorted(unknown)}")
        rid = normalise(r["id"])
        if rid in seen:
            raise ValueError(f"{path}: rule[{i}]: id {r['id']!r} listed twice")
        seen.add(rid)
        out.append(
            RuleEntry(
                r["id"],
                r.get("title", ""),
                r.get("tier", ""),
                r.get("outside", ""),
                r.get("note", ""),
            )
        )
    return out


def scan_tests(paths: Iterable[Path]) -> dict[str, list[str]]:
    """Rule ids named by ``pytest.mark.rules(...)`` markers in test files -> test names."""
    out: dict[str, list[str]] = {}
    for root in paths:
        if not root.exists():
            continue
        for f in sorted(root.rglob("test_*.py")):
            tree = _parse(f.read_text(encoding="utf-8"))
            if tree is not None:
                _scan_tree(tree, f, out)
    return out


def _parse(text: str) -> ast.Module | None:
    """``ast.parse``, or None for a file that is not valid Python.

    CPython 3.11 can raise a spurious ``SystemError`` ("AST constructor recursion depth
    mismatch") when another thread compiles at the same time (the server scans the tests in a
    warm-up thread); such a parse is tried again."""
    for attempt in range(5):
        try:
            return ast.parse(text)
        except SyntaxError:
            return None
        except SystemError:
            if attempt == 4:
                raise
    return None


def _marker_ids(dec: ast.expr) -> list[str]:
    if (
        isinstance(dec, ast.Call)
        and isinstance(dec.func, ast.Attribute)
        and dec.func.attr == "rules"
    ):
        return [
            a.value for a in dec.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
    return []


def _scan_tree(tree: ast.Module, f: Path, out: dict[str, list[str]]) -> None:
    module_ids: list[str] = []
    for node in tree.body:
        # pytestmark = pytest.mark.rules(...) or [pytest.mark.rules(...), ...]
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            vals = node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
            for v in vals:
                module_ids.extend(_marker_ids(v))

    def visit(node: ast.AST, inherited: list[str], prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                ids = inherited + [i for d in child.decorator_list for i in _marker_ids(d)]
                visit(child, ids, f"{prefix}{child.name}::")
            elif isinstance(child, ast.FunctionDef) and child.name.startswith("test"):
                ids = inherited + [i for d in child.decorator_list for i in _marker_ids(d)]
                for rid in ids:
                    out.setdefault(normalise(rid), []).append(f"{f.name}::{prefix}{child.name}")

    visit(tree, module_ids, "")


def coverage(
    entries: list[RuleEntry], impl: dict[str, list[str]], tests: dict[str, list[str]] | None
) -> list[dict[str, Any]]:
    """One row per listed rule id with its status and where it is implemented/tested.

    A heading whose own text only introduces sub-rules (it has children in the list
    and no implementation of its own) takes the weakest status of its children.
    """
    ids = [normalise(e.id) for e in entries]
    rows: dict[str, dict[str, Any]] = {}
    for e in entries:
        rid = normalise(e.id)
        if e.outside:
            rows[rid] = {
                "id": e.id,
                "title": e.title,
                "status": "outside-seeds",
                "where": e.outside,
            }
            continue
        places = impl.get(rid, [])
        covered = (tests or {}).get(rid, [])
        if places and covered:
            status = "tested"
        elif places:
            status = "implemented"
        else:
            status = "missing"
        where = "; ".join(places[:3]) + (f" (+{len(places) - 3})" if len(places) > 3 else "")
        if covered:
            where += f" | tests: {'; '.join(covered[:2])}" + (
                f" (+{len(covered) - 2})" if len(covered) > 2 else ""
            )
        rows[rid] = {"id": e.id, "title": e.title, "status": status, "where": where}
    rank = {"missing": 0, "implemented": 1, "tested": 2, "outside-seeds": 3}
    # Children are the listed ids that extend this id ("OT 9" -> "OT 9A"): resolve deepest first.
    for rid in sorted(ids, key=len, reverse=True):
        row = rows[rid]
        if row["status"] not in ("missing",):
            continue
        kids = [k for k in ids if k != rid and _is_child(rid, k)]
        if not kids:
            continue
        weakest = min((rows[k]["status"] for k in kids), key=lambda s: rank[s])
        if weakest == "outside-seeds":
            weakest = "tested"
        row["status"] = weakest
        row["where"] = f"by its sub-rules ({len(kids)})"
    return [rows[normalise(e.id)] for e in entries]


def _is_child(parent: str, child: str) -> bool:
    if not child.startswith(parent) or len(child) <= len(parent):
        return False
    nxt = child[len(parent)]
    last = parent[-1]
    # "OT 9" -> "OT 9A" (letter after digit), "OT 9A" -> "OT 9A1", "LGG 16" -> "LGG 16.1", "16.1" ->
    # "16.1-A"
    if nxt in ".-":
        return True
    return last.isdigit() != nxt.isdigit()
