"""Crash safety: a server killed with SIGKILL loses no acknowledged action."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.server.conftest import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``python -m grognard.server`` as a child process."""

    def __init__(self, db: Path | str, port: int, extra: tuple[str, ...] = ()) -> None:
        env = dict(os.environ)
        env["GROGNARD_PLUGINS"] = "tests.tinyrules"
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
        self.url = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "grognard.server",
                "--port",
                str(port),
                "--db",
                str(db),
                "--scenarios",
                str(ROOT / "tests" / "tinyrules" / "scenarios"),
                "--log-level",
                "warning",
                *extra,
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                self.call("GET", "/api/health")
                return
            except (urllib.error.URLError, ConnectionError):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                    raise RuntimeError(f"server did not start: {err}") from None
                time.sleep(0.05)

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        if self.proc.stderr:
            self.proc.stderr.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc.stderr:
            self.proc.stderr.close()


def test_kill_9_loses_no_acknowledged_action(tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite"
    srv = Server(db, free_port())
    try:
        status, made = srv.call("POST", "/api/games", {"scenario": "tiny-duel", "seed": 11})
        assert status == 201
        gid = made["game"]
        tokens = {s: v["token"] for s, v in made["sides"].items()}
        rng = random.Random(11)
        acked = 0
        views: dict[str, Any] = {}
        for _ in range(22):
            states = {
                s: srv.call("GET", f"/api/games/{gid}/state", token=t)[1] for s, t in tokens.items()
            }
            side = next((s for s in ("Blue", "Red") if states[s]["legal"]), None)
            if side is None:
                break
            legal = states[side]["legal"]
            action = rng.choices(
                legal, weights=[0.15 if a["type"] == "end-phase" else 1.0 for a in legal]
            )[0]
            status, res = srv.call(
                "POST", f"/api/games/{gid}/actions", {"action": action}, token=tokens[side]
            )
            assert status == 200, res
            acked = res["seq"]
        for s, t in tokens.items():
            views[s] = srv.call("GET", f"/api/games/{gid}/state", token=t)[1]
        assert acked >= 20
        srv.kill9()  # no shutdown, no flush: whatever was acknowledged must already be on disk
    finally:
        srv.stop()

    srv2 = Server(db, free_port())
    try:
        for s, t in tokens.items():
            status, st = srv2.call("GET", f"/api/games/{gid}/state", token=t)
            assert status == 200
            assert st["seq"] == acked
            assert st["view"] == views[s]["view"] and st["log"] == views[s]["log"]
        # and play goes on from there
        side = next(s for s in ("Blue", "Red") if views[s]["legal"])
        status, res = srv2.call(
            "POST",
            f"/api/games/{gid}/actions",
            {"action": views[side]["legal"][0]},
            token=tokens[side],
        )
        assert status == 200 and res["seq"] == acked + 1
    finally:
        srv2.stop()


def test_kill_9_with_actions_in_flight_loses_none_and_stores_none_twice(
    new_db: Any, backend: str, tmp_path: Path
) -> None:
    """SQLite and PostgreSQL: the server is killed while an action with an Idempotency-Key is
    in flight; after a restart every acknowledged action is there, and every action sent again
    with its key (the acknowledged ones and the one whose answer never came) is stored once."""
    db = new_db("crash")
    key = ("--key-file", str(tmp_path / "server.key"))
    srv = Server(db, free_port(), key)
    sent: list[tuple[str, str, dict[str, Any], int | None]] = []  # side, key, action, acked seq
    posting = threading.Event()
    stop = threading.Event()
    try:
        status, made = srv.call("POST", "/api/games", {"scenario": "tiny-duel", "seed": 5})
        assert status == 201
        gid = made["game"]
        tokens = {s: v["token"] for s, v in made["sides"].items()}
        rng = random.Random(5)

        def play() -> None:
            while not stop.is_set():
                try:
                    states = {
                        s: srv.call("GET", f"/api/games/{gid}/state", token=t)[1]
                        for s, t in tokens.items()
                    }
                except Exception:
                    return
                side = next((s for s in ("Blue", "Red") if states[s]["legal"]), None)
                if side is None:
                    return
                legal = states[side]["legal"]
                action = rng.choices(
                    legal, weights=[0.15 if a["type"] == "end-phase" else 1.0 for a in legal]
                )[0]
                key = f"k{len(sent)}-{rng.getrandbits(32):08x}"
                sent.append((side, key, action, None))
                if len(sent) > 8:
                    posting.set()
                try:
                    status, res = srv.call(
                        "POST",
                        f"/api/games/{gid}/actions",
                        {"action": action},
                        token=tokens[side],
                        headers={"Idempotency-Key": key},
                    )
                except Exception:
                    return  # the server died with this action in flight
                assert status == 200, res
                sent[-1] = (side, key, action, int(res["seq"]))

        player = threading.Thread(target=play, daemon=True)
        player.start()
        assert posting.wait(120), "the game did not get going"
        srv.kill9()
        stop.set()
        player.join(30)
        assert not player.is_alive()
    finally:
        stop.set()
        srv.stop()

    acked = [seq for _, _, _, seq in sent if seq is not None]
    assert len(acked) >= 8
    srv2 = Server(db, free_port(), key)
    try:
        st = srv2.call("GET", f"/api/games/{gid}/state", token=tokens["Blue"])[1]
        assert st["seq"] >= max(acked)  # nothing acknowledged was lost
        stored = st["seq"]
        for side, key, action, seq in sent:
            status, res = srv2.call(
                "POST",
                f"/api/games/{gid}/actions",
                {"action": action},
                token=tokens[side],
                headers={"Idempotency-Key": key},
            )
            if seq is not None:
                # acknowledged: stored once, under its number
                assert status == 200 and res == {
                    "ok": True,
                    "seq": seq,
                    "repeated": True,
                    "events": [],
                    "standing_applied": 0,
                }, res
            else:
                # in flight when the server died: stored before (repeated) or applied now, once
                assert status == 200, res
                if res.get("repeated"):
                    assert res["seq"] == stored
                else:
                    assert res["seq"] == stored + 1 + res["standing_applied"]
                    stored = res["seq"]
                again = srv2.call(
                    "POST",
                    f"/api/games/{gid}/actions",
                    {"action": action},
                    token=tokens[side],
                    headers={"Idempotency-Key": key},
                )[1]
                assert again["repeated"] is True
        final = srv2.call("GET", f"/api/games/{gid}/state", token=tokens["Blue"])[1]
        assert final["seq"] == stored
    finally:
        srv2.stop()
