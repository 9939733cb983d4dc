"""The board export's areas and anchored boxes (drawn by the browser for any rule system)."""

from __future__ import annotations

import math

from grognard.scenario import find
from grognard.server.export import board_json, centre


def test_areas_have_an_outline_and_a_centre_and_port_boxes_an_anchor() -> None:
    sc = find("eastfront-tutorial")
    data = board_json(sc.board, sc.ruleset)
    areas = {a["name"]: a for a in data["areas"]}
    assert set(areas) == {"Azov SZ", "Kerch SZ"}
    for a in areas.values():
        assert a["outline"] and all(len(seg) == 4 for seg in a["outline"])
        assert a["centre"] is not None
    # the Kerch SZ's centre is one of its own hexes
    hexes = {h[0]: (h[1], h[2]) for h in data["hexes"]}
    assert tuple(areas["Kerch SZ"]["centre"]) in {hexes[h] for h in areas["Kerch SZ"]["hexes"]}
    boxes = {b["name"]: b for b in data["boxes"]}
    x, y = centre(sc.board.hexes[sc.board.idx("0805")], False)
    ax, ay = boxes["Taman port"]["anchor"]
    assert math.hypot(ax - x, ay - y) < 1
    assert boxes["Novorossiysk"]["anchor"] is None
