"""The REST API: lobby, seats and tokens, actions, illegal and cross-side actions, undo, hooks."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from grognard.core.game import Game
from grognard.scenario import load_scenario
from tests.server.conftest import ROOT, Started, commit_postures

DUEL = ROOT / "tests" / "tinyrules" / "scenarios" / "duel.toml"


def test_lobby_lists_scenarios_and_publishes_openapi(client: Any) -> None:
    sc = client.get("/api/scenarios").json()["scenarios"]
    ids = {s["id"] for s in sc}
    assert {"tiny-duel", "ui-skirmish"} <= ids
    duel = next(s for s in sc if s["id"] == "tiny-duel")
    assert duel["sides"] == ["Blue", "Red"] and duel["ruleset"] == "tiny"
    detail = client.get("/api/scenarios/tiny-duel").json()
    assert [o["id"] for o in detail["options"]] == ["fast"]
    r = client.get("/api/scenarios/nope")
    assert r.status_code == 404 and "nope" in r.json()["message"]
    spec = client.get("/openapi.json").json()
    for path in (
        "/api/games",
        "/api/games/{game_id}/actions",
        "/api/games/{game_id}/undo",
        "/api/my-games",
    ):
        assert path in spec["paths"]
    assert "CreateGame" in spec["components"]["schemas"]
    # no CDN-backed documentation pages: the server works offline
    assert client.get("/docs").status_code == 404


def test_create_game_gives_one_secret_token_per_side_stored_hashed(client: Any, start: Any) -> None:
    g: Started = start()
    assert set(g.tokens) == {"Blue", "Red"}
    assert g.tokens["Blue"] != g.tokens["Red"] and len(g.tokens["Blue"]) >= 32
    for side, seat in g.created["sides"].items():
        assert seat["link"].endswith(f"/#/game/{g.id}?t={g.tokens[side]}")
    store = client.app.state.service.store
    rows = {r["side"]: r["token_hash"] for r in store.seats(g.id)}
    for side, tok in g.tokens.items():
        assert rows[side] == hashlib.sha256(tok.encode()).hexdigest()
    from pathlib import Path

    for f in Path(store.path).parent.glob(Path(store.path).name + "*"):  # the file and its WAL
        assert g.tokens["Blue"].encode() not in f.read_bytes()


def test_join_and_authentication(start: Any) -> None:
    g: Started = start()
    c = g.client
    r = c.post(f"/api/games/{g.id}/join", headers=g.h("Red"), json={"player": "Ann"})
    assert r.json() == {"game": g.id, "side": "Red"}
    assert g.state("Blue")["game"]["joined"] == {"Blue": False, "Red": True}
    assert c.get(f"/api/games/{g.id}/state").status_code == 403
    bad = c.get(f"/api/games/{g.id}/state", headers={"Authorization": "Bearer not-a-token"})
    assert bad.status_code == 403 and bad.json()["error"] == "forbidden"
    other: Started = start()
    assert c.get(f"/api/games/{other.id}/state", headers=g.h("Blue")).status_code == 403
    assert c.get("/api/games/000000/state", headers=g.h("Blue")).status_code == 404


def test_state_is_the_sides_view(start: Any) -> None:
    g: Started = start(seed=7)
    ref = Game.new(load_scenario(DUEL), 7)
    for side in ("Blue", "Red"):
        st = g.state(side)
        want = json.loads(json.dumps(ref.view(side)))
        want.pop("log")
        assert st["view"] == want
        assert st["legal"] == json.loads(json.dumps(ref.legal_actions(side)))
        assert st["acting"] == ["Blue", "Red"] and st["my_turn"]


def test_actions_apply_and_log_per_side(start: Any) -> None:
    g: Started = start()
    res = g.ok("Blue", {"type": "commit", "key": "posture", "value": "bold"})
    assert res["seq"] == 1
    assert any(e["text"] == "you chose 'bold' for posture" for e in res["events"])
    red = g.state("Red")
    assert all("bold" not in e["text"] for e in red["log"]), (
        "Red must not see Blue's secret before the reveal"
    )
    g.ok("Red", {"type": "commit", "key": "posture", "value": "careful"})
    g.ok("Blue", {"type": "move", "piece": "b1", "to": "0103"})
    blue = g.state("Blue")
    assert ["hex", "0103"] in [p["loc"] for p in blue["view"]["pieces"] if p["id"] == "b1"]
    assert [e["n"] for e in blue["log"]] == list(range(len(blue["log"])))
    assert blue["log"][-1]["text"] == "b1 moves to 0103" and blue["log"][-1]["rule"] == "T 3"


def test_illegal_action_returns_rule_id_and_changes_nothing(start: Any) -> None:
    g: Started = start()
    commit_postures(g)
    svc = g.client.app.state.service
    before_hash = svc.entry(g.id).game.state_hash()
    before_rows = len(svc.store.actions(g.id))
    r = g.act("Blue", {"type": "move", "piece": "b1", "to": "0502"})
    assert r.status_code == 409
    body = r.json()
    assert body == {"error": "illegal", "rule": "T 3", "message": "a piece moves one hex at a time"}
    r = g.act("Blue", {"type": "attack", "from": "0102", "target": "0202"})
    assert r.status_code == 409 and r.json()["rule"] == "T 3"
    r = g.act("Blue", {"type": 5})
    assert r.status_code == 409 and r.json()["rule"] == "core:action"
    assert svc.entry(g.id).game.state_hash() == before_hash
    assert len(svc.store.actions(g.id)) == before_rows
    assert g.state("Blue")["seq"] == 2


def test_cross_side_actions_are_refused(start: Any) -> None:
    g: Started = start()
    commit_postures(g)
    r = g.act("Blue", {"type": "end-phase", "side": "Red"})
    assert r.status_code == 403 and "Blue only" in r.json()["message"]
    r = g.act("Red", {"type": "end-phase"})
    assert r.status_code == 409 and "Red may not act now" in r.json()["message"]
    g.ok("Blue", {"type": "move", "piece": "b1", "to": "0103"})
    r = g.client.post(f"/api/games/{g.id}/undo", headers=g.h("Red"))
    assert r.status_code == 409 and "not Red" in r.json()["message"]
    r = g.client.post(f"/api/games/{g.id}/reachable", headers=g.h("Blue"), json={"pieces": ["r1"]})
    assert r.status_code == 403
    r = g.client.post(
        f"/api/games/{g.id}/preview",
        headers=g.h("Blue"),
        json={"action": {"type": "pass", "side": "Red"}},
    )
    assert r.status_code == 403
    assert g.state("Blue")["seq"] == 3


def test_every_answer_carries_the_security_headers(start: Any) -> None:
    """No framing, no sniffing, no referrer and a content security policy on every answer
    (pages, API answers, refusals made before a body is read); game data is never cached."""
    g: Started = start()
    c = g.client
    answers = [
        c.get("/"),
        c.get(f"/api/games/{g.id}/state", headers=g.h("Blue")),
        c.post(
            f"/api/games/{g.id}/actions",
            headers=g.h("Blue"),
            json={"action": {"type": "commit", "pad": "x" * 300_000}},
        ),
    ]
    assert [r.status_code for r in answers] == [200, 200, 413]
    for r in answers:
        assert r.headers["X-Frame-Options"] == "DENY"
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["Referrer-Policy"] == "no-referrer"
        assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
    assert answers[0].headers["Cache-Control"] == "no-cache"
    assert all(r.headers["Cache-Control"] == "no-store" for r in answers[1:])


def test_bad_requests_get_clear_errors_and_change_nothing(start: Any) -> None:
    g: Started = start()
    c = g.client
    url = f"/api/games/{g.id}/actions"
    r = c.post(url, headers=g.h("Blue"), json={"act": {}})
    assert r.status_code == 422
    assert {p["path"] for p in r.json()["problems"]} == {"action", "act"}
    r = c.post(
        url,
        headers=g.h("Blue"),
        content=b"{not json",
    )
    assert r.status_code == 422 and r.json()["error"] == "bad-request"
    r = c.post(url, headers=g.h("Blue"), json={"action": "move"})
    assert r.status_code == 422 and "action" in r.json()["message"]
    r = c.post(url, headers=g.h("Blue"), json={"action": {"type": "commit", "pad": "x" * 300_000}})
    assert r.status_code == 413
    r = c.post(
        url,
        headers={**g.h("Blue"), "Transfer-Encoding": "chunked"},
        content=iter([b'{"action": {}}']),
    )
    assert r.status_code == 411
    r = c.post("/api/games", json={"scenario": "tiny-duel", "options": {"nope": True}})
    assert r.status_code == 400 and "unknown option" in r.json()["message"]
    r = c.post("/api/games", json={"scenario": "tiny-duel", "seed": 0})
    assert r.status_code == 422 and r.json()["problems"][0]["path"] == "seed"
    r = c.put(
        f"/api/games/{g.id}/standing-orders", headers=g.h("Blue"), json={"orders": [{"choose": {}}]}
    )
    assert r.status_code == 422 and "type" in r.json()["message"]
    assert g.state("Blue")["seq"] == 0


def test_undo_within_the_barrier(start: Any) -> None:
    g: Started = start()
    commit_postures(g)
    g.ok("Blue", {"type": "move", "piece": "b1", "to": "0103"})
    assert g.state("Blue")["can_undo"] and not g.state("Red")["can_undo"]
    r = g.client.post(f"/api/games/{g.id}/undo", headers=g.h("Blue"))
    assert r.status_code == 200 and r.json()["undone"]["piece"] == "b1"
    st = g.state("Blue")
    assert st["seq"] == 2 and not st["can_undo"]
    assert [p["loc"] for p in st["view"]["pieces"] if p["id"] == "b1"] == [["hex", "0102"]]
    assert len(g.client.app.state.service.store.actions(g.id)) == 2
    r = g.client.post(f"/api/games/{g.id}/undo", headers=g.h("Blue"))
    assert r.status_code == 409 and "cannot undo" in r.json()["message"]


def test_game_survives_restart_and_cache_eviction(app_factory: Any, new_db: Any) -> None:
    from fastapi.testclient import TestClient

    db = new_db("persist")
    with TestClient(app_factory(db, cache_size=1)) as c:
        games = []
        for seed in (1, 2):
            body = c.post("/api/games", json={"scenario": "tiny-duel", "seed": seed}).json()
            games.append(
                Started(c, body["game"], {s: v["token"] for s, v in body["sides"].items()}, body)
            )
        for g in games:
            commit_postures(g)
        games[0].ok("Blue", {"type": "move", "piece": "b1", "to": "0103"})
        games[1].ok("Blue", {"type": "move", "piece": "b2", "to": "0303"})
        games[0].ok("Blue", {"type": "move", "piece": "b2", "to": "0204"})
        assert len(c.app.state.service.cached_ids()) == 1
        before = [g.state("Blue") for g in games]
    with TestClient(app_factory(db)) as c2:
        for g, old in zip(games, before, strict=True):
            g.client = c2
            now = g.state("Blue")
            assert (
                now["seq"] == old["seq"] and now["view"] == old["view"] and now["log"] == old["log"]
            )


def test_replay_divergence_is_reported(app_factory: Any, new_db: Any) -> None:
    from fastapi.testclient import TestClient

    db = new_db("div")
    with TestClient(app_factory(db)) as c:
        body = c.post("/api/games", json={"scenario": "tiny-duel", "seed": 3}).json()
        g = Started(c, body["game"], {s: v["token"] for s, v in body["sides"].items()}, body)
        commit_postures(g)
        with c.app.state.service.store.tx() as conn:
            conn.execute("UPDATE actions SET state_hash = 'tampered' WHERE game_id = ?", (g.id,))
    with TestClient(app_factory(db)) as c2:
        r = c2.get(f"/api/games/{g.id}/state", headers=g.h("Blue"))
        assert r.status_code == 409 and "does not replay" in r.json()["message"]


def test_my_games_lists_the_seats_of_given_tokens(start: Any) -> None:
    a: Started = start()
    b: Started = start(hotseat=True)
    r = a.client.post(
        "/api/my-games",
        json={"tokens": [a.tokens["Red"], b.tokens["Blue"], b.tokens["Red"], "junk"]},
    )
    got = sorted((x["game"], x["side"]) for x in r.json()["games"])
    assert got == sorted([(a.id, "Red"), (b.id, "Blue"), (b.id, "Red")])
    assert all(x["hotseat"] == (x["game"] == b.id) for x in r.json()["games"])


def test_preview_and_reachable_hooks(start: Any) -> None:
    g: Started = start("ui-skirmish", seed=5)
    commit_postures(g)
    r = g.client.post(
        f"/api/games/{g.id}/reachable", headers=g.h("Blue"), json={"pieces": ["b2"]}
    ).json()
    # 0402 and 0303 are behind walls (T 3); 0401 holds a friendly piece, which does not block
    assert set(r["hexes"]) == {"0401", "0301", "0201", "0202"}
    assert all(
        v["info"] == {"cost": 1} and v["action"]["piece"] == "b2" for v in r["hexes"].values()
    )
    g.ok("Blue", {"type": "end-phase"})
    pv = g.client.post(
        f"/api/games/{g.id}/preview",
        headers=g.h("Blue"),
        json={"action": {"type": "attack", "from": "0401", "target": "0502"}},
    ).json()
    assert pv["available"] and pv["odds"] == "1:1" and pv["attack"] == 2 and pv["defense"] == 2
    assert abs(sum(pv["distribution"].values()) - 1) < 1e-9
    assert pv["distribution"]["DR"] == 2 / 6


def test_generic_fallbacks_without_hooks(start: Any) -> None:
    g: Started = start("tiny-duel")
    commit_postures(g)
    r = g.client.post(
        f"/api/games/{g.id}/reachable", headers=g.h("Blue"), json={"pieces": ["b1"]}
    ).json()
    assert set(r["hexes"]) == {"0101", "0103", "0201", "0202"}
    assert r["hexes"]["0103"]["action"] == {
        "type": "move",
        "side": "Blue",
        "piece": "b1",
        "to": "0103",
    }
    pv = g.client.post(
        f"/api/games/{g.id}/preview", headers=g.h("Blue"), json={"action": {"type": "end-phase"}}
    ).json()
    assert pv == {"available": False, "text": "End the phase"}  # the declared label
    groups = g.state("Blue")["groups"]
    assert [gr["type"] for gr in groups] == ["move", "end-phase"]
    indices = [item["index"] for gr in groups for item in gr["actions"]]
    assert sorted(indices) == list(range(len(g.state("Blue")["legal"])))
    assert groups[0]["actions"][0]["text"].startswith("Move b1 to ")  # the declared label


def test_record_only_once_the_game_is_over(start: Any) -> None:
    g: Started = start()
    r = g.client.get(f"/api/games/{g.id}/record", headers=g.h("Blue"))
    assert r.status_code == 403 and "once the game is over" in r.json()["message"]


def test_every_offered_scenario_can_be_served(client: Any) -> None:
    """Shipped scenarios (and the test ones): a game starts, each side gets its view and the map."""
    svc = client.app.state.service
    offered = client.get("/api/scenarios").json()["scenarios"]
    assert len(offered) >= 2
    for sc in offered:
        r = client.post("/api/games", json={"scenario": sc["id"], "seed": 1})
        assert r.status_code == 201, (sc["id"], r.text)
        body = r.json()
        g = Started(client, body["game"], {s: v["token"] for s, v in body["sides"].items()}, body)
        board = client.get(f"/api/games/{g.id}/board", headers=g.h(sc["sides"][0])).json()
        assert len(board["hexes"]) == svc.entry(g.id).game.board.n
        for side in sc["sides"]:
            st = g.state(side)
            assert st["side"] == side and st["view"]["side"] == side
            game = svc.entry(g.id).game
            hidden = {json.dumps(t) for t in game.ruleset.hidden_tokens(game, side)}
            text = json.dumps(st["view"])
            assert not [t for t in hidden if t in text], (sc["id"], side)


def test_legal_actions_as_families_options_and_the_full_list(start: Any) -> None:
    g: Started = start(seed=7)
    ref = Game.new(load_scenario(DUEL), 7)
    c = g.client
    st = g.state("Blue")
    fams = ref.families("Blue")
    assert st["families"] == json.loads(
        json.dumps([{"type": f.type, "title": f.label, "actors": f.actors()} for f in fams])
    )
    lean = c.get(f"/api/games/{g.id}/state", headers=g.h("Blue"), params={"legal": "families"})
    assert lean.status_code == 200
    assert "legal" not in lean.json() and lean.json()["families"] == st["families"]
    flat = c.get(f"/api/games/{g.id}/legal", headers=g.h("Blue")).json()
    assert flat["seq"] == st["seq"] and flat["legal"] == st["legal"]
    assert flat["groups"] == st["groups"]
    for f in fams:
        for actor in f.actors():
            params = {"type": f.type} | ({} if actor is None else {"actor": actor})
            r = c.get(f"/api/games/{g.id}/options", headers=g.h("Blue"), params=params)
            assert r.status_code == 200, r.text
            opts = r.json()["options"]
            assert [o["action"] for o in opts] == json.loads(json.dumps(f.options(actor)))
            assert all(o["text"] == ref.label(o["action"]) for o in opts)
    for params in ({"type": "no-such-type"}, {"type": fams[0].type, "actor": "no-such-piece"}):
        r = c.get(f"/api/games/{g.id}/options", headers=g.h("Blue"), params=params)
        assert r.status_code == 404 and r.json()["error"] == "not-found"
    assert c.get(f"/api/games/{g.id}/options", params={"type": "move"}).status_code == 403
    assert c.get(f"/api/games/{g.id}/legal").status_code == 403
    # the same side view serves every request until the position changes
    e = c.app.state.service.entry(g.id)
    built = e.views["Blue"]
    g.state("Blue")
    assert e.views["Blue"] is built
    g.ok("Blue", st["legal"][0])
    assert g.state("Blue")["seq"] == 1 and e.views["Blue"] is not built


def test_a_page_asks_for_options_and_the_list_over_its_socket(start: Any) -> None:
    g: Started = start(seed=7)
    st = g.state("Blue")

    def answer(ws: Any, rid: int | str) -> dict[str, Any]:
        while True:
            m = ws.receive_json()
            if m.get("id") == rid:
                return dict(m)
            assert m["type"] == "state"  # pushes may come in between

    with g.client.websocket_connect(f"/api/games/{g.id}/ws") as ws:
        ws.send_json({"token": g.tokens["Blue"]})
        push = ws.receive_json()
        assert push["families"] == st["families"] and "legal" not in push
        ws.send_json({"type": "legal", "id": 1})
        flat = answer(ws, 1)
        assert flat["type"] == "legal" and flat["legal"] == st["legal"]
        assert flat["groups"] == st["groups"]
        fam = st["families"][0]
        ws.send_json({"type": "options", "id": 2, "family": fam["type"], "actor": fam["actors"][0]})
        opts = answer(ws, 2)
        r = g.client.get(
            f"/api/games/{g.id}/options",
            headers=g.h("Blue"),
            params={"type": fam["type"]}
            | ({} if fam["actors"][0] is None else {"actor": fam["actors"][0]}),
        )
        assert r.status_code == 200, r.text
        assert opts["type"] == "options" and opts["options"] == r.json()["options"]
        ws.send_json({"type": "options", "id": "x", "family": "no-such-type", "actor": None})
        err = answer(ws, "x")
        assert err["type"] == "error" and err["error"] == "not-found"
        ws.send_json({"type": "options", "id": 3, "family": ["bad"]})
        assert answer(ws, 3)["error"] == "bad-request"
