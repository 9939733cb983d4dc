"""Supply and path tracing: multi-source shortest paths over the hex graph.

A *trace* runs from a set of sources over the hex graph (plus optional off-map links to
box nodes) and gives every node its distance to the nearest source, which source that
is, and the next node toward it (to rebuild one path for display).

The graph's nodes are the ``n`` hexes ``0..n-1`` followed by any off-map box nodes
(``n, n+1, ...``) that links name. The path steps are ``hex i -> nbr[i, d]`` with cost
``step_cost[i, d]`` (``inf`` = impossible) and the links ``(a, b, cost)``, which work in
both directions.

Direction
    With ``to_sources=True`` (the default) distances are those of paths that *run from
    each hex to a source*, the way a unit traces supply; with ``False``, of paths from a
    source out to each hex. On symmetric costs both agree.
Blockers
    A blocked node may not be *entered* by the traced path. The first node of a path is
    not entered, so a unit sitting on a blocked hex (say in an enemy ZOC) can still trace
    out of it, and a source is always at distance 0 from itself.
Limits
    ``limit`` drops every node farther than that.

The sparse graph's structure (``indptr``/``indices``) is built once per ``nbr`` array
(and set of links) and cached; each call only gathers the weights from ``step_cost``
with one vectorised ``np.take`` and runs ``scipy.sparse.csgraph.dijkstra(min_only=True)``.
``nbr`` arrays are treated as immutable (the cache holds on to them).

:func:`trace_elements` chains such traces for supply lines made of ordered elements
(unit -> overland -> road -> rail -> source), each element with its own costs, allowed
edges, length limit and blockers.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

__all__ = [
    "ChainResult",
    "TraceElement",
    "TraceResult",
    "edge_mask_from_sides",
    "trace_elements",
    "trace_from_sources",
]

Links = Sequence[tuple[int, int, float]] | np.ndarray


# --------------------------------------------------------------------------- graph structure


@dataclass
class _Structure:
    """CSR structure of the search graph for one ``nbr`` array, direction and link set."""

    nbr: np.ndarray
    n_nodes: int
    indptr: np.ndarray
    indices: np.ndarray
    weight_index: np.ndarray  # per CSR entry: flat index into step_cost (links: 0)
    link_pos: np.ndarray  # CSR positions of the link edges (a->b first, then b->a)
    _col_ptr: np.ndarray | None = field(default=None, repr=False)
    _col_pos: np.ndarray | None = field(default=None, repr=False)

    @property
    def nnz(self) -> int:
        return len(self.indices)

    def row_positions(self, nodes: np.ndarray) -> np.ndarray:
        """CSR positions of every edge leaving ``nodes``."""
        return _ranges(self.indptr, nodes)

    def col_positions(self, nodes: np.ndarray) -> np.ndarray:
        """CSR positions of every edge entering ``nodes``."""
        if self._col_pos is None:
            self._col_pos = np.argsort(self.indices, kind="stable")
            counts = np.bincount(self.indices, minlength=self.n_nodes)
            self._col_ptr = np.concatenate([[0], np.cumsum(counts)])
        assert self._col_ptr is not None
        return self._col_pos[_ranges(self._col_ptr, nodes)]


def _ranges(ptr: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Concatenation of ``range(ptr[v], ptr[v+1])`` for each ``v`` in ``nodes``."""
    a = ptr[nodes].astype(np.int64)
    lens = ptr[nodes + 1].astype(np.int64) - a
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offs = np.repeat(a - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
    return offs + np.arange(total)


_CACHE: OrderedDict[tuple[Any, ...], _Structure] = OrderedDict()
_CACHE_SIZE = 8


def _links_array(links: Links | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(a, b, cost)`` arrays of the off-map links (empty if none)."""
    if links is None or len(links) == 0:
        z = np.zeros(0, dtype=np.int64)
        return z, z, np.zeros(0, dtype=np.float64)
    arr = np.asarray(links, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise ValueError("links must be (hex_or_node, hex_or_node, cost) triples")
    a = arr[:, 0].astype(np.int64)
    b = arr[:, 1].astype(np.int64)
    c = arr[:, 2]
    if np.any(a != arr[:, 0]) or np.any(b != arr[:, 1]) or np.any(a < 0) or np.any(b < 0):
        raise ValueError("link ends must be non-negative node indices")
    if np.any(np.isnan(c)) or np.any(c < 0):
        raise ValueError("link costs must be >= 0")
    return a, b, c


def _structure(
    nbr: np.ndarray, to_sources: bool, la: np.ndarray, lb: np.ndarray, n_nodes: int
) -> _Structure:
    key = (id(nbr), nbr.shape, to_sources, la.tobytes(), lb.tobytes(), n_nodes)
    hit = _CACHE.get(key)
    if hit is not None and hit.nbr is nbr:
        _CACHE.move_to_end(key)
        return hit
    ii, dd = np.nonzero(nbr >= 0)  # path steps i -> nbr[i, d], row-major
    jj = nbr[ii, dd].astype(np.int64)
    widx = ii * 6 + dd
    # search edges: from the seed side outward
    if to_sources:
        rows, cols = jj, ii.astype(np.int64)
    else:
        rows, cols = ii.astype(np.int64), jj
    if len(la):
        rows = np.concatenate([rows, la, lb])
        cols = np.concatenate([cols, lb, la])
    if rows.size and (rows.max() >= n_nodes or cols.max() >= n_nodes):
        raise ValueError("a link names a node beyond n_nodes")
    n_hex = len(ii)
    if to_sources or len(la):
        order = np.argsort(rows, kind="stable")
        indices = cols[order]
        pos = np.empty_like(order)
        pos[order] = np.arange(len(order))
        link_pos = pos[n_hex:]
        # flat index into step_cost of every CSR entry (0 for links: overwritten per call)
        csr_widx = np.zeros(len(order), dtype=np.intp)
        csr_widx[pos[:n_hex]] = widx
    else:
        indices = cols
        link_pos = np.zeros(0, dtype=np.int64)
        csr_widx = widx.astype(np.intp)
    counts = np.bincount(rows, minlength=n_nodes)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    s = _Structure(
        nbr=nbr,
        n_nodes=n_nodes,
        indptr=indptr,
        indices=indices.astype(np.int32),
        weight_index=csr_widx,
        link_pos=link_pos,
    )
    _CACHE[key] = s
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return s


def _weights(
    s: _Structure,
    step_cost: np.ndarray,
    link_cost: np.ndarray,
    blocked: np.ndarray | None,
    to_sources: bool,
) -> np.ndarray:
    """Edge weights in CSR order for one call."""
    data = np.take(step_cost.reshape(-1), s.weight_index)
    if len(link_cost):
        data[s.link_pos] = np.concatenate([link_cost, link_cost])
    if blocked is not None:
        nodes = np.flatnonzero(blocked)
        if nodes.size:
            pos = s.row_positions(nodes) if to_sources else s.col_positions(nodes)
            data[pos] = np.inf
    return data


# --------------------------------------------------------------------------- single trace


@dataclass
class TraceResult:
    """Distances to the nearest source over ``n_nodes`` nodes (hexes then boxes).

    ``dist`` is ``inf`` where no source is within reach, ``source`` the seed node that is
    nearest (``-1`` if none), ``pred`` the next node toward it (``-1`` at seeds and
    unreached nodes).
    """

    dist: np.ndarray
    source: np.ndarray
    pred: np.ndarray
    to_sources: bool = True

    @property
    def reached(self) -> np.ndarray:
        """Boolean mask of the nodes within reach."""
        return np.isfinite(self.dist)

    def path(self, node: int) -> list[int]:
        """One shortest path between ``node`` and its source, in travel order.

        With ``to_sources`` it runs from ``node`` to the source, else from the source to
        ``node``. Raises ``KeyError`` if ``node`` is out of reach.
        """
        if not np.isfinite(self.dist[node]):
            raise KeyError(f"node {node} is not reached")
        out = [int(node)]
        p = int(self.pred[node])
        while p >= 0:
            out.append(p)
            p = int(self.pred[p])
        if not self.to_sources:
            out.reverse()
        return out


def _full_cost(step_cost: np.ndarray | float, n: int, edges: np.ndarray | None) -> np.ndarray:
    if np.ndim(step_cost) == 0:
        c = np.full((n, 6), float(step_cost))
    else:
        c = np.asarray(step_cost, dtype=np.float64)
        if c.shape != (n, 6):
            raise ValueError(f"step_cost must have shape ({n}, 6), not {c.shape}")
    if edges is not None:
        e = np.asarray(edges, dtype=bool)
        if e.shape != (n, 6):
            raise ValueError(f"edges must have shape ({n}, 6), not {e.shape}")
        c = np.where(e, c, np.inf)
    return c


def trace_from_sources(
    nbr: np.ndarray,
    step_cost: np.ndarray | float,
    sources: Sequence[int] | np.ndarray,
    limit: float | None = None,
    blocked: np.ndarray | None = None,
    *,
    links: Links | None = None,
    edges: np.ndarray | None = None,
    to_sources: bool = True,
    n_nodes: int | None = None,
) -> TraceResult:
    """Multi-source shortest paths over the hex graph (see the module docstring).

    ``step_cost`` is ``(n, 6)`` (or one number for every step), ``edges`` an optional
    ``(n, 6)`` mask of the steps allowed (e.g. along a road), ``sources`` node indices,
    ``limit`` the longest path kept, ``blocked`` a mask over hexes (or over all nodes)
    that paths may not enter, ``links`` extra ``(node, node, cost)`` edges to box nodes
    ``>= n`` or between distant hexes. ``n_nodes`` forces the node count (default: hexes
    plus the highest box node named).
    """
    nbr = np.asarray(nbr)
    if nbr.ndim != 2 or nbr.shape[1] != 6:
        raise ValueError(f"nbr must have shape (n, 6), not {nbr.shape}")
    n = nbr.shape[0]
    cost = _full_cost(step_cost, n, edges)
    la, lb, lc = _links_array(links)
    src = np.unique(np.asarray(sources, dtype=np.int64).reshape(-1))
    top = max([n - 1, *(int(x.max()) for x in (la, lb, src) if x.size)])
    total = top + 1 if n_nodes is None else int(n_nodes)
    if total <= top or (src.size and src.min() < 0):
        raise ValueError("a source or link node is out of range")
    blk = None
    if blocked is not None:
        b = np.asarray(blocked, dtype=bool)
        if b.shape == (total,):
            blk = b
        elif b.shape == (n,):
            blk = b if total == n else np.concatenate([b, np.zeros(total - n, dtype=bool)])
        else:
            raise ValueError(f"blocked must have shape ({n},) or ({total},)")
    s = _structure(nbr, to_sources, la, lb, total)
    if src.size == 0:
        none = np.full(total, -1, dtype=np.int32)
        return TraceResult(np.full(total, np.inf), none, none.copy(), to_sources)
    data = _weights(s, cost, lc, blk, to_sources)
    graph = sp.csr_matrix((data, s.indices, s.indptr), shape=(total, total))
    dist, pred, nearest = dijkstra(
        graph,
        indices=src,
        min_only=True,
        return_predecessors=True,
        limit=np.inf if limit is None else float(limit),
    )
    np.maximum(pred, -1, out=pred)
    np.maximum(nearest, -1, out=nearest)
    return TraceResult(dist, nearest, pred, to_sources)


# --------------------------------------------------------------------------- chained elements


@dataclass
class TraceElement:
    """One element of a supply line: its step costs, allowed steps, length and blockers.

    ``step_cost`` is ``(n, 6)`` or a number (``1.0`` counts hexes); ``edges`` restricts the
    steps to a network (road, rail; see :func:`edge_mask_from_sides`); ``limit`` is the
    element's longest length (None = unlimited); ``blocked`` marks nodes the element's
    path may not enter; ``links`` adds off-map links usable by this element.
    """

    step_cost: np.ndarray | float = 1.0
    limit: float | None = None
    blocked: np.ndarray | None = None
    edges: np.ndarray | None = None
    links: Links | None = None
    name: str = ""


@dataclass
class ChainResult:
    """Result of :func:`trace_elements`.

    ``elements[k]`` is the :class:`TraceResult` of element ``k`` (seeded by what element
    ``k + 1`` reached); ``supplied`` marks the nodes element 0 reached, i.e. those with a
    complete line; ``origin`` the original source each node's line ends at (``-1`` none).
    """

    elements: list[TraceResult]
    supplied: np.ndarray
    origin: np.ndarray
    names: list[str]
    to_sources: bool = True

    def path(self, node: int) -> list[tuple[int, list[int]]]:
        """The line from ``node`` as ``(element index, nodes)`` segments, in travel order.

        Segments of length zero (an element not needed) are left out. With
        ``to_sources`` the first segment starts at ``node``; otherwise the line is given
        from the source and ends at ``node``.
        """
        if not self.supplied[node]:
            raise KeyError(f"node {node} has no supply line")
        segs: list[tuple[int, list[int]]] = []
        cur = int(node)
        for k, res in enumerate(self.elements):
            p = res.path(cur)
            if not self.to_sources:
                p.reverse()
            if len(p) > 1:
                segs.append((k, p))
            cur = p[-1]
        if not self.to_sources:
            segs = [(k, list(reversed(p))) for k, p in reversed(segs)]
        return segs

    def flat_path(self, node: int) -> list[int]:
        """The whole line from :meth:`path` as one list of nodes."""
        out: list[int] = []
        for _, p in self.path(node):
            out.extend(p if not out else p[1:])
        return out or [int(node)]


def trace_elements(
    nbr: np.ndarray,
    elements: Sequence[TraceElement],
    sources: Sequence[int] | np.ndarray,
    *,
    to_sources: bool = True,
    n_nodes: int | None = None,
) -> ChainResult:
    """Trace a supply line made of ordered elements; ``elements[0]`` is at the unit's end.

    The last element is traced from ``sources``; every hex it reaches (within its limit)
    seeds the element before it with distance zero, and so on down to element 0. A node
    is supplied if element 0 reaches it: e.g. for ``[overland <= a, road <= b, rail]`` a
    hex is supplied when an overland path of length ``<= a`` reaches a hex that a road
    path of length ``<= b`` links to the rail net that reaches a source. Each element
    may be of length zero, so a source supplies its own hex whatever the limits.
    """
    if not elements:
        raise ValueError("a supply line needs at least one element")
    nbr = np.asarray(nbr)
    n = nbr.shape[0]
    tops = [n - 1]
    for el in elements:
        la, lb, _ = _links_array(el.links)
        tops.extend(int(x.max()) for x in (la, lb) if x.size)
    src = np.asarray(sources, dtype=np.int64).reshape(-1)
    if src.size:
        tops.append(int(src.max()))
    total = max(tops) + 1 if n_nodes is None else int(n_nodes)
    results: dict[int, TraceResult] = {}
    seeds = src
    origin = np.full(total, -1, dtype=np.int64)
    origin_prev: np.ndarray | None = None
    for k in range(len(elements) - 1, -1, -1):
        el = elements[k]
        res = trace_from_sources(
            nbr,
            el.step_cost,
            seeds,
            limit=el.limit,
            blocked=el.blocked,
            links=el.links,
            edges=el.edges,
            to_sources=to_sources,
            n_nodes=total,
        )
        results[k] = res
        reached = res.reached
        near = res.source.astype(np.int64)
        if origin_prev is None:
            origin = np.where(reached, near, -1)
        else:
            origin = np.where(reached, origin_prev[np.maximum(near, 0)], -1)
        origin_prev = origin
        seeds = np.flatnonzero(reached)
    ordered = [results[k] for k in range(len(elements))]
    return ChainResult(
        elements=ordered,
        supplied=ordered[0].reached,
        origin=origin,
        names=[el.name or f"element {k}" for k, el in enumerate(elements)],
        to_sources=to_sources,
    )


def edge_mask_from_sides(
    side_of: np.ndarray, side_mask: np.ndarray, nbr: np.ndarray | None = None
) -> np.ndarray:
    """``(n, 6)`` step mask from a per-hexside mask (e.g. ``Network.edges`` of a board).

    ``side_of`` is the board's ``(n, 6)`` hexside index per direction; steps off the board
    (``nbr == -1``, when given) or across a side index ``< 0`` are masked out.
    """
    side_of = np.asarray(side_of)
    mask = np.asarray(side_mask, dtype=bool)
    out = np.where(side_of >= 0, mask[np.maximum(side_of, 0)], False)
    if nbr is not None:
        out &= np.asarray(nbr) >= 0
    return out
