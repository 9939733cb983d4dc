"""Naval transport and evacuation (NM 28.0-28.2)."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.eastfront.air.combat import hex_aa
from grognard.rulesets.eastfront.map.ports import port_named
from grognard.rulesets.eastfront.model import GroundAttrs, ef
from grognard.rulesets.eastfront.naval.capacity import load_room, supply_capacity, unload_room
from grognard.rulesets.eastfront.naval.evacuation import engineering, interphase
from grognard.rulesets.eastfront.naval.transport import capacity_cost, carry_problem, load_problem
from grognard.rulesets.eastfront.supply.attack import supply_source
from tests.eastfront.lab import INF, act, cruiser, infantry, lab, phase, unit


def transport(g, pid: str, side: str, at: str, capacity: int = 3):
    return unit(g, pid, "t", side, at, protection=2, capacity=capacity, nmp=2, recovery=5)


@pytest.mark.rules("NM 28.11")
def test_nm_28_11_capacity_points_and_what_cannot_be_carried():
    """NM-19: a motorized stacking point needs two points, no combining of carriers, an HQ one
    point whatever its size, coast artillery and Replacement Points never, an Axis RSC yes."""
    g = lab()
    one = transport(g, "one", "Soviet", "box:Alpha box", capacity=1)
    two = transport(g, "two", "Soviet", "box:Alpha box", capacity=2)
    three = transport(g, "three", "Soviet", "box:Alpha box", capacity=3)
    mot = unit(g, "mot", "armor", "Soviet", "0404", attack=3, defense=2, move=8, sp=1)
    assert capacity_cost(g, mot) == 2
    assert "needs 2" in carry_problem(g, one, mot)
    assert carry_problem(g, two, mot) is None
    foot = unit(g, "foot", "infantry", "Soviet", "0404", attack=1, defense=1, move=4, sp=1)
    g.state.move("mot", ("piece", "three"))
    assert carry_problem(g, three, foot) is None  # 2 + 1 = 3
    hq = unit(g, "hq", "hq", "Soviet", "0404", command=3, activations=1, sp=3)
    assert capacity_cost(g, hq) == 1
    cd = unit(g, "cd", "cd", "Soviet", "0404", support=2, range=3, sp=1)
    rp = unit(g, "rp", "rp", "Soviet", "0404")
    assert capacity_cost(g, cd) is None and capacity_cost(g, rp) is None
    assert "cannot be carried" in carry_problem(g, two, cd)
    rsc = unit(g, "rsc", "rsc", "Axis", "0404", attack=1, defense=2, move=3, sp=1)
    assert capacity_cost(g, rsc) == 1
    zap = unit(g, "zap", "zap", "Soviet", "0404", attack=1, defense=1, move=3, sp=1)
    militia = unit(g, "mil", "militia", "Soviet", "0404", attack=1, defense=1, move=3, sp=1)
    assert capacity_cost(g, zap) == 1 and capacity_cost(g, militia) == 1
    dump = unit(g, "dump", "dump", "Soviet", "0404", asp=3)
    assert capacity_cost(g, dump) == 3


@pytest.mark.rules("NM 28.0", "NM 28.1", "NM 28.12")
def test_nm_28_0_nm_28_12_load_sail_and_unload_at_the_destination_port():
    """NM 28.12: a unit and its carrier begin together in port; loading is no ground movement;
    the carrier sails; at the end of the phase, after the loss rolls, the unit goes ashore at
    the friendly destination port and spends no movement points in that phase."""
    g = lab()
    transport(g, "t", "Soviet", "box:Alpha box")
    inf = infantry(g, "i", "Soviet", "0404", sp=2)
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "load", "Soviet", piece="i", ship="t", amphibious=False)
    assert inf.loc == ("piece", "t")
    assert load_room(g, port_named(g, "Alpha"), "Soviet") == 10
    act(g, "sail", "Soviet", ships=["t"], to="Bravo")
    with pytest.raises(IllegalAction):
        act(g, "move", "Soviet", piece="i", to="0405")
    g.force_dice([1])
    act(g, "end-phase", "Soviet")
    assert inf.loc == ("hex", g.board.idx("0708"))
    assert unload_room(g, port_named(g, "Bravo"), "Soviet") == 4


@pytest.mark.rules("NM 28.12", "EF 10.25", "EF 8.54a")
def test_nm_28_12_who_loads_in_which_movement_phase():
    """NM 28.12a: in the Motorized Movement Phase motorized units, and non-motorized units a
    Soviet HQ activated for port-to-port transport; in the Movement Phase non-motorized units."""
    g = lab()
    ship = transport(g, "t", "Soviet", "box:Alpha box")
    foot = infantry(g, "foot", "Soviet", "0404")
    mot = unit(g, "mot", "armor", "Soviet", "0404", attack=3, defense=2, move=8, sp=1)
    unit(g, "hq", "hq", "Soviet", "0405", command=2, activations=1, sp=0, move=6, motorized=True)
    assert load_problem(g, mot, ship, False, "motorized") is None
    assert "port-to-port" in load_problem(g, foot, ship, False, "motorized")
    assert load_problem(g, foot, ship, False, "movement") is None
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "activate", "Soviet", piece="foot", hq="hq")
    act(g, "load", "Soviet", piece="foot", ship="t", amphibious=False)
    assert "port-to-port" in foot.status


@pytest.mark.rules("NM 28.12")
def test_nm_28_12_port_to_port_units_unload_in_the_movement_phase_and_do_not_move():
    """NM 28.12h: a Soviet non-motorized unit activated for port-to-port transport in the
    Motorized Movement Phase stays aboard at the end of that phase, unloads in the Movement
    Phase and moves no further in it."""
    g = lab()
    transport(g, "t", "Soviet", "box:Alpha box")
    foot = infantry(g, "foot", "Soviet", "0404")
    unit(g, "hq", "hq", "Soviet", "0405", command=2, activations=1, sp=0, move=6, motorized=True)
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "activate", "Soviet", piece="foot", hq="hq")
    act(g, "load", "Soviet", piece="foot", ship="t", amphibious=False)
    act(g, "sail", "Soviet", ships=["t"], to="Bravo")
    g.force_dice([1])
    act(g, "end-phase", "Soviet")
    assert foot.loc == ("piece", "t")
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "unload", "Soviet", piece="foot")
    assert foot.loc == ("hex", g.board.idx("0708"))
    with pytest.raises(IllegalAction, match="carried by sea"):
        act(g, "move", "Soviet", piece="foot", to="0608")


@pytest.mark.rules("NM 28.12")
def test_nm_28_12_what_exceeds_stacking_stays_aboard():
    """NM 28.12f: a unit that would overstack the port stays aboard until a later phase."""
    g = lab()
    transport(g, "t", "Soviet", "box:Alpha box")
    infantry(g, "i", "Soviet", "0404")
    for k in range(2):
        infantry(g, f"b{k}", "Soviet", "0708")  # 4 stacking points at Bravo
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "load", "Soviet", piece="i", ship="t", amphibious=False)
    act(g, "sail", "Soviet", ships=["t"], to="Bravo")
    g.force_dice([1])
    act(g, "end-phase", "Soviet")
    assert g.state.pieces["i"].loc == ("piece", "t")


@pytest.mark.rules("NM 28.12", "NM 30.4")
def test_nm_28_12_an_msu_aboard_or_just_unloaded_gives_no_attack_supply():
    """NM-33: an MSU aboard may not be used; unloaded in a phase, it may from the next phase of
    the same player turn."""
    g = lab()
    transport(g, "t", "Soviet", "box:Alpha box")
    msu = unit(g, "msu", "msu", "Soviet", "0404", asp=2, move=6, motorized=True)
    target = g.board.idx("0305")
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "load", "Soviet", piece="msu", ship="t", amphibious=False)
    assert supply_source(g, "Soviet", target) is None
    act(g, "sail", "Soviet", ships=["t"], to="Bravo")
    g.force_dice([1])
    act(g, "end-phase", "Soviet")
    assert msu.loc == ("hex", g.board.idx("0708"))
    bravo_target = g.board.idx("0607")
    assert supply_source(g, "Soviet", bravo_target) is None  # same phase number still
    ef(g).phase_no += 1
    assert supply_source(g, "Soviet", bravo_target) is msu


@pytest.mark.rules("NM 28.12", "EF 14.4")
def test_nm_28_12_a_unit_aboard_has_no_aa():

    g = lab()
    transport(g, "t", "Soviet", "0401")
    unit(g, "aa", "aa", "Soviet", "in:t", aa=2, sp=0)
    assert hex_aa(g, g.board.idx("0401"), "Soviet") is None


@pytest.mark.rules("NM 28.1")
def test_nm_28_1_reinforcements_in_a_holding_box_sail_in_their_arrival_phase():
    """NM 28.1b: units placed in a Holding Box as reinforcements may be carried by sea in their
    phase of arrival."""
    g = lab()
    transport(g, "t", "Soviet", "box:Haven")
    infantry(g, "new", "Soviet", "box:Haven")
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "load", "Soviet", piece="new", ship="t", amphibious=False)
    act(g, "sail", "Soviet", ships=["t"], to="Delta")
    g.force_dice([1])
    act(g, "end-phase", "Soviet")
    assert g.state.pieces["new"].loc == ("hex", g.board.idx("0106"))


@pytest.mark.rules("NM 28.2")
def test_nm_28_2_evacuation_port():
    """NM-20: at an evacuation port loading doubles (after reductions and the base), unloading
    stops, General Supply is 0, an arriving naval unit stays Ready, a unit may move there
    overland and load in the same phase, and an HQ that evacuates turns Non-Op."""
    g = lab()
    alpha = port_named(g, "Alpha")
    transport(g, "t", "Soviet", "box:Alpha box", capacity=6)
    kk = cruiser(g, "kk", "Soviet", "area:SZ1")
    infantry(g, "far", "Soviet", "0305")
    hq = unit(
        g, "hq", "hq", "Soviet", "0404", command=2, activations=1, sp=0, move=6, motorized=True
    )
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "declare-evacuation", "Soviet", port="Alpha")
    assert load_room(g, alpha, "Soviet") == 24
    assert unload_room(g, alpha, "Soviet") == 0 and supply_capacity(g, alpha, "Soviet") == 0
    act(g, "move", "Soviet", piece="far", to="0404")
    act(g, "load", "Soviet", piece="far", ship="t", amphibious=False)
    act(g, "load", "Soviet", piece="hq", ship="t", amphibious=False)
    assert hq.face == "non-op"
    a = GroundAttrs(g.state.pieces["far"].attrs)
    assert (a.dnm, a.evacuated) == (2, True)
    act(g, "sail", "Soviet", ships=["kk"], to="Alpha")
    g.force_dice([1])
    act(g, "end-phase", "Soviet")
    assert kk.face == "ready"


@pytest.mark.rules("NM 28.2")
def test_nm_28_2_do_not_move_counts_from_the_landing_turn():
    """NM-11: the 1330 Regiment lands in turn 1: Do Not Move 2; in its Engineering Phase it
    turns to 1; it is removed at the end of turn 2; the unit is free to move in turn 3."""

    g = lab()
    g.state.turn["index"] = 1
    transport(g, "t", "Soviet", "box:Bravo box")
    reg = infantry(g, "r1330", "Soviet", "in:t", attrs={"dnm": 2, "evacuated": True})
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "unload", "Soviet", piece="r1330")
    a = GroundAttrs(reg.attrs)
    assert (a.dnm, a.dnm_turn, a.evacuated) == (2, 1, False)
    engineering(g, "Soviet")
    assert (a.dnm, a.dnm_turn) == (1, 1)
    interphase(g)
    assert a.dnm == 1
    g.state.turn["index"] = 2
    interphase(g)
    assert a.dnm == 0
    g.state.turn["index"] = 3
    phase(g, "movement", "Soviet", kind="movement")
    assert any(x["type"] == "move" and x["piece"] == "r1330" for x in g.legal_actions("Soviet"))


@pytest.mark.rules("NM 28.2")
def test_nm_28_2_evacuation_ends_when_an_enemy_combat_unit_enters():
    g = lab()
    infantry(g, "de", "Axis", "0305")
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "declare-evacuation", "Soviet", port="Alpha")
    act(g, "end-phase", "Soviet")
    phase(g, "movement", "Axis", kind="movement")
    act(g, "move", "Axis", piece="de", to="0404")
    assert ef(g).ports["Alpha"].evacuation == "complete"
    assert g.state.control[g.board.idx("0404")] == "Axis"
    assert INF["sp"] == 2
