"""One mechanism for derived values: supply traces, zones of control, legal-action listings.

Every game has a :class:`Cache` (``g.cache``). A value is memoised in one of three ways, by what
it depends on:

:meth:`Cache.position`
    depends on the whole position: kept while the state's revision is unchanged (any write to the
    state, anywhere, is a new revision; see :mod:`grognard.core.state`). The default.
:meth:`Cache.tracked`
    depends on a few named resources only (``("piece", id)``, ``("hex", i)``, ``("marker",
    kind)``, ``("var", key)``...): kept while none of them changed, across actions. Listings use
    it so that one move does not recompute the moves of every other unit.
:meth:`Cache.keyed`
    depends on a key the caller computes from what the value reads (a transposition key): kept
    while the key is the same, in every position and in every clone of the game. For values that
    are expensive and whose inputs are cheap to name (a trace from given sources over given
    blocked hexes), and for values that depend only on the scenario and the options (a key of
    their arguments).
:meth:`Cache.held`
    kept for the rest of a span of play the caller names (``scope``: a phase, a player turn),
    because the rule system vouches that nothing done within it changes the value (in the OT
    initial phase, placing reinforcements never changes whose supply lines reach a hex). Shared
    with clones like the keyed part, except by a clone whose hidden state was dealt out again
    (:meth:`Cache.new_world`): its values were read from another world.
:meth:`Cache.static`
    depends on the board alone (a rail network's layout, the country of each hex): kept with the
    board, for every game played on it (the board never changes).
:meth:`Cache.scoped`
    kept for the rest of one listing of legal actions (:meth:`Cache.listing`), during which
    nothing changes in the position even where rule code tries a change and puts it back;
    outside a listing it always computes afresh.
:attr:`Cache.local`
    values of this one game object that hold its state's own objects (an index of the state's
    pieces by hex) or notes about its own history: never copied to a clone, dropped with the
    rest when the state object is replaced. The rule code that keeps one checks, when it reads
    it, that it still describes the state (the state object and the revisions it read).

Nothing is ever stored on the state or on other core objects; rule code never announces
changes. A cache is dropped whole when the game's state object is replaced (undo, recovery
from a refused action), and copied by :meth:`grognard.core.game.Game.clone` (the keyed part is
shared: it depends on nothing but its keys).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from grognard.core.state import GameState

T = TypeVar("T")

KEYED_LIMIT = 20_000
_ABSENT = object()  # a value not yet kept (kept values may be None)
TRACKED_LIMIT = 50_000
# resources whose every change the state reports at once (the others, values inside records,
# are compared by fingerprint when the game is asked something: see GameState.sync)
EXACT = frozenset({"piece", "hex", "side", "pieces", "locations", "control", "dice", "result"})


def _exact(deps: tuple[Any, ...]) -> bool:
    return all(d[0] in EXACT for d in deps)


class Cache:
    """The derived values of one game (see the module docstring)."""

    __slots__ = (
        "_held",
        "_keyed",
        "_pos",
        "_pos_key",
        "_scope",
        "_static",
        "_tracked",
        "hits",
        "local",
        "misses",
    )

    def __init__(
        self,
        keyed: dict[str, OrderedDict[Hashable, Any]] | None = None,
        held: dict[str, tuple[Hashable, dict[Hashable, Any]]] | None = None,
        static: dict[str, Any] | None = None,
    ) -> None:
        self._pos: dict[Hashable, Any] = {}
        self._pos_key: tuple[int, int] = (-1, -1)
        self._tracked: dict[Hashable, tuple[int, tuple[Any, ...], Any]] = {}
        self._keyed: dict[str, OrderedDict[Hashable, Any]] = keyed if keyed is not None else {}
        self._held: dict[str, tuple[Hashable, dict[Hashable, Any]]] = (
            held if held is not None else {}
        )
        self._scope: dict[Hashable, Any] | None = None
        self._static: dict[str, Any] = static if static is not None else {}
        self.local: dict[str, Any] = {}
        self.hits = 0
        self.misses = 0

    # ------------------------------------------------------------------ per position
    def position(self, state: GameState, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, kept while ``state`` does not change at all."""
        tag = (state.epoch, state.revision)
        if self._pos_key != tag:
            self._pos = {}
            self._pos_key = tag
        pos = self._pos
        if key in pos:
            self.hits += 1
            return pos[key]  # type: ignore[no-any-return]
        self.misses += 1
        value = compute()
        if self._pos_key == (state.epoch, state.revision):
            pos[key] = value  # not if computing it changed the state
        return value

    # ------------------------------------------------------------------ per resource
    def tracked(
        self,
        state: GameState,
        key: Hashable,
        deps: Iterable[Any],
        compute: Callable[[], T],
    ) -> T:
        """``compute()``, kept while none of the resources ``deps`` changes.

        ``deps`` must name everything the value reads that can change in play. A value computed
        while the state changed under it is not kept."""
        hit = self._tracked.get(key)
        if hit is not None:
            rev, hit_deps, value = hit
            fresh = state.max_rev(hit_deps) <= rev
            if fresh and state.in_action and rev != state.revision and not _exact(hit_deps):
                fresh = False  # records may have changed inside this action, unseen as yet
            if fresh:
                self.hits += 1
                return value  # type: ignore[no-any-return]
        self.misses += 1
        deps_t = tuple(deps)
        before = state.revision
        value = compute()
        if state.revision == before:
            if len(self._tracked) >= TRACKED_LIMIT:
                self._tracked.clear()
            self._tracked[key] = (before, deps_t, value)
        return value

    # ------------------------------------------------------------------ by content key
    def keyed(
        self, name: str, key: Hashable, compute: Callable[[], T], limit: int = KEYED_LIMIT
    ) -> T:
        """``compute()``, kept (least recently used first out) while ``key`` is the same."""
        table = self._keyed.get(name)
        if table is None:
            table = self._keyed[name] = OrderedDict()
        try:
            value = table[key]
        except KeyError:
            pass
        else:
            table.move_to_end(key)
            self.hits += 1
            return value  # type: ignore[no-any-return]
        self.misses += 1
        value = compute()
        table[key] = value
        if len(table) > limit:
            table.popitem(last=False)
        return value

    # ------------------------------------------------------------------ per board
    def static(self, name: str, compute: Callable[[], T]) -> T:
        """``compute()``, kept with the board (``Board.derived``) for every game on it: for
        values that read the board and nothing else."""
        try:
            return self._static[name]  # type: ignore[no-any-return]
        except KeyError:
            value = self._static[name] = compute()
            return value

    # ------------------------------------------------------------------ per span of play
    def held(self, name: str, scope: Hashable, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, kept in the table ``name`` while ``scope`` is the same (a new scope
        empties the table). The caller vouches that nothing done within one scope changes the
        value; see the module docstring."""
        entry = self._held.get(name)
        if entry is None or entry[0] != scope:
            entry = self._held[name] = (scope, {})
        table = entry[1]
        value = table.get(key, _ABSENT)
        if value is not _ABSENT:
            self.hits += 1
            return value  # type: ignore[no-any-return]
        self.misses += 1
        value = compute()
        if len(table) >= KEYED_LIMIT:
            table.clear()
        table[key] = value
        return value

    def new_world(self) -> None:
        """The state was changed outside play (hidden pieces dealt out again for a search):
        forget the position's values and start the held tables afresh, unshared."""
        self._pos = {}
        self._pos_key = (-1, -1)
        self._held = {}

    # ------------------------------------------------------------------ per listing
    @contextmanager
    def listing(self) -> Iterator[None]:
        """The span of one listing of legal actions (nested listings share the outer one's)."""
        if self._scope is not None:
            yield
            return
        self._scope = {}
        try:
            yield
        finally:
            self._scope = None

    @property
    def in_listing(self) -> bool:
        """Whether legal actions are being listed (:meth:`listing`)."""
        return self._scope is not None

    def scoped(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, kept for the rest of the current listing; outside one, computed
        afresh. The key must name everything the answer depends on that could differ within
        one listing."""
        memo = self._scope
        if memo is None:
            return compute()
        try:
            return memo[key]  # type: ignore[no-any-return]
        except KeyError:
            value = memo[key] = compute()
            return value

    # ------------------------------------------------------------------ life cycle
    def reset(self) -> None:
        """Forget everything that depends on the state (the state object was replaced)."""
        self._pos = {}
        self._pos_key = (-1, -1)
        self._tracked = {}
        self._held = {}
        self.local = {}

    def clone(self, retag: tuple[tuple[int, int], tuple[int, int]] | None = None) -> Cache:
        """The cache of a clone of the game: the same entries, the keyed tables shared.

        ``retag = (old, new)``: the clone's state is a copy of the state tagged ``old`` (its
        ``(epoch, revision)``), now tagged ``new``; the position entries computed for ``old``
        still hold for it and are kept (each copy drops its own at its first change)."""
        c = Cache(self._keyed, self._held, self._static)
        c._tracked = dict(self._tracked)
        if retag is not None and self._pos_key == retag[0]:
            c._pos = dict(self._pos)
            c._pos_key = retag[1]
        return c

    def stats(self) -> dict[str, int]:
        return {
            "hits": self.hits,
            "misses": self.misses,
            "tracked": len(self._tracked),
            "keyed": sum(len(t) for t in self._keyed.values()),
        }
