"""Rule options and interpretation switches."""

from __future__ import annotations

from grognard import rulesets
from grognard.rulesets.lgg1418.options import OPTIONS


def test_options_cover_the_digest_ambiguities_of_rules_1_to_39() -> None:
    ids = {o.id for o in OPTIONS}
    for needed in (
        "isolation-test",
        "pr-restore-cost",
        "pr-cap-1914-15",
        "zoc-unmoved-stack",
        "minor-port-supply",
        "rail-conversion-cost",
        "coordination-value-source",
        "reaction-distance-bands",
        "two-digit-floor",
        "combativeness-trigger",
        "surrender-first-test",
        "siege-heavy-halving",
        "bef-modifier",
        "in-movement-trench",
        "october-switch-draw",
        "peace-winter-1914",
        "fog-of-war",
    ):
        assert needed in ids


def test_defaults_resolve_and_choices_are_checked() -> None:
    rs = rulesets.get("lgg1418")
    opts = rs.option_set().resolve({}, {"pr-cap-1914-15": "both"})
    assert opts["pr-cap-1914-15"] == "both" and opts["isolation-test"] == "9h-combat-22-attrition"
    assert opts["pr-restore-cost"] == 1 and opts["fog-of-war"] is True
    import pytest

    from grognard.core.options import OptionError

    with pytest.raises(OptionError):
        rs.option_set().resolve({"pr-cap-1914-15": "never"})
