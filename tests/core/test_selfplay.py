"""The self-play harness: its leak check and its worker processes."""

from __future__ import annotations

import json
import random
from pathlib import Path

from grognard.core.game import Game
from grognard.scenario import load_scenario
from grognard.selfplay import LeakCheck, random_choice, selfplay


def full_text_leaks(g: Game) -> list[str]:
    """The plain definition: a hidden token anywhere in the JSON text of the view."""
    out = []
    for side in g.state.sides:
        text = json.dumps(g.view(side), ensure_ascii=False)
        for t in sorted(g.ruleset.hidden_tokens(g, side)):
            if json.dumps(t, ensure_ascii=False) in text:
                out.append(f"view leak: {side} can see hidden {t!r}")
    return out


def test_incremental_leak_check_finds_what_a_full_search_finds(tiny_path: Path) -> None:
    g = Game.new(load_scenario(tiny_path), 5)
    rng = random.Random(3)
    check = LeakCheck()
    planted = False
    for k in range(120):
        if g.is_over():
            break
        side = rng.choice(g.acting_sides())
        g.apply(random_choice(g, side, g.legal_actions(side), rng))
        if k % 9 == 4 and g.can_undo():
            g.undo()
            check.reset()
        if not planted and g.ruleset.hidden_tokens(g, "Blue"):
            # a rule bug naming a hidden piece in a public log line must be caught, and keep being caught
            hidden = sorted(g.ruleset.hidden_tokens(g, "Blue"))
            assert hidden
            g.emit("note", "leak", rule="T 5", piece=hidden[0])
            planted = True
            assert check.check(g) == full_text_leaks(g) != []
        assert check.check(g) == full_text_leaks(g)
    assert planted


def test_selfplay_report_does_not_depend_on_worker_processes(tiny_path: Path) -> None:
    sc = load_scenario(tiny_path)
    one = selfplay(sc, games=4, seed=9, max_steps=200, jobs=1).to_json()
    two = selfplay(sc, games=4, seed=9, max_steps=200, jobs=2).to_json()
    one.pop("seconds")
    two.pop("seconds")
    assert one == two and one["games"] == 4
