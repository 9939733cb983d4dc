"""The Western Front 1914 scenario (``lgg-west-1914``): loading, validation, its data read
through the rule code, and a first-turn walkthrough (pre-turn, August reinforcements, the
initiative and the attack obligations of Plan XVII).

Every fact asserted here is scenario data the rule system reads (the seed prints no map, order of
battle or victory conditions); the tests check the data reaches the rules as documented in
``docs/rulesets/lgg1418.md`` ("Western Front 1914").
"""

from __future__ import annotations

from functools import cache

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.game import Game
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import fronts, mapdata, victory
from grognard.rulesets.lgg1418.military import campaign, reinforcement
from grognard.rulesets.lgg1418.supply import supply
from grognard.rulesets.lgg1418.units import counters, doctrine
from grognard.scenario import find, load_scenario_text
from grognard.scenario.loader import ScenarioError
from grognard.scenario.model import Scenario

from .helpers import CP, EN

SCENARIO = "lgg-west-1914"


@cache
def west() -> Scenario:
    return find(SCENARIO)


def new_game(seed: int = 1) -> Game:
    return Game.new(west(), seed=seed)


def hx(g: Game, label: str) -> int:
    return g.board.idx(label)


def _text_from_disk() -> str:
    from pathlib import Path

    import grognard.scenarios as pkg

    return (Path(pkg.__file__).parent / "lgg1418" / "west-1914.toml").read_text(encoding="utf-8")


# ====================================================================== loading and the map
@pytest.mark.rules("LGG 1-A", "LGG 1-B")
def test_lgg_1a_west_1914_loads_with_its_map_and_terrain() -> None:
    sc = west()
    assert sc.id == SCENARIO and sc.data.scenario.ruleset == "lgg1418"
    sheet = sc.data.maps[0]
    assert (sheet.cols, sheet.rows) == ((1, 25), (1, 17)) and sheet.miles_per_hex == pytest.approx(
        18.6
    )
    g = new_game()
    terrains = {g.board.terrain_of(i) for i in range(g.board.n)}
    assert terrains >= {"plains", "floodable", "forest", "marsh", "mountain", "sea"}
    # the Ardennes and the Eifel are forest, the Vosges mountain, the Yser plain floodable
    assert g.board.terrain_of(hx(g, "1607")) == "forest"  # Libramont
    assert g.board.terrain_of(hx(g, "1907")) == "forest"  # Gerolstein
    assert g.board.terrain_of(hx(g, "2013")) == "mountain"  # Saint-Dié
    assert g.board.terrain_of(hx(g, "1511")) == "forest"  # the Argonne
    assert g.board.terrain_of(hx(g, "0904")) == "floodable"  # Ypres and the Yser
    assert not mapdata.terrain_info(g, hx(g, "0109")).impassable  # Le Havre is land
    assert mapdata.hex_impassable(g, hx(g, "0404"))  # the Channel


@pytest.mark.rules("LGG 1-A", "LGG 8-C")
def test_lgg_1a_west_1914_rivers_on_hexsides() -> None:
    g = new_game()

    def sides(label: str) -> set[str]:
        i = hx(g, label)
        return {f.name for j in g.board.neighbors(i) for f in mapdata.hexside_features(g, i, j)}

    assert "large_river" in sides("1605")  # the Meuse at Liège
    assert "large_river" in sides("0712")  # the Seine at Paris
    assert "large_river" in sides("2004")  # the Rhine at Cologne
    assert "large_river" in sides("1303")  # the Scheldt at Antwerp
    assert "river" in sides("1610")  # the Meuse at Verdun
    assert "river" in sides("1810")  # the Moselle at Metz
    assert "river" in sides("1306")  # the Sambre at Charleroi
    assert "river" in sides("0708")  # the Somme at Amiens
    assert "river" in sides("1009")  # the Aisne at Soissons
    assert "river" in sides("1311")  # the Marne at Châlons
    assert "river" in sides("0904")  # the Yser at Ypres
    assert "canal" in sides("1205")  # the Mons-Condé canal
    names = set(g.board.feature_names)
    assert {"river", "large_river", "stream", "canal"} <= names


@pytest.mark.rules("LGG [11.1-A]", "LGG 9-H", "LGG 3-A")
def test_lgg_11_1a_west_1914_countries_neutrals_and_luxembourg() -> None:
    g = new_game()
    for label in ("1704", "1201", "2017", "2417"):  # Maastricht, Zeeland, Ajoie, Aargau
        assert mapdata.is_neutral_hex(g, hx(g, label)), label
    assert (
        mapdata.country_of(g, hx(g, "1704")) == "NL"
        and mapdata.country_of(g, hx(g, "2017")) == "CH"
    )
    # Luxembourg, occupied on 2 August 1914, is German-held ground
    assert mapdata.country_of(g, hx(g, "1808")) == "LU" and M.nation_side(g, "LU") == CP
    assert mapdata.controller(g, hx(g, "1808")) == CP
    assert not mapdata.is_neutral_hex(g, hx(g, "1808"))
    # the 1871 frontier: Metz and Strasbourg are German, Nancy and Belfort French
    assert (
        mapdata.country_of(g, hx(g, "1810")) == "DE"
        and mapdata.country_of(g, hx(g, "2212")) == "DE"
    )
    assert mapdata.controller(g, hx(g, "1812")) == EN and mapdata.controller(g, hx(g, "2016")) == EN
    assert mapdata.controller(g, hx(g, "1304")) == EN  # Brussels


@pytest.mark.rules("LGG 1-B", "LGG 9-A")
def test_lgg_1b_west_1914_cities_capitals_ports_and_sources() -> None:
    g = new_game()
    paris, brussels = hx(g, "0712"), hx(g, "1304")
    assert mapdata.is_capital(g, paris) and mapdata.vn_value(g, paris) == 10
    assert mapdata.place_name(g, brussels) == "Bruxelles"
    assert not mapdata.is_capital(
        g, brussels
    )  # a minor country's capital is no major capital (1-B)
    assert mapdata.vn_value(g, hx(g, "1605")) == 0  # VN ignored for minor countries (errata)
    star = {
        mapdata.place_name(g, i)
        for i in g.board.points
        if any(pt.attrs.get("vn_kind") == "objective" for pt in mapdata.points(g, i, "city"))
    }
    assert {"Paris", "Lille", "Verdun", "Nancy", "Reims", "Metz", "Strassburg"} <= star
    ports = {
        mapdata.place_name(g, i): mapdata.port_size(g, i)
        for i in g.board.points
        if mapdata.port_size(g, i)
    }
    assert (
        ports["Anvers"] == "major" and ports["Dunkerque"] == "major" and ports["Calais"] == "major"
    )
    assert ports["Le Havre"] == "major" and ports["Ostende"] == "minor"
    assert (
        mapdata.port_sea(g, hx(g, "0109")) == "Channel"
        and mapdata.port_sea(g, hx(g, "1303")) == "North Sea"
    )
    sources, _minor = supply.supply_sources(g, EN)
    assert {paris, hx(g, "0109"), hx(g, "0905")} <= sources  # the capital, Le Havre, Lille
    cp_sources, _ = supply.supply_sources(g, CP)
    assert {hx(g, "2004"), hx(g, "1810"), hx(g, "2212")} <= cp_sources  # Cologne, Metz, Strasbourg


@pytest.mark.rules("LGG 9-D", "LGG 11.4-C")
def test_lgg_9d_west_1914_rail_sections_of_limited_capacity() -> None:
    g = new_game()

    def cap(a: str, b: str) -> float | None:
        for j, attrs in mapdata.rail_links(g, hx(g, a)):
            if j == hx(g, b):
                return attrs.get("capacity")
        raise AssertionError(f"no railway between {a} and {b}")

    assert cap("1804", "1805") == 1  # the Vennbahn out of Aachen
    assert cap("2004", "2005") == 2  # the Eifel line out of Cologne
    assert cap("1511", "1610") == 2  # Sainte-Menehould - Verdun
    assert cap("1405", "1406") == 1  # the Meuse valley Namur - Dinant
    assert cap("1804", "1705") is None  # Aachen - Verviers - Liège: the main line
    assert mapdata.is_rail_hex(g, hx(g, "0712")) and mapdata.is_rail_hex(g, hx(g, "1304"))


@pytest.mark.rules("LGG 7-A", "LGG 6-A", "LGG 36.6")
def test_lgg_7a_west_1914_climate_sector_and_doctrines() -> None:
    g = new_game()
    assert mapdata.climate_zone(g, hx(g, "0712")) == "temperate"
    assert mapdata.climate_zone(g, hx(g, "2212")) == "temperate"  # Strasbourg, left bank
    assert mapdata.climate_zone(g, hx(g, "2411")) == "continental"  # Karlsruhe, right bank
    assert set(mapdata.zones_on_map(g)) == {"temperate", "continental"}
    for label in ("0712", "1605", "2212", "0904"):
        assert fronts.sectors_of(g, hx(g, label)) == ["French"]
        assert fronts.fronts_of(g, hx(g, label)) == [M.WEST]
    for nation in ("DE", "FR", "GB", "BE"):
        assert doctrine.doctrine(g, nation, M.WEST) == "movement"
    assert doctrine.doctrine_country(g, "BE") == "GB"


# ====================================================================== order of battle
@pytest.mark.rules("LGG 2-A", "LGG 2-B", "LGG 23-B")
def test_lgg_2a_west_1914_fortresses_and_garrisons() -> None:
    g = new_game()
    forts = {p.id: p for p in g.state.pieces.values() if p.type == "fortress"}
    where = {fid: g.board.label(M.hex_of(g, p)) for fid, p in forts.items()}  # type: ignore[arg-type]
    expected = {
        "BE-Liege": "1605",
        "BE-Namur": "1405",
        "BE-Anvers": "1303",
        "FR-Maubeuge": "1206",
        "FR-Verdun": "1610",
        "FR-Toul": "1712",
        "FR-Epinal": "1914",
        "FR-Belfort": "2016",
        "DE-Metz": "1810",
        "DE-Strassburg": "2212",
    }
    for fid, lab in expected.items():
        assert where[fid] == lab, fid
    for fid in forts:
        inside = [q for q in g.state.contents(fid) if M.is_garrison(q)]
        assert len(inside) == 1 and M.garrison_in_fortress(g, inside[0]), fid
    assert forts["BE-Liege"].attrs.get("spends_no_munitions") and forts["BE-Anvers"].attrs.get(
        "coastal"
    )
    assert (
        forts["FR-Maubeuge"].attrs["size"] == "small" and forts["DE-Metz"].attrs["size"] == "large"
    )


@pytest.mark.rules("LGG 2-B", "LGG 10-C", "LGG 11.3")
def test_lgg_2b_west_1914_armies_generals_and_ghqs() -> None:
    g = new_game()
    generals = {a: counters.army_general(g, a).name for a in M.army_defs(g)}  # type: ignore[union-attr]
    assert generals == {
        "DE-1": "von Kluck",
        "DE-2": "von Bülow",
        "DE-3": "von Hausen",
        "DE-4": "Herzog Albrecht",
        "DE-5": "Kronprinz Wilhelm",
        "DE-6": "Kronprinz Rupprecht",
        "DE-7": "von Heeringen",
        "FR-1": "Dubail",
        "FR-2": "de Castelnau",
        "FR-3": "Ruffey",
        "FR-4": "de Langle de Cary",
        "FR-5": "Lanrezac",
        "FR-6": "Maunoury",
        "FR-9": "Foch",
        "GB-BEF": "Sir John French",
        "BE-A": "Albert Ier",
    }
    assert M.general_with(g, M.ghq_piece(g, "DE")).name == "von Moltke"  # type: ignore[arg-type,union-attr]
    assert M.general_with(g, M.ghq_piece(g, "FR")).name == "Joffre"  # type: ignore[arg-type,union-attr]
    assert M.ghq_piece(g, "GB") is not None and M.on_map(g, M.ghq_piece(g, "GB"))  # type: ignore[arg-type]
    corps_on_map = {
        a: [p for p in counters.army_units(g, a) if M.is_corps(p) and M.on_map(g, p)]
        for a in M.army_defs(g)
    }
    assert {a: len(v) for a, v in corps_on_map.items() if a.startswith("DE")} == {
        "DE-1": 7,
        "DE-2": 6,
        "DE-3": 5,
        "DE-4": 6,
        "DE-5": 5,
        "DE-6": 6,
        "DE-7": 3,
    }
    assert len(corps_on_map["BE-A"]) == 7  # a minor country's HQ commands all its units (2-B)
    # Maunoury and Foch command armies that form in September 1914
    assert not M.army_formed(g, "FR-6") and not M.army_formed(g, "FR-9")
    for a in M.army_defs(g):
        if M.army_formed(g, a) and M.is_major(g, M.army_nation(g, a)):
            limit = counters.command_limit(g, a)
            assert limit is not None and len(counters.attached_corps(g, a)) <= limit, a


@pytest.mark.rules("LGG 2-A", "LGG 2-B", "LGG 16.4-C")
def test_lgg_2b_west_1914_value_strings_of_the_seed() -> None:
    g = new_game()
    codes = {p.id: p.attrs.get("code") for p in g.state.pieces.values() if M.is_corps(p)}
    bef = {pid for pid, c in codes.items() if pid.startswith("GB-") and c in ("83-9-4", "3-3-6")}
    assert bef == {
        "GB-I",
        "GB-II",
        "GB-Cav",
    }  # the two 83-9-4 infantry and the 3-3-6 cavalry of 16.4-C
    reserve_corps = [
        "DE-1-IIIR",
        "DE-1-IVR",
        "DE-2-GR",
        "DE-2-XR",
        "DE-3-XIIR",
        "DE-4-VIIIR",
        "DE-4-XVIIIR",
        "DE-5-VR",
        "DE-5-VIR",
        "DE-6-IBR",
        "DE-IXR",
    ]
    assert {codes[pid] for pid in reserve_corps} == {"63-7-4"}
    for pid, army in (("DE-VIIR", "DE-2"), ("DE-XIVR", "DE-7")):
        p = g.state.pieces[pid]
        assert p.face == "reduced" and p.attrs["code"] == "63-7-4" and p.attrs["attached"] == army
    # not counted toward the command limit in August 1914, counted afterwards (2-B)
    M.st(g)["turn_id"] = "1914-08"
    assert not counters.counts_against_command_limit(g, g.state.pieces["DE-VIIR"])
    M.st(g)["turn_id"] = "1914-09"
    assert counters.counts_against_command_limit(g, g.state.pieces["DE-VIIR"])


@pytest.mark.rules("LGG [11.4-X]", "LGG 3-B", "LGG 5-F")
def test_lgg_11_4x_west_1914_war_plans_pre_turn_and_main_armies() -> None:
    g = new_game()
    r = M.rules(g)
    assert r.first_turn == "1914-08P" and r.last_turn == "1914-11"
    assert r.pre_turn_armies == ["DE-2", "FR-1"]
    assert r.war_plans["DE"].plan == "moltke" and r.war_plans["DE"].must_attack == []
    assert r.war_plans["FR"].plan == "plan-xvii"
    assert M.main_army(g, CP, M.WEST) == "DE-2" and M.main_army(g, EN, M.WEST) == "FR-4"
    assert campaign.obligated_armies(g, EN) == []  # the pre-turn is not the August turn
    M.st(g)["turn_id"] = "1914-08"
    assert campaign.obligated_armies(g, EN) == ["FR-1", "FR-2", "FR-3", "FR-4"]
    assert campaign.obligated_armies(g, CP) == []
    M.st(g)["turn_id"] = "1914-09"
    assert campaign.obligated_armies(g, EN) == []


@pytest.mark.rules("LGG 5-B", "LGG 5-C")
def test_lgg_5c_west_1914_pr_stocks_flows_and_caps() -> None:
    g = new_game()
    assert {n: (v["stock"], v["flow"]) for n, v in g.state.tracks["pr"].items()} == {
        "DE": (24, 8),
        "FR": (20, 8),
        "GB": (6, 2),
        "BE": (4, 1),
    }
    M.st(g)["turn_id"] = "1914-09"
    # the 1914-1915 maxima of the seed replace twice the flow (option pr-cap-1914-15 = replace)
    assert reinforcement.pr_cap(g, "DE") == 32 and reinforcement.pr_cap(g, "FR") == 24
    assert reinforcement.pr_cap(g, "GB") == 12 and reinforcement.pr_cap(g, "BE") == 10


@pytest.mark.rules("LGG 5-A", "LGG 3-C")
def test_lgg_5a_west_1914_reinforcement_schedule() -> None:
    sc = west()
    by_turn: dict[str, set[str]] = {}
    for e in sc.data.schedule:
        by_turn.setdefault(str(e.turn), set()).update(e.pieces)
    assert {"GB-I", "GB-II", "GB-Cav", "DE-ErsL", "DE-ErsE", "FR-Afrique", "FR-Ebener"} <= by_turn[
        "Aug 1914"
    ]
    assert {"FR-6-HQ", "FR-9-HQ", "GB-III", "DE-IXR", "DE-Marine"} <= by_turn["Sep 1914"]
    assert {
        "DE-XXIIR",
        "DE-XXIIIR",
        "DE-XXVIR",
        "DE-XXVIIR",
        "GB-IV",
        "GB-Indian",
        "FR-Marins",
    } <= by_turn["Oct 1914"]
    assert {"FR-XXXII", "FR-XXXIII", "GB-V"} <= by_turn["Nov-Dec 1914"]
    g = new_game()
    scheduled = set().union(*by_turn.values())
    for pid in scheduled:
        assert g.state.pieces[pid].loc.kind == "none", pid  # off the map until due


# ====================================================================== victory and validation
@pytest.mark.rules("LGG 24-A")
def test_west_1914_objectives_make_the_historical_front_a_draw() -> None:
    g = new_game()
    start = victory.scores(g)
    assert start == {CP: 7, EN: 37}
    german_by_december = [
        "0905",
        "1304",
        "1303",
        "1605",
        "1405",
        "1206",
        "0903",
        "1104",
        "1306",
        "1008",
        "1408",
    ]
    for lab in german_by_december:
        mapdata.set_control(g, hx(g, lab), CP)
    assert victory.scores(g) == {CP: 22, EN: 22}
    mapdata.set_control(g, hx(g, "0712"), CP)
    assert victory.scores(g) == {CP: 30, EN: 14}


def test_west_1914_setup_is_clean_and_views_hide_the_enemy() -> None:
    g = new_game()
    assert g.ruleset.invariants(g) == []
    import json

    for side in (CP, EN):
        tokens = g.ruleset.hidden_tokens(g, side)
        assert tokens
        view = json.dumps(g.view(side), ensure_ascii=False)
        assert not [t for t in tokens if json.dumps(t, ensure_ascii=False) in view]
    en_view = g.view(EN)
    assert not any(p["id"].startswith("DE-") and p["type"] == "corps" for p in en_view["pieces"])


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        (
            'must_attack = ["FR-1", "FR-2", "FR-3", "FR-4"]',
            'must_attack = ["FR-1", "FR-8"]',
            "rules.war_plans.FR.must_attack",
        ),
        (
            'pre_turn_armies = ["DE-2", "FR-1"]',
            'pre_turn_armies = ["DE-2", "FR-7"]',
            "rules.pre_turn_armies[1]",
        ),
        ('last_turn = "1914-11"', 'last_turn = "1914-13"', "rules.last_turn"),
        ('"0712" = 8,', '"9999" = 8,', "victory.objectives.9999"),
    ],
)
def test_west_1914_bad_input_is_refused_with_its_place(old: str, new: str, path: str) -> None:
    src = _text_from_disk()
    assert old in src
    with pytest.raises(ScenarioError) as err:
        load_scenario_text(src.replace(old, new), "<west-1914 edited>")
    assert path in str(err.value)


# ====================================================================== the first turn
DECLINE = ("decline", "no-interception", "no-retreat", "no-reaction", "no-reinforcement", "pass")


def _chooser_ending(g: Game, side: str, legal: list[dict]) -> dict | None:
    """End what can be ended and decline what the other rules offer (interceptions,
    reactions...)."""
    for a in legal:
        if (
            a["type"] in ("end-movement", "end-turn", "end-reinforcement")
            or a["type"] in DECLINE
            or a["type"].startswith("no-")
        ):
            return a
    return None


def _answer_prompts(g: Game, step: str, limit: int = 40) -> None:
    """Decline the optional prompts of other rules until the current step is ``step``."""
    for _ in range(limit):
        cur = g.current()
        if cur is not None and cur[1].step == step:
            return
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        pick = next((a for a in legal if a["type"] in DECLINE or a["type"].startswith("no-")), None)
        if pick is None:
            raise AssertionError(f"unexpected prompt in {g.phase_path()}: {legal[:6]}")
        g.apply(pick)
    raise AssertionError(f"never reached {step}")


@pytest.mark.rules("LGG 3-B", "LGG 3-C", "LGG 5-A", "LGG 5-F", "LGG [11.4-X]", "LGG 11.1-D")
def test_lgg_3b_west_1914_first_turn_walkthrough() -> None:
    g = new_game(seed=11)
    # --- the pre-turn (3-B): the German 2nd Army, then the French 1st Army, one by one
    assert M.current_turn(g).id == "1914-08P"
    legal = g.legal_actions(CP)
    assert {a["type"] for a in legal} == {"activate", "end-turn"}
    assert [a["army"] for a in legal if a["type"] == "activate"] == ["DE-2"]
    g.apply({"type": "activate", "side": CP, "army": "DE-2"})
    moves = [a for a in g.legal_actions(CP) if a["type"] == "move"]
    # the 2nd Army may step toward Liège through Verviers; the fortress blocks passing through
    # (11.1-D)
    to_verviers = [a for a in moves if a["to"] == "1705" and a["units"] == ["DE-2-X"]]
    assert to_verviers
    with pytest.raises(IllegalAction):
        g.apply({"type": "move", "side": CP, "units": ["DE-2-HQ"], "to": "1505", "mode": "normal"})
    g.apply(to_verviers[0])
    assert g.board.label(M.hex_of(g, g.state.pieces["DE-2-X"])) == "1705"  # type: ignore[arg-type]
    # finish the pre-turn: every open prompt answered by its "end" or "no" choice
    for _ in range(60):
        if M.current_turn(g).id != "1914-08P":
            break
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        pick = _chooser_ending(g, side, legal)
        if pick is None and side == EN and any(a["type"] == "activate" for a in legal):
            pick = next(a for a in legal if a["type"] == "activate")
        g.apply(pick or legal[0])
    assert M.current_turn(g).id == "1914-08"
    # --- August 1914: the reinforcement phase places only the orders of battle (3-C, 5)
    assert g.phase_path()[-1] == "Reinforcements: Central Powers"
    cp_places = {a["unit"] for a in g.legal_actions(CP) if a["type"] == "place"}
    assert cp_places == {"DE-ErsL", "DE-ErsE"}
    assert {"at": "1810"} in reinforcement.placement_targets(g, g.state.pieces["DE-ErsL"])
    for pid, at in (("DE-ErsL", "1810"), ("DE-ErsE", "2212")):
        g.apply({"type": "place", "side": CP, "unit": pid, "at": at})
    g.apply({"type": "end-reinforcement", "side": CP})
    # the BEF comes with its HQ at Maubeuge (5-A: an army's own units join their HQ)
    targets = reinforcement.placement_targets(g, g.state.pieces["GB-I"])
    assert {"at": "1206"} in targets and {"reserve": "GB-BEF-HQ"} in targets
    assert all(t in ({"at": "1206"}, {"reserve": "GB-BEF-HQ"}) for t in targets)
    with pytest.raises(IllegalAction):
        g.apply({"type": "end-reinforcement", "side": EN})  # the arrivals must be placed first
    for pid in ("GB-I", "GB-II", "GB-Cav"):
        g.apply({"type": "place", "side": EN, "unit": pid, "at": "1206"})
    g.apply({"type": "place", "side": EN, "unit": "FR-Afrique", "at": "1210"})
    g.apply({"type": "place", "side": EN, "unit": "FR-Ebener", "at": "0712"})
    g.apply({"type": "end-reinforcement", "side": EN})
    # --- initiative fixed in August 1914 (3-C): the Central Powers hold it, the Entente moves first
    assert M.st(g)["initiative"][M.WEST] == CP and M.st(g)["first_mover"][M.WEST] == EN
    _answer_prompts(g, "choose-activation")
    assert g.acting_sides() == [EN]
    legal = g.legal_actions(EN)
    # the main army goes first (5-F) and the turn cannot end before Plan XVII's armies attacked
    assert [a["army"] for a in legal if a["type"] == "activate"] == ["FR-4"]
    assert not any(a["type"] == "end-turn" for a in legal)
    with pytest.raises(IllegalAction):
        g.apply({"type": "end-turn", "side": EN})
    with pytest.raises(IllegalAction):
        g.apply({"type": "activate", "side": EN, "army": "FR-5"})
    g.apply({"type": "activate", "side": EN, "army": "FR-4"})
    assert M.st(g)["activation"]["armies"] == ["FR-4"]
    # an obliged army may not stop while a corps can still march toward the enemy ([11.4-X])
    with pytest.raises(IllegalAction) as err:
        g.apply({"type": "end-movement", "side": EN})
    assert "11.4-X" in str(err.value.rule)


@pytest.mark.rules("LGG 10-D", "LGG 10-A")
def test_lgg_10d_west_1914_a_displaced_unit_never_breaks_another_stack() -> None:
    """A 2nd Army corps ends its move in the 3rd Army's hex (10-A breach): every displacement
    offered lands where the unit fits, so curing one breach never creates another (10-D)."""
    g = new_game(seed=3)
    g.apply({"type": "activate", "side": CP, "army": "DE-2"})
    g.apply({"type": "move", "side": CP, "units": ["DE-2-GR"], "to": "1806", "mode": "normal"})
    g.apply({"type": "end-movement", "side": CP})
    assert g.phase_path()[-1] == "End of movement"
    displace = [a for a in g.legal_actions(CP) if a["type"] == "displace"]
    assert displace and {a["unit"] for a in g.legal_actions(CP) if a["type"] == "eliminate"} >= {
        "DE-2-GR"
    }
    targets = {(a["unit"], a["to"]) for a in displace}
    assert (
        "DE-2-GR",
        "1805",
    ) not in targets  # the 3rd Army's XII, XIX and XII Reserve Corps stand there
    assert ("DE-3-XI", "1805") in targets  # its own army's hex
    for a in displace:
        g.apply(a)
        assert g.ruleset.invariants(g) == [], a
        g.undo()
    with pytest.raises(IllegalAction):
        g.apply({"type": "displace", "side": CP, "unit": "DE-2-GR", "to": "1805"})


@pytest.mark.rules("LGG 11.4-A", "LGG 11.4-B", "LGG 11.4-C")
def test_lgg_11_4a_west_1914_rail_options_are_the_hexes_the_rail_check_accepts() -> None:
    from grognard.rulesets.lgg1418.map import railways
    from grognard.rulesets.lgg1418.military import movement

    g = new_game(seed=4)
    g.apply({"type": "activate", "side": CP, "army": "DE-2"})
    act = M.st(g)["activation"]
    units = [g.state.pieces[pid] for pid in ("DE-2-G", "DE-2-VII", "DE-2-X")]
    for grp in ([units[0]], units):
        accepted = []
        for j in movement.rail_destinations(g, CP, hx(g, "1804")):
            try:
                movement.check_rail(g, act, grp, j)
            except IllegalAction:
                continue
            accepted.append(j)
        assert accepted and movement.rail_options(g, act, grp) == accepted
    # Cologne is a city: Aachen -> Cologne costs 2 MP (11.4-B), within a 4 MP allowance
    assert hx(g, "2004") in movement.rail_options(g, act, [units[0]])
    # with the German rail capacity used up this turn, no option is left (11.4-C)
    M.st(g).setdefault("rail_used", {})["DE"] = railways.rail_capacity(g, "DE")
    M.touch(g)
    assert movement.rail_options(g, act, [units[0]]) == []
    rails = [a for a in g.legal_actions(CP) if a["type"] == "rail"]
    assert rails == []


@pytest.mark.rules("LGG 23-C", "LGG 14-A")
def test_lgg_23c_west_1914_liege_corps_does_not_go_in_and_out_of_the_fortress_forever() -> None:
    """The pre-turn coup de main on Liège: the Belgian 3rd Division may go into the fortress
    (23-C) and come out of it to reinforce the hex (14-A), but not go back in before the battle."""
    g = new_game(seed=21)
    g.apply({"type": "activate", "side": CP, "army": "DE-2"})
    g.apply(
        {
            "type": "move",
            "side": CP,
            "units": ["DE-2-G", "DE-2-HQ", "DE-2-VII", "DE-2-X"],
            "to": "1705",
            "mode": "normal",
        }
    )
    _answer_prompts(g, "activation-movement")
    g.apply(
        {
            "type": "move",
            "side": CP,
            "units": ["DE-2-G", "DE-2-VII", "DE-2-X"],
            "to": "1605",
            "mode": "normal",
        }
    )
    g.apply({"type": "end-movement", "side": CP})
    assert g.acting_sides() == [EN]
    enter = {"type": "enter-fortress", "side": EN, "units": ["BE-3"], "hex": "1605"}
    assert enter in g.legal_actions(EN)
    g.apply(enter)
    assert M.carrier(g, g.state.pieces["BE-3"]).id == "BE-Liege"  # type: ignore[union-attr]
    g.apply({"type": "reinforce", "side": EN, "units": ["BE-3"], "to": "1605"})
    assert g.state.pieces["BE-3"].loc.kind == "hex"
    assert not any(a["type"] == "enter-fortress" for a in g.legal_actions(EN))
    with pytest.raises(IllegalAction):
        g.apply(enter)


@pytest.mark.rules("LGG 9-H", "LGG 9-E", "LGG 16.5-B")
def test_lgg_9h_west_1914_attackers_at_liege_trace_through_friendly_units() -> None:
    """Corps that entered Liège's hex are cut off while every hex around it lies in the fortress's
    ZoC with nobody there; once their HQ stands next door the trace passes (9-E's exception, our
    reading of 9-H), so they may spend PR in the battle."""
    g = new_game(seed=5)
    g.apply({"type": "activate", "side": CP, "army": "DE-2"})
    g.apply(
        {
            "type": "move",
            "side": CP,
            "units": ["DE-2-GR", "DE-2-XR", "DE-VIIR"],
            "to": "1605",
            "mode": "normal",
        }
    )
    gr = g.state.pieces["DE-2-GR"]
    assert supply.isolated_9h(g, gr) and supply.is_isolated(g, gr, "pr")
    g.apply(
        {
            "type": "move",
            "side": CP,
            "units": ["DE-2-G", "DE-2-HQ", "DE-2-VII", "DE-2-X"],
            "to": "1705",
            "mode": "normal",
        }
    )
    assert not supply.isolated_9h(g, gr) and not supply.is_isolated(g, gr, "pr")


@pytest.mark.rules("LGG 13-A", "LGG 4-B")
def test_lgg_13a_west_1914_an_intercepted_empty_decoy_is_taken_back() -> None:
    """Pre-turn: the French 1st Army's decoy, alone, enters Mulhouse under the XIV Corps' ZoC;
    the Germans intercept what they see as a stack: it was an empty decoy - revealed and taken
    back (a decoy never fights), and the Germans hold the hex with no battle (found by self-play).
    """
    g = new_game(seed=2)
    g.apply({"type": "end-turn", "side": CP})
    g.apply({"type": "activate", "side": EN, "army": "FR-1"})
    g.apply({"type": "place-decoy", "side": EN, "decoy": "FR-1-decoy", "at": "2016"})
    g.apply({"type": "move", "side": EN, "units": ["FR-1-decoy"], "to": "2116", "mode": "normal"})
    assert {"type": "intercept", "side": CP, "units": ["DE-7-XIV"]} in g.legal_actions(CP)
    g.apply({"type": "intercept", "side": CP, "units": ["DE-7-XIV"]})
    decoy = g.state.pieces["FR-1-decoy"]
    assert decoy.loc.kind == "box" and str(decoy.loc.ref) == M.decoy_pool(EN)
    assert [p.id for p in M.pieces_at_hex(g, hx(g, "2116"))] == ["DE-7-XIV"]
    assert g.ruleset.invariants(g) == []
    assert any(
        e["type"] == "interception" and "empty decoy" in e["text"] and e.get("reveal")
        for e in g.state.log
    )
