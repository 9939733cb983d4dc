"""The ``eastfront`` rule system: a minimal East Front series base (ours) and the Naval Module.

The East Front series rulebook is not in the seeds: the base rules (ids ``EF ...``) are our
design, just what the module's cross-references need, each listed ``outside-seeds`` with its
stand-in named. The Naval Module (ids ``NM ...``, seed 004 lines 1-24) is implemented whole.
``docs/rulesets/eastfront.md`` explains both and every reading.

Layout (imports flow down the list; no module imports one below it):

=================  ==========================================================================
``model``          the typed state (records), sides, box kinds; ``data``, ``options``,
                   ``actions``, ``chance``, ``scenario_model``, ``weather``, ``fog``: data
                   files, rule options, the action catalogue, chance handlers, the
                   scenario's tables, weather, fog of war
``units/``         unit kinds and values, step losses, stacking (EF 4.0, EF 4.4, EF 5.0)
``map/``           hex classes and sea zones, ports, zones of control, control (EF 2.0,
                   EF 6.0, EF 9.0, NM 26.1, NM 26.2)
``air/zones``      Zones of Interdiction and the Naval Movement Interdiction Box (EF 14.6)
``naval/``         naval units, damage, capacities, coast artillery, movement, the loss table,
                   transport, evacuation, readiness, the forced sortie, end of movement,
                   amphibious assault, coast artillery fire (NM 25-32)
``air/``           air units, air combat and AA, missions (EF 14, NM 31)
``supply/``        General and Attack Supply, Soviet Surrender (EF 11, EF 20)
``movement/``      what entering a hex does, ground and flotilla movement, reinforcements
``combat/``        odds, support, retreats, Declared Attacks (EF 12)
``sequence/``      the turn track, the player turns and their phases (EF 3.0), victory
``ruleset``        this class
=================  ==========================================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from grognard.core.state import Frame, Piece
from grognard.rulesets.base import Ruleset
from grognard.rulesets.eastfront import fog
from grognard.rulesets.eastfront.actions import ACTIONS
from grognard.rulesets.eastfront.air.missions import AirMissions, Intercept, ShippingAttack
from grognard.rulesets.eastfront.combat.attack import (
    Advance,
    Declaration,
    DeclaredAttack,
    DefensiveSupport,
)
from grognard.rulesets.eastfront.data import data_of_ruleset
from grognard.rulesets.eastfront.map.control import port_record
from grognard.rulesets.eastfront.map.geography import is_sea, zone_of, zones
from grognard.rulesets.eastfront.map.ports import CATEGORIES, owner, ports
from grognard.rulesets.eastfront.model import (
    AIR_FLOWN,
    AIR_READY,
    CADRE,
    ELIMINATED,
    NMI_BOX,
    SIDES,
    EFState,
    ef,
)
from grognard.rulesets.eastfront.naval.amphibious import AmphibiousAssault
from grognard.rulesets.eastfront.naval.capacity import load_room, supply_capacity
from grognard.rulesets.eastfront.naval.endmove import EndOfMovement
from grognard.rulesets.eastfront.naval.loss import AbortChoice, NavalLoss
from grognard.rulesets.eastfront.naval.sortie import ForcedSortie
from grognard.rulesets.eastfront.naval.transport import capacity_cost
from grognard.rulesets.eastfront.naval.units import afloat, capacity, damage, is_ready, protection
from grognard.rulesets.eastfront.options import OPTIONS
from grognard.rulesets.eastfront.scenario_model import EFRules, EFVictory
from grognard.rulesets.eastfront.sequence.phases import STEPS as PHASES
from grognard.rulesets.eastfront.sequence.turn import GameTurns, Interphase, PlayerTurn, Turn
from grognard.rulesets.eastfront.units.kinds import is_ground, is_naval, stacking_points, unit_class
from grognard.rulesets.eastfront.units.stacking import LIMIT
from grognard.rulesets.eastfront.weather import WEATHER

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.scenario.model import Scenario


class FaceValues(BaseModel):
    """The printed values a face of an eastfront counter may carry (EF 4.0, NM 25.1)."""

    model_config = ConfigDict(extra="forbid")

    attack: int | None = None
    defense: int | None = None
    move: int | None = None
    sp: int | None = None
    motorized: bool | None = None
    support: int | None = None
    range: int | None = None
    aa: int | None = None
    command: int | None = None
    activations: int | None = None
    asp: int | None = None
    protection: int | None = None
    capacity: int | None = None
    nmp: int | None = None
    recovery: int | None = None
    interdiction: int | None = None
    fighter: int | None = None


class EastFront(Ruleset):
    """East Front series base (ours) with the Naval Module (2018 draft)."""

    name = "eastfront"
    title = "East Front series (our base) with the Naval Module"
    version = "0.1"
    rule_prefix = "NM"
    root_step = "ef-game"
    actions = ACTIONS
    step_classes = (
        GameTurns,
        Turn,
        PlayerTurn,
        Interphase,
        *PHASES,
        EndOfMovement,
        NavalLoss,
        AbortChoice,
        ForcedSortie,
        AirMissions,
        Intercept,
        ShippingAttack,
        DeclaredAttack,
        AmphibiousAssault,
        Declaration,
        DefensiveSupport,
        Advance,
    )
    option_specs = OPTIONS
    terrain_types = ("clear", "rough", "forest", "mountain", "marsh", "sea", "shallow")
    point_kinds = ("port", "city", "town", "fortress", "supply-source", "objective")
    area_kinds = ("sea_zone",)
    box_kinds = ("port-box", "holding", ELIMINATED, CADRE, AIR_READY, AIR_FLOWN, NMI_BOX)
    schedule_kinds = ("reinforcement",)

    # ------------------------------------------------------------------ scenario
    def scenario_model(self) -> type[BaseModel]:
        return EFRules

    def piece_attr_model(self) -> type[BaseModel]:
        return FaceValues

    def piece_types(self) -> set[str]:
        return set(data_of_ruleset(self).kinds)

    def check_scenario(self, sc: Scenario) -> list[tuple[str, str]]:
        """Sides, boxes, sea zones, ports, faces and the [victory] table."""
        out: list[tuple[str, str]] = []
        if tuple(sc.sides) != SIDES and tuple(sc.sides) != SIDES[::-1]:
            out.append(("scenario.sides", f"the sides are {SIDES[0]!r} and {SIDES[1]!r}"))
        kinds = {b.kind for b in sc.board.boxes.values()}
        for need in (ELIMINATED, CADRE):
            if need not in kinds:
                out.append(("boxes", f"a box of kind {need!r} is needed"))
        for b in sc.board.boxes.values():
            if b.kind in (AIR_READY, AIR_FLOWN) and b.attrs.get("side") not in SIDES:
                out.append((f"boxes.{b.name}.attrs.side", "name the side of an air box"))
            if b.kind == "holding" and b.attrs.get("zone"):
                if b.attrs["zone"] not in sc.board.areas:
                    out.append((f"boxes.{b.name}.attrs.zone", "unknown sea zone"))
                if b.attrs.get("category", "major") not in CATEGORIES:
                    out.append((f"boxes.{b.name}.attrs.category", f"one of {CATEGORIES}"))
                if b.attrs.get("side") not in SIDES:
                    out.append((f"boxes.{b.name}.attrs.side", "name the side owning the port"))
        names = {a.name for a in sc.board.areas.values()}
        for a in sc.board.areas.values():
            for other_zone in a.adjacent:
                if other_zone not in names:
                    out.append((f"areas.{a.name}.adjacent", f"unknown area {other_zone!r}"))
            for z, hexes in dict(a.attrs.get("passages", {})).items():
                if z not in a.adjacent:
                    out.append((f"areas.{a.name}.attrs.passages.{z}", "not an adjacent zone"))
                for h in hexes:
                    if not sc.board.has_label(h):
                        out.append((f"areas.{a.name}.attrs.passages.{z}", f"unknown hex {h!r}"))
        terrain = data_of_ruleset(self).terrain
        for a in sc.board.areas.values():
            for i in a.hexes:
                if not terrain[sc.board.terrain_of(int(i))].sea:
                    out.append((f"areas.{a.name}.hexes", f"{sc.board.label(int(i))} is not sea"))
                    break
        for i, plist in sc.board.points.items():
            for pt in plist:
                if pt.kind == "supply-source" and pt.attrs.get("side") not in SIDES:
                    out.append((f"places.{pt.name or sc.board.label(i)}", "give attrs.side"))
                if pt.kind != "port":
                    continue
                where = f"places.{pt.name}"
                if pt.attrs.get("category") not in CATEGORIES:
                    out.append((f"{where}.attrs.category", f"one of {CATEGORIES}"))
                if pt.attrs.get("zone") not in names:
                    out.append((f"{where}.attrs.zone", "the port's sea zone (an area name)"))
                box = pt.attrs.get("box")
                if box is not None and box not in sc.board.boxes:
                    out.append((f"{where}.attrs.box", f"unknown box {box!r}"))
        for n, t in enumerate(sc.data.turns):
            w = t.attrs.get("weather", "clear")
            if w not in WEATHER:
                out.append((f"turns[{n}].attrs.weather", f"one of {WEATHER}"))
        try:
            v = EFVictory.model_validate(sc.data.victory)
            for h in v.axis + v.soviet:
                if not sc.board.has_label(h):
                    out.append(("victory", f"unknown hex {h!r}"))
        except ValueError as e:
            out.append(("victory", str(e).splitlines()[0]))
        rules = sc.rules if isinstance(sc.rules, EFRules) else EFRules()
        if rules.first not in SIDES:
            out.append(("rules.first", f"one of {SIDES}"))
        for z in rules.nmi_zones:
            if z not in names:
                out.append(("rules.nmi_zones", f"unknown sea zone {z!r}"))
        for pd in sc.data.pieces:
            uk = data_of_ruleset(self).kinds.get(pd.type)
            if uk is None:
                continue
            if uk.cls == "naval" and not {"ready", "sailed"} <= set(pd.faces):
                out.append((f"pieces.{pd.id}.faces", "a naval unit has 'ready' and 'sailed'"))
            if pd.type == "t" and any(int(v.get("protection", 0)) < 2 for v in pd.faces.values()):
                out.append(
                    (
                        f"pieces.{pd.id}.faces",
                        "a transport needs a protection of 2 or more: it comes back from the"
                        " Cadre Box with 2 Damage Points (NM 27.44)",
                    )
                )
            if pd.type == "hq" and not {"operational", "non-op"} <= set(pd.faces):
                out.append((f"pieces.{pd.id}.faces", "an HQ has 'operational' and 'non-op'"))
        return out

    # ------------------------------------------------------------------ set-up
    def setup(self, g: Game) -> None:
        g.scenario.place_pieces(g.state)
        g.state.vars["ef"] = EFState.new()
        for i in g.board.points:
            holders = {p.side for p in g.state.at_hex(int(i)) if is_ground(g, p)}
            if len(holders) == 1 and int(i) not in g.state.control:
                g.state.control[int(i)] = holders.pop()
        for port in ports(g):
            port_record(g, port.name).owner = owner(g, port)
        g.state.frames = [Frame(self.root_step, {})]

    # ------------------------------------------------------------------ views
    def piece_visibility(self, g: Game, piece: Piece, side: str | None) -> str:
        return fog.visibility(g, piece, side)

    def public_extra(self, g: Game, side: str | None) -> dict[str, Any]:
        """The open facts of the position: the phase, interdiction markers, ports."""
        st = ef(g)
        port_view = {}
        for port in ports(g):
            holder = owner(g, port)
            rec = st.ports.get(port.name)
            port_view[port.name] = {
                "category": port.category,
                "zone": port.zone,
                "hex": g.board.label(port.hex) if port.hex is not None else None,
                "box": port.box,
                "owner": holder,
                "evacuation": rec.evacuation if rec is not None else "",
                "supply": supply_capacity(g, port, holder) if holder else 0,
                "load": load_room(g, port, holder) if holder else 0,
            }
        return {
            "markers": g.state.markers,
            "tracks": g.state.tracks,
            "eastfront": {
                "phasing": st.active,
                "phase": st.phase,
                "naval_interdiction": {"level": st.nmi.level, "side": st.nmi.side},
                "zones_of_interdiction": {k: dict(v.raw()) for k, v in st.zoi.items()},
                "ports": port_view,
                "sea_zones": zones(g),
            },
        }

    # ------------------------------------------------------------------ checks
    def invariants(self, g: Game) -> list[str]:
        out: list[str] = []
        for i in g.state.occupied_hexes():
            ground = [p for p in g.state.at_hex(i) if is_ground(g, p)]
            sides = {p.side for p in ground}
            if len(sides) > 1:
                out.append(f"EF 5.0: both sides' ground units in {g.board.label(i)}")
            for s in sides:
                pts = sum(stacking_points(g, p) for p in ground if p.side == s)
                if pts > LIMIT:
                    out.append(f"EF 5.0: {s} overstacked in {g.board.label(i)} ({pts})")
            if is_sea(g, i):
                for p in ground:
                    if unit_class(g, p) != "flotilla":
                        out.append(f"EF 2.0: {p.id} stands on the all-sea hex {g.board.label(i)}")
        for p in g.state.pieces.values():
            if is_naval(g, p):
                if afloat(g, p) and p.loc.kind != "box" and damage(p) > protection(p):
                    out.append(f"NM 27.33: {p.id} afloat with {damage(p)} Damage Points")
                if p.loc.kind == "area" and not is_ready(p):
                    out.append(f"NM 26.3: {p.id} is Sailed at sea")
                if (
                    p.loc.kind == "hex"
                    and is_sea(g, int(p.loc.ref))
                    and zone_of(g, int(p.loc.ref)) is None
                ):
                    out.append(f"NM 26.11: {p.id} is on a sea hex outside every zone")
                carried = sum(capacity_cost(g, q) or 0 for q in g.state.contents(p.id))
                if carried > capacity(p):
                    out.append(f"NM 28.11: {p.id} carries {carried} > {capacity(p)}")
            elif p.loc.kind == "piece":
                carrier = g.state.pieces.get(str(p.loc.ref))
                if carrier is None or not is_naval(g, carrier):
                    out.append(f"NM 28.1: {p.id} is carried by something not a naval unit")
        if ef(g).nmi.level > 2:
            out.append("NM 31.1: Interdiction Level above 2")
        return out

    def terrain_styles(self) -> dict[str, dict[str, str]]:
        """Shallow Water drawn paler than the open sea."""
        return {"shallow": {"fill": "#b8d4ea", "pattern": "waves"}}
