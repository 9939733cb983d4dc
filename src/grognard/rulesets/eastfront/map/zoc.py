"""Zones of control (EF 6.0, our design; NM 30.23a).

A combat unit with an attack strength above 0 projects a zone of control into the land hexes
adjacent to its own. Naval units, flotillas and non-combat units project none, and no zone of
control reaches an all-sea hex: an enemy unit on a coastal hex therefore never projects one
through the all-sea hexside into the hex of an amphibious force (NM 30.23a).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.eastfront.map.geography import is_land
from grognard.rulesets.eastfront.units.kinds import attack, is_combat

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("EF 6.0", "NM 30.23")
def zoc_hexes(g: Game, side: str) -> frozenset[int]:
    """EF 6.0: the land hexes in the zone of control of ``side``'s combat units (kept while no
    piece moves).

    Rules: EF 6.0, NM 30.23.
    """

    def compute() -> frozenset[int]:
        out: set[int] = set()
        for p in g.state.of_side(side):
            if p.loc.kind != "hex" or not is_combat(g, p) or attack(p) <= 0:
                continue
            i = int(p.loc.ref)
            if not is_land(g, i):
                continue
            out.update(j for j in g.board.neighbors(i) if is_land(g, j))
        return frozenset(out)

    return g.cache.tracked(g.state, ("ef:zoc", side), [("side", side), ("locations",)], compute)
