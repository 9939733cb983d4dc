"""Naval units (NM 25.0-25.3): what they are, their values, their readiness."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.eastfront.combat.support import support_problem
from grognard.rulesets.eastfront.map.zoc import zoc_hexes
from grognard.rulesets.eastfront.model import NavalAttrs, ZoiRecord, ef
from grognard.rulesets.eastfront.movement.ground import destinations
from grognard.rulesets.eastfront.naval.readiness import success_chance
from grognard.rulesets.eastfront.units.kinds import is_combat, is_naval, stacking_points
from tests.eastfront.lab import act, cruiser, infantry, lab, phase, rolls, unit


@pytest.mark.rules("NM 25.0", "NM 25.2")
def test_nm_25_0_naval_units_are_not_combat_units_and_have_no_stacking_value():
    g = lab()
    kk = cruiser(g, "kk", "Soviet", "0504")
    flot = unit(g, "fl", "flotilla", "Soviet", "0503", attack=1, defense=1, move=4)
    assert is_naval(g, kk) and not is_combat(g, kk) and stacking_points(g, kk) == 0
    assert not is_naval(g, flot)  # NM 25.2: flotillas are not naval units
    assert zoc_hexes(g, "Soviet") == frozenset()


@pytest.mark.rules("NM 25.1", "NM 29.1")
@pytest.mark.parametrize(("target", "ok"), [("0404", True), ("0304", True), ("0204", False)])
def test_nm_25_1_range_counts_the_defender_hex_not_the_unit_hex(target, ok):
    """NM-27: a naval unit of Range 2 at sea on hex 0504 reaches a Defender Hex at distance 1
    (0404) and 2 (0304) but not 3 (0204)."""
    g = lab()
    s = cruiser(g, "s", "Soviet", "0504", range=2)
    i = g.board.idx(target)
    assert g.board.distance(g.board.idx("0504"), i) == {"0404": 1, "0304": 2, "0204": 3}[target]
    why = support_problem(g, s, "Soviet", i, True, [])
    assert (why is None) is ok
    if not ok:
        assert "out of range" in why


@pytest.mark.rules("NM 25.2", "EF 12.0")
def test_nm_25_2_naval_units_never_take_ground_step_losses():
    """NM 25.2: a Soviet destroyer in the anchorage of Charlie shares the hex with an infantry
    unit that is attacked: the infantry loses the steps, the destroyer is untouched."""
    g = lab()
    dd = unit(g, "dd", "dd", "Soviet", "0401", protection=1, nmp=2, recovery=6)
    su = infantry(g, "su", "Soviet", "0401")
    for k, h in enumerate(("0402", "0301", "0502")):
        infantry(g, f"de{k}", "Axis", h, attack=8)
    phase(g, "combat", "Axis")
    act(g, "attack", "Axis", target="0401")
    for k in range(3):
        act(g, "add-attacker", "Axis", piece=f"de{k}")
    g.force_dice([6])
    act(g, "resolve-attack", "Axis")
    assert su.loc == ("box", "Eliminated")
    assert dd.loc == ("hex", g.board.idx("0401")) and NavalAttrs(dd.attrs).damage == 0


@pytest.mark.rules("NM 25.3")
@pytest.mark.parametrize(
    ("natural", "damaged", "level", "ready"),
    [
        (5, False, 0, True),
        (6, False, 0, False),
        (4, True, 0, True),
        (5, True, 0, False),
        (3, True, 2, False),
    ],
)
def test_nm_25_3_readiness_roll_against_the_recovery_value(natural, damaged, level, ready):
    """NM-13: Recovery 5: roll 5 Ready, 6 not; damaged +1 (4 -> 5 Ready, 5 -> 6 not); damaged
    in a port under Level 2 Interdiction 3 + 1 + 2 = 6, not Ready."""
    g = lab()
    s = cruiser(g, "s", "Soviet", "box:Alpha box", face="sailed", recovery=5)
    if damaged:
        NavalAttrs(s.attrs).damage = 1
    if level:
        ef(g).raw()["zoi"]["0404"] = ZoiRecord.new(level=level, side="Axis", turn=1)
    phase(g, "naval-readiness", "Soviet")
    g.force_dice([natural])
    ev = act(g, "readiness", "Soviet", ship="s")
    assert rolls(ev)[0]["data"]["modified"] == natural + int(damaged) + level
    assert (s.face == "ready") is ready


@pytest.mark.rules("NM 25.3")
def test_nm_25_3_every_sailed_unit_rolls_when_the_phase_ends_and_ready_units_stay_ready():
    g = lab()
    a = cruiser(g, "a", "Soviet", "box:Alpha box", face="sailed", recovery=5)
    b = cruiser(g, "b", "Soviet", "box:Alpha box", recovery=5)
    phase(g, "naval-readiness", "Soviet")
    g.force_dice([2])
    ev = act(g, "end-phase", "Soviet")
    assert len(rolls(ev)) == 1 and a.face == "ready" and b.face == "ready"


@pytest.mark.rules("NM 25.3", "NM 27.41")
def test_nm_25_3_readiness_or_repair_not_both_and_one_point_at_most():
    """NM-32: a Sailed damaged unit in port may roll for Readiness or Repair, not both; a
    repair roll far under the Recovery value still removes exactly one Damage Point."""
    g = lab()
    s = cruiser(g, "s", "Soviet", "box:Alpha box", face="sailed", recovery=5)
    NavalAttrs(s.attrs).damage = 2
    phase(g, "naval-readiness", "Soviet")
    kinds = {a["type"] for a in g.legal_actions("Soviet") if a.get("ship") == "s"}
    assert kinds == {"readiness", "repair"}
    g.force_dice([1])
    act(g, "repair", "Soviet", ship="s")
    assert NavalAttrs(s.attrs).damage == 1 and s.face == "sailed"
    with pytest.raises(IllegalAction):
        act(g, "readiness", "Soviet", ship="s")
    assert not [a for a in g.legal_actions("Soviet") if a.get("ship") == "s"]


@pytest.mark.rules("NM 25.3")
def test_nm_25_3_sunk_units_do_not_check_readiness_and_chances_are_exact():
    g = lab()
    s = cruiser(g, "s", "Soviet", "box:Alpha box", face="sailed", recovery=5)
    cruiser(g, "gone", "Soviet", "box:Eliminated", face="sailed")
    phase(g, "naval-readiness", "Soviet")
    ships = {a.get("ship") for a in g.legal_actions("Soviet")}
    assert "gone" not in ships and "s" in ships
    assert success_chance(g, s, False) == Fraction(1, 2)
    outs = g.chance_outcomes({"type": "readiness", "side": "Soviet", "ship": "s"})
    assert [(o.label, o.probability) for o in outs] == [
        ("success", Fraction(1, 2)),
        ("failure", Fraction(1, 2)),
    ]


@pytest.mark.rules("NM 25.2", "NM 26.12")
def test_nm_25_2_naval_units_keep_enemy_non_combat_units_out_of_their_port_hex():
    """NM-31: an enemy MSU may not move into a port hex that holds only naval units; an enemy
    infantry unit may (and forces them out, NM 26.12b)."""

    g = lab()
    cruiser(g, "kk", "Soviet", "box:Alpha box")
    msu = unit(g, "msu", "msu", "Axis", "0305", asp=1, move=6, motorized=True)
    de = infantry(g, "de", "Axis", "0405")
    port_hex = g.board.idx("0404")
    assert port_hex not in destinations(g, msu, "movement")
    assert port_hex in destinations(g, de, "movement")
