"""OT 11: supply -- supply lines (blocking, elements, lengths), general supply sources, the
initial-phase general supply check, special sources, combat supply, nationality restrictions and
the effects of being out of supply.

**Tracing** (OT 11B). A general supply line runs from a unit through up to three elements, in
this order: *overland* (to an Army HQs or a supply source, OT 11B1), *road* (from an Army HQs
to an operational supply depot or a source, OT 11B2), *railroad/naval* (from a depot to a
source, OT 11B3). The chain is computed from the sources outward with
:func:`grognard.search.trace.trace_from_sources`: the rail/naval element reaches the live depots,
the road element links Army HQs to them (one HQs per depot: a deterministic maximum matching), and
the overland element reaches the units. Element lengths come from the Supply Line Summary chart
(``data/charts/supply-lines.toml``, provisional), by the weather of the hex the element starts
from (the unit's hex for the overland element, the HQs' hex for the road element). Traces are
memoised per position with ``Game.cached``.

**Status** (OT 11B, 11F). Both players' units are checked at the start of every initial phase;
the result holds for the player turn. ``attrs.supply_out_since`` keeps the player turn a unit was
first found out of general supply (a regular line resets it); ``attrs.special_supply`` the
player turn in which it drew on a special source (OT 11C2b: in supply for that player turn, the
count keeps running). :func:`turns_out_of_supply` is what the other rules read.

The supply depots, Res Pts and GSPs themselves (placing, moving, carrying, capturing) are in
:mod:`.logistics`.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.greatwar.charts import load_charts
from grognard.rulesets.greatwar.hooks import reactions
from grognard.rulesets.greatwar.logistics import logistics
from grognard.rulesets.greatwar.map import geography, terrain, zoc
from grognard.rulesets.greatwar.map.weather import frozen_at, view, weather_at
from grognard.rulesets.greatwar.mechanics import gw, marker, table_roll
from grognard.rulesets.greatwar.movement import rail, rivers, stacking
from grognard.rulesets.greatwar.step import GWStep
from grognard.rulesets.greatwar.supply import supply_status
from grognard.rulesets.greatwar.supply.supply_status import (
    in_general_supply,
    out_of_supply_count,
    player_turn_ordinal,
    turns_out_of_supply,
)
from grognard.rulesets.greatwar.units import special_units, transport_units, units
from grognard.rulesets.greatwar.units.nations import (
    command_of,
    other_side,
    power_class,
    rulebook_name,
    side_of_nation,
)
from grognard.search.trace import trace_from_sources

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.greatwar.record import CombatSupplyLedger, SupplyRecord

INF = float("inf")

# kept while no piece is placed, removed or moved
LOCATIONS = (("locations",),)


# ============================================================================ chart
def summary(g: Game) -> dict[str, Any]:
    """The Supply Line Summary in force (the shipped chart or a scenario/user override)."""
    return dict(load_charts(g.scenario.table_overrides).raw["supply-lines"].body)


@implements("OT 11B")
def element_length(g: Game, element: str, weather: str) -> int:
    """OT 11B: the maximum length in hexes of a supply line element (``overland``, ``road`` or
    ``combat``) in a weather, from the Supply Line Summary."""
    return int(summary(g)[element][weather])


# ============================================================================ OT 11A blocking
def _prohibited_to_non_motorized(g: Game, i: int) -> bool:
    """Interpretation default (OT 11A): prohibited terrain for supply is what a non-motorized unit
    may not enter."""
    tec = load_charts(g.scenario.table_overrides).tec
    row = tec.hexes.get(terrain.terrain(g, i))
    if row is None:
        return True
    if row.frozen_as and frozen_at(g, i):
        row = tec.hexes[row.frozen_as]
    return row.cost("other", weather_at(g, i)) is None


@implements("OT 11A")
def supply_enterable(g: Game, side: str, i: int, enemy_zoc: dict[int, str] | None = None) -> bool:
    """OT 11A: a supply line may not enter an enemy-occupied/owned hex, a hex in an enemy ZOC
    unless a friendly unit occupies it, or prohibited terrain."""

    enemy = other_side(side)
    owner = g.state.control.get(i)
    here = units.units_in_hex(g, i)
    if owner == enemy and any(p.side == enemy for p in here):
        return False
    if _prohibited_to_non_motorized(g, i):
        return False
    ez = enemy_zoc if enemy_zoc is not None else zoc.zoc_map(g, enemy)
    return not (i in ez and not any(p.side == side for p in here))


def supply_step_ok(g: Game, i: int, j: int) -> bool:
    """OT 11A: no supply line across a prohibited hexside."""
    return not terrain.side_prohibited_to_all(g, g.board.side_between(i, j))


def ever_owned_by(g: Game, i: int) -> set[str]:
    return set(gw(g).get("ever_owned", {}).get(str(i), []))


# ========================================================================= OT 11C2a regular sources
@implements("OT 11C2a")
def regular_sources(g: Game, side: str) -> set[int]:
    """OT 11C2a: friendly major cities and factories in production that are rail-connected
    (OT 7A1) to another major city or factory, and that the enemy has never owned (a multi-hex
    city counts as enemy-owned only once all its hexes have been)."""
    key = hash((frozenset(g.state.control.items()), repr(gw(g).get("ever_owned", {}))))
    return set(g.cached(f"gw:regular-sources:{side}:{key}", lambda: _regular_sources(g, side)))


def _regular_sources(g: Game, side: str) -> frozenset[int]:

    enemy = other_side(side)
    cities = geography.major_cities(g)
    factories = [
        int(i)
        for i, pl in g.board.points.items()
        if any(pt.kind == "factory" and pt.attrs.get("in_production", True) for pt in pl)
    ]
    groups: list[frozenset[int]] = list(cities)
    for f in factories:
        if not any(f in c for c in cities):
            groups.append(frozenset({f}))
    eligible: list[frozenset[int]] = []
    for grp in groups:
        if all(enemy in ever_owned_by(g, h) for h in grp):
            continue
        owned = frozenset(h for h in grp if g.state.control.get(h) == side)
        if owned:
            eligible.append(owned)
    out: set[int] = set()
    for k, grp in enumerate(eligible):
        others = [h for m, o in enumerate(eligible) if m != k for h in o]
        if any(rail.rail_connected(g, side, a, b) for a in grp for b in others):
            out |= grp
    return frozenset(out)


@implements("OT 3G", "OT 11A")
def overland_reach(g: Game, side: str, sources: set[int]) -> set[int]:
    """Hexes from which an overland supply line of any length reaches one of ``sources`` (OT 3G)."""

    if not g.state.markers.get("flooded"):
        # the side's blocking arrays hold the same OT 11A tests (a partially flooded hex, OT
        # 15A6, is swamp only in its player turn, which the turn's terrain arrays do not follow)
        dyn = _dynamic(g, side)
        enter = dyn.enterable.tolist()
        step = _static_steps(g)
        nbr = g.cache.static("gw:neighbour-rows", lambda: g.board.nbr.tolist())
        found = {i for i in sources if enter[i]}
        todo_l = sorted(found)
        while todo_l:
            i = todo_l.pop()
            row, ok_row = nbr[i], step[i]
            for d in range(6):
                j = row[d]
                if j < 0 or j in found or not ok_row[d] or not enter[j]:
                    continue
                found.add(j)
                todo_l.append(j)
        return found
    return _overland_reach_by_hex(g, side, sources)


def _overland_reach_by_hex(g: Game, side: str, sources: set[int]) -> set[int]:
    """:func:`overland_reach` by the tests of :func:`supply_enterable`, hex by hex."""
    ez = zoc.zoc_map(g, other_side(side))
    ok = {i for i in sources if supply_enterable(g, side, i, ez)}
    todo = deque(sorted(ok))
    while todo:
        i = todo.popleft()
        for j in g.board.neighbors(i):
            if j in ok or not supply_step_ok(g, i, j):
                continue
            if not supply_enterable(g, side, j, ez):
                continue
            ok.add(j)
            todo.append(j)
    return ok


def traces_to(g: Game, i: int, reach: set[int]) -> bool:
    """OT 11A: a line from hex ``i`` (which it leaves, and so need not be able to enter) reaches the
    set ``reach`` of hexes joined to a source."""
    if i in reach:
        return True
    return any(j in reach and supply_step_ok(g, i, j) for j in g.board.neighbors(i))


# ============================================================================ OT 11E nationality
def home_territory(g: Game, nation: str) -> frozenset[int] | None:
    """Rule 41 home territory of a nation: the scenario's ``[rules] home_territory`` (map areas or
    hexes). None when the scenario gives none (no restriction)."""
    rules = g.scenario.rules
    table = getattr(rules, "home_territory", {}) if rules is not None else {}
    refs = table.get(nation)
    if refs is None:
        return None

    def compute() -> frozenset[int]:
        hexes: set[int] = set()
        for ref in refs:
            if ref in g.board.areas:
                hexes |= {int(x) for x in g.board.areas[ref].hexes}
            else:
                hexes.add(g.board.idx(ref))
        return frozenset(hexes)

    return g.cache.keyed("gw:home-territory", nation, compute)


def _rulebook(g: Game, nation: str) -> str:

    return rulebook_name(g, nation)


@implements("OT 11E")
def supply_partners(g: Game, nation: str) -> set[str]:
    """OT 11E: the nations whose regular sources a nation's units may trace to: its own, and for a
    minor power (OT 3B4) the nations it cooperates with (OT 15E1: Entente minor powers with France,
    Central Powers nations with Germany); the USA cooperates with France for supply (OT 15E2).
    The 15-RE allowance of great and major powers (OT 15E2) is not applied (every scenario nation
    without a home territory is unrestricted anyway)."""

    out = {nation}
    side = side_of_nation(g, nation)
    others = [n for n in g.scenario.data.nations if n != nation and side_of_nation(g, n) == side]
    minor = power_class(g, nation) == "minor"
    name = _rulebook(g, nation)
    for n in others:
        other = _rulebook(g, n)
        if minor and side == "Entente" and other == "France":
            out.add(n)
        if minor and side == "Central Powers" and other == "Germany":
            out.add(n)
        if name in ("USA", "United States", "America") and other == "France":
            out.add(n)
    return out


@implements("OT 11E")
def source_allowed(g: Game, nation: str, i: int) -> bool:
    """OT 11E: a unit may trace only to regular sources in its home territory (or in the home
    territory of a nation it cooperates with, for minor powers)."""
    homes = [home_territory(g, n) for n in supply_partners(g, nation)]
    if all(h is None for h in homes):
        return True
    return any(h is not None and i in h for h in homes)


@implements("OT 11E")
def hq_allowed(g: Game, unit_nation: str, hq: Piece) -> bool:
    """OT 11E: a unit may not trace to an Army HQs of a different nationality."""
    return hq.nation == unit_nation


@implements("OT 11E")
def foreign_nets(g: Game, nation: str) -> frozenset[str]:
    """OT 11E: the rail nets controlled by a nation that ``nation`` does not cooperate with (each 2
    high-volume hexes of such a net count as 1 low-volume hex). Nets without a controller are
    nobody's. Cooperating nations use each other's nets freely (OT 15E)."""

    partners = {_rulebook(g, n) for n in supply_partners(g, nation)} | {nation}
    out = set()
    for d in rail.net_defs(g):
        ctl = getattr(d, "controller", None)
        if ctl and ctl not in partners and _rulebook(g, ctl) not in partners:
            out.add(d.name)
    return frozenset(out)


# ========================================================================== per-turn terrain arrays
@dataclass
class _Static:
    """Terrain facts for supply lines that change only with the turn (weather) and the heads."""

    step_ok: np.ndarray  # (n,6) a step may cross this hexside (OT 11A)
    prohibited: np.ndarray  # (n,) prohibited to non-motorized units (OT 11A)
    overland: np.ndarray  # (n,6) overland cost of the step, off-road (OT 11B1)
    road: np.ndarray  # (n,6) a road runs across the hexside (OT 7B)
    bridge: np.ndarray  # (n,6) the hexside has a bridge where a road/rail crosses it (OT 15A1)
    sea: np.ndarray  # (n,) all-sea hex


def _static_key(g: Game) -> tuple[Any, ...]:
    """What :func:`_static` reads besides the turn view (heads of rail and road, engineering)."""
    hk = terrain.heads(g)
    e = gw(g).get("eng", {})
    return (
        "supply-static",
        hk.rail_cut,
        hk.road_cut,
        tuple(sorted(e.get("roads", {}))),
        tuple(sorted(e.get("rails", {}))),
    )


@implements("OT 11B1")
def _static(g: Game) -> _Static:
    """OT 11B1: overland costs -- 1 per hex, 2 for wooded rough, mountain, forest, unfrozen swamp,
    wooded swamp, ravines, sand and permafrost tundra; +1 for crossing an unfrozen major river,
    fordable great river, high mountain (clear weather), high mountain pass (other weather),
    unfrozen narrow straits or impassable escarpment hexside (and entering karst or salt desert
    hexes, the map having no such hexsides)."""
    tv = view(g)
    key = _static_key(g)
    hit = tv.memo.get(key)
    if hit is not None:
        return hit
    b = g.board
    n = b.n
    terms = summary(g)["overland_terms"]
    double = set(terms["double_hexes"])
    plus = set(terms["plus_one_hexsides"])
    plus_enter = set(terms.get("plus_one_entering", []))
    prohibited = np.array([_prohibited_to_non_motorized(g, i) for i in range(n)], dtype=bool)
    sea = np.array([terrain.terrain(g, i) == "sea" for i in range(n)], dtype=bool)
    hexcost = np.ones(n)
    for i in range(n):
        t = terrain.terrain(g, i)
        if t in double and not (t == "swamp" and frozen_at(g, i)):
            hexcost[i] = 2
        if t in plus_enter:
            hexcost[i] += 1
    step_ok = np.zeros((n, 6), dtype=bool)
    overland = np.full((n, 6), INF)
    road = np.zeros((n, 6), dtype=bool)
    bridge = np.zeros((n, 6), dtype=bool)
    side_memo: dict[int, tuple[bool, float, bool, bool]] = {}
    for i in range(n):
        for d in range(6):
            j = int(b.nbr[i, d])
            if j < 0:
                continue
            s = int(b.side_of[i, d])
            hit2 = side_memo.get(s)
            if hit2 is None:
                ok = not terrain.side_prohibited_to_all(g, s)
                extra = 0.0
                w = weather_at(g, j)
                fz = frozen_at(g, j)
                for f in terrain.side_features(g, s):
                    if f not in plus:
                        continue
                    if f == "high-mountain" and w != "clear":
                        continue
                    if f == "high-mountain-pass" and w == "clear":
                        continue
                    if f in ("major-river", "major-river-unfordable", "narrow-straits") and fz:
                        continue
                    extra = 1.0
                hit2 = (ok, extra, terrain.road_link(g, s), bool(terrain.bridge_features(g, s)))
                side_memo[s] = hit2
            ok, extra, rd, br = hit2
            step_ok[i, d] = ok
            overland[i, d] = hexcost[j] + extra
            road[i, d] = rd
            bridge[i, d] = br
    out = _Static(step_ok, prohibited, overland, road, bridge, sea)
    tv.memo[key] = out
    return out


def _static_steps(g: Game) -> list[list[bool]]:
    """OT 11A: :attr:`_Static.step_ok` as rows of lists (for the searches of
    :func:`overland_reach`), kept with the arrays they are read from."""
    tv = view(g)
    key = ("supply-static-steps", _static_key(g))
    hit = tv.memo.get(key)
    if hit is None:
        hit = tv.memo[key] = _static(g).step_ok.tolist()
    return hit


@dataclass
class _Dynamic:
    """Position-dependent facts for one side's supply lines."""

    side: str
    enterable: np.ndarray  # (n,) OT 11A
    friendly: np.ndarray  # (n,) friendly-owned
    road_ok: np.ndarray  # (n,6) usable road step for this side
    overland: np.ndarray  # (n,6) overland step cost (roads count 1, OT 11B1)
    key: tuple[Any, ...] = ()  # what it was built from (:func:`_dynamic_key`)


def _dynamic(g: Game, side: str) -> _Dynamic:
    return g.cached(f"gw:supply-dyn:{side}", lambda: _keyed_dynamic(g, side))


def _dynamic_key(g: Game, side: str) -> tuple[Any, ...]:
    """Everything :func:`_build_dynamic` reads: the turn view and the static key (terrain), the
    enemy's ZOCs (their own signature), where the units are, the hexes' owners (the revision at
    which the control map last changed, in this state), and the bridge markers."""
    st = g.state
    mk = st.markers
    return (
        side,
        view(g).key,
        _static_key(g),
        zoc.zoc_signature(g, other_side(side)),
        _occupied(g),
        (st.epoch, st.rev_of(("control",))),
        repr(mk.get("bridge-demolished")),
        repr(mk.get("bridge-owner")),
    )


def _occupied(g: Game) -> tuple[tuple[str, frozenset[int]], ...]:
    """The hexes the units of each side occupy (kept while no piece is placed or moved)."""

    def compute() -> tuple[tuple[str, frozenset[int]], ...]:
        by_side: dict[str, set[int]] = {}
        for p in units.on_map_units(g):
            h = units.hex_of(g, p)
            if h is not None:
                by_side.setdefault(p.side, set()).add(h)
        return tuple(sorted((k, frozenset(v)) for k, v in by_side.items()))

    return g.cache.tracked(g.state, "gw:occupied", LOCATIONS, compute)


def _keyed_dynamic(g: Game, side: str) -> _Dynamic:
    key = _dynamic_key(g, side)
    return g.cache.keyed("gw:supply-dyn", key, lambda: _build_dynamic(g, side, key), limit=64)


@implements("OT 11A")
def _build_dynamic(g: Game, side: str, key: tuple[Any, ...] = ()) -> _Dynamic:
    """OT 11A blocking for a whole side at once (see :func:`supply_enterable`)."""

    st = _static(g)
    n = g.board.n
    enemy = other_side(side)
    ez = zoc.zoc_map(g, enemy)
    occ_enemy = np.zeros(n, dtype=bool)
    occ_friend = np.zeros(n, dtype=bool)
    occ = dict(_occupied(g))
    occ_enemy[sorted(occ.get(enemy, ()))] = True
    occ_friend[sorted(occ.get(side, ()))] = True
    ctl = g.state.control
    enemy_owned = np.zeros(n, dtype=bool)
    friendly = np.zeros(n, dtype=bool)
    for i, owner in ctl.items():
        if 0 <= i < n:
            if owner == enemy:
                enemy_owned[i] = True
            elif owner == side:
                friendly[i] = True
    in_ez = np.zeros(n, dtype=bool)
    for i in ez:
        in_ez[int(i)] = True
    enterable = ~(enemy_owned & occ_enemy) & ~st.prohibited & ~(in_ez & ~occ_friend)
    road_ok = st.road.copy()
    if st.bridge.any():
        usable: dict[int, bool] = {}
        side_of = g.board.side_of
        for i, d in zip(*np.nonzero(st.road & st.bridge), strict=True):
            s = int(side_of[i, d])
            ok = usable.get(s)
            if ok is None:
                ok = usable[s] = terrain.bridge_usable(g, side, s)
            if not ok:
                road_ok[i, d] = False
    overland = np.where(road_ok, 1.0, st.overland)
    overland = np.where(st.step_ok, overland, INF)
    for a in (enterable, friendly, road_ok, overland):
        a.flags.writeable = False  # shared by every position with the same key
    return _Dynamic(side, enterable, friendly, road_ok, overland, key)


# ======================================================================= OT 11B3 rail/naval element
def _port_size(g: Game, i: int) -> str | None:
    for pt in g.board.points_at(i):
        if pt.kind == "port":
            return str(pt.attrs.get("size", "standard"))
    return None


def port_damage(g: Game, i: int) -> int:
    """Hits of damage on the port in hex ``i`` (marker ``port-damage``; OT 13A2/13A3, naval
    rules)."""
    return int(marker(g, "port-damage", i, 0) or 0)


@implements("OT 11B3b")
def port_functioning(g: Game, i: int) -> bool:
    """OT 11B3b: a port functions unless it has the maximum damage of the Port Summary
    (provisional)."""
    size = _port_size(g, i)
    if size is None:
        return False
    return port_damage(g, i) < int(summary(g)["ports"]["max_damage"].get(size, 1))


@implements("OT 11B3b", "OT 13C2")
def port_throughput(g: Game, i: int) -> Fraction | None:
    """OT 11B3b: REs of units that may trace a naval sub-element through the port in hex ``i``:
    major 60, standard 30, minor 15, marginal 3, great unlimited (None), less 3 RE per hit of
    damage; a port upgraded by a port construction engineer counts as its upgraded size (OT 13C2).
    """
    size = _port_size(g, i)
    if size is None:
        return Fraction(0)
    up = marker(g, "port-upgrade", i)
    if up:
        size = "major" if size in ("minor", "standard") else size
    ports = summary(g)["ports"]
    cap = int(ports["throughput"].get(size, 0))
    if cap < 0:
        return None
    extra = 0
    if up and _port_size(g, i) in ("major", "great"):
        extra = int(
            load_charts(g.scenario.table_overrides)
            .raw["engineering"]
            .body["res_pts"]["port_upgrade_re"]
        )
    return max(Fraction(0), Fraction(cap + extra - int(ports["per_hit"]) * port_damage(g, i)))


def _sea_area_allowed(g: Game, side: str, i: int) -> bool:
    """OT 11B3b, basic naval rules: only the Central Powers in the Baltic Sea and the Turkish
    Straits; nobody in the Black Sea or the Adriatic; only the Entente elsewhere (sea areas are map
    areas of kind ``sea-area``). With the advanced naval rules, OT 34K decides (not implemented:
    the basic restrictions stay in force)."""
    area = g.board.area_of(i, "sea-area") or ""
    name = area.lower()
    if "baltic" in name or "turkish" in name or "straits" in name:
        return side == "Central Powers"
    if "black sea" in name or "adriatic" in name:
        return False
    return side == "Entente"


@implements("OT 11B3b")
def inland_port_links(g: Game, side: str) -> list[tuple[int, int]]:
    """OT 11B3b: an inland port (no sea hex next to it) reaches the sea along inland waterway
    hexsides (OT 7C1) when no hexside between it and the open sea is blocked (OT 7C3). Returns
    (port hex, sea hex at the waterway's mouth) pairs."""

    # the answer depends on the turn's waterways (navigable: weather, floods -- the turn view) and
    # on
    # where enemy coast defenses stand (rivers.blocked): memoised on those
    enemy = other_side(side)
    defenses = frozenset(
        units.hex_of(g, p)
        for p in units.on_map_units(g, enemy)
        if units.utype(p).artillery in rivers.COAST_DEFENSE_ARTILLERY
    )
    memo = view(g).memo
    key = ("inland-port-links", side, defenses)
    if key not in memo:
        memo[key] = tuple(_inland_port_links(g, side))
    return list(memo[key])


def _inland_port_links(g: Game, side: str) -> list[tuple[int, int]]:

    b = g.board
    st = _static(g)
    out: list[tuple[int, int]] = []
    for i in sorted(int(x) for x in b.points):
        if _port_size(g, i) is None or any(st.sea[j] for j in b.neighbors(i)):
            continue
        start = [
            int(b.side_of[i, d])
            for d in range(6)
            if rivers.navigable(g, int(b.side_of[i, d]))
            and not rivers.blocked(g, side, int(b.side_of[i, d]))
        ]
        seen = set(start)
        todo = deque(start)
        mouths: set[int] = set()
        while todo:
            s = todo.popleft()
            for h in (int(x) for x in b.side_hexes[s]):
                if h >= 0 and st.sea[h]:
                    mouths.add(h)
            for v in rivers.connected_sides(g, s):
                if v not in seen and rivers.navigable(g, v) and not rivers.blocked(g, side, v):
                    seen.add(v)
                    todo.append(v)
            a, c = (int(x) for x in b.side_hexes[s])
            if a >= 0 and c >= 0:
                for j in set(b.neighbors(a)) & set(b.neighbors(c)):
                    if st.sea[j]:
                        mouths.add(j)
        out.extend((i, m) for m in sorted(mouths))
    return out


@dataclass
class RailGraph:
    """The rail/naval sub-element graph of one side and nationality (OT 11B3)."""

    edges: np.ndarray  # (n,6)
    cost: np.ndarray  # (n,6) low-volume hexes counted for entering the next hex
    blocked: np.ndarray  # (n,)
    links: list[tuple[int, int, float]]
    naval: bool
    ports: frozenset[int]  # functioning friendly ports usable as naval ends
    key: tuple[Any, ...] = ()  # what it was built from (:func:`_rail_graph_key`)


@implements("OT 11B3", "OT 11B3a", "OT 11B3b", "OT 11E")
def rail_graph(g: Game, side: str, nation: str, naval: bool = True) -> RailGraph:
    """OT 11B3: the railroad/naval element.

    Rail sub-element (OT 11B3a): friendly-owned hexes only, along rail lines the side may use for
    rail movement (usable bridges; rail ferries between friendly ports); breaks and obstructions
    do not block. Each step along a low-volume line counts one low-volume hex; every hex of a net
    on which the side had less than 10 RE of capacity at the start of the player turn counts as
    low-volume; a high-volume hex of a net controlled by a non-cooperating nation counts half a
    low-volume hex (OT 11E: 2 hexes or fraction = 1; the fraction is taken over the whole line).
    Naval sub-element (OT 11B3b): from a functioning friendly-owned port through sea hexes (sea
    areas allowed to the side) to another; inland ports through their waterways.
    """
    return g.cached(
        f"gw:rail-graph:{side}:{nation}:{naval}", lambda: _keyed_rail_graph(g, side, nation, naval)
    )


def _low_nets(g: Game, side: str) -> frozenset[str]:
    """OT 11B3a: the nets on which ``side`` has less than the low-volume capacity."""
    rules = summary(g)["rail"]
    low_nets = set()
    for net in rail.net_names(g):
        rec = rail.ledger(g, net, side)
        if not rail.unlimited(rec) and Fraction(rail.limited_capacity(rec)) < int(
            rules["low_capacity_below"]
        ):
            low_nets.add(net)
    return frozenset(low_nets)


def _rail_graph_key(g: Game, side: str, nation: str, naval: bool) -> tuple[Any, ...]:
    """Everything :func:`_rail_graph` reads: the side's blocking and owners (its key: terrain,
    ZOCs, units, control, bridges), the rail links (heads, engineering), the low-volume and
    foreign nets, port damage and the inland ports' waterways."""
    e = gw(g).get("eng", {})
    ipl = tuple(inland_port_links(g, side)) if naval and _static(g).sea.any() else ()
    return (
        side,
        nation,
        naval,
        _dynamic(g, side).key,
        tuple(sorted(terrain.heads(g).rail_cut)),
        repr(e.get("gauge")),
        repr(e.get("volume")),
        repr(e.get("rails")),
        _low_nets(g, side),
        foreign_nets(g, nation),
        repr(g.state.markers.get("port-damage")),
        ipl,
    )


def _keyed_rail_graph(g: Game, side: str, nation: str, naval: bool) -> RailGraph:
    key = _rail_graph_key(g, side, nation, naval)
    return g.cache.keyed(
        "gw:rail-graph", key, lambda: _rail_graph(g, side, nation, naval, key), limit=256
    )


def _rail_graph(
    g: Game, side: str, nation: str, naval: bool, key: tuple[Any, ...] = ()
) -> RailGraph:

    b = g.board
    n = b.n
    dyn = _dynamic(g, side)
    st = _static(g)
    rules = summary(g)["rail"]
    foreign = foreign_nets(g, nation)
    low_nets = _low_nets(g, side)
    half = 1.0 / float(rules["foreign_high_per_low"])
    edges = np.zeros((n, 6), dtype=bool)
    cost = np.zeros((n, 6))
    ln = rail.links(g)
    for u, lks in ln.items():
        if not dyn.friendly[u]:
            continue
        for lk in lks:
            v = lk.to
            if not dyn.friendly[v] or not rail._link_ok_for(g, side, lk, u):
                continue
            d = b.direction(u, v)
            if d is None:
                continue
            nets = rail.nets_of_hex(g, v)
            if lk.volume == "low" or any(x in low_nets for x in nets):
                c = 1.0
            elif any(x in foreign for x in nets):
                c = half
            else:
                c = 0.0
            edges[u, d] = True
            cost[u, d] = c
    blocked = ~dyn.enterable.copy()
    links: list[tuple[int, int, float]] = []
    ports: set[int] = set()
    if naval and st.sea.any():
        for i in sorted(int(x) for x in b.points):
            if _port_size(g, i) is not None and dyn.friendly[i] and port_functioning(g, i):
                ports.add(i)
        sea_ok = np.array(
            [bool(st.sea[i]) and _sea_area_allowed(g, side, i) for i in range(n)], dtype=bool
        )
        for i in range(n):
            for d in range(6):
                j = int(b.nbr[i, d])
                if j < 0:
                    continue
                if (
                    (sea_ok[i] and sea_ok[j])
                    or (i in ports and sea_ok[j])
                    or (sea_ok[i] and j in ports)
                ):
                    edges[i, d] = True
        blocked = blocked & ~sea_ok
        for p, m in inland_port_links(g, side):
            if p in ports and sea_ok[m]:
                links.append((p, m, 0.0))
    for a in (edges, cost, blocked):
        a.flags.writeable = False  # shared by every position with the same key
    return RailGraph(edges, cost, blocked, links, naval, frozenset(ports), key)


def rail_element(
    g: Game,
    side: str,
    nation: str,
    sources: Iterable[int],
    naval: bool = True,
    limit: float | None = None,
) -> Any:
    """OT 11B3: trace the railroad/naval element from ``sources`` (the low-volume count as distance;
    at most 7 unless ``limit`` says otherwise)."""

    lim = float(summary(g)["rail"]["low_volume_max"]) if limit is None else limit
    src = sorted(set(sources))

    def run() -> Any:
        rg = rail_graph(g, side, nation, naval)
        return g.cache.keyed(
            "gw:rail-element",
            (rg.key, lim, tuple(src)),
            lambda: trace_from_sources(
                g.board.nbr,
                rg.cost,
                src,
                limit=lim + 1e-9,
                blocked=rg.blocked,
                edges=rg.edges,
                links=rg.links or None,
                n_nodes=g.board.n,
            ),
            limit=1024,
        )

    return g.cached(f"gw:rail-element:{side}:{nation}:{naval}:{lim}:{src}", run)


def line_ports(g: Game, side: str, nation: str, path: Sequence[int]) -> list[int]:
    """The ports a rail/naval path passes through (where it enters or leaves the sea)."""
    st = _static(g)
    out: list[int] = []
    for a, c in itertools.pairwise(path):
        if st.sea[a] != st.sea[c]:
            for h in (a, c):
                if not st.sea[h] and _port_size(g, h) is not None and h not in out:
                    out.append(h)
    return out


# ============================================================================ OT 11B2 road element
@implements("OT 11B2")
def road_distances(g: Game, side: str, seeds: Iterable[int]) -> np.ndarray:
    """OT 11B2: length of the road element from each hex to the nearest of ``seeds`` (depots or
    sources): along roads through friendly-owned hexes; the first hex may be left overland from the
    Army HQs onto a road (any terrain a non-motorized unit may enter). Supply-line transports on the
    road extend it (OT 14O3)."""
    dyn = _dynamic(g, side)
    st = _static(g)
    src = sorted(set(seeds))
    n = g.board.n
    blocked = ~(dyn.enterable & dyn.friendly)
    ones = np.ones((n, 6))
    dist = overland_trace(
        g, side, src, "road", step_cost=ones, edges=dyn.road_ok & st.step_ok, blocked=blocked
    )[0].copy()
    on_road = dyn.road_ok.any(axis=1)
    # the first hex: from the HQs' hex overland onto a road hex
    nbr = g.board.nbr
    cand = np.where((nbr >= 0) & st.step_ok, dist[np.maximum(nbr, 0)] + 1.0, INF)
    cand = np.where(
        (nbr >= 0) & on_road[np.maximum(nbr, 0)] & ~blocked[np.maximum(nbr, 0)],  # type: ignore[index]
        cand,
        INF,
    )
    return np.minimum(dist, cand.min(axis=1))


# ========================================================================= OT 11B the general trace
@dataclass
class GeneralTrace:
    """Who is in general supply through a regular line, for one side (OT 11B)."""

    side: str
    supplied: dict[str, str]  # unit id -> how ("source", "hq:<id>")
    hq_links: dict[str, str]  # Army HQs id -> "source" or "depot:<id>"
    live_depots: dict[str, list[str]]  # nationality -> depot ids linked to a source
    port_use: dict[int, Fraction] = field(default_factory=dict)


def _nation_groups(g: Game, side: str) -> dict[str, list[Piece]]:
    out: dict[str, list[Piece]] = {}
    for p in units.on_map_units(g, side):
        out.setdefault(p.nation, []).append(p)
    return out


def trace_general(g: Game, side: str) -> GeneralTrace:
    """OT 11B: the general supply lines of ``side`` in the current position (memoised)."""
    return g.cached(f"gw:general-trace:{side}", lambda: _trace_general(g, side))


def _max_matching(options: dict[str, list[str]]) -> dict[str, str]:
    """Deterministic maximum bipartite matching (Army HQs -> depots), HQs in id order."""
    match_of: dict[str, str] = {}
    owner: dict[str, str] = {}

    def try_hq(h: str, seen: set[str]) -> bool:
        for d in options[h]:
            if d in seen:
                continue
            seen.add(d)
            if d not in owner or try_hq(owner[d], seen):
                owner[d] = h
                match_of[h] = d
                return True
        return False

    for h in sorted(options):
        try_hq(h, set())
    return match_of


@implements("OT 11B", "OT 11B1", "OT 11B2", "OT 11B3", "OT 11C1", "OT 11E")
def _trace_general(g: Game, side: str) -> GeneralTrace:
    """OT 11B: overland -> road -> railroad/naval, in that order.

    Per nationality (OT 11E): the regular sources it may use; the rail/naval element from them
    reaches operational depots (OT 11C1: only operational depots are part of a line); each Army HQs
    of that nationality links by road to a source or to one depot no other HQs uses (OT 11B2); the
    overland element reaches the units from their HQs and the sources. Units whose only line needs
    a port are served, in id order, while the port's throughput lasts (OT 11B3b; interpretation
    default of the allocation).
    """

    groups = _nation_groups(g, side)
    all_sources = regular_sources(g, side)
    hqs = [p for p in units.on_map_units(g, side) if special_units.is_army_hq(p)]
    depots = [d for d in logistics.depots(g, side) if logistics.depot_operational(d)]
    nations_needed = sorted(set(groups) | {h.nation for h in hqs})
    supplied: dict[str, str] = {}
    hq_links: dict[str, str] = {}
    live: dict[str, list[str]] = {}
    port_use: dict[int, Fraction] = {}
    results: dict[bool, dict[str, str]] = {}
    depot_paths: dict[tuple[str, str], list[int]] = {}
    for naval in (False, True):
        sup: dict[str, str] = {}
        links: dict[str, str] = {}
        live_n: dict[str, list[str]] = {}
        options: dict[str, list[str]] = {}
        direct: set[str] = set()
        for nat in nations_needed:
            srcs = sorted(i for i in all_sources if source_allowed(g, nat, i))
            if not srcs:
                live_n[nat] = []
                continue
            re_ = rail_element(g, side, nat, srcs, naval=naval)
            ok_depots = [d for d in depots if np.isfinite(re_.dist[units.hex_of(g, d)])]
            live_n[nat] = [d.id for d in ok_depots]
            if naval:
                for d in ok_depots:
                    h = units.hex_of(g, d)
                    assert h is not None
                    depot_paths[(nat, d.id)] = re_.path(h)
            src_road = road_distances(g, side, srcs)
            per_depot = {d.id: road_distances(g, side, [units.hex_of(g, d)]) for d in ok_depots}  # type: ignore[list-item]
            for hq in hqs:
                if hq.nation != nat:
                    continue
                h = units.hex_of(g, hq)
                assert h is not None
                lim = element_length(g, "road", weather_at(g, h))
                if src_road[h] <= lim:
                    direct.add(hq.id)
                    continue
                options[hq.id] = [d for d in sorted(per_depot) if per_depot[d][h] <= lim]
        match = _max_matching({h: o for h, o in options.items() if h not in direct})
        for h in direct:  # type: ignore[assignment]
            links[h] = "source"  # type: ignore[index]
        for h, d in match.items():  # type: ignore[assignment]
            links[h] = f"depot:{d}"  # type: ignore[index]
        for nat, members in groups.items():
            srcs = sorted(i for i in all_sources if source_allowed(g, nat, i))
            seeds = list(srcs)
            seed_hq: dict[int, str] = {}
            for hq in hqs:
                if hq.nation == nat and hq.id in links:
                    h = units.hex_of(g, hq)
                    assert h is not None
                    seeds.append(h)
                    seed_hq.setdefault(h, hq.id)
            if not seeds:
                continue
            eff, nearest = overland_trace(g, side, seeds, "overland")
            for p in members:
                h = units.hex_of(g, p)
                assert h is not None
                if eff[h] <= element_length(g, "overland", weather_at(g, h)) + 1e-9:
                    src = int(nearest[h])
                    sup[p.id] = (
                        f"hq:{seed_hq[src]}" if src in seed_hq and src not in srcs else "source"
                    )
        results[naval] = sup
        if not naval:
            base_sup, base_links, base_live = sup, links, live_n
        else:
            nav_sup, nav_links, nav_live = sup, links, live_n
    supplied = dict(base_sup)
    hq_links = dict(base_links)
    live = {k: list(v) for k, v in base_live.items()}
    extra = sorted(set(nav_sup) - set(base_sup))
    if extra:
        caps: dict[int, Fraction | None] = {}
        for pid in extra:
            p = g.state.pieces[pid]
            how = nav_sup[pid]
            ports: list[int] = []
            if how.startswith("hq:"):
                link = nav_links.get(how[3:], "")
                if link.startswith("depot:"):
                    ports = line_ports(
                        g,
                        side,
                        p.nation,
                        depot_paths.get((g.state.pieces[how[3:]].nation, link[6:]), []),
                    )
            need = units.re_size(g, p)
            ok = True
            for port in ports:
                if port not in caps:
                    caps[port] = port_throughput(g, port)
                cap = caps[port]
                if cap is not None and port_use.get(port, Fraction(0)) + need > cap:
                    ok = False
            if not ok:
                continue
            for port in ports:
                port_use[port] = port_use.get(port, Fraction(0)) + need
            supplied[pid] = how
            if how.startswith("hq:") and how[3:] in nav_links:
                hq_links.setdefault(how[3:], nav_links[how[3:]])
        for nat, ids in nav_live.items():
            live.setdefault(nat, [])
            for d in ids:  # type: ignore[assignment]
                if d not in live[nat]:
                    live[nat].append(d)  # type: ignore[arg-type]
    return GeneralTrace(side, supplied, hq_links, live, port_use)


# ======================================================================= special sources (OT 11C2b)
@implements("OT 11C2b")
def overland_distances(
    g: Game, side: str, seeds: Iterable[int], element: str = "overland"
) -> np.ndarray:
    """Overland element lengths (OT 11B1) from every hex to the nearest of ``seeds`` (less the
    extension of supply-line transports on the way, OT 14O3)."""
    return overland_trace(g, side, seeds, element)[0]


def _transport_counts(g: Game, side: str) -> dict[int, int]:
    """OT 14O3: per hex, the undisrupted transports in supply-line mode that may extend a line
    there."""

    fn = transport_units.extends_in
    out: dict[int, int] = {}
    for p in _transports_on_map(g):
        if p.side != side:
            continue
        h = units.hex_of(g, p)
        if h is not None and fn(g, p, h):
            out[h] = out.get(h, 0) + 1
    return out


def _transports_on_map(g: Game) -> tuple[Piece, ...]:
    """The transport units on the map, by id (kept while no piece is placed or moved)."""

    def compute() -> tuple[str, ...]:
        return tuple(p.id for p in units.on_map_units(g) if "transport" in units.utype(p).tags)

    ids = g.cache.tracked(g.state, "gw:transports", LOCATIONS, compute)
    return tuple(g.state.pieces[i] for i in ids)


def _bonus(t: int) -> int:
    """OT 14O3: +1 hex with one transport on the element, +2 with three or more (two: +1,
    default)."""
    return 2 if t >= 3 else (1 if t >= 1 else 0)


@implements("OT 11B1", "OT 14O3")
def overland_trace(
    g: Game,
    side: str,
    seeds: Iterable[int],
    element: str = "overland",
    step_cost: np.ndarray | None = None,
    edges: np.ndarray | None = None,
    blocked: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """An element traced from ``seeds``: (effective length per hex, nearest seed). The effective
    length is the length less the extension of supply-line transports in the hexes the line enters
    (OT 14O3: +1 for one, +2 for three or more, never more), so it is compared with the element's
    length of the Supply Line Summary. Defaults: the overland costs and blocking of OT 11A/11B1."""
    if step_cost is None and edges is None and blocked is None:
        # the default element depends only on the side's blocking and costs (``_dynamic``, memoised
        # for the position) and the transports: memoised the same way (copies handed out)
        dist, origin = _overland_shared(g, side, seeds, element)
        return dist.copy(), origin.copy()
    return _overland_trace(g, side, seeds, element, step_cost, edges, blocked)


def _overland_shared(
    g: Game, side: str, seeds: Iterable[int], element: str
) -> tuple[np.ndarray, np.ndarray]:
    """The default element from ``seeds`` (read-only arrays, shared: do not modify)."""
    src_key = tuple(sorted(set(int(x) for x in seeds)))
    return g.cached(
        f"gw:overland:{side}:{element}:{src_key}",
        lambda: _keyed_overland(g, side, src_key, element),
    )


def _keyed_overland(
    g: Game, side: str, src_key: tuple[int, ...], element: str
) -> tuple[np.ndarray, np.ndarray]:
    """The default element, kept by what it reads: the side's blocking and costs (their key), the
    transports that extend it, the seeds and the element."""
    trans = _transport_counts(g, side)
    key = (_dynamic(g, side).key, element, src_key, tuple(sorted(trans.items())))
    return g.cache.keyed(
        "gw:overland", key, lambda: _frozen(_overland_trace(g, side, src_key, element)), limit=4096
    )


def _frozen(arrays: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    for a in arrays:
        a.flags.writeable = False
    return arrays


def _overland_trace(
    g: Game,
    side: str,
    seeds: Iterable[int],
    element: str = "overland",
    step_cost: np.ndarray | None = None,
    edges: np.ndarray | None = None,
    blocked: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:

    dyn = _dynamic(g, side)
    cost = dyn.overland if step_cost is None else step_cost
    blk = ~dyn.enterable if blocked is None else blocked
    top = max(int(v) for v in summary(g)[element].values()) if element in summary(g) else 10_000
    n = g.board.n
    src = sorted(set(int(x) for x in seeds))
    trans = _transport_counts(g, side)
    if not trans or not src:
        res = trace_from_sources(
            g.board.nbr, cost, src, limit=top + 1e-9, blocked=blk, edges=edges, n_nodes=n
        )
        return res.dist[:n], res.source[:n]
    return _layered(
        g, src, cost if edges is None else np.where(edges, cost, INF), blk, top + 2, trans
    )


def _layered(
    g: Game,
    seeds: list[int],
    cost: np.ndarray,
    blocked: np.ndarray,
    limit: float,
    trans: dict[int, int],
) -> tuple[np.ndarray, np.ndarray]:
    """Shortest paths to the seeds keeping count (up to 3) of the transports in the hexes
    entered."""

    nbr = g.board.nbr
    n = g.board.n
    rev: dict[int, list[tuple[int, float]]] = {}
    for u in range(n):
        for k in range(6):
            v = int(nbr[u, k])
            if v >= 0 and np.isfinite(cost[u, k]):
                rev.setdefault(v, []).append((u, float(cost[u, k])))
    best: dict[tuple[int, int], float] = {}
    origin: dict[tuple[int, int], int] = {}
    heap: list[tuple[float, int, int, int]] = [(0.0, s, 0, s) for s in seeds]
    while heap:
        d, v, t, s0 = heapq.heappop(heap)
        if best.get((v, t), INF) <= d and (v, t) in best:
            continue
        best[(v, t)] = d
        origin[(v, t)] = s0
        if blocked[v]:
            continue
        t2 = min(3, t + trans.get(v, 0))
        for u, c in rev.get(v, []):
            nd = d + c
            if nd <= limit + 1e-9 and nd < best.get((u, t2), INF):
                heapq.heappush(heap, (nd, u, t2, s0))
    eff = np.full(n, INF)
    near = np.full(n, -1, dtype=np.int64)
    for (u, t), d in best.items():
        e = d - _bonus(t) if d > 0 else 0.0
        if e < eff[u]:
            eff[u] = e
            near[u] = origin[(u, t)]
    return eff, near


def overland_ok(g: Game, dist: np.ndarray, h: int, element: str = "overland") -> bool:
    return bool(dist[h] <= element_length(g, element, weather_at(g, h)) + 1e-9)


@implements("OT 11C2biii", "OT 15B4")
def improved_fortress_hexes(g: Game, side: str) -> list[int]:
    """OT 11C2biii: improved fortresses of ``side`` that may give special supply: friendly-owned,
    never enemy-owned, not depleted."""

    out = []
    for i in sorted(int(x) for x in g.board.points):
        if not any(pt.kind == "fortress" for pt in g.board.points_at(i)):
            continue
        if marker(g, "fortress-state", i, "unimproved") != "improved":
            continue
        if g.state.control.get(i) != side or other_side(side) in ever_owned_by(g, i):
            continue
        if gw(g).get("depleted", {}).get(str(i)):
            continue
        out.append(i)
    return out


@dataclass
class SpecialOption:
    """A special source and the units (out of regular supply) that could draw on it now."""

    kind: str  # res-pt, gsp, fortress
    source: str  # piece id (Res Pt), hex label (GSPs, fortress)
    hex: int
    capacity: Fraction | None  # REs it may supply (None: all)
    eligible: list[str]


@implements("OT 11C2bi", "OT 11C2bii", "OT 11C2biii")
def special_options(g: Game, side: str) -> list[SpecialOption]:
    """OT 11C2b: the special sources ``side`` may use in this initial phase for units not in
    general supply by a regular line: each Res Pt for every unit with an overland line to it
    (OT 11C2bi); the GSPs of a hex for 1 RE of units each, those generated in this initial phase
    excepted (OT 11C2bii); each improved fortress for 15 RE of units in its hex (OT 11C2biii). A
    Res Pt stacked with an active Army HQs serves only that HQs' nationality (OT 11E)."""

    rec = gw(g).get("supply", {})
    regular = set(rec.get("regular", {}).get(side, []))
    ordinal = player_turn_ordinal(g)
    drawn = {pid for pid, p in g.state.pieces.items() if p.attrs.get("special_supply") == ordinal}
    need = [p for p in units.on_map_units(g, side) if p.id not in regular and p.id not in drawn]
    if not need:
        return []
    out: list[SpecialOption] = []
    for rp in logistics.res_pts(g, side):
        h = units.hex_of(g, rp)
        if h is None:
            continue
        hqs = [
            q
            for q in units.units_in_hex(g, h, side)
            if special_units.is_army_hq(q) and special_units.hq_active(q)
        ]
        dist = _overland_shared(g, side, [h], "overland")[0]
        elig = [
            p.id
            for p in need
            if overland_ok(g, dist, units.hex_of(g, p))  # type: ignore[arg-type]
            and (not hqs or any(q.nation == p.nation for q in hqs))
        ]
        if elig:
            out.append(SpecialOption("res-pt", rp.id, h, None, elig))
    for h, items in sorted(logistics.gsp_stacks(g, side, usable_now=True).items()):
        dist = _overland_shared(g, side, [h], "overland")[0]
        elig = [p.id for p in need if overland_ok(g, dist, units.hex_of(g, p))]  # type: ignore[arg-type]
        if elig:
            out.append(SpecialOption("gsp", g.board.label(h), h, Fraction(len(items)), elig))
    cap = Fraction(summary(g)["fortress"]["special_supply_re"])
    for h in improved_fortress_hexes(g, side):
        elig = [p.id for p in need if units.hex_of(g, p) == h]
        if elig:
            out.append(SpecialOption("fortress", g.board.label(h), h, cap, elig))
    return out


def _fill(g: Game, ids: Sequence[str], cap: Fraction | None) -> list[str]:
    if cap is None:
        return list(ids)
    out: list[str] = []
    total = Fraction(0)
    for pid in sorted(ids, key=lambda x: (units.re_size(g, g.state.pieces[x]), x)):
        re = units.re_size(g, g.state.pieces[pid])
        if total + re <= cap:
            out.append(pid)
            total += re
    return out


# ========================================================================== the initial-phase check


def _fingerprint(g: Game) -> int:
    """What a general supply trace depends on (the pieces' places, sides, up faces and statuses --
    Army HQs' faces excepted -- ownership, markers, the turn, the owners' history, depletion, heads
    and the rail capacities), so that a recorded check can be compared with a fresh trace of the
    same position. A process-local hash: it is kept outside the game state."""

    st = g.state
    ps = tuple(
        (
            p.id,
            p.side,
            p.loc,
            "" if special_units.is_army_hq(p) else p.face,
            tuple(sorted(p.status)),
        )
        for p in sorted(st.pieces.values(), key=lambda q: q.id)
    )
    caps = tuple(
        (net, side, repr(rail.ledger(g, net, side)["capacity"]))
        for net in rail.net_names(g)
        for side in st.sides
    )
    marks = tuple(
        (k, repr(sorted(v.items()))) for k, v in sorted(st.markers.items()) if k != "isolated"
    )
    state = gw(g)
    return hash(
        (
            ps,
            tuple(sorted(st.control.items())),
            marks,
            st.turn.get("index", 0),
            repr(state.get("ever_owned", {})),
            repr(state.get("depleted", {})),
            repr(state.get("heads", [])),
            repr(state.get("eng", {})),
            caps,
        )
    )


@implements("OT 11B", "OT 11F")
def determine_general_supply(g: Game) -> None:
    """The initial-phase general supply check of both players (OT 4A1, OT 11B).

    Every on-map unit is checked against a fresh trace. A unit with a regular line is in general
    supply (its count of turns out is reset); a unit without one keeps (or starts) its count
    (OT 11F: a turn out is two player turns from the first check that found it out). Then each
    player whose unsupplied units could draw on a special source chooses (step
    ``special-supply``), and the end of the check (step ``supply-end``) makes the elimination
    checks of OT 11F3 and the fortress depletion checks of OT 11C2biii.
    """
    now = player_turn_ordinal(g)
    rec: SupplyRecord = {
        "ordinal": now,
        "regular": {},
        "checked": {},
        "special": [],
        "fortresses_used": [],
    }
    for side in g.state.sides:
        tr = trace_general(g, side)
        checked = [p.id for p in units.on_map_units(g, side)]
        rec["regular"][side] = sorted(tr.supplied)
        rec["checked"][side] = checked
        for pid in checked:
            p = g.state.pieces[pid]
            p.attrs.pop("special_supply", None)
            if pid in tr.supplied:
                if "supply_out_since" in p.attrs:
                    del p.attrs["supply_out_since"]
                    g.emit("supply", f"{p.id} is back in general supply", rule="OT 11B", piece=p.id)
            elif "supply_out_since" not in p.attrs:
                p.attrs["supply_out_since"] = now
                g.emit("supply", f"{p.id} is out of general supply", rule="OT 11B", piece=p.id)
    gw(g)["supply"] = rec
    g.cache.local["gw:supply-fingerprint"] = (now, _fingerprint(g))
    phasing = str(gw(g).get("phasing", g.state.sides[0]))
    order = [phasing] + [s for s in g.state.sides if s != phasing]
    g.push("supply-end", {})
    for side in reversed(order):
        g.push("special-supply", {"side": side})


class SpecialSupply(GWStep):
    """OT 11C2b: a player chooses which of his units out of regular supply draw on special sources
    (Res Pts, GSPs, improved fortresses). Skipped when there is nothing to choose.

    ``{"type": "draw-supply", "side", "source": <Res Pt id or hex>, "via": "res-pt" | "gsp" |
    "fortress", "pieces": [unit ids]}`` (``via`` tells apart a GSP stack and an improved fortress
    in the same hex; without it the first of them that can take the units is used);
    ``{"type": "done", "side"}``.
    """

    name = "special-supply"
    title = "Special general supply"
    rule = "OT 11C2b"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        side = f.params["side"]
        return (
            [side]
            if any(_fill(g, o.eligible, o.capacity) for o in special_options(g, side))
            else []
        )

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    def label(self, g: Game, f: Frame) -> str:
        return f"Special general supply ({f.params['side']})"

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = []
        for o in special_options(g, side):
            ids = _fill(g, o.eligible, o.capacity)
            if ids:
                out.append(
                    {
                        "type": "draw-supply",
                        "side": side,
                        "source": o.source,
                        "via": o.kind,
                        "pieces": ids,
                    }
                )
        out.append({"type": "done", "side": side})
        return out

    def _option(self, g: Game, side: str, action: Action) -> tuple[SpecialOption, list[str]]:
        src, via = action.get("source"), action.get("via")
        ids = action.get("pieces")
        if not isinstance(ids, list) or not ids or len(set(map(str, ids))) != len(ids):
            raise IllegalAction(
                "OT 11C2b", "'pieces' must list the units drawing supply, each once"
            )
        found = [o for o in special_options(g, side) if o.source == src and via in (None, o.kind)]
        if not found:
            what = f"{src!r}" + (f" ({via})" if via is not None else "")
            raise IllegalAction(
                "OT 11C2b", f"{what} is not a special supply source {side} may use now"
            )
        why = ""
        for o in found:  # a GSP stack and an improved fortress may share a hex
            bad = [x for x in ids if x not in o.eligible]
            if bad:
                why = (
                    why
                    or f"{bad[0]!r} cannot draw general supply from {src} (no overland line, "
                    "in supply already, or not eligible)"
                )
                continue
            if o.capacity is not None:
                total = sum((units.re_size(g, g.state.pieces[x]) for x in ids), Fraction(0))
                if total > o.capacity:
                    why = why or f"{src} supplies at most {o.capacity} RE; {total} RE asked"
                    continue
            return o, [str(x) for x in ids]
        raise IllegalAction("OT 11C2b", why)

    @handles.check("draw-supply")
    def check_draw(self, g: Game, f: Frame, action: Action) -> None:
        """OT 11C2b: units draw general supply from a special source they may use."""
        self._option(g, action["side"], action)

    @handles.apply("done")
    def apply_done(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("draw-supply")
    def apply_draw(self, g: Game, f: Frame, action: Action) -> None:
        o, ids = self._option(g, action["side"], action)
        draw_special_supply(g, o, ids)


@implements("OT 11C2b", "OT 11C2bi", "OT 11C2bii", "OT 11C2biii")
def draw_special_supply(g: Game, o: SpecialOption, ids: Sequence[str]) -> None:
    """OT 11C2b: the units are in general supply for the whole player turn; their count of turns
    out of general supply keeps running. A Res Pt so used is removed at the end of this initial
    phase (OT 11C2bi); an improved fortress so used while isolated may be depleted (OT 11C2biii)."""
    now = player_turn_ordinal(g)
    rec = gw(g).setdefault("supply", {})
    for pid in ids:
        g.state.pieces[pid].attrs["special_supply"] = now
    rec.setdefault("special", []).append({"kind": o.kind, "source": o.source, "pieces": list(ids)})
    if o.kind == "res-pt":
        used = rec.setdefault("res_pts_used", [])
        if o.source not in used:
            used.append(o.source)
    if o.kind == "fortress" and o.hex not in rec.setdefault("fortresses_used", []):
        rec["fortresses_used"].append(o.hex)
    g.emit(
        "supply",
        f"{', '.join(ids)} draw general supply from the {o.kind} at {g.board.label(o.hex)}",
        rule="OT 11C2b",
        pieces=list(ids),
        source=o.source,
    )


class SupplyEnd(Step):
    """The end of the initial-phase supply check: elimination for lack of supply (OT 11F3), the
    depletion of isolated improved fortresses that gave special supply (OT 11C2biii), then the
    phasing player's construction projects advance a turn (OT 13A, done here because projects need
    the general supply found by the check)."""

    name = "supply-end"
    title = "Supply check results"
    rule = "OT 11F3"

    def run(self, g: Game, f: Frame) -> None:
        fortress_depletion(g)
        fortress_replenishment(g)
        elimination_checks(g)
        reactions(g).initial_phase_supply_done(g, str(gw(g).get("phasing", "")))
        g.finish(f)


@implements("OT 11C2biii")
def fortress_depletion(g: Game) -> None:
    """OT 11C2biii: an improved fortress used for special supply while isolated may be depleted:
    the enemy rolls on the Ground Success Table (no modifiers); success depletes it."""

    rec = gw(g).get("supply", {})
    for h in rec.get("fortresses_used", []):
        owner = g.state.control.get(h)
        if owner is None or not supply_status.is_isolated(g, owner, h):
            continue
        res = table_roll(
            g,
            "gst",
            "standard",
            f"depletion of the fortress at {g.board.label(h)}",
            "OT 11C2biii",
            visible_to=None,
        )
        if str(res.result).startswith("S"):
            gw(g).setdefault("depleted", {})[str(h)] = True
            g.emit(
                "supply",
                f"the fortress at {g.board.label(h)} is depleted ({other_side(owner)} rolled"
                f" {res.result})",
                rule="OT 11C2biii",
                hex=g.board.label(h),
            )


@implements("OT 11C2biii")
def fortress_replenishment(g: Game) -> None:
    """OT 11C2biii: a depleted fortress regains its special supply in a friendly initial phase in
    which a supply line can be traced from it to a regular source."""
    dep = gw(g).get("depleted", {})
    if not dep:
        return
    phasing = str(gw(g).get("phasing", ""))
    for key in sorted(dep):
        h = int(key)
        if g.state.control.get(h) != phasing or not dep[key]:
            continue
        if hex_in_general_supply(g, phasing, h):
            del dep[key]
            g.emit(
                "supply",
                f"the fortress at {g.board.label(h)} is replenished",
                rule="OT 11C2biii",
                hex=g.board.label(h),
            )


def hex_in_general_supply(g: Game, side: str, h: int, nation: str | None = None) -> bool:
    """Whether a general supply line (regular sources) can be traced from hex ``h`` now."""

    tr = trace_general(g, side)
    srcs = [i for i in regular_sources(g, side) if nation is None or source_allowed(g, nation, i)]
    seeds = list(srcs)
    for hq in units.on_map_units(g, side):
        if (
            special_units.is_army_hq(hq)
            and hq.id in tr.hq_links
            and (nation is None or hq.nation == nation)
        ):
            seeds.append(units.hex_of(g, hq))  # type: ignore[arg-type]
    if not seeds:
        return False
    eff, _ = overland_trace(g, side, seeds, "overland")
    return bool(eff[h] <= element_length(g, "overland", weather_at(g, h)) + 1e-9)


@implements("OT 11F3")
def elimination_checks(g: Game) -> None:
    """OT 11F3: from its second turn out of general supply, a unit out of general supply and
    isolated at the check rolls on the Ground Success Table: +3 in a major city hex or an improved
    fortress; otherwise -1 in frost, winter or snow. Failure eliminates it. Interpretation default
    (option ``supply-elimination-every-ip``): in every initial phase, else only in its owner's."""
    phasing = str(gw(g).get("phasing", ""))
    for side in g.state.sides:
        if not g.opt("supply-elimination-every-ip") and side != phasing:
            continue
        for p in units.on_map_units(g, side):
            if out_of_supply_count(g, p) < 2 or in_general_supply(g, p):
                continue
            h = units.hex_of(g, p)
            if h is None or not supply_status.is_isolated(g, side, h):
                continue
            mods = elimination_modifiers(g, h)
            res = table_roll(
                g, "gst", "standard", f"supply elimination check of {p.id}", "OT 11F3", mods
            )
            if str(res.result).startswith("S"):
                g.emit(
                    "supply",
                    f"{p.id} survives its supply check ({res.result})",
                    rule="OT 11F3",
                    piece=p.id,
                )
            else:
                units.eliminate(g, p, "OT 11F3", f"out of supply and isolated ({res.result})")


@implements("OT 11F3")
def elimination_modifiers(g: Game, h: int) -> Modifiers:
    """OT 11F3: +3 in a major city hex or an improved fortress; -1 in frost, winter or snow weather
    (not in a major city or improved fortress)."""
    mods = Modifiers()
    fortress = (
        any(pt.kind == "fortress" for pt in g.board.points_at(h))
        and marker(g, "fortress-state", h) == "improved"
    )
    if geography.is_major_city_hex(g, h) or fortress:
        mods.add(3, "OT 11F3", "major city or improved fortress")
    elif weather_at(g, h) in ("frost", "winter", "snow"):
        mods.add(-1, "OT 11F3", f"{weather_at(g, h)} weather")
    return mods


@implements("OT 11C2bi", "OT 11C2bii")
def end_of_initial_phase(g: Game) -> None:
    """At the end of each initial phase: Res Pts used for general supply in it are removed
    (OT 11C2bi), and GSPs end their third initial phase (OT 11C2bii)."""

    rec = gw(g).get("supply", {})
    for pid in rec.get("res_pts_used", []):
        p = g.state.pieces.get(pid)
        if p is not None and logistics.is_res_pt(p) and p.loc.kind != "box":
            logistics.expend(g, p, "OT 11C2bi", "used for general supply")
    rec["res_pts_used"] = []
    logistics.expire_gsps(g)


# ============================================================================ OT 11F effects


@implements("OT 11F", "OT 11F1", "OT 11F2")
def strength_factor(
    g: Game, p: Piece, in_combat_supply: bool, isolated: bool | None = None
) -> Fraction:
    """OT 11F: the multiplier of a unit's attack and defense for supply.

    In combat supply: x1 whatever its general supply. Otherwise: in general supply x1/2; first turn
    out (U-1) x1/4 if isolated, else x1/2 (interpretation default, option
    ``u1-not-isolated-halved``; off: x1); second and later turns out (U-2) x1/4."""
    if in_combat_supply:
        return Fraction(1)
    out = turns_out_of_supply(g, p)
    if out == 0:
        return Fraction(1, 2)
    if out == 1:
        if isolated is None:
            h = units.hex_of(g, p)
            isolated = h is not None and supply_status.is_isolated(g, p.side, h)
        if isolated:
            return Fraction(1, 4)
        return Fraction(1, 2) if g.opt("u1-not-isolated-halved") else Fraction(1)
    return Fraction(1, 4)


@implements("OT 11F1", "OT 11F2")
def movement_factor(g: Game, p: Piece) -> Fraction:
    """OT 11F1/11F2: a c/m unit in its first turn out of general supply, and any unit in its second
    or later, has its movement rating halved."""
    out = turns_out_of_supply(g, p)
    return Fraction(1, 2) if (out == 1 and units.is_cm(p)) or out >= 2 else Fraction(1)


@implements("OT 11F1", "OT 11F2")
def aa_factor(g: Game, p: Piece) -> Fraction:
    """OT 11F1/11F2: AA strength is unaffected in the first turn out, halved from the second."""
    return Fraction(1, 2) if turns_out_of_supply(g, p) >= 2 else Fraction(1)


@implements("OT 11F1", "OT 11F2")
def has_special_effects(g: Game, p: Piece) -> bool:
    """OT 11F1/11F2: special combat effects capabilities are kept in the first turn out of general
    supply and lost from the second (no AECA, AECD, ATEC, CEC, EEC, GEC or SEC)."""
    return turns_out_of_supply(g, p) < 2


@implements("OT 11F2")
def zoc_reduced_by_supply(g: Game, p: Piece) -> bool:
    """OT 11F2: from the second turn out of general supply a ZOC is reduced (a reduced one is
    lost)."""
    return turns_out_of_supply(g, p) >= 2


# ============================================================================ OT 11D combat supply
@dataclass
class CombatSupply:
    """The result of a combat supply determination (OT 11D) for one side's units in a combat or
    bombardment: which units are in combat supply and from which Res Pt (``"free:<id>"`` marks the
    free allowance)."""

    side: str
    supplied: dict[str, str]
    unsupplied: list[str]
    charges: dict[str, Fraction]  # Res Pt id -> RE drawn (not free)
    free: dict[str, tuple[str, Fraction]]  # command -> (Res Pt id, RE)

    def in_supply(self, p: Piece | str) -> bool:
        return (p if isinstance(p, str) else p.id) in self.supplied


def _segment_key(g: Game) -> str:
    return f"{player_turn_ordinal(g)}:{gw(g).get('phase', '')}"


def combat_supply_ledger(g: Game, write: bool = False) -> CombatSupplyLedger:
    """This phase's combat supply bookkeeping (Res Pts drawn on per segment, free allowances)."""
    key = _segment_key(g)
    rec = gw(g).get("combat_supply")
    if rec is None or rec.get("phase") != key:
        rec = {"phase": key, "segment": "", "used": {}, "spent": [], "free": {}}
        if write:
            gw(g)["combat_supply"] = rec
            rec = gw(g)["combat_supply"]  # the stored (tracked) copy
    return rec


@implements("OT 11D")
def res_pt_capacity(g: Game, rp: Piece) -> Fraction:
    """OT 11D: a Res Pt supplies 150 RE when stacked with an active Army HQs, otherwise 30 RE."""

    cs = summary(g)["combat_supply"]
    h = units.hex_of(g, rp)
    if h is not None and any(
        special_units.is_army_hq(q) and special_units.hq_active(q)
        for q in units.units_in_hex(g, h, rp.side)
    ):
        return Fraction(int(cs["with_active_army_hq"]))
    return Fraction(int(cs["without"]))


@implements("OT 11D", "OT 8C2")
def combat_supply_re(g: Game, p: Piece) -> Fraction:
    """OT 11D: REs counted for combat supply -- artillery x2, overstacked units x2 (both x4)."""

    return stacking.combat_supply_re(g, p)


@implements("OT 11D", "OT 11E")
def combat_supply(
    g: Game,
    side: str,
    pieces: Sequence[Piece],
    segment: str,
    commit: bool = False,
    prefer: dict[str, str] | None = None,
) -> CombatSupply:
    """OT 11D: determine combat supply for ``side``'s ``pieces`` in one combat or bombardment.

    Each unit needs an overland line (the combat length of the Supply Line Summary) to a friendly
    Res Pt that still has capacity in this segment: 150 RE if the Res Pt is stacked with an active
    Army HQs, else 30 RE (interpretation default: one pool per Res Pt per segment). Artillery and
    overstacked units count double. Each phase, up to 2 RE of units per command may draw without
    spending the Res Pt (all of them on one Res Pt, which then supplies nobody else that phase).
    A unit may not trace to a Res Pt stacked with an active Army HQs of another nationality
    (OT 11E). The engine chooses the Res Pts (``prefer`` maps unit ids to a Res Pt id to ask for
    one): the free allowance first, then Res Pts already in use, then the others by capacity.
    ``segment`` is ``bombardment`` or ``combat``. With ``commit`` the use is recorded; Res Pts
    drawn on are removed at the end of the segment (:func:`end_of_segment`).
    """

    led = combat_supply_ledger(g, write=commit)
    if commit:
        led["segment"] = segment
    used = {k: Fraction(v) for k, v in led.get("used", {}).get(segment, {}).items()}
    free = {k: (str(v[0]), Fraction(v[1])) for k, v in led.get("free", {}).items()}
    free_only = {v[0] for v in free.values()}
    spent = set(led.get("spent", []))
    rps = [
        r
        for r in logistics.res_pts(g, side)
        if r.id not in spent and units.hex_of(g, r) is not None
    ]
    reach: dict[str, np.ndarray] = {}
    for r in rps:
        reach[r.id] = _overland_shared(g, side, [units.hex_of(g, r)], "combat")[0]  # type: ignore[list-item]
    hq_nat: dict[str, set[str]] = {}
    for r in rps:
        h = units.hex_of(g, r)
        hq_nat[r.id] = {
            q.nation
            for q in units.units_in_hex(g, h, side)  # type: ignore[arg-type]
            if special_units.is_army_hq(q) and special_units.hq_active(q)
        }
    cs = summary(g)["combat_supply"]
    free_cap = Fraction(int(cs["free_re_per_command"]))
    out = CombatSupply(side, {}, [], {}, {})
    cands: dict[str, list[Piece]] = {}
    cmd_of: dict[str, str] = {}
    need: dict[str, Fraction] = {}
    ordered = sorted(pieces, key=lambda q: q.id)
    for p in ordered:
        h = units.hex_of(g, p)
        need[p.id] = combat_supply_re(g, p)
        cmd_of[p.id] = (command_of(g, h) or "-") if h is not None else "-"
        cands[p.id] = [
            r
            for r in rps
            if h is not None
            and overland_ok(g, reach[r.id], h, "combat")
            and not (hq_nat[r.id] and p.nation not in hq_nat[r.id])
            and r.id not in free_only
        ]
        want = (prefer or {}).get(p.id)
        if want:
            cands[p.id] = [r for r in cands[p.id] if r.id == want]
    # pass 1: draw on Res Pts (those already in use first, then the largest)
    for p in ordered:
        order = sorted(
            cands[p.id],
            key=lambda r: (
                r.id not in used and r.id not in out.charges,
                -res_pt_capacity(g, r),
                r.id,
            ),
        )
        for r in order:
            left = (
                res_pt_capacity(g, r)
                - used.get(r.id, Fraction(0))
                - out.charges.get(r.id, Fraction(0))
            )
            if need[p.id] <= left:
                out.charges[r.id] = out.charges.get(r.id, Fraction(0)) + need[p.id]
                out.supplied[p.id] = r.id
                break
    # pass 2: the free allowance (OT 11D special) -- a Res Pt drawn on in this combat only by up to
    # 2 RE
    # of units of one command, and by nobody else this segment, is not spent; units left without
    # supply
    # may also use it from a Res Pt nobody draws on.
    for rid in sorted(out.charges):
        users = [pid for pid, how in out.supplied.items() if how == rid]
        cmds = {cmd_of[u] for u in users}
        if len(cmds) != 1 or rid in used:
            continue
        cmd = next(iter(cmds))
        fr = free.get(cmd)
        base = fr[1] if fr and fr[0] == rid else Fraction(0)
        if fr is not None and fr[0] != rid:
            continue
        if base + out.charges[rid] <= free_cap:
            free[cmd] = (rid, base + out.charges[rid])
            out.free[cmd] = free[cmd]
            for u in users:
                out.supplied[u] = f"free:{rid}"
            del out.charges[rid]
    for p in ordered:
        if p.id in out.supplied:
            continue
        cmd = cmd_of[p.id]
        fr = free.get(cmd)
        for r in cands[p.id]:
            if r.id in used or r.id in out.charges or (fr is not None and fr[0] != r.id):
                continue
            base = fr[1] if fr else Fraction(0)
            if base + need[p.id] <= free_cap:
                free[cmd] = (r.id, base + need[p.id])
                out.free[cmd] = free[cmd]
                out.supplied[p.id] = f"free:{r.id}"
                fr = free[cmd]
                break
    out.unsupplied = [p.id for p in ordered if p.id not in out.supplied]
    if commit:
        seg = led.setdefault("used", {}).setdefault(segment, {})
        for rid, amt in out.charges.items():
            seg[rid] = Fraction(seg.get(rid, 0)) + amt
        for cmd, (rid, amt) in out.free.items():
            led.setdefault("free", {})[cmd] = [rid, amt]
        if out.supplied:
            g.emit(
                "combat-supply",
                f"{side}: combat supply for {', '.join(sorted(out.supplied))}"
                + (f"; none for {', '.join(out.unsupplied)}" if out.unsupplied else ""),
                rule="OT 11D",
                supplied=sorted(out.supplied),
                unsupplied=list(out.unsupplied),
            )
    return out


def _segment_now(g: Game) -> str:
    return "bombardment" if str(gw(g).get("phase")) == "combat" and _in_bombardment(g) else "combat"


def _in_bombardment(g: Game) -> bool:
    return any(f.step == "bombardment-segment" for f in g.state.frames)


@implements("OT 11D")
def combat_supplied(g: Game, side: str, pieces: Sequence[Piece], sit: Any = None) -> set[str]:
    """OT 11D: the ids of ``pieces`` that would be in combat supply in a combat now (no Res Pt is
    charged: :func:`commit_combat_supply` does that when the combat starts)."""
    return set(combat_supply(g, side, list(pieces), _segment_now(g)).supplied)


@implements("OT 11B", "OT 11D")
def commit_combat_supply(g: Game, side: str, pieces: Sequence[Piece]) -> CombatSupply:
    """OT 11B/11D: at the start of a combat each side determines the combat supply of its
    participating units; the Res Pts drawn on are recorded (removed at the end of the segment)."""
    return combat_supply(g, side, list(pieces), _segment_now(g), commit=True)


@implements("OT 11D", "OT 6B4")
def combat_supply_hq(g: Game, side: str, pieces: Sequence[Piece]) -> Piece | None:
    """OT 11D (with OT 6B4): the Army HQs stacked with a Res Pt the units trace combat supply
    through (the most fatigued one), whose fatigue hits count for the fatigue shift. Only an
    active Army HQs is part of the source (OT 11D: the Res Pt "stacked with an active Army HQs");
    an inactive one in the Res Pt's hex is not traced through and its fatigue does not count."""

    cs = combat_supply(g, side, list(pieces), _segment_now(g))
    best: Piece | None = None
    for how in cs.supplied.values():
        rid = how.removeprefix("free:")
        r = g.state.pieces.get(rid)
        h = units.hex_of(g, r) if r is not None else None
        if h is None:
            continue
        for q in units.units_in_hex(g, h, side):
            if not (special_units.is_army_hq(q) and special_units.hq_active(q)):
                continue
            if best is None or int(q.attrs.get("fatigue", 0)) > int(best.attrs.get("fatigue", 0)):
                best = q
    return best


@implements("OT 11B1")
def overland_line(g: Game, side: str, start: int, goal: int, element: str = "overland") -> bool:
    """OT 11B1: an overland supply line (within the length of the Supply Line Summary for the
    weather at ``start``) joins hex ``start`` to hex ``goal``."""
    return overland_ok(g, overland_distances(g, side, [goal], element), start, element)


@implements("OT 11D")
def end_of_segment(g: Game, segment: str) -> None:
    """OT 11D: Res Pts that gave combat supply in the segment (other than by the free allowance)
    are removed at its end -- one used in the bombardment segment cannot also supply the attacks."""

    led = combat_supply_ledger(g)
    if led.get("phase") != _segment_key(g):
        return
    for rid in sorted(led.get("used", {}).get(segment, {})):
        p = g.state.pieces.get(rid)
        if p is not None and p.loc.kind != "box":
            logistics.expend(g, p, "OT 11D", f"combat supply in the {segment} segment")
        led.setdefault("spent", []).append(rid)
    led.get("used", {}).pop(segment, None)


# ============================================================================ invariant
@implements("OT 11B")
@implements("OT 11B")
def forget_check(g: Game, p: Piece) -> None:
    """OT 11B, OT 16: a unit that enters play after this player turn's supply check (a replacement
    of a unit that was on the map at the check and eliminated since, say) takes the supply status of
    the location it enters (:func:`.replacements.receive_piece`), not what the check found for it at
    its old place: it leaves the check's record."""
    rec = gw(g).get("supply")
    if not rec:
        return
    for side, ids in rec.get("checked", {}).items():
        if p.id in ids:
            rec["checked"][side] = [pid for pid in ids if pid != p.id]


def supply_invariant(g: Game) -> list[str]:
    """The recorded general supply status agrees with a fresh trace of the same position, and the
    units' status attributes agree with the record."""
    rec = gw(g).get("supply")
    if not rec:
        return []
    out: list[str] = []
    fp = g.cache.local.get("gw:supply-fingerprint")
    if (
        fp is not None
        and rec.get("ordinal") == player_turn_ordinal(g) == fp[0]
        and fp[1] == _fingerprint(g)
    ):
        for side in g.state.sides:
            fresh = sorted(trace_general(g, side).supplied)
            if fresh != rec["regular"].get(side, []):
                diff = sorted(set(fresh) ^ set(rec["regular"].get(side, [])))
                out.append(
                    f"OT 11B: {side}'s recorded general supply differs from a fresh trace for"
                    f" {', '.join(diff[:5])}"
                )
    drawn = {pid for e in rec.get("special", []) for pid in e["pieces"]}
    for side in g.state.sides:
        regular = set(rec.get("regular", {}).get(side, []))
        for pid in rec.get("checked", {}).get(side, []):
            p = g.state.pieces.get(pid)
            if p is None or units.hex_of(g, p) is None:
                continue
            if pid in regular and "supply_out_since" in p.attrs:
                out.append(
                    f"OT 11B: {pid} had a regular supply line at the check but is counted out of"
                    " supply"
                )
            if pid not in regular and "supply_out_since" not in p.attrs:
                out.append(
                    f"OT 11B: {pid} had no regular supply line at the check but is not counted out"
                    " of supply"
                )
            if p.attrs.get("special_supply") == rec.get("ordinal") and pid not in drawn:
                out.append(
                    f"OT 11C2b: {pid} is marked as drawing special supply without a recorded source"
                )
    return out
