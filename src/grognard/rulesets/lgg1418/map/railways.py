"""LGG 11.4 (and the rail part of 9-B/9-D): rail networks, gauges, paths, costs, capacities.

Each rail hex carries the rail standard of a side: at start, the side of the country it lies
in; a captured hex keeps the enemy standard until an infantry unit converts it (11.4-D,
``markers["rail_gauge"]``). A side uses only rail hexes of its own standard that it controls,
with no enemy unit and no siege in them (23-D: a railway in a siege hex is unusable).
"""

from __future__ import annotations

import math
from collections import deque
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418 import paths
from grognard.rulesets.lgg1418.map import knowledge, mapdata

if TYPE_CHECKING:
    from grognard.core.game import Game

RUSSIA = "RU"


@implements("LGG 11.4-D")
def rail_gauge(g: Game, i: int) -> str | None:
    """LGG 11.4-D: the side whose rail standard hex ``i`` has (converted hexes included)."""
    conv = g.state.marker("rail_gauge", g.board.label(i))
    if conv:
        return str(conv)
    nation = mapdata.country_of(g, i)
    return M.nation_side(g, nation) if nation else None


def rail_usable(g: Game, side: str, i: int) -> bool:
    """A rail hex ``side`` may use now: its standard, controlled, no enemy unit, no siege, not
    neutral."""
    return i in usable_rail(g, side)


def usable_rail(g: Game, side: str) -> frozenset[int]:
    """Every rail hex ``side`` may use in the current position (see :func:`rail_usable`)."""

    def compute() -> frozenset[int]:
        blocked = M.enemy_blocking_hexes(g, side)
        return frozenset(i for i in _rail_open_to(g, side) if i not in blocked)

    return M.memo(g, f"usable-rail:{side}", compute)


def _rail_open_to(g: Game, side: str) -> list[int]:
    """Rail hexes of ``side``'s standard it controls (or nobody does), not neutral, not besieged:
    :func:`usable_rail` before the enemy units are taken into account (the same in every
    supply world of :func:`.knowledge.supply_as_known`)."""

    def compute() -> list[int]:
        out = []
        for i in mapdata.rail_hexes(g):
            if rail_gauge(g, i) != side:
                continue
            if mapdata.controller(g, i) not in (None, side) or mapdata.is_neutral_hex(g, i):
                continue
            if g.state.marker("siege", g.board.label(i)) is None:
                out.append(i)
        return out

    return M.memo(g, f"rail-open:{side}", compute)


def rail_graph(g: Game, side: str) -> dict[int, list[tuple[int, float]]]:
    """Usable rail links of ``side`` in the current position, for every hex with one:
    hex -> [(neighbour, capacity; inf when the section is not limited)] (computed once per
    position).
    """

    def compute() -> dict[int, list[tuple[int, float]]]:
        usable = usable_rail(g, side)
        out: dict[int, list[tuple[int, float]]] = {}
        for i, all_links in _open_graph(g, side).items():
            links = [lk for lk in all_links if lk[0] in usable]
            if links:
                out[i] = links
        return out

    return M.memo(g, f"rail-graph:{side}", compute)


def _open_graph(g: Game, side: str) -> dict[int, list[tuple[int, float]]]:
    """:func:`rail_graph` over the hexes of :func:`_rail_open_to` (enemy units not yet taken
    into account; the same in every supply world)."""

    def compute() -> dict[int, list[tuple[int, float]]]:
        open_ = set(_rail_open_to(g, side))
        out: dict[int, list[tuple[int, float]]] = {}
        for i, all_links in mapdata.rail_link_table(g):
            links = [
                (j, float(a["capacity"]) if a.get("capacity") else math.inf)
                for j, a in all_links
                if j in open_
            ]
            if links:
                out[i] = links
        return out

    return M.memo(g, f"rail-open-graph:{side}", compute)


def rail_neighbours(g: Game, side: str, i: int) -> list[tuple[int, float]]:
    """Usable rail links from ``i``: (hex, capacity; inf when the section is not limited)."""
    return list(rail_graph(g, side).get(i, ()))


@implements("LGG 11.4-D")
def own_network(g: Game, side: str) -> set[int]:
    """LGG 11.4-D: rail hexes of ``side``'s standard connected to its national (home) network."""

    def compute() -> set[int]:
        graph = rail_graph(g, side)
        return set(paths.bfs(_home_rail(g, side), lambda u: [j for j, _ in graph.get(u, ())]))

    return M.memo(g, f"own-rail:{side}", compute)


def _home_rail(g: Game, side: str) -> set[int]:
    """Usable rail hexes of ``side`` in its own countries (where its national network starts)."""
    return {
        i
        for i in usable_rail(g, side)
        if (n := mapdata.country_of(g, i)) is not None and M.nation_side(g, n) == side
    }


@implements("LGG 11.4-D", "LGG 4-A")
def line_home(g: Game, side: str, i: int) -> list[int] | None:
    """LGG 11.4-D: a shortest line of ``side``'s usable railway from one of the rail neighbours of
    ``i`` back to its home network (the hexes a conversion at ``i`` relies on), or None."""
    home = _home_rail(g, side)
    graph = rail_graph(g, side)
    best: list[int] | None = None
    for j, _ in mapdata.rail_links(g, i):
        if j not in usable_rail(g, side):
            continue
        path = paths.bfs_path(j, home, lambda u: [k for k, _ in graph.get(u, ())])
        if path is not None and (best is None or len(path) < len(best)):
            best = path
    return best


@implements("LGG 11.4-A")
def rail_path(g: Game, side: str, start: int, goal: int) -> list[int] | None:
    """LGG 11.4-A: a rail path over ``side``'s usable rail, at most 40 hexes long, or None."""
    if not (rail_usable(g, side, start) and rail_usable(g, side, goal)):
        return None
    limit = int(M.data(g).rail["max_hexes"])
    prev = rail_tree(g, side, start)
    if goal not in prev:
        return None
    path = [goal]
    while path[-1] != start:
        path.append(prev[path[-1]])  # type: ignore[arg-type]
    path.reverse()
    if journey_length(g, path) > limit:
        return None
    return path


def rail_tree(g: Game, side: str, start: int) -> dict[int, int | None]:
    """Breadth-first tree of ``side``'s usable railway from ``start``, at most 40 steps deep
    (hex -> the hex it is reached from); the first path found to a hex is the one
    :func:`grognard.rulesets.lgg1418.paths.bfs_path` would give (computed once per position and
    start).
    """

    def compute() -> dict[int, int | None]:
        graph = rail_graph(g, side)
        limit = int(M.data(g).rail["max_hexes"])
        prev: dict[int, int | None] = {start: None}
        depth = {start: 0}
        q = deque([start])
        while q:
            u = q.popleft()
            if depth[u] >= limit:
                continue
            for v, _ in graph.get(u, ()):
                if v not in prev:
                    prev[v] = u
                    depth[v] = depth[u] + 1
                    q.append(v)
        return prev

    return M.memo(g, f"rail-tree:{side}:{start}", compute)


@implements("LGG 11.4-B")
def journey_length(g: Game, path: list[int]) -> int:
    """LGG 11.4-B: hexes travelled, an outer hex counting as 20."""
    n = len(path) - 1
    cache = mapdata.static(g)
    outer_hexes = cache.get("outer_hexes")
    if outer_hexes is None:
        outer_hexes = cache["outer_hexes"] = frozenset(
            i for i in g.board.points if mapdata.is_outer_hex(g, i)
        )
    if not outer_hexes:
        return n
    outer = int(M.data(g).rail["outer_hex_counts"])
    return n + sum(outer - 1 for i in path if i in outer_hexes)


@implements("LGG 11.4-B")
def rail_cost(g: Game, p: Piece, start: int, goal: int, length: int) -> int:
    """LGG 11.4-B: 2 MP from a city or locality to a city or locality, 3 MP otherwise; +2 MP for
    cavalry; +1 MP for a journey of 20 hexes or more."""
    r = M.data(g).rail
    urban = mapdata.is_urban(g, start) and mapdata.is_urban(g, goal)
    cost = int(r["cost_city_to_city"] if urban else r["cost_otherwise"])
    if M.is_cavalry(p):
        cost += int(r["cavalry_extra"])
    if length >= int(r["long_journey"]):
        cost += int(r["long_journey_extra"])
    return cost


@implements("LGG 11.4-C")
def rail_capacity(g: Game, nation: str) -> int:
    """LGG 11.4-C: units a power may move by rail per turn (provisional values, data/rail.toml)."""
    caps = M.data(g).rail["capacity"]
    return int(caps.get(nation, caps["default"]))


@implements("LGG 11.4-C")
def capacity_owner(g: Game, p: Piece, start: int) -> str:
    """LGG 11.4-C: whose capacity a rail move uses: a unit on the soil of an allied country uses
    its host's network and capacity; otherwise its own power's."""
    host = mapdata.country_of(g, start)
    if host and host != p.nation and M.nation_side(g, host) == p.side:
        return host
    return p.nation


def rail_left(g: Game, nation: str) -> int:
    return rail_capacity(g, nation) - int(M.st(g).get("rail_used", {}).get(nation, 0))


def use_rail(g: Game, nation: str, units: int) -> None:
    used = M.st(g).setdefault("rail_used", {})
    used[nation] = int(used.get(nation, 0)) + units
    M.touch(g)


@implements("LGG 11.4-D")
def conversion_cost(g: Game, p: Piece, i: int) -> int:
    """LGG 11.4-D: 1 MP per rail hex; 2 MP for a Russian hex converted by the Central Powers or
    for any hex Russia converts to its own network."""
    r = M.data(g).rail
    russian_hex = mapdata.country_of(g, i) == RUSSIA
    if p.nation == RUSSIA or (russian_hex and p.side != M.nation_side(g, RUSSIA)):
        return int(r["russian_conversion_cost"])
    return int(r["conversion_cost"])


@implements("LGG 11.4-D")
def why_not_convertible(g: Game, side: str, i: int, entering: bool = False) -> str | None:
    """LGG 11.4-D: why hex ``i`` cannot be converted to ``side``'s standard now (None: it can).

    ``entering``: the converting unit enters the hex as part of the conversion (and takes it).
    """
    if not mapdata.is_rail_hex(g, i):
        return "there is no railway in that hex"
    if rail_gauge(g, i) == side:
        return "that railway already has your rail standard"
    if mapdata.is_neutral_hex(g, i):
        return "neutral railways may not be converted"
    if not entering and mapdata.controller(g, i) != side:
        return "only a captured railway you control may be converted"
    if any(p.type == "fortress" and p.side != side for p in g.state.at_hex(i)):
        return "a hex containing an enemy fortress, even besieged, may not be converted"
    return None


def converted_neighbour_ok(g: Game, side: str, i: int, chain: set[int], known: bool = True) -> bool:
    """The hex joins the own network (directly, through hexes converted in the same action, or
    as a captured port with a railway, 11.4-D). ``known``: the network as ``side`` may see it
    (4-A: every unread enemy marker on the line taken for a decoy); False: the true network."""

    net = (
        knowledge.as_known(g, side, lambda: own_network(g, side)) if known else own_network(g, side)
    ) | chain
    if any(j in net for j, _ in mapdata.rail_links(g, i)):
        return True
    return mapdata.port_size(g, i) is not None and mapdata.controller(g, i) == side


def convert(g: Game, side: str, i: int) -> None:
    g.state.set_marker("rail_gauge", g.board.label(i), side)
    M.touch(g)
