"""rect_neighbors agrees with hexgrid and with a Board built from the same sheet."""

from __future__ import annotations

import numpy as np
import pytest

from grognard import hexgrid
from grognard.board import BoardBuilder
from grognard.hexgrid import SheetGeometry
from grognard.search.grid import rect_axial, rect_index, rect_neighbors


@pytest.mark.parametrize("shifted", ["even", "odd"])
@pytest.mark.parametrize(("cols", "rows"), [(1, 1), (1, 5), (5, 1), (7, 4), (8, 9)])
def test_rect_neighbors_match_hexgrid(cols: int, rows: int, shifted: str) -> None:
    sheet = SheetGeometry("A", orientation="columns", shifted=shifted)  # type: ignore[arg-type]
    nbr = rect_neighbors(cols, rows, shifted)  # type: ignore[arg-type]
    q, r = rect_axial(cols, rows, shifted)  # type: ignore[arg-type]
    assert nbr.shape == (cols * rows, 6) and nbr.dtype == np.int32
    for row in range(rows):
        for col in range(cols):
            i = rect_index(col, row, cols)
            h = sheet.to_axial(col, row)
            assert (q[i], r[i]) == tuple(h)
            for d, nh in enumerate(hexgrid.neighbors(h)):
                c2, r2 = sheet.to_offset(nh)
                want = rect_index(c2, r2, cols) if 0 <= c2 < cols and 0 <= r2 < rows else -1
                assert nbr[i, d] == want
                assert nh == hexgrid.neighbor(h, d)


def test_rect_neighbors_symmetric() -> None:
    nbr = rect_neighbors(13, 11)
    i, d = np.nonzero(nbr >= 0)
    assert np.array_equal(nbr[nbr[i, d], (d + 3) % 6], i)


def test_rect_matches_board_adjacency() -> None:
    cols, rows = 6, 5
    sheet = SheetGeometry("A")
    b = BoardBuilder()
    b.declare_terrain(["clear"])
    b.add_sheet(sheet, range(cols), range(rows))
    board = b.build()
    nbr = rect_neighbors(cols, rows)
    to_board = np.array(
        [board.index[sheet.to_axial(c, r)] for r in range(rows) for c in range(cols)]
    )
    expect = np.where(nbr >= 0, to_board[np.maximum(nbr, 0)], -1)
    assert np.array_equal(board.nbr[to_board], expect)


def test_bad_sizes() -> None:
    with pytest.raises(ValueError):
        rect_neighbors(0, 3)
    with pytest.raises(ValueError):
        rect_neighbors(3, 3, "middle")  # type: ignore[arg-type]
