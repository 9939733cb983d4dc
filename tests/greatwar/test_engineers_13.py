"""OT 13 engineers: construction, demolition, repair, weather and quick engineering (13A),
railroad engineers (13B), port construction engineers (13C), the combat abilities of combat,
assault, flamethrower, siege and gas engineers (13D-13H) and divisional engineers (13I)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.logistics import engineers
from grognard.rulesets.greatwar.map import terrain
from grognard.rulesets.greatwar.mechanics import gw, marker
from grognard.rulesets.greatwar.movement import movement, rail
from grognard.rulesets.greatwar.supply import supply
from grognard.rulesets.greatwar.units import units

from .helpers import CP, EN, division, end, force_dice, frame, game, idx, run_to, step_name, unit

pytestmark = pytest.mark.rules("OT 13")

ALL = [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 7)]
CTL = {EN: [h for h in ALL if int(h[:2]) <= 6], CP: [h for h in ALL if int(h[:2]) > 6]}
SOURCES = {
    "places": [("0101", "partial-city", "A"), ("0103", "partial-city", "B")],
    "networks": [{"name": "r", "kind": "rail", "paths": [["0101", "0102", "0103"]]}],
}


def res(pid: str, at: str, nation: str = "France") -> dict:
    return unit(pid, "res-pt", nation, at, size="", faces={})


def eng_game(
    pieces: list[dict], places: list | None = None, networks: list | None = None, **kw: object
):
    args: dict = {
        "cols": 8,
        "nrows": 6,
        "control": CTL,
        "pieces": pieces,
        "places": SOURCES["places"] + (places or []),
        "networks": SOURCES["networks"] + (networks or []),
    }
    args.update(kw)
    return game(**args)


def mp_spent(g, pid: str) -> Fraction:
    return movement.spent(frame(g), g.state.pieces[pid])


def work(g, pieces: list[str], task: str, **kw: object) -> None:
    g.apply(
        {
            "type": "engineer",
            "side": g.state.pieces[pieces[0]].side,
            "pieces": pieces,
            "task": task,
            **kw,
        }
    )


def to_initial(g, side: str = EN) -> None:
    end(g)
    run_to(g, "initial-actions", side)


def next_turn(g) -> None:
    """From the Entente movement phase to the next turn's Entente movement phase."""
    end(g)
    run_to(g, "ground-movement", EN)


# ============================================================================ who (13A, 13I)
@pytest.mark.rules("OT 13A", "OT 13I", "OT 13D", "OT 13E", "OT 13G", "OT 13H")
def test_ot_13_construction_units() -> None:
    """OT-G-119: a divisional unit with printed attack 4 has no divisional engineer."""
    g = eng_game(
        [
            unit("ce", "construction", "France", "0202"),
            unit("co", "combat-engineer", "France", "0202"),
            unit("as", "assault-engineer", "France", "0202"),
            unit("se", "siege-engineer", "France", "0202"),
            unit("ge", "gas-engineer", "France", "0202"),
            unit("rr", "railroad-engineer", "France", "0202"),
            division("d5", "France", "0203", a=5, d=7),
            division("d4", "France", "0203", a=4, d=7),
        ]
    )
    P = g.state.pieces
    kinds = {
        pid: engineers.construction_kind(P[pid])
        for pid in ("ce", "co", "as", "se", "ge", "rr", "d5", "d4")
    }
    assert kinds == {
        "ce": "general",
        "co": "general",
        "as": "",
        "se": "",
        "ge": "",
        "rr": "railroad",
        "d5": "divisional",
        "d4": "",
    }


@pytest.mark.rules("OT 13A")
def test_ot_13a_general_restrictions() -> None:
    g = eng_game(
        [
            unit("ce", "construction", "France", "0202"),
            unit("far", "construction", "France", "0606"),
        ]
    )
    P = g.state.pieces
    assert engineers.worker_problem(g, frame(g), P["ce"], EN) is None
    assert "general supply" in str(engineers.worker_problem(g, frame(g), P["far"], EN))
    g.apply({"type": "move", "side": EN, "piece": "ce", "path": ["0302"], "accel": True})
    assert "accelerated" in str(engineers.worker_problem(g, frame(g), P["ce"], EN))
    gw(g)["phase"] = "exploitation"
    assert "initial and movement" in str(engineers.worker_problem(g, None, P["ce"], EN))


# ============================================================== MP work (13A1a/b, 13A2, 13A3, 13A4)
@pytest.mark.rules("OT 13A1a", "OT 13A1b", "OT 13I")
def test_ot_13a1_fieldworks_and_entrenchment_in_one_phase() -> None:
    """OT-G-108: fieldworks then an entrenchment in a clear hex in one movement phase: 2 + 4 = 6 MP;
    a
    divisional engineer (from Jun I 15) pays (2 + 4) x 2 = 12 MP."""
    g = eng_game(
        [
            unit("ce", "construction", "France", "0202", m=8),
            division("d", "France", "0203", a=6, d=8, m=12),
        ],
        turns=[("Jun I 15", {}), ("Jun II 15", {})],
    )
    work(g, ["ce"], "fieldworks")
    work(g, ["ce"], "entrenchment")
    assert mp_spent(g, "ce") == 6 and marker(g, "fortification", idx(g, "0202")) == "entrenchment"
    work(g, ["d"], "fieldworks")
    work(g, ["d"], "entrenchment")
    assert mp_spent(g, "d") == 12 and marker(g, "fortification", idx(g, "0203")) == "entrenchment"
    with pytest.raises(IllegalAction):
        work(g, ["ce"], "fieldworks")  # the hex already has a fortification


@pytest.mark.rules("OT 13A1b", "OT 13A1g", "OT 13I")
def test_ot_13a1b_entrenchments_cost_and_dates() -> None:
    g = eng_game(
        [
            unit("ce", "construction", "France", "0202", m=8),
            division("d", "France", "0402", a=6, d=8, m=12),
        ],
        rows=["cccccc" + "cc"] + ["ccwccccc"] * 5,
        turns=[("Oct I 14", {}), ("Oct II 14", {})],
    )
    work(g, ["ce"], "fieldworks")
    with pytest.raises(IllegalAction) as e:
        work(g, ["ce"], "entrenchment")
    assert e.value.rule == "OT 13A1g"  # not before Oct II 14
    assert not engineers.can_do(
        g, g.state.pieces["d"], "entrenchment"
    )  # divisional engineers from Jun I 15
    g2 = eng_game(
        [unit("ce", "construction", "France", "0302", m=8)], rows=["cccccccc"] + ["ccwccccc"] * 5
    )
    g2.state.turn = {"index": 1, "label": "Oct II 14"}
    work(g2, ["ce"], "fieldworks")
    work(g2, ["ce"], "entrenchment")
    assert mp_spent(g2, "ce") == 2 + 6  # woods: 6 MP


@pytest.mark.rules("OT 13A1g")
def test_ot_13a1g_construction_dates() -> None:
    """OT-G-118: Entente entrenchment -> fort illegal on Jan II 16, legal on Feb I 16; CP legal on
    Feb I 15."""
    g = eng_game([])
    for label, side, ok in (
        ("Jan II 16", EN, False),
        ("Feb I 16", EN, True),
        ("Feb I 15", CP, True),
        ("Jan II 15", CP, False),
        ("Feb I 17", CP, True),
        ("Feb I 17", EN, False),
        ("Feb I 18", EN, True),
    ):
        g.state.turn = {"index": 1, "label": label}
        task = "improved-fort" if label.endswith("17") or label.endswith("18") else "fort"
        assert engineers.date_allows(g, side, task) is ok, (label, side)


@pytest.mark.rules("OT 13A1a", "OT 13I")
def test_ot_13a1a_fieldworks_need_maintenance() -> None:
    g = eng_game(
        [
            unit("ce", "construction", "France", "0202"),
            unit("rr", "railroad-engineer", "France", "0203"),
            division("d", "France", "0204", a=6, d=8, cadre=(2, 3, 5)),
        ]
    )
    P = g.state.pieces
    for h in ("0203", "0204"):
        g.state.set_marker("fortification", str(idx(g, h)), "fieldworks")
    work(g, ["ce"], "fieldworks")
    P["d"].face = "cadre"
    g.apply({"type": "move", "side": EN, "piece": "ce", "path": ["0302"]})
    assert marker(g, "fortification", idx(g, "0202")) is None  # abandoned when the unit left
    assert (
        marker(g, "fortification", idx(g, "0203")) is None
    )  # a railroad engineer does not maintain them (default)
    assert (
        marker(g, "fortification", idx(g, "0204")) == "fieldworks"
    )  # a divisional cadre does (OT 13I)


@pytest.mark.rules("OT 13A2")
def test_ot_13a2_demolition() -> None:
    places = [("0203", "port", "P", {"size": "standard"})]
    g = eng_game(
        [
            unit("ce", "construction", "France", "0202", m=10),
            unit("c2", "construction", "France", "0203", m=10),
            unit("pe", "port-construction-engineer", "France", "0203", m=10),
        ],
        places=places,
        rows=["cccccccc"] * 5 + ["xxxxxxxx"],
        hexsides=[("canal", ["0302/0402"])],
        networks=[{"name": "rd", "kind": "road", "paths": [["0302", "0402"]]}],
    )
    g.state.set_marker("fortification", str(idx(g, "0202")), "fort")
    work(g, ["ce"], "demolish-fortification")
    assert mp_spent(g, "ce") == 8 and marker(g, "fortification", idx(g, "0202")) == "entrenchment"
    work(g, ["c2"], "demolish-port", mp=3)
    assert marker(g, "port-damage", idx(g, "0203")) == 1
    work(g, ["pe"], "demolish-port", mp=2)  # a port construction engineer: 2 MP a hit (OT 13C1)
    assert marker(g, "port-damage", idx(g, "0203")) == 2
    with pytest.raises(IllegalAction):
        work(g, ["c2"], "demolish-fortification")  # nothing to demolish there


@pytest.mark.rules("OT 13A2", "OT 13A3", "OT 13A4")
def test_ot_13a4_canal_bridge_repair_over_three_turns() -> None:
    """OT-G-111: repairing a canal bridge (8 MP): 3 MP in good weather, 4 in poor (the 5 left cost
    10),
    3 in good weather again (the 6 left cost 3): done, 10 MP over 3 turns."""
    turns = [
        ("Sep I 14", {}),
        ("Sep II 14", {}),
        ("Oct I 14", {"weather": "mud"}),
        ("Oct II 14", {}),
    ]
    g = eng_game(
        [unit("ce", "construction", "France", "0302", m=5)],
        hexsides=[("canal", ["0302/0402"])],
        networks=[{"name": "rd", "kind": "road", "paths": [["0302", "0402"]]}],
        turns=turns,
    )
    s = g.board.side_between(idx(g, "0302"), idx(g, "0402"))
    work(g, ["ce"], "demolish-bridge", hexside="0302/0402")
    assert marker(g, "bridge-demolished", s)
    assert not terrain.bridge_usable(g, EN, s)
    end(g)
    run_to(g, "ground-movement", EN)
    work(g, ["ce"], "repair-bridge", hexside="0302/0402", mp=3)
    assert gw(g)["eng"]["works"][f"repair-bridge:{idx(g, '0302')}:{s}"]["left"] == Fraction(5, 8)
    end(g)
    run_to(g, "ground-movement", EN)
    work(g, ["ce"], "repair-bridge", hexside="0302/0402", mp=4)
    assert gw(g)["eng"]["works"][f"repair-bridge:{idx(g, '0302')}:{s}"]["left"] == Fraction(3, 8)
    end(g)
    run_to(g, "ground-movement", EN)
    work(g, ["ce"], "repair-bridge", hexside="0302/0402")
    assert mp_spent(g, "ce") == 3 and not marker(g, "bridge-demolished", s)


@pytest.mark.rules("OT 13A3", "OT 13A4", "OT 13A5", "OT 13B2")
def test_ot_13a3_rail_repair_and_clearing() -> None:
    """OT-G-109/112/114: a rail break costs 4 MP (8 in poor weather); two construction units 2 MP
    each
    (4 in poor weather); a railroad engineer with a construction unit 1 1/2 each."""

    def rg(weather: str = "clear", extra: list[dict] | None = None):
        g = eng_game(
            [
                unit("a", "construction", "France", "0202", m=10),
                unit("b", "construction", "France", "0202", m=10),
                unit("rr", "railroad-engineer", "France", "0202", m=10),
            ]
            + (extra or []),
            networks=[{"name": "r2", "kind": "rail", "paths": [["0102", "0202", "0302"]]}],
            turns=[("Sep I 14", {"weather": weather})],
        )
        g.state.set_marker("rail-break", str(idx(g, "0202")), True)
        g.state.set_marker("rail-obstructed", str(idx(g, "0202")), True)
        return g

    g = rg()
    with pytest.raises(IllegalAction):
        work(g, ["a"], "clear-rail")  # the break first
    work(g, ["a"], "repair-rail")
    assert mp_spent(g, "a") == 4 and not marker(g, "rail-break", idx(g, "0202"))
    work(g, ["b"], "clear-rail")
    assert mp_spent(g, "b") == 2 and not marker(g, "rail-obstructed", idx(g, "0202"))
    g = rg("mud")
    work(g, ["a"], "repair-rail")
    assert mp_spent(g, "a") == 8
    g = rg()
    work(g, ["a", "b"], "repair-rail")
    assert mp_spent(g, "a") == mp_spent(g, "b") == 2
    g = rg("mud")
    work(g, ["a", "b"], "repair-rail")
    assert mp_spent(g, "a") == mp_spent(g, "b") == 4
    g = rg()
    work(g, ["rr", "a"], "repair-rail")
    assert mp_spent(g, "rr") == mp_spent(g, "a") == Fraction(3, 2)
    g = rg()
    g.state.set_marker("rail-break", str(idx(g, "0202")), None)
    work(g, ["rr"], "clear-rail")
    assert mp_spent(g, "rr") == 1 and not marker(g, "rail-obstructed", idx(g, "0202"))


@pytest.mark.rules("OT 13A3", "OT 13C1")
def test_ot_13a3_port_repair() -> None:
    places = [("0203", "port", "P", {"size": "standard"})]
    g = eng_game(
        [
            unit("c", "construction", "France", "0203", m=10),
            unit("pe", "port-construction-engineer", "France", "0203", m=10),
        ],
        places=places,
        rows=["cccccccc"] * 5 + ["xxxxxxxx"],
    )
    g.state.set_marker("port-damage", str(idx(g, "0203")), 3)
    work(g, ["c"], "repair-port")
    assert mp_spent(g, "c") == 6 and marker(g, "port-damage", idx(g, "0203")) == 2
    work(g, ["pe"], "repair-port")
    assert mp_spent(g, "pe") == 4 and marker(g, "port-damage", idx(g, "0203")) == 1
    assert engineers.can_do(g, g.state.pieces["pe"], "repair-port") and not engineers.can_do(
        g, g.state.pieces["pe"], "fieldworks"
    )


@pytest.mark.rules("OT 13A3")
def test_ot_13a3_bridges_need_both_hexes_and_major_rivers_a_res_pt() -> None:
    ctl = {EN: [h for h in CTL[EN] if h != "0402"], CP: [*CTL[CP], "0402"]}
    g = eng_game(
        [unit("ce", "construction", "France", "0302", m=20), res("rp", "0202")],
        control=ctl,
        hexsides=[("major-river", ["0302/0402"]), ("canal", ["0302/0303"])],
        networks=[{"name": "rd", "kind": "road", "paths": [["0302", "0402"], ["0302", "0303"]]}],
    )
    s = g.board.side_between(idx(g, "0302"), idx(g, "0402"))
    g.state.set_marker("bridge-demolished", str(s), True)
    with pytest.raises(IllegalAction) as e:
        work(g, ["ce"], "repair-bridge", hexside="0302/0402")
    assert "both hexes" in str(e.value)
    g.state.control[idx(g, "0402")] = EN
    g.invalidate()
    work(g, ["ce"], "repair-bridge", hexside="0302/0402")
    assert mp_spent(g, "ce") == 16 and g.state.pieces["rp"].loc == Loc.box("expended")


# ============================================================== turn projects (13A1c-f, 13A4, 13A5)
def project_game(
    rows: list[str] | None = None,
    turns: list | None = None,
    extra: list[dict] | None = None,
    **kw: object,
):
    pieces = [
        unit("ce", "construction", "France", "0202"),
        res("rp", "0202"),
        res("rp2", "0202"),
    ] + (extra or [])
    g = eng_game(
        pieces,
        rows=rows or ["c" * 8] * 6,
        turns=turns or [("Feb I 16", {}), ("Feb II 16", {}), ("Mar I 16", {}), ("Mar II 16", {})],
        **kw,
    )
    g.state.set_marker("fortification", str(idx(g, "0202")), "entrenchment")
    return g


@pytest.mark.rules("OT 13A1c", "OT 4A1")
def test_ot_13a1c_fort_begun_in_the_initial_phase() -> None:
    """OT-G-107: a fort in a woods hex begun in an initial phase is completed two game turns
    later."""
    rows = ["cccccccc", "cwcccccc"] + ["cccccccc"] * 4
    g = project_game(rows=rows)
    to_initial(g)
    acts = [a for a in g.legal_actions(EN) if a["type"] == "begin-project"]
    assert {a["task"] for a in acts} == {"fort"}
    g.apply(acts[0])
    assert g.state.pieces["rp"].loc == Loc.box("expended")  # the Res Pt is spent
    pr = gw(g)["eng"]["projects"][0]
    assert pr["left"] == 2
    end(g)  # Feb II 16: begun
    next_turn(g)  # Mar I 16: one turn done
    assert marker(g, "fortification", idx(g, "0202")) == "entrenchment"
    next_turn(g)  # Mar II 16: done
    assert marker(g, "fortification", idx(g, "0202")) == "fort"


@pytest.mark.rules("OT 13A1c", "OT 13A4")
def test_ot_13a4_fort_in_poor_weather_takes_two_turns() -> None:
    """OT-G-110: a fort in clear terrain in poor weather takes 2 turns."""
    g = project_game(
        turns=[
            ("Jan II 16", {}),
            ("Feb I 16", {"weather": "mud"}),
            ("Feb II 16", {"weather": "mud"}),
            ("Mar I 16", {}),
        ]
    )
    to_initial(g)
    g.apply({"type": "begin-project", "side": EN, "pieces": ["ce"], "task": "fort"})
    end(g)  # Feb I 16 (mud): begun
    next_turn(g)
    assert marker(g, "fortification", idx(g, "0202")) == "entrenchment"
    next_turn(g)
    assert marker(g, "fortification", idx(g, "0202")) == "fort"


@pytest.mark.rules("OT 13A1c")
def test_ot_13a1c_leaving_the_hex_cancels_the_project() -> None:
    g = project_game()
    to_initial(g)
    g.apply({"type": "begin-project", "side": EN, "pieces": ["ce"], "task": "fort"})
    end(g)
    run_to(g, "ground-movement", EN)
    g.apply({"type": "move", "side": EN, "piece": "ce", "path": ["0302"]})
    end(g)
    run_to(g, "ground-movement", EN)
    assert (
        marker(g, "fortification", idx(g, "0202")) is None
    )  # cancelled; the entrenchment left unmaintained
    assert gw(g)["eng"]["projects"] == []


@pytest.mark.rules("OT 13A5", "OT 13A1c")
def test_ot_13a5_quick_engineering_one_turn_project() -> None:
    """OT-G-113: two 1-2-5 construction units upgrade an entrenchment to a fort in a rough hex in
    clear
    weather: each spends 2 1/2 MP."""
    rows = ["cccccccc", "crcccccc"] + ["cccccccc"] * 4
    g = project_game(rows=rows, extra=[unit("c2", "construction", "France", "0202")])
    to_initial(g)
    g.apply({"type": "begin-project", "side": EN, "pieces": ["ce", "c2"], "task": "fort"})
    end(g)
    pr = gw(g)["eng"]["projects"][0]
    acts = [a for a in g.legal_actions(EN) if a["type"] == "finish-project"]
    assert acts == [{"type": "finish-project", "side": EN, "project": pr["id"]}]
    g.apply(acts[0])
    assert mp_spent(g, "ce") == mp_spent(g, "c2") == Fraction(5, 2)
    assert marker(g, "fortification", idx(g, "0202")) == "fort"


@pytest.mark.rules("OT 13A5")
def test_ot_13a5_brigades_count_double_and_halving_turns() -> None:
    g = eng_game(
        [
            unit("cb", "construction", "France", "0202", size="brigade", m=6),
            unit("cd", "construction", "France", "0302", size="division", m=6),
        ],
        turns=[("Oct II 14", {})],
    )
    P = g.state.pieces
    assert engineers.engineer_count(P["cb"]) == 2 and engineers.engineer_count(P["cd"]) == 4
    g.state.set_marker("rail-break", str(idx(g, "0202")), True)
    g.state.set_marker("fortification", str(idx(g, "0402")), "fieldworks")
    work(g, ["cb"], "fieldworks")
    assert mp_spent(g, "cb") == 1  # a brigade alone halves the cost
    work(
        g, ["cd"], "entrenchment", target="0402"
    )  # a division works in an adjacent friendly hex in supply
    assert marker(g, "fortification", idx(g, "0402")) == "entrenchment"
    g2 = project_game(
        turns=[("Feb I 16", {}), ("Feb II 16", {})],
        rows=["cccccccc", "cwcccccc"] + ["cccccccc"] * 4,
        extra=[unit("c2", "construction", "France", "0202")],
    )
    gw(g2)["phase"] = "initial"
    pr = engineers.plan_project(
        g2, None, {"type": "begin-project", "side": EN, "pieces": ["ce", "c2"], "task": "fort"}
    )
    assert pr["left"] == 1  # 2 turns halved (rounded up; default)


@pytest.mark.rules("OT 13A1d", "OT 13A1e")
def test_ot_13a1d_improved_fort_and_13a1e_fortress() -> None:
    g = project_game(turns=[("Feb I 18", {})])
    g.state.set_marker("fortification", str(idx(g, "0202")), "fort")
    gw(g)["phase"] = "initial"
    pr = engineers.plan_project(
        g, None, {"type": "begin-project", "side": EN, "pieces": ["ce"], "task": "improved-fort"}
    )
    assert pr["left"] == 2
    g2 = eng_game(
        [unit("ce", "construction", "France", "0202"), *[res(f"r{k}", "0202") for k in range(6)]],
        places=[("0202", "fortress", "Verdun", {"state": "unimproved"})],
        turns=[("Feb I 16", {})],
    )
    gw(g2)["phase"] = "initial"
    pr2 = engineers.plan_project(
        g2, None, {"type": "begin-project", "side": EN, "pieces": ["ce"], "task": "fortress"}
    )
    assert pr2["left"] == 12
    engineers.begin_project(g2, pr2)
    assert sum(1 for k in range(6) if g2.state.pieces[f"r{k}"].loc == Loc.box("expended")) == 1
    for _ in range(11):
        engineers.progress_projects(g2, EN)
    spent = sum(1 for k in range(6) if g2.state.pieces[f"r{k}"].loc == Loc.box("expended"))
    assert spent == 6 and marker(g2, "fortress-state", idx(g2, "0202")) == "unimproved"
    engineers.progress_projects(g2, EN)
    assert marker(g2, "fortress-state", idx(g2, "0202")) == "improved"
    g3 = eng_game(
        [unit("ce", "construction", "France", "0202"), res("r0", "0202")],
        places=[("0202", "fortress", "V", {"state": "unimproved"})],
    )
    gw(g3)["phase"] = "initial"
    pr3 = engineers.plan_project(
        g3, None, {"type": "begin-project", "side": EN, "pieces": ["ce"], "task": "fortress"}
    )
    engineers.begin_project(g3, pr3)
    engineers.progress_projects(g3, EN)
    engineers.progress_projects(g3, EN)
    assert gw(g3)["eng"]["projects"][0][
        "stalled"
    ]  # no Res Pt for the second month: the work stalls (default)


def road_game(
    rows: list[str],
    hexsides: list | None = None,
    kind: str = "road",
    extra: list[dict] | None = None,
):
    rules = f'[[rules.heads]]\nkind = "{kind}"\nhex = "0202"\nbeyond = ["0302", "0402"]'
    nets = [{"name": "rd", "kind": kind, "paths": [["0102", "0202", "0302", "0402"]]}]
    pieces = [
        unit("ce", "construction", "France", "0202"),
        unit("rr", "railroad-engineer", "France", "0202"),
        res("rp", "0202"),
        res("rp2", "0202"),
    ]
    g = eng_game(
        pieces + (extra or []), rows=rows, hexsides=hexsides or [], networks=nets, rules=rules
    )
    gw(g)["phase"] = "initial"
    return g


@pytest.mark.rules("OT 13A1f")
def test_ot_13a1f_road_extension() -> None:
    """OT-G-115/116: across a river hexside a Res Pt is always spent and it takes 4 turns; into a
    clear
    hex a roll of 1-2 spends the Res Pt, 3-6 does not, and it takes 2 turns."""
    g = road_game(["c" * 8] * 6, hexsides=[("river", ["0202/0302"])])
    pr = engineers.plan_project(
        g, None, {"type": "begin-project", "side": EN, "pieces": ["ce"], "task": "road"}
    )
    assert pr["left"] == 4 and pr["spend_all"] and not pr["roll"]
    engineers.begin_project(g, pr)
    assert g.state.pieces["rp"].loc == Loc.box("expended")
    g = road_game(["c" * 8] * 6)
    pr = engineers.plan_project(
        g, None, {"type": "begin-project", "side": EN, "pieces": ["ce"], "task": "road"}
    )
    assert pr["left"] == 2 and pr["roll"]
    force_dice(g, [2])
    engineers.begin_project(g, pr)
    assert g.state.pieces["rp"].loc == Loc.box("expended")
    g = road_game(["c" * 8] * 6)
    pr = engineers.plan_project(
        g, None, {"type": "begin-project", "side": EN, "pieces": ["ce"], "task": "road"}
    )
    force_dice(g, [3])
    engineers.begin_project(g, pr)
    assert g.state.pieces["rp"].loc.kind == "hex"
    assert not terrain.road_link(g, g.board.side_between(idx(g, "0202"), idx(g, "0302")))
    engineers.progress_projects(g, EN)
    engineers.progress_projects(g, EN)
    assert terrain.road_link(
        g, g.board.side_between(idx(g, "0202"), idx(g, "0302"))
    )  # the roadhead advanced
    assert gw(g)["heads"] == [] or gw(g)["heads"][0]["hexes"][0] == idx(g, "0302")
    # any adjacent hex the road does not reach yet: a new road link
    g = road_game(["c" * 8] * 6)
    with pytest.raises(IllegalAction):
        engineers.plan_project(
            g,
            None,
            {
                "type": "begin-project",
                "side": EN,
                "pieces": ["ce"],
                "task": "road",
                "target": "0102",
            },
        )  # already joined
    pr = engineers.plan_project(
        g,
        None,
        {"type": "begin-project", "side": EN, "pieces": ["ce"], "task": "road", "target": "0203"},
    )
    force_dice(g, [5])
    engineers.begin_project(g, pr)
    engineers.progress_projects(g, EN)
    engineers.progress_projects(g, EN)
    assert terrain.road_link(g, g.board.side_between(idx(g, "0202"), idx(g, "0203")))


@pytest.mark.rules("OT 13B3c")
def test_ot_13b3c_rail_extension() -> None:
    """OT-G-117: a rail extension into a forest hex: 1 Res Pt, 8 turns; into a mountain hex: 2 Res
    Pts, 8 turns."""
    g = road_game(["c" * 8, "ccfccccc"] + ["c" * 8] * 4, kind="rail")
    pr = engineers.plan_project(
        g, None, {"type": "begin-project", "side": EN, "pieces": ["rr"], "task": "rail-extend"}
    )
    assert pr["left"] == 8 and len(pr["res"]) == 1
    g = road_game(["c" * 8, "ccmccccc"] + ["c" * 8] * 4, kind="rail")
    pr = engineers.plan_project(
        g, None, {"type": "begin-project", "side": EN, "pieces": ["rr"], "task": "rail-extend"}
    )
    assert pr["left"] == 8 and len(pr["res"]) == 2
    g = road_game(["c" * 8] * 6, kind="rail")
    pr = engineers.plan_project(
        g, None, {"type": "begin-project", "side": EN, "pieces": ["rr"], "task": "rail-extend"}
    )
    assert pr["left"] == 4
    with pytest.raises(IllegalAction):
        engineers.plan_project(
            g, None, {"type": "begin-project", "side": EN, "pieces": ["ce"], "task": "rail-extend"}
        )  # railroad engineers only
    pr = engineers.plan_project(
        g,
        None,
        {
            "type": "begin-project",
            "side": EN,
            "pieces": ["rr"],
            "task": "rail-extend",
            "target": "0203",
        },
    )
    engineers.begin_project(g, pr)
    for _ in range(4):
        engineers.progress_projects(g, EN)
    lk = next(lk for lk in rail.links(g)[idx(g, "0202")] if lk.to == idx(g, "0203"))
    assert lk.volume == "low"  # a new line is low-volume until upgraded (interpretation)


# ========================================================================= railroad engineers (13B)
@pytest.mark.rules("OT 13B", "OT 13B1", "OT 7A6")
def test_ot_13b1_railroad_engineers_break_rail_for_one_mp() -> None:
    g = eng_game(
        [
            unit("rr", "railroad-engineer", "France", "0202"),
            unit("ce", "construction", "France", "0202"),
        ],
        networks=[{"name": "r2", "kind": "rail", "paths": [["0102", "0202", "0302"]]}],
    )
    assert rail.check_break(g, frame(g), {"type": "break-rail", "side": EN, "piece": "rr"}) == 1
    assert rail.check_break(g, frame(g), {"type": "break-rail", "side": EN, "piece": "ce"}) == 2
    assert not engineers.can_do(g, g.state.pieces["rr"], "fieldworks")


@pytest.mark.rules("OT 13B3", "OT 13B3a")
def test_ot_13b3a_regauge() -> None:
    g = eng_game(
        [unit("rr", "railroad-engineer", "France", "0202")],
        networks=[{"name": "r2", "kind": "rail", "paths": [["0102", "0202", "0302"]]}],
    )
    work(g, ["rr"], "regauge", gauge="broad")
    assert mp_spent(g, "rr") == 2
    assert {lk.gauge for lk in rail.links(g)[idx(g, "0202")]} == {"broad"}
    g.state.set_marker("rail-break", str(idx(g, "0202")), True)
    with pytest.raises(IllegalAction):
        work(g, ["rr"], "regauge", gauge="standard")  # only a cleared, unbroken line


@pytest.mark.rules("OT 13B3b")
def test_ot_13b3b_rail_upgrade() -> None:
    g = eng_game(
        [unit("rr", "railroad-engineer", "France", "0202"), res("rp", "0202")],
        networks=[
            {
                "name": "r2",
                "kind": "rail",
                "paths": [["0102", "0202", "0302"]],
                "attrs": {"volume": "low"},
            }
        ],
    )
    gw(g)["phase"] = "initial"
    pr = engineers.plan_project(
        g, None, {"type": "begin-project", "side": EN, "pieces": ["rr"], "task": "rail-upgrade"}
    )
    assert pr["left"] == 2
    engineers.begin_project(g, pr)
    assert g.state.pieces["rp"].loc == Loc.box("expended")
    engineers.progress_projects(g, EN)
    engineers.progress_projects(g, EN)
    assert {lk.volume for lk in rail.links(g)[idx(g, "0202")]} == {"high"}


@pytest.mark.rules("OT 13B4", "OT 7A5g")
def test_ot_13b4_railroad_engineers_reduce_deterioration() -> None:
    rules = '[[rules.rail_nets]]\nname = "N"\ncapacity = { Entente = 30 }'
    g = eng_game(
        [unit(f"rr{k}", "railroad-engineer", "France", "0102") for k in range(4)], rules=rules
    )
    force_dice(g, [3])
    assert rail.deterioration_roll(g, EN, "N", "test") == 1  # 3 + 2 = 5: lose 1
    force_dice(g, [5])
    assert rail.deterioration_roll(g, EN, "N", "test") == 0  # 5 + 2 = 7: no loss


# ============================================================================ port engineers (13C)
@pytest.mark.rules("OT 13C", "OT 13C1", "OT 13C2", "OT 11B3b")
def test_ot_13c2_port_upgrade_and_abandonment() -> None:
    places = [("0203", "port", "Calais", {"size": "standard"})]
    g = eng_game(
        [unit("pe", "port-construction-engineer", "France", "0203"), res("rp", "0203")],
        places=places,
        rows=["cccccccc"] * 5 + ["xxxxxxxx"],
    )
    gw(g)["phase"] = "initial"
    P = g.state.pieces
    with pytest.raises(IllegalAction):
        engineers.plan_project(
            g, None, {"type": "begin-project", "side": EN, "pieces": ["pe"], "task": "fort"}
        )
    pr = engineers.plan_project(
        g, None, {"type": "begin-project", "side": EN, "pieces": ["pe"], "task": "port-upgrade"}
    )
    assert pr["left"] == 12
    engineers.begin_project(g, pr)
    assert supply.port_throughput(g, idx(g, "0203")) == 30
    for _ in range(12):
        engineers.progress_projects(g, EN)
    assert supply.port_throughput(g, idx(g, "0203")) == 60  # now a major port
    assert engineers.PORT_DUTY in P["pe"].status
    assert engineers.MovementWork().move_problem(g, frame(g), P["pe"]) is not None
    engineers.abandon_port_upgrade(g, P["pe"], idx(g, "0203"))
    assert (
        supply.port_throughput(g, idx(g, "0203")) == 30
        and engineers.PORT_DUTY not in P["pe"].status
    )


# ======================================================================= combat abilities (13D-13H)
def combat_game():
    places = [
        ("0302", "partial-city", "City"),
        ("0304", "fortress", "Old", {"state": "improved", "type": "old"}),
        ("0306", "fortress", "New", {"state": "improved", "type": "new"}),
    ]
    pieces = [
        unit("co", "combat-engineer", "France", "0202"),
        unit("as", "assault-engineer", "France", "0202", a=1, d=2, m=5),
        unit("fl", "flamethrower", "France", "0202"),
        unit("se", "siege-engineer", "France", "0202"),
        unit("ge", "gas-engineer", "France", "0202"),
    ]
    g = eng_game(pieces, places=places)
    g.state.set_marker("fortification", str(idx(g, "0404")), "fieldworks")
    g.state.set_marker("fortification", str(idx(g, "0405")), "entrenchment")
    return g


@pytest.mark.rules("OT 13D")
def test_ot_13d_combat_engineers() -> None:
    g = combat_game()
    co = g.state.pieces["co"]
    assert engineers.is_construction_unit(co)
    assert engineers.eec_capable(g, co, idx(g, "0302")) and engineers.eec_capable(
        g, co, idx(g, "0405")
    )
    assert not engineers.eec_capable(g, co, idx(g, "0404"))  # not against fieldworks
    assert engineers.auto_supported(g, co, idx(g, "0302")) and not engineers.auto_supported(
        g, co, idx(g, "0203")
    )


@pytest.mark.rules("OT 13E", "OT 10C")
def test_ot_13e_assault_engineers() -> None:
    """OT-G-80: a 1-2-5 assault engineer regiment attacking a major city hex: attack 2, 2 RE for
    EEC."""
    g = combat_game()
    a = g.state.pieces["as"]
    assert not engineers.is_construction_unit(a)
    f = engineers.strength_factor(g, a, idx(g, "0302"), "attack")
    assert f is not None and units.printed_attack(a) * f[0] == 2
    assert engineers.eec_re(g, a, idx(g, "0302")) == 2
    assert engineers.strength_factor(g, a, idx(g, "0304"), "attack")[0] == 3  # type: ignore[index]
    assert engineers.strength_factor(g, a, idx(g, "0306"), "attack")[0] == 2  # type: ignore[index]
    assert engineers.strength_factor(g, a, idx(g, "0302"), "defense")[0] == 2  # type: ignore[index]
    assert engineers.strength_factor(g, a, idx(g, "0405"), "attack") is None
    g2 = game(
        pieces=[unit("as", "assault-engineer", "France", "0101")],
        options={"assault-engineer-eec-doubling": "cities-fortresses-13E"},
    )
    assert engineers.eec_re(g2, g2.state.pieces["as"], idx(g2, "0202")) == 1


@pytest.mark.rules("OT 13F")
def test_ot_13f_flamethrowers() -> None:
    g = combat_game()
    P = g.state.pieces
    assert (
        engineers.flamethrower_bonus([P["fl"], P["co"]]) == 1
        and engineers.flamethrower_bonus([P["co"]]) == 0
    )
    assert engineers.eec_capable(g, P["fl"], idx(g, "0302")) and engineers.auto_supported(
        g, P["fl"], idx(g, "0302")
    )


@pytest.mark.rules("OT 13G")
def test_ot_13g_siege_engineers() -> None:
    g = combat_game()
    se = g.state.pieces["se"]
    assert engineers.sec_capable(g, se, idx(g, "0304")) and not engineers.sec_capable(
        g, se, idx(g, "0404")
    )
    assert engineers.strength_factor(g, se, idx(g, "0306"), "defense")[0] == 2  # type: ignore[index]
    assert engineers.strength_factor(g, se, idx(g, "0306"), "attack") is None
    assert not engineers.is_construction_unit(se)


@pytest.mark.rules("OT 13H", "OT 11F2")
def test_ot_13h_gas_engineers() -> None:
    g = combat_game()
    ge = g.state.pieces["ge"]
    assert engineers.gec_capable(g, ge) and not engineers.is_construction_unit(ge)
    ge.attrs["supply_out_since"] = supply.player_turn_ordinal(g) - 2
    assert not engineers.gec_capable(g, ge)  # no special effects from the second turn out of supply


@pytest.mark.rules("OT 13I", "OT 13A5", "OT 13A6")
def test_ot_13i_divisional_engineers_pair_only_with_each_other() -> None:
    g = eng_game(
        [
            division("d", "France", "0202", a=6, d=8, m=10),
            division("d2", "France", "0202", a=6, d=8, m=10),
            unit("ce", "construction", "France", "0202", m=10),
        ],
        places=[("0202", "partial-city", "Town")],
    )
    with pytest.raises(IllegalAction) as e:
        work(g, ["d", "ce"], "fieldworks")
    assert e.value.rule == "OT 13I"
    with pytest.raises(IllegalAction) as e:
        work(g, ["d"], "fieldworks", civilian_labour=True)
    assert e.value.rule == "OT 13I"
    work(g, ["d", "d2"], "fieldworks")
    assert mp_spent(g, "d") == mp_spent(g, "d2") == 2  # (2 x 2) shared
    assert not engineers.can_do(g, g.state.pieces["d"], "repair-rail")


@pytest.mark.rules("OT 13A6")
def test_ot_13a6_civilian_labour_default() -> None:
    g = eng_game(
        [
            unit("ce", "construction", "France", "0101", m=10),
            unit("c2", "construction", "France", "0202", m=10),
        ]
    )
    work(g, ["ce"], "fieldworks", civilian_labour=True)
    assert mp_spent(g, "ce") == 1  # a major city hex: civilian labour halves the cost
    with pytest.raises(IllegalAction) as e:
        work(g, ["c2"], "fieldworks", civilian_labour=True)
    assert e.value.rule == "OT 13A6"


@pytest.mark.rules("OT 13A7", "OT 15A4")
def test_ot_13a7_pontoon_bridge_default() -> None:
    g = eng_game(
        [unit("ce", "construction", "France", "0302", m=10)],
        hexsides=[("major-river-unfordable", ["0302/0402"])],
    )
    s = g.board.side_between(idx(g, "0302"), idx(g, "0402"))
    assert terrain.crossing_disrupts(g, s, idx(g, "0402"), False, side=EN)
    work(g, ["ce"], "pontoon", hexside="0302/0402")
    assert mp_spent(g, "ce") == 8 and engineers.pontoon_owner(g, s) == EN
    assert not terrain.crossing_disrupts(g, s, idx(g, "0402"), False, side=EN)
    assert terrain.crossing_disrupts(g, s, idx(g, "0402"), False, side=CP)
    assert step_name(g) == "ground-movement"
