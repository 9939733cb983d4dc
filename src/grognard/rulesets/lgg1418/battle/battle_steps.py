"""LGG 16: the steps that fight a battle round by round, prompting each side at the right moment.

``battle`` (composite) drives one battle: set-up choices (16-C retreat before combat, 16-B
adjacent heavy artillery, 16-A attackers beyond the stacking limit, 16.6-C obstinacy shared
between battles), the secret split into sub-battles (16.1-B), then rounds: engaged corps and
artillery committed secretly by both sides and revealed together (16.2, 15-B), force
differential and D12 (16.3, 16.4), results, losses and combativeness tests with PR payments
(16.5), reserves committed secretly by both sides (16.6), sub-battle victories (16.1-C), the
end-of-round retreat offers in the doctrine's order with the obstinacy and round limits
(16.6-C, 16.7-A), and the end of the battle (retreat pending or fought at once, 16.7).

``battle-decision`` is one side's choice inside a battle (sequential); ``battle-commit`` a
simultaneous secret commitment of both sides (stored in each side's secrets, revealed when
both have committed). ``army-battles`` is the hook of the activation (16-A, 16.7, 17, 18).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, product
from typing import TYPE_CHECKING, Any, cast

from grognard.core.errors import IllegalAction
from grognard.core.procedure import Goto, Procedure, stage
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import (
    artillery,
    battle_calc,
    battle_retreat,
    breakthrough,
    fortress,
    tactics,
    tanks,
)
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle.base import add_unit as _add_unit
from grognard.rulesets.lgg1418.battle.base import (
    describe,
    engageable_corps,
    open_subs,
    piece,
    rec_of,
    say,
    units_of,
)
from grognard.rulesets.lgg1418.battle.base import test_effect as _test_effect
from grognard.rulesets.lgg1418.battle.base import test_item as _test_item
from grognard.rulesets.lgg1418.map import knowledge, mapdata
from grognard.rulesets.lgg1418.map.fronts import sectors_of
from grognard.rulesets.lgg1418.military import campaign, doctrine_transitions, movement, trench
from grognard.rulesets.lgg1418.military.stacking import counts_for_stacking, stacking_limit
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.supply.supply import is_isolated
from grognard.rulesets.lgg1418.units.counters import army_general, command_army, ghq_value

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.lgg1418.battle.base import BattleRecord


# ========================================================== set-up (16-A, 16-B, 16-C, 16-D, 16.1-A)
def _in_fortress(g: Game, p: Piece) -> bool:
    c = M.carrier(g, p)
    return c is not None and c.type == "fortress"


def _hex_units(g: Game, i: int, side: str) -> list[Piece]:
    """Units of ``side`` in the hex taking part in an open-country battle (no garrison, nothing
    inside a fortress, no reserve, no HQ/GHQ)."""
    out = []
    for p in M.units_at_hex(g, i, side):
        if p.type in ("hq", "ghq") or _in_fortress(g, p) or M.garrison_in_fortress(g, p):
            continue
        out.append(p)
    return out


def _drop_boxes(g: Game, i: int) -> None:
    """Stacks lifted onto HQ or decoy boxes in the battle hex come back onto the map (4-B): a
    battle shows what fights."""
    for holder in [q for q in g.state.at_hex(i) if q.type in ("hq", "decoy")]:
        inside = [q for q in g.state.contents(holder.id) if M.is_unit(q) and not M.in_reserve(q)]
        for q in inside:
            M.move_piece(g, q, Loc.hex(i))
        if inside:
            say(
                g,
                holder.side,
                "box",
                f"{', '.join(q.id for q in inside)} come off the box of {holder.id} to fight",
                None,
                rule="LGG 4-B",
            )


def _nation_of(g: Game, rec: BattleRecord, side: str, units: list[Piece], armies: list[str]) -> str:
    for a in armies:
        try:
            return M.army_nation(g, a)
        except KeyError:
            continue
    for p in units:
        if p.type == "corps":
            return p.nation
    for p in M.pieces_at_hex(g, rec.hex_i, side):
        if p.nation:
            return p.nation
    return M.powers_of(g, side)[0] if M.powers_of(g, side) else ""


@implements("LGG 16-A", "LGG 16.1-A", "LGG 16-D")
def setup_participants(g: Game, rec: BattleRecord) -> None:
    """LGG 16-A / 16.1-A / 16-D: who fights, the table, the kind of battle and the budgets."""
    i = rec.hex_i
    _drop_boxes(g, i)
    spec = rec.spec
    att, dfn = rec.attacker, rec.defender
    au = (
        [piece(g, u) for u in spec["attacker_units"]]
        if spec.get("attacker_units")
        else _hex_units(g, i, att)
    )
    du = (
        [piece(g, u) for u in spec["defender_units"]]
        if spec.get("defender_units")
        else _hex_units(g, i, dfn)
    )
    for p in au + du:
        if p.type in ("corps", "artillery", "tank") or (
            p.type == "fortress" and rec.kind == "assault"
        ):
            _add_unit(g, rec, p)  # 23-G: the fortress under assault is a defending unit
    armies = rec.armies or sorted(
        {a for p in au if p.type == "corps" and (a := command_army(g, p))}
    )
    rec.armies = armies[:2]
    rec.def_armies = sorted({a for p in du if (a := command_army(g, p))})
    rec.nations = {
        att: _nation_of(g, rec, att, au, rec.armies),
        dfn: _nation_of(g, rec, dfn, du, rec.def_armies),
    }
    rec.attacker_from = sorted(
        {u["from"] for u in rec.units.values() if u["side"] == att and u["from"]}
    )
    if "trench" not in spec and rec.kind != "counter-offensive":
        spec["trench"] = int(trench.battle_trench_level(g, rec.hex, dfn))
    act = M.st(g).get("activation")
    g.state.set_marker(
        "battle",
        rec.hex,
        {
            "turn": M.turn_index(g),
            "side": att,
            "activation": act["serial"] if act else None,
            "coordinated": sorted(set(rec.armies) | set(rec.def_armies)),
        },
    )
    for side, armies_ in ((att, rec.armies), (dfn, rec.def_armies)):
        for a in armies_:
            b = artillery.isolated_army_budget(g, a)
            if b is not None:
                rec.budgets[side] = b
                say(
                    g,
                    side,
                    "isolated-army",
                    f"army {a} is isolated: {b['pr']} PR and {b['mun']} MUN for this battle",
                    None,
                    rule="LGG 16-D",
                )
                break
    M.touch(g)


def _public(g: Game, type: str, text: str, rule: str, reveal: bool = False) -> None:
    g.emit(type, text, rule=rule, reveal=reveal)


@implements("LGG 16-C")
def retreat_before_combat_allowed(g: Game, rec: BattleRecord) -> bool:
    """LGG 16-C (Movement Doctrine only): cavalry defending without artillery may retreat before the
    battle when the attacker has no cavalry (also cavalry met in a Fire major breakthrough, 17.3-C).
    """
    if rec.kind not in ("open", "breakthrough", "overflow"):
        return False
    dfn = rec.defender
    doc = battle.side_doctrine(g, rec, dfn)
    if doc != "movement" and not rec.spec.get("major_breakthrough"):
        return False
    corps = units_of(rec, dfn, states=None)
    if not corps or not all(M.is_cavalry(piece(g, u)) for u in corps):
        return False
    if any(u["side"] == dfn and u["kind"] == "artillery" for u in rec.units.values()):
        return False
    if battle.defender_fortress(g, rec) is not None:
        return False
    att_corps = units_of(rec, rec.attacker, states=None)
    return not any(M.is_cavalry(piece(g, u)) for u in att_corps)


@implements("LGG 16.6-C")
def obstinacy_general(g: Game, rec: BattleRecord) -> Piece | None:
    """LGG 16.6-C: the attacking general whose obstinacy counts: with two armies the one of better
    rank; armies of different nationalities: the general of the army with the most corps in the
    battle (the one in command, as in 30-A). No general in an assault (23-G) or without HQ."""
    if rec.spec.get("no_generals") or rec.kind == "assault":
        return None
    gens = [(a, army_general(g, a)) for a in rec.armies]
    gens = [(a, gen) for a, gen in gens if gen is not None]
    if not gens:
        return None
    nations = {M.army_nation(g, a) for a, _ in gens}
    if len(nations) > 1:

        def size(a: str) -> int:
            return sum(
                1
                for u in rec.units.values()
                if u["side"] == rec.attacker and u["kind"] == "corps" and u.get("army") == a
            )

        return max(gens, key=lambda ag: (size(ag[0]), ag[0]))[1]
    return max(gens, key=lambda ag: (int(ag[1].stat("rank", 0)), ag[1].id))[1]  # type: ignore[union-attr]


def obstinacy_remaining(g: Game, rec: BattleRecord) -> int:
    gen = obstinacy_general(g, rec)
    if gen is None:
        return 1
    used = int(M.st(g).get("obstinacy_used", {}).get(f"{rec.activation}:{gen.id}", 0))
    return max(0, int(gen.stat("obstinacy", 1)) - used)


def other_battles_of_general(g: Game, rec: BattleRecord) -> int:
    """Battle hexes still to be fought by the activation where the obstinacy general's armies
    stand."""
    gen = obstinacy_general(g, rec)
    if gen is None or rec.activation is None:
        return 0
    plan = M.st(g).get("army_battles", {}).get(str(rec.activation))
    if not plan:
        return 0
    armies = {a for a in rec.armies if army_general(g, a) is gen}
    n = 0
    for lab in plan.get("pending", []):
        if lab == rec.hex:
            continue
        i = g.board.idx(lab)
        if any(command_army(g, p) in armies for p in M.units_at_hex(g, i, rec.attacker)):
            n += 1
    return n


def _setup_decision(g: Game, rec: BattleRecord) -> tuple[str, dict[str, Any]] | None:
    """The set-up decisions: the defender's dispositions, then the attacker's. Both are always
    asked (what is on offer depends on hidden facts; whether there is anything to decide must
    not show, 4-A)."""
    st = rec.ensure("setup")
    if not st.get("def_done"):
        return "battle-decision", {
            "battle": rec.id,
            "kind": "defender-setup",
            "side": rec.defender,
        }
    if st.get("rbc") == "retreat":
        return None
    if not st.get("att_done"):
        return "battle-decision", {
            "battle": rec.id,
            "kind": "attacker-setup",
            "side": rec.attacker,
        }
    return None


@implements("LGG 16-C", "LGG 16-B")
def defender_setup_options(g: Game, rec: BattleRecord) -> list[dict[str, Any]]:
    """LGG 16-C / 16-B: the defender may retreat its cavalry before combat, and bring in heavy
    artillery of its army from adjacent hexes, before the battle starts."""
    out: list[dict[str, Any]] = [{"type": "proceed"}]
    if retreat_before_combat_allowed(g, rec):
        out.append({"type": "retreat-before-combat"})
    if rec.kind != "assault":
        for p in artillery.adjacent_heavy_artillery(
            g, rec.defender, rec.hex_i, set(rec.def_armies)
        ):
            if p.id not in rec.units:
                out.append({"type": "join", "unit": p.id})
    return out


@implements("LGG 16-A", "LGG 16.6-C")
def attacker_setup_options(g: Game, rec: BattleRecord) -> list[dict[str, Any]]:
    """LGG 16-A / 16.6-C: in Movement Doctrine the attacker leaves out the corps beyond the stacking
    limit; a general with other battles to fight in the activation shares his obstinacy."""
    att = rec.attacker
    st = rec.ensure("setup")
    if not battle.fire_procedure(g, rec) and len(units_of(rec, att)) > stacking_limit(g, rec.hex_i):
        return [{"type": "leave-out", "unit": u} for u in units_of(rec, att)]
    if (
        not st.get("obst_done")
        and rec.spec.get("min_rounds") is None
        and obstinacy_general(g, rec) is not None
    ):
        rem = obstinacy_remaining(g, rec)
        if other_battles_of_general(g, rec) > 0 and rem > 1:
            return [{"type": "allocate", "rounds": n} for n in range(1, rem + 1)]
    return [{"type": "proceed"}]


def finish_setup(g: Game, rec: BattleRecord) -> None:
    """After the set-up choices: great battle or not, table, limits; battles without defenders."""
    att, dfn = rec.attacker, rec.defender
    spec = rec.spec
    rec.table = battle.table_id(g, rec)
    rec.great = battle.determine_great(g, rec)
    fire = battle.fire_procedure(g, rec)
    cap = spec.get("round_cap")
    rec.round_cap = int(cap) if cap is not None else (10 if fire else None)
    if spec.get("min_rounds") is not None:
        rec.min_rounds = int(spec["min_rounds"])
    else:
        alloc = rec.obstinacy_alloc
        rec.min_rounds = int(alloc if alloc is not None else obstinacy_remaining(g, rec))
        gen = obstinacy_general(g, rec)
        if gen is not None and rec.activation is not None:
            key = f"{rec.activation}:{gen.id}"
            used = M.st(g).setdefault("obstinacy_used", {})
            used[key] = int(used.get(key, 0)) + rec.min_rounds
    rec.obstinacy_count = 0
    rec.obstinacy_from = int(spec.get("obstinacy_from_round") or 1)
    rec.flank_breakthrough = bool(spec.get("flank_breakthrough"))
    kind = "great battle" if rec.great else "battle"
    _public(
        g,
        "battle",
        f"{kind.capitalize()} at {rec.hex}: {att} attacks {dfn} ({rec.kind}, "
        f"{'Trench Table' if rec.table == 'combat-trench' else 'Movement table'})",
        "LGG 16-A",
    )

    if not units_of(rec, dfn, states=None) and fortress.assault_fortress(g, rec) is None:
        rec.subs = {"A": {"open": False, "winner": att}}
        _end(g, rec, att, "no defending corps")
        return
    if not units_of(rec, att, states=None):
        rec.subs = {"A": {"open": False, "winner": dfn}}
        _end(g, rec, dfn, "no attacking corps")
        return
    if rec.great and len(units_of(rec, dfn)) == 1:
        rec.late_split = True
        rec.subs = {"A": {"open": True}, "B": {"open": False, "pending": True}}
        for u in rec.units.values():
            if u["role"] == "front":
                u["sub"] = "A"
        _public(
            g,
            "battle",
            f"great battle at {rec.hex}: the defender has a single corps; round 1 is fought as "
            "one sub-battle (LGG 16.1-A)",
            "LGG 16.1-A",
        )
        rec.phase = "round-start"
        return
    if rec.great:
        rec.subs = {"A": {"open": True}, "B": {"open": True}}
        rec.phase = "split"
        return
    rec.subs = {"A": {"open": True}}
    for u in rec.units.values():
        if u["role"] == "front":
            u["sub"] = "A"
    rec.phase = "round-start"


# ====================================================================== split (16.1-B)
def _split_units(g: Game, rec: BattleRecord, side: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"corps": [], "artillery": [], "tank": [], "fortress": []}
    for uid, u in sorted(rec.units.items()):
        if u["side"] != side or u["role"] != "front" or u["state"] in ("eliminated", "out"):
            continue
        if u["kind"] in out:
            out[u["kind"]].append(uid)
    f = battle.supporting_fortress(g, rec, side)
    if f is not None:
        out["fortress"].append(f.id)
    return out


def _equal_subsets(items: list[str], free: bool) -> list[tuple[str, ...]]:
    n = len(items)
    if free:
        sizes = range(n + 1)
    else:
        sizes = sorted({n // 2, (n + 1) // 2})  # type: ignore[assignment]
    out = []  # type: ignore[var-annotated]
    for k in sizes:
        out.extend(combinations(items, k))
    return out


@implements("LGG 16.1-B")
def split_options(
    g: Game, rec: BattleRecord, side: str, only: list[str] | None = None
) -> list[dict[str, list[str]]]:
    """LGG 16.1-B: the ways ``side`` may divide its front-line corps and artillery (and tanks, and a
    fortress acting as artillery) between sub-battles A and B: as equally as possible (option
    ``sub-battle-split``, digest A-9; ``free`` allows any division, one sub-battle possibly
    empty); two attacking armies each take one sub-battle."""
    parts = _split_units(g, rec, side)
    if only is not None:
        parts = {k: [u for u in v if u in only] for k, v in parts.items()}
    free = g.opt("sub-battle-split") == "free"
    out: list[dict[str, list[str]]] = []
    if side == rec.attacker and len(rec.armies) == 2 and only is None:
        for first, _second in (rec.armies, reversed(rec.armies)):
            a = sorted(
                u for k in parts for u in parts[k] if rec.units.get(u, {}).get("army") == first
            )
            b = sorted(u for k in parts for u in parts[k] if u not in a)
            out.append({"A": a, "B": b})
        return out
    corps = _equal_subsets(parts["corps"], free)
    if not free:
        corps = [c for c in corps if c or not parts["corps"]]
    arts = _equal_subsets(parts["artillery"], free)
    tanks = _equal_subsets(parts["tank"], True)
    forts: list[tuple[str, ...]] = [(), tuple(parts["fortress"])] if parts["fortress"] else [()]
    for c, a, t, f in product(corps, arts, tanks, forts):  # type: ignore[assignment]
        A = sorted(c + a + t + f)  # type: ignore[operator]
        B = sorted(u for k in parts for u in parts[k] if u not in A)
        out.append({"A": A, "B": B})
        if len(out) > 3000:
            break
    return out


def apply_split(g: Game, rec: BattleRecord, side: str, split: dict[str, list[str]]) -> None:
    for sub in ("A", "B"):
        for uid in split.get(sub, []):
            if uid in rec.units:
                rec.units[uid]["sub"] = sub
            else:
                rec.ensure("fortress_sub")[side] = sub
    M.touch(g)


# ====================================================================== engaged units (16.2, 15-B)


@implements("LGG 16.2-A", "LGG 23-G")
def engageable(g: Game, rec: BattleRecord, side: str, sub: str) -> list[str]:
    """LGG 16.2-A / 23-G: the units ``side`` may engage in ``sub`` this round: its engageable corps;
    in an assault, the fortress itself when the defender has no corps left to engage."""

    out = engageable_corps(g, rec, side, sub)
    if not out and side == rec.defender:
        f = fortress.assault_fortress(g, rec)
        if f is not None and f.id in rec.units:
            out = [f.id]
    return out


def _mun_left(g: Game, rec: BattleRecord, nation: str, side: str) -> int | None:
    b = rec.budgets.get(side)
    stock = artillery.mun_stock(g, nation)
    if b is not None and nation == M.army_nation(g, b["army"]):
        lim = int(b["mun"])
        return lim if stock is None else min(lim, stock)
    return stock


def artillery_options(g: Game, rec: BattleRecord, side: str, sub: str) -> list[str]:
    """LGG 15-B / 23-C: artillery units (or the fortress) that may support in ``sub`` this round."""
    out = []
    for uid, u in sorted(rec.units.items()):
        if (
            u["side"] != side
            or u["kind"] != "artillery"
            or u["role"] != "front"
            or u["state"] != "fit"
        ):
            continue
        if rec.great and u.get("sub") != sub:
            continue
        p = piece(g, uid)
        if artillery.used_elsewhere(g, p, rec.id, rec.activation) and not rec.spec.get(
            "artillery_reuse"
        ):
            continue
        left = _mun_left(g, rec, p.nation, side)
        if left is not None and left < 1:
            continue
        out.append(uid)
    f = battle.supporting_fortress(g, rec, side)
    if f is not None and (not rec.great or rec.fortress_sub.get(side) == sub):
        cost = artillery.fortress_shot_cost(g, f)
        left = _mun_left(g, rec, f.nation, side)
        if cost == 0 or left is None or left >= cost:
            out.append(f.id)
    return out


@implements("LGG 16.2-A", "LGG 16.2-B", "LGG 15-B")
def engage_options(g: Game, rec: BattleRecord, side: str) -> list[dict[str, Any]]:
    """LGG 16.2 / 15-B: one engaged corps per open sub-battle, each with at most one artillery unit
    (army-numbered artillery only for its own army's corps; munitions enough for every gun)."""
    per_sub = []
    subs = open_subs(rec)
    for sub in subs:
        corps = engageable(g, rec, side, sub)
        arts = artillery_options(g, rec, side, sub)
        combos = []
        for c in corps:
            army = battle.unit_army(g, rec, c)
            combos.append({"corps": c, "art": None})
            for a in arts:
                p = piece(g, a)
                if p.type == "artillery" and not artillery.may_support_army(g, p, army):
                    continue
                combos.append({"corps": c, "art": a})
        per_sub.append(combos or [{"corps": None, "art": None}])
    out = []
    for choice in product(*per_sub):
        arts_used = [c["art"] for c in choice if c["art"]]
        if len(arts_used) != len(set(arts_used)):
            continue
        need: dict[str, int] = {}
        for a in arts_used:
            p = piece(g, a)
            cost = artillery.fortress_shot_cost(g, p) if p.type == "fortress" else 1
            need[p.nation] = need.get(p.nation, 0) + cost
        if any(
            (left := _mun_left(g, rec, n, side)) is not None and left < k for n, k in need.items()
        ):
            continue
        out.append({sub: c for sub, c in zip(subs, choice, strict=True)})
    return out


def _reveal_engagement(g: Game, rec: BattleRecord, chosen: dict[str, dict[str, Any]]) -> None:
    r = rec.round
    rec.engaged = {}
    for sub in open_subs(rec):
        rec.engaged[sub] = {}
        for side in (rec.attacker, rec.defender):
            c = chosen.get(side, {}).get(sub, {"corps": None, "art": None})
            rec.engaged[sub][side] = dict(c)
            hist = rec.ensure("history").setdefault(f"{r}:{sub}", {})
            hist[side] = c.get("corps")
            hist[side + ":art"] = c.get("art")
            if c.get("corps"):
                u = rec.units[c["corps"]]
                u["engaged"].append(r)
                army = u.get("army")
                if army:
                    rec.ensure("committed").setdefault(army, [])
                    if r not in rec.committed[army]:
                        rec.committed[army].append(r)
            p = piece(g, c["corps"]) if c.get("corps") else None
            art = piece(g, c["art"]) if c.get("art") else None
            mine = f"round {r}, sub-battle {sub}: {c.get('corps') or 'no corps'} engaged" + (
                f", supported by {art.id}" if art else ""
            )
            theirs = (
                f"round {r}, sub-battle {sub}: {side} engages "
                + (describe(g, p) if p else "no corps")
                + (f", supported by {describe(g, art)}" if art else "")
            )
            say(g, side, "engage", mine, theirs, rule="LGG 16.2-A")
            if art is not None:
                cost = artillery.fortress_shot_cost(g, art) if art.type == "fortress" else 1
                b = rec.budgets.get(side)
                if cost and b is not None and art.nation == M.army_nation(g, b["army"]):
                    b["mun"] = int(b["mun"]) - cost
                artillery.spend_munitions(
                    g,
                    art.nation,
                    cost,
                    "LGG 23-C" if art.type == "fortress" else "LGG 15-B",
                    f"support in the battle at {rec.hex}",
                )
                if art.type == "artillery":
                    artillery.mark_used(g, art, rec.id, rec.activation)
                    rec.used_art[art.id] = True
    g.emit(
        "reveal",
        f"battle at {rec.hex}, round {r}: engaged units revealed",
        rule="LGG 16.2-A",
        reveal=True,
    )
    M.touch(g)


# ====================================================================== resolution (16.3-16.5)
@implements("LGG 16.5", "LGG 16.5-A", "LGG 16.4")
def resolve_round(g: Game, rec: BattleRecord) -> None:
    """LGG 16.3-16.5: each open sub-battle rolls its D12 and reads the table; the results go to
    the casualty queue (losses, exchanges, tests)."""

    r = rec.round
    if battle.superiority(g, rec) > 0:
        rec.had_superiority = True
    for sub in open_subs(rec):
        eng = rec.engaged.get(sub, {})
        ca = eng.get(rec.attacker, {}).get("corps")
        cd = eng.get(rec.defender, {}).get("corps")
        if not ca or not cd:
            continue
        calc = battle_calc.round_calc(g, rec, sub)
        tbl = battle.table(g, calc.table)
        _public(
            g,
            "battle-round",
            f"battle at {rec.hex}, round {r}, sub-battle {sub}: {calc.explain()}",
            "LGG 16.3-A",
        )
        roll = g.roll(
            "d12",
            f"combat at {rec.hex}, round {r}, sub-battle {sub}",
            "LGG 16.4",
            modifiers=calc.d12,
        )
        look = tbl.lookup(calc.column_index, roll.modified)
        ra, rd, bold = battle.parse_cell(look.result)
        forced = rec.spec.get("forced_attacker_result")
        if forced:
            ra = str(forced)
        rd = tactics.aggravated(g, rec, sub, rd)
        rec.subs[sub]["last"] = {"a": ra, "d": rd, "bold": bold, "round": r}
        _public(
            g,
            "battle-result",
            f"{look.explain()}: attacker {ra}, defender {rd}{' (bold)' if bold else ''}",
            "LGG 16.5-A",
        )
        rec.queue.append({"t": "hit", "unit": ca, "res": ra, "sub": sub, "stage": "start"})
        rec.queue.append({"t": "hit", "unit": cd, "res": rd, "sub": sub, "stage": "start"})
    M.touch(g)


@implements("LGG 16.5-A", "LGG 4-A")
def _exchange_allowed(g: Game, rec: BattleRecord, uid: str, sub: str, truth: bool = False) -> bool:
    """LGG 16.5-A / 36.1: the Movement Doctrine defender may cancel a loss of this round (one per
    sub-battle) for one more retreat hex: not for an E, not if isolated, not if the retreat would
    move it away from its supply lines; never in a counter-offensive (18-B). Isolation and supply
    lines are judged from what the defender may know of the enemy markers (4-A: offered unless
    surely barred); ``truth``: from the true position (when the exchange is declared)."""

    p = piece(g, uid)
    if p.side != rec.defender or rec.kind == "counter-offensive" or rec.spec.get("no_exchange"):
        return False
    if not artillery.movement_doctrine(
        g, battle.side_nation(rec, p.side), battle.battle_front(g, rec)
    ):
        return False
    if rec.exchanges.get(sub, {}).get(str(rec.round)):
        return False

    def traced() -> bool:
        return not is_isolated(g, p, "combat") and battle_retreat.toward_supply_possible(
            g, p.side, rec.hex_i, rec
        )

    if truth:
        return traced()
    return knowledge.may_be_true(g, p.side, traced)


def _exchange_asked(g: Game, rec: BattleRecord, uid: str, sub: str) -> bool:
    """Whether the defender is asked about an exchange (16.5-A): a Movement-Doctrine defender's
    engaged corps suffers a loss, once per sub-battle a round - public facts only; whether the
    exchange is open (isolation, supply lines) shows only in its own options (4-A)."""
    p = piece(g, uid)
    if p.side != rec.defender or rec.kind == "counter-offensive" or rec.spec.get("no_exchange"):
        return False
    if not artillery.movement_doctrine(
        g, battle.side_nation(rec, p.side), battle.battle_front(g, rec)
    ):
        return False
    return not rec.exchanges.get(sub, {}).get(str(rec.round))


@implements("LGG 16.5-A", "LGG 16.5-B", "LGG 38-C", "LGG 39-C")
def process_queue(g: Game, rec: BattleRecord) -> tuple[str, dict[str, Any]] | None:
    """LGG 16.5-A / 16.5-B: apply the queued results and tests in order; return the decision step
    a side must answer (exchange, PR payment, panic choice) or None when the queue is empty."""

    q = rec.queue
    while q:
        it = q[0]
        uid = it["unit"]
        u = rec.units.get(uid)
        p = piece(g, uid)
        if u is not None and u["state"] in ("eliminated", "out"):
            q.pop(0)
            continue
        if it["t"] == "hit" and p.type == "fortress":
            q.pop(0)

            fortress.fortress_hit(g, rec, it["res"])  # 23-G: "½" ignored, no test
            continue
        if it["t"] == "hit":
            res = it["res"]
            if it["stage"] == "start":
                if res == "½":
                    d6 = g.roll("d6", f"result ½ on {describe(g, p)}", "LGG 16.5-A")
                    res = "1" if d6.natural % 2 == 1 else "0"
                    it["res"] = res
                if res == "0":
                    q.pop(0)
                    continue
                if res != "E" and _exchange_asked(g, rec, uid, it["sub"]):
                    it["stage"] = "exchange"
                    it["may_exchange"] = _exchange_allowed(g, rec, uid, it["sub"])
                    return "battle-decision", {
                        "battle": rec.id,
                        "kind": "exchange",
                        "side": p.side,
                    }
                it["stage"] = "apply"
            if it["stage"] == "exchange":
                return "battle-decision", {"battle": rec.id, "kind": "exchange", "side": p.side}
            if it["stage"] == "apply":
                q.pop(0)
                _apply_hit(g, rec, uid, it["res"], it["sub"], bool(it.get("exchanged")))
                tanks.destruction_checks(g, rec, it["sub"], p.side, it["res"])
                continue
        if it["t"] == "test":
            if it["stage"] == "roll":
                code = battle.roll_test(
                    g,
                    rec,
                    uid,
                    battle.test_modifiers(
                        g,
                        rec,
                        uid,
                        reduced_hit=bool(it.get("reduced_hit")),
                        panic=bool(it.get("panic") or it.get("terror")),
                        terror=bool(it.get("terror")),
                        away=bool(it.get("away")),
                    ),
                    it.get("why", "losses"),
                )
                if code == "R" and (rec.spec.get("no_repulse") and p.side == rec.defender):
                    code = "H"
                it["code"] = code
                say(
                    g,
                    p.side,
                    "combativeness",
                    f"{p.id}: combativeness test {battle.TEST_CODES[code]}",
                    f"{describe(g, p)}: combativeness test {battle.TEST_CODES[code]}",
                    rule="LGG 16.5-B",
                )
                if code == "X" or it.get("away"):
                    it["stage"] = "effect"
                elif _free_test(rec, p.side):
                    it["stage"] = "effect"  # 23-G: no PR to spend
                elif code in ("E", "P"):
                    battle.pay_pr(g, rec, uid, "LGG 16.5-B", f"combativeness test of {p.id}")
                    it["stage"] = "effect"
                elif battle.can_pay_pr(g, rec, uid):
                    it["stage"] = "pay"
                else:
                    it["stage"] = "unpaid"
            if it["stage"] == "pay":
                return "battle-decision", {"battle": rec.id, "kind": "pay", "side": p.side}
            if it["stage"] == "unpaid":
                q.pop(0)
                say(
                    g,
                    p.side,
                    "no-pr",
                    f"{p.id} cannot be paid for (no PR available to it) and is eliminated",
                    "a corps without PR to pay for its test is eliminated",
                    rule="LGG 16.5-B",
                )
                battle.eliminate_unit(g, rec, uid, "no PR for its combativeness test", "LGG 16.5-B")
                continue
            if it["stage"] == "refused":
                q.pop(0)
                battle.eliminate_unit(
                    g, rec, uid, "its power would not pay for its test", "LGG 16.5-B"
                )
                continue
            if it["stage"] == "panic-pick":
                return "battle-decision", {
                    "battle": rec.id,
                    "kind": "panic-pick",
                    "side": p.side,
                }
            if it["stage"] == "effect":
                q.pop(0)
                d = _test_effect(g, rec, uid, it)
                tactics.assault_marker_after_test(g, rec, uid, it)
                if d is not None:
                    return d
                continue
        q.pop(0)
    return None


@implements("LGG 23-G")
def _free_test(rec: BattleRecord, side: str) -> bool:
    """LGG 23-G: the side's combativeness tests cost no PR in this battle (``free_tests``)."""
    role = "attacker" if side == rec.attacker else "defender"
    return role in (rec.spec.get("free_tests") or [])


def _round_losses(rec: BattleRecord, uid: str) -> int:
    u = rec.units.get(uid)
    if u is None:
        return 0
    return int(u.get("round_losses", {}).get(str(rec.round), 0))


@implements("LGG 16.5-A")
def _apply_hit(g: Game, rec: BattleRecord, uid: str, res: str, sub: str, exchanged: bool) -> None:
    """LGG 16.5-A: apply a combat result to the engaged corps (at most 2 losses per round)."""

    p = piece(g, uid)
    trig = g.opt("combativeness-trigger")
    if exchanged:
        res = {"1": "0", "M": "1", "2": "1"}.get(res, res)
        if res == "0":
            return
    room = 2 - _round_losses(rec, uid)
    if room <= 0:
        return
    if res == "E":
        battle.tally(g, rec, uid, min(2, room))
        battle.pay_pr(g, rec, uid, "LGG 16.5-A", f"{p.id} eliminated by an E")
        say(
            g,
            p.side,
            "hit",
            f"{p.id} is eliminated (E)",
            f"{describe(g, p)} is eliminated (E)",
            rule="LGG 16.5-A",
        )
        battle.eliminate_unit(g, rec, uid, "result E", "LGG 16.5-A")
        return
    n = min(room, 1 if res == "1" else 2)
    was_reduced = M.is_reduced(p)
    say(
        g,
        p.side,
        "hit",
        f"{p.id} suffers {res}",
        f"{describe(g, p)} suffers {res}",
        rule="LGG 16.5-A",
    )
    tactics.assault_marker_after_loss(g, rec, uid, res)
    if res == "1" or n == 1:
        battle.tally(g, rec, uid, 1)
        if not was_reduced:
            battle.flip_reduced(g, uid, "LGG 16.5-A")
            if trig == "per-battle" and int(rec.units[uid]["losses"]) >= 2:
                rec.queue.insert(0, _test_item(uid, why="second loss in this battle", res="1"))
            return
        if trig == "cumulative" or (trig == "per-battle" and int(rec.units[uid]["losses"]) >= 2):
            rec.queue.insert(0, _test_item(uid, why="loss on a reduced corps", res="1"))
            return
        battle.eliminate_unit(g, rec, uid, "a loss it can no longer absorb", "LGG 16.5-A")
        return
    battle.tally(g, rec, uid, n)
    if res == "2":
        if not was_reduced:
            battle.flip_reduced(g, uid, "LGG 16.5-A")
        rec.queue.insert(0, _test_item(uid, why="result 2", res="2", reduced_hit=was_reduced))
        return
    rec.queue.insert(0, _test_item(uid, why="result M", res="M"))


# ====================================================================== reserves (16.6)
def _dist(g: Game, a: int | None, b: int) -> int:
    return 999 if a is None else g.board.distance(a, b)


def _east(g: Game, rec: BattleRecord) -> bool:
    return battle.battle_front(g, rec) == M.EAST


def _ghqs(g: Game, rec: BattleRecord, side: str) -> list[Piece]:
    nations = {battle.side_nation(rec, side)} | {
        M.army_nation(g, a) for a in _side_armies(rec, side)
    }
    return [
        q for q in (M.ghq_piece(g, n) for n in sorted(nations)) if q is not None and M.on_map(g, q)
    ]


def _side_armies(rec: BattleRecord, side: str) -> list[str]:
    return list(rec.armies if side == rec.attacker else rec.def_armies)


def _odd_only(g: Game, rec: BattleRecord, side: str) -> bool:
    for sub in rec.subs.values():
        if (
            sub.get("open")
            and (sub.get("flank_for") or sub.get("encircled_by"))
            and (sub.get("flank_for") or sub.get("encircled_by")) != side
        ):
            return True
    return False


@implements("LGG 16.6-A", "LGG 16-B", "LGG 39-D")
def reinforcement_pool(g: Game, rec: BattleRecord, side: str) -> list[tuple[str, str]]:
    """LGG 16.6-A: units ``side`` may bring into the battle this round, with their origin.

    Movement Doctrine: the reserve of an HQ of the side's armies whose command range covers the
    battle; the national GHQ reserve within 3 hexes; units put into a fortress of the battle hex
    (not garrisons, option ``fortress-reinforcement-garrisons``). Fire Doctrine: the reserve of
    any HQ of the same front sector (allied ones through 16.6-B); the GHQ reserve; fortress units;
    a stack of the same army within 3 hexes leaving a corps behind; on the East, sources 4-6 hexes
    away only in odd rounds, none beyond 6 (German and Austro-Hungarian HQs excepted). Always: rear
    corps not disorganized; army-own units only for their army; heavy tanks in a GHQ reserve never
    (39-D)."""

    i = rec.hex_i
    r = rec.round
    fire = (
        battle.doctrine.doctrine(g, battle.side_nation(rec, side), battle.battle_front(g, rec))
        in battle.FIRE_DOCTRINES
    )
    armies = set(_side_armies(rec, side))
    nation = battle.side_nation(rec, side)
    out: list[tuple[str, str]] = []
    seen: set[str] = set()

    def ok_unit(p: Piece) -> bool:
        if p.id in seen or p.side != side or p.type not in ("corps", "artillery", "tank"):
            return False
        if p.type == "artillery" and not fire:
            return False
        own = M.army_number(g, p)
        if own is not None and own not in armies:
            return False
        return rec.units.get(p.id, {}).get("state") not in ("eliminated", "out", "disorganized")

    def east_ok(h: int | None, nat: str) -> bool:
        if not _east(g, rec):
            return True
        d = _dist(g, h, i)
        if d <= 3 or (nat in ("DE", "AH") and side == M.CP):
            return True
        if d <= 6:
            return r % 2 == 1
        return False

    for uid, u in sorted(rec.units.items()):
        if (
            u["side"] == side
            and u["role"] == "rear"
            and u["state"] == "fit"
            and u["kind"] == "corps"
        ):
            out.append((uid, "rear"))
            seen.add(uid)
    hqs = [M.hq_piece(g, a) for a in sorted(M.armies_of(g, side))]
    for hq in hqs:
        if hq is None or not M.on_map(g, hq):
            continue
        army = str(hq.attrs.get("army"))
        h = M.hex_of(g, hq)
        if fire:
            same_sector = (
                bool(set(sectors_of(g, h)) & set(sectors_of(g, i))) if h is not None else False
            )
            if not same_sector or not east_ok(h, hq.nation):
                continue
        else:
            if army not in armies or not movement.in_command_range(g, army, i):
                continue
        for q in g.state.contents(hq.id):
            if M.in_reserve(q) and ok_unit(q):
                out.append((q.id, f"hq:{hq.id}"))
                seen.add(q.id)
    for ghq in _ghqs(g, rec, side):
        h = M.hex_of(g, ghq)
        if not fire and _dist(g, h, i) > 3:
            continue
        if fire and not east_ok(h, ghq.nation):
            continue
        for q in g.state.contents(ghq.id):
            if (
                M.in_reserve(q)
                and ok_unit(q)
                and not (q.type == "tank" and q.attrs.get("category") == "heavy")
            ):
                out.append((q.id, f"ghq:{ghq.id}"))
                seen.add(q.id)
    for f in g.state.at_hex(i):
        if f.type == "fortress" and f.side == side:
            relief = (
                side == rec.attacker
            )  # 23-D: the besieged corps join a relief battle, whatever their army
            for q in g.state.contents(f.id):
                if M.garrison_in_fortress(g, q):
                    continue
                if relief:
                    ok = (
                        q.type == "corps"
                        and q.id not in seen
                        and rec.units.get(q.id, {}).get("state")
                        not in ("eliminated", "out", "disorganized")
                    )
                else:
                    ok = ok_unit(q)
                if not ok:
                    continue
                out.append((q.id, f"fortress:{f.id}"))
                seen.add(q.id)
    if fire:
        for j in sorted(M.occupied(g, side)):
            if j == i or g.board.distance(i, j) > 3:
                continue
            stack = [q for q in M.units_at_hex(g, j, side) if q.loc.kind == "hex"]
            corps_there = [q for q in stack if M.is_corps(q)]
            for q in stack:
                if (
                    q.type not in ("corps", "artillery")
                    or command_army(g, q) not in armies
                    or not ok_unit(q)
                ):
                    continue
                if M.is_corps(q) and len(corps_there) <= 1:
                    continue
                out.append((q.id, f"stack:{M.label(g, j)}"))
                seen.add(q.id)
    refused = set(rec.allied_refused.get(side, []))
    out = [
        (u, o) for u, o in out if piece(g, u).nation not in refused or piece(g, u).nation == nation
    ]
    if (
        side == rec.defender
    ):  # 28-D: autonomous defenders in trench warfare: HQs or the GHQ within 6 hexes
        defenders = [piece(g, u) for u in units_of(rec, side, states=None)]
        if trench.autonomous_defence(g, defenders, i):

            def allowed(origin: str) -> bool:
                kind, _, ref = origin.partition(":")
                return origin == "rear" or (
                    kind in ("hq", "ghq")
                    and trench.autonomous_reinforcement_source_ok(g, defenders, piece(g, ref), i)
                )

            out = [(u, o) for u, o in out if allowed(o)]
    if battle.doctrine.doctrine(g, nation, battle.battle_front(g, rec)) == "combined":
        out = [(u, o) for u, o in out if _combined_timing_ok(g, rec, o)]
    if rec.kind == "breakthrough" and side == rec.attacker and not rec.spec.get("new_army"):
        # 17.1: a breakthrough battle is fought with the breakthrough units plus reinforcements from
        # the reserve of the breaking-through armies' HQs (17.3-B: wider with a newly activated
        # army)
        hq_ids = {f"hq:{q.id}" for a in armies if (q := M.hq_piece(g, a)) is not None}  # type: ignore[assignment]
        out = [(u, o) for u, o in out if o == "rear" or o in hq_ids]
    if rec.kind == "assault":  # 23-G: no tanks nor Stosstruppen; nothing enters a besieged fortress
        if side == rec.defender:
            out = [(u, o) for u, o in out if o == "rear" or o.startswith("fortress:")]
        else:
            out = [
                (u, o)
                for u, o in out
                if piece(g, u).type != "tank" and not piece(g, u).attrs.get("assault")
            ]
    return out


def _combined_timing_ok(g: Game, rec: BattleRecord, origin: str) -> bool:
    """36.5-C: in Combined Doctrine, sources farther than 3 hexes send only in odd rounds (none
    beyond 6 on the East for HQs and the GHQ) unless a normal or massive bombardment preceded."""

    kind, _, ref = origin.partition(":")
    if kind in ("hq", "ghq"):
        h = M.hex_of(g, piece(g, ref))
    elif kind == "stack":
        h = g.board.idx(ref)
    else:
        return True
    d = _dist(g, h, rec.hex_i)
    return doctrine_transitions.combined_reinforcement_allowed(
        g,
        d,
        max(1, int(rec.round)),
        rec.spec.get("bombardment") or "none",
        battle.battle_front(g, rec),
        source=kind if kind in ("hq", "ghq") else "unit",
    )


def _sub_corps(rec: BattleRecord, side: str, sub: str) -> int:
    return len(units_of(rec, side, sub=sub, states=("fit", "disorganized")))


def _side_hex_corps(g: Game, rec: BattleRecord, side: str) -> int:
    return sum(1 for p in M.units_at_hex(g, rec.hex_i, side) if counts_for_stacking(g, p))


def reinforcement_targets(
    g: Game, rec: BattleRecord, side: str, uid: str, origin: str
) -> list[str]:
    """Open sub-battles ``uid`` may join: the 3-corps (2 in mountains) limit of a side that lost a
    sub-battle (16.1-C), the Fire normal-battle limit of 3 attacking corps (16.1-A), stacking."""
    p = piece(g, uid)
    subs = open_subs(rec)
    if rec.late_split and rec.round == 1 and side == rec.defender:
        subs = ["B"] if p.type == "corps" else [*subs, "B"]
    if not subs:
        return []
    if p.type != "corps":
        return subs
    if origin != "rear" and _side_hex_corps(g, rec, side) + 1 > stacking_limit(g, rec.hex_i):
        return []
    out = []
    for sub in subs:
        n = _sub_corps(rec, side, sub)
        if side in rec.sub_losers:
            lim = 2 if battle.in_mountains(g, rec.hex_i) else 3
            if n + 1 > lim:
                continue
        if (
            not rec.great
            and battle.fire_procedure(g, rec)
            and side == rec.attacker
            and len(units_of(rec, side, states=("fit", "disorganized"))) + 1 > 3
        ):
            continue
        out.append(sub)
    return out


@implements("LGG 16.6-A", "LGG 16.6-B")
def reserve_options(g: Game, rec: BattleRecord, side: str) -> list[dict[str, Any]]:
    """LGG 16.6-A: this round's reinforcement choices of ``side``: nothing, or one unit into a
    sub-battle (possibly sending a front-line corps to the rear in exchange) - one per side, or
    one per sub-battle under the option ``reserve-reinforcement-frequency`` (digest A-13) - and
    one tank per sub-battle besides. The flanked or encircled side reinforces only in odd
    rounds. A choice is ``{"units": [{"unit", "sub", "origin", "rear"?}], "tanks": [...]}``."""
    none: dict[str, Any] = {"units": [], "tanks": []}
    if _odd_only(g, rec, side) and rec.round % 2 == 0:
        return [none]
    pool = reinforcement_pool(g, rec, side)
    entries: list[dict[str, Any]] = []
    tank_entries: list[dict[str, Any]] = []
    for uid, origin in pool:
        p = piece(g, uid)
        for sub in reinforcement_targets(g, rec, side, uid, origin):
            if p.type == "tank":
                tank_entries.append({"unit": uid, "sub": sub, "origin": origin})
                continue
            entries.append({"unit": uid, "sub": sub, "origin": origin})
            if p.type == "corps":
                for f in units_of(rec, side, sub=sub, states=("fit", "disorganized")):
                    if f != uid:
                        entries.append({"unit": uid, "sub": sub, "origin": origin, "rear": f})
    if g.opt("reserve-reinforcement-frequency") == "one-per-sub-battle-per-round":
        subs = sorted({e["sub"] for e in entries})
        per = [[None] + [e for e in entries if e["sub"] == s] for s in subs]
        unit_choices: list[list[dict[str, Any]]] = []
        room = stacking_limit(g, rec.hex_i) - _side_hex_corps(g, rec, side)
        for combo in product(*per):
            picked = [e for e in combo if e is not None]
            ids = [e["unit"] for e in picked]
            rears = [e.get("rear") for e in picked if e.get("rear")]
            if len(set(ids)) != len(ids) or len(set(rears)) != len(rears) or set(rears) & set(ids):
                continue
            new_corps = sum(
                1 for e in picked if piece(g, e["unit"]).type == "corps" and e["origin"] != "rear"
            )
            if new_corps > room:
                continue
            unit_choices.append(picked)
            if len(unit_choices) > 400:
                break
    else:
        unit_choices = [[]] + [[e] for e in entries]
    tsubs = sorted({e["sub"] for e in tank_entries})
    tank_choices: list[list[dict[str, Any]]] = []
    for combo in product(*[[None] + [e for e in tank_entries if e["sub"] == s] for s in tsubs]):
        picked = [e for e in combo if e is not None]
        ids = [e["unit"] for e in picked]
        if len(set(ids)) == len(ids):
            tank_choices.append(picked)
    if not tank_choices:
        tank_choices = [[]]

    if tank_entries and tanks.tanks_short(
        g, rec, side
    ):  # 39-B/39-C: replace destroyed tanks up to the minimum
        tank_choices = [t for t in tank_choices if t] or tank_choices
    return [{"units": u, "tanks": t} for u in unit_choices for t in tank_choices]


def _allied_test_needed(g: Game, rec: BattleRecord, side: str, p: Piece) -> bool:
    """LGG 16.6-B: an allied corps (no army number) needs a GHQ reaction test in Fire Doctrine;
    the Central Powers, allied minor countries in their own country, Belgians and Swiss, and
    French and English units when Nivelle is at the French GHQ are exempt; allied artillery
    never needs one."""
    nation = battle.side_nation(rec, side)
    if p.nation == nation or p.type != "corps" or side == M.CP:
        return False
    if (
        not battle.fire_procedure(g, rec)
        and battle.side_doctrine(g, rec, side) not in battle.FIRE_DOCTRINES
    ):
        return False
    if p.nation in ("BE", "CH"):
        return False
    if not M.is_major(g, p.nation) and mapdata.place_nation(g, rec.hex_i) == p.nation:
        return False
    if {p.nation, nation} == {"FR", "GB"}:
        ghq = M.ghq_piece(g, "FR")
        gen = M.general_with(g, ghq) if ghq is not None else None
        if gen is not None and "nivelle" in (gen.name or gen.id).lower():
            return False
    return True


@implements("LGG 16.6-B")
def allied_test(g: Game, rec: BattleRecord, side: str, p: Piece) -> bool:
    """LGG 16.6-B: D12 >= the sending power's GHQ reaction value, -1 per allied corps already
    sent."""
    try:
        need = ghq_value(g, p.nation, "reaction")
    except KeyError:
        return False
    sent = int(rec.allied_sent.get(p.nation, 0))
    r = g.roll(
        "d12",
        f"allied aid of {M.nation_name(g, p.nation)} (needs {need})",
        "LGG 16.6-B",
        modifiers=-sent,
    )
    return r.modified >= need


@implements("LGG 16.6-A", "LGG 16-B")
def bring_in(
    g: Game,
    rec: BattleRecord,
    side: str,
    uid: str,
    sub: str,
    origin: str,
    rear: str | None = None,
) -> None:
    """LGG 16.6-A / 16-B: the reinforcement unit enters the battle hex and joins a sub-battle."""
    p = piece(g, uid)
    i = rec.hex_i
    if rear:
        ru = rec.units[rear]
        ru["role"] = "rear"
        ru["sub"] = None
        say(
            g,
            side,
            "rear",
            f"{rear} goes to the rear",
            "a corps goes to the rear",
            rule="LGG 16.6-A",
        )
    if origin == "rear":
        u = rec.units[uid]
        u["role"] = "front"
        u["sub"] = sub
    else:
        M.set_status(g, p, M.RESERVE, False)
        M.move_piece(g, p, Loc.hex(i))
        _add_unit(g, rec, p, sub=sub, origin=origin, joined=rec.round + 1)
        rec.units[uid]["from"] = None
    if rec.late_split and sub == "B":
        rec.subs["B"]["open"] = True
        rec.subs["B"].pop("pending", None)
    rec.ensure("arrived").setdefault(str(rec.round), []).append({"side": side, "sub": sub})
    say(
        g,
        side,
        "reinforcement",
        f"{uid} joins sub-battle {sub} ({origin})",
        f"{side} brings {describe(g, p)} into sub-battle {sub}",
        rule="LGG 16.6-A",
    )
    mk = g.state.marker("battle", rec.hex)
    a = command_army(g, p)
    if mk is not None and a and a not in mk.get("coordinated", []):
        mk["coordinated"] = sorted(set(mk.get("coordinated", [])) | {a})
    M.touch(g)


def apply_reserves(g: Game, rec: BattleRecord, chosen: dict[str, dict[str, Any]]) -> list[str]:
    """Apply both sides' revealed reinforcement choices; return the sides whose allied test failed
    (they may choose another reinforcement, not from that power, 16.6-B)."""
    failed = []
    for side in (rec.attacker, rec.defender):
        c = chosen.get(side) or {"units": [], "tanks": []}
        for e in c.get("units", []):
            p = piece(g, e["unit"])
            if _allied_test_needed(g, rec, side, p):
                if allied_test(g, rec, side, p):
                    rec.allied_sent[p.nation] = int(rec.allied_sent.get(p.nation, 0)) + 1
                else:
                    rec.allied_refused.setdefault(side, []).append(p.nation)
                    _public(
                        g,
                        "allied-aid",
                        f"{M.nation_name(g, p.nation)} sends no corps to the battle at {rec.hex}",
                        "LGG 16.6-B",
                    )
                    if side not in failed:
                        failed.append(side)
                    continue
            bring_in(g, rec, side, e["unit"], e["sub"], e["origin"], e.get("rear"))
        for e in c.get("tanks", []):
            bring_in(g, rec, side, e["unit"], e["sub"], e["origin"])
    return failed


# ========================================================= sub-battles and the end (16.1-C, 16.7-A)
def _fail(g: Game, rec: BattleRecord, side: str, sub: str) -> str | None:
    """Why ``side`` has lost ``sub`` at the end of this round: "gone" (no front-line corps left) or
    "barred" (the last ones repulsed or disorganized and no reinforcement arrived), else None."""

    if side == rec.defender and fortress.assault_fortress(g, rec) is not None:
        return None  # 23-G: the fortress fights when no corps is left
    alive = units_of(rec, side, sub=sub, states=("fit", "disorganized"))
    if not alive:
        return "gone"
    arrived = [
        a for a in rec.arrived.get(str(rec.round), []) if a["side"] == side and a["sub"] == sub
    ]
    ready = [
        u
        for u in alive
        if rec.units[u]["state"] == "fit" and rec.units[u].get("barred") != rec.round + 1
    ]
    if not ready and not arrived:
        return "barred"
    return None


@implements("LGG 16.1-C", "LGG 16.3-D", "LGG 38-B")
def decide_sub(g: Game, rec: BattleRecord, sub: str, winner: str, why: str) -> None:
    """LGG 16.1-C: ``winner`` wins ``sub``. When the other sub-battle goes on: the loser's corps of
    this one are ignored from now on and it may keep at most 3 corps (2 in mountains) in the other;
    the winner gathers its units into it (in Fire Doctrine only artillery and tanks) and gets the
    flank battle there (16.3-D; none against an enemy fortress), or an encirclement battle when an
    assault corps won it (38-B, not against defence in depth)."""

    st = rec.subs[sub]
    st["open"] = False
    st["winner"] = winner
    loser = battle.other(rec, winner)
    rec.sub_wins.append(winner)
    rec.ensure("sub_losers").append(loser)
    _public(
        g,
        "sub-battle",
        f"battle at {rec.hex}: {winner} wins sub-battle {sub} ({why})",
        "LGG 16.1-C",
    )
    rest = [s for s in open_subs(rec) if s != sub]
    if not rest:
        return
    o = rest[0]
    for _uid, u in rec.units.items():
        if u.get("sub") != sub:
            continue
        if u["side"] == loser and u["role"] == "front":
            u["role"] = "defeated"
        elif u["side"] == winner and u["role"] == "front":
            if battle.fire_procedure(g, rec) and u["kind"] == "corps":
                continue
            u["sub"] = o
    if rec.fortress_sub.get(winner) == sub:
        rec.fortress_sub[winner] = o
    enemy_fort = (
        battle.defender_fortress(g, rec)
        if winner == rec.attacker
        else battle.attacker_fortress(g, rec)
    )
    if enemy_fort is None:
        if tactics.encirclement_by_assault(g, rec, sub, winner):
            rec.subs[o]["encircled_by"] = winner
            _public(
                g,
                "sub-battle",
                f"sub-battle {o} becomes an encirclement battle for {winner}",
                "LGG 38-B",
            )
        else:
            rec.subs[o]["flank_for"] = winner
            _public(
                g, "sub-battle", f"sub-battle {o} becomes a flank battle for {winner}", "LGG 16.3-D"
            )
    lim = 2 if battle.in_mountains(g, rec.hex_i) else 3
    mine = units_of(rec, loser, sub=o, states=("fit", "disorganized"))
    if len(mine) > lim:
        key = "defense" if loser == rec.defender else "attack"
        keep = sorted(mine, key=lambda u: (-int(piece(g, u).stat(key, 0)), u))[:lim]
        for u in mine:
            if u not in keep:
                rec.units[u]["role"] = "rear"
                rec.units[u]["sub"] = None
        say(
            g,
            loser,
            "sub-limit",
            f"only {lim} corps may stay in sub-battle {o}; the others go to the rear",
            f"{loser} keeps {lim} corps in sub-battle {o}",
            rule="LGG 16.1-C",
        )
    M.touch(g)


def _tie_winner(rec: BattleRecord, fa: str, fd: str) -> str:
    """LGG 16.7-A: when neither side has a unit left to engage the defender wins, unless the
    attacker's are repulsed or disorganized and the defender's eliminated or out of combat."""
    if fa == "barred" and fd == "gone":
        return str(rec.attacker)
    return str(rec.defender)


def sub_checks(g: Game, rec: BattleRecord) -> None:
    """End-of-round sub-battle verdicts (16.1-C, 16.7-A mandatory cases)."""
    for sub in open_subs(rec):
        fa = _fail(g, rec, rec.attacker, sub)
        fd = _fail(g, rec, rec.defender, sub)
        if fa and fd:
            decide_sub(
                g, rec, sub, _tie_winner(rec, fa, fd), "neither side has a unit left to engage"
            )
        elif fa:
            decide_sub(g, rec, sub, rec.defender, "the attacker has no unit left to engage")
        elif fd:
            decide_sub(g, rec, sub, rec.attacker, "the defender has no unit left to engage")


def battle_decided(rec: BattleRecord) -> str | None:
    """The winner once no sub-battle is open: the winner of the last one decided (16.1-C)."""
    if rec.subs and not open_subs(rec) and not rec.subs.get("B", {}).get("pending"):
        wins = rec.sub_wins
        if len(rec.subs) == 2 and len(wins) >= 2 and wins[-1] != wins[-2] and rec.same_round_close:
            return str(rec.defender)
        return str(wins[-1]) if wins else None
    return None


@implements("LGG 16.6-C", "LGG [11.4-X]")
def count_obstinacy(g: Game, rec: BattleRecord, open_during: int) -> None:
    """LGG 16.6-C / [11.4-X]: rounds counted against the attacking general's obstinacy: in Movement
    Doctrine each round of a great battle counts 2 (1 per sub-battle), in Fire Doctrine 1; from
    the round the caller says (36.5-A); in August 1914 an obliged army counts only the rounds in
    which its general committed a unit."""
    r = rec.round
    if r < int(rec.obstinacy_from):
        return
    gen = obstinacy_general(g, rec)
    if gen is not None and campaign.is_august_1914(g):
        obliged = set(campaign.obligated_armies(g, rec.attacker))
        armies = [a for a in rec.armies if army_general(g, a) is gen]
        if any(a in obliged for a in armies) and not any(
            r in rec.committed.get(a, []) for a in armies
        ):
            return
    inc = 1
    if rec.great and not battle.fire_procedure(g, rec):
        inc = max(1, open_during)
    rec.obstinacy_count = int(rec.obstinacy_count) + inc


@implements("LGG 16.7-A", "LGG 16.6-C")
def may_retreat_voluntarily(g: Game, rec: BattleRecord, side: str) -> str | None:
    """LGG 16.7-A / 16.6-C / 23-G: why ``side`` may not retreat voluntarily now (None when it may).
    The defenders of an assault are shut in their fortress."""
    if side != rec.attacker:
        if rec.kind == "assault":
            return "the defenders of a fortress under assault cannot retreat (LGG 23-G)"
        return None
    if int(rec.obstinacy_count) < int(cast(int, rec.min_rounds) if rec.has("min_rounds") else 1):
        return f"the general's obstinacy requires {rec.min_rounds} (counted {rec.obstinacy_count})"
    if campaign.is_august_1914(g):
        nations = {M.army_nation(g, a) for a in rec.armies}
        plans = {n for n in nations if n in M.rules(g).war_plans}
        if plans:
            won = set(M.st(g).get("won_attacks", []))
            mode = g.opt("august-1914-retreat")
            if mode == "no-voluntary-retreat-after-winning" and plans & won:
                return (
                    "in August 1914 a power applying an attack plan that has won a battle in attack"
                    " may not retreat voluntarily"
                )
            if mode == "until-won" and not (plans & won):
                return (
                    "in August 1914 a power applying an attack plan may not retreat voluntarily"
                    " before winning a battle"
                )
    return None


def _end(g: Game, rec: BattleRecord, winner: str, why: str) -> None:
    rec.winner = winner
    rec.loser = battle.other(rec, winner)
    rec.ended_by = why
    rec.phase = "ending"
    M.touch(g)


@implements("LGG 16.7-A", "LGG 17.3-B", "LGG 17.3-C")
def finish_battle(g: Game, rec: BattleRecord) -> None:
    """LGG 16.7-A: the side that retreats, voluntarily or not, loses. Record the defender's state
    (good order, disorder, panic, eliminated: 17.3-B/C), the bold result, then the retreat."""

    att, dfn = rec.attacker, rec.defender
    if rec.panic:
        rec.defender_state = "panic" if rec.panic == dfn else "good-order"
    else:
        alive = units_of(rec, dfn, roles=("front", "rear", "idle"), states=("fit", "disorganized"))
        if not alive:
            rec.defender_state = "eliminated"
        else:
            good = [
                u
                for u in units_of(rec, dfn, roles=("front",), states=("fit",))
                if rec.units[u].get("barred") != rec.round + 1
            ]
            rec.defender_state = "good-order" if good else "disorder"
    last = [s.get("last") for s in rec.subs.values() if s.get("last")]
    last = [x for x in last if x.get("round") == rec.round] or last
    rec.bold = any(x.get("bold") for x in last) if last else False
    for uid, u in rec.units.items():
        if u["role"] == "rear" and u["state"] == "fit":
            u["state"] = "disorganized"
        if u["kind"] == "corps" and u.get("engaged"):
            M.set_attr(
                g, piece(g, uid), "fought_turn", M.turn_index(g)
            )  # 38-A: "did not fight the previous turn"
    rec.ended = True
    winner, loser = rec.winner, rec.loser
    if winner == att and rec.kind in ("open", "overflow", "breakthrough"):
        won = M.st(g).setdefault("won_attacks", [])
        n = battle.side_nation(rec, att)
        if n not in won:
            won.append(n)
    _public(
        g,
        "battle-end",
        f"battle at {rec.hex}: {winner} wins, {loser} retreats ({rec.ended_by}); "
        f"losses {att} {rec.losses.get(att, 0)}, {dfn} {rec.losses.get(dfn, 0)}",
        "LGG 16.7-A",
        reveal=True,
    )
    if winner == att and rec.spec.get("breakthrough", rec.kind in ("open", "overflow")):
        breakthrough.decide_level(g, rec)
    if rec.spec.get("retreat") != "none":
        battle_retreat.create(g, rec)
    M.touch(g)


# ====================================================================== the steps
class BattleStep(Procedure):
    """LGG 16: one battle, from set-up to the end (see the module docstring), in stages.

    The stage is the battle record's ``phase`` (``split-done`` is the stage ``split_done``):
    the rules that end a battle or close its set-up set the phase themselves (:func:`_end`,
    :func:`finish_setup`). A stage that waits for a decision pushes it and runs again after it
    (``self.again``)."""

    name = "battle"
    title = "Battle"
    rule = "LGG 16"

    def label(self, g: Game, f: Frame) -> str:
        rec = rec_of(g, f.params["battle"])
        return f"Battle at {rec.hex}" + (f", round {rec.round}" if rec.round else "")

    def enter(self, g: Game, f: Frame) -> None:
        rec = rec_of(g, f.params["battle"])
        if rec.phase == "new":
            setup_participants(g, rec)
            rec.phase = "setup"

    # ---- the stage is the record's phase
    def stage_in(self, g: Game, f: Frame) -> str | None:
        return str(rec_of(g, f.params["battle"]).phase).replace("-", "_")

    def put_stage(self, g: Game, f: Frame, name: str | None) -> None:
        if name is not None:
            rec_of(g, f.params["battle"]).phase = name.replace("_", "-")

    def _push(self, g: Game, f: Frame, child: tuple[str, dict[str, Any]]) -> Goto:
        """Push a decision or a nested step; this stage runs again after it."""
        g.push(child[0], child[1])
        return self.again(f)

    def _push_then(self, g: Game, child: tuple[str, dict[str, Any]]) -> None:
        """Push a decision or a nested step; the stage already set says what follows."""
        g.push(child[0], child[1])

    # ---- the stages, in order
    @stage
    def setup(self, g: Game, f: Frame) -> Goto | None:
        """LGG 16-C / 16-B / 16-A: the dispositions, then the division or the first round."""
        rec = rec_of(g, f.params["battle"])
        d = _setup_decision(g, rec)
        if d is not None:
            return self._push(g, f, d)
        if rec.setup.get("rbc") == "retreat":
            rec.subs = {"A": {"open": False, "winner": rec.attacker}}
            rec.table = battle.table_id(g, rec)
            rec.breakthrough_blocked = True
            _end(g, rec, rec.attacker, "retreat before combat (LGG 16-C)")
            return None
        finish_setup(g, rec)
        return None

    @stage
    def split(self, g: Game, f: Frame) -> Goto | None:
        """LGG 16.1-B: both sides divide their front line in secret."""
        rec = rec_of(g, f.params["battle"])
        rec.phase = "split-done"
        sides = [rec.attacker, rec.defender]
        self._push_then(g, ("battle-commit", {"battle": rec.id, "kind": "split", "sides": sides}))
        return None

    @stage
    def split_done(self, g: Game, f: Frame) -> Goto | None:
        rec = rec_of(g, f.params["battle"])
        for side in (rec.attacker, rec.defender):
            for sub in ("A", "B"):
                if rec.subs[sub].get("open") and not units_of(rec, side, sub=sub, states=("fit",)):
                    decide_sub(g, rec, sub, battle.other(rec, side), "no corps committed to it")
        w = battle_decided(rec)
        if w:
            _end(g, rec, w, "both sub-battles decided")
            return None
        rec.phase = "round-start"
        return None

    @stage
    def round_start(self, g: Game, f: Frame) -> Goto | None:
        """A new round (23-G: a fortress under assault may surrender first)."""
        rec = rec_of(g, f.params["battle"])
        rec.round += 1
        rec.engaged = {}
        if fortress.assault_round_start(g, rec):
            _end(g, rec, rec.attacker, "the fortress surrenders (LGG 23-G)")
            return None
        rec.phase = "tactics"
        before = rec.spec.get("before_round")
        if before:
            self._push_then(g, (before, {"battle": rec.id, "round": rec.round}))
        return None

    @stage
    def tactics(self, g: Game, f: Frame) -> Goto | None:
        """The tests left from the last round, then the round's tactics (37-38)."""
        rec = rec_of(g, f.params["battle"])
        d = process_queue(g, rec) or tactics.step_d(g, rec)
        if d is not None:
            return self._push(g, f, d)
        rec.phase = "pre-engage"
        return None

    @stage
    def pre_engage(self, g: Game, f: Frame) -> Goto | None:
        rec = rec_of(g, f.params["battle"])
        d = process_queue(g, rec)
        if d is not None:
            return self._push(g, f, d)
        rec.phase = "engage"
        return None

    @stage
    def engage(self, g: Game, f: Frame) -> Goto | None:
        """LGG 16.2-A: both sides engage their corps in secret."""
        rec = rec_of(g, f.params["battle"])
        rec.phase = "resolve"
        sides = [rec.attacker, rec.defender]
        self._push_then(g, ("battle-commit", {"battle": rec.id, "kind": "engage", "sides": sides}))
        return None

    @stage
    def resolve(self, g: Game, f: Frame) -> Goto | None:
        """LGG 16.3-16.5: the round's fire."""
        rec = rec_of(g, f.params["battle"])
        rec.open_during = len(open_subs(rec))
        resolve_round(g, rec)
        rec.phase = "casualties"
        return None

    @stage
    def casualties(self, g: Game, f: Frame) -> Goto | None:
        """LGG 16.5: losses and combativeness tests, a panic ending the battle."""
        rec = rec_of(g, f.params["battle"])
        d = process_queue(g, rec)
        if d is not None:
            return self._push(g, f, d)
        if rec.panic:
            _end(g, rec, battle.other(rec, rec.panic), "panic")
            return None
        rec.phase = "reserves"
        return None

    @stage
    def reserves(self, g: Game, f: Frame) -> Goto | None:
        """LGG 16.6-A: both sides commit their reserves in secret, even one with nothing to send
        (who has reserves must not show, 4-A)."""
        rec = rec_of(g, f.params["battle"])
        rec.phase = "reserves-done"
        rec.reserve_choice = {}
        sides = [rec.attacker, rec.defender]
        self._push_then(
            g, ("battle-commit", {"battle": rec.id, "kind": "reserves", "sides": sides})
        )
        return None

    @stage
    def reserves_done(self, g: Game, f: Frame) -> Goto | None:
        rec = rec_of(g, f.params["battle"])
        rec.retry = apply_reserves(g, rec, rec.reserve_choice)
        rec.phase = "retry"
        return None

    @stage
    def retry(self, g: Game, f: Frame) -> Goto | None:
        """LGG 16.6-B: a side whose allied reinforcement failed may try another."""
        rec = rec_of(g, f.params["battle"])
        if rec.retry:
            side = rec.retry.pop(0)
            if len(reserve_options(g, rec, side)) > 1:
                child = (
                    "battle-decision",
                    {"battle": rec.id, "kind": "allied-retry", "side": side},
                )
                return self._push(g, f, child)
            return self.again(f)
        rec.phase = "verdicts"
        return None

    @stage
    def verdicts(self, g: Game, f: Frame) -> Goto | None:
        """LGG 16.1-A / 16.7: the late division of round 1, the sub-battles decided, obstinacy."""
        rec = rec_of(g, f.params["battle"])
        att, dfn = rec.attacker, rec.defender
        if rec.late_split and rec.round == 1:
            rec.late_split = False
            b = rec.subs["B"]
            if b.get("pending"):
                b.pop("pending", None)
                b["open"] = False
                b["winner"] = att
                rec.sub_wins.append(att)
                rec.ensure("sub_losers").append(dfn)
                if battle.defender_fortress(g, rec) is None:
                    rec.subs["A"]["flank_for"] = att
                _public(
                    g,
                    "sub-battle",
                    f"battle at {rec.hex}: the defender sends no corps into sub-battle B "
                    "and loses it (LGG 16.1-A)",
                    "LGG 16.1-A",
                )
            else:
                rec.phase = "late-split"
                self._push_then(
                    g, ("battle-commit", {"battle": rec.id, "kind": "split", "sides": [att]})
                )
                return None
        before = len(open_subs(rec))
        sub_checks(g, rec)
        rec.same_round_close = before - len(open_subs(rec)) >= 2
        count_obstinacy(g, rec, int(rec.open_during))
        w = battle_decided(rec)
        if w:
            _end(
                g,
                rec,
                w,
                "sub-battles decided" if rec.great else "a side has no unit left to engage",
            )
            return None
        rec.phase = "after-round"
        return None

    @stage
    def late_split(self, g: Game, f: Frame) -> Goto | None:
        rec_of(g, f.params["battle"]).phase = "verdicts"
        return None

    @stage
    def after_round(self, g: Game, f: Frame) -> Goto | None:
        rec = rec_of(g, f.params["battle"])
        rec.phase = "offers"
        rec.offers = []
        after = rec.spec.get("after_round")
        if after:
            self._push_then(g, (after, {"battle": rec.id, "round": rec.round}))
        return None

    @stage
    def offers(self, g: Game, f: Frame) -> Goto | None:
        """LGG 16.7-A: a forced retreat, the round cap, then each side may retreat voluntarily
        (asked even when it may not: that must not show, 4-A)."""
        rec = rec_of(g, f.params["battle"])
        att, dfn = rec.attacker, rec.defender
        if rec.forced_retreat:
            side = rec.forced_retreat
            _end(
                g, rec, battle.other(rec, side), "retreat after exchanging losses for retreat hexes"
            )
            return None
        cap = rec.round_cap
        if cap is not None and rec.round >= int(cap):
            _end(g, rec, dfn, f"the attacker must retreat at the end of round {cap} (LGG 16.7-A)")
            return None
        order = [att, dfn] if battle.fire_procedure(g, rec) else [dfn, att]
        asked = rec.offers
        for side in order:
            if side in asked:
                continue
            asked.append(side)
            child = (
                "battle-decision",
                {"battle": rec.id, "kind": "retreat-offer", "side": side},
            )
            return self._push(g, f, child)
        rec.phase = "round-start"
        return None

    @stage
    def ending(self, g: Game, f: Frame) -> Goto | None:
        rec = rec_of(g, f.params["battle"])
        finish_battle(g, rec)
        rec.phase = "retreat"
        return None

    @stage
    def retreat(self, g: Game, f: Frame) -> Goto | None:
        """LGG 16.7-B: an immediate retreat is carried out before the battle is over."""
        rec = rec_of(g, f.params["battle"])
        rec.phase = "done"
        if rec.spec.get("retreat", "immediate") == "immediate" and battle_retreat.pending(
            g, [rec.id]
        ):
            self._push_then(g, ("battle-retreats", {"battles": [rec.id]}))
        return None

    @stage
    def done(self, g: Game, f: Frame) -> Goto | None:
        g.finish(f)
        return None


# ---------------------------------------------------------------------- decisions
DECISION_RULES = {
    "defender-setup": "LGG 16-C",
    "attacker-setup": "LGG 16-A",
    "exchange": "LGG 16.5-A",
    "pay": "LGG 16.5-B",
    "panic-pick": "LGG 16.5-B",
    "retreat-offer": "LGG 16.7-A",
    "allied-retry": "LGG 16.6-B",
    "barrage": "LGG 37-F",
}


@implements(
    "LGG 16-C",
    "LGG 16-B",
    "LGG 16-A",
    "LGG 16.6-C",
    "LGG 16.5-A",
    "LGG 16.5-B",
    "LGG 16.7-A",
    "LGG 16.1-C",
)
class BattleDecision(LggStep):
    """One side's choice inside a battle (16-C, 16-B, 16-A, 16.6-C, 16.5-A, 16.5-B, 16.7-A,
    16.1-C)."""

    name = "battle-decision"
    title = "Battle decision"
    rule = "LGG 16"

    def label(self, g: Game, f: Frame) -> str:
        rec = rec_of(g, f.params["battle"])
        what = {
            "defender-setup": "the defender's dispositions",
            "attacker-setup": "the attacker's dispositions",
            "exchange": "exchange a loss for a retreat hex?",
            "pay": "pay 1 PR for the combativeness test?",
            "panic-pick": "corps tested after a panic",
            "retreat-offer": "retreat or continue?",
            "allied-retry": "another reinforcement",
            "barrage": f"go on with the creeping barrage in sub-battle {f.params.get('sub')}?",
        }[f.params["kind"]]
        return f"Battle at {rec.hex}: {f.params['side']}, {what}"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        rec = rec_of(g, f.params["battle"])
        k = f.params["kind"]
        base = {"side": side, "battle": rec.id}
        if k == "defender-setup":
            return [{**o, **base} for o in defender_setup_options(g, rec)]
        if k == "attacker-setup":
            return [{**o, **base} for o in attacker_setup_options(g, rec)]
        if k == "exchange":
            it = rec.queue[0] if rec.queue else {}
            return ([{"type": "exchange", **base}] if it.get("may_exchange") else []) + [
                {"type": "keep", **base}
            ]
        if k == "pay":
            return [{"type": "pay-pr", **base}, {"type": "refuse-pr", **base}]
        if k == "panic-pick":
            it = rec.queue[0]
            done = set(it.get("picked", []))
            cands = [
                u
                for u in units_of(
                    rec, side, roles=("front", "rear", "idle"), states=("fit", "disorganized")
                )
                if u not in done
            ]
            return [{"type": "panic-test", **base, "unit": u} for u in cands]
        if k == "retreat-offer":
            out = [{"type": "continue", **base}]
            if may_retreat_voluntarily(g, rec, side) is None:
                out.append({"type": "retreat", **base})
                if rec.great and len(open_subs(rec)) == 2 and not battle.fire_procedure(g, rec):
                    out.extend({"type": "withdraw-sub", **base, "sub": s} for s in open_subs(rec))
            return out
        if k == "allied-retry":
            return [
                {"type": "reinforce", **base, "choice": o} for o in reserve_options(g, rec, side)
            ]
        if k == "barrage":
            return [{"type": "barrage-fire", **base}, {"type": "barrage-stop", **base}]
        return []

    def _this_battle(self, f: Frame, action: Action) -> None:
        if action.get("battle") != f.params["battle"]:
            raise IllegalAction(
                DECISION_RULES[f.params["kind"]], "this decision is about another battle"
            )

    @handles.check(
        "proceed",
        "retreat-before-combat",
        "join",
        "leave-out",
        "allocate",
        "exchange",
        "keep",
        "pay-pr",
        "refuse-pr",
        "panic-test",
        "continue",
        "reinforce",
        "barrage-fire",
        "barrage-stop",
    )
    def check_decision(self, g: Game, f: Frame, action: Action) -> None:
        self._this_battle(f, action)
        self.check_listed(g, f, action)

    @handles.check("retreat", "withdraw-sub")
    def check_retreat(self, g: Game, f: Frame, action: Action) -> None:
        """LGG 16.6-C / 16.7-A: a voluntary retreat (or withdrawal from a sub-battle)."""
        self._this_battle(f, action)
        if f.params["kind"] == "retreat-offer":
            rec = rec_of(g, f.params["battle"])
            why = may_retreat_voluntarily(g, rec, action["side"])
            if why:
                raise IllegalAction("LGG 16.6-C" if "obstinacy" in why else "LGG 16.7-A", why)
        self.check_listed(g, f, action)

    def _done(self, g: Game, f: Frame) -> None:
        M.touch(g)
        g.finish(f)

    # ---- the defender's and the attacker's dispositions (16-C, 16-B, 16-A, 16.6-C)
    @handles.apply("retreat-before-combat")
    def apply_retreat_before_combat(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        st = rec.setup
        st["rbc"] = "retreat"
        st["def_done"] = True
        _public(g, "battle", f"the cavalry at {rec.hex} retreats before combat", "LGG 16-C")
        self._done(g, f)

    @handles.apply("join")
    def apply_join(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        p = piece(g, action["unit"])
        M.move_piece(g, p, Loc.hex(rec.hex_i))
        _add_unit(g, rec, p)
        say(
            g,
            action["side"],
            "artillery",
            f"{p.id} joins the battle at {rec.hex}",
            f"{describe(g, p)} joins the defence of {rec.hex}",
            rule="LGG 16-B",
        )
        self._done(g, f)

    @handles.apply("proceed")
    def apply_proceed(self, g: Game, f: Frame, action: Action) -> None:
        st = rec_of(g, f.params["battle"]).setup
        st["def_done" if f.params["kind"] == "defender-setup" else "att_done"] = True
        self._done(g, f)

    @handles.apply("leave-out")
    def apply_leave_out(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        u = rec.units[action["unit"]]
        u["role"] = "idle"
        say(
            g,
            action["side"],
            "participants",
            f"{action['unit']} stays out of the battle (stacking limit)",
            "a corps stays out of the battle (stacking limit)",
            rule="LGG 16-A",
        )
        self._done(g, f)

    @handles.apply("allocate")
    def apply_allocate(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        rec.obstinacy_alloc = int(action["rounds"])
        rec.setup["obst_done"] = True
        _public(
            g,
            "obstinacy",
            f"the attacking general commits an obstinacy of {action['rounds']} to the "
            f"battle at {rec.hex}",
            "LGG 16.6-C",
        )
        self._done(g, f)

    # ---- exchange of a loss for a retreat hex (16.5-A)
    @handles.apply("exchange")
    def apply_exchange(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        side = action["side"]
        it = rec.queue[0]
        it["stage"] = "apply"
        if not _exchange_allowed(g, rec, it["unit"], it["sub"], truth=True):
            knowledge.refuse_on_hidden_fact(
                g,
                side,
                f"{it['unit']} may not exchange a loss for a retreat hex: it is isolated or its"
                " retreat would leave its supply lines (an enemy marker on them holds units);"
                " it keeps the loss",
                f"{side} keeps its loss",
                "LGG 16.5-A",
            )
        else:
            it["exchanged"] = True
            rec.exchanges.setdefault(it["sub"], {})[str(rec.round)] = True
            rec.retreat_extra = int(rec.retreat_extra) + 1
            rec.forced_retreat = side
            _public(
                g,
                "exchange",
                f"{side} exchanges a loss for one more retreat hex (sub-battle {it['sub']})",
                "LGG 16.5-A",
            )
        self._done(g, f)

    @handles.apply("keep")
    def apply_keep(self, g: Game, f: Frame, action: Action) -> None:
        rec_of(g, f.params["battle"]).queue[0]["stage"] = "apply"
        self._done(g, f)

    # ---- paying for a combativeness test (16.5-B)
    @handles.apply("pay-pr")
    def apply_pay_pr(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        it = rec.queue[0]
        battle.pay_pr(g, rec, it["unit"], "LGG 16.5-B", f"combativeness test of {it['unit']}")
        it["stage"] = "effect"
        self._done(g, f)

    @handles.apply("refuse-pr")
    def apply_refuse_pr(self, g: Game, f: Frame, action: Action) -> None:
        rec_of(g, f.params["battle"]).queue[0]["stage"] = "refused"
        self._done(g, f)

    # ---- corps tested after a panic (16.5-B)
    @handles.apply("panic-test")
    def apply_panic_test(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        side = action["side"]
        it = rec.queue[0]
        it.setdefault("picked", []).append(action["unit"])
        it["left"] = int(it["left"]) - 1
        rest = [
            u
            for u in units_of(
                rec, side, roles=("front", "rear", "idle"), states=("fit", "disorganized")
            )
            if u not in it["picked"]
        ]
        if it["left"] <= 0 or not rest:
            rec.queue.pop(0)
            for u in reversed(it["picked"]):
                rec.queue.insert(0, _test_item(u, why="panic", panic=True))
        self._done(g, f)

    # ---- retreat or continue (16.7-A, 16.1-C)
    @handles.apply("continue")
    def apply_continue(self, g: Game, f: Frame, action: Action) -> None:
        self._done(g, f)

    @handles.apply("retreat")
    def apply_retreat(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        side = action["side"]
        _end(g, rec, battle.other(rec, side), f"{side} retreats voluntarily")
        self._done(g, f)

    @handles.apply("withdraw-sub")
    def apply_withdraw_sub(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        side = action["side"]
        decide_sub(g, rec, action["sub"], battle.other(rec, side), f"{side} withdraws from it")
        w = battle_decided(rec)
        if w:
            _end(g, rec, w, "sub-battles decided")
        self._done(g, f)

    # ---- the creeping barrage (37-F)
    @handles.apply("barrage-fire")
    def apply_barrage_fire(self, g: Game, f: Frame, action: Action) -> None:
        self._done(g, f)

    @handles.apply("barrage-stop")
    def apply_barrage_stop(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        rec.ensure("barrage_stopped")[f.params["sub"]] = True
        _public(
            g,
            "barrage",
            f"{action['side']} stops its creeping barrage in sub-battle {f.params['sub']}",
            "LGG 37-F",
        )
        self._done(g, f)

    # ---- another reinforcement after an allied test (16.6-C)
    @handles.apply("reinforce")
    def apply_reinforce(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        side = action["side"]
        c = action["choice"]
        if c.get("unit"):
            bring_in(g, rec, side, c["unit"], c["sub"], c["origin"], c.get("rear"))
        if c.get("tank"):
            bring_in(g, rec, side, c["tank"], c["tank_sub"], c["tank_origin"])
        self._done(g, f)


@implements("LGG 16.1-B", "LGG 16.2-A", "LGG 16.6-A")
class BattleCommit(LggStep):
    """Simultaneous secret commitments of a battle: the division into sub-battles (16.1-B), the
    engaged units and artillery of a round (16.2), the reinforcements of a round (16.6). Each
    side's choice is kept in its own secrets until both have committed; then both are revealed."""

    name = "battle-commit"
    title = "Battle commitment"
    rule = "LGG 16.2-A"

    def _key(self, g: Game, f: Frame) -> str:
        rec = rec_of(g, f.params["battle"])
        return f"battle:{rec.id}:{f.params['kind']}:{rec.round}"

    def label(self, g: Game, f: Frame) -> str:
        rec = rec_of(g, f.params["battle"])
        what = {
            "split": "division into sub-battles",
            "engage": "engaged units",
            "reserves": "reinforcements",
        }
        return f"Battle at {rec.hex}, round {rec.round or 1}: {what[f.params['kind']]} (secret)"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        key = self._key(g, f)
        return [s for s in f.params["sides"] if key not in g.state.secrets.get(s, {})]

    def options(self, g: Game, f: Frame, side: str) -> list[dict[str, Any]]:
        rec = rec_of(g, f.params["battle"])
        k = f.params["kind"]
        if k == "split":
            if rec.phase == "late-split":
                return split_options(g, rec, side, only=None)
            return split_options(g, rec, side)
        if k == "engage":
            return engage_options(g, rec, side)
        return reserve_options(g, rec, side)

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        if side not in self.actors(g, f):
            return []
        rec = rec_of(g, f.params["battle"])
        return M.memo(
            g,
            f"commit:{rec.id}:{f.params['kind']}:{side}",
            lambda: [
                {
                    "type": "commit",
                    "side": side,
                    "battle": rec.id,
                    "kind": f.params["kind"],
                    "choice": o,
                }
                for o in self.options(g, f, side)
            ],
        )

    @handles.check("commit")
    def check_commit(self, g: Game, f: Frame, action: Action) -> None:
        rule = {"split": "LGG 16.1-B", "engage": "LGG 16.2-A", "reserves": "LGG 16.6-A"}[
            f.params["kind"]
        ]
        if action.get("battle") != f.params["battle"] or action.get("kind") != f.params["kind"]:
            raise IllegalAction(rule, f"commit your {f.params['kind']} choice for this battle")
        choice = action.get("choice")
        if choice not in self.options(g, f, action["side"]):
            raise IllegalAction(rule, f"{choice!r} is not an allowed {f.params['kind']} choice")

    @handles.apply("commit")
    def apply_commit(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        side = action["side"]
        key = self._key(g, f)
        g.state.secrets.setdefault(side, {})[key] = action["choice"]
        g.emit(
            "commit",
            f"{side} commits its {f.params['kind']} choice for the battle at {rec.hex}",
            rule=self.rule,
        )
        if self.actors(g, f):
            return
        chosen = {s: g.state.secrets[s].pop(key) for s in f.params["sides"]}
        k = f.params["kind"]
        if k == "split":
            for s, c in chosen.items():
                apply_split(g, rec, s, c)
                mine = f"division: A {', '.join(c['A']) or '-'}; B {', '.join(c['B']) or '-'}"
                n_a = sum(1 for u in c["A"] if rec.units.get(u, {}).get("kind") == "corps")
                n_b = sum(1 for u in c["B"] if rec.units.get(u, {}).get("kind") == "corps")
                say(
                    g,
                    s,
                    "split",
                    mine,
                    f"{s} divides its front line: {n_a} corps in A, {n_b} in B",
                    rule="LGG 16.1-B",
                )
            g.emit(
                "reveal",
                f"battle at {rec.hex}: divisions revealed",
                rule="LGG 16.1-B",
                reveal=True,
            )
        elif k == "engage":
            _reveal_engagement(g, rec, chosen)
        else:
            rec.reserve_choice = chosen
            g.emit(
                "reveal",
                f"battle at {rec.hex}: reinforcement choices revealed",
                rule="LGG 16.6-A",
                reveal=True,
            )
        M.touch(g)
        g.finish(f)


@implements("LGG 16.4-I")
class SiberianChoice(LggStep):
    """LGG 16.4-I: each turn, in the reinforcement phase, Russia picks the Siberian corps that has
    elite morale in fair weather or rain (in snow all three are elite)."""

    name = "siberian-choice"
    title = "Siberian corps"
    rule = "LGG 16.4-I"

    def _sib(self, g: Game) -> list[Piece]:
        return sorted(
            (
                q
                for q in g.state.pieces.values()
                if q.nation == "RU"
                and q.type == "corps"
                and q.attrs.get("siberian")
                and M.on_map(g, q)
            ),
            key=lambda q: q.id,
        )

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        # asked whenever the scenario has Siberian corps (how many are in play is hidden, 4-A)
        side = M.nation_side(g, "RU")
        has = any(q.nation == "RU" and q.attrs.get("siberian") for q in g.state.pieces.values())
        return [side] if side and has else []

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    @handles.options("siberian-elite")
    def elite_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "siberian-elite", "side": side, "unit": q.id} for q in self._sib(g)]

    @handles.options("keep")
    def keep_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "keep", "side": side}]

    @handles.apply("keep")
    def apply_keep(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("siberian-elite")
    def apply_elite(self, g: Game, f: Frame, action: Action) -> None:
        M.st(g).setdefault("siberian_elite", {})["RU"] = action["unit"]
        M.touch(g)
        say(
            g,
            action["side"],
            "siberians",
            f"{action['unit']} is the elite Siberian corps this turn",
            None,
            rule="LGG 16.4-I",
        )
        g.finish(f)


STEPS: tuple[type[Step], ...] = (BattleStep, BattleDecision, BattleCommit, SiberianChoice)
