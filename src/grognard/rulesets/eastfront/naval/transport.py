"""Naval transport (NM 28.0-28.12): what a naval unit carries and when units load and unload.

Capacity points (NM 28.11): one per non-motorized stacking point, per zero-stacking-point unit,
per HQ, per Attack Supply Point (a Dump is its points); two per motorized stacking point. One
naval unit carries each ground unit: capacities never combine. Port capacity is spent in NTP
equal to the capacity points moved (the digest's reading, 6.1 #14). Loading (NM 28.12a): the
unit and its carrier begin the phase together in a friendly port (at an evacuation port the
unit may first move there overland, NM 28.2e); motorized units load in either movement phase,
non-motorized units in the Movement Phase, or in the Motorized Movement Phase when activated
for port-to-port transport (EF 8.54a) or, Soviet units, for an Amphibious Assault; Axis units
load for an Amphibious Assault in the Movement Phase. Unloading (NM 28.12e/f) is at a friendly
port, within stacking and the port's unloading capacity; what does not fit stays aboard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.rulesets.eastfront.map.control import captured_this_turn
from grognard.rulesets.eastfront.map.ports import Port, ground_port, owner
from grognard.rulesets.eastfront.model import (
    AXIS,
    SOVIET,
    GroundAttrs,
    ef,
    turn_no,
)
from grognard.rulesets.eastfront.naval.capacity import (
    evacuating,
    load_room,
    unload_room,
    use_capacity,
)
from grognard.rulesets.eastfront.naval.units import afloat, capacity, cargo, is_ready, port_of
from grognard.rulesets.eastfront.units.kinds import (
    is_combat,
    is_ground,
    is_hq,
    is_naval,
    kind,
    motorized,
    stacking_points,
)
from grognard.rulesets.eastfront.units.stacking import fits

if TYPE_CHECKING:
    from grognard.core.game import Game

RULE = "NM 28.12"


@implements("NM 28.11")
def capacity_cost(g: Game, p: Piece) -> int | None:
    """NM 28.11: the capacity points a ground unit needs (None: it cannot be carried)."""
    if not is_ground(g, p) or not kind(g, p).transportable:
        return None
    if is_hq(p):
        return 1
    if p.type == "dump":
        return max(1, int(p.stat("asp", 0)))
    sp = stacking_points(g, p)
    if sp == 0:
        return 1
    return 2 * sp if motorized(g, p) else sp


def used(g: Game, ship: Piece) -> int:
    return sum(capacity_cost(g, q) or 0 for q in cargo(g, ship))


@implements("NM 28.11", "NM 28.1")
def carry_problem(g: Game, ship: Piece, p: Piece) -> str | None:
    """NM 28.11: why ``ship`` cannot carry ``p`` (None: it can). One naval unit must take the
    whole unit: capacities never combine."""
    cost = capacity_cost(g, p)
    if cost is None:
        return f"{p.name or p.id} cannot be carried by sea"
    if capacity(ship) <= 0:
        return f"{ship.name or ship.id} has no transport capacity"
    if used(g, ship) + cost > capacity(ship):
        return (
            f"{ship.name or ship.id} has {capacity(ship) - used(g, ship)} capacity points left,"
            f" {p.name or p.id} needs {cost} (naval units cannot combine to carry a unit)"
        )
    return None


@implements("NM 30.21")
def assault_eligible(g: Game, p: Piece) -> str | None:
    """NM 30.21a/b: why ``p`` may not make an Amphibious Assault (None: it may): only
    non-motorized infantry, mountain, airborne and engineer units, and not a unit that left by
    evacuation and has not landed at a port since."""
    if not is_combat(g, p) or not kind(g, p).amphibious or motorized(g, p):
        return "only non-motorized infantry, mountain, airborne and engineer units assault"
    if GroundAttrs(p.attrs).evacuated:
        return "it left a port by evacuation and must land at a port first"
    return None


@implements("NM 28.12", "NM 28.1", "EF 8.54a", "NM 28.2")
def load_problem(g: Game, p: Piece, ship: Piece, amphibious: bool, phase: str) -> str | None:
    """NM 28.12a: why ``p`` may not load on ``ship`` in a ``phase`` movement phase (None: it
    may).

    Rules: NM 28.12, NM 28.1, EF 8.54a, NM 28.2.
    """
    rec = ef(g).move
    if phase not in ("movement", "motorized"):
        return "loading happens only in a friendly movement phase"
    if not is_naval(g, ship) or ship.side != p.side or not afloat(g, ship):
        return f"{ship.id} is not one of your naval units afloat"
    port = port_of(g, ship)
    if port is None:
        return f"{ship.name or ship.id} is not in port: loading happens in port (NM 26.3)"
    if owner(g, port) != p.side or captured_this_turn(g, port.name):
        return f"{port.name} is not a friendly port usable this turn"
    if ground_port(g, p.loc) is not port:
        return f"{p.name or p.id} is not in {port.name}"
    if not is_ready(ship) or ship.id in rec.sailed:
        return f"{ship.name or ship.id} must be Ready and not have moved this phase"
    if p.id in rec.transported:
        return f"{p.name or p.id} has already been loaded or unloaded this phase"
    if p.id in rec.moved and not evacuating(g, port):
        return "the unit and its carrier must begin the phase together in the port"
    if GroundAttrs(p.attrs).dnm:
        return f"{p.name or p.id} has a Do Not Move marker"
    if amphibious:
        why = assault_eligible(g, p)
        if why:
            return why
        if p.side == SOVIET and phase != "motorized":
            return "Soviet units load for an Amphibious Assault in the Motorized Movement Phase"
        if p.side == AXIS and phase != "movement":
            return "Axis units load for an Amphibious Assault in the Movement Phase"
        if p.side == AXIS and not axis_assault_command(g, port):
            return "Axis units are activated for an Amphibious Assault by an HQ in range"
    elif (
        phase == "motorized"
        and not motorized(g, p)
        and (p.side != SOVIET or "activated" not in p.status)
    ):
        return (
            "a non-motorized unit loads in the Motorized Movement Phase only when a Soviet"
            " HQ has activated it for port-to-port transport (EF 8.54a)"
        )
    why = carry_problem(g, ship, p)
    if why:
        return why
    cost = capacity_cost(g, p) or 0
    if load_room(g, port, p.side) < cost:
        return f"{port.name} has {load_room(g, port, p.side)} NTP left to load, {cost} needed"
    return None


@implements("NM 30.21")
def axis_assault_command(g: Game, port: Port) -> bool:
    """NM 30.21c: Soviet assault units are activated without an HQ; Axis ones need an
    Operational Axis HQ with the port in its command range (EF 10.25)."""
    if port.hex is None:
        return False
    for q in g.state.of_side(AXIS):
        if (
            is_hq(q)
            and q.loc.kind == "hex"
            and q.face != "non-op"
            and g.board.distance(int(q.loc.ref), port.hex) <= int(q.stat("command", 0))
        ):
            return True
    return False


@implements("NM 28.12", "NM 28.2", "NM 30.21")
def load(g: Game, p: Piece, ship: Piece, amphibious: bool) -> None:
    """NM 28.12b: put ``p`` aboard ``ship``; at an evacuation port it gets a Do Not Move 2
    marker and an HQ turns Non-Op (NM 28.2); a Soviet unit loading for an assault is Activated
    without an HQ (NM 30.21c)."""
    port = port_of(g, ship)
    assert port is not None
    cost = capacity_cost(g, p) or 0
    g.state.move(p.id, Loc.inside(ship.id))
    use_capacity(g, port, cost, loading=True)
    ef(g).move.transported.append(p.id)
    if amphibious:
        p.status.add("amphibious")
        p.status.add("activated")
    elif ef(g).phase == "motorized" and not motorized(g, p):
        p.status.add("port-to-port")
    if evacuating(g, port):
        rec = GroundAttrs(p.attrs)
        rec.dnm = 2
        rec.dnm_turn = 0
        rec.evacuated = True
        if is_hq(p) and "non-op" in p.faces:
            p.face = "non-op"
    g.emit(
        "load",
        f"{p.name or p.id} boards {ship.name or ship.id} at {port.name}",
        rule=RULE,
        visible_to=[p.side],
        others=f"a unit boards {ship.name or ship.id} at {port.name}",
    )


@implements("NM 28.12", "NM 32.2")
def unload_problem(g: Game, p: Piece, phase: str, arriving: bool = False) -> str | None:
    """NM 28.12e: why ``p`` may not be unloaded now (None: it may); ``arriving``: at the end of
    its carrier's move.

    Rules: NM 28.12, NM 32.2.
    """
    if p.loc.kind != "piece":
        return f"{p.name or p.id} is not aboard a naval unit"
    ship = g.state.pieces[str(p.loc.ref)]
    port = port_of(g, ship)
    if port is None or owner(g, port) != p.side:
        return "units are unloaded in a friendly port"
    if phase not in ("movement", "motorized"):
        return "units are unloaded in a friendly movement phase"
    if evacuating(g, port):
        return f"{port.name} is being evacuated: it only loads (NM 28.2b)"
    if p.id in ef(g).move.transported and not arriving:
        return f"{p.name or p.id} was loaded this phase"
    if "port-to-port" in p.status and phase == "motorized":
        return "a unit activated for port-to-port transport unloads in the Movement Phase"
    if port.hex is not None and not fits(g, p, port.hex):
        return f"{port.name} has no stacking room left"
    if (
        p.type == "naval-base"
        and port.hex is not None
        and any(q.type == "naval-base" for q in g.state.at_hex(port.hex))
    ):
        return f"{port.name} already has its one Naval Base (NM 32.2)"
    cost = capacity_cost(g, p) or 0
    if unload_room(g, port, p.side) < cost:
        return f"{port.name} has {unload_room(g, port, p.side)} NTP left to unload, {cost} needed"
    return None


@implements("NM 28.12", "NM 28.2", "NM 30.21", "NM 32.2")
def unload(g: Game, p: Piece) -> Port:
    """NM 28.12e: put ``p`` ashore in its carrier's port. It cannot spend movement points in
    this phase (NM 28.12f); an MSU or Dump may be used from the next phase (NM 28.12g); an
    evacuated unit has landed at a port (NM 30.21b) and its Do Not Move count starts; a Naval
    Base is placed (NM 32.2).

    Rules: NM 28.12, NM 28.2, NM 30.21, NM 32.2.
    """
    ship = g.state.pieces[str(p.loc.ref)]
    port = port_of(g, ship)
    assert port is not None
    cost = capacity_cost(g, p) or 0
    g.state.move(p.id, port.ground_loc)
    use_capacity(g, port, cost, loading=False)
    rec = ef(g).move
    rec.transported.append(p.id)
    attrs = GroundAttrs(p.attrs)
    attrs.unloaded_phase = ef(g).phase_no
    if attrs.evacuated:
        attrs.evacuated = False
    if attrs.dnm and not attrs.dnm_turn:
        attrs.dnm_turn = turn_no(g)
    if p.type == "naval-base":
        attrs.placed_turn = turn_no(g)
    p.status.discard("amphibious")
    p.status.discard("port-to-port")
    g.emit("unload", f"{p.name or p.id} lands at {port.name}", rule=RULE)
    return port


@implements("NM 28.12")
def unload_all(g: Game, ship: Piece, phase: str) -> None:
    """NM 28.12e/f: unload what fits at the end of the move; the rest stays aboard until a later
    friendly movement phase."""
    for q in cargo(g, ship):
        why = unload_problem(g, q, phase, arriving=True)
        if why is None:
            unload(g, q)
        else:
            g.emit(
                "unload",
                f"{q.name or q.id} stays aboard {ship.name or ship.id}: {why}",
                rule="NM 28.12",
                visible_to=[q.side],
            )


@implements("NM 28.12")
def supply_usable(g: Game, p: Piece) -> bool:
    """NM 28.12g: an MSU or Dump aboard may not be used; once unloaded it may be used from the
    next phase of the same player turn. One landed by special transport may be used at once
    (NM 30.4)."""
    if p.loc.kind != "hex":
        return False
    if "special" in p.status:
        return True
    unloaded = GroundAttrs(p.attrs).unloaded_phase
    return not unloaded or ef(g).phase_no > unloaded
