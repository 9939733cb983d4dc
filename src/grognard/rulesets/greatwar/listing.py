"""Memo tables for listing legal actions in big scenarios (no rule lives here).

Listing the moves of a movement step means checking every unit against every neighbouring hex,
and every rail destination of every unit; after one action almost all of those answers are
unchanged. This module gives the movement and rail listings a way to reuse them: each answer is
stored under a *signature* of everything it depends on, computed cheaply from the position:

* :func:`snapshot` -- per position: a signature of every piece (side, face, status, attributes)
  by hex, and fingerprints of the markers, the neutral nations and the nation flags;
* :func:`local_signature` -- what the one-hex moves out of a hex depend on: the pieces, owners and
  markers of every hex within two hexes (enemy ZOCs reach one hex past the hex entered) and the
  markers of its hexsides (bridges);
* :func:`memo` -- a bounded memo table kept with the game (not in its state: it holds derived
  values only, so undo and replays are unaffected).

A signature that forgets a dependency would list stale actions; the self-play harness catches
that (a listed action that ``apply`` refuses). The checks themselves are the rule code's.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar, cast

from grognard.core.state import Loc, Piece
from grognard.rulesets.greatwar.mechanics import gw_view

if TYPE_CHECKING:
    from grognard.core.game import Game

T = TypeVar("T")
MEMO_LIMIT = 20000
SIDE_MARKERS = (
    "bridge-owner",
    "bridge-demolished",
)  # markers keyed by hexside (OT 15A1); the others by hex


def piece_signature(p: Piece) -> tuple[Hashable, ...]:
    """What a piece shows the rules: identity, side, face, status and attributes."""
    # repr of the attributes in their own order: equal signatures mean equal attributes (two equal
    # dicts built in different orders only make a memo miss)
    return (p.id, p.side, p.face, frozenset(p.status), repr(p.attrs), p.loc.kind, p.loc.ref)


class Snapshot:
    """Per-position summaries used to build signatures (see the module docstring)."""

    def __init__(self, g: Game) -> None:
        by_hex: dict[int, list[tuple[Hashable, ...]]] = {}
        for p in g.state.pieces.values():
            loc = g.state.where(p.id)
            if loc.kind == "hex":
                by_hex.setdefault(int(loc.ref), []).append(piece_signature(p))
        self.hexes: dict[int, tuple[tuple[Hashable, ...], ...]] = {
            h: tuple(sorted(v)) for h, v in by_hex.items()
        }
        markers = g.state.markers
        # every marker (OT 3D) of the position, for signatures that look at the whole map (rail)
        self.markers = hash(
            repr(
                sorted(
                    (k, sorted(v.items(), key=repr))
                    for k, v in markers.items()
                    if k != "bridge-owner"
                )
            )
        )
        # markers by hex and by hexside, for local signatures (they change with ownership)
        self.hex_markers: dict[int, list[tuple[str, Any]]] = {}
        self.side_markers: dict[int, list[tuple[str, Any]]] = {}
        for kind in sorted(markers):
            target = self.side_markers if kind in SIDE_MARKERS else self.hex_markers
            for key, value in markers[kind].items():
                if str(key).lstrip("-").isdigit():
                    target.setdefault(int(key), []).append((kind, repr(value)))
                else:
                    self.odd_markers = True
        gwv = gw_view(g)
        self.base: tuple[Hashable, ...] = (
            g.state.turn.get("index"),
            repr(sorted(g.state.alignment.items(), key=repr)),
            repr(gwv.get("nation_flags")),
            gwv.get("phasing"),
            repr(gwv.get("isolated")),
            repr(gwv.get("sieges")),
        )
        if getattr(self, "odd_markers", False):  # a marker not keyed by a hex or hexside: be safe
            self.base = (*self.base, self.markers)
        self.control = g.state.control

    def hex_signature(self, i: int) -> tuple[Hashable, ...]:
        return (i, self.control.get(i), self.hexes.get(i, ()), tuple(self.hex_markers.get(i, ())))

    def side_signature(self, s: int) -> tuple[Hashable, ...]:
        return tuple(self.side_markers.get(s, ()))


def snapshot(g: Game) -> Snapshot:
    return g.cached("gw:listing-snapshot", lambda: Snapshot(g))


def within2(g: Game, i: int) -> tuple[int, ...]:
    """Hex ``i`` and every hex within two hexes of it (memoised per board)."""

    def compute() -> tuple[int, ...]:
        ring1 = set(g.board.neighbors(i))
        ring2 = {k for j in ring1 for k in g.board.neighbors(j)}
        return tuple(sorted({i} | ring1 | ring2))

    return g.cache.keyed("gw:within2", i, compute)


def within2_deps(g: Game, i: int) -> tuple[tuple[str, int], ...]:
    """The hex resources (``("hex", j)``: pieces and owner) of :func:`within2`, one shared tuple
    per hex (memoised per board)."""
    return g.cache.keyed("gw:within2-deps", i, lambda: tuple(("hex", j) for j in within2(g, i)))


def sides_around(g: Game, i: int) -> tuple[int, ...]:
    """The hexsides of hex ``i`` (memoised per board)."""
    return g.cache.keyed(
        "gw:sides-around",
        i,
        lambda: tuple(g.board.side_between(i, j) for j in g.board.neighbors(i)),
    )


def local_signature(g: Game, i: int) -> tuple[Hashable, ...]:
    """What moves out of hex ``i`` depend on around it: owners and pieces within two hexes, and
    the owners of the bridges on its hexsides."""
    snap = snapshot(g)
    bridges = tuple(snap.side_signature(s) for s in sides_around(g, i))
    return (snap.base, bridges, tuple(snap.hex_signature(j) for j in within2(g, i)))


_ABSENT = object()  # a value not yet kept (kept values may be None)


def memo(g: Game, name: str) -> dict[Hashable, Any]:
    """A memo table of content-keyed values, kept in the game's cache and shared with its clones
    (emptied when it grows past :data:`MEMO_LIMIT`)."""
    table: dict[Hashable, Any] = g.cache.keyed("gw:listing", name, dict)
    if len(table) > MEMO_LIMIT:
        table.clear()
    return table


def within1(g: Game, i: int) -> tuple[int, ...]:
    """Hex ``i`` and its neighbours."""
    return (i, *g.board.neighbors(i))


def move_signature(g: Game, i: int, side: str) -> tuple[Hashable, ...]:
    """What the one-hex moves out of hex ``i`` of ``side``'s units depend on: the pieces, owners and
    markers of ``i`` and its neighbours (the enemy ZOC in ``i``, OT 6A; entry, stacking and roads
    into each neighbour, OT 6, 7B, 8B, 14M), the markers of its hexsides (bridges, OT 15A1), and
    around an enemy-held neighbour its own neighbours too (whether it may be put under siege and
    so entered, OT 15G)."""
    snap = snapshot(g)
    hexes = list(within1(g, i))
    for j in g.board.neighbors(i):
        owner = snap.control.get(j)
        if (
            owner is not None
            and owner != side
            and any(ps[1] != side for ps in snap.hexes.get(j, ()))
        ):
            hexes.extend(k for k in g.board.neighbors(j) if k not in hexes)
    bridges = tuple(snap.side_signature(s) for s in sides_around(g, i))
    return (snap.base, bridges, tuple(snap.hex_signature(j) for j in hexes))


def step_signature(
    g: Game, u: int, v: int, side: str, group: frozenset[str] | None = None
) -> tuple[Hashable, ...]:
    """What one one-hex move of ``side``'s units from hex ``u`` into the adjacent hex ``v``
    depends on (the part of :func:`move_signature` that concerns ``v``): the pieces, owners and
    markers of ``u`` (the units moving, departure, OT 8B) and ``v`` (entry, stacking, roads, OT 6,
    7B, 8B, 14M), the markers and pieces of the hexside between them (bridges OT 15A1, water-only
    units OT 14B2), and around a ``v`` holding other pieces its own neighbours too (sieges OT
    15G, contested hexes OT 9J). The enemy
    ZOC in ``u`` (OT 6A) is named by the caller.

    ``group``: the ids of the pieces moving (the unit and everything it carries), when the caller
    knows that the move depends on no other piece of ``side`` in ``u`` (no Corps HQs among them:
    OT 8C2's departure check reads the units staying) and names the movers' allowances in its
    own key: of ``u``'s pieces only those and the other side's are then named, so that a unit
    of the side entering or leaving ``u`` does not make the moves of the others out of ``u``
    computed again. Around a ``v`` held by the other side every piece of ``u`` is named (a siege
    depends on the units around it, OT 15G)."""
    snap = snapshot(g)
    s = g.board.side_between(u, v)
    hexes = [u, v]
    other_v = any(ps[1] != side for ps in snap.hexes.get(v, ()))  # enemy-held or contested
    if other_v:
        hexes.extend(k for k in g.board.neighbors(v) if k not in hexes)
    on_side = tuple(piece_signature(p) for p in g.state.at(Loc.hexside(s)))
    sigs = [snap.hex_signature(j) for j in hexes]
    if group is not None and not other_v:
        sigs[0] = (
            u,
            snap.control.get(u),
            tuple(ps for ps in snap.hexes.get(u, ()) if ps[1] != side or ps[0] in group),
            tuple(snap.hex_markers.get(u, ())),
        )
    return (snap.base, snap.side_signature(s), on_side, tuple(sigs))


def nested_ids(g: Game, pid: str) -> frozenset[str]:
    """The id of piece ``pid`` and of every piece inside it, at any depth."""
    out = {pid}
    todo = [pid]
    while todo:
        for q in g.state.contents(todo.pop()):
            if q.id not in out:
                out.add(q.id)
                todo.append(q.id)
    return frozenset(out)


@contextmanager
def scope(g: Game) -> Iterator[None]:
    """While a step lists its legal actions nothing changes in the position: answers computed for
    one unit (its allowance, whether it may move, a stacking check) hold for the whole listing.
    Inside this context :func:`scoped` keeps them (the core cache's listing span); outside it
    (while an action is checked and applied) it always computes afresh."""
    with g.cache.listing():
        yield


def piece_state(p: Piece) -> tuple[Hashable, ...]:
    """What may change on a piece: face, status, attributes and place. Keys of :func:`scoped`
    answers about a piece include it, so that rule code that tries a change on a piece while
    listing (a load it would carry, say) and puts it back never reads an answer for the other
    state."""
    return (p.face, frozenset(p.status), repr(p.attrs), p.loc)


WORLD = (("turn",), ("alignment",), ("control",), ("tracks",), ("secrets",))


def world_token(g: Game) -> tuple[Hashable, ...]:
    """A token that changes whenever anything but the pieces and the frames changes: the
    variables, markers, turn record, alignment, hex owners, tracks and secrets (per position).
    Values computed from one piece and its hex are kept across actions under it
    (:func:`tracked`)."""

    def compute() -> tuple[Hashable, ...]:
        st = g.state
        var_keys = tuple(sorted(map(str, st.vars)))
        kinds = tuple(sorted(map(str, st.markers)))
        deps = [*WORLD, *(("var", k) for k in var_keys), *(("marker", k) for k in kinds)]
        return (var_keys, kinds, st.max_rev(deps))

    return g.cached("gw:world-token", compute)


def tracked(g: Game, key: Hashable, deps: tuple[Any, ...], compute: Callable[[], T]) -> T:
    """``compute()``, kept across actions (``Cache.tracked``) while none of ``deps`` changes,
    while a listing is made (:func:`scope`); outside it (an action checked and applied) always
    computed afresh. ``key`` should include :func:`world_token` unless ``deps`` name
    everything the value reads."""
    if not g.cache.in_listing:
        return compute()
    return g.cache.tracked(g.state, key, deps, compute)


def scoped(g: Game, key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, remembered for the rest of the current listing (:func:`scope`). The key must
    name everything the answer depends on that could differ within one listing."""
    return g.cache.scoped(key, compute)


def kept(g: Game, name: str, key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, kept across actions in the memo table ``name`` (:func:`memo`) while legal
    actions are listed (:func:`scope`); outside a listing always computed afresh. ``key`` must
    name everything the answer reads (a content key: no revision is consulted)."""
    if not g.cache.in_listing:
        return compute()
    table = memo(g, name)
    value = table.get(key, _ABSENT)
    if value is _ABSENT:
        value = table[key] = compute()
    return cast(T, value)


def listing_now(g: Game) -> bool:
    """Whether legal actions are being listed (:func:`scope`): callers of :func:`tracked` and
    :func:`kept` check it first to skip building a key that would not be used."""
    return g.cache.in_listing
