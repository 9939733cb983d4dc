"""The greatwar record (``state.vars["gw"]``) holds only the keys :class:`GWRecord` declares.

The golden games are replayed and, after every action, the record is walked along its declared
layout: every key of a fixed-key record (a ``TypedDict``) must be declared there, recursively
through the ``dict[str, ...]`` and ``list[...]`` values it holds.
"""

from __future__ import annotations

import types
import typing
from typing import Any, get_args, get_origin, get_type_hints

import pytest

from grognard.core import serial
from grognard.core.game import Game
from grognard.rulesets.greatwar.record import GWRecord
from grognard.scenario import find
from tests.golden import golden


def undeclared(value: Any, tp: Any, where: str = "gw") -> list[str]:
    """The paths of keys in ``value`` that its declared type ``tp`` does not name."""
    if typing.is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__} where a record is declared"]
        hints = get_type_hints(tp)
        out: list[str] = []
        for k, v in value.items():
            if k not in hints:
                out.append(f"{where}/{k}")
            else:
                out += undeclared(v, hints[k], f"{where}/{k}")
        return out
    origin = get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        for arg in get_args(tp):
            if _shape_fits(value, arg):
                return undeclared(value, arg, where)
        return []
    if origin is dict and isinstance(value, dict):
        item = get_args(tp)[1]
        return [p for k, v in value.items() for p in undeclared(v, item, f"{where}/{k}")]
    if origin is list and isinstance(value, list):
        item = get_args(tp)[0]
        return [p for i, v in enumerate(value) for p in undeclared(v, item, f"{where}[{i}]")]
    return []


def _shape_fits(value: Any, tp: Any) -> bool:
    if typing.is_typeddict(tp) or get_origin(tp) is dict:
        return isinstance(value, dict)
    if get_origin(tp) is list:
        return isinstance(value, list)
    return False


def test_the_walker_finds_an_undeclared_key_at_any_depth() -> None:
    assert undeclared({"phase": "movement", "phasng": "Entente"}, GWRecord) == ["gw/phasng"]
    rec = {"eng": {"projects": [{"task": "road", "tsak": "x"}]}, "sieges": {"12": {"sieging": "A"}}}
    assert undeclared(rec, GWRecord) == ["gw/eng/projects[0]/tsak"]
    assert undeclared({"rail": {"net-1": {"Entente": {"used": 1, "extra": 2}}}}, GWRecord) == [
        "gw/rail/net-1/Entente/extra"
    ]


@pytest.mark.parametrize(
    ("scenario", "seed"), [("gw-tutorial", s) for s in golden.SEEDS] + [("marne-1914", 1)]
)
def test_the_greatwar_record_holds_only_declared_keys_along_the_golden_games(
    scenario: str, seed: int
) -> None:
    data = golden.read(golden.path_of(scenario, seed))
    g = Game.new(find(scenario), seed, data.get("options") or {})
    seen: set[str] = set()
    for n, action in enumerate(data["actions"]):
        g.apply(serial.from_jsonable(action))
        rec = g.state.vars.get("gw", {})
        seen |= set(rec)
        bad = undeclared(rec, GWRecord)
        assert not bad, f"after action {n + 1} {action}: undeclared keys {bad}"
    assert {"phase", "phasing", "supply"} <= seen  # the walk saw a record in use
