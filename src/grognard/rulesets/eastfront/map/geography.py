"""Hexes, hexsides and sea zones (EF 2.0; NM 26.1).

Our base reads everything from the terrain of the hexes:

* a hex of terrain ``sea`` or ``shallow`` is an **all-sea** hex (``shallow`` is Shallow Water,
  NM 26.12d); every other hex is a land hex, and a land hex next to an all-sea hex is a
  **coastal** hex (part land, part sea);
* a hexside between two all-sea hexes, or between an all-sea hex and a land hex, is an
  **all-sea** hexside; between two coastal hexes a **coastal** (part-land, part-sea) hexside;
  any other hexside is **all-land**.

Sea zones are the scenario's areas of kind ``sea_zone`` (their hexes are all-sea hexes; their
``adjacent`` list is the zone graph; ``attrs.shallow`` marks a zone of Shallow Water;
``attrs.passages`` maps a neighbouring zone to the hexes a naval unit passes between the two,
e.g. a strait, NM 27.2b). Ports lie in no zone (NM 26.11): see :mod:`.ports`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.eastfront.data import data

if TYPE_CHECKING:
    from grognard.core.game import Game

ZONE = "sea_zone"


@implements("EF 2.0")
def hex_classes(g: Game) -> tuple[tuple[bool, ...], tuple[bool, ...], tuple[bool, ...]]:
    """EF 2.0: per hex, whether it is all-sea, Shallow Water, coastal (built once per
    scenario)."""

    def build() -> tuple[tuple[bool, ...], tuple[bool, ...], tuple[bool, ...]]:
        terrain = data(g).terrain
        b = g.board
        sea = tuple(bool(terrain[b.terrain_of(i)].sea) for i in range(b.n))
        shallow = tuple(bool(terrain[b.terrain_of(i)].shallow) for i in range(b.n))
        coastal = tuple(not sea[i] and any(sea[j] for j in b.neighbors(i)) for i in range(b.n))
        return sea, shallow, coastal

    return g.cache.keyed("ef:hex-classes", g.scenario.content_hash, build)


def is_sea(g: Game, i: int) -> bool:
    """EF 2.0: an all-sea hex."""
    return hex_classes(g)[0][i]


def is_shallow(g: Game, i: int) -> bool:
    """NM 26.12d: Shallow Water."""
    return hex_classes(g)[1][i]


def is_land(g: Game, i: int) -> bool:
    return not hex_classes(g)[0][i]


def is_coastal(g: Game, i: int) -> bool:
    """EF 2.0: a land hex with at least one all-sea neighbour."""
    return hex_classes(g)[2][i]


@implements("EF 2.0")
def hexside_class(g: Game, i: int, j: int) -> str:
    """EF 2.0: ``all-sea``, ``coastal`` or ``all-land`` for the hexside between ``i`` and
    ``j``."""
    if is_sea(g, i) or is_sea(g, j):
        return "all-sea"
    if is_coastal(g, i) and is_coastal(g, j):
        return "coastal"
    return "all-land"


def zone_of(g: Game, i: int) -> str | None:
    """The sea zone an all-sea hex belongs to (None: none)."""
    return g.board.area_of(i, ZONE)


def zones(g: Game) -> list[str]:
    return sorted(a.name for a in g.board.areas.values() if a.kind == ZONE)


def zone_shallow(g: Game, name: str) -> bool:
    """NM 26.12d: a zone of Shallow Water admits no naval movement."""
    return bool(g.board.areas[name].attrs.get("shallow", False))


def zone_hexes(g: Game, name: str) -> list[int]:
    return [int(i) for i in g.board.areas[name].hexes]


@implements("NM 26.1", "NM 26.11")
def zone_graph(g: Game) -> Mapping[str, tuple[str, ...]]:
    """NM 26.1 / NM 26.11: sea areas are divided into sea zones; the zones a naval unit may
    enter from each zone (shallow ones left out), built once per scenario (the keyed cache)."""

    def build() -> dict[str, tuple[str, ...]]:
        out: dict[str, set[str]] = {z: set() for z in zones(g)}
        for z in out:
            for other in g.board.areas[z].adjacent:
                if other in out:
                    out[z].add(other)
                    out[other].add(z)
        return {
            z: tuple(sorted(n for n in ns if not zone_shallow(g, n)))
            for z, ns in out.items()
            if not zone_shallow(g, z)
        }

    return g.cache.keyed("ef:zone-graph", g.scenario.content_hash, build)


@implements("NM 26.11", "NM 26.14")
def zone_distances(g: Game, start: str) -> dict[str, int]:
    """NM 26.14: the NMP to reach each zone from zone ``start`` (one per zone entered).

    Rules: NM 26.11, NM 26.14.
    """

    def build() -> dict[str, int]:
        graph = zone_graph(g)
        if start not in graph:
            return {}
        dist = {start: 0}
        todo = deque([start])
        while todo:
            z = todo.popleft()
            for n in graph[z]:
                if n not in dist:
                    dist[n] = dist[z] + 1
                    todo.append(n)
        return dist

    return g.cache.keyed("ef:zone-dist", (g.scenario.content_hash, start), build)


def passage(g: Game, a: str, b: str) -> list[int]:
    """NM 27.2b: the hexes a naval unit passes between adjacent zones ``a`` and ``b``."""
    out: list[int] = []
    for x, y in ((a, b), (b, a)):
        for label in g.board.areas[x].attrs.get("passages", {}).get(y, []):
            i = g.board.idx(label)
            if i not in out:
                out.append(i)
    return out


def coast_hexes_next_to(g: Game, i: int) -> list[int]:
    """The coastal land hexes adjacent to all-sea hex ``i`` (NM 30.1)."""
    sea = hex_classes(g)[0]
    return [j for j in g.board.neighbors(i) if not sea[j]]


@implements("NM 26.11")
def mission_hexes(g: Game, name: str) -> tuple[int, ...]:
    """NM 26.11: the all-sea hexes of zone ``name`` next to the coast, not Shallow Water: where
    a naval unit may end a move on a mission (support, assault), once per scenario."""

    def build() -> tuple[int, ...]:
        sea, shallow, _ = hex_classes(g)
        return tuple(
            i
            for i in zone_hexes(g, name)
            if not shallow[i] and any(not sea[j] for j in g.board.neighbors(i))
        )

    return g.cache.keyed("ef:mission-hexes", (g.scenario.content_hash, name), build)
