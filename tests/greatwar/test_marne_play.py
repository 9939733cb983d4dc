"""Marne 1914 played through the rule code: the first turn's movement (regular moves with their
reach, rail moves and capacity, the out-of-play command, undo) for both sides."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.game import Game
from grognard.rulesets.greatwar.movement import movement, rail
from grognard.rulesets.greatwar.units import units
from grognard.scenario import find

EN = "Entente"
CP = "Central Powers"
NW = "NW Europe Standard Gauge"


def new_game(seed: int = 1) -> Game:
    return Game.new(find("marne-1914"), seed=seed)


def step(g: Game) -> str:
    return g.state.frames[-1].step


PASSING = ("end-phase", "done", "decline", "pass")


def end_until(g: Game, step_name: str, side: str, limit: int = 60) -> None:
    """End phases and decline choices (as the side that must act) until ``side`` acts in step
    ``step_name``."""
    for _ in range(limit):
        if step(g) == step_name and g.acting_sides() == [side]:
            return
        actor = g.acting_sides()[0]
        try:
            g.apply({"type": "end-phase", "side": actor})
        except IllegalAction:
            legal = g.legal_actions(actor)
            g.apply(
                next((a for a in legal if a["type"] in PASSING), legal[0])
            )  # e.g. place a reinforcement
    raise AssertionError(f"never reached {step_name} for {side}: {g.phase_path()}")


def hex_of(g: Game, pid: str) -> str:
    h = units.hex_of(g, g.state.pieces[pid])
    assert h is not None
    return g.board.label(h)


@pytest.mark.rules("OT 6", "OT 7B")
def test_marne_first_entente_moves_with_reach() -> None:
    g = new_game()
    end_until(g, "ground-movement", EN)
    reach = {g.board.label(h): c for h, c in movement.reachable(g, ["fr-45di"]).items()}
    assert reach["1409"] == 1 and reach["1310"] == 1  # along the railways (roads, OT 7B)
    assert max(reach.values()) <= 5 and "1610" not in reach  # Meaux is German and held
    before = g.state_hash()
    g.apply({"type": "move", "side": EN, "piece": "fr-45di", "to": "1409"})
    assert hex_of(g, "fr-45di") == "1409"
    assert movement.spent(movement.current_move_frame(g), g.state.pieces["fr-45di"]) == 1
    g.undo()
    assert g.state_hash() == before and hex_of(g, "fr-45di") == "1410"
    # the British I Corps closes up to the 5th Army's left: two hexes along the Paris-Troyes railway
    g.apply({"type": "move", "side": EN, "piece": "gb-1d", "path": ["1612"]})
    assert hex_of(g, "gb-1d") == "1612"


@pytest.mark.rules("OT 7A2", "OT 7A4")
def test_marne_entente_rail_move_uses_capacity() -> None:
    g = new_game()
    end_until(g, "ground-movement", EN)
    f = movement.current_move_frame(g)
    assert f is not None
    cap = rail.available(g, EN, NW)
    dests = rail.rail_destinations(g, f, g.state.pieces["fr-81dt"], 50)
    path = [g.board.label(h) for h in dests[g.board.idx("1410")]]
    assert path[0] == "1407" and path[-1] == "1410"
    g.apply(
        {"type": "rail-move", "side": EN, "piece": "fr-81dt", "kind": "operational", "path": path}
    )
    assert hex_of(g, "fr-81dt") == "1410"
    assert rail.available(g, EN, NW) == cap - 3  # a territorial division is 3 RE (OT 3A3)
    assert movement.spent(f, g.state.pieces["fr-81dt"]) == Fraction(1)
    with pytest.raises(IllegalAction):  # Metz is on the German net: no Entente capacity there
        g.apply(
            {
                "type": "rail-move",
                "side": EN,
                "piece": "fr-72dr",
                "kind": "operational",
                "path": ["2509", "2609"],
            }
        )


@pytest.mark.rules("OT 3F")
def test_marne_units_may_not_enter_the_lorraine_front() -> None:
    g = new_game()
    end_until(g, "ground-movement", EN)
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "move", "side": EN, "piece": "fr-73dr", "to": "2711"})
    assert e.value.rule == "OT 3F"
    assert "2711" not in {g.board.label(h) for h in movement.reachable(g, ["fr-73dr"])}


@pytest.mark.rules("OT 4A", "OT 6")
def test_marne_first_german_moves() -> None:
    g = new_game()
    end_until(g, "ground-movement", CP)
    assert g.turn_label() == "Sep I 14"
    reach = {g.board.label(h) for h in movement.reachable(g, ["de-7rd"])}
    assert "1609" in reach and "1510" not in reach  # the 6th Army holds Claye
    g.apply({"type": "move", "side": CP, "piece": "de-7rd", "to": "1609"})
    g.apply({"type": "move", "side": CP, "piece": "de-22rd", "to": "1609"})
    assert hex_of(g, "de-7rd") == hex_of(g, "de-22rd") == "1609"
    corps = g.state.pieces["de-4rk"]
    g.apply({"type": "move", "side": CP, "piece": corps.id, "to": "1609"})
    assert hex_of(g, "de-4rk") == "1609"
