"""Capacity budgets and loss selection helpers."""

from fractions import Fraction

import pytest

from grognard.core import budgets, losses
from grognard.core.errors import IllegalAction
from grognard.core.state import GameState


def test_budget_spend_lapse_and_carry() -> None:
    s = GameState()
    budgets.open_budget(s, "rail:west", 6, "X 7A")
    budgets.spend(s, "rail:west", 4, "moving I Corps")
    assert budgets.remaining(s, "rail:west") == 2
    with pytest.raises(IllegalAction) as ei:
        budgets.spend(s, "rail:west", 3, "moving II Corps")
    assert ei.value.rule == "X 7A" and "only 2" in ei.value.message
    budgets.close_period(s)
    budgets.open_budget(s, "rail:west", 6, "X 7A")
    assert budgets.remaining(s, "rail:west") == 6  # unused capacity never carries over
    budgets.open_budget(s, "pr:FR", 10, "X 5C", carry=True, cap=24)
    budgets.spend(s, "pr:FR", 3)
    budgets.close_period(s)
    budgets.open_budget(s, "pr:FR", 10, "X 5C", carry=True, cap=24)
    assert budgets.remaining(s, "pr:FR") == 17
    budgets.open_budget(s, "pr:FR", 10, "X 5C", carry=True, cap=24)
    assert budgets.remaining(s, "pr:FR") == 24  # capped
    with pytest.raises(IllegalAction):
        budgets.spend(s, "unknown", 1)


def test_loss_sets_are_minimal() -> None:
    vals = {"a": 4, "b": 3, "c": Fraction(7, 2), "d": 1}
    sets = losses.minimal_sets(vals, 4)
    assert ("a",) in sets and ("b", "d") in sets and ("c", "d") in sets
    assert ("a", "d") not in sets  # d could be spared
    assert losses.is_minimal(vals, ["b", "c"], 4)
    assert not losses.is_minimal(vals, ["b"], 4)
    assert losses.minimal_sets({"a": 1, "b": 1}, 5) == [("a", "b")]
    assert losses.minimal_sets(vals, 0) == [()]
