"""The terminal, played for real through a pseudo-terminal: Over There (the Ourcq tutorial).

A player asks for help, a result code and a chart, ends the first phase (the map is drawn again
for the movement phase, with its rivers), opens the move menu, picks a division and types a hex
three MPs away (previewed with its cost and reach, then committed), enters a typed move without
its side, has an illegal move refused with its rule id before any "commit?", and makes an
attack with the odds and the distribution of results shown before the die is rolled.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .pty_driver import Terminal

EN = "Entente"
PROMPT = f"{EN}> "


def entry(menu_text: str, start: str) -> str:
    """The number of the last menu entry printed whose label starts with ``start``."""
    found = None
    for line in menu_text.splitlines():
        m = re.match(r"\s*(\d+)\s{2}(.*)$", line)
        if m and m.group(2).startswith(start):
            found = m.group(1)
    assert found is not None, f"no entry {start!r} in:\n{menu_text[-3000:]}"
    return found


@pytest.fixture
def term(tmp_path: Path):  # type: ignore[no-untyped-def]
    t = Terminal(["play", "gw-tutorial", "--seed", "1", "--save", str(tmp_path / "gw.json")])
    yield t
    t.kill()


def test_terminal_greatwar_multi_hex_move_typed_actions_and_an_attack(
    term: Terminal, tmp_path: Path
) -> None:
    first = term.answer(PROMPT, "h")
    assert "hexsides:" in first and "~ river" in first  # the Ourcq on the first map
    helptext = term.answer(PROMPT, "explain DR")
    assert "Commands (typed at the prompt)" in helptext and "``" not in helptext
    assert "j {" in helptext and "explain CODE" in helptext and "chart NAME" in helptext
    explained = term.answer(PROMPT, "chart mobile-crt")
    assert "DR: Defender retreats" in explained and "(OT 9C1" in explained
    chart = term.expect(PROMPT)
    assert "Mobile Ground Combat Results Table" in chart and "PROVISIONAL" in chart
    assert "AE: Attacker eliminated" in chart
    term.send(entry(chart, "End the phase"))

    # a new phase: the map is drawn again before the menu
    menu = term.expect(PROMPT)
    assert "Ground movement (Entente)" in menu and "hexsides:" in menu
    term.send(entry(menu, "moves ("))
    pieces = term.expect(PROMPT)
    term.send(entry(pieces, "fr-1cd"))
    reach = term.expect(PROMPT)
    assert "reachable (" in reach and "0604 2" in reach and "type a hex id" in reach
    term.send("0604")  # two hexes away: not one of the listed neighbours
    preview = term.expect("commit? [Y/n] ")
    assert "fr-1cd" in preview and "MP left" in preview
    term.send("y")
    moved = term.expect(PROMPT)
    assert "fr-1cd moves 0403 -> 0504 -> 0604 (OT 6)" in moved

    # an illegal typed action is refused with its rule id, and nothing is asked
    term.send(json.dumps({"type": "move", "piece": "fr-14d", "to": "1005"}).join(["j ", ""]))
    refused = term.expect(PROMPT)
    assert "illegal:" in refused and re.search(r"\((OT [^)]+|core:[^)]+)\)", refused)
    assert "commit?" not in refused
    # the printed hint works: a typed move without its side
    term.send('j {"type": "move", "piece": "fr-14d", "to": "0605"}')
    term.expect("commit? [Y/n] ")
    term.send("")
    moved = term.expect(PROMPT)
    assert "fr-14d moves 0505 -> 0605" in moved

    term.send(entry(moved, "End the phase"))
    seg = term.expect(PROMPT)
    assert "Bombardment segment" in seg
    term.send(entry(seg, "End the phase"))
    seg = term.expect(PROMPT)
    assert "Combat segment" in seg
    term.send('j {"type": "attack", "target": "0705", "attackers": ["fr-1cd", "fr-14d"]}')
    odds = term.expect("commit? [Y/n] ")
    assert "Attack on 0705" in odds and "distribution of results:" in odds and "1:3" in odds
    assert "2¾" in odds
    term.send("y")
    fought = term.expect(PROMPT)
    assert "combat on 0705 at 1:3: d6 rolled" in fought
    line = next(ln for ln in fought.splitlines() if "combat on 0705 at 1:3" in ln)
    assert line.count("(OT 9A)") == 1  # the rule id once
    term.send("q")
    assert term.close() == 0
    assert (tmp_path / "gw.json").exists()
