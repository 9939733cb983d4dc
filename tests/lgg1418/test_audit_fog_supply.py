"""Audit of the fog of war on supply traces (LGG 4-A, 9, 9-H): a supply line crossing a hex that
holds only an enemy decoy must not show the tracer that the marker is a decoy, and the legal
lists that turn on supply are decided from what the tracer may know."""

from __future__ import annotations

from typing import Any

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import battle_steps, breakthrough
from grognard.rulesets.lgg1418.map import knowledge
from grognard.rulesets.lgg1418.supply.supply import is_supplied

from .helpers import CP, EN, army, corps, decoy, game, hq

# a corridor: row 2 is plains, rows 1 and 3 are lakes; Metz (German capital) at 0102, the unit at
# 0302 is supplied only through 0202, where the Entente has a marker
TERRAIN = ["llllllll", "pppppppp", "llllllll"]
PLACES = [
    {"hex": "0102", "kind": "city", "name": "Metz", "attrs": {"nation": "DE", "capital": True}},
    {"hex": "0802", "kind": "city", "name": "Paris", "attrs": {"nation": "FR", "capital": True}},
]


def _corridor(marker: str, extra: list[dict] | None = None):
    held = (
        decoy("fd", "FR", "FR-1", "0202")
        if marker == "decoy"
        else corps("fx", "FR", "0202", army="FR-1")
    )
    pieces = [
        hq("dh", "DE", "0102", "DE-1"),
        corps("u", "DE", "0302", army="DE-1"),
        hq("fh", "FR", "0802", "FR-1"),
        held,
        *(extra or []),
    ]
    if marker != "decoy":
        pieces.append(decoy("fd", "FR", "FR-1"))
    rules = {
        "armies": [army("DE-1", "DE", "dh"), army("FR-1", "FR", "fh", "fd")],
        "main_armies": {CP: {"West": "DE-1"}, EN: {"West": "FR-1"}},
        "powers": {"FR": {"pr_stock": 10, "pr_flow": 0}, "DE": {"pr_stock": 10, "pr_flow": 0}},
    }
    control = {
        "hexes": {CP: ["0102", "0202", "0302", "0402"], EN: ["0502", "0602", "0702", "0802"]}
    }
    return game(pieces=pieces, rules=rules, terrain=TERRAIN, places=PLACES, control=control)


def _supplied(g) -> Any:
    return lambda: is_supplied(g, g.state.pieces["u"])


@pytest.mark.rules("LGG 4-A", "LGG 9", "LGG 9-H")
def test_lgg_4a_9h_audit_a_decoy_on_the_supply_line_is_not_shown_to_the_tracer() -> None:
    gd, gu = _corridor("decoy"), _corridor("units")
    i = gd.board.idx("0202")
    assert _supplied(gd)() and not _supplied(gu)()  # the truth: a decoy does not cut the line (9-H)
    for g in (gd, gu):
        assert i in knowledge.unknown_markers(g, CP)
        assert (
            knowledge.supply_as_known(g, CP, _supplied(g)) == "maybe"
        )  # the same answer in both positions
    assert _supplied(gd)() and not _supplied(gu)()  # asking changed nothing
    knowledge.remember(gd, CP, "0202", units=False)  # once revealed, the tracer knows
    assert knowledge.supply_as_known(gd, CP, _supplied(gd)) == "yes"
    knowledge.remember(gu, CP, "0202", units=True)
    assert knowledge.supply_as_known(gu, CP, _supplied(gu)) == "no"


@pytest.mark.rules("LGG 17.2-D", "LGG 4-A")
def test_lgg_17_2d_audit_empty_hex_breakthrough_offered_from_knowledge_refused_with_a_reveal() -> (
    None
):
    worlds = {}
    for marker in ("decoy", "units"):
        g = _corridor(marker)
        u = g.state.pieces["u"]
        act = {"side": CP, "serial": 7, "armies": ["DE-1"], "kind": "army"}
        M.st(g)["activation"] = act
        for k, v in (("mv_act", 7), ("mv_mode", "normal"), ("mv_from", g.board.idx("0402"))):
            M.set_attr(g, u, k, v)
        worlds[marker] = (g, act)
    offered = {m: breakthrough.empty_hex_origins(g, act, set()) for m, (g, act) in worlds.items()}
    assert offered["decoy"] == offered["units"] == ["0302"]  # listing shows nothing of the marker
    g, act = worlds["units"]
    step = g.steps["breakthrough"]
    f = Frame("breakthrough", {"side": CP, "battles": []})
    n = len(g.state.log)
    step.apply(g, f, {"type": "announce-empty", "side": CP, "hex": "0302"})
    refused = [e for e in g.state.log[n:] if e["type"] == "action-refused"]
    assert refused and refused[0]["rule"] == "LGG 17.2-D" and not f.params.get("empty")
    assert (
        breakthrough.empty_hex_origins(g, act, set(), f.params["refused_empty"]) == []
    )  # not offered again
    g, act = worlds["decoy"]
    f = Frame("breakthrough", {"side": CP, "battles": []})
    g.steps["breakthrough"].apply(g, f, {"type": "announce-empty", "side": CP, "hex": "0302"})
    assert [e["hex"] for e in f.params["empty"]] == ["0302"]  # the decoy does not cut the line


@pytest.mark.rules("LGG 16.5-A", "LGG 4-A")
def test_lgg_16_5a_audit_exchange_offered_from_knowledge_refused_with_a_reveal() -> None:
    recs = {}
    for marker in ("decoy", "units"):
        g = _corridor(marker, [corps("fa", "FR", "0302", army="FR-1")])
        M.set_attr(g, g.state.pieces["fa"], "mv_from", g.board.idx("0402"))
        params = battle.battle_params(
            g, hex="0302", attacker=EN, attacker_units=["fa"], defender_units=["u"]
        )
        rec = battle.rec_of(g, params["battle"])
        battle_steps.setup_participants(g, rec)
        battle_steps.finish_setup(g, rec)
        rec.round = 1
        recs[marker] = (g, rec)
    asked = {m: battle_steps._exchange_allowed(g, rec, "u", "A") for m, (g, rec) in recs.items()}
    assert asked["decoy"] == asked["units"]  # the offer does not depend on the hidden fact
    g, rec = recs["units"]
    assert not battle_steps._exchange_allowed(g, rec, "u", "A", truth=True)
    # an exchange declared when the true position bars it is refused with a reveal
    rec.queue = [
        {"t": "hit", "unit": "u", "res": "1", "sub": "A", "stage": "exchange", "may_exchange": True}
    ]
    f = Frame("battle-decision", {"battle": rec.id, "kind": "exchange", "side": CP})
    n = len(g.state.log)
    g.steps["battle-decision"].apply(g, f, {"type": "exchange", "side": CP, "battle": rec.id})
    refused = [e for e in g.state.log[n:] if e["type"] == "action-refused"]
    assert [e["rule"] for e in refused] == ["LGG 16.5-A"] and refused[0]["reveal"]
    assert not rec.queue[0].get("exchanged") and not rec.forced_retreat


@pytest.mark.rules("LGG 5-D", "LGG 5-B", "LGG 4-A")
def test_lgg_5d_audit_pr_conversion_offered_from_knowledge_refused_with_a_reveal() -> None:
    from grognard.rulesets.lgg1418.military import reinforcement as R

    gd, gu = _corridor("decoy"), _corridor("units")
    ud, uu = gd.state.pieces["u"], gu.state.pieces["u"]
    assert (
        R.why_not_convert(gd, CP, ud, "reduce") is None
        and R.why_not_convert(gu, CP, uu, "reduce") is None
    )
    n = len(gu.state.log)
    R.apply_conversion(gu, uu, "reduce")  # the marker held units: refused with a reveal
    refused = [e for e in gu.state.log[n:] if e["type"] == "action-refused"]
    assert (
        [e["rule"] for e in refused] == ["LGG 5-D"] and refused[0]["reveal"] and uu.face == "full"
    )
    assert R.why_not_convert(gu, CP, uu, "reduce") is not None  # learnt: no longer offered
    before = R.pr_stock(gd, "DE")
    R.apply_conversion(gd, ud, "reduce")  # a decoy does not cut the line
    assert ud.face == "reduced" and R.pr_stock(gd, "DE") == before + 1


@pytest.mark.rules("LGG 9", "LGG 4-A")
def test_lgg_9_audit_without_enemy_decoys_every_marker_holds_units() -> None:
    g = _corridor("units")
    g.state.pieces.pop("fd")  # no decoy counter in the enemy's mix: nothing is uncertain
    assert knowledge.unknown_markers(g, CP) == frozenset()
    assert knowledge.supply_as_known(g, CP, _supplied(g)) == "no"


def _rail_armies(marker: str, at: str, unit_at: str) -> tuple[list[dict], dict]:
    """The pieces and armies of the railway rows: German HQ at 0101 and corps ``u`` at
    ``unit_at``, French HQ at 0801, and at ``at`` a French marker holding a decoy or a corps."""
    held = (
        decoy("fd", "FR", "FR-1", at) if marker == "decoy" else corps("fx", "FR", at, army="FR-1")
    )
    pieces = [
        hq("dh", "DE", "0101", "DE-1"),
        corps("u", "DE", unit_at, army="DE-1"),
        hq("fh", "FR", "0801", "FR-1"),
        held,
    ]
    if marker != "decoy":
        pieces.append(decoy("fd", "FR", "FR-1"))
    rules = {
        "armies": [army("DE-1", "DE", "dh"), army("FR-1", "FR", "fh", "fd")],
        "main_armies": {CP: {"West": "DE-1"}, EN: {"West": "FR-1"}},
    }
    return pieces, rules


def _rail_corridor(marker: str, at: str = "0201"):
    """One row of plains with a railway; Metz (German capital) at 0101, the German corps at 0301
    (supplied only through 0201); the Entente has a marker at ``at`` (0201: on the supply line)."""
    labels = [f"{c:02d}01" for c in range(1, 9)]
    pieces, rules = _rail_armies(marker, at, "0301")
    return game(
        pieces=pieces,
        rules=rules,
        terrain=["pppppppp"],
        places=[
            {
                "hex": "0101",
                "kind": "city",
                "name": "Metz",
                "attrs": {"nation": "DE", "capital": True},
            }
        ],
        networks=[{"name": "r", "kind": "rail", "paths": [labels]}],
        areas=[{"name": "DE", "kind": "country", "attrs": {"nation": "DE"}, "hexes": labels}],
    )


@pytest.mark.rules("LGG 11.4-A", "LGG 4-A")
def test_lgg_11_4a_audit_rail_movement_offered_from_knowledge_refused_with_a_reveal() -> None:
    from grognard.rulesets.lgg1418.military import movement

    act_now = {
        "serial": 7,
        "side": CP,
        "front": "West",
        "armies": ["DE-1"],
        "reaction": False,
        "kind": "army",
    }
    worlds = {m: _rail_corridor(m) for m in ("decoy", "units")}
    listed = {}
    for m, g in worlds.items():
        M.st(g)["activation"] = dict(act_now)
        listed[m] = movement.rail_options(g, act_now, [g.state.pieces["u"]])
    # the supply condition shows nothing of the marker: the unit truly out of supply (units world)
    # is
    # offered its trains all the same (where the tracks themselves lead is read by the rail rules)
    assert listed["units"] and set(listed["units"]) <= set(listed["decoy"])
    assert is_supplied(worlds["decoy"], worlds["decoy"].state.pieces["u"])
    assert not is_supplied(worlds["units"], worlds["units"].state.pieces["u"])
    g = worlds["units"]
    step = g.steps["activation-movement"]
    f = Frame("activation-movement", {"side": CP})
    to = g.board.label(listed["units"][0])
    n = len(g.state.log)
    step.apply(g, f, {"type": "rail", "side": CP, "units": ["u"], "to": to})
    refused = [e for e in g.state.log[n:] if e["type"] == "action-refused"]
    assert [e["rule"] for e in refused] == ["LGG 11.4-A"] and M.hex_of(
        g, g.state.pieces["u"]
    ) == g.board.idx("0301")
    assert (
        movement.rail_options(g, act_now, [g.state.pieces["u"]]) == []
    )  # learnt for the activation


@pytest.mark.rules("LGG 11.4-A", "LGG 4-A")
def test_lgg_11_4a_audit_a_rail_journey_across_a_marker_is_planned_from_knowledge() -> None:
    """The railway beyond an enemy marker is offered whether the marker holds units or is a decoy
    (the list must not tell them apart); the train is stopped, with a reveal, only when the
    marker holds units, and the mover then knows that hex is held."""
    from grognard.rulesets.lgg1418.military import movement

    act_now = {
        "serial": 7,
        "side": CP,
        "front": "West",
        "armies": ["DE-1"],
        "reaction": False,
        "kind": "army",
    }
    worlds = {m: _rail_corridor(m, at="0501") for m in ("decoy", "units")}
    listed = {}
    for m, g in worlds.items():
        M.st(g)["activation"] = dict(act_now)
        assert g.board.idx("0501") in knowledge.unknown_markers(g, CP)
        listed[m] = [
            g.board.label(j) for j in movement.rail_options(g, act_now, [g.state.pieces["u"]])
        ]
    assert listed["units"] == listed["decoy"] and {"0401", "0601", "0701"} <= set(listed["units"])
    assert (
        "0501" in listed["units"]
    )  # a decoy-only hex may be the journey's end as far as the mover knows
    moves = {}
    for m, g in worlds.items():
        step = g.steps["activation-movement"]
        n = len(g.state.log)
        step.apply(
            g,
            Frame("activation-movement", {"side": CP}),
            {"type": "rail", "side": CP, "units": ["u"], "to": "0701"},
        )
        moves[m] = (
            g.board.label(M.hex_of(g, g.state.pieces["u"])),
            [e for e in g.state.log[n:] if e["type"] == "action-refused"],
        )
    assert moves["decoy"] == (
        "0701",
        [],
    )  # a decoy does not stop a train (11.4-A: no enemy unit on the line)
    where, refused = moves["units"]
    assert (
        where == "0301"
        and [e["rule"] for e in refused] == ["LGG 11.4-A"]
        and "0501" in refused[0]["text"]
    )
    g = worlds["units"]
    assert g.board.idx("0501") in knowledge.known_unit_hexes(g, CP)
    after = [g.board.label(j) for j in movement.rail_options(g, act_now, [g.state.pieces["u"]])]
    assert "0401" in after and not {"0501", "0601", "0701"} & set(
        after
    )  # learnt: the line is held at 0501


def _conversion_corridor(marker: str):
    """A railway from Metz (0101, Germany: 0101-0301) into France (0401-0801); the German corps at
    0401 holds a captured French rail hex; the Entente has a marker at 0301, on the line home."""
    de_hexes = ["0101", "0201", "0301"]
    fr_hexes = [f"{c:02d}01" for c in range(4, 9)]
    pieces, rules = _rail_armies(marker, "0301", "0401")
    return game(
        pieces=pieces,
        rules=rules,
        terrain=["pppppppp"],
        places=[
            {
                "hex": "0101",
                "kind": "city",
                "name": "Metz",
                "attrs": {"nation": "DE", "capital": True},
            },
            {
                "hex": "0801",
                "kind": "city",
                "name": "Paris",
                "attrs": {"nation": "FR", "capital": True},
            },
        ],
        networks=[{"name": "r", "kind": "rail", "paths": [de_hexes + fr_hexes]}],
        areas=[
            {"name": "DE", "kind": "country", "attrs": {"nation": "DE"}, "hexes": de_hexes},
            {"name": "FR", "kind": "country", "attrs": {"nation": "FR"}, "hexes": fr_hexes},
        ],
        control={"hexes": {CP: ["0101", "0201", "0401"], EN: ["0501", "0601", "0701", "0801"]}},
    )


@pytest.mark.rules("LGG 11.4-D", "LGG 4-A")
def test_lgg_11_4d_audit_rail_conversion_reads_the_line_home_from_knowledge() -> None:
    """Whether a captured rail hex may be converted turns on the line back to the own network:
    read across an unread marker as if it were a decoy, so the offer is the same whatever the
    marker holds; a held line refuses the conversion with a reveal naming the hex."""
    from grognard.rulesets.lgg1418.map import railways
    from grognard.rulesets.lgg1418.military import activation, movement

    act_now = {
        "serial": 7,
        "side": CP,
        "front": "West",
        "armies": ["DE-1"],
        "reaction": False,
        "kind": "army",
    }
    worlds = {m: _conversion_corridor(m) for m in ("decoy", "units")}
    offered = {}
    for m, g in worlds.items():
        M.st(g)["activation"] = dict(act_now)
        assert g.board.idx("0301") in knowledge.unknown_markers(g, CP)
        movement.check_convert(
            g, act_now, g.state.pieces["u"], [g.board.idx("0401")]
        )  # accepted in both
        offered[m] = [
            h for h in activation._conversion_options(g, g.state.pieces["u"], g.board.idx("0401"))
        ]
    assert offered["decoy"] == offered["units"]
    i = worlds["units"].board.idx("0401")
    assert railways.converted_neighbour_ok(
        worlds["decoy"], CP, i, set(), known=False
    )  # the truth differs
    assert not railways.converted_neighbour_ok(worlds["units"], CP, i, set(), known=False)
    results = {}
    for m, g in worlds.items():
        step = g.steps["activation-movement"]
        n = len(g.state.log)
        step.apply(
            g,
            Frame("activation-movement", {"side": CP}),
            {"type": "convert", "side": CP, "unit": "u", "hexes": ["0401"]},
        )
        results[m] = (
            g.state.marker("rail_gauge", "0401"),
            [e for e in g.state.log[n:] if e["type"] == "action-refused"],
        )
    assert results["decoy"] == (CP, [])
    gauge, refused = results["units"]
    assert (
        gauge != CP
        and [e["rule"] for e in refused] == ["LGG 11.4-D"]
        and "0301" in refused[0]["text"]
    )
    g = worlds["units"]
    assert g.board.idx("0301") in knowledge.known_unit_hexes(g, CP)
    with pytest.raises(IllegalAction):  # learnt: no longer accepted
        movement.check_convert(g, act_now, g.state.pieces["u"], [g.board.idx("0401")])
