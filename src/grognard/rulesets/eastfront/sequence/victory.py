"""Victory (EF 24.0, our design): the scenario's ``[victory]`` lists the hexes each side must
control at the end of the last turn; the Axis list is judged first; neither: a draw."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.eastfront.model import AXIS, SOVIET
from grognard.rulesets.eastfront.scenario_model import EFVictory

if TYPE_CHECKING:
    from grognard.core.game import Game


def victory_rules(g: Game) -> EFVictory:
    return EFVictory.model_validate(g.scenario.data.victory)


@implements("EF 24.0")
def decide(g: Game) -> None:
    """EF 24.0: who won at the end of the last turn."""
    v = victory_rules(g)
    for side, hexes in ((AXIS, v.axis), (SOVIET, v.soviet)):
        if hexes and all(g.state.control.get(g.board.idx(h)) == side for h in hexes):
            g.end_game(side, f"{side} holds {', '.join(hexes)}", "EF 24.0")
            return
    g.end_game(None, "neither side holds its objectives", "EF 24.0")
