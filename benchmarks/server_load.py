"""Load benchmark of the game server: many games at once, every side with its page open.

Starts ``python -m grognard.server`` (``--workers W``) on loopback over a fresh database, SQLite
or PostgreSQL, creates ``--games`` games of a scenario (Marne 1914 by default), opens one
WebSocket page per side of every game, then for ``--seconds`` each game sends one action every
``--interval`` seconds (a legal action of the side to act, found from that side's last push as a
player's page finds one: a family and actor of the pushed ``families``, then that actor's options
asked for over the page's socket, or ``GET /options`` with ``--options http``) with an
idempotency key, over the page's socket (``--act http``: ``POST .../actions``). It prints,
per request kind, the count and the latency p50/p95/p99/max, the push latency (from sending an
action to each page of the game receiving the state that includes it), the throughput and the
errors.

    .venv/bin/python benchmarks/server_load.py                       # SQLite, 100 games, 60 s
    .venv/bin/python benchmarks/server_load.py --db postgresql      # the tree's PostgreSQL
    .venv/bin/python benchmarks/server_load.py --games 20 --seconds 20 --json

``--db postgresql`` uses the server started by ``scripts/start-postgresql.sh`` (a schema of its
own, dropped afterwards); ``--db postgresql://...`` any other. The load generator runs in this
process, on the same machine as the server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[1]
PG_URL_FILE = ROOT / ".grognard-postgresql-url"


# ============================================================================ a small HTTP client
class Http:
    """One keep-alive HTTP/1.1 connection (the server always sends Content-Length)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        for attempt in (1, 2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            assert self.reader is not None
            data = b"" if body is None else json.dumps(body).encode()
            head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
            head += [f"{k}: {v}" for k, v in (headers or {}).items()]
            head += ["Content-Type: application/json", f"Content-Length: {len(data)}", "", ""]
            try:
                self.writer.write("\r\n".join(head).encode() + data)
                await self.writer.drain()
                status_line = await self.reader.readline()
                if not status_line:
                    raise ConnectionError("closed")
                status = int(status_line.split()[1])
                length = 0
                while True:
                    line = await self.reader.readline()
                    if line in (b"\r\n", b""):
                        break
                    k, _, v = line.decode().partition(":")
                    if k.lower() == "content-length":
                        length = int(v)
                raw = await self.reader.readexactly(length)
                return status, json.loads(raw) if raw else None
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


# ============================================================================ measurements
@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    refused: int = 0
    skipped: int = 0
    pushes: int = 0
    push_bytes: int = 0

    def add(self, kind: str, seconds: float) -> None:
        self.latencies.setdefault(kind, []).append(seconds)

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s) + 0.5) - 1))]


def summary(xs: list[float]) -> dict[str, float]:
    return {
        "n": len(xs),
        "p50_ms": round(pct(xs, 50) * 1e3, 1),
        "p95_ms": round(pct(xs, 95) * 1e3, 1),
        "p99_ms": round(pct(xs, 99) * 1e3, 1),
        "max_ms": round(max(xs) * 1e3, 1) if xs else float("nan"),
        "mean_ms": round(statistics.fmean(xs) * 1e3, 1) if xs else float("nan"),
    }


# ============================================================================ one game's players
class Page:
    """One side's open page: keeps the last pushed state and when each seq arrived."""

    def __init__(self, game: Game, side: str) -> None:
        self.game, self.side = game, side
        self.state: dict[str, Any] | None = None
        self.ws: ClientConnection | None = None
        self.seen = 0
        self.asked: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.next_id = 0

    async def ask(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send a question over the page's socket; its answer (``options`` or ``error``)."""
        assert self.ws is not None
        self.next_id += 1
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.asked[self.next_id] = fut
        await self.ws.send(json.dumps({**msg, "id": self.next_id}))
        return await asyncio.wait_for(fut, 60)

    async def open(self, base: str, stats: Stats) -> None:
        t = time.perf_counter()
        self.ws = await connect(
            f"{base}/api/games/{self.game.id}/ws", open_timeout=60, max_size=2**26
        )
        await self.ws.send(json.dumps({"token": self.game.tokens[self.side]}))
        self.state = json.loads(await self.ws.recv())
        self.seen = int(self.state["seq"])
        stats.add("connect", time.perf_counter() - t)

    async def listen(self, stats: Stats) -> None:
        assert self.ws is not None
        with contextlib.suppress(Exception):
            async for text in self.ws:
                m = json.loads(text)
                answers = ("options", "legal", "act", "error")
                if m.get("type") in answers and m.get("id") in self.asked:
                    self.asked.pop(m["id"]).set_result(m)
                    continue
                if m.get("type") != "state":
                    continue
                stats.pushes += 1
                stats.push_bytes += len(text)
                self.state = m
                now = time.perf_counter()
                # a push carries the latest position: it delivers every action up to its seq
                for k in range(self.seen + 1, int(m["seq"]) + 1):
                    sent = self.game.sent.get(k)
                    if sent is not None and self.game.measuring:
                        stats.add("push", now - sent)
                self.seen = max(self.seen, int(m["seq"]))


@dataclass
class Game:
    id: str
    tokens: dict[str, str]
    pages: dict[str, Page] = field(default_factory=dict)
    sent: dict[int, float] = field(default_factory=dict)
    acked: int = 0
    measuring: bool = False


END_TYPES = ("end-phase", "pass")


async def pick(
    game: Game, page: Page, http: Http, stats: Stats, rng: random.Random, via: str
) -> dict[str, Any] | None:
    """A legal action as a player's page finds one: from the pushed families (type -> actors) a
    kind of action and an actor (every pair alike, ending the phase less often), then that
    actor's options, asked for (over the page's socket, or ``GET /options`` with ``via``
    ``http``), one of them at random."""
    assert page.state is not None
    pairs = [(f["type"], a) for f in page.state["families"] for a in f["actors"]]
    if not pairs:
        return None
    weights = [0.3 if t in END_TYPES else 1.0 for t, _ in pairs]
    type_, actor = rng.choices(pairs, weights=weights, k=1)[0]
    t = time.perf_counter()
    try:
        if via == "ws":
            res = await page.ask({"type": "options", "family": type_, "actor": actor})
            status = 404 if res.get("error") == "not-found" else 500 if "error" in res else 200
        else:
            query = f"type={quote(type_)}" + (
                "" if actor is None else f"&actor={quote(str(actor))}"
            )
            status, res = await http.request(
                "GET",
                f"/api/games/{game.id}/options?{query}",
                headers={"Authorization": f"Bearer {game.tokens[page.side]}"},
            )
    except Exception as e:
        stats.error(f"options: {type(e).__name__}")
        return None
    stats.add("options", time.perf_counter() - t)
    if status == 404:
        stats.refused += 1  # the position moved on since the push
        return None
    if status != 200:
        stats.error(f"options: {status} {res.get('message', '')}")
        return None
    opts = res["options"]
    return dict(rng.choice(opts)["action"]) if opts else None


async def player(
    game: Game,
    http: Http,
    stats: Stats,
    interval: float,
    until: float,
    rng: random.Random,
    via: str = "ws",
    act_via: str = "ws",
) -> None:
    """Every ``interval`` seconds, the side to act sends a legal action found from its last push
    (see :func:`pick`), over its page's socket (``act_via`` ``ws``, as the browser does) or as
    ``POST .../actions``."""
    await asyncio.sleep(rng.uniform(0, interval))
    next_at = time.perf_counter()
    while True:
        next_at += interval
        if time.perf_counter() >= until:
            return
        page = next(
            (
                p
                for p in game.pages.values()
                if p.state and p.state["my_turn"] and p.state["seq"] >= game.acked
            ),
            None,
        )
        if page is None or not page.state or not page.state.get("families"):
            stats.skipped += 1  # no push with the latest position yet (or the game is over)
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            continue
        action = await pick(game, page, http, stats, rng, via)
        if action is not None:
            headers = {
                "Authorization": f"Bearer {game.tokens[page.side]}",
                "Idempotency-Key": secrets.token_hex(8),
            }
            t = time.perf_counter()
            game.sent[page.state["seq"] + 1] = t
            try:
                if act_via == "ws":
                    res = await page.ask(
                        {"type": "act", "action": action, "key": headers["Idempotency-Key"]}
                    )
                    status = (
                        200
                        if res.get("type") == "act"
                        else 409
                        if res.get("error") in ("illegal", "conflict")
                        else 500
                    )
                else:
                    status, res = await http.request(
                        "POST", f"/api/games/{game.id}/actions", {"action": action}, headers
                    )
            except Exception as e:
                stats.error(f"action: {type(e).__name__}")
                status, res = 0, None
            dt = time.perf_counter() - t
            if status == 200:
                stats.add("action", dt)
                game.acked = int(res["seq"])
                n = int(res["seq"])
                game.sent.setdefault(n, t)
                for k in range(page.state["seq"] + 1, n):
                    game.sent.setdefault(k, t)
            elif status == 409:
                stats.refused += 1
            elif status:
                stats.error(f"action: HTTP {status}")
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


# ============================================================================ the server
def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of process ``pid`` and its children (the worker processes),
    from /proc (0 where there is no /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError, IndexError):
            continue
    return total


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pg_schema_url(base: str) -> tuple[str, str]:
    import psycopg

    schema = f"bench_{secrets.token_hex(4)}"
    with psycopg.connect(base, autocommit=True) as c:
        c.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options=-csearch_path%3D{schema}", schema


def drop_schema(base: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(base, autocommit=True) as c:
        c.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


async def wait_up(host: str, port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the server stopped while starting")
        with contextlib.suppress(OSError, ConnectionError, asyncio.IncompleteReadError):
            h = Http(host, port)
            status, _ = await h.request("GET", "/api/health")
            h.close()
            if status == 200:
                return
        await asyncio.sleep(0.2)
    raise SystemExit("the server did not start in 60 s")


async def run(args: argparse.Namespace, db: str, tmp: Path) -> dict[str, Any]:
    host, port = "127.0.0.1", free_port()
    cmd = [
        sys.executable,
        "-m",
        "grognard.server",
        "--db",
        db,
        "--port",
        str(port),
        "--workers",
        str(args.workers),
        "--cache",
        str(args.cache),
        "--key-file",
        str(tmp / "server.key"),
        "--log-level",
        "warning",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    stats = Stats()
    try:
        await wait_up(host, port, proc)
        base = f"ws://{host}:{port}"
        rng = random.Random(args.seed)
        # ------------------------------------------------------------ set-up (not measured)
        t0 = time.perf_counter()
        games: list[Game] = []
        sem = asyncio.Semaphore(max(1, args.workers))

        async def create(k: int) -> None:
            async with sem:
                h = Http(host, port)
                t = time.perf_counter()
                status, made = await h.request(
                    "POST", "/api/games", {"scenario": args.scenario, "seed": args.seed + k}
                )
                h.close()
                if status != 201:
                    raise SystemExit(f"creating a game failed: {status} {made}")
                stats.add("create", time.perf_counter() - t)
                games.append(Game(made["game"], {s: v["token"] for s, v in made["sides"].items()}))

        await asyncio.gather(*(create(k) for k in range(args.games)))
        created_s = time.perf_counter() - t0
        for g in games:
            for side in g.tokens:
                g.pages[side] = Page(g, side)
        t1 = time.perf_counter()
        opening = asyncio.Semaphore(20)

        async def open_page(p: Page) -> None:
            async with opening:
                await p.open(base, stats)

        await asyncio.gather(*(open_page(p) for g in games for p in g.pages.values()))
        opened_s = time.perf_counter() - t1
        listeners = [asyncio.create_task(p.listen(stats)) for g in games for p in g.pages.values()]
        await asyncio.sleep(2)  # the pushes of every page's arrival settle
        # ------------------------------------------------------------ the measured load
        stats.latencies.pop("push", None)
        for g in games:
            g.measuring = True
        clients = [Http(host, port) for _ in games]  # each game's players, their own connection
        start = time.perf_counter()
        cpu0 = cpu_seconds(proc.pid)
        until = start + args.seconds
        await asyncio.gather(
            *(
                player(
                    g,
                    clients[k % len(clients)],
                    stats,
                    args.interval,
                    until,
                    rng,
                    args.options,
                    args.act,
                )
                for k, g in enumerate(games)
            )
        )
        elapsed = time.perf_counter() - start
        cpu = cpu_seconds(proc.pid) - cpu0
        await asyncio.sleep(min(10.0, args.interval * 2))  # the last pushes arrive
        lost = sum(1 for g in games for p in g.pages.values() if p.seen < g.acked)
        for t in listeners:
            t.cancel()
        for g in games:
            for p in g.pages.values():
                if p.ws is not None:
                    with contextlib.suppress(Exception):
                        await p.ws.close()
        for c in clients:
            c.close()
        actions = len(stats.latencies.get("action", []))
        return {
            "db": "postgresql" if db.startswith("postgres") else "sqlite",
            "workers": args.workers,
            "options_via": args.options,
            "act_via": args.act,
            "games": args.games,
            "pages": sum(len(g.pages) for g in games),
            "connections": len(clients),
            "seconds": round(elapsed, 1),
            "interval_s": args.interval,
            "setup": {"create_s": round(created_s, 1), "open_pages_s": round(opened_s, 1)},
            "requests": {k: summary(v) for k, v in sorted(stats.latencies.items())},
            "actions_per_s": round(actions / elapsed, 1),
            "server_cpu_s": round(cpu, 1),
            "server_cpu_ms_per_action": round(cpu / actions * 1e3, 1) if actions else None,
            "offered_actions_per_s": round(args.games / args.interval, 1),
            "refused_409": stats.refused,
            "skipped_no_fresh_push": stats.skipped,
            "pushes_per_s": round(stats.pushes / elapsed, 1),
            "push_mb_per_s": round(stats.push_bytes / elapsed / 1e6, 2),
            "pages_behind_at_the_end": lost,
            "errors": stats.errors,
        }
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def print_report(r: dict[str, Any]) -> None:
    print(
        f"\n== {r['db']}, {r['workers']} workers: {r['games']} games, {r['pages']} pages,"
        f" one action per game every {r['interval_s']} s, {r['seconds']} s"
        f" (set-up: {r['setup']['create_s']} s to create, {r['setup']['open_pages_s']} s to open)"
    )
    print(f"{'kind':<10}{'n':>8}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}{'max ms':>10}")
    for kind, s in r["requests"].items():
        print(
            f"{kind:<10}{s['n']:>8}{s['p50_ms']:>10}{s['p95_ms']:>10}{s['p99_ms']:>10}"
            f"{s['max_ms']:>10}"
        )
    print(
        f"actions/s {r['actions_per_s']} (offered {r['offered_actions_per_s']}), pushes/s"
        f" {r['pushes_per_s']} ({r['push_mb_per_s']} MB/s), refused {r['refused_409']}, skipped"
        f" (no fresh push yet) {r['skipped_no_fresh_push']}, pages behind at the end"
        f" {r['pages_behind_at_the_end']}, errors {r['errors'] or 0}, server CPU"
        f" {r['server_cpu_s']} s ({r['server_cpu_ms_per_action']} ms per action)"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--db", default="sqlite", help="sqlite, postgresql, or a postgresql:// URL")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--interval", type=float, default=2.0, help="seconds between a game's actions")
    p.add_argument("--cache", type=int, default=128, help="--cache of each server process")
    p.add_argument("--scenario", default="marne-1914")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--options",
        choices=("ws", "http"),
        default="ws",
        help="ask for an actor's options over the page's socket (ws) or GET /options (http)",
    )
    p.add_argument(
        "--act",
        choices=("ws", "http"),
        default="ws",
        help="send each action over the page's socket (ws, as the browser does) or as POST",
    )
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="grognard-load-") as d:
        tmp = Path(d)
        schema = None
        base = ""
        if args.db == "sqlite":
            db = str(tmp / "load.sqlite")
        else:
            base = args.db
            if args.db == "postgresql":
                if not PG_URL_FILE.is_file():
                    raise SystemExit("no PostgreSQL: run bash scripts/start-postgresql.sh")
                base = PG_URL_FILE.read_text().strip()
            db, schema = pg_schema_url(base)
        try:
            report = asyncio.run(run(args, db, tmp))
        finally:
            if schema:
                drop_schema(base, schema)
    report["machine"] = {"cpus": os.cpu_count()}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
