"""Naval movement (NM 26.0-26.14, NM 26.23, NM 26.27, NM 29.1, NM 30.22).

Naval units move zone to zone, from a port into its sea zone, or from a zone into a port next
to it, spending Naval Movement Points (NM 26.14): 1 to enter a zone (from a port or an
adjacent zone), 0 to end on an all-sea hex of the zone it is in, 0 to enter a port of that
zone. A move names its destination (a zone, a port or an all-sea hex); the route is the
cheapest one, and among those the one passing least enemy coast artillery (ties by zone
names). Each naval unit moves once per phase; the Soviet player moves them one at a time, the
Axis player may move a group that begins together (NM 26.12a).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.rulesets.eastfront.map.control import captured_this_turn
from grognard.rulesets.eastfront.map.geography import (
    coast_hexes_next_to,
    is_sea,
    is_shallow,
    mission_hexes,
    passage,
    zone_distances,
    zone_of,
    zone_shallow,
    zones,
)
from grognard.rulesets.eastfront.map.ports import Port, is_port, owner, ports
from grognard.rulesets.eastfront.model import AXIS, NavalAttrs, Sailing, ef, other
from grognard.rulesets.eastfront.naval.capacity import allows_type
from grognard.rulesets.eastfront.naval.coast import cd_strength
from grognard.rulesets.eastfront.naval.units import (
    afloat,
    cargo,
    is_ready,
    nmp,
    port_of,
    sea_hex,
    sea_zone,
)
from grognard.rulesets.eastfront.scenario_model import rules
from grognard.rulesets.eastfront.units.kinds import is_combat, is_naval

if TYPE_CHECKING:
    from grognard.core.game import Game

RULE = "NM 26.0"


@dataclass(frozen=True)
class Destination:
    """Where a naval move may end (NM 26.14) and what it costs."""

    label: str  # what the action names: a zone, a port, or an all-sea hex label
    kind: str  # "zone", "port" or "hex"
    zone: str  # the zone it ends in (a port: the zone it is adjacent to)
    cost: int  # Naval Movement Points
    port: Port | None = None
    hex: int | None = None

    @property
    def loc(self) -> Loc:
        if self.port is not None:
            return self.port.naval_loc
        if self.hex is not None:
            return Loc.hex(self.hex)
        return Loc.area(self.zone)


@implements("NM 26.11", "NM 26.14")
def start_of(g: Game, ship: Piece) -> tuple[str | None, int]:
    """NM 26.14: the zone a move starts from and what entering it costs (1 from a port, 0 at
    sea).

    Rules: NM 26.11, NM 26.14.
    """
    port = port_of(g, ship)
    if port is not None:
        return port.zone, 1
    return sea_zone(g, ship), 0


def amphibious_cargo(g: Game, ship: Piece) -> list[Piece]:
    """The combat units aboard ``ship`` loaded for an Amphibious Assault (NM 30.1)."""
    return [q for q in cargo(g, ship) if "amphibious" in q.status and is_combat(g, q)]


@implements("NM 26.12", "NM 26.13", "NM 26.23", "NM 26.27", "NM 29.1")
def destinations(g: Game, ships: list[Piece]) -> dict[str, Destination]:
    """Every legal end of a move by ``ships`` (beginning together): zones, friendly ports
    allowing their types (NM 26.23) and not captured this turn (NM 26.27), and all-sea hexes
    next to the coast, within the smallest allowance; never Shallow Water (NM 26.12d). A unit
    that gave artillery support from sea may only return to port (NM 29.1). HQ status plays no
    part: naval movement is under a different command (NM 26.13)."""
    lead = ships[0]
    start, entry = start_of(g, lead)
    if start is None or zone_shallow(g, start):
        return {}
    allowance = min(nmp(s) for s in ships)
    if allowance < entry:
        return {}
    side = lead.side
    must_return = any(NavalAttrs(s.attrs).supported for s in ships)
    here_port = port_of(g, lead)
    here_hex = sea_hex(g, lead)
    out: dict[str, Destination] = {}
    for z, d in zone_distances(g, start).items():
        cost = entry + d
        if cost > allowance:
            continue
        if not must_return:
            if not (here_port is None and here_hex is None and z == start):
                out[z] = Destination(z, "zone", z, cost)
            for i in mission_hexes(g, z):
                if i == here_hex:
                    continue
                label = g.board.label(i)
                out[label] = Destination(label, "hex", z, cost, hex=i)
        for port in ports(g):
            if port.zone != z or port is here_port or not usable_port(g, port, side):
                continue
            if all(allows_type(g, port, s.type) for s in ships):
                out[port.name] = Destination(port.name, "port", z, cost, port=port)
    return out


@implements("NM 26.25", "NM 26.27")
def usable_port(g: Game, port: Port, side: str) -> bool:
    """A friendly port naval units may use now: a true port (NM 26.25c), not captured this turn
    (NM 26.27)."""
    return is_port(g, port) and owner(g, port) == side and not captured_this_turn(g, port.name)


def destination(g: Game, ships: list[Piece], to: str) -> Destination | None:
    """The destination named ``to`` (any all-sea hex of a reachable zone counts, listed or
    not)."""
    found = destinations(g, ships).get(to)
    if found is not None or not g.board.has_label(to):
        return found
    i = g.board.idx(to)
    if not is_sea(g, i) or is_shallow(g, i) or sea_hex(g, ships[0]) == i:
        return None
    z = zone_of(g, i)
    if z is None:
        return None
    as_zone = destinations(g, ships).get(z)
    if as_zone is None:
        start, entry = start_of(g, ships[0])
        if start != z or any(NavalAttrs(s.attrs).supported for s in ships):
            return None
        return Destination(to, "hex", z, entry, hex=i)
    return Destination(to, "hex", z, as_zone.cost, hex=i)


@implements("NM 27.2", "NM 30.3")
def exposure(
    g: Game, ship: Piece, dest: Destination, path: list[str], start: str | None
) -> list[int]:
    """NM 27.2b: the hexes of a move where enemy coast artillery matters: where it begins (a
    port hex or an all-sea hex), the passages between the zones it crosses, its destination
    hex.

    Rules: NM 27.2, NM 30.3.
    """
    hexes: list[int] = []
    here_port = port_of(g, ship)
    if here_port is not None and here_port.hex is not None:
        hexes.append(here_port.hex)
    here = sea_hex(g, ship)
    if here is not None:
        hexes.append(here)
    prev = start
    for z in path:
        if prev is not None:
            hexes.extend(passage(g, prev, z))
        prev = z
    if dest.port is not None and dest.port.hex is not None:
        hexes.append(dest.port.hex)
    if dest.hex is not None:
        hexes.append(dest.hex)
    return hexes


def best_route(
    g: Game, ships: list[Piece], dest: Destination, start: str | None
) -> tuple[list[str], int]:
    """The route (zones entered) and the enemy CD points reaching it (NM 30.3)."""
    side = ships[0].side
    defenders = (
        coast_hexes_next_to(g, dest.hex)
        if dest.hex is not None and any(amphibious_cargo(g, s) for s in ships)
        else []
    )
    if start is None:
        return [], 0
    first_entry = [] if start_of(g, ships[0])[1] == 0 else [start]
    best: tuple[int, list[str]] | None = None
    for path in _routes(g, start, dest.zone):
        entered = first_entry + path
        cd = cd_strength(g, other(side), exposure(g, ships[0], dest, path, start), defenders)
        if best is None or (cd, entered) < (best[0], best[1]):
            best = (cd, entered)
    assert best is not None
    return best[1], best[0]


def _routes(g: Game, start: str, end: str) -> list[list[str]]:
    dist = zone_distances(g, start)
    n = dist.get(end)
    if n is None:
        return []
    if n == 0:
        return [[]]
    out = []
    for mid in itertools.product(zones(g), repeat=n - 1):
        path = [start, *mid, end]
        if all(zone_distances(g, a).get(b) == 1 for a, b in itertools.pairwise(path)):
            out.append(path[1:])
    return out


def nmi_covers(g: Game, entered: list[str]) -> bool:
    """NM 31.1: the Naval Movement Interdiction Box covers one of the zones entered (the
    scenario's ``rules.nmi_zones``; empty: every zone)."""
    covered = rules(g).nmi_zones
    return bool(entered) and (not covered or any(z in covered for z in entered))


@implements("NM 26.12", "NM 26.14", "NM 30.22", "NM 29.1", "NM 26.13")
def check_sail(g: Game, side: str, ships: list[Piece], to: str) -> Destination:
    """NM 26.12: may ``ships`` sail to ``to`` now? Returns the destination or raises.

    Rules: NM 26.12, NM 26.14, NM 30.22, NM 29.1, NM 26.13.
    """
    check_ships(g, side, ships)
    dest = destination(g, ships, to)
    if dest is None:
        raise IllegalAction(
            "NM 26.14",
            f"{to!r} is not a place these naval units can reach this phase (a friendly port"
            " of an allowed type, a sea zone or an all-sea hex within their allowance)",
        )
    check_placement(g, ships, dest)
    return dest


@implements("NM 26.12", "NM 25.3", "NM 26.27", "NM 30.24")
def check_ships(g: Game, side: str, ships: list[Piece]) -> None:
    """NM 26.12: may these naval units move now (wherever to)? Raises if not.

    Rules: NM 26.12, NM 25.3, NM 26.27, NM 30.24.
    """
    rec = ef(g).move
    if not ships:
        raise IllegalAction(RULE, "name the naval unit(s) to move")
    if len({s.id for s in ships}) != len(ships):
        raise IllegalAction(RULE, "a naval unit is named twice")
    for s in ships:
        if s.side != side or not is_naval(g, s):
            raise IllegalAction(RULE, f"{s.id} is not one of your naval units")
        if not afloat(g, s) or (port_of(g, s) is None and sea_zone(g, s) is None):
            raise IllegalAction(RULE, f"{s.id} is neither in port nor at sea")
        if not is_ready(s):
            raise IllegalAction("NM 25.3", f"{s.id} is Sailed: only Ready naval units move")
        if s.id in rec.sailed:
            raise IllegalAction("NM 26.14", f"{s.id} has already moved this phase")
        if "assaulted" in s.status:
            raise IllegalAction(
                "NM 30.24", f"{s.id} carried an Amphibious Assault: no more movement this turn"
            )
    if len(ships) > 1:
        if side != AXIS:
            raise IllegalAction("NM 26.12", "the Soviet player moves naval units one at a time")
        if len({tuple(s.loc) for s in ships}) != 1:
            raise IllegalAction("NM 26.12", "a group must begin together at the same location")
    port = port_of(g, ships[0])
    if port is not None and captured_this_turn(g, port.name):
        raise IllegalAction("NM 26.27", f"{port.name} was captured this turn")


@implements("NM 30.22")
def check_placement(g: Game, ships: list[Piece], dest: Destination) -> None:
    """NM 30.22a: one combat unit per phase readied for assault in one all-sea hex."""
    rec = ef(g).move
    if dest.kind == "hex":
        landing = sum(len(amphibious_cargo(g, s)) for s in ships)
        if landing and rec.placed.get(dest.label, 0) + landing > 1:
            raise IllegalAction(
                "NM 30.22", "only one combat unit per phase may be placed in an all-sea hex"
            )


@implements("NM 26.0", "NM 26.11", "NM 26.14")
def sail(g: Game, ships: list[Piece], dest: Destination) -> Sailing:
    """NM 26.0: move ``ships`` (and the ground units aboard, NM 26.11) to ``dest`` and record
    the move for its loss roll at the end of the phase (NM 27.1).

    Rules: NM 26.0, NM 26.11, NM 26.14.
    """
    rec = ef(g).move
    lead = ships[0]
    start, _ = start_of(g, lead)
    path, cd = best_route(g, ships, dest, start)
    here = port_of(g, lead)
    began_at_sea = here is None
    sailing = Sailing(
        Sailing.new(
            ships=[s.id for s in ships],
            start=list(lead.loc),
            departure=here.name if here is not None else "",
            nmp=dest.cost,
            zones=path,
            dest=dest.label,
            cd=cd,
            air=nmi_covers(g, path),
        )
    )
    for s in ships:
        g.state.move(s.id, dest.loc)
        rec.sailed.append(s.id)
    if dest.kind == "hex":
        landing = sum(len(amphibious_cargo(g, s)) for s in ships)
        if landing:
            rec.placed[dest.label] = rec.placed.get(dest.label, 0) + landing
    rec.raw()["sailings"].append(sailing.raw())
    names = ", ".join(s.name or s.id for s in ships)
    via = f" via {', '.join(path)}" if path else ""
    g.emit(
        "sail",
        f"{names} sail{'s' if len(ships) == 1 else ''} to {dest.label}{via}"
        f" ({dest.cost} NMP{'; at sea' if began_at_sea else ''})",
        rule=RULE,
    )
    return sailing


@implements("NM 30.22")
def assault_hexes(g: Game, side: str) -> set[int]:
    """NM 30.22b: the coastal hexes under Amphibious Assault by ``side``: those next to an
    all-sea hex where its naval units wait with units loaded for the assault."""
    out: set[int] = set()
    for s in g.state.of_side(side):
        if not is_naval(g, s):
            continue
        i = sea_hex(g, s)
        if i is not None and amphibious_cargo(g, s):
            out.update(coast_hexes_next_to(g, i))
    return out
