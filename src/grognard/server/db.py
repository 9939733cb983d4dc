"""Persistence: one SQLite file (WAL) holding games, seats, actions and standing orders.

A game is stored as what is needed to rebuild it by replay: the scenario text, table
overrides, resolved options, seed and the ordered action list (see
:meth:`grognard.core.game.Game.record`). The state hash after each action is kept
next to it, so a replay that diverges (changed rule code) is detected at load time.

Schema versions live in ``PRAGMA user_version``; :data:`MIGRATIONS` lists one step per
version and :func:`migrate` applies the missing ones in order, each in its own
transaction. A database written by a newer grognard is refused, never modified.

Every write is committed before the caller acknowledges anything to a client, with
``synchronous=FULL``, so an acknowledged action survives a crash of the process (and
of the machine).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class DatabaseError(Exception):
    """The database file is unusable (newer schema, corrupt, unreadable)."""


def _script(c: sqlite3.Connection, sql: str) -> None:
    """Run several statements inside the caller's transaction (``executescript`` would commit)."""
    for stmt in sql.split(";"):
        if stmt.strip():
            c.execute(stmt)


def _v1(c: sqlite3.Connection) -> None:
    """Games, seats (one hashed token per side) and the action log."""
    _script(
        c,
        """
        CREATE TABLE games (
            id TEXT PRIMARY KEY,
            scenario_id TEXT NOT NULL,
            title TEXT NOT NULL,
            ruleset TEXT NOT NULL,
            scenario_source TEXT NOT NULL,
            scenario_file TEXT NOT NULL,
            scenario_hash TEXT NOT NULL,
            data_hash TEXT NOT NULL,
            table_overrides TEXT NOT NULL,
            options TEXT NOT NULL,
            seed INTEGER NOT NULL,
            sides TEXT NOT NULL,
            created REAL NOT NULL
        );
        CREATE TABLE seats (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            side TEXT NOT NULL,
            token_hash TEXT NOT NULL,
            joined REAL,
            PRIMARY KEY (game_id, side)
        );
        CREATE TABLE actions (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            n INTEGER NOT NULL,
            side TEXT NOT NULL,
            action TEXT NOT NULL,
            state_hash TEXT NOT NULL,
            created REAL NOT NULL,
            PRIMARY KEY (game_id, n)
        );
        """,
    )


def _v2(c: sqlite3.Connection) -> None:
    """Standing orders per seat, player names, and the hot-seat flag."""
    _script(
        c,
        """
        CREATE TABLE standing_orders (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            side TEXT NOT NULL,
            orders TEXT NOT NULL,
            updated REAL NOT NULL,
            PRIMARY KEY (game_id, side)
        );
        ALTER TABLE seats ADD COLUMN player TEXT NOT NULL DEFAULT '';
        ALTER TABLE games ADD COLUMN hotseat INTEGER NOT NULL DEFAULT 0;
        """,
    )


def _v3(c: sqlite3.Connection) -> None:
    """When each game last changed (for 'my games' ordering) and its cached status."""
    _script(
        c,
        """
        ALTER TABLE games ADD COLUMN updated REAL NOT NULL DEFAULT 0;
        ALTER TABLE games ADD COLUMN status TEXT NOT NULL DEFAULT '';
        UPDATE games SET updated = created;
        CREATE INDEX seats_by_token ON seats(token_hash);
        """,
    )


def _v4(c: sqlite3.Connection) -> None:
    """The idempotency key a client sent with an action (one use per key and seat)."""
    _script(
        c,
        """
        ALTER TABLE actions ADD COLUMN idempotency_key TEXT;
        CREATE UNIQUE INDEX actions_by_key ON actions(game_id, side, idempotency_key)
            WHERE idempotency_key IS NOT NULL;
        """,
    )


MIGRATIONS: list[tuple[int, Callable[[sqlite3.Connection], None]]] = [
    (1, _v1),
    (2, _v2),
    (3, _v3),
    (4, _v4),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


def schema_version(c: sqlite3.Connection) -> int:
    return int(c.execute("PRAGMA user_version").fetchone()[0])


def migrate(c: sqlite3.Connection, target: int | None = None) -> list[int]:
    """Apply missing migrations up to ``target`` (default: the latest); return those applied."""
    target = SCHEMA_VERSION if target is None else target
    have = schema_version(c)
    if have > SCHEMA_VERSION:
        raise DatabaseError(
            f"the database has schema version {have}, newer than this grognard ({SCHEMA_VERSION});"
            " upgrade grognard"
        )
    done = []
    for version, step in MIGRATIONS:
        if have < version <= target:
            try:
                c.execute("BEGIN IMMEDIATE")
                step(c)
                c.execute(f"PRAGMA user_version = {int(version)}")
                c.execute("COMMIT")
            except BaseException:
                c.execute("ROLLBACK")
                raise
            done.append(version)
    return done


def connect(path: str | Path) -> sqlite3.Connection:
    """Open (creating if needed) a database file in WAL mode with full durability."""
    c = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
    c.row_factory = sqlite3.Row
    c.execute("PRAGMA foreign_keys = ON")
    if str(path) != ":memory:":
        mode = c.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise DatabaseError(f"{path}: cannot switch the database to WAL mode (got {mode})")
    c.execute("PRAGMA synchronous = FULL")
    return c


@dataclass(frozen=True)
class GameRow:
    """One stored game (without its actions)."""

    id: str
    scenario_id: str
    title: str
    ruleset: str
    scenario_source: str
    scenario_file: str
    scenario_hash: str
    data_hash: str
    table_overrides: dict[str, str]
    options: dict[str, Any]
    seed: int
    sides: list[str]
    created: float
    hotseat: bool
    updated: float
    status: str

    @classmethod
    def of(cls, r: sqlite3.Row) -> GameRow:
        return cls(
            id=r["id"],
            scenario_id=r["scenario_id"],
            title=r["title"],
            ruleset=r["ruleset"],
            scenario_source=r["scenario_source"],
            scenario_file=r["scenario_file"],
            scenario_hash=r["scenario_hash"],
            data_hash=r["data_hash"],
            table_overrides=json.loads(r["table_overrides"]),
            options=json.loads(r["options"]),
            seed=int(r["seed"]),
            sides=json.loads(r["sides"]),
            created=float(r["created"]),
            hotseat=bool(r["hotseat"]),
            updated=float(r["updated"]),
            status=r["status"],
        )


class Store:
    """Thread-safe access to the database (one connection, one lock)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.RLock()
        try:
            self.conn = connect(path)
            migrate(self.conn)
        except sqlite3.DatabaseError as e:
            raise DatabaseError(f"{path}: {e}") from None

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, committed (durably) on success and rolled back on error."""
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return list(self.conn.execute(sql, params))

    # ------------------------------------------------------------------ games
    def create_game(
        self,
        row: GameRow,
        seats: dict[str, str],
        actions: Sequence[tuple[str, dict[str, Any], str]] = (),
    ) -> None:
        """Store a new game, the hashed token of each side and (for an imported game) its
        actions so far, ``(side, action, state hash after it)`` each, in one transaction."""
        with self.tx() as c:
            c.execute(
                "INSERT INTO games (id, scenario_id, title, ruleset, scenario_source,"
                " scenario_file, scenario_hash, data_hash, table_overrides, options, seed, sides,"
                " created, hotseat, updated, status) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    row.id,
                    row.scenario_id,
                    row.title,
                    row.ruleset,
                    row.scenario_source,
                    row.scenario_file,
                    row.scenario_hash,
                    row.data_hash,
                    json.dumps(row.table_overrides, sort_keys=True),
                    json.dumps(row.options, sort_keys=True),
                    row.seed,
                    json.dumps(row.sides),
                    row.created,
                    int(row.hotseat),
                    row.updated,
                    row.status,
                ),
            )
            for side, token_hash in seats.items():
                c.execute(
                    "INSERT INTO seats (game_id, side, token_hash) VALUES (?,?,?)",
                    (row.id, side, token_hash),
                )
            for n, (side, action, state_hash) in enumerate(actions, start=1):
                c.execute(
                    "INSERT INTO actions (game_id, n, side, action, state_hash, created) VALUES"
                    " (?,?,?,?,?,?)",
                    (row.id, n, side, json.dumps(action, sort_keys=True), state_hash, row.created),
                )

    def game(self, game_id: str) -> GameRow | None:
        rows = self.query("SELECT * FROM games WHERE id = ?", (game_id,))
        return GameRow.of(rows[0]) if rows else None

    def seats(self, game_id: str) -> list[sqlite3.Row]:
        return self.query("SELECT * FROM seats WHERE game_id = ? ORDER BY side", (game_id,))

    def seats_by_token_hash(self, token_hash: str) -> list[sqlite3.Row]:
        return self.query("SELECT * FROM seats WHERE token_hash = ?", (token_hash,))

    def mark_joined(self, game_id: str, side: str, player: str) -> None:
        with self.tx() as c:
            c.execute(
                "UPDATE seats SET joined = COALESCE(joined, ?), player = ? WHERE game_id = ? AND"
                " side = ?",
                (time.time(), player, game_id, side),
            )

    # ------------------------------------------------------------------ actions
    def actions(self, game_id: str) -> list[sqlite3.Row]:
        return self.query("SELECT * FROM actions WHERE game_id = ? ORDER BY n", (game_id,))

    def action_by_key(self, game_id: str, side: str, key: str) -> sqlite3.Row | None:
        """The stored action ``side`` sent with idempotency key ``key``, if any."""
        rows = self.query(
            "SELECT * FROM actions WHERE game_id = ? AND side = ? AND idempotency_key = ?",
            (game_id, side, key),
        )
        return rows[0] if rows else None

    def append_action(
        self,
        game_id: str,
        n: int,
        side: str,
        action: dict[str, Any],
        state_hash: str,
        status: str,
        key: str | None = None,
    ) -> None:
        """Record action number ``n`` (1-based) with the client's idempotency ``key`` (if any), in
        one transaction; fails if that number, or that key for that side, is already taken."""
        now = time.time()
        with self.tx() as c:
            c.execute(
                "INSERT INTO actions (game_id, n, side, action, state_hash, created,"
                " idempotency_key) VALUES (?,?,?,?,?,?,?)",
                (game_id, n, side, json.dumps(action, sort_keys=True), state_hash, now, key),
            )
            c.execute(
                "UPDATE games SET updated = ?, status = ? WHERE id = ?", (now, status, game_id)
            )

    def remove_last_action(self, game_id: str, n: int, status: str) -> None:
        """Delete action number ``n`` (an undo); it must be the last one."""
        with self.tx() as c:
            last = c.execute("SELECT MAX(n) FROM actions WHERE game_id = ?", (game_id,)).fetchone()[
                0
            ]
            if last != n:
                raise DatabaseError(
                    f"game {game_id}: action {n} is not the last stored action ({last})"
                )
            c.execute("DELETE FROM actions WHERE game_id = ? AND n = ?", (game_id, n))
            c.execute(
                "UPDATE games SET updated = ?, status = ? WHERE id = ?",
                (time.time(), status, game_id),
            )

    # ------------------------------------------------------------------ standing orders
    def standing_orders(self, game_id: str, side: str) -> list[dict[str, Any]]:
        rows = self.query(
            "SELECT orders FROM standing_orders WHERE game_id = ? AND side = ?", (game_id, side)
        )
        return json.loads(rows[0]["orders"]) if rows else []

    def set_standing_orders(self, game_id: str, side: str, orders: list[dict[str, Any]]) -> None:
        with self.tx() as c:
            c.execute(
                "INSERT INTO standing_orders (game_id, side, orders, updated) VALUES (?,?,?,?) ON"
                " CONFLICT(game_id, side) DO UPDATE SET orders = excluded.orders, updated ="
                " excluded.updated",
                (game_id, side, json.dumps(orders, sort_keys=True), time.time()),
            )
