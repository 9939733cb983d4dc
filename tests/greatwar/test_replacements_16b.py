"""OT 16 and 16B: supply status of arrivals, production, deficits, pools, replacement costs and
uses, replacing, rebuilding, augmenting, limits, special replacements (OT-S 26, 34-42, 68-70, 74).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc, Piece
from grognard.rulesets.greatwar.logistics import replacements
from grognard.rulesets.greatwar.logistics.replacements import EQU, MAN
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.supply import supply_status
from grognard.rulesets.greatwar.units import transport_units, units

from .helpers import CP, EN, division, game, idx, unit

ALL = [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 7)]
NATIONS = {"France": EN, "Germany": CP, "Britain": EN, "Russia": EN, "Italy": EN, "Belgium": EN}


def world(
    pieces=(), turns=(("Sep I 14", {}), ("Sep II 14", {})), extra_areas=(), extra_places=(), **kw
):
    """Two Entente commands (West: columns 1-4, South: 5-8), each with two rail-linked major
    cities."""
    return game(**world_kwargs(pieces, turns, extra_areas, extra_places, **kw))


def world_kwargs(
    pieces=(), turns=(("Sep I 14", {}), ("Sep II 14", {})), extra_areas=(), extra_places=(), **kw
):
    """The scenario of :func:`world` as keyword arguments of ``helpers.scenario_text``/``game``."""
    areas = [
        {"name": "West", "kind": "command", "hexes": [h for h in ALL if int(h[:2]) <= 4]},
        {"name": "South", "kind": "command", "hexes": [h for h in ALL if int(h[:2]) > 4]},
        *extra_areas,
    ]
    places = [
        ("0102", "full-city", "A"),
        ("0104", "full-city", "B"),
        ("0602", "full-city", "C"),
        ("0604", "full-city", "D"),
        *extra_places,
    ]
    nets = [
        {"name": "NW", "kind": "rail", "paths": [["0102", "0103", "0104"]]},
        {"name": "NS", "kind": "rail", "paths": [["0602", "0603", "0604"]]},
    ]
    kw.setdefault("control", {EN: ALL[:-1], CP: ALL[-1:]})
    return dict(
        pieces=list(pieces),
        areas=areas,
        places=places,
        networks=nets,
        turns=list(turns),
        nations=NATIONS,
        **kw,
    )


def pool(g, side: str, cmd: str) -> dict:
    return replacements.pool_points(g, side, cmd)


# ============================================================================ OT 16 preamble
@pytest.mark.rules("OT 16")
def test_ot_16_arrivals_take_the_supply_status_of_their_location() -> None:
    """OT-S-26: Aachen out of general supply for two turns: a replacement there is in its second
    turn out of supply, and (Aachen isolated) not checked for elimination on arrival."""
    g = world([division("old", "France", "0302"), division("new", "France", None)])
    from grognard.rulesets.greatwar.supply import supply

    now = supply.player_turn_ordinal(g)
    g.state.pieces["old"].attrs["supply_out_since"] = now - 2
    g.state.vars["gw"]["isolated"] = {EN: [idx(g, "0302")], CP: []}
    replacements.receive_piece(g, g.state.pieces["new"], idx(g, "0302"), "OT 16")
    new = g.state.pieces["new"]
    assert supply.turns_out_of_supply(g, new) == 2

    assert supply_status.is_isolated(g, EN, idx(g, "0302"))
    assert replacements.exempt_from_attrition(g, new)


# ============================================================================ 16B1
@pytest.mark.rules("OT 16B1")
def test_ot_16b1_half_point_granularity() -> None:
    assert replacements.valid_amount("man", Fraction(1, 2)) and not replacements.valid_amount(
        "man", Fraction(1, 4)
    )
    assert replacements.valid_amount("res", Fraction(2)) and not replacements.valid_amount(
        "res", Fraction(1, 2)
    )


@pytest.mark.rules("OT 16B1a", "OT 16B1a-i")
def test_ot_16b1a_i_manpower_production() -> None:
    """OT-S-34: the Entente's Jan I 18 Man Pts in the West arrive by contingent in its general
    pool."""
    man = {
        "Belgian Regulars": "0.5",
        "Portuguese Regulars": 1,
        "British Imperial Army": "12.5",
        "Anzac": 8,
        "Canadian": 10,
        "South African": "0.5",
        "French Metropolitan Army": 11,
        "French Army of Africa": 3,
        "French Colonial": 4,
        "French Foreign Contingent": "0.5",
        "American": 4,
    }
    g = world(
        turns=[("Jan I 18", {})],
        schedule=[
            {
                "turn": "Jan I 18",
                "kind": "production",
                "params": {"side": EN, "command": "West", "man": man},
            }
        ],
    )
    got = pool(g, EN, "West")[MAN]
    assert got == {k: Fraction(str(v)) for k, v in man.items()}


@pytest.mark.rules("OT 16B1a-ii")
def test_ot_16b1a_ii_basic_equipment_and_resource_production() -> None:
    """OT-S-35: the Central Powers' Jan I 18 West production: 42 Equ Pts and 21 Res Pts."""
    g = world(
        turns=[("Jan I 18", {})],
        control={EN: ALL[:24], CP: ALL[24:]},
        schedule=[
            {
                "turn": "Jan I 18",
                "kind": "production",
                "params": {"side": CP, "command": "South", "equ": 42, "res": 21},
            }
        ],
    )
    from .helpers import run_to

    run_to(g, "reinforcement", CP)
    assert pool(g, CP, "South")[EQU] == 42
    n = 0
    while any(a["type"] == "place-res" for a in g.legal_actions(CP)):
        a = next(a for a in g.legal_actions(CP) if a["type"] == "place-res")
        g.apply(a)
        n += 1
    assert n == 21
    assert (
        len(
            [
                p
                for p in g.state.pieces.values()
                if p.type == "res-pt" and p.side == CP and units.hex_of(g, p) is not None
            ]
        )
        == 21
    )


def _placed_res(g, side: str) -> int:
    """Apply the side's ``place-res`` actions (OT 16B1a-ii/iii) until none is left; how many."""
    n = 0
    while any(a["type"] == "place-res" for a in g.legal_actions(side)):
        g.apply(next(a for a in g.legal_actions(side) if a["type"] == "place-res"))
        n += 1
    return n


@pytest.mark.rules("OT 16B1a-iii", "OT 16B1a-ii")
@pytest.mark.parametrize(("advanced", "equ", "res"), [(False, 40, 4), (True, 5, 2)])
def test_ot_16b1a_iii_factories_in_production_produce_the_equ_and_res_pts(
    advanced: bool, equ: int, res: int
) -> None:
    """The Entente's West entry lists 40 Equ Pts and 4 Res Pts (the basic Historical Production
    Table, 16B1a-ii) and three factories. With the advanced rule only a friendly-owned factory in
    production produces: 0103 (5 Equ, 2 Res) does; 0203 (7 Equ, 1 Res) is out of production and
    0401 (9 Equ, 3 Res) is enemy-owned. The basic rule ignores the factories."""
    g = world(
        turns=[("Jan I 18", {})],
        options={"advanced-production": advanced},
        control={EN: [h for h in ALL if h != "0401"], CP: ["0401"]},
        extra_places=[
            ("0103", "factory", "F1"),
            ("0203", "factory", "F2", {"in_production": False}),
            ("0401", "factory", "F3"),
        ],
        schedule=[
            {
                "turn": "Jan I 18",
                "kind": "production",
                "params": {
                    "side": EN,
                    "command": "West",
                    "equ": 40,
                    "res": 4,
                    "factories": {
                        "0103": {"equ": 5, "res": 2},
                        "0203": {"equ": 7, "res": 1},
                        "0401": {"equ": 9, "res": 3},
                    },
                },
            }
        ],
    )
    assert pool(g, EN, "West")[EQU] == equ
    assert _placed_res(g, EN) == res
    placed = [p for p in g.state.pieces.values() if p.type == "res-pt" and p.side == EN]
    assert len(placed) == res and all(units.hex_of(g, p) is not None for p in placed)


@pytest.mark.rules("OT 16B1a-iii", "OT 16C9b")
def test_ot_16b1a_iii_advanced_production_and_halved_manpower() -> None:
    g = world(
        turns=[("Jan I 18", {})],
        options={"advanced-production": True},
        schedule=[
            {
                "turn": "Jan I 18",
                "kind": "production",
                "params": {
                    "side": EN,
                    "command": "West",
                    "equ": 40,
                    "man": {"France": 6},
                    "nation": "France",
                    "factories": {"0102": {"equ": 5}, "0601": {"equ": 7}},
                },
            }
        ],
    )
    assert pool(g, EN, "West")[EQU] == 0  # no factory on this map
    g2 = world(
        turns=[("Jan I 18", {})],
        schedule=[
            {
                "turn": "Jan I 18",
                "kind": "production",
                "params": {"side": EN, "command": "West", "man": {"France": 6}, "nation": "France"},
            }
        ],
    )
    g2.scenario.data.nations["France"].attrs["trng_repl_missing"] = True
    from grognard.rulesets.greatwar.logistics import reinforcements

    item = {
        "key": "x",
        "kind": "production",
        "side": EN,
        "params": {"command": "West", "man": {"France": 5}, "nation": "France"},
        "state": {},
    }
    reinforcements.produce(g2, item)
    assert pool(g2, EN, "West")[MAN]["France"] == 6 + Fraction(5, 2)


@pytest.mark.rules("OT 16B1b")
def test_ot_16b1b_deficits() -> None:
    g = world()
    replacements.pay_points(g, EN, "West", {"France": Fraction(3)}, Fraction(2))
    assert (
        replacements.deficit(g, EN, "West", MAN, "France") == 3
        and replacements.deficit(g, EN, "West", EQU) == 2
    )
    replacements.add_points(g, EN, "West", {"France": Fraction(4)}, Fraction(1))
    assert (
        pool(g, EN, "West")[MAN]["France"] == 1
        and replacements.deficit(g, EN, "West", MAN, "France") == 0
    )
    assert replacements.deficit(g, EN, "West", EQU) == 1 and pool(g, EN, "West")[EQU] == 0
    assert "deficit" in (
        replacements.payment_problem(g, EN, "West", None, "France", Fraction(0), Fraction(1)) or ""
    )


# ============================================================================ 16B2, 16B3
@pytest.mark.rules("OT 16B2")
def test_ot_16b2_pools_by_command_and_isolated_section() -> None:
    """OT-S-36: a unit eliminated in a command goes to that command's replacement pool (isolated
    ones to its isolated section, where they cost double)."""
    g = world([division("w", "France", "0302"), division("s", "France", "0702")])
    units.eliminate(g, g.state.pieces["w"], "OT 9D")
    units.eliminate(g, g.state.pieces["s"], "OT 11F3")
    w, s = g.state.pieces["w"], g.state.pieces["s"]
    assert w.attrs["pool"] == "West" and s.attrs["pool"] == "South"
    assert w.attrs.get("set_aside") and not replacements.in_pool(
        g, w
    )  # waits for the next initial phase
    assert replacements.in_pool(g, s)
    replacements.settle_special_replacements(g)
    assert [p.id for p in replacements.pool_units(g, EN, "West")] == ["w"]
    d = division("iso", "France", None)
    p = Piece(
        "iso",
        "rifle",
        EN,
        "France",
        "full",
        Loc.box("eliminated"),
        set(),
        {"size": "division", "pool": "West", "pool_isolated": True},
        d["faces"],
    )
    g.state.add_piece(p)
    assert replacements.replacement_strength(g, p) == {
        k: 2 * v for k, v in replacements.replacement_strength(g, p, isolated=False).items()
    }


@pytest.mark.rules("OT 16B2", "OT 16B3")
def test_ot_16b2_16b3_transfers_between_pools_and_map() -> None:
    g = world([division("w", "France", "0302")])
    units.eliminate(g, g.state.pieces["w"], "OT 11F3")
    assert replacements.commands_linked(g, EN, "West", "South")
    a = {"type": "pool-unit-transfer", "side": EN, "piece": "w", "to": "South"}
    assert replacements.unit_transfer_problem(g, EN, a) is None
    replacements.do_unit_transfer(g, EN, a)
    assert g.state.pieces["w"].attrs["pool"] == "South"
    replacements.add_points(g, EN, "West", {"France": Fraction(4)}, Fraction(3))
    replacements.do_pool_transfer(
        g,
        EN,
        {
            "type": "pool-transfer",
            "side": EN,
            "from": "West",
            "to": "South",
            "kind": "equ",
            "amount": 2,
        },
    )
    assert pool(g, EN, "South")[EQU] == 2
    replacements.do_points_to_map(
        g,
        EN,
        {
            "type": "points-to-map",
            "side": EN,
            "hex": "0302",
            "kind": "man",
            "contingent": "France",
            "amount": 3,
        },
    )
    assert replacements.hex_points(g, EN, idx(g, "0302"), MAN, "France") == 3
    replacements.do_points_to_pool(
        g,
        EN,
        {
            "type": "points-to-pool",
            "side": EN,
            "hex": "0302",
            "kind": "man",
            "contingent": "France",
            "amount": 1,
        },
    )
    assert pool(g, EN, "West")[MAN]["France"] == 2
    assert replacements.pool_transfer_problem(
        g,
        EN,
        {
            "type": "pool-transfer",
            "side": EN,
            "from": "West",
            "to": "South",
            "kind": "equ",
            "amount": "1/4",
        },
    )


@pytest.mark.rules("OT 16B3")
def test_ot_16b3_on_map_man_and_equ_points() -> None:
    """OT-S-74: an on-map Man Pt is an unsupported 1/2-RE unit, attack 0, defense 1/2, MA 4, that
    counts for stacking and may ride a transport unit; an Equ Pt is a 1/2-RE logistics item."""
    g = world([unit("pk", "pack-transport", "France", "0302", a=0, d=0, m=6)])
    mp = replacements.place_points(g, EN, idx(g, "0302"), MAN, Fraction(1), "France")
    ep = replacements.place_points(g, EN, idx(g, "0302"), EQU, Fraction(1))
    assert mp is not None and ep is not None
    assert (
        units.is_unit(mp)
        and units.re_size(g, mp) == Fraction(1, 2)
        and units.printed_defense(mp) == Fraction(1, 2)
    )
    assert (
        units.printed_attack(mp) == 0
        and units.printed_move(mp) == 4
        and units.support_indicator(mp) == "unsupported"
    )
    from grognard.rulesets.greatwar.movement import stacking

    assert not stacking.exempt(g, mp) and stacking.exempt(g, ep) and not units.is_unit(ep)
    assert transport_units.may_carry(g, g.state.pieces["pk"], mp) is None
    replacements.place_points(g, EN, idx(g, "0302"), MAN, Fraction(2), "France")
    assert units.re_size(g, mp) == Fraction(3, 2) and units.printed_defense(mp) == Fraction(3, 2)


@pytest.mark.rules("OT 16B3a", "OT 16B3b")
def test_ot_16b3a_replacement_costs_chart() -> None:
    """The provisional chart honours OT 16C8: a 1-2-4 March brigade is 4 Man Pts, a 2-3-4 one 6."""
    g = world(
        [
            unit("m1", "march-brigade", "France", "0302", a=1, d=2, m=4, size="brigade"),
            unit("m2", "march-brigade", "France", "0302", a=2, d=3, m=4, size="brigade"),
            unit("ha", "heavy-artillery", "France", "0302", a=5, d=7, m=4),
        ]
    )
    ps = g.state.pieces
    assert replacements.replacement_strength(g, ps["m1"]) == {MAN: 4, EQU: 0}
    assert replacements.replacement_strength(g, ps["m2"]) == {MAN: 6, EQU: 0}
    ha = replacements.replacement_strength(g, ps["ha"])
    assert ha[EQU] > ha[MAN]  # replacement uses: artillery mostly Equ Pts


@pytest.mark.rules("OT 16B3b")
def test_ot_16b3b_man_points_are_contingent_specific() -> None:
    """OT-S-37: French Colonial Man Pts replace French Colonial units only; Equ Pts are generic."""
    g = world()
    replacements.add_points(g, EN, "West", {"French Colonial": Fraction(5)}, Fraction(5))
    assert (
        replacements.payment_problem(
            g, EN, "West", None, "French Colonial", Fraction(4), Fraction(2)
        )
        is None
    )
    assert (
        replacements.payment_problem(
            g, EN, "West", None, "French Metropolitan Army", Fraction(4), Fraction(2)
        )
        is not None
    )


def _two_faced(pid, typ, f1, f2, at=None, **attrs):
    return unit(pid, typ, "France", at, faces={"a": f1, "b": f2}, face="a", **attrs)


@pytest.mark.rules("OT 16B3c")
def test_ot_16b3c_faces_a_pool_unit_may_return_at() -> None:
    """OT-S-38: a 4-3-4/8-6-4 siege artillery unit returns at either side; a 1-2-7/2-8 mounted rifle
    unit or a Lt Rifle / Amphib Lt Rifle unit only at the side it was eliminated at."""
    g = world(
        [
            _two_faced(
                "sa",
                "siege-artillery",
                {"attack": 4, "defense": 3, "move": 4, "size": "battalion"},
                {"attack": 8, "defense": 6, "move": 4, "size": "regiment"},
            ),
            _two_faced(
                "mr",
                "mounted-rifle",
                {"attack": 1, "defense": 2, "move": 7, "size": "regiment"},
                {"strength": 2, "move": 8, "size": "regiment"},
            ),
            _two_faced(
                "lr",
                "light-rifle",
                {"attack": 2, "defense": 3, "move": 6, "size": "regiment"},
                {
                    "attack": 2,
                    "defense": 3,
                    "move": 6,
                    "size": "regiment",
                    "type": "amphibious-light-rifle",
                },
            ),
        ]
    )
    ps = g.state.pieces
    for p in ps.values():
        if p.id in ("sa", "mr", "lr"):
            p.attrs["eliminated_face"] = "a"
    assert replacements.replacement_faces(ps["sa"]) == ["a", "b"]
    assert replacements.replacement_faces(ps["mr"]) == ["a"]
    assert replacements.replacement_faces(ps["lr"]) == ["a"]
    cadre = division("dv", "France", None)
    p = Piece(
        "dv",
        "rifle",
        EN,
        "France",
        "full",
        Loc.box("eliminated"),
        set(),
        {"size": "division", "pool": "West"},
        cadre["faces"],
    )
    g.state.add_piece(p)
    assert replacements.replacement_faces(p) == ["cadre"]


@pytest.mark.rules("OT 16B3c", "OT 16B3f")
def test_ot_16b3c_replace_through_the_initial_phase() -> None:
    """OT-S-39: pool points of a command pay only for its own pool's units, which appear at a
    friendly city in regular general supply of that command."""
    g = world(
        [division("w", "France", "0302"), division("s", "France", "0702")],
        turns=[("Sep I 14", {}), ("Sep II 14", {}), ("Oct I 14", {})],
    )
    units.eliminate(g, g.state.pieces["w"], "OT 11F3")
    cost = replacements.replacement_strength(g, g.state.pieces["w"], "cadre")
    replacements.add_points(g, EN, "South", {"France": cost[MAN]}, cost[EQU])
    a = {"type": "replace", "side": EN, "piece": "w", "face": "cadre", "hex": "0102"}
    assert "needs" in (
        replacements.replace_problem(g, EN, a) or ""
    )  # South's points do not pay for West's pool
    replacements.add_points(g, EN, "West", {"France": cost[MAN]}, cost[EQU])
    assert replacements.replace_problem(g, EN, {**a, "hex": "0602"}) is not None  # wrong command
    assert (
        replacements.replace_problem(g, EN, {**a, "face": "full"}) is not None
    )  # only at its cadre
    assert replacements.replace_problem(g, EN, a) is None
    replacements.do_replace(g, EN, a)
    w = g.state.pieces["w"]
    assert units.hex_of(g, w) == idx(g, "0102") and w.face == "cadre" and "pool" not in w.attrs
    assert replacements.limit_used(g, "France", "cavalry") == 0


@pytest.mark.rules("OT 16B3d")
def test_ot_16b3d_rebuild_cadres() -> None:
    g = world([division("c", "France", "0302", face="cadre"), division("g", "Germany", "0806")])
    c = g.state.pieces["c"]
    cost = replacements.rebuild_cost(g, c)
    assert cost[MAN] > 0
    a = {"type": "rebuild", "side": EN, "piece": "c"}
    assert replacements.rebuild_problem(g, EN, a, own_ip=False) is not None  # no points yet
    replacements.place_points(g, EN, idx(g, "0302"), MAN, cost[MAN], "France")
    replacements.place_points(g, EN, idx(g, "0302"), EQU, cost[EQU] + 1)
    assert (
        replacements.rebuild_problem(g, EN, a, own_ip=False) is None
    )  # also in the enemy's initial phase
    replacements.do_rebuild(g, EN, a)
    assert c.face == "full"


@pytest.mark.rules("OT 16B3d")
def test_ot_16b3d_not_in_enemy_zoc_unless_fortified() -> None:
    g = world(
        [division("c", "France", "0302", face="cadre"), division("g", "Germany", "0402", side=CP)],
        control={EN: [h for h in ALL if h != "0402"], CP: ["0402"]},
    )
    c = g.state.pieces["c"]
    cost = replacements.rebuild_cost(g, c)
    replacements.place_points(g, EN, idx(g, "0302"), MAN, cost[MAN], "France")
    replacements.place_points(g, EN, idx(g, "0302"), EQU, cost[EQU])
    a = {"type": "rebuild", "side": EN, "piece": "c"}
    assert replacements.in_enemy_zoc(g, c)
    assert "ZOC" in (replacements.rebuild_problem(g, EN, a, True) or "")
    g.state.set_marker("fortification", idx(g, "0302"), "entrenchment")
    assert replacements.rebuild_problem(g, EN, a, True) is None


@pytest.mark.rules("OT 16B3e")
def test_ot_16b3e_augmenting() -> None:
    """OT-S-40: a 9-8-4/10-12-4 heavy artillery brigade and a 4-5-5/9-5 field artillery unit may be
    augmented; a 2-3-7/3-8 bicycle brigade may not (its movement ratings differ)."""
    g = world(
        [
            _two_faced(
                "ha",
                "heavy-artillery",
                {"attack": 9, "defense": 8, "move": 4},
                {"attack": 10, "defense": 12, "move": 4},
                "0302",
                size="brigade",
            ),
            _two_faced(
                "fa",
                "field-artillery",
                {"attack": 4, "defense": 5, "move": 5},
                {"strength": 9, "move": 5, "size": "brigade"},
                "0302",
            ),
            _two_faced(
                "bk",
                "bicycle",
                {"attack": 2, "defense": 3, "move": 7},
                {"strength": 3, "move": 8},
                "0302",
                size="brigade",
            ),
        ]
    )
    replacements.add_points(g, EN, "West", {"France": Fraction(20)}, Fraction(20))
    g.state.vars["gw"]["phasing"] = EN
    for pid in ("ha", "fa"):
        assert (
            replacements.rebuild_problem(
                g, EN, {"type": "augment", "side": EN, "piece": pid}, own_ip=True
            )
            is None
        ), pid
    assert "movement ratings" in (
        replacements.rebuild_problem(
            g, EN, {"type": "augment", "side": EN, "piece": "bk"}, own_ip=True
        )
        or ""
    )
    assert "own initial phase" in (
        replacements.rebuild_problem(
            g, EN, {"type": "augment", "side": EN, "piece": "ha"}, own_ip=False
        )
        or ""
    )
    replacements.do_rebuild(g, EN, {"type": "augment", "side": EN, "piece": "ha"})
    assert g.state.pieces["ha"].face == "b"


@pytest.mark.rules("OT 16B3f")
def test_ot_16b3f_replacement_limits() -> None:
    """OT-S-41: an engineer tank regiment counts 1 RE against c/m and 1 RE against engineers.
    OT-S-70: a minor power's c/m limit is 1/2 RE; four German field artillery regiments count 2 RE;
    a siege artillery regiment from the isolated section counts 4 RE."""
    g = world(
        [
            unit("et", "engineer-tank", "France", "0302"),
            unit("sa", "siege-artillery", "Germany", "0802", side=CP),
        ]
        + [unit(f"fa{k}", "field-artillery", "Germany", "0802", side=CP) for k in range(4)]
    )
    ps = g.state.pieces
    assert replacements.limit_categories(g, ps["et"]) == {"cm": 1, "engineer": 1}
    assert replacements.monthly_limit(g, "Belgium", "cm") == Fraction(1, 2)
    assert (
        replacements.monthly_limit(g, "Germany", "artillery") == 6
        and replacements.monthly_limit(g, "France", "artillery") == 3
    )
    for k in range(4):
        replacements.charge_limit(g, ps[f"fa{k}"])
    assert replacements.limit_used(g, "Germany", "artillery") == 2
    assert replacements.limit_categories(g, ps["sa"]) == {"artillery": 2}
    replacements.charge_limit(g, ps["sa"], from_isolated=True)
    assert replacements.limit_used(g, "Germany", "artillery") == 6
    assert replacements.limit_problem(g, ps["fa0"]) is not None
    assert replacements.monthly_limit(g, "Russia", "cavalry") == 12


@pytest.mark.rules("OT 16B3f")
def test_ot_16b3f_dated_entente_limits() -> None:
    g = world(turns=[("Feb I 18", {})])
    assert replacements.monthly_limit(g, "France", "cm") == 2 and replacements.monthly_limit(
        g, "Belgium", "cm"
    ) == Fraction(1, 2)
    g2 = world(turns=[("Feb I 19", {})])
    assert (
        replacements.monthly_limit(g2, "Britain", "cm") == 4
        and replacements.monthly_limit(g2, "Germany", "cm") == 1
    )


# ============================================================================ 16B4
@pytest.mark.rules("OT 16B4", "OT 16B4a")
def test_ot_16b4a_special_replacements_example() -> None:
    """OT-S-42: 8 Equ, 14 French Metropolitan and 5 British Imperial Man Pts lost give 2 Equ, 4.5
    and
    1 Man Pts."""
    got = replacements.special_replacements(
        {MAN: {"France|French Metropolitan Army": 14, "Britain|British Imperial Army": 5}, EQU: 8}
    )
    assert got == {
        MAN: {"French Metropolitan Army": Fraction(9, 2), "British Imperial Army": 1},
        EQU: 2,
    }


@pytest.mark.rules("OT 16B4a")
def test_ot_16b4a_divisors_and_rounding() -> None:
    """OT-S-68: 7 German -> 2; 10 Russian -> 2; 11 Equ -> 2.5; 1 Italian -> 0."""
    got = replacements.special_replacements(
        {MAN: {"Germany|Germany": 7, "Russia|Russia": 10, "Italy|Italy": 1}, EQU: 11}
    )
    assert got == {MAN: {"Germany": 2, "Russia": 2}, EQU: Fraction(5, 2)}
    assert (
        replacements.special_divisor("Britain", "Anzac") == 3
        and replacements.special_divisor("USA", "American") == 5
    )


@pytest.mark.rules("OT 16B4a")
def test_ot_16b4a_losses_settled_in_the_next_initial_phase() -> None:
    g = world([division("w", "France", "0302")])
    w = g.state.pieces["w"]
    full = replacements.replacement_strength(g, w, "full", isolated=False)
    units.eliminate(g, w, "OT 9D")
    assert gw(g)["losses"][EN]["West"][MAN]["France|France"] == full[MAN]
    replacements.settle_special_replacements(g)
    assert pool(g, EN, "West")[MAN].get("France", 0) == replacements.half_down(full[MAN] / 3)
    assert replacements.in_pool(g, w)
    g2 = world([division("r", "France", "0302")])
    r = g2.state.pieces["r"]
    r.face = "cadre"
    replacements.on_reduced(g2, r, "full", "OT 9E")
    red = replacements.rebuild_cost(g2, r, "cadre")
    assert gw(g2)["losses"][EN]["West"][MAN]["France|France"] == red[MAN]


@pytest.mark.rules("OT 16B4b")
def test_ot_16b4b_isolated_losses_with_no_friendly_hex_near() -> None:
    """OT-S-69: an isolated stack eliminated where the combat hex and its neighbours are all
    enemy-owned: the Man Pts (1.5) are forfeited, the Equ Pts (2) become the enemy's in the hex."""
    g = world()
    h = idx(g, "0303")
    for j in [h, *g.board.neighbors(h)]:
        g.state.control[j] = CP
    replacements._record_loss(
        g, EN, "West", h, True, {"Britain|British Imperial Army": Fraction(6)}, Fraction(8)
    )
    replacements.settle_isolated_losses(g)
    assert replacements.hex_points(g, CP, h, EQU) == 2
    assert replacements.hex_points(g, EN, h, MAN) == 0
    g2 = world()
    replacements._record_loss(
        g2, EN, "West", idx(g2, "0303"), True, {"France|France": Fraction(3)}, Fraction(4)
    )
    replacements.settle_isolated_losses(g2)
    assert (
        replacements.hex_points(g2, EN, idx(g2, "0303"), MAN, "France") == 1
        and replacements.hex_points(g2, EN, idx(g2, "0303"), EQU) == 1
    )


def test_illegal_replace_action_names_its_rule() -> None:
    g = world([division("w", "France", "0302")])
    units.eliminate(g, g.state.pieces["w"], "OT 11F3")
    from .helpers import run_to

    run_to(g, "ground-movement", CP)
    with pytest.raises(IllegalAction):
        g.apply({"type": "replace", "side": EN, "piece": "w", "hex": "0102"})


@pytest.mark.rules("OT 16B3d", "OT 8B")
def test_ot_16b3d_8b_no_rebuild_over_the_stacking_limit_in_the_enemy_initial_phase() -> None:
    """Found by self-play of the Marne: six divisions, a cadre and a Man Pt fit the regular limit;
    the cadre
    rebuilt to a division in the enemy initial phase would leave the stack over the limit at the
    end of the enemy movement phase, in which it cannot move (OT 8B). In its own initial phase the
    player may rebuild and must fix the stack in his movement phase."""
    divs = [division(f"d{k}", "France", "0302") for k in range(6)]
    g = world([*divs, division("c", "France", "0302", face="cadre")])
    c = g.state.pieces["c"]
    cost = replacements.rebuild_cost(g, c)
    replacements.place_points(g, EN, idx(g, "0302"), MAN, cost[MAN], "France")
    replacements.place_points(g, EN, idx(g, "0302"), EQU, cost[EQU] + 1)
    a = {"type": "rebuild", "side": EN, "piece": "c"}
    assert "stacking limit" in (replacements.rebuild_problem(g, EN, a, own_ip=False) or "")
    assert replacements.rebuild_problem(g, EN, a, own_ip=True) is None
    g2 = world(
        [*divs[:4], division("c", "France", "0302", face="cadre")]
    )  # the Man Pt counts too (OT 16B3)
    c2 = g2.state.pieces["c"]
    replacements.place_points(g2, EN, idx(g2, "0302"), MAN, cost[MAN], "France")
    replacements.place_points(g2, EN, idx(g2, "0302"), EQU, cost[EQU] + 1)
    assert replacements.rebuild_problem(g2, EN, a, own_ip=False) is None  # within the limit
    replacements.do_rebuild(g2, EN, a)
    assert c2.face == "full"
