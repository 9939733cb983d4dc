"""Ports (NM 26.2-26.27) and naval unit status (NM 26.3)."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.eastfront.air.combat import hex_aa
from grognard.rulesets.eastfront.map.control import take_control
from grognard.rulesets.eastfront.map.ports import (
    category,
    naval_port,
    port_at_hex,
    port_named,
    ports,
)
from grognard.rulesets.eastfront.model import GroundAttrs, NavalAttrs, ZoiRecord, ef
from grognard.rulesets.eastfront.naval.capacity import (
    allows_type,
    load_room,
    net_capacity,
    supply_capacity,
    unload_room,
    use_capacity,
)
from grognard.rulesets.eastfront.naval.movement import destinations
from grognard.rulesets.eastfront.naval.transport import load_problem
from grognard.rulesets.eastfront.supply.general import supply_status
from tests.eastfront.lab import act, cruiser, infantry, lab, phase, unit

PORT_CHART_10 = """id = "port-chart"
title = "Port Characteristics Chart (test)"
provisional = true
derived_from = ["NM 26.26"]
die = "d6"
columns = ["major", "minor", "anchorage"]
[rows]
1 = [10, 6, 2]
2 = [10, 12, 4]
3 = [6, 3, 1]
4 = [2, 2, 2]
5 = ["bb cl dl dd t", "cl dl dd t", "dd t"]
"""


def zoi(g, label: str, level: int, side: str = "Axis") -> None:
    ef(g).raw()["zoi"][label] = ZoiRecord.new(level=level, side=side, turn=1)


def base(g, at: str = "0404", placed: int = 0):
    return unit(g, "base", "naval-base", "Soviet", at, sp=0, attrs={"placed_turn": placed})


@pytest.mark.rules("NM 26.2", "NM 26.21")
def test_nm_26_2_ports_by_category_and_holding_boxes_as_ports():
    g = lab()
    names = {p.name: p.category for p in ports(g)}
    assert names == {
        "Alpha": "major",
        "Axis Haven": "major",
        "Bravo": "minor",
        "Charlie": "anchorage",
        "Delta": "minor",
        "Haven": "major",
        "Mud": "anchorage",
    }
    assert port_named(g, "Haven").hex is None and port_named(g, "Haven").side == "Soviet"
    assert port_at_hex(g, g.board.idx("0404")).name == "Alpha"


@pytest.mark.rules("NM 26.21", "NM 26.23")
def test_nm_26_21_categories_decide_the_types_a_port_takes():
    """NM 26.23 with the provisional chart: a destroyer in an anchorage, not a cruiser; no
    battleship in a minor port."""
    g = lab()
    charlie, bravo = port_named(g, "Charlie"), port_named(g, "Bravo")
    assert [category(g, n) for n in ("Alpha", "Bravo", "Charlie")] == [
        "major",
        "minor",
        "anchorage",
    ]
    assert allows_type(g, charlie, "dd") and not allows_type(g, charlie, "cl")
    assert not allows_type(g, bravo, "bb") and allows_type(g, bravo, "cl")


@pytest.mark.rules("NM 26.23")
def test_nm_26_23_a_cruiser_may_not_sail_into_an_anchorage_a_destroyer_may():
    g = lab()
    cruiser(g, "kk", "Soviet", "area:SZ1")
    unit(g, "dd", "dd", "Soviet", "area:SZ1", protection=1, nmp=2, recovery=6)
    phase(g, "movement", "Soviet", kind="motorized")
    with pytest.raises(IllegalAction, match="allowed type"):
        act(g, "sail", "Soviet", ships=["kk"], to="Charlie")
    act(g, "sail", "Soviet", ships=["dd"], to="Charlie")
    assert g.state.pieces["dd"].loc == ("hex", g.board.idx("0401"))


@pytest.mark.rules("NM 26.22", "NM 26.23")
def test_nm_26_22_port_boxes_anchorages_and_river_ports():
    """NM 26.22: a unit in a port box is in the port; an anchorage has no box, its naval units
    stand on the hex; a river port (Delta) is entered from its zone at no extra cost and leads
    nowhere further."""
    g = lab()
    kk = cruiser(g, "kk", "Soviet", "box:Alpha box")
    dd = unit(g, "dd", "dd", "Soviet", "0401", protection=1, nmp=2, recovery=6)
    assert naval_port(g, kk).name == "Alpha" and naval_port(g, dd).name == "Charlie"
    at_sea = cruiser(g, "s3", "Soviet", "area:SZ3")
    dests = destinations(g, [at_sea])
    assert dests["Delta"].cost == 0 and dests["Delta"].loc == ("box", "Delta box")
    assert "Charlie" not in destinations(g, [kk])  # a cruiser in an anchorage: not allowed
    small = unit(g, "dd2", "dd", "Soviet", "box:Alpha box", protection=1, nmp=2, recovery=6)
    assert destinations(g, [small])["Charlie"].loc == ("hex", g.board.idx("0401"))


@pytest.mark.rules("NM 26.24")
def test_nm_26_24_one_budget_for_loading_and_unloading_each_turn():
    """NM-4: capacity 12, 7 NTP unloaded: 5 may still load, not 6; next turn 12 again."""
    g = lab()
    alpha = port_named(g, "Alpha")
    assert load_room(g, alpha, "Soviet") == 12
    use_capacity(g, alpha, 7, loading=False)
    assert load_room(g, alpha, "Soviet") == 5 and unload_room(g, alpha, "Soviet") == 5
    ship = unit(g, "t", "t", "Soviet", "box:Alpha box", protection=2, capacity=6, nmp=2, recovery=5)
    big = unit(
        g, "big", "infantry", "Soviet", "0404", attack=4, defense=4, move=4, sp=3, motorized=True
    )
    five = unit(g, "five", "infantry", "Soviet", "0404", attack=4, defense=4, move=4, sp=5)
    assert "NTP left to load" in load_problem(g, big, ship, False, "movement")
    assert load_problem(g, five, ship, False, "movement") is None
    g.state.turn["index"] = 2
    assert load_room(g, alpha, "Soviet") == 12


@pytest.mark.rules("NM 26.25")
def test_nm_26_25_port_general_supply_doubles_with_a_naval_base_and_shoal_anchorage_is_none():
    """NM-29: a port's chart capacity G (a major port: 30), 2G with a Naval Base; an anchorage
    on Shallow Water is no port; an adjacent enemy combat unit with no friendly ground unit in
    the port hex: nothing."""
    g = lab()
    g.state.turn["index"] = 2
    alpha, mud = port_named(g, "Alpha"), port_named(g, "Mud")
    assert supply_capacity(g, alpha, "Soviet") == 30
    base(g, placed=1)
    assert supply_capacity(g, alpha, "Soviet") == 60
    assert supply_capacity(g, mud, "Soviet") == 0
    g2 = lab()
    infantry(g2, "de", "Axis", "0305")
    assert supply_capacity(g2, port_named(g2, "Alpha"), "Soviet") == 0
    infantry(g2, "su", "Soviet", "0404")
    assert supply_capacity(g2, port_named(g2, "Alpha"), "Soviet") == 30


@pytest.mark.rules("NM 26.25", "EF 11.0")
def test_nm_26_25_a_port_supplies_only_its_capacity_in_stacking_points():
    """Alpha's General Supply capacity set to 4 stacking points: of three 2-point units that
    can trace only to it, the two nearest are supplied, the third is not."""
    g = lab(tables={"port-chart": PORT_CHART_10.replace("2 = [10, 12, 4]", "2 = [4, 12, 4]")})
    for name in ("Charlie", "Delta"):
        g.state.control[port_named(g, name).hex] = "Axis"
    for k, h in enumerate(("0403", "0303", "0402")):
        infantry(g, f"su{k}", "Soviet", h)  # 2 stacking points each; 0402 is the farthest
    status = supply_status(g, "Soviet")
    assert status == {"su0": "ok", "su1": "ok", "su2": "oos"}


@pytest.mark.rules("NM 26.26")
def test_nm_26_26_the_example_30_minus_6_minus_12_doubled_is_24():
    """NM-1: Sevastopol's example: 30, Axis artillery with six support points in range (-6),
    a Level 2 Zone of Interdiction (-12, the listed 6 doubled), a Soviet Naval Base (x2): 24."""
    g = lab()
    g.state.turn["index"] = 2
    alpha = port_named(g, "Alpha")
    unit(g, "art", "artillery", "Axis", "0205", support=6, range=2, sp=1)
    zoi(g, "0404", 2)
    base(g, placed=1)
    assert net_capacity(g, alpha, "Soviet", 2) == 24


@pytest.mark.rules("NM 26.26")
def test_nm_26_26_artillery_reduction_stops_at_six_and_needs_general_supply():
    """NM-2: nine enemy artillery points in range reduce the General Supply capacity by 6 only
    (30 -> 24), the NTP capacity not at all; artillery out of General Supply, not at all."""
    g = lab()
    alpha = port_named(g, "Alpha")
    art = unit(g, "art", "artillery", "Axis", "0205", support=9, range=2, sp=1)
    assert net_capacity(g, alpha, "Soviet", 2) == 24
    assert net_capacity(g, alpha, "Soviet", 1) == 12
    art.status.add("oos")
    assert net_capacity(g, alpha, "Soviet", 2) == 30


@pytest.mark.rules("NM 26.26")
def test_nm_26_26_never_below_zero_and_doubling_after_the_reductions():
    """NM-3: 10, Level 2 with a listed 6 (-12), a Naval Base: max(0, -2) x 2 = 0."""
    g = lab(tables={"port-chart": PORT_CHART_10})
    g.state.turn["index"] = 2
    zoi(g, "0404", 2)
    base(g, placed=1)
    assert net_capacity(g, port_named(g, "Alpha"), "Soviet", 2) == 0


@pytest.mark.rules("NM 26.26", "EF 14.4")
def test_nm_26_26_naval_units_in_port_fire_aa_when_no_land_unit_can():
    """NM 26.26e: over a port hex without AA-capable land units, a naval unit there (not a
    transport) makes the AA roll."""
    g = lab()
    i = g.board.idx("0404")
    unit(g, "t", "t", "Soviet", "box:Alpha box", protection=2, capacity=2, nmp=2, recovery=5)
    assert hex_aa(g, i, "Soviet") is None
    kk = cruiser(g, "kk", "Soviet", "box:Alpha box")
    assert hex_aa(g, i, "Soviet") is kk
    aa = unit(g, "aa", "aa", "Soviet", "0404", aa=2, sp=0)
    assert hex_aa(g, i, "Soviet") is aa


@pytest.mark.rules("NM 26.27", "EF 9.0")
def test_nm_26_27_a_captured_port_waits_until_the_next_turn():
    """NM-28: captured in turn 1: no naval movement into or out of it and no General Supply for
    the rest of the turn; usable in turn 2."""
    g = lab()
    g.state.turn["index"] = 1
    bravo = port_named(g, "Bravo")
    g.state.control[bravo.hex] = "Axis"
    take_control(g, bravo.hex, "Soviet")
    kk = cruiser(g, "kk", "Soviet", "area:SZ2")
    assert "Bravo" not in destinations(g, [kk])
    assert supply_capacity(g, bravo, "Soviet") == 0
    inside = cruiser(g, "in", "Soviet", "box:Bravo box")
    phase(g, "movement", "Soviet", kind="motorized")
    with pytest.raises(IllegalAction, match="captured"):
        act(g, "sail", "Soviet", ships=["in"], to="SZ2")
    g.state.turn["index"] = 2
    assert "Bravo" in destinations(g, [kk])
    assert supply_capacity(g, bravo, "Soviet") == 12
    assert inside.loc == ("box", "Bravo box")


@pytest.mark.rules("NM 26.3")
def test_nm_26_3_ending_a_move_in_a_friendly_port_turns_it_sailed_and_sailed_units_stay():
    g = lab()
    kk = cruiser(g, "kk", "Soviet", "area:SZ1")
    stay = cruiser(g, "stay", "Soviet", "box:Alpha box")
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "sail", "Soviet", ships=["kk"], to="Alpha")
    g.force_dice([1])
    act(g, "end-phase", "Soviet")
    assert kk.face == "sailed" and stay.face == "ready"
    phase(g, "movement", "Soviet", kind="movement")
    with pytest.raises(IllegalAction, match="Sailed"):
        act(g, "sail", "Soviet", ships=["kk"], to="SZ1")


@pytest.mark.rules("NM 26.3")
def test_nm_26_3_after_the_motorized_phase_too_unless_the_option_says_no():
    for flag, face in ((True, "sailed"), (False, "ready")):
        g = lab(options={"sail_after_motorized": flag})
        kk = cruiser(g, "kk", "Soviet", "area:SZ1")
        phase(g, "movement", "Soviet", kind="motorized")
        act(g, "sail", "Soviet", ships=["kk"], to="Alpha")
        g.force_dice([1])
        act(g, "end-phase", "Soviet")
        assert kk.face == face


@pytest.mark.rules("NM 26.3", "NM 27.41")
def test_nm_26_3_at_sea_no_reloading_and_no_repair():
    g = lab()
    kk = cruiser(g, "kk", "Soviet", "area:SZ1")
    NavalAttrs(kk.attrs).damage = 1
    phase(g, "naval-readiness", "Soviet")
    assert not [a for a in g.legal_actions("Soviet") if a.get("ship") == "kk"]
    inf = infantry(g, "i", "Soviet", "0404")
    assert "not in port" in load_problem(g, inf, kk, False, "movement")
    assert GroundAttrs(inf.attrs).dnm == 0
