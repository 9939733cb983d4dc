"""OT 14O: transport units -- modes, cargo and supply line extension (OT-S-10, 11, 12, 62)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.movement import movement
from grognard.rulesets.greatwar.units import special_units, transport_units, units

from .helpers import CP, EN, frame, game, idx, move, unit

TR_FACES = {
    "transport": {"attack": 0, "defense": 0, "move": 6},
    "supply-line": {"attack": 0, "defense": 0},
}


def gsp(pid: str, at: str) -> dict:
    return {"id": pid, "type": "gsp", "nation": "France", "at": at}


def _g(pieces, **kw):
    return game(pieces=pieces, **kw)


@pytest.mark.rules("OT 14O", "OT 14O1")
def test_ot_14o1_modes() -> None:
    g = _g(
        [
            unit("pk", "pack-transport", "France", "0101", faces=TR_FACES),
            unit("r", "rifle", "France", "0101"),
        ]
    )
    pk = g.state.pieces["pk"]
    assert special_units.is_transport(pk) and not special_units.supply_line_mode(pk)
    g.state.vars["gw"]["phasing"] = EN
    assert transport_units.mode_problem(g, EN, pk) is None
    transport_units.flip_mode(g, pk)
    assert special_units.supply_line_mode(pk) and pk.face == "supply-line"
    assert "retreat" in (special_units.retreat_eliminates(g, pk) or "")
    f = frame(g)
    assert "may not move" in (transport_units.TransportExtension().move_problem(g, f, pk) or "")
    assert (
        transport_units.load_problem(g, f, {"side": EN, "transport": "pk", "cargo": "r"})
        is not None
    )
    g.state.vars["gw"]["phasing"] = CP
    assert transport_units.mode_problem(g, EN, pk) is not None  # only in its owner's initial phase
    transport_units.enter_transport_mode(g, pk)
    assert not special_units.supply_line_mode(pk)


@pytest.mark.rules("OT 14O2")
def test_ot_14o2_capacity() -> None:
    """OT-S-10 (with the audit's wording): 3 RE of units, or a 3-RE mix, or 6 RE of logistics
    items; 4 RE of units, or 2 RE of units with 2 RE of logistics, are refused; a disrupted
    transport carries nothing."""
    g = _g(
        [
            unit("mt", "motorized-transport", "France", "0101", faces=TR_FACES),
            unit("b1", "rifle", "France", "0101", size="brigade"),
            unit("r1", "rifle", "France", "0101"),
            unit("r2", "rifle", "France", "0101"),
        ]
        + [gsp(f"s{k}", "0101") for k in range(24)]
    )
    ps = g.state.pieces
    mt = ps["mt"]
    gs = [ps[f"s{k}"] for k in range(24)]
    assert transport_units.capacity_problem(g, mt, [ps["b1"], ps["r1"]]) is None
    assert transport_units.capacity_problem(g, mt, [ps["b1"], *gs[:4]]) is None
    assert transport_units.capacity_problem(g, mt, gs) is None  # 24 x 1/4 = 6 RE
    assert transport_units.capacity_problem(g, mt, [ps["b1"], ps["r1"], ps["r2"]]) is not None
    assert transport_units.capacity_problem(g, mt, [ps["b1"], *gs[:8]]) is not None
    mt.status.add("disrupted")
    assert transport_units.capacity_problem(g, mt, [ps["r1"]]) is not None


@pytest.mark.rules("OT 14O2")
def test_ot_14o2_combined_unit() -> None:
    """OT-S-11: a 0-6 mountain pack transport regiment with a 2-3-5* rifle brigade and four GSPs is
    a 2-3-6* mountain pack transport unit of 4 RE."""
    g = _g(
        [
            unit("pk", "mountain-pack-transport", "France", "0101", a=0, d=0, m=6),
            unit("b", "rifle", "France", "0101", a=2, d=3, m=5, size="brigade", support="self"),
        ]
        + [gsp(f"s{k}", "0101") for k in range(4)]
    )
    f = frame(g)
    for c in ["b", "s0", "s1", "s2", "s3"]:
        g.apply({"type": "load", "side": EN, "transport": "pk", "cargo": c})
    pk = g.state.pieces["pk"]
    comb = transport_units.combined(g, pk)
    assert comb == {
        "type": "mountain-pack-transport",
        "move": 6,
        "attack": 2,
        "defense": 3,
        "re": 4,
        "support": "self",
    }
    assert f.params["units"]["b"]["carried"]
    g.apply({"type": "move", "side": EN, "piece": "pk", "to": "0201"})
    assert units.hex_of(g, g.state.pieces["b"]) == idx(g, "0201")
    g.apply({"type": "unload", "side": EN, "cargo": "b"})
    with pytest.raises(IllegalAction):
        move(g, "b", "0202")  # carried this phase: may not also move by itself


@pytest.mark.rules("OT 14O2")
def test_ot_14o2_no_carrying_after_moving_and_units_set_down_at_phase_end() -> None:
    g = _g(
        [
            unit("pk", "pack-transport", "France", "0101", a=0, d=0, m=6),
            unit("r", "rifle", "France", "0101"),
            unit("q", "rifle", "France", "0101"),
        ]
    )
    move(g, "r", "0201")
    g.state.move("r", Loc.hex(idx(g, "0101")))
    with pytest.raises(IllegalAction):
        g.apply({"type": "load", "side": EN, "transport": "pk", "cargo": "r"})
    g.apply({"type": "load", "side": EN, "transport": "pk", "cargo": "q"})
    g.apply({"type": "end-phase", "side": EN})
    assert g.state.pieces["q"].loc == Loc.hex(idx(g, "0101"))


@pytest.mark.rules("OT 14O2a")
def test_ot_14o2a_motorized_transport() -> None:
    g = _g(
        [
            unit("mt", "motorized-transport", "France", "0101", a=0, d=0, m=6),
            unit("fa", "field-artillery", "France", "0101"),
            unit("ha", "heavy-artillery", "France", "0101"),
            unit(
                "ahq",
                "army-hq",
                "France",
                "0101",
                faces={
                    "active": {"attack": 0, "defense": 0, "move": 5},
                    "inactive": {"attack": 0, "defense": 0, "move": 5},
                },
                face="active",
                size="army",
            ),
        ],
        turns=[("Jan II 17", {}), ("Feb I 17", {})],
    )
    ps = g.state.pieces
    mt = ps["mt"]
    assert transport_units.may_carry(g, mt, ps["fa"]) is None
    assert transport_units.cargo_re(g, mt, ps["fa"]) == 2  # every artillery unit counts double
    assert transport_units.may_carry(g, mt, ps["ha"]) is not None  # HE
    assert transport_units.may_carry(g, mt, ps["ahq"]) is not None
    assert movement.fraction_for(g, mt, movement.EXPLOITATION) == Fraction(1, 2)
    g.state.turn = {"index": 2, "label": "Feb I 17"}
    assert movement.fraction_for(g, mt, movement.EXPLOITATION) == 1


@pytest.mark.rules("OT 14O2b", "OT 14O2b-i", "OT 14O2b-ii")
def test_ot_14o2b_pack_transports_where_they_extend_supply() -> None:
    g = _g(
        [
            unit("pk", "pack-transport", "France", "0101", a=0, d=0, m=6),
            unit("mp", "mountain-pack-transport", "France", "0101", a=0, d=0, m=6),
            unit("cp", "camel-pack-transport", "France", "0102", a=0, d=0, m=6),
            unit("fa", "field-artillery", "France", "0101"),
            unit("r", "rifle", "France", "0101"),
        ],
        rows=["mccccccc"] + ["cccccccc"] * 5,
        areas=[{"name": "F", "kind": "weather-zone", "hexes": ["0102"]}],
    )
    ps = g.state.pieces
    assert transport_units.may_carry(g, ps["pk"], ps["r"]) is None
    assert transport_units.may_carry(g, ps["pk"], ps["fa"]) is not None
    for p in ("pk", "mp", "cp"):
        ps[p].status.add("supply-line")
    mtn, desert = idx(g, "0101"), idx(g, "0102")
    assert transport_units.extends_in(g, ps["mp"], mtn) and not transport_units.extends_in(
        g, ps["pk"], mtn
    )
    assert transport_units.extends_in(g, ps["cp"], desert) and not transport_units.extends_in(
        g, ps["pk"], desert
    )
    assert special_units.is_camel(ps["cp"])


@pytest.mark.rules("OT 14O3")
def test_ot_14o3_supply_line_extension() -> None:
    """OT-S-12 / OT-S-62: one supply-line transport on the overland path: +1; a different one on the
    road path: +1 there too; 2 transports +1, 3 or 5 transports +2; disrupted ones nothing."""
    g = _g(
        [
            unit(
                f"t{k}", "motorized-transport", "France", "0101" if k < 5 else "0103", a=0, d=0, m=6
            )
            for k in range(6)
        ]
    )
    ps = g.state.pieces
    for p in ps.values():
        p.status.add("supply-line")
    a, b = idx(g, "0101"), idx(g, "0103")
    bonus, used = transport_units.extension(g, EN, [b])
    assert bonus == 1 and used == {"t5"}
    bonus2, _ = transport_units.extension(g, EN, [b], used)
    assert bonus2 == 0  # t5 already extends the other element
    for n, want in ((1, 1), (2, 1), (3, 2), (5, 2)):
        for k in range(5):
            ps[f"t{k}"].status.discard("disrupted")
            if k >= n:
                ps[f"t{k}"].status.add("disrupted")
        assert transport_units.extension(g, EN, [a])[0] == want
