"""The supply and isolation status the checks leave on units and hexes, as the other rules read
it (OT 3G, OT 11F); the checks themselves are in :mod:`.supply` and :mod:`.isolation`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.greatwar.mechanics import gw

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.core.state import Piece


def player_turn_ordinal(g: Game) -> int:
    return int(g.state.turn.get("index", 0)) * 2 + (
        1 if gw(g).get("phasing") == g.state.sides[-1] else 0
    )


def out_of_supply_count(g: Game, p: Piece) -> int:
    """OT 11F: the turn out of general supply a unit is in (0 none, 1 for U-1, 2 for U-2 or later),
    counted from the first check that found it out (two player turns per turn), whatever special
    sources it drew on (OT 11C2b)."""
    since = p.attrs.get("supply_out_since")
    if since is None:
        return 0
    return 1 + (player_turn_ordinal(g) - int(since)) // 2


def in_general_supply(g: Game, p: Piece) -> bool:
    """OT 11B / 11C2b: in general supply this player turn -- by a regular line at the last check
    (no count running), or by a special source drawn on this player turn."""
    if p.attrs.get("special_supply") == player_turn_ordinal(g):
        return True
    return p.attrs.get("supply_out_since") is None


@implements("OT 11F", "OT 11F1", "OT 11F2")
def turns_out_of_supply(g: Game, p: Piece) -> int:
    """OT 11F: 0 in general supply (by a regular line, or a special source this player turn), 1 for
    U-1, 2 for U-2 and later -- what movement (OT 11F1/11F2 halving), ZOCs (OT 11F2 reduction) and
    combat read."""
    if in_general_supply(g, p):
        return 0
    return out_of_supply_count(g, p)


def is_isolated(g: Game, side: str, i: int) -> bool:
    """OT 3G: the status found at the last isolation check."""
    return i in set(gw(g).get("isolated", {}).get(side, []))
