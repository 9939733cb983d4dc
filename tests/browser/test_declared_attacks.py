"""Attacks of the other rule systems built in the browser: the Naval Module's East Front attack
declared on its target, then attackers and supports added (a form, or clicks on the map) and
resolved; an lgg1418 battle started by moving a stack into the enemy and fought through its
forms."""

from __future__ import annotations

import json
from typing import Any

from tests.browser.conftest import ARTIFACTS, LiveServer
from tests.browser.test_play import click_hex, state
from tests.browser.test_wargamer import open_hotseat, service_act, take_over


def to_step(live: LiveServer, game: str, wanted: str, side: str, limit: int = 300) -> None:
    """End phases (through the service) until ``side`` is offered an action of type ``wanted``."""
    g = live.app.state.service.entry(game).game
    for _ in range(limit):
        acting = g.acting_sides()[0]
        la = g.legal_actions(acting)
        if acting == side and any(a["type"] == wanted for a in la):
            return
        ends = [a for a in la if a["type"] in ("end-phase", "done", "end-turn", "pass")]
        service_act(live, game, acting, ends[0] if ends else la[0])
    raise AssertionError(f"{side} was never offered {wanted!r}")


def test_eastfront_attack_declared_then_attackers_and_supports_added(
    live: LiveServer, new_page: Any
) -> None:
    page = new_page()
    game = open_hotseat(page, live, "sevastopol-1941", seed=1)
    to_step(live, game, "attack", "Axis")
    page.reload()
    page.wait_for_function("window.__grognard.state && window.__grognard.state.legal.length")
    take_over(page)
    svc = live.app.state.service
    target = next(a["target"] for a in state(page)["legal"] if a["type"] == "attack")
    # the target, clicked on the map: the builder declares the attack on it
    page.evaluate(f"window.__grognard.map.centreOn({json.dumps(target)})")
    click_hex(page, target)
    page.wait_for_selector("[data-testid=commit-attack]:not([disabled])")
    assert target in page.inner_text("[data-testid=attack-selection]")
    n0 = len(svc.entry(game).game.actions)
    page.click("[data-testid=commit-attack]")
    page.wait_for_selector("#decision:not([hidden]) [data-testid=declared-form]")
    assert page.evaluate("window.__grognard.highlights")[target] == "attack"
    attackers = page.locator("[data-testid=declared-form] input[data-kind=attacker]")
    supports = page.locator("[data-testid=declared-form] input[data-kind=support]")
    att_ids = attackers.evaluate_all("e => e.map(x => x.dataset.add)")
    sup_ids = supports.evaluate_all("e => e.map(x => x.dataset.add)")
    assert len(att_ids) >= 2 and sup_ids
    # one attacker ticked in the form, another by clicking its stack on the map, one support
    page.check(f"input[data-add='{att_ids[0]}']")
    pieces = {p["id"]: p for p in state(page)["view"]["pieces"]}
    second = next(
        i
        for i in att_ids[1:]
        if pieces[i]["loc"][0] == "hex"
        and pieces[i]["loc"] != pieces[att_ids[0]]["loc"]
        and sum(1 for j in att_ids if pieces[j]["loc"] == pieces[i]["loc"]) == 1
    )
    hx = pieces[second]["loc"][1]
    page.evaluate(f"window.__grognard.map.centreOn({json.dumps(hx)})")
    click_hex(page, hx)
    page.wait_for_function(f"document.querySelector(\"input[data-add='{second}']\").checked")
    page.check(f"input[data-add='{sup_ids[0]}']")
    assert "3 unit(s) chosen" in page.inner_text("[data-testid=declared-selection]")
    page.screenshot(path=str(ARTIFACTS / "eastfront-declared-attack.png"))
    done = page.evaluate("window.__grognard.formsApplied || 0")
    page.click("[data-testid=declared-resolve]")
    page.wait_for_function(f"window.__grognard.formsApplied > {done}", timeout=60000)
    sent = [{k: v for k, v in a.items() if k != "side"} for a in svc.entry(game).game.actions[n0:]]
    assert sent[0] == {"type": "attack", "target": target}
    assert sent[1:4] == [
        {"type": "add-attacker", "piece": att_ids[0]},
        {"type": "add-attacker", "piece": second},
        {"type": "add-support", "piece": sup_ids[0]},
    ]
    assert sent[4]["type"] == "resolve-attack"


# lgg-tutorial, seed 1: the Fifth Army activated and its III Corps marched to 0803, next to the
# German stack in 0903 (a position built from its actions, as a save holds them).
LGG_CONTACT = [
    {"type": "end-reinforcement", "side": "Central Powers"},
    {"type": "place", "side": "Entente", "unit": "FR-IV-R", "at": "0210"},
    {"type": "end-reinforcement", "side": "Entente"},
    {"type": "no-retreat", "side": "Central Powers"},
    {"type": "no-retreat", "side": "Entente"},
    {"type": "activate", "side": "Entente", "army": "FR-5"},
    {"type": "move", "side": "Entente", "units": ["FR-CC-Sordet"], "to": "0604", "mode": "normal"},
    {"type": "move", "side": "Entente", "units": ["FR-5-III"], "to": "0604", "mode": "normal"},
    {"type": "move", "side": "Entente", "units": ["FR-5-III"], "to": "0704", "mode": "normal"},
    {"type": "move", "side": "Entente", "units": ["FR-5-III"], "to": "0803", "mode": "normal"},
    {"type": "no-interception", "side": "Central Powers"},
]


def test_lgg1418_battle_from_a_move_into_the_enemy(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    game = open_hotseat(page, live, "lgg-tutorial", seed=1)
    for a in LGG_CONTACT:
        service_act(live, game, a["side"], {k: v for k, v in a.items() if k != "side"})
    page.reload()
    page.wait_for_function("window.__grognard.state && window.__grognard.state.side")
    page.wait_for_timeout(300)  # the hand-over notice follows the first state
    take_over(page)
    page.wait_for_function("window.__grognard.state.legal.length")
    assert state(page)["side"] == "Entente"
    svc = live.app.state.service
    # the corps selected on the map, the enemy hex among its highlighted destinations
    page.evaluate("window.__grognard.map.centreOn('0803')")
    click_hex(page, "0803")
    page.wait_for_function("window.__grognard.highlights['0903'] === 'reach'")
    assert page.evaluate("[...window.__grognard.ui.sel.pieces]") == ["FR-5-III"]
    n0 = len(svc.entry(game).game.actions)
    click_hex(page, "0903")
    # not sent yet: the attack's odds first (the first round's results, column by column)
    page.wait_for_selector("[data-testid=distribution-by-column] tr[data-column]")
    assert len(svc.entry(game).game.actions) == n0
    assert page.inner_text("[data-testid=move-attack-units]").startswith("moving in: ")
    assert page.locator("[data-testid=odds-table] [data-fact=table]").count() == 1
    page.screenshot(path=str(ARTIFACTS / "lgg-attack-preview.png"))
    page.click("[data-testid=commit-move-attack]")
    page.wait_for_function(f"window.__grognard.state.seq > {n0} && !window.__grognard.busy")
    sent = svc.entry(game).game.actions[n0]
    assert sent["type"] == "move" and sent["to"] == "0903" and sent["units"] == ["FR-5-III"]
    # the battle's steps, each side's decisions taken in the decision panel, up to the first
    # round's engagements revealed
    for _ in range(12):
        log = " ".join(page.evaluate("window.__grognard.log.map(e => e.text)"))
        if "engaged units revealed" in log:
            break
        take_over(page)
        seq = state(page)["seq"]
        buttons = page.locator("#decision:not([hidden]) button[data-type]")
        if buttons.count():
            buttons.first.click()
        else:  # the end of the movement, after which the battles are fought
            page.click("[data-testid=end-phase]")
            if page.locator("[data-testid=confirm-end]").count():
                page.click("[data-testid=confirm-end-yes]")
        page.wait_for_function(
            f"window.__grognard.state.seq > {seq} && !window.__grognard.busy", timeout=60000
        )
    log = page.evaluate("window.__grognard.log.map(e => e.text)")
    assert any(t.startswith("Battle at 0903") for t in log)
    assert any(t.startswith("round 1, sub-battle A") for t in log)
    types = [a["type"] for a in svc.entry(game).game.actions[n0:]]
    assert "proceed" in types and types.count("commit") >= 2
