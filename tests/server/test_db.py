"""The database: versioned migrations, refusal of newer files, WAL mode, durable writes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from grognard.server import db


def test_fresh_database_has_the_latest_schema_in_wal_mode(tmp_path: Path) -> None:
    s = db.Store(tmp_path / "a.sqlite")
    assert db.schema_version(s.conn) == db.SCHEMA_VERSION == 6
    assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in s.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"games", "seats", "actions", "standing_orders", "ai_seats"} <= tables
    s.close()


def test_migration_from_version_1_keeps_the_data(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    c = db.connect(path)
    assert db.migrate(c, target=1) == [1]
    c.execute(
        "INSERT INTO games VALUES ('g1', 'tiny-duel', 'Tiny duel', 'tiny', 'src', 'duel.toml', 'h',"
        " 'd', '{}', '{}', 3, '[\"Blue\", \"Red\"]', 1000.0)"
    )
    c.execute("INSERT INTO seats VALUES ('g1', 'Blue', 'hash-b', NULL)")
    c.execute("INSERT INTO actions VALUES ('g1', 1, 'Blue', '{\"type\": \"x\"}', 'sh', 1001.0)")
    c.close()

    s = db.Store(path)  # migrates 2, 3, 4, 5 and 6
    assert db.schema_version(s.conn) == 6
    row = s.game("g1")
    assert row is not None and row.seed == 3 and row.sides == ["Blue", "Red"]
    assert row.hotseat is False and row.updated == 1000.0 and row.status == ""
    assert [dict(r)["player"] for r in s.seats("g1")] == [""]
    assert json.loads(s.actions("g1")[0]["action"]) == {"type": "x"}
    assert s.standing_orders("g1", "Blue") == []
    s.set_standing_orders("g1", "Blue", [{"choose": {"type": "pass"}}])
    assert s.standing_orders("g1", "Blue") == [{"choose": {"type": "pass"}}]
    assert [r["side"] for r in s.seats_by_token_hash("hash-b")] == ["Blue"]
    s.close()


def test_a_newer_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    c = sqlite3.connect(path)
    c.execute("PRAGMA user_version = 99")
    c.close()
    with pytest.raises(db.DatabaseError, match="newer than this grognard"):
        db.Store(path)
    c = sqlite3.connect(path)
    assert c.execute("PRAGMA user_version").fetchone()[0] == 99
    c.close()


def test_a_failing_migration_is_rolled_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x INTEGER)")
        raise RuntimeError("disk on fire")

    last = db.SCHEMA_VERSION
    monkeypatch.setattr(db, "MIGRATIONS", [*db.MIGRATIONS, (last + 1, broken)])
    monkeypatch.setattr(db, "SCHEMA_VERSION", last + 1)
    c = db.connect(tmp_path / "b.sqlite")
    with pytest.raises(RuntimeError, match="disk on fire"):
        db.migrate(c)
    assert db.schema_version(c) == last
    assert (
        c.execute("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'").fetchone()[0] == 0
    )
    c.close()


def test_action_numbers_are_unique_and_undo_removes_only_the_last(tmp_path: Path) -> None:
    s = db.Store(tmp_path / "c.sqlite")
    row = db.GameRow(
        "g", "sc", "t", "tiny", "src", "f", "h", "d", {}, {}, 1, ["A", "B"], 1.0, False, 1.0, ""
    )
    s.create_game(row, {"A": "ha", "B": "hb"})
    s.append_action("g", 1, "A", {"type": "a"}, "h1", "s")
    s.append_action("g", 2, "B", {"type": "b"}, "h2", "s")
    with pytest.raises(db.Duplicate):
        s.append_action("g", 2, "B", {"type": "again"}, "h2", "s")
    with pytest.raises(db.DatabaseError, match="not the last"):
        s.remove_last_action("g", 1, "s")
    s.remove_last_action("g", 2, "s")
    assert [r["n"] for r in s.actions("g")] == [1]
    s.close()
