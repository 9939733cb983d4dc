"""Hook points where the rules of later stages plug into the sequence of play.

The sequence of play (:mod:`.turn`, :mod:`.activation`) pushes a step with one of the names
below at the moment the seed gives for it, *if* the rule system has a step of that name
(a rule module adds its step classes to :data:`grognard.rulesets.lgg1418.ruleset.MODULES`
through its ``STEPS`` tuple). Until then the sequence goes on without it, which is what the
rules say when nobody uses the option (nobody intercepts, nobody reacts, nobody reinforces).
Each hook's frame parameters are listed; ids of the mover's units in them are for the rule
code only and must never be shown to the other side.

=============================  ========  ===================================================
step name                      rule      pushed
=============================  ========  ===================================================
``interception``               13        for the side whose ZoC a moving stack entered, after
                                         each hex entered other than by rail (8-A, 11.4-A).
                                         Params: ``side`` (interceptor), ``mover``, ``hex``
                                         (label), ``units`` (ids that entered), ``activation``
``enemy-reinforcement``        14        for the defender, after the activation's movement and
                                         attack declarations, when at least one hex holds both
                                         sides. Params: ``side``, ``attacker``, ``hexes``,
                                         ``activation``
``army-battles``               16-18     after the enemy reinforcement, when a hex holds both
                                         sides: resolve every battle of the activation, then
                                         retreats and breakthroughs. Params: ``side``,
                                         ``armies``, ``hexes``, ``activation``
``reaction``                   20        for the opponent, between two activations of the
                                         active side (after its first, before its next).
                                         Params: ``side`` (the reacting side), ``active``,
                                         ``front``
``strategic-retreat``          12, 19    at the start of each side's military turn on a front,
                                         before any activation. Params: ``side``, ``front``
``autonomous-units``           21        for each side after all fronts, at the end of the
                                         military phase. Params: ``side``
``isolation-attrition``        22        in the final phase. Params: none
``fortress-surrender``         23-E      in the final phase, before the national-will
                                         adjustments. Params: none
``national-will-adjustment``   25        in the final phase. Params: none
``interphase-procedures``      26, 40-45 in the interphase. Params: ``name``
=============================  ========  ===================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grognard.core.game import Game

INTERCEPTION = "interception"
ENEMY_REINFORCEMENT = "enemy-reinforcement"
BATTLES = "army-battles"
REACTION = "reaction"
STRATEGIC_RETREAT = "strategic-retreat"
AUTONOMOUS_UNITS = "autonomous-units"
FINAL_PHASE_HOOKS = ("isolation-attrition", "fortress-surrender", "national-will-adjustment")
INTERPHASE_PROCEDURES = "interphase-procedures"

ALL = (
    INTERCEPTION,
    ENEMY_REINFORCEMENT,
    BATTLES,
    REACTION,
    STRATEGIC_RETREAT,
    AUTONOMOUS_UNITS,
    *FINAL_PHASE_HOOKS,
    INTERPHASE_PROCEDURES,
)


def installed(g: Game, name: str) -> bool:
    """Does the rule system provide the step ``name``?"""
    return name in g.steps


def offer(g: Game, name: str, params: dict[str, Any]) -> bool:
    """Push hook step ``name`` when it is installed; return whether it was pushed."""
    if not installed(g, name):
        return False
    g.push(name, params)
    return True


def child(g: Game, name: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The hook as the next child of a composite step, or None when it is not installed."""
    return (name, params) if installed(g, name) else None
