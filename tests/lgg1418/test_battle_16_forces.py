"""LGG 16-A, 16.1 (great battle), 16.2 (engaged unit), 16.3 (force differential) and 16.4 (D12)."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import battle_activation, battle_calc, battle_steps
from tests.lgg1418.battle_helpers import bgame, de, engage, fr, fr_art, open_battle, set_from
from tests.lgg1418.helpers import CP, EN, corps


def _n(prefix: str, n: int, at: str, maker=fr, **kw):
    return [maker(f"{prefix}{k}", at, **kw) for k in range(n)]


# ====================================================================== 16.1-A
@pytest.mark.rules("LGG 16.1", "LGG 16.1-A")
def test_lgg_16_1a_lgg39_great_battle_determination() -> None:
    g = bgame(_n("f", 5, "0404") + _n("d", 3, "0404", de))
    assert not open_battle(g, "0404", EN).great  # Movement 5 vs 3
    g = bgame(_n("f", 4, "0404") + _n("d", 4, "0404", de))
    assert open_battle(g, "0404", EN).great  # Movement 4 vs 4
    g = bgame(_n("f", 4, "0404") + _n("d", 1, "0404", de), first="1915-03")
    rec = open_battle(g, "0404", EN)
    assert rec.great and rec.late_split  # Fire 4 vs 1: great, round 1 a single sub-battle
    assert rec.subs["A"]["open"] and rec.subs["B"].get("pending")
    g = bgame(_n("f", 3, "0404") + _n("d", 6, "0404", de), first="1915-03")
    rec = open_battle(g, "0404", EN)
    assert not rec.great
    # Fire, normal battle: the attacker may never have more than 3 corps in the front line
    g.state.pieces["fh"]  # an HQ reserve corps within range could not join
    assert battle_steps.reinforcement_targets(g, rec, EN, "f0", "hq:fh") == []


@pytest.mark.rules("LGG 16.1-A")
def test_lgg_16_1a_a60_single_defender_loses_sub_battle_b_without_reinforcement() -> None:
    g = bgame(_n("f", 4, "0404") + _n("d", 1, "0404", de), first="1915-03")
    rec = open_battle(g, "0404", EN)
    rec.phase = "verdicts"
    step = g.steps["battle"]
    assert isinstance(step, battle_steps.BattleStep)
    f = Frame("battle", {"battle": rec.id})
    while rec.phase not in ("after-round", "ending", "late-split"):
        step.verdicts(g, f)
    assert rec.subs["B"]["winner"] == EN and rec.subs["A"]["flank_for"] == EN


# ====================================================================== 16.1-B
@pytest.mark.rules("LGG 16.1-B")
def test_lgg_16_1b_a9_split_options_as_equal_or_free() -> None:
    g = bgame(
        [*_n("f", 5, "0404"), fr_art("a1", "0404"), fr_art("a2", "0404"), *_n("d", 4, "0404", de)]
    )
    rec = open_battle(g, "0404", EN)
    opts = battle_steps.split_options(g, rec, EN)
    for o in opts:
        ca = sum(1 for u in o["A"] if u.startswith("f"))
        cb = sum(1 for u in o["B"] if u.startswith("f"))
        assert abs(ca - cb) <= 1 and ca and cb
        assert sum(1 for u in o["A"] if u.startswith("a")) == 1
    assert len(opts) == 20 * 2  # C(5,2) + C(5,3) corps splits, times the two ways to split 2 guns
    g2 = bgame(_n("f", 4, "0404") + _n("d", 4, "0404", de), options={"sub-battle-split": "free"})
    rec2 = open_battle(g2, "0404", EN)
    assert any(
        not [u for u in o["B"]] for o in battle_steps.split_options(g2, rec2, EN)
    )  # all in A allowed


@pytest.mark.rules("LGG 16.1-B")
def test_lgg_16_1b_two_attacking_armies_take_one_sub_battle_each() -> None:
    from tests.lgg1418.helpers import army, general, hq

    extra = (
        [hq("f2h", "FR", "0506", "FR-2"), general("f2g", "FR", "f2h", rank=3)]
        + _n("f", 2, "0404")
        + [corps(f"g{k}", "FR", "0404", army="FR-2") for k in range(2)]
        + _n("d", 4, "0404", de)
    )
    g = bgame(
        extra,
        rules={
            "armies": [
                army("FR-1", "FR", "fh"),
                army("FR-2", "FR", "f2h"),
                army("DE-1", "DE", "dh"),
            ]
        },
    )
    rec = open_battle(g, "0404", EN, armies=["FR-1", "FR-2"])
    opts = battle_steps.split_options(g, rec, EN)
    assert len(opts) == 2
    assert {tuple(o["A"]) for o in opts} == {("f0", "f1"), ("g0", "g1")}


@pytest.mark.rules("LGG 16.1-B", "LGG 4-A")
def test_lgg_16_1b_divisions_are_secret_until_both_sides_commit() -> None:
    from grognard.rulesets.lgg1418.units.fog import view_is_clean

    g = bgame(_n("f", 4, "0405") + _n("d", 4, "0404", de))
    from tests.lgg1418.helpers import act, to_activation

    to_activation(g, EN, "FR-1")
    act(g, EN, type="move", units=sorted(f"f{k}" for k in range(4)), to="0404", mode="normal")
    from tests.lgg1418.battle_helpers import drive, in_step

    drive(g, until=in_step("battle-commit"))
    f = g.current()[1]
    assert f.params["kind"] == "split"
    first = g.acting_sides()[0]
    a = g.legal_actions(first)[0]
    g.apply(a)
    key = next(k for k in g.state.secrets[first] if k.startswith("battle:"))
    assert g.state.secrets[first][key] == a["choice"]
    other = M.other_side(first)
    assert key not in g.view(other)["secrets"]
    assert not view_is_clean(g, other) or True
    assert view_is_clean(g, other) == [] and view_is_clean(g, first) == []
    g.apply(g.legal_actions(other)[0])
    assert all(
        not any(k.startswith("battle:") for k in g.state.secrets.get(s, {})) for s in M.SIDES
    )
    assert any(
        ev["type"] == "reveal" and "divisions revealed" in ev["text"] for ev in g.visible_log(other)
    )
    # the other side learns the counts of each division, never the ids
    assert view_is_clean(g, other) == []


# ====================================================================== 16-A
@pytest.mark.rules("LGG 16-A")
def test_lgg_16a_attack_restrictions() -> None:
    from tests.lgg1418.battle_helpers import base_pieces
    from tests.lgg1418.helpers import army, hq, to_activation

    extra = [hq("f2h", "FR", "0606", "FR-2")]
    rules = {
        "armies": [army("FR-1", "FR", "fh"), army("FR-2", "FR", "f2h"), army("DE-1", "DE", "dh")]
    }
    g = bgame(
        [fr("fa", "0405"), corps("g1", "FR", "0405", army="FR-2"), de("da", "0404"), *extra],
        base=base_pieces(fr_hq="0605"),
        rules=rules,
    )
    to_activation(g, EN, "FR-1")
    with pytest.raises(IllegalAction) as e:  # the hex it starts from holds a unit of another army
        g.apply({"type": "move", "side": EN, "units": ["fa"], "to": "0404", "mode": "normal"})
    assert e.value.rule == "LGG 16-A"
    # a stack already beaten this turn (it has just retreated there) is not attacked again
    g2 = bgame([fr("fa", "0405"), de("da", "0404")])
    to_activation(g2, EN, "FR-1")
    g2.state.set_marker("retreated", "0404", {"turn": M.turn_index(g2), "side": CP, "battle": "B1"})
    with pytest.raises(IllegalAction) as e:
        g2.apply({"type": "move", "side": EN, "units": ["fa"], "to": "0404", "mode": "normal"})
    assert e.value.rule == "LGG 16-A"
    act2 = M.st(g2)["activation"]
    members = [g2.state.pieces["fa"]]
    # ... except in a breakthrough (or a reaction)
    battle_activation.attack_move_check(
        g2, {**act2, "breakthrough": True}, members, g2.board.idx("0404"), "normal", True
    )
    # at most two armies together in one attack
    g3 = bgame(
        [
            fr("fa", "0405"),
            de("da", "0404"),
            corps("x1", "FR", "0404", army="FR-2"),
            corps("x2", "FR", "0404", army="FR-3"),
            *extra,
            hq("f3h", "FR", "0706", "FR-3"),
        ],
        rules={"armies": rules["armies"] + [army("FR-3", "FR", "f3h")]},
    )
    with pytest.raises(IllegalAction) as e:
        battle_activation.attack_move_check(
            g3,
            {"side": EN, "serial": 1},
            [g3.state.pieces["fa"]],
            g3.board.idx("0404"),
            "normal",
            True,
        )
    assert "two armies" in e.value.message


@pytest.mark.rules("LGG 16-A", "LGG 11.1-F")
def test_lgg_16a_battle_marker_and_attacker_origin() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404")])
    set_from(g, "fa", "0405")
    rec = open_battle(g, "0404", EN)
    mk = g.state.marker("battle", "0404")
    assert mk["side"] == EN and mk["turn"] == M.turn_index(g) and "FR-1" in mk["coordinated"]
    assert rec.attacker_from == ["0405"] and rec.units["fa"]["from"] == "0405"


# ====================================================================== 16.2
@pytest.mark.rules("LGG 16.2", "LGG 16.2-A", "LGG 16.5-B")
def test_lgg_16_2a_lgg51_repulsed_barred_next_round_disorganized_for_good() -> None:
    g = bgame(_n("f", 2, "0404") + _n("d", 2, "0404", de))
    rec = open_battle(g, "0404", EN)
    rec.units["f0"]["barred"] = 2  # repulsed in round 1
    rec.round = 2
    assert battle_steps.engageable(g, rec, EN, "A") == ["f1"]
    rec.round = 3
    assert battle_steps.engageable(g, rec, EN, "A") == ["f0", "f1"]
    rec.units["f1"]["state"] = "disorganized"
    assert battle_steps.engageable(g, rec, EN, "A") == ["f0"]
    rec.round = 9
    assert battle_steps.engageable(g, rec, EN, "A") == ["f0"]


@pytest.mark.rules("LGG 16.2-A")
def test_lgg_16_2a_consecutive_engagement_penalty() -> None:
    g = bgame(_n("f", 2, "0404") + _n("d", 2, "0404", de))
    rec = open_battle(g, "0404", EN)
    rec.round = 2
    rec.units["f0"]["engaged"] = [1, 2]
    rec.units["f1"]["engaged"] = [2]
    assert [m.rule for m in battle.test_modifiers(g, rec, "f0")] == ["LGG 16.2-A"]
    assert list(battle.test_modifiers(g, rec, "f1")) == []


# ====================================================================== 16.3
@pytest.mark.rules("LGG 16.3", "LGG 16.3-A", "LGG 16.3-C")
def test_lgg_16_3a_16_3c_lgg41_cavalry_alone_and_minimum_one() -> None:
    cav = fr("cav", "0404", arm="cavalry", full=(2, 0, 3, 6))
    g = bgame([cav, de("da", "0404")])
    rec = open_battle(g, "0404", EN)
    engage(rec, "A", "cav", "da")
    calc = battle_calc.round_calc(g, rec, "A")
    assert (
        calc.attacker.base == 2
        and int(calc.attacker.mods.total()) == -2
        and calc.attacker.total == 1
    )
    g2 = bgame([cav, fr("inf", "0404"), de("da", "0404")])
    rec2 = open_battle(g2, "0404", EN)
    engage(rec2, "A", "cav", "da")
    assert battle_calc.round_calc(g2, rec2, "A").attacker.total == 2  # stacked with infantry: no -2
    g3 = bgame([cav, de("dc", "0404", arm="cavalry")])
    rec3 = open_battle(g3, "0404", EN)
    engage(rec3, "A", "cav", "dc")
    assert (
        battle_calc.round_calc(g3, rec3, "A").attacker.total == 2
    )  # cavalry against cavalry: no -2


@pytest.mark.rules("LGG 16.3-B")
def test_lgg_16_3b_lgg7_two_digit_modifiers() -> None:
    g = bgame([])
    assert [battle.two_digit_total(g, ["21"], r)[0] for r in (1, 2, 3)] == [2, 1, 1]
    assert [battle.two_digit_total(g, ["21", "21"], r)[0] for r in (1, 2, 3, 4, 5)] == [
        3,
        3,
        2,
        2,
        2,
    ]
    assert (
        battle.two_digit_total(g, ["21", "21"], 1)[1] == 4
    )  # the running value is kept above the cap
    g2 = bgame([], options={"two-digit-floor": "literal"})
    assert [battle.two_digit_total(g2, ["21", "21"], r)[0] for r in (1, 2, 3, 4)] == [3, 3, 2, 1]


@pytest.mark.rules("LGG 16.3-B", "LGG 7-B", "LGG 7-C")
def test_lgg_16_3b_terrain_river_and_frozen_rivers() -> None:
    rows = ["pppppppp"] * 8
    rows[3] = "pppfpppp"  # 0404 forest ("21")
    hs = [{"feature": "river", "sides": ["0404/0405"]}]
    g = bgame([fr("fa", "0404"), de("da", "0404")], terrain=rows, hexsides=hs)
    set_from(g, "fa", "0405")
    rec = open_battle(g, "0404", EN)
    engage(rec, "A", "fa", "da")
    calc = battle_calc.round_calc(g, rec, "A")
    terr = [m for m in calc.defender.mods if m.rule == "LGG 16.3-B"]
    assert terr and terr[0].value == 3  # forest 2 + river 2 = 4 running, applied 3 (cap)
    rec.round = 4
    calc4 = battle_calc.round_calc(g, rec, "A")
    assert [m.value for m in calc4.defender.mods if m.rule == "LGG 16.3-B"] == [2]  # floor: 1 + 1


@pytest.mark.rules("LGG 16.3-D", "LGG 9-G")
def test_lgg_16_3d_flank_encirclement_and_out_of_supply() -> None:
    g = bgame(_n("f", 1, "0404") + _n("d", 1, "0404", de))
    rec = open_battle(g, "0404", EN)
    engage(rec, "A", "f0", "d0")
    base = battle_calc.round_calc(g, rec, "A").attacker.total
    rec.subs["A"]["flank_for"] = EN
    assert battle_calc.round_calc(g, rec, "A").attacker.total == base + 1
    rec.subs["A"]["encircled_by"] = EN
    assert (
        battle_calc.round_calc(g, rec, "A").attacker.total == base + 2
    )  # not cumulative with the flank
    # out of supply: half, rounded down, after every modification (the French far from any source)
    ring = ["0201", "0102", "0302", "0203", "0303", "0103"]
    g2 = bgame(
        [fr("fa", "0202"), de("da", "0202")] + [de(f"r{k}", h) for k, h in enumerate(ring)],
        base=[
            b
            for b in __import__(
                "tests.lgg1418.battle_helpers", fromlist=["base_pieces"]
            ).base_pieces(fr_hq="0808", de_hq="0401")
        ],
    )
    rec2 = open_battle(g2, "0202", CP)
    engage(rec2, "A", "da", "fa")
    calc = battle_calc.round_calc(g2, rec2, "A")
    assert calc.defender.halved and calc.defender.total == 4  # 8 // 2


# ====================================================================== 16.4
@pytest.mark.rules("LGG 16.4", "LGG 16.4-A")
def test_lgg_16_4a_general_bonus_within_command_range() -> None:
    from tests.lgg1418.battle_helpers import base_pieces

    g = bgame([fr("fa", "0404"), de("da", "0404")], base=base_pieces(fr_bonus=2, de_bonus=1))
    rec = open_battle(g, "0404", EN)
    engage(rec, "A", "fa", "da")
    mods, total, _cap = battle.d12_modifiers(g, rec, "A")
    assert [(m.value, m.rule) for m in mods] == [
        (2, "LGG 16.4-A"),
        (-1, "LGG 16.4-A"),
    ] and total == 1
    g2 = bgame([fr("fa", "0101"), de("da", "0101")], base=base_pieces(fr_bonus=2, fr_hq="0808"))
    rec2 = open_battle(g2, "0101", EN)  # 0101 is 7 hexes from the HQ (range 3)
    engage(rec2, "A", "fa", "da")
    assert battle.d12_modifiers(g2, rec2, "A")[1] == 0  # beyond the HQ's command radius


@pytest.mark.rules("LGG 16.4-B")
def test_lgg_16_4b_event_modifier_given_by_the_caller() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404")])
    ev = {"side": "defender", "target": "d12", "value": 1, "rule": "LGG 16.4-B", "reason": "event"}
    rec = open_battle(g, "0404", EN, modifiers=[ev])
    engage(rec, "A", "fa", "da")
    assert battle.d12_modifiers(g, rec, "A")[1] == -1
    with pytest.raises(ValueError, match="one event counter per side"):
        battle.battle_params(g, hex="0404", attacker=EN, modifiers=[ev, ev])


@pytest.mark.rules("LGG 16.4-C")
def test_lgg_16_4c_lgg45_bef() -> None:
    bef = corps("bef", "GB", "0404", code="83-9-4", full=(8, 3, 9, 4))
    for first, want in (("1914-09", 1), ("1914-11", 0)):
        g = bgame([bef, de("da", "0404")], first=first)
        rec = open_battle(g, "0404", EN)
        engage(rec, "A", "bef", "da")
        got = sum(m.value for m in battle.d12_modifiers(g, rec, "A")[0] if m.rule == "LGG 16.4-C")
        assert got == want
        rec2 = open_battle(g, "0404", CP)
        engage(rec2, "A", "da", "bef")
        got2 = sum(m.value for m in battle.d12_modifiers(g, rec2, "A")[0] if m.rule == "LGG 16.4-C")
        assert got2 == want  # the BEF defending: -1 for it, +1 on the attacker's roll
    g3 = bgame([bef, de("da", "0404")], options={"bef-modifier": "value"})
    rec3 = open_battle(g3, "0404", EN)
    engage(rec3, "A", "bef", "da")
    assert any(m.rule == "LGG 16.4-C" for m in battle_calc.round_calc(g3, rec3, "A").attacker.mods)


@pytest.mark.rules("LGG 16.4-D")
def test_lgg_16_4d_lgg43_movement_superiority_audit_corrected() -> None:
    g = bgame(_n("f", 6, "0404") + _n("d", 3, "0404", de))
    assert battle.superiority(g, open_battle(g, "0404", EN)) == 1  # 6 vs 3: normal battle, +1
    g = bgame(_n("f", 3, "0404") + _n("d", 6, "0404", de))
    assert battle.superiority(g, open_battle(g, "0404", EN)) == -1
    g = bgame(
        _n("f", 6, "0404") + _n("d", 6, "0404", de)
    )  # stacking: 7 vs 4 becomes a great battle
    rec = open_battle(g, "0404", EN)
    for u in ("d0", "d1"):
        rec.units[u]["role"] = "idle"
    rec.units["f0"]["role"] = "front"
    assert rec.great
    rec.units["d2"]["role"] = "idle"
    assert (
        battle.superiority(g, rec) == 0
    )  # great battle: nobody before a sub-battle is won (audit 1)
    rec.sub_wins.append(EN)
    assert battle.superiority(g, rec) == 1


@pytest.mark.rules("LGG 16.4-E")
def test_lgg_16_4e_lgg44_fire_superiority() -> None:
    g = bgame(_n("f", 6, "0404") + _n("d", 2, "0404", de), first="1915-03")
    rec = open_battle(g, "0404", EN)
    assert rec.great and battle.superiority(g, rec) == 0  # no order E, no sub-battle won
    rec.sub_wins.append(EN)
    assert battle.superiority(g, rec) == 1
    rec2 = open_battle(g, "0404", EN, orders={"attacker": "E"})
    assert battle.superiority(g, rec2) == 1
    g = bgame(_n("f", 3, "0404") + _n("d", 1, "0404", de), first="1915-03")
    assert battle.superiority(g, open_battle(g, "0404", EN)) == 0  # normal battle 3 vs 1
    g = bgame(_n("f", 3, "0404") + _n("d", 6, "0404", de), first="1915-03")
    rec = open_battle(g, "0404", EN)
    assert battle.superiority(g, rec) == -1
    engage(rec, "A", "f0", "d0")
    assert battle.d12_modifiers(g, rec, "A")[2] == 1  # defender superiority: cap +/-1


@pytest.mark.rules("LGG 16.4-F", "LGG 36.2-A")
def test_lgg_16_4f_a12_doctrine_modifiers() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404")], rules={"doctrine": {"DE": "trenches"}})
    rec = open_battle(g, "0404", EN)
    engage(rec, "A", "fa", "da")
    assert [m.value for m in battle.d12_modifiers(g, rec, "A")[0] if m.rule == "LGG 16.4-F"] == [-1]
    assert rec.table == "combat-trench"  # the side that switched defends on the Trench Table
    g2 = bgame(
        [fr("fa", "0404"), de("da", "0404")],
        first="1916-05",
        rules={"doctrine": {"FR": "combined"}},
    )
    rec2 = open_battle(g2, "0404", EN)
    engage(rec2, "A", "fa", "da")
    assert [m.value for m in battle.d12_modifiers(g2, rec2, "A")[0] if m.rule == "LGG 16.4-F"] == [
        1
    ]
    g3 = bgame(
        [fr("fa", "0404"), de("da", "0404")],
        rules={"doctrine": {"DE": "trenches"}},
        options={"movement-vs-fire-penalty": 0},
    )
    rec3 = open_battle(g3, "0404", EN)
    engage(rec3, "A", "fa", "da")
    assert not [m for m in battle.d12_modifiers(g3, rec3, "A")[0] if m.rule == "LGG 16.4-F"]


@pytest.mark.rules("LGG 16.4-G")
def test_lgg_16_4g_lgg46_marines() -> None:
    hs = [{"feature": "sea", "sides": ["0404/0304"]}]
    mar = fr("mar", "0404", arm="marine", full=(6, 3, 8, 4), morale="active")
    g = bgame([mar, de("da", "0404")], hexsides=hs)
    rec = open_battle(g, "0404", CP)
    engage(rec, "A", "da", "mar")
    calc = battle_calc.round_calc(g, rec, "A")
    assert calc.attacker.fire == 0 and battle.morale(g, rec, g.state.pieces["mar"]) == "elite"
    g2 = bgame([mar, de("da", "0404")])
    rec2 = open_battle(g2, "0404", CP)
    engage(rec2, "A", "da", "mar")
    calc2 = battle_calc.round_calc(g2, rec2, "A")
    assert calc2.attacker.fire == 3 and battle.morale(g2, rec2, g2.state.pieces["mar"]) == "veteran"


@pytest.mark.rules("LGG 16.4-H")
def test_lgg_16_4h_lgg46_mountain_corps() -> None:
    rows = ["pppppppp"] * 8
    rows[3] = "pppmpppp"  # 0404 mountain
    mf = fr("mf", "0404", arm="mountain")
    md = de("md", "0404", arm="mountain")
    g = bgame([mf, md], terrain=rows)
    rec = open_battle(g, "0404", CP)
    engage(rec, "A", "md", "mf")
    mods = battle.d12_modifiers(g, rec, "A")[0]
    assert [m.value for m in mods if m.rule == "LGG 16.4-H"] == [-1]  # the defender nets +1
    calc = battle_calc.round_calc(g, rec, "A")
    assert calc.attacker.fire == 0 and calc.defender.fire == 0  # each ignores the other's fire
    g2 = bgame([mf, de("inf", "0404")], terrain=rows)
    rec2 = open_battle(g2, "0404", CP)
    engage(rec2, "A", "inf", "mf")
    assert battle_calc.round_calc(g2, rec2, "A").attacker.fire == 0 and not [
        m for m in battle.d12_modifiers(g2, rec2, "A")[0] if m.rule == "LGG 16.4-H"
    ]


@pytest.mark.rules("LGG 16.4-I")
def test_lgg_16_4i_lgg47_siberians() -> None:
    sib = [
        corps(
            f"s{k}", "RU", "0404", siberian=True, morale="veteran", code="51-6-4", full=(5, 1, 6, 4)
        )
        for k in range(3)
    ]
    g = bgame([*sib, de("da", "0404")], rules={"weather": {"1914-09": {"temperate": "snow"}}})
    from grognard.rulesets.lgg1418.map import weather

    weather.determine_weather(g)
    assert [battle.morale(g, None, g.state.pieces[f"s{k}"]) for k in range(3)] == ["elite"] * 3
    g2 = bgame([*sib, de("da", "0404")])
    assert [battle.morale(g2, None, g2.state.pieces[f"s{k}"]) for k in range(3)] == [
        "elite",
        "veteran",
        "veteran",
    ]
    from grognard.core.state import Frame

    step = g2.steps["siberian-choice"]  # the choice, made each turn in the reinforcement phase
    f = Frame("siberian-choice", {})
    assert (
        step.actors(g2, f) == [EN] and len(step.legal_actions(g2, f, EN)) == 3 + 1
    )  # or keep the choice
    step.apply(g2, f, {"type": "siberian-elite", "side": EN, "unit": "s1"})
    assert [battle.morale(g2, None, g2.state.pieces[f"s{k}"]) for k in range(3)] == [
        "veteran",
        "elite",
        "veteran",
    ]


@pytest.mark.rules("LGG 16.4-J")
def test_lgg_16_4j_lgg42_cap() -> None:
    from tests.lgg1418.battle_helpers import base_pieces

    g = bgame([fr("fa", "0404"), de("da", "0404")], base=base_pieces(fr_bonus=3))
    rec = open_battle(g, "0404", EN)
    engage(rec, "A", "fa", "da")
    mods, total, cap = battle.d12_modifiers(g, rec, "A")
    assert total == 2 and cap == 2 and mods.items[-1].rule == "LGG 16.4-J"
    g2 = bgame([fr("fa", "0404"), de("da", "0404")], base=base_pieces(de_bonus=3))
    rec2 = open_battle(g2, "0404", EN)
    engage(rec2, "A", "fa", "da")
    assert battle.d12_modifiers(g2, rec2, "A")[1] == -2
    g3 = bgame(
        [fr("fa", "0404"), de("da", "0404")],
        base=base_pieces(fr_bonus=3),
        rules={"weather": {"1914-09": {"temperate": "snow"}}},
    )
    from grognard.rulesets.lgg1418.map import weather

    weather.determine_weather(g3)
    rec3 = open_battle(g3, "0404", EN)
    engage(rec3, "A", "fa", "da")
    assert battle.d12_modifiers(g3, rec3, "A")[1] == 1  # snow: +/-1 (3 - 1 for snow = 2, capped 1)
    rec3.spec["d12_cap"] = 2  # 47.2-C Russians in a Siberian winter: the caller lifts the cap
    assert battle.d12_modifiers(g3, rec3, "A")[1] == 2
