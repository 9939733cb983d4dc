"""The planner's exposure term: what the side's objectives risk at the enemy's next move."""

from __future__ import annotations

from grognard.ai.agents import GreedyAgent, PlannerAgent
from grognard.ai.features import features_for
from grognard.ai.features.base import take_chance
from grognard.core.game import Game
from grognard.core.state import Loc
from grognard.scenario import find

# gw-tutorial: the French screen east of Meaux (0405) and the units in it
SCREEN = ("fr-14d", "fr-63rd", "fr-55rd", "fr-1cd", "fr-hart")


def _tutorial() -> Game:
    return Game.new(find("gw-tutorial"), 1)


def test_take_chance_rises_with_the_odds() -> None:
    assert take_chance(0.0, 5.0) == 0.0
    assert take_chance(1.0, 0.0) == 1.0
    assert take_chance(5.0, 10.0) == 0.0
    assert 0.0 < take_chance(10.0, 10.0) < take_chance(20.0, 10.0) < 1.0
    assert take_chance(40.0, 10.0) == 1.0


def test_screened_meaux_is_not_exposed_and_an_empty_crouy_is() -> None:
    g = _tutorial()
    feats = features_for(g)
    meaux, crouy = g.board.idx("0405"), g.board.idx("0603")
    # at the start the French screen (0504-0506) keeps the Germans from Meaux; Crouy is empty
    # with the Jager battalion next to it across the Ourcq
    assert feats.exposure(g, "Entente") == feats.stake(g, "Entente", crouy)
    # Meaux is the last hex of the Central Powers' sudden death (they hold Soissons): its stake
    # is the whole game's points
    assert feats.stake(g, "Entente", meaux) == 2 * feats.w_vp * 6
    assert feats.stake(g, "Entente", crouy) == 2 * feats.w_vp * 1


def test_meaux_left_to_its_headquarters_is_exposed() -> None:
    g = _tutorial()
    feats = features_for(g)
    meaux = g.board.idx("0405")
    before = feats.exposure(g, "Entente")
    # the screen and the artillery march off to the west edge: Meaux keeps only its HQs
    for k, pid in enumerate(SCREEN):
        g.state.move(pid, Loc.hex(g.board.idx(f"01{k + 1:02d}")))
    after = feats.exposure(g, "Entente")
    assert after - before >= feats.stake(g, "Entente", meaux)
    # the planner's evaluation sees it; the greedy's is the plain evaluation
    loss = feats.w_exposure * feats.stake(g, "Entente", meaux)
    assert feats.search_value(g, "Entente") <= feats.evaluate(g, "Entente") - loss
    assert GreedyAgent(1).value(g, "Entente", feats) == feats.evaluate(g, "Entente")
    assert PlannerAgent(1).value(g, "Entente", feats) == feats.search_value(g, "Entente")


def test_a_garrison_lowers_the_exposure() -> None:
    g = _tutorial()
    feats = features_for(g)
    for k, pid in enumerate(SCREEN):
        g.state.move(pid, Loc.hex(g.board.idx(f"01{k + 1:02d}")))
    bare = feats.exposure(g, "Entente")
    for pid in ("fr-14d", "fr-63rd", "fr-55rd"):
        g.state.move(pid, Loc.hex(g.board.idx("0405")))
    assert feats.exposure(g, "Entente") < bare
