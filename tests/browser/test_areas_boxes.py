"""Sea zones, port boxes and the naval units in them, drawn in the browser (any rule system's
areas and anchored boxes; here the eastfront tutorial)."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import ARTIFACTS, LiveServer, choose_scenario


def test_browser_draws_sea_zones_port_boxes_and_the_units_in_them(
    live: LiveServer, new_page: Any
) -> None:
    page = new_page()
    page.goto(live.url + "/")
    page.wait_for_function("window.__grognard.ready")
    choose_scenario(page, "eastfront-tutorial")
    page.check("#hotseat")
    page.click("[data-testid=create-game]")
    page.wait_for_function("window.__grognard.state && window.__grognard.state.side")
    assert page.locator("svg.map [data-area]").count() == 2
    assert page.text_content("svg.map .areas").count("SZ") == 2
    frame = page.locator('svg.map [data-box="Taman port"]')
    assert frame.count() == 1
    # the two transports in the port box are drawn as one stack at the box, counted 2
    stack = page.locator('svg.map [data-loc="box:Taman port"]')
    assert stack.count() == 1 and "2" in (stack.text_content() or "")
    # off-map boxes without an anchor stay in the list beside the map
    assert "Novorossiysk" in (page.text_content("#boxes") or "")
    page.screenshot(path=str(ARTIFACTS / "eastfront-tutorial.png"))
