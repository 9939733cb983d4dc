"""LGG 16 through the sequence of play: a battle fought round by round with prompts to each side,
reserves (16.6), obstinacy (16.6-C), the end of a battle (16.7-A) and the fog of war."""

from __future__ import annotations

import pytest

from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import battle_steps
from grognard.rulesets.lgg1418.units.fog import view_is_clean
from tests.lgg1418.battle_helpers import (
    base_pieces,
    bgame,
    de,
    drive,
    force_dice,
    fr,
    fr_art,
    last_battle,
    open_battle,
)
from tests.lgg1418.helpers import CP, EN, act, army, corps, general, ghq, hq, to_activation


def _attack(g, units, to="0404"):
    act(g, EN, type="move", units=sorted(units), to=to, mode="normal")


def _clean(g, side, legal):
    assert view_is_clean(g, CP) == [] and view_is_clean(g, EN) == []
    return None


@pytest.mark.rules(
    "LGG 16", "LGG 16-A", "LGG 16.2", "LGG 16.3", "LGG 16.4", "LGG 16.5", "LGG 16.7", "LGG 4-A"
)
def test_lgg_16_a_battle_through_the_sequence_with_no_leak() -> None:
    g = bgame(
        [fr("fa", "0405"), fr("fb", "0405"), fr_art("fart", "0405"), de("da", "0404")], seed=4
    )
    to_activation(g, EN, "FR-1")
    _attack(g, ["fa", "fart", "fb"])
    act(g, EN, type="end-movement")
    drive(g, _clean, until=lambda g: M.st(g).get("activation") is None)
    rec = last_battle(g)
    assert rec.ended and rec.winner in M.SIDES and rec.round >= 1
    types = [ev["type"] for ev in g.state.log]
    assert "battle-round" in types and "battle-result" in types and "battle-end" in types
    rolls = [ev for ev in g.state.log if ev["type"] == "roll" and ev.get("rule") == "LGG 16.4"]
    assert len(rolls) >= rec.round  # one D12 a round, logged with its modifiers
    i = g.board.idx("0404")
    if rec.winner == EN:
        assert not M.units_at_hex(g, i, CP) and g.state.control.get(i) == EN
    else:
        assert not M.units_at_hex(g, i, EN)
        assert all(
            M.hex_of(g, g.state.pieces[u]) == g.board.idx("0405")
            for u in ("fa", "fb")
            if g.state.pieces[u].loc.kind == "hex"
        )


@pytest.mark.rules("LGG 16.6", "LGG 16.6-A", "LGG 16-B")
def test_lgg_16_6a_movement_reinforcement_sources() -> None:
    pieces = [
        fr("fa", "0404"),
        de("da", "0404"),
        de("dres", {"inside": "dh"}, status=["reserve"]),
        corps("gres", "DE", {"inside": "de-ghq"}, status=["reserve"]),
    ]
    g = bgame(pieces)
    rec = open_battle(g, "0404", EN)
    pool = dict(battle_steps.reinforcement_pool(g, rec, CP))
    assert pool == {
        "dres": "hq:dh",
        "gres": "ghq:de-ghq",
    }  # HQ in range (0302), GHQ within 3 (0202)
    g2 = bgame(
        pieces,
        base=[b for b in base_pieces(de_hq="0101") if b["id"] != "de-ghq"]
        + [ghq("de-ghq", "DE", "0101")],
    )
    rec2 = open_battle(g2, "0404", EN)
    assert battle_steps.reinforcement_pool(g2, rec2, CP) == []  # HQ out of range, GHQ 4+ hexes away
    # rear corps that are not disorganized come back; army-own units of another army never
    rec.units["da"]["role"] = "rear"
    assert ("da", "rear") in battle_steps.reinforcement_pool(g, rec, CP)


@pytest.mark.rules("LGG 16.6-A")
def test_lgg_16_6a_fire_sources() -> None:
    pieces = [
        fr("fa", "0404"),
        de("da", "0404"),
        de("db", "0303"),
        de("dc", "0303"),
        de("dres", {"inside": "dh"}, status=["reserve"]),
    ]
    g = bgame(pieces, first="1915-03")
    rec = open_battle(g, "0404", EN)
    pool = dict(battle_steps.reinforcement_pool(g, rec, CP))
    assert (
        pool.get("dres") == "hq:dh"
        and pool.get("db") == "stack:0303"
        and pool.get("dc") == "stack:0303"
    )
    g1 = bgame([fr("fa", "0404"), de("da", "0404"), de("db", "0303")], first="1915-03")
    rec1 = open_battle(g1, "0404", EN)
    assert "db" not in dict(
        battle_steps.reinforcement_pool(g1, rec1, CP)
    )  # must leave a corps behind


@pytest.mark.rules("LGG 16.6-A")
def test_lgg_16_6a_lgg52_eastern_distances() -> None:
    from tests.lgg1418.battle_helpers import HEXES

    east = {"fronts": ["East"], "default_sector": "Russian"}
    wide = ["pppppppppppp"] * 8
    ctrl = {
        "hexes": {
            CP: [h for h in HEXES if int(h[:2]) + int(h[2:]) <= 8],
            EN: [h for h in HEXES if int(h[:2]) + int(h[2:]) > 8],
        }
    }
    # a Russian HQ: within 3 hexes every round; 4-6 hexes only odd rounds; beyond 6 never
    for hq_at, want in (
        ("0206", [True, True, True]),
        ("0801", [True, False, True]),
        ("1104", [False, False, False]),
    ):
        pieces = [
            hq("rh", "RU", hq_at, "RU-1"),
            general("rg", "RU", "rh"),
            corps("ra", "RU", "0404", army="RU-1"),
            corps("rres", "RU", {"inside": "rh"}, army="RU-1", status=["reserve"]),
            hq("dh", "DE", "0302", "DE-1"),
            corps("da", "DE", "0404", army="DE-1"),
        ]
        g = bgame(
            [],
            base=pieces,
            first="1915-03",
            terrain=wide,
            control=ctrl,
            rules={**east, "armies": [army("RU-1", "RU", "rh"), army("DE-1", "DE", "dh")]},
        )
        rec = open_battle(g, "0404", CP)
        got = []
        for r in (1, 2, 3):
            rec.round = r
            got.append("rres" in dict(battle_steps.reinforcement_pool(g, rec, EN)))
        assert got == want, hq_at
    # Germany and Austria-Hungary reinforce with their HQs at any distance on this front
    pieces = [
        hq("dh", "DE", "1104", "DE-1"),
        general("dg", "DE", "dh"),
        corps("da", "DE", "0404", army="DE-1"),
        corps("dres", "DE", {"inside": "dh"}, army="DE-1", status=["reserve"]),
        hq("rh", "RU", "0606", "RU-1"),
        corps("ra", "RU", "0404", army="RU-1"),
    ]
    g = bgame(
        [],
        base=pieces,
        first="1915-03",
        terrain=wide,
        control=ctrl,
        rules={**east, "armies": [army("RU-1", "RU", "rh"), army("DE-1", "DE", "dh")]},
    )
    rec = open_battle(g, "0404", EN)
    rec.round = 2
    assert "dres" in dict(battle_steps.reinforcement_pool(g, rec, CP))


@pytest.mark.rules("LGG 16.6-A")
def test_lgg_16_6a_lgg52_flanked_side_reinforces_only_in_odd_rounds() -> None:
    g = bgame(
        [fr("fa", "0404"), de("da", "0404"), de("dres", {"inside": "dh"}, status=["reserve"])]
    )
    rec = open_battle(g, "0404", EN)
    rec.subs["A"]["flank_for"] = EN
    rec.round = 2
    assert battle_steps.reserve_options(g, rec, CP) == [{"units": [], "tanks": []}]
    rec.round = 3
    assert len(battle_steps.reserve_options(g, rec, CP)) > 1
    rec.round = 2
    assert len(battle_steps.reserve_options(g, rec, EN)) >= 1


@pytest.mark.rules("LGG 16.6-B")
def test_lgg_16_6b_lgg53_allied_aid(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    base = [*base_pieces(), ghq("gb-ghq", "GB", "0708")]
    base[-1]["faces"]["front"]["reaction"] = 7
    g = bgame(
        [fr("fa", "0404"), corps("gb1", "GB", "0404"), de("da", "0404")], base=base, first="1915-03"
    )
    rec = open_battle(g, "0404", EN)
    p = g.state.pieces["gb1"]
    assert battle_steps._allied_test_needed(g, rec, EN, p)
    rec.allied_sent["GB"] = 1
    dice.push(7)
    assert not battle_steps.allied_test(g, rec, EN, p)  # 7 - 1 < 7
    dice.push(8)
    assert battle_steps.allied_test(g, rec, EN, p)  # natural 8 needed
    art = g.state.pieces["fa"]
    assert not battle_steps._allied_test_needed(g, rec, EN, art)
    recd = open_battle(g, "0404", CP)
    assert not battle_steps._allied_test_needed(
        g, recd, CP, g.state.pieces["gb1"]
    )  # the Central Powers never test


@pytest.mark.rules("LGG 16.6-C", "LGG 16.7-A")
def test_lgg_16_6c_lgg54_obstinacy_counts() -> None:
    g = bgame(
        [fr(f"f{k}", "0404") for k in range(4)] + [de(f"d{k}", "0404") for k in range(4)],
        base=base_pieces(fr_obst=3),
    )
    rec = open_battle(g, "0404", EN)
    assert rec.great and rec.min_rounds == 3
    battle_steps.count_obstinacy(g, rec, 2)
    assert rec.obstinacy_count == 2 and battle_steps.may_retreat_voluntarily(g, rec, EN) is not None
    rec.round = 2
    battle_steps.count_obstinacy(g, rec, 2)
    assert rec.obstinacy_count == 4 and battle_steps.may_retreat_voluntarily(g, rec, EN) is None
    assert battle_steps.may_retreat_voluntarily(g, rec, CP) is None  # binds the attacker only
    g2 = bgame(
        [fr(f"f{k}", "0404") for k in range(4)] + [de(f"d{k}", "0404") for k in range(4)],
        base=base_pieces(fr_obst=3),
        first="1915-03",
    )
    rec2 = open_battle(g2, "0404", EN)
    for r in (1, 2, 3):
        rec2.round = r
        battle_steps.count_obstinacy(g2, rec2, 2)
    assert rec2.obstinacy_count == 3  # Fire Doctrine: each round counts 1


@pytest.mark.rules("LGG 16.6-C")
def test_lgg_16_6c_lgg54_obstinacy_shared_between_battles() -> None:
    g = bgame(
        [fr("fa", "0404"), fr("fb", "0304"), de("da", "0404"), de("db", "0304")],
        base=base_pieces(fr_obst=4),
    )
    M.st(g)["activation"] = {"serial": 5, "side": EN, "armies": ["FR-1"]}
    M.st(g)["army_battles"] = {"5": {"pending": ["0304"]}}
    rec = battle.rec_of(g, battle.battle_params(g, hex="0404", attacker=EN)["battle"])
    battle_steps.setup_participants(g, rec)
    assert battle_steps.other_battles_of_general(g, rec) == 1
    from tests.lgg1418.battle_helpers import decide

    child = battle_steps._setup_decision(g, rec)  # first the defender's dispositions (always asked)
    assert child == ("battle-decision", {"battle": rec.id, "kind": "defender-setup", "side": CP})
    decide(g, child, "proceed")
    child = battle_steps._setup_decision(g, rec)
    assert child == ("battle-decision", {"battle": rec.id, "kind": "attacker-setup", "side": EN})
    step = g.steps["battle-decision"]
    from grognard.core.state import Frame

    f = Frame("battle-decision", dict(child[1]))
    assert [a["rounds"] for a in step.legal_actions(g, f, EN)] == [1, 2, 3, 4]
    step.apply(g, f, {"type": "allocate", "side": EN, "battle": rec.id, "rounds": 2})
    assert [a["type"] for a in step.legal_actions(g, f, EN)] == ["proceed"]
    battle_steps.finish_setup(g, rec)
    assert rec.min_rounds == 2
    rec2 = battle.rec_of(g, battle.battle_params(g, hex="0304", attacker=EN)["battle"])
    battle_steps.setup_participants(g, rec2)
    assert battle_steps.obstinacy_remaining(g, rec2) == 2  # 4 shared as 2 + 2


@pytest.mark.rules("LGG 16.6-C", "LGG [11.4-X]")
def test_lgg_11_4x_obliged_army_counts_only_rounds_it_committed() -> None:
    g = bgame(
        [fr("fa", "0404"), de("da", "0404")],
        first="1914-08",
        base=base_pieces(fr_obst=2),
        rules={"war_plans": {"FR": {"plan": "plan-xvii", "must_attack": ["FR-1"]}}},
    )
    rec = open_battle(g, "0404", EN)
    rec.round = 1
    battle_steps.count_obstinacy(g, rec, 1)
    assert rec.obstinacy_count == 0  # the army committed no unit this round
    rec.ensure("committed")["FR-1"] = [2]
    rec.round = 2
    battle_steps.count_obstinacy(g, rec, 1)
    assert rec.obstinacy_count == 1


@pytest.mark.rules("LGG 16.7-A")
def test_lgg_16_7a_lgg55_lgg56_end_of_round() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404")], first="1915-03")
    rec = open_battle(g, "0404", EN)
    assert rec.round_cap == 10
    rec.round = 10
    rec.offers = []
    step = g.steps["battle"]
    assert isinstance(step, battle_steps.BattleStep)
    assert (
        step.offers(g, Frame("battle", {"battle": rec.id})) is None and rec.winner == CP
    )  # round 10: the attacker must retreat
    assert battle_steps._tie_winner(rec, "barred", "gone") == EN
    assert battle_steps._tie_winner(rec, "barred", "barred") == CP
    assert battle_steps._tie_winner(rec, "gone", "gone") == CP
    # who is asked first: Movement the defender, Fire the attacker
    for first, want in (("1914-09", CP), ("1915-03", EN)):
        g2 = bgame([fr("fa", "0404"), de("da", "0404")], first=first, base=base_pieces(fr_obst=1))
        rec2 = open_battle(g2, "0404", EN)
        rec2.obstinacy_count = 5
        rec2.offers = []
        step2 = g2.steps["battle"]
        assert isinstance(step2, battle_steps.BattleStep)
        step2.offers(g2, Frame("battle", {"battle": rec2.id}))
        pushed = g2.state.frames[-1]  # the retreat offer, pushed for the side asked first
        assert pushed.step == "battle-decision" and pushed.params["side"] == want


@pytest.mark.rules("LGG 16.7-A", "LGG [11.4-X]")
def test_lgg_16_7a_a50_august_attack_plans_and_voluntary_retreat() -> None:
    g = bgame(
        [fr("fa", "0404"), de("da", "0404")],
        first="1914-08",
        base=base_pieces(fr_obst=1),
        rules={"war_plans": {"FR": {"plan": "plan-xvii", "must_attack": []}}},
    )
    rec = open_battle(g, "0404", EN)
    rec.obstinacy_count = 3
    assert battle_steps.may_retreat_voluntarily(g, rec, EN) is None
    M.st(g)["won_attacks"] = ["FR"]
    assert "August 1914" in str(battle_steps.may_retreat_voluntarily(g, rec, EN))
    g2 = bgame(
        [fr("fa", "0404"), de("da", "0404")],
        first="1914-08",
        base=base_pieces(fr_obst=1),
        rules={"war_plans": {"FR": {"plan": "plan-xvii", "must_attack": []}}},
        options={"august-1914-retreat": "until-won"},
    )
    rec2 = open_battle(g2, "0404", EN)
    rec2.obstinacy_count = 3
    assert battle_steps.may_retreat_voluntarily(g2, rec2, EN) is not None


@pytest.mark.rules("LGG 16.1-C", "LGG 16.3-D")
def test_lgg_16_1c_sub_battle_victory_consequences() -> None:
    g = bgame(
        [fr(f"f{k}", "0404") for k in range(4)]
        + [de(f"d{k}", "0404") for k in range(6)]
        + [fr_art("fart", "0404")]
    )
    rec = open_battle(g, "0404", EN)
    assert rec.great
    battle_steps.apply_split(g, rec, EN, {"A": ["f0", "f1", "fart"], "B": ["f2", "f3"]})
    battle_steps.apply_split(g, rec, CP, {"A": ["d0", "d1", "d2"], "B": ["d3", "d4", "d5"]})
    rec.units["d5"]["role"] = "front"
    battle_steps.decide_sub(g, rec, "A", EN, "test")
    assert rec.subs["B"]["flank_for"] == EN
    assert {u for u, x in rec.units.items() if x.get("sub") == "B" and x["side"] == EN} == {
        "f0",
        "f1",
        "f2",
        "f3",
        "fart",
    }
    assert all(rec.units[u]["role"] == "defeated" for u in ("d0", "d1", "d2"))
    # the loser keeps at most 3 corps in the other sub-battle
    assert len(battle.units_of(rec, CP, sub="B")) == 3
    battle_steps.decide_sub(g, rec, "B", CP, "test")
    assert battle_steps.battle_decided(rec) == CP  # the winner of the second sub-battle wins
    g2 = bgame(
        [fr(f"f{k}", "0404") for k in range(4)]
        + [de(f"d{k}", "0404") for k in range(2)]
        + [fr_art("fart", "0404")],
        first="1915-03",
    )
    rec2 = open_battle(g2, "0404", EN)
    battle_steps.apply_split(g2, rec2, EN, {"A": ["f0", "f1", "fart"], "B": ["f2", "f3"]})
    battle_steps.apply_split(g2, rec2, CP, {"A": ["d0"], "B": ["d1"]})
    battle_steps.decide_sub(g2, rec2, "A", EN, "test")
    assert (
        rec2.units["fart"]["sub"] == "B" and rec2.units["f0"]["sub"] == "A"
    )  # Fire: only guns and tanks move


@pytest.mark.rules("LGG 16.1-C", "LGG 16.7-A")
def test_lgg_16_1c_last_unit_repulsed_without_reinforcement_loses() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404")])
    rec = open_battle(g, "0404", EN)
    rec.units["da"]["barred"] = rec.round + 1
    assert battle_steps._fail(g, rec, CP, "A") == "barred"
    rec.ensure("arrived")[str(rec.round)] = [{"side": CP, "sub": "A"}]
    assert battle_steps._fail(g, rec, CP, "A") is None


def test_hooks_army_battles_is_the_battle_step() -> None:
    g = bgame([])
    assert hooks.installed(g, hooks.BATTLES) and type(g.steps[hooks.BATTLES]).__module__.endswith(
        "battle_activation"
    )
