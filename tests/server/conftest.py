"""Fixtures for the server tests: an app on a fresh database and a helper to start games."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import tests.server.uirules
import tests.tinyrules  # noqa: F401  (registers tiny)

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.fixture
def app_factory(tmp_path: Path) -> Iterator[Any]:
    from grognard.server.app import create_app

    made = []

    def make(db: Path | None = None, **kw: Any) -> Any:
        app = create_app(
            db or tmp_path / "games.sqlite", scenario_dirs=[str(d) for d in SCENARIO_DIRS], **kw
        )
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
