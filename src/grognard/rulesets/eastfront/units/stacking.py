"""Stacking (EF 5.0, our design): at most 4 stacking points of one side's ground units in a
hex. Non-combat units count their printed points (usually 0); naval and air units count none
(NM 25.2), nor do units aboard a naval unit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.eastfront.units.kinds import stacking_points

if TYPE_CHECKING:
    from grognard.core.game import Game

LIMIT = 4


def points_in(g: Game, i: int, side: str, leaving: tuple[str, ...] = ()) -> int:
    return sum(
        stacking_points(g, q) for q in g.state.at_hex(i) if q.side == side and q.id not in leaving
    )


@implements("EF 5.0")
def fits(g: Game, p: Piece, i: int) -> bool:
    """EF 5.0: may ``p`` end in hex ``i`` without overstacking?"""
    return points_in(g, i, p.side, (p.id,)) + stacking_points(g, p) <= LIMIT
