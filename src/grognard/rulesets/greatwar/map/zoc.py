"""OT 5: zones of control (5A) and ownership (5B).

ZOCs are computed from the state every time they are needed: they depend on unit size, support,
disruption, supply, movement mode, nation morale and terrain, all of which change in play.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar import listing
from grognard.rulesets.greatwar.combat import siege, support
from grognard.rulesets.greatwar.hooks import reactions
from grognard.rulesets.greatwar.map import geography, terrain
from grognard.rulesets.greatwar.map.weather import is_arctic, is_desert
from grognard.rulesets.greatwar.mechanics import gw, marker, set_marker
from grognard.rulesets.greatwar.supply import supply_status
from grognard.rulesets.greatwar.units import nations, units
from grognard.rulesets.greatwar.units.special_units import movement_tags

if TYPE_CHECKING:
    from grognard.core.game import Game

FULL = "full"
REDUCED = "reduced"
NONE = "none"
NO_ZOC = "no-zoc"  # status: the unit has temporarily lost its ZOC (accel, rail/river movement, ...)
ACCEL = "accel"  # status: used accelerated movement this movement phase (OT 6B3)


@implements("OT 5A")
def zoc_level(g: Game, p: Piece) -> str:
    """OT 5A: ``full``, ``reduced`` or ``none``.

    No ZOC at all: Army, Corps and Art XX HQs (and logistics items); a disrupted unit (OT 3A5);
    a unit that lost it by accelerated, rail or river movement this phase (OT 6B3, 7A, 7C3) or
    whose nation is in collapse (OT 40C). Reduced: an unsupported unit (OT 12A), a unit of a
    shaken nation (OT 40B), a unit out of general supply for two or more turns (OT 11F2). A
    reduced ZOC reduced again is no ZOC (interpretation default: two reasons make none).
    """
    t = units.utype(p)
    if t.zoc == "none" or not units.is_unit(p):
        return NONE
    if units.disruption(p) > 0 or NO_ZOC in p.status or ACCEL in p.status:
        return NONE
    if nations.nation_flag(g, p.nation, "collapse"):
        return NONE
    reductions = 0
    if not support.is_supported(g, p):
        reductions += 1
    if nations.nation_flag(g, p.nation, "shaken"):
        reductions += 1
    if supply_status.turns_out_of_supply(g, p) >= 2:
        reductions += 1
    if reductions == 0:
        return FULL
    if reductions == 1:
        return REDUCED
    return NONE


@implements("OT 5A")
def projects_beyond_own_hex(p: Piece) -> str:
    """OT 5A: whether a unit's ZOC can reach adjacent hexes: ``all``, ``arctic-desert`` or ``no``.

    Only non-artillery units with a printed combat strength above 0: divisional units without the
    unsupported indicator into every adjacent hex; unsupported-indicator divisions, brigades,
    brigade groupings, regiments, regimental groupings and cadres only into adjacent hexes in
    weather zones A, F and G. Battalions, battalion groupings, remnants never.
    """
    if (
        units.is_artillery(p)
        or units.utype(p).zoc != "standard"
        or units.printed_combat_strength(p) <= 0
    ):
        return "no"
    size = units.size_of(p)
    if units.is_divisional(p):
        return "arctic-desert" if units.support_indicator(p) == "unsupported" else "all"
    if size in ("brigade", "brigade-grouping", "regiment", "regimental-grouping", "cadre"):
        return "arctic-desert"
    return "no"


@implements("OT 5A")
def zoc_hexes(g: Game, p: Piece) -> list[int]:
    """OT 5A: the hexes a unit exerts its ZOC in: its own hex, and adjacent hexes as its size
    allows, except hexes it may not enter or that lie across a hexside it may not cross."""
    if zoc_level(g, p) == NONE:
        return []
    h = units.hex_of(g, p)
    if h is None:
        return []
    out = [h]

    if siege.zoc_only_own_hex(g, p):
        return out  # OT 15G (a)
    reach = projects_beyond_own_hex(p)
    if reach == "no":
        return out

    tags = movement_tags(g, p)
    for j in g.board.neighbors(h):
        if reach == "arctic-desert" and not (is_arctic(g, j) or is_desert(g, j)):
            continue
        if terrain.hex_entry_cost(g, p, j, tags) is None:
            continue
        if terrain.hexside_cost(g, p, g.board.side_between(h, j), j, tags) is None:
            continue
        out.append(j)
    return out


@implements("OT 5A")
def zoc_map(g: Game, side: str, exclude: set[str] | None = None) -> dict[int, str]:
    """OT 5A: every hex in the ZOC of ``side``'s units, with the strongest level exerted there."""
    key = _signature(g, side, exclude)
    hit = g.cache.keyed("gw:zoc-map", key, lambda: dict(_zoc_map(g, side, exclude)), limit=256)
    return dict(hit)


def zoc_signature(g: Game, side: str) -> tuple[object, ...]:
    """What :func:`zoc_map` of ``side`` (nothing excluded) depends on: equal signatures, equal
    maps."""
    return _signature(g, side, None)


def _signature(g: Game, side: str, exclude: set[str] | None) -> tuple[object, ...]:
    """Everything a side's ZOCs depend on (positions, faces, statuses, supply, turn, nation
    flags)."""

    state = g.state

    def pieces_part() -> frozenset[tuple[object, ...]]:
        return frozenset(
            (p.id, p.loc, p.face, frozenset(p.status), p.attrs.get("supply_out_since"))
            for p in state.pieces.values()
            if p.side == side
        )

    # the pieces' part, kept while no piece changes
    ps = g.cache.tracked(state, ("gw:zoc-pieces", side), (("pieces",),), pieces_part)
    st = gw(g)
    return (
        side,
        ps,
        frozenset(exclude or ()),
        g.state.turn.get("index"),
        st.get("phasing"),
        repr(st.get("nation_flags")),
        tuple(sorted((g.scenario.table_overrides or {}).items())),
    )


def _zoc_map(g: Game, side: str, exclude: set[str] | None) -> dict[int, str]:
    out: dict[int, str] = {}
    for p, lvl, hexes in unit_zocs(g, side):
        if exclude and p.id in exclude:
            continue
        if lvl == NONE:
            continue
        for j in hexes:
            if out.get(j) != FULL:
                out[j] = lvl
    return out


def unit_zocs(g: Game, side: str) -> list[tuple[Piece, str, tuple[int, ...]]]:
    """Each on-map unit of ``side`` with its ZOC level and ZOC hexes (OT 5A).

    A unit's ZOC depends on the unit, the units stacked with it (support), the turn (weather,
    supply turns), nation flags and a siege of its hex: the answer is memoised on those."""

    table = listing.memo(g, "unit-zoc")
    st = gw(g)
    base = (g.state.turn.get("index"), st.get("phasing"), repr(st.get("nation_flags")))
    state = g.state
    sieges: dict[int, str] = {}
    stacks: dict[int, tuple[object, ...]] = {}
    out = []

    def answer(p: Piece, h: int | None) -> tuple[str, tuple[int, ...]]:
        # by content, shared with the clones (the same unit, stack, siege and turn in another
        # position give the same answer)
        if h is not None and h not in stacks:
            stacks[h] = (
                tuple(listing.piece_signature(q) for q in units.pieces_in_hex(g, h)),
                sieges[h],
            )
        key = (listing.piece_signature(p), h, None if h is None else stacks[h], base)
        hit = table.get(key)
        if hit is None:
            lvl = zoc_level(g, p)
            hit = (lvl, tuple(zoc_hexes(g, p)) if lvl != NONE else ())
            table[key] = hit
        return hit

    for p in units.on_map_units(g, side):
        h = units.hex_of(g, p)
        if h is None:
            hit = answer(p, h)
        else:
            sg = sieges.get(h)
            if sg is None:
                sg = sieges[h] = repr(siege.siege_at(g, h))
            # first while nothing changed in the unit's hex (the unit, the units stacked with it)
            # for the same siege there, turn, phasing side and nation flags
            hit = g.cache.tracked(
                state,
                ("gw:unit-zoc", p.id, h, sg, base),
                (("hex", h),),
                lambda p=p, h=h: answer(p, h),  # type: ignore[misc]
            )
        out.append((p, hit[0], hit[1]))
    return out


def cached_zoc_map(g: Game, side: str) -> dict[int, str]:
    """:func:`zoc_map` memoised for the current position (use only where the state does not
    change)."""
    return g.cached(f"gw:zoc:{side}", lambda: zoc_map(g, side))


def has_zoc_in_own_hex(g: Game, p: Piece) -> bool:
    return zoc_level(g, p) != NONE and units.hex_of(g, p) is not None


# ----------------------------------------------------------------------------- ownership (OT 5B)
@implements("OT 5B")
def ownership_gains(g: Game) -> dict[int, str]:
    """OT 5B: hexes whose ownership changes now, and the new owner.

    A side gains a land hex if one of its units with a ZOC occupies it (whatever enemy ZOCs are
    there), or if one of its units exerts a ZOC there that no enemy unit contests. An enemy-owned
    city (OT 3E2: cities, fortresses, resource centers) is gained only by occupation. Contested
    hexes (OT 9J) change hands only by that rule.
    """
    sides = list(g.state.sides)
    maps: dict[str, dict[int, str]] = {}
    occupying: dict[int, set[str]] = {}
    for s in sides:
        m: dict[int, str] = {}  # the side's zoc_map, from the same per-unit answers
        for p, lvl, zhexes in unit_zocs(g, s):
            if lvl != NONE:
                h = units.hex_of(g, p)
                if h is not None:
                    occupying.setdefault(h, set()).add(s)
                for j in zhexes:
                    if m.get(j) != FULL:
                        m[j] = lvl
        maps[s] = m
    hexes = set(occupying)
    for m in maps.values():
        hexes |= set(m)
    changes: dict[int, str] = {}
    control = g.state.control
    for i in sorted(hexes):
        owner = control.get(i)
        # the side that would gain the hex, if any (most hexes stay with their owner: the
        # terrain, contested and siege conditions are read only for a gain)
        occ = occupying.get(i)
        new: str | None = None
        if occ:
            if len(occ) == 1:
                new = next(iter(occ))
        else:
            exerting = [s for s in sides if i in maps[s]]
            if len(exerting) == 1:
                new = exerting[0]
                if (
                    owner is not None
                    and owner != new
                    and not owner.startswith("neutral:")
                    and geography.is_city(g, i)
                ):
                    new = None  # OT 3E2: an enemy city is gained only by occupation
        if new is None or new == owner:
            continue
        if owner is not None and owner.startswith("neutral:"):
            continue  # a neutral's hexes change hands only when it is attacked (OT 3B3)
        if not terrain.is_land(g, i) or marker(g, "contested", i) or _under_siege(g, i):
            continue
        changes[i] = new
    return changes


@implements("OT 5B")
def update_ownership(g: Game) -> list[tuple[int, str | None, str]]:
    """OT 5B: apply every ownership gain at once (ownership changes immediately, for all
    purposes)."""
    done = []
    for i, new in ownership_gains(g).items():
        old = g.state.control.get(i)
        g.state.control[i] = new
        on_ownership_change(g, i, old, new)
        done.append((i, old, new))
    reactions(g).ownership_updated(g)
    return done


@implements("OT 5B")
def on_ownership_change(g: Game, i: int, old: str | None, new: str) -> None:
    """OT 5B: what a change of ownership sets off -- the history of owners (OT 11C2a), obstructed
    rail lines (OT 7A7), rail yard and depot capture (OT 7A5f), bridge ownership (OT 15A1)."""
    hist = gw(g).setdefault("ever_owned", {})
    lst = hist.setdefault(str(i), [])
    if new not in lst:
        lst.append(new)
    g.emit(
        "ownership",
        f"{new} gains {g.board.label(i)}" + (f" from {old}" if old else ""),
        rule="OT 5B",
        hex=g.board.label(i),
        old=old,
        new=new,
    )
    if old in g.state.sides and old != new:
        reactions(g).hex_captured(g, i, old, new)
    for j in g.board.neighbors(i):
        s = g.board.side_between(i, j)
        both = g.state.control.get(i) == new and g.state.control.get(j) == new
        if both and terrain.bridge_features(g, s) and terrain.road_link(g, s):
            set_marker(g, "bridge-owner", s, new)
    reactions(g).owner_changed(g, i, old, new)


def _under_siege(g: Game, i: int) -> bool:
    """OT 15G (e): a siege has no effect on the ownership of the besieged hex."""

    return siege.ownership_frozen(g, i)
