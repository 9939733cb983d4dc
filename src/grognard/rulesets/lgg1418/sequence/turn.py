"""The sequence of play (LGG 3-C): the campaign's turns and the phases of a turn.

Game: the entry-into-war phase on the first turn if the scenario lists entries (3-A), then
each calendar turn from the scenario's first to its last. A pre-turn (3-B) is only a military
phase for the listed armies. Every other turn:

1. events phase - skipped in August 1914 (3-C); the seed gives no event deck (digest A-48),
   so the phase only marks its place;
2. reinforcement phase (5);
3. initiative and weather phase (6-B, 7; fixed in August 1914, 3-C);
4. naval phase (hook for rules 48-51, :mod:`.naval`);
5. military phase (:mod:`.activation`);
6. final phase - skipped in August 1914 (3-C); otherwise it runs the final-phase hooks
   (isolation attrition 22, fortress surrender 23-E, national will 25) when installed;
7. the interphase, after the turns the calendar marks (hook for rules 26 and 40-45).

At the start of each turn the per-turn records (activations, reactions, coordinations, rail
capacity used, observations, battle markers) are reset.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.core.sequence import Sequence_, Step, TurnTrack
from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.data import CalendarTurn
from grognard.rulesets.lgg1418.map import victory
from grognard.rulesets.lgg1418.military import campaign
from grognard.rulesets.lgg1418.model import scenario_turns
from grognard.rulesets.lgg1418.units import fog

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("LGG 3-C")
def start_turn(g: Game, t: CalendarTurn) -> None:
    """Make ``t`` the current turn and reset the per-turn records."""
    s = M.st(g)
    s["initiative_prev"] = {**s.get("initiative_prev", {}), **s.get("initiative", {})}
    s["initiative"] = {}
    s["first_mover"] = {}
    s["weather"] = {}
    for key in (
        "activated",
        "reaction_activated",
        "reacted",
        "coordinated",
        "rail_used",
        "side_turns",
        "restorations",
    ):
        s[key] = {}
    s["turn_id"] = t.id
    g.state.turn = {"index": t.index, "label": t.label, "id": t.id}
    fog.clear_observations(g)
    g.state.clear_markers("battle")
    M.touch(g)
    g.emit("turn", f"turn {t.label} begins", rule="LGG 3-C", turn=t.id)


@implements("LGG 3-A", "LGG 3-B", "LGG 3-C")
class CampaignGame(TurnTrack):
    """LGG 3-A / 3-B / 3-C: the whole game, turn after turn (the core's turn track over the
    scenario's calendar turns), after the entry into the war, then the scenario's victory check."""

    name = "lgg-game"
    title = "La Grande Guerre 14-18"
    rule = "LGG 3-C"
    turn_step = "game-turn"

    def turns(self, g: Game) -> Sequence[Any]:
        return scenario_turns(g)

    def turn_record(self, g: Game, index: int, turn: Any) -> dict[str, Any]:
        return {"index": turn.index, "label": turn.label, "id": turn.id}

    def start_turn(self, g: Game, index: int, turn: Any) -> None:
        start_turn(g, turn)

    def end_of_game(self, g: Game) -> None:
        victory.decide(g)

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        if not f.params.get("entered_war"):
            f.params["entered_war"] = True
            if M.rules(g).entry_into_war:
                return "entry-into-war", {}
        child = super().next_child(g, f)
        if child is not None and M.current_turn(g).pre_turn:
            return "pre-turn", {}  # 3-B: the pre-turn has its own sequence
        return child


@implements("LGG 3-C")
class GameTurn(Sequence_):
    """LGG 3-C: the phases of a turn, in order, and the interphase when one falls after it."""

    name = "game-turn"
    title = "Turn"
    rule = "LGG 3-C"

    def label(self, g: Game, f: Frame) -> str:
        return M.current_turn(g).label

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        kids: list[tuple[str, dict[str, Any]]] = [
            ("events-phase", {}),
            ("reinforcement-phase", {}),
            ("initiative-weather", {}),
            ("naval-phase", {}),
            ("military-phase", {}),
            ("final-phase", {}),
        ]
        ip = interphase_after(g, M.current_turn(g))
        if ip:
            kids.append(("interphase", {"name": ip}))
        return kids


def interphase_after(g: Game, t: CalendarTurn) -> str:
    """The interphase following turn ``t`` (option ``interphase-cadence``, digest A-2), or ""."""
    if not t.interphase:
        return ""
    if g.opt("interphase-cadence") == "winter-only" and t.interphase != "winter":
        return ""
    return t.interphase


@implements("LGG 3-C")
class EventsPhase(Step):
    """LGG 3-C: the events phase - ignored in August 1914; the seed gives no event deck (A-48)."""

    name = "events-phase"
    title = "Events phase"
    rule = "LGG 3-C"

    def run(self, g: Game, f: Frame) -> None:
        if campaign.is_august_1914(g):
            g.emit("phase", "events phase: ignored in August 1914", rule="LGG 3-C")
        g.finish(f)


@implements("LGG 3-C")
class FinalPhase(Step):
    """LGG 3-C: the final phase - ignored in August 1914; otherwise the final-phase hooks run."""

    name = "final-phase"
    title = "Final phase"
    rule = "LGG 3-C"
    composite = True

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        if campaign.is_august_1914(g):
            if not f.params.get("noted"):
                f.params["noted"] = True
                g.emit("phase", "final phase: ignored in August 1914", rule="LGG 3-C")
            return None
        todo = [h for h in hooks.FINAL_PHASE_HOOKS if hooks.installed(g, h)]
        i = int(f.params.get("_i", 0))
        if i >= len(todo):
            return None
        f.params["_i"] = i + 1
        return todo[i], {}


@implements("LGG 3-C")
class Interphase(Step):
    """LGG 3-C / 26: the interphase following a turn (hook for the economic, political and
    diplomatic rules 26 and 40-45, not implemented yet)."""

    name = "interphase"
    title = "Interphase"
    rule = "LGG 26"
    composite = True

    def label(self, g: Game, f: Frame) -> str:
        return f"Interphase ({f.params['name']})"

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        if f.params.get("done"):
            return None
        f.params["done"] = True
        g.emit("interphase", f"{f.params['name']} interphase", rule="LGG 26", name=f.params["name"])
        return hooks.child(g, hooks.INTERPHASE_PROCEDURES, {"name": f.params["name"]})


STEPS: tuple[type[Step], ...] = (CampaignGame, GameTurn, EventsPhase, FinalPhase, Interphase)
