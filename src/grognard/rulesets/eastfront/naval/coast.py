"""Coast artillery (CD) against naval movement (NM 30.3, NM 27.2b).

A CD unit reaches a naval Target Hex within its range (counting the Target Hex, not its own
hex) when its line of fire crosses no all-land hexside and at most one coastal hexside (EF 2.0
classes the hexsides). The line is the straight line of hex centres; where it runs along a
hexside either neighbour may be taken (both nudges are tried). Every CD unit of both sides
applies its effect on naval movement whatever its supply (NM 30.3e); CD units in a Defender
Hex count double against each naval Target Hex of an Amphibious Assault (NM 30.3), and only
there.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.eastfront.map.geography import hexside_class
from grognard.rulesets.eastfront.naval.units import art_range
from grognard.rulesets.eastfront.units.kinds import is_cd

if TYPE_CHECKING:
    from grognard.core.game import Game


def cd_units(g: Game, side: str) -> list[Piece]:
    """``side``'s CD units on the map."""
    return sorted(
        (p for p in g.state.of_side(side) if p.loc.kind == "hex" and is_cd(g, p)),
        key=lambda p: p.id,
    )


def cd_points(p: Piece) -> int:
    """A CD unit's support points (NM 30.3: count points, not units)."""
    return int(p.stat("support", 0))


@implements("NM 30.3")
def line_of_fire(g: Game, i: int, j: int) -> bool:
    """NM 30.3: no all-land hexside and at most one coastal hexside between ``i`` and ``j``."""
    if i == j:
        return True

    def clear(nudge: int) -> bool:
        path = g.board.line(i, j, nudge)
        coastal = 0
        for a, b in itertools.pairwise(path):
            cls = hexside_class(g, a, b)
            if cls == "all-land":
                return False
            if cls == "coastal":
                coastal += 1
                if coastal > 1:
                    return False
        return True

    return clear(1) or clear(-1)


@implements("NM 30.3", "NM 25.1")
def reaches(g: Game, cd: Piece, target: int) -> bool:
    """NM 30.3: CD unit ``cd`` reaches hex ``target`` (range counts the target, not its own hex,
    NM 25.1e; then the line of fire)."""
    if cd.loc.kind != "hex":
        return False
    i = int(cd.loc.ref)
    return g.board.distance(i, target) <= art_range(cd) and line_of_fire(g, i, target)


@implements("NM 30.3", "NM 27.2")
def cd_strength(
    g: Game, firing_side: str, hexes: Iterable[int], defender_hexes: Iterable[int] = ()
) -> int:
    """NM 30.3: the CD points of ``firing_side`` reaching any of ``hexes`` (each unit once), a
    unit standing in one of ``defender_hexes`` counting double.

    Rules: NM 30.3, NM 27.2.
    """
    targets = list(dict.fromkeys(hexes))
    if not targets:
        return 0
    doubled = set(defender_hexes)
    total = 0
    for cd in cd_units(g, firing_side):
        if any(reaches(g, cd, t) for t in targets):
            pts = cd_points(cd)
            total += 2 * pts if int(cd.loc.ref) in doubled else pts
    return total
