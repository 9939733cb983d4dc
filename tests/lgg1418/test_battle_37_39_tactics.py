"""LGG 37 (combat tactics), 38 (Stosstruppen) and 39 (tanks)."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import battle_calc, battle_steps, tactics, tanks
from grognard.rulesets.lgg1418.military.reinforcement import restore_cost
from tests.lgg1418.battle_helpers import (
    base_pieces,
    bgame,
    de,
    engage,
    force_dice,
    fr,
    fr_art,
    open_battle,
)
from tests.lgg1418.helpers import CP, EN, corps, tank


def _assault(g, *uids: str) -> None:
    """Test set-up: these corps carry a Stosstruppen marker."""
    for u in uids:
        M.set_attr(g, g.state.pieces[u], "assault", "full")


def _acq(g, tactic: str, nation: str, turn: int, side: str | None = None) -> None:
    tactics.acquisitions(g).append(
        {
            "tactic": tactic,
            "nation": nation,
            "side": side or M.nation_side(g, nation),
            "turn": turn,
            "year": M.current_turn(g).year,
        }
    )


# ====================================================================== 37-A, 37-B
@pytest.mark.rules("LGG 37", "LGG 37-A")
def test_lgg_37a_lgg89_acquisition_modifiers() -> None:
    g = bgame([], first="1916-03")
    assert M.current_turn(g).id == "1916-03"
    M.st(g)["losses_year"] = {"1916": {"FR": 20}}
    M.st(g)["technologies"] = {"FR": ["chlorine", "phosgene", "heavy tanks"]}
    mods = tactics.acquisition_modifiers(g, EN, "FR", "combat gas")
    assert (
        int(mods.total()) == 6
    )  # 2nd turn +2, 20+ losses +1, first test +1, two gas technologies +2 -> natural 6
    mods = tactics.acquisition_modifiers(g, EN, "FR", "infiltration")
    assert int(mods.total()) == 3  # +2 +1 +1 +1 (heavy tanks) -2 -> natural 9
    _acq(g, "massive bombardment", "FR", M.turn_index(g))
    assert (
        int(tactics.acquisition_modifiers(g, EN, "FR", "combat gas").total()) == 6 - 4
    )  # a second tactic: -4


@pytest.mark.rules("LGG 37-A")
def test_lgg_37a_lgg89_yearly_limit_targets_and_tests(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame([], first="1916-03")
    step = g.steps["combat-tactics"]
    f = Frame("combat-tactics", {})
    side = step.actors(g, f)[0]
    acts = step.legal_actions(g, f, side)
    assert {a["tactic"] for a in acts} == set(tactics.TACTICS)  # the target is noted secretly
    step.apply(g, f, {"type": "tactic-target", "side": side, "tactic": "combat gas"})
    assert g.state.secrets[side]["tactic_target"] == "combat gas"
    other = M.other_side(side)
    assert "tactic_target" not in g.view(other)["secrets"]
    acts = step.legal_actions(g, f, side)
    assert {"type": "wait", "side": side} in acts and all(a.get("nation") != "TR" for a in acts)
    nation = next(a["nation"] for a in acts if a["type"] == "tactic-test")
    dice.push(12)
    step.apply(g, f, {"type": "tactic-test", "side": side, "nation": nation})
    assert tactics.knows(g, nation, "combat gas")
    _acq(g, "infiltration", "DE", M.turn_index(g))
    f2 = Frame("combat-tactics", {})
    g.state.secrets.setdefault(other, {})["tactic_target"] = "blitz bombardment"
    assert step._needs(g, f2, other) is None  # two tactics this year for both sides: no more tests
    tactics.acquisitions(g).pop()
    assert step._needs(g, f2, other) == "test"


@pytest.mark.rules("LGG 37-A")
def test_lgg_37a_november_award(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame([], first="1915-11")
    _acq(g, "massive bombardment", "DE", M.turn_index(g) - 1)
    g.state.secrets.setdefault(EN, {})["tactic_target"] = "combat gas"
    dice.push(4)  # even: the Entente
    step = g.steps["combat-tactics"]
    f = Frame("combat-tactics", {})
    step.run(g, f)
    assert tactics.side_knows(g, EN, "combat gas")


@pytest.mark.rules("LGG 37-B")
def test_lgg_37b_lgg90_learning_delays() -> None:
    g = bgame(
        [],
        nations={
            "DE": CP,
            "AH": CP,
            "TR": CP,
            "BG": CP,
            "FR": EN,
            "GB": EN,
            "RU": EN,
            "BE": EN,
            "SR": EN,
            "IT": EN,
            "US": EN,
        },
    )
    t = M.turn_index(g)
    _acq(g, "combat gas", "FR", t)
    delays = {
        n: tactics.learning_delay("FR", n, g)
        for n in ("GB", "IT", "US", "BE", "RU", "SR", "DE", "AH")
    }
    assert delays == {"GB": 1, "IT": 1, "US": 1, "BE": 1, "RU": 2, "SR": 3, "DE": 3, "AH": 3}
    assert {n: tactics.learning_delay("DE", n, g) for n in ("AH", "TR", "BG", "FR")} == {
        "AH": 1,
        "TR": 3,
        "BG": 3,
        "FR": 3,
    }
    assert tactics.knows(g, "FR", "combat gas") and not tactics.knows(g, "GB", "combat gas")


# ====================================================================== 37-C .. 37-J
@pytest.mark.rules("LGG 37-C", "LGG 37-E")
def test_lgg_37c_37e_lgg91_massive_and_blitz() -> None:
    g = bgame(
        [
            fr_art("a1", "0505"),
            fr_art("a2", "0505", status=()),
            fr_art("a3", "0505"),
            fr_art("a4", "0505"),
        ],
        first="1917-03",
    )
    _acq(g, "blitz bombardment", "FR", M.turn_index(g) - 1)
    _acq(g, "massive bombardment", "FR", M.turn_index(g) - 1)
    arts = [g.state.pieces[u] for u in ("a1", "a2", "a3", "a4")]
    M.set_face(g, arts[1], "reduced")  # support 2
    with pytest.raises(IllegalAction):
        tactics.blitz_bombardment(g, "FR", arts[:2])  # 3 + 2 = 5 < 6
    assert (
        tactics.blitz_bombardment(g, "FR", [arts[0], arts[2]])["mun"] == 6
    )  # 3 + 3: allowed, 6 MUN
    with pytest.raises(IllegalAction):
        tactics.blitz_bombardment(g, "FR", arts)  # 4 units
    assert tactics.massive_bombardment(g, "FR", 3) == {"shift": 2, "mun_per_artillery": 3}
    for other in ("blitz bombardment", "creeping barrage", "infiltration"):
        with pytest.raises(IllegalAction):
            tactics.massive_bombardment(g, "FR", 2, [other])
    assert tactics.tactics_problem(["creeping barrage"], "massive") is not None
    assert tactics.tactics_problem(["creeping barrage", "infiltration"], "blitz") is not None
    assert tactics.tactics_problem(["creeping barrage"], "blitz", mountains=True) is not None
    assert tactics.tactics_problem(["creeping barrage"], "blitz") is None


@pytest.mark.rules("LGG 37-D", "LGG 32.1-B")
def test_lgg_37d_gas_order_bonus_and_decay(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame([fr("fa", "0404"), de("da", "0404")], first="1915-05")
    M.st(g)["technologies"] = {"DE": ["chlorine", "phosgene"]}
    assert tactics.gas_available(g, "DE") is None  # the tactic first
    _acq(g, "combat gas", "DE", M.turn_index(g) - 1)
    assert tactics.gas_available(g, "DE") == "chlorine"  # phosgene only after chlorine was used
    dice.push(6)
    bonus = tactics.gas_attack_bonus(g, "DE", "chlorine")
    assert bonus == 3
    assert tactics.gas_available(g, "DE") is None  # no gas site: a single (secondary) battle a turn
    M.st(g)["gas"]["DE"]["chlorine"] = M.turn_index(g) - 1
    M.st(g)["gas_battles"] = {}
    g.state.tracks["gas_sites"] = {"DE": 2}
    assert tactics.gas_available(g, "DE") == "phosgene"
    assert tactics.gas_battles_left(g, "DE") == 2
    g.state.tracks["gas_sites"] = {}
    assert (
        tactics.gas_battles_left(g, "DE", "main") == 0
        and tactics.gas_battles_left(g, "DE", "secondary") == 1
    )
    rec = open_battle(g, "0404", CP, modifiers=[tactics.gas_modifier(3)])
    engage(rec, "A", "da", "fa")
    got = []
    for r in (1, 2, 3, 4):
        rec.round = r
        got.append(
            sum(
                m.value
                for m in battle_calc.round_calc(g, rec, "A").attacker.mods
                if m.rule == "LGG 37-D"
            )
        )
    assert got == [3, 2, 1, 0]


@pytest.mark.rules("LGG 37-D")
def test_lgg_37d_terror_tests_at_first_chlorine() -> None:
    g = bgame([fr("fa", "0404"), fr("fb", "0404"), de("da", "0404")], first="1915-05")
    rec = open_battle(g, "0404", CP)
    tested = tactics.terror_tests(g, rec.id, massive=False)
    assert len(tested) == 1 and tested[0] in ("fa", "fb")
    assert rec.queue[-1]["terror"] and rec.queue[-1]["unit"] == tested[0]


@pytest.mark.rules("LGG 37-F")
def test_lgg_37f_lgg92_creeping_barrage(monkeypatch) -> None:
    assert tactics.creeping_barrage_effect(8) == (0, {})
    cut, agg = tactics.creeping_barrage_effect(10)
    assert cut == 2 and agg == {"0": "1", "½": "1", "1": "M", "M": "2", "2": "E"}
    cut, agg = tactics.creeping_barrage_effect(13)
    assert cut == 3 and agg == {"0": "M", "½": "M", "1": "2", "M": "E", "2": "E"}
    dice = force_dice(monkeypatch)
    g = bgame(
        [fr("fa", "0404"), fr_art("a1", "0404"), fr_art("a2", "0404"), de("da", "0404")],
        first="1917-03",
    )
    rec = open_battle(
        g, "0404", EN, tactics={"creeping_barrage": True}, trench=3, orders={"attacker": "R"}
    )
    dice.push(8)  # 8 + 1 (order R) = 9: r2 and aggravation
    tactics.step_d(g, rec)
    assert battle.trench_level(g, rec, "A", 1) == 1 and tactics.aggravated(g, rec, "A", "1") == "M"
    rec.round = 2
    child = tactics.step_d(g, rec)  # from the second round the attacker may stop the barrage
    assert child is not None and child[1]["kind"] == "barrage"
    from tests.lgg1418.battle_helpers import decide

    decide(g, child, "barrage-fire")
    dice.push(7)  # 7 + 1 = 8: loss of fire cohesion, -1 from now on in this sub-battle
    assert tactics.step_d(g, rec) is None
    assert rec.cohesion_lost["A"] == 1 and battle.trench_level(g, rec, "A", 2) == 3
    assert int(tactics.creeping_barrage_modifiers(g, rec, "A").total()) == 0  # +1 R, -1 cohesion
    rec.round = 3
    decide(g, tactics.step_d(g, rec), "barrage-stop")
    n = len(dice.used)
    assert tactics.step_d(g, rec) is None and len(dice.used) == n  # stopped: no more rolls


@pytest.mark.rules("LGG 37-G")
def test_lgg_37g_lgg93_infiltration_modifiers() -> None:
    g = bgame([corps("de1", "DE", "0404", army="DE-1"), fr("fa", "0404")], first="1918-03")
    _assault(g, "de1")
    M.st(g)["technologies"] = {"DE": ["light machine guns", "stosstruppen B", "stosstruppen C"]}
    M.st(g)["defence_in_depth"] = {EN: {"passed": True}}
    rec = open_battle(g, "0404", CP, great=True)
    mods = tactics.infiltration_modifiers(g, rec, "A", "stosstruppen")
    assert int(mods.total()) == 2  # 1918 +1, light MG +1, B +1, C +1, defence in depth -2
    g2 = bgame([fr("fa", "0404"), de("da", "0404")], first="1917-03")
    rec2 = open_battle(g2, "0404", EN, kind="secondary")
    mods2 = tactics.infiltration_modifiers(g2, rec2, "A", "stosstruppen")
    assert sorted(m.value for m in mods2) == [-1, -1]  # German trenches, secondary battle


@pytest.mark.rules("LGG 37-H")
def test_lgg_37h_two_aircraft_per_sub_battle() -> None:
    g = bgame([], first="1917-03")
    assert tactics.air_support_aircraft(g, "FR") == 1
    _acq(g, "tactical air support", "FR", M.turn_index(g))
    assert tactics.air_support_aircraft(g, "FR") == 2


@pytest.mark.rules("LGG 37-I")
def test_lgg_37i_defence_in_depth(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame([], first="1917-03")
    assert tactics.defence_in_depth_test(g, EN) is None  # not acquired
    _acq(g, "defence in depth", "FR", M.turn_index(g) - 1)
    assert tactics.defence_in_depth_test(g, EN) is None  # the enemy has not used infiltration yet
    M.st(g)["infiltration_used"] = {CP: True}
    dice.push(6)  # the GHQ reaction value is 6: 6 is not below it
    assert tactics.defence_in_depth_test(g, EN) is False
    assert tactics.defence_in_depth_test(g, EN) is None  # tried again only in a later turn
    M.st(g)["defence_in_depth"][EN]["failed_turn"] = -1
    dice.push(5)
    assert tactics.defence_in_depth_test(g, EN) is True and tactics.defence_in_depth_active(g, EN)


@pytest.mark.rules("LGG 37-J")
def test_lgg_37j_combined_arms() -> None:
    g = bgame(
        [corps("as", "DE", "0404", army="DE-1"), tank("tk", "DE", "0404"), fr("fa", "0404")],
        first="1918-03",
    )
    _assault(g, "as")
    rec = open_battle(g, "0404", CP)
    assert list(tactics.combined_arms(g, rec, "A", CP)) == []
    _acq(g, "combined arms", "DE", M.turn_index(g))
    assert int(tactics.combined_arms(g, rec, "A", CP).total()) == 1


# ====================================================================== 38
@pytest.mark.rules("LGG 38", "LGG 38-A")
def test_lgg_38a_markers_and_assault_corps() -> None:
    g = bgame(
        [
            de("da", "0404"),
            de("dr", "0303", face="reduced"),
            corps("dc", "DE", "0303", arm="cavalry", army="DE-1"),
        ],
        first="1917-03",
    )
    p = g.state.pieces["da"]
    assert "marker" in str(tactics.why_not_assault(g, p))
    g.state.tracks["assault_markers"] = {"DE": 1}
    assert tactics.why_not_assault(g, g.state.pieces["dr"]) is not None  # intact corps only
    assert tactics.why_not_assault(g, g.state.pieces["dc"]) is not None  # infantry or mountain
    M.set_attr(g, p, "fought_turn", M.turn_index(g) - 1)
    assert "previous turn" in str(tactics.why_not_assault(g, p))
    M.set_attr(g, p, "fought_turn", None)
    tactics.place_assault_marker(g, p)
    assert p.attrs["assault"] == "full" and battle.morale(g, None, p) == "elite"
    assert tactics.markers_in_hand(g, "DE") == 0
    assert battle.assault_bonus(g, p, "attack") == 2 and battle.assault_bonus(g, p, "defense") == 1


@pytest.mark.rules("LGG 38-B")
def test_lgg_38b_assault_corps_ignore_rigid_zoc_and_encircle() -> None:
    g = bgame(
        [corps("as", "DE", "0404", army="DE-1")]
        + [de(f"d{k}", "0404") for k in range(3)]
        + [fr(f"f{k}", "0404") for k in range(4)],
        first="1917-03",
    )
    _assault(g, "as")
    assert tactics.ignores_rigid_zoc(g.state.pieces["as"])
    rec = open_battle(g, "0404", CP)
    battle_steps.apply_split(g, rec, CP, {"A": ["as", "d0"], "B": ["d1", "d2"]})
    battle_steps.apply_split(g, rec, EN, {"A": ["f0", "f1"], "B": ["f2", "f3"]})
    battle_steps.decide_sub(g, rec, "A", CP, "test")
    assert rec.subs["B"].get("encircled_by") == CP and not rec.subs["B"].get("flank_for")
    M.st(g)["defence_in_depth"] = {EN: {"passed": True}}
    assert not tactics.encirclement_by_assault(g, rec, "A", CP)  # not against defence in depth


@pytest.mark.rules("LGG 38-C")
def test_lgg_38c_lgg94_losses_of_assault_corps(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame(
        [
            corps("as", "DE", "0404", army="DE-1"),
            corps("bs", "DE", "0404", army="DE-1"),
            fr("fa", "0404"),
        ],
        first="1917-03",
    )
    _assault(g, "as", "bs")
    rec = open_battle(g, "0404", EN)
    rec.queue.append({"t": "hit", "unit": "as", "res": "1", "sub": "A", "stage": "start"})
    battle_steps.process_queue(g, rec)
    p = g.state.pieces["as"]
    assert p.face == "reduced" and p.attrs["assault"] == "reduced"  # corps and marker flipped
    assert restore_cost(g, p) == 2  # restored with 2 PR
    dice.push(6)  # elite, +2 trench bonus: 8 holds - not an exploit
    rec.queue.append({"t": "hit", "unit": "bs", "res": "M", "sub": "A", "stage": "start"})
    child = battle_steps.process_queue(g, rec)
    from tests.lgg1418.battle_helpers import decide

    decide(g, child, "pay-pr")
    battle_steps.process_queue(g, rec)
    assert not g.state.pieces["bs"].attrs.get("assault")  # the marker is lost


# ====================================================================== 39
@pytest.mark.rules("LGG 39", "LGG 39-A")
def test_lgg_39a_lgg1_tank_values_and_terrain() -> None:
    assert tanks.normalise_values({CP: 3, EN: 0}) == {CP: 3, EN: 1}
    assert tanks.normalise_values({CP: 2, EN: 1}) == {CP: 2, EN: 1}
    rows = ["pppppppp"] * 8
    rows[3] = "pppspppp"  # 0404 marsh
    g = bgame(
        [fr("fa", "0404"), tank("tk", "FR", "0404"), de("da", "0404")],
        terrain=rows,
        first="1917-03",
    )
    assert tanks.tanks_useless(g, g.board.idx("0404"))
    rec = open_battle(g, "0404", EN)
    assert tanks.tank_support(g, rec, "A", EN, "fa") == 0


@pytest.mark.rules("LGG 39-B")
def test_lgg_39b_lgg95_support_values(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame(
        [fr("fa", "0404"), tank("t1", "FR", "0404"), tank("t2", "FR", "0404"), de("da", "0404")],
        first="1917-03",
    )
    rec = open_battle(g, "0404", EN, kind="main")
    dice.push(5)  # main battle, 5: value 3
    v = tanks.value_test(g, rec, EN)
    assert v == 3
    rec.tank_value[EN] = v
    assert tanks.tank_support(g, rec, "A", EN, "fa") == 2  # min(test 3, printed 2)
    rec_d = open_battle(g, "0404", CP)
    assert tanks.tank_support(g, rec_d, "A", EN, "fa") == 1  # on defence: always 1
    g2 = bgame(
        [
            fr("fa", "0404"),
            tank("t1", "FR", "0404"),
            tank("t2", "FR", "0404"),
            tank("t3", "FR", "0404"),
            de("da", "0404"),
        ],
        first="1917-03",
    )
    rec2 = open_battle(g2, "0404", EN, kind="secondary")
    assert (
        tanks.value_test(g2, rec2, EN) == 0
    )  # 3 tanks in a secondary battle: no test, no value yet
    g3 = bgame(
        [corps("gb", "GB", "0404"), tank("t1", "FR", "0404"), de("da", "0404")], first="1917-03"
    )
    rec3 = open_battle(g3, "0404", EN)
    rec3.tank_value[EN] = 3
    assert tanks.tank_support(g3, rec3, "A", EN, "gb") == 0  # no French corps in its stack


@pytest.mark.rules("LGG 39-C")
def test_lgg_39c_tank_destruction(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    g = bgame(
        [fr("fa", "0404"), tank("t1", "FR", "0404"), tank("t2", "FR", "0404"), de("da", "0404")],
        first="1917-03",
    )
    rec = open_battle(g, "0404", EN)
    dice.push(5, 6)  # heavy tanks after a 1-loss result: destroyed on 6 only
    tanks.destruction_checks(g, rec, "A", EN, "1")
    assert g.state.pieces["t1"].loc.kind == "hex" and g.state.pieces["t2"].loc.kind == "box"
    tanks.destruction_checks(g, rec, "A", EN, "0")  # no loss: no roll
    assert not dice.queue


@pytest.mark.rules("LGG 39-D")
def test_lgg_39d_tanks_in_reserves_and_breakthroughs() -> None:
    from grognard.rulesets.lgg1418.battle import breakthrough

    heavy = {**tank("hv", "FR", {"inside": "fh"}), "status": ["reserve"]}
    light = {**tank("lt", "FR", {"inside": "fh"}), "status": ["reserve"]}
    light["attrs"] = {"category": "light"}
    g = bgame(
        [
            fr("fa", "0404"),
            heavy,
            light,
            corps("gt", "FR", {"inside": "fr-ghq"}, status=["reserve"]),
            {**tank("gh", "FR", {"inside": "fr-ghq"}), "status": ["reserve"]},
            de("da", "0404"),
            de("dfl", "0305"),
        ],
        first="1917-03",
        base=base_pieces(fr_hq="0405"),
    )
    rec = open_battle(g, "0404", CP)
    pool = dict(battle_steps.reinforcement_pool(g, rec, EN))
    assert "gh" not in pool and "gt" in pool  # heavy tanks never come from a GHQ reserve
    units = [g.state.pieces["hv"]]
    rec_like = {
        "attacker": EN,
        "hex": "0404",
        "attacker_from": ["0405"],
        "breakthrough_level": "movement",
    }
    heavy_targets = breakthrough.targets(g, rec_like, units)
    assert heavy_targets and all(t["kind"] == "flank" for t in heavy_targets)  # heavy: flank only
    assert any(
        t["kind"] == "deep" for t in breakthrough.targets(g, rec_like, [g.state.pieces["lt"]])
    )
