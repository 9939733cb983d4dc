"""LGG 18: the counter-offensive of a victorious defender (Movement Doctrine only)."""

from __future__ import annotations

import pytest

from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import battle_calc, battle_retreat, counteroffensive
from tests.lgg1418.battle_helpers import bgame, de, drive, engage, fr, open_battle, set_from
from tests.lgg1418.helpers import CP, EN, act, to_activation

WEAK = {"full": (2, 0, 3, 4), "reduced": (1, 0, 2, 4)}


def _weak(pid: str, at: str):
    return fr(pid, at, **WEAK)


@pytest.mark.rules("LGG 18", "LGG 18-A", "LGG 18-B")
def test_lgg_18a_18b_counter_offensive_through_the_sequence() -> None:
    g = bgame(
        [
            _weak("fa", "0405"),
            _weak("fb", "0405"),
            de("da", "0404", full=(8, 3, 9, 4)),
            de("db", "0404", full=(8, 3, 9, 4)),
        ],
        seed=1,
    )
    to_activation(g, EN, "FR-1")
    act(g, EN, type="move", units=["fa"], to="0404", mode="normal")
    act(g, EN, type="end-movement")
    asked = []

    def pol(g, side, legal):
        co = [a for a in legal if a["type"] == "counter-attack"]
        if co:
            asked.append((side, [a["to"] for a in co]))
            return co[0]
        return None

    drive(g, pol, until=lambda g: M.st(g).get("activation") is None)
    assert asked == [(CP, ["0405"])]  # the defender decides, into the hex the attack came from
    recs = list(battle.battles(g).values())
    first, co = recs[0], battle.BattleRecord(recs[1])
    assert first["winner"] == CP and first["counter_offensive"] == co.id
    assert co.kind == "counter-offensive" and co.hex == "0405" and co.attacker == CP
    assert co.table == "combat-movement"  # always the Movement table (18-A)
    assert co.breakthrough_level is None  # 18-B: no breakthrough for the former defender
    assert co.winner == CP
    # the former attacker retreated a single hex from 0405
    j = M.hex_of(g, g.state.pieces["fa"])
    assert j is not None and g.board.distance(j, g.board.idx("0405")) == 1


@pytest.mark.rules("LGG 18-A")
def test_lgg_18a_who_may_counter_attack() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404")])
    set_from(g, "fa", "0405")
    rec = open_battle(g, "0404", EN)
    rec.winner, rec.loser = CP, EN
    assert counteroffensive.allowed(g, rec)
    rec.units["da"]["barred"] = rec.round + 1  # repulsed in the last round: may not take part
    assert not counteroffensive.allowed(g, rec)
    rec.units["da"]["barred"] = -1
    g.state.pieces["da"].status.add("besieging")
    assert not counteroffensive.allowed(g, rec)  # not while besieging a fortress
    g.state.pieces["da"].status.discard("besieging")
    g2 = bgame([fr("fa", "0404"), de("da", "0404")], first="1915-03")
    set_from(g2, "fa", "0405")
    rec2 = open_battle(g2, "0404", EN)
    rec2.winner, rec2.loser = CP, EN
    assert not counteroffensive.allowed(g2, rec2)  # Movement Doctrine only (36.3)


@pytest.mark.rules("LGG 18-A")
def test_lgg_18a_former_attacker_keeps_only_some_modifiers() -> None:
    g = bgame(
        [fr("fa", "0404"), de("da", "0404")],
        hexsides=[{"feature": "river", "sides": ["0404/0304"]}],
        terrain=[
            "pppppppp",
            "pppppppp",
            "pppppppp",
            "pppfpppp",
            "pppppppp",
            "pppppppp",
            "pppppppp",
            "pppppppp",
        ],
    )  # 0404 forest
    set_from(g, "da", "0304")
    rec = open_battle(g, "0404", CP, kind="counter-offensive", trench=2)
    engage(rec, "A", "da", "fa")
    reasons = [m.reason for m in battle_calc.round_calc(g, rec, "A").defender.mods]
    assert not any("trench" in r for r in reasons)  # no trenches for the former attacker
    terr = [m for m in battle_calc.round_calc(g, rec, "A").defender.mods if m.rule == "LGG 16.3-B"]
    assert terr and terr[0].value == 2  # the river ("21") counts, the forest does not
    rec2 = open_battle(g, "0404", CP, trench=2)
    engage(rec2, "A", "da", "fa")
    terr2 = [
        m for m in battle_calc.round_calc(g, rec2, "A").defender.mods if m.rule == "LGG 16.3-B"
    ]
    assert terr2[0].value == 3  # an ordinary battle: forest and river (4, applied 3)


@pytest.mark.rules("LGG 18-A")
def test_lgg_18a_attacker_first_falls_back_to_its_starting_hexes() -> None:
    g = bgame([fr("fa", "0404"), fr("fb", "0404"), de("da", "0404")])
    set_from(g, "fa", "0405")
    set_from(g, "fb", "0504")
    rec = open_battle(g, "0404", EN)
    rec.winner, rec.loser, rec.ended_by = CP, EN, "test"
    battle_retreat.create(g, rec)
    counteroffensive.retreat_attacker_to_start(g, rec)
    assert M.hex_of(g, g.state.pieces["fa"]) == g.board.idx("0405")
    assert M.hex_of(g, g.state.pieces["fb"]) == g.board.idx("0504")
    assert sorted(counteroffensive.targets(g, rec)) == [
        "0405",
        "0504",
    ]  # the defender chooses the hex


def _fortress_counter_offensive(da_arm: str = "infantry"):
    """A weak French corps attacks from the hex of its own fortress (with its garrison) into two
    strong German corps, which win; the Germans are then asked about a counter-offensive (with
    these dice, one they win when they make it)."""
    from tests.lgg1418.helpers import corps, fortress

    g = bgame(
        [
            fortress("fort", "FR", "0405"),
            corps("gar", "FR", {"inside": "fort"}, garrison="fort"),
            _weak("fa", "0405"),
            de("da", "0404", full=(8, 3, 9, 4), arm=da_arm),
            de("db", "0404", full=(8, 3, 9, 4), arm=da_arm),
        ],
        seed=2,
    )
    to_activation(g, EN, "FR-1")
    act(g, EN, type="move", units=["fa"], to="0404", mode="normal")
    act(g, EN, type="end-movement")
    return g


@pytest.mark.rules("LGG 18-A", "LGG 23-D", "LGG 16-A")
def test_lgg_23_d_audit_counter_offensive_into_a_fortress_hex_begins_a_siege() -> None:
    """Found by self-play (lgg-west-1914, game 34 of seed 1): a counter-offensive won in the hex of
    an enemy fortress left the victors there, after the battle, with the fortress and no siege.
    The open-country battle is won, so the siege begins (23-D: the only case where opposing
    stacks share a hex after combat), whichever side was active; and while the battles' retreats
    and placements go on, the counter-offensive's hex is a battle hex (16-A)."""
    g = _fortress_counter_offensive()
    problems: list[str] = []

    def pol(g, side, legal):
        problems.extend(g.ruleset.invariants(g))
        co = [a for a in legal if a["type"] == "counter-attack"]
        if co:
            return co[0]
        if g.current()[1].step == "battle-placement" and side == CP:
            return next(
                a for a in legal if a["type"] == "done"
            )  # the victors stay in the fortress hex
        return None

    drive(g, pol, until=lambda g: M.st(g).get("activation") is None)
    co = battle.BattleRecord(
        next(r for r in battle.battles(g).values() if r["kind"] == "counter-offensive")
    )
    assert co.hex == "0405" and co.winner == CP
    stay = [p for p in M.units_at_hex(g, g.board.idx("0405"), CP)]
    assert stay and all("besieging" in p.status for p in stay)
    assert g.state.marker("siege", "0405")["side"] == CP
    assert "besieged" in g.state.pieces["fort"].status
    assert problems == [] and g.ruleset.invariants(g) == []


@pytest.mark.rules("LGG 18-A", "LGG 23-A")
def test_lgg_23_a_audit_cavalry_alone_does_not_counter_attack_into_a_fortress_hex() -> None:
    """Cavalry without infantry may not enter a hex with an enemy fortress (23-A): a
    counter-offensive
    of cavalry alone is not offered into the former attacker's fortress hex."""
    g = _fortress_counter_offensive(da_arm="cavalry")
    offered: list[list[str]] = []

    def pol(g, side, legal):
        if g.current()[1].step == "counter-offensive":
            offered.append([a["type"] for a in legal])
        return None

    drive(g, pol, until=lambda g: M.st(g).get("activation") is None)
    first = next(iter(battle.battles(g).values()))
    assert first["winner"] == CP
    assert offered and all(
        "counter-attack" not in types for types in offered
    )  # asked, but only to decline
    assert not any(r["kind"] == "counter-offensive" for r in battle.battles(g).values())
