"""End-to-end play in headless Chromium: lobby, moves by click, an attack with its odds, fog of
war."""

from __future__ import annotations

import json
from typing import Any

from tests.browser.conftest import ARTIFACTS, LiveServer, choose_scenario


def state(page: Any) -> dict[str, Any]:
    return page.evaluate("window.__grognard.state")


def wait_seq(page: Any, seq: int) -> None:
    page.wait_for_function(f"window.__grognard.state && window.__grognard.state.seq >= {seq}")


def click_hex(page: Any, hex_id: str) -> None:
    x, y = page.evaluate(f"window.__grognard.map.screenOf({json.dumps(hex_id)})")
    page.mouse.click(x, y)


def piece_loc(st: dict[str, Any], pid: str) -> list[Any] | None:
    for p in st["view"]["pieces"]:
        if p["id"] == pid:
            return p["loc"]
    return None


def everything_shown(page: Any) -> str:
    """The page's text, markup and the client's whole state: all a curious player could inspect."""
    return (
        page.content()
        + json.dumps(page.evaluate("window.__grognard.state"))
        + json.dumps(page.evaluate("window.__grognard.log"))
    )


def create_remote_game(page: Any, live: LiveServer, scenario: str, seed: int) -> dict[str, str]:
    page.goto(live.url + "/")
    page.wait_for_function("window.__grognard.ready")
    choose_scenario(page, scenario)
    page.fill("#seed", str(seed))
    page.click("[data-testid=create-game]")
    page.wait_for_selector("[data-link=Red]")
    return {s: page.inner_text(f"[data-link={s}]") for s in ("Blue", "Red")}


def test_browser_game_move_attack_and_fog(live: LiveServer, new_page: Any) -> None:
    blue = new_page()
    links = create_remote_game(blue, live, "ui-skirmish", 5)
    blue.screenshot(path=str(ARTIFACTS / "lobby-created.png"))
    blue.click("[data-play=Blue]")
    blue.wait_for_function("window.__grognard.state && window.__grognard.state.side === 'Blue'")
    assert "t=" not in blue.url, "the token must leave the address bar after joining"

    red = new_page()
    red.goto(links["Red"])
    red.wait_for_function("window.__grognard.state && window.__grognard.state.side === 'Red'")

    # Secret postures: both sides decide in the decision panel.
    blue.click("#decision [data-type=commit] >> text=bold")
    wait_seq(blue, 1)
    red.click("#decision [data-type=commit] >> text=careful")
    wait_seq(blue, 2)
    wait_seq(red, 2)
    st = state(blue)
    assert st["my_turn"] and st["step"] == "movement"

    # Move b2 by clicking it, then a highlighted hex.
    click_hex(blue, "0302")
    blue.wait_for_function(
        "window.__grognard.highlights &&"
        " Object.values(window.__grognard.highlights).includes('reach')"
    )
    marks = blue.evaluate("window.__grognard.highlights")
    assert marks["0302"] == "select"
    assert marks.get("0301") == "reach"
    click_hex(blue, "0202")
    wait_seq(blue, 3)
    assert piece_loc(state(blue), "b2") == ["hex", "0202"]
    # Undo within the barrier, then move elsewhere.
    blue.click("[data-testid=undo]")
    blue.wait_for_function("window.__grognard.state.seq === 2")
    assert piece_loc(state(blue), "b2") == ["hex", "0302"]
    click_hex(blue, "0302")
    blue.wait_for_function(
        "window.__grognard.highlights && window.__grognard.highlights['0301'] === 'reach'"
    )
    click_hex(blue, "0301")
    wait_seq(blue, 3)
    assert piece_loc(state(blue), "b2") == ["hex", "0301"]
    blue.wait_for_selector("#log li[data-type=move] >> text=b2 moves to 0301")
    # Red sees the move too (b2 is not hidden) once the push arrives.
    wait_seq(red, 3)
    assert piece_loc(state(red), "b2") == ["hex", "0301"]

    # b1 and b3 could still move: End phase asks first
    blue.click("[data-testid=end-phase]")
    blue.click("[data-testid=confirm-end-yes]")
    blue.wait_for_function("window.__grognard.state.step === 'combat'")

    # Attack: select b1, the enemy hex is offered as a target, the preview shows odds and
    # distribution.
    click_hex(blue, "0401")
    blue.wait_for_function(
        "window.__grognard.highlights && window.__grognard.highlights['0502'] === 'attack'"
    )
    click_hex(blue, "0502")
    blue.wait_for_selector("[data-testid=distribution]")
    assert blue.inner_text("[data-testid=odds]") == "1:1"
    dist = {
        r.get_attribute("data-result"): r.inner_text()
        for r in blue.query_selector_all("[data-testid=distribution] tr[data-result]")
    }
    assert set(dist) == {"AE", "EX", "DR", "DE"}
    assert "33.3%" in dist["DR"]
    blue.screenshot(path=str(ARTIFACTS / "attack-preview.png"))
    seq = state(blue)["seq"]
    blue.click("[data-testid=commit-attack]")
    wait_seq(blue, seq + 1)

    # The defender's reserve decision is offered to Red, and only to Red.
    red.wait_for_selector("#decision [data-type=pass]")
    assert state(blue)["acting"] == ["Red"] and not state(blue)["legal"]
    red.screenshot(path=str(ARTIFACTS / "red-decision.png"))
    # Red answers with a standing order ("always pass on reserve commitment"), which acts at once.
    red.click("#decision [data-always=pass]")
    wait_seq(blue, seq + 2)
    red.wait_for_selector("#orders li[data-order='0']")
    assert state(red)["standing_orders"] == [
        {"step": "reserve", "choose": {"type": "pass"}, "note": ""}
    ]
    assert state(blue)["standing_orders"] == []

    # The roll and the result reach the attacker's log with their rule ids.
    blue.wait_for_selector("#log li[data-type=combat-result]")
    roll = blue.query_selector("#log li[data-type=roll]")
    assert roll is not None and roll.query_selector(".dice") is not None
    assert roll.query_selector("[data-rule='T 4']") is not None
    result = blue.query_selector("#log li[data-type=combat-result]").inner_text()
    assert result.startswith("result ") and "T 4" in result
    blue.screenshot(path=str(ARTIFACTS / "attack-result-blue.png"))
    red.wait_for_selector("#log li[data-type=combat-result]")
    red.screenshot(path=str(ARTIFACTS / "attack-result-red.png"))

    # Fog of war: each browser holds only what its side may know.
    blue_all = everything_shown(blue)
    red_all = everything_shown(red)
    assert "r-scout" not in blue_all and "0604" not in json.dumps(state(blue)["view"])
    assert "r-res" not in blue_all
    assert "b-res" not in red_all
    assert piece_loc(state(red), "r-scout") == ["hex", "0604"]
    assert any(s["side"] == "Red" for s in state(blue)["view"]["stacks"]), (
        "Red's reserve shows as an anonymous stack"
    )

    # Blue leaves and comes back later through "My games": the game is as it was.
    log_before = blue.evaluate("window.__grognard.log")
    again = blue.context.new_page()
    blue.close()
    again.goto(live.url + "/#/")
    again.wait_for_selector("#my-games a")
    again.click("#my-games a")
    again.wait_for_function("window.__grognard.state && window.__grognard.state.side === 'Blue'")
    assert again.evaluate("window.__grognard.log") == log_before


def test_browser_hotseat_handover(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(live.url + "/")
    page.wait_for_function("window.__grognard.ready")
    choose_scenario(page, "tiny-duel")
    page.check("#hotseat")
    page.click("[data-testid=create-game]")
    page.wait_for_function("window.__grognard.state && window.__grognard.state.side")
    first = state(page)["side"]
    assert first == "Blue"
    page.click("#decision [data-type=commit] >> text=bold")
    # Blue has chosen; Red still must: the screen is covered until the device is handed over.
    page.wait_for_selector("[data-testid=handover]:not([hidden])")
    assert "Red" in page.inner_text("#handover-text")
    page.screenshot(path=str(ARTIFACTS / "hotseat-handover.png"))
    page.click("[data-testid=handover-go]")
    page.wait_for_function("window.__grognard.state.side === 'Red'")
    assert "bold" not in json.dumps(state(page)["log"]), (
        "Red must not see Blue's secret choice before the reveal"
    )
    page.click("#decision [data-type=commit] >> text=careful")
    page.wait_for_function("window.__grognard.state.seq === 2")
    # Now Blue moves: hand back to Blue.
    page.wait_for_selector("[data-testid=handover]:not([hidden])")
    page.click("[data-testid=handover-go]")
    page.wait_for_function(
        "window.__grognard.state.side === 'Blue' && window.__grognard.state.step === 'movement'"
    )
    texts = page.evaluate("window.__grognard.log.map(e => e.text)")
    assert any("choices revealed" in t for t in texts)
    # The lobby lists the game under "my games" for this browser.
    page.goto(live.url + "/#/")
    page.wait_for_selector("#my-games a")
    assert "Blue & Red" in page.inner_text("#my-games")
