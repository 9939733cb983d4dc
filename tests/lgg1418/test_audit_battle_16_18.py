"""Audit of rules 16-18 against the seed: clauses found missing and now implemented."""

from __future__ import annotations

import pytest

from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import counteroffensive

from .battle_helpers import bgame, de, fr, open_battle
from .helpers import CP, EN, place_at, ring

WEAK = {"full": (2, 0, 3, 4), "reduced": (1, 0, 2, 4)}


def _beaten_attacker(extra: list[dict]):
    """The French attacked 0404 from 0405 and lost; their corps there is disorganized, back in
    0405."""
    g = bgame([fr("fa", "0405", **WEAK), de("da", "0404", full=(8, 3, 9, 4)), *extra])
    rec = open_battle(g, "0404", EN, froms={"fa": "0405"}, attacker_units=["fa"])
    place_at(g, "fa", "0404")
    rec.units["fa"]["state"] = "disorganized"
    place_at(g, "fa", "0405")
    rec.winner, rec.loser, rec.ended_by, rec.ended = CP, EN, "test", True
    return g, rec


def _side_hex() -> str:
    return next(h for h in ring("0405") if h != "0404" and h in ring("0404"))


@pytest.mark.rules("LGG 18-A")
def test_lgg_18a_audit_former_attacker_without_fit_units_intercepts_with_an_adjacent_stack() -> (
    None
):
    side_hex = _side_hex()
    g, rec = _beaten_attacker([fr("fc", side_hex)])
    j = g.board.idx("0405")
    assert counteroffensive.interception_stacks(g, rec, j) == [side_hex]
    step = g.steps["counter-offensive-battle"]
    f = Frame(
        "counter-offensive-battle",
        {"battle": rec.id, "to": "0405", "stage": "reinforce", "units": ["da"]},
    )
    place_at(g, "da", "0405")
    child = step.next_child(g, f)
    assert child == ("counter-offensive-interception", {"battle": rec.id, "to": "0405"})
    ist = g.steps[child[0]]
    fi = Frame(child[0], dict(child[1]))
    legal = ist.legal_actions(g, fi, EN)
    assert [a["type"] for a in legal] == ["co-intercept", "no-co-intercept"]
    ist.apply(g, fi, legal[0])
    assert M.hex_of(g, g.state.pieces["fc"]) == j
    name, params = step.next_child(g, f)
    co = battle.rec_of(g, params["battle"])
    assert name == "battle" and co.spec["defender_units"] == [
        "fc"
    ]  # the intercepting stack defends


@pytest.mark.rules("LGG 18-A")
def test_lgg_18a_audit_no_interception_when_fit_units_defend_or_no_stack_is_adjacent() -> None:
    g, rec = _beaten_attacker([])
    j = g.board.idx("0405")
    assert counteroffensive.interception_stacks(g, rec, j) == []
    step = g.steps["counter-offensive-battle"]
    f = Frame(
        "counter-offensive-battle",
        {"battle": rec.id, "to": "0405", "stage": "reinforce", "units": ["da"]},
    )
    place_at(g, "da", "0405")
    name, params = step.next_child(g, f)
    assert (
        name == "counter-offensive-interception"
    )  # always asked when nobody fit defends (4-A) ...
    ist = g.steps[name]
    assert [a["type"] for a in ist.legal_actions(g, Frame(name, dict(params)), EN)] == [
        "no-co-intercept"
    ]  # ... no stack
    g2, rec2 = _beaten_attacker([fr("fc", _side_hex()), fr("fd", "0405")])
    f2 = Frame(
        "counter-offensive-battle",
        {"battle": rec2.id, "to": "0405", "stage": "reinforce", "units": ["da"]},
    )
    place_at(g2, "da", "0405")
    name2, _p = g2.steps["counter-offensive-battle"].next_child(g2, f2)
    assert name2 == "battle"  # a fit corps in the hex defends: no interception


@pytest.mark.rules("LGG 39-B")
def test_lgg_39b_audit_secondary_battle_with_a_tank_test_lasts_four_rounds(monkeypatch) -> None:
    from grognard.rulesets.lgg1418.battle import battle_steps, tanks

    from .battle_helpers import force_dice
    from .helpers import tank

    dice = force_dice(monkeypatch)
    g = bgame(
        [fr("fa", "0404"), *[tank(f"t{k}", "FR", "0404") for k in range(4)], de("da", "0404")],
        first="1917-03",
    )
    rec = open_battle(g, "0404", EN, kind="secondary", min_rounds=1)
    dice.push(5)
    tanks.value_test(g, rec, EN)
    assert rec.min_rounds == 4
    rec.obstinacy_count = 3
    assert battle_steps.may_retreat_voluntarily(g, rec, EN) is not None  # not before the 4th round
    rec.obstinacy_count = 4
    assert battle_steps.may_retreat_voluntarily(g, rec, EN) is None
    g2 = bgame(
        [fr("fa", "0404"), *[tank(f"t{k}", "FR", "0404") for k in range(2)], de("da", "0404")],
        first="1917-03",
    )
    rec2 = open_battle(g2, "0404", EN, kind="main", min_rounds=1)
    dice.push(5)
    tanks.value_test(g2, rec2, EN)
    assert rec2.min_rounds == 1  # a main battle has no such obligation


@pytest.mark.rules("LGG 17.1", "LGG 16.6-A")
def test_lgg_17_1_audit_breakthrough_battle_reinforced_only_from_the_hq_reserve() -> None:
    from grognard.rulesets.lgg1418.battle import battle_steps

    from .helpers import corps

    extra = [
        fr("fa", "0404"),
        de("da", "0404"),
        fr("fres", {"inside": "fh"}, status=["reserve"]),
        corps("gres", "FR", {"inside": "fr-ghq"}, status=["reserve"]),
    ]
    g = bgame(list(extra))
    place_at(g, "fr-ghq", "0505")  # within 3 hexes of the battle
    open_rec = open_battle(g, "0404", EN)
    assert {"fres", "gres"} <= {u for u, _o in battle_steps.reinforcement_pool(g, open_rec, EN)}
    g2 = bgame(list(extra))
    place_at(g2, "fr-ghq", "0505")
    rec = open_battle(g2, "0404", EN, kind="breakthrough", armies=["FR-1"])
    pool = dict(battle_steps.reinforcement_pool(g2, rec, EN))
    assert pool == {"fres": "hq:fh"}  # the GHQ reserve does not reinforce a breakthrough battle
    assert {
        u for u, _o in battle_steps.reinforcement_pool(g2, rec, CP)
    } == set()  # the defender: unchanged rules


@pytest.mark.rules("LGG 17.3-B", "LGG 29")
def test_lgg_17_3b_audit_flank_breakthrough_activates_a_new_army() -> None:
    from grognard.rulesets.lgg1418.battle import breakthrough, main_battle
    from grognard.rulesets.lgg1418.military import secondary, trench

    from .helpers import army, artillery, hq

    side_hex = _side_hex()
    armies = [army("FR-1", "FR", "fh"), army("FR-2", "FR", "fh2"), army("DE-1", "DE", "dh")]
    g = bgame(
        [
            hq("fh2", "FR", "0707", "FR-2"),
            fr("f2", side_hex, army="FR-2"),
            artillery("a2", "FR", side_hex, army="FR-2"),
            fr("fa", "0404"),
            de("da", "0404"),
        ],
        first="1915-05",
        rules={"armies": armies},
    )
    params = {
        "side": EN,
        "hex": "0404",
        "units": ["fa"],
        "kind": "flank",
        "level": "limited",
        "armies": ["FR-1"],
    }
    assert breakthrough.new_army_candidates(g, params) == ["FR-2"]
    assert (
        breakthrough.new_army_candidates(g, {**params, "kind": "deep"}) == []
    )  # a flank breakthrough only
    level = trench.battle_trench_level(g, "0404", CP)
    step = g.steps["breakthrough-battle"]
    f = Frame("breakthrough-battle", {**params, "stage": "battle"})
    child = step.next_child(g, f)
    assert child is not None and child[0] == "breakthrough-new-army"
    nst = g.steps[child[0]]
    fn = Frame(child[0], dict(child[1]))
    legal = nst.legal_actions(g, fn, EN)
    assert [a["type"] for a in legal] == ["activate-army", "no-new-army"]
    sector = secondary.battle_sector(g, g.board.idx("0404"), EN, ["FR-2"])
    before = len(secondary.secondary_battles(g, EN, sector))
    nst.apply(g, fn, legal[0])
    assert M.hex_of(g, g.state.pieces["f2"]) == g.board.idx("0404")
    assert (
        len(secondary.secondary_battles(g, EN, sector)) == before + 1
    )  # counted as a secondary battle
    name, bparams = step.next_child(g, f)
    rec = battle.rec_of(g, bparams["battle"])
    assert rec.armies == ["FR-1", "FR-2"] and set(rec.spec["attacker_units"]) == {
        "fa",
        "f2",
        "a2",
    }
    assert rec.spec["trench"] == max(0, level - 1) and rec.spec["new_army"]
    # the trenches are cut by 1 before any preliminary bombardment: the battle is prepared as a
    # secondary battle (29-A), without being counted a second time
    assert name == "battle-preparation"
    prep_step = g.steps[name]
    fp = Frame(name, dict(bparams))
    prep_step.enter(g, fp)
    assert main_battle.fought_as(rec) == "secondary" and rec.kind == "breakthrough"
    assert len(secondary.secondary_battles(g, EN, sector)) == before + 1
    child = prep_step.next_child(g, fp)
    assert (
        child is not None and child[0] == "bombardment-choice"
    )  # no battle orders (step B) in a secondary battle
    bstep = g.steps["bombardment-choice"]
    fb = Frame("bombardment-choice", dict(child[1]))
    kinds = {a["kind"] for a in bstep.legal_actions(g, fb, EN)}
    assert {"normal", "none"} <= kinds
    bstep.apply(
        g,
        fb,
        next(
            a for a in bstep.legal_actions(g, fb, EN) if a["kind"] == "normal" and not a.get("use")
        ),
    )
    while (child := prep_step.next_child(g, fp)) is not None and child[0] != "battle":
        pass
    assert child is not None and child[0] == "battle"
    cut = int(main_battle.prep(rec).get("trench_cut", 0))
    assert rec.spec["bombardment"] == "normal" and rec.spec["trench"] == max(0, level - 1 - cut)
    assert (
        rec.spec["min_rounds"] >= 2
    )  # 29-B: a bombarded secondary battle lasts two rounds at least
    # in Movement Doctrine there is no such activation
    g2 = bgame(
        [
            hq("fh2", "FR", "0707", "FR-2"),
            fr("f2", side_hex, army="FR-2"),
            fr("fa", "0404"),
            de("da", "0404"),
        ],
        rules={"armies": armies},
    )
    assert breakthrough.new_army_candidates(g2, params) == []


@pytest.mark.rules("LGG 17.3-C", "LGG 17.3-E")
def test_lgg_17_3e_audit_breakthrough_units_trenches_flexible_zoc_and_marker() -> None:
    """Breakthrough units: trenches, a flexible ZoC and the marker until their next turn."""
    from grognard.rulesets.lgg1418 import hooks
    from grognard.rulesets.lgg1418.battle import breakthrough
    from grognard.rulesets.lgg1418.map.zoc import zoc_kind_of
    from grognard.rulesets.lgg1418.military import trench

    from .battle_helpers import base_pieces, set_from
    from .helpers import corps

    res = [corps("r1", "FR", {"inside": "fh"}, army="FR-1", status=["reserve"])]
    g = bgame(
        [fr("fa", "0404"), *res],
        first="1915-03",
        base=base_pieces(fr_hq="0405"),
        rules={"default_sector": "French"},
    )
    set_from(g, "fa", "0405")
    rec = open_battle(g, "0404", EN)
    rec.winner, rec.loser, rec.ended = EN, CP, True
    rec.breakthrough_level, rec.breakthrough_corps = "major", 1
    step = g.steps["breakthrough"]
    f = Frame("breakthrough", {"side": EN, "battles": [rec.id], "activation": None})
    opts = [
        a
        for a in step.legal_actions(g, f, EN)
        if a["type"] == "breakthrough" and a["kind"] == "deep"
    ]
    step.apply(g, f, opts[0])
    r1 = g.state.pieces["r1"]
    dst = M.hex_of(g, r1)
    assert (
        dst is not None and "breakthrough" in r1.status
    )  # the "Breakthrough" marker of a major breakthrough
    assert trench.stack_trench_level(g, dst, EN) >= 2  # French sector: +2 until their next turn
    assert zoc_kind_of(g, r1) == "flexible"  # rather than rigid in Fire Doctrine
    assert "breakthrough-markers" in hooks.extensions(g).reinforcement_hooks()
    now = M.turn_index(g)
    M.set_attr(g, r1, "breakthrough_until", now - 1)  # as when the turn after next begins
    assert breakthrough.expire_breakthrough_units(g) == ["r1"]
    assert "breakthrough" not in r1.status and zoc_kind_of(g, r1) == "rigid"


@pytest.mark.rules("LGG 17.3-D")
def test_lgg_17_3d_audit_corps_from_a_reserve_may_stay_and_fight_alone() -> None:
    from grognard.rulesets.lgg1418.battle import battle_retreat, breakthrough

    g = bgame([fr("fa", "0404"), de("da", "0303"), de("dr", "0303")], first="1915-05")
    rec = open_battle(g, "0404", EN)
    rec.units["dr"] = {
        **rec.units.get("da", {}),
        "side": CP,
        "kind": "corps",
        "role": "front",
        "state": "fit",
        "origin": "hq:dh",
    }
    rec.units["da"] = {**rec.units["dr"], "origin": "hex"}
    j = g.board.idx("0303")
    g.state.set_marker("retreated", "0303", {"turn": M.turn_index(g), "side": CP, "battle": rec.id})
    assert breakthrough.reserve_corps_that_may_fight(g, CP, j) == ["dr"]
    step = g.steps["flight-choice"]
    f = Frame("flight-choice", {"side": CP, "hex": "0303", "attacker": EN, "exception": False})
    types = [a["type"] for a in step.legal_actions(g, f, CP)]
    assert types == [
        "flee",
        "reserve-stand",
    ]  # no shelter: flee, or let the reserve corps fight alone
    n = len(battle_retreat.store(g))
    step.apply(g, f, {"type": "reserve-stand", "side": CP, "hex": "0303"})
    entry = battle_retreat.store(g)[n]
    assert "da" in entry["units"] and "dr" not in entry["units"]  # the others flee one hex
    g2 = bgame(
        [fr("fa", "0404"), de("da", "0303"), de("dr", "0303")]
    )  # Movement Doctrine: forbidden
    rec2 = open_battle(g2, "0404", EN)
    rec2.units["dr"] = {**rec.units["dr"]}
    g2.state.set_marker(
        "retreated", "0303", {"turn": M.turn_index(g2), "side": CP, "battle": rec2.id}
    )
    assert breakthrough.reserve_corps_that_may_fight(g2, CP, j) == []


@pytest.mark.rules("LGG 39-B", "LGG 39-C")
def test_lgg_39c_audit_destroyed_tanks_replaced_up_to_the_test_minimum(monkeypatch) -> None:
    from grognard.rulesets.lgg1418.battle import battle_steps, tanks

    from .battle_helpers import force_dice
    from .helpers import tank

    dice = force_dice(monkeypatch)
    g = bgame(
        [
            fr("fa", "0404"),
            tank("t1", "FR", "0404"),
            tank("t2", "FR", "0404"),
            tank("t3", "FR", {"inside": "fh"}),
            de("da", "0404"),
        ],
        first="1917-03",
    )
    M.set_status(g, g.state.pieces["t3"], M.RESERVE, True)
    rec = open_battle(g, "0404", EN, kind="main")
    dice.push(5)
    tanks.value_test(g, rec, EN)
    assert not tanks.tanks_short(g, rec, EN)
    opts = battle_steps.reserve_options(g, rec, EN)
    assert any(not o["tanks"] for o in opts)  # at the minimum: no obligation
    battle.eliminate_unit(g, rec, "t2", "tank destroyed", "LGG 39-C")
    assert tanks.tanks_short(g, rec, EN)
    opts = battle_steps.reserve_options(g, rec, EN)
    assert opts and all(
        [t["unit"] for t in o["tanks"]] == ["t3"] for o in opts
    )  # the replacement is compulsory


@pytest.mark.rules("LGG 37-D")
def test_lgg_37d_audit_first_chlorine_use_terror_tests_with_the_special_bonus(monkeypatch) -> None:
    from grognard.rulesets.lgg1418.battle import tactics

    from .battle_helpers import force_dice

    dice = force_dice(monkeypatch)
    g = bgame([de("da", "0404"), fr("fa", "0404"), fr("fb", "0404")], first="1915-05")
    rec = open_battle(g, "0404", CP)
    assert tactics.first_chlorine_use(g, "chlorine") and not tactics.first_chlorine_use(
        g, "phosgene"
    )
    dice.push(6)  # the gas fire table
    tactics.use_gas(g, rec.id, "DE", "chlorine", massive=False)
    assert rec.gas_terror == {"massive": False, "done": False}
    assert not tactics.first_chlorine_use(g, "chlorine")  # the very first use only
    rec.queue = []
    tactics.step_d(g, rec)
    tested = [it["unit"] for it in rec.queue if it.get("terror")]
    assert len(tested) == 1 and tested[0] in (
        "fa",
        "fb",
    )  # limited use: one defending corps at random
    mods = battle.test_modifiers(g, rec, tested[0], panic=True, terror=True)
    assert [(m.rule, m.value) for m in mods if m.rule in ("LGG 37-D", "LGG 28-B")] == [
        ("LGG 37-D", 1)
    ]
    rec2 = open_battle(g, "0404", CP)
    rec2.queue = []
    dice.push(9)  # the attackers' terror roll: 8+
    rec2.gas_terror = {"massive": True, "done": False}
    tactics.step_d(g, rec2)
    tested2 = sorted(it["unit"] for it in rec2.queue if it.get("terror"))
    assert tested2 == ["da", "fa", "fb"]  # massive use: every defender, and on 8+ the attackers too
