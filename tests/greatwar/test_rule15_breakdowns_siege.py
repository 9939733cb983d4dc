"""OT 15F breakdowns and assembly (OT-S-25) and OT 15G sieges."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.combat import siege, siege_relief
from grognard.rulesets.greatwar.map import geography, zoc
from grognard.rulesets.greatwar.units import breakdowns, units

from .helpers import CP, EN, division, game, idx, move, run_to, unit

BD = """[[rules.breakdowns]]
parent = "dv"
components = ["b1", "b2"]

[[rules.breakdowns]]
letter = "A"
parents = ["d1", "d2"]
components = ["x1", "x2"]

[[rules.breakdowns]]
parent = "asm"
components = ["r1", "a1"]
assemble_only = true
"""


def _bd_pieces():
    return [
        division("dv", "France", "0101"),
        unit("b1", "rifle", "France", None, size="brigade"),
        unit("b2", "rifle", "France", None, size="brigade"),
        division("d1", "France", "0102"),
        division("d2", "France", "0103"),
        unit("x1", "rifle", "France", None, size="brigade"),
        unit("x2", "rifle", "France", None, size="brigade"),
        division("asm", "Britain", None),
        unit("r1", "rifle", "Britain", "0104", size="brigade"),
        unit("a1", "field-artillery", "Britain", "0104"),
    ]


def _bd_game():
    return game(pieces=_bd_pieces(), rules=BD)


@pytest.mark.rules("OT 15F", "OT 15F1", "OT 15F2")
def test_ot_15f1_break_down_and_assemble_with_the_worst_state() -> None:
    """OT-S-25: a badly disrupted brigade and an undisrupted one assemble into a badly disrupted
    division."""
    g = _bd_game()
    assert {"type": "breakdown", "side": EN, "piece": "dv"} in g.legal_actions(EN)
    g.apply({"type": "breakdown", "side": EN, "piece": "dv"})
    ps = g.state.pieces
    assert g.state.where("dv").kind == "box"
    assert units.hex_of(g, ps["b1"]) == units.hex_of(g, ps["b2"]) == idx(g, "0101")
    move(g, "b1", "0201")
    with pytest.raises(IllegalAction):
        g.apply({"type": "assemble", "side": EN, "parent": "dv", "components": ["b1", "b2"]})
    g.state.move("b1", Loc.hex(idx(g, "0101")))
    ps["b1"].status.add("badly-disrupted")
    ps["b2"].attrs["fatigue"] = 2
    g.apply({"type": "assemble", "side": EN, "parent": "dv", "components": ["b1", "b2"]})
    dv = ps["dv"]
    assert (
        units.hex_of(g, dv) == idx(g, "0101")
        and units.disruption(dv) == 2
        and dv.attrs.get("fatigue") == 2
    )
    assert g.state.where("b1").kind == "box"
    with pytest.raises(IllegalAction):
        move(g, "dv", "0201")  # assembled at the end of its movement


@pytest.mark.rules("OT 15F1")
def test_ot_15f1_breakdown_only_at_the_start() -> None:
    g = _bd_game()
    move(g, "dv", "0201")
    with pytest.raises(IllegalAction):
        g.apply({"type": "breakdown", "side": EN, "piece": "dv"})


@pytest.mark.rules("OT 15F3", "OT 15F3a")
def test_ot_15f3a_lettered_sets_serve_one_unit_at_a_time() -> None:
    g = _bd_game()
    g.apply({"type": "breakdown", "side": EN, "piece": "d1"})
    assert g.state.where("d1") == Loc.box("breakdown:Entente:A")
    assert "in use" in (breakdowns.breakdown_problem(g, g.state.pieces["d2"]) or "")


@pytest.mark.rules("OT 15F3b")
def test_ot_15f3b_specific_counters_and_assemble_only() -> None:
    g = _bd_game()
    assert (
        breakdowns.breakdown_problem(
            g, g.state.pieces["d1"], [g.state.pieces["b1"], g.state.pieces["b2"]]
        )
        is not None
    )
    ps = g.state.pieces
    assert breakdowns.assemble_problem(g, ps["asm"], [ps["r1"], ps["a1"]]) is None
    run_to(g, "ground-movement", EN)
    g.apply({"type": "assemble", "side": EN, "parent": "asm", "components": ["r1", "a1"]})
    assert units.hex_of(g, ps["asm"]) == idx(g, "0104")
    assert "never broken down" in (breakdowns.breakdown_problem(g, ps["asm"]) or "")


@pytest.mark.rules("OT 15F2")
def test_ot_15f2_units_not_on_the_charts_do_not_break_down() -> None:
    """Only the units on the game charts are offered a breakdown (dv with its own counters, d1 and
    d2 with lettered set A); a division not on the charts is refused, naming OT 15F2, and nothing
    changes. dv's counters take its place and it waits in its chart box."""
    g = game(pieces=[*_bd_pieces(), division("dn", "France", "0105")], rules=BD)
    offered = {a["piece"] for a in g.legal_actions(EN) if a["type"] == "breakdown"}
    assert offered == {"dv", "d1", "d2"}
    before = g.state_hash()
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "breakdown", "side": EN, "piece": "dn"})
    assert e.value.rule == "OT 15F2" and g.state_hash() == before
    g.apply({"type": "breakdown", "side": EN, "piece": "dv"})
    assert g.state.where("dv") == Loc.box("breakdown:Entente")
    assert {g.board.label(units.hex_of(g, g.state.pieces[c])) for c in ("b1", "b2")} == {"0101"}


@pytest.mark.rules("OT 15F2", "OT 15F3a")
def test_ot_15f2_no_more_breakdowns_than_counters() -> None:
    """Lettered set A has one pair of counters: once d1 has broken down into x1 and x2, d2 is no
    longer offered a breakdown and is refused (OT 15F2: no more breakdowns than counters)."""
    g = _bd_game()
    g.apply({"type": "breakdown", "side": EN, "piece": "d1"})
    assert {g.board.label(units.hex_of(g, g.state.pieces[c])) for c in ("x1", "x2")} == {"0102"}
    offered = {a["piece"] for a in g.legal_actions(EN) if a["type"] == "breakdown"}
    assert offered == {"dv"}
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "breakdown", "side": EN, "piece": "d2"})
    assert e.value.rule == "OT 15F2" and "in use" in str(e.value)
    assert units.hex_of(g, g.state.pieces["d2"]) == idx(g, "0103")


# ============================================================================ 15G
def _siege_game():
    g0 = game(pieces=[])
    ring = geography.adjacent_hexes(g0, idx(g0, "0503"))
    labels = [g0.board.label(h) for h in ring]
    pieces = [division("cp", "Germany", "0503"), division("cp2", "Germany", "0805")]
    pieces += [division(f"e{k}", "France", lab) for k, lab in enumerate(labels)]
    return game(pieces=pieces, options={"siege": True}), labels


@pytest.mark.rules("OT 15G")
def test_ot_15g_siege_established_and_its_effects() -> None:
    g, ring = _siege_game()
    i = idx(g, "0503")
    assert siege.surrounded(g, EN, i)
    assert i in g.state.vars["gw"]["siege_candidates"]["hexes"]
    owner = g.state.control[i]
    move(g, "e0", "0503")
    assert siege.siege_at(g, i) == {"besieged": CP, "sieging": EN}
    assert g.state.control[i] == owner  # ownership unchanged
    cp = g.state.pieces["cp"]
    assert siege.zoc_only_own_hex(g, cp) and zoc.zoc_hexes(g, cp) == [i]
    assert siege.attack_problem(g, [cp], idx(g, ring[1])) is not None
    assert siege.attack_problem(g, [cp], i) is None
    assert siege.attack_problem(g, [g.state.pieces["e1"]], i) is None
    assert siege.entry_problem(g, g.state.pieces["cp2"], i) is not None


@pytest.mark.rules("OT 15G")
def test_ot_15g_siege_lifted_by_relief_and_by_leaving() -> None:
    g, ring = _siege_game()
    i = idx(g, "0503")
    move(g, "e0", "0503")
    j = idx(g, ring[1])
    g.state.move("e1", Loc.hex(idx(g, "0101")))
    g.state.move("cp2", Loc.hex(j))
    siege_relief.check_sieges(g)
    assert g.acting_sides() == [EN]
    opts = g.legal_actions(EN)
    assert opts and all(a["type"] == "retreat" and a["piece"] == "e0" for a in opts)
    g.apply(opts[0])
    assert siege.siege_at(g, i) is None and units.hex_of(g, g.state.pieces["e0"]) != i
    g2, _ = _siege_game()
    i2 = idx(g2, "0503")
    move(g2, "e0", "0503")
    g2.state.move("e0", Loc.hex(idx(g2, "0101")))
    siege_relief.check_sieges(g2)
    assert siege.siege_at(g2, i2) is None
