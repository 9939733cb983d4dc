"""OT 14B2: water-only units (OT-S-2, 47, 48)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.movement import water_only
from grognard.rulesets.greatwar.units import units

from .helpers import CP, EN, force_dice, frame, game, idx, move, unit

RIVER = ["0303/0403", "0303/0402", "0304/0403", "0403/0402", "0603/0703"]


def gunboat(pid: str, nation: str, side_label: str, a: int = 1, **kw) -> dict:
    d = unit(pid, "machinegun", nation, None, a=a, d=1, m="W", **kw)
    d["at"] = {"hexside": side_label}
    return d


def _g(pieces, **kw):
    return game(pieces=pieces, hexsides=[("river", RIVER)], **kw)


def _side(g, lab: str) -> int:
    s = water_only.side_from_label(g, lab)
    assert s is not None
    return s


@pytest.mark.rules("OT 14B2")
def test_ot_14b2_interdiction_example_turned_back() -> None:
    """OT-S-2: entering a hexside interdicted by a 5-7-5 heavy artillery regiment (NGS 2.5) and a
    6-9-5 rifle division (NGS 0.5), the enemy rolls 3 and 5: 8 - 3 = +5, turned back to the hexside
    it came from with 5 MP deducted."""
    g = _g(
        [
            gunboat("gb", "France", "0303/0403"),
            unit("ha", "heavy-artillery", "Germany", None, a=5, d=7, m=5),
            unit(
                "rd",
                "rifle",
                "Germany",
                None,
                a=6,
                d=9,
                m=5,
                size="division",
                faces={"full": {"attack": 6, "defense": 9, "move": 5}},
            ),
        ]
    )
    g.state.move("ha", Loc.hex(idx(g, "0303")))
    g.state.move("rd", Loc.hex(idx(g, "0402")))
    target = _side(g, "0303/0402")
    assert water_only.interdiction(g, EN, target) == 3
    force_dice(g, [3, 5])
    g.apply({"type": "gunboat-move", "side": EN, "piece": "gb", "hexsides": ["0303/0402"]})
    gb = g.state.pieces["gb"]
    assert gb.loc == Loc.hexside(_side(g, "0303/0403"))
    assert water_only.remaining(g, frame(g), gb) == 40 - 1 - 5
    assert any(e["type"] == "interdiction" and "turned back" in e["text"] for e in g.state.log)


@pytest.mark.rules("OT 14B2")
def test_ot_14b2_differential_bands() -> None:
    """OT-S-47: 0 and -3 eliminate, +1 turns back, +6 no effect; fractions below +1 eliminate."""
    r = water_only.interdiction_result
    assert r(Fraction(0)) == r(Fraction(-3)) == r(Fraction(1, 2)) == "eliminated"
    assert r(Fraction(1)) == r(Fraction(11, 2)) == "turned-back"
    assert r(Fraction(6)) == "no-effect"


@pytest.mark.rules("OT 14B2")
def test_ot_14b2_movement_zoc_free_forty_mp_and_blocking() -> None:
    g = _g(
        [
            gunboat("gb", "France", "0303/0403"),
            gunboat("eg", "France", "0603/0703", a=2),
            unit("gm", "rifle", "Germany", "0703"),
            unit("r", "rifle", "France", "0203"),
        ]
    )
    gb = g.state.pieces["gb"]
    assert (
        water_only.water_side(g, _side(g, "0303/0403"))
        and water_only.remaining(g, frame(g), gb) == 40
    )
    g.apply({"type": "gunboat-move", "side": EN, "piece": "gb", "hexsides": ["0304/0403"]})
    assert gb.loc == Loc.hexside(_side(g, "0304/0403"))
    with pytest.raises(IllegalAction):
        g.apply(
            {"type": "gunboat-move", "side": EN, "piece": "gb", "hexsides": ["0203/0303"]}
        )  # not a water hexside
    with pytest.raises(IllegalAction):
        move(g, "gb", "0404")
    from .helpers import run_to

    run_to(g, "ground-movement", CP)
    with pytest.raises(IllegalAction) as e:
        move(g, "gm", "0603")
    assert "14B2" in str(e.value)


@pytest.mark.rules("OT 14B2")
def test_ot_14b2_retreat_and_retreat_into_interdiction() -> None:
    """OT-S-48: a water-only unit retreating into an interdicted hexside that turns it back is
    eliminated."""
    g = _g(
        [
            gunboat("gb", "France", "0303/0403"),
            unit("ha", "heavy-artillery", "Germany", None, a=8, d=7, m=5),
        ]
    )
    gb = g.state.pieces["gb"]
    opts = water_only.retreat_options(g, gb)
    assert _side(g, "0303/0402") in opts and all(water_only.water_side(g, s) for s in opts)
    g.state.move("ha", Loc.hex(idx(g, "0402")))  # NGS 4 on 0303/0402
    force_dice(g, [3, 4])  # 7 - 4 = +3: turned back
    water_only.retreat_to(g, gb, _side(g, "0303/0402"))
    assert gb.loc == Loc.box("eliminated")


@pytest.mark.rules("OT 14B2")
def test_ot_14b2_phase_start_attack_and_advance_rules() -> None:
    from grognard.rulesets.greatwar.units import special_units

    g = _g(
        [
            gunboat("gb", "France", "0303/0403"),
            unit("ha", "heavy-artillery", "Germany", None, a=10, d=7, m=5),
        ]
    )
    gb = g.state.pieces["gb"]
    assert (
        special_units.no_advance(g, gb) is not None
        and special_units.no_advance(g, gb, along_waterway=True) is None
    )
    assert sorted(water_only.adjacent_hexes(g, gb)) == sorted([idx(g, "0303"), idx(g, "0403")])
    assert water_only.may_join_defense(g, gb, idx(g, "0303"))
    g.state.move("ha", Loc.hex(idx(g, "0303")))  # NGS 5
    force_dice(g, [1, 2])  # 3 - 5 < 1: eliminated
    water_only.phase_start(g, "combat")
    assert gb.loc == Loc.box("eliminated")


@pytest.mark.rules("OT 14B2")
def test_ot_14b2_overrun_along_the_waterway() -> None:
    g = _g([gunboat("gb", "France", "0303/0403", a=10), gunboat("eg", "Germany", "0303/0402", a=0)])
    g.apply({"type": "gunboat-overrun", "side": EN, "piece": "gb", "target": "0303/0402"})
    assert g.state.pieces["eg"].loc == Loc.box("eliminated")
    assert g.state.pieces["gb"].loc == Loc.hexside(_side(g, "0303/0402"))
    assert units.is_water_only(g.state.pieces["gb"])
