"""LGG 11: movement - normal, administrative, coordination of armies, rail, rail conversion.

Movement happens inside an army activation (:mod:`.activation`), one hex at a time, so that
the opponent's interrupts (interception, 13) can open after any hex entered. A move action
names the units (all on one hex) and the adjacent hex to enter; the units of an HQ's or
decoy's box move with it (4-B), as do its reserve, generals and aircraft. Each unit keeps its
own count of movement points spent, which is what "a stack moves at the speed of its slowest
unit" (11.1-C) amounts to: a group may only take a step every unit in it can pay for, and
units may be dropped or picked up along the way.

Unit run-time attributes (cleared when the activation ends): ``mv_act`` activation serial,
``mv_spent`` MP spent, ``mv_mode`` ``normal`` or ``admin``, ``mv_empty`` the unit's last step
entered a hex free of the enemy (8-B; whether that hex lies in a rigid enemy ZoC is a hidden
fact kept in ``st["rigid_entered"]``, unit id -> activation serial), ``mv_stop`` its movement is
over,
``mv_inrange`` it began within command range of its HQ, ``mv_rail`` it moved by rail.
``moved_turn`` (kept) is the turn index of its last move.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.rulesets.lgg1418 import hooks, paths
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import knowledge, mapdata, railways
from grognard.rulesets.lgg1418.map.fronts import fronts_of
from grognard.rulesets.lgg1418.map.weather import rain_extra_cost, snow_allowance_change
from grognard.rulesets.lgg1418.map.zoc import (
    BESIEGED,
    exerting_hexes,
    in_enemy_zoc,
    shut_in_besieged_fortress,
)
from grognard.rulesets.lgg1418.supply import supply
from grognard.rulesets.lgg1418.units.counters import (
    command_army,
    command_range,
    coordination_value,
    ghq_value,
)
from grognard.search.reach import reach_generic

if TYPE_CHECKING:
    from grognard.core.game import Game

MOVERS = ("corps", "hq", "artillery", "tank", "decoy")
MV_ATTRS = (
    "mv_act",
    "mv_spent",
    "mv_mode",
    "mv_empty",
    "mv_stop",
    "mv_inrange",
    "mv_rail",
    "mv_from",
)


@dataclass(frozen=True)
class StepInfo:
    """What entering a hex costs a unit and what happens there."""

    cost: int
    engage: bool = False
    stop: bool = False
    rigid: bool = False


# ================================================================ allowance and cost (11.1-B, 11.2)
@implements("LGG 7-C", "LGG 11.2")
def allowance(g: Game, p: Piece, mode: str = "normal") -> int:
    """LGG 7-C / 11.2: the unit's MP this activation: printed allowance, -1 in snow (not HQs),
    doubled for administrative movement after the snow penalty."""
    h = M.hex_of(g, p)
    base = int(p.stat("movement", 0))
    if h is not None:
        base += snow_allowance_change(g, p, h)
    base = max(0, base)
    return base * 2 if mode == "admin" else base


def spent(p: Piece, serial: int) -> int:
    return int(p.attrs.get("mv_spent", 0)) if p.attrs.get("mv_act") == serial else 0


def has_moved(p: Piece, serial: int) -> bool:
    return p.attrs.get("mv_act") == serial


def mode_of(p: Piece, serial: int) -> str | None:
    return str(p.attrs.get("mv_mode")) if p.attrs.get("mv_act") == serial else None


@implements("LGG 1-A", "LGG 10-B", "LGG [11.1-A]")
def static_step_problem(g: Game, p: Piece, i: int, j: int) -> tuple[str, str] | None:
    """LGG 1-A / 10-B / [11.1-A]: why ``p`` can never step from ``i`` into ``j`` this turn
    (terrain, hexsides, neutral countries), or None."""
    if j not in g.board.neighbors(i):
        return ("LGG [11.1-A]", "units move from hex to adjacent hex")
    if mapdata.is_neutral_hex(g, j):
        return ("LGG [11.1-A]", "neutral countries are impassable")
    info = mapdata.terrain_info(g, j)
    if info.impassable:
        return ("LGG 1-A", f"{mapdata.effective_terrain(g, j)} hexes cannot be entered")
    if info.mountain_corps_only and not (M.is_corps(p) and M.arm(p) == "mountain"):
        return ("LGG 10-B", "only a mountain corps may be in high mountain")
    if info.no_tanks and p.type == "tank":
        return ("LGG 10-B", "tanks are prohibited in mountains")
    if mapdata.hexside_impassable(g, i, j):
        feats = ", ".join(f.name for f in mapdata.hexside_features(g, i, j) if f.impassable)
        return ("LGG 1-A", f"that hexside ({feats}) cannot be crossed")
    return None


@implements("LGG 11.1-B", "LGG 1-A", "LGG 7-B", "LGG 11.1-D")
def step_cost(g: Game, p: Piece, i: int, j: int) -> int:
    """LGG 11.1-B / 1-A / 7-B / 11.1-D: MP to enter ``j`` from ``i``.

    The terrain of the hex entered (a city or locality costs nothing in itself: its
    surrounding terrain counts; a mountain pass costs as plains), plus the hexside crossed (a
    river crossing is free from or into a friendly city or locality, or along a friendly
    railway reaching the far bank, unless the hex entered holds an enemy), +1 in rain, +1
    into a fortress hex besieged for at least one turn.
    """
    data = M.data(g)
    terrain = "plains" if mapdata.crossed_by_pass(g, i, j) else mapdata.effective_terrain(g, j)
    cost = data.terrain[terrain].cost
    side = p.side
    enemy_there = j in M.enemy_present_hexes(g, side)
    for f in mapdata.hexside_features(g, i, j):
        if f.cost <= 0:
            continue
        if f.name in ("river", "large_river") and not enemy_there and _free_crossing(g, side, i, j):
            continue
        cost += f.cost
    cost += rain_extra_cost(g, j)
    if _besieged_since_earlier_turn(g, side, j):
        cost += 1
    return cost


def _free_crossing(g: Game, side: str, i: int, j: int) -> bool:
    for h in (i, j):
        if mapdata.is_urban(g, h) and mapdata.controller(g, h) == side:
            return True
    return (
        mapdata.rail_crosses(g, i, j)
        and railways.rail_usable(g, side, i)
        and railways.rail_usable(g, side, j)
    )


def _enemy_fortress(g: Game, side: str, j: int) -> Piece | None:
    for q in g.state.at_hex(j):
        if q.type == "fortress" and q.side != side:
            return q
    return None


def _besieged_since_earlier_turn(g: Game, side: str, j: int) -> bool:
    f = _enemy_fortress(g, side, j)
    if f is None or BESIEGED not in f.status:
        return False
    mk = g.state.marker("siege", g.board.label(j))
    return bool(mk) and int(mk.get("since", M.turn_index(g))) < M.turn_index(g)


@implements("LGG 11.1-D")
def fortress_blocks(g: Game, side: str, j: int) -> bool:
    """LGG 11.1-D: entering ``j`` ends a move: an enemy fortress not besieged for a full turn, or a
    fortress besieged or taken this very turn (one taken in the August 1914 pre-turn does not
    block in August 1914)."""
    f = _enemy_fortress(g, side, j)
    if f is not None:
        return not _besieged_since_earlier_turn(g, side, j)
    # A fortress taken this turn still blocks; one taken in the August 1914 pre-turn (a turn of
    # its own in the calendar) therefore no longer blocks in August 1914.
    mk = g.state.marker("fortress_fallen", g.board.label(j))
    return bool(mk) and int(mk.get("turn", -1)) == M.turn_index(g)


# ====================================================================== dynamic rules
def enemy_stack_at(g: Game, side: str, j: int) -> bool:
    """An enemy stack marker stands in ``j`` (what the mover can see: any enemy piece but a
    fortress besieged by the mover and what it shuts in, 11.1-D, 23-D)."""
    for q in M.pieces_at_hex(g, j, M.other_side(side)):
        if q.type == "fortress" and BESIEGED in q.status:
            continue
        if shut_in_besieged_fortress(g, q):
            continue  # the units shut inside a besieged fortress (23-D)
        return True
    return False


@implements("LGG 11.2")
def administrative_step_problem(
    g: Game, side: str, j: int, enemy: set[int] | None = None
) -> str | None:
    """LGG 11.2: an administrative move stays in friendly territory (or territory conquered at
    least one turn earlier) and never passes through or ends in contact with enemy units,
    unless that hex lies behind a river, canal or strait, or is a city or a friendly fortress.

    ``enemy``: the hexes holding enemy units as far as the mover knows (default: the truth)."""
    if mapdata.controller(g, j) != side:
        return "administrative movement stays in friendly territory"
    won = mapdata.conquered_turn(g, j)
    if won is not None and won >= M.turn_index(g):
        return "territory conquered this turn is not yet open to administrative movement"
    if mapdata.is_city(g, j) or any(
        q.type == "fortress" and q.side == side for q in g.state.at_hex(j)
    ):
        return None
    if enemy is None:
        enemy = M.enemy_blocking_hexes(g, side)
    for k in g.board.neighbors(j):
        if k not in enemy:
            continue
        if any(f.shelters_administrative for f in mapdata.hexside_features(g, j, k)):
            continue
        return "administrative movement may not pass or end in contact with enemy units"
    return None


@implements("LGG 11.1-H")
def changes_front(g: Game, start: int, j: int) -> bool:
    """LGG 11.1-H: a hex entered on a front (East/West) other than the one the move began on."""
    a, b = set(fronts_of(g, start)), set(fronts_of(g, j))
    return bool(a) and bool(b) and not (a & b)


@implements("LGG 11.1-E")
def foreign_capital(g: Game, p: Piece, j: int) -> bool:
    """LGG 11.1-E: only a stack of the capital's own nation may stop in a major power's capital
    (allies may pass through). Read as applying to the capitals of the unit's own side; an
    enemy capital is taken by battle (a stack may enter it to attack)."""
    if not mapdata.is_capital(g, j):
        return False
    nation = mapdata.place_nation(g, j)
    return nation != p.nation and nation is not None and M.nation_side(g, nation) == p.side


@implements("LGG 11.1-F")
def battlefield_closed(g: Game, act: dict[str, Any], j: int) -> bool:
    """LGG 11.1-F: a hex where a friendly army activated this turn already fought is closed to the
    units of another activation of the same side, except in a breakthrough or a reaction."""
    mk = g.state.marker("battle", g.board.label(j))
    if not mk or mk.get("turn") != M.turn_index(g) or mk.get("side") != act["side"]:
        return False
    if act.get("reaction") or act.get("breakthrough"):
        return False
    return mk.get("activation") != act["serial"]


def battles_installed(g: Game) -> bool:
    """Is the battle procedure (rules 16-18, hook ``army-battles``) part of the rule system?"""
    return hooks.installed(g, hooks.BATTLES)


@implements("LGG [11.1-A]")
def in_command_range(g: Game, army: str, h: int) -> bool:
    """LGG [11.1-A]: is hex ``h`` within the command range of the army's HQ?"""
    hq_hex = M.army_hq_hex(g, army)
    return hq_hex is not None and g.board.distance(hq_hex, h) <= command_range(g, army)


# ====================================================================== groups
def group_members(g: Game, units: Iterable[Piece]) -> list[Piece]:
    """The named units plus the stacks on the boxes of any HQ or decoy among them (4-B)."""
    out: dict[str, Piece] = {}
    for p in units:
        out[p.id] = p
        if p.type in ("hq", "decoy"):
            for q in g.state.contents(p.id):
                if M.is_unit(q) and not M.in_reserve(q) and q.type in MOVERS:
                    out[q.id] = q
    return sorted(out.values(), key=lambda p: p.id)


def movable_units(g: Game, act: dict[str, Any]) -> list[Piece]:
    """Units of the activated armies standing on the map that may still move (for the activation
    of the autonomous units, ``kind = "autonomous"``: the units no HQ commands and the GHQs, 21)."""
    armies = set(act["armies"])
    auto = act.get("kind") == "autonomous"
    out = []
    for p in g.state.of_side(act["side"]):
        if (
            (p.type not in MOVERS and not (auto and p.type == "ghq"))
            or p.loc.kind != "hex"
            or M.in_reserve(p)
        ):
            continue
        army = command_army(g, p)
        if (army is not None) if auto else (army not in armies):
            continue
        if p.attrs.get("mv_act") == act["serial"] and p.attrs.get("mv_stop"):
            continue
        out.append(p)
    return sorted(out, key=lambda p: p.id)


@implements(
    "LGG [11.1-A]", "LGG 11.1-B", "LGG 11.1-C", "LGG 8-B", "LGG 11.2", "LGG 11.1-G", "LGG 23-A"
)
def check_move(g: Game, act: dict[str, Any], units: list[Piece], j: int, mode: str) -> StepInfo:
    """Check that the group may enter hex ``j`` now; raise :class:`IllegalAction` naming the rule.

    [11.1-A] command range and neutrals; 11.1-B cost and the one-hex minimum; 11.1-C the
    slowest unit; 8-B rigid ZoCs; 11.1-D fortresses; 11.1-E capitals; 11.1-F battlefields;
    11.1-G sea-transported units do not fight; 11.1-H change of front; 11.2 administrative
    movement; 23-A cavalry alone may not enter an enemy fortress hex.
    """
    side = act["side"]
    serial = act["serial"]
    i = M.hex_of(g, units[0])
    assert i is not None
    members = group_members(g, units)
    engage = enemy_stack_at(g, side, j)
    known_here = knowledge.known_zoc(g, side, i)
    known_there = knowledge.known_zoc(g, side, j)
    if engage:
        if all(p.type == "decoy" for p in members):
            raise IllegalAction("LGG 4-B", "a decoy alone cannot engage the enemy")
        if not battles_installed(g):
            raise IllegalAction(
                "LGG [11.1-A]",
                "entering an enemy-occupied hex starts a battle, and the battle "
                "procedure (rule 16) is not installed in this rule system yet",
            )
        if mode == "admin":
            raise IllegalAction(
                "LGG 11.2", "an administrative move may not enter an enemy-occupied hex"
            )
        if any(p.attrs.get("sea_transported") for p in members):
            raise IllegalAction(
                "LGG 11.1-G", "units transported by sea this turn may move but not fight"
            )
        if (
            _enemy_fortress(g, side, j) is not None
            and not any(M.is_infantry(p) for p in members)
            and any(M.is_cavalry(p) for p in members)
        ):
            raise IllegalAction(
                "LGG 23-A", "cavalry without infantry may not enter a hex with an enemy fortress"
            )
    if battlefield_closed(g, act, j):
        raise IllegalAction(
            "LGG 11.1-F", "a friendly army activated this turn has already fought in that hex"
        )
    cost = 0
    for p in members:
        why = static_step_problem(g, p, i, j)
        if why:
            raise IllegalAction(why[0], f"{p.id}: {why[1]}")
        m = mode_of(p, serial)
        if m is not None and m != mode:
            kind = "an administrative" if m == "admin" else "a normal"
            raise IllegalAction("LGG 11.2", f"{p.id} is already making {kind} move")
        if has_moved(p, serial) and p.attrs.get("mv_stop"):
            raise IllegalAction("LGG 11.1-B", f"{p.id} has ended its movement")
        if (
            has_moved(p, serial)
            and p.attrs.get("mv_empty")
            and "rigid" in known_here
            and "rigid" in known_there
            and not p.attrs.get("assault")
            and not engage
        ):
            raise IllegalAction(
                "LGG 8-B",
                f"{p.id} entered an empty hex in a rigid enemy ZoC and may not move "
                "directly into another one (it may only attack the stack exerting it)",
            )
        cap = allowance(g, p, mode)
        if cap <= 0:
            raise IllegalAction("LGG 11.1-B", f"{p.id} has no movement allowance this turn")
        c = step_cost(g, p, i, j)
        left = cap - spent(p, serial)
        if c > left and has_moved(p, serial):
            raise IllegalAction(
                "LGG 11.1-B",
                f"{p.id} has {left} MP left and entering costs {c} (the stack moves at "
                "the speed of its slowest unit)",
            )
        cost = max(cost, c)
        army = command_army(g, p)
        if (
            army
            and p.type != "hq"
            and not p.attrs.get("mv_inrange", True)
            and not in_command_range(g, army, j)
        ):
            raise IllegalAction(
                "LGG [11.1-A]",
                f"{p.id} began outside the command range of its HQ and must end "
                "within it: it may only move to hexes within that range",
            )
    front_change = any(
        changes_front(
            g, int(p.attrs["mv_start"]) if has_moved(p, serial) and "mv_start" in p.attrs else i, j
        )
        for p in members
    )
    if mode == "admin" or front_change:
        why = administrative_step_problem(g, side, j, knowledge.known_unit_hexes(g, side))  # type: ignore[assignment]
        if why and mode == "admin":
            raise IllegalAction("LGG 11.2", why)  # type: ignore[arg-type]
        if why:
            raise IllegalAction(
                "LGG 11.1-H",
                f"an army changing front follows the administrative passage rules: {why}",
            )
    for p in members:
        if p.type == "hq":
            _check_hq_step(g, act, p, j)
    if not engage:
        for p in members:
            if (
                foreign_capital(g, p, j)
                and allowance(g, p, mode) - spent(p, serial) - step_cost(g, p, i, j) <= 0
            ):
                raise IllegalAction(
                    "LGG 11.1-E",
                    f"{p.id}: only a stack of the capital's own nation may stop in "
                    "it (allies may pass through): this move would end there",
                )
    for chk in hooks.extensions(g).move_checks():
        chk(g, act, members, j, mode, engage)
    rigid = (not engage) and "rigid" in known_there
    stop = engage or fortress_blocks(g, side, j)
    return StepInfo(cost=cost, engage=engage, stop=stop, rigid=rigid)


def _check_hq_step(g: Game, act: dict[str, Any], hq: Piece, j: int) -> None:
    """[11.1-A]: an HQ may not leave behind a unit that began out of its range and already moved."""
    army = str(hq.attrs.get("army"))
    rng = command_range(g, army)
    for p in g.state.of_side(act["side"]):
        if p.id == hq.id or command_army(g, p) != army or not has_moved(p, act["serial"]):
            continue
        if p.attrs.get("mv_inrange", True):
            continue
        h = M.hex_of(g, p)
        if h is not None and g.board.distance(j, h) > rng:
            raise IllegalAction(
                "LGG [11.1-A]",
                f"moving the HQ there would leave {p.id} outside its command range; "
                f"{p.id} began outside it and must end within it",
            )


def entered_rigid(g: Game, p: Piece, serial: int) -> bool:
    """Hidden fact (8-B): did ``p``'s last step in activation ``serial`` enter an empty hex lying
    in a rigid enemy ZoC? Kept out of the piece's attributes, which its owner's view shows."""
    return M.st(g).get("rigid_entered", {}).get(p.id) == serial and bool(p.attrs.get("mv_empty"))


@implements("LGG 8-B", "LGG 11.2", "LGG 4-A")
def hidden_refusal(
    g: Game, act: dict[str, Any], units: list[Piece], j: int, mode: str
) -> dict[str, Any] | None:
    """LGG 8-B / 11.2 / 4-A: a move accepted from what the mover knows (:func:`check_move`) that
    the hidden facts forbid: a rigid enemy ZoC on both hexes (8-B), or contact with enemy units
    during an administrative move or a change of front (11.2, 11.1-H). Returns the rule, the
    reason and what the mover learns (``zoc``: hexes in a rigid ZoC; ``units``: hexes holding
    enemy units), or None when the move stands."""
    side, serial = act["side"], act["serial"]
    i = M.hex_of(g, units[0])
    assert i is not None
    members = group_members(g, units)
    engage = enemy_stack_at(g, side, j)
    enemy = M.other_side(side)
    if "rigid" in in_enemy_zoc(g, side, j):
        for p in members:
            if (
                has_moved(p, serial)
                and entered_rigid(g, p, serial)
                and not p.attrs.get("assault")
                and not (engage and j in exerting_hexes(g, enemy, i))
            ):
                return {
                    "rule": "LGG 8-B",
                    "reason": (
                        f"{g.board.label(i)} and {g.board.label(j)} both lie in a rigid enemy ZoC:"
                        " the stack may not move on, except to attack the stack exerting it"
                    ),
                    "zoc": [g.board.label(i), g.board.label(j)],
                    "units": [],
                }
    front_change = any(
        changes_front(
            g, int(p.attrs["mv_start"]) if has_moved(p, serial) and "mv_start" in p.attrs else i, j
        )
        for p in members
    )
    if mode == "admin" or front_change:
        why = administrative_step_problem(g, side, j)
        if why:
            blocking = M.enemy_blocking_hexes(g, side)
            touching = [g.board.label(k) for k in g.board.neighbors(j) if k in blocking]
            return {
                "rule": "LGG 11.2" if mode == "admin" else "LGG 11.1-H",
                "reason": why,
                "zoc": [],
                "units": touching,
            }
    return None


@implements("LGG 11.1-B", "LGG 11.1-C")
def apply_move(
    g: Game, act: dict[str, Any], units: list[Piece], j: int, mode: str, info: StepInfo
) -> list[Piece]:
    """LGG 11.1-B / 11.1-C: move the group one hex and charge each unit (the first hex of a unit
    that has not moved yet is always allowed: it then has no MP left)."""
    serial = act["serial"]
    i = M.hex_of(g, units[0])
    assert i is not None
    members = group_members(g, units)
    for p in members:
        c = step_cost(g, p, i, j)
        first = not has_moved(p, serial)
        if first:
            M.set_attr(g, p, "mv_start", i)
        used = spent(p, serial) + c
        cap = allowance(g, p, mode)
        if first and used > cap:
            used = cap
        M.set_attr(g, p, "mv_act", serial)
        M.set_attr(
            g, p, "mv_from", i
        )  # the hex it came from (LGG 16-A: a defeated attacker goes back there)
        M.set_attr(g, p, "mv_spent", used)
        M.set_attr(g, p, "mv_mode", mode)
        M.set_attr(g, p, "mv_empty", None if info.engage else True)
        M.set_attr(g, p, "mv_stop", True if info.stop else None)
        M.set_attr(g, p, "moved_turn", M.turn_index(g))
    hidden = M.st(g).setdefault("rigid_entered", {})
    rigid = not info.engage and "rigid" in in_enemy_zoc(g, act["side"], j)
    for p in members:
        if rigid:
            hidden[p.id] = serial
        else:
            hidden.pop(p.id, None)
    for p in units:
        M.move_piece(g, p, Loc.hex(j))
    if not info.engage and any(p.type != "decoy" for p in members):
        mapdata.set_control(g, j, act["side"])
    return members


# ====================================================================== rail (11.4)
@implements("LGG 11.4-A", "LGG 11.4-B", "LGG 11.4-C")
def check_rail(
    g: Game, act: dict[str, Any], units: list[Piece], goal: int
) -> tuple[list[int], dict[str, int], dict[str, int]]:
    """LGG 11.4-A / 11.4-B / 11.4-C: check a rail move; return (path, MP cost per unit, capacity
    used per power)."""
    side = act["side"]
    serial = act["serial"]
    i = M.hex_of(g, units[0])
    assert i is not None
    if not knowledge.as_known(g, side, lambda: railways.rail_usable(g, side, i)):
        raise IllegalAction("LGG 11.4-A", "rail movement starts from a rail hex of your network")
    path = knowledge.as_known(
        g, side, lambda: railways.rail_path(g, side, i, goal)
    )  # 4-A: the route as the mover sees it
    if path is None or goal == i:
        raise IllegalAction("LGG 11.4-A", "no usable railway of at most 40 hexes leads there")
    length = railways.journey_length(g, path)
    members = group_members(g, units)
    riders = [
        q
        for p in members
        if p.type in ("hq", "decoy")
        for q in g.state.contents(p.id)
        if M.is_unit(q) and M.in_reserve(q)
    ]
    costs: dict[str, int] = {}
    for p in members:
        if mode_of(p, serial) == "admin":
            raise IllegalAction(
                "LGG 11.2", f"{p.id} is making an administrative move and may not take a train"
            )
        if p.attrs.get("mv_act") == serial and p.attrs.get("mv_stop"):
            raise IllegalAction("LGG 11.1-B", f"{p.id} has ended its movement")
        if p.type != "decoy" and not supply.may_be_supplied(
            g, p
        ):  # 4-A: from what the mover may know
            raise IllegalAction(
                "LGG 11.4-A", f"{p.id} must be supplied at the start of its rail movement"
            )
        c = railways.rail_cost(g, p, i, goal, length)
        left = allowance(g, p) - spent(p, serial)
        if c > left:
            raise IllegalAction(
                "LGG 11.4-B", f"{p.id} has {left} MP left and this rail journey costs {c}"
            )
        costs[p.id] = c
    use: dict[str, int] = {}
    for p in members + riders:
        if p.type == "decoy":
            continue
        owner = railways.capacity_owner(g, p, i)
        use[owner] = use.get(owner, 0) + 1
    for owner, n in use.items():
        if railways.rail_left(g, owner) < n:
            raise IllegalAction(
                "LGG 11.4-C",
                f"the {M.nation_name(g, owner)} rail capacity left this turn "
                f"({railways.rail_left(g, owner)}) is smaller than the {n} units moved",
            )
    for chk in hooks.extensions(g).rail_checks():
        chk(g, act, members, goal)
    return path, costs, use


def apply_rail(
    g: Game,
    act: dict[str, Any],
    units: list[Piece],
    goal: int,
    costs: dict[str, int],
    use: dict[str, int],
) -> None:
    """LGG 11.4-A: the units travel by rail; they may move on afterwards and cannot be
    intercepted."""
    serial = act["serial"]
    for p in group_members(g, units):
        if not has_moved(p, serial):
            M.set_attr(g, p, "mv_start", M.hex_of(g, p))
        M.set_attr(g, p, "mv_act", serial)
        M.set_attr(g, p, "mv_spent", spent(p, serial) + costs[p.id])
        M.set_attr(g, p, "mv_mode", "normal")
        M.set_attr(g, p, "mv_rail", True)
        M.set_attr(g, p, "mv_empty", None)
        M.st(g).get("rigid_entered", {}).pop(p.id, None)
        M.set_attr(g, p, "moved_turn", M.turn_index(g))
    for p in units:
        M.move_piece(g, p, Loc.hex(goal))
    for owner, n in use.items():
        railways.use_rail(g, owner, n)


@implements("LGG 11.4-A", "LGG 11.4-B", "LGG 11.4-C")
def rail_options(g: Game, act: dict[str, Any], units: list[Piece]) -> list[int]:
    """LGG 11.4-A / 11.4-B / 11.4-C: every hex :func:`check_rail` accepts for ``units``, in the
    order of :func:`rail_destinations` (the checks that do not depend on the destination are
    made once)."""
    side = act["side"]
    serial = act["serial"]
    i = M.hex_of(g, units[0])
    if i is None or not knowledge.as_known(g, side, lambda: railways.rail_usable(g, side, i)):
        return []
    members = group_members(g, units)
    riders = [
        q
        for p in members
        if p.type in ("hq", "decoy")
        for q in g.state.contents(p.id)
        if M.is_unit(q) and M.in_reserve(q)
    ]
    left: dict[str, int] = {}
    for p in members:
        if mode_of(p, serial) == "admin" or (
            p.attrs.get("mv_act") == serial and p.attrs.get("mv_stop")
        ):
            return []
        if p.type != "decoy" and not supply.may_be_supplied(g, p):
            return []
        left[p.id] = allowance(g, p) - spent(p, serial)
    use: dict[str, int] = {}
    for p in members + riders:
        if p.type != "decoy":
            owner = railways.capacity_owner(g, p, i)
            use[owner] = use.get(owner, 0) + 1
    if any(railways.rail_left(g, owner) < n for owner, n in use.items()):
        return []
    out = []
    for goal, path in knowledge.as_known(g, side, lambda: _rail_paths(g, side, i)):
        if path is None:
            continue
        length = railways.journey_length(g, path)
        if all(railways.rail_cost(g, p, i, goal, length) <= left[p.id] for p in members):
            try:
                for chk in hooks.extensions(g).rail_checks():
                    chk(g, act, members, goal)
            except IllegalAction:
                continue
            out.append(goal)
    return out


def _rail_paths(g: Game, side: str, i: int) -> list[tuple[int, list[int] | None]]:
    """Each rail destination from ``i`` with its path (or None beyond the 40-hex limit)."""
    return [(goal, railways.rail_path(g, side, i, goal)) for goal in rail_destinations(g, side, i)]


def rail_destinations(g: Game, side: str, i: int) -> list[int]:
    """Rail hexes reachable from ``i`` within 40 hexes of usable railway."""

    if not railways.rail_usable(g, side, i):
        return []
    limit = int(M.data(g).rail["max_hexes"])
    reach = paths.bfs(
        [i], lambda u: [j for j, _ in railways.rail_neighbours(g, side, u)], max_depth=limit
    )
    return sorted(j for j in reach if j != i)


# ====================================================================== rail conversion (11.4-D)
@implements("LGG 11.4-D")
def check_convert(g: Game, act: dict[str, Any], p: Piece, hexes: list[int]) -> int:
    """LGG 11.4-D: check that infantry unit ``p`` may convert the chain ``hexes`` (the first is its
    hex or rail-adjacent to it, each next rail-adjacent to the previous); return the MP cost."""
    side = act["side"]
    serial = act["serial"]
    if not M.is_infantry(p):
        raise IllegalAction("LGG 11.4-D", "only an infantry unit converts railways")
    if mode_of(p, serial) == "admin":
        raise IllegalAction("LGG 11.2", "an administrative move may not convert rail")
    if p.attrs.get("mv_act") == serial and p.attrs.get("mv_stop"):
        raise IllegalAction("LGG 11.1-B", f"{p.id} has ended its movement")
    here = M.hex_of(g, p)
    assert here is not None
    if not hexes:
        raise IllegalAction("LGG 11.4-D", "name the rail hexes to convert")
    chain: set[int] = set()
    prev = here
    cost = 0
    extra = g.opt("rail-conversion-cost") == "plus-movement"
    for k, h in enumerate(hexes):
        entering = k > 0 or h != here
        if entering:
            if not any(j == h for j, _ in mapdata.rail_links(g, prev)):
                raise IllegalAction(
                    "LGG 11.4-D",
                    f"{g.board.label(h)} does not follow the railway from {g.board.label(prev)}",
                )
            if enemy_stack_at(g, side, h):
                raise IllegalAction("LGG 11.4-D", f"{g.board.label(h)} is held by the enemy")
            why_static = static_step_problem(g, p, prev, h)
            if why_static:
                raise IllegalAction(why_static[0], why_static[1])
            if extra:
                cost += step_cost(g, p, prev, h)
        why = railways.why_not_convertible(g, side, h, entering=entering)
        if why:
            raise IllegalAction("LGG 11.4-D", f"{g.board.label(h)}: {why}")
        if not railways.converted_neighbour_ok(g, side, h, chain):
            raise IllegalAction(
                "LGG 11.4-D",
                f"{g.board.label(h)}: conversion starts from the hex connected to your own network",
            )
        chain.add(h)
        cost += railways.conversion_cost(g, p, h)
        prev = h
    left = allowance(g, p) - spent(p, serial)
    if cost > left:
        raise IllegalAction(
            "LGG 11.4-D", f"{p.id} has {left} MP left and the conversion costs {cost}"
        )
    return cost


@implements("LGG 11.4-D", "LGG 4-A")
def conversion_held_line(g: Game, side: str, hexes: list[int]) -> list[str]:
    """LGG 11.4-D / 4-A: a conversion checked from what ``side`` may know (:func:`check_convert`)
    that the true position bars: the labels of the enemy-held hexes on the line the side relied
    on to reach its network (empty when the conversion stands)."""
    chain: set[int] = set()
    for h in hexes:
        if not railways.converted_neighbour_ok(g, side, h, chain, known=False):
            line = knowledge.as_known(g, side, lambda h=h: railways.line_home(g, side, h)) or []  # type: ignore[misc]
            blocking = M.enemy_blocking_hexes(g, side)
            return [g.board.label(k) for k in line if k in blocking]
        chain.add(h)
    return []


def apply_convert(g: Game, act: dict[str, Any], p: Piece, hexes: list[int], cost: int) -> None:
    """LGG 11.4-D: convert the chain to the side's rail standard; the unit ends in its last hex."""
    serial = act["serial"]
    if not has_moved(p, serial):
        M.set_attr(g, p, "mv_start", M.hex_of(g, p))
    for h in hexes:
        railways.convert(g, act["side"], h)
        mapdata.set_control(g, h, act["side"])
    M.set_attr(g, p, "mv_act", serial)
    M.set_attr(g, p, "mv_spent", spent(p, serial) + cost)
    M.set_attr(g, p, "mv_mode", "normal")
    M.set_attr(g, p, "moved_turn", M.turn_index(g))
    if hexes[-1] != M.hex_of(g, p):
        M.move_piece(g, p, Loc.hex(hexes[-1]))


# ====================================================================== coordination (11.3)
@implements("LGG 11.3")
def coordination_modifiers(g: Game, armies: list[str]) -> Modifiers:
    """LGG 11.3: -1 for 3 or 4 armies; -2 if one of the armies is of a different nationality."""
    mods = Modifiers()
    if len(armies) >= 3:
        mods.add(-1, "LGG 11.3", "3 or 4 armies")
    if len({M.army_nation(g, a) for a in armies}) > 1:
        mods.add(-2, "LGG 11.3", "an army of another nationality")
    return mods


@implements("LGG 11.3")
def coordination_target(g: Game, armies: list[str]) -> int:
    """LGG 11.3: the D12 (after modifiers) must reach the sum of the armies' coordination values."""
    return sum(coordination_value(g, a) for a in armies)


def coordination_count(g: Game, nation: str) -> int:
    return int(M.st(g).get("coordinated", {}).get(nation, 0))


@implements("LGG 11.3")
def check_coordination(g: Game, side: str, armies: list[str]) -> None:
    """LGG 11.3: up to 4 armies per joint activation; the armies coordinated through all attempts
    of the turn (successful or not) may not exceed the GHQ's combination value."""
    if len(armies) < 2 or len(set(armies)) != len(armies):
        raise IllegalAction("LGG 11.3", "a coordination joins two to four different armies")
    if len(armies) > 4:
        raise IllegalAction(
            "LGG 11.3", "at most 4 armies may be coordinated for a joint activation"
        )
    by_nation: dict[str, int] = {}
    if g.opt("coordination-cap-scope") == "leading-army":
        by_nation[M.army_nation(g, armies[0])] = len(armies)
    else:
        for a in armies:
            n = M.army_nation(g, a)
            by_nation[n] = by_nation.get(n, 0) + 1
    for n, k in by_nation.items():
        if M.ghq_piece(g, n) is None:
            raise IllegalAction(
                "LGG 11.3", f"{M.nation_name(g, n)} has no GHQ in play to coordinate its armies"
            )
        cap = ghq_value(g, n, "combination")
        if coordination_count(g, n) + k > cap:
            raise IllegalAction(
                "LGG 11.3",
                f"the {M.nation_name(g, n)} GHQ may coordinate {cap} armies per turn; "
                f"{coordination_count(g, n)} already counted",
            )


@implements("LGG 11.3")
def coordination_roll(g: Game, side: str, armies: list[str]) -> bool:
    """LGG 11.3: roll the coordination test and count the armies against the GHQ limit."""
    counted = M.st(g).setdefault("coordinated", {})
    if g.opt("coordination-cap-scope") == "leading-army":
        n = M.army_nation(g, armies[0])
        counted[n] = int(counted.get(n, 0)) + len(armies)
    else:
        for a in armies:
            n = M.army_nation(g, a)
            counted[n] = int(counted.get(n, 0)) + 1
    M.touch(g)
    target = coordination_target(g, armies)
    r = g.roll(
        "d12",
        f"coordination of {', '.join(armies)} (needs {target})",
        "LGG 11.3",
        modifiers=coordination_modifiers(g, armies),
    )
    ok = r.modified >= target
    g.emit(
        "coordination",
        f"coordination of {', '.join(armies)} {'succeeds' if ok else 'fails'}",
        rule="LGG 11.3",
        armies=armies,
        success=ok,
    )
    return ok


def clear_activation_attrs(g: Game, serial: int) -> None:
    hidden = M.st(g).get("rigid_entered", {})
    for pid in [k for k, v in hidden.items() if v == serial]:
        del hidden[pid]
    for p in g.state.pieces.values():
        if p.attrs.get("mv_act") == serial or any(k in p.attrs for k in ("mv_inrange", "mv_start")):
            for k in (*MV_ATTRS, "mv_start"):
                p.attrs.pop(k, None)
    M.touch(g)


# ====================================================================== reach (for front ends)
@implements("LGG 11.1-B", "LGG 11.1-C", "LGG 8-B")
def reachable(
    g: Game, act: dict[str, Any], units: list[Piece], mode: str = "normal"
) -> dict[str, float]:
    """Hexes the group could reach this activation, with their MP cost (LGG 11.1-B, 11.1-C, 8-B).

    A display aid for front ends, computed from what the mover knows of the enemy (4-A:
    a marker's ZoC or units count only once revealed) with the project's search service
    (:func:`grognard.search.reach.reach_generic`) over states (hex, entered-a-rigid-ZoC):
    terrain and hexside costs for the slowest unit, the one-hex minimum, rigid ZoCs,
    enemy hexes and blocking fortresses as end points, administrative restrictions. Each
    actual step is still checked by :func:`check_move` (command range, capitals and the
    opponent's interruptions can make a listed hex unreachable).
    """

    side, serial = act["side"], act["serial"]
    members = group_members(g, units)
    start = M.hex_of(g, units[0])
    assert start is not None
    left = min(allowance(g, p, mode) - spent(p, serial) for p in members)
    fresh = not any(has_moved(p, serial) for p in members)
    start_rigid = any(
        has_moved(p, serial) and p.attrs.get("mv_empty") for p in members
    ) and "rigid" in knowledge.known_zoc(g, side, start)
    known_units = knowledge.known_unit_hexes(g, side)
    can_fight = (
        battles_installed(g) and mode == "normal" and not all(p.type == "decoy" for p in members)
    )

    def neighbors(state: tuple[int, bool]) -> list[tuple[int, bool]]:
        h, rigid = state
        out = []
        for j in g.board.neighbors(h):
            if any(static_step_problem(g, p, h, j) for p in members) or battlefield_closed(
                g, act, j
            ):
                continue
            engage = enemy_stack_at(g, side, j)
            if engage and not can_fight:
                continue
            z = knowledge.known_zoc(g, side, j)
            if rigid and "rigid" in z and not engage:
                continue
            if mode == "admin" and administrative_step_problem(g, side, j, known_units):
                continue
            out.append((j, (not engage) and "rigid" in z))
        return out

    def cost(state: tuple[int, bool], nxt: tuple[int, bool]) -> float:
        return float(max(step_cost(g, p, state[0], nxt[0]) for p in members))

    def can_continue(state: tuple[int, bool]) -> bool:
        return not enemy_stack_at(g, side, state[0]) and not fortress_blocks(g, side, state[0])

    res = reach_generic(
        (start, start_rigid),
        float(max(left, 0)),
        neighbors,
        cost,
        can_continue=can_continue,
        hex_of=lambda s: s[0],
        minimum_move=fresh,
    )
    return {g.board.label(int(h)): c for h, c in res.cost.items() if int(h) != start}
