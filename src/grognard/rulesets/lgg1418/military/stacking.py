"""LGG 10: stacking.

10-A: at most 6 corps per hex, not counting support units, HQs, generals, units in an HQ or
GHQ reserve, fortresses, garrison corps inside their fortress, or the enemy's units in a
battle hex. Units of different armies may not stack, except in a battle hex when their
armies are coordinated; two HQs may not stack, nor two GHQs. 10-B: desert 2 corps, mountain
4 corps and no tanks, high mountain 1 mountain corps and no support unit, a beach during a
landing 4 corps and 1 support unit whatever the terrain. 10-C: foreign units only in the
armies allowed to integrate them (:func:`.counters.foreign_allowed`). 10-D: the limits may be
exceeded during movement but must hold at its end; an excess unit then moves to an adjacent
hex toward the rear or is eliminated (the activation's end-of-movement step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.military.movement import static_step_problem
from grognard.rulesets.lgg1418.units.counters import command_army, foreign_allowed

if TYPE_CHECKING:
    from grognard.core.game import Game


@dataclass(frozen=True)
class Problem:
    """A stacking rule broken in a hex, with the units the owner may move out to cure it."""

    rule: str
    hex: int
    message: str
    movable: tuple[str, ...]


@implements("LGG 10-A", "LGG 14-A")
def counts_for_stacking(g: Game, p: Piece) -> bool:
    """LGG 10-A / 14-A: only corps count, and not those in a reserve or a garrison inside its
    fortress, nor a corps the defender disorganized to make room for reinforcements while that
    battle lasts (14-A, status ``disorganized``)."""
    return (
        M.is_corps(p)
        and not M.in_reserve(p)
        and not M.garrison_in_fortress(g, p)
        and "disorganized" not in p.status
    )


def landing_hex(g: Game, i: int) -> bool:
    """A beach hex where a landing is in progress (set by the naval rules)."""
    return bool(g.state.marker("landing", g.board.label(i)))


@implements("LGG 10-A", "LGG 10-B")
def stacking_limit(g: Game, i: int) -> int:
    """LGG 10-A / 10-B: corps allowed in hex ``i`` (6; desert 2; mountain 4; high mountain 1;
    a beach during a landing 4)."""
    if landing_hex(g, i):
        return 4
    return mapdata.terrain_info(g, i).stacking


def coordinated_battle_armies(g: Game, i: int) -> set[str]:
    """Armies allowed together in a battle hex because they were coordinated (10-A), or because
    another army reinforced the defence of that hex in the current activation (14-C)."""
    lab = g.board.label(i)
    out: set[str] = set()
    mk = g.state.marker("battle", lab)
    if mk and mk.get("turn") == M.turn_index(g):
        out |= set(mk.get("coordinated", []))
    rk = g.state.marker("reinforced", lab)
    act = M.st(g).get("activation")
    if (
        act
        and act.get("coordinated")
        and any(M.is_unit(q) for q in M.occupied(g, M.other_side(act["side"])).get(i, []))
    ):
        out |= set(
            act.get("armies", [])
        )  # 16-A: coordinated armies attack a hex together (before its battle)
    if (
        rk
        and act
        and rk.get("turn") == M.turn_index(g)
        and rk.get("activation") == act.get("serial")
    ):
        out |= set(rk.get("armies", []))
    return out


@implements("LGG 10-A", "LGG 10-B", "LGG 10-C")
def hex_problems(g: Game, side: str, i: int) -> list[Problem]:
    """LGG 10-A / 10-B / 10-C: every stacking rule ``side`` breaks in hex ``i``."""
    pieces = [p for p in M.pieces_at_hex(g, i, side) if not M.in_reserve(p)]
    units = [p for p in pieces if M.is_unit(p)]
    movable = tuple(sorted(p.id for p in units if p.loc.kind == "hex" and p.type != "ghq"))
    out: list[Problem] = []
    corps = [p for p in units if counts_for_stacking(g, p)]
    terrain = mapdata.terrain_info(g, i)
    limit = stacking_limit(g, i)
    if len(corps) > limit:
        out.append(
            Problem(
                "LGG 10-B" if limit != 6 else "LGG 10-A",
                i,
                f"{len(corps)} corps where at most {limit} may stack",
                movable,
            )
        )
    if terrain.mountain_corps_only:
        bad = tuple(
            sorted(
                p.id
                for p in units
                if not (M.is_corps(p) and M.arm(p) == "mountain") and p.loc.kind == "hex"
            )
        )
        if bad:
            out.append(
                Problem(
                    "LGG 10-B", i, "high mountain holds only a mountain corps, no support unit", bad
                )
            )
    if terrain.no_tanks:
        bad = tuple(sorted(p.id for p in units if p.type == "tank" and p.loc.kind == "hex"))
        if bad:
            out.append(Problem("LGG 10-B", i, "tanks are prohibited in mountains", bad))
    if landing_hex(g, i):
        support = [p for p in units if M.is_support(p)]
        if len(support) > 1:
            out.append(
                Problem("LGG 10-B", i, "a beach during a landing holds 1 support unit", movable)
            )
    hqs = [p for p in units if p.type == "hq"]
    if len(hqs) > 1:
        out.append(
            Problem(
                "LGG 10-A", i, "two HQs may not stack together", tuple(sorted(p.id for p in hqs))
            )
        )
    ghqs = [p for p in units if p.type == "ghq"]
    if len(ghqs) > 1:
        out.append(
            Problem(
                "LGG 10-A", i, "two GHQs may not stack together", tuple(sorted(p.id for p in ghqs))
            )
        )
    armies = sorted({a for p in units if (a := command_army(g, p)) is not None})
    if len(armies) > 1 and not set(armies) <= coordinated_battle_armies(g, i):
        out.append(
            Problem(
                "LGG 10-A",
                i,
                f"units of different armies ({', '.join(armies)}) may not stack",
                movable,
            )
        )
    for p in units:
        a = command_army(g, p)
        if (
            a is not None
            and M.hq_piece(g, a) is not None
            and p.type in ("corps", "artillery", "tank")
        ):
            why = foreign_allowed(g, a, p)
            if why and not M.army_number(g, p):
                out.append(Problem("LGG 10-C", i, why, (p.id,) if p.loc.kind == "hex" else ()))
    return out


def side_problems(g: Game, side: str) -> list[Problem]:
    out = []
    for i in sorted(M.occupied(g, side)):
        out.extend(hex_problems(g, side, i))
    return out


@implements("LGG 10-D")
def rearward_hexes(g: Game, side: str, i: int, p: Piece) -> list[int]:
    """LGG 10-D: adjacent hexes toward the rear for an excess unit in hex ``i``: enterable by the
    unit, free of enemy pieces, and no closer to the nearest enemy stack than ``i``."""

    enemy = M.enemy_present_hexes(g, side)

    def gap(h: int) -> int:
        return min((g.board.distance(h, e) for e in enemy), default=0)

    here = gap(i)
    out = []
    for j in g.board.neighbors(i):
        if j in enemy or static_step_problem(g, p, i, j) is not None:
            continue
        if enemy and gap(j) < here:
            continue
        if not fits(g, side, j, p):
            continue
        out.append(j)
    return sorted(out)


@implements("LGG 10-A", "LGG 10-B", "LGG 10-D")
def fits(g: Game, side: str, j: int, p: Piece) -> bool:
    """LGG 10-A / 10-B / 10-D: can ``p`` join hex ``j`` without breaking a stacking rule there
    (corps limit, one army per hex, one HQ, one GHQ)? A unit displaced at the end of movement
    must not create a new breach."""
    units = [
        q
        for q in M.pieces_at_hex(g, j, side)
        if not M.in_reserve(q) and M.is_unit(q) and q.id != p.id
    ]
    if counts_for_stacking(g, p) and sum(
        counts_for_stacking(g, q) for q in units
    ) + 1 > stacking_limit(g, j):
        return False
    if p.type in ("hq", "ghq") and any(q.type == p.type for q in units):
        return False
    mine = command_army(g, p)
    armies = {a for q in units if (a := command_army(g, q)) is not None}
    if mine is not None:
        armies.add(mine)
    return len(armies) <= 1 or armies <= coordinated_battle_armies(g, j)
