"""LGG 29: secondary battles - the limits per sector and turn, their bombardment and duration; the
October 1914 limits of 36.2-A and the intercepted stacks of 36.5-B."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import main_battle
from grognard.rulesets.lgg1418.military import secondary
from grognard.rulesets.lgg1418.units import doctrine
from tests.lgg1418.battle_helpers import bgame, de, drive, fr, fr_art, in_step, last_battle
from tests.lgg1418.helpers import CP, EN, act, army, hq, play_until
from tests.lgg1418.quiet import quiet

ARMIES = [army("FR-1", "FR", "fh"), army("FR-2", "FR", "fh2"), army("DE-1", "DE", "dh")]


def _g(turn: str = "1915-03", extra=(), **kw):
    pieces = [
        fr("fa", "0405"),
        fr("fb", "0504"),
        fr("fc", "0405"),
        fr("fd", "0306", army="FR-2"),
        hq("fh2", "FR", "0406", "FR-2"),
        de("d1", "0404"),
        de("d2", "0503"),
        de("d3", "0305"),
        *extra,
    ]
    return bgame(pieces, first=turn, rules={"armies": ARMIES}, **kw)


def _to_activation(g, army_id: str) -> None:
    def chooser(g, s, legal):
        movers = [a for a in legal if a["type"] == "first-mover"]
        if movers:
            return next(a for a in movers if a["first"] == EN)
        if s == EN:
            return next(
                (a for a in legal if a["type"] == "activate" and a["army"] == army_id), None
            )
        return next((a for a in legal if a["type"] == "end-turn"), None)

    play_until(g, "activation-movement", quiet(chooser))


@pytest.mark.rules("LGG 29", "LGG 36.3")
def test_lgg_29_two_secondary_battles_per_sector_and_turn() -> None:
    g = _g()
    _to_activation(g, "FR-1")
    act(g, EN, type="move", units=["fa"], to="0404", mode="normal")
    act(g, EN, type="move", units=["fb"], to="0503", mode="normal")
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "move", "side": EN, "units": ["fc"], "to": "0305", "mode": "normal"})
    assert e.value.rule == "LGG 29" and "2 secondary battles" in str(e.value)
    act(
        g, EN, type="move", units=["fc"], to="0404", mode="normal"
    )  # joining a declared battle is fine
    act(g, EN, type="end-movement")
    drive(g, quiet(), until=lambda g: M.st(g).get("activation") is None)
    recs = secondary.secondary_battles(g, EN, "French")
    assert sorted(r["hex"] for r in recs) == ["0404", "0503"]  # counted by the battles' preparation

    # the next activation of the side finds the sector's limit used up
    def chooser(g, s, legal):
        return next((a for a in legal if a["type"] == "activate" and a["army"] == "FR-2"), None)

    play_until(g, "activation-movement", quiet(chooser))
    a = M.st(g)["activation"]
    assert a["armies"] == ["FR-2"]
    with pytest.raises(IllegalAction) as e:
        secondary.battle_limit_check(
            g, a, [g.state.pieces["fd"]], g.board.idx("0305"), "normal", True
        )
    assert e.value.rule == "LGG 29"


@pytest.mark.rules("LGG 29")
def test_lgg_29_only_secondary_battles_on_the_balkan_armenian_oriental_sectors() -> None:
    areas = [{"name": "Balkan", "kind": "sector", "hexes": ["0404", "0405"]}]
    g = _g(areas=areas)
    p = g.state.pieces["fa"]
    a = {"serial": 5, "side": EN, "front": "East", "great_offensive": "x", "armies": ["FR-1"]}
    with pytest.raises(IllegalAction) as e:
        secondary.battle_limit_check(g, a, [p], g.board.idx("0404"), "normal", True)
    assert e.value.rule == "LGG 29"
    assert secondary.battle_sector(g, g.board.idx("0404"), EN, ["FR-1"]) == "Balkan"


@pytest.mark.rules("LGG 29", "LGG 17.3-F", "LGG 23-G")
def test_lgg_29_counted_by_other_rules_and_breakthroughs_free() -> None:
    g = _g()
    secondary.count_battle(g, EN, "0404", "secondary", ["FR-1"], activation=1)
    secondary.count_battle(
        g, EN, "0404", "secondary", ["FR-1"], activation=1
    )  # the same battle counts once
    secondary.count_battle(g, EN, "0503", "secondary", ["FR-1"], activation=2)
    assert len(secondary.secondary_battles(g, EN, "French")) == 2
    p = g.state.pieces["fc"]
    a = {"serial": 3, "side": EN, "front": "West", "armies": ["FR-1"]}
    with pytest.raises(IllegalAction):
        secondary.battle_limit_check(g, a, [p], g.board.idx("0305"), "normal", True)
    secondary.battle_limit_check(
        g, {**a, "breakthrough": True}, [p], g.board.idx("0305"), "normal", True
    )
    secondary.battle_limit_check(g, a, [p], g.board.idx("0306"), "normal", False)  # a plain move


@pytest.mark.rules("LGG 36.2-A")
def test_lgg_36_2a_october_trenches_two_voluntary_attacks_and_one_in_a_reaction() -> None:
    g = _g("1914-10")
    doctrine.set_doctrine(g, "FR", "West", "trenches")
    p = g.state.pieces["fc"]
    a = {"serial": 3, "side": EN, "front": "West", "armies": ["FR-1"]}
    secondary.battle_limit_check(g, a, [p], g.board.idx("0305"), "normal", True)
    secondary.count_battle(g, EN, "0404", "voluntary", ["FR-1"], activation=1)
    secondary.count_battle(g, EN, "0503", "voluntary", ["FR-1"], activation=2)
    with pytest.raises(IllegalAction) as e:
        secondary.battle_limit_check(g, a, [p], g.board.idx("0305"), "normal", True)
    assert e.value.rule == "LGG 36.2-A"
    g2 = _g("1914-10")
    doctrine.set_doctrine(g2, "FR", "West", "trenches")
    secondary.count_battle(g2, EN, "0404", "voluntary", ["FR-1"], activation=9)
    r = {"serial": 9, "side": EN, "front": "West", "armies": ["FR-1"], "reaction": True}
    with pytest.raises(IllegalAction) as e:
        secondary.battle_limit_check(
            g2, r, [g2.state.pieces["fc"]], g2.board.idx("0305"), "normal", True
        )
    assert "reaction" in str(e.value)
    g3 = _g("1914-10")  # the side did not switch: no limit
    for k in range(4):
        secondary.count_battle(g3, EN, f"050{k + 1}", "voluntary", ["FR-1"], activation=k)
    secondary.battle_limit_check(
        g3, a, [g3.state.pieces["fc"]], g3.board.idx("0305"), "normal", True
    )


@pytest.mark.rules("LGG 29-A", "LGG 29-B", "LGG 29")
def test_lgg_29a_29b_secondary_battle_preparation() -> None:
    g = _g(extra=[fr_art("fart", "0405")])
    g.state.tracks["mun"] = {"FR": {"stock": 10}, "DE": {"stock": 10}}
    _to_activation(g, "FR-1")
    act(g, EN, type="move", units=["fa"], to="0404", mode="normal")
    act(g, EN, type="move", units=["fart"], to="0404", mode="normal")
    act(g, EN, type="end-movement")
    drive(
        g, quiet(), until=in_step("bombardment-choice")
    )  # no battle orders in a secondary battle (step B)
    rec = last_battle(g)
    assert rec.kind == "secondary"
    assert not any(
        e.get("data", {}).get("key", "").startswith("battle-orders") for e in g.state.log
    )
    act(g, EN, type="bombardment", kind="normal")
    assert g.current()[1].step != "front-reinforcement"  # no step C
    assert g.state.tracks["mun"]["FR"]["stock"] == 9
    res = main_battle.prep(rec)["bombardment_result"]
    assert "bombardment-secondary" in res["explain"]
    assert not any(
        e["type"] == "counter-battery" for e in g.state.log
    )  # step E: no counter-battery
    spec = rec.spec
    assert spec["obstinacy_from_round"] == 1 and spec["min_rounds"] >= 2  # 29-B
    assert "after_round" not in spec  # no lull
    drive(g, quiet(), until=lambda g: M.st(g).get("activation") is None)
    assert battle.rec_of(g, rec.id).ended


@pytest.mark.rules("LGG 29-B")
def test_lgg_29b_obstinacy_and_two_rounds_after_a_bombardment() -> None:
    g = _g()
    assert secondary.secondary_spec(g, ["FR-1"], bombarded=True) == {
        "obstinacy_from_round": 1,
        "min_rounds": 2,
    }
    assert secondary.secondary_spec(g, ["FR-1"], bombarded=False) == {
        "obstinacy_from_round": 1,
        "min_rounds": 2,
    }
    g.state.pieces["fgen"].faces["front"]["obstinacy"] = 1
    assert (
        secondary.secondary_spec(g, ["FR-1"], bombarded=True)["min_rounds"] == 2
    )  # even with obstinacy 1
    assert secondary.secondary_spec(g, ["FR-1"], bombarded=False)["min_rounds"] == 1


@pytest.mark.rules("LGG 36.5-B")
def test_lgg_36_5b_intercepted_stack_no_bombardment_battle_not_counted() -> None:
    g = _g("1917-03", extra=[fr_art("fart", "0404")])
    M.st(g)["combined_from"] = 0
    M.move_piece(
        g,
        g.state.pieces["fa"],
        __import__("grognard.core.state", fromlist=["Loc"]).Loc.hex(g.board.idx("0404")),
    )
    M.st(g)["activation"] = {"serial": 4, "side": EN, "front": "West", "armies": ["FR-1"]}
    rec = battle.rec_of(g, battle.battle_params(g, hex="0404", attacker=EN)["battle"])
    assert main_battle.bombardment_allowed(g, rec) is None
    g.state.set_marker(
        "interception", "0404", {"turn": M.turn_index(g), "activation": 4, "side": CP}
    )
    assert main_battle.intercepted(g, rec)
    assert "intercepted" in main_battle.bombardment_allowed(g, rec)
    assert main_battle.classify(g, rec, M.st(g)["activation"]) == "secondary"
    assert secondary.battle_kind(g, M.st(g)["activation"], EN, "0404", ["FR-1"]) == "secondary"
