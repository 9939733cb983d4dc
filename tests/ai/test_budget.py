"""The planner's budget per game turn: a small map's decisions get the full search, a big map's
share what the turn allows, and a new game turn starts a new budget."""

from __future__ import annotations

import random

import pytest

from grognard.ai.agents import BUDGET_PIECES, LEVELS, GreedyAgent, PlannerAgent
from grognard.ai.features import features_for
from grognard.core.game import Game
from grognard.scenario import find


def test_a_small_maps_first_decision_is_searched_in_full() -> None:
    g = Game.new(find("gw-tutorial"), 1)
    pl = PlannerAgent(1, "normal")
    assert pl.turn_budget(g) == LEVELS["normal"].turn_budget
    pl.choose(g, g.acting_sides()[0])
    assert pl.stats.limited == 0 and pl.stats.expansions > 0


def test_a_big_map_shares_a_smaller_budget_and_decisions_stay_within_it() -> None:
    g = Game.new(find("marne-1914"), 1)
    gr = GreedyAgent(1)
    while g.state.frames[-1].step != "ground-movement":
        g.apply(gr.choose(g, g.acting_sides()[0]))
    pl = PlannerAgent(1, "normal")
    on_map = sum(1 for p in g.state.pieces.values() if p.loc.kind == "hex")
    assert on_map > BUDGET_PIECES
    assert pl.turn_budget(g) == pytest.approx(LEVELS["normal"].turn_budget * BUDGET_PIECES / on_map)
    for _ in range(3):
        side = g.acting_sides()[0]
        g.apply(pl.choose(g, side))
    # a hundred units may still move: each decision keeps the one-step values of a few moves
    assert pl.stats.limited == 3
    assert pl.stats.expansions <= 3 * LEVELS["normal"].width * 2


def test_what_is_left_shrinks_with_spending_and_a_new_turn_starts_afresh() -> None:
    g = Game.new(find("gw-tutorial"), 1)
    pl = PlannerAgent(1, "normal")
    side = g.acting_sides()[0]
    first = pl.share(g, side, 4)
    pl.stats.expansions += 500
    assert pl.share(g, side, 4) == pytest.approx(first - 500 / 5)
    pl._turn = ("another turn", side)
    assert pl.share(g, side, 4) == first


def test_a_candidate_that_rolls_no_die_is_played_once_whatever_the_samples() -> None:
    """Without a roll the play depends on no die: other samples would end in the same
    position, so only their seeds are drawn (the decision's random stream is unchanged)."""
    g = Game.new(find("gw-tutorial"), 1)
    gr = GreedyAgent(1)
    while not any(x["type"] == "move" for x in g.legal_actions(g.acting_sides()[0])):
        g.apply(gr.choose(g, g.acting_sides()[0]))
    side = g.acting_sides()[0]
    a = next(x for x in g.legal_actions(side) if x["type"] == "move")
    pl = PlannerAgent(1, "normal")
    rng = random.Random(5)
    v = pl.after(g, side, a, features_for(g), rng, samples=3)
    assert pl.stats.expansions == 1
    twin = random.Random(5)
    for _ in range(2):
        twin.randrange(1, 2**62)
    assert rng.random() == twin.random()
    c = g.clone()
    c.apply(a)
    assert v == pl.value(c, side, features_for(g))  # the planner values by search_value
