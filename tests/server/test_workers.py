"""Several server processes over one database: shared truth, pushes across processes, snapshots.

Two applications on one database stand for two worker processes (each has its own cache of
games, its own sockets and its own watcher); the last test runs ``grognard serve --workers 2``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import shutil
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from grognard.core import saves
from grognard.server import db as dbmod
from grognard.server.app import Hub
from grognard.server.db import Store
from grognard.server.service import GameService
from tests.server.conftest import ROOT, SCENARIO_DIRS, Started
from tests.server.test_crash import Server, free_port

V1 = ROOT / "tests" / "fixtures" / "v1"


def started(c: Any, body: dict[str, Any]) -> Started:
    return Started(c, body["game"], {s: v["token"] for s, v in body["sides"].items()}, body)


def test_two_workers_act_on_one_game_and_push_to_each_others_pages(app_factory: Any) -> None:
    with TestClient(app_factory()) as a, TestClient(app_factory()) as b:
        body = a.post("/api/games", json={"scenario": "tiny-duel", "seed": 5}).json()
        on_a, on_b = started(a, body), started(b, body)
        with (
            b.websocket_connect(f"/api/games/{on_a.id}/ws") as blue,
            a.websocket_connect(f"/api/games/{on_a.id}/ws") as red,
        ):
            blue.send_json({"token": on_a.tokens["Blue"]})
            assert blue.receive_json()["seq"] == 0
            red.send_json({"token": on_a.tokens["Red"]})
            assert red.receive_json()["seq"] == 0

            def pushed(ws: Any, seq: int) -> dict[str, Any]:
                while True:  # a page may get a push more (someone connected): wait for seq
                    m = ws.receive_json()
                    if m["type"] == "state" and m["seq"] == seq:
                        return m

            # the page on worker B learns the other side joined through worker A (it may first
            # get the push of its own arrival, which named Blue alone)
            m = pushed(blue, 0)
            while m["connected"] != ["Blue", "Red"]:
                assert m["connected"] == ["Blue"]
                m = pushed(blue, 0)
            on_a.ok("Blue", {"type": "commit", "key": "posture", "value": "bold"})  # via A
            on_b.ok("Red", {"type": "commit", "key": "posture", "value": "careful"})  # via B
            for ws in (blue, red):
                pushed(ws, 2)
            on_b.ok("Blue", {"type": "move", "piece": "b1", "to": "0103"})  # B, A's copy is behind
            on_a.ok("Blue", {"type": "move", "piece": "b2", "to": "0303"})  # A catches up first
            for ws in (blue, red):
                st = pushed(ws, 4)
            assert st["side"] == "Red"
            # an undo on B; A's cached game has the undone move: A reloads the stored history
            r = b.post(f"/api/games/{on_a.id}/undo", headers=on_a.h("Blue"))
            assert r.status_code == 200, r.text
            assert on_a.state("Blue")["seq"] == 3
            on_a.ok("Blue", {"type": "move", "piece": "b2", "to": "0204"})
            for ws in (blue, red):
                pushed(ws, 4)
            views = [g.state(s)["view"] for g in (on_a, on_b) for s in ("Blue", "Red")]
            assert views[0] == views[2] and views[1] == views[3]
            assert len(a.app.state.service.store.actions(on_a.id)) == 4


def test_a_write_that_lost_the_race_is_judged_again(new_db: Any, tmp_path: Path) -> None:
    db = new_db("race")
    a = GameService(Store(db), SCENARIO_DIRS)
    b = GameService(Store(db), SCENARIO_DIRS)
    try:
        gid, _ = a.create_game("tiny-duel", seed=3)
        a.act(gid, "Blue", {"type": "commit", "key": "posture", "value": "bold"})
        b.act(gid, "Red", {"type": "commit", "key": "posture", "value": "careful"})
        a.entry(gid)  # A caught up: revision 2
        b.act(gid, "Blue", {"type": "move", "piece": "b1", "to": "0103"})
        # A reads the revision before B's move was stored: it computes on the old position, its
        # write is refused, and it judges the action again on the stored one
        real = a.store.revision
        calls = []

        def stale(game_id: str) -> int | None:
            calls.append(game_id)
            return a._cache[game_id].revision if len(calls) == 1 else real(game_id)

        a.store.revision = stale  # type: ignore[method-assign]
        res = a.act(gid, "Blue", {"type": "move", "piece": "b2", "to": "0303"})
        assert res["seq"] == 4 and len(calls) >= 2
        stored = [json.loads(r["action"]) for r in a.store.actions(gid)]
        assert [x.get("piece") for x in stored] == [None, None, "b1", "b2"]
        # both services agree on the position
        assert a.entry(gid).game.state_hash() == b.entry(gid).game.state_hash()
        # two services acting at once on one game: every action stored once, in one order
        errors: list[BaseException] = []

        def play(svc: GameService, moves: list[tuple[str, str]]) -> None:
            for piece, to in moves:
                try:
                    svc.act(gid, "Blue", {"type": "move", "piece": piece, "to": to})
                except Exception as e:  # an illegal move after the other's one is fine
                    errors.append(e)

        t1 = threading.Thread(target=play, args=(a, [("b1", "0104")]))
        t2 = threading.Thread(target=play, args=(b, [("b2", "0304")]))
        t1.start(), t2.start()
        t1.join(), t2.join()
        rows = a.store.actions(gid)
        assert [int(r["n"]) for r in rows] == list(range(1, len(rows) + 1))
        assert a.entry(gid).game.state_hash() == b.entry(gid).game.state_hash()
        assert all(type(e).__name__ in ("Illegal", "Conflict") for e in errors)
    finally:
        a.store.close()
        b.store.close()


def play_random(svc: GameService, gid: str, n: int, seed: int) -> int:
    rng = random.Random(seed)
    for _ in range(n):
        g = svc.entry(gid).game
        acting = g.acting_sides()
        if g.is_over() or not acting:
            break
        side = acting[0]
        svc.act(gid, side, rng.choice(g.legal_actions(side)))
    return len(svc.entry(gid).game.actions)


def test_games_load_from_their_latest_snapshot_not_from_the_start(
    new_db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = new_db("snap")
    a = GameService(Store(db), SCENARIO_DIRS)
    gid, _ = a.create_game("ui-skirmish", seed=2)
    n = play_random(a, gid, 2 * dbmod.SNAPSHOT_EVERY + 5, 2)
    assert n > dbmod.SNAPSHOT_EVERY and n % dbmod.SNAPSHOT_EVERY  # a snapshot, and actions after it
    want = a.entry(gid).game
    snap = a.store.latest_snapshot(gid)
    assert snap is not None and snap.n == n - n % dbmod.SNAPSHOT_EVERY
    a.store.close()

    def no_replay(*args: Any, **kw: Any) -> Any:
        raise AssertionError("the game was replayed from the start")

    monkeypatch.setattr(saves, "rebuild", no_replay)
    b = GameService(Store(db), SCENARIO_DIRS)
    try:
        got = b.entry(gid).game
        assert len(got.actions) == n and got.state_hash() == want.state_hash()
        assert got.view("Blue") == want.view("Blue") and got.is_over() == want.is_over()
        assert got.visible_log("Red") == want.visible_log("Red")
    finally:
        b.store.close()


def test_an_old_database_is_replayed_once_then_loads_from_a_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "server.sqlite"
    shutil.copy(V1 / "server.sqlite", path)
    svc = GameService(Store(path))
    ids = list(json.loads((V1 / "server-tokens.json").read_text()))
    hashes = {gid: svc.entry(gid).game.state_hash() for gid in ids}
    assert all(svc.store.latest_snapshot(gid) is not None for gid in ids)
    svc.store.close()

    def no_replay(*args: Any, **kw: Any) -> Any:
        raise AssertionError("the game was replayed from the start")

    monkeypatch.setattr(saves, "rebuild", no_replay)
    again = GameService(Store(path))
    try:
        assert {gid: again.entry(gid).game.state_hash() for gid in ids} == hashes
    finally:
        again.store.close()


def test_grognard_serve_with_two_workers(new_db: Any, tmp_path: Path) -> None:
    from websockets.sync.client import connect

    db = new_db("served")
    extra = ("--workers", "2", "--key-file", str(tmp_path / "served.key"))
    srv = Server(db, free_port(), extra)
    try:
        status, made = srv.call("POST", "/api/games", {"scenario": "tiny-duel", "seed": 4})
        assert status == 201, made
        gid, tokens = made["game"], {s: v["token"] for s, v in made["sides"].items()}
        ws_url = srv.url.replace("http://", "ws://") + f"/api/games/{gid}/ws"
        stack = contextlib.ExitStack()
        pages = []
        for k in range(6):  # pages on whichever worker accepts them
            side = ("Blue", "Red")[k % 2]
            ws = stack.enter_context(connect(ws_url, open_timeout=20))
            ws.send(json.dumps({"token": tokens[side]}))
            pages.append(ws)
        processes = {srv.call("GET", "/api/health")[1]["process"] for _ in range(20)}
        acts = [
            ("Blue", {"type": "commit", "key": "posture", "value": "bold"}),
            ("Red", {"type": "commit", "key": "posture", "value": "careful"}),
            ("Blue", {"type": "move", "piece": "b1", "to": "0103"}),
            ("Blue", {"type": "move", "piece": "b2", "to": "0303"}),
        ]
        for side, action in acts:  # each request on a connection of its own
            status, res = srv.call(
                "POST", f"/api/games/{gid}/actions", {"action": action}, token=tokens[side]
            )
            assert status == 200, res
        for ws in pages:
            seq = -1
            while seq != len(acts):
                m = json.loads(ws.recv(timeout=20))
                assert m["type"] == "state"
                seq = m["seq"]
        stack.close()
        assert processes  # (which workers answered is the kernel's choice)
        with urllib.request.urlopen(srv.url + "/api/health", timeout=10) as r:
            assert json.loads(r.read())["ok"]
    finally:
        srv.stop()


def test_push_order_hint_names_the_sides_to_act_of_a_cached_game_only(tmp_path: Path) -> None:
    """The hint that orders pushes (sides not to act first) reads this process's cache only: a
    game cached here gives its acting sides, one another process holds gives none."""
    db = str(tmp_path / "hint.sqlite")
    a = GameService(Store(db), SCENARIO_DIRS)
    b = GameService(Store(db), SCENARIO_DIRS)
    gid, _ = a.create_game("tiny-duel", seed=3)
    with a.locked(gid) as e:
        acting = e.game.acting_sides()
    assert acting and a.acting_hint(gid) == acting
    assert b.acting_hint(gid) == []
    assert a.acting_hint("no-such-game") == []


def test_pushed_state_reads_standing_orders_kept_in_the_process(tmp_path: Path) -> None:
    """A push shows the standing orders this process keeps for the side (set here), the same as
    the database holds, without reading them again."""
    db = str(tmp_path / "orders.sqlite")
    svc = GameService(Store(db), SCENARIO_DIRS)
    gid, _ = svc.create_game("tiny-duel", seed=3)
    side = svc.store.seats(gid)[0]["side"]
    before = svc.state_for(gid, side, 0, False)["standing_orders"]
    assert before == svc.store.standing_orders(gid, side)
    with svc.locked(gid) as e:
        e.orders[side] = []
    calls: list[str] = []
    real = svc.store.standing_orders

    def counted(game_id: str, s: str) -> list[dict[str, Any]]:
        calls.append(s)
        return real(game_id, s)

    svc.store.standing_orders = counted  # type: ignore[method-assign]
    assert svc.state_for(gid, side, 0, False)["standing_orders"] == before
    assert side not in calls


def test_the_watcher_ends_when_asked_even_if_its_cancellation_is_lost() -> None:
    """A server stopping ends its watcher by a flag (``Hub.stop``) as well as by cancelling it:
    on Python 3.11 ``asyncio.wait_for`` can lose a cancellation that comes as a PostgreSQL
    notification wakes the watcher, and the server then never finished shutting down. Here the
    watcher is never cancelled at all, and wakes up all the time."""

    class FakeStore:
        backend = None

        def revisions(self, ids: Any) -> dict[str, int]:
            return dict.fromkeys(ids, 1)

        def refresh_presence(self, ids: Any) -> None:
            return None

    class FakeService:
        store = FakeStore()

    hub = Hub(FakeService(), poll=0.001)  # type: ignore[arg-type]
    hub.clients["g"] = set()
    hub.changed = lambda game_id, revision=None: None  # type: ignore[method-assign]

    async def run() -> bool:
        task = asyncio.get_running_loop().create_task(hub.watch())
        await asyncio.sleep(0.05)
        hub.stop()
        done, _ = await asyncio.wait({task}, timeout=5)
        return task in done

    assert asyncio.run(run())
