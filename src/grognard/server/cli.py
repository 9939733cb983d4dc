"""The ``grognard serve`` verb: ``add_parser(subparsers)`` registers it, ``run(args)`` runs it."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``serve`` to the ``grognard`` command's subparsers."""
    help_text = "serve games to web browsers (lobby, hot-seat and remote play)"
    s = subparsers.add_parser("serve", help=help_text, description=help_text)
    configure(s)
    s.set_defaults(fn=run)
    return s


def configure(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (0.0.0.0: every network interface)",
    )
    s.add_argument("--port", type=int, default=8418, help="TCP port (default 8418)")
    s.add_argument(
        "--db",
        default="grognard.sqlite",
        help=(
            "the database: an SQLite file (created if missing) or a PostgreSQL URL"
            " (postgresql://USER@HOST/DB; needs the psycopg package and --key-file)"
        ),
    )
    s.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes sharing the port and the database (default 1)",
    )
    s.add_argument(
        "--notify-cmd",
        help="command run as 'CMD GAME_ID SIDE' (no shell) whenever it becomes a side's move",
    )
    s.add_argument(
        "--scenarios",
        action="append",
        default=[],
        metavar="DIR",
        help="extra folder of scenario files to offer (repeatable)",
    )
    s.add_argument(
        "--cache",
        type=int,
        default=32,
        help="games kept in memory by each process (others are loaded from their snapshot)",
    )
    s.add_argument(
        "--allow-data-change",
        action="store_true",
        help="load games even if the rule data changed since they were started",
    )
    s.add_argument(
        "--key-file",
        metavar="PATH",
        help=(
            "file holding the key that signs exported saves (default: DB.key beside the"
            " database; created with a random key if missing)"
        ),
    )
    s.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )


def ws_impl() -> str:
    """The WebSocket implementation for uvicorn: the sans-I/O one when this uvicorn has it."""
    from uvicorn.config import WS_PROTOCOLS

    return "websockets-sansio" if "websockets-sansio" in WS_PROTOCOLS else "auto"


def run(args: argparse.Namespace) -> int:
    """Start the server and block until it is stopped."""
    import uvicorn

    from grognard.server.app import CONFIG_ENV, create_app
    from grognard.server.db import DatabaseError, Store, is_postgresql
    from grognard.server.keys import KeyFileError, default_key_file, load_or_create_key

    settings: dict[str, Any] = {
        "db_path": args.db,
        "scenario_dirs": list(args.scenarios or []),
        "notify_cmd": args.notify_cmd,
        "cache_size": args.cache,
        "allow_data_change": args.allow_data_change,
        "key_file": args.key_file,
    }
    workers = max(1, int(args.workers))
    try:
        if workers == 1:
            app = create_app(**settings)
        else:
            if args.db == ":memory:":
                raise DatabaseError("--workers needs a database file or PostgreSQL, not :memory:")
            if args.key_file is None and is_postgresql(args.db):
                raise KeyFileError("a PostgreSQL database needs --key-file (the key signing saves)")
            # create the key and bring the schema up to date once, before the workers start
            load_or_create_key(args.key_file or default_key_file(args.db))
            Store(args.db).close()
    except (DatabaseError, KeyFileError) as e:
        print(f"grognard serve: {e}", file=sys.stderr)
        return 1
    shown = "localhost" if args.host in ("127.0.0.1", "::1") else args.host
    where = "PostgreSQL" if is_postgresql(args.db) else f"database {args.db}"
    extra = f", {workers} workers" if workers > 1 else ""
    print(f"grognard server on http://{shown}:{args.port}/  ({where}{extra})", flush=True)
    if workers == 1:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, ws=ws_impl())
        return 0
    os.environ[CONFIG_ENV] = json.dumps(settings)
    uvicorn.run(
        "grognard.server.app:from_environment",
        factory=True,
        workers=workers,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws=ws_impl(),
    )
    return 0
