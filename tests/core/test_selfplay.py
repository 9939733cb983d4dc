"""The self-play harness: its leak check and its worker processes."""

from __future__ import annotations

import json
import random
from pathlib import Path

from grognard.core.game import Game
from grognard.scenario import load_scenario
from grognard.selfplay import LeakCheck, random_choice, selfplay


def full_text_leaks(g: Game) -> list[str]:
    """The plain definition for whole strings: a hidden token quoted anywhere in the view's JSON."""
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
            # a rule bug naming a hidden piece in a public log line must be caught, and keep being
            # caught
            hidden = sorted(g.ruleset.hidden_tokens(g, "Blue"))
            assert hidden
            g.emit("note", "leak", rule="T 5", piece=hidden[0])
            planted = True
            assert check.check(g) == full_text_leaks(g) != []
        if planted and k % 11 == 0 and g.ruleset.hidden_tokens(g, "Blue"):
            # a hidden id inside a string of the view outside the log (not inside a longer word)
            hidden = sorted(g.ruleset.hidden_tokens(g, "Blue"))
            g.state.set_marker(
                "note", "0101", f"{hidden[-1]} was seen here; {hidden[0]}x is not a piece"
            )
            found = check.check(g)
            leak = f"view leak: Blue can see hidden {hidden[-1]!r}"
            assert leak in found and sorted(set(found) - {leak}) == sorted(
                set(full_text_leaks(g)) - {leak}
            )
            g.state.set_marker("note", "0101", None)
            continue
        assert check.check(g) == full_text_leaks(g)
    assert planted


def test_selfplay_report_does_not_depend_on_worker_processes(tiny_path: Path) -> None:
    sc = load_scenario(tiny_path)
    one = selfplay(sc, games=4, seed=9, max_steps=200, jobs=1).to_json()
    two = selfplay(sc, games=4, seed=9, max_steps=200, jobs=2).to_json()
    one.pop("seconds")
    two.pop("seconds")
    assert one == two and one["games"] == 4


def test_leak_check_reads_words_not_parts_of_words() -> None:
    from grognard.selfplay import _Corpus

    c = _Corpus(
        {"labels": ["DE-1-III moves to 0402", {"text": "1er corps (Foch) attacks"}], 7: "x"}
    )
    assert c.has("DE-1-III") and not c.has("DE-1-II") and not c.has("E-1-III")
    assert c.has("1er corps (Foch)") and not c.has("er corps")
    assert c.has("0402") and c.has("7") and not c.has("040")


def test_selfplay_run_split_in_parts_adds_up_to_the_whole(tiny_path: Path) -> None:
    sc = load_scenario(tiny_path)
    whole = selfplay(sc, games=5, seed=4, max_steps=150).to_json()
    first = selfplay(sc, games=2, seed=4, max_steps=150).to_json()
    seen: list[int] = []
    rest = selfplay(
        sc, games=5, seed=4, max_steps=150, start=3, jobs=2, progress=lambda k, _p: seen.append(k)
    ).to_json()
    assert seen == [3, 4, 5] and rest["games"] == 3
    for key in (
        "games",
        "finished",
        "actions",
        "undos",
        "invariant_violations",
        "replay_mismatches",
        "view_leaks",
    ):
        assert first[key] + rest[key] == whole[key], key
    assert first["problems"] + rest["problems"] == whole["problems"]
