"""The military phase and army activations (LGG 3-C military phase, [11.1-A], 11.3, 10-D, [11.4-X]).

Military phase: for each front in play (East first, 6-B), the side that moves first there
plays its military turn, then the other side. A side's military turn on a front: the
strategic-retreat hook (19), then activations one at a time - the side's main army on that
front first (5-F), each activation a single army or, after a successful coordination test,
up to 4 armies together (11.3) - until the side ends its turn. Between two activations (after
the first, before the next) the opponent's reaction hook opens (20). After every front, each
side's autonomous units (21).

An activation: the army's (or armies') units move (:class:`ActivationMovement`); the
end-of-movement placement cures stacking breaches (10-D) and stops in an ally's capital
(11.1-E); then, when some hex holds both sides, the enemy-reinforcement hook (14) and the
battle hook ``army-battles`` (16-18) run. **Until the battle procedure is installed, an
activation ends after movement, and moves into enemy-occupied hexes are refused.**

The August 1914 pre-turn (3-B) is a military phase limited to the armies the scenario lists.
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
from grognard.rulesets.lgg1418.map import knowledge, mapdata
from grognard.rulesets.lgg1418.map.fronts import army_fronts, front_order
from grognard.rulesets.lgg1418.military import campaign, movement
from grognard.rulesets.lgg1418.military.interception import after_move
from grognard.rulesets.lgg1418.military.reinforcement import (
    apply_conversion,
    check_conversion,
    conversion_actions,
    eliminate,
)
from grognard.rulesets.lgg1418.military.stacking import Problem, hex_problems, rearward_hexes
from grognard.rulesets.lgg1418.model import SideTurnRecord, open_side_turn, side_turn_state
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.supply.isolation import judge_armies
from grognard.rulesets.lgg1418.supply.supply import is_supplied
from grognard.rulesets.lgg1418.units import fog
from grognard.rulesets.lgg1418.units.counters import command_army

if TYPE_CHECKING:
    from grognard.core.game import Game


# ====================================================================== military phase
@implements("LGG 3-C")
class MilitaryPhase(Step):
    """LGG 3-C / 6-B: the military phase - each front in turn, then the autonomous units (21)."""

    name = "military-phase"
    title = "Military phase"
    rule = "LGG 3-C"
    composite = True

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        plan: list[tuple[str, dict[str, Any]]] = [
            ("front-military", {"front": fr}) for fr in front_order(g)
        ]
        for side in M.SIDES:
            h = hooks.child(g, hooks.AUTONOMOUS_UNITS, {"side": side})
            if h:
                plan.append(h)
        i = int(f.params.get("_i", 0))
        if i >= len(plan):
            return None
        f.params["_i"] = i + 1
        return plan[i]


@implements("LGG 6-B")
class FrontMilitary(Step):
    """LGG 6-B: on one front, the first mover plays its military turn, then the other side."""

    name = "front-military"
    title = "Front"
    rule = "LGG 6-B"
    composite = True

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['front']} front"

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        front = f.params["front"]
        first = M.st(g).get("first_mover", {}).get(front) or M.SIDES[0]
        order = [first, M.other_side(first)]
        i = int(f.params.get("_i", 0))
        if i >= 2:
            return None
        f.params["_i"] = i + 1
        return "side-turn", {"side": order[i], "front": front}


class SideTurn(Step):
    """A side's military turn on a front (or its pre-turn): strategic retreat hook, then
    activations."""

    name = "side-turn"
    title = "Military turn"
    rule = "LGG 3-C"
    composite = True

    def label(self, g: Game, f: Frame) -> str:
        where = f"{f.params['front']} front" if f.params.get("front") else "pre-turn"
        return f"{f.params['side']} military turn ({where})"

    def enter(self, g: Game, f: Frame) -> None:
        open_side_turn(g, f.params["side"], f.params.get("front"))

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        side, front = f.params["side"], f.params.get("front")
        if not f.params.get("retreat_offered") and front:
            f.params["retreat_offered"] = True
            h = hooks.child(g, hooks.STRATEGIC_RETREAT, {"side": side, "front": front})
            if h:
                return h
        if side_turn_state(g, side, front).ended:
            if front and not f.params.get("end_offered"):
                f.params["end_offered"] = True
                return hooks.child(g, hooks.END_OF_MILITARY_TURN, {"side": side, "front": front})
            return None
        return "choose-activation", {
            "side": side,
            "front": front,
            "restrict": f.params.get("restrict"),
        }


# ====================================================================== choosing activations
def activatable(g: Game, side: str, front: str | None, restrict: list[str] | None) -> list[str]:
    """Armies ``side`` may activate now on ``front`` (formed, HQ on the map on that front, not yet
    activated in its own turns this turn)."""
    out = []
    for a in sorted(M.armies_of(g, side)):
        if restrict is not None and a not in restrict:
            continue
        if not M.army_formed(g, a) or M.army_hq_hex(g, a) is None:
            continue
        if front is not None and front not in army_fronts(g, a):
            continue
        if int(M.st(g).get("activated", {}).get(a, 0)) > 0:
            continue
        out.append(a)
    return out


@implements("LGG 5-F")
def main_army_required(g: Game, side: str, front: str | None) -> str | None:
    """LGG 5-F: the main army that must be the first activated on this front, if any is due."""
    if front is None:
        return None
    st = side_turn_state(g, side, front)
    if st.done > 0:
        return None
    main = M.main_army(g, side, front)
    if main and main in activatable(g, side, front, None):
        return main
    return None


@implements("LGG 3-C", "LGG 5-F", "LGG 11.3", "LGG [11.4-X]")
class ChooseActivation(hooks.ActivationChoiceActions):
    """LGG 3-C / 5-F / 11.3 / [11.4-X]: the active side picks its next activation or ends its turn.

    The main army goes first (5-F); two to four armies may try a coordination test (11.3); in
    August 1914 the armies a war plan obliges to attack must be activated ([11.4-X]). Choosing
    an activation after the first opens the opponent's reaction hook (20) before it starts.
    """

    name = "choose-activation"
    title = "Choice of activation"
    rule = "LGG 3-C"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: next activation"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    @handles.options("activate")
    def activate_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        front, restrict = f.params.get("front"), f.params.get("restrict")
        main = main_army_required(g, side, front)
        return [
            {"type": "activate", "side": side, "army": a}
            for a in activatable(g, side, front, restrict)
            if not main or a == main
        ]

    @handles.options("coordinate")
    def coordinate_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        front, restrict = f.params.get("front"), f.params.get("restrict")
        armies = activatable(g, side, front, restrict)
        main = main_army_required(g, side, front)
        out: list[Action] = []
        if restrict is None and len(armies) >= 2:
            for k in (2, 3, 4):
                if k > len(armies) or (k > 2 and len(armies) > 6):
                    break
                for combo in combinations(armies, k):
                    if main and main not in combo:
                        continue
                    try:
                        movement.check_coordination(g, side, list(combo))
                    except IllegalAction:
                        continue
                    out.append({"type": "coordinate", "side": side, "armies": list(combo)})
        return out

    @handles.options("end-turn")
    def end_turn_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        if self._end_problem(g, f, side) is None:
            return [{"type": "end-turn", "side": side}]
        return []

    def _end_problem(self, g: Game, f: Frame, side: str) -> str | None:
        pending = campaign.unmet_attack_obligations(g, side, f.params.get("front"))
        if pending:
            return f"in August 1914 the war plan obliges {', '.join(pending)} to attack"
        return None

    @handles.check("end-turn")
    def check_end_turn(self, g: Game, f: Frame, action: Action) -> None:
        why = self._end_problem(g, f, action["side"])
        if why:
            raise IllegalAction("LGG [11.4-X]", why)

    @handles.check("activate")
    def check_activate(self, g: Game, f: Frame, action: Action) -> None:
        self.check_armies(g, f, action, [action["army"]])

    @handles.check("coordinate")
    def check_coordinate(self, g: Game, f: Frame, action: Action) -> None:
        armies = list(action["armies"])
        self.check_armies(g, f, action, armies)
        if f.params.get("restrict") is not None:
            raise IllegalAction("LGG 3-B", "the pre-turn armies activate one by one")
        movement.check_coordination(g, action["side"], armies)

    def check_armies(self, g: Game, f: Frame, action: Action, armies: list[str]) -> None:
        """LGG 3-C / 5-F: the armies an action activates may be activated now, the main army
        among them when it is due."""
        front, restrict = f.params.get("front"), f.params.get("restrict")
        ok = activatable(g, action["side"], front, restrict)
        for a in armies:
            if a not in ok:
                raise IllegalAction(
                    "LGG 3-C",
                    f"army {a} cannot be activated now (not yours, not on this front, "
                    "not in play or already activated this turn)",
                )
        main = main_army_required(g, action["side"], front)
        if main and main not in armies:
            raise IllegalAction(
                "LGG 5-F", f"the main army ({main}) must be the first activated on this front"
            )

    @handles.apply("end-turn")
    def apply_end_turn(self, g: Game, f: Frame, action: Action) -> None:
        side, front = action["side"], f.params.get("front")
        st = open_side_turn(g, side, front)
        st.ended = True
        M.touch(g)
        g.emit(
            "end-turn",
            f"{side} ends its military turn" + (f" on the {front} front" if front else ""),
            rule="LGG 3-C",
        )
        g.finish(f)

    @handles.apply("activate")
    def apply_activate(self, g: Game, f: Frame, action: Action) -> None:
        self.activation_chosen(g, f, action, [action["army"]], {})

    @handles.apply("coordinate")
    def apply_coordinate(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        open_side_turn(g, side, f.params.get("front"))
        armies = list(action["armies"])
        if not movement.coordination_roll(g, side, armies):
            g.finish(f)
            return
        self.activation_chosen(g, f, action, armies, {})

    def activation_chosen(
        self, g: Game, f: Frame, action: Action, armies: list[str], extra: dict[str, Any]
    ) -> None:
        side, front = action["side"], f.params.get("front")
        st = open_side_turn(g, side, front)
        g.finish(f)
        if armies:
            self._start(g, side, front, armies, st, extra)

    def _start(
        self,
        g: Game,
        side: str,
        front: str | None,
        armies: list[str],
        st: SideTurnRecord,
        extra: dict[str, Any],
    ) -> None:
        act_front = front or (army_fronts(g, armies[0]) or [None])[0]  # type: ignore[list-item]
        params = activation_params(g, side, armies, act_front)
        params["pre_turn"] = front is None
        if extra:
            params["extra"] = extra
        g.push("army-activation", params)
        if st.done > 0 and act_front:
            hooks.offer(
                g,
                hooks.REACTION,
                {
                    "side": M.other_side(side),
                    "active": side,
                    "front": act_front,
                    "pre_turn": front is None,
                },
            )
        st.done += 1
        M.touch(g)


def activation_params(
    g: Game, side: str, armies: list[str], front: str | None, reaction: bool = False
) -> dict[str, Any]:
    """Parameters of a new ``army-activation`` frame (a fresh activation serial). The reaction
    rules (20) push ``("army-activation", activation_params(g, side, [army], front, True))``."""
    serial = int(M.st(g).get("act_serial", 0)) + 1
    M.st(g)["act_serial"] = serial
    M.touch(g)
    return {
        "side": side,
        "front": front,
        "armies": list(armies),
        "serial": serial,
        "reaction": reaction,
        "pre_turn": front is None and not reaction,
        "coordinated": len(armies) > 1,
    }


# ====================================================================== the activation
@implements("LGG 3-C", "LGG 5-F")
class ArmyActivation(Step):
    """LGG 3-C: one activation - movement, end-of-movement placement, enemy reinforcement and
    battles (hooks), then the units' movement records are cleared. Also used for reactions
    (``reaction = true``, pushed by rule 20)."""

    name = "army-activation"
    title = "Army activation"
    rule = "LGG 3-C"
    composite = True

    def label(self, g: Game, f: Frame) -> str:
        if not f.params["armies"]:
            return "Activation of the autonomous units"
        return f"Activation of {', '.join(f.params['armies'])}"

    def enter(self, g: Game, f: Frame) -> None:
        p = f.params
        act = {
            "serial": p["serial"],
            "side": p["side"],
            "front": p.get("front"),
            "armies": list(p["armies"]),
            "reaction": bool(p.get("reaction")),
            "breakthrough": False,
            "pre_turn": bool(p.get("pre_turn")),
            "coordinated": bool(p.get("coordinated")),
        }
        act.update(p.get("extra", {}))
        M.st(g)["activation"] = act
        if hooks.installed(g, hooks.ISOLATION_ATTRITION):  # 22-A: isolation is judged at activation
            judge_armies(g, act["armies"])
        counts = M.st(g).setdefault(
            "activated" if not act["reaction"] else "reaction_activated", {}
        )
        stale = M.st(g).setdefault("main_army_stale", [])
        for a in act["armies"]:
            counts[a] = int(counts.get(a, 0)) + 1
            if a in stale:
                stale.remove(a)
                g.emit("main-army", f"{a} is no longer a main army", rule="LGG 5-F")
        for a in act["armies"]:
            for u in movement_candidates(g, a):
                h = M.hex_of(g, u)
                inside = h is not None and movement.in_command_range(g, a, h)
                M.set_attr(g, u, "mv_inrange", inside or u.type == "hq")
        M.touch(g)
        kind = "reaction" if act["reaction"] else "activation"
        g.emit(
            "activation",
            f"{p['side']}: {kind} of {', '.join(act['armies'])}",
            rule="LGG 3-C",
            side=p["side"],
            armies=act["armies"],
            serial=act["serial"],
            reaction=act["reaction"],
        )

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        stage = f.params.get("stage", "move")
        p = f.params
        if stage == "move":
            p["stage"] = "reinforce"
            return "activation-movement", {"side": p["side"], "serial": p["serial"]}
        hexes = battle_hexes(g, p["side"])
        if stage == "reinforce":
            p["stage"] = "battle"
            if hexes:
                h = hooks.child(
                    g,
                    hooks.ENEMY_REINFORCEMENT,
                    {
                        "side": M.other_side(p["side"]),
                        "attacker": p["side"],
                        "hexes": [g.board.label(i) for i in hexes],
                        "activation": p["serial"],
                    },
                )
                if h:
                    return h
            return self.next_child(g, f)
        if stage == "battle":
            p["stage"] = "aftermath"
            if hexes:
                h = hooks.child(
                    g,
                    hooks.BATTLES,
                    {
                        "side": p["side"],
                        "armies": p["armies"],
                        "hexes": [g.board.label(i) for i in hexes],
                        "activation": p["serial"],
                    },
                )
                if h:
                    return h
            return self.next_child(g, f)
        if stage == "aftermath":
            p["stage"] = "done"
            return hooks.child(
                g,
                hooks.AFTERMATH,
                {
                    "side": p["side"],
                    "armies": p["armies"],
                    "activation": p["serial"],
                    "kind": (p.get("extra") or {}).get("kind"),
                },
            )
        return None

    def leave(self, g: Game, f: Frame) -> None:
        movement.clear_activation_attrs(g, f.params["serial"])
        M.st(g)["activation"] = None
        M.touch(g)
        g.emit(
            "activation-end",
            f"end of the activation of {', '.join(f.params['armies'])}",
            rule="LGG 3-C",
        )


def battle_hexes(g: Game, side: str) -> list[int]:
    """Hexes where ``side``'s units stand with enemy pieces (other than besieged fortresses); units
    shut in a fortress never attack from it (23-B, 23-D)."""
    mine = M.occupied(g, side)
    out = []
    for i in sorted(mine):
        fighters = [
            p for p in mine[i] if M.is_unit(p) and not M.in_reserve(p) and not _in_fortress(g, p)
        ]
        if fighters and movement.enemy_stack_at(g, side, i):
            out.append(i)
    return out


def _in_fortress(g: Game, p: Piece) -> bool:
    c = M.carrier(g, p)
    while c is not None:
        if c.type == "fortress":
            return True
        c = M.carrier(g, c)
    return False


def movement_candidates(g: Game, army: str) -> list[Piece]:
    out = []
    for p in g.state.pieces.values():
        if (
            p.type in movement.MOVERS
            and command_army(g, p) == army
            and M.on_map(g, p)
            and not M.in_reserve(p)
        ):
            out.append(p)
    return sorted(out, key=lambda p: p.id)


# ====================================================================== movement step
@implements("LGG [11.1-A]", "LGG 11.1-C", "LGG 11.4-A", "LGG 4-B", "LGG 5-D", "LGG 8-A")
class ActivationMovement(fog.BoxActions):
    """LGG [11.1-A] / 11.1-C / 11.4 / 4-B / 5-D / 8-A: the activated units move.

    Actions: ``move`` (units on one hex into an adjacent hex, ``mode`` normal or admin),
    ``rail`` (to a rail hex), ``convert`` (captured rail), ``deploy-reserve`` (an HQ's reserve
    unit onto its hex), the box actions of 4-B, PR conversions (5-D), ``end-movement``.
    After every hex entered other than by rail in the ZoC of an enemy able to intercept, the
    interception hook opens for that enemy (8-A; 11.4-A: never after rail movement).
    """

    name = "activation-movement"
    title = "Movement"
    rule = "LGG [11.1-A]"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']} movement"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def _act(self, g: Game) -> dict[str, Any]:
        act = M.st(g).get("activation")
        assert act is not None
        return act

    # ---------------------------------------------------------------- listing
    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return M.memo(g, f"move-actions:{side}", lambda: self._list(g, side))

    def _list(self, g: Game, side: str) -> list[Action]:
        act = self._act(g)
        out: list[Action] = []
        groups: dict[int, list[Piece]] = {}
        for p in movement.movable_units(g, act):
            groups.setdefault(int(p.loc.ref), []).append(p)
        for i, units in sorted(groups.items()):
            options = [units] + ([[u] for u in units] if len(units) > 1 else [])
            for grp in options:
                ids = [u.id for u in grp]
                for j in g.board.neighbors(i):
                    for mode in ("normal", "admin"):
                        try:
                            movement.check_move(g, act, grp, j, mode)
                        except IllegalAction:
                            continue
                        out.append(
                            {
                                "type": "move",
                                "side": side,
                                "units": ids,
                                "to": g.board.label(j),
                                "mode": mode,
                            }
                        )
                for j in movement.rail_options(g, act, grp):
                    out.append({"type": "rail", "side": side, "units": ids, "to": g.board.label(j)})
            for u in units:
                if M.is_infantry(u):
                    for hexes in _conversion_options(g, u, i):
                        try:
                            movement.check_convert(g, act, u, hexes)
                        except IllegalAction:
                            continue
                        out.append(
                            {
                                "type": "convert",
                                "side": side,
                                "unit": u.id,
                                "hexes": [g.board.label(h) for h in hexes],
                            }
                        )
        for a in act["armies"]:
            hq = M.hq_piece(g, a)
            if hq is None or not M.on_map(g, hq):
                continue
            for q in g.state.contents(hq.id):
                if M.in_reserve(q) and M.is_unit(q):
                    out.append({"type": "deploy-reserve", "side": side, "unit": q.id})
        out.extend(fog.box_actions(g, side, set(act["armies"])))
        out.extend(conversion_actions(g, side))
        if campaign.attack_obligation_problem(g, act) is None and not any(
            chk(g, act) for chk in hooks.extensions(g).end_movement_checks()
        ):
            out.append({"type": "end-movement", "side": side})
        return out

    # ---------------------------------------------------------------- checking
    @handles.check("end-movement")
    def check_end_movement(self, g: Game, f: Frame, action: Action) -> None:
        act = self._act(g)
        why = campaign.attack_obligation_problem(g, act)
        if why:
            raise IllegalAction("LGG [11.4-X]", why)
        for chk in hooks.extensions(g).end_movement_checks():
            problem = chk(g, act)
            if problem:
                raise IllegalAction(*problem)

    @handles.check("move")
    def check_move(self, g: Game, f: Frame, action: Action) -> None:
        act = self._act(g)
        units, j = self._units_and_target(g, act, action)
        mode = action.get("mode", "normal")
        if mode not in ("normal", "admin"):
            raise IllegalAction("LGG 11.2", "mode is normal or admin")
        movement.check_move(g, act, units, j, str(mode))

    @handles.check("rail")
    def check_rail(self, g: Game, f: Frame, action: Action) -> None:
        act = self._act(g)
        units, j = self._units_and_target(g, act, action)
        movement.check_rail(g, act, units, j)

    @handles.check("convert")
    def check_convert(self, g: Game, f: Frame, action: Action) -> None:
        act = self._act(g)
        p = self._own_mover(g, act, action.get("unit"))
        hexes = action.get("hexes")
        if not isinstance(hexes, list) or not all(
            isinstance(h, str) and g.board.has_label(h) for h in hexes
        ):
            raise IllegalAction("LGG 11.4-D", "name the rail hexes to convert by their labels")
        movement.check_convert(g, act, p, [g.board.idx(h) for h in hexes])

    @handles.check("deploy-reserve")
    def check_deploy_reserve(self, g: Game, f: Frame, action: Action) -> None:
        act = self._act(g)
        p = g.state.pieces.get(str(action.get("unit", "")))
        c = M.carrier(g, p) if p else None
        if (
            p is None
            or p.side != action["side"]
            or c is None
            or c.type != "hq"
            or not M.in_reserve(p)
            or str(c.attrs.get("army")) not in act["armies"]
            or not M.on_map(g, c)
        ):
            raise IllegalAction(
                "LGG 16-B",
                "only a reserve unit of an activated HQ may be deployed into its hex",
            )

    def box_armies(self, g: Game, f: Frame) -> set[str] | None:
        return set(self._act(g)["armies"])

    @handles.check("convert-pr")
    def check_convert_pr(self, g: Game, f: Frame, action: Action) -> None:
        check_conversion(g, action)

    def _own_mover(self, g: Game, act: dict[str, Any], uid: Any) -> Piece:
        p = g.state.pieces.get(str(uid))
        if p is None or p.side != act["side"]:
            raise IllegalAction("LGG [11.1-A]", f"you have no unit {uid!r}")
        if p not in movement.movable_units(g, act):
            raise IllegalAction(
                "LGG [11.1-A]",
                f"{p.id} is not a unit of the activated army free to move "
                "(commanded by it, on the map, not in a reserve, movement not ended)",
            )
        return p

    def _units_and_target(
        self, g: Game, act: dict[str, Any], action: Action
    ) -> tuple[list[Piece], int]:
        ids = action.get("units")
        if not isinstance(ids, list) or not ids:
            raise IllegalAction("LGG [11.1-A]", "name the units that move")
        units = [self._own_mover(g, act, u) for u in ids]
        if len({u.loc for u in units}) != 1:
            raise IllegalAction("LGG 11.1-C", "the units of one move start from the same hex")
        to = str(action.get("to", ""))
        if not g.board.has_label(to):
            raise IllegalAction("LGG [11.1-A]", f"no hex {to!r} on the map")
        return units, g.board.idx(to)

    # ---------------------------------------------------------------- applying
    @handles.apply("end-movement")
    def apply_end_movement(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        g.finish(f)
        if placement_problems(g, side):
            g.push("end-of-movement", {"side": side})

    @handles.apply("move")
    def apply_move(self, g: Game, f: Frame, action: Action) -> None:
        act = self._act(g)
        side = action["side"]
        units, j = self._units_and_target(g, act, action)
        i = int(units[0].loc.ref)
        mode = str(action.get("mode", "normal"))
        info = movement.check_move(g, act, units, j, mode)
        refusal = movement.hidden_refusal(g, act, units, j, mode)
        if refusal is not None:
            self._refuse(g, side, i, j, refusal)
            return
        members = movement.apply_move(g, act, units, j, mode, info)
        fog.emit_private(
            g,
            side,
            "move",
            f"{', '.join(p.id for p in members)} move from {g.board.label(i)} to "
            f"{g.board.label(j)} ({mode}, {info.cost} MP)",
            f"a {side} stack moves from {g.board.label(i)} to {g.board.label(j)}",
            rule="LGG 11.1-B",
        )
        self._interception_hook(g, act, i, j, members, info.engage)

    @handles.apply("rail")
    def apply_rail(self, g: Game, f: Frame, action: Action) -> None:
        act = self._act(g)
        side = action["side"]
        units, j = self._units_and_target(g, act, action)
        i = int(units[0].loc.ref)
        path, costs, use = movement.check_rail(g, act, units, j)

        cut = [
            q.id
            for q in movement.group_members(g, units)
            if q.type != "decoy" and not is_supplied(g, q)
        ]
        # 4-A: accepted from what the mover knew; an enemy marker on the supply line holds units
        if cut:
            knowledge.remember_cut(g, side, cut, "supply")
            knowledge.refuse_on_hidden_fact(
                g,
                side,
                f"{', '.join(cut)} cannot take the train at {g.board.label(i)}: out of supply"
                " (an enemy marker on the supply line holds units)",
                f"a {side} stack finds its supply line cut",
                "LGG 11.4-A",
            )
            return
        blocking = M.enemy_blocking_hexes(g, side)
        held = [g.board.label(h) for h in path if h in blocking]
        if held:  # 4-A: the route was planned across markers; one of them holds units
            for lab in held:
                knowledge.remember(g, side, lab, units=True)
            knowledge.refuse_on_hidden_fact(
                g,
                side,
                f"the train from {g.board.label(i)} to {g.board.label(j)} cannot pass: enemy"
                f" units hold {', '.join(held)} on the line",
                f"a {side} train is stopped on the line near {held[0]}",
                "LGG 11.4-A",
            )
            return
        movement.apply_rail(g, act, units, j, costs, use)
        fog.emit_private(
            g,
            side,
            "rail",
            f"{', '.join(u.id for u in units)} travel by rail from {g.board.label(i)} "
            f"to {g.board.label(j)}",
            f"a {side} stack travels by rail from {g.board.label(i)} to {g.board.label(j)}",
            rule="LGG 11.4-A",
        )

    @handles.apply("convert")
    def apply_convert(self, g: Game, f: Frame, action: Action) -> None:
        act = self._act(g)
        side = action["side"]
        p = g.state.pieces[action["unit"]]
        hexes = [g.board.idx(h) for h in action["hexes"]]
        cost = movement.check_convert(g, act, p, hexes)
        held = movement.conversion_held_line(g, side, hexes)
        if held:  # 4-A: the line back to the network was read across markers; one holds units
            for lab in held:
                knowledge.remember(g, side, lab, units=True)
            knowledge.refuse_on_hidden_fact(
                g,
                side,
                f"the railway at {action['hexes'][0]} cannot be converted: enemy units hold "
                f"{', '.join(held)} on the line back to your network",
                f"{side} finds a railway line held near {held[0]}",
                "LGG 11.4-D",
            )
            return
        movement.apply_convert(g, act, p, hexes, cost)
        g.emit(
            "rail-conversion",
            f"{side} converts the railway at {', '.join(action['hexes'])}",
            rule="LGG 11.4-D",
            hexes=action["hexes"],
        )

    @handles.apply("deploy-reserve")
    def apply_deploy_reserve(self, g: Game, f: Frame, action: Action) -> None:
        act = self._act(g)
        side = action["side"]
        p = g.state.pieces[action["unit"]]
        c = M.carrier(g, p)
        assert c is not None
        M.set_status(g, p, M.RESERVE, False)
        M.move_piece(g, p, Loc.hex(int(g.state.where(c.id).ref)))
        M.set_attr(g, p, "mv_act", act["serial"])
        M.set_attr(g, p, "mv_stop", True)
        fog.emit_private(
            g,
            side,
            "deploy",
            f"{p.id} deployed from the reserve of {c.id}",
            None,
            rule="LGG 16-B",
        )

    @handles.apply("convert-pr")
    def apply_convert_pr(self, g: Game, f: Frame, action: Action) -> None:
        apply_conversion(g, g.state.pieces[action["unit"]], action["how"])

    @implements("LGG 4-A", "LGG 8-B", "LGG 11.2")
    def _refuse(self, g: Game, side: str, i: int, j: int, refusal: dict[str, Any]) -> None:
        """LGG 4-A / 8-B / 11.2: a move accepted from what the mover knew runs into a hidden fact:
        the stack stays where it is and a reveal event tells the mover what it found."""

        for lab in refusal["zoc"]:
            knowledge.remember(g, side, lab, zoc=["rigid"])
        for lab in refusal["units"]:
            knowledge.remember(g, side, lab, units=True)
        g.emit(
            "move-refused",
            f"the move from {g.board.label(i)} to {g.board.label(j)} is not possible: "
            f"{refusal['reason']}",
            rule=refusal["rule"],
            visible_to=[side],
            others=f"a {side} stack finds an obstacle near {g.board.label(j)}",
            reveal=True,
        )

    @implements("LGG 8-A", "LGG 11.4-A", "LGG 13-A")
    def _interception_hook(
        self, g: Game, act: dict[str, Any], i: int, j: int, members: list[Piece], engaged: bool
    ) -> None:
        """LGG 8-A / 11.4-A / 13-A: after a hex entered other than by rail, the interception rules
        (:func:`.interception.after_move`) decide, from what the mover may know, whether the enemy
        is asked about an interception, and reveal a marker that held no corps."""
        if not hooks.installed(g, hooks.INTERCEPTION):
            return

        after_move(g, act, i, j, members, engaged)


def _conversion_options(g: Game, u: Piece, i: int) -> list[list[int]]:
    """Single-hex conversions open to a unit: its own hex, or the next rail hex."""
    out = [[i]]
    for j, _ in mapdata.rail_links(g, i):
        out.append([j])
    return out


# =================================================================== end of movement (10-D, 11.1-E)
def placement_problems(g: Game, side: str) -> list[Problem]:
    """Stacking breaches (10-A, 10-B) and stops in an ally's capital (11.1-E) to cure."""
    out = [p for p in _all_hex_problems(g, side) if p.rule != "LGG 10-C" and p.movable]
    for i, plist in sorted(M.occupied(g, side).items()):
        bad = tuple(
            sorted(
                p.id
                for p in plist
                if M.is_unit(p) and p.loc.kind == "hex" and movement.foreign_capital(g, p, i)
            )
        )
        if bad:
            out.append(
                Problem(
                    "LGG 11.1-E", i, "only a stack of the capital's own nation may stop in it", bad
                )
            )
    return out


def _all_hex_problems(g: Game, side: str) -> list[Problem]:
    out = []
    for i in sorted(M.occupied(g, side)):
        out.extend(hex_problems(g, side, i))
    return out


@implements("LGG 10-D", "LGG 11.1-E")
class EndOfMovement(LggStep):
    """LGG 10-D / 11.1-E: at the end of movement every excess unit moves to an adjacent hex toward
    the rear or is eliminated, until every hex is legal."""

    name = "end-of-movement"
    title = "End of movement"
    rule = "LGG 10-D"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]] if placement_problems(g, f.params["side"]) else []

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    def _excess_units(self, g: Game, side: str) -> list[tuple[str, Problem]]:
        """Each unit in excess once, with the first breach it is part of."""
        out: list[tuple[str, Problem]] = []
        seen: set[str] = set()
        for prob in placement_problems(g, side):
            for uid in prob.movable:
                if uid not in seen:
                    seen.add(uid)
                    out.append((uid, prob))
        return out

    @handles.options("displace")
    def displace_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [
            {"type": "displace", "side": side, "unit": uid, "to": g.board.label(j)}
            for uid, prob in self._excess_units(g, side)
            for j in rearward_hexes(g, side, prob.hex, g.state.pieces[uid])
        ]

    @handles.options("eliminate")
    def eliminate_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [
            {"type": "eliminate", "side": side, "unit": uid}
            for uid, _ in self._excess_units(g, side)
        ]

    def _excess(self, g: Game, action: Action) -> list[Problem]:
        uid = action.get("unit")
        probs = [p for p in placement_problems(g, action["side"]) if uid in p.movable]
        if not probs:
            raise IllegalAction(
                "LGG 10-D", f"{uid!r} is not a unit in excess at the end of movement"
            )
        return probs

    @handles.check("eliminate")
    def check_eliminate(self, g: Game, f: Frame, action: Action) -> None:
        self._excess(g, action)

    @handles.check("displace")
    def check_displace(self, g: Game, f: Frame, action: Action) -> None:
        probs = self._excess(g, action)
        to = str(action.get("to", ""))
        p = g.state.pieces[str(action["unit"])]
        if not g.board.has_label(to) or g.board.idx(to) not in rearward_hexes(
            g, action["side"], probs[0].hex, p
        ):
            raise IllegalAction(
                "LGG 10-D", "an excess unit moves to an adjacent hex toward the rear"
            )

    @handles.apply("eliminate")
    def apply_eliminate(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["unit"]]
        eliminate(g, p, "excess at the end of movement", "LGG 10-D")
        self._done(g, f, action)

    @handles.apply("displace")
    def apply_displace(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["unit"]]
        M.move_piece(g, p, Loc.hex(g.board.idx(action["to"])))
        mapdata.set_control(g, g.board.idx(action["to"]), p.side)
        fog.emit_private(
            g,
            p.side,
            "displace",
            f"{p.id} moves back to {action['to']} (stacking)",
            None,
            rule="LGG 10-D",
        )
        self._done(g, f, action)

    def _done(self, g: Game, f: Frame, action: Action) -> None:
        if not placement_problems(g, action["side"]):
            g.finish(f)


STEPS: tuple[type[Step], ...] = (
    MilitaryPhase,
    FrontMilitary,
    SideTurn,
    ArmyActivation,
    ActivationMovement,
    EndOfMovement,
)
