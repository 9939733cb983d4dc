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


def test_a_page_acts_over_its_socket_once_per_key_and_is_refused_as_over_http(
    start: Any,
) -> None:
    """``{"type": "act"}`` over the page's socket answers as ``POST .../actions`` does: the
    applied action (then a push of the new position), ``repeated`` for a key sent again, and
    refusals with their rule or the field at fault; nothing refused is stored."""
    g: Started = start("tiny-duel", seed=1)
    commit_postures(g)
    store = g.client.app.state.service.store

    def answer(ws: Any, rid: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        pushes = []
        while True:
            m = ws.receive_json()
            if m.get("id") == rid:
                return dict(m), pushes
            assert m["type"] == "state"
            pushes.append(m)

    with g.client.websocket_connect(f"/api/games/{g.id}/ws") as ws:
        ws.send_json({"token": g.tokens["Blue"]})
        assert ws.receive_json()["seq"] == 2
        ws.send_json({"type": "act", "id": 1, "action": MOVE, "key": "ws-move-1"})
        res, pushes = answer(ws, 1)
        assert res["type"] == "act" and res["ok"] is True and res["seq"] == 3
        ws.send_json({"type": "act", "id": 2, "action": MOVE, "key": "ws-move-1"})
        again, more = answer(ws, 2)
        assert again["repeated"] is True and again["seq"] == 3
        # the push of the action's position comes from the hub, before or after either answer
        pushes += more
        while not any(p["seq"] == 3 for p in pushes):
            m = ws.receive_json()
            assert m["type"] == "state"
            pushes.append(m)
        assert all(p["seq"] <= 3 for p in pushes)  # the repeated action pushed nothing new
        assert len(store.actions(g.id)) == 3
        ws.send_json(
            {"type": "act", "id": 3, "action": {"type": "move", "piece": "b1", "to": "0502"}}
        )
        bad, _ = answer(ws, 3)
        assert bad["type"] == "error" and bad["error"] == "illegal" and bad["rule"] == "T 3"
        ws.send_json({"type": "act", "id": 4, "action": {**MOVE, "nope": 1}})
        unknown, _ = answer(ws, 4)
        assert unknown["type"] == "error" and "nope" in unknown["message"]
        ws.send_json({"type": "act", "id": 5, "action": "move"})
        assert answer(ws, 5)[0]["error"] == "bad-request"
        ws.send_json({"type": "act", "id": 6, "action": MOVE, "key": "has space"})
        assert answer(ws, 6)[0]["error"] == "bad-request"
        ws.send_json({"type": "act", "id": 7, "action": {"type": "end-phase", "side": "Red"}})
        assert answer(ws, 7)[0]["error"] == "forbidden"
        ws.send_text('{"type": "act", "id": 8, "pad": "' + "x" * 300_000 + '"}')
        assert ws.receive_json()["error"] == "too-large"
        ws.send_text("[" * 100_000)  # unreadable: ignored, the socket stays open
        ws.send_json({"type": "ping"})
        while (m := ws.receive_json())["type"] != "pong":
            assert m["type"] == "state"
    assert len(store.actions(g.id)) == 3
    assert g.state("Red")["seq"] == 3
