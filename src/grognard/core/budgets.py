"""Per-period capacity budgets: rail capacity per net per turn, port throughput, stock caps.

Budgets live in the game state (``state.tracks["budgets"]``) so they are saved, hashed and
undone with everything else. A budget has a limit per period; spending beyond it is refused
with the rule id given when the budget was opened. At the end of a period a budget either
lapses (unused capacity is lost) or carries over, optionally capped.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.arith import Number
from grognard.core.errors import IllegalAction

if TYPE_CHECKING:
    from grognard.core.state import GameState

KEY = "budgets"


def _all(state: GameState) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = state.tracks.setdefault(KEY, {})
    return out


def open_budget(
    state: GameState,
    name: str,
    limit: Number,
    rule: str,
    carry: bool = False,
    cap: Number | None = None,
) -> None:
    """Start (or restart) a budget for the current period."""
    b = _all(state).get(name)
    left = Fraction(0)
    if b is not None and b.get("carry"):
        left = Fraction(b["limit"]) - Fraction(b["used"])
    total = Fraction(limit) + left
    if cap is not None:
        total = min(total, Fraction(cap))
    _all(state)[name] = {"limit": total, "used": Fraction(0), "rule": rule, "carry": carry}


def remaining(state: GameState, name: str) -> Fraction:
    b = _all(state).get(name)
    if b is None:
        return Fraction(0)
    return Fraction(b["limit"]) - Fraction(b["used"])


def can_spend(state: GameState, name: str, amount: Number) -> bool:
    return Fraction(amount) <= remaining(state, name)


def spend(state: GameState, name: str, amount: Number, what: str = "") -> None:
    """Use capacity; refuses (IllegalAction with the budget's rule) when not enough is left."""
    b = _all(state).get(name)
    if b is None:
        raise IllegalAction("core:budget", f"no capacity budget {name!r} is open")
    if Fraction(amount) > remaining(state, name):
        raise IllegalAction(
            b["rule"],
            f"{what or 'this'} needs {amount} of {name} but only {remaining(state, name)} is left",
        )
    b["used"] = Fraction(b["used"]) + Fraction(amount)


def close_period(state: GameState) -> None:
    """End of period: budgets that lapse are emptied; carrying ones keep their remainder."""
    for b in _all(state).values():
        if not b.get("carry"):
            b["limit"] = Fraction(0)
            b["used"] = Fraction(0)
