"""LGG 12 and 19: strategic retreats (and the hook of the Russian great retreat, 47)."""

from __future__ import annotations

from typing import Any

import pytest

from grognard import rulesets
from grognard.core.errors import IllegalAction
from grognard.core.sequence import Step
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.military import retreat
from grognard.rulesets.lgg1418.ruleset import LaGrandeGuerre

from .helpers import CP, EN, act, army, corps, force_dice, game, ghq, hq, play_until, ring

PARIS = {"hex": "0101", "kind": "city", "name": "Paris", "attrs": {"nation": "FR", "capital": True}}
BERLIN = {
    "hex": "0808",
    "kind": "city",
    "name": "Berlin",
    "attrs": {"nation": "DE", "capital": True},
}
CONTROL = {
    "hexes": {
        EN: [f"{c:02d}{r:02d}" for c in range(1, 6) for r in range(1, 9)],
        CP: [f"{c:02d}{r:02d}" for c in range(6, 9) for r in range(1, 9)],
    }
}


def _pieces(**kw: Any) -> list[dict]:
    return [
        hq("fh", "FR", "0404", "FR-1"),
        corps("fa", "FR", "0405", army="FR-1", face=kw.get("face")),
        corps("fb", "FR", "0404", army="FR-1"),
        hq("fh2", "FR", "0202", "FR-2"),
        corps("f2", "FR", "0203", army="FR-2"),
        ghq("fg", "FR", "0102"),
        hq("dh", "DE", "0707", "DE-1"),
        corps("da", "DE", kw.get("de_at", "0706"), army="DE-1"),
        ghq("dg", "DE", "0808"),
    ]


def _rules(**kw: Any) -> dict:
    return {
        "armies": [army("FR-1", "FR", "fh"), army("FR-2", "FR", "fh2"), army("DE-1", "DE", "dh")],
        "main_armies": {EN: {"West": "FR-1"}, CP: {"West": "DE-1"}},
        **kw,
    }


def _g(**kw: Any):
    opts = kw.pop("options", None)
    return game(
        pieces=_pieces(**kw),
        places=[PARIS, BERLIN],
        control=CONTROL,
        rules=_rules(**kw.pop("rules", {})),
        options=opts,
    )


def _first(side: str):
    def chooser(g, s, legal):
        for a in legal:
            if a["type"] == "first-mover" and a["first"] == side:
                return a
        return None

    return chooser


def _to_declaration(g, who: str, own: bool) -> None:
    play_until(g, "retreat-declaration", chooser=_first(EN))
    while not (g.acting_sides() == [who] and g.current()[1].params["own"] == own):
        act(g, g.acting_sides()[0], type="no-retreat")
        play_until(g, "retreat-declaration")


@pytest.mark.rules("LGG 19-A", "LGG 19-B", "LGG 19-D")
def test_lgg_19b_own_turn_retreat_toward_supply_then_losses_lgg66() -> None:
    g = _g()
    _to_declaration(g, EN, own=True)
    legal = g.legal_actions(EN)
    assert (
        legal[0]["type"] == "no-retreat"
        and {"type": "strategic-retreat", "side": EN, "armies": ["FR-1"]} in legal
    )
    act(g, EN, type="strategic-retreat", armies=["FR-1"])
    a = M.st(g)["activation"]
    assert a["kind"] == retreat.STRATEGIC_KIND and a["armies"] == ["FR-1"]
    dist = retreat.retreat_distance(g, EN)
    moves = [x for x in g.legal_actions(EN) if x["type"] == "move" and x["units"] == ["fa"]]
    here = dist[g.board.idx("0405")]
    assert moves and all(dist[g.board.idx(x["to"])] < here for x in moves)  # only toward Paris
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "move", "side": EN, "units": ["fa"], "to": "0505", "mode": "normal"})
    assert e.value.rule == "LGG 19-A"
    assert not any(
        x["type"] == "end-movement" for x in g.legal_actions(EN)
    )  # the army has not retreated
    for uid in ("fa", "fb", "fh"):
        step = next(
            x
            for x in g.legal_actions(EN)
            if x["type"] == "move" and x["units"] == [uid] and x["mode"] == "normal"
        )
        g.apply(step)
    assert not any(f.step == "interception" for f in g.state.frames)  # no interception (19-A)
    force_dice(g, 6, 4)
    act(g, EN, type="end-movement")
    assert g.current()[1].step == "retreat-losses"
    ev = [e for e in g.state.log if e["type"] == "retreat-losses"][-1]
    assert ev["data"]["losses"] == 1  # D6 4: even, 1 loss
    act(g, EN, type="retreat-loss", unit="fa")
    assert g.state.pieces["fa"].face == "reduced"
    # 19-B: the army counts as activated and may not be activated again; the main army need not go
    # first
    play_until(g, "choose-activation")
    assert g.acting_sides() == [EN]
    armies = {x.get("army") for x in g.legal_actions(EN) if x["type"] == "activate"}
    assert "FR-1" not in armies and "FR-2" in armies
    act(g, EN, type="activate", army="FR-2")
    assert not any(f.step == "reaction" for f in g.state.frames)  # no reaction after the retreat


@pytest.mark.rules("LGG 19-D")
def test_lgg_19d_lgg66_odd_roll_three_losses_owner_distributes() -> None:
    g = _g()
    _to_declaration(g, EN, own=True)
    act(g, EN, type="strategic-retreat", armies=["FR-1"])
    for uid in ("fa", "fb", "fh"):
        g.apply(
            next(
                x
                for x in g.legal_actions(EN)
                if x["type"] == "move" and x["units"] == [uid] and x["mode"] == "normal"
            )
        )
    force_dice(g, 6, 5)
    act(g, EN, type="end-movement")
    assert [e for e in g.state.log if e["type"] == "retreat-losses"][-1]["data"]["losses"] == 3
    act(g, EN, type="retreat-loss", unit="fa")
    act(g, EN, type="retreat-loss", unit="fa")  # the same corps twice: reduced, then eliminated
    act(g, EN, type="retreat-loss", unit="fb")
    assert g.state.pieces["fa"].loc.ref == M.ELIMINATED and g.state.pieces["fb"].face == "reduced"


@pytest.mark.rules("LGG 19-C", "LGG 20-A")
def test_lgg_19c_retreat_during_the_opponents_turn_then_no_reaction() -> None:
    g = _g()
    play_until(g, "retreat-declaration", chooser=_first(CP))
    f = g.current()[1]
    assert g.acting_sides() == [EN] and f.params["own"] is False  # the opponent declares first
    act(g, EN, type="strategic-retreat", armies=["FR-2"])
    g.apply(next(x for x in g.legal_actions(EN) if x["type"] == "move" and x["units"] == ["f2"]))
    g.apply(next(x for x in g.legal_actions(EN) if x["type"] == "move" and x["units"] == ["fh2"]))
    act(g, EN, type="end-movement")
    while g.current()[1].step == "retreat-losses":
        act(g, EN, type="retreat-loss", unit="f2")
    assert M.st(g)["retreated"]["FR-2"] == M.turn_index(g)
    assert int(M.st(g)["activated"].get("FR-2", 0)) == 0  # not one of its own-turn activations
    from grognard.rulesets.lgg1418.military import reaction

    assert "strategic retreat" in reaction.why_not_react(g, EN, "West", "FR-2")


@pytest.mark.rules("LGG 19-A", "LGG 36.3", "LGG [11.4-X]")
def test_lgg_19a_lgg66_not_in_fire_doctrine_nor_for_obliged_armies() -> None:
    g = _g(rules={"first_turn": "1915-01", "last_turn": "1915-03"})
    assert "Fire Doctrine" in retreat.why_not_retreat(g, EN, "West", "FR-1", True)
    assert retreat.retreat_candidates(g, EN, "West", True) == []
    g2 = _g(
        rules={
            "first_turn": "1914-08",
            "war_plans": {"FR": {"plan": "plan-xvii", "must_attack": ["FR-1"]}},
        }
    )
    assert "must attack" in retreat.why_not_retreat(g2, EN, "West", "FR-1", True)


@pytest.mark.rules("LGG 12", "LGG 12-A", "LGG 12-B")
def test_lgg_12_lgg67_reform_out_of_contact_restores_a_unit_for_free() -> None:
    g = _g(face="reduced", rules={"powers": {"FR": {"pr_stock": 5, "pr_flow": 2}}})
    stock = int(g.state.tracks["pr"]["FR"]["stock"])
    play_until(g, "choose-activation", chooser=_first(EN))
    legal = g.legal_actions(EN)
    assert {"type": "reform", "side": EN, "army": "FR-1", "unit": "fa"} in legal
    act(g, EN, type="reform", army="FR-1", unit="fa")
    assert M.st(g)["activation"]["kind"] == retreat.REFORM_KIND
    # moving closer to the enemy lines breaks 12-A
    enemy = M.enemy_present_hexes(g, EN)

    def gap(h: str) -> int:
        return min(g.board.distance(g.board.idx(h), e) for e in enemy)

    closer = next(
        x["to"]
        for x in g.legal_actions(EN)
        if x["type"] == "move" and x["units"] == ["fb"] and gap(x["to"]) < gap("0404")
    )
    g.apply({"type": "move", "side": EN, "units": ["fb"], "to": closer, "mode": "normal"})
    from .helpers import decline_interrupts

    decline_interrupts(g)
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "end-movement", "side": EN})
    assert e.value.rule == "LGG 12-A" and "closer" in e.value.message
    assert not any(x["type"] == "end-movement" for x in g.legal_actions(EN))
    g.apply({"type": "move", "side": EN, "units": ["fb"], "to": "0404", "mode": "normal"})
    act(g, EN, type="end-movement")
    play_until(g, "choose-activation")
    assert g.state.pieces["fa"].face == "full"
    assert int(g.state.tracks["pr"]["FR"]["stock"]) == stock  # +1 PR spent at once
    assert any(e["type"] == "reform" and e["rule"] == "LGG 12-B" for e in g.state.log)


@pytest.mark.rules("LGG 12-A", "LGG 4-A")
def test_lgg_12a_hidden_contact_is_revealed_and_prevents_the_reform() -> None:
    near = next(h for h in ring("0405") if h.startswith("05"))
    g = _g(face="reduced", de_at=near)  # a German corps next to the FR-1 corps at 0405
    play_until(g, "choose-activation", chooser=_first(EN))
    act(g, EN, type="reform", army="FR-1", unit="fa")
    act(
        g, EN, type="end-movement"
    )  # the marker might be a decoy: accepted from what the French know
    play_until(g, "choose-activation")
    assert g.state.pieces["fa"].face == "reduced"
    ev = [e for e in g.state.log if e["type"] == "reform"][-1]
    assert ev.get("reveal") and ev["rule"] == "LGG 12-A"


@pytest.mark.rules("LGG 12-B", "LGG 19-D")
def test_lgg_12_option_19_only_reform_after_a_strategic_retreat() -> None:
    g = _g(face="reduced", options={"strategic-retreat-12": "19-only"})
    play_until(g, "choose-activation", chooser=_first(EN))
    assert not any(x["type"] == "reform" for x in g.legal_actions(EN))
    g2 = _g(face="reduced", options={"strategic-retreat-12": "19-only"})
    _to_declaration(g2, EN, own=True)
    act(g2, EN, type="strategic-retreat", armies=["FR-1"])
    for uid in ("fa", "fb", "fh"):
        g2.apply(
            next(
                x
                for x in g2.legal_actions(EN)
                if x["type"] == "move" and x["units"] == [uid] and x["mode"] == "normal"
            )
        )
    act(g2, EN, type="end-movement")
    assert g2.current()[1].step == "reform-choice"
    act(g2, EN, type="reform-unit", unit="fa")
    assert g2.state.pieces["fa"].face == "full"
    assert g2.current()[1].step == "retreat-losses"


class _GreatRetreatRecorder(Step):
    name = hooks.GREAT_RETREAT
    rule = "test"

    def enter(self, g, f) -> None:
        g.state.vars.setdefault("great", []).append(dict(f.params))


class GreatRetreatLgg(LaGrandeGuerre):
    name = "lgg1418-great-retreat"
    step_classes = (*LaGrandeGuerre.step_classes, _GreatRetreatRecorder)

    @property
    def data_dir(self):
        return LaGrandeGuerre().data_dir


rulesets.register(GreatRetreatLgg)


@pytest.mark.rules("LGG 47", "LGG 19-A")
def test_lgg_19a_great_retreat_hook_at_the_start_of_the_russian_turn() -> None:
    areas = [
        {
            "name": "Russian",
            "kind": "sector",
            "hexes": [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 9)],
        }
    ]
    pieces = [
        hq("rh", "RU", "0404", "RU-1"),
        corps("ra", "RU", "0405", army="RU-1"),
        ghq("rg", "RU", "0101"),
        hq("dh", "DE", "0707", "DE-1"),
        corps("da", "DE", "0706", army="DE-1"),
        ghq("dg", "DE", "0808"),
    ]
    rules = {
        "fronts": ["East"],
        "armies": [army("RU-1", "RU", "rh"), army("DE-1", "DE", "dh")],
        "main_armies": {EN: {"East": "RU-1"}, CP: {"East": "DE-1"}},
    }
    g = game(pieces=pieces, areas=areas, rules=rules, ruleset="lgg1418-great-retreat")
    play_until(g, "choose-activation", chooser=_first(EN))
    assert g.state.vars["great"] == [{"side": EN, "front": "East", "moment": "start-of-turn"}]
    assert ring("0404")  # the map is the ordinary test map


@pytest.mark.rules("LGG 19-A")
def test_lgg_19a_rail_retreat_must_end_closer_to_a_source() -> None:
    rail = [
        {
            "name": "r",
            "kind": "rail",
            "paths": [["0101", "0102", "0103", "0104", "0105", "0205", "0305", "0405", "0505"]],
        }
    ]
    areas = [
        {
            "name": "FR",
            "kind": "country",
            "attrs": {"nation": "FR"},
            "hexes": [f"{c:02d}{r:02d}" for c in range(1, 6) for r in range(1, 9)],
        }
    ]
    g = game(
        pieces=_pieces(),
        places=[PARIS, BERLIN],
        control=CONTROL,
        rules=_rules(),
        networks=rail,
        areas=areas,
    )
    _to_declaration(g, EN, own=True)
    act(g, EN, type="strategic-retreat", armies=["FR-1"])
    dests = {a["to"] for a in g.legal_actions(EN) if a["type"] == "rail" and a["units"] == ["fa"]}
    assert "0103" in dests and "0505" not in dests
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "rail", "side": EN, "units": ["fa"], "to": "0505"})
    assert e.value.rule == "LGG 19-A"


@pytest.mark.rules("LGG 12-A")
def test_lgg_12a_reform_movement_may_end_once_no_unit_can_mend_the_breach() -> None:
    """A reform whose army moved closer to the enemy and can no longer move is not left without a
    legal action: the movement ends and the reform fails (found by self-play of lgg-west-1914)."""
    g = _g(face="reduced", rules={"powers": {"FR": {"pr_stock": 5, "pr_flow": 2}}})
    play_until(g, "choose-activation", chooser=_first(EN))
    act(g, EN, type="reform", army="FR-1", unit="fa")
    enemy = M.enemy_present_hexes(g, EN)

    def gap(h: str) -> int:
        return min(g.board.distance(g.board.idx(h), e) for e in enemy)

    closer = next(
        x["to"]
        for x in g.legal_actions(EN)
        if x["type"] == "move" and x["units"] == ["fb"] and gap(x["to"]) < gap("0404")
    )
    g.apply({"type": "move", "side": EN, "units": ["fb"], "to": closer, "mode": "normal"})
    from .helpers import decline_interrupts

    decline_interrupts(g)
    assert not any(x["type"] == "end-movement" for x in g.legal_actions(EN))  # fb may still go back
    serial = M.st(g)["activation"]["serial"]
    for pid in ("fa", "fb", "fh"):  # every unit of the army has ended its movement
        M.set_attr(g, g.state.pieces[pid], "mv_act", serial)
        M.set_attr(g, g.state.pieces[pid], "mv_stop", True)
    g.invalidate()
    assert {"type": "end-movement", "side": EN} in g.legal_actions(EN)
    act(g, EN, type="end-movement")
    play_until(g, "choose-activation")
    assert g.state.pieces["fa"].face == "reduced"
    ev = [e for e in g.state.log if e["type"] == "reform"][-1]
    assert ev["rule"] == "LGG 12-A" and "closer" in ev["text"]
