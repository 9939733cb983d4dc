"""OT 15G (advanced, option ``siege``): sieges.

At the start of his movement phase the phasing player may put under siege a hex holding enemy
units when his units occupy every hex adjacent to it (OT 3E5); he establishes the siege by moving
at least one surrounding unit into the hex (OT 6 lets it enter). While the siege lasts the
besieged units' ZOC stays in their own hex, their side may enter the hex only by air or naval
transport, both sides stack up to the hex's full limit, besieged units may attack only the
sieging units in their hex, and ownership does not change. The siege ends when the sieging units
have all left the hex, or when a unit of the besieged side occupies a hex adjacent to it: the
sieging units in the hex then retreat at once (OT 9F2), and only afterwards do the besieged units'
ZOCs reach beyond their hex again.

State: ``gw(g)["sieges"]`` maps a hex index (string) to ``{"besieged": side, "sieging": side}``;
``gw(g)["siege_candidates"]`` lists the hexes the phasing player may put under siege in the
current movement phase.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar.map import geography
from grognard.rulesets.greatwar.mechanics import gw, gw_view
from grognard.rulesets.greatwar.units import nations, units

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.greatwar.record import SiegeRecord


def sieges(g: Game) -> dict[str, SiegeRecord]:
    return gw_view(g).get("sieges", {})


def siege_at(g: Game, i: int) -> SiegeRecord | None:
    """The siege of hex ``i``, if any."""
    s = gw_view(g).get("sieges")
    return s.get(str(i)) if s else None


def is_besieged(g: Game, p: Piece) -> bool:
    """A unit of the besieged side in a hex under siege."""
    h = units.hex_of(g, p)
    if h is None:
        return False
    s = siege_at(g, h)
    return s is not None and s["besieged"] == p.side


@implements("OT 15G")
def surrounded(g: Game, side: str, i: int) -> bool:
    """OT 15G: hex ``i`` holds units of ``side``'s enemy and ``side`` has units in every hex
    adjacent
    to it (adjacency per OT 3E5)."""
    enemy = nations.other_side(side)
    if not units.units_in_hex(g, i, enemy):
        return False
    adj = geography.adjacent_hexes(g, i)
    return bool(adj) and all(units.units_in_hex(g, j, side) for j in adj)


@implements("OT 15G")
def start_of_movement_phase(g: Game, side: str) -> list[int]:
    """OT 15G: at the start of a player's movement phase, the hexes he may put under siege (kept
    for the phase in ``siege_candidates``)."""
    if not g.opt("siege"):
        return []
    enemy = nations.other_side(side)
    cands = sorted(
        {
            h
            for p in units.on_map_units(g, enemy)
            if (h := units.hex_of(g, p)) is not None
            and str(h) not in sieges(g)
            and surrounded(g, side, h)
        }
    )
    gw(g)["siege_candidates"] = {"side": side, "hexes": cands}
    if cands:
        g.emit(
            "siege",
            f"{side} may put under siege: {', '.join(g.board.label(h) for h in cands)}",
            rule="OT 15G",
        )
    return cands


def sieging_entry_allowed(g: Game, side: str, v: int) -> bool:
    """OT 15G / OT 6: the sieging player's units may enter the enemy-occupied hex they besiege, and
    a
    hex they may put under siege this movement phase (entering it establishes the siege)."""
    if not g.opt("siege"):
        return False
    s = siege_at(g, v)
    if s is not None:
        return s["sieging"] == side
    c = gw(g).get("siege_candidates", {})
    return c.get("side") == side and v in c.get("hexes", []) and gw(g).get("phase") == "movement"


@implements("OT 15G")
def entry_problem(g: Game, p: Piece, v: int) -> str | None:
    """OT 15G (b): units of the besieged player enter a hex under siege only by air or naval
    transport (ground movement may not)."""
    s = siege_at(g, v)
    if s is not None and s["besieged"] == p.side:
        return (
            f"{g.board.label(v)} is under siege: {p.side} units enter it only by air or naval"
            " transport (OT 15G)"
        )
    return None


@implements("OT 15G")
def establish(g: Game, side: str, i: int) -> None:
    """OT 15G: a surrounding unit moved into a hex the player may put under siege: the siege
    begins."""
    sieges_ = gw(g).setdefault("sieges", {})
    sieges_[str(i)] = {"besieged": nations.other_side(side), "sieging": side}
    c = gw(g).get("siege_candidates", {})
    if i in c.get("hexes", []):
        c["hexes"] = [h for h in c["hexes"] if h != i]
    g.emit(
        "siege", f"{side} puts {g.board.label(i)} under siege", rule="OT 15G", hex=g.board.label(i)
    )


@implements("OT 15G")
def zoc_only_own_hex(g: Game, p: Piece) -> bool:
    """OT 15G (a): besieged units exert a ZOC in their own hex only (sieging units are
    unaffected)."""
    return is_besieged(g, p)


@implements("OT 15G")
def ownership_frozen(g: Game, i: int) -> bool:
    """OT 15G (e): a siege has no effect on the ownership of the hex."""
    return siege_at(g, i) is not None


@implements("OT 15G")
def attack_problem(g: Game, attackers: Sequence[Piece], target: int) -> str | None:
    """OT 15G (d): besieged units may attack only the sieging units in their own hex, never an
    adjacent hex; sieging units attack from the hex or from adjacent hexes."""
    for p in attackers:
        h = units.hex_of(g, p)
        if h is not None and is_besieged(g, p) and target != h:
            return f"{p.id} is besieged and may attack only the sieging units in its hex (OT 15G)"
    return None
