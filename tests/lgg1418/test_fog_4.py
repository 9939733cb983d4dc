"""LGG 4: fog of war - stack markers, player-aid boxes, decoys, observation."""

from __future__ import annotations

import json

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.units import fog

from .helpers import CP, EN, act, army, corps, decoy, fortress, game, hq, to_activation


def _g(**kw: object):
    pieces = [
        hq("de-hq", "DE", "0202", "DE-1"),
        corps("de-a", "DE", "0202", army="DE-1", name="Gardekorps"),
        corps("de-b", "DE", "0203", army="DE-1"),
        decoy("de-dec", "DE", "DE-1"),
        corps("de-res", "DE", {"inside": "de-hq"}, army="DE-1", status=["reserve"]),
        hq("fr-hq", "FR", "0606", "FR-1"),
        corps("fr-a", "FR", "0605", army="FR-1"),
        fortress("fr-fort", "FR", "0707"),
        corps("fr-gar", "FR", {"inside": "fr-fort"}, garrison="fr-fort"),
    ]
    return game(
        pieces=pieces,
        rules={
            "armies": [army("DE-1", "DE", "de-hq", "de-dec"), army("FR-1", "FR", "fr-hq")],
            "main_armies": {CP: {"West": "DE-1"}, EN: {"West": "FR-1"}},
        },
        **kw,
    )


@pytest.mark.rules("LGG 4-A")
def test_lgg_4a_enemy_stacks_are_anonymous_markers() -> None:
    g = _g()
    v = g.view(EN)
    ids = {p["id"] for p in v["pieces"]}
    assert "fr-a" in ids and "fr-gar" in ids
    assert not ids & {"de-hq", "de-a", "de-b", "de-res", "de-dec"}
    markers = {(s["side"], s["loc"][1]) for s in v["stacks"]}
    assert (CP, "0202") in markers and (CP, "0203") in markers
    text = json.dumps(v)
    assert "Gardekorps" not in text and "de-res" not in text
    assert fog.view_is_clean(g, EN) == [] and fog.view_is_clean(g, CP) == []


@pytest.mark.rules("LGG 4-A")
def test_lgg_4a_fortress_counters_are_public_but_not_their_garrison() -> None:
    g = _g()
    v = g.view(CP)
    ids = {p["id"] for p in v["pieces"]}
    assert "fr-fort" in ids and "fr-gar" not in ids
    assert any(s["loc"][1] == "0707" and s["side"] == EN for s in v["stacks"])
    assert "fr-gar" in fog.hidden_tokens(g, CP)


@pytest.mark.rules("LGG 4-A")
def test_lgg_4a_spectator_and_fog_off() -> None:
    g = _g()
    spectator = {p["id"] for p in g.view(None)["pieces"]}
    assert spectator == {"fr-fort"}
    g2 = _g(options={"fog-of-war": False})
    assert "de-a" in {p["id"] for p in g2.view(EN)["pieces"]}


@pytest.mark.rules("LGG 4-A")
def test_lgg_4a_observation_count_then_full() -> None:
    g = _g()
    fog.reveal_stack(g, EN, g.board.idx("0202"), "count", "LGG 43-G", "aerial reconnaissance")
    mk = next(s for s in g.view(EN)["stacks"] if s["loc"][1] == "0202")
    assert mk["corps"] == 1 and mk["observed"] == "count"
    assert "de-a" not in {p["id"] for p in g.view(EN)["pieces"]}
    fog.reveal_stack(g, EN, g.board.idx("0202"), "full", "LGG 4-A", "event")
    seen = {p["id"] for p in g.view(EN)["pieces"]}
    assert {"de-a", "de-hq"} <= seen and "de-res" not in seen  # the reserve is on the player aid
    assert fog.view_is_clean(g, EN) == []
    fog.clear_observations(g)
    assert "de-a" not in {p["id"] for p in g.view(EN)["pieces"]}


@pytest.mark.rules("LGG 4-A")
def test_lgg_4a_moves_are_logged_without_ids_for_the_enemy() -> None:
    g = _g()
    to_activation(g, CP, "DE-1")
    act(g, CP, type="move", units=["de-b"], to="0204", mode="normal")
    mine = [e["text"] for e in g.visible_log(CP)]
    theirs = [e["text"] for e in g.visible_log(EN)]
    assert any("de-b" in t for t in mine)
    assert any("stack moves from 0203 to 0204" in t for t in theirs)
    assert not any("de-b" in t for t in theirs)
    assert fog.view_is_clean(g, EN) == []


@pytest.mark.rules("LGG 4-B")
def test_lgg_4b_lift_drop_and_decoys() -> None:
    g = _g()
    to_activation(g, CP, "DE-1")
    acts = g.legal_actions(CP)
    assert {"type": "lift", "side": CP, "into": "de-hq", "units": ["de-a"]} in acts
    act(g, CP, type="lift", into="de-hq")
    assert g.state.pieces["de-a"].loc == Loc.inside("de-hq")
    # the lifted stack moves with its HQ and pays its movement
    act(g, CP, type="move", units=["de-hq"], to="0302", mode="normal")
    assert M.hex_of(g, g.state.pieces["de-a"]) == g.board.idx("0302")
    assert g.state.pieces["de-a"].attrs["mv_spent"] == 1
    act(g, CP, type="drop", **{"from": "de-hq"})
    assert g.state.pieces["de-a"].loc == Loc.hex(g.board.idx("0302"))
    # an empty decoy on the map looks like any stack to the enemy
    act(g, CP, type="place-decoy", decoy="de-dec", at="0203")
    assert any(s["loc"][1] == "0203" for s in g.view(EN)["stacks"])
    assert "de-dec" in fog.hidden_tokens(g, EN) and fog.view_is_clean(g, EN) == []
    act(g, CP, type="remove-decoy", decoy="de-dec")
    assert g.state.pieces["de-dec"].loc == Loc.box(M.decoy_pool(CP))


@pytest.mark.rules("LGG 4-B")
def test_lgg_4b_refuses_foreign_units_and_misplaced_decoys() -> None:
    g = _g()
    to_activation(g, CP, "DE-1")
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "place-decoy", "side": CP, "decoy": "de-dec", "at": "0505"})
    assert e.value.rule == "LGG 4-B"
    with pytest.raises(IllegalAction):
        g.apply(
            {"type": "lift", "side": CP, "into": "de-hq", "units": ["de-b"]}
        )  # not on the HQ's hex


@pytest.mark.rules("LGG 4-A")
def test_lgg_4a_piece_records_in_views_equal_the_core_records() -> None:
    """The rule system's quicker piece record equals the core one, odd attribute values included."""
    from fractions import Fraction

    from grognard.core.game import Game
    from grognard.rulesets.base import Ruleset
    from grognard.scenario import find

    g = Game.new(find("lgg-west-1914"), seed=1)
    p = next(iter(g.state.pieces.values()))
    p.attrs.update(
        {
            "frac": Fraction(7, 2),
            "tags": {"b", "a"},
            "pair": (1, "x"),
            "deep": {"k": [Fraction(1), None]},
            3: True,
        }
    )
    for q in g.state.pieces.values():
        assert json.dumps(g.ruleset.piece_view(g, q)) == json.dumps(
            Ruleset.piece_view(g.ruleset, g, q)
        )
