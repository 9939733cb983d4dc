"""Persistence: games, seats, actions, snapshots and standing orders, in SQLite or PostgreSQL.

``--db PATH`` is an SQLite file (WAL mode, the default); ``--db postgresql://...`` a PostgreSQL
database (needs the ``psycopg`` package: ``pip install 'grognard[postgresql]'``). Both hold the
same tables and answer the same queries; :class:`Store` is the one interface the service uses.

A game is stored as what is needed to rebuild it: the scenario text, table overrides, resolved
options, seed, the ordered action list (see :meth:`grognard.core.game.Game.record`) with the
state hash after each action, and every :data:`SNAPSHOT_EVERY` actions a snapshot (the core's
save with its state, :meth:`grognard.core.game.Game.save`, less the scenario text and the
actions the database already holds). A game is loaded from its latest snapshot and the few
actions after it, never replayed from the start (but for a database of an older grognard, whose
games have no snapshot yet: they are replayed once and get one).

The database is the single source of truth when several server processes share it: every change
to a game raises its ``revision``, and a change is written only if the revision is still the one
the writer started from (:class:`Stale` otherwise), so two processes acting on one game at once
never both succeed; a process whose cached game is behind catches up from the stored actions.

Schema versions: SQLite keeps its version in ``PRAGMA user_version``, PostgreSQL in the table
``grognard_schema``. :data:`MIGRATIONS` lists one step per SQLite version and :func:`migrate`
applies the missing ones in order, each in its own transaction; a PostgreSQL database is created
at version 5 and brought up from there by :data:`PG_MIGRATIONS` (one transaction, under an
advisory lock, so several processes starting at once upgrade it once). A database written by a
newer grognard is refused, never modified.

Every write is committed before the caller acknowledges anything to a client (SQLite with
``synchronous=FULL``; PostgreSQL's commit is durable by default), so an acknowledged action
survives a crash of the process (and of the machine).
"""

from __future__ import annotations

import json
import os
import queue
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

import msgspec

from grognard.core import serial

SNAPSHOT_EVERY = 20
_SNAPSHOT_ENCODER = msgspec.json.Encoder()
SNAPSHOTS_KEPT = 2
NOTIFY_CHANNEL = "grognard_games"
PRESENCE_SECONDS = 30.0


class DatabaseError(Exception):
    """The database is unusable (newer schema, corrupt, unreadable, unreachable)."""


class Duplicate(DatabaseError):
    """A write that would store a second action with the same number, or the same idempotency
    key twice for one seat."""


class Stale(DatabaseError):
    """A write based on a revision of the game that is no longer the stored one (another
    process changed the game first)."""


class Cursor(Protocol):
    rowcount: int

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Tx(Protocol):
    """What a transaction offers: ``execute(sql, params)`` with ``?`` placeholders."""

    def execute(self, sql: str, params: Any = (), /) -> Cursor: ...


def is_postgresql(db: str | Path) -> bool:
    """Does ``--db`` name a PostgreSQL database (``postgresql://`` or ``postgres://``)?"""
    return str(db).startswith(("postgresql://", "postgres://"))


def _script(c: Tx, sql: str) -> None:
    """Run several statements inside the caller's transaction (``executescript`` would commit)."""
    for stmt in sql.split(";"):
        if stmt.strip():
            c.execute(stmt)


# ============================================================================ SQLite schema
def _v1(c: Tx) -> None:
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


def _v2(c: Tx) -> None:
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


def _v3(c: Tx) -> None:
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


def _v4(c: Tx) -> None:
    """The idempotency key a client sent with an action (one use per key and seat)."""
    _script(
        c,
        """
        ALTER TABLE actions ADD COLUMN idempotency_key TEXT;
        CREATE UNIQUE INDEX actions_by_key ON actions(game_id, side, idempotency_key)
            WHERE idempotency_key IS NOT NULL;
        """,
    )


def _v5(c: Tx) -> None:
    """Several processes over one database: each game's revision (raised by every change),
    snapshots to load games from, and which sides have a page open on which process."""
    _script(
        c,
        """
        ALTER TABLE games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE snapshots (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            n INTEGER NOT NULL,
            state_hash TEXT NOT NULL,
            data BLOB NOT NULL,
            created REAL NOT NULL,
            PRIMARY KEY (game_id, n)
        );
        CREATE TABLE presence (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            side TEXT NOT NULL,
            worker TEXT NOT NULL,
            sockets INTEGER NOT NULL,
            seen REAL NOT NULL,
            PRIMARY KEY (game_id, side, worker)
        );
        """,
    )


def _v6(c: Tx) -> None:
    """The computer's seats (which sides it plays, at which level) and which stored actions it
    made (``actions.agent``; NULL for a person's or a standing order's)."""
    _script(
        c,
        """
        CREATE TABLE ai_seats (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            side TEXT NOT NULL,
            agent TEXT NOT NULL,
            updated REAL NOT NULL,
            PRIMARY KEY (game_id, side)
        );
        ALTER TABLE actions ADD COLUMN agent TEXT;
        """,
    )


MIGRATIONS: list[tuple[int, Callable[[Tx], None]]] = [
    (1, _v1),
    (2, _v2),
    (3, _v3),
    (4, _v4),
    (5, _v5),
    (6, _v6),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


# ============================================================================ PostgreSQL schema
def _pg_v5(c: Tx) -> None:
    """The whole schema of version 5 (PostgreSQL databases start there)."""
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
            seed BIGINT NOT NULL,
            sides TEXT NOT NULL,
            created DOUBLE PRECISION NOT NULL,
            hotseat INTEGER NOT NULL DEFAULT 0,
            updated DOUBLE PRECISION NOT NULL DEFAULT 0,
            status TEXT NOT NULL DEFAULT '',
            revision BIGINT NOT NULL DEFAULT 0
        );
        CREATE TABLE seats (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            side TEXT NOT NULL,
            token_hash TEXT NOT NULL,
            joined DOUBLE PRECISION,
            player TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (game_id, side)
        );
        CREATE INDEX seats_by_token ON seats(token_hash);
        CREATE TABLE actions (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            n INTEGER NOT NULL,
            side TEXT NOT NULL,
            action TEXT NOT NULL,
            state_hash TEXT NOT NULL,
            created DOUBLE PRECISION NOT NULL,
            idempotency_key TEXT,
            PRIMARY KEY (game_id, n)
        );
        CREATE UNIQUE INDEX actions_by_key ON actions(game_id, side, idempotency_key)
            WHERE idempotency_key IS NOT NULL;
        CREATE TABLE standing_orders (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            side TEXT NOT NULL,
            orders TEXT NOT NULL,
            updated DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (game_id, side)
        );
        CREATE TABLE snapshots (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            n INTEGER NOT NULL,
            state_hash TEXT NOT NULL,
            data BYTEA NOT NULL,
            created DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (game_id, n)
        );
        CREATE TABLE presence (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            side TEXT NOT NULL,
            worker TEXT NOT NULL,
            sockets INTEGER NOT NULL,
            seen DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (game_id, side, worker)
        );
        """,
    )


def _pg_v6(c: Tx) -> None:
    """As SQLite's version 6: the computer's seats and the mark of its actions."""
    _script(
        c,
        """
        CREATE TABLE ai_seats (
            game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            side TEXT NOT NULL,
            agent TEXT NOT NULL,
            updated DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (game_id, side)
        );
        ALTER TABLE actions ADD COLUMN agent TEXT;
        """,
    )


PG_MIGRATIONS: list[tuple[int, Callable[[Tx], None]]] = [(5, _pg_v5), (6, _pg_v6)]


# ============================================================================ SQLite
def schema_version(c: sqlite3.Connection) -> int:
    return int(c.execute("PRAGMA user_version").fetchone()[0])


def _refuse_newer(have: int) -> None:
    if have > SCHEMA_VERSION:
        raise DatabaseError(
            f"the database has schema version {have}, newer than this grognard ({SCHEMA_VERSION});"
            " upgrade grognard"
        )


def migrate(c: sqlite3.Connection, target: int | None = None) -> list[int]:
    """Apply missing migrations up to ``target`` (default: the latest); return those applied.

    The version is read again inside each step's transaction, so two processes opening one
    old database at once apply each step once."""
    target = SCHEMA_VERSION if target is None else target
    _refuse_newer(schema_version(c))
    done = []
    for version, step in MIGRATIONS:
        if version > target:
            break
        try:
            c.execute("BEGIN IMMEDIATE")
            have = schema_version(c)
            _refuse_newer(have)
            if have < version:
                step(cast(Tx, c))
                c.execute(f"PRAGMA user_version = {int(version)}")
                done.append(version)
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
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


class SQLiteBackend:
    """One connection and one lock: SQLite serialises writers anyway."""

    kind = "sqlite"

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
    def tx(self) -> Iterator[Tx]:
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield cast(Tx, self.conn)
            except sqlite3.IntegrityError as e:
                self.conn.execute("ROLLBACK")
                raise Duplicate(str(e)) from None
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return list(self.conn.execute(sql, tuple(params)))

    def notify(self, c: Tx, game_id: str) -> None:
        """SQLite has no notifications: other processes see the new revision when they poll."""


# ============================================================================ PostgreSQL
class _PgTx:
    """A PostgreSQL connection seen through ``?`` placeholders."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Any = (), /) -> Cursor:
        cur: Cursor = self.conn.execute(sql.replace("?", "%s"), tuple(params))
        return cur


class PostgresBackend:
    """A small pool of connections (one per thread in use, at most :data:`POOL` kept)."""

    kind = "postgresql"
    POOL = 16

    def __init__(self, url: str) -> None:
        try:
            import psycopg
            from psycopg.rows import dict_row
        except ImportError:
            raise DatabaseError(
                "--db postgresql://... needs the psycopg package:"
                " pip install 'grognard[postgresql]'"
            ) from None
        self.path = url
        self._psycopg = psycopg
        self._dict_row = dict_row
        self._idle: queue.LifoQueue[Any] = queue.LifoQueue()
        self._all: list[Any] = []
        self._lock = threading.Lock()
        self._closed = False
        try:
            with self._conn() as c:
                self._migrate(c)
        except psycopg.Error as e:
            raise DatabaseError(f"{_safe_url(url)}: {str(e).strip()}") from None

    def _new(self) -> Any:
        try:
            conn = self._psycopg.connect(self.path, row_factory=self._dict_row, autocommit=True)
        except self._psycopg.Error as e:
            raise DatabaseError(f"{_safe_url(self.path)}: {str(e).strip()}") from None
        with self._lock:
            self._all.append(conn)
        return conn

    @contextmanager
    def _conn(self) -> Iterator[Any]:
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = self._new()
        if conn.closed:
            conn = self._new()
        try:
            yield conn
        finally:
            if self._closed or conn.closed or self._idle.qsize() >= self.POOL:
                conn.close()
            else:
                self._idle.put(conn)

    def _migrate(self, conn: Any) -> None:
        with conn.transaction():
            # one process at a time creates or upgrades the schema
            conn.execute("SELECT pg_advisory_xact_lock(4180418)")
            conn.execute("CREATE TABLE IF NOT EXISTS grognard_schema (version INTEGER NOT NULL)")
            row = conn.execute("SELECT max(version) AS v FROM grognard_schema").fetchone()
            have = int(row["v"] or 0)
            _refuse_newer(have)
            for version, step in PG_MIGRATIONS:
                if have < version:
                    step(_PgTx(conn))
                    conn.execute("INSERT INTO grognard_schema (version) VALUES (%s)", (version,))

    def schema_version(self) -> int:
        rows = self.query("SELECT max(version) AS v FROM grognard_schema")
        return int(rows[0]["v"] or 0)

    def close(self) -> None:
        self._closed = True
        with self._lock:
            conns, self._all = self._all, []
        for c in conns:
            with suppress(self._psycopg.Error):
                c.close()

    @contextmanager
    def tx(self) -> Iterator[Tx]:
        with self._conn() as conn:
            try:
                with conn.transaction():
                    yield _PgTx(conn)
            except self._psycopg.errors.UniqueViolation as e:
                raise Duplicate(str(e).strip()) from None
            except self._psycopg.OperationalError as e:
                raise DatabaseError(f"the database failed: {str(e).strip()}") from None

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._conn() as conn:
            try:
                return list(conn.execute(sql.replace("?", "%s"), tuple(params)).fetchall())
            except self._psycopg.OperationalError as e:
                raise DatabaseError(f"the database failed: {str(e).strip()}") from None

    def notify(self, c: Tx, game_id: str) -> None:
        """Tell every listening process that ``game_id`` changed (sent at commit)."""
        c.execute("SELECT pg_notify(?, ?)", (NOTIFY_CHANNEL, game_id))

    def listen(self, on_change: Callable[[str], None], stop: threading.Event) -> None:
        """Call ``on_change(game_id)`` for every change any process commits, until ``stop`` is
        set (run on a thread of its own; reconnects after a failure)."""
        while not stop.is_set():
            try:
                with self._psycopg.connect(self.path, autocommit=True) as conn:
                    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    while not stop.is_set():
                        for n in conn.notifies(timeout=0.5):
                            on_change(n.payload)
            except self._psycopg.Error:
                stop.wait(1.0)


def _safe_url(url: str) -> str:
    """A database URL without its password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        cred, host = rest.rsplit("@", 1)
        user = cred.split(":", 1)[0]
        return f"{scheme}://{user}@{host}"
    return url


# ============================================================================ rows
def _as_dict(r: Any) -> dict[str, Any]:
    return dict(r)


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
    revision: int = 0

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> GameRow:
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
            revision=int(r["revision"]),
        )


@dataclass(frozen=True)
class Snapshot:
    """A stored snapshot: the game after action ``n`` (the core's save without the scenario text
    and the actions)."""

    n: int
    state_hash: str
    data: dict[str, Any]


# ============================================================================ the store
class Store:
    """Thread-safe access to the database, SQLite (a file path) or PostgreSQL (a URL)."""

    def __init__(self, db: str | Path) -> None:
        self.path = str(db)
        self.backend: SQLiteBackend | PostgresBackend = (
            PostgresBackend(self.path) if is_postgresql(db) else SQLiteBackend(db)
        )
        self.kind = self.backend.kind
        self.worker = f"{os.getpid()}-{os.urandom(4).hex()}"

    @property
    def conn(self) -> sqlite3.Connection:
        """The SQLite connection (SQLite only)."""
        if not isinstance(self.backend, SQLiteBackend):
            raise DatabaseError("not an SQLite database")
        return self.backend.conn

    def close(self) -> None:
        self.backend.close()

    @contextmanager
    def tx(self) -> Iterator[Tx]:
        """A write transaction, committed (durably) on success and rolled back on error."""
        with self.backend.tx() as c:
            yield c

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self.backend.query(sql, params)

    def schema_version(self) -> int:
        if isinstance(self.backend, SQLiteBackend):
            with self.backend._lock:
                return schema_version(self.backend.conn)
        return self.backend.schema_version()

    def _bump(self, c: Tx, game_id: str, expect: int | None, status: str | None = None) -> int:
        """Raise the game's revision (only from ``expect``, when given); the new revision."""
        now = time.time()
        sets = "revision = revision + 1, updated = ?" + (
            ", status = ?" if status is not None else ""
        )
        params: list[Any] = [now] + ([status] if status is not None else []) + [game_id]
        where = "id = ?"
        if expect is not None:
            where += " AND revision = ?"
            params.append(expect)
        cur = c.execute(f"UPDATE games SET {sets} WHERE {where}", params)
        if cur.rowcount != 1:
            raise Stale(f"game {game_id} changed since revision {expect}")
        self.backend.notify(c, game_id)
        return int(
            _first(c.execute("SELECT revision FROM games WHERE id = ?", (game_id,)).fetchone())
        )

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
                " created, hotseat, updated, status, revision) VALUES"
                " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
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
                    row.revision,
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

    def revision(self, game_id: str) -> int | None:
        """The game's current revision (None: no such game)."""
        rows = self.query("SELECT revision FROM games WHERE id = ?", (game_id,))
        return int(_as_dict(rows[0])["revision"]) if rows else None

    def revisions(self, game_ids: Sequence[str]) -> dict[str, int]:
        """The current revision of each of ``game_ids`` (those that exist)."""
        out: dict[str, int] = {}
        ids = list(game_ids)
        for k in range(0, len(ids), 500):
            part = ids[k : k + 500]
            marks = ",".join("?" * len(part))
            for r in self.query(f"SELECT id, revision FROM games WHERE id IN ({marks})", part):
                d = _as_dict(r)
                out[str(d["id"])] = int(d["revision"])
        return out

    def seats(self, game_id: str) -> list[Any]:
        return self.query("SELECT * FROM seats WHERE game_id = ? ORDER BY side", (game_id,))

    def seats_by_token_hash(self, token_hash: str) -> list[Any]:
        return self.query("SELECT * FROM seats WHERE token_hash = ?", (token_hash,))

    def mark_joined(self, game_id: str, side: str, player: str) -> None:
        with self.tx() as c:
            c.execute(
                "UPDATE seats SET joined = COALESCE(joined, ?), player = ? WHERE game_id = ? AND"
                " side = ?",
                (time.time(), player, game_id, side),
            )
            self._bump(c, game_id, None)

    # ------------------------------------------------------------------ actions
    def actions(self, game_id: str, after: int = 0) -> list[Any]:
        """The stored actions numbered above ``after``, in order."""
        return self.query(
            "SELECT * FROM actions WHERE game_id = ? AND n > ? ORDER BY n", (game_id, after)
        )

    def action_by_key(self, game_id: str, side: str, key: str) -> Any | None:
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
        expect: int | None = None,
        agent: str | None = None,
    ) -> int:
        """Record action number ``n`` (1-based) with the client's idempotency ``key`` (if any) and
        the computer's ``agent`` spec if the computer chose it, in one transaction, and return the
        game's new revision. Fails with :class:`Duplicate` if that number, or that key for that
        side, is already taken, and with :class:`Stale` if the game's revision is no longer
        ``expect``."""
        now = time.time()
        with self.tx() as c:
            rev = self._bump(c, game_id, expect, status)
            c.execute(
                "INSERT INTO actions (game_id, n, side, action, state_hash, created,"
                " idempotency_key, agent) VALUES (?,?,?,?,?,?,?,?)",
                (game_id, n, side, json.dumps(action, sort_keys=True), state_hash, now, key, agent),
            )
        return rev

    def remove_last_action(
        self, game_id: str, n: int, status: str, expect: int | None = None
    ) -> int:
        """Delete action number ``n`` (an undo; it must be the last one) and the snapshots after
        the actions that remain; return the game's new revision."""
        with self.tx() as c:
            rev = self._bump(c, game_id, expect, status)
            last_n = _first(
                c.execute("SELECT MAX(n) FROM actions WHERE game_id = ?", (game_id,)).fetchone()
            )
            if last_n != n:
                raise DatabaseError(
                    f"game {game_id}: action {n} is not the last stored action ({last_n})"
                )
            c.execute("DELETE FROM actions WHERE game_id = ? AND n = ?", (game_id, n))
            c.execute("DELETE FROM snapshots WHERE game_id = ? AND n >= ?", (game_id, n))
        return rev

    # ------------------------------------------------------------------ snapshots
    def put_snapshot(self, game_id: str, n: int, state_hash: str, data: Mapping[str, Any]) -> None:
        """Keep the snapshot of the game after action ``n`` (and the latest few before it)."""
        try:
            text = _SNAPSHOT_ENCODER.encode(data)  # compact JSON, many times faster than json
        except (TypeError, ValueError):  # a value msgspec does not take: the general converter
            text = json.dumps(serial.to_jsonable(data), separators=(",", ":")).encode("utf-8")
        blob = zlib.compress(text, 1)
        with self.tx() as c:
            stored = c.execute(
                "SELECT state_hash FROM actions WHERE game_id = ? AND n = ?", (game_id, n)
            ).fetchone()
            if n > 0 and (stored is None or _first(stored) != state_hash):
                return  # the action was undone (or replaced) meanwhile: the snapshot is stale
            c.execute(
                "INSERT INTO snapshots (game_id, n, state_hash, data, created) VALUES (?,?,?,?,?)"
                " ON CONFLICT (game_id, n) DO UPDATE SET state_hash = excluded.state_hash,"
                " data = excluded.data, created = excluded.created",
                (game_id, n, state_hash, blob, time.time()),
            )
            kept = c.execute(
                "SELECT n FROM snapshots WHERE game_id = ? ORDER BY n DESC", (game_id,)
            ).fetchall()
            for r in kept[SNAPSHOTS_KEPT:]:
                c.execute("DELETE FROM snapshots WHERE game_id = ? AND n = ?", (game_id, _first(r)))

    def latest_snapshot(self, game_id: str) -> Snapshot | None:
        rows = self.query(
            "SELECT n, state_hash, data FROM snapshots WHERE game_id = ? ORDER BY n DESC LIMIT 1",
            (game_id,),
        )
        if not rows:
            return None
        d = _as_dict(rows[0])
        try:
            data = json.loads(zlib.decompress(bytes(d["data"])).decode("utf-8"))
        except (zlib.error, UnicodeDecodeError, ValueError):
            return None
        return Snapshot(int(d["n"]), str(d["state_hash"]), data)

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
            self._bump(c, game_id, None)

    # ------------------------------------------------------------------ the computer's seats
    def ai_seats(self, game_id: str) -> dict[str, str]:
        """The sides the computer plays in the game: side -> agent spec."""
        rows = self.query(
            "SELECT side, agent FROM ai_seats WHERE game_id = ? ORDER BY side", (game_id,)
        )
        return {str(_as_dict(r)["side"]): str(_as_dict(r)["agent"]) for r in rows}

    def set_ai_seat(self, game_id: str, side: str, agent: str | None) -> None:
        """Give ``side`` to the computer playing ``agent`` (None: give it back to its player);
        a change of the game (its revision is raised)."""
        with self.tx() as c:
            if agent is None:
                c.execute("DELETE FROM ai_seats WHERE game_id = ? AND side = ?", (game_id, side))
            else:
                c.execute(
                    "INSERT INTO ai_seats (game_id, side, agent, updated) VALUES (?,?,?,?) ON"
                    " CONFLICT (game_id, side) DO UPDATE SET agent = excluded.agent,"
                    " updated = excluded.updated",
                    (game_id, side, agent, time.time()),
                )
            self._bump(c, game_id, None)

    def ai_moves(self, game_id: str) -> list[dict[str, Any]]:
        """The stored actions the computer made: ``{"n", "side", "agent"}`` each, in order."""
        rows = self.query(
            "SELECT n, side, agent FROM actions WHERE game_id = ? AND agent IS NOT NULL ORDER BY n",
            (game_id,),
        )
        return [
            {"n": int(d["n"]), "side": str(d["side"]), "agent": str(d["agent"])}
            for d in map(_as_dict, rows)
        ]

    def ai_waiting(self) -> list[str]:
        """The games in which a side the computer plays is to act, as their stored status says
        (what a process starting up resumes)."""
        rows = self.query(
            "SELECT a.game_id AS game_id, a.side AS side, g.status AS status FROM ai_seats a"
            " JOIN games g ON g.id = a.game_id ORDER BY a.game_id"
        )
        out: list[str] = []
        for d in map(_as_dict, rows):
            status = str(d["status"])
            acting = status[len("to act: ") :].split(", ") if status.startswith("to act: ") else []
            # an empty status (a game no action of this version touched) may be waiting too
            if (status == "" or str(d["side"]) in acting) and d["game_id"] not in out:
                out.append(str(d["game_id"]))
        return out

    # ------------------------------------------------------------------ open pages
    def set_presence(self, game_id: str, side: str, sockets: int) -> None:
        """This process now has ``sockets`` pages of ``side`` open on ``game_id``."""
        with self.tx() as c:
            if sockets > 0:
                c.execute(
                    "INSERT INTO presence (game_id, side, worker, sockets, seen) VALUES"
                    " (?,?,?,?,?) ON CONFLICT (game_id, side, worker) DO UPDATE SET"
                    " sockets = excluded.sockets, seen = excluded.seen",
                    (game_id, side, self.worker, sockets, time.time()),
                )
            else:
                c.execute(
                    "DELETE FROM presence WHERE game_id = ? AND side = ? AND worker = ?",
                    (game_id, side, self.worker),
                )
            self._bump(c, game_id, None)

    def refresh_presence(self, game_ids: Sequence[str]) -> None:
        """Mark this process's open pages on ``game_ids`` as still open."""
        ids = list(game_ids)
        if not ids:
            return
        with self.tx() as c:
            for k in range(0, len(ids), 500):
                part = ids[k : k + 500]
                marks = ",".join("?" * len(part))
                c.execute(
                    f"UPDATE presence SET seen = ? WHERE worker = ? AND game_id IN ({marks})",
                    [time.time(), self.worker, *part],
                )

    def connected_sides(self, game_id: str) -> set[str]:
        """The sides with a page open on any process (seen in the last
        :data:`PRESENCE_SECONDS`)."""
        rows = self.query(
            "SELECT DISTINCT side FROM presence WHERE game_id = ? AND sockets > 0 AND seen > ?",
            (game_id, time.time() - PRESENCE_SECONDS),
        )
        return {str(_as_dict(r)["side"]) for r in rows}


def _first(row: Any) -> Any:
    """The first column of a row (SQLite rows index by number, PostgreSQL rows are dicts)."""
    if isinstance(row, dict):
        return next(iter(row.values()))
    return row[0]
