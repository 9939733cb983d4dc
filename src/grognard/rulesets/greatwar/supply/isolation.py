"""OT 3G: isolation.

A unit or hex is isolated if its owner cannot trace an overland supply line (OT 11A blocking) of
any length to one of his regular general supply sources (OT 11C2a). Isolation is judged at the
start of each initial phase, combat phase and reaction combat phase, and holds until the next
check. The result is kept in the state per side: the hexes owned by the side, or holding its
units, from which no line can be traced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.greatwar.map import terrain
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.supply import supply
from grognard.rulesets.greatwar.units import units

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("OT 3G")
def compute_isolated(g: Game, side: str) -> set[int]:
    """OT 3G: the hexes of ``side`` (owned by it or holding its units) that are isolated now."""
    reach = supply.overland_reach(g, side, supply.regular_sources(g, side))
    mine = {i for i, s in g.state.control.items() if s == side and terrain.is_land(g, i)}
    mine |= {h for p in units.on_map_units(g, side) if (h := units.hex_of(g, p)) is not None}
    return {i for i in mine if not supply.traces_to(g, i, reach)}


@implements("OT 3G")
def check_isolation(g: Game, reason: str) -> None:
    """OT 3G: both players determine the isolation of their units and hexes (the status is kept
    until the next check)."""
    store = gw(g).setdefault("isolated", {})
    for side in g.state.sides:
        iso = sorted(compute_isolated(g, side))
        before = store.get(side, [])
        store[side] = iso
        if iso != before:
            labels = ", ".join(g.board.label(i) for i in iso[:12]) + (
                " ..." if len(iso) > 12 else ""
            )
            g.emit(
                "isolation",
                f"{side}: {len(iso)} isolated hex(es) at the {reason}"
                + (f": {labels}" if iso else ""),
                rule="OT 3G",
                side=side,
                hexes=[g.board.label(i) for i in iso],
            )
