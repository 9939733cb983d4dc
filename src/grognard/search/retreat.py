"""Retreat paths: enumerate and rank the ways a unit can retreat.

Retreat rules say how far a unit goes (exactly ``k`` hexes, or up to ``k``), where it may
not go (enemy units, prohibited terrain, sometimes enemy ZOC) and, among the legal
paths, which are preferred ("must end as far as possible from the enemy", "may not end
in an enemy ZOC if another path does not", ...). The rule system states the preference
as a score tuple per path, lower is better; this module enumerates every legal path
(no hex entered twice, the start included), sorts them best-first and returns the group
of equally best ones, so the engine can let the owning player choose among them.

Paths are tuples of hexes starting with the start hex: ``(start, h1, ..., hk)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "RetreatOptions",
    "by_end",
    "by_entered",
    "combine",
    "retreat_paths",
]

Path = tuple[int, ...]
Score = tuple[Any, ...]
Scorer = Callable[[Path], Score]


@dataclass
class RetreatOptions:
    """Legal retreat paths, best first, with their scores.

    ``best`` holds every path whose score equals the best one (empty if no path is
    legal, e.g. the unit is surrounded and must be eliminated).
    """

    paths: list[Path]
    scores: list[Score]
    best: list[Path] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.paths)

    def __len__(self) -> int:
        return len(self.paths)

    @property
    def best_score(self) -> Score | None:
        return self.scores[0] if self.scores else None

    def ranked(self) -> list[list[Path]]:
        """Paths grouped by equal score, best group first."""
        groups: list[list[Path]] = []
        last: Score | None = None
        for p, s in zip(self.paths, self.scores):
            if not groups or s != last:
                groups.append([])
                last = s
            groups[-1].append(p)
        return groups


def retreat_paths(
    nbr: np.ndarray,
    start: int,
    length: int,
    *,
    min_length: int | None = None,
    passable: np.ndarray | None = None,
    can_enter: Callable[[Path, int], bool] | None = None,
    score: Scorer | None = None,
    max_paths: int = 200_000,
) -> RetreatOptions:
    """Every retreat path of ``min_length..length`` hexes from ``start``, ranked.

    ``length`` is the number of hexes entered; ``min_length`` defaults to ``length``
    (retreat exactly that far; pass 1 for "up to ``length``"). A path may enter hex
    ``h`` only if ``passable[h]`` (default: every hex) and ``can_enter(path_so_far, h)``
    (optional, for rules that look at the hexside crossed or the path so far), and
    never enters a hex twice or returns to ``start``. ``score(path)`` gives the
    priority tuple (lower is better; default: all paths equal). Ties keep a
    deterministic order (by the hexes of the path). Raises ``ValueError`` if more
    than ``max_paths`` partial paths would be explored.
    """
    nbr = np.asarray(nbr)
    if nbr.ndim != 2 or nbr.shape[1] != 6:
        raise ValueError(f"nbr must have shape (n, 6), not {nbr.shape}")
    n = nbr.shape[0]
    if not 0 <= start < n:
        raise ValueError(f"start hex {start} out of range")
    lo = length if min_length is None else min_length
    if length < 0 or lo < 0 or lo > length:
        raise ValueError(f"bad retreat length {lo}..{length}")
    ok = (
        np.ones(n + 1, dtype=bool)
        if passable is None
        else np.append(np.asarray(passable, bool), False)
    )
    ok[n] = False  # index -1 (off the board) reads this entry

    found: list[np.ndarray] = []
    paths = np.array([[start]], dtype=np.int64)
    if lo == 0:
        found.append(paths)
    for step in range(1, length + 1):
        cand = nbr[paths[:, -1]].astype(np.int64)  # (P, 6)
        good = ok[cand]
        good &= ~(cand[:, :, None] == paths[:, None, :]).any(axis=2)
        r, d = np.nonzero(good)
        if len(r) > max_paths:
            raise ValueError(f"more than {max_paths} retreat paths to explore")
        nxt = np.concatenate([paths[r], cand[r, d][:, None]], axis=1)
        if can_enter is not None and len(nxt):
            keep = [can_enter(tuple(p[:-1].tolist()), int(p[-1])) for p in nxt]
            nxt = nxt[np.array(keep, dtype=bool)]
        paths = nxt
        if step >= lo and len(paths):
            found.append(paths)
        if not len(paths):
            break

    all_paths = [tuple(p) for arr in found for p in arr.tolist()]
    scorer: Scorer = score or (lambda p: ())
    scored = sorted(((tuple(scorer(p)), p) for p in all_paths), key=lambda sp: (sp[0], sp[1]))
    out_paths = [p for _, p in scored]
    out_scores = [s for s, _ in scored]
    best = [p for s, p in scored if s == out_scores[0]] if scored else []
    return RetreatOptions(out_paths, out_scores, best)


# --------------------------------------------------------------------------- scoring helpers


def by_end(*arrays: np.ndarray | Sequence[Any]) -> Scorer:
    """Score a path by per-hex values at its last hex, e.g. ``by_end(in_zoc, -dist_enemy)``."""
    lists = [np.asarray(a).tolist() for a in arrays]
    return lambda p: tuple(a[p[-1]] for a in lists)


def by_entered(*arrays: np.ndarray | Sequence[Any]) -> Scorer:
    """Score a path by the sum of per-hex values over the hexes it enters (start excluded)."""
    lists = [np.asarray(a).tolist() for a in arrays]
    return lambda p: tuple(sum(a[h] for h in p[1:]) for a in lists)


def combine(*scorers: Scorer) -> Scorer:
    """Concatenate the tuples of several scorers (earlier ones take priority)."""
    return lambda p: tuple(x for s in scorers for x in s(p))
