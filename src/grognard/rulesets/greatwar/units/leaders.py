"""OT 14P: leaders -- assignment to Army HQs (14P), influencing activation checks (14P1) and
combat (14P2).

A leader is a piece of type ``leader``: on the map it rides inside the Army HQs it is assigned to
(``at = { inside = "<hq>" }``), off the map it waits in the available leader pool (the box
``leaders:<side>``). Its three ratings (left, centre, right, each -1..+1) are the piece attribute
``ratings`` or, failing that, the ``leaders`` chart entry of its name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar.charts import load_charts
from grognard.rulesets.greatwar.mechanics import gw, ip_id
from grognard.rulesets.greatwar.step import GWStep
from grognard.rulesets.greatwar.units import special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game


def is_leader(p: Piece) -> bool:
    return "leader" in units.utype(p).tags


def _chart(g: Game) -> dict[str, Any]:

    return dict(load_charts(g.scenario.table_overrides).raw["leaders"].body.get("leader", {}))


@implements("OT 14P")
def ratings(g: Game, p: Piece) -> tuple[int, int, int]:
    """OT 14P: a leader's three ratings (left, centre, right), each from -1 to +1."""
    r = p.attrs.get("ratings")
    if isinstance(r, list) and len(r) == 3:
        return int(r[0]), int(r[1]), int(r[2])
    chart = _chart(g)
    for name, d in chart.items():
        if (
            p.name == name
            or p.id == name
            or p.name in d.get("aliases", [])
            or p.id in d.get("aliases", [])
        ):
            v = d["ratings"]
            return int(v[0]), int(v[1]), int(v[2])
    return 0, 0, 0


@implements("OT 14P1", "OT 14P2")
def rating_for_roll(r: tuple[int, int, int], roll: int) -> int:
    """OT 14P1: a roll of 1-2 uses the leftmost rating, 3-4 the centre one, 5-6 the rightmost."""
    return r[0] if roll <= 2 else (r[1] if roll <= 4 else r[2])


def hq_of(g: Game, leader: Piece) -> Piece | None:
    """The Army HQs a leader is assigned to (None in the pool)."""
    if leader.loc.kind != "piece":
        return None
    hq = g.state.pieces.get(str(leader.loc.ref))
    return hq if hq is not None and special_units.is_army_hq(hq) else None


def leader_of(g: Game, hq: Piece) -> Piece | None:
    return next((q for q in g.state.contents(hq.id) if is_leader(q)), None)


def pool_box(side: str) -> str:
    return f"leaders:{side}"


# ----------------------------------------------------------------------------- assignment (OT 14P)
def _leader_problem(g: Game, side: str, action: Action) -> tuple[Piece | None, str | None]:
    lid = action.get("leader")
    ld = g.state.pieces.get(str(lid)) if lid is not None else None
    if ld is None or ld.side != side or not is_leader(ld):
        return None, f"{lid!r} is not a leader of {side}"
    if gw(g).get("phasing") != side:
        return None, "leaders are switched only in their owner's initial phase"
    return ld, None


@implements("OT 14P")
def unassignment_problem(g: Game, side: str, action: Action) -> str | None:
    """OT 14P: in his initial phases a player may take a leader off its Army HQs to the leader
    pool."""
    ld, why = _leader_problem(g, side, action)
    if ld is None:
        return why
    return None if hq_of(g, ld) is not None else f"{ld.id} is not assigned to an Army HQs"


@implements("OT 14P")
def assignment_problem(g: Game, side: str, action: Action) -> str | None:
    """OT 14P: in his initial phases a player may take a leader off the map to the leader pool, or
    put a pooled leader on one of his Army HQs of its nation (one leader per HQs). A leader taken
    off an HQs must spend at least one friendly initial phase in the pool before it is assigned
    again (it may not return in the initial phase it left, interpretation default)."""
    ld, why = _leader_problem(g, side, action)
    if ld is None:
        return why
    if hq_of(g, ld) is not None:
        return (
            f"{ld.id} is on the map: take it off first (it then spends an initial phase in the"
            " pool)"
        )
    if ld.attrs.get("pool_since") == ip_id(g):
        return (
            f"{ld.id} entered the leader pool in this initial phase and must spend one there (OT"
            " 14P)"
        )
    hq = g.state.pieces.get(str(action.get("hq")))
    if (
        hq is None
        or hq.side != side
        or not special_units.is_army_hq(hq)
        or units.hex_of(g, hq) is None
    ):
        return f"{action.get('hq')!r} is not an Army HQs of {side} on the map"
    if leader_of(g, hq) is not None:
        return f"{hq.id} already has a leader (OT 14P)"
    if ld.nation and hq.nation and ld.nation != hq.nation:
        return f"{ld.id} leads {ld.nation} forces, not {hq.nation}"
    return None


@implements("OT 14P")
def apply_unassignment(g: Game, side: str, action: Action) -> None:
    """OT 14P: the leader goes to the leader pool (and spends the initial phase there)."""
    ld = g.state.pieces[str(action["leader"])]
    g.state.move(ld.id, Loc.box(pool_box(side)))
    ld.attrs["pool_since"] = ip_id(g)
    g.emit("leader", f"{ld.id} returns to the leader pool", rule="OT 14P", piece=ld.id)


@implements("OT 14P")
def apply_assignment(g: Game, side: str, action: Action) -> None:
    """OT 14P: the leader goes onto the Army HQs."""
    ld = g.state.pieces[str(action["leader"])]
    g.state.move(ld.id, Loc.inside(str(action["hq"])))
    ld.attrs.pop("pool_since", None)
    g.emit("leader", f"{ld.id} is assigned to {action['hq']}", rule="OT 14P", piece=ld.id)


def ip_actions(g: Game, side: str) -> list[Action]:
    if gw(g).get("phasing") != side:
        return []
    out: list[Action] = []
    hqs = [p for p in units.on_map_units(g, side) if special_units.is_army_hq(p)]
    for ld in sorted(
        (q for q in g.state.pieces.values() if q.side == side and is_leader(q)), key=lambda q: q.id
    ):
        if hq_of(g, ld) is not None:
            out.append({"type": "unassign-leader", "side": side, "leader": ld.id})
            continue
        for hq in hqs:
            a: Action = {"type": "assign-leader", "side": side, "leader": ld.id, "hq": hq.id}
            if assignment_problem(g, side, a) is None:
                out.append(a)
    return out


# ----------------------------------------------------------------------------- activation (OT 14P1)
@implements("OT 14P1")
def activation_modifier(g: Game, hqs: Sequence[Piece], leader: Piece) -> int:
    """OT 14P1: a leader assigned to the HQs being checked (or, for a coordination attempt, OT 14M3,
    to any of them -- one leader only) may try to influence the check: its owner rolls a die and the
    rating it selects modifies the activation roll (rolled before the activation roll,
    interpretation default)."""
    r = g.roll("d6", f"leader {leader.id} influences the activation check", "OT 14P1")
    v = rating_for_roll(ratings(g, leader), r.natural)
    g.emit(
        "leader",
        f"{leader.id}: activation check modified by {v:+d}",
        rule="OT 14P1",
        piece=leader.id,
        modifier=v,
    )
    return v


# ----------------------------------------------------------------------------- combat (OT 14P2)
@implements("OT 14P2")
def eligible_leaders(g: Game, side: str, pieces: Sequence[Piece]) -> list[Piece]:
    """OT 14P2: a leader may influence a combat if every unit of its side in the combat is in the
    zone of influence of its (active, OT 14M1) Army HQs."""
    out = []
    for ld in sorted(
        (q for q in g.state.pieces.values() if q.side == side and is_leader(q)), key=lambda q: q.id
    ):
        hq = hq_of(g, ld)
        if hq is None or not special_units.hq_active(hq) or not pieces:
            continue
        if all(special_units.in_zoi(g, hq, p) for p in pieces):
            out.append(ld)
    return out


@implements("OT 14P2")
def push_leader_step(g: Game, sit: Any) -> bool:
    """OT 14P2: just before a combat is resolved, the defender and then the attacker say whether an
    eligible leader (one per side) will try to influence the combat roll (step
    ``leader-influence``). Returns whether the step was pushed (False: no eligible leader)."""
    gw(g)["leader_drm"] = 0
    att = eligible_leaders(g, sit.attacker_side, sit.attackers)
    dfn = eligible_leaders(g, sit.defender_side, sit.defenders)
    if not att and not dfn:
        return False
    g.push(
        "leader-influence",
        {
            "order": [s for s, ls in ((sit.defender_side, dfn), (sit.attacker_side, att)) if ls],
            "defender": sit.defender_side,
            "attacker": sit.attacker_side,
            "eligible": {
                sit.attacker_side: [p.id for p in att],
                sit.defender_side: [p.id for p in dfn],
            },
            "chosen": {},
            "hex": g.board.label(sit.hex),
        },
    )
    return True


def leader_drm(g: Game) -> int:
    """OT 14P2: the combat roll modifier the leaders produced (after ``leader-influence``)."""
    return int(gw(g).get("leader_drm", 0))


@implements("OT 14P2")
def combat_modifier(g: Game, leader: Piece, defender: bool) -> int:
    """OT 14P2: a leader's roll, read as in OT 14P1; a defending leader's rating has its sign
    reversed."""
    r = g.roll("d6", f"leader {leader.id} influences the combat", "OT 14P2")
    v = rating_for_roll(ratings(g, leader), r.natural)
    if defender:
        v = -v
    g.emit(
        "leader",
        f"{leader.id}: combat roll modified by {v:+d}",
        rule="OT 14P2",
        piece=leader.id,
        modifier=v,
    )
    return v


@implements("OT 14P2")
class LeaderInfluence(GWStep):
    """OT 14P2: the defender, then the attacker, announces a leader to influence the combat (or
    declines); then the announced leaders roll and the modifiers are summed."""

    name = "leader-influence"
    title = "Leaders influence the combat"
    rule = "OT 14P2"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return f.params["order"][:1]

    def label(self, g: Game, f: Frame) -> str:
        return f"Leaders at {f.params['hex']}"

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return [
            *[
                {"type": "use-leader", "side": side, "leader": lid}
                for lid in f.params["eligible"][side]
            ],
            {"type": "decline", "side": side},
        ]

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction(
            "OT 14P2",
            f"{action.get('leader')!r} is not an eligible leader (every unit of the side must"
            " be in its HQs' ZOI)",
        )

    @handles.check("use-leader")
    def check_use(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14P2: only an eligible leader."""
        if action.get("leader") not in f.params["eligible"][action["side"]]:
            self.refuse(g, f, action)

    @handles.apply("use-leader")
    def apply_use(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14P2: the side commits its leader; the modifiers are summed when both have spoken."""
        side = action["side"]
        f.params["chosen"][side] = action["leader"]
        g.emit("leader", f"{side} commits {action['leader']} to the combat", rule="OT 14P2")
        self._next(g, f)

    @handles.apply("decline")
    def apply_decline(self, g: Game, f: Frame, action: Action) -> None:
        self._next(g, f)

    def _next(self, g: Game, f: Frame) -> None:
        f.params["order"] = f.params["order"][1:]
        if f.params["order"]:
            return
        total = 0
        for s in (f.params["defender"], f.params["attacker"]):
            lid = f.params["chosen"].get(s)
            if lid:
                total += combat_modifier(g, g.state.pieces[lid], s == f.params["defender"])
        gw(g)["leader_drm"] = total
        if f.params["chosen"]:
            g.emit(
                "leader",
                f"leadership modifies the combat roll by {total:+d}",
                rule="OT 14P2",
                modifier=total,
            )
        g.finish(f)
