"""Weather (EF 16.0, our design): each turn of the scenario's track is ``clear`` or ``storm``
(``[[turns]] attrs.weather``). Naval units move in any weather; only Storm gives a DRM on the
Naval Movement Loss Table (NM 26.12; its value is the ``storm_drm`` option)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.eastfront.model import turn_no

if TYPE_CHECKING:
    from grognard.core.game import Game

WEATHER = ("clear", "storm")


@implements("EF 16.0")
def weather(g: Game) -> str:
    """EF 16.0: this turn's weather (``clear`` when the track says nothing)."""
    turns = g.scenario.data.turns
    k = turn_no(g)
    if not 1 <= k <= len(turns):
        return "clear"
    return str(turns[k - 1].attrs.get("weather", "clear"))


def storm(g: Game) -> bool:
    return weather(g) == "storm"
