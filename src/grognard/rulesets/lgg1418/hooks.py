"""Hook points where the rules of later stages plug into the sequence of play.

The sequence of play (:mod:`.turn`, :mod:`.activation`) pushes a step with one of the names
below at the moment the seed gives for it, *if* the rule system has a step of that name
(listed in :data:`grognard.rulesets.lgg1418.ruleset.STEP_CLASSES`). Until then the sequence
goes on without it, which is what the rules say when nobody uses the option (nobody
intercepts, nobody reacts, nobody reinforces).
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
``end-of-military-turn``       30-F      when a side has ended its military turn on a front
                                         (after the opponent's reactions in that turn).
                                         Params: ``side``, ``front``
``activation-aftermath``       12-B,     after an activation's battles (returns of 14-C, sieges
                               14-C, 23  and siege actions of 23, the reform of 12-B, the
                                         great-retreat moment of 47.1-A). Params: ``side``,
                                         ``armies``, ``activation``, ``kind``
``great-russian-retreat``      47        for Russia at the start of its turn on the East front
                                         and after each German or Austro-Hungarian activation
                                         there (rule 47, not implemented). Params: ``side``,
                                         ``front``, ``moment``, ``activation`` (after one)
=============================  ========  ===================================================

Extension points inside steps of the sequence of play (registered by later rule modules
when they are imported; see :data:`MOVE_CHECKS`, :data:`END_MOVEMENT_CHECKS` and
:class:`ActivationChoiceActions` below).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

from grognard.rulesets.lgg1418.step import LggStep

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.core.sequence import Action
    from grognard.core.state import Frame, Piece

INTERCEPTION = "interception"
ENEMY_REINFORCEMENT = "enemy-reinforcement"
BATTLES = "army-battles"
REACTION = "reaction"
STRATEGIC_RETREAT = "strategic-retreat"
AUTONOMOUS_UNITS = "autonomous-units"
FINAL_PHASE_HOOKS = ("isolation-attrition", "fortress-surrender", "national-will-adjustment")
INTERPHASE_PROCEDURES = "interphase-procedures"
END_OF_MILITARY_TURN = "end-of-military-turn"
ISOLATION_ATTRITION = "isolation-attrition"
# Hooks of the operations rules (12-14, 19-23) that are not in ALL: their steps are part of the
# rule system itself (the test variant keeps the real ones).
AFTERMATH = "activation-aftermath"
GREAT_RETREAT = "great-russian-retreat"

ALL = (
    INTERCEPTION,
    ENEMY_REINFORCEMENT,
    BATTLES,
    REACTION,
    STRATEGIC_RETREAT,
    AUTONOMOUS_UNITS,
    *FINAL_PHASE_HOOKS,
    INTERPHASE_PROCEDURES,
    END_OF_MILITARY_TURN,
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


# ====================================================================== extension points
#: Extra checks of a move into a hex, called at the end of ``movement.check_move`` with
#: ``(g, act, members, j, mode, engage)`` (``members``: the moving units with what their
#: boxes carry; ``engage``: the hex holds an enemy stack marker). A check raises
#: :class:`~grognard.core.errors.IllegalAction` naming its rule, from what the mover may know.
MoveCheck = Callable[["Game", dict[str, Any], "list[Piece]", int, str, bool], None]

#: Extra checks of a rail move, called at the end of ``movement.check_rail`` (and by the listing
#: of rail destinations) with ``(g, act, members, goal)``; a check raises IllegalAction.
RailCheck = Callable[["Game", dict[str, Any], "list[Piece]", int], None]

#: Extra conditions for ending an activation's movement, called by the ``end-movement``
#: check with ``(g, act)``; each returns ``(rule id, reason)`` when movement may not end yet.
EndMovementCheck = Callable[["Game", dict[str, Any]], "tuple[str, str] | None"]


class ActivationChoiceActions(LggStep):
    """The choice of activation (``choose-activation``, :class:`.activation.ChooseActivation`) and
    the handlers later rules add to it: a rule's actions live in a subclass of this class (12-A
    ``reform``, 30 offensives), and the rule system's step combines them with the choice itself
    (:mod:`.ruleset`). A handler checks the armies it would activate with :meth:`check_armies`
    and hands them over with :meth:`activation_chosen`."""

    def check_armies(self, g: Game, f: Frame, action: Action, armies: list[str]) -> None:
        """Raise IllegalAction unless ``armies`` may be activated now."""
        raise NotImplementedError

    def activation_chosen(
        self, g: Game, f: Frame, action: Action, armies: list[str], extra: dict[str, Any]
    ) -> None:
        """The choice is made: activate ``armies`` (none: the choice ends without one) with the
        ``extra`` parameters of the activation."""
        raise NotImplementedError


class ReinforcementActions(LggStep):
    """One side's reinforcement work (``reinforcement-side``,
    :class:`.reinforcement.ReinforcementSide`) and the handlers later rules add to it (36.4
    ``combined-test``, 28-C GHQ artillery), combined in :mod:`.ruleset`. A later rule's check
    handler first calls :meth:`check_phase`."""

    def check_phase(self, g: Game, f: Frame, action: Action) -> None:
        """Raise IllegalAction when the phase takes no such action now (the moujiks must be
        chosen first, or only the scheduled reinforcements are placed on the first turn)."""


#: Extra facts for the ``lgg`` part of a side's view: callables ``(g, side) -> dict`` merged
#: into it by :func:`.fog.public_view`. Each must give ``side`` only what it may know.
ViewExtra = Callable[["Game", "str | None"], dict[str, Any]]


class Extensions(Protocol):
    """What the rule system's class declares for the extension points above, in order."""

    def move_checks(self) -> Sequence[MoveCheck]:
        """Extra checks of a move into a hex (called at the end of ``movement.check_move``)."""
        ...

    def rail_checks(self) -> Sequence[RailCheck]:
        """Extra checks of a rail move."""
        ...

    def end_movement_checks(self) -> Sequence[EndMovementCheck]:
        """Extra conditions for ending an activation's movement."""
        ...

    def view_extras(self) -> Sequence[ViewExtra]:
        """Extra facts for the ``lgg`` part of a side's view."""
        ...

    def reinforcement_hooks(self) -> Sequence[str]:
        """The steps the reinforcement phase pushes after both sides' work, in order (17.3-C
        markers, 16.4-I Siberians, 37-A tactic tests, 38-A Stosstruppen markers)."""
        ...


def extensions(g: Game) -> Extensions:
    """The extension points of the game's rule system (:class:`.ruleset.LaGrandeGuerre`)."""
    return cast("Extensions", g.ruleset)
