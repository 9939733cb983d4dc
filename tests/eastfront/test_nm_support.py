"""Naval artillery support (NM 29.0-29.2), on the artillery rules of our base (EF 12.4)."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.eastfront.combat.attack import current
from grognard.rulesets.eastfront.model import NavalAttrs
from tests.eastfront.lab import act, cruiser, infantry, lab, phase, rolls, unit


def soviet_attack_on_0303(g) -> None:
    """The Soviet Combat Phase, an attack declared on 0303 with the infantry in 0403."""
    phase(g, "combat", "Soviet")
    if g.acting_sides() == ["Axis"]:
        act(g, "end-phase", "Axis")
    act(g, "attack", "Soviet", target="0303")
    act(g, "add-attacker", "Soviet", piece="su")


def board(g) -> None:
    infantry(g, "su", "Soviet", "0403")
    infantry(g, "de", "Axis", "0303", defense=6)


@pytest.mark.rules("NM 29.0", "NM 29.1")
def test_nm_29_1_one_naval_unit_at_sea_supports_an_attack_alone():
    """NM-26: two Soviet cruisers at sea in range of one Defender Hex: one may support, then
    no other unit (naval or ground artillery) may join it; its points count in the odds."""
    g = lab()
    board(g)
    a = cruiser(g, "a", "Soviet", "0503", support=4, range=2)
    cruiser(g, "b", "Soviet", "0504", support=4, range=2)
    unit(g, "art", "artillery", "Soviet", "0405", support=2, range=3, sp=1, move=3)
    unit(g, "hq", "hq", "Soviet", "0404", command=3, activations=1, sp=0)
    soviet_attack_on_0303(g)
    offered = {x["piece"] for x in g.legal_actions("Soviet") if x["type"] == "add-support"}
    assert offered == {"a", "b", "art"}
    act(g, "add-support", "Soviet", piece="a")
    assert not [x for x in g.legal_actions("Soviet") if x["type"] == "add-support"]
    with pytest.raises(IllegalAction, match="alone"):
        act(g, "add-support", "Soviet", piece="art")
    g.force_dice([1])
    ev = act(g, "resolve-attack", "Soviet")
    # no Attack Supply near: the infantry is halved (EF 11.5), the cruiser needs none (NM 25.2)
    assert any("6 to 6" in e["text"] for e in ev)
    assert NavalAttrs(a.attrs).supported


@pytest.mark.rules("NM 29.1")
def test_nm_29_1_no_defensive_support_from_sea():
    g = lab()
    infantry(g, "de", "Axis", "0403")
    infantry(g, "su", "Soviet", "0303")
    cruiser(g, "a", "Soviet", "0503", support=4, range=2)
    phase(g, "combat", "Axis")
    act(g, "attack", "Axis", target="0303")
    act(g, "add-attacker", "Axis", piece="de")
    g.force_dice([1])
    ev = act(g, "resolve-attack", "Axis")
    assert rolls(ev)  # no defensive support step: the only naval unit is at sea


@pytest.mark.rules("NM 29.1", "NM 27.1")
def test_nm_29_1_after_supporting_it_returns_to_port_in_the_movement_phase():
    """NM-26: a supporter from sea may only sail back to port in the next Soviet Movement
    Phase; left at sea it is brought back to the nearest friendly port at the end of it."""
    g = lab()
    a = cruiser(g, "a", "Soviet", "0503", attrs={"supported": True})
    phase(g, "movement", "Soviet", kind="movement")
    kinds = {x["to"] for x in g.legal_actions("Soviet") if x["type"] == "sail"}
    assert kinds == {"Alpha", "Bravo", "Delta", "Haven"}  # ports only
    ev = act(g, "end-phase", "Soviet")
    assert a.loc == ("box", "Alpha box") and a.face == "sailed"
    assert not rolls(ev)  # from SZ1 into Alpha: no NMP spent, no roll (NM 27.1)
    assert not NavalAttrs(a.attrs).supported
    g2 = lab()
    b = cruiser(g2, "b", "Soviet", "area:SZ2", attrs={"supported": True})
    g2.state.control[g2.board.idx("0708")] = "Axis"  # Bravo, the port of SZ2, is lost
    phase(g2, "movement", "Soviet", kind="movement")
    g2.force_dice([1])
    ev = act(g2, "end-phase", "Soviet")
    assert b.loc == ("box", "Alpha box") and len(rolls(ev)) == 1  # into SZ1: 1 NMP


@pytest.mark.rules("NM 29.2", "EF 12.4")
def test_nm_29_2_in_port_one_alone_two_under_one_hq_and_sailed_units_support():
    """NM 29.2: a Sailed naval unit in port supports alone without an HQ; with a ground
    artillery unit only when one HQ has both in command range; two naval units likewise."""
    g = lab()
    board(g)
    cruiser(g, "p1", "Soviet", "box:Alpha box", face="sailed", support=3, range=3)
    cruiser(g, "p2", "Soviet", "box:Alpha box", support=3, range=3)
    unit(g, "art", "artillery", "Soviet", "0405", support=2, range=3, sp=1, move=3)
    soviet_attack_on_0303(g)
    act(g, "add-support", "Soviet", piece="p1")
    with pytest.raises(IllegalAction, match="command range"):
        act(g, "add-support", "Soviet", piece="p2")
    with pytest.raises(IllegalAction, match="command range"):
        act(g, "add-support", "Soviet", piece="art")
    unit(g, "hq", "hq", "Soviet", "0404", command=1, activations=1, sp=0)
    act(g, "add-support", "Soviet", piece="p2")
    act(g, "add-support", "Soviet", piece="art")
    assert current(g).support == ["p1", "p2", "art"]


@pytest.mark.rules("NM 29.2", "EF 12.4")
def test_nm_29_2_naval_units_in_port_support_the_defence():
    g = lab()
    infantry(g, "de", "Axis", "0403")
    infantry(g, "su", "Soviet", "0303")
    cruiser(g, "p", "Soviet", "box:Alpha box", face="sailed", support=3, range=3)
    phase(g, "combat", "Axis")
    act(g, "attack", "Axis", target="0303")
    act(g, "add-attacker", "Axis", piece="de")
    act(g, "resolve-attack", "Axis")
    assert g.phase_path()[-1] == "Defensive support"
    act(g, "add-support", "Soviet", piece="p")
    outs = g.chance_outcomes({"type": "pass", "side": "Soviet"})
    assert sum(o.probability for o in outs) == 1  # 2 : 7 (no Attack Supply): column 1:3
    assert {o.label for o in outs} == {"A1", "EX", "DR"}
    g.force_dice([1])
    ev = act(g, "pass", "Soviet")
    assert any("to 7" in e["text"] for e in ev)  # 4 defence + 3 support


@pytest.mark.rules("NM 29.0")
def test_nm_29_0_axis_naval_units_give_no_support_unless_the_option_widens_it():
    for reading, offered in (("soviet", False), ("both", True)):
        g = lab(options={"naval_support": reading})
        infantry(g, "de", "Axis", "0403")
        infantry(g, "su", "Soviet", "0303")
        cruiser(g, "ax", "Axis", "0503", support=2, range=2)
        phase(g, "combat", "Axis")
        act(g, "attack", "Axis", target="0303")
        act(g, "add-attacker", "Axis", piece="de")
        got = any(x["type"] == "add-support" for x in g.legal_actions("Axis"))
        assert got is offered
