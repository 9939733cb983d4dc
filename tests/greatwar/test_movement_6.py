"""Rule 6: movement -- costs, the one-hex move, ZOC costs, accelerated movement, fatigue, reserve
commitment, reaction and exploitation movement."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.map import terrain, zoc
from grognard.rulesets.greatwar.movement import movement
from grognard.rulesets.greatwar.movement.movement import (
    fatigue_hits_for,
    fraction_for,
    movement_allowance,
)
from grognard.rulesets.greatwar.units import units

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
    step_name,
    unit,
)


def spent(g, pid):
    return movement.spent(frame(g), g.state.pieces[pid])


# ============================================================================ OT 6 costs
@pytest.mark.rules("OT 6")
def test_ot_6_mountain_hex_costs_by_cost_set() -> None:
    """OT-G-16: entering a mountain hex in clear weather: c/m or artillery 6, mountain unit 2,
    others 3."""
    g = game(
        rows=["cmc"],
        pieces=[
            unit("tk", "tank", "France", "0101"),
            unit("art", "field-artillery", "France", "0101"),
            unit("mtn", "mountain-rifle", "France", "0101"),
            unit("r", "rifle", "France", "0101"),
        ],
    )
    m = idx(g, "0201")
    P = g.state.pieces
    assert terrain.hex_entry_cost(g, P["tk"], m) == 6
    assert terrain.hex_entry_cost(g, P["art"], m) == 6
    assert terrain.hex_entry_cost(g, P["mtn"], m) == 2
    assert terrain.hex_entry_cost(g, P["r"], m) == 3


@pytest.mark.rules("OT 6")
def test_ot_6_river_hexside_adds_two() -> None:
    """OT-G-17: crossing an unfrozen river into a hex costs the hex cost + 2; frozen: no extra."""
    g = game(
        pieces=[division("d", "France", "0203")],
        hexsides=[("river", ["0203/0303"])],
        turns=[("Sep I 14", {}), ("Jan I 15", {"weather": "winter", "frozen": True})],
    )
    move(g, "d", "0303")
    assert spent(g, "d") == 3
    end(g)
    run_to(g, "ground-movement", EN)
    assert g.turn_label() == "Jan I 15"
    move(g, "d", "0203")
    assert spent(g, "d") == 1


@pytest.mark.rules("OT 6")
def test_ot_6_one_hex_move_spends_everything_and_ignores_zoc_costs() -> None:
    """OT-G-18: a unit with MA 3 may enter an adjacent hex costing 6, even out of an enemy ZOC."""
    g = game(
        rows=["cccccccc", "cccmcccc", "cccccccc"],
        pieces=[
            unit("a", "field-artillery", "France", "0301", a=2, d=3, m=3),
            division("g", "Germany", "0401"),
        ],
    )
    assert zoc.zoc_map(g, CP).get(idx(g, "0301"))
    with pytest.raises(IllegalAction):
        move(g, "a", "0302", "0402")  # more than one hex: not the one-hex move
    move(g, "a", "0302")
    assert spent(g, "a") == 3
    with pytest.raises(IllegalAction):
        move(g, "a", "0303")
    assert not movement.min_move_allowed(g, frame(g), g.state.pieces["a"])


@pytest.mark.rules("OT 6")
def test_ot_6_entry_rules() -> None:
    g = game(
        rows=["ccgccccc"] + ["cccccccc"] * 5,
        pieces=[
            division("d", "France", "0203"),
            division("g", "Germany", "0303"),
            unit("zero", "rifle", "France", "0205", m=0),
            division("e", "France", "0102"),
            division("o", "France", "0406"),
        ],
    )
    with pytest.raises(IllegalAction) as e:
        move(g, "d", "0303")  # enemy-occupied and enemy-owned
    assert "enemy-occupied" in e.value.message
    with pytest.raises(IllegalAction):
        move(g, "zero", "0204")  # a unit with MA 0 cannot move
    with pytest.raises(IllegalAction):
        move(g, "e", "0201", "0301")  # glacier: prohibited
    g.state.control[idx(g, "0506")] = CP
    move(g, "o", "0506")  # an enemy-owned hex without enemy units may be entered
    assert units.hex_of(g, g.state.pieces["o"]) == idx(g, "0506")
    assert g.state.control[idx(g, "0506")] == EN


# ============================================================================ OT 6A
@pytest.mark.rules("OT 6A")
def test_ot_6a_leaving_an_enemy_zoc_costs_extra() -> None:
    g = game(
        pieces=[
            division("d", "France", "0403"),
            unit("cav", "mounted-rifle", "France", "0403", a=3, d=4, m=7, size="division"),
            division("g", "Germany", "0603"),
            unit("b", "rifle", "Germany", "0606", a=2, d=3, size="brigade"),
        ]
    )
    ctx = movement.context(g, EN, "movement")
    P = g.state.pieces
    h = idx(g, "0503")
    assert ctx.enemy_zoc[h] == zoc.FULL
    assert movement.zoc_exit_cost(ctx, P["d"], h) == 2
    assert movement.zoc_exit_cost(ctx, P["cav"], h) == 1  # cavalry pays the reduced cost
    red = idx(g, "0606")
    assert ctx.enemy_zoc.get(red) == zoc.REDUCED  # an unsupported brigade's ZOC is reduced
    assert (
        movement.zoc_exit_cost(ctx, P["d"], red) == 1
        and movement.zoc_exit_cost(ctx, P["cav"], red) == 0
    )
    move(g, "d", "0503")
    move(g, "d", "0403")  # leaving the ZOC hex: 1 + 2
    assert spent(g, "d") == 4


# ======================================================================= OT 6B accelerated movement
@pytest.mark.rules("OT 6B", "OT 6B3")
def test_ot_6b3_accel_doubles_the_printed_rating_and_drops_the_zoc() -> None:
    """OT-G-19: printed MA 5 becomes 10."""
    g = game(pieces=[division("d", "France", "0101"), division("e", "France", "0106")])
    P = g.state.pieces
    assert movement_allowance(g, P["d"], accel=True) == 10
    move(g, "d", "0201", "0301", "0401", "0501", "0601", accel=True)
    assert zoc.zoc_level(g, P["d"]) == zoc.NONE
    move(g, "d", "0701", "0801")
    assert spent(g, "d") == 7
    with pytest.raises(IllegalAction):
        g.apply({"type": "rest", "side": EN, "piece": "d", "mp": 1})
    move(g, "e", "0206")
    with pytest.raises(IllegalAction) as e:
        move(g, "e", "0306", accel=True)
    assert e.value.rule == "OT 6B"
    end(g)
    assert zoc.zoc_level(g, P["d"]) == zoc.FULL  # the ZOC comes back after the movement phase


@pytest.mark.rules("OT 6B1", "OT 6B2")
def test_ot_6b1_6b2_accel_terrain_by_road_quality() -> None:
    rows = ["cfcccc", "ccwccc", "ccfccc"]
    good = game(
        rows=rows,
        pieces=[division("d", "France", "0101"), division("d2", "France", "0102")],
        networks=[{"name": "r", "kind": "road", "paths": [["0102", "0202", "0203", "0303"]]}],
    )
    with pytest.raises(IllegalAction):
        move(good, "d", "0201", accel=True)  # forest: not in good-road areas
    move(good, "d2", "0202", "0302", accel=True)  # road, then woods: allowed with good roads
    move(good, "d2", "0202", "0203", "0303")  # forest, but along the road
    poor = game(
        rows=rows,
        rules='road_quality = "poor"',
        pieces=[
            division("d", "France", "0202"),
            unit("cav", "mounted-rifle", "France", "0202", a=3, d=4, m=7, size="division"),
        ],
    )
    with pytest.raises(IllegalAction):
        move(poor, "d", "0302", accel=True)  # woods: poor roads allow only clear and a few others
    move(poor, "cav", "0302", accel=True)  # cavalry use the good-road list everywhere
    assert terrain.road_quality(poor, idx(poor, "0101")) == "poor"


@pytest.mark.rules("OT 6B4")
def test_ot_6b4_fatigue_from_an_accelerated_move() -> None:
    """OT-G-20: a 1-2-5 brigade spends 8 MP by accel and ends next to an enemy unit: 2 hits;
    artillery,
    cavalry or an Army HQs would take 3; without the adjacency, none."""
    every = [f"{c:02d}{r:02d}" for c in range(1, 11) for r in range(1, 7)]
    g = game(
        pieces=[
            unit("b", "rifle", "France", "0101", a=1, d=2, m=5, size="brigade"),
            division("g", "Germany", "0903"),
            unit("far", "rifle", "France", "0106", a=1, d=2, m=5, size="brigade"),
        ],
        rows=["c" * 10] * 6,
        control={EN: [h for h in every if h != "0903"], CP: ["0903"]},
    )
    move(g, "b", "0201", "0301", "0401", "0501", "0601", "0701", "0801", "0802", accel=True)
    assert spent(g, "b") == 8
    move(g, "far", "0206", "0306", "0406", "0506", "0606", "0706", "0806", "0906", accel=True)
    end(g)
    assert g.state.pieces["b"].attrs.get("fatigue") == 2
    assert "fatigue" not in g.state.pieces["far"].attrs
    art = unit("x", "field-artillery", "France", None)
    from grognard.core.state import Piece

    pa = Piece("x", "field-artillery", EN, faces={"front": {"attack": 1, "defense": 2, "move": 5}})
    pc = Piece("y", "mounted-rifle", EN, faces={"front": {"attack": 1, "defense": 2, "move": 5}})
    assert fatigue_hits_for(pa, Fraction(8)) == 3 and fatigue_hits_for(pc, Fraction(8)) == 3
    assert art["type"] == "field-artillery"


@pytest.mark.rules("OT 6B4")
def test_ot_6b4_fatigue_shifts_combat_and_overrun_odds() -> None:
    """OT-G-21/22: attack with fatigue {1, 0, 0} against defenders {1, 3}: +2 - 1 = +1 (8:1 -> 9:1);
    with the attacker's Army HQs at 3 hits: -2 + 2 = 0."""
    from grognard.core.state import Piece

    def p(pid: str, hits: int) -> Piece:
        return Piece(pid, "rifle", EN, attrs={"fatigue": hits} if hits else {})

    att = [p("a1", 1), p("a2", 0), p("a3", 0)]
    dfn = [p("d1", 1), p("d2", 3)]
    assert 8 + movement.combat_fatigue_shift(att, dfn) == 9
    assert 8 + movement.combat_fatigue_shift(att, dfn, attacker_hq=p("hq", 3)) == 8


@pytest.mark.rules("OT 6B4")
def test_ot_6b4_resting_removes_fatigue() -> None:
    """OT-G-23: a rifle unit with 3 hits resting 2 MP keeps 1; artillery with 3 hits resting 2 MP
    keeps 2."""
    g = game(
        pieces=[
            division("r", "France", "0101", fatigue=3),
            unit("a", "field-artillery", "France", "0103", fatigue=3),
        ]
    )
    g.apply({"type": "rest", "side": EN, "piece": "r", "mp": 2})
    g.apply({"type": "rest", "side": EN, "piece": "a", "mp": 2})
    assert g.state.pieces["r"].attrs["fatigue"] == 1
    assert g.state.pieces["a"].attrs["fatigue"] == 2
    with pytest.raises(IllegalAction):
        g.apply(
            {"type": "move", "side": EN, "piece": "r", "to": "0201", "accel": True}
        )  # rested: no accel this phase


# ============================================================================ OT 6C
@pytest.mark.rules("OT 6C")
def test_ot_6c_reserve_movement_ratings() -> None:
    """OT-G-24: c/m MA 8 -> 8; cavalry MA 7 -> 3; light MA 5 -> 1; rifle MA 5 -> 1; artillery MA 4
    -> 0."""
    g = game(
        places=[("0101", "partial-city", "A"), ("0301", "partial-city", "B")],
        networks=[{"name": "r", "kind": "rail", "paths": [["0101", "0201", "0301"]]}],
        pieces=[
            unit("cm", "armored-car", "France", "0101", m=8),
            unit("cav", "mounted-rifle", "France", "0102", m=7),
            unit("lt", "light-rifle", "France", "0103", m=5),
            unit("r", "rifle", "France", "0104", m=5),
            unit("art", "field-artillery", "France", "0105", m=4),
            unit("mx", "mixed-mounted-rifle-and-rifle", "France", "0106", m=6),
        ],
    )
    P = g.state.pieces
    assert [movement_allowance(g, P[x], "reserve") for x in ("cm", "cav", "lt", "r", "art")] == [
        8,
        3,
        1,
        1,
        0,
    ]
    assert fraction_for(g, P["mx"], "reserve") == Fraction(1, 2)
    assert fraction_for(g, P["mx"], "exploitation") == Fraction(
        1, 5
    )  # rifle for exploitation (OT 14D3)


@pytest.mark.rules("OT 6C")
def test_ot_6c_reserve_commitment_step() -> None:
    g = game(
        pieces=[
            division("def", "France", "0303"),
            division("res", "France", "0301"),
            division("far", "France", "0101"),
            unit("lt", "light-rifle", "France", "0301", a=1, d=1, m=5, size="battalion"),
            division("att", "Germany", "0503"),
        ]
    )
    run_to(g, "combat-segment", CP)
    g.push("reserve-commitment", {"target": "0303", "side": EN, "attacker": CP})
    g._advance()
    assert step_name(g) == "reserve-commitment" and g.acting_sides() == [EN]
    offers = [a["from"] for a in g.legal_actions(EN) if a["type"] == "commit-reserves"]
    assert "0301" in offers and "0101" not in offers  # within 2 hexes only
    force_dice(
        g, [6, 1]
    )  # the battalion (light, id 'lt') and the division: sorted by id: 'lt' then 'res'
    g.apply({"type": "commit-reserves", "side": EN, "from": "0301"})
    ready = frame(g).params["ready"]
    assert ready == ["lt"]
    with pytest.raises(IllegalAction):
        g.apply({"type": "move", "side": EN, "piece": "res", "path": ["0302", "0303"]})
    # the light battalion has 5/3 -> 1 MP: enough for one clear hex but not two
    with pytest.raises(IllegalAction):
        g.apply({"type": "move", "side": EN, "piece": "lt", "path": ["0302", "0303"]})
    assert movement_allowance(g, g.state.pieces["lt"], "reserve") == 1
    g2 = game(
        pieces=[
            division("def", "France", "0303"),
            division("res", "France", "0302"),
            division("att", "Germany", "0503"),
        ]
    )
    run_to(g2, "combat-segment", CP)
    g2.push("reserve-commitment", {"target": "0303", "side": EN, "attacker": CP})
    g2._advance()
    force_dice(g2, [2])  # 2 + 2 (adjacent to the attacked hex) = 4: success
    g2.apply({"type": "commit-reserves", "side": EN, "from": "0302"})
    assert frame(g2).params["ready"] == ["res"]
    g2.apply({"type": "move", "side": EN, "piece": "res", "path": ["0303"]})
    assert units.hex_of(g2, g2.state.pieces["res"]) == idx(g2, "0303")
    assert units.disruption(g2.state.pieces["res"]) == 1
    g2.apply({"type": "done", "side": EN})
    assert step_name(g2) == "combat-segment"


# ============================================================================ OT 6D, 6E
@pytest.mark.rules("OT 6D")
def test_ot_6d_reaction_movement_in_an_active_hq_zoi() -> None:
    g = game(
        pieces=[
            division("f", "France", "0203"),
            army_hq("hq", "Germany", "0703"),
            division("near", "Germany", "0704"),
            division("far", "Germany", "0801"),
        ],
        rows=["c" * 10] * 6,
        cols=10,
    )
    g.state.pieces["far"].loc = Loc.hex(idx(g, "1006"))
    run_to(g, "reaction-movement")
    force_dice(g, [5])
    g.apply({"type": "check-hq", "side": CP, "hq": "hq"})
    assert frame(g).params["eligible"] == ["near"]
    with pytest.raises(IllegalAction):
        move(g, "far", "1005")
    with pytest.raises(IllegalAction):
        move(g, "hq", "0702")  # Army HQs do not move in reaction movement
    move(g, "near", "0604")
    assert units.hex_of(g, g.state.pieces["near"]) == idx(g, "0604")


@pytest.mark.rules("OT 6D", "OT 14M1")
def test_ot_6d_failed_check_and_one_move_per_phase() -> None:
    g = game(
        pieces=[
            division("f", "France", "0203"),
            army_hq("a", "Germany", "0703"),
            army_hq("b", "Germany", "0705"),
            division("n", "Germany", "0704"),
        ]
    )
    run_to(g, "reaction-movement")
    force_dice(g, [2])
    g.apply({"type": "check-hq", "side": CP, "hq": "a"})
    assert g.state.pieces["a"].face == "inactive" and frame(g).params["eligible"] == []
    force_dice(g, [6])
    g.apply({"type": "check-hq", "side": CP, "hq": "b"})
    assert frame(g).params["eligible"] == ["n"]
    move(g, "n", "0604")


@pytest.mark.rules("OT 6E")
def test_ot_6e_exploitation_ratings_and_strategic_rail_units() -> None:
    net = {"name": "r", "kind": "rail", "paths": [["0101", "0201", "0301", "0401"]]}
    g = game(
        pieces=[
            unit("cav", "mounted-rifle", "France", "0103", a=3, d=4, m=7, size="division"),
            division("d", "France", "0105"),
            division("s", "France", "0101"),
        ],
        networks=[net],
        places=[("0101", "partial-city", "A"), ("0401", "partial-city", "B")],
    )
    g.apply(
        {
            "type": "rail-move",
            "side": EN,
            "piece": "s",
            "kind": "strategic",
            "path": ["0201", "0301"],
        }
    )
    run_to(g, "exploitation-movement", EN)
    f = frame(g)
    assert movement.remaining(g, f, g.state.pieces["cav"]) == 3
    assert movement.remaining(g, f, g.state.pieces["d"]) == 1
    with pytest.raises(IllegalAction) as e:
        move(g, "s", "0302")
    assert "strategic" in e.value.message
    move(g, "d", "0205")
    g2 = game(
        pieces=[division("d", "France", "0105")], options={"exploitation-eligibility": "listed-4A6"}
    )
    run_to(g2, "exploitation-movement", EN)
    with pytest.raises(IllegalAction) as e:
        move(g2, "d", "0205")
    assert e.value.rule == "OT 4A6"


def test_reachable_lists_hexes_and_costs() -> None:
    g = game(
        rows=["cccccc", "cccmcc", "cccccc"],
        pieces=[division("d", "France", "0202"), division("g", "Germany", "0502")],
    )
    r = movement.reachable(g, ["d"])
    assert r[idx(g, "0302")] == 1
    assert idx(g, "0502") not in r
    assert all(c <= 5 for c in r.values())
    run_to(g, "bombardment-segment")
    assert movement.reachable(g, ["d"]) == {}
