"""Rule 14 command units: Army HQs (14M), Corps HQs and limited intelligence (14N), leaders
(14P)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar import intelligence
from grognard.rulesets.greatwar.movement import movement
from grognard.rulesets.greatwar.units import hq as hqmod
from grognard.rulesets.greatwar.units import leaders, special_units, units
from grognard.rulesets.greatwar.units.special_units import CombatSituation

from .helpers import CP, EN, army_hq, division, force_dice, game, idx, move, run_to, unit

NATIONS = {"France": EN, "Germany": CP, "Britain": EN, "Austria-Hungary": CP}


def leader(pid: str, nation: str, hq: str | None, ratings: list[int] | None = None) -> dict:
    d = unit(pid, "leader", nation, None, faces={"front": {}}, size="")
    if hq:
        d["at"] = {"inside": hq}
    else:
        d["at"] = {"box": "eliminated"}
        d.pop("at")
    if ratings is not None:
        d["attrs"]["ratings"] = ratings
    return d


# ============================================================================ 14M
@pytest.mark.rules("OT 14M")
def test_ot_14m_army_hq_attributes_and_nationality_stacking() -> None:
    g = game(
        pieces=[
            army_hq("bhq", "Britain", "0101"),
            army_hq("fhq", "France", "0102"),
            division("d", "France", "0102"),
        ],
        nations=NATIONS,
    )
    ps = g.state.pieces
    a = hqmod.army_hq_attributes(g, ps["bhq"])
    assert (
        a["re"] == 3
        and a["he"]
        and a["zoc"] == "none"
        and a["stacking"] == "exempt"
        and a["logistics_capacity"] == 9
        and a["attack"] == 0
    )
    assert special_units.no_advance(g, ps["bhq"]) is not None
    with pytest.raises(IllegalAction) as e:
        move(g, "bhq", "0102")
    assert e.value.rule == "OT 14M"
    assert not hqmod.eliminated_alone(g, ps["fhq"])
    assert hqmod.eliminated_alone(g, ps["bhq"])


@pytest.mark.rules("OT 14M1")
def test_ot_14m1_zoi_coverage() -> None:
    """OT-S-9: a British HQs' ZOI does not cover a French unit 1 hex away; a German HQs' covers an
    Austro-Hungarian unit 2 hexes away."""
    g = game(
        pieces=[
            army_hq("bhq", "Britain", "0103"),
            unit("fr", "rifle", "France", "0203"),
            army_hq("ghq", "Germany", "0703"),
            unit("ah", "rifle", "Austria-Hungary", "0503", side=CP),
        ],
        nations=NATIONS,
    )
    ps = g.state.pieces
    assert not special_units.in_zoi(g, ps["bhq"], ps["fr"])
    assert special_units.in_zoi(g, ps["ghq"], ps["ah"])
    special_units.set_hq_active(g, ps["ghq"], False)
    assert not special_units.in_zoi(g, ps["ghq"], ps["ah"])


@pytest.mark.rules("OT 14M1", "OT 14M2")
def test_ot_14m2_disrupted_hq_check_and_combat_drm() -> None:
    from grognard.rulesets.greatwar import special_rules

    g = game(
        pieces=[
            army_hq("ghq", "Germany", "0703"),
            division("g", "Germany", "0603"),
            division("f", "France", "0503"),
        ],
        nations=NATIONS,
    )
    hq = g.state.pieces["ghq"]
    hq.status.add("disrupted")
    force_dice(g, [4])  # 4 - 1 = 3: failure
    assert not hqmod.check_hqs(g, [hq])
    assert not special_units.hq_active(hq)
    sit = CombatSituation([g.state.pieces["g"]], [g.state.pieces["f"]], idx(g, "0503"), "mobile")
    m = special_rules.combat_drms(g, sit, attacker_hq=hq)
    assert any(x.rule == "OT 14M2" and x.value == -1 for x in m)
    m2 = special_rules.combat_drms(
        g,
        CombatSituation([g.state.pieces["f"]], [g.state.pieces["g"]], idx(g, "0603"), "mobile"),
        defender_hq=hq,
    )
    assert any(x.rule == "OT 14M2" and x.value == 1 for x in m2)


@pytest.mark.rules("OT 14M3")
def test_ot_14m3_coordination_one_check_with_penalty() -> None:
    """OT-S-60: three HQs coordinating check once at -2 (a disrupted one adds -1 more)."""
    g = game(
        pieces=[
            army_hq("h1", "Germany", "0703"),
            army_hq("h2", "Germany", "0705"),
            army_hq("h3", "Germany", "0801"),
            division("f", "France", "0103"),
        ],
        nations=NATIONS,
        options={"hq-coordination": True},
    )
    hqs = [g.state.pieces[x] for x in ("h1", "h2", "h3")]
    force_dice(g, [6])  # 6 - 2 = 4: success
    assert hqmod.check_hqs(g, hqs)
    roll = [e for e in g.state.log if e["type"] == "roll"][-1]
    assert "-2" in roll["text"] or "modified 4" in roll["text"]
    hqs[1].status.add("disrupted")
    force_dice(g, [6])  # 6 - 3 = 3: failure, all inactive
    assert not hqmod.check_hqs(g, hqs)
    assert not any(special_units.hq_active(h) for h in hqs)


@pytest.mark.rules("OT 14M3", "OT 14M1")
def test_ot_14m3_coordinate_action_in_reaction_movement() -> None:
    g = game(
        pieces=[
            army_hq("h1", "Germany", "0703"),
            army_hq("h2", "Germany", "0706"),
            division("g1", "Germany", "0603"),
            division("g2", "Germany", "0606"),
            division("f", "France", "0103"),
        ],
        nations=NATIONS,
        options={"hq-coordination": True},
    )
    run_to(g, "reaction-movement", CP)
    acts = g.legal_actions(CP)
    assert any(a["type"] == "coordinate-hqs" for a in acts)
    force_dice(g, [6])
    g.apply({"type": "coordinate-hqs", "side": CP, "hqs": ["h1", "h2"]})
    from .helpers import frame

    assert {"g1", "g2"} <= set(frame(g).params["eligible"])


# ============================================================================ 14N
@pytest.mark.rules("OT 14N1")
def test_ot_14n1_corps_hq_rating_follows_its_box() -> None:
    c = unit(
        "cx",
        "corps-hq",
        "France",
        "0101",
        faces={"front": {"attack": 0, "defense": 0, "move": 8}},
        size="corps",
    )
    inside = unit("slow", "rifle", "France", None, m=4)
    inside["at"] = {"inside": "cx"}
    g = game(pieces=[c, inside, division("f2", "France", "0102")])
    cx = g.state.pieces["cx"]
    a = hqmod.corps_hq_attributes(g, cx)
    assert a["re"] == 1 and not a["he"] and a["zoc"] == "none" and a["stacking"] == "exempt"
    assert movement.movement_allowance(g, cx) == 4
    g.state.move("slow", Loc.hex(idx(g, "0101")))
    assert movement.movement_allowance(g, cx) == 8


def _corps_game(**kw):
    c = unit(
        "gc",
        "corps-hq",
        "Germany",
        "0703",
        faces={"front": {"attack": 0, "defense": 0, "move": 8}},
        size="corps",
    )
    inner = division("gd", "Germany", None)
    inner["at"] = {"inside": "gc"}
    return game(
        pieces=[c, inner, division("fr", "France", "0103")],
        options={"limited-intelligence": True},
        **kw,
    )


@pytest.mark.rules("OT 14N2")
def test_ot_14n2_unknown_corps_hidden_from_the_enemy() -> None:
    g = _corps_game()
    gc = g.state.pieces["gc"]
    assert intelligence.is_unknown(gc)  # nearest enemy 6 hexes away at entry
    assert "gd" in g.ruleset.hidden_tokens(g, EN)
    view = g.view(EN)
    assert all(p["id"] != "gd" for p in view["pieces"])
    assert '"gd"' not in str(view).replace("'", '"')
    assert any(p["id"] == "gd" for p in g.view(CP)["pieces"])


@pytest.mark.rules("OT 14N2")
def test_ot_14n2_status_flips_in_initial_phases() -> None:
    """OT-S-61: in an initial phase an unknown corps with an enemy 3 hexes away becomes known; a
    known corps with the nearest enemy 4 hexes away becomes unknown; a corps entering play 4 hexes
    from the enemy enters unknown."""
    g = _corps_game()
    gc = g.state.pieces["gc"]
    g.state.move("fr", Loc.hex(idx(g, "0403")))  # 3 hexes
    intelligence.initial_phase(g)
    assert not intelligence.is_unknown(gc)
    g.state.move("fr", Loc.hex(idx(g, "0303")))  # 4 hexes
    intelligence.initial_phase(g)
    assert intelligence.is_unknown(gc)
    g.state.move("gc", Loc.box("reserve"))
    g.state.move("gc", Loc.hex(idx(g, "0703")))
    intelligence.on_enter_play(g, gc)
    assert intelligence.is_unknown(gc)


@pytest.mark.rules("OT 14N2")
def test_ot_14n2_revealed_when_combat_begins_and_zoc_disclosed() -> None:
    from grognard.rulesets.greatwar import special_rules

    g = _corps_game()
    gc = g.state.pieces["gc"]
    sit = CombatSituation([g.state.pieces["fr"]], [g.state.pieces["gd"]], idx(g, "0703"))
    special_rules.declaration_checks(g, sit)
    assert not intelligence.is_unknown(gc)
    g2 = _corps_game()
    g2.state.move("fr", Loc.hex(idx(g2, "0503")))
    move(g2, "fr", "0603")
    told = [e for e in g2.state.log if e["type"] == "corps-zoc"]
    assert told and "holds units exerting ZOCs" in told[0]["text"]


@pytest.mark.rules("OT 14N2")
def test_ot_14n2_overrun_of_unknown_corps_compared_in_secret() -> None:
    g = _corps_game()
    g.state.move("fr", Loc.hex(idx(g, "0603")))
    gc = g.state.pieces["gc"]
    # the French division (8 attack) against the hidden 11-defense division: below 10:1
    g.apply({"type": "overrun", "side": EN, "pieces": ["fr"], "target": "0703"})
    assert intelligence.is_unknown(gc)
    assert g.state.pieces["gd"].loc == Loc.inside("gc")
    from .helpers import frame

    assert frame(g).params["units"]["fr"]["done"]
    assert any("does not reach 10:1" in e["text"] for e in g.state.log)


# ============================================================================ 14P
def _leader_game(**kw):
    return game(
        pieces=[
            army_hq("bhq", "Britain", "0103"),
            leader("Haig", "Britain", "bhq"),
            division("b1", "Britain", "0203"),
            army_hq("ghq", "Germany", "0703"),
            leader("Falkenhayn", "Germany", "ghq"),
            division("g1", "Germany", "0503"),
        ],
        nations=NATIONS,
        **kw,
    )


@pytest.mark.rules("OT 14P", "OT 14P1")
def test_ot_14p1_leader_ratings_and_roll_lookup() -> None:
    """OT-S-13 / OT-S-63: Haig (-1/0/+1, chart) rolling 5 gives +1; rolls 1-2, 3-4, 5-6 pick left,
    centre, right."""
    g = _leader_game()
    haig = g.state.pieces["Haig"]
    assert leaders.ratings(g, haig) == (-1, 0, 1)
    assert leaders.ratings(g, g.state.pieces["Falkenhayn"]) == (0, 0, 1)
    assert [leaders.rating_for_roll((-1, 0, 1), r) for r in range(1, 7)] == [-1, -1, 0, 0, 1, 1]
    force_dice(g, [5])
    assert leaders.activation_modifier(g, [g.state.pieces["bhq"]], haig) == 1


@pytest.mark.rules("OT 14P1")
def test_ot_14p1_leader_used_on_a_reaction_check() -> None:
    g = _leader_game()
    run_to(g, "reaction-movement", EN)
    assert {"type": "check-hq", "side": EN, "hq": "bhq", "leader": True} in g.legal_actions(EN)
    force_dice(g, [5, 2])  # leader +1, check 2 + 1 = 3 (F)
    g.apply({"type": "check-hq", "side": EN, "hq": "bhq", "leader": True})
    assert not special_units.hq_active(g.state.pieces["bhq"])
    assert any(e.get("rule") == "OT 14P1" and "+1" in e["text"] for e in g.state.log)


@pytest.mark.rules("OT 14P2")
def test_ot_14p2_leaders_in_combat() -> None:
    """OT-S-14: Haig attacking rolls 1 (-1), Falkenhayn defending rolls 6 (+1 reversed to -1):
    -2."""
    g = _leader_game()
    ps = g.state.pieces
    sit = CombatSituation([ps["b1"]], [ps["g1"]], idx(g, "0503"), "mobile")
    assert leaders.push_leader_step(g, sit)
    assert g.acting_sides() == [CP]
    g.apply({"type": "use-leader", "side": CP, "leader": "Falkenhayn"})
    force_dice(g, [6, 1])
    g.apply({"type": "use-leader", "side": EN, "leader": "Haig"})
    assert leaders.leader_drm(g) == -2


@pytest.mark.rules("OT 14P2")
def test_ot_14p2_leader_needs_every_unit_in_its_zoi() -> None:
    """OT-S-15: one attacking unit outside the HQs' ZOI makes the leader ineligible."""
    g = _leader_game()
    ps = g.state.pieces
    far = ps["b1"]
    assert leaders.eligible_leaders(g, EN, [far])
    g.state.move("b1", Loc.hex(idx(g, "0206")))
    assert not leaders.eligible_leaders(g, EN, [far])


@pytest.mark.rules("OT 14P")
def test_ot_14p_assignment_in_initial_phases() -> None:
    g = _leader_game()
    ps = g.state.pieces
    g.state.vars["gw"]["phasing"] = EN
    a = {"type": "unassign-leader", "side": EN, "leader": "Haig"}
    assert leaders.unassignment_problem(g, EN, a) is None
    leaders.apply_unassignment(g, EN, a)
    assert g.state.where("Haig") == Loc.box("leaders:Entente")
    again = {"type": "assign-leader", "side": EN, "leader": "Haig", "hq": "bhq"}
    assert "must spend one" in (leaders.assignment_problem(g, EN, again) or "")
    g.state.turn = {"index": 2, "label": "Sep II 14"}
    assert leaders.assignment_problem(g, EN, again) is None
    units.eliminate(g, ps["ghq"], "OT 9D")
    assert g.state.where("Falkenhayn") == Loc.box("leaders:Central Powers")
    assert Fraction(0) == units.re_size(g, ps["Haig"])


def overrun_naming_the_hidden_division() -> Any:
    """The corps game after an overrun of the unknown corps: the log names its hidden division
    (it is out of general supply)."""
    g = _corps_game()
    g.state.move("fr", Loc.hex(idx(g, "0603")))
    g.apply({"type": "overrun", "side": EN, "pieces": ["fr"], "target": "0703"})
    assert any("gd" in json.dumps(e) for e in g.state.log)
    return g


@pytest.mark.rules("OT 14N2")
def test_ot_14n2_every_reading_of_the_log_conceals_a_hidden_units_events() -> None:
    """The log as the enemy reads it anywhere (the view, ``Game.visible_log`` that the command
    line and the terminal print, ``visible_log_after`` that the server pushes) shows an event
    naming a unit inside an unknown corps as a bare notice; its owner sees it."""
    g = overrun_naming_the_hidden_division()
    full = g.visible_log(EN)
    assert not any("gd" in json.dumps(e) for e in full)
    concealed = [e for e in full if e["type"] == "concealed"]
    assert concealed
    assert all(e["text"] == "activity of an unknown corps (OT 14N2)" for e in concealed)
    assert [e["n"] for e in full] == list(range(len(full)))
    assert g.view(EN)["log"] == full
    assert g.visible_log_after(EN, 0, 0) == full
    assert any("gd" in json.dumps(e) for e in g.visible_log(CP))
