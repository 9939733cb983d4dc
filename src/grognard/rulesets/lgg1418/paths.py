"""Small breadth-first searches over the hex graph, kept apart so they can be swapped.

The whole-map distances of supply and isolation (9-C, 9-H, 22) use the project's
multi-source tracer (``grognard.search.trace``, see :mod:`.supply`). The short searches with
rule-specific step tests - rail networks, a unit's two-hex supply reach, land connections -
are plain breadth-first searches, written here in one place.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable


def bfs(
    starts: Iterable[int], step: Callable[[int], Iterable[int]], max_depth: int | None = None
) -> dict[int, int]:
    """Distance (in steps) from the nearest start to every hex reachable through ``step``."""
    dist: dict[int, int] = {}
    q: deque[int] = deque()
    for s in starts:
        if s not in dist:
            dist[s] = 0
            q.append(s)
    while q:
        u = q.popleft()
        d = dist[u]
        if max_depth is not None and d >= max_depth:
            continue
        for v in step(u):
            if v not in dist:
                dist[v] = d + 1
                q.append(v)
    return dist


def bfs_path(
    start: int, goals: set[int], step: Callable[[int], Iterable[int]], max_depth: int | None = None
) -> list[int] | None:
    """A shortest path (list of hexes, start first) from ``start`` to any goal, or None."""
    if start in goals:
        return [start]
    prev: dict[int, int | None] = {start: None}
    depth = {start: 0}
    q: deque[int] = deque([start])
    while q:
        u = q.popleft()
        if max_depth is not None and depth[u] >= max_depth:
            continue
        for v in step(u):
            if v in prev:
                continue
            prev[v] = u
            depth[v] = depth[u] + 1
            if v in goals:
                path = [v]
                cur: int | None = u
                while cur is not None:
                    path.append(cur)
                    cur = prev[cur]
                return path[::-1]
            q.append(v)
    return None


def widest(
    starts: dict[int, float], step: Callable[[int], Iterable[tuple[int, float]]]
) -> dict[int, float]:
    """Best bottleneck capacity from any start to every reachable node (inf = unlimited).

    ``starts`` maps a start node to its own capacity; ``step(u)`` yields ``(v, link
    capacity)``. A node's value is the largest, over paths, of the smallest capacity met.
    """
    best: dict[int, float] = dict(starts)
    order = sorted(starts, key=lambda k: -starts[k])
    q: deque[int] = deque(order)
    while q:
        u = q.popleft()
        for v, cap in step(u):
            val = min(best[u], cap)
            if val > best.get(v, -1.0):
                best[v] = val
                q.append(v)
    return best
