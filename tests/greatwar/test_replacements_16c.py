"""OT 16C special considerations and OT 16A1h disarming (OT-S 43-45, 71-73)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.state import Loc
from grognard.rulesets.greatwar import special_rules
from grognard.rulesets.greatwar.logistics import reinforcements, replacements
from grognard.rulesets.greatwar.logistics.replacements import EQU, MAN
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.units import units

from .helpers import CP, EN, division, force_dice, game, idx, unit
from .test_replacements_16b import ALL, pool, world


@pytest.mark.rules("OT 16C1")
def test_ot_16c1_voluntary_disbanding() -> None:
    """OT-S-71: a MA-4 brigade or a "W" unit may not be disbanded, a MA-5 unit may; a minor power
    disbands at most 4 RE a month."""
    w = unit("wo", "machinegun", "France", None, m="W")
    w["at"] = {"hexside": "0302/0303"}
    g = world(
        [
            unit("b4", "rifle", "France", "0302", m=4, size="brigade"),
            unit("u5", "rifle", "France", "0302", m=5),
            w,
        ]
        + [unit(f"be{k}", "rifle", "Belgium", "0303", m=5, size="brigade") for k in range(3)]
    )
    ps = g.state.pieces
    assert replacements.disband_problem(g, EN, ps["b4"]) is not None
    assert replacements.disband_problem(g, EN, ps["wo"]) is not None
    assert replacements.disband_problem(g, EN, ps["u5"]) is None
    cost = replacements.replacement_strength(g, ps["u5"], isolated=False)
    scrap = replacements.scrap_value(g, ps["u5"])
    replacements.disband(g, ps["u5"])
    assert g.state.where("u5") == Loc.box("out-of-play")
    assert pool(g, EN, "West")[MAN]["France"] == cost[MAN] + scrap
    assert (
        replacements.spendable(g, EN, "West", MAN, "France") == 0
    )  # OT 16C13: not this initial phase
    for k in range(2):
        replacements.add_monthly(g, "disband", "Belgium", units.re_size(g, ps[f"be{k}"]))
    assert "4 RE" in (replacements.disband_problem(g, EN, ps["be2"]) or "")


@pytest.mark.rules("OT 16C2", "OT 16A1v", "OT 16A1i")
def test_ot_16c2_voluntary_scrapping_and_disbanding_from_the_pool() -> None:
    g = world([division("a", "France", "0302"), division("b", "France", "0303")])
    for pid in ("a", "b"):
        units.eliminate(g, g.state.pieces[pid], "OT 11F3")
    va = replacements.scrap_value(g, g.state.pieces["a"])
    replacements.scrap(g, g.state.pieces["a"])
    replacements.disband(g, g.state.pieces["b"])
    assert pool(g, EN, "West")[MAN]["France"] == 2 * va
    assert g.state.where("a") == Loc.box("out-of-play") == g.state.where("b")


@pytest.mark.rules("OT 16C3", "OT 16A1k")
def test_ot_16c3_foreign_aid() -> None:
    """OT-S-43: Entente Equ Pts delivered to Lisboa (neutral Portugal) become Portugal's."""
    g = game(
        pieces=[],
        nations={"France": EN, "Germany": CP, "Portugal": None},
        places=[("0101", "full-city", "Lisboa", {})],
        rules='neutral_territory = { Portugal = ["0101"] }',
        control={EN: ALL[8:24], CP: ALL[24:]},
    )
    ep = replacements.place_points(g, EN, idx(g, "0101"), EQU, Fraction(2))
    assert ep is not None and replacements.foreign_aid_problem(g, EN, ep) is None
    replacements.give_aid(g, ep)
    assert gw(g)["aid"]["Portugal"]["equ-pt"] == 2 and g.state.where(ep.id) == Loc.box(
        "aid:Portugal"
    )
    far = replacements.place_points(g, EN, idx(g, "0301"), EQU, Fraction(1))
    assert replacements.foreign_aid_problem(g, EN, far) is not None


@pytest.mark.rules("OT 16C4", "OT 16A1l")
def test_ot_16c4_early_activation() -> None:
    g = world(
        [
            division("fm", "France", None),
            division("fz", "France", None),
            division("ge", "Germany", "0806"),
        ],
        turns=[("Sep I 14", {}), ("Sep II 14", {}), ("Oct I 14", {})],
        schedule=[
            {
                "turn": "Sep I 14",
                "kind": "forming",
                "pieces": ["fm", "fz"],
                "params": {"command": "West", "district": "West"},
            }
        ],
        control={EN: ALL[:40], CP: ALL[40:]},
    )
    fm = g.state.pieces["fm"]
    assert g.state.where("fm").kind == "box" and fm.attrs["forming"]["turn"] == 1
    assert "this turn" in (replacements.early_activation_problem(g, EN, fm) or "")
    g.state.turn = {"index": 2, "label": "Sep II 14"}
    assert "no enemy unit" in (
        replacements.early_activation_problem(g, EN, fm) or ""
    )  # the German unit is out of regular supply
    g.state.vars["gw"]["phasing"] = EN
    force_dice(g, [3])  # F: received at its cadre
    reinforcements._early_activation(g, EN, fm)
    assert fm.face == "cadre"
    force_dice(g, [1])  # F*: eliminated to the pool
    reinforcements._early_activation(g, EN, g.state.pieces["fz"])
    assert replacements.in_pool(g, g.state.pieces["fz"])


@pytest.mark.rules("OT 16C8")
def test_ot_16c8_march_brigades() -> None:
    g = world(
        [
            unit("mb", "march-brigade", "France", None, a=1, d=2, m=4, size="brigade"),
            unit("mb2", "march-brigade", "France", None, a=2, d=3, m=4, size="brigade"),
        ]
    )
    ps = g.state.pieces
    assert (
        replacements.march_value(g, ps["mb"]) == 4 and replacements.march_value(g, ps["mb2"]) == 6
    )
    replacements.place_points(g, EN, idx(g, "0302"), MAN, Fraction(3), "France")
    assert replacements.march_assemble_problem(g, EN, ps["mb"], "0302") is not None
    replacements.place_points(g, EN, idx(g, "0302"), MAN, Fraction(1), "France")
    assert replacements.march_assemble_problem(g, EN, ps["mb"], "0302") is None
    replacements.march_assemble(g, ps["mb"], "0302")
    assert (
        units.hex_of(g, ps["mb"]) == idx(g, "0302")
        and replacements.hex_points(g, EN, idx(g, "0302"), MAN, "France") == 0
    )
    replacements.march_breakdown(g, ps["mb"])
    assert replacements.hex_points(g, EN, idx(g, "0302"), MAN, "France") == 4


@pytest.mark.rules("OT 16C9", "OT 16C9a")
def test_ot_16c9a_missing_training_garrison_puts_activities_at_risk() -> None:
    g = world(
        [division("r1", "France", None), division("r2", "France", None)],
        schedule=[
            {
                "turn": "Sep II 14",
                "kind": "receive",
                "pieces": ["r1"],
                "params": {"command": "West"},
            },
            {
                "turn": "Sep II 14",
                "kind": "receive",
                "pieces": ["r2"],
                "params": {"command": "West"},
            },
        ],
    )
    g.scenario.data.nations["France"].attrs["trng_repl_missing"] = ["West"]
    g.state.turn = {"index": 2, "label": "Sep II 14"}
    g.state.vars["gw"]["phasing"] = EN
    reinforcements.activate_due(g, EN)
    items = reinforcements.agenda(g, EN)
    force_dice(g, [2, 5])
    assert reinforcements.run_item(g, items[0]) == "done"  # failure: forfeited
    assert g.state.where("r1") == Loc.box("out-of-play")
    assert reinforcements.run_item(g, items[0]) in ("task", "wait")  # success: goes ahead (r2)


@pytest.mark.rules("OT 16C10")
def test_ot_16c10_zero_movement_artillery() -> None:
    """OT-S-72: Germany's limit in Nov 14 is 6 (3 if the East theater is out of play); a Russian
    failure still counts; coast artillery never qualifies."""
    g = world(
        [
            unit(
                "ga",
                "heavy-artillery",
                "Germany",
                "0806",
                m=0,
                side=CP,
                faces={
                    "front": {"attack": 4, "defense": 4, "move": 0},
                    "mobile": {"attack": 4, "defense": 4, "move": 3},
                },
            ),
            unit("ca", "coast-artillery", "Germany", "0806", m=0, side=CP),
            unit("ra", "field-artillery", "Russia", "0302", m=0),
        ],
        turns=[("Nov I 14", {})],
        control={EN: ALL[:40], CP: ALL[40:]},
        extra_places=[("0806", "fortress", "Metz", {"state": "improved"})],
    )
    ps = g.state.pieces
    assert (
        replacements.zero_ma_limit(g, "Germany") == 6
        and replacements.zero_ma_limit(g, "Russia") == 3
    )
    g.scenario.rules.theaters_out_of_play = ["East"]
    assert replacements.zero_ma_limit(g, "Germany") == 3
    g.scenario.rules.theaters_out_of_play = []
    assert replacements.zero_ma_problem(g, CP, ps["ca"]) is not None
    assert replacements.zero_ma_problem(g, CP, ps["ga"]) is None
    replacements.make_mobile(g, ps["ga"])
    assert ps["ga"].face == "mobile" and special_rules.fortress_of(g, idx(g, "0806")) == (
        "new",
        "unimproved",
    )
    force_dice(g, [3])
    replacements.make_mobile(g, ps["ra"])
    assert (
        units.hex_of(g, ps["ra"]) is not None
        and replacements.monthly_count(g, "zero-ma", "Russia") == 1
    )
    g2 = world([], turns=[("Sep II 14", {})])
    assert replacements.zero_ma_limit(g2, "France") == 0


@pytest.mark.rules("OT 16C11")
def test_ot_16c11_local_drafting() -> None:
    """OT-S-44: a liberated major city hex of France held 12 turns by the enemy gives 3 French
    Metropolitan Army Man Pts (a Bavarian one Bavarian Man Pts: the district's contingent)."""
    home = {
        "name": "Champagne",
        "kind": "district",
        "hexes": ["0102", "0103"],
        "attrs": {"nation": "France", "home": True, "contingent": "French Metropolitan Army"},
    }
    g = world(extra_areas=[home])
    i = idx(g, "0102")
    gw(g).setdefault("owned_since", {})[str(i)] = 1
    g.state.turn = {"index": 14, "label": "Feb II 15"}
    assert replacements.local_draft_due(g, i, CP, EN) == "French Metropolitan Army"
    gw(g)["owned_since"][str(i)] = 5
    assert replacements.local_draft_due(g, i, CP, EN) is None  # only 9 turns
    assert (
        replacements.local_draft_due(g, idx(g, "0302"), CP, EN) is None
    )  # not a major city of a home district
    replacements.local_draft(g, EN, i, "French Metropolitan Army")
    assert pool(g, EN, "West")[MAN]["French Metropolitan Army"] == 3


@pytest.mark.rules("OT 16C12")
def test_ot_16c12_one_reinforcement_to_an_isolated_city() -> None:
    g = game(
        pieces=[division("r1", "France", None), division("r2", "France", None)],
        areas=[{"name": "Dist", "kind": "district", "hexes": ["0102", "0104", "0106"]}],
        places=[
            ("0102", "full-city", "A"),
            ("0104", "full-city", "B"),
            ("0106", "point-city", "C"),
        ],
        schedule=[
            {
                "turn": "Sep II 14",
                "kind": "receive",
                "pieces": ["r1", "r2"],
                "params": {"district": "Dist"},
            }
        ],
    )
    iso = idx(g, "0106")
    gw(g)["isolated"] = {EN: [iso], CP: []}
    g.state.turn = {"index": 2, "label": "Sep II 14"}
    g.state.vars["gw"]["phasing"] = EN
    reinforcements.activate_due(g, EN)
    item = reinforcements.agenda(g, EN)[0]
    assert iso in reinforcements.placement_options(g, item, g.state.pieces["r1"])
    reinforcements._place(g, item, g.state.pieces["r1"], iso, None)
    assert iso not in reinforcements.placement_options(g, item, g.state.pieces["r2"])
    assert idx(g, "0104") in reinforcements.placement_options(g, item, g.state.pieces["r2"])


@pytest.mark.rules("OT 16C13")
def test_ot_16c13_points_not_usable_in_the_phase_they_are_made() -> None:
    g = world()
    replacements.add_points(g, EN, "West", {"France": Fraction(2)}, Fraction(1), locked=True)
    assert (
        replacements.spendable(g, EN, "West", MAN, "France") == 0
        and replacements.spendable(g, EN, "West", EQU) == 0
    )
    g.state.turn = {"index": 2, "label": "Sep II 14"}
    assert replacements.spendable(g, EN, "West", MAN, "France") == 2
    replacements.place_points(g, EN, idx(g, "0302"), MAN, Fraction(1), "France")
    assert (
        replacements.hex_points(g, EN, idx(g, "0302"), MAN, "France") == 1
    )  # on-map points are unrestricted


@pytest.mark.rules("OT 16C14")
def test_ot_16c14_loss_of_all_cities() -> None:
    """OT-S-45: a reinforcement due where every city is enemy-owned is forfeited (out of play, not
    in the pool); a command with no city left loses its general pool and pool units."""
    g = game(
        pieces=[division("r1", "France", None), division("w", "France", "0303")],
        areas=[
            {"name": "Ireland", "kind": "district", "hexes": ["0101", "0102"]},
            {"name": "West", "kind": "command", "hexes": ALL[:24]},
        ],
        places=[("0101", "point-city", "Dublin"), ("0102", "point-city", "Cork")],
        control={EN: ALL[2:24], CP: ALL[:2] + ALL[24:]},
        schedule=[
            {
                "turn": "Sep I 14",
                "kind": "receive",
                "pieces": ["r1"],
                "params": {"district": "Ireland"},
            }
        ],
    )
    assert g.state.where("r1") == Loc.box("out-of-play")
    assert reinforcements.all_cities_enemy_owned(g, EN, "Ireland")
    units.eliminate(g, g.state.pieces["w"], "OT 11F3")
    replacements.add_points(g, EN, "West", {"France": Fraction(3)})
    g.scenario.rules.commands = {EN: ["West"]}
    reinforcements.loss_of_all_cities(g, EN)
    assert g.state.where("w") == Loc.box("out-of-play") and pool(g, EN, "West")[MAN] == {}


@pytest.mark.rules("OT 16A1h")
def test_ot_16a1h_disarm() -> None:
    """OT-S-73: a special replacement value of 1.5 Equ Pts, halved, gives 0.5 Equ Pt (one rounding,
    interpretation default)."""
    g = world([unit("tk", "tank", "France", "0302")])
    tk = g.state.pieces["tk"]
    cost = replacements.replacement_strength(g, tk, isolated=False)
    want = replacements.half_down(cost[EQU] / 4 / 2)
    reinforcements._disarm(g, tk)
    assert g.state.where("tk") == Loc.box("out-of-play")
    assert pool(g, EN, "West")[EQU] == want
    assert replacements.half_down(Fraction(6) / 4 / 2) == Fraction(1, 2)  # 1.5 / 2 = 0.75 -> 0.5
