"""Rule-system invariants, the tutorial scenario, and self-play with fog-of-war checks."""

from __future__ import annotations

import pytest

from grognard.core.state import Loc
from grognard.rulesets.lgg1418 import model as M
from grognard.scenario import find
from grognard.selfplay import SelfplayReport, play_one

from .helpers import CP, EN, army, corps, game, hq


@pytest.mark.rules("LGG 10-A")
def test_invariants_catch_stacking_neutrals_shared_hexes_and_pr() -> None:
    pieces = [
        hq("h1", "DE", "0505", "DE-1"),
        hq("h2", "DE", "0505", "DE-2"),
        corps("de", "DE", "0303"),
        corps("fr", "FR", "0303"),
        corps("n", "DE", "0707"),
    ]
    areas = [{"name": "CH", "kind": "country", "attrs": {"nation": "CH"}, "hexes": ["0707"]}]
    g = game(
        pieces=pieces,
        areas=areas,
        rules={
            "armies": [army("DE-1", "DE", "h1"), army("DE-2", "DE", "h2")],
            "powers": {"DE": {"pr_stock": 0}},
        },
    )
    g.state.tracks["pr"]["DE"]["stock"] = -1
    found = " | ".join(g.ruleset.invariants(g))
    assert "two HQs" in found
    assert "neutral country at 0707" in found
    assert "both sides stand in 0303" in found
    assert "negative PR" in found


def test_invariants_hold_for_a_clean_position_and_reserve_outside_hq_is_caught() -> None:
    g = game(
        pieces=[
            hq("h1", "DE", "0505", "DE-1"),
            corps("c", "DE", {"inside": "h1"}, army="DE-1", status=["reserve"]),
        ],
        rules={"armies": [army("DE-1", "DE", "h1")]},
    )
    assert g.ruleset.invariants(g) == []
    M.move_piece(g, g.state.pieces["c"], Loc.hex(g.board.idx("0101")))
    assert any("reserve" in s for s in g.ruleset.invariants(g))


def test_tutorial_validates_and_teaches_the_rules_of_this_stage() -> None:
    sc = find("lgg-tutorial")
    assert sc.id == "lgg-tutorial" and sc.data.scenario.tutorial
    types = {p.type for p in sc.data.pieces}
    assert types >= {"corps", "hq", "ghq", "general", "fortress", "decoy", "artillery"}
    assert {n.kind for n in sc.board.networks.values()} == {"rail"}
    feats = set(sc.board.feature_names)
    assert {"river", "large_river", "canal"} <= feats
    from grognard.core.game import Game

    g = Game.new(sc, seed=2)
    assert M.main_army(g, CP, "West") == "DE-2" and M.main_army(g, EN, "West") == "FR-5"
    assert g.ruleset.invariants(g) == []


@pytest.mark.parametrize("seed", [3, 17])
def test_selfplay_on_the_tutorial_finds_no_violation_and_no_view_leak(seed: int) -> None:
    sc = find("lgg-tutorial")
    rep = SelfplayReport()
    g = play_one(sc, seed, seed * 7 + 1, rep, max_steps=400)
    assert rep.invariant_violations == 0, rep.problems
    assert rep.view_leaks == 0, rep.problems
    assert rep.refused_legal_actions == 0, rep.problems
    assert rep.replay_mismatches == 0, rep.problems
    assert rep.actions > 50
    assert g.is_over() or rep.actions == 400


def test_views_never_show_hidden_enemy_facts_during_play() -> None:
    sc = find("lgg-tutorial")
    from grognard.core.game import Game
    from grognard.rulesets.lgg1418.units import fog

    g = Game.new(sc, seed=9)
    import random

    rng = random.Random(4)
    for _ in range(120):
        if g.is_over():
            break
        side = rng.choice(g.acting_sides())
        g.apply(rng.choice(g.legal_actions(side)))
        for s in (CP, EN):
            assert fog.view_is_clean(g, s) == []
    view = g.view(EN)
    assert all(p["side"] == EN or p["type"] == "fortress" for p in view["pieces"])


@pytest.mark.rules("LGG 13-A", "LGG 5-D")
def test_lgg_13a_5d_converting_the_last_corps_beside_the_enemy_makes_the_decoy_withdraw() -> None:
    """Found by self-play (lgg-west-1914, seed 1, game 13): during FR-1's movement the last corps
    of a stack standing in a German-held hex was converted into PR, leaving the army's decoy alone
    with the enemy; it must now withdraw (13-A), and both sides never stay together."""
    from grognard.scenario import find

    rep = SelfplayReport()
    g = play_one(
        find("lgg-west-1914"),
        1636984003,
        1647458477,
        rep,
        max_steps=77,
        check_views=False,
        game_no=13,
    )
    assert rep.invariant_violations == 0, rep.problems
    assert g.actions[-1] == {
        "type": "convert-pr",
        "side": "Entente",
        "unit": "FR-XIV",
        "how": "eliminate",
    }
    assert g.current()[0].name == "forced-withdrawal"
    legal = g.legal_actions("Entente")
    assert legal and {a["unit"] for a in legal} == {"FR-1-decoy"}
    g.apply(legal[0])
    assert g.ruleset.invariants(g) == []
