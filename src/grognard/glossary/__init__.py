"""Result codes in words, and the rule system's charts and tables as text, for the front ends.

Each rule system's codes are in ``<rule system>.toml`` next to this module, one ``[[code]]``
entry per code::

    [[code]]
    code = "DR"
    meaning = "Defender retreats: every defending unit retreats one hex."
    rules = ["OT 9C1"]
    tables = ["mobile-crt"]

The glossary is presentation, not rule data: it is not part of a rule system's data hash, so
editing it never invalidates a save. :func:`explain_command`, :func:`chart_command` and
:func:`rule_command` answer the terminal's ``explain CODE``, ``chart NAME`` and ``rule ID``
commands (and ``grognard explain`` / ``grognard chart`` on the command line).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grognard.core import rules
from grognard.core.arith import fmt

if TYPE_CHECKING:
    from grognard.core.tables import ResultsTable
    from grognard.rulesets.base import Ruleset

HERE = Path(__file__).resolve().parent


class GlossaryError(ValueError):
    """A glossary file is malformed."""


@dataclass(frozen=True)
class Code:
    """One result code: what it means, the rules that define it, the tables that use it."""

    code: str
    meaning: str
    rules: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()


@cache
def _load(path: Path) -> tuple[Code, ...]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise GlossaryError(f"{path}: {e}") from None
    out = []
    for k, row in enumerate(data.get("code", [])):
        where = f"{path.name}: code[{k}]"
        unknown = set(row) - {"code", "meaning", "rules", "tables"}
        if unknown:
            raise GlossaryError(f"{where}: unknown key(s) {sorted(unknown)}")
        if not isinstance(row.get("code"), str) or not isinstance(row.get("meaning"), str):
            raise GlossaryError(f"{where}: 'code' and 'meaning' must be strings")
        out.append(
            Code(
                row["code"],
                " ".join(row["meaning"].split()),
                tuple(row.get("rules", ())),
                tuple(row.get("tables", ())),
            )
        )
    return tuple(out)


def codes(ruleset_name: str) -> tuple[Code, ...]:
    """Every result code of a rule system (empty when it has no glossary)."""
    p = HERE / f"{ruleset_name}.toml"
    return _load(p) if p.exists() else ()


def lookup(ruleset_name: str, code: str) -> list[Code]:
    """The entries for ``code``: exact spelling first, then ignoring case; a compound code
    (``M/½!`` of a two-sided table) is explained part by part."""
    entries = codes(ruleset_name)
    exact = [c for c in entries if c.code == code]
    if exact:
        return exact
    folded = [c for c in entries if c.code.lower() == code.lower()]
    if folded:
        return folded
    out: list[Code] = []
    if "/" in code:
        for part in code.replace("!", "").split("/"):
            out.extend(c for c in entries if c.code == part and c not in out)
        if code.endswith("!"):
            out.extend(c for c in entries if c.code == "!" and c not in out)
    return out


def explain_command(ruleset: Ruleset, code: str) -> str:
    """The answer to ``explain CODE``: the meaning and rule ids of a result code, or the list of
    codes when none is given."""
    code = code.strip()
    entries = codes(ruleset.name)
    if not entries:
        return f"no result codes are described for {ruleset.name}"
    if not code:
        shown = ", ".join(sorted({c.code for c in entries}))
        return f"result codes of {ruleset.name}: {shown}\n(explain CODE says what one means)"
    found = lookup(ruleset.name, code)
    if not found:
        return f"no result code {code!r} in {ruleset.name}; known: " + ", ".join(
            sorted({c.code for c in entries})
        )
    return "\n".join(_code_line(c) for c in found)


def _code_line(c: Code) -> str:
    rules = f" ({', '.join(c.rules)})" if c.rules else ""
    tables = f" [tables: {', '.join(c.tables)}]" if c.tables else ""
    return f"{c.code}: {c.meaning}{rules}{tables}"


# ============================================================================ charts
def chart_files(ruleset: Ruleset) -> dict[str, Path]:
    """The rule system's charts that are not die tables (``data/charts/*.toml``), by id."""
    d = ruleset.data_dir / "charts"
    out = {}
    if d.is_dir():
        for p in sorted(d.glob("*.toml")):
            data = tomllib.loads(p.read_text(encoding="utf-8"))
            out[str(data.get("id", p.stem))] = p
    return out


def chart_list(ruleset: Ruleset, tables: Mapping[str, ResultsTable]) -> str:
    lines = [f"charts and tables of {ruleset.name} (chart NAME shows one):"]
    for tid, t in sorted(tables.items()):
        lines.append(f"  {tid:<26} {t.title}{'  (provisional)' if t.provisional else ''}")
    for cid, p in chart_files(ruleset).items():
        data = tomllib.loads(p.read_text(encoding="utf-8"))
        prov = "  (provisional)" if data.get("provisional") else ""
        lines.append(f"  {cid:<26} {data.get('title', cid)}{prov}")
    return "\n".join(lines)


def _find(name: str, ids: Sequence[str]) -> list[str]:
    if name in ids:
        return [name]
    low = name.lower()
    return [i for i in ids if low in i.lower()]


def chart_command(ruleset: Ruleset, name: str, overrides: Mapping[str, str] | None = None) -> str:
    """The answer to ``chart [NAME]``: the list of charts, or one of them as text (the tables
    in use: the shipped ones with the game's ``overrides``)."""
    try:
        tables = ruleset.tables(overrides)
    except (OSError, ValueError) as e:
        return f"cannot read the tables: {e}"
    name = name.strip()
    if not name:
        return chart_list(ruleset, tables)
    charts = chart_files(ruleset)
    found = _find(name, [*sorted(tables), *charts])
    if not found:
        return f"no chart {name!r}\n" + chart_list(ruleset, tables)
    if len(found) > 1:
        return f"{name!r} names several charts: {', '.join(found)}"
    cid = found[0]
    if cid in tables:
        return table_text(tables[cid], ruleset.name)
    return chart_file_text(charts[cid])


def table_text(t: ResultsTable, ruleset_name: str = "") -> str:
    """A results table as a grid: die rows down, columns across, then the codes it uses."""
    head = [f"{t.title} ({t.id}), {t.die} rolled"]
    if t.provisional:
        head.append(
            "PROVISIONAL: the rules do not print this table; its values are invented"
            + (f", derived from {', '.join(t.derived_from)}" if t.derived_from else "")
        )
    elif t.derived_from:
        head.append(f"rules: {', '.join(t.derived_from)}")
    cells = [[str(v) for v in t.rows[r]] for r in sorted(t.rows)]
    widths = [
        max(len(str(c)), *(len(row[k]) for row in cells if k < len(row)))
        for k, c in enumerate(t.columns)
    ]
    rw = max(4, *(len(str(r)) for r in t.rows))
    lines = ["roll".rjust(rw) + " | " + " ".join(c.rjust(w) for c, w in zip(t.columns, widths))]
    lines.append("-" * len(lines[0]))
    for r, row in zip(sorted(t.rows), cells):
        lines.append(str(r).rjust(rw) + " | " + " ".join(v.rjust(w) for v, w in zip(row, widths)))
    out = head + lines
    if t.notes:
        out.append("notes: " + " ".join(t.notes.split()))
    used = sorted({v for row in cells for v in row})
    explained: list[str] = []
    for v in used:
        found = lookup(ruleset_name, v) if ruleset_name else []
        own = [c for c in found if t.id in c.tables]
        for c in own or [c for c in found if not c.tables or len(found) == 1]:
            line = _code_line(Code(c.code, c.meaning, c.rules))
            if line not in explained:
                explained.append(line)
    if explained:
        out.append("codes:")
        out.extend(f"  {e}" for e in explained)
    return "\n".join(out)


def _flat(prefix: str, v: Any, out: list[str]) -> None:
    if isinstance(v, Mapping):
        for k, x in v.items():
            _flat(f"{prefix}.{k}" if prefix else str(k), x, out)
    elif isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v):
        for k, x in enumerate(v):
            _flat(f"{prefix}[{k + 1}]", x, out)
    else:
        shown = " ".join(_value(x) for x in v) if isinstance(v, list) else _value(v)
        out.append(f"  {prefix}: {shown}")


def _value(x: Any) -> str:
    if isinstance(x, str) and "/" in x:
        try:
            return fmt(Fraction(x))
        except (ValueError, ZeroDivisionError):
            return x
    return str(x)


def chart_file_text(path: Path) -> str:
    """A chart file (not a die table) as text: title, provisional mark, rules, then its rows."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    head = [f"{data.get('title', path.stem)} ({data.get('id', path.stem)})"]
    derived = data.get("derived_from") or []
    if data.get("provisional"):
        head.append(
            "PROVISIONAL: the rules do not print this chart; values not in the rules are invented"
            + (f", derived from {', '.join(derived)}" if derived else "")
        )
    elif derived:
        head.append(f"rules: {', '.join(derived)}")
    body: list[str] = []
    for k, v in data.items():
        if k in ("id", "title", "provisional", "derived_from", "notes"):
            continue
        _flat(k, v, body)
    if data.get("notes"):
        body.append("notes: " + " ".join(str(data["notes"]).split()))
    return "\n".join(head + body)


def rule_command(ruleset: Ruleset, rule_id: str) -> str:
    """The answer to ``rule ID``: the rule's title in the rule list and where it is
    implemented."""
    want = rules.normalise(rule_id)
    if not want:
        return "rule ID: e.g. rule OT 9F2"
    entries = ruleset.rule_list()
    hits = [e for e in entries if rules.normalise(e.id) == want]
    if not hits:
        near = [e for e in entries if rules.normalise(e.id).startswith(want)][:12]
        if not near:
            return f"no rule {rule_id!r} in the rule list of {ruleset.name}"
        return "\n".join(f"{e.id}: {e.title}" for e in near)
    ruleset.load_rule_modules()
    impl = rules.implemented()
    out = []
    for e in hits:
        where = impl.get(rules.normalise(e.id)) or impl.get(e.id) or []
        status = "implemented" if where else (e.outside and "outside the engine") or "listed"
        out.append(f"{e.id}: {e.title} [{status}]" + (f" -- {e.note}" if e.note else ""))
        out.extend(f"  in {w}" for w in where[:5])
    return "\n".join(out)
