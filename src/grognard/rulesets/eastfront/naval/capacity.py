"""Port capacities (NM 26.24-26.26, NM 28.2, NM 32.2) from the Port Characteristics Chart.

The chart (``data/tables/port-chart.toml``, provisional) gives per port category the load and
unload capacity in Naval Transport Points per turn, the General Supply capacity in stacking
points, the listed interdiction reduction, the Naval Base multiplier and the naval unit types
allowed. Reductions (NM 26.26): interdiction (the listed amount at Level 1, double at Level
2) on every capacity; enemy artillery in General Supply within range, one per support point up
to six, on the General Supply capacity only (the digest's reading of the example); with an
enemy combat unit adjacent and no friendly ground unit in the port hex, nothing at all. They
add up, never below zero, and a Naval Base doubles what is left (from the turn after it is
placed). Evacuation (NM 28.2) then doubles loading, stops unloading and ends General Supply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.eastfront.air.zones import interdiction_level
from grognard.rulesets.eastfront.data import table
from grognard.rulesets.eastfront.map.control import captured_this_turn, port_record
from grognard.rulesets.eastfront.map.ports import Port, is_port, owner
from grognard.rulesets.eastfront.model import GroundAttrs, ef, other, turn_no
from grognard.rulesets.eastfront.naval.units import art_range
from grognard.rulesets.eastfront.units.kinds import is_artillery, is_combat, is_ground

if TYPE_CHECKING:
    from grognard.core.game import Game

ARTILLERY_CAP = 6  # NM 26.26b


def chart(g: Game, port: Port, row: int) -> int | str:
    """One value of the Port Characteristics Chart (rows in the module docstring)."""
    value = table(g, "port-chart").lookup(port.category, row).result
    return value if isinstance(value, str) else int(value)


@implements("NM 26.23")
def allows_type(g: Game, port: Port, ship_type: str) -> bool:
    """NM 26.23: the naval unit types a port of this category may hold."""
    return ship_type in str(chart(g, port, 5)).split()


@implements("NM 32.2")
def naval_base(g: Game, port: Port, side: str) -> Piece | None:
    """NM 32.2: a friendly Naval Base in the port hex placed before this turn (it increases the
    capacity from the turn after its placement)."""
    if port.hex is None:
        return None
    for p in g.state.at_hex(port.hex):
        if (
            p.type == "naval-base"
            and p.side == side
            and GroundAttrs(p.attrs).placed_turn < turn_no(g)
        ):
            return p
    return None


def evacuating(g: Game, port: Port) -> bool:
    """NM 28.2: a Naval Evacuation marker is on the port."""
    rec = ef(g).ports.get(port.name)
    return rec is not None and rec.evacuation in ("declared", "complete")


@implements("NM 26.26")
def artillery_reduction(g: Game, port: Port, side: str) -> int:
    """NM 26.26b: one per support point of enemy artillery in General Supply within range of
    the port hex, at most six."""
    if port.hex is None:
        return 0
    pts = 0
    for p in g.state.of_side(other(side)):
        if p.loc.kind != "hex" or not is_artillery(g, p) or "oos" in p.status:
            continue
        if g.board.distance(int(p.loc.ref), port.hex) <= art_range(p):
            pts += int(p.stat("support", 0))
    return min(ARTILLERY_CAP, pts)


@implements("NM 26.26")
def cut_off(g: Game, port: Port, side: str) -> bool:
    """NM 26.26c: an enemy combat unit adjacent and no friendly ground unit in the port hex."""
    if port.hex is None:
        return False
    enemy_near = any(
        q.side != side and is_combat(g, q)
        for j in g.board.neighbors(port.hex)
        for q in g.state.at_hex(j)
    )
    if not enemy_near:
        return False
    return not any(q.side == side and is_ground(g, q) for q in g.state.at_hex(port.hex))


@implements("NM 26.26", "NM 32.2")
def net_capacity(g: Game, port: Port, side: str, row: int) -> int:
    """NM 26.26: the capacity of chart row ``row`` (1: NTP, 2: General Supply) after the
    reductions, never below 0, doubled by a Naval Base (NM 26.26d, NM 32.2)."""
    if not is_port(g, port) or cut_off(g, port, side):
        return 0
    value = int(chart(g, port, row))
    listed = int(chart(g, port, 3))
    if port.hex is not None:
        value -= listed * interdiction_level(g, port.hex, other(side))
    if row == 2:
        value -= artillery_reduction(g, port, side)
    value = max(0, value)
    if naval_base(g, port, side) is not None:
        value *= int(chart(g, port, 4))
    return value


@implements("NM 26.25", "NM 28.2", "NM 26.27")
def supply_capacity(g: Game, port: Port, side: str) -> int:
    """NM 26.25: the stacking points of ground units a friendly port supplies: none while it is
    evacuated (NM 28.2c) or in the turn of its capture (NM 26.27)."""
    if owner(g, port) != side or evacuating(g, port) or captured_this_turn(g, port.name):
        return 0
    return net_capacity(g, port, side, 2)


def _budget(g: Game, port: Port) -> tuple[int, int]:
    """NM 26.24: NTP loaded and unloaded at the port this turn."""
    rec = ef(g).ports.get(port.name)
    if rec is None or rec.turn != turn_no(g):
        return 0, 0
    return rec.loaded, rec.unloaded


@implements("NM 26.24", "NM 28.2")
def load_room(g: Game, port: Port, side: str) -> int:
    """NM 26.24: NTP that may still be loaded this turn: one budget shared by loading and
    unloading; an evacuated port loads twice its capacity (NM 28.2a)."""
    cap = net_capacity(g, port, side, 1)
    if evacuating(g, port):
        cap *= 2
    loaded, unloaded = _budget(g, port)
    return max(0, cap - loaded - unloaded)


@implements("NM 26.24", "NM 28.2")
def unload_room(g: Game, port: Port, side: str) -> int:
    """NM 26.24: NTP that may still be unloaded this turn (none at an evacuated port,
    NM 28.2b)."""
    if evacuating(g, port):
        return 0
    loaded, unloaded = _budget(g, port)
    return max(0, net_capacity(g, port, side, 1) - loaded - unloaded)


@implements("NM 26.24")
def use_capacity(g: Game, port: Port, points: int, loading: bool) -> None:
    """NM 26.24: spend ``points`` NTP of the port's budget for this turn."""
    rec = port_record(g, port.name)
    if rec.turn != turn_no(g):
        rec.turn = turn_no(g)
        rec.loaded = 0
        rec.unloaded = 0
    if loading:
        rec.loaded += points
    else:
        rec.unloaded += points
