"""Parts of later rules that Rules 3-8 depend on: supply blocking and sources (OT 11), support and
artillery movement (OT 12), special unit families and Army HQs (OT 14), major rivers (OT 15A4)."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc, Piece
from grognard.rulesets.greatwar.combat import artillery
from grognard.rulesets.greatwar.map import zoc
from grognard.rulesets.greatwar.movement import movement, rail
from grognard.rulesets.greatwar.movement.movement import movement_allowance
from grognard.rulesets.greatwar.supply import supply
from grognard.rulesets.greatwar.units import special_units, units

from .helpers import (
    CP,
    EN,
    army_hq,
    division,
    end,
    force_dice,
    frame,
    game,
    idx,
    move,
    run_to,
    unit,
)

SOURCES = {
    "places": [
        ("0101", "partial-city", "A"),
        ("0301", "partial-city", "B"),
        ("0806", "partial-city", "C"),
        ("0606", "partial-city", "D"),
    ],
    "networks": [
        {"name": "r", "kind": "rail", "paths": [["0101", "0201", "0301"], ["0606", "0706", "0806"]]}
    ],
}


@pytest.mark.rules("OT 11A")
def test_ot_11a_supply_line_blocking() -> None:
    g = game(
        rows=["ccccgccc"] + ["cccccccc"] * 5,
        pieces=[division("f", "France", "0303"), division("g", "Germany", "0603")],
    )
    ez = zoc.zoc_map(g, CP)
    assert not supply.supply_enterable(g, EN, idx(g, "0603"), ez)  # enemy-occupied/owned
    assert not supply.supply_enterable(g, EN, idx(g, "0503"), ez)  # enemy ZOC, no friendly unit
    assert supply.supply_enterable(g, EN, idx(g, "0303"), ez)
    assert not supply.supply_enterable(g, EN, idx(g, "0501"), ez)  # glacier
    from grognard.core.state import Loc as L

    g.state.move("f", L.hex(idx(g, "0503")))
    assert supply.supply_enterable(
        g, EN, idx(g, "0503"), zoc.zoc_map(g, CP)
    )  # a friendly unit there


@pytest.mark.rules("OT 11C2a")
def test_ot_11c2a_regular_sources() -> None:
    g = game(**SOURCES, pieces=[division("f", "France", "0102")])
    assert supply.regular_sources(g, EN) == {idx(g, "0101"), idx(g, "0301")}
    assert supply.regular_sources(g, CP) == {idx(g, "0606"), idx(g, "0806")}
    g.state.control[idx(g, "0201")] = CP  # the rail link is cut
    g.invalidate()  # the state was changed by hand, not through an action
    assert supply.regular_sources(g, EN) == set()
    g.state.control[idx(g, "0201")] = EN
    zoc.on_ownership_change(g, idx(g, "0301"), EN, CP)  # once enemy-owned, never again a source
    g.state.control[idx(g, "0301")] = EN
    g.invalidate()
    assert supply.regular_sources(g, EN) == set()
    assert rail.rail_connected(g, EN, idx(g, "0101"), idx(g, "0301"))


@pytest.mark.rules("OT 11F1", "OT 11F2")
def test_ot_11f_movement_out_of_general_supply() -> None:
    g = game(
        pieces=[unit("tk", "tank", "France", "0101", m=6), division("d", "France", "0102")],
        turns=[("Sep I 14", {}), ("Sep II 14", {}), ("Oct I 14", {})],
    )
    P = g.state.pieces
    assert (
        supply.turns_out_of_supply(g, P["tk"]) == 1
    )  # no sources at all: out from the first check
    assert movement_allowance(g, P["tk"]) == 3 and movement_allowance(g, P["d"]) == 5
    end(g)
    run_to(g, "ground-movement", EN)
    assert supply.turns_out_of_supply(g, P["d"]) == 2
    assert (
        movement_allowance(g, P["d"]) == movement_allowance(g, P["d"], accel=True) / 2 == 5 / 2 * 1
    )


@pytest.mark.rules("OT 12A")
def test_ot_12a_support() -> None:
    g = game(
        pieces=[
            division("d", "France", "0101"),
            division("u", "France", "0102", support="unsupported"),
            unit("b", "rifle", "France", "0103", size="brigade"),
            unit("s", "rifle", "France", "0104", size="brigade", support="self"),
            unit("a", "field-artillery", "France", "0105"),
            unit("b2", "rifle", "France", "0105", size="brigade"),
            division("sd", "France", "0106", support="self"),
            unit("b3", "rifle", "France", "0106", size="brigade"),
        ]
    )
    P = g.state.pieces
    assert artillery.is_supported(g, P["d"]) and not artillery.is_supported(g, P["u"])
    assert not artillery.is_supported(g, P["b"]) and artillery.is_supported(g, P["s"])
    assert artillery.is_supported(g, P["b2"])  # artillery supports units with it
    assert not artillery.is_supported(g, P["b3"])  # a self-supported division supports only itself


def _moved(nation: str, typ: str, date: str) -> int:
    g = game(
        pieces=[unit("x", typ, nation, "0203"), division("f", "France", "0101")],
        turns=[(date, {})],
        nations={"France": EN, "Germany": CP, "Britain": EN, "Austria-Hungary": CP},
    )
    side = g.state.pieces["x"].side
    if side == CP:
        run_to(g, "ground-movement", CP)
        g.state.move("x", Loc.hex(idx(g, "0603")))
        move(g, "x", "0604")
    else:
        move(g, "x", "0204")
    end(g)
    return units.disruption(g.state.pieces["x"])


@pytest.mark.rules("OT 12B2", "OT 12B3", "OT 12B4")
def test_ot_12b_artillery_disrupted_after_moving() -> None:
    assert _moved("France", "heavy-artillery", "Jan II 17") == 1
    assert _moved("France", "heavy-artillery", "Feb I 17") == 0
    assert _moved("Germany", "heavy-artillery", "Sep I 14") == 0
    assert _moved("France", "siege-artillery", "Feb I 18") == 1
    assert _moved("France", "heavy-siege-artillery", "Jan II 17") == 2
    assert _moved("France", "heavy-siege-artillery", "Feb I 17") == 1
    assert _moved("Germany", "heavy-siege-artillery", "Sep I 14") == 1
    assert _moved("France", "field-artillery", "Sep I 14") == 0


@pytest.mark.rules("OT 14B1")
def test_ot_14b1_rail_only_units() -> None:
    nets = [{"name": "r", "kind": "rail", "paths": [["0101", "0201", "0301", "0401"]]}]
    g = game(
        networks=nets,
        places=[("0101", "partial-city", "A")],
        pieces=[unit("ro", "rifle", "France", "0101", m="R")],
        rules='[[rules.rail_nets]]\nname = "N"\ncapacity = { Entente = 0 }',
    )
    with pytest.raises(IllegalAction):
        move(g, "ro", "0102")
    with pytest.raises(IllegalAction) as e:
        g.apply(
            {
                "type": "rail-move",
                "side": EN,
                "piece": "ro",
                "kind": "operational",
                "path": ["0201"],
            }
        )
    assert e.value.rule == "OT 14B1"
    g.apply(
        {
            "type": "rail-move",
            "side": EN,
            "piece": "ro",
            "kind": "strategic",
            "path": ["0201", "0301"],
        }
    )
    assert rail.ledger(g, "N", EN)["used"] == 0  # rail-only units use no capacity


@pytest.mark.rules("OT 14B2", "OT 14C2", "OT 14O2a")
def test_ot_14_units_that_may_not_accelerate() -> None:
    tank = unit(
        "tk",
        "tank",
        "France",
        "0101",
        m=6,
        faces={
            "front": {"attack": 2, "defense": 2, "move": 6},
            "disabled": {"attack": 0, "defense": 0, "move": 0},
        },
    )
    g = game(
        pieces=[
            tank,
            unit("mt", "motorized-transport", "France", "0102", a=0, d=0, m=8),
            unit("wo", "gunboat", "France", "0103", m="W"),
            unit("mt2", "motorized-transport", "France", "0104", a=0, d=0, m=8),
        ],
        turns=[("Jan II 17", {}), ("Feb I 17", {})],
    )
    with pytest.raises(IllegalAction) as e:
        move(g, "tk", "0201", accel=True)
    assert e.value.rule == "OT 14C2"
    with pytest.raises(IllegalAction) as e:
        move(g, "mt", "0202", accel=True)
    assert e.value.rule == "OT 14O2a"
    assert special_units.accel_forbidden(g, g.state.pieces["wo"])[0] == "OT 14B2"
    ctx = movement.context(g, EN, "movement")
    assert movement.zoc_exit_cost(ctx, g.state.pieces["wo"], idx(g, "0103")) == 0
    g.state.turn = {"index": 2, "label": "Feb I 17"}
    assert special_units.accel_forbidden(g, g.state.pieces["mt2"]) is None


@pytest.mark.rules("OT 14C4")
def test_ot_14c4_fast_cm() -> None:
    g = game(
        pieces=[
            unit("ac", "armored-car", "France", "0101", m=8),
            unit("tk", "tank", "France", "0102", m=5),
            division("g", "Germany", "0201"),
        ]
    )
    P = g.state.pieces
    assert special_units.is_fast_cm(P["ac"]) and not special_units.is_fast_cm(P["tk"])
    ctx = movement.context(g, EN, "movement")
    h = idx(g, "0101")
    assert movement.zoc_exit_cost(ctx, P["ac"], h) == 1  # the cavalry's reduced ZOC cost


@pytest.mark.rules("OT 14G")
def test_ot_14g_ski_units_by_nationality() -> None:
    g = game(
        nations={"France": EN, "Germany": CP, "Austria-Hungary": CP},
        pieces=[
            unit("s1", "ski", "Austria-Hungary", "0801"),
            unit("s2", "ski", "France", "0101"),
            unit("s3", "ski", "Germany", "0802", contingent="Bavarian"),
            unit("s4", "ski", "Germany", "0803", contingent="Prussian"),
        ],
    )
    fam = {
        pid: special_units.ski_family(g, g.state.pieces[pid]) for pid in ("s1", "s2", "s3", "s4")
    }
    assert fam == {"s1": "mountain", "s2": "light", "s3": "mountain", "s4": "light"}
    assert "over-snow" in special_units.movement_tags(g, g.state.pieces["s2"])


@pytest.mark.rules("OT 14H")
def test_ot_14h_infantry_units() -> None:
    def mk(typ: str, m: int, size: str = "regiment", d: int = 2) -> Piece:
        return Piece(
            "x",
            typ,
            EN,
            "France",
            "front",
            attrs={"size": size},
            faces={"front": {"attack": 1, "defense": d, "move": m}},
        )

    g = game(turns=[("Jan II 19", {}), ("Feb I 19", {}), ("Apr I 19", {}), ("Jun I 19", {})])
    assert special_units.is_infantry(g, mk("infantry", 5))
    assert special_units.is_infantry(g, mk("rifle", 8))
    assert special_units.is_infantry(g, mk("assault-engineer", 6))
    assert not special_units.is_infantry(g, mk("flamethrower", 6))
    assert not special_units.is_infantry(g, mk("mounted-rifle", 7))
    g.state.turn = {"index": 2, "label": "Feb I 19"}
    assert special_units.is_infantry(g, mk("mounted-rifle", 7)) and not special_units.is_infantry(
        g, mk("light-rifle", 6)
    )
    g.state.turn = {"index": 3, "label": "Apr I 19"}
    assert special_units.is_infantry(g, mk("light-rifle", 6))
    g.state.turn = {"index": 4, "label": "Jun I 19"}
    assert special_units.is_infantry(
        g, mk("rifle", 5, "division", 12)
    ) and not special_units.is_infantry(g, mk("rifle", 5, "division", 11))
    assert special_units.is_infantry(g, mk("rifle", 5, "brigade", 5))


@pytest.mark.rules("OT 14M1")
def test_ot_14m1_zone_of_influence() -> None:
    g = game(
        nations={"France": EN, "Britain": EN, "Germany": CP, "Austria-Hungary": CP},
        pieces=[
            army_hq("fr", "France", "0303"),
            division("fd", "France", "0305"),
            division("bd", "Britain", "0304"),
            division("far", "France", "0101"),
            army_hq("de", "Germany", "0703"),
            division("ah", "Austria-Hungary", "0704"),
        ],
    )
    P = g.state.pieces
    assert len(special_units.zoi_hexes(g, P["fr"])) == 19
    assert special_units.in_zoi(g, P["fr"], P["fd"])
    assert not special_units.in_zoi(g, P["fr"], P["bd"])  # other nationality
    assert not special_units.in_zoi(g, P["fr"], P["far"])  # too far
    assert special_units.in_zoi(g, P["de"], P["ah"])  # a German HQs covers all Central Powers units
    special_units.set_hq_active(g, P["fr"], False)
    assert special_units.zoi_hexes(g, P["fr"]) == set()


@pytest.mark.rules("OT 14M2")
def test_ot_14m2_disrupted_hq_check() -> None:
    g = game(
        pieces=[division("f", "France", "0203"), army_hq("hq", "Germany", "0703")],
        rules="hq_activation_modifiers = { Germany = 1 }",
    )
    units.disrupt(g, g.state.pieces["hq"])
    run_to(g, "reaction-movement")
    force_dice(g, [3])  # 3 + 1 (nation) - 1 (disrupted) = 3: failure
    g.apply({"type": "check-hq", "side": CP, "hq": "hq"})
    assert g.state.pieces["hq"].face == "inactive"
    roll = [ev for ev in g.state.log if ev["type"] == "roll"][-1]
    assert roll["data"]["modified"] == 3


@pytest.mark.rules("OT 15A4")
def test_ot_15a4_unfordable_major_river_disrupts() -> None:
    road = {"name": "rd", "kind": "road", "paths": [["0103", "0203"]]}
    g = game(
        hexsides=[("major-river-unfordable", ["0101/0201", "0103/0203"])],
        networks=[road],
        pieces=[division("a", "France", "0101"), division("b", "France", "0103")],
    )
    move(g, "a", "0201")
    assert units.disruption(g.state.pieces["a"]) == 1
    move(g, "b", "0203")  # at a bridge
    assert units.disruption(g.state.pieces["b"]) == 0
    assert movement.spent(frame(g), g.state.pieces["b"]) == 1
