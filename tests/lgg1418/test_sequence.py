"""The sequence of play (LGG 3-C) and the hooks for the rules of later stages."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.game import Game
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.sequence import turn

from . import dummy
from .helpers import CP, EN, act, army, corps, game, ghq, hq, play_until, to_activation


def _pieces() -> list[dict]:
    return [
        hq("de-hq", "DE", "0606", "DE-1"),
        corps("de-a", "DE", "0605", army="DE-1"),
        hq("de2-hq", "DE", "0808", "DE-2"),
        corps("de2-a", "DE", "0807", army="DE-2"),
        hq("fr-hq", "FR", "0202", "FR-1"),
        corps("fr-a", "FR", "0203", army="FR-1"),
        hq("fr2-hq", "FR", "0101", "FR-2"),
        corps("fr2-a", "FR", "0102", army="FR-2"),
        ghq("de-ghq", "DE", "0708"),
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


@pytest.mark.rules("LGG 3-C")
def test_lgg_3c_phases_in_order() -> None:
    g = game(pieces=_pieces(), rules=_rules(first_turn="1914-08", last_turn="1914-09"))
    play_until(g, "first-mover")  # September's initiative roll
    kinds = [e["type"] for e in g.state.log]
    assert (
        kinds.index("turn")
        < kinds.index("initiative")
        < kinds.index("weather")
        < kinds.index("end-turn")
    )
    texts = [e["text"] for e in g.state.log]
    assert texts.index("events phase: ignored in August 1914") < texts.index(
        "final phase: ignored in August 1914"
    )
    assert texts.index("final phase: ignored in August 1914") < texts.index("turn Sep 1914 begins")


@pytest.mark.rules("LGG 3-C")
def test_lgg_3c_naval_phase_is_named_and_records_sea_control() -> None:
    areas = [{"name": "North Sea", "kind": "sea"}, {"name": "Baltic", "kind": "sea"}]
    g = game(pieces=_pieces(), areas=areas, rules=_rules())
    play_until(g, "choose-activation")
    ev = next(e for e in g.state.log if e["type"] == "naval-phase")
    assert ev["data"]["control"] == {"Baltic": CP, "North Sea": ""}
    assert "naval-phase" in g.steps


@pytest.mark.rules("LGG 3-C")
def test_lgg_3c_interphase_follows_the_marked_turns() -> None:
    g = game(pieces=_pieces(), rules=_rules(first_turn="1914-10", last_turn="1914-11"))
    assert turn.interphase_after(g, M.data(g).turn_by_id("1914-10")) == "autumn"
    g.options["interphase-cadence"] = "winter-only"
    assert turn.interphase_after(g, M.data(g).turn_by_id("1914-10")) == ""
    assert turn.interphase_after(g, M.data(g).turn_by_id("1914-11")) == "winter"
    g2 = game(pieces=_pieces(), rules=_rules(first_turn="1914-10", last_turn="1914-11"))
    play_until(g2, "reinforcement-side")
    while M.current_turn(g2).id == "1914-10":
        side = g2.acting_sides()[0]
        legal = g2.legal_actions(side)
        g2.apply(
            next(
                (
                    a
                    for a in legal
                    if a["type"].startswith("end") or a["type"] in ("commit", "first-mover")
                ),
                legal[0],
            )
        )
    assert any(e["type"] == "interphase" and e["data"]["name"] == "autumn" for e in g2.state.log)


def test_game_ends_after_the_last_turn_with_the_scenario_objectives() -> None:
    g = game(
        pieces=_pieces(),
        rules=_rules(first_turn="1914-09", last_turn="1914-09"),
        victory={"objectives": {"0202": 2, "0606": 1}},
        control={"hexes": {EN: ["0202"], CP: ["0606"]}},
    )
    for _ in range(200):
        if g.is_over():
            break
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        g.apply(
            next(
                (
                    a
                    for a in legal
                    if a["type"].startswith("end") or a["type"] in ("commit", "first-mover")
                ),
                legal[0],
            )
        )
    assert g.is_over() and g.state.result["winner"] == EN
    again = Game.load(g.record())
    assert again.state_hash() == g.state_hash()


# ---------------------------------------------------------------------- hooks
def _hooked(**kw: object) -> Game:
    return game(pieces=_pieces(), ruleset="lgg1418-hooked", rules=_rules(**kw))


def _calls(g: Game, name: str) -> list[dict]:
    return [c for c in dummy.calls(g) if c["hook"] == name]


def test_hook_strategic_retreat_opens_each_military_turn() -> None:
    g = _hooked()
    to_activation(g, EN, "FR-1")
    calls = _calls(g, hooks.STRATEGIC_RETREAT)
    assert calls and calls[0]["side"] in (CP, EN) and calls[0]["front"] == "West"


@pytest.mark.rules("LGG 3-C")
def test_hook_reaction_between_activations_only() -> None:
    g = _hooked()
    to_activation(g, EN, "FR-1")
    assert _calls(g, hooks.REACTION) == []  # not before the first activation
    act(g, EN, type="end-movement")
    act(g, EN, type="activate", army="FR-2")
    assert g.acting_sides() == [CP] and g.current()[1].step == hooks.REACTION
    (call,) = _calls(g, hooks.REACTION)
    assert call["side"] == CP and call["active"] == EN and call["front"] == "West"
    act(g, CP, type="pass")
    assert g.current()[1].step == "activation-movement" and M.st(g)["activation"]["armies"] == [
        "FR-2"
    ]


@pytest.mark.rules("LGG 8-A", "LGG 11.4-A")
def test_hook_interception_after_entering_an_enemy_zoc_never_by_rail() -> None:
    g = _hooked()
    to_activation(g, CP, "DE-1")
    assert _calls(g, hooks.INTERCEPTION) == []
    # walk toward the French corps until the hook opens
    from grognard.rulesets.lgg1418.map import zoc

    for _ in range(6):
        if g.current()[1].step == hooks.INTERCEPTION:
            break
        legal = [
            a
            for a in g.legal_actions(CP)
            if a["type"] == "move" and a["units"] == ["de-a"] and a["mode"] == "normal"
        ]
        if not legal:
            break
        best = min(legal, key=lambda a: g.board.distance(g.board.idx(a["to"]), g.board.idx("0203")))
        g.apply(best)
    calls = _calls(g, hooks.INTERCEPTION)
    assert calls, "the interception hook never opened"
    c = calls[-1]
    assert c["side"] == EN and c["mover"] == CP and c["units"] == ["de-a"]
    assert g.board.idx(c["hex"]) in zoc.zoc_map(g, EN)


def test_hook_interception_not_in_fire_doctrine() -> None:
    g = _hooked(first_turn="1915-01", last_turn="1915-01")
    to_activation(g, CP, "DE-1")
    for _ in range(6):
        legal = [
            a
            for a in g.legal_actions(CP)
            if a["type"] == "move" and a["units"] == ["de-a"] and a["mode"] == "normal"
        ]
        if not legal:
            break
        g.apply(
            min(legal, key=lambda a: g.board.distance(g.board.idx(a["to"]), g.board.idx("0203")))
        )
    assert _calls(g, hooks.INTERCEPTION) == []


def test_hooks_reinforcement_and_battles_after_movement_when_hexes_are_shared() -> None:
    g = _hooked()
    to_activation(g, CP, "DE-1")
    for _ in range(8):
        if M.hex_of(g, g.state.pieces["de-a"]) == g.board.idx("0203"):
            break
        if g.current()[1].step == hooks.INTERCEPTION:
            act(g, EN, type="pass")
            continue
        legal = [
            a
            for a in g.legal_actions(CP)
            if a["type"] == "move" and a["units"] == ["de-a"] and a["mode"] == "normal"
        ]
        g.apply(
            min(legal, key=lambda a: g.board.distance(g.board.idx(a["to"]), g.board.idx("0203")))
        )
    assert M.hex_of(g, g.state.pieces["de-a"]) == g.board.idx("0203")
    act(g, CP, type="end-movement")
    (rein,) = _calls(g, hooks.ENEMY_REINFORCEMENT)
    assert rein["side"] == EN and rein["attacker"] == CP and rein["hexes"] == ["0203"]
    act(g, EN, type="pass")
    (battle,) = _calls(g, hooks.BATTLES)
    assert battle["side"] == CP and battle["armies"] == ["DE-1"] and battle["hexes"] == ["0203"]


def test_hooks_autonomous_units_and_final_phase() -> None:
    g = _hooked(first_turn="1914-09", last_turn="1914-10")
    for _ in range(300):
        if M.current_turn(g).id == "1914-10":
            break
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        g.apply(
            next(
                (
                    a
                    for a in legal
                    if a["type"].startswith("end") or a["type"] in ("pass", "commit", "first-mover")
                ),
                legal[0],
            )
        )
    assert [c["side"] for c in _calls(g, hooks.AUTONOMOUS_UNITS)] == [CP, EN]
    assert [c["hook"] for c in dummy.calls(g) if c["hook"] in hooks.FINAL_PHASE_HOOKS] == list(
        hooks.FINAL_PHASE_HOOKS
    )


def test_unknown_or_illegal_actions_change_nothing() -> None:
    g = game(pieces=_pieces(), rules=_rules())
    to_activation(g, EN, "FR-1")
    before = g.state_hash()
    for bad in (
        {"type": "move", "side": EN, "units": ["de-a"], "to": "0606"},
        {"type": "move", "side": EN, "units": ["fr-a"], "to": "9999"},
        {"type": "fly", "side": EN},
        {"type": "rail", "side": EN, "units": [], "to": "0101"},
    ):
        with pytest.raises(IllegalAction):
            g.apply(bad)
        assert g.state_hash() == before


def test_a_reaction_activation_pushed_by_the_reaction_rules_runs_like_any_activation() -> None:
    from grognard.rulesets.lgg1418.military import activation

    g = game(pieces=_pieces(), rules=_rules())
    to_activation(g, EN, "FR-1")
    act(g, EN, type="end-movement")
    params = activation.activation_params(g, CP, ["DE-2"], "West", reaction=True)
    assert params["serial"] == M.st(g)["act_serial"] and params["reaction"]
    g.push("army-activation", params)
    g._advance()
    assert M.st(g)["activation"]["armies"] == ["DE-2"] and M.st(g)["activation"]["reaction"]
    act(g, CP, type="end-movement")
    assert M.st(g).get("reaction_activated") == {"DE-2": 1}
    assert "DE-2" not in M.st(g)["activated"]  # it may still activate on its own turn
