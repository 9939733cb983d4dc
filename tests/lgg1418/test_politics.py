"""LGG 33-35 and 30-B: political effects of great offensives, weariness and patriotic reactions."""

from __future__ import annotations

from typing import Any

import pytest

from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418 import strategic
from grognard.rulesets.lgg1418.military import offensive, politics

from .helpers import CP, EN, corps, game, to_turn
from .quiet import quiet

NATIONS = {"DE": CP, "AH": CP, "TR": CP, "FR": EN, "GB": EN, "RU": EN, "IT": EN, "BE": EN, "US": EN}


def _g(turn: str, seed: int = 1, vn: dict[str, int] | None = None, **kw: Any):
    g = game(
        seed=seed,
        nations=NATIONS,
        pieces=kw.pop("pieces", [corps("d", "DE", "0404"), corps("f", "FR", "0606")]),
        rules={"first_turn": turn, "last_turn": turn, **kw.pop("rules", {})},
        **kw,
    )
    for n, v in (vn or {}).items():
        r = strategic.national_will(g, n)
        r.value = v
        g.state.tracks.setdefault("national_will", {})[n] = r.__dict__.copy()
    return g


def _vn(g, n: str) -> int:
    return strategic.national_will(g, n).value


def _off(**kw: Any) -> dict[str, Any]:
    base = {
        "id": "o",
        "side": EN,
        "sector": "French",
        "front": "West",
        "year": 1915,
        "objective": ["0505"],
        "armies": ["a", "b"],
        "nations": ["FR"],
        "command": "FR",
        "status": "victorious",
        "turns": 1,
        "breakthrough": "none",
        "cities": [],
        "defender_nations": ["DE"],
        "conquered": [],
    }
    base.update(kw)
    return base


# ---------------------------------------------------------------------- 33
@pytest.mark.rules("LGG 33", "LGG [33-A]")
def test_lgg_33_lgg78_victory_gains() -> None:
    g = _g("1915-05")
    gain = politics.victory_gain
    assert gain(g, _off(breakthrough="none")) == {"FR": 10}
    assert gain(g, _off(breakthrough="limited")) == {"FR": 12}
    assert gain(g, _off(breakthrough="major")) == {"FR": 15}
    assert gain(
        g, _off(sector="Russian", front="East", command="DE", nations=["DE"], side=CP, cities=["x"])
    ) == {"DE": 8}
    assert gain(
        g,
        _off(
            sector="Russian",
            front="East",
            command="DE",
            nations=["DE"],
            side=CP,
            cities=["x", "y", "z"],
        ),
    ) == {"DE": 10}
    assert gain(
        g, _off(sector="Russian", front="East", command="RU", nations=["RU"], cities=["x", "y"])
    ) == {"RU": 15}
    assert gain(g, _off(sector="Italian", command="AH", nations=["AH"], side=CP)) == {"AH": 5}
    assert gain(g, _off(sector="Italian", command="IT", nations=["IT"], breakthrough="major")) == {
        "IT": 15
    }
    assert gain(
        g, _off(sector="Italian", command="AH", nations=["AH"], side=CP, breakthrough="major")
    ) == {"AH": 10}
    # Franco-British under French command, major breakthrough
    assert gain(g, _off(nations=["FR", "GB"], breakthrough="major")) == {"FR": 15, "GB": 4}


@pytest.mark.rules("LGG 33", "LGG [33-A]")
def test_lgg_33_gains_paid_at_the_end_of_the_turn_and_raised_on_the_russian_sector() -> None:
    g = _g("1915-05", vn={"FR": 40, "GB": 40, "DE": 40})
    now = M.turn_index(g)
    M.st(g).setdefault("offensives", {})["o"] = _off(
        nations=["FR", "GB"], breakthrough="limited", vn_due=now
    )
    politics.apply_political_effects(g)
    assert (_vn(g, "FR"), _vn(g, "GB")) == (52, 44)
    assert politics.ignores_loss_vn(g, "FR", "West") and not politics.ignores_loss_vn(
        g, "FR", "East"
    )
    politics.apply_political_effects(g)
    assert _vn(g, "FR") == 52  # paid once
    M.st(g).setdefault("offensives", {})["r"] = _off(
        id="r",
        side=CP,
        sector="Russian",
        front="East",
        command="DE",
        nations=["DE"],
        cities=["c1"],
        vn_due=now,
    )
    politics.apply_political_effects(g)
    assert _vn(g, "DE") == 48
    offensive.offensives(g)["r"].update(
        cities=["c1", "c2"], vn_due=now
    )  # the offensive goes on and takes another city
    politics.apply_political_effects(g)
    assert _vn(g, "DE") == 50  # raised from +8 to +10


@pytest.mark.rules("LGG 33-B")
def test_lgg_33b_lgg79_defeat_of_the_attacker() -> None:
    fx = politics.defeat_effects
    g16 = _g("1916-05")
    assert fx(g16, _off(turns=2, status="halted"))["FR"] == -6
    g17 = _g("1917-05")
    assert fx(g17, _off(turns=3, status="halted"))["FR"] == -12
    g18 = _g("1918-05")
    assert fx(g18, _off(turns=1, status="halted"))["FR"] == -13
    both = fx(g16, _off(turns=2, nations=["FR", "GB"], status="halted"))
    assert both["GB"] == -4 and both["DE"] == 5  # partner -4; defender +5
    fortress = [{"hex": "0505", "kind": "city", "name": "Verdun", "attrs": {"nation": "FR"}}]
    g = _g("1916-05", places=fortress)
    ger = _off(side=CP, command="DE", nations=["DE"], defender_nations=["FR"], status="halted")
    assert fx(g, ger)["FR"] == 10  # France alone defending a city against the Germans
    assert fx(g, {**ger, "allied_defence": True, "defender_nations": ["FR", "GB"]})["FR"] == 5


@pytest.mark.rules("LGG 33-B")
def test_lgg_33b_paid_at_the_end_of_the_turn_of_the_halt() -> None:
    g = _g("1916-05", vn={"FR": 40, "DE": 40})
    off = _off(status="active", turns=2)
    M.st(g).setdefault("offensives", {})["o"] = off
    offensive.halt(g, off, "voluntary halt at the end of the turn", "LGG 30-D")
    assert off["failed"] and off["status"] == "halted"
    politics.apply_political_effects(g)
    assert (_vn(g, "FR"), _vn(g, "DE")) == (34, 45)
    assert politics.ignores_loss_vn(g, "DE", "West")


# ---------------------------------------------------------------------- 30-B
@pytest.mark.rules("LGG 30-B")
def test_lgg_30b_lgg77_no_offensive_costs_5_vn_and_a_weariness_test_from_1916() -> None:
    g = _g("1915-11", vn={n: 40 for n in ("DE", "AH", "FR", "GB", "RU", "IT", "TR")})
    politics.apply_obligations(g)
    assert _vn(g, "DE") == 35 and _vn(g, "FR") == 35 and _vn(g, "GB") == 35 and _vn(g, "AH") == 35
    assert _vn(g, "RU") == 40 and _vn(g, "IT") == 40 and _vn(g, "TR") == 40  # not obliged
    assert not politics.rec(g).get("weariness_due")  # 1915: no weariness test
    g = _g("1916-11", vn={"DE": 40, "FR": 40})
    politics.apply_obligations(g)
    assert _vn(g, "DE") == 35 and politics.rec(g)["weariness_due"]["DE"]["no_offensive"]
    g = _g("1916-05")
    assert not politics.obliged(g, "TR", 1916)


@pytest.mark.rules("LGG 30-B")
def test_lgg_30b_who_is_not_obliged() -> None:
    g = _g("1916-11", vn={"FR": 40, "GB": 40, "DE": 40, "AH": 40})
    M.st(g).setdefault("offensives", {})["o"] = _off(
        side=CP, command="DE", nations=["DE"], defender_nations=["GB"], year=1916
    )
    assert not politics.obliged(g, "FR", 1916) and politics.obliged(g, "GB", 1916)
    assert politics.suffered(g, "GB", 1916) and politics.conducted(g, "DE", 1916)
    politics.apply_obligations(g)
    assert _vn(g, "FR") == 40 and _vn(g, "GB") == 40 and _vn(g, "DE") == 40 and _vn(g, "AH") == 35
    M.st(g).setdefault("offensives", {})["e"] = _off(
        id="e",
        side=CP,
        sector="Russian",
        front="East",
        command="DE",
        nations=["DE"],
        defender_nations=["RU"],
        year=1916,
    )
    assert not politics.obliged(g, "AH", 1916)
    M.st(g)["surrendered"] = ["RU"]
    assert not politics.obliged(g, "DE", 1916)
    g18 = _g("1918-11")
    M.st(g18)["surrendered"] = ["RU"]
    assert politics.obliged(g18, "DE", 1918)
    g2 = _g("1916-11", options={"great-offensive-obligation-others": "obliged"})
    assert politics.obliged(g2, "RU", 1916) and politics.obliged(g2, "IT", 1916)


# ---------------------------------------------------------------------- 34
CITIES = [
    {"hex": "0101", "kind": "city", "name": "Paris", "attrs": {"nation": "FR", "capital": True}},
    {"hex": "0808", "kind": "city", "name": "Berlin", "attrs": {"nation": "DE", "capital": True}},
    {"hex": "0102", "kind": "city", "name": "Strasbourg", "attrs": {"nation": "DE"}},
    {"hex": "0103", "kind": "city", "name": "Metz", "attrs": {"nation": "DE"}},
    {"hex": "0104", "kind": "city", "name": "Vienna", "attrs": {"nation": "AH", "capital": True}},
]


@pytest.mark.rules("LGG 34-B")
def test_lgg_34b_lgg80_exceptions() -> None:
    g = _g(
        "1916-05",
        places=CITIES,
        control={"hexes": {EN: ["0101", "0808"], CP: ["0102", "0103", "0104"]}},
    )
    assert politics.weariness_exempt(g, "US")
    assert politics.weariness_exempt(g, "DE") is None
    assert "Berlin" in politics.weariness_exempt(g, "GB") and "Berlin" in politics.weariness_exempt(
        g, "FR"
    )
    g = _g(
        "1916-05",
        places=CITIES,
        control={"hexes": {CP: ["0101", "0808", "0104"], EN: ["0102", "0103"]}},
    )
    assert "Paris" in politics.weariness_exempt(g, "AH") and "Paris" in politics.weariness_exempt(
        g, "TR"
    )
    assert "Strasbourg" in politics.weariness_exempt(g, "FR")
    assert politics.weariness_exempt(g, "RU") is None
    g = _g("1916-05", places=CITIES, control={"hexes": {EN: ["0104"]}})
    assert "Vienna" in politics.weariness_exempt(g, "RU")


@pytest.mark.rules("LGG 34-C", "LGG 25-B")
def test_lgg_34c_modifiers() -> None:
    g = _g("1916-05", places=CITIES, control={"hexes": {CP: ["0808"], EN: ["0101"]}})
    mods = politics.weariness_modifiers(g, "DE", {"failure": True, "no_offensive": True})
    assert mods.total() == -1 + 1 + 3  # 1916 bonus (invented -1), failure +1, no offensive +3
    M.st(g)["revolution"] = ["DE"]
    assert politics.weariness_modifiers(g, "DE", {}).total() == -1 + 1
    g2 = _g("1916-05", places=CITIES, control={"hexes": {EN: ["0808"]}})
    assert (
        politics.weariness_modifiers(g2, "DE", {}).total() == 0
    )  # capital occupied: no 1916 bonus
    g3 = _g("1917-05", places=CITIES, pieces=[corps("d", "DE", "0404")])
    g3.state.pieces["d"].type = "hq"
    M.st(g3)["destroyed_hq"] = {"d": M.turn_index(g3) - 1}
    assert (
        politics.weariness_modifiers(g3, "DE", {"capital": True}).total() == 2
    )  # +2 per HQ destroyed this year
    M.st(g3).setdefault("offensives", {})["o"] = _off(
        year=1917, victorious=M.turn_index(g3), defender_nations=["DE"]
    )
    assert politics.weariness_modifiers(g3, "DE", {}).total() == 1  # the counter-offensive modifier


def _roll_texts(g, start: int = 0) -> list[dict[str, Any]]:
    return [e for e in g.state.log[start:] if e["type"] == "roll"]


@pytest.mark.rules("LGG 34", "LGG 34-D")
def test_lgg_34_34d_lgg81_weariness_effects() -> None:
    seen = set()
    for seed in range(1, 40):
        g = _g("1916-05", seed=seed, vn={"DE": 42, "AH": 42, "TR": 15})
        mark = len(g.state.log)
        weary = politics.weariness_test(g, "DE", {}, "test")
        nat = _roll_texts(g, mark)[0]["data"]["natural"]
        assert weary == (nat - 1 >= 10)  # provisional table: weariness on a modified 10+ (1916: -1)
        seen.add(weary)
        if not weary:
            assert _vn(g, "DE") == 42
            continue
        loss = _roll_texts(g, mark)[1]["data"]["natural"]
        assert _vn(g, "DE") == 20 - loss  # LGG-81: straight to box 20, then minus a D12
        assert strategic.national_will(g, "DE").parliament == -1
        assert politics.stosstruppen_banned(g, "DE")
        assert (
            politics.social_test_modifier(g, "DE") == -1
            and politics.social_test_modifier(g, "DE", True) == 0
        )
        assert any(d["nation"] == "DE" for d in politics.rec(g)["instability_due"])
        # Germany's weariness: Austria-Hungary and Turkey apply effects 1, 2, 4 (3 only outside the
        # unstable zone)
        assert strategic.national_will(g, "AH").parliament == -1 and _vn(g, "AH") < 20
        assert (
            politics.social_test_modifier(g, "AH") == -1
            and politics.social_test_modifier(g, "TR") == 0
        )
        assert politics.stosstruppen_banned(g, "TR") and _vn(g, "TR") < 15
        assert politics.minor_combativeness_vn_modifier(g, CP) == -1
    assert seen == {True, False}


@pytest.mark.rules("LGG 34-D")
def test_lgg_34d_1918_parliament_straight_to_defeatist_and_unstable_vn_not_raised() -> None:
    g = _g("1918-05", vn={"FR": 12})
    politics.apply_weariness(g, "FR", (1, 2))
    assert (
        strategic.national_will(g, "FR").parliament == politics.values(g)["parliament"]["defeatist"]
    )
    assert _vn(g, "FR") < 12  # already unstable: not raised to 20, then minus a D12


@pytest.mark.rules("LGG 34-A")
def test_lgg_34a_cases_collected_at_the_end_of_the_turn() -> None:
    g = _g("1916-05", places=CITIES, control={"hexes": {EN: ["0101"]}})
    from grognard.rulesets.lgg1418.map import mapdata

    mapdata.set_control(g, g.board.idx("0101"), CP)  # Paris falls this turn
    off = _off(status="active", turns=1, nations=["GB"], command="GB", year=1916)
    M.st(g).setdefault("offensives", {})["o"] = off
    offensive.halt(g, off, "panic of an attacking corps", "LGG 30-E")
    politics.collect_weariness_cases(g)
    due = politics.rec(g)["weariness_due"]
    assert due["FR"]["capital"] and "loss of the capital" in due["FR"]["reasons"]
    assert due["GB"]["failure"]
    assert any(
        "England" in r for r in due["FR"]["reasons"]
    )  # France had no offensive, England's failed
    g14 = _g("1914-09", places=CITIES, control={"hexes": {EN: ["0101"]}})
    mapdata.set_control(g14, g14.board.idx("0101"), CP)
    politics.collect_weariness_cases(g14)
    assert not politics.rec(g14).get("weariness_due")  # 1914: held until November-December (25-B)
    assert "FR" in politics.rec(g14)["capital_pending"]


@pytest.mark.rules("LGG 34-A")
def test_lgg_34a_central_powers_east_voluntary_halt_in_fair_weather_is_no_case() -> None:
    g = _g("1916-05")
    off = _off(
        side=CP,
        sector="Russian",
        front="East",
        command="DE",
        nations=["DE"],
        status="active",
        year=1916,
    )
    M.st(g).setdefault("offensives", {})["o"] = off
    offensive.halt(g, off, "voluntary halt at the end of the turn", "LGG 30-D")
    politics.collect_weariness_cases(g)
    assert "DE" not in politics.rec(g).get("weariness_due", {})
    off2 = _off(
        id="p",
        side=CP,
        sector="Russian",
        front="East",
        command="DE",
        nations=["DE"],
        status="active",
        year=1916,
        fair_throughout=False,
    )
    M.st(g).setdefault("offensives", {})["p"] = off2
    offensive.halt(g, off2, "voluntary halt at the end of the turn", "LGG 30-D")
    politics.collect_weariness_cases(g)
    assert politics.rec(g)["weariness_due"]["DE"]["failure"]


@pytest.mark.rules("LGG 34-A")
def test_lgg_34a_major_defeat_city_and_five_hexes_west() -> None:
    areas = [
        {
            "name": "FR",
            "kind": "country",
            "attrs": {"nation": "FR"},
            "hexes": [f"0{c}0{r}" for c in range(1, 5) for r in range(1, 9)],
        }
    ]
    places = [{"hex": "0303", "kind": "city", "name": "Reims", "attrs": {"nation": "FR"}}]
    g = _g("1915-05", places=places, areas=areas)
    won = ["0303", "0302", "0304", "0203", "0204", "0202"]
    off = _off(
        side=CP,
        command="DE",
        nations=["DE"],
        defender_nations=["FR"],
        conquered=won,
        status="victorious",
    )
    M.st(g).setdefault("offensives", {})["o"] = off
    politics.collect_weariness_cases(g)
    assert politics.rec(g)["weariness_due"]["FR"]["major_defeat"]
    g2 = _g("1915-05", places=places, areas=areas)
    M.st(g2).setdefault("offensives", {})["o"] = {**off, "conquered": won[:5]}
    politics.collect_weariness_cases(g2)
    assert "FR" not in politics.rec(g2).get("weariness_due", {})


# ---------------------------------------------------------------------- 35
@pytest.mark.rules("LGG 35-A", "LGG 35-B", "LGG 35")
def test_lgg_35_lgg82_patriotic_reaction_with_the_capital_lost() -> None:
    outcomes: dict[int, bool] = {}
    for seed in range(1, 60):
        g = _g(
            "1915-05", seed=seed, places=CITIES, control={"hexes": {CP: ["0101"]}}, vn={"FR": 22}
        )
        mark = len(g.state.log)
        ok = politics.patriotic_test(g, "FR", "test")
        rolls = _roll_texts(g, mark)
        outcomes[rolls[0]["data"]["natural"]] = ok
        if ok:
            assert _vn(g, "FR") == 35
            p = rolls[1]["data"]["natural"]
            assert strategic.national_will(g, "FR").parliament == min(
                4, politics.parliament_boxes(g, p)
            )
            d = rolls[2]["data"]["natural"]
            assert g.state.tracks["civilian_production"]["FR"] == (-1 if d % 2 else -2)
    assert all(v == (k >= 11) for k, v in outcomes.items())  # D12 - 2 >= 9
    assert {10, 11} <= set(outcomes)


@pytest.mark.rules("LGG 35-B")
def test_lgg_35b_parliament_bands_and_vn_never_lowered() -> None:
    g = _g("1915-05", vn={"FR": 50})
    assert [politics.parliament_boxes(g, r) for r in (1, 2, 8, 9, 10, 11, 12)] == [
        2,
        2,
        2,
        3,
        3,
        4,
        4,
    ]
    g2 = _g("1915-05", options={"lowest-band-below": False})
    assert politics.parliament_boxes(g2, 1) == 0
    for seed in range(1, 30):
        g = _g("1915-05", seed=seed, vn={"FR": 50})
        if politics.patriotic_test(g, "FR", "test"):
            assert _vn(g, "FR") == 50  # our reading: a reaction never lowers the national will
            break
    else:
        raise AssertionError("no patriotic reaction in 30 seeds")


@pytest.mark.rules("LGG 35-A")
def test_lgg_35a_cases_city_or_fortress_lost_on_own_territory() -> None:
    areas = [
        {"name": "FR", "kind": "country", "attrs": {"nation": "FR"}, "hexes": ["0101", "0202"]}
    ]
    places = [{"hex": "0202", "kind": "city", "name": "Lille", "attrs": {"nation": "FR"}}]
    g = _g("1915-05", places=places, areas=areas)
    from grognard.rulesets.lgg1418.map import mapdata

    mapdata.set_control(g, g.board.idx("0202"), EN)
    mapdata.set_control(g, g.board.idx("0202"), CP)
    politics.collect_patriotic_cases(g)
    assert "FR" in politics.rec(g)["patriotic_due"]
    g2 = _g("1915-05", places=places, areas=areas)
    off = _off(
        side=CP, command="DE", nations=["DE"], objective=["0101"], victorious=M.turn_index(g2)
    )
    M.st(g2).setdefault("offensives", {})["o"] = off
    politics.collect_patriotic_cases(g2)
    assert "FR" in politics.rec(g2)["patriotic_due"]


# ---------------------------------------------------------------------- the end-of-turn step
@pytest.mark.rules("LGG 30-B", "LGG 33")
def test_end_of_turn_step_applies_the_year_end_penalties() -> None:
    g = game(
        nations=NATIONS,
        pieces=[corps("d", "DE", "0404"), corps("f", "FR", "0606")],
        rules={"first_turn": "1915-11", "last_turn": "1916-01"},
    )
    for n in ("DE", "FR"):
        g.state.tracks["national_will"][n]["value"] = 40
    to_turn(g, "1916-01", "reinforcement-side", quiet())
    assert M.current_turn(g).id == "1916-01"
    assert _vn(g, "DE") == 35 and _vn(g, "FR") == 35
    texts = [e["text"] for e in g.state.log if e["type"] == "national-will"]
    assert any("no great offensive this year" in t for t in texts)
