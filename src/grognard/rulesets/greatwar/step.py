"""The base of the Great War steps that wait for actions (OT 4C), no rule of its own beyond it.

A step handles each action type it accepts with handler methods (``@handles.check`` and
``@handles.apply`` from :mod:`grognard.core.sequence`); the action types are declared once in
:mod:`grognard.rulesets.greatwar.actions`. Listing stays the step's own :meth:`legal_actions`
(the order the players and the golden games see). An action of a type the step does not handle
is refused by OT 4C: activities happen only where the sequence of play allows them.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step
from grognard.core.state import Frame, Piece

if TYPE_CHECKING:
    from grognard.core.game import Game


class GWStep(Step):
    """A step whose action types each have a ``check`` and an ``apply`` handler."""

    refusal_rule = "OT 4C"

    @implements("OT 4C")
    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        """OT 4C: an action type this step does not handle (a step may word it its own way)."""
        raise IllegalAction(
            self.refusal_rule, f"{action['type']!r} is not allowed in the {self.label(g, f)}"
        )

    def check(self, g: Game, f: Frame, action: Action) -> None:
        h = self.handlers.get(str(action["type"]))
        if h is None or h.apply is None:
            self.refuse(g, f, action)
            return
        if h.check is not None:
            h.check(self, g, f, action)

    def apply(self, g: Game, f: Frame, action: Action) -> None:
        h = self.handlers.get(str(action["type"]))
        if h is None or h.apply is None:
            self.refuse(g, f, action)
            return
        h.apply(self, g, f, action)


class MovementExtension(Step):
    """Rules that add actions and effects to every movement step (engineering OT 13, depots and
    logistics items OT 11C1/11H, contested hexes OT 9J, devastation OT 15A, transport units OT 14O,
    breakdowns OT 15, water-only units OT 14B2). Each is a step class whose handlers the movement
    steps inherit (they list the extensions among their bases, :mod:`.movement_steps`) and whose
    hooks the movement rules call in the order of ``GreatWar.movement_extensions``; the defaults
    do nothing."""

    def extension_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        """The extension's actions offered in a movement step."""
        return []

    def on_enter(self, g: Game, f: Frame) -> None:
        """A movement step begins."""

    def on_end_phase(self, g: Game, f: Frame) -> None:
        """The player ends a movement step."""

    def move_problem(self, g: Game, f: Frame, p: Piece) -> str | None:
        """Why ``p`` may not move now (None: the extension does not forbid it)."""
        return None

    def movement_share(self, g: Game, p: Piece) -> Fraction | None:
        """The share of its rating ``p`` uses in reserve commitment and exploitation, when the
        extension sets it (None: the share of OT 6C / 6E)."""
        return None

    def allowance_deduction(self, g: Game, p: Piece) -> Fraction:
        """MPs deducted from ``p``'s movement rating before any halving or doubling."""
        return Fraction(0)

    def after_move(self, g: Game, f: Frame, pieces: Sequence[Piece], path: Sequence[int]) -> None:
        """Units just moved along ``path``."""


def extensions(g: Game) -> Sequence[MovementExtension]:
    """The rule system's movement extensions, in their order (``GreatWar.movement_hooks``)."""
    hooks: Sequence[MovementExtension] = getattr(g.ruleset, "movement_hooks", ())
    return hooks


class InitialExtension(Step):
    """Rules that add activities to the initial phase (supply depots and GSPs OT 11C, construction
    projects OT 13): a step class whose handlers the initial-phase step inherits and whose
    actions it lists, in the order of ``GreatWar.initial_extensions``."""

    def initial_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        """The extension's activities offered in the initial phase."""
        return []


def initial_extensions(g: Game) -> Sequence[InitialExtension]:
    """The rule system's initial-phase extensions, in their order (``GreatWar.initial_hooks``)."""
    hooks: Sequence[InitialExtension] = getattr(g.ruleset, "initial_hooks", ())
    return hooks
