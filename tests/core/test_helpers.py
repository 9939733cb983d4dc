"""Loss selection helpers."""

from fractions import Fraction

from grognard.core import losses


def test_loss_sets_are_minimal() -> None:
    vals = {"a": 4, "b": 3, "c": Fraction(7, 2), "d": 1}
    sets = losses.minimal_sets(vals, 4)
    assert ("a",) in sets and ("b", "d") in sets and ("c", "d") in sets
    assert ("a", "d") not in sets  # d could be spared
    assert losses.is_minimal(vals, ["b", "c"], 4)
    assert not losses.is_minimal(vals, ["b"], 4)
    assert losses.minimal_sets({"a": 1, "b": 1}, 5) == [("a", "b")]
    assert losses.minimal_sets(vals, 0) == [()]
