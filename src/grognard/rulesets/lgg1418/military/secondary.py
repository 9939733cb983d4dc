"""LGG 29: secondary battles - how many a side may fight, and how they differ from a main battle.

* 29: each side may fight two secondary battles per turn and per front sector; they are the
  only battles of the Balkan, Armenian and Oriental sectors; elsewhere they come in addition to
  the main battle of a great offensive (36.3: "2 secondary battles plus one main battle"), and
  the armies fighting them are not those of the main battle. A battle counts from its
  declaration (the first unit of an activation entering the enemy hex; our reading, as 17.3-F
  counts an empty-hex breakthrough "as soon as the attacker announces" it). Not counted:
  breakthrough battles (17.3-B, except a new army's flank attack, which its rule counts), the
  battle of a Combined stack intercepted while in movement (36.5-B). Counted through
  :func:`count_battle` by their own rules: a fortress assault not fought right after its open
  battle (23-G), an empty-hex breakthrough (17.3-F).
* 36.2-A: a side that switched to trenches in October 1914 is limited to 2 voluntary attacks
  per front sector; an army it activates in a reaction fights one battle only.
* 29-A: a secondary battle's preliminary bombardment uses its own table
  (``bombardment-secondary``); steps B (battle orders) and C (defender's front-line
  reinforcements) do not apply; step E only brings artillery in for the battle, never as
  counter-battery; the defender spends 1 MUN per artillery unit involved (see
  :mod:`.main_battle`, which runs the preparation of both kinds).
* 29-B: the general's obstinacy counts from the first round; after a preliminary bombardment
  the battle lasts at least two rounds; no political effect (nothing in :mod:`.politics`
  reads secondary battles).

Record: ``state.vars["lgg"]["fire_battles"]`` - the counted battles of the current turn
(``{"turn", "side", "sector", "hex", "activation", "kind"}``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map.fronts import fronts_of, sectors_of
from grognard.rulesets.lgg1418.military import doctrine_transitions as DT
from grognard.rulesets.lgg1418.military import movement, offensive
from grognard.rulesets.lgg1418.units.counters import command_army, general_obstinacy

if TYPE_CHECKING:
    from grognard.core.game import Game

SECONDARY_LIMIT = 2
SECONDARY_ONLY = ("Balkan", "Armenian", "Oriental")


def records(g: Game) -> list[dict[str, Any]]:
    """The counted battles of this turn (read-only)."""
    now = M.turn_index(g)
    return [r for r in M.st(g).get("fire_battles", []) if int(r["turn"]) == now]


@implements("LGG 29")
def battle_sector(g: Game, i: int, side: str, armies: list[str] | None = None) -> str:
    """LGG 29 / 6-A: the front sector a battle counts against: the battle hex's sector; on a hex
    shared by two sectors, the one of the attacking army's HQ when it is one of them (else the
    first by name)."""
    secs = sectors_of(g, i)
    if not secs:
        return ""
    if len(secs) > 1:
        for a in armies or []:
            h = M.army_hq_hex(g, a)
            if h is not None:
                for s in sectors_of(g, h):
                    if s in secs:
                        return s
    return secs[0]


def _trench_side(g: Game, side: str, front: str) -> bool:
    return any(DT.doctrine_of(g, n, front) in (DT.FIRE, DT.COMBINED) for n in M.powers_of(g, side))


@implements("LGG 29", "LGG 36.3")
def secondary_battles(g: Game, side: str, sector: str) -> list[dict[str, Any]]:
    """LGG 29 / 36.3: the secondary battles ``side`` has fought (declared) this turn in
    ``sector``."""
    return [
        r
        for r in records(g)
        if r["side"] == side and r["sector"] == sector and r["kind"] == "secondary"
    ]


@implements("LGG 29", "LGG 23-G", "LGG 17.3-F")
def count_battle(
    g: Game,
    side: str,
    hex_label: str,
    kind: str,
    armies: list[str] | None = None,
    activation: int | None = None,
) -> None:
    """Record a battle against the limits of 29 (``kind``: ``secondary``, ``main`` or ``voluntary``
    - an October 1914 attack, 36.2-A). Rules 17.3-F and 23-G call it for the battles they count."""
    i = g.board.idx(hex_label)
    if activation is None:
        act = M.st(g).get("activation") or {}
        activation = act.get("serial")
    for r in records(g):
        if r["hex"] == hex_label and r["side"] == side and r.get("activation") == activation:
            return
    lst = [r for r in M.st(g).get("fire_battles", []) if int(r["turn"]) == M.turn_index(g)]
    lst.append(
        {
            "turn": M.turn_index(g),
            "side": side,
            "sector": battle_sector(g, i, side, armies),
            "hex": hex_label,
            "activation": activation,
            "kind": kind,
        }
    )
    M.st(g)["fire_battles"] = lst
    M.touch(g)


def _pending_here(g: Game, act: dict[str, Any]) -> set[int]:
    """Hexes the current activation has already engaged (declared battles not recorded yet)."""
    out = set()
    for h, plist in M.occupied(g, act["side"]).items():
        if movement.enemy_stack_at(g, act["side"], h) and any(
            p.attrs.get("mv_act") == act["serial"] and M.is_unit(p) for p in plist
        ):
            out.add(h)
    return out


@implements("LGG 29", "LGG 36.3", "LGG 36.2-A")
def battle_limit_check(
    g: Game, act: dict[str, Any], members: list[Piece], j: int, mode: str, engage: bool
) -> None:
    """LGG 29 / 36.3 / 36.2-A (a move check): entering an enemy hex declares a battle; refuse the
    declaration beyond the limits - 2 secondary battles per sector and turn in Fire and Combined
    Doctrine (the great offensive's main battle apart; breakthroughs are free); 2 voluntary
    attacks per sector for a side in the October 1914 trenches, and one battle for an army it
    activates in a reaction."""
    if not engage or act.get("breakthrough"):
        return
    side = act["side"]
    front = act.get("front") or (fronts_of(g, j) or [M.WEST])[0]
    pending = _pending_here(g, act)
    if j in pending or any(
        r["hex"] == g.board.label(j) and r.get("activation") == act["serial"] for r in records(g)
    ):
        return
    armies = sorted({a for p in members if (a := command_army(g, p))})
    sector = battle_sector(g, j, side, armies)
    recorded = {r["hex"] for r in records(g) if r.get("activation") == act["serial"]}
    extra = sum(
        1
        for h in pending
        if g.board.label(h) not in recorded and battle_sector(g, h, side, armies) == sector
    )
    if act.get("great_offensive"):
        if sector in SECONDARY_ONLY:
            raise IllegalAction(
                "LGG 29", f"only secondary battles are fought on the {sector} sector"
            )
        return
    if _trench_side(g, side, front):
        used = len(secondary_battles(g, side, sector)) + extra
        if used >= SECONDARY_LIMIT:
            raise IllegalAction(
                "LGG 29",
                f"{side} has already fought its {SECONDARY_LIMIT} secondary battles this turn "
                f"on the {sector} sector",
            )
        return
    limit = DT.october_attack_limit(g, side, front)
    if limit is None:
        return
    if act.get("reaction") and (pending or recorded):
        raise IllegalAction("LGG 36.2-A", "an army activated in a reaction fights only one battle")
    used = (
        sum(
            1
            for r in records(g)
            if r["side"] == side and r["sector"] == sector and r["kind"] == "voluntary"
        )
        + extra
    )
    if used >= limit:
        raise IllegalAction(
            "LGG 36.2-A",
            f"{side} is limited to {limit} voluntary attacks on the {sector} sector "
            "this turn (trenches in October 1914)",
        )


@implements("LGG 29", "LGG 36.5-B")
def battle_kind(
    g: Game, act: dict[str, Any] | None, side: str, hex_label: str, armies: list[str]
) -> str:
    """LGG 29 / 30 / 36.5-B: ``main`` (a great offensive's battle), ``secondary`` (any other battle
    of a side in Fire or Combined Doctrine), ``voluntary`` (an attack of a side in the October
    1914 trenches) or ``open``."""
    i = g.board.idx(hex_label)
    front = (act or {}).get("front") or (fronts_of(g, i) or [M.WEST])[0]
    if (
        act
        and act.get("great_offensive")
        and not act.get("breakthrough")
        and offensive.main_battle_hex(g, act) == i
    ):
        return "main"
    if _trench_side(g, side, front):
        return "secondary"
    if DT.october_attack_limit(g, side, front) is not None:
        return "voluntary"
    return "open"


@implements("LGG 29-B")
def secondary_spec(g: Game, armies: list[str], bombarded: bool) -> dict[str, Any]:
    """LGG 29-B: the battle parameters of a secondary battle - obstinacy from the first round, at
    least two rounds after a preliminary bombardment (even with an obstinacy of 1)."""
    obst = max((general_obstinacy(g, a) for a in armies), default=1)
    return {"obstinacy_from_round": 1, "min_rounds": max(obst, 2) if bombarded else obst}
