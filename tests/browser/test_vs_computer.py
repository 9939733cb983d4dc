"""Play against the computer from the lobby: the computer takes the chosen side at the chosen
level, this browser holds only the other side, and the computer moves when its side must act."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

from tests.browser.conftest import LiveServer, choose_scenario


def _get(live: LiveServer, path: str, token: str) -> Any:
    req = urllib.request.Request(live.url + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def test_lobby_starts_a_game_against_the_computer(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(live.url + "/")
    page.wait_for_function("window.__grognard.ready")
    choose_scenario(page, "gw-tutorial")
    choices = page.eval_on_selector_all("#ai-side option", "o => o.map(x => x.value)")
    assert choices == ["", "Entente", "Central Powers"]
    # the Entente acts first in the tutorial: the computer must make the opening moves
    page.select_option("#ai-side", "Entente")
    page.select_option("#ai-level", "easy")
    page.click("[data-testid=create-game]")
    page.wait_for_function("window.__grognard.state && window.__grognard.state.side")
    held = json.loads(page.evaluate("localStorage.getItem('grognard.seats')"))
    game = held[-1]["game"]
    mine = {s["side"]: s["token"] for s in held if s["game"] == game}
    assert list(mine) == ["Central Powers"]  # the browser holds no token of the computer's side
    seats = _get(live, f"/api/games/{game}/ai", mine["Central Powers"])
    assert set(seats["sides"]) == {"Entente"} and "easy" in json.dumps(seats["sides"])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        seats = _get(live, f"/api/games/{game}/ai", mine["Central Powers"])
        if seats["moves"]:
            break
        time.sleep(0.5)
    assert seats["moves"] and all(m["side"] == "Entente" for m in seats["moves"])
    # the computer's moves are marked in the page's log
    page.wait_for_selector("#log li.by-computer .agent", timeout=60000)
    badge = page.inner_text("#log li.by-computer .agent")
    assert badge == "computer"
    title = page.get_attribute("#log li.by-computer .agent", "title")
    assert title and "planner:easy" in title
