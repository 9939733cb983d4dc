"""OT 4: the sequence of play.

The game is a series of game turns read from the scenario's turn track; each game turn is the
Entente player turn, then the Central Powers player turn (OT 4, 4B). A player turn is six
phases (OT 4A): Initial, Movement, Combat (bombardment segment, combat segment), Reaction
Movement, Reaction Combat, Exploitation. Each phase delegates its work to the module of the
rule that governs it:

=========================  ==============================================================
step                       work
=========================  ==============================================================
``initial-phase``          ``initial-start`` (automatic: disruption recovery OT 3A5,
                           isolation OT 3G, general supply OT 11B, Army HQs OT 14M1, rail
                           ledger OT 3C4/7A5, deterioration OT 7A5g), then
                           ``initial-actions`` (rail building/transfers OT 7A5b/7A5d)
``movement-phase``         ``ground-movement`` (:mod:`.movement`, :mod:`.rail`,
                           :mod:`.rivers`, :mod:`.overrun`, :mod:`.stacking`)
``combat-phase``           isolation (OT 3G), ``bombardment-segment`` (:mod:`.artillery`),
                           ``combat-segment`` (:mod:`.combat`)
``reaction-movement-phase``  ``reaction-movement`` (:mod:`.movement`, OT 6D, 14M1)
``reaction-combat-phase``  isolation (OT 3G), ``combat-segment`` with roles reversed
``exploitation-phase``     ``exploitation-movement`` (:mod:`.movement`, OT 6E)
=========================  ==============================================================

Naval movement (OT 26 / 27) and air missions (OT B17 / A17) have no steps yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.core.sequence import Action, Sequence_, Step, handles
from grognard.core.state import Frame
from grognard.rulesets.greatwar.combat import artillery, combat
from grognard.rulesets.greatwar.map import zoc
from grognard.rulesets.greatwar.mechanics import gw, marker
from grognard.rulesets.greatwar.movement import rail, stacking, water_only
from grognard.rulesets.greatwar.movement.movement import STRATEGIC
from grognard.rulesets.greatwar.sequence import victory
from grognard.rulesets.greatwar.step import GWStep, initial_extensions
from grognard.rulesets.greatwar.supply import isolation, supply
from grognard.rulesets.greatwar.units import nations, special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game


def phasing(g: Game) -> str:
    return str(gw(g).get("phasing", ""))


@implements("OT 4")
class GameTurns(Step):
    """OT 4: one game turn (half a month) per entry of the scenario's turn track; at the end the
    victory conditions are judged."""

    name = "game"
    title = "Game"
    rule = "OT 4"
    composite = True

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        turns = g.scenario.data.turns
        i = int(f.params.get("next", 0))
        if i >= len(turns):
            victory.end_of_game(g)
            return None
        f.params["next"] = i + 1
        t = turns[i]
        g.state.turn = {"index": i + 1, "label": t.label}
        w = t.attrs.get("weather", "clear")
        g.emit("turn", f"game turn {t.label} begins (weather: {w})", rule="OT 4", weather=w)
        return "game-turn", {}


@implements("OT 4", "OT 4B")
class GameTurn(Sequence_):
    """OT 4 / 4B: the Entente player turn, then the Central Powers player turn."""

    name = "game-turn"
    title = "Game turn"
    rule = "OT 4"

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        return [("player-turn", {"side": s}) for s in nations.SIDES]

    def label(self, g: Game, f: Frame) -> str:
        return f"Game turn {g.turn_label()}"


@implements("OT 4A", "OT 4B")
class PlayerTurn(Sequence_):
    """OT 4A: the six phases of a player turn; OT 4B: its player is the phasing player."""

    name = "player-turn"
    title = "Player turn"
    rule = "OT 4A"
    children = (
        "initial-phase",
        "movement-phase",
        "combat-phase",
        "reaction-movement-phase",
        "reaction-combat-phase",
        "exploitation-phase",
    )

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']} player turn"

    def enter(self, g: Game, f: Frame) -> None:
        gw(g)["phasing"] = f.params["side"]
        g.emit(
            "player-turn", f"{f.params['side']} player turn", rule="OT 4B", side=f.params["side"]
        )

    def leave(self, g: Game, f: Frame) -> None:
        for p in g.state.of_side(f.params["side"]):
            p.status.discard(STRATEGIC)
        victory.sudden_death(g)


class Phase(Sequence_):
    """A phase of the player turn: sets the phase name and passes the phasing side on; at its end
    the rules that act at the end of every phase run (:meth:`phase_end`)."""

    phase_key = ""

    def enter(self, g: Game, f: Frame) -> None:
        gw(g)["phase"] = self.phase_key
        f.params.setdefault("side", phasing(g))

        water_only.phase_start(g, self.phase_key)  # OT 14B2: gunboats on interdicted hexsides

    def leave(self, g: Game, f: Frame) -> None:
        self.phase_end(g)

    def phase_end(self, g: Game) -> None:
        """At the end of every phase: the bombardment marks after a combat phase (OT 12C),
        contested hexes and overstack exits (OT 9J, 8C2)."""

        artillery.phase_end(g, self.phase_key)
        combat.phase_end(g, self.phase_key)

    def label(self, g: Game, f: Frame) -> str:
        return f"{self.title} ({f.params.get('side', phasing(g))})"


@implements("OT 4A1")
class InitialPhase(Phase):
    """OT 4A1: the initial phase -- automatic start-of-phase work, then the phasing player's
    initial-phase activities."""

    name = "initial-phase"
    title = "Initial phase"
    rule = "OT 4A1"
    phase_key = "initial"
    children = ("initial-start", "initial-special", "reinforcement", "initial-actions")

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        side = f.params["side"]
        out = [(c, {"side": side}) for c in self.children]
        # OT 16B3d: the other player may rebuild cadres and remnants in this initial phase too.
        out.insert(3, ("reinforcement", {"side": nations.other_side(side), "rebuild_only": True}))
        return out

    def leave(self, g: Game, f: Frame) -> None:
        supply.end_of_initial_phase(g)
        super().leave(g, f)


@implements("OT 4A1", "OT 3A5", "OT 14M1")
class InitialStart(Step):
    """OT 4A1: at the start of the initial phase -- the phasing player's units recover from
    disruption (OT 3A5; not in a contested hex, OT 9J); both players judge isolation (OT 3G) and
    general supply (OT 11B); the phasing player's inactive Army HQs turn active (OT 14M1); his rail
    capacity starts a new turn (OT 3C4, 7A5c, 7A5f) and is checked for deterioration (OT 7A5g)."""

    name = "initial-start"
    title = "Start of the initial phase"
    rule = "OT 4A1"

    def run(self, g: Game, f: Frame) -> None:

        side = f.params["side"]
        for p in units.on_map_units(g, side):
            h = units.hex_of(g, p)
            if h is not None and marker(g, "contested", h):
                continue
            units.recover(g, p)
        isolation.check_isolation(g, "start of the initial phase")
        supply.determine_general_supply(g)
        special_units.reactivate_hqs(g, side)
        rail.new_player_turn(g, side)
        rail.deterioration_checks(g, side)

        zoc.update_ownership(g)
        g.finish(f)


class InitialActions(GWStep):
    """OT 4A1: the phasing player's initial-phase activities: permanent rail capacity building
    (OT 7A5b) and capacity transfers (OT 7A5d, interpretation default: done in the initial phase),
    and those of the initial-phase extensions (supply depots and GSPs, OT 11C; construction
    projects, OT 13), whose handlers the step of :func:`step_classes` inherits. Skipped when the
    player has nothing to do."""

    name = "initial-actions"
    title = "Initial phase activities"
    rule = "OT 4A1"

    def enter(self, g: Game, f: Frame) -> None:
        f.params["skip"] = not self._options(g, f)

    def _options(self, g: Game, f: Frame) -> list[Action]:
        out = rail.res_pt_actions(g, f.params["side"], "initial")
        for ext in initial_extensions(g):
            out.extend(ext.initial_actions(g, f, f.params["side"]))
        return out

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [] if f.params.get("skip") else [f.params["side"]]

    def label(self, g: Game, f: Frame) -> str:
        return f"Initial phase activities ({f.params['side']})"

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return [*self._options(g, f), {"type": "end-phase", "side": side}]

    @handles.apply("end-phase")
    def apply_end(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.check("rail-build")
    def check_build(self, g: Game, f: Frame, action: Action) -> None:
        """OT 7A5b: Res Pts spent on permanent rail capacity."""
        rail.check_build(g, action)

    @handles.apply("rail-build")
    def apply_build(self, g: Game, f: Frame, action: Action) -> None:
        rail.apply_build(g, action)

    @handles.check("rail-transfer")
    def check_transfer(self, g: Game, f: Frame, action: Action) -> None:
        """OT 7A5d: rail capacity moved between rail-connected nets."""
        rail.check_transfer(g, action)

    @handles.apply("rail-transfer")
    def apply_transfer(self, g: Game, f: Frame, action: Action) -> None:
        rail.apply_transfer(g, action)


@implements("OT 4A2")
class MovementPhase(Phase):
    """OT 4A2: the phasing player moves his ground units (naval movement has no step yet)."""

    name = "movement-phase"
    title = "Movement phase"
    rule = "OT 4A2"
    phase_key = "movement"

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        return [("ground-movement", {"side": f.params["side"], "kind": "movement"})]


@implements("OT 4A3")
class CombatPhase(Phase):
    """OT 4A3: isolation is judged (OT 3G); the phasing player bombards (the defender then
    counter-bombards) and attacks."""

    name = "combat-phase"
    title = "Combat phase"
    rule = "OT 4A3"
    phase_key = "combat"

    def enter(self, g: Game, f: Frame) -> None:
        super().enter(g, f)
        isolation.check_isolation(g, "start of the combat phase")

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        side = f.params["side"]
        return [
            ("open-cities", {"sides": [side, nations.other_side(side)]}),  # OT 15A9
            ("bombardment-segment", {"attacker": side}),
            (
                "combat-segment",
                {"attacker": side, "defender": nations.other_side(side), "reaction": False},
            ),
        ]

    def leave(self, g: Game, f: Frame) -> None:

        supply.end_of_segment(g, "combat")
        stacking.record_phase_end(g, "combat phase")
        super().leave(g, f)


@implements("OT 4A4")
class ReactionMovementPhase(Phase):
    """OT 4A4: the reacting (non-phasing) player moves units in the ZOI of Army HQs that pass
    their activation checks (naval movement has no step yet)."""

    name = "reaction-movement-phase"
    title = "Reaction movement phase"
    rule = "OT 4A4"
    phase_key = "reaction-movement"

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        return [
            (
                "reaction-movement",
                {"side": nations.other_side(f.params["side"]), "kind": "reaction"},
            )
        ]


@implements("OT 4A5")
class ReactionCombatPhase(Phase):
    """OT 4A5: like the combat phase with attacker and defender reversed, no bombardment, and only
    units in the ZOI of an active friendly Army HQs may attack."""

    name = "reaction-combat-phase"
    title = "Reaction combat phase"
    rule = "OT 4A5"
    phase_key = "reaction-combat"

    def enter(self, g: Game, f: Frame) -> None:
        super().enter(g, f)
        isolation.check_isolation(g, "start of the reaction combat phase")

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        side = f.params["side"]
        return [
            ("open-cities", {"sides": [nations.other_side(side), side]}),  # OT 15A9
            (
                "combat-segment",
                {"attacker": nations.other_side(side), "defender": side, "reaction": True},
            ),
        ]

    def leave(self, g: Game, f: Frame) -> None:

        supply.end_of_segment(g, "combat")
        stacking.record_phase_end(g, "reaction combat phase")
        super().leave(g, f)


@implements("OT 4A6")
class ExploitationPhase(Phase):
    """OT 4A6: the phasing player moves by exploitation movement (naval movement has no step
    yet)."""

    name = "exploitation-phase"
    title = "Exploitation phase"
    rule = "OT 4A6"
    phase_key = "exploitation"

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        return [("exploitation-movement", {"side": f.params["side"], "kind": "exploitation"})]
