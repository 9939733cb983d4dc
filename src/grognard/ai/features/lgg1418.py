"""Features of La Grande Guerre 14-18 (``lgg1418``): objectives as its victory counts them.

The only imports from the rule system's internals are here: ``mapdata.controller`` (who holds a
hex), the ``besieged`` status of a fortress (LGG 23-D) and the scenario's calendar (is this its
last turn?); the points are the generic reading of
the scenario's objectives, which ``tests/ai`` checks against the rule system's own
``victory.scores``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from grognard.ai.features.base import Features, distances, hex_distance_gain, is_ending
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.map.zoc import BESIEGED

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

    #: the planner values a march by the activation it ends in (LGG 3-C: an activation's
    #: battles are fought after all its movement) and an activation by its whole course
    horizons: ClassVar[Mapping[str, str]] = {
        "activation-movement": "army-activation",
        "choose-activation": "choose-activation",
    }

    #: share of an objective fortress's points credited to its besieger (LGG 23-D: a siege can
    #: end in surrender, LGG 23-E), and more once the fortress is reduced or neutralised (23-F)
    siege_credit = 0.35
    reduced_credit = 0.15
    neutralized_credit = 0.2

    def owner(self, g: Game, i: int) -> str | None:
        return mapdata.controller(g, i)

    def siege_progress(self, g: Game) -> dict[str, float]:
        """Points each side is on its way to: a share of every objective whose enemy fortress it
        besieges (LGG 23-D), or will besiege once the battle's aftermath is done (its corps
        stand in the won hex, beside the fortress, with no enemy corps outside it, and not
        cavalry alone); larger once the fortress is reduced or neutralised (LGG 23-F, 23-G). A
        one-step evaluation then sees the siege that keeping infantry in a won fortress hex
        begins, rather than sending every corps to its HQ's reserve, and the siege fire that
        reduces the fortress."""
        out = dict.fromkeys(g.state.sides, 0.0)
        for i, pts in self.objectives(g).items():
            here = g.state.at_hex(i)
            for q in here:
                if q.type != "fortress":
                    continue
                besieger = self._besieger(g, i, q, here)
                if besieger not in out:
                    continue
                share = self.siege_credit
                if q.face == "reduced":
                    share += self.reduced_credit
                if "neutralized" in q.status:
                    share += self.neutralized_credit
                out[besieger] += share * pts
        return out

    @staticmethod
    def _besieger(g: Game, i: int, fort: Any, here: list[Any]) -> str | None:
        """The side besieging the fortress ``fort`` in hex ``i`` (the siege marker), or about
        to: corps of the other side standing in the hex (not in a reserve), not all cavalry,
        and no corps of the fortress's side outside it."""
        if BESIEGED in fort.status:
            mk = g.state.marker("siege", g.board.label(i))
            return mk.get("side") if isinstance(mk, Mapping) else None
        corps = [q for q in here if q.type == "corps"]
        if any(q.side == fort.side for q in corps):
            return None
        attackers = [q for q in corps if q.side != fort.side]
        if not attackers or all(q.attrs.get("arm") == "cavalry" for q in attackers):
            return None
        return str(attackers[0].side)

    def evaluate(self, g: Game, side: str) -> float:
        """The generic evaluation, plus the sieges' progress towards objectives (weighted as
        victory points)."""
        v = super().evaluate(g, side)
        if g.state.result is not None:
            return v
        prog = self.siege_progress(g)
        return v + self.w_vp * (prog.get(side, 0.0) - sum(x for s, x in prog.items() if s != side))

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
        dist = distances(g, units + hqs, targets)  # the corps' rows first, then the HQs'
        weights = np.array([obs[t] for t in targets])
        pull = float((dist[: len(units)].min(axis=0) * weights).sum() / weights.sum())
        # every unit scores (reach - its distance): a hex marched counts, and a unit placed
        # (a reinforcement) never lowers the term
        reach = 2.0 * math.sqrt(g.board.n)  # about the map's diameter
        spread = float((reach - dist.min(axis=1)).sum())
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
        if t == "siege-fire":
            return 1.0  # LGG 23-F: fire first; an assault may follow whatever the result
        if t == "assault":
            return self._assault_prior(g, action)
        return 0.0

    def _assault_prior(self, g: Game, action: Mapping[str, Any]) -> float:
        """LGG 23-G: assault a neutralised fortress (it surrenders if it must fight itself);
        otherwise the attacker takes a "2" every round and a failed assault ends the siege
        (LGG 23-D), whose surrender tests (LGG 23-E) are worth waiting for: only on the
        scenario's last turn, when no test is left, is a full-strength fortress assaulted."""
        hx = action.get("hex")
        if isinstance(hx, str) and g.board.has_label(hx):
            for q in g.state.at_hex(g.board.idx(hx)):
                if q.type == "fortress" and "neutralized" in q.status:
                    return 1.5
        last = M.scenario_turns(g)[-1].index if M.scenario_turns(g) else None
        return 0.5 if last is not None and M.turn_index(g) >= last else -2.0
