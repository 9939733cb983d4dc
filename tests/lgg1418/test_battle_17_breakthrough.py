"""LGG 17: breakthroughs (17.1 restrictions, 17.2 Movement Doctrine, 17.3 Fire Doctrine)."""

from __future__ import annotations

import pytest

from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import breakthrough
from tests.lgg1418.battle_helpers import (
    base_pieces,
    bgame,
    de,
    drive,
    fr,
    last_battle,
    open_battle,
    set_from,
)
from tests.lgg1418.helpers import CP, EN, act, corps, fortress, to_activation


def _won(g, rec, level="movement", corps_left=None):
    rec.winner, rec.loser, rec.ended = rec.attacker, rec.defender, True
    rec.breakthrough_level = level
    rec.breakthrough_corps = corps_left
    return rec


@pytest.mark.rules("LGG 17.3-A")
def test_lgg_17_3a_lgg61_breakthrough_reduction() -> None:
    g = bgame([])
    assert breakthrough.breakthrough_reduction(g, 4, 6, "normal", "good-order") == (
        3,
        5,
    )  # 3 - 3 = 0: none
    assert breakthrough.breakthrough_reduction(g, 4, 6, "normal", "panic") == (
        2,
        3,
    )  # 3 - 2 = 1 corps
    assert breakthrough.breakthrough_reduction(g, 2, 3, "blitz", "good-order") == (
        1,
        1,
    )  # 0 clamped to 1: 2 corps
    assert breakthrough.breakthrough_reduction(g, 5, 3, None, "good-order") == (
        0,
        5,
    )  # no bombardment
    g2 = bgame([], options={"breakthrough-clamp": False})
    assert breakthrough.breakthrough_reduction(g2, 2, 3, "blitz", "good-order") == (0, 0)


@pytest.mark.rules("LGG 17.3", "LGG 17.3-A", "LGG 17.3-B", "LGG 17.3-C")
def test_lgg_17_3a_lgg61_general_value_orders_and_levels() -> None:
    base = base_pieces()
    next(b for b in base if b["id"] == "fgen")["faces"]["front"]["breakthrough"] = 3
    g = bgame([fr("fa", "0404"), de("da", "0404")], first="1915-03", base=base)
    rec = open_battle(g, "0404", EN)
    rec.defender_state = "good-order"
    assert breakthrough.fire_breakthrough(g, rec) == ("limited", 3)  # no bombardment: unchanged
    rec.spec["orders"] = {"defender": "L"}
    assert breakthrough.fire_breakthrough(g, rec) == ("limited", 2)  # order L: one less
    rec.defender_state = "disorder"
    assert breakthrough.fire_breakthrough(g, rec)[0] == "major"
    rec.defender_state = "panic"
    assert breakthrough.fire_breakthrough(g, rec)[0] == "major"


@pytest.mark.rules("LGG 17.3-B")
def test_lgg_17_3b_lgg62_french_level_three_trenches_block() -> None:
    base = base_pieces()
    next(b for b in base if b["id"] == "fgen")["faces"]["front"]["breakthrough"] = 2
    g = bgame([fr("fa", "0404"), de("da", "0404"), de("db", "0404")], first="1915-03", base=base)
    rec = open_battle(g, "0404", EN, trench=3)
    rec.defender_state = "good-order"
    assert breakthrough.fire_breakthrough(g, rec) == (None, 0)  # 2 fit corps in good order: blocked
    rec.spec["orders"] = {"attacker": "E"}
    assert breakthrough.fire_breakthrough(g, rec)[0] == "limited"  # against order E it takes 3
    rec.spec["orders"] = {}
    rec.units["db"]["state"] = "disorganized"
    assert breakthrough.fire_breakthrough(g, rec)[0] == "limited"  # only 1 fit corps


@pytest.mark.rules("LGG 17", "LGG 17.1")
def test_lgg_17_1_lgg65_restrictions() -> None:
    g = bgame([fr("fa", "0404"), de("da", "0404"), fortress("fo", "DE", "0404")])
    rec = open_battle(g, "0404", EN)
    _won(g, rec, None)
    breakthrough.decide_level(g, rec)
    assert rec.breakthrough_level is None  # an enemy fortress in the hex
    g2 = bgame([fr("fa", "0404"), de("da", "0404")])
    g2.state.set_marker("fortress_fallen", "0404", {"turn": M.turn_index(g2)})
    rec2 = open_battle(g2, "0404", EN)
    breakthrough.decide_level(g2, rec2)
    assert rec2.breakthrough_level is None  # even when taken
    rec3 = open_battle(g2, "0404", EN, kind="breakthrough")
    g2.state.set_marker("fortress_fallen", "0404", None)
    breakthrough.decide_level(g2, rec3)
    assert rec3.breakthrough_level is None  # a battle of a breakthrough makes no other
    rec4 = open_battle(g2, "0404", EN)
    breakthrough.decide_level(g2, rec4)
    assert rec4.breakthrough_level == "movement"


@pytest.mark.rules("LGG 17.1", "LGG 39-D")
def test_lgg_17_1_units_of_the_hq_reserve_within_intervention_distance() -> None:
    res = [corps("r1", "FR", {"inside": "fh"}, army="FR-1", status=["reserve"])]
    g = bgame(res, base=base_pieces(fr_hq="0405"))
    assert [p.id for p in breakthrough.eligible_units(g, EN, ["FR-1"], g.board.idx("0404"), 1)] == [
        "r1"
    ]
    g2 = bgame(res, base=base_pieces(fr_hq="0707"))
    assert (
        breakthrough.eligible_units(g2, EN, ["FR-1"], g2.board.idx("0404"), 1) == []
    )  # beyond "central" (2)
    M.set_attr(
        g, g.state.pieces["r1"], "no_breakthrough", 1
    )  # put back into reserve after this activation's battle
    assert breakthrough.eligible_units(g, EN, ["FR-1"], g.board.idx("0404"), 1) == []


@pytest.mark.rules("LGG 17.2", "LGG 17.2-A")
def test_lgg_17_2a_flank_and_deep_targets() -> None:
    g = bgame([fr("fa", "0404"), de("dflank", "0305"), de("dz", "0303")])
    rec = {
        "attacker": EN,
        "hex": "0404",
        "attacker_from": ["0405"],
        "breakthrough_level": "movement",
    }
    units = [g.state.pieces["fa"]]
    ts = breakthrough.targets(g, rec, units)
    kinds = {(t["kind"], t["to"]) for t in ts}
    # 0305 touches the start hex 0405 and the conquered hex: a flank attack; 0304, 0403, 0504 lie
    # beyond
    assert ("flank", "0305") in kinds
    assert {t["to"] for t in ts if t["kind"] == "deep"} == {"0304", "0403", "0504"}
    assert not any(t["to"] == "0405" for t in ts)


@pytest.mark.rules("LGG 17.2-A", "LGG 17.3-C")
def test_lgg_17_2a_lgg64_cavalry_deep_two_hexes() -> None:
    cav = corps("cav", "DE", "0404", arm="cavalry", army="DE-1")
    rows = ["pppppppp"] * 8
    g = bgame([cav])
    first = g.board.idx("0405")
    assert breakthrough._cavalry_two_hexes(g, [g.state.pieces["cav"]], first)  # fair, plains
    rows[4] = "ppppfppp"
    g2 = bgame([cav], terrain=rows)
    assert not breakthrough._cavalry_two_hexes(
        g2, [g2.state.pieces["cav"]], g2.board.idx("0505")
    )  # forest
    from grognard.rulesets.lgg1418.map import weather

    g3 = bgame(
        [cav, corps("rcav", "RU", "0404", arm="cavalry")],
        rules={"weather": {"1914-09": {"temperate": "snow"}}},
    )
    weather.determine_weather(g3)
    assert not breakthrough._cavalry_two_hexes(
        g3, [g3.state.pieces["cav"]], first
    )  # snow: not the Germans
    assert breakthrough._cavalry_two_hexes(
        g3, [g3.state.pieces["rcav"]], first
    )  # the Russians still
    rec = {
        "attacker": CP,
        "hex": "0404",
        "attacker_from": ["0303"],
        "breakthrough_level": "movement",
    }
    two = [t for t in breakthrough.targets(g, rec, [g.state.pieces["cav"]]) if t["via"]]
    assert two and all(len(t["via"]) == 1 for t in two)
    rec["breakthrough_level"] = "limited"
    assert not [
        t for t in breakthrough.targets(g, rec, [g.state.pieces["cav"]]) if t["via"]
    ]  # 17.3-B: one hex


@pytest.mark.rules("LGG 17.3-C")
def test_lgg_17_3c_lgg64_rigid_zocs_on_both_sides_stop_the_cavalry() -> None:
    from tests.lgg1418.helpers import ring

    first = "0506"
    nb = ring(first)  # opposite directions d and d+3
    g = bgame(
        [corps("cav", "DE", "0404", arm="cavalry", army="DE-1"), fr("e1", nb[0]), fr("e2", nb[3])],
        first="1915-03",
    )
    assert breakthrough.rigid_pincer(g, CP, g.board.idx(first))
    g2 = bgame(
        [corps("cav", "DE", "0404", arm="cavalry", army="DE-1"), fr("e1", nb[0]), fr("e2", nb[1])],
        first="1915-03",
    )
    assert not breakthrough.rigid_pincer(g2, CP, g2.board.idx(first))


@pytest.mark.rules("LGG 17.3-E")
def test_lgg_17_3e_lgg63_provisional_trenches_by_sector() -> None:
    assert breakthrough.PROVISIONAL_TRENCH == {"French": 2, "Italian": 2, "Russian": 1}
    for sector, want in (("French", 2), ("Russian", 1), ("Balkan", 0)):
        res = [corps("r1", "FR", {"inside": "fh"}, army="FR-1", status=["reserve"])]
        g = bgame(
            [fr("fa", "0404"), *res],
            first="1915-03",
            base=base_pieces(fr_hq="0405"),
            rules={"default_sector": sector},
        )
        set_from(g, "fa", "0405")
        rec = open_battle(g, "0404", EN)
        _won(g, rec, "limited", 1)
        step = g.steps["breakthrough"]
        f = Frame("breakthrough", {"side": EN, "battles": [rec.id], "activation": None})
        opts = [
            a
            for a in step.legal_actions(g, f, EN)
            if a["type"] == "breakthrough" and a["kind"] == "deep"
        ]
        assert opts
        step.apply(g, f, opts[0])
        dst = g.board.idx(opts[0]["to"])
        assert breakthrough.provisional_trench(g, dst, EN) == want
        assert M.hex_of(g, g.state.pieces["r1"]) == dst and not M.in_reserve(g.state.pieces["r1"])


@pytest.mark.rules("LGG 17", "LGG 17.2", "LGG 17.2-A", "LGG 17.2-B")
def test_lgg_17_2_breakthrough_through_the_sequence(monkeypatch) -> None:
    offered = []
    real = hooks.offer

    def spy(g, name, params):
        offered.append((name, dict(params)))
        return real(g, name, params)

    monkeypatch.setattr(hooks, "offer", spy)
    res = [corps("r1", "FR", {"inside": "fh"}, army="FR-1", status=["reserve"])]
    g = bgame(
        [fr("fa", "0405"), fr("fb", "0405"), de("da", "0404"), de("dz", "0303"), *res],
        base=base_pieces(fr_hq="0406"),
        seed=2,
    )
    to_activation(g, EN, "FR-1")
    act(g, EN, type="move", units=["fa", "fb"], to="0404", mode="normal")
    act(g, EN, type="end-movement")
    seen = []

    def pol(g, side, legal):
        bt = [
            a
            for a in legal
            if a["type"] == "breakthrough" and a["kind"] == "deep" and a["to"] == "0304"
        ]
        if bt:
            seen.append(bt[0])
            return bt[0]
        return None

    drive(g, pol, until=lambda g: M.st(g).get("activation") is None)
    assert seen, "the breakthrough was offered"
    assert M.hex_of(g, g.state.pieces["r1"]) == g.board.idx("0304")
    assert any(
        n == hooks.INTERCEPTION and p.get("breakthrough") for n, p in offered
    )  # 17.2-B: next to dz


@pytest.mark.rules("LGG 17.2-C", "LGG 17.3-D")
def test_lgg_17_2c_enemy_flight() -> None:
    g = bgame([fr("r1", "0303"), de("beaten", "0303")])
    g.state.set_marker("retreated", "0303", {"turn": M.turn_index(g), "side": CP, "battle": "B1"})
    from grognard.rulesets.lgg1418.battle import base as battle

    battle.battles(g)["B1"] = {
        "id": "B1",
        "hex": "0404",
        "hex_i": g.board.idx("0404"),
        "attacker": EN,
        "defender": CP,
        "units": {},
        "spec": {},
        "kind": "open",
        "attacker_from": [],
        "winner": EN,
        "loser": CP,
    }
    f = Frame("breakthrough-battle", {"side": EN, "hex": "0303", "units": ["r1"], "kind": "deep"})
    assert breakthrough._just_retreated(g, CP, g.board.idx("0303"))
    assert not breakthrough._flight_exception(g, CP, g.board.idx("0303"), f)
    places = [
        {"hex": "0303", "kind": "city", "name": "Metz", "attrs": {"nation": "DE"}},
        *__import__("tests.lgg1418.battle_helpers", fromlist=["CAPITALS"]).CAPITALS,
    ]
    g2 = bgame([fr("r1", "0303"), de("beaten", "0303")], places=places)
    assert breakthrough._flight_exception(g2, CP, g2.board.idx("0303"), f)  # a city: it may stand


@pytest.mark.rules("LGG 17.2-D", "LGG 17.3-F")
def test_lgg_17_2d_17_3f_breakthrough_from_an_empty_hex() -> None:
    g = bgame([fr("fa", "0405"), de("far", "0101")])
    to_activation(g, EN, "FR-1")
    act(g, EN, type="move", units=["fa"], to="0404", mode="normal")
    act_ = M.st(g)["activation"]
    assert breakthrough.empty_hex_origins(g, act_, set()) == ["0404"]
    M.set_attr(g, g.state.pieces["fa"], "mv_mode", "admin")
    assert breakthrough.empty_hex_origins(g, act_, set()) == []  # not after an administrative move
    M.set_attr(g, g.state.pieces["fa"], "mv_mode", "normal")
    assert (
        breakthrough.empty_hex_origins(g, act_, {"0404"}) == []
    )  # a hex that saw a battle is not "empty"


@pytest.mark.rules("LGG 17.3-F")
def test_lgg_17_3f_defender_sends_a_unit_on_an_even_roll(monkeypatch) -> None:
    from tests.lgg1418.battle_helpers import force_dice

    dice = force_dice(monkeypatch)
    g = bgame([fr("fa", "0404"), de("da", "0304")], first="1915-03")
    step = g.steps["empty-hex-defence"]
    f = Frame("empty-hex-defence", {"side": CP, "hex": "0404", "attacker": EN})
    acts = step.legal_actions(g, f, CP)
    assert {"type": "send", "side": CP, "unit": "da"} in acts and {
        "type": "decline",
        "side": CP,
    } in acts
    dice.push(3)
    step.apply(g, f, {"type": "send", "side": CP, "unit": "da"})
    assert M.hex_of(g, g.state.pieces["da"]) == g.board.idx("0304")  # odd: too late
    dice.push(4)
    g.state.frames.append(Frame("dummy", {}))
    step.apply(g, f, {"type": "send", "side": CP, "unit": "da"})
    assert (
        M.hex_of(g, g.state.pieces["da"]) == g.board.idx("0404")
        and g.state.frames[-1].step == "battle"
    )
    assert last_battle(g).hex == "0404"
