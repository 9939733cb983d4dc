"""Every golden game replays to the recorded summary after every action (see golden.py)."""

from __future__ import annotations

import pytest

from grognard.core import serial
from grognard.core.game import Game
from grognard.scenario import find
from tests.golden import golden

GAMES = [(s, k) for s in golden.SCENARIOS for k in golden.SEEDS]


@pytest.mark.parametrize(("scenario", "seed"), GAMES, ids=[f"{s}-{k}" for s, k in GAMES])
def test_golden_game_replays_identically(scenario: str, seed: int) -> None:
    path = golden.path_of(scenario, seed)
    assert path.exists(), f"golden game missing: {path} (python -m tests.golden record)"
    problem = golden.check(golden.read(path))
    assert problem is None, f"{scenario} seed {seed}: {problem}"


def test_golden_delta_and_patch_round_trip() -> None:
    """The stored differences rebuild each summary exactly (pieces, control, log)."""
    a = {
        "pieces": {
            "x": [["hex", 1], "front", [], {}, "A"],
            "y": [["hex", 2], "front", [], {}, "B"],
        },
        "control": {"1": "A", "2": "B"},
        "turn": {"index": 1},
        "path": ["game", "turn"],
        "result": None,
        "log": ["one"],
    }
    b = {
        "pieces": {"x": [["hex", 3], "cadre", ["disrupted"], {"hits": 1}, "A"]},
        "control": {"1": "A", "3": "A"},
        "turn": {"index": 2},
        "path": ["game"],
        "result": {"winner": "A"},
        "log": ["one", "two"],
    }
    assert golden.patch(a, golden.delta(a, b)) == b
    c = dict(b, log=["rewritten"])
    assert golden.patch(b, golden.delta(b, c)) == c


def test_incremental_summaries_equal_full_ones_and_catch_unreported_changes() -> None:
    """The replay's summaries (:class:`golden.Summaries`) equal :func:`golden.summary` after
    every action of a game, and a change the state was never told of shows by the next full
    summary at the latest."""
    data = golden.read(golden.path_of("gw-tutorial", 1))
    g = Game.new(find("gw-tutorial"), 1, data.get("options") or {})
    summaries = golden.Summaries()
    assert summaries.of(g) == golden.summary(g)
    for action in data["actions"][:60]:
        g.apply(serial.from_jsonable(action))
        assert summaries.of(g) == golden.summary(g)
    p = next(p for p in g.state.pieces.values() if p.loc.kind == "hex")
    dict.__setitem__(p.attrs, "unreported", 1)  # bypasses the state's change tracking
    seen = [("unreported" in summaries.of(g)["pieces"][p.id][3]) for _ in range(golden.FULL_EVERY)]
    assert any(seen)
