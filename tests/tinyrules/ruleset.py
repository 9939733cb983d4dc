"""Rules of the tiny test game (see the package docstring).

The model of a rule system on the core's facilities, each used once:

* declared actions (:data:`ACTIONS`): fields, rule ids, labels;
* steps with one handler per action type (``@options``/``@actors``/``@check``/``@apply``);
* the sequence of play as explicit lists of steps (:class:`Turn`, :class:`PlayerTurn`), the
  core turn track (:class:`GameTurns`) and the core secret choice with options computed from the
  state (:class:`Posture`);
* a procedure in stages with a sub-decision pushed for the other side (:class:`Attack`);
* typed state (:class:`PhaseRecord`, :class:`TinyState`);
* the cache (:func:`moves_of`, kept per piece while its surroundings do not change);
* the exact outcome distribution of an attack (the ``@handles.chance`` handler of ``Combat``).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from grognard.core.actions import ActionCatalog, ActionType, Field
from grognard.core.arith import odds_ratio
from grognard.core.errors import IllegalAction
from grognard.core.game import ChanceOutcome, Game
from grognard.core.options import OptionSpec
from grognard.core.procedure import Procedure, stage
from grognard.core.record import LIST, Record
from grognard.core.rules import implements
from grognard.core.sequence import (
    COMMIT,
    Action,
    SecretChoice,
    Sequence_,
    Step,
    TurnTrack,
    handles,
    other_side,
)
from grognard.core.state import Frame, Loc, Piece
from grognard.core.tables import ResultsTable
from grognard.rulesets.base import Ruleset

# ====================================================================== declared actions
ACTIONS = ActionCatalog(
    [
        ActionType(
            "move",
            fields=(Field.piece("piece"), Field.hex("to")),
            rules=("T 3",),
            label="Move {piece} to {to}",
            doc="moves",
        ),
        ActionType(
            "attack",
            fields=(Field.hex("from"), Field.hex("target")),
            rules=("T 4",),
            label="Attack {target} from {from}",
            doc="attacks",
            actor="from",
        ),
        ActionType(
            "commit-reserve",
            fields=(Field.piece("piece"),),
            rules=("T 4A",),
            label="Commit {piece} to the defence",
            doc="reserves",
        ),
        ActionType("pass", rules=("T 4A",), label="Commit no reserve"),
        ActionType("end-phase", rules=("T 1",), label="End the phase"),
        COMMIT,
    ]
)


# ====================================================================== typed state
class TinyState(Record):
    """``state.vars["tiny"]``: whose player turn it is."""

    active: str = ""


class PhaseRecord(Record):
    """The parameters of a movement or combat phase's frame."""

    moved: list[str] = LIST  # pieces that moved this phase (T 3)
    attacked: list[str] = LIST  # hexes that attacked this phase (T 4)


def tiny(g: Game) -> TinyState:
    return TinyState.at(g.state.vars, "tiny")


# ====================================================================== sequence of play
@implements("T 1")
class GameTurns(TurnTrack):
    """T 1: one game turn per entry of the scenario's turn track; then T 6 judges the winner."""

    name = "game"
    title = "Game"
    rule = "T 1"
    turn_step = "turn"

    def end_of_game(self, g: Game) -> None:
        decide_winner(g)


@implements("T 2")
class Posture(SecretChoice):
    """T 2: both sides secretly choose a posture; a side holding no piece on the map may only be
    careful."""

    name = "secret-choice"
    title = "Posture"
    rule = "T 2"

    def choices(self, g: Game, f: Frame, side: str) -> list[Any]:
        on_map = any(p.loc.kind == "hex" for p in g.state.of_side(side))
        return ["bold", "careful"] if on_map else ["careful"]


class Turn(Sequence_):
    """T 1 / T 2: the secret posture, then each side's player turn."""

    name = "turn"
    title = "Turn"
    rule = "T 1"

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        kids: list[tuple[str, dict[str, Any]]] = [
            ("secret-choice", {"key": "posture", "sides": list(g.state.sides), "rule": "T 2"})
        ]
        kids.extend(("player-turn", {"side": s}) for s in g.state.sides)
        return kids


class PlayerTurn(Sequence_):
    """T 1: a movement phase, then a combat phase."""

    name = "player-turn"
    title = "Player turn"
    rule = "T 1"
    children = ("movement", "combat")

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']} player turn"

    def enter(self, g: Game, f: Frame) -> None:
        tiny(g).active = f.params["side"]


class Phase(Step):
    """A phase of the active side, ended by ``end-phase``."""

    def enter(self, g: Game, f: Frame) -> None:
        PhaseRecord.init(f.params)

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [tiny(g).active]

    @handles.options("end-phase")
    def end_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "end-phase", "side": side}]

    @handles.apply("end-phase")
    def end(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)


# ====================================================================== T 3 movement
def moves_of(g: Game, p: Piece) -> list[int]:
    """T 3: the hexes piece ``p`` may move to, kept while it and its neighbourhood are unchanged
    (the cache's resources: the piece, its hex and the hexes around it)."""
    i = int(p.loc.ref)
    around = g.board.neighbors(i)
    deps = [("piece", p.id), ("hex", i), *(("hex", j) for j in around)]
    return g.cache.tracked(
        g.state,
        ("tiny:moves", p.id),
        deps,
        lambda: [j for j in around if why_not(g, p, j) is None],
    )


@implements("T 3")
def why_not(g: Game, p: Piece, j: int) -> str | None:
    """T 3: why piece ``p`` may not move to hex ``j`` (None: it may)."""
    i = int(p.loc.ref)
    if j not in g.board.neighbors(i):
        return "a piece moves one hex at a time"
    if g.board.side_has(g.board.side_between(i, j), "wall"):
        return "walls may not be crossed"
    if any(q.side != p.side for q in g.state.at_hex(j)):
        return "may not enter a hex with enemy pieces"
    return None


@implements("T 3")
class Movement(Phase):
    """T 3: each piece may move once to an adjacent hex free of enemy pieces and not across a
    wall."""

    name = "movement"
    title = "Movement phase"
    rule = "T 3"

    @handles.actors("move")
    def movers(self, g: Game, f: Frame, side: str) -> list[str]:
        moved = PhaseRecord(f.params).moved
        return [
            p.id
            for p in sorted(g.state.of_side(side), key=lambda p: p.id)
            if p.loc.kind == "hex" and p.id not in moved
        ]

    @handles.options("move")
    def move_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        p = g.state.pieces.get(actor or "")
        if p is None or p.side != side or p.loc.kind != "hex":
            return []
        if p.id in PhaseRecord(f.params).moved:
            return []
        return [
            {"type": "move", "side": side, "piece": p.id, "to": g.board.label(j)}
            for j in moves_of(g, p)
        ]

    @handles.check("move")
    def check_move(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["piece"]]
        if p.side != action["side"]:
            raise IllegalAction("T 3", f"{action['side']} has no piece {p.id!r}")
        if p.id in PhaseRecord(f.params).moved:
            raise IllegalAction("T 3", f"{p.id} has already moved this phase")
        if p.loc.kind != "hex":
            raise IllegalAction("T 3", f"{p.id} is not on the map")
        if not g.board.has_label(action["to"]):
            raise IllegalAction("T 3", f"no hex {action['to']!r}")
        why = why_not(g, p, g.board.idx(action["to"]))
        if why:
            raise IllegalAction("T 3", why)

    @handles.apply("move")
    def move(self, g: Game, f: Frame, action: Action) -> None:
        j = g.board.idx(action["to"])
        g.state.move(action["piece"], Loc.hex(j))
        PhaseRecord(f.params).moved.append(action["piece"])
        g.emit(
            "move",
            f"{action['piece']} moves to {action['to']}",
            rule="T 3",
            visible_to=visible_sides(g, action["piece"]),
            others=None,
        )
        reveal_scouts(g)


# ====================================================================== T 4 combat
@implements("T 4")
class Combat(Phase):
    """T 4: attack an adjacent enemy hex with the pieces of one hex; d6 on the CRT by odds."""

    name = "combat"
    title = "Combat phase"
    rule = "T 4"

    @handles.actors("attack")
    def attacking_hexes(self, g: Game, f: Frame, side: str) -> list[str]:
        done = PhaseRecord(f.params).attacked
        mine = sorted({int(p.loc.ref) for p in g.state.of_side(side) if p.loc.kind == "hex"})
        return [g.board.label(i) for i in mine if g.board.label(i) not in done]

    @handles.options("attack")
    def attack_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        if actor is None or not g.board.has_label(actor):
            return []
        i = g.board.idx(actor)
        if actor in PhaseRecord(f.params).attacked:
            return []
        if not any(p.side == side for p in g.state.at_hex(i)):
            return []
        return [
            {"type": "attack", "side": side, "from": actor, "target": g.board.label(j)}
            for j in g.board.neighbors(i)
            if any(visible(g, q, side) and q.side != side for q in g.state.at_hex(j))
        ]

    @handles.check("attack")
    def check_attack(self, g: Game, f: Frame, action: Action) -> None:
        for key in ("from", "target"):
            if not g.board.has_label(action[key]):
                raise IllegalAction("T 4", f"no hex {action[key]!r}")
        i, j = g.board.idx(action["from"]), g.board.idx(action["target"])
        if not any(p.side == action["side"] for p in g.state.at_hex(i)):
            raise IllegalAction("T 4", f"no {action['side']} pieces in {action['from']}")
        if action["from"] in PhaseRecord(f.params).attacked:
            raise IllegalAction("T 4", "each hex attacks at most once per phase")
        if j not in g.board.neighbors(i):
            raise IllegalAction("T 4", "the target must be adjacent")
        if not any(
            visible(g, q, action["side"]) and q.side != action["side"] for q in g.state.at_hex(j)
        ):
            raise IllegalAction("T 4", "there is no known enemy in the target hex")

    @handles.chance("attack")
    def attack_chance(self, g: Game, f: Frame, action: Action) -> list[ChanceOutcome]:
        """T 4: an attack's results on its CRT column, each with its exact probability (a
        reserve the defender may commit is not foreseen)."""
        i, j = g.board.idx(action["from"]), g.board.idx(action["target"])
        col, crt = attack_column(g, str(action["side"]), i, j)
        by_result: dict[str, list[int]] = {}
        for n in range(1, 7):
            by_result.setdefault(str(crt.lookup(col, n).result), []).append(n)
        return [ChanceOutcome(Fraction(len(ns), 6), res, (ns[0],)) for res, ns in by_result.items()]

    @handles.apply("attack")
    def attack(self, g: Game, f: Frame, action: Action) -> None:
        PhaseRecord(f.params).attacked.append(action["from"])
        g.emit(
            "attack",
            f"{action['side']} attacks {action['target']} from {action['from']}",
            rule="T 4",
        )
        g.push(
            "resolve",
            {"from": action["from"], "target": action["target"], "attacker": action["side"]},
        )


@implements("T 4", "T 4A")
class Attack(Procedure):
    """T 4: one attack in stages: the defender's reserve (T 4A, a decision pushed for the
    defender), then the roll and its result."""

    name = "resolve"
    title = "Combat resolution"
    rule = "T 4"

    @stage
    def reserve(self, g: Game, f: Frame) -> None:
        """T 4A: a defender with a reserve may commit it first."""
        defender = other_side(g, f.params["attacker"])
        if any(p.side == defender for p in g.state.at(Loc.box(reserve_box(defender)))):
            g.push("reserve", {"target": f.params["target"], "side": defender})

    @stage
    def fight(self, g: Game, f: Frame) -> None:
        resolve_attack(
            g, f.params["attacker"], g.board.idx(f.params["from"]), g.board.idx(f.params["target"])
        )


@implements("T 4A")
class Reserve(Step):
    """T 4A: before the die is rolled the defender may commit a reserve piece into the target
    hex."""

    name = "reserve"
    title = "Reserve commitment"
    rule = "T 4A"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    @handles.options("pass")
    def pass_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "pass", "side": side}]

    @handles.options("commit-reserve")
    def reserve_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [
            {"type": "commit-reserve", "side": side, "piece": p.id}
            for p in g.state.at(Loc.box(reserve_box(side)))
        ]

    @handles.apply("commit-reserve")
    def commit(self, g: Game, f: Frame, action: Action) -> None:
        g.state.move(action["piece"], Loc.hex(g.board.idx(f.params["target"])))
        g.emit(
            "reserve",
            f"{action['piece']} is committed to {f.params['target']}",
            rule="T 4A",
            reveal=True,
        )
        g.finish(f)

    @handles.apply("pass")
    def decline(self, g: Game, f: Frame, action: Action) -> None:
        g.emit("reserve", f"{action['side']} commits no reserve", rule="T 4A")
        g.finish(f)


def attack_column(g: Game, attacker: str, i: int, j: int) -> tuple[str, ResultsTable]:
    """T 4: the CRT column of an attack from ``i`` on ``j`` (odds rounded for the defender)."""
    att = [p for p in g.state.at_hex(i) if p.side == attacker]
    dfn = [p for p in g.state.at_hex(j) if p.side != attacker]
    a = sum(p.stat("strength", 0) for p in att)
    d = sum(p.stat("strength", 0) for p in dfn)
    crt = g.ruleset.tables(g.scenario.table_overrides)["crt"]
    ra, rd = odds_ratio(a, d)
    col = f"{ra}:{rd}"
    if col not in crt.columns:
        col = crt.columns[0] if (ra, rd) < (1, 1) or ra == 1 else crt.columns[-1]
    return col, crt


@implements("T 4")
def resolve_attack(g: Game, attacker: str, i: int, j: int) -> str:
    """T 4: odds of total strengths (rounded for the defender), d6 on the CRT, apply AE/EX/DR/DE."""
    att = [p for p in g.state.at_hex(i) if p.side == attacker]
    dfn = [p for p in g.state.at_hex(j) if p.side != attacker]
    col, crt = attack_column(g, attacker, i, j)
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


# ====================================================================== T 5 scouts, T 6 victory
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
        for _pt in g.board.points_at(i, "objective"):
            owner = g.state.control.get(i)
            holders = {p.side for p in g.state.at_hex(i)}
            if len(holders) == 1:
                owner = holders.pop()
                g.state.control[i] = owner
            if owner:
                count[owner] = count.get(owner, 0) + 1
    best = sorted(count.items(), key=lambda kv: -kv[1])
    winner = best[0][0] if best and (len(best) == 1 or best[0][1] > best[1][1]) else None
    g.end_game(winner, f"objectives held: {count}", "T 6")


# ====================================================================== the rule system
class Tiny(Ruleset):
    name = "tiny"
    title = "Tiny test game"
    version = "1"
    rule_prefix = "T"
    root_step = "game"
    actions = ACTIONS
    step_classes = (GameTurns, Turn, Posture, PlayerTurn, Movement, Combat, Attack, Reserve)
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
