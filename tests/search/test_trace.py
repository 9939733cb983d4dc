"""Supply tracing: multi-source traces and chained elements against a plain Dijkstra."""

from __future__ import annotations

import heapq
import itertools
import math

import numpy as np
import pytest
from search_helpers import random_map

from grognard.board import BoardBuilder
from grognard.hexgrid import SheetGeometry
from grognard.search.grid import rect_neighbors
from grognard.search.trace import (
    TraceElement,
    edge_mask_from_sides,
    trace_elements,
    trace_from_sources,
)


def steps(
    nbr: np.ndarray, cost: np.ndarray, links: list[tuple[int, int, float]], total: int
) -> list[list[tuple[int, float]]]:
    """Forward path steps ``out[u] = [(v, cost)]`` over hexes and link nodes."""
    out: list[list[tuple[int, float]]] = [[] for _ in range(total)]
    for u, d in zip(*np.nonzero(nbr >= 0)):
        if math.isfinite(cost[u, d]):
            out[int(u)].append((int(nbr[u, d]), float(cost[u, d])))
    for a, b, c in links:
        out[a].append((b, c))
        out[b].append((a, c))
    return out


def ref_trace(
    nbr: np.ndarray,
    cost: np.ndarray,
    sources: list[int],
    *,
    limit: float = math.inf,
    blocked: np.ndarray | None = None,
    links: list[tuple[int, int, float]] = (),  # type: ignore[assignment]
    to_sources: bool = True,
    total: int | None = None,
) -> np.ndarray:
    """Distances by a heap Dijkstra written from the documented semantics."""
    total = total or len(nbr)
    fwd = steps(nbr, cost, list(links), total)
    if to_sources:  # search backwards along path steps
        adj: list[list[tuple[int, float]]] = [[] for _ in range(total)]
        for u in range(total):
            for v, c in fwd[u]:
                adj[v].append((u, c))
    else:
        adj = fwd
    blk = np.zeros(total, bool) if blocked is None else np.resize(np.asarray(blocked, bool), total)
    if blocked is not None and len(blocked) < total:
        blk[len(blocked) :] = False
    dist = np.full(total, math.inf)
    heap = [(0.0, s) for s in sources]
    for s in sources:
        dist[s] = 0.0
    while heap:
        d, v = heapq.heappop(heap)
        if d > dist[v]:
            continue
        if to_sources and blk[v]:
            continue  # the path would have to enter v
        for w, c in adj[v]:
            if not to_sources and blk[w]:
                continue
            nd = d + c
            if nd <= limit and nd < dist[w]:
                dist[w] = nd
                heapq.heappush(heap, (nd, w))
    return dist


def check_trace_paths(res, nbr, cost, blocked, links, to_sources) -> None:  # type: ignore[no-untyped-def]
    link_cost = {}
    for a, b, c in links:
        link_cost[(a, b)] = link_cost[(b, a)] = c
    for h in np.flatnonzero(res.reached).tolist():
        p = res.path(h)
        assert (p[0] if to_sources else p[-1]) == h
        assert (p[-1] if to_sources else p[0]) == res.source[h]
        total = 0.0
        for u, v in itertools.pairwise(p):
            if u < len(nbr) and v in nbr[u].tolist():
                total += cost[u, nbr[u].tolist().index(v)]
            else:
                total += link_cost[(u, v)]
            if blocked is not None and v < len(blocked):
                assert not blocked[v]
        assert total == pytest.approx(res.dist[h])


@pytest.mark.parametrize("to_sources", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_trace_matches_reference(seed: int, to_sources: bool) -> None:
    rng = np.random.default_rng(seed)
    m = random_map(rng, int(rng.integers(3, 14)), int(rng.integers(3, 14)))
    sources = rng.choice(m.n, size=int(rng.integers(1, 5)), replace=False).tolist()
    limit = [None, 3.0, 6.5][seed % 3]
    blocked = m.blocked if seed % 2 else None
    res = trace_from_sources(m.nbr, m.step_cost, sources, limit, blocked, to_sources=to_sources)
    want = ref_trace(
        m.nbr, m.step_cost, sources, limit=limit or math.inf, blocked=blocked, to_sources=to_sources
    )
    assert np.array_equal(res.dist, want)
    assert set(res.source[res.reached].tolist()) <= set(sources)
    assert np.all(res.source[~res.reached] == -1)
    check_trace_paths(res, m.nbr, m.step_cost, blocked, [], to_sources)


def test_trace_matches_networkx() -> None:
    nx = pytest.importorskip("networkx")
    rng = np.random.default_rng(99)
    m = random_map(rng, 15, 12)
    sources = [3, 77, 150]
    res = trace_from_sources(m.nbr, m.step_cost, sources, blocked=m.blocked, to_sources=False)
    g = nx.DiGraph()
    g.add_nodes_from(range(m.n))
    for u, d in zip(*np.nonzero(m.nbr >= 0)):
        v = int(m.nbr[u, d])
        if math.isfinite(m.step_cost[u, d]) and not m.blocked[v]:
            g.add_edge(int(u), v, weight=float(m.step_cost[u, d]))
    lengths = nx.multi_source_dijkstra_path_length(g, set(sources))
    want = np.full(m.n, math.inf)
    want[list(lengths)] = list(lengths.values())
    assert np.array_equal(res.dist, want)


def test_blocked_hex_can_start_but_not_be_entered() -> None:
    nbr = rect_neighbors(6, 1)
    cost = np.where(nbr >= 0, 1.0, np.inf)
    blocked = np.zeros(6, bool)
    blocked[[2, 5]] = True
    res = trace_from_sources(nbr, cost, [0], blocked=blocked)
    assert res.dist.tolist() == [0, 1, 2, math.inf, math.inf, math.inf]
    res = trace_from_sources(nbr, cost, [5], blocked=blocked)  # a blocked source: itself only
    assert res.dist.tolist() == [math.inf] * 5 + [0]


def test_asymmetric_costs_direction() -> None:
    nbr = rect_neighbors(4, 1)
    cost = np.where(nbr >= 0, 1.0, np.inf)
    right = [int(np.flatnonzero(nbr[i] == i + 1)[0]) for i in range(3)]
    for i, d in enumerate(right):
        cost[i, d] = 5.0  # going right is expensive (uphill)
    to = trace_from_sources(nbr, cost, [3])  # units trace uphill to the source at 3
    out = trace_from_sources(nbr, cost, [3], to_sources=False)  # supply flows downhill
    assert to.dist.tolist() == [15, 10, 5, 0]
    assert out.dist.tolist() == [3, 2, 1, 0]
    assert to.path(0) == [0, 1, 2, 3] and out.path(0) == [3, 2, 1, 0]


def test_offmap_links_and_boxes() -> None:
    nbr = rect_neighbors(11, 1)
    nbr = np.where(nbr == 5, -1, nbr).astype(np.int32)  # hex 5 is sea: two islands
    nbr[5] = -1
    cost = np.where(nbr >= 0, 1.0, np.inf)
    links = [(4, 11, 1.0), (11, 6, 1.0)]  # ports 4 and 6 share the box node 11
    res = trace_from_sources(nbr, cost, [0], links=links)
    assert len(res.dist) == 12
    assert res.dist[10] == 4 + 2 + 4 and res.dist[11] == 5
    assert res.path(10) == [10, 9, 8, 7, 6, 11, 4, 3, 2, 1, 0]
    check_trace_paths(res, nbr, cost, None, links, True)
    assert math.isinf(trace_from_sources(nbr, cost, [0]).dist[10])
    blocked_box = np.zeros(12, bool)
    blocked_box[11] = True
    assert math.isinf(trace_from_sources(nbr, cost, [0], links=links, blocked=blocked_box).dist[10])
    from_box = trace_from_sources(nbr, cost, [11], links=links)
    assert from_box.dist[0] == 5 and from_box.dist[10] == 5
    want = ref_trace(nbr, cost, [0], links=links, total=12)
    assert np.array_equal(res.dist, want)
    with pytest.raises(ValueError):
        trace_from_sources(nbr, cost, [0], links=[(0, -3, 1.0)])
    with pytest.raises(ValueError):
        trace_from_sources(nbr, cost, [0], links=[(0, 11, -1.0)])


def test_weights_rebuilt_per_call_structure_cached() -> None:
    rng = np.random.default_rng(4)
    m = random_map(rng, 9, 9)
    a = trace_from_sources(m.nbr, m.step_cost, [10]).dist
    b = trace_from_sources(m.nbr, m.step_cost * 2, [10]).dist
    assert np.array_equal(a * 2, b)
    c = trace_from_sources(m.nbr, 1.0, [10]).dist  # scalar cost counts hexes
    assert np.array_equal(c, ref_trace(m.nbr, np.where(m.nbr >= 0, 1.0, np.inf), [10]))


def test_no_sources() -> None:
    nbr = rect_neighbors(3, 3)
    res = trace_from_sources(nbr, 1.0, [])
    assert not res.reached.any() and (res.source == -1).all()
    with pytest.raises(KeyError):
        res.path(0)


# --------------------------------------------------------------------------- chained elements


def strip() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """15 hexes in a line; road 5..10, rail 10..14."""
    nbr = rect_neighbors(15, 1)
    road = np.zeros((15, 6), bool)
    rail = np.zeros((15, 6), bool)
    for i in range(14):
        d = int(np.flatnonzero(nbr[i] == i + 1)[0])
        net = road if 5 <= i < 10 else rail if i >= 10 else None
        if net is not None:
            net[i, d] = True
            net[i + 1, (d + 3) % 6] = True
    return nbr, road, rail


def test_chain_overland_road_rail() -> None:
    nbr, road, rail = strip()
    els = [
        TraceElement(1.0, limit=2, name="overland"),
        TraceElement(1.0, limit=3, edges=road, name="road"),
        TraceElement(1.0, edges=rail, name="rail"),
    ]
    res = trace_elements(nbr, els, [14])
    assert np.flatnonzero(res.supplied).tolist() == list(range(5, 15))
    assert (res.origin[res.supplied] == 14).all() and (res.origin[~res.supplied] == -1).all()
    assert res.path(5) == [(0, [5, 6, 7]), (1, [7, 8, 9, 10]), (2, [10, 11, 12, 13, 14])]
    assert res.flat_path(5) == list(range(5, 15))
    assert res.path(12) == [(2, [12, 13, 14])]
    assert res.flat_path(14) == [14]
    with pytest.raises(KeyError):
        res.path(4)
    # a blocker on the road element only
    blk = np.zeros(15, bool)
    blk[8] = True
    els[1] = TraceElement(1.0, limit=3, edges=road, blocked=blk)
    res = trace_elements(nbr, els, [14])
    # a road path may start on 8 but not enter it: the road reaches 8, not 7
    assert np.isfinite(res.elements[1].dist[8]) and np.isinf(res.elements[1].dist[7])
    assert np.flatnonzero(res.supplied).tolist() == list(range(6, 15))
    assert res.path(6) == [(0, [6, 7, 8]), (1, [8, 9, 10]), (2, [10, 11, 12, 13, 14])]
    # traced from the source outward, a road path ends on 8 (enters it): it stops at 9
    out = trace_elements(nbr, els, [14], to_sources=False)
    assert np.flatnonzero(out.supplied).tolist() == list(range(7, 15))
    assert out.flat_path(7) == res.flat_path(7)[::-1] == [14, 13, 12, 11, 10, 9, 8, 7]


@pytest.mark.parametrize("seed", range(5))
def test_chain_matches_reference(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    m = random_map(rng, 12, 10)
    net = rng.random((m.n, 6)) < 0.5
    net &= net[np.maximum(m.nbr, 0), [3, 4, 5, 0, 1, 2]] | (m.nbr < 0)
    els = [
        TraceElement(m.step_cost, limit=3.0, blocked=m.zoc & ~m.blocked),
        TraceElement(1.0, limit=4.0, edges=net, blocked=m.blocked),
        TraceElement(0.5, limit=None, edges=net & (rng.random((m.n, 6)) < 0.7)),
    ]
    sources = rng.choice(m.n, 2, replace=False).tolist()
    for to_sources in (True, False):
        res = trace_elements(m.nbr, els, sources, to_sources=to_sources)
        seeds = sources
        for k in range(len(els) - 1, -1, -1):
            el = els[k]
            cost = np.where(el.edges if el.edges is not None else True, el.step_cost, np.inf)
            cost = np.broadcast_to(cost, (m.n, 6))
            d = ref_trace(
                m.nbr,
                cost,
                seeds,
                limit=el.limit or math.inf,
                blocked=el.blocked,
                to_sources=to_sources,
            )
            assert np.array_equal(res.elements[k].dist, d)
            seeds = np.flatnonzero(np.isfinite(d)).tolist()
        assert np.array_equal(res.supplied, np.isfinite(d))
        for h in np.flatnonzero(res.supplied).tolist():
            line = res.flat_path(h)
            assert line[0 if to_sources else -1] == h
            assert line[-1 if to_sources else 0] == res.origin[h] and res.origin[h] in sources


def test_edge_mask_from_board_network() -> None:
    sheet = SheetGeometry("A")
    b = BoardBuilder()
    b.declare_terrain(["clear"])
    b.add_sheet(sheet, range(4), range(4))
    h1, h2 = sheet.to_axial(1, 1), sheet.to_axial(2, 1)
    b.add_network_link("main road", "road", h1, h2)
    board = b.build()
    mask = edge_mask_from_sides(board.side_of, board.networks["main road"].edges, board.nbr)
    i, j = board.index[h1], board.index[h2]
    assert mask.sum() == 2
    assert board.nbr[i][mask[i]].tolist() == [j] and board.nbr[j][mask[j]].tolist() == [i]
    res = trace_from_sources(board.nbr, 1.0, [i], edges=mask)
    assert np.flatnonzero(res.reached).tolist() == sorted([i, j])


def test_bad_inputs() -> None:
    nbr = rect_neighbors(3, 3)
    with pytest.raises(ValueError):
        trace_from_sources(nbr[:, :5], 1.0, [0])
    with pytest.raises(ValueError):
        trace_from_sources(nbr, np.ones((9, 5)), [0])
    with pytest.raises(ValueError):
        trace_from_sources(nbr, 1.0, [0], blocked=np.zeros(4, bool))
    with pytest.raises(ValueError):
        trace_from_sources(nbr, 1.0, [0], n_nodes=5)
    with pytest.raises(ValueError):
        trace_elements(nbr, [], [0])
