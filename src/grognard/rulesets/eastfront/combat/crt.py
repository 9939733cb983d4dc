"""Odds and the Combat Results Table (EF 12.0, our design).

The odds are the attack (plus attacking support) to the defence (plus defensive support),
rounded down for the defender to the table's columns (below 1:3 the 1:3 column, above 6:1 the
6:1 column); the defender's terrain (data/terrain.toml) and a city or fortress in the hex shift
the column left. One d6 on data/tables/crt.toml.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.tables import ResultsTable
from grognard.rulesets.eastfront.data import data, table

if TYPE_CHECKING:
    from grognard.core.game import Game


def ratio_of(column: str) -> Fraction:
    a, b = column.split(":")
    return Fraction(int(a), int(b))


@implements("EF 12.0")
def column_for(t: ResultsTable, attack: Fraction, defense: Fraction, shift: int) -> str:
    """EF 12.0: the column of the odds ``attack``:``defense`` rounded for the defender, moved
    ``shift`` columns left."""
    if defense <= 0:
        k = len(t.columns) - 1
    else:
        r = attack / defense
        k = 0
        for n, col in enumerate(t.columns):
            if ratio_of(col) <= r:
                k = n
    return t.columns[max(0, k - shift)]


@implements("EF 12.0")
def terrain_shift(g: Game, i: int) -> int:
    """EF 12.0: the columns the defender's hex takes off the odds."""
    d = data(g)
    t = d.terrain.get(g.board.terrain_of(i))
    shift = t.shift if t else 0
    for pt in g.board.points_at(i):
        shift += d.place_shift.get(pt.kind, 0)
    return shift


def crt(g: Game) -> ResultsTable:
    return table(g, "crt")
