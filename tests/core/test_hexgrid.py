"""Hex geometry: ids, distances, hexsides, vertices, lines (property tests)."""

import itertools

from hypothesis import given
from hypothesis import strategies as st

from grognard import hexgrid
from grognard.hexgrid import COMPASS, Hex, SheetGeometry

coord = st.integers(min_value=-60, max_value=60)
hexes = st.builds(Hex, coord, coord)
sheets = st.builds(
    SheetGeometry,
    name=st.sampled_from(["GW2", "E26", "WS"]),
    orientation=st.sampled_from(["columns", "rows"]),
    shifted=st.sampled_from(["even", "odd"]),
    origin=st.tuples(st.integers(-20, 20), st.integers(-20, 20)),
)


@given(sheets, st.integers(0, 99), st.integers(0, 99))
def test_printed_id_round_trip(sheet: SheetGeometry, col: int, row: int) -> None:
    h = sheet.to_axial(col, row)
    assert sheet.to_offset(h) == (col, row)
    text = sheet.format_id(h, qualified=True)
    assert text == f"{sheet.name}:{col:02d}{row:02d}"
    assert sheet.parse_id(text) == h
    assert sheet.parse_id(text.split(":")[1]) == h


@given(sheets, st.integers(1, 98), st.integers(1, 98))
def test_printed_neighbours_are_the_expected_offset_cells(
    sheet: SheetGeometry, col: int, row: int
) -> None:
    """Every hex has exactly two neighbours in its own printed column (rows: its own row)."""
    h = sheet.to_axial(col, row)
    offs = [sheet.to_offset(n) for n in hexgrid.neighbors(h)]
    if sheet.orientation == "columns":
        assert sorted(r for c, r in offs if c == col) == [row - 1, row + 1]
        assert sum(1 for c, _ in offs if c == col - 1) == 2
        assert sum(1 for c, _ in offs if c == col + 1) == 2
    else:
        assert sorted(c for c, r in offs if r == row) == [col - 1, col + 1]


def test_shifted_columns_sit_lower() -> None:
    odd = SheetGeometry("A", "columns", "odd")
    # odd columns sit half a hex lower: from 0101 the south-east neighbour is 0202, the north-east
    # 0201
    h = odd.to_axial(1, 1)
    se = hexgrid.neighbor(h, COMPASS["columns"]["SE"])
    ne = hexgrid.neighbor(h, COMPASS["columns"]["NE"])
    assert odd.to_offset(se) == (2, 2)
    assert odd.to_offset(ne) == (2, 1)
    # even columns sit lower: from 0101 the south-east neighbour is 0201, the north-east 0200
    even = SheetGeometry("B", "columns", "even")
    h = even.to_axial(1, 1)
    assert even.to_offset(hexgrid.neighbor(h, COMPASS["columns"]["SE"])) == (2, 1)
    assert even.to_offset(hexgrid.neighbor(h, COMPASS["columns"]["NE"])) == (2, 0)


@given(hexes, hexes)
def test_distance_symmetry(a: Hex, b: Hex) -> None:
    assert hexgrid.distance(a, b) == hexgrid.distance(b, a)
    assert (hexgrid.distance(a, b) == 0) == (a == b)


@given(hexes, hexes, hexes)
def test_triangle_inequality(a: Hex, b: Hex, c: Hex) -> None:
    assert hexgrid.distance(a, c) <= hexgrid.distance(a, b) + hexgrid.distance(b, c)


@given(hexes, st.integers(0, 5))
def test_hexside_identity(h: Hex, d: int) -> None:
    n = hexgrid.neighbor(h, d)
    s = hexgrid.hexside(h, d)
    assert s == hexgrid.hexside(n, (d + 3) % 6)
    assert s == hexgrid.hexside_between(h, n) == hexgrid.hexside_between(n, h)
    assert set(hexgrid.hexside_hexes(s)) == {h, n}
    assert s.k in (0, 1, 2)


@given(hexes, st.integers(0, 5))
def test_vertex_shared_by_three_hexes(h: Hex, d: int) -> None:
    v = hexgrid.vertex(h, d)
    for x in hexgrid.vertex_hexes(v):
        assert v in hexgrid.hex_vertices(x)


@given(hexes, st.integers(0, 6))
def test_ring_and_spiral(h: Hex, r: int) -> None:
    ring = hexgrid.ring(h, r)
    assert len(ring) == (1 if r == 0 else 6 * r)
    assert all(hexgrid.distance(h, x) == r for x in ring)
    assert len(set(hexgrid.spiral(h, r))) == 1 + 3 * r * (r + 1)


@given(hexes, hexes, st.sampled_from([1, -1]))
def test_line_is_connected_and_shortest(a: Hex, b: Hex, nudge: int) -> None:
    ln = hexgrid.line(a, b, nudge)
    assert ln[0] == a and ln[-1] == b
    assert len(ln) == hexgrid.distance(a, b) + 1
    for x, y in itertools.pairwise(ln):
        assert hexgrid.distance(x, y) == 1
    assert len(hexgrid.line_hexsides(a, b, nudge)) == hexgrid.distance(a, b)


def test_parse_errors() -> None:
    g = SheetGeometry("GW2")
    for bad in ("GW1:0101", "01x1", "101"):
        try:
            g.parse_id(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad} parsed")
    assert hexgrid.parse_hex_id("GW2:0619") == ("GW2", "0619")
    assert hexgrid.parse_hex_id("0619") == (None, "0619")
