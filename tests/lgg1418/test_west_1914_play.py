"""Terminal play of the Western Front 1914 scenario: ``grognard play lgg-west-1914`` fed a
script on its standard input - one activation of the German 2nd Army in the pre-turn and its
battle at Liège (LGG 3-B, 16, 23-C), with the defender's prompts answered in turn (hot seat).

The script is built by playing the same seed through the rule code; the terminal session must
print the battle (every D12 roll, modifier and rule id) and end on exactly the same position.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from grognard.core.game import Game
from grognard.play import g_preview
from grognard.scenario import find

from .helpers import CP, EN

SEED = 21
PREFER = ("end-reinforcement", "no-interception", "keep", "done", "decline", "pass")


def _script(seed: int) -> tuple[list[str], Game]:
    """The lines to type, and the game they lead to (played through the rule code)."""
    g = Game.new(find("lgg-west-1914"), seed=seed)
    lines: list[str] = []

    def do(action: dict[str, Any]) -> None:
        lines.append("j " + json.dumps(action, ensure_ascii=False))
        if g_preview(g, action) is not None:
            lines.append("y")
        g.apply(action)

    # the first menu: activate the 2nd Army (entry 1) or end the pre-turn
    first = g.legal_actions(CP)
    assert first[0] == {"type": "activate", "side": CP, "army": "DE-2"}
    lines.append("1")
    g.apply(first[0])
    do(
        {
            "type": "move",
            "side": CP,
            "units": ["DE-2-G", "DE-2-HQ", "DE-2-VII", "DE-2-X"],
            "to": "1705",
            "mode": "normal",
        }
    )
    do({"type": "no-interception", "side": EN})
    do(
        {
            "type": "move",
            "side": CP,
            "units": ["DE-2-G", "DE-2-VII", "DE-2-X"],
            "to": "1605",
            "mode": "normal",
        }
    )
    do({"type": "end-movement", "side": CP})
    for _ in range(200):
        if "Activation of DE-2" not in g.phase_path():
            break
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        pick = next((a for t in PREFER for a in legal if a["type"] == t), legal[0])
        do(pick)
    else:
        raise AssertionError(f"the battle did not end: {g.phase_path()}")
    lines.append("q")
    return lines, g


@pytest.mark.rules("LGG 3-B", "LGG 16-A", "LGG 16.4", "LGG 16.5-A", "LGG 16.7-B", "LGG 23-C")
def test_lgg_16a_west_1914_terminal_play_one_activation_and_one_battle(tmp_path: Path) -> None:
    lines, expected = _script(SEED)
    kinds = [e["type"] for e in expected.state.log]
    assert (
        "battle" in kinds and "roll" in kinds and "battle-round" in kinds and "battle-end" in kinds
    )
    save = tmp_path / "west.json"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "grognard.cli",
            "play",
            "lgg-west-1914",
            "--seed",
            str(SEED),
            "--save",
            str(save),
        ],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=300,
        encoding="utf-8",
    )
    assert run.returncode == 0, run.stderr[-2000:]
    out = run.stdout
    # the hot seat hands the prompts to the right side in turn
    assert "Central Powers to act" in out and "Entente to act" in out
    assert "Activation of DE-2" in out
    # the battle, round by round: the roll with its rule id, the differential and its modifiers
    assert "Battle at 1605" in out
    assert "d12 rolled" in out and "(LGG 16.4)" in out
    assert "differential" in out and "(LGG 16.3-B)" in out and "fortress" in out
    assert "(LGG 16.5-A)" in out and "(LGG 16.7-A)" in out
    # the attack's preview was shown and committed
    assert "commit? [Y/n]" in out and "table: combat-movement" in out
    # the terminal session ended on the same position as the scripted game
    assert save.exists()
    played = Game.load(json.loads(save.read_text(encoding="utf-8")))
    assert played.state_hash() == expected.state_hash()
    assert [a["type"] for a in played.actions] == [a["type"] for a in expected.actions]


# =================================================================== a great battle, round by round
BATTLE_PREFER = (
    "end-reinforcement",
    "proceed",
    "keep",
    "continue",
    "pay-pr",
    "decline",
    "no-interception",
    "done",
)


def _great_battle_at_liege(seed: int) -> Game:
    """The 2nd Army's six corps attack Liège, which holds five Belgian divisions (test set-up)."""
    from .helpers import place_at

    g = Game.new(find("lgg-west-1914"), seed=seed)
    for pid in ("BE-1", "BE-2", "BE-5", "BE-6"):
        place_at(g, pid, "1605")
    g.apply({"type": "activate", "side": CP, "army": "DE-2"})
    g.apply(
        {
            "type": "move",
            "side": CP,
            "units": ["DE-2-GR", "DE-2-XR", "DE-VIIR"],
            "to": "1605",
            "mode": "normal",
        }
    )
    g.apply(
        {
            "type": "move",
            "side": CP,
            "units": ["DE-2-G", "DE-2-HQ", "DE-2-VII", "DE-2-X"],
            "to": "1705",
            "mode": "normal",
        }
    )
    while g.acting_sides() == [EN]:
        g.apply({"type": "no-interception", "side": EN})
    g.apply(
        {
            "type": "move",
            "side": CP,
            "units": ["DE-2-G", "DE-2-VII", "DE-2-X"],
            "to": "1605",
            "mode": "normal",
        }
    )
    g.apply({"type": "end-movement", "side": CP})
    return g


@pytest.mark.rules(
    "LGG 16.1-A",
    "LGG 16.1-B",
    "LGG 16.1-C",
    "LGG 16.2-A",
    "LGG 16.4",
    "LGG 16.5-B",
    "LGG 16.6-A",
    "LGG 16.7-A",
    "LGG 4-A",
)
def test_lgg_16_1a_west_1914_great_battle_round_by_round() -> None:
    g = _great_battle_at_liege(seed=5)
    start = len(g.state.log)
    split_checked = False
    for _ in range(400):
        if "Activation of DE-2" not in g.phase_path():
            break
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        step = g.phase_path()[-1]
        pick = next((a for t in BATTLE_PREFER for a in legal if a["type"] == t), legal[0])
        g.apply(pick)
        if "division into sub-battles" in step and side == CP and not split_checked:
            # the attacker's division is committed in secret: the defender sees no trace of it (4-A)
            split_checked = True
            assert not any(e["type"] == "split" for e in g.state.log[start:])
            en_view = json.dumps(g.view(EN), ensure_ascii=False)
            assert "division: A" not in en_view
    else:
        raise AssertionError(f"the battle did not end: {g.phase_path()}")
    assert split_checked
    events = g.state.log[start:]
    kinds = [e["type"] for e in events]
    assert any(
        e["type"] == "battle" and e["text"].startswith("Great battle at 1605") for e in events
    )
    splits = [e for e in events if e["type"] == "split"]
    assert len(splits) == 2 and all(e.get("rule") == "LGG 16.1-B" for e in splits)
    rounds = [e for e in events if e["type"] == "battle-round"]
    assert any("sub-battle A" in e["text"] for e in rounds) and any(
        "sub-battle B" in e["text"] for e in rounds
    )
    assert all("D12 modifier" in e["text"] and "differential" in e["text"] for e in rounds)
    rolls = [e for e in events if e["type"] == "roll"]
    assert rolls and all(str(e.get("rule", "")).startswith("LGG ") for e in rolls)
    assert "combativeness" in kinds
    assert any("round 2" in e["text"] for e in rounds)
    assert kinds.count("battle-end") == 1


def test_west_1914_menu_lines_for_battle_choices_are_readable() -> None:
    """Menu lines are the declared labels (lgg1418.actions), a secret battle choice written
    sub-battle by sub-battle."""
    g = Game.new(find("lgg-west-1914"), seed=1)
    d = g.ruleset.describe_action
    split = {"A": ["DE-2-G", "DE-2-GR"], "B": ["DE-2-X"]}
    assert (
        d(g, {"type": "commit", "side": CP, "battle": "B1", "kind": "split", "choice": split})
        == "Commit the secret choice split: A: DE-2-G, DE-2-GR | B: DE-2-X"
    )
    engage = {
        "A": {"corps": "DE-2-G", "art": None},
        "B": {"corps": "DE-2-X", "art": "DE-Belagerung"},
    }
    assert (
        d(g, {"type": "commit", "side": CP, "battle": "B1", "kind": "engage", "choice": engage})
        == "Commit the secret choice engage: A: corps DE-2-G | B: corps DE-2-X, art DE-Belagerung"
    )
    reserves = {"units": [], "tanks": []}
    assert (
        d(g, {"type": "commit", "side": EN, "battle": "B1", "kind": "reserves", "choice": reserves})
        == "Commit the secret choice reserves: none"
    )
    retreat = {"type": "retreat-stack", "side": EN, "battle": "B1", "from": "1603"}
    assert (
        d(g, {**retreat, "path": ["1603", "1503"]})
        == "Retreat the stack at 1603 along 1603 and 1503"
    )
    assert d(g, {"type": "activate", "side": CP, "army": "DE-2"}) == "activate army DE-2"
    move = {"type": "move", "side": CP, "units": ["DE-2-G"], "to": "1603", "mode": "admin"}
    assert d(g, move) == "move to 1603 (admin)"  # the menus show the moving group apart


# ====================================================================== the whole scenario
FAST = (
    "end-reinforcement",
    "end-movement",
    "end-turn",
    "no-retreat",
    "no-interception",
    "no-reaction",
    "decline",
    "proceed",
    "keep",
    "continue",
    "pay-pr",
    "done",
    "end-breakthrough",
    "end-siege",
    "no-overflow",
    "pass",
)


@pytest.mark.rules("LGG 3-C", "LGG 36.2-A", "LGG 36.2-B", "LGG 26")
def test_lgg_36_2a_west_1914_plays_to_the_end_and_the_doctrines_change_in_play() -> None:
    """Both sides end every phase as soon as the rules let them (Plan XVII still makes the French
    attack in August): the scenario runs from the pre-turn to November-December 1914, the
    36.2-A draws are made at the end of September, everybody is in transition in
    November-December (36.2-B), and the objectives decide the game."""
    from grognard.rulesets.lgg1418 import model as M
    from grognard.rulesets.lgg1418.units import doctrine

    g = Game.new(find("lgg-west-1914"), seed=3)
    seen: list[str] = []
    doctrines: dict[str, set[str]] = {}
    for _ in range(3000):
        if g.is_over():
            break
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        pick = next((a for t in FAST for a in legal if a["type"] == t), None)
        if pick is None:
            pick = next(
                (a for a in legal if a["type"] in ("activate", "first-mover", "commit", "place")),
                legal[0],
            )
        g.apply(pick)
        tid = M.current_turn(g).id
        if not seen or seen[-1] != tid:
            seen.append(tid)
        doctrines.setdefault(tid, set()).update(
            doctrine.doctrine(g, n, M.WEST) for n in ("DE", "FR", "GB", "BE")
        )
    assert g.is_over() and g.state.result and g.state.result.get("rule") == "scenario"
    assert set(g.state.result["scores"]) == {CP, EN}
    assert seen == ["1914-08P", "1914-08", "1914-09", "1914-10", "1914-11"]
    assert doctrines["1914-08"] == {"movement"} and doctrines["1914-09"] == {"movement"}
    assert doctrines["1914-11"] == {"transition"}
    draws = [
        e for e in g.state.log if e["type"] == "roll" and "October 1914 marker draw" in e["text"]
    ]
    assert len(draws) == 2 and all(e.get("rule") == "LGG 36.2-A" for e in draws)
    interphases = [e["data"]["name"] for e in g.state.log if e["type"] == "interphase"]
    assert interphases == ["autumn", "winter"]
