"""Coast artillery Shipping Attacks and the Shipping Attack Table (NM 27.12, NM 27.3, NM 27.31),
repair (NM 27.4-27.44)."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.eastfront.combat.support import support_problem
from grognard.rulesets.eastfront.data import table
from grognard.rulesets.eastfront.model import NavalAttrs, ZoiRecord, ef
from tests.eastfront.lab import act, cruiser, infantry, lab, phase, rolls, unit


def cd(g, pid: str, side: str, at: str, support: int = 2, rng: int = 3):
    return unit(
        g, pid, "cd", side, at, attack=0, defense=1, move=0, sp=1, support=support, range=rng
    )


@pytest.mark.rules("NM 27.12", "NM 27.31", "EF 15.0")
def test_nm_27_12_coast_artillery_fires_in_the_enemy_combat_phase():
    """NM 27.12: in the Soviet Combat Phase an Axis CD unit fires at a Soviet cruiser on an
    all-sea hex in range: one roll on the Shipping Attack Table, CL/DL column; and that CD unit
    gives no ground support in the phase (NM 27.12a)."""
    g = lab()
    kk = cruiser(g, "kk", "Soviet", "0504")
    gun = cd(g, "gun", "Axis", "0403", support=2)
    infantry(g, "su", "Soviet", "0402")
    infantry(g, "de", "Axis", "0302")
    phase(g, "combat", "Soviet")
    assert g.acting_sides() == ["Axis"]  # EF 15.0: the other side's coast artillery first
    g.force_dice([8])  # 8 + (2 - 1) = 9: CL/DL column D2
    ev = act(g, "cd-fire", "Axis", cd="gun", target="kk")  # its last shot: resolved at once
    assert rolls(ev)[0]["data"]["modified"] == 9
    assert NavalAttrs(kk.attrs).damage == 2
    why = support_problem(g, gun, "Axis", g.board.idx("0302"), False, [])
    assert why is not None and "Shipping Attack" in why


@pytest.mark.rules("NM 27.12")
def test_nm_27_12_each_cd_unit_one_target_in_range_and_line_of_fire():
    g = lab()
    cruiser(g, "near", "Soviet", "0504")
    cruiser(g, "far", "Soviet", "0804")
    cd(g, "gun", "Axis", "0403", rng=2)
    cd(g, "other", "Axis", "0402", rng=2)
    phase(g, "combat", "Soviet")
    targets = {a["target"] for a in g.legal_actions("Axis") if a["type"] == "cd-fire"}
    assert targets == {"near"}
    act(g, "cd-fire", "Axis", cd="gun", target="near")
    with pytest.raises(IllegalAction, match="already fired"):
        act(g, "cd-fire", "Axis", cd="gun", target="near")
    g.force_dice([1])
    act(g, "end-phase", "Axis")
    assert g.phase_path()[-1] == "Soviet Combat Phase"


@pytest.mark.rules("NM 27.31", "NM 27.3")
def test_nm_27_31_two_cd_units_on_one_target_add_their_points_in_one_roll():
    g = lab()
    dd = unit(g, "dd", "dd", "Soviet", "0504", protection=3, nmp=2, recovery=6)
    cd(g, "g1", "Axis", "0403", support=2)
    cd(g, "g2", "Axis", "0404", support=1)
    phase(g, "combat", "Soviet")
    act(g, "cd-fire", "Axis", cd="g1", target="dd")
    g.force_dice([5])  # 5 + (3 - 1) = 7: DD/T/Flotilla column D2
    ev = act(g, "cd-fire", "Axis", cd="g2", target="dd")
    assert len(rolls(ev)) == 1 and rolls(ev)[0]["data"]["modified"] == 7
    assert NavalAttrs(dd.attrs).damage == 2


@pytest.mark.rules("NM 27.3")
def test_nm_27_3_shipping_attack_table_columns_by_target_type():
    t = table(lab(), "shipping-attack")
    assert t.columns == ("BB", "CL/DL", "DD/T/Flotilla")
    assert [t.lookup(c, 7).result for c in t.columns] == ["D1", "D1", "D2"]
    assert t.provisional and "NM 27.31" in t.derived_from


@pytest.mark.rules("NM 27.4", "NM 27.41")
def test_nm_27_4_nm_27_41_repair_removes_one_point_on_a_roll_at_most_the_recovery():
    g = lab()
    ready = cruiser(g, "r", "Soviet", "box:Alpha box", recovery=5)
    NavalAttrs(ready.attrs).damage = 2
    phase(g, "naval-readiness", "Soviet")
    g.force_dice([6])
    act(g, "repair", "Soviet", ship="r")
    assert NavalAttrs(ready.attrs).damage == 2
    phase(g, "naval-readiness", "Soviet")
    g.force_dice([5])
    act(g, "repair", "Soviet", ship="r")
    assert NavalAttrs(ready.attrs).damage == 1 and ready.face == "ready"


@pytest.mark.rules("NM 27.41")
def test_nm_27_41_damage_drm_on_repair_only_with_the_option():
    for flag, modified in ((False, 5), (True, 6)):
        g = lab(options={"repair_damage_drm": flag})
        s = cruiser(g, "s", "Soviet", "box:Alpha box", face="sailed", recovery=5)
        NavalAttrs(s.attrs).damage = 1
        phase(g, "naval-readiness", "Soviet")
        g.force_dice([5])
        ev = act(g, "repair", "Soviet", ship="s")
        assert rolls(ev)[0]["data"]["modified"] == modified


@pytest.mark.rules("NM 27.42")
def test_nm_27_42_each_interdiction_level_on_the_port_adds_one_to_repair():
    g = lab()
    s = cruiser(g, "s", "Soviet", "box:Alpha box", recovery=5)
    NavalAttrs(s.attrs).damage = 1
    ef(g).raw()["zoi"]["0405"] = ZoiRecord.new(level=2, side="Axis", turn=1)
    phase(g, "naval-readiness", "Soviet")
    g.force_dice([4])
    ev = act(g, "repair", "Soviet", ship="s")
    assert rolls(ev)[0]["data"]["modified"] == 6
    assert NavalAttrs(s.attrs).damage == 1


@pytest.mark.rules("NM 27.43", "NM 32.1")
def test_nm_27_43_flotillas_recover_fully_and_automatically():
    for reading, left in (("full", 0), ("one", 1)):
        g = lab(options={"flotilla_repair": reading})
        fl = unit(g, "fl", "flotilla", "Soviet", "0503", attack=1, defense=1, move=4)
        NavalAttrs(fl.attrs).damage = 2
        phase(g, "naval-readiness", "Soviet")
        assert NavalAttrs(fl.attrs).damage == left


@pytest.mark.rules("NM 27.44")
def test_nm_27_44_a_transport_returns_from_the_cadre_box_after_one_repair():
    """NM-10: a transport in the Cadre Box (3 Damage Points): a successful repair roll brings it
    back Sailed with two Damage Points in a friendly major port; a failed one leaves it there."""
    g = lab()
    t = unit(
        g,
        "t",
        "t",
        "Soviet",
        "box:Cadre",
        face="sailed",
        protection=2,
        capacity=4,
        nmp=2,
        recovery=5,
    )
    NavalAttrs(t.attrs).damage = 3
    phase(g, "naval-readiness", "Soviet")
    g.force_dice([9])
    act(g, "repair", "Soviet", ship="t")
    assert t.loc == ("box", "Cadre") and NavalAttrs(t.attrs).damage == 3
    phase(g, "naval-readiness", "Soviet")
    g.force_dice([5])
    act(g, "repair", "Soviet", ship="t")
    assert t.loc == ("box", "Alpha box") and t.face == "sailed"
    assert NavalAttrs(t.attrs).damage == 2
