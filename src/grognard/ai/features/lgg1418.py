"""Features of La Grande Guerre 14-18 (``lgg1418``): objectives as its victory counts them.

The only import from the rule system's internals is here: ``mapdata.controller`` (who holds a
hex); the points are the generic reading of the scenario's objectives, which ``tests/ai`` checks
against the rule system's own ``victory.scores``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from grognard.ai.features.base import Features, is_ending
from grognard.rulesets.lgg1418.map import mapdata

if TYPE_CHECKING:
    from grognard.core.game import Game


class LGGFeatures(Features):
    """LGG: objectives held (the scenario's points), printed attack, fire and defense; decoys
    and stacks are dealt out over the view's markers by the generic sampler."""

    def owner(self, g: Game, i: int) -> str | None:
        return mapdata.controller(g, i)

    def value(self, p: Any, face: str | None = None) -> float:
        if p.type == "decoy":
            return 0.0
        return super().value(p, face)

    def prior(self, g: Game, side: str, action: Mapping[str, Any]) -> float:
        t = str(action.get("type", ""))
        if is_ending(action):
            return -1.0
        if t in ("activate", "coordinate", "move", "rail"):
            return 1.0
        if t in ("place-decoy", "remove-decoy"):
            return -0.5
        return 0.0
