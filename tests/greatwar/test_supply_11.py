"""OT 11 supply: tracing (11A, 11B), depots and sources (11C), combat supply (11D), nationality
(11E) and the effects of being out of supply (11F), through the rule code."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.logistics import logistics
from grognard.rulesets.greatwar.map import zoc
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.movement import movement, rail, stacking
from grognard.rulesets.greatwar.supply import supply, supply_status
from grognard.rulesets.greatwar.supply.supply import strength_factor
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
    run_to,
    step_name,
    unit,
)
from .test_combat_support import attack, drive, game_with

pytestmark = pytest.mark.rules("OT 11")


def hexes(cols: int, rows: int) -> list[str]:
    return [f"{c:02d}{r:02d}" for c in range(1, cols + 1) for r in range(1, rows + 1)]


def en_all_but_last(cols: int, rows: int) -> dict[str, list[str]]:
    allh = hexes(cols, rows)
    last = f"{cols:02d}"
    return {
        EN: [h for h in allh if not h.startswith(last)],
        CP: [h for h in allh if h.startswith(last)],
    }


def depot(pid: str, at: str, side_nation: str = "France", face: str = "operational") -> dict:
    return unit(
        pid,
        "supply-depot",
        side_nation,
        at,
        size="",
        faces={"operational": {}, "non-operational": {}},
        face=face,
    )


def res(pid: str, at: str, nation: str = "France", **kw: object) -> dict:
    return unit(pid, "res-pt", nation, at, size="", faces={}, **kw)


CITIES = [("0101", "partial-city", "A"), ("0301", "partial-city", "B")]
CHAIN = [
    {"name": "r", "kind": "rail", "paths": [["0101", "0201", "0301", "0401", "0501"]]},
    {"name": "rd", "kind": "road", "paths": [["0501", "0502", "0503", "0504"]]},
]


def chain_game(extra: list[dict] | None = None, **kw: object):
    pieces = [
        depot("dep", "0501"),
        army_hq("hq", "France", "0504"),
        division("u1", "France", "0507"),
        division("u2", "France", "0508"),
        division("u3", "France", "0103"),
    ] + (extra or [])
    args = {
        "cols": 8,
        "nrows": 8,
        "control": en_all_but_last(8, 8),
        "places": CITIES,
        "networks": CHAIN,
        "pieces": pieces,
    }
    args.update(kw)
    return game(**args)


@pytest.mark.rules("OT 11B", "OT 11B1", "OT 11B2", "OT 11B3", "OT 11C1", "OT 11C")
def test_ot_11b_general_supply_traced_overland_road_rail() -> None:
    g = chain_game()
    tr = supply.trace_general(g, EN)
    assert tr.hq_links == {"hq": "depot:dep"}  # road 3 hexes to the depot, rail to the sources
    assert tr.supplied["u1"] == "hq:hq"  # 3 hexes overland to the Army HQs
    assert tr.supplied["u3"] == "source"  # 2 hexes overland to a major city
    assert "u2" not in tr.supplied  # 4 hexes from the HQs
    P = g.state.pieces
    assert (
        P["u2"].attrs.get("supply_out_since") is not None
        and "supply_out_since" not in P["u1"].attrs
    )
    assert supply.supply_invariant(g) == []


@pytest.mark.rules("OT 11B", "OT 11B1", "OT 11B2")
def test_ot_11b_mud_shortens_overland_and_road_elements() -> None:
    g = chain_game(turns=[("Oct I 14", {"weather": "mud"}), ("Oct II 14", {})])
    tr = supply.trace_general(g, EN)
    assert "hq" not in tr.hq_links  # the road element is 2 hexes in mud (OT 14O3 example)
    assert set(tr.supplied) == {"u3"}
    assert (
        supply.element_length(g, "overland", "mud") == 2
        and supply.element_length(g, "road", "clear") == 3
    )


@pytest.mark.rules("OT 11B1")
def test_ot_11b1_terrain_hexes_count_double_and_river_hexsides_add_one() -> None:
    g = game(
        rows=["cfccccc"],
        hexsides=[("major-river", ["0401/0501"])],
        networks=[{"name": "rd", "kind": "road", "paths": [["0601", "0701"]]}],
        control={EN: [f"0{c}01" for c in range(1, 8)], CP: []},
    )
    d = supply.overland_distances(g, EN, [idx(g, "0101")])
    assert d[idx(g, "0301")] == 3  # 0301 -> 0201 (forest: 2) -> 0101 (1)
    d2 = supply.overland_distances(g, EN, [idx(g, "0401")])
    assert d2[idx(g, "0501")] == 2  # crossing an unfrozen major river hexside counts one hex more
    g2 = game(
        rows=["cfccccc"],
        hexsides=[("major-river", ["0401/0501"])],
        control={EN: [f"0{c}01" for c in range(1, 8)], CP: []},
        turns=[("Jan I 15", {"frozen": True})],
    )
    assert (
        supply.overland_distances(g2, EN, [idx(g2, "0401")])[idx(g2, "0501")] == 1
    )  # not when frozen
    g3 = game(
        rows=["cffcccc"],
        networks=[{"name": "rd", "kind": "road", "paths": [["0101", "0201", "0301"]]}],
        control={EN: [f"0{c}01" for c in range(1, 8)], CP: []},
    )
    assert (
        supply.overland_distances(g3, EN, [idx(g3, "0101")])[idx(g3, "0301")] == 2
    )  # along a road: no penalty


@pytest.mark.rules("OT 11A")
def test_ot_11a_enemy_zoc_blocks_unless_friendly_unit() -> None:
    ctl = {EN: [f"0{c}01" for c in range(1, 6)], CP: ["0601", "0701"]}
    g = game(rows=["ccccccc"], control=ctl, pieces=[division("cp", "Germany", "0601")])
    assert idx(g, "0501") in zoc.zoc_map(g, CP)
    d = supply.overland_distances(g, EN, [idx(g, "0501")])
    assert not d[idx(g, "0401")] < float("inf")  # a line may not enter a hex in an enemy ZOC
    g2 = game(
        rows=["ccccccc"],
        control=ctl,
        pieces=[division("cp", "Germany", "0601"), division("f", "France", "0501")],
    )
    assert (
        supply.overland_distances(g2, EN, [idx(g2, "0501")])[idx(g2, "0401")] == 1
    )  # unless a friendly unit is there
    d3 = supply.overland_distances(g2, EN, [idx(g2, "0101")])
    assert (
        not d3[idx(g2, "0701")] < float("inf") or d3[idx(g2, "0701")] > 5
    )  # never into the enemy-occupied/owned hex


@pytest.mark.rules("OT 11B2")
def test_ot_11b2_one_army_hq_per_depot() -> None:
    g = chain_game(extra=[army_hq("hq2", "France", "0503")])
    tr = supply.trace_general(g, EN)
    assert sorted(tr.hq_links) == ["hq"] and tr.hq_links["hq"] == "depot:dep"
    g2 = chain_game(extra=[army_hq("hq2", "France", "0503"), depot("dep2", "0401")])
    tr2 = supply.trace_general(g2, EN)
    assert {v for v in tr2.hq_links.values()} == {"depot:dep", "depot:dep2"}


@pytest.mark.rules("OT 11B2")
def test_ot_11b2_road_only_through_friendly_owned_hexes_first_hex_overland() -> None:
    ctl = en_all_but_last(8, 8)
    ctl[EN].remove("0502")
    ctl[CP].append("0502")
    g = chain_game(control=ctl)
    assert "hq" not in supply.trace_general(g, EN).hq_links
    g2 = chain_game(pieces=[depot("dep", "0501"), army_hq("hq", "France", "0604")])
    d = supply.road_distances(g2, EN, [idx(g2, "0501")])
    assert d[idx(g2, "0604")] == 4  # one hex overland onto the road at 0504, then 3 along it


def long_rail(
    n: int,
    volume: str,
    rules: str = "",
    nation: str = "France",
    extra: list[dict] | None = None,
    cols: int = 18,
):
    path = [f"{c:02d}01" for c in range(1, n + 2)]
    nets = [{"name": "r", "kind": "rail", "paths": [path], "attrs": {"volume": volume}}]
    places = [("0101", "partial-city", "A"), ("0103", "factory", "F")]
    nets.append({"name": "r2", "kind": "rail", "paths": [["0101", "0102", "0103"]]})
    last = path[-1]
    pieces = [depot("dep", last), army_hq("hq", nation, last), division("u", nation, last)] + (
        extra or []
    )
    return game(
        cols=cols,
        nrows=3,
        control=en_all_but_last(cols, 3),
        places=places,
        networks=nets,
        pieces=pieces,
        rules=rules,
        nations={"France": EN, "Germany": CP, "Britain": EN},
    )


@pytest.mark.rules("OT 11B3a")
def test_ot_11b3a_at_most_seven_low_volume_hexes() -> None:
    assert "u" in supply.trace_general(long_rail(7, "low"), EN).supplied
    assert "u" not in supply.trace_general(long_rail(8, "low"), EN).supplied
    assert "u" in supply.trace_general(long_rail(15, "high"), EN).supplied


@pytest.mark.rules("OT 11B3a")
def test_ot_11b3a_low_capacity_net_counts_low_volume() -> None:
    """OT-G-83: with less than 10 RE of capacity on the net, every rail hex of it counts as
    low-volume."""
    rules = '[[rules.rail_nets]]\nname = "N"\ncapacity = { Entente = 9 }'
    assert "u" not in supply.trace_general(long_rail(10, "high", rules), EN).supplied
    rules10 = '[[rules.rail_nets]]\nname = "N"\ncapacity = { Entente = 10 }'
    assert "u" in supply.trace_general(long_rail(10, "high", rules10), EN).supplied


@pytest.mark.rules("OT 11E", "OT 11B3a")
def test_ot_11e_foreign_rail_net_two_high_volume_hexes_count_one_low() -> None:
    """OT-G-82: a British line along 13 high-volume hexes of the French-controlled net counts as 7
    low-volume hexes -- allowed; 15 would count 8."""
    rules = (
        '[[rules.rail_nets]]\nname = "NW Europe Standard Gauge"\ncontroller = "France"\ncapacity ='
        " { Entente = 60 }"
    )
    assert supply.foreign_nets(long_rail(13, "high", rules, nation="Britain"), "Britain") == {
        "NW Europe Standard Gauge"
    }
    assert "u" in supply.trace_general(long_rail(13, "high", rules, nation="Britain"), EN).supplied
    assert (
        "u" not in supply.trace_general(long_rail(15, "high", rules, nation="Britain"), EN).supplied
    )
    assert "u" in supply.trace_general(long_rail(15, "high", rules, nation="France"), EN).supplied


def naval_game(size: str, damage: int = 0, area: str = "North Sea"):
    rows = ["cccxccc" + "c", "cccxccc" + "c", "cccxccc" + "c", "cccxccc" + "c", "cccxccc" + "c"]
    ctl = {
        EN: [h for h in hexes(8, 5) if not h.startswith("04") and not h.startswith("08")],
        CP: [f"08{r:02d}" for r in range(1, 6)],
    }
    places = [
        ("0101", "partial-city", "A"),
        ("0301", "partial-city", "B"),
        ("0302", "port", "West", {"size": "major"}),
        ("0502", "port", "East", {"size": size}),
    ]
    nets = [
        {
            "name": "r",
            "kind": "rail",
            "paths": [["0101", "0201", "0301", "0302"], ["0502", "0503"]],
        },
        {"name": "rd", "kind": "road", "paths": [["0503", "0504"]]},
    ]
    pieces = [
        depot("dep", "0503"),
        army_hq("hq", "France", "0503"),
        division("u", "France", "0505"),
        division("v", "France", "0605"),
    ]
    areas = [{"name": area, "kind": "sea-area", "hexes": [f"04{r:02d}" for r in range(1, 6)]}]
    g = game(rows=rows, control=ctl, places=places, networks=nets, pieces=pieces, areas=areas)
    if damage:
        g.state.set_marker("port-damage", str(idx(g, "0502")), damage)
        g.invalidate()
    return g


@pytest.mark.rules("OT 11B3b")
def test_ot_11b3b_naval_sub_element_and_port_throughput() -> None:
    g = naval_game("standard")
    tr = supply.trace_general(g, EN)
    assert {"u", "v"} <= set(tr.supplied)  # the line crosses the sea between two ports
    assert tr.port_use[idx(g, "0502")] == 13  # two divisions and the Army HQs
    g2 = naval_game("marginal")
    tr2 = supply.trace_general(g2, EN)
    assert (
        "u" not in tr2.supplied and "v" not in tr2.supplied
    )  # 3 RE through a marginal port: no 5-RE division
    g3 = naval_game("standard", area="Black Sea")
    assert (
        "u" not in supply.trace_general(g3, EN).supplied
    )  # basic naval rules: nobody traces in the Black Sea


@pytest.mark.rules("OT 11B3b")
def test_ot_11b3b_port_damage_lowers_throughput() -> None:
    """OT-G-84: a major port with 2 hits passes 60 - 6 = 54 RE."""
    g = naval_game("major", damage=2)
    assert supply.port_throughput(g, idx(g, "0502")) == 54
    assert supply.port_throughput(g, idx(g, "0302")) == 60
    g2 = naval_game("marginal", damage=1)
    assert not supply.port_functioning(g2, idx(g2, "0502"))


# ============================================================================ depots (OT 11C1)
def net_game(capacity: int, depots: int = 0, extra: list[dict] | None = None):
    rules = f'[[rules.rail_nets]]\nname = "SW"\ncapacity = {{ Entente = {capacity} }}'
    path = [f"{c:02d}01" for c in range(1, 8)]
    places = [
        ("0101", "partial-city", "A"),
        ("0301", "partial-city", "B"),
        ("0501", "partial-city", "C"),
        ("0701", "partial-city", "D"),
    ]
    pieces = [depot(f"d{k}", "0501") for k in range(depots)] + (extra or [])
    return game(
        cols=8,
        nrows=3,
        control=en_all_but_last(8, 3),
        places=places,
        networks=[{"name": "r", "kind": "rail", "paths": [path]}],
        pieces=pieces,
        rules=rules,
    )


@pytest.mark.rules("OT 11C1")
def test_ot_11c1_activation_needs_three_re() -> None:
    """OT-G-86: with 2 RE of capacity no depot can be activated; with 3 one can (1 RE lost for good,
    2 RE of upkeep this turn)."""
    g = net_game(2)
    a = {"type": "activate-depot", "side": EN, "net": "SW", "at": "0201"}
    with pytest.raises(IllegalAction) as e:
        logistics.check_activate(g, a)
    assert e.value.rule == "OT 11C1"
    g = net_game(3)
    net, h = logistics.check_activate(g, a)
    d = logistics.activate_depot(g, EN, net, h)
    assert rail.ledger(g, "SW", EN)["capacity"] == 2 and rail.available(g, EN, "SW") == 0
    assert d.loc == Loc.hex(idx(g, "0201")) and logistics.depot_operational(d)


@pytest.mark.rules("OT 11C1", "OT 7A5f")
def test_ot_11c1_capacity_loss_forces_deactivation() -> None:
    """OT-G-85: 17 RE and 7 depots (14 RE upkeep); losing 2 yards costs 4 RE -> 13 < 14: one depot
    goes."""
    g = net_game(17, depots=7)
    assert rail.available(g, EN, "SW") == 3
    for h in ("0101", "0301"):
        zoc.on_ownership_change(g, idx(g, h), EN, CP)
        g.state.control[idx(g, h)] = CP
    assert rail.ledger(g, "SW", EN)["capacity"] == 13
    assert len(rail.depots_on_net(g, EN, "SW")) == 6


@pytest.mark.rules("OT 11C1")
def test_ot_11c1_flip_move_by_strategic_rail_and_deactivate() -> None:
    g = net_game(20, depots=1)
    d = g.state.pieces["d0"]
    with pytest.raises(IllegalAction):
        g.apply(
            {"type": "depot-move", "side": EN, "depot": "d0", "path": ["0401", "0301"]}
        )  # operational depots may not move
    logistics.flip_depot(g, d)
    assert not logistics.depot_operational(d)
    with pytest.raises(IllegalAction):
        g.apply(
            {"type": "depot-move", "side": EN, "depot": "d0", "path": ["0301"]}
        )  # not along the rail line
    g.apply({"type": "depot-move", "side": EN, "depot": "d0", "path": ["0401", "0301", "0201"]})
    assert d.loc == Loc.hex(idx(g, "0201")) and rail.ledger(g, "SW", EN)["used"] == 0
    with pytest.raises(IllegalAction):
        g.apply(
            {"type": "depot-move", "side": EN, "depot": "d0", "path": ["0101"]}
        )  # once per phase
    g.apply({"type": "deactivate-depot", "side": EN, "depot": "d0"})
    assert d.loc == Loc.box("pool")
    net, h = logistics.check_activate(
        g, {"type": "activate-depot", "side": EN, "net": "SW", "at": "0501"}
    )
    assert logistics.activate_depot(g, EN, net, h).id == "d0"  # a deactivated depot is used again


@pytest.mark.rules("OT 11C1", "OT 4A1")
def test_ot_11c1_initial_phase_actions() -> None:
    g = net_game(20, depots=1)
    end(g)
    run_to(g, "initial-actions", EN)
    types = {a["type"] for a in g.legal_actions(EN)}
    assert {"flip-depot", "activate-depot", "generate-gsp"} <= types
    g.apply({"type": "flip-depot", "side": EN, "depot": "d0"})
    assert not logistics.depot_operational(g.state.pieces["d0"])


# ============================================================================ sources (OT 11C2)
@pytest.mark.rules("OT 11C2a", "OT 11C2")
def test_ot_11c2a_factories_and_multi_hex_cities() -> None:
    places = [
        ("0101", "partial-city", "P1"),
        ("0102", "partial-city", "P2"),
        ("0301", "factory", "F"),
        ("0501", "factory", "Idle", {"in_production": False}),
    ]
    nets = [{"name": "r", "kind": "rail", "paths": [["0101", "0201", "0301", "0401", "0501"]]}]
    g = game(places=places, networks=nets, cols=8, nrows=3, control=en_all_but_last(8, 3))
    assert supply.regular_sources(g, EN) == {idx(g, "0101"), idx(g, "0102"), idx(g, "0301")}
    zoc.on_ownership_change(g, idx(g, "0102"), EN, CP)  # one hex of the city: still a source
    assert idx(g, "0101") in supply.regular_sources(g, EN)


def special_game(**kw: object):
    pieces = [division("u", "France", "0303", supply_out_since=0), res("rp", "0304")]
    return game(
        pieces=pieces, cols=6, nrows=6, control=en_all_but_last(6, 6), skip_special=False, **kw
    )


@pytest.mark.rules("OT 11C2b", "OT 11C2bi")
def test_ot_11c2b_special_source_supplies_but_count_keeps_running() -> None:
    """OT-G-87: a unit starting its second turn out of supply draws on a Res Pt: in general supply
    for
    the player turn, still in its second turn out, not checked for elimination."""
    g = special_game()
    assert step_name(g) == "special-supply"
    u = g.state.pieces["u"]
    assert supply.out_of_supply_count(g, u) == 2
    acts = [a for a in g.legal_actions(EN) if a["type"] == "draw-supply"]
    assert acts == [
        {"type": "draw-supply", "side": EN, "source": "rp", "via": "res-pt", "pieces": ["u"]}
    ]
    g.apply(acts[0])
    assert supply.in_general_supply(g, u) and supply.turns_out_of_supply(g, u) == 0
    assert supply.out_of_supply_count(g, u) == 2
    assert step_name(g) != "special-supply"  # nothing left to choose: the step ends by itself
    assert not any(e["type"] == "roll" and "supply elimination" in e["text"] for e in g.state.log)
    while g.current() is not None and g.current()[1].step in ("special-supply", "initial-actions"):
        end(g)
    assert g.state.pieces["rp"].loc == Loc.box(
        "expended"
    )  # removed at the end of the initial phase


@pytest.mark.rules("OT 11C2b")
def test_ot_11c2b_special_supply_refusals() -> None:
    g = special_game()
    with pytest.raises(IllegalAction):
        g.apply({"type": "draw-supply", "side": EN, "source": "nothing", "pieces": ["u"]})
    with pytest.raises(IllegalAction):
        g.apply({"type": "draw-supply", "side": EN, "source": "rp", "pieces": []})


@pytest.mark.rules("OT 11C2bii")
def test_ot_11c2bii_gsp_lifetime_three_initial_phases() -> None:
    """OT-G-88: a CP GSP generated in the CP initial phase of Dec I 14 lasts through the Entente Dec
    II
    14 player turn and the CP Dec II 14 initial phase."""
    g = net_game(20, depots=1, extra=[])
    d = g.state.pieces["d0"]
    g.state.turn = {"index": 1, "label": "Dec I 14"}
    from grognard.rulesets.greatwar.mechanics import gw

    gw(g)["phasing"] = CP
    born = supply.player_turn_ordinal(g)
    made = logistics.generate_gsps(g, d, 2)
    assert (
        logistics.gsp_stacks(g, EN, usable_now=True) == {}
    )  # not in the initial phase that made them
    logistics.expire_gsps(g)
    assert made[0].loc.kind == "hex"
    g.state.turn = {"index": 2, "label": "Dec II 14"}
    gw(g)["phasing"] = EN
    assert supply.player_turn_ordinal(g) == born + 1
    assert len(logistics.gsp_stacks(g, EN, usable_now=True)[idx(g, "0501")]) == 2
    logistics.expire_gsps(g)
    assert made[0].loc.kind == "hex"
    gw(g)["phasing"] = CP
    logistics.expire_gsps(g)  # end of the third initial phase
    assert made[0].loc == Loc.box("expended")


@pytest.mark.rules("OT 11C2bii")
def test_ot_11c2bii_generation_caps_by_route() -> None:
    """OT-G-89: a route with 10 low-volume hexes and a standard port: cap 4 (the worst bracket)."""
    g = long_rail(3, "high")
    assert logistics.gsp_cap(g, g.state.pieces["dep"]) == 16
    g = long_rail(5, "low")
    assert logistics.gsp_cap(g, g.state.pieces["dep"]) == 8
    g = long_rail(10, "low")
    assert logistics.gsp_cap(g, g.state.pieces["dep"]) == 4
    g = long_rail(16, "low")
    assert logistics.gsp_cap(g, g.state.pieces["dep"]) == 1
    g = naval_game("standard")
    assert logistics.gsp_cap(g, g.state.pieces["dep"]) == 8
    g = naval_game("minor")
    assert logistics.gsp_cap(g, g.state.pieces["dep"]) == 4


@pytest.mark.rules("OT 11C2bii")
def test_ot_11c2bii_gsp_supplies_one_re_each() -> None:
    g = game(
        pieces=[
            unit("b", "rifle", "France", "0303", size="brigade", supply_out_since=0),
            unit("gs1", "gsp", "France", "0304", size="", faces={}),
            unit("gs2", "gsp", "France", "0304", size="", faces={}),
        ],
        cols=6,
        nrows=6,
        control=en_all_but_last(6, 6),
    )
    opts = supply.special_options(g, EN)
    assert [(o.kind, o.capacity, o.eligible) for o in opts] == [("gsp", 2, ["b"])]


def fortress_game(isolated: bool):
    places = [("0303", "fortress", "Fort", {"state": "improved", "type": "new"})]
    pieces = [
        division("u", "France", "0303", supply_out_since=0),
        unit("r", "rifle", "France", "0303", size="brigade", supply_out_since=0),
    ]
    ctl = en_all_but_last(6, 6)
    if isolated:
        ring = ["0202", "0203", "0302", "0304", "0402", "0403"]
        ctl = {EN: ["0303"], CP: [h for h in hexes(6, 6) if h != "0303"]}
        pieces += [division(f"g{k}", "Germany", h) for k, h in enumerate(ring)]
    return game(places=places, pieces=pieces, cols=6, nrows=6, control=ctl, skip_special=False)


@pytest.mark.rules("OT 11C2biii")
def test_ot_11c2biii_improved_fortress_supplies_fifteen_re_in_its_hex() -> None:
    g = fortress_game(False)
    opts = [o for o in supply.special_options(g, EN) if o.kind == "fortress"]
    assert opts and opts[0].capacity == 15 and sorted(opts[0].eligible) == ["r", "u"]


@pytest.mark.rules("OT 11C2biii")
def test_ot_11c2biii_isolated_fortress_may_be_depleted() -> None:
    g = fortress_game(True)
    assert supply_status.is_isolated(g, EN, idx(g, "0303"))
    a = next(a for a in g.legal_actions(EN) if a["type"] == "draw-supply")
    force_dice(g, [6])  # the enemy's roll succeeds: depleted
    g.apply(a)
    while step_name(g) == "special-supply":
        end(g)
    from grognard.rulesets.greatwar.mechanics import gw

    assert gw(g).get("depleted", {}).get(str(idx(g, "0303")))
    assert not supply.improved_fortress_hexes(g, EN)


@pytest.mark.rules("OT 11C2b", "OT 11C2bii", "OT 11C2biii")
def test_ot_11c2b_gsp_stack_and_improved_fortress_in_one_hex_are_two_sources() -> None:
    """Two GSPs (1 RE each) in the hex of an improved fortress (15 RE): both sources are offered,
    and
    the fortress may supply more than the GSPs could (found by self-play of marne-1914, game 88 of
    seed 1: the fortress offer was checked against the GSPs' capacity and refused)."""
    places = [("0303", "fortress", "Fort", {"state": "improved", "type": "new"})]
    pieces = [
        division("u", "France", "0303", supply_out_since=0),
        unit("r", "rifle", "France", "0303", size="brigade", supply_out_since=0),
        unit("gs1", "gsp", "France", "0303", size="", faces={}),
        unit("gs2", "gsp", "France", "0303", size="", faces={}),
    ]
    g = game(
        places=places,
        pieces=pieces,
        cols=6,
        nrows=6,
        control=en_all_but_last(6, 6),
        skip_special=False,
    )
    acts = {a["via"]: a for a in g.legal_actions(EN) if a["type"] == "draw-supply"}
    assert (
        set(acts) == {"gsp", "fortress"}
        and acts["gsp"]["source"] == acts["fortress"]["source"] == "0303"
    )
    assert acts["gsp"]["pieces"] == ["r"] and sorted(acts["fortress"]["pieces"]) == ["r", "u"]
    g.apply(acts["fortress"])
    from grognard.rulesets.greatwar.mechanics import gw

    assert gw(g)["supply"]["special"][-1] == {
        "kind": "fortress",
        "source": "0303",
        "pieces": acts["fortress"]["pieces"],
    }
    assert all(supply.in_general_supply(g, g.state.pieces[x]) for x in ("r", "u"))
    g2 = game(
        places=places,
        pieces=pieces,
        cols=6,
        nrows=6,
        control=en_all_but_last(6, 6),
        skip_special=False,
    )
    with pytest.raises(
        IllegalAction, match="at most 2 RE"
    ):  # the GSPs alone cannot carry both units
        g2.apply(
            {
                "type": "draw-supply",
                "side": EN,
                "source": "0303",
                "via": "gsp",
                "pieces": ["r", "u"],
            }
        )
    g2.apply(
        {"type": "draw-supply", "side": EN, "source": "0303", "pieces": ["r", "u"]}
    )  # without "via": the fortress
    assert gw(g2)["supply"]["special"][-1]["kind"] == "fortress"


# =========================================================================== combat supply (OT 11D)
@pytest.mark.rules("OT 11D", "OT 8C2")
def test_ot_11d_combat_supply_re_counting() -> None:
    """OT-G-46: a heavy artillery regiment counts 2 RE, 4 RE in an overstack."""
    g = game(
        pieces=[unit("ha", "heavy-artillery", "France", "0101"), division("d", "France", "0102")]
    )
    p = g.state.pieces["ha"]
    assert supply.combat_supply_re(g, p) == 2
    p.status.add(stacking.OVERSTACKED)
    assert supply.combat_supply_re(g, p) == 4
    assert supply.combat_supply_re(g, g.state.pieces["d"]) == 5


def cs_game(hq: bool = False, n: int = 7):
    pieces = [res("rp", "0303")] + [
        division(f"d{k}", "France", f"03{(k % 3) + 2:02d}") for k in range(n)
    ]
    if hq:
        pieces.append(army_hq("hq", "France", "0303"))
    return game(
        pieces=pieces,
        cols=6,
        nrows=6,
        control=en_all_but_last(6, 6),
        options={"overstacking": True},
    )


@pytest.mark.rules("OT 11D")
def test_ot_11d_res_pt_supplies_30_or_150_re() -> None:
    g = cs_game()
    ps = [g.state.pieces[f"d{k}"] for k in range(7)]
    cs = supply.combat_supply(g, EN, ps, "combat")
    assert len(cs.supplied) == 6  # 2 RE free + 30 RE from the Res Pt: 6 divisions of 5 RE
    g2 = cs_game(hq=True)
    cs2 = supply.combat_supply(g2, EN, [g2.state.pieces[f"d{k}"] for k in range(7)], "combat")
    assert len(cs2.supplied) == 7 and supply.res_pt_capacity(g2, g2.state.pieces["rp"]) == 150


@pytest.mark.rules("OT 11D")
def test_ot_11d_free_allowance_and_removal_at_segment_end() -> None:
    g = game(
        pieces=[
            res("rp", "0303"),
            unit("a", "rifle", "France", "0302", size="brigade"),
            unit("b", "rifle", "France", "0304", size="brigade"),
        ],
        cols=6,
        nrows=6,
        control=en_all_but_last(6, 6),
    )
    from grognard.rulesets.greatwar.mechanics import gw

    gw(g)["phase"] = "combat"
    cs = supply.combat_supply(g, EN, [g.state.pieces["a"]], "combat", commit=True)
    assert cs.supplied == {"a": "free:rp"}  # 2 RE of units draw without spending the Res Pt
    supply.end_of_segment(g, "combat")
    assert g.state.pieces["rp"].loc.kind == "hex"
    cs = supply.combat_supply(g, EN, [g.state.pieces["b"]], "combat", commit=True)
    assert cs.supplied == {}  # the free Res Pt supplies no other units this phase
    g2 = game(
        pieces=[res("rp", "0303"), division("d", "France", "0302")],
        cols=6,
        nrows=6,
        control=en_all_but_last(6, 6),
    )
    gw(g2)["phase"] = "combat"
    supply.combat_supply(g2, EN, [g2.state.pieces["d"]], "bombardment", commit=True)
    supply.end_of_segment(g2, "bombardment")
    assert g2.state.pieces["rp"].loc == Loc.box("expended")  # spent in the bombardment segment
    assert supply.combat_supply(g2, EN, [g2.state.pieces["d"]], "combat").supplied == {}


@pytest.mark.rules("OT 11D", "OT 11E", "OT 6B4")
def test_ot_11d_res_pt_with_foreign_army_hq_and_fatigue_hq() -> None:
    g = game(
        pieces=[
            res("rp", "0303"),
            army_hq("bhq", "Britain", "0303"),
            division("d", "France", "0302"),
            division("bd", "Britain", "0304"),
        ],
        cols=6,
        nrows=6,
        control=en_all_but_last(6, 6),
    )
    cs = supply.combat_supply(g, EN, [g.state.pieces["d"], g.state.pieces["bd"]], "combat")
    assert "d" not in cs.supplied and "bd" in cs.supplied
    g.state.pieces["bhq"].attrs["fatigue"] = 3
    assert supply.combat_supply_hq(g, EN, [g.state.pieces["bd"]]).id == "bhq"  # type: ignore[union-attr]


@pytest.mark.rules("OT 11D", "OT 6B4", "OT 14M1")
@pytest.mark.parametrize(("die", "face", "column"), [(6, "active", "3:2"), (1, "inactive", "3:1")])
def test_ot_11d_only_an_active_army_hq_is_part_of_the_combat_supply_source(
    die: int, face: str, column: str
) -> None:
    """Reaction combat: the German g1 (30 attack, in the ZOI of the active hq1) attacks f1 (10
    defense) at 3:1, drawing combat supply from a Res Pt stacked with hq2, which carries 3 fatigue
    hits. If hq2 passed its activation check, g1 traces combat supply through it and the odds shift
    two levels down (OT 6B4: one per two hits or fraction): 3:2. If it failed, the inactive hq2 is
    no part of the source (OT 11D): no shift, the attack stays at 3:1."""
    hq2 = army_hq("hq2", "Germany", "0603")
    hq2["attrs"]["fatigue"] = 3
    g = game_with(
        pieces=[
            division("f1", "France", "0403", a=1, d=10),
            res("rp", "0303"),
            division("g1", "Germany", "0503", a=30, d=10),
            army_hq("hq1", "Germany", "0604"),
            res("grp", "0603", nation="Germany"),
            hq2,
        ]
    )
    run_to(g, "reaction-movement")
    force_dice(g, [6, die])
    g.apply({"type": "check-hq", "side": CP, "hq": "hq1"})
    g.apply({"type": "check-hq", "side": CP, "hq": "hq2"})
    assert g.state.pieces["hq1"].face == "active" and g.state.pieces["hq2"].face == face
    attack(g, "0403", ["g1"], side=CP, reaction=True)
    drive(g)
    sup = [e["data"]["supplied"] for e in g.state.log if e["type"] == "combat-supply"]
    assert sorted(sup) == [["f1"], ["g1"]]
    odds = next(e for e in g.state.log if e["type"] == "odds")
    assert odds["data"]["odds"] == "3:1"
    res_ev = next(e for e in g.state.log if e["type"] == "result")
    assert res_ev["data"]["column"] == column


# ============================================================================ nationality (OT 11E)
@pytest.mark.rules("OT 11E")
def test_ot_11e_home_territory_army_hq_nationality_and_minor_powers() -> None:
    rules = 'home_territory = { France = ["0101", "0301"], Belgium = ["0601"] }'
    nations = {"France": EN, "Germany": CP, "Britain": EN, "Belgium": EN}
    places = [("0101", "partial-city", "A"), ("0301", "partial-city", "B")]
    nets = [{"name": "r", "kind": "rail", "paths": [["0101", "0201", "0301"]]}]
    pieces = [
        division("f", "France", "0102"),
        division("be", "Belgium", "0102"),
        army_hq("bhq", "Britain", "0303"),
        division("b", "Britain", "0304"),
    ]
    g = game(
        rules=rules,
        nations=nations,
        places=places,
        networks=nets,
        pieces=pieces,
        cols=8,
        nrows=4,
        control=en_all_but_last(8, 4),
    )
    assert supply.source_allowed(g, "France", idx(g, "0101"))
    assert supply.source_allowed(
        g, "Belgium", idx(g, "0101")
    )  # a minor power uses the sources of France
    tr = supply.trace_general(g, EN)
    assert {"f", "be"} <= set(tr.supplied)
    assert not supply.hq_allowed(g, "France", g.state.pieces["bhq"])
    g2 = game(
        rules='home_territory = { Britain = ["0801"] }',
        nations=nations,
        places=places,
        networks=nets,
        pieces=[division("b", "Britain", "0102")],
        cols=8,
        nrows=4,
        control=en_all_but_last(8, 4),
    )
    assert (
        "b" not in supply.trace_general(g2, EN).supplied
    )  # French cities are outside its home territory


# ============================================================================ effects (OT 11F)
@pytest.mark.rules("OT 11F")
def test_ot_11f_turns_out_of_supply_count_two_player_turns() -> None:
    """OT-G-90: an Entente unit first found out in the CP initial phase of Dec I 14: its first turn
    out
    is that CP player turn and the Entente Dec II 14 player turn."""
    g = game(
        pieces=[division("d", "France", "0101")],
        turns=[("Dec I 14", {}), ("Dec II 14", {}), ("Jan I 15", {})],
    )
    from grognard.rulesets.greatwar.mechanics import gw

    p = g.state.pieces["d"]
    gw(g)["phasing"] = CP
    p.attrs["supply_out_since"] = supply.player_turn_ordinal(g)
    assert supply.out_of_supply_count(g, p) == 1
    g.state.turn = {"index": 2, "label": "Dec II 14"}
    gw(g)["phasing"] = EN
    assert supply.out_of_supply_count(g, p) == 1
    gw(g)["phasing"] = CP
    assert supply.out_of_supply_count(g, p) == 2


@pytest.mark.rules("OT 11F", "OT 11F1", "OT 11F2")
def test_ot_11f_strength_multipliers() -> None:
    """OT-G-91 (the U-1 not isolated value is the option default)."""
    g = game(pieces=[division("d", "France", "0101", a=4, d=6)])
    p = g.state.pieces["d"]
    p.attrs.pop("supply_out_since", None)
    assert 4 * strength_factor(g, p, False) == 2
    p.attrs["supply_out_since"] = supply.player_turn_ordinal(g)
    assert 4 * strength_factor(g, p, False, isolated=True) == 1
    assert 4 * strength_factor(g, p, False, isolated=False) == 2
    p.attrs["supply_out_since"] = supply.player_turn_ordinal(g) - 2
    assert 4 * strength_factor(g, p, False) == 1
    assert 4 * strength_factor(g, p, True) == 4
    g2 = game(
        pieces=[division("d", "France", "0101", a=4, d=6)],
        options={"u1-not-isolated-halved": False},
    )
    q = g2.state.pieces["d"]
    q.attrs["supply_out_since"] = supply.player_turn_ordinal(g2)
    assert strength_factor(g2, q, False, isolated=False) == 1


@pytest.mark.rules("OT 11F1", "OT 11F2")
def test_ot_11f1_11f2_movement_zoc_aa_and_special_effects() -> None:
    g = game(pieces=[unit("tk", "tank", "France", "0101", m=6), division("d", "France", "0102")])
    tk, d = g.state.pieces["tk"], g.state.pieces["d"]
    for p in (tk, d):
        p.attrs["supply_out_since"] = supply.player_turn_ordinal(g)
    assert supply.movement_factor(g, tk) == Fraction(1, 2) and supply.movement_factor(g, d) == 1
    assert supply.has_special_effects(g, tk) and supply.aa_factor(g, tk) == 1
    assert zoc.zoc_level(g, d) == "full"
    d.attrs["supply_out_since"] = supply.player_turn_ordinal(g) - 2
    assert supply.movement_factor(g, d) == Fraction(1, 2) and movement.movement_allowance(
        g, d
    ) == Fraction(5, 2)
    assert zoc.zoc_level(g, d) == "reduced" and supply.zoc_reduced_by_supply(g, d)
    assert not supply.has_special_effects(g, d) and supply.aa_factor(g, d) == Fraction(1, 2)


@pytest.mark.rules("OT 11F3")
def test_ot_11f3_elimination_modifiers() -> None:
    """OT-G-92: in a major city in snow, +3 and no -1."""
    places = [("0101", "partial-city", "A")]
    g = game(places=places, turns=[("Jan I 15", {"weather": "snow"}), ("Jan II 15", {})])
    assert supply.elimination_modifiers(g, idx(g, "0101")).total() == 3
    assert supply.elimination_modifiers(g, idx(g, "0202")).total() == -1
    g2 = game(places=places, turns=[("Jan I 15", {"weather": "mud"})])
    assert supply.elimination_modifiers(g2, idx(g2, "0202")).total() == 0


@pytest.mark.rules("OT 11F3")
def test_ot_11f3_isolated_unit_in_second_turn_out_may_be_eliminated() -> None:
    g = game(
        pieces=[
            division("d", "France", "0202", supply_out_since=-2),
            division("e", "France", "0204", supply_out_since=2),
        ],
        cols=4,
        nrows=4,
    )
    assert supply_status.is_isolated(g, EN, idx(g, "0202"))
    assert g.state.pieces["d"].loc == Loc.box("eliminated") or any(
        "supply elimination check of d" in e["text"] for e in g.state.log
    )
    assert not any(
        "supply elimination check of e" in e["text"] for e in g.state.log
    )  # first turn out: no check
    rolls = [
        e
        for e in g.state.log
        if e["type"] == "roll" and "supply elimination check of d" in e["text"]
    ]
    assert len(rolls) == 1


@pytest.mark.rules("OT 11B")
def test_ot_11b_supply_invariant_detects_tampering() -> None:
    g = chain_game()
    assert supply.supply_invariant(g) == []
    g.state.pieces["u1"].attrs["supply_out_since"] = 0
    assert any("counted out of supply" in x for x in supply.supply_invariant(g))
    assert any("OT 11B" in x for x in g.ruleset.invariants(g)) or supply.supply_invariant(g)


@pytest.mark.rules("OT 11B")
def test_ot_11b_status_holds_for_the_player_turn() -> None:
    g = chain_game()
    u2 = g.state.pieces["u2"]
    assert supply.turns_out_of_supply(g, u2) == 1
    g.apply({"type": "move", "side": EN, "piece": "u2", "path": ["0507"]})
    assert supply.turns_out_of_supply(g, u2) == 1  # judged in the initial phase only
    assert frame(g).step == "ground-movement"
    assert units.hex_of(g, u2) == idx(g, "0507")


@pytest.mark.rules("OT 11B1", "OT 11B2", "OT 14O3")
def test_ot_11b_transport_units_extend_overland_and_road_elements() -> None:
    """OT-S-12: in mud the overland and road elements are 2 hexes; a supply-line transport on the
    overland path makes it 3, another on the road path makes the road 3."""
    ctl = {EN: [f"0{c}0{r}" for c in range(1, 8) for r in (1, 2)], CP: []}
    mt = unit("mt", "motorized-transport", "France", "0301", a=0, d=0, m=8, status=["supply-line"])
    g = game(
        rows=["ccccccc", "ccccccc"],
        control=ctl,
        pieces=[mt],
        turns=[("Oct I 14", {"weather": "mud"})],
    )
    d = supply.overland_distances(g, EN, [idx(g, "0101")])
    assert (
        d[idx(g, "0401")] == 2
    )  # 3 hexes, one of them with the transport: within the mud length of 2
    g2 = game(rows=["ccccccc", "ccccccc"], control=ctl, turns=[("Oct I 14", {"weather": "mud"})])
    assert supply.overland_distances(g2, EN, [idx(g2, "0101")])[idx(g2, "0401")] == 3
    nets = [{"name": "rd", "kind": "road", "paths": [["0101", "0201", "0301", "0401", "0501"]]}]
    g3 = game(
        rows=["ccccccc", "ccccccc"],
        control=ctl,
        networks=nets,
        pieces=[mt],
        turns=[("Oct I 14", {"weather": "mud"})],
    )
    assert supply.road_distances(g3, EN, [idx(g3, "0101")])[idx(g3, "0401")] == 2


@pytest.mark.rules("OT 11B", "OT 16")
def test_ot_11b_a_unit_back_in_play_after_the_check_has_its_new_location_status() -> None:
    """Found by self-play of the Marne: a unit out of supply at the check, eliminated and replaced
    in the same player turn at a city in regular supply, is in supply there (OT 16); the supply
    check's finding for its old place no longer applies to it."""
    from grognard.rulesets.greatwar.logistics import replacements

    g = chain_game()
    u2 = g.state.pieces["u2"]
    assert "supply_out_since" in u2.attrs and "u2" in gw(g)["supply"]["checked"][EN]
    units.eliminate(g, u2, "OT 11F3")
    replacements.receive_piece(g, u2, idx(g, "0101"), "OT 16B3c", "replaced")
    assert "supply_out_since" not in u2.attrs
    assert "u2" not in gw(g)["supply"]["checked"][EN]
    assert supply.supply_invariant(g) == []
