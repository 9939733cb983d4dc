"""OT 12A support: which units are supported, intrinsically or by a supporting unit with them
(read by ZOCs, combat strengths and artillery)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar.units import units
from grognard.rulesets.greatwar.units.units import OVERSTACKED

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("OT 12A")
def intrinsically_supported(p: Piece) -> bool:
    """OT 12A: divisional units (except those with the unsupported indicator or a printed combat
    strength of 0), all artillery units and units with the self-supported indicator are supported.
    """
    if units.is_artillery(p):
        return True
    ind = units.support_indicator(p)
    if ind == "self":
        return True
    return units.is_divisional(p) and ind != "unsupported" and units.printed_combat_strength(p) > 0


@implements("OT 12A")
def provides_support(p: Piece) -> bool:
    """OT 12A: a supported unit supports the unsupported units with it, unless it is only
    self-supported; a disrupted unit (OT 3A5) and an overstacked unit (OT 8C2) provide none."""
    return (
        intrinsically_supported(p)
        and units.support_indicator(p) != "self"
        and units.can_support(p)
        and OVERSTACKED not in p.status
    )


@implements("OT 12A")
def is_supported(g: Game, p: Piece, companions: Sequence[Piece] | None = None) -> bool:
    """OT 12A: supported intrinsically or by a supporting unit in the same hex.

    ``companions`` are the units that may support it (defending: the units stacked with it;
    attacking: the units stacked with it that take part in the same attack). By default, every
    friendly unit in its hex.
    """
    if intrinsically_supported(p):
        return True
    if companions is None:
        h = units.hex_of(g, p)
        if h is None:
            return False
        companions = [q for q in units.units_in_hex(g, h, p.side)]
    return any(q.id != p.id and provides_support(q) for q in companions)
