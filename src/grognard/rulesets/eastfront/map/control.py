"""Control of hexes (EF 9.0) and the capture of ports (NM 26.27).

A land hex belongs to the side whose combat unit last entered it or was alone in it. When a
port hex changes hands its capture turn is recorded: a captured port may not be used for naval
movement or General Supply until the next turn (NM 26.27).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.eastfront.map.geography import is_land
from grognard.rulesets.eastfront.map.ports import port_at_hex
from grognard.rulesets.eastfront.model import PortRecord, ef, turn_no

if TYPE_CHECKING:
    from grognard.core.game import Game


def port_record(g: Game, name: str) -> PortRecord:
    """The play record of a port (created with every field on first use)."""
    ports = ef(g).raw()["ports"]
    if name not in ports:
        ports[name] = PortRecord.new()
    return PortRecord(ports[name])


@implements("EF 9.0", "NM 26.27")
def take_control(g: Game, i: int, side: str) -> None:
    """EF 9.0: ``side`` takes hex ``i``; a port changing hands is captured this turn (NM 26.27)."""
    if not is_land(g, i) or g.state.control.get(i) == side:
        return
    before = g.state.control.get(i)
    g.state.control[i] = side
    port = port_at_hex(g, i)
    if port is not None and before is not None:
        rec = port_record(g, port.name)
        rec.captured = turn_no(g)
        rec.owner = side
        g.emit("capture", f"{side} captures the port of {port.name}", rule="NM 26.27")


@implements("NM 26.27")
def captured_this_turn(g: Game, name: str) -> bool:
    """NM 26.27: a port captured this turn may not be used until the next turn."""
    rec = ef(g).ports.get(name)
    return rec is not None and rec.captured == turn_no(g) and rec.captured > 0
