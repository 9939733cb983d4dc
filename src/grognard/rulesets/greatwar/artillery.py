"""OT 12 (artillery): support, the movement effects of artillery types, and the bombardment segment.

Implemented: which units are supported (OT 12A), used by ZOCs (OT 5A) and overruns (OT 6F1);
the disruption of heavy, siege and heavy siege artillery after they move (OT 12B2-12B4).

:class:`BombardmentSegment` is the bombardment segment of the combat phase (OT 4A3, OT 12C).
Bombardment is not implemented yet: the segment is a real step of the sequence whose only
action is ending it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.sequence import Action, Step
from grognard.core.state import Frame, Piece
from grognard.rulesets.greatwar import calendar, units

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("OT 12A")
def intrinsically_supported(p: Piece) -> bool:
    """OT 12A: divisional units (except those with the unsupported indicator or a printed combat
    strength of 0), all artillery units and units with the self-supported indicator are supported."""
    if units.is_artillery(p):
        return True
    ind = units.support_indicator(p)
    if ind == "self":
        return True
    return units.is_divisional(p) and ind != "unsupported" and units.printed_combat_strength(p) > 0


@implements("OT 12A")
def provides_support(p: Piece) -> bool:
    """OT 12A: a supported unit supports the unsupported units with it, unless it is only
    self-supported; a disrupted unit provides no support (OT 3A5)."""
    return intrinsically_supported(p) and units.support_indicator(p) != "self" and units.can_support(p)


@implements("OT 12A")
def is_supported(g: Game, p: Piece, companions: Sequence[Piece] | None = None) -> bool:
    """OT 12A: supported intrinsically or by a supporting unit in the same hex.

    ``companions`` are the units that may support it (defending: the units stacked with it;
    attacking: the units stacked with it that take part in the same attack). By default, every
    friendly unit in its hex.
    """
    if intrinsically_supported(p):
        return True
    if companions is None:
        h = units.hex_of(g, p)
        if h is None:
            return False
        companions = [q for q in units.units_in_hex(g, h, p.side)]
    return any(q.id != p.id and provides_support(q) for q in companions)


@implements("OT 12B2", "OT 12B3", "OT 12B4")
def disruption_after_movement(g: Game, p: Piece, phase_kind: str) -> None:
    """Artillery that moves in a movement or reaction movement phase is disrupted on completing
    its movement: non-German heavy artillery before Feb I 17 (OT 12B2); siege artillery always
    (OT 12B3); heavy siege artillery badly if non-Austro-Hungarian/German before Feb I 17, else
    disrupted (OT 12B4)."""
    from grognard.rulesets.greatwar.nations import is_german, rulebook_name

    if phase_kind not in ("movement", "reaction"):
        return
    kind = units.utype(p).artillery
    german = is_german(g, p)
    ah_or_german = german or rulebook_name(g, p.nation) in ("Austria-Hungary",)
    if kind == "heavy" and not german and calendar.before(g, "Feb I 17"):
        units.disrupt(g, p, rule="OT 12B2", reason="heavy artillery moved")
    elif kind == "siege":
        units.disrupt(g, p, rule="OT 12B3", reason="siege artillery moved")
    elif kind == "heavy-siege":
        badly = (not ah_or_german) and calendar.before(g, "Feb I 17")
        units.disrupt(g, p, badly=badly, rule="OT 12B4", reason="heavy siege artillery moved")


class BombardmentSegment(Step):
    """OT 4A3 / OT 12C: the bombardment segment of the combat phase (phasing player bombards,
    then the non-phasing player counter-bombards). Bombardment is not implemented yet: the only
    action is ending the segment."""

    name = "bombardment-segment"
    title = "Bombardment segment"
    rule = "OT 12C"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["attacker"]]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return [{"type": "end-phase", "side": side}]

    def check(self, g: Game, f: Frame, action: Action) -> None:
        from grognard.rulesets.greatwar.sequence import reject_unless

        reject_unless(self, g, f, action, ("end-phase",))

    def apply(self, g: Game, f: Frame, action: Action) -> None:
        g.emit("segment", f"{action['side']} ends the bombardment segment", rule="OT 12C")
        g.finish(f)

    def label(self, g: Game, f: Frame) -> str:
        return f"Bombardment segment ({f.params['attacker']})"
