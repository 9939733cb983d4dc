"""A piece on a hexside (a gunboat on a river) is drawn on that hexside and can be selected:
a tiny scenario of this folder, since no shipped scenario starts with one there."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from tests.browser.conftest import ARTIFACTS, SCENARIO_DIRS, LiveServer

HERE = Path(__file__).resolve().parent / "scenarios"


def test_piece_on_a_hexside_is_drawn_and_selectable(tmp_path: Path, new_page: Any) -> None:
    with LiveServer(tmp_path / "hexside.sqlite", [*SCENARIO_DIRS, HERE]) as srv:
        req = urllib.request.Request(
            srv.url + "/api/games",
            data=json.dumps({"scenario": "river-gunboat", "seed": 1}).encode(),
            method="POST",
        )
        req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req) as r:
            made = json.loads(r.read())
        page = new_page()
        page.goto(made["sides"]["Blue"]["link"])
        page.wait_for_function("window.__grognard.state && window.__grognard.state.side")
        page.click("[data-testid=zoom-in]")
        page.evaluate("window.__grognard.map.centreOn('0302')")
        gb = page.locator("svg.map [data-loc='hexside:0302/0402']")
        assert gb.count() == 1
        assert gb.locator(".c-sym").get_attribute("data-symbol") == "naval"
        assert "River" in (gb.locator(".c-name").text_content() or "")
        # drawn on the hexside: its centre is the midpoint of the two hexes' centres
        a = page.evaluate("window.__grognard.map.screenOf('0302')")
        b = page.evaluate("window.__grognard.map.screenOf('0402')")
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        box = gb.locator("rect.counter").bounding_box()
        assert abs(box["x"] + box["width"] / 2 - mid[0]) < 2
        assert abs(box["y"] + box["height"] / 2 - mid[1]) < 2
        # the river (a hexside feature) is drawn there too
        assert page.locator("svg.map [data-feature=wall]").count() == 1
        # a click selects it: the stack inspector names it, the selection holds it
        page.mouse.click(*mid)
        page.wait_for_selector("[data-testid=stack]:not([hidden]) [data-piece=gb1]")
        assert page.evaluate("window.__grognard.ui.sel.loc") == ["hexside", "0302/0402"]
        assert page.evaluate("[...window.__grognard.ui.sel.pieces]") == ["gb1"]
        assert "River Gunboat" in page.inner_text("[data-testid=stack]")
        page.screenshot(path=str(ARTIFACTS / "hexside-gunboat.png"))
