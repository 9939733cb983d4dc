"""Rule 3: basic game concepts (units, nations, mechanics, markers, geography, commands,
isolation)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from grognard.core.modifiers import Modifiers
from grognard.core.state import Loc
from grognard.rulesets.greatwar import mechanics
from grognard.rulesets.greatwar.combat import retreat
from grognard.rulesets.greatwar.map import geography, weather, zoc
from grognard.rulesets.greatwar.movement import rail
from grognard.rulesets.greatwar.movement.movement import movement_allowance
from grognard.rulesets.greatwar.supply import isolation, supply_status
from grognard.rulesets.greatwar.units import nations, units
from grognard.rulesets.greatwar.units.catalogue import load_catalogue
from grognard.scenario.loader import ScenarioError

from .helpers import CP, EN, army_hq, division, end, game, idx, load, move, run_to, unit


def P(g, pid):
    return g.state.pieces[pid]


# ============================================================================ 3A units
@pytest.mark.rules("OT 3A")
def test_ot_3a_types_sharing_a_symbol_resolve_to_one_type() -> None:
    """OT-G-6: chasseur a pied, bersaglieri and jager are light rifle units."""
    cat = load_catalogue()
    for name in (
        "chasseur à pied",
        "chasseur-a-pied",
        "Bersaglieri",
        "jäger",
        "jager",
        "light rifle",
    ):
        assert cat.resolve(name).id == "light-rifle"
    g = game(pieces=[unit("j", "jäger", "Germany", "0601", size="battalion")])
    assert "light" in units.utype(P(g, "j")).tags


@pytest.mark.rules("OT 3A1")
def test_ot_3a1_size_categories() -> None:
    g = game(
        pieces=[
            army_hq("h", "France", "0101"),
            division("d", "France", "0102"),
            unit("b", "rifle", "France", "0103", size="brigade"),
            unit("c", "rifle", "France", "0104", size="cadre"),
            unit("n", "rifle", "France", "0105", size="battalion-grouping"),
        ]
    )
    assert units.size_category(P(g, "h")) == "higher-hq"
    assert units.size_category(P(g, "d")) == "divisional"
    assert {units.size_category(P(g, x)) for x in ("b", "c", "n")} == {"non-divisional"}
    P(g, "d").face = "cadre"
    assert units.size_category(P(g, "d")) == "non-divisional"


@pytest.mark.rules("OT 3A2")
def test_ot_3a2_classes_are_a_set() -> None:
    """OT-G-7: motorized field artillery is artillery and c/m; AA, antitank, aerial bombardment are
    not artillery."""
    g = game(
        pieces=[
            unit("mfa", "motorized-field-artillery", "France", "0101"),
            unit("aa", "antiaircraft", "France", "0102"),
            unit("at", "antitank", "France", "0103"),
            unit("ab", "aerial-bombardment", "France", "0104"),
            unit("r", "rifle", "France", "0105"),
            unit("sm", "siege-mortar", "France", "0106"),
            unit("tk", "tank", "France", "0201"),
        ]
    )
    assert units.is_artillery(P(g, "mfa")) and units.is_cm(P(g, "mfa"))
    for x in ("aa", "at", "ab"):
        assert not units.is_artillery(P(g, x))
    assert units.is_non_motorized(P(g, "r"))
    assert units.is_artillery(P(g, "sm"))
    assert units.is_cm(P(g, "tk"))


@pytest.mark.rules("OT 3A3")
def test_ot_3a3_re_sizes() -> None:
    """OT-G-8: the RE table of OT 3A3."""
    g = game(
        nations={"France": EN, "Germany": CP, "USA": EN, "Ottoman Empire": CP},
        pieces=[
            unit("gsp", "gsp", "France", "0101", size=""),
            unit("bn", "rifle", "France", "0101", size="battalion"),
            unit("rem", "rifle", "France", "0101", size="remnant"),
            unit("reg", "rifle", "France", "0102", size="regiment"),
            unit("cc", "corps-hq", "France", "0102", size="corps"),
            unit("ax", "art-xx-hq", "France", "0102", size="division"),
            unit("cad", "rifle", "France", "0103", size="cadre"),
            unit("uscad", "rifle", "USA", "0103", size="cadre"),
            unit("brig", "rifle", "France", "0104", size="brigade"),
            army_hq("ahq", "France", "0104"),
            division("ott", "Ottoman Empire", "0801"),
            unit("rp", "res-pt", "France", "0105", size=""),
            division("usd", "USA", "0105"),
            division("un", "France", "0106", support="unsupported"),
            division("self", "France", "0201", support="self"),
            division("full", "France", "0202"),
        ],
    )
    want = {
        "gsp": Fraction(1, 4),
        "bn": Fraction(1, 2),
        "rem": Fraction(1, 2),
        "reg": 1,
        "cc": 1,
        "ax": 1,
        "cad": 1,
        "uscad": 2,
        "brig": 2,
        "ahq": 3,
        "ott": 3,
        "rp": 3,
        "usd": 6,
        "un": 3,
        "self": 4,
        "full": 5,
    }
    for pid, re in want.items():
        assert units.re_size(g, P(g, pid)) == re, pid


@pytest.mark.rules("OT 3A3")
def test_ot_3a3_advanced_division_sizes() -> None:
    """OT-G-9: a German rifle division with printed attack 14 is 5 RE under the advanced rule."""
    rules = (
        '[[rules.division_re]]\nnation = "Germany"\ntypes = ["rifle", "mountain-rifle"]\nmin_attack'
        ' = 14\nre = 5\n[[rules.division_re]]\nnation = "Germany"\ntypes = ["rifle"]\nmin_attack ='
        " 0\nre = 4"
    )
    pieces = [
        division("big", "Germany", "0801", a=14, d=16, support="unsupported"),
        division("small", "Germany", "0802", a=9, d=12),
    ]
    g = game(pieces=pieces, rules=rules, options={"variable-re-advanced": True})
    assert units.re_size(g, P(g, "big")) == 5
    assert units.re_size(g, P(g, "small")) == 4
    g2 = game(pieces=pieces, rules=rules)
    assert units.re_size(g2, P(g2, "big")) == 3  # basic rule: unsupported indicator


@pytest.mark.rules("OT 3A3")
def test_ot_3a3_transport_doubling() -> None:
    """OT-G-10: a field artillery regiment (1 RE) counts 2 RE by rail, river or sea (the rulebook
    example)."""
    pieces = [
        unit("fa", "field-artillery", "France", "0101"),
        unit("ha", "heavy-artillery", "France", "0102"),
        unit("tk", "tank", "France", "0103"),
        unit("r", "rifle", "France", "0104"),
    ]
    g = game(pieces=pieces)
    for mode in ("rail", "river", "naval", "cartage"):
        assert units.transport_re(g, P(g, "fa"), mode) == 2
        assert units.transport_re(g, P(g, "tk"), mode) == 2
        assert units.transport_re(g, P(g, "r"), mode) == 1
    g2 = game(pieces=pieces, options={"transport-doubling": "he-artillery"})
    assert units.transport_re(g2, P(g2, "fa"), "naval") == 1
    assert units.transport_re(g2, P(g2, "fa"), "rail") == 2
    assert units.transport_re(g2, P(g2, "ha"), "naval") == 2


@pytest.mark.rules("OT 3A4")
def test_ot_3a4_heavy_equipment() -> None:
    g = game(
        pieces=[
            unit("ha", "heavy-artillery", "France", "0101"),
            unit("fa", "field-artillery", "France", "0102"),
            division("full", "France", "0103"),
            division("self", "France", "0104", support="self"),
            army_hq("ahq", "France", "0105"),
            unit("brig", "rifle", "France", "0106", size="brigade"),
        ]
    )
    assert units.has_he(g, P(g, "ha")) and not units.has_he(g, P(g, "fa"))
    assert units.has_he(g, P(g, "full")) and not units.has_he(g, P(g, "self"))
    assert units.has_he(g, P(g, "ahq")) and not units.has_he(g, P(g, "brig"))


@pytest.mark.rules("OT 3A5")
def test_ot_3a5_disruption_effects() -> None:
    """OT-G-12: a 4-6-5 disrupted: attack 2, defense 3, MA 2 1/2, no ZOC, no support; badly: 0, 1
    1/2, 2 1/2."""
    g = game(
        pieces=[
            division("d", "France", "0203", a=4, d=6, m=5),
            unit("b", "rifle", "France", "0203", a=2, d=3, m=5, size="brigade"),
        ]
    )
    d = P(g, "d")
    units.disrupt(g, d)
    f = units.disruption_factors(d)
    assert (
        units.printed_attack(d) * f["attack"] == 2 and units.printed_defense(d) * f["defense"] == 3
    )
    assert movement_allowance(g, d) == Fraction(5, 2)
    assert zoc.zoc_level(g, d) == zoc.NONE
    assert not units.can_support(d)
    from grognard.rulesets.greatwar.combat.artillery import is_supported

    assert not is_supported(g, P(g, "b"))
    units.disrupt(g, d)  # disrupted again: stays merely disrupted
    assert units.disruption(d) == 1
    units.disrupt(g, d, badly=True)
    f = units.disruption_factors(d)
    assert units.printed_attack(d) * f["attack"] == 0 and units.printed_defense(d) * f[
        "defense"
    ] == Fraction(3, 2)
    assert movement_allowance(g, d) == Fraction(5, 2)
    assert not units.can_use_special_effects(d)


@pytest.mark.rules("OT 3A5")
def test_ot_3a5_disruption_lasts_until_the_next_friendly_initial_phase() -> None:
    """OT-G-11: an Entente unit disrupted in the Entente player turn stays so through the CP player
    turn and recovers at the start of the next Entente initial phase."""
    g = game(
        pieces=[division("d", "France", "0203"), division("g", "Germany", "0703")],
        turns=[("Sep I 14", {}), ("Sep II 14", {}), ("Oct I 14", {})],
    )
    units.disrupt(g, P(g, "d"))
    run_to(g, "ground-movement", CP)
    assert units.disruption(P(g, "d")) == 1
    run_to(g, "exploitation-movement", CP)
    assert units.disruption(P(g, "d")) == 1
    run_to(g, "ground-movement", EN)
    assert g.turn_label() == "Sep II 14"
    assert units.disruption(P(g, "d")) == 0


# ============================================================================ 3B nations
@pytest.mark.rules("OT 3B", "OT 3B1", "OT 3B2")
def test_ot_3b_sides_of_nations() -> None:
    g = game(
        pieces=[division("d", "France", "0203")],
        nations={"France": EN, "Germany": CP, "Austria-Hungary": CP, "Serbia": EN},
    )
    assert nations.side_of_nation(g, "Germany") == CP
    assert nations.side_of_nation(g, "Austria-Hungary") == CP
    assert nations.side_of_nation(g, "France") == EN
    assert nations.side_of_nation(g, "Serbia") == EN


NEUTRAL_WEST = [f"{c:02d}{r:02d}" for c in range(1, 5) for r in range(1, 7) if c < 4 or r < 4]
BELGIUM = [f"04{r:02d}" for r in range(4, 7)]


def neutral_game(**kw: Any) -> Any:
    return game(
        pieces=[division("d", "France", "0304"), unit("bel", "rifle", "Belgium", None, side=EN)],
        nations={"France": EN, "Germany": CP, "Belgium": None},
        areas=[{"name": "belgium", "kind": "nation", "hexes": BELGIUM}],
        control={
            EN: NEUTRAL_WEST,
            CP: [f"{c:02d}{r:02d}" for c in range(5, 9) for r in range(1, 7)],
        },
        rules='neutral_territory = { Belgium = ["belgium"] }',
        **kw,
    )


@pytest.mark.rules("OT 3B3")
def test_ot_3b3_attacked_neutral_joins_the_other_side() -> None:
    g = neutral_game()
    assert g.state.alignment["Belgium"] is None
    assert nations.side_of_nation(g, "Belgium") is None
    assert nations.neutral_nation_of_hex(g, idx(g, "0404")) == "Belgium"
    assert all(g.state.control[idx(g, h)] == "neutral:Belgium" for h in BELGIUM)
    # a retreat never enters a neutral's hex (interpretation default)
    d = g.state.pieces["d"]
    without = {
        g.board.label(c.hexes[0])
        for c in retreat.retreat_step_options(g, d, idx(g, "0204"), idx(g, "0304"))
    }
    assert without and "0404" not in without
    move(g, "d", "0404")
    assert g.state.alignment["Belgium"] == CP
    assert g.state.pieces["bel"].side == CP
    assert (
        g.state.control[idx(g, "0406")] == CP
    )  # (0404 and 0405 are then gained by the French unit, OT 5B)
    assert not any(str(o).startswith("neutral:") for o in g.state.control.values())
    assert any(ev["type"] == "joins-war" for ev in g.state.log)
    assert g.ruleset.invariants(g) == []


@pytest.mark.rules("OT 3B3")
def test_ot_3b3_neutral_scenario_checks() -> None:
    bad = [
        ({"rules": 'neutral_territory = { France = ["0101"] }'}, "not neutral"),
        (
            {
                "rules": 'neutral_territory = { Belgium = ["nowhere"] }',
                "nations": {"France": EN, "Germany": CP, "Belgium": None},
            },
            "no map area",
        ),
        (
            {
                "rules": 'neutral_territory = { Belgium = ["0101"] }',
                "nations": {"France": EN, "Germany": CP, "Belgium": None},
            },
            "also owned",
        ),
        (
            {
                "pieces": [unit("bel", "rifle", "Belgium", "0101", side=EN)],
                "nations": {"France": EN, "Germany": CP, "Belgium": None},
            },
            "stay off the map",
        ),
    ]
    for kw, text in bad:
        with pytest.raises(ScenarioError) as e:
            load(**kw)
        assert text in str(e.value), (kw, str(e.value))


@pytest.mark.rules("OT 3B4")
def test_ot_3b4_power_classes_and_demotion() -> None:
    g = game(nations={"France": EN, "Germany": CP, "Serbia": EN, "Italy": EN})
    assert nations.power_class(g, "France") == "great"
    assert nations.power_class(g, "Italy") == "major"
    assert nations.power_class(g, "Serbia") == "minor"
    nations.demote_power(g, "France")
    assert nations.power_class(g, "France") == "minor"


@pytest.mark.rules("OT 3B5")
def test_ot_3b5_contingents_are_one_nationality() -> None:
    g = game(
        nations={"France": EN, "Austria-Hungary": CP, "Germany": CP},
        pieces=[
            unit("a", "rifle", "Austria-Hungary", "0601", contingent="Hungarian"),
            unit("b", "rifle", "Austria-Hungary", "0602", contingent="Austrian"),
        ],
    )
    assert (
        nations.nationality(g, P(g, "a")) == nations.nationality(g, P(g, "b")) == "Austria-Hungary"
    )
    assert "Hungarian" in nations.contingents(g, "Austria-Hungary")


# ============================================================================ 3C mechanics
@pytest.mark.rules("OT 3C1")
def test_ot_3c1_fractions_are_kept() -> None:
    """OT-G-1: half of 7 is 3 1/2."""
    assert mechanics.apply_multipliers(7, [Fraction(1, 2)]) == Fraction(7, 2)
    assert mechanics.keep("7/2") == Fraction(7, 2)


@pytest.mark.rules("OT 3C2")
def test_ot_3c2_effects_are_cumulative() -> None:
    """OT-G-2: halved twice is quartered."""
    assert mechanics.apply_multipliers(9, [Fraction(1, 2), Fraction(1, 2)]) == Fraction(9, 4)


@pytest.mark.rules("OT 3C3")
def test_ot_3c3_modified_rolls_are_clamped() -> None:
    """OT-G-3: a modified 7 on a 1-6 table reads as 6; a modified 0 reads as 1."""
    g = game()
    hi = mechanics.table_roll(
        g, "gst", "standard", "test", "OT 3C3", Modifiers().add(6, "OT 3C3", "big")
    )
    assert hi.row == 6 and hi.clamped
    lo = mechanics.table_roll(
        g, "gst", "standard", "test", "OT 3C3", Modifiers().add(-6, "OT 3C3", "small")
    )
    assert lo.row == 1
    assert mechanics.clamp_roll(7, 1, 6) == 6 and mechanics.clamp_roll(0, 1, 6) == 1


@pytest.mark.rules("OT 3C4")
def test_ot_3c4_allowances_do_not_accumulate() -> None:
    """OT-G-4: 15 RE per turn unused in turn T is still 15 (not 30) in turn T+1."""
    g = game(pieces=[division("d", "France", "0101")])
    assert mechanics.allowance_left(g, "rail", 15, period="T") == 15
    mechanics.use_allowance(g, "rail", 5, 15, period="T")
    assert mechanics.allowance_left(g, "rail", 15, period="T") == 10
    assert mechanics.allowance_left(g, "rail", 15, period="T+1") == 15
    with pytest.raises(ValueError):
        mechanics.use_allowance(g, "rail", 11, 15, period="T")
    # the rail ledger starts afresh each player turn of its owner
    rail.ledger(g, rail.ALL_NET, EN)["used"] = Fraction(3)
    rail.new_player_turn(g, EN)
    assert rail.ledger(g, rail.ALL_NET, EN)["used"] == 0


# ============================================================================ 3D markers
@pytest.mark.rules("OT 3D")
def test_ot_3d_markers_are_state_not_units() -> None:
    g = game(pieces=[division("d", "France", "0101")])
    mechanics.set_marker(g, "rail-break", idx(g, "0202"), True)
    assert mechanics.marker(g, "rail-break", idx(g, "0202"))
    mechanics.set_marker(g, "rail-break", idx(g, "0202"), None)
    assert not mechanics.marker(g, "rail-break", idx(g, "0202"))
    with pytest.raises(KeyError):
        mechanics.set_marker(g, "flag-of-victory", 1, True)
    assert all(not units.is_unit(p) for p in g.state.pieces.values() if units.utype(p).logistics)


# ============================================================================ 3E geography
@pytest.mark.rules("OT 3E1")
def test_ot_3e1_terrain_of_hexes() -> None:
    from grognard.rulesets.greatwar.map import terrain

    g = game(rows=["cmf", "wrs"])
    assert terrain.terrain(g, idx(g, "0201")) == "mountain"
    assert terrain.terrain(g, idx(g, "0302")) == "swamp"


@pytest.mark.rules("OT 3E2")
def test_ot_3e2_cities_major_and_multi_hex() -> None:
    g = game(
        places=[
            ("0202", "partial-city", "A"),
            ("0203", "full-city", "A2"),
            ("0505", "point-city", "B"),
            ("0606", "fortress", "F"),
            ("0705", "resource-center", "R"),
        ]
    )
    assert geography.is_major_city_hex(g, idx(g, "0202"))
    assert not geography.is_major_city_hex(g, idx(g, "0505"))
    assert (
        geography.is_city(g, idx(g, "0505"))
        and geography.is_city(g, idx(g, "0606"))
        and geography.is_city(g, idx(g, "0705"))
    )
    assert geography.multi_hex_city(g, idx(g, "0202")) == frozenset(
        {idx(g, "0202"), idx(g, "0203")}
    )
    assert len(geography.major_cities(g)) == 1


@pytest.mark.rules("OT 3E3", "OT 3E4")
def test_ot_3e3_3e4_districts_and_islands() -> None:
    g = game(
        rows=["cxcc", "cxcc"],
        areas=[
            {"name": "Austria", "kind": "district", "hexes": ["0101", "0102", "0301"]},
            {"name": "Hungary", "kind": "district", "hexes": ["0302", "0401", "0402"]},
        ],
    )
    assert geography.district_of(g, idx(g, "0102")) == "Austria"
    assert (
        geography.district_of(g, idx(g, "0301")) == "Austria"
    )  # an island across the strait, listed with Austria
    assert geography.district_of(g, idx(g, "0402")) == "Hungary"


@pytest.mark.rules("OT 3E5")
def test_ot_3e5_adjacency_not_across_prohibited_hexsides() -> None:
    g = game(hexsides=[("sea", ["0202/0302"]), ("river", ["0203/0303"])])
    assert not geography.adjacent(g, idx(g, "0202"), idx(g, "0302"))
    assert geography.adjacent(g, idx(g, "0203"), idx(g, "0303"))
    assert not geography.adjacent(g, idx(g, "0202"), idx(g, "0505"))


@pytest.mark.rules("OT 3E6")
def test_ot_3e6_weather_zones_arctic_and_desert() -> None:
    g = game(
        rows=["cccc"],
        areas=[
            {"name": "A", "kind": "weather-zone", "hexes": ["0101"]},
            {"name": "F", "kind": "weather-zone", "hexes": ["0201"]},
            {"name": "G", "kind": "weather-zone", "hexes": ["0301"]},
            {"name": "B", "kind": "weather-zone", "hexes": ["0401"]},
        ],
        turns=[("Jan I 15", {"weather": {"A": "snow", "default": "mud"}, "frozen": ["A"]})],
    )
    assert (
        weather.is_arctic(g, idx(g, "0101"))
        and weather.is_desert(g, idx(g, "0201"))
        and weather.is_desert(g, idx(g, "0301"))
    )
    assert not weather.is_arctic(g, idx(g, "0401")) and not weather.is_desert(g, idx(g, "0401"))
    assert (
        weather.weather_at(g, idx(g, "0101")) == "snow"
        and weather.weather_at(g, idx(g, "0401")) == "mud"
    )
    assert weather.frozen_at(g, idx(g, "0101")) and not weather.frozen_at(g, idx(g, "0401"))


@pytest.mark.rules("OT 3E6")
def test_ot_3e6_the_weather_by_zone_shown_to_players_is_each_zones_weather() -> None:
    """The view's weather table names every zone of the map (and "-" for hexes in none) with
    the weather in force there this turn, zones in the order of their first hex."""
    g = game(
        rows=["cccc"],
        areas=[
            {"name": "B", "kind": "weather-zone", "hexes": ["0201"]},
            {"name": "A", "kind": "weather-zone", "hexes": ["0301", "0401"]},
        ],
        turns=[("Jan I 15", {"weather": {"A": "snow", "default": "mud"}})],
    )
    assert weather.weather_by_zone(g) == {"-": "mud", "B": "mud", "A": "snow"}
    first = [weather.weather_zone(g, i) or "-" for i in range(g.board.n)]
    assert list(weather.weather_by_zone(g)) == list(dict.fromkeys(first))
    assert g.view("Blue")["weather"] == {"-": "mud", "B": "mud", "A": "snow"}


@pytest.mark.rules("OT 3E")
def test_ot_3e_hexes_are_named_map_and_number() -> None:
    """OT-G-5: hexes are identified as map:hex (GW2:0619 on map GW2)."""
    from grognard.scenario import load_scenario_text

    from .helpers import scenario_text

    text = scenario_text().replace('name = "T"', 'name = "GW2"')
    text = text.replace("[maps]]\n", "[maps]]\n", 1)
    text += (
        '[[maps]]\nname = "WS"\ncols = [7, 8]\nrows = [73, 74]\norigin = [20, 40]\ndefault_terrain'
        ' = "clear"\n'
    )
    text = text.replace('"0101"', '"GW2:0101"')
    text = _qualify(text)
    sc = load_scenario_text(text, "<t>")
    assert sc.board.has_label("GW2:0103") and sc.board.has_label("WS:0773")
    assert sc.board.label(sc.board.idx("WS:0773")) == "WS:0773"


def _qualify(text: str) -> str:
    import re

    head, _, rest = text.partition("[control.hexes]")
    rest = re.sub(r'"(\d{4})"', r'"GW2:\1"', rest)
    return head + "[control.hexes]" + rest


# ============================================================================ 3F commands
@pytest.mark.rules("OT 3F")
def test_ot_3f_no_voluntary_entry_outside_controlled_commands() -> None:
    cols = [f"{c:02d}{r:02d}" for c in range(1, 5) for r in range(1, 7)]
    other = [f"{c:02d}{r:02d}" for c in range(5, 9) for r in range(1, 7)]
    g = game(
        pieces=[division("d", "France", "0403")],
        areas=[
            {
                "name": "France/West Germany",
                "kind": "command",
                "hexes": cols,
                "attrs": {"theater": "West"},
            },
            {"name": "Italy/West Austria", "kind": "command", "hexes": other},
        ],
        rules=(
            'commands = { Entente = ["France/West Germany"], "Central Powers" = ["France/West'
            ' Germany", "Italy/West Austria"] }'
        ),
        control={EN: cols + other},
    )
    from grognard.core.errors import IllegalAction

    with pytest.raises(IllegalAction) as e:
        move(g, "d", "0503")
    assert e.value.rule == "OT 3F"
    assert nations.theater_of(g, idx(g, "0403")) == "West"
    assert nations.theater_of(g, idx(g, "0603")) == "West"  # from the rulebook's theater list
    assert nations.controlled_commands(g, CP) == {"France/West Germany", "Italy/West Austria"}


# ============================================================================ 3G isolation
@pytest.mark.rules("OT 3G")
def test_ot_3g_isolation_needs_a_line_to_a_regular_source() -> None:
    net = {"name": "rail", "kind": "rail", "paths": [["0101", "0201", "0301"]]}
    places = [
        ("0101", "partial-city", "A"),
        ("0301", "partial-city", "B"),
        ("0801", "partial-city", "C"),
        ("0806", "partial-city", "D"),
    ]
    cp_net = {
        "name": "rail2",
        "kind": "rail",
        "paths": [["0801", "0802", "0803", "0804", "0805", "0806"]],
    }
    g = game(
        places=places,
        networks=[net, cp_net],
        pieces=[
            division("safe", "France", "0203"),
            division("cut", "France", "0505"),
            division("g1", "Germany", "0604"),
            division("g2", "Germany", "0605"),
            division("g3", "Germany", "0405"),
        ],
    )
    isolation.check_isolation(g, "test")
    assert not supply_status.is_isolated(g, EN, idx(g, "0203"))
    # 0505 is wrapped in German ZOCs on every side that leads home
    assert supply_status.is_isolated(g, EN, idx(g, "0505"))
    g.state.move("g3", Loc.box("eliminated"))
    isolation.check_isolation(g, "test")
    assert not supply_status.is_isolated(g, EN, idx(g, "0505"))
    # isolation holds until the next check
    g.state.move("g3", Loc.hex(idx(g, "0405")))
    assert not supply_status.is_isolated(g, EN, idx(g, "0505"))


@pytest.mark.rules("OT 3G")
def test_ot_3g_no_sources_means_isolated() -> None:
    g = game(pieces=[division("d", "France", "0203")])
    isolation.check_isolation(g, "test")
    assert supply_status.is_isolated(g, EN, idx(g, "0203"))
    end(g)
