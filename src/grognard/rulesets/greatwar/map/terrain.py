"""Terrain (OT 3E1) read through the Terrain Effects Chart, roads (OT 7B) and the terrain rules
of OT 15A that change movement costs (bridges, major rivers, devastation).

Everything here is a pure lookup over the map, the weather and the charts; the movement rules
(OT 6) combine these costs with ZOCs, ownership and movement modes.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar.charts import Charts, TerrainRow, load_charts
from grognard.rulesets.greatwar.hooks import reactions
from grognard.rulesets.greatwar.map.weather import frozen_at, view, weather_at
from grognard.rulesets.greatwar.mechanics import gw, marker
from grognard.rulesets.greatwar.units import special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game

HEX_TERRAIN = (
    "clear",
    "rough",
    "wooded-rough",
    "woods",
    "forest",
    "mountain",
    "swamp",
    "wooded-swamp",
    "ravines",
    "bocage",
    "canal-intensive",
    "karst",
    "sand",
    "stony-desert",
    "salt-desert",
    "permafrost-tundra",
    "glacier",
    "intermittent-lake",
    "intermittent-salt-lake",
    "lake",
    "sea",
)
HEXSIDE_FEATURES = (
    "river",
    "canal",
    "minor-river",
    "minor-canal",
    "seasonal-river",
    "major-river",
    "major-river-unfordable",
    "great-river-fordable",
    "great-river",
    "lake",
    "sea",
    "narrow-straits",
    "escarpment",
    "impassable-escarpment",
    "wadi",
    "mountain",
    "high-mountain",
    "high-mountain-pass",
    "causeway",
    "prohibited",
    "navigable",
    "border",
)
WATER_HEXES = ("sea", "lake")
DEVASTATION_COST = Fraction(2)


def charts(g: Game) -> Charts:
    """The non-die charts in force (the scenario's overrides applied)."""
    over = g.scenario.table_overrides
    key = tuple(sorted((over or {}).items()))
    return g.cache.keyed("gw:charts", key, lambda: load_charts(over))


@implements("OT 3E1")
def terrain(g: Game, i: int) -> str:
    """OT 3E1: the terrain type of a hex (a hex partially flooded this player turn is swamp,
    OT 15A6)."""
    fl = g.state.markers.get("flooded")
    if fl and str(i) in fl and reactions(g).is_flooded(g, i):
        return "swamp"
    return g.board.terrain_of(i)


def is_land(g: Game, i: int) -> bool:
    """Land hexes can be owned (OT 5B); all-sea and all-lake hexes cannot."""
    return terrain(g, i) not in WATER_HEXES


def cost_set(g: Game, p: Piece) -> str:
    """OT 6: c/m and artillery units use one cost set, other units another.

    C/m artillery uses c/m costs (OT 14C1); horse artillery uses cavalry costs (OT 14D4); mountain
    artillery uses mountain costs (OT 14F2).
    """
    if units.is_cm(p):
        return "cm-art"
    if units.is_artillery(p):
        tags = special_units.base_tags(p)
        if "cavalry" in tags or "mountain" in tags:
            return "other"
        return "cm-art"
    return "other"


def _row_cost(
    row: TerrainRow, cset: str, weather: str, tags: frozenset[str], frozen: bool
) -> Fraction | None:
    if frozen and row.frozen != "unchanged":
        return row.frozen  # type: ignore[return-value]
    base = row.cost(cset, weather)
    best: Fraction | str | None = "none"
    for exc in row.exceptions:
        if exc.tags & tags and weather in exc.cost:
            c = exc.cost[weather]
            if best == "none" or (c is not None and (best is None or c < best)):  # type: ignore[operator]
                best = c
    if best != "none":
        return best  # type: ignore[return-value]
    return base


@implements("OT 6")
def hex_entry_cost(
    g: Game, p: Piece, i: int, tags: frozenset[str] | None = None
) -> Fraction | None:
    """OT 6: MPs to enter hex ``i`` by its terrain (None = prohibited), in the weather in force
    there.

    A frozen swamp or lake uses the terrain named by its ``frozen_as`` row. A devastated hex costs
    +2 MP (OT 15A8).
    """
    tags = tags if tags is not None else special_units.movement_tags(g, p)
    cset = cost_set(g, p)
    memo = view(g).memo
    key = ("hex", i, cset, tags)
    if key in memo:
        c = memo[key]
    else:
        tec = charts(g).tec
        row = tec.hexes.get(terrain(g, i))
        if row is None:
            c = None
        else:
            if row.frozen_as and frozen_at(g, i):
                row = tec.hexes[row.frozen_as]
            c = _row_cost(row, cset, weather_at(g, i), tags, False)
        memo[key] = c
    if c is None:
        return None
    if marker(g, "devastated", i):
        c += DEVASTATION_COST
    return c


CAUSEWAY_WATER = frozenset({"sea", "lake", "great-river", "great-river-fordable"})  # OT 15A2
GREAT_SECTIONS = {"major-river": "great-river-fordable", "major-river-unfordable": "great-river"}


@implements("OT 15A5")
def map_side_features(g: Game, s: int) -> list[str]:
    """The map's features of hexside ``s``, with OT 15A5's great rivers of the non-European maps: a
    major river hexside marked ``great = true`` (a section downstream of a major-river tributary)
    is a great river, fordable or not as the major river was (``great-river-fordable`` /
    ``great-river``), and takes those TEC rows."""
    feats = g.board.side_feature_list(s)
    if g.board.side_attrs.get(s, {}).get("great"):
        return [GREAT_SECTIONS.get(f, f) for f in feats]
    return list(feats)


def side_features(g: Game, s: int) -> list[str]:
    """The TEC features of a hexside; a road or rail line over a sea, lake or great river hexside
    is a causeway, read as the TEC's causeway row (OT 15A2)."""
    feats = [f for f in map_side_features(g, s) if f in charts(g).tec.hexsides]
    water = CAUSEWAY_WATER
    if water & set(feats) and (road_link(g, s) or rail_link(g, s)):
        feats = [f for f in feats if f not in water] + (
            ["causeway"] if "causeway" not in feats else []
        )
    return feats


@implements("OT 6")
def hexside_cost(
    g: Game, p: Piece, s: int, entering: int, tags: frozenset[str] | None = None
) -> Fraction | None:
    """OT 6: MPs added for crossing hexside ``s`` into hex ``entering`` (None = prohibited)."""
    tags = tags if tags is not None else special_units.movement_tags(g, p)
    cset = cost_set(g, p)
    memo = view(g).memo
    key = ("side", s, entering, cset, tags)
    if key in memo:
        return memo[key]
    tec = charts(g).tec
    weather = weather_at(g, entering)
    frozen = frozen_at(g, entering)
    total: Fraction | None = Fraction(0)
    for f in side_features(g, s):
        c = _row_cost(tec.hexsides[f], cset, weather, tags, frozen)
        if c is None:
            total = None
            break
        total += c  # type: ignore[operator]
    memo[key] = total
    return total


def hex_prohibited_to_all(g: Game, i: int) -> bool:
    """A hex no ground unit may enter (all-sea, unfrozen all-lake, glacier); it depends on the
    terrain, weather and frost of the game turn only (memoised in the turn view; a hex with a flood
    marker, swamp only in the player turn it was flooded, OT 15A6, is never memoised)."""
    fl = g.state.markers.get("flooded")
    if fl and str(i) in fl:
        return _hex_prohibited_to_all(g, i)
    memo = view(g).memo
    key = ("prohibited-to-all", i)
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = _hex_prohibited_to_all(g, i)
    return hit


def _hex_prohibited_to_all(g: Game, i: int) -> bool:
    tec = charts(g).tec
    row = tec.hexes.get(terrain(g, i))
    if row is None:
        return True
    if row.frozen_as and frozen_at(g, i):
        row = tec.hexes[row.frozen_as]
    w = weather_at(g, i)
    return all(row.cost(cs, w) is None for cs in ("cm-art", "other")) and not any(
        e.cost.get(w) is not None for e in row.exceptions
    )


def side_prohibited_to_all(g: Game, s: int) -> bool:
    """A hexside no ground unit may cross (interpretation default OT 3E5: prohibited for all
    units)."""
    tec = charts(g).tec
    a, b = (int(x) for x in g.board.side_hexes[s])
    ref = b if b >= 0 else a
    w = weather_at(g, ref) if ref >= 0 else "clear"
    frozen = frozen_at(g, ref) if ref >= 0 else False
    for f in side_features(g, s):
        row = tec.hexsides[f]
        if row.extra.get("prohibited_to_all"):
            return True
        if frozen and row.frozen != "unchanged":
            if row.frozen is None:
                return True
            continue
        if all(row.cost(cs, w) is None for cs in ("cm-art", "other")) and not any(
            e.cost.get(w) is not None for e in row.exceptions
        ):
            return True
    return False


# ----------------------------------------------------------------------- roads and heads (OT 7, 7B)
@dataclass(frozen=True)
class Heads:
    rail_cut: frozenset[int]
    road_cut: frozenset[int]


@implements("OT 7")
def heads(g: Game) -> Heads:
    """OT 7: railheads and roadheads -- a line may be used up to its head hex but not beyond.

    The state keeps each head as the head hex plus the hexes of the line beyond it; the links
    between them are unusable (for roads: road links; for railheads: rail links, and the rail line
    beyond is no road either).
    """

    raw = gw(g).get("heads", [])
    key = ("heads", tuple((h["kind"], tuple(h["hexes"])) for h in raw))
    memo = view(g).memo
    hit = memo.get(key)
    if hit is not None:
        return hit
    rail: set[int] = set()
    road: set[int] = set()
    for h in raw:
        chain = [int(x) for x in h["hexes"]]
        cut = {g.board.side_between(a, b) for a, b in pairwise(chain)}
        (rail if h["kind"] == "rail" else road).update(cut)
    out = Heads(frozenset(rail), frozenset(road))
    memo[key] = out
    return out


def rail_link(g: Game, s: int) -> bool:
    """A rail line crosses hexside ``s`` (and it is not beyond a railhead)."""
    if s in heads(g).rail_cut:
        return False

    if str(s) in gw(g).get("eng", {}).get("rails", {}):
        return True
    return any(net.kind == "rail" and net.edges[s] for net in g.board.networks.values())


def _network_link(g: Game, s: int, kind: str) -> bool:
    return any(net.kind == kind and net.edges[s] for net in g.board.networks.values())


@implements("OT 7B")
def road_link(g: Game, s: int) -> bool:
    """OT 7B: a road joins the two hexes of hexside ``s``. Every rail line is also a road (a rail
    ferry is not, OT 15A3); nothing beyond a roadhead or railhead counts."""
    h = heads(g)
    if s in h.road_cut or s in h.rail_cut:
        return _network_link(g, s, "road") and s not in h.road_cut
    return _network_link(g, s, "road") or _network_link(g, s, "rail") or _built(g, s)


def _built(g: Game, s: int) -> bool:
    """Roads and rail lines built by engineers (OT 13A1f, 13B3c) beyond the map's lines."""

    e = gw(g).get("eng", {})
    return str(s) in e.get("roads", {}) or str(s) in e.get("rails", {})


def _maybe_bridged(g: Game) -> frozenset[int]:
    """The hexsides that can have a bridgeable feature at all: :func:`side_features` only takes the
    map's features away or adds a causeway (memoised per game: the map never changes)."""

    def compute() -> frozenset[int]:
        hs = charts(g).tec.hexsides
        ok = {f for f, row in hs.items() if row.extra.get("bridgeable")}
        causeway = "causeway" in ok
        return frozenset(
            s
            for s in range(g.board.m)
            if any(f in ok or (causeway and f in CAUSEWAY_WATER) for f in map_side_features(g, s))
        )

    return g.cache.keyed("gw:maybe-bridged", None, compute)


def _fixed_bridge_features(g: Game) -> dict[int, tuple[str, ...]]:
    """The bridgeable features of the hexsides without sea, lake or great river: there
    :func:`side_features` is the map's features alone, whatever is built or cut (memoised per game).
    """

    def compute() -> dict[int, tuple[str, ...]]:
        hs = charts(g).tec.hexsides
        out: dict[int, tuple[str, ...]] = {}
        for s in _maybe_bridged(g):
            raw = map_side_features(g, s)
            if not any(f in CAUSEWAY_WATER for f in raw):
                out[s] = tuple(f for f in raw if f in hs and hs[f].extra.get("bridgeable"))
        return out

    return g.cache.keyed("gw:fixed-bridges", None, compute)


def bridge_features(g: Game, s: int) -> list[str]:
    """The bridgeable features of hexside ``s`` (OT 15A1). They follow from the map, the roads and
    rail lines built on ``s`` and the heads cutting ``s`` (:func:`side_features`): memoised on
    those for the game turn."""
    if s not in _maybe_bridged(g):
        return []
    fixed = _fixed_bridge_features(g).get(s)
    if fixed is not None:
        return list(fixed)

    e = gw(g).get("eng")
    built = (str(s) in e.get("roads", {}), str(s) in e.get("rails", {})) if e else (False, False)
    h = heads(g)
    key = ("bridge-features", s, built, s in h.road_cut, s in h.rail_cut)
    memo = view(g).memo
    hit = memo.get(key)
    if hit is None:
        tec = charts(g).tec
        hit = memo[key] = tuple(
            f for f in side_features(g, s) if tec.hexsides[f].extra.get("bridgeable")
        )
    return list(hit)


@implements("OT 15A1")
def bridge_usable(g: Game, side: str, s: int) -> bool:
    """OT 15A1: a road or rail line over a (minor) canal, river or major river is a bridge; a side
    may use it only if it owns it (owns both hexes, or was the last to) and it is not demolished."""
    if not bridge_features(g, s):
        return True
    if marker(g, "bridge-demolished", s):
        return False
    a, b = (int(x) for x in g.board.side_hexes[s])
    if a >= 0 and b >= 0 and g.state.control.get(a) == side and g.state.control.get(b) == side:
        return True
    return marker(g, "bridge-owner", s) == side


def road_step_usable(g: Game, side: str, s: int) -> bool:
    """A step along a road from one hex to the next: a road link, and any bridge on it usable."""
    return road_link(g, s) and bridge_usable(g, side, s)


@implements("OT 7B")
def road_cost(g: Game, p: Piece, i: int) -> Fraction | None:
    """OT 7B: along a road a unit pays the clear-terrain cost (its cost set, the weather in force)
    for each hex entered, ignoring the hex and hexside terrain. A devastated hex still costs +2
    MP on a road (OT 15A8). Hexes no unit may enter stay closed."""
    if hex_prohibited_to_all(g, i):
        return None
    tec = charts(g).tec
    tags = special_units.movement_tags(g, p)
    c = _row_cost(tec.hexes["clear"], cost_set(g, p), weather_at(g, i), tags, False)
    if c is None:
        return None
    if marker(g, "devastated", i):
        c += DEVASTATION_COST
    return c


@implements("OT 15A4")
def crossing_disrupts(
    g: Game, s: int, entering: int, by_bridge: bool, side: str | None = None
) -> bool:
    """OT 15A4: crossing an unfrozen, unfordable major river disrupts the unit, unless at a bridge
    (or a pontoon bridge of the side whose unit crosses, OT 13A7: pass ``side``)."""
    if by_bridge or frozen_at(g, entering):
        return False
    if side is not None and reactions(g).pontoon_prevents_disruption(g, side, s):
        return False
    tec = charts(g).tec
    return any(tec.hexsides[f].extra.get("disrupts") for f in side_features(g, s))


# ----------------------------------------------------------------------- accel terrain (OT 6B1/6B2)
@implements("OT 6B1", "OT 6B2")
def road_quality(g: Game, i: int) -> str:
    """OT 6B1/6B2: ``good`` or ``poor`` roads in a hex (map areas of kind ``good-roads`` or
    ``poor-roads``; elsewhere the scenario's ``[rules] road_quality``, default good)."""
    if g.board.area_of(i, "good-roads") is not None:
        return "good"
    if g.board.area_of(i, "poor-roads") is not None:
        return "poor"
    rules = g.scenario.rules
    return str(getattr(rules, "road_quality", "good")) if rules is not None else "good"


def _named(name: str, frozen: bool) -> set[str]:
    return {name, f"{'frozen' if frozen else 'unfrozen'} {name}"}


@implements("OT 6B1", "OT 6B2")
def accel_offroad_allowed(g: Game, p: Piece, s: int, entering: int) -> bool:
    """OT 6B1/6B2: may a unit using accelerated movement make this off-road step?

    The region is the road quality of the hex entered (interpretation default). Cavalry, light,
    mountain and irregular units use the good-road lists everywhere (OT 6B2 exception).
    """
    tec = charts(g).tec
    quality = road_quality(g, entering)
    tags = special_units.movement_tags(g, p)
    if quality == "poor" and tags & {"cavalry", "light", "mountain", "irregular"}:
        quality = "good"
    frozen = frozen_at(g, entering)
    hex_names = _named(terrain(g, entering), frozen)
    feats = side_features(g, s)
    if quality == "good":
        if hex_names & tec.accel_good_hexes_excluded:
            return False
        return all(not _named(f, frozen) & tec.accel_good_hexsides_excluded for f in feats)
    if not hex_names & tec.accel_poor_hexes_allowed:
        return False
    return all(_named(f, frozen) & tec.accel_poor_hexsides_allowed for f in feats)


def crt_for_hex(g: Game, i: int) -> str:
    """The TEC's CRT-choice column for the terrain of a hex (the terrain input of OT 9A step 1)."""
    row = charts(g).tec.hexes.get(terrain(g, i))
    return row.crt if row is not None else "mobile"
