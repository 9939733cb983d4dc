"""OT 9F (movement after combat: 9F1 declarations, 9F2 retreats, 9F3 advances, 9F4 multiple-hex
retreats and advances, 9F5 overruns), OT 9I (retreat before combat), OT 9J (contested hexes) and
OT 9K (same-hex combat)."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.combat import combat_hexes, retreat
from grognard.rulesets.greatwar.combat.combat import retreat_before_combat_eligible
from grognard.rulesets.greatwar.combat.combat_results import multi_hex
from grognard.rulesets.greatwar.combat.combat_strength import compute
from grognard.rulesets.greatwar.mechanics import gw, marker, set_marker
from grognard.rulesets.greatwar.units import units

from .helpers import army_hq, division, force_dice, frame, idx, unit
from .test_combat_support import (
    CP,
    EN,
    all_supplied,  # noqa: F401
    crt_table,
    drive,
    game_with,
    pending,
    rec_of,  # noqa: F401
)
from .test_combat_support import attack as declare

pytestmark = pytest.mark.usefixtures("all_supplied")


def result_game(code, pieces, positional=False, **kw):
    return game_with(
        tables={"positional-crt" if positional else "mobile-crt": crt_table(code, positional)},
        pieces=pieces,
        **kw,
    )


def attack(g, target, attackers, **kw):
    declare(g, target, attackers, **kw)
    for _ in range(20):
        if pending(g) not in ("reserve-commitment", "combat-effects"):
            return
        acts = g.legal_actions(g.acting_sides()[0])
        g.apply(next(a for a in acts if a["type"] in ("done", "decline")))


def at(g, pid):
    h = units.hex_of(g, g.state.pieces[pid])
    return g.board.label(h) if h is not None else g.state.pieces[pid].loc.kind


# ============================================================================ OT 9F1
@pytest.mark.rules("OT 9F", "OT 9F1")
def test_ot_9f1_ot_g_59_declining_cancels_the_defender_retreat() -> None:
    g = result_game("DR", [division("f1", "France", "0403"), division("g1", "Germany", "0503")])
    attack(g, "0503", ["f1"])
    assert pending(g) == "combat-choice" and frame(g).params["side"] == EN
    g.apply({"type": "choose", "side": EN, "key": "advance:0503", "choice": "decline"})
    drive(g)
    assert at(g, "g1") == "0503"


@pytest.mark.rules("OT 9F1", "OT 9F3")
def test_ot_9f1_a_declared_advance_is_binding() -> None:
    g = result_game(
        "DR",
        [
            division("f1", "France", "0403"),
            division("f2", "France", "0402"),
            division("g1", "Germany", "0503", a=4),
        ],
    )
    attack(g, "0503", ["f1"])
    g.apply({"type": "choose", "side": EN, "key": "advance:0503", "choice": "advance"})
    drive(g, until="combat-advance")
    assert at(g, "g1") in ("0602", "0603")  # 0502 and 0504 are in the attackers' ZOCs
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "done", "side": EN})
    assert e.value.rule == "OT 9F1"
    g.apply({"type": "advance", "side": EN, "pieces": ["f1"], "to": "0503"})
    assert at(g, "f1") == "0503"


@pytest.mark.rules("OT 9F1")
def test_ot_9f1_ot_g_60_attacker_retreat_per_hex() -> None:
    """OT-G-60: attackers from Y (all attacked) and Z (with a unit that did not attack): those of Z
    retreat; the defender declines for Y, so those of Y stay."""
    g = result_game(
        "AR",
        [
            division("fy", "France", "0403"),
            division("fz", "France", "0402"),
            division("fn", "France", "0402"),
            division("g1", "Germany", "0503"),
        ],
    )
    attack(g, "0503", ["fy", "fz"])
    assert (
        pending(g) == "combat-choice"
        and frame(g).params["key"] == "advance:0403"
        and frame(g).params["side"] == CP
    )
    g.apply({"type": "choose", "side": CP, "key": "advance:0403", "choice": "decline"})
    drive(g)
    assert at(g, "fy") == "0403" and at(g, "fz") != "0402" and at(g, "fn") == "0402"


# ============================================================================ OT 9F2
@pytest.mark.rules("OT 9F2")
def test_ot_9f2_ot_g_61_zoc_ignoring_units() -> None:
    g = game_with(
        pieces=[
            division("d", "France", "0403", a=8, d=11),
            division("c", "France", "0402", a=8, d=11),
            unit("m6", "rifle", "France", "0302", a=2, d=3, m=6),
        ]
    )
    g.state.pieces["c"].face = "cadre"
    assert retreat.ignores_zoc_on_retreat(g.state.pieces["d"])
    assert not retreat.ignores_zoc_on_retreat(g.state.pieces["c"])
    assert retreat.ignores_zoc_on_retreat(g.state.pieces["m6"])


@pytest.mark.rules("OT 9F2")
def test_ot_9f2_ot_g_62_63_priorities_and_zoc_reduction() -> None:
    """Priority 1 (no ZOC, within stacking) before 2 (no ZOC, over the limit: keeps retreating)
    before 3 (enemy ZOC: reduced to cadre, or eliminated)."""
    g = result_game(
        "DR",
        [
            division("f1", "France", "0403"),
            division("f2", "France", "0402"),
            division("g1", "Germany", "0503", a=4),
            *[division(f"x{k}", "Germany", "0603") for k in range(6)],
            division("f3", "France", "0702"),
        ],
    )
    opts = retreat.retreat_options(g, g.state.pieces["g1"], idx(g, "0503"), idx(g, "0503"))
    # 0602 is in the ZOC of f3 (0702); 0603 holds six German divisions: over the limit but no ZOC
    assert [(g.board.label(o.to), o.tier) for o in opts] == [("0603", 2)]
    everything = retreat.retreat_options(
        g, g.state.pieces["g1"], idx(g, "0503"), idx(g, "0503"), best_only=False
    )
    assert {o.tier for o in everything} == {2, 3}
    attack(g, "0503", ["f1", "f2"])
    g.apply({"type": "choose", "side": EN, "key": "advance:0503", "choice": "advance"})
    drive(g, until="combat-advance")
    assert at(g, "g1") not in ("0503", "0603")  # went through 0603 and on


@pytest.mark.rules("OT 9F2")
def test_ot_9f2_ot_g_63_into_a_zoc_only() -> None:
    g = result_game(
        "DR",
        [
            division("f1", "France", "0403"),
            division("f2", "France", "0402"),
            division("g1", "Germany", "0503", a=4),
            division("f3", "France", "0702"),
            division("f4", "France", "0704"),
            unit("g2", "rifle", "Germany", "0503", a=1, d=2, size="brigade"),
        ],
    )
    attack(g, "0503", ["f1", "f2"])
    g.apply({"type": "choose", "side": EN, "key": "advance:0503", "choice": "advance"})
    drive(g, until="combat-advance")
    assert (
        g.state.pieces["g1"].face == "cadre" and units.hex_of(g, g.state.pieces["g1"]) is not None
    )
    assert g.state.pieces["g2"].loc == Loc.box("eliminated")


@pytest.mark.rules("OT 9F2")
def test_ot_9f2_no_route_eliminates_totally_and_depots_break_ties() -> None:
    g = result_game(
        "DR",
        [division("f1", "France", "0403"), division("g1", "Germany", "0503")],
        hexsides=[
            ("prohibited", ["0503/0502", "0503/0504", "0503/0602", "0503/0603", "0503/0402"])
        ],
    )
    attack(g, "0503", ["f1"])
    g.apply({"type": "choose", "side": EN, "key": "advance:0503", "choice": "advance"})
    drive(g, until="combat-advance")
    assert (
        g.state.pieces["g1"].loc == Loc.box("eliminated") and g.state.pieces["g1"].face != "cadre"
    )
    g2 = game_with(
        pieces=[
            division("g1", "Germany", "0503"),
            unit(
                "dp",
                "supply-depot",
                "Germany",
                "0704",
                faces={"operational": {"move": 0}},
                face="operational",
                size="",
            ),
        ]
    )
    opts = retreat.retreat_options(g2, g2.state.pieces["g1"], idx(g2, "0503"), idx(g2, "0503"))
    assert [g2.board.label(o.to) for o in opts] == [
        "0603"
    ]  # nearest to the depot among the free hexes


def _retreat_into_zoc_game(friend_at: str | None = None, friend_owner: str = CP):
    """A full-strength German division (attack 8: it may ignore enemy ZOCs retreating into a
    friendly-occupied/owned hex) forced to retreat from 0503 by a DR; every hex it may retreat
    into is in an enemy ZOC (f1 at 0403, f2 at 0402, f3 at 0702, f4 at 0704). ``friend_at``: a
    German brigade waiting there, in a hex owned by ``friend_owner``."""
    pieces = [
        division("f1", "France", "0403"),
        division("f2", "France", "0402"),
        division("g1", "Germany", "0503"),
        division("f3", "France", "0702"),
        division("f4", "France", "0704"),
    ]
    if friend_at:
        pieces.append(unit("g2", "rifle", "Germany", friend_at, a=1, d=2, size="brigade"))
    g = result_game("DR", pieces)
    attack(g, "0503", ["f1"])
    if friend_at:
        g.state.control[idx(g, friend_at)] = friend_owner
        g.invalidate()
    g.apply({"type": "choose", "side": EN, "key": "advance:0503", "choice": "advance"})
    return g


@pytest.mark.rules("OT 9F2")
def test_ot_9f2_an_empty_friendly_owned_hex_in_a_zoc_reduces_even_a_zoc_ignoring_unit() -> None:
    """'Friendly-occupied/owned' is the compound form Rule 6 defines for the enemy: owned *and*
    occupied. 0602/0603 are German-owned but empty, so the attack-8 division retreating into one
    of them is reduced to its cadre like any other unit."""
    g = _retreat_into_zoc_game()
    assert pending(g) == "combat-retreat"
    opts = retreat.retreat_options(g, g.state.pieces["g1"], idx(g, "0503"), idx(g, "0503"))
    assert {o.tier for o in opts} == {retreat.TIER_ZOC}
    assert {a["to"] for a in g.legal_actions(CP) if a["type"] == "retreat"} == {
        "0502",
        "0504",
        "0602",
        "0603",
    }
    g.apply({"type": "retreat", "side": CP, "piece": "g1", "to": "0603"})
    assert at(g, "g1") == "0603" and g.state.pieces["g1"].face == "cadre"


@pytest.mark.rules("OT 9F2")
def test_ot_9f2_a_friendly_occupied_and_owned_hex_keeps_the_unit_at_full_strength() -> None:
    """With a German brigade in German-owned 0603, that hex is friendly-occupied/owned: the
    division ignores the ZOC there (priority 1, its only best hex) and keeps its full strength."""
    g = _retreat_into_zoc_game(friend_at="0603")
    drive(g, until="combat-advance")
    assert at(g, "g1") == "0603" and g.state.pieces["g1"].face == "full"


@pytest.mark.rules("OT 9F2")
def test_ot_9f2_a_friendly_occupied_hex_the_side_does_not_own_does_not_protect() -> None:
    """The German brigade stands in 0603 but the Entente owns that hex: it is not friendly-owned,
    so the division's retreat there (or anywhere else) is into an enemy ZOC and it is reduced."""
    g = _retreat_into_zoc_game(friend_at="0603", friend_owner=EN)
    opts = retreat.retreat_options(g, g.state.pieces["g1"], idx(g, "0503"), idx(g, "0503"))
    assert {o.tier for o in opts} == {retreat.TIER_ZOC}
    g.apply({"type": "retreat", "side": CP, "piece": "g1", "to": "0603"})
    assert at(g, "g1") == "0603" and g.state.pieces["g1"].face == "cadre"


# ============================================================================ OT 9F3
@pytest.mark.rules("OT 9F3")
def test_ot_9f3_ot_g_64_defender_advances_into_cleared_hexes() -> None:
    g = result_game(
        "AE",
        [
            division("f1", "France", "0403"),
            division("f2", "France", "0402"),
            division("f3", "France", "0504"),
            division("fn", "France", "0504"),
            division("g1", "Germany", "0503"),
        ],
    )
    attack(g, "0503", ["f1", "f2", "f3"])
    drive(g, until="combat-advance", choices=[{"type": "choose", "choice": "decline"}] * 0)
    dests = {a["to"] for a in g.legal_actions(CP) if a["type"] == "advance"}
    assert dests == {"0403", "0402"}


@pytest.mark.rules("OT 9F3", "OT 12B3")
def test_ot_9f3_who_may_advance() -> None:
    g = game_with(
        pieces=[
            unit("sa", "siege-artillery", "France", "0403", a=6, d=2, m=3),
            division("f1", "France", "0403"),
            army_hq("hq", "France", "0402"),
        ]
    )
    assert retreat.advance_problem(g, g.state.pieces["sa"]) and retreat.advance_problem(
        g, g.state.pieces["hq"]
    )
    assert retreat.advance_problem(g, g.state.pieces["f1"]) is None


# ============================================================================ OT 9F4 / 9F5
@pytest.mark.rules("OT 9F4")
def test_ot_9f4_ot_g_65_dates_and_theaters() -> None:
    areas = [
        {
            "name": "France/West Germany",
            "kind": "command",
            "hexes": [f"{c:02d}{r:02d}" for c in range(1, 5) for r in range(1, 7)],
        },
        {
            "name": "East Germany/West Russia",
            "kind": "command",
            "hexes": [f"{c:02d}{r:02d}" for c in range(5, 9) for r in range(1, 7)],
        },
    ]
    for turn, west, east in (
        ("Jan II 15", True, True),
        ("Feb I 15", False, True),
        ("Jan II 16", False, True),
        ("Feb I 16", False, False),
    ):
        g = game_with(areas=areas, turns=((turn, {}),))
        assert (
            multi_hex(g, idx(g, "0203"), "DE") is west
            and multi_hex(g, idx(g, "0603"), "DE") is east
        )
        assert not multi_hex(g, idx(g, "0203"), "DR")


@pytest.mark.rules("OT 9F4")
def test_ot_9f4_two_hex_retreat_and_advance() -> None:
    g = result_game(
        "DH",
        [
            division("f1", "France", "0403", a=30),
            division("g1", "Germany", "0503", d=10),
            division("g2", "Germany", "0503", d=10),
        ],
    )
    attack(g, "0503", ["f1"])
    drive(g, until="combat-losses")
    g.apply({"type": "eliminate", "side": CP, "piece": "g2"})
    g.apply({"type": "choose", "side": EN, "key": "advance:0503", "choice": "advance"})
    drive(g, until="combat-advance")
    g.apply({"type": "advance", "side": EN, "pieces": ["f1"], "to": "0503"})
    drive(g, until="combat-advance")
    assert frame(g).params["second"] and g.state.pieces["g1"].loc.kind == "hex"
    assert g.board.distance(idx(g, "0503"), units.hex_of(g, g.state.pieces["g1"])) == 2


@pytest.mark.rules("OT 9F5")
def test_ot_9f5_retreat_into_an_enemy_hex_by_overrun() -> None:
    g = game_with(
        pieces=[
            division("g1", "Germany", "0503", a=20),
            army_hq("fhq", "France", "0603"),
            division("f1", "France", "0403"),
        ]
    )
    opts = retreat.retreat_options(
        g, g.state.pieces["g1"], idx(g, "0503"), idx(g, "0503"), best_only=False
    )
    over = [o for o in opts if o.overrun]
    assert [g.board.label(o.to) for o in over] == ["0603"]


# ============================================================================ OT 9I
@pytest.mark.rules("OT 9I")
def test_ot_9i_ot_g_68_eligibility() -> None:
    g = game_with(
        turns=(("Dec I 14", {"weather": "snow"}),),
        pieces=[
            unit("cm", "armored-car", "Germany", "0503", a=2, d=2, m=8),
            unit("cav6", "cavalry", "Germany", "0503", a=2, d=2, m=6),
            unit("irr", "irregular-rifle", "Germany", "0503", a=1, d=1, m=4),
            unit("ski", "ski", "Germany", "0503", a=1, d=1, m=7),
        ],
    )
    p = g.state.pieces
    assert retreat_before_combat_eligible(g, p["cm"]) and not retreat_before_combat_eligible(
        g, p["cav6"]
    )
    assert retreat_before_combat_eligible(g, p["irr"]) and retreat_before_combat_eligible(
        g, p["ski"]
    )
    g2 = game_with(
        turns=(("Dec I 14", {"weather": "winter"}),),
        pieces=[unit("ski", "ski", "Germany", "0503", a=1, d=1, m=7)],
    )
    assert not retreat_before_combat_eligible(g2, g2.state.pieces["ski"])


@pytest.mark.rules("OT 9I")
def test_ot_9i_retreat_before_combat_then_advance() -> None:
    g = game_with(
        pieces=[
            division("f1", "France", "0403"),
            unit("cav", "cavalry", "Germany", "0503", a=2, d=3, m=7, size="brigade"),
        ]
    )
    declare(g, "0503", ["f1"])
    assert pending(g) == "retreat-before-combat" and g.acting_sides() == [CP]
    force_dice(g, [5])
    g.apply({"type": "retreat-attempt", "side": CP, "piece": "cav"})
    if pending(g) == "combat-retreat":  # a choice among equally good hexes
        g.apply({"type": "retreat", "side": CP, "piece": "cav", "to": "0603"})
    assert at(g, "cav") in ("0602", "0603")
    assert pending(g) == "combat-advance"  # nobody left: the attackers may advance (OT 9F3)
    g.apply({"type": "advance", "side": EN, "pieces": ["f1"], "to": "0503"})
    assert at(g, "f1") == "0503"


# ============================================================================ OT 9J
@pytest.mark.rules("OT 9J")
def test_ot_9j_ot_g_69_uncontested_after_a_full_game_turn() -> None:
    g = game_with(
        turns=(("Jun I 15", {}), ("Jun II 15", {})), pieces=[division("g1", "Germany", "0403")]
    )
    i = idx(g, "0403")
    st = gw(g)
    g.state.turn["index"], st["phasing"], st["phase"] = 1, EN, "reaction-combat"
    combat_hexes.make_contested(g, i, CP)
    assert i not in g.state.control
    for turn, phase in ((1, "exploitation"), (2, "movement"), (2, "combat")):
        g.state.turn["index"], st["phase"] = turn, phase
        st["phasing"] = EN
        combat_hexes.phase_end(g, phase)
        assert marker(g, "contested", i)
    g.state.turn["index"], st["phase"] = 2, "reaction-combat"
    combat_hexes.phase_end(g, "reaction-combat")
    assert not marker(g, "contested", i) and g.state.control[i] == CP


@pytest.mark.rules("OT 9J", "OT 9H")
def test_ot_9j_ot_g_70_attack_into_a_contested_hex() -> None:
    g = game_with(pieces=[division("f1", "France", "0403"), division("g1", "Germany", "0503")])
    i = idx(g, "0503")
    set_marker(g, "fortification", i, "improved-fort")
    set_marker(g, "contested", i, {"holder": CP, "since": [1, 0, 2]})
    from grognard.rulesets.greatwar.combat.combat import new_record

    for _ in range(50):
        if pending(g) == "combat-segment":
            break
        g.apply(
            next(
                a
                for a in g.legal_actions(g.acting_sides()[0])
                if a["type"] in ("end-phase", "done", "decline")
            )
        )
    c = compute(
        g,
        new_record(
            g, frame(g), {"type": "attack", "side": EN, "target": "0503", "attackers": ["f1"]}
        ),
    )
    assert (
        c.crt == "mobile"
        and [m.value for m in c.drms] == [-1]
        and "contested" in c.drms.items[0].reason
    )


@pytest.mark.rules("OT 9J")
def test_ot_9j_positional_combat_creates_a_contested_hex() -> None:
    g = result_game(
        "DXM",
        [division("f1", "France", "0403", a=20), division("g1", "Germany", "0503", a=4, d=10)],
        positional=True,
        places=[("0503", "full-city", "Town")],
    )
    attack(g, "0503", ["f1"])
    drive(g, until="combat-choice")
    g.apply({"type": "choose", "side": EN, "key": "advance:0503", "choice": "advance"})
    drive(g, until="combat-advance")
    assert (
        frame(g).params["side"] == EN
        and g.board.distance(idx(g, "0503"), units.hex_of(g, g.state.pieces["g1"])) == 1
    )
    force_dice(g, [1])
    g.apply({"type": "advance", "side": EN, "pieces": ["f1"], "to": "0503"})
    drive(g)
    assert marker(g, "contested", idx(g, "0503")) and idx(g, "0503") not in g.state.control
    assert (
        units.disruption(g.state.pieces["f1"]) == 1
    )  # a non-infantry unit entering rolled and failed


# ============================================================================ OT 9K
@pytest.mark.rules("OT 9K", "OT 9K1")
def test_ot_9k1_ot_g_71_attack_without_strength_is_eliminated() -> None:
    g = game_with(
        pieces=[
            unit("pm", "parachute-machinegun", "France", "0503", a=6, d=8, m=4, size="brigade"),
            division("g1", "Germany", "0503"),
        ],
        control={EN: [], CP: [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 7)]},
    )
    g.state.pieces["pm"].status.add("badly-disrupted")
    declare_at = None
    for _ in range(50):
        if pending(g) == "combat-segment":
            declare_at = frame(g)
            break
        acts = g.legal_actions(g.acting_sides()[0])
        g.apply(next(a for a in acts if a["type"] in ("end-phase", "done", "decline")))
    assert declare_at is not None
    assert {"type": "end-phase", "side": EN} not in g.legal_actions(
        EN
    )  # the same-hex attack is mandatory
    g.apply({"type": "attack", "side": EN, "target": "0503", "attackers": ["pm"]})
    assert g.state.pieces["pm"].loc == Loc.box("eliminated")


@pytest.mark.rules("OT 9K1")
def test_ot_9k1_ot_g_72_retreat_through_the_zoc_of_the_hex() -> None:
    g = result_game(
        "AR",
        [
            unit("mr", "marine-rifle", "France", "0503", a=2, d=2, size="regiment"),
            division("g1", "Germany", "0503"),
        ],
        control={EN: [], CP: [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 7)]},
    )
    attack(g, "0503", ["mr"])
    drive(g)
    assert g.state.pieces["mr"].loc == Loc.box("eliminated")


@pytest.mark.rules("OT 9K", "OT 9K2")
def test_ot_9k2_besieged_units_attack_only_their_hex() -> None:
    g = game_with(
        options={"siege": True},
        pieces=[
            division("f1", "France", "0503"),
            division("g1", "Germany", "0503"),
            division("g2", "Germany", "0603"),
        ],
        control={EN: [], CP: [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 7)]},
    )
    gw(g)["sieges"] = {str(idx(g, "0503")): {"besieged": EN, "sieging": CP}}
    for _ in range(50):
        if pending(g) == "combat-segment":
            break
        acts = g.legal_actions(g.acting_sides()[0])
        g.apply(next(a for a in acts if a["type"] in ("end-phase", "done", "decline")))
    targets = {a["target"] for a in g.legal_actions(EN) if a["type"] == "attack"}
    assert targets == {"0503"}
    with pytest.raises(IllegalAction):
        g.apply({"type": "attack", "side": EN, "target": "0603", "attackers": ["f1"]})


@pytest.mark.rules("OT 9J")
def test_ot_9j_movement_into_contested_hexes() -> None:
    """No unit enters an enemy-occupied/contested hex; a non-infantry unit entering a contested hex
    by movement rolls on the Ground Success Table and is disrupted on a failure."""
    from .helpers import move, run_to

    g = game_with(
        pieces=[
            division("f1", "France", "0403"),
            division("f2", "France", "0402"),
            division("g1", "Germany", "0503", a=1, d=2),
        ]
    )
    run_to(g, "ground-movement", EN)
    combat_hexes.make_contested(g, idx(g, "0503"), CP)
    g.invalidate()
    with pytest.raises(IllegalAction, match="contested"):
        move(g, "f1", "0503")
    combat_hexes.make_contested(g, idx(g, "0303"), EN)
    g.invalidate()
    force_dice(g, [1])
    move(g, "f2", "0303")
    assert units.disruption(g.state.pieces["f2"]) == 1
