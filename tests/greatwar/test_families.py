"""The movement steps offer their legal actions as lazy families (OT 6 one-hex moves and rests,
OT 7A rail moves unit by unit): the families flatten to exactly the listed actions, each actor's
options are the listed actions of that actor, and the possible actors include every actor that
has an option."""

from __future__ import annotations

import random

import pytest

from grognard.bench.engine_probe import choose
from grognard.core import serial
from grognard.core.game import Game
from grognard.core.sequence import families_of_list
from grognard.scenario import find

LAZY = {"move", "rest", "rail-move"}


def _compare(g: Game, side: str) -> int:
    listed = g.legal_actions(side)
    fams = g.families(side)
    flat = [a for fam in fams for a in fam.all()]
    assert sorted(map(serial.canonical, flat)) == sorted(map(serial.canonical, listed))
    grouped = {fam.type: fam for fam in families_of_list(g, listed)}
    seen = 0
    for fam in fams:
        exact = grouped.get(fam.type)
        if exact is None:
            assert not fam.all()
            continue
        assert set(exact.actors()) <= set(fam.actors())
        if fam.type not in LAZY:
            assert fam.actors() == exact.actors()
        for actor in exact.actors():
            assert fam.options(actor) == exact.options(actor)
            seen += 1
    # the types come in the order of the listing
    order = [fam.type for fam in fams if fam.all()]
    assert order == list(grouped)
    return seen


@pytest.mark.rules("OT 6", "OT 7A")
@pytest.mark.parametrize("scenario", ["gw-tutorial", "marne-1914"])
def test_ot_6_ot_7a_movement_families_flatten_to_the_listed_actions(scenario: str) -> None:
    g = Game.new(find(scenario), 2)
    rng = random.Random(2)
    actors = 0
    steps = set()
    for _ in range(150 if scenario == "marne-1914" else 250):
        if g.is_over():
            break
        side = rng.choice(g.acting_sides())
        steps.add(g.state.frames[-1].step)
        actors += _compare(g, side)
        g.apply(choose(g.legal_actions(side), rng))
    assert "ground-movement" in steps and actors > 100
