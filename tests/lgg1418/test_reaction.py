"""LGG 20 (enemy reaction) and the -2 of 6-B for the side without the initiative."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map.zoc import BESIEGING
from grognard.rulesets.lgg1418.military import reaction

from .helpers import CP, EN, act, army, corps, force_dice, game, ghq, hq, play_until, to_activation


def _pieces(ghq_at: str = "0803", react: int = 6) -> list[dict]:
    return [
        hq("de-hq", "DE", "0806", "DE-1"),
        corps("de-a", "DE", "0807", army="DE-1"),
        hq("de2-hq", "DE", "0808", "DE-2"),
        corps("de2-a", "DE", "0708", army="DE-2"),
        ghq("de-ghq", "DE", ghq_at, react=react),
        hq("fr-hq", "FR", "0202", "FR-1"),
        corps("fr-a", "FR", "0203", army="FR-1"),
        hq("fr2-hq", "FR", "0101", "FR-2"),
        corps("fr2-a", "FR", "0102", army="FR-2"),
        ghq("fr-ghq", "FR", "0103"),
    ]


def _rules(**kw: object) -> dict:
    return {
        "armies": [
            army("DE-1", "DE", "de-hq"),
            army("DE-2", "DE", "de2-hq"),
            army("FR-1", "FR", "fr-hq"),
            army("FR-2", "FR", "fr2-hq"),
        ],
        "main_armies": {CP: {"West": "DE-1"}, EN: {"West": "FR-1"}},
        **kw,
    }


def _to_reaction(g) -> None:
    """The Entente activates FR-1, ends it, then chooses FR-2: the Central Powers' reaction
    window."""
    to_activation(g, EN, "FR-1")
    act(g, EN, type="end-movement")
    play_until(g, "choose-activation")
    act(g, EN, type="activate", army="FR-2")
    assert g.current()[1].step == "reaction"


@pytest.mark.rules("LGG 20-A", "LGG 6-B")
def test_lgg_20a_lgg37_modifiers_and_thresholds() -> None:
    g = game(pieces=_pieces(), rules=_rules())
    M.st(g)["initiative"] = {"West": EN}
    # DE-1's HQ at 0806 is 3 hexes from the GHQ at 0803
    assert reaction.hq_ghq_distance(g, "DE-1") == 3
    assert reaction.reaction_target(g, "DE-1") == 6
    mods = reaction.reaction_modifiers(g, CP, "West", "DE-1")
    assert mods.total() == -3  # -2 no initiative, -1 at 3 hexes
    # LGG-37: GHQ reaction 6, no initiative, HQ 5 hexes away -> natural 10 needed
    assert reaction.distance_modifier(g, 5) == -2
    assert 6 - (-2 + reaction.distance_modifier(g, 5)) == 10
    # with the initiative and 2 hexes -> natural 6; 12 hexes -> -4; out of contact -> -4
    M.st(g)["initiative"] = {"West": CP}
    assert (
        reaction.distance_modifier(g, 2) == 0
        and reaction.reaction_modifiers(g, CP, "West", "DE-1").total() == -1
    )
    assert reaction.distance_modifier(g, 12) == -4 and reaction.distance_modifier(g, None) == -4
    assert [reaction.distance_modifier(g, d) for d in (3, 4, 5, 6, 9, 10)] == [
        -1,
        -2,
        -2,
        -3,
        -3,
        -4,
    ]
    g.options["reaction-distance-bands"] = "two-to-three"
    assert reaction.distance_modifier(g, 2) == -1


@pytest.mark.rules("LGG 20-A")
def test_lgg_20a_distance_avoids_enemy_controlled_and_prohibited_hexes() -> None:
    terrain = [
        "pppppppp",
        "pppppppp",
        "pppppppp",
        "pllllllp",
        "pppppppp",
        "pppppppp",
        "pppppppp",
        "pppppppp",
    ]
    g = game(pieces=_pieces(ghq_at="0203"), terrain=terrain, rules=_rules())
    # a lake row (x04 for x = 2..7) lies between the GHQ (0203) and DE-1's HQ (0806)
    d = reaction.hq_ghq_distance(g, "DE-1")
    assert d is not None and d > g.board.distance(g.board.idx("0806"), g.board.idx("0203"))
    everywhere = [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(4, 5)]
    g2 = game(pieces=_pieces(ghq_at="0203"), rules=_rules(), control={"hexes": {EN: everywhere}})
    assert reaction.hq_ghq_distance(g2, "DE-1") is None  # the GHQ is cut off: out of contact, -4
    assert reaction.distance_modifier(g2, reaction.hq_ghq_distance(g2, "DE-1")) == -4


@pytest.mark.rules("LGG 20-A")
def test_lgg_20a_english_port_to_port_counts_zero() -> None:
    places = [
        {"hex": "0101", "kind": "port", "attrs": {"size": "major", "sea": "Channel"}},
        {"hex": "0808", "kind": "port", "attrs": {"size": "major", "sea": "Channel"}},
    ]
    pieces = [hq("gb-hq", "GB", "0807", "GB-1"), ghq("gb-ghq", "GB", "0102")]
    control = {"hexes": {EN: ["0101", "0808"]}}
    g = game(
        pieces=pieces,
        places=places,
        control=control,
        rules={"armies": [army("GB-1", "GB", "gb-hq")]},
    )
    # 0102 -> port 0101 (1 hex), port to port 0, 0808 -> 0807 (1 hex)
    assert reaction.hq_ghq_distance(g, "GB-1") == 2


@pytest.mark.rules("LGG 20", "LGG 20-A", "LGG 20-B")
def test_lgg_20a_lgg38_window_between_activations_only_once_per_front() -> None:
    g = game(pieces=_pieces(), rules=_rules())
    to_activation(g, EN, "FR-1")
    assert not any(
        f.step == "reaction" for f in g.state.frames
    )  # LGG-38: not before the first activation
    act(g, EN, type="end-movement")
    play_until(g, "choose-activation")
    act(g, EN, type="activate", army="FR-2")
    assert g.current()[1].step == "reaction" and g.acting_sides() == [CP]
    legal = g.legal_actions(CP)
    assert legal[0]["type"] == "decline"
    assert {a["army"] for a in legal if a["type"] == "react"} == {"DE-1", "DE-2"}
    force_dice(g, 12, 1)
    ev = g.apply({"type": "react", "side": CP, "army": "DE-2"})
    assert any(e["type"] == "reaction" and e["data"]["success"] is False for e in ev)
    assert M.st(g)["reacted"][CP] == ["West"]
    assert g.current()[1].step == "activation-movement" and g.acting_sides() == [EN]  # FR-2 goes on
    with pytest.raises(IllegalAction):
        g.apply({"type": "react", "side": CP, "army": "DE-1"})
    # a second reaction on the same front this turn: the window no longer opens
    assert not reaction.Reaction().actors(
        g, type("F", (), {"params": {"side": CP, "front": "West"}})()
    )


@pytest.mark.rules("LGG 20-B", "LGG 5-F")
def test_lgg_20b_success_activates_the_army_between_the_opponents_activations() -> None:
    g = game(pieces=_pieces(), rules=_rules())
    _to_reaction(g)
    force_dice(g, 12, 12)
    ev = g.apply({"type": "react", "side": CP, "army": "DE-2", "main": True})
    assert any(e["type"] == "reaction" and e["data"]["success"] for e in ev)
    a = M.st(g)["activation"]
    assert a["side"] == CP and a["armies"] == ["DE-2"] and a["reaction"]
    assert (
        M.main_army(g, CP, "West") == "DE-2"
    )  # declared main army on the successful reaction (5-F)
    assert M.st(g)["reaction_activated"]["DE-2"] == 1 and "DE-2" not in M.st(g)["activated"]
    act(g, CP, type="end-movement")
    play_until(g, "activation-movement")
    assert M.st(g)["activation"]["armies"] == ["FR-2"]  # the interrupted activation resumes
    act(g, EN, type="end-movement")
    # DE-2 may still be activated in its own turn (20-B: an army may be activated twice)
    play_until(
        g,
        "choose-activation",
        chooser=lambda g, s, legal: next((x for x in legal if x["type"] == "end-turn"), None),
    )
    while g.acting_sides() != [CP] or g.current()[1].step != "choose-activation":
        play_until(g, "choose-activation")
        if g.acting_sides() == [EN]:
            act(g, EN, type="end-turn")
    assert any(x.get("army") == "DE-2" for x in g.legal_actions(CP) if x["type"] == "activate")


@pytest.mark.rules("LGG 20-A")
def test_lgg_20a_besieging_stacks_and_fortress_takers_stay_put() -> None:
    g = game(pieces=_pieces(), rules=_rules())
    p = g.state.pieces["de2-a"]
    M.set_status(g, p, BESIEGING, True)
    assert reaction.stays_put_in_reaction(g, "DE-2") == ["de2-a"]
    M.set_status(g, p, BESIEGING, False)
    M.st(g)["fortress_takers"] = {"de2-a": {"turn": M.turn_index(g), "reaction": False}}
    assert reaction.stays_put_in_reaction(g, "DE-2") == ["de2-a"]
    # a fortress taken during a reaction does not stop the army in its own turn
    M.st(g)["fortress_takers"] = {"de2-a": {"turn": M.turn_index(g), "reaction": True}}
    assert reaction.stays_put_in_reaction(g, "DE-2") == []
    M.st(g)["fortress_takers"] = {"de2-a": {"turn": M.turn_index(g), "reaction": False}}
    _to_reaction(g)
    force_dice(g, 12, 12)
    g.apply({"type": "react", "side": CP, "army": "DE-2"})
    assert not any(m["units"] == ["de2-a"] for m in g.legal_actions(CP) if m["type"] == "move")


@pytest.mark.rules("LGG 20-A", "LGG 19-C", "LGG 36.5-A")
def test_lgg_20a_armies_barred_from_reacting() -> None:
    g = game(pieces=_pieces(), rules=_rules())
    now = M.turn_index(g)
    M.st(g)["retreated"] = {"DE-1": now}
    assert "strategic retreat" in reaction.why_not_react(g, CP, "West", "DE-1")
    M.st(g)["no_reaction"] = {"DE-2": "it leads a great offensive"}
    assert "great offensive" in reaction.why_not_react(g, CP, "West", "DE-2")
    M.st(g)["no_reaction"] = {}
    M.st(g)["doctrine"] = {"DE": {"West": "combined"}}
    M.st(g)["attacked"] = {"DE-2": now}
    assert "Combined" in reaction.why_not_react(g, CP, "West", "DE-2")
