"""OT 7C: navigable inland waterways and river movement (optional on the European maps, basic on
the non-European ones: option ``navigable-waterways``, default on when ``[rules] map_scale =
"non-european"``).

``{"type": "river-move", "side", "piece", "hexsides": ["AAAA/BBBB", ...], "to": hex}``: the unit
enters the first hexside (a side of its hex), follows connected navigable hexsides and is placed
in ``to``, one of the two hexes of the last hexside.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import TYPE_CHECKING

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar.charts import load_charts
from grognard.rulesets.greatwar.map import geography, terrain, zoc
from grognard.rulesets.greatwar.map.weather import frozen_at, view
from grognard.rulesets.greatwar.mechanics import current_period, gw
from grognard.rulesets.greatwar.movement import stacking
from grognard.rulesets.greatwar.movement.movement import (
    MOVEMENT,
    can_move_now,
    mode_of,
    movement_allowance,
    record,
    remaining,
    spent,
)
from grognard.rulesets.greatwar.units import nations, units

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.greatwar.record import RiverLedger

COAST_DEFENSE_ARTILLERY = ("coast", "siege", "heavy-siege")


def in_use(g: Game) -> bool:
    """OT 7C: river movement is basic with the non-European maps, optional otherwise."""
    rules = g.scenario.rules
    non_european = rules is not None and getattr(rules, "map_scale", "european") == "non-european"
    return bool(g.opt("navigable-waterways")) or non_european


def _ends(g: Game, s: int) -> tuple[int, int]:
    a, b = (int(x) for x in g.board.side_hexes[s])
    return a, b


@implements("OT 7C1")
def navigable(g: Game, s: int) -> bool:
    """OT 7C1: river, canal and lake hexsides are inland waterways; on the European maps they are
    navigable unless frozen or (rivers and canals) next to a mountain hex; on the non-European maps
    only marked hexsides (feature ``navigable``) are; frozen waterways never are."""
    memo = view(g).memo
    key = ("nav", s)
    if key not in memo:
        memo[key] = _navigable(g, s)
    return memo[key]


def _navigable(g: Game, s: int) -> bool:
    tec = load_charts(g.scenario.table_overrides).tec
    feats = [f for f in terrain.side_features(g, s) if tec.hexsides[f].extra.get("navigable")]
    if not feats:
        return False
    a, b = _ends(g, s)
    if any(h >= 0 and frozen_at(g, h) for h in (a, b)):
        return False
    rules = g.scenario.rules
    if rules is not None and getattr(rules, "map_scale", "european") == "non-european":
        return g.board.side_has(s, "navigable")
    return not (
        any(f != "lake" for f in feats)
        and any(h >= 0 and terrain.terrain(g, h) == "mountain" for h in (a, b))
    )


def connected_sides(g: Game, s: int) -> list[int]:
    """Hexsides meeting hexside ``s`` at one of its two corners."""
    return g.cache.keyed("gw:side-links", s, lambda: _connected_sides(g, s))


def _connected_sides(g: Game, s: int) -> list[int]:
    a, b = _ends(g, s)
    out = []  # type: ignore[var-annotated]
    if a < 0 or b < 0:
        return out
    common = set(g.board.neighbors(a)) & set(g.board.neighbors(b))
    for c in common:
        out.append(g.board.side_between(a, c))
        out.append(g.board.side_between(b, c))
    return out


@implements("OT 7C6")
def waterway_net(g: Game, s: int) -> frozenset[int]:
    """OT 7C6: the inland waterway net of a navigable hexside -- all navigable hexsides connected to
    it."""
    if not navigable(g, s):
        return frozenset()
    memo = view(g).memo
    hit = memo.get(("net", s))
    if hit is not None:
        return hit
    seen = {s}
    todo = deque([s])
    while todo:
        u = todo.popleft()
        for v in connected_sides(g, u):
            if v not in seen and navigable(g, v):
                seen.add(v)
                todo.append(v)
    out = frozenset(seen)
    for x in out:
        memo[("net", x)] = out
    return out


def net_id(net: frozenset[int]) -> str:
    return f"waterway-{min(net)}" if net else "waterway-none"


def hex_sides(g: Game, i: int) -> list[int]:
    return [int(g.board.side_of[i, d]) for d in range(6)]


@implements("OT 7C4")
def is_river_yard(g: Game, i: int) -> bool:
    """OT 7C4: on the European maps every major city hex next to a navigable hexside is a river
    transport marshaling yard; on the non-European maps they are marked (place kind ``river-yard``).
    """
    if any(pt.kind == "river-yard" for pt in g.board.points_at(i)):
        return True
    rules = g.scenario.rules
    if rules is not None and getattr(rules, "map_scale", "european") == "non-european":
        return False
    return geography.is_major_city_hex(g, i) and any(navigable(g, s) for s in hex_sides(g, i))


@implements("OT 7C5", "OT 7C6")
def river_capacity(g: Game, side: str, net: frozenset[int]) -> Fraction:
    """OT 7C5/7C6: a side's capacity on a waterway net is 1 RE per friendly-owned river yard on it
    (it cannot be increased, transferred or lose to deterioration; captured yards change hands)."""
    hexes = {h for s in net for h in _ends(g, s) if h >= 0}
    return Fraction(sum(1 for i in hexes if is_river_yard(g, i) and g.state.control.get(i) == side))


def _ledger(g: Game, side: str, net: frozenset[int], write: bool = False) -> RiverLedger:
    """A side's use of a waterway net's capacity this turn (OT 7C5); a new turn starts from
    nothing (OT 3C4). Only ``write`` calls store anything in the state."""

    period = current_period(g)
    store = gw(g).get("river", {})
    rec = store.get(net_id(net), {}).get(side)
    if rec is None or rec["period"] != period:
        rec = {"period": period, "used": Fraction(0), "charged": {}}
        if write:
            per_net = gw(g).setdefault("river", {}).setdefault(net_id(net), {})
            per_net[side] = rec
            rec = per_net[side]  # the stored (tracked) copy
    return rec


@implements("OT 7C3")
def blocked(g: Game, side: str, s: int) -> bool:
    """OT 7C3: a hexside next to a hex with enemy coast defenses is blocked (coast, siege and heavy
    siege artillery stand in for the Coast Defenses Summary; naval combat zones need the advanced
    naval rules)."""
    enemy = nations.other_side(side)
    for h in _ends(g, s):
        if h < 0:
            continue
        for p in units.units_in_hex(g, h, enemy):
            if units.utype(p).artillery in COAST_DEFENSE_ARTILLERY:
                return True
    return False


def _label(g: Game, s: int) -> str:
    a, b = _ends(g, s)
    return f"{g.board.label(a)}/{g.board.label(b)}"


def _side_from_label(g: Game, text: object) -> int | None:
    if not isinstance(text, str) or "/" not in text:
        return None
    a, _, b = text.partition("/")
    if not (g.board.has_label(a) and g.board.has_label(b)):
        return None
    i, j = g.board.idx(a), g.board.idx(b)
    if j not in g.board.neighbors(i):
        return None
    return g.board.side_between(i, j)


@dataclass
class RiverPlan:
    piece: Piece
    sides: list[int]
    dest: int
    mp: Fraction
    net: frozenset[int]
    charge: Fraction


@implements("OT 7C2", "OT 7C3", "OT 7C5")
def plan_river_move(g: Game, f: Frame, action: Action) -> RiverPlan:
    """Check a river move against OT 7C; raise :class:`IllegalAction` naming the rule.

    Phasing player, movement phase only; the unit starts next to a navigable hexside, moves along
    connected unblocked navigable hexsides, with an unblocked line to a friendly river yard; it
    spends whole MPs (hexsides / rate, River Movement Rates Table, rounded up), doubled under
    accelerated movement; it may not end in an enemy-occupied/owned hex; it uses capacity once
    per net per turn (RE, doubled for artillery and c/m)."""

    if not in_use(g):
        raise IllegalAction("OT 7C", "river movement is an optional rule not in use in this game")
    if f.params.get("kind") != MOVEMENT:
        raise IllegalAction("OT 7C2", "river movement is allowed in the movement phase only")
    side = action["side"]
    pid = action.get("piece")
    p = g.state.pieces.get(pid) if isinstance(pid, str) else None
    if p is None or p.side != side:
        raise IllegalAction("OT 7C2", f"{side} has no unit {pid!r}")
    why = can_move_now(g, f, p)
    if why:
        raise IllegalAction("OT 7C2", why)
    start = units.hex_of(g, p)
    assert start is not None
    raw = action.get("hexsides")
    if not isinstance(raw, list) or not raw:
        raise IllegalAction("OT 7C2", "'hexsides' must list the waterway hexsides travelled")
    sides = []
    for t in raw:
        s = _side_from_label(g, t)
        if s is None:
            raise IllegalAction("OT 7C2", f"{t!r} is not a hexside (write 'HEX/HEX')")
        sides.append(s)
    if sides[0] not in hex_sides(g, start):
        raise IllegalAction("OT 7C2", "the first hexside must be a side of the unit's hex")
    for a, b in pairwise(sides):
        if b not in connected_sides(g, a):
            raise IllegalAction(
                "OT 7C2", f"{_label(g, a)} and {_label(g, b)} are not connected hexsides"
            )
    for s in sides:
        if not navigable(g, s):
            raise IllegalAction("OT 7C1", f"{_label(g, s)} is not a navigable waterway")
        if blocked(g, side, s):
            raise IllegalAction("OT 7C3", f"{_label(g, s)} is blocked by enemy coast defenses")
    net = waterway_net(g, sides[0])
    if not _yard_reachable(g, side, sides[0], net):
        raise IllegalAction(
            "OT 7C3", "no unblocked waterway links the unit to a friendly river transport yard"
        )
    to = action.get("to")
    if not isinstance(to, str) or not g.board.has_label(to):
        raise IllegalAction("OT 7C2", f"no hex {to!r}")
    dest = g.board.idx(to)
    if dest not in _ends(g, sides[-1]):
        raise IllegalAction(
            "OT 7C2", "the unit is placed in one of the two hexes of its last hexside"
        )
    enemy = nations.other_side(side)
    if g.state.control.get(dest) == enemy and units.units_in_hex(g, dest, enemy):
        raise IllegalAction("OT 7C3", "a river move may not end in an enemy-occupied/owned hex")
    if terrain.hex_entry_cost(g, p, dest) is None:
        raise IllegalAction("OT 6", f"{p.id} may not enter {to}")
    problem = stacking.move_stacking_problem(g, [p], dest)
    if problem:
        raise IllegalAction("OT 8B", problem)
    problem = stacking.departure_problem(g, [p], start)
    if problem:
        raise IllegalAction("OT 8C2", problem)
    rates = load_charts(g.scenario.table_overrides).river_rates.body
    mp = Fraction(math.ceil(Fraction(len(sides), int(rates["hexsides_per_mp"]))))
    accel = mode_of(f, p) == "accel"
    if accel:
        mp *= int(rates["accel_multiplier"])
    left = movement_allowance(g, p, MOVEMENT, accel) - spent(f, p)
    if mp > left:
        raise IllegalAction("OT 7C2", f"{p.id} needs {mp} MP for this river move but has {left}")
    rec = _ledger(g, side, net)
    need = units.transport_re(g, p, "river")
    extra = max(Fraction(0), need - Fraction(rec["charged"].get(p.id, 0)))
    cap = river_capacity(g, side, net)
    if rec["used"] + extra > cap:
        raise IllegalAction(
            "OT 7C5",
            f"not enough river capacity on this waterway net: {extra} RE needed,"
            f" {cap - rec['used']} left",
        )
    return RiverPlan(p, sides, dest, mp, net, extra)


def _yard_reachable(g: Game, side: str, s0: int, net: frozenset[int]) -> bool:
    seen = {s0}
    todo = deque([s0])
    while todo:
        s = todo.popleft()
        if any(
            h >= 0 and is_river_yard(g, h) and g.state.control.get(h) == side for h in _ends(g, s)
        ):
            return True
        for v in connected_sides(g, s):
            if v in net and v not in seen and not blocked(g, side, v):
                seen.add(v)
                todo.append(v)
    return False


def apply_river_move(g: Game, f: Frame, action: Action) -> None:
    """Carry out a river move; the unit has no ZOC while moving by river (OT 7C3)."""

    plan = plan_river_move(g, f, action)
    p = plan.piece
    start = units.hex_of(g, p)
    p.status.add(zoc.NO_ZOC)
    g.state.move(p.id, Loc.hex(plan.dest))
    p.status.discard(zoc.NO_ZOC)
    nat = nations.neutral_nation_of_hex(g, plan.dest)
    if nat is not None:
        nations.attack_neutral(g, nat, p.side)
    rec = record(f, p, g)
    rec["spent"] = Fraction(rec["spent"]) + plan.mp
    rec["moved"] = True
    led = _ledger(g, p.side, plan.net, write=True)
    led["used"] = Fraction(led["used"]) + plan.charge
    led["charged"][p.id] = Fraction(led["charged"].get(p.id, 0)) + plan.charge
    zoc.update_ownership(g)
    g.emit(
        "river-move",
        f"{p.id} moves by river {g.board.label(start) if start is not None else '?'} ->"
        f" {g.board.label(plan.dest)} ({len(plan.sides)} hexsides, {plan.mp} MP)",
        rule="OT 7C2",
        piece=p.id,
        to=g.board.label(plan.dest),
    )


def river_actions(g: Game, f: Frame, side: str) -> list[Action]:
    """River moves open now: for each unit, each hex next to the far end of a reachable stretch
    (the checks of :func:`plan_river_move`, made once per unit and stretch)."""

    if not in_use(g) or f.params.get("kind") != MOVEMENT:
        return []
    rates = load_charts(g.scenario.table_overrides).river_rates.body
    enemy = nations.other_side(side)
    out: list[Action] = []
    for p in units.on_map_units(g, side):
        if p.loc.kind != "hex" or can_move_now(g, f, p):
            continue
        h = units.hex_of(g, p)
        assert h is not None
        if stacking.departure_problem(g, [p], h):
            continue
        mult = int(rates["accel_multiplier"]) if mode_of(f, p) == "accel" else 1
        max_sides = int(remaining(g, f, p) // mult) * int(rates["hexsides_per_mp"])
        if max_sides <= 0:
            continue
        firsts = [s for s in hex_sides(g, h) if navigable(g, s) and not blocked(g, side, s)]
        seen_dest: set[int] = set()
        for s0 in firsts:
            net = waterway_net(g, s0)
            if not _yard_reachable(g, side, s0, net):
                continue
            rec = _ledger(g, side, net)
            extra = max(
                Fraction(0),
                units.transport_re(g, p, "river") - Fraction(rec["charged"].get(p.id, 0)),
            )
            if rec["used"] + extra > river_capacity(g, side, net):
                continue
            prev = {s0: -1}
            dist = {s0: 1}
            todo = deque([s0])
            while todo:
                u = todo.popleft()
                if dist[u] >= max_sides:
                    continue
                for v in connected_sides(g, u):
                    if v not in prev and v in net and not blocked(g, side, v):
                        prev[v] = u
                        dist[v] = dist[u] + 1
                        todo.append(v)
            for end in sorted(prev):
                for d in _ends(g, end):
                    if d < 0 or d == h or d in seen_dest:
                        continue
                    if g.state.control.get(d) == enemy and units.units_in_hex(g, d, enemy):
                        continue
                    if terrain.hex_entry_cost(g, p, d) is None or stacking.move_stacking_problem(
                        g, [p], d
                    ):
                        continue
                    chain = [end]
                    while prev[chain[-1]] != -1:
                        chain.append(prev[chain[-1]])
                    chain.reverse()
                    seen_dest.add(d)
                    out.append(
                        {
                            "type": "river-move",
                            "side": side,
                            "piece": p.id,
                            "hexsides": [_label(g, x) for x in chain],
                            "to": g.board.label(d),
                        }
                    )
    return out
