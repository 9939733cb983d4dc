"""Where a basic rule sets off, or asks, a rule built on it (no rule of its own).

The basic rules (units, ownership, terrain, rail lines, replacements, supply) are imported by the
rules built on them, so they do not import those rules back: they call the rule system object,
which knows every rule of the system (:class:`~grognard.rulesets.greatwar.ruleset.GreatWar`
implements :class:`Reactions`). A variant changes what reacts by overriding these methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.core.state import Piece


class Reactions(Protocol):
    """What the rule system does when a basic rule sets something off or asks."""

    def unit_eliminated(self, g: Game, p: Piece, rule: str) -> None:
        """A unit goes to the eliminated box (OT 16B2, 16B4: its replacement pool)."""

    def leader_to_pool(self, g: Game, leader: Piece, why: str) -> None:
        """A leader leaves play for the leader pool (OT 14P)."""

    def hex_captured(self, g: Game, i: int, old: str, new: str) -> None:
        """A hex passes from one side to the other (OT 7A5f rail yards, OT 11C1 depots)."""

    def owner_changed(self, g: Game, i: int, old: str | None, new: str) -> None:
        """A hex has a new owner (OT 15B fortifications, OT 16C11 local drafts)."""

    def ownership_updated(self, g: Game) -> None:
        """Every ownership gain of the moment is applied (OT 13 abandoned projects)."""

    def is_flooded(self, g: Game, i: int) -> bool:
        """OT 15A6: hex ``i`` is flooded (swamp) this player turn."""
        ...

    def pontoon_prevents_disruption(self, g: Game, side: str, s: int) -> bool:
        """OT 13: a pontoon bridge on hexside ``s`` spares ``side``'s units the disruption."""
        ...

    def ferry_usable(self, g: Game, side: str, u: int, v: int) -> bool:
        """OT 15A3: the rail ferry from ``u`` to ``v`` may be used by ``side``."""
        ...

    def fortress_unimproved(self, g: Game, i: int, why: str) -> None:
        """OT 15B: the fortress in hex ``i`` becomes unimproved."""

    def initial_phase_supply_done(self, g: Game, side: str) -> None:
        """The initial phase's supply work is over (OT 13 construction projects progress)."""

    def game_turn_started(self, g: Game) -> None:
        """A new game turn's reinforcement phase begins (OT 15A8 devastation work)."""

    def unified_command(self, g: Game, side: str) -> None:
        """OT 15E: the side rolls for unified command."""


def reactions(g: Game) -> Reactions:
    """The rule system of ``g`` as the object that reacts (a Great War rule system)."""
    return cast(Reactions, g.ruleset)
