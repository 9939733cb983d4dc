"""Features of Over There (``greatwar``): victory points as OT's scenario victory counts them
(the objectives of the scenario's ``[victory]`` owned on the control map: the generic reading,
which ``tests/ai`` checks against the rule system's own ``victory.points``, without validating
the scenario table at every evaluation)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from grognard.ai.features.base import Features, is_ending
from grognard.rulesets.greatwar.mechanics import gw_view

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.core.state import Piece


# what entering a hex of each terrain costs a non-c/m unit in clear weather (the TEC's "other"
# column), and crossing each hexside feature on top of it; any other terrain costs 1
HEX_COSTS = MappingProxyType(
    {
        "rough": 2.0,
        "woods": 2.0,
        "bocage": 2.0,
        "canal-intensive": 2.0,
        "forest": 3.0,
        "wooded-rough": 3.0,
        "mountain": 3.0,
        "swamp": 3.0,
        "ravines": 3.0,
        "karst": 3.0,
        "wooded-swamp": 4.0,
        "sand": 2.0,
        "salt-desert": 2.0,
        "permafrost-tundra": 3.0,
    }
)
PROHIBITED = frozenset({"glacier", "lake", "sea"})
SIDE_COSTS = MappingProxyType(
    {
        "river": 2.0,
        "canal": 2.0,
        "minor-river": 1.0,
        "minor-canal": 1.0,
        "major-river": 3.0,
        "major-river-unfordable": 4.0,
        "great-river-fordable": 4.0,
    }
)
SIDE_PROHIBITED = frozenset({"great-river", "lake", "sea", "prohibited", "impassable-escarpment"})
# the attack strength left attacking across a hexside feature (OT 9H, the TEC's combat columns)
SIDE_ATTACK = MappingProxyType(
    {
        "river": 0.5,
        "canal": 0.5,
        "major-river": 0.5,
        "mountain": 0.5,
        "major-river-unfordable": 0.25,
        "great-river-fordable": 0.25,
    }
)


class GreatWarFeatures(Features):
    """OT: objectives owned (the scenario's victory points), printed attack and defense; the
    planner also weighs the exposure of its objectives to the enemy's next move (OT's sudden
    death, e.g. gw-tutorial's Meaux and Soissons, ends a game at the end of any player turn)."""

    w_exposure = 0.5

    def own_turn(self, g: Game, side: str) -> bool:
        """The side is the phasing side (OT 4B): the sudden-death check at the end of its player
        turn (OT's victory) may end the game before the enemy's next player turn."""
        return gw_view(g).get("phasing") == side

    def enemy_turn_ahead(self, g: Game, side: str) -> bool:
        """No enemy player turn comes in the side's player turn of the last game turn when the
        enemy's player turn in it is over (the sides move in the scenario's order, which the
        scenario model checks is OT 4B's: the Entente first). The enemy's reaction
        phases within the side's turn are not the player turn :meth:`exposure` prices (only
        units near active Army HQs react)."""
        if not self.own_turn(g, side):
            return True  # the enemy's player turn (or none started yet)
        turn = g.state.turn if isinstance(g.state.turn, Mapping) else {}
        if int(turn.get("index", 0)) < len(g.scenario.data.turns):
            return True
        order = list(g.state.sides)
        return side not in order or any(s != side for s in order[order.index(side) + 1 :])

    def threat_allowance(self, p: Piece) -> float:
        """Twice the printed rating: accelerated movement doubles it (OT 6B3), and what a unit
        cannot reach in the movement phase it may still reach in the exploitation phase."""
        return 2.0 * self.move_allowance(p)

    def step_cost(self, g: Game, u: int, v: int) -> float | None:
        """The TEC's clear-weather cost of entering ``v`` from ``u`` (hex and hexside) for a
        non-c/m unit, roads and bridges not counted."""
        t = g.board.terrain_of(v)
        if t in PROHIBITED:
            return None
        cost = HEX_COSTS.get(t, 1.0)
        for feat in g.board.side_feature_list(g.board.side_between(u, v)):
            if feat in SIDE_PROHIBITED:
                return None
            cost += SIDE_COSTS.get(feat, 0.0)
        return cost

    def attack_factor(self, g: Game, u: int, v: int) -> float:
        """Halved across a river (quartered across the widest): OT 9H."""
        f = 1.0
        for feat in g.board.side_feature_list(g.board.side_between(u, v)):
            f = min(f, SIDE_ATTACK.get(feat, 1.0))
        return f

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
