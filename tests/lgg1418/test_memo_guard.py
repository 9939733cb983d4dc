"""Guard for the memoised derived values of lgg1418 (ZoCs, supply, rail networks, listings).

The per-position memo (:func:`grognard.rulesets.lgg1418.model.memo`), the per-board tables of
:func:`grognard.rulesets.lgg1418.map.mapdata.static` (some keyed by weather and alignment) and the
core :meth:`Game.cached` must never give a stale answer: along a random game of the Western
Front 1914, the legal actions listed with every memo in place must equal a listing computed
from scratch (every memo, per-board table and the core cache dropped) in the same position,
along random games of the Western Front 1914 and of the tutorial.
"""

from __future__ import annotations

import random

from grognard.core.cache import Cache
from grognard.core.game import Game
from grognard.scenario import find
from grognard.selfplay import random_choice


def _forget_everything(g: Game) -> None:
    g.invalidate()
    g.cache = Cache()  # the core cache too (position, tracked and keyed values)
    g.state.__dict__.pop("_lgg_memo", None)
    g.board.__dict__.pop("_lgg_static", None)


def _fresh_listing(g: Game, side: str) -> list[dict]:
    saved_memo = g.state.__dict__.get("_lgg_memo")
    saved_static = g.board.__dict__.get("_lgg_static")
    saved_cache = g.cache
    _forget_everything(g)
    try:
        return g.legal_actions(side)
    finally:
        # put the warm tables back, so that the game goes on with the memos it had built
        g.invalidate()
        g.cache = saved_cache
        g.state.__dict__.pop("_lgg_memo", None)
        if saved_memo is not None:
            g.state.__dict__["_lgg_memo"] = saved_memo
        if saved_static is not None:
            g.board.__dict__["_lgg_static"] = saved_static


def _compare_along(
    scenario: str, seed: int, agent_seed: int, steps: int, undo_every: int
) -> tuple[int, set[str]]:
    """Play a random game; every other position, the warm listing must equal a fresh one.
    Returns how many were compared and the steps they were in."""
    g = Game.new(find(scenario), seed=seed)
    rng = random.Random(agent_seed)
    compared = 0
    phases: set[str] = set()
    for step in range(steps):
        if g.is_over():
            break
        side = rng.choice(g.acting_sides())
        warm = g.legal_actions(side)
        if step % 2 == 0:
            fresh = _fresh_listing(g, side)
            assert warm == fresh, (
                f"stale listing after {len(g.actions)} actions ({g.phase_path()[-1]})"
            )
            compared += 1
            phases.add(g.current()[1].step)
        g.apply(random_choice(g, side, warm, rng))
        if step % undo_every == 0 and g.can_undo():
            g.undo()
    return compared, phases


def test_memoised_listings_equal_fresh_ones_along_a_random_west_1914_game() -> None:
    compared, phases = _compare_along("lgg-west-1914", 11, 5, 150, 25)
    assert compared >= 60
    assert {"activation-movement", "reinforcement-side"} <= phases, phases


def test_memoised_listings_equal_fresh_ones_along_a_random_tutorial_game() -> None:
    compared, _ = _compare_along("lgg-tutorial", 3, 7, 120, 30)
    assert compared >= 30
