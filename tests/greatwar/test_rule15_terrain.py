"""Rule 15A/15B: causeways, rail ferries, great rivers, partial flooding, resource centers,
devastation, open cities and fortifications (OT-S 17-20, 64)."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.greatwar import special_rules
from grognard.rulesets.greatwar.map import terrain
from grognard.rulesets.greatwar.movement import movement, rail
from grognard.rulesets.greatwar.units import units
from grognard.rulesets.greatwar.units.special_units import CombatSituation

from .helpers import CP, EN, division, force_dice, frame, game, idx, move, run_to, unit
from .test_combat_support import all_supplied, drive, game_with  # noqa: F401
from .test_combat_support import attack as declare


def at_hex(g, pid: str) -> str | None:
    h = units.hex_of(g, g.state.pieces[pid])
    return g.board.label(h) if h is not None else None


# ============================================================================ 15A
@pytest.mark.rules("OT 15A2")
def test_ot_15a2_causeways() -> None:
    g = game(
        pieces=[],
        rows=["cccccccc", "ccxccccc"] + ["cccccccc"] * 4,
        hexsides=[("sea", ["0101/0201"])],
        networks=[{"name": "R", "kind": "road", "paths": [["0101", "0201"]]}],
    )
    s = g.board.side_between(idx(g, "0101"), idx(g, "0201"))
    assert special_rules.is_causeway(g, s)
    assert terrain.side_features(g, s) == ["causeway"]
    assert special_rules.causeway_blocks_naval(g, CP, s)
    assert not special_rules.causeway_blocks_naval(g, EN, s)


@pytest.mark.rules("OT 15A3")
def test_ot_15a3_rail_ferries() -> None:
    g = game(
        pieces=[],
        places=[
            ("0101", "port", "A", {"size": "major"}),
            ("0103", "port", "B", {"size": "major", "max_damage": 2}),
        ],
        networks=[{"name": "F", "kind": "rail-ferry", "paths": [["0101", "0102", "0103"]]}],
    )
    a, b = idx(g, "0101"), idx(g, "0103")
    assert special_rules.ferry_usable(g, EN, a, b)
    assert not special_rules.ferry_usable(g, CP, a, b)
    g.state.set_marker("port-damage", b, 2)
    assert not special_rules.port_functioning(g, b)
    assert not special_rules.ferry_usable(g, EN, a, b)
    lk = next(lk for lk in rail.links(g)[a])
    assert lk.ferry and not rail._link_ok_for(g, EN, lk, a)


@pytest.mark.rules("OT 15A5")
def test_ot_15a5_great_rivers() -> None:
    """OT-S-18: the Niger is great downstream of the Benue hexside, not upstream."""
    txt_sides = [("great-river", ["0101/0102"]), ("major-river", ["0301/0302", "0401/0402"])]
    g = game(pieces=[], hexsides=txt_sides)
    sides = {
        lab: g.board.side_between(idx(g, lab[:4]), idx(g, lab[5:]))
        for lab in ("0101/0102", "0301/0302", "0401/0402")
    }
    g.board.side_attrs[sides["0401/0402"]] = {"great": True}
    assert special_rules.is_great_river(g, sides["0101/0102"])
    assert special_rules.is_great_river(g, sides["0401/0402"])
    assert not special_rules.is_great_river(g, sides["0301/0302"])


GREAT_SIDES = [
    ("great-river-fordable", ["0203/0303"]),
    ("great-river", ["0204/0304"]),
    ("major-river", ["0205/0305"], {"great": True}),  # a great section on a non-European map
    ("major-river", ["0202/0302"]),
]


def _spent(g, pid: str):
    return movement.spent(frame(g), g.state.pieces[pid])


@pytest.mark.rules("OT 15A5", "OT 6")
def test_ot_15a5_great_river_movement_costs_through_play() -> None:
    """Crossing a fordable great river costs the hex (1) + 4 MP for a rifle division (TEC), more
    than a plain major river (1 + 3); an unfordable great river may not be crossed, not even by
    the one-hex move, until it freezes (then + 2); a major river section marked great (the
    non-European maps) is a great river: 1 + 4."""
    g = game(
        pieces=[division(k, "France", h, m=8) for k, h in (("a", "0203"), ("b", "0204"))]
        + [division(k, "France", h, m=8) for k, h in (("c", "0205"), ("d", "0202"))],
        hexsides=GREAT_SIDES,
    )
    move(g, "a", "0303")
    move(g, "c", "0305")
    move(g, "d", "0302")
    assert (_spent(g, "a"), _spent(g, "c"), _spent(g, "d")) == (5, 5, 4)
    before = g.state_hash()
    with pytest.raises(IllegalAction):
        move(g, "b", "0304")
    assert g.state_hash() == before and at_hex(g, "b") == "0204"
    g2 = game(
        pieces=[division("b", "France", "0204", m=8)],
        hexsides=GREAT_SIDES,
        turns=[("Jan I 15", {"weather": "winter", "frozen": True})],
    )
    move(g2, "b", "0304")  # frozen: + 2
    assert _spent(g2, "b") == 3


@pytest.mark.rules("OT 15A5", "OT 9H")
@pytest.mark.parametrize(
    ("sides", "odds"),
    [
        ([], "4:1"),
        ([("major-river", ["0403/0503"])], "2:1"),
        ([("great-river-fordable", ["0403/0503"])], "1:1"),
        ([("major-river", ["0403/0503"], {"great": True})], "1:1"),
    ],
)
@pytest.mark.usefixtures("all_supplied")
def test_ot_15a5_attacking_across_a_great_river_is_quartered(sides, odds: str) -> None:
    """40 attack against 10 defense: 4:1 in the open, halved across a major river (2:1), quartered
    across a (fordable) great river, or a major river section marked great (1:1)."""
    g = game_with(
        pieces=[
            division("f1", "France", "0403", a=40, d=10),
            division("g1", "Germany", "0503", a=1, d=10),
        ],
        hexsides=sides,
    )
    declare(g, "0503", ["f1"])
    drive(g)
    assert next(e for e in g.state.log if e["type"] == "odds")["data"]["odds"] == odds


@pytest.mark.rules("OT 15A6")
def test_ot_15a6_flood_then_call_off() -> None:
    g = game(
        pieces=[division("f", "France", "0403"), division("g", "Germany", "0503")],
        rows=["cccccccc"] * 2 + ["cccncccc"] + ["cccccccc"] * 3,
    )
    i = idx(g, "0403")
    assert special_rules.flood_eligible(g, i) and not special_rules.flood_eligible(
        g, idx(g, "0402")
    )
    sit = CombatSituation([g.state.pieces["g"]], [g.state.pieces["f"]], i)
    assert special_rules.push_flooding(g, sit)
    assert g.acting_sides() == [EN]
    force_dice(g, [5])
    g.apply({"type": "flood", "side": EN})
    assert terrain.terrain(g, i) == "swamp" and special_rules.is_flooded(g, i)
    assert g.acting_sides() == [CP]
    g.apply({"type": "call-off", "side": CP})
    out = special_rules.flood_outcome(g)
    assert out["flooded"] and out["called_off"]
    assert special_rules.called_off(g, g.state.pieces["g"])
    g.state.vars["gw"]["phasing"] = CP
    assert terrain.terrain(g, i) != "swamp"  # only for the player turn of the flood


@pytest.mark.rules("OT 15A7")
def test_ot_15a7_resource_center_check() -> None:
    g = game(
        pieces=[division("f", "France", "0403"), division("g", "Germany", "0503")],
        places=[("0403", "resource-center", "Lens")],
    )
    sit = CombatSituation([g.state.pieces["g"]], [g.state.pieces["f"]], idx(g, "0403"))
    force_dice(g, [4])
    assert special_rules.resource_center_check(g, sit) == -1
    force_dice(g, [3])
    assert special_rules.resource_center_check(g, sit) == 0
    assert special_rules.resource_center_check(g, CombatSituation([], [], idx(g, "0402"))) == 0


@pytest.mark.rules("OT 15A8")
def test_ot_15a8_devastation_effects() -> None:
    """OT-S-64: no devastation before Feb I 16; +2 MP on a road; -2 when attacking from a devastated
    hex; 2 hexes of an overland/road element, 2 low-volume rail hexes."""
    g = game(
        pieces=[unit(f"c{k}", "construction", "France", "0202") for k in range(4)]
        + [division("f", "France", "0302"), division("g", "Germany", "0502")],
        turns=[("Jan II 16", {}), ("Feb I 16", {}), ("Feb II 16", {})],
        networks=[{"name": "R", "kind": "road", "paths": [["0201", "0202"]]}],
    )
    ps = [g.state.pieces[f"c{k}"] for k in range(4)]
    i = idx(g, "0202")
    assert "Feb I 16" in (special_rules.devastation_problem(g, EN, i, ps) or "")
    g.state.turn = {"index": 2, "label": "Feb I 16"}
    assert special_rules.devastation_problem(g, EN, i, ps[:3]) is not None  # 3 RE only
    g.state.set_marker("devastated", i, True)
    from grognard.rulesets.greatwar.movement import movement

    ctx = movement.context(g, EN, "movement")
    assert movement.step(ctx, g.state.pieces["f"], idx(g, "0201"), i).cost == 3  # road 1 + 2
    assert special_rules.supply_hexes(g, i) == 2 and special_rules.rail_supply_hexes(g, i) == (
        2,
        "low",
    )
    assert special_rules.rail_repair_forbidden(g, i)
    g.state.move("f", __import__("grognard.core.state", fromlist=["Loc"]).Loc.hex(i))
    sit = CombatSituation([g.state.pieces["f"]], [g.state.pieces["g"]], idx(g, "0302"), "mobile")
    assert any(m.rule == "OT 15A8" and m.value == -2 for m in special_rules.combat_drms(g, sit))


@pytest.mark.rules("OT 15A8")
def test_ot_15a8_devastation_work_takes_two_turns() -> None:
    g = game(
        pieces=[unit(f"c{k}", "construction", "France", "0202") for k in range(4)]
        + [division("g", "Germany", "0702")],
        turns=[("Feb I 16", {}), ("Feb II 16", {}), ("Mar I 16", {}), ("Mar II 16", {})],
        networks=[{"name": "N", "kind": "rail", "paths": [["0201", "0202", "0203"]]}],
        places=[("0201", "full-city", "A"), ("0203", "full-city", "B")],
    )
    i = idx(g, "0202")
    acts = [a for a in g.legal_actions(EN) if a["type"] == "devastate"]
    assert acts == [
        {"type": "devastate", "side": EN, "hex": "0202", "pieces": ["c0", "c1", "c2", "c3"]}
    ]
    g.apply(acts[0])
    assert any(e["type"] == "devastation" for e in g.state.log)
    special_rules.progress_devastation(g)
    assert not g.state.marker("devastated", i)
    special_rules.progress_devastation(g)
    assert g.state.marker("devastated", i) and g.state.marker("rail-break", i)


@pytest.mark.rules("OT 15A9")
def test_ot_15a9_open_cities() -> None:
    g = game(
        pieces=[division("f", "France", "0403"), division("g", "Germany", "0503")],
        places=[("0403", "full-city", "Reims")],
    )
    city = frozenset({idx(g, "0403")})
    assert special_rules.open_city_eligible(g, EN, city)
    run_to(g, "open-cities")
    assert g.acting_sides() == [EN]
    g.apply({"type": "open-city", "side": EN, "hex": "0403"})
    assert special_rules.is_open_city(g, idx(g, "0403"))
    sit = CombatSituation([g.state.pieces["g"]], [g.state.pieces["f"]], idx(g, "0403"))
    assert special_rules.crt_choice(g, sit)[0] == "mobile"


# ============================================================================ 15B
@pytest.mark.rules("OT 15B", "OT 15B3")
def test_ot_15b3_forts_drop_a_level() -> None:
    """OT-S-19: capture or bombardment makes an improved fort a fort and a fort an entrenchment."""
    g = game(pieces=[])
    i = idx(g, "0403")
    g.state.set_marker("fortification", i, "improved-fort")
    special_rules.reduce_fortification(g, i, "bombardment")
    assert special_rules.fortification(g, i) == "fort"
    special_rules.reduce_fortification(g, i, "capture")
    assert special_rules.fortification(g, i) == "entrenchment"
    special_rules.reduce_fortification(g, i, "capture")
    assert (
        special_rules.fortification(g, i) == "entrenchment"
    )  # OT 15B2: capture does not affect it


@pytest.mark.rules("OT 15B1")
def test_ot_15b1_fieldworks_destroyed_on_capture_and_concentric_attack() -> None:
    g = game(pieces=[division("f", "France", "0403")])
    i = idx(g, "0403")
    ring = geography_ring(g, i)
    att = _ring_attackers(g, ring)
    g.state.set_marker("fortification", i, "fieldworks")
    assert special_rules.concentric(g, i, att) and not special_rules.concentric(g, i, att[:1])
    sit = CombatSituation(att, [g.state.pieces["f"]], i)
    assert special_rules.detached(g, i, EN)
    assert special_rules.effective_fortification(g, sit) == "none"
    assert (
        special_rules.effective_fortification(g, CombatSituation(att[:1], [g.state.pieces["f"]], i))
        is None
    )
    j = idx(g, "0103")
    far = geography_ring(g, j)[0]
    g.state.set_marker("fortification", ring[0], "fieldworks")
    g.state.control[ring[0]] = EN
    assert not special_rules.detached(g, i, EN)
    assert special_rules.effective_fortification(g, sit) is None
    _ = far
    special_rules.on_capture(g, i, EN, CP)
    assert special_rules.fortification(g, i) is None


def _ring_attackers(g, ring):
    from grognard.core.state import Loc, Piece

    out = []
    src = g.state.pieces["f"]
    for k, h in enumerate(ring):
        pid = f"z{k}"
        g.state.add_piece(
            Piece(
                pid,
                src.type,
                CP,
                "Germany",
                src.face,
                Loc.hex(h),
                set(),
                {"size": "division"},
                src.faces,
            )
        )
        out.append(g.state.pieces[pid])
    return out


@pytest.mark.rules("OT 15B2")
def test_ot_15b2_entrenchments() -> None:
    g = game(pieces=[division("f", "France", "0403")])
    i = idx(g, "0403")
    g.state.set_marker("fortification", i, "entrenchment")
    special_rules.on_capture(g, i, EN, CP)
    assert special_rules.fortification(g, i) == "entrenchment"
    att = _ring_attackers(g, geography_ring(g, i))
    sit = CombatSituation(att, [g.state.pieces["f"]], i)
    assert special_rules.effective_fortification(g, sit) == "fieldworks"
    assert (
        special_rules.crt_choice(g, sit)[0] == "mobile"
    )  # treated as fieldworks: no Positional CRT


def geography_ring(g, i):
    from grognard.rulesets.greatwar.map import geography

    return geography.adjacent_hexes(g, i)


@pytest.mark.rules("OT 15B4")
def test_ot_15b4_fortresses() -> None:
    """OT-S-20: "fortresses" covers the 6 kinds, "improved fortresses" the 3 improved, "improved old
    fortresses" one; capture unimproves an improved fortress, never further."""
    kinds = [(t, c) for t in ("new", "old", "great") for c in ("improved", "unimproved")]
    assert sum(special_rules.fortress_rule_applies(k, "fortresses") for k in kinds) == 6
    assert sum(special_rules.fortress_rule_applies(k, "improved fortresses") for k in kinds) == 3
    assert [
        k for k in kinds if special_rules.fortress_rule_applies(k, "improved old fortresses")
    ] == [("old", "improved")]
    g = game(
        pieces=[], places=[("0403", "fortress", "Verdun", {"state": "improved", "type": "old"})]
    )
    i = idx(g, "0403")
    assert special_rules.fortress_of(g, i) == ("old", "improved")
    special_rules.on_capture(g, i, EN, CP)
    assert (
        special_rules.fortress_of(g, i) == ("old", "unimproved")
        and special_rules.fortification(g, i) == "fort"
    )
    special_rules.reduce_fortification(g, i, "bombardment")
    assert (
        special_rules.fortress_of(g, i) == ("old", "unimproved")
        and special_rules.fortification(g, i) == "fort"
    )
