"""The shipped eastfront scenarios: Sevastopol 1941-42 and the tutorial, played through."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.game import Game
from grognard.rulesets.eastfront.model import NMI_BOX, ef
from grognard.scenario import find
from grognard.selfplay import SelfplayReport, play_one


def play(g: Game, type: str, side: str, **fields) -> list[dict]:
    return g.apply({"type": type, "side": side, **fields})


@pytest.mark.rules("NM 31.1", "NM 30.1", "NM 27.2", "NM 30.3", "NM 27.12", "NM 29.1", "NM 30.24")
def test_nm_30_1_tutorial_walk_through_across_the_kerch_strait():
    """The walk-through of docs/rulesets/eastfront.md: the Ju 88 sets Interdiction Level 1;
    the Soviets load two divisions for an assault at Taman, sail them next to Kerch, the
    K.Kavkas to a support hex; the strait rolls on the Both column (CD doubled next to the
    Defender Hex); the Kerch battery fires at Gp-A instead of supporting the defence; the
    assault with the cruiser's support takes Kerch; the cruiser then must go back to port."""
    g = Game.new(find("eastfront-tutorial"), 1)
    play(g, "end-phase", "Axis")  # Axis Naval Readiness Phase
    play(g, "fly", "Axis", air="ax-ju88", target=NMI_BOX, role="mission")
    play(g, "fly", "Axis", air="ax-bf109", target=NMI_BOX, role="escort")
    play(g, "end-phase", "Axis")
    play(g, "pass", "Soviet")  # the Soviet naval fighter does not intercept
    assert ef(g).nmi.level == 1
    for side in ("Axis", "Axis", "Soviet", "Axis", "Axis", "Soviet", "Soviet", "Soviet"):
        play(g, "end-phase", side)
    assert g.phase_path()[-1] == "Soviet Motorized Movement Phase"
    play(g, "load", "Soviet", piece="su-224", ship="su-gpa", amphibious=True)
    play(g, "load", "Soviet", piece="su-302m", ship="su-gpb", amphibious=True)
    play(g, "sail", "Soviet", ships=["su-gpa"], to="0505")
    play(g, "sail", "Soviet", ships=["su-gpb"], to="0604")
    play(g, "sail", "Soviet", ships=["su-kkavkaz"], to="0606")
    g.force_dice([1, 1, 1])
    ev = play(g, "end-phase", "Soviet")
    loss = [e for e in ev if e["type"] == "roll"]
    assert ["(both)" in e["text"] for e in loss] == [True, True, True]
    assert [e["data"]["modified"] for e in loss] == [4, 4, 2]  # +3: 4 CD points; +1: 2
    reaction = {a["to"] for a in g.legal_actions("Axis") if a.get("piece") == "ax-ziegler"}
    assert "0405" not in reaction and "0306" in reaction  # 0405: empty, under assault
    play(g, "end-phase", "Axis")  # Axis Reaction Phase
    g.force_dice([3])
    play(g, "cd-fire", "Axis", cd="ax-cd", target="su-gpa")
    play(g, "attack", "Soviet", target="0504")
    play(g, "add-attacker", "Soviet", piece="su-224")
    play(g, "add-attacker", "Soviet", piece="su-302m")
    play(g, "add-support", "Soviet", piece="su-kkavkaz")
    outcomes = g.chance_outcomes({"type": "resolve-attack", "side": "Soviet"})
    assert sum(o.probability for o in outcomes) == 1
    assert {o.label: o.probability for o in outcomes}["D1R"] == Fraction(1, 3)
    g.force_dice([4])
    ev = play(g, "resolve-attack", "Soviet")
    assert any("13 to 6, column 2:1: D1R" in e["text"] for e in ev)
    assert g.state.control[g.board.idx("0504")] == "Soviet"
    assert g.state.pieces["ax-cd"].loc == ("box", "Eliminated")  # coast artillery cannot retreat
    play(g, "end-phase", "Soviet")
    sails = {
        a["to"]
        for a in g.legal_actions("Soviet")
        if a["type"] == "sail" and a["ships"] == ["su-kkavkaz"]
    }
    assert sails and sails <= {"Taman", "Novorossiysk", "Kerch"}


@pytest.mark.rules("EF 3.0", "EF 24.0", "EF 18.0")
@pytest.mark.parametrize("scenario", ["sevastopol-1941", "eastfront-tutorial"])
def test_ef_3_0_random_games_keep_every_check(scenario):
    """Two short random games of each scenario: no invariant broken, no view leak, no listed
    action refused, undo and replay exact."""
    sc = find(scenario)
    rep = SelfplayReport()
    for seed in (3, 4):
        play_one(sc, seed, seed + 10, rep, max_steps=250)
    assert (rep.invariant_violations, rep.view_leaks, rep.refused_legal_actions) == (0, 0, 0)
    assert rep.replay_mismatches == 0 and rep.actions > 0, rep.problems


@pytest.mark.rules("EF 3.0")
def test_ef_3_0_a_saved_game_loads_and_replays_to_the_same_state():
    sc = find("eastfront-tutorial")
    rep = SelfplayReport()
    g = play_one(sc, 7, 8, rep, max_steps=150, check_views=False)
    again = Game.load(g.save(), verify=True)
    assert again.state_hash() == g.state_hash()
    clone = g.clone()
    assert clone.state_hash() == g.state_hash()


@pytest.mark.rules("EF 18.0")
def test_ef_18_0_the_terminal_lists_port_boxes_and_cargo_as_each_side_may_see_them():
    g = Game.new(find("eastfront-tutorial"), 1)
    g.state.move("su-224", ("piece", "su-gpa"))
    axis = g.ruleset.render_text(g, "Axis")
    soviet = g.ruleset.render_text(g, "Soviet")
    assert "box Taman port (at 0805): S:Gp-A, S:Gp-B, S:?" in axis
    assert "224th" not in axis
    assert "aboard su-gpa: S:224th Rifle Division" in soviet
