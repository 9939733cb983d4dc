"""Fog of war (EF 18.0, our design): ground units aboard an enemy naval unit are seen only as
an anonymous stack at the carrier's place; everything else on the map and in the boxes is
open. The module itself hides nothing (its targets are declared before rolls, NM 31.2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("EF 18.0")
def visibility(g: Game, p: Piece, side: str | None) -> str:
    """EF 18.0: ``"full"``, or ``"stack"`` for cargo aboard a naval unit the viewer does not
    own (a spectator sees no cargo)."""
    if p.loc.kind != "piece" or p.side == side:
        return "full"
    return "stack"
