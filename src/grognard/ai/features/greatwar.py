"""Features of Over There (``greatwar``): victory points as OT's scenario victory counts them
(the objectives of the scenario's ``[victory]`` owned on the control map: the generic reading,
which ``tests/ai`` checks against the rule system's own ``victory.points``, without validating
the scenario table at every evaluation)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from grognard.ai.features.base import Features, is_ending

if TYPE_CHECKING:
    from grognard.core.game import Game


class GreatWarFeatures(Features):
    """OT: objectives owned (the scenario's victory points), printed attack and defense."""

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
