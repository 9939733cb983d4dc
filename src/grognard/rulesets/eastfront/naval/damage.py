"""Damage Points, sinking and the Cadre Box (NM 27.33, NM 32.1).

Damage goes to the naval unit hit, never to its passengers or to another naval unit. A naval
unit is sunk when its Damage Points exceed its Protection Rating: it goes to the Eliminated
Box and never comes back, except a transport, which goes to the Cadre Box with 3 Damage Points
(NM 27.44 brings it back). The passengers of a sunk unit are eliminated. A flotilla is sunk by
its third Damage Point (NM 32.1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.rulesets.eastfront.model import CADRE, NavalAttrs
from grognard.rulesets.eastfront.naval.units import cargo, is_transport, protection
from grognard.rulesets.eastfront.units.kinds import is_flotilla
from grognard.rulesets.eastfront.units.losses import eliminate

if TYPE_CHECKING:
    from grognard.core.game import Game

FLOTILLA_SUNK = 3  # NM 32.1
CADRE_DAMAGE = 3  # NM 27.33


def cadre_box(g: Game) -> Loc:
    return Loc.box(next(b.name for b in g.board.boxes.values() if b.kind == CADRE))


@implements("NM 27.33", "NM 32.1")
def add_damage(g: Game, p: Piece, points: int, rule: str) -> bool:
    """NM 27.33: ``points`` Damage Points on naval unit (or flotilla) ``p``; sink it when they
    pass its protection (a flotilla at 3, NM 32.1). Returns True if it is still afloat."""
    if points <= 0:
        return True
    rec = NavalAttrs(p.attrs)
    rec.damage = rec.damage + points
    g.emit(
        "damage",
        f"{p.name or p.id} takes {points} Damage Point{'s' if points > 1 else ''}"
        f" ({rec.damage} in all)",
        rule=rule,
    )
    if is_flotilla(g, p):
        if rec.damage >= FLOTILLA_SUNK:
            eliminate(g, p, "NM 32.1", "sunk")
            return False
        return True
    if rec.damage > protection(p):
        sink(g, p)
        return False
    return True


@implements("NM 27.33")
def sink(g: Game, p: Piece) -> None:
    """NM 27.33: a sunk naval unit goes to the Eliminated Box with its passengers; a transport
    goes to the Cadre Box with 3 Damage Points, its passengers to the Eliminated Box."""
    for q in cargo(g, p):
        eliminate(g, q, "NM 27.33", "lost with its sunk carrier")
    if is_transport(p):
        NavalAttrs(p.attrs).damage = CADRE_DAMAGE
        NavalAttrs(p.attrs).supported = False
        if "sailed" in p.faces:
            p.face = "sailed"
        g.state.move(p.id, cadre_box(g))
        g.emit("sunk", f"{p.name or p.id} is sunk and goes to the Cadre Box", rule="NM 27.33")
        return
    eliminate(g, p, "NM 27.33", "sunk")
