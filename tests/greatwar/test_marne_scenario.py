"""The scenario Marne 1914 (``marne-1914``): it validates, its map and orders of battle load as
written, and the rule code reads them as intended (cities, fortresses, rivers, rail nets, commands,
stacking, RE sizes, ownership, victory points)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from functools import cache

import pytest

from grognard.core.game import Game
from grognard.rulesets.greatwar.map import geography
from grognard.rulesets.greatwar.movement import rail, stacking
from grognard.rulesets.greatwar.sequence import victory
from grognard.rulesets.greatwar.units import nations, units
from grognard.scenario import find

EN = "Entente"
CP = "Central Powers"


@cache
def scenario():  # type: ignore[no-untyped-def]
    return find("marne-1914")


def new_game(seed: int = 1) -> Game:
    return Game.new(scenario(), seed=seed)


@cache
def start() -> Game:
    """One game at the start of the Entente's first initial phase (shared by read-only tests)."""
    return new_game()


def hx(g: Game, label: str) -> int:
    return g.board.idx(label)


def named(g: Game, name: str) -> int:
    i = geography.place_named(g, name)
    assert i is not None, name
    return i


def test_marne_validates_with_the_cli() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "grognard.cli", "validate", scenario().source_name],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ok (marne-1914, greatwar, 600 hexes" in out.stdout


def test_marne_map_is_30_by_20_at_16_miles_with_flat_topped_columns() -> None:
    sheet = scenario().data.maps[0]
    assert (sheet.cols, sheet.rows) == ((1, 30), (1, 20))
    assert sheet.miles_per_hex == 16 and sheet.orientation == "columns"
    g = start()
    assert g.board.n == 600
    assert g.board.label(named(g, "Paris")) == "1410"
    assert rail.rail_hexes(g) and len(g.board.networks) > 40


@pytest.mark.rules("OT 3E2")
def test_marne_paris_is_a_four_hex_city_and_the_fortresses_are_placed() -> None:
    g = start()
    paris = geography.multi_hex_city(g, named(g, "Paris"))
    assert {g.board.label(i) for i in paris} == {"1410", "1310", "1510", "1411"}
    kinds = {pt.kind for i in paris for pt in g.board.points_at(i)}
    assert {"full-city", "partial-city", "fortress", "capital"} <= kinds
    states = {
        pt.name: pt.attrs.get("state")
        for i in range(g.board.n)
        for pt in g.board.points_at(i)
        if pt.kind == "fortress"
    }
    for name in ("Verdun", "Toul", "Reims", "Maubeuge", "La Fere", "Laon", "Paris", "Dunkirk"):
        assert states[name] == "unimproved", name
    assert states["Metz"] == "improved" and states["Thionville"] == "improved"
    assert all(geography.is_city(g, named(g, n)) for n in ("Verdun", "La Fere", "Douai"))
    # Maubeuge fell on 7 September: the fortress starts in German hands, Reims too (taken on 4
    # September)
    assert g.state.control[named(g, "Maubeuge")] == CP and g.state.control[named(g, "Reims")] == CP


def test_marne_rivers_are_hexside_features_of_their_kinds() -> None:
    g = start()
    per_river: dict[str, set[str]] = {}
    for s in range(g.board.m):
        for f in g.board.side_feature_list(s):
            if f in ("river", "minor-river", "major-river", "canal"):
                per_river.setdefault(f, set()).add(
                    str(g.board.side_attrs.get(s, {}).get("name", ""))
                )
    assert {"river", "minor-river", "major-river", "canal"} <= set(per_river)
    assert {"Marne", "Aisne", "Meuse"} <= per_river["river"] and "Ourcq" in per_river["minor-river"]
    written = {h.attrs["name"]: h.feature for h in scenario().data.hexsides}
    for river in ("Marne", "Aisne", "Oise", "Somme", "Meuse", "Scheldt", "Aube", "Vesle"):
        assert river in written, river
    assert written["Marne"] == "river" and written["Seine (lower)"] == "major-river"
    assert written["Petit Morin"] == written["Grand Morin"] == written["Ourcq"] == "minor-river"
    marne = next(h for h in scenario().data.hexsides if h.attrs["name"] == "Marne")
    assert len(marne.sides) >= 15
    # the Marne runs between Chateau-Thierry and the Montagne de Reims side of the river
    sides = {tuple(sorted(s.split("/"))) for s in marne.sides}
    assert ("1709", "1710") in sides or ("1710", "1809") in sides


@pytest.mark.rules("OT 7A1", "OT 7A5")
def test_marne_rail_nets_yards_and_connections() -> None:
    g = start()
    assert rail.net_names(g) == ["NW Europe Standard Gauge", "NE Europe Standard Gauge"]
    paris, verdun, metz, brussels = (named(g, n) for n in ("Paris", "Verdun", "Metz", "Brussels"))
    assert rail.is_yard(g, paris) and rail.is_yard(g, verdun)
    assert rail.nets_of_hex(g, paris) == ["NW Europe Standard Gauge"]
    assert rail.nets_of_hex(g, metz) == ["NE Europe Standard Gauge"]
    assert rail.rail_connected(g, EN, paris, verdun)
    assert rail.rail_connected(g, CP, brussels, metz)
    assert not rail.rail_connected(g, EN, paris, metz)
    assert rail.ledger(g, "NE Europe Standard Gauge", EN)["capacity"] == 0


@pytest.mark.rules("OT 3F")
def test_marne_lorraine_is_out_of_play_and_toul_in_play() -> None:
    g = start()
    nancy, toul, metz = named(g, "Nancy"), named(g, "Toul"), named(g, "Metz")
    for side in (EN, CP):
        assert not nations.may_enter_command(g, side, nancy)
        assert nations.may_enter_command(g, side, toul)
        assert nations.may_enter_command(g, side, metz)
    assert nations.command_of(g, nancy) == "Lorraine front"


@pytest.mark.rules("OT 3B3")
def test_marne_switzerland_and_dutch_limburg_are_neutral() -> None:
    g = start()
    owners = Counter(str(v) for v in g.state.control.values())
    assert owners["neutral:Switzerland"] == 10 and owners["neutral:Netherlands"] == 2
    assert g.state.alignment.get("Switzerland", "missing") is None


def _hqs(g: Game, tag: str, side: str) -> set[str]:
    return {
        p.name
        for p in g.state.pieces.values()
        if tag in units.utype(p).tags and p.side == side and p.loc.kind == "hex"
    }


def test_marne_orders_of_battle_armies_and_corps() -> None:
    g = start()
    german_armies = _hqs(g, "army-hq", CP)
    assert (
        len(german_armies) == 5
        and any("Kluck" in n for n in german_armies)
        and any("Crown Prince Wilhelm" in n for n in german_armies)
    )
    entente_armies = _hqs(g, "army-hq", EN)
    for who in ("Maunoury", "Foch", "Franchet", "Langle", "Sarrail", "BEF"):
        assert any(who in n for n in entente_armies), who
    german_corps = _hqs(g, "corps-hq", CP)
    assert {
        "I Cavalry Corps (HKK 1, von Richthofen)",
        "II Cavalry Corps (HKK 2, von der Marwitz)",
    } <= german_corps
    assert len(german_corps) == 24
    entente_corps = _hqs(g, "corps-hq", EN)
    assert {
        "Cavalry Corps HQs (Sordet)",
        "Cavalry Corps HQs (Conneau)",
        "I Corps HQs (Haig)",
        "II Corps HQs (Smith-Dorrien)",
        "III Corps HQs (Pulteney)",
    } <= entente_corps
    divisions = Counter((p.side, units.size_category(p)) for p in units.on_map_units(g))
    assert (
        divisions[(CP, "divisional")] == 51 and divisions[(EN, "divisional")] == 69 + 2
    )  # with IV Corps, arrived in Paris
    assert {p.nation for p in units.on_map_units(g, EN)} == {"France", "Britain"}


@pytest.mark.rules("OT 3A3")
def test_marne_re_sizes_follow_the_support_indicators() -> None:
    g = start()
    p = g.state.pieces
    assert units.re_size(g, p["de-3id"]) == 5  # German active division, fully supported
    assert units.re_size(g, p["de-7rd"]) == 4  # reserve division, self-supported
    assert units.re_size(g, p["fr-83dt"]) == 3  # territorial division, unsupported
    assert units.re_size(g, p["gb-19b"]) == 2  # brigade
    assert (
        units.re_size(g, p["de-1a-art"]) == 1 and units.transport_re(g, p["de-1a-art"], "rail") == 2
    )
    assert units.re_size(g, p["de-1a"]) == 3 and units.re_size(g, p["de-4rk"]) == 1


@pytest.mark.rules("OT 8A1")
def test_marne_starting_stacks_are_within_the_limits() -> None:
    g = start()
    assert stacking.violations(g) == []
    per_hex = Counter(
        units.hex_of(g, q) for q in units.on_map_units(g) if not stacking.exempt(g, q)
    )
    assert max(per_hex.values()) <= 7  # six units plus at most a fortress or an artillery regiment


def test_marne_units_start_in_hexes_their_side_owns() -> None:
    g = start()
    for p in units.on_map_units(g):
        h = units.hex_of(g, p)
        assert h is not None and g.state.control.get(h) == p.side, (
            p.id,
            g.board.label(h) if h is not None else None,
        )
        assert nations.may_enter_command(g, p.side, h), p.id


@pytest.mark.rules("OT 16A1")
def test_marne_reinforcements_wait_off_the_map_until_their_turn() -> None:
    g = start()
    waiting = {p.id for p in g.state.pieces.values() if p.loc.kind == "none"}
    assert {
        "de-13rd",
        "de-14rd",
        "de-30id",
        "gb-6d",
        "be-1d",
        "in-lahore",
        "fr-13di",
        "fr-29di",
    } <= waiting
    # IV Corps detrains in Paris in the Entente's first initial phase; XXI and XV Corps arrive by
    # rail
    # from the Lorraine front and the Entente places them among their entry hexes
    paris = g.board.idx("1410")
    assert all(
        units.hex_of(g, g.state.pieces[pid]) == paris for pid in ("fr-4ca", "fr-7di", "fr-8di")
    )
    assert g.state.frames[-1].step == "reinforcement"
    places = [a for a in g.legal_actions(EN) if a["type"] == "place"]
    assert {a["piece"] for a in places} == {
        "fr-21ca",
        "fr-13di",
        "fr-43di",
        "fr-15ca",
        "fr-29di",
        "fr-30di",
    }
    assert {a["hex"] for a in places if a["piece"] == "fr-13di"} == {"2211", "2312", "2113"}
    entries = {(e.turn, e.kind) for e in scenario().data.schedule}
    assert (
        ("Sep II 14", "receive") in entries
        and ("Oct II 14", "arrive") in entries
        and ("Nov II 14", "withdraw") in entries
    )
    assert ("Sep I 14", "production") in entries and len(scenario().data.schedule) == 20


def test_marne_victory_points_at_the_start() -> None:
    g = start()
    assert victory.points(g) == {EN: 32, CP: 18}
    assert victory.model(g).margin == 10
    sd = {s.side: s.hexes for s in victory.model(g).sudden_death}
    assert sd[CP] == ["1410"] and len(sd[EN]) == 3


def test_marne_turn_track_and_weather() -> None:
    turns = scenario().data.turns
    assert [t.label for t in turns] == [
        "Sep I 14",
        "Sep II 14",
        "Oct I 14",
        "Oct II 14",
        "Nov I 14",
        "Nov II 14",
    ]
    assert turns[0].attrs["weather"] == "clear" and turns[4].attrs["weather"] == "mud"
    zones = {a.name for a in scenario().board.areas.values() if a.kind == "weather-zone"}
    assert zones == {"B", "C"}
