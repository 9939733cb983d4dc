"""LGG 22: isolated units - attrition at the end of the turn, destruction a turn later."""

from __future__ import annotations

import pytest

from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.supply import isolation

from .helpers import CP, EN, army, corps, force_dice, game, hq, play_until, ring

PARIS = {"hex": "0101", "kind": "city", "name": "Paris", "attrs": {"nation": "FR", "capital": True}}
BERLIN = {
    "hex": "0808",
    "kind": "city",
    "name": "Berlin",
    "attrs": {"nation": "DE", "capital": True},
}
EN_ALL = {
    "hexes": {
        EN: [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 9) if (c, r) != (8, 8)],
        CP: ["0808"],
    }
}


def _encircled(extra: list[dict] | None = None, places: list[dict] | None = None, **kw: object):
    ringers = [corps(f"de{k}", "DE", h) for k, h in enumerate(ring("0505"))]
    return game(
        pieces=[corps("u", "FR", "0505"), *ringers, *(extra or [])],
        places=[PARIS, BERLIN, *(places or [])],
        control=EN_ALL,
        **kw,
    )


@pytest.mark.rules("LGG 22")
def test_lgg_22_isolated_means_no_path_of_any_length() -> None:
    g = _encircled()
    u = g.state.pieces["u"]
    from grognard.rulesets.lgg1418.supply.supply import is_isolated

    assert is_isolated(g, u, "attrition")
    assert isolation.judge(g, [u]) == ["u"]
    assert M.st(g)["isolated_since"]["u"] == M.turn_index(g)
    g2 = game(pieces=[corps("u", "FR", "0505")], places=[PARIS], control=EN_ALL)
    assert isolation.judge(g2, [g2.state.pieces["u"]]) == []


@pytest.mark.rules("LGG 22-A")
def test_lgg_22a_lgg68_attrition_even_nothing_odd_one_loss() -> None:
    g = _encircled()
    isolation.judge(g, [g.state.pieces["u"]])
    force_dice(g, 6, 2)
    isolation.resolve_isolation(g)
    assert g.state.pieces["u"].face == "full"  # even: nothing
    g2 = _encircled()
    isolation.judge(g2, [g2.state.pieces["u"]])
    force_dice(g2, 6, 3)
    isolation.resolve_isolation(g2)
    assert g2.state.pieces["u"].face == "reduced"  # odd: one loss
    g3 = _encircled()
    g3.state.pieces["u"].face = "reduced"
    force_dice(g3, 6, 5)
    isolation.resolve_isolation(g3)
    assert g3.state.pieces["u"].loc.ref == M.ELIMINATED  # odd on a reduced unit: eliminated
    roll = [e for e in g3.state.log if e["type"] == "roll"][-1]
    assert (
        roll["visible_to"] == [EN]
        and roll["others"] == "a secret roll (attrition of an isolated unit)"
    )


@pytest.mark.rules("LGG 22-B")
def test_lgg_22b_lgg68_still_isolated_next_turn_eliminated() -> None:
    g = _encircled()
    M.st(g)["isolated_since"] = {"u": M.turn_index(g) - 1}
    isolation.resolve_isolation(g)
    assert g.state.pieces["u"].loc.ref == M.ELIMINATED
    # a unit no longer isolated leaves the record
    g2 = game(pieces=[corps("u", "FR", "0505")], places=[PARIS], control=EN_ALL)
    M.st(g2)["isolated_since"] = {"u": M.turn_index(g2) - 1}
    isolation.resolve_isolation(g2)
    assert "u" not in M.st(g2)["isolated_since"] and g2.state.pieces["u"].loc.kind == "hex"


@pytest.mark.rules("LGG 22-B")
def test_lgg_22b_lgg68_single_corps_in_a_city_risks_nothing_two_do() -> None:
    city = {"hex": "0505", "kind": "city", "name": "Reims", "attrs": {"nation": "FR"}}
    g = _encircled(places=[city])
    M.st(g)["isolated_since"] = {"u": M.turn_index(g) - 1}
    isolation.resolve_isolation(g)
    assert g.state.pieces["u"].loc.kind == "hex"  # alone in a city: nothing
    g2 = _encircled(extra=[corps("v", "FR", "0505")], places=[city])
    M.st(g2)["isolated_since"] = {"u": M.turn_index(g2) - 1, "v": M.turn_index(g2) - 1}
    isolation.resolve_isolation(g2)
    assert (
        g2.state.pieces["u"].loc.ref == M.ELIMINATED
        and g2.state.pieces["v"].loc.ref == M.ELIMINATED
    )


@pytest.mark.rules("LGG 22-A", "LGG 5-H")
def test_lgg_22a_isolated_hq_stack_annihilated_hq_destroyed() -> None:
    g = _encircled(
        extra=[hq("fh", "FR", "0505", "FR-1")], rules={"armies": [army("FR-1", "FR", "fh")]}
    )
    g.state.pieces["u"].face = "reduced"
    isolation.judge(g, [g.state.pieces["u"], g.state.pieces["fh"]])
    force_dice(g, 6, 1)
    isolation.resolve_isolation(g)
    assert g.state.pieces["u"].loc.ref == M.ELIMINATED
    assert (
        g.state.pieces["fh"].loc.ref == M.DESTROYED_HQ
    )  # its isolated stack was annihilated (5-H)


@pytest.mark.rules("LGG 22-A")
def test_lgg_22a_judged_at_activation_and_rolled_in_the_final_phase() -> None:
    g = _encircled(
        extra=[hq("fh", "FR", "0101", "FR-1")], rules={"armies": [army("FR-1", "FR", "fh")]}
    )
    g.state.pieces["u"].attrs["attached"] = "FR-1"
    play_until(
        g,
        "choose-activation",
        chooser=lambda g, s, legal: next(
            (a for a in legal if a["type"] == "first-mover" and a["first"] == EN), None
        ),
    )
    while g.acting_sides() != [EN]:
        g.apply(
            next(
                a
                for a in g.legal_actions(g.acting_sides()[0])
                if a["type"] in ("end-turn", "no-retreat")
            )
        )
        play_until(g, "choose-activation")
    g.apply({"type": "activate", "side": EN, "army": "FR-1"})
    assert M.st(g)["isolated_since"]["u"] == M.turn_index(g)  # judged when its army is activated
    turn = M.turn_index(g)
    for _ in range(300):
        if M.turn_index(g) != turn:
            break
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        g.apply(
            next((a for a in legal if a["type"].startswith(("end", "no-", "decline"))), legal[0])
        )
    rolls = [e for e in g.state.log if e["type"] == "roll" and e["rule"] == "LGG 22-A"]
    assert len(rolls) == 1  # the attrition test of the final phase


@pytest.mark.rules("LGG 22-A")
def test_lgg_22a_judged_at_battles() -> None:
    extra = [hq("dh", "DE", "0706", "DE-1"), hq("fh", "FR", "0101", "FR-1")]
    g = _encircled(
        extra=extra,
        rules={
            "armies": [army("DE-1", "DE", "dh"), army("FR-1", "FR", "fh")],
            "main_armies": {CP: {"West": "DE-1"}, EN: {"West": "FR-1"}},
        },
    )
    from .helpers import act, to_activation

    g.state.pieces["de0"].attrs["attached"] = "DE-1"  # the ringer at 0605 attacks
    to_activation(g, CP, "DE-1")
    g.apply({"type": "move", "side": CP, "units": ["de0"], "to": "0505", "mode": "normal"})
    act(g, CP, type="end-movement")
    for _ in range(100):
        if (
            M.st(g).get("isolated_since", {}).get("u") is not None
            or M.st(g).get("activation") is None
        ):
            break
        s = g.acting_sides()[0]
        legal = g.legal_actions(s)
        g.apply(
            next(
                (
                    a
                    for a in legal
                    if a["type"].startswith(("end", "no-", "decline", "commit", "done"))
                ),
                legal[0],
            )
        )
    assert (
        M.st(g)["isolated_since"].get("u") == M.turn_index(g)
        or g.state.pieces["u"].loc.kind != "hex"
    )
