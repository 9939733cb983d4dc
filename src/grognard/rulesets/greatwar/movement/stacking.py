"""OT 8: stacking -- limits by terrain, exempt units, when the limit is enforced, Corps HQs boxes
and (advanced) overstacking.

A stack is legal when every counted unit can be given a place: one of the unit slots, the pool
of non-divisional REs (non-divisional units only), the artillery allowance (artillery units
only) or the fortress slot (one fortress unit). Stacks are small, so the check tries the few
ways of using the fortress slot and the artillery allowance and fills the non-divisional pool
with the smallest units first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar import listing
from grognard.rulesets.greatwar.charts import StackLimit, load_charts
from grognard.rulesets.greatwar.map import terrain
from grognard.rulesets.greatwar.map.weather import is_arctic, is_desert
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.units import special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game

OVERSTACKED = units.OVERSTACKED  # status (OT 8C2)


@implements("OT 8A4", "OT 14B")
def exempt(g: Game, p: Piece) -> bool:
    """OT 8A4: units that never count against stacking -- restricted-movement units (rail-only,
    water-only and zero-movement units, OT 14B), Army HQs, Corps HQs, transport units, leaders,
    elite brigades; logistics items do not count either (OT 11H)."""
    t = units.utype(p)
    if t.stacking == "exempt" or t.logistics or t.naval:
        return True
    mv = units.printed_move(p)
    if mv in ("R", "W"):
        return True
    return mv == 0 and g.opt("zero-movement-stacking-exempt")


@implements("OT 8A1", "OT 8A2", "OT 8A3")
def limit_for(g: Game, i: int) -> StackLimit:
    """OT 8A: the stacking limit of a hex -- Arctic/Desert (weather zones A, F, G, mountain hexes
    there included), mountain hexes elsewhere, or the regular limit."""
    fl = g.state.markers.get("flooded")
    if fl and str(i) in fl:  # OT 15A6: the terrain of a flooded hex depends on the player turn
        return _limit_for(g, i)
    # otherwise the scenario's charts, the weather zone and the printed terrain: fixed per hex
    return g.cache.keyed("gw:stack-limit", i, lambda: _limit_for(g, i))


def _limit_for(g: Game, i: int) -> StackLimit:
    """OT 8A: :func:`limit_for` computed."""
    lim = load_charts(g.scenario.table_overrides).stacking
    if is_arctic(g, i) or is_desert(g, i):
        return lim["arctic-desert"]
    if terrain.terrain(g, i) == "mountain":
        return lim["mountain"]
    return lim["regular"]


def _is_art_division(p: Piece) -> bool:
    t = units.utype(p)
    return units.is_artillery(p) and (units.is_divisional(p) or "art-xx-hq" in t.tags)


@implements("OT 8A1")
def fits(g: Game, pieces: Iterable[Piece], lim: StackLimit) -> bool:
    """OT 8A1: can these units stack in a hex with limit ``lim`` (exempt units ignored)?"""
    counted = [p for p in pieces if not exempt(g, p)]
    if len(counted) <= lim.units:
        return True
    forts = [p for p in counted if "fortress" in units.utype(p).tags]
    fort_choices: list[tuple[Piece, ...]] = [()]
    for k in range(1, min(lim.fortress, len(forts)) + 1):
        fort_choices.extend(combinations(forts, k))
    for fc in fort_choices:
        ids = {p.id for p in fc}
        rest = [p for p in counted if p.id not in ids]
        art_divs = [p for p in rest if _is_art_division(p)]
        art_small = [p for p in rest if units.is_artillery(p) and not _is_art_division(p)]
        for ndiv, re_cap in lim.artillery:
            used_divs = {p.id for p in art_divs[:ndiv]}
            for chosen in _subsets_within(g, art_small, re_cap):
                gone = used_divs | chosen
                left = [p for p in rest if p.id not in gone]
                if _fills(g, left, lim):
                    return True
    return False


def _subsets_within(g: Game, ps: Sequence[Piece], cap: Fraction) -> Iterable[set[str]]:
    if len(ps) > 12:
        acc, total = set(), Fraction(0)
        for p in sorted(ps, key=lambda q: (units.re_size(g, q), q.id)):
            if total + units.re_size(g, p) <= cap:
                acc.add(p.id)
                total += units.re_size(g, p)
        yield acc
        return
    for k in range(len(ps), -1, -1):
        for combo in combinations(ps, k):
            if sum((units.re_size(g, p) for p in combo), Fraction(0)) <= cap:
                yield {p.id for p in combo}


def _fills(g: Game, left: Sequence[Piece], lim: StackLimit) -> bool:
    divisional = [p for p in left if not units.is_non_divisional(p)]
    small = sorted(units.re_size(g, p) for p in left if units.is_non_divisional(p))
    pool = Fraction(0)
    placed = 0
    for re in small:
        if pool + re <= lim.non_divisional_re:
            pool += re
            placed += 1
        else:
            break
    return len(divisional) + (len(small) - placed) <= lim.units


def normal_stack(g: Game, i: int, side: str) -> list[Piece]:
    """The units of ``side`` in hex ``i`` that count as normally stacked (not in an overstack)."""
    return [p for p in units.units_in_hex(g, i, side) if OVERSTACKED not in p.status]


def stack_problem(
    g: Game, i: int, side: str, extra: Sequence[Piece] = (), without: set[str] | None = None
) -> str | None:
    """OT 8A: a message if ``side``'s normal stack in hex ``i`` (plus ``extra``, minus ``without``)
    is over the limit."""
    without = without or set()
    ps = [p for p in normal_stack(g, i, side) if p.id not in without]
    ids = {p.id for p in ps}
    ps += [p for p in extra if p.id not in ids]
    lim = limit_for(g, i)
    if len(ps) <= lim.units or fits(g, ps, lim):  # no more units than the limit: they fit
        return None
    return f"{side} stack in {g.board.label(i)} is over the {limit_for(g, i).name} stacking limit"


def has_corps_hq(g: Game, i: int, side: str, among: Sequence[Piece] = ()) -> bool:
    return any(special_units.is_corps_hq(p) for p in [*units.units_in_hex(g, i, side), *among])


@implements("OT 8B")
def move_stacking_problem(g: Game, movers: Sequence[Piece], dest: int) -> str | None:
    """OT 8B: a unit may not end a move in violation of the stacking limit (checked when the move
    ends, so the limit holds at the end of the phase). With overstacking (OT 8C2), a hex holding a
    friendly Corps HQs can take the excess in an overstack."""
    side = movers[0].side
    moving = [p for p in movers if not exempt(g, p)]
    ids = {p.id for p in movers}
    problem = stack_problem(g, dest, side, extra=moving, without=ids)
    if problem is None:
        return None
    if g.opt("overstacking") and has_corps_hq(g, dest, side, movers):
        return None
    return problem


def cached_move_stacking_problem(g: Game, movers: Sequence[Piece], dest: int) -> str | None:
    """:func:`move_stacking_problem`, kept across actions while legal actions are listed
    (:func:`.listing.tracked`): it reads the movers, the pieces and owner of ``dest`` (its hex
    resource) and the world (options, weather and terrain of the limit)."""
    if not listing.listing_now(g):
        return move_stacking_problem(g, movers, dest)
    return listing.tracked(
        g,
        ("gw:move-stack", tuple(p.id for p in movers), dest, listing.world_token(g)),
        (("hex", dest), *(("piece", p.id) for p in movers)),
        lambda: move_stacking_problem(g, movers, dest),
    )


@implements("OT 8C2")
def departure_problem(g: Game, movers: Sequence[Piece], start: int) -> str | None:
    """OT 8C2: an overstack exists only under a Corps HQs in its hex, so the last Corps HQs may not
    leave a hex where units of its side stay overstacked."""
    if not movers or not any(special_units.is_corps_hq(p) for p in movers):
        return None
    side = movers[0].side
    ids = {p.id for p in movers}
    staying = [q for q in units.units_in_hex(g, start, side) if q.id not in ids]
    if any(OVERSTACKED in q.status for q in staying) and not any(
        special_units.is_corps_hq(q) for q in staying
    ):
        return f"the overstack in {g.board.label(start)} would be left without a Corps HQs (OT 8C2)"
    return None


@implements("OT 8C2")
def after_arrival(g: Game, movers: Sequence[Piece], dest: int) -> None:
    """OT 8C2: units arriving in a hex with a friendly Corps HQs beyond the normal limit must go
    into the overstack (the arriving units are the ones placed there)."""
    if not movers:
        return
    side = movers[0].side
    if stack_problem(g, dest, side) is None:
        return
    if g.opt("overstacking") and has_corps_hq(g, dest, side):
        for p in movers:
            if not exempt(g, p) and stack_problem(g, dest, side) is not None:
                p.status.add(OVERSTACKED)
                p.attrs["overstacked_since"] = _phase_tag(g)
                g.emit(
                    "overstack",
                    f"{p.id} enters the overstack in {g.board.label(dest)}",
                    rule="OT 8C2",
                    piece=p.id,
                )


def _phase_tag(g: Game) -> str:
    return f"{g.state.turn.get('index', 0)}:{gw(g).get('phasing', '')}:{gw(g).get('phase', '')}"


@implements("OT 8B")
def violations(g: Game, side: str | None = None) -> list[str]:
    """OT 8B: every hex whose normal stack is over the limit, and every overstack without a Corps
    HQs."""
    out = []
    occupied: dict[int, set[str]] = {}
    for p in units.on_map_units(g):
        h = units.hex_of(g, p)
        if h is not None and (side is None or p.side == side):
            occupied.setdefault(h, set()).add(p.side)
    for i in sorted(occupied):
        for s in sorted(occupied[i]):
            msg = stack_problem(g, i, s)
            if msg:
                out.append(msg)
            if any(
                OVERSTACKED in p.status for p in units.units_in_hex(g, i, s)
            ) and not has_corps_hq(g, i, s):
                out.append(f"{s} overstack in {g.board.label(i)} has no Corps HQs (OT 8C2)")
    return out


@implements("OT 8B")
def record_phase_end(g: Game, phase: str) -> None:
    """OT 8B: the stacking limit is in force at the end of each movement, combat, reaction
    movement, reaction combat and exploitation phase, and of each reserve commitment step."""
    bad = violations(g)
    store = gw(g).setdefault("stacking_violations", [])
    for b in bad:
        store.append(f"end of {phase}: {b}")
    if bad:
        g.emit(
            "stacking", f"stacking limit violated at the end of the {phase}: {bad[0]}", rule="OT 8B"
        )


@implements("OT 8B")
def attack_stack_ok(g: Game, attackers_from_one_hex: Sequence[Piece], target: int) -> bool:
    """OT 8B: the stacking limit of the target hex caps the units that may overrun, attack or
    bombard it from each adjacent hex."""
    return fits(g, attackers_from_one_hex, limit_for(g, target))


@implements("OT 8C2")
def combat_supply_re(g: Game, p: Piece) -> Fraction:
    """OT 8C2 (with OT 11D): the REs a unit counts for combat supply -- artillery at twice its RE
    size (OT 11D), and overstacked units at twice that again (OT 8C2)."""
    re = units.re_size(g, p) * (2 if units.is_artillery(p) else 1)
    return re * 2 if OVERSTACKED in p.status else re


@implements("OT 8C2")
def overstack_attack_factor(p: Piece) -> Fraction:
    """OT 8C2: units attacking or bombarding out of an overstack: artillery halved, others
    quartered."""
    return Fraction(1, 2) if units.is_artillery(p) else Fraction(1, 4)


# ----------------------------------------------------------------------------- Corps HQs (OT 8C)
def _corps(g: Game, pid: object, side: str, rule: str) -> Piece:
    p = g.state.pieces.get(pid) if isinstance(pid, str) else None
    if p is None or p.side != side or not special_units.is_corps_hq(p):
        raise IllegalAction(rule, f"{pid!r} is not a Corps HQs of {side}")
    return p


def _overstacking_in_use(g: Game) -> None:
    if not g.opt("overstacking"):
        raise IllegalAction("OT 8C2", "overstacking is an advanced rule not in use in this game")


@implements("OT 8C1")
def check_corps_assign(g: Game, f: Frame, action: Action) -> None:
    """OT 8C1: units may be placed in the box of a Corps HQs in their hex at any time (they count
    as being in its hex)."""
    side = action["side"]
    c = _corps(g, action.get("corps"), side, "OT 8C1")
    p = g.state.pieces.get(action.get("piece", ""))
    if (
        p is None
        or p.side != side
        or not units.is_unit(p)
        or special_units.is_corps_hq(p)
        or special_units.is_army_hq(p)
    ):
        raise IllegalAction("OT 8C1", f"{action.get('piece')!r} cannot go into a Corps HQs box")
    if units.hex_of(g, p) != units.hex_of(g, c) or p.loc.kind != "hex":
        raise IllegalAction("OT 8C1", f"{p.id} must be on the map in the hex of {c.id}")


@implements("OT 8C1")
def check_corps_remove(g: Game, f: Frame, action: Action) -> None:
    """OT 8C1: units may be taken out of a Corps HQs box at any time."""
    p = g.state.pieces.get(action.get("piece", ""))
    if p is None or p.side != action["side"] or p.loc.kind != "piece":
        raise IllegalAction("OT 8C1", f"{action.get('piece')!r} is not in a Corps HQs box")


@implements("OT 8C2")
def check_overstack(g: Game, f: Frame, action: Action) -> None:
    """OT 8C2 (advanced): establishing or joining an overstack needs a friendly Corps HQs in the
    hex."""
    _overstacking_in_use(g)
    side = action["side"]
    ids = action.get("pieces")
    if not isinstance(ids, list) or not ids:
        raise IllegalAction("OT 8C2", "name the units to overstack in 'pieces'")
    for pid in ids:
        p = g.state.pieces.get(pid) if isinstance(pid, str) else None
        if p is None or p.side != side or not units.is_unit(p):
            raise IllegalAction("OT 8C2", f"{side} has no unit {pid!r}")
        h = units.hex_of(g, p)
        if h is None or not has_corps_hq(g, h, side):
            raise IllegalAction("OT 8C2", f"{p.id} is not in a hex with a friendly Corps HQs")
        if OVERSTACKED in p.status:
            raise IllegalAction("OT 8C2", f"{p.id} is already overstacked")


def apply_corps_assign(g: Game, f: Frame, action: Action) -> None:
    g.state.move(action["piece"], Loc.inside(action["corps"]))
    g.emit("corps", f"{action['piece']} goes into the box of {action['corps']}", rule="OT 8C1")


def apply_corps_remove(g: Game, f: Frame, action: Action) -> None:
    p = g.state.pieces[action["piece"]]
    h = units.hex_of(g, p)
    assert h is not None
    g.state.move(p.id, Loc.hex(h))
    g.emit("corps", f"{p.id} leaves its Corps HQs box", rule="OT 8C1")


def apply_overstack(g: Game, f: Frame, action: Action) -> None:
    for pid in action["pieces"]:
        p = g.state.pieces[pid]
        p.status.add(OVERSTACKED)
        p.attrs["overstacked_since"] = _phase_tag(g)
        g.emit("overstack", f"{pid} joins the overstack", rule="OT 8C2", piece=pid)


def overstack_leave_cost(g: Game, p: Piece) -> Fraction:
    """OT 8C2: 1 MP to leave an overstack, 2 if it attacked from it in the last combat phase;
    stacking-exempt units leave free."""
    if OVERSTACKED not in p.status or exempt(g, p):
        return Fraction(0)
    return Fraction(2) if p.attrs.get("attacked_from_overstack") else Fraction(1)
