"""OT 9F: movement after combat -- retreats (9F2), advances (9F3), multiple-hex retreats and
advances
(9F4) and overruns during them (9F5). Declarations (9F1) are made by the combat procedure
(:mod:`.combat`) before it pushes the steps here.

Retreat options are ranked with :func:`grognard.search.retreat.retreat_paths`: one hex at a time,
each step farther from the hex the retreat started from (interpretation default), never into
prohibited terrain, a neutral's hex, a hex outside the side's commands (OT 3F) or an enemy-occupied
hex unless the retreating units can overrun it (OT 9F5). The score is the OT 9F2 priority (1: no
enemy ZOC and within stacking; 2: no enemy ZOC but over the limit, the unit keeps retreating; 3: in
an enemy ZOC, the unit is reduced to its cadre or eliminated), then the distance to the nearest
friendly supply depot, then whether that depot is operational. The owner chooses among the equally
best hexes; a unit with a single best hex moves by itself, a unit with none is totally eliminated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar.combat import combat_hexes, combat_hooks, combat_strength
from grognard.rulesets.greatwar.combat.combat_strength import is_hq, long_range
from grognard.rulesets.greatwar.combat.losses import (
    cadre_face,
    combat_frame,
    eliminate_in_combat,
)
from grognard.rulesets.greatwar.map import terrain, zoc
from grognard.rulesets.greatwar.mechanics import marker, table_roll
from grognard.rulesets.greatwar.movement import stacking
from grognard.rulesets.greatwar.step import GWStep
from grognard.rulesets.greatwar.units import nations, special_units, units
from grognard.search.retreat import retreat_paths

if TYPE_CHECKING:
    from grognard.core.game import Game

TIER_CLEAR, TIER_OVER, TIER_ZOC = 1, 2, 3


@dataclass(frozen=True)
class RetreatOption:
    """A hex a unit may retreat into next, with its OT 9F2 priority and depot tie-break."""

    to: int
    tier: int
    depot: tuple[int, int]
    overrun: bool = False

    @property
    def score(self) -> tuple[int, int, int]:
        return (self.tier, *self.depot)


@implements("OT 9F2")
def ignores_zoc_on_retreat(p: Piece) -> bool:
    """OT 9F2: non-artillery units with printed attack 8+ (judged after losses, before the retreat)
    and units with printed MA 6, 7 or 8 may ignore enemy ZOCs retreating into a
    friendly-occupied/owned hex (:func:`friendly_occupied_owned`)."""
    ma = units.printed_ma_number(p)
    return (not units.is_artillery(p) and units.printed_attack(p) >= 8) or ma in (6, 7, 8)


@implements("OT 9F2")
def friendly_occupied_owned(g: Game, side: str, j: int) -> bool:
    """OT 9F2: hex ``j`` is friendly-occupied/owned for ``side`` -- owned by the side *and*
    holding one of its units (the compound form Rule 6 defines for "enemy-occupied/owned"). Only
    such a hex lets the units of :func:`ignores_zoc_on_retreat` disregard an enemy ZOC; an empty
    friendly-owned hex or a friendly-occupied hex the side does not own does not."""
    return g.state.control.get(j) == side and bool(units.units_in_hex(g, j, side))


def _depots(g: Game, side: str) -> list[tuple[int, bool]]:
    return combat_hooks.depots(g, side)


@implements("OT 9F2")
def depot_score(
    g: Game, side: str, j: int, depots: Sequence[tuple[int, bool]] | None = None
) -> tuple[int, int]:
    """OT 9F2 tie-break: (distance to the nearest friendly supply depot, 0 if one of the nearest is
    operational else 1); (0, 0) when the side has no depots (the owner then chooses)."""
    ds = _depots(g, side) if depots is None else depots
    if not ds:
        return (0, 0)
    best = min(g.board.distance(j, h) for h, _ in ds)
    op = any(ok for h, ok in ds if g.board.distance(j, h) == best)
    return (best, 0 if op else 1)


def _can_overrun(g: Game, group: Sequence[Piece], j: int, enemy: str, ez: dict[int, str]) -> bool:
    """OT 9F5: the retreating units (after the ZOC effect of the hex, OT 9F2) overrun hex ``j``."""

    defenders = units.units_in_hex(g, j, enemy)
    if not defenders:
        return False
    saved: dict[str, str] = {}
    try:
        movers = []
        for p in group:
            if j in ez and not (
                ignores_zoc_on_retreat(p) and friendly_occupied_owned(g, p.side, j)
            ):
                face = cadre_face(p)
                if face is None:
                    continue  # eliminated by the ZOC: adds nothing
                saved[p.id] = p.face
                p.face = face
            movers.append(p)
        if not movers:
            return False
        _, _, final = combat_strength.overrun_odds(g, movers, defenders, j)
        return final >= combat_strength.REQUIRED_ODDS
    finally:
        for pid, face in saved.items():
            g.state.pieces[pid].face = face


@implements("OT 9F2", "OT 9F5", "OT 9J")
def retreat_options(
    g: Game,
    p: Piece,
    origin: int,
    here: int,
    avoid: Sequence[int] = (),
    group: Sequence[Piece] | None = None,
    best_only: bool = True,
) -> list[RetreatOption]:
    """The hexes ``p`` may retreat into from ``here`` (the best ones by OT 9F2 unless
    ``best_only`` is False), moving away from ``origin``. ``group``: units retreating together into
    the same hex (for the overrun of OT 9F5)."""
    side = p.side
    enemy = nations.other_side(side)
    ez = zoc.zoc_map(g, enemy)
    tags = special_units.movement_tags(g, p)
    movers = list(group) if group else [p]
    depots = _depots(g, side)
    d0 = g.board.distance(origin, here)
    banned = set(avoid)
    info: dict[int, RetreatOption] = {}

    def can_enter(path: tuple[int, ...], j: int) -> bool:
        if j in banned or g.board.distance(origin, j) <= d0:
            return False
        if terrain.hex_entry_cost(g, p, j, tags) is None:
            return False
        if terrain.hexside_cost(g, p, g.board.side_between(here, j), j, tags) is None:
            return False
        if (
            not nations.may_enter_command(g, side, j)
            or nations.neutral_nation_of_hex(g, j) is not None
        ):
            return False
        if combat_hooks.retreat_problem(g, p, here, j):
            return False
        over_run = False
        if units.units_in_hex(g, j, enemy):
            if not _can_overrun(g, movers, j, enemy, ez):
                return False
            over_run = True
        in_zoc = j in ez and not (ignores_zoc_on_retreat(p) and friendly_occupied_owned(g, side, j))
        over = (
            stacking.stack_problem(
                g, j, side, extra=[q for q in movers if not stacking.exempt(g, q)]
            )
            is not None
        )
        if over and g.opt("overstacking") and stacking.has_corps_hq(g, j, side):
            over = False
        tier = TIER_ZOC if in_zoc else (TIER_OVER if over else TIER_CLEAR)
        info[j] = RetreatOption(j, tier, depot_score(g, side, j, depots), over_run)
        return True

    res = retreat_paths(
        g.board.nbr, here, 1, can_enter=can_enter, score=lambda path: info[path[-1]].score
    )
    paths = res.best if best_only else res.paths
    return [info[path[-1]] for path in paths]


def _unload_corps(g: Game, p: Piece) -> None:
    """Before a unit leaves its hex after combat: it leaves any overstack there (OT 8C2; it may
    join one where it arrives), and the units in a Corps HQs box stay in the hex when the HQs
    itself retreats or advances (OT 8C1)."""
    p.status.discard(stacking.OVERSTACKED)
    p.attrs.pop("overstacked_since", None)
    h = units.hex_of(g, p)
    if h is None or not special_units.is_corps_hq(p):
        return
    for q in list(g.state.contents(p.id)):
        g.state.move(q.id, Loc.hex(h))


def _crossing(g: Game, p: Piece, here: int, j: int, rule: str) -> None:
    """OT 15A4: crossing an unfrozen unfordable major river (not at a bridge) disrupts."""
    s = g.board.side_between(here, j)
    if terrain.crossing_disrupts(g, s, j, terrain.road_step_usable(g, p.side, s)):
        units.disrupt(g, p, rule="OT 15A4", reason="crossed an unfordable major river")


def segment_frame(g: Game) -> Frame | None:
    for f in reversed(g.state.frames):
        if f.step == "combat-segment":
            return f
    return None


def note_retreated(g: Game, pid: str) -> None:
    """OT 9F2: remember units that retreated this phase (they add nothing if attacked again)."""
    sf = segment_frame(g)
    if sf is not None:
        lst = sf.params.setdefault("retreated_in", [])
        if pid not in lst:
            lst.append(pid)


@implements("OT 9F2")
def reduce_in_zoc(g: Game, p: Piece) -> None:
    """OT 9F2: a unit that retreats into an enemy ZOC is reduced to its cadre or remnant, or
    eliminated if it has none (or already is one)."""
    if cadre_face(p) is not None:
        eliminate_in_combat(g, p, "OT 9F2", "retreated into an enemy ZOC")
    else:
        units.eliminate(g, p, "OT 9F2", "retreated into an enemy ZOC")


def retreat_params(
    side: str, entries: Sequence[dict[str, Any]], rule: str = "OT 9F2"
) -> dict[str, Any]:
    """Frame params of a ``combat-retreat`` step; each entry: ``piece``, ``origin``, ``at`` (hex
    labels), optional ``avoid`` (labels)."""
    return {"side": side, "rule": rule, "queue": [dict(e) for e in entries]}


@implements("OT 9F2", "OT 9F5", "OT 8B")
class CombatRetreat(GWStep):
    """OT 9F2: the owner retreats each unit one hex by the priorities (see the module docstring); a
    unit over the stacking limit keeps retreating until it is within it or is eliminated (OT 8B;
    with overstacking it may join an overstack, OT 8C2); a unit entering an enemy ZOC is reduced;
    units may retreat together into an enemy-occupied hex they can overrun (OT 9F5)."""

    name = "combat-retreat"
    title = "Retreat after combat"
    rule = "OT 9F2"

    def label(self, g: Game, f: Frame) -> str:
        return f"Retreat after combat ({f.params['side']})"

    def enter(self, g: Game, f: Frame) -> None:
        f.params["queue"] = sorted(
            f.params["queue"], key=lambda e: (is_hq(g.state.pieces[e["piece"]]), e["piece"])
        )
        self._auto(g, f)

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [] if f.done or not f.params["queue"] else [f.params["side"]]

    def run(self, g: Game, f: Frame) -> None:
        self._auto(g, f)
        if not f.done:
            g.finish(f)

    def _entry(self, f: Frame, pid: str) -> dict[str, Any] | None:
        for e in f.params["queue"]:
            if e["piece"] == pid:
                return e
        return None

    def _options(
        self, g: Game, e: dict[str, Any], group: Sequence[Piece] | None = None
    ) -> list[RetreatOption]:
        p = g.state.pieces[e["piece"]]
        return retreat_options(
            g,
            p,
            g.board.idx(e["origin"]),
            g.board.idx(e["at"]),
            [g.board.idx(a) for a in e.get("avoid", [])],
            group,
        )

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = []
        for e in f.params["queue"]:
            for o in self._options(g, e):
                out.append(
                    {
                        "type": "retreat",
                        "side": side,
                        "piece": e["piece"],
                        "to": g.board.label(o.to),
                    }
                )
        return out

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction("OT 9F2", "the retreat after combat must be finished first")

    @handles.check("retreat")
    def check_retreat(self, g: Game, f: Frame, action: Action) -> None:
        """OT 9F2: a retreat into one of the best retreat hexes by the priorities."""
        ids = action.get("pieces") if "pieces" in action else [action.get("piece")]
        if not isinstance(ids, list) or not ids:
            raise IllegalAction("OT 9F2", "name the retreating unit ('piece') or units ('pieces')")
        entries = [self._entry(f, pid) for pid in ids]
        if any(e is None for e in entries):
            raise IllegalAction("OT 9F2", f"not every unit of {ids} has a retreat to make")
        if len({e["at"] for e in entries}) != 1:  # type: ignore[index]
            raise IllegalAction("OT 9F2", "units retreating together must start from the same hex")
        to = action.get("to")
        if not isinstance(to, str) or not g.board.has_label(to):
            raise IllegalAction("OT 9F2", f"no hex {to!r} on the map")
        group = [g.state.pieces[pid] for pid in ids]
        for e in entries:
            opts = {o.to for o in self._options(g, e, group if len(group) > 1 else None)}  # type: ignore[arg-type]
            if g.board.idx(to) not in opts:
                allowed = ", ".join(sorted(g.board.label(x) for x in opts)) or "none"
                raise IllegalAction(
                    "OT 9F2",
                    f"{e['piece']} may not retreat into {to} (its best retreat hexes: {allowed})",  # type: ignore[index]
                )

    @handles.apply("retreat")
    def apply_retreat(self, g: Game, f: Frame, action: Action) -> None:
        ids = action.get("pieces") if "pieces" in action else [action["piece"]]
        group = [g.state.pieces[pid] for pid in ids]  # type: ignore[union-attr]
        j = g.board.idx(action["to"])
        opts = [
            o
            for o in self._options(g, self._entry(f, ids[0]), group if len(group) > 1 else None)  # type: ignore[arg-type, index]
            if o.to == j
        ]
        self._move(g, f, group, opts[0])
        self._auto(g, f)

    def _move(self, g: Game, f: Frame, group: Sequence[Piece], opt: RetreatOption) -> None:
        j = opt.to
        enemy = nations.other_side(group[0].side)
        entries = {p.id: self._entry(f, p.id) for p in group}
        here = g.board.idx(entries[group[0].id]["at"])  # type: ignore[index]
        movers = list(group)
        if opt.tier == TIER_ZOC:
            for p in list(movers):
                _unload_corps(g, p)
                g.state.move(p.id, Loc.hex(j))
                g.emit(
                    "retreat",
                    f"{p.id} retreats to {g.board.label(j)} (into an enemy ZOC)",
                    rule="OT 9F2",
                    piece=p.id,
                    to=g.board.label(j),
                )
                reduce_in_zoc(g, p)
                if units.hex_of(g, p) is None:
                    movers.remove(p)
        if opt.overrun:
            for d in sorted(units.units_in_hex(g, j, enemy), key=lambda q: q.id):
                units.eliminate(g, d, "OT 9F5", "overrun by retreating units")
            g.emit(
                "overrun",
                f"{', '.join(p.id for p in group)} overrun {g.board.label(j)} while retreating",
                rule="OT 9F5",
            )
        for p in movers:
            if units.hex_of(g, p) != j:
                _unload_corps(g, p)
                g.state.move(p.id, Loc.hex(j))
                g.emit(
                    "retreat",
                    f"{p.id} retreats to {g.board.label(j)}",
                    rule="OT 9F2",
                    piece=p.id,
                    to=g.board.label(j),
                )
            _crossing(g, p, here, j, "OT 9F2")
            note_retreated(g, p.id)
        stacking.after_arrival(g, movers, j)
        for p in group:
            e = entries[p.id]
            assert e is not None
            f.params["queue"].remove(e)
            if (
                p in movers
                and units.hex_of(g, p) is not None
                and opt.tier == TIER_OVER
                and stacking.stack_problem(g, j, p.side) is not None
                and not (g.opt("overstacking") and stacking.has_corps_hq(g, j, p.side))
            ):
                f.params["queue"].append({**e, "at": g.board.label(j), "continuing": True})
        g.invalidate()

    def _auto(self, g: Game, f: Frame) -> None:
        for _ in range(500):
            if f.done:
                return
            if not f.params["queue"]:
                g.finish(f)
                return
            progressed = False
            for e in list(f.params["queue"]):
                p = g.state.pieces[e["piece"]]
                if units.hex_of(g, p) is None:
                    f.params["queue"].remove(e)
                    progressed = True
                    break
                opts = self._options(g, e)
                if not opts:
                    f.params["queue"].remove(e)
                    why = (
                        "could not retreat within the stacking limit"
                        if e.get("continuing")
                        else "no retreat route"
                    )
                    eliminate_in_combat(g, p, "OT 9F2", why, totally=True)
                    progressed = True
                    break
                if len(opts) == 1 and not opts[0].overrun:
                    self._move(g, f, [p], opts[0])
                    progressed = True
                    break
            if not progressed:
                return


# =========================================================================== advances (OT 9F3, 9F4)
@implements("OT 9F3")
def advance_problem(g: Game, p: Piece, rec: dict[str, Any] | None = None) -> str | None:
    """OT 9F3: why a unit may not advance after combat: siege and heavy siege artillery (OT 12B3,
    12B4), long-range artillery that fired at range (OT 12B7), overstacked units (OT 8C2), and Rule
    14's bans (rail-only, water-only, Army HQs)."""
    kind = units.utype(p).artillery
    if kind in ("siege", "heavy-siege"):
        return f"{p.id} is {kind} artillery (OT 12B3/12B4)"
    if rec is not None and p.id in rec.get("ranged", []):
        return f"{p.id} fired at range (OT 12B7)"
    if stacking.OVERSTACKED in p.status:
        return f"{p.id} is overstacked (OT 8C2)"
    return combat_hooks.no_advance(g, p)


def advance_step_ok(
    g: Game, p: Piece, here: int, j: int, allow_overrun: bool = False
) -> str | None:
    """Why ``p`` may not advance from ``here`` into ``j`` (terrain, commands, neutrals, enemy
    units),
    or None. Advancing costs no MPs (interpretation default) but prohibited terrain still blocks."""
    if j not in g.board.neighbors(here) and j != here:
        return "not adjacent"
    tags = special_units.movement_tags(g, p)
    if terrain.hex_entry_cost(g, p, j, tags) is None:
        return "prohibited terrain"
    if j != here and terrain.hexside_cost(g, p, g.board.side_between(here, j), j, tags) is None:
        return "prohibited hexside"
    if not nations.may_enter_command(g, p.side, j):
        return "outside the side's commands (OT 3F)"
    if nations.neutral_nation_of_hex(g, j) is not None:
        return "a neutral's hex (OT 3B3)"
    if units.units_in_hex(g, j, nations.other_side(p.side)) and not allow_overrun:
        return "enemy units there"
    return None


def fits_after(g: Game, side: str, j: int, movers: Sequence[Piece]) -> bool:
    """OT 9F3: advancing units respect the stacking limit of the hex entered (OT 8C2: or join an
    overstack under a Corps HQs), and the last Corps HQs of an overstack does not leave it."""
    by_start: dict[int, list[Piece]] = {}
    for q in movers:
        h = units.hex_of(g, q)
        if h is not None and h != j:
            by_start.setdefault(h, []).append(q)
    if any(stacking.departure_problem(g, ps, h) for h, ps in by_start.items()):
        return False
    if (
        stacking.stack_problem(
            g,
            j,
            side,
            extra=[q for q in movers if not stacking.exempt(g, q)],
            without={q.id for q in movers},
        )
        is None
    ):
        return True
    return bool(g.opt("overstacking")) and stacking.has_corps_hq(g, j, side, movers)


def advance_params(
    side: str, targets: Sequence[dict[str, Any]], second: bool = False
) -> dict[str, Any]:
    """Frame params of a ``combat-advance`` step. ``targets``: ``{"to": label, "units": [ids],
    "required": bool}`` (first advance); for the second advance of OT 9F4, ``{"units": [ids]}``
    with ``to`` omitted (any adjacent hex without enemy units)."""
    return {"side": side, "targets": [dict(t) for t in targets], "second": second, "moved": []}


@implements("OT 9F3", "OT 9F4", "OT 9F5", "OT 9J")
class CombatAdvance(GWStep):
    """OT 9F3: the side that cleared a hex may advance units that took part in the combat into it,
    up to its stacking limit, at once and at no MP cost; a declared advance (OT 9F1) must be made
    with at least one unit. OT 9F4: the second advance of a multiple-hex advance goes into any
    adjacent hex without enemy units, or overruns one (OT 9F5). Entering a contested hex calls for
    the OT 9J roll."""

    name = "combat-advance"
    title = "Advance after combat"
    rule = "OT 9F3"

    def label(self, g: Game, f: Frame) -> str:
        return (
            f"{'Second advance' if f.params.get('second') else 'Advance'} after combat"
            f" ({f.params['side']})"
        )

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [] if f.done else [f.params["side"]]

    def enter(self, g: Game, f: Frame) -> None:
        if not self._any_option(g, f):
            g.finish(f)

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    def _rec(self, g: Game) -> dict[str, Any] | None:
        cf = combat_frame(g)
        return cf.params if cf is not None else None

    def _eligible(self, g: Game, f: Frame, t: dict[str, Any]) -> list[Piece]:
        rec = self._rec(g)
        out = []
        for pid in t["units"]:
            p = g.state.pieces.get(pid)
            if p is None or units.hex_of(g, p) is None or pid in f.params["moved"]:
                continue
            if advance_problem(g, p, rec):
                continue
            out.append(p)
        return out

    def _dests(self, g: Game, f: Frame, t: dict[str, Any], p: Piece) -> list[int]:
        here = units.hex_of(g, p)
        assert here is not None
        if "to" in t:
            j = g.board.idx(t["to"])
            return [j] if advance_step_ok(g, p, here, j) is None else []
        out = []
        enemy = nations.other_side(p.side)
        for j in g.board.neighbors(here):
            if advance_step_ok(g, p, here, j, allow_overrun=True) is not None:
                continue
            if units.units_in_hex(g, j, enemy) and not _can_overrun(g, [p], j, enemy, {}):
                continue
            out.append(j)
        return out

    def _any_option(self, g: Game, f: Frame) -> bool:
        for t in f.params["targets"]:
            for p in self._eligible(g, f, t):
                for j in self._dests(g, f, t, p):
                    if fits_after(g, p.side, j, [p]):
                        return True
        return False

    def _pending_required(self, g: Game, f: Frame) -> list[str]:
        out = []
        for t in f.params["targets"]:
            if not t.get("required") or t.get("met"):
                continue
            if any(
                fits_after(g, p.side, j, [p])
                for p in self._eligible(g, f, t)
                for j in self._dests(g, f, t, p)
            ):
                out.append(t["to"])
        return out

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = []
        for t in f.params["targets"]:
            elig = self._eligible(g, f, t)
            by_dest: dict[int, list[Piece]] = {}
            for p in elig:
                for j in self._dests(g, f, t, p):
                    if fits_after(g, side, j, [p]):
                        out.append(
                            {
                                "type": "advance",
                                "side": side,
                                "pieces": [p.id],
                                "to": g.board.label(j),
                            }
                        )
                        by_dest.setdefault(j, []).append(p)
            if "to" in t:
                for j, ps in by_dest.items():
                    group = list(ps)
                    while len(group) > 1 and not fits_after(g, side, j, group):
                        group.pop()
                    if len(group) > 1:
                        out.append(
                            {
                                "type": "advance",
                                "side": side,
                                "pieces": [p.id for p in group],
                                "to": g.board.label(j),
                            }
                        )
        if not self._pending_required(g, f):
            out.append({"type": "done", "side": side})
        return out

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction(
            "OT 9F3", f"{action['type']!r} is not allowed while advancing after combat"
        )

    @handles.check("done")
    def check_done(self, g: Game, f: Frame, action: Action) -> None:
        """OT 9F1: a declared advance is made with at least one unit."""
        pend = self._pending_required(g, f)
        if pend:
            raise IllegalAction(
                "OT 9F1",
                f"the declared advance into {', '.join(pend)} must be made with at least one unit",
            )

    @handles.apply("done")
    def apply_done(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.check("advance")
    def check_advance(self, g: Game, f: Frame, action: Action) -> None:
        """OT 9F3: eligible units advance into a vacated hex within the stacking limit."""
        ids = action.get("pieces")
        to = action.get("to")
        if not isinstance(ids, list) or not ids or len(set(ids)) != len(ids):
            raise IllegalAction("OT 9F3", "name the advancing units in 'pieces'")
        if not isinstance(to, str) or not g.board.has_label(to):
            raise IllegalAction("OT 9F3", f"no hex {to!r} on the map")
        j = g.board.idx(to)
        movers = []
        for pid in ids:
            tgt = self._target_of(g, f, pid, j)
            if tgt is None:
                raise IllegalAction("OT 9F3", f"{pid!r} may not advance into {to} now")
            movers.append(g.state.pieces[pid])
        if not fits_after(g, action["side"], j, movers):
            raise IllegalAction("OT 8B", f"advancing into {to} would exceed its stacking limit")

    def _target_of(self, g: Game, f: Frame, pid: str, j: int) -> dict[str, Any] | None:
        for t in f.params["targets"]:
            for p in self._eligible(g, f, t):
                if p.id == pid and j in self._dests(g, f, t, p):
                    return t
        return None

    @handles.apply("advance")
    def apply_advance(self, g: Game, f: Frame, action: Action) -> None:
        j = g.board.idx(action["to"])
        movers = [g.state.pieces[pid] for pid in action["pieces"]]
        enemy = nations.other_side(action["side"])
        for pid in action["pieces"]:
            t = self._target_of(g, f, pid, j)
            if t is not None and t.get("to") == action["to"]:
                t["met"] = True
        if units.units_in_hex(g, j, enemy):
            for d in sorted(units.units_in_hex(g, j, enemy), key=lambda q: q.id):
                units.eliminate(g, d, "OT 9F5", "overrun by advancing units")
            g.emit(
                "overrun",
                f"{', '.join(action['pieces'])} overrun {action['to']} in their second advance",
                rule="OT 9F5",
            )
        advance_units(g, movers, j, "OT 9F4" if f.params.get("second") else "OT 9F3")
        f.params["moved"].extend(action["pieces"])
        if not self._any_option(g, f) and not self._pending_required(g, f):
            g.finish(f)


def advance_units(g: Game, movers: Sequence[Piece], j: int, rule: str) -> None:
    """Move advancing units into ``j``: disruption crossing a major river (OT 15A4), overstack
    (OT 8C2), the contested-hex roll (OT 9J), and a record for the combat."""

    for p in movers:
        here = units.hex_of(g, p)
        _unload_corps(g, p)
        g.state.move(p.id, Loc.hex(j))
        g.emit(
            "advance",
            f"{p.id} advances to {g.board.label(j)}",
            rule=rule,
            piece=p.id,
            to=g.board.label(j),
        )
        if here is not None and here != j:
            _crossing(g, p, here, j, rule)
    stacking.after_arrival(g, list(movers), j)
    cf = combat_frame(g)
    if cf is not None:
        adv = cf.params.setdefault("advanced", {})
        for p in movers:
            adv[p.id] = g.board.label(j)
    combat_hexes.entered(g, list(movers), j)
    g.invalidate()


def contested_roll(g: Game, p: Piece) -> None:
    """OT 9J: a non-infantry unit entering a contested hex rolls on the Ground Success Table (no
    modifiers); on a failure it is disrupted."""
    if special_units.is_infantry(g, p):
        return
    res = table_roll(g, "gst", "standard", f"{p.id} enters a contested hex", "OT 9J")
    if not str(res.result).startswith("S"):
        units.disrupt(g, p, rule="OT 9J", reason="entered a contested hex")


def is_contested(g: Game, i: int) -> bool:
    return bool(marker(g, "contested", i))


def re_total(g: Game, pieces: Sequence[Piece]) -> Fraction:
    return sum((units.re_size(g, p) for p in pieces), Fraction(0))


def heavy_siege_cannot_retreat(p: Piece) -> bool:
    """OT 12B4: heavy siege artillery may not retreat after combat (eliminated instead: A24)."""
    return units.utype(p).artillery == "heavy-siege"


def ranged_ok(g: Game, p: Piece, target: int) -> bool:
    """OT 12B7: long-range artillery within its printed range of the target."""
    h = units.hex_of(g, p)
    return h is not None and long_range(p) >= g.board.distance(h, target) >= 2


@dataclass(frozen=True)
class RetreatChoice:
    hexes: tuple[int, ...]
    tier: int  # 1: no enemy ZOC, stack legal; 2: no ZOC but over the limit (continue); 3: enemy ZOC


@implements("OT 6F2")
def retreat_step_options(
    g: Game, p: Piece, origin: int, here: int, exclude_zoc_of: set[str] | None = None
) -> list[RetreatChoice]:
    """The hexes a unit may retreat to next, best priority first, per OT 9F2 (see
    :func:`.retreat.retreat_options`: priorities, depot tie-break, each step farther from the hex
    the retreat started from). Empty: no retreat route (the unit is eliminated)."""
    return [
        RetreatChoice((o.to,), o.tier) for o in retreat_options(g, p, origin, here) if not o.overrun
    ]
