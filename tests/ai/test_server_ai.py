"""The computer as a side of hosted games (grognard.server.ai_worker)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TINY_DIR = Path(__file__).resolve().parents[1] / "tinyrules" / "scenarios"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    from grognard.server.app import create_app

    app = create_app(tmp_path / "games.sqlite", scenario_dirs=[str(TINY_DIR)])
    with TestClient(app) as c:
        yield c
    app.state.service.store.close()


def test_play_against_the_computer_and_its_moves_are_listed(client: Any) -> None:
    r = client.post(
        "/api/games", json={"scenario": "tiny-duel", "seed": 4, "ai": {"Red": "greedy"}}
    )
    assert r.status_code == 201, r.text
    gid = r.json()["game"]
    tok = {s: v["token"] for s, v in r.json()["sides"].items()}
    blue = {"Authorization": f"Bearer {tok['Blue']}"}
    ai = client.app.state.ai
    assert ai.wait_idle(60)
    seats = client.get(f"/api/games/{gid}/ai", headers=blue).json()
    assert seats["sides"] == {"Red": "greedy"}
    assert [m["side"] for m in seats["moves"]] == ["Red"]  # its secret posture, at once
    # Blue plays its posture; the computer answers whenever Red must act
    r = client.post(
        f"/api/games/{gid}/actions",
        headers=blue,
        json={"action": {"type": "commit", "key": "posture", "value": "bold"}},
    )
    assert r.status_code == 200, r.text
    # Blue is absent from now on: the computer stands in for it too, and the game ends
    r = client.post(f"/api/games/{gid}/ai", headers=blue, json={"side": "Blue", "level": "easy"})
    assert r.status_code == 200, r.text
    assert ai.wait_idle(120)
    st = client.get(f"/api/games/{gid}/state", headers=blue).json()
    assert st["over"] is True
    seats = client.get(f"/api/games/{gid}/ai", headers=blue).json()
    assert {m["side"] for m in seats["moves"]} == {"Red", "Blue"}
    assert [m["n"] for m in seats["moves"]] == sorted(m["n"] for m in seats["moves"])
    # the computer's moves are marked in the log each side reads and in the signed record
    marked = [ev for ev in st["log"] if ev.get("agent")]
    assert marked and {ev["agent"] for ev in marked} <= {"greedy", "planner:easy"}
    rec = client.get(f"/api/games/{gid}/record", headers=blue).json()
    by = [(k, a.get("agent")) for k, a in enumerate(rec["actions"], 1)]
    assert [k for k, mark in by if mark] == [m["n"] for m in seats["moves"]]
    assert by[1] == (2, None)  # the posture Blue's player chose itself
    assert rec["signature"]


def test_a_person_may_not_mark_a_move_as_the_computers(client: Any) -> None:
    r = client.post("/api/games", json={"scenario": "tiny-duel", "seed": 4})
    gid = r.json()["game"]
    blue = {"Authorization": f"Bearer {r.json()['sides']['Blue']['token']}"}
    before = client.get(f"/api/games/{gid}/state", headers=blue).json()
    r = client.post(
        f"/api/games/{gid}/actions",
        headers=blue,
        json={"action": {"type": "commit", "key": "posture", "value": "bold", "agent": "greedy"}},
    )
    assert r.status_code == 409 and r.json()["error"] == "illegal", r.text
    assert "agent" in r.json()["message"]
    assert client.get(f"/api/games/{gid}/state", headers=blue).json()["seq"] == before["seq"]


def test_an_unknown_level_or_side_is_refused(client: Any) -> None:
    r = client.post("/api/games", json={"scenario": "tiny-duel", "ai": {"Red": "godlike"}})
    assert r.status_code >= 400 and "godlike" in r.text
    r = client.post("/api/games", json={"scenario": "tiny-duel", "ai": {"Green": "easy"}})
    assert r.status_code >= 400 and "Green" in r.text
