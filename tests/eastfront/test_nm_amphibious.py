"""Amphibious Assault (NM 30.0-30.25), coast artillery effects (NM 30.3), special transport
(NM 30.4)."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.eastfront.combat.attack import DeclaredAttack
from grognard.rulesets.eastfront.combat.support import strength
from grognard.rulesets.eastfront.map.zoc import zoc_hexes
from grognard.rulesets.eastfront.model import GroundAttrs
from grognard.rulesets.eastfront.naval.amphibious import AmphibiousAssault
from grognard.rulesets.eastfront.naval.coast import cd_strength, line_of_fire, reaches
from grognard.rulesets.eastfront.naval.transport import load_problem
from grognard.rulesets.eastfront.supply.attack import needs_attack_supply, supply_source
from grognard.rulesets.eastfront.supply.general import supply_status
from grognard.rulesets.eastfront.supply.surrender import must_roll
from tests.eastfront.lab import act, infantry, lab, phase, rolls, unit


def transport(g, pid: str, at: str = "box:Alpha box", capacity: int = 3, side: str = "Soviet"):
    return unit(g, pid, "t", side, at, protection=2, capacity=capacity, nmp=2, recovery=5)


def landing_force(g, pid: str = "i", ship: str = "t", hex_: str = "0503"):
    """A Soviet infantry unit loaded for an assault and its transport, placed in the Motorized
    Movement Phase on all-sea hex ``hex_`` (NM 30.1); the loss roll comes out 1 (no effect)."""
    transport(g, ship)
    inf = infantry(
        g, pid, "Soviet", "0404", reduced={"attack": 2, "defense": 2, "move": 4, "sp": 2}
    )
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "load", "Soviet", piece=pid, ship=ship, amphibious=True)
    act(g, "sail", "Soviet", ships=[ship], to=hex_)
    g.force_dice([1])
    act(g, "end-phase", "Soviet")
    return inf


def soviet_combat(g) -> None:
    phase(g, "combat", "Soviet")
    if g.acting_sides() == ["Axis"]:
        act(g, "end-phase", "Axis")


@pytest.mark.rules("NM 30.0")
def test_nm_30_0_an_assault_is_the_declared_attack_with_amphibious_stages():
    """NM 30.0: next to units readied at sea the attack is an Amphibious Assault: the Declared
    Attack procedure with its own advance and an aftermath stage (NM 30.25)."""

    assert AmphibiousAssault.stages == (*DeclaredAttack.stages[:-1], "aftermath", "done")
    g = lab()
    landing_force(g)
    infantry(g, "de", "Axis", "0403")
    soviet_combat(g)
    act(g, "attack", "Soviet", target="0403")
    assert g.state.frames[-2].step == "amphibious-assault"


@pytest.mark.rules("NM 30.1", "NM 30.21")
def test_nm_30_1_load_sail_to_an_all_sea_hex_and_assault_in_the_combat_phase():
    """NM 30.1: loaded for the assault (a Soviet unit is Activated without an HQ, NM 30.21c),
    carried to an all-sea hex facing the coast, it attacks in the Combat Phase and comes ashore
    when the hex is cleared; it needs no Attack Supply (NM 30.21d)."""
    g = lab()
    inf = landing_force(g)
    assert "activated" in inf.status and "amphibious" in inf.status
    infantry(g, "de", "Axis", "0403", attack=1, defense=1, sp=1, reduced=None)
    soviet_combat(g)
    act(g, "attack", "Soviet", target="0403")
    assert g.phase_path()[-2] == "Attack on 0403"
    act(g, "add-attacker", "Soviet", piece="i")
    g.force_dice([6])
    ev = act(g, "resolve-attack", "Soviet")
    assert not any(e["type"] == "attack-supply" for e in ev)
    assert any("4 to 1" in e["text"] for e in ev)  # not halved although no MSU is near
    assert g.state.pieces["de"].loc == ("box", "Eliminated")
    assert inf.loc == ("hex", g.board.idx("0403"))
    assert GroundAttrs(inf.attrs).assault_turn == 1 and "assaulted" in inf.status


@pytest.mark.rules("NM 30.21")
def test_nm_30_21_who_may_assault():
    """NM-23: a motorized engineer may not; a unit that came out by evacuation and has not
    landed at a port may not; an Axis unit needs an HQ in range (a Soviet one does not)."""
    g = lab()
    ship = transport(g, "t")
    eng = unit(
        g, "eng", "engineer", "Soviet", "0404", attack=2, defense=2, move=6, sp=1, motorized=True
    )
    assert "non-motorized" in load_problem(g, eng, ship, True, "motorized")
    foot_eng = unit(g, "eng2", "engineer", "Soviet", "0404", attack=2, defense=2, move=4, sp=1)
    assert load_problem(g, foot_eng, ship, True, "motorized") is None
    evac = infantry(g, "ev", "Soviet", "0404", attrs={"evacuated": True})
    assert "evacuation" in load_problem(g, evac, ship, True, "motorized")
    art = unit(g, "art", "artillery", "Soviet", "0404", support=2, range=2, sp=1, move=3)
    assert load_problem(g, art, ship, True, "motorized") is not None
    g2 = lab()
    g2.state.control[g2.board.idx("0404")] = "Axis"
    axs = transport(g2, "at", side="Axis")
    foot = infantry(g2, "foot", "Axis", "0404")
    assert "HQ" in load_problem(g2, foot, axs, True, "movement")
    unit(g2, "hq", "hq", "Axis", "0305", command=2, activations=1, sp=0, move=6)
    assert load_problem(g2, foot, axs, True, "movement") is None
    assert "Movement Phase" in load_problem(g2, foot, axs, True, "motorized")


@pytest.mark.rules("NM 30.21", "EF 20.0")
def test_nm_30_21_no_surrender_roll_in_the_turn_of_the_assault():

    g = lab()
    su = infantry(g, "su", "Soviet", "0403", status=("no-loc",))
    infantry(g, "de", "Axis", "0402")
    assert must_roll(g) == ["su"]
    GroundAttrs(su.attrs).assault_turn = 1
    assert must_roll(g) == []


@pytest.mark.rules("NM 30.22")
def test_nm_30_22_one_combat_unit_per_all_sea_hex_never_a_coastal_hex_never_from_port():
    """NM-23: a second combat unit into the same all-sea hex in a phase is refused; placement on
    a coastal hex is refused; units still in port cannot assault."""
    g = lab()
    transport(g, "t1")
    transport(g, "t2")
    infantry(g, "i1", "Soviet", "0404")
    infantry(g, "i2", "Soviet", "0404")
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "load", "Soviet", piece="i1", ship="t1", amphibious=True)
    act(g, "load", "Soviet", piece="i2", ship="t2", amphibious=True)
    act(g, "sail", "Soviet", ships=["t1"], to="0503")
    with pytest.raises(IllegalAction, match="one combat unit"):
        act(g, "sail", "Soviet", ships=["t2"], to="0503")
    with pytest.raises(IllegalAction):
        act(g, "sail", "Soviet", ships=["t2"], to="0403")
    g.force_dice([1])
    act(g, "end-phase", "Soviet")
    infantry(g, "de", "Axis", "0405", attack=1, defense=1)
    soviet_combat(g)
    assert "0405" not in {a["target"] for a in g.legal_actions("Soviet") if a["type"] == "attack"}


@pytest.mark.rules("NM 30.22", "EF 7.5")
def test_nm_30_22_no_enemy_reaction_into_an_empty_coastal_hex_under_assault():
    g = lab()
    landing_force(g)
    mot = unit(g, "mot", "motorized", "Axis", "0302", attack=2, defense=2, move=8, sp=1)
    phase(g, "reaction", "Soviet")
    assert g.acting_sides() == ["Axis"]
    moves = {a["to"] for a in g.legal_actions("Axis") if a["type"] == "move"}
    assert "0402" not in moves and "0403" not in moves and "0301" in moves
    assert mot.loc == ("hex", g.board.idx("0302"))


@pytest.mark.rules("NM 30.23", "NM 30.24")
def test_nm_30_23_an_empty_coastal_hex_is_taken_without_combat():
    """NM-24: the declared target is empty: no CRT roll, every assault unit goes ashore."""
    g = lab()
    inf = landing_force(g)
    soviet_combat(g)
    act(g, "attack", "Soviet", target="0402")
    act(g, "add-attacker", "Soviet", piece="i")
    assert not [a for a in g.legal_actions("Soviet") if a["type"] == "add-support"]
    ev = act(g, "resolve-attack", "Soviet")
    assert not rolls(ev)
    assert inf.loc == ("hex", g.board.idx("0402"))


@pytest.mark.rules("NM 30.23", "EF 6.0")
def test_nm_30_23_no_zone_of_control_across_the_all_sea_hexside():

    g = lab()
    infantry(g, "de", "Axis", "0403")
    assert g.board.idx("0503") not in zoc_hexes(g, "Axis")
    assert g.board.idx("0402") in zoc_hexes(g, "Axis")


@pytest.mark.rules("NM 30.24")
def test_nm_30_24_no_attacker_retreat_order_and_losses_are_steps():
    """NM 30.24a: an assault admits no attacker retreat order; an A1 costs a step."""
    g = lab()
    inf = landing_force(g)
    infantry(g, "de", "Axis", "0403", defense=9)
    soviet_combat(g)
    act(g, "attack", "Soviet", target="0403")
    act(g, "add-attacker", "Soviet", piece="i")
    orders = {a["order"] for a in g.legal_actions("Soviet") if a["type"] == "set-order"}
    assert orders == {"defender-additional"}
    g.force_dice([1])
    act(g, "resolve-attack", "Soviet")
    assert inf.face == "reduced" and inf.loc == ("piece", "t")


@pytest.mark.rules("NM 30.24", "EF 12.6")
def test_nm_30_24_the_retreat_order_comes_with_an_attacker_so_an_assault_never_sticks():
    """EF 12.6 / NM 30.24a: the order is given once an attacker is named. Before, an attacker
    retreat order could be given first; it then shut out every unit at sea, and an assault whose
    only attackers were at sea had no legal action left (found by random play of the
    eastfront tutorial)."""
    g = lab()
    landing_force(g)
    infantry(g, "de", "Axis", "0403", defense=9)
    soviet_combat(g)
    act(g, "attack", "Soviet", target="0403")
    legal = g.legal_actions("Soviet")
    assert not [a for a in legal if a["type"] == "set-order"]
    assert {"type": "add-attacker", "side": "Soviet", "piece": "i"} in legal
    assert not g.is_legal({"type": "set-order", "side": "Soviet", "order": "attacker-retreat"})
    act(g, "add-attacker", "Soviet", piece="i")
    orders = {a["order"] for a in g.legal_actions("Soviet") if a["type"] == "set-order"}
    assert orders == {"defender-additional"}
    assert {"type": "resolve-attack", "side": "Soviet"} in g.legal_actions("Soviet")


@pytest.mark.rules("NM 30.24")
def test_nm_30_24_flotillas_join_and_come_ashore():
    g = lab()
    inf = landing_force(g)
    fl = unit(g, "fl", "flotilla", "Soviet", "0504", attack=2, defense=1, move=4)
    infantry(g, "de", "Axis", "0403", attack=1, defense=1, sp=1)
    soviet_combat(g)
    act(g, "attack", "Soviet", target="0403")
    act(g, "add-attacker", "Soviet", piece="i")
    act(g, "add-attacker", "Soviet", piece="fl")
    g.force_dice([6])
    act(g, "resolve-attack", "Soviet")
    assert fl.loc == ("hex", g.board.idx("0403")) and inf.loc == fl.loc


@pytest.mark.rules("NM 30.25", "NM 30.24")
def test_nm_30_25_a_failed_landing_waits_at_sea():
    """NM-25: the defender holds: the assault unit and its carrier stay on the all-sea hex and
    move no more this turn; next turn they may assault again without a loss roll, or sail
    away with one; no ground attack reaches them, coast artillery does."""
    g = lab()
    inf = landing_force(g)
    t = g.state.pieces["t"]
    infantry(g, "de", "Axis", "0403", defense=9)
    soviet_combat(g)
    act(g, "attack", "Soviet", target="0403")
    act(g, "add-attacker", "Soviet", piece="i")
    g.force_dice([3])  # 4 : 9 -> 1:3, roll 3: A1
    act(g, "resolve-attack", "Soviet")
    assert inf.loc == ("piece", "t") and t.loc == ("hex", g.board.idx("0503"))
    assert "assaulted" in t.status
    act(g, "end-phase", "Soviet")
    phase(g, "movement", "Soviet", kind="movement")
    with pytest.raises(IllegalAction, match="no more movement"):
        act(g, "sail", "Soviet", ships=["t"], to="Alpha")
    act(g, "end-phase", "Soviet")
    # the next turn: the mark lapses at the interphase
    for p in g.state.pieces.values():
        p.status.discard("assaulted")
    g.state.turn["index"] = 2
    phase(g, "combat", "Axis")
    assert "0503" not in {a["target"] for a in g.legal_actions("Axis") if a["type"] == "attack"}
    with pytest.raises(IllegalAction, match="only land hexes"):
        act(g, "attack", "Axis", target="0503")
    gun = unit(g, "gun", "cd", "Axis", "0402", support=2, range=2, sp=1)
    assert reaches(g, gun, g.board.idx("0503"))
    act(g, "end-phase", "Axis")
    soviet_combat(g)
    act(g, "attack", "Soviet", target="0403")
    act(g, "add-attacker", "Soviet", piece="i")


@pytest.mark.rules("NM 30.25", "NM 27.1")
def test_nm_30_25_sailing_away_from_a_failed_landing_brings_a_roll():
    g = lab()
    landing_force(g)
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "sail", "Soviet", ships=["t"], to="SZ2")
    g.force_dice([1])
    ev = act(g, "end-phase", "Soviet")
    assert len(rolls(ev)) == 1


@pytest.mark.rules("NM 30.3")
def test_nm_30_3_cd_in_the_defender_hex_counts_double_against_movement_only():
    """NM-16: a CD unit of 2 points in a coastal hex under assault counts 4 toward the loss roll
    of the move that readies the assault next to it, and 2 in combat."""
    g = lab()
    gun = unit(g, "gun", "cd", "Axis", "0403", support=2, range=2, sp=1)
    landing_force(g)
    sail = [e for e in g.state.log if e["type"] == "roll"][-1]
    assert "+3 4 coast artillery points" in sail["text"]
    assert cd_strength(g, "Axis", [g.board.idx("0503")], [g.board.idx("0403")]) == 4
    assert strength(g, gun) == 2


@pytest.mark.rules("NM 30.3")
def test_nm_30_3_line_of_fire_and_supply_do_not_matter_to_cd_on_movement():
    """NM 30.3: no fire through an all-land hexside, through one coastal hexside at most; every
    CD unit counts against naval movement whatever its supply."""
    g = lab()
    b = g.board
    assert line_of_fire(g, b.idx("0403"), b.idx("0603"))
    assert not line_of_fire(g, b.idx("0303"), b.idx("0503"))  # 0303 -> 0403: all-land
    inland = unit(g, "inland", "cd", "Axis", "0303", support=2, range=3, sp=1)
    assert not reaches(g, inland, b.idx("0503"))
    coast = unit(g, "coast", "cd", "Axis", "0402", support=1, range=3, sp=1, status=("oos",))
    assert reaches(g, coast, b.idx("0503"))
    assert cd_strength(g, "Axis", [b.idx("0503")]) == 1


@pytest.mark.rules("NM 30.3", "EF 11.5")
def test_nm_30_3_soviet_cd_always_has_attack_supply():

    g = lab()
    su_cd = unit(g, "sucd", "cd", "Soviet", "0402", support=2, range=3, sp=1)
    ax_cd = unit(g, "axcd", "cd", "Axis", "0403", support=2, range=3, sp=1)
    assert not needs_attack_supply(g, su_cd, False)
    assert needs_attack_supply(g, ax_cd, False)


@pytest.mark.rules("NM 30.4")
def test_nm_30_4_special_transport_lands_an_msu_that_supplies_at_once():
    """NM-33: an MSU carried to an all-sea hex next to a coastal hex held by a friendly combat
    unit lands in the Combat Phase and gives Attack Supply in that phase; it may not land on an
    empty hex; later it may be spent for General Supply."""
    g = lab()
    transport(g, "t")
    msu = unit(g, "msu", "msu", "Soviet", "0404", asp=2, move=6, motorized=True)
    infantry(g, "held", "Soviet", "0403")
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "load", "Soviet", piece="msu", ship="t", amphibious=False)
    act(g, "sail", "Soviet", ships=["t"], to="0503")
    g.force_dice([1])
    act(g, "end-phase", "Soviet")
    soviet_combat(g)
    lands = {a["to"] for a in g.legal_actions("Soviet") if a["type"] == "land"}
    assert lands == {"0403"}
    with pytest.raises(IllegalAction, match="no friendly combat or supply unit"):
        act(g, "land", "Soviet", piece="msu", to="0402")
    act(g, "land", "Soviet", piece="msu", to="0403")
    assert supply_source(g, "Soviet", g.board.idx("0304")) is msu


@pytest.mark.rules("NM 30.4", "EF 20.0")
def test_nm_30_4_a_spent_msu_supplies_but_does_not_stop_surrender():

    g = lab()
    for name in ("0404", "0401", "0106", "0708"):
        g.state.control[g.board.idx(name)] = "Axis"
    su = infantry(g, "su", "Soviet", "0302")
    assert supply_status(g, "Soviet") == {"su": "no-loc"}
    assert supply_status(g, "Soviet", [g.board.idx("0303")]) == {"su": "no-loc-ok"}
    assert su.loc == ("hex", g.board.idx("0302"))
