"""Artillery support of a Declared Attack (EF 12.4, our design; NM 29.1, NM 29.2, NM 30.3,
NM 27.12a).

Each side may add up to three artillery units (ground artillery, coast artillery, naval
units) to a Declared Attack, each within its range of the Defender Hex (counted from its hex;
a naval unit in port from the port hex) and supporting one attack per phase. One may support
alone; two or more must all be within command range of one friendly Operational HQ.

Naval units (NM 29.1, NM 29.2; the ``naval_support`` option decides which sides may, the
module writing of Soviet support only): at sea a naval unit supports from an all-sea hex where
it ended its move, attacking only, alone (one per attack, combined with no other artillery);
it must then go back to port in the next Movement Phase. In port naval units support attack
and defence, Ready or Sailed, combining under the rule above. A CD unit that made a Shipping
Attack this phase gives no support (NM 27.12a) and supports one Defender Hex per phase without
doubling (NM 30.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.eastfront.model import SOVIET, ef
from grognard.rulesets.eastfront.naval.units import art_range, port_of, sea_hex, support
from grognard.rulesets.eastfront.units.kinds import is_artillery, is_hq, is_naval

if TYPE_CHECKING:
    from grognard.core.game import Game

MAX_SUPPORT = 3  # EF 12.4


def position(g: Game, p: Piece) -> int | None:
    """The hex a supporter fires from: its own, or its port's (NM 29.2)."""
    if is_naval(g, p):
        i = sea_hex(g, p)
        if i is not None:
            return i
        port = port_of(g, p)
        return port.hex if port is not None else None
    return int(p.loc.ref) if p.loc.kind == "hex" else None


def strength(g: Game, p: Piece) -> int:
    """A supporter's support points (a damaged naval unit's are halved, NM 27.33)."""
    return support(g, p) if is_naval(g, p) else int(p.stat("support", 0))


def at_sea(g: Game, p: Piece) -> bool:
    return is_naval(g, p) and sea_hex(g, p) is not None


@implements("EF 12.4", "NM 29.2", "EF 8.0")
def commanded(g: Game, side: str, hexes: Sequence[int]) -> bool:
    """EF 12.4: one friendly Operational HQ has every one of ``hexes`` in its command range.

    Rules: EF 12.4, NM 29.2, EF 8.0.
    """
    for hq in g.state.of_side(side):
        if not is_hq(hq) or hq.loc.kind != "hex" or hq.face == "non-op":
            continue
        i = int(hq.loc.ref)
        reach = int(hq.stat("command", 0))
        if all(g.board.distance(i, j) <= reach for j in hexes):
            return True
    return False


@implements("EF 12.4", "NM 29.0", "NM 29.1", "NM 29.2", "NM 30.3", "NM 27.12")
def support_problem(
    g: Game, p: Piece, side: str, target: int, attacking: bool, chosen: Sequence[Piece]
) -> str | None:
    """EF 12.4 / NM 29: why ``p`` may not support the attack on ``target`` (None: it may).

    Rules: EF 12.4, NM 29.0, NM 29.1, NM 29.2, NM 30.3, NM 27.12.
    """
    rec = ef(g).combat
    if p.side != side:
        return "not your unit"
    if p.id in rec.supporters:
        return f"{p.name or p.id} has already supported an attack this phase (NM 30.3)"
    if p.id in rec.cd_fired:
        return f"{p.name or p.id} made a Shipping Attack this phase (NM 27.12a)"
    naval = is_naval(g, p)
    if not naval and not is_artillery(g, p):
        return f"{p.name or p.id} is not artillery"
    if naval and g.opt("naval_support") == "soviet" and side != SOVIET:
        return "only Soviet naval units give artillery support"
    at = position(g, p)
    if at is None or (not naval and p.loc.kind != "hex"):
        return f"{p.name or p.id} is not where it can fire (a hex, a port or an all-sea hex)"
    if strength(g, p) <= 0:
        return f"{p.name or p.id} has no support strength"
    reach = art_range(p)
    if g.board.distance(at, target) > reach:
        return f"{p.name or p.id} is out of range (range {reach})"
    if len(chosen) >= MAX_SUPPORT:
        return f"at most {MAX_SUPPORT} artillery units support one attack (EF 12.4)"
    if at_sea(g, p):
        if not attacking:
            return "naval units at sea give no defensive support (NM 29.1)"
        if chosen:
            return "a naval unit at sea supports alone (NM 29.1)"
    if any(at_sea(g, q) for q in chosen):
        return "a naval unit at sea already supports this attack alone (NM 29.1)"
    if chosen:
        hexes = [h for h in (position(g, q) for q in [*chosen, p]) if h is not None]
        if not commanded(g, side, hexes):
            return (
                "two or more supporting units must all be within command range of one friendly"
                " Operational HQ (EF 12.4, NM 29.2)"
            )
    return None


def supporters_of(
    g: Game, side: str, target: int, attacking: bool, chosen: Sequence[Piece]
) -> list[Piece]:
    return [
        p
        for p in sorted(g.state.of_side(side), key=lambda q: q.id)
        if (is_naval(g, p) or is_artillery(g, p))
        and p not in chosen
        and support_problem(g, p, side, target, attacking, chosen) is None
    ]
