"""Ground movement (EF 7.0), reaction movement (EF 7.5) and flotilla movement (EF 22.41), our
design, with the module's limits on it (NM 25.2, NM 28.1a, NM 28.2, NM 30.22b, NM 30.24f).

A unit moves once per phase to any hex its movement points reach (data/terrain.toml costs,
motorized or not), never into an enemy-occupied hex, stopping on entering an enemy zone of
control (EF 6.0), and ending within stacking limits (EF 5.0). Motorized units move in both
movement phases; non-motorized units in the Movement Phase, and in the Motorized Movement
Phase only when activated (EF 10.25). In the enemy's Reaction Phase motorized units may move
half their allowance (EF 7.5), never into an empty coastal hex under Amphibious Assault
(NM 30.22b). Flotillas move hex by hex through all-sea and coastal hexes at one point each
(EF 22.41). Enemy non-combat units never enter a port hex holding naval units (NM 25.2).
Units with a Do Not Move marker (NM 28.2), units carried or landed this phase (NM 28.1a) and
units that made an Amphibious Assault this turn (NM 30.24f) do not move.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.rulesets.eastfront.data import data
from grognard.rulesets.eastfront.map.geography import is_coastal, is_land, is_sea
from grognard.rulesets.eastfront.map.ports import naval_units_in, port_at_hex
from grognard.rulesets.eastfront.map.zoc import zoc_hexes
from grognard.rulesets.eastfront.model import FlotillaMove, GroundAttrs, ef, other
from grognard.rulesets.eastfront.movement.enter import entered
from grognard.rulesets.eastfront.naval.coast import cd_strength
from grognard.rulesets.eastfront.naval.movement import assault_hexes
from grognard.rulesets.eastfront.units.kinds import (
    allowance,
    is_combat,
    is_flotilla,
    is_ground,
    kind,
    motorized,
)
from grognard.rulesets.eastfront.units.stacking import fits

if TYPE_CHECKING:
    from grognard.core.game import Game

Reach = dict[int, tuple[int, int]]  # hex -> (cost, previous hex)


@implements("EF 7.0", "EF 7.5", "EF 10.25", "NM 28.1", "NM 28.2", "NM 30.24")
def mover_problem(g: Game, p: Piece, phase: str) -> str | None:
    """Why ``p`` may not move in a ``phase`` phase (None: it may).

    Rules: EF 7.0, EF 7.5, EF 10.25, NM 28.1, NM 28.2, NM 30.24.
    """
    rec = ef(g).move
    if not is_ground(g, p) or p.loc.kind != "hex":
        return f"{p.name or p.id} is not a ground unit on the map"
    if not kind(g, p).moves or allowance(p) <= 0:
        return f"{p.name or p.id} does not move by ground movement"
    if p.id in rec.moved:
        return f"{p.name or p.id} has already moved this phase"
    if p.id in rec.transported:
        return f"{p.name or p.id} was carried by sea this phase (NM 28.1a)"
    if GroundAttrs(p.attrs).dnm:
        return f"{p.name or p.id} has a Do Not Move marker (NM 28.2)"
    if "assaulted" in p.status:
        return f"{p.name or p.id} made an Amphibious Assault this turn (NM 30.24f)"
    mot = motorized(g, p)
    if phase == "motorized" and not mot and "activated" not in p.status:
        return "non-motorized units move in the Motorized Movement Phase only when activated"
    if phase == "reaction" and not mot:
        return "only motorized units make reaction movement (EF 7.5)"
    if phase not in ("movement", "motorized", "reaction"):
        return "not a movement phase"
    return None


def enter_cost(g: Game, p: Piece, j: int) -> int | None:
    """EF 7.0 / EF 22.41: movement points to enter hex ``j`` (None: may not)."""
    if is_flotilla(g, p):
        return 1 if is_sea(g, j) or is_coastal(g, j) else None
    if not is_land(g, j):
        return None
    t = data(g).terrain.get(g.board.terrain_of(j))
    if t is None:
        return None
    return t.motorized if motorized(g, p) else t.cost


@implements("EF 7.0", "EF 6.0", "EF 22.41", "NM 25.2")
def reach(g: Game, p: Piece, points: int) -> Reach:
    """EF 7.0: every hex ``p`` may reach with ``points`` movement points, with its cost and the
    hex it is entered from (kept while no piece moves).

    Rules: EF 7.0, EF 6.0, EF 22.41, NM 25.2.
    """

    def compute() -> Reach:
        start = int(p.loc.ref)
        enemy = other(p.side)
        zoc = zoc_hexes(g, enemy)
        combat = is_combat(g, p)
        best: Reach = {start: (0, -1)}
        todo = [(0, start)]
        while todo:
            c, i = heapq.heappop(todo)
            if c > best[i][0]:
                continue
            if i != start and i in zoc and not is_flotilla(g, p):
                continue  # EF 6.0: entering an enemy zone of control ends the move
            for j in g.board.neighbors(i):
                cost = enter_cost(g, p, j)
                if cost is None or c + cost > points:
                    continue
                if any(q.side == enemy and is_ground(g, q) for q in g.state.at_hex(j)):
                    continue
                if not combat:
                    port = port_at_hex(g, j)
                    if port is not None and any(q.side == enemy for q in naval_units_in(g, port)):
                        continue  # NM 25.2
                if j not in best or c + cost < best[j][0]:
                    best[j] = (c + cost, i)
                    heapq.heappush(todo, (c + cost, j))
        return best

    return g.cache.tracked(
        g.state, ("ef:reach", p.id, points), [("piece", p.id), ("locations",)], compute
    )


def points_for(g: Game, p: Piece, phase: str) -> int:
    """The movement points of this phase: the allowance, half of it in reaction (EF 7.5)."""
    ma = allowance(p)
    return ma // 2 if phase == "reaction" else ma


@implements("EF 7.0", "EF 7.5", "NM 30.22")
def destinations(g: Game, p: Piece, phase: str) -> list[int]:
    """The hexes ``p`` may end its move in.

    Rules: EF 7.0, EF 7.5, NM 30.22.
    """
    if mover_problem(g, p, phase) is not None:
        return []
    start = int(p.loc.ref)
    blocked = assault_hexes(g, other(p.side)) if phase == "reaction" else set()
    out = []
    for j in sorted(reach(g, p, points_for(g, p, phase))):
        if j == start or not fits(g, p, j):
            continue
        if j in blocked and not g.state.at_hex(j):
            continue  # NM 30.22b
        out.append(j)
    return out


def path_to(r: Reach, j: int) -> list[int]:
    out = []
    while j >= 0:
        out.append(j)
        j = r[j][1]
    return out[::-1]


@implements("EF 7.0", "EF 22.41", "NM 32.1")
def move(g: Game, p: Piece, j: int, phase: str) -> None:
    """EF 7.0: move ``p`` to ``j`` along its cheapest path; each hex entered may capture or
    force a sortie (:func:`.enter.entered`). A flotilla's move is recorded for its loss roll
    (NM 32.1).

    Rules: EF 7.0, EF 22.41, NM 32.1.
    """
    r = reach(g, p, points_for(g, p, phase))
    path = path_to(r, j)
    rec = ef(g).move
    rec.moved.append(p.id)
    if is_flotilla(g, p):
        rec.raw()["flotillas"][p.id] = FlotillaMove.new(
            sea=any(is_sea(g, i) for i in path[1:]),
            cd=cd_strength(g, other(p.side), path),
            start=path[0],
        )
    g.state.move(p.id, Loc.hex(j))
    g.emit("move", f"{p.name or p.id} moves to {g.board.label(j)}", rule="EF 7.0")
    for i in path[1:]:
        entered(g, p, i)
