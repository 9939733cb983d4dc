"""OT 7A: railroads -- rail lines and yards, rail nets and their capacity, operational and
strategic rail movement, rail breaks, obstruction and gauges.

Map vocabulary: networks of kind ``rail`` (link attributes ``volume`` = ``high``/``low``,
``gauge`` = ``standard``/``broad``/``meter``/``narrow``/``iberian``); places of kind
``rail-yard`` mark yards on non-European maps (OT 7A1). Rail nets and each side's capacity come
from the scenario (``[rules] rail_nets``): a net covers the rail hexes of its map area (areas of
kind ``rail-net``), or every rail hex when it names none.

The capacity ledger lives in the game state, per net and side: ``capacity`` (permanent),
``pending`` (captured capacity usable from the side's next player turn, OT 7A5f), ``temp``
(this player turn's temporary increase, OT 7A5a), ``used`` and ``charged`` (per unit, OT 7A4).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Action
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar import calendar, listing
from grognard.rulesets.greatwar.charts import load_charts
from grognard.rulesets.greatwar.hooks import reactions
from grognard.rulesets.greatwar.map import geography, terrain, zoc
from grognard.rulesets.greatwar.mechanics import gw, marker, set_marker
from grognard.rulesets.greatwar.movement import stacking
from grognard.rulesets.greatwar.movement.movement import (
    MOVEMENT,
    STRATEGIC,
    can_move_now,
    mode_of,
    movement_allowance,
    record,
    remaining,
    spent,
)
from grognard.rulesets.greatwar.supply import supply_status
from grognard.rulesets.greatwar.units import nations, special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.greatwar.record import RailLedger

GAUGES = ("standard", "broad", "meter", "narrow", "iberian")
ALL_NET = "rail"
EXPENDED_BOX = "expended"
YARD_PORT_SIZES = ("major", "great")


# ============================================================================ lines and yards
@dataclass(frozen=True)
class RailLink:
    to: int
    side: int
    volume: str
    gauge: str
    ferry: bool = False


def _link_attrs(net: Any, s: int) -> dict[str, Any]:
    return dict(net.attrs.get(s, {}))


@implements("OT 7A")
def links(g: Game) -> dict[int, list[RailLink]]:
    """OT 7A: the rail links of the map (adjacent hexes of a multi-hex city are joined by
    high-volume rail); links beyond a railhead do not exist yet (OT 7). Rail ferries (OT 15A3)
    are low-volume links between their ports. Railroad engineers' regauging and upgrades
    (OT 13B3a, 13B3b) change a link's gauge and volume."""
    return _lines(g).links


def _lines(g: Game) -> _RailLines:
    """The rail lines of the position, kept by what they are built from: the railheads' cuts
    and the engineers' regauging, upgrades and lines built."""
    cut = terrain.heads(g).rail_cut
    eng = gw(g).get("eng", {})
    gauge_over, volume_over, built = (
        eng.get("gauge", {}),
        eng.get("volume", {}),
        eng.get("rails", {}),
    )
    key = (
        tuple(sorted(cut)),
        tuple(sorted(gauge_over.items())),
        tuple(sorted(volume_over.items())),
        tuple(sorted(built)),
    )
    return g.cache.keyed(
        "gw:links",
        key,
        lambda: _RailLines(g, _build_links(g, cut, gauge_over, volume_over, built)),
        limit=64,
    )


class _RailLines:
    """The rail links of one state of the lines (cuts, regauging, upgrades, lines built) and what
    is derived from them alone, computed when first asked (kept in the game's cache and shared
    with its clones)."""

    def __init__(self, g: Game, links: dict[int, list[RailLink]]) -> None:
        self.links = links
        self.hexes = frozenset(links)
        self._yards: tuple[int, ...] | None = None
        self._nets: dict[str, frozenset[int]] = {}

    def yards(self, g: Game) -> tuple[int, ...]:
        if self._yards is None:
            self._yards = tuple(sorted(i for i in self.hexes if is_yard(g, i)))
        return self._yards

    def net_hexes(self, g: Game, net: str) -> frozenset[int]:
        hit = self._nets.get(net)
        if hit is None:
            hit = self._nets[net] = frozenset(i for i in self.hexes if net in nets_of_hex(g, i))
        return hit


def _build_links(
    g: Game,
    cut: Any,
    gauge_over: dict[str, Any],
    volume_over: dict[str, Any],
    built: dict[str, Any],
) -> dict[int, list[RailLink]]:
    out: dict[int, list[RailLink]] = {}
    seen: set[tuple[int, int]] = set()
    for net in g.board.networks.values():
        if net.kind not in ("rail", "rail-ferry"):
            continue
        for s in [int(x) for x in net.edges.nonzero()[0]]:
            if s in cut:
                continue
            a, b = (int(x) for x in g.board.side_hexes[s])
            at = _link_attrs(net, s)
            vol = (
                "low"
                if net.kind == "rail-ferry"
                else str(volume_over.get(str(s), at.get("volume", "high")))
            )
            gauge = str(gauge_over.get(str(s), at.get("gauge", "standard")))
            for u, v in ((a, b), (b, a)):
                out.setdefault(u, []).append(RailLink(v, s, vol, gauge, net.kind == "rail-ferry"))
            seen.add((min(a, b), max(a, b)))
    for key_s in sorted(
        built, key=int
    ):  # rail lines built by railroad engineers (OT 13B3c): low-volume
        s = int(key_s)
        a, b = (int(x) for x in g.board.side_hexes[s])
        if a < 0 or b < 0 or (min(a, b), max(a, b)) in seen:
            continue
        near = [lk.gauge for lk in out.get(a, []) + out.get(b, [])]
        gauge = str(gauge_over.get(key_s, near[0] if near else "standard"))
        vol = str(volume_over.get(key_s, "low"))
        out.setdefault(a, []).append(RailLink(b, s, vol, gauge))
        out.setdefault(b, []).append(RailLink(a, s, vol, gauge))
        seen.add((min(a, b), max(a, b)))
    for city in geography.major_cities(g):
        for u in city:
            for v in g.board.neighbors(u):
                if v in city and (min(u, v), max(u, v)) not in seen:
                    s = g.board.side_between(u, v)
                    out.setdefault(u, []).append(RailLink(v, s, "high", "standard"))
                    out.setdefault(v, []).append(RailLink(u, s, "high", "standard"))
                    seen.add((min(u, v), max(u, v)))
    return out


def rail_hexes(g: Game) -> frozenset[int]:
    """The hexes on a usable rail line (kept with the links they come from)."""
    return _lines(g).hexes


@implements("OT 7A1")
def is_yard(g: Game, i: int) -> bool:
    """OT 7A1: a rail hex with a major city, fortress, resource center, or major or great port is
    a rail marshaling yard; elsewhere (non-European maps, island minor ports) yards are marked."""
    if i not in rail_hexes(g):
        return False
    for pt in g.board.points_at(i):
        if (
            pt.kind in ("rail-yard", "fortress", "resource-center")
            or pt.kind in geography.MAJOR_CITY_KINDS
        ):
            return True
        if pt.kind == "port" and str(pt.attrs.get("size", "")) in YARD_PORT_SIZES:
            return True
    return False


def yards(g: Game) -> list[int]:
    return list(_lines(g).yards(g))


def _link_ok_for(g: Game, side: str, lk: RailLink, u: int) -> bool:
    if lk.ferry:
        return reactions(g).ferry_usable(g, side, u, lk.to)  # OT 15A3
    return terrain.bridge_usable(g, side, lk.side)


@implements("OT 7A1")
def rail_connected(g: Game, side: str, a: int, b: int) -> bool:
    """OT 7A1: two places are connected if a rail line of any length through friendly-owned hexes
    joins them (traced like the rail sub-element of a supply line: breaks and obstructions do not
    block, OT 7A7; no low-volume limit -- interpretation default)."""
    if a == b:
        return True
    if g.state.control.get(a) != side or g.state.control.get(b) != side:
        return False
    comps = yard_components(g, side)
    if a in comps and b in comps:
        return comps[a] == comps[b]
    seen = {a}
    todo = deque([a])
    ln = links(g)
    while todo:
        u = todo.popleft()
        for lk in ln.get(u, []):
            v = lk.to
            if v in seen or g.state.control.get(v) != side or not _link_ok_for(g, side, lk, u):
                continue
            if v == b:
                return True
            seen.add(v)
            todo.append(v)
    return False


# ============================================================================ nets and capacity
def net_defs(g: Game) -> list[Any]:
    rules = g.scenario.rules
    return list(getattr(rules, "rail_nets", []) or []) if rules is not None else []


def net_names(g: Game) -> list[str]:
    defs = net_defs(g)
    return [d.name for d in defs] if defs else [ALL_NET]


def net_def(g: Game, name: str) -> Any:
    for d in net_defs(g):
        if d.name == name:
            return d
    return None


@implements("OT 7A5")
def nets_of_hex(g: Game, i: int) -> list[str]:
    """OT 7A5: the rail nets a rail hex belongs to (the net's territory on the map)."""

    def compute() -> tuple[str, ...]:
        defs = net_defs(g)
        if not defs:
            return (ALL_NET,)
        areas = _net_areas(g)
        return tuple(d.name for d in defs if d.area is None or i in areas[d.name])

    return list(g.cache.keyed("gw:nets-of-hex", i, compute))


def _net_areas(g: Game) -> dict[str, frozenset[int]]:
    return g.cache.keyed(
        "gw:net-areas",
        None,
        lambda: {
            d.name: (
                frozenset(int(x) for x in g.board.areas[d.area].hexes.tolist())
                if d.area
                else frozenset()
            )
            for d in net_defs(g)
        },
    )


def net_hexes(g: Game, net: str) -> frozenset[int]:
    return _lines(g).net_hexes(g, net)


def init_ledgers(g: Game) -> None:
    """Create every side's capacity record on every net (done at setup, so reads never write)."""
    for net in net_names(g):
        for side in g.state.sides:
            ledger(g, net, side)


def ledger(g: Game, net: str, side: str) -> RailLedger:
    """The capacity record of ``side`` on ``net`` (created from the scenario's starting
    capacity)."""
    store = gw(g).setdefault("rail", {})
    per_net = store.setdefault(net, {})
    rec = per_net.get(side)
    if rec is None:
        d = net_def(g, net)
        if d is None:
            start: Fraction | None = None  # no nets declared: capacity is not limited
        else:
            start = Fraction(str(d.capacity.get(side, 0)))
        rec = {
            "capacity": start,
            "pending": Fraction(0),
            "temp": Fraction(0),
            "used": Fraction(0),
            "charged": {},
            "temp_res_pts": 0,
            "deterioration_due": 0,
            "start_capacity": start,
            "locked": Fraction(0),
            "transfers": {},
            "builds": 0,
            "used_by_section": {},
            "temp_by_section": {},
            "orphan_adjust": {},
            "temp_sections": [],
        }
        per_net[side] = rec
        rec = per_net[side]  # the stored (tracked) copy
    return rec


def unlimited(rec: RailLedger) -> bool:
    return rec["capacity"] is None


def limited_capacity(rec: RailLedger) -> Fraction:
    """The permanent capacity in ``rec``, a ledger of a net whose capacity is limited (the caller
    has checked :func:`unlimited`)."""
    cap = rec["capacity"]
    assert cap is not None, "the capacity of this rail net is not limited"
    return cap


def depots_on_net(g: Game, side: str, net: str) -> list[Piece]:
    """Supply depots (OT 11C1) ``side`` has on the rail hexes of ``net``."""

    def compute() -> list[Piece]:
        hexes = net_hexes(g, net)
        out = []
        for p in g.state.pieces.values():
            if (
                p.side == side
                and p.loc.kind == "hex"
                and units.utype(p).id == "supply-depot"
                and int(p.loc.ref) in hexes
            ):
                out.append(p)
        return sorted(out, key=lambda p: p.id)

    return list(g.cached(f"gw:depots-on-net:{side}:{net}", compute))


@implements("OT 7A4", "OT 3C4")
def available(g: Game, side: str, net: str, at: int | None = None) -> Fraction | None:
    """OT 7A4: capacity left this turn: permanent capacity plus any temporary increase, less the
    capacity locked by a transfer this turn (OT 7A5d), 2 RE per supply depot maintained, and what
    units already used. Unused capacity is lost at the turn's end (OT 3C4). None: not limited.

    With the optional rule of isolated sections (OT 7A9) and a split net, the capacity of the
    section holding hex ``at`` is returned instead."""
    rec = ledger(g, net, side)
    if unlimited(rec):
        return None
    if at is not None and g.opt("isolated-rail-sections"):
        secs = sections(g, side, net)
        if len(secs) > 1:
            sec = next((s for s in secs if at in s.hexes), None)
            if sec is None:
                return Fraction(0)
            return (
                section_capacity(g, side, net, sec, secs)
                + Fraction(rec["temp_by_section"].get(str(sec.id), 0))
                - Fraction(rec["used_by_section"].get(str(sec.id), 0))
                - 2 * sec.depots
            )
    return (
        limited_capacity(rec)
        + rec["temp"]
        - rec["locked"]
        - rec["used"]
        - 2 * len(depots_on_net(g, side, net))
    )


@dataclass(frozen=True)
class Section:
    id: int
    hexes: frozenset[int]
    yards: int
    depots: int


@implements("OT 7A9")
def sections(g: Game, side: str, net: str) -> list[Section]:
    """OT 7A9 (optional): the sections of a rail net separated by hexes the side does not own --
    groups of friendly-owned rail hexes of the net joined by rail. The first is the home section
    (most friendly yards; on a tie the one with the lowest-numbered yard: interpretation default);
    the others are orphans."""
    own = {i for i in net_hexes(g, net) if g.state.control.get(i) == side}
    ln = links(g)
    seen: set[int] = set()
    out = []
    yard_set = set(yards(g))
    depot_hexes = [int(d.loc.ref) for d in depots_on_net(g, side, net)]
    for start in sorted(own):
        if start in seen:
            continue
        comp = {start}
        todo = deque([start])
        while todo:
            u = todo.popleft()
            for lk in ln.get(u, []):
                if lk.to in own and lk.to not in comp:
                    comp.add(lk.to)
                    todo.append(lk.to)
        seen |= comp
        ys = sorted(comp & yard_set)
        out.append(
            Section(
                ys[0] if ys else min(comp),
                frozenset(comp),
                len(ys),
                sum(1 for h in depot_hexes if h in comp),
            )
        )
    out.sort(key=lambda s: (-s.yards, s.id))
    return out


@implements("OT 7A9")
def section_capacity(g: Game, side: str, net: str, sec: Section, secs: list[Section]) -> Fraction:
    """OT 7A9: an orphan section has 2 RE per yard and per supply depot in it (plus what was built
    or lost there); the home section has the net's capacity less all orphans'."""
    rec = ledger(g, net, side)
    adjust = rec.get("orphan_adjust", {})

    def orphan(s: Section) -> Fraction:
        return Fraction(2 * s.yards + 2 * s.depots) + Fraction(adjust.get(str(s.id), 0))

    if sec.id != secs[0].id:
        return orphan(sec)
    return Fraction(limited_capacity(rec)) - sum((orphan(s) for s in secs[1:]), Fraction(0))


@implements("OT 3C4", "OT 7A5c", "OT 7A5f")
def new_player_turn(g: Game, side: str) -> None:
    """OT 3C4: a player's rail capacity use starts afresh each of his player turns (nothing carries
    over); captured capacity becomes usable now (OT 7A5f), and OB increases due this turn are
    received (OT 7A5c)."""
    for net in net_names(g):
        rec = ledger(g, net, side)
        if not unlimited(rec) and rec["pending"]:
            rec["capacity"] = limited_capacity(rec) + rec["pending"]
            g.emit(
                "rail",
                f"{side} gains {rec['pending']} RE of capacity on {net}",
                rule="OT 7A5f",
                net=net,
                side=side,
            )
        rec["pending"] = Fraction(0)
        rec["used"] = Fraction(0)
        rec["charged"] = {}
        rec["temp"] = Fraction(0)
        rec["locked"] = Fraction(0)
        rec["transfers"] = {}
        rec["builds"] = 0
        rec["used_by_section"] = {}
        rec["temp_by_section"] = {}
        rec["start_capacity"] = rec["capacity"]
    apply_ob_increases(g, side)


def _change(g: Game, side: str, net: str, delta: Fraction, rule: str, why: str) -> None:
    rec = ledger(g, net, side)
    if unlimited(rec):
        return
    rec["capacity"] = max(Fraction(0), limited_capacity(rec) + delta)
    g.emit(
        "rail",
        f"{side} capacity on {net} {'+' if delta >= 0 else ''}{delta} RE ({why}); now"
        f" {rec['capacity']}",
        rule=rule,
        net=net,
        side=side,
        delta=delta,
    )


def connected_unisolated_yards(g: Game, side: str, net: str) -> list[int]:
    """Friendly-owned, unisolated yards of ``net`` that are rail-connected to another such yard."""
    ys = [
        y
        for y in yards(g)
        if net in nets_of_hex(g, y)
        and g.state.control.get(y) == side
        and not supply_status.is_isolated(g, side, y)
    ]
    comps = yard_components(g, side)
    per: dict[int, int] = {}
    for y in ys:
        per[comps[y]] = per.get(comps[y], 0) + 1
    return [y for y in ys if per[comps[y]] > 1]


def yard_components(g: Game, side: str) -> dict[int, int]:
    """OT 7A1: the friendly-owned rail hexes joined by rail to friendly-owned yards, numbered by
    connected group (traced as :func:`rail_connected` traces; memoised per position)."""

    def compute() -> dict[int, int]:
        comp: dict[int, int] = {}
        ln = links(g)
        for cid, y in enumerate(yards(g)):
            if y in comp or g.state.control.get(y) != side:
                continue
            comp[y] = cid
            todo = deque([y])
            while todo:
                u = todo.popleft()
                for lk in ln.get(u, []):
                    v = lk.to
                    if (
                        v in comp
                        or g.state.control.get(v) != side
                        or not _link_ok_for(g, side, lk, u)
                    ):
                        continue
                    comp[v] = cid
                    todo.append(v)
        return comp

    return dict(g.cached(f"gw:yard-components:{side}", compute))


@implements("OT 7A5c")
def apply_ob_increases(g: Game, side: str) -> None:
    """OT 7A5c: rail capacity increases listed by the OB for this turn (scenario schedule entries of
    kind ``rail-capacity``) are received only if the side owns two connected, unisolated yards on
    the net; otherwise they are forfeited."""
    idx = int(g.state.turn.get("index", 0))
    label = str(g.state.turn.get("label", ""))
    for e in g.scenario.data.schedule:
        if e.kind != "rail-capacity" or e.params.get("side") != side:
            continue
        if not (e.turn == idx or e.turn == label):
            continue
        net = str(e.params.get("net", ALL_NET))
        amount = Fraction(str(e.params.get("amount", 0)))
        if len(connected_unisolated_yards(g, side, net)) >= 2:
            _change(g, side, net, amount, "OT 7A5c", "OB increase")
        else:
            g.emit(
                "rail",
                f"{side} forfeits an OB increase of {amount} RE on {net} (needs two connected,"
                " unisolated yards)",
                rule="OT 7A5c",
            )


@implements("OT 7A5e")
def depot_activated(g: Game, side: str, net: str) -> None:
    """OT 7A5e: each supply depot activation costs 1 RE of the net's capacity for good."""
    _change(g, side, net, Fraction(-1), "OT 7A5e", "supply depot activated")


@implements("OT 7A5f", "OT 7A7")
def on_capture(g: Game, i: int, old: str, new: str) -> None:
    """A hex changes hands. OT 7A7: a rail line captured (or recaptured) from the enemy is
    obstructed. OT 7A5f: capturing a yard or supply depot costs the old owner 2 RE on the net (all
    of it below 2 RE, the captor then gaining nothing) and gives the captor 1 RE usable from his
    next turn; a player who has lost every yard on a net loses all capacity there and his depots
    on it, and the captor gains nothing. OT 11C1: a depot in the captured hex is removed."""
    if i in rail_hexes(g):
        set_marker(g, "rail-obstructed", i, True)
        g.emit(
            "rail",
            f"rail line in {g.board.label(i)} is obstructed",
            rule="OT 7A7",
            hex=g.board.label(i),
        )
    depots = [
        p
        for p in units.pieces_in_hex(g, i)
        if units.utype(p).id == "supply-depot" and p.side == old
    ]
    for d in depots:
        g.state.move(d.id, Loc.box(units.ELIMINATED_BOX))
        g.emit("depot", f"supply depot {d.id} is captured", rule="OT 11C1", piece=d.id)
    items = (1 if is_yard(g, i) else 0) + len(depots)
    if not items:
        return
    for net in nets_of_hex(g, i):
        old_rec = ledger(g, net, old)
        if unlimited(old_rec):
            continue
        for _ in range(items):
            if limited_capacity(old_rec) < 2:
                if old_rec["capacity"]:
                    _change(
                        g,
                        old,
                        net,
                        -old_rec["capacity"],
                        "OT 7A5f",
                        f"capture of {g.board.label(i)}",
                    )
                continue
            _change(g, old, net, Fraction(-2), "OT 7A5f", f"capture of {g.board.label(i)}")
            new_rec = ledger(g, net, new)
            if not unlimited(new_rec):
                new_rec["pending"] = Fraction(new_rec["pending"]) + 1
        owned = [y for y in yards(g) if net in nets_of_hex(g, y) and g.state.control.get(y) == old]
        if not owned and old_rec["capacity"]:
            _change(g, old, net, -old_rec["capacity"], "OT 7A5f", "no yards left on the net")
            for d in depots_on_net(g, old, net):
                g.state.move(d.id, Loc.box(units.ELIMINATED_BOX))
                g.emit("depot", f"supply depot {d.id} is deactivated", rule="OT 7A5f", piece=d.id)
        _force_depot_deactivation(g, old, net)


def _force_depot_deactivation(g: Game, side: str, net: str) -> None:
    """OT 11C1: depots a net's capacity can no longer maintain are deactivated at once (the owner's
    choice is made by the engine: the depots last in id order go first)."""
    rec = ledger(g, net, side)
    if unlimited(rec):
        return
    ds = depots_on_net(g, side, net)
    while ds and 2 * len(ds) > limited_capacity(rec):
        d = ds.pop()
        g.state.move(d.id, Loc.box(units.ELIMINATED_BOX))
        g.emit(
            "depot",
            f"supply depot {d.id} is deactivated: not enough rail capacity on {net}",
            rule="OT 11C1",
            piece=d.id,
        )


# ========================================================================== deterioration (OT 7A5g)
def _entente_penalty(g: Game, side: str, net: str) -> int:
    """OT 7A5g specials: +1 RE loss on the NW Europe net without Lille, on the NE/SE Europe and West
    Russia nets without Warszawa (not Entente-owned, or isolated)."""
    if side != "Entente":
        return 0
    for place, nets_hit in (
        ("Lille", ("NW Europe Standard Gauge",)),
        (
            "Warszawa",
            ("NE Europe Standard Gauge", "SE Europe Standard Gauge", "West Russia Broad Gauge"),
        ),
    ):
        if net in nets_hit:
            i = geography.place_named(g, place)
            if i is None or g.state.control.get(i) != side or supply_status.is_isolated(g, side, i):
                return 1
    return 0


@implements("OT 7A5g", "OT 13B4")
def deterioration_roll(g: Game, side: str, net: str, reason: str) -> int:
    """OT 7A5g: one deterioration check: 1d6, +1 per 2 RE of railroad engineers on the net's rail
    hexes (OT 13B4), -1 per 2 friendly depots there; 1-6 lose 1 RE (+1 for the Lille/Warszawa
    specials), 7 or more no loss. Returns the RE lost."""
    hexes = net_hexes(g, net)
    eng = sum(
        (
            units.re_size(g, p)
            for p in units.on_map_units(g, side)
            if "railroad-engineer" in units.utype(p).tags and units.hex_of(g, p) in hexes
        ),
        Fraction(0),
    )
    mods = Modifiers()
    mods.add(math.floor(eng / 2), "OT 7A5g", "railroad engineers")
    mods.add(-(len(depots_on_net(g, side, net)) // 2), "OT 7A5g", "supply depots")
    r = g.roll("d6", f"rail deterioration of {net} ({reason})", "OT 7A5g", modifiers=mods)
    if r.modified >= 7:
        return 0
    loss = 1 + _entente_penalty(g, side, net)
    _change(g, side, net, Fraction(-loss), "OT 7A5g", "deterioration")
    _force_depot_deactivation(g, side, net)
    return loss


@implements("OT 7A5g")
def deterioration_checks(g: Game, side: str) -> None:
    """OT 7A5g: in a production cycle, every net of ``side`` with at least 21 RE and enemy units
    present in its territory is checked (interpretation default: anywhere in the net's territory);
    and after a temporary increase, one check per Res Pt spent (always made)."""

    date = calendar.current_date(g)
    cycle = calendar.is_production_cycle(g) if date is not None else False
    enemy = nations.other_side(side)
    for net in net_names(g):
        rec = ledger(g, net, side)
        if unlimited(rec):
            continue
        due = int(rec.get("deterioration_due", 0))
        where = list(rec.get("temp_sections", [])) + [None] * due
        rec["deterioration_due"] = 0
        rec["temp_sections"] = []
        for k in range(due):
            lost = deterioration_roll(g, side, net, "temporary increase")
            sid = where[k]
            if lost and sid is not None and g.opt("isolated-rail-sections"):
                secs = sections(g, side, net)
                if len(secs) > 1 and sid != secs[0].id and any(s.id == sid for s in secs):
                    adj = rec.setdefault("orphan_adjust", {})
                    adj[str(sid)] = Fraction(adj.get(str(sid), 0)) - lost
        if cycle and limited_capacity(rec) >= 21 and _enemy_in_net(g, enemy, net):
            deterioration_roll(g, side, net, "production cycle")


def _enemy_in_net(g: Game, enemy: str, net: str) -> bool:
    d = net_def(g, net)
    if d is None or d.area is None:
        area = None
    else:
        area = set(g.board.areas[d.area].hexes.tolist())
    for p in units.on_map_units(g, enemy):
        h = units.hex_of(g, p)
        if h is not None and (area is None or h in area):
            return True
    return False


# ============================================================================ rail movement
@dataclass
class RailPlan:
    piece: Piece
    path: list[int]
    kind: str
    mp: Fraction
    hexes: int
    charges: dict[str, Fraction]
    anchors: list[str]


def _zoc_negated(g: Game, f: Frame, side: str, i: int) -> str | None:
    """OT 7A: an enemy ZOC in a hex is negated for rail movement if a friendly unit with defense
    above 0 has occupied the hex since the start of the movement phase and stays there."""
    for p in units.units_in_hex(g, i, side):
        rec = f.params.get("units", {}).get(p.id, {})
        if rec.get("start") == i and not rec.get("moved") and units.printed_defense(p) > 0:
            return p.id
    return None


def usable_component(g: Game, side: str) -> set[int]:
    """OT 7A: friendly-owned rail hexes joined by friendly-owned rail to a friendly-owned yard."""
    return set(g.cached(f"gw:rail-usable:{side}", lambda: frozenset(_usable_component(g, side))))


def _usable_component(g: Game, side: str) -> set[int]:
    ln = links(g)
    own = {i for i in ln if g.state.control.get(i) == side}
    starts = [y for y in yards(g) if y in own]
    seen = set(starts)
    todo = deque(starts)
    while todo:
        u = todo.popleft()
        for lk in ln.get(u, []):
            if lk.to in own and lk.to not in seen and _link_ok_for(g, side, lk, u):
                seen.add(lk.to)
                todo.append(lk.to)
    return seen


def _section_id(g: Game, side: str, net: str, at: int) -> int | None:
    secs = sections(g, side, net)
    if len(secs) < 2:
        return None
    return next((s.id for s in secs if at in s.hexes), None)


def _hex_blocked_for_rail(
    g: Game, f: Frame, side: str, i: int, ez: dict[int, str], anchors: list[str]
) -> str | None:
    if marker(g, "rail-break", i):
        return f"the rail line in {g.board.label(i)} is broken (OT 7A6)"
    if marker(g, "rail-obstructed", i):
        return f"the rail line in {g.board.label(i)} is obstructed (OT 7A7)"
    if i in ez:
        a = _zoc_negated(g, f, side, i)
        if a is None:
            return f"{g.board.label(i)} is in an enemy ZOC (OT 7A)"
        if a not in anchors:
            anchors.append(a)
    return None


def rail_rates(g: Game) -> dict[str, Any]:
    return dict(load_charts(g.scenario.table_overrides).rail_rates.body)


@implements("OT 7A", "OT 7A2", "OT 7A3", "OT 7A4", "OT 7A8", "OT 14B1")
def plan_rail_move(g: Game, f: Frame, action: Action, fresh: bool = False) -> RailPlan:
    """Check a rail move (``{"type": "rail-move", "piece", "path": [...], "kind":
    "operational"|"strategic"}``) against OT 7A; raise :class:`IllegalAction` if not allowed.

    Operational rail movement costs whole MPs (hexes / rate, rounded up, Rail Movement Rates
    Table) plus 1 MP per gauge change (OT 7A8), doubled under accelerated movement (OT 6B3).
    Strategic rail movement goes up to 200 hexes, 20 of them used by each gauge change, by a unit
    that has not otherwise moved this phase. Capacity is charged once per net per turn: the unit's
    RE, doubled for artillery and c/m and doubled again if it used a low-volume line (OT 7A4).
    Rail-only units (OT 14B1) use no capacity and move by strategic rail movement only
    (interpretation default).
    """

    if f.params.get("kind") != MOVEMENT:
        raise IllegalAction("OT 7A", "rail movement is allowed in the movement phase only")
    pid = action.get("piece")
    p = g.state.pieces.get(pid) if isinstance(pid, str) else None
    side = action["side"]
    if p is None or p.side != side:
        raise IllegalAction("OT 7A", f"{side} has no unit {pid!r}")
    rail_only = units.is_rail_only(p)
    arrived = f.params.get("units", {}).get(p.id, {}).get("strategic_only")  # OT 16A1aa
    if arrived and action.get("kind", "operational") != "strategic":
        raise IllegalAction(
            "OT 16A1aa", f"{p.id} arrived by strategic rail and may only continue by strategic rail"
        )
    if arrived and f.params.get("units", {}).get(p.id, {}).get("done"):
        raise IllegalAction("OT 16A1aa", f"{p.id} has finished moving this phase")
    if not rail_only and not arrived:
        why = can_move_now(g, f, p)
        if why:
            raise IllegalAction("OT 7A", why)
    elif f.params.get("units", {}).get(p.id, {}).get("done"):
        raise IllegalAction("OT 14B1", f"{p.id} has finished moving this phase")
    kind = action.get("kind", "operational")
    if kind not in ("operational", "strategic"):
        raise IllegalAction("OT 7A", "rail movement 'kind' is 'operational' or 'strategic'")
    if rail_only and kind != "strategic":
        raise IllegalAction("OT 14B1", f"{p.id} is rail-only and uses strategic rail movement")
    start = units.hex_of(g, p)
    raw = action.get("path")
    if (
        not isinstance(raw, list)
        or not raw
        or not all(isinstance(h, str) and g.board.has_label(h) for h in raw)
    ):
        raise IllegalAction("OT 7A", "'path' must list the hexes of the rail route")
    path = [g.board.idx(h) for h in raw]
    if path[0] == start:
        path = path[1:]
    if not path:
        raise IllegalAction("OT 7A", "the rail route does not leave the unit's hex")

    problem = stacking.departure_problem(g, [p], start) if start is not None else None
    if problem:
        raise IllegalAction("OT 8C2", problem)
    comp = usable_component(g, side)
    if start not in comp:
        raise IllegalAction(
            "OT 7A", f"{p.id} is not on a friendly rail line linked to a friendly yard"
        )
    ez = (
        zoc.zoc_map(g, nations.other_side(side))
        if fresh
        else zoc.cached_zoc_map(g, nations.other_side(side))
    )
    anchors: list[str] = []
    why = _hex_blocked_for_rail(g, f, side, start, ez, anchors)
    if why:
        raise IllegalAction("OT 7A", f"{p.id} may not leave {g.board.label(start)} by rail: {why}")
    ln = links(g)
    u = start
    low = False
    gauges: list[str] = []
    for v in path:
        lk = next((lk for lk in ln.get(u, []) if lk.to == v), None)
        if lk is None:
            raise IllegalAction(
                "OT 7A", f"no rail line joins {g.board.label(u)} and {g.board.label(v)}"
            )
        if v not in comp:
            raise IllegalAction(
                "OT 7A",
                f"{g.board.label(v)} is not a friendly-owned rail hex linked to a friendly yard",
            )
        if not _link_ok_for(g, side, lk, u):
            raise IllegalAction(
                "OT 15A1",
                f"the bridge or ferry between {g.board.label(u)} and {g.board.label(v)} is not"
                " usable",
            )
        why = _hex_blocked_for_rail(g, f, side, v, ez, anchors)
        if why:
            raise IllegalAction("OT 7A", why)
        low = low or lk.volume == "low"
        gauges.append(lk.gauge)
        u = v
    group = [
        p,
        *[q for q in g.state.contents(p.id) if units.is_unit(q)],
    ]  # a Corps HQs moves with its box
    problem = stacking.move_stacking_problem(g, group, path[-1])
    if problem:
        raise IllegalAction("OT 8B", problem)
    changes = sum(1 for a, b in pairwise(gauges) if a != b)
    rates = rail_rates(g)
    n = len(path)
    mp = Fraction(0)
    if kind == "strategic":
        rec = f.params.get("units", {}).get(p.id, {})
        if rec.get("moved") or spent(f, p) > 0:
            raise IllegalAction(
                "OT 7A3", f"{p.id} already moved this phase and may not use strategic rail movement"
            )
        if n + changes * int(rates["gauge_change_hexes"]) + int(rec.get("strategic_used", 0)) > int(
            rates["strategic_hexes"]
        ):
            raise IllegalAction(
                "OT 7A3", f"strategic rail movement is limited to {rates['strategic_hexes']} hexes"
            )
    else:
        mp = Fraction(
            math.ceil(Fraction(n, int(rates["operational_hexes_per_mp"])))
        ) + changes * Fraction(str(rates["gauge_change_mp"]))
        accel = mode_of(f, p) == "accel"
        if accel:
            mp *= int(rates["accel_multiplier"])
        left = movement_allowance(g, p, MOVEMENT, accel) - spent(f, p)
        if mp > left:
            raise IllegalAction("OT 7A2", f"{p.id} needs {mp} MP for this rail move but has {left}")
    charges: dict[str, Fraction] = {}
    if not rail_only:
        used_nets: set[str] = set()
        for h in [start, *path]:
            used_nets.update(nets_of_hex(g, h))
        for net in sorted(used_nets):
            rec = ledger(g, net, side)
            base = units.transport_re(g, p, "rail")
            prior = Fraction(rec["charged"].get(p.id, 0))
            was_low = bool(rec["charged"].get(f"{p.id}:low"))
            need = base * (2 if (low or was_low) else 1)
            extra = max(Fraction(0), need - prior)
            avail = available(g, side, net, at=start)
            if avail is not None and extra > avail:
                raise IllegalAction(
                    "OT 7A4", f"not enough rail capacity on {net}: {extra} RE needed, {avail} left"
                )
            charges[net] = extra
    return RailPlan(p, path, kind, mp, n, charges, anchors)


def execute_rail_move(g: Game, f: Frame, plan: RailPlan, low_used: bool) -> None:
    """Carry out a checked rail move: the unit has no ZOC while moving by rail (OT 7A)."""

    p = plan.piece
    rec = record(f, p, g)
    start = units.hex_of(g, p)
    p.status.add(zoc.NO_ZOC)
    g.state.move(p.id, Loc.hex(plan.path[-1]))
    p.status.discard(zoc.NO_ZOC)
    for net, amount in plan.charges.items():
        led = ledger(g, net, p.side)
        led["used"] = Fraction(led["used"]) + amount
        if g.opt("isolated-rail-sections") and start is not None:
            sid = _section_id(g, p.side, net, start)
            if sid is not None:
                led["used_by_section"][str(sid)] = (
                    Fraction(led["used_by_section"].get(str(sid), 0)) + amount
                )
        led["charged"][p.id] = Fraction(led["charged"].get(p.id, 0)) + amount
        if low_used:
            led["charged"][f"{p.id}:low"] = True
    rec["moved"] = True
    if plan.kind == "strategic":
        rec["done"] = True
        p.status.add(STRATEGIC)
    else:
        rec["spent"] = Fraction(rec["spent"]) + plan.mp
    for a in plan.anchors:
        if a not in f.params.setdefault("anchors", []):
            f.params["anchors"].append(a)
    zoc.update_ownership(g)
    cost = f"{plan.mp} MP" if plan.kind == "operational" else f"{plan.hexes} of 200 hexes"
    cap = ", ".join(f"{amt} RE on {n}" for n, amt in plan.charges.items() if amt) or "no capacity"
    g.emit(
        "rail-move",
        f"{p.id} moves by {plan.kind} rail {g.board.label(start) if start is not None else '?'} ->"
        f" {g.board.label(plan.path[-1])} ({cost}; {cap})",
        rule="OT 7A3" if plan.kind == "strategic" else "OT 7A2",
        piece=p.id,
        path=[g.board.label(h) for h in plan.path],
    )


def _path_uses_low(g: Game, start: int, path: list[int]) -> bool:
    ln = links(g)
    u = start
    for v in path:
        lk = next((lk for lk in ln.get(u, []) if lk.to == v), None)
        if lk is not None and lk.volume == "low":
            return True
        u = v
    return False


def rail_destinations(g: Game, f: Frame, p: Piece, max_hexes: int) -> dict[int, list[int]]:
    """Hexes reachable by rail from the unit's hex along usable lines (fewest hexes), with paths."""
    side = p.side
    start = units.hex_of(g, p)
    if start is None:
        return {}
    comp = usable_component(g, side)
    if start not in comp:
        return {}
    ez = zoc.cached_zoc_map(g, nations.other_side(side))
    if _hex_blocked_for_rail(g, f, side, start, ez, []):
        return {}
    ln = links(g)
    prev: dict[int, int] = {start: -1}
    dist = {start: 0}
    todo = deque([start])
    while todo:
        u = todo.popleft()
        if dist[u] >= max_hexes:
            continue
        for lk in ln.get(u, []):
            v = lk.to
            if v in prev or v not in comp or not _link_ok_for(g, side, lk, u):
                continue
            if _hex_blocked_for_rail(g, f, side, v, ez, []):
                continue
            prev[v] = u
            dist[v] = dist[u] + 1
            todo.append(v)
    out = {}
    for v in prev:
        if v == start:
            continue
        path = [v]
        while prev[path[-1]] != start:
            path.append(prev[path[-1]])
        out[v] = list(reversed(path))
    return out


RAIL_LIST_LIMIT = 16


def rail_actions(g: Game, f: Frame, side: str) -> list[Action]:
    """Rail moves, rail breaks and temporary capacity increases open to ``side`` now.

    Rail moves are listed along the fewest-hex route to each destination; when a unit has more
    than :data:`RAIL_LIST_LIMIT` destinations of one kind, only those at rail marshaling yards
    (OT 7A1: the cities, fortresses and ports on the line) are listed. Any other legal rail move
    is accepted by ``apply``. The routes from a hex and each unit's offers are memoised under a
    signature of what they depend on (:mod:`.listing`)."""

    out: list[Action] = []
    moves = rail_mover(g, f, side)
    for p in units.on_map_units(g, side):
        out.extend(moves(p))
    out += rail_other_actions(g, f, side)
    return out


def rail_other_actions(g: Game, f: Frame, side: str) -> list[Action]:
    """The actions of :func:`rail_actions` other than rail moves: rail breaks and temporary
    capacity increases."""
    return break_actions(g, f, side) + res_pt_actions(g, side, "movement")


def rail_movers(g: Game, f: Frame, side: str) -> list[str]:
    """The units of ``side`` that :func:`rail_mover` may offer rail moves now (OT 7A): on the map
    in a hex of the rail network the side may use, not done, free to move or rail-only, and
    free to leave their hex (OT 8C2). Whether a route is open is decided unit by unit."""
    comp = usable_component(g, side)
    recs = f.params.get("units", {})
    out = []
    for p in units.on_map_units(g, side):
        if p.loc.kind != "hex" or recs.get(p.id, {}).get("done"):
            continue
        free = units.is_rail_only(p) or recs.get(p.id, {}).get("strategic_only")
        if not free and can_move_now(g, f, p):
            continue
        start = units.hex_of(g, p)
        if start is None or start not in comp or stacking.departure_problem(g, [p], start):
            continue
        out.append(p.id)
    return out


def rail_mover(g: Game, f: Frame, side: str) -> Callable[[Piece], list[Action]]:
    """The rail moves of one unit of ``side`` now (the units' part of :func:`rail_actions`), as
    a function of the unit; what the units share (rates, the rail signature, the memo tables)
    is read once, when the function is made."""
    rates = rail_rates(g)
    per_mp = int(rates["operational_hexes_per_mp"])
    yard_set = set(yards(g))
    railsig = _rail_signature(g, f, side)
    trees = listing.memo(g, "rail-trees")
    offers = listing.memo(g, "rail-offers")
    caps_at: dict[int, tuple[tuple[str, Fraction | None], ...]] = {}

    def unit_moves(p: Piece) -> list[Action]:
        out: list[Action] = []
        if p.loc.kind != "hex":
            return []
        rec = f.params.get("units", {}).get(p.id, {})
        if rec.get("done"):
            return []
        if units.is_rail_only(p) or rec.get("strategic_only"):
            kinds = ["strategic"]
        else:
            if can_move_now(g, f, p):
                return []
            # OT 7A3: strategic rail only for a unit that has neither moved nor spent movement
            # points this phase (the check of rail_check refuses both)
            used = rec.get("moved") or spent(f, p) > 0
            kinds = ["operational"] + ([] if used else ["strategic"])
        start = units.hex_of(g, p)
        if start is None or stacking.departure_problem(g, [p], start):
            return []
        caps = caps_at.get(start)
        if caps is None:  # the capacity left by the start hex (nothing in this loop changes it)
            caps = caps_at[start] = tuple(
                (net, available(g, side, net, at=start)) for net in net_names(g)
            )
        if not units.is_rail_only(p) and not _start_capacity_ok(g, p, start, dict(caps)):
            return []  # every route uses the nets of the start hex (OT 7A4): no capacity left there
        accel = mode_of(f, p) == "accel"
        mult = int(rates["accel_multiplier"]) if accel else 1
        limits = {}
        for kind in kinds:
            if kind == "operational":
                limits[kind] = math.floor(remaining(g, f, p) / mult) * per_mp
            else:
                limits[kind] = int(rates["strategic_hexes"]) - int(rec.get("strategic_used", 0))
        mp_left = movement_allowance(g, p, MOVEMENT, accel) - spent(f, p)
        charged = tuple(
            repr(ledger(g, net, side)["charged"].get(k))
            for net in net_names(g)
            for k in (p.id, f"{p.id}:low")
        )
        key = (
            railsig,
            start,
            listing.piece_signature(p),
            repr(sorted(rec.items())),
            tuple(limits.items()),
            accel,
            mp_left,
            caps,
            charged,
        )
        hit = offers.get(key)
        if hit is None:
            tkey = (railsig, start)
            tree = trees.get(tkey)
            if tree is None:
                tree = _rail_tree_from(g, f, side, start, int(rates["strategic_hexes"]))
                trees[tkey] = tree
            hit = []
            for kind in kinds:
                sub = {v: n for v, n in tree.items() if n.hexes <= limits[kind]}
                if not sub:
                    continue
                ok = _rail_checks(g, f, p, kind, start, sub, rates, accel, mp_left)
                dests = sorted(v for v in sub if ok(v))
                if len(dests) > RAIL_LIST_LIMIT:
                    dests = [v for v in dests if v in yard_set]
                hit.extend(
                    (kind, tuple(g.board.label(h) for h in _tree_path(sub, start, v)))
                    for v in dests
                )
            offers[key] = hit
        group = [p, *[q for q in g.state.contents(p.id) if units.is_unit(q)]]
        for kind, path in hit:
            dest = g.board.idx(path[-1])
            # OT 8B: not into a hex the move puts over the stacking limit (checked outside the memo:
            # it depends on the units at the destination)
            over = stacking.cached_move_stacking_problem(g, group, dest)
            if over is None:
                out.append(
                    {
                        "type": "rail-move",
                        "side": side,
                        "piece": p.id,
                        "kind": kind,
                        "path": list(path),
                    }
                )
        return out

    return unit_moves


def _start_capacity_ok(g: Game, p: Piece, start: int, caps: dict[str, Fraction | None]) -> bool:
    """OT 7A4: whether the nets of the start hex have capacity for the unit's RE at all (the least
    it can be charged on them: its RE size, doubled for artillery and c/m, less what it already
    paid this turn)."""
    base = units.transport_re(g, p, "rail")
    for net in nets_of_hex(g, start):
        rec = ledger(g, net, p.side)
        need = base * (2 if rec["charged"].get(f"{p.id}:low") else 1)
        extra = max(Fraction(0), need - Fraction(rec["charged"].get(p.id, 0)))
        avail = caps.get(net)
        if avail is not None and extra > avail:
            return False
    return True


def _rail_signature(g: Game, f: Frame, side: str) -> tuple[Any, ...]:
    """What rail routes of ``side`` depend on now: the usable rail hexes, the enemy ZOCs on them and
    which are negated (OT 7A), breaks, obstructions and bridges (markers), the links themselves."""

    comp = usable_component(g, side)
    ez = zoc.cached_zoc_map(g, nations.other_side(side))
    on_rail = tuple(sorted(i for i in ez if i in comp))
    neg = tuple(_zoc_negated(g, f, side, i) for i in on_rail)
    return (side, id(links(g)), hash(frozenset(comp)), on_rail, neg, listing.snapshot(g).markers)


@dataclass
class _Node:
    prev: int
    hexes: int
    changes: int
    gauge: str
    low: bool
    nets: frozenset[str]


def _rail_tree(g: Game, f: Frame, p: Piece, max_hexes: int) -> dict[int, _Node]:
    """The breadth-first rail tree of :func:`rail_destinations` with, for each hex reached, what the
    route to it uses: hexes, gauge changes, low-volume lines and rail nets (start hex included)."""
    start = units.hex_of(g, p)
    if start is None:
        return {}
    return _rail_tree_from(g, f, p.side, start, max_hexes)


def _rail_tree_from(g: Game, f: Frame, side: str, start: int, max_hexes: int) -> dict[int, _Node]:
    comp = usable_component(g, side)
    if start not in comp:
        return {}
    ez = zoc.cached_zoc_map(g, nations.other_side(side))
    if _hex_blocked_for_rail(g, f, side, start, ez, []):
        return {}
    ln = links(g)
    # within the usable component both ends of a link are friendly-owned, so a bridge on it is
    # usable unless demolished (OT 15A1, as in _link_ok_for) and a rail ferry is usable (OT 15A3)
    demolished = g.state.markers.get("bridge-demolished", {})
    breaks = g.state.markers.get("rail-break", {})
    obstructed = g.state.markers.get("rail-obstructed", {})
    nodes = {start: _Node(-1, 0, 0, "", False, frozenset(nets_of_hex(g, start)))}
    todo = deque([start])
    while todo:
        u = todo.popleft()
        nu = nodes[u]
        if nu.hexes >= max_hexes:
            continue
        for lk in ln.get(u, []):
            v = lk.to
            if v in nodes or v not in comp or (not lk.ferry and str(lk.side) in demolished):
                continue
            if (str(v) in breaks or str(v) in obstructed or v in ez) and _hex_blocked_for_rail(
                g, f, side, v, ez, []
            ):
                continue
            change = 1 if nu.gauge and nu.gauge != lk.gauge else 0
            nodes[v] = _Node(
                u,
                nu.hexes + 1,
                nu.changes + change,
                lk.gauge,
                nu.low or lk.volume == "low",
                nu.nets | frozenset(nets_of_hex(g, v)),
            )
            todo.append(v)
    del nodes[start]
    return nodes


def _tree_path(tree: dict[int, _Node], start: int, v: int) -> list[int]:
    path = [v]
    while tree[path[-1]].prev != start:
        path.append(tree[path[-1]].prev)
    return list(reversed(path))


def _rail_checks(
    g: Game,
    f: Frame,
    p: Piece,
    kind: str,
    start: int,
    tree: dict[int, _Node],
    rates: dict[str, Any],
    accel: bool,
    mp_left: Fraction,
) -> Any:
    """The cost and capacity checks of :func:`plan_rail_move` for the routes of :func:`_rail_tree`
    (which follows only usable lines), as a predicate on the destination."""
    rail_only = units.is_rail_only(p)
    base_re = units.transport_re(g, p, "rail")
    caps: dict[tuple[str, bool], bool] = {}

    def capacity_ok(net: str, low: bool) -> bool:
        key = (net, low)
        if key not in caps:
            rec = ledger(g, net, p.side)
            need = base_re * (2 if (low or rec["charged"].get(f"{p.id}:low")) else 1)
            extra = max(Fraction(0), need - Fraction(rec["charged"].get(p.id, 0)))
            avail = available(g, p.side, net, at=start)
            caps[key] = avail is None or extra <= avail
        return caps[key]

    change_hexes = int(rates["gauge_change_hexes"])
    strategic_hexes = int(rates["strategic_hexes"])
    per_mp = int(rates["operational_hexes_per_mp"])
    change_mp = Fraction(str(rates["gauge_change_mp"]))
    mult = int(rates["accel_multiplier"]) if accel else 1

    def ok(v: int) -> bool:
        n = tree[v]
        if kind == "strategic":
            if n.hexes + n.changes * change_hexes > strategic_hexes:
                return False
        else:
            mp = -(-n.hexes // per_mp)  # whole MPs for the hexes (rounded up)
            if n.changes:
                mp = mp + n.changes * change_mp  # type: ignore[assignment]
            if mp * mult > mp_left:
                return False
        if rail_only:
            return True
        return all(capacity_ok(net, n.low) for net in n.nets)

    return ok


def break_actions(g: Game, f: Frame, side: str) -> list[Action]:
    """Rail breaks (OT 7A6) open to ``side`` now."""

    if f.params.get("kind") != MOVEMENT and g.opt("rail-break-phases") == "movement-only":
        return []

    out: list[Action] = []
    table = listing.memo(g, "rail-breaks")
    rh = rail_hexes(g)
    base = (
        f.step,
        repr(sorted((k, v) for k, v in f.params.items() if k != "units")),
        listing.snapshot(g).base,
    )
    records = f.params.get("units", {})
    for p in units.on_map_units(g, side):
        h = units.hex_of(g, p)
        if h is None or h not in rh or marker(g, "rail-break", h) or units.is_rail_only(p):
            continue
        a: Action = {"type": "break-rail", "side": side, "piece": p.id}
        # whether the unit may break the line depends on the unit, what it carries, its record
        key = (
            base,
            listing.piece_signature(p),
            tuple(listing.piece_signature(q) for q in g.state.contents(p.id)),
            repr(records.get(p.id)),
        )
        ok = table.get(key)
        if ok is None:
            try:
                check_break(g, f, a)
                ok = True
            except IllegalAction:
                ok = False
            table[key] = ok
        if ok:
            out.append(a)
    return out


@implements("OT 7A6")
def check_break(g: Game, f: Frame, action: Action) -> Fraction:
    """OT 7A6: a unit breaks the rail line in its hex by spending 2 MPs there (a railroad engineer
    1 MP); not while using accelerated movement (OT 6B3). Returns the MP cost."""

    if f.params.get("kind") != MOVEMENT and g.opt("rail-break-phases") == "movement-only":
        raise IllegalAction(
            "OT 7A6", "rail lines are broken in the movement phase only (option rail-break-phases)"
        )
    pid = action.get("piece")
    p = g.state.pieces.get(pid) if isinstance(pid, str) else None
    if p is None or p.side != action["side"]:
        raise IllegalAction("OT 7A6", f"{action['side']} has no unit {pid!r}")
    why = can_move_now(g, f, p)
    if why:
        raise IllegalAction("OT 7A6", why)
    if mode_of(f, p) == "accel":
        raise IllegalAction(
            "OT 6B3", f"{p.id} uses accelerated movement and may spend MPs only on moving"
        )
    h = units.hex_of(g, p)
    if h is None or h not in rail_hexes(g):
        raise IllegalAction("OT 7A6", f"{p.id} is not on a rail line")
    if marker(g, "rail-break", h):
        raise IllegalAction("OT 7A6", f"the rail line in {g.board.label(h)} is already broken")
    cost = Fraction(1) if "railroad-engineer" in units.utype(p).tags else Fraction(2)
    if remaining(g, f, p) < cost:
        raise IllegalAction("OT 7A6", f"{p.id} needs {cost} MP to break the rail line")
    return cost


@implements("OT 7A5a")
def check_boost(g: Game, f: Frame | None, action: Action) -> tuple[str, list[Piece], Fraction]:
    """OT 7A5a: spend Res Pts, during the movement phase, at connected unisolated yards of a net
    the side owns (at least two) for +10 RE each (or fraction), up to half the capacity the net
    had at the start of the player turn, for this player turn only."""

    side = action["side"]
    if f is not None and f.params.get("kind") != MOVEMENT:
        raise IllegalAction("OT 7A5a", "temporary rail capacity is bought in the movement phase")
    net = action.get("net")
    if net not in net_names(g) or net_def(g, str(net)) is None:
        raise IllegalAction("OT 7A5a", f"no rail net {net!r} with limited capacity")
    ys = connected_unisolated_yards(g, side, str(net))
    if len(ys) < 2:
        raise IllegalAction("OT 7A5a", f"{side} needs two connected, unisolated yards on {net}")
    res = _res_pts(g, action, side, set(ys), "OT 7A5a")
    room = boost_room(g, side, str(net), res[0])
    if room <= 0:
        raise IllegalAction(
            "OT 7A5a", f"the temporary increase on {net} is already at half its capacity"
        )
    gain = min(Fraction(10 * len(res)), room)
    if Fraction(10 * (len(res) - 1)) >= room:
        raise IllegalAction(
            "OT 7A5a", f"{len(res)} Res Pts buy more than the {room} RE still allowed"
        )
    return str(net), res, gain


@implements("OT 7A5a")
def boost_room(g: Game, side: str, net: str, res_pt: Piece) -> Fraction:
    """OT 7A5a: the temporary increase still allowed on ``net`` this player turn: half the
    capacity the net had at the start of the player turn less what was bought already (with
    isolated rail sections, half the capacity of the section holding ``res_pt``)."""
    rec = ledger(g, net, side)
    start = rec["start_capacity"]
    if start is None:  # a net of unlimited capacity has nothing to increase
        return Fraction(0)
    room = Fraction(start) / 2 - rec["temp"]
    if g.opt("isolated-rail-sections"):
        at = units.hex_of(g, res_pt)
        secs = sections(g, side, net)
        if at is not None and len(secs) > 1:
            sec = next(s for s in secs if at in s.hexes)
            room = section_capacity(g, side, net, sec, secs) / 2 - Fraction(
                rec["temp_by_section"].get(str(sec.id), 0)
            )
    return room


def _res_pts(g: Game, action: Action, side: str, where: set[int], rule: str) -> list[Piece]:
    ids = action.get("res_pts")
    if not isinstance(ids, list) or not ids:
        raise IllegalAction(rule, "name the Res Pts to spend in 'res_pts'")
    out = []
    for pid in ids:
        p = g.state.pieces.get(pid) if isinstance(pid, str) else None
        if p is None or p.side != side or units.utype(p).id != "res-pt":
            raise IllegalAction(rule, f"{pid!r} is not a Res Pt of {side}")
        if units.hex_of(g, p) not in where:
            raise IllegalAction(rule, f"{p.id} is not at a connected, unisolated yard of the net")
        out.append(p)
    if len({p.id for p in out}) != len(out):
        raise IllegalAction(rule, "a Res Pt is listed twice")
    return out


def spend_res_pts(g: Game, res: list[Piece], rule: str, why: str) -> None:
    for p in res:
        g.state.move(p.id, Loc.box(EXPENDED_BOX))
    g.emit("res-pts", f"{len(res)} Res Pt(s) spent ({why})", rule=rule, pieces=[p.id for p in res])


def res_pt_actions(g: Game, side: str, kind: str) -> list[Action]:
    """Res Pt purchases open now: temporary increases (movement phase), permanent builds and
    capacity transfers (initial phase)."""
    out: list[Action] = []
    if not net_defs(g):
        return out
    res = [
        p for p in g.state.of_side(side) if units.utype(p).id == "res-pt" and p.loc.kind == "hex"
    ]
    if not res:
        return out
    for net in net_names(g):
        ys = set(connected_unisolated_yards(g, side, net))
        here = sorted((p for p in res if int(p.loc.ref) in ys), key=lambda p: p.id)
        if len(ys) < 2 or not here:
            continue
        if kind == "movement":
            # OT 7A5a: offered only while the net (or the Res Pt's section) has room left
            spend = next((p for p in here if boost_room(g, side, net, p) > 0), None)
            if spend is not None:
                out.append({"type": "rail-boost", "side": side, "net": net, "res_pts": [spend.id]})
        else:
            cost = build_cost(g, side, net)
            if len(here) >= cost:
                out.append(
                    {
                        "type": "rail-build",
                        "side": side,
                        "net": net,
                        "res_pts": [p.id for p in here[:cost]],
                    }
                )
    return out


@implements("OT 7A5b")
def build_cost(g: Game, side: str, net: str) -> int:
    """OT 7A5b: Res Pts per RE of permanent capacity: 3; 4 for the Entente on the NW Europe net
    without Lille or on the NE/SE Europe and West Russia nets without Warszawa; 2 on every Entente
    net once the USA has joined the Entente."""
    if side == "Entente":
        usa = [
            n
            for n in g.scenario.data.nations
            if nations.rulebook_name(g, n) in ("USA", "United States", "America")
        ]
        if any(nations.side_of_nation(g, n) == "Entente" for n in usa):
            return 2
        if _entente_penalty(g, side, net):
            return 4
    return 3


@implements("OT 7A5b")
def check_build(g: Game, action: Action) -> tuple[str, list[Piece], int]:
    """OT 7A5b: in his initial phase a player may spend Res Pts at connected unisolated yards of a
    net (at least two) for +1 RE of permanent capacity each time, at most once per such yard per
    initial phase (interpretation default)."""
    side = action["side"]
    net = action.get("net")
    if net not in net_names(g) or net_def(g, str(net)) is None:
        raise IllegalAction("OT 7A5b", f"no rail net {net!r} with limited capacity")
    ys = connected_unisolated_yards(g, side, str(net))
    if len(ys) < 2:
        raise IllegalAction("OT 7A5b", f"{side} needs two connected, unisolated yards on {net}")
    res = _res_pts(g, action, side, set(ys), "OT 7A5b")
    cost = build_cost(g, side, str(net))
    if len(res) % cost:
        raise IllegalAction("OT 7A5b", f"each RE costs {cost} Res Pts on {net}")
    k = len(res) // cost
    rec = ledger(g, str(net), side)
    if rec["builds"] + k > len(ys):
        raise IllegalAction(
            "OT 7A5b",
            f"at most {len(ys)} RE may be built on {net} this initial phase (one per yard)",
        )
    return str(net), res, k


@implements("OT 7A5d")
def check_transfer(g: Game, action: Action) -> tuple[str, str, Fraction, list[Piece]]:
    """OT 7A5d: move capacity between two nets of the same gauge that are rail-connected: never
    below the giving net's voluntary minimum, at most 3 RE per pair of nets per turn, 1 Res Pt per
    3 RE or fraction (spent at an unisolated connected yard of either net); the capacity moved is
    usable on neither net this turn. (Connection by a naval supply element is not checked yet.)"""
    side = action["side"]
    a, b = action.get("from"), action.get("to")
    da, db = net_def(g, str(a)), net_def(g, str(b))
    if da is None or db is None or a == b:
        raise IllegalAction("OT 7A5d", "name two different rail nets in 'from' and 'to'")
    if da.gauge != db.gauge:
        raise IllegalAction("OT 7A5d", "capacity moves only between nets of the same gauge")
    try:
        amount = Fraction(str(action.get("amount")))
    except (ValueError, TypeError):
        raise IllegalAction("OT 7A5d", "'amount' must be a number of REs") from None
    if amount <= 0 or amount.denominator != 1:
        raise IllegalAction("OT 7A5d", "transfer a whole number of REs")
    ra = ledger(g, str(a), side)
    if Fraction(ra["transfers"].get(str(b), 0)) + amount > 3:
        raise IllegalAction("OT 7A5d", "at most 3 RE may move from one net to another per turn")
    minimum = Fraction(str(da.minimum.get(side, 0)))
    if limited_capacity(ra) - amount < minimum:
        raise IllegalAction(
            "OT 7A5d", f"{a} may not go below its voluntary minimum of {minimum} RE"
        )
    ha, hb = net_hexes(g, str(a)), net_hexes(g, str(b))
    all_yards = set(yards(g))
    ya_, yb_ = ha & all_yards, hb & all_yards
    ya = {
        x
        for x in ya_
        if not supply_status.is_isolated(g, side, x)
        and any(rail_connected(g, side, x, y) for y in yb_)
    }
    ya |= {
        y
        for y in yb_
        if not supply_status.is_isolated(g, side, y)
        and any(rail_connected(g, side, x, y) for x in ya_)
    }
    if not ya:
        raise IllegalAction("OT 7A5d", f"{a} and {b} are not rail-connected")
    res = _res_pts(g, action, side, ya, "OT 7A5d")
    if len(res) != math.ceil(amount / 3):
        raise IllegalAction(
            "OT 7A5d", f"{math.ceil(amount / 3)} Res Pt(s) must be spent for {amount} RE"
        )
    return str(a), str(b), amount, res


def apply_rail_move(g: Game, f: Frame, action: Action) -> None:
    """Carry out a checked rail move (:func:`plan_rail_move`)."""
    plan = plan_rail_move(g, f, action, fresh=True)
    start = units.hex_of(g, plan.piece)
    assert start is not None
    execute_rail_move(g, f, plan, _path_uses_low(g, start, plan.path))


@implements("OT 7A6")
def apply_break(g: Game, f: Frame, action: Action) -> None:
    """OT 7A6: break the rail line in the unit's hex (marked with a rail line hit marker)."""

    cost = check_break(g, f, action)
    p = g.state.pieces[action["piece"]]
    rec = record(f, p, g)
    rec["spent"] = Fraction(rec["spent"]) + cost
    rec["moved"] = True
    h = units.hex_of(g, p)
    assert h is not None
    set_marker(g, "rail-break", h, True)
    g.emit(
        "rail",
        f"{p.id} breaks the rail line in {g.board.label(h)} ({cost} MP)",
        rule="OT 7A6",
        hex=g.board.label(h),
    )


@implements("OT 7A5a")
def apply_boost(g: Game, action: Action) -> None:
    """OT 7A5a: spend the Res Pts and raise the net's capacity for this player turn; each Res Pt
    spent brings a deterioration check in the next initial phase (OT 7A5g)."""
    f = None
    net, res, gain = check_boost(g, f, action)
    rec = ledger(g, net, action["side"])
    at = units.hex_of(g, res[0]) if res else None
    sid = (
        _section_id(g, action["side"], net, at)
        if (at is not None and g.opt("isolated-rail-sections"))
        else None
    )
    rec["temp"] = Fraction(rec["temp"]) + gain
    if sid is not None:
        rec["temp_by_section"][str(sid)] = Fraction(rec["temp_by_section"].get(str(sid), 0)) + gain
    rec["deterioration_due"] = int(rec.get("deterioration_due", 0)) + len(res)
    rec["temp_sections"] = [*rec.get("temp_sections", []), *([sid] * len(res))]
    spend_res_pts(g, res, "OT 7A5a", f"temporary capacity on {net}")
    g.emit(
        "rail",
        f"{action['side']} raises its capacity on {net} by {gain} RE this player turn",
        rule="OT 7A5a",
        net=net,
    )


@implements("OT 7A5b")
def apply_build(g: Game, action: Action) -> None:
    """OT 7A5b: Res Pts spent on permanent rail capacity."""
    side = action["side"]
    net, res, k = check_build(g, action)
    at = units.hex_of(g, res[0])
    sid = (
        _section_id(g, side, net, at)
        if (at is not None and g.opt("isolated-rail-sections"))
        else None
    )
    spend_res_pts(g, res, "OT 7A5b", f"permanent capacity on {net}")
    rec = ledger(g, net, side)
    rec["builds"] += k
    secs = sections(g, side, net) if sid is not None else []
    if sid is not None and secs and sid != secs[0].id:
        adj = rec.setdefault("orphan_adjust", {})
        adj[str(sid)] = Fraction(adj.get(str(sid), 0)) + k
    _change(g, side, net, Fraction(k), "OT 7A5b", "permanent building")


@implements("OT 7A5d")
def apply_transfer(g: Game, action: Action) -> None:
    """OT 7A5d: rail capacity moved between rail-connected nets (usable next turn)."""
    side = action["side"]
    a, b, amount, res = check_transfer(g, action)
    spend_res_pts(g, res, "OT 7A5d", f"transfer {a} -> {b}")
    ra, rb = ledger(g, a, side), ledger(g, b, side)
    ra["transfers"][b] = Fraction(ra["transfers"].get(b, 0)) + amount
    _change(g, side, a, -amount, "OT 7A5d", f"transfer to {b}")
    rb["pending"] = Fraction(rb["pending"]) + amount
    g.emit(
        "rail",
        f"{amount} RE of capacity moves from {a} to {b} (usable from next turn)",
        rule="OT 7A5d",
    )


@implements("OT 14B1", "OT 14B3")
def transport_allowed(
    g: Game, p: Piece, mode: str, embark: int | None = None, disembark: int | None = None
) -> str | None:
    """Whether a unit may be carried by air (``mode="air"``) or naval transport (``"naval"``):
    zero-movement units by neither (OT 14B3); rail-only units never by air, and by sea only from a
    port to a port on a rail line of the same gauge (OT 14B1). Returns the reason it may not, or
    None.
    """
    if special_units.is_zero_move(p):
        return f"{p.id} has a movement rating of 0 and cannot be transported (OT 14B3)"
    if units.is_rail_only(p):
        if mode == "air":
            return f"{p.id} is rail-only and cannot use air transport (OT 14B1)"
        if mode == "naval" and embark is not None and disembark is not None:
            ports = {int(i) for i, pl in g.board.points.items() for pt in pl if pt.kind == "port"}
            if embark not in ports or disembark not in ports:
                return f"{p.id} is rail-only and embarks and disembarks only at ports (OT 14B1)"
            ln = links(g)
            ga = {lk.gauge for lk in ln.get(embark, [])}
            gb = {lk.gauge for lk in ln.get(disembark, [])}
            if not ga or not (ga & gb):
                return (
                    f"{p.id} is rail-only: both ports must be on rail lines of the same gauge (OT"
                    " 14B1)"
                )
    return None
