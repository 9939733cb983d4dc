"""The tutorial scenario: it validates, plays, and random self-play breaks no invariant."""

from __future__ import annotations

import subprocess
import sys

from grognard.core.game import Game
from grognard.rulesets.greatwar.movement import movement
from grognard.scenario import find
from grognard.selfplay import selfplay

from .helpers import skip_later_initial


def test_tutorial_validates_with_the_cli() -> None:
    sc = find("gw-tutorial")
    out = subprocess.run(
        [sys.executable, "-m", "grognard.cli", "validate", sc.source_name],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "ok (gw-tutorial, greatwar" in out.stdout


def test_tutorial_first_moves_and_reach() -> None:
    g = Game.new(find("gw-tutorial"), seed=4)
    skip_later_initial(g)  # supply depots could be activated first (OT 11C1)
    assert g.acting_sides() == ["Entente"]
    reach = movement.reachable(g, ["fr-1cd"])
    assert reach and all(0 < c <= 7 for c in reach.values())
    acts = g.legal_actions("Entente")
    assert {a["type"] for a in acts} >= {"move", "rail-move", "end-phase"}
    g.apply(next(a for a in acts if a["type"] == "move"))
    g.undo()


def test_tutorial_selfplay_three_games_without_violations() -> None:
    rep = selfplay(find("gw-tutorial"), games=3, seed=2024, max_steps=3000)
    assert rep.invariant_violations == 0, rep.problems
    assert rep.refused_legal_actions == 0, rep.problems
    assert rep.view_leaks == 0 and rep.replay_mismatches == 0, rep.problems
    assert rep.finished == 3


def test_tutorial_selfplay_with_advanced_and_optional_rules() -> None:
    from grognard.scenario import load_scenario_text

    sc = find("gw-tutorial")
    text = sc.source_text.replace(
        "tutorial = true",
        "tutorial = true\noptions = { overstacking = true, navigable-waterways = true,"
        " isolated-rail-sections = true, marginal-units = true }",
    )
    rep = selfplay(
        load_scenario_text(text, "tutorial-with-options"), games=2, seed=5, max_steps=3000
    )
    assert rep.invariant_violations == 0 and rep.refused_legal_actions == 0, rep.problems
    assert rep.replay_mismatches == 0 and rep.view_leaks == 0, rep.problems
