"""Audit of LGG 23-G (assault) and 23-D (relief battle) against the seed: every clause fought
through a real assault (the battle procedure with the fortress's options) or a real battle."""

from __future__ import annotations

from typing import Any

import pytest

from grognard.core.state import Frame, Loc
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import battle_calc, battle_retreat, battle_steps
from grognard.rulesets.lgg1418.battle import fortress as F
from grognard.rulesets.lgg1418.map.zoc import BESIEGED

from .battle_helpers import drive, engage, force_dice, last_battle
from .helpers import (
    CP,
    EN,
    act,
    army,
    artillery,
    corps,
    fortress,
    game,
    hq,
    place_at,
    tank,
    to_activation,
)

V = "0605"  # the fortress hex


def _pieces(extra: list[dict] | None = None, gar_fire: int = 1, size: str = "large") -> list[dict]:
    return [
        hq("dh", "DE", "0806", "DE-1"),
        corps("de", "DE", "0706", army="DE-1"),
        corps("de2", "DE", "0706", army="DE-1"),
        artillery("sg", "DE", "0706", army="DE-1", category="siege"),
        fortress("verdun", "FR", V, size=size),
        corps(
            "gar",
            "FR",
            {"inside": "verdun"},
            garrison="verdun",
            full=(2, gar_fire, 5, 4),
            reduced=(1, 1, 3, 4),
        ),
        hq("fh", "FR", "0202", "FR-1"),
        *(extra or []),
    ]


def _rules(**kw: Any) -> dict:
    return {
        "armies": [army("DE-1", "DE", "dh"), army("FR-1", "FR", "fh")],
        "main_armies": {CP: {"West": "DE-1"}, EN: {"West": "FR-1"}},
        "powers": {"FR": {"pr_stock": 10, "pr_flow": 0}, "DE": {"pr_stock": 10, "pr_flow": 0}},
        **kw,
    }


def _play(g, stop: str) -> None:
    for _ in range(200):
        cur = g.current()
        if cur is None or cur[1].step == stop:
            return
        legal = g.legal_actions(g.acting_sides()[0])
        pick = (
            next((a for a in legal if a["type"] == "done"), None)
            if cur[1].step == "battle-placement"
            else None
        )
        pick = pick or next(
            (a for a in legal if a["type"].startswith(("end", "no-", "decline", "commit", "done"))),
            legal[0],
        )
        g.apply(pick)
    raise AssertionError(f"never reached {stop}")


def _besieged(extra: list[dict] | None = None, places: list[dict] | None = None, **kw: Any):
    """The German army has won the open-country battle at Verdun and holds the siege (its siege
    actions are open)."""
    capitals = [
        {"hex": "0706", "kind": "city", "name": "Metz", "attrs": {"nation": "DE", "capital": True}},
        {
            "hex": "0202",
            "kind": "city",
            "name": "Paris",
            "attrs": {"nation": "FR", "capital": True},
        },
    ]
    g = game(pieces=_pieces(extra, **kw), rules=_rules(), places=capitals + (places or []))
    to_activation(g, CP, "DE-1")
    g.apply({"type": "move", "side": CP, "units": ["de", "de2", "sg"], "to": V, "mode": "normal"})
    act(g, CP, type="end-movement")
    _play(g, "siege-actions")
    assert BESIEGED in g.state.pieces["verdun"].status
    return g


def _assault_rec(g, units: list[str]) -> dict[str, Any]:
    """Open an assault battle record (set-up run, round 1) without prompts."""
    i = g.board.idx(V)
    params = battle.battle_params(g, **F.assault_params(g, i, CP, units, immediate=True))
    rec = battle.rec_of(g, params["battle"])
    battle_steps.setup_participants(g, rec)
    battle_steps.finish_setup(g, rec)
    rec.round = 1
    return rec


def _neutralise(g) -> None:
    f = g.state.pieces["verdun"]
    while not F.is_neutralized(g, f):
        F.reduce_fortress(g, f, "LGG 23-F")


# ---------------------------------------------------------------------- the parameters
@pytest.mark.rules("LGG 23-G")
def test_lgg_23g_audit_assault_parameters() -> None:
    g = _besieged()
    i = g.board.idx(V)
    spec = F.assault_params(g, i, CP, ["de", "de2"], immediate=True)
    assert spec["defender_units"] == ["gar", "verdun"] and spec["fortress"] == "verdun"
    assert (
        spec["forced_attacker_result"] == "2"
        and spec["no_repulse"]
        and spec["free_tests"] == ["defender"]
    )
    assert spec["trench"] == 0 and spec["ignore_terrain"] and spec["retreat"] == "none"
    assert spec["uncounted_losses"] == ["defender"] and spec["alternate"] == ["defender"]
    assert [(m["target"], m["value"]) for m in spec["modifiers"]] == [("combativeness", 2)]
    _neutralise(g)
    neutral = F.assault_params(g, i, CP, ["de"], immediate=True)
    assert (
        "forced_attacker_result" not in neutral
        and "no_repulse" not in neutral
        and "free_tests" not in neutral
    )
    assert neutral["modifiers"] == []  # no +2 to the tests once neutralised
    with pytest.raises(ValueError, match="fortress"):
        battle.battle_params(g, hex=V, attacker=CP, kind="open", fortress="verdun")


# ---------------------------------------------------------------------- the round's values
@pytest.mark.rules("LGG 23-G")
def test_lgg_23g_audit_defence_value_organic_artillery_and_fire_3_terrain_ignored() -> None:
    city = [{"hex": V, "kind": "city", "name": "Verdun", "attrs": {"nation": "FR"}}]
    g = _besieged(places=city, gar_fire=1)
    rec = _assault_rec(g, ["de", "de2", "sg"])
    engage(rec, att="de", dfn="gar")
    calc = battle_calc.round_calc(g, rec, "A")
    reasons = {m.reason: m.value for m in calc.defender.mods}
    assert reasons == {
        "fortress defence": 3,
        "fortress organic artillery": 3,
    }  # no city, no terrain, no trenches
    assert calc.defender.total == 5 + 3 + 3
    assert calc.defender.fire == 3  # the garrison's own fire is 1: the fortress gives 3
    assert calc.table == "combat-trench" and calc.d12_total == 0  # generals ignored
    # the attacker's artillery support: no bonus, but the organic artillery is cancelled
    engage(rec, att="de", dfn="gar", att_art="sg")
    calc2 = battle_calc.round_calc(g, rec, "A")
    assert "fortress organic artillery" not in {m.reason for m in calc2.defender.mods}
    assert calc2.attacker.total == calc.attacker.total  # no support bonus
    assert calc2.defender.total == 5 + 3


@pytest.mark.rules("LGG 23-G")
def test_lgg_23g_audit_neutralised_fortress_gives_only_plus_1_and_artillery_counts() -> None:
    g = _besieged(gar_fire=1)
    _neutralise(g)
    rec = _assault_rec(g, ["de", "de2", "sg"])
    engage(rec, att="de", dfn="gar", att_art="sg")
    calc = battle_calc.round_calc(g, rec, "A")
    assert {m.reason: m.value for m in calc.defender.mods} == {"neutralised fortress": 1}
    assert (
        calc.defender.fire == 2
    )  # its own (1, +1 French on plains, 36.1): no fire value from the fortress
    assert any(
        m.rule == "LGG 16.2-B" and m.value > 0 for m in calc.attacker.mods
    )  # normal artillery bonus


@pytest.mark.rules("LGG 23-G")
def test_lgg_23g_audit_the_fortress_is_engaged_when_no_corps_is_fit() -> None:
    g = _besieged()
    rec = _assault_rec(g, ["de", "de2"])
    assert battle_steps.engageable(g, rec, EN, "A") == ["gar"]
    rec.units["gar"]["state"] = "disorganized"
    assert battle_steps.engageable(g, rec, EN, "A") == ["verdun"]
    assert (
        battle_steps._fail(g, rec, EN, "A") is None
    )  # the defender has not lost while the fortress stands
    engage(rec, att="de", dfn="verdun")
    calc = battle_calc.round_calc(g, rec, "A")
    assert calc.defender.base == 3 and calc.defender.total == 3 + 3 and calc.defender.fire == 3
    assert "fortress defence" not in {
        m.reason for m in calc.defender.mods
    }  # its defence is the base
    f = g.state.pieces["verdun"]
    assert F.fortress_hit(g, rec, "½") == "held" and f.face == "full"  # "½" is ignored
    assert F.fortress_hit(g, rec, "1") == "reduced" and f.face == "reduced"
    assert F.fortress_hit(g, rec, "M") == "neutralized" and F.is_neutralized(g, f)


@pytest.mark.rules("LGG 23-G")
def test_lgg_23g_audit_defending_corps_fight_in_turn() -> None:
    g = _besieged([corps("fr2", "FR", {"inside": "verdun"}, army="FR-1")])
    rec = _assault_rec(g, ["de", "de2"])
    assert sorted(rec.spec["defender_units"]) == ["fr2", "gar", "verdun"]
    assert battle_steps.engageable(g, rec, EN, "A") == ["fr2", "gar"]
    rec.units["gar"]["engaged"].append(1)
    rec.round = 2
    assert battle_steps.engageable(g, rec, EN, "A") == ["fr2"]  # the corps engaged in round 1 rests
    rec.units["fr2"]["state"] = "disorganized"
    assert battle_steps.engageable(g, rec, EN, "A") == ["gar"]  # alone, it fights again


@pytest.mark.rules("LGG 23-G", "LGG 38", "LGG 39-A")
def test_lgg_23g_audit_no_tanks_nor_stosstruppen_in_an_assault() -> None:
    g = _besieged([tank("tk", "DE", "0706"), corps("st", "DE", "0706", army="DE-1")])
    M.set_attr(g, g.state.pieces["st"], "assault", "full")  # a Stosstruppen marker (38-A)
    place_at(g, "tk", V)
    place_at(g, "st", V)
    ids = [p.id for p in F.assault_units(g, CP, g.board.idx(V))]
    assert "tk" not in ids and "st" not in ids and {"de", "de2", "sg"} <= set(ids)
    rec = _assault_rec(g, ids)
    # nor as reinforcements: lift them into the HQ reserve
    for uid in ("tk", "st"):
        M.set_status(g, g.state.pieces[uid], M.RESERVE, True)
        M.move_piece(g, g.state.pieces[uid], Loc.inside("dh"))
    pool = {u for u, _o in battle_steps.reinforcement_pool(g, rec, CP)}
    assert not pool & {"tk", "st"}
    assert all(
        o in ("rear",) or o.startswith("fortress:")
        for _u, o in battle_steps.reinforcement_pool(g, rec, EN)
    )


# ---------------------------------------------------------------------- whole assaults
def _assaulted(g, n: int):
    """Until the assault declared after log entry ``n`` is over."""
    return lambda g: any(e["type"] == "assault" for e in g.state.log[n:])


def _assault_policy(max_rounds: int):
    def pol(g, side: str, legal: list[dict]) -> dict | None:
        cur = g.current()
        if cur is None:
            return None
        if (
            cur[1].step == "battle-decision"
            and cur[1].params.get("kind") == "retreat-offer"
            and side == CP
        ):
            rec = last_battle(g)
            want = "retreat" if rec.round >= max_rounds else "continue"
            return next((a for a in legal if a["type"] == want), None)
        return None

    return pol


@pytest.mark.rules("LGG 23-G")
def test_lgg_23g_audit_a_whole_assault_no_pr_no_counted_losses_no_retreat(monkeypatch) -> None:
    g = _besieged()
    dice = force_dice(monkeypatch)
    dice.push(*([6] * 40))
    from grognard.rulesets.lgg1418.military.reinforcement import pr_stock

    before_fr, before_de = pr_stock(g, "FR"), pr_stock(g, "DE")
    n = len(g.state.log)
    act(g, CP, type="assault", hex=V)
    drive(g, _assault_policy(1), until=_assaulted(g, n))
    rec = last_battle(g)
    assert rec.kind == "assault" and rec.ended and rec.round == 1
    # the attacker suffered its "2" (flip + a test it paid for), the defender paid nothing
    hit = [e for e in g.state.log if e["type"] == "hit" and "suffers 2" in e["text"]]
    assert hit, "the attacker suffers a 2 every round"
    assert pr_stock(g, "FR") == before_fr and pr_stock(g, "DE") < before_de
    assert rec.losses[EN] == 0  # the defender's losses are not counted during the assault
    assert (
        M.st(g)["losses_year"]["1914"]["FR"] == 1
    )  # but 1 loss is marked per corps once it is over
    # nobody retreats: the besiegers stay in the hex, the siege goes on
    assert not battle_retreat.pending(g, [rec.id])
    assert {
        M.hex_of(g, g.state.pieces[u]) for u in ("de", "de2") if M.on_map(g, g.state.pieces[u])
    } <= {g.board.idx(V)}
    assert BESIEGED in g.state.pieces["verdun"].status
    assert M.st(g)["fortress_losses"]["FR"] == 1  # one corps defended, the fortress held


@pytest.mark.rules("LGG 23-G")
def test_lgg_23g_audit_defender_retreat_is_never_offered() -> None:
    g = _besieged()
    rec = _assault_rec(g, ["de", "de2"])
    rec.obstinacy_count = 1  # one round fought
    assert battle_steps.may_retreat_voluntarily(g, rec, EN) is not None
    assert battle_steps.may_retreat_voluntarily(g, rec, CP) is None  # the attacker may break off


@pytest.mark.rules("LGG 23-G")
def test_lgg_23g_audit_neutralised_fortress_without_corps_surrenders_attacker_two_losses() -> None:
    g = _besieged()
    M.move_piece(g, g.state.pieces["gar"], Loc.box(M.ELIMINATED))
    _neutralise(g)
    n = len(g.state.log)
    act(g, CP, type="assault", hex=V)
    drive(g, until=_assaulted(g, n))
    assert g.state.pieces["verdun"].loc.ref == M.ELIMINATED
    assert {g.state.pieces["de"].face, g.state.pieces["de2"].face} == {
        "reduced"
    }  # the attacker's 2 losses
    out = [e for e in g.state.log if e["type"] == "assault"][-1]
    assert out["data"]["outcome"] == "surrendered"
    rec = last_battle(g)
    assert rec.winner == CP and rec.round == 1


@pytest.mark.rules("LGG 23-G")
def test_lgg_23g_audit_the_fortress_fights_reduced_then_neutralised_then_surrenders(
    monkeypatch,
) -> None:
    g = _besieged([corps("big", "DE", "0706", army="DE-1", full=(12, 3, 8, 4))])
    place_at(g, "big", V)
    M.move_piece(g, g.state.pieces["gar"], Loc.box(M.ELIMINATED))
    f = g.state.pieces["verdun"]
    dice = force_dice(monkeypatch)
    dice.push(*([12] * 60))  # the worst rows for the defender
    n = len(g.state.log)
    act(g, CP, type="assault", hex=V)
    drive(g, _assault_policy(5), until=_assaulted(g, n))
    rec = last_battle(g)
    assert f.loc.ref == M.ELIMINATED and rec.winner == CP
    assert rec.units["verdun"]["engaged"][:2] == [1, 2]  # it fought itself two rounds
    assert (
        rec.round == 3
    )  # reduced in round 1, neutralised in round 2, surrendered as round 3 began


# ---------------------------------------------------------------------- the relief battle (23-D)
def _relief(g) -> dict[str, Any]:
    """The French relieve Verdun: a French corps attacks the German besiegers in the hex."""
    place_at(g, "fa", V)
    M.set_attr(g, g.state.pieces["fa"], "mv_from", g.board.idx("0604"))
    params = battle.battle_params(g, hex=V, attacker=EN, kind="open", attacker_units=["fa"])
    rec = battle.rec_of(g, params["battle"])
    battle_steps.setup_participants(g, rec)
    battle_steps.finish_setup(g, rec)
    rec.round = 1
    return rec


@pytest.mark.rules("LGG 23-D")
def test_lgg_23d_audit_relief_fortress_supports_the_relieving_attacker() -> None:
    g = _besieged(
        [corps("fa", "FR", "0604", army="FR-1"), corps("fr2", "FR", {"inside": "verdun"})]
    )
    rec = _relief(g)
    assert battle.supporting_fortress(g, rec, EN) is g.state.pieces["verdun"]
    assert battle.supporting_fortress(g, rec, CP) is None  # the besiegers have no fortress
    assert "verdun" in battle_steps.artillery_options(g, rec, EN, "A")
    engage(rec, att="fa", dfn="de", att_art="verdun")
    calc = battle_calc.round_calc(g, rec, "A")
    assert any(
        m.rule == "LGG 23-D" and m.reason == "fortress as artillery" and m.value == 2
        for m in calc.attacker.mods
    )  # value 2 in 1914
    assert "fortress in plains" not in {
        m.reason for m in calc.defender.mods
    }  # not the besiegers' fortress
    _neutralise(g)
    assert battle.supporting_fortress(g, rec, EN) is None  # a neutralised fortress does not support


@pytest.mark.rules("LGG 23-D", "LGG 23-B")
def test_lgg_23d_audit_besieged_corps_reinforce_then_withdraw_inside_after_a_defeat() -> None:
    g = _besieged(
        [corps("fa", "FR", "0604", army="FR-1"), corps("fr2", "FR", {"inside": "verdun"})]
    )
    rec = _relief(g)
    pool = dict(battle_steps.reinforcement_pool(g, rec, EN))
    assert (
        pool.get("fr2") == "fortress:verdun" and "gar" not in pool
    )  # the garrison never attacks the besiegers
    battle_steps.bring_in(g, rec, EN, "fr2", "A", "fortress:verdun")
    assert (
        M.hex_of(g, g.state.pieces["fr2"]) == g.board.idx(V)
        and g.state.pieces["fr2"].loc.kind == "hex"
    )
    rec.winner, rec.loser, rec.ended_by = CP, EN, "test"
    battle_retreat.create(g, rec)
    assert g.state.pieces["fr2"].loc.ref == "verdun"  # back into the fortress
    retreating = {u for e in battle_retreat.pending(g, [rec.id]) for u in e["units"]}
    assert "fa" in retreating and "fr2" not in retreating


@pytest.mark.rules("LGG 23-D")
def test_lgg_23d_audit_besieged_corps_stay_out_after_a_won_relief() -> None:
    g = _besieged(
        [corps("fa", "FR", "0604", army="FR-1"), corps("fr2", "FR", {"inside": "verdun"})]
    )
    rec = _relief(g)
    battle_steps.bring_in(g, rec, EN, "fr2", "A", "fortress:verdun")
    rec.winner, rec.loser, rec.ended_by = EN, CP, "test"
    battle_retreat.create(g, rec)
    assert g.state.pieces["fr2"].loc.kind == "hex"  # on the map again, in the battle hex
    retreating = {u for e in battle_retreat.pending(g, [rec.id]) for u in e["units"]}
    assert {"de", "de2"} <= retreating  # the besiegers retreat: the siege will be lifted


# -------------------------------------------------------------- air support and gas (Fire Doctrine)
@pytest.mark.rules("LGG 23-G", "LGG 32.1-C", "LGG 37-D")
def test_lgg_23g_audit_air_support_and_gas_may_be_used_in_an_assault(monkeypatch) -> None:
    from grognard.rulesets.lgg1418.battle import tactics

    plane = {
        "id": "fight",
        "type": "aircraft",
        "nation": "DE",
        "at": {"inside": "dh"},
        "attrs": {"category": "fighter"},
        "faces": {"full": {"attack": 2, "range": 4}, "reduced": {"attack": 1, "range": 4}},
    }
    g = game(
        pieces=_pieces([plane]),
        rules=_rules(first_turn="1915-05", last_turn="1915-07"),
        places=[
            {
                "hex": "0706",
                "kind": "city",
                "name": "Metz",
                "attrs": {"nation": "DE", "capital": True},
            }
        ],
    )
    place_at(g, "de", V)
    F.establish_siege(g, g.state.pieces["verdun"], CP)
    M.st(g)["air_indices"] = {CP: {"fighter": -4, "tactical": 1}}
    M.st(g)["technologies"] = {"DE": ["chlorine"]}
    tactics.acquisitions(g).append(
        {
            "tactic": "combat gas",
            "nation": "DE",
            "side": CP,
            "turn": M.turn_index(g) - 1,
            "year": M.current_turn(g).year,
        }
    )
    rec = _assault_rec(g, ["de"])
    opts = F.assault_support_options(g, rec.id, counted=True)
    assert {"air": 1, "gas": True} in opts and {"air": 0, "gas": False} in opts
    assert all(
        o["air"] <= 1 for o in opts
    )  # one sub-battle: one aircraft without the tactic (37-H)
    dice = force_dice(monkeypatch)
    dice.push(3, 6)  # the aircraft's D6 (3 + 1 <= 4: success), the gas fire table
    step = g.steps["assault-support"]
    f = Frame("assault-support", {"battle": rec.id, "side": CP, "counted": True})
    step.apply(g, f, {"type": "assault-support", "side": CP, "air": 1, "gas": True})
    rules = [m["rule"] for m in rec.spec["modifiers"]]
    assert "LGG 32.1-C" in rules and "LGG 37-D" in rules
    engage(rec, att="de", dfn="gar")
    calc = battle_calc.round_calc(g, rec, "A")
    assert {"LGG 32.1-C", "LGG 37-D"} <= {m.rule for m in calc.attacker.mods}
    # in Movement Doctrine (1914) an assault has neither
    g2 = _besieged()
    rec2 = _assault_rec(g2, ["de"])
    assert F.assault_support_options(g2, rec2.id, counted=False) == [{"air": 0, "gas": False}]


@pytest.mark.rules("LGG 23-C", "LGG 23-G")
def test_lgg_23c_audit_corps_disorganized_in_the_open_battle_are_fit_for_the_assault() -> None:
    g = _besieged()
    M.set_status(g, g.state.pieces["de2"], "disorganized", True)
    rec = _assault_rec(g, ["de", "de2"])
    assert rec.units["de2"]["state"] == "fit"
    assert "de2" in battle_steps.engageable(g, rec, CP, "A")


@pytest.mark.rules("LGG 23-G")
def test_lgg_23g_audit_alternation_option_free() -> None:
    g = _besieged([corps("fr2", "FR", {"inside": "verdun"}, army="FR-1")])
    g.options["assault-defenders-alternate"] = "free"
    rec = _assault_rec(g, ["de", "de2"])
    rec.units["gar"]["engaged"].append(1)
    rec.round = 2
    assert battle_steps.engageable(g, rec, EN, "A") == ["fr2", "gar"]  # either may fight again
