"""Crash safety: a server killed with SIGKILL loses no acknowledged action."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
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
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
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
