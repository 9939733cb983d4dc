"""Air missions against naval units (NM 31.0-31.3)."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.eastfront.air.combat import ground_aa_drm, naval_aa_firer
from grognard.rulesets.eastfront.model import NMI_BOX, NavalAttrs, ef
from tests.eastfront.lab import act, cruiser, lab, phase, rolls, unit


def plane(g, pid: str, side: str, kind: str = "bomber", interdiction: int = 1, fighter: int = 0):
    box = f"box:{side} ready"
    return unit(g, pid, kind, side, box, interdiction=interdiction, fighter=fighter)


def fly_nmi(g, *ratings: int, options=None) -> list[dict]:
    for k, r in enumerate(ratings):
        plane(g, f"b{k}", "Axis", interdiction=r)
    phase(g, "air-interdiction", "Axis")
    for k in range(len(ratings)):
        act(g, "fly", "Axis", air=f"b{k}", target=NMI_BOX, role="mission")
    return act(g, "end-phase", "Axis")


@pytest.mark.rules("NM 31.1")
@pytest.mark.parametrize(("ratings", "level"), [((1,), 1), ((1, 1), 2), ((2, 1), 2), ((), 0)])
def test_nm_31_1_interdiction_level_from_the_surviving_mission_units(ratings, level):
    """NM-21: {1} Level 1; {1,1} Level 2 (the ratings add up); {2,1} Level 2, the excess lost;
    no mission, no marker. The air units end in the Flown Box; no AA roll is made."""
    g = lab()
    ev = fly_nmi(g, *ratings)
    assert ef(g).nmi.level == level and (not level or ef(g).nmi.side == "Axis")
    assert not rolls(ev)
    for k in range(len(ratings)):
        assert g.state.pieces[f"b{k}"].loc == ("box", "Axis flown")


@pytest.mark.rules("NM 31.1")
def test_nm_31_1_the_best_rating_only_with_the_option():
    g = lab(options={"interdiction_level": "max"})
    fly_nmi(g, 1, 1)
    assert ef(g).nmi.level == 1


@pytest.mark.rules("NM 31.1")
def test_nm_31_1_three_air_units_at_most_and_only_naval_fighters_oppose():
    """NM-21: a fourth air unit in the Naval Movement Interdiction Box is refused; only Soviet
    naval fighters oppose, three at most."""
    g = lab()
    for k in range(4):
        plane(g, f"b{k}", "Axis")
    for k in range(4):
        plane(g, f"nf{k}", "Soviet", kind="naval-fighter", interdiction=0, fighter=1)
    plane(g, "ftr", "Soviet", kind="fighter", interdiction=0, fighter=3)
    phase(g, "air-interdiction", "Axis")
    for k in range(3):
        act(g, "fly", "Axis", air=f"b{k}", target=NMI_BOX, role="mission")
    with pytest.raises(IllegalAction, match="three"):
        act(g, "fly", "Axis", air="b3", target=NMI_BOX, role="escort")
    act(g, "end-phase", "Axis")
    assert g.phase_path()[-1] == "Interception"
    offered = {a["air"] for a in g.legal_actions("Soviet") if a["type"] == "intercept"}
    assert offered == {"nf0", "nf1", "nf2", "nf3"}  # not the plain fighter
    g.force_dice([1, 1, 1])
    for k in range(3):
        act(g, "intercept", "Soviet", air=f"nf{k}")
    assert g.phase_path()[-1] != "Interception"  # the fourth is not asked for
    assert ef(g).nmi.level == 2


@pytest.mark.rules("NM 31.2", "NM 31.0")
def test_nm_31_0_nm_31_2_shipping_attack_in_the_axis_combat_phase():
    """NM 31.2: Ready Axis air units with an Interdiction rating attack Soviet naval units at
    sea or in a port on the map; targets are declared first, three air units at most with the
    escorts; one roll each on the Shipping Attack Table; then the Flown Box."""
    g = lab()
    plane(g, "ju", "Axis", interdiction=2)
    plane(g, "he", "Axis", interdiction=1)
    plane(g, "bf", "Axis", kind="fighter", interdiction=0, fighter=3)
    plane(g, "x", "Axis")
    kk = cruiser(g, "kk", "Soviet", "box:Alpha box")
    sea = unit(g, "dd", "dd", "Soviet", "area:SZ2", protection=3, nmp=3, recovery=6)
    phase(g, "combat", "Axis")
    targets = {a["target"] for a in g.legal_actions("Axis") if a["type"] == "strike"}
    assert targets == {"kk", "dd"}
    act(g, "strike", "Axis", air="ju", target="dd")
    act(g, "strike", "Axis", air="he", target="kk")
    act(g, "escort", "Axis", air="bf")
    assert not [a for a in g.legal_actions("Axis") if a["type"] in ("strike", "escort")]
    g.force_dice([1, 1, 8, 9])  # two AA rolls (no abort), then the two attack rolls
    ev = act(g, "launch", "Axis")
    attack_rolls = [r for r in rolls(ev) if "shipping attack" in r["text"]]
    assert [r["data"]["modified"] for r in attack_rolls] == [9, 9]  # 8 + 1 ; 9 + 0
    assert NavalAttrs(sea.attrs).damage == 3 and NavalAttrs(kk.attrs).damage == 2
    for pid in ("ju", "he", "bf"):
        assert g.state.pieces[pid].loc == ("box", "Axis flown")


@pytest.mark.rules("NM 31.2", "NM 32.1")
def test_nm_31_2_in_the_reaction_phase_only_units_at_sea_and_never_flotillas():
    g = lab()
    plane(g, "ju", "Axis", interdiction=2)
    cruiser(g, "kk", "Soviet", "box:Alpha box")
    cruiser(g, "out", "Soviet", "area:SZ1")
    unit(g, "fl", "flotilla", "Soviet", "0503", attack=1, defense=1, move=4)
    phase(g, "reaction", "Soviet")
    assert g.acting_sides() == ["Axis"]
    targets = {a["target"] for a in g.legal_actions("Axis") if a["type"] == "strike"}
    assert targets == {"out"}
    with pytest.raises(IllegalAction, match="flotillas"):
        act(g, "strike", "Axis", air="ju", target="fl")
    with pytest.raises(IllegalAction, match="only at sea"):
        act(g, "strike", "Axis", air="ju", target="kk")


@pytest.mark.rules("NM 31.3")
def test_nm_31_3_ground_aa_helps_in_port_up_to_two_and_not_at_sea():
    """NM-30: ground AA adding up to +3 around the port gives +2; at sea, nothing."""
    g = lab()
    kk = cruiser(g, "kk", "Soviet", "box:Alpha box")
    unit(g, "aa1", "aa", "Soviet", "0404", aa=2, sp=0)
    unit(g, "hq", "hq", "Soviet", "0405", aa=1, command=1, activations=1, sp=0)
    assert ground_aa_drm(g, kk) == 2
    out = cruiser(g, "out", "Soviet", "area:SZ1")
    assert ground_aa_drm(g, out) == 0


@pytest.mark.rules("NM 31.3", "NM 25.2")
def test_nm_31_3_a_transport_is_covered_by_a_warship_that_is_not_itself_attacked():
    """NM-30: a transport in port with a cruiser that is not a target: the cruiser rolls AA for
    it and the transport takes the damage; the cruiser attacked as well: no AA for the
    transport."""
    g = lab()
    t = unit(g, "t", "t", "Soviet", "box:Alpha box", protection=2, capacity=2, nmp=2, recovery=5)
    kk = cruiser(g, "kk", "Soviet", "box:Alpha box")
    assert naval_aa_firer(g, t, {"t"}) is kk
    assert naval_aa_firer(g, t, {"t", "kk"}) is None
    assert naval_aa_firer(g, kk, {"kk"}) is kk
    plane(g, "ju", "Axis", interdiction=1)
    phase(g, "combat", "Axis")
    act(g, "strike", "Axis", air="ju", target="t")
    g.force_dice([1, 10])  # the cruiser's AA roll for the transport misses; the attack: 10
    ev = act(g, "launch", "Axis")
    aa = rolls(ev)[0]
    assert aa["rule"] == "EF 14.4" and aa["text"].startswith("kk fires at ju")
    assert t.loc == ("box", "Cadre") and NavalAttrs(t.attrs).damage == 3  # D3 on DD/T: sunk
    assert NavalAttrs(kk.attrs).damage == 0
