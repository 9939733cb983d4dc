"""Units leaving play: elimination (with what rides inside), the destruction of an HQ (5-H),
and the pieces caught alone that must withdraw (13-A). Used by every rule that removes units."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.units import fog

if TYPE_CHECKING:
    from grognard.core.game import Game

WITHDRAWING = ("hq", "ghq", "decoy")


def eliminate(g: Game, p: Piece, reason: str, rule: str) -> None:
    """Remove a unit from play (with whatever rides inside it)."""
    for q in g.state.contents(p.id):
        eliminate(g, q, reason, rule)
    M.set_status(g, p, M.RESERVE, False)
    M.move_piece(g, p, Loc.box(M.ELIMINATED))
    fog.emit_private(g, p.side, "eliminated", f"{p.id} is eliminated ({reason})", None, rule=rule)


@implements("LGG 5-H")
def destroy_hq(g: Game, hq: Piece, rule: str) -> None:
    """LGG 5-H: an HQ or GHQ whose isolated stack was annihilated is destroyed: off the map
    (with its generals and reserve), back the following turn."""
    for q in g.state.contents(hq.id):
        if q.type in ("general", "aircraft"):
            continue
        eliminate(g, q, f"with {hq.id}", rule)
    M.move_piece(g, hq, Loc.box(M.DESTROYED_HQ))
    M.st(g).setdefault("destroyed_hq", {})[hq.id] = M.turn_index(g)
    M.touch(g)
    fog.emit_private(
        g,
        hq.side,
        "hq-destroyed",
        f"{hq.id} is destroyed",
        f"an {hq.side} headquarters is destroyed",
        rule=rule,
    )


def withdrawers(g: Game, side: str, j: int) -> list[Piece] | None:
    """The pieces of ``side`` that must withdraw from ``j`` because it holds only HQs, GHQs or
    decoys with no corps deployed (None when the hex holds something that fights)."""
    pieces = M.pieces_at_hex(g, j, side)
    if not pieces:
        return None
    outer = []
    for p in pieces:
        if p.loc.kind == "hex":
            if p.type not in WITHDRAWING:
                return None
            outer.append(p)
            continue
        c = M.carrier(g, p)
        if c is None or c.type == "fortress":
            return None
        if M.is_unit(p) and not M.in_reserve(p):
            return None  # a stack on an HQ's or decoy's box is in the hex
    return outer
