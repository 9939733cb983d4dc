"""Step losses and elimination (EF 4.4).

A two-step unit has a ``full`` and a ``reduced`` face; its first loss turns it to ``reduced``,
its second eliminates it. A one-step unit is eliminated by one loss. When a stack must lose a
step the owner's strongest unit (attack plus defence, then its id) takes it: our base has no
loss choice, so none is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.rulesets.eastfront.model import ELIMINATED
from grognard.rulesets.eastfront.units.kinds import attack, defense

if TYPE_CHECKING:
    from grognard.core.game import Game


def eliminated_box(g: Game) -> Loc:
    return Loc.box(next(b.name for b in g.board.boxes.values() if b.kind == ELIMINATED))


def eliminate(g: Game, p: Piece, rule: str, why: str = "eliminated") -> None:
    """Put a piece in the Eliminated Box (with any cargo it carries, NM 27.33)."""
    for q in list(g.state.contents(p.id)):
        eliminate(g, q, rule, "lost with its carrier")
    g.state.move(p.id, eliminated_box(g))
    g.emit("eliminated", f"{p.name or p.id} is {why}", rule=rule)


@implements("EF 4.4")
def lose_step(g: Game, p: Piece, rule: str = "EF 4.4") -> bool:
    """EF 4.4: one step lost: full -> reduced, else eliminated. Returns True if it survives."""
    if p.face == "full" and "reduced" in p.faces:
        p.face = "reduced"
        g.emit("step-loss", f"{p.name or p.id} loses a step", rule=rule)
        return True
    eliminate(g, p, rule)
    return False


@implements("EF 4.4")
def take_losses(g: Game, units: list[Piece], steps: int, rule: str) -> int:
    """EF 4.4: ``steps`` losses from ``units``, each from the strongest unit left. Returns the
    steps actually lost (fewer when the stack is gone)."""
    lost = 0
    alive = [p for p in units]
    for _ in range(steps):
        if not alive:
            break
        alive.sort(key=lambda p: (-(attack(p) + defense(p)), p.id))
        p = alive[0]
        if not lose_step(g, p, rule):
            alive.remove(p)
        lost += 1
    return lost
