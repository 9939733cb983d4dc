"""LGG 21 (autonomous units and the GHQs) and the use of garrisons (23-B)."""

from __future__ import annotations

from typing import Any

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.military import autonomous
from grognard.rulesets.lgg1418.units.counters import command_army

from .battle_helpers import base_pieces, bgame, de, engage, fr, open_battle
from .helpers import CP, EN, act, army, corps, fortress, game, general, ghq, hq, ring


def _pieces(extra: list[dict] | None = None, ghq_at: str = "0303") -> list[dict]:
    return [
        hq("fh", "FR", "0202", "FR-1"),
        corps("fa", "FR", "0203", army="FR-1"),
        corps("auto", "FR", "0404"),
        ghq("fg", "FR", ghq_at),
        hq("dh", "DE", "0808", "DE-1"),
        corps("da", "DE", "0807", army="DE-1"),
        corps("dx", "DE", "0505"),
        ghq("dg", "DE", "0708"),
        *(extra or []),
    ]


def _rules(**kw: Any) -> dict:
    return {
        "armies": [army("FR-1", "FR", "fh"), army("DE-1", "DE", "dh")],
        "main_armies": {EN: {"West": "FR-1"}, CP: {"West": "DE-1"}},
        **kw,
    }


def _to_autonomous(g, side: str = EN) -> None:
    """End every military turn until ``side``'s autonomous units are activated."""
    for _ in range(300):
        a = M.st(g).get("activation")
        if (
            a
            and a.get("kind") == "autonomous"
            and a["side"] == side
            and g.current()[1].step == "activation-movement"
        ):
            return
        s = g.acting_sides()[0]
        legal = g.legal_actions(s)
        g.apply(
            next(
                (
                    x
                    for x in legal
                    if x["type"].startswith(("end", "no-", "decline", "commit", "first"))
                ),
                legal[0],
            )
        )
    raise AssertionError("never reached the autonomous activation")


@pytest.mark.rules("LGG 21")
def test_lgg_21_autonomous_units_and_ghq_move_after_the_armies() -> None:
    g = game(pieces=_pieces(), rules=_rules())
    _to_autonomous(g)
    movers = {tuple(a["units"]) for a in g.legal_actions(EN) if a["type"] == "move"}
    assert ("auto",) in movers and ("fg",) in movers  # the GHQ moves with the autonomous units
    assert ("fa",) not in movers  # army units were activated with their HQ
    assert g.phase_path()[-2] == "Activation of the autonomous units"


@pytest.mark.rules("LGG 21")
def test_lgg_21_fight_only_within_three_hexes_of_the_ghq() -> None:
    assert "0505" in ring("0404")
    g = game(pieces=_pieces(ghq_at="0303"), rules=_rules())
    _to_autonomous(g)
    assert any(
        a["type"] == "move" and a["units"] == ["auto"] and a["to"] == "0505"
        for a in g.legal_actions(EN)
    )
    g2 = game(pieces=_pieces(ghq_at="0101"), rules=_rules())
    _to_autonomous(g2)
    with pytest.raises(IllegalAction) as e:
        g2.apply({"type": "move", "side": EN, "units": ["auto"], "to": "0505", "mode": "normal"})
    assert e.value.rule == "LGG 21"
    assert autonomous.may_fight_at(g, g.state.pieces["auto"], g.board.idx("0505"))
    assert not autonomous.may_fight_at(g2, g2.state.pieces["auto"], g2.board.idx("0505"))


@pytest.mark.rules("LGG 21", "LGG 16.4-A")
def test_lgg_21_an_autonomous_corps_fights_without_a_general() -> None:
    """DE-1 (general bonus +1) attacks 0404, held by FR-1's corps fa (its general: bonus 2, the
    HQ's command radius covers the hex) and the autonomous corps au. Against fa the D12 gets +1 -
    2 = -1; against au, which fights without a general, only the attacker's +1 counts."""
    g = bgame(
        [fr("fa", "0404"), corps("au", "FR", "0404"), de("da", "0404")],
        base=base_pieces(fr_bonus=2, de_bonus=1),
    )
    rec = open_battle(g, "0404", CP)
    assert rec.units["au"]["army"] is None and rec.units["fa"]["army"] == "FR-1"
    engage(rec, "A", "da", "fa")
    mods, total, _cap = battle.d12_modifiers(g, rec, "A")
    assert [(m.value, m.reason) for m in mods] == [
        (1, "attacker general of DE-1"),
        (-2, "defender general of FR-1"),
    ] and total == -1
    engage(rec, "A", "da", "au")
    mods, total, _cap = battle.d12_modifiers(g, rec, "A")
    assert [(m.value, m.reason) for m in mods] == [(1, "attacker general of DE-1")] and total == 1


@pytest.mark.rules("LGG 28-D", "LGG 21")
def test_lgg_21_no_attack_in_trench_warfare() -> None:
    g = game(pieces=_pieces(), rules=_rules(first_turn="1915-01", last_turn="1915-01"))
    _to_autonomous(g)
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "move", "side": EN, "units": ["auto"], "to": "0505", "mode": "normal"})
    assert e.value.rule == "LGG 28-D"


@pytest.mark.rules("LGG 21", "LGG 2-B")
def test_lgg_21_assignment_to_an_army_after_the_move() -> None:
    g = game(pieces=_pieces(), rules=_rules())
    _to_autonomous(g)
    g.apply({"type": "move", "side": EN, "units": ["auto"], "to": "0304", "mode": "normal"})
    act(g, EN, type="end-movement")
    assert g.current()[1].step == "autonomous-assignment"
    legal = g.legal_actions(EN)
    assert {
        "type": "assign",
        "side": EN,
        "unit": "auto",
        "army": "FR-1",
    } in legal  # within FR-1's range
    act(g, EN, type="assign", unit="auto", army="FR-1")
    assert command_army(g, g.state.pieces["auto"]) == "FR-1"
    act(g, EN, type="end-assignment")


@pytest.mark.rules("LGG 23-B")
def test_lgg_23b_german_garrisons_may_be_integrated_others_stay() -> None:
    extra = [
        fortress("metz", "DE", "0806"),
        corps("gm", "DE", {"inside": "metz"}, garrison="metz"),
        fortress("toul", "FR", "0201"),
        corps("gt", "FR", {"inside": "toul"}, garrison="toul"),
    ]
    g = game(pieces=_pieces(extra), rules=_rules())
    assert (
        autonomous.garrison_may_leave(g, g.state.pieces["gm"]) == "integrate"
    )  # West, not the pre-turn
    assert autonomous.garrison_may_leave(g, g.state.pieces["gt"]) is None
    M.st(g)["garrisons_freed"] = ["FR"]
    assert autonomous.garrison_may_leave(g, g.state.pieces["gt"]) == "leave"
    _to_autonomous(g, CP)
    act(g, CP, type="end-movement")
    assert {"type": "assign", "side": CP, "unit": "gm", "army": "DE-1"} in g.legal_actions(CP)
    act(g, CP, type="assign", unit="gm", army="DE-1")
    gm = g.state.pieces["gm"]
    assert (
        gm.loc.kind == "hex" and command_army(g, gm) == "DE-1" and gm.attrs["garrison_of"] == "metz"
    )


@pytest.mark.rules("LGG 23-B")
def test_lgg_23b_east_only_with_hindenburg() -> None:
    areas = [
        {
            "name": "Russian",
            "kind": "sector",
            "hexes": [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 9)],
        }
    ]
    extra = [fortress("kbg", "DE", "0806"), corps("gk", "DE", {"inside": "kbg"}, garrison="kbg")]
    g = game(pieces=_pieces(extra), areas=areas, rules=_rules(fronts=["East"], main_armies={}))
    assert autonomous.garrison_may_leave(g, g.state.pieces["gk"]) is None
    g2 = game(
        pieces=_pieces([*extra, {**general("hindenburg", "DE", "dh"), "name": "Hindenburg"}]),
        areas=areas,
        rules=_rules(fronts=["East"], main_armies={}),
    )
    assert autonomous.hindenburg_in_play(g2)
    assert autonomous.garrison_may_leave(g2, g2.state.pieces["gk"]) == "integrate"


@pytest.mark.rules("LGG 10-A", "LGG 2-B")
def test_lgg_10a_no_attachment_into_a_hex_held_by_another_army() -> None:
    from grognard.rulesets.lgg1418.units.counters import why_not_attach

    g = game(
        pieces=_pieces([hq("fh2", "FR", "0405", "FR-2"), corps("f2", "FR", "0404", army="FR-2")]),
        rules=_rules(
            armies=[army("FR-1", "FR", "fh"), army("FR-2", "FR", "fh2"), army("DE-1", "DE", "dh")]
        ),
    )
    auto = g.state.pieces["auto"]
    assert "another army" in why_not_attach(g, auto, "FR-1")
    assert why_not_attach(g, auto, "FR-2") is None


@pytest.mark.rules("LGG 23-B", "LGG 10-A")
def test_lgg_23b_10a_garrison_not_integrated_beside_another_army() -> None:
    """Found by self-play of lgg-west-1914: a German garrison was integrated into one army while
    the HQ of another army stood in its fortress hex (10-A)."""
    extra = [
        fortress("metz", "DE", "0806"),
        corps("gm", "DE", {"inside": "metz"}, garrison="metz"),
        hq("dh2", "DE", "0806", "DE-2"),
    ]
    rules = _rules(
        armies=[army("FR-1", "FR", "fh"), army("DE-1", "DE", "dh"), army("DE-2", "DE", "dh2")]
    )
    g = game(pieces=_pieces(extra), rules=rules)
    _to_autonomous(g, CP)
    act(g, CP, type="end-movement")
    legal = g.legal_actions(CP)
    assert {"type": "assign", "side": CP, "unit": "gm", "army": "DE-2"} in legal
    assert {"type": "assign", "side": CP, "unit": "gm", "army": "DE-1"} not in legal
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "assign", "side": CP, "unit": "gm", "army": "DE-1"})
    assert e.value.rule == "LGG 23-B"
    act(g, CP, type="assign", unit="gm", army="DE-2")
    assert g.ruleset.invariants(g) == []


@pytest.mark.rules("LGG 23-B", "LGG 10-A")
def test_lgg_23b_10a_garrison_leaves_only_if_the_hex_has_room() -> None:
    full = [corps(f"dc{k}", "DE", "0806", army="DE-1") for k in range(6)]
    extra = [fortress("metz", "DE", "0806"), corps("gm", "DE", {"inside": "metz"}, garrison="metz")]
    g = game(pieces=_pieces(extra + full), rules=_rules())
    assert (
        autonomous.garrison_may_leave(g, g.state.pieces["gm"]) is None
    )  # six corps already stand there
    g2 = game(pieces=_pieces(extra + full[:5]), rules=_rules())
    assert autonomous.garrison_may_leave(g2, g2.state.pieces["gm"]) == "integrate"


@pytest.mark.rules("LGG 10-A", "LGG 2-B", "LGG 4-B")
def test_lgg_10a_4b_no_attachment_of_a_unit_on_another_armys_box() -> None:
    """Found by self-play of lgg-west-1914: a unit lifted onto an army's box was attached to
    another army, and the two armies' units stood together once it was put back on the map."""
    from grognard.core.state import Loc
    from grognard.rulesets.lgg1418.units.counters import why_not_attach

    g = game(
        pieces=_pieces([hq("fh2", "FR", "0405", "FR-2")]),
        rules=_rules(
            armies=[army("FR-1", "FR", "fh"), army("FR-2", "FR", "fh2"), army("DE-1", "DE", "dh")]
        ),
    )
    g.state.move("auto", Loc.inside("fh2"))
    g.invalidate()
    auto = g.state.pieces["auto"]
    assert "another army" in why_not_attach(g, auto, "FR-1")
    assert why_not_attach(g, auto, "FR-2") is None


@pytest.mark.rules("LGG 14-C", "LGG 10-A")
def test_lgg_14c_10a_an_autonomous_corps_in_the_hex_does_not_hide_the_defending_army() -> None:
    """Found by self-play of lgg-west-1914 (seed 1, game 22): an autonomous corps listed first in
    a hex held with an army's units made the defence look autonomous, so another army's units
    reinforcing it were never sent back after the battle (14-C) and two armies stayed stacked."""
    from grognard.rulesets.lgg1418.military.enemy_reinforcement import defending_army

    g = game(pieces=_pieces([corps("fa2", "FR", "0404", army="FR-1")]), rules=_rules())
    assert next(p.id for p in M.units_at_hex(g, g.board.idx("0404"), EN)) == "auto"
    assert defending_army(g, EN, g.board.idx("0404")) == "FR-1"
    assert defending_army(g, CP, g.board.idx("0505")) is None  # an autonomous defence stays one
