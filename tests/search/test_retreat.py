"""Retreat path enumeration and ranking."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from grognard.search.grid import rect_neighbors
from grognard.search.retreat import by_end, by_entered, combine, retreat_paths


def brute(nbr: np.ndarray, start: int, k: int, passable: np.ndarray) -> set[tuple[int, ...]]:
    out = set()
    for dirs in itertools.product(range(6), repeat=k):
        path = [start]
        for d in dirs:
            h = int(nbr[path[-1], d])
            if h < 0 or not passable[h] or h in path:
                break
            path.append(h)
        else:
            out.add(tuple(path))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_enumeration_matches_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    nbr = rect_neighbors(6, 5)
    passable = rng.random(30) < 0.75
    start = int(rng.integers(30))
    for k in (1, 2, 3):
        exact = retreat_paths(nbr, start, k, passable=passable)
        assert set(exact.paths) == brute(nbr, start, k, passable)
        assert len(exact.paths) == len(set(exact.paths))
        upto = retreat_paths(nbr, start, k, min_length=1, passable=passable)
        want = set().union(*(brute(nbr, start, j, passable) for j in range(1, k + 1)))
        assert set(upto.paths) == want


def test_ranking_and_ties() -> None:
    nbr = rect_neighbors(7, 7)
    start = 3 * 7 + 3
    enemy = np.zeros(49, bool)
    enemy[[start + 1, start - 7]] = True  # two enemy units next to the start
    zoc = np.zeros(49, bool)
    for e in np.flatnonzero(enemy):
        zoc[nbr[e][nbr[e] >= 0]] = True
    # distance from the nearest enemy by BFS (hex steps)
    dist = np.full(49, 99)
    frontier = list(np.flatnonzero(enemy))
    dist[frontier] = 0
    while frontier:
        nxt = []
        for h in frontier:
            for j in nbr[h][nbr[h] >= 0]:
                if dist[j] > dist[h] + 1:
                    dist[j] = dist[h] + 1
                    nxt.append(int(j))
        frontier = nxt
    score = combine(by_end(zoc.astype(int), -dist), by_entered(zoc.astype(int)))
    opts = retreat_paths(nbr, start, 2, passable=~enemy, score=score)
    assert opts and opts.best
    scores = [score(p) for p in opts.paths]
    assert scores == sorted(scores) == opts.scores
    best = opts.best_score
    assert best is not None and best[0] == 0  # one can end outside ZOC
    assert set(opts.best) == {p for p in opts.paths if score(p) == best}
    assert opts.ranked()[0] == opts.best
    assert sum(len(g) for g in opts.ranked()) == len(opts)
    for p in opts.best:
        assert not zoc[p[-1]] and dist[p[-1]] == -best[1]
    # a coarser priority leaves several equally good paths: the owner chooses among them
    coarse = retreat_paths(
        nbr, start, 2, passable=~enemy, score=by_end(zoc.astype(int), -np.minimum(dist, 2))
    )
    assert len(coarse.best) >= 2
    assert all(coarse.scores[i] == coarse.best_score for i in range(len(coarse.best)))
    assert coarse.scores[len(coarse.best)] != coarse.best_score


def test_can_enter_callable_and_surrounded() -> None:
    nbr = rect_neighbors(5, 5)
    start = 12
    # may not re-cross toward lower indices after the first step
    opts = retreat_paths(nbr, start, 2, can_enter=lambda path, h: h > path[-1])
    assert opts.paths and all(p[1] > p[0] and p[2] > p[1] for p in opts.paths)
    passable = np.zeros(25, bool)
    none = retreat_paths(nbr, start, 2, passable=passable)
    assert not none and none.best == [] and none.best_score is None
    assert retreat_paths(nbr, start, 0).paths == [(start,)]


def test_default_score_all_equal_and_deterministic() -> None:
    nbr = rect_neighbors(4, 4)
    a = retreat_paths(nbr, 5, 2)
    b = retreat_paths(nbr, 5, 2)
    assert a.paths == b.paths == sorted(a.paths)
    assert a.best == a.paths


def test_bad_arguments() -> None:
    nbr = rect_neighbors(3, 3)
    with pytest.raises(ValueError):
        retreat_paths(nbr, 99, 1)
    with pytest.raises(ValueError):
        retreat_paths(nbr, 0, 1, min_length=2)
    with pytest.raises(ValueError):
        retreat_paths(rect_neighbors(30, 30), 400, 8, max_paths=1000)
