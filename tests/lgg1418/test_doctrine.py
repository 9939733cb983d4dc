"""Doctrine by country and date (the data side of LGG 36, read by the ZoC and interception
rules)."""

from __future__ import annotations

import pytest

from grognard.rulesets.lgg1418.units import doctrine

from .helpers import corps, game


@pytest.mark.rules("LGG 36.6")
def test_lgg_36_6_belgium_follows_england_serbia_follows_russia() -> None:
    g = game(pieces=[corps("a", "BE", "0101")])
    assert doctrine.doctrine_country(g, "BE") == "GB"
    assert doctrine.doctrine_country(g, "SR") == "RU"
    assert doctrine.doctrine_country(g, "FR") == "FR"
    doctrine.set_doctrine(g, "GB", "West", "trenches")
    assert doctrine.doctrine(g, "BE", "West") == "trenches"
    assert doctrine.doctrine(g, "FR", "West") == "movement"


def test_doctrine_calendar_and_its_effects() -> None:
    expect = {
        "1914-08": ("movement", "flexible", "yes"),
        "1914-10": ("movement", "flexible", "yes"),
        "1914-11": ("transition", "rigid", "even-d6"),
        "1915-01": ("fire", "rigid", "no"),
        "1916-05": ("fire", "rigid", "no"),
    }
    for tid, (doc, zoc, intercept) in expect.items():
        g = game(pieces=[corps("a", "DE", "0101")], rules={"first_turn": tid, "last_turn": tid})
        assert doctrine.doctrine(g, "DE", "West") == doc
        assert doctrine.zoc_kind(g, "DE", "West") == zoc
        assert doctrine.interception_mode(g, "DE", "West") == intercept
    g = game(
        pieces=[corps("a", "DE", "0101")], rules={"first_turn": "1914-10", "last_turn": "1914-10"}
    )
    doctrine.set_doctrine(g, "DE", "West", "trenches")
    assert doctrine.interception_mode(g, "DE", "West") == "even-d6"
    assert doctrine.zoc_kind(g, "DE", "East") == "flexible"
    with pytest.raises(ValueError):
        doctrine.set_doctrine(g, "DE", "West", "blitzkrieg")
