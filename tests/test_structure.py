"""The import structure stays easy to see: imports flow one way.

Read from the source (an AST scan of every import, in functions too; imports under
``if TYPE_CHECKING:`` do not count):

* no import cycle of more than three modules anywhere in ``src/``;
* no import cycle at all among the modules of ``grognard.core``;
* no import inside a function in the core and in every rule system (:data:`CHECKED`; the
  command line's lazy imports for a fast start are fine, as are optional dependencies, listed
  below).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
OPTIONAL = {"ray", "matplotlib", "pettingzoo", "gymnasium", "torch", "numpy.typing"}
CHECKED = ("grognard.core", "grognard.rulesets")


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in SRC.rglob("*.py")}


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The parsed module (parsed once for all the tests of this file)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


def _resolve(mod: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    pkg = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
    base = pkg[: len(pkg) - (node.level - 1)] if node.level > 1 else pkg
    return ".".join([*base, node.module] if node.module else base)


def _targets(mod: str, path: Path, node: ast.stmt, known: set[str]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for a in node.names:
            yield a.name
    elif isinstance(node, ast.ImportFrom):
        base = _resolve(mod, path, node)
        for a in node.names:
            full = f"{base}.{a.name}"
            yield full if full in known else base


def _imports(tree: ast.Module) -> Iterator[ast.stmt]:
    """Every import of a module, in functions too, but those under ``if TYPE_CHECKING:``."""
    typing_only = {
        id(x)
        for n in ast.walk(tree)
        if isinstance(n, ast.If) and _is_type_checking(n)
        for b in n.body
        for x in ast.walk(b)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in typing_only:
            yield node


@functools.cache
def graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    out: dict[str, set[str]] = {}
    for mod, path in mods.items():
        tree = _tree(path)
        deps = set()
        for node in _imports(tree):
            for t in _targets(mod, path, node, known):
                while t and t not in known:
                    t = t.rpartition(".")[0]
                if t and t != mod:
                    deps.add(t)
        out[mod] = deps
    return out


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(g.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def imports_in_functions() -> list[str]:
    out = []
    for mod, path in sorted(_modules().items()):
        if not mod.startswith(CHECKED):
            continue
        tree = _tree(path)
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    names = (
                        [a.name for a in node.names]
                        if isinstance(node, ast.Import)
                        else [node.module or ""]
                    )
                    if all(n.split(".")[0] in OPTIONAL or n in OPTIONAL for n in names):
                        continue
                    out.append(f"{mod}:{node.lineno} ({fn.name})")
    return out


def test_no_import_cycle_of_more_than_three_modules() -> None:
    big = [c for c in cycles(graph()) if len(c) > 3]
    assert not big, f"{len(big)} import cycles of more than 3 modules, e.g. {big[0]}"


def test_no_import_cycle_in_core() -> None:
    core = [c for c in cycles(graph()) if any(m.startswith("grognard.core") for m in c)]
    assert not core, f"import cycles through grognard.core: {core}"


def test_no_imports_inside_functions_in_core_and_rule_systems() -> None:
    found = imports_in_functions()
    assert not found, f"{len(found)} imports inside functions, e.g. {found[:10]}"
