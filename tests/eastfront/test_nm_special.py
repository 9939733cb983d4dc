"""Special units (NM 32.0-32.2): flotillas and Naval Bases."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.eastfront.map.ports import port_named
from grognard.rulesets.eastfront.model import GroundAttrs, NavalAttrs, ef
from grognard.rulesets.eastfront.naval.capacity import naval_base, supply_capacity
from grognard.rulesets.eastfront.naval.damage import add_damage
from grognard.rulesets.eastfront.naval.transport import unload_problem
from grognard.rulesets.eastfront.units.kinds import is_flotilla, is_ground, is_naval
from tests.eastfront.lab import act, lab, phase, rolls, unit


def flotilla(g, pid: str = "fl", at: str = "0503", side: str = "Soviet"):
    return unit(g, pid, "flotilla", side, at, attack=1, defense=1, move=4, support=1, range=2)


@pytest.mark.rules("NM 32.0", "EF 4.0")
def test_nm_32_0_special_units_flotillas_are_ground_units_bases_non_combat():

    g = lab()
    fl = flotilla(g)
    b = unit(g, "base", "naval-base", "Soviet", "0404", sp=0)
    assert is_flotilla(g, fl) and is_ground(g, fl) and not is_naval(g, fl)
    assert is_ground(g, b) and not is_flotilla(g, b)


@pytest.mark.rules("NM 32.1")
def test_nm_32_1_a_flotilla_is_sunk_by_its_third_damage_point():
    """NM-22: 2 Damage Points afloat, 3 eliminated."""
    g = lab()
    fl = flotilla(g)
    assert add_damage(g, fl, 2, "NM 32.1")
    assert not add_damage(g, fl, 1, "NM 32.1")
    assert fl.loc == ("box", "Eliminated")


@pytest.mark.rules("NM 32.1", "NM 27.12")
def test_nm_32_1_coast_artillery_may_fire_at_a_flotilla():
    g = lab()
    flotilla(g)
    unit(g, "gun", "cd", "Axis", "0403", support=2, range=2, sp=1)
    phase(g, "combat", "Soviet")
    g.force_dice([6])  # 6 + 1 = 7: DD/T/Flotilla D2
    act(g, "cd-fire", "Axis", cd="gun", target="fl")
    assert NavalAttrs(g.state.pieces["fl"].attrs).damage == 2


@pytest.mark.rules("NM 32.1", "EF 22.41")
def test_nm_32_1_a_flotilla_rolls_once_per_movement_phase_through_all_sea_hexes():
    g = lab()
    fl = flotilla(g, at="0402")
    phase(g, "movement", "Soviet", kind="movement")
    reach = {
        a["to"] for a in g.legal_actions("Soviet") if a["type"] == "move" and a["piece"] == "fl"
    }
    assert "0604" in reach and "0305" not in reach  # all-sea or coastal hexes only
    act(g, "move", "Soviet", piece="fl", to="0604")
    g.force_dice([9])  # regular column: D1
    ev = act(g, "end-phase", "Soviet")
    assert len(rolls(ev)) == 1 and NavalAttrs(fl.attrs).damage == 1
    g2 = lab()
    coast = flotilla(g2, at="0402")
    phase(g2, "movement", "Soviet", kind="movement")
    act(g2, "move", "Soviet", piece="fl", to="0403")  # coast to coast: no all-sea hex, no CD
    assert not rolls(act(g2, "end-phase", "Soviet"))
    assert coast.loc == ("hex", g2.board.idx("0403"))


@pytest.mark.rules("NM 32.2")
def test_nm_32_2_a_naval_base_doubles_capacity_from_the_turn_after_its_placement():
    g = lab()
    g.state.turn["index"] = 1
    alpha = port_named(g, "Alpha")
    unit(g, "t", "t", "Soviet", "box:Alpha box", protection=2, capacity=2, nmp=2, recovery=5)
    b = unit(g, "base", "naval-base", "Soviet", "in:t", sp=0)
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "unload", "Soviet", piece="base")
    assert GroundAttrs(b.attrs).placed_turn == 1
    assert naval_base(g, alpha, "Soviet") is None and supply_capacity(g, alpha, "Soviet") == 30
    g.state.turn["index"] = 2
    assert naval_base(g, alpha, "Soviet") is b and supply_capacity(g, alpha, "Soviet") == 60


@pytest.mark.rules("NM 32.2")
def test_nm_32_2_one_base_per_hex_and_only_by_sea():
    g = lab()
    unit(g, "b1", "naval-base", "Soviet", "0404", sp=0)
    unit(g, "t", "t", "Soviet", "box:Alpha box", protection=2, capacity=2, nmp=2, recovery=5)
    b2 = unit(g, "b2", "naval-base", "Soviet", "in:t", sp=0)
    assert "one Naval Base" in unload_problem(g, b2, "movement")
    phase(g, "movement", "Soviet", kind="movement")
    with pytest.raises(IllegalAction):
        act(g, "move", "Soviet", piece="b1", to="0405")
    assert ef(g).move.moved == []
