"""The data files: provisional markings, printed values, calendar, die tables."""

from __future__ import annotations

import tomllib

import pytest

from grognard import rulesets
from grognard.core.tables import ResultsTable

RS = rulesets.get("lgg1418")


def test_provisional_files_say_what_is_invented() -> None:
    for name in ("catalogue", "terrain", "calendar", "rail", "recruits", "war_plans"):
        meta = RS.data.provisional[name]
        assert meta["derived_from"] and meta["notes"]
    for p in RS.data_files():
        if p.suffix == ".toml" and p.name != "rules.toml":
            d = tomllib.loads(p.read_text(encoding="utf-8"))
            if d.get("provisional"):
                assert d.get("derived_from") and d.get("notes"), p.name


@pytest.mark.rules("LGG 7-A")
def test_lgg_7a_weather_tables_per_zone_are_results_tables() -> None:
    tables = RS.tables()
    for zone in ("temperate", "continental", "severe", "mediterranean", "semi-desert"):
        t = tables[f"weather-{zone}"]
        assert isinstance(t, ResultsTable) and t.provisional and "LGG 7" in t.derived_from
        assert t.row_min == 1 and t.row_max == 12
        assert set(t.columns) >= {"Aug", "Sep", "Oct", "Nov-Dec", "Jan-Feb"}
        assert all(c in ("F", "R", "S") for row in t.rows.values() for c in row)


@pytest.mark.rules("LGG 5-C")
def test_lgg_5c_printed_1914_1915_maxima_are_carried_over() -> None:
    m = RS.data.recruits["stock_max_1914_1915"]
    assert (m["DE"], m["AH"], m["FR"], m["RU"], m["GB"], m["IT"], m["TR"], m["minor"]) == (
        32,
        24,
        24,
        34,
        12,
        24,
        20,
        10,
    )


@pytest.mark.rules("LGG 11.4-B")
def test_lgg_11_4b_printed_rail_costs() -> None:
    r = RS.data.rail
    assert (
        r["max_hexes"],
        r["cost_city_to_city"],
        r["cost_otherwise"],
        r["cavalry_extra"],
        r["long_journey"],
        r["long_journey_extra"],
        r["outer_hex_counts"],
    ) == (40, 2, 3, 2, 20, 1, 20)
    assert r["section"]["1"] == {"hqs": 1, "independent_units": 4}
    assert r["section"]["2"] == {"hqs": 2, "independent_units": 6}


@pytest.mark.rules("LGG 3-C")
def test_lgg_3c_calendar_single_months_then_two_month_turns() -> None:
    labels = [t.label for t in RS.data.calendar[:7]]
    assert labels == [
        "Aug 1914 pre-turn",
        "Aug 1914",
        "Sep 1914",
        "Oct 1914",
        "Nov-Dec 1914",
        "Jan-Feb 1915",
        "Mar-Apr 1915",
    ]
    fixed = {t.id: t.fixed_weather for t in RS.data.calendar if t.fixed_weather}
    assert fixed == {"1914-08": "fair", "1914-09": "fair"}
    assert RS.data.turn_by_id("1914-11").interphase == "winter"


def test_catalogue_lists_every_counter_type_of_the_seed() -> None:
    assert RS.piece_types() == {
        "corps",
        "hq",
        "ghq",
        "general",
        "artillery",
        "aircraft",
        "tank",
        "fortress",
        "decoy",
    }
    assert RS.data.catalogue["types"]["corps"]["values"]["arm"] == [
        "infantry",
        "cavalry",
        "mountain",
        "marine",
    ]


def test_terrain_chart_honours_the_printed_constraints() -> None:
    t, h = RS.data.terrain, RS.data.hexsides
    assert (
        t["desert"].stacking,
        t["mountain"].stacking,
        t["high_mountain"].stacking,
        t["plains"].stacking,
    ) == (2, 4, 1, 6)
    assert t["lake"].impassable and t["sea"].impassable and h["ridge"].impassable
    assert h["pass"].as_terrain == "plains"
    assert t["floodable"].rain_as == "marsh"
    assert (
        h["river"].frozen_in_severe_snow
        and h["large_river"].frozen_in_severe_snow
        and h["lake"].frozen_in_severe_snow
    )
    assert h["river"].blocks_zoc == "unless-bridge" and h["stream"].blocks_zoc == ""
