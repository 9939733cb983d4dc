"""OT 3E: geography -- terrain, cities, districts, islands, adjacency and weather zones.

Map vocabulary: cities are places of kind ``point-city``, ``partial-city`` or ``full-city``;
fortresses (``fortress``) and resource centers (``resource-center``) count as cities too.
Districts are areas of kind ``district`` (an island belongs to the district its area lists,
OT 3E4). Weather zones are areas of kind ``weather-zone`` (see :mod:`.weather`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.greatwar.map import terrain

if TYPE_CHECKING:
    from grognard.core.game import Game

CITY_KINDS = ("point-city", "partial-city", "full-city")
MAJOR_CITY_KINDS = ("partial-city", "full-city")
CITY_LIKE = (*CITY_KINDS, "fortress", "resource-center")


def _hexes_with(g: Game, kinds: tuple[str, ...]) -> frozenset[int]:
    """The hexes of the board with a point of one of ``kinds`` (the board never changes in play)."""
    return g.cache.keyed(
        "gw:point-hexes",
        kinds,
        lambda: frozenset(
            int(i)
            for i in g.board.points
            if any(pt.kind in kinds for pt in g.board.points_at(int(i)))
        ),
    )


@implements("OT 3E2")
def is_city(g: Game, i: int) -> bool:
    """OT 3E2: "cities" are point, partial and full hex cities plus every fortress and resource
    center."""
    return i in _hexes_with(g, CITY_LIKE)


def city_hexes(g: Game) -> frozenset[int]:
    """Every hex that is a city in the sense of OT 3E2 (:func:`is_city`)."""
    return _hexes_with(g, CITY_LIKE)


@implements("OT 3E2")
def is_major_city_hex(g: Game, i: int) -> bool:
    """OT 3E2: a major city is any partial, full or multi-hex city; point cities are not."""
    return i in _hexes_with(g, MAJOR_CITY_KINDS)


@implements("OT 3E2")
def multi_hex_city(g: Game, i: int) -> frozenset[int]:
    """OT 3E2: the major city containing hex ``i``: adjacent partial/full city hexes form one
    city."""
    if not is_major_city_hex(g, i):
        return frozenset()
    seen = {i}
    todo = [i]
    while todo:
        h = todo.pop()
        for j in g.board.neighbors(h):
            if j not in seen and is_major_city_hex(g, j):
                seen.add(j)
                todo.append(j)
    return frozenset(seen)


def major_cities(g: Game) -> list[frozenset[int]]:
    """Every major city of the map, as sets of hexes."""
    done: set[int] = set()
    out = []
    for i in sorted(g.board.points):
        if i not in done and is_major_city_hex(g, i):
            c = multi_hex_city(g, i)
            done |= c
            out.append(c)
    return out


def place_named(g: Game, name: str) -> int | None:
    """The hex of a named place (city, fortress, ...), if it is on the map."""
    for i, plist in g.board.points.items():
        if any(pt.name == name for pt in plist):
            return int(i)
    return None


@implements("OT 3E3", "OT 3E4")
def district_of(g: Game, i: int) -> str | None:
    """OT 3E3: the district of a land hex (areas of kind ``district``). OT 3E4: an island is in the
    district its map area places it in (the district it is joined to by narrow straits, or the
    closest one), so island ownership is map data."""
    return g.board.area_of(i, "district")


@implements("OT 3E5")
def adjacent(g: Game, i: int, j: int) -> bool:
    """OT 3E5: two hexes are adjacent for rule purposes only if they are neighbours and the hexside
    between them is not prohibited terrain (prohibited to every ground unit: interpretation
    default).
    """
    if j not in g.board.neighbors(i):
        return False
    return not terrain.side_prohibited_to_all(g, g.board.side_between(i, j))


def adjacent_hexes(g: Game, i: int) -> list[int]:
    return [j for j in g.board.neighbors(i) if adjacent(g, i, j)]
