"""LGG 8: zones of control."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import zoc

from . import dummy  # noqa: F401  (registers the hooked variant)
from .helpers import (
    CP,
    EN,
    act,
    army,
    artillery,
    corps,
    current_act,
    fortress,
    game,
    hq,
    ring,
    to_activation,
)


def _zoc(g, side: str) -> set[str]:
    return {g.board.label(i) for i in zoc.zoc_map(g, side)}


@pytest.mark.rules("LGG 8")
def test_lgg_8_corps_exert_zoc_on_the_six_hexes_around_them() -> None:
    g = game(
        pieces=[
            corps("inf", "DE", "0404"),
            corps("cav", "DE", "0707", arm="cavalry"),
            hq("h", "DE", "0101", "DE-1"),
            artillery("art", "DE", "0102"),
        ],
        rules={"armies": [army("DE-1", "DE", "h")]},
    )
    assert _zoc(g, CP) == set(ring("0404")) | {h for h in ring("0707") if g.board.has_label(h)}
    assert not zoc.exerts_zoc(g, g.state.pieces["h"]) and not zoc.exerts_zoc(
        g, g.state.pieces["art"]
    )


@pytest.mark.rules("LGG 8-A", "LGG 8-B")
def test_lgg_8a_8b_flexible_in_movement_rigid_in_fire_doctrine() -> None:
    g = game(pieces=[corps("inf", "DE", "0404")])
    assert zoc.zoc_kind_of(g, g.state.pieces["inf"]) == "flexible"
    g2 = game(
        pieces=[corps("inf", "DE", "0404")], rules={"first_turn": "1914-11", "last_turn": "1914-11"}
    )
    assert (
        zoc.zoc_kind_of(g2, g2.state.pieces["inf"]) == "rigid"
    )  # November-December 1914: defender ZoCs rigid
    g3 = game(
        pieces=[corps("inf", "DE", "0404")], rules={"first_turn": "1915-01", "last_turn": "1915-01"}
    )
    assert zoc.zoc_kind_of(g3, g3.state.pieces["inf"]) == "rigid"
    assert zoc.zoc_map(g3, CP)[g3.board.idx("0405")] == frozenset({"rigid"})


@pytest.mark.rules("LGG 8-C")
def test_lgg_8c_lgg22_rivers_block_unless_a_bridge_city() -> None:
    sides = [
        {"feature": "river", "sides": ["0404/0405"]},
        {"feature": "stream", "sides": ["0404/0403"]},
        {"feature": "ridge", "sides": ["0404/0504"]},
        {"feature": "lake", "sides": ["0404/0304"]},
    ]
    g = game(pieces=[corps("inf", "DE", "0404")], hexsides=sides)
    z = _zoc(g, CP)
    assert "0405" not in z and "0403" in z and "0504" not in z and "0304" not in z
    places = [{"hex": "0405", "kind": "locality", "name": "Bridge", "attrs": {"nation": "DE"}}]
    g2 = game(
        pieces=[corps("inf", "DE", "0404")],
        hexsides=sides,
        places=places,
        control={"hexes": {CP: ["0405"]}},
    )
    assert "0405" in _zoc(g2, CP)
    g3 = game(
        pieces=[corps("inf", "DE", "0404")],
        hexsides=sides,
        places=places,
        control={"hexes": {EN: ["0405"]}},
    )
    assert "0405" not in _zoc(g3, CP)  # the bridge city is the enemy's (option zoc-bridge-control)


@pytest.mark.rules("LGG 8-C")
def test_lgg_8c_no_zoc_into_high_mountain_enemy_fortress_or_neutral_country() -> None:
    terrain = [
        "pppppppp",
        "pppppppp",
        "pppppppp",
        "pppphppp",
        "pppppppp",
        "pppppppp",
        "pppppppp",
        "pppppppp",
    ]
    around = ring("0404")
    g = game(
        terrain=terrain,
        pieces=[corps("inf", "DE", "0404"), fortress("ff", "FR", around[4])],
        areas=[{"name": "CH", "kind": "country", "attrs": {"nation": "CH"}, "hexes": [around[2]]}],
    )
    z = _zoc(g, CP)
    assert g.board.terrain_of(g.board.idx("0504")) == "high_mountain" and "0504" in around
    assert "0504" not in z  # high mountain
    assert around[4] not in z and around[2] not in z  # enemy fortress, neutral country
    assert around[3] in z and around[0] in z


@pytest.mark.rules("LGG 8-C", "LGG 23-A")
def test_lgg_8c_besieging_stack_exerts_none_and_a_fortress_does() -> None:
    g = game(
        pieces=[corps("inf", "DE", "0404", status=["besieging"]), fortress("ff", "FR", "0707")]
    )
    assert _zoc(g, CP) == set()
    assert "fortress" in zoc.zoc_map(g, EN)[g.board.idx("0706")]
    g2 = game(pieces=[fortress("ff", "FR", "0707", status=["besieged"])])
    assert zoc.zoc_map(g2, EN) == {}


@pytest.mark.rules("LGG 8-C")
def test_lgg_8c_no_zoc_into_a_stack_that_has_not_moved() -> None:
    pieces = [
        corps("de", "DE", "0404"),
        hq("fh", "FR", "0606", "FR-1"),
        corps("fr", "FR", "0405", army="FR-1"),
        corps("fr2", "FR", "0505", army="FR-1"),
    ]
    g = game(pieces=pieces, rules={"armies": [army("FR-1", "FR", "fh")]})
    assert "0405" in _zoc(g, CP)  # outside an activation every hex counts
    to_activation(g, EN, "FR-1")
    assert "0405" not in _zoc(g, CP)  # the French stack there has not moved yet
    act(g, EN, type="move", units=["fr"], to="0406", mode="normal")
    assert "0405" in _zoc(g, CP)  # now empty


@pytest.mark.rules("LGG 8-B")
def test_lgg_8b_lgg21_rigid_zoc_blocks_zoc_to_zoc_then_frees_next_turn() -> None:
    h1, h2 = "0405", "0305"  # both next to the German corps at 0404
    assert h1 in ring("0404") and h2 in ring("0404") and h2 in ring(h1)
    pieces = [
        corps("de", "DE", "0404"),
        hq("fh", "FR", "0407", "FR-1"),
        corps("fr", "FR", "0406", army="FR-1"),
    ]
    g = game(
        pieces=pieces,
        ruleset="lgg1418-hooked",
        rules={
            "first_turn": "1915-01",
            "last_turn": "1915-03",
            "armies": [army("FR-1", "FR", "fh")],
        },
    )
    assert "0406" not in _zoc(g, CP)
    to_activation(g, EN, "FR-1")
    act(g, EN, type="move", units=["fr"], to=h1, mode="normal")
    from grognard.rulesets.lgg1418.military import movement

    serial = current_act(g)["serial"]
    assert movement.entered_rigid(
        g, g.state.pieces["fr"], serial
    )  # a hidden fact, not in the unit's attributes
    assert "mv_rigid" not in g.state.pieces["fr"].attrs
    # The French cannot know that the marker at 0404 exerts a ZoC (4-A): the move is accepted and
    # refused by a reveal event; once revealed, the move is illegal.
    events = g.apply({"type": "move", "side": EN, "units": ["fr"], "to": h2, "mode": "normal"})
    assert M.hex_of(g, g.state.pieces["fr"]) == g.board.idx(h1)
    assert any(
        ev["type"] == "move-refused" and ev["rule"] == "LGG 8-B" and ev.get("reveal")
        for ev in events
    )
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "move", "side": EN, "units": ["fr"], "to": h2, "mode": "normal"})
    assert e.value.rule == "LGG 8-B"
    # it may attack the stack exerting the ZoC (the battle hook is installed in this variant)
    info = movement.check_move(
        g, current_act(g), [g.state.pieces["fr"]], g.board.idx("0404"), "normal"
    )
    assert info.engage and info.stop
    # and it may step back out of the enemy ZoC
    movement.check_move(g, current_act(g), [g.state.pieces["fr"]], g.board.idx("0406"), "normal")
    act(g, EN, type="end-movement")
    assert not movement.entered_rigid(
        g, g.state.pieces["fr"], serial
    )  # the next activation may go on from h1 to h2
