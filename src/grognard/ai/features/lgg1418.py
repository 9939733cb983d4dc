"""Features of La Grande Guerre 14-18 (``lgg1418``): objectives as its victory counts them.

The only import from the rule system's internals is here: ``mapdata.controller`` (who holds a
hex); the points are the generic reading of the scenario's objectives, which ``tests/ai`` checks
against the rule system's own ``victory.scores``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from grognard.ai.features.base import Features, hex_distance_gain, is_ending
from grognard.rulesets.lgg1418.map import mapdata

if TYPE_CHECKING:
    from grognard.core.game import Game


class LGGFeatures(Features):
    """LGG: objectives held (the scenario's points), printed attack, fire and defense; decoys
    and stacks are dealt out over the view's markers by the generic sampler."""

    # many small families (decoys, lifts, attachments) beside the marches: draw more, from
    # several units, and the marches twice a round
    width_scale = 1.5
    options_per_actor = 2
    draws_by_prior = True

    def owner(self, g: Game, i: int) -> str | None:
        return mapdata.controller(g, i)

    def value(self, p: Any, face: str | None = None) -> float:
        if p.type == "decoy":
            return 0.0
        return super().value(p, face)

    def advance(self, g: Game, side: str) -> float:
        """Minus the distance from each objective the side does not hold to its nearest corps
        (weighted by points, averaged), and half of how near every corps and army HQ is to its
        nearest such objective, summed (not averaged: each hex a corps marches counts, so a
        one-step evaluation sees it; the scenario's victory is the objectives held at the end)."""
        obs = self.objectives(g)
        targets = [i for i in obs if self.owner(g, i) != side]
        if not targets:
            return 0.0
        units: list[int] = []
        hqs: list[int] = []
        for p in g.state.pieces.values():
            if p.side != side:
                continue
            loc = g.state.where(p.id)
            if loc.kind != "hex":
                continue
            if p.type == "hq":
                hqs.append(int(loc.ref))
            elif p.type == "corps" and self.value(p) > 0 and self._mobile(p):
                units.append(int(loc.ref))
        if not units:
            return 0.0
        d = g.board.distance
        nearest = [min(d(u, t) for u in units) for t in targets]
        weights = [obs[t] for t in targets]
        pull = sum(n * w for n, w in zip(nearest, weights, strict=True)) / sum(weights)
        # every unit scores (reach - its distance): a hex marched counts, and a unit placed
        # (a reinforcement) never lowers the term
        reach = 2.0 * math.sqrt(g.board.n)  # about the map's diameter
        spread = sum(reach - min(d(u, t) for t in targets) for u in units + hqs)
        return 0.5 * spread - pull

    @staticmethod
    def _mobile(p: Any) -> bool:
        face = p.faces.get(p.face, {}) if isinstance(p.faces, Mapping) else {}
        mv = face.get("movement") if isinstance(face, Mapping) else None
        return not isinstance(mv, int | float) or mv > 0

    def option_key(self, g: Game, side: str, action: Mapping[str, Any]) -> float | None:
        """Moves and rail moves first towards the objectives the side does not hold (hexes
        gained by the first unit moved, LGG 8 / 11.4); other options unordered."""
        t = str(action.get("type", ""))
        to = action.get("to")
        units = action.get("units")
        if t not in ("move", "rail") or not isinstance(to, str) or not units:
            return None
        if not g.board.has_label(to):
            return None
        targets = [i for i in self.objectives(g) if self.owner(g, i) != side]
        if not targets:
            return None
        p = g.state.pieces.get(str(units[0]))
        if p is None or p.side != side:
            return None
        loc = g.state.where(p.id)
        if loc.kind != "hex":
            return None
        return hex_distance_gain(g, int(loc.ref), g.board.idx(to), targets)

    def prior(self, g: Game, side: str, action: Mapping[str, Any]) -> float:
        t = str(action.get("type", ""))
        if is_ending(action):
            return -1.0
        if t in ("move", "rail"):
            return 2.0
        if t in ("activate", "coordinate"):
            return 1.0
        if t in ("strategic-retreat", "reform"):
            return -2.0  # LGG 19 / 12: a retreat gives ground; only when it is worth more
        if t in ("place-decoy", "remove-decoy"):
            return -0.5
        return 0.0
