"""Rule 7A/7B: railroads, rail nets and capacity, roads (with bridges and heads)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets import get
from grognard.rulesets.greatwar import mechanics
from grognard.rulesets.greatwar.map import terrain, zoc
from grognard.rulesets.greatwar.movement import movement, rail
from grognard.rulesets.greatwar.movement.movement import STRATEGIC
from grognard.rulesets.greatwar.units import units

from .helpers import (
    CP,
    EN,
    division,
    end,
    force_dice,
    frame,
    game,
    idx,
    move,
    run_to,
    step_name,
    unit,
)

RS_DATA = Path(get("greatwar").data_dir)
ROW = ["0101", "0201", "0301", "0401", "0501", "0601", "0701", "0801"]
CITIES = [
    ("0101", "partial-city", "West"),
    ("0401", "partial-city", "Mid"),
    ("0801", "partial-city", "East"),
    ("0601", "partial-city", "East2"),
]


def rails(vol: dict[str, str] | None = None, gauge: dict[str, str] | None = None) -> list[dict]:
    return [
        {
            "name": "line",
            "kind": "rail",
            "paths": [ROW],
            "attrs": {"volume": "high", "gauge": "standard"},
        }
    ]


def net_rules(en: int = 20, cp: int = 20, extra: str = "") -> str:
    return (
        '[[rules.rail_nets]]\nname = "North"\ngauge = "standard"\n'
        f'capacity = {{ Entente = {en}, "Central Powers" = {cp} }}\nminimum = {{ Entente = 0 }}\n'
        + extra
    )


def rgame(**kw):
    kw.setdefault("networks", rails())
    kw.setdefault("places", CITIES)
    kw.setdefault("rules", net_rules())
    return game(**kw)


def rmove(g, pid, path, kind="operational", **extra):
    return g.apply(
        {
            "type": "rail-move",
            "side": g.state.pieces[pid].side,
            "piece": pid,
            "kind": kind,
            "path": path,
            **extra,
        }
    )


def led(g, side=EN, net="North"):
    return rail.ledger(g, net, side)


# ============================================================================ 7 intro, 7A, 7A1
@pytest.mark.rules("OT 7")
def test_ot_7_railhead_ends_the_line() -> None:
    g = rgame(
        pieces=[division("d", "France", "0101")],
        rules=net_rules()
        + '[[rules.heads]]\nkind = "rail"\nhex = "0201"\nbeyond = ["0301", "0401"]',
    )
    assert idx(g, "0301") not in rail.links(g) or all(
        lk.to != idx(g, "0201") for lk in rail.links(g).get(idx(g, "0301"), [])
    )
    with pytest.raises(IllegalAction):
        rmove(g, "d", ["0201", "0301"])
    rmove(g, "d", ["0201"])
    s = g.board.side_between(idx(g, "0201"), idx(g, "0301"))
    assert not terrain.road_link(g, s)  # the line beyond the head is no road either


@pytest.mark.rules("OT 7A", "OT 7A2")
def test_ot_7a2_operational_rail_movement() -> None:
    g = rgame(pieces=[division("d", "France", "0101")])
    rmove(g, "d", ["0201", "0301", "0401"])
    assert units.hex_of(g, g.state.pieces["d"]) == idx(g, "0401")
    assert movement.spent(frame(g), g.state.pieces["d"]) == 1  # 3 hexes at 10 per MP: one whole MP
    move(g, "d", "0402")  # and then overland
    assert any(ev["type"] == "rail-move" for ev in g.state.log)


@pytest.mark.rules("OT 7A")
def test_ot_7a_restrictions() -> None:
    g = rgame(
        pieces=[
            division("d", "France", "0101"),
            division("g", "Germany", "0502"),
            division("a", "France", "0301"),
        ]
    )
    with pytest.raises(IllegalAction):
        rmove(g, "d", ["0201", "0301", "0401", "0501"])  # enemy-owned rail hex
    with pytest.raises(IllegalAction) as e:
        rmove(g, "d", ["0201", "0301", "0401"])  # 0401 is in the German ZOC
    assert "ZOC" in e.value.message
    g2 = rgame(
        pieces=[
            division("d", "France", "0101"),
            division("g", "Germany", "0502"),
            division("hold", "France", "0401"),
        ]
    )
    rmove(
        g2, "d", ["0201", "0301", "0401"]
    )  # a friendly unit holding the hex since the phase began negates the ZOC
    with pytest.raises(IllegalAction):
        move(g2, "hold", "0302")  # ... and must stay there
    g3 = rgame(pieces=[division("d", "France", "0201")], places=[("0801", "partial-city", "East")])
    with pytest.raises(IllegalAction) as e:
        rmove(g3, "d", ["0301"])  # no friendly yard on its line
    assert "yard" in e.value.message
    run_to(g, "exploitation-movement", EN)
    with pytest.raises(IllegalAction):
        rmove(g, "a", ["0201"])  # movement phase only


@pytest.mark.rules("OT 7A1")
def test_ot_7a1_yards_and_connection() -> None:
    g = rgame(
        places=[
            ("0101", "partial-city", "A"),
            ("0201", "point-city", "B"),
            ("0301", "fortress", "C"),
            ("0401", "port", "D", {"size": "major"}),
            ("0501", "port", "E", {"size": "minor"}),
            ("0601", "rail-yard", "F"),
            ("0103", "full-city", "off-line"),
        ]
    )
    assert rail.yards(g) == sorted(idx(g, h) for h in ("0101", "0301", "0401", "0601"))
    assert rail.rail_connected(g, EN, idx(g, "0101"), idx(g, "0401"))
    assert not rail.rail_connected(
        g, EN, idx(g, "0101"), idx(g, "0601")
    )  # through enemy-owned hexes
    mechanics.set_marker(g, "rail-break", idx(g, "0201"), True)
    assert rail.rail_connected(
        g, EN, idx(g, "0101"), idx(g, "0401")
    )  # breaks do not block the connection


@pytest.mark.rules("OT 7A3")
def test_ot_7a3_strategic_rail_movement() -> None:
    g = rgame(pieces=[division("d", "France", "0101"), division("m", "France", "0101")])
    move(g, "m", "0201")
    with pytest.raises(IllegalAction) as e:
        rmove(g, "m", ["0301"], kind="strategic")
    assert e.value.rule == "OT 7A3"
    rmove(g, "d", ["0201", "0301", "0401"], kind="strategic")
    assert STRATEGIC in g.state.pieces["d"].status
    with pytest.raises(IllegalAction):
        move(g, "d", "0402")
    assert movement.spent(frame(g), g.state.pieces["d"]) == 0


@pytest.mark.rules("OT 7A3")
def test_ot_7a3_no_strategic_rail_listed_for_a_unit_that_spent_movement_points() -> None:
    """A unit that spent movement points this phase without moving (an action that costs MP) is
    refused strategic rail movement, and the listing no longer offers it."""
    g = rgame(pieces=[division("d", "France", "0101")])

    def kinds() -> set[str]:
        return {
            a["kind"]
            for a in g.legal_actions(g.state.pieces["d"].side)
            if a["type"] == "rail-move" and a["piece"] == "d"
        }

    assert kinds() == {"operational", "strategic"}
    g.state.sync()
    frame(g).params.setdefault("units", {}).setdefault("d", {})["spent"] = 1
    g.invalidate()
    assert kinds() == {"operational"}
    with pytest.raises(IllegalAction) as e:
        rmove(g, "d", ["0201", "0301"], kind="strategic")
    assert e.value.rule == "OT 7A3"


@pytest.mark.rules("OT 7A4")
def test_ot_7a4_capacity_by_size_class_and_volume() -> None:
    """OT-G-28: a rifle regiment by high-volume rail 1 RE; a tank regiment 2 RE; a tank regiment
    that
    used a low-volume line 4 RE. OT-G-29: a brigade moving by rail twice on one net is charged once.
    """
    line = [
        {
            "name": "hv",
            "kind": "rail",
            "paths": [["0101", "0201", "0301"]],
            "attrs": {"volume": "high"},
        },
        {
            "name": "lv",
            "kind": "rail",
            "paths": [["0101", "0102", "0202"]],
            "attrs": {"volume": "low"},
        },
        {
            "name": "hv2",
            "kind": "rail",
            "paths": [["0103", "0203", "0303"]],
            "attrs": {"volume": "high"},
        },
    ]
    places = [("0101", "partial-city", "A"), ("0103", "partial-city", "B")]
    g = rgame(
        networks=line,
        places=places,
        pieces=[
            unit("r", "rifle", "France", "0101"),
            unit("t", "tank", "France", "0101", m=6),
            unit("t2", "tank", "France", "0101", m=6),
            unit("b", "rifle", "France", "0103", size="brigade"),
        ],
    )
    rmove(g, "r", ["0201", "0301"])
    assert led(g)["used"] == 1
    rmove(g, "t", ["0201", "0301"])
    assert led(g)["used"] == 3
    rmove(g, "t2", ["0102", "0202"])
    assert led(g)["used"] == 7
    rmove(g, "b", ["0203"])
    move(g, "b", "0303")
    rmove(g, "b", ["0203"])
    assert led(g)["charged"]["b"] == 2 and led(g)["used"] == 9
    g2 = rgame(rules=net_rules(en=1), pieces=[unit("t", "tank", "France", "0101", m=6)])
    with pytest.raises(IllegalAction) as e:
        rmove(g2, "t", ["0201"])
    assert e.value.rule == "OT 7A4"


@pytest.mark.rules("OT 7A5")
def test_ot_7a5_each_net_used_is_charged() -> None:
    """OT-G-30: a brigade moving from one net to another uses 2 RE on each."""
    west = [f"{c:02d}{r:02d}" for c in range(1, 3) for r in range(1, 7)]
    east = [f"{c:02d}{r:02d}" for c in range(3, 5) for r in range(1, 7)]
    rules = (
        '[[rules.rail_nets]]\nname = "NW Europe Standard Gauge"\narea = "nw"\ncapacity = { Entente'
        ' = 20 }\n[[rules.rail_nets]]\nname = "Iberian Gauge"\narea = "ib"\ngauge ='
        ' "iberian"\ncapacity = { Entente = 20 }\n'
    )
    g = rgame(
        rules=rules,
        areas=[
            {"name": "nw", "kind": "rail-net", "hexes": west},
            {"name": "ib", "kind": "rail-net", "hexes": east},
        ],
        pieces=[unit("b", "rifle", "France", "0101", size="brigade")],
    )
    rmove(g, "b", ["0201", "0301", "0401"])
    assert rail.ledger(g, "NW Europe Standard Gauge", EN)["used"] == 2
    assert rail.ledger(g, "Iberian Gauge", EN)["used"] == 2


def res(pid: str, at: str, side_nation: str = "France") -> dict:
    return unit(pid, "res-pt", side_nation, at, size="")


@pytest.mark.rules("OT 7A5a")
def test_ot_7a5a_temporary_increase() -> None:
    """OT-G-31: capacity 30 allows up to +15 this player turn, for 2 Res Pts; each brings a
    deterioration check in the next initial phase."""
    g = rgame(
        rules=net_rules(en=30),
        pieces=[
            res("r1", "0101"),
            res("r2", "0101"),
            res("r3", "0401"),
            division("d", "France", "0102"),
        ],
    )
    assert (
        step_name(g) == "initial-actions"
    )  # Res Pts at yards: the initial phase has something to offer
    run_to(g, "ground-movement", EN)
    with pytest.raises(IllegalAction):
        g.apply({"type": "rail-boost", "side": EN, "net": "North", "res_pts": ["r1", "r2", "r3"]})
    g.apply({"type": "rail-boost", "side": EN, "net": "North", "res_pts": ["r1", "r2"]})
    assert led(g)["temp"] == 15 and rail.available(g, EN, "North") == 45
    assert g.state.pieces["r1"].loc == Loc.box("expended")
    assert led(g)["deterioration_due"] == 2
    with pytest.raises(IllegalAction):
        g.apply({"type": "rail-boost", "side": EN, "net": "North", "res_pts": ["r3"]})
    end(g)
    run_to(g, "ground-movement", EN)
    rolls = [ev for ev in g.state.log if ev["type"] == "roll" and "deterioration" in ev["text"]]
    assert len(rolls) == 2
    assert led(g)["temp"] == 0


@pytest.mark.rules("OT 7A5a")
def test_ot_7a5a_no_temporary_increase_is_offered_once_half_the_capacity_is_bought() -> None:
    """OT 7A5a: the increase is capped at half the net's capacity at the start of the player
    turn; once the cap is reached, no Res Pt purchase of it is listed (the listing and the check
    agree)."""
    g = rgame(
        rules=net_rules(en=30),
        pieces=[res("r1", "0101"), res("r2", "0101"), res("r3", "0401")],
    )
    run_to(g, "ground-movement", EN)
    boosts = [a for a in g.legal_actions(EN) if a["type"] == "rail-boost"]
    assert boosts and all(g.is_legal(a) for a in boosts)
    g.apply({"type": "rail-boost", "side": EN, "net": "North", "res_pts": ["r1", "r2"]})
    assert led(g)["temp"] == 15
    assert not [a for a in g.legal_actions(EN) if a["type"] == "rail-boost"]
    assert not g.is_legal({"type": "rail-boost", "side": EN, "net": "North", "res_pts": ["r3"]})


@pytest.mark.rules("OT 7A5b")
def test_ot_7a5b_permanent_building_costs() -> None:
    """OT-G-32: 4 Res Pts per RE on the NW Europe net while Lille is not Entente-owned; 2 once the
    USA
    is with the Entente."""
    rules = '[[rules.rail_nets]]\nname = "NW Europe Standard Gauge"\ncapacity = { Entente = 20 }\n'
    places = [*CITIES, ("0601", "partial-city", "Lille")]
    g = rgame(rules=rules, places=places, pieces=[res(f"r{k}", "0101") for k in range(4)])
    assert rail.build_cost(g, EN, "NW Europe Standard Gauge") == 4
    g.state.control[idx(g, "0601")] = EN
    assert rail.build_cost(g, EN, "NW Europe Standard Gauge") == 3
    g2 = rgame(rules=rules, places=places, nations={"France": EN, "Germany": CP, "USA": EN})
    assert rail.build_cost(g2, EN, "NW Europe Standard Gauge") == 2
    assert rail.build_cost(g2, CP, "NW Europe Standard Gauge") == 3


@pytest.mark.rules("OT 7A5b", "OT 4A1")
def test_ot_7a5b_building_in_the_initial_phase() -> None:
    g = rgame(pieces=[res(f"r{k}", "0101") for k in range(3)] + [division("d", "France", "0102")])
    run_to(g, "initial-actions", EN)
    acts = g.legal_actions(EN)
    build = next(a for a in acts if a["type"] == "rail-build")
    g.apply(build)
    assert led(g)["capacity"] == 21


@pytest.mark.rules("OT 7A5c")
def test_ot_7a5c_ob_increase_needs_two_connected_yards() -> None:
    sched = [
        {"turn": 2, "kind": "rail-capacity", "params": {"side": EN, "net": "North", "amount": 3}},
        {"turn": 2, "kind": "rail-capacity", "params": {"side": CP, "net": "North", "amount": 3}},
    ]
    g = rgame(schedule=sched, turns=[("Sep I 14", {}), ("Sep II 14", {})], places=[*CITIES[:3]])
    end(g)
    run_to(g, "ground-movement", CP)
    end(g)
    run_to(g, "ground-movement", EN)
    assert led(g)["capacity"] == 23
    run_to(g, "ground-movement", CP)
    assert led(g, CP)["capacity"] == 20  # the CP has only one yard on the net: forfeited
    assert any("forfeits" in ev["text"] for ev in g.state.log)


@pytest.mark.rules("OT 7A5d")
def test_ot_7a5d_capacity_transfer() -> None:
    """OT-G-33: 1 Res Pt per 3 RE or fraction, at most 3 RE per pair of nets per turn, unusable this
    turn."""
    west = [f"{c:02d}{r:02d}" for c in range(1, 3) for r in range(1, 7)]
    east = [f"{c:02d}{r:02d}" for c in range(3, 5) for r in range(1, 7)]
    rules = (
        '[[rules.rail_nets]]\nname = "A"\narea = "a"\ncapacity = { Entente = 20 }\nminimum = {'
        ' Entente = 16 }\n[[rules.rail_nets]]\nname = "B"\narea = "b"\ncapacity = { Entente = 10'
        ' }\n[[rules.rail_nets]]\nname = "C"\narea = "c"\ngauge = "broad"\ncapacity = { Entente ='
        " 10 }\n"
    )
    g = rgame(
        rules=rules,
        areas=[
            {"name": "a", "kind": "rail-net", "hexes": west},
            {"name": "b", "kind": "rail-net", "hexes": east},
            {"name": "c", "kind": "rail-net", "hexes": ["0505"]},
        ],
        pieces=[res("r1", "0101"), res("r2", "0101"), res("r3", "0401")],
    )
    with pytest.raises(IllegalAction):
        rail.check_transfer(
            g,
            {
                "type": "rail-transfer",
                "side": EN,
                "from": "A",
                "to": "B",
                "amount": 4,
                "res_pts": ["r1", "r2"],
            },
        )
    with pytest.raises(IllegalAction):
        rail.check_transfer(
            g,
            {
                "type": "rail-transfer",
                "side": EN,
                "from": "A",
                "to": "C",
                "amount": 2,
                "res_pts": ["r1"],
            },
        )
    with pytest.raises(IllegalAction):
        rail.check_transfer(
            g,
            {
                "type": "rail-transfer",
                "side": EN,
                "from": "A",
                "to": "B",
                "amount": 3,
                "res_pts": ["r1", "r2"],
            },
        )
    rail.check_transfer(
        g,
        {
            "type": "rail-transfer",
            "side": EN,
            "from": "A",
            "to": "B",
            "amount": 3,
            "res_pts": ["r1"],
        },
    )
    rail.apply_transfer(
        g,
        {
            "type": "rail-transfer",
            "side": EN,
            "from": "A",
            "to": "B",
            "amount": 2,
            "res_pts": ["r1"],
        },
    )
    assert rail.ledger(g, "A", EN)["capacity"] == 18 and rail.ledger(g, "B", EN)["capacity"] == 10
    assert rail.ledger(g, "B", EN)["pending"] == 2
    with pytest.raises(IllegalAction) as e:
        rail.check_transfer(
            g,
            {
                "type": "rail-transfer",
                "side": EN,
                "from": "A",
                "to": "B",
                "amount": 2,
                "res_pts": ["r2"],
            },
        )
    assert "3 RE" in e.value.message or "minimum" in e.value.message
    rail.new_player_turn(g, EN)
    assert rail.ledger(g, "B", EN)["capacity"] == 12


@pytest.mark.rules("OT 7A5e")
def test_ot_7a5e_depot_activation_costs_capacity() -> None:
    g = rgame()
    rail.depot_activated(g, EN, "North")
    assert led(g)["capacity"] == 19


@pytest.mark.rules("OT 7A5f", "OT 7A7")
def test_ot_7a5f_capture_of_yards() -> None:
    """OT-G-34 (a yard instead of a depot, per the audit): capacity 10, a yard captured: owner 8,
    captor +1 from his next turn; with 1 RE the owner loses it all and the captor gains nothing."""
    g = rgame(rules=net_rules(en=10, cp=5))
    zoc.on_ownership_change(g, idx(g, "0401"), EN, CP)
    g.state.control[idx(g, "0401")] = CP
    assert led(g)["capacity"] == 8
    assert led(g, CP)["capacity"] == 5 and led(g, CP)["pending"] == 1
    assert mechanics.marker(g, "rail-obstructed", idx(g, "0401"))
    rail.new_player_turn(g, CP)
    assert led(g, CP)["capacity"] == 6
    g2 = rgame(rules=net_rules(en=1, cp=5))
    zoc.on_ownership_change(g2, idx(g2, "0401"), EN, CP)
    assert led(g2)["capacity"] == 0 and led(g2, CP)["pending"] == 0
    g3 = rgame(rules=net_rules(en=10, cp=5), places=[("0101", "partial-city", "W")])
    g3.state.control[idx(g3, "0101")] = CP
    zoc.on_ownership_change(g3, idx(g3, "0101"), EN, CP)
    assert led(g3)["capacity"] == 0  # every yard of the net lost


@pytest.mark.rules("OT 7A5g", "OT 13B4")
def test_ot_7a5g_deterioration_example() -> None:
    """OT-G-35: a roll of 6, +3 for 7 RE of railroad engineers, -5 for 11 depots: 4, so 1 RE lost;
    2 RE if Lille is not Entente-owned or is isolated."""
    rules = '[[rules.rail_nets]]\nname = "NW Europe Standard Gauge"\ncapacity = { Entente = 40 }\n'
    eng = [unit(f"e{k}", "railroad-engineer", "France", "0101") for k in range(7)]
    depots = [unit(f"dep{k}", "supply-depot", "France", ROW[k % 4], size="") for k in range(11)]
    g = rgame(
        rules=rules, places=[*CITIES, ("0301", "partial-city", "Lille")], pieces=[*eng, *depots]
    )
    g.state.control[idx(g, "0301")] = EN
    force_dice(g, [6])
    assert rail.deterioration_roll(g, EN, "NW Europe Standard Gauge", "test") == 1
    roll = [ev for ev in g.state.log if ev["type"] == "roll"][-1]
    assert roll["data"]["modified"] == 4
    g.state.control[idx(g, "0301")] = CP
    force_dice(g, [6])
    assert rail.deterioration_roll(g, EN, "NW Europe Standard Gauge", "test") == 2


@pytest.mark.rules("OT 7A5g")
def test_ot_7a5g_which_nets_are_checked() -> None:
    """OT-G-36: a net of 20 RE with enemy units on it, or of 25 RE without, is not checked."""
    g = rgame(
        rules=net_rules(en=20), pieces=[division("g", "Germany", "0701")], turns=[("Jan I 15", {})]
    )
    rail.deterioration_checks(g, EN)
    assert not [ev for ev in g.state.log if ev["type"] == "roll"]
    g2 = rgame(
        rules=net_rules(en=25), pieces=[division("f", "France", "0102")], turns=[("Jan I 15", {})]
    )
    rail.deterioration_checks(g2, EN)
    assert not [ev for ev in g2.state.log if ev["type"] == "roll"]
    g3 = rgame(
        rules=net_rules(en=25),
        pieces=[division("g", "Germany", "0701")],
        turns=[("Feb I 15", {"production": True})],
    )
    rail.deterioration_checks(g3, EN)
    assert [ev for ev in g3.state.log if ev["type"] == "roll"]


@pytest.mark.rules("OT 7A6")
def test_ot_7a6_rail_breaks() -> None:
    g = rgame(
        pieces=[
            division("d", "France", "0201"),
            unit("rr", "railroad-engineer", "France", "0301"),
            division("t", "France", "0101"),
        ]
    )
    g.apply({"type": "break-rail", "side": EN, "piece": "d"})
    assert movement.spent(frame(g), g.state.pieces["d"]) == 2
    assert mechanics.marker(g, "rail-break", idx(g, "0201"))
    g.apply({"type": "break-rail", "side": EN, "piece": "rr"})
    assert movement.spent(frame(g), g.state.pieces["rr"]) == 1
    with pytest.raises(IllegalAction):
        rmove(g, "t", ["0201"])
    with pytest.raises(IllegalAction):
        g.apply({"type": "break-rail", "side": EN, "piece": "d"})  # already broken


@pytest.mark.rules("OT 7A7")
def test_ot_7a7_captured_rail_is_obstructed() -> None:
    g = rgame(pieces=[division("d", "France", "0301"), division("t", "France", "0101")])
    move(g, "d", "0401", "0501")
    assert g.state.control[idx(g, "0501")] == EN
    assert mechanics.marker(g, "rail-obstructed", idx(g, "0501"))
    with pytest.raises(IllegalAction) as e:
        rmove(g, "t", ["0201", "0301", "0401", "0501"])
    assert "obstructed" in e.value.message


@pytest.mark.rules("OT 7A8")
def test_ot_7a8_gauge_changes() -> None:
    """OT-G-39: one gauge change costs 1 MP in operational rail movement, 20 hexes in strategic."""
    nets = [
        {
            "name": "std",
            "kind": "rail",
            "paths": [["0101", "0201", "0301"]],
            "attrs": {"gauge": "standard"},
        },
        {"name": "brd", "kind": "rail", "paths": [["0301", "0401"]], "attrs": {"gauge": "broad"}},
    ]
    g = rgame(
        networks=nets, pieces=[division("d", "France", "0101"), division("s", "France", "0101")]
    )
    rmove(g, "d", ["0201", "0301", "0401"])
    assert movement.spent(frame(g), g.state.pieces["d"]) == 2
    plan = rail.plan_rail_move(
        g,
        frame(g),
        {
            "type": "rail-move",
            "side": EN,
            "piece": "s",
            "kind": "strategic",
            "path": ["0201", "0301", "0401"],
        },
    )
    assert plan.hexes == 3
    # with a strategic allowance of 22 hexes (a user's chart), 3 hexes and a gauge change (20) do
    # not fit
    text = (
        (RS_DATA / "charts" / "rail-rates.toml")
        .read_text(encoding="utf-8")
        .replace("strategic_hexes = 200", "strategic_hexes = 22")
    )
    g2 = rgame(
        networks=nets,
        pieces=[division("s", "France", "0101")],
        table_overrides={"rail-rates": text},
    )
    with pytest.raises(IllegalAction) as e:
        rmove(g2, "s", ["0201", "0301", "0401"], kind="strategic")
    assert e.value.rule == "OT 7A3"
    rmove(g2, "s", ["0201", "0301"], kind="strategic")


@pytest.mark.rules("OT 7A9")
def test_ot_7a9_isolated_sections() -> None:
    """OT-G-37/38: an orphan with 4 yards and 1 depot has 10 RE; a 70 RE net split into orphans of 9
    and 10 RE keeps 51 RE in its home section."""
    g = rgame(rules=net_rules(en=70), options={"isolated-rail-sections": True})
    secs = [
        rail.Section(1, frozenset({1}), 6, 0),
        rail.Section(2, frozenset({2}), 4, 1),
        rail.Section(3, frozenset({3}), 4, 0),
        rail.Section(4, frozenset({4}), 5, 0),
    ]
    assert rail.section_capacity(g, EN, "North", secs[1], secs[:2]) == 10
    led(g)["orphan_adjust"] = {"3": 1}
    assert rail.section_capacity(g, EN, "North", secs[2], [secs[0], secs[2], secs[3]]) == 9
    assert rail.section_capacity(g, EN, "North", secs[0], [secs[0], secs[2], secs[3]]) == 51
    # on the map: cut the line at 0201, the section around 0301-0401 becomes an orphan
    g.state.control[idx(g, "0201")] = CP
    got = rail.sections(g, EN, "North")
    assert len(got) == 2 and {len(s.hexes) for s in got} == {1, 2}
    orphan = got[1]
    assert (
        rail.available(g, EN, "North", at=next(iter(orphan.hexes)))
        == 2 * orphan.yards + 2 * orphan.depots
    )
    assert rail.available(g, EN, "North", at=next(iter(got[0].hexes))) == 70 - 2 * orphan.yards


@pytest.mark.rules("OT 7B", "OT 15A1")
def test_ot_7b_roads_and_bridges() -> None:
    road = {"name": "road", "kind": "road", "paths": [["0101", "0201", "0301"]]}
    g = game(
        rows=["cfmccccc"],
        networks=[road],
        hexsides=[("river", ["0201/0301"])],
        pieces=[division("d", "France", "0101")],
        control={EN: ["0101", "0201", "0301"], CP: ["0401"]},
    )
    move(g, "d", "0201", "0301")
    assert (
        movement.spent(frame(g), g.state.pieces["d"]) == 2
    )  # clear-terrain cost per hex; the bridge is owned
    g2 = game(
        rows=["cfmccccc"],
        networks=[road],
        hexsides=[("river", ["0201/0301"])],
        pieces=[division("d", "France", "0201"), division("g", "Germany", "0401")],
        control={EN: ["0101", "0201"], CP: ["0301", "0401"]},
    )
    info = movement.step(
        movement.context(g2, EN, "movement"), g2.state.pieces["d"], idx(g2, "0201"), idx(g2, "0301")
    )
    assert info.cost == 3 + 2 and not info.road  # bridge not owned: mountain + river
    g2.state.control[idx(g2, "0301")] = EN
    mechanics.set_marker(
        g2, "bridge-demolished", g2.board.side_between(idx(g2, "0201"), idx(g2, "0301")), True
    )
    assert not terrain.bridge_usable(
        g2, EN, g2.board.side_between(idx(g2, "0201"), idx(g2, "0301"))
    )
    rail_only = {"name": "rl", "kind": "rail", "paths": [["0101", "0201"]]}
    g3 = game(rows=["cmcccccc"], networks=[rail_only], pieces=[division("d", "France", "0101")])
    move(g3, "d", "0201")
    assert movement.spent(frame(g3), g3.state.pieces["d"]) == 1  # a rail line is also a road


def test_rail_moves_offered() -> None:
    g = rgame(pieces=[division("d", "France", "0101")])
    offers = [a for a in g.legal_actions(EN) if a["type"] == "rail-move"]
    assert {tuple(a["path"]) for a in offers if a["kind"] == "operational"} >= {
        ("0201",),
        ("0201", "0301", "0401"),
    }
    assert Fraction(1) == movement.remaining(g, frame(g), g.state.pieces["d"]) - 4


@pytest.mark.rules("OT 8B", "OT 7A2")
def test_ot_8b_rail_move_may_not_end_over_the_stacking_limit() -> None:
    """Found by self-play of the Marne: like an overland move, a rail move may not end in a hex it
    puts over the stacking limit (a Corps HQs moves with the units of its box); and while a stack
    of the moving side is over the limit the phase cannot end, so ending it is not listed."""
    full = [division(f"f{k}", "France", "0401") for k in range(6)]
    g = rgame(pieces=[*full, division("d", "France", "0101")])
    with pytest.raises(IllegalAction) as e:
        rmove(g, "d", ["0201", "0301", "0401"])
    assert e.value.rule == "OT 8B"
    rmove(g, "d", ["0201", "0301"])
    assert not any(
        a["type"] == "rail-move" and a["piece"] == "d" and a["path"][-1] == "0401"
        for a in g.legal_actions(EN)
    )
    g2 = rgame(pieces=[*full, division("x", "France", "0401")])
    listed = g2.legal_actions(EN)
    assert not any(a["type"] == "end-phase" for a in listed)
    assert any(a["type"] == "move" for a in listed)
