"""Naval movement (NM 26.0-26.14): zones, points, who moves when, the forced sortie."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.eastfront.map.geography import zone_distances, zone_graph, zone_of
from grognard.rulesets.eastfront.map.ports import port_named
from grognard.rulesets.eastfront.model import NavalAttrs, ef
from grognard.rulesets.eastfront.naval.movement import destinations
from grognard.rulesets.eastfront.naval.units import sea_zone
from tests.eastfront.lab import act, cruiser, infantry, lab, phase, rolls, unit


@pytest.mark.rules("NM 26.0", "NM 26.11")
def test_nm_26_0_a_naval_move_carries_its_passengers_zone_to_zone():
    g = lab()
    t = unit(g, "t", "t", "Soviet", "box:Alpha box", protection=2, capacity=4, nmp=2, recovery=5)
    inf = infantry(g, "i", "Soviet", "in:t")
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "sail", "Soviet", ships=["t"], to="SZ2")
    assert t.loc == ("area", "SZ2") and g.state.where("i") == ("area", "SZ2")
    assert sea_zone(g, t) == "SZ2" and inf.loc == ("piece", "t")
    sailing = ef(g).move.sailings[0]
    assert (sailing.nmp, sailing.zones, sailing.departure) == (2, ["SZ1", "SZ2"], "Alpha")


@pytest.mark.rules("NM 26.1", "NM 26.11")
def test_nm_26_1_zones_form_a_graph_and_ports_lie_in_none():
    g = lab()
    graph = zone_graph(g)
    assert graph["SZ2"] == ("SZ1", "SZ3") and "Shoal" not in graph
    assert zone_of(g, g.board.idx("0404")) is None  # the port of Alpha: in no zone
    assert zone_distances(g, "SZ1") == {"SZ1": 0, "SZ2": 1, "SZ3": 2}


@pytest.mark.rules("NM 26.11")
def test_nm_26_11_a_unit_at_sea_has_no_hex_unless_on_a_mission():
    g = lab()
    kk = cruiser(g, "kk", "Soviet", "box:Alpha box")
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "sail", "Soviet", ships=["kk"], to="SZ1")
    assert kk.loc == ("area", "SZ1")
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "sail", "Soviet", ships=["kk"], to="0504")
    assert kk.loc == ("hex", g.board.idx("0504")) and sea_zone(g, kk) == "SZ1"


@pytest.mark.rules("NM 26.12")
def test_nm_26_12_soviet_units_move_one_at_a_time_axis_units_as_a_group():
    """NM 26.12a: a Soviet group is refused; an Axis group beginning together moves and rolls
    once for the group."""
    g = lab()
    cruiser(g, "s1", "Soviet", "box:Alpha box")
    cruiser(g, "s2", "Soviet", "box:Alpha box")
    phase(g, "movement", "Soviet", kind="motorized")
    with pytest.raises(IllegalAction, match="one at a time"):
        act(g, "sail", "Soviet", ships=["s1", "s2"], to="SZ1")
    g2 = lab()
    a1 = cruiser(g2, "a1", "Axis", "box:Axis Haven")
    a2 = cruiser(g2, "a2", "Axis", "box:Axis Haven")
    phase(g2, "movement", "Axis", kind="movement")
    groups = [a["ships"] for a in g2.legal_actions("Axis") if a["type"] == "sail"]
    assert ["a1", "a2"] in groups
    act(g2, "sail", "Axis", ships=["a1", "a2"], to="SZ1")
    g2.force_dice([9])  # regular: D1, for each unit of the group
    ev = act(g2, "end-phase", "Axis")
    assert len(rolls(ev)) == 1
    assert NavalAttrs(a1.attrs).damage == 1 and NavalAttrs(a2.attrs).damage == 1


@pytest.mark.rules("NM 26.12")
def test_nm_26_12_forced_sortie_from_sailed_status_during_an_advance_after_combat():
    """NM-18: a Sailed naval unit with a passenger in a port whose hex an enemy combat unit
    enters by an advance after combat: at once into the adjacent zone, Ready, a loss roll at +3
    with Abort taken as D1, the passenger with it."""
    g = lab()
    s = cruiser(g, "s", "Soviet", "box:Alpha box", face="sailed")
    infantry(g, "p", "Soviet", "in:s")
    infantry(g, "def", "Soviet", "0404", attack=1, defense=1)
    for k, h in enumerate(("0305", "0304", "0403")):
        infantry(g, f"de{k}", "Axis", h, attack=9)
    phase(g, "combat", "Axis")
    act(g, "attack", "Axis", target="0404")
    for k in range(3):
        act(g, "add-attacker", "Axis", piece=f"de{k}")
    act(g, "resolve-attack", "Axis")
    assert g.phase_path()[-1] == "Defensive support"  # the cruiser in port could support
    g.force_dice([6])
    act(g, "pass", "Soviet")
    assert g.state.pieces["def"].loc == ("box", "Eliminated")
    assert s.loc == ("box", "Alpha box")  # naval units do not stop the advance (NM 25.2)
    g.force_dice([5])  # 5 + 3 = 8: regular column, A: counted as D1
    ev = act(g, "advance", "Axis", piece="de0")
    assert rolls(ev)[0]["data"]["modified"] == 8
    assert s.loc == ("area", "SZ1") and s.face == "ready"
    assert g.state.where("p") == ("area", "SZ1")
    assert NavalAttrs(s.attrs).damage == 1


@pytest.mark.rules("NM 26.12", "NM 27.32")
def test_nm_26_12_forced_sortie_by_an_enemy_move_into_the_port_hex():
    """NM-18 / NM-31 / NM-17 (b): an Axis infantry unit moves into the empty port hex of Alpha,
    where a Sailed Soviet cruiser with a passenger lies: it sorties into SZ1, Ready, rolls at +3
    and an Abort counts as one Damage Point."""
    g = lab()
    s = cruiser(g, "s", "Soviet", "box:Alpha box", face="sailed")
    infantry(g, "i", "Soviet", "in:s")
    infantry(g, "de", "Axis", "0305")
    phase(g, "movement", "Axis", kind="movement")
    g.force_dice([5])  # 5 + 3 = 8: regular column A -> D1
    ev = act(g, "move", "Axis", piece="de", to="0404")
    roll = rolls(ev)[0]
    assert roll["data"]["modified"] == 8
    assert s.loc == ("area", "SZ1") and s.face == "ready"
    assert g.state.where("i") == ("area", "SZ1")
    assert NavalAttrs(s.attrs).damage == 1
    assert g.phase_path()[-1] == "Axis Movement Phase"


@pytest.mark.rules("NM 26.12")
def test_nm_26_12_no_naval_movement_into_shallow_water_and_any_weather():
    g = lab()
    g.state.turn["index"] = 2  # storm
    kk = cruiser(g, "kk", "Soviet", "area:SZ3")
    assert "Shoal" not in destinations(g, [kk]) and "1103" not in destinations(g, [kk])
    phase(g, "movement", "Soviet", kind="motorized")
    with pytest.raises(IllegalAction):
        act(g, "sail", "Soviet", ships=["kk"], to="1103")  # a Shallow Water hex
    act(g, "sail", "Soviet", ships=["kk"], to="SZ2")  # storm: it may still move
    g.force_dice([1])
    ev = act(g, "end-phase", "Soviet")
    assert "Storm" in rolls(ev)[0]["text"]
    assert kk.loc == ("area", "SZ2") and kk.face == "ready"  # NM 26.12c: it may stay at sea


@pytest.mark.rules("NM 26.13")
def test_nm_26_13_non_op_hqs_do_not_limit_naval_movement():
    g = lab()
    unit(g, "hq", "hq", "Soviet", "0404", face="non-op", command=3, activations=2)
    cruiser(g, "kk", "Soviet", "box:Alpha box")
    phase(g, "movement", "Soviet", kind="motorized")
    assert "SZ3" in destinations(g, [g.state.pieces["kk"]])
    act(g, "sail", "Soviet", ships=["kk"], to="SZ3")
    assert g.state.pieces["kk"].loc == ("area", "SZ3")


@pytest.mark.rules("NM 26.14")
def test_nm_26_14_nmp_costs_port_to_zone_zone_to_zone_and_free_into_port():
    """NM-14: Alpha -> SZ1 -> SZ2 -> Bravo costs 2: legal with 2 NMP, not with 1."""
    g = lab()
    two = cruiser(g, "two", "Soviet", "box:Alpha box", nmp=2)
    one = cruiser(g, "one", "Soviet", "box:Alpha box", nmp=1)
    assert destinations(g, [two])["Bravo"].cost == 2
    assert "Bravo" not in destinations(g, [one])
    assert destinations(g, [one])["SZ1"].cost == 1
    phase(g, "movement", "Soviet", kind="motorized")
    with pytest.raises(IllegalAction, match=r"NM 26\.14"):
        act(g, "sail", "Soviet", ships=["one"], to="Bravo")
    act(g, "sail", "Soviet", ships=["two"], to="Bravo")


@pytest.mark.rules("NM 26.14", "NM 27.1")
def test_nm_26_14_moving_within_its_zone_costs_nothing_and_brings_no_roll():
    """NM-14: a unit at sea that only moves to an all-sea hex of its own zone spends 0 NMP and
    makes no loss roll."""
    g = lab()
    kk = cruiser(g, "kk", "Soviet", "area:SZ1")
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "sail", "Soviet", ships=["kk"], to="0504")
    assert kk.loc == ("hex", g.board.idx("0504"))
    assert ef(g).move.sailings[0].nmp == 0
    ev = act(g, "end-phase", "Soviet")
    assert not rolls(ev)


@pytest.mark.rules("NM 26.14")
def test_nm_26_14_each_unit_moves_once_per_phase():
    g = lab()
    cruiser(g, "kk", "Soviet", "box:Alpha box")
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "sail", "Soviet", ships=["kk"], to="SZ1")
    with pytest.raises(IllegalAction, match="already moved"):
        act(g, "sail", "Soviet", ships=["kk"], to="SZ2")
    assert port_named(g, "Alpha") is not None
