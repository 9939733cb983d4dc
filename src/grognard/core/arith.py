"""Exact arithmetic and the rounding rules the rulebooks use.

Strengths are kept as :class:`fractions.Fraction`. Each rule names its own rounding;
the helpers here make that choice explicit at the call site.
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Rational

Number = int | Fraction


def frac(x: Number | str | float) -> Fraction:
    """Exact value. Floats are refused unless they are exact binary fractions of small size."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, str):
        t = x.strip()
        for glyph, value in _GLYPHS.items():
            if t.endswith(glyph):
                return Fraction(t[: -len(glyph)] or 0) + value
        return Fraction(t)
    if isinstance(x, float):
        f = Fraction(x)
        if f.denominator > 64:
            raise ValueError(f"{x!r} is not an exact game value; give it as a fraction string")
        return f
    if isinstance(x, Rational):
        return Fraction(x.numerator, x.denominator)
    raise TypeError(f"not a number: {x!r}")


_GLYPHS = {
    "½": Fraction(1, 2),
    "¼": Fraction(1, 4),
    "¾": Fraction(3, 4),
    "⅓": Fraction(1, 3),
    "⅔": Fraction(2, 3),
}


def half(x: Number) -> Fraction:
    """Half, kept exact (no rounding)."""
    return Fraction(x) / 2


def round_down(x: Number) -> int:
    return math.floor(Fraction(x))


def round_up(x: Number) -> int:
    return math.ceil(Fraction(x))


def round_half_up(x: Number) -> int:
    """Nearest integer, halves rounded up (2½ -> 3)."""
    return math.floor(Fraction(x) + Fraction(1, 2))


def round_half_down(x: Number) -> int:
    """Nearest integer, halves rounded down (2½ -> 2)."""
    return math.ceil(Fraction(x) - Fraction(1, 2))


def at_least(x: Number, minimum: Number) -> Number:
    return x if x >= minimum else minimum


def half_down_min1(x: Number) -> int:
    """Halve, round down, but never below 1 (used by several rulebooks)."""
    return max(1, math.floor(Fraction(x) / 2))


def half_up(x: Number) -> int:
    """Halve and round up."""
    return math.ceil(Fraction(x) / 2)


def odds_ratio(attack: Number, defense: Number) -> tuple[int, int]:
    """Odds rounded in favour of the defender, as ``(a, d)`` with one side equal to 1.

    ``attack >= defense`` gives ``(floor(attack/defense), 1)``; otherwise
    ``(1, ceil(defense/attack))``. A zero defence gives ``(inf-like, 1)`` via a large
    number; a zero attack gives ``(0, 1)``.
    """
    a, d = Fraction(attack), Fraction(defense)
    if a <= 0:
        return (0, 1)
    if d <= 0:
        return (10**9, 1)
    if a >= d:
        return (math.floor(a / d), 1)
    return (1, math.ceil(d / a))


def fmt(x: Number) -> str:
    """Human form: 7/2 -> '3½', 1/4 -> '¼', other fractions as 'n/d'."""
    f = Fraction(x)
    if f.denominator == 1:
        return str(f.numerator)
    whole, rest = divmod(f.numerator, f.denominator)
    glyph = {v: k for k, v in _GLYPHS.items()}.get(Fraction(rest, f.denominator))
    if glyph is None:
        return f"{f.numerator}/{f.denominator}"
    if whole == 0:
        return glyph
    if whole < 0:
        return f"{f.numerator}/{f.denominator}"
    return f"{whole}{glyph}"
