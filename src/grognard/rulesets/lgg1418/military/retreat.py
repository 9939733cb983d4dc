"""LGG 12 and 19: strategic retreats (and the hook of the Russian great retreat, 47).

Rule 19 (the general rule). At the start of a military turn on a front, before any army
activation, each side may designate armies for a strategic retreat (the ``strategic-retreat``
hook; :class:`StrategicRetreat`). The opponent of the side whose turn begins declares first
(19-C: its armies retreat "before the opponent plays"), then that side (19-B: its armies are
activated first, jointly, with no coordination test, and may not be activated again; the
opponent may not react to this activation, which therefore does not open the reaction window).
The designated armies are activated (an ``army-activation`` whose ``kind`` is
``strategic-retreat``) and each of their moves must bring the unit closer to a friendly supply
source (:func:`retreat_distance`); normal, administrative and rail movement are allowed, no
enemy hex may be entered and no interception happens (19-A); every unit of those armies that
can still take a retreat step must have moved before the movement ends. Then each army rolls
a D6 for its losses (19-D): even, 1 loss; odd, 3 losses, which the owner distributes among
the army's corps. Armies that retreated during the opponent's turn may not react in that
turn (19-C, recorded in ``st["retreated"]``). Strategic retreat is not available in Fire or
Combined Doctrine (36.3); it stays available in the 1914 partial transition (36.2-A/B).

Rule 12 (Movement Doctrine only; its opening, 12-A, is missing from the seed). Reading chosen
(option ``strategic-retreat-12``, digest A-4, default ``12-activation-19-phase-start``): 12 is
a kind of army activation, chosen instead of an ordinary activation (action ``reform`` in the
activation choice, naming the reduced corps to reform): the army moves without attacking and
must end its movement out of contact with the enemy and no closer to the enemy lines than it
began (no unit nearer the nearest enemy stack), or not move at all if both already hold. The
power then receives 1 PR and spends it at once to restore the named reduced corps of the army
(12-B; 36.1 "reform a unit at no cost"). With ``19-only`` there is no separate rule 12: a
strategic retreat (19) in Movement Doctrine that ends out of contact and no closer to the
enemy also reforms one reduced corps of each such army (12-B), and 19-D's losses still apply.

Contact is judged from the truth when the reform is resolved: the mover sees only stack
markers, so the end of its movement is accepted when its units are not known to touch enemy
units, and a reveal event says so if they actually do (a decoy is not the enemy).

Rule 47 (Russian great retreat) is not implemented here; :data:`GREAT_RETREAT` is the hook the
rule will install, pushed for Russia at the start of its turn on the East front, after the
strategic retreats (47.1-A; the other moment, after a German or Austrian activation, is pushed
by the activation's aftermath step, :mod:`.aftermath`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.map.fronts import army_fronts
from grognard.rulesets.lgg1418.map.knowledge import known_unit_hexes
from grognard.rulesets.lgg1418.military import activation, movement
from grognard.rulesets.lgg1418.military.activation import activation_params, movement_candidates
from grognard.rulesets.lgg1418.military.campaign import obligated_armies
from grognard.rulesets.lgg1418.military.movement import has_moved
from grognard.rulesets.lgg1418.military.reinforcement import add_pr, pr
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.supply.isolation import take_loss
from grognard.rulesets.lgg1418.supply.supply import is_isolated, supply_sources
from grognard.rulesets.lgg1418.units import doctrine, fog
from grognard.rulesets.lgg1418.units.counters import command_army
from grognard.search.trace import trace_from_sources

if TYPE_CHECKING:
    from grognard.core.game import Game

GREAT_RETREAT = hooks.GREAT_RETREAT
STRATEGIC_KIND = "strategic-retreat"
REFORM_KIND = "reform"
#: Doctrines in which the Movement-Doctrine-only procedures (12, 14, 19) still exist: Movement,
#: and the 1914 partial transition (36.2-A "trenches" in October, 36.2-B "transition"), whose
#: lists of changes do not remove them; Fire Doctrine removes them (36.3).
MOVEMENT_FAMILY = ("movement", "trenches", "transition")


def movement_procedures(g: Game, nation: str, front: str | None) -> bool:
    """Are the Movement Doctrine procedures (12, 14, 16-C, 18, 19) open to ``nation`` on
    ``front``?"""
    return doctrine.doctrine(g, nation, front or M.WEST) in MOVEMENT_FAMILY


# ====================================================================== toward supply (19-A)
@implements("LGG 19-A")
def retreat_distance(g: Game, side: str) -> Any:
    """LGG 19-A: for every hex, the length of the shortest path to a friendly supply source (9-A)
    that enters no enemy stack marker and no prohibited hex (``inf`` where there is none).
    Computed from what the side sees (every enemy marker bars the way), so it reveals nothing;
    traced with the project's multi-source tracer (:mod:`grognard.search.trace`)."""

    def compute() -> Any:
        b = g.board
        sources, minor = supply_sources(g, side)
        enemy = M.enemy_present_hexes(g, side)
        starts = sorted(h for h in set(sources) | set(minor) if h not in enemy)
        if not starts:
            return np.full(b.n, np.inf)
        blocked = np.zeros(b.n, dtype=bool)
        for j in range(b.n):
            if j in enemy or mapdata.hex_impassable(g, j) or mapdata.is_neutral_hex(g, j):
                blocked[j] = True
        cost = _step_costs(g)
        res = trace_from_sources(b.nbr, cost, starts, blocked=blocked)
        return res.dist[: b.n]

    return M.memo(g, f"retreat-distance:{side}", compute)


def _step_costs(g: Game) -> Any:
    """1 per step, ``inf`` across an impassable hexside or off the map; kept for the game per
    weather (a frozen lake may be crossed, 7-C)."""
    key = "retreat-costs:" + repr(sorted(M.st(g).get("weather", {}).items()))
    cache = mapdata.static(g)
    if key not in cache:
        b = g.board
        cost = np.ones((b.n, 6))
        for u in range(b.n):
            for d in range(6):
                v = int(b.nbr[u, d])
                if v < 0 or mapdata.hexside_impassable(g, u, v):
                    cost[u, d] = np.inf
        cache[key] = cost
    return cache[key]


def _dist(g: Game, side: str, h: int) -> float:
    return float(retreat_distance(g, side)[h])


@implements("LGG 19-A")
def retreat_move_check(
    g: Game, act: dict[str, Any], members: list[Piece], j: int, mode: str, engage: bool
) -> None:
    """LGG 19-A / 12-A: the movement rules of a strategic retreat and of a reform (12).

    A strategic retreat enters no enemy hex and each step brings the units closer to a friendly
    supply source; a reforming army (12) attacks nobody."""
    kind = act.get("kind")
    if kind == REFORM_KIND and engage:
        raise IllegalAction("LGG 12-A", "an army reforming (strategic retreat, 12) may not attack")
    if kind != STRATEGIC_KIND:
        return
    if engage:
        raise IllegalAction("LGG 19-A", "no attack may take place during a strategic retreat")
    i = M.hex_of(g, members[0])
    assert i is not None
    if not _dist(g, act["side"], j) < _dist(g, act["side"], i):
        raise IllegalAction(
            "LGG 19-A",
            "a strategic retreat moves toward the army's supply sources: this hex is "
            "no closer to one",
        )


@implements("LGG 19-A")
def retreat_rail_check(g: Game, act: dict[str, Any], members: list[Piece], goal: int) -> None:
    """LGG 19-A: a rail move during a strategic retreat must end closer to a supply source."""
    if act.get("kind") != STRATEGIC_KIND:
        return
    i = M.hex_of(g, members[0])
    assert i is not None
    if not _dist(g, act["side"], goal) < _dist(g, act["side"], i):
        raise IllegalAction(
            "LGG 19-A", "a strategic retreat by rail must end closer to a supply source"
        )


def _army_movers(g: Game, act: dict[str, Any]) -> list[Piece]:

    out: list[Piece] = []
    for a in act["armies"]:
        out.extend(p for p in movement_candidates(g, a) if p.type != "decoy")
    return out


def _can_still_retreat(g: Game, act: dict[str, Any], p: Piece) -> bool:

    i = M.hex_of(g, p)
    if i is None or p.loc.kind != "hex":
        return False
    for j in g.board.neighbors(i):
        for mode in ("normal", "admin"):
            try:
                movement.check_move(g, act, [p], j, mode)
            except IllegalAction:
                continue
            return True
    return False


@implements("LGG 19-A", "LGG 12-A")
def retreat_end_check(g: Game, act: dict[str, Any]) -> tuple[str, str] | None:
    """LGG 19-A / 12-A: may the movement of a strategic retreat or of a reform end now?

    Strategic retreat: every unit of the designated armies has retreated at least one hex or
    can take no retreat step. Reform (12): no unit is known to be in contact with the enemy and
    none ended closer to the nearest enemy stack than it began - as long as a unit of the army
    can still move to mend it; once none can, the movement may end and the reform fails (12-A:
    the army did not end its movement out of contact and no closer to the enemy lines)."""
    kind = act.get("kind")
    if kind == STRATEGIC_KIND:
        for p in _army_movers(g, act):
            if has_moved(p, act["serial"]) or p.attrs.get("mv_stop"):
                continue
            if _can_still_retreat(g, act, p):
                return (
                    "LGG 19-A",
                    (
                        f"{p.id} has not retreated yet: the designated armies retreat by one or"
                        " more hexes"
                    ),
                )
        return None
    if kind == REFORM_KIND:
        for a in act["armies"]:
            why = reform_problem(g, a, known_only=True)
            if why and _army_can_still_move(g, act):
                return ("LGG 12-A", why)
    return None


def _army_can_still_move(g: Game, act: dict[str, Any]) -> bool:
    """Can a unit of the activated armies still take a step or a rail move?"""

    for p in _army_movers(g, act):
        if p.attrs.get("mv_act") == act["serial"] and p.attrs.get("mv_stop"):
            continue
        if _can_still_retreat(g, act, p) or (
            p.loc.kind == "hex" and movement.rail_options(g, act, [p])
        ):
            return True
    return False


# ====================================================================== rule 12
def _enemy_marker_distance(g: Game, side: str, h: int) -> float:
    enemy = M.enemy_present_hexes(g, side)
    return float(min((g.board.distance(h, e) for e in enemy), default=math.inf))


def _known_enemy_units(g: Game, side: str) -> set[int]:
    """Enemy hexes ``side`` knows hold units: fortress counters, fully observed stacks, and
    hexes revealed to hold units in this activation (:mod:`.knowledge`)."""

    return known_unit_hexes(g, side)


@implements("LGG 12-A")
def reform_problem(g: Game, army: str, known_only: bool) -> str | None:
    """LGG 12-A: why ``army``'s movement does not meet rule 12 (None when it does).

    Out of contact: no unit of the army next to a hex holding enemy units (``known_only``: the
    hexes the mover knows to hold units; otherwise the truth, decoys not counting). No closer
    to the enemy lines: no unit nearer the nearest enemy stack marker than where it began."""
    side = M.army_side(g, army)
    if side is None:
        return f"army {army} is not in play"
    enemy_units = _known_enemy_units(g, side) if known_only else M.enemy_blocking_hexes(g, side)

    for p in movement_candidates(g, army):
        if p.type == "decoy":
            continue
        h = M.hex_of(g, p)
        if h is None:
            continue
        touching = [k for k in g.board.neighbors(h) if k in enemy_units] + (
            [h] if h in enemy_units else []
        )
        if touching:
            return f"{p.id} is in contact with the enemy at {M.label(g, touching[0])}"
        start = p.attrs.get("mv_start")
        if start is not None and _enemy_marker_distance(g, side, h) < _enemy_marker_distance(
            g, side, int(start)
        ):
            return f"{p.id} moved closer to the enemy lines"
    return None


@implements("LGG 12-B", "LGG 5-B")
def reform_candidates(g: Game, army: str) -> list[Piece]:
    """LGG 12-B: the reduced corps of the army that the reform may restore (not isolated, 5-B)."""

    out = []
    for p in g.state.pieces.values():
        if (
            not M.is_corps(p)
            or p.face != "reduced"
            or "full" not in p.faces
            or command_army(g, p) != army
        ):
            continue
        if M.hex_of(g, p) is None or is_isolated(g, p, "pr"):
            continue
        out.append(p)
    return sorted(out, key=lambda p: p.id)


@implements("LGG 12-B")
def apply_reform(g: Game, army: str, unit: str | None, rule: str = "LGG 12-B") -> bool:
    """LGG 12-B: if the army really is out of contact (the truth), its power receives 1 PR and
    spends it at once to restore ``unit`` (or the first reduced corps of the army). Returns
    whether a unit was reformed; a refusal from hidden facts is a reveal event."""

    side = M.army_side(g, army) or ""
    why = reform_problem(g, army, known_only=False)
    if why:
        g.emit(
            "reform",
            f"army {army} cannot reform: {why}",
            rule="LGG 12-A",
            visible_to=[side],
            others=f"{side}: army {army} is in contact with the enemy and does not reform",
            reveal=True,
            army=army,
        )
        return False
    cands = {p.id: p for p in reform_candidates(g, army)}
    p = cands.get(unit) if unit else next(iter(cands.values()), None)
    if p is None:
        fog.emit_private(
            g, side, "reform", f"army {army} has no reduced corps to reform", None, rule=rule
        )
        return False
    add_pr(g, p.nation, 1, rule, f"strategic retreat of army {army}")
    pr(g, p.nation)["stock"] = int(pr(g, p.nation)["stock"]) - 1
    M.set_face(g, p, "full")
    fog.emit_private(
        g,
        side,
        "reform",
        f"{p.id} is reformed with that PR (army {army})",
        f"{side}: army {army} reforms a unit",
        rule=rule,
    )
    return True


class ReformChoice(hooks.ActivationChoiceActions):
    """LGG 12-A (option default): ``reform`` - activate an army to reform one reduced corps.

    A handler of the activation choice: ``{"type": "reform", "army": a, "unit": corps}``.
    Offered in Movement Doctrine when the army has a reduced corps to reform."""

    @handles.options("reform")
    def reform_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        if (
            g.opt("strategic-retreat-12") != "12-activation-19-phase-start"
            or f.params.get("restrict") is not None
        ):
            return []
        front = f.params.get("front")
        main = activation.main_army_required(g, side, front)
        out: list[Action] = []
        for a in activation.activatable(g, side, front, None):
            if main and a != main:
                continue
            if not movement_procedures(g, M.army_nation(g, a), front):
                continue
            for p in reform_candidates(g, a):
                out.append({"type": "reform", "side": side, "army": a, "unit": p.id})
        return out

    @handles.check("reform")
    def check_reform(self, g: Game, f: Frame, action: Action) -> None:
        if g.opt("strategic-retreat-12") != "12-activation-19-phase-start":
            raise IllegalAction(
                "LGG 12-A", "rule 12 is read as part of rule 19 (option strategic-retreat-12)"
            )
        if f.params.get("restrict") is not None:
            raise IllegalAction("LGG 12-A", "no reform during the pre-turn")
        army = str(action.get("army"))
        if army not in M.army_defs(g) or M.army_side(g, army) != action["side"]:
            raise IllegalAction("LGG 12-A", f"{army!r} is not one of your armies")
        if not movement_procedures(g, M.army_nation(g, army), f.params.get("front")):
            raise IllegalAction(
                "LGG 12", "strategic retreat to reform (12) exists only in Movement Doctrine"
            )
        if action.get("unit") not in {p.id for p in reform_candidates(g, army)}:
            raise IllegalAction(
                "LGG 12-B", "name a reduced corps of the army (on the map, not isolated) to reform"
            )
        self.check_armies(g, f, action, [str(action["army"])])

    @handles.apply("reform")
    def apply_reform(self, g: Game, f: Frame, action: Action) -> None:
        g.emit(
            "reform-declared",
            f"{action['side']}: army {action['army']} makes a strategic retreat to reform (12)",
            rule="LGG 12-A",
            army=action["army"],
        )
        self.activation_chosen(
            g, f, action, [action["army"]], {"kind": REFORM_KIND, "reform_unit": action["unit"]}
        )


# ====================================================================== rule 19
@implements("LGG 19-A", "LGG 19-B", "LGG 19-C", "LGG 36.3", "LGG [11.4-X]")
def why_not_retreat(g: Game, side: str, front: str, army: str, own_turn: bool) -> str | None:
    """LGG 19-A / 19-B / 19-C / 36.3: why ``army`` may not make a strategic retreat now."""
    if army not in M.army_defs(g) or M.army_side(g, army) != side:
        return f"{army!r} is not one of your armies"
    if not M.army_formed(g, army) or M.army_hq_hex(g, army) is None:
        return f"army {army} is not in play on the map"
    if front not in army_fronts(g, army):
        return f"army {army} is not on the {front} front"
    if not movement_procedures(g, M.army_nation(g, army), front):
        return "strategic retreat no longer exists in Fire Doctrine (36.3)"
    if retreated_this_turn(g, army, "retreated") or retreated_this_turn(g, army, "retreated_own"):
        return f"army {army} has already made a strategic retreat this turn"
    if own_turn and int(M.st(g).get("activated", {}).get(army, 0)) > 0:
        return f"army {army} has already been activated this turn"

    if army in obligated_armies(g, side):
        return f"in August 1914 army {army} must attack ([11.4-X], 16.7-B)"
    return None


def retreated_this_turn(g: Game, army: str, key: str = "retreated") -> bool:
    """Did ``army`` make a strategic retreat this turn (``retreated``: in the opponent's turn,
    19-C; ``retreated_own``: in its own turn, 19-B)?"""
    return M.st(g).get(key, {}).get(army) == M.turn_index(g)


def retreat_candidates(g: Game, side: str, front: str, own_turn: bool) -> list[str]:
    return [
        a
        for a in sorted(M.armies_of(g, side))
        if why_not_retreat(g, side, front, a, own_turn) is None
    ]


@implements("LGG 19-A", "LGG 19-B", "LGG 19-C", "LGG 19-D", "LGG 47")
class StrategicRetreat(Step):
    """LGG 19-A / 19-B / 19-C / 19-D: the strategic retreats at the start of a military turn.

    Children: the opponent's declaration (19-C) and its retreat with its losses, then the
    active side's (19-B), then the Russian great-retreat hook (47.1-A) when installed."""

    name = hooks.STRATEGIC_RETREAT
    title = "Strategic retreats"
    rule = "LGG 19-A"
    composite = True

    def label(self, g: Game, f: Frame) -> str:
        return f"Strategic retreats ({f.params['front']} front)"

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        p = f.params
        side, front = p["side"], p["front"]
        plan = p.setdefault(
            "_plan", [["declare", M.other_side(side), False], ["declare", side, True]]
        )
        while plan:
            stage, who, own = plan.pop(0)
            if stage == "declare":
                if not retreat_candidates(g, who, front, own):
                    continue
                return "retreat-declaration", {"side": who, "front": front, "own": own}
            if stage == "move":
                armies = list(p.pop("_armies"))
                plan.insert(0, ["after", who, own])
                p["_moving"] = {"armies": armies, "side": who, "own": own}
                return self._activation(g, who, front, armies, own)
            if stage == "after":
                mv = p.pop("_moving")
                self._after_movement(g, mv["side"], mv["armies"], mv["own"], front)
                for a in mv["armies"]:
                    plan.insert(0, ["losses", a, mv["own"]])
                continue
            if stage == "losses":
                if g.opt("strategic-retreat-12") == "19-only" and movement_procedures(
                    g, M.army_nation(g, who), front
                ):
                    plan.insert(0, ["losses-only", who, own])
                    return "reform-choice", {"army": who}
                return "retreat-losses", {"army": who}
            if stage == "losses-only":
                return "retreat-losses", {"army": who}
        if (
            not p.get("_great")
            and front == M.EAST
            and side == M.ENTENTE
            and "RU" in M.powers_of(g, side)
        ):
            p["_great"] = True
            h = hooks.child(
                g, GREAT_RETREAT, {"side": side, "front": front, "moment": "start-of-turn"}
            )
            if h:
                return h
        return None

    def declared(self, g: Game, f: Frame, who: str, armies: list[str], own: bool) -> None:
        """Called by the declaration step: queue the movement of the designated armies."""
        f.params["_armies"] = armies
        f.params["_plan"].insert(0, ["move", who, own])

    def _activation(
        self, g: Game, side: str, front: str, armies: list[str], own: bool
    ) -> tuple[str, dict[str, Any]]:

        params = activation_params(g, side, armies, front)
        params["pre_turn"] = False
        params["coordinated"] = len(armies) > 1
        params["extra"] = {"kind": STRATEGIC_KIND, "own_turn": own}
        return "army-activation", params

    def _after_movement(self, g: Game, side: str, armies: list[str], own: bool, front: str) -> None:
        s = M.st(g)
        key = "retreated_own" if own else "retreated"
        for a in armies:
            s.setdefault(key, {})[a] = M.turn_index(g)
            if not own:
                # 19-C: a retreat in the opponent's turn is not one of the army's own activations.
                n = int(s.get("activated", {}).get(a, 0)) - 1
                s.setdefault("activated", {})[a] = max(0, n)
        M.touch(g)


@implements("LGG 19-A", "LGG 19-B", "LGG 19-C")
class RetreatDeclaration(LggStep):
    """LGG 19-A: a side designates the armies that make a strategic retreat (or none).

    Actions: ``strategic-retreat`` with ``armies`` (any non-empty set of eligible armies), or
    ``no-retreat``."""

    name = "retreat-declaration"
    title = "Strategic retreat declaration"
    rule = "LGG 19-A"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: strategic retreat?"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    @handles.options("no-retreat")
    def no_retreat_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "no-retreat", "side": side}]

    @handles.options("strategic-retreat")
    def retreat_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        cands = retreat_candidates(g, side, f.params["front"], f.params["own"])
        out: list[Action] = [
            {"type": "strategic-retreat", "side": side, "armies": [a]} for a in cands
        ]
        if len(cands) > 1:
            out.append({"type": "strategic-retreat", "side": side, "armies": cands})
        return out

    @handles.check("no-retreat")
    def check_no_retreat(self, g: Game, f: Frame, action: Action) -> None:
        return

    @handles.check("strategic-retreat")
    def check_retreat(self, g: Game, f: Frame, action: Action) -> None:
        armies = action.get("armies")
        if not isinstance(armies, list) or not armies or len(set(armies)) != len(armies):
            raise IllegalAction("LGG 19-A", "name one or more different armies")
        for a in armies:
            why = why_not_retreat(g, action["side"], f.params["front"], str(a), f.params["own"])
            if why:
                raise IllegalAction("LGG 19-A", why)

    @handles.apply("no-retreat")
    def apply_no_retreat(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("strategic-retreat")
    def apply_retreat(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)
        side = action["side"]
        armies = sorted(str(a) for a in action["armies"])
        g.emit(
            "strategic-retreat",
            f"{side}: strategic retreat of {', '.join(armies)}"
            + (" (own turn, 19-B)" if f.params["own"] else " (during the opponent's turn, 19-C)"),
            rule="LGG 19-B" if f.params["own"] else "LGG 19-C",
            side=side,
            armies=armies,
        )
        parent = next(
            fr
            for fr in reversed(g.state.frames)
            if fr.step == hooks.STRATEGIC_RETREAT and not fr.done
        )
        step = g.steps[hooks.STRATEGIC_RETREAT]
        assert isinstance(step, StrategicRetreat)
        step.declared(g, parent, side, armies, bool(f.params["own"]))


def _loss_candidates(g: Game, army: str) -> list[Piece]:
    out = []
    for p in g.state.pieces.values():
        if M.is_corps(p) and command_army(g, p) == army and M.hex_of(g, p) is not None:
            out.append(p)
    return sorted(out, key=lambda p: p.id)


@implements("LGG 19-D")
class RetreatLosses(LggStep):
    """LGG 19-D: each army making a strategic retreat rolls a D6: even, 1 loss; odd, 3 losses;
    the owner distributes them among the army's corps (``retreat-loss`` naming a corps)."""

    name = "retreat-losses"
    title = "Strategic retreat losses"
    rule = "LGG 19-D"

    def enter(self, g: Game, f: Frame) -> None:
        army = f.params["army"]
        r = g.roll("d6", f"strategic retreat losses of army {army}", "LGG 19-D")
        n = 1 if r.natural % 2 == 0 else 3
        f.params["left"] = n
        g.emit(
            "retreat-losses",
            f"army {army} takes {n} loss{'es' if n > 1 else ''} in its strategic retreat",
            rule="LGG 19-D",
            army=army,
            losses=n,
        )

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        if int(f.params.get("left", 0)) <= 0 or not _loss_candidates(g, f.params["army"]):
            return []
        return [M.army_side(g, f.params["army"]) or ""]

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    @handles.options("retreat-loss")
    def retreat_loss_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [
            {"type": "retreat-loss", "side": side, "unit": p.id}
            for p in _loss_candidates(g, f.params["army"])
        ]

    @handles.check("retreat-loss")
    def check_retreat_loss(self, g: Game, f: Frame, action: Action) -> None:
        if action.get("unit") not in {p.id for p in _loss_candidates(g, f.params["army"])}:
            raise IllegalAction(
                "LGG 19-D",
                f"{action.get('unit')!r} is not a corps of army {f.params['army']} in play",
            )

    @handles.apply("retreat-loss")
    def apply_retreat_loss(self, g: Game, f: Frame, action: Action) -> None:

        take_loss(g, g.state.pieces[action["unit"]], "LGG 19-D", "strategic retreat")
        f.params["left"] = int(f.params["left"]) - 1
        if f.params["left"] <= 0 or not _loss_candidates(g, f.params["army"]):
            g.finish(f)


@implements("LGG 12-B")
class ReformChoiceStep(LggStep):
    """LGG 12-B under the option ``19-only``: after a strategic retreat in Movement Doctrine that
    ended out of contact and no closer to the enemy, the owner picks the reduced corps to reform."""

    name = "reform-choice"
    title = "Reform after a strategic retreat"
    rule = "LGG 12-B"

    def _ok(self, g: Game, f: Frame) -> bool:
        army = f.params["army"]
        return (
            bool(reform_candidates(g, army)) and reform_problem(g, army, known_only=False) is None
        )

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [M.army_side(g, f.params["army"]) or ""] if self._ok(g, f) else []

    def run(self, g: Game, f: Frame) -> None:
        army = f.params["army"]
        if reform_candidates(g, army):
            apply_reform(g, army, None)
        g.finish(f)

    @handles.options("reform-unit")
    def reform_unit_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [
            {"type": "reform-unit", "side": side, "unit": p.id}
            for p in reform_candidates(g, f.params["army"])
        ]

    @handles.check("reform-unit")
    def check_reform_unit(self, g: Game, f: Frame, action: Action) -> None:
        if action.get("unit") not in {p.id for p in reform_candidates(g, f.params["army"])}:
            raise IllegalAction("LGG 12-B", "name a reduced corps of the army to reform")

    @handles.apply("reform-unit")
    def apply_reform_unit(self, g: Game, f: Frame, action: Action) -> None:
        apply_reform(g, f.params["army"], str(action["unit"]))
        g.finish(f)


STEPS: tuple[type[Step], ...] = (
    StrategicRetreat,
    RetreatDeclaration,
    RetreatLosses,
    ReformChoiceStep,
)
