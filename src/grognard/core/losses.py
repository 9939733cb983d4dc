"""Loss selection: constraint-checked choices of which pieces absorb a loss.

Rulebooks phrase losses as "eliminate units totalling at least X" (owner's choice, no
unit lost needlessly) or "remove N steps". These helpers enumerate and check the
choices so a rule system can offer them as legal actions and refuse anything else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import combinations

from grognard.core.arith import Number


def meets(values: Mapping[str, Number], chosen: Sequence[str], at_least: Number) -> bool:
    return sum((Fraction(values[c]) for c in chosen), Fraction(0)) >= Fraction(at_least)


def is_minimal(values: Mapping[str, Number], chosen: Sequence[str], at_least: Number) -> bool:
    """True if ``chosen`` reaches the loss and no piece of it could be spared."""
    if not meets(values, chosen, at_least):
        return False
    return all(not meets(values, [c for c in chosen if c != x], at_least) for x in chosen)


def minimal_sets(
    values: Mapping[str, Number], at_least: Number, limit: int = 2000
) -> list[tuple[str, ...]]:
    """Every minimal set of pieces whose values total at least ``at_least``.

    If all pieces together fall short, the only choice is all of them. ``limit`` caps
    the enumeration for very large stacks (choices are still checked exactly by
    :func:`is_minimal` when a player submits one).
    """
    ids = sorted(values)
    if not meets(values, ids, at_least):
        return [tuple(ids)]
    if Fraction(at_least) <= 0:
        return [()]
    out: list[tuple[str, ...]] = []
    for k in range(1, len(ids) + 1):
        for combo in combinations(ids, k):
            if is_minimal(values, combo, at_least):
                out.append(combo)
                if len(out) >= limit:
                    return out
    return out
