"""OT 7C: navigable inland waterways and river movement."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.greatwar.movement import movement, rivers
from grognard.rulesets.greatwar.units import units

from .helpers import CP, EN, division, frame, game, idx, unit

ROWS10 = ["c" * 12] * 10


def chain(g, n: int) -> list[str]:
    """The first n hexsides of the river between columns 6 and 7, from the north."""
    out = []
    for r in range(1, 11):
        a = f"06{r:02d}"
        for b in (f"07{r:02d}", f"07{r + 1:02d}"):
            if g.board.has_label(b) and idx(g, b) in g.board.neighbors(idx(g, a)):
                out.append(f"{a}/{b}")
    return out[:n]


def river_sides() -> list[str]:
    out = []
    for r in range(1, 11):
        out += [f"06{r:02d}/07{r:02d}", f"06{r:02d}/07{r + 1:02d}"]
    return [s for s in out if not s.endswith("0711")]


def rgame(**kw):
    kw.setdefault("rows", ROWS10)
    kw.setdefault("hexsides", [("river", river_sides())])
    kw.setdefault("places", [("0601", "partial-city", "Pavia")])
    kw.setdefault("options", {"navigable-waterways": True})
    return game(**kw)


@pytest.mark.rules("OT 7C", "OT 7C2", "OT 7C5")
def test_ot_7c2_river_movement_example() -> None:
    """OT-G-40: a 1-2-5 rifle regiment travels 16 waterway hexsides for 2 MP and is placed in either
    hex."""
    g = rgame(pieces=[unit("reg", "rifle", "France", "0601", a=1, d=2, m=5)])
    sides = chain(g, 16)
    last = sides[-1].split("/")
    dest = last[0]
    g.apply({"type": "river-move", "side": EN, "piece": "reg", "hexsides": sides, "to": dest})
    assert units.hex_of(g, g.state.pieces["reg"]) == idx(g, dest)
    assert movement.spent(frame(g), g.state.pieces["reg"]) == 2
    assert any(ev["type"] == "river-move" for ev in g.state.log)


@pytest.mark.rules("OT 7C1")
def test_ot_7c1_what_is_navigable() -> None:
    g = rgame(
        rows=["c" * 12] * 4 + ["cccccmcccccc"] + ["c" * 12] * 5,
        turns=[("Sep I 14", {}), ("Jan I 15", {"frozen": True})],
    )
    s = g.board.side_between(idx(g, "0601"), idx(g, "0701"))
    assert rivers.navigable(g, s)
    s5 = g.board.side_between(idx(g, "0605"), idx(g, "0705"))
    assert not rivers.navigable(g, s5)  # next to a mountain hex: rapids
    g.state.turn = {"index": 2, "label": "Jan I 15"}
    assert not rivers.navigable(g, s)  # frozen
    ne = rgame(
        rules='map_scale = "non-european"',
        hexsides=[("river", river_sides()), ("navigable", river_sides()[:4])],
        options={},
    )
    assert rivers.in_use(ne)
    assert rivers.navigable(ne, ne.board.side_between(idx(ne, "0601"), idx(ne, "0701")))
    assert not rivers.navigable(ne, ne.board.side_between(idx(ne, "0605"), idx(ne, "0705")))


@pytest.mark.rules("OT 7C3")
def test_ot_7c3_restrictions() -> None:
    g = rgame(
        pieces=[
            unit("reg", "rifle", "France", "0601", a=1, d=2, m=5),
            unit("ca", "coast-artillery", "Germany", "0704", a=2, d=3),
        ]
    )
    sides = chain(g, 10)
    with pytest.raises(IllegalAction) as e:
        g.apply(
            {
                "type": "river-move",
                "side": EN,
                "piece": "reg",
                "hexsides": sides,
                "to": sides[-1].split("/")[0],
            }
        )
    assert e.value.rule == "OT 7C3"
    g2 = rgame(pieces=[unit("reg", "rifle", "France", "0603", a=1, d=2, m=5)], places=[])
    s2 = [x for x in chain(g2, 8) if x.startswith("0603") or x.startswith("0604")][:2]
    with pytest.raises(IllegalAction) as e:
        g2.apply({"type": "river-move", "side": EN, "piece": "reg", "hexsides": s2, "to": "0604"})
    assert "yard" in e.value.message
    g3 = rgame(
        pieces=[
            unit("reg", "rifle", "France", "0601", a=1, d=2, m=5),
            division("g", "Germany", "0703"),
        ]
    )
    s3 = chain(g3, 5)
    with pytest.raises(IllegalAction):
        g3.apply({"type": "river-move", "side": EN, "piece": "reg", "hexsides": s3, "to": "0703"})


@pytest.mark.rules("OT 7C4", "OT 7C6")
def test_ot_7c4_7c6_yards_nets_and_capacity() -> None:
    """OT-G-41: one connected waterway net whose only river yard gives it 1 RE of capacity."""
    g = rgame(
        places=[("0601", "partial-city", "Torino"), ("0301", "partial-city", "Dry")],
        pieces=[
            division("d", "France", "0601"),
            unit("reg", "rifle", "France", "0601", a=1, d=2, m=5),
        ],
    )
    s = g.board.side_between(idx(g, "0601"), idx(g, "0701"))
    net = rivers.waterway_net(g, s)
    assert len(net) == len(river_sides())
    assert rivers.is_river_yard(g, idx(g, "0601")) and not rivers.is_river_yard(g, idx(g, "0301"))
    assert rivers.river_capacity(g, EN, net) == 1 and rivers.river_capacity(g, CP, net) == 0
    with pytest.raises(IllegalAction) as e:  # a division needs 5 RE of capacity
        g.apply(
            {"type": "river-move", "side": EN, "piece": "d", "hexsides": chain(g, 3), "to": "0602"}
        )
    assert e.value.rule == "OT 7C5"
    g.apply(
        {"type": "river-move", "side": EN, "piece": "reg", "hexsides": chain(g, 3), "to": "0602"}
    )


def test_river_movement_is_optional_on_european_maps() -> None:
    g = rgame(options={}, pieces=[unit("reg", "rifle", "France", "0601", a=1, d=2, m=5)])
    with pytest.raises(IllegalAction) as e:
        g.apply(
            {
                "type": "river-move",
                "side": EN,
                "piece": "reg",
                "hexsides": chain(g, 2),
                "to": "0602",
            }
        )
    assert e.value.rule == "OT 7C"
    g2 = rgame(pieces=[unit("reg", "rifle", "France", "0601", a=1, d=2, m=5)])
    assert any(a["type"] == "river-move" for a in g2.legal_actions(EN))
