"""The end of a movement phase for naval units and flotillas, in stages (NM 27.1, NM 28.12,
NM 26.3, NM 29.1).

1. ``returns``: a naval unit that gave artillery support from sea and is still at sea at the
   end of its side's Movement Phase goes back to the nearest friendly port (NM 29.1), spending
   the NMP of that trip;
2. ``losses``: one Naval Movement Loss roll for each move (unit or Axis group) that spent at
   least one NMP, after every move of the phase (NM 27.1, NM 28.12d), and for each flotilla
   that moved through all-sea hexes or within range of enemy coast artillery (NM 32.1);
3. ``unload``: the ground units aboard units that ended in a friendly port go ashore as far as
   stacking and the port's capacity allow (NM 28.12e/f);
4. ``status``: naval units that moved and ended in a friendly port turn to their Sailed side
   (NM 26.3), except at an evacuation port (NM 28.2d).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.procedure import Procedure, stage
from grognard.core.rules import implements
from grognard.core.state import Frame, Piece
from grognard.rulesets.eastfront.map.geography import is_sea, zone_distances
from grognard.rulesets.eastfront.map.ports import owner, ports
from grognard.rulesets.eastfront.model import NavalAttrs, Sailing, ef
from grognard.rulesets.eastfront.naval.capacity import allows_type, evacuating
from grognard.rulesets.eastfront.naval.loss import loss_params
from grognard.rulesets.eastfront.naval.movement import Destination, sail, usable_port
from grognard.rulesets.eastfront.naval.transport import unload_all
from grognard.rulesets.eastfront.naval.units import afloat, port_of, sea_zone, set_sailed

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("NM 27.1", "NM 28.12", "NM 26.3")
class EndOfMovement(Procedure):
    """The closing stages of a movement phase (see the module docstring).

    Rules: NM 27.1, NM 28.12, NM 26.3.
    """

    name = "end-of-movement"
    title = "End of movement"
    rule = "NM 27.1"

    @stage
    def returns(self, g: Game, f: Frame) -> None:
        """NM 29.1: supporters from sea go back to port in their side's Movement Phase."""
        rec = ef(g).move
        if rec.kind != "movement":
            return
        side = ef(g).active
        for p in sorted(g.state.of_side(side), key=lambda q: q.id):
            if not NavalAttrs(p.attrs).supported or p.id in rec.sailed:
                continue
            if not afloat(g, p) or sea_zone(g, p) is None:
                NavalAttrs(p.attrs).supported = False
                continue
            dest = nearest_port(g, p)
            if dest is None:
                continue
            g.emit("return", f"{p.name or p.id} returns to port after its support", rule="NM 29.1")
            sail(g, [p], dest)
            NavalAttrs(p.attrs).supported = False

    @stage
    def losses(self, g: Game, f: Frame) -> object:
        """NM 27.1: the loss rolls, one frame at a time."""
        rec = ef(g).move
        side = ef(g).active if rec.kind != "reaction" else ""
        for k, s in enumerate(rec.sailings):
            if s.rolled:
                continue
            s.rolled = True
            alive = [i for i in s.ships if afloat(g, g.state.pieces[i])]
            if s.nmp < 1 or not alive:
                continue
            owner_side = g.state.pieces[alive[0]].side
            g.push(
                "naval-loss",
                loss_params(
                    alive,
                    owner_side or side,
                    s.cd,
                    s.air,
                    at_sea=not s.departure,
                    back=list(s.start) if s.departure else [],
                    sailing=k,
                ),
            )
            return self.again(f)
        for pid, fm in rec.flotillas.items():
            if fm.rolled:
                continue
            fm.rolled = True
            p = g.state.pieces.get(pid)
            if p is None or p.loc.kind != "hex" or not (fm.sea or fm.cd):
                continue
            began_at_sea = fm.start >= 0 and is_sea(g, fm.start)
            g.push(
                "naval-loss",
                loss_params(
                    [pid],
                    p.side,
                    fm.cd,
                    fm.sea,
                    at_sea=began_at_sea,
                    back=["hex", fm.start] if fm.start >= 0 and not began_at_sea else [],
                ),
            )
            return self.again(f)
        return None

    @stage
    def unload(self, g: Game, f: Frame) -> None:
        """NM 28.12e: ground units go ashore at friendly ports."""
        rec = ef(g).move
        for p in moved_ships(g, rec.sailings):
            port = port_of(g, p)
            if port is not None and owner(g, port) == p.side:
                unload_all(g, p, rec.kind)

    @stage
    def status(self, g: Game, f: Frame) -> None:
        """NM 26.3: turn to Sailed the naval units that moved and ended in a friendly port."""
        rec = ef(g).move
        if rec.kind == "motorized" and not g.opt("sail_after_motorized"):
            return
        for s in rec.sailings:
            returned = bool(s.departure) and s.dest == s.departure
            if returned and not g.opt("abort_return_sails"):
                continue
            for pid in s.ships:
                p = g.state.pieces[pid]
                port = port_of(g, p)
                if port is None or not afloat(g, p) or owner(g, port) != p.side:
                    continue
                if evacuating(g, port):
                    continue
                set_sailed(g, p, True)
                NavalAttrs(p.attrs).supported = False


def moved_ships(g: Game, sailings: list[Sailing]) -> list[Piece]:
    out: list[Piece] = []
    for s in sailings:
        for pid in s.ships:
            p = g.state.pieces[pid]
            if afloat(g, p) and p not in out:
                out.append(p)
    return out


@implements("NM 29.1")
def nearest_port(g: Game, p: Piece) -> Destination | None:
    """NM 29.1: the friendly port nearest to a naval unit at sea (fewest NMP, then name)."""
    zone = sea_zone(g, p)
    if zone is None:
        return None
    dist = zone_distances(g, zone)
    best: tuple[int, str] | None = None
    for port in ports(g):
        if port.zone not in dist or not usable_port(g, port, p.side):
            continue
        if not allows_type(g, port, p.type):
            continue
        key = (dist[port.zone], port.name)
        if best is None or key < best:
            best = key
    if best is None:
        return None
    port = next(q for q in ports(g) if q.name == best[1])
    return Destination(port.name, "port", port.zone, best[0], port=port)
