"""LGG 30: great offensives - planning, launch, course, halts, victory, cancellation, the English
auxiliary offensive (and the unplanned offensives of Combined Doctrine, 36.5-A)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418 import strategic
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.military import offensive, politics
from grognard.rulesets.lgg1418.units import fog

from . import dummy  # noqa: F401  (registers the hooked variant)
from .helpers import CP, EN, act, army, corps, current_act, game, ghq, hq, play_until, ring, to_turn
from .quiet import quiet

ALL = [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 9)]
WEST_HALF = [h for h in ALL if int(h[:2]) <= 4]
EAST_HALF = [h for h in ALL if int(h[:2]) >= 5]
BERLIN = {
    "hex": "0101",
    "kind": "city",
    "name": "Berlin",
    "attrs": {"nation": "DE", "capital": True},
}
PARIS = {"hex": "0808", "kind": "city", "name": "Paris", "attrs": {"nation": "FR", "capital": True}}


def _pieces() -> list[dict[str, Any]]:
    out = [
        hq("h1", "DE", "0203", "DE-1"),
        hq("h2", "DE", "0205", "DE-2"),
        hq("h3", "DE", "0207", "DE-3"),
        hq("f1", "FR", "0704", "FR-1"),
        hq("g1", "GB", "0706", "GB-1"),
        hq("g2", "GB", "0707", "GB-2"),
    ]
    out += [corps(f"a{k}", "DE", h, army="DE-1") for k, h in enumerate(("0404", "0404", "0403"))]
    out += [corps(f"b{k}", "DE", h, army="DE-2") for k, h in enumerate(("0405", "0405", "0406"))]
    out += [corps("c0", "DE", "0407", army="DE-3")]
    out += [
        corps("f0", "FR", "0504", army="FR-1"),
        corps("f1c", "FR", "0505", army="FR-1"),
        corps("e0", "GB", "0506", army="GB-1"),
        corps("e1", "GB", "0507", army="GB-2"),
    ]
    out += [
        ghq("de-ghq", "DE", "0102", comb=4),
        ghq("fr-ghq", "FR", "0807", comb=4),
        ghq("gb-ghq", "GB", "0806", comb=4),
    ]
    return out


ARMIES = [
    army("DE-1", "DE", "h1"),
    army("DE-2", "DE", "h2"),
    army("DE-3", "DE", "h3"),
    army("FR-1", "FR", "f1"),
    army("GB-1", "GB", "g1"),
    army("GB-2", "GB", "g2"),
]


def _g(first: str, last: str | None = None, ruleset: str = "lgg1418", **kw: Any):
    return game(
        pieces=kw.pop("pieces", _pieces()),
        places=kw.pop("places", [BERLIN, PARIS]),
        ruleset=ruleset,
        control={"hexes": {CP: WEST_HALF, EN: EAST_HALF}},
        rules={
            "first_turn": first,
            "last_turn": last or first,
            "armies": ARMIES,
            **kw.pop("rules", {}),
        },
        **kw,
    )


def _plan(
    g,
    start: str = "1915-03",
    objective: str = "0505",
    armies=("DE-1", "DE-2"),
    year: int = 1915,
    sector: str = "French",
    side: str = CP,
    pid: str = "p1",
) -> dict[str, Any]:
    p = {
        "id": pid,
        "side": side,
        "sector": sector,
        "year": year,
        "offensive": True,
        "start": start,
        "objective": [objective],
        "armies": list(armies),
        "mode": "winter",
    }
    g.state.secrets.setdefault(side, {}).setdefault("go-plans", []).append(p)
    return p


# ---------------------------------------------------------------------- 30-A planning
@pytest.mark.rules("LGG 30-A", "LGG 30-C")
def test_lgg_30a_secret_plans_written_at_the_end_of_the_winter_interphase() -> None:
    g = _g("1914-11", "1915-01")
    play_until(g, "great-offensive-planning", chooser=quiet())
    assert set(g.acting_sides()) == {CP, EN}
    assert {a["type"] for a in g.legal_actions(CP)} == {"plan-offensive", "no-offensive"}
    act(g, CP, type="plan-offensive", sector="French")
    assert [a["turn"] for a in g.legal_actions(CP)] == [
        "1915-01",
        "1915-03",
        "1915-05",
        "1915-07",
        "1915-09",
        "1915-11",
    ]
    act(g, CP, type="plan-start", turn="1915-03")
    objs = sorted(a["hexes"][0] for a in g.legal_actions(CP) if a["type"] == "plan-objective")
    own = {
        M.label(g, M.hex_of(g, q))
        for q in g.state.pieces.values()
        if q.side == CP and M.on_map(g, q)
    }
    assert objs == sorted(
        h for h in EAST_HALF if set(ring(h)) & own
    )  # enemy hexes directly on the front
    assert "0808" not in objs and "0504" in objs
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "plan-objective", "side": CP, "hexes": ["0808"]})
    assert e.value.rule == "LGG 30-A"
    act(g, CP, type="plan-objective", hexes=["0505"])
    assert ["DE-1", "DE-2"] in [a["armies"] for a in g.legal_actions(CP)]
    act(g, CP, type="plan-armies", armies=["DE-1", "DE-2"])
    # nothing of the plan reaches the Entente's view (it sees only its own draft)
    assert set(g.view(EN)["secrets"]) == {"go-draft"} and "DE-1" not in json.dumps(
        g.view(EN)["secrets"]
    )
    assert "0505" not in json.dumps(g.visible_log(EN)) and fog.view_is_clean(g, EN) == []
    act(g, EN, type="no-offensive", sector="French")
    (plan,) = [p for p in offensive.plans(g, CP) if p.get("offensive")]
    assert (
        plan["objective"] == ["0505"]
        and plan["armies"] == ["DE-1", "DE-2"]
        and plan["start"] == "1915-03"
    )
    assert offensive.plans(g, EN) == [
        {
            "id": f"{EN}:1915:French",
            "side": EN,
            "sector": "French",
            "year": 1915,
            "offensive": False,
        }
    ]
    assert "go-plans" in json.dumps(g.view(CP)["secrets"])


@pytest.mark.rules("LGG 30-A")
def test_lgg_30a_objective_not_attacked_the_turn_before() -> None:
    g = _g("1915-01")
    _plan(g, start="1915-03", objective="0504")
    a = {"serial": 1, "side": CP, "armies": ["DE-3"]}
    p = g.state.pieces["a0"]
    with pytest.raises(IllegalAction) as e:
        offensive.offensive_attack_check(g, a, [p], g.board.idx("0504"), "normal", True)
    assert e.value.rule == "LGG 30-A"
    offensive.offensive_attack_check(
        g, a, [p], g.board.idx("0505"), "normal", True
    )  # another hex: fine


@pytest.mark.rules("LGG 30", "LGG 30-A", "LGG 30-D")
def test_lgg_30_launch_two_armies_without_a_test_attack_only_the_objective() -> None:
    g = _g("1915-03", ruleset="lgg1418-hooked")
    _plan(g)
    play_until(g, "choose-activation", chooser=quiet(_first(CP)))
    launches = [a for a in g.legal_actions(CP) if a["type"] == "launch-offensive"]
    assert {a.get("third") for a in launches} == {None, "DE-3"} and all(
        a["objective"] == ["0505"] for a in launches
    )
    rolls = sum(1 for e in g.state.log if e["type"] == "roll")
    act(g, CP, type="launch-offensive", third=None)
    assert sum(1 for e in g.state.log if e["type"] == "roll") == rolls  # automatically coordinated
    a = current_act(g)
    assert a["armies"] == ["DE-1", "DE-2"] and a["great_offensive"] == "p1"
    (off,) = offensive.offensives(g).values()
    assert off["status"] == "active" and off["command"] == "DE" and off["defender_army"] == "FR-1"
    pub = g.view(EN)["lgg"]["offensives"][0]
    assert pub["objective"] == ["0505"] and "armies" not in pub
    assert g.view(CP)["lgg"]["offensives"][0]["armies"] == ["DE-1", "DE-2"]
    with pytest.raises(IllegalAction) as e:  # only the objective: 30-D / 29
        g.apply({"type": "move", "side": CP, "units": ["b2"], "to": "0506", "mode": "normal"})
    assert e.value.rule == "LGG 30-D"
    act(g, CP, type="move", units=["a0"], to="0505", mode="normal")
    with pytest.raises(IllegalAction) as e:  # at least 4 corps must attack
        g.apply({"type": "end-movement", "side": CP})
    assert e.value.rule == "LGG 30-D" and "4 corps" in str(e.value)
    act(g, CP, type="move", units=["a1"], to="0505", mode="normal")
    act(g, CP, type="move", units=["b0", "b1"], to="0505", mode="normal")
    act(g, CP, type="end-movement")
    assert M.turn_index(g) in off["battle_turns"]


def _first(side: str):
    def chooser(g, s, legal):
        movers = [a for a in legal if a["type"] == "first-mover"]
        if movers:
            return next(a for a in movers if a["first"] == side)
        if s != side:
            return next((a for a in legal if a["type"].startswith("end")), None)
        return None

    return chooser


@pytest.mark.rules("LGG 30-A")
def test_lgg_30a_third_army_by_coordination_test_and_mixed_command() -> None:
    g = _g("1915-03", ruleset="lgg1418-hooked")
    _plan(g, side=EN, armies=("FR-1", "GB-1"), objective="0405")
    play_until(g, "choose-activation", chooser=quiet(_first(EN)))
    act(g, EN, type="launch-offensive", third="GB-2")
    rolls = [e for e in g.state.log if e["type"] == "roll" and e.get("rule") == "LGG 11.3"]
    assert len(rolls) == 1  # the third army's coordination test
    off = offensive.offensives(g)["p1"]
    assert off["nations"] == ["FR", "GB"]
    assert off["command_army"] == "FR-1"  # tie in corps: the first named
    succeeded = any(e["type"] == "coordination" and e["data"]["success"] for e in g.state.log)
    assert (current_act(g)["armies"] == ["FR-1", "GB-1", "GB-2"]) == succeeded


@pytest.mark.rules("LGG 30-A")
def test_lgg_30a_the_commanding_army_commits_at_least_as_many_corps() -> None:
    g = _g("1915-03")
    off = {
        "id": "x",
        "side": EN,
        "nations": ["FR", "GB"],
        "command_army": "FR-1",
        "armies": ["FR-1", "GB-1"],
    }
    M.st(g).setdefault("offensives", {})["x"] = {**off, "status": "active"}
    i = g.board.idx("0405")
    for pid in ("f0", "e0", "e1", "f1c"):
        M.move_piece(
            g, g.state.pieces[pid], __import__("grognard.core.state", fromlist=["Loc"]).Loc.hex(i)
        )
        M.set_attr(g, g.state.pieces[pid], "mv_act", 9)
    M.set_attr(g, g.state.pieces["e1"], "attached", "GB-1")
    g.state.pieces["e1"].attrs["army"] = "GB-1"
    a = {"serial": 9, "side": EN, "great_offensive": "x", "armies": ["FR-1", "GB-1"]}
    assert offensive.offensive_end_movement_check(g, a) is None  # 2 French, 2 English
    g.state.pieces["f1c"].attrs["army"] = "GB-1"
    problem = offensive.offensive_end_movement_check(g, a)
    assert problem and problem[0] == "LGG 30-A"


# ---------------------------------------------------------------------- 30-C objective
@pytest.mark.rules("LGG 30-C")
def test_lgg_30c_objectives_and_retargeting() -> None:
    terrain = ["pppppppp"] * 3 + ["pppphppp"] + ["pppppppp"] * 4  # row 4, column 5 is high mountain
    g = _g("1915-03", terrain=terrain)
    assert g.board.terrain_of(g.board.idx("0504")) == "high_mountain"
    fh = M.labels(g, offensive.front_hexes(g, CP, "French"))
    assert "0504" not in fh and "0505" in fh
    i = g.board.idx
    mapdata.set_control(g, i("0505"), CP)  # the objective was taken before the launch
    M.move_piece(
        g,
        g.state.pieces["f1c"],
        __import__("grognard.core.state", fromlist=["Loc"]).Loc.hex(i("0605")),
    )
    opts = [M.labels(g, o) for o in offensive.retarget_options(g, CP, "French", [i("0505")])]
    assert (
        opts
        and all(g.board.distance(i(o[0]), i("0505")) <= 3 for o in opts)
        and ["0505"] not in opts
    )
    assert offensive.retarget_options(g, CP, "French", [i("0506")]) == [
        [i("0506")]
    ]  # still valid: kept


@pytest.mark.rules("LGG 30-C")
def test_lgg_30c_russian_objectives_city_fortress_or_two_localities() -> None:
    places = [
        {"hex": "0604", "kind": "city", "name": "Vilna", "attrs": {"nation": "RU"}},
        {"hex": "0804", "kind": "city", "name": "Far", "attrs": {"nation": "RU"}},
        {"hex": "0602", "kind": "locality", "name": "L1", "attrs": {"nation": "RU"}},
        {"hex": "0603", "kind": "locality", "name": "L2", "attrs": {"nation": "RU"}},
    ]
    pieces = [corps("d", "DE", "0104"), corps("r", "RU", "0504")]
    g = game(
        pieces=pieces,
        places=places,
        control={"hexes": {CP: WEST_HALF, EN: EAST_HALF}},
        rules={
            "first_turn": "1915-03",
            "last_turn": "1915-03",
            "default_sector": "Russian",
            "fronts": ["East"],
        },
    )
    objs = sorted(tuple(M.labels(g, o)) for o in offensive.objective_candidates(g, CP, "Russian"))
    assert ("0604",) in objs and ("0602", "0603") in objs
    assert ("0804",) not in objs  # more than 5 hexes from the front


@pytest.mark.rules("LGG 30-C", "LGG 30-F")
def test_lgg_30c_russian_objective_needs_five_more_connected_hexes() -> None:
    places = [{"hex": "0604", "kind": "city", "name": "Vilna", "attrs": {"nation": "RU"}}]
    g = game(
        pieces=[corps("d", "DE", "0104")],
        places=places,
        control={"hexes": {CP: WEST_HALF, EN: EAST_HALF}},
        rules={
            "first_turn": "1915-03",
            "last_turn": "1915-03",
            "default_sector": "Russian",
            "fronts": ["East"],
        },
    )
    off = {
        "side": CP,
        "sector": "Russian",
        "objective": ["0604"],
        "control_at_launch": {h: CP if h in WEST_HALF else EN for h in ALL},
    }
    i = g.board.idx
    mapdata.set_control(g, i("0604"), CP)
    assert not offensive.objective_taken(g, off)
    for h in ("0603", "0605", "0504", "0505", "0503"):
        mapdata.set_control(g, i(h), CP)
    assert offensive.objective_taken(g, off)


# ---------------------------------------------------------------------- 30-D, 30-E, 30-F
@pytest.mark.rules("LGG 30-D", "LGG 33-B")
def test_lgg_30d_voluntary_halt_at_the_end_of_the_turn_and_its_cost() -> None:
    g = _g("1916-03", "1916-05")
    g.state.tracks["national_will"]["DE"]["value"] = 40
    _plan(g, start="1916-03", year=1916)
    play_until(g, "choose-activation", chooser=quiet(_first(CP)))
    act(g, CP, type="launch-offensive", third=None)
    act(g, CP, type="end-movement")  # no corps engaged: nothing fought this turn
    play_until(g, "offensive-halt-decision", chooser=quiet())
    assert g.acting_sides() == [CP]
    assert {a["type"] for a in g.legal_actions(CP)} == {"go-on", "halt-offensive"}
    act(g, CP, type="halt-offensive")
    off = offensive.offensives(g)["p1"]
    assert off["status"] == "halted" and off["failed"]
    play_until(g, "reinforcement-side", quiet())
    assert strategic.national_will(g, "DE").value == 40 - 4 - 1  # 33-B: 1916, one turn
    assert M.current_turn(g).id == "1916-05"


@pytest.mark.rules("LGG 30-D")
def test_lgg_30d_continue_next_turn_or_halt_at_its_start() -> None:
    g = _g("1915-03", "1915-05", ruleset="lgg1418-hooked")
    _plan(g)
    play_until(g, "choose-activation", chooser=quiet(_first(CP)))
    act(g, CP, type="launch-offensive", third=None)
    act(g, CP, type="end-movement")
    to_turn(g, "1915-05", "choose-activation", chooser=quiet(_first(CP)))
    kinds = {a["type"] for a in g.legal_actions(CP)}
    assert {"continue-offensive", "halt-offensive"} <= kinds and "launch-offensive" not in kinds
    act(g, CP, type="halt-offensive")
    assert offensive.offensives(g)["p1"]["status"] == "halted"
    assert not any(a["type"] == "continue-offensive" for a in g.legal_actions(CP))


@pytest.mark.rules("LGG 30-E")
def test_lgg_30e_panic_of_an_attacking_corps_halts_the_offensive() -> None:
    g = _g("1915-03")
    off = offensive.launch(g, CP, _plan(g), ["0504"])
    offensive.note_main_battle(
        g, off, g.board.idx("0504"), {"winner": EN, "panic": CP, "defender_nations": ["FR"]}
    )
    assert off["status"] == "halted" and off["failed"] and "panic" in off["halt_reason"]


@pytest.mark.rules("LGG 30-F")
def test_lgg_30f_victory_assessed_at_the_end_of_the_military_turn() -> None:
    g = _g("1915-03")
    off = offensive.launch(g, CP, _plan(g), ["0504"])
    off["battle_turns"] = [M.turn_index(g)]
    offensive.assess(g, CP, "West")
    assert off["status"] == "active"
    mapdata.set_control(g, g.board.idx("0504"), CP)
    mapdata.set_control(g, g.board.idx("0604"), CP)
    offensive.note_main_battle(
        g,
        off,
        g.board.idx("0504"),
        {"winner": CP, "defender_state": "disorder", "defender_nations": ["FR"]},
    )
    offensive.assess(g, CP, "West")
    assert (
        off["status"] == "victorious"
        and off["vn_due"] == M.turn_index(g)
        and off["breakthrough"] == "major"
    )
    assert sorted(off["conquered"]) == ["0504", "0604"]
    # next targets: hexes next to the conquests
    targets = M.labels(g, offensive.main_battle_targets(g, off))
    assert "0605" in targets and "0505" in targets and "0808" not in targets
    # the West: losing one conquered hex halts a victorious offensive
    mapdata.set_control(g, g.board.idx("0604"), EN)
    offensive.assess(g, CP, "West")
    assert off["status"] == "halted" and not off["failed"]


@pytest.mark.rules("LGG 30-F", "LGG 35-A")
def test_lgg_30f_german_offensive_in_mother_russia_tests_russia() -> None:
    areas = [{"name": "RU", "kind": "country", "attrs": {"nation": "RU"}, "hexes": EAST_HALF}]
    g = _g("1915-03", areas=areas, rules={"default_sector": "Russian", "fronts": ["East"]})
    off = offensive.launch(
        g, CP, _plan(g, sector="Russian", objective="0504", armies=("DE-1", "DE-2")), ["0504"]
    )
    off["command"] = "DE"
    off["battle_turns"] = [M.turn_index(g)]
    for h in ("0504", "0505", "0503", "0604", "0603", "0605"):
        mapdata.set_control(g, g.board.idx(h), CP)
    offensive.assess(g, CP, "East")
    assert off["status"] == "victorious"
    assert "RU" in politics.rec(g)["patriotic_due"]


@pytest.mark.rules("LGG 36.5-A", "LGG 30-F")
def test_lgg_36_5a_a_victory_halts_the_enemy_offensive_except_in_combined_doctrine() -> None:
    for combined in (False, True):
        g = _g("1917-03")
        if combined:
            M.st(g)["combined_from"] = M.turn_index(g)
        mine = offensive.launch(g, CP, _plan(g), ["0504"])
        theirs = offensive.launch(
            g, EN, _plan(g, side=EN, armies=("FR-1", "GB-1"), objective="0405", pid="p2"), ["0405"]
        )
        mine["battle_turns"] = [M.turn_index(g)]
        mapdata.set_control(g, g.board.idx("0504"), CP)
        offensive.assess(g, CP, "West")
        assert mine["status"] == "victorious"
        assert (theirs["status"] == "active") == combined


# ---------------------------------------------------------------------- 30-H, 30-I, 36.5-A
@pytest.mark.rules("LGG 30-H")
def test_lgg_30h_cancel_a_planned_offensive() -> None:
    g = _g("1915-03", ruleset="lgg1418-hooked")
    _plan(g)
    play_until(g, "choose-activation", chooser=quiet(_first(CP)))
    act(g, CP, type="cancel-offensive", plan="p1")
    assert offensive.plans(g, CP)[0]["cancelled"] == M.turn_index(g)
    assert not any(
        a["type"] in ("launch-offensive", "cancel-offensive") for a in g.legal_actions(CP)
    )
    assert "cancels" not in json.dumps(g.visible_log(EN))


@pytest.mark.rules("LGG 30-I")
def test_lgg_30i_english_auxiliary_offensive_after_a_french_failure() -> None:
    g = _g("1916-03", "1916-07")
    _plan(g, side=EN, start="1916-03", year=1916, armies=("FR-1", "GB-1"), objective="0405")
    play_until(g, "choose-activation", chooser=quiet(_first(EN)))
    act(g, EN, type="launch-offensive", third=None)
    act(g, EN, type="end-movement")
    play_until(g, "offensive-halt-decision", chooser=quiet())
    act(g, EN, type="halt-offensive")
    play_until(g, "auxiliary-offensive-decision", quiet())
    assert g.acting_sides() == [EN]
    act(g, EN, type="auxiliary", launch=True)
    assert "auxiliary" not in json.dumps(g.view(CP)["secrets"])  # the decision is secret
    assert not any("English" in e["text"] and "launch" in e["text"] for e in g.visible_log(CP))
    to_turn(g, "1916-05", "choose-activation", chooser=quiet(_first(EN)))
    assert {"type": "unplanned-offensive", "side": EN, "sector": "French"} in g.legal_actions(EN)
    act(g, EN, type="unplanned-offensive", sector="French")
    assert g.current()[1].step == "great-offensive-planning"
    act(g, EN, type="plan-objective")
    pairs = [a["armies"] for a in g.legal_actions(EN) if a["type"] == "plan-armies"]
    assert pairs == [["GB-1", "GB-2"]]  # England alone
    act(g, EN, type="plan-armies")
    launch = next(a for a in g.legal_actions(EN) if a["type"] == "launch-offensive")
    assert launch["plan"].endswith(":1916-05")


@pytest.mark.rules("LGG 36.5-A")
def test_lgg_36_5a_combined_offensive_without_planning_objective_changes() -> None:
    g = _g("1917-03", "1917-05", ruleset="lgg1418-hooked")
    M.st(g)["combined_from"] = 0
    play_until(g, "choose-activation", chooser=quiet(_first(CP)))
    act(g, CP, type="unplanned-offensive", sector="French")
    act(g, CP, type="plan-objective", hexes=["0505"])
    act(g, CP, type="plan-armies", armies=["DE-1", "DE-2"])
    act(g, CP, type="launch-offensive", third=None)
    act(g, CP, type="end-movement")
    to_turn(g, "1917-05", "choose-activation", chooser=quiet(_first(CP)))
    objs = {tuple(a["objective"]) for a in g.legal_actions(CP) if a["type"] == "continue-offensive"}
    assert len(objs) > 1  # the objective may be changed freely each turn
    act(g, CP, type="continue-offensive", objective=["0506"], third=None)
    assert offensive.offensives(g)[current_act(g)["great_offensive"]]["objective"] == ["0506"]


# --------------------------------------------------------------- counts, reactions, counter-attacks
@pytest.mark.rules("LGG 30")
def test_lgg_30_a7_one_main_battle_per_side_per_turn_or_per_sector() -> None:
    g = _g("1915-03")
    off = offensive.launch(g, CP, _plan(g), ["0504"])
    off["battle_turns"] = [M.turn_index(g)]
    assert not offensive._count_allows(g, CP, "French") and not offensive._count_allows(
        g, CP, "Italian"
    )
    assert offensive._count_allows(g, EN, "French")
    g2 = _g("1915-03", options={"great-offensive-count": "per-turn"})
    off2 = offensive.launch(g2, CP, _plan(g2), ["0504"])
    off2["battle_turns"] = [M.turn_index(g2)]
    assert not offensive._count_allows(g2, CP, "French") and offensive._count_allows(
        g2, CP, "Italian"
    )


@pytest.mark.rules("LGG 30-A", "LGG 36.5-A")
def test_lgg_30a_no_reaction_nor_counter_attack_by_the_armies_of_the_main_battle() -> None:
    g = _g("1915-03")
    offensive.launch(g, CP, _plan(g), ["0504"])
    assert offensive.reaction_forbidden(g, "DE-1") and offensive.reaction_forbidden(g, "FR-1")
    assert offensive.reaction_forbidden(g, "GB-1") is None
    assert (
        offensive.counter_attack_forbidden(g, "FR-1")
        and offensive.counter_attack_forbidden(g, "GB-1") is None
    )
    assert offensive.defender_army_locked(g, "GB-1", g.board.idx("0504"))
    assert offensive.defender_army_locked(g, "FR-1", g.board.idx("0504")) is None
    M.st(g)["combined_from"] = 0
    assert offensive.counter_attack_forbidden(g, "FR-1", own_turn=True) is None  # 36.5-A
    g.state.set_marker(
        "battle",
        "0606",
        {"turn": M.turn_index(g), "side": EN, "activation": 3, "coordinated": ["GB-2"]},
    )
    assert "Combined" in offensive.reaction_forbidden(g, "GB-2")


@pytest.mark.rules("LGG 30-D")
def test_lgg_30d_four_corps_required_only_while_more_can_join() -> None:
    g = _g("1915-03", ruleset="lgg1418-hooked")
    _plan(g)
    play_until(g, "choose-activation", chooser=quiet(_first(CP)))
    act(g, CP, type="launch-offensive", third=None)
    act(g, CP, type="move", units=["a0"], to="0505", mode="normal")
    assert not any(a["type"] == "end-movement" for a in g.legal_actions(CP))
    for pid in ("a1", "b0", "b1"):  # the other corps can no longer move
        M.set_attr(g, g.state.pieces[pid], "mv_act", current_act(g)["serial"])
        M.set_attr(g, g.state.pieces[pid], "mv_stop", True)
    assert offensive.offensive_end_movement_check(g, current_act(g)) is None
    assert any(a["type"] == "end-movement" for a in g.legal_actions(CP))


@pytest.mark.rules("LGG 30-A")
def test_lgg_30a_reaction_ban_recorded_for_the_reaction_rules_and_defender_does_not_attack() -> (
    None
):
    g = _g("1915-03")
    off = offensive.launch(g, CP, _plan(g), ["0504"])
    bar = M.st(g)["no_reaction"]
    assert set(bar) == {"DE-1", "DE-2", "FR-1"} and all(
        v.startswith("LGG 30-A") for v in bar.values()
    )
    M.st(g)["no_reaction"]["GB-1"] = "LGG 19-C: retreated"  # another rule's entry is kept
    a = {"serial": 7, "side": EN, "front": "West", "armies": ["FR-1"]}
    with pytest.raises(IllegalAction) as e:  # the defending army never counter-attacks
        offensive.offensive_attack_check(
            g, a, [g.state.pieces["f0"]], g.board.idx("0404"), "normal", True
        )
    assert e.value.rule == "LGG 30-A"
    offensive.offensive_attack_check(
        g, {**a, "armies": ["GB-1"]}, [g.state.pieces["e0"]], g.board.idx("0406"), "normal", True
    )
    offensive.halt(g, off, "voluntary halt at the end of the turn", "LGG 30-D")
    assert M.st(g)["no_reaction"] == {"GB-1": "LGG 19-C: retreated"}
