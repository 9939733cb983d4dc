"""LGG 15 (artillery), 16-B (artillery and reserve intervention) and 16-D (isolated army)."""

from __future__ import annotations

import pytest

from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import artillery, battle_calc, battle_steps
from tests.lgg1418.battle_helpers import bgame, de, de_art, engage, fr, fr_art, open_battle
from tests.lgg1418.helpers import CP, EN, corps, fortress
from tests.lgg1418.helpers import artillery as art_piece


@pytest.mark.rules("LGG 15", "LGG 15-A", "LGG 16.2-B")
def test_lgg_15a_16_2b_lgg40_support_values_by_category_and_doctrine() -> None:
    g = bgame(
        [
            fr("fa", "0505"),
            fr_art("heavy", "0505"),
            fr_art("siege", "0505", category="siege"),
            fr_art("coast", "0505", category="coastal"),
        ],
        first="1914-09",
    )
    p = g.state.pieces
    # 1914, Movement Doctrine: printed 3 gives 2, whatever the category (siege and coastal act as
    # heavy)
    assert [artillery.support_value(g, p[u], M.WEST) for u in ("heavy", "siege", "coast")] == [
        2,
        2,
        2,
    ]
    g2 = bgame([fr_art("heavy", "0505")], first="1915-03")
    assert (
        artillery.support_value(g2, g2.state.pieces["heavy"], M.WEST) == 3
    )  # Fire Doctrine: printed value
    M.set_face(g2, g2.state.pieces["heavy"], "reduced")
    assert artillery.support_value(g2, g2.state.pieces["heavy"], M.WEST) == 2  # the face that is up


@pytest.mark.rules("LGG 16.2-B", "LGG 23-C")
def test_lgg_16_2b_lgg40_fortress_as_artillery_and_its_munitions() -> None:
    g = bgame([fortress("ft", "FR", "0505"), fortress("bf", "BE", "0606")], first="1914-09")
    f = g.state.pieces["ft"]
    assert (
        artillery.fortress_support_value(g, f, M.WEST) == 2
    )  # 1914: 2 whatever is printed (3 here)
    assert artillery.fortress_shot_cost(g, f) == 0  # not reduced: no MUN
    M.set_face(g, f, "reduced")
    assert artillery.fortress_shot_cost(g, f) == 1
    b = g.state.pieces["bf"]
    M.set_face(g, b, "reduced")
    assert artillery.fortress_shot_cost(g, b) == 0  # Belgian and Serbian fortresses never spend
    g2 = bgame([fortress("ft", "FR", "0505")], first="1915-03")
    assert artillery.fortress_support_value(g2, g2.state.pieces["ft"], M.WEST) == 3


@pytest.mark.rules("LGG 23-C", "LGG 16.3-B")
def test_lgg_23c_lgg40_fortress_plus_one_in_plains_not_in_forest() -> None:
    for terrain, bonus in (("p", True), ("f", False)):
        rows = ["pppppppp"] * 8
        rows[4] = rows[4][:4] + terrain + rows[4][5:]
        g = bgame([fortress("ft", "FR", "0505"), fr("fa", "0505"), de("da", "0505")], terrain=rows)
        rec = open_battle(g, "0505", CP)
        engage(rec, "A", "da", "fa")
        calc = battle_calc.round_calc(g, rec, "A")
        reasons = [m.reason for m in calc.defender.mods]
        assert ("fortress in plains" in reasons) is bonus


@pytest.mark.rules("LGG 15-B")
def test_lgg_15b_one_gun_per_round_own_army_only_and_munitions() -> None:
    g = bgame(
        [
            fr("fa", "0404"),
            corps("loner", "FR", "0404"),
            fr_art("own", "0404"),
            art_piece("loose", "FR", "0404"),
            de("da", "0404"),
        ]
    )
    rec = open_battle(g, "0404", EN)
    arts = battle_steps.artillery_options(g, rec, EN, "A")
    assert set(arts) == {"own", "loose"}
    opts = battle_steps.engage_options(g, rec, EN)
    assert all(
        len([c for c in o.values() if c["art"]]) <= 1 for o in opts
    )  # one gun per sub-battle
    assert {o["A"]["art"] for o in opts if o["A"]["corps"] == "fa"} == {None, "own", "loose"}
    # the army-numbered gun never supports a corps of no army (15-B)
    assert {o["A"]["art"] for o in opts if o["A"]["corps"] == "loner"} == {None, "loose"}
    # munitions: a tracked stock of 0 leaves the guns silent; a stock of 1 lets one gun fire
    g.state.tracks["mun"] = {"FR": {"stock": 0}}
    assert battle_steps.artillery_options(g, rec, EN, "A") == []
    g.state.tracks["mun"] = {"FR": {"stock": 1}}
    assert artillery.spend_munitions(g, "FR", 1, "LGG 15-B", "test")
    assert artillery.mun_stock(g, "FR") == 0
    assert not artillery.spend_munitions(g, "FR", 1, "LGG 15-B", "test")


@pytest.mark.rules("LGG 15-B")
def test_lgg_15b_army_numbered_artillery_supports_only_its_army() -> None:
    g = bgame([fr("fa", "0404"), fr_art("own", "0404"), de("da", "0404")])
    p = g.state.pieces["own"]
    assert artillery.may_support_army(g, p, "FR-1")
    assert not artillery.may_support_army(g, p, "FR-2")
    assert artillery.may_support_army(g, g.state.pieces["own"], "FR-1")


@pytest.mark.rules("LGG 15-B")
def test_lgg_15b_a_gun_supports_one_battle_per_activation() -> None:
    g = bgame([fr("fa", "0404"), fr_art("gun", "0404"), de("da", "0404")])
    rec = open_battle(g, "0404", EN)
    gun = g.state.pieces["gun"]
    artillery.mark_used(g, gun, "B99", 7)
    rec.activation = 7
    assert artillery.used_elsewhere(g, gun, rec.id, 7)
    assert "gun" not in battle_steps.artillery_options(g, rec, EN, "A")
    rec.spec["artillery_reuse"] = True  # a flank breakthrough may reuse it (17.2-A)
    assert "gun" in battle_steps.artillery_options(g, rec, EN, "A")


@pytest.mark.rules("LGG 16-B")
def test_lgg_16b_adjacent_heavy_artillery_of_the_defending_army_may_join() -> None:
    g = bgame(
        [
            de("da", "0404"),
            de_art("near", "0403"),
            de_art("far", "0402"),
            de_art("siege", "0304", category="siege"),
            fr("fa", "0404"),
        ]
    )
    adj = artillery.adjacent_heavy_artillery(g, CP, g.board.idx("0404"), {"DE-1"})
    assert [p.id for p in adj] == ["near"]  # heavy, adjacent, of the army


@pytest.mark.rules("LGG 16-D")
def test_lgg_16d_lgg60_isolated_army_budget() -> None:
    # the French army cut off in 0202 (surrounded, far from any source); its HQ with it
    ring = [de(f"d{k}", h) for k, h in enumerate(("0201", "0102", "0302", "0203", "0303", "0103"))]
    base = [
        *__import__("tests.lgg1418.battle_helpers", fromlist=["base_pieces"]).base_pieces(
            fr_hq="0202", de_hq="0401"
        )
    ]
    g = bgame([fr("fa", "0202"), *ring], base=[b for b in base if b["id"] != "de-ghq"])
    b = artillery.isolated_army_budget(g, "FR-1")
    assert b == {"pr": 1, "mun": 2, "army": "FR-1"}
    places = [
        *__import__("tests.lgg1418.battle_helpers", fromlist=["CAPITALS"]).CAPITALS,
        {
            "hex": "0202",
            "kind": "city",
            "name": "Sedan",
            "attrs": {"nation": "FR", "recruitment": 3},
        },
    ]
    g2 = bgame(
        [fr("fa", "0202"), *ring],
        base=[b for b in base if b["id"] != "de-ghq"],
        places=places,
        control={
            "hexes": {
                CP: [
                    h
                    for h in __import__("tests.lgg1418.battle_helpers", fromlist=["HEXES"]).HEXES
                    if h != "0202" and int(h[:2]) + int(h[2:]) <= 8
                ],
                EN: ["0202"],
            }
        },
    )
    b2 = artillery.isolated_army_budget(g2, "FR-1")
    assert b2 is not None and b2["pr"] == 3 and b2["mun"] == 2
    assert artillery.isolated_army_budget(g2, "DE-1") is None
