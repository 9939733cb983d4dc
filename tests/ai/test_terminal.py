"""grognard play SCENARIO --ai SIDE[:LEVEL]: the computer in the terminal."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from grognard.ai.agents import GreedyAgent, PlannerAgent, RandomAgent
from grognard.ai.terminal import match_side, parse_ai_specs, play_against
from grognard.core.game import Game
from grognard.scenario import load_scenario

TINY = Path(__file__).resolve().parents[1] / "tinyrules" / "scenarios" / "duel.toml"
SIDES = ["Entente", "Central Powers"]


def test_sides_and_levels_are_parsed() -> None:
    ai = parse_ai_specs(["central:hard", "Entente:greedy"], SIDES)
    assert isinstance(ai["Central Powers"], PlannerAgent) and ai["Central Powers"].level == "hard"
    assert type(ai["Entente"]) is GreedyAgent
    ai = parse_ai_specs(["entente"], SIDES, default_level="easy")
    assert isinstance(ai["Entente"], PlannerAgent) and ai["Entente"].level == "easy"
    assert isinstance(parse_ai_specs(["Entente:random"], SIDES)["Entente"], RandomAgent)
    with pytest.raises(ValueError, match="no such side"):
        match_side("Prussia", SIDES)
    with pytest.raises(ValueError, match="unknown agent"):
        parse_ai_specs(["Entente:godlike"], SIDES)


def test_the_computer_plays_its_sides_in_the_terminal() -> None:
    g = Game.new(load_scenario(TINY), 5)
    out = io.StringIO()
    ai = parse_ai_specs(["Blue:greedy", "Red:easy"], ["Blue", "Red"])
    play_against(g, ai, stream=out, input_fn=lambda prompt: "q")
    assert g.is_over()
    text = out.getvalue()
    assert "Blue (computer):" in text and "Red (computer):" in text and "Game over" in text
    # every move is the computer's, and its record says so (with the agent that chose it)
    assert {(a["side"], a.get("agent")) for a in g.actions} == {
        ("Blue", "greedy"),
        ("Red", "planner:easy"),
    }


def test_a_person_against_the_computer() -> None:
    """Blue quits at its first decision; the computer had played Red's moves before it."""
    g = Game.new(load_scenario(TINY), 5)
    out = io.StringIO()
    play_against(
        g, parse_ai_specs(["Red:greedy"], ["Blue", "Red"]), stream=out, input_fn=lambda prompt: "q"
    )
    assert not g.is_over()


def test_play_command_refuses_an_unknown_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from grognard.cli import main

    assert main(["play", str(TINY), "--ai", "Green"]) == 1
    assert "no such side" in capsys.readouterr().err
