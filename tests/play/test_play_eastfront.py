"""The terminal, played for real through a pseudo-terminal: the East Front base (Sevastopol).

The Axis ends its first phases from the menus, opens the moves (grouped by unit), picks Ziegler's
group and types a hex several hexes away (the declared label and the unit are shown before the
commit), then declares an attack on 1526 from the attack menu, adds the three divisions one by
one and resolves it: the roll and the result are logged with their rule ids. The result codes
and the CRT are asked for on the way.
"""

from __future__ import annotations

from pathlib import Path

from grognard.core.game import Game
from grognard.scenario import find

from .pty_driver import Terminal
from .test_play_greatwar import entry

AX = "Axis"
SO = "Soviet"


def far_hex(piece: str) -> tuple[str, str]:
    """Where ``piece`` stands in the Axis movement phase, and a listed destination 3+ hexes off."""
    g = Game.new(find("sevastopol-1941"), seed=1)
    for _ in range(3):
        g.apply({"type": "end-phase", "side": AX})
    _kind, ref = g.state.where(piece)
    here = int(ref)
    dests = [a["to"] for a in g.legal_actions(AX) if a["type"] == "move" and a["piece"] == piece]
    far = next(d for d in dests if g.board.distance(here, g.board.idx(d)) >= 3)
    return g.board.label(here), far


def test_terminal_eastfront_long_move_and_an_attack(tmp_path: Path) -> None:
    start, far = far_hex("ax-ziegler")
    term = Terminal(["play", "sevastopol-1941", "--seed", "1", "--save", str(tmp_path / "s.json")])
    try:
        menu = term.answer(f"{AX}> ", "explain D1R")
        assert "End the phase" in menu
        said = term.answer(f"{AX}> ", "chart crt")
        assert "D1R: The defenders lose one step and retreat one hex. (EF 12.0)" in said
        chart = term.expect(f"{AX}> ")
        assert "Combat Results Table (crt)" in chart and "PROVISIONAL" in chart
        term.send(entry(chart, "End the phase"))
        for _ in range(2):
            menu = term.expect(f"{AX}> ")
            term.send(entry(menu, "End the phase"))
        menu = term.expect(f"{AX}> ")
        assert "Axis Movement Phase" in menu
        term.send(entry(menu, "moves ("))
        units = term.expect(f"{AX}> ")
        term.send(entry(units, "ax-ziegler"))
        options = term.expect(f"{AX}> ")
        assert "marked on the map" in options
        term.send(far)
        shown = term.expect("commit? [Y/n] ")
        assert f"to {far}" in shown and f"in {start}" in shown
        term.send("y")
        moved = term.expect(f"{AX}> ")
        assert far in moved
        term.send(entry(moved, "End the phase"))
        menu = term.expect(f"{SO}> ")
        term.send(entry(menu, "End the phase"))
        menu = term.expect(f"{AX}> ")
        assert "Axis Combat Phase" in menu
        term.send(entry(menu, "attacks ("))
        targets = term.expect(f"{AX}> ")
        term.send(entry(targets, "Declare an attack on 1526"))
        for name in ("132nd", "22nd", "50th"):
            menu = term.expect(f"{AX}> ")
            term.send(entry(menu, f"Attack with {name} Infantry Division"))
        menu = term.expect(f"{AX}> ")
        term.send(entry(menu, "Resolve the attack"))
        support = term.expect(f"{SO}> ")  # the defender may add support first
        assert "Axis attacks 1526 with 3 unit(s) and 0 in support (order: none) (EF 12.0)" in (
            support
        )
        term.send(entry(support, "Pass"))
        odds = term.expect("commit? [Y/n] ")  # the chances of each result, before the die
        assert "chances:" in odds and "D1R" in odds and "%" in odds
        term.send("y")
        fought = term.expect(f"{AX}> ")
        term.send("q")
        assert term.close() == 0
    finally:
        term.kill()
    roll = next(ln for ln in fought.splitlines() if "attack on 1526 at" in ln and "rolled" in ln)
    assert roll.count("(EF 12.0)") == 1
