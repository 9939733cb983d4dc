"""The forced sortie (NM 26.12b).

When an enemy combat unit enters a port hex during its Movement or Reaction Movement, or its
advance or retreat after combat, the naval units in that port (and the ground units aboard)
move at once into the port's sea zone. They are Ready at sea: a Sailed unit turns Ready and
its loss roll takes +3. The move is subject to the Naval Movement Loss Table, an Abort
counting as D1 (NM 27.32b).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.procedure import Procedure, stage
from grognard.core.record import LIST, Record
from grognard.core.rules import implements
from grognard.core.state import Frame, Loc
from grognard.rulesets.eastfront.map.ports import Port, naval_units_in, port_named
from grognard.rulesets.eastfront.model import other, params
from grognard.rulesets.eastfront.naval.coast import cd_strength
from grognard.rulesets.eastfront.naval.loss import loss_params
from grognard.rulesets.eastfront.naval.movement import nmi_covers
from grognard.rulesets.eastfront.naval.units import is_ready, set_sailed

if TYPE_CHECKING:
    from grognard.core.game import Game


class SortieRecord(Record):
    """The parameters of a forced sortie's frame."""

    port: str = ""
    side: str = ""  # the side whose naval units are forced out
    ships: list[str] = LIST
    sailed: list[str] = LIST  # those that were Sailed (+3 on their roll)
    next: int = 0  # the next ship to roll for


@implements("NM 26.12")
def trigger(g: Game, port: Port, entering_side: str) -> None:
    """NM 26.12b: an enemy combat unit has entered ``port``'s hex: push the sortie of the
    other side's naval units there."""
    ships = [p for p in naval_units_in(g, port) if p.side != entering_side]
    if not ships:
        return
    g.push(
        "forced-sortie",
        SortieRecord.new(port=port.name, side=ships[0].side, ships=[p.id for p in ships]),
    )


@implements("NM 26.12", "NM 26.11")
class ForcedSortie(Procedure):
    """NM 26.12b: stages: out to sea, then one loss roll per naval unit.

    Rules: NM 26.12, NM 26.11.
    """

    name = "forced-sortie"
    title = "Forced sortie"
    rule = "NM 26.12"

    @stage
    def out(self, g: Game, f: Frame) -> None:
        r = SortieRecord(params(f))
        zone = port_zone(g, r.port)
        for pid in r.ships:
            p = g.state.pieces[pid]
            if not is_ready(p):
                r.sailed.append(pid)
                set_sailed(g, p, False)
            g.state.move(pid, Loc.area(zone))
        g.emit(
            "sortie",
            f"the naval units in {r.port} put to sea in {zone} (forced sortie)",
            rule="NM 26.12",
        )

    @stage
    def losses(self, g: Game, f: Frame) -> object:
        r = SortieRecord(params(f))
        if r.next >= len(r.ships):
            return self.stop(f)
        pid = r.ships[r.next]
        r.next += 1
        port_hex = port_hex_of(g, r.port)
        cd = cd_strength(g, other(r.side), [port_hex] if port_hex is not None else [])
        g.push(
            "naval-loss",
            loss_params(
                [pid],
                r.side,
                cd,
                nmi_covers(g, [port_zone(g, r.port)]),
                forced=True,
                from_sailed=pid in r.sailed,
            ),
        )
        return self.again(f)


def port_zone(g: Game, name: str) -> str:
    return _port(g, name).zone


def port_hex_of(g: Game, name: str) -> int | None:
    return _port(g, name).hex


def _port(g: Game, name: str) -> Port:
    port = port_named(g, name)
    assert port is not None
    return port
