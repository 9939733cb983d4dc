"""The phases of a player turn (EF 3.0), one step class each, one handler per action type.

=====================  =============================================================
step                   phase (rules)
=====================  =============================================================
``naval-readiness``    Naval Readiness Phase (NM 25.3, NM 27.4)
``air-interdiction``   Air Interdiction Phase (EF 14.0, EF 14.6, NM 31.1)
``supply-status``      Supply Status Phase (EF 11.0, EF 20.0, NM 26.25, NM 30.4)
``movement``           Movement or Motorized Movement Phase (EF 7.0, NM 26, NM 28)
``reaction``           the other side's Reaction Phase (EF 7.5, NM 31.2)
``combat``             Combat Phase (EF 15.0): ``coast-fire``, then ``combat-actions``
``engineering``        Engineering Phase (EF 8.0, NM 28.2)
=====================  =============================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from grognard.core.errors import IllegalAction
from grognard.core.game import ChanceOutcome
from grognard.core.procedure import Procedure, stage
from grognard.core.rules import implements
from grognard.core.sequence import Action, Sequence_, Step, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.eastfront.air.units import interdiction_rating, ready_air, refit
from grognard.rulesets.eastfront.combat.attack import (
    AttackRecord,
    attacker_options,
    defenders,
    start_attack,
)
from grognard.rulesets.eastfront.map.geography import is_coastal, is_land
from grognard.rulesets.eastfront.map.ports import owner, port_named, ports
from grognard.rulesets.eastfront.model import (
    AXIS,
    NMI_BOX,
    AirRecord,
    CombatRecord,
    MoveRecord,
    Sortie,
    Strike,
    ef,
    other,
    params,
)
from grognard.rulesets.eastfront.movement import ground
from grognard.rulesets.eastfront.naval.amphibious import special_landing, special_landing_problem
from grognard.rulesets.eastfront.naval.coastfire import cd_fire_problem, resolve_fire, targets_of
from grognard.rulesets.eastfront.naval.evacuation import complete, declare, declare_problem
from grognard.rulesets.eastfront.naval.evacuation import engineering as dnm_countdown
from grognard.rulesets.eastfront.naval.movement import (
    amphibious_cargo,
    check_placement,
    check_sail,
    check_ships,
    destinations,
    sail,
)
from grognard.rulesets.eastfront.naval.readiness import (
    may_repair,
    may_roll_readiness,
    outcomes,
    recover_flotillas,
    roll_readiness,
    roll_repair,
)
from grognard.rulesets.eastfront.naval.transport import load, load_problem, unload, unload_problem
from grognard.rulesets.eastfront.naval.units import afloat, at_sea, port_of, sea_hex
from grognard.rulesets.eastfront.sequence.base import Phase
from grognard.rulesets.eastfront.supply.general import mark_supply, supply_status
from grognard.rulesets.eastfront.supply.surrender import must_roll, roll_surrender
from grognard.rulesets.eastfront.units.kinds import (
    is_cd,
    is_combat,
    is_flotilla,
    is_ground,
    is_hq,
    is_naval,
    motorized,
)
from grognard.rulesets.eastfront.units.losses import eliminated_box

if TYPE_CHECKING:
    from grognard.core.game import Game

MAX_AIR = 3


def own(g: Game, side: str, pid: str) -> Piece:
    p = g.state.pieces[pid]
    if p.side != side:
        raise IllegalAction("EF 4.0", f"{pid} is not one of your units")
    return p


# ====================================================================== Naval Readiness Phase
@implements("NM 25.3", "NM 27.4", "NM 27.41", "NM 27.43")
class NavalReadiness(Phase):
    """NM 25.3 / NM 27.4: each Sailed naval unit rolls for Readiness, or instead for Repair;
    Ready damaged units may repair; flotillas recover by themselves (NM 27.43). Ending the phase
    rolls Readiness for every Sailed unit not yet rolled for.

    Rules: NM 25.3, NM 27.4, NM 27.41, NM 27.43.
    """

    name = "naval-readiness"
    title = "Naval Readiness Phase"
    rule = "NM 25.3"
    kind = "readiness"

    def begin(self, g: Game, f: Frame) -> None:
        params(f)["done"] = []
        recover_flotillas(g, self.side(g, f))

    def ships(self, g: Game, f: Frame, side: str) -> list[Piece]:
        done = params(f)["done"]
        return [
            p
            for p in sorted(g.state.of_side(side), key=lambda q: q.id)
            if is_naval(g, p) and p.id not in done
        ]

    @handles.actors("readiness")
    def readiness_actors(self, g: Game, f: Frame, side: str) -> list[str]:
        return [p.id for p in self.ships(g, f, side) if may_roll_readiness(g, p) is None]

    @handles.options("readiness")
    def readiness_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        p = g.state.pieces.get(actor or "")
        if p is None or p.side != side or p.id in params(f)["done"]:
            return []
        if may_roll_readiness(g, p) is not None:
            return []
        return [{"type": "readiness", "side": side, "ship": p.id}]

    @handles.apply("readiness")
    def readiness(self, g: Game, f: Frame, action: Action) -> None:
        params(f)["done"].append(action["ship"])
        roll_readiness(g, g.state.pieces[action["ship"]])

    @handles.actors("repair")
    def repair_actors(self, g: Game, f: Frame, side: str) -> list[str]:
        return [p.id for p in self.ships(g, f, side) if may_repair(g, p) is None]

    @handles.options("repair")
    def repair_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        p = g.state.pieces.get(actor or "")
        if p is None or p.side != side or p.id in params(f)["done"]:
            return []
        if may_repair(g, p) is not None:
            return []
        return [{"type": "repair", "side": side, "ship": p.id}]

    @handles.apply("repair")
    def repair(self, g: Game, f: Frame, action: Action) -> None:
        params(f)["done"].append(action["ship"])
        roll_repair(g, g.state.pieces[action["ship"]])

    @handles.chance("readiness")
    def readiness_chance(self, g: Game, f: Frame, action: Action) -> list[ChanceOutcome]:
        """NM 25.3: success (Ready) or failure, exactly."""
        return outcomes(g, g.state.pieces[action["ship"]], repairing=False)

    @handles.chance("repair")
    def repair_chance(self, g: Game, f: Frame, action: Action) -> list[ChanceOutcome]:
        """NM 27.41: one Damage Point repaired or not, exactly."""
        return outcomes(g, g.state.pieces[action["ship"]], repairing=True)

    def close(self, g: Game, f: Frame) -> None:
        """NM 25.3a: a die for each Sailed naval unit (those not handled already)."""
        for p in self.ships(g, f, self.side(g, f)):
            if may_roll_readiness(g, p) is None:
                params(f)["done"].append(p.id)
                roll_readiness(g, p)


# ====================================================================== Air Interdiction Phase
def mission_targets(g: Game, side: str) -> list[str]:
    """EF 14.6: the hexes ``side`` may interdict (enemy ports on the map, hexes of enemy ground
    units), then the Naval Movement Interdiction Box for the Axis (NM 31.1)."""
    enemy = other(side)
    hexes: set[int] = {pt.hex for pt in ports(g) if pt.hex is not None and owner(g, pt) == enemy}
    for p in g.state.of_side(enemy):
        if p.loc.kind == "hex" and is_ground(g, p) and is_land(g, int(p.loc.ref)):
            hexes.add(int(p.loc.ref))
    out = [g.board.label(i) for i in sorted(hexes)]
    if side == AXIS:
        out.append(NMI_BOX)
    return out


@implements("EF 14.0", "EF 14.6", "NM 31.1")
class AirInterdiction(Phase):
    """EF 14.6 / NM 31.1: the phasing side's Flown air units become Ready, its old markers
    lapse, and it assigns air units to interdiction missions (at most three per target); ending
    the phase flies them (:class:`~..air.missions.AirMissions`).

    Rules: EF 14.0, EF 14.6, NM 31.1.
    """

    name = "air-interdiction"
    title = "Air Interdiction Phase"
    rule = "EF 14.6"
    kind = "air"

    def begin(self, g: Game, f: Frame) -> None:
        side = self.side(g, f)
        st = ef(g)
        st.air = AirRecord(AirRecord.new())
        refit(g, side)
        for label in [k for k, z in st.zoi.items() if z.side == side]:
            del st.raw()["zoi"][label]
        if st.nmi.side == side and st.nmi.level:
            st.nmi.level = 0
            g.emit(
                "interdiction", "the Naval Movement Interdiction marker is removed", rule="NM 31.1"
            )

    def assigned(self, g: Game) -> list[Sortie]:
        return ef(g).air.sorties

    @handles.actors("fly")
    def flyers(self, g: Game, f: Frame, side: str) -> list[str]:
        taken = {s.air for s in self.assigned(g)}
        return [p.id for p in ready_air(g, side) if p.id not in taken]

    @handles.options("fly")
    def fly_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        p = g.state.pieces.get(actor or "")
        if p is None or p.id not in self.flyers(g, f, side):
            return []
        out = []
        for t in mission_targets(g, side):
            for role in ("mission", "escort"):
                a = {"type": "fly", "side": side, "air": p.id, "target": t, "role": role}
                if self.problem(g, a) is None:
                    out.append(a)
        return out

    def problem(self, g: Game, a: Action) -> str | None:
        side = a["side"]
        p = g.state.pieces[a["air"]]
        if p.side != side or p.id not in {q.id for q in ready_air(g, side)}:
            return f"{p.id} is not one of your Ready air units"
        if any(s.air == p.id for s in self.assigned(g)):
            return f"{p.id} is already assigned"
        if a["target"] not in mission_targets(g, side):
            return f"{a['target']!r} is not a target you may interdict"
        on = [s for s in self.assigned(g) if s.target == a["target"]]
        if len(on) >= MAX_AIR:
            return "at most three air units on one mission (NM 31.1)"
        if a["role"] == "mission" and interdiction_rating(p) <= 0:
            return f"{p.id} has no Interdiction rating: it may only escort"
        if a["role"] == "escort" and not any(s.role == "mission" for s in on):
            return "an escort goes with a mission unit already assigned"
        return None

    @handles.check("fly")
    def check_fly(self, g: Game, f: Frame, action: Action) -> None:
        why = self.problem(g, action)
        if why:
            raise IllegalAction("EF 14.6", why)

    @handles.apply("fly")
    def fly(self, g: Game, f: Frame, action: Action) -> None:
        ef(g).air.raw()["sorties"].append(
            Sortie.new(air=action["air"], target=action["target"], role=action["role"])
        )

    def close(self, g: Game, f: Frame) -> None:
        targets = list(dict.fromkeys(s.target for s in self.assigned(g) if s.role == "mission"))
        if targets:
            g.push("air-missions", {"side": self.side(g, f), "targets": targets, "current": -1})


# ====================================================================== Supply Status Phase
@implements("EF 11.0", "EF 20.0", "NM 30.4")
class SupplyStatus(Phase):
    """EF 11.0: the phasing side may spend MSUs to put units in General Supply (NM 30.4); ending
    the phase traces supply and, for the Soviets, rolls for surrender (EF 20.0)."""

    name = "supply-status"
    title = "Supply Status Phase"
    rule = "EF 11.0"
    kind = "supply"

    def begin(self, g: Game, f: Frame) -> None:
        params(f)["spent"] = []

    @handles.actors("spend-msu")
    def msus(self, g: Game, f: Frame, side: str) -> list[str]:
        return [
            p.id
            for p in sorted(g.state.of_side(side), key=lambda q: q.id)
            if p.type == "msu" and p.loc.kind == "hex"
        ]

    @handles.options("spend-msu")
    def msu_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        if actor not in self.msus(g, f, side):
            return []
        return [{"type": "spend-msu", "side": side, "msu": actor}]

    @handles.apply("spend-msu")
    def spend(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["msu"]]
        params(f)["spent"].append(int(p.loc.ref))
        g.state.move(p.id, eliminated_box(g))
        g.emit("supply", f"{p.name or p.id} is spent for General Supply", rule="NM 30.4")

    def close(self, g: Game, f: Frame) -> None:
        g.push("supply-trace", {"side": self.side(g, f), "spent": list(params(f)["spent"])})


@implements("EF 11.0", "EF 20.0")
class SupplyTrace(Procedure):
    """EF 11.0 then EF 20.0: trace General Supply, then the Soviet surrender rolls."""

    name = "supply-trace"
    title = "Supply status"
    rule = "EF 11.0"

    @stage
    def trace(self, g: Game, f: Frame) -> None:
        side = params(f)["side"]
        mark_supply(g, side, supply_status(g, side, params(f)["spent"]))

    @stage
    def surrender(self, g: Game, f: Frame) -> None:
        if params(f)["side"] != other(AXIS):
            return
        for pid in must_roll(g):
            roll_surrender(g, pid)


# ====================================================================== Movement Phases
@implements("EF 7.0", "NM 26.0", "NM 28.0", "NM 28.1", "NM 28.2", "EF 10.25", "EF 8.54a")
class Movement(Phase):
    """EF 7.0 / NM 26.0: ground moves, naval moves, loading and unloading, activations,
    evacuations; ending the phase runs the loss rolls, unloading and status
    (:class:`~..naval.endmove.EndOfMovement`).

    Rules: EF 7.0, NM 26.0, NM 28.0, NM 28.1, NM 28.2, EF 10.25, EF 8.54a.
    """

    name = "movement"
    title = "Movement Phase"
    rule = "EF 7.0"
    kind = "movement"

    def label(self, g: Game, f: Frame) -> str:
        what = "Motorized Movement Phase" if self.phase_kind(g, f) == "motorized" else self.title
        return f"{self.side(g, f)} {what}"

    def begin(self, g: Game, f: Frame) -> None:
        ef(g).move = MoveRecord(MoveRecord.new(kind=self.phase_kind(g, f)))

    # ---- ground movement (EF 7.0)
    @handles.actors("move")
    def movers(self, g: Game, f: Frame, side: str) -> list[str]:
        kind = self.phase_kind(g, f)
        return [
            p.id
            for p in sorted(g.state.of_side(side), key=lambda q: q.id)
            if p.loc.kind == "hex" and ground.mover_problem(g, p, kind) is None
        ]

    @handles.options("move")
    def move_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        p = g.state.pieces.get(actor or "")
        if p is None or p.side != side:
            return []
        return [
            {"type": "move", "side": side, "piece": p.id, "to": g.board.label(j)}
            for j in ground.destinations(g, p, self.phase_kind(g, f))
        ]

    @handles.check("move")
    def check_move(self, g: Game, f: Frame, action: Action) -> None:
        p = own(g, action["side"], action["piece"])
        kind = self.phase_kind(g, f)
        why = ground.mover_problem(g, p, kind)
        if why:
            raise IllegalAction("EF 7.0", why)
        if not g.board.has_label(action["to"]):
            raise IllegalAction("EF 7.0", f"no hex {action['to']!r}")
        if g.board.idx(action["to"]) not in ground.destinations(g, p, kind):
            raise IllegalAction(
                "EF 7.0",
                f"{p.name or p.id} cannot reach {action['to']} this phase (movement points,"
                " terrain, enemy units and zones of control, stacking)",
            )

    @handles.apply("move")
    def move(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["piece"]]
        ground.move(g, p, g.board.idx(action["to"]), self.phase_kind(g, f))

    # ---- naval movement (NM 26.0)
    @handles.actors("sail")
    def sailors(self, g: Game, f: Frame, side: str) -> list[str]:
        sailed = ef(g).move.sailed
        return [
            p.id
            for p in sorted(g.state.of_side(side), key=lambda q: q.id)
            if is_naval(g, p)
            and p.id not in sailed
            and p.face == "ready"
            and afloat(g, p)
            and (port_of(g, p) is not None or at_sea(g, p))
            and "assaulted" not in p.status
        ]

    @handles.options("sail")
    def sail_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        p = g.state.pieces.get(actor or "")
        if p is None or actor not in self.sailors(g, f, side):
            return []
        groups = [[p]]
        if side == AXIS:
            mates = [
                g.state.pieces[q]
                for q in self.sailors(g, f, side)
                if q != p.id and tuple(g.state.pieces[q].loc) == tuple(p.loc)
            ]
            if mates:
                groups.append([p, *mates])
        out = []
        for grp in groups:
            try:
                check_ships(g, side, grp)
            except IllegalAction:
                continue
            for label, dest in sorted(destinations(g, grp).items()):
                try:
                    check_placement(g, grp, dest)
                except IllegalAction:
                    continue
                out.append(
                    {"type": "sail", "side": side, "ships": [q.id for q in grp], "to": label}
                )
        return out

    @handles.check("sail")
    def check_sail_action(self, g: Game, f: Frame, action: Action) -> None:
        ships = [own(g, action["side"], s) for s in action["ships"]]
        check_sail(g, action["side"], ships, action["to"])

    @handles.apply("sail")
    def sail(self, g: Game, f: Frame, action: Action) -> None:
        ships = [g.state.pieces[s] for s in action["ships"]]
        sail(g, ships, check_sail(g, action["side"], ships, action["to"]))

    # ---- naval transport (NM 28.12)
    @handles.actors("load")
    def loaders(self, g: Game, f: Frame, side: str) -> list[str]:
        out: list[str] = []
        for port in ports(g):
            if owner(g, port) != side:
                continue
            ships = [q for q in g.state.at(port.naval_loc) if q.side == side and is_naval(g, q)]
            if not ships:
                continue
            out.extend(
                q.id for q in g.state.at(port.ground_loc) if q.side == side and is_ground(g, q)
            )
        return sorted(out)

    @handles.options("load")
    def load_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        p = g.state.pieces.get(actor or "")
        if p is None or p.side != side:
            return []
        out = []
        for port in ports(g):
            if port.ground_loc != p.loc:
                continue
            for ship in g.state.at(port.naval_loc):
                if ship.side != side or not is_naval(g, ship):
                    continue
                for amph in (False, True):
                    if load_problem(g, p, ship, amph, self.phase_kind(g, f)) is None:
                        out.append(
                            {
                                "type": "load",
                                "side": side,
                                "piece": p.id,
                                "ship": ship.id,
                                "amphibious": amph,
                            }
                        )
        return out

    @handles.check("load")
    def check_load(self, g: Game, f: Frame, action: Action) -> None:
        p = own(g, action["side"], action["piece"])
        ship = g.state.pieces[action["ship"]]
        why = load_problem(g, p, ship, action["amphibious"], self.phase_kind(g, f))
        if why:
            raise IllegalAction("NM 28.12", why)

    @handles.apply("load")
    def load(self, g: Game, f: Frame, action: Action) -> None:
        load(
            g, g.state.pieces[action["piece"]], g.state.pieces[action["ship"]], action["amphibious"]
        )

    @handles.actors("unload")
    def unloaders(self, g: Game, f: Frame, side: str) -> list[str]:
        return [
            p.id
            for p in sorted(g.state.of_side(side), key=lambda q: q.id)
            if p.loc.kind == "piece" and unload_problem(g, p, self.phase_kind(g, f)) is None
        ]

    @handles.options("unload")
    def unload_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        if actor not in self.unloaders(g, f, side):
            return []
        return [{"type": "unload", "side": side, "piece": actor}]

    @handles.apply("unload")
    def unload(self, g: Game, f: Frame, action: Action) -> None:
        unload(g, g.state.pieces[action["piece"]])

    # ---- activation (EF 10.25, EF 8.54a)
    @handles.actors("activate")
    def activatable(self, g: Game, f: Frame, side: str) -> list[str]:
        if self.phase_kind(g, f) != "motorized":
            return []
        return [
            p.id
            for p in sorted(g.state.of_side(side), key=lambda q: q.id)
            if self.activation_hqs(g, p)
        ]

    def activation_hqs(self, g: Game, p: Piece) -> list[Piece]:
        """EF 10.25: the Operational HQs that may activate ``p`` now."""
        if not is_combat(g, p) or p.loc.kind != "hex" or motorized(g, p):
            return []
        if "activated" in p.status or p.id in ef(g).move.moved:
            return []
        used = ef(g).move.activations
        out = []
        for hq in sorted(g.state.of_side(p.side), key=lambda q: q.id):
            if not is_hq(hq) or hq.loc.kind != "hex" or hq.face == "non-op":
                continue
            if used.get(hq.id, 0) >= int(hq.stat("activations", 0)):
                continue
            if g.board.distance(int(hq.loc.ref), int(p.loc.ref)) <= int(hq.stat("command", 0)):
                out.append(hq)
        return out

    @handles.options("activate")
    def activate_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        p = g.state.pieces.get(actor or "")
        if p is None or p.side != side or self.phase_kind(g, f) != "motorized":
            return []
        return [
            {"type": "activate", "side": side, "piece": p.id, "hq": hq.id}
            for hq in self.activation_hqs(g, p)
        ]

    @handles.apply("activate")
    def activate(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["piece"]]
        p.status.add("activated")
        used = ef(g).move.activations
        used[action["hq"]] = used.get(action["hq"], 0) + 1
        g.emit("activate", f"{p.name or p.id} is activated", rule="EF 10.25")

    # ---- evacuation (NM 28.2)
    @handles.options("declare-evacuation")
    def evac_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [
            {"type": "declare-evacuation", "side": side, "port": port.name}
            for port in ports(g)
            if declare_problem(g, side, port, self.phase_kind(g, f)) is None
        ]

    @handles.check("declare-evacuation")
    def check_evac(self, g: Game, f: Frame, action: Action) -> None:
        why = declare_problem(
            g, action["side"], port_named(g, action["port"]), self.phase_kind(g, f)
        )
        if why:
            raise IllegalAction("NM 28.2", why)

    @handles.apply("declare-evacuation")
    def evacuate(self, g: Game, f: Frame, action: Action) -> None:
        port = port_named(g, action["port"])
        assert port is not None
        declare(g, port)

    @handles.options("complete-evacuation")
    def done_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [
            {"type": "complete-evacuation", "side": side, "port": port.name}
            for port in ports(g)
            if owner(g, port) == side
            and (ef(g).ports.get(port.name) is not None)
            and ef(g).ports[port.name].evacuation == "declared"
        ]

    @handles.apply("complete-evacuation")
    def evacuated(self, g: Game, f: Frame, action: Action) -> None:
        port = port_named(g, action["port"])
        assert port is not None
        complete(g, port, "declared complete")

    def close(self, g: Game, f: Frame) -> None:
        g.push("end-of-movement", {})


# ====================================================================== Shipping Attack (NM 31.2)
class Strikes(Phase):
    """NM 31.2: assigning air units to a Shipping Attack mission and launching it (Axis)."""

    in_port: ClassVar[bool] = True  # may ships in port be attacked in this phase?

    def strikes(self, g: Game) -> list[Strike]:
        return ef(g).combat.strikes

    def strike_targets(self, g: Game, side: str) -> list[Piece]:
        """NM 31.2: enemy naval units at sea, or in a port on the map in the Combat Phase;
        never flotillas (NM 32.1)."""
        out = []
        for p in sorted(g.state.of_side(other(side)), key=lambda q: q.id):
            if not is_naval(g, p) or not afloat(g, p):
                continue
            port = port_of(g, p)
            if at_sea(g, p) or (self.in_port and port is not None and port.hex is not None):
                out.append(p)
        return out

    def free_air(self, g: Game, side: str) -> list[Piece]:
        if side != AXIS:
            return []
        taken = {s.air for s in self.strikes(g)}
        if len(taken) >= MAX_AIR:
            return []
        return [p for p in ready_air(g, side) if p.id not in taken]

    @handles.actors("strike")
    def strikers(self, g: Game, f: Frame, side: str) -> list[str]:
        if not self.strike_targets(g, side):
            return []
        return [p.id for p in self.free_air(g, side) if interdiction_rating(p) > 0]

    @handles.options("strike")
    def strike_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        if actor not in self.strikers(g, f, side):
            return []
        return [
            {"type": "strike", "side": side, "air": actor, "target": t.id}
            for t in self.strike_targets(g, side)
        ]

    @handles.check("strike")
    def check_strike(self, g: Game, f: Frame, action: Action) -> None:
        target = g.state.pieces[action["target"]]
        if is_flotilla(g, target):
            raise IllegalAction("NM 32.1", "air units may not attack flotillas")
        if action["air"] not in self.strikers(g, f, action["side"]):
            raise IllegalAction(
                "NM 31.2",
                "a Ready Axis air unit with an Interdiction rating, not yet assigned,"
                " at most three to a mission",
            )
        if target not in self.strike_targets(g, action["side"]):
            raise IllegalAction(
                "NM 31.2",
                f"{target.id} may not be attacked now (in the Reaction Phase only at sea)",
            )

    @handles.apply("strike")
    def strike(self, g: Game, f: Frame, action: Action) -> None:
        ef(g).combat.raw()["strikes"].append(Strike.new(air=action["air"], target=action["target"]))

    @handles.actors("escort")
    def escorts(self, g: Game, f: Frame, side: str) -> list[str]:
        if not any(s.target for s in self.strikes(g)):
            return []
        return [p.id for p in self.free_air(g, side)]

    @handles.options("escort")
    def escort_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        if actor not in self.escorts(g, f, side):
            return []
        return [{"type": "escort", "side": side, "air": actor}]

    @handles.apply("escort")
    def escort(self, g: Game, f: Frame, action: Action) -> None:
        ef(g).combat.raw()["strikes"].append(Strike.new(air=action["air"], target=""))

    @handles.options("launch")
    def launch_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "launch", "side": side}] if any(s.target for s in self.strikes(g)) else []

    @handles.apply("launch")
    def launch(self, g: Game, f: Frame, action: Action) -> None:
        strikes = [s.raw() for s in self.strikes(g)]
        ef(g).combat.strikes = []
        g.push("shipping-attack", {"side": action["side"], "strikes": strikes, "survivors": []})


@implements("EF 7.5", "NM 31.2", "NM 30.22")
class Reaction(Strikes):
    """EF 7.5: the other side's motorized units may move half their allowance; the Axis may
    fly Shipping Attacks against Soviet naval units still at sea (NM 31.2).

    Rules: EF 7.5, NM 31.2, NM 30.22.
    """

    name = "reaction"
    title = "Reaction Phase"
    rule = "EF 7.5"
    kind = "reaction"
    by_other = True
    in_port = False

    def begin(self, g: Game, f: Frame) -> None:
        ef(g).move = MoveRecord(MoveRecord.new(kind="reaction"))
        ef(g).combat = CombatRecord(CombatRecord.new())

    @handles.actors("move")
    def movers(self, g: Game, f: Frame, side: str) -> list[str]:
        return [
            p.id
            for p in sorted(g.state.of_side(side), key=lambda q: q.id)
            if p.loc.kind == "hex" and ground.mover_problem(g, p, "reaction") is None
        ]

    @handles.options("move")
    def move_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        p = g.state.pieces.get(actor or "")
        if p is None or p.side != side:
            return []
        return [
            {"type": "move", "side": side, "piece": p.id, "to": g.board.label(j)}
            for j in ground.destinations(g, p, "reaction")
        ]

    @handles.apply("move")
    def move(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["piece"]]
        ground.move(g, p, g.board.idx(action["to"]), "reaction")


# ====================================================================== Combat Phase
@implements("EF 15.0")
class Combat(Sequence_):
    """EF 15.0: the other side's coast artillery fires at ships first, then the phasing side
    flies Shipping Attacks (the Axis) and makes its Declared Attacks."""

    name = "combat"
    title = "Combat Phase"
    rule = "EF 15.0"
    children = ("coast-fire", "combat-actions")

    def label(self, g: Game, f: Frame) -> str:
        return f"{ef(g).active} Combat Phase"

    def enter(self, g: Game, f: Frame) -> None:
        st = ef(g)
        st.phase = "combat"
        st.phase_no += 1
        st.combat = CombatRecord(CombatRecord.new())

    def leave(self, g: Game, f: Frame) -> None:
        for p in g.state.pieces.values():
            if "special" in p.status:
                p.status.discard("special")


@implements("NM 27.12", "NM 27.31")
class CoastFire(Phase):
    """NM 27.12: in the enemy Combat Phase each CD unit may fire at one naval unit or flotilla
    it reaches; ending the step resolves the fire (NM 27.31)."""

    name = "coast-fire"
    title = "Coast artillery fire"
    rule = "NM 27.12"
    kind = "combat"
    by_other = True

    def enter(self, g: Game, f: Frame) -> None:
        params(f)["shots"] = []

    @handles.actors("cd-fire")
    def firers(self, g: Game, f: Frame, side: str) -> list[str]:
        rec = ef(g).combat
        return [
            p.id
            for p in sorted(g.state.of_side(side), key=lambda q: q.id)
            if is_cd(g, p) and p.loc.kind == "hex" and p.id not in rec.cd_fired and targets_of(g, p)
        ]

    @handles.options("cd-fire")
    def fire_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        cd = g.state.pieces.get(actor or "")
        if cd is None or cd.side != side:
            return []
        return [
            {"type": "cd-fire", "side": side, "cd": cd.id, "target": t.id}
            for t in targets_of(g, cd)
        ]

    @handles.check("cd-fire")
    def check_fire(self, g: Game, f: Frame, action: Action) -> None:
        cd = own(g, action["side"], action["cd"])
        why = cd_fire_problem(g, cd, g.state.pieces[action["target"]])
        if why:
            raise IllegalAction("NM 27.12", why)

    @handles.apply("cd-fire")
    def fire(self, g: Game, f: Frame, action: Action) -> None:
        ef(g).combat.cd_fired.append(action["cd"])
        params(f)["shots"].append([action["cd"], action["target"]])

    # defined after the handlers: the name ``actors`` is the decorator above this point
    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        """The other side, while one of its CD units has a target; else nobody (the step ends
        by itself)."""
        side = self.side(g, f)
        return [side] if self.firers(g, f, side) else []

    def run(self, g: Game, f: Frame) -> None:
        self.close(g, f)
        g.finish(f)

    def close(self, g: Game, f: Frame) -> None:
        resolve_fire(g, [(a, b) for a, b in params(f)["shots"]])


@implements("EF 12.0", "EF 15.0", "NM 30.23", "NM 30.4", "NM 31.2")
class CombatActions(Strikes):
    """EF 15.0: the phasing side's Shipping Attacks (NM 31.2), special-transport landings
    (NM 30.4) and Declared Attacks (EF 12.0, Amphibious Assaults NM 30.23)."""

    name = "combat-actions"
    title = "Combat Phase"
    rule = "EF 15.0"
    kind = "combat"

    def enter(self, g: Game, f: Frame) -> None:
        """Part of the Combat Phase: no new phase number."""

    def attack_problem(self, g: Game, side: str, i: int) -> str | None:
        """EF 12.0: why ``side`` may not declare an attack on hex ``i`` (None: it may): a land
        hex not yet attacked, held by the enemy (or empty, for an Amphibious Assault,
        NM 30.23b), with at least one unit able to attack it."""
        label = g.board.label(i)
        if not is_land(g, i):
            return "only land hexes are attacked (units at sea are not, NM 30.25d)"
        if label in ef(g).combat.attacked:
            return f"{label} has already been attacked this phase"
        foes = defenders(g, i, side)
        if any(q.side == side for q in g.state.at_hex(i)) and foes:
            return "a hex held by both sides"
        from_sea = self.assault_from_sea(g, side, i)
        if not foes and not (is_coastal(g, i) and from_sea):
            return f"{label} holds no enemy unit (only an Amphibious Assault lands on an empty hex)"
        probe = AttackRecord(AttackRecord.new(side=side, target=label, vacant=not foes))
        if not attacker_options(g, probe, from_sea):
            return f"no unit of yours can attack {label}"
        return None

    def assault_from_sea(self, g: Game, side: str, i: int) -> bool:
        """NM 30.1: a naval unit of ``side`` waits next to ``i`` with assault units aboard."""
        rec = ef(g).combat
        for j in g.board.neighbors(i):
            for q in g.state.at_hex(j):
                if (
                    q.side == side
                    and is_naval(g, q)
                    and sea_hex(g, q) == j
                    and any(u.id not in rec.attackers for u in amphibious_cargo(g, q))
                ):
                    return True
        return False

    @handles.actors("attack")
    def targets(self, g: Game, f: Frame, side: str) -> list[str]:
        cands: set[int] = set()
        for q in g.state.of_side(side):
            if q.loc.kind == "hex":
                cands.update(g.board.neighbors(int(q.loc.ref)))
        return [g.board.label(i) for i in sorted(cands) if self.attack_problem(g, side, i) is None]

    @handles.options("attack")
    def attack_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        if actor is None or not g.board.has_label(actor):
            return []
        if self.attack_problem(g, side, g.board.idx(actor)) is not None:
            return []
        return [{"type": "attack", "side": side, "target": actor}]

    @handles.check("attack")
    def check_attack(self, g: Game, f: Frame, action: Action) -> None:
        if not g.board.has_label(action["target"]):
            raise IllegalAction("EF 12.0", f"no hex {action['target']!r}")
        why = self.attack_problem(g, action["side"], g.board.idx(action["target"]))
        if why:
            raise IllegalAction("EF 12.0", why)

    @handles.apply("attack")
    def attack(self, g: Game, f: Frame, action: Action) -> None:
        side, target = action["side"], action["target"]
        i = g.board.idx(target)
        vacant = not defenders(g, i, side)
        start_attack(g, side, target, vacant)
        step = "amphibious-assault" if self.assault_from_sea(g, side, i) else "declared-attack"
        g.push(step, {})

    @handles.actors("land")
    def landers(self, g: Game, f: Frame, side: str) -> list[str]:
        return [
            p.id
            for p in sorted(g.state.of_side(side), key=lambda q: q.id)
            if p.loc.kind == "piece" and (p.type == "msu" or is_hq(p)) and self.land_hexes(g, p)
        ]

    def land_hexes(self, g: Game, p: Piece) -> list[int]:
        ship = g.state.pieces[str(p.loc.ref)]
        i = sea_hex(g, ship)
        if i is None:
            return []
        return [j for j in g.board.neighbors(i) if special_landing_problem(g, p, j) is None]

    @handles.options("land")
    def land_opts(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        p = g.state.pieces.get(actor or "")
        if p is None or p.side != side or p.loc.kind != "piece":
            return []
        return [
            {"type": "land", "side": side, "piece": p.id, "to": g.board.label(j)}
            for j in self.land_hexes(g, p)
        ]

    @handles.check("land")
    def check_land(self, g: Game, f: Frame, action: Action) -> None:
        p = own(g, action["side"], action["piece"])
        if not g.board.has_label(action["to"]):
            raise IllegalAction("NM 30.4", f"no hex {action['to']!r}")
        why = special_landing_problem(g, p, g.board.idx(action["to"]))
        if why:
            raise IllegalAction("NM 30.4", why)

    @handles.apply("land")
    def land(self, g: Game, f: Frame, action: Action) -> None:
        special_landing(g, g.state.pieces[action["piece"]], g.board.idx(action["to"]))


# ====================================================================== Engineering Phase
@implements("EF 8.0", "NM 28.2", "EF 10.25")
class Engineering(Step):
    """EF 8.0: Non-Op HQs on land recover; Do Not Move 2 markers of landed units turn to 1
    (NM 28.2); activations end (EF 10.25)."""

    name = "engineering"
    title = "Engineering Phase"
    rule = "EF 8.0"

    def label(self, g: Game, f: Frame) -> str:
        return f"{ef(g).active} Engineering Phase"

    def run(self, g: Game, f: Frame) -> None:
        side = ef(g).active
        st = ef(g)
        st.phase = "engineering"
        st.phase_no += 1
        dnm_countdown(g, side)
        for p in sorted(g.state.of_side(side), key=lambda q: q.id):
            if is_hq(p) and p.face == "non-op" and p.loc.kind == "hex":
                p.face = "operational"
                g.emit("hq", f"{p.name or p.id} is Operational again", rule="EF 8.0")
            p.status.discard("activated")
            p.status.discard("port-to-port")
        g.finish(f)


STEPS: tuple[type[Step], ...] = (
    NavalReadiness,
    AirInterdiction,
    SupplyStatus,
    SupplyTrace,
    Movement,
    Reaction,
    Combat,
    CoastFire,
    CombatActions,
    Engineering,
)
