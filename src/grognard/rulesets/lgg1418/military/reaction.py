"""LGG 20: enemy reaction - an army activated by surprise during the opponent's turn.

The sequence of play opens the ``reaction`` hook for the opponent between two activations of
the active side on a front (after the first, before the next; :mod:`.activation`). The step
here asks the reacting side whether it tries a reaction and with which army:

* 20-A: one test per side (not per power) per front per turn, success or failure; a D12 must
  reach the reaction value of the army's national GHQ, with -2 when the side does not hold
  the initiative on that front this turn (6-B) and a penalty for the distance between the
  army's HQ and that GHQ (bands by the option ``reaction-distance-bands``, digest A-6); the
  distance avoids enemy-controlled and prohibited hexes, and a HQ or GHQ with no such path
  ("out of contact") takes -4; England and the United States count European seas from port
  to port as 0 hexes (a beach being landed on counts as a port);
* a stack besieging a fortress, or one that took a fortress in its own turn this turn, may
  not react: it stays put during the reaction activation (it may still defend);
* 20-B: on a success the army is activated normally (an ``army-activation`` with
  ``reaction = true``); the same army may thus be activated twice in a turn. A successful
  reaction may also make the reacting army the main army of its front (5-F).

Armies barred from reacting: those that made a strategic retreat on the opponent's turn
(19-C, written by :mod:`.retreat` in ``st["retreated"]``), those listed by other rules in
``st["no_reaction"]`` (army -> reason; e.g. the armies of a great offensive, 30-A), and in
Combined Doctrine an army that already attacked in its own turn this turn (36.5-A, read from
``st["attacked"]``, written by :mod:`.enemy_reinforcement` when attacks are declared).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING

from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.map.fronts import army_fronts, reaction_initiative_modifier
from grognard.rulesets.lgg1418.map.zoc import BESIEGING
from grognard.rulesets.lgg1418.military.activation import activation_params
from grognard.rulesets.lgg1418.military.reinforcement import set_main_army, why_not_main_army
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.units import doctrine
from grognard.rulesets.lgg1418.units.counters import command_army, ghq_value

if TYPE_CHECKING:
    from grognard.core.game import Game

#: Nations that count European seas from port to port as 0 hexes (20-A).
SEA_FREE_NATIONS = ("GB", "US")
OUT_OF_CONTACT = -4


# ====================================================================== distance (20-A)
@implements("LGG 20-A")
def hq_ghq_distance(g: Game, army: str) -> int | None:
    """LGG 20-A: hexes between the army's HQ and its national GHQ along a path that enters no
    enemy-controlled and no prohibited hex (impassable terrain or hexside, neutral country);
    None when there is no such path ("out of contact"). England and the United States cross
    European seas from port to port (or to a beach being landed on) for 0 hexes."""
    hq = M.hq_piece(g, army)
    nation = M.army_nation(g, army)
    ghq = M.ghq_piece(g, nation)
    if hq is None or ghq is None:
        return None
    a, b = M.hex_of(g, hq), M.hex_of(g, ghq)
    if a is None or b is None:
        return None
    side = hq.side
    enemy = M.other_side(side)

    def open_hex(i: int) -> bool:
        return not (
            mapdata.hex_impassable(g, i)
            or mapdata.is_neutral_hex(g, i)
            or mapdata.controller(g, i) == enemy
        )

    ports: list[int] = []
    if nation in SEA_FREE_NATIONS:
        for i in g.board.points:
            if not open_hex(i):
                continue
            if (mapdata.port_size(g, i) and mapdata.controller(g, i) == side) or g.state.marker(
                "landing", g.board.label(i)
            ):
                ports.append(i)
    port_set = set(ports)
    dist = {a: 0}
    todo: deque[int] = deque([a])
    while todo:
        u = todo.popleft()
        d = dist[u]
        if u == b:
            return d
        if u in port_set:
            for v in ports:
                if v not in dist or dist[v] > d:
                    dist[v] = d
                    todo.appendleft(v)
        for v in g.board.neighbors(u):
            if v in dist and dist[v] <= d + 1:
                continue
            if not open_hex(v) or mapdata.hexside_impassable(g, u, v):
                continue
            dist[v] = d + 1
            todo.append(v)
    return None


@implements("LGG 20-A")
def distance_modifier(g: Game, distance: int | None) -> int:
    """LGG 20-A (digest A-6, option ``reaction-distance-bands``): the GHQ distance modifier.

    ``exactly-three`` (default, agrees with LGG-37): 3 hexes -1, 4 or 5 -2, 6 to 9 -3, 10 or
    more -4, closer 0; ``two-to-three``: 2 or 3 hexes -1, the rest alike. Out of contact: -4.
    """
    if distance is None:
        return OUT_OF_CONTACT
    low = 2 if g.opt("reaction-distance-bands") == "two-to-three" else 3
    if distance >= 10:
        return -4
    if distance >= 6:
        return -3
    if distance >= 4:
        return -2
    if distance >= low:
        return -1
    return 0


@implements("LGG 20-A", "LGG 6-B")
def reaction_modifiers(g: Game, side: str, front: str, army: str) -> Modifiers:
    """LGG 20-A / 6-B: the modifiers of an army's reaction test."""
    mods = Modifiers()
    init = _initiative_modifier(g, side, front)
    if init:
        mods.add(init, "LGG 6-B", "the side does not hold the initiative on this front")
    d = hq_ghq_distance(g, army)
    dm = distance_modifier(g, d)
    if dm:
        why = "HQ or GHQ out of contact" if d is None else f"HQ {d} hexes from the GHQ"
        mods.add(dm, "LGG 20-A", why)
    return mods


def _initiative_modifier(g: Game, side: str, front: str) -> int:
    """6-B; in the August 1914 pre-turn, before the initiative phase, the fixed August holder
    (3-C)."""
    if front not in M.st(g).get("initiative", {}):
        table = M.data(g).powers.get("august_1914", {})
        holder = table.get(front, {}).get("initiative")
        if holder is not None:
            return 0 if holder == side else -2
    return reaction_initiative_modifier(g, side, front)


@implements("LGG 20-A")
def reaction_target(g: Game, army: str) -> int:
    """LGG 20-A: the modified D12 must reach the reaction value of the army's national GHQ."""
    return ghq_value(g, M.army_nation(g, army), "reaction")


# ====================================================================== who may react
def reaction_used(g: Game, side: str, front: str) -> bool:
    """LGG 20-A: has ``side`` already made its reaction test on ``front`` this turn?"""
    return front in M.st(g).get("reacted", {}).get(side, [])


@implements("LGG 20-A", "LGG 19-C", "LGG 36.5-A")
def why_not_react(g: Game, side: str, front: str, army: str) -> str | None:
    """LGG 20-A / 19-C / 36.5-A: why ``army`` may not be the reacting army (None: it may)."""
    if army not in M.army_defs(g) or M.army_side(g, army) != side:
        return f"{army} is not one of your armies"
    if not M.army_formed(g, army) or M.army_hq_hex(g, army) is None:
        return f"army {army} is not in play on the map"
    if front not in army_fronts(g, army):
        return f"army {army} is not on the {front} front"
    if M.ghq_piece(g, M.army_nation(g, army)) is None:
        return (
            f"{M.nation_name(g, M.army_nation(g, army))} has no GHQ: no reaction test is possible"
        )
    if M.st(g).get("retreated", {}).get(army) == M.turn_index(g):
        return f"army {army} made a strategic retreat during the opponent's turn (19-C)"
    barred = M.st(g).get("no_reaction", {}).get(army)
    if barred:
        return f"army {army} may not react: {barred}"
    if int(M.st(g).get("reaction_activated", {}).get(army, 0)) > 0:
        return f"army {army} has already reacted this turn"
    if doctrine.doctrine(g, M.army_nation(g, army), front) == "combined" and M.st(g).get(
        "attacked", {}
    ).get(army) == M.turn_index(g):
        return (
            f"in Combined Doctrine army {army}, which attacked in its own turn, may not react"
            " (36.5-A)"
        )
    return None


def reacting_armies(g: Game, side: str, front: str) -> list[str]:
    return [a for a in sorted(M.armies_of(g, side)) if why_not_react(g, side, front, a) is None]


@implements("LGG 20-A")
def stays_put_in_reaction(g: Game, army: str) -> list[str]:
    """LGG 20-A: units of the army that may not take part in a reaction: those of a stack
    besieging a fortress, and those that took a fortress in their own turn this turn."""
    taken = M.st(g).get("fortress_takers", {})
    out = []
    for p in g.state.pieces.values():
        if not M.is_unit(p) or command_army(g, p) != army or M.hex_of(g, p) is None:
            continue
        if BESIEGING in p.status:
            out.append(p.id)
            continue
        rec = taken.get(p.id)
        if rec and int(rec.get("turn", -1)) == M.turn_index(g) and not rec.get("reaction"):
            out.append(p.id)
    return sorted(out)


# ====================================================================== the step
@implements("LGG 20", "LGG 20-A", "LGG 20-B", "LGG 5-F")
class Reaction(LggStep):
    """LGG 20-A / 20-B / 5-F: the opponent may try a reaction between two activations.

    Actions of the reacting side: ``react`` (``army``, optional ``main``: make it the main
    army on a success, 5-F) or ``decline``. The side is asked whenever its test on this
    front is still unused, so being asked reveals nothing about its forces.
    """

    name = hooks.REACTION
    title = "Enemy reaction"
    rule = "LGG 20-A"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: reaction on the {f.params['front']} front?"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        side, front = f.params["side"], f.params["front"]
        return [] if reaction_used(g, side, front) else [side]

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    @handles.options("decline")
    def decline_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "decline", "side": side}]

    @handles.options("react")
    def react_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        front = f.params["front"]
        out: list[Action] = []

        for a in reacting_armies(g, side, front):
            out.append({"type": "react", "side": side, "army": a})
            if why_not_main_army(g, side, front, a) is None:
                out.append({"type": "react", "side": side, "army": a, "main": True})
        return out

    @handles.check("decline")
    def check_decline(self, g: Game, f: Frame, action: Action) -> None:
        return

    @handles.check("react")
    def check_react(self, g: Game, f: Frame, action: Action) -> None:
        side, front = action["side"], f.params["front"]
        if reaction_used(g, side, front):
            raise IllegalAction(
                "LGG 20-A",
                f"{side} has already made its reaction test on the {front} front this turn",
            )
        why = why_not_react(g, side, front, str(action.get("army")))
        if why:
            raise IllegalAction("LGG 20-A", why)
        if action.get("main"):
            why = why_not_main_army(g, side, front, str(action["army"]))
            if why:
                raise IllegalAction("LGG 5-F", why)

    @handles.apply("decline")
    def apply_decline(self, g: Game, f: Frame, action: Action) -> None:
        side, front = action["side"], f.params["front"]
        g.finish(f)
        g.emit("reaction", f"{side} makes no reaction", rule="LGG 20-A", side=side, front=front)

    @handles.apply("react")
    def apply_react(self, g: Game, f: Frame, action: Action) -> None:
        side, front = action["side"], f.params["front"]
        g.finish(f)
        army = str(action["army"])
        M.st(g).setdefault("reacted", {}).setdefault(side, []).append(front)
        M.touch(g)
        target = reaction_target(g, army)
        r = g.roll(
            "d12",
            f"reaction of {side} on the {front} front (needs {target})",
            "LGG 20-A",
            modifiers=reaction_modifiers(g, side, front, army),
        )
        ok = r.modified >= target
        g.emit(
            "reaction",
            f"{side}'s reaction with army {army} {'succeeds' if ok else 'fails'}",
            rule="LGG 20-A",
            side=side,
            front=front,
            army=army,
            success=ok,
        )
        if not ok:
            return

        if action.get("main"):
            set_main_army(g, side, front, army, rule="LGG 5-F")
        params = activation_params(g, side, [army], front, reaction=True)
        for uid in stays_put_in_reaction(g, army):
            p = g.state.pieces[uid]
            M.set_attr(g, p, "mv_act", params["serial"])
            M.set_attr(g, p, "mv_stop", True)
        g.push("army-activation", params)


STEPS: tuple[type[Step], ...] = (Reaction,)
