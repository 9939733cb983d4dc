"""LGG 28: trench warfare - levels, combat advantage, the GHQ general artillery reserve, autonomous
units."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.military import trench

from .helpers import CP, EN, act, army, artillery, corps, game, ghq, hq, to_turn
from .quiet import quiet

ALL = [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 9)]
SECTORS = [
    {"name": "French", "kind": "sector", "hexes": [h for h in ALL if h[:2] in ("01", "02", "03")]},
    {"name": "Italian", "kind": "sector", "hexes": [h for h in ALL if h[:2] in ("04",)]},
    {"name": "Russian", "kind": "sector", "hexes": [h for h in ALL if h[:2] in ("05", "06")]},
    {"name": "Balkan", "kind": "sector", "hexes": [h for h in ALL if h[:2] in ("07", "08")]},
]


def _g(turn: str, pieces, **kw):
    rules = {
        "first_turn": turn,
        "last_turn": turn,
        "default_sector": None,
        "fronts": ["West", "East"],
        **kw.pop("rules", {}),
    }
    return game(pieces=pieces, areas=SECTORS, rules=rules, **kw)


# ---------------------------------------------------------------------- 28, 28-A
@pytest.mark.rules("LGG 28", "LGG 28-A")
def test_lgg_28_28a_levels_by_sector_and_doctrine() -> None:
    pieces = [
        corps("f", "DE", "0202"),
        corps("i", "DE", "0404"),
        corps("r", "DE", "0505"),
        corps("b", "DE", "0707"),
        corps("e", "FR", "0101"),
    ]
    g = _g("1915-03", pieces)
    i = g.board.idx
    assert trench.normal_level(g, "DE") == 0  # +0 at the switch to Fire Doctrine
    g.state.tracks["trench_level"] = {"DE": 3}
    lv = {h: trench.stack_trench_level(g, i(h), CP) for h in ("0202", "0404", "0505", "0707")}
    assert lv == {"0202": 3, "0404": 3, "0505": 2, "0707": 1}  # Russian one lower, Balkan two lower
    g.state.tracks["trench_level"] = {"DE": 1}
    assert (
        trench.stack_trench_level(g, i("0505"), CP) == 0
        and trench.stack_trench_level(g, i("0707"), CP) == 0
    )
    assert trench.stack_trench_level(g, i("0303"), CP) == 0  # no stack there
    g.state.tracks["trench_level"] = {"DE": 7}
    assert trench.normal_level(g, "DE") == 3  # +3 at most
    g1914 = _g("1914-09", pieces)
    g1914.state.tracks["trench_level"] = {"DE": 3}
    assert (
        trench.stack_trench_level(g1914, i("0202"), CP) == 0
    )  # 36.1: no entrenching in Movement Doctrine


@pytest.mark.rules("LGG 28-A", "LGG 36.6")
def test_lgg_28a_raising_the_level_and_belgium_follows_england() -> None:
    g = _g("1916-01", [corps("be", "BE", "0202"), corps("de", "DE", "0303")])
    g.state.tracks["trench_level"] = {"GB": 2}
    assert trench.normal_level(g, "BE") == 2
    assert trench.stack_trench_level(g, g.board.idx("0202"), EN) == 2
    assert trench.raise_level(g, "DE", "LGG 28-A", "a technology") == 1
    for _ in range(4):
        trench.raise_level(g, "DE", "LGG 28-A", "a technology")
    assert trench.normal_level(g, "DE") == 3


@pytest.mark.rules("LGG 28-B")
def test_lgg_28b_combat_advantage() -> None:
    pieces = [corps("d", "DE", "0202"), corps("e", "FR", "0101")]
    g = _g("1915-03", pieces)
    g.state.tracks["trench_level"] = {"DE": 2}
    assert trench.combat_advantage(g, "0202", CP) == {
        "level": 2,
        "table": "trench",
        "combativeness": 2,
    }
    g = _g("1914-11", pieces)
    assert trench.combat_advantage(g, "0202", CP) == {
        "level": 0,
        "table": "trench",
        "combativeness": 1,
    }
    g = _g("1914-09", pieces)
    assert trench.combat_advantage(g, "0202", CP) == {
        "level": 0,
        "table": "movement",
        "combativeness": 0,
    }
    assert trench.battle_trench_level(g, "0202", CP) == 0


@pytest.mark.rules("LGG 28-A", "LGG 17.3-E")
def test_lgg_28a_provisional_trench_of_breakthrough_units() -> None:
    g = _g("1915-03", [corps("d", "DE", "0505"), corps("e", "FR", "0101")])
    d = g.state.pieces["d"]
    trench.set_provisional(g, [d], 1)
    assert trench.stack_trench_level(g, g.board.idx("0505"), CP) == 1
    M.set_attr(g, d, "provisional_until", M.turn_index(g) - 1)
    assert trench.stack_trench_level(g, g.board.idx("0505"), CP) == 0


# ---------------------------------------------------------------------- 28-C GHQ artillery
def _art_game(turn: str = "1915-03", ghq_at: str = "0202", places=(), **kw):
    pieces = [
        ghq("de-ghq", "DE", ghq_at),
        hq("de-hq", "DE", "0303", "DE-1"),
        artillery("a1", "DE", "0303"),
        artillery("a2", "DE", "0303"),
        artillery("a3", "DE", "0303"),
        artillery("sg", "DE", "0303", category="siege"),
        artillery("own", "DE", "0303", army="DE-1"),
        corps("c", "DE", "0303", army="DE-1"),
        corps("e", "FR", "0101"),
    ]
    berlin = {
        "hex": "0302",
        "kind": "city",
        "name": "Berlin",
        "attrs": {"nation": "DE", "capital": True},
    }
    return _g(
        turn,
        pieces,
        places=[berlin, *places],
        control={"hexes": {CP: ALL}},
        rules={"armies": [army("DE-1", "DE", "de-hq")], **kw.pop("rules", {})},
        **kw,
    )


@pytest.mark.rules("LGG 28-C")
def test_lgg_28c_what_may_enter_the_artillery_box() -> None:
    g = _art_game()
    pc = g.state.pieces
    assert trench.why_not_to_artillery_box(g, CP, pc["a1"]) is None
    assert "heavy" in trench.why_not_to_artillery_box(g, CP, pc["sg"])
    assert "army number" in trench.why_not_to_artillery_box(g, CP, pc["own"])
    g1914 = _art_game("1914-09")
    assert "trench warfare" in trench.why_not_to_artillery_box(g1914, CP, g1914.state.pieces["a1"])


@pytest.mark.rules("LGG 28-C")
def test_lgg_28c_reinforcement_phase_placement_two_slots() -> None:
    g = _art_game(rules={"first_turn": "1915-01", "last_turn": "1915-03"})
    to_turn(g, "1915-03", "reinforcement-side", quiet())
    act(g, CP, type="to-ghq-artillery", unit="a1")
    act(g, CP, type="to-ghq-artillery", unit="a2")
    assert [p.id for p in trench.ghq_artillery(g, "DE")] == ["a1", "a2"]
    assert not any(a["type"] == "to-ghq-artillery" for a in g.legal_actions(CP))
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "to-ghq-artillery", "side": CP, "unit": "a3"})
    assert e.value.rule == "LGG 28-C" and "2 heavy" in str(e.value)
    assert "a1" not in str(g.view(EN))  # the box is off the map: hidden from the enemy
    assert g.view(CP)["lgg"]["ghq_artillery"] == {"DE": ["a1", "a2"]}
    act(g, CP, type="from-ghq-artillery", unit="a2")
    assert M.in_reserve(g.state.pieces["a2"]) and M.carrier(g, g.state.pieces["a2"]).id == "de-ghq"


def _box(g, *ids: str) -> None:
    ghq_p = M.ghq_piece(g, "DE")
    for pid in ids:
        M.move_piece(g, g.state.pieces[pid], Loc.box(trench.artillery_box(ghq_p)))


@pytest.mark.rules("LGG 28-C")
def test_lgg_28c_west_reach_by_sector_and_lyon_innsbruck() -> None:
    g = _art_game()
    _box(g, "a1", "a2")
    i = g.board.idx
    assert [p.id for p in trench.ghq_artillery_for_battle(g, "DE", i("0101"), False)] == [
        "a1",
        "a2",
    ]
    assert trench.ghq_artillery_for_battle(g, "DE", i("0404"), False) == []  # Italian sector
    inns = [{"hex": "0202", "kind": "city", "name": "Innsbruck", "attrs": {"nation": "DE"}}]
    g2 = _art_game(places=inns)
    _box(g2, "a1", "a2")
    assert (
        len(trench.ghq_artillery_for_battle(g2, "DE", i("0404"), False)) == 2
    )  # both sectors from Innsbruck
    g1914 = _art_game("1914-09")
    _box(g1914, "a1")
    assert (
        trench.ghq_artillery_for_battle(g1914, "DE", i("0101"), False) == []
    )  # trench warfare only


@pytest.mark.rules("LGG 28-C")
def test_lgg_28c_east_both_within_three_one_up_to_six() -> None:
    pieces = [
        ghq("de-ghq", "DE", "0501"),
        artillery("a1", "DE", "0303"),
        artillery("a2", "DE", "0303"),
        corps("e", "RU", "0808"),
    ]
    g = _g("1915-03", pieces)
    _box(g, "a1", "a2")
    i = g.board.idx
    gh = i("0501")
    near = next(
        h for h in range(g.board.n) if g.board.distance(gh, h) == 3 and "Russian" in _sect(g, h)
    )
    mid = next(
        h for h in range(g.board.n) if g.board.distance(gh, h) == 5 and "Russian" in _sect(g, h)
    )
    far = next(
        h
        for h in range(g.board.n)
        if g.board.distance(gh, h) == 7 and set(_sect(g, h)) & {"Russian", "Balkan"}
    )
    assert len(trench.ghq_artillery_for_battle(g, "DE", near, False)) == 2
    assert len(trench.ghq_artillery_for_battle(g, "DE", mid, False)) == 1
    assert trench.ghq_artillery_for_battle(g, "DE", far, False) == []


def _sect(g, h):
    from grognard.rulesets.lgg1418.map.fronts import sectors_of

    return sectors_of(g, h)


@pytest.mark.rules("LGG 28-C")
def test_lgg_28c_not_on_attack_after_a_long_move_once_per_activation_and_back_after_battle() -> (
    None
):
    g = _art_game()
    _box(g, "a1", "a2")
    i = g.board.idx
    c = g.state.pieces["c"]
    M.st(g)["activation"] = {"serial": 7, "side": CP, "armies": ["DE-1"]}
    M.set_attr(g, c, "mv_act", 7)
    M.set_attr(g, c, "mv_start", i("0303"))
    M.set_attr(g, c, "mv_spent", 1)
    assert len(trench.ghq_artillery_for_battle(g, "DE", i("0101"), True, [c])) == 2
    M.set_attr(g, c, "mv_spent", 4)  # its full movement allowance
    assert trench.ghq_artillery_for_battle(g, "DE", i("0101"), True, [c]) == []
    assert (
        len(trench.ghq_artillery_for_battle(g, "DE", i("0101"), False, [c])) == 2
    )  # on defence it may act
    M.set_attr(g, c, "mv_spent", 1)
    a1 = g.state.pieces["a1"]
    trench.commit_ghq_artillery(g, [a1], i("0101"), 7)
    assert M.hex_of(g, a1) == i("0101")
    trench.return_ghq_artillery(g, i("0101"))
    assert a1 in trench.ghq_artillery(g, "DE")
    assert [p.id for p in trench.ghq_artillery_for_battle(g, "DE", i("0101"), True, [c])] == [
        "a2"
    ]  # once per army
    assert len(trench.ghq_artillery_for_battle(g, "DE", i("0101"), True, [c], activation=8)) == 2
    trench.clear_turn_records(g)
    assert len(trench.ghq_artillery_for_battle(g, "DE", i("0101"), True, [c])) == 2


# ---------------------------------------------------------------------- 28-D autonomous units
@pytest.mark.rules("LGG 28-D")
def test_lgg_28d_autonomous_units_may_not_attack_and_reinforce_from_six_hexes() -> None:
    pieces = [
        corps("auto", "DE", "0202"),
        hq("de-hq", "DE", "0303", "DE-1"),
        corps("c", "DE", "0303", army="DE-1"),
        ghq("de-ghq", "DE", "0808"),
        corps("e", "FR", "0101"),
    ]
    g = _g("1915-03", pieces, rules={"armies": [army("DE-1", "DE", "de-hq")]})
    pc = g.state.pieces
    act_ = {"serial": 1, "side": CP, "front": "West"}
    with pytest.raises(IllegalAction) as e:
        trench.autonomous_attack_check(g, act_, [pc["auto"]], g.board.idx("0101"), "normal", True)
    assert e.value.rule == "LGG 28-D"
    trench.autonomous_attack_check(
        g, act_, [pc["c"]], g.board.idx("0101"), "normal", True
    )  # commanded: fine
    trench.autonomous_attack_check(
        g, act_, [pc["auto"]], g.board.idx("0201"), "normal", False
    )  # a move is fine
    assert not trench.autonomous_may_attack(g, pc["auto"])
    g1914 = _g("1914-09", pieces, rules={"armies": [army("DE-1", "DE", "de-hq")]})
    assert trench.autonomous_may_attack(g1914, g1914.state.pieces["auto"])
    i = g.board.idx
    assert trench.autonomous_reinforcement_source_ok(g, [pc["auto"]], pc["de-hq"], i("0202"))
    assert not trench.autonomous_reinforcement_source_ok(
        g, [pc["auto"]], pc["de-ghq"], i("0101")
    )  # 7+ hexes
    assert trench.autonomous_reinforcement_source_ok(
        g, [pc["c"]], pc["de-ghq"], i("0101")
    )  # not autonomous


@pytest.mark.rules("LGG 28-D")
def test_lgg_28d_autonomous_defence_pool_in_a_battle() -> None:
    from grognard.rulesets.lgg1418.battle import battle_steps
    from tests.lgg1418.battle_helpers import bgame, fr, open_battle

    pieces = [
        fr("fa", "0405"),
        corps("auto", "DE", "0404"),
        corps("near", "DE", "0304"),
        corps("near2", "DE", "0304"),
        corps("res", "DE", {"inside": "dh"}, status=["reserve"]),
        corps("gres", "DE", {"inside": "de-ghq"}, status=["reserve"]),
    ]
    g = bgame(pieces, first="1915-03")
    rec = open_battle(g, "0404", EN)
    pool = dict(battle_steps.reinforcement_pool(g, rec, CP))
    assert pool == {"res": "hq:dh", "gres": "ghq:de-ghq"}  # only HQs and the GHQ within 6 hexes
    g14 = bgame(pieces, first="1914-09")
    assert not trench.autonomous_defence(g14, [g14.state.pieces["auto"]], g14.board.idx("0404"))
