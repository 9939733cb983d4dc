"""OT 6: movement -- costs, the one-hex move, ZOC costs, accelerated movement and fatigue,
reaction and exploitation movement, and the movement phase steps.

Units move with ``move`` actions: ``{"type": "move", "side", "piece": id, "path": [hex, ...]}``
(or ``"to": hex`` for the cheapest path; ``"pieces": [...]`` moves a stack along one path, each
unit paying its own costs; ``"accel": true`` on a unit's first move of the movement phase uses
accelerated movement for the whole phase). Front ends show where a unit can go with
:func:`reachable`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, Family, families_of_list, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar import calendar, listing
from grognard.rulesets.greatwar.charts import load_charts
from grognard.rulesets.greatwar.combat import siege
from grognard.rulesets.greatwar.map import geography, terrain, zoc
from grognard.rulesets.greatwar.movement import stacking
from grognard.rulesets.greatwar.movement.stacking import overstack_leave_cost
from grognard.rulesets.greatwar.step import GWStep, extensions
from grognard.rulesets.greatwar.supply import supply_status
from grognard.rulesets.greatwar.units import hq as hqmod
from grognard.rulesets.greatwar.units import nations, special_units, units
from grognard.rulesets.greatwar.units.nations import is_german, rulebook_name
from grognard.search.reach import reach_generic

if TYPE_CHECKING:
    from grognard.core.game import Game

MOVEMENT = "movement"
REACTION = "reaction"
EXPLOITATION = "exploitation"
RESERVE = "reserve"
PHASE_KINDS = (MOVEMENT, REACTION, EXPLOITATION, RESERVE)

STRATEGIC = "strategic-rail"  # status for the rest of the player turn (OT 7A3)
OVERSTACKED = units.OVERSTACKED  # status (OT 8C2)


# ============================================================================ movement allowance
@implements("OT 6C", "OT 6E")
def fraction_for(g: Game, p: Piece, kind: str) -> Fraction:
    """OT 6C / 6E: the share of the movement rating used in reserve commitment and exploitation:
    c/m and water-only units all of it, cavalry 1/2, light, mountain, infantry and irregular units
    1/3, all others 1/5. A unit of several families uses the most favourable share
    (interpretation default). Mixed mounted rifle and rifle units count as rifle for exploitation
    (OT 14D3)."""
    if kind not in (RESERVE, EXPLOITATION):
        return Fraction(1)
    for ext in extensions(g):
        share = ext.movement_share(g, p)
        if share is not None:
            return share
    tags = set(special_units.movement_tags(g, p))
    if kind == EXPLOITATION and "mixed-mounted" in tags:
        tags.discard("cavalry")
    if units.is_cm(p) or units.is_water_only(p):
        return Fraction(1)
    if "cavalry" in tags:
        return Fraction(1, 2)
    if tags & {"light", "mountain", "infantry", "irregular"}:
        return Fraction(1, 3)
    return Fraction(1, 5)


def movement_allowance(g: Game, p: Piece, kind: str = MOVEMENT, accel: bool = False) -> Fraction:
    """OT 6: the MPs a unit may spend this phase (:func:`_movement_allowance`; remembered while
    legal actions are listed, :func:`.listing.scope`)."""

    # it reads the unit, what it carries (both in its hex) and the world (turn, supply...)
    h = units.hex_of(g, p)
    return listing.tracked(
        g,
        ("gw:ma", p.id, h, kind, accel, listing.world_token(g)),
        (("piece", p.id), ("hex", h)),
        lambda: _movement_allowance(g, p, kind, accel),
    )


@implements("OT 6", "OT 6B3", "OT 6C", "OT 6E", "OT 11F1", "OT 11F2", "OT 11H2")
def _movement_allowance(g: Game, p: Piece, kind: str = MOVEMENT, accel: bool = False) -> Fraction:
    """OT 6: the MPs a unit may spend this phase.

    Order (interpretation default): the printed rating, less the MPs of logistics items it carries
    (OT 11H2), doubled for accelerated movement
    (OT 6B3), halved when disrupted (OT 3A5), halved for a c/m unit in its first turn out of
    general supply or any unit in its second (OT 11F1, 11F2); then, in reserve commitment and
    exploitation, the share of OT 6C/6E, rounded down. Rail-only, water-only and zero-MA units
    have no overland allowance.
    """
    ma = special_units.modified_ma(g, p, units.printed_move(p))
    if not isinstance(ma, Fraction):
        return Fraction(0)
    for ext in extensions(g):  # OT 11H2: before halving or doubling
        ma = max(Fraction(0), ma - ext.allowance_deduction(g, p))
    if accel:
        ma = ma * 2
    ma = ma * units.disruption_factors(p)["move"]
    out = supply_status.turns_out_of_supply(g, p)
    if (out == 1 and units.is_cm(p)) or out >= 2:
        ma = ma / 2
    if kind in (RESERVE, EXPLOITATION):
        ma = Fraction(math.floor(ma * fraction_for(g, p, kind)))
    return ma


# =========================================================================== per-phase unit records
def record(f: Frame, p: Piece, g: Game | None = None) -> dict[str, Any]:
    """The movement record of a unit in this phase's frame (created on first use)."""
    recs = f.params.setdefault("units", {})
    rec = recs.get(p.id)
    if rec is None:
        start = units.hex_of(g, p) if g is not None else None
        rec = {
            "spent": Fraction(0),
            "mode": "regular",
            "moved": False,
            "done": False,
            "rested": Fraction(0),
            "hits_removed": 0,
            "trigger": False,
            "start": start,
        }
        recs[p.id] = rec
        rec = recs[p.id]  # the stored (tracked) copy
    return rec


def spent(f: Frame, p: Piece) -> Fraction:
    return Fraction(f.params.get("units", {}).get(p.id, {}).get("spent", 0))


def mode_of(f: Frame, p: Piece) -> str:
    return str(f.params.get("units", {}).get(p.id, {}).get("mode", "regular"))


def remaining(g: Game, f: Frame, p: Piece) -> Fraction:
    kind = f.params.get("kind", MOVEMENT)
    return movement_allowance(g, p, kind, accel=mode_of(f, p) == "accel") - spent(f, p)


def remaining_uncached(g: Game, f: Frame, p: Piece) -> Fraction:
    """:func:`remaining`, computed afresh (for a check that tries a change: a pick-up's load)."""
    kind = f.params.get("kind", MOVEMENT)
    return _movement_allowance(g, p, kind, accel=mode_of(f, p) == "accel") - spent(f, p)


# ============================================================================ costs
@dataclass
class MoveContext:
    """What movement legality depends on for one side at one moment (enemy ZOCs, blocked hexes)."""

    g: Game
    side: str
    kind: str
    enemy_zoc: dict[int, str]
    ignore_zoc_of: frozenset[str] = frozenset()
    _tags: dict[str, frozenset[str]] = field(default_factory=dict)

    @property
    def enemy(self) -> str:
        return nations.other_side(self.side)

    def tags(self, p: Piece) -> frozenset[str]:
        t = self._tags.get(p.id)
        if t is None:
            t = special_units.movement_tags(self.g, p)
            self._tags[p.id] = t
        return t


def context(
    g: Game, side: str, kind: str, fresh: bool = False, exclude: set[str] | None = None
) -> MoveContext:
    """Build the movement context of ``side`` (``fresh``: do not use the per-position cache)."""
    enemy = nations.other_side(side)
    if exclude:
        ez = zoc.zoc_map(g, enemy, exclude=exclude)
    elif fresh:
        ez = zoc.zoc_map(g, enemy)
    else:
        ez = zoc.cached_zoc_map(g, enemy)
    return MoveContext(g, side, kind, ez, frozenset(exclude or ()))


@implements("OT 6")
def entry_block(ctx: MoveContext, p: Piece, v: int) -> str | None:
    """OT 6: why a unit may not enter hex ``v`` at all, or None.

    An enemy-occupied/owned hex (owned by the enemy and holding an enemy unit) may not be entered
    (overruns, sieges and landings aside); a hex outside the commands the side controls may not be
    entered voluntarily (OT 3F).
    """
    g = ctx.g
    why = entry_problem(g, p, v)
    if why:
        return why
    if (
        g.state.control.get(v) == ctx.enemy
        and any(
            q.side == ctx.enemy and q.id not in ctx.ignore_zoc_of for q in units.units_in_hex(g, v)
        )
        and not may_enter_enemy_hex(g, ctx.side, p, v)
    ):
        return "the hex is enemy-occupied and enemy-owned (OT 6)"
    if not nations.may_enter_command(g, ctx.side, v):
        return "the hex is outside the commands this side controls (OT 3F)"
    if (
        g.state.marker("contested", v)
        and any(
            q.side == ctx.enemy and q.id not in ctx.ignore_zoc_of for q in units.units_in_hex(g, v)
        )
        and not may_enter_enemy_hex(g, ctx.side, p, v)
    ):
        return "the hex is enemy-occupied and contested (OT 9J)"
    return None


def _rule_of(why: str) -> str:
    """The rule id quoted at the end of a reason (``"... (OT 3F)"``), else OT 6."""
    if why.endswith(")") and "(OT " in why:
        return why[why.rindex("(OT ") + 1 : -1]
    return "OT 6"


@implements("OT 6A")
def zoc_exit_cost(ctx: MoveContext, p: Piece, u: int) -> Fraction:
    """OT 6A: extra MPs to leave a hex in an enemy ZOC (ZOC Movement Costs Table): full or reduced
    ZOC, standard or reduced-cost unit families. Water-only units ignore ZOCs (OT 14B2)."""
    lvl = ctx.enemy_zoc.get(u)
    if lvl is None or units.is_water_only(p):
        return Fraction(0)
    ch = load_charts(ctx.g.scenario.table_overrides).zoc_costs.body
    cls = "reduced_cost" if ctx.tags(p) & set(ch["reduced_cost_tags"]) else "standard"
    return Fraction(str(ch["exit"][lvl][cls]))


@dataclass(frozen=True)
class StepInfo:
    cost: Fraction | None
    road: bool = False
    why: str = ""


@implements("OT 6", "OT 7B", "OT 6B1", "OT 6B2")
def step(ctx: MoveContext, p: Piece, u: int, v: int, accel: bool = False) -> StepInfo:
    """OT 6: the MP cost for a unit to move from ``u`` into the adjacent hex ``v`` (ZOC exit costs
    not included): the hex cost plus hexside costs, or the clear-terrain cost along a road (OT 7B,
    with bridges usable, OT 15A1), whichever is cheaper. Under accelerated movement an off-road
    step must be allowed by OT 6B1/6B2. ``cost`` None means the step is not allowed."""
    g = ctx.g
    if v not in g.board.neighbors(u):
        return StepInfo(None, why="hexes are not adjacent")
    why = entry_block(ctx, p, v)
    if why:
        return StepInfo(None, why=why)
    s = g.board.side_between(u, v)
    if g.state.at(Loc.hexside(s)) and blocks(g, ctx.side, s):
        return StepInfo(None, why="an enemy water-only unit holds the hexside (OT 14B2)")
    tags = ctx.tags(p)
    best: Fraction | None = None
    road_used = False
    if terrain.road_step_usable(g, ctx.side, s):
        rc = terrain.road_cost(g, p, v)
        if rc is not None:
            best, road_used = rc, True
    hc = terrain.hex_entry_cost(g, p, v, tags)
    sc = terrain.hexside_cost(g, p, s, v, tags) if hc is not None else None
    if hc is not None and sc is not None:
        off = hc + sc
        if accel and not terrain.accel_offroad_allowed(g, p, s, v):
            off = None  # type: ignore[assignment]
        if off is not None and (best is None or off < best):
            best, road_used = off, False
    if best is None:
        return StepInfo(
            None, why="prohibited terrain" + (" for accelerated movement" if accel else "")
        )
    return StepInfo(best, road_used)


def kept_step(
    ctx: MoveContext, p: Piece, u: int, v: int, accel: bool, unit_class: Hashable
) -> StepInfo:
    """:func:`step`, kept across actions while legal actions are listed (:func:`.listing.
    tracked`). ``unit_class`` names what the step reads of the unit (units of one type, side,
    nation and movement families pay the same, OT 6, TEC). Of the position it reads the hex
    entered (its owner and pieces: entry, OT 6, 9J, 15G), the owner of the hex left (bridges,
    OT 15A1), the other side's pieces (water-only units on the hexside, OT 14B2) and the world
    (terrain, weather, markers, sieges, commands)."""
    g = ctx.g
    return listing.tracked(
        g,
        (
            "gw:step",
            unit_class,
            u,
            v,
            accel,
            ctx.side,
            ctx.ignore_zoc_of,
            g.state.control.get(u),
            listing.world_token(g),
        ),
        (("hex", v), ("side", ctx.enemy)),
        lambda: step(ctx, p, u, v, accel),
    )


def _float(x: Fraction | None) -> float:
    return math.inf if x is None else float(x)


def _frac(x: float) -> Fraction:
    return Fraction(x).limit_denominator(64)


@implements("OT 6")
def min_move_allowed(g: Game, f: Frame, p: Piece) -> bool:
    """OT 6: a unit that has not yet spent MPs this phase may always move one hex, spending all its
    MPs, in a movement, reaction movement or exploitation phase (never in reserve commitment); a
    unit with a movement rating of 0 cannot move (interpretation default: the one-hex move is
    regular, not accelerated, movement)."""
    kind = f.params.get("kind", MOVEMENT)
    if kind == RESERVE:
        return False
    rec = f.params.get("units", {}).get(p.id)
    if rec and (rec.get("moved") or Fraction(rec.get("spent", 0)) > 0 or rec.get("done")):
        return False
    return movement_allowance(g, p, kind) > 0


def reach_of(ctx: MoveContext, f: Frame, p: Piece, accel: bool = False) -> Any:
    """A :class:`grognard.search.GenericReach` of the unit from its hex with its remaining MPs."""

    g = ctx.g
    start = units.hex_of(g, p)
    use_accel = accel or mode_of(f, p) == "accel"
    rem = movement_allowance(g, p, f.params.get("kind", MOVEMENT), accel=use_accel) - spent(f, p)
    rem -= overstack_leave_cost(g, p)
    minimum = not accel and min_move_allowed(g, f, p)
    memo: dict[tuple[int, int], float] = {}

    def cost(u: int, v: int) -> float:
        key = (u, v)
        if key not in memo:
            info = step(ctx, p, u, v, accel)
            memo[key] = _float(None if info.cost is None else info.cost + zoc_exit_cost(ctx, p, u))
        return memo[key]

    return reach_generic(
        start,
        float(max(rem, Fraction(0))),
        g.board.neighbors,
        cost,
        minimum_move=minimum and rem > 0,
    )


def can_move_now(g: Game, f: Frame, p: Piece) -> str | None:
    """Why a unit may not move in this phase now, or None (remembered while legal actions are
    listed, :func:`.listing.scope`)."""

    if not listing.listing_now(g):
        return _can_move_now(g, f, p)
    params = f.params
    kind = params.get("kind", MOVEMENT)
    carrier = str(p.loc.ref) if p.loc.kind == "piece" else None
    deps: tuple[tuple[str, str], ...] = (("piece", p.id),)
    outer = p
    while outer.loc.kind == "piece" and len(deps) < 8:  # the carriers, outwards
        outer = g.state.pieces[str(outer.loc.ref)]
        deps = (*deps, ("piece", outer.id))
    # everything _can_move_now reads: the unit (where it is, on the map or not, its face and
    # status), what carries it, its record and the frame's lists that name it: kept across
    # actions while none of those pieces changes
    return listing.tracked(
        g,
        (
            "gw:can-move",
            p.id,
            carrier,
            params.get("side"),
            kind,
            repr(params.get("units", {}).get(p.id)),
            p.id in params.get("anchors", []),
            kind == RESERVE and p.id in params.get("ready", []),
            kind == REACTION and p.id in params.get("eligible", []),
        ),
        deps,
        lambda: _can_move_now(g, f, p),
    )


def _can_move_now(g: Game, f: Frame, p: Piece) -> str | None:
    kind = f.params.get("kind", MOVEMENT)
    if p.side != f.params.get("side"):
        return f"{p.id} does not belong to the moving side"
    if units.hex_of(g, p) is None:
        return f"{p.id} is not on the map"
    if not units.is_unit(p):
        return f"{p.id} is not a unit"
    mv = units.printed_move(p)
    if mv == "R":
        return f"{p.id} is rail-only and moves by rail alone (OT 14B1)"
    if mv == "W":
        return f"{p.id} is water-only (OT 14B2)"
    if isinstance(mv, Fraction) and mv == 0:
        return f"{p.id} has a movement rating of 0 (OT 6)"
    rec = f.params.get("units", {}).get(p.id, {})
    if rec.get("done"):
        return f"{p.id} has finished moving this phase"
    if rec.get("strategic_only"):
        return (
            f"{p.id} arrived by strategic rail and may only continue by strategic rail (OT 16A1aa)"
        )
    if p.id in f.params.get("anchors", []):
        return (
            f"{p.id} negates an enemy ZOC for rail movement and must stay in its hex this phase"
            " (OT 7A)"
        )
    if kind == RESERVE and p.id not in f.params.get("ready", []):
        return f"{p.id} did not succeed in a reserve commitment roll (OT 6C)"
    if kind == EXPLOITATION and STRATEGIC in p.status:
        return f"{p.id} used strategic rail movement this player turn (OT 7A3)"
    for ext in extensions(g):
        why = ext.move_problem(g, f, p)
        if why:
            return why
    if kind == REACTION:
        allowed = f.params.get("eligible", [])
        if p.id not in allowed:
            return (
                f"{p.id} is not in the zone of influence of the active Army HQs being moved (OT 6D)"
            )
        if special_units.is_army_hq(p):
            return "Army HQs do not move in reaction movement (OT 6D)"
    return None


@implements("OT 6")
def reachable(game: Game, piece_ids: Sequence[str]) -> dict[int, Fraction]:
    """Hexes the given units can reach now, with the MPs each move costs (for front ends).

    For several units moving together, a hex is listed if every one can reach it and the cost is
    the largest of theirs. Hexes only reachable by the one-hex move cost the unit's whole
    remaining allowance. Hexes the units may pass through but not stop in (OT 8B: the move would
    end over the stacking limit; an HQ's stacking) are left out. Empty when the units may not move
    now.
    """
    f = current_move_frame(game)
    if f is None or not piece_ids:
        return {}
    ctx = context(game, f.params["side"], f.params.get("kind", MOVEMENT))
    out: dict[int, Fraction] | None = None
    group: list[Piece] = []
    for pid in piece_ids:
        p = game.state.pieces.get(pid)
        if p is None or can_move_now(game, f, p) is not None:
            return {}
        group.append(p)
        r = reach_of(ctx, f, p, accel=mode_of(f, p) == "accel")
        rem = remaining(game, f, p)
        here = units.hex_of(game, p)
        costs = {int(h): min(_frac(c), rem) for h, c in r.cost.items() if int(h) != here}
        out = costs if out is None else {h: max(c, costs[h]) for h, c in out.items() if h in costs}
    return {
        h: c
        for h, c in (out or {}).items()
        if hqmod.hq_stack_problem(game, group, h) is None
        and stacking.move_stacking_problem(game, group, h) is None
    }


def current_move_frame(g: Game) -> Frame | None:
    """The frame of the movement-type step in progress, if any (topmost first)."""
    for f in reversed(g.state.frames):
        st = g.steps[f.step]
        if isinstance(st, MovementStep):
            return f
    return None


# ============================================================================ executing a move
def _parse_path(g: Game, action: Action, start: int, rule: str) -> list[int]:
    if "path" in action:
        raw = action["path"]
        if not isinstance(raw, list) or not raw:
            raise IllegalAction(rule, "'path' must be a non-empty list of hexes")
        out = []
        for h in raw:
            if not isinstance(h, str | int) or not g.board.has_label(str(h)):
                raise IllegalAction(rule, f"no hex {h!r} on the map")
            out.append(g.board.idx(str(h)))
        if out[0] == start:
            out = out[1:]
        if not out:
            raise IllegalAction(rule, "the path does not leave the unit's hex")
        return out
    to = action.get("to")
    if not isinstance(to, str | int) or not g.board.has_label(str(to)):
        raise IllegalAction(rule, f"no hex {to!r} on the map")
    return [g.board.idx(str(to))]


def moving_pieces(g: Game, action: Action, rule: str) -> list[Piece]:
    ids = action.get("pieces") if "pieces" in action else [action.get("piece")]
    if not isinstance(ids, list) or not ids:
        raise IllegalAction(rule, "name the moving unit with 'piece' (or a stack with 'pieces')")
    out = []
    for pid in ids:
        p = g.state.pieces.get(str(pid)) if isinstance(pid, str) else None
        if p is None or p.side != action["side"]:
            raise IllegalAction(rule, f"{action['side']} has no unit {pid!r}")
        out.append(p)
        if special_units.is_transport(p):
            continue  # cargo rides with its transport (OT 14O2)
        for q in g.state.contents(p.id):
            if units.is_unit(q) and q not in out:
                out.append(q)
    if len({units.hex_of(g, p) for p in out}) != 1:
        raise IllegalAction(rule, "units moving together must start in the same hex")
    return out


@dataclass
class PlannedMove:
    pieces: list[Piece]
    path: list[int]
    costs: dict[str, Fraction]
    min_move: dict[str, bool]
    accel: bool
    disrupt_on: dict[str, list[int]]


@implements("OT 6", "OT 6A", "OT 6B", "OT 6B3")
def plan_move(g: Game, f: Frame, action: Action, fresh: bool = False) -> PlannedMove:
    """Check a move action against the movement rules; raise :class:`IllegalAction` naming the
    rule."""
    kind = f.params.get("kind", MOVEMENT)
    pieces = moving_pieces(g, action, "OT 6")
    for p in pieces:
        why = can_move_now(g, f, p)
        if why:
            raise IllegalAction("OT 6", why)
    start = units.hex_of(g, pieces[0])
    assert start is not None
    accel = bool(action.get("accel", False))
    if accel:
        if kind != MOVEMENT:
            raise IllegalAction(
                "OT 6B", "accelerated movement is allowed in the movement phase only"
            )
        for p in pieces:
            rec = f.params.get("units", {}).get(p.id, {})
            if rec.get("moved") and rec.get("mode") != "accel":
                raise IllegalAction(
                    "OT 6B", f"{p.id} already moved this phase without accelerated movement"
                )
            if Fraction(rec.get("rested", 0)) > 0:
                raise IllegalAction(
                    "OT 6B4", f"{p.id} rested this phase and may not use accelerated movement"
                )
            why = special_units.accel_forbidden(g, p)  # type: ignore[assignment]
            if why:
                raise IllegalAction(why[0], why[1])
    else:
        for p in pieces:
            if mode_of(f, p) == "accel":
                accel = True  # a unit that began with accel keeps it for the whole phase
    path = _parse_path(g, action, start, "OT 6")
    if "path" not in action and len(path) == 1 and path[0] not in g.board.neighbors(start):
        target = path[0]
        ctx0 = context(g, action["side"], kind, fresh=fresh)
        r = reach_of(ctx0, f, pieces[0], accel)
        if target not in r.cost:
            raise IllegalAction(
                "OT 6", f"{pieces[0].id} cannot reach {g.board.label(target)} this phase"
            )
        path = [int(h) for h in r.path(target)][1:]
    ctx = context(g, action["side"], kind, fresh=fresh)
    ctx._tags.update(special_units.guided_tags(g, pieces, ctx.tags))
    costs: dict[str, Fraction] = {}
    mins: dict[str, bool] = {}
    disrupt_on: dict[str, list[int]] = {}
    for p in pieces:
        total = overstack_leave_cost(g, p)
        u = start
        crossings = []
        for n, v in enumerate(path):
            info = step(ctx, p, u, v, accel)
            if info.cost is None:
                raise IllegalAction(
                    _rule_of(info.why),
                    f"{p.id} may not move from {g.board.label(u)} to {g.board.label(v)}:"
                    f" {info.why}",
                )
            s = g.board.side_between(u, v)
            if terrain.crossing_disrupts(g, s, v, info.road, side=p.side):
                crossings.append(n)
            total += info.cost + zoc_exit_cost(ctx, p, u)
            u = v
        rem = movement_allowance(g, p, kind, accel) - spent(f, p)
        one_hex = False
        if total > rem:
            if len(path) == 1 and not accel and min_move_allowed(g, f, p):
                one_hex = True
            else:
                raise IllegalAction(
                    "OT 6", f"{p.id} needs {total} MP for this move but has {rem} left"
                )
        costs[p.id] = rem if one_hex else total
        mins[p.id] = one_hex
        disrupt_on[p.id] = crossings
    dest = path[-1]

    problem = stacking.move_stacking_problem(g, [p for p in pieces], dest)
    if problem:
        raise IllegalAction("OT 8B", problem)

    problem = hqmod.hq_stack_problem(g, pieces, dest)
    if problem:
        raise IllegalAction("OT 14M", problem)
    problem = stacking.departure_problem(g, pieces, start)
    if problem:
        raise IllegalAction("OT 8C2", problem)
    return PlannedMove(pieces, path, costs, mins, accel, disrupt_on)


@implements("OT 6", "OT 6B4", "OT 5B")
def execute_move(g: Game, f: Frame, pm: PlannedMove, rule: str = "OT 6") -> None:
    """Carry out a checked move hex by hex: ownership changes as the units go (OT 5B), accelerated
    units note what triggers fatigue (OT 6B4), a neutral whose hex is entered joins the other side
    (OT 3B3), crossing an unfordable major river disrupts (OT 15A4)."""
    side = pm.pieces[0].side
    kind = f.params.get("kind", MOVEMENT)
    start = units.hex_of(g, pm.pieces[0])
    for p in pm.pieces:
        rec = record(f, p, g)
        if pm.accel and rec["mode"] != "accel":
            rec["mode"] = "accel"
            p.status.add(zoc.ACCEL)
            if start is not None and _adjacent_enemy_with_zoc(g, side, start):
                rec["trigger"] = True
        if OVERSTACKED in p.status:
            p.status.discard(OVERSTACKED)
    ids = {p.id for p in pm.pieces}
    tops = [p for p in pm.pieces if p.loc.kind != "piece" or p.loc.ref not in ids]
    for n, v in enumerate(pm.path):
        for p in tops:
            g.state.move(p.id, Loc.hex(v))
        nat = nations.neutral_nation_of_hex(g, v)
        if nat is not None:
            nations.attack_neutral(g, nat, side)
        for p in pm.pieces:
            rec = record(f, p, g)
            if rec["mode"] == "accel" and (
                g.state.control.get(v) == nations.other_side(side)
                or _adjacent_enemy_with_zoc(g, side, v)
            ):
                rec["trigger"] = True
            if n in pm.disrupt_on.get(p.id, []):
                units.disrupt(g, p, rule="OT 15A4", reason="crossed an unfordable major river")
        zoc.update_ownership(g)

    stacking.after_arrival(g, pm.pieces, pm.path[-1])
    labels = [g.board.label(h) for h in pm.path]
    for p in pm.pieces:
        rec = record(f, p, g)
        rec["spent"] = Fraction(rec["spent"]) + pm.costs[p.id]
        rec["moved"] = True
        rec["overland"] = True
        if pm.min_move.get(p.id):
            rec["done"] = True
    who = ", ".join(p.id for p in pm.pieces)
    extra = " (one-hex move, all MPs)" if any(pm.min_move.values()) else ""
    mode = " by accelerated movement" if pm.accel else ""
    g.emit(
        "move",
        f"{who} moves{mode} {g.board.label(start) if start is not None else '?'} ->"
        f" {' -> '.join(labels)}{extra}",
        rule=rule,
        pieces=[p.id for p in pm.pieces],
        path=labels,
        cost={p.id: pm.costs[p.id] for p in pm.pieces},
        phase=kind,
    )
    for ext in extensions(g):
        ext.after_move(g, f, pm.pieces, pm.path)


def _adjacent_enemy_with_zoc(g: Game, side: str, i: int) -> bool:
    """OT 6B4: next to (OT 3E5) an enemy unit with a ZOC (a ZOC in its own hex is enough:
    interpretation default)."""
    enemy = nations.other_side(side)
    # the enemy units first, the hexside (OT 3E5) only between hexes where one has a ZOC: the
    # answer of geography.adjacent_hexes, read for fewer hexsides
    for j in g.board.neighbors(i):
        if any(
            zoc.zoc_level(g, q) != zoc.NONE for q in units.units_in_hex(g, j, enemy)
        ) and geography.adjacent(g, i, j):
            return True
    return False


# ============================================================================ fatigue (OT 6B4)
def _fatigue_rate(p: Piece) -> int:
    """OT 6B4: artillery, cavalry and Army HQs take a hit per MP (and rest 2 MP per hit), others per
    2 MP."""
    if units.is_artillery(p) or special_units.is_cavalry(p) or special_units.is_army_hq(p):
        return 1
    return 2


@implements("OT 6B4")
def fatigue_hits_for(p: Piece, mp_spent: Fraction) -> int:
    """OT 6B4: fatigue hits for an accelerated move: one per 2 MPs (or fraction) spent over the
    printed rating, one per MP (or fraction, interpretation default) for artillery, cavalry and
    Army HQs."""
    over = Fraction(mp_spent) - units.printed_ma_number(p)
    if over <= 0:
        return 0
    return math.ceil(over / _fatigue_rate(p))


@implements("OT 6B4")
def apply_fatigue(g: Game, f: Frame) -> None:
    """OT 6B4: at the end of each accelerated move, units that started or ended next to an enemy
    unit with a ZOC, moved next to one, or entered an enemy-owned hex gain their fatigue hits."""
    for pid, rec in sorted(f.params.get("units", {}).items()):
        if rec.get("mode") != "accel":
            continue
        p = g.state.pieces.get(pid)
        if p is None:
            continue
        h = units.hex_of(g, p)
        if h is not None and _adjacent_enemy_with_zoc(g, p.side, h):
            rec["trigger"] = True
        if not rec.get("trigger"):
            continue
        hits = fatigue_hits_for(p, Fraction(rec["spent"]))
        if hits:
            p.attrs["fatigue"] = int(p.attrs.get("fatigue", 0)) + hits
            g.emit(
                "fatigue",
                f"{pid} gains {hits} fatigue hit(s) (now {p.attrs['fatigue']})",
                rule="OT 6B4",
                piece=pid,
                hits=hits,
            )


@implements("OT 6B4")
def rest(g: Game, f: Frame, p: Piece, mp: Fraction) -> int:
    """OT 6B4: spend MPs resting to remove fatigue hits (1 MP per hit; 2 MP per hit for artillery,
    cavalry and Army HQs). Returns the hits removed."""
    rec = record(f, p, g)
    rec["spent"] = Fraction(rec["spent"]) + mp
    rec["rested"] = Fraction(rec["rested"]) + mp
    per_hit = 3 - _fatigue_rate(p)
    total = int(Fraction(rec["rested"]) // per_hit)
    removable = total - int(rec["hits_removed"])
    have = int(p.attrs.get("fatigue", 0))
    gone = max(0, min(have, removable))
    rec["hits_removed"] = total
    if gone:
        p.attrs["fatigue"] = have - gone
        if p.attrs["fatigue"] == 0:
            del p.attrs["fatigue"]
    g.emit(
        "rest",
        f"{p.id} rests {mp} MP and removes {gone} fatigue hit(s)",
        rule="OT 6B4",
        piece=p.id,
        removed=gone,
    )
    return gone


def fatigue(p: Piece) -> int:
    return int(p.attrs.get("fatigue", 0))


@implements("OT 6B4")
def combat_fatigue_shift(
    attackers: Sequence[Piece],
    defenders: Sequence[Piece],
    attacker_hq: Piece | None = None,
    defender_hq: Piece | None = None,
) -> int:
    """OT 6B4: the net odds shift fatigue causes in a combat, in levels (positive = up): down one
    level per two hits (or fraction) on the most fatigued attacking unit or the Army HQs the
    attackers trace combat supply through; up likewise for the defender. For the combat rules."""
    a = max(
        [fatigue(p) for p in attackers]
        + ([fatigue(attacker_hq)] if attacker_hq is not None else [])
        + [0]
    )
    d = max(
        [fatigue(p) for p in defenders]
        + ([fatigue(defender_hq)] if defender_hq is not None else [])
        + [0]
    )
    return math.ceil(d / 2) - math.ceil(a / 2)


# ============================================================================ the steps
def _piece(g: Game, action: Action, rule: str) -> Piece:
    pid = action.get("piece")
    p = g.state.pieces.get(pid) if isinstance(pid, str) else None
    if p is None or p.side != action["side"]:
        raise IllegalAction(rule, f"{action['side']} has no unit {pid!r}")
    return p


class MovementStep(GWStep):
    """Shared machinery of the steps in which one side moves units (OT 6, 6D, 6E).

    Frame params: ``side`` (who moves), ``kind`` (movement / reaction / exploitation) and the
    per-unit records kept under ``units``. Handles ``move``, ``rest`` and ``end-phase``; the
    steps of :mod:`.movement_steps` add the other actions of each phase.
    """

    kind = MOVEMENT
    _step_memo: dict[tuple[object, ...], StepInfo] | None = None

    def enter(self, g: Game, f: Frame) -> None:
        f.params.setdefault("kind", self.kind)
        f.params.setdefault("units", {})
        f.params.setdefault("anchors", [])
        for ext in extensions(g):
            ext.on_enter(g, f)

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def label(self, g: Game, f: Frame) -> str:
        return f"{self.title} ({f.params['side']})"

    # ------------------------------------------------------------------ actions
    def movers(self, g: Game, f: Frame) -> list[Piece]:
        return [p for p in units.on_map_units(g, f.params["side"]) if can_move_now(g, f, p) is None]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:

        with listing.scope(g):
            return self._legal_actions(g, f, side)

    def _legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:

        out: list[Action] = []
        lister = self._unit_lister(g, f, side)
        for p in self.movers(g, f):
            out.extend(lister(p))
        self._step_memo = None
        out.extend(self._other_actions(g, f, side))
        return out

    def _other_actions(self, g: Game, f: Frame, side: str, lazy: bool = False) -> list[Action]:
        """The actions listed after the units' one-hex moves and rests: the step's own (rail,
        overruns...), the extensions', and ending the phase when allowed. ``lazy``: without
        those that :meth:`lazy_families` offers."""
        out: list[Action] = list(
            self.eager_extra_actions(g, f, side) if lazy else self.extra_actions(g, f, side)
        )
        for ext in extensions(g):
            out.extend(ext.extension_actions(g, f, side))
        end: Action = {"type": "end-phase", "side": side}
        try:
            self.check_end(g, f, end)  # OT 8B: not while a stack of the side is over the limit
        except IllegalAction:
            return out
        out.append(end)
        return out

    def _unit_lister(self, g: Game, f: Frame, side: str) -> Callable[[Piece], list[Action]]:
        """A function giving the one-hex moves and rests of one mover and its box (fresh dicts,
        in listing order), for the current position; used while legal actions are listed."""
        kind = f.params.get("kind", MOVEMENT)
        ctx = context(g, side, kind)
        table = listing.memo(g, "moves")
        self._step_memo = {}  # this listing's step costs, by unit class
        frame_sig = (
            f.step,
            side,
            repr(sorted((k, v) for k, v in f.params.items() if k != "units")),
        )
        records = f.params.get("units", {})

        def unit_actions(p: Piece) -> list[Action]:
            if g.state.pieces[p.id].loc.kind == "piece":
                return []
            h = units.hex_of(g, p)
            assert h is not None
            group = [p, *[q for q in g.state.contents(p.id) if units.is_unit(q)]]
            # the one-hex moves and rests of this group depend only on its hex and neighbours,
            # the group and its records (listing.move_signature): reuse them while those are
            # unchanged
            gkey = (frame_sig, p.id, tuple(repr(records.get(q.id)) for q in group))

            def group_moves() -> list[Action]:
                key = (*gkey, listing.move_signature(g, h, side))
                hit = table.get(key)
                if hit is None:
                    hit = self._group_actions(g, f, ctx, side, kind, p, group, h, gkey)
                    table[key] = hit
                return hit

            # first by revision: while nothing changed within two hexes (the pieces and owners
            # move_signature reads) nor in the world (its base and markers), not even the
            # signature is computed again
            hit = listing.tracked(
                g,
                ("gw:group-moves", *gkey, h, listing.world_token(g)),
                listing.within2_deps(g, h),
                group_moves,
            )
            return [dict(a) for a in hit]

        return unit_actions

    def families(self, g: Game, f: Frame, side: str) -> list[Family]:
        """The legal actions as families, the units' one-hex moves and rests offered lazily:
        the ``move`` family's actors are the units that may move now (OT 6; one of them may
        find every neighbouring hex closed), the ``rest`` family's the fatigued ones among them
        (OT 6B4), and a unit's options are listed only when asked for. The other actions (rail,
        overruns, the extensions', ending the phase) are listed at once and grouped as
        :func:`.families_of_list` groups them. The flattening of the families holds exactly the
        actions of :meth:`legal_actions`."""
        if type(self).legal_actions is not MovementStep.legal_actions:
            return self._families_of_list(g, f, side)  # a step listing its actions otherwise
        # what the families list is data of the position: kept for it (Cache.position, shared
        # with a clone made in it), so that asking for the families twice in one position (an
        # agent's choose, then its decision) lists nothing twice
        at = ("gw:movement-families", f.step, side)

        def lists() -> tuple[list[str], list[Action]]:
            movers = [p.id for p in self.movers(g, f) if g.state.pieces[p.id].loc.kind != "piece"]
            with listing.scope(g):
                return movers, self._other_actions(g, f, side, lazy=True)

        movers, kept_others = g.cache.position(g.state, at, lists)
        others = [dict(a) for a in kept_others]
        may_move = set(movers)
        made: list[Callable[[Piece], list[Action]]] = []  # made once, at the first ask

        def listed_options(pid: str) -> list[Action]:
            p = g.state.pieces.get(pid)
            if p is None or pid not in may_move:
                return []
            with listing.scope(g):
                try:
                    if not made:
                        made.append(self._unit_lister(g, f, side))
                    else:
                        self._step_memo = {}  # this ask's step costs, by unit class
                    return made[0](p)
                finally:
                    self._step_memo = None

        def unit_options(pid: str) -> list[Action]:
            return g.cache.position(g.state, (*at, "unit", pid), lambda: listed_options(pid))

        def of_type(t: str) -> Callable[[str | None], list[Action]]:
            def options(actor: str | None) -> list[Action]:
                if actor is None:
                    return []
                return [dict(a) for a in unit_options(actor) if a["type"] == t]

            return options

        resters = [pid for pid in movers if fatigue(g.state.pieces[pid])]
        out = [
            Family("move", g.ruleset.action_title("move"), lambda: list(movers), of_type("move")),
            Family("rest", g.ruleset.action_title("rest"), lambda: list(resters), of_type("rest")),
        ]
        for t, actors, options in self.lazy_families(g, f, side):

            def kept_actors(t: str = t, actors: Callable[[], list[str]] = actors) -> list[str]:
                return list(g.cache.position(g.state, (*at, t), actors))

            def scoped(
                actor: str | None, t: str = t, options: Callable[[str], list[Action]] = options
            ) -> list[Action]:
                if actor is None:
                    return []

                def compute() -> list[Action]:
                    with listing.scope(g):
                        return options(actor)

                return [dict(a) for a in g.cache.position(g.state, (*at, t, actor), compute)]

            out.append(Family(t, g.ruleset.action_title(t), kept_actors, scoped))
        out.extend(families_of_list(g, others))
        return out

    def lazy_families(
        self, g: Game, f: Frame, side: str
    ) -> list[tuple[str, Callable[[], list[str]], Callable[[str], list[Action]]]]:
        """Action types of :meth:`extra_actions` that :meth:`families` offers lazily: (type,
        its possible actors, one actor's options), listed in :meth:`extra_actions` before
        everything :meth:`eager_extra_actions` gives. None by default."""
        return []

    def eager_extra_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        """:meth:`extra_actions` less what :meth:`lazy_families` offers."""
        return self.extra_actions(g, f, side)

    def _group_actions(
        self,
        g: Game,
        f: Frame,
        ctx: MoveContext,
        side: str,
        kind: str,
        p: Piece,
        group: list[Piece],
        h: int,
        gkey: tuple[object, ...] | None = None,
    ) -> list[Action]:
        """The one-hex moves (regular and accelerated) and the rests open to a unit and its box.

        With ``gkey`` (what names the group, its records and the frame), each one-hex move's
        answer is kept under ``gkey`` and what that move depends on (:func:`.listing.
        step_signature`: the hex left, the hex entered and the hexside between them, the enemy
        ZOC in the hex left), so that a change next to the group recomputes only the moves
        into the changed hexes."""
        out: list[Action] = []
        targets = listing.memo(g, "move-targets") if gkey is not None else None
        zoc_here = ctx.enemy_zoc.get(h)
        if any(can_move_now(g, f, q) for q in group):
            return out
        accel_options = [False]
        recs = f.params.get("units", {})
        if (
            kind == MOVEMENT
            and not recs.get(p.id, {}).get("moved")
            and all(
                special_units.accel_forbidden(g, q) is None
                and not Fraction(recs.get(q.id, {}).get("rested", 0))
                and not (
                    recs.get(q.id, {}).get("moved") and recs.get(q.id, {}).get("mode") != "accel"
                )
                for q in group
            )
        ):
            accel_options.append(True)
        if mode_of(f, p) == "accel":
            accel_options = [True]
        # the pieces moving (OT 8C2: with a Corps HQs among them, the units staying matter too)
        movers = (
            None
            if targets is None or any(special_units.is_corps_hq(q) for q in group)
            else listing.nested_ids(g, p.id)
        )
        for accel in accel_options:
            rems = {
                q.id: (
                    movement_allowance(g, q, kind, accel or mode_of(f, q) == "accel") - spent(f, q)
                )
                for q in group
            }
            # what the moves read of the movers' allowances (the MPs left, and for the one-hex
            # move of OT 6 whether they have any): named in the key, not read from their hex
            allow = (
                None
                if movers is None
                else tuple((rems[q.id], movement_allowance(g, q, kind) > 0) for q in group)
            )
            for v in g.board.neighbors(h):
                a: Action = {"type": "move", "side": side, "piece": p.id, "to": g.board.label(v)}
                if accel and mode_of(f, p) != "accel":
                    a["accel"] = True
                if targets is None:
                    ok = self._quick_ok(g, f, ctx, group, h, v, accel, rems)
                else:
                    tkey = (
                        gkey,
                        accel,
                        zoc_here,
                        allow,
                        listing.step_signature(g, h, v, side, movers),
                    )
                    ok = targets.get(tkey)  # type: ignore[assignment]
                    if ok is None:
                        ok = self._quick_ok(g, f, ctx, group, h, v, accel, rems)
                        targets[tkey] = ok
                if ok:
                    out.append(a)
        if fatigue(p) and mode_of(f, p) != "accel":
            per_hit = 3 - _fatigue_rate(p)
            if remaining(g, f, p) >= per_hit:
                out.append({"type": "rest", "side": side, "piece": p.id, "mp": per_hit})
        return out

    def _quick_ok(
        self,
        g: Game,
        f: Frame,
        ctx: MoveContext,
        group: list[Piece],
        u: int,
        v: int,
        accel: bool,
        rems: dict[str, Fraction] | None = None,
    ) -> bool:

        memo = getattr(self, "_step_memo", None)
        for q in group:
            if memo is None:
                info = step(ctx, q, u, v, accel)
            else:
                # units of one type, side and nation pay the same for a step (OT 6, TEC)
                k = (q.type, q.side, q.nation, ctx.tags(q), special_units.is_camel(q), u, v, accel)
                info = memo.get(k)
                if info is None:
                    info = kept_step(ctx, q, u, v, accel, k)
                    memo[k] = info
            if info.cost is None:
                return False
            need = info.cost + zoc_exit_cost(ctx, q, u) + overstack_leave_cost(g, q)
            if rems is not None:
                rem = rems[q.id]
            else:
                rem = movement_allowance(
                    g, q, f.params.get("kind", MOVEMENT), accel or mode_of(f, q) == "accel"
                ) - spent(f, q)
            if need > rem and not (not accel and min_move_allowed(g, f, q)):
                return False
        if hqmod.hq_stack_problem(g, group, v) is not None:
            return False

        if stacking.cached_move_stacking_problem(g, group, v) is not None:
            return False
        return stacking.departure_problem(g, group, u) is None

    def extra_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        """Further actions offered by subclasses and other rules (rail, overruns, ...)."""
        return []

    @handles.check("move")
    def check_move(self, g: Game, f: Frame, action: Action) -> None:
        """OT 6: a move the unit (and its box) may make now."""
        plan_move(g, f, action)

    @handles.apply("move")
    def apply_move(self, g: Game, f: Frame, action: Action) -> None:
        pm = plan_move(g, f, action, fresh=True)
        execute_move(g, f, pm, rule=self.rule)

    @handles.check("rest")
    def check_rest(self, g: Game, f: Frame, action: Action) -> None:
        """OT 6B4: resting removes fatigue for MPs."""
        self._check_rest(g, f, action)

    @handles.apply("rest")
    def apply_rest(self, g: Game, f: Frame, action: Action) -> None:
        rest(g, f, _piece(g, action, "OT 6B4"), Fraction(str(action["mp"])))

    @handles.check("end-phase")
    def check_end_phase(self, g: Game, f: Frame, action: Action) -> None:
        """OT 8B: not while a stack of the side is over the limit."""
        self.check_end(g, f, action)

    @handles.apply("end-phase")
    def apply_end_phase(self, g: Game, f: Frame, action: Action) -> None:
        self.end_phase(g, f)
        g.finish(f)

    def _check_rest(self, g: Game, f: Frame, action: Action) -> None:
        p = _piece(g, action, "OT 6B4")
        why = can_move_now(g, f, p)
        if why:
            raise IllegalAction("OT 6B4", why)
        if mode_of(f, p) == "accel":
            raise IllegalAction(
                "OT 6B3", f"{p.id} uses accelerated movement and may spend MPs only on moving"
            )
        try:
            mp = Fraction(str(action.get("mp")))
        except (ValueError, TypeError):
            raise IllegalAction("OT 6B4", "'mp' must be a number") from None
        if mp <= 0 or mp > remaining(g, f, p):
            raise IllegalAction(
                "OT 6B4", f"{p.id} has {remaining(g, f, p)} MP left; cannot rest {mp}"
            )

    def check_end(self, g: Game, f: Frame, action: Action) -> None:
        """OT 8B: the phase ends only within the stacking limit (the violations are kept for the
        position between actions: listing the end of the phase and checking it read them
        once)."""
        side = f.params["side"]
        if g.state.in_action:
            bad = stacking.violations(g, side=side)
        else:
            bad = g.cache.position(
                g.state, ("gw:stack-violations", side), lambda: stacking.violations(g, side=side)
            )
        if bad:
            raise IllegalAction(
                "OT 8B", f"stacking limit exceeded at the end of the phase: {bad[0]}"
            )

    def end_phase(self, g: Game, f: Frame) -> None:
        """Work done when the player ends the phase (fatigue, artillery disruption, stacking
        record)."""

        kind = f.params.get("kind", MOVEMENT)
        apply_fatigue(g, f)
        for ext in extensions(g):
            ext.on_end_phase(g, f)
        for pid, rec in sorted(f.params.get("units", {}).items()):
            p = g.state.pieces.get(pid)
            if p is not None and rec.get("moved") and units.hex_of(g, p) is not None:
                disruption_after_movement(g, p, kind)
        for p in g.state.pieces.values():
            st = p.status
            if zoc.ACCEL in st:
                st.discard(zoc.ACCEL)
        zoc.update_ownership(g)
        stacking.record_phase_end(g, self.title)
        g.emit("phase", f"{f.params['side']} ends the {self.title.lower()}", rule=self.rule)


def _listed_for_exploitation(g: Game, p: Piece) -> bool:
    """OT 4A6 (when chosen over OT 6E): only c/m, water-only, cavalry, light, mountain and infantry
    units."""
    tags = special_units.movement_tags(g, p)
    return (
        units.is_cm(p)
        or units.is_water_only(p)
        or bool(tags & {"cavalry", "light", "mountain", "infantry"})
    )


@implements("OT 12B2", "OT 12B3", "OT 12B4")
def disruption_after_movement(g: Game, p: Piece, phase_kind: str) -> None:
    """Artillery that moves in a movement or reaction movement phase is disrupted on completing
    its movement: non-German heavy artillery before Feb I 17 (OT 12B2); siege artillery always
    (OT 12B3); heavy siege artillery badly if non-Austro-Hungarian/German before Feb I 17, else
    disrupted (OT 12B4)."""

    if phase_kind not in ("movement", "reaction"):
        return
    kind = units.utype(p).artillery
    german = is_german(g, p)
    ah_or_german = german or rulebook_name(g, p.nation) in ("Austria-Hungary",)
    if kind == "heavy" and not german and calendar.before(g, "Feb I 17"):
        units.disrupt(g, p, rule="OT 12B2", reason="heavy artillery moved")
    elif kind == "siege":
        units.disrupt(g, p, rule="OT 12B3", reason="siege artillery moved")
    elif kind == "heavy-siege":
        badly = (not ah_or_german) and calendar.before(g, "Feb I 17")
        units.disrupt(g, p, badly=badly, rule="OT 12B4", reason="heavy siege artillery moved")


@implements("OT 14B2")
def blocks(g: Game, side: str, s: int) -> bool:
    """OT 14B2: an enemy water-only unit with an attack strength above 0 on a hexside stops units
    of ``side`` moving or attacking across it."""
    enemy = nations.other_side(side)
    return any(
        q.side == enemy and units.is_water_only(q) and units.printed_attack(q) > 0
        for q in g.state.at(Loc.hexside(s))
    )


@implements("OT 14C")
def cm_effects(g: Game, p: Piece) -> dict[str, object]:
    """OT 14C: what being c/m means, and where each effect is applied: double RE for rail, river,
    cartage and naval transport (``units.transport_re``), the c/m terrain costs of the TEC
    (``terrain.cost_set``), and the whole movement rating in reserve commitment and exploitation
    (``movement.fraction_for``). Returns those values for the unit (empty for non-c/m units)."""
    if not units.is_cm(p):
        return {}
    return {
        "transport_re": units.transport_re(g, p, "rail"),
        "cost_set": terrain.cost_set(g, p),
        "exploitation_share": fraction_for(g, p, EXPLOITATION),
    }


@implements("OT 14B1", "OT 14B3", "OT 14D2")
def entry_problem(g: Game, p: Piece, i: int) -> str | None:
    """Why a unit may not enter hex ``i`` by ground movement because of its special type: camel
    units outside weather zones D-I (OT 14D2); the besieged side's units entering a hex under siege
    (OT 15G). (Rail-only, water-only and zero-movement units do not move overland at all:
    ``movement.can_move_now``.)"""
    return special_units.camel_zone_problem(g, p, i) or siege.entry_problem(g, p, i)


def may_enter_enemy_hex(g: Game, side: str, p: Piece, v: int) -> bool:
    """Exceptions to OT 6's ban on entering an enemy-occupied and enemy-owned hex from Rule 15:
    the sieging player's units enter a hex under siege, or one he may put under siege now (OT 15G).
    """
    return siege.sieging_entry_allowed(g, side, v)
