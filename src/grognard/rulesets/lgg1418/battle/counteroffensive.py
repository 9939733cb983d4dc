"""LGG 18: counter-offensive (Movement Doctrine only).

18-A: when the attacker is defeated, the defender may at once counter-attack into the
attacker's starting hex (not when it was besieging a fortress). A defeated attacker that came
from two hexes first retreats into them, then the defender picks the hex. The former attacker
keeps only the city, fortress, river, mountain and weather modifiers; corps of a friendly army
that came as reinforcements may join; units out of combat, disorganized or repulsed may not
(the counter-offensive continues the battle). The former attacker may reinforce itself (hook
``enemy-reinforcement``); with no unit fit for combat in the counter-attacked hex it may intercept
the counter-offensive with one of its adjacent stacks (:class:`CounterOffensiveInterception`); the
sub-battles of a great battle may be reorganized (a new split);
the Movement table is always used. 18-B: the former attacker retreats only one hex (bold
ignored, no loss exchanged); the former defender never breaks through after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Loc
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import battle_retreat
from grognard.rulesets.lgg1418.battle.base import piece, rec_of, say
from grognard.rulesets.lgg1418.battle.fortress import fortress_at
from grognard.rulesets.lgg1418.military.stacking import counts_for_stacking, stacking_limit
from grognard.rulesets.lgg1418.step import LggStep

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.lgg1418.battle.base import BattleRecord


@implements("LGG 18", "LGG 18-A")
def asked(g: Game, rec: BattleRecord) -> bool:
    """LGG 18-A: is the defender asked about a counter-offensive after this battle? The attacker
    was defeated in an ordinary battle, the defender is in Movement Doctrine (not Fire or
    Combined, 36.3) and was not besieging a fortress (public facts: whether it has units fit to
    counter-attack shows only in its options, 4-A)."""
    if (
        rec.winner != rec.defender
        or rec.kind != "open"
        or rec.spec.get("counter_offensive") is False
    ):
        return False
    if battle.side_doctrine(g, rec, rec.defender) in battle.FIRE_DOCTRINES:
        return False
    if any("besieging" in p.status for p in M.units_at_hex(g, rec.hex_i, rec.defender)):
        return False
    return bool(rec.attacker_from)


@implements("LGG 18", "LGG 18-A")
def allowed(g: Game, rec: BattleRecord) -> bool:
    """LGG 18-A: may the defender counter-attack after this battle (asked, and it has fit units)?"""
    return asked(g, rec) and bool(fit_units(g, rec))


def fit_units(g: Game, rec: BattleRecord) -> list[str]:
    """LGG 18-A: the defender's units of the battle able to take part: in the battle hex, neither
    out of combat, disorganized nor repulsed in the last round (reinforcements included)."""
    out = []
    for uid, u in sorted(rec.units.items()):
        if (
            u["side"] != rec.defender
            or u["state"] != "fit"
            or u["kind"] not in ("corps", "artillery", "tank")
        ):
            continue
        if u.get("barred") == rec.round + 1 or u["role"] == "defeated":
            continue
        if M.hex_of(g, piece(g, uid)) != rec.hex_i or piece(g, uid).loc.kind != "hex":
            continue
        out.append(uid)
    return out if any(rec.units[u]["kind"] == "corps" for u in out) else []


@implements("LGG 18-A")
def retreat_attacker_to_start(g: Game, rec: BattleRecord) -> None:
    """LGG 18-A: a defeated attacker first retreats into the hexes it came from (the first hex of
    its recorded retreat); the rest of its retreat, if any, follows with the others (16.7)."""
    for e in battle_retreat.pending(g, [rec.id]):
        if not e.get("first"):
            continue
        j = g.board.idx(e["first"])
        ids = [
            u
            for u in e["units"]
            if piece(g, u).loc.kind == "hex" and M.hex_of(g, piece(g, u)) == rec.hex_i
        ]
        for u in ids:
            M.move_piece(g, piece(g, u), Loc.hex(j))
        if ids:
            say(
                g,
                e["side"],
                "retreat",
                f"{', '.join(ids)} fall back to {e['first']}",
                f"a {e['side']} stack falls back to {e['first']}",
                rule="LGG 18-A",
            )
        e["hex"] = e["first"]
        e["first"] = None
        e["min"] = max(0, int(e["min"]) - 1)
        e["max"] = max(0, int(e["max"]) - 1)
        e["forbid"] = [rec.hex]
        if e["max"] == 0:
            e["done"] = True
    battle_retreat._after_departure(g, rec)
    M.touch(g)


@implements("LGG 18-A", "LGG 23-A")
def targets(g: Game, rec: BattleRecord) -> list[str]:
    """LGG 18-A / 23-A: the former attacker's starting hexes that hold its units; not a hex with
    one of its fortresses when the units fit to counter-attack are cavalry without infantry."""

    movers = [piece(g, u) for u in fit_units(g, rec)]
    cavalry_only = any(M.is_cavalry(p) for p in movers) and not any(
        M.is_infantry(p) for p in movers
    )
    out = []
    for lab in rec.attacker_from:
        j = g.board.idx(lab)
        if not M.units_at_hex(g, j, rec.attacker):
            continue
        fort = fortress_at(g, j)
        if cavalry_only and fort is not None and fort.side != rec.defender:
            continue
        out.append(lab)
    return out


def _defenders(g: Game, rec: BattleRecord, j: int) -> list[str]:
    """The former attacker's units in hex ``j`` fit to defend against the counter-offensive."""
    enemy = rec.attacker
    excluded = {
        u
        for u, x in rec.units.items()
        if x["side"] == enemy and (x["state"] != "fit" or x.get("barred") == rec.round + 1)
    }
    return [
        p.id
        for p in M.units_at_hex(g, j, enemy)
        if p.type in ("corps", "artillery", "tank") and p.id not in excluded and p.loc.kind == "hex"
    ]


def _stack(g: Game, side: str, k: int) -> list[str]:
    """The combat units of ``side``'s stack in hex ``k`` (corps, artillery, tanks on the map)."""
    return sorted(
        p.id
        for p in M.units_at_hex(g, k, side)
        if p.type in ("corps", "artillery", "tank") and p.loc.kind == "hex" and not M.in_reserve(p)
    )


@implements("LGG 18-A")
def interception_stacks(g: Game, rec: BattleRecord, j: int) -> list[str]:
    """LGG 18-A: when the former attacker has no unit fit for combat in the counter-attacked hex
    ``j``, the hexes of its stacks adjacent to ``j`` (with a corps, within the stacking limit of
    ``j``; not the battle hex) that may intercept the counter-offensive there."""

    side = rec.attacker
    here = sum(1 for p in M.units_at_hex(g, j, side) if counts_for_stacking(g, p))
    out = []
    for k in g.board.neighbors(j):
        if k == rec.hex_i:
            continue
        ids = _stack(g, side, k)
        corps = [u for u in ids if piece(g, u).type == "corps"]
        if corps and here + sum(
            1 for u in ids if counts_for_stacking(g, piece(g, u))
        ) <= stacking_limit(g, j):
            out.append(M.label(g, k))
    return out


@implements("LGG 18-A")
class CounterOffensiveInterception(LggStep):
    """LGG 18-A: the former attacker, with no unit fit for combat in the counter-attacked hex,
    may intercept the counter-offensive with one of its adjacent stacks (``co-intercept``,
    ``from``), which moves into the hex and defends; or not (``no-co-intercept``)."""

    name = "counter-offensive-interception"
    title = "Interception of a counter-offensive"
    rule = "LGG 18-A"

    def label(self, g: Game, f: Frame) -> str:
        return (
            f"{rec_of(g, f.params['battle']).attacker}: intercept the counter-offensive into"
            f" {f.params['to']}?"
        )

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [rec_of(g, f.params["battle"]).attacker]

    @handles.options("co-intercept")
    def intercept_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        rec = rec_of(g, f.params["battle"])
        j = g.board.idx(f.params["to"])
        return [
            {"type": "co-intercept", "side": side, "battle": rec.id, "from": k}
            for k in interception_stacks(g, rec, j)
        ]

    @handles.options("no-co-intercept")
    def no_intercept_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "no-co-intercept", "side": side, "battle": f.params["battle"]}]

    @handles.apply("no-co-intercept")
    def apply_no_intercept(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("co-intercept")
    def apply_intercept(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        g.finish(f)
        j = g.board.idx(f.params["to"])
        k = g.board.idx(action["from"])
        ids = _stack(g, rec.attacker, k)
        for u in ids:
            M.move_piece(g, piece(g, u), Loc.hex(j))
            M.set_attr(g, piece(g, u), "mv_from", k)
        say(
            g,
            rec.attacker,
            "interception",
            f"{', '.join(ids)} intercept the counter-offensive in {f.params['to']}",
            f"{rec.attacker} intercepts the counter-offensive in {f.params['to']} from"
            f" {action['from']}",
            rule="LGG 18-A",
        )


@implements("LGG 18-A")
class CounterOffensiveChoice(LggStep):
    """LGG 18-A: the victorious defender decides whether (and where) to counter-attack."""

    name = "counter-offensive"
    title = "Counter-offensive"
    rule = "LGG 18-A"

    def label(self, g: Game, f: Frame) -> str:
        rec = rec_of(g, f.params["battle"])
        return f"{rec.defender}: counter-offensive from {rec.hex}?"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [rec_of(g, f.params["battle"]).defender]

    @handles.options("counter-attack")
    def attack_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        rec = rec_of(g, f.params["battle"])
        if not allowed(g, rec):
            return []
        return [
            {"type": "counter-attack", "side": side, "battle": rec.id, "to": t}
            for t in targets(g, rec)
        ]

    @handles.options("decline")
    def decline_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "decline", "side": side, "battle": f.params["battle"]}]

    @handles.apply("decline")
    def apply_decline(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("counter-attack")
    def apply_attack(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        f.params["to"] = action["to"]
        g.finish(f)
        g.push("counter-offensive-battle", {"battle": rec.id, "to": action["to"]})


@implements("LGG 18-A", "LGG 18-B")
class CounterOffensiveBattle(Step):
    """LGG 18-A / 18-B: the counter-offensive itself: the fit units move into the target hex, the
    former attacker may reinforce (hook), then a battle on the Movement table in which the former
    attacker keeps only city, fortress, river, mountain and weather modifiers and retreats one hex
    at most; no breakthrough follows."""

    name = "counter-offensive-battle"
    title = "Counter-offensive"
    rule = "LGG 18-A"
    composite = True

    def label(self, g: Game, f: Frame) -> str:
        return f"Counter-offensive into {f.params['to']}"

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        rec = rec_of(g, f.params["battle"])
        stage = f.params.get("stage", "move")
        side = rec.defender
        enemy = rec.attacker
        j = g.board.idx(f.params["to"])
        if stage == "move":
            f.params["stage"] = "reinforce"
            ids = fit_units(g, rec)
            for u in ids:
                p = piece(g, u)
                M.move_piece(g, p, Loc.hex(j))
                M.set_attr(g, p, "mv_from", rec.hex_i)
            f.params["units"] = ids
            say(
                g,
                side,
                "counter-offensive",
                f"{', '.join(ids)} counter-attack from {rec.hex} into {f.params['to']}",
                f"{side} counter-attacks from {rec.hex} into {f.params['to']}",
                rule="LGG 18-A",
            )
            h = hooks.child(
                g,
                hooks.ENEMY_REINFORCEMENT,
                {
                    "side": enemy,
                    "attacker": side,
                    "hexes": [f.params["to"]],
                    "activation": rec.activation,
                    "counter_offensive": True,
                },
            )
            if h:
                return h
        if f.params.get("stage") == "reinforce":
            f.params["stage"] = "fight"
            # asked whenever no corps fit for combat defends the hex (public after the battle):
            # whether
            # the former attacker has a stack next to it must not show (4-A)
            if not any(piece(g, u).type == "corps" for u in _defenders(g, rec, j)):
                return "counter-offensive-interception", {"battle": rec.id, "to": f.params["to"]}
        if f.params.get("stage") == "fight":
            f.params["stage"] = "done"
            defenders = _defenders(g, rec, j)
            params = battle.battle_params(
                g,
                hex=f.params["to"],
                attacker=side,
                kind="counter-offensive",
                table="movement",
                breakthrough=False,
                counter_offensive=False,
                retreat="deferred",
                attacker_units=[u for u in f.params["units"] if piece(g, u).loc.kind == "hex"],
                defender_units=defenders,
                origin_battle=rec.id,
            )
            co = rec_of(g, params["battle"])
            co.attacker_from = [rec.hex]
            rec.counter_offensive = co.id
            for e in battle_retreat.pending(g, [rec.id]):
                if (
                    e["side"] == enemy
                ):  # 18-B: the counter-offensive decides its retreat (one hex at most)
                    e["done"] = True
            return "battle", params
        return None


STEPS: tuple[type[Step], ...] = (
    CounterOffensiveChoice,
    CounterOffensiveBattle,
    CounterOffensiveInterception,
)
