"""LGG 7: weather by climatic zone (rain, snow)."""

from __future__ import annotations

import pytest

from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata, weather
from grognard.rulesets.lgg1418.military import movement

from .helpers import CP, army, corps, game, hq

CLIMATE = [
    {
        "kind": "climate",
        "map": "T",
        "legend": {"t": "temperate", "s": "severe"},
        "rows": ["ttttssss"] * 8,
    }
]
ZONES = [
    {"name": "temperate", "kind": "climate", "attrs": {"zone": "temperate"}},
    {"name": "severe", "kind": "climate", "attrs": {"zone": "severe"}},
]


def _g(first: str = "1914-10", **kw: object):
    pieces = [
        hq("de-hq", "DE", "0202", "DE-1"),
        corps("inf", "DE", "0202", army="DE-1"),
        corps("s", "DE", "0606"),
    ]
    return game(
        pieces=pieces,
        areas=ZONES,
        area_maps=CLIMATE,
        rules={
            "first_turn": first,
            "last_turn": "1915-01",
            "armies": [army("DE-1", "DE", "de-hq")],
        },
        **kw,
    )


def _set(g, **w: str) -> None:
    M.st(g)["weather"] = dict(w)
    M.touch(g)


@pytest.mark.rules("LGG 7", "LGG 7-A")
def test_lgg_7_weather_rolled_per_zone_on_its_table() -> None:
    g = _g()
    out = weather.determine_weather(g)
    assert set(out) == {"temperate", "severe"}
    tables = g.ruleset.tables()
    for e in (e for e in g.state.log if e["type"] == "roll"):
        zone = "severe" if "severe" in e["text"] else "temperate"
        cell = tables[f"weather-{zone}"].lookup("Oct", e["data"]["natural"]).result
        assert out[zone] == weather.CODES[cell]
    assert mapdata.climate_zone(g, g.board.idx("0101")) == "temperate"
    assert mapdata.climate_zone(g, g.board.idx("0808")) == "severe"


@pytest.mark.rules("LGG 7", "LGG 3-C")
def test_lgg_7_fixed_weather_in_september_1914_and_by_scenario() -> None:
    g = _g(first="1914-09")
    assert weather.determine_weather(g) == {"temperate": "fair", "severe": "fair"}
    assert not any(e["type"] == "roll" for e in g.state.log)
    g2 = game(
        pieces=[corps("a", "DE", "0101")],
        rules={"first_turn": "1914-10", "weather": {"1914-10": {"temperate": "snow"}}},
    )
    assert weather.determine_weather(g2) == {"temperate": "snow"}


@pytest.mark.rules("LGG 7-B")
def test_lgg_7b_rain_adds_one_mp_and_helps_the_defender_on_plains() -> None:
    g = _g()
    inf = g.state.pieces["inf"]
    i, j = g.board.idx("0202"), g.board.idx("0302")
    assert movement.step_cost(g, inf, i, j) == 1
    _set(g, temperate="rain", severe="fair")
    assert movement.step_cost(g, inf, i, j) == 2
    assert weather.defender_weather_bonus(g, j) == 1
    assert weather.defender_weather_bonus(g, g.board.idx("0606")) == 0  # the severe zone is fair


@pytest.mark.rules("LGG 7-C", "LGG 11.2")
def test_lgg_7c_lgg19_snow_allowance_and_combat() -> None:
    g = _g()
    inf, hqp = g.state.pieces["inf"], g.state.pieces["de-hq"]
    _set(g, temperate="snow", severe="snow")
    assert movement.allowance(g, inf) == 3
    assert movement.allowance(g, hqp) == 4  # HQs keep their allowance
    assert movement.allowance(g, inf, "admin") == 6  # (4 - 1) x 2
    assert weather.defender_weather_bonus(g, g.board.idx("0202")) == 1
    assert weather.attacker_weather_d12(g, g.board.idx("0202")) == -1


@pytest.mark.rules("LGG 7-B", "LGG 7-C")
def test_lgg_7_lgg20_no_landing_in_rain_or_snow() -> None:
    g = _g()
    i = g.board.idx("0101")
    assert weather.landing_allowed(g, i)
    _set(g, temperate="rain")
    assert not weather.landing_allowed(g, i)
    _set(g, temperate="snow")
    assert not weather.landing_allowed(g, i)


@pytest.mark.rules("LGG 7-C")
def test_lgg_7c_rivers_freeze_only_in_severe_zones() -> None:
    g = _g(hexsides=[{"feature": "river", "sides": ["0606/0706", "0202/0302"]}])
    s = g.state.pieces["s"]
    a, b = g.board.idx("0606"), g.board.idx("0706")
    base = movement.step_cost(g, s, a, b)
    _set(g, temperate="snow", severe="snow")
    assert movement.step_cost(g, s, a, b) == base - 1  # the river is frozen, the crossing cost gone
    inf = g.state.pieces["inf"]
    assert [
        f.name for f in mapdata.hexside_features(g, g.board.idx("0202"), g.board.idx("0302"))
    ] == ["river"]
    assert movement.step_cost(g, inf, g.board.idx("0202"), g.board.idx("0302")) == 2


def test_weather_is_a_phase_of_the_turn() -> None:
    g = _g()
    from .helpers import play_until

    play_until(g, "choose-activation")
    assert set(M.st(g)["weather"]) == {"temperate", "severe"}
    assert any(e["type"] == "weather" for e in g.visible_log(CP))
