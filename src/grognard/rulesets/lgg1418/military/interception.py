"""LGG 13: interception (Movement and Combined Doctrine), and the marker that held no corps.

After every hex a stack of the active side enters other than by rail (8-A, 11.4-A), the
movement step calls :func:`after_move`, which opens the ``interception`` hook for the other
side when, as far as the mover can tell, that side could intercept there: the hex is empty
and an enemy stack marker stands next to it with a ZoC able to reach it across that hexside
(8-C, read on the public map). Whether a marker really exerts a ZoC is the interceptor's
secret: it is always asked in those places, and passes when it has nothing able to intercept.
No interception happens during a strategic retreat (19-A).

13-A: a moving stack that enters a hex holding only an enemy HQ, GHQ or decoy with no corps
deployed (a reserve does not count as deployed) finds it out (a reveal event): those pieces
must withdraw one hex (the owner picks the hex; one that cannot withdraw is destroyed, 5-H,
or, for a decoy, taken back), and the hex is then an empty hex in which the mover may go on
moving and may be intercepted.

The interceptor (:class:`Interception`) may move into the hex units from adjacent hexes whose
corps exert a ZoC into it, and the reserve units of an HQ or of its GHQ adjacent to the hex;
a stack under attack may send only its corps in excess of the attacking corps, and never into
the hex the attack came from (13-B); several stacks may intercept together, respecting
stacking (10-A: one army, the limit of the hex). Intercepting units become the defenders of a
battle fought with the activation's battles (the interceptor defends, 13-A); the intercepted
units may not move further. Never into a hex holding an enemy fortress (23-A). By doctrine
(:func:`interception_allowed`): Movement Doctrine freely; the 1914 partial trench warfare
only on an even D6 per attempt (36.2-A/B); Combined Doctrine only with stacks "in movement"
(36.5-B); Fire Doctrine not at all (36.3), except breakthrough units after a major
breakthrough (17.3-C, status ``breakthrough``). Autonomous units intercept only within 3
hexes of their GHQ (21). A battle provoked by an interception is marked in
``markers["interception"][hex] = {"turn", "activation", "side"}`` (36.2-A: it does not count
against the October limit of voluntary attacks; 36.5-B).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.map.fronts import fronts_of
from grognard.rulesets.lgg1418.map.knowledge import possible_zoc_sources
from grognard.rulesets.lgg1418.map.zoc import BESIEGING, exerts_zoc, zoc_reaches
from grognard.rulesets.lgg1418.military import doctrine_transitions as DT
from grognard.rulesets.lgg1418.military.enemy_reinforcement import breakthrough_barred
from grognard.rulesets.lgg1418.military.movement import fortress_blocks, static_step_problem
from grognard.rulesets.lgg1418.military.stacking import stacking_limit
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.units import doctrine, fog
from grognard.rulesets.lgg1418.units.counters import command_army
from grognard.rulesets.lgg1418.units.elimination import destroy_hq, eliminate, withdrawers

if TYPE_CHECKING:
    from grognard.core.game import Game

AUTONOMOUS_RANGE = 3


# ====================================================================== doctrine
def _front(g: Game, j: int) -> str:
    act = M.st(g).get("activation") or {}
    fr = act.get("front")
    if fr:
        return str(fr)
    fronts = fronts_of(g, j)
    return fronts[0] if fronts else M.WEST


@implements("LGG 13", "LGG 36.2-A", "LGG 36.3", "LGG 36.5-B", "LGG 17.3-C")
def interception_allowed(g: Game, p: Piece, front: str) -> str | None:
    """LGG 13 / 36.2-A / 36.3 / 36.5-B / 17.3-C: how unit ``p`` may intercept on ``front``:
    ``yes``, ``even-d6`` (1914 partial trench warfare), or None (not at all)."""
    mode = doctrine.interception_mode(g, p.nation, front)
    if mode == "in-movement":
        return "yes" if DT.in_movement(g, p) else None
    if mode == "no":
        return "yes" if "breakthrough" in p.status else None
    return str(mode)


def side_may_intercept(g: Game, side: str, front: str) -> bool:
    """Could ``side`` intercept at all on ``front`` (from public facts: its powers' doctrines,
    breakthrough markers)?"""
    for n in M.powers_of(g, side):
        if doctrine.interception_mode(g, n, front) != "no":
            return True
    return any("breakthrough" in p.status for p in g.state.of_side(side) if M.on_map(g, p))


# ====================================================================== after a move
@implements("LGG 13-A", "LGG 8-A", "LGG 11.4-A", "LGG 19-A")
def after_move(
    g: Game, act: dict[str, Any], i: int, j: int, members: list[Piece], engaged: bool
) -> None:
    """LGG 13-A / 8-A / 11.4-A / 19-A: after a stack of the active side entered ``j`` from ``i``
    (never called for rail moves).

    An enemy marker entered that holds only HQs, GHQs or decoys is revealed and must withdraw
    (``forced-withdrawal``); the interception hook opens when the enemy might intercept in
    ``j`` as far as the mover can tell (after the withdrawal, if any). No interception during a
    strategic retreat (19-A)."""

    if act.get("kind") == "strategic-retreat":
        return
    side = act["side"]
    enemy = M.other_side(side)
    lab = g.board.label(j)
    withdraw: list[Piece] | None = None
    if engaged:
        rec = (
            M.st(g)
            .setdefault("attack_from", {})
            .setdefault(lab, {"serial": act["serial"], "from": []})
        )
        if rec["serial"] != act["serial"]:
            rec.update({"serial": act["serial"], "from": []})
        if g.board.label(i) not in rec["from"]:
            rec["from"].append(g.board.label(i))
        M.touch(g)
        withdraw = withdrawers(g, enemy, j)
        if withdraw is None:
            return
        g.emit(
            "reveal",
            f"the {enemy} stack marker at {lab} held no corps: its headquarters must withdraw",
            rule="LGG 13-A",
            reveal=True,
            hex=lab,
        )
    offer_interception(g, side, j, [p.id for p in members], act["serial"])
    if withdraw:
        g.push(
            "forced-withdrawal",
            {
                "side": enemy,
                "hex": lab,
                "pieces": [p.id for p in withdraw],
                "mover": side,
                "activation": act["serial"],
            },
        )


@implements("LGG 13-A", "LGG 17.2-B", "LGG 4-A")
def offer_interception(
    g: Game, mover: str, j: int, units: list[str], serial: int, **extra: Any
) -> bool:
    """LGG 13-A / 17.2-B / 4-A: open the interception hook for the other side after units of
    ``mover`` entered the empty hex ``j`` (e.g. breakthrough units), when - as far as the mover can
    tell - a marker's ZoC could reach it and that side still has interception. Returns whether the
    hook was opened."""

    enemy = M.other_side(mover)
    if not possible_zoc_sources(g, mover, j) or not side_may_intercept(g, enemy, _front(g, j)):
        return False
    return hooks.offer(
        g,
        hooks.INTERCEPTION,
        {
            "side": enemy,
            "mover": mover,
            "hex": g.board.label(j),
            "units": list(units),
            "activation": serial,
            **extra,
        },
    )


def attack_origins(g: Game, hex_label: str) -> list[str]:
    """Hexes from which the active side's units entered ``hex_label`` to attack it in the current
    activation (13-B)."""
    act = M.st(g).get("activation") or {}
    rec = M.st(g).get("attack_from", {}).get(hex_label)
    if not rec or rec.get("serial") != act.get("serial"):
        return []
    return list(rec.get("from", []))


# ================================================================== the marker held no corps (13-A)
@implements("LGG 13-A", "LGG 16.7-C")
def withdrawal_hexes(g: Game, p: Piece, j: int) -> list[int]:
    """LGG 13-A / 16.7-C: adjacent hexes an HQ, GHQ or decoy may withdraw to from ``j``: passable,
    free of enemy pieces, and where it breaks no stacking rule (two HQs or GHQs, another army)."""

    enemy = M.enemy_present_hexes(g, p.side)
    out = []
    for k in g.board.neighbors(j):
        if k in enemy or static_step_problem(g, p, j, k) is not None:
            continue
        here = [q for q in M.units_at_hex(g, k, p.side)]
        if p.type == "hq" and any(q.type == "hq" for q in here):
            continue
        if p.type == "ghq" and any(q.type == "ghq" for q in here):
            continue
        if p.type == "hq":
            army = str(p.attrs.get("army"))
            if any((a := command_army(g, q)) is not None and a != army for q in here):
                continue
        out.append(k)
    return sorted(out)


@implements("LGG 13-A", "LGG 23-D")
class ForcedWithdrawal(LggStep):
    """LGG 13-A / 23-D: the owner moves pieces that must leave a hex one hex away (``withdraw``):
    HQs, GHQs or decoys caught alone (13-A), cavalry that may not besiege alone (23-D). A piece
    that cannot withdraw is lost (16.7-C): an HQ or GHQ is destroyed (5-H), a decoy taken back."""

    name = "forced-withdrawal"
    title = "Withdrawal of a headquarters"
    rule = "LGG 13-A"

    def _left(self, g: Game, f: Frame) -> list[Piece]:
        j = g.board.idx(f.params["hex"])
        return [
            p
            for p in (g.state.pieces[i] for i in f.params["pieces"])
            if M.hex_of(g, p) == j and p.loc.kind == "hex"
        ]

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]] if self._left(g, f) else []

    def run(self, g: Game, f: Frame) -> None:
        free_mover(g, f.params["hex"], f.params["mover"], int(f.params["activation"]))
        g.finish(f)

    @handles.options("withdraw")
    def withdraw_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        j = g.board.idx(f.params["hex"])
        out: list[Action] = []
        for p in self._left(g, f):
            spots = withdrawal_hexes(g, p, j)
            for k in spots:
                out.append({"type": "withdraw", "side": side, "unit": p.id, "to": g.board.label(k)})
            if not spots:
                out.append({"type": "withdraw", "side": side, "unit": p.id})
        return out

    @handles.check("withdraw")
    def check_withdraw(self, g: Game, f: Frame, action: Action) -> None:
        j = g.board.idx(f.params["hex"])
        p = next((q for q in self._left(g, f) if q.id == action.get("unit")), None)
        if p is None:
            raise IllegalAction(self.rule, f"{action.get('unit')!r} does not have to withdraw")
        spots = withdrawal_hexes(g, p, j)
        to = action.get("to")
        if to is None:
            if spots:
                raise IllegalAction("LGG 16.7-C", "a unit is lost only when it cannot withdraw")
            return
        if not isinstance(to, str) or not g.board.has_label(to) or g.board.idx(to) not in spots:
            raise IllegalAction("LGG 13-A", "withdraw to an adjacent hex free of the enemy")

    @handles.apply("withdraw")
    def apply_withdraw(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["unit"]]
        to = action.get("to")
        rule = str(f.params.get("rule", self.rule))
        if to is None:
            if p.type not in ("decoy", "hq", "ghq"):
                eliminate(g, p, "unable to withdraw", "LGG 16.7-C")
            elif p.type == "decoy":
                for q in fog.box_contents(g, p):
                    M.move_piece(g, q, Loc.hex(g.board.idx(f.params["hex"])))
                M.move_piece(g, p, Loc.box(M.decoy_pool(p.side)))
                fog.emit_private(
                    g,
                    p.side,
                    "withdraw",
                    f"{p.id} cannot withdraw and is taken back",
                    None,
                    rule=rule,
                )
            else:
                destroy_hq(g, p, "LGG 16.7-C")
        else:
            M.move_piece(g, p, Loc.hex(g.board.idx(to)))
            fog.emit_private(
                g,
                p.side,
                "withdraw",
                f"{p.id} withdraws to {to}",
                f"a {p.side} stack withdraws from {f.params['hex']} to {to}",
                rule=rule,
            )
        if not self._left(g, f):
            free_mover(g, f.params["hex"], f.params["mover"], int(f.params["activation"]))
            g.finish(f)


@implements("LGG 13-A")
def free_mover(g: Game, hex_label: str, mover: str, serial: int) -> None:
    """LGG 13-A: once the HQs caught alone have withdrawn, the hex is an empty hex: the mover
    controls it and its units there may go on moving (unless a fortress blocks, 11.1-D)."""

    j = g.board.idx(hex_label)
    if j in M.enemy_present_hexes(g, mover):
        return
    mapdata.set_control(g, j, mover)
    if fortress_blocks(g, mover, j):
        return
    for p in M.units_at_hex(g, j, mover):
        if p.attrs.get("mv_act") == serial:
            M.set_attr(g, p, "mv_stop", None)


# ====================================================================== who may intercept
def _army_key(g: Game, p: Piece) -> str:
    a = command_army(g, p)
    return a if a is not None else "-autonomous"


def _attacked_surplus(g: Game, side: str, h: int) -> int | None:
    """13-B: corps a stack under attack in hex ``h`` may send away (None: ``h`` is not attacked)."""
    mover = M.other_side(side)
    attackers = [q for q in M.units_at_hex(g, h, mover) if M.is_corps(q)]
    if not attackers:
        return None
    mine = [
        q for q in M.units_at_hex(g, h, side) if M.is_corps(q) and not M.garrison_in_fortress(g, q)
    ]
    return max(0, len(mine) - len(attackers))


def _ghq_near(g: Game, p: Piece, j: int) -> bool:
    ghq = M.ghq_piece(g, p.nation)
    h = M.hex_of(g, ghq) if ghq else None
    return h is not None and g.board.distance(h, j) <= AUTONOMOUS_RANGE


@implements("LGG 13-A", "LGG 13-B", "LGG 23-A", "LGG 23-B", "LGG 21", "LGG 17.2-B")
def interception_sources(g: Game, side: str, j: int) -> dict[str, list[Piece]]:
    """LGG 13-A / 13-B / 23-A / 23-B / 21: units of ``side`` that may intercept into hex ``j``,
    by source (a hex label, or ``reserve:<HQ or GHQ id>``)."""

    mover = M.other_side(side)
    front = _front(g, j)
    if any(q.type == "fortress" for q in M.pieces_at_hex(g, j, mover)):
        return {}
    occ = M.occupied(g, side)
    out: dict[str, list[Piece]] = {}
    for h in g.board.neighbors(j):
        plist = occ.get(h, [])
        if not any(
            exerts_zoc(g, q) and q.type != "fortress" and zoc_reaches(g, side, h, j) for q in plist
        ):
            continue
        surplus = _attacked_surplus(g, side, h)
        if surplus is not None and g.board.label(j) in attack_origins(g, g.board.label(h)):
            continue
        units = []
        for q in plist:
            if (
                q.loc.kind != "hex"
                or q.type not in ("corps", "artillery", "tank")
                or M.in_reserve(q)
            ):
                continue
            if M.garrison_in_fortress(g, q) or BESIEGING in q.status:
                continue
            if (
                interception_allowed(g, q, front) is None
                or static_step_problem(g, q, h, j) is not None
            ):
                continue
            if command_army(g, q) is None and not _ghq_near(g, q, j):
                continue
            if breakthrough_barred(g, q):
                continue
            units.append(q)
        if surplus is not None:
            corps = [q for q in units if M.is_corps(q)][:surplus]
            units = corps + [q for q in units if not M.is_corps(q)]
        if any(M.is_corps(q) for q in units):
            out[g.board.label(h)] = units
    for h in [j, *g.board.neighbors(j)]:
        if h == j:
            continue
        for holder in occ.get(h, []):
            if holder.type not in ("hq", "ghq") or holder.loc.kind != "hex":
                continue
            res = [
                q
                for q in g.state.contents(holder.id)
                if M.in_reserve(q)
                and q.type in ("corps", "artillery", "tank")
                and interception_allowed(g, q, front) is not None
                and static_step_problem(g, q, h, j) is None
                and not breakthrough_barred(g, q)
            ]
            if any(M.is_corps(q) for q in res):
                out[f"reserve:{holder.id}"] = res
    return out


@implements("LGG 13-B", "LGG 10-A")
def why_not_intercept(g: Game, side: str, j: int, ids: list[str]) -> str | None:
    """LGG 13-B / 10-A: why this set of units may not intercept into ``j`` together (None: it
    may)."""

    if not ids or len(set(ids)) != len(ids):
        return "name the intercepting units (each once)"
    src = interception_sources(g, side, j)
    by_id = {q.id: (s, q) for s, lst in src.items() for q in lst}
    chosen = []
    per_source: dict[str, int] = {}
    for uid in ids:
        if uid not in by_id:
            return f"{uid!r} cannot intercept into {g.board.label(j)}"
        s, q = by_id[uid]
        chosen.append(q)
        per_source[s] = per_source.get(s, 0) + (1 if M.is_corps(q) else 0)
    if not any(M.is_corps(q) for q in chosen):
        return "an interception needs at least one corps"
    for s, n in per_source.items():
        if s.startswith("reserve:"):
            continue
        h = g.board.idx(s)
        surplus = _attacked_surplus(g, side, h)
        if surplus is not None and n > surplus:
            return (
                f"the stack at {s} is under attack and may send only its {surplus} corps in excess"
                " of the attackers"
            )
    armies = {_army_key(g, q) for q in chosen}
    if len(armies) > 1:
        return "units of different armies may not intercept into the same hex (10-A)"
    corps = sum(1 for q in chosen if M.is_corps(q))
    if corps > stacking_limit(g, j):
        return f"at most {stacking_limit(g, j)} corps may stack in {g.board.label(j)}"
    return None


# ====================================================================== the step
@implements("LGG 13", "LGG 13-A", "LGG 13-B", "LGG 36.2-A")
class Interception(LggStep):
    """LGG 13-A / 13-B / 36.2-A: the enemy may intercept the stack that entered a hex.

    Actions of the interceptor: ``intercept`` with ``units`` (ids, from one or several
    sources), or ``no-interception``."""

    name = hooks.INTERCEPTION
    title = "Interception"
    rule = "LGG 13-A"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: interception at {f.params['hex']}?"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:

        side = f.params["side"]
        j = g.board.idx(f.params["hex"])
        if M.st(g).get("activation") is None or j in M.enemy_present_hexes(g, f.params["mover"]):
            return []
        if not possible_zoc_sources(g, f.params["mover"], j) or not side_may_intercept(
            g, side, _front(g, j)
        ):
            return []
        return [side]

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    @handles.options("no-interception")
    def no_interception_options(
        self, g: Game, f: Frame, side: str, actor: str | None
    ) -> list[Action]:
        return [{"type": "no-interception", "side": side}]

    @handles.options("intercept")
    def intercept_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        j = g.board.idx(f.params["hex"])
        out: list[Action] = []
        seen: set[tuple[str, ...]] = set()
        src = interception_sources(g, side, j)

        def offer(ids: list[str]) -> None:
            key = tuple(sorted(ids))
            if key in seen or why_not_intercept(g, side, j, list(key)) is not None:
                return
            seen.add(key)
            out.append({"type": "intercept", "side": side, "units": list(key)})

        for units in src.values():
            offer([q.id for q in units])
            for q in units:
                if M.is_corps(q):
                    offer([q.id])
        by_army: dict[str, list[str]] = {}
        for units in src.values():
            for q in units:
                by_army.setdefault(_army_key(g, q), []).append(q.id)
        for ids in by_army.values():
            offer(ids)
        keys = list(src)
        for a, b in combinations(keys, 2):
            offer([q.id for q in src[a]] + [q.id for q in src[b]])
        return out

    @handles.check("no-interception")
    def check_no_interception(self, g: Game, f: Frame, action: Action) -> None:
        return

    @handles.check("intercept")
    def check_intercept(self, g: Game, f: Frame, action: Action) -> None:
        ids = action.get("units")
        if not isinstance(ids, list) or not all(isinstance(u, str) for u in ids):
            raise IllegalAction(self.rule, "name the intercepting units")
        j = g.board.idx(f.params["hex"])
        mover = f.params["mover"]
        if any(q.type == "fortress" for q in M.pieces_at_hex(g, j, mover)):
            raise IllegalAction(
                "LGG 23-A", "it is forbidden to intercept into a hex holding an enemy fortress"
            )
        why = why_not_intercept(g, action["side"], j, ids)
        if why:
            raise IllegalAction("LGG 13-B", why)

    @handles.apply("no-interception")
    def apply_no_interception(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        g.finish(f)
        g.emit(
            "interception",
            f"{side} does not intercept at {f.params['hex']}",
            rule="LGG 13-A",
            side=side,
        )

    @handles.apply("intercept")
    def apply_intercept(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        g.finish(f)
        j = g.board.idx(f.params["hex"])
        units = [g.state.pieces[u] for u in action["units"]]
        front = _front(g, j)
        if any(interception_allowed(g, q, front) == "even-d6" for q in units):
            r = g.roll(
                "d6", f"interception attempt at {f.params['hex']} (even succeeds)", "LGG 36.2-A"
            )
            if r.natural % 2 == 1:
                g.emit(
                    "interception",
                    f"{side}'s interception at {f.params['hex']} fails (odd roll)",
                    rule="LGG 36.2-A",
                    side=side,
                )
                return
        for q in units:
            if M.in_reserve(q):
                M.set_status(g, q, M.RESERVE, False)
            M.move_piece(g, q, Loc.hex(j))
        mover = f.params["mover"]
        if not M.units_at_hex(g, j, mover):
            _take_back_intercepted_decoys(g, side, mover, j)
            return
        for p in M.units_at_hex(g, j, mover):
            if p.attrs.get("mv_act") == f.params["activation"]:
                M.set_attr(g, p, "mv_stop", True)
        g.state.set_marker(
            "interception",
            f.params["hex"],
            {"turn": M.turn_index(g), "activation": f.params["activation"], "side": side},
        )
        M.touch(g)
        g.emit(
            "interception",
            f"{side} intercepts the {mover} stack at {f.params['hex']}; the interceptor "
            "defends in the coming battle",
            rule="LGG 13-A",
            reveal=True,
            side=side,
            hex=f.params["hex"],
        )
        fog.emit_private(
            g,
            side,
            "interception-detail",
            f"intercepting units: {', '.join(action['units'])}",
            None,
            rule="LGG 13-A",
        )


@implements("LGG 13-A", "LGG 4-B")
def _take_back_intercepted_decoys(g: Game, side: str, mover: str, j: int) -> None:
    """LGG 13-A / 4-B: the intercepted marker was an empty decoy: it is revealed and taken back
    (a decoy never fights), and the interceptors hold the hex."""
    lab = g.board.label(j)
    for p in M.pieces_at_hex(g, j, mover):
        if p.type == "decoy":
            M.move_piece(g, p, Loc.box(M.decoy_pool(p.side)))
    M.touch(g)
    g.emit(
        "interception",
        f"{side} intercepts at {lab}: the {mover} marker was an empty decoy, taken back",
        rule="LGG 13-A",
        reveal=True,
        side=side,
        hex=lab,
    )


STEPS: tuple[type[Step], ...] = (Interception, ForcedWithdrawal)
