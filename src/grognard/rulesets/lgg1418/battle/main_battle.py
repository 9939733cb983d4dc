"""LGG 31 (main-battle preparation, no heading in the seed) and 32 (the main battle), with the
preliminary bombardment of secondary battles (29-A).

Battles in trench warfare are fought by the battle procedure of rules 15-18 (the ``battle``
step of :mod:`.battle_steps`); this module prepares them and adds what rules 29-32 change:

* the ``battle-preparation`` step (hook :data:`.hooks.BATTLE_PREPARATION`, pushed by the
  ``army-battles`` hook for each battle before its ``battle`` step; params ``{"battle": id}``)
  decides the kind of the battle (main: a great offensive's; secondary: any other battle of a
  side in Fire or Combined Doctrine; voluntary: an October 1914 attack; 29, 30), counts it
  (29) and, for main and secondary battles, runs the preparation - our numbering of the
  bombardment sequence, which the seed mentions but does not print (29-A names steps B, C, E):

  A. the type of bombardment and the special uses (31-D, 32.1-D): normal, massive 2 or 3
     (37-C), blitz (37-E) or none; creeping barrage or infiltration (37-F, 37-G);
  B. battle orders, secretly committed by both sides before either is revealed (31-B; main
     battle only), and tactical air support (32.1-C, main battle);
  C. the defender's front-line reinforcements (31-F; main battle only);
  D. the bombardment (31-G, 31-H) and its ammunition (31-I);
  E. counter-battery by the defender's artillery (main battle only) and the arrival of the GHQ
     general artillery reserve (28-C; after a blitz or no bombardment the attacker's arrives
     only now, 31-D);

  then it sets the battle's parameters (kind, orders, order bonuses, gas 32.1-B, trench level
  after the bombardment 31-H, obstinacy 29-B / 36.5-A, round cap, the lull) and pushes the
  ``battle`` step.
* 31-A: the great battle of a main battle is the procedure's (16.1-A/B).
* 32.1-A, 32.1-E..J: engaged unit, force differential, D12, resolution, reinforcements,
  retreat and victory are the procedure's (16.2-16.7, 16.1-C); this module gives it the main
  battle's parameters and reads its result (:func:`after_battle`).
* 32.2: the lull after round 4 (option ``lull-after-round``, digest A-14) of a main battle
  preceded by a normal or massive bombardment, outside Combined Doctrine (36.5-A) - the step
  ``main-battle-lull`` (the battle's ``after_round``): disorganized corps recover (32.2-A;
  England loses 1 VN per Home Garrison corps destroyed), the defender brings 2 corps or
  artillery units into the front line and may redeploy between sub-battles (32.2-B), suffers
  2/3 or 3*/4* losses (32.2-C), and the attacker reinforces and redeploys (32.2-D).

Records: the battle record of :mod:`.battle` gets a ``prep`` part (kind, orders, benefits,
bombardment, losses, trench cut, air support, gas).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import artillery, tactics
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.map.fronts import fronts_of, sectors_of
from grognard.rulesets.lgg1418.military import doctrine_transitions as DT
from grognard.rulesets.lgg1418.military import offensive, politics, secondary, trench
from grognard.rulesets.lgg1418.military.reinforcement import _land_connected
from grognard.rulesets.lgg1418.military.stacking import stacking_limit
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.units import fog
from grognard.rulesets.lgg1418.units.counters import command_army, general_obstinacy

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.lgg1418.battle.base import BattleRecord

#: The step the ``army-battles`` hook pushes for each battle of an activation instead of its
#: ``battle`` step (it pushes the battle itself when it is done).
BATTLE_PREPARATION = "battle-preparation"
ATTACK_ORDERS = ("R", "V", "M")
DEFENCE_ORDERS = ("L", "C", "N")
BOMBARDMENTS = ("normal", "massive", "blitz", "none")
COLUMNS = ("1", "2", "3", "4", "5", "6", "7", "8+")
MUN_PER_UNIT = {"normal": 1, "blitz": 3}


# ====================================================================== helpers
def _battle():

    return battle


def rec_of(g: Game, bid: str) -> BattleRecord:
    return _battle().rec_of(g, bid)


def tables(g: Game) -> dict[str, Any]:
    return g.cached("lgg:tables", lambda: g.ruleset.tables(g.scenario.table_overrides))


def _front(g: Game, rec: BattleRecord) -> str:
    return (fronts_of(g, int(rec.hex_i)) or [M.WEST])[0]


def prep(rec: BattleRecord) -> dict[str, Any]:
    return rec.ensure("prep")


@implements("LGG 29", "LGG 17.3-B")
def fought_as(rec: BattleRecord) -> str:
    """The kind a battle is fought as in trench warfare: its preparation's (a breakthrough battle
    with a newly activated army counts as a secondary battle, 17.3-B) or else its own."""
    return str(rec.prep.get("kind") or rec.kind)


def _hex_corps(g: Game, i: int, side: str) -> list[Piece]:
    return [
        p
        for p in M.units_at_hex(g, i, side)
        if M.is_corps(p)
        and not M.garrison_in_fortress(g, p)
        and not (M.carrier(g, p) is not None and M.carrier(g, p).type == "fortress")  # type: ignore[union-attr]
    ]


def _hex_artillery(g: Game, i: int, side: str, armies: list[str] | None = None) -> list[Piece]:

    out = []
    for p in M.units_at_hex(g, i, side):
        if p.type != "artillery":
            continue
        if armies is not None and not any(
            artillery.may_support_army(g, p, a)
            for a in armies or [None]  # type: ignore[list-item]
        ):
            continue
        out.append(p)
    return sorted(out, key=lambda p: (-int(p.stat("support", 0)), p.id))


def _nation(g: Game, rec: BattleRecord, side: str) -> str:
    units = _hex_corps(g, int(rec.hex_i), side)
    if units:
        return units[0].nation
    return (M.powers_of(g, side) or [""])[0]


def _knows(g: Game, nation: str, tactic: str) -> bool:

    return bool(tactics.knows(g, nation, tactic))


# ====================================================================== battle orders (31-B)
@implements("LGG 31-B")
def order_benefits(g: Game, attack: str, defence: str) -> dict[str, bool]:
    """LGG 31-B: which side's order brings its advantage, from the offensive and defensive tables
    (provisional ``battle-orders-offensive`` / ``battle-orders-defensive``)."""
    if attack not in ATTACK_ORDERS or defence not in DEFENCE_ORDERS:
        raise ValueError(f"unknown battle orders {attack!r} / {defence!r}")
    row = ATTACK_ORDERS.index(attack) + 1
    off = str(tables(g)["battle-orders-offensive"].lookup(defence, row).result)
    dfn = str(tables(g)["battle-orders-defensive"].lookup(defence, row).result)
    return {"attacker": off == attack, "defender": dfn == defence}


@implements("LGG 31-B")
def order_effects(attack: str, defence: str, benefits: dict[str, bool]) -> dict[str, Any]:
    """LGG 31-B: the effects of the orders that bring their advantage: R -1 to the defender's
    combativeness tests; V +1 to the attack value of the attacker's engaged unit; M +1 to the
    bombardment D12; L -1 to the attacking general's Breakthrough value (applied by 17.3-A,
    given to the battle as order L); C -1 to the attack value of the attacker's engaged unit;
    N -1 to the attacker's combativeness tests."""
    mods: list[dict[str, Any]] = []
    orders: dict[str, str] = {}
    bombard = 0
    if benefits.get("attacker"):
        if attack == "R":
            mods.append(
                {
                    "side": "defender",
                    "target": "combativeness",
                    "value": -1,
                    "rule": "LGG 31-B",
                    "reason": "creeping barrage order (R)",
                }
            )
        elif attack == "V":
            mods.append(
                {
                    "side": "attacker",
                    "target": "value",
                    "value": 1,
                    "rule": "LGG 31-B",
                    "reason": "waves order (V)",
                }
            )
        else:
            bombard = 1
        orders["attacker"] = attack
    if benefits.get("defender"):
        if defence == "C":
            mods.append(
                {
                    "side": "attacker",
                    "target": "value",
                    "value": -1,
                    "rule": "LGG 31-B",
                    "reason": "counter-attack order (C)",
                }
            )
        elif defence == "N":
            mods.append(
                {
                    "side": "attacker",
                    "target": "combativeness",
                    "value": -1,
                    "rule": "LGG 31-B",
                    "reason": "scattered nests order (N)",
                }
            )
        orders["defender"] = defence
    return {"modifiers": mods, "orders": orders, "bombardment_d12": bombard}


# ======================================================= bombardment (31-D, 31-G, 31-H, 31-I, 29-A)
@implements("LGG 31-D", "LGG 36.3", "LGG 36.5-B")
def bombardment_allowed(g: Game, rec: BattleRecord) -> str | None:
    """LGG 31-D / 36.3 / 36.5-B: why the attacker may carry out no preliminary bombardment (None:
    it may): the doctrine must allow it; a stack intercepted while in movement may not; it needs
    artillery in the battle hex or in its GHQ Artillery box able to join."""
    att = rec.attacker
    nation = _nation(g, rec, att)
    if not DT.allows(g, nation, _front(g, rec), "preliminary-bombardment"):
        return "the preliminary bombardment comes with Fire Doctrine (36.3)"
    if intercepted(g, rec):
        return "a stack intercepted in movement may not bombard (36.5-B)"
    if not _hex_artillery(g, int(rec.hex_i), att) and not _ghq_art(g, rec, att, attacking=True):
        return "no artillery to bombard with"
    return None


@implements("LGG 36.5-B", "LGG 36.2-A")
def intercepted(g: Game, rec: BattleRecord) -> bool:
    """A battle provoked by an interception in this activation (marker ``interception``, rule 13):
    not counted against the limits (36.2-A, 36.5-B), and the intercepted stack may not bombard."""
    mk = g.state.marker("interception", rec.hex)
    return bool(mk) and mk.get("turn") == M.turn_index(g) and mk.get("activation") == rec.activation


def _ghq_art(g: Game, rec: BattleRecord, side: str, attacking: bool) -> list[Piece]:
    nation = _nation(g, rec, side)
    units = _hex_corps(g, int(rec.hex_i), side) if attacking else []
    return trench.ghq_artillery_for_battle(
        g, nation, int(rec.hex_i), attacking, units, rec.activation
    )


@implements("LGG 31-D", "LGG 37-C", "LGG 37-E", "LGG 37-F", "LGG 37-G", "LGG 32.1-D", "LGG 32.1-B")
def bombardment_options(g: Game, rec: BattleRecord) -> list[dict[str, Any]]:
    """LGG 31-D / 32.1-D / 32.1-B: the attacker's choices - normal, massive (intensity 2 or 3, with
    the tactic 37-C), blitz (with the tactic 37-E: 2 or 3 artillery units, fire 6+) or no
    bombardment; with blitz the special use of creeping barrage (37-F, not in mountains) or
    infiltration (37-G, great battles; assault troops or tanks); a gas attack when a gas is
    available (37-D). Massive bombardment excludes blitz, creeping barrage and infiltration."""

    att = rec.attacker
    nation = _nation(g, rec, att)
    out: list[dict[str, Any]] = [{"kind": "none"}]
    gas = tactics.gas_available(g, nation)
    why = bombardment_allowed(g, rec)
    kinds: list[dict[str, Any]] = []
    if why is None:
        kinds.append({"kind": "normal"})
        if _knows(g, nation, "massive bombardment"):
            kinds += [{"kind": "massive", "intensity": 2}, {"kind": "massive", "intensity": 3}]
        arts = _bombard_artillery(g, rec)
        if _knows(g, nation, "blitz bombardment") and _blitz_groups(g, nation, arts):
            kinds.append({"kind": "blitz"})
            if _knows(g, nation, "creeping barrage") and not _battle().in_mountains(
                g, int(rec.hex_i)
            ):
                kinds.append({"kind": "blitz", "use": "creeping_barrage"})
            if _knows(g, nation, "infiltration"):
                i = int(rec.hex_i)
                if any(p.attrs.get("assault") for p in _hex_corps(g, i, att)):
                    kinds.append({"kind": "blitz", "use": "infiltration-assault"})
                if any(p.type == "tank" for p in M.units_at_hex(g, i, att)):
                    kinds.append({"kind": "blitz", "use": "infiltration-tanks"})
    out += kinds
    if gas:
        out += [{**k, "gas": gas} for k in out if k["kind"] != "none" or why is None]
    return out


def _bombard_artillery(g: Game, rec: BattleRecord) -> list[Piece]:
    arts = _hex_artillery(
        g, int(rec.hex_i), rec.attacker, list(rec.spec.get("armies") or []) or None
    )
    return arts


def _blitz_groups(g: Game, nation: str, arts: list[Piece]) -> list[list[Piece]]:
    """37-E: groups of 2 or 3 artillery units with a total fire of 6+ (in Combined Doctrine two
    groups of different units may fire, the better result kept, 36.5-A)."""
    groups: list[list[Piece]] = []
    used: set[str] = set()
    for _ in range(2):
        best = None
        for n in (2, 3):
            for combo in combinations([a for a in arts if a.id not in used], n):
                fire = sum(int(a.stat("support", 0)) for a in combo)
                if fire >= 6 and (
                    best is None
                    or (len(combo), -fire)
                    < (len(best), -sum(int(a.stat("support", 0)) for a in best))
                ):
                    best = list(combo)
        if best is None:
            break
        groups.append(best)
        used |= {a.id for a in best}
    return groups


@implements("LGG 31-G", "LGG 37-C")
def bombardment_column(
    g: Game, rec: BattleRecord, total_fire: int, defenders: int, kind: str, intensity: int = 0
) -> tuple[int, list[str]]:
    """LGG 31-G / 37-C: the column of the bombardment table (index) and the shifts applied.

    Normal or massive: the total fire divided by the defender's front-line corps, rounded up;
    blitz: the undivided total. Massive: 1 or 2 columns (intensity 2 or 3) in the direction of
    option ``massive-shift-direction`` (audit 10: right). Mountain: 1 column to the left."""
    value = total_fire if kind == "blitz" else math.ceil(total_fire / max(1, defenders))
    col = max(0, min(len(COLUMNS) - 1, value - 1))
    notes = [
        f"column {COLUMNS[col]} ({total_fire}"
        f" fire{'' if kind == 'blitz' else f' / {max(1, defenders)} corps'})"
    ]
    if kind == "massive":
        shift = intensity - 1
        if g.opt("massive-shift-direction") == "left":
            shift = -shift
        col += shift
        notes.append(f"massive bombardment {shift:+d} (LGG 37-C)")
    if _battle().in_mountains(g, int(rec.hex_i)):
        col -= 1
        notes.append("mountain -1 (LGG 31-G)")
    return max(0, min(len(COLUMNS) - 1, col)), notes


@implements("LGG 31-G", "LGG 31-B", "LGG 37-D", "LGG 37-I")
def bombardment_modifiers(g: Game, rec: BattleRecord, kind: str) -> Modifiers:
    """LGG 31-G: the D12 modifiers - hammering order M (+1, 31-B), a gas (+1, 37-D), the defender's
    defence in depth (-2 against a normal or massive bombardment, -1 against a blitz, 37-I)."""

    mods = Modifiers()
    p = prep(rec)
    if p.get("effects", {}).get("bombardment_d12"):
        mods.add(1, "LGG 31-B", "hammering order (M)")
    if p.get("gas"):
        mods.add(1, "LGG 37-D", f"combat gas ({p['gas']})")
    if tactics.defence_in_depth_active(g, rec.defender):
        mods.add(-1 if kind == "blitz" else -2, "LGG 37-I", "defence in depth")
    return mods


@implements("LGG 31-H")
def parse_result(cell: str) -> tuple[int, int, int]:
    """A bombardment cell ``<losses>[r<n>][*]`` -> (losses, trench reduction, combativeness
    tests)."""
    if cell in ("-", "", "0"):
        return 0, 0, 0
    tests = 1 if cell.endswith("*") else 0
    body = cell.rstrip("*")
    cut = 0
    if "r" in body:
        body, r = body.split("r", 1)
        cut = int(r)
    return int(body or 0), cut, tests


@implements("LGG 31-H", "LGG 32.2-C")
def distribute_losses(
    g: Game, corps: list[Piece], n: int, reason: str, rule: str
) -> dict[str, int]:
    """LGG 31-H / 32.2-C: the corps hit are chosen at random, over different corps where possible;
    losses beyond one per corps go 2 per corps at most; the rest is ignored."""
    out: dict[str, int] = {}
    ids = sorted(p.id for p in corps)
    for _ in range(n):
        free = [u for u in ids if out.get(u, 0) == 0] or [u for u in ids if out.get(u, 0) < 2]
        if not free:
            break
        u = g.choose_at_random(free, reason, rule)
        out[u] = out.get(u, 0) + 1
    return out


def _spend(g: Game, arts: list[Piece], per_unit: int, rule: str, reason: str) -> list[Piece]:
    """Spend the MUN of each artillery unit; the units whose power cannot pay do not fire."""

    fired = []
    for a in arts:
        if artillery.spend_munitions(g, a.nation, per_unit, rule, reason):
            fired.append(a)
    return fired


@implements("LGG 31-G", "LGG 31-H", "LGG 31-I", "LGG 29-A", "LGG 36.5-A", "LGG 37-E", "LGG 37-I")
def fire_bombardment(g: Game, rec: BattleRecord) -> dict[str, Any]:
    """LGG 31-G / 31-H / 31-I / 29-A: the bombardment itself.

    The attacker's artillery fires (each unit paying 1 MUN, 2 or 3 for a massive bombardment, 3
    for a blitz - only 2 or 3 units then; in Combined Doctrine two blitz groups fire and the
    better result counts, 36.5-A); the defender pays 1 MUN per artillery unit it has in the
    battle. The table (``bombardment-main``, or ``bombardment-secondary`` in a secondary battle)
    gives losses spread at random over the defender's front-line corps (31-H: 2 per corps at
    most, the rest ignored; in a secondary battle defence in depth limits them to 2, 37-I), a
    trench reduction for the whole battle, and combativeness tests; a corps "repulsed" or
    "disorganized" by them stays fit (31-H)."""
    p = prep(rec)
    kind, intensity = p["bombardment"], int(p.get("intensity") or 0)
    att, dfn = rec.attacker, rec.defender
    i = int(rec.hex_i)
    nation = _nation(g, rec, att)
    arts = _bombard_artillery(g, rec)
    if kind == "blitz":
        groups = _blitz_groups(g, nation, arts)
        if DT.doctrine_of(g, nation, _front(g, rec)) != DT.COMBINED:
            groups = groups[:1]
    else:
        groups = [arts]
    per = intensity if kind == "massive" else MUN_PER_UNIT[kind]
    defenders = _hex_corps(g, i, dfn)
    tid = "bombardment-main" if rec.kind == "main" else "bombardment-secondary"
    tbl = tables(g)[tid]
    best: dict[str, Any] | None = None
    for k, grp in enumerate(groups):
        fired = _spend(g, grp, per, "LGG 31-I", f"{kind} bombardment")
        total = sum(DT.artillery_support_value(g, a, _front(g, rec)) for a in fired)
        if total <= 0:
            continue
        col, notes = bombardment_column(g, rec, total, len(defenders), kind, intensity)
        r = g.roll(
            "d12",
            f"preliminary bombardment at {rec.hex}"
            + (f" (group {k + 1})" if len(groups) > 1 else ""),
            "LGG 31-G",
            modifiers=bombardment_modifiers(g, rec, kind),
        )
        look = tbl.lookup(col, r.modified)
        losses, cut, tests = parse_result(str(look.result))
        res = {
            "losses": losses,
            "cut": cut,
            "tests": tests,
            "cell": str(look.result),
            "explain": look.explain(),
            "notes": notes,
            "fired": [a.id for a in fired],
        }
        if best is None or (losses, cut, tests) > (best["losses"], best["cut"], best["tests"]):
            best = res

    for a in _hex_artillery(g, i, dfn):
        artillery.spend_munitions(g, a.nation, 1, "LGG 31-I", "artillery under bombardment")
    if best is None:
        best = {
            "losses": 0,
            "cut": 0,
            "tests": 0,
            "cell": "-",
            "explain": "no artillery could fire",
            "notes": [],
            "fired": [],
        }

    if fought_as(rec) == "secondary" and tactics.defence_in_depth_active(g, dfn):
        best["losses"] = min(best["losses"], 2)
    g.emit(
        "bombardment",
        f"bombardment at {rec.hex}: {best['explain']} ({'; '.join(best['notes'])})",
        rule="LGG 31-G",
        hex=rec.hex,
        losses=best["losses"],
        cut=best["cut"],
    )
    hits = distribute_losses(
        g, defenders, best["losses"], "corps hit by the bombardment", "LGG 31-H"
    )
    battle = _battle()
    for uid, n in sorted(hits.items()):
        battle.apply_losses(g, uid, n, "LGG 31-H", rec.id)
    if best["tests"] and hits:
        uid = g.choose_at_random(sorted(hits), "corps tested after the bombardment", "LGG 31-H")
        battle.queue_test(g, rec, uid, stage="roll", why="bombardment", keep_fit=True)
    p["bombardment_result"] = {**best, "hits": hits}
    p["trench_cut"] = int(best["cut"])
    M.touch(g)
    return best


# =================================================== counter-battery and artillery arrival (step E)
@implements("LGG 29-A", "LGG 37-E", "LGG 31-D")
def counter_battery(g: Game, rec: BattleRecord) -> int:
    """Step E (main battle): each artillery unit of the defender fires in counter-battery on the
    provisional ``counter-battery`` table (after a blitz, only those of the defending army's HQ,
    37-E); a hit flips one bombarding artillery unit. Not in a secondary battle (29-A)."""
    p = prep(rec)
    fired = p.get("bombardment_result", {}).get("fired", [])
    if rec.kind != "main" or not fired or p.get("bombardment") == "none":
        return 0
    dfn = rec.defender
    i = int(rec.hex_i)
    shooters = _hex_artillery(g, i, dfn)
    if p["bombardment"] == "blitz":
        armies = {command_army(g, q) for q in _hex_corps(g, i, dfn)}
        shooters = [a for a in shooters if a.attrs.get("army") in armies]
    tbl = tables(g)["counter-battery"]
    hits = 0
    for a in shooters:
        col = "ghq-artillery" if a.attrs.get("ghq_art_battle") else "artillery"
        r = g.roll("d6", f"counter-battery fire of {a.side}", "LGG 31-D")
        if tbl.lookup(col, r.natural).result == "hit":
            targets = [
                u
                for u in fired
                if g.state.pieces[u].face != "reduced" and "reduced" in g.state.pieces[u].faces
            ]
            if targets:
                t = g.choose_at_random(
                    sorted(targets), "artillery hit by counter-battery", "LGG 31-D"
                )
                M.set_face(g, g.state.pieces[t], "reduced")
                hits += 1
                g.emit(
                    "counter-battery",
                    f"counter-battery fire flips an artillery unit at {rec.hex}",
                    rule="LGG 31-D",
                )
    return hits


def _commit_ghq(g: Game, rec: BattleRecord, side: str) -> list[str]:
    attacking = side == rec.attacker
    units = _ghq_art(g, rec, side, attacking)
    if units:
        trench.commit_ghq_artillery(g, units, int(rec.hex_i), rec.activation)
    return [u.id for u in units]


# ======================================================== defender front-line reinforcements (31-F)
@implements("LGG 31-F")
def reinforcement_limit(g: Game, rec: BattleRecord, lull: bool = False) -> int:
    """LGG 31-F / 32.2-B / 32.2-D: how many units may come into the front line - 3 corps on the
    Western Front, 2 on the Eastern (31-F); at the lull 2 corps or artillery units for the
    defender (32.2-B), the 31-F number for the attacker (32.2-D)."""
    return 3 if _front(g, rec) == M.WEST else 2


@implements("LGG 31-F", "LGG 30-A", "LGG 28-D")
def reinforcement_candidates(
    g: Game, rec: BattleRecord, side: str, kinds: tuple[str, ...] = ("corps",)
) -> list[Piece]:
    """LGG 31-F: units ``side`` may bring into the front line of the battle: from the reserve of
    the HQ commanding its stack there, from its GHQ reserve (on the West only to a battle of a
    sector the GHQ reaches with a land link, 28-C), or from a stack of the same army at most 3
    hexes away that keeps at least 1 corps. Within stacking. The army defending a great
    offensive's objective may not be changed (30-A); autonomous defenders take reinforcements
    only from HQs or the GHQ at most 6 hexes away (28-D)."""

    i = int(rec.hex_i)
    here = [p for p in M.units_at_hex(g, i, side) if M.is_corps(p)]
    if "corps" in kinds and len(here) >= stacking_limit(g, i):
        kinds = tuple(k for k in kinds if k != "corps")
    if not kinds:
        return []
    armies = sorted({a for p in here if (a := command_army(g, p))})
    out: dict[str, Piece] = {}
    for a in armies:
        hq = M.hq_piece(g, a)
        if hq is not None and M.on_map(g, hq):
            for q in g.state.contents(hq.id):
                if M.in_reserve(q) and q.type in kinds:
                    out[q.id] = q
    nation = here[0].nation if here else (M.powers_of(g, side) or [""])[0]
    ghq = M.ghq_piece(g, nation)
    if ghq is not None and M.on_map(g, ghq) and _ghq_reaches(g, ghq, i):
        for q in g.state.contents(ghq.id):
            if M.in_reserve(q) and q.type in kinds:
                out[q.id] = q
    for j, plist in M.occupied(g, side).items():
        if j == i or g.board.distance(i, j) > 3:
            continue
        same = [
            q
            for q in plist
            if q.loc.kind == "hex"
            and q.type in kinds
            and command_army(g, q) in armies
            and not M.in_reserve(q)
        ]
        corps_there = [
            q for q in plist if q.loc.kind == "hex" and M.is_corps(q) and not M.in_reserve(q)
        ]
        for q in same:
            if M.is_corps(q) and len(corps_there) <= 1:
                continue
            out[q.id] = q
    res = sorted(out.values(), key=lambda p: p.id)
    lab = rec.hex
    locked = [
        o
        for o in offensive.active_offensives(g)
        if lab in o["objective"] and o.get("defender_army") and o["side"] != side
    ]
    if locked:
        res = [q for q in res if command_army(g, q) in (None, locked[0]["defender_army"])]
    if here and all(trench.is_autonomous(g, p) for p in here):
        res = [
            q
            for q in res
            if (c := M.carrier(g, q)) is not None
            and trench.autonomous_reinforcement_source_ok(g, here, c, i)
        ]
    return res


def _ghq_reaches(g: Game, ghq: Piece, i: int) -> bool:
    """31-F: on the West the GHQ reserve reaches any battle of the French or Italian sector it
    reaches with a land link (28-C's reach); on the East, 6 hexes (16.6-A)."""

    gh = M.hex_of(g, ghq)
    if gh is None:
        return False
    if M.WEST in fronts_of(g, i):
        if not set(sectors_of(g, i)) & trench._sector_reach(g, ghq):
            return False
        london = ghq.nation == "GB" and mapdata.place_name(g, gh) == "London"
        return london or _land_connected(g, gh, i)
    return g.board.distance(gh, i) <= 6


@implements("LGG 31-F", "LGG 32.2-B", "LGG 32.2-D")
class FrontReinforcement(LggStep):
    """LGG 31-F / 32.2-B / 32.2-D: a side brings units into the front line of a main battle (before
    the bombardment, or during the lull), one at a time, then ends; during the lull it may also
    redeploy its front-line units between the sub-battles (and the attacker between the front
    line and the rear).

    Params: ``battle``, ``side``, ``max``, ``kinds`` (``corps`` / ``artillery``), ``lull``."""

    name = "front-reinforcement"
    title = "Front-line reinforcements"
    rule = "LGG 31-F"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: front-line reinforcements"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def _rec(self, g: Game, f: Frame) -> BattleRecord:
        return rec_of(g, f.params["battle"])

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        rec = self._rec(g, f)
        out: list[Action] = []
        if int(f.params.get("done", 0)) < int(f.params["max"]):
            for q in reinforcement_candidates(
                g, rec, side, tuple(f.params.get("kinds", ["corps"]))
            ):
                for sub in self._subs(rec, f):
                    a = {"type": "front-reinforce", "side": side, "unit": q.id}
                    if sub:
                        a["sub"] = sub
                    out.append(a)
        if f.params.get("lull"):
            out.extend(self._redeploys(g, rec, f, side))
        out.append({"type": "done-reinforcing", "side": side})
        return out

    def _subs(self, rec: BattleRecord, f: Frame) -> list[str | None]:
        if not f.params.get("lull"):
            return [None]
        return [s for s, v in sorted(rec.subs.items()) if v.get("open")] or [None]

    def _redeploys(self, g: Game, rec: BattleRecord, f: Frame, side: str) -> list[Action]:
        """Each unit is redeployed at most once in a lull."""
        out: list[Action] = []
        subs = [s for s, v in sorted(rec.subs.items()) if v.get("open")]
        moved = set(f.params.get("moved", []))
        for uid, u in sorted(rec.units.items()):
            if (
                u["side"] != side
                or u["state"] != "fit"
                or u["kind"] not in ("corps", "artillery")
                or uid in moved
            ):
                continue
            if u["role"] == "front":
                for s in subs:
                    if s != u.get("sub"):
                        out.append({"type": "redeploy", "side": side, "unit": uid, "sub": s})
                if side == rec.attacker and u["kind"] == "corps":
                    out.append({"type": "to-rear", "side": side, "unit": uid})
            elif u["role"] == "rear" and side == rec.attacker:
                for s in subs or [None]:  # type: ignore[list-item]
                    a = {"type": "from-rear", "side": side, "unit": uid}
                    if s:
                        a["sub"] = s
                    out.append(a)
        return out

    @handles.check("front-reinforce", "redeploy", "to-rear", "from-rear", "done-reinforcing")
    def check_listed_move(self, g: Game, f: Frame, action: Action) -> None:
        want = dict(action)
        if want in self.legal_actions(g, f, action["side"]):
            return
        rule = (
            "LGG 32.2-B"
            if f.params.get("lull") and action["side"] == self._rec(g, f).defender
            else ("LGG 32.2-D" if f.params.get("lull") else "LGG 31-F")
        )
        raise IllegalAction(
            rule,
            "bring a unit of the attacked HQ's reserve, the GHQ reserve or a stack of the same army"
            " at most 3 hexes away (leaving a corps) into the front line, within the number allowed"
            " and stacking, or end",
        )

    @handles.apply("done-reinforcing")
    def apply_done(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("front-reinforce")
    def apply_front_reinforce(self, g: Game, f: Frame, action: Action) -> None:
        rec = self._rec(g, f)
        side = action["side"]
        i = int(rec.hex_i)
        q = g.state.pieces[action["unit"]]
        M.set_status(g, q, M.RESERVE, False)
        M.move_piece(g, q, Loc.hex(i))
        if f.params.get("lull"):
            _battle().add_unit(
                g,
                rec,
                q,
                role="front",
                sub=action.get("sub"),
                origin="lull",
                joined=int(rec.round),
            )
        f.params["done"] = int(f.params.get("done", 0)) + 1
        fog.emit_private(
            g,
            side,
            "front-reinforcement",
            f"{q.id} joins the front line at {rec.hex}",
            f"{side} reinforces its front line at {rec.hex}",
            rule=self.rule,
        )
        self._moved(g, f, action)

    def _moved(self, g: Game, f: Frame, action: Action) -> None:
        f.params.setdefault("moved", []).append(action["unit"])
        M.touch(g)

    @handles.apply("redeploy")
    def apply_redeploy(self, g: Game, f: Frame, action: Action) -> None:
        rec = self._rec(g, f)
        side = action["side"]
        f.params.setdefault("moved", []).append(action["unit"])
        rec.units[action["unit"]]["sub"] = action["sub"]
        fog.emit_private(
            g,
            side,
            "redeploy",
            f"{action['unit']} moves to sub-battle {action['sub']}",
            f"{side} redeploys its front line at {rec.hex}",
            rule="LGG 32.2-B",
        )
        M.touch(g)

    @handles.apply("to-rear")
    def apply_to_rear(self, g: Game, f: Frame, action: Action) -> None:
        rec = self._rec(g, f)
        side = action["side"]
        f.params.setdefault("moved", []).append(action["unit"])
        rec.units[action["unit"]]["role"] = "rear"
        fog.emit_private(
            g, side, "redeploy", f"{action['unit']} goes to the rear", None, rule="LGG 32.2-D"
        )
        M.touch(g)

    @handles.apply("from-rear")
    def apply_from_rear(self, g: Game, f: Frame, action: Action) -> None:
        rec = self._rec(g, f)
        side = action["side"]
        f.params.setdefault("moved", []).append(action["unit"])
        u = rec.units[action["unit"]]
        u["role"] = "front"
        if action.get("sub"):
            u["sub"] = action["sub"]
        fog.emit_private(
            g,
            side,
            "redeploy",
            f"{action['unit']} comes back from the rear",
            None,
            rule="LGG 32.2-D",
        )
        M.touch(g)


# ================================================================ bombardment choice (31-D, 32.1-D)
@implements("LGG 31-D", "LGG 32.1-D", "LGG 32.1-B")
class BombardmentChoice(LggStep):
    """LGG 31-D / 32.1-D / 32.1-B: the attacker chooses the type of bombardment, a special use and
    whether to fire gas. Params: ``battle``."""

    name = "bombardment-choice"
    title = "Preliminary bombardment"
    rule = "LGG 31-D"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [rec_of(g, f.params["battle"]).attacker]

    @handles.options("bombardment")
    def bombardment_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        rec = rec_of(g, f.params["battle"])
        return [{"type": "bombardment", "side": side, **o} for o in bombardment_options(g, rec)]

    @handles.check("bombardment")
    def check_bombardment(self, g: Game, f: Frame, action: Action) -> None:
        if dict(action) not in self.legal_actions(g, f, action["side"]):
            raise IllegalAction(
                self.rule,
                "choose a normal, massive (tactic 37-C) or blitz (tactic 37-E) "
                "bombardment or none; a special use needs its tactic and a blitz bombardment",
            )

    @handles.apply("bombardment")
    def apply_bombardment(self, g: Game, f: Frame, action: Action) -> None:
        rec = rec_of(g, f.params["battle"])
        p = prep(rec)
        p["bombardment"] = action["kind"]
        if action.get("intensity"):
            p["intensity"] = int(action["intensity"])
        if action.get("use"):
            p["use"] = action["use"]
        if action.get("gas"):
            p["gas"] = action["gas"]
        M.touch(g)
        kind = action["kind"] + (
            f" (intensity {action['intensity']})" if action.get("intensity") else ""
        )
        g.emit(
            "bombardment-type",
            (
                f"{action['side']} chooses: {kind} bombardment"
                if action["kind"] != "none"
                else f"{action['side']} attacks without a preliminary bombardment"
            ),
            rule=self.rule,
        )
        g.finish(f)


# ==================================================================== tactical air support (32.1-C)
def _air_index(g: Game, side: str, key: str, default: int) -> int:
    return int(M.st(g).get("air_indices", {}).get(side, {}).get(key, default))


@implements("LGG 32.1-C", "LGG 37-H")
def air_support_aircraft(g: Game, rec: BattleRecord, side: str) -> list[Piece]:
    """LGG 32.1-C / 43-H / 37-H: the fighters and bombers (not zeppelins) ``side`` may send in
    tactical support: attached to one of its HQs or its GHQ within their range of the battle,
    not used yet this turn, once the side's Fighter index has reached -4 (the air indices are
    read from ``state.vars["lgg"]["air_indices"]``; 1914 values: Fighter -5)."""
    if _air_index(g, side, "fighter", -5) < -4:
        return []
    i = int(rec.hex_i)
    out = []
    for p in g.state.pieces.values():
        if (
            p.side != side
            or p.type != "aircraft"
            or p.attrs.get("category") not in ("fighter", "bomber")
        ):
            continue
        c = M.carrier(g, p)
        h = M.hex_of(g, p)
        if c is None or c.type not in ("hq", "ghq") or h is None:
            continue
        if g.board.distance(h, i) > int(p.stat("range", 0)) or p.attrs.get(
            "air_used"
        ) == M.turn_index(g):
            continue
        out.append(p)
    return sorted(out, key=lambda p: p.id)


def air_support_options(g: Game, rec: BattleRecord, side: str) -> list[int]:

    per_sub = tactics.air_support_aircraft(g, _nation(g, rec, side))
    n = min(len(air_support_aircraft(g, rec, side)), 2 * per_sub)
    return list(range(0, n + 1))


@implements("LGG 32.1-C", "LGG 37-H")
def fly_air_support(g: Game, rec: BattleRecord, side: str, n: int) -> list[dict[str, Any]]:
    """LGG 32.1-C / 43-H / 37-H: each aircraft tests on a D6 modified by the side's Tactical
    Support index (from +3 in 1914; the tactic improves it by 1): success on a modified 4 or less
    (our reading: "success on 1 only" with the 1914 index +3). A success gives +1 to the combat
    value of the side's engaged unit for the whole battle, in one sub-battle (two aircraft for
    both sub-battles; with the tactic, two in the same sub-battle give +2)."""

    planes = air_support_aircraft(g, rec, side)[:n]
    nation = _nation(g, rec, side)
    idx = _air_index(g, side, "tactical", 3) - (
        1 if _knows(g, nation, "tactical air support") else 0
    )
    per_sub = tactics.air_support_aircraft(g, nation)
    role = "attacker" if side == rec.attacker else "defender"
    mods = []
    for k, p in enumerate(planes):
        M.set_attr(g, p, "air_used", M.turn_index(g))
        r = g.roll("d6", f"{side}: tactical air support", "LGG 32.1-C", modifiers=idx)
        if r.modified <= 4:
            sub = "A" if k < per_sub else "B"
            mods.append(
                {
                    "side": role,
                    "target": "value",
                    "value": 1,
                    "sub": sub,
                    "rule": "LGG 32.1-C",
                    "reason": "tactical air support",
                }
            )
    return mods


# ====================================================================== the preparation step
@implements("LGG 29", "LGG 29-A", "LGG 31", "LGG 31-A", "LGG 32", "LGG 32.1")
class BattlePreparation(Step):
    """LGG 29 / 29-A / 31 / 32.1: the preparation of a battle in trench warfare (see the module
    docstring), then its ``battle`` step. Params: ``battle``."""

    name = BATTLE_PREPARATION
    title = "Battle preparation"
    rule = "LGG 31"
    composite = True

    def label(self, g: Game, f: Frame) -> str:
        return f"Preparation of the battle at {rec_of(g, f.params['battle']).hex}"

    def enter(self, g: Game, f: Frame) -> None:
        rec = rec_of(g, f.params["battle"])
        if rec.kind == "breakthrough" and rec.spec.get("new_army"):
            prep(rec)["kind"] = "secondary"  # 17.3-B: counted when the army was activated (29)
            M.touch(g)
            return
        act = M.st(g).get("activation")
        armies = list(rec.spec.get("armies") or [])
        kind = classify(g, rec, act)
        p = prep(rec)
        p["kind"] = kind
        if kind in ("main", "secondary"):
            rec.kind = kind
        if kind in ("main", "secondary", "voluntary") and not intercepted(g, rec):
            secondary.count_battle(g, rec.attacker, rec.hex, kind, armies, rec.activation)
        M.touch(g)

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        bid = f.params["battle"]
        rec = rec_of(g, bid)
        p = prep(rec)
        att, dfn = rec.attacker, rec.defender
        stage = f.params.get("stage", "start")
        fight = p["kind"] in ("main", "secondary")
        if stage == "start":
            f.params["stage"] = "type"
            if not fight:
                f.params["stage"] = "battle"
                return self.next_child(g, f)
            if p["kind"] == "main":
                f.params["stage"] = "orders-read"
                return "secret-choice", {
                    "key": f"battle-orders:{bid}",
                    "sides": [att, dfn],
                    "options": {att: list(ATTACK_ORDERS), dfn: list(DEFENCE_ORDERS)},
                    "rule": "LGG 31-B",
                }
            return self.next_child(g, f)
        if stage == "orders-read":
            f.params["stage"] = "type"
            chosen = g.state.vars.get("choices", {}).get(f"battle-orders:{bid}", {})
            a, d = chosen.get(att), chosen.get(dfn)
            if a and d:
                ben = order_benefits(g, a, d)
                p["orders"] = {"attacker": a, "defender": d}
                p["benefits"] = ben
                p["effects"] = order_effects(a, d, ben)
                g.emit(
                    "battle-orders",
                    f"battle orders at {rec.hex}: {att}"
                    f" {a}{' (advantage)' if ben['attacker'] else ''}, {dfn}"
                    f" {d}{' (advantage)' if ben['defender'] else ''}",
                    rule="LGG 31-B",
                )
            return self.next_child(g, f)
        if stage == "type":
            f.params["stage"] = "air"
            return "bombardment-choice", {"battle": bid}
        if stage == "air":
            f.params["stage"] = "air-read"
            if p["kind"] == "main":
                opts = {s: [str(n) for n in air_support_options(g, rec, s)] for s in (att, dfn)}
                sides = [s for s in (att, dfn) if len(opts[s]) > 1]
                if sides:
                    return "secret-choice", {
                        "key": f"air-support:{bid}",
                        "sides": sides,
                        "options": {s: opts[s] for s in sides},
                        "rule": "LGG 32.1-C",
                    }
            return self.next_child(g, f)
        if stage == "air-read":
            f.params["stage"] = "reinforce"
            chosen = g.state.vars.get("choices", {}).get(f"air-support:{bid}", {})
            mods = []
            for s in (att, dfn):
                n = int(chosen.get(s, 0) or 0)
                if n:
                    mods += fly_air_support(g, rec, s, n)
            p["air"] = mods
            return self.next_child(g, f)
        if stage == "reinforce":
            f.params["stage"] = "ghq-before"
            if p["kind"] == "main":
                n = reinforcement_limit(g, rec)
                if p["bombardment"] in ("blitz", "none"):
                    r = g.roll(
                        "d6", f"{dfn}: reinforcement before a {p['bombardment']} attack", "LGG 31-F"
                    )
                    n = 1 if r.natural % 2 == 0 else 0
                if n and reinforcement_candidates(g, rec, dfn):
                    return "front-reinforcement", {
                        "battle": bid,
                        "side": dfn,
                        "max": n,
                        "kinds": ["corps"],
                    }
            return self.next_child(g, f)
        if stage == "ghq-before":
            f.params["stage"] = "fire"
            if p["bombardment"] in ("normal", "massive"):
                p["ghq_attacker"] = _commit_ghq(g, rec, att)
            return self.next_child(g, f)
        if stage == "fire":
            f.params["stage"] = "step-e"
            if p["bombardment"] != "none":
                fire_bombardment(g, rec)
            return self.next_child(g, f)
        if stage == "step-e":
            f.params["stage"] = "gas"
            counter_battery(g, rec)
            if p["bombardment"] in ("blitz", "none") and not p.get("ghq_attacker"):
                if ghq_artillery_late(g, rec, att):
                    p["ghq_late"] = [u.id for u in _ghq_art(g, rec, att, True)]
                else:
                    p["ghq_attacker"] = _commit_ghq(g, rec, att)
            if ghq_artillery_late(g, rec, dfn):
                p["ghq_late_defender"] = [u.id for u in _ghq_art(g, rec, dfn, False)]
            else:
                p["ghq_defender"] = _commit_ghq(g, rec, dfn)
            return self.next_child(g, f)
        if stage == "gas":
            f.params["stage"] = "battle"
            if p.get("gas"):
                bonus = tactics.use_gas(
                    g, bid, _nation(g, rec, att), p["gas"], massive=p["bombardment"] == "massive"
                )
                p["gas_bonus"] = bonus
            return self.next_child(g, f)
        if stage == "battle":
            f.params["stage"] = "done"
            if fight:
                apply_spec(g, rec)
            return "battle", {"battle": bid}
        if stage == "done":
            f.params["stage"] = "over"
            after_battle(g, bid)
        return None


@implements("LGG 36.5-C")
def ghq_artillery_late(g: Game, rec: BattleRecord, side: str) -> bool:
    """LGG 36.5-C: in Combined Doctrine, the GHQ general artillery reserve of a GHQ more than 3
    hexes
    from the battle arrives only in the 2nd round (not after a normal or massive bombardment)."""
    nation = _nation(g, rec, side)
    ghq = M.ghq_piece(g, nation)
    h = M.hex_of(g, ghq) if ghq is not None else None
    if h is None or DT.doctrine_of(g, nation, _front(g, rec)) != DT.COMBINED:
        return False
    d = g.board.distance(h, int(rec.hex_i))
    return not DT.combined_reinforcement_allowed(
        g, d, 1, prep(rec).get("bombardment", "none"), _front(g, rec), source="ghq-artillery"
    )


@implements("LGG 36.5-C", "LGG 28-C")
class LateGhqArtillery(Step):
    """LGG 36.5-C: before round 2 of a battle, the GHQ artillery kept back by 36.5-C joins it
    (the battle's ``before_round`` step; params ``battle``, ``round``)."""

    name = "ghq-artillery-arrival"
    title = "GHQ artillery arrives"
    rule = "LGG 36.5-C"

    def run(self, g: Game, f: Frame) -> None:
        rec = rec_of(g, f.params["battle"])
        p = prep(rec)
        if int(f.params.get("round", 0)) >= 2:
            for key, side in (
                ("ghq_late", rec.attacker),
                ("ghq_late_defender", rec.defender),
            ):
                ids = [u for u in p.pop(key, []) if u in g.state.pieces]
                units = [g.state.pieces[u] for u in ids if g.state.pieces[u].loc.kind == "box"]
                if not units:
                    continue
                trench.commit_ghq_artillery(g, units, int(rec.hex_i), rec.activation)
                subs: list[str | None] = [
                    s for s, v in sorted(rec.subs.items()) if v.get("open")
                ] or [None]
                for u in units:
                    _battle().add_unit(
                        g,
                        rec,
                        u,
                        role="front",
                        sub=subs[0],
                        origin="ghq-artillery",
                        joined=int(rec.round),
                    )
                p.setdefault("ghq_attacker" if side == rec.attacker else "ghq_defender", []).extend(
                    ids
                )
            M.touch(g)
        g.finish(f)


@implements("LGG 29", "LGG 30-D", "LGG 36.5-B")
def classify(g: Game, rec: BattleRecord, act: dict[str, Any] | None) -> str:
    """The kind of a battle of an activation: ``main``, ``secondary``, ``voluntary`` or ``open``
    (29, 30-D); a breakthrough, counter-offensive, assault or any special kind keeps its kind."""
    if rec.kind != "open":
        return str(rec.kind)
    if act is not None and act.get("breakthrough"):
        return "open"
    if intercepted(g, rec):
        return "secondary" if secondary._trench_side(g, rec.attacker, _front(g, rec)) else "open"
    armies = list(rec.spec.get("armies") or [])
    return secondary.battle_kind(g, act, rec.attacker, rec.hex, armies)


@implements(
    "LGG 29-B", "LGG 31-H", "LGG 32.1-B", "LGG 32.1-C", "LGG 36.5-A", "LGG 32.2", "LGG 32.1-E"
)
def apply_spec(g: Game, rec: BattleRecord) -> None:
    """Give the battle the parameters of its preparation: the order bonuses (31-B), the gas attack
    bonus decreasing by 1 a round (32.1-B), tactical air support (32.1-C), the trench level cut
    by the bombardment for the whole battle (31-H), obstinacy counted from round 1 and at least 2
    rounds after a bombardment in a secondary battle (29-B), from round 5 in a Combined main
    battle after a normal or massive bombardment (36.5-A: no lull, up to 10 rounds), the lull
    otherwise (32.2), the special uses (32.1-D) and the bombardment type (17.3-A)."""

    p = prep(rec)
    spec = rec.spec
    eff = p.get("effects", {})
    mods = (
        list(spec.get("modifiers") or []) + list(eff.get("modifiers", [])) + list(p.get("air", []))
    )
    if p.get("gas_bonus"):
        mods.append(tactics.gas_modifier(int(p["gas_bonus"])))
    spec["modifiers"] = mods
    if eff.get("orders"):
        spec["orders"] = {**dict(spec.get("orders") or {}), **eff["orders"]}
    bomb = p.get("bombardment", "none")
    if bomb != "none":
        spec["bombardment"] = bomb
    level = (
        trench.battle_trench_level(g, rec.hex, rec.defender)
        if spec.get("trench") is None
        else int(spec["trench"])
    )
    spec["trench"] = max(0, level - int(p.get("trench_cut", 0)))
    armies = list(spec.get("armies") or []) or sorted(
        {a for q in _hex_corps(g, int(rec.hex_i), rec.attacker) if (a := command_army(g, q))}
    )
    use = p.get("use")
    if use:
        tac = dict(spec.get("tactics") or {})
        if use == "creeping_barrage":
            tac["creeping_barrage"] = True
        else:
            tac["infiltration"] = "tanks" if use.endswith("tanks") else "assault"
        spec["tactics"] = tac
    if (p.get("ghq_late") or p.get("ghq_late_defender")) and not spec.get("before_round"):
        spec["before_round"] = "ghq-artillery-arrival"
    if fought_as(rec) == "secondary":
        spec.update(secondary.secondary_spec(g, armies, bomb != "none"))
    elif rec.kind == "main":
        nation = _nation(g, rec, rec.attacker)
        combined = DT.doctrine_of(g, nation, _front(g, rec)) == DT.COMBINED
        if lull_applies(g, rec):
            spec["after_round"] = "main-battle-lull"
        elif combined and bomb in ("normal", "massive"):
            spec["obstinacy_from_round"] = 5
            spec["round_cap"] = 10
            obst = max((general_obstinacy(g, a) for a in armies), default=1)
            spec["min_rounds"] = 4 + obst
    M.touch(g)


# ====================================================================== the lull (32.2)
@implements("LGG 32.2", "LGG 36.5-A", "LGG 37-E", "LGG 31-D")
def lull_applies(g: Game, rec: BattleRecord) -> bool:
    """LGG 32.2 / 36.5-A / 37-E / 31-D: a main battle has a lull after a normal or massive
    bombardment, except in Combined Doctrine; never after a blitz or without bombardment."""
    if rec.kind != "main" or prep(rec).get("bombardment") not in ("normal", "massive"):
        return False
    return DT.doctrine_of(g, _nation(g, rec, rec.attacker), _front(g, rec)) != DT.COMBINED


@implements("LGG 32.2-A")
def restore_disorganized(g: Game, rec: BattleRecord) -> list[str]:
    """LGG 32.2-A: the corps disorganized during the first rounds become operational again; England
    loses 1 VN per corps of its Home Garrison destroyed."""
    back = []
    for uid, u in sorted(rec.units.items()):
        if u["kind"] == "corps" and u["state"] == "disorganized":
            u["state"] = "fit"
            back.append(uid)
    lost = [
        uid
        for uid, u in rec.units.items()
        if u["state"] in ("eliminated",)
        and g.state.pieces.get(uid) is not None
        and g.state.pieces[uid].nation == "GB"
        and g.state.pieces[uid].attrs.get("home_garrison")
    ]
    if lost:
        politics.change_vn(g, "GB", -len(lost), "LGG 32.2-A", "Home Garrison corps destroyed")
    if back:
        g.emit(
            "lull",
            f"the lull at {rec.hex}: {len(back)} disorganized corps recover",
            rule="LGG 32.2-A",
        )
    M.touch(g)
    return back


@implements("LGG 32.2-C")
def lull_losses(g: Game, rec: BattleRecord) -> dict[str, int]:
    """LGG 32.2-C: the defender's losses during the lull - normal bombardment 2 (even) or 3 (odd);
    massive 3 (even) or 4 (odd) with one combativeness test; a D6 (digest: "D6 implied"); spread
    at random over different corps (2 per corps at most) and tallied."""
    p = prep(rec)
    massive = p.get("bombardment") == "massive"
    r = g.roll("d6", f"losses of the lull at {rec.hex}", "LGG 32.2-C")
    n = (3 if r.natural % 2 == 0 else 4) if massive else (2 if r.natural % 2 == 0 else 3)
    battle = _battle()
    front = [
        g.state.pieces[u]
        for u in battle.units_of(rec, rec.defender, states=("fit", "disorganized"))
    ]
    hits = distribute_losses(g, front, n, "corps hit during the lull", "LGG 32.2-C")
    for uid, k in sorted(hits.items()):
        battle.apply_losses(g, uid, k, "LGG 32.2-C", rec.id)
    if massive and hits:
        uid = g.choose_at_random(sorted(hits), "corps tested during the lull", "LGG 32.2-C")
        battle.queue_test(g, rec, uid, stage="roll", why="lull losses")
    g.emit("lull", f"the lull at {rec.hex}: {n} losses for the defender", rule="LGG 32.2-C")
    M.touch(g)
    return hits


@implements("LGG 32.2", "LGG 32.2-A", "LGG 32.2-B", "LGG 32.2-C", "LGG 32.2-D")
class MainBattleLull(Step):
    """LGG 32.2: the lull of a main battle, after round 4 (the battle's ``after_round`` step;
    params ``battle``, ``round``): 32.2-A recovery, 32.2-B the defender's 2 reinforcements and
    redeployment, 32.2-C its losses, 32.2-D the attacker's reinforcements and redeployment."""

    name = "main-battle-lull"
    title = "Lull"
    rule = "LGG 32.2"
    composite = True

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        rec = rec_of(g, f.params["battle"])
        if (
            int(f.params.get("round", 0)) != int(g.opt("lull-after-round"))
            or rec.ended
            or not lull_applies(g, rec)
        ):
            return None
        stage = f.params.get("stage", "restore")
        bid = rec.id
        if stage == "restore":
            f.params["stage"] = "losses"
            g.emit("lull", f"lull in the main battle at {rec.hex}", rule="LGG 32.2")
            restore_disorganized(g, rec)
            return "front-reinforcement", {
                "battle": bid,
                "side": rec.defender,
                "max": 2,
                "kinds": ["corps", "artillery"],
                "lull": True,
            }
        if stage == "losses":
            f.params["stage"] = "attacker"
            lull_losses(g, rec)
            return self.next_child(g, f)
        if stage == "attacker":
            f.params["stage"] = "done"
            return "front-reinforcement", {
                "battle": bid,
                "side": rec.attacker,
                "max": reinforcement_limit(g, rec, True),
                "kinds": ["corps", "artillery"],
                "lull": True,
            }
        return None


# ====================================================================== after the battle
@implements(
    "LGG 28-C",
    "LGG 30-E",
    "LGG 32.1-J",
    "LGG 32.1-I",
    "LGG 32.1-G",
    "LGG 32.1-F",
    "LGG 32.1-H",
    "LGG 32.1-A",
)
def after_battle(g: Game, bid: str) -> None:
    """After a battle prepared here: the GHQ artillery goes back to its box (28-C); a main battle's
    result goes to its great offensive (victory 32.1-J feeds 30-F and 33; a panic halts it, 30-E).
    The rounds themselves (engaged units 32.1-A, force differential 32.1-E, D12 32.1-F,
    resolution 32.1-G, reinforcements 32.1-H, retreat 32.1-I, victory 32.1-J) were fought by the
    battle procedure of rule 16 with the main battle's parameters."""
    rec = rec_of(g, bid)
    trench.return_ghq_artillery(g, int(rec.hex_i))
    if rec.kind != "main":
        return
    act = M.st(g).get("activation") or {}
    oid = act.get("great_offensive")
    if not oid:
        return
    off = offensive.offensives(g).get(oid)
    if off is None:
        return
    res = _battle().result(g, bid)
    defenders = sorted(
        {
            g.state.pieces[u].nation
            for u, x in rec.units.items()
            if x["side"] == rec.defender and x["kind"] == "corps" and u in g.state.pieces
        }
    )
    offensive.note_main_battle(g, off, int(rec.hex_i), {**res.raw(), "defender_nations": defenders})


STEPS: tuple[type[Step], ...] = (
    BattlePreparation,
    BombardmentChoice,
    FrontReinforcement,
    MainBattleLull,
    LateGhqArtillery,
)
