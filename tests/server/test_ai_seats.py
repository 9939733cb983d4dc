"""The computer's seats are stored in the database (schema 6): a restarted server and every
process over one database know which sides the computer plays, its moves stay marked as its own,
and its thinking never holds up other games.

Each test runs on SQLite and on PostgreSQL (see ``conftest.py``)."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from grognard.core import serial
from grognard.server import ai_worker
from grognard.server import db as dbmod
from grognard.server.db import Store
from grognard.server.service import Conflict, GameService, position, stored_hash
from tests.server.conftest import ROOT, SCENARIO_DIRS, Started
from tests.server.test_crash import Server, free_port

POSTURE = {"type": "commit", "key": "posture", "value": "bold"}
END = {"type": "end-phase"}


def started(c: Any, body: dict[str, Any]) -> Started:
    return Started(c, body["game"], {s: v["token"] for s, v in body["sides"].items()}, body)


def seats(g: Started, side: str = "Blue") -> dict[str, Any]:
    r = g.client.get(f"/api/games/{g.id}/ai", headers=g.h(side))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def idle(c: Any) -> None:
    assert c.app.state.ai.wait_idle(60)


def hand_red_its_turn(g: Started) -> None:
    """Blue's posture and both of its phases: Red is to act (tiny-duel)."""
    g.ok("Blue", POSTURE)
    g.ok("Blue", END)
    g.ok("Blue", END)


def stored_agents(db: str, game_id: str) -> dict[int, str | None]:
    s = Store(db)
    try:
        return {int(r["n"]): r["agent"] for r in s.actions(game_id)}
    finally:
        s.close()


def test_ai_seat_survives_a_restart_and_the_computer_plays_its_turn(app_factory: Any) -> None:
    db_app = app_factory()
    with TestClient(db_app) as c:
        g = started(c, c.post("/api/games", json={"scenario": "tiny-duel", "seed": 4}).json())
        r = c.post(f"/api/games/{g.id}/ai", headers=g.h("Blue"), json={"side": "Red"})
        assert r.status_code == 200, r.text
        idle(c)
        before = seats(g)
        assert before["sides"] == {"Red": "planner:normal"}
        assert [m["n"] for m in before["moves"]] == [1]  # Red's secret posture, at once
    db = db_app.state.service.store.path
    # the server stops; a new one starts on the same database and knows the seat
    with TestClient(app_factory(db)) as c:
        g = Started(c, g.id, g.tokens, g.created)
        assert seats(g) == before
        hand_red_its_turn(g)
        idle(c)
        after = seats(g)
        assert after["sides"] == {"Red": "planner:normal"}
        red = [m["n"] for m in after["moves"]]
        assert red[0] == 1 and len(red) > 1 and min(red[1:]) == 5  # Red played after action 4
        assert "Red" not in g.state("Blue")["acting"]
    agents = stored_agents(db, g.id)
    assert {n for n, a in agents.items() if a == "planner:normal"} == set(red)
    assert all(agents[n] is None for n in (2, 3, 4))  # Blue's own actions are not the computer's


def test_a_restarted_server_makes_the_move_the_stopped_one_left(app_factory: Any) -> None:
    first = app_factory()
    with TestClient(first) as c:
        body = c.post(
            "/api/games", json={"scenario": "tiny-duel", "seed": 4, "ai": {"Red": "greedy"}}
        ).json()
        g = started(c, body)
        idle(c)
        first.state.ai.stop()  # the process dies before the computer answers
        hand_red_its_turn(g)
        assert "Red" in g.state("Blue")["acting"]
        assert [m["n"] for m in seats(g)["moves"]] == [1]
    db = first.state.service.store.path
    second = app_factory(db)
    with TestClient(second) as c:
        idle(c)  # nobody acted on this process: it resumed the game at start
        g = Started(c, g.id, g.tokens, g.created)
        moves = seats(g)["moves"]
        assert [m["n"] for m in moves][:2] == [1, 5]
        assert all(m == {"n": m["n"], "side": "Red", "agent": "greedy"} for m in moves)
        assert "Red" not in g.state("Blue")["acting"]


def test_a_seat_given_through_one_worker_is_played_by_the_other(app_factory: Any) -> None:
    a_app = app_factory()
    b_app = app_factory(a_app.state.service.store.path)
    with TestClient(a_app) as a, TestClient(b_app) as b:
        body = a.post("/api/games", json={"scenario": "tiny-duel", "seed": 4}).json()
        on_a, on_b = started(a, body), started(b, body)
        a_app.state.ai.stop()  # only worker B's computer may play from now on
        r = a.post(f"/api/games/{on_a.id}/ai", headers=on_a.h("Red"), json={"side": "Red"})
        assert r.status_code == 200, r.text
        # worker B never heard of the seat but reads it from the database
        assert seats(on_b)["sides"] == {"Red": "planner:normal"}
        on_b.ok("Blue", POSTURE)
        idle(b)  # B's computer commits Red's posture
        on_b.ok("Blue", END)
        on_b.ok("Blue", END)
        idle(b)
        moves = seats(on_a)["moves"]  # and worker A lists B's computer's moves
        assert {m["side"] for m in moves} == {"Red"} and [m["n"] for m in moves][:2] == [2, 5]
        # giving the side back (through A) stops B's computer for it
        r = a.post(
            f"/api/games/{on_a.id}/ai", headers=on_a.h("Red"), json={"side": "Red", "level": None}
        )
        assert r.status_code == 200 and r.json()["sides"] == {}
        n = len(moves)
        st = on_b.state("Blue")
        while "Blue" in st["acting"]:
            on_b.ok("Blue", st["legal"][0] if st["legal"][0]["type"] != "move" else END)
            st = on_b.state("Blue")
        idle(b)
        assert len(seats(on_b)["moves"]) == n and "Red" in on_b.state("Red")["acting"]


def test_an_action_chosen_in_an_older_position_is_refused(new_db: Any) -> None:
    db = new_db("position")
    a = GameService(Store(db), SCENARIO_DIRS)
    b = GameService(Store(db), SCENARIO_DIRS)
    try:
        gid, _ = a.create_game("tiny-duel", 4, {}, False)
        old = position(a.entry(gid).game)
        b.act(gid, "Blue", POSTURE)  # another process moves the game on
        with pytest.raises(Conflict, match="moved on"):
            a.act(gid, "Red", {**POSTURE, "side": "Red"}, agent="greedy", at=old)
        assert [r["agent"] for r in a.store.actions(gid)] == [None]
        now = position(a.entry(gid).game)
        a.act(gid, "Red", {**POSTURE, "side": "Red"}, agent="greedy", at=now)
        assert a.store.ai_moves(gid) == [{"n": 2, "side": "Red", "agent": "greedy"}]
    finally:
        a.store.close()
        b.store.close()


def test_the_computer_thinking_never_blocks_other_games(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    thinking = threading.Event()
    real = ai_worker.make_agent

    class Slow:
        def __init__(self, spec: str, seed: int) -> None:
            self.inner = real(spec, seed)

        def choose(self, game: Any, side: str) -> Any:
            if not thinking.is_set():  # the first decision asked for takes long
                thinking.set()
                assert release.wait(60)
            return self.inner.choose(game, side)

    monkeypatch.setattr(ai_worker, "make_agent", lambda spec, seed=0: Slow(spec, seed))
    body = client.post(
        "/api/games", json={"scenario": "tiny-duel", "seed": 4, "ai": {"Red": "greedy"}}
    ).json()
    slow = started(client, body)
    assert thinking.wait(30)  # the computer thinks about Red's posture, and goes on thinking
    t0 = time.monotonic()
    # the same game answers its people meanwhile (the computer holds no lock while it thinks)
    slow.ok("Blue", POSTURE)
    assert slow.state("Blue")["seq"] == 1
    # and another game, with a computer of its own, is played at once
    other = started(
        client,
        client.post(
            "/api/games", json={"scenario": "tiny-duel", "seed": 5, "ai": {"Blue": "random"}}
        ).json(),
    )
    other.ok("Red", POSTURE)
    deadline = time.monotonic() + 30
    while not seats(other, "Red")["moves"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seats(other, "Red")["moves"][0]["side"] == "Blue"
    assert time.monotonic() - t0 < 30 and not release.is_set()
    release.set()
    idle(client)
    assert [m["n"] for m in seats(slow)["moves"]] == [2]


def test_a_version_5_database_gains_the_ai_seats_and_keeps_its_games(
    backend: str, new_db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = new_db("v5")
    with monkeypatch.context() as m:  # a grognard of schema 5 makes the database and a game
        m.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:5])
        m.setattr(dbmod, "PG_MIGRATIONS", dbmod.PG_MIGRATIONS[:1])
        m.setattr(dbmod, "SCHEMA_VERSION", 5)
        s = Store(db)
        assert s.schema_version() == 5
        old = GameService(s, SCENARIO_DIRS)
        gid, _ = old.create_game("tiny-duel", 4, {}, False)
        g = old.entry(gid).game.clone()
        g.apply({**POSTURE, "side": "Blue"})
        with s.tx() as c:  # an action as schema 5 stores it (no agent column)
            c.execute(
                "INSERT INTO actions (game_id, n, side, action, state_hash, created) VALUES"
                " (?,?,?,?,?,?)",
                (
                    gid,
                    1,
                    "Blue",
                    json.dumps(serial.to_jsonable(g.actions[-1])),
                    stored_hash(g),
                    1.0,
                ),
            )
            c.execute("UPDATE games SET revision = revision + 1 WHERE id = ?", (gid,))
        s.close()
    s = Store(db)
    try:
        assert s.schema_version() == dbmod.SCHEMA_VERSION == 6
        assert s.ai_seats(gid) == {} and s.ai_moves(gid) == []
        assert [r["agent"] for r in s.actions(gid)] == [None]
        svc = GameService(s, SCENARIO_DIRS)
        assert len(svc.entry(gid).game.actions) == 1
        s.set_ai_seat(gid, "Red", "greedy")
        assert s.ai_seats(gid) == {"Red": "greedy"} and s.ai_waiting() == [gid]
    finally:
        s.close()


def test_the_old_fixture_database_loads_with_no_ai_seats(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite"
    shutil.copy(ROOT / "tests" / "fixtures" / "v1" / "server.sqlite", path)
    s = Store(path)
    try:
        ids = [r["id"] for r in s.query("SELECT id FROM games")]
        assert ids and s.ai_waiting() == []
        svc = GameService(s)
        for gid in ids:
            assert s.ai_seats(gid) == {} and s.ai_moves(gid) == []
            svc.entry(gid)
    finally:
        s.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_grognard_serve_restarted_keeps_the_computer_playing(
    new_db: Any, tmp_path: Path, workers: int
) -> None:
    db = new_db("served")
    extra = ("--key-file", str(tmp_path / "served.key"), "--workers", str(workers))
    port = free_port()
    srv = Server(db, port, extra)
    try:
        status, made = srv.call(
            "POST", "/api/games", {"scenario": "tiny-duel", "seed": 4, "ai": {"Red": "greedy"}}
        )
        assert status == 201, made
        gid, blue = made["game"], made["sides"]["Blue"]["token"]
    finally:
        srv.stop()
    srv = Server(db, port, extra)
    try:
        for action in (POSTURE, END, END):
            status, res = srv.call("POST", f"/api/games/{gid}/actions", {"action": action}, blue)
            assert status == 200, res
        deadline = time.monotonic() + 60
        while True:
            status, ai = srv.call("GET", f"/api/games/{gid}/ai", token=blue)
            assert status == 200, ai
            if any(m["n"] >= 5 for m in ai["moves"]) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert ai["sides"] == {"Red": "greedy"}
        assert [m["n"] for m in ai["moves"]][:2] == [1, 5]
    finally:
        srv.stop()


def test_the_computer_answers_a_move_a_standing_order_handed_it(client: Any) -> None:
    body = client.post(
        "/api/games", json={"scenario": "tiny-duel", "seed": 2, "ai": {"Blue": "greedy"}}
    ).json()
    g = started(client, body)
    idle(client)
    assert [m["n"] for m in seats(g, "Red")["moves"]] == [1]  # Blue's posture
    # Red's standing order commits its posture at once: Blue (the computer) is to move
    r = client.put(
        f"/api/games/{g.id}/standing-orders",
        headers=g.h("Red"),
        json={"orders": [{"step": "secret-choice", "choose": {"type": "commit", "value": "bold"}}]},
    )
    assert r.status_code == 200 and r.json()["standing_applied"] == 1, r.text
    idle(client)
    moves = [m["n"] for m in seats(g, "Red")["moves"]]
    assert moves[:2] == [1, 3] and "Blue" not in g.state("Red")["acting"]
