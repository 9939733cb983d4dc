"""OT 6F: overruns."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.combat import combat_strength
from grognard.rulesets.greatwar.movement import movement
from grognard.rulesets.greatwar.units import units

from .helpers import CP, EN, division, force_dice, frame, game, idx, step_name, unit


def strong(at: str) -> list[dict]:
    return [division(f"f{k}", "France", at) for k in range(4)]


@pytest.mark.rules("OT 6F1")
def test_ot_6f1_odds_vectors() -> None:
    """OT-G-25/26/27: 116 against 8 is 14:1; shifted +1 -5 to 10:1 it still succeeds, at 9:1 it
    fails;
    a defense of 0 is overrun at 12:1 by any positive attack."""
    assert combat_strength.overrun_ratio(116, 8) == 14
    assert combat_strength.overrun_succeeds(14, 1 - 5)
    assert not combat_strength.overrun_succeeds(14, 1 - 6)
    assert combat_strength.overrun_ratio(1, 0) == 12
    assert combat_strength.overrun_ratio(0, 0) == 0


@pytest.mark.rules("OT 6F", "OT 6F1")
def test_ot_6f1_overrun_eliminates_the_hex_and_charges_mps() -> None:
    g = game(
        pieces=[*strong("0403"), unit("bn", "rifle", "Germany", "0503", a=1, d=1, size="battalion")]
    )
    pre = {p: movement.spent(frame(g), g.state.pieces[p]) for p in ("f0", "f1")}
    g.apply(
        {
            "type": "overrun",
            "side": EN,
            "pieces": ["f0", "f1", "f2", "f3"],
            "target": "0503",
            "advance": ["f0"],
        }
    )
    assert g.state.pieces["bn"].loc == Loc.box("eliminated")
    assert units.hex_of(g, g.state.pieces["f0"]) == idx(g, "0503")
    assert units.hex_of(g, g.state.pieces["f1"]) == idx(g, "0403")
    cost = movement.spent(frame(g), g.state.pieces["f1"]) - pre["f1"]
    assert cost == 1 + 2  # clear hex + standard overrun cost (the overrun target's ZOC is not paid)
    assert g.state.control[idx(g, "0503")] == EN


@pytest.mark.rules("OT 6F1")
def test_ot_6f1_conditions() -> None:
    g = game(pieces=[division("f0", "France", "0403"), division("g", "Germany", "0503")])
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "overrun", "side": EN, "pieces": ["f0"], "target": "0503"})
    assert "10:1" in e.value.message
    g2 = game(
        pieces=[*strong("0403"), unit("bn", "rifle", "Germany", "0503", a=1, d=1, size="battalion")]
    )
    g2.state.pieces["f0"].attrs["fatigue"] = 99
    with pytest.raises(IllegalAction):
        g2.apply(
            {"type": "overrun", "side": EN, "pieces": ["f0", "f1", "f2", "f3"], "target": "0503"}
        )
    with pytest.raises(IllegalAction):
        g2.apply(
            {"type": "overrun", "side": EN, "pieces": ["f1"], "target": "0603"}
        )  # not adjacent / no enemy
    g3 = game(
        rows=["cccccccc", "cccccccc", "ccccmccc"],
        pieces=[
            *[division(f"f{k}", "France", "0403") for k in range(5)],
            unit("bn", "rifle", "Germany", "0503", a=1, d=1, size="battalion"),
        ],
    )
    with pytest.raises(IllegalAction) as e:
        g3.apply(
            {"type": "overrun", "side": EN, "pieces": [f"f{k}" for k in range(5)], "target": "0503"}
        )
    assert e.value.rule == "OT 8B"  # the mountain hex's limit caps the overrunning units
    g3.apply(
        {"type": "overrun", "side": EN, "pieces": [f"f{k}" for k in range(4)], "target": "0503"}
    )
    assert g3.state.pieces["bn"].loc == Loc.box("eliminated")


@pytest.mark.rules("OT 6F1", "OT 6B3")
def test_ot_6f1_no_overrun_under_accel() -> None:
    g = game(
        pieces=[*strong("0303"), unit("bn", "rifle", "Germany", "0503", a=1, d=1, size="battalion")]
    )
    for k in range(4):
        g.apply({"type": "move", "side": EN, "piece": f"f{k}", "to": "0403", "accel": True})
    with pytest.raises(IllegalAction) as e:
        g.apply(
            {"type": "overrun", "side": EN, "pieces": ["f0", "f1", "f2", "f3"], "target": "0503"}
        )
    assert e.value.rule == "OT 6B3"


@pytest.mark.rules("OT 6F2")
def test_ot_6f2_retreat_before_overrun() -> None:
    g = game(
        pieces=[
            *strong("0403"),
            unit("cav", "mounted-rifle", "Germany", "0503", a=1, d=1, m=7, size="regiment"),
        ]
    )
    before = movement.spent(frame(g), g.state.pieces["f1"])
    g.apply({"type": "overrun", "side": EN, "pieces": ["f0", "f1", "f2", "f3"], "target": "0503"})
    assert step_name(g) == "retreat-before-overrun" and g.acting_sides() == [CP]
    force_dice(g, [6])
    g.apply({"type": "retreat-attempt", "side": CP, "piece": "cav"})
    opts = g.legal_actions(CP)
    assert all(a["type"] == "retreat" for a in opts) and opts
    g.apply(opts[0])
    assert units.hex_of(g, g.state.pieces["cav"]) != idx(g, "0503")
    g.apply({"type": "done", "side": CP})
    assert step_name(g) == "ground-movement"
    assert movement.spent(frame(g), g.state.pieces["f1"]) == before  # nobody left: no overrun cost
    assert any("escaped" in ev["text"] for ev in g.state.log)


@pytest.mark.rules("OT 6F2", "OT 14L")
def test_ot_6f2_failed_attempt_then_overrun() -> None:
    g = game(
        pieces=[
            *strong("0403"),
            unit("irr", "irregular-rifle", "Germany", "0503", a=1, d=1, m=5, size="regiment"),
        ]
    )
    g.apply({"type": "overrun", "side": EN, "pieces": ["f0", "f1", "f2", "f3"], "target": "0503"})
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "done", "side": CP})
    assert e.value.rule == "OT 14L"  # irregulars must try
    force_dice(g, [1])
    g.apply({"type": "retreat-attempt", "side": CP, "piece": "irr"})
    assert units.disruption(g.state.pieces["irr"]) == 1
    g.apply({"type": "done", "side": CP})
    assert g.state.pieces["irr"].loc == Loc.box("eliminated")


@pytest.mark.rules("OT 6F3")
def test_ot_6f3_same_hex_overrun_costs_no_mps() -> None:
    g = game(
        pieces=[*strong("0503"), unit("bn", "rifle", "Germany", "0603", a=1, d=1, size="battalion")]
    )
    g.state.move("bn", Loc.hex(idx(g, "0503")))
    g.apply({"type": "overrun", "side": EN, "pieces": ["f0", "f1", "f2", "f3"], "target": "0503"})
    assert g.state.pieces["bn"].loc == Loc.box("eliminated")
    assert movement.spent(frame(g), g.state.pieces["f0"]) == 0


def test_overrun_offered_in_legal_actions() -> None:
    g = game(
        pieces=[*strong("0403"), unit("bn", "rifle", "Germany", "0503", a=1, d=1, size="battalion")]
    )
    offers = [a for a in g.legal_actions(EN) if a["type"] == "overrun"]
    assert offers and offers[0]["target"] == "0503"
    assert CP not in g.acting_sides()
