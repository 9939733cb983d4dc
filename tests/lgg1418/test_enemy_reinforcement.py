"""LGG 14: enemy reinforcement, and the defender's set-up before a battle in a fortress hex
(23-C)."""

from __future__ import annotations

from typing import Any

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle.base import BattleRecord
from grognard.rulesets.lgg1418.military import enemy_reinforcement as ER
from grognard.rulesets.lgg1418.military.stacking import counts_for_stacking

from .helpers import (
    CP,
    EN,
    act,
    army,
    corps,
    force_dice,
    fortress,
    game,
    ghq,
    hq,
    place_at,
    to_activation,
)

T = "0605"  # the attacked hex; 0505, 0604, 0506, 0606 and 0705 are next to it


def _pieces(extra: list[dict] | None = None, ghq_at: str = "0101") -> list[dict]:
    return [
        hq("dh", "DE", "0806", "DE-1"),
        corps("de", "DE", "0706", army="DE-1"),
        corps("fa", "FR", T, army="FR-1"),
        corps("fb", "FR", "0505", army="FR-1"),
        corps("fc", "FR", "0505", army="FR-1"),
        hq("fh", "FR", "0506", "FR-1", coord=3),
        corps("res", "FR", {"inside": "fh"}, army="FR-1", status=["reserve"]),
        hq("gh", "FR", "0503", "FR-2", coord=4),
        corps("g1", "FR", "0604", army="FR-2"),
        corps("g2", "FR", "0604", army="FR-2"),
        corps("g3", "FR", "0604", army="FR-2"),
        corps("g4", "FR", "0604", army="FR-2"),
        hq("bh", "GB", "0707", "GB-1"),
        corps("b1", "GB", "0606", army="GB-1"),
        corps("b2", "GB", "0606", army="GB-1"),
        ghq("fg", "FR", ghq_at),
        *(extra or []),
    ]


def _rules(**kw: Any) -> dict:
    return {
        "armies": [
            army("DE-1", "DE", "dh"),
            army("FR-1", "FR", "fh"),
            army("FR-2", "FR", "gh"),
            army("GB-1", "GB", "bh"),
        ],
        "main_armies": {CP: {"West": "DE-1"}, EN: {"West": "FR-1"}},
        **kw,
    }


def _attack(extra: list[dict] | None = None, ghq_at: str = "0101", **rules: Any):
    g = game(pieces=_pieces(extra, ghq_at), rules=_rules(**rules))
    to_activation(g, CP, "DE-1")
    g.apply({"type": "move", "side": CP, "units": ["de"], "to": T, "mode": "normal"})
    act(g, CP, type="end-movement")
    assert g.current()[1].step == "enemy-reinforcement" and g.acting_sides() == [EN]
    return g


def _moves(g) -> list[dict]:
    return [a for a in g.legal_actions(EN) if a["type"] == "reinforce"]


@pytest.mark.rules("LGG 14", "LGG 14-A", "LGG 14-B")
def test_lgg_14a_14b_adjacent_units_leave_a_corps_reserves_join() -> None:
    g = _attack()
    moves = _moves(g)
    assert {"type": "reinforce", "side": EN, "units": ["fb"], "to": T} in moves
    assert not any(a["units"] == ["fb", "fc"] for a in moves)  # at least one corps stays at 0505
    assert {
        "type": "reinforce",
        "side": EN,
        "units": ["res"],
        "to": T,
    } in moves  # the HQ at 0506 is adjacent
    assert not any("b1" in a["units"] for a in moves)  # no reinforcement across nationalities
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "reinforce", "side": EN, "units": ["b1"], "to": T})
    assert e.value.rule == "LGG 14-A"
    act(g, EN, type="reinforce", units=["fb"], to=T)  # 14-B: same army, automatic
    act(g, EN, type="reinforce", units=["res"], to=T)
    assert M.hex_of(g, g.state.pieces["fb"]) == g.board.idx(T) and not M.in_reserve(
        g.state.pieces["res"]
    )
    assert [e for e in g.state.log if e["type"] == "reinforce"][-1]["visible_to"] == [EN]
    # a reinforced stack may not in turn reinforce another one
    assert T in g.current()[1].params["reinforced"]


@pytest.mark.rules("LGG 14-C")
def test_lgg_14c_lgg36_another_army_needs_a_test_then_sends_two_corps_that_go_back() -> None:
    g = _attack()
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "reinforce", "side": EN, "units": ["g1"], "to": T})
    assert "inter-army test" in e.value.message
    assert ER.inter_army_target(g, "FR-1", "FR-2") == 7  # LGG-36: 3 + 4 -> D12 >= 7
    force_dice(g, 12, 7)
    act(g, EN, type="inter-army-test", army="FR-2", to=T)
    assert g.current()[1].params["inter"]["FR-2@" + T]["ok"]
    act(g, EN, type="reinforce", units=["g1", "g2"], to=T)
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "reinforce", "side": EN, "units": ["g3"], "to": T})
    assert "2 corps" in e.value.message
    mk = g.state.marker("reinforced", T)
    assert set(mk["armies"]) == {"FR-1", "FR-2"}
    assert (
        g.ruleset.invariants(g) == []
    )  # two armies may share the defence of the hex during the battle
    serial = M.st(g)["activation"]["serial"]
    ER.return_inter_army_units(g, serial)  # after the battle (the activation's aftermath)
    assert M.hex_of(g, g.state.pieces["g1"]) == g.board.idx("0604")


@pytest.mark.rules("LGG 14-C")
def test_lgg_14c_lgg36_failed_test_and_ghq_two_hexes_away() -> None:
    g = _attack()
    force_dice(g, 12, 6)
    act(g, EN, type="inter-army-test", army="FR-2", to=T)
    assert not g.current()[1].params["inter"]["FR-2@" + T]["ok"]
    with pytest.raises(IllegalAction):
        g.apply({"type": "reinforce", "side": EN, "units": ["g1"], "to": T})
    with pytest.raises(IllegalAction):  # one test per army and hex
        g.apply({"type": "inter-army-test", "side": EN, "army": "FR-2", "to": T})
    g2 = _attack(ghq_at="0405")  # two hexes from the attacked hex: automatic
    assert ER.ghq_makes_it_automatic(g2, "FR", g2.board.idx(T))
    dice = g2.state.dice_counter
    act(g2, EN, type="inter-army-test", army="FR-2", to=T)
    assert g2.state.dice_counter == dice and g2.current()[1].params["inter"]["FR-2@" + T]["ok"]


@pytest.mark.rules("LGG 14-A", "LGG 10-A")
def test_lgg_14a_disorganize_to_make_room_within_stacking() -> None:
    extra = [corps(f"x{k}", "FR", T, army="FR-1") for k in range(5)]  # 6 corps in the attacked hex
    g = _attack(extra)
    assert not any(a["units"] == ["fb"] for a in _moves(g))
    act(g, EN, type="disorganize", unit="x0")
    x0 = g.state.pieces["x0"]
    assert "disorganized" in x0.status and x0.face == "full" and not counts_for_stacking(g, x0)
    act(g, EN, type="reinforce", units=["fb"], to=T)
    serial = M.st(g)["activation"]["serial"]
    ER.return_inter_army_units(g, serial)
    assert "disorganized" not in x0.status  # fit again after the battles


@pytest.mark.rules("LGG 14", "LGG 36.3", "LGG 23-C")
def test_lgg_14_not_in_fire_doctrine_but_the_fortress_set_up_stays() -> None:
    g = _attack(
        [fortress("fort", "FR", T), corps("gar", "FR", {"inside": "fort"}, garrison="fort")],
        first_turn="1915-01",
        last_turn="1915-01",
    )
    types = {a["type"] for a in g.legal_actions(EN)}
    assert types == {"enter-fortress", "end-reinforcement"}
    assert {"type": "enter-fortress", "side": EN, "units": ["fa"], "hex": T} in g.legal_actions(EN)
    act(g, EN, type="enter-fortress", units=["fa"], hex=T)
    assert g.state.pieces["fa"].loc.ref == "fort"
    # the fortress holds 2 corps with its garrison: no more room
    place_at(g, "fb", T)
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "enter-fortress", "side": EN, "units": ["fb"], "hex": T})
    assert e.value.rule == "LGG 23-C"


@pytest.mark.rules("LGG 36.5-A", "LGG 14")
def test_lgg_14_attacks_recorded_for_the_combined_reaction_rule() -> None:
    g = _attack()
    assert M.st(g)["attacked"]["DE-1"] == M.turn_index(g)


@pytest.mark.rules("LGG 14-A")
def test_lgg_14a_a_disorganized_corps_is_not_engaged_in_the_battle() -> None:
    g = _attack()
    act(g, EN, type="disorganize", unit="fa")
    act(g, EN, type="end-reinforcement")
    rec = BattleRecord(next(iter(M.st(g)["battles"].values())))
    assert rec.units["fa"]["state"] == "disorganized"


@pytest.mark.rules("LGG 14-A")
def test_lgg_14a_listing_the_reinforcements_changes_nothing() -> None:
    g = _attack()
    before = g.state_hash()
    g.legal_actions(EN)
    g.ruleset.view(g, CP)
    assert g.state_hash() == before


def _attack_autonomous(ghq_at: str):
    """DE-1 attacks T, held by the autonomous French corps au alone (fa is not there); the French
    GHQ stands at ``ghq_at``."""
    pieces = [p for p in _pieces(ghq_at=ghq_at) if p["id"] != "fa"] + [corps("au", "FR", T)]
    g = game(pieces=pieces, rules=_rules())
    to_activation(g, CP, "DE-1")
    g.apply({"type": "move", "side": CP, "units": ["de"], "to": T, "mode": "normal"})
    act(g, CP, type="end-movement")
    assert g.current()[1].step == "enemy-reinforcement" and g.acting_sides() == [EN]
    return g


@pytest.mark.rules("LGG 21", "LGG 14-A")
def test_lgg_21_an_autonomous_stack_is_reinforced_only_within_three_hexes_of_the_ghq() -> None:
    """The GHQ 3 hexes from T: the autonomous corps may be reinforced (fb from 0505, FR-2's corps
    from 0604, the HQ reserve); fb moves in. The GHQ 4 hexes away: no reinforcement is offered,
    and one asked for is refused, naming LGG 21, changing nothing."""
    g = _attack_autonomous("0305")
    assert g.board.distance(g.board.idx("0305"), g.board.idx(T)) == 3
    offered = {tuple(a["units"]) for a in _moves(g)}
    assert {("fb",), ("g1",), ("res",)} <= offered
    act(g, EN, type="reinforce", units=["fb"], to=T)
    assert M.hex_of(g, g.state.pieces["fb"]) == g.board.idx(T)
    g2 = _attack_autonomous("0205")
    assert g2.board.distance(g2.board.idx("0205"), g2.board.idx(T)) == 4
    assert _moves(g2) == []
    before = g2.state_hash()
    with pytest.raises(IllegalAction) as e:
        g2.apply({"type": "reinforce", "side": EN, "units": ["fb"], "to": T})
    assert g2.state_hash() == before and M.hex_of(g2, g2.state.pieces["fb"]) == g2.board.idx("0505")
    assert e.value.rule == "LGG 21" and "autonomous" in str(e.value)
