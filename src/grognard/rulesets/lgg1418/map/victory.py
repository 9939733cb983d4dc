"""Scenario victory (not a rule of the seed: it prints no victory conditions, digest A-58).

A scenario may give ``[victory] objectives = { "0503" = 2, ... }`` (hex label -> points): at
the end of the last turn each side scores the objectives it controls; more points wins,
equal points is a draw. Without objectives the game ends without a winner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.scenario.model import Scenario


class VictoryDef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    objectives: dict[str, int] = Field(default_factory=dict)
    note: str = ""


def check(sc: Scenario) -> list[tuple[str, str]]:
    try:
        v = VictoryDef.model_validate(sc.data.victory)
    except ValidationError as e:
        return [(".".join(["victory", *map(str, err["loc"])]), err["msg"]) for err in e.errors()]
    return [
        (f"victory.objectives.{h}", "unknown hex")
        for h in v.objectives
        if not sc.board.has_label(h)
    ]


def scores(g: Game) -> dict[str, int]:
    v = VictoryDef.model_validate(g.scenario.data.victory)
    out = dict.fromkeys(M.SIDES, 0)
    for h, pts in v.objectives.items():
        owner = mapdata.controller(g, g.board.idx(h))
        if owner in out:
            out[owner] += pts
    return out


def decide(g: Game) -> None:
    """End the game after the last turn, with the scenario's objectives if it has any."""
    v = VictoryDef.model_validate(g.scenario.data.victory)
    if not v.objectives:
        g.end_game(None, "last turn played; the seed gives no victory conditions", "scenario")
        return
    s = scores(g)
    a, b = M.SIDES
    winner: str | None = a if s[a] > s[b] else b if s[b] > s[a] else None
    extra: dict[str, Any] = {"scores": s}
    g.end_game(winner, f"objectives held: {s}", "scenario", **extra)
