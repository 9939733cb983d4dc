"""Air missions in stages: Air Interdiction and Naval Movement Interdiction (EF 14.6, NM 31.1),
Shipping Attack (NM 31.2), with the opposing side's interception pushed as a decision.

Interdiction (EF 14.6): the mission units over a hex, with their escorts (at most three air
units per target), meet the other side's interceptors (EF 14.3) and AA fire (EF 14.4); the
survivors place a Zone of Interdiction of the level of their ratings. Naval Movement
Interdiction (NM 31.1, the Axis): no mission hex, the air units go into the Naval Movement
Interdiction Box; only Soviet naval fighters (at most three) oppose it, there is no AA fire,
and the survivors place an Interdiction Level marker equal to their ratings, at most Level 2
(summed; the ``interdiction_level`` option takes the best one instead). Shipping Attack
(NM 31.2): each mission unit attacks the naval unit it was sent against (declared before any
roll), after air combat and naval AA (NM 31.3): one roll each on the Shipping Attack Table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from grognard.core.modifiers import Modifiers
from grognard.core.procedure import Goto, Procedure, stage
from grognard.core.record import LIST, Record
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.eastfront.air.combat import (
    aa_fire,
    air_combat,
    ground_aa_drm,
    hex_aa,
    naval_aa_firer,
)
from grognard.rulesets.eastfront.air.units import (
    fly,
    interdiction_rating,
    is_fighter,
    is_naval_fighter,
    ready_air,
)
from grognard.rulesets.eastfront.data import table
from grognard.rulesets.eastfront.model import NMI_BOX, Strike, ZoiRecord, ef, other, params, turn_no
from grognard.rulesets.eastfront.naval.damage import add_damage
from grognard.rulesets.eastfront.naval.units import afloat
from grognard.rulesets.eastfront.units.kinds import kind

if TYPE_CHECKING:
    from grognard.core.game import Game

MAX_AIR = 3  # NM 31.1, NM 31.2 (and our interdiction missions)
MAX_LEVEL = 2  # NM 31.1


def pieces(g: Game, ids: Sequence[str]) -> list[Piece]:
    return [g.state.pieces[i] for i in ids if i in g.state.pieces]


@implements("NM 31.1", "EF 14.6")
def level_of(g: Game, survivors: list[Piece]) -> int:
    """NM 31.1: the Interdiction Level the surviving mission units place (at most 2).

    Rules: NM 31.1, EF 14.6.
    """
    ratings = [interdiction_rating(p) for p in survivors]
    if not ratings:
        return 0
    value = max(ratings) if g.opt("interdiction_level") == "max" else sum(ratings)
    return min(MAX_LEVEL, value)


@implements("EF 14.3", "NM 31.1")
def interceptor_candidates(g: Game, side: str, naval_only: bool) -> list[Piece]:
    """The fighters ``side`` may send against a mission (NM 31.1: only naval fighters against
    the Naval Movement Interdiction mission).

    Rules: EF 14.3, NM 31.1.
    """
    return [
        p
        for p in ready_air(g, side)
        if is_fighter(g, p) and (not naval_only or is_naval_fighter(g, p))
    ]


class MissionRecord(Record):
    """The parameters of an air mission's frame."""

    side: str = ""  # the side flying it
    targets: list[str] = LIST  # hex labels and/or NMI_BOX, in order
    current: int = -1  # the target being resolved


@implements("EF 14.6", "NM 31.1")
class AirMissions(Procedure):
    """EF 14.6 / NM 31.1: every Air Interdiction Phase mission, one target at a time: the
    other side's interception (a decision), then air combat, AA and the marker."""

    name = "air-missions"
    title = "Air missions"
    rule = "EF 14.6"

    @stage
    def next_target(self, g: Game, f: Frame) -> Goto | None:
        r = MissionRecord(params(f))
        r.current += 1
        if r.current >= len(r.targets):
            return self.stop(f)
        ef(g).interceptors.clear()
        target = r.targets[r.current]
        foes = interceptor_candidates(g, other(r.side), target == NMI_BOX)
        if foes:
            g.push("intercept", {"side": other(r.side), "naval_only": target == NMI_BOX})
        return None

    @stage
    def resolve(self, g: Game, f: Frame) -> Goto | None:
        r = MissionRecord(params(f))
        target = r.targets[r.current]
        sorties = [s for s in ef(g).air.sorties if s.target == target]
        missions = pieces(g, [s.air for s in sorties if s.role == "mission"])
        escorts = pieces(g, [s.air for s in sorties if s.role == "escort"])
        foes = pieces(g, ef(g).interceptors)
        alive = air_combat(g, missions, escorts, foes)
        if target != NMI_BOX:
            i = g.board.idx(target)
            firer = hex_aa(g, i, other(r.side))
            if firer is not None:
                gone = aa_fire(g, firer, alive)
                if gone is not None:
                    alive.remove(gone)
        level = level_of(g, alive)
        if level:
            place_marker(g, r.side, target, level)
        for p in missions + escorts:
            fly(g, p)
        return self.goto(f, "next_target")


@implements("EF 14.6", "NM 31.1")
def place_marker(g: Game, side: str, target: str, level: int) -> None:
    """EF 14.6 / NM 31.1: a Zone of Interdiction on the hex, or the Interdiction Level marker in
    the Naval Movement Interdiction Box (excess interdiction is ignored)."""
    st = ef(g)
    if target == NMI_BOX:
        st.nmi.level = level
        st.nmi.side = side
        st.nmi.turn = turn_no(g)
        g.emit(
            "interdiction",
            f"Interdiction Level {level} in the Naval Movement Interdiction Box",
            rule="NM 31.1",
        )
        return
    st.raw()["zoi"][target] = ZoiRecord.new(level=level, side=side, turn=turn_no(g))
    g.emit("interdiction", f"a Level {level} Zone of Interdiction around {target}", rule="EF 14.6")


@implements("EF 14.3", "NM 31.1")
class Intercept(Step):
    """EF 14.3: the side under an air mission sends fighters against it (at most three; only
    naval fighters against the Naval Movement Interdiction mission, NM 31.1)."""

    name = "intercept"
    title = "Interception"
    rule = "EF 14.3"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [params(f)["side"]]

    @handles.options("intercept")
    def intercept_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        chosen = ef(g).interceptors
        if len(chosen) >= MAX_AIR:
            return []
        return [
            {"type": "intercept", "side": side, "air": p.id}
            for p in interceptor_candidates(g, side, bool(params(f).get("naval_only")))
            if p.id not in chosen
        ]

    @handles.options("pass")
    def pass_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "pass", "side": side}]

    @handles.apply("intercept")
    def intercept(self, g: Game, f: Frame, action: Action) -> None:
        ef(g).interceptors.append(action["air"])
        g.emit("intercept", f"{action['air']} intercepts", rule="EF 14.3")
        if len(ef(g).interceptors) >= MAX_AIR:
            g.finish(f)

    @handles.apply("pass")
    def done(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)


class StrikeRecord(Record):
    """The parameters of a Shipping Attack's frame (NM 31.2)."""

    side: str = ""
    strikes: list[Strike] = LIST
    survivors: list[str] = LIST


@implements("NM 31.2", "NM 31.3", "NM 31.0", "NM 27.3")
class ShippingAttack(Procedure):
    """NM 31.2: stages: interception, air combat, naval AA (NM 31.3), the attack rolls.

    Rules: NM 31.2, NM 31.3, NM 31.0, NM 27.3.
    """

    name = "shipping-attack"
    title = "Shipping Attack"
    rule = "NM 31.2"

    @stage
    def oppose(self, g: Game, f: Frame) -> None:
        r = StrikeRecord(params(f))
        ef(g).interceptors.clear()
        if interceptor_candidates(g, other(r.side), False):
            g.push("intercept", {"side": other(r.side), "naval_only": False})

    @stage
    def combat(self, g: Game, f: Frame) -> None:
        r = StrikeRecord(params(f))
        missions = pieces(g, [s.air for s in r.strikes if s.target])
        escorts = pieces(g, [s.air for s in r.strikes if not s.target])
        alive = air_combat(g, missions, escorts, pieces(g, ef(g).interceptors))
        r.survivors = [p.id for p in alive]

    @stage
    def aa(self, g: Game, f: Frame) -> None:
        """NM 31.3: one AA roll for each attacked naval unit."""
        r = StrikeRecord(params(f))
        by_target: dict[str, list[str]] = {}
        for s in r.strikes:
            if s.target and s.air in r.survivors:
                by_target.setdefault(s.target, []).append(s.air)
        targets = set(by_target)
        for tid, airs in sorted(by_target.items()):
            ship = g.state.pieces[tid]
            firer = naval_aa_firer(g, ship, targets)
            if firer is None:
                continue
            gone = aa_fire(g, firer, pieces(g, airs), ground_aa_drm(g, ship))
            if gone is not None:
                r.survivors.remove(gone.id)

    @stage
    def attack(self, g: Game, f: Frame) -> None:
        """NM 31.2: one roll per remaining mission unit, Damage Points at once."""
        r = StrikeRecord(params(f))
        t = table(g, "shipping-attack")
        for s in r.strikes:
            if not s.target or s.air not in r.survivors:
                continue
            ship = g.state.pieces[s.target]
            if not afloat(g, ship):
                continue
            air = g.state.pieces[s.air]
            mods = Modifiers().add(interdiction_rating(air) - 1, "NM 31.2", "Interdiction rating")
            roll = g.roll(str(t.die), f"shipping attack on {ship.name or ship.id}", "NM 31.2", mods)
            res = str(t.lookup(kind(g, ship).column, roll.modified).result)
            g.emit("shipping-attack", f"Shipping Attack Table: {res}", rule="NM 31.2")
            if res.startswith("D"):
                add_damage(g, ship, int(res[1:]), "NM 31.2")
        for s in r.strikes:
            p = g.state.pieces.get(s.air)
            if p is not None:
                fly(g, p)
