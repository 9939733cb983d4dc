"""Every golden game replays to the recorded summary after every action (see golden.py)."""

from __future__ import annotations

import pytest

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
