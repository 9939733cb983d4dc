"""Saves, records and a server database written by an older grognard still load.

The files under ``tests/fixtures/v1/`` were written by the schema-1 engine (see their
``make.py``); they are never regenerated.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from grognard.core.game import Game
from grognard.server.db import Store
from grognard.server.service import GameService

V1 = Path(__file__).resolve().parent.parent / "fixtures" / "v1"
SCENARIOS = ("gw-tutorial", "marne-1914", "lgg-tutorial", "lgg-west-1914")


@pytest.mark.parametrize("kind", ["save", "record"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_schema_1_files_load_and_play_on(kind: str, scenario: str) -> None:
    data = json.loads((V1 / f"{kind}-{scenario}.json").read_text())
    assert data["schema"] == 1
    g = Game.load(data)
    assert len(g.actions) == len(data["actions"])
    side = g.acting_sides()[0]
    legal = g.legal_actions(side)
    assert legal
    g.apply(legal[0])


def test_schema_1_server_database_loads_and_plays_on(tmp_path: Path) -> None:
    db = tmp_path / "server.sqlite"
    shutil.copy(V1 / "server.sqlite", db)
    tokens = json.loads((V1 / "server-tokens.json").read_text())
    svc = GameService(Store(db))
    for game_id, toks in tokens.items():
        g = svc.entry(game_id).game
        assert len(g.actions) >= 1
        side = g.acting_sides()[0]
        assert svc.authenticate(game_id, toks[side]) == side
        before = len(g.actions)
        svc.act(game_id, side, g.legal_actions(side)[0])
        assert len(svc.entry(game_id).game.actions) > before
