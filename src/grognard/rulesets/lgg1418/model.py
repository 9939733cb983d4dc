"""Shared vocabulary and typed access to the game state of La Grande Guerre 14-18.

The rule modules (one per rule group) never poke at ``g.state.vars`` directly: they use the
accessors here, so the state layout is written down in one place.

Game state layout
-----------------
``g.state.vars["lgg"]`` (a plain JSON dict):

``turn_id``            calendar id of the current turn (``data/calendar.toml``)
``initiative``         front -> side holding the initiative this turn (LGG 6-B)
``initiative_prev``    front -> side that held it last turn (ties, LGG 6-B)
``first_mover``        front -> side that plays first on that front this turn
``weather``            climatic zone -> ``fair`` / ``rain`` / ``snow`` (LGG 7)
``main_army``          side -> front -> army id (LGG 5-F)
``main_army_stale``    army ids whose main-army status is to be corrected at their next activation
``activated``          army id -> activations in its own turns this turn
``reacted``            side -> fronts where the side used its reaction test this turn (LGG 20-A)
``coordinated``        nation -> armies counted against its GHQ combination value this turn
                       (LGG 11.3)
``rail_used``          nation -> units moved by rail on its network this turn (LGG 11.4-C)
``act_serial``         number of the last army activation (per game)
``activation``         the activation in progress, or null
``doctrine``           nation -> front -> doctrine override (October 1914 trenches, later
                       transitions)
``sea_control``        sea -> side or "" (LGG 9-F; the naval rules change it)
``revealed``           side -> hex label -> ``count`` / ``full`` (LGG 4-A observation)
``destroyed_hq``       piece id -> turn index when the HQ or GHQ was destroyed (LGG 5-H)
``new_pieces``         number of pieces created in play (moujiks, LGG 5-E)
``restorations``       nation -> restoration bookkeeping of the current reinforcement phase
                       (LGG 5-B)

``g.state.tracks``: ``pr`` (nation -> ``{"stock", "flow"}``, LGG 5-B/5-C) and
``national_will`` (nation -> typed record, see :mod:`.strategic`).

``g.state.markers``: ``battle`` (hex label -> battle marker, LGG 11.1-F), ``rail_gauge`` (hex
label -> side, converted rail, LGG 11.4-D), ``conquered`` (hex label -> turn index, LGG 11.2),
``siege`` (hex label -> ``{"since": turn index}``, LGG 11.1-D), ``fortress_fallen`` (hex label ->
``{"turn": index, "pre_turn": bool}``, LGG 11.1-D).

Piece run-time attributes (``Piece.attrs``) used by the movement rules carry the prefix
``mv_`` and are cleared when the activation ends; ``attached`` names the army an un-numbered
corps is attached to (LGG 2-B).

Locations: a unit on the map is on a hex; the stack of an HQ or decoy lifted onto the player
aid (LGG 4-B) is ``inside`` that HQ or decoy; HQ and GHQ reserves (LGG 5-A, 5-G) are ``inside``
the HQ or GHQ with the status ``reserve``; generals and aircraft are ``inside`` their HQ or GHQ;
garrison corps are ``inside`` their fortress. Off-map holding places are boxes named below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from grognard.core.record import Record
from grognard.core.sequence import other_of
from grognard.core.state import GameState, Loc, Piece

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.lgg1418.data import CalendarTurn, LggData
    from grognard.rulesets.lgg1418.scenario_model import ArmyDef, LggRules

CP = "Central Powers"
ENTENTE = "Entente"
SIDES = (CP, ENTENTE)
WEST = "West"
EAST = "East"
FRONTS = (WEST, EAST)

RESERVE = "reserve"
SUPPORT_TYPES = ("artillery", "aircraft", "tank")
UNIT_TYPES = ("corps", "hq", "ghq", "artillery", "aircraft", "tank", "decoy")

# Off-map boxes (created on demand; the scenario need not declare them).
ELIMINATED = "lgg:eliminated"
DESTROYED_HQ = "lgg:destroyed-hq"
OUT_OF_COMBAT = "lgg:out-of-combat"


def arrivals_box(nation: str) -> str:
    """Box holding a power's reinforcements waiting to be placed (LGG 5-A)."""
    return f"lgg:arrivals:{nation}"


def decoy_pool(side: str) -> str:
    """Box holding a side's decoys that are not on the map (LGG 4-B)."""
    return f"lgg:decoys:{side}"


def other_side(side: str) -> str:
    """The other of the two sides."""
    return other_of((CP, ENTENTE), side)


T = TypeVar("T")


def touch(g: Game) -> None:
    """Record that rule code changed the state in a way :func:`memo` cannot see while an action
    is being applied (a write inside a plain record of ``g.state.vars``, which the state notices
    only at the end of the action)."""
    s = st(g)
    s["rev"] = int(s.get("rev", 0)) + 1


class World(NamedTuple):
    """An assumption about hidden enemy units (see :func:`.knowledge.supply_as_known`): for the
    traces of ``side``, exactly ``blocked`` are the enemy hexes holding units."""

    state: GameState
    side: str
    blocked: set[int]
    tag: tuple[str, frozenset[int]]


# The assumption in force in this thread (None: the real position) and the sides whose blocking
# hexes the values being computed read. Context variables, so that threads (the server's) and
# games never see each other's.
_WORLD: ContextVar[World | None] = ContextVar("lgg_world", default=None)
_READS: ContextVar[set[str] | None] = ContextVar("lgg_reads", default=None)
_MEMO = "lgg"


def assume(g: Game, side: str, blocked: set[int]) -> Token[World | None]:
    """Enter the world where ``blocked`` are the enemy hexes holding units for ``side``'s traces
    (until :func:`leave` with the token returned). It replaces any world in force."""
    w = World(g.state, side, blocked, (side, frozenset(blocked)))
    return _WORLD.set(w)


def leave(token: Token[World | None]) -> None:
    _WORLD.reset(token)


def in_world(g: Game) -> bool:
    """True while :func:`memo` values are computed under an assumption (a world) for ``g``."""
    w = _WORLD.get()
    return w is not None and w.state is g.state


def _note(sides: Iterable[str]) -> None:
    reads = _READS.get()
    if reads is not None:
        reads.update(sides)


def memo(g: Game, key: str, compute: Callable[[], T]) -> T:
    """Per-position memo of derived values (ZoCs, supply, occupation), in the core cache.

    Kept while the position is the same (:meth:`grognard.core.cache.Cache.position`: any write
    the state sees) and :func:`touch` was not called (writes inside the rule system's records
    while an action is applied, which the state notices only at its end).

    While a value is computed under an assumption about hidden enemy units (a :class:`World`,
    in which :func:`enemy_blocking_hexes` of its side gives another answer), a value that reads
    those blocking hexes (directly or through other memoised values) is that world's own; one
    that does not is the real position's, shared by every world. Each entry is ``(value, the
    sides whose blocking hexes it read)``.
    """
    s = g.state
    lgg = s.vars.get("lgg")
    rev = lgg.get("rev", 0) if lgg else 0
    table: dict[Any, tuple[Any, frozenset[str]]] = g.cache.position(s, _MEMO, dict)
    real_key = (rev, key)
    hit = table.get(real_key)
    w = _WORLD.get()
    if w is not None and w.state is not s:
        w = None
    if hit is not None and (w is None or w.side not in hit[1]):
        if hit[1]:
            _note(hit[1])
        return hit[0]
    world_key = None
    if w is not None:
        world_key = (rev, w.tag, key)
        hit = table.get(world_key)
        if hit is not None:
            _note(hit[1])
            return hit[0]
    tag = (s.epoch, s.revision)
    reads: set[str] = set()
    token = _READS.set(reads)
    try:
        value = compute()
    finally:
        _READS.reset(token)
    sides = frozenset(reads)
    if sides:
        _note(sides)
    if (s.epoch, s.revision) == tag and (lgg.get("rev", 0) if lgg else 0) == rev:
        # kept only when computing it changed nothing
        if world_key is not None and w is not None and w.side in sides:
            table[world_key] = (value, sides)
        else:
            table[real_key] = (value, sides)
    return value


# ====================================================================== state access
def st(g: Game) -> dict[str, Any]:
    """The rule system's part of the game state (see the module docstring)."""
    return g.state.vars.setdefault("lgg", {})


def data(g: Game) -> LggData:
    return g.ruleset.data  # type: ignore[attr-defined]


def rules(g: Game) -> LggRules:
    return g.scenario.rules  # type: ignore[return-value]


def init_state(g: Game) -> None:
    """Create the empty state record (called by the rule system's setup)."""
    g.state.vars["lgg"] = {
        "turn_id": "",
        "initiative": {},
        "initiative_prev": {},
        "first_mover": {},
        "weather": {},
        "main_army": {},
        "main_army_stale": [],
        "activated": {},
        "reacted": {},
        "coordinated": {},
        "rail_used": {},
        "act_serial": 0,
        "activation": None,
        "doctrine": {},
        "sea_control": {},
        "revealed": {},
        "destroyed_hq": {},
        "new_pieces": 0,
        "restorations": {},
        "rev": 0,
    }


# ====================================================================== calendar
def current_turn(g: Game) -> CalendarTurn:
    tid = st(g).get("turn_id") or rules(g).first_turn
    return data(g).turn_by_id(tid)


def turn_index(g: Game) -> int:
    return current_turn(g).index


def turn_at_or_after(g: Game, turn_id: str) -> bool:
    """True when the current turn is ``turn_id`` or later in the calendar."""
    return turn_index(g) >= data(g).calendar_index(turn_id)


def is_first_turn(g: Game) -> bool:
    """The first turn of the scenario (a pre-turn does not count, LGG 5)."""
    t = current_turn(g)
    first = data(g).turn_by_id(rules(g).first_turn)
    if first.pre_turn:
        return t.index <= first.index + 1
    return t.index == first.index


# ====================================================================== nations and sides
def nation_side(g: Game, nation: str) -> str | None:
    return g.state.alignment.get(nation)


def is_major(g: Game, nation: str) -> bool:
    return nation in data(g).majors


def nation_name(g: Game, nation: str) -> str:
    return str(data(g).powers["names"].get(nation, nation))


def powers_of(g: Game, side: str) -> list[str]:
    return sorted(n for n, s in g.state.alignment.items() if s == side)


# ====================================================================== pieces
def hex_of(g: Game, p: Piece) -> int | None:
    """Map hex of a piece (following HQ, decoy and fortress boxes), or None when off the map."""
    loc = g.state.where(p.id)
    return int(loc.ref) if loc.kind == "hex" else None


def on_map(g: Game, p: Piece) -> bool:
    return hex_of(g, p) is not None


def in_reserve(p: Piece) -> bool:
    return RESERVE in p.status


def is_corps(p: Piece) -> bool:
    return p.type == "corps"


def arm(p: Piece) -> str:
    return str(p.attrs.get("arm", ""))


def is_cavalry(p: Piece) -> bool:
    return is_corps(p) and arm(p) == "cavalry"


def is_infantry(p: Piece) -> bool:
    """Infantry in the broad sense: every corps that is not cavalry (mountain and marine
    included)."""
    return is_corps(p) and arm(p) != "cavalry"


def is_garrison(p: Piece) -> bool:
    return is_corps(p) and bool(p.attrs.get("garrison"))


def garrison_in_fortress(g: Game, p: Piece) -> bool:
    """A garrison corps inside its own fortress (LGG 10-A, 23-B)."""
    return is_garrison(p) and p.loc.kind == "piece" and p.loc.ref == p.attrs.get("garrison")


def is_support(p: Piece) -> bool:
    return p.type in SUPPORT_TYPES


def is_unit(p: Piece) -> bool:
    """A military unit (as opposed to a general, fortress or decoy counter)."""
    return p.type in ("corps", "hq", "ghq", "artillery", "aircraft", "tank")


def is_reduced(p: Piece) -> bool:
    return p.face == "reduced"


def pieces_at_hex(g: Game, i: int, side: str | None = None) -> list[Piece]:
    """Every piece whose outer location is hex ``i`` (boxes and fortresses included)."""
    return [p for p in _hex_index(g).get(i, ()) if side is None or p.side == side]


def _hex_index(g: Game) -> dict[int, list[Piece]]:
    """Hex -> the pieces whose outer location it is, in stacking order (one pass per position)."""

    def compute() -> dict[int, list[Piece]]:
        out: dict[int, list[Piece]] = {}
        for p in sorted(g.state.pieces.values(), key=lambda p: p.order):
            h = hex_of(g, p)
            if h is not None:
                out.setdefault(h, []).append(p)
        return out

    return memo(g, "hex-index", compute)


def units_at_hex(g: Game, i: int, side: str | None = None) -> list[Piece]:
    """Military units standing in hex ``i`` (not reserves, not generals, not fortresses)."""
    return [p for p in pieces_at_hex(g, i, side) if is_unit(p) and not in_reserve(p)]


def occupied(g: Game, side: str) -> dict[int, list[Piece]]:
    """Hex -> the side's pieces whose outer location is that hex (one pass over the pieces)."""

    def compute() -> dict[int, list[Piece]]:
        out: dict[int, list[Piece]] = {}
        for p in sorted(g.state.pieces.values(), key=lambda p: p.order):
            if p.side != side:
                continue
            h = hex_of(g, p)
            if h is not None:
                out.setdefault(h, []).append(p)
        return out

    return memo(g, f"occupied:{side}", compute)


def enemy_blocking_hexes(g: Game, side: str) -> set[int]:
    """Hexes holding units of the other side; empty decoys do not count (LGG 9-H)."""

    def compute() -> set[int]:
        out = set()
        for h, plist in occupied(g, other_side(side)).items():
            if any(is_unit(p) or (p.type == "fortress") for p in plist):
                out.add(h)
        return out

    _note((side,))
    w = _WORLD.get()
    if w is not None and w.side == side and w.state is g.state:
        return w.blocked
    return memo(g, f"enemy-block:{side}", compute)


def enemy_present_hexes(g: Game, side: str) -> set[int]:
    """Hexes holding any piece of the other side, decoys included (what a player sees as a
    stack)."""
    return set(occupied(g, other_side(side)))


# ====================================================================== armies
def army_defs(g: Game) -> dict[str, ArmyDef]:
    """The scenario's armies by id (built once per scenario; read only)."""
    return g.cache.keyed("lgg:army-defs", None, lambda: {a.id: a for a in rules(g).armies})


def army_def(g: Game, army: str) -> ArmyDef:
    try:
        return army_defs(g)[army]
    except KeyError:
        raise KeyError(f"unknown army {army!r}") from None


def army_formed(g: Game, army: str) -> bool:
    """An army exists from its formation turn on (LGG 2-B: German XI, XII, XIII Armies at end
    1914)."""
    a = army_defs(g).get(army)
    if a is None:
        return False
    return a.forms is None or turn_at_or_after(g, a.forms)


def hq_piece(g: Game, army: str) -> Piece | None:
    a = army_defs(g).get(army)
    if a is None:
        return None
    return g.state.pieces.get(a.hq)


def army_nation(g: Game, army: str) -> str:
    return army_def(g, army).nation


def army_side(g: Game, army: str) -> str | None:
    hq = hq_piece(g, army)
    return hq.side if hq else nation_side(g, army_nation(g, army))


def armies_of(g: Game, side: str) -> list[str]:
    return [a for a in army_defs(g) if army_side(g, a) == side]


def army_hq_hex(g: Game, army: str) -> int | None:
    hq = hq_piece(g, army)
    return hex_of(g, hq) if hq else None


def army_number(g: Game, p: Piece) -> str | None:
    """The army whose number the unit bears, if that army is formed (LGG 2-B)."""
    a = p.attrs.get("army")
    if not a or p.type not in ("corps", "artillery", "tank"):
        return None
    return str(a) if army_formed(g, str(a)) else None


def carrier(g: Game, p: Piece) -> Piece | None:
    if p.loc.kind == "piece":
        return g.state.pieces.get(str(p.loc.ref))
    return None


def ghq_piece(g: Game, nation: str) -> Piece | None:
    for p in g.state.pieces.values():
        if p.type == "ghq" and p.nation == nation:
            return p
    return None


def general_with(g: Game, holder: Piece) -> Piece | None:
    """The highest-ranking general placed with an HQ or GHQ (highest ``rank`` value, then id)."""
    gens = [p for p in g.state.contents(holder.id) if p.type == "general"]
    if not gens:
        return None
    return sorted(gens, key=lambda p: (-int(p.stat("rank", 0)), p.id))[0]


def main_army(g: Game, side: str, front: str) -> str | None:
    return st(g)["main_army"].get(side, {}).get(front)


def label(g: Game, i: int) -> str:
    return g.board.label(i)


def labels(g: Game, hexes: Iterable[int]) -> list[str]:
    return [g.board.label(i) for i in sorted(hexes)]


def iter_units(g: Game, side: str) -> Iterator[Piece]:
    return (
        p
        for p in sorted(g.state.pieces.values(), key=lambda p: p.id)
        if p.side == side and is_unit(p)
    )


def move_piece(g: Game, p: Piece, loc: Loc) -> None:
    """Move a piece (the only way rule code relocates pieces)."""
    g.state.move(p.id, loc)
    touch(g)


def set_face(g: Game, p: Piece, face: str) -> None:
    p.face = face
    touch(g)


def set_status(g: Game, p: Piece, status: str, on: bool = True) -> None:
    if on:
        p.status.add(status)
    else:
        p.status.discard(status)
    touch(g)


def set_attr(g: Game, p: Piece, key: str, value: Any) -> None:
    """Set (or, with None, remove) a run-time attribute of a piece."""
    if value is None:
        p.attrs.pop(key, None)
    else:
        p.attrs[key] = value
    touch(g)


# ====================================================================== military turns (3-C)
def _side_turn_key(side: str, front: str | None) -> str:
    return f"{front or 'pre-turn'}:{side}"


class SideTurnRecord(Record):
    """LGG 3-C: a side's military turn on a front (``lgg["side_turns"]["<front>:<side>"]``;
    ``pre-turn:<side>`` for the pre-turn)."""

    done: int = 0  # activations made so far in this turn
    ended: bool = False  # the side has ended its military turn there


def side_turn_state(g: Game, side: str, front: str | None) -> SideTurnRecord:
    """The record of a side's military turn on a front (read-only; created when the turn starts)."""
    rec = st(g).get("side_turns", {}).get(_side_turn_key(side, front))
    return SideTurnRecord(rec if rec is not None else SideTurnRecord.new())


def open_side_turn(g: Game, side: str, front: str | None) -> SideTurnRecord:
    """The record of a side's military turn on a front, created when the turn starts."""
    turns = st(g).setdefault("side_turns", {})
    key = _side_turn_key(side, front)
    if key not in turns:
        turns[key] = SideTurnRecord.new()
    touch(g)
    return SideTurnRecord(turns[key])


def scenario_turns(g: Game) -> list[CalendarTurn]:
    """The calendar turns of the scenario, first to last (3-C)."""
    d = data(g)
    a = d.calendar_index(rules(g).first_turn)
    b = d.calendar_index(rules(g).last_turn)
    return list(d.calendar[a : b + 1])
