"""LGG 22: isolated units - attrition, then automatic destruction.

An isolated unit (22) can no longer reach a friendly supply source by a path of hexes of any
length free of enemy units and prohibited hexes; the test itself lives in :mod:`.supply`
(:func:`~grognard.rulesets.lgg1418.supply.is_isolated` with the purpose ``attrition``, which
the option ``isolation-test`` maps to the definition of 22 or 9-H, digest A-3).

22-A: isolation is judged when an army activates and when battles are fought
(:func:`judge`; the activation calls it for the activated armies, the battle rules for the
units of a battle), and again at the end of the turn. The turn a unit is first found
isolated is recorded in ``st["isolated_since"]`` (unit id -> turn index). At the end of that
turn (the final phase, hook ``isolation-attrition``) a D6 is rolled for it: even, nothing;
odd, one loss (a full unit is flipped, a reduced one eliminated).

22-B: at the end of the following turn a unit still isolated is eliminated. A unit found not
isolated at the end of a turn leaves the record. Exception: a single corps isolated in a
city or a fortress hex risks neither attrition nor destruction.

HQs, GHQs and decoys take no attrition themselves; an isolated HQ or GHQ left without a
combat unit in its hex after the attrition is destroyed (its isolated stack was annihilated,
5-H). Units inside a fortress are the fortress's business (siege and surrender, 23-E).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.sequence import Step
from grognard.core.state import Frame, Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.supply.supply import is_isolated
from grognard.rulesets.lgg1418.units import fog
from grognard.rulesets.lgg1418.units.counters import command_army
from grognard.rulesets.lgg1418.units.elimination import destroy_hq, eliminate

if TYPE_CHECKING:
    from grognard.core.game import Game

HEADQUARTERS = ("hq", "ghq")


# ====================================================================== losses
def take_loss(g: Game, p: Piece, rule: str, reason: str) -> str:
    """One loss on a unit: a full two-step unit is flipped to its reduced side, any other unit
    is eliminated (16.5-A). Returns ``"reduced"`` or ``"eliminated"``."""

    if p.face == "full" and "reduced" in p.faces:
        M.set_face(g, p, "reduced")
        fog.emit_private(
            g, p.side, "loss", f"{p.id} takes a loss and is reduced ({reason})", None, rule=rule
        )
        return "reduced"
    eliminate(g, p, reason, rule)
    return "eliminated"


# ====================================================================== judging isolation
def _subject(g: Game, p: Piece) -> bool:
    """Units whose isolation rule 22 follows: units on the map, outside fortresses."""
    if not M.is_unit(p) or M.hex_of(g, p) is None:
        return False
    c = M.carrier(g, p)
    return c is None or c.type != "fortress"


@implements("LGG 22-A")
def judge(g: Game, units: Iterable[Piece]) -> list[str]:
    """LGG 22-A: judge the isolation of ``units`` now (at an activation or a battle); a unit
    found isolated for the first time is recorded with the current turn. Returns the ids of
    the units found isolated."""
    rec = M.st(g).setdefault("isolated_since", {})
    out = []
    changed = False
    for p in units:
        if not _subject(g, p):
            continue
        if is_isolated(g, p, "attrition"):
            out.append(p.id)
            if p.id not in rec:
                rec[p.id] = M.turn_index(g)
                changed = True
    if changed:
        M.touch(g)
    return out


def judge_armies(g: Game, armies: Iterable[str]) -> list[str]:
    """22-A: judge the units commanded by ``armies`` (called when they are activated)."""

    wanted = set(armies)
    return judge(
        g, [p for p in g.state.pieces.values() if M.is_unit(p) and command_army(g, p) in wanted]
    )


@implements("LGG 22-B")
def protected_alone(g: Game, p: Piece, isolated: set[str]) -> bool:
    """LGG 22-B: a single isolated corps in a city or a fortress hex risks nothing."""
    h = M.hex_of(g, p)
    if h is None or not M.is_corps(p):
        return False
    in_fortress_hex = any(q.type == "fortress" and q.side == p.side for q in g.state.at_hex(h))
    if not (mapdata.is_city(g, h) or in_fortress_hex):
        return False
    corps = [q for q in M.units_at_hex(g, h, p.side) if M.is_corps(q) and q.id in isolated]
    return len(corps) == 1


# ====================================================================== the final-phase step
@implements("LGG 22", "LGG 22-A", "LGG 22-B", "LGG 5-H")
class IsolationAttrition(Step):
    """LGG 22-A / 22-B: the end-of-turn attrition of isolated units (final phase, automatic)."""

    name = "isolation-attrition"
    title = "Isolated units"
    rule = "LGG 22-A"

    def run(self, g: Game, f: Frame) -> None:
        resolve_isolation(g)
        g.finish(f)


@implements("LGG 22-A", "LGG 22-B", "LGG 5-H")
def resolve_isolation(g: Game) -> None:
    """LGG 22-A / 22-B / 5-H: attrition of units isolated this turn, destruction of units
    isolated since the turn before; an isolated HQ or GHQ whose stack was annihilated by the
    attrition, or that is still isolated a turn later, is destroyed (it comes back, 5-H)."""

    now = M.turn_index(g)
    rec = M.st(g).setdefault("isolated_since", {})
    for side in M.SIDES:
        units = [p for p in M.iter_units(g, side) if _subject(g, p)]
        isolated = set(judge(g, units))
        for p in units:
            if p.id not in isolated and p.id in rec:
                del rec[p.id]
        M.touch(g)
        lost_here: set[int] = set()
        protected = {i for i in isolated if protected_alone(g, g.state.pieces[i], isolated)}
        for p in sorted((g.state.pieces[i] for i in isolated), key=lambda p: p.id):
            if p.type in HEADQUARTERS or p.type == "decoy" or M.hex_of(g, p) is None:
                continue
            h = M.hex_of(g, p)
            assert h is not None
            if p.id in protected:
                fog.emit_private(
                    g,
                    side,
                    "isolation",
                    f"{p.id}, alone and isolated in a city or fortress, risks nothing",
                    None,
                    rule="LGG 22-B",
                )
                continue
            since = int(rec.get(p.id, now))
            if since < now:
                eliminate(g, p, "isolated since the previous turn", "LGG 22-B")
                rec.pop(p.id, None)
                lost_here.add(h)
                continue
            r = g.roll(
                "d6", f"attrition of an isolated unit: {p.id}", "LGG 22-A", visible_to=[side]
            )
            if r.natural % 2 == 1:
                if take_loss(g, p, "LGG 22-A", "isolation attrition") == "eliminated":
                    rec.pop(p.id, None)
                    lost_here.add(h)
            else:
                fog.emit_private(
                    g,
                    side,
                    "isolation",
                    f"{p.id} survives its isolation this turn",
                    None,
                    rule="LGG 22-A",
                )
        for p in sorted((g.state.pieces[i] for i in isolated), key=lambda p: p.id):
            h = M.hex_of(g, p)
            if p.type not in HEADQUARTERS or h is None:
                continue
            others = [q for q in M.units_at_hex(g, h, side) if q.type not in HEADQUARTERS]
            annihilated = h in lost_here and not others
            if annihilated or int(rec.get(p.id, now)) < now:
                destroy_hq(g, p, "LGG 5-H" if annihilated else "LGG 22-B")
                rec.pop(p.id, None)
    M.touch(g)


STEPS: tuple[type[Step], ...] = (IsolationAttrition,)
