"""OT 16A: reinforcements and the order-of-battle activities (OT 16A1a-gg, 16A2) as scenario
``[[schedule]]`` entries (OT-S 27-33)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.logistics import reinforcements, replacements
from grognard.rulesets.greatwar.logistics.replacements import EQU, MAN
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.movement import rail
from grognard.rulesets.greatwar.units import units

from .helpers import CP, EN, division, game, idx, unit
from .test_replacements_16b import ALL, pool

TURNS = [("Sep I 14", {}), ("Sep II 14", {}), ("Oct I 14", {}), ("Oct II 14", {})]


BOXES = [
    ("leaders:Entente", "holding"),
    ("garrison:Paris", "garrison"),
    ("garrison:Lyon", "garrison"),
    ("garrison:Toulon", "garrison"),
    ("demobilized:Brittany", "holding"),
    ("awq:West", "holding"),
]


def ob(pieces, schedule, **kw):
    """A game of the two-command world stopped at the Entente's first reinforcement step (the
    optional activities are not skipped)."""
    from grognard.core.game import Game
    from grognard.scenario import load_scenario_text

    from .helpers import scenario_text
    from .test_replacements_16b import world_kwargs

    kw.setdefault("turns", TURNS)
    options = kw.pop("options", None)
    sc = load_scenario_text(
        scenario_text(**world_kwargs(pieces, schedule=schedule, boxes=BOXES, **kw)), "<test>"
    )
    return Game.new(sc, 1, options or {})


def at_reinforcement(g, side=EN, turn=None):
    for _ in range(300):
        cur = g.current()
        if (
            cur is not None
            and cur[1].step == "reinforcement"
            and cur[1].params.get("side") == side
            and not cur[1].params.get("rebuild_only")
            and (turn is None or g.state.turn["index"] == turn)
        ):
            return
        s = g.acting_sides()[0]
        acts = g.legal_actions(s)
        g.apply(next(a for a in acts if a["type"] in ("end-phase", "done", "decline")))
    raise AssertionError("no reinforcement step")


def place_all(g, side=EN):
    while True:
        acts = [a for a in g.legal_actions(side) if a["type"] == "place"]
        if not acts:
            return
        g.apply(acts[0])


# ============================================================================ 16A, receive, delay
@pytest.mark.rules("OT 16A", "OT 16A1p")
def test_ot_16a_receive_at_friendly_cities() -> None:
    g = ob(
        [division("r", "France", None)],
        [{"turn": "Sep I 14", "kind": "receive", "pieces": ["r"], "params": {"command": "West"}}],
    )
    opts = sorted(a["hex"] for a in g.legal_actions(EN) if a["type"] == "place")
    assert opts == ["0102", "0104"]  # the friendly-owned cities of the command
    with pytest.raises(IllegalAction):
        g.apply({"type": "end-phase", "side": EN})  # the reinforcement must be placed first
    with pytest.raises(IllegalAction):
        g.apply({"type": "place", "side": EN, "entry": "0", "piece": "r", "hex": "0302"})
    g.apply({"type": "place", "side": EN, "entry": "0", "piece": "r", "hex": "0104"})
    assert units.hex_of(g, g.state.pieces["r"]) == idx(g, "0104")


@pytest.mark.rules("OT 16A")
def test_ot_16a_delayed_until_it_can_enter() -> None:
    """OT-S-27: a reinforcement that cannot enter as the OB says is delayed, not lost."""
    g = ob(
        [division("r", "France", None), division("block", "France", "0303")],
        [{"turn": "Sep I 14", "kind": "receive", "pieces": ["r"], "at": "0806"}],
        control={EN: ALL[:40], CP: ALL[40:]},
    )
    assert units.hex_of(g, g.state.pieces["r"]) is None
    assert "0" not in reinforcements.ob(g)["done"]
    g.state.control[idx(g, "0806")] = EN
    g.state.turn = {"index": 2, "label": "Sep II 14"}
    g.state.vars["gw"]["phasing"] = EN
    reinforcements.process_agenda(g, EN)
    assert units.hex_of(g, g.state.pieces["r"]) == idx(g, "0806")


@pytest.mark.rules("OT 16A1")
def test_ot_16a1_schedule_checks() -> None:
    from grognard.scenario import ScenarioError

    with pytest.raises(ScenarioError) as e:
        ob(
            [division("r", "France", None)],
            [{"turn": "Sep I 14", "kind": "receive", "params": {"command": "Nowhere"}}],
        )
    assert "names the pieces" in str(e.value) and "no map area" in str(e.value)
    with pytest.raises(ScenarioError):
        ob(
            [],
            [
                {
                    "turn": "Sep I 14",
                    "kind": "either",
                    "params": {"side": EN, "options": [{"kind": "bogus"}]},
                }
            ],
        )


# ============================================================================ 16A1a-e
@pytest.mark.rules("OT 16A1a")
def test_ot_16a1a_add_units_and_points() -> None:
    g = ob(
        [
            division("p", "France", None),
            unit("l", "leader", "France", None, faces={"front": {}}, size=""),
        ],
        [
            {
                "turn": "Sep I 14",
                "kind": "add",
                "pieces": ["p"],
                "params": {"command": "West", "man": {"France": 2}, "equ": "1.5"},
            },
            {"turn": "Sep I 14", "kind": "add", "pieces": ["l"], "at": "leaders:Entente"},
        ],
    )
    assert replacements.in_pool(g, g.state.pieces["p"], EN, "West")
    assert pool(g, EN, "West") == {MAN: {"France": 2}, EQU: Fraction(3, 2)}
    assert g.state.where("l") == Loc.box("leaders:Entente")


@pytest.mark.rules("OT 16A1b", "OT 16A1e")
def test_ot_16a1b_16a1e_assemble_and_breakdown_by_the_ob() -> None:
    rules = '[[rules.breakdowns]]\nparent = "dv"\ncomponents = ["b1", "b2"]\nassemble_only = true'
    g = ob(
        [
            division("dv", "Britain", None),
            unit("b1", "rifle", "Britain", "0303", size="brigade"),
            unit("b2", "field-artillery", "Britain", "0303"),
        ],
        [
            {
                "turn": "Sep I 14",
                "kind": "assemble",
                "params": {"side": EN, "parent": "dv", "components": ["b1", "b2"]},
            },
            {
                "turn": "Sep II 14",
                "kind": "breakdown",
                "params": {"side": EN, "parent": "dv", "components": ["b1", "b2"]},
            },
        ],
        rules=rules,
    )
    assert units.hex_of(g, g.state.pieces["dv"]) == idx(g, "0303")
    g.state.turn = {"index": 2, "label": "Sep II 14"}
    reinforcements.activate_due(g, EN)
    reinforcements.process_agenda(g, EN)
    assert units.hex_of(g, g.state.pieces["b1"]) == idx(
        g, "0303"
    )  # the OB breaks down even an assemble-only unit


@pytest.mark.rules("OT 16A1c", "OT 16A1g", "OT 16A1z", "OT 16A1o", "OT 16A1w", "OT 16A1d")
def test_ot_16a1_garrison_verbs() -> None:
    g = ob(
        [division("a", "France", "0303"), division("b", "France", "0304")],
        [
            {"turn": "Sep I 14", "kind": "assign", "pieces": ["a"], "at": "garrison:Paris"},
            {
                "turn": "Sep I 14",
                "kind": "demobilize",
                "pieces": ["b"],
                "at": "demobilized:Brittany",
            },
            {"turn": "Sep II 14", "kind": "sequester", "pieces": ["a"]},
            {"turn": "Sep II 14", "kind": "switch", "pieces": ["a"], "at": "garrison:Lyon"},
            {"turn": "Oct I 14", "kind": "move", "pieces": ["a"], "at": "garrison:Toulon"},
            {
                "turn": "Oct I 14",
                "kind": "available",
                "pieces": ["b"],
                "params": {"for": "reorganization"},
            },
        ],
    )
    assert g.state.where("a") == Loc.box("garrison:Paris") and g.state.where("b") == Loc.box(
        "demobilized:Brittany"
    )
    for t, label in ((2, "Sep II 14"), (3, "Oct I 14")):
        g.state.turn = {"index": t, "label": label}
        reinforcements.activate_due(g, EN)
        reinforcements.process_agenda(g, EN)
        if t == 2:
            assert "sequestered" in g.state.pieces["a"].status and g.state.where("a") == Loc.box(
                "garrison:Lyon"
            )
    assert (
        g.state.where("a") == Loc.box("garrison:Toulon")
        and "sequestered" not in g.state.pieces["a"].status
    )
    assert g.state.pieces["b"].attrs["available"] == "reorganization"


# ============================================================================ conversions
@pytest.mark.rules("OT 16A1f", "OT 16A1j")
def test_ot_16a1f_convert_when_supplied_and_not_in_enemy_zoc() -> None:
    g = ob(
        [
            division("old", "France", "0303"),
            division("new", "France", None),
            unit(
                "fl",
                "light-rifle",
                "France",
                "0304",
                faces={
                    "a": {"attack": 2, "defense": 2, "move": 6},
                    "b": {"attack": 3, "defense": 3, "move": 6},
                },
                face="a",
            ),
        ],
        [
            {"turn": "Sep I 14", "kind": "convert", "pieces": ["old"], "params": {"into": ["new"]}},
            {"turn": "Sep I 14", "kind": "convert", "pieces": ["fl"], "params": {"into_face": "b"}},
        ],
    )
    acts = [a for a in g.legal_actions(EN) if a["type"] == "convert"]
    assert {a["entry"] for a in acts} == {"0", "1"}
    g.apply({"type": "convert", "side": EN, "entry": "0"})
    assert g.state.where("old") == Loc.box("out-of-play") and units.hex_of(
        g, g.state.pieces["new"]
    ) == idx(g, "0303")
    g.apply({"type": "convert", "side": EN, "entry": "1"})
    assert g.state.pieces["fl"].face == "b"


@pytest.mark.rules("OT 16A1f")
def test_ot_16a1f_weaker_to_full_when_already_full() -> None:
    g = ob(
        [
            unit(
                "u",
                "heavy-artillery",
                "France",
                "0303",
                faces={
                    "weak": {"attack": 4, "defense": 3, "move": 4},
                    "full": {"attack": 8, "defense": 6, "move": 4},
                },
                face="full",
            ),
            unit("v", "heavy-artillery", "France", None, a=9, d=8, m=4),
        ],
        [
            {
                "turn": "Sep I 14",
                "kind": "convert",
                "pieces": ["u"],
                "params": {"into": ["v"], "full_face": "full", "from_weaker": True},
            }
        ],
    )
    cost = replacements.rebuild_cost(g, g.state.pieces["u"], "weak")
    g.apply({"type": "convert", "side": EN, "entry": "0"})
    assert pool(g, EN, "West")[EQU] == cost[EQU]


@pytest.mark.rules("OT 16A1t")
def test_ot_16a1t_reorganize_costs() -> None:
    g0 = ob(
        [division("a", "France", "0303"), division("n", "France", None)],
        [
            {
                "turn": "Sep I 14",
                "kind": "reorganize",
                "pieces": ["a"],
                "params": {"into": ["n"], "man": 2, "equ": 1},
            }
        ],
    )
    assert g0.current()[1].step != "reinforcement"  # nothing to pay with: no activity offered
    g = ob(
        [division("a", "France", "0303"), division("n", "France", None)],
        [
            {
                "turn": "Sep I 14",
                "kind": "add",
                "params": {"side": EN, "command": "West", "man": {"France": 2}, "equ": 1},
            },
            {
                "turn": "Sep I 14",
                "kind": "reorganize",
                "pieces": ["a"],
                "params": {"into": ["n"], "man": 2, "equ": 1},
            },
        ],
    )
    g.apply({"type": "convert", "side": EN, "entry": "1"})
    assert pool(g, EN, "West")[MAN].get("France", 0) == 0 and pool(g, EN, "West")[EQU] == 0
    assert units.hex_of(g, g.state.pieces["n"]) == idx(g, "0303")
    g2 = ob(
        [division("a", "France", "0303"), division("n", "France", None)],
        [
            {
                "turn": "Sep I 14",
                "kind": "reorganize",
                "pieces": ["a"],
                "params": {"into": ["n"], "man": -2},
            }
        ],
    )
    g2.apply({"type": "convert", "side": EN, "entry": "0"})
    assert (
        pool(g2, EN, "West")[MAN]["France"] == 2
        and replacements.spendable(g2, EN, "West", MAN, "France") == 0
    )


@pytest.mark.rules("OT 16A1bb")
def test_ot_16a1bb_upgrade_without_a_factory_line() -> None:
    g = ob(
        [
            unit(
                "u",
                "heavy-artillery",
                "France",
                "0303",
                faces={
                    "w": {"attack": 4, "defense": 3, "move": 4},
                    "f": {"attack": 8, "defense": 6, "move": 4},
                },
                face="w",
            ),
            unit("v", "heavy-artillery", "France", None, a=9, d=8, m=4),
        ],
        [
            {
                "turn": "Sep I 14",
                "kind": "upgrade",
                "pieces": ["u"],
                "params": {"into": ["v"], "factories": ["0102"]},
            }
        ],
    )
    g.apply({"type": "convert", "side": EN, "entry": "0"})
    assert (
        g.state.where("u").kind == "hex"
    )  # no factory: the points go to the eligible factory hex, or are lost
    assert "0" in reinforcements.ob(g)["done"]


# ======================================================================== withdrawals and transfers
@pytest.mark.rules("OT 16A1cc")
def test_ot_16a1cc_withdraw_choice_pool_forfeit_and_deferral() -> None:
    g = ob(
        [
            division("a", "France", "0303"),
            division("b", "France", "0304"),
            division("c", "France", "0305"),
        ],
        [
            {
                "turn": "Sep I 14",
                "kind": "withdraw",
                "params": {"side": EN, "match": {"nation": "France", "size": "division"}},
            },
            {
                "turn": "Sep I 14",
                "kind": "withdraw",
                "params": {"side": EN, "match": {"nation": "Britain"}},
            },
        ],
    )
    picks = sorted(a["piece"] for a in g.legal_actions(EN) if a["type"] == "withdraw")
    assert picks == ["a", "b", "c"]
    gw(g)["isolated"] = {EN: [idx(g, "0303")], CP: []}
    # the state sees the change itself: no cache to clear
    assert sorted(a["piece"] for a in g.legal_actions(EN) if a["type"] == "withdraw") == ["b", "c"]
    units.eliminate(g, g.state.pieces["c"], "OT 11F3")
    cost = replacements.replacement_strength(g, g.state.pieces["c"], isolated=False)
    g.apply({"type": "withdraw", "side": EN, "entry": "0", "piece": "c"})
    assert g.state.where("c") == Loc.box("out-of-play")
    assert replacements.deficit(g, EN, "West", MAN, "France") == cost[MAN]
    assert "1" not in reinforcements.ob(g)["done"]  # no British unit anywhere: deferred


@pytest.mark.rules("OT 16A1cc")
def test_ot_16a1cc_full_unit_instead_of_its_cadre() -> None:
    g = ob(
        [division("a", "France", "0303")],
        [
            {
                "turn": "Sep I 14",
                "kind": "withdraw",
                "params": {
                    "side": EN,
                    "cadre": True,
                    "match": {"nation": "France", "attack": 3, "defense": 5},
                },
            }
        ],
    )
    acts = [a for a in g.legal_actions(EN) if a["type"] == "withdraw"]
    assert acts == [
        {"type": "withdraw", "side": EN, "entry": "0", "piece": "a", "full_for_cadre": True}
    ]
    cost = replacements.rebuild_cost(g, g.state.pieces["a"], "cadre")
    g.apply(acts[0])
    assert (
        pool(g, EN, "West")[MAN]["France"] == cost[MAN]
        and replacements.spendable(g, EN, "West", MAN, "France") == 0
    )


@pytest.mark.rules("OT 16A1aa")
def test_ot_16a1aa_transfers_between_own_commands_are_ignored() -> None:
    g = ob(
        [division("a", "France", "0303")],
        [
            {
                "turn": "Sep I 14",
                "kind": "transfer",
                "pieces": ["a"],
                "params": {"to": "South", "by": "rail"},
            }
        ],
        rules='commands = { Entente = ["West", "South"] }',
    )
    assert (
        reinforcements.ob(g)["done"]["0"] == "ignored"
        and units.hex_of(g, g.state.pieces["a"]) is not None
    )


@pytest.mark.rules("OT 16A1aa")
def test_ot_16a1aa_mandatory_rail_transfer_spends_res_pts() -> None:
    """OT-S-28: 34 RE must leave by rail with 26 RE of capacity: a Res Pt buys +10 (36) and 34 are
    used."""
    pieces = [division(f"d{k}", "France", "0303") for k in range(1)] + [
        unit("rp", "res-pt", "France", "0102", faces={"front": {}}, size="")
    ]
    g = ob(
        pieces,
        [
            {
                "turn": "Sep I 14",
                "kind": "transfer",
                "pieces": ["d0"],
                "params": {"to": "Balkans", "by": "rail", "net": "N", "re": 34},
            }
        ],
        rules=(
            'commands = { Entente = ["West", "South"] }\n[[rules.rail_nets]]\nname = "N"\ncapacity'
            " = { Entente = 26 }"
        ),
    )
    led = rail.ledger(g, "N", EN)
    assert (
        g.state.where("rp").kind == "box"
        and Fraction(led["used"]) == 34
        and Fraction(led["temp"]) == 10
    )
    assert g.state.where("d0") == Loc.box("out-of-play")


@pytest.mark.rules("OT 16A1aa")
def test_ot_16a1aa_sea_transfer_allocates_transports() -> None:
    """OT-S-29 / OT-S-30: listed transports moving with the units count first (no other need be
    allocated); a lone 3-RE naval transport is allocated to a 5-RE transfer, the rest comes from
    outside."""
    nt = {"id": "nt1", "type": "naval-transport", "nation": "France", "at": "0303"}
    g = ob(
        [division("a", "France", "0303", typ="rifle"), nt],
        [
            {
                "turn": "Sep I 14",
                "kind": "transfer",
                "pieces": ["a"],
                "params": {"to": "Balkans", "by": "sea", "re": 5, "from": "West"},
            }
        ],
        rules='commands = { Entente = ["West", "South"] }',
    )
    assert g.state.pieces["nt1"].attrs.get("allocated_turn") == 1
    g2 = ob(
        [division("a", "France", "0303"), dict(nt)],
        [
            {
                "turn": "Sep I 14",
                "kind": "transfer",
                "pieces": ["a"],
                "params": {
                    "to": "Balkans",
                    "by": "sea",
                    "re": 9,
                    "from": "West",
                    "transports": ["x1", "x2", "x3", "x4"],
                },
            }
        ],
        rules='commands = { Entente = ["West", "South"] }',
    )
    assert "allocated_turn" not in g2.state.pieces["nt1"].attrs


@pytest.mark.rules("OT 16A1aa")
def test_ot_16a1aa_arrivals_and_their_marks() -> None:
    """OT-S-31 (corrected by the audit): from another theater a rail arrival comes by strategic rail
    (100 of its 200 hexes used), with no choice; from the same theater the owner declares
    operational (half its MPs spent) or strategic. By sea from another theater: no MP; overland: no
    MP.
    """
    areas = [
        {
            "name": "France/West Germany",
            "kind": "command",
            "hexes": ALL[:24],
            "attrs": {"theater": "West"},
        }
    ]
    g = game(
        pieces=[
            division("e", "France", None),
            division("s", "France", None),
            division("o", "France", None),
        ],
        areas=areas,
        networks=[{"name": "N", "kind": "rail", "paths": [["0101", "0102", "0103"]]}],
        turns=TURNS,
        schedule=[
            {
                "turn": "Sep I 14",
                "kind": "arrive",
                "pieces": ["e"],
                "params": {
                    "by": "rail",
                    "from": "East Germany/West Russia",
                    "command": "France/West Germany",
                    "hexes": ["0103"],
                },
            },
            {
                "turn": "Sep I 14",
                "kind": "arrive",
                "pieces": ["s"],
                "params": {
                    "by": "rail",
                    "from": "British Isles/North Sea",
                    "command": "France/West Germany",
                    "hexes": ["0103"],
                },
            },
            {
                "turn": "Sep I 14",
                "kind": "arrive",
                "pieces": ["o"],
                "params": {"by": "overland", "hexes": ["0101"]},
            },
        ],
    )
    acts = g.legal_actions(EN)
    e_acts = [a for a in acts if a["type"] == "place" and a["piece"] == "e"]
    s_acts = [a for a in acts if a["type"] == "place" and a["piece"] == "s"]
    assert e_acts == [{"type": "place", "side": EN, "entry": "0", "piece": "e", "hex": "0103"}]
    assert sorted(a["rail"] for a in s_acts) == ["operational", "strategic"]
    g.apply(e_acts[0])
    g.apply(next(a for a in s_acts if a["rail"] == "operational"))
    o_act = next(a for a in g.legal_actions(EN) if a["type"] == "place" and a["piece"] == "o")
    g.apply(o_act)
    assert gw(g)["arrivals"] == {
        "e": {"mark": "strategic-100", "side": EN},
        "s": {"mark": "half-mp", "side": EN},
        "o": {"mark": "no-mp", "side": EN},
    }
    g.apply({"type": "end-phase", "side": EN})
    from .helpers import frame

    recs = frame(g).params["units"]
    assert recs["o"]["done"] and recs["e"]["strategic_only"] and recs["e"]["strategic_used"] == 100
    from grognard.rulesets.greatwar.movement import movement

    assert recs["s"]["spent"] == movement.movement_allowance(g, g.state.pieces["s"]) / 2
    with pytest.raises(IllegalAction):
        g.apply({"type": "move", "side": EN, "piece": "e", "to": "0203"})


# ============================================================================ other verbs
@pytest.mark.rules("OT 16A1h", "OT 16A1i", "OT 16A1v", "OT 16A1r", "OT 16A1y", "OT 16A1x")
def test_ot_16a1_removal_verbs() -> None:
    g = ob(
        [
            division("dz", "France", "0303"),
            division("db", "France", "0304"),
            division("sc", "France", "0305"),
            division("rm", "France", "0306"),
            division("su", "France", "0204"),
            division("sn", "France", None),
            division("sd", "France", "0205"),
        ],
        [
            {"turn": "Sep I 14", "kind": "disarm", "pieces": ["dz"]},
            {"turn": "Sep I 14", "kind": "disband", "pieces": ["db"], "params": {"to": "hex"}},
            {"turn": "Sep I 14", "kind": "scrap", "pieces": ["sc"]},
            {"turn": "Sep I 14", "kind": "remove", "pieces": ["rm"]},
            {
                "turn": "Sep I 14",
                "kind": "substitute",
                "pieces": ["su"],
                "params": {"into": ["sn"]},
            },
            {"turn": "Sep I 14", "kind": "stand-down", "pieces": ["sd"]},
        ],
    )
    ps = g.state.pieces
    assert all(g.state.where(x) == Loc.box("out-of-play") for x in ("dz", "db", "rm", "su"))
    assert replacements.hex_points(g, EN, idx(g, "0304"), MAN, "France") > 0
    assert (
        units.hex_of(g, ps["sc"]) is not None and "2" not in reinforcements.ob(g)["done"]
    )  # scrap waits for the pool
    assert units.hex_of(g, ps["sn"]) == idx(g, "0204")
    assert g.state.where("sd") == Loc.box("call-up:Entente")


@pytest.mark.rules("OT 16A1l", "OT 16A1n", "OT 16A1q", "OT 16A1s", "OT 16A1u")
def test_ot_16a1_appearance_verbs() -> None:
    g = ob(
        [
            division("fm", "France", None),
            division("mb", "France", None),
            division("cd", "France", "0303", face="cadre"),
            division("rl", "France", None),
            division("aw", "France", "0304"),
            division("rp", "France", "0305"),
        ],
        [
            {
                "turn": "Sep I 14",
                "kind": "forming",
                "pieces": ["fm"],
                "params": {"district": "West", "command": "West"},
            },
            {"turn": "Sep II 14", "kind": "full", "pieces": ["fm"], "params": {"command": "West"}},
            {
                "turn": "Sep I 14",
                "kind": "mobilize",
                "pieces": ["mb"],
                "params": {"district": "West"},
            },
            {
                "turn": "Sep I 14",
                "kind": "mobilize",
                "pieces": ["cd"],
                "params": {"district": "West"},
            },
            {
                "turn": "Sep I 14",
                "kind": "release",
                "pieces": ["rl"],
                "params": {"command": "West"},
            },
            {"turn": "Sep I 14", "kind": "remove-to-awq", "pieces": ["aw"], "at": "awq:West"},
            {
                "turn": "Sep I 14",
                "kind": "replace",
                "pieces": ["rp"],
                "params": {"command": "West"},
            },
        ],
    )
    assert g.state.pieces["fm"].attrs["forming"]["turn"] == 1
    assert g.state.where("aw") == Loc.box("awq:West")
    cd = g.state.pieces["cd"]
    assert (
        cd.face == "full" or pool(g, EN, "West")[MAN]
    )  # mobilized: flipped when supplied, else its rebuild cost in points
    mb_opts = {a["hex"] for a in g.legal_actions(EN) if a["type"] == "place" and a["piece"] == "mb"}
    assert len(mb_opts) > 2  # anywhere in the district, not only cities
    rl_opts = {a["hex"] for a in g.legal_actions(EN) if a["type"] == "place" and a["piece"] == "rl"}
    assert rl_opts == {"0102", "0104"}
    assert (
        pool(g, EN, "West")[MAN].get("France", 0)
        >= replacements.replacement_strength(g, g.state.pieces["rp"], isolated=False)[MAN]
    )  # not in the pool: points
    place_all(g)
    g.apply({"type": "end-phase", "side": EN})
    at_reinforcement(g, EN, turn=2)
    place_all(g)
    assert (
        units.hex_of(g, g.state.pieces["fm"]) is not None
        and "forming" not in g.state.pieces["fm"].attrs
    )


@pytest.mark.rules("OT 16A1u")
def test_ot_16a1u_free_replacement_from_the_pool() -> None:
    g = ob(
        [division("rp", "France", "0305")],
        [{"turn": "Sep II 14", "kind": "replace", "pieces": ["rp"], "params": {"command": "West"}}],
    )
    units.eliminate(g, g.state.pieces["rp"], "OT 11F3")
    before = pool(g, EN, "West")
    at_reinforcement(g, EN, turn=2)
    place_all(g)
    assert units.hex_of(g, g.state.pieces["rp"]) is not None and pool(g, EN, "West") == before
    assert replacements.limit_used(g, "France", "cm") == 0


@pytest.mark.rules("OT 16A1k")
def test_ot_16a1k_mandatory_foreign_aid() -> None:
    g = ob(
        [unit("rp1", "res-pt", "France", "0102", faces={"front": {}}, size="")],
        [
            {
                "turn": "Sep I 14",
                "kind": "foreign-aid",
                "params": {"side": EN, "nation": "Romania", "equ": 3, "res": 1, "command": "West"},
            }
        ],
    )
    assert gw(g)["aid"]["Romania"] == {"equ-pt": 3, "res-pt": 1}
    assert replacements.deficit(g, EN, "West", EQU) == 3 and g.state.where("rp1") == Loc.box(
        "aid:Romania"
    )


@pytest.mark.rules("OT 16A1m", "OT 16A1gg")
def test_ot_16a1m_historical_and_16a1gg_special() -> None:
    g = ob(
        [division("h", "France", None), division("s", "France", None)],
        [
            {
                "turn": "Sep I 14",
                "kind": "historical",
                "params": {"side": EN, "text": "Joffre dismisses generals"},
            },
            {
                "turn": "Sep I 14",
                "kind": "historical",
                "params": {
                    "side": EN,
                    "then": [{"kind": "receive", "pieces": ["h"], "params": {"command": "West"}}],
                },
            },
            {
                "turn": "Sep I 14",
                "kind": "special",
                "params": {
                    "side": EN,
                    "text": "the taxis of the Marne",
                    "then": [{"kind": "receive", "pieces": ["s"], "params": {"command": "West"}}],
                },
            },
        ],
    )
    assert any(e["type"] == "historical" and "Joffre" in e["text"] for e in g.state.log)
    assert any(a["type"] == "follow" for a in g.legal_actions(EN))
    assert any(a["type"] == "place" and a["piece"] == "s" for a in g.legal_actions(EN))
    g.apply({"type": "follow", "side": EN, "entry": "1"})
    assert any(a["type"] == "place" and a["piece"] == "h" for a in g.legal_actions(EN))


@pytest.mark.rules("OT 16A1dd")
def test_ot_16a1dd_either() -> None:
    g = ob(
        [division("x", "France", None), division("y", "France", None)],
        [
            {
                "turn": "Sep I 14",
                "kind": "either",
                "params": {
                    "side": EN,
                    "options": [
                        {"kind": "receive", "pieces": ["x"], "params": {"command": "West"}},
                        {"kind": "add", "pieces": ["y"], "params": {"command": "West"}},
                    ],
                },
            }
        ],
    )
    assert {a["option"] for a in g.legal_actions(EN) if a["type"] == "choose"} == {0, 1}
    g.apply({"type": "choose", "side": EN, "entry": "0", "option": 1})
    assert (
        replacements.in_pool(g, g.state.pieces["y"])
        and units.hex_of(g, g.state.pieces["x"]) is None
    )


@pytest.mark.rules("OT 16A1ee")
def test_ot_16a1ee_combinations_in_order() -> None:
    """OT-S-32: "Release from the garrison of Great Britain, then transfer by sea": release
    first."""
    g = ob(
        [division("bd", "Britain", None)],
        [
            {
                "turn": "Sep I 14",
                "kind": "combination",
                "params": {
                    "side": EN,
                    "steps": [
                        {"kind": "release", "pieces": ["bd"], "params": {"command": "West"}},
                        {"kind": "withdraw", "pieces": ["bd"]},
                    ],
                },
            }
        ],
    )
    assert [a for a in g.legal_actions(EN) if a["type"] == "place"]
    assert units.hex_of(g, g.state.pieces["bd"]) is None  # not yet withdrawn: released first
    place_all(g)
    assert g.state.where("bd") == Loc.box("out-of-play")
    log = [e["text"] for e in g.state.log if "bd" in e["text"]]
    assert log.index(next(t for t in log if "enters play" in t)) < log.index(
        next(t for t in log if "leaves play" in t)
    )


@pytest.mark.rules("OT 16A1ff")
def test_ot_16a1ff_linked_steps() -> None:
    """OT-S-33: steps 1A, 1B, 1C in any order, all before step 2."""
    steps = [
        {"label": lab, "kind": "add", "params": {"command": "West", "man": {"France": 1}}}
        for lab in ("1A", "1B", "1C")
    ]
    steps.append({"label": "2", "kind": "add", "params": {"command": "West", "equ": 1}})
    g = ob([], [{"turn": "Sep I 14", "kind": "linked", "params": {"side": EN, "steps": steps}}])
    labels = lambda: sorted(a["label"] for a in g.legal_actions(EN) if a["type"] == "linked-step")  # noqa: E731
    assert labels() == ["1A", "1B", "1C"]
    g.apply({"type": "linked-step", "side": EN, "entry": "0", "label": "1C"})
    assert labels() == ["1A", "1B"]
    g.apply({"type": "linked-step", "side": EN, "entry": "0", "label": "1A"})
    g.apply({"type": "linked-step", "side": EN, "entry": "0", "label": "1B"})
    assert labels() == ["2"]
    g.apply({"type": "linked-step", "side": EN, "entry": "0", "label": "2"})
    assert (
        pool(g, EN, "West") == {MAN: {"France": 3}, EQU: 1} and "0" in reinforcements.ob(g)["done"]
    )


@pytest.mark.rules("OT 16A2")
def test_ot_16a2_conditional_reinforcements() -> None:
    g = ob(
        [division("c", "France", None)],
        [
            {
                "turn": "Sep I 14",
                "kind": "conditional",
                "params": {
                    "side": EN,
                    "cr": 7,
                    "when": {"side_owns": ["0806"]},
                    "then": [{"kind": "receive", "pieces": ["c"], "params": {"command": "West"}}],
                },
            },
            {"turn": "Sep I 14", "kind": "trigger-cr", "params": {"side": EN, "cr": 11}},
        ],
        control={EN: ALL[:40], CP: ALL[40:]},
    )
    assert reinforcements.cr_triggered(g, EN, 11) and not reinforcements.cr_triggered(g, EN, 7)
    assert not reinforcements.condition_met(g, EN, {"side_owns": ["0806"]})
    g.state.control[idx(g, "0806")] = EN
    g.state.turn = {"index": 2, "label": "Sep II 14"}
    reinforcements.process_agenda(g, EN)
    assert reinforcements.cr_triggered(g, EN, 7)
    assert any(it["kind"] == "receive" for it in reinforcements.agenda(g, EN))
    assert reinforcements.condition_met(g, EN, {"crs": [7, 11], "on_or_after": "Sep I 14"})
