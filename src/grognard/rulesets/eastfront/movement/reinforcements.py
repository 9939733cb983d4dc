"""Reinforcements (EF 17.0, our design): scenario ``[[schedule]]`` entries of kind
``reinforcement`` bring their pieces, at the start of their side's player turn of the given
turn (or the first one after, if the hex is held by the enemy), to the hex or box they name.
Units arriving in a Holding Box may be carried by sea in that phase (NM 28.1b)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Loc
from grognard.rulesets.eastfront.model import turn_no

if TYPE_CHECKING:
    from grognard.core.game import Game


def entry_turn(g: Game, turn: int | str) -> int:
    if isinstance(turn, int):
        return turn
    for k, t in enumerate(g.scenario.data.turns, start=1):
        if t.label == turn:
            return k
    return 0


@implements("EF 17.0", "NM 28.1")
def arrive(g: Game, side: str) -> None:
    """EF 17.0: place ``side``'s reinforcements that are due.

    Rules: EF 17.0, NM 28.1.
    """
    for e in g.scenario.data.schedule:
        if e.kind != "reinforcement" or entry_turn(g, e.turn) > turn_no(g) or e.at is None:
            continue
        where = Loc.box(e.at) if e.at in g.board.boxes else Loc.hex(g.board.idx(e.at))
        for pid in e.pieces:
            p = g.state.pieces.get(pid)
            if p is None or p.side != side or p.loc.kind != "none":
                continue
            if where.kind == "hex" and any(q.side != side for q in g.state.at(where)):
                continue
            g.state.move(pid, where)
            g.emit("reinforcement", f"{p.name or p.id} arrives at {e.at}", rule="EF 17.0")
