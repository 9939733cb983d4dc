"""LGG 1: the map (terrain, hexsides, cities, localities, ports)."""

from __future__ import annotations

import pytest

from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.military import movement

from .helpers import corps, game


def _g(**kw: object):
    return game(pieces=[corps("a", "DE", "0202"), corps("b", "FR", "0606")], **kw)


@pytest.mark.rules("LGG 1-A")
def test_lgg_1a_pass_costs_as_plains_and_ridge_is_impassable() -> None:
    g = _g(
        terrain=["pmmppppp", "pppppppp", "pppppppp", "pppppppp", "pppppppp", "pppppppp"],
        hexsides=[
            {"feature": "pass", "sides": ["0101/0201"]},
            {"feature": "ridge", "sides": ["0202/0302"]},
        ],
    )
    a = g.state.pieces["a"]
    i, j = g.board.idx("0101"), g.board.idx("0201")
    assert movement.step_cost(g, a, i, j) == 1  # into mountain through the pass: plains cost
    k = g.board.idx("0301")
    assert movement.step_cost(g, a, j, k) == M.data(g).terrain["mountain"].cost
    assert mapdata.hexside_impassable(g, g.board.idx("0202"), g.board.idx("0302"))
    assert (
        movement.static_step_problem(g, a, g.board.idx("0202"), g.board.idx("0302"))[0] == "LGG 1-A"
    )


@pytest.mark.rules("LGG 1-A")
def test_lgg_1a_lakes_and_sea_cannot_be_entered_and_a_beach_is_a_place() -> None:
    g = _g(
        terrain=["pppppppp", "plpppppp", "pppppppp", "pppppppp", "pppppppp", "pppppppp"],
        places=[{"hex": "0303", "kind": "beach"}],
    )
    assert mapdata.hex_impassable(g, g.board.idx("0202"))
    a = g.state.pieces["a"]
    assert movement.static_step_problem(g, a, g.board.idx("0201"), g.board.idx("0202")) is not None
    assert mapdata.is_beach(g, g.board.idx("0303")) and not mapdata.is_beach(g, g.board.idx("0304"))


@pytest.mark.rules("LGG 1-B")
def test_lgg_1b_cities_localities_ports_capitals_and_minor_vn() -> None:
    g = _g(
        places=[
            {
                "hex": "0101",
                "kind": "city",
                "name": "Berlin",
                "attrs": {"nation": "DE", "capital": True, "vn": 5, "recruitment": 3},
            },
            {"hex": "0103", "kind": "city", "name": "Namur", "attrs": {"nation": "BE", "vn": 2}},
            {"hex": "0105", "kind": "locality", "name": "Dinant", "attrs": {"nation": "BE"}},
            {"hex": "0301", "kind": "port", "attrs": {"size": "major", "sea": "North Sea"}},
            {"hex": "0301", "kind": "city", "name": "Hamburg", "attrs": {"nation": "DE", "vn": 3}},
        ]
    )
    i = g.board.idx
    assert mapdata.is_city(g, i("0101")) and mapdata.is_capital(g, i("0101"))
    assert not mapdata.is_capital(g, i("0103"))
    assert mapdata.is_locality(g, i("0105")) and not mapdata.is_city(g, i("0105"))
    assert mapdata.vn_value(g, i("0101")) == 5
    assert (
        mapdata.vn_value(g, i("0103")) == 0
    )  # errata: minor countries have no national-will value
    assert mapdata.recruitment_value(g, i("0101")) == 3
    assert (
        mapdata.port_size(g, i("0301")) == "major" and mapdata.port_sea(g, i("0301")) == "North Sea"
    )
    assert mapdata.port_size(g, i("0101")) is None


@pytest.mark.rules("LGG 1-A", "LGG 7-B")
def test_lgg_1a_floodable_plains_become_marsh_in_rain() -> None:
    g = _g(terrain=["pwpppppp", "pppppppp", "pppppppp", "pppppppp", "pppppppp", "pppppppp"])
    i = g.board.idx("0201")
    assert mapdata.effective_terrain(g, i) == "floodable"
    M.st(g)["weather"] = {"temperate": "rain"}
    M.touch(g)
    assert mapdata.effective_terrain(g, i) == "marsh"
