"""The read-only endpoints of the browser client (grognard.server.client_api): the rules
reference of a game, its charts with provisional marks and result codes, the documentation page,
and the game-over summary with victory points by turn."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from grognard.server.app import create_app


def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(tmp_path / "g.sqlite"))


def test_reference_lists_rules_charts_codes_and_declared_actions(tmp_path: Path) -> None:
    c = client(tmp_path)
    made = c.post("/api/games", json={"scenario": "sevastopol-1941", "seed": 1}).json()
    _side, seat = next(iter(made["sides"].items()))
    auth = {"Authorization": f"Bearer {seat['token']}"}
    assert c.get(f"/api/games/{made['game']}/reference").status_code in (401, 403)
    ref = c.get(f"/api/games/{made['game']}/reference", headers=auth).json()
    assert ref["ruleset"] == "eastfront" and ref["doc"] == "/api/rulesets/eastfront/doc"
    assert ref["rules"]["EF 12.0"]["status"] in (
        "tested",
        "implemented",
        "missing",
        "outside-seeds",
    )
    crt = next(t for t in ref["charts"] if t["id"] == "crt")
    assert crt["kind"] == "results" and crt["provisional"] and crt["columns"][0] == "1:3"
    assert ref["codes"]["D1R"]["rule"] == "EF 12.0"
    assert ref["actions"]["attack"]["label"] == "Declare an attack on {target}"
    doc = c.get("/api/rulesets/eastfront/doc")
    assert doc.status_code == 200 and "eastfront" in doc.text.lower()
    assert c.get("/api/rulesets/nosuch/doc").status_code == 404
    # the summary waits for the end of the game
    assert c.get(f"/api/games/{made['game']}/summary", headers=auth).status_code == 403


def test_summary_gives_winner_margin_and_points_by_turn(tmp_path: Path) -> None:
    app = create_app(tmp_path / "g.sqlite")
    c = TestClient(app)
    made = c.post("/api/games", json={"scenario": "gw-tutorial", "seed": 2}).json()
    svc = app.state.service
    g = svc.entry(made["game"]).game
    while not g.is_over():
        side = g.acting_sides()[0]
        la = g.legal_actions(side)
        ends = [a for a in la if a["type"] in ("end-phase", "done")]
        svc.act(made["game"], side, ends[0] if ends else la[0])
    token = made["sides"]["Entente"]["token"]
    sm = c.get(
        f"/api/games/{made['game']}/summary", headers={"Authorization": f"Bearer {token}"}
    ).json()
    assert sm["over"] and sm["reason"].startswith(("victory points", "sudden death"))
    assert len(sm["by_turn"]) >= 2
    assert set(sm["by_turn"][-1]["points"]) == {"Entente", "Central Powers"}
    assert sm["margin"] == abs(sm["points"]["Entente"] - sm["points"]["Central Powers"]) or sm[
        "reason"
    ].startswith("sudden death")
