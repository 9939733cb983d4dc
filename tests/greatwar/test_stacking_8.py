"""Rule 8: stacking."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.movement import movement, stacking
from grognard.rulesets.greatwar.units import units

from .helpers import CP, EN, army_hq, division, end, frame, game, idx, move, unit

ZONES = [
    {"name": "F", "kind": "weather-zone", "hexes": ["0801", "0802"]},
    {"name": "A", "kind": "weather-zone", "hexes": ["0806"]},
]


def stack(g, specs, at):
    return [g.state.pieces[p["id"]] for p in specs]


def mk(kind: str, n: int, at: str, nation: str = "France") -> list[dict]:
    tbl = {
        "div": lambda k: division(f"div{at}{k}", nation, at),
        "reg": lambda k: unit(f"reg{at}{k}", "rifle", nation, at, size="regiment"),
        "brig": lambda k: unit(f"brig{at}{k}", "rifle", nation, at, size="brigade"),
        "artreg": lambda k: unit(f"art{at}{k}", "field-artillery", nation, at, size="regiment"),
        "artdiv": lambda k: unit(
            f"artdiv{at}{k}", "artillery-division", nation, at, size="division"
        ),
        "fortreg": lambda k: unit(f"fort{at}{k}", "fortress", nation, at, size="regiment"),
        "fortbrig": lambda k: unit(f"fortb{at}{k}", "fortress", nation, at, size="brigade"),
        "fortdiv": lambda k: unit(f"fortd{at}{k}", "fortress", nation, at, size="division"),
        "cadre": lambda k: unit(f"cad{at}{k}", "rifle", nation, at, size="cadre"),
        "rem": lambda k: unit(f"rem{at}{k}", "rifle", nation, at, size="remnant"),
        "bn": lambda k: unit(f"bn{at}{k}", "rifle", nation, at, size="battalion"),
    }
    return [tbl[kind](k) for k in range(n)]


def hexstack(g, at):
    return units.units_in_hex(g, idx(g, at))


@pytest.mark.rules("OT 8A1")
def test_ot_8a1_worked_stacks_are_legal() -> None:
    """OT-G-42: the three stacks of the rulebook's example fit a regular hex."""
    a = (
        mk("div", 6, "0101")
        + mk("reg", 6, "0101")
        + mk("artreg", 4, "0101")
        + mk("fortbrig", 1, "0101")
    )
    b = (
        mk("div", 5, "0103")
        + mk("brig", 3, "0103")
        + mk("artdiv", 1, "0103")
        + mk("artreg", 4, "0103")
        + mk("fortreg", 1, "0103")
    )
    c = (
        mk("cadre", 4, "0105")
        + mk("brig", 2, "0105")
        + mk("reg", 2, "0105")
        + mk("rem", 4, "0105")
        + mk("bn", 4, "0105")
        + mk("artdiv", 2, "0105")
        + mk("fortdiv", 1, "0105")
    )
    g = game(pieces=[*a, *b, *c])
    for at in ("0101", "0103", "0105"):
        assert stacking.fits(g, hexstack(g, at), stacking.limit_for(g, idx(g, at))), at
    assert stacking.violations(g) == []


@pytest.mark.rules("OT 8A1")
def test_ot_8a1_seven_divisions_do_not_fit() -> None:
    """OT-G-43: seven divisions exceed the six unit slots (divisions cannot use the non-divisional
    pool)."""
    g = game(pieces=[*mk("div", 6, "0101"), division("x", "France", "0102")])
    with pytest.raises(IllegalAction) as e:
        move(g, "x", "0101")
    assert e.value.rule == "OT 8B"
    assert not stacking.fits(
        g, [*hexstack(g, "0101"), g.state.pieces["x"]], stacking.limit_for(g, idx(g, "0101"))
    )
    # a seventh unit fits if it is non-divisional and the pool has room
    assert stacking.fits(
        g, [*hexstack(g, "0101"), *mk_pieces(g)], stacking.limit_for(g, idx(g, "0101"))
    )


def mk_pieces(g):
    from grognard.core.state import Piece

    return [
        Piece(
            "extra",
            "rifle",
            EN,
            "France",
            "front",
            attrs={"size": "brigade"},
            faces={"front": {"attack": 1, "defense": 2, "move": 5}},
        )
    ]


@pytest.mark.rules("OT 8A2", "OT 8A3")
def test_ot_8a2_8a3_mountain_and_arctic_desert_limits() -> None:
    g = game(
        rows=["cccccccc", "cmcccccc", "cccccccc", "cccccccc", "cccccccc", "cccccccc"], areas=ZONES
    )
    assert stacking.limit_for(g, idx(g, "0202")).name == "mountain"
    assert stacking.limit_for(g, idx(g, "0801")).name == "arctic-desert"
    assert stacking.limit_for(g, idx(g, "0806")).name == "arctic-desert"
    assert stacking.limit_for(g, idx(g, "0101")).name == "regular"
    lim = stacking.limit_for(g, idx(g, "0202"))
    assert (lim.units, lim.non_divisional_re, lim.fortress) == (4, 4, 1)
    lim = stacking.limit_for(g, idx(g, "0801"))
    assert (lim.units, lim.non_divisional_re, lim.artillery, lim.fortress) == (2, 2, ((0, 1),), 1)


@pytest.mark.rules("OT 8A4", "OT 14B")
def test_ot_8a4_exempt_units() -> None:
    pieces = [
        *mk("div", 6, "0101"),
        army_hq("hq", "France", "0101"),
        unit("c", "corps-hq", "France", "0101", a=0, d=0, m=8, size="corps"),
        unit("tr", "motorized-transport", "France", "0101", a=0, d=0, m=6),
        unit("ro", "rifle", "France", "0101", m="R"),
        unit("wo", "rifle", "France", "0101", m="W"),
        unit("zm", "rifle", "France", "0101", m=0),
        unit("rp", "res-pt", "France", "0101", size=""),
    ]
    g = game(pieces=pieces)
    assert stacking.fits(g, hexstack(g, "0101"), stacking.limit_for(g, idx(g, "0101")))
    for pid in ("hq", "c", "tr", "ro", "wo", "zm", "rp"):
        assert stacking.exempt(g, g.state.pieces[pid]), pid
    g2 = game(pieces=pieces, options={"zero-movement-stacking-exempt": False})
    assert not stacking.exempt(g2, g2.state.pieces["zm"])


@pytest.mark.rules("OT 8B")
def test_ot_8b_attack_caps_by_target_limit() -> None:
    """OT-G-44/45: attacking a mountain hex, each hex sends at most the mountain limit; attacking a
    Desert hex, at most the Arctic/Desert limit."""
    g = game(
        rows=["cccccccc", "cmcccccc", "cccccccc", "cccccccc", "cccccccc", "cccccccc"],
        areas=ZONES,
        pieces=mk("div", 5, "0101") + mk("div", 3, "0104"),
    )
    five = hexstack(g, "0101")
    assert not stacking.attack_stack_ok(g, five, idx(g, "0202"))
    assert stacking.attack_stack_ok(g, five[:4], idx(g, "0202"))
    three = hexstack(g, "0104")
    assert not stacking.attack_stack_ok(g, three, idx(g, "0801"))
    assert stacking.attack_stack_ok(g, three[:2], idx(g, "0801"))


@pytest.mark.rules("OT 8B")
def test_ot_8b_limit_enforced_when_moves_end() -> None:
    g = game(pieces=[*mk("div", 6, "0102"), division("x", "France", "0101")])
    move(g, "x", "0102", "0103")  # passing through the full hex is fine
    assert units.hex_of(g, g.state.pieces["x"]) == idx(g, "0103")
    end(g)
    assert stacking.violations(g) == []


@pytest.mark.rules("OT 8B")
def test_ot_8b_full_hex_is_passed_through_but_not_offered_as_a_destination() -> None:
    """OT 8B: the reach shown to a player leaves out a hex the move may not end in (a full
    stack), while the hexes beyond it stay reachable through it."""
    g = game(pieces=[*mk("div", 6, "0102"), division("x", "France", "0101")])
    reach = movement.reachable(g, ["x"])
    assert idx(g, "0102") not in reach
    assert idx(g, "0103") in reach
    with pytest.raises(IllegalAction) as e:
        move(g, "x", "0102")
    assert e.value.rule == "OT 8B"


@pytest.mark.rules("OT 8C", "OT 8C1")
def test_ot_8c1_corps_box() -> None:
    g = game(
        pieces=[
            unit("c", "corps-hq", "France", "0203", a=0, d=0, m=8, size="corps"),
            division("d", "France", "0203"),
            division("e", "France", "0203"),
        ]
    )
    g.apply({"type": "corps-assign", "side": EN, "piece": "d", "corps": "c"})
    assert g.state.pieces["d"].loc == Loc.inside("c")
    assert units.hex_of(g, g.state.pieces["d"]) == idx(g, "0203")
    move(g, "c", "0303")  # the box moves with its Corps HQs, each unit paying its own costs
    assert units.hex_of(g, g.state.pieces["d"]) == idx(g, "0303")
    assert movement.spent(frame(g), g.state.pieces["d"]) == 1
    g.apply({"type": "corps-remove", "side": EN, "piece": "d"})
    assert g.state.pieces["d"].loc == Loc.hex(idx(g, "0303"))
    with pytest.raises(IllegalAction):
        g.apply(
            {"type": "corps-assign", "side": EN, "piece": "e", "corps": "c"}
        )  # not in the Corps HQs' hex


@pytest.mark.rules("OT 8C2")
def test_ot_8c2_overstacking() -> None:
    pieces = [
        *mk("div", 6, "0203"),
        unit("c", "corps-hq", "France", "0203", a=0, d=0, m=8, size="corps"),
        division("x", "France", "0303"),
        unit("bn", "rifle", "Germany", "0503", a=1, d=1, size="battalion"),
    ]
    g0 = game(pieces=pieces)
    with pytest.raises(IllegalAction):
        move(g0, "x", "0203")
    with pytest.raises(IllegalAction) as e:
        g0.apply({"type": "overstack", "side": EN, "pieces": ["div02030"]})
    assert e.value.rule == "OT 8C2"
    g = game(pieces=pieces, options={"overstacking": True})
    move(g, "x", "0203")
    x = g.state.pieces["x"]
    assert stacking.OVERSTACKED in x.status
    assert stacking.violations(g) == []
    assert (
        stacking.combat_supply_re(g, x) == 10
    )  # a 5-RE division at twice its size for combat supply
    assert stacking.overstack_attack_factor(x) == 0.25
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "leave-overstack", "side": EN, "piece": "x"})  # the normal stack is full
    assert e.value.rule == "OT 8B"
    move(g, "x", "0303")  # leaving costs 1 MP on top of the move
    assert movement.spent(frame(g), x) == 1 + 1 + 1
    assert stacking.OVERSTACKED not in x.status
    with pytest.raises(IllegalAction):
        g.apply({"type": "overrun", "side": EN, "pieces": ["div02030"], "target": "0303"})


@pytest.mark.rules("OT 8C2")
def test_ot_8c2_overstack_needs_a_corps_hq() -> None:
    g = game(
        pieces=[
            *mk("div", 2, "0203"),
            unit("c", "corps-hq", "France", "0203", a=0, d=0, m=8, size="corps"),
        ],
        options={"overstacking": True},
    )
    g.apply({"type": "overstack", "side": EN, "pieces": ["div02030"]})
    assert stacking.OVERSTACKED in g.state.pieces["div02030"].status
    g.state.move("c", Loc.box("eliminated"))
    assert any("no Corps HQs" in v for v in stacking.violations(g))
    art = unit("ha", "heavy-artillery", "France", None)
    assert art["type"] == "heavy-artillery" and CP


@pytest.mark.rules("OT 8C2")
def test_ot_8c2_combat_supply_size_of_overstacked_artillery() -> None:
    """OT-G-46: a heavy artillery regiment (1 RE) counts 2 RE for combat supply, 4 RE in an
    overstack."""
    g = game(pieces=[unit("ha", "heavy-artillery", "France", "0203", a=5, d=7)])
    ha = g.state.pieces["ha"]
    assert stacking.combat_supply_re(g, ha) == 2
    ha.status.add(stacking.OVERSTACKED)
    assert stacking.combat_supply_re(g, ha) == 4
