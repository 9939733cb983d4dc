"""Synthetic rectangular hex maps as plain arrays (for tests and benchmarks).

The layout is the one of :class:`grognard.hexgrid.SheetGeometry` with
``orientation="columns"``: flat-topped hexes in vertical columns, printed column ``c``
being axial ``q = c`` and printed row ``r`` being axial ``r - lift(c)``. Hex index
``i = row * cols + col`` (row-major, the column varies fastest).

Directions are the axial directions of :mod:`grognard.hexgrid` (0..5 counter-clockwise
from ``(+1, 0)``), so ``rect_neighbors(...)[i, d]`` is the hex that
``hexgrid.neighbor(h, d)`` names, or ``-1`` when that hex is off the rectangle.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from grognard.hexgrid import DIRECTIONS

__all__ = ["rect_axial", "rect_index", "rect_neighbors"]

_DQ = np.array([d[0] for d in DIRECTIONS], dtype=np.int64)
_DR = np.array([d[1] for d in DIRECTIONS], dtype=np.int64)


def _lift(col: np.ndarray, shifted: str) -> np.ndarray:
    """Vectorised ``hexgrid._lift``: how far printed column ``col`` is displaced."""
    odd = col & 1
    return (col - odd) // 2 if shifted == "odd" else (col + odd) // 2


def _check(cols: int, rows: int, shifted: str) -> None:
    if cols <= 0 or rows <= 0:
        raise ValueError(f"a rectangular map needs positive size, not {cols}x{rows}")
    if shifted not in ("even", "odd"):
        raise ValueError(f"shifted must be 'even' or 'odd', not {shifted!r}")


def rect_axial(
    cols: int, rows: int, shifted: Literal["even", "odd"] = "even"
) -> tuple[np.ndarray, np.ndarray]:
    """Axial ``(q, r)`` of every hex of a ``cols`` x ``rows`` map, as two int64 arrays."""
    _check(cols, rows, shifted)
    idx = np.arange(cols * rows, dtype=np.int64)
    col = idx % cols
    row = idx // cols
    return col, row - _lift(col, shifted)


def rect_index(col: int, row: int, cols: int) -> int:
    """Hex index of printed (0-based) ``col``, ``row`` on a map ``cols`` wide."""
    return row * cols + col


def rect_neighbors(cols: int, rows: int, shifted: Literal["even", "odd"] = "even") -> np.ndarray:
    """Neighbour table ``(cols*rows, 6) int32`` of a rectangular flat-top map.

    ``nbr[i, d]`` is the index of the hex in axial direction ``d`` from hex ``i``, or
    ``-1`` if it is off the map. Fully vectorised (no Python loop over hexes).
    """
    q, r = rect_axial(cols, rows, shifted)
    q2 = q[:, None] + _DQ[None, :]
    r2 = r[:, None] + _DR[None, :]
    row2 = r2 + _lift(q2, shifted)
    inside = (q2 >= 0) & (q2 < cols) & (row2 >= 0) & (row2 < rows)
    return np.where(inside, row2 * cols + q2, -1).astype(np.int32)
