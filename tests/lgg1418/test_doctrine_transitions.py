"""LGG 36: what the doctrines allow, and the transitions (36.2-A/B October-December 1914, 36.4
Combined Doctrine test, 36.5 Combined Doctrine)."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.military import doctrine_transitions as DT
from grognard.rulesets.lgg1418.military import offensive, trench
from grognard.rulesets.lgg1418.units import doctrine, fog

from .helpers import CP, EN, act, army, artillery, corps, game, hq, play_until, to_turn
from .quiet import quiet

CAPITALS = [
    {"hex": "0401", "kind": "city", "name": "Berlin", "attrs": {"nation": "DE", "capital": True}},
    {"hex": "0408", "kind": "city", "name": "Paris", "attrs": {"nation": "FR", "capital": True}},
]
CONTROL = {"hexes": {CP: ["0401", "0402"], EN: ["0408", "0407", "0406", "0405"]}}


def _g(turn: str, pieces=None, **kw):
    return game(
        pieces=pieces or [corps("de", "DE", "0404"), corps("fr", "FR", "0606")],
        rules={"first_turn": turn, "last_turn": turn, **kw.pop("rules", {})},
        **kw,
    )


# ---------------------------------------------------------------------- 36, 36.1, 36.3, 36.5-A
@pytest.mark.rules("LGG 36", "LGG 36.1", "LGG 36.3", "LGG 36.5-A")
def test_lgg_36_36_1_36_3_36_5a_what_each_doctrine_allows() -> None:
    g = _g("1914-09")
    assert DT.allows(g, "DE", "West", "interception") and DT.allows(
        g, "DE", "West", "counter-offensive"
    )
    assert DT.allows(g, "DE", "West", "strategic-retreat") and DT.allows(
        g, "DE", "West", "loss-for-retreat-hex"
    )
    assert not DT.may_entrench(g, "DE", "West")  # 36.1: entrenching prohibited in Movement Doctrine
    assert not DT.allows(g, "DE", "West", "preliminary-bombardment")
    g = _g("1915-03")
    for feat in (
        "interception",
        "enemy-reinforcement",
        "counter-offensive",
        "strategic-retreat",
        "retreat-before-combat",
    ):
        assert not DT.allows(g, "DE", "West", feat), feat  # 36.3: no longer applicable
    assert DT.allows(g, "DE", "West", "preliminary-bombardment") and DT.allows(
        g, "DE", "West", "great-offensive"
    )
    assert not DT.allows(g, "DE", "West", "unplanned-great-offensive")
    M.st(g)["combined_from"] = M.turn_index(g)
    assert DT.allows(g, "FR", "West", "unplanned-great-offensive")  # 36.5-A: no planning
    assert DT.allows(g, "FR", "West", "interception")  # 36.5-A: against units in movement


@pytest.mark.rules("LGG 36.1")
def test_lgg_36_1_artillery_worth_two_in_movement_except_siege_fire() -> None:
    pieces = [artillery("art", "DE", "0404")]
    g = _g("1914-09", pieces=pieces)
    art = g.state.pieces["art"]
    assert DT.artillery_support_value(g, art, "West") == 2
    assert DT.artillery_support_value(g, art, "West", siege_fire=True) == 3
    g = _g("1915-01", pieces=pieces)
    assert DT.artillery_support_value(g, g.state.pieces["art"], "West") == 3


@pytest.mark.rules("LGG 36.1", "LGG 36", "LGG 36.3")
def test_lgg_36_1_french_shock_fire_modifiers_until_fire_doctrine() -> None:
    pieces = [
        corps("fr", "FR", "0101"),
        corps("fr1", "FR", "0102", full=(6, 1, 8, 4)),
        corps("de", "DE", "0103"),
    ]
    terrain = ["ffpppppp"] + [
        "pppppppp"
    ] * 7  # 0101 plains? columns: first char is column 1 of row 1
    g = _g("1914-09", pieces=pieces, terrain=terrain)
    i = g.board.idx
    forest = next(h for h in ("0101", "0201") if g.board.terrain_of(i(h)) == "forest")
    plains = "0303"
    fr, fr1, de = (g.state.pieces[k] for k in ("fr", "fr1", "de"))
    assert DT.french_fire_modifier(g, fr, i(plains), "West") == 1
    assert DT.french_fire_modifier(g, fr, i(forest), "West") == -1
    assert (
        DT.french_fire_modifier(g, fr1, i(forest), "West") == 0
    )  # a printed +1 is not lowered
    assert DT.french_fire_modifier(g, de, i(plains), "West") == 0
    assert DT.french_shock(g, "West")
    g = _g("1915-01", pieces=pieces, terrain=terrain)
    assert not DT.french_shock(g, "West")  # 36.3: the shock is abandoned for good
    assert DT.french_fire_modifier(g, g.state.pieces["fr"], i(plains), "West") == 0


# ---------------------------------------------------------------------- 36.2-A October 1914
def _to_october_step(seed: int = 1):
    g = game(
        seed=seed,
        pieces=[corps("de", "DE", "0404"), corps("fr", "FR", "0606")],
        rules={"first_turn": "1914-09", "last_turn": "1914-11"},
    )
    play_until(g, "october-trenches", chooser=quiet())
    return g


@pytest.mark.rules("LGG 36.2-A", "LGG 36.2")
def test_lgg_36_2a_lgg86_secret_draw_then_secret_choice() -> None:
    g = _to_october_step()
    draws = {s: DT.october_draws(g, s)["West"] for s in M.SIDES}
    assert all(1 <= d <= 6 for d in draws.values())
    # the draws are secret: each side's roll is logged for it alone
    for s in M.SIDES:
        other = M.other_side(s)
        texts = [e["text"] for e in g.visible_log(other) if e.get("type") == "roll"]
        assert not any(f"{s}: October 1914 marker draw" in t for t in texts)
        assert fog.view_is_clean(g, s) == []
    assert set(g.acting_sides()) == set(M.SIDES)  # both sides are always asked (no leak)
    # LGG-86: drew 4 -> may choose; drew 3 -> no choice, stays in movement
    g.state.secrets[CP]["october-draw"]["West"] = 4
    g.state.secrets[EN]["october-draw"]["West"] = 3
    assert {a["choice"] for a in g.legal_actions(CP)} == {"movement", "trenches"}
    assert {a["choice"] for a in g.legal_actions(EN)} == {"movement"}
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "october-doctrine", "side": EN, "front": "West", "choice": "trenches"})
    assert e.value.rule == "LGG 36.2-A"
    act(g, CP, choice="trenches")
    assert DT.october_choices(g, CP) == {"West": "trenches"}
    assert "trenches" not in str(g.view(EN)["lgg"]["doctrine"])  # the choice stays secret
    act(g, EN, choice="movement")
    play_until(g, "choose-activation", quiet())
    assert M.current_turn(g).id == "1914-10"
    # LGG-86 effects in October for the side that switched
    assert doctrine.doctrine(g, "DE", "West") == "trenches"
    assert DT.combat_table(g, "DE", "West") == "trench"  # defends on the Trench Table
    assert (
        DT.combativeness_table(g, "DE", "West") == "movement"
    )  # but the movement combativeness table
    assert (
        DT.october_attack_limit(g, CP, "West") == 2
        and DT.october_attack_limit(g, EN, "West") is None
    )
    mods = DT.attacker_d12_modifiers(g, "FR", "DE", "West")
    assert mods.total() == -1 and mods.items[0].rule == "LGG 36.2-A"
    assert doctrine.interception_mode(g, "DE", "West") == "even-d6"
    assert DT.combat_table(g, "FR", "West") == "movement"


@pytest.mark.rules("LGG 36.2-B", "LGG 36.2")
def test_lgg_36_2b_november_switch_is_automatic_with_rigid_zocs_and_plus_one() -> None:
    g = _g("1914-11")
    doctrine.set_doctrine(g, "DE", "West", "trenches")  # an October switch does not outlive October
    for n in ("DE", "FR"):
        assert doctrine.doctrine(g, n, "West") == "transition"
        assert doctrine.zoc_kind(g, n, "West") == "rigid"
        assert DT.combat_table(g, n, "West") == "trench"
        assert DT.combativeness_table(g, n, "West") == "movement"
    bonus = DT.defender_combativeness_bonus(g, "DE", "West")
    assert bonus.total() == 1 and bonus.items[0].rule == "LGG 36.2-B"
    g = _g("1915-01")
    assert DT.defender_combativeness_bonus(g, "DE", "West").total() == 2
    assert DT.defender_combativeness_bonus(g, "DE", "West", panic_followup=True).total() == 0


@pytest.mark.rules("LGG 36.2-B")
def test_lgg_36_2b_no_mans_land_then_disputed_hexes() -> None:
    pieces = [
        hq("de-hq", "DE", "0401", "DE-1"),
        corps("de", "DE", "0402", army="DE-1"),
        hq("fr-hq", "FR", "0407", "FR-1"),
        corps("fr", "FR", "0405", army="FR-1"),
    ]
    g = game(
        pieces=pieces,
        places=CAPITALS,
        control=CONTROL,
        rules={
            "first_turn": "1914-11",
            "last_turn": "1915-03",
            "armies": [army("DE-1", "DE", "de-hq"), army("FR-1", "FR", "fr-hq")],
        },
    )
    gaps = M.labels(g, DT.gap_hexes(g))
    assert "0403" in gaps and "0404" in gaps  # between 0402 and 0405
    assert "0408" not in gaps and "0401" not in gaps
    to_turn(
        g, "1915-01", "activation-movement", chooser=quiet(_activate(CP, "DE-1"))
    )  # the end of Nov-Dec 1914
    assert g.state.marker(DT.NO_MANS_LAND, "0403") == {"turn": "1915-01"}
    assert "0403" in g.view(EN)["markers"].get(DT.NO_MANS_LAND, {})  # a public fact
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "move", "side": CP, "units": ["de"], "to": "0403", "mode": "normal"})
    assert e.value.rule == "LGG 36.2-B"
    to_turn(
        g, "1915-03", "activation-movement", chooser=quiet(_activate(CP, "DE-1"))
    )  # the front is still not formed
    assert g.state.marker(DT.NO_MANS_LAND, "0403") is None
    assert g.state.marker(DT.DISPUTED, "0403") == {"turn": "1915-03"}
    act(g, CP, type="move", units=["de"], to="0403", mode="normal")  # entered, it is taken
    assert g.state.control[g.board.idx("0403")] == CP


@pytest.mark.rules("LGG 36.2-B")
def test_lgg_36_2b_no_mans_land_refuses_simple_movement_in_january_1915() -> None:
    pieces = [
        hq("de-hq", "DE", "0401", "DE-1"),
        corps("de", "DE", "0402", army="DE-1"),
        hq("fr-hq", "FR", "0408", "FR-1"),
        corps("fr", "FR", "0406", army="FR-1"),
    ]
    g = game(
        pieces=pieces,
        rules={
            "first_turn": "1915-01",
            "last_turn": "1915-03",
            "armies": [army("DE-1", "DE", "de-hq"), army("FR-1", "FR", "fr-hq")],
        },
    )
    g.state.set_marker(DT.NO_MANS_LAND, "0403", {"turn": "1915-01"})
    to_turn(g, "1915-01", "activation-movement", chooser=quiet(_activate(CP, "DE-1")))
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "move", "side": CP, "units": ["de"], "to": "0403", "mode": "normal"})
    assert e.value.rule == "LGG 36.2-B"
    act(g, CP, type="move", units=["de"], to="0302", mode="normal")  # elsewhere is fine


def _activate(side: str, army_id: str):
    def chooser(g, s, legal):
        for a in legal:
            if a["type"] == "first-mover" and a["first"] == side:
                return a
            if s == side and a["type"] == "activate" and a["army"] == army_id:
                return a
        return next((a for a in legal if a["type"].startswith("end")), None)

    return chooser


# ---------------------------------------------------------------------- 36.4 Combined Doctrine test
def _combined_game(turn: str = "1918-05", first: str | None = None):
    pieces = [
        hq("de-hq", "DE", "0404", "DE-1"),
        hq("de-hq2", "DE", "0405", "DE-2"),
        corps("de", "DE", "0403", army="DE-1"),
        hq("fr-hq", "FR", "0707", "FR-1"),
        corps("fr", "FR", "0606", army="FR-1"),
    ]
    g = game(
        pieces=pieces,
        rules={
            "first_turn": first or turn,
            "last_turn": turn,
            "armies": [
                army("DE-1", "DE", "de-hq"),
                army("DE-2", "DE", "de-hq2"),
                army("FR-1", "FR", "fr-hq"),
            ],
        },
    )
    return g


@pytest.mark.rules("LGG 36.4")
def test_lgg_36_4_lgg87_modifiers_of_the_combined_test() -> None:
    g = _combined_game("1918-05")
    now = M.turn_index(g)
    M.st(g)["tactics"] = [
        {"tactic": t, "nation": "DE", "side": CP, "turn": turn, "year": 1918}
        for t, turn in (
            ("infiltration", now - 2),
            ("blitz bombardment", now - 1),
            ("combined arms", now),
            ("combat gas", now - 3),
        )
    ]
    M.st(g)["technologies"] = {"DE": ["stosstruppen-c"]}
    M.st(g)["victories"] = [
        {"turn": now - 1, "hex": "0505", "side": CP, "nations": ["DE"], "sectors": ["French"]}
    ]
    M.st(g)["combined_tests"] = {"DE": 2}
    mods = DT.combined_test_modifiers(g, "DE")
    assert DT.turn_of_year(g) == 3
    assert mods.total() == 3 + 2 + 1 + 3 - 2 == 7  # -> natural 5+ succeeds
    assert M.data(g).calendar_index("1918-05") == now


@pytest.mark.rules("LGG 36.4", "LGG 36.5-A")
def test_lgg_36_4_success_switches_the_power_now_and_everyone_next_turn() -> None:
    g = _combined_game("1916-05")
    assert offensive.combined_candidates(g, CP) == []  # no great offensive to launch or continue
    g.state.secrets.setdefault(CP, {})["go-plans"] = [
        {
            "id": "p",
            "side": CP,
            "sector": "French",
            "year": 1916,
            "offensive": True,
            "start": "1916-05",
            "objective": ["0606"],
            "armies": ["DE-1", "DE-2"],
            "mode": "winter",
        }
    ]
    assert offensive.combined_candidates(g, CP) == ["DE"]
    assert offensive.combined_candidates(g, EN) == []
    M.st(g)["combined_tests"] = {"DE": -20}  # test setup: make the roll succeed
    assert DT.combined_test(g, CP, "DE") is True
    assert (
        doctrine.doctrine(g, "DE", "West") == "combined"
        and doctrine.doctrine(g, "FR", "West") == "fire"
    )
    assert M.st(g)["combined_from"] == M.turn_index(g) + 1
    mods = DT.attacker_d12_modifiers(g, "DE", "FR", "West")
    assert sorted(m.rule for m in mods) == [
        "LGG 16.4-F",
        "LGG 36.5-A",
    ]  # Combined vs Fire, first power
    assert offensive.combined_candidates(g, CP) == []  # nobody tests twice
    from grognard.rulesets.lgg1418.sequence import turn

    turn.start_turn(g, M.data(g).turn_by_id("1916-07"))
    for n in ("DE", "FR", "GB", "BE"):
        assert doctrine.doctrine(g, n, "West") == "combined"
    assert DT.attacker_d12_modifiers(g, "DE", "FR", "West").total() == 0


@pytest.mark.rules("LGG 36.4")
def test_lgg_36_4_the_test_is_a_reinforcement_phase_action_and_failure_counts() -> None:
    g = _combined_game("1916-05", first="1916-03")
    g.state.secrets.setdefault(CP, {})["go-plans"] = [
        {
            "id": "p",
            "side": CP,
            "sector": "French",
            "year": 1916,
            "offensive": True,
            "start": "1916-05",
            "objective": ["0606"],
            "armies": ["DE-1", "DE-2"],
            "mode": "winter",
        }
    ]
    M.st(g)["combined_tests"] = {"DE": 30}  # test setup: make the roll fail
    to_turn(g, "1916-05", "reinforcement-side", quiet())
    assert g.acting_sides() == [CP]
    act(g, CP, type="combined-test", power="DE")
    assert M.st(g)["combined_tests"]["DE"] == 31
    assert not any(a["type"] == "combined-test" for a in g.legal_actions(CP))
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "combined-test", "side": CP, "power": "DE"})
    assert e.value.rule == "LGG 36.4"


# ---------------------------------------------------------------------- 36.5-B static / in movement
@pytest.mark.rules("LGG 36.5-B", "LGG 36.5", "LGG 36.5-A")
def test_lgg_36_5b_in_movement_status_and_its_trench_level() -> None:
    g = _g("1917-03", pieces=[corps("de", "DE", "0404"), corps("fr", "FR", "0606")])
    g.state.tracks["trench_level"] = {"DE": 3}
    p = g.state.pieces["de"]
    i = g.board.idx("0404")
    assert not DT.in_movement(g, p)  # not in Combined Doctrine: no such status
    M.st(g)["combined_from"] = M.turn_index(g)
    assert (
        not DT.in_movement(g, p) and trench.stack_trench_level(g, i, CP) == 3
    )  # static: full trench
    M.set_attr(g, p, "moved_turn", M.turn_index(g))
    assert DT.in_movement(g, p)
    assert trench.stack_trench_level(g, i, CP) == 2  # level -1 (min 0)
    assert DT.defender_combativeness_bonus(g, "DE", "West", p).total() == 0
    assert (
        DT.general_bonus_cap(g, "DE", "West", True) == 2
        and DT.general_bonus_cap(g, "DE", "West", False) is None
    )
    M.set_attr(g, p, "moved_turn", M.turn_index(g) - 1)
    assert DT.in_movement(g, p)  # its next turn has not been played yet
    M.st(g).setdefault("side_turns", {})["West:Central Powers"] = {"done": 0, "ended": True}
    assert not DT.in_movement(g, p)  # a turn without moving: static again
    g2 = _g("1917-03", pieces=[corps("de", "DE", "0404")], options={"in-movement-trench": "none"})
    g2.state.tracks["trench_level"] = {"DE": 3}
    M.st(g2)["combined_from"] = M.turn_index(g2)
    M.set_attr(g2, g2.state.pieces["de"], "moved_turn", M.turn_index(g2))
    assert trench.stack_trench_level(g2, i, CP) == 0


@pytest.mark.rules("LGG 36.5-C")
def test_lgg_36_5c_reinforcements_by_distance_and_round() -> None:
    g = _g("1917-03")
    ok = DT.combined_reinforcement_allowed
    assert ok(g, 2, 2, "none", "West")
    assert ok(g, 3, 2, "none", "West")  # exactly 3 hexes is normal
    assert not ok(g, 4, 2, "blitz", "West") and ok(g, 4, 3, "blitz", "West")  # odd rounds only
    assert not ok(g, 5, 1, "none", "West", source="ghq-artillery") and ok(
        g, 5, 2, "none", "West", "ghq-artillery"
    )
    assert ok(g, 5, 2, "normal", "West") and ok(g, 5, 2, "massive", "West")  # no restriction
    assert not ok(g, 7, 1, "normal", "East", source="hq")  # East: 6 hexes at most
    g2 = _g("1917-03", options={"reinforcement-distance-three": "odd-rounds"})
    assert not ok(g2, 3, 2, "none", "West")


@pytest.mark.rules("LGG 36.4")
def test_lgg_36_4_victorious_battles_recorded_for_the_next_test() -> None:
    g = _combined_game("1916-05")
    from grognard.rulesets.lgg1418.map import mapdata
    from grognard.rulesets.lgg1418.sequence import turn

    g.state.control[g.board.idx("0505")] = EN
    mapdata.set_control(g, g.board.idx("0505"), CP)  # taken this turn
    g.state.set_marker(
        "battle",
        "0505",
        {"turn": M.turn_index(g), "side": CP, "activation": 1, "coordinated": ["DE-1", "FR-1"]},
    )
    g.state.set_marker(
        "battle",
        "0606",
        {"turn": M.turn_index(g), "side": CP, "activation": 2, "coordinated": ["DE-2", "FR-1"]},
    )  # hex not taken
    DT.record_victories(g)
    assert [(v["hex"], v["nations"], v["sectors"]) for v in M.st(g)["victories"]] == [
        ("0505", ["DE"], ["French"])
    ]
    turn.start_turn(g, M.data(g).turn_by_id("1916-07"))
    assert DT.french_sector_victories(g, "DE") == 1 and DT.french_sector_victories(g, "FR") == 0
    assert DT.combined_test_modifiers(g, "DE").total() == 3


@pytest.mark.rules("LGG 36.5-B", "LGG 28-B")
def test_lgg_36_5b_no_trench_combativeness_bonus_in_movement_in_the_battle() -> None:
    from grognard.rulesets.lgg1418.battle import base as battle
    from tests.lgg1418.battle_helpers import bgame, de, fr, open_battle

    g = bgame([fr("fa", "0405"), de("da", "0404")], first="1917-03")
    M.st(g)["combined_from"] = 0
    rec = open_battle(g, "0404", EN)
    reasons = [m.reason for m in battle.test_modifiers(g, rec, "da")]
    assert "defender in trench warfare" in reasons
    M.set_attr(g, g.state.pieces["da"], "moved_turn", M.turn_index(g))
    reasons = [m.reason for m in battle.test_modifiers(g, rec, "da")]
    assert "defender in trench warfare" not in reasons
