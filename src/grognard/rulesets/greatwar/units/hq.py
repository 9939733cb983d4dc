"""OT 14M and 14N1: Army HQs and Corps HQs.

The Army HQs' active and inactive sides, zone of influence and the single activation check are in
:mod:`.special_units` (OT 14M1, 14M2); this module adds the HQs' attributes (OT 14M), the reaction
movement checks with leaders (OT 14P1) and coordination (advanced OT 14M3), and the Corps HQs'
attributes (OT 14N1).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar.mechanics import table_roll
from grognard.rulesets.greatwar.units import leaders, special_units, units
from grognard.rulesets.greatwar.units.nations import nationality

if TYPE_CHECKING:
    from grognard.core.game import Game

HQ_LOGISTICS_RE = Fraction(9)


@implements("OT 14M")
def army_hq_attributes(g: Game, hq: Piece) -> dict[str, Any]:
    """OT 14M: an Army HQs is non-motorized, of combat strength 0, 3 RE, has HE and an AA value
    (Intrinsic AA Summary: the face value ``aa``), carries up to 9 RE of logistics items (OT 11H2),
    has no ZOC even in its hex, never counts against stacking, may not advance after combat, tires
    like cavalry (OT 6B4), is ignored when losses are taken and eliminated when no friendly unit is
    left in its hex after a combat (OT 9D)."""
    return {
        "re": units.re_size(g, hq),
        "he": units.has_he(g, hq),
        "aa": hq.faces.get(hq.face, {}).get("aa", 0),
        "logistics_capacity": HQ_LOGISTICS_RE,
        "zoc": units.utype(hq).zoc,
        "stacking": units.utype(hq).stacking,
        "attack": units.printed_attack(hq),
        "defense": units.printed_defense(hq),
    }


@implements("OT 14M")
def hq_stack_problem(g: Game, movers: Sequence[Piece], dest: int) -> str | None:
    """OT 14M: Army HQs of different nationalities may not stack together."""

    hqs = [p for p in movers if special_units.is_army_hq(p)]
    if not hqs:
        return None
    here = [
        p
        for p in units.units_in_hex(g, dest, hqs[0].side)
        if special_units.is_army_hq(p) and p not in movers
    ]
    nats = {nationality(g, p) for p in [*hqs, *here]}
    if len(nats) > 1:
        return (
            f"Army HQs of different nationalities ({', '.join(sorted(nats))}) may not stack"
            " together (OT 14M)"
        )
    return None


@implements("OT 14M")
def eliminated_alone(g: Game, hq: Piece) -> bool:
    """OT 14M / 9D: after a combat an Army HQs (or Corps HQs) with no friendly unit left in its hex
    is
    eliminated (the combat rules call this for the hexes of the combat)."""
    h = units.hex_of(g, hq)
    if h is None:
        return False
    others = [
        q
        for q in units.units_in_hex(g, h, hq.side)
        if q.id != hq.id and not special_units.is_army_hq(q) and not special_units.is_corps_hq(q)
    ]
    return not others


@implements("OT 14M1", "OT 14M2", "OT 14M3", "OT 14P1")
def check_hqs(g: Game, hqs: Sequence[Piece], leader: Piece | None = None) -> bool:
    """The reaction-movement activation check of one Army HQs, or (OT 14M3, advanced option
    ``hq-coordination``) one check for several HQs coordinating: a Ground Success Table roll with
    the
    nation/scenario modifiers (Rules 41, 42B; for a coordination the worst of the HQs'), -1 if an
    HQs is disrupted (OT 14M2), -1 for each HQs beyond the first (OT 14M3), and the rating a
    leader's roll selects (OT 14P1). Success: all stay active; failure: all turn inactive."""
    mods = Modifiers()
    rules = g.scenario.rules
    table = getattr(rules, "hq_activation_modifiers", {}) if rules is not None else {}
    nat = [int(table[h.nation]) for h in hqs if h.nation in table]
    if nat:
        mods.add(min(nat), "OT 14M1", "nation/scenario activation modifier")
    if any(units.disruption(h) > 0 for h in hqs):
        mods.add(-1, "OT 14M2", "disrupted Army HQs")
    if len(hqs) > 1:
        mods.add(-(len(hqs) - 1), "OT 14M3", f"{len(hqs)} HQs coordinating")
    if leader is not None:
        v = leaders.activation_modifier(g, hqs, leader)
        if v:
            mods.add(v, "OT 14P1", f"leader {leader.id}")
    names = ", ".join(h.id for h in hqs)
    res = table_roll(g, "gst", "standard", f"activation check of {names}", "OT 14M1", mods)
    ok = str(res.result).startswith("S")
    g.emit(
        "activation",
        f"{names}: activation check {res.result} ({'stay active' if ok else 'become inactive'})",
        rule="OT 14M1",
        pieces=[h.id for h in hqs],
        result=res.result,
    )
    if not ok:
        for h in hqs:
            special_units.set_hq_active(g, h, False)
    return ok


@implements("OT 14N1")
def corps_hq_attributes(g: Game, hq: Piece) -> dict[str, Any]:
    """OT 14N1: a Corps HQs is non-motorized, of combat strength 0, 1 RE, moves at the rating of the
    slowest unit in its box (8 alone: ``special_units.modified_ma``), has no HE, no AA value and no
    ZOC, and never counts against stacking. It helps stacking and regulates overstacking (OT 8C)."""
    return {
        "re": units.re_size(g, hq),
        "he": units.has_he(g, hq),
        "zoc": units.utype(hq).zoc,
        "stacking": units.utype(hq).stacking,
        "move": special_units.modified_ma(g, hq, units.printed_move(hq)),
        "attack": units.printed_attack(hq),
    }
