"""The memo tables that speed up the action listing (``listing``, ZOC maps, the location index,
per-position caches, the per-listing memo) never change what is listed: over random play, every
listing equals one made after forgetting every memo, and listed actions pass the step's check."""

from __future__ import annotations

import json
import random

import pytest

from grognard.core.cache import Cache
from grognard.core.game import Game
from grognard.scenario import find
from grognard.selfplay import random_choice

# memo tables kept with the state (derived values only); the game's own live in its core cache
STATE_MEMOS = ("_gw_loc_index",)


def forget_memos(g: Game) -> None:
    for k in STATE_MEMOS:
        g.state.__dict__.pop(k, None)
    # the core cache: ZOC maps, charts, static tables, listing memos, initial-phase supply
    g.cache = Cache()
    g.invalidate()


def fresh_listing(g: Game, side: str) -> list[dict]:
    """The listing of the same position with every memo forgotten."""
    forget_memos(g)
    return g.legal_actions(side)


def canon(actions: list[dict]) -> list[str]:
    return sorted(json.dumps(a, sort_keys=True, default=str) for a in actions)


def run(scenario: str, seed: int, agent_seed: int, steps: int, every: int = 1) -> int:
    g = Game.new(find(scenario), seed)
    rng = random.Random(agent_seed)
    compared = 0
    for n in range(steps):
        if g.is_over():
            break
        side = rng.choice(g.acting_sides())
        listed = g.legal_actions(side)
        if n % every == 0:
            again = g.legal_actions(side)  # a second listing of the same position, from the memos
            fresh = fresh_listing(g, side)
            assert canon(again) == canon(listed), (
                f"action {len(g.actions)}: a repeated listing differs"
            )
            assert canon(fresh) == canon(listed), (
                f"action {len(g.actions)} in {g.phase_path()[-1]}: memoised listing differs from a"
                f" fresh one: only memoised {sorted(set(canon(listed)) - set(canon(fresh)))[:3]},"
                f" only fresh {sorted(set(canon(fresh)) - set(canon(listed)))[:3]}"
            )
            compared += 1
            step, frame = g.current()  # type: ignore[misc]
            by_type: dict[str, list[dict]] = {}
            for a in listed:
                by_type.setdefault(a["type"], []).append(a)
            for t in sorted(by_type):  # one listed action of each type passes the step's own check
                a = rng.choice(by_type[t])
                step.check(g, frame, dict(a))
        g.apply(random_choice(g, side, listed, rng))
    return compared


@pytest.mark.rules("OT 6", "OT 7A", "OT 5A")
def test_ot_6_memoised_listings_equal_fresh_ones_tutorial() -> None:
    assert run("gw-tutorial", 11, 5, 300) > 100


@pytest.mark.rules("OT 6", "OT 7A", "OT 5A")
def test_ot_6_memoised_listings_equal_fresh_ones_marne() -> None:
    assert run("marne-1914", 3, 7, 160, every=2) > 50
