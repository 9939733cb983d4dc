"""OT 14B2: water-only units (river gunboats, printed movement rating "W").

A water-only unit sits on a hexside (``Loc.hexside``): a navigable inland waterway hexside
(OT 7C1) or an unfrozen coastal hexside (an all-sea hexside of a hex with land). It moves along
connected such hexsides (sharing a corner) with 40 MP, 1 MP per hexside, in every kind of movement
but accelerated, ignoring ZOCs (action ``gunboat-move`` {piece, hexsides}). Entering a hexside
interdicted by enemy coast defenses, or starting any phase but an initial phase on one, brings an
immediate attack: 2d6 less the naval gunnery strength of the coast defenses in the two hexes of the
hexside -- 0 or less eliminated, +1 to +5 turned back, +6 or more no effect. A gunboat with an
attack strength blocks enemy movement and attacks across its hexside; it overruns along connected
hexsides (``gunboat-overrun``), may attack the two hexes of its hexside (not advancing) or a
connected hexside (advancing), may join the defense of those hexes, and retreats only along a
connected hexside.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar.charts import load_charts
from grognard.rulesets.greatwar.combat import combat_strength
from grognard.rulesets.greatwar.map import terrain
from grognard.rulesets.greatwar.map.weather import frozen_at
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.movement import movement, overrun, rivers
from grognard.rulesets.greatwar.step import GWStep, MovementExtension
from grognard.rulesets.greatwar.units import nations, units

if TYPE_CHECKING:
    from grognard.core.game import Game

ALLOWANCE = Fraction(40)
TURN_BACK_MP = Fraction(5)


def ends(g: Game, s: int) -> tuple[int, int]:
    a, b = (int(x) for x in g.board.side_hexes[s])
    return a, b


def side_label(g: Game, s: int) -> str:
    a, b = ends(g, s)
    return f"{g.board.label(a) if a >= 0 else '?'}/{g.board.label(b) if b >= 0 else '?'}"


def side_from_label(g: Game, text: object) -> int | None:
    if not isinstance(text, str) or "/" not in text:
        return None
    a, _, b = text.partition("/")
    if not (g.board.has_label(a) and g.board.has_label(b)):
        return None
    i, j = g.board.idx(a), g.board.idx(b)
    if j not in g.board.neighbors(i):
        return None
    return g.board.side_between(i, j)


def side_of(g: Game, p: Piece) -> int | None:
    loc = g.state.where(p.id)
    return int(loc.ref) if loc.kind == "hexside" else None


@implements("OT 14B2")
def coastal(g: Game, s: int) -> bool:
    """OT 14B2: a coastal hexside is an all-sea hexside forming part of a hex that contains land
    (a ``sea`` hexside, or the side between an all-sea hex and a land hex); it counts while
    unfrozen."""

    a, b = ends(g, s)
    if a < 0 or b < 0:
        return False
    land = [h for h in (a, b) if terrain.is_land(g, h)]
    sea = g.board.side_has(s, "sea") or (terrain.terrain(g, a) == "sea") != (
        terrain.terrain(g, b) == "sea"
    )
    if not sea or not land:
        return False
    return not any(frozen_at(g, h) for h in (a, b))


@implements("OT 14B2")
def water_side(g: Game, s: int) -> bool:
    """OT 14B2: a hexside a water-only unit may occupy: navigable (OT 7C1) or unfrozen coastal."""

    return rivers.navigable(g, s) or coastal(g, s)


def connected(g: Game, s: int) -> list[int]:
    """Water hexsides meeting ``s`` at a corner."""

    return [t for t in rivers.connected_sides(g, s) if water_side(g, t)]


@implements("OT 14B2")
def ngs(g: Game, p: Piece) -> Fraction:
    """The naval gunnery strength of a unit as a coast defense (its face value ``gunnery``, else the
    provisional Coast Defenses Summary chart)."""

    v = units.printed(p, "gunnery")
    if isinstance(v, Fraction):
        return v
    body = load_charts(g.scenario.table_overrides).raw["coast-defenses"].body
    for row in body.get("row", []):
        m = row.get("match", {})
        if "artillery" in m and units.utype(p).artillery not in m["artillery"]:
            continue
        if "sizes" in m and units.size_category(p) not in m["sizes"]:
            continue
        return Fraction(str(row.get("ngs_per_attack", 0))) * units.printed_attack(p) + Fraction(
            str(row.get("ngs", 0))
        )
    return Fraction(0)


@implements("OT 14B2")
def interdiction(g: Game, side: str, s: int) -> Fraction:
    """OT 14B2: the total naval gunnery strength of the enemy coast defenses in the two hexes of a
    hexside (0: not interdicted)."""
    enemy = nations.other_side(side)
    total = Fraction(0)
    for h in ends(g, s):
        if h < 0:
            continue
        for q in units.units_in_hex(g, h, enemy):
            total += ngs(g, q) * units.disruption_factors(q)["gunnery"]
    return total


@implements("OT 14B2")
def interdiction_result(differential: Fraction) -> str:
    """OT 14B2: 0 or less eliminated, +1 to +5 turned back, +6 or more no effect (fractional
    differentials: below +1 eliminated, from +1 to below +6 turned back, interpretation default)."""
    if differential < 1:
        return "eliminated"
    if differential < 6:
        return "turned-back"
    return "no-effect"


@implements("OT 14B2")
def interdict(g: Game, p: Piece, s: int) -> str:
    """OT 14B2: the enemy's attack on a water-only unit on an interdicted hexside: two dice, less
    the
    coast defenses' naval gunnery strength. Returns the result; an eliminated unit is eliminated
    here (turning back is left to the caller)."""
    strength = interdiction(g, p.side, s)
    r = g.roll("2d6", f"coast defenses fire on {p.id} at {side_label(g, s)}", "OT 14B2")
    diff = Fraction(r.natural) - strength
    res = interdiction_result(diff)
    g.emit(
        "interdiction",
        f"{p.id} at {side_label(g, s)}: {r.natural} - {strength} = {diff}: {res.replace('-', ' ')}",
        rule="OT 14B2",
        piece=p.id,
        differential=str(diff),
        result=res,
    )
    if res == "eliminated":
        units.eliminate(g, p, "OT 14B2", "sunk by coast defenses")
    return res


def adjacent_hexes(g: Game, p: Piece) -> list[int]:
    """OT 14B2: the two hexes of a water-only unit's hexside (it may attack them, or join their
    defense)."""
    s = side_of(g, p)
    return [h for h in ends(g, s) if h >= 0] if s is not None else []


@implements("OT 14B2")
def may_join_defense(g: Game, p: Piece, hex_: int) -> bool:
    """OT 14B2: a water-only unit may (if its owner wishes) take part in the defense of a hex of its
    hexside."""
    return hex_ in adjacent_hexes(g, p)


@implements("OT 14B2")
def retreat_options(g: Game, p: Piece) -> list[int]:
    """OT 14B2: a water-only unit retreats only to a connected waterway or coastal hexside."""
    s = side_of(g, p)
    if s is None:
        return []
    enemy = nations.other_side(p.side)
    return [
        t for t in connected(g, s) if not any(q.side == enemy for q in g.state.at(Loc.hexside(t)))
    ]


@implements("OT 14B2")
def retreat_to(g: Game, p: Piece, t: int) -> None:
    """OT 14B2: a water-only unit retreats to a connected hexside; if that hexside is interdicted
    and
    the unit is turned back there, it is eliminated instead."""
    g.state.move(p.id, Loc.hexside(t))
    g.emit("retreat", f"{p.id} retreats to {side_label(g, t)}", rule="OT 14B2", piece=p.id)
    if interdiction(g, p.side, t) > 0:
        res = interdict(g, p, t)
        if res == "turned-back":
            units.eliminate(g, p, "OT 14B2", "turned back while retreating")


# ----------------------------------------------------------------------------- movement
def _rec(f: Frame, p: Piece, g: Game) -> dict[str, Any]:

    return movement.record(f, p, g)


def remaining(g: Game, f: Frame, p: Piece) -> Fraction:

    share = movement.fraction_for(g, p, f.params.get("kind", movement.MOVEMENT))
    allowance = Fraction(math.floor(ALLOWANCE * share * units.disruption_factors(p)["move"]))
    return allowance - Fraction(f.params.get("units", {}).get(p.id, {}).get("spent", 0))


def _can_move(g: Game, f: Frame, p: Piece) -> str | None:

    if not units.is_water_only(p) or p.side != f.params.get("side") or side_of(g, p) is None:
        return f"{p.id} is not a water-only unit of the moving side on a hexside"
    rec = f.params.get("units", {}).get(p.id, {})
    if rec.get("done"):
        return f"{p.id} has finished moving this phase"
    kind = f.params.get("kind", movement.MOVEMENT)
    if kind == movement.REACTION and p.id not in f.params.get("eligible", []):
        return f"{p.id} is not in the zone of influence of the active Army HQs being moved (OT 6D)"
    if kind == movement.RESERVE and p.id not in f.params.get("ready", []):
        return f"{p.id} did not succeed in a reserve commitment roll (OT 6C)"
    return None


@implements("OT 14B2")
def move_problem(g: Game, f: Frame, action: Action) -> tuple[Piece, list[int]] | str:
    """OT 14B2: a water-only move: along connected water hexsides, 1 MP each from its 40 (its share
    in reserve commitment and exploitation is the whole allowance), ZOCs ignored, never across a
    hexside held by the enemy; an interdicted hexside may be entered only as the last one of a move
    (its attack is resolved there)."""
    p = g.state.pieces.get(str(action.get("piece")))
    if p is None:
        return f"no unit {action.get('piece')!r}"
    why = _can_move(g, f, p)
    if why:
        return why
    raw = action.get("hexsides")
    if not isinstance(raw, list) or not raw:
        return "'hexsides' must list the hexsides entered, 'AAAA/BBBB'"
    path = []
    for lab in raw:
        s = side_from_label(g, lab)
        if s is None:
            return f"{lab!r} is not a hexside of the map"
        path.append(s)
    cur = side_of(g, p)
    assert cur is not None
    enemy = nations.other_side(p.side)
    for n, s in enumerate(path):
        if s not in connected(g, cur):
            return f"{side_label(g, s)} is not a water hexside connected to {side_label(g, cur)}"
        if any(q.side == enemy for q in g.state.at(Loc.hexside(s))):
            return f"{side_label(g, s)} holds enemy units (overrun them instead)"
        if interdiction(g, p.side, s) > 0 and n < len(path) - 1:
            return (
                f"{side_label(g, s)} is interdicted: the move stops there for the coast defenses'"
                " attack"
            )
        cur = s
    if Fraction(len(path)) > remaining(g, f, p):
        return f"{p.id} needs {len(path)} MP and has {remaining(g, f, p)}"
    return p, path


def do_move(g: Game, f: Frame, p: Piece, path: list[int]) -> None:
    rec = _rec(f, p, g)
    prev = side_of(g, p)
    for s in path:
        prev = side_of(g, p)
        g.state.move(p.id, Loc.hexside(s))
        rec["spent"] = Fraction(rec["spent"]) + 1
    rec["moved"] = True
    g.emit(
        "gunboat-move",
        f"{p.id} moves to {side_label(g, path[-1])}",
        rule="OT 14B2",
        piece=p.id,
        path=[side_label(g, s) for s in path],
    )
    last = path[-1]
    if interdiction(g, p.side, last) > 0:
        res = interdict(g, p, last)
        if res == "turned-back" and prev is not None:
            g.state.move(p.id, Loc.hexside(prev))
            rec["spent"] = Fraction(rec["spent"]) + TURN_BACK_MP
            g.emit(
                "interdiction",
                f"{p.id} is turned back to {side_label(g, prev)} and loses 5 MP",
                rule="OT 14B2",
                piece=p.id,
            )


@implements("OT 14B2")
def overrun_problem(g: Game, f: Frame, action: Action) -> tuple[Piece, int, list[Piece]] | str:
    """OT 14B2 / 6F: a water-only unit overruns enemy units (naval units included, even those with
    no gunnery strength) on a connected water hexside at 10:1, paying 1 MP to enter plus the
    overrun cost."""

    p = g.state.pieces.get(str(action.get("piece")))
    if p is None:
        return f"no unit {action.get('piece')!r}"
    why = _can_move(g, f, p)
    if why:
        return why
    s = side_from_label(g, action.get("target"))
    cur = side_of(g, p)
    if s is None or cur is None or s not in connected(g, cur):
        return "the target must be a water hexside connected to the unit's"
    enemy = nations.other_side(p.side)
    defenders = [q for q in g.state.at(Loc.hexside(s)) if q.side == enemy]
    if not defenders:
        return f"no enemy units on {side_label(g, s)}"
    att = units.printed_attack(p) * units.disruption_factors(p)["attack"]
    dfn = sum(
        (units.printed_defense(q) * units.disruption_factors(q)["defense"] for q in defenders),
        Fraction(0),
    )
    if combat_strength.overrun_ratio(att, dfn) < combat_strength.REQUIRED_ODDS:
        return f"the overrun of {side_label(g, s)} is below 10:1 (OT 6F1)"
    need = 1 + overrun.overrun_mp_cost(g, p)
    if need > remaining(g, f, p):
        return f"{p.id} needs {need} MP to overrun and has {remaining(g, f, p)}"
    return p, s, defenders


class WaterOnlyExtension(MovementExtension):
    """Water-only movement and overruns in the movement-type steps."""

    def extension_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = []
        for p in sorted(
            (
                q
                for q in g.state.pieces.values()
                if q.loc.kind == "hexside" and q.side == side and units.is_water_only(q)
            ),
            key=lambda q: q.id,
        ):
            if _can_move(g, f, p) is not None:
                continue
            cur = side_of(g, p)
            assert cur is not None
            for s in connected(g, cur):
                a: Action = {
                    "type": "gunboat-move",
                    "side": side,
                    "piece": p.id,
                    "hexsides": [side_label(g, s)],
                }
                if not isinstance(move_problem(g, f, a), str):
                    out.append(a)
                o: Action = {
                    "type": "gunboat-overrun",
                    "side": side,
                    "piece": p.id,
                    "target": side_label(g, s),
                }
                if not isinstance(overrun_problem(g, f, o), str):
                    out.append(o)
        return out

    @handles.check("gunboat-move")
    def check_gunboat_move(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14B2: a water-only unit moves along connected water hexsides."""
        res = move_problem(g, f, action)
        if isinstance(res, str):
            raise IllegalAction("OT 14B2", res)

    @handles.check("gunboat-overrun")
    def check_gunboat_overrun(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14B2: a water-only unit overruns a hexside."""
        res = overrun_problem(g, f, action)
        if isinstance(res, str):
            raise IllegalAction("OT 14B2", res)

    @handles.apply("gunboat-move")
    def apply_gunboat_move(self, g: Game, f: Frame, action: Action) -> None:
        res = move_problem(g, f, action)
        assert not isinstance(res, str)
        p, path = res
        do_move(g, f, p, path)

    @handles.apply("gunboat-overrun")
    def apply_gunboat_overrun(self, g: Game, f: Frame, action: Action) -> None:

        got = overrun_problem(g, f, action)
        assert not isinstance(got, str)
        p, s, defenders = got
        before = side_of(g, p)
        for q in defenders:
            units.eliminate(g, q, "OT 6F1", f"overrun by {p.id}")
        rec = _rec(f, p, g)
        rec["spent"] = Fraction(rec["spent"]) + 1 + overrun.overrun_mp_cost(g, p)
        rec["moved"] = True
        g.state.move(p.id, Loc.hexside(s))
        g.emit("gunboat-overrun", f"{p.id} overruns {side_label(g, s)}", rule="OT 14B2", piece=p.id)
        if (
            interdiction(g, p.side, s) > 0
            and interdict(g, p, s) == "turned-back"
            and before is not None
        ):
            g.state.move(p.id, Loc.hexside(before))
            rec["spent"] = Fraction(rec["spent"]) + TURN_BACK_MP
            g.emit(
                "interdiction",
                f"{p.id} is turned back to {side_label(g, before)} and loses 5 MP",
                rule="OT 14B2",
                piece=p.id,
            )


# ----------------------------------------------------------------------------- phase starts
@implements("OT 14B2")
def phase_start(g: Game, phase: str) -> None:
    """OT 14B2: every water-only unit beginning a phase other than an initial phase on an
    interdicted hexside is attacked; a unit turned back retreats to a connected water hexside of
    its owner's choice (step ``gunboat-retreat``)."""
    if phase == "initial":
        return
    for p in sorted(
        (q for q in g.state.pieces.values() if q.loc.kind == "hexside" and units.is_water_only(q)),
        key=lambda q: q.id,
    ):
        s = side_of(g, p)
        if s is None or interdiction(g, p.side, s) <= 0:
            continue
        res = interdict(g, p, s)
        if res == "turned-back":
            opts = retreat_options(g, p)
            if not opts:
                units.eliminate(g, p, "OT 14B2", "turned back with no connected hexside")
            else:
                g.push(
                    "gunboat-retreat",
                    {"side": p.side, "piece": p.id, "options": [side_label(g, t) for t in opts]},
                )


@implements("OT 14B2")
class GunboatRetreat(GWStep):
    """OT 14B2: a water-only unit turned back at the start of a phase retreats to a connected water
    hexside chosen by its owner."""

    name = "gunboat-retreat"
    title = "Water-only unit turned back"
    rule = "OT 14B2"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return [
            {"type": "retreat", "side": side, "piece": f.params["piece"], "to": t}
            for t in f.params["options"]
        ]

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction(
            "OT 14B2", f"retreat {f.params['piece']} to one of {', '.join(f.params['options'])}"
        )

    @handles.check("retreat")
    def check_retreat(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14B2: to one of the connected water hexsides offered."""
        if action.get("to") not in f.params["options"]:
            self.refuse(g, f, action)

    @handles.apply("retreat")
    def apply_retreat(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[f.params["piece"]]
        s = side_from_label(g, action["to"])
        assert s is not None
        g.state.move(p.id, Loc.hexside(s))
        g.emit("retreat", f"{p.id} is turned back to {action['to']}", rule="OT 14B2", piece=p.id)
        g.finish(f)


def setup_check(g: Game) -> list[str]:
    """Water-only units must start on water hexsides."""
    out = []
    for p in g.state.pieces.values():
        if p.loc.kind == "hexside" and units.is_water_only(p) and not water_side(g, int(p.loc.ref)):
            out.append(
                f"OT 14B2: {p.id} is on {side_label(g, int(p.loc.ref))}, which is neither navigable"
                " nor coastal"
            )
    gw(g)
    return out
