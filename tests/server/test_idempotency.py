"""Retried actions: an action sent with an ``Idempotency-Key`` is applied once, however often it is
sent again (a client that lost the answer to a crash or a dropped connection retries safely)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.server.conftest import Started, commit_postures

MOVE = {"type": "move", "piece": "b1", "to": "0103"}


def send(g: Started, side: str, action: dict[str, Any], key: str | None) -> Any:
    headers = {**g.h(side), **({"Idempotency-Key": key} if key is not None else {})}
    return g.client.post(f"/api/games/{g.id}/actions", headers=headers, json={"action": action})


def test_a_retried_action_is_applied_once(start: Any) -> None:
    g: Started = start("tiny-duel", seed=1)
    commit_postures(g)
    first = send(g, "Blue", MOVE, "move-1")
    assert first.status_code == 200 and first.json()["seq"] == 3
    again = send(g, "Blue", MOVE, "move-1")
    assert again.status_code == 200, again.text
    assert again.json() == {
        "ok": True,
        "seq": 3,
        "repeated": True,
        "events": [],
        "standing_applied": 0,
    }
    assert g.state("Blue")["seq"] == 3
    assert len(g.client.app.state.service.store.actions(g.id)) == 3
    # without a key, the same action sent twice is two actions (here the second is illegal)
    assert send(g, "Blue", {"type": "end-phase"}, None).status_code == 200
    assert send(g, "Blue", {"type": "end-phase"}, None).status_code in (200, 409)


def test_a_key_used_for_another_action_is_refused(start: Any) -> None:
    g: Started = start("tiny-duel", seed=1)
    commit_postures(g)
    assert send(g, "Blue", MOVE, "k").status_code == 200
    r = send(g, "Blue", {"type": "end-phase"}, "k")
    assert r.status_code == 409 and r.json()["error"] == "conflict"
    assert "Idempotency-Key" in r.json()["message"] and "action 3" in r.json()["message"]
    assert g.state("Blue")["seq"] == 3


def test_keys_belong_to_one_side(start: Any) -> None:
    g: Started = start("tiny-duel", seed=1)
    assert (
        send(g, "Blue", {"type": "commit", "key": "posture", "value": "bold"}, "a").json()["seq"]
        == 1
    )
    r = send(g, "Red", {"type": "commit", "key": "posture", "value": "bold"}, "a")
    assert r.status_code == 200 and r.json()["seq"] == 2 and "repeated" not in r.json()


def test_a_retry_after_a_restart_finds_the_stored_action(app_factory: Any, new_db: Any) -> None:
    """The server stored the action and died before answering: the retry, to a new process,
    answers the stored action instead of applying it again."""
    db = new_db("retry")
    with TestClient(app_factory(db)) as c:
        body = c.post("/api/games", json={"scenario": "tiny-duel", "seed": 1}).json()
        g = Started(c, body["game"], {s: v["token"] for s, v in body["sides"].items()}, body)
        commit_postures(g)
        assert send(g, "Blue", MOVE, "lost-answer").status_code == 200
    with TestClient(app_factory(db)) as c:
        g = Started(c, g.id, g.tokens, g.created)
        r = send(g, "Blue", MOVE, "lost-answer")
        assert r.status_code == 200 and r.json()["repeated"] is True and r.json()["seq"] == 3
        assert g.state("Blue")["seq"] == 3


def test_a_bad_key_is_a_422(start: Any) -> None:
    g: Started = start("tiny-duel", seed=1)
    for bad in ("", "x" * 201, "two words"):
        r = send(g, "Blue", {"type": "commit", "key": "posture", "value": "bold"}, bad)
        assert r.status_code == 422, (bad, r.text)
        assert r.json()["error"] == "bad-request" and "Idempotency-Key" in r.json()["message"]
    assert g.state("Blue")["seq"] == 0
