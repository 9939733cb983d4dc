"""LGG 13: interception, the marker that held no corps, and moves decided from the mover's
knowledge."""

from __future__ import annotations

from typing import Any

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle.base import BattleRecord
from grognard.rulesets.lgg1418.military import interception

from .helpers import (
    CP,
    EN,
    act,
    army,
    corps,
    current_act,
    decoy,
    force_dice,
    fortress,
    game,
    hq,
    ring,
    to_activation,
)

X = next(
    h for h in ring("0505") if h in ring("0706")
)  # empty, next to the French corps and the Germans


def _pieces(extra: list[dict] | None = None, fr: bool = True) -> list[dict]:
    out = [
        hq("dh", "DE", "0808", "DE-1"),
        corps("de", "DE", "0706", army="DE-1"),
        hq("fh", "FR", "0202", "FR-1"),
    ]
    if fr:
        out.append(corps("fr", "FR", "0505", army="FR-1"))
    return out + (extra or [])


def _rules(**kw: Any) -> dict:
    more = [army(a, "FR", h) for a, h in kw.pop("more", [])]
    return {
        "armies": [
            army("DE-1", "DE", "dh"),
            army("FR-1", "FR", "fh", decoy_id=kw.pop("decoy_id", None)),
            *more,
        ],
        "main_armies": {CP: {"West": "DE-1"}, EN: {"West": "FR-1"}},
        **kw,
    }


def _g(extra: list[dict] | None = None, fr: bool = True, options: dict | None = None, **rules: Any):
    return game(pieces=_pieces(extra, fr), rules=_rules(**rules), options=options)


def _enter(g, to: str = X, units: tuple[str, ...] = ("de",)) -> list[dict]:
    return g.apply({"type": "move", "side": CP, "units": list(units), "to": to, "mode": "normal"})


@pytest.mark.rules("LGG 13", "LGG 13-A")
def test_lgg_13a_lgg34_intercept_into_an_empty_hex_the_interceptor_defends() -> None:
    g = _g()
    to_activation(g, CP, "DE-1")
    _enter(g)
    assert g.current()[1].step == "interception" and g.acting_sides() == [EN]
    legal = g.legal_actions(EN)
    assert legal[0]["type"] == "no-interception"
    assert {"type": "intercept", "side": EN, "units": ["fr"]} in legal
    act(g, EN, type="intercept", units=["fr"])
    assert M.hex_of(g, g.state.pieces["fr"]) == g.board.idx(X)
    assert g.state.pieces["de"].attrs["mv_stop"]  # the intercepted stack may not move on
    assert g.state.marker("interception", X)["side"] == EN
    assert not any(a["type"] == "move" and a["units"] == ["de"] for a in g.legal_actions(CP))
    ev = [e for e in g.state.log if e["type"] == "interception-detail"][-1]
    assert ev["visible_to"] == [EN]  # which units intercepted is the Entente's secret
    act(g, CP, type="end-movement")
    act(g, EN, type="end-reinforcement")
    # the battle of the activation: the interceptor is the defender (13-A)
    rec = BattleRecord(next(iter(M.st(g)["battles"].values())))
    assert rec.hex == X and rec.attacker == CP and rec.defender == EN


@pytest.mark.rules("LGG 13-A")
def test_lgg_13a_lgg34_no_interception_without_zoc_or_by_rail() -> None:
    g = _g(fr=False)
    to_activation(g, CP, "DE-1")
    _enter(g)
    assert g.current()[1].step == "activation-movement"  # no enemy marker near: nobody is asked
    rail = [{"name": "r", "kind": "rail", "paths": [["0808", "0807", "0806", "0805", "0804"]]}]
    berlin = {
        "hex": "0808",
        "kind": "city",
        "name": "Berlin",
        "attrs": {"nation": "DE", "capital": True},
    }
    assert "0804" in ring("0704")
    pieces = [
        hq("dh", "DE", "0808", "DE-1"),
        corps("de", "DE", "0807", army="DE-1"),
        hq("fh", "FR", "0202", "FR-1"),
        corps("fr", "FR", "0704", army="FR-1"),
    ]
    control = {"hexes": {CP: ["0808", "0807", "0806", "0805", "0804"]}}
    areas = [
        {
            "name": "DE",
            "kind": "country",
            "attrs": {"nation": "DE"},
            "hexes": ["0808", "0807", "0806", "0805", "0804"],
        }
    ]
    g2 = game(
        pieces=pieces, rules=_rules(), networks=rail, places=[berlin], control=control, areas=areas
    )
    to_activation(g2, CP, "DE-1")
    rail_moves = [
        a
        for a in g2.legal_actions(CP)
        if a["type"] == "rail" and a["units"] == ["de"] and a["to"] == "0804"
    ]
    assert rail_moves
    g2.apply(rail_moves[0])
    assert g2.current()[1].step == "activation-movement"  # 11.4-A: never intercepted by rail


@pytest.mark.rules("LGG 23-A", "LGG 13-A", "LGG 8-C")
def test_lgg_23a_lgg34_no_interception_into_an_enemy_fortress_hex() -> None:
    g = _g([fortress("metz", "DE", X)])
    to_activation(g, CP, "DE-1")
    assert interception.interception_sources(g, EN, g.board.idx(X)) == {}
    _enter(g)
    # a ZoC does not reach a hex holding an enemy fortress (8-C): nobody is asked
    assert g.current()[1].step == "activation-movement"
    # even a stack that could enter may not intercept there (23-A)
    g.state.pieces["metz"].status.add("besieged")
    assert interception.interception_sources(g, EN, g.board.idx(X)) == {}


@pytest.mark.rules("LGG 36.2-A", "LGG 13-A")
def test_lgg_36_2a_lgg35_trench_side_intercepts_on_an_even_d6() -> None:
    g = _g(first_turn="1914-10", last_turn="1914-10")
    M.st(g)["doctrine"] = {"FR": {"West": "trenches"}}
    to_activation(g, CP, "DE-1")
    _enter(g)
    force_dice(g, 6, 3)
    act(g, EN, type="intercept", units=["fr"])
    assert M.hex_of(g, g.state.pieces["fr"]) == g.board.idx("0505")  # odd: no interception
    assert any(e["type"] == "interception" and "fails" in e["text"] for e in g.state.log)


@pytest.mark.rules("LGG 13-A", "LGG 36.3")
def test_lgg_13a_not_in_fire_doctrine() -> None:
    g = _g(first_turn="1915-01", last_turn="1915-01")
    to_activation(g, CP, "DE-1")
    _enter(g)
    assert g.current()[1].step == "activation-movement"


@pytest.mark.rules("LGG 13-B", "LGG 10-A")
def test_lgg_13b_several_stacks_one_army_respecting_stacking_and_reserves() -> None:
    other = next(
        h for h in ring(X) if h not in ("0505", "0706") and h not in ring("0706") and g_ok(h)
    )
    extra = [
        corps("fr2", "FR", other, army="FR-1"),
        hq("fh2", "FR", next(h for h in ring(X) if h not in ("0505", "0706", other)), "FR-2"),
        corps("res", "FR", {"inside": "fh2"}, army="FR-2", status=["reserve"]),
        corps("fr3", "FR", other, army="FR-2"),
    ]
    g = _g(extra, more=[("FR-2", "fh2")])
    to_activation(g, CP, "DE-1")
    _enter(g)
    src = interception.interception_sources(g, EN, g.board.idx(X))
    assert set(src) >= {"0505", other, "reserve:fh2"}
    assert (
        interception.why_not_intercept(g, EN, g.board.idx(X), ["fr", "fr2"]) is None
    )  # two stacks, one army
    assert "different armies" in interception.why_not_intercept(
        g, EN, g.board.idx(X), ["fr", "fr3"]
    )
    act(g, EN, type="intercept", units=["fr", "fr2"])
    assert {M.hex_of(g, g.state.pieces[u]) for u in ("fr", "fr2")} == {g.board.idx(X)}


def g_ok(h: str) -> bool:
    c, r = int(h[:2]), int(h[2:])
    return 1 <= c <= 8 and 1 <= r <= 8


@pytest.mark.rules("LGG 13-B")
def test_lgg_13b_an_attacked_stack_sends_only_its_surplus_never_toward_the_attacker() -> None:
    y = next(h for h in ring("0505") if h in ring(X) and g_ok(h))
    assert y == "0604"
    g = game(
        pieces=[
            hq("dh", "DE", "0805", "DE-1"),
            corps("de", "DE", "0706", army="DE-1"),
            corps("de2", "DE", "0704", army="DE-1"),
            hq("fh", "FR", "0202", "FR-1"),
            corps("fr", "FR", "0505", army="FR-1"),
            corps("fr2", "FR", "0505", army="FR-1"),
        ],
        rules=_rules(),
    )
    to_activation(g, CP, "DE-1")
    # de attacks the two French corps at 0505 from X; de2 then enters y, next to 0505
    _enter(g)
    act(g, EN, type="no-interception")
    _enter(g, "0505")
    assert interception.attack_origins(g, "0505") == [X]
    de2_path = g.state.pieces["de2"]
    g.apply({"type": "move", "side": CP, "units": ["de2"], "to": y, "mode": "normal"})
    assert g.current()[1].step == "interception"
    src = interception.interception_sources(g, EN, g.board.idx(y))
    assert len([q for q in src["0505"] if M.is_corps(q)]) == 1  # 2 defenders - 1 attacker
    assert interception.why_not_intercept(g, EN, g.board.idx(y), ["fr", "fr2"]) is not None
    assert interception.why_not_intercept(g, EN, g.board.idx(y), ["fr"]) is None
    # toward X, where the attack on 0505 came from, the stack may not intercept at all
    assert "0505" not in interception.interception_sources(g, EN, g.board.idx(X))
    assert de2_path.id == "de2"


@pytest.mark.rules("LGG 13-A", "LGG 4-A")
def test_lgg_13a_the_enemy_is_asked_near_any_marker_even_an_empty_decoy() -> None:
    g = _g([decoy("fd", "FR", "FR-1", at="0505")], fr=False, decoy_id="fd")
    to_activation(g, CP, "DE-1")
    _enter(g)
    assert g.current()[1].step == "interception" and g.acting_sides() == [
        EN
    ]  # the mover cannot tell
    assert [a["type"] for a in g.legal_actions(EN)] == ["no-interception"]


@pytest.mark.rules("LGG 13-A")
def test_lgg_13a_a_marker_holding_only_an_hq_is_revealed_and_withdraws() -> None:
    g = game(
        pieces=[
            hq("dh", "DE", "0808", "DE-1"),
            corps("de", "DE", "0706", army="DE-1"),
            hq("fh", "FR", X, "FR-1"),
            corps("res", "FR", {"inside": "fh"}, army="FR-1", status=["reserve"]),
            corps("fr", "FR", "0505", army="FR-1"),
        ],
        rules=_rules(),
    )
    to_activation(g, CP, "DE-1")
    ev = _enter(g)
    assert any(e["type"] == "reveal" and e.get("reveal") for e in ev)
    assert g.current()[1].step == "forced-withdrawal" and g.acting_sides() == [EN]
    spots = [a["to"] for a in g.legal_actions(EN)]
    assert X not in spots and spots
    act(g, EN, type="withdraw", unit="fh", to=spots[0])
    assert g.state.pieces["res"].loc.ref == "fh"  # the reserve goes with its HQ
    # the hex is now empty: the Entente may intercept there, and the Germans may move on
    assert g.current()[1].step == "interception"
    act(g, EN, type="no-interception")
    assert not g.state.pieces["de"].attrs.get("mv_stop")
    assert M.st(g)["activation"]["side"] == CP and g.state.control.get(g.board.idx(X)) == CP


@pytest.mark.rules("LGG 8-B", "LGG 4-A")
def test_lgg_8b_rigid_zoc_decided_from_knowledge_and_revealed() -> None:
    h1 = X
    h2 = next(h for h in ring("0505") if h in ring(h1) and g_ok(h) and h != "0706")
    g = _g(first_turn="1915-01", last_turn="1915-01")
    to_activation(g, CP, "DE-1")
    _enter(g, h1)
    moves = [
        a
        for a in g.legal_actions(CP)
        if a["type"] == "move" and a["units"] == ["de"] and a["to"] == h2
    ]
    assert moves  # the Germans cannot know that the marker at 0505 exerts a rigid ZoC
    ev = g.apply(moves[0])
    assert M.hex_of(g, g.state.pieces["de"]) == g.board.idx(h1)
    refused = [e for e in ev if e["type"] == "move-refused"]
    assert refused and refused[0]["rule"] == "LGG 8-B" and refused[0]["visible_to"] == [CP]
    assert not g.can_undo()  # a reveal is an information barrier
    with pytest.raises(IllegalAction) as e:
        g.apply(moves[0])
    assert e.value.rule == "LGG 8-B"
    # an empty decoy exerts no ZoC: the same move goes through
    g2 = _g(
        [decoy("fd", "FR", "FR-1", at="0505")],
        fr=False,
        decoy_id="fd",
        first_turn="1915-01",
        last_turn="1915-01",
    )
    to_activation(g2, CP, "DE-1")
    _enter(g2, h1)
    g2.apply({"type": "move", "side": CP, "units": ["de"], "to": h2, "mode": "normal"})
    assert M.hex_of(g2, g2.state.pieces["de"]) == g2.board.idx(h2)
    assert current_act(g2)["side"] == CP
