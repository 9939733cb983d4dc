"""The features' cached values equal fresh ones along played games (and their clones)."""

from __future__ import annotations

import random

import pytest

from grognard.ai.features import features_for
from grognard.bench.engine_probe import choose
from grognard.core.game import Game
from grognard.scenario import find


@pytest.mark.parametrize("scenario", ["gw-tutorial", "lgg-tutorial"])
def test_material_kept_per_side_equals_a_fresh_count(scenario: str) -> None:
    g = Game.new(find(scenario), 3)
    feats = features_for(g)
    rng = random.Random(3)
    for _ in range(60):
        if g.is_over():
            break
        kept = feats.material(g)
        c = g.clone()
        c.cache.reset()
        assert feats.material(c) == kept
        side = rng.choice(g.acting_sides())
        g.apply(choose(g.legal_actions(side), rng))
        assert feats.material(g.clone()) == feats.material(g)
