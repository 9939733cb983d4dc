"""The ``serve`` verb's arguments."""

from __future__ import annotations

import argparse

from grognard.server.cli import add_parser, run


def test_serve_arguments() -> None:
    p = argparse.ArgumentParser(prog="grognard")
    sub = p.add_subparsers(dest="verb")
    add_parser(sub)
    a = p.parse_args(["serve"])
    assert (a.host, a.port, a.db, a.notify_cmd, a.fn) == (
        "127.0.0.1",
        8418,
        "grognard.sqlite",
        None,
        run,
    )
    a = p.parse_args(
        [
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            "9000",
            "--db",
            "x.sqlite",
            "--notify-cmd",
            "notify-send grognard",
            "--scenarios",
            "a",
            "--scenarios",
            "b",
        ]
    )
    assert (a.host, a.port, a.db, a.notify_cmd, a.scenarios) == (
        "0.0.0.0",
        9000,
        "x.sqlite",
        "notify-send grognard",
        ["a", "b"],
    )


def test_serve_refuses_a_newer_database(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import sqlite3

    db = tmp_path / "future.sqlite"
    c = sqlite3.connect(db)
    c.execute("PRAGMA user_version = 42")
    c.close()
    p = argparse.ArgumentParser(prog="grognard")
    add_parser(p.add_subparsers(dest="verb"))
    assert run(p.parse_args(["serve", "--db", str(db)])) == 1
    assert "newer than this grognard" in capsys.readouterr().err


def test_serve_refuses_postgresql_without_a_key_file_and_workers_in_memory(capsys) -> None:  # type: ignore[no-untyped-def]
    p = argparse.ArgumentParser(prog="grognard")
    add_parser(p.add_subparsers(dest="verb"))
    for argv in (
        ["serve", "--db", "postgresql://nobody@/nowhere"],
        ["serve", "--db", "postgresql://nobody@/nowhere", "--workers", "2"],
    ):
        assert run(p.parse_args(argv)) == 1
        assert "needs --key-file" in capsys.readouterr().err
    assert run(p.parse_args(["serve", "--db", ":memory:", "--workers", "2"])) == 1
    assert "not :memory:" in capsys.readouterr().err


def test_serve_names_an_unreachable_postgresql_without_its_password(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    p = argparse.ArgumentParser(prog="grognard")
    add_parser(p.add_subparsers(dest="verb"))
    url = f"postgresql://ann:secret@/nowhere?host={tmp_path}&connect_timeout=2"
    args = p.parse_args(["serve", "--db", url, "--key-file", str(tmp_path / "k")])
    assert run(args) == 1
    err = capsys.readouterr().err
    assert "grognard serve: postgresql://ann@" in err and "secret" not in err
