"""The movement steps of the player turn (OT 4A2, 4A4, 4A6; OT 6, 6D, 6E), with every action
each one accepts: the shared moves of :class:`.movement.MovementStep`, the rail, river, overrun
and Corps HQs actions of their rules, and the actions of the movement extensions
(:data:`MOVEMENT_EXTENSION_CLASSES`, which the rule system lists in that order); and the
initial-phase activities step with those of its extensions (:data:`INITIAL_EXTENSION_CLASSES`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.greatwar import listing, special_rules
from grognard.rulesets.greatwar.combat import (
    artillery,
    combat,
    combat_hexes,
    effects,
    losses,
    retreat,
    siege_relief,
)
from grognard.rulesets.greatwar.logistics import engineers, logistics, reinforcements
from grognard.rulesets.greatwar.movement import (
    movement,
    overrun,
    rail,
    reserves,
    rivers,
    rules14_movement,
    stacking,
    water_only,
)
from grognard.rulesets.greatwar.movement.movement import (
    EXPLOITATION,
    MOVEMENT,
    REACTION,
    MovementStep,
    _listed_for_exploitation,
    moving_pieces,
    record,
)
from grognard.rulesets.greatwar.sequence import sequence
from grognard.rulesets.greatwar.step import InitialExtension, MovementExtension
from grognard.rulesets.greatwar.supply import supply
from grognard.rulesets.greatwar.units import (
    breakdowns,
    leaders,
    special_units,
    transport_units,
    units,
)
from grognard.rulesets.greatwar.units import hq as hqmod

if TYPE_CHECKING:
    from grognard.core.game import Game

MOVEMENT_EXTENSION_CLASSES: tuple[type[MovementExtension], ...] = (
    engineers.MovementWork,
    logistics.LogisticsMoves,
    combat_hexes.ContestedEntry,
    rules14_movement.Rules14To16Extension,
    transport_units.TransportExtension,
    breakdowns.BreakdownExtension,
    water_only.WaterOnlyExtension,
)
"""The movement extensions, in the order their actions are listed and their hooks run."""

INITIAL_EXTENSION_CLASSES: tuple[type[InitialExtension], ...] = (
    engineers.InitialWork,
    logistics.DepotActions,
)
"""The initial-phase extensions, in the order their activities are listed."""


# ============================================================================ actions of the rules
class RailMoves(Step):
    """OT 7A: rail movement."""

    @handles.check("rail-move")
    def check_rail_move(self, g: Game, f: Frame, action: Action) -> None:
        """OT 7A: a rail move the unit may make now."""
        rail.plan_rail_move(g, f, action)

    @handles.apply("rail-move")
    def apply_rail_move(self, g: Game, f: Frame, action: Action) -> None:
        rail.apply_rail_move(g, f, action)


class RailBreaks(Step):
    """OT 7A6: breaking rail lines."""

    @handles.check("break-rail")
    def check_break_rail(self, g: Game, f: Frame, action: Action) -> None:
        """OT 7A6: a unit breaks the rail line in its hex."""
        rail.check_break(g, f, action)

    @handles.apply("break-rail")
    def apply_break_rail(self, g: Game, f: Frame, action: Action) -> None:
        rail.apply_break(g, f, action)


class RailBoosts(Step):
    """OT 7A5a: rail capacity raised with Res Pts."""

    @handles.check("rail-boost")
    def check_rail_boost(self, g: Game, f: Frame, action: Action) -> None:
        """OT 7A5a: Res Pts spent to raise a net's capacity this player turn."""
        rail.check_boost(g, f, action)

    @handles.apply("rail-boost")
    def apply_rail_boost(self, g: Game, f: Frame, action: Action) -> None:
        rail.apply_boost(g, action)


class Overruns(Step):
    """OT 6F: overruns."""

    @handles.check("overrun")
    def check_overrun(self, g: Game, f: Frame, action: Action) -> None:
        """OT 6F: an overrun the units may make."""
        overrun.plan_overrun(g, f, action)

    @handles.apply("overrun")
    def apply_overrun(self, g: Game, f: Frame, action: Action) -> None:
        overrun.start_overrun(g, f, action)


class RiverMoves(Step):
    """OT 7C: movement on navigable inland waterways."""

    @handles.check("river-move")
    def check_river_move(self, g: Game, f: Frame, action: Action) -> None:
        """OT 7C: a river move the unit may make."""
        rivers.plan_river_move(g, f, action)

    @handles.apply("river-move")
    def apply_river_move(self, g: Game, f: Frame, action: Action) -> None:
        rivers.apply_river_move(g, f, action)


class CorpsBoxes(Step):
    """OT 8C1 / 8C2: Corps HQs boxes and overstacks."""

    @handles.check("corps-assign")
    def check_corps_assign(self, g: Game, f: Frame, action: Action) -> None:
        stacking.check_corps_assign(g, f, action)

    @handles.apply("corps-assign")
    def apply_corps_assign(self, g: Game, f: Frame, action: Action) -> None:
        stacking.apply_corps_assign(g, f, action)

    @handles.check("corps-remove")
    def check_corps_remove(self, g: Game, f: Frame, action: Action) -> None:
        stacking.check_corps_remove(g, f, action)

    @handles.apply("corps-remove")
    def apply_corps_remove(self, g: Game, f: Frame, action: Action) -> None:
        stacking.apply_corps_remove(g, f, action)

    @handles.check("overstack")
    def check_overstack(self, g: Game, f: Frame, action: Action) -> None:
        stacking.check_overstack(g, f, action)

    @handles.apply("overstack")
    def apply_overstack(self, g: Game, f: Frame, action: Action) -> None:
        stacking.apply_overstack(g, f, action)

    @handles.check("leave-overstack")
    def check_leave_overstack(self, g: Game, f: Frame, action: Action) -> None:
        check_leave_overstack(g, f, action)

    @handles.apply("leave-overstack")
    def apply_leave_overstack(self, g: Game, f: Frame, action: Action) -> None:
        apply_leave_overstack(g, f, action)


# ============================================================================ the steps
@implements("OT 4A2", "OT 6")
class MovementPhaseGround(
    MovementStep,
    RailMoves,
    RailBreaks,
    Overruns,
    RailBoosts,
    RiverMoves,
    CorpsBoxes,
    engineers.MovementWork,
    logistics.LogisticsMoves,
    combat_hexes.ContestedEntry,
    rules14_movement.Rules14To16Extension,
    transport_units.TransportExtension,
    breakdowns.BreakdownExtension,
    water_only.WaterOnlyExtension,
):
    """OT 4A2 / OT 6: the phasing player moves his ground units (regular, accelerated, rail and
    river movement, overruns, rail breaks)."""

    name = "ground-movement"
    title = "Ground movement"
    rule = "OT 6"
    kind = MOVEMENT

    def enter(self, g: Game, f: Frame) -> None:
        super().enter(g, f)
        for p in units.on_map_units(g, f.params["side"]):
            record(f, p, g)

    def extra_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out = rail.rail_actions(g, f, side)
        out += overrun.overrun_actions(g, f, side)
        out += rivers.river_actions(g, f, side)
        out += corps_actions(g, f, side)
        return out

    def lazy_families(
        self, g: Game, f: Frame, side: str
    ) -> list[tuple[str, Callable[[], list[str]], Callable[[str], list[Action]]]]:
        """OT 7A: rail moves, unit by unit (the routes of one unit are worked out only when its
        options are asked for)."""

        def actors() -> list[str]:
            with listing.scope(g):
                return rail.rail_movers(g, f, side)

        made: list[Callable[[Piece], list[Action]]] = []  # made once, at the first ask

        def options(pid: str) -> list[Action]:
            p = g.state.pieces.get(pid)
            if p is None or p.side != side:
                return []
            if not made:
                made.append(rail.rail_mover(g, f, side))
            return made[0](p)

        return [("rail-move", actors, options)]

    def eager_extra_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out = rail.rail_other_actions(g, f, side)
        out += overrun.overrun_actions(g, f, side)
        out += rivers.river_actions(g, f, side)
        out += corps_actions(g, f, side)
        return out


@implements("OT 4A4", "OT 6D", "OT 14M1")
class ReactionMovement(
    MovementStep,
    Overruns,
    RailBreaks,
    CorpsBoxes,
    engineers.MovementWork,
    logistics.LogisticsMoves,
    combat_hexes.ContestedEntry,
    rules14_movement.Rules14To16Extension,
    transport_units.TransportExtension,
    breakdowns.BreakdownExtension,
    water_only.WaterOnlyExtension,
):
    """OT 4A4 / OT 6D: the reacting player checks his Army HQs one at a time (OT 14M1); units in
    the ZOI of an HQ that stays active move (regular movement and overruns only); each unit moves
    at most once per phase. Ending the phase checks the HQs not yet checked."""

    name = "reaction-movement"
    title = "Reaction movement phase"
    rule = "OT 6D"
    kind = REACTION

    def enter(self, g: Game, f: Frame) -> None:
        super().enter(g, f)
        f.params.setdefault("checked", [])
        f.params.setdefault("eligible", [])
        f.params.setdefault("hq", None)
        if not special_units.army_hqs(g, f.params["side"]):
            g.emit(
                "phase", f"{f.params['side']} has no Army HQs: no reaction movement", rule="OT 6D"
            )
            f.params["skip"] = True

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [] if f.params.get("skip") else [f.params["side"]]

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    def unchecked(self, g: Game, f: Frame) -> list[Piece]:
        return [
            h
            for h in special_units.army_hqs(g, f.params["side"])
            if h.id not in f.params["checked"]
        ]

    def extra_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = []
        todo = self.unchecked(g, f)
        for h in todo:
            out.append({"type": "check-hq", "side": side, "hq": h.id})
            if leaders.leader_of(g, h) is not None:
                out.append({"type": "check-hq", "side": side, "hq": h.id, "leader": True})
        if g.opt("hq-coordination") and len(todo) >= 2:
            out.append({"type": "coordinate-hqs", "side": side, "hqs": [h.id for h in todo[:2]]})
        if f.params.get("eligible"):
            out += overrun.overrun_actions(g, f, side)
            out += rail.break_actions(g, f, side)
        out += corps_actions(g, f, side)
        return out

    @handles.check("check-hq")
    def check_hq(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14M1: an Army HQs still to be checked (OT 14P1: with its leader, if it has one)."""
        hid = action.get("hq")
        if hid not in [h.id for h in self.unchecked(g, f)]:
            raise IllegalAction(
                "OT 14M1", f"{hid!r} is not an Army HQs of {action['side']} still to be checked"
            )
        if action.get("leader") and leaders.leader_of(g, g.state.pieces[hid]) is None:
            raise IllegalAction("OT 14P1", f"no leader is assigned to {hid}")

    @handles.check("coordinate-hqs")
    def check_coordination(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14M3 (advanced): two or more Army HQs still to be checked, checked together."""
        if not g.opt("hq-coordination"):
            raise IllegalAction("OT 14M3", "Army HQs coordination is an advanced rule not in use")
        ids = action.get("hqs")
        todo = [h.id for h in self.unchecked(g, f)]
        if (
            not isinstance(ids, list)
            or len(ids) < 2
            or len(set(ids)) != len(ids)
            or any(i not in todo for i in ids)
        ):
            raise IllegalAction("OT 14M3", "name two or more Army HQs still to be checked in 'hqs'")
        lid = action.get("leader")
        if lid is not None and not any(
            (ld := leaders.leader_of(g, g.state.pieces[i])) is not None and ld.id == lid
            for i in ids
        ):
            raise IllegalAction(
                "OT 14P1", f"{lid!r} is not a leader assigned to one of the coordinating HQs"
            )

    @handles.apply("check-hq")
    def apply_check_hq(self, g: Game, f: Frame, action: Action) -> None:
        hqs = [g.state.pieces[action["hq"]]]
        ld = leaders.leader_of(g, hqs[0]) if action.get("leader") else None
        self._check_hqs(g, f, hqs, ld)

    @handles.apply("coordinate-hqs")
    def apply_coordination(self, g: Game, f: Frame, action: Action) -> None:
        hqs = [g.state.pieces[i] for i in action["hqs"]]
        ld = g.state.pieces[action["leader"]] if action.get("leader") else None
        self._check_hqs(g, f, hqs, ld)

    @implements("OT 6D", "OT 4A4")
    def _check_hqs(self, g: Game, f: Frame, hqs: list[Piece], ld: Piece | None) -> None:
        """OT 4A4: check Army HQs; if they stay active, the units in their ZOI that have not moved
        yet this phase become the units that may move (earlier HQs' units are done)."""
        self._close_window(f)
        for h in hqs:
            f.params["checked"].append(h.id)
        if hqmod.check_hqs(g, hqs, ld):
            moved = set(f.params.get("moved_before", []))
            elig = [
                p.id
                for p in units.on_map_units(g, f.params["side"])
                if any(special_units.in_zoi(g, h, p) for h in hqs)
                and p.id not in moved
                and not special_units.is_army_hq(p)
            ]
            f.params["eligible"] = elig
            f.params["hq"] = hqs[0].id
        else:
            f.params["eligible"] = []
            f.params["hq"] = None

    def _close_window(self, f: Frame) -> None:
        moved = set(f.params.get("moved_before", []))
        for pid, rec in f.params.get("units", {}).items():
            if rec.get("moved") or Fraction(rec.get("spent", 0)) > 0:
                moved.add(pid)
        f.params["moved_before"] = sorted(moved)
        f.params["eligible"] = []

    def end_phase(self, g: Game, f: Frame) -> None:
        for hq in self.unchecked(g, f):
            f.params["checked"].append(hq.id)
            hqmod.check_hqs(g, [hq])
        super().end_phase(g, f)


@implements("OT 4A6", "OT 6E")
class ExploitationMovement(
    MovementStep,
    Overruns,
    RailBreaks,
    CorpsBoxes,
    engineers.MovementWork,
    logistics.LogisticsMoves,
    combat_hexes.ContestedEntry,
    rules14_movement.Rules14To16Extension,
    transport_units.TransportExtension,
    breakdowns.BreakdownExtension,
    water_only.WaterOnlyExtension,
):
    """OT 4A6 / OT 6E: every phasing unit may move with its exploitation share of its rating
    (regular movement and overruns; no accelerated, rail or river movement). Units that used
    strategic rail movement this player turn may not move (OT 7A3). Interpretation default: all
    units may move (OT 6E), not only the types OT 4A6 lists."""

    name = "exploitation-movement"
    title = "Exploitation phase"
    rule = "OT 6E"
    kind = EXPLOITATION

    def movers(self, g: Game, f: Frame) -> list[Piece]:
        out = super().movers(g, f)
        if g.opt("exploitation-eligibility") == "listed-4A6":
            out = [p for p in out if _listed_for_exploitation(g, p)]
        return out

    def extra_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return (
            overrun.overrun_actions(g, f, side)
            + rail.break_actions(g, f, side)
            + corps_actions(g, f, side)
        )

    @implements("OT 4A6")
    def check_move(self, g: Game, f: Frame, action: Action) -> None:
        """OT 4A6 (when chosen over OT 6E): only the listed types move in exploitation."""
        if g.opt("exploitation-eligibility") == "listed-4A6":
            for p in moving_pieces(g, action, "OT 4A6"):
                if not _listed_for_exploitation(g, p):
                    raise IllegalAction(
                        "OT 4A6", f"{p.id} is not of a type that moves in the exploitation phase"
                    )
        super().check_move(g, f, action)


@implements("OT 4A1")
class InitialActivities(sequence.InitialActions, engineers.InitialWork, logistics.DepotActions):
    """OT 4A1: :class:`.sequence.InitialActions` with the activities of OT 13 and OT 11C."""


STEP_CLASSES: tuple[type[Step], ...] = (
    sequence.GameTurns,
    sequence.GameTurn,
    sequence.PlayerTurn,
    sequence.InitialPhase,
    sequence.InitialStart,
    InitialActivities,
    sequence.MovementPhase,
    MovementPhaseGround,
    sequence.CombatPhase,
    artillery.BombardmentSegment,
    combat.CombatSegment,
    sequence.ReactionMovementPhase,
    ReactionMovement,
    sequence.ReactionCombatPhase,
    sequence.ExploitationPhase,
    ExploitationMovement,
    overrun.RetreatBeforeOverrun,
    reserves.ReserveCommitment,
    supply.SpecialSupply,
    supply.SupplyEnd,
    artillery.BombardmentHits,
    combat.Combat,
    combat.CombatChoice,
    combat.RetreatBeforeCombat,
    effects.CombatEffects,
    losses.CombatLosses,
    retreat.CombatRetreat,
    retreat.CombatAdvance,
    # the steps Rules 14-16 add to the sequence of play
    reinforcements.InitialSpecial,
    reinforcements.Reinforcement,
    special_rules.Flooding,
    special_rules.OpenCities,
    special_rules.LocalDraft,
    leaders.LeaderInfluence,
    siege_relief.SiegeRetreat,
    water_only.GunboatRetreat,
)
"""The steps of the sequence of play, in the order the rule system lists them."""


def corps_actions(g: Game, f: Frame, side: str) -> list[Action]:
    """Corps box (OT 8C1) and overstack (OT 8C2) actions available to ``side`` now."""
    out: list[Action] = []
    corps = [
        p
        for p in units.on_map_units(g, side)
        if special_units.is_corps_hq(p) and p.loc.kind == "hex"
    ]
    for c in corps:
        h = units.hex_of(g, c)
        for p in g.state.at_hex(int(h)) if h is not None else []:
            if (
                p.side == side
                and units.is_unit(p)
                and not special_units.is_corps_hq(p)
                and not special_units.is_army_hq(p)
            ):
                out.append({"type": "corps-assign", "side": side, "piece": p.id, "corps": c.id})
        for p in g.state.contents(c.id):
            out.append({"type": "corps-remove", "side": side, "piece": p.id})
    if g.opt("overstacking"):
        for p in units.on_map_units(g, side):
            h = units.hex_of(g, p)
            if h is None or stacking.exempt(g, p):
                continue
            if stacking.OVERSTACKED in p.status:
                if stacking.stack_problem(g, h, side, extra=[p]) is None and movement.remaining(
                    g, f, p
                ) >= stacking.overstack_leave_cost(g, p):
                    out.append({"type": "leave-overstack", "side": side, "piece": p.id})
            elif stacking.has_corps_hq(g, h, side):
                out.append({"type": "overstack", "side": side, "pieces": [p.id]})
    return out


@implements("OT 8C2")
def check_leave_overstack(g: Game, f: Frame, action: Action) -> None:
    """OT 8C2 (advanced): leaving an overstack costs MPs and must fit the normal stack."""
    stacking._overstacking_in_use(g)
    side = action["side"]
    p = g.state.pieces.get(action.get("piece", ""))
    if p is None or p.side != side or stacking.OVERSTACKED not in p.status:
        raise IllegalAction("OT 8C2", f"{action.get('piece')!r} is not in an overstack")
    h = units.hex_of(g, p)
    assert h is not None
    if stacking.stack_problem(g, h, side, extra=[p]) is not None:
        raise IllegalAction(
            "OT 8B",
            f"{p.id} cannot rejoin the normal stack in {g.board.label(h)} without exceeding the"
            " limit",
        )
    if movement.remaining(g, f, p) < stacking.overstack_leave_cost(g, p):
        raise IllegalAction("OT 8C2", f"{p.id} lacks the MPs to leave the overstack")


def apply_leave_overstack(g: Game, f: Frame, action: Action) -> None:
    p = g.state.pieces[action["piece"]]
    cost = stacking.overstack_leave_cost(g, p)
    rec = movement.record(f, p, g)
    rec["spent"] = Fraction(rec["spent"]) + cost
    p.status.discard(stacking.OVERSTACKED)
    p.attrs.pop("overstacked_since", None)
    g.emit("overstack", f"{p.id} leaves the overstack ({cost} MP)", rule="OT 8C2", piece=p.id)
