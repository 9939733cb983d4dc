"""What Rules 14-16 do inside the movement steps (a movement extension): arrival marks (OT
16A1aa), siege candidates and sieges (OT 15G), corps ZOC disclosures (OT 14N2), devastation work
(OT 15A8), tank checks (OT 14C2) and isolated special replacements (OT 16B4b)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.greatwar import intelligence
from grognard.rulesets.greatwar.combat import siege, siege_relief
from grognard.rulesets.greatwar.logistics import reinforcements, replacements
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.movement import movement
from grognard.rulesets.greatwar.special_rules import (
    devastation_actions,
    devastation_problem,
    start_devastation_work,
)
from grognard.rulesets.greatwar.step import MovementExtension
from grognard.rulesets.greatwar.units import nations, special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game


class Rules14To16Extension(MovementExtension):
    """What Rules 14-16 do inside the movement-type steps: arrival marks (OT 16A1aa) and siege
    candidates (OT 15G) when a phase starts; corps ZOC disclosures (OT 14N2) and sieges after moves;
    devastation work (OT 15A8); tank checks (OT 14C2), siege checks and isolated special
    replacements (OT 16B4b) when the phase ends."""

    def on_enter(self, g: Game, f: Frame) -> None:

        reinforcements.apply_arrival_marks(g, f)
        if f.params.get("kind") == movement.MOVEMENT:
            siege.start_of_movement_phase(g, f.params["side"])
        else:
            gw(g).pop("siege_candidates", None)

    def extension_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return devastation_actions(g, f, side)

    @handles.check("devastate")
    def check_devastate(self, g: Game, f: Frame, action: Action) -> None:
        """OT 15A8: construction units start devastating a hex."""
        self._check_work(g, f, action, "devastate")

    @handles.check("repair-devastation")
    def check_repair(self, g: Game, f: Frame, action: Action) -> None:
        """OT 15A8: construction units start repairing a devastated hex."""
        self._check_work(g, f, action, "repair")

    @handles.apply("devastate")
    def apply_devastate(self, g: Game, f: Frame, action: Action) -> None:
        self._start_work(g, f, action, "devastate")

    @handles.apply("repair-devastation")
    def apply_repair(self, g: Game, f: Frame, action: Action) -> None:
        self._start_work(g, f, action, "repair")

    @implements("OT 15A8")
    def _check_work(self, g: Game, f: Frame, action: Action, kind: str) -> None:
        """OT 15A8: devastation work starts in the movement phase, by construction units that
        may still move."""

        if f.params.get("kind") != movement.MOVEMENT:
            raise IllegalAction("OT 15A8", "devastation work starts in the movement phase")
        h = action.get("hex")
        if not isinstance(h, str) or not g.board.has_label(h):
            raise IllegalAction("OT 15A8", f"no hex {h!r}")
        ps = [g.state.pieces.get(str(x)) for x in action.get("pieces", [])]
        if not ps or any(p is None for p in ps):
            raise IllegalAction("OT 15A8", "name the construction units in 'pieces'")
        for p in ps:
            assert p is not None
            why = movement.can_move_now(g, f, p)
            if why or f.params.get("units", {}).get(p.id, {}).get("moved"):
                raise IllegalAction("OT 15A8", why or f"{p.id} has moved this phase")
        why = devastation_problem(
            g, action["side"], g.board.idx(h), [p for p in ps if p is not None], kind
        )
        if why:
            raise IllegalAction("OT 15A8", why)

    def _start_work(self, g: Game, f: Frame, action: Action, kind: str) -> None:

        ps = [g.state.pieces[str(x)] for x in action["pieces"]]
        start_devastation_work(g, action["side"], g.board.idx(action["hex"]), ps, kind)
        for p in ps:
            movement.record(f, p, g)["done"] = True

    def after_move(self, g: Game, f: Frame, pieces: Sequence[Piece], path: Sequence[int]) -> None:

        if not pieces or not path:
            return
        dest = path[-1]
        intelligence.after_move(g, pieces, dest)  # type: ignore[arg-type]
        side = pieces[0].side
        c = gw(g).get("siege_candidates", {})
        if (
            c.get("side") == side
            and dest in c.get("hexes", [])
            and units.units_in_hex(g, dest, nations.other_side(side))
        ):
            siege.establish(g, side, dest)
        siege_relief.check_sieges(g)

    def on_end_phase(self, g: Game, f: Frame) -> None:

        special_units.end_of_phase_movement(g, f)
        siege_relief.check_sieges(g)
        replacements.settle_isolated_losses(g)
