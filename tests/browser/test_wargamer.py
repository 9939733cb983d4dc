"""The browser as a wargamer uses it (issue 14): a Marne player turn played by clicking
(placements, a move, an attack built from a chosen subset of attackers, its losses and retreats),
the map's legend, zoom and memory, the chart viewer, the busy state, the End-phase confirmation,
and the game-over page; the other rule systems' scenarios open and draw.

Screenshots go to ``artifacts/`` (map at three zoom levels, odds table, chart viewer, game over).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.browser.conftest import ARTIFACTS, LiveServer
from tests.browser.test_play import click_hex, state


def open_hotseat(page: Any, live: LiveServer, scenario: str, seed: int = 3) -> str:
    page.goto(live.url + "/")
    page.wait_for_function("window.__grognard.ready")
    page.select_option("#scenario", scenario)
    page.fill("#seed", str(seed))
    page.check("#hotseat")
    page.click("[data-testid=create-game]")
    page.wait_for_function("window.__grognard.state && window.__grognard.state.side")
    page.wait_for_function("window.__grognard.reference")
    return str(page.evaluate("window.__grognard.state.game.id"))


def service_act(live: LiveServer, game: str, side: str, action: dict[str, Any]) -> None:
    live.app.state.service.act(game, side, action)


def legal(page: Any) -> list[dict[str, Any]]:
    return list(page.evaluate("window.__grognard.state.legal"))


def types(page: Any) -> set[str]:
    return {a["type"] for a in legal(page)}


def wait_changed(page: Any, seq: int) -> None:
    page.wait_for_function(
        f"window.__grognard.state.seq > {seq} && !window.__grognard.busy", timeout=60000
    )


def end_phase(page: Any) -> None:
    """End the phase of the side to act (handing the device over first in hot-seat)."""
    if page.locator("[data-testid=handover]:not([hidden])").count():
        side = state(page)["acting"][0]
        page.click("[data-testid=handover-go]")
        page.wait_for_function(f"window.__grognard.state.side === {json.dumps(side)}")
    seq = state(page)["seq"]
    page.click("[data-testid=end-phase]")
    if page.locator("[data-testid=confirm-end]").count():
        page.click("[data-testid=confirm-end-yes]")
    wait_changed(page, seq)


def test_marne_player_turn_by_clicking(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    game = open_hotseat(page, live, "marne-1914", seed=3)
    side = state(page)["side"]
    assert side == "Entente"

    # The map: legend with terrain, rivers, control and unit symbols; control never a line.
    legend = page.locator("[data-testid=legend] li")
    kinds = set(legend.evaluate_all("els => els.map(e => e.dataset.legend)"))
    assert {"terrain", "hexside", "control", "symbol", "place"} <= kinds
    assert page.locator("[data-legend=hexside][data-name*=river]").count() >= 1
    ctl = page.locator("svg.map [data-control]").first
    assert ctl.get_attribute("stroke") == "none" and "url(#ctl-" in (
        ctl.get_attribute("fill") or ""
    )
    # NATO symbols on the counters, names shortened
    syms = set(page.locator("svg.map .c-sym").evaluate_all("e => e.map(x => x.dataset.symbol)"))
    assert {"infantry", "cavalry"} <= syms
    # the stack drawn on top is a combat unit, not the HQ stacked with it
    tops = page.evaluate(
        """() => { const g = window.__grognard; const out = [];
        for (const el of document.querySelectorAll('svg.map [data-stack]')) {
          const hex = el.dataset.stack;
          const here = g.state.view.pieces.filter(p => p.loc[0]==='hex' && p.loc[1]===hex);
          const sym = el.querySelector('.c-sym');
          out.push([here.length, sym && sym.dataset.symbol,
            here.every(p => /hq/.test(p.type))]); }
        return out; }"""
    )
    assert all(sym != "hq" or only_hq for n, sym, only_hq in tops if n > 1)

    # Zoom buttons, fit, three zoom levels (screenshots), hover tip with hex id and terrain.
    page.click("[data-testid=zoom-fit]")
    page.screenshot(path=str(ARTIFACTS / "marne-zoom-1-fit.png"))
    k0 = page.evaluate("window.__grognard.map.k")
    page.click("[data-testid=zoom-in]")
    page.wait_for_function(f"window.__grognard.map.k > {k0}")
    page.evaluate("window.__grognard.map.centreOn('1410')")
    page.screenshot(path=str(ARTIFACTS / "marne-zoom-2.png"))
    page.click("[data-testid=zoom-in]")
    page.click("[data-testid=zoom-in]")
    page.evaluate("window.__grognard.map.centreOn('1410')")
    page.screenshot(path=str(ARTIFACTS / "marne-zoom-3-close.png"))
    x, y = page.evaluate("window.__grognard.map.screenOf('1410')")
    page.mouse.move(x + 3, y + 3)
    page.wait_for_selector("[data-testid=hex-tip]:not([hidden])")
    tip = page.inner_text("[data-testid=hex-tip]")
    assert tip.startswith("1410") and "Paris" in tip
    assert page.locator("[data-testid=minimap] .mini-view").count() == 1

    # Placements: click a piece in the form, then one of its highlighted hexes.
    page.wait_for_selector("[data-testid=placements] [data-place-piece]")
    first = page.locator("[data-testid=placements] [data-place-piece]").first
    pid = first.get_attribute("data-place-piece")
    first.click()
    page.wait_for_function("Object.values(window.__grognard.highlights).includes('reach')")
    hexes = [h for h, k in page.evaluate("window.__grognard.highlights").items() if k == "reach"]
    seq = state(page)["seq"]
    page.evaluate(f"window.__grognard.map.centreOn({json.dumps(hexes[-1])})")
    click_hex(page, hexes[-1])
    wait_changed(page, seq)
    placed = next(p for p in state(page)["view"]["pieces"] if p["id"] == pid)
    assert placed["loc"] == ["hex", hexes[-1]]
    # then the rest as listed, one placement after another
    page.click("[data-testid=place-rest]")
    page.wait_for_function(
        "!window.__grognard.state.legal.some(a => /^place/.test(a.type))", timeout=120000
    )
    page.wait_for_function("!window.__grognard.busy")
    log_texts = page.evaluate("window.__grognard.log.map(e => e.text)")
    assert not any("(OT" in t and t.count("(OT") > 1 for t in log_texts)

    # To the movement phase.
    while "move" not in types(page):
        end_phase(page)
    # Move: click a stack, then a highlighted hex.
    acts = [a for a in legal(page) if a["type"] == "move" and "piece" in a]
    mover = acts[0]["piece"]
    loc = next(p for p in state(page)["view"]["pieces"] if p["id"] == mover)["loc"][1]
    page.evaluate(f"window.__grognard.map.centreOn({json.dumps(loc)})")
    click_hex(page, loc)
    page.wait_for_function("Object.values(window.__grognard.highlights).includes('reach')")
    picked = page.evaluate("[...window.__grognard.ui.sel.pieces]")
    reach = [h for h, k in page.evaluate("window.__grognard.highlights").items() if k == "reach"]
    seq = state(page)["seq"]
    page.evaluate(f"window.__grognard.map.centreOn({json.dumps(reach[0])})")
    click_hex(page, reach[0])
    wait_changed(page, seq)
    assert next(p for p in state(page)["view"]["pieces"] if p["id"] == picked[0])["loc"] == [
        "hex",
        reach[0],
    ]

    # End phase with units unmoved: a confirmation first; a double click ends one phase only.
    phase = state(page)["phase"]
    seq = state(page)["seq"]
    page.click("[data-testid=end-phase]")
    page.wait_for_selector("[data-testid=confirm-end]")
    assert "have not moved" in page.inner_text("[data-testid=confirm-end]")
    page.click("[data-testid=confirm-end-no]")
    assert state(page)["seq"] == seq and state(page)["phase"] == phase
    page.click("[data-testid=end-phase]")
    page.dblclick("[data-testid=confirm-end-yes]")
    wait_changed(page, seq)
    page.wait_for_timeout(500)
    assert state(page)["seq"] == seq + 1, "one End phase applied, not two"

    # On to the combat segment, then build an attack from a subset of the offered attackers.
    for _ in range(12):
        if "attack" in types(page) and state(page)["side"] == "Entente":
            break
        end_phase(page)
    attacks = [a for a in legal(page) if a["type"] == "attack"]
    assert attacks
    target, full = max(((a["target"], a["attackers"]) for a in attacks), key=lambda t: len(t[1]))
    page.evaluate(f"window.__grognard.map.centreOn({json.dumps(target)})")
    click_hex(page, target)
    page.wait_for_selector("[data-testid=candidates]")
    assert page.evaluate("window.__grognard.highlights")[target] == "attack"
    # tick two units
    chosen = full[:2]
    for pid in chosen:
        page.check(f"[data-candidate='{pid}']")
    page.wait_for_selector("[data-testid=odds-table], [data-testid=attack-refused]")
    page.wait_for_function("window.__grognard.builder && !window.__grognard.builder.pending")
    sel = page.inner_text("[data-testid=attack-selection]")
    assert sel.startswith("2 unit(s)")
    if page.locator("[data-testid=attack-refused]").count() == 0:
        assert (
            page.locator("[data-testid=odds-table] table.units tr[data-role=attack]").count() == 2
        )
        assert page.locator("[data-testid=distribution] tr[data-result] .bar").count() >= 1
        assert page.locator("[data-testid=odds-table] a.rule").count() >= 1
    page.screenshot(path=str(ARTIFACTS / "marne-odds-table.png"))
    before = len(page.evaluate("window.__grognard.log"))
    seq = state(page)["seq"]
    page.click("[data-testid=commit-attack]")
    wait_changed(page, seq)
    # the engine received exactly the selection
    rec = live.app.state.service.entry(game).game.actions[seq]
    assert rec["type"] == "attack" and rec["target"] == target
    assert sorted(rec["attackers"]) == sorted(chosen)
    assert len(page.evaluate("window.__grognard.log")) > before

    # Whatever the result asks for: losses and retreats as forms, until the segment goes on.
    for _ in range(20):
        st = state(page)
        if not st["my_turn"]:
            break
        kinds = types(page)
        if page.locator("[data-testid=loss-form]").count():
            page.screenshot(path=str(ARTIFACTS / "marne-loss-form.png"))
            assert page.inner_text("[data-testid=loss-required]")
            page.locator("[data-testid=loss-form] input[data-loss]").first.check()
            assert "1 unit(s) chosen" in page.inner_text("[data-testid=loss-chosen]")
            page.click("[data-testid=loss-apply]")
            wait_changed(page, st["seq"])
        elif page.locator("[data-testid=retreat-form]").count():
            page.screenshot(path=str(ARTIFACTS / "marne-retreat-form.png"))
            page.click("[data-testid=retreat-apply]")
            wait_changed(page, st["seq"])
        elif "attack" in kinds or "end-phase" in kinds:
            break
        else:
            page.locator("#decision button[data-type]").first.click()
            wait_changed(page, st["seq"])


def test_attack_refused_with_its_rule_before_commit(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    game = open_hotseat(page, live, "marne-1914", seed=3)
    svc = live.app.state.service
    g = svc.entry(game).game
    for _ in range(200):
        side = g.acting_sides()[0]
        la = g.legal_actions(side)
        if any(a["type"] == "attack" for a in la):
            break
        ends = [a for a in la if a["type"] in ("end-phase", "done")]
        service_act(live, game, side, ends[0] if ends else la[0])
    page.reload()
    page.wait_for_function("window.__grognard.state && window.__grognard.state.legal.length")
    page.wait_for_function("window.__grognard.reference")
    attacks = [a for a in legal(page) if a["type"] == "attack"]
    a = attacks[0]
    other = next(
        x
        for x in attacks
        if x["target"] != a["target"] and set(x["attackers"]) - set(a["attackers"])
    )
    stranger = sorted(set(other["attackers"]) - set(a["attackers"]))[0]
    page.evaluate(f"window.__grognard.ui.openBuilder({json.dumps(a['target'])}, null)")
    page.wait_for_selector("[data-testid=candidates]")
    # a unit that is not next to the target, forced into the selection: refused, with its rule
    page.evaluate(
        f"""(() => {{ const b = window.__grognard.builder;
        b.candidates.push({json.dumps(stranger)});
        b.chosen.add({json.dumps(stranger)}); window.__grognard.ui.refreshBuilder(); }})()"""
    )
    page.wait_for_selector("[data-testid=attack-refused]")
    refused = page.locator("[data-testid=attack-refused]")
    assert refused.locator("a.rule[data-rule='OT 9A']").count() == 1
    assert "(OT 9A)" not in refused.inner_text()
    assert page.locator("[data-testid=commit-attack]").is_disabled()
    # the rule chip opens the rules reference with its title and status
    refused.locator("a.rule").first.click()
    page.wait_for_selector("[data-testid=rule-panel]")
    assert page.inner_text("[data-testid=rule-status]") in (
        "tested",
        "implemented",
        "missing",
        "outside-seeds",
    )
    assert page.get_attribute("[data-testid=rule-doc-link]", "href") == "/api/rulesets/greatwar/doc"


def test_chart_viewer_glossary_and_view_memory(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    open_hotseat(page, live, "marne-1914", seed=4)
    page.click("[data-testid=charts-open]")
    page.wait_for_selector("[data-testid=charts]")
    names = page.locator(".chart-list li").evaluate_all("e => e.map(x => x.dataset.chart)")
    assert {"mobile-crt", "positional-crt", "tec", "glossary"} <= set(names)
    page.click(".chart-list li[data-chart=mobile-crt]")
    page.wait_for_selector("[data-chart-shown=mobile-crt] table.crt")
    assert page.locator("[data-chart-shown=mobile-crt] [data-testid=provisional]").count() == 1
    cell = page.locator("[data-chart-shown=mobile-crt] td[data-code=AQ]").first
    assert "OT 9C1" in (cell.get_attribute("title") or "")
    page.screenshot(path=str(ARTIFACTS / "chart-viewer.png"))
    page.click(".chart-list li[data-chart=glossary]")
    gl = page.locator("[data-testid=glossary] tr[data-code]")
    codes = set(gl.evaluate_all("e => e.map(x => x.dataset.code)"))
    assert {"AE", "AH", "AR", "AQ", "AS", "HX", "DXM"} <= codes
    page.click("[data-testid=charts-close]")

    # zoom and position are remembered for the game
    page.click("[data-testid=zoom-in]")
    page.click("[data-testid=zoom-in]")
    page.evaluate("window.__grognard.map.centreOn('1410')")
    k = page.evaluate("window.__grognard.map.k")
    page.wait_for_timeout(300)
    page.reload()
    page.wait_for_function("window.__grognard.map && window.__grognard.state")
    assert abs(page.evaluate("window.__grognard.map.k") - k) < 1e-6
    x, y = page.evaluate("window.__grognard.map.screenOf('1410')")
    box = page.locator("#map").bounding_box()
    # the centre stays put while the page settles (the phase bar filling in resizes the map)
    assert (
        abs(x - (box["x"] + box["width"] / 2)) < 2 and abs(y - (box["y"] + box["height"] / 2)) < 2
    )


def test_game_over_page(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    game = open_hotseat(page, live, "gw-tutorial", seed=2)
    svc = live.app.state.service
    g = svc.entry(game).game
    for _ in range(3000):
        if g.is_over():
            break
        side = g.acting_sides()[0]
        la = g.legal_actions(side)
        ends = [a for a in la if a["type"] in ("end-phase", "done")]
        service_act(live, game, side, ends[0] if ends else la[0])
    assert g.is_over()
    page.reload()
    page.wait_for_selector("[data-testid=game-over]")
    page.wait_for_selector("[data-testid=vp-by-turn] tr[data-turn]")
    text = page.inner_text("[data-testid=winner]")
    assert text.startswith(("Draw", "Entente wins", "Central Powers wins"))
    assert "victory points" in page.inner_text("[data-testid=why]")
    turns = page.locator("[data-testid=vp-by-turn] tr[data-turn]").count()
    assert turns >= 2
    page.screenshot(path=str(ARTIFACTS / "game-over.png"))
    with page.expect_download() as dl:
        page.click("[data-testid=record-link]")
    saved = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
    assert saved["actions"] and saved["signature"]


def test_lgg1418_and_eastfront_open_with_legend_charts_and_lists(
    live: LiveServer, new_page: Any
) -> None:
    for scenario, code in (("lgg-west-1914", "M"), ("sevastopol-1941", "D1R")):
        page = new_page()
        open_hotseat(page, live, scenario, seed=1)
        assert page.locator("[data-testid=legend] li[data-legend=terrain]").count() >= 2
        assert page.locator("svg.map .c-sym").count() >= 1
        page.click("[data-testid=charts-open]")
        page.click(".chart-list li[data-chart=glossary]")
        assert page.locator(f"[data-testid=glossary] tr[data-code='{code}']").count() == 1
        page.click("[data-testid=charts-close]")
        # long lists grouped and filterable; no raw "type k=v" labels
        page.wait_for_selector("[data-testid=connection].on")
        page.wait_for_timeout(300)  # the first push after connecting redraws the panel
        groups = page.locator("#actions details.actions-group")
        if groups.count():
            groups.first.locator("summary").first.click()
            actor = groups.first.locator("details.actor")
            if actor.count():
                actor.first.locator("summary").click()
            buttons = page.locator("#actions button[data-type]")
            assert buttons.count() >= 1
            labels = buttons.all_inner_texts()
            assert not any("=" in t for t in labels)
            # the filter keeps the actions whose label holds the words typed
            word = labels[0].split()[-1]
            page.fill("[data-testid=action-filter]", word)
            shown = page.locator("#actions button[data-type]").all_inner_texts()
            assert shown and all(word.lower() in t.lower() for t in shown)
        page.screenshot(path=str(ARTIFACTS / f"{scenario}.png"))
