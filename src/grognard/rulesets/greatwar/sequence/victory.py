"""Victory (the game-specific rules; the series rulebook leaves it to each scenario).

The scenario's ``[victory]`` table (validated by :class:`~.scenario_model.VictoryModel`):

* ``objectives``: hexes with victory points; at the end of the last game turn each side scores
  the points of the objectives it owns; a side ahead by at least ``margin`` (default 1) wins,
  otherwise the game is drawn;
* ``sudden_death``: a side that owns all the listed hexes at the end of any player turn wins at
  once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grognard.rulesets.greatwar.scenario_model import VictoryModel

if TYPE_CHECKING:
    from grognard.core.game import Game


def model(g: Game) -> Any:

    return VictoryModel.model_validate(g.scenario.data.victory)


def points(g: Game) -> dict[str, int]:
    """Victory points each side holds now (objectives it owns)."""
    out = {s: 0 for s in g.state.sides}
    for ob in model(g).objectives:
        owner = g.state.control.get(g.board.idx(ob.hex))
        if owner in out:
            out[owner] += ob.points
    return out


def end_of_game(g: Game) -> None:
    """After the last game turn: the side ahead on objectives by the margin wins."""
    if g.state.result is not None:
        return
    v = model(g)
    pts = points(g)
    ranked = sorted(pts.items(), key=lambda kv: (-kv[1], kv[0]))
    text = ", ".join(f"{s} {n}" for s, n in ranked)
    if len(ranked) >= 2 and ranked[0][1] - ranked[1][1] >= v.margin:
        g.end_game(
            ranked[0][0], f"victory points: {text}", "scenario victory conditions", points=pts
        )
    else:
        g.end_game(
            None,
            f"victory points: {text} (no side ahead by {v.margin})",
            "scenario victory conditions",
            points=pts,
        )


def sudden_death(g: Game) -> None:
    """At the end of a player turn: a side owning every hex of its sudden-death list wins."""
    if g.state.result is not None:
        return
    for sd in model(g).sudden_death:
        if all(g.state.control.get(g.board.idx(h)) == sd.side for h in sd.hexes):
            g.end_game(
                sd.side,
                f"sudden death: {sd.side} holds {', '.join(sd.hexes)}",
                "scenario victory conditions",
            )
            return
