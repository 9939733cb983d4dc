"""The supply values kept across positions (the side's blocking and costs, the overland traces,
the ZOC signatures: ``Cache.keyed`` and memos on the state, issue 12) always equal a computation
from scratch: along random games, every time one is read during an action, it is compared with
one computed with the caches cleared."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from grognard.core.cache import Cache
from grognard.core.game import Game
from grognard.rulesets.greatwar.map import zoc
from grognard.rulesets.greatwar.supply import supply
from grognard.scenario import find
from grognard.selfplay import random_choice


def _same_dynamic(a: supply._Dynamic, b: supply._Dynamic) -> bool:
    return all(
        np.array_equal(getattr(a, f), getattr(b, f))
        for f in ("enterable", "friendly", "road_ok", "overland")
    )


def uncached(g: Game, f: Any, *args: Any) -> Any:
    """``f(*args)`` computed with an empty core cache (the game's own is put back after)."""
    kept = g.cache
    g.cache = Cache()
    try:
        return f(*args)
    finally:
        g.cache = kept


class Checker:
    """Wraps the cached readers: each answer is compared with a fresh one."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.checked = {"dynamic": 0, "overland": 0, "zoc": 0, "rail": 0}
        keyed_dynamic = supply._keyed_dynamic
        keyed_overland = supply._keyed_overland
        signature = zoc.zoc_signature
        keyed_rail = supply._keyed_rail_graph

        def dyn(g: Game, side: str) -> supply._Dynamic:
            got = keyed_dynamic(g, side)
            fresh = uncached(g, supply._build_dynamic, g, side)
            assert got.key == supply._dynamic_key(g, side)
            assert _same_dynamic(got, fresh), f"supply blocking of {side} differs from a fresh one"
            self.checked["dynamic"] += 1
            return got

        def over(g: Game, side: str, src: tuple[int, ...], element: str) -> Any:
            got = keyed_overland(g, side, src, element)
            fresh = supply._overland_trace(g, side, src, element)
            assert np.array_equal(got[0], fresh[0]) and np.array_equal(got[1], fresh[1]), (
                f"overland trace of {side} from {src} differs from a fresh one"
            )
            self.checked["overland"] += 1
            return got

        def sig(g: Game, side: str) -> tuple[object, ...]:
            got = signature(g, side)
            assert got == uncached(g, signature, g, side)
            self.checked["zoc"] += 1
            return got

        def rail(g: Game, side: str, nation: str, naval: bool) -> supply.RailGraph:
            got = keyed_rail(g, side, nation, naval)
            fresh = supply._rail_graph(g, side, nation, naval)
            assert all(
                np.array_equal(getattr(got, f), getattr(fresh, f))
                for f in ("edges", "cost", "blocked")
            ), f"rail graph of {side}/{nation} differs from a fresh one"
            assert (got.links, got.ports) == (fresh.links, fresh.ports)
            self.checked["rail"] += 1
            return got

        monkeypatch.setattr(supply, "_keyed_rail_graph", rail)
        monkeypatch.setattr(supply, "_keyed_dynamic", dyn)
        monkeypatch.setattr(supply, "_keyed_overland", over)
        monkeypatch.setattr(zoc, "zoc_signature", sig)


def play(scenario: str, seed: int, steps: int) -> Game:
    g = Game.new(find(scenario), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if g.is_over():
            break
        side = rng.choice(g.acting_sides())
        g.apply(random_choice(g, side, g.legal_actions(side), rng))
        if not g.state.markers.get("flooded"):
            for s in g.state.sides:
                src = supply.regular_sources(g, s)
                assert supply.overland_reach(g, s, src) == supply._overland_reach_by_hex(g, s, src)
    return g


@pytest.mark.parametrize(
    ("scenario", "seed", "steps"), [("marne-1914", 1, 70), ("gw-tutorial", 3, 120)]
)
def test_cached_supply_equals_fresh(
    monkeypatch: pytest.MonkeyPatch, scenario: str, seed: int, steps: int
) -> None:
    ch = Checker(monkeypatch)
    play(scenario, seed, steps)
    assert ch.checked["dynamic"] > 0 and ch.checked["overland"] > 0 and ch.checked["zoc"] > 0
