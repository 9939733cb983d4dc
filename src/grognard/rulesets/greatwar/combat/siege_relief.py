"""OT 15G: the end of sieges -- lifting them and the retreat of the sieging units from a lifted
siege (the state of sieges and what it forbids is in :mod:`.siege`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar.combat import retreat
from grognard.rulesets.greatwar.combat.siege import sieges
from grognard.rulesets.greatwar.map import geography, zoc
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.step import GWStep
from grognard.rulesets.greatwar.units import special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.greatwar.record import SiegeCandidates


@implements("OT 15G")
def check_sieges(g: Game) -> None:
    """OT 15G: lift sieges that end: every sieging unit has left the hex (or no besieged unit is
    left), or a unit of the besieged side occupies an adjacent hex -- then the sieging units in the
    hex must retreat at once (step ``siege-retreat``)."""
    for key in sorted(sieges(g), key=int):
        s = sieges(g).get(key)
        if s is None or s.get("retreating"):
            continue
        i = int(key)
        sieging = units.units_in_hex(g, i, s["sieging"])
        besieged = units.units_in_hex(g, i, s["besieged"])
        if not sieging or not besieged:
            lift(g, i, "the sieging units have left" if not sieging else "no besieged unit is left")
            continue
        if any(units.units_in_hex(g, j, s["besieged"]) for j in geography.adjacent_hexes(g, i)):
            s["retreating"] = "yes"
            g.emit(
                "siege",
                f"a {s['besieged']} unit next to {g.board.label(i)} lifts the siege: the sieging"
                " units retreat",
                rule="OT 15G",
            )
            g.push("siege-retreat", {"side": s["sieging"], "hex": g.board.label(i)})


def lift(g: Game, i: int, why: str) -> None:
    sieges_ = gw(g).setdefault("sieges", {})
    if sieges_.pop(str(i), None) is not None:
        g.emit(
            "siege",
            f"the siege of {g.board.label(i)} is lifted ({why})",
            rule="OT 15G",
            hex=g.board.label(i),
        )

        zoc.update_ownership(g)


@implements("OT 15G")
class SiegeRetreat(GWStep):
    """OT 15G: a siege lifted by a relieving unit: the sieging player retreats each of his units out
    of the besieged hex, one hex by the priorities of OT 9F2 (the owner chooses among equally good
    hexes); a unit with no retreat hex is eliminated. Then the siege ends."""

    name = "siege-retreat"
    title = "Retreat from a lifted siege"
    rule = "OT 15G"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [] if f.done else [f.params["side"]]

    def label(self, g: Game, f: Frame) -> str:
        return f"Retreat from the siege of {f.params['hex']} ({f.params['side']})"

    def _units(self, g: Game, f: Frame) -> list[Piece]:
        return sorted(
            units.units_in_hex(g, g.board.idx(f.params["hex"]), f.params["side"]),
            key=lambda p: p.id,
        )

    def _options(self, g: Game, f: Frame, p: Piece) -> list[int]:

        i = g.board.idx(f.params["hex"])
        out = []
        for c in retreat.retreat_step_options(g, p, i, i):
            j = c.hexes[0]
            if special_units.retreat_problem(g, p, i, j) is None:
                out.append(j)
        return out

    def enter(self, g: Game, f: Frame) -> None:
        self._settle(g, f)

    def _settle(self, g: Game, f: Frame) -> None:

        for p in self._units(g, f):
            why = special_units.retreat_eliminates(g, p)
            if why or not self._options(g, f, p):
                units.eliminate(g, p, "OT 15G", why or "no retreat hex from the lifted siege")
        if not self._units(g, f):
            lift(g, g.board.idx(f.params["hex"]), "relieved")
            g.finish(f)

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return [
            {"type": "retreat", "side": side, "piece": p.id, "to": g.board.label(j)}
            for p in self._units(g, f)
            for j in self._options(g, f, p)
        ]

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction("OT 15G", "the sieging units must retreat first")

    @handles.check("retreat")
    def check_retreat(self, g: Game, f: Frame, action: Action) -> None:
        """OT 15G: a sieging unit retreats one hex by the priorities of OT 9F2."""
        pid = action.get("piece")
        p = next((q for q in self._units(g, f) if q.id == pid), None)
        if p is None:
            raise IllegalAction("OT 15G", f"{pid!r} is not a sieging unit in {f.params['hex']}")
        to = action.get("to")
        if (
            not isinstance(to, str)
            or not g.board.has_label(to)
            or g.board.idx(to) not in self._options(g, f, p)
        ):
            raise IllegalAction("OT 9F2", f"{to!r} is not an allowed retreat hex for {pid}")

    @handles.apply("retreat")
    def apply_retreat(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["piece"]]
        g.state.move(p.id, Loc.hex(g.board.idx(action["to"])))
        g.emit(
            "retreat",
            f"{p.id} retreats from the siege to {action['to']}",
            rule="OT 15G",
            piece=p.id,
            to=action["to"],
        )
        self._settle(g, f)


def candidates_param(g: Game) -> SiegeCandidates:
    return gw(g).get("siege_candidates", {})
