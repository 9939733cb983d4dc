"""Game-turn dates (OT 4): each game turn is half a month, named like ``Sep I 14``.

Many rules depend on the date ("prior to Feb I 15", "from Oct I 17 on"), so turn labels are
parsed into :class:`TurnDate` values that compare in time order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from grognard.core.rules import implements

if TYPE_CHECKING:
    from grognard.core.game import Game

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_LABEL = re.compile(r"^\s*([A-Za-z]{3})\s+(I{1,2})\s+(\d{2}|\d{4})\s*$")
# OT 16B1a: production arrives on the I turn of Jan, Mar, May, Jul, Sep and Nov (the production
# cycles).
PRODUCTION_MONTHS = (1, 3, 5, 7, 9, 11)


@dataclass(frozen=True, order=True)
class TurnDate:
    """A game turn: ``half`` is 1 for the I turn and 2 for the II turn of the month."""

    year: int
    month: int
    half: int

    @property
    def ordinal(self) -> int:
        return (self.year * 12 + (self.month - 1)) * 2 + (self.half - 1)

    def label(self) -> str:
        return f"{MONTHS[self.month - 1]} {'I' * self.half} {self.year % 100:02d}"

    def next(self) -> TurnDate:
        if self.half == 1:
            return TurnDate(self.year, self.month, 2)
        if self.month == 12:
            return TurnDate(self.year + 1, 1, 1)
        return TurnDate(self.year, self.month + 1, 1)

    @property
    def month_key(self) -> str:
        """The calendar month (I and II turns together), for per-month limits."""
        return f"{self.year}-{self.month:02d}"

    def is_production_cycle(self) -> bool:
        """OT 16B1a: the I turn of every second month starting in January."""
        return self.half == 1 and self.month in PRODUCTION_MONTHS


class TurnLabelError(ValueError):
    """A turn label is not of the form 'Mon I|II YY'."""


@implements("OT 4")
@lru_cache(maxsize=512)
def parse_turn(label: str) -> TurnDate:
    """OT 4: read a turn label such as ``Sep I 14`` or ``Feb II 1917``."""
    m = _LABEL.match(label)
    if not m:
        raise TurnLabelError(
            f"turn label {label!r} is not of the form 'Sep I 14' (month, I or II, year)"
        )
    mon = m.group(1).capitalize()
    if mon not in MONTHS:
        raise TurnLabelError(f"turn label {label!r}: unknown month {m.group(1)!r}")
    year = int(m.group(3))
    if year < 100:
        year += 1900
    return TurnDate(year, MONTHS.index(mon) + 1, len(m.group(2)))


def current_date(g: Game) -> TurnDate | None:
    """The date of the game turn in progress (None before the first turn starts)."""
    label = g.state.turn.get("label")
    if not label:
        return None
    return parse_turn(str(label))


def is_production_cycle(g: Game) -> bool:
    """Whether the current game turn starts a production cycle: the scenario's turn track may say so
    (``attrs.production``, standing in for the Game Calendar); otherwise OT 16B1a's I turns of Jan,
    Mar, May, Jul, Sep and Nov."""
    idx = int(g.state.turn.get("index", 0))
    turns = g.scenario.data.turns
    if 1 <= idx <= len(turns) and "production" in turns[idx - 1].attrs:
        return bool(turns[idx - 1].attrs["production"])
    cur = current_date(g)
    return cur is not None and cur.is_production_cycle()


def before(g: Game, label: str) -> bool:
    """True if the current game turn is earlier than ``label`` ("prior to Feb I 15")."""
    cur = current_date(g)
    return cur is not None and cur < parse_turn(label)


def on_or_after(g: Game, label: str) -> bool:
    """True if the current game turn is ``label`` or later ("from Oct I 17 on")."""
    cur = current_date(g)
    return cur is not None and cur >= parse_turn(label)
