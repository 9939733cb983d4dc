"""LGG 16.5 (combat result: losses, combativeness tests, PR) and the loss-for-hex exchange of
36.1."""

from __future__ import annotations

import pytest

from grognard.core.state import Loc
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import battle_retreat, battle_steps
from grognard.rulesets.lgg1418.military.reinforcement import pr_stock
from tests.lgg1418.battle_helpers import (
    base_pieces,
    bgame,
    de,
    decide,
    engage,
    force_dice,
    fr,
    open_battle,
)
from tests.lgg1418.helpers import CP, EN


def _hit(g, rec, uid: str, res: str, sub: str = "A", keep: bool = True):
    """Queue a result; a Movement defender is asked about the exchange (16.5-A): keep the loss
    unless ``keep`` is false (then the question is returned)."""
    rec.queue.append({"t": "hit", "unit": uid, "res": res, "sub": sub, "stage": "start"})
    child = battle_steps.process_queue(g, rec)
    if keep and child is not None and child[1]["kind"] == "exchange":
        decide(g, child, "keep")
        child = battle_steps.process_queue(g, rec)
    return child


def _last_roll(g):
    return [ev for ev in g.state.log if ev["type"] == "roll"][-1]


def _isolated_game(extra, **kw):
    ring = [de(f"r{k}", h) for k, h in enumerate(("0201", "0102", "0302", "0203", "0303", "0103"))]
    return bgame(extra + ring, base=base_pieces(fr_hq="0808", de_hq="0401"), **kw)


@pytest.mark.rules("LGG 16.5", "LGG 16.5-A")
def test_lgg_16_5a_lgg48_half_one_and_e_results(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame(
        [fr("fa", "0404"), fr("fb", "0404"), fr("fc", "0404"), fr("fd", "0404"), de("da", "0404")]
    )
    rec = open_battle(g, "0404", EN)
    dice.push(3)  # odd: the ½ costs a loss
    assert _hit(g, rec, "fa", "½") is None
    assert g.state.pieces["fa"].face == "reduced" and rec.losses[EN] == 1
    dice.push(4)  # even: nothing
    _hit(g, rec, "fb", "½")
    assert g.state.pieces["fb"].face == "full" and rec.losses[EN] == 1
    _hit(g, rec, "fc", "1")
    assert g.state.pieces["fc"].face == "reduced" and rec.losses[EN] == 2
    pr0 = pr_stock(g, "FR")
    _hit(g, rec, "fd", "E")
    assert g.state.pieces["fd"].loc == Loc.box(M.ELIMINATED)
    assert rec.unit_losses["fd"] == 2 and pr_stock(g, "FR") == pr0 - 1  # 2 losses and 1 PR


@pytest.mark.rules("LGG 16.5-A", "LGG 16.5-B")
def test_lgg_16_5a_lgg48_isolated_unit_destroyed_counts_two_losses() -> None:
    g = _isolated_game(
        [fr("fa", "0202", face="reduced"), de("da", "0202")],
        options={"combativeness-trigger": "per-round"},
    )
    rec = open_battle(g, "0202", CP)
    _hit(g, rec, "fa", "1")  # a loss a reduced corps cannot absorb
    assert g.state.pieces["fa"].loc == Loc.box(M.ELIMINATED)
    assert rec.unit_losses["fa"] == 2


@pytest.mark.rules("LGG 16.5-A", "LGG 16.5-B")
def test_lgg_16_5a_lgg49_result_two_and_the_two_loss_cap(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame(
        [fr("fa", "0404"), fr("fb", "0404", face="reduced"), fr("fc", "0404"), de("da", "0404")]
    )
    rec = open_battle(g, "0404", EN)
    dice.push(9)  # active corps: 9 holds
    child = _hit(g, rec, "fa", "2")
    assert g.state.pieces["fa"].face == "reduced" and rec.unit_losses["fa"] == 2
    assert _last_roll(g)["data"]["modifiers"] == []  # a full corps hit by a 2: no extra modifier
    decide(g, child, "pay-pr")
    assert battle_steps.process_queue(g, rec) is None
    dice.push(9)
    child = _hit(g, rec, "fb", "2")
    mods = _last_roll(g)["data"]["modifiers"]
    assert [(m["value"], m["rule"]) for m in mods] == [(-2, "LGG 16.5-A")]
    decide(g, child, "pay-pr")
    battle_steps.process_queue(g, rec)
    dice.push(9)
    child = _hit(g, rec, "fc", "M")
    decide(g, child, "pay-pr")
    battle_steps.process_queue(g, rec)
    _hit(g, rec, "fc", "1")  # a corps never takes more than 2 losses in one round
    assert rec.unit_losses["fc"] == 2


@pytest.mark.rules("LGG 16.5-B")
def test_lgg_16_5b_lgg50_exploits(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame(
        [
            fr("fa", "0404", morale="elite"),
            fr("fb", "0404", morale="elite"),
            fr("fc", "0404", morale="elite", face="reduced"),
            de("da", "0404"),
        ]
    )
    rec = open_battle(g, "0404", EN)
    pr0 = pr_stock(g, "FR")
    dice.push(11)  # elite: 11 is an exploit
    assert _hit(g, rec, "fa", "M") is None
    assert (
        rec.unit_losses["fa"] == 1
        and g.state.pieces["fa"].face == "full"
        and pr_stock(g, "FR") == pr0
    )
    dice.push(11)
    _hit(g, rec, "fb", "2")
    assert rec.unit_losses["fb"] == 1 and g.state.pieces["fb"].face == "reduced"
    dice.push(11)
    _hit(
        g, rec, "fc", "1"
    )  # a loss on a reduced corps: test (option combativeness-trigger = cumulative)
    assert rec.unit_losses.get("fc", 0) == 0 and g.state.pieces["fc"].loc.kind == "hex"


@pytest.mark.rules("LGG 16.5-B", "LGG 9-H")
def test_lgg_16_5b_lgg50_no_pr_isolated_or_refused_means_elimination(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame([fr("fa", "0404"), de("da", "0404")], pr=0)
    rec = open_battle(g, "0404", EN)
    dice.push(9)
    assert _hit(g, rec, "fa", "M") is None  # no PR to pay: eliminated without being asked
    assert g.state.pieces["fa"].loc == Loc.box(M.ELIMINATED)
    g2 = bgame([fr("fa", "0404"), de("da", "0404")])
    rec2 = open_battle(g2, "0404", EN)
    dice.push(9)
    child = _hit(g2, rec2, "fa", "M")
    decide(g2, child, "refuse-pr")
    battle_steps.process_queue(g2, rec2)
    assert g2.state.pieces["fa"].loc == Loc.box(M.ELIMINATED)  # the player would not pay
    g4 = _isolated_game([fr("fa", "0202"), de("da", "0202")])
    rec4 = open_battle(g4, "0202", CP)
    assert (
        battle.pr_budget(g4, rec4, "fa") == 0
    )  # an isolated unit may spend no PR (its HQ is not with it)
    dice.push(9)
    assert _hit(g4, rec4, "fa", "M") is None
    assert g4.state.pieces["fa"].loc == Loc.box(M.ELIMINATED)


@pytest.mark.rules("LGG 16.5-B")
def test_lgg_16_5b_lgg51_out_of_combat_and_disorganized(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame([fr("fa", "0404"), fr("fb", "0404"), de("da", "0404")])
    rec = open_battle(g, "0404", EN)
    dice.push(2)  # active: 2 is out of combat
    decide(g, _hit(g, rec, "fa", "M"), "pay-pr")
    battle_steps.process_queue(g, rec)
    p = g.state.pieces["fa"]
    assert (
        p.loc == Loc.box(M.OUT_OF_COMBAT)
        and p.face == "reduced"
        and rec.units["fa"]["state"] == "out"
    )
    dice.push(4)  # 3-4: disorganized
    decide(g, _hit(g, rec, "fb", "M"), "pay-pr")
    battle_steps.process_queue(g, rec)
    assert rec.units["fb"]["state"] == "disorganized"
    g2 = _isolated_game([fr("fa", "0202"), de("da", "0202")], pr=5)
    rec2 = open_battle(g2, "0202", CP)
    battle.out_of_combat(g2, rec2, "fa", "LGG 16.5-B")
    assert g2.state.pieces["fa"].loc == Loc.box(M.ELIMINATED)  # isolated: eliminated instead


@pytest.mark.rules("LGG 16.5-B", "LGG 28-B")
def test_lgg_16_5b_lgg51_panic(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame(
        [fr("fa", "0404", face="reduced"), fr("fb", "0404"), fr("fc", "0404"), de("da", "0404")]
    )
    rec = open_battle(g, "0404", EN)
    dice.push(1, 6, 9)  # 1 - 2 = -1: panic; then the two others test: 6 repulsed, 9 holds
    child = _hit(g, rec, "fa", "2")
    assert g.state.pieces["fa"].loc == Loc.box(M.ELIMINATED) and rec.panic == EN
    decide(g, child, "pay-pr")  # fb repulsed: pays (its owner may refuse)
    child = battle_steps.process_queue(g, rec)
    decide(g, child, "pay-pr")
    assert battle_steps.process_queue(g, rec) is None
    assert rec.units["fb"].get("panic_retreat") == 3 and not rec.units["fc"].get("panic_retreat")
    # the tests after a panic ignore the trench bonus of 28-B
    g2 = bgame([fr("fa", "0404"), de("da", "0404"), de("db", "0404")], first="1915-03")
    rec2 = open_battle(g2, "0404", EN, table="trench")
    assert [m.rule for m in battle.test_modifiers(g2, rec2, "db")] == ["LGG 28-B"]
    assert list(battle.test_modifiers(g2, rec2, "db", panic=True)) == []


@pytest.mark.rules("LGG 16.5-B", "LGG 16.5-A")
def test_lgg_16_5b_a46_panic_tests_chosen_by_the_owner(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame(
        [fr("fa", "0404", face="reduced")]
        + [fr(f"f{k}", "0404") for k in range(3)]
        + [de("da", "0404")]
    )
    rec = open_battle(g, "0404", EN)
    dice.push(1)
    child = _hit(g, rec, "fa", "2")
    assert child is not None and child[1]["kind"] == "panic-pick"
    decide(g, child, "panic-test", unit="f2")
    child = battle_steps.process_queue(g, rec)
    decide(g, child, "panic-test", unit="f0")
    assert [it["unit"] for it in rec.queue[:2]] == ["f2", "f0"]


# ====================================================================== exchange (16.5-A, 36.1)
@pytest.mark.rules("LGG 16.5-A", "LGG 36.1", "LGG 16.7-B")
def test_lgg_16_5a_lgg4_lgg3_exchange_a_loss_for_a_retreat_hex(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame([fr("fa", "0404"), de("da", "0404")])
    rec = open_battle(g, "0404", EN)
    engage(rec, "A", "fa", "da")
    child = _hit(g, rec, "da", "M", keep=False)
    assert child is not None and child[1]["kind"] == "exchange"  # declared before the test
    decide(g, child, "exchange")
    assert battle_steps.process_queue(g, rec) is None  # M became 1: a flip, no test
    assert rec.unit_losses["da"] == 1 and g.state.pieces["da"].face == "reduced"
    assert rec.forced_retreat == CP and rec.retreat_extra == 1
    rec.winner, rec.loser = EN, CP
    assert battle_retreat.extent(g, rec, CP) == (2, 3)
    rec.bold = True
    assert battle_retreat.extent(g, rec, CP) == (3, 3)
    # never for an E
    g2 = bgame([fr("fa", "0404"), de("da", "0404")])
    rec2 = open_battle(g2, "0404", EN)
    assert _hit(g2, rec2, "da", "E") is None
    # not when isolated: 2 losses and a test
    g3 = _isolated_game([fr("fa", "0202"), de("da", "0202")])
    rec3 = open_battle(g3, "0202", CP)
    dice.push(9)
    child = _hit(g3, rec3, "fa", "M", keep=False)
    step = g3.steps["battle-decision"]
    from grognard.core.state import Frame

    assert [a["type"] for a in step.legal_actions(g3, Frame(child[0], child[1]), EN)] == [
        "keep"
    ]  # asked, refused
    decide(g3, child, "keep")
    battle_steps.process_queue(g3, rec3)
    assert rec3.unit_losses["fa"] == 2


@pytest.mark.rules("LGG 16.5-A")
def test_lgg_16_5a_no_exchange_in_fire_doctrine() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404")], first="1915-03")
    rec = open_battle(g, "0404", EN)
    rec.queue.append({"t": "hit", "unit": "da", "res": "1", "sub": "A", "stage": "start"})
    assert battle_steps.process_queue(g, rec) is None
    assert rec.unit_losses["da"] == 1
