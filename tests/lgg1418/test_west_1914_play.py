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
    do({"type": "move", "side": CP, "units": ["DE-2-G", "DE-2-HQ", "DE-2-VII", "DE-2-X"], "to": "1705", "mode": "normal"})
    do({"type": "no-interception", "side": EN})
    do({"type": "move", "side": CP, "units": ["DE-2-G", "DE-2-VII", "DE-2-X"], "to": "1605", "mode": "normal"})
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
    assert "battle" in kinds and "roll" in kinds and "battle-round" in kinds and "battle-end" in kinds
    save = tmp_path / "west.json"
    run = subprocess.run(
        [sys.executable, "-m", "grognard.cli", "play", "lgg-west-1914", "--seed", str(SEED), "--save", str(save)],
        input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=300, encoding="utf-8",
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
