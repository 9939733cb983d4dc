"""LGG 16.7: retreat after a battle - cases, extent, direction, placement, overflow.

When a battle ends (:func:`.battle_steps.finish_battle`) the loser's retreat is recorded here
(:func:`create`): one entry per group of units that retreats together. The ``battle-retreats``
step executes the entries of some battles (the ``army-battles`` hook runs it after all the
activation's battles, 16.7; a battle started with ``retreat="immediate"`` runs it at once):
the owner chooses each group's path among the legal ones (``retreat-group``), then may pull
back other stacks within 2 hexes and its GHQ (16.7-B, ``retreat-also``).

Extent (16.7-B): Movement Doctrine 1 hex, 2 when the last round's result was bold, +1 per loss
the defender exchanged (16.5-A); a counter-offensive's former attacker 1 hex (18-B); Fire
Doctrine 1, 2 or 3 hexes for no, a limited or a major breakthrough; voluntarily up to 3. A
defeated attacker goes back through the hex it came from (16-A). Direction (16.7-C): never
into a hex with an enemy stack, a prohibited hex, the hex the attacking corps came from;
toward the nearest friendly supply source or relay (the player chooses when several lie within
2 hexes of each other); away from supply while isolated or out of supply, each unit tests at
-3 (repulsed: retreats, disorganized or worse: destroyed, no PR either way); a unit that
cannot retreat is eliminated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle.base import piece, rec_of, say
from grognard.rulesets.lgg1418.battle.fortress import (
    withdraw_into_fortress,
    withdrawal_into_fortress,
)
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.military import campaign, movement
from grognard.rulesets.lgg1418.military.stacking import rearward_hexes, stacking_limit
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.supply import supply
from grognard.rulesets.lgg1418.units import fog
from grognard.rulesets.lgg1418.units.counters import command_army, stat
from grognard.rulesets.lgg1418.units.elimination import destroy_hq
from grognard.search.retreat import retreat_paths

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.lgg1418.battle.base import BattleRecord

MAX_VOLUNTARY = 3  # 16.7-B (printed)


def store(g: Game) -> list[dict[str, Any]]:
    return M.st(g).setdefault("retreats", [])


def pending(g: Game, bids: list[str] | None = None) -> list[dict[str, Any]]:
    """Retreat entries not yet executed (of the given battles)."""
    return [r for r in store(g) if not r["done"] and (bids is None or r["battle"] in bids)]


def _retreaters(g: Game, rec: BattleRecord, side: str) -> list[Piece]:
    """Every piece of ``side`` standing in the battle hex that must leave it (not a fortress nor
    what is inside it, nor anything riding inside an HQ, which goes with it)."""
    out = []
    for p in g.state.at_hex(rec.hex_i):
        if p.side != side or p.type in ("fortress", "general"):
            continue
        out.append(p)
    return sorted(out, key=lambda p: p.id)


@implements("LGG 23-D")
def back_into_fortress(g: Game, rec: BattleRecord) -> list[str]:
    """LGG 23-D: after a defeated relief attack, the besieged corps that came out of their fortress
    as reinforcements withdraw into it instead of retreating. Returns their ids."""
    out = []
    for uid, u in sorted(rec.units.items()):
        origin = str(u.get("origin") or "")
        if u["side"] != rec.attacker or not origin.startswith("fortress:"):
            continue
        f = g.state.pieces.get(origin.partition(":")[2])
        p = g.state.pieces[uid]
        if (
            f is None
            or f.loc.kind != "hex"
            or M.hex_of(g, f) != rec.hex_i
            or M.hex_of(g, p) != rec.hex_i
            or p.loc.kind != "hex"
        ):
            continue
        M.move_piece(g, p, Loc.inside(f.id))
        out.append(uid)
    if out:
        fog.emit_private(
            g,
            rec.attacker,
            "fortress",
            f"{', '.join(out)} withdraw into the besieged fortress",
            f"{rec.attacker} withdraws units into the besieged fortress at {rec.hex}",
            rule="LGG 23-D",
        )
    return out


@implements("LGG 16.7-A", "LGG 16.7-B", "LGG 18-B")
def extent(g: Game, rec: BattleRecord, side: str) -> tuple[int, int]:
    """LGG 16.7-B / 18-B: (mandatory, maximum) hexes of the loser's retreat."""
    if rec.ended_by.startswith("retreat before combat"):
        return 1, MAX_VOLUNTARY
    if rec.kind == "counter-offensive" and side == rec.defender:
        return 1, 1
    lim = rec.spec.get("retreat_limit")
    if battle.fire_procedure(g, rec):
        n = 1
        if side == rec.defender:
            n = {"limited": 2, "major": 3}.get(str(rec.breakthrough_level or ""), 1)
    else:
        n = 1 + (1 if rec.bold else 0)
        if side == rec.defender:
            n += int(rec.retreat_extra)
    mx = max(n, MAX_VOLUNTARY)
    if lim is not None:
        n, mx = min(n, int(lim)), min(mx, int(lim))
    return n, mx


@implements("LGG 16.7", "LGG 16-A", "LGG 16.5-B")
def create(g: Game, rec: BattleRecord) -> None:
    """LGG 16.7 / 16-A: record the loser's retreat: a defeated attacker in groups by the hex each
    unit came from (that hex is the first of its path), a defender as one group; units repulsed
    or disorganized in the tests after a panic retreat 3 hexes (16.5-B)."""
    loser = rec.loser
    if loser is None:
        return
    if loser == rec.attacker:
        back_into_fortress(g, rec)
    units = _retreaters(g, rec, loser)
    if not units:
        return
    lo, hi = extent(g, rec, loser)
    forbid = list(rec.attacker_from) if loser == rec.defender else []
    groups: dict[str | None, list[str]] = {}
    panic: list[str] = []
    for p in units:
        u = rec.units.get(p.id, {})
        if u.get("panic_retreat"):
            panic.append(p.id)
            continue
        key = u.get("from") if loser == rec.attacker else None
        if loser == rec.attacker and key is None and p.attrs.get("mv_from") is not None:
            key = M.label(g, int(p.attrs["mv_from"]))
        if key == rec.hex:  # a stale origin (a decoy placed in the hex after moving out of it, 4-B)
            key = None
        groups.setdefault(key, []).append(p.id)
    if loser == rec.attacker and None in groups and len(groups) > 1:
        extra = groups.pop(None)
        biggest = max(groups, key=lambda k: (len(groups[k]), str(k)))
        groups[biggest].extend(extra)
    n = len(store(g))
    for k, (first, ids) in enumerate(sorted(groups.items(), key=lambda kv: str(kv[0]))):
        store(g).append(
            {
                "id": f"R{n + k + 1}",
                "battle": rec.id,
                "side": loser,
                "hex": rec.hex,
                "units": ids,
                "first": first,
                "min": lo,
                "max": hi,
                "forbid": forbid,
                "done": False,
            }
        )
    if panic:
        store(g).append(
            {
                "id": f"R{len(store(g)) + 1}",
                "battle": rec.id,
                "side": loser,
                "hex": rec.hex,
                "units": panic,
                "first": None,
                "min": 3,
                "max": 3,
                "forbid": forbid,
                "done": False,
            }
        )
    M.touch(g)


# ====================================================================== direction (16.7-C)
def _targets(g: Game, side: str) -> set[int]:
    rep = supply.supply_report(g, side)
    return set(rep.relay_hexes())


def supply_distance(g: Game, side: str) -> np.ndarray:
    """Free-path distance of every hex to the nearest friendly supply source or relay (16.7-C)."""
    return M.memo(g, f"retreat-dist:{side}", lambda: supply.distance_to(g, side, _targets(g, side)))


def _enemy_seen(g: Game, side: str) -> set[int]:
    """Hexes with an enemy stack marker (what the retreating side sees)."""
    return M.enemy_present_hexes(g, side)


def _stack_fits(g: Game, side: str, j: int, group: list[Piece]) -> bool:
    """LGG 10-A / 10-B: the group may stand in ``j`` with the side's units already there."""
    here = [p for p in M.units_at_hex(g, j, side) if p.id not in {q.id for q in group}]

    def counts(
        p: Piece,
    ) -> bool:  # the battle is over: a corps set aside for it (14-A) counts again
        return M.is_corps(p) and not M.in_reserve(p) and not M.garrison_in_fortress(g, p)

    corps = sum(1 for p in here if counts(p)) + sum(1 for p in group if counts(p))
    if corps > stacking_limit(g, j):
        return False
    armies = {a for p in here + group if M.is_unit(p) and (a := command_army(g, p)) is not None}
    if len(armies) > 1:
        return False
    return not (
        sum(1 for p in here + group if p.type == "hq") > 1
        or sum(1 for p in here + group if p.type == "ghq") > 1
    )


def _reach_ok(g: Game, side: str, group: list[Piece], j: int) -> bool:
    """LGG 16.7-B: in August 1914 an army obliged to attack must stay within reach of the enemy."""
    if not campaign.is_august_1914(g):
        return True
    obliged = set(campaign.obligated_armies(g, side))
    if not any(command_army(g, p) in obliged for p in group):
        return True
    enemy = _enemy_seen(g, side)
    if not enemy:
        return True
    mv = min((int(p.stat("movement", 0)) for p in group if p.type == "corps"), default=0)
    return min(g.board.distance(j, e) for e in enemy) <= max(1, mv)


@implements("LGG 16.7-C", "LGG 16.7-B")
def legal_paths(
    g: Game, entry: dict[str, Any], group: list[Piece]
) -> tuple[list[tuple[int, ...]], bool]:
    """LGG 16.7-B / 16.7-C: the retreat paths open to ``group`` -> (paths, away) where ``away``
    says the best paths lead away from supply (tests at -3 when isolated or out of supply)."""
    side = entry["side"]
    start = g.board.idx(entry["hex"])
    enemy = _enemy_seen(g, side)
    forbid = {g.board.idx(h) for h in entry["forbid"]}
    first = g.board.idx(entry["first"]) if entry.get("first") else None

    def can_enter(path: tuple[int, ...], j: int) -> bool:
        if len(path) == 1 and first is not None and j != first:
            return False
        if j in enemy or j in forbid:
            return False
        return all(movement.static_step_problem(g, p, path[-1], j) is None for p in group)

    res = retreat_paths(
        g.board.nbr,
        start,
        int(entry["max"]),
        min_length=int(entry["min"]),
        can_enter=can_enter,
        max_paths=50_000,
    )
    paths = [
        p
        for p in res.paths
        if _stack_fits(g, side, p[-1], group) and _reach_ok(g, side, group, p[-1])
    ]
    if not paths:
        return [], False
    dist = supply_distance(g, side)
    here = float(dist[start])

    def d(h: int) -> float:
        v = float(dist[h])
        return v if np.isfinite(v) else 1e9

    by_len: dict[int, list[tuple[int, ...]]] = {}
    for p in paths:
        by_len.setdefault(len(p), []).append(p)
    best_end = min(d(p[-1]) for p in paths)
    away = not np.isfinite(here) or best_end > here
    if first is not None and np.isfinite(here):
        away = d(first) > here and best_end > here
    if not np.isfinite(here):
        return sorted(paths), True
    out: set[tuple[int, ...]] = set()
    for _t, dt in _comparable_targets(g, side, start, int(entry["max"])):
        for _n, ps in sorted(by_len.items()):
            best = min(dt.get(p[-1], 10**9) for p in ps)
            out.update(p for p in ps if dt.get(p[-1], 10**9) == best)
    return sorted(out), away


def _comparable_targets(
    g: Game, side: str, start: int, length: int
) -> list[tuple[int, dict[int, int]]]:
    """LGG 16.7-C: the friendly sources and relays a retreat from ``start`` may head for - the
    nearest
    one and any other within 2 hexes of its distance (the retreating side then chooses) - each with
    its free-path distances."""

    def compute() -> list[tuple[int, dict[int, int]]]:
        dist = supply_distance(g, side)
        m = int(dist[start])
        reach = supply.free_trace(g, side, start, m + 2)
        targets = sorted(t for t in _targets(g, side) if t in reach and reach[t] <= m + 2)
        return [(t, supply.free_trace(g, side, t, m + length + 3)) for t in targets]

    return M.memo(g, f"retreat-targets:{side}:{start}:{length}", compute)


@implements("LGG 16.7-C", "LGG 16.5-A")
def toward_supply_possible(g: Game, side: str, i: int, rec: BattleRecord) -> bool:
    """LGG 16.5-A / 16.7-C: can a retreat from ``i`` go toward the side's supply (one hex
    closer)?"""
    dist = supply_distance(g, side)
    here = float(dist[i])
    if not np.isfinite(here):
        return False
    enemy = _enemy_seen(g, side)
    forbid = {g.board.idx(h) for h in rec.attacker_from}
    for j in g.board.neighbors(i):
        if (
            j in enemy
            or j in forbid
            or mapdata.hexside_impassable(g, i, j)
            or mapdata.terrain_info(g, j).impassable
        ):
            continue
        if float(dist[j]) < here:
            return True
    return False


def _sea_ports(g: Game, entry: dict[str, Any]) -> list[int]:
    """LGG 16.7-B: a loser in a port may retreat to another friendly port of the same sea."""
    side = entry["side"]
    start = g.board.idx(entry["hex"])
    sea = mapdata.port_sea(g, start)
    if sea is None or entry.get("first"):
        return []
    group = [piece(g, u) for u in entry["units"]]
    out = []
    for j in range(g.board.n):
        if j == start or mapdata.port_sea(g, j) != sea or mapdata.controller(g, j) != side:
            continue
        if j in _enemy_seen(g, side) or not _stack_fits(g, side, j, group):
            continue
        out.append(j)
    return out


@implements("LGG 16.7-C", "LGG 5-H")
def eliminate_unable(g: Game, entry: dict[str, Any], ids: list[str]) -> None:
    """LGG 16.7-C: a unit unable to retreat is eliminated (an HQ or GHQ is destroyed, 5-H; a decoy
    goes back to its pool)."""

    rec = rec_of(g, entry["battle"])
    for uid in ids:
        p = piece(g, uid)
        if p.loc.kind == "box":
            continue
        if p.type in ("hq", "ghq"):
            destroy_hq(g, p, "LGG 16.7-C")
        elif p.type == "decoy":
            for q in g.state.contents(p.id):
                battle.eliminate_unit(g, rec, q.id, "unable to retreat", "LGG 16.7-C")
            M.move_piece(g, p, Loc.box(M.decoy_pool(p.side)))
        else:
            battle.eliminate_unit(g, rec, uid, "unable to retreat", "LGG 16.7-C")


@implements("LGG 16.7-C", "LGG 16.7-A")
def execute(g: Game, entry: dict[str, Any], ids: list[str], path: list[int], away: bool) -> None:
    """Move ``ids`` along ``path`` (the battle hex first); with ``away`` and the units isolated or
    out of supply, each tests at -3 first (16.7-C)."""
    rec = rec_of(g, entry["battle"])
    side = entry["side"]
    movers = [
        piece(g, u)
        for u in ids
        if piece(g, u).loc.kind == "hex" or M.carrier(g, piece(g, u)) is not None
    ]
    end = path[-1]
    if away:
        keep = []
        for p in movers:
            if p.type != "corps" or (
                supply.is_supplied(g, p) and not supply.is_isolated(g, p, "combat")
            ):
                keep.append(p)
                continue
            it = {"t": "test", "unit": p.id, "away": True, "why": "retreat away from supply"}
            code = battle.roll_test(
                g,
                rec,
                p.id,
                battle.test_modifiers(g, rec, p.id, away=True),
                it["why"],  # type: ignore[arg-type]
            )
            it["code"] = code
            battle.test_effect(g, rec, p.id, it)
            if it.get("survives"):
                keep.append(p)
        movers = keep
    for p in movers:
        if p.loc.kind == "box":
            continue
        M.move_piece(g, p, Loc.hex(end))
    if movers:
        via = " -> ".join(M.label(g, h) for h in path)
        say(
            g,
            side,
            "retreat",
            f"{', '.join(p.id for p in movers)} retreat {via}",
            f"a {side} stack retreats {via}",
            rule="LGG 16.7-B",
        )
        g.state.set_marker(
            "retreated",
            M.label(g, end),
            {"turn": M.turn_index(g), "side": side, "battle": entry["battle"]},
        )
    _after_departure(g, rec)
    M.touch(g)


def _after_departure(g: Game, rec: BattleRecord) -> None:
    """The winner takes the battle hex once the loser has gone (16.7-D)."""
    i = rec.hex_i
    winner = rec.winner
    if winner is None:
        return
    loser_left = [p for p in g.state.at_hex(i) if p.side != winner and p.type not in ("fortress",)]
    mine = [p for p in M.units_at_hex(g, i, winner)]
    if not loser_left and mine:
        mapdata.set_control(g, i, winner)


class BattleRetreats(Step):
    """LGG 16.7: execute the pending retreats of some battles, then offer the losers to pull back
    other stacks within 2 hexes and their GHQ (16.7-B)."""

    name = "battle-retreats"
    title = "Retreats"
    rule = "LGG 16.7"
    composite = True

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        bids = list(f.params["battles"])
        left = pending(g, bids)
        if left:
            return "retreat-group", {"retreat": left[0]["id"]}
        done = f.params.setdefault("also", [])
        for bid in bids:
            rec = rec_of(g, bid)
            if bid in done or rec.loser is None:
                continue
            done.append(bid)
            if also_candidates(g, rec):
                return "retreat-also", {"battle": bid, "side": rec.loser}
        return None


def _entry(g: Game, rid: str) -> dict[str, Any]:
    for r in store(g):
        if r["id"] == rid:
            return r
    raise KeyError(rid)


@implements("LGG 16.7-B", "LGG 16.7-C")
class RetreatGroup(LggStep):
    """LGG 16.7-B / 16.7-C: the owner picks the path of a retreating group (all together or one
    unit at a time); with no legal path the units are eliminated."""

    name = "retreat-group"
    title = "Retreat"
    rule = "LGG 16.7-C"

    def label(self, g: Game, f: Frame) -> str:
        e = _entry(g, f.params["retreat"])
        return f"Retreat from {e['hex']} ({e['side']}, {e['min']}-{e['max']} hexes)"

    def _left(self, g: Game, e: dict[str, Any]) -> list[str]:
        start = g.board.idx(e["hex"])
        stay = set(e.get("stayed", []))
        return [
            u
            for u in e["units"]
            if u not in stay
            and M.hex_of(g, piece(g, u)) == start
            and piece(g, u).loc.kind in ("hex", "piece")
        ]

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        e = _entry(g, f.params["retreat"])
        left = self._left(g, e)
        if not left:
            return []
        return [e["side"]] if self._options(g, e, left) else []

    def _options(self, g: Game, e: dict[str, Any], left: list[str]) -> list[Action]:
        def compute() -> list[Action]:
            out: list[Action] = []
            groups = [left] + ([[u] for u in left] if len(left) > 1 else [])
            for grp in groups:
                movers = [piece(g, u) for u in grp if piece(g, u).loc.kind == "hex"]
                if not movers:
                    continue
                paths, _away = legal_paths(g, e, movers)
                for p in paths:
                    out.append(
                        {
                            "type": "retreat",
                            "side": e["side"],
                            "retreat": e["id"],
                            "units": sorted(grp),
                            "path": [M.label(g, h) for h in p],
                        }
                    )
            for j in _sea_ports(g, e):
                out.append(
                    {
                        "type": "retreat-by-sea",
                        "side": e["side"],
                        "retreat": e["id"],
                        "units": sorted(left),
                        "to": M.label(g, j),
                    }
                )

            for grp in withdrawal_into_fortress(g, e["side"], g.board.idx(e["hex"]), left):  # 23-C
                out.append(
                    {"type": "into-fortress", "side": e["side"], "retreat": e["id"], "units": grp}
                )
            return out

        return M.memo(g, f"retreat-options:{e['id']}:{','.join(left)}", compute)

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        e = _entry(g, f.params["retreat"])
        return self._options(g, e, self._left(g, e))

    def run(self, g: Game, f: Frame) -> None:
        e = _entry(g, f.params["retreat"])
        left = self._left(g, e)
        if left:
            say(
                g,
                e["side"],
                "retreat",
                f"{', '.join(left)} cannot retreat from {e['hex']} and are eliminated",
                f"a {e['side']} stack at {e['hex']} cannot retreat",
                rule="LGG 16.7-C",
            )
            eliminate_unable(g, e, left)
        e["done"] = True
        _after_departure(g, rec_of(g, e["battle"]))
        M.touch(g)
        g.finish(f)

    def _this_retreat(self, f: Frame, action: Action) -> None:
        if action.get("retreat") != f.params["retreat"]:
            raise IllegalAction("LGG 16.7-C", "this retreat is another one")

    @handles.check("retreat")
    def check_retreat(self, g: Game, f: Frame, action: Action) -> None:
        self._this_retreat(f, action)
        path = action.get("path")
        if not isinstance(path, list) or not path:
            raise IllegalAction(
                "LGG 16.7-C", "give the retreat path as hex labels, the battle hex first"
            )
        self.check_listed(g, f, action)

    @handles.check("retreat-by-sea", "into-fortress")
    def check_other_retreat(self, g: Game, f: Frame, action: Action) -> None:
        self._this_retreat(f, action)
        self.check_listed(g, f, action)

    @handles.apply("retreat-by-sea")
    def apply_by_sea(self, g: Game, f: Frame, action: Action) -> None:
        e = _entry(g, f.params["retreat"])
        ids = list(action["units"])
        j = g.board.idx(action["to"])
        execute(g, e, ids, [g.board.idx(e["hex"]), j], False)
        self._after(g, f, e)

    @handles.apply("into-fortress")
    def apply_into_fortress(self, g: Game, f: Frame, action: Action) -> None:

        e = _entry(g, f.params["retreat"])
        ids = list(action["units"])
        withdraw_into_fortress(g, e["side"], g.board.idx(e["hex"]), ids)
        e.setdefault("stayed", []).extend(ids)
        self._after(g, f, e)

    @handles.apply("retreat")
    def apply_retreat(self, g: Game, f: Frame, action: Action) -> None:
        e = _entry(g, f.params["retreat"])
        ids = list(action["units"])
        path = [g.board.idx(h) for h in action["path"]]
        if len(path) == 1:  # no further retreat (only a voluntary one was left)
            e.setdefault("stayed", []).extend(ids)
        else:
            movers = [piece(g, u) for u in ids if piece(g, u).loc.kind == "hex"]
            _paths, away = legal_paths(g, e, movers)
            execute(g, e, ids, path, away)
        self._after(g, f, e)

    def _after(self, g: Game, f: Frame, e: dict[str, Any]) -> None:
        if not self._left(g, e):
            e["done"] = True
            g.finish(f)
        M.touch(g)


def also_candidates(g: Game, rec: BattleRecord) -> list[int]:
    """LGG 16.7-B: hexes within 2 of the battle holding stacks of the loser that may retreat at the
    same time (its GHQ included)."""
    side = cast(str, rec.loser)
    i = rec.hex_i
    out = []
    for j, plist in sorted(M.occupied(g, side).items()):
        if j == i or g.board.distance(i, j) > 2:
            continue
        if any(
            p.loc.kind == "hex" and M.is_unit(p) for p in plist
        ) and j not in M.enemy_present_hexes(g, side):
            out.append(j)
    return out


@implements("LGG 16.7-B")
class RetreatAlso(LggStep):
    """LGG 16.7-B: friendly stacks within 2 hexes of the battle (and the GHQ) may retreat at the
    same
    time, 1 to 3 hexes toward supply."""

    name = "retreat-also"
    title = "Retreat of nearby stacks"
    rule = "LGG 16.7-B"

    def label(self, g: Game, f: Frame) -> str:
        return (
            f"{f.params['side']}: stacks near {rec_of(g, f.params['battle']).hex} may retreat too"
        )

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        rec = rec_of(g, f.params["battle"])
        moved = set(f.params.get("moved", []))

        def compute() -> list[Action]:
            out: list[Action] = []
            for j in also_candidates(g, rec):
                lab = M.label(g, j)
                if lab in moved:
                    continue
                units = [p for p in M.units_at_hex(g, j, side) if p.loc.kind == "hex"]
                entry = {
                    "side": side,
                    "hex": lab,
                    "min": 1,
                    "max": MAX_VOLUNTARY,
                    "forbid": list(rec.attacker_from) if side == rec.defender else [],
                    "first": None,
                }
                paths, _ = legal_paths(g, entry, units)
                for p in paths:
                    out.append(
                        {
                            "type": "retreat-stack",
                            "side": side,
                            "battle": rec.id,
                            "from": lab,
                            "path": [M.label(g, h) for h in p],
                        }
                    )
            out.append({"type": "done", "side": side, "battle": rec.id})
            return out

        return M.memo(g, f"retreat-also:{rec.id}:{','.join(sorted(moved))}", compute)

    @handles.apply("done")
    def apply_done(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("retreat-stack")
    def apply_retreat_stack(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        j = g.board.idx(action["from"])
        units = [p.id for p in M.units_at_hex(g, j, action["side"]) if p.loc.kind == "hex"]
        entry = {"battle": rec.id, "side": action["side"], "hex": action["from"], "units": units}
        execute(g, entry, units, [g.board.idx(h) for h in action["path"]], False)
        f.params.setdefault("moved", []).append(action["path"][-1])
        f.params["moved"].append(action["from"])
        M.touch(g)


# ================================================================ after the battle (16.7-D, 16.7-E)
def placement_options(g: Game, rec: BattleRecord, side: str) -> list[Action]:
    """LGG 16.7-D / 16.7-E: where ``side``'s corps of a finished battle may go: the attacker back to
    its starting hexes; either side into the reserve of its army's HQ (in or next to the hex)
    or into an adjacent stack of the same army; corps from the GHQ reserve back there. Artillery
    used stays with its stack."""
    i = rec.hex_i
    out: list[Action] = []
    units = [p for p in M.units_at_hex(g, i, side) if p.loc.kind == "hex" and p.type == "corps"]
    for p in units:
        u = rec.units.get(p.id, {})
        army = command_army(g, p)
        if side == rec.attacker and u.get("from") and rec.winner == side:
            j = g.board.idx(u["from"])
            if j not in M.enemy_present_hexes(g, side) and _stack_fits(g, side, j, [p]):
                out.append(
                    {
                        "type": "place",
                        "side": side,
                        "battle": rec.id,
                        "unit": p.id,
                        "to": "start",
                    }
                )
        if army:
            hq = M.hq_piece(g, army)
            h = M.hex_of(g, hq) if hq else None
            if (
                hq is not None
                and h is not None
                and g.board.distance(h, i) <= 1
                and _reserve_room(g, hq)
                and not M.is_garrison(p)
            ):
                out.append(
                    {
                        "type": "place",
                        "side": side,
                        "battle": rec.id,
                        "unit": p.id,
                        "to": "reserve",
                    }
                )
            for j in g.board.neighbors(i):
                there = [q for q in M.units_at_hex(g, j, side) if q.loc.kind == "hex"]
                if (
                    there
                    and all(command_army(g, q) in (army, None) for q in there)
                    and any(command_army(g, q) == army for q in there)
                    and _stack_fits(g, side, j, [p])
                ):
                    out.append(
                        {
                            "type": "place",
                            "side": side,
                            "battle": rec.id,
                            "unit": p.id,
                            "to": M.label(g, j),
                        }
                    )
        if str(u.get("origin", "")).startswith("ghq:"):
            ghq = piece(g, u["origin"].split(":", 1)[1])
            if M.on_map(g, ghq) and _reserve_room(g, ghq):
                out.append(
                    {"type": "place", "side": side, "battle": rec.id, "unit": p.id, "to": "ghq"}
                )
    return out


def _reserve_room(g: Game, holder: Piece) -> bool:

    used = sum(1 for q in g.state.contents(holder.id) if M.in_reserve(q) and q.type != "tank")
    return used < int(stat(g, holder, "reserve_capacity") or 0)


def overstacked(g: Game, rec: BattleRecord, side: str) -> bool:
    """LGG 10-A / 10-D: after the battle ``side`` has more corps in the battle hex than the
    stacking limit (reinforcements brought in while corps were set aside for the battle, 14-A)."""
    i = rec.hex_i
    n = sum(
        1
        for p in M.units_at_hex(g, i, side)
        if M.is_corps(p)
        and not M.in_reserve(p)
        and not M.garrison_in_fortress(g, p)
        and p.loc.kind == "hex"
    )
    return n > stacking_limit(g, i)


def placement_needed(g: Game, rec: BattleRecord, side: str) -> bool:
    return bool(placement_options(g, rec, side)) or overstacked(g, rec, side)


@implements("LGG 16.7-D", "LGG 16.7-E", "LGG 10-D")
class BattlePlacement(LggStep):
    """LGG 16.7-D / 16.7-E: after the battles each side places its corps of a battle; a stack left
    above the stacking limit must shed corps first - placed, moved to an adjacent hex toward the
    rear, or eliminated (10-D)."""

    name = "battle-placement"
    title = "Corps after the battle"
    rule = "LGG 16.7-D"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: corps after the battle at {rec_of(g, f.params['battle']).hex}"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:

        rec = rec_of(g, f.params["battle"])
        out = placement_options(g, rec, side)
        if not overstacked(g, rec, side):
            return [*out, {"type": "done", "side": side, "battle": rec.id}]
        i = rec.hex_i
        for p in M.units_at_hex(g, i, side):
            if not M.is_corps(p) or p.loc.kind != "hex":
                continue
            for j in rearward_hexes(g, side, i, p):
                if _stack_fits(g, side, j, [p]):
                    out.append(
                        {
                            "type": "displace",
                            "side": side,
                            "battle": rec.id,
                            "unit": p.id,
                            "to": M.label(g, j),
                        }
                    )
            out.append({"type": "eliminate", "side": side, "battle": rec.id, "unit": p.id})
        return out

    @handles.apply("done")
    def apply_done(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("eliminate")
    def apply_eliminate(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        p = piece(g, action["unit"])
        side = action["side"]
        battle.eliminate_unit(
            g, None, p.id, "in excess of the stacking limit after the battle", "LGG 10-D"
        )
        if not placement_needed(g, rec, side):
            g.finish(f)

    @handles.apply("displace")
    def apply_displace(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        p = piece(g, action["unit"])
        side = action["side"]
        M.move_piece(g, p, Loc.hex(g.board.idx(action["to"])))
        say(
            g,
            side,
            "displace",
            f"{p.id} moves back to {action['to']} (stacking)",
            None,
            rule="LGG 10-D",
        )
        if not placement_needed(g, rec, side):
            g.finish(f)

    @handles.apply("place")
    def apply_place(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        p = piece(g, action["unit"])
        side = action["side"]
        to = action["to"]
        if to == "start":
            M.move_piece(g, p, Loc.hex(g.board.idx(rec.units[p.id]["from"])))
        elif to == "reserve":
            hq = M.hq_piece(g, str(command_army(g, p)))
            assert hq is not None
            M.move_piece(g, p, Loc.inside(hq.id))
            M.set_status(g, p, M.RESERVE, True)
        elif to == "ghq":
            ghq = piece(g, rec.units[p.id]["origin"].split(":", 1)[1])
            M.move_piece(g, p, Loc.inside(ghq.id))
            M.set_status(g, p, M.RESERVE, True)
        else:
            M.move_piece(g, p, Loc.hex(g.board.idx(to)))
        if M.in_reserve(p):
            M.set_attr(g, p, "no_breakthrough", rec.activation)
        say(
            g,
            side,
            "placement",
            f"{p.id} placed after the battle ({to})",
            f"a {side} corps moves after the battle",
            rule="LGG 16.7-D",
        )
        M.touch(g)
        if not placement_needed(g, rec, side):
            g.finish(f)


# ====================================================================== overflow (16.7-F)
@implements("LGG 16.7-F")
def overflow_allowed(g: Game, rec: BattleRecord) -> str | None:
    """LGG 16.7-F: why the attacker may not overflow after this battle (None when it may). A short
    battle (1 round with no attacker superiority at any moment, or 2 rounds otherwise, option
    ``overflow-as-printed``, A-45) of low intensity (the defender had one corps), won by an army
    of at least 3 front-line corps; never in the August 1914 pre-turn nor from a fortress hex."""
    if rec.winner != rec.attacker or rec.kind not in ("open",):
        return "only after an ordinary battle won by the attacker"
    act = M.st(g).get("activation")
    if (act and act.get("pre_turn")) or M.current_turn(g).pre_turn:
        return "no overflow in the August 1914 pre-turn"
    if any(q.type == "fortress" for q in g.state.at_hex(rec.hex_i)):
        return "no overflow from a fortress hex"
    d_corps = [u for u in rec.units.values() if u["side"] == rec.defender and u["kind"] == "corps"]
    if len(d_corps) != 1:
        return "the defender had more than one corps"
    rounds = int(rec.round)
    limit = (2 if rec.had_superiority else 1) if g.opt("overflow-as-printed") else 2
    if rounds > limit:
        return f"the battle lasted {rounds} rounds (at most {limit})"
    front = [p for p in M.units_at_hex(g, rec.hex_i, rec.attacker) if p.type == "corps"]
    if len(front) < 3:
        return "the army needs at least 3 front-line corps"
    return None


STEPS: tuple[type[Step], ...] = (BattleRetreats, RetreatGroup, RetreatAlso, BattlePlacement)
