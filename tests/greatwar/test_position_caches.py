"""What the movement steps and the rules keep for a position or across positions gives the
answers computed afresh: the families asked twice in one position, or in a clone made in it,
flatten to the same actions in the same order (and an action handed out and then changed does
not change what is handed out next); a unit's kept ZOC (OT 5A), a hex's kept stacking limit
(OT 8A) and the enemy-ZOC neighbour test of fatigue (OT 6B4) are those of the rules' own
functions."""

from __future__ import annotations

import random

import pytest

from grognard.bench.engine_probe import choose
from grognard.core import serial
from grognard.core.game import Game
from grognard.rulesets.greatwar.map import geography, zoc
from grognard.rulesets.greatwar.movement import movement, stacking
from grognard.rulesets.greatwar.units import nations, units
from grognard.scenario import find


def _flat(g: Game, side: str) -> list[str]:
    return [serial.canonical(a) for fam in g.families(side) for a in fam.all()]


def _positions(scenario: str, seed: int, n: int) -> list[tuple[Game, str]]:
    g = Game.new(find(scenario), seed)
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        if g.is_over():
            break
        side = rng.choice(g.acting_sides())
        out.append((g.clone(), side))
        g.apply(choose(g.legal_actions(side), rng))
    return out


@pytest.mark.rules("OT 6", "OT 6F1", "OT 7A")
def test_ot_6_families_asked_twice_or_in_a_clone_flatten_alike() -> None:
    seen = set()
    for g, side in _positions("marne-1914", 4, 40)[12::2]:
        seen.add(g.state.frames[-1].step)
        first = g.families(side)
        flat = [a for fam in first for a in fam.all()]
        keys = [serial.canonical(a) for a in flat]
        listed = [serial.canonical(a) for a in g.legal_actions(side)]
        assert sorted(keys) == sorted(listed)
        for a in flat:  # what a caller does with the actions it was handed stays its own
            a["side"] = "nobody"
        assert _flat(g, side) == keys
        assert _flat(g.clone(), side) == keys
    assert "ground-movement" in seen


@pytest.mark.rules("OT 5A", "OT 8A", "OT 6B4")
def test_ot_5a_ot_8a_ot_6b4_kept_zocs_limits_and_fatigue_test_are_the_rules_answers() -> None:
    checked = 0
    for g, _side in _positions("marne-1914", 5, 32)[::8]:
        for s in g.state.sides:
            for p, lvl, hexes in zoc.unit_zocs(g, s):
                assert lvl == zoc.zoc_level(g, p)
                assert list(hexes) == (zoc.zoc_hexes(g, p) if lvl != zoc.NONE else [])
                checked += 1
        for p in units.on_map_units(g):
            h = units.hex_of(g, p)
            if h is None:
                continue
            assert stacking.limit_for(g, h) == stacking._limit_for(g, h)
            enemy = nations.other_side(p.side)
            expected = any(
                zoc.zoc_level(g, q) != zoc.NONE
                for j in geography.adjacent_hexes(g, h)
                for q in units.units_in_hex(g, j, enemy)
            )
            assert movement._adjacent_enemy_with_zoc(g, p.side, h) == expected
    assert checked > 100
