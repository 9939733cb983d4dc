"""LGG 21: autonomous units (and the GHQs, which no HQ commands), and the use of garrisons (23-B).

Autonomous units are the units no HQ commands. At the end of the military phase, after the
activations of the HQs, each side's autonomous units are activated together (the
``autonomous-units`` hook, :class:`AutonomousUnits`): an ``army-activation`` of no army whose
``kind`` is ``autonomous``, in which the autonomous units and the GHQs (with their reserves)
make normal, administrative or rail moves. An autonomous unit may fight a battle only within 3
hexes of its GHQ, without a general (the battle procedure reads ``no_generals``), and may be
reinforced only within 3 hexes of its GHQ (:mod:`.enemy_reinforcement`); in trench warfare it
may not attack at all (28-D). After the movement the side may assign autonomous units to an
army (``assign``): within the command range of the army's HQ and within the HQ's command
limits (2-B, 10-C).

The side is always given its autonomous activation and its assignment step, so that the other
side learns nothing from it.

Garrisons (23-B) stay inside their fortress and fight only in an assault. Exceptions offered in
the assignment step: Germany may integrate its garrisons into its armies - on the Western Front
except in the August 1914 pre-turn, on the Eastern Front once Hindenburg is in play; French and
Russian garrisons may leave their fortress once the political action freeing them has
succeeded (``st["garrisons_freed"]`` lists the nations; written by the political rules). A
garrison that leaves (``release-garrison``) stands in its fortress hex as an autonomous corps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map.fronts import fronts_of
from grognard.rulesets.lgg1418.military import doctrine_transitions as DT
from grognard.rulesets.lgg1418.military.activation import activation_params
from grognard.rulesets.lgg1418.military.movement import in_command_range
from grognard.rulesets.lgg1418.military.stacking import counts_for_stacking, stacking_limit
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.units import fog
from grognard.rulesets.lgg1418.units.counters import attach, command_army, why_not_attach

if TYPE_CHECKING:
    from grognard.core.game import Game

AUTONOMOUS_KIND = "autonomous"
GHQ_RANGE = 3


# ====================================================================== fighting (21, 28-D)
def ghq_distance(g: Game, p: Piece, h: int) -> int | None:
    """Hexes from ``h`` to the GHQ of ``p``'s nation (None: no GHQ on the map)."""
    ghq = M.ghq_piece(g, p.nation)
    gh = M.hex_of(g, ghq) if ghq is not None else None
    return None if gh is None else g.board.distance(gh, h)


@implements("LGG 21")
def may_fight_at(g: Game, p: Piece, h: int) -> bool:
    """LGG 21: an autonomous unit fights a battle only within 3 hexes of its GHQ."""
    d = ghq_distance(g, p, h)
    return d is not None and d <= GHQ_RANGE


@implements("LGG 21", "LGG 28-D")
def autonomous_move_check(
    g: Game, act: dict[str, Any], members: list[Piece], j: int, mode: str, engage: bool
) -> None:
    """LGG 21 / 28-D: during the autonomous activation, an attack only within 3 hexes of the GHQ,
    never by a GHQ alone, never in trench warfare."""
    if act.get("kind") != AUTONOMOUS_KIND or not engage:
        return

    fighters = [p for p in members if p.type in ("corps", "artillery", "tank")]
    if not fighters:
        raise IllegalAction("LGG 21", "a GHQ alone cannot engage the enemy")
    fronts = fronts_of(g, j) or [M.WEST]
    for p in fighters:
        if any(DT.allows(g, p.nation, fr, "entrenching") for fr in fronts):
            raise IllegalAction("LGG 28-D", "in trench warfare autonomous units may not attack")
        if not may_fight_at(g, p, j):
            raise IllegalAction(
                "LGG 21",
                f"{p.id} is autonomous: it may fight only within {GHQ_RANGE} hexes of its GHQ",
            )


# ====================================================================== assignment (21, 2-B)
@implements("LGG 21", "LGG 2-B")
def assignable_armies(g: Game, p: Piece) -> list[str]:
    """LGG 21 / 2-B: armies an autonomous unit may be assigned to now: its HQ's command range
    covers the unit and the HQ may take it (command limit, nationality, 10-C)."""

    h = M.hex_of(g, p)
    if h is None or command_army(g, p) is not None:
        return []
    out = []
    here = {
        a
        for q in M.units_at_hex(g, h, p.side)
        if q.id != p.id and (a := command_army(g, q)) is not None
    }
    for a in sorted(M.armies_of(g, p.side)):
        if not M.army_formed(g, a) or not in_command_range(g, a, h):
            continue
        if here - {a}:
            continue  # 10-A: it would stand with units of another army
        if why_not_attach(g, p, a) is None:
            out.append(a)
    return out


@implements("LGG 23-B")
def garrison_may_leave(g: Game, p: Piece) -> str | None:
    """LGG 23-B: how a garrison corps may leave its fortress: ``integrate`` (Germany: into an army),
    ``leave`` (France, Russia after the political action freeing the garrisons), or None."""
    if not M.garrison_in_fortress(g, p):
        return None
    h = M.hex_of(g, p)
    if h is None or not _room_outside(g, p, h):
        return None
    fronts = fronts_of(g, h)
    if p.nation == "DE":
        pre = M.current_turn(g).pre_turn
        if M.WEST in fronts and not pre:
            return "integrate"
        if M.EAST in fronts and hindenburg_in_play(g):
            return "integrate"
        return None
    if p.nation in ("FR", "RU") and p.nation in M.st(g).get("garrisons_freed", []):
        return "leave"
    return None


@implements("LGG 23-B")
def hindenburg_in_play(g: Game) -> bool:
    """LGG 23-B: is the general Hindenburg on the map (with an HQ or GHQ)?"""
    for p in g.state.pieces.values():
        if p.type == "general" and "hindenburg" in f"{p.id} {p.name}".lower() and M.on_map(g, p):
            return True
    return False


@implements("LGG 10-A", "LGG 23-B")
def _room_outside(g: Game, p: Piece, h: int) -> bool:
    """LGG 10-A / 23-B: a garrison leaving its fortress stands in the fortress hex as a corps, so
    it counts against the hex's stacking limit: it may leave only if there is room for it."""

    others = [q for q in M.units_at_hex(g, h, p.side) if q.id != p.id and counts_for_stacking(g, q)]
    return len(others) + 1 <= stacking_limit(g, h)


@implements("LGG 10-A", "LGG 23-B")
def _other_armies_in_hex(g: Game, p: Piece, h: int) -> set[str]:
    """LGG 10-A / 23-B: armies of the units (HQs included) standing in the fortress hex, outside
    the fortress; a garrison integrated into an army there stands with them (10-A)."""
    return {
        a
        for q in M.units_at_hex(g, h, p.side)
        if q.id != p.id and (a := command_army(g, q)) is not None
    }


def _garrison_armies(g: Game, p: Piece) -> list[str]:
    """Armies a German garrison may be integrated into: those whose HQ range covers its fortress
    and that may take it (2-B limits apply), and no other army's units in the fortress hex (10-A).
    """

    h = M.hex_of(g, p)
    assert h is not None
    here = _other_armies_in_hex(g, p, h)
    out = []
    for a in sorted(M.armies_of(g, p.side)):
        if (
            not M.army_formed(g, a)
            or not in_command_range(g, a, h)
            or M.army_nation(g, a) != p.nation
        ):
            continue
        if here - {a}:
            continue  # 10-A: it would stand with units of another army
        saved = p.attrs.pop("garrison")
        try:
            ok = why_not_attach(g, p, a) is None
        finally:
            p.attrs["garrison"] = saved
        if ok:
            out.append(a)
    return out


def release_garrison(g: Game, p: Piece) -> None:
    """LGG 23-B: the garrison corps leaves its fortress and stands in its hex (it keeps the memory
    of its fortress in ``garrison_of``)."""
    fort = M.carrier(g, p)
    assert fort is not None
    h = M.hex_of(g, fort)
    assert h is not None
    M.set_attr(g, p, "garrison_of", p.attrs.get("garrison"))
    M.set_attr(g, p, "garrison", None)
    M.move_piece(g, p, Loc.hex(h))


@implements("LGG 21", "LGG 23-B")
class AutonomousAssignment(LggStep):
    """LGG 21 / 23-B: after their movement autonomous units may be assigned to an army; garrisons
    may be integrated or leave when 23-B allows it.

    Actions: ``assign`` (``unit``, ``army``), ``release-garrison`` (``unit``), ``end-assignment``.
    """

    name = "autonomous-assignment"
    title = "Assignment of autonomous units"
    rule = "LGG 21"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: assignment of autonomous units"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = []
        for p in sorted(M.iter_units(g, side), key=lambda p: p.id):
            if p.type not in ("corps", "artillery", "tank"):
                continue
            how = garrison_may_leave(g, p) if M.is_garrison(p) else None
            if how == "integrate":
                out.extend(
                    {"type": "assign", "side": side, "unit": p.id, "army": a}
                    for a in _garrison_armies(g, p)
                )
            elif how == "leave":
                out.append({"type": "release-garrison", "side": side, "unit": p.id})
            elif not M.is_garrison(p) and p.loc.kind == "hex":
                out.extend(
                    {"type": "assign", "side": side, "unit": p.id, "army": a}
                    for a in assignable_armies(g, p)
                )
        out.append({"type": "end-assignment", "side": side})
        return out

    @handles.check("end-assignment")
    def check_end(self, g: Game, f: Frame, action: Action) -> None:
        return

    def _own(self, g: Game, action: Action) -> Piece:
        p = g.state.pieces.get(str(action.get("unit")))
        if p is None or p.side != action["side"]:
            raise IllegalAction("LGG 21", f"you have no unit {action.get('unit')!r}")
        return p

    @handles.check("release-garrison")
    def check_release(self, g: Game, f: Frame, action: Action) -> None:
        p = self._own(g, action)
        if garrison_may_leave(g, p) != "leave":
            raise IllegalAction("LGG 23-B", f"{p.id} may not leave its fortress")

    @handles.check("assign")
    def check_assign(self, g: Game, f: Frame, action: Action) -> None:
        p = self._own(g, action)
        army = str(action.get("army"))
        if M.is_garrison(p):
            if garrison_may_leave(g, p) != "integrate" or army not in _garrison_armies(g, p):
                raise IllegalAction("LGG 23-B", f"{p.id} is a garrison: it stays with its fortress")
            return
        if army not in assignable_armies(g, p):
            why = (
                why_not_attach(g, p, army)
                or "the unit must be autonomous and within the command range of the HQ"
            )
            raise IllegalAction("LGG 21", why)

    @handles.apply("end-assignment")
    def apply_end(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    def _release(self, g: Game, action: Action) -> Piece:
        p = g.state.pieces[action["unit"]]
        if M.is_garrison(p):
            release_garrison(g, p)
            fog.emit_private(
                g, action["side"], "garrison", f"{p.id} leaves its fortress", None, rule="LGG 23-B"
            )
        return p

    @handles.apply("release-garrison")
    def apply_release(self, g: Game, f: Frame, action: Action) -> None:
        self._release(g, action)

    @handles.apply("assign")
    def apply_assign(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        p = self._release(g, action)
        attach(g, p, str(action["army"]))
        fog.emit_private(
            g, side, "attach", f"{p.id} assigned to army {action['army']}", None, rule="LGG 21"
        )


@implements("LGG 21")
class AutonomousUnits(Step):
    """LGG 21: the autonomous units' activation at the end of the military phase, then their
    assignment to armies."""

    name = hooks.AUTONOMOUS_UNITS
    title = "Autonomous units"
    rule = "LGG 21"
    composite = True

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: autonomous units"

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:

        stage = f.params.get("stage", "move")
        side = f.params["side"]
        if stage == "move":
            f.params["stage"] = "assign"
            params = activation_params(g, side, [], None)
            params["pre_turn"] = False
            params["extra"] = {"kind": AUTONOMOUS_KIND}
            return "army-activation", params
        if stage == "assign":
            f.params["stage"] = "done"
            return "autonomous-assignment", {"side": side}
        return None


STEPS: tuple[type[Step], ...] = (AutonomousUnits, AutonomousAssignment)
