"""Naval Movement Loss (NM 27.0-27.33): the loss table's column, its rolls and their results."""

from __future__ import annotations

import pytest

from grognard.rulesets.eastfront.data import table
from grognard.rulesets.eastfront.model import NavalAttrs, ef
from grognard.rulesets.eastfront.naval.damage import add_damage
from grognard.rulesets.eastfront.naval.loss import NavalLoss, loss_column
from grognard.rulesets.eastfront.naval.units import badly_damaged, nmp, support
from tests.eastfront.lab import act, cruiser, infantry, lab, phase, rolls, unit


def nmi(g, level: int, side: str = "Axis") -> None:
    rec = ef(g).nmi
    rec.level, rec.side, rec.turn = level, side, 1


@pytest.mark.rules("NM 27.2", "NM 27.32", "NM 27.0", "NM 27.1")
def test_nm_27_2_kkavkas_example_air_interdiction_column_10_is_ad1_and_ignoring_the_abort():
    """NM-6, the K.Kavkas example: NMP 3, Protection 3, Ready in a major port, three zones to
    a Holding Box port with an Interdiction Level 1 marker in the box: Air Interdiction column,
    no DRM; a 10 gives AD1; D1 is one Damage Point, ignoring the Abort a second; not sunk, it
    ends in port and turns to its Sailed side; then, badly damaged, it has NMP 2 and half its
    support."""
    g = lab()
    kk = cruiser(g, "kk", "Soviet", "box:Alpha box", name="K.Kavkas")
    nmi(g, 1)
    phase(g, "movement", "Soviet", kind="motorized")
    ev = act(g, "sail", "Soviet", ships=["kk"], to="Haven")
    assert "via SZ1, SZ2, SZ3 (3 NMP)" in ev[-1]["text"]
    g.force_dice([10])
    ev = act(g, "end-phase", "Soviet")
    roll = rolls(ev)[0]
    assert roll["data"]["natural"] == 10 and roll["data"]["modified"] == 10
    assert any("Air Interdiction" in e["text"] or "air column: AD1" in e["text"] for e in ev)
    assert NavalAttrs(kk.attrs).damage == 1
    assert g.acting_sides() == ["Soviet"] and g.phase_path()[-1] == "Abort"
    act(g, "take-damage", "Soviet")
    assert NavalAttrs(kk.attrs).damage == 2
    assert kk.loc == ("box", "Haven") and kk.face == "sailed"
    assert badly_damaged(kk) and nmp(kk) == 2 and support(g, kk) == 2


@pytest.mark.rules("NM 27.0")
def test_nm_27_0_the_loss_roll_is_a_procedure_roll_damage_abort():

    assert NavalLoss.stages == ("roll", "damage", "abort")


@pytest.mark.rules("NM 27.2")
def test_nm_27_2_the_one_known_cell_is_in_the_shipped_table():
    assert table(lab(), "nmlt").lookup("air", 10).result == "AD1"


@pytest.mark.rules("NM 27.2", "NM 31.1")
@pytest.mark.parametrize(
    ("level", "cd", "column", "drm"),
    [
        (0, 0, "regular", 0),
        (1, 0, "air", 0),
        (2, 0, "air", 1),
        (0, 1, "cd", 0),
        (0, 3, "cd", 2),
        (2, 2, "both", 2),
    ],
)
def test_nm_27_2_column_selection_and_drms(level, cd, column, drm):
    """NM-15: the four columns; +1 at Level 2; +1 per CD point after the first."""
    g = lab()
    nmi(g, level)
    col, mods = loss_column(g, "Soviet", cd, air=True)
    assert (col, mods.total()) == (column, drm)


@pytest.mark.rules("NM 27.2", "NM 30.3")
@pytest.mark.parametrize(("level", "cd", "drm"), [(0, 1, 1), (0, 3, 3), (2, 2, 3)])
def test_nm_27_2_total_reading_of_the_cd_drm(level, cd, drm):
    """NM-15 under the NM 30.3d reading (option ``cd_drm = total``): the CD points are the DRM."""
    g = lab(options={"cd_drm": "total"})
    nmi(g, level)
    assert loss_column(g, "Soviet", cd, air=True)[1].total() == drm


@pytest.mark.rules("NM 27.2", "NM 31.1")
def test_nm_27_2_an_axis_unit_never_uses_the_axis_placed_air_column():
    g = lab()
    nmi(g, 2, side="Axis")
    assert loss_column(g, "Axis", 0, air=True)[0] == "regular"


@pytest.mark.rules("NM 27.32")
def test_nm_27_32_taking_the_abort_returns_to_port_with_no_second_roll():
    """NM-7: the owner takes the Abort: one Damage Point, back at the departure port, no more
    NMP and no second roll; it ended in port, so it turns to Sailed (the default reading)."""
    g = lab()
    kk = cruiser(g, "kk", "Soviet", "box:Alpha box")
    nmi(g, 1)
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "sail", "Soviet", ships=["kk"], to="Haven")
    g.force_dice([10])
    act(g, "end-phase", "Soviet")
    ev = act(g, "return-to-port", "Soviet")
    assert not rolls(ev)
    assert kk.loc == ("box", "Alpha box") and NavalAttrs(kk.attrs).damage == 1
    assert kk.face == "sailed"


@pytest.mark.rules("NM 27.32")
def test_nm_27_32_abort_return_keeps_ready_with_the_option_off():
    g = lab(options={"abort_return_sails": False})
    kk = cruiser(g, "kk", "Soviet", "box:Alpha box")
    nmi(g, 1)
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "sail", "Soviet", ships=["kk"], to="Haven")
    g.force_dice([10])
    act(g, "end-phase", "Soviet")
    act(g, "return-to-port", "Soviet")
    assert kk.face == "ready"


@pytest.mark.rules("NM 27.32")
def test_nm_27_32_a_unit_that_began_at_sea_takes_d1_for_an_abort_and_arrives():
    """NM-17 (a): from a sea zone an Abort becomes one Damage Point and the unit reaches its
    destination (there is no port to go back to)."""
    g = lab()
    kk = cruiser(g, "kk", "Soviet", "area:SZ1")
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "sail", "Soviet", ships=["kk"], to="SZ2")
    g.force_dice([8])  # regular column: A
    ev = act(g, "end-phase", "Soviet")
    assert any(e["text"].endswith(": A") for e in ev)
    assert NavalAttrs(kk.attrs).damage == 1 and kk.loc == ("area", "SZ2")
    assert g.phase_path()[-1] != "Abort"


@pytest.mark.rules("NM 27.32", "NM 26.12")
def test_nm_27_32_storm_alone_gives_at_most_one_damage_point():
    """NM 27.32a: with Storm as the only DRM a result gives at most one Damage Point."""
    g = lab()
    g.state.turn["index"] = 2  # the laboratory's turn 2 is a storm
    kk = cruiser(g, "kk", "Soviet", "area:SZ1")
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "sail", "Soviet", ships=["kk"], to="SZ2")
    g.force_dice([10])  # 10 + 1 (storm) = 11: D2 on the regular column
    ev = act(g, "end-phase", "Soviet")
    assert rolls(ev)[0]["data"]["modified"] == 11
    assert NavalAttrs(kk.attrs).damage == 1


@pytest.mark.rules("NM 27.1")
def test_nm_27_1_two_rolls_in_one_turn_add_up():
    """NM-5: a move into a zone in the Motorized Movement Phase (a roll at the end of that
    phase, Ready at sea), then on into another zone's port in the Movement Phase (a second
    roll, the damage added, Sailed in port)."""
    g = lab()
    kk = cruiser(g, "kk", "Soviet", "box:Alpha box")
    phase(g, "movement", "Soviet", kind="motorized")
    act(g, "sail", "Soviet", ships=["kk"], to="SZ1")
    g.force_dice([9])  # regular: D1
    ev = act(g, "end-phase", "Soviet")
    assert len(rolls(ev)) == 1 and kk.face == "ready" and kk.loc == ("area", "SZ1")
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "sail", "Soviet", ships=["kk"], to="Bravo")
    g.force_dice([9])
    ev = act(g, "end-phase", "Soviet")
    assert len(rolls(ev)) == 1
    assert NavalAttrs(kk.attrs).damage == 2 and kk.loc == ("box", "Bravo box")
    assert kk.face == "sailed"


@pytest.mark.rules("NM 27.33")
def test_nm_27_33_sunk_only_past_the_protection_rating():
    """NM-8, the Komintern: Protection 3; 3 Damage Points afloat, the 4th sinks it into the
    Eliminated Box for good."""
    g = lab()
    kom = cruiser(g, "kom", "Soviet", "area:SZ1")
    assert add_damage(g, kom, 3, "NM 27.33")
    assert kom.loc == ("area", "SZ1")
    assert not add_damage(g, kom, 1, "NM 27.33")
    assert kom.loc == ("box", "Eliminated")


@pytest.mark.rules("NM 27.33")
def test_nm_27_33_a_sunk_transport_goes_to_the_cadre_box_its_passengers_are_lost():
    """NM-9, Gp-A: a transport of Protection 2 with ground units aboard takes its 3rd Damage
    Point: Cadre Box with 3 Damage Points, the passengers to the Eliminated Box."""
    g = lab()
    t = unit(g, "gpa", "t", "Soviet", "area:SZ1", protection=2, capacity=4, nmp=2, recovery=5)
    inf = infantry(g, "i1", "Soviet", "in:gpa")
    add_damage(g, t, 2, "NM 27.33")
    assert t.loc == ("area", "SZ1")
    add_damage(g, t, 1, "NM 27.33")
    assert t.loc == ("box", "Cadre") and NavalAttrs(t.attrs).damage == 3
    assert inf.loc == ("box", "Eliminated")


@pytest.mark.rules("NM 27.33")
@pytest.mark.parametrize(
    ("prot", "dp", "penalty"),
    [(3, 1, False), (3, 2, True), (2, 1, False), (2, 2, True), (4, 2, False), (4, 3, True)],
)
def test_nm_27_33_damage_over_half_the_protection_costs_one_nmp_and_half_the_support(
    prot, dp, penalty
):
    """NM-12: more than half the Protection Rating in Damage Points: one NMP less and half the
    artillery support; transport capacity unchanged."""
    g = lab()
    s = cruiser(g, "s", "Soviet", "area:SZ1", protection=prot, support=4, nmp=3, capacity=2)
    NavalAttrs(s.attrs).damage = dp
    assert badly_damaged(s) is penalty
    assert nmp(s) == (2 if penalty else 3)
    assert support(g, s) == (2 if penalty else 4)
    assert int(s.stat("capacity")) == 2


@pytest.mark.rules("NM 27.33")
@pytest.mark.parametrize(("reading", "kept"), [("half-down", 2), ("half-up", 3)])
def test_nm_27_33_rounding_of_half_an_odd_support_value(reading, kept):
    """NM-12: support 5 badly damaged keeps 2 (the lost half rounded up) or 3 (the option)."""
    g = lab(options={"damaged_support": reading})
    s = cruiser(g, "s", "Soviet", "area:SZ1", protection=2, support=5)
    NavalAttrs(s.attrs).damage = 2
    assert support(g, s) == kept
