"""Features of Over There (``greatwar``): victory points as OT's scenario victory counts them.

The only import from the rule system's internals is here: its victory module's ``points``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from grognard.ai.features.base import Features, is_ending
from grognard.rulesets.greatwar import victory

if TYPE_CHECKING:
    from grognard.core.game import Game


class GreatWarFeatures(Features):
    """OT: objectives owned (the scenario's victory points), printed attack and defense."""

    def victory_points(self, g: Game) -> dict[str, float]:
        return {s: float(n) for s, n in victory.points(g).items()}

    def prior(self, g: Game, side: str, action: Mapping[str, Any]) -> float:
        """Attacks and overruns first, moves and advances next, paperwork (depots, rail
        breaks, engineers) after them, ending last."""
        t = str(action.get("type", ""))
        if is_ending(action):
            return -1.0
        if t in ("attack", "overrun"):
            return 2.0
        if t in ("move", "advance", "retreat", "rail-move"):
            return 0.5
        return 0.0
