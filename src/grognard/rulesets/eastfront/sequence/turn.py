"""The game turn (EF 3.0): the turn track, the two player turns, the interphase.

Each player turn is an explicit list of phases per side (:attr:`PlayerTurn.phases`); the
module fixes its own pieces of the order: Soviet units load for an Amphibious Assault in the
Motorized Movement Phase and Axis units in the Movement Phase, each "the friendly movement
phase before the Combat Phase" (NM 28.12a, NM 30.1); Soviet supporters from sea return in the
Soviet Movement Phase after the Combat Phase (NM 29.1); the Axis Reaction Phase follows the
Soviet Motorized Movement Phase (NM 31.2). So the Axis player turn runs Movement, Combat,
Motorized Movement, and the Soviet player turn Motorized Movement, Combat, Movement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from grognard.core.rules import implements
from grognard.core.sequence import Sequence_, Step, TurnTrack
from grognard.core.state import Frame
from grognard.rulesets.eastfront.model import AXIS, SOVIET, ef, other, params
from grognard.rulesets.eastfront.movement.reinforcements import arrive
from grognard.rulesets.eastfront.naval.evacuation import interphase
from grognard.rulesets.eastfront.scenario_model import rules
from grognard.rulesets.eastfront.sequence.victory import decide
from grognard.rulesets.eastfront.weather import weather

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("EF 3.0", "EF 16.0")
class GameTurns(TurnTrack):
    """EF 3.0: one game turn per entry of the scenario's track; then EF 24.0 judges it.

    Rules: EF 3.0, EF 16.0.
    """

    name = "ef-game"
    title = "Game"
    rule = "EF 3.0"
    turn_step = "ef-turn"

    def start_turn(self, g: Game, index: int, turn: Any) -> None:
        g.emit("turn", f"turn {turn.label} begins ({weather(g)})", rule="EF 3.0")

    def end_of_game(self, g: Game) -> None:
        decide(g)


@implements("EF 3.0")
class Turn(Sequence_):
    """EF 3.0: the first side's player turn, the other's, then the interphase."""

    name = "ef-turn"
    title = "Game turn"
    rule = "EF 3.0"

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        first = rules(g).first
        return [
            ("player-turn", {"side": first}),
            ("player-turn", {"side": other(first)}),
            ("interphase", {}),
        ]


@implements("EF 3.0")
class PlayerTurn(Sequence_):
    """EF 3.0: the phases of one side's player turn, in its side's order."""

    name = "player-turn"
    title = "Player turn"
    rule = "EF 3.0"
    phases: ClassVar[dict[str, tuple[tuple[str, dict[str, Any]], ...]]] = {
        AXIS: (
            ("naval-readiness", {}),
            ("air-interdiction", {}),
            ("supply-status", {}),
            ("movement", {"kind": "movement"}),
            ("reaction", {}),
            ("combat", {}),
            ("movement", {"kind": "motorized"}),
            ("engineering", {}),
        ),
        SOVIET: (
            ("naval-readiness", {}),
            ("air-interdiction", {}),
            ("supply-status", {}),
            ("movement", {"kind": "motorized"}),
            ("reaction", {}),
            ("combat", {}),
            ("movement", {"kind": "movement"}),
            ("engineering", {}),
        ),
    }

    def label(self, g: Game, f: Frame) -> str:
        return f"{params(f)['side']} player turn"

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        return [(n, dict(p)) for n, p in self.phases[params(f)["side"]]]

    def enter(self, g: Game, f: Frame) -> None:
        ef(g).active = params(f)["side"]
        arrive(g, params(f)["side"])


@implements("EF 3.0", "NM 28.2", "NM 30.24")
class Interphase(Step):
    """EF 3.0: the Game-Turn Interphase: evacuation markers and Do Not Move 1 markers come off
    (NM 28.2); the no-movement mark of assault units lapses (NM 30.24f)."""

    name = "interphase"
    title = "Game-Turn Interphase"
    rule = "EF 3.0"

    def run(self, g: Game, f: Frame) -> None:
        interphase(g)
        for p in g.state.pieces.values():
            if "assaulted" in p.status:
                p.status.discard("assaulted")
        g.finish(f)
