"""The minimal East Front series base (EF ids: our design, listed ``outside-seeds``)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.eastfront.air.zones import interdiction_level
from grognard.rulesets.eastfront.combat.crt import column_for, crt, terrain_shift
from grognard.rulesets.eastfront.map.geography import hexside_class, is_coastal
from grognard.rulesets.eastfront.map.zoc import zoc_hexes
from grognard.rulesets.eastfront.model import NMI_BOX, ef
from grognard.rulesets.eastfront.movement.ground import destinations
from grognard.rulesets.eastfront.movement.reinforcements import arrive
from grognard.rulesets.eastfront.sequence.turn import PlayerTurn
from grognard.rulesets.eastfront.sequence.victory import decide
from grognard.rulesets.eastfront.supply.general import supply_status
from grognard.rulesets.eastfront.units.kinds import stacking_points, unit_class
from grognard.rulesets.eastfront.units.losses import take_losses
from grognard.rulesets.eastfront.units.stacking import fits
from grognard.rulesets.eastfront.weather import weather
from grognard.scenario.schema import ScheduleEntry
from tests.eastfront.lab import INF, act, cruiser, infantry, lab, phase, rolls, unit

REDUCED = {"attack": 2, "defense": 2, "move": 4, "sp": 2}


@pytest.mark.rules("EF 2.0")
def test_ef_2_0_hex_classes_and_hexside_classes_follow_the_terrain():
    g = lab()
    b = g.board
    assert is_coastal(g, b.idx("0404")) and not is_coastal(g, b.idx("0305"))
    assert hexside_class(g, b.idx("0404"), b.idx("0504")) == "all-sea"
    assert hexside_class(g, b.idx("0404"), b.idx("0403")) == "coastal"
    assert hexside_class(g, b.idx("0404"), b.idx("0305")) == "all-land"


@pytest.mark.rules("EF 3.0")
def test_ef_3_0_the_order_of_the_phases_of_each_side():
    """EF 3.0: the Axis moves before its Combat Phase and moves motorized after it; the Soviet
    player moves motorized before combat and moves after it; then the interphase."""
    names = {
        s: [(n, p.get("kind", "")) for n, p in PlayerTurn.phases[s]] for s in PlayerTurn.phases
    }
    assert names["Axis"][3:7] == [
        ("movement", "movement"),
        ("reaction", ""),
        ("combat", ""),
        ("movement", "motorized"),
    ]
    assert names["Soviet"][3:7] == [
        ("movement", "motorized"),
        ("reaction", ""),
        ("combat", ""),
        ("movement", "movement"),
    ]
    g = lab()
    seen = []
    while g.turn_label() == "T1" and not g.is_over():
        seen.append(g.phase_path()[-1])
        side = g.acting_sides()[0]
        act(
            g,
            "end-phase" if any(a["type"] == "end-phase" for a in g.legal_actions(side)) else "pass",
            side,
        )
    assert seen[:5] == [
        "Axis Naval Readiness Phase",
        "Axis Air Interdiction Phase",
        "Axis Supply Status Phase",
        "Axis Movement Phase",
        "Soviet Reaction Phase",
    ]
    assert "Soviet Motorized Movement Phase" in seen and seen[-1] == "Soviet Movement Phase"


@pytest.mark.rules("EF 4.0")
def test_ef_4_0_unit_classes_and_stacking_points():
    g = lab()
    inf = infantry(g, "i", "Soviet", "0305")
    hq = unit(g, "hq", "hq", "Soviet", "0305", command=2, activations=1, sp=0)
    kk = cruiser(g, "kk", "Soviet", "box:Alpha box")
    air = unit(g, "f", "fighter", "Soviet", "box:Soviet ready", fighter=2)
    assert [unit_class(g, p) for p in (inf, hq, kk, air)] == [
        "combat",
        "non-combat",
        "naval",
        "air",
    ]
    assert [stacking_points(g, p) for p in (inf, hq, kk, air)] == [2, 0, 0, 0]


@pytest.mark.rules("EF 4.4")
def test_ef_4_4_steps_full_reduced_eliminated_strongest_first():
    g = lab()
    a = infantry(g, "a", "Soviet", "0305", reduced=REDUCED)
    b = infantry(g, "b", "Soviet", "0305", attack=1, defense=1)
    assert take_losses(g, [a, b], 2, "EF 4.4") == 2
    assert a.loc == ("box", "Eliminated") and b.loc == ("hex", g.board.idx("0305"))


@pytest.mark.rules("EF 5.0")
def test_ef_5_0_four_stacking_points_per_hex():
    g = lab()
    infantry(g, "a", "Soviet", "0305")
    b = infantry(g, "b", "Soviet", "0306")
    c = unit(g, "c", "infantry", "Soviet", "0206", **{**INF, "sp": 1})
    assert fits(g, b, g.board.idx("0305"))
    infantry(g, "d", "Soviet", "0305")
    assert not fits(g, c, g.board.idx("0305"))


@pytest.mark.rules("EF 6.0")
def test_ef_6_0_entering_an_enemy_zone_of_control_ends_the_move():
    g = lab()
    su = infantry(g, "su", "Soviet", "0206", move=6)
    infantry(g, "de", "Axis", "0204")
    zoc = zoc_hexes(g, "Axis")
    assert g.board.idx("0205") in zoc
    reach = set(destinations(g, su, "movement"))
    assert g.board.idx("0205") in reach and g.board.idx("0204") not in reach
    assert g.board.idx("0203") not in reach  # only through the zone of control


@pytest.mark.rules("EF 7.0")
def test_ef_7_0_terrain_costs_and_one_move_per_phase():
    g = lab()
    slow = infantry(g, "slow", "Soviet", "0206", move=1)
    reach = {g.board.label(i) for i in destinations(g, slow, "movement")}
    assert "0307" in reach and "0306" not in reach  # clear costs 1, forest 2
    su = infantry(g, "su", "Soviet", "0206", move=2)
    assert g.board.idx("0306") in destinations(g, su, "movement")
    phase(g, "movement", "Soviet", kind="movement")
    act(g, "move", "Soviet", piece="su", to="0306")
    with pytest.raises(IllegalAction, match="already moved"):
        act(g, "move", "Soviet", piece="su", to="0206")


@pytest.mark.rules("EF 7.5")
def test_ef_7_5_reaction_movement_of_motorized_units_at_half_allowance():
    g = lab()
    mot = unit(g, "mot", "motorized", "Axis", "0206", attack=2, defense=2, move=4, sp=1)
    infantry(g, "foot", "Axis", "0205")
    phase(g, "reaction", "Soviet")
    moves = {a["piece"] for a in g.legal_actions("Axis") if a["type"] == "move"}
    assert moves == {"mot"}
    reach = {g.board.label(i) for i in destinations(g, mot, "reaction")}
    assert "0207" in reach and "0208" in reach and "0209" not in reach


@pytest.mark.rules("EF 8.0")
def test_ef_8_0_a_non_op_hq_on_land_recovers_in_the_engineering_phase():
    g = lab()
    hq = unit(g, "hq", "hq", "Soviet", "0305", face="non-op", command=2, activations=1, sp=0)
    at_sea = unit(g, "hq2", "hq", "Soviet", "in:kk", face="non-op", command=2, activations=1)
    cruiser(g, "kk", "Soviet", "area:SZ1")
    phase(g, "engineering", "Soviet")
    assert hq.face == "operational" and at_sea.face == "non-op"


@pytest.mark.rules("EF 8.54a", "EF 10.25")
def test_ef_8_54a_soviet_hq_activates_for_port_to_port_transport():
    g = lab()
    unit(g, "t", "t", "Soviet", "box:Alpha box", protection=2, capacity=2, nmp=2, recovery=5)
    foot = infantry(g, "foot", "Soviet", "0404")
    unit(g, "hq", "hq", "Soviet", "0305", command=1, activations=1, sp=0)
    phase(g, "movement", "Soviet", kind="motorized")
    with pytest.raises(IllegalAction, match=r"8\.54a"):
        act(g, "load", "Soviet", piece="foot", ship="t", amphibious=False)
    act(g, "activate", "Soviet", piece="foot", hq="hq")
    act(g, "load", "Soviet", piece="foot", ship="t", amphibious=False)
    assert {"activated", "port-to-port"} <= foot.status


@pytest.mark.rules("EF 9.0", "NM 26.27")
def test_ef_9_0_a_combat_unit_entering_a_hex_takes_it():
    g = lab()
    infantry(g, "de", "Axis", "0305")
    phase(g, "movement", "Axis", kind="movement")
    act(g, "move", "Axis", piece="de", to="0404")
    assert g.state.control[g.board.idx("0404")] == "Axis"
    assert ef(g).ports["Alpha"].captured == 1


@pytest.mark.rules("EF 10.25")
def test_ef_10_25_activated_non_motorized_units_move_in_the_motorized_phase():
    g = lab()
    a = infantry(g, "a", "Soviet", "0305")
    infantry(g, "b", "Soviet", "0306")
    unit(g, "hq", "hq", "Soviet", "0205", command=2, activations=1, sp=0)
    phase(g, "movement", "Soviet", kind="motorized")
    assert not [x for x in g.legal_actions("Soviet") if x["type"] == "move"]
    act(g, "activate", "Soviet", piece="a", hq="hq")
    assert not [x for x in g.legal_actions("Soviet") if x["type"] == "activate"]  # one used
    act(g, "move", "Soviet", piece="a", to="0405")
    assert a.loc == ("hex", g.board.idx("0405"))


@pytest.mark.rules("EF 11.0")
def test_ef_11_0_supply_line_length_and_enemy_zones_of_control():
    g = lab()
    for name in ("0404", "0401", "0106", "0708"):
        g.state.control[g.board.idx(name)] = "Axis"
    near = infantry(g, "near", "Soviet", "0206")
    far = infantry(g, "far", "Soviet", "0402")
    assert supply_status(g, "Soviet") == {"near": "ok", "far": "no-loc"}
    infantry(g, "de1", "Axis", "0107")
    infantry(g, "de2", "Axis", "0307")
    assert supply_status(g, "Soviet")["near"] in ("oos", "no-loc")
    phase(g, "supply-status", "Soviet")
    act(g, "end-phase", "Soviet")
    assert "oos" in near.status and "oos" in far.status and "no-loc" in far.status


@pytest.mark.rules("EF 11.5")
def test_ef_11_5_an_attack_spends_an_attack_supply_point_or_is_halved():
    g = lab()
    infantry(g, "su", "Soviet", "0305", attack=6)
    infantry(g, "de", "Axis", "0205", defense=3)
    msu = unit(g, "msu", "msu", "Soviet", "0406", asp=1, move=6, motorized=True)
    phase(g, "combat", "Soviet")
    act(g, "attack", "Soviet", target="0205")
    act(g, "add-attacker", "Soviet", piece="su")
    g.force_dice([1])
    ev = act(g, "resolve-attack", "Soviet")
    assert any("6 to 3" in e["text"] for e in ev)
    assert msu.loc == ("box", "Eliminated")  # its one point used up
    g2 = lab()
    infantry(g2, "su", "Soviet", "0305", attack=6)
    infantry(g2, "de", "Axis", "0205", defense=3)
    phase(g2, "combat", "Soviet")
    act(g2, "attack", "Soviet", target="0205")
    act(g2, "add-attacker", "Soviet", piece="su")
    g2.force_dice([1])
    ev = act(g2, "resolve-attack", "Soviet")
    assert any("3 to 3" in e["text"] for e in ev)


@pytest.mark.rules("EF 12.0")
def test_ef_12_0_odds_rounded_for_the_defender_and_terrain_shifts():
    g = lab()
    t = crt(g)

    assert column_for(t, Fraction(7), Fraction(4), 0) == "3:2"
    assert column_for(t, Fraction(8), Fraction(4), 0) == "2:1"
    assert column_for(t, Fraction(8), Fraction(4), 1) == "3:2"
    assert column_for(t, Fraction(1), Fraction(9), 0) == "1:3"
    assert column_for(t, Fraction(20), Fraction(1), 0) == "6:1"
    assert terrain_shift(g, g.board.idx("0306")) == 1  # forest


@pytest.mark.rules("EF 12.0", "EF 15.0")
def test_ef_12_0_a_declared_attack_through_the_game():
    g = lab()
    infantry(g, "su", "Soviet", "0305", attack=8)
    de = infantry(g, "de", "Axis", "0205", defense=2, reduced=REDUCED)
    phase(g, "combat", "Soviet")
    act(g, "attack", "Soviet", target="0205")
    act(g, "add-attacker", "Soviet", piece="su")
    g.force_dice([4])  # 4 : 2 (halved, no Attack Supply) = 2:1, roll 4: D1R
    ev = act(g, "resolve-attack", "Soviet")
    assert rolls(ev)[0]["data"]["natural"] == 4
    assert de.face == "reduced" and de.loc != ("hex", g.board.idx("0205"))


@pytest.mark.rules("EF 12.4")
def test_ef_12_4_three_supporting_artillery_units_at_most():
    g = lab()
    infantry(g, "su", "Soviet", "0305")
    infantry(g, "de", "Axis", "0205")
    unit(g, "hq", "hq", "Soviet", "0306", command=3, activations=1, sp=0)
    for k in range(4):
        unit(
            g,
            f"art{k}",
            "artillery",
            "Soviet",
            "0206" if k < 2 else "0106",
            support=1,
            range=2,
            sp=1,
        )
    phase(g, "combat", "Soviet")
    act(g, "attack", "Soviet", target="0205")
    act(g, "add-attacker", "Soviet", piece="su")
    for k in range(3):
        act(g, "add-support", "Soviet", piece=f"art{k}")
    with pytest.raises(IllegalAction, match="at most 3"):
        act(g, "add-support", "Soviet", piece="art3")


@pytest.mark.rules("EF 12.6", "EF 12.7")
def test_ef_12_6_retreat_orders_attacker_retreat_and_defender_additional():
    g = lab()
    su = infantry(g, "su", "Soviet", "0305", attack=1, reduced=REDUCED)
    infantry(g, "de", "Axis", "0205", defense=9)
    phase(g, "combat", "Soviet")
    act(g, "attack", "Soviet", target="0205")
    act(g, "add-attacker", "Soviet", piece="su")
    act(g, "set-order", "Soviet", order="attacker-retreat")
    g.force_dice([1])  # A1: taken as a retreat
    act(g, "resolve-attack", "Soviet")
    assert su.face == "full" and su.loc != ("hex", g.board.idx("0305"))
    g2 = lab()
    infantry(g2, "su", "Soviet", "0305", attack=9)
    de = infantry(g2, "de", "Axis", "0205", defense=2)
    phase(g2, "combat", "Soviet")
    act(g2, "attack", "Soviet", target="0205")
    act(g2, "add-attacker", "Soviet", piece="su")
    act(g2, "set-order", "Soviet", order="defender-additional")
    g2.force_dice([2])  # 4.5 : 2 -> 2:1, roll 2: DR, two hexes
    act(g2, "resolve-attack", "Soviet")
    assert g2.board.distance(g2.board.idx("0205"), int(de.loc.ref)) == 2


@pytest.mark.rules("EF 12.7")
def test_ef_12_7_a_unit_that_cannot_retreat_loses_a_step_and_the_attacker_may_advance():
    g = lab()
    infantry(g, "su", "Soviet", "0305", attack=9)
    de = infantry(g, "de", "Axis", "0404", defense=2, reduced=REDUCED)
    for h in ("0403", "0405", "0505", "0304"):
        infantry(g, f"block{h}", "Soviet", h, attack=0)
    phase(g, "combat", "Soviet")
    act(g, "attack", "Soviet", target="0404")
    act(g, "add-attacker", "Soviet", piece="su")
    g.force_dice([2])  # DR: nowhere to go
    act(g, "resolve-attack", "Soviet")
    assert de.face == "reduced" and de.loc == ("hex", g.board.idx("0404"))
    g2 = lab()
    su = infantry(g2, "su", "Soviet", "0305", attack=9)
    infantry(g2, "de", "Axis", "0205", defense=1)
    phase(g2, "combat", "Soviet")
    act(g2, "attack", "Soviet", target="0205")
    act(g2, "add-attacker", "Soviet", piece="su")
    g2.force_dice([6])
    act(g2, "resolve-attack", "Soviet")
    act(g2, "advance", "Soviet", piece="su")
    assert su.loc == ("hex", g2.board.idx("0205"))


@pytest.mark.rules("EF 14.0", "EF 14.6")
def test_ef_14_0_air_units_fly_to_the_flown_box_and_come_back_ready():
    g = lab()
    b = unit(g, "b", "bomber", "Axis", "box:Axis flown", interdiction=1)
    phase(g, "air-interdiction", "Axis")
    assert b.loc == ("box", "Axis ready")
    infantry(g, "su", "Soviet", "0305")
    act(g, "fly", "Axis", air="b", target="0305", role="mission")
    act(g, "end-phase", "Axis")
    assert b.loc == ("box", "Axis flown")
    assert interdiction_level(g, g.board.idx("0405"), "Axis") == 1  # a neighbour of 0305
    assert interdiction_level(g, g.board.idx("0105"), "Axis") == 0


@pytest.mark.rules("EF 14.3")
def test_ef_14_3_escorts_fire_first_then_interceptors_at_mission_units():
    g = lab()
    unit(g, "b", "bomber", "Axis", "box:Axis ready", interdiction=1)
    unit(g, "esc", "fighter", "Axis", "box:Axis ready", fighter=2)
    unit(g, "int", "fighter", "Soviet", "box:Soviet ready", fighter=1)
    infantry(g, "su", "Soviet", "0305")
    phase(g, "air-interdiction", "Axis")
    act(g, "fly", "Axis", air="b", target="0305", role="mission")
    act(g, "fly", "Axis", air="esc", target="0305", role="escort")
    act(g, "end-phase", "Axis")
    act(g, "intercept", "Soviet", air="int")
    g.force_dice([7])  # the escort: 7 + (2 - 1) = 8: the interceptor turns back
    ev = act(g, "pass", "Soviet")
    assert any("is turned back" in e["text"] for e in ev)
    assert g.state.pieces["int"].loc == ("box", "Soviet flown")
    assert ef(g).zoi["0305"].level == 1


@pytest.mark.rules("EF 14.4")
def test_ef_14_4_aa_fire_turns_back_a_mission_unit():
    g = lab()
    unit(g, "b", "bomber", "Axis", "box:Axis ready", interdiction=1)
    infantry(g, "su", "Soviet", "0305")
    unit(g, "aa", "aa", "Soviet", "0305", aa=2, sp=0)
    phase(g, "air-interdiction", "Axis")
    act(g, "fly", "Axis", air="b", target="0305", role="mission")
    g.force_dice([8])  # 8 + 2 = 10: abort
    act(g, "end-phase", "Axis")
    assert "0305" not in ef(g).zoi


@pytest.mark.rules("EF 14.6")
def test_ef_14_6_zones_of_interdiction_lapse_at_their_sides_next_air_phase():
    g = lab()
    unit(g, "b", "bomber", "Axis", "box:Axis ready", interdiction=2)
    infantry(g, "su", "Soviet", "0305")
    phase(g, "air-interdiction", "Axis")
    act(g, "fly", "Axis", air="b", target="0305", role="mission")
    act(g, "fly", "Axis", air="b", target=NMI_BOX, role="mission") if False else None
    act(g, "end-phase", "Axis")
    assert ef(g).zoi["0305"].level == 2
    phase(g, "air-interdiction", "Axis")
    assert "0305" not in ef(g).zoi


@pytest.mark.rules("EF 15.0")
def test_ef_15_0_coast_artillery_fires_before_the_declared_attacks():
    g = lab()
    cruiser(g, "kk", "Soviet", "0504")
    unit(g, "gun", "cd", "Axis", "0403", support=1, range=2, sp=1)
    phase(g, "combat", "Soviet")
    assert g.phase_path()[-1] == "Axis Coast artillery fire"
    act(g, "end-phase", "Axis")
    assert g.phase_path()[-1] == "Soviet Combat Phase"


@pytest.mark.rules("EF 16.0", "NM 26.12")
def test_ef_16_0_weather_from_the_turn_track():
    g = lab()
    assert weather(g) == "clear"
    g.state.turn["index"] = 2
    assert weather(g) == "storm"


@pytest.mark.rules("EF 17.0", "NM 28.1")
def test_ef_17_0_reinforcements_arrive_at_the_start_of_their_player_turn():

    g = lab()
    new = infantry(g, "new", "Soviet", "0305")
    g.state.move("new", ("none", ""))
    g.scenario.data.schedule.append(
        ScheduleEntry(turn=1, kind="reinforcement", pieces=["new"], at="Haven")
    )
    try:
        arrive(g, "Soviet")
    finally:
        g.scenario.data.schedule.pop()
    assert new.loc == ("box", "Haven")


@pytest.mark.rules("EF 18.0")
def test_ef_18_0_units_aboard_enemy_ships_are_an_anonymous_stack():
    g = lab()
    cruiser(g, "kk", "Soviet", "area:SZ1")
    infantry(g, "secret", "Soviet", "in:kk")
    view = g.view("Axis")
    assert "secret" not in {p["id"] for p in view["pieces"]}
    assert view["stacks"] == [{"stack": True, "side": "Soviet", "loc": ["area", "SZ1"]}]
    assert "secret" in g.ruleset.hidden_tokens(g, "Axis")
    assert "secret" in {p["id"] for p in g.view("Soviet")["pieces"]}
    unit(g, "x", "bomber", "Axis", "box:Axis ready", interdiction=1)
    phase(g, "combat", "Axis")
    with pytest.raises(IllegalAction, match="no piece 'secret' that you can name"):
        act(g, "strike", "Axis", air="x", target="secret")


@pytest.mark.rules("EF 20.0")
def test_ef_20_0_soviet_units_without_a_line_of_communication_next_to_the_axis_roll():
    g = lab()
    for name in ("0404", "0401", "0106", "0708"):
        g.state.control[g.board.idx(name)] = "Axis"
    su = infantry(g, "su", "Soviet", "0402")
    infantry(g, "de", "Axis", "0302")
    phase(g, "supply-status", "Soviet")
    g.force_dice([5])
    ev = act(g, "end-phase", "Soviet")
    assert rolls(ev)[0]["rule"] == "EF 20.0"
    assert su.loc == ("box", "Eliminated")


@pytest.mark.rules("EF 22.41")
def test_ef_22_41_flotillas_move_through_all_sea_and_coastal_hexes_only():
    g = lab()
    fl = unit(g, "fl", "flotilla", "Soviet", "0503", attack=1, defense=1, move=2)
    reach = {g.board.label(i) for i in destinations(g, fl, "movement")}
    assert {"0404", "0603", "0402"} <= reach and "0305" not in reach


@pytest.mark.rules("EF 24.0")
def test_ef_24_0_victory_by_the_objective_hexes():

    g = lab()
    g.scenario.data.victory.update({"axis": ["0404"], "soviet": ["0404", "0708"]})
    try:
        decide(g)
        assert g.state.result["winner"] == "Soviet"
        g.state.result = None
        g.state.control[g.board.idx("0404")] = "Axis"
        decide(g)
        assert g.state.result["winner"] == "Axis"
    finally:
        g.scenario.data.victory.clear()
