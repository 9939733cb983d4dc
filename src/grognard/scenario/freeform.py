"""The free-form tables of a scenario (``attrs``, the values of piece faces, ...) checked against
what the rule system declares they may hold.

The scenario format leaves these tables to the rule system. A rule system declares, per kind of
table, the keys it reads and the values each accepts (:class:`Key`) in
:meth:`grognard.rulesets.base.Ruleset.free_form_keys`; a key it does not declare is an error
naming the table and the key (with the closest declared key), so a typo such as ``nations =`` for
``nation =`` never passes silently, and a printed value out of range (``attack = -1000000``) is
refused. A kind of table the rule system does not declare is not checked.

Kinds of table: ``nation``, ``hexside``, ``place``, ``network``, ``area``, ``box``, ``piece``
(a piece's ``attrs``), ``face`` (the values of each face of a piece), ``turn`` and ``schedule``
(the ``params`` of a schedule entry).
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from grognard.scenario.schema import ScenarioFile

KINDS = (
    "nation",
    "hexside",
    "place",
    "network",
    "area",
    "box",
    "piece",
    "face",
    "turn",
    "schedule",
)


@dataclass(frozen=True)
class Key:
    """What one key of a free-form table accepts.

    ``types``: any of ``"int"``, ``"number"``, ``"str"``, ``"bool"``, ``"list"``, ``"table"``,
    ``"any"``; ``lo``/``hi`` bound numbers; ``choices`` the strings allowed (empty: any string);
    ``pattern`` a regular expression a string must match; ``nation``: a string must name a nation
    of the scenario's ``[nations]``.
    """

    types: tuple[str, ...]
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] = ()
    pattern: str | None = None
    nation: bool = False

    def problem(self, v: Any, nations: Mapping[str, Any]) -> str | None:
        """Why ``v`` is refused, or None."""
        if "any" in self.types:
            return None
        if isinstance(v, bool):
            return None if "bool" in self.types else self._expected(v)
        if isinstance(v, int | float):
            if not ("number" in self.types or ("int" in self.types and isinstance(v, int))):
                return self._expected(v)
            if not math.isfinite(v):
                return f"{v} is not a number"
            if (self.lo is not None and v < self.lo) or (self.hi is not None and v > self.hi):
                return f"{v} is out of range ({_num(self.lo)}..{_num(self.hi)})"
            return None
        if isinstance(v, str):
            if "str" not in self.types:
                return self._expected(v)
            if self.choices and v not in self.choices:
                return f"{v!r} is not one of {', '.join(self.choices)}"
            if self.pattern and not re.fullmatch(self.pattern, v):
                return f"{v!r} is not of the form {self.pattern}"
            if self.nation and v not in nations:
                known = ", ".join(sorted(nations)) or "none"
                return f"unknown nation {v!r} (the scenario's nations: {known})"
            return None
        if isinstance(v, list):
            return None if "list" in self.types else self._expected(v)
        if isinstance(v, dict):
            return None if "table" in self.types else self._expected(v)
        return self._expected(v)

    def _expected(self, v: Any) -> str:
        names = {
            "int": "an integer",
            "number": "a number",
            "str": "a string",
            "bool": "true or false",
            "list": "an array",
            "table": "a table",
        }
        want = " or ".join(names.get(t, t) for t in self.types)
        return f"must be {want}, not {v!r}"[:160]


def _num(x: float | None) -> str:
    return "" if x is None else str(int(x)) if float(x).is_integer() else str(x)


def Int(lo: float = 0, hi: float = 99) -> Key:
    return Key(("int",), lo, hi)


def Str(*choices: str, pattern: str | None = None) -> Key:
    return Key(("str",), choices=choices, pattern=pattern)


def Bool() -> Key:
    return Key(("bool",))


def Nation() -> Key:
    return Key(("str",), nation=True)


ANY = Key(("any",))
# declared as a key: the other keys of the table are allowed with any value (the rule system
# checks them elsewhere); only the keys named are checked here
OTHERS = "*"


def tables(data: ScenarioFile) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """Every free-form table of a scenario: (kind, key path, table)."""
    for name, n in data.nations.items():
        yield "nation", f"nations.{name}.attrs", n.attrs
    for i, hs in enumerate(data.hexsides):
        yield "hexside", f"hexsides[{i}].attrs", hs.attrs
    for i, pl in enumerate(data.places):
        yield "place", f"places[{i}].attrs", pl.attrs
    for i, net in enumerate(data.networks):
        yield "network", f"networks[{i}].attrs", net.attrs
    for i, ar in enumerate(data.areas):
        yield "area", f"areas[{i}].attrs", ar.attrs
    for i, bx in enumerate(data.boxes):
        yield "box", f"boxes[{i}].attrs", bx.attrs
    for i, pd in enumerate(data.pieces):
        yield "piece", f"pieces[{i}].attrs", pd.attrs
        for face, values in pd.faces.items():
            yield "face", f"pieces[{i}].faces.{face}", values
    for i, t in enumerate(data.turns):
        yield "turn", f"turns[{i}].attrs", t.attrs
    for i, e in enumerate(data.schedule):
        yield "schedule", f"schedule[{i}].params", e.params


def check(data: ScenarioFile, declared: Mapping[str, Mapping[str, Key]]) -> list[tuple[str, str]]:
    """``(key path, message)`` for every key of a declared kind of table that the rule system
    does not declare, and every value its declaration refuses."""
    problems: list[tuple[str, str]] = []
    for kind, path, table in tables(data):
        keys = declared.get(kind)
        if keys is None:
            continue
        for k, v in table.items():
            spec = keys.get(k, keys.get(OTHERS))
            if spec is None:
                near = difflib.get_close_matches(k, list(keys), n=1)
                hint = f"; did you mean {near[0]!r}?" if near else ""
                known = ", ".join(sorted(k for k in keys if k != OTHERS)) or "none"
                problems.append((f"{path}.{k}", f"unknown key{hint} (known: {known})"))
                continue
            bad = spec.problem(v, data.nations)
            if bad is not None:
                problems.append((f"{path}.{k}", bad))
    return problems
