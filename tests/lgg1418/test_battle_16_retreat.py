"""LGG 16.7 (retreat: cases, extent, direction, placement, artillery, overflow) and 16-C (retreat
before combat)."""

from __future__ import annotations

import pytest

from grognard.core.state import Frame, Loc
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import battle_retreat, battle_steps
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
    set_from,
)
from tests.lgg1418.helpers import CP, EN, act, corps, to_activation


def _lost(g, rec, loser):
    rec.winner, rec.loser = M.other_side(loser), loser
    rec.ended_by = "test"
    battle_retreat.create(g, rec)
    return battle_retreat.pending(g, [rec.id])


@pytest.mark.rules("LGG 16.7-B")
def test_lgg_16_7b_lgg57_extent() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404")], first="1915-03")
    rec = open_battle(g, "0404", EN)
    rec.winner, rec.loser, rec.ended_by = EN, CP, "test"
    for level, n in ((None, 1), ("limited", 2), ("major", 3)):
        rec.breakthrough_level = level
        assert battle_retreat.extent(g, rec, CP) == (n, 3)
    g2 = bgame([fr("fa", "0404"), de("da", "0404")])
    rec2 = open_battle(g2, "0404", EN)
    rec2.ended_by = "test"
    assert battle_retreat.extent(g2, rec2, CP) == (1, 3)
    rec2.bold = True
    assert battle_retreat.extent(g2, rec2, CP) == (2, 3)
    rec3 = open_battle(g2, "0404", EN, kind="counter-offensive")
    rec3.ended_by = "test"
    rec3.bold = True
    assert battle_retreat.extent(g2, rec3, CP) == (1, 1)  # 18-B: one hex, bold ignored


@pytest.mark.rules("LGG 16.7-B", "LGG 16.7-C")
def test_lgg_16_7c_defender_paths_toward_supply_never_back_into_the_attack() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404"), fr("fz", "0304")])
    set_from(g, "fa", "0405")
    rec = open_battle(g, "0404", EN)
    (entry,) = _lost(g, rec, CP)
    paths, away = battle_retreat.legal_paths(g, entry, [g.state.pieces["da"]])
    assert paths and not away
    ends = {g.board.label(p[-1]) for p in paths}
    assert all(len(p) - 1 <= 3 for p in paths)  # never more than 3 hexes (16.7-B)
    assert "0405" not in {
        g.board.label(h) for p in paths for h in p
    }  # the hex the attack came from
    assert "0304" not in {g.board.label(h) for p in paths for h in p}  # an enemy stack
    start = g.board.idx("0404")
    targets = battle_retreat._comparable_targets(g, CP, start, entry["max"])
    assert targets  # the nearest source or relay, and those within 2 hexes of its distance
    one = [p for p in paths if len(p) == 2]
    # every one-hex retreat is one of the best toward one of those sources or relays
    assert one and all(
        any(dt.get(p[-1], 99) == min(dt.get(q[-1], 99) for q in one) for _t, dt in targets)
        for p in one
    )
    assert "0403" in ends and "0505" not in ends  # toward Berlin, not toward Paris


@pytest.mark.rules("LGG 16.7-A", "LGG 16-A")
def test_lgg_16a_defeated_attacker_goes_back_to_its_starting_hex() -> None:
    g = bgame([fr("fa", "0404"), fr("fb", "0404"), de("da", "0404")])
    set_from(g, "fa", "0405")
    set_from(g, "fb", "0504")
    rec = open_battle(g, "0404", EN)
    entries = _lost(g, rec, EN)
    assert {e["first"] for e in entries} == {"0405", "0504"}
    for e in entries:
        paths, _ = battle_retreat.legal_paths(g, e, [g.state.pieces[u] for u in e["units"]])
        assert paths and all(g.board.label(p[1]) == e["first"] for p in paths)


@pytest.mark.rules("LGG 16-A")
def test_lgg_16a_stale_origin_in_the_battle_hex_joins_another_group() -> None:
    # a piece whose last recorded move left the battle hex itself (a decoy taken off the map and
    # placed there again, 4-B) has no origin of its own: it goes back with the others
    g = bgame([fr("fa", "0404"), fr("fb", "0404"), fr("fc", "0404"), de("da", "0404")])
    set_from(g, "fa", "0405")
    set_from(g, "fb", "0405")
    set_from(g, "fc", "0404")
    rec = open_battle(g, "0404", EN)
    assert rec.units["fc"]["from"] is None
    (entry,) = _lost(g, rec, EN)
    assert entry["first"] == "0405" and set(entry["units"]) == {"fa", "fb", "fc"}


@pytest.mark.rules("LGG 16.7-C")
def test_lgg_16_7c_lgg58_isolated_retreat_away_from_supply(monkeypatch) -> None:
    dice = force_dice(monkeypatch)
    ring = [de(f"r{k}", h) for k, h in enumerate(("0201", "0102", "0302", "0203", "0303", "0104"))]
    g = bgame(
        [fr("fa", "0202"), fr("fb", "0202"), de("da", "0202"), *ring],
        base=base_pieces(fr_hq="0808", de_hq="0401"),
    )
    rec = open_battle(g, "0202", CP)
    (entry,) = _lost(g, rec, EN)
    units = [g.state.pieces[u] for u in entry["units"]]
    paths, away = battle_retreat.legal_paths(g, entry, units)
    assert [g.board.label(h) for p in paths for h in p] == ["0202", "0103"] and away  # a dead end
    dice.push(
        11, 5
    )  # -3, and -2 out of supply: 11 - 5 = 6 repulsed (retreats); 5 - 5 = 0 eliminated
    battle_retreat.execute(g, entry, entry["units"], list(paths[0]), away)
    assert M.hex_of(g, g.state.pieces["fa"]) == paths[0][-1]
    assert g.state.pieces["fb"].loc == Loc.box(M.ELIMINATED)
    rolls = [ev for ev in g.state.log if ev["type"] == "roll"][-2:]
    assert all(
        any(m["rule"] == "LGG 16.7-C" and m["value"] == -3 for m in r["data"]["modifiers"])
        for r in rolls
    )


@pytest.mark.rules("LGG 16.7-C")
def test_lgg_16_7c_lgg58_unit_unable_to_retreat_is_eliminated() -> None:
    ring = [de(f"r{k}", h) for k, h in enumerate(("0201", "0102", "0302", "0203", "0303", "0103"))]
    g = bgame(
        [fr("fa", "0202"), de("da", "0202"), *ring], base=base_pieces(fr_hq="0808", de_hq="0401")
    )
    rec = open_battle(g, "0202", CP)
    (entry,) = _lost(g, rec, EN)
    step = g.steps["retreat-group"]
    f = Frame("retreat-group", {"retreat": entry["id"]})
    assert list(step.actors(g, f)) == []  # no legal path: the step runs by itself
    step.run(g, f)
    assert g.state.pieces["fa"].loc == Loc.box(M.ELIMINATED) and entry["done"]


@pytest.mark.rules("LGG 16.7-B", "LGG 16.7")
def test_lgg_16_7b_retreats_wait_for_all_battles_and_nearby_stacks_may_follow() -> None:
    g = bgame([fr("fa", "0405"), fr("fb", "0405"), de("da", "0404"), de("near", "0403")], seed=2)
    to_activation(g, EN, "FR-1")
    act(g, EN, type="move", units=["fa", "fb"], to="0404", mode="normal")
    act(g, EN, type="end-movement")

    def pol(g, side, legal):
        for a in legal:
            if a["type"] == "retreat-stack":
                return a
        return None

    drive(g, pol, until=lambda g: M.st(g).get("activation") is None)
    rec = last_battle(g)
    assert rec.loser == CP  # (seed 2)
    assert not M.units_at_hex(g, g.board.idx("0404"), CP)
    assert M.hex_of(g, g.state.pieces["near"]) != g.board.idx(
        "0403"
    )  # it retreated at the same time
    assert g.state.control[g.board.idx("0404")] == EN


@pytest.mark.rules("LGG 16.7-D", "LGG 16.7-E")
def test_lgg_16_7d_16_7e_placement_after_the_battle() -> None:
    g = bgame(
        [
            fr("fa", "0404"),
            fr("fb", "0404"),
            fr_art("gun", "0404"),
            fr("fc", "0505"),
            de("da", "0303"),
        ],
        base=base_pieces(fr_hq="0504"),
    )
    set_from(g, "fa", "0405")
    set_from(g, "fb", "0405")
    rec = open_battle(g, "0404", EN)
    rec.winner, rec.loser = EN, CP
    opts = battle_retreat.placement_options(g, rec, EN)
    got = {(o["unit"], o["to"]) for o in opts}
    assert ("fa", "start") in got and ("fa", "reserve") in got and ("fa", "0505") in got
    assert not any(o["unit"] == "gun" for o in opts)  # used artillery stays with its stack (16.7-E)
    step = g.steps["battle-placement"]
    f = Frame("battle-placement", {"battle": rec.id, "side": EN})
    step.apply(g, f, {"type": "place", "side": EN, "battle": rec.id, "unit": "fa", "to": "reserve"})
    p = g.state.pieces["fa"]
    assert M.in_reserve(p) and p.loc == Loc.inside("fh")


@pytest.mark.rules("LGG 16.7-F")
def test_lgg_16_7f_lgg59_overflow_conditions() -> None:
    g = bgame([fr(f"f{k}", "0404") for k in range(3)] + [de("da", "0404")])
    rec = open_battle(g, "0404", EN)
    rec.winner, rec.loser, rec.round = EN, CP, 1
    for u in ("da",):
        M.move_piece(g, g.state.pieces[u], Loc.hex(g.board.idx("0302")))
    assert battle_retreat.overflow_allowed(g, rec) is None  # 1 round, 1 defender, 3 attacking corps
    rec.round = 2
    assert battle_retreat.overflow_allowed(g, rec) is not None  # no superiority: one round only
    rec.had_superiority = True
    assert battle_retreat.overflow_allowed(g, rec) is None  # with superiority: two rounds
    M.move_piece(g, g.state.pieces["f2"], Loc.hex(g.board.idx("0505")))
    assert "3 front-line corps" in str(battle_retreat.overflow_allowed(g, rec))
    M.st(g)["activation"] = {"serial": 1, "side": EN, "armies": ["FR-1"], "pre_turn": True}
    M.move_piece(g, g.state.pieces["f2"], Loc.hex(g.board.idx("0404")))
    assert "pre-turn" in str(battle_retreat.overflow_allowed(g, rec))
    M.st(g)["activation"] = None
    from tests.lgg1418.helpers import fortress

    g3 = bgame(
        [fr(f"f{k}", "0404") for k in range(3)] + [de("da", "0404"), fortress("fo", "DE", "0404")]
    )
    rec3 = open_battle(g3, "0404", EN)
    rec3.winner, rec3.loser, rec3.round = EN, CP, 1
    assert "fortress" in str(battle_retreat.overflow_allowed(g3, rec3))


@pytest.mark.rules("LGG 16-C")
def test_lgg_16c_cavalry_retreat_before_combat() -> None:
    cav = de("dc", "0404", arm="cavalry")
    g = bgame([fr("fa", "0404"), cav])
    rec = open_battle(g, "0404", EN)
    assert battle_steps.retreat_before_combat_allowed(g, rec)
    g2 = bgame([fr("fa", "0404"), corps("fcav", "FR", "0404", army="FR-1", arm="cavalry"), cav])
    assert not battle_steps.retreat_before_combat_allowed(
        g2, open_battle(g2, "0404", EN)
    )  # the attacker has cavalry
    from tests.lgg1418.battle_helpers import de_art

    g3 = bgame([fr("fa", "0404"), cav, de_art("gun", "0404")])
    assert not battle_steps.retreat_before_combat_allowed(
        g3, open_battle(g3, "0404", EN)
    )  # artillery with it
    g4 = bgame([fr("fa", "0404"), cav], first="1915-03")
    assert not battle_steps.retreat_before_combat_allowed(
        g4, open_battle(g4, "0404", EN)
    )  # Movement Doctrine only
    # through the sequence: the cavalry withdraws, the attacker is stopped and may not break through
    g5 = bgame([fr("fa", "0405"), cav])
    to_activation(g5, EN, "FR-1")
    act(g5, EN, type="move", units=["fa"], to="0404", mode="normal")
    act(g5, EN, type="end-movement")

    def pol(g, side, legal):
        return next((a for a in legal if a["type"] == "retreat-before-combat"), None)

    drive(g5, pol, until=lambda g: M.st(g).get("activation") is None)
    rec5 = last_battle(g5)
    assert rec5.winner == EN and rec5.round == 0 and rec5.breakthrough_level is None
    assert M.hex_of(g5, g5.state.pieces["dc"]) != g5.board.idx("0404")
