"""LGG 9: supply - sources, relays, distance, rail capacity, fortresses, the sea, isolation.

A unit is supplied when it lies within two hexes (one from a desert hex) of a supply source
or relay, counted from the unit (its own hex excluded), over hexes it could enter, never
through a hex held by an enemy unit nor through the ZoC of an unbesieged enemy fortress
unless friendly units stand there (9, 9-C, 9-E). The whole supply picture of a side is
computed at once (:func:`supply_report`) and kept for the position:

1. sources (9-A): friendly major-power capitals; national cities and localities connected by
   rail, waterway or sea to another national city (conquered places do not count; the
   scenario's ``virtual_rail`` links count, e.g. Varna); major ports linked to a friendly port
   through seas not under enemy control; minor ports likewise but for one army only (digest
   A-42: the army nearest to the port, never the main army);
2. relays (9-B): usable rail hexes connected to a source, waterway hexes connected to a
   source with no enemy-controlled bank, HQs and GHQs within supply distance of a source or
   relay (an HQ relays for its own nation and for the units its army commands), an HQ
   relayed by another HQ being the end of the chain, each HQ relaying for one other HQ only;
   an HQ on a beach next to a sea its side controls that leads to a source port (9-F);
3. limited rail sections (9-D): a section of capacity 1 carries one HQ (and the units it
   supplies) or 4 independent units and that HQ may not relay for another HQ; capacity 2
   carries two HQs or 6 independent units, the second HQ only if one supplies the other.
   Mixed loads are counted pro rata (12 points per section: an HQ 12/c, a unit 12/4 or 12/6);
   HQs are served first, then units, in id order;
4. fortresses (9-A, 23-A): a fortress is always supplied with the units inside it, and
   supplies one corps outside it in its own hex; a city supplies one corps in its own hex,
   even an isolated one.

Isolation (9-H and 22) uses a notional trace that ignores terrain costs; see
:func:`isolated_9h`, :func:`cut_off_22` and the option ``isolation-test`` (digest A-3). The
trace crosses an unbesieged enemy fortress's ZoC where friendly units stand, as 9-E allows for
supply (our reading: 9-H names fortress ZoCs without repeating the exception).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418 import paths
from grognard.rulesets.lgg1418.map import knowledge, mapdata, railways
from grognard.rulesets.lgg1418.map.zoc import BESIEGED, zoc_map
from grognard.rulesets.lgg1418.units.counters import command_army
from grognard.search.trace import trace_from_sources

if TYPE_CHECKING:
    from grognard.core.game import Game

POINTS = 12
ISOLATION_RANGE = 5


@dataclass
class SupplyReport:
    """The supply picture of one side in the current position."""

    side: str
    sources: set[int] = field(default_factory=set)
    rail: dict[int, float] = field(default_factory=dict)
    rail_section: dict[int, int] = field(default_factory=dict)
    waterway: set[int] = field(default_factory=set)
    maritime: set[int] = field(default_factory=set)
    minor_ports: dict[int, str | None] = field(default_factory=dict)
    hq_relays: dict[str, int] = field(default_factory=dict)
    supplied: dict[str, str] = field(default_factory=dict)
    section_load: dict[int, int] = field(default_factory=dict)
    own_hex_used: set[int] = field(default_factory=set)

    def relay_hexes(self) -> set[int]:
        """Every hex acting as a source or relay (for the 5-hex isolation test of 9-H)."""
        return (
            set(self.sources)
            | set(self.rail)
            | set(self.waterway)
            | set(self.maritime)
            | set(self.minor_ports)
            | set(self.hq_relays.values())
        )


# ====================================================================== seas (9-F)
@implements("LGG 9-F")
def sea_control(g: Game, sea: str) -> str | None:
    """LGG 9-F: who controls a sea: the Baltic the Central Powers, the North Sea, Adriatic and
    Black Sea nobody, every other sea the Allies, unless the state or scenario says otherwise."""
    st = M.st(g).get("sea_control", {})
    if sea in st:
        return st[sea] or None
    scen = M.rules(g).sea_control
    if sea in scen:
        return scen[sea] or None
    table = M.data(g).powers["sea_control"]
    v = table.get(sea, table["default"])
    return v or None


def _seas(g: Game) -> dict[str, tuple[str, ...]]:
    return {a.name: a.adjacent for a in g.board.areas.values() if a.kind == "sea"}


def seas_open_from(g: Game, side: str, sea: str) -> set[str]:
    """Seas reachable from ``sea`` through seas not under enemy control."""
    seas = _seas(g)
    enemy = M.other_side(side)
    if sea not in seas or sea_control(g, sea) == enemy:
        return set()
    adj: dict[str, set[str]] = {s: set(a) for s, a in seas.items()}
    for s, a in seas.items():
        for t in a:
            adj.setdefault(t, set()).add(s)
    out = {sea}
    todo = [sea]
    while todo:
        s = todo.pop()
        for t in adj.get(s, ()):
            if t not in out and sea_control(g, t) != enemy:
                out.add(t)
                todo.append(t)
    return out


# ====================================================================== sources (9-A)
def _national_for(g: Game, side: str, i: int) -> bool:
    n = mapdata.place_nation(g, i)
    return n is not None and M.nation_side(g, n) == side


def _friendly_ports(g: Game, side: str) -> list[int]:
    return [
        i
        for i in mapdata.point_hexes(g, "port")
        if mapdata.port_size(g, i) and mapdata.controller(g, i) == side
    ]


def _virtual_rail(g: Game) -> list[tuple[int, int]]:
    out = []  # type: ignore[var-annotated]
    for chain in M.rules(g).virtual_rail:
        idx = [g.board.idx(h) for h in chain]
        out.extend(itertools.pairwise(idx))
    return out


@implements("LGG 9-A")
def supply_sources(g: Game, side: str) -> tuple[set[int], dict[int, str | None]]:
    """LGG 9-A: the supply sources of ``side`` and its minor-port sources (port -> army or None)."""
    sources: set[int] = set()
    for i in mapdata.point_hexes(g, "city"):
        if (
            mapdata.is_capital(g, i)
            and _national_for(g, side, i)
            and mapdata.controller(g, i) == side
        ):
            sources.add(i)
    # national cities and localities linked by rail, waterway or sea to another national city
    blocking = M.enemy_blocking_hexes(g, side)
    urban = [
        i
        for i in mapdata.point_hexes(g, "urban")
        if mapdata.controller(g, i) == side and i not in blocking and _national_for(g, side, i)
    ]
    virtual = _virtual_rail(g)

    def rail_step(u: int) -> list[int]:
        out = [j for j, _ in railways.rail_neighbours(g, side, u)]
        out += [b for a, b in virtual if a == u] + [a for a, b in virtual if b == u]
        return out

    def water_step(u: int) -> list[int]:
        return [j for j in mapdata.waterway_links(g, u) if _waterway_usable(g, side, j)]

    cities = {i for i in urban if mapdata.is_city(g, i)}
    # Without virtual links the usable railway is an undirected graph: a breadth-first search from
    # a rail hex reaches exactly its connected component, computed once for every place.
    component = {} if virtual else _rail_components(g, side)
    comp_cities: dict[int, set[int]] = {}
    for c in cities:
        if c in component:
            comp_cities.setdefault(component[c], set()).add(c)
    for i in urban:
        others = cities - {i}
        if not others:
            continue
        linked = False
        if not virtual and i in component:
            linked = bool(comp_cities.get(component[i], set()) - {i})
        elif railways.rail_usable(g, side, i) or any(i in pair for pair in virtual):
            linked = bool(set(paths.bfs([i], rail_step)) & others)
        if not linked and _waterway_usable(g, side, i):
            linked = bool(set(paths.bfs([i], water_step)) & others)
        if not linked and mapdata.port_sea(g, i):
            linked = any(_sea_linked(g, side, i, j) for j in others if mapdata.port_sea(g, j))
        if linked:
            sources.add(i)
    minor: dict[int, str | None] = {}
    ports = _friendly_ports(g, side)
    for i in ports:
        if i in M.enemy_blocking_hexes(g, side):
            continue
        others = [j for j in ports if j != i and _national_for(g, side, j)]  # type: ignore[assignment]
        if not any(_sea_linked(g, side, i, j) for j in others):
            continue
        if mapdata.port_size(g, i) == "major":
            sources.add(i)
        elif i not in sources:
            minor[i] = _minor_port_army(g, side, i)
    return sources, minor


def _rail_components(g: Game, side: str) -> dict[int, int]:
    """Usable rail hex of ``side`` -> the number of its connected piece of railway."""
    graph = railways.rail_graph(g, side)
    comp: dict[int, int] = {}
    for start in sorted(railways.usable_rail(g, side)):
        if start in comp:
            continue
        for h in paths.bfs([start], lambda u: [j for j, _ in graph.get(u, ())]):
            comp[h] = start
    return comp


def _sea_linked(g: Game, side: str, i: int, j: int) -> bool:
    a, b = mapdata.port_sea(g, i), mapdata.port_sea(g, j)
    if not a or not b:
        return False
    return b in seas_open_from(g, side, a)


@implements("LGG 9-A")
def _minor_port_army(g: Game, side: str, port: int) -> str | None:
    """LGG 9-A (digest A-42): the one army a minor port supplies - the army with a unit nearest
    to the port (ties by army id), never a main army."""

    mains = set(M.st(g).get("main_army", {}).get(side, {}).values())
    best: tuple[int, str] | None = None
    for p in M.iter_units(g, side):
        a = command_army(g, p)
        h = M.hex_of(g, p)
        if a is None or h is None or a in mains:
            continue
        key = (g.board.distance(h, port), a)
        if best is None or key < best:
            best = key
    return best[1] if best else None


def _waterway_usable(g: Game, side: str, i: int) -> bool:
    return mapdata.controller(g, i) in (None, side) and i not in M.enemy_blocking_hexes(g, side)


# ====================================================================== supply trace (9-C, 9-E)
@implements("LGG 9-E")
def _fortress_zoc_blocks(g: Game, side: str, i: int) -> bool:
    """LGG 9-E: the ZoC of an unbesieged enemy fortress blocks supply unless friendly units are
    there."""
    if "fortress" not in zoc_map(g, M.other_side(side)).get(i, frozenset()):
        return False
    return not any(M.is_unit(p) for p in M.occupied(g, side).get(i, []))


def can_enter_for_supply(g: Game, side: str, p: Piece | None, i: int, j: int) -> bool:
    """LGG 9-C: a supply trace step: passable for the unit, no enemy unit, no blocking fortress ZoC;
    a friendly strait may be crossed."""
    for f in mapdata.hexside_features(g, i, j):
        if f.impassable and not (
            f.supply_if_friendly and mapdata.controller(g, i) == side == mapdata.controller(g, j)
        ):
            return False
    info = mapdata.terrain_info(g, j)
    if info.impassable or mapdata.is_neutral_hex(g, j):
        return False
    if info.mountain_corps_only and not (p is not None and M.arm(p) == "mountain"):
        return False
    if j in M.enemy_blocking_hexes(g, side):
        return False
    return not _fortress_zoc_blocks(g, side, j)


@implements("LGG 9-C")
def supply_range(g: Game, i: int) -> int:
    """LGG 9-C: two hexes, only one in the desert."""
    return mapdata.terrain_info(g, i).supply_range


def trace(g: Game, side: str, p: Piece | None, start: int, reach: int) -> dict[int, int]:
    """Hexes within ``reach`` supply steps of ``start`` (9-C)."""
    ok = _supply_hexes(g, side)
    mountain = p is not None and M.arm(p) == "mountain"
    nbrs = mapdata.neighbour_lists(g)
    hard, soft = _closed_sides(g)
    control = g.state.control

    def step(u: int) -> list[int]:
        out = []
        for j in nbrs[u]:
            if j not in ok and not (
                mountain
                and mapdata.terrain_info(g, j).mountain_corps_only
                and can_enter_for_supply(g, side, p, u, j)
            ):
                continue
            pair = (u, j)
            if pair in hard or (pair in soft and not (control.get(u) == side == control.get(j))):
                continue  # the same test as _side_ok
            out.append(j)
        return out

    return paths.bfs([start], step, max_depth=reach)


def _supply_distance(g: Game, side: str, targets: set[int]) -> np.ndarray:
    """Supply-trace distance (9-C) from every hex to the nearest of ``targets``, at most 2
    (``inf`` beyond), with the project's multi-source tracer."""
    if not targets:
        return np.full(g.board.n, np.inf)
    cost, _ = _trace_arrays(g, side)
    ok = _supply_hexes(g, side)
    blocked = np.ones(g.board.n, dtype=bool)
    if ok:
        blocked[np.fromiter(ok, dtype=np.int64)] = False
    res = trace_from_sources(g.board.nbr, cost, sorted(targets), limit=2, blocked=blocked)
    return res.dist[: g.board.n]


def _supply_hexes(g: Game, side: str) -> frozenset[int]:
    """Hexes a supply trace of ``side`` may enter (9-C, 9-E), ignoring the unit-specific terrain:
    the same set as :func:`_free_hexes` (open hexes, less the enemy-held ones and the blocking
    fortress ZoCs), computed once."""
    return _free_hexes(g, side)


# ====================================================================== the report
@implements("LGG 9", "LGG 9-B", "LGG 9-D", "LGG 9-F")
def supply_report(g: Game, side: str) -> SupplyReport:
    """LGG 9 / 9-B / 9-D / 9-F: sources, relays and the supply state of every unit of ``side``."""
    return M.memo(g, f"supply:{side}", lambda: _build(g, side))


def _build(g: Game, side: str) -> SupplyReport:

    rep = SupplyReport(side)
    rep.sources, rep.minor_ports = supply_sources(g, side)
    # rail relays with their bottleneck capacity (9-B, 9-D)
    starts = {i: math.inf for i in rep.sources if railways.rail_usable(g, side, i)}
    rep.rail = paths.widest(starts, lambda u: railways.rail_neighbours(g, side, u))
    for i, cap in rep.rail.items():
        if cap != math.inf:
            rep.rail_section[i] = _section_key(g, side, i, rep.rail)
    # waterway relays (9-B)
    water_starts = [
        i for i in rep.sources if _waterway_usable(g, side, i) and mapdata.waterway_links(g, i)
    ]
    rep.waterway = set(
        paths.bfs(
            water_starts,
            lambda u: [j for j in mapdata.waterway_links(g, u) if _waterway_usable(g, side, j)],
        )
    )
    # HQ relays on beaches (9-F)
    src_seas = {mapdata.port_sea(g, i) for i in rep.sources if mapdata.port_sea(g, i)}
    hqs = sorted(
        (p for p in M.iter_units(g, side) if p.type in ("hq", "ghq") and M.on_map(g, p)),
        key=lambda p: p.id,
    )
    for hq in hqs:
        h = M.hex_of(g, hq)
        assert h is not None
        for pt in mapdata.points(g, h, "beach"):
            sea = pt.attrs.get("sea")
            if (
                sea
                and sea_control(g, str(sea)) == side
                and seas_open_from(g, side, str(sea)) & src_seas
            ):
                rep.maritime.add(h)
    base_unlimited = (
        rep.sources
        | rep.waterway
        | rep.maritime
        | {i for i, c in rep.rail.items() if c == math.inf}
    )
    limited = {i: int(c) for i, c in rep.rail.items() if c != math.inf}
    load: dict[int, int] = {}

    def fits(section: int, cap: int, pts: int) -> bool:
        return load.get(section, 0) + pts <= POINTS

    def take(section: int, pts: int) -> None:
        load[section] = load.get(section, 0) + pts

    hq_cost = {
        1: POINTS // int(M.data(g).rail["section"]["1"]["hqs"]),
        2: POINTS // int(M.data(g).rail["section"]["2"]["hqs"]),
    }
    unit_cost = {
        1: POINTS // int(M.data(g).rail["section"]["1"]["independent_units"]),
        2: POINTS // int(M.data(g).rail["section"]["2"]["independent_units"]),
    }
    near_base = _supply_distance(g, side, base_unlimited)

    def on_base(p: Piece, h: int) -> bool:
        if M.arm(p) == "mountain":  # may cross high mountain: its own search
            return bool(set(trace(g, side, p, h, supply_range(g, h))) & base_unlimited)
        return bool(near_base[h] <= supply_range(g, h))

    # level-1 HQ relays
    hq_state: dict[str, tuple[int, int | None, int]] = {}  # id -> (hex, section or None, cap)
    reach_of: dict[str, dict[int, int]] = {}
    for hq in hqs:
        h = M.hex_of(g, hq)
        assert h is not None
        reach = trace(g, side, hq, h, supply_range(g, h))
        reach_of[hq.id] = reach
        if on_base(hq, h):
            hq_state[hq.id] = (h, None, 0)
            continue
        opts = sorted(
            ((limited[i], rep.rail_section[i]) for i in reach if i in limited),
            key=lambda t: (-t[0], t[1]),
        )
        for cap, sec in opts:
            if fits(sec, cap, hq_cost[min(cap, 2)]):
                take(sec, hq_cost[min(cap, 2)])
                hq_state[hq.id] = (h, sec, cap)
                break
    # level-2 HQ relays: one per relaying HQ, same nation, not through a capacity-1 section
    used_parent: set[str] = set()
    level1 = set(hq_state)
    for hq in hqs:
        if hq.id in hq_state:
            continue
        h = M.hex_of(g, hq)
        assert h is not None
        for parent in hqs:
            if parent.id not in level1 or parent.id in used_parent or parent.nation != hq.nation:
                continue
            ph, sec, cap = hq_state[parent.id]  # type: ignore[assignment]
            if ph not in reach_of[hq.id]:
                continue
            if sec is not None:
                if cap < 2 or not fits(sec, cap, hq_cost[2]):
                    continue
                take(sec, hq_cost[2])
            used_parent.add(parent.id)
            hq_state[hq.id] = (h, sec, cap)
            rep.supplied[hq.id] = f"relayed by {parent.id}"
            break
    for hid, (h, _sec, _cap) in hq_state.items():
        rep.hq_relays[hid] = h
        rep.supplied.setdefault(hid, "within reach of a source or relay")
    # every other unit
    relay_by_hex: dict[int, list[Piece]] = {}
    for hid, h in rep.hq_relays.items():
        relay_by_hex.setdefault(h, []).append(g.state.pieces[hid])
    mains = set(M.st(g).get("main_army", {}).get(side, {}).values())
    units = sorted(
        (p for p in M.iter_units(g, side) if p.id not in rep.supplied), key=lambda p: p.id
    )
    pending: list[Piece] = []
    for p in units:
        h = M.hex_of(g, p)
        if h is None:
            continue
        c = M.carrier(g, p)
        if c is not None and c.type == "fortress":
            rep.supplied[p.id] = "inside a fortress"
            continue
        if c is not None and c.id in rep.supplied:
            rep.supplied[p.id] = f"with {c.id}"
            continue
        if on_base(p, h):
            rep.supplied[p.id] = "within reach of a source or relay"
            continue
        hit = set(trace(g, side, p, h, supply_range(g, h)))
        army = command_army(g, p)
        ports = [
            i
            for i in hit & set(rep.minor_ports)
            if rep.minor_ports[i] == army and army not in mains
        ]
        if ports:
            rep.supplied[p.id] = "minor port"
            continue
        relay = None
        if p.type not in ("hq", "ghq"):  # HQ-to-HQ relays follow the chain rule above
            for i in sorted(hit):
                for hq in relay_by_hex.get(i, []):
                    own = army is not None and command_army(g, hq) == army
                    limited_hq = (
                        hq_state[hq.id][1] is not None
                    )  # 9-D: then it carries only its own units
                    if own or (hq.nation == p.nation and not limited_hq):
                        relay = hq
                        break
                if relay is not None:
                    break
        if relay is not None:
            rep.supplied[p.id] = f"relayed by {relay.id}"
            continue
        pending.append(p)
    for p in pending:
        h = M.hex_of(g, p)
        assert h is not None
        reach = trace(g, side, p, h, supply_range(g, h))
        opts = sorted(
            ((limited[i], rep.rail_section[i]) for i in reach if i in limited),
            key=lambda t: (-t[0], t[1]),
        )
        for cap, sec in opts:
            cost = unit_cost[min(cap, 2)]
            if fits(sec, cap, cost):
                take(sec, cost)
                rep.supplied[p.id] = f"limited rail section (capacity {cap})"
                break
    # a fortress and a city each supply one corps in their own hex (9-A, 23-A)
    for p in sorted(M.iter_units(g, side), key=lambda p: p.id):
        if p.id in rep.supplied:
            continue
        h = M.hex_of(g, p)
        if p.type == "fortress" or h is None:
            continue
        if M.is_corps(p) and _own_hex_supplier(g, side, h, rep):
            rep.supplied[p.id] = "one corps in its own hex (fortress or city)"
    rep.section_load = load
    return rep


def _own_hex_supplier(g: Game, side: str, h: int, rep: SupplyReport) -> bool:
    """LGG 9-A / 23-A: is the one-corps supply of a fortress or city in hex ``h`` still free?"""
    used = rep.own_hex_used
    if h in used:
        return False
    fort = any(
        q.type == "fortress" and q.side == side and BESIEGED not in q.status and q.loc.kind == "hex"
        for q in g.state.at_hex(h)
    )
    if fort or mapdata.is_city(g, h):
        used.add(h)
        return True
    return False


def _section_key(g: Game, side: str, i: int, best: dict[int, float]) -> int:
    """The limited link that bounds the capacity at rail hex ``i`` (its hexside index)."""
    cap = best[i]
    seen = {i}
    todo = [i]
    while todo:
        u = todo.pop()
        for j, c in railways.rail_neighbours(g, side, u):
            if j in seen or best.get(j, -1.0) < cap:
                continue
            if c == cap:
                return g.board.side_between(u, j)
            seen.add(j)
            todo.append(j)
    return -1 - i


# ====================================================================== unit status
@implements("LGG 9", "LGG 9-A", "LGG 9-C")
def is_supplied(g: Game, p: Piece) -> bool:
    """LGG 9 / 9-A / 9-C: is the unit supplied now? (Fortresses always are.)"""
    if p.type == "fortress":
        return True
    if not M.on_map(g, p):
        c = M.carrier(g, p)
        return c is not None and is_supplied(g, c)
    return p.id in supply_report(g, p.side).supplied


# ====================================================================== out of supply (9-G)
@implements("LGG 9-G")
def unsupplied_value(value: int) -> int:
    """LGG 9-G: an unsupplied unit attacks and defends at half strength, rounded down, minimum 1."""
    return max(1, value // 2)


@implements("LGG 9-G")
def supply_combat_value(g: Game, p: Piece, value: int, defending: bool) -> int:
    """LGG 9-G: the combat value after supply, applied after every other modification; a unit
    defending in a city (not a locality) defends normally even unsupplied."""
    if is_supplied(g, p):
        return value
    h = M.hex_of(g, p)
    if defending and h is not None and mapdata.is_city(g, h):
        return value
    return unsupplied_value(value)


@implements("LGG 9-G")
def supply_fire_value(g: Game, p: Piece, fire: int) -> int:
    """LGG 9-G: the fire value of an unsupplied corps is nil."""
    return fire if is_supplied(g, p) else 0


@implements("LGG 9-G")
def supply_combativeness_modifier(g: Game, p: Piece) -> int:
    """LGG 9-G: -2 to the combativeness tests of an unsupplied unit."""
    return 0 if is_supplied(g, p) else -2


# ====================================================================== isolation (9-H, 22)
def _free_step(g: Game, side: str, u: int, j: int) -> bool:
    """LGG 9-H: a notional trace step: not into enemy units (decoys do not block), impassable
    hexes (lake, sea, high mountain, neutral country) or an unbesieged enemy fortress's ZoC,
    not across a ridge, lake or sea hexside."""
    for f in mapdata.hexside_features(g, u, j):
        if f.impassable and not (
            f.supply_if_friendly and mapdata.controller(g, u) == side == mapdata.controller(g, j)
        ):
            return False
    info = mapdata.terrain_info(g, j)
    if info.impassable or info.mountain_corps_only or mapdata.is_neutral_hex(g, j):
        return False
    if j in M.enemy_blocking_hexes(g, side):
        return False
    return "fortress" not in zoc_map(g, M.other_side(side)).get(j, frozenset())


def free_trace(g: Game, side: str, start: int, max_depth: int | None = None) -> dict[int, int]:
    enterable = _free_hexes(g, side)
    return paths.bfs(
        [start],
        lambda u: [j for j in g.board.neighbors(u) if j in enterable and _side_ok(g, side, u, j)],
        max_depth,
    )


def distance_to(g: Game, side: str, targets: set[int], max_depth: int | None = None) -> np.ndarray:
    """Length of the shortest free notional path (9-H) from every hex to the nearest target
    (``inf`` where none), with the project's multi-source tracer (:mod:`grognard.search.trace`).

    The step costs are 1, or ``inf`` across an impassable hexside; hexes a trace may not
    enter are blocked. The start hex itself need not be free."""
    cost, blocked = _trace_arrays(g, side)
    if not targets:
        return np.full(g.board.n, np.inf)
    res = trace_from_sources(g.board.nbr, cost, sorted(targets), limit=max_depth, blocked=blocked)
    return res.dist[: g.board.n]


def _trace_arrays(g: Game, side: str) -> tuple[np.ndarray, np.ndarray]:
    """Step costs (1 or ``inf`` across impassable hexsides) and the blocked mask (hexes a
    notional trace may not enter) for ``side`` in the current position."""

    def compute() -> tuple[np.ndarray, np.ndarray]:
        b = g.board
        free = _free_hexes(g, side)
        blocked = np.ones(b.n, dtype=bool)
        if free:
            blocked[np.fromiter(free, dtype=np.int64)] = False
        hard = b.side_mask("ridge", "sea", "lake", "strait")
        cost = np.where(hard[b.side_of], np.inf, 1.0)
        cost[b.nbr < 0] = np.inf
        soft = b.side_mask("lake", "strait")
        for u, d in zip(*np.nonzero(soft[b.side_of] & (b.nbr >= 0)), strict=True):
            v = int(b.nbr[u, d])
            if _side_ok(g, side, int(u), v):
                cost[u, d] = 1.0
        return cost, blocked

    return M.memo(g, f"trace-arrays:{side}", compute)


@implements("LGG 9-H", "LGG 9-E")
def _free_hexes(g: Game, side: str) -> frozenset[int]:
    """LGG 9-H / 9-E: hexes a notional trace of ``side`` may enter, for the current position.

    The ZoC of an unbesieged enemy fortress stops the trace, except where friendly units stand
    (the exception 9-E gives for supply; otherwise every unit fighting in or next to a
    fortress hex would count as isolated and could spend no PR)."""

    def compute() -> frozenset[int]:
        blocked = M.enemy_blocking_hexes(g, side)
        forts = {
            j
            for j, kinds in zoc_map(g, M.other_side(side)).items()
            if "fortress" in kinds and _fortress_zoc_blocks(g, side, j)
        }
        return frozenset(mapdata.trace_open_hexes(g) - blocked - forts)

    return M.memo(g, f"free-hexes:{side}", compute)


def _closed_sides(g: Game) -> tuple[frozenset[tuple[int, int]], frozenset[tuple[int, int]]]:
    """Ordered pairs of adjacent hexes whose hexside has an impassable feature this turn (9-C,
    9-H; :func:`_side_ok`): those always closed to a trace, and those open only when both hexes
    are the tracing side's (every impassable feature there is ``supply_if_friendly``). Depends on
    the map and the weather only: computed once per board and weather."""
    key = ("closed-sides", tuple(sorted(M.st(g).get("weather", {}).items())))
    cache = mapdata.static(g)
    found = cache.get(key)  # type: ignore[call-overload]
    if found is None:
        hard: set[tuple[int, int]] = set()
        soft: set[tuple[int, int]] = set()
        for u, nb in enumerate(mapdata.neighbour_lists(g)):
            for j in nb:
                closed = [f for f in mapdata.hexside_features(g, u, j) if f.impassable]
                if not closed:
                    continue
                (soft if all(f.supply_if_friendly for f in closed) else hard).add((u, j))
        found = cache[key] = (frozenset(hard), frozenset(soft))  # type: ignore[index]
    return found


def _side_ok(g: Game, side: str, u: int, j: int) -> bool:
    for f in mapdata.hexside_features(g, u, j):
        if f.impassable and not (
            f.supply_if_friendly and mapdata.controller(g, u) == side == mapdata.controller(g, j)
        ):
            return False
    return True


def _isolation_maps(g: Game, side: str) -> tuple[np.ndarray, np.ndarray]:
    def compute() -> tuple[np.ndarray, np.ndarray]:
        rep = supply_report(g, side)
        return distance_to(g, side, set(rep.sources)), distance_to(
            g, side, rep.relay_hexes(), ISOLATION_RANGE
        )

    return M.memo(g, f"isolation:{side}", compute)


@implements("LGG 22")
def cut_off_22(g: Game, p: Piece) -> bool:
    """LGG 22: no path of any length free of enemy units and prohibited hexes to a friendly
    source."""
    h = M.hex_of(g, p)
    if h is None:
        return False
    return not bool(np.isfinite(_isolation_maps(g, p.side)[0][h]))


@implements("LGG 9-H")
def hex_isolated_9h(g: Game, side: str, h: int, exclude_relay: str | None = None) -> bool:
    """LGG 9-H: would a unit of ``side`` in hex ``h`` be isolated? No notional trace to a supply
    source, or - though not fully encircled - no free path of 5 hexes to a source or relay."""
    to_source, to_relay = _isolation_maps(g, side)
    if not np.isfinite(to_source[h]):
        return True
    rep = supply_report(g, side)
    if exclude_relay is None or exclude_relay not in rep.hq_relays:
        return not bool(np.isfinite(to_relay[h]))
    others = {i for pid, i in rep.hq_relays.items() if pid != exclude_relay}
    relays = (rep.relay_hexes() - set(rep.hq_relays.values())) | others
    reach = free_trace(g, side, h, ISOLATION_RANGE)
    return not (set(reach) & relays)


@implements("LGG 9-H")
def isolated_9h(g: Game, p: Piece) -> bool:
    """LGG 9-H: is the unit isolated (see :func:`hex_isolated_9h`; its own HQ relay does not
    count)."""
    h = M.hex_of(g, p)
    if h is None:
        return False
    return hex_isolated_9h(g, p.side, h, exclude_relay=p.id)


@implements("LGG 9-H", "LGG 22")
def is_isolated(g: Game, p: Piece, purpose: str = "combat") -> bool:
    """LGG 9-H / 22 (digest A-3): isolation for ``purpose`` (``activation``, ``combat``, ``pr`` or
    ``attrition``) under the option ``isolation-test``."""
    mode = g.opt("isolation-test")
    if mode == "9h-everywhere" or (mode == "9h-combat-22-attrition" and purpose != "attrition"):
        return isolated_9h(g, p)
    return cut_off_22(g, p)


@implements("LGG 4-A", "LGG 9")
def may_be_supplied(g: Game, p: Piece) -> bool:
    """LGG 4-A / 9: may ``p`` be supplied as far as its owner can tell (a legal list offers what
    needs supply unless it surely is not; the true position decides when the action is applied)?"""
    if p.id in knowledge.cut(g, p.side, "supply"):
        return False
    return knowledge.may_be_true(g, p.side, lambda: is_supplied(g, p))


@implements("LGG 4-A", "LGG 9-H")
def may_be_unisolated(g: Game, p: Piece, purpose: str = "pr") -> bool:
    """LGG 4-A / 9-H: may ``p`` be not isolated as far as its owner can tell?"""
    if p.id in knowledge.cut(g, p.side, "isolation"):
        return False
    return knowledge.may_be_true(g, p.side, lambda: not is_isolated(g, p, purpose))
