"""Rule 4: the sequence of play, turn dates, and the scenario victory conditions."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.greatwar import calendar
from grognard.rulesets.greatwar.units import units

from .helpers import CP, EN, army_hq, division, end, frame, game, idx, run_to, step_name


@pytest.mark.rules("OT 4")
def test_ot_4_turn_labels_and_dates() -> None:
    d = calendar.parse_turn("Sep I 14")
    assert (d.year, d.month, d.half) == (1914, 9, 1)
    assert calendar.parse_turn("Feb II 1917") == calendar.TurnDate(1917, 2, 2)
    assert (
        calendar.parse_turn("Jan II 15")
        < calendar.parse_turn("Feb I 15")
        < calendar.parse_turn("Feb II 15")
    )
    assert d.next().label() == "Sep II 14" and d.next().next().label() == "Oct I 14"
    assert calendar.parse_turn("Dec II 14").next().label() == "Jan I 15"
    assert (
        calendar.parse_turn("Jan I 15").is_production_cycle()
        and not calendar.parse_turn("Feb I 15").is_production_cycle()
    )
    with pytest.raises(calendar.TurnLabelError):
        calendar.parse_turn("Sept 1 1914")
    g = game(turns=[("Jan II 15", {})])
    assert calendar.before(g, "Feb I 15") and not calendar.before(g, "Jan II 15")
    assert calendar.on_or_after(g, "Jan II 15") and not calendar.on_or_after(g, "Feb I 15")


@pytest.mark.rules("OT 4", "OT 4A", "OT 4B")
def test_ot_4_game_turn_is_entente_then_central_powers_six_phases_each() -> None:
    g = game(
        pieces=[division("d", "France", "0203"), division("g", "Germany", "0703")],
        turns=[("Sep I 14", {})],
    )
    seen: list[tuple[str, str]] = []
    while not g.is_over():
        f = frame(g)
        seen.append((g.phase_path()[3] if len(g.phase_path()) > 3 else "", f.step))
        end(g)
    phases = []
    for ph, st in seen:
        if (ph, st) not in phases:
            phases.append((ph, st))
    labels = [p for p, _ in phases]
    assert labels[:5] == [
        "Movement phase (Entente)",
        "Combat phase (Entente)",
        "Combat phase (Entente)",
        "Reaction combat phase (Entente)",
        "Exploitation phase (Entente)",
    ]
    steps = [s for _, s in phases]
    assert steps[:5] == [
        "ground-movement",
        "bombardment-segment",
        "combat-segment",
        "combat-segment",
        "exploitation-movement",
    ]
    assert labels[5].endswith("(Central Powers)")
    assert g.state.result is not None


@pytest.mark.rules("OT 4B")
def test_ot_4b_phasing_player() -> None:
    g = game(pieces=[division("d", "France", "0203"), division("g", "Germany", "0703")])
    assert frame(g).params["side"] == EN and g.acting_sides() == [EN]
    run_to(g, "ground-movement", CP)
    assert g.acting_sides() == [CP]
    assert g.legal_actions(EN) == []


@pytest.mark.rules("OT 4A1")
def test_ot_4a1_initial_phase_work() -> None:
    g = game(
        pieces=[
            division("d", "France", "0203"),
            army_hq("h", "Germany", "0703", face="inactive"),
            division("g", "Germany", "0603"),
        ]
    )
    units.disrupt(g, g.state.pieces["g"])
    run_to(g, "ground-movement", CP)
    texts = [ev["text"] for ev in g.state.log]
    assert any("isolated hex" in t and "initial phase" in t for t in texts)
    assert (
        g.state.pieces["h"].face == "active"
    )  # OT 14M1: inactive Army HQs flip in their initial phase
    assert units.disruption(g.state.pieces["g"]) == 0


@pytest.mark.rules("OT 4A2", "OT 4A3", "OT 4A5", "OT 4A6")
def test_ot_4a2_to_4a6_who_acts_in_each_phase() -> None:
    g = game(
        pieces=[
            division("d", "France", "0203"),
            division("g", "Germany", "0703"),
            army_hq("hq", "Germany", "0704"),
        ]
    )
    assert step_name(g) == "ground-movement" and g.acting_sides() == [EN]
    end(g)
    assert step_name(g) == "bombardment-segment" and frame(g).params["attacker"] == EN
    end(g)
    assert step_name(g) == "combat-segment" and frame(g).params == {
        "attacker": EN,
        "defender": CP,
        "reaction": False,
    }
    end(g)
    assert step_name(g) == "reaction-movement" and g.acting_sides() == [CP]
    end(g)
    assert (
        step_name(g) == "combat-segment"
        and frame(g).params["attacker"] == CP
        and frame(g).params["reaction"] is True
    )
    end(g)
    assert step_name(g) == "exploitation-movement" and g.acting_sides() == [EN]


@pytest.mark.rules("OT 4A4")
def test_ot_4a4_reaction_movement_checks_hqs_one_at_a_time() -> None:
    g = game(
        pieces=[
            division("d", "France", "0203"),
            division("g", "Germany", "0703"),
            army_hq("hq", "Germany", "0704"),
            army_hq("hq2", "Germany", "0801"),
        ]
    )
    run_to(g, "reaction-movement")
    acts = g.legal_actions(CP)
    assert {"type": "check-hq", "side": CP, "hq": "hq"} in acts and not any(
        a["type"] == "move" for a in acts
    )
    end(g)  # ending checks every HQ not yet checked
    checks = [ev for ev in g.state.log if ev["type"] == "activation"]
    assert len(checks) == 2


@pytest.mark.rules("OT 4C")
def test_ot_4c_activities_only_in_their_phase() -> None:
    g = game(pieces=[division("d", "France", "0203"), division("g", "Germany", "0703")])
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "check-hq", "side": EN, "hq": "d"})
    assert e.value.rule == "OT 4C"
    end(g)
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "move", "side": EN, "piece": "d", "to": "0303"})
    assert e.value.rule == "OT 4C"


def test_victory_points_at_the_end() -> None:
    g = game(
        pieces=[division("d", "France", "0203"), division("g", "Germany", "0703")],
        turns=[("Sep I 14", {})],
        victory=(
            'margin = 1\nobjectives = [{ hex = "0203", points = 2 }, { hex = "0703", points = 1 }]'
        ),
    )
    while not g.is_over():
        end(g)
    assert g.state.result["winner"] == EN


def test_victory_sudden_death_and_draw() -> None:
    g = game(
        pieces=[division("d", "France", "0203"), division("g", "Germany", "0703")],
        turns=[("Sep I 14", {}), ("Sep II 14", {})],
        victory=(
            'sudden_death = [{ side = "Entente", hexes = ["0601"] }]\nobjectives = [{ hex = "0203"'
            ' }, { hex = "0703" }]'
        ),
    )
    g.state.control[idx(g, "0601")] = EN
    while not g.is_over():
        end(g)
    assert g.state.result["winner"] == EN and "sudden death" in g.state.result["reason"]
    g2 = game(
        pieces=[division("d", "France", "0203"), division("g", "Germany", "0703")],
        turns=[("Sep I 14", {})],
        victory='objectives = [{ hex = "0203" }, { hex = "0703" }]',
    )
    while not g2.is_over():
        end(g2)
    assert g2.state.result["winner"] is None
