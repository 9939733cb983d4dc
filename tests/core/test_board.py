"""Board compilation: arrays, hexside features, points, networks, areas, boxes, stitching."""

import numpy as np
import pytest

from grognard import hexgrid
from grognard.board import BoardBuilder, BoardError, Box, BoxLink, Point
from grognard.hexgrid import SheetGeometry


def two_sheets() -> BoardBuilder:
    b = BoardBuilder()
    b.declare_terrain(["clear", "forest", "sea"])
    b.declare_features(["river", "canal", "all-sea", "prohibited"])
    b.declare_point_kinds(["city", "port"])
    west = SheetGeometry("W", "columns", "even", origin=(0, 0))
    # the east sheet starts one column further east; even columns shifted on both sheets
    east = SheetGeometry("E", "columns", "even", origin=(10, -5))
    b.add_sheet(west, range(1, 11), range(1, 6))
    b.add_sheet(east, range(1, 6), range(1, 6))
    return b


def test_stitched_sheets_share_hexes_and_neighbours() -> None:
    b = two_sheets()
    board = b.build()
    w10 = board.idx("W:1003")
    # E:0103 is one column east of W:1003 on the global lattice
    e01 = board.idx("E:0103")
    assert board.distance(w10, e01) == 1
    assert e01 in board.neighbors(w10)
    assert board.labels[w10] == "W:1003"
    assert board.n == 10 * 5 + 5 * 5


def test_arrays_are_consistent() -> None:
    board = two_sheets().build()
    for i in range(board.n):
        for d in range(6):
            j = board.nbr[i, d]
            s = board.side_of[i, d]
            if j >= 0:
                assert board.nbr[j, (d + 3) % 6] == i
                assert board.side_of[j, (d + 3) % 6] == s
                assert set(board.side_hexes[s].tolist()) == {i, j}
            else:
                assert -1 in board.side_hexes[s].tolist()


def test_features_points_networks_areas_boxes() -> None:
    b = two_sheets()
    h = b.hex("W:0203")
    n = b.hex("W:0204")
    b.set_terrain(h, "forest")
    b.add_side_feature(h, n, "river", {"kind": "major"})
    b.add_point(h, Point("city", "Reims", {"size": "partial"}))
    b.add_network_link("rail", "rail", h, n, {"gauge": "standard"})
    b.add_area("Champagne", "district", [h, n])
    b.add_area("North Sea", "sea_zone", [b.hex("W:0101")], adjacent=["Champagne"])
    b.add_box(Box("Paris-box", "holding", (BoxLink("W:0203", 3, "rail"),)))
    board = b.build()
    i, j = board.idx("W:0203"), board.idx("W:0204")
    s = board.side_between(i, j)
    assert board.terrain_of(i) == "forest"
    assert board.side_has(s, "river") and not board.side_has(s, "canal")
    assert board.side_attrs[s] == {"kind": "major"}
    assert board.side_feature_list(s) == ["river"]
    assert board.side_mask("river").sum() == 1
    assert board.points_at(i, "city")[0].name == "Reims"
    assert board.point_mask("city")[i] and board.point_mask("city").sum() == 1
    assert board.find_point("Reims")[0] == i
    assert board.networks["rail"].has_link(s)
    assert board.networks["rail"].attrs[s]["gauge"] == "standard"
    assert board.networks["rail"].hexes[[i, j]].all()
    arr, names = board.area_map("district")
    assert names == ["Champagne"] and arr[i] == 0 and arr[board.idx("W:0101")] == -1
    assert board.area_of(j, "district") == "Champagne"
    assert board.boxes["Paris-box"].links[0].distance == 3


def test_builder_errors() -> None:
    b = two_sheets()
    with pytest.raises(BoardError, match="unknown hex"):
        b.hex("W:9999")
    with pytest.raises(BoardError, match="unknown hexside feature"):
        b.add_side_feature(b.hex("W:0101"), b.hex("W:0102"), "wall")
    with pytest.raises(BoardError, match="not adjacent"):
        b.add_side_feature(b.hex("W:0101"), b.hex("W:0105"), "river")
    with pytest.raises(BoardError, match="given twice"):
        b.add_sheet(SheetGeometry("W"), range(1, 2), range(1, 2))
    b.add_box(Box("x", "holding", (BoxLink("nowhere", 1),)))
    with pytest.raises(BoardError, match="unknown place"):
        b.build()


def test_lines_on_board() -> None:
    board = two_sheets().build()
    a, c = board.idx("W:0101"), board.idx("W:0505")
    line = board.line(a, c)
    assert line[0] == a and line[-1] == c
    assert len(board.line_sides(a, c)) == board.distance(a, c)
    assert set(board.within(a, 1)) == {a, *board.neighbors(a)}
    assert isinstance(board.nbr, np.ndarray) and board.nbr.dtype == np.int32
    assert hexgrid.distance(board.hexes[a], board.hexes[c]) == board.distance(a, c)
