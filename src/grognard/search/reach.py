"""Movement reach: which hexes a unit can reach with its movement allowance.

Rule systems describe movement as arrays over the board:

``nbr (n, 6) int``
    neighbour of hex ``i`` in direction ``d`` (``-1`` off the board);
``step_cost (n, 6) float``
    movement points (MP) to move from ``i`` into ``nbr[i, d]``; ``np.inf`` means the
    step is prohibited. Terrain, hexsides, roads etc. are all folded into this array;
``zoc (n,) bool``
    the hex is in an enemy zone of control;
``blocked (n,) bool``
    the hex may not be entered (enemy units);
``exit_cost (n,) float``
    extra MP to leave a ZOC hex (ignored for hexes that are not in ZOC),

plus a :class:`ZocPolicy` saying what ZOC does. Searches return, for each start, the
reachable hexes with the minimal MP spent and the predecessors to rebuild a path.

Semantics (the single definition shared by every search in this module)
-----------------------------------------------------------------------
The search runs over states ``(hex, flag)``; ``flag`` is 1 once the unit has left an
enemy-ZOC hex during this move (only tracked when it matters) and the start is its own
state. A move from hex ``u`` to ``v = nbr[u, d]``:

* is prohibited if ``v`` is off-board or ``blocked[v]`` or ``step_cost[u, d]`` is inf;
* costs ``step_cost[u, d]`` plus ``exit_cost[u]`` when ``u`` counts as a ZOC hex;
* with ``policy.rigid``, is prohibited when ``u`` counts as a ZOC hex and ``zoc[v]``;
* must keep the total within the allowance, except with ``policy.minimum_move``, where
  the unit's first step is allowed whatever it costs (if finite, the step is otherwise
  legal and the allowance is positive); the unit then stops.

A hex entered with ``zoc`` set ends the move if ``policy.stop_on_entry``, or if
``policy.stop_after_leaving`` and the unit already left a ZOC hex this move.

The start hex, when in ZOC, follows ``policy.start``: ``"normal"`` - it counts like any
ZOC hex (exit cost, rigid rule, leaving it sets the flag); ``"exempt"`` - its ZOC is
ignored for the first step; ``"locked"`` - the unit may not move at all. Returning to
the start hex is an ordinary entry (never cheaper than not having moved).

Implementations
---------------
:func:`reach_many` is the fast path. Units are grouped by the most steps their
allowance permits (``floor(allowance / min step cost)``); each unit gets a window of the
hex lattice of that radius around its start, numbered the same way for every unit, so
the state ``(unit, window cell, flag)`` is an index into one flat array. A label-
correcting search then runs for all units at once: each round expands every state
improved in the previous round in all six directions with a few vectorised gathers
(``np.take``) and keeps the improvements with ``np.minimum.at``. The global hex of a
window cell is learnt from the move that reaches it, so no window is built up front and
nothing of the size of the map is allocated per call. Labels start at the allowance, so
"improves the label" also means "within the allowance".

:func:`reach_generic` is a plain heap Dijkstra over callables with any hashable state,
for odd rules and as the reference; :class:`ZocRules` states the array rules for it.
``reach_many`` falls back to it for units the window cannot serve: zero-cost steps, a
radius above :data:`MAX_RADIUS`, or a neighbour table that is not a piece of the hex
lattice (see :func:`_lattice_ok`; boards and rectangular maps always are).
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from grognard import hexgrid
from grognard.hexgrid import Hex

__all__ = [
    "GenericReach",
    "Reach",
    "ReachBatch",
    "ZocPolicy",
    "ZocRules",
    "reach_generic",
    "reach_many",
    "reach_one",
    "reach_reference",
]

StartRule = Literal["normal", "exempt", "locked"]
START_FLAG = 2
"""Flag of the start state in :class:`ZocRules` states ``(hex, flag)``."""

MAX_RADIUS = 40
"""Largest window radius (steps) the fast path uses; longer moves use the reference."""

_CHUNK_CELLS = 3_000_000  # units x window cells processed at once (bounds memory)


@dataclass(frozen=True)
class ZocPolicy:
    """What enemy zones of control do to movement (see the module docstring).

    ``stop_on_entry``
        (a) entering an enemy-ZOC hex ends the move.
    ``rigid``
        (c) a unit may not move directly from one ZOC hex to another.
    ``start``
        (d) how a start hex in ZOC is treated: ``"normal"``, ``"exempt"`` or ``"locked"``.
    ``stop_after_leaving``
        (d) once a unit has left a ZOC hex (its start hex included, unless exempt), the
        next ZOC hex it enters ends its move. Only matters without ``stop_on_entry``;
        this is the rule that needs the ``(hex, flag)`` search state.
    ``minimum_move``
        (e) a unit may always move one hex, even if the step costs more than its
        allowance (the step must be finite and otherwise legal).

    The extra MP for leaving a ZOC hex, (b), is the ``exit_cost`` array of the searches.
    """

    stop_on_entry: bool = True
    rigid: bool = False
    start: StartRule = "normal"
    stop_after_leaving: bool = False
    minimum_move: bool = False

    def __post_init__(self) -> None:
        if self.start not in ("normal", "exempt", "locked"):
            raise ValueError(
                f"ZocPolicy.start must be normal, exempt or locked, not {self.start!r}"
            )

    @property
    def layers(self) -> int:
        """Number of flag values the fast search must keep apart (1 or 2)."""
        return 2 if (self.stop_after_leaving and not self.stop_on_entry) else 1


# --------------------------------------------------------------------------- inputs


def _as_nbr(nbr: np.ndarray) -> np.ndarray:
    a = np.asarray(nbr)
    if a.ndim != 2 or a.shape[1] != 6:
        raise ValueError(f"nbr must have shape (n, 6), not {a.shape}")
    return a


def _prepare(
    nbr: np.ndarray,
    step_cost: np.ndarray,
    zoc: np.ndarray | None,
    blocked: np.ndarray | None,
    exit_cost: np.ndarray | float | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Check shapes and turn optional inputs into arrays (``exit_cost`` may stay None)."""
    nbr = _as_nbr(nbr)
    n = nbr.shape[0]
    cost = np.asarray(step_cost, dtype=np.float64)
    if cost.shape != (n, 6):
        raise ValueError(f"step_cost must have shape ({n}, 6), not {cost.shape}")
    z = np.zeros(n, dtype=bool) if zoc is None else np.asarray(zoc, dtype=bool)
    b = np.zeros(n, dtype=bool) if blocked is None else np.asarray(blocked, dtype=bool)
    if z.shape != (n,) or b.shape != (n,):
        raise ValueError(f"zoc and blocked must have shape ({n},)")
    e: np.ndarray | None = None
    if exit_cost is not None:
        e = np.broadcast_to(np.asarray(exit_cost, dtype=np.float64), (n,))
        if np.any(e < 0) or np.any(np.isnan(e)):
            raise ValueError("exit_cost must be >= 0")
    return nbr, cost, z, b, e


# --------------------------------------------------------------------------- generic reference


class GenericReach:
    """Result of :func:`reach_generic`: costs per hex and the state predecessor tree."""

    def __init__(
        self,
        start: Hashable,
        allowance: float,
        state_cost: dict[Hashable, float],
        pred: dict[Hashable, Hashable | None],
        hex_of: Callable[[Hashable], Any],
    ) -> None:
        self.start_state = start
        self.start = hex_of(start)
        self.allowance = allowance
        self.state_cost = state_cost
        self.pred = pred
        self._hex_of = hex_of
        cost: dict[Any, float] = {}
        best: dict[Any, Hashable] = {}
        for st, c in state_cost.items():
            h = hex_of(st)
            if c < cost.get(h, math.inf):
                cost[h] = c
                best[h] = st
        self.cost = cost
        self.best_state = best

    def __contains__(self, h: object) -> bool:
        return h in self.cost

    def path(self, h: Any) -> list[Any]:
        """Hexes from the start to ``h`` (both included) along a cheapest legal path."""
        if h not in self.best_state:
            raise KeyError(f"hex {h!r} is not reachable")
        out: list[Any] = []
        st: Hashable | None = self.best_state[h]
        while st is not None:
            out.append(self._hex_of(st))
            st = self.pred[st]
        out.reverse()
        return out

    def state_path(self, state: Hashable) -> list[Hashable]:
        """Search states from the start state to ``state``."""
        out: list[Hashable] = []
        st: Hashable | None = state
        while st is not None:
            out.append(st)
            st = self.pred[st]
        out.reverse()
        return out


def reach_generic(
    start: Hashable,
    allowance: float,
    neighbors_fn: Callable[[Any], Iterable[Any]],
    cost_fn: Callable[[Any, Any], float],
    *,
    can_continue: Callable[[Any], bool] | None = None,
    hex_of: Callable[[Any], Any] | None = None,
    minimum_move: bool = False,
) -> GenericReach:
    """Dijkstra over arbitrary hashable search states given by callables (slow, general).

    ``neighbors_fn(state)`` yields candidate next states, ``cost_fn(state, nxt)`` gives the
    MP for that move (``inf`` = prohibited, must be ``>= 0``), ``can_continue(state)``
    says whether the unit may move on from a state it has reached (e.g. it just entered an
    enemy ZOC), ``hex_of(state)`` maps a state to the hex reported (default: the state
    itself). States whose cost exceeds ``allowance`` are not reached, except with
    ``minimum_move`` where any finite first step from ``start`` is (if ``allowance > 0``);
    such a state is never moved on from.
    """
    hex_of = hex_of or (lambda s: s)
    best: dict[Hashable, float] = {start: 0.0}
    pred: dict[Hashable, Hashable | None] = {start: None}
    done: set[Hashable] = set()
    tie = itertools.count()
    heap: list[tuple[float, int, Hashable]] = [(0.0, next(tie), start)]
    while heap:
        c, _, st = heapq.heappop(heap)
        if st in done:
            continue
        done.add(st)
        if c > allowance or (can_continue is not None and st != start and not can_continue(st)):
            continue
        first = st == start
        for nxt in neighbors_fn(st):
            w = cost_fn(st, nxt)
            if not w < math.inf:
                continue
            if w < 0:
                raise ValueError(f"negative move cost {w} from {st!r} to {nxt!r}")
            nc = c + w
            if nc > allowance and not (first and minimum_move and allowance > 0):
                continue
            if nc < best.get(nxt, math.inf):
                best[nxt] = nc
                pred[nxt] = st
                heapq.heappush(heap, (nc, next(tie), nxt))
    return GenericReach(start, allowance, best, pred, hex_of)


class ZocRules:
    """The array rules of this module as callables for :func:`reach_generic`.

    States are ``(hex, flag)``: ``flag`` is :data:`START_FLAG` for the start state, 1 once
    the unit has left a ZOC hex (tracked only with ``stop_after_leaving``), else 0. This
    is the plain, scalar statement of the rules the fast path implements.
    """

    def __init__(
        self,
        nbr: np.ndarray,
        step_cost: np.ndarray,
        *,
        zoc: np.ndarray | None = None,
        blocked: np.ndarray | None = None,
        exit_cost: np.ndarray | float | None = None,
        policy: ZocPolicy | None = None,
    ) -> None:
        nbr, cost, z, b, e = _prepare(nbr, step_cost, zoc, blocked, exit_cost)
        self.policy = policy or ZocPolicy()
        self.nbr = nbr.tolist()
        self.cost = cost.tolist()
        self.zoc = z.tolist()
        self.blocked = b.tolist()
        self.exit = [0.0] * len(self.nbr) if e is None else e.tolist()

    def start_state(self, h: int) -> tuple[int, int]:
        return (int(h), START_FLAG)

    @staticmethod
    def hex_of(state: tuple[int, int]) -> int:
        return state[0]

    def _counts_as_zoc(self, state: tuple[int, int]) -> bool:
        h, f = state
        if not self.zoc[h]:
            return False
        return not (f == START_FLAG and self.policy.start == "exempt")

    def neighbors(self, state: tuple[int, int]) -> list[tuple[int, int]]:
        h, f = state
        p = self.policy
        if f == START_FLAG and self.zoc[h] and p.start == "locked":
            return []
        in_zoc = self._counts_as_zoc(state)
        if p.stop_after_leaving and (f == 1 or in_zoc):
            nf = 1
        else:
            nf = 0
        out = []
        for v in self.nbr[h]:
            if v < 0 or self.blocked[v]:
                continue
            if p.rigid and in_zoc and self.zoc[v]:
                continue
            out.append((v, nf))
        return out

    def move_cost(self, state: tuple[int, int], nxt: tuple[int, int]) -> float:
        h = state[0]
        row = self.nbr[h]
        c = min(self.cost[h][d] for d in range(6) if row[d] == nxt[0])
        if self._counts_as_zoc(state):
            c += self.exit[h]
        return c

    def can_continue(self, state: tuple[int, int]) -> bool:
        h, f = state
        if f == START_FLAG or not self.zoc[h]:
            return True
        p = self.policy
        return not (p.stop_on_entry or (p.stop_after_leaving and f == 1))

    def search(self, start: int, allowance: float) -> GenericReach:
        """Run :func:`reach_generic` with these rules."""
        return reach_generic(
            self.start_state(start),
            float(allowance),
            self.neighbors,
            self.move_cost,
            can_continue=self.can_continue,
            hex_of=self.hex_of,
            minimum_move=self.policy.minimum_move,
        )


def reach_reference(
    nbr: np.ndarray,
    step_cost: np.ndarray,
    start: int,
    allowance: float,
    *,
    zoc: np.ndarray | None = None,
    blocked: np.ndarray | None = None,
    exit_cost: np.ndarray | float | None = None,
    policy: ZocPolicy | None = None,
) -> GenericReach:
    """Reference (slow) reach of one unit under the array rules, via :func:`reach_generic`."""
    rules = ZocRules(nbr, step_cost, zoc=zoc, blocked=blocked, exit_cost=exit_cost, policy=policy)
    return rules.search(start, allowance)


# --------------------------------------------------------------------------- window templates


@dataclass(frozen=True)
class _Template:
    """A hexagon of window cells of radius ``radius`` around local cell 0.

    ``tn[c, d]`` is the cell next to ``c`` in direction ``d``; a step out of the window
    (impossible within the radius) is mapped to cell 0, the start, which the search
    never re-enters, so both are dropped by the same test.
    """

    radius: int
    size: int
    tn: np.ndarray


@functools.lru_cache(maxsize=64)
def _template(radius: int) -> _Template:
    cells = list(hexgrid.spiral(Hex(0, 0), radius))
    index = {h: i for i, h in enumerate(cells)}
    tn = np.array(
        [[index.get(hexgrid.neighbor(h, d), 0) for d in range(6)] for h in cells], dtype=np.intp
    )
    tn.setflags(write=False)
    return _Template(radius, len(cells), tn)


# --------------------------------------------------------------------------- results


class Reach:
    """Reach of one unit: ``cost`` maps each reachable hex to the minimal MP spent.

    Hexes entered by a minimum move carry their true cost, above ``allowance``.
    """

    def __init__(self, batch: ReachBatch, i: int) -> None:
        self._batch = batch
        self._i = i
        self.start = int(batch.starts[i])
        self.allowance = float(batch.allowances[i])
        self._cost: dict[int, float] | None = None

    @property
    def cost(self) -> dict[int, float]:
        if self._cost is None:
            self._cost = self._batch.costs(self._i)
        return self._cost

    def __contains__(self, h: object) -> bool:
        return h in self.cost

    def hexes(self) -> np.ndarray:
        """Reachable hexes (sorted)."""
        return self._batch.arrays(self._i)[0]

    def path(self, h: int) -> list[int]:
        """Hexes from the start to ``h`` (both included) along a cheapest legal path."""
        return self._batch.path(self._i, h)


@dataclass
class _Window:
    """Dense results of one chunk of units sharing a window template."""

    units: np.ndarray  # (U,) batch index of each row
    g: np.ndarray  # (U, W) global hex per cell, -1 where never reached
    cost: np.ndarray  # (U, W) min over layers, inf unreachable
    layer: np.ndarray  # (U, W) int8 layer giving ``cost``
    pred: np.ndarray  # (L, U, W) int32 predecessor code layer*W + cell, -1 none
    size: int


class ReachBatch:
    """Reach of many units (see :func:`reach_many`); unit ``i`` started at ``starts[i]``."""

    def __init__(self, n: int, starts: np.ndarray, allowances: np.ndarray) -> None:
        self.n = n
        self.starts = starts
        self.allowances = allowances
        self._windows: list[_Window] = []
        self._win = np.full(len(starts), -1, dtype=np.int64)
        self._row = np.full(len(starts), -1, dtype=np.int64)
        self._generic: dict[int, GenericReach] = {}
        self._flat: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.starts)

    def _add_window(self, win: _Window) -> None:
        self._win[win.units] = len(self._windows)
        self._row[win.units] = np.arange(len(win.units))
        self._windows.append(win)

    @property
    def fallback_units(self) -> list[int]:
        """Units that were searched with the reference implementation."""
        return sorted(self._generic)

    def unit(self, i: int) -> Reach:
        """Unit ``i``'s result as a :class:`Reach`."""
        if not 0 <= i < len(self):
            raise IndexError(i)
        return Reach(self, i)

    def arrays(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Reachable hexes of unit ``i`` (sorted, int64) and their MP costs."""
        if i in self._generic:
            items = sorted(self._generic[i].cost.items())
            return (
                np.array([h for h, _ in items], dtype=np.int64),
                np.array([c for _, c in items], dtype=np.float64),
            )
        w = self._windows[self._win[i]]
        row = self._row[i]
        c = w.cost[row]
        m = np.isfinite(c)
        h = w.g[row][m].astype(np.int64)
        c = c[m]
        o = np.argsort(h, kind="stable")
        return h[o], c[o]

    def costs(self, i: int) -> dict[int, float]:
        """``{hex: minimal MP}`` for unit ``i``."""
        if i in self._generic:
            return dict(self._generic[i].cost)
        h, c = self.arrays(i)
        return dict(zip(h.tolist(), c.tolist()))

    def flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All reachable ``(unit, hex, cost)`` triples as three arrays, grouped by unit."""
        if self._flat is not None:
            return self._flat
        units, hexes, costs = [], [], []
        for i in sorted(self._generic):
            h, c = self.arrays(i)
            units.append(np.full(len(h), i, dtype=np.int64))
            hexes.append(h)
            costs.append(c)
        for w in self._windows:
            r, c = np.nonzero(np.isfinite(w.cost))
            units.append(w.units[r].astype(np.int64))
            hexes.append(w.g[r, c].astype(np.int64))
            costs.append(w.cost[r, c])
        if not units:
            empty = np.zeros(0, np.int64)
            self._flat = (empty, empty, np.zeros(0, np.float64))
            return self._flat
        u = np.concatenate(units)
        h = np.concatenate(hexes)
        c = np.concatenate(costs)
        if len(units) > 1 or np.any(np.diff(u) < 0):
            o = np.argsort(u, kind="stable")
            u, h, c = u[o], h[o], c[o]
        self._flat = (u, h, c)
        return self._flat

    def dicts(self) -> list[dict[int, float]]:
        """``{hex: minimal MP}`` for every unit."""
        u, h, c = self.flat()
        bounds = np.searchsorted(u, np.arange(len(self) + 1)).tolist()
        hl, cl = h.tolist(), c.tolist()
        return [dict(zip(hl[a:b], cl[a:b])) for a, b in itertools.pairwise(bounds)]

    def path(self, i: int, h: int) -> list[int]:
        """Hexes from unit ``i``'s start to ``h`` along a cheapest legal path."""
        if i in self._generic:
            return self._generic[i].path(h)
        w = self._windows[self._win[i]]
        row = self._row[i]
        cost = w.cost[row]
        cells = np.flatnonzero((w.g[row] == h) & np.isfinite(cost))
        if cells.size == 0:
            raise KeyError(f"hex {h} is not reachable by unit {i}")
        cell = int(cells[np.argmin(cost[cells])])
        layer = int(w.layer[row, cell])
        out = []
        while cell != 0:
            out.append(int(w.g[row, cell]))
            code = int(w.pred[layer, row, cell])
            if code < 0:
                raise RuntimeError("broken predecessor chain")
            layer, cell = divmod(code, w.size)
        out.append(int(w.g[row, 0]))
        out.reverse()
        return out


# --------------------------------------------------------------------------- fast path


_LATTICE: dict[int, tuple[np.ndarray, bool]] = {}


def _lattice_ok(nbr: np.ndarray) -> bool:
    """Whether ``nbr`` is locally a piece of the hex lattice (cached per array object).

    Checked on every pair of steps that exist: going ``d`` then ``d + 3`` comes back,
    and going ``d`` then ``d + 2`` lands where ``d + 1`` does (axial directions). Boards
    and :func:`~grognard.search.grid.rect_neighbors` maps always pass, with holes, ragged
    edges and cut steps (``-1``) anywhere; arbitrary graphs fail and are searched with
    the reference implementation instead.
    """
    hit = _LATTICE.get(id(nbr))
    if hit is not None and hit[0] is nbr:
        return hit[1]
    n = nbr.shape[0]
    ext = np.full((n + 1, 6), -1, dtype=np.int64)  # row n: "off the board"
    ext[:n] = nbr
    ext[:n][ext[:n] < 0] = n
    ext[n] = n
    ok = True
    for d in range(6):
        a = ext[:n, d]
        back = ext[a, (d + 3) % 6]
        ok &= bool(np.all((a == n) | (back == n) | (back == np.arange(n))))
        b = ext[a, (d + 2) % 6]
        c = ext[:n, (d + 1) % 6]
        ok &= bool(np.all((b == n) | (c == n) | (b == c)))
        if not ok:
            break
    if len(_LATTICE) >= 16:
        _LATTICE.pop(next(iter(_LATTICE)))
    _LATTICE[id(nbr)] = (nbr, ok)
    return ok


def _min_step(step_cost: np.ndarray) -> float:
    m = float(np.min(step_cost)) if step_cost.size else math.inf
    if math.isnan(m):
        raise ValueError("step_cost contains NaN")
    if m < 0:
        raise ValueError("step_cost must be >= 0")
    return m


def _radii(allowance: np.ndarray, cmin: float) -> np.ndarray:
    """Most steps each move can have (at least 1, for a minimum move)."""
    if cmin == math.inf:
        return np.ones(allowance.shape, dtype=np.int64)
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.floor(allowance / cmin * (1 + 1e-12) + 1e-9)
    r = np.where(allowance > 0, r, 1.0)
    return np.clip(r, 1, MAX_RADIUS + 1).astype(np.int64)


def _relax_sparse(
    nbr: np.ndarray,
    step2d: np.ndarray,
    zx: np.ndarray,
    bx: np.ndarray,
    lx: np.ndarray | None,
    units: np.ndarray,
    starts: np.ndarray,
    allow: np.ndarray,
    tpl: _Template,
    policy: ZocPolicy,
) -> _Window:
    """Frontier label-correcting search on the windows of a chunk of units.

    Unit ``k``'s window cell ``c`` in layer ``l`` is state ``(l * U + k) * W + c``. The
    global hex of a cell is learnt when a move reaches it (so no window is built up
    front); this relies on ``nbr`` being a piece of the hex lattice (see
    :func:`_lattice_ok`). ``zx``/``bx``/``lx`` have one extra
    trailing entry (False/True/0) so that a ``-1`` neighbour reads "off the board".

    Distances start at the allowance (just above it), so "improves on the label" also
    means "within the allowance"; a state is reached iff it has a predecessor.
    """
    w = tpl.size
    tn = tpl.tn
    u = len(starts)
    uw = u * w
    layers = policy.layers
    sal = policy.stop_after_leaving and layers == 2
    inf = math.inf
    ceiling = np.nextafter(allow, inf)
    dist = np.repeat(np.tile(ceiling, layers), w)
    dist[np.arange(layers * u) * w] = -inf  # the start cell is never re-entered
    pred = np.full(layers * uw, -1, dtype=np.int32)
    gl = np.full(uw, -1, dtype=np.intp)
    gl[np.arange(u) * w] = starts
    stamp = np.zeros(layers * uw, dtype=np.intp)

    # first step from the start (start rules, minimum move)
    z0 = zx[starts]
    counts = z0 & (policy.start != "exempt")
    th = nbr[starts]
    c = step2d[starts]
    if lx is not None:
        c = c + np.where(counts, lx[starts], 0.0)[:, None]
    bad = bx[th]
    if policy.rigid:
        bad |= counts[:, None] & zx[th]
    if policy.start == "locked":
        bad[z0] = True
    c[bad] = inf
    allowed = c <= allow[:, None]
    if policy.minimum_move:
        allowed |= np.isfinite(c) & (allow[:, None] > 0)
    r, d = np.nonzero(allowed)
    tc = tn[0, d]
    lay = (counts[r] & sal).astype(np.intp)
    key = (lay * u + r) * w + tc
    c = c[r, d]
    gl[r * w + tc] = th[r, d]
    # minimum moves beyond the allowance are kept aside: the labels must stay at or
    # below the allowance for "improves" to mean "legal"
    over = c > allow[r]
    mm_key, mm_cost = key[over], c[over]
    key, c = key[~over], c[~over]
    dist[key] = c
    pred[key] = 0
    frontier = key

    stops = np.array([policy.stop_on_entry, policy.stop_on_entry or policy.stop_after_leaving])
    take, compress = np.take, np.compress  # much faster than fancy/boolean indexing here
    zeros = np.zeros(1, dtype=np.intp)
    while frontier.size:
        if layers == 2:
            fl = frontier // uw
            rem = frontier - fl * uw
        else:
            fl = zeros
            rem = frontier
        fu = rem // w
        fd = take(dist, frontier)
        fh = take(gl, rem)
        zf = take(zx, fh)
        keep = fd <= take(allow, fu)
        keep &= ~(zf & take(stops, fl)) if layers == 2 else ~(zf & stops[0])
        if not keep.all():
            rem, fu, fd, fh, zf = (compress(keep, x) for x in (rem, fu, fd, fh, zf))
            if layers == 2:
                fl = compress(keep, fl)
        fc = rem - fu * w
        nd = take(step2d, fh, axis=0)
        if lx is not None:
            fd = fd + take(lx, fh)
        nd += fd[:, None]
        th = take(nbr, fh, axis=0)
        cell = take(tn, fc, axis=0)
        cell += (fu * w)[:, None]
        if layers == 2:
            nl = fl | (zf & sal)
            key = cell + (nl * uw)[:, None]
            m = nd < take(dist, key)
            # a layer-1 label is useless where layer 0 is already as cheap
            m &= ~(nl.astype(bool)[:, None] & (take(dist, cell) <= nd))
        else:
            key = cell
            m = nd < take(dist, key)
        m &= ~take(bx, th)
        if policy.rigid:
            m &= ~(zf[:, None] & take(zx, th))
        sel = np.flatnonzero(m)
        nd = take(nd, sel)
        th = take(th, sel)
        key = take(key, sel)
        src_code = take(fl * w + fc if layers == 2 else fc, sel // 6)
        cell = key % uw if layers == 2 else key
        np.put(gl, cell, th)
        np.minimum.at(dist, key, nd)
        win = np.flatnonzero(nd == take(dist, key))
        key = take(key, win)
        np.put(pred, key, take(src_code, win))
        idx = np.arange(key.size)
        np.put(stamp, key, idx)
        frontier = compress(take(stamp, key) == idx, key)

    late = pred[mm_key] < 0
    dist[mm_key[late]] = mm_cost[late]
    pred[mm_key[late]] = 0
    reached = (pred >= 0).reshape(layers, u, w)
    d3 = np.where(reached, dist.reshape(layers, u, w), inf)
    if layers == 1:
        cost = d3[0]
        layer = np.zeros((u, w), dtype=np.int8)
    else:
        layer = (d3[1] < d3[0]).astype(np.int8)
        cost = np.minimum(d3[0], d3[1])
    cost[:, 0] = 0.0
    layer[:, 0] = 0
    return _Window(units, gl.reshape(u, w), cost, layer, pred.reshape(layers, u, w), w)


def reach_many(
    nbr: np.ndarray,
    step_cost: np.ndarray,
    starts: Sequence[int] | np.ndarray,
    allowances: Sequence[float] | np.ndarray | float,
    *,
    zoc: np.ndarray | None = None,
    blocked: np.ndarray | None = None,
    exit_cost: np.ndarray | float | None = None,
    policy: ZocPolicy | None = None,
    min_step: float | None = None,
) -> ReachBatch:
    """Reach of many units at once (batched windowed search; see the module docstring).

    ``starts`` are hex indices, ``allowances`` the MP of each unit (or one number for
    all). ``min_step`` is a lower bound on every finite step cost, used to size the
    windows; by default the minimum of ``step_cost`` (passing it saves one pass over the
    array; a wrong bound gives wrong results). Units are independent: ``zoc``,
    ``blocked`` and ``exit_cost`` are the same for all of them (the enemy's); units
    needing other arrays go in another call.
    """
    policy = policy or ZocPolicy()
    nbr, cost, z, b, e = _prepare(nbr, step_cost, zoc, blocked, exit_cost)
    n = nbr.shape[0]
    st = np.asarray(starts, dtype=np.int64).reshape(-1)
    if st.size and (st.min() < 0 or st.max() >= n):
        raise ValueError("start hex out of range")
    al = np.broadcast_to(np.asarray(allowances, dtype=np.float64), st.shape).copy()
    if np.isnan(al).any():
        raise ValueError("allowance is NaN")
    batch = ReachBatch(n, st, al)
    if st.size == 0:
        return batch
    cmin = _min_step(cost) if min_step is None else float(min_step)

    generic: list[int] = []
    groups: dict[int, np.ndarray] = {}
    if not (cmin > 0 and _lattice_ok(nbr)):
        generic = list(range(len(st)))
    else:
        radius = _radii(al, cmin)
        generic = np.flatnonzero(radius > MAX_RADIUS).tolist()
        for r in np.unique(radius[radius <= MAX_RADIUS]).tolist():
            groups[r] = np.flatnonzero(radius == r)

    if groups:
        step2d = cost
        zx = np.zeros(n + 1, dtype=bool)
        zx[:n] = z
        bx = np.ones(n + 1, dtype=bool)
        bx[:n] = b
        lx = None
        if e is not None and np.any(e[z] > 0):
            lx = np.zeros(n + 1, dtype=np.float64)
            np.copyto(lx[:n], e, where=z)
        for r, members in sorted(groups.items()):
            tpl = _template(r)
            chunk = max(1, _CHUNK_CELLS // tpl.size)
            for a in range(0, len(members), chunk):
                ids = members[a : a + chunk]
                win = _relax_sparse(nbr, step2d, zx, bx, lx, ids, st[ids], al[ids], tpl, policy)
                batch._add_window(win)

    if generic:
        rules = ZocRules(nbr, cost, zoc=z, blocked=b, exit_cost=e, policy=policy)
        for i in generic:
            batch._generic[i] = rules.search(int(st[i]), float(al[i]))
    return batch


def reach_one(
    nbr: np.ndarray,
    step_cost: np.ndarray,
    start: int,
    allowance: float,
    *,
    zoc: np.ndarray | None = None,
    blocked: np.ndarray | None = None,
    exit_cost: np.ndarray | float | None = None,
    policy: ZocPolicy | None = None,
    min_step: float | None = None,
) -> Reach:
    """Reach of one unit (the fast path of :func:`reach_many` for a single start)."""
    batch = reach_many(
        nbr,
        step_cost,
        [start],
        [allowance],
        zoc=zoc,
        blocked=blocked,
        exit_cost=exit_cost,
        policy=policy,
        min_step=min_step,
    )
    return batch.unit(0)
