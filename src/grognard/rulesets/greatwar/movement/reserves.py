"""OT 6C: reserve commitment movement.

The combat procedure (OT 9A step 3) pushes the step ``reserve-commitment`` for the defender when a
combat is resolved on the Positional CRT, after the attacker has announced the attack, chosen the
CRT and totalled his attack strength::

    g.push("reserve-commitment", {"target": "0405", "side": defender, "attacker": attacker})

The defender may name one stack of his units within 2 hexes of the attacked hex and not in an
enemy ZOC; each of its units rolls on the Ground Success Table (+2 next to the attacked hex);
units that succeed may move into the attacked hex with their reserve share of their rating
(OT 6C: c/m and water-only all, cavalry 1/2, light/mountain/infantry/irregular 1/3, others 1/5,
rounded down), by regular movement only, and are disrupted on arrival. The step ends with
``done`` (or ``decline``); the stacking limit holds at its end (OT 8B).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Action
from grognard.core.state import Frame
from grognard.rulesets.greatwar.map import geography, zoc
from grognard.rulesets.greatwar.mechanics import table_roll
from grognard.rulesets.greatwar.movement import stacking
from grognard.rulesets.greatwar.movement.movement import (
    RESERVE,
    MovementStep,
    context,
    execute_move,
    plan_move,
    reach_of,
)
from grognard.rulesets.greatwar.units import nations, units

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("OT 6C")
def reserve_stacks(g: Game, side: str, target: int) -> list[int]:
    """OT 6C: hexes holding a stack of ``side``'s units within 2 hexes of the attacked hex whose
    units are not in an enemy ZOC."""
    ez = zoc.zoc_map(g, nations.other_side(side))
    out = []
    for i in g.board.within(target, 2):
        if i == target or i in ez:
            continue
        if any(units.printed_move(p) != 0 for p in units.units_in_hex(g, i, side)):
            out.append(i)
    return sorted(out)


@implements("OT 6C")
class ReserveCommitment(MovementStep):
    """OT 6C: reserve commitment movement for one combat (see the module docstring)."""

    name = "reserve-commitment"
    title = "Reserve commitment"
    rule = "OT 6C"
    kind = RESERVE

    def enter(self, g: Game, f: Frame) -> None:
        super().enter(g, f)
        f.params.setdefault("stage", "choose")
        f.params.setdefault("ready", [])

    def label(self, g: Game, f: Frame) -> str:
        return f"Reserve commitment to {f.params['target']} ({f.params['side']})"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def _target(self, g: Game, f: Frame) -> int:
        return g.board.idx(f.params["target"])

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        target = self._target(g, f)
        if f.params["stage"] == "choose":
            out: list[Action] = [
                {"type": "commit-reserves", "side": side, "from": g.board.label(i)}
                for i in reserve_stacks(g, side, target)
            ]
            out.append({"type": "decline", "side": side})
            return out
        out = []
        ctx = context(g, side, RESERVE)
        for pid in f.params["ready"]:
            p = g.state.pieces[pid]
            if f.params.get("units", {}).get(pid, {}).get("moved") or units.hex_of(g, p) is None:
                continue
            r = reach_of(ctx, f, p)
            if target in r.cost:
                a: Action = {
                    "type": "move",
                    "side": side,
                    "piece": pid,
                    "path": [g.board.label(h) for h in r.path(target)],
                }
                try:
                    plan_move(g, f, a)
                except IllegalAction:
                    continue
                out.append(a)
        out.append({"type": "done", "side": side})
        return out

    def check(self, g: Game, f: Frame, action: Action) -> None:
        t = action["type"]
        target = self._target(g, f)
        if f.params["stage"] == "choose":
            if t == "decline":
                return
            if t != "commit-reserves":
                raise IllegalAction(
                    "OT 6C", "first name the stack that attempts reserve commitment, or decline"
                )
            h = action.get("from")
            if (
                not isinstance(h, str)
                or not g.board.has_label(h)
                or g.board.idx(h) not in reserve_stacks(g, action["side"], target)
            ):
                raise IllegalAction(
                    "OT 6C",
                    f"{h!r} is not a stack within 2 hexes of {f.params['target']} outside enemy"
                    " ZOCs",
                )
            return
        if t == "done":
            bad = stacking.stack_problem(g, target, action["side"])
            if bad:
                raise IllegalAction("OT 8B", bad)
            return
        if t != "move":
            raise IllegalAction("OT 6C", f"{t!r} is not allowed in reserve commitment")
        pid = action.get("piece")
        if pid not in f.params["ready"] or f.params.get("units", {}).get(pid, {}).get("moved"):
            raise IllegalAction(
                "OT 6C", f"{pid!r} did not succeed a reserve commitment roll, or has already moved"
            )
        pm = plan_move(g, f, action)
        if pm.path[-1] != target:
            raise IllegalAction(
                "OT 6C",
                f"reserve commitment movement only goes to the attacked hex {f.params['target']}",
            )

    def apply(self, g: Game, f: Frame, action: Action) -> None:
        t = action["type"]
        target = self._target(g, f)
        side = action["side"]
        if t == "decline":
            g.emit("reserves", f"{side} commits no reserves to {f.params['target']}", rule="OT 6C")
            g.finish(f)
        elif t == "commit-reserves":
            src = g.board.idx(action["from"])
            adjacent = geography.adjacent(g, src, target)
            for p in sorted(units.units_in_hex(g, src, side), key=lambda q: q.id):
                mods = Modifiers()
                if adjacent:
                    mods.add(2, "OT 6C", "adjacent to the attacked hex")
                res = table_roll(
                    g, "gst", "standard", f"reserve commitment of {p.id}", "OT 6C", mods
                )
                ok = str(res.result).startswith("S")
                g.emit(
                    "reserves",
                    f"{p.id} {'may move' if ok else 'may not move'} ({res.result})",
                    rule="OT 6C",
                    piece=p.id,
                )
                if ok:
                    f.params["ready"].append(p.id)
            f.params["stage"] = "move"
            if not f.params["ready"]:
                g.finish(f)
        elif t == "move":
            pm = plan_move(g, f, action, fresh=True)
            execute_move(g, f, pm, rule="OT 6C")
            for p in pm.pieces:
                units.disrupt(g, p, rule="OT 6C", reason="reserve commitment movement")
        elif t == "done":
            stacking.record_phase_end(g, "reserve commitment step")
            g.finish(f)
