"""Helpers for the search tests: random maps as arrays (imported by the test modules)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grognard.search.grid import rect_neighbors


@dataclass
class RandomMap:
    nbr: np.ndarray
    step_cost: np.ndarray
    zoc: np.ndarray
    blocked: np.ndarray
    exit_cost: np.ndarray

    @property
    def n(self) -> int:
        return len(self.nbr)


def random_map(rng: np.random.Generator, cols: int, rows: int, holes: float = 0.05) -> RandomMap:
    """A rectangular map with holes, asymmetric fractional costs, ZOC, blockers, exit costs."""
    nbr = rect_neighbors(cols, rows)
    n = len(nbr)
    gone = rng.random(n) < holes
    nbr = np.where(np.isin(nbr, np.flatnonzero(gone)), -1, nbr).astype(np.int32)
    nbr[gone] = -1
    hex_cost = rng.choice([1.0, 2.0, 3.0, 0.5, np.inf], size=n, p=[0.4, 0.2, 0.15, 0.15, 0.1])
    side = np.where(rng.random((n, 6)) < 0.1, rng.choice([1.0, np.inf], size=(n, 6)), 0.0)
    step = np.where(nbr >= 0, hex_cost[np.maximum(nbr, 0)] + side, np.inf)
    zoc = rng.random(n) < 0.3
    blocked = rng.random(n) < 0.08
    exit_cost = rng.choice([0.0, 1.0, 2.0], size=n)
    return RandomMap(nbr, step, zoc, blocked, exit_cost)
