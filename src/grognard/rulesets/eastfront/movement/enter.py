"""What happens when a ground unit enters a hex, however it moves (EF 9.0, NM 26.12b, NM 28.2):
a combat unit takes control of a land hex (and captures a port, NM 26.27); a combat unit
entering a port hex forces the enemy naval units there out to sea (NM 26.12b) and completes
an enemy evacuation there (NM 28.2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.eastfront.map.control import take_control
from grognard.rulesets.eastfront.map.ports import port_at_hex
from grognard.rulesets.eastfront.model import ef
from grognard.rulesets.eastfront.naval.evacuation import complete
from grognard.rulesets.eastfront.naval.sortie import trigger
from grognard.rulesets.eastfront.units.kinds import is_combat

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("EF 9.0", "NM 26.12", "NM 28.2")
def entered(g: Game, p: Piece, i: int) -> None:
    """A ground unit ``p`` has just entered hex ``i`` (see the module docstring).

    Rules: EF 9.0, NM 26.12, NM 28.2.
    """
    if not is_combat(g, p):
        return
    port = port_at_hex(g, i)
    if port is not None and g.state.control.get(i) not in (None, p.side):
        rec = ef(g).ports.get(port.name)
        if rec is not None and rec.evacuation == "declared":
            complete(g, port, "an enemy combat unit entered the port")
    take_control(g, i, p.side)
    if port is not None:
        trigger(g, port, p.side)
