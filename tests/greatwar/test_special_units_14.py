"""Rule 14: special ground units -- families, restricted movement, c/m, tanks, cavalry, camels,
light, mountain and high mountain units, over-snow, infantry, marines, fortress, training,
irregulars, elite brigades, rifle assault (digest 14-16, OT-S vectors)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.movement import movement, rail
from grognard.rulesets.greatwar.units import special_units, units
from grognard.rulesets.greatwar.units.special_units import CombatSituation

from .helpers import CP, EN, division, force_dice, frame, game, idx, move, unit

TANK_FACES = {
    "front": {"attack": 2, "defense": 2, "move": 6},
    "disabled": {"attack": 0, "defense": 0, "move": 0},
}


def _g(pieces, **kw):
    return game(pieces=pieces, **kw)


# ============================================================================ 14A-14B
@pytest.mark.rules("OT 14A")
def test_ot_14a_combination_types_have_both_abilities() -> None:
    """OT-S-1: a mountain light rifle unit is light and mountain."""
    g = _g([unit("ml", "mountain-light-rifle", "France", "0101")])
    p = g.state.pieces["ml"]
    fam = special_units.families(g, p)
    assert {"light", "mountain"} <= fam
    assert special_units.is_light(g, p) and special_units.is_mountain(g, p)


@pytest.mark.rules("OT 14B", "OT 14B3")
def test_ot_14b_restricted_movement_units() -> None:
    g = _g(
        [
            unit("ro", "heavy-artillery", "France", "0101", m="R"),
            unit("wo", "gunboat", "France", None, m="W"),
            unit("zm", "field-artillery", "France", "0102", m=0),
            unit("r", "rifle", "France", "0103"),
        ]
    )
    ps = g.state.pieces
    assert all(special_units.is_restricted_movement(ps[x]) for x in ("ro", "wo", "zm"))
    assert not special_units.is_restricted_movement(ps["r"])
    assert special_units.is_zero_move(ps["zm"]) and not special_units.is_zero_move(ps["ro"])
    assert "restricted-movement" in special_units.families(g, ps["zm"])


@pytest.mark.rules("OT 14B3")
def test_ot_14b3_zero_movement_units_cannot_move_retreat_or_be_carried() -> None:
    g = _g([unit("zm", "field-artillery", "France", "0101", m=0)])
    p = g.state.pieces["zm"]
    with pytest.raises(IllegalAction):
        move(g, "zm", "0201")
    assert "cannot retreat" in (special_units.retreat_eliminates(g, p) or "")
    assert rail.transport_allowed(g, p, "naval") is not None
    assert rail.transport_allowed(g, p, "air") is not None


@pytest.mark.rules("OT 14B1")
def test_ot_14b1_rail_only_retreat_advance_and_transport() -> None:
    g = _g(
        [
            unit("ro", "heavy-artillery", "France", "0102", m="R"),
            unit("r", "rifle", "France", "0103"),
        ],
        networks=[{"name": "N", "kind": "rail", "paths": [["0101", "0102", "0202"]]}],
        places=[
            ("0101", "port", "A", {"size": "major"}),
            ("0202", "port", "B", {"size": "major"}),
            ("0103", "port", "C", {"size": "major"}),
        ],
    )
    p = g.state.pieces["ro"]
    here = idx(g, "0102")
    assert special_units.retreat_problem(g, p, here, idx(g, "0101")) is None
    assert special_units.retreat_problem(g, p, here, idx(g, "0103")) is not None  # no rail line
    assert special_units.no_advance(g, p) is not None
    assert special_units.no_advance(g, g.state.pieces["r"]) is None
    assert rail.transport_allowed(g, p, "air") is not None
    assert rail.transport_allowed(g, p, "naval", idx(g, "0101"), idx(g, "0202")) is None
    assert (
        rail.transport_allowed(g, p, "naval", idx(g, "0101"), idx(g, "0103")) is not None
    )  # no rail at 0103
    g.state.set_marker("rail-break", here, True)
    assert "broken" in (special_units.retreat_eliminates(g, p) or "")


# ============================================================================ 14C
@pytest.mark.rules("OT 14C", "OT 14C1")
def test_ot_14c_cm_effects_and_cm_artillery_classes() -> None:
    g = _g(
        [
            unit("mg", "motorized-machinegun", "France", "0101"),
            unit("mfa", "motorized-field-artillery", "France", "0102"),
            unit("ha", "horse-artillery", "France", "0103"),
            unit("ma", "mountain-field-artillery", "France", "0104"),
        ]
    )
    ps = g.state.pieces
    eff = movement.cm_effects(g, ps["mg"])
    assert (
        eff["transport_re"] == 2 and eff["cost_set"] == "cm-art" and eff["exploitation_share"] == 1
    )
    assert movement.cm_effects(g, ps["ha"]) == {}
    assert special_units.terrain_effect_classes(g, ps["mfa"]) == ("cm-art", ("artillery",))


@pytest.mark.rules("OT 14D4", "OT 14F2")
def test_ot_14d4_14f2_horse_and_mountain_artillery_terrain_classes() -> None:
    g = _g(
        [
            unit("ha", "horse-artillery", "France", "0103"),
            unit("ma", "mountain-field-artillery", "France", "0104"),
        ]
    )
    ps = g.state.pieces
    assert special_units.terrain_effect_classes(g, ps["ha"]) == ("other", ("artillery",))
    assert special_units.terrain_effect_classes(g, ps["ma"]) == ("other", ("artillery", "mountain"))


@pytest.mark.rules("OT 14C2")
def test_ot_14c2_tank_state_ladder() -> None:
    """OT-S-49: (normal, F) disrupted; (disrupted, F) badly; (normal, F*) badly; (disrupted, F*)
    disabled; (badly, F*) disabled; S no change. GST: 1-2 F*, 3 F, 4-5 S, 6 S*."""

    def run(status, die):
        g = _g([unit("tk", "tank", "France", "0101", faces=TANK_FACES, size="battalion")])
        p = g.state.pieces["tk"]
        p.status.update(status)
        force_dice(g, [die])
        special_units.tank_check(g, p, "test")
        return p

    assert units.disruption(run((), 3)) == 1
    assert units.disruption(run(("disrupted",), 3)) == 2
    assert units.disruption(run((), 1)) == 2 and not special_units.is_disabled(run((), 1))
    assert special_units.is_disabled(run(("disrupted",), 2))
    assert special_units.is_disabled(run(("badly-disrupted",), 1))
    p = run(("disrupted",), 5)
    assert units.disruption(p) == 1 and not special_units.is_disabled(p)
    p = run(("badly-disrupted",), 3)  # F on a badly disrupted tank: no further effect
    assert units.disruption(p) == 2 and not special_units.is_disabled(p)


@pytest.mark.rules("OT 14C2")
def test_ot_14c2_disabled_tank_strength_and_movement_zero() -> None:
    g = _g(
        [unit("tk", "tank", "France", "0101", faces=TANK_FACES, face="disabled", size="battalion")]
    )
    p = g.state.pieces["tk"]
    assert units.disruption(p) == 2
    assert movement.movement_allowance(g, p) == 0
    sit = CombatSituation([p], [], idx(g, "0201"))
    assert (
        special_units.attack_factor(g, p, sit) == 0 and special_units.defense_factor(g, p, sit) == 0
    )


@pytest.mark.rules("OT 14C2")
def test_ot_14c2_tank_checked_after_moving() -> None:
    g = _g([unit("tk", "tank", "France", "0101", faces=TANK_FACES, size="battalion")])
    move(g, "tk", "0201")
    force_dice(g, [3])
    g.apply({"type": "end-phase", "side": EN})
    assert units.disruption(g.state.pieces["tk"]) == 1
    assert any(e.get("rule") == "OT 14C2" for e in g.state.log)


@pytest.mark.rules("OT 14C2")
def test_ot_14c2_repair_costs_and_conditions() -> None:
    """OT-S-50: a disabled battalion is repaired for 2 Equ Pts, a regiment for 4; not out of
    supply."""
    g = _g(
        [
            unit(
                "tk", "tank", "France", "0101", faces=TANK_FACES, face="disabled", size="battalion"
            ),
            unit(
                "tr", "tank", "France", "0102", faces=TANK_FACES, face="disabled", size="regiment"
            ),
        ]
    )
    assert special_units.tank_repair_cost(g.state.pieces["tk"]) == 2
    assert special_units.tank_repair_cost(g.state.pieces["tr"]) == 4
    g.state.pieces["tk"].attrs.pop("supply_out_since", None)
    assert special_units.tank_repair_problem(g, g.state.pieces["tk"], EN) is None
    g.state.pieces["tk"].attrs["supply_out_since"] = 0
    assert "supply" in (special_units.tank_repair_problem(g, g.state.pieces["tk"], EN) or "")
    special_units.repair_tank(g, g.state.pieces["tr"])
    assert g.state.pieces["tr"].face == "front" and units.disruption(g.state.pieces["tr"]) == 0


@pytest.mark.rules("OT 14C3")
def test_ot_14c3_specialized_tanks_act_as_engineers_where_possible() -> None:
    g = _g(
        [
            unit("et", "engineer-tank", "France", "0101"),
            unit("at", "assault-engineer-tank", "France", "0102"),
            unit("ft", "flame-thrower-tank", "France", "0103"),
            unit("t", "tank", "France", "0104"),
        ]
    )
    ps = g.state.pieces
    assert special_units.engineer_role(g, ps["et"], True) == "combat-engineer"
    assert special_units.engineer_role(g, ps["at"], True) == "assault-engineer"
    assert special_units.engineer_role(g, ps["ft"], True) == "flamethrower"
    assert special_units.engineer_role(g, ps["et"], False) is None
    assert special_units.engineer_role(g, ps["t"], True) is None


@pytest.mark.rules("OT 14C4")
def test_ot_14c4_fast_cm_supported_in_open_mobile_combat() -> None:
    """OT-S-51: MA 7 c/m is fast, MA 6 is not; an unsupported MA-8 armoured car attacking into clear
    on the Mobile CRT counts as supported, on the Positional CRT not."""
    g = _g(
        [
            unit("ac", "armored-car", "France", "0101", m=8, support="unsupported"),
            unit("mg6", "motorized-machinegun", "France", "0102", m=6),
            unit("mg7", "motorized-machinegun", "France", "0103", m=7),
        ],
        rows=["cccccccc"] * 6,
    )
    ps = g.state.pieces
    assert special_units.is_fast_cm(ps["mg7"]) and not special_units.is_fast_cm(ps["mg6"])
    target = idx(g, "0201")
    assert special_units.counts_as_supported(
        g, ps["ac"], CombatSituation([ps["ac"]], [], target, "mobile"), "attack"
    )
    assert not special_units.counts_as_supported(
        g, ps["ac"], CombatSituation([ps["ac"]], [], target, "positional"), "attack"
    )
    g.state.set_marker("fortification", target, "entrenchment")
    assert not special_units.counts_as_supported(
        g, ps["ac"], CombatSituation([ps["ac"]], [], target, overrun=True), "attack"
    )


# ============================================================================ 14D
@pytest.mark.rules("OT 14D", "OT 14D1")
def test_ot_14d1_heavy_cavalry_halved_against_cities_and_works() -> None:
    """OT-S-52: fieldworks do not halve heavy cavalry; an entrenchment or a major city does."""
    g = _g(
        [unit("hc", "heavy-cavalry", "France", "0101", a=4, d=2, m=7)],
        places=[("0301", "full-city", "Big")],
    )
    p = g.state.pieces["hc"]
    assert special_units.is_cavalry_unit(g, p)
    t = idx(g, "0201")
    g.state.set_marker("fortification", t, "fieldworks")
    assert special_units.attack_factor(g, p, CombatSituation([p], [], t)) == 1
    g.state.set_marker("fortification", t, "entrenchment")
    assert special_units.attack_factor(g, p, CombatSituation([p], [], t)) == Fraction(1, 2)
    assert special_units.attack_factor(g, p, CombatSituation([p], [], idx(g, "0301"))) == Fraction(
        1, 2
    )


@pytest.mark.rules("OT 14D2")
def test_ot_14d2_camel_zones() -> None:
    """OT-S-53: camel units may not enter weather zones outside D-I (a forced retreat there
    eliminates them: the retreat hex is refused)."""
    g = _g(
        [unit("cm", "mounted-rifle", "France", "0101", camel=True)],
        areas=[
            {"name": "B", "kind": "weather-zone", "hexes": ["0201"]},
            {"name": "E", "kind": "weather-zone", "hexes": ["0101", "0102"]},
        ],
    )
    p = g.state.pieces["cm"]
    assert special_units.is_camel(p)
    with pytest.raises(IllegalAction) as e:
        move(g, "cm", "0201")
    assert "OT 14D2" in e.value.rule or "14D2" in str(e.value)
    assert special_units.retreat_problem(g, p, idx(g, "0101"), idx(g, "0201")) is not None
    assert special_units.retreat_problem(g, p, idx(g, "0101"), idx(g, "0102")) is None
    move(g, "cm", "0102")


@pytest.mark.rules("OT 14D2", "OT 6")
def test_ot_14d2_camel_units_cross_sand_and_salt_desert_cheaply() -> None:
    """The camel unit's desert advantage through play (TEC exception rows): sand, salt desert and
    sand again cost it 1 MP each (3 in all), while a mounted rifle unit without the camel "C" pays
    the cavalry cost of 2 for each (6)."""
    g = _g(
        [
            unit("cm", "mounted-rifle", "France", "0101", m=8, camel=True),
            unit("mr", "mounted-rifle", "France", "0201", m=8),
        ],
        rows=["cccccccc", "ddcccccc", "ttcccccc", "ddcccccc", "cccccccc", "cccccccc"],
    )
    move(g, "cm", "0102", "0103", "0104")
    move(g, "mr", "0202", "0203", "0204")
    f = frame(g)
    assert movement.spent(f, g.state.pieces["cm"]) == 3
    assert movement.spent(f, g.state.pieces["mr"]) == 6


@pytest.mark.rules("OT 14D3")
def test_ot_14d3_mixed_units_rifle_for_exploitation_and_terrain() -> None:
    g = _g([unit("mx", "mixed-mounted-rifle-and-rifle", "France", "0101", m=6)])
    p = g.state.pieces["mx"]
    assert special_units.counts_as_rifle_for(
        p, "exploitation"
    ) and special_units.counts_as_rifle_for(p, "adverse-terrain")
    assert not special_units.counts_as_rifle_for(p, "zoc")
    assert movement.fraction_for(g, p, movement.EXPLOITATION) == Fraction(1, 5)
    assert movement.fraction_for(g, p, movement.RESERVE) == Fraction(1, 2)


@pytest.mark.rules("OT 14D5")
def test_ot_14d5_sleigh_machineguns_in_the_arctic() -> None:
    g = _g(
        [
            unit("sl", "sleigh-machinegun", "Russia", "0101", side=EN),
            unit("mr", "mounted-rifle", "Russia", "0102", side=EN),
        ],
        nations={"France": EN, "Germany": CP, "Russia": EN},
    )
    assert special_units.arctic_without_penalty(g.state.pieces["sl"])
    assert not special_units.arctic_without_penalty(g.state.pieces["mr"])
    assert "over-snow" in special_units.families(g, g.state.pieces["sl"])


# ============================================================================ 14E-14H
@pytest.mark.rules("OT 14E", "OT 14F")
def test_ot_14e_14f_light_and_mountain_shares() -> None:
    g = _g(
        [
            unit("lr", "light-rifle", "France", "0101", m=6),
            unit("mr", "mountain-rifle", "France", "0102", m=6),
        ]
    )
    ps = g.state.pieces
    assert special_units.is_light(g, ps["lr"]) and special_units.is_mountain(g, ps["mr"])
    assert movement.fraction_for(g, ps["lr"], movement.RESERVE) == Fraction(1, 3)
    assert movement.fraction_for(g, ps["mr"], movement.EXPLOITATION) == Fraction(1, 3)


@pytest.mark.rules("OT 14F1")
def test_ot_14f1_guide_capacity() -> None:
    """OT-S-3 / OT-S-54: a 1-RE high mountain regiment guides 4 RE of mountain units, a battalion 2
    RE;
    non-mountain units are never guided."""
    g = _g(
        [
            unit("hm", "high-mountain", "Austria-Hungary", "0101", size="regiment", side=CP),
            unit("hb", "high-mountain", "Austria-Hungary", "0101", size="battalion", side=CP),
            unit("mb", "mountain-rifle", "Austria-Hungary", "0101", size="brigade", side=CP),
            unit("rf", "rifle", "Austria-Hungary", "0101", size="brigade", side=CP),
        ],
        nations={"France": EN, "Germany": CP, "Austria-Hungary": CP},
    )
    ps = g.state.pieces
    assert special_units.guide_capacity(g, [ps["hm"]]) == 4
    assert special_units.guide_capacity(g, [ps["hb"]]) == 2
    assert special_units.guided(g, [ps["hb"], ps["mb"]]) == {"mb"}
    assert special_units.guided(g, [ps["hb"], ps["rf"]]) == set()
    big = [ps["hb"], ps["mb"], unit_piece(g, ps["mb"], "mb2")]
    assert special_units.guided(g, big) == set()  # 4 RE of mountain units > 2 RE capacity


def unit_piece(g, like, pid):
    from grognard.core.state import Piece

    q = Piece(
        pid,
        like.type,
        like.side,
        like.nation,
        like.face,
        like.loc,
        set(),
        dict(like.attrs),
        like.faces,
    )
    g.state.add_piece(q)
    return q


@pytest.mark.rules("OT 14F1")
def test_ot_14f1_guided_brigade_crosses_only_with_its_guide() -> None:
    """OT-S-4: a high mountain battalion stacked with a mountain brigade guides it across a high
    mountain hexside (clear weather) only when they cross together; supply traces while stacked."""
    kw = dict(
        nations={"France": EN, "Germany": CP, "Austria-Hungary": CP},
        control="split",
        hexsides=[("high-mountain", ["0601/0701"])],
    )
    g = game(
        pieces=[
            unit("hb", "high-mountain", "Austria-Hungary", "0601", size="battalion", side=CP, m=5),
            unit("mb", "mountain-rifle", "Austria-Hungary", "0601", size="brigade", side=CP, m=5),
            division("fr", "France", "0101"),
        ],
        **kw,
    )
    from .helpers import run_to

    run_to(g, "ground-movement", CP)
    assert special_units.supply_guided(g, g.state.pieces["mb"])
    with pytest.raises(IllegalAction):
        move(g, "mb", "0701")
    g.apply({"type": "move", "side": CP, "pieces": ["hb", "mb"], "path": ["0701"]})
    assert units.hex_of(g, g.state.pieces["mb"]) == idx(g, "0701")


@pytest.mark.rules("OT 14G", "OT 14G1", "OT 14G2")
def test_ot_14g_ski_units_by_nationality_and_snow_retreats() -> None:
    g = _g(
        [
            unit("ska", "ski", "Austria-Hungary", "0101", side=CP, m=7),
            unit("skf", "ski", "France", "0102", m=7),
        ],
        nations={"France": EN, "Germany": CP, "Austria-Hungary": CP},
        turns=[("Jan I 15", {"weather": "snow"})],
    )
    ps = g.state.pieces
    assert special_units.ski_is_mountain(g, ps["ska"]) and "mountain" in special_units.families(
        g, ps["ska"]
    )
    assert not special_units.ski_is_mountain(g, ps["skf"]) and "light" in special_units.families(
        g, ps["skf"]
    )
    assert special_units.over_snow_retreat_allowed(g, ps["skf"], idx(g, "0102"))


@pytest.mark.rules("OT 14H")
def test_ot_14h_dated_infantry_status() -> None:
    """OT-S-55: a 6-MA cavalry unit is infantry from Feb I 19 (not Jan II 19); a non-divisional
    rifle
    unit with printed defense 5 from Jun I 19 (not May II 19)."""

    def inf(turn, pid):
        g = _g(
            [
                unit("cv", "mounted-rifle", "France", "0101", m=6),
                unit("rf", "rifle", "France", "0102", a=3, d=5, m=5),
            ],
            turns=[(turn, {})],
        )
        return special_units.is_infantry(g, g.state.pieces[pid])

    assert not inf("Jan II 19", "cv") and inf("Feb I 19", "cv")
    assert inf("Jun I 19", "rf") and not inf("May II 19", "rf")


# ============================================================================ 14I-14L
@pytest.mark.rules("OT 14I", "OT 14I2")
def test_ot_14i_marines_and_landing_strengths() -> None:
    kw = dict(options={"advanced-naval": True, "marine-units": True})
    g = _g(
        [
            unit("mi", "marine-infantry", "France", "0101"),
            unit("nt", "naval-troops", "France", "0102"),
            unit("r", "rifle", "France", "0103"),
            unit("alt", "amphibious-light-tank", "Britain", "0104"),
        ],
        **kw,
    )
    ps = g.state.pieces
    assert special_units.is_marine(ps["mi"]) and not special_units.is_marine(ps["alt"])
    sit = CombatSituation(
        [ps["mi"], ps["nt"], ps["r"]], [], idx(g, "0201"), landing=frozenset({"mi", "nt", "r"})
    )
    assert [special_units.attack_factor(g, ps[x], sit) for x in ("mi", "nt", "r")] == [
        1,
        Fraction(1, 2),
        Fraction(1, 4),
    ]
    assert special_units.intrinsically_amphibious(
        g, ps["mi"]
    ) and not special_units.intrinsically_amphibious(g, ps["r"])
    g2 = _g([unit("mi", "marine-infantry", "France", "0101")])
    assert special_units.landing_factor(g2, g2.state.pieces["mi"]) == Fraction(
        1, 4
    )  # basic naval rules: no marine abilities


@pytest.mark.rules("OT 14I1")
def test_ot_14i1_raider_cap_and_results() -> None:
    """OT-S-7: two coast artillery and one heavy siege artillery unit admit three raiders."""
    kw = dict(options={"advanced-naval": True, "marine-units": True})
    cd = [unit(f"c{k}", "coast-artillery", "Germany", "0601", m=0) for k in (1, 2)] + [
        unit("hs", "heavy-siege-artillery", "Germany", "0601", m=0)
    ]
    raiders = [unit(f"m{k}", "marine-rifle", "France", None) for k in range(4)]
    g = _g(cd + raiders, **kw)
    ps = g.state.pieces
    i = idx(g, "0601")
    assert len(special_units.raid_targets(g, i, EN)) == 3
    four = [ps[f"m{k}"] for k in range(4)]
    assert special_units.raid_problem(g, four, i, ["c1", "c2", "hs", "c1"], True, True) is not None
    three = four[:3]
    assert special_units.raid_problem(g, three, i, ["c1", "c1", "hs"], True, True) is None
    assert special_units.raid_problem(g, three, i, ["c1", "c1", "hs"], True, False) is not None
    force_dice(g, [5, 1, 3])
    must_spend = special_units.coastal_raid(g, three, ["c1", "c2", "hs"], land=False)
    assert must_spend
    assert (
        units.disruption(ps["c1"]) == 1
        and g.state.pieces["m1"].loc == Loc.box("eliminated")
        and units.disruption(ps["hs"]) == 0
    )


@pytest.mark.rules("OT 14J", "OT 14K")
def test_ot_14j_14k_fortress_and_training_units() -> None:
    """OT-S-8: heavy artillery training and march brigades are training/replacement units."""
    g = _g(
        [
            unit("fz", "fortress", "France", "0101"),
            unit("sa", "siege-artillery", "France", "0102"),
            unit("hat", "heavy-artillery-training", "France", "0103"),
            unit("mb", "march-brigade", "France", "0104", size="brigade"),
        ]
    )
    ps = g.state.pieces
    assert special_units.is_fortress_unit(ps["fz"]) and not special_units.is_fortress_unit(ps["sa"])
    assert special_units.is_training_replacement(
        ps["hat"]
    ) and special_units.is_training_replacement(ps["mb"])


@pytest.mark.rules("OT 14L")
def test_ot_14l_irregular_rules() -> None:
    """OT-S-59: at 3:1 an irregular unit with a retreat hex must try to retreat; a voluntary
    irregular-only attack below 3:1 is illegal; irregulars fight at half on the Positional CRT."""
    g = _g(
        [
            unit("ir", "irregular-rifle", "France", "0101", a=2, d=2),
            unit("rf", "rifle", "France", "0101", a=2, d=2),
        ]
    )
    ps = g.state.pieces
    assert special_units.is_irregular(ps["ir"])
    assert special_units.irregular_must_try_retreat(g, ps["ir"], Fraction(3), True)
    assert not special_units.irregular_must_try_retreat(g, ps["ir"], Fraction(2), True)
    assert not special_units.irregular_attack_allowed(g, [ps["ir"]], Fraction(2))
    assert special_units.irregular_attack_allowed(g, [ps["ir"]], Fraction(2), mandatory=True)
    assert special_units.irregular_attack_allowed(g, [ps["ir"], ps["rf"]], Fraction(2))
    assert special_units.irregular_attack_allowed(g, [ps["ir"]], Fraction(3))
    sit = CombatSituation([ps["ir"]], [], idx(g, "0201"), "positional")
    assert special_units.attack_factor(g, ps["ir"], sit) == Fraction(
        1, 2
    ) and special_units.defense_factor(g, ps["ir"], sit) == Fraction(1, 2)
    special_units.irregular_failed_retreat(g, ps["ir"])
    assert units.disruption(ps["ir"]) == 1


# ============================================================================ 14Q, 14R
@pytest.mark.rules("OT 14Q")
def test_ot_14q_elite_brigades_strength_and_movement() -> None:
    """OT-S-16: a 6-9-5 rifle division with +2-5 and +1-5 brigades is 9-12-5; OT-S-75: a division
    with MA 5 and a brigade with MA 4 moves 4."""
    eb1 = unit(
        "e1", "elite-brigade", "Italy", None, faces={"front": {"attack": 2, "move": 5}}, size=""
    )
    eb2 = unit(
        "e2", "elite-brigade", "Italy", None, faces={"front": {"attack": 1, "move": 4}}, size=""
    )
    eb1["at"] = {"inside": "dv"}
    eb2["at"] = {"inside": "dv"}
    g = _g(
        [division("dv", "Italy", "0101", a=6, d=9, m=5, side=EN), eb1, eb2],
        nations={"France": EN, "Germany": CP, "Italy": EN},
    )
    dv = g.state.pieces["dv"]
    assert (
        special_units.combat_strength(g, dv, "attack") == 9
        and special_units.combat_strength(g, dv, "defense") == 12
    )
    assert movement.movement_allowance(g, dv) == 4
    assert special_units.elite_limit(dv) == 2
    assert not units.is_unit(g.state.pieces["e1"])
    dv.face = "cadre"
    assert special_units.combat_strength(g, dv, "attack") == 3 + 3


@pytest.mark.rules("OT 14Q")
def test_ot_14q_reassignment_rules() -> None:
    eb = unit(
        "e1", "elite-brigade", "Italy", None, faces={"front": {"attack": 1, "move": 5}}, size=""
    )
    eb["at"] = {"inside": "d1"}
    g = _g(
        [
            division("d1", "Italy", "0101", side=EN),
            division("d2", "Italy", "0101", side=EN),
            division("d3", "Italy", "0301", side=EN),
            unit("bde", "rifle", "Italy", "0101", size="brigade", side=EN),
            eb,
        ],
        nations={"France": EN, "Germany": CP, "Italy": EN},
    )
    ps = g.state.pieces
    assert special_units.elite_assignment_problem(g, ps["e1"], ps["d2"]) is None
    assert special_units.elite_assignment_problem(g, ps["e1"], ps["d3"]) is not None  # another hex
    assert (
        special_units.elite_assignment_problem(g, ps["e1"], ps["bde"]) is not None
    )  # not a division


@pytest.mark.rules("OT 14R")
def test_ot_14r_rifle_assault_predicate() -> None:
    g = _g(
        [unit("ra", "rifle-assault", "USA", "0101", side=EN)],
        nations={"France": EN, "Germany": CP, "USA": EN},
    )
    assert special_units.is_rifle_assault(g.state.pieces["ra"])
