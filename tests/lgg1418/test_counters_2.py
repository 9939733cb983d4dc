"""LGG 2: counters, armies and command (and 10-C military cooperation)."""

from __future__ import annotations

import pytest

from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.units import counters
from grognard.scenario import ScenarioError

from .helpers import army, corps, game, general, hq, load


@pytest.mark.rules("LGG 2-A")
def test_lgg_2a_value_strings() -> None:
    assert counters.parse_value_code("83-9-4") == {
        "attack": 8,
        "fire": 3,
        "defense": 9,
        "movement": 4,
    }
    assert counters.parse_value_code("2.3.3") == {
        "attack": 2,
        "fire": 0,
        "defense": 3,
        "movement": 3,
    }
    assert counters.parse_value_code("2-3-6") == {
        "attack": 2,
        "fire": 0,
        "defense": 3,
        "movement": 6,
    }
    with pytest.raises(ValueError):
        counters.parse_value_code("8-9")


@pytest.mark.rules("LGG 2-A")
def test_lgg_2a_catalogue_refuses_bad_pieces_with_clear_paths() -> None:
    bad = corps("a", "DE", "0101", arm="dragoon")
    bad["faces"]["full"].pop("fire")
    wrong_code = corps("b", "DE", "0102", code="83-9-4")
    with pytest.raises(ScenarioError) as e:
        load(pieces=[bad, wrong_code])
    text = str(e.value)
    assert "pieces[0].attrs.arm" in text and "dragoon" in text
    assert "pieces[0].faces.full" in text and "'fire'" in text
    assert "pieces[1].faces.full.attack" in text


def _cmd_game(**rules: object):
    pieces = [
        hq("h1", "DE", "0202", "DE-1", limit=1),
        general("g1", "DE", "h1", coord=2),
        corps("own", "DE", "0202", army="DE-1"),
        corps("u1", "DE", "0203", attached="DE-1"),
        corps("u2", "DE", "0204"),
        corps("u3", "DE", "0205", command_exempt=["1914-09"]),
        corps("au", "AH", "0206"),
        hq("hs", "SR", "0505", "SR-1"),
        corps("s1", "SR", "0506"),
        corps("s2", "SR", "0507"),
        hq("hb", "GB", "0707", "GB-1"),
        corps("f1", "FR", "0708"),
        corps("f2", "FR", "0808"),
        corps("f3", "FR", "0806"),
        hq("ho", "FR", "0303", "FR-O"),
        corps("r1", "SR", "0304"),
    ]
    return game(
        pieces=pieces,
        rules={
            "armies": [
                army("DE-1", "DE", "h1"),
                army("SR-1", "SR", "hs"),
                army("GB-1", "GB", "hb"),
                army("FR-O", "FR", "ho", multinational=True),
            ],
            **rules,
        },
        terrain=["pppppppp"] * 8,
    )


@pytest.mark.rules("LGG 2-B")
def test_lgg_2b_own_units_attached_units_and_command_limit() -> None:
    g = _cmd_game()
    p = g.state.pieces
    assert counters.command_army(g, p["own"]) == "DE-1" and counters.is_army_own(g, p["own"])
    assert counters.command_army(g, p["u1"]) == "DE-1" and not counters.is_army_own(g, p["u1"])
    assert counters.command_army(g, p["u2"]) is None
    # limit 1 already used by u1
    assert "command limit" in counters.why_not_attach(g, p["u2"], "DE-1")
    # a corps exempt this turn does not count against the limit (the reduced 63-7-4 of August 1914)
    assert counters.why_not_attach(g, p["u3"], "DE-1") is None
    assert "own army" in counters.why_not_attach(g, p["own"], "DE-1")


@pytest.mark.rules("LGG 2-B")
def test_lgg_2b_minor_country_hq_commands_all_national_units() -> None:
    g = _cmd_game()
    assert counters.command_army(g, g.state.pieces["s1"]) == "SR-1"
    assert counters.command_army(g, g.state.pieces["s2"]) == "SR-1"
    assert counters.command_limit(g, "SR-1") is None


@pytest.mark.rules("LGG 2-B")
def test_lgg_2b_army_not_yet_formed_leaves_its_corps_unnumbered() -> None:
    pieces = [hq("h11", "DE", "0202", "DE-11"), corps("c", "DE", "0203", army="DE-11")]
    g = game(pieces=pieces, rules={"armies": [army("DE-11", "DE", "h11", forms="1914-11")]})
    assert M.army_number(g, g.state.pieces["c"]) is None
    assert counters.command_army(g, g.state.pieces["c"]) is None


@pytest.mark.rules("LGG 10-C")
def test_lgg_10c_lgg28_military_cooperation() -> None:
    g = _cmd_game()
    p = g.state.pieces
    # the English army integrates two allied corps, not a third (LGG-28)
    for c in ("f1", "f2"):
        assert counters.why_not_attach(g, p[c], "GB-1") is None
        counters.attach(g, p[c], "GB-1")
    assert "2 allied corps" in counters.why_not_attach(g, p["f3"], "GB-1")
    # the multinational French army of the Orient takes a Serbian corps; a German army no Austrian
    assert counters.why_not_attach(g, p["r1"], "FR-O") is None
    assert "another nation" in counters.why_not_attach(g, p["au"], "DE-1")


@pytest.mark.rules("LGG 11.3")
def test_lgg_11_3_coordination_value_of_the_general_or_the_hq() -> None:
    g = _cmd_game()
    assert counters.coordination_value(g, "DE-1") == 2  # the general's value
    assert counters.coordination_value(g, "SR-1") == 3  # no general: the HQ's value
    g2 = _cmd_game()
    g2.options["coordination-value-source"] = "hq-only"
    assert counters.coordination_value(g2, "DE-1") == 3
