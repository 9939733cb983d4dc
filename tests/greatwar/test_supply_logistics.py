"""OT 11G Res Pts and OT 11H logistics items (Res Pts and GSPs): markers, capture, voluntary
elimination, rail and river movement alone, cartage, air/naval transport and combining."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.logistics import logistics
from grognard.rulesets.greatwar.map import zoc
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.movement import movement, rail, stacking
from grognard.rulesets.greatwar.units import units

from .helpers import CP, EN, army_hq, division, force_dice, frame, game, idx, unit

pytestmark = pytest.mark.rules("OT 11H")


def res(pid: str, at: str | None, nation: str = "France", **kw: object) -> dict:
    return unit(pid, "res-pt", nation, at, size="", faces={}, **kw)


def gsp(pid: str, at: str | None, nation: str = "France") -> dict:
    return unit(pid, "gsp", nation, at, size="", faces={})


@pytest.mark.rules("OT 11G")
def test_ot_11g_res_pt_markers_break_down() -> None:
    """OT-G-93: a 2-Res Pt marker becomes two 1-Res Pt markers; the hex total does not change."""
    g = game(pieces=[res("rp", "0101", amount=2), res("r3", "0101")])
    assert {p.id for p in logistics.res_pts(g, EN)} == {"rp", "rp#2", "r3"}
    assert logistics.res_pt_markers(g, EN) == {idx(g, "0101"): 3}
    assert units.re_size(g, g.state.pieces["rp#2"]) == 3


@pytest.mark.rules("OT 11H")
def test_ot_11h_items_are_not_units_and_ignore_stacking() -> None:
    g = game(pieces=[res("rp", "0101"), gsp("gs", "0101")])
    for pid in ("rp", "gs"):
        p = g.state.pieces[pid]
        assert not units.is_unit(p) and logistics.is_logistics_item(p) and stacking.exempt(g, p)
    assert units.re_size(g, g.state.pieces["gs"]) == Fraction(1, 4)
    assert zoc.zoc_level(g, g.state.pieces["rp"]) == "none"


@pytest.mark.rules("OT 11H")
def test_ot_11h_capture_roll_captures_or_eliminates() -> None:
    g = game(pieces=[res("r1", "0303"), res("r2", "0303")])
    force_dice(g, [6, 1])
    zoc.on_ownership_change(g, idx(g, "0303"), EN, CP)
    p1, p2 = g.state.pieces["r1"], g.state.pieces["r2"]
    assert p1.side == CP and p1.loc.kind == "hex"  # success: captured
    assert p2.loc == Loc.box("eliminated")  # failure: eliminated


@pytest.mark.rules("OT 11H")
def test_ot_11h_voluntary_elimination_only_in_own_phases() -> None:
    g = game(pieces=[res("rp", "0101"), division("d", "France", "0102")])
    assert frame(g).step == "ground-movement"
    assert logistics.may_eliminate_items_now(g, EN) and not logistics.may_eliminate_items_now(g, CP)
    acts = [a for a in g.legal_actions(EN) if a["type"] == "eliminate-item"]
    assert acts == [{"type": "eliminate-item", "side": EN, "item": "rp"}]
    g.apply(acts[0])
    assert g.state.pieces["rp"].loc == Loc.box("eliminated")
    gw(g)["phase"] = "initial"
    assert not logistics.may_eliminate_items_now(g, EN)


def rail_line(n: int, volume: str = "high", capacity: int = 20, pieces: list[dict] | None = None):
    path = [f"{c:02d}01" for c in range(1, n + 1)]
    rules = f'[[rules.rail_nets]]\nname = "N"\ncapacity = {{ Entente = {capacity} }}'
    places = [("0101", "partial-city", "A")]
    ctl = {EN: path + [f"{c:02d}02" for c in range(1, n + 1)], CP: []}
    return game(
        rows=["c" * n, "c" * n],
        places=places,
        networks=[{"name": "r", "kind": "rail", "paths": [path], "attrs": {"volume": volume}}],
        rules=rules,
        control=ctl,
        pieces=pieces or [],
    )


@pytest.mark.rules("OT 11H1", "OT 7A4")
def test_ot_11h1_items_move_alone_by_rail() -> None:
    g = rail_line(45, pieces=[res("rp", "0101"), gsp("gs", "0101")])
    far = [f"{c:02d}01" for c in range(2, 43)]
    with pytest.raises(IllegalAction) as e:
        g.apply(
            {"type": "item-rail-move", "side": EN, "item": "rp", "kind": "operational", "path": far}
        )
    assert e.value.rule == "OT 11H1"  # 41 hexes: more than 40 by operational rail
    g.apply(
        {
            "type": "item-rail-move",
            "side": EN,
            "item": "rp",
            "kind": "operational",
            "path": far[:40],
        }
    )
    assert units.hex_of(g, g.state.pieces["rp"]) == idx(g, "4101")
    assert rail.ledger(g, "N", EN)["used"] == 3  # a Res Pt is 3 RE of capacity
    g.apply({"type": "item-rail-move", "side": EN, "item": "gs", "kind": "strategic", "path": far})
    assert rail.ledger(g, "N", EN)["used"] == Fraction(13, 4)
    with pytest.raises(IllegalAction) as e:
        g.apply(
            {
                "type": "item-rail-move",
                "side": EN,
                "item": "rp",
                "kind": "operational",
                "path": ["4201"],
            }
        )
    assert e.value.rule == "OT 11H4"  # one operational rail move per phase


@pytest.mark.rules("OT 11H1", "OT 7A4")
def test_ot_11h1_low_volume_doubles_and_capacity_limits() -> None:
    g = rail_line(6, volume="low", capacity=5, pieces=[res("rp", "0101"), res("r2", "0101")])
    with pytest.raises(IllegalAction) as e:
        g.apply(
            {
                "type": "item-rail-move",
                "side": EN,
                "item": "rp",
                "kind": "operational",
                "path": ["0201", "0301"],
            }
        )
    assert e.value.rule == "OT 7A4"  # 6 RE on a low-volume line, 5 available


ROWS10 = ["c" * 12] * 10


def river_sides() -> list[str]:
    out = []
    for r in range(1, 11):
        out += [f"06{r:02d}/07{r:02d}", f"06{r:02d}/07{r + 1:02d}"]
    return [s for s in out if not s.endswith("0711")]


def chain(g, n: int) -> list[str]:
    out = []
    for r in range(1, 11):
        a = f"06{r:02d}"
        for b in (f"07{r:02d}", f"07{r + 1:02d}"):
            if g.board.has_label(b) and idx(g, b) in g.board.neighbors(idx(g, a)):
                out.append(f"{a}/{b}")
    return out[:n]


@pytest.mark.rules("OT 11H1", "OT 7C5")
def test_ot_11h1_items_move_alone_by_river() -> None:
    g = game(
        rows=ROWS10,
        hexsides=[("river", river_sides())],
        places=[("0601", "partial-city", "Pavia")],
        options={"navigable-waterways": True},
        pieces=[gsp("gs", "0601"), res("rp", "0601")],
    )
    sides = chain(g, 16)
    dest = sides[-1].split("/")[0]
    with pytest.raises(IllegalAction) as e:
        g.apply(
            {"type": "item-river-move", "side": EN, "item": "rp", "hexsides": sides, "to": dest}
        )
    assert e.value.rule == "OT 7C5"  # 3 RE: more than the 1 RE of the net's only river yard
    g.apply({"type": "item-river-move", "side": EN, "item": "gs", "hexsides": sides, "to": dest})
    assert units.hex_of(g, g.state.pieces["gs"]) == idx(g, dest)
    with pytest.raises(IllegalAction):
        g.apply(
            {
                "type": "item-river-move",
                "side": EN,
                "item": "rp",
                "hexsides": chain(g, 41),
                "to": dest,
            }
        )


@pytest.mark.rules("OT 11H2")
def test_ot_11h2_cartage_limits_and_mp_deductions() -> None:
    """OT-G-94/95: a 2-RE brigade (MA 5) carrying 8 GSPs has MA 4, 12 GSPs MA 3, accelerated (5-2)x2
    = 6;
    a regiment may not carry 9 GSPs (2 1/4 RE > twice its 1 RE)."""
    gs = [gsp(f"g{k}", "0101") for k in range(12)]
    g = game(
        pieces=[
            unit("b", "rifle", "France", "0101", size="brigade"),
            unit("r", "rifle", "France", "0101"),
            *gs,
        ]
    )
    b = g.state.pieces["b"]
    g.apply({"type": "pick-up", "side": EN, "carrier": "b", "items": [f"g{k}" for k in range(8)]})
    assert logistics.cartage_deduction(g, b) == 1 and movement.movement_allowance(g, b) == 4
    g.apply(
        {"type": "pick-up", "side": EN, "carrier": "b", "items": [f"g{k}" for k in range(8, 12)]}
    )
    assert (
        movement.movement_allowance(g, b) == 3
        and movement.movement_allowance(g, b, accel=True) == 6
    )
    with pytest.raises(IllegalAction) as e:
        logistics.check_pick_up(
            g, frame(g), {"type": "pick-up", "side": EN, "carrier": "r", "items": ["g0"]}
        )
    g.apply({"type": "drop", "side": EN, "carrier": "b", "items": [f"g{k}" for k in range(9)]})
    with pytest.raises(IllegalAction) as e:
        g.apply(
            {"type": "pick-up", "side": EN, "carrier": "r", "items": [f"g{k}" for k in range(9)]}
        )
    assert e.value.rule in ("OT 11H2", "OT 11H4")
    assert (
        logistics.cartage_problem(
            g, g.state.pieces["r"], [g.state.pieces[f"g{k}"] for k in range(9)]
        )
        is not None
    )
    assert (
        logistics.cartage_problem(
            g, g.state.pieces["r"], [g.state.pieces[f"g{k}"] for k in range(8)]
        )
        is None
    )


@pytest.mark.rules("OT 11H2")
def test_ot_11h2_army_hq_transport_and_one_divisional_res_pt() -> None:
    g = game(
        pieces=[
            army_hq("hq", "France", "0101"),
            unit("mt", "motorized-transport", "France", "0101", a=0, d=0, m=8),
            division("d1", "France", "0102"),
            division("d2", "France", "0102"),
            res("r1", "0101"),
            res("r2", "0101"),
            res("r3", "0101"),
            res("r4", "0101"),
            res("r5", "0102"),
            res("r6", "0102"),
        ]
    )
    P = g.state.pieces
    rps = [P[f"r{k}"] for k in range(1, 5)]
    assert logistics.cartage_problem(g, P["hq"], rps[:3]) is None  # 9 RE
    assert logistics.cartage_problem(g, P["hq"], rps) is not None  # 12 RE
    assert (
        logistics.cartage_problem(g, P["mt"], rps[:2]) is None
        and logistics.cartage_problem(g, P["mt"], rps[:3]) is not None
    )
    assert logistics.cartage_deduction(g, P["hq"]) == 0
    g.apply({"type": "pick-up", "side": EN, "carrier": "d1", "items": ["r5"]})
    assert (
        logistics.cartage_deduction(g, P["d1"]) == 3
        and movement.movement_allowance(g, P["d1"]) == 2
    )
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "pick-up", "side": EN, "carrier": "d2", "items": ["r6"]})
    assert "already carries a Res Pt" in str(e.value)
    g.apply({"type": "move", "side": EN, "piece": "d1", "path": ["0103"]})
    assert units.hex_of(g, P["r5"]) == idx(g, "0103")  # carried along
    g.apply({"type": "drop", "side": EN, "carrier": "d1", "items": ["r5"]})
    assert P["r5"].loc == Loc.hex(idx(g, "0103"))


@pytest.mark.rules("OT 11H3", "OT 11H4")
def test_ot_11h3_air_and_naval_transport_and_combining() -> None:
    g = game(pieces=[gsp("gs", "0101"), unit("b", "rifle", "France", "0101", size="brigade")])
    f = frame(g)
    item = g.state.pieces["gs"]
    logistics.record_transport(g, f, item, "naval")
    with pytest.raises(IllegalAction) as e:
        logistics.record_transport(g, f, item, "naval")
    assert e.value.rule == "OT 11H4"
    with pytest.raises(IllegalAction) as e:
        logistics.record_transport(g, f, item, "air")
    assert e.value.rule in ("OT 11H3", "OT 11H4")
    g.apply({"type": "pick-up", "side": EN, "carrier": "b", "items": ["gs"]})
    assert logistics.combine_ok(f, item, "cart") is not None  # carted once already
    assert logistics.combine_ok(f, item, "operational") is None  # rail is still open
    assert (
        logistics.combine_ok(f, item, "strategic") is not None
    )  # strategic rail only for an item that has not moved
    g2 = game(pieces=[gsp("gs", "0101")], options={"advanced-air": True})
    logistics.record_transport(g2, frame(g2), g2.state.pieces["gs"], "air")
