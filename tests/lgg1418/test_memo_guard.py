"""Guard for the memoised derived values of lgg1418 (ZoCs, supply, rail networks, listings).

The per-position memo (:func:`grognard.rulesets.lgg1418.model.memo`, in the core cache, with
its assumed worlds), the per-board tables of
:func:`grognard.rulesets.lgg1418.map.mapdata.static` (some keyed by weather and alignment) and the
core :meth:`Game.cached` must never give a stale answer: along a random game of the Western
Front 1914, the legal actions listed with every memo in place must equal a listing computed
from scratch (every memo, per-board table and the core cache dropped) in the same position,
along random games of the Western Front 1914 and of the tutorial.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from grognard.core.cache import Cache
from grognard.core.game import Game
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import knowledge
from grognard.rulesets.lgg1418.supply import supply
from grognard.scenario import find
from grognard.selfplay import random_choice


def _forget_everything(g: Game) -> None:
    g.invalidate()
    # the core cache: position, tracked, keyed and held values, and the board's static tables
    # (a fresh cache does not see the board's)
    g.cache = Cache()


def _fresh_listing(g: Game, side: str) -> list[dict]:
    saved_cache = g.cache
    _forget_everything(g)
    try:
        return g.legal_actions(side)
    finally:
        # put the warm tables back, so that the game goes on with the memos it had built
        g.invalidate()
        g.cache = saved_cache


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


def _world_answers(g: Game, side: str) -> tuple[dict[str, tuple[bool, bool]], Any]:
    """Per corps of ``side`` on the map: (may be supplied, may be unisolated) as the side may
    know, and the real supply report, all from the game's cache as it is."""
    answers = {
        p.id: (supply.may_be_supplied(g, p), supply.may_be_unisolated(g, p, "pr"))
        for p in sorted(M.iter_units(g, side), key=lambda p: p.id)
        if M.is_corps(p) and M.hex_of(g, p) is not None
    }
    return answers, dataclasses.asdict(supply.supply_report(g, side))


def test_lgg_4_a_assumed_worlds_equal_fresh_computations_along_a_random_game() -> None:
    """LGG 4-A / 9: the values computed under an assumption about hidden enemy units (the worlds
    of :func:`knowledge.may_be_true`, kept in the core cache next to the real ones and shared with
    them when they do not read the assumed blocking hexes) equal a fresh computation, and never
    leak into the real position's answers; :func:`knowledge.may_be_true` answers exactly as
    ``supply_as_known(...) != "no"``."""
    g = Game.new(find("lgg-west-1914"), seed=11)
    rng = random.Random(5)
    compared = with_unknown = 0
    for step in range(90):
        if g.is_over():
            break
        side = rng.choice(g.acting_sides())
        warm = g.legal_actions(side)  # fills the cache, worlds included
        if step % 7 == 0:
            for s in M.SIDES:
                got = _world_answers(g, s)
                saved = g.cache
                g.cache = Cache()
                try:
                    fresh = _world_answers(g, s)
                    g.cache = Cache()
                    known = {
                        p.id: (
                            knowledge.supply_as_known(g, s, lambda p=p: supply.is_supplied(g, p))
                            != "no"
                            and p.id not in knowledge.cut(g, s, "supply"),
                            knowledge.supply_as_known(
                                g, s, lambda p=p: not supply.is_isolated(g, p, "pr")
                            )
                            != "no"
                            and p.id not in knowledge.cut(g, s, "isolation"),
                        )
                        for p in sorted(M.iter_units(g, s), key=lambda p: p.id)
                        if M.is_corps(p) and M.hex_of(g, p) is not None
                    }
                    with_unknown += bool(knowledge.unknown_markers(g, s))
                finally:
                    g.cache = saved
                assert got == fresh, f"stale world value after {len(g.actions)} actions ({s})"
                assert got[0] == known, f"may_be_true differs after {len(g.actions)} actions"
                compared += 1
        g.apply(random_choice(g, side, warm, rng))
    assert compared >= 24
    assert with_unknown >= 12  # the worlds were exercised
