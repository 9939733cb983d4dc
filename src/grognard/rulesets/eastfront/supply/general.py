"""General Supply (EF 11.0, our design) with ports as limited sources (NM 26.25).

In its Supply Status Phase each of the phasing side's combat units on land traces a Supply
Line of at most ``rules.supply_range`` (5) land hexes, through no enemy-occupied hex and no
hex in an enemy zone of control that no friendly unit occupies (the unit's own hex and the
source's may be), to a friendly supply source (a place of kind ``supply-source`` with
``attrs.side``: unlimited), to an MSU spent this phase (unlimited, NM 30.4), or to a friendly
port. A port supplies at most its General Supply capacity in stacking points (NM 26.25,
reduced and doubled as in :mod:`..naval.capacity`); units are given to ports nearest first,
then by id. A unit that gets no supply is marked ``oos``; one that can trace to no port and no
source at all (spent MSUs do not count) is marked ``no-loc`` (EF 20.0, NM 30.4).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.eastfront.map.geography import is_land
from grognard.rulesets.eastfront.map.ports import is_port, ports
from grognard.rulesets.eastfront.map.zoc import zoc_hexes
from grognard.rulesets.eastfront.model import GroundAttrs, other, turn_no
from grognard.rulesets.eastfront.naval.capacity import supply_capacity
from grognard.rulesets.eastfront.scenario_model import rules
from grognard.rulesets.eastfront.units.kinds import is_combat, stacking_points

if TYPE_CHECKING:
    from grognard.core.game import Game


def sources(g: Game, side: str) -> list[int]:
    """The hexes of ``side``'s supply sources (EF 11.0)."""
    out = []
    for i, plist in sorted(g.board.points.items()):
        if any(pt.kind == "supply-source" and pt.attrs.get("side") == side for pt in plist):
            out.append(int(i))
    return out


@implements("EF 11.0")
def trace_from(g: Game, side: str, starts: Iterable[int], reach: int) -> dict[int, int]:
    """EF 11.0: the land hexes a Supply Line of at most ``reach`` hexes joins to ``starts``,
    with its length (searched from the sources outwards)."""
    enemy = other(side)
    zoc = zoc_hexes(g, enemy)
    occupied_by: dict[int, set[str]] = {}
    for p in g.state.pieces.values():
        if p.loc.kind == "hex":
            occupied_by.setdefault(int(p.loc.ref), set()).add(p.side)
    dist: dict[int, int] = {}
    todo: deque[int] = deque()
    for s in starts:
        if enemy not in occupied_by.get(s, set()):
            dist[s] = 0
            todo.append(s)
    while todo:
        i = todo.popleft()
        if dist[i] >= reach:
            continue
        if i in zoc and side not in occupied_by.get(i, set()) and dist[i] > 0:
            continue  # a line may end in an enemy zone of control, not pass through one
        for j in g.board.neighbors(i):
            if j in dist or not is_land(g, j) or enemy in occupied_by.get(j, set()):
                continue
            dist[j] = dist[i] + 1
            todo.append(j)
    return dist


@implements("EF 11.0", "NM 26.25")
def supply_status(g: Game, side: str, spent_msus: Iterable[int] = ()) -> dict[str, str]:
    """EF 11.0 / NM 26.25: ``{unit id: status}`` for ``side``'s combat units on land: ``ok``,
    ``no-loc-ok`` (supplied by a spent MSU only), ``oos`` (no supply, but a line of
    communication) or ``no-loc`` (neither)."""
    reach = rules(g).supply_range
    units = [
        p
        for p in sorted(g.state.of_side(side), key=lambda q: q.id)
        if p.loc.kind == "hex" and is_combat(g, p) and is_land(g, int(p.loc.ref))
    ]
    free = trace_from(g, side, sources(g, side) + list(spent_msus), reach)
    loc_free = trace_from(g, side, sources(g, side), reach)
    friendly = [pt for pt in ports(g) if pt.hex is not None and is_port(g, pt)]
    port_dist = {
        pt.name: trace_from(g, side, [pt.hex], reach) for pt in friendly if pt.hex is not None
    }
    room = {pt.name: supply_capacity(g, pt, side) for pt in friendly}
    out: dict[str, str] = {}
    wanting: list[tuple[int, str, str]] = []
    for p in units:
        i = int(p.loc.ref)
        has_loc = i in loc_free or any(
            i in port_dist[pt.name] and pt.hex is not None and g.state.control.get(pt.hex) == side
            for pt in friendly
        )
        if i in free:
            out[p.id] = "ok" if has_loc else "no-loc-ok"
            continue
        for pt in friendly:
            d = port_dist[pt.name].get(i)
            if d is not None and room[pt.name] > 0:
                wanting.append((d, p.id, pt.name))
        out[p.id] = "oos" if has_loc else "no-loc"
    for _, pid, name in sorted(wanting):
        if out[pid] in ("ok", "no-loc-ok"):
            continue
        sp = stacking_points(g, g.state.pieces[pid])
        if room[name] >= sp:
            room[name] -= sp
            out[pid] = "ok"
    return out


@implements("EF 11.0")
def mark_supply(g: Game, side: str, status: dict[str, str]) -> None:
    """EF 11.0: set the ``oos`` and ``no-loc`` flags of ``side``'s units."""
    for pid, st in status.items():
        p = g.state.pieces[pid]
        if GroundAttrs(p.attrs).assault_turn == turn_no(g):
            st = "ok"  # NM 30.21d: traced normally from the next Supply Status Phase
        p.status.discard("oos")
        p.status.discard("no-loc")
        if st in ("oos", "no-loc"):
            p.status.add("oos")
        if st in ("no-loc", "no-loc-ok"):
            p.status.add("no-loc")
    bad = sum(1 for v in status.values() if v in ("oos", "no-loc"))
    g.emit("supply", f"{side}: {bad} unit(s) out of General Supply", rule="EF 11.0")


def oos(p: Piece) -> bool:
    return "oos" in p.status
