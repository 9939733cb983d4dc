"""Rules of the tiny test game (see the package docstring)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from grognard.core.errors import IllegalAction
from grognard.core.game import Game
from grognard.core.options import OptionSpec
from grognard.core.rules import implements
from grognard.core.sequence import Action, Sequence_, Step
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.base import Ruleset

ACTIVE = "active"


def other(g: Game, side: str) -> str:
    return next(s for s in g.state.sides if s != side)


@implements("T 1")
class GameTurns(Step):
    """T 1: one game turn per entry of the scenario's turn track."""

    name = "game"
    title = "Game"
    rule = "T 1"
    composite = True

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        turns = g.scenario.data.turns
        i = int(f.params.get("next", 0))
        if i >= len(turns):
            decide_winner(g)
            return None
        f.params["next"] = i + 1
        g.state.turn = {"index": i + 1, "label": turns[i].label}
        g.emit("turn", f"turn {turns[i].label} begins", rule="T 1")
        return "turn", {}


class Turn(Sequence_):
    name = "turn"
    title = "Turn"
    rule = "T 1"

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        kids: list[tuple[str, dict[str, Any]]] = []
        kids.append(
            (
                "secret-choice",
                {
                    "key": "posture",
                    "sides": list(g.state.sides),
                    "options": {s: ["bold", "careful"] for s in g.state.sides},
                    "rule": "T 2",
                },
            )
        )
        for s in g.state.sides:
            kids.append(("player-turn", {"side": s}))
        return kids


class PlayerTurn(Sequence_):
    name = "player-turn"
    title = "Player turn"
    rule = "T 1"
    children = ("movement", "combat")

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']} player turn"

    def enter(self, g: Game, f: Frame) -> None:
        g.state.vars[ACTIVE] = f.params["side"]


@implements("T 3")
class Movement(Step):
    """T 3: each piece may move once to an adjacent hex free of enemy pieces and not across a
    wall."""

    name = "movement"
    title = "Movement phase"
    rule = "T 3"

    def enter(self, g: Game, f: Frame) -> None:
        f.params["moved"] = []

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [g.state.vars[ACTIVE]]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = []
        for p in sorted(g.state.of_side(side), key=lambda p: p.id):
            if p.loc.kind != "hex" or p.id in f.params["moved"]:
                continue
            for j in g.board.neighbors(int(p.loc.ref)):
                if self._why_not(g, p, j) is None:
                    out.append(
                        {"type": "move", "side": side, "piece": p.id, "to": g.board.label(j)}
                    )
        out.append({"type": "end-phase", "side": side})
        return out

    def _why_not(self, g: Game, p: Piece, j: int) -> str | None:
        i = int(p.loc.ref)
        if j not in g.board.neighbors(i):
            return "a piece moves one hex at a time"
        if g.board.side_has(g.board.side_between(i, j), "wall"):
            return "walls may not be crossed"
        if any(q.side != p.side for q in g.state.at_hex(j)):
            return "may not enter a hex with enemy pieces"
        return None

    def check(self, g: Game, f: Frame, action: Action) -> None:
        if action["type"] == "end-phase":
            return
        if action["type"] != "move":
            raise IllegalAction(
                "T 3", f"only moves are allowed in the movement phase, not {action['type']!r}"
            )
        p = g.state.pieces.get(action.get("piece", ""))
        if p is None or p.side != action["side"]:
            raise IllegalAction("T 3", f"{action['side']} has no piece {action.get('piece')!r}")
        if p.id in f.params["moved"]:
            raise IllegalAction("T 3", f"{p.id} has already moved this phase")
        if p.loc.kind != "hex":
            raise IllegalAction("T 3", f"{p.id} is not on the map")
        if not g.board.has_label(str(action.get("to", ""))):
            raise IllegalAction("T 3", f"no hex {action.get('to')!r}")
        why = self._why_not(g, p, g.board.idx(action["to"]))
        if why:
            raise IllegalAction("T 3", why)

    def apply(self, g: Game, f: Frame, action: Action) -> None:
        if action["type"] == "end-phase":
            g.finish(f)
            return
        j = g.board.idx(action["to"])
        g.state.move(action["piece"], Loc.hex(j))
        f.params["moved"].append(action["piece"])
        g.emit(
            "move",
            f"{action['piece']} moves to {action['to']}",
            rule="T 3",
            visible_to=visible_sides(g, action["piece"]),
            others=None,
        )
        reveal_scouts(g)


@implements("T 4")
class Combat(Step):
    """T 4: attack an adjacent enemy hex with the pieces of one hex; d6 on the CRT by odds."""

    name = "combat"
    title = "Combat phase"
    rule = "T 4"

    def enter(self, g: Game, f: Frame) -> None:
        f.params["attacked"] = []

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [g.state.vars[ACTIVE]]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = []
        mine = sorted({int(p.loc.ref) for p in g.state.of_side(side) if p.loc.kind == "hex"})
        for i in mine:
            if g.board.label(i) in f.params["attacked"]:
                continue
            for j in g.board.neighbors(i):
                if any(visible(g, q, side) and q.side != side for q in g.state.at_hex(j)):
                    out.append(
                        {
                            "type": "attack",
                            "side": side,
                            "from": g.board.label(i),
                            "target": g.board.label(j),
                        }
                    )
        out.append({"type": "end-phase", "side": side})
        return out

    def check(self, g: Game, f: Frame, action: Action) -> None:
        if action["type"] == "end-phase":
            return
        if action["type"] != "attack":
            raise IllegalAction("T 4", "only attacks are allowed in the combat phase")
        for key in ("from", "target"):
            if not g.board.has_label(str(action.get(key, ""))):
                raise IllegalAction("T 4", f"no hex {action.get(key)!r}")
        i, j = g.board.idx(action["from"]), g.board.idx(action["target"])
        if not any(p.side == action["side"] for p in g.state.at_hex(i)):
            raise IllegalAction("T 4", f"no {action['side']} pieces in {action['from']}")
        if action["from"] in f.params["attacked"]:
            raise IllegalAction("T 4", "each hex attacks at most once per phase")
        if j not in g.board.neighbors(i):
            raise IllegalAction("T 4", "the target must be adjacent")
        if not any(
            visible(g, q, action["side"]) and q.side != action["side"] for q in g.state.at_hex(j)
        ):
            raise IllegalAction("T 4", "there is no known enemy in the target hex")

    def apply(self, g: Game, f: Frame, action: Action) -> None:
        if action["type"] == "end-phase":
            g.finish(f)
            return
        f.params["attacked"].append(action["from"])
        defender = other(g, action["side"])
        g.emit(
            "attack",
            f"{action['side']} attacks {action['target']} from {action['from']}",
            rule="T 4",
        )
        g.push(
            "resolve",
            {"from": action["from"], "target": action["target"], "attacker": action["side"]},
        )
        if any(p.side == defender for p in g.state.at(Loc.box(reserve_box(defender)))):
            g.push("reserve", {"target": action["target"], "side": defender})


@implements("T 4A")
class Reserve(Step):
    """T 4A: before the die is rolled the defender may commit a reserve piece into the target
    hex."""

    name = "reserve"
    title = "Reserve commitment"
    rule = "T 4A"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = [{"type": "pass", "side": side}]
        for p in g.state.at(Loc.box(reserve_box(side))):
            out.append({"type": "commit-reserve", "side": side, "piece": p.id})
        return out

    def apply(self, g: Game, f: Frame, action: Action) -> None:
        if action["type"] == "commit-reserve":
            g.state.move(action["piece"], Loc.hex(g.board.idx(f.params["target"])))
            g.emit(
                "reserve",
                f"{action['piece']} is committed to {f.params['target']}",
                rule="T 4A",
                reveal=True,
            )
        else:
            g.emit("reserve", f"{action['side']} commits no reserve", rule="T 4A")
        g.finish(f)


class Resolve(Step):
    """T 4: roll and apply the result (automatic)."""

    name = "resolve"
    title = "Combat resolution"
    rule = "T 4"

    def run(self, g: Game, f: Frame) -> None:
        resolve_attack(
            g, f.params["attacker"], g.board.idx(f.params["from"]), g.board.idx(f.params["target"])
        )
        g.finish(f)


@implements("T 4")
def resolve_attack(g: Game, attacker: str, i: int, j: int) -> str:
    """T 4: odds of total strengths (rounded for the defender), d6 on the CRT, apply AE/EX/DR/DE."""
    from grognard.core.arith import odds_ratio

    att = [p for p in g.state.at_hex(i) if p.side == attacker]
    dfn = [p for p in g.state.at_hex(j) if p.side != attacker]
    a = sum(p.stat("strength", 0) for p in att)
    d = sum(p.stat("strength", 0) for p in dfn)
    crt = g.ruleset.tables(g.scenario.table_overrides)["crt"]
    ra, rd = odds_ratio(a, d)
    col = f"{ra}:{rd}"
    if col not in crt.columns:
        col = crt.columns[0] if (ra, rd) < (1, 1) or ra == 1 else crt.columns[-1]
    roll = g.roll("d6", f"attack on {g.board.label(j)} at {col}", "T 4")
    res = crt.lookup(col, roll.natural).result
    g.emit("combat-result", f"result {res}", rule="T 4", result=res)
    if res in ("AE", "EX"):
        for p in att:
            eliminate(g, p)
    if res in ("DE", "EX"):
        for p in dfn:
            eliminate(g, p)
    if res == "DR":
        for p in dfn:
            if p.face == "full" and "reduced" in p.faces:
                p.face = "reduced"
                g.emit("flip", f"{p.id} is reduced", rule="T 4")
            else:
                eliminate(g, p)
    return str(res)


def eliminate(g: Game, p: Piece) -> None:
    g.state.move(p.id, Loc.box("eliminated"))
    g.emit("eliminated", f"{p.id} is eliminated", rule="T 4")


def reserve_box(side: str) -> str:
    return f"{side.lower()}-reserve"


@implements("T 5")
def visible(g: Game, p: Piece, side: str | None) -> bool:
    """T 5: scouts are hidden from the enemy until revealed."""
    if p.side == side or p.type != "scout":
        return True
    return "revealed" in p.status


def visible_sides(g: Game, pid: str) -> list[str]:
    p = g.state.pieces[pid]
    return [s for s in g.state.sides if visible(g, p, s)]


@implements("T 5")
def reveal_scouts(g: Game) -> None:
    """T 5: a scout adjacent to an enemy piece is revealed for the rest of the game."""
    for p in g.state.pieces.values():
        if p.type != "scout" or "revealed" in p.status or p.loc.kind != "hex":
            continue
        i = int(p.loc.ref)
        near = {
            int(q.loc.ref)
            for q in g.state.pieces.values()
            if q.side != p.side and q.loc.kind == "hex"
        }
        if any(j in near for j in g.board.neighbors(i)) or i in near:
            p.status.add("revealed")
            g.emit("reveal", f"scout {p.id} spotted at {g.board.label(i)}", rule="T 5", reveal=True)


@implements("T 6")
def decide_winner(g: Game) -> None:
    """T 6: after the last turn the side owning more objectives wins."""
    count: dict[str, int] = {}
    for i in g.board.points:
        for pt in g.board.points_at(i, "objective"):
            owner = g.state.control.get(i)
            holders = {p.side for p in g.state.at_hex(i)}
            if len(holders) == 1:
                owner = holders.pop()
                g.state.control[i] = owner
            if owner:
                count[owner] = count.get(owner, 0) + 1
            _ = pt
    best = sorted(count.items(), key=lambda kv: -kv[1])
    winner = best[0][0] if best and (len(best) == 1 or best[0][1] > best[1][1]) else None
    g.end_game(winner, f"objectives held: {count}", "T 6")


class Tiny(Ruleset):
    name = "tiny"
    title = "Tiny test game"
    version = "1"
    rule_prefix = "T"
    root_step = "game"
    step_classes = (GameTurns, Turn, PlayerTurn, Movement, Combat, Reserve, Resolve)
    terrain_types = ("clear", "forest")
    hexside_features = ("wall",)
    point_kinds = ("objective",)
    box_kinds = ("reserve", "dead")
    option_specs = (OptionSpec("fast", "A do-nothing optional rule", kind="optional"),)

    def piece_types(self) -> set[str]:
        return {"inf", "scout"}

    def piece_visibility(self, g: Game, piece: Piece, side: str | None) -> str:
        if visible(g, piece, side):
            # reserves in the other side's box are shown only as a stack marker
            if piece.loc.kind == "box" and piece.side != side:
                return "stack"
            return "full"
        return "hidden"

    def invariants(self, g: Game) -> list[str]:
        out = []
        for i in g.state.occupied_hexes():
            sides = {p.side for p in g.state.at_hex(i)}
            if len(sides) > 1:
                out.append(f"T 3: both sides in {g.board.label(i)}")
        return out
