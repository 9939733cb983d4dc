"""Loss selection helpers."""

from fractions import Fraction

from grognard.core import losses
from grognard.core.sequence import other_of
from grognard.rulesets.eastfront.model import other
from grognard.rulesets.greatwar.units.nations import other_side as gw_other
from grognard.rulesets.lgg1418.model import other_side as lgg_other


def test_loss_sets_are_minimal() -> None:
    vals = {"a": 4, "b": 3, "c": Fraction(7, 2), "d": 1}
    sets = losses.minimal_sets(vals, 4)
    assert ("a",) in sets and ("b", "d") in sets and ("c", "d") in sets
    assert ("a", "d") not in sets  # d could be spared
    assert losses.is_minimal(vals, ["b", "c"], 4)
    assert not losses.is_minimal(vals, ["b"], 4)
    assert losses.minimal_sets({"a": 1, "b": 1}, 5) == [("a", "b")]
    assert losses.minimal_sets(vals, 0) == [()]


def test_other_of_a_pair_of_sides() -> None:

    assert other_of(("Red", "Blue"), "Red") == "Blue"
    assert other_of(("Red", "Blue"), "Blue") == "Red"
    assert gw_other("Entente") == "Central Powers" and gw_other("Central Powers") == "Entente"
    assert lgg_other("Entente") == "Central Powers" and lgg_other("Central Powers") == "Entente"
    assert other("Axis") == "Soviet" and other("Soviet") == "Axis"
