"""Zones of Interdiction (EF 14.6, our design) and the Naval Movement Interdiction Box
(NM 31.1): the markers air missions leave behind.

A Zone of Interdiction is centred on the mission hex and covers it and its six neighbours; its
level is 1 or 2. It lasts until its side's next Air Interdiction Phase, as does the
Interdiction Level marker in the Naval Movement Interdiction Box.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.eastfront.model import ef

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("EF 14.6")
def interdiction_level(g: Game, i: int, by: str) -> int:
    """EF 14.6: the level of ``by``'s Zones of Interdiction covering hex ``i`` (0: none)."""
    best = 0
    for label, z in ef(g).zoi.items():
        if z.side != by:
            continue
        c = g.board.idx(label)
        if c == i or g.board.distance(c, i) <= 1:
            best = max(best, z.level)
    return best


@implements("NM 31.1")
def nmi_level(g: Game, against: str) -> int:
    """NM 31.1: the Interdiction Level marker in the Naval Movement Interdiction Box that
    affects ``against``'s naval movement (placed by the other side)."""
    rec = ef(g).nmi
    return rec.level if rec.level and rec.side and rec.side != against else 0
