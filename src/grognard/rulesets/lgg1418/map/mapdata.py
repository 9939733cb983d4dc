"""LGG 1: the map - terrain, hexsides, cities, localities, ports, countries, control, zones.

Map vocabulary a scenario may use (declared on the rule system):

* terrain: ``plains``, ``floodable`` (floodable plains), ``forest``, ``marsh``, ``mountain``,
  ``high_mountain``, ``desert``, ``lake``, ``sea``;
* hexside features: ``river``, ``large_river``, ``stream``, ``canal``, ``lake``, ``sea``,
  ``strait``, ``ridge``, ``pass`` (a mountain pass crossing);
* places: ``city`` (attrs ``nation``, ``production``, ``recruitment``, ``vn``, ``vn_kind`` =
  ``objective``/``normal``, ``capital``), ``locality`` (attrs ``nation``, optional ``vn``),
  ``port`` (attrs ``size`` = ``major``/``minor``, ``sea``), ``beach``, ``outer_hex``;
* areas: ``country`` (attr ``nation``), ``climate`` (attr ``zone``), ``sector`` (the area name is
  the sector: French, Italian, Russian, Balkan, Armenian, Oriental), ``sea``;
* networks: ``rail`` (link attr ``capacity`` = 1 or 2 for limited sections), ``waterway``
  (navigable rivers used as supply relays, LGG 9-B).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grognard.board import Point
from grognard.core.rules import implements
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.data import HexsideInfo, TerrainInfo

if TYPE_CHECKING:
    from grognard.core.game import Game

TERRAIN_TYPES = (
    "plains",
    "floodable",
    "forest",
    "marsh",
    "mountain",
    "high_mountain",
    "desert",
    "lake",
    "sea",
)
HEXSIDE_FEATURES = (
    "river",
    "large_river",
    "stream",
    "canal",
    "lake",
    "sea",
    "strait",
    "ridge",
    "pass",
)
POINT_KINDS = ("city", "locality", "port", "beach", "outer_hex")
AREA_KINDS = ("country", "climate", "sector", "sea")
NETWORK_KINDS = ("rail", "waterway")
CLIMATES = ("temperate", "continental", "severe", "mediterranean", "semi-desert")


def static(g: Game) -> dict[str, Any]:
    """Facts of the map that never change during a game, computed once per board
    (``Cache.static``)."""
    return g.cache.static("lgg:static", lambda: _static(g))


def _static(g: Game) -> dict[str, Any]:
    b = g.board
    kinds = {a.kind for a in b.areas.values()}
    country: list[str | None] = [None] * b.n
    if "country" in kinds:
        for i in range(b.n):
            name = b.area_of(i, "country")
            if name is not None:
                country[i] = str(b.areas[name].attrs.get("nation", name))
    rail_hex = [False] * b.n
    rail: list[list[tuple[int, dict[str, Any]]]] = [[] for _ in range(b.n)]
    water: list[list[int]] = [[] for _ in range(b.n)]
    for net in b.networks.values():
        for i in range(b.n):
            if net.kind == "rail" and net.hexes[i]:
                rail_hex[i] = True
            for dd in range(6):
                j = int(b.nbr[i, dd])
                if j < 0:
                    continue
                sd = int(b.side_of[i, dd])
                if not net.edges[sd]:
                    continue
                if net.kind == "rail":
                    rail[i].append((j, dict(net.attrs.get(sd, {}))))
                elif net.kind == "waterway":
                    water[i].append(j)
    d = {
        "country": country,
        "rail_hex": rail_hex,
        "rail": rail,
        "water": water,
        "feats": {},
        "pair_feats": {},
        "kinds": kinds,
        "points": {},
    }
    return d


# ====================================================================== terrain (1-A)
@implements("LGG 1-A", "LGG 7-B")
def effective_terrain(g: Game, i: int) -> str:
    """LGG 1-A / 7-B: the terrain of a hex this turn; floodable plains count as marsh in rain."""
    name = g.board.terrain_of(i)
    info = M.data(g).terrain[name]
    if info.rain_as and weather_in(g, i) == "rain":
        return info.rain_as
    return name


def terrain_info(g: Game, i: int) -> TerrainInfo:
    return M.data(g).terrain[effective_terrain(g, i)]


@implements("LGG 1-A")
def hex_impassable(g: Game, i: int) -> bool:
    """LGG 1-A / 9-H: lakes and sea hexes can never be entered by land units."""
    return terrain_info(g, i).impassable


def side_index(g: Game, i: int, j: int) -> int:
    return g.board.side_between(i, j)


@implements("LGG 1-A", "LGG 7-C")
def hexside_features(g: Game, i: int, j: int) -> list[HexsideInfo]:
    """LGG 1-A / 7-C: the features of the hexside between two adjacent hexes, as they act this turn.

    Rivers, large rivers and lakes are cancelled (frozen) while it snows in a severe zone
    (7-C): both hexes must be in a severe zone with snow.
    """
    pairs = static(g)["pair_feats"]
    feats = pairs.get((i, j))
    if feats is None:
        cache = static(g)["feats"]
        s = side_index(g, i, j)
        feats = cache.get(s)
        if feats is None:
            feats = [M.data(g).hexsides[n] for n in g.board.side_feature_list(s)]
            cache[s] = feats
        pairs[(i, j)] = feats
    if not feats:
        return feats
    if any(f.frozen_in_severe_snow for f in feats) and frozen(g, i) and frozen(g, j):
        feats = [f for f in feats if not f.frozen_in_severe_snow]
    return feats


def frozen(g: Game, i: int) -> bool:
    return climate_zone(g, i) == "severe" and weather_in(g, i) == "snow"


@implements("LGG 1-A")
def hexside_impassable(g: Game, i: int, j: int) -> bool:
    """LGG 1-A: ridges (and sea, lake and strait hexsides) cannot be crossed by land movement."""
    return any(f.impassable for f in hexside_features(g, i, j))


@implements("LGG 1-A")
def crossed_by_pass(g: Game, i: int, j: int) -> bool:
    """LGG 1-A: a mountain pass is crossed along its dotted line at the cost of plains."""
    return any(f.as_terrain for f in hexside_features(g, i, j))


def has_feature(g: Game, i: int, j: int, *names: str) -> bool:
    return any(f.name in names for f in hexside_features(g, i, j))


# ====================================================================== places (1-B)
def points(g: Game, i: int, kind: str | None = None) -> list[Point]:
    """The map points of hex ``i`` (of one kind), looked up once per board (a shared list: read
    only)."""
    cache = static(g)["points"]
    key = (i, kind)
    found = cache.get(key)
    if found is None:
        found = cache[key] = g.board.points_at(i, kind)
    return found


@implements("LGG 1-B")
def is_city(g: Game, i: int) -> bool:
    """LGG 1-B: a city (orange production, blue recruitment, national-will value)."""
    return bool(points(g, i, "city"))


@implements("LGG 1-B")
def is_locality(g: Game, i: int) -> bool:
    """LGG 1-B: a locality (rail node, no effect unless it has a national-will value)."""
    return bool(points(g, i, "locality")) and not is_city(g, i)


def is_urban(g: Game, i: int) -> bool:
    """A city or a locality."""
    return is_city(g, i) or is_locality(g, i)


def urban_point(g: Game, i: int) -> Point | None:
    for kind in ("city", "locality"):
        pts = points(g, i, kind)
        if pts:
            return pts[0]
    return None


def place_name(g: Game, i: int) -> str:
    pt = urban_point(g, i)
    return pt.name if pt and pt.name else g.board.label(i)


@implements("LGG 1-B")
def place_nation(g: Game, i: int) -> str | None:
    """LGG 1-B: the nation a city or locality belongs to (its own ``nation``, else the country
    area)."""
    pt = urban_point(g, i)
    if pt is not None and pt.attrs.get("nation"):
        return str(pt.attrs["nation"])
    return country_of(g, i)


@implements("LGG 1-B")
def is_capital(g: Game, i: int) -> bool:
    """LGG 1-B: the capital of a major power (its name printed in red capitals)."""
    for pt in points(g, i, "city"):
        if pt.attrs.get("capital"):
            nation = place_nation(g, i)
            return bool(nation and M.is_major(g, nation))
    return False


@implements("LGG 1-B")
def vn_value(g: Game, i: int) -> int:
    """LGG 1-B: national-will value of a city or locality; ignored for minor countries (errata)."""
    pt = urban_point(g, i)
    if pt is None:
        return 0
    nation = place_nation(g, i)
    if nation is None or not M.is_major(g, nation):
        return 0
    return int(pt.attrs.get("vn", 0))


@implements("LGG 1-B")
def recruitment_value(g: Game, i: int) -> int:
    """LGG 1-B: the blue (recruitment) value of a city (used as PR by an isolated army, 16-D)."""
    pts = points(g, i, "city")
    return int(pts[0].attrs.get("recruitment", 0)) if pts else 0


@implements("LGG 1-B")
def port_size(g: Game, i: int) -> str | None:
    """LGG 1-B: ``major`` (anchor on white) or ``minor`` (anchor on grey) port, or None."""
    pts = points(g, i, "port")
    return str(pts[0].attrs.get("size", "minor")) if pts else None


def port_sea(g: Game, i: int) -> str | None:
    pts = points(g, i, "port")
    if pts and pts[0].attrs.get("sea"):
        return str(pts[0].attrs["sea"])
    return None


def is_beach(g: Game, i: int) -> bool:
    """LGG 1-A: a beach is where a naval landing may take place (not a terrain type)."""
    return bool(points(g, i, "beach"))


def is_outer_hex(g: Game, i: int) -> bool:
    return bool(points(g, i, "outer_hex"))


# ====================================================================== countries, control, zones
def country_of(g: Game, i: int) -> str | None:
    """Nation owning the territory of hex ``i`` (area of kind ``country``), or None."""
    return static(g)["country"][i]


def _has_kind(g: Game, kind: str) -> bool:
    return kind in static(g)["kinds"]


@implements("LGG [11.1-A]")
def is_neutral_hex(g: Game, i: int) -> bool:
    """LGG [11.1-A] / 8-C / 9-H: a hex of a country at peace (no side) is neutral and impassable."""
    nation = country_of(g, i)
    if nation is None:
        return False
    return M.nation_side(g, nation) is None


def controller(g: Game, i: int) -> str | None:
    return g.state.control.get(i)


def set_control(g: Game, i: int, side: str) -> None:
    """Give hex ``i`` to ``side``; a hex taken from the enemy records the turn it was conquered."""
    before = g.state.control.get(i)
    if before == side:
        return
    g.state.control[i] = side
    lab = g.board.label(i)
    if before is not None and before != side:
        g.state.set_marker("conquered", lab, M.turn_index(g))
    else:
        g.state.set_marker("conquered", lab, None)
    M.touch(g)


def conquered_turn(g: Game, i: int) -> int | None:
    v = g.state.marker("conquered", g.board.label(i))
    return int(v) if v is not None else None


def initial_control(g: Game) -> None:
    """Hexes of a belligerent country start controlled by its side (the scenario may override)."""
    for name, area in g.board.areas.items():
        if area.kind != "country":
            continue
        nation = str(area.attrs.get("nation", name))
        side = M.nation_side(g, nation)
        if side is None:
            continue
        for i in area.hexes.tolist():
            g.state.control.setdefault(int(i), side)


def climate_zone(g: Game, i: int) -> str:
    """LGG 7-A: the climatic zone of a hex (area of kind ``climate``; the scenario default
    otherwise)."""
    st = static(g)
    zones = st.get("climate")
    if zones is None:
        zones = [None] * g.board.n
        if _has_kind(g, "climate"):
            for k in range(g.board.n):
                name = g.board.area_of(k, "climate")
                if name is not None:
                    zones[k] = str(g.board.areas[name].attrs.get("zone", name))
        st["climate"] = zones
    return zones[i] or M.rules(g).default_climate


def trace_open_hexes(g: Game) -> frozenset[int]:
    """Hexes a land trace may enter this turn whatever the units: not sea or lake, not neutral,
    not reserved to mountain corps (depends only on the weather and on who is neutral, so it is
    computed once per board, weather and alignment)."""
    key = (
        "trace-open",
        tuple(sorted(M.st(g).get("weather", {}).items())),
        tuple(sorted(g.state.alignment.items())),
    )
    cache = static(g)
    out: frozenset[int] | None = cache.get(key)  # type: ignore[call-overload]
    if out is None:
        out = frozenset(
            j
            for j in range(g.board.n)
            if not (info := terrain_info(g, j)).impassable
            and not info.mountain_corps_only
            and not is_neutral_hex(g, j)
        )
        cache[key] = out  # type: ignore[index]
    return out


def weather_in(g: Game, i: int) -> str:
    """The weather of the hex's climatic zone this turn (fair until rolled)."""
    return str(M.st(g).get("weather", {}).get(climate_zone(g, i), "fair"))


def zones_on_map(g: Game) -> list[str]:
    zones = {climate_zone(g, i) for i in range(g.board.n)}
    return sorted(zones)


def rail_links(g: Game, i: int) -> list[tuple[int, dict[str, Any]]]:
    """Rail neighbours of hex ``i`` with the attributes of each link."""
    return static(g)["rail"][i]


def is_rail_hex(g: Game, i: int) -> bool:
    return bool(static(g)["rail_hex"][i])


def point_hexes(g: Game, kind: str) -> list[int]:
    """Hexes with a map point of ``kind`` (``urban``: a city or a locality), in the board's point
    order (computed once per board; read only)."""
    st = static(g)
    key = ("point-hexes", kind)
    found = st.get(key)  # type: ignore[call-overload]
    if found is None:
        if kind == "urban":
            found = [i for i in g.board.points if is_urban(g, i)]
        else:
            found = [i for i in g.board.points if points(g, i, kind)]
        st[key] = found  # type: ignore[index]
    return found


def neighbour_lists(g: Game) -> list[list[int]]:
    """Hex -> its neighbours, in the order of ``Board.neighbors`` (once per board; read only)."""
    st = static(g)
    found = st.get("nbrs")
    if found is None:
        found = st["nbrs"] = [g.board.neighbors(i) for i in range(g.board.n)]
    return found


def rail_hexes(g: Game) -> list[int]:
    """Every rail hex of the map, in index order (computed once per board; read only)."""
    st = static(g)
    found = st.get("rail_hexes")
    if found is None:
        found = st["rail_hexes"] = [i for i in range(g.board.n) if st["rail_hex"][i]]
    return found


def rail_link_table(g: Game) -> list[tuple[int, list[tuple[int, dict[str, Any]]]]]:
    """(hex, its rail links) for every hex with a rail link, in index order (once per board; read
    only)."""
    st = static(g)
    found = st.get("rail_link_table")
    if found is None:
        found = st["rail_link_table"] = [(i, links) for i, links in enumerate(st["rail"]) if links]
    return found


def rail_crosses(g: Game, i: int, j: int) -> bool:
    s = side_index(g, i, j)
    return any(net.kind == "rail" and bool(net.edges[s]) for net in g.board.networks.values())


def waterway_links(g: Game, i: int) -> list[int]:
    return static(g)["water"][i]
