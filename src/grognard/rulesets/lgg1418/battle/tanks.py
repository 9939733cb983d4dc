"""LGG 39: tanks - tank values, support, destruction, reserve and breakthrough.

39-A: each side has a tank value; the gap between the two may not exceed 2 (the laggard is
pulled up); a tank is worth nothing in mountains or marsh (and no infiltration there); a tank
alone, without a supporting corps, gives no support. 39-B: on attack the support value is the
lower of the tested value and the printed one; the test needs at least 2 tanks in a main battle
or 4 in a secondary battle (which must then last 4 rounds) and is made once per turn and side
(during a Great Offensive the value stays from turn to turn); otherwise the value obtained
before (0 if none). On defence the value is always 1. A tank supports the engaged corps, besides
the artillery, when a corps of its nationality was in its stack at the start of the battle.
39-C: an engaged tank is not withdrawn; when the engaged corps suffers a loss each of its tanks
rolls on the tank destruction table (D6 >= the number: destroyed). 39-D: light tanks sit in HQ
or GHQ reserves without using room and may break through on the flank or in depth; heavy tanks
only on the flank, and never reinforce a battle from a GHQ reserve (see :mod:`.breakthrough`
and :func:`.battle_steps.reinforcement_pool`).

State: ``g.state.vars["lgg"]["tank_value"][side] = {"value": n, "turn": index}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle.base import describe, eliminate_unit, say, table
from grognard.rulesets.lgg1418.map import mapdata

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.lgg1418.battle.base import BattleRecord

MAX_GAP = 2  # 39-A (printed)
DEFENCE_VALUE = 1  # 39-B (printed)
SECONDARY_TEST_ROUNDS = (
    4  # 39-B (printed): a secondary battle with a tank value test lasts 4 rounds
)


@implements("LGG 39-A")
def normalise_values(values: dict[str, int], max_gap: int = MAX_GAP) -> dict[str, int]:
    """LGG 39-A: the two sides' tank values may not differ by more than 2: the lower one is pulled
    up
    (3 against 0 gives 3 and 1)."""
    if len(values) < 2:
        return dict(values)
    hi = max(values.values())
    return {s: max(v, hi - max_gap) for s, v in values.items()}


def side_value(g: Game, side: str) -> int:
    rec = M.st(g).get("tank_value", {}).get(side)
    return int(rec["value"]) if rec else 0


def set_values(g: Game, values: dict[str, int]) -> None:
    st = M.st(g).setdefault("tank_value", {})
    for s, v in normalise_values({**{x: side_value(g, x) for x in M.SIDES}, **values}).items():
        old = st.get(s, {})
        st[s] = {
            "value": int(v),
            "turn": old.get("turn", -1) if s not in values else M.turn_index(g),
        }
    M.touch(g)


@implements("LGG 39-A")
def tanks_useless(g: Game, i: int) -> bool:
    """LGG 39-A: a tank is ineffective in mountains or marsh."""
    return mapdata.effective_terrain(g, i) in ("mountain", "high_mountain", "marsh")


@implements("LGG 39-B")
def value_test(g: Game, rec: BattleRecord, side: str) -> int:
    """LGG 39-B: the side's tank value for this battle, tested once per turn when the battle has
    enough tanks (2 in a main battle, 4 in a secondary one, which must then last at least 4
    rounds: the attacker may not break it off before, as with obstinacy); otherwise the value
    obtained before."""
    tanks = [
        u
        for u, x in rec.units.items()
        if x["side"] == side and x["kind"] == "tank" and x["state"] == "fit"
    ]
    need = 4 if rec.kind == "secondary" else 2
    st = M.st(g).setdefault("tank_value", {}).get(side)
    if rec.kind == "main" and st is not None:
        return int(st["value"])
    if st is not None and st.get("turn") == M.turn_index(g):
        return int(st["value"])
    if len(tanks) < need:
        return side_value(g, side)

    tbl = table(g, "tank-value")
    col = "secondary" if rec.kind == "secondary" else "main"
    r = g.roll(str(tbl.die), f"tank value test of {side}", "LGG 39-B")
    v = int(tbl.lookup(col, r.natural).result)
    set_values(g, {side: v})
    rec.tank_minimum = {**rec.tank_minimum, side: need}
    g.emit("tank-value", f"{side} tank value: {side_value(g, side)}", rule="LGG 39-B")
    if rec.kind == "secondary" and side == rec.attacker:
        rec.min_rounds = max(int(rec.min_rounds or 0), SECONDARY_TEST_ROUNDS)
        g.emit(
            "tank-value",
            f"the battle at {rec.hex} must last at least {SECONDARY_TEST_ROUNDS} rounds "
            "(tank value tested in a secondary battle)",
            rule="LGG 39-B",
        )
    return side_value(g, side)


@implements("LGG 39-B", "LGG 39-C")
def tanks_short(g: Game, rec: BattleRecord, side: str) -> bool:
    """LGG 39-B / 39-C: in a battle where ``side`` tested its tank value, its engaged tanks must be
    kept at the minimum the test needed (2 in a main battle, 4 in a secondary one): while fewer
    are fit, a tank available as a reinforcement must be brought in (and only then)."""
    need = int(rec.tank_minimum.get(side, 0))
    if not need:
        return False
    fit = [
        u
        for u, x in rec.units.items()
        if x["side"] == side
        and x["kind"] == "tank"
        and x["state"] == "fit"
        and x["role"] == "front"
    ]
    return len(fit) < need


@implements("LGG 39-B", "LGG 39-A")
def tank_support(g: Game, rec: BattleRecord, sub: str, side: str, corps: str | None) -> int:
    """LGG 39-A / 39-B: the tank support added to the engaged corps of ``side`` in ``sub``."""
    if corps is None or tanks_useless(g, rec.hex_i):
        return 0
    tanks = [
        u
        for u, x in sorted(rec.units.items())
        if x["side"] == side
        and x["kind"] == "tank"
        and x["state"] == "fit"
        and x["role"] == "front"
        and (not rec.great or x.get("sub") == sub)
    ]
    if not tanks:
        return 0
    start_nations = {
        g.state.pieces[u].nation
        for u, x in rec.units.items()
        if x["side"] == side and x["kind"] == "corps" and int(x.get("joined", 0)) == 0
    }
    best = 0
    for t in tanks:
        p = g.state.pieces[t]
        if p.nation not in start_nations:
            continue
        if side == rec.defender:
            v = DEFENCE_VALUE
        else:
            v = min(
                int(rec.tank_value.get(side, side_value(g, side))),
                int(p.stat("support", 0)),
            )
        best = max(best, v)
    return best


@implements("LGG 39-C")
def destruction_checks(g: Game, rec: BattleRecord, sub: str, side: str, res: str) -> None:
    """LGG 39-C: after a loss of the engaged corps, each tank supporting it rolls a D6 on the tank
    destruction table (by category and the loss suffered) and is destroyed on the number or more."""

    if res in ("0", "½"):
        return
    band = "E" if res == "E" else ("1" if res == "1" else "2")
    tbl = table(g, "tank-destruction")
    for u, x in sorted(rec.units.items()):
        if x["side"] != side or x["kind"] != "tank" or x["state"] != "fit" or x["role"] != "front":
            continue
        if rec.great and x.get("sub") != sub:
            continue
        p = g.state.pieces[u]
        col = f"{p.attrs.get('category', 'heavy')}:{band}"
        r = g.roll(str(tbl.die), f"tank destruction ({describe(g, p)})", "LGG 39-C")
        if str(tbl.lookup(col, r.natural).result) == "X":
            say(
                g,
                side,
                "tank",
                f"{u} is destroyed",
                f"{describe(g, p)} is destroyed",
                rule="LGG 39-C",
            )
            eliminate_unit(g, rec, u, "tank destroyed", "LGG 39-C")
