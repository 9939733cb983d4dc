"""The board export used by the browser client."""

from __future__ import annotations

import math

import pytest

from grognard import hexgrid
from grognard.board import BoardBuilder, Point
from grognard.hexgrid import SheetGeometry
from grognard.scenario import load_scenario
from grognard.server.export import board_json, centre, line_style, pixel_to_hex, terrain_style
from tests.server.conftest import ROOT


def test_tiny_board_export() -> None:
    sc = load_scenario(ROOT / "tests" / "tinyrules" / "scenarios" / "duel.toml")
    data = board_json(sc.board, sc.ruleset)
    assert data["orientation"] == "flat" and len(data["hexes"]) == sc.board.n == 24
    by_id = {h[0]: h for h in data["hexes"]}
    # 0102 is straight below 0101 in a flat-topped column, sqrt(3) hex sizes apart
    assert by_id["0102"][1] == by_id["0101"][1]
    assert by_id["0102"][2] - by_id["0101"][2] == pytest.approx(math.sqrt(3), abs=1e-3)
    # even columns sit half a hex lower (shifted = "even")
    assert by_id["0201"][2] - by_id["0101"][2] == pytest.approx(math.sqrt(3) / 2, abs=1e-3)
    walls = [s for s in data["sides"] if s["features"] == ["wall"]]
    assert sorted(tuple(sorted(s["hexes"])) for s in walls) == [("0302", "0303"), ("0302", "0402")]
    for s in walls:
        x1, y1, x2, y2 = s["seg"]
        assert math.hypot(x2 - x1, y2 - y1) == pytest.approx(1.0, abs=1e-3)
    assert {p["name"] for p in data["places"]} == {"Hill", "Farm"}
    assert [t["name"] for t in data["terrain"]] == ["clear", "forest"]
    assert data["terrain"][1]["pattern"] == "trees"
    assert {b["name"] for b in data["boxes"]} == {"blue-reserve", "red-reserve"}


@pytest.mark.parametrize("orientation", ["columns", "rows"])
def test_centres_invert_and_neighbours_are_one_step_apart(orientation: str) -> None:
    pointy = orientation == "rows"
    sheet = SheetGeometry("M", orientation, "odd")
    for c in range(1, 8):
        for r in range(1, 8):
            h = sheet.to_axial(c, r)
            x, y = centre(h, pointy)
            assert pixel_to_hex(x, y, pointy) == tuple(h)
            assert pixel_to_hex(x + 0.4, y - 0.3, pointy) == tuple(h)
            for n in hexgrid.neighbors(h):
                nx, ny = centre(n, pointy)
                assert math.hypot(nx - x, ny - y) == pytest.approx(math.sqrt(3))


def test_compass_matches_screen_directions() -> None:
    # direction 2 is north on flat-topped maps, direction 0 east on pointy-topped ones
    x, y = centre(hexgrid.neighbor(hexgrid.Hex(0, 0), hexgrid.COMPASS["columns"]["N"]), False)
    assert x == pytest.approx(0) and y < 0
    x, y = centre(hexgrid.neighbor(hexgrid.Hex(0, 0), hexgrid.COMPASS["rows"]["E"]), True)
    assert y == pytest.approx(0) and x > 0


def test_networks_points_and_pointy_maps() -> None:
    b = BoardBuilder()
    b.declare_terrain(["clear", "swampy-bog"])
    b.declare_features(["river"])
    b.declare_point_kinds(["city", "port"])
    sheet = SheetGeometry("A", "rows", "even")
    b.add_sheet(sheet, range(1, 5), range(1, 4))
    h11, h21, h31 = sheet.to_axial(1, 1), sheet.to_axial(2, 1), sheet.to_axial(3, 1)
    b.set_terrain(h21, "swampy-bog")
    b.add_network_link("main-line", "rail", h11, h21)
    b.add_network_link("main-line", "rail", h21, h31)
    b.add_side_feature(h11, sheet.to_axial(1, 2), "river")
    b.add_point(h31, Point("port", "Harbour"))
    board = b.build()
    data = board_json(board)
    assert data["orientation"] == "pointy" and data["corners"][0] == [
        pytest.approx(0.86603),
        pytest.approx(0.5),
    ]
    rail = data["networks"][0]
    assert (
        rail["name"] == "main-line"
        and len(rail["segments"]) == 2
        and rail["stroke"] == line_style("rail")["stroke"]
    )
    for x1, y1, x2, y2 in rail["segments"]:
        assert math.hypot(x2 - x1, y2 - y1) == pytest.approx(math.sqrt(3), abs=1e-3)
    assert data["features"]["river"]["stroke"] == line_style("river")["stroke"]
    assert data["places"] == [{"hex": "0301", "kind": "port", "name": "Harbour", "attrs": {}}]
    bog = data["terrain"][1]
    assert (
        bog["name"] == "swampy-bog"
        and bog["fill"].startswith("#")
        and bog == {"name": "swampy-bog", **terrain_style("swampy-bog")}
    )
