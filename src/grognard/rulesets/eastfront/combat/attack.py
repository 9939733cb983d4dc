"""Declared Attacks (EF 12.0, EF 15.0), as a procedure in stages with the decisions of both
sides pushed as steps.

Stages of :class:`DeclaredAttack`: ``declare`` (the attacker names the attacking units, the
supporting artillery and a Retreat Order: :class:`Declaration`), ``defence`` (the defender's
supporting artillery: :class:`DefensiveSupport`), ``supply`` (one Attack Supply Point, EF 11.5),
``resolve`` (odds and one d6), ``losses``, ``retreat``, ``advance`` (:class:`Advance`) and
``done``. :mod:`..naval.amphibious` subclasses it for the Amphibious Assault.

The attack being resolved is :class:`AttackRecord` (``state.vars["ef"]["attack"]``): attacks
are made one at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from grognard.core.errors import IllegalAction
from grognard.core.game import ChanceOutcome
from grognard.core.procedure import Goto, Procedure, stage
from grognard.core.record import LIST, Record
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.eastfront.combat.crt import column_for, crt, terrain_shift
from grognard.rulesets.eastfront.combat.retreat import advance, retreat, retreat_length
from grognard.rulesets.eastfront.combat.support import strength, support_problem, supporters_of
from grognard.rulesets.eastfront.map.geography import is_land
from grognard.rulesets.eastfront.model import NavalAttrs, ef, other, params
from grognard.rulesets.eastfront.naval.units import sea_hex
from grognard.rulesets.eastfront.supply.attack import needs_attack_supply, spend, supply_source
from grognard.rulesets.eastfront.units.kinds import (
    attack,
    defense,
    is_combat,
    is_flotilla,
    is_ground,
    is_naval,
)
from grognard.rulesets.eastfront.units.losses import eliminate, take_losses
from grognard.rulesets.eastfront.units.stacking import fits

if TYPE_CHECKING:
    from grognard.core.game import Game

RULE = "EF 12.0"


class AttackRecord(Record):
    """The Declared Attack being resolved (EF 12.0)."""

    target: str = ""  # the Defender Hex (label)
    side: str = ""  # the attacker
    attackers: list[str] = LIST
    amphibious: list[str] = LIST  # attackers coming from the sea (NM 30.22)
    support: list[str] = LIST  # the attacker's supporting artillery
    defence: list[str] = LIST  # the defender's supporting artillery
    order: str = "none"  # EF 12.6
    supplied: bool = True  # EF 11.5
    column: str = ""
    result: str = ""
    defenders: list[str] = LIST  # the units in the Defender Hex when it was resolved
    vacant: bool = False  # NM 30.23b: an assault on an empty coastal hex


def current(g: Game) -> AttackRecord:
    return AttackRecord(ef(g).attack)


def start_attack(g: Game, side: str, target: str, vacant: bool) -> None:
    """Begin a Declared Attack on ``target`` (EF 12.0)."""
    ef(g).attack = AttackRecord.new(side=side, target=target, vacant=vacant)


def target_of(g: Game) -> int:
    return g.board.idx(current(g).target)


def pieces(g: Game, ids: Sequence[str]) -> list[Piece]:
    return [g.state.pieces[i] for i in ids if i in g.state.pieces]


def defenders(g: Game, i: int, attacker: str) -> list[Piece]:
    """The ground units in the Defender Hex."""
    return [q for q in g.state.at_hex(i) if q.side != attacker and is_ground(g, q)]


def carrier_hex(g: Game, p: Piece) -> int | None:
    """The all-sea hex of the naval unit ``p`` is aboard (None: not at sea on a hex)."""
    if p.loc.kind != "piece":
        return None
    ship = g.state.pieces.get(str(p.loc.ref))
    return sea_hex(g, ship) if ship is not None else None


def attack_from(g: Game, p: Piece) -> int | None:
    """The hex a unit attacks from: its own (on land, or a flotilla's), or its carrier's."""
    if p.loc.kind == "hex":
        return int(p.loc.ref)
    return carrier_hex(g, p)


@implements("EF 12.0", "NM 30.22", "NM 30.23", "NM 30.24")
def attacker_problem(g: Game, p: Piece, r: AttackRecord, amphibious_ok: bool) -> str | None:
    """EF 12.0: why ``p`` may not join the attack (None: it may). From the sea only units
    readied for an Amphibious Assault (and flotillas, NM 30.24e) join, and only when the attack
    is one.

    Rules: EF 12.0, NM 30.22, NM 30.23, NM 30.24.
    """
    if p.side != r.side or p.id in r.attackers:
        return "not an available unit of yours"
    if p.id in ef(g).combat.attackers:
        return f"{p.name or p.id} has already attacked this phase"
    if not (is_combat(g, p) or is_flotilla(g, p)) or attack(p) <= 0:
        return f"{p.name or p.id} has no attack strength"
    i = attack_from(g, p)
    t = g.board.idx(r.target)
    if i is None or t not in g.board.neighbors(i):
        return f"{p.name or p.id} is not adjacent to {r.target}"
    from_sea = not is_land(g, i)
    if from_sea:
        if not amphibious_ok:
            return "units at sea attack only in an Amphibious Assault (NM 30.0)"
        if p.loc.kind == "piece" and "amphibious" not in p.status:
            return f"{p.name or p.id} was not loaded for an Amphibious Assault (NM 30.1)"
        if r.order == "attacker-retreat":
            return "an Amphibious Assault allows no attacker retreat order (NM 30.24a)"
    elif p.loc.kind != "hex":
        return f"{p.name or p.id} is not on the map"
    elif r.vacant:
        return "only units from the sea attack an empty coastal hex (NM 30.23b)"
    return None


def attacker_options(g: Game, r: AttackRecord, amphibious_ok: bool) -> list[Piece]:
    t = g.board.idx(r.target)
    near: list[Piece] = []
    for j in g.board.neighbors(t):
        for q in g.state.at_hex(j):
            near.append(q)
            if is_naval(g, q):
                near.extend(g.state.contents(q.id))
    return [
        q
        for q in sorted(near, key=lambda x: x.id)
        if attacker_problem(g, q, r, amphibious_ok) is None
    ]


@implements("EF 12.0", "EF 11.0", "EF 11.5")
def attack_strength(g: Game, r: AttackRecord) -> Fraction:
    """EF 12.0: attack strengths plus support; a unit out of General Supply (EF 11.0), or
    lacking Attack Supply it needs (EF 11.5), is halved; unsupplied artillery does not count."""
    total = Fraction(0)
    for p in pieces(g, r.attackers):
        s = Fraction(attack(p))
        amph = p.id in r.amphibious
        if "oos" in p.status or (not r.supplied and needs_attack_supply(g, p, amph)):
            s /= 2
        total += s
    for p in pieces(g, r.support):
        if r.supplied or not needs_attack_supply(g, p, False):
            total += strength(g, p)
    return total


def defence_strength(g: Game, r: AttackRecord) -> Fraction:
    i = g.board.idx(r.target)
    total = Fraction(sum(defense(p) for p in defenders(g, i, r.side)))
    total += sum(strength(g, p) for p in pieces(g, r.defence))
    return total


@implements("EF 12.0")
def odds_column(g: Game, r: AttackRecord) -> str:
    """EF 12.0: the CRT column of the attack as declared."""
    i = g.board.idx(r.target)
    return column_for(crt(g), attack_strength(g, r), defence_strength(g, r), terrain_shift(g, i))


def needy(g: Game, r: AttackRecord) -> list[Piece]:
    """EF 11.5: the attackers and supporters that need Attack Supply."""
    amph = set(r.amphibious)
    out = [p for p in pieces(g, r.attackers) if needs_attack_supply(g, p, p.id in amph)]
    return out + [p for p in pieces(g, r.support) if needs_attack_supply(g, p, False)]


def defence_follows(g: Game, r: AttackRecord) -> bool:
    """Will the defender be asked for defensive support after the declaration?"""
    i = g.board.idx(r.target)
    if r.vacant or not defenders(g, i, r.side):
        return False
    return bool(supporters_of(g, other(r.side), i, False, []))


def expected_column(g: Game, r: AttackRecord) -> str:
    """The column the attack will be resolved on, Attack Supply included (EF 11.5)."""
    probe = AttackRecord(AttackRecord.new(**{k: v for k, v in r.items()}))
    if needy(g, r) and supply_source(g, r.side, g.board.idx(r.target)) is None:
        probe.supplied = False
    return odds_column(g, probe)


@implements("EF 12.0", "EF 15.0")
class DeclaredAttack(Procedure):
    """EF 12.0: one Declared Attack (stages in the module docstring).

    Rules: EF 12.0, EF 15.0.
    """

    name = "declared-attack"
    title = "Declared Attack"
    rule = RULE
    amphibious_ok = False

    def label(self, g: Game, f: Frame) -> str:
        return f"Attack on {current(g).target}"

    @stage
    def declare(self, g: Game, f: Frame) -> None:
        g.push("declaration", {"amphibious": self.amphibious_ok})

    @stage
    def defence(self, g: Game, f: Frame) -> None:
        r = current(g)
        dside = other(r.side)
        i = g.board.idx(r.target)
        if r.vacant or not defenders(g, i, r.side):
            return
        if supporters_of(g, dside, i, False, []):
            g.push("defensive-support", {"side": dside})

    @stage
    def supply(self, g: Game, f: Frame) -> None:
        """EF 11.5: one Attack Supply Point, if any attacker or supporter needs one."""
        r = current(g)
        if not needy(g, r) or r.vacant:
            return
        src = supply_source(g, r.side, g.board.idx(r.target))
        if src is None:
            r.supplied = False
            g.emit("attack-supply", "the attack has no Attack Supply", rule="EF 11.5")
        else:
            spend(g, src)

    @stage
    def resolve(self, g: Game, f: Frame) -> Goto | None:
        r = current(g)
        i = g.board.idx(r.target)
        r.defenders = [p.id for p in defenders(g, i, r.side)]
        book = ef(g).combat
        book.attacked.append(r.target)
        book.attackers.extend(r.attackers)
        book.supporters.extend(r.support + r.defence)
        for p in pieces(g, r.support):
            if is_naval(g, p) and sea_hex(g, p) is not None:
                NavalAttrs(p.attrs).supported = True  # NM 29.1: back to port
        if r.vacant or not r.defenders:
            r.result = "vacant"
            g.emit("attack", f"{r.target} is empty: no combat (NM 30.23b)", rule="NM 30.23")
            return self.goto(f, "advance")
        r.column = odds_column(g, r)
        t = crt(g)
        roll = g.roll(str(t.die), f"attack on {r.target} at {r.column}", RULE)
        r.result = str(t.lookup(r.column, roll.natural).result)
        g.emit(
            "combat-result",
            f"attack on {r.target}: {attack_strength(g, r)} to {defence_strength(g, r)},"
            f" column {r.column}: {r.result}",
            rule=RULE,
        )
        return None

    @stage
    def losses(self, g: Game, f: Frame) -> None:
        """EF 12.0 / EF 12.6: step losses; an A1 may become a retreat under that order."""
        r = current(g)
        res = r.result
        att = pieces(g, r.attackers)
        dfn = pieces(g, r.defenders)
        if res in ("A1", "EX"):
            if res == "A1" and r.order == "attacker-retreat" and self.may_retreat_attackers(g, r):
                for p in att:
                    retreat(g, p, 1, g.board.idx(r.target))
            else:
                take_losses(g, [p for p in att if is_ground(g, p)], 1, RULE)
        steps = {"EX": 1, "D1R": 1, "D2R": 2}.get(res, 0)
        if steps:
            take_losses(g, [p for p in dfn if is_combat(g, p) or is_flotilla(g, p)], steps, RULE)
        if res == "DE":
            for p in dfn:
                eliminate(g, p, RULE)

    def may_retreat_attackers(self, g: Game, r: AttackRecord) -> bool:
        """EF 12.6: attackers may take an A1 as a retreat under the attacker-retreat order."""
        return True

    @stage
    def retreat(self, g: Game, f: Frame) -> None:
        """EF 12.7: the defenders retreat (one hex, two under defender-additional)."""
        r = current(g)
        if r.result not in ("DR", "D1R", "D2R"):
            return
        i = g.board.idx(r.target)
        n = retreat_length(r.order, 1)
        for p in defenders(g, i, r.side):
            retreat(g, p, n, i)

    @stage
    def advance(self, g: Game, f: Frame) -> None:
        """EF 12.7: into a vacated Defender Hex (the attacker's choice)."""
        r = current(g)
        i = g.board.idx(r.target)
        if defenders(g, i, r.side):
            return
        movers = [
            p for p in pieces(g, r.attackers) if p.loc.kind == "hex" and p.id not in r.amphibious
        ]
        if movers:
            g.push("advance", {"side": r.side})

    @stage
    def done(self, g: Game, f: Frame) -> None:
        ef(g).attack = {}


def advance_options_of(g: Game, r: AttackRecord) -> list[Piece]:
    i = g.board.idx(r.target)
    if defenders(g, i, r.side):
        return []
    return [
        p
        for p in pieces(g, r.attackers)
        if p.loc.kind == "hex"
        and int(p.loc.ref) != i
        and p.id not in r.amphibious
        and is_land(g, int(p.loc.ref))
        and fits(g, p, i)
    ]


def crt_outcomes(g: Game, r: AttackRecord) -> list[ChanceOutcome] | None:
    """EF 12.0: the results of the attack's CRT roll with their exact probabilities (None: no
    roll, an empty coastal hex)."""
    if r.vacant or not r.attackers:
        return None
    table = crt(g)
    col = expected_column(g, r)
    by: dict[str, list[int]] = {}
    for n in range(1, table.die.sides + 1):
        by.setdefault(str(table.lookup(col, n).result), []).append(n)
    return [
        ChanceOutcome(Fraction(len(ns), table.die.sides), res, (ns[0],)) for res, ns in by.items()
    ]


@implements("EF 12.0", "EF 12.4", "EF 12.6", "NM 30.23")
class Declaration(Step):
    """EF 12.0: the attacker names attackers, support and the Retreat Order, then resolves.

    Rules: EF 12.0, EF 12.4, EF 12.6, NM 30.23.
    """

    name = "declaration"
    title = "Declared Attack"
    rule = RULE

    def label(self, g: Game, f: Frame) -> str:
        return f"Declare the attack on {current(g).target}"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [current(g).side]

    @handles.options("add-attacker")
    def attacker_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        r = current(g)
        return [
            {"type": "add-attacker", "side": side, "piece": p.id}
            for p in attacker_options(g, r, bool(params(f).get("amphibious")))
        ]

    @handles.check("add-attacker")
    def check_attacker(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["piece"]]
        why = attacker_problem(g, p, current(g), bool(params(f).get("amphibious")))
        if why:
            raise IllegalAction(RULE, why)

    @handles.apply("add-attacker")
    def add_attacker(self, g: Game, f: Frame, action: Action) -> None:
        r = current(g)
        p = g.state.pieces[action["piece"]]
        r.attackers.append(p.id)
        i = attack_from(g, p)
        if i is not None and not is_land(g, i):
            r.amphibious.append(p.id)

    @handles.options("add-support")
    def support_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        r = current(g)
        if r.vacant:
            return []
        chosen = pieces(g, r.support)
        return [
            {"type": "add-support", "side": side, "piece": p.id}
            for p in supporters_of(g, side, g.board.idx(r.target), True, chosen)
        ]

    @handles.check("add-support")
    def check_support(self, g: Game, f: Frame, action: Action) -> None:
        r = current(g)
        p = g.state.pieces[action["piece"]]
        if r.vacant:
            raise IllegalAction("NM 30.23", "an empty coastal hex needs no support")
        why = support_problem(g, p, r.side, g.board.idx(r.target), True, pieces(g, r.support))
        if why:
            raise IllegalAction("EF 12.4", why)

    @handles.apply("add-support")
    def add_support(self, g: Game, f: Frame, action: Action) -> None:
        current(g).support.append(action["piece"])

    @handles.options("set-order")
    def order_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        """EF 12.6: the Retreat Order is given with the declaration, once it names an attacker
        (an attacker retreat order given first would shut out the units coming from the sea,
        NM 30.24a, and could leave an assault with nobody able to attack)."""
        r = current(g)
        if r.order != "none" or r.vacant or not r.attackers:
            return []
        out = [{"type": "set-order", "side": side, "order": "defender-additional"}]
        if not r.amphibious:
            out.insert(0, {"type": "set-order", "side": side, "order": "attacker-retreat"})
        return out

    @handles.apply("set-order")
    def set_order(self, g: Game, f: Frame, action: Action) -> None:
        current(g).order = action["order"]

    @handles.options("resolve-attack")
    def resolve_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "resolve-attack", "side": side}] if current(g).attackers else []

    @handles.chance("resolve-attack")
    def resolve_chance(self, g: Game, f: Frame, action: Action) -> list[ChanceOutcome] | None:
        """EF 12.0: the CRT roll, when no defensive support decision comes first."""
        r = current(g)
        return None if defence_follows(g, r) else crt_outcomes(g, r)

    @handles.apply("resolve-attack")
    def resolve(self, g: Game, f: Frame, action: Action) -> None:
        r = current(g)
        g.emit(
            "declared-attack",
            f"{r.side} attacks {r.target} with {len(r.attackers)} unit(s)"
            f" and {len(r.support)} in support (order: {r.order})",
            rule=RULE,
        )
        g.finish(f)


@implements("EF 12.4", "NM 29.2")
class DefensiveSupport(Step):
    """EF 12.4 / NM 29.2: the defender's artillery (naval units only from port)."""

    name = "defensive-support"
    title = "Defensive support"
    rule = "EF 12.4"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [params(f)["side"]]

    @handles.options("add-support")
    def support_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        r = current(g)
        return [
            {"type": "add-support", "side": side, "piece": p.id}
            for p in supporters_of(g, side, g.board.idx(r.target), False, pieces(g, r.defence))
        ]

    @handles.apply("add-support")
    def add_support(self, g: Game, f: Frame, action: Action) -> None:
        current(g).defence.append(action["piece"])

    @handles.options("pass")
    def pass_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "pass", "side": side}]

    @handles.apply("pass")
    def done(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.chance("pass")
    def roll_chance(self, g: Game, f: Frame, action: Action) -> list[ChanceOutcome] | None:
        """EF 12.0: passing leads straight to the CRT roll."""
        return crt_outcomes(g, current(g))


@implements("EF 12.7")
class Advance(Step):
    """EF 12.7: the attacker may advance attacking units into the vacated Defender Hex."""

    name = "advance"
    title = "Advance after combat"
    rule = "EF 12.7"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [params(f)["side"]]

    @handles.options("advance")
    def advance_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [
            {"type": "advance", "side": side, "piece": p.id}
            for p in advance_options_of(g, current(g))
        ]

    @handles.apply("advance")
    def go(self, g: Game, f: Frame, action: Action) -> None:
        advance(g, g.state.pieces[action["piece"]], target_of(g))
        if not advance_options_of(g, current(g)):
            g.finish(f)

    @handles.options("pass")
    def pass_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "pass", "side": side}]

    @handles.apply("pass")
    def stop(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)
