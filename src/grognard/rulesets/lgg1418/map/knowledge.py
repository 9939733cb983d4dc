"""What a side may know about the enemy's stacks (LGG 4-A), for rules decided from its knowledge.

A side sees enemy stacks only as anonymous markers (4-A). Several rules turn on facts hidden
in those markers: whether a marker exerts a ZoC (8-B rigid ZoCs, 13 interception), whether it
holds units or is only a decoy (11.2 administrative movement, 12 contact), what it holds. The
moving side's legal actions are decided from what it may know, never from those hidden facts;
an action that turns out to be barred by them is resolved with a reveal event (an undo
barrier) that tells the mover what it ran into, and the fact is remembered here until the end
of the activation so the same action is not offered again.

Known facts of ``side`` about an enemy hex: an enemy fortress counter (public, it holds units
and exerts a ZoC while not besieged); a stack observed in full this turn (43-G, events: its
pieces are known); a stack observed by count with at least one corps; and what reveal events
recorded in ``st["known"][side][hex label]`` (``units``: holds enemy units; ``zoc``: kinds of
enemy ZoC known on that hex), valid for the activation in which they were revealed.

Supply (9, 9-H): a trace crosses a hex holding only an enemy decoy, not one holding enemy units.
A legal list that turns on the supply or isolation of the mover's own units is decided by
:func:`supply_as_known` (the answer whatever the unknown markers hold, or ``maybe``): an action
that may be legal is offered, and when the true position bars it, it is refused by
:func:`refuse_on_hidden_fact` (a reveal event). Listing never shows whether a marker is a decoy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from grognard.core.rules import implements
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map.zoc import (
    BESIEGED,
    exerts_zoc,
    in_enemy_zoc,
    shut_in_besieged_fortress,
    zoc_kind_of,
    zoc_reaches,
)
from grognard.rulesets.lgg1418.units.fog import front_line_corps

if TYPE_CHECKING:
    from grognard.core.game import Game

T = TypeVar("T")


def _serial(g: Game) -> int:
    act = M.st(g).get("activation")
    return int(act["serial"]) if act else -1


def _records(g: Game, side: str) -> dict[str, dict[str, Any]]:
    serial = _serial(g)
    turn = M.turn_index(g)
    rec = M.st(g).get("known", {}).get(side, {})
    return {k: v for k, v in rec.items() if v.get("serial") == serial and v.get("turn") == turn}


def remember(
    g: Game, side: str, hex_label: str, units: bool | None = None, zoc: list[str] | None = None
) -> None:
    """Record what a reveal showed ``side`` about an enemy hex (valid for this activation)."""
    serial, turn = _serial(g), M.turn_index(g)
    book = M.st(g).setdefault("known", {}).setdefault(side, {})
    for k in [k for k, v in book.items() if v.get("serial") != serial or v.get("turn") != turn]:
        del book[k]
    rec = book.setdefault(hex_label, {"serial": serial, "turn": turn})
    if units is not None:
        rec["units"] = bool(units)
    if zoc is not None:
        rec["zoc"] = sorted(set(rec.get("zoc", [])) | set(zoc))
    M.touch(g)


def _observed_full(g: Game, side: str) -> set[int]:
    rev = M.st(g).get("revealed", {}).get(side, {})
    return {
        g.board.idx(lab) for lab, lvl in rev.items() if lvl == "full" and g.board.has_label(lab)
    }


@implements("LGG 4-A")
def known_unit_hexes(g: Game, side: str) -> set[int]:
    """LGG 4-A: enemy hexes ``side`` knows to hold enemy units (fortress counters, observed
    stacks, revealed facts); every other enemy marker may be a decoy as far as it knows. Without
    fog of war (option ``fog-of-war`` off) everything is known."""
    return set(M.memo(g, f"known-units:{side}", lambda: frozenset(_known_units(g, side))))


def _known_units(g: Game, side: str) -> set[int]:
    enemy = M.other_side(side)
    blocking = M.enemy_blocking_hexes(g, side)
    if not g.opt("fog-of-war"):
        return set(blocking)
    out: set[int] = set()
    for h, plist in M.occupied(g, enemy).items():
        if any(p.type == "fortress" and p.loc.kind == "hex" for p in plist):
            out.add(h)
    out |= _observed_full(g, side) & blocking
    rev = M.st(g).get("revealed", {}).get(side, {})
    for lab, lvl in rev.items():
        if lvl == "count" and g.board.has_label(lab):
            i = g.board.idx(lab)
            if front_line_corps(g, i, enemy) > 0:
                out.add(i)
    for lab, rec in _records(g, side).items():
        if rec.get("units") and g.board.has_label(lab):
            out.add(g.board.idx(lab))
    return out


@implements("LGG 4-A", "LGG 8-B")
def known_zoc(g: Game, side: str, j: int) -> frozenset[str]:
    """LGG 4-A / 8-B: the kinds of enemy ZoC ``side`` knows to lie on hex ``j``: those of enemy
    fortresses (public counters) and of fully observed stacks, and what reveals recorded."""
    if not g.opt("fog-of-war"):
        return in_enemy_zoc(g, side, j)
    kinds = M.memo(g, f"known-zoc:{side}", lambda: _known_zoc_map(g, side)).get(j, frozenset())
    rec = _records(g, side).get(g.board.label(j))
    if rec and rec.get("zoc"):
        kinds = kinds | frozenset(rec["zoc"])
    return kinds


def _known_zoc_map(g: Game, side: str) -> dict[int, frozenset[str]]:
    """Hex -> kinds of the enemy ZoCs ``side`` can see: fortresses and fully observed stacks."""
    enemy = M.other_side(side)
    full = _observed_full(g, side)
    out: dict[int, set[str]] = {}
    for h, plist in M.occupied(g, enemy).items():
        for p in plist:
            public = p.type == "fortress" and p.loc.kind == "hex" and BESIEGED not in p.status
            if not (public or h in full) or not exerts_zoc(g, p):
                continue
            for j in g.board.neighbors(h):
                if zoc_reaches(g, enemy, h, j):
                    kinds = out.setdefault(j, set())
                    if p.type == "fortress":
                        kinds.add("fortress")
                    kinds.add(zoc_kind_of(g, p))
    return {k: frozenset(v) for k, v in out.items()}


def _inert(g: Game, p: Any) -> bool:
    """A besieged fortress, or a piece inside one: no ZoC (8-C, 9-E)."""
    if p.type == "fortress":
        return BESIEGED in p.status
    return shut_in_besieged_fortress(g, p)


@implements("LGG 4-A", "LGG 8", "LGG 8-C")
def possible_zoc_sources(g: Game, side: str, j: int) -> list[int]:
    """LGG 4-A / 8-C: adjacent enemy hexes whose marker may exert a ZoC on ``j`` as far as
    ``side`` can tell: any enemy stack marker (a fortress counter alone only while unbesieged)
    whose ZoC could reach ``j`` across that hexside (8-C is read from the public map)."""
    enemy = M.other_side(side)
    occ = M.occupied(g, enemy)
    out = []
    for h in g.board.neighbors(j):
        plist = occ.get(h, [])
        if not plist or all(_inert(g, p) for p in plist):
            continue
        if zoc_reaches(g, enemy, h, j):
            out.append(h)
    return out


# =============================================== supply traced across unknown markers (4-A, 9, 9-H)
@implements("LGG 4-A")
def _known_empty(g: Game, side: str) -> set[int]:
    """Enemy hexes ``side`` knows hold no enemy unit: fully observed this turn, or revealed."""
    blocking = M.enemy_blocking_hexes(g, side)
    out = {h for h in _observed_full(g, side) if h not in blocking}
    for lab, rec in _records(g, side).items():
        if rec.get("units") is False and g.board.has_label(lab):
            out.add(g.board.idx(lab))
    return out


@implements("LGG 4-A", "LGG 9-H")
def unknown_markers(g: Game, side: str) -> frozenset[int]:
    """LGG 4-A / 9-H: enemy stack markers of which ``side`` cannot tell whether they hold units or
    are only decoys (a decoy does not stop a supply or isolation trace, units do)."""

    def compute() -> frozenset[int]:
        if not g.opt("fog-of-war"):
            return frozenset()
        enemy = M.other_side(side)
        if not any(p.type == "decoy" and p.side == enemy for p in g.state.pieces.values()):
            return frozenset()  # the counter mix is public: without decoys every marker holds units
        present = M.enemy_present_hexes(g, side)
        return frozenset(present - known_unit_hexes(g, side) - _known_empty(g, side))

    return M.memo(g, f"unknown-markers:{side}", compute)


def _assuming(g: Game, side: str, blocked: set[int], fn: Callable[[], T]) -> T:
    """Evaluate ``fn`` as if exactly ``blocked`` were the enemy hexes holding units for ``side``'s
    traces (a :class:`.model.World`). The derived values that depend on that assumption are
    kept apart from the real ones (:func:`.model.memo`), for the current position only;
    nothing of the game changes. An assumption that is the truth is the real position."""
    if not M.in_world(g) and blocked == M.enemy_blocking_hexes(g, side):
        return fn()
    token = M.assume(g, side, blocked)
    try:
        return fn()
    finally:
        M.leave(token)


@implements("LGG 4-A", "LGG 9", "LGG 9-H")
def supply_as_known(g: Game, side: str, fn: Callable[[], bool]) -> str:
    """LGG 4-A / 9 / 9-H: a supply or isolation question about ``side``'s own units (``fn``, true
    when the units are supplied / not isolated / may trace ...) answered from what ``side`` may
    know of the enemy markers: ``yes`` (whatever the unknown markers hold), ``no`` (even if
    they all are decoys) or ``maybe`` (the answer depends on a hidden fact). The question must
    be monotone: more enemy units on the map never make it true."""
    unknown = unknown_markers(g, side)
    if not unknown:
        return "yes" if fn() else "no"
    blocking = set(M.enemy_blocking_hexes(g, side))
    optimistic = _assuming(g, side, blocking - unknown, fn)
    if not optimistic:
        return "no"
    pessimistic = _assuming(g, side, blocking | unknown, fn)
    return "yes" if pessimistic else "maybe"


@implements("LGG 4-A", "LGG 9", "LGG 9-H")
def may_be_true(g: Game, side: str, fn: Callable[[], bool]) -> bool:
    """LGG 4-A / 9 / 9-H: whether :func:`supply_as_known` of the same question is not ``no``:
    ``fn`` holds when every enemy marker ``side`` cannot tell apart from a decoy is one (the
    pessimistic world, which only tells ``yes`` from ``maybe``, is not computed)."""
    unknown = unknown_markers(g, side)
    if not unknown:
        return fn()
    blocking = set(M.enemy_blocking_hexes(g, side))
    return bool(_assuming(g, side, blocking - unknown, fn))


@implements("LGG 4-A", "LGG 11.4-A")
def as_known(g: Game, side: str, fn: Callable[[], T]) -> T:
    """LGG 4-A: ``fn`` evaluated as ``side`` may see the map: every enemy marker it cannot tell
    apart from a decoy is taken for one (only the markers known to hold units block). Used for
    routes a side plans over markers (rail journeys, 11.4-A); when the route turns out to cross
    units, the action is refused with a reveal (:func:`refuse_on_hidden_fact`)."""
    unknown = unknown_markers(g, side)
    if not unknown:
        return fn()
    blocking = set(M.enemy_blocking_hexes(g, side))
    return _assuming(g, side, blocking - unknown, fn)


def cut(g: Game, side: str, what: str) -> set[str]:
    """Units ``side`` learned (by a refusal in this activation) to be out of supply / isolated."""
    rec = M.st(g).get("known_cut", {}).get(side, {})
    serial, turn = _serial(g), M.turn_index(g)
    return {
        u
        for u, v in rec.items()
        if v.get("serial") == serial and v.get("turn") == turn and what in v.get("what", [])
    }


def remember_cut(g: Game, side: str, units: list[str], what: str) -> None:
    """Record that a refusal showed ``side`` that ``units`` are out of supply (``what`` =
    ``supply``) or isolated (``isolation``), for the rest of the activation."""
    serial, turn = _serial(g), M.turn_index(g)
    book = M.st(g).setdefault("known_cut", {}).setdefault(side, {})
    for k in [k for k, v in book.items() if v.get("serial") != serial or v.get("turn") != turn]:
        del book[k]
    for u in units:
        rec = book.setdefault(u, {"serial": serial, "turn": turn, "what": []})
        if what not in rec["what"]:
            rec["what"].append(what)
    M.touch(g)


@implements("LGG 4-A")
def refuse_on_hidden_fact(g: Game, side: str, text: str, others: str, rule: str) -> None:
    """LGG 4-A: an action accepted from what ``side`` knew turns out to be barred by a hidden fact
    (an enemy marker on a supply line held units): a reveal event (an undo barrier) tells ``side``
    what it ran into; the other side reads ``others``."""
    g.emit("action-refused", text, rule=rule, visible_to=[side], others=others, reveal=True)
