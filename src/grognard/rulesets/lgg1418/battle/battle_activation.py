"""LGG 16-A / 16.7 / 17 / 18: the ``army-battles`` hook of an army activation.

After the activation's movement (and the enemy's reinforcement, 14), every hex where the
activated side stands with the enemy is a battle (16-A). The hook fights them one after the
other (in label order), offering the victorious defender a counter-offensive after each
defeat of the attacker (18); then it executes every pending retreat (16.7: "after all battles
of the activated army"), lets both sides place their corps (16.7-D), offers overflows (16.7-F)
and finally the breakthroughs (17).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Loc
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import battle_retreat, counteroffensive
from grognard.rulesets.lgg1418.battle.base import piece, rec_of, say
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.military import movement
from grognard.rulesets.lgg1418.military.activation import battle_hexes
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.units.counters import command_army

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.lgg1418.battle.base import BattleRecord


@implements("LGG 16-A", "LGG 16.7", "LGG 17", "LGG 18-A")
class ArmyBattles(Step):
    """LGG 16-A / 16.7 / 17 / 18: the battles of an activation, then retreats, placement, overflow
    and breakthroughs (the hook ``army-battles``)."""

    name = hooks.BATTLES
    title = "Battles"
    rule = "LGG 16-A"
    composite = True

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: battles of the activation"

    def enter(self, g: Game, f: Frame) -> None:
        f.params["pending"] = list(f.params.get("hexes", []))
        f.params["fought"] = []
        f.params["bids"] = []
        M.st(g).setdefault("army_battles", {})[str(f.params.get("activation"))] = {
            "pending": list(f.params["pending"])
        }
        M.touch(g)

    def leave(self, g: Game, f: Frame) -> None:
        M.st(g).get("army_battles", {}).pop(str(f.params.get("activation")), None)
        for p in g.state.pieces.values():
            if "art_used" in p.attrs and p.attrs["art_used"].get("act") == f.params.get(
                "activation"
            ):
                M.set_attr(g, p, "art_used", None)
            if p.attrs.get("no_breakthrough") == f.params.get("activation"):
                M.set_attr(g, p, "no_breakthrough", None)
        M.touch(g)

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        side = f.params["side"]
        stage = f.params.get("stage", "battles")
        if stage == "battles":
            last = f.params.get("last")
            if last is not None:
                f.params["last"] = None
                rec = rec_of(g, last)
                if counteroffensive.asked(g, rec):
                    counteroffensive.retreat_attacker_to_start(g, rec)
                    return "counter-offensive", {"battle": last}
            now = {M.label(g, i) for i in battle_hexes(g, side)}
            while f.params["pending"]:
                lab = f.params["pending"].pop(0)
                M.st(g)["army_battles"][str(f.params.get("activation"))]["pending"] = list(
                    f.params["pending"]
                )
                if lab not in now or lab in f.params["fought"]:
                    continue
                f.params["fought"].append(lab)
                armies = sorted(
                    {
                        a
                        for p in M.units_at_hex(g, g.board.idx(lab), side)
                        if p.type == "corps" and (a := command_army(g, p)) is not None
                    }
                )
                params = battle.battle_params(
                    g,
                    hex=lab,
                    attacker=side,
                    kind="open",
                    retreat="deferred",
                    armies=armies[:2] or None,
                )
                f.params["bids"].append(params["battle"])
                f.params["last"] = params["battle"]
                # 29-32: the trench-warfare rules prepare the battle, then push its battle step.
                return hooks.child(g, "battle-preparation", params) or ("battle", params)
            done_here = {
                r["hex"]
                for r in battle.battles(g).values()
                if r.get("activation") == f.params.get("activation")
            }
            extra = sorted(now - set(f.params["fought"]) - done_here)
            if extra:
                f.params["pending"] = extra
                return self.next_child(g, f)
            f.params["stage"] = "retreats"
            return self.next_child(g, f)
        if stage == "retreats":
            f.params["stage"] = "placement"
            bids = self._all_bids(g, f)
            if battle_retreat.pending(g, bids):
                return "battle-retreats", {"battles": bids}
            return self.next_child(g, f)
        if stage == "placement":
            todo = f.params.setdefault(
                "place_todo",
                [[b, s] for b in self._all_bids(g, f) for s in (side, M.other_side(side))],
            )
            while todo:
                bid, s = todo.pop(0)
                return "battle-placement", {"battle": bid, "side": s}  # always asked (4-A)
            f.params["stage"] = "overflow"
            return self.next_child(g, f)
        if stage == "overflow":
            todo = f.params.setdefault("overflow_todo", list(f.params["bids"]))
            while todo:
                bid = todo.pop(0)
                rec = rec_of(g, bid)
                if rec.winner == rec.attacker and rec.kind == "open":
                    return "overflow", {"battle": bid}  # asked after every victory (4-A)
            f.params["stage"] = "breakthrough"
            return self.next_child(g, f)
        if stage == "breakthrough":
            f.params["stage"] = "done"
            return "breakthrough", {
                "side": side,
                "battles": self._all_bids(g, f),
                "activation": f.params.get("activation"),
            }
        return None

    def _all_bids(self, g: Game, f: Frame) -> list[str]:
        out = []
        for b in f.params["bids"]:
            out.append(b)
            co = rec_of(g, b).counter_offensive
            if co:
                out.append(co)
        out.extend(f.params.get("overflow_bids", []))
        return out


# ====================================================================== overflow (16.7-F)
def overflow_moves(g: Game, rec: BattleRecord) -> list[Action]:
    """LGG 16.7-F: the attacker's corps in the battle hex move one more hex, with the MP they have
    left (terrain cost), and may fight there at once."""
    side = rec.attacker
    i = rec.hex_i
    units = [
        p
        for p in M.units_at_hex(g, i, side)
        if p.loc.kind == "hex" and p.type in ("corps", "artillery")
    ]
    if not units:
        return []
    out: list[Action] = []
    serial = rec.activation
    for j in g.board.neighbors(i):
        if j in {g.board.idx(h) for h in rec.attacker_from}:
            continue
        ok = True
        for p in units:
            if movement.static_step_problem(g, p, i, j) is not None:
                ok = False
                break
            left = movement.allowance(g, p) - (
                movement.spent(p, serial) if serial is not None else 0
            )
            if movement.step_cost(g, p, i, j) > left:
                ok = False
                break
        if ok:
            out.append(
                {
                    "type": "overflow",
                    "side": side,
                    "battle": rec.id,
                    "to": M.label(g, j),
                    "units": sorted(p.id for p in units),
                }
            )
    return out


@implements("LGG 16.7-F")
class Overflow(LggStep):
    """LGG 16.7-F: after a short, low-intensity victory the army may move one more hex and fight
    again at once (a breakthrough may follow that battle)."""

    name = "overflow"
    title = "Overflow"
    rule = "LGG 16.7-F"

    def label(self, g: Game, f: Frame) -> str:
        return f"Overflow from {rec_of(g, f.params['battle']).hex}?"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [rec_of(g, f.params["battle"]).attacker]

    @handles.options("overflow")
    def overflow_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        rec = rec_of(g, f.params["battle"])
        return overflow_moves(g, rec) if battle_retreat.overflow_allowed(g, rec) is None else []

    @handles.options("no-overflow")
    def no_overflow_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "no-overflow", "side": side, "battle": f.params["battle"]}]

    @handles.apply("no-overflow")
    def apply_no_overflow(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("overflow")
    def apply_overflow(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        g.finish(f)
        side = action["side"]
        j = g.board.idx(action["to"])
        serial = rec.activation
        for u in action["units"]:
            p = piece(g, u)
            cost = movement.step_cost(g, p, rec.hex_i, j)
            M.move_piece(g, p, Loc.hex(j))
            M.set_attr(g, p, "mv_from", rec.hex_i)
            if serial is not None:
                M.set_attr(g, p, "mv_spent", movement.spent(p, serial) + cost)
        say(
            g,
            side,
            "overflow",
            f"{', '.join(action['units'])} overflow from {rec.hex} into {action['to']}",
            f"{side} overflows from {rec.hex} into {action['to']}",
            rule="LGG 16.7-F",
        )
        if j in M.enemy_present_hexes(g, side):
            params = battle.battle_params(
                g,
                hex=action["to"],
                attacker=side,
                kind="overflow",
                retreat="immediate",
                counter_offensive=False,
                armies=rec.armies or None,
            )
            parent = next((fr for fr in reversed(g.state.frames) if fr.step == hooks.BATTLES), None)
            if parent is not None:
                parent.params.setdefault("overflow_bids", []).append(params["battle"])
            g.push("battle", params)
        else:
            mapdata.set_control(g, j, side)
        M.touch(g)


STEPS: tuple[type[Step], ...] = (ArmyBattles, Overflow)


# ====================================================================== attack restrictions (16-A)
@implements("LGG 16-A")
def attack_move_check(
    g: Game, act: dict[str, Any], members: list[Any], j: int, mode: str, engage: bool
) -> None:
    """LGG 16-A: an attack (a move into an enemy stack) may not start from a hex holding units of
    another friendly army (a defeated attacker must go back there); at most two armies attack a
    hex together; an enemy stack already attacked and beaten this turn by the side (it has just
    retreated there) may not be attacked again, except in a breakthrough or a reaction."""

    if not engage or not members:
        return
    side = act["side"]
    i = M.hex_of(g, members[0])
    movers = {a for p in members if (a := command_army(g, p)) is not None}
    if i is not None:
        for q in M.units_at_hex(g, i, side):
            a = command_army(g, q)
            if a is not None and a not in movers and q not in members and q.type != "ghq":
                raise IllegalAction(
                    "LGG 16-A",
                    "an attack may not start from a hex holding units of another "
                    "friendly army (a defeated attacker must go back to it)",
                )
    there = {a for q in M.units_at_hex(g, j, side) if (a := command_army(g, q)) is not None}
    if len(there | movers) > 2:
        raise IllegalAction("LGG 16-A", "at most two armies attack an enemy hex together")
    mk = g.state.marker("retreated", g.board.label(j))
    if (
        mk
        and mk.get("turn") == M.turn_index(g)
        and mk.get("side") != side
        and not act.get("breakthrough")
        and not act.get("reaction")
    ):
        raise IllegalAction("LGG 16-A", "that enemy stack has already been attacked this turn")
