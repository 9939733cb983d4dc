"""Fixtures for the server tests: an app on a fresh database and a helper to start games.

Every test that takes an app runs twice: on an SQLite file and on PostgreSQL (a schema of its
own in the database that ``scripts/start-postgresql.sh`` starts; its URL is read from
``GROGNARD_TEST_POSTGRESQL`` or the file that script writes). Without a PostgreSQL server the
PostgreSQL runs are skipped, except under CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import tests.server.uirules
import tests.tinyrules  # noqa: F401  (registers tiny)

ROOT = Path(__file__).resolve().parents[2]
PG_URL_FILE = ROOT / ".grognard-postgresql-url"
SCENARIO_DIRS = [
    ROOT / "tests" / "tinyrules" / "scenarios",
    ROOT / "tests" / "server" / "scenarios",
]


@dataclass
class Started:
    """A game created through the API, with each side's token."""

    client: Any
    id: str
    tokens: dict[str, str]
    created: dict[str, Any]

    def h(self, side: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[side]}"}

    def state(self, side: str) -> dict[str, Any]:
        r = self.client.get(f"/api/games/{self.id}/state", headers=self.h(side))
        assert r.status_code == 200, r.text
        return r.json()

    def act(self, side: str, action: dict[str, Any]) -> Any:
        return self.client.post(
            f"/api/games/{self.id}/actions", headers=self.h(side), json={"action": action}
        )

    def ok(self, side: str, action: dict[str, Any]) -> dict[str, Any]:
        r = self.act(side, action)
        assert r.status_code == 200, r.text
        return r.json()


def postgresql_url() -> str | None:
    """The URL of the tests' PostgreSQL database, if one was started."""
    url = os.environ.get("GROGNARD_TEST_POSTGRESQL")
    if not url and PG_URL_FILE.is_file():
        url = PG_URL_FILE.read_text(encoding="utf-8").strip()
    return url or None


def _with_schema(url: str, schema: str) -> str:
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}"


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    """The database kind the test runs on."""
    if request.param == "postgresql" and postgresql_url() is None:
        if os.environ.get("CI"):
            pytest.fail("no PostgreSQL for the tests: run scripts/start-postgresql.sh first")
        pytest.skip("no PostgreSQL (run scripts/start-postgresql.sh)")
    return str(request.param)


@pytest.fixture
def new_db(backend: str, tmp_path: Path) -> Iterator[Callable[[str], str]]:
    """``new_db(name)``: a database of the test's kind, empty on the first call with ``name``
    (an SQLite file, or a PostgreSQL schema dropped after the test), the same on later calls."""
    made: dict[str, str] = {}

    def make(name: str) -> str:
        if name in made:
            return made[name]
        if backend == "sqlite":
            made[name] = str(tmp_path / f"{name}.sqlite")
        else:
            import psycopg

            url = postgresql_url()
            assert url is not None
            schema = f"t_{name}_{secrets.token_hex(4)}"
            with psycopg.connect(url, autocommit=True) as c:
                c.execute(f"CREATE SCHEMA {schema}")
            made[name] = _with_schema(url, schema)
        return made[name]

    yield make
    if backend == "postgresql" and made:
        import psycopg

        url = postgresql_url()
        assert url is not None
        with psycopg.connect(url, autocommit=True) as c:
            for db in made.values():
                schema = db.rsplit("%3D", 1)[1]
                c.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.fixture
def app_factory(new_db: Callable[[str], str], tmp_path: Path) -> Iterator[Any]:
    """``app_factory(db=None, **kw)``: an app on ``db`` (default: the test's database)."""
    from grognard.server.app import create_app
    from grognard.server.db import is_postgresql

    made = []

    def make(db: str | Path | None = None, **kw: Any) -> Any:
        db = db or new_db("games")
        if is_postgresql(db) and "key_file" not in kw:
            kw["key_file"] = tmp_path / (str(db).rsplit("%3D", 1)[-1] + ".key")
        app = create_app(db, scenario_dirs=[str(d) for d in SCENARIO_DIRS], **kw)
        made.append(app)
        return app

    yield make
    for app in made:
        app.state.service.store.close()


@pytest.fixture
def client(app_factory: Any) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    with TestClient(app_factory()) as c:
        yield c


@pytest.fixture
def start(client: Any) -> Any:
    def go(scenario: str = "tiny-duel", seed: int = 7, **extra: Any) -> Started:
        r = client.post("/api/games", json={"scenario": scenario, "seed": seed, **extra})
        assert r.status_code == 201, r.text
        body = r.json()
        return Started(
            client, body["game"], {s: v["token"] for s, v in body["sides"].items()}, body
        )

    return go


def commit_postures(g: Started, blue: str = "bold", red: str = "careful") -> None:
    g.ok("Blue", {"type": "commit", "key": "posture", "value": blue})
    g.ok("Red", {"type": "commit", "key": "posture", "value": red})
