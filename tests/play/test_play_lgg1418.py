"""The terminal, played for real through a pseudo-terminal: La Grande Guerre 14-18, Western Front.

The Central Powers activate the 2nd Army from the first menu; the map is drawn again for the
movement step, with its rivers; the player opens the move menu (grouped by piece: the stack
first, then each corps), picks the 2nd Army's stack and types Liège, two hexes away: the rules
move units one hex at a time, so the terminal walks there step by step, hands the interception
question to the Entente in between, and goes on. Ending the movement opens the battle at Liège
(the attack), answered by both sides with typed actions without their side; the session ends on
exactly the position of the same game played through the rule code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from grognard.core.game import Game
from grognard.play import g_preview
from grognard.scenario import find

from .pty_driver import Terminal
from .test_play_greatwar import entry

CP = "Central Powers"
EN = "Entente"
SEED = 21
STACK = ["DE-2-G", "DE-2-HQ", "DE-2-VII", "DE-2-X"]
PREFER = ("end-reinforcement", "no-interception", "keep", "done", "decline", "pass")


def test_terminal_lgg1418_menus_by_piece_a_walked_move_and_a_battle(tmp_path: Path) -> None:
    save = tmp_path / "west.json"
    mirror = Game.new(find("lgg-west-1914"), seed=SEED)
    term = Terminal(["play", "lgg-west-1914", "--seed", str(SEED), "--save", str(save)])
    try:
        first = term.expect(f"{CP}> ")
        assert "hexsides:" in first and "≈ major river" in first
        term.send(entry(first, "activate army DE-2"))
        mirror.apply({"type": "activate", "side": CP, "army": "DE-2"})
        menu = term.expect(f"{CP}> ")
        assert "Central Powers movement" in menu and "map WEST" in menu  # drawn again
        term.send(entry(menu, "move ("))
        groups = term.expect(f"{CP}> ")
        assert "DE-2-G, DE-2-HQ, DE-2-VII, DE-2-X in 1804" in groups
        assert "DE-2-G Gardekorps in 1804" in groups  # each corps on its own too
        term.send(entry(groups, "DE-2-G, DE-2-HQ, DE-2-VII, DE-2-X in 1804"))
        options = term.expect(f"{CP}> ")
        assert "marked on the map" in options and "to 1705 (normal)" in options
        term.send("1605")  # Liège, two hexes away
        plan = term.expect("commit? [Y/n] ")
        assert "one hex at a time" in plan
        term.send("y")
        step = {"type": "move", "side": CP, "units": STACK, "mode": "normal"}
        mirror.apply({**step, "to": "1705"})
        asked = term.expect(f"{EN}> ")  # the Entente may intercept at 1705
        assert "move from 1804 to 1705 (normal, 1 MP) (LGG 11.1-B)" in asked
        term.send(entry(asked, "no interception"))
        mirror.apply({"type": "no-interception", "side": EN})
        mirror.apply({**step, "to": "1605"})
        walked = term.expect(f"{CP}> ")
        assert "move from 1705 to 1605 (normal, 1 MP)" in walked
        term.send(entry(walked, "end movement"))
        mirror.apply({"type": "end-movement", "side": CP})

        battle = ""
        for _ in range(200):
            if "Activation of DE-2" not in mirror.phase_path():
                break
            side = mirror.acting_sides()[0]
            battle += term.expect(f"{side}> ")
            legal = mirror.legal_actions(side)
            pick: dict[str, Any] = next(
                (a for t in PREFER for a in legal if a["type"] == t), legal[0]
            )
            typed = {k: v for k, v in pick.items() if k != "side"}
            term.send("j " + json.dumps(typed, ensure_ascii=False))
            if g_preview(mirror, pick) is not None:
                battle += term.expect("commit? [Y/n] ")
                term.send("y")
            mirror.apply(pick)
        else:
            raise AssertionError("the battle did not end")
        battle += term.expect("> ")
        term.send("q")
        assert term.close() == 0
    finally:
        term.kill()
    assert "Battle at 1605" in battle and "d12 rolled" in battle
    assert "illegal" not in battle
    played = Game.load(json.loads(save.read_text(encoding="utf-8")))
    assert played.state_hash() == mirror.state_hash()
