"""LGG 3: start of the campaign - entry into war, pre-turn, August 1914, war-plan obligations."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.military import campaign

from .helpers import CP, EN, act, army, corps, decline_interrupts, game, hq, play_until


def _pieces() -> list[dict]:
    return [
        hq("de-hq", "DE", "0202", "DE-1"),
        corps("de-a", "DE", "0203", army="DE-1"),
        hq("fr-hq", "FR", "0707", "FR-1"),
        corps("fr-a", "FR", "0706", army="FR-1"),
        hq("fr2-hq", "FR", "0807", "FR-2"),
        corps("fr2-a", "FR", "0808", army="FR-2"),
    ]


def _armies() -> list[dict]:
    return [army("DE-1", "DE", "de-hq"), army("FR-1", "FR", "fr-hq"), army("FR-2", "FR", "fr2-hq")]


@pytest.mark.rules("LGG 3-C")
def test_lgg_3c_lgg18_august_1914_initiative_and_weather() -> None:
    g = game(
        pieces=_pieces(),
        rules={
            "first_turn": "1914-08",
            "last_turn": "1914-09",
            "fronts": ["West", "East"],
            "armies": _armies(),
        },
    )
    play_until(g, "choose-activation")
    s = M.st(g)
    assert s["initiative"] == {"West": CP, "East": EN}
    assert s["first_mover"] == {"West": EN, "East": CP}
    assert s["weather"] == {"temperate": "fair"}
    texts = [e["text"] for e in g.visible_log(CP)]
    assert "events phase: ignored in August 1914" in texts
    assert not any(
        e["type"] == "roll" for e in g.state.log
    )  # nothing rolled: initiative and weather are fixed


@pytest.mark.rules("LGG 3-C")
def test_lgg_3c_final_phase_ignored_in_august_then_september_weather_fair_too() -> None:
    g = game(
        pieces=_pieces(),
        rules={"first_turn": "1914-08", "last_turn": "1914-09", "armies": _armies()},
    )
    play_until(g, "choose-activation")
    play_until(g, "first-mover")  # September 1914: the initiative is rolled
    assert "final phase: ignored in August 1914" in [e["text"] for e in g.state.log]
    play_until(g, "choose-activation")
    assert M.st(g)["weather"] == {"temperate": "fair"}
    assert M.current_turn(g).id == "1914-09"


@pytest.mark.rules("LGG 3-A")
def test_lgg_3a_entry_into_war_from_the_scenario_list() -> None:
    nations = {"DE": CP, "FR": EN}
    g = game(
        pieces=_pieces()[:4],
        nations=nations,
        rules={
            "first_turn": "1914-08",
            "armies": _armies()[:2],
            "entry_into_war": [{"nation": "AH", "side": CP}],
        },
        areas=[
            {"name": "AH", "kind": "country", "attrs": {"nation": "AH"}, "hexes": ["0101", "0102"]}
        ],
    )
    assert g.state.alignment.get("AH") == CP
    assert g.state.control[g.board.idx("0101")] == CP
    assert any(e["type"] == "entry-into-war" for e in g.state.log)


@pytest.mark.rules("LGG 3-B")
def test_lgg_3b_pre_turn_activates_only_the_listed_armies() -> None:
    g = game(
        pieces=_pieces(),
        rules={
            "first_turn": "1914-08P",
            "last_turn": "1914-08",
            "armies": _armies(),
            "pre_turn_armies": ["FR-1"],
        },
    )
    play_until(g, "choose-activation")
    assert M.current_turn(g).pre_turn
    legal = g.legal_actions(EN)
    assert {a.get("army") for a in legal if a["type"] == "activate"} == {"FR-1"}
    assert not any(a["type"] == "coordinate" for a in legal)
    with pytest.raises(IllegalAction):
        g.apply({"type": "activate", "side": EN, "army": "FR-2"})
    act(g, EN, type="activate", army="FR-1")
    act(g, EN, type="end-movement")
    act(g, EN, type="end-turn")
    play_until(g, "choose-activation")
    assert M.current_turn(g).id == "1914-08"


@pytest.mark.rules("LGG [11.4-X]")
def test_lgg_11_4x_obliged_army_must_be_activated_and_seek_the_enemy() -> None:
    g = game(
        pieces=_pieces(),
        rules={
            "first_turn": "1914-08",
            "armies": _armies(),
            "war_plans": {"FR": {"plan": "plan-xvii", "must_attack": ["FR-1"]}},
        },
    )
    play_until(g, "choose-activation")
    assert campaign.obligated_armies(g, EN) == ["FR-1"]
    assert not any(a["type"] == "end-turn" for a in g.legal_actions(EN))
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "end-turn", "side": EN})
    assert e.value.rule == "LGG [11.4-X]"
    act(g, EN, type="activate", army="FR-1")
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "end-movement", "side": EN})
    assert "toward the enemy" in str(e.value)
    # march toward the German stack until no step brings the corps closer
    steps = 0
    while (a := _closer(g)) is not None:
        g.apply(a)
        decline_interrupts(g)  # the Germans pass any interception (13)
        steps += 1
    assert steps >= 1
    g.apply({"type": "end-movement", "side": EN})


def _closer(g):
    enemy = M.enemy_present_hexes(g, EN)
    p = g.state.pieces["fr-a"]
    here = min(g.board.distance(M.hex_of(g, p), e) for e in enemy)
    for a in g.legal_actions(EN):
        if a["type"] == "move" and a["units"] == ["fr-a"] and a["mode"] == "normal":
            j = g.board.idx(a["to"])
            if min(g.board.distance(j, e) for e in enemy) < here:
                return a
    return None


@pytest.mark.rules("LGG [11.4-X]")
def test_lgg_11_4x_no_obligation_after_august() -> None:
    g = game(
        pieces=_pieces(),
        rules={
            "first_turn": "1914-09",
            "armies": _armies(),
            "war_plans": {"FR": {"plan": "plan-xvii", "must_attack": ["FR-1"]}},
        },
    )
    assert campaign.obligated_armies(g, EN) == []
