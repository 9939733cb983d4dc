"""Features of the Naval Module on the East Front base (``eastfront``): each side's objective
hexes from the scenario's ``[victory]`` (EF 24.0), one point each."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from grognard.ai.features.base import Features, is_ending

if TYPE_CHECKING:
    from grognard.core.game import Game


class EastFrontFeatures(Features):
    """EF: a side's points are the hexes of its own victory list that it holds."""

    def lists(self, g: Game) -> dict[str, list[int]]:
        """Side -> the hexes of its victory list (the ``[victory]`` keys are the side names in
        lower case)."""
        v = getattr(g.scenario.data, "victory", None) or {}
        out: dict[str, list[int]] = {}
        for s in g.state.sides:
            hexes = v.get(s.lower(), []) if isinstance(v, Mapping) else []
            out[s] = [g.board.idx(str(h)) for h in hexes if g.board.has_label(str(h))]
        return out

    def objectives(self, g: Game) -> dict[int, float]:
        return {i: 1.0 for hexes in self.lists(g).values() for i in hexes}

    def victory_points(self, g: Game) -> dict[str, float]:
        out = dict.fromkeys(g.state.sides, 0.0)
        for s, hexes in self.lists(g).items():
            out[s] = float(sum(1 for i in hexes if self.owner(g, i) == s))
        return out

    def prior(self, g: Game, side: str, action: Mapping[str, Any]) -> float:
        t = str(action.get("type", ""))
        if is_ending(action):
            return -1.0
        if t in ("attack", "resolve-attack", "add-attacker", "add-support", "strike"):
            return 2.0
        if t in ("move", "activate", "advance"):
            return 0.5
        return 0.0
