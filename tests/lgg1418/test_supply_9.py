"""LGG 9: supply - sources, relays, distance, rail capacity, fortresses, the sea, isolation."""

from __future__ import annotations

import pytest

from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.supply import supply

from .helpers import CP, EN, army, corps, decoy, fortress, game, hq, ring

CAP = {"hex": "0104", "kind": "city", "name": "Berlin", "attrs": {"nation": "DE", "capital": True}}
DE_ALL = {"hexes": {CP: [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 9)]}}


def _sup(g, pid: str) -> bool:
    return supply.is_supplied(g, g.state.pieces[pid])


def _between(a: str, b: str) -> list[str]:
    return [h for h in ring(a) if h in ring(b)]


@pytest.mark.rules("LGG 9", "LGG 9-A", "LGG 9-C")
def test_lgg_9_lgg_9c_lgg23_two_hexes_one_in_desert_enemy_blocks() -> None:
    pieces = [corps("u", "DE", "0304")]
    g = game(pieces=pieces, places=[CAP], control=DE_ALL)
    assert g.board.distance(g.board.idx("0104"), g.board.idx("0304")) == 2
    assert _sup(g, "u")
    desert = ["pppppppp"] * 3 + ["ppdppppp"] + ["pppppppp"] * 4
    g2 = game(terrain=desert, pieces=pieces, places=[CAP], control=DE_ALL)
    assert g2.board.terrain_of(g2.board.idx("0304")) == "desert" and not _sup(g2, "u")
    block = [corps(f"e{k}", "FR", h) for k, h in enumerate(_between("0104", "0304"))]
    g3 = game(pieces=pieces + block, places=[CAP], control=DE_ALL)
    assert not _sup(g3, "u")
    g4 = game(pieces=[corps("far", "DE", "0504")], places=[CAP], control=DE_ALL)
    assert not _sup(g4, "far")


@pytest.mark.rules("LGG 9-A")
def test_lgg_9a_sources_capital_connected_cities_not_conquered_ones() -> None:
    places = [
        {"hex": "0101", "kind": "city", "name": "A", "attrs": {"nation": "DE"}},
        {"hex": "0105", "kind": "city", "name": "B", "attrs": {"nation": "DE"}},
        {"hex": "0801", "kind": "city", "name": "C", "attrs": {"nation": "DE"}},
        {"hex": "0805", "kind": "city", "name": "Lille", "attrs": {"nation": "FR"}},
        {"hex": "0806", "kind": "locality", "name": "L", "attrs": {"nation": "FR"}},
    ]
    areas = [
        {
            "name": "DE",
            "kind": "country",
            "attrs": {"nation": "DE"},
            "hexes": ["0101", "0102", "0103", "0104", "0105", "0801"],
        },
        {"name": "FR", "kind": "country", "attrs": {"nation": "FR"}, "hexes": ["0805", "0806"]},
    ]
    rail = [
        {
            "name": "r",
            "kind": "rail",
            "paths": [["0101", "0102", "0103", "0104", "0105"], ["0805", "0806"]],
        }
    ]
    g = game(
        pieces=[corps("x", "DE", "0303")],
        places=places,
        areas=areas,
        networks=rail,
        control={"hexes": {CP: ["0805", "0806"]}},
    )
    src, _minor = supply.supply_sources(g, CP)
    assert {g.board.label(i) for i in src} == {
        "0101",
        "0105",
    }  # C has no link; Lille and L are conquered
    g2 = game(
        pieces=[corps("x", "DE", "0303")],
        places=places,
        areas=areas,
        networks=rail,
        rules={"virtual_rail": [["0105", "0801"]]},
    )
    assert "0801" in {
        g2.board.label(i) for i in supply.supply_sources(g2, CP)[0]
    }  # e.g. Varna to Sofia


@pytest.mark.rules("LGG 9-A", "LGG 9-F")
def test_lgg_9a_ports_and_seas() -> None:
    places = [
        {"hex": "0101", "kind": "port", "attrs": {"size": "major", "sea": "Channel"}},
        {"hex": "0101", "kind": "city", "name": "Dover", "attrs": {"nation": "GB"}},
        {"hex": "0108", "kind": "port", "attrs": {"size": "major", "sea": "Channel"}},
        {"hex": "0108", "kind": "city", "name": "Calais", "attrs": {"nation": "FR"}},
        {"hex": "0801", "kind": "port", "attrs": {"size": "minor", "sea": "Baltic"}},
        {"hex": "0801", "kind": "locality", "name": "Memel", "attrs": {"nation": "DE"}},
        {"hex": "0808", "kind": "port", "attrs": {"size": "major", "sea": "Baltic"}},
        {"hex": "0808", "kind": "city", "name": "Riga", "attrs": {"nation": "RU"}},
    ]
    areas = [
        {"name": "Channel", "kind": "sea", "adjacent": ["Baltic"]},
        {"name": "Baltic", "kind": "sea"},
    ]
    g = game(
        pieces=[hq("h", "RU", "0802", "RU-1"), corps("r", "RU", "0702", army="RU-1")],
        places=places,
        areas=areas,
        rules={"armies": [army("RU-1", "RU", "h")]},
        control={"hexes": {EN: ["0101", "0108", "0801", "0808"]}},
    )
    assert supply.sea_control(g, "Channel") == EN and supply.sea_control(g, "Baltic") == CP
    assert supply.sea_control(g, "North Sea") is None
    src, minor = supply.supply_sources(g, EN)
    assert {g.board.label(i) for i in src} == {"0101", "0108"}  # the Baltic is the Central Powers'
    assert minor == {}
    M.st(g)["sea_control"] = {"Baltic": EN}
    M.touch(g)
    src, minor = supply.supply_sources(g, EN)
    assert "0808" in {g.board.label(i) for i in src}
    assert {g.board.label(i): a for i, a in minor.items()} == {
        "0801": "RU-1"
    }  # a captured minor port: one army only
    assert _sup(g, "r")


@pytest.mark.rules("LGG 9-A")
def test_lgg_9a_minor_port_never_supplies_the_main_army() -> None:
    places = [
        {"hex": "0801", "kind": "port", "attrs": {"size": "minor", "sea": "Channel"}},
        {"hex": "0808", "kind": "port", "attrs": {"size": "major", "sea": "Channel"}},
        {"hex": "0808", "kind": "city", "name": "Riga", "attrs": {"nation": "RU"}},
    ]
    areas = [{"name": "Channel", "kind": "sea"}]
    g = game(
        pieces=[hq("h", "RU", "0702", "RU-1"), corps("r", "RU", "0703", army="RU-1")],
        places=places,
        areas=areas,
        rules={"armies": [army("RU-1", "RU", "h")], "main_armies": {EN: {"West": "RU-1"}}},
        control={"hexes": {EN: ["0801", "0808"]}},
    )
    assert supply.supply_sources(g, EN)[1] == {g.board.idx("0801"): None}
    assert not _sup(g, "r")


@pytest.mark.rules("LGG 9-B")
def test_lgg_9b_rail_and_hq_relays_chain_once() -> None:
    rail = [{"name": "r", "kind": "rail", "paths": [["0104", "0103", "0102", "0101"]]}]
    areas = [
        {
            "name": "DE",
            "kind": "country",
            "attrs": {"nation": "DE"},
            "hexes": ["0101", "0102", "0103", "0104"],
        }
    ]
    pieces = [
        hq("h1", "DE", "0301", "DE-1"),
        hq("h2", "DE", "0501", "DE-2"),
        hq("h3", "DE", "0701", "DE-3"),
        corps("c2", "DE", "0601", army="DE-2"),
        corps("c3", "DE", "0801", army="DE-3"),
    ]
    g = game(
        pieces=pieces,
        places=[CAP],
        networks=rail,
        areas=areas,
        control=DE_ALL,
        rules={
            "armies": [army("DE-1", "DE", "h1"), army("DE-2", "DE", "h2"), army("DE-3", "DE", "h3")]
        },
    )
    rep = supply.supply_report(g, CP)
    assert {g.board.label(i) for i in rep.rail} == {"0101", "0102", "0103", "0104"}
    assert _sup(g, "h1") and _sup(g, "h2")  # h1 within 2 of the rail; h2 relayed by h1
    assert "relayed by h1" in rep.supplied["h2"]
    assert not _sup(g, "h3")  # an HQ relayed by an HQ is the end of the chain
    assert _sup(g, "c2") and not _sup(g, "c3")


@pytest.mark.rules("LGG 9-B")
def test_lgg_9b_waterway_relay_cut_by_an_enemy_bank() -> None:
    water = [{"name": "w", "kind": "waterway", "paths": [["0104", "0204", "0304", "0404", "0504"]]}]
    g = game(pieces=[corps("u", "DE", "0505")], places=[CAP], networks=water, control=DE_ALL)
    assert _sup(g, "u")
    g2 = game(
        pieces=[corps("u", "DE", "0505")],
        places=[CAP],
        networks=water,
        control={"hexes": {CP: DE_ALL["hexes"][CP][:-1], EN: ["0304"]}},
    )
    assert not _sup(g2, "u")


def _rail_game(n_units: int, cap: int, hqs: bool = False):
    rail = [
        {"name": "main", "kind": "rail", "paths": [["0104", "0204"]]},
        {
            "name": "limited",
            "kind": "rail",
            "paths": [["0204", "0304", "0404", "0504", "0604", "0704", "0804"]],
            "attrs": {"capacity": cap},
        },
    ]
    areas = [
        {"name": "DE", "kind": "country", "attrs": {"nation": "DE"}, "hexes": DE_ALL["hexes"][CP]}
    ]
    pieces = [corps(f"u{k}", "DE", "0806") for k in range(n_units)]
    armies = []
    if hqs:
        pieces = [
            hq("ha", "DE", "0806", "DE-A"),
            corps("a1", "DE", "0806", army="DE-A"),
            hq("hb", "DE", "0808", "DE-B"),
            corps("b1", "DE", "0808", army="DE-B"),
        ]
        armies = [army("DE-A", "DE", "ha"), army("DE-B", "DE", "hb")]
    return game(
        pieces=pieces,
        places=[CAP],
        networks=rail,
        areas=areas,
        control=DE_ALL,
        rules={"armies": armies},
    )


@pytest.mark.rules("LGG 9-D")
def test_lgg_9d_lgg24_capacity_one_section() -> None:
    g = _rail_game(5, 1)
    assert g.board.distance(g.board.idx("0806"), g.board.idx("0804")) == 2
    assert g.board.distance(g.board.idx("0808"), g.board.idx("0804")) > 2
    supplied = [k for k in range(5) if _sup(g, f"u{k}")]
    assert supplied == [0, 1, 2, 3]  # 4 independent units, the 5th not
    g2 = _rail_game(0, 1, hqs=True)
    assert _sup(g2, "ha") and _sup(g2, "a1")  # one HQ and its units
    assert not _sup(g2, "hb") and not _sup(g2, "b1")  # and it may not relay for another HQ


@pytest.mark.rules("LGG 9-D")
def test_lgg_9d_lgg24_capacity_two_section() -> None:
    g = _rail_game(6, 2)
    assert all(_sup(g, f"u{k}") for k in range(6))
    g1 = _rail_game(6, 1)
    assert sum(_sup(g1, f"u{k}") for k in range(6)) == 4
    g2 = _rail_game(0, 2, hqs=True)
    assert all(_sup(g2, p) for p in ("ha", "a1", "hb", "b1"))  # two HQs, one relaying the other


@pytest.mark.rules("LGG 9-E")
def test_lgg_9e_unbesieged_enemy_fortress_zoc_blocks_supply() -> None:
    pieces = [corps("u", "DE", "0304"), fortress("ff", "FR", "0204")]
    g = game(pieces=pieces, places=[CAP], control=DE_ALL)
    assert not _sup(g, "u")
    friends = [
        corps(f"f{k}", "DE", h)
        for k, h in enumerate([*_between("0104", "0304"), "0104"])
        if h != "0204"
    ]
    g2 = game(pieces=pieces + friends, places=[CAP], control=DE_ALL)
    assert _sup(g2, "u")  # friendly units in the fortress's ZoC open the way
    besieged = [corps("u", "DE", "0304"), fortress("ff", "FR", "0204", status=["besieged"])]
    g3 = game(pieces=besieged, places=[CAP], control=DE_ALL)
    assert _sup(g3, "u")  # a besieged fortress blocks only its own hex


@pytest.mark.rules("LGG 9-A", "LGG 23-A")
def test_lgg_9a_fortress_and_city_supply_one_corps_in_their_hex() -> None:
    places = [{"hex": "0606", "kind": "city", "name": "X", "attrs": {"nation": "DE"}}]
    pieces = [
        fortress("df", "DE", "0303"),
        corps("a", "DE", "0303"),
        corps("b", "DE", "0303"),
        corps("gar", "DE", {"inside": "df"}, garrison="df"),
        corps("c", "DE", "0606"),
        corps("d", "DE", "0606"),
    ]
    g = game(pieces=pieces, places=places)
    assert _sup(g, "df") and _sup(g, "gar")
    assert _sup(g, "a") and not _sup(g, "b")
    assert _sup(g, "c") and not _sup(g, "d")


@pytest.mark.rules("LGG 9-G")
def test_lgg_9g_lgg25_out_of_supply_effects() -> None:
    places = [
        {"hex": "0606", "kind": "city", "name": "X", "attrs": {"nation": "DE"}},
        {"hex": "0303", "kind": "locality", "name": "L", "attrs": {"nation": "DE"}},
    ]
    g = game(
        pieces=[
            corps("u", "DE", "0505"),
            corps("c", "DE", "0606"),
            corps("c2", "DE", "0606"),
            corps("l", "DE", "0303"),
        ],
        places=places,
    )
    u = g.state.pieces["u"]
    assert not supply.is_supplied(g, u)
    assert supply.supply_combat_value(g, u, 6 + 1, defending=False) == 3
    assert supply.supply_combat_value(g, u, 1, defending=True) == 1
    assert supply.supply_fire_value(g, u, 3) == 0
    assert supply.supply_combativeness_modifier(g, u) == -2
    c2 = g.state.pieces["c2"]
    assert not supply.is_supplied(g, c2)
    assert supply.supply_combat_value(g, c2, 7, defending=True) == 7  # defends normally in a city
    assert supply.supply_combat_value(g, c2, 7, defending=False) == 3
    assert (
        supply.supply_combat_value(g, g.state.pieces["l"], 7, defending=True) == 3
    )  # a locality does not help


def _encircle(center: str, gap: str | None = None, enemy: str = "FR") -> list[dict]:
    return [corps(f"e{k}", enemy, h) for k, h in enumerate(ring(center)) if h != gap]


@pytest.mark.rules("LGG 9-H", "LGG 4-B")
def test_lgg_9h_lgg26_decoys_do_not_block_units_do() -> None:
    center = "0404"
    gap = ring(center)[3]
    base = [corps("u", "DE", center), *_encircle(center, gap)]
    g = game(
        pieces=[*base, hq("fh", "FR", "0707", "FR-1"), decoy("fd", "FR", "FR-1", at=gap)],
        places=[CAP],
        control=DE_ALL,
        rules={"armies": [army("FR-1", "FR", "fh", "fd")]},
    )
    assert not supply.isolated_9h(g, g.state.pieces["u"])
    g2 = game(pieces=[*base, corps("blk", "FR", gap)], places=[CAP], control=DE_ALL)
    assert supply.isolated_9h(g2, g2.state.pieces["u"]) and supply.cut_off_22(
        g2, g2.state.pieces["u"]
    )


@pytest.mark.rules("LGG 9-H", "LGG 22")
def test_lgg_9h_five_hex_test_versus_rule_22() -> None:
    # a corridor of free hexes leads to the capital, but more than 5 hexes long
    terrain = [
        "pllllllp",
        "pplllllp",
        "lplllllp",
        "lpllllpp",
        "lpplllpp",
        "llpplppp",
        "lllpppll",
        "llllllll",
    ]
    g = game(
        terrain=terrain,
        pieces=[corps("u", "DE", "0806")],
        places=[
            {
                "hex": "0101",
                "kind": "city",
                "name": "Berlin",
                "attrs": {"nation": "DE", "capital": True},
            }
        ],
        control={"hexes": {CP: ["0101"]}},
    )
    u = g.state.pieces["u"]
    assert not supply.cut_off_22(g, u)  # a path of some length exists
    assert supply.isolated_9h(g, u)  # but no 5-hex path to a source or relay
    assert supply.is_isolated(g, u, "combat") and not supply.is_isolated(g, u, "attrition")
    g.options["isolation-test"] = "22-everywhere"
    assert not supply.is_isolated(g, u, "combat")


@pytest.mark.rules("LGG 9-F")
def test_lgg_9f_an_hq_on_a_beach_is_a_relay_when_the_sea_is_controlled() -> None:
    places = [
        {"hex": "0101", "kind": "port", "attrs": {"size": "major", "sea": "Channel"}},
        {
            "hex": "0101",
            "kind": "city",
            "name": "Dover",
            "attrs": {"nation": "GB", "capital": True},
        },
        {"hex": "0707", "kind": "beach", "attrs": {"sea": "Channel"}},
    ]
    areas = [{"name": "Channel", "kind": "sea"}]
    pieces = [hq("h", "GB", "0707", "GB-1"), corps("c", "GB", "0808", army="GB-1")]
    g = game(
        pieces=pieces,
        places=places,
        areas=areas,
        rules={"armies": [army("GB-1", "GB", "h")]},
        control={"hexes": {EN: ["0101"]}},
    )
    assert supply.supply_report(g, EN).maritime == {g.board.idx("0707")}
    assert _sup(g, "h") and _sup(g, "c")
    M.st(g)["sea_control"] = {"Channel": CP}
    M.touch(g)
    assert not _sup(g, "c")
