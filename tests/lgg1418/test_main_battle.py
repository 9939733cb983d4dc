"""LGG 31 (main-battle preparation) and 32 (main battle, lull), through the battle procedure."""

from __future__ import annotations

from typing import Any

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import main_battle
from grognard.rulesets.lgg1418.military import offensive, trench
from grognard.rulesets.lgg1418.units import fog
from tests.lgg1418.battle_helpers import (
    base_pieces,
    bgame,
    de,
    drive,
    force_dice,
    fr,
    fr_art,
    in_step,
    last_battle,
    open_battle,
)
from tests.lgg1418.helpers import CP, EN, act, army, artillery, hq
from tests.lgg1418.helpers import force_dice as set_dice
from tests.lgg1418.quiet import quiet

ARMIES = [army("FR-1", "FR", "fh"), army("FR-2", "FR", "fh2"), army("DE-1", "DE", "dh")]


def _go_game(extra: list[dict[str, Any]] = (), turn: str = "1915-03", seed: int = 3, **kw: Any):
    pieces = [
        fr("fa", "0405"),
        fr("fb", "0405"),
        fr_art("fart", "0405"),
        fr("fc", "0504", army="FR-2"),
        fr("fd", "0504", army="FR-2"),
        hq("fh2", "FR", "0604", "FR-2"),
        de("da", "0404"),
        de("dres", {"inside": "dh"}, status=["reserve"]),
        *extra,
    ]
    g = bgame(pieces, first=turn, seed=seed, rules={"armies": ARMIES}, **kw)
    g.state.tracks["mun"] = {"FR": {"stock": 20}, "DE": {"stock": 20}}
    g.state.tracks["trench_level"] = {"DE": 2}
    g.state.secrets.setdefault(EN, {})["go-plans"] = [
        {
            "id": "p",
            "side": EN,
            "sector": "French",
            "year": int(turn[:4]),
            "offensive": True,
            "start": turn,
            "objective": ["0404"],
            "armies": ["FR-1", "FR-2"],
            "mode": "winter",
        }
    ]
    return g


def _first_en(g, s, legal):
    movers = [a for a in legal if a["type"] == "first-mover"]
    if movers:
        return next(a for a in movers if a["first"] == EN)
    if s == CP:
        return next((a for a in legal if a["type"] == "end-turn"), None)
    return None


def _launch_and_attack(g) -> None:
    from tests.lgg1418.helpers import play_until

    play_until(g, "choose-activation", quiet(_first_en))
    act(g, EN, type="launch-offensive", third=None)
    act(g, EN, type="move", units=["fa", "fart", "fb"], to="0404", mode="normal")
    act(g, EN, type="move", units=["fc", "fd"], to="0404", mode="normal")
    act(g, EN, type="end-movement")


# ---------------------------------------------------------------------- the whole preparation
@pytest.mark.rules(
    "LGG 31",
    "LGG 31-A",
    "LGG 31-B",
    "LGG 31-D",
    "LGG 31-F",
    "LGG 31-G",
    "LGG 31-H",
    "LGG 31-I",
    "LGG 32",
    "LGG 32.1",
    "LGG 32.1-E",
    "LGG 32.1-J",
)
def test_lgg_31_main_battle_prepared_then_fought() -> None:
    g = _go_game()
    _launch_and_attack(g)
    drive(g, quiet(), until=in_step("secret-choice"))
    bid = last_battle(g).id
    assert g.current()[1].params["key"] == f"battle-orders:{bid}"
    assert set(g.acting_sides()) == {CP, EN}  # both commit before either is revealed
    act(g, EN, type="commit", value="V")
    assert "V" not in str(g.view(CP)["secrets"]) and fog.view_is_clean(g, CP) == []
    assert not any(e.get("type") == "reveal" for e in g.visible_log(CP))
    act(g, CP, type="commit", value="C")
    rec = battle.rec_of(g, bid)
    assert rec.kind == "main" and rec.prep["benefits"] == {
        "attacker": False,
        "defender": True,
    }
    assert g.current()[1].step == "bombardment-choice" and g.acting_sides() == [EN]
    kinds = {a["kind"] for a in g.legal_actions(EN)}
    assert kinds == {"normal", "none"}  # massive and blitz need their tactics
    act(g, EN, type="bombardment", kind="normal")
    assert g.current()[1].step == "front-reinforcement" and g.acting_sides() == [CP]
    assert [a["unit"] for a in g.legal_actions(CP) if a["type"] == "front-reinforce"] == ["dres"]
    act(g, CP, type="front-reinforce", unit="dres")
    act(g, CP, type="done-reinforcing")
    assert M.hex_of(g, g.state.pieces["dres"]) == g.board.idx("0404")
    res = rec.prep["bombardment_result"]
    assert (
        res["fired"] == ["fart"] and g.state.tracks["mun"]["FR"]["stock"] == 19
    )  # 31-I: 1 MUN (normal)
    assert "column 2" in res["notes"][0]  # 3 fire / 2 corps, rounded up
    spec = rec.spec
    assert spec["trench"] == 2 - res["cut"]  # 31-H: the cut lasts the whole battle
    assert spec["after_round"] == "main-battle-lull" and spec["bombardment"] == "normal"
    assert {
        "side": "attacker",
        "target": "value",
        "value": -1,
        "rule": "LGG 31-B",
        "reason": "counter-attack order (C)",
    } in spec["modifiers"]
    assert spec["orders"] == {"defender": "C"}
    drive(g, quiet(), until=lambda g: M.st(g).get("activation") is None)
    rec = battle.rec_of(g, bid)
    assert rec.ended and rec.winner in M.SIDES
    assert offensive.offensives(g)["p"]["battles"][0]["hex"] == "0404"
    assert main_battle.prep(rec)["kind"] == "main"


@pytest.mark.rules("LGG 31-F", "LGG 31-D")
def test_lgg_31f_no_bombardment_one_corps_on_an_even_d6(monkeypatch) -> None:
    for d6, expect in ((2, 1), (3, 0)):
        g = _go_game()
        _launch_and_attack(g)
        drive(g, quiet(), until=in_step("secret-choice"))
        act(g, EN, type="commit", value="R")
        act(g, CP, type="commit", value="L")
        dice = force_dice(monkeypatch)
        dice.push(d6)
        act(g, EN, type="bombardment", kind="none")
        if expect:
            assert (
                g.current()[1].step == "front-reinforcement" and g.current()[1].params["max"] == 1
            )
        else:
            assert g.current()[1].step != "front-reinforcement"
        monkeypatch.undo()


# ---------------------------------------------------------------------- 31-B battle orders
@pytest.mark.rules("LGG 31-B")
def test_lgg_31b_orders_tables_and_effects() -> None:
    g = bgame([fr("fa", "0405"), de("da", "0404")], first="1915-03")
    ben = main_battle.order_benefits
    assert ben(g, "R", "L") == {"attacker": True, "defender": False}
    assert ben(g, "R", "N") == {"attacker": False, "defender": True}
    assert ben(g, "M", "L") == {"attacker": False, "defender": True}
    assert ben(g, "V", "N") == {"attacker": True, "defender": False}
    with pytest.raises(ValueError):
        ben(g, "E", "L")  # A-8: orders E and P are not available
    eff = main_battle.order_effects("R", "N", {"attacker": True, "defender": True})
    assert {m["side"] for m in eff["modifiers"]} == {"attacker", "defender"}
    assert all(m["target"] == "combativeness" and m["value"] == -1 for m in eff["modifiers"])
    assert main_battle.order_effects("M", "L", {"attacker": True, "defender": True}) == {
        "modifiers": [],
        "orders": {"attacker": "M", "defender": "L"},
        "bombardment_d12": 1,
    }
    assert (
        main_battle.order_effects("V", "C", {"attacker": True, "defender": False})["modifiers"][0][
            "value"
        ]
        == 1
    )


# ---------------------------------------------------------------------- 31-D, 31-G, 31-H, 31-I
def _tactic(g, nation: str, *names: str) -> None:
    M.st(g)["tactics"] = [
        {"tactic": t, "nation": nation, "side": M.nation_side(g, nation), "turn": 0, "year": 1915}
        for t in names
    ]


@pytest.mark.rules("LGG 31-D", "LGG 32.1-D", "LGG 32.1-B", "LGG 37-C", "LGG 37-E")
def test_lgg_31d_types_of_bombardment_and_special_uses() -> None:
    extra = [fr_art("a2", "0405"), artillery("a3", "FR", "0405")]
    g = bgame([fr("fa", "0405"), fr_art("fart", "0405"), *extra, de("da", "0404")], first="1915-03")
    rec = battle.rec_of(g, battle.battle_params(g, hex="0404", attacker=EN)["battle"])
    for uid in ("fa", "fart", "a2", "a3"):
        M.move_piece(
            g,
            g.state.pieces[uid],
            __import__("grognard.core.state", fromlist=["Loc"]).Loc.hex(g.board.idx("0404")),
        )
    opts = main_battle.bombardment_options(g, rec)
    assert {o["kind"] for o in opts} == {"normal", "none"}
    _tactic(g, "FR", "massive bombardment", "blitz bombardment", "creeping barrage")
    opts = main_battle.bombardment_options(g, rec)
    assert {"kind": "massive", "intensity": 3} in opts and {"kind": "blitz"} in opts
    assert {"kind": "blitz", "use": "creeping_barrage"} in opts
    assert not any(
        o.get("use") and o["kind"] == "massive" for o in opts
    )  # massive excludes the special uses
    g14 = bgame([fr("fa", "0404"), fr_art("fart", "0404"), de("da", "0404")], first="1914-09")
    rec14 = battle.rec_of(g14, battle.battle_params(g14, hex="0404", attacker=EN)["battle"])
    assert "Fire Doctrine" in main_battle.bombardment_allowed(g14, rec14)
    assert main_battle.bombardment_options(g14, rec14) == [{"kind": "none"}]


@pytest.mark.rules("LGG 31-G", "LGG 37-C")
def test_lgg_31g_column_division_blitz_massive_and_mountain() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404")], first="1915-03")
    rec = battle.rec_of(g, battle.battle_params(g, hex="0404", attacker=EN)["battle"])
    col = main_battle.bombardment_column
    assert col(g, rec, 7, 3, "normal")[0] == 2  # ceil(7/3) = 3 -> column "3"
    assert col(g, rec, 7, 3, "blitz")[0] == 6  # undivided
    assert col(g, rec, 7, 3, "massive", 2)[0] == 3 and col(g, rec, 7, 3, "massive", 3)[0] == 4
    assert col(g, rec, 30, 1, "normal")[0] == 7  # clamped to "8+"
    g2 = bgame(
        [fr("fa", "0404"), de("da", "0404")],
        first="1915-03",
        options={"massive-shift-direction": "left"},
    )
    rec2 = battle.rec_of(g2, battle.battle_params(g2, hex="0404", attacker=EN)["battle"])
    assert col(g2, rec2, 7, 3, "massive", 3)[0] == 0  # audit 10 as an option
    terrain = ["pppppppp"] * 3 + ["ppmppppp"] + ["pppppppp"] * 4
    g3 = bgame([fr("fa", "0404"), de("da", "0404")], first="1915-03", terrain=terrain)
    assert g3.board.terrain_of(g3.board.idx("0304")) == "mountain"
    rec3 = battle.rec_of(g3, battle.battle_params(g3, hex="0304", attacker=EN)["battle"])
    c, notes = col(g3, rec3, 7, 3, "normal")
    assert c == 1 and any("mountain" in n for n in notes)


@pytest.mark.rules("LGG 31-H", "LGG 32.2-C")
def test_lgg_31h_losses_spread_at_random_two_per_corps_at_most() -> None:
    g = bgame([fr("fa", "0405"), de("d1", "0404"), de("d2", "0404")], first="1915-03")
    corps = [g.state.pieces["d1"], g.state.pieces["d2"]]
    hits = main_battle.distribute_losses(g, corps, 1, "test", "LGG 31-H")
    assert sum(hits.values()) == 1
    hits = main_battle.distribute_losses(g, corps, 2, "test", "LGG 31-H")
    assert hits == {"d1": 1, "d2": 1}  # different corps first
    hits = main_battle.distribute_losses(g, corps, 7, "test", "LGG 31-H")
    assert hits == {"d1": 2, "d2": 2}  # the excess is ignored
    assert main_battle.parse_result("2r1*") == (2, 1, 1) and main_battle.parse_result("-") == (
        0,
        0,
        0,
    )
    assert main_battle.parse_result("3") == (3, 0, 0)


@pytest.mark.rules("LGG 31-H", "LGG 28-B")
@pytest.mark.parametrize(("die", "effect"), [(3, "repulsed"), (1, "disorganized")])
def test_lgg_31h_bombardment_tests_keep_corps_fit_and_the_trench_cut_lasts_the_battle(
    die: int, effect: str
) -> None:
    """A normal bombardment at column 2 rolls 12: "2r1*" - a loss on each defending corps, the
    trench level cut from 2 to 1, one combativeness test. The tested corps da is repulsed (or
    disorganized) by it, yet stays fit for combat: it may be engaged in round 1. The cut holds
    in every round of the battle; Germany's trench level (2) is untouched for later battles."""
    g = _go_game()
    _launch_and_attack(g)
    drive(g, quiet(), until=in_step("secret-choice"))
    rec = last_battle(g)
    act(g, EN, type="commit", value="V")
    act(g, CP, type="commit", value="C")
    act(g, EN, type="bombardment", kind="normal")
    act(g, CP, type="front-reinforce", unit="dres")
    set_dice(g, 12, 12)
    act(g, CP, type="done-reinforcing")
    res = rec.prep["bombardment_result"]
    assert (res["cell"], res["losses"], res["cut"], res["tests"]) == ("2r1*", 2, 1, 1)
    assert res["hits"] == {"da": 1, "dres": 1}
    assert rec.spec["trench"] == 1
    assert rec.queue == [
        {"t": "test", "unit": "da", "stage": "roll", "why": "bombardment", "keep_fit": True}
    ]
    for _ in range(10):  # the battle opens: split commitments, then the queued test
        if not rec.queue:
            break
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        set_dice(g, 12, die)
        g.apply(next((a for a in legal if a["type"] == "pay-pr"), legal[0]))
    assert not rec.queue
    said = [e["text"] for e in g.state.log if e["type"] == "combativeness"]
    assert said[-1] == f"da: combativeness test {effect}"
    da = rec.units["da"]
    assert rec.round == 1 and da["state"] == "fit" and int(da["barred"]) < 1
    assert battle.trench_level(g, rec, "A", 1) == 1
    drive(g, quiet(), until=lambda g: M.st(g).get("activation") is None)
    assert rec.ended and rec.round >= 1
    assert {battle.trench_level(g, rec, s, r) for s in "AB" for r in range(1, rec.round + 1)} == {1}
    assert g.state.tracks["trench_level"]["DE"] == 2  # the original level stays for later battles


@pytest.mark.rules("LGG 31-I", "LGG 31-G", "LGG 37-I", "LGG 29-A")
def test_lgg_31i_ammunition_and_defender_pays_per_artillery() -> None:
    g = bgame(
        [
            fr("fa", "0404"),
            fr_art("f1", "0404"),
            fr_art("f2", "0404"),
            de("da", "0404"),
            artillery("dart", "DE", "0404", army="DE-1"),
        ],
        first="1915-03",
    )
    g.state.tracks["mun"] = {"FR": {"stock": 20}, "DE": {"stock": 20}}
    rec = battle.rec_of(g, battle.battle_params(g, hex="0404", attacker=EN)["battle"])
    rec.kind = "main"
    main_battle.prep(rec).update({"bombardment": "massive", "intensity": 3})
    main_battle.fire_bombardment(g, rec)
    assert (
        g.state.tracks["mun"]["FR"]["stock"] == 20 - 2 * 3
        and g.state.tracks["mun"]["DE"]["stock"] == 19
    )
    g.state.tracks["mun"]["FR"]["stock"] = 4
    rec2 = battle.rec_of(g, battle.battle_params(g, hex="0404", attacker=EN)["battle"])
    rec2.kind = "secondary"
    main_battle.prep(rec2).update({"bombardment": "massive", "intensity": 3})
    res = main_battle.fire_bombardment(g, rec2)
    assert len(res["fired"]) == 1  # the second unit's power cannot pay: it does not fire
    assert "bombardment-secondary" in res["explain"]  # 29-A: the special table
    M.st(g)["defence_in_depth"] = {CP: {"passed": True}}
    mods = main_battle.bombardment_modifiers(g, rec, "normal")
    assert mods.total() == -2 and main_battle.bombardment_modifiers(g, rec, "blitz").total() == -1


# ------------------------------------------------------------------- 32.1-B gas, 32.1-C air support
@pytest.mark.rules("LGG 32.1-B")
def test_lgg_32_1b_gas_attack_bonus_decreasing_each_round() -> None:
    g = bgame([fr("fa", "0404"), fr_art("fart", "0404"), de("da", "0404")], first="1915-03")
    _tactic(g, "FR", "combat gas")
    M.st(g)["technologies"] = {"FR": ["chlorine"]}
    rec = battle.rec_of(g, battle.battle_params(g, hex="0404", attacker=EN)["battle"])
    assert {"kind": "normal", "gas": "chlorine"} in main_battle.bombardment_options(g, rec)
    rec.kind = "secondary"
    main_battle.prep(rec).update({"bombardment": "normal", "gas": "chlorine", "gas_bonus": 2})
    mods = main_battle.bombardment_modifiers(g, rec, "normal")
    assert mods.total() == 1  # 37-D: +1 to the bombardment
    main_battle.apply_spec(g, rec)
    gas = [m for m in rec.spec["modifiers"] if m["rule"] == "LGG 37-D"]
    assert gas == [
        {
            "side": "attacker",
            "target": "value",
            "value": 2,
            "decay": 1,
            "rule": "LGG 37-D",
            "reason": "combat gas",
        }
    ]


@pytest.mark.rules("LGG 32.1-C")
def test_lgg_32_1c_tactical_air_support(monkeypatch) -> None:
    plane = {
        "id": "fight",
        "type": "aircraft",
        "nation": "FR",
        "at": {"inside": "fh"},
        "attrs": {"category": "fighter"},
        "faces": {"full": {"attack": 2, "range": 4}, "reduced": {"attack": 1, "range": 4}},
    }
    g = bgame([fr("fa", "0404"), de("da", "0404"), plane], first="1915-03")
    rec = battle.rec_of(g, battle.battle_params(g, hex="0404", attacker=EN)["battle"])
    assert main_battle.air_support_aircraft(g, rec, EN) == []  # Fighter index -5: not yet
    M.st(g)["air_indices"] = {EN: {"fighter": -4, "tactical": 1}}
    assert [p.id for p in main_battle.air_support_aircraft(g, rec, EN)] == ["fight"]
    assert main_battle.air_support_options(g, rec, EN) == [0, 1]
    dice = force_dice(monkeypatch)
    dice.push(3)
    mods = main_battle.fly_air_support(g, rec, EN, 1)
    assert mods == [
        {
            "side": "attacker",
            "target": "value",
            "value": 1,
            "sub": "A",
            "rule": "LGG 32.1-C",
            "reason": "tactical air support",
        }
    ]  # 3 + 1 <= 4
    assert main_battle.air_support_aircraft(g, rec, EN) == []  # used this turn


# ---------------------------------------------------------------------- 32.2 the lull
@pytest.mark.rules("LGG 32.2", "LGG 36.5-A", "LGG 37-E")
def test_lgg_32_2_when_there_is_a_lull() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404")], first="1915-03")
    rec = battle.rec_of(g, battle.battle_params(g, hex="0404", attacker=EN)["battle"])
    rec.kind = "main"
    for bomb, want in (("normal", True), ("massive", True), ("blitz", False), ("none", False)):
        main_battle.prep(rec)["bombardment"] = bomb
        assert main_battle.lull_applies(g, rec) is want
    main_battle.prep(rec)["bombardment"] = "normal"
    rec.kind = "secondary"
    assert not main_battle.lull_applies(g, rec)
    rec.kind = "main"
    M.st(g)["combined_from"] = 0
    assert not main_battle.lull_applies(g, rec)  # 36.5-A: no lull in Combined Doctrine


@pytest.mark.rules("LGG 36.5-A")
def test_lgg_36_5a_lgg88_combined_main_battle_obstinacy_from_round_five() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404")], first="1917-03")
    M.st(g)["combined_from"] = 0
    rec = battle.rec_of(
        g, battle.battle_params(g, hex="0404", attacker=EN, armies=["FR-1"])["battle"]
    )
    rec.kind = "main"
    main_battle.prep(rec)["bombardment"] = "normal"
    main_battle.apply_spec(g, rec)
    spec = rec.spec
    assert (
        "after_round" not in spec and spec["obstinacy_from_round"] == 5 and spec["round_cap"] == 10
    )
    assert spec["min_rounds"] == 6  # obstinacy 2 counts rounds 5 and 6: may stop after round 6


@pytest.mark.rules("LGG 32.2-A", "LGG 32.2-B", "LGG 32.2-C", "LGG 32.2-D", "LGG 32.2")
def test_lgg_32_2_lull_recovery_reinforcements_and_losses(monkeypatch) -> None:
    pieces = [
        fr("fa", "0404"),
        fr("fb", "0404"),
        de("d1", "0404"),
        de("d2", "0404"),
        de("dres", {"inside": "dh"}, status=["reserve"]),
        artillery("dart", "DE", {"inside": "dh"}, status=["reserve"]),
    ]
    g = bgame(pieces, first="1915-03")
    rec = open_battle(g, "0404", EN)
    rec.kind = "main"
    main_battle.prep(rec)["bombardment"] = "massive"
    rec.units["d2"]["state"] = "disorganized"
    rec.units["fb"]["state"] = "disorganized"
    step = g.steps["main-battle-lull"]
    f = Frame("main-battle-lull", {"battle": rec.id, "round": 3})
    assert step.next_child(g, f) is None  # not after round 3
    dice = force_dice(monkeypatch)
    dice.push(5)  # an odd D6: 4 losses after a massive bombardment
    f = Frame("main-battle-lull", {"battle": rec.id, "round": 4})
    child = step.next_child(g, f)
    assert rec.units["d2"]["state"] == "fit" and rec.units["fb"]["state"] == "fit"  # 32.2-A
    assert child == (
        "front-reinforcement",
        {"battle": rec.id, "side": CP, "max": 2, "kinds": ["corps", "artillery"], "lull": True},
    )  # 32.2-B
    fr_step = g.steps["front-reinforcement"]
    rf = Frame(*child)
    units = {a["unit"] for a in fr_step.legal_actions(g, rf, CP) if a["type"] == "front-reinforce"}
    assert units == {"dres", "dart"}
    child = step.next_child(g, f)  # 32.2-C then 32.2-D
    assert rec.losses[CP] == 4  # 32.2-C: 4 losses (odd, massive), 2 per corps at most, tallied
    assert rec.units["d1"]["losses"] == 2 and rec.units["d2"]["losses"] == 2
    assert any(
        it.get("why") == "lull losses" for it in rec.queue
    )  # one test after a massive bombardment
    assert child[0] == "front-reinforcement" and child[1]["side"] == EN and child[1]["max"] == 3
    with pytest.raises(IllegalAction) as e:
        fr_step.check(g, Frame(*child), {"type": "front-reinforce", "side": EN, "unit": "nope"})
    assert e.value.rule == "LGG 32.2-D"


@pytest.mark.rules("LGG 32.2-A")
def test_lgg_32_2a_home_garrison_destroyed_costs_england_vn() -> None:
    g = bgame([corps_gb("hg", "0404"), de("da", "0405")], first="1915-03")
    g.state.tracks["national_will"]["GB"] = {
        "value": 30,
        "parliament": 0,
        "regime": "democracy",
        "weary_until": "",
    }
    rec = open_battle(g, "0404", CP)
    rec.units["hg"]["state"] = "eliminated"
    main_battle.restore_disorganized(g, rec)
    assert g.state.tracks["national_will"]["GB"]["value"] == 29


def corps_gb(pid: str, at: str) -> dict[str, Any]:
    from tests.lgg1418.helpers import corps

    return corps(pid, "GB", at, home_garrison=True)


# ---------------------------------------------------------------------- 28-C in the preparation
@pytest.mark.rules("LGG 28-C", "LGG 31-D")
def test_lgg_28c_ghq_artillery_joins_the_bombardment_and_returns() -> None:
    g = _go_game(extra=[artillery("g1", "FR", "0405")])
    ghq_p = M.ghq_piece(g, "FR")
    from grognard.core.state import Loc

    M.move_piece(g, g.state.pieces["g1"], Loc.box(trench.artillery_box(ghq_p)))
    _launch_and_attack(g)
    drive(g, quiet(), until=in_step("bombardment-choice"))
    act(g, EN, type="bombardment", kind="normal")
    drive(g, quiet(), until=lambda g: M.st(g).get("activation") is None)
    rec = last_battle(g)
    assert "g1" in main_battle.prep(rec)["ghq_attacker"]
    assert "g1" in main_battle.prep(rec)["bombardment_result"]["fired"]
    assert any(
        e["type"] == "ghq-artillery"
        and "g1" in e["text"]
        and "joins the battle at 0404" in e["text"]
        for e in g.visible_log(EN)
    )
    g1 = g.state.pieces["g1"]
    assert g1 in trench.ghq_artillery(g, "FR") or g1.loc == Loc.box(
        M.ELIMINATED
    )  # back in its box after the battle


@pytest.mark.rules(
    "LGG 32.1-A", "LGG 32.1-E", "LGG 32.1-F", "LGG 32.1-G", "LGG 32.1-H", "LGG 32.1-I", "LGG 32.1-J"
)
def test_lgg_32_1_rounds_follow_rule_16_with_the_main_battle_parameters() -> None:
    g = _go_game(extra=[de("db", "0404"), de("dc", "0404")], seed=5)
    _launch_and_attack(g)
    drive(g, quiet(), until=in_step("secret-choice"))
    act(g, EN, type="commit", value="V")
    act(g, CP, type="commit", value="N")
    act(g, EN, type="bombardment", kind="normal")
    rec = last_battle(g)
    if g.current()[1].step == "front-reinforcement":
        act(g, CP, type="done-reinforcing")
    # 32.1-H: the reinforcements of a main battle are those of 16.6 in Fire Doctrine (HQ reserve,
    # GHQ,
    # stacks of the same army within 3 hexes)
    from grognard.rulesets.lgg1418.battle import battle_steps

    drive(g, quiet(), until=lambda g: any(f.step == "battle-commit" for f in g.state.frames))
    assert dict(battle_steps.reinforcement_pool(g, rec, CP)).get("dres", "").startswith("hq:")
    drive(g, quiet(), until=lambda g: M.st(g).get("activation") is None)
    rec = battle.rec_of(g, rec.id)
    assert rec.table == "combat-trench"  # 32.1-G: resolved on the Trench Table (16.5)
    rounds = [e for e in g.state.log if e["type"] == "battle-round" and rec.hex in e["text"]]
    assert rounds and all(
        "sub-battle" in e["text"] for e in rounds
    )  # 32.1-A/E: one engaged unit a side, per sub-battle
    engaged = [u for u, x in rec.units.items() if x["engaged"]]
    assert {rec.units[u]["side"] for u in engaged} == {CP, EN}
    d12 = [e for e in g.state.log if e["type"] == "roll" and e.get("rule") == "LGG 16.4"]
    assert len(d12) >= len(rounds)  # 32.1-F: the D12 of 16.4 each round, with its modifiers
    assert (
        any(m["reason"] == "waves order (V)" for m in rec.spec["modifiers"])
        is rec.prep["benefits"]["attacker"]
    )
    i = g.board.idx("0404")
    loser = rec.loser
    assert rec.winner in M.SIDES and loser == M.other_side(rec.winner)  # 32.1-J
    assert not [
        p for p in M.units_at_hex(g, i, loser) if M.is_corps(p)
    ]  # 32.1-I: the loser has retreated


@pytest.mark.rules("LGG 30", "LGG 31", "LGG 32", "LGG 4-A")
def test_random_play_of_great_offensives_keeps_invariants_and_secrets() -> None:
    import random

    for seed in (1, 2):
        g = _go_game(extra=[de("db", "0404"), de("dc", "0503"), fr("fe", "0505")], seed=seed)
        rng = random.Random(seed)
        for _ in range(160):
            if g.is_over() or not g.acting_sides():
                break
            side = g.acting_sides()[0]
            legal = g.legal_actions(side)
            assert legal, f"{side} has no legal action in {g.phase_path()}"
            launch = [a for a in legal if a["type"] in ("launch-offensive", "continue-offensive")]
            attack = [
                a
                for a in legal
                if a["type"] == "move"
                and a["to"] in ("0404", "0505")
                and a["mode"] == "normal"
                and (M.st(g).get("activation") or {}).get("great_offensive")
            ]
            a = (
                launch[0]
                if launch
                else (rng.choice(attack) if attack and rng.random() < 0.8 else rng.choice(legal))
            )
            g.apply(a)
            assert g.ruleset.invariants(g) == []
            for s in M.SIDES:
                assert fog.view_is_clean(g, s) == []
        assert any(e["type"] == "bombardment-type" for e in g.state.log)


@pytest.mark.rules("LGG 36.5-C")
def test_lgg_36_5c_late_ghq_artillery_and_reinforcement_rounds_in_combined_doctrine() -> None:
    from grognard.core.state import Loc
    from grognard.rulesets.lgg1418.battle import battle_steps

    pieces = [
        fr("fa", "0404"),
        de("da", "0404"),
        artillery("g1", "DE", "0101"),
        de("far", {"inside": "dh"}, status=["reserve"], army=None),
    ]
    g = bgame(pieces, first="1917-03", base=base_pieces(de_hq="0101"))
    M.st(g)["combined_from"] = 0
    i = g.board.idx("0404")
    ghq_p = M.ghq_piece(g, "DE")
    M.move_piece(g, ghq_p, Loc.hex(g.board.idx("0101")))
    M.move_piece(g, g.state.pieces["g1"], Loc.box(trench.artillery_box(ghq_p)))
    assert g.board.distance(g.board.idx("0101"), i) > 3
    rec = open_battle(g, "0404", EN)
    for bomb, late in (("none", True), ("blitz", True), ("normal", False)):
        main_battle.prep(rec)["bombardment"] = bomb
        assert main_battle.ghq_artillery_late(g, rec, CP) is late
    # the far HQ's reserve comes only in odd rounds (36.5-C)
    rec.round = 2
    assert "far" not in dict(battle_steps.reinforcement_pool(g, rec, CP))
    rec.round = 3
    assert dict(battle_steps.reinforcement_pool(g, rec, CP)).get("far") == "hq:dh"
    # the GHQ artillery kept back joins before round 2
    main_battle.prep(rec)["ghq_late_defender"] = ["g1"]
    step = g.steps["ghq-artillery-arrival"]
    step.run(g, Frame("ghq-artillery-arrival", {"battle": rec.id, "round": 1}))
    assert "g1" not in rec.units
    step.run(g, Frame("ghq-artillery-arrival", {"battle": rec.id, "round": 2}))
    assert rec.units["g1"]["side"] == CP and M.hex_of(g, g.state.pieces["g1"]) == i
