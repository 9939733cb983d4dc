"""The typed state of the eastfront rule system: where each fact lives, and its shape.

Layout (every record below is a view over JSON in the state):

* ``state.vars["ef"]`` -- :class:`EFState`: the phasing side, the current phase and its
  number, the Naval Movement Interdiction Box (:class:`NmiRecord`), the Zones of
  Interdiction (:class:`ZoiRecord` by hex label), one :class:`PortRecord` per port, and the
  records of the current movement phase (:class:`MoveRecord`), Combat Phase
  (:class:`CombatRecord`) and Air Interdiction Phase (:class:`AirRecord`).
* ``piece.attrs`` of a naval unit or flotilla -- :class:`NavalAttrs` (damage points,
  at-sea support given); of a ground unit -- :class:`GroundAttrs` (Do Not Move marker,
  evacuation, unloading, amphibious assault, naval base placement). Printed values stay on
  the faces (``piece.faces``); the face up carries the two-sided states: ``full``/``reduced``
  (steps), ``ready``/``sailed`` (naval units), ``operational``/``non-op`` (HQs).
* ``piece.status`` flags: ``activated`` (EF 10.25, NM 30.21c), ``port-to-port`` (EF 8.54a),
  ``amphibious`` (loaded for an Amphibious Assault, NM 30.1), ``oos`` (out of General Supply,
  EF 11.0), ``no-loc`` (no line of communication to a port or source, EF 20.0),
  ``assaulted`` (made an Amphibious Assault this turn, NM 30.24f), ``special`` (an MSU landed
  by special transport this phase, NM 30.4).
* Locations: ground units on hexes or in boxes (holding boxes, the Eliminated Box); naval
  units in a port box (``box``), on an anchorage hex, at sea in a sea zone (``area``) or on an
  all-sea hex of a zone (a mission hex), or in the Cadre or Eliminated Box; cargo inside its
  carrier (``piece``); air units in their side's Ready or Flown box.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from grognard.core.record import DICT, LIST, Record, factory
from grognard.core.sequence import other_of

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.core.state import Frame

AXIS = "Axis"
SOVIET = "Soviet"
SIDES = (AXIS, SOVIET)

ELIMINATED = "eliminated"  # box kinds the scenario must declare
CADRE = "cadre"
AIR_READY = "air-ready"
AIR_FLOWN = "air-flown"
NMI_BOX = "naval-interdiction"


class NmiRecord(Record):
    """The Naval Movement Interdiction Box (NM 31.1): the Interdiction Level marker in it."""

    level: int = 0  # 0: no marker; 1 or 2
    side: str = ""  # the side that placed it
    turn: int = 0  # the turn it was placed


class ZoiRecord(Record):
    """A Zone of Interdiction (EF 14.6) centred on one hex (the hex and its neighbours)."""

    level: int = 1  # 1 or 2
    side: str = ""  # the side that placed it
    turn: int = 0


class PortRecord(Record):
    """What happened to one port in play (NM 26.24, NM 26.27, NM 28.2)."""

    turn: int = 0  # the game turn the load/unload budget below belongs to
    loaded: int = 0  # NTP loaded in that turn
    unloaded: int = 0  # NTP unloaded in that turn
    owner: str = ""  # the side controlling it when last seen
    captured: int = 0  # the turn of its last capture (0: never)
    evacuation: str = ""  # "" none, "declared" (marker on), "complete" (marker goes at interphase)


class Sailing(Record):
    """One naval move made this phase (NM 26.0), kept for its loss roll at the end of the phase
    (NM 27.1)."""

    ships: list[str] = LIST  # the naval unit, or an Axis group (NM 26.12a)
    start: list[str | int] = LIST  # the location it left ([kind, ref])
    departure: str = ""  # the port it left ("": it began at sea, NM 27.32c)
    nmp: int = 0  # Naval Movement Points spent (NM 26.14)
    zones: list[str] = LIST  # the sea zones it entered
    dest: str = ""  # what it sailed to (a zone, a port or a hex label)
    cd: int = 0  # enemy coast artillery points reaching the move (NM 27.2b, NM 30.3)
    air: bool = False  # an enemy Interdiction Level marker covers its zones (NM 27.2a)
    rolled: bool = False  # its loss roll is made


class FlotillaMove(Record):
    """A flotilla's movement this phase (NM 32.1): through all-sea hexes, within CD range."""

    sea: bool = False  # it moved through at least one all-sea hex
    cd: int = 0  # enemy CD points in range of its path
    start: int = -1  # the hex it left (an Abort sends it back)
    rolled: bool = False


class MoveRecord(Record):
    """The current movement (or reaction) phase (EF 7.0, NM 26.0, NM 28.1)."""

    kind: str = ""  # "movement", "motorized" or "reaction"
    moved: list[str] = LIST  # ground units that moved (EF 7.0)
    transported: list[str] = LIST  # units loaded or unloaded: no other movement (NM 28.1a)
    sailed: list[str] = LIST  # naval units that sailed (NM 26.14: once per phase)
    sailings: list[Sailing] = LIST
    flotillas: dict[str, FlotillaMove] = DICT
    placed: dict[str, int] = DICT  # all-sea hex -> combat units readied for assault (NM 30.22a)
    activations: dict[str, int] = DICT  # HQ -> activations used (EF 10.25)


class Strike(Record):
    """An air unit assigned to a Shipping Attack mission (NM 31.2)."""

    air: str = ""
    target: str = ""  # the naval unit it attacks ("": an escort)


class CombatRecord(Record):
    """The current Combat Phase (EF 12.0, EF 15.0)."""

    attacked: list[str] = LIST  # Defender Hexes attacked (each once)
    attackers: list[str] = LIST  # units that attacked (each once)
    supporters: list[str] = LIST  # artillery that supported (one Defender Hex each: NM 30.3)
    cd_fired: list[str] = LIST  # CD units that made Shipping Attacks (NM 27.12a)
    strikes: list[Strike] = LIST  # the Shipping Attack mission being assigned (NM 31.2)


class Sortie(Record):
    """An air unit assigned in the Air Interdiction Phase (EF 14.6, NM 31.1)."""

    air: str = ""
    target: str = ""  # a hex label, or NMI_BOX
    role: str = "mission"  # "mission" or "escort"


class AirRecord(Record):
    """The current Air Interdiction Phase's assignments."""

    sorties: list[Sortie] = LIST


class EFState(Record):
    """``state.vars["ef"]``: the rule system's own part of the state (see the module
    docstring)."""

    active: str = ""  # the phasing side
    phase: str = ""  # the kind of the current phase
    phase_no: int = 0  # phases begun so far (NM 28.12g: "the next phase of the same Segment")
    nmi: NmiRecord = factory(NmiRecord.new)
    zoi: dict[str, ZoiRecord] = DICT
    ports: dict[str, PortRecord] = DICT
    move: MoveRecord = factory(MoveRecord.new)
    combat: CombatRecord = factory(CombatRecord.new)
    air: AirRecord = factory(AirRecord.new)
    interceptors: list[str] = LIST  # the fighters opposing the air mission being resolved
    attack: dict[str, Any] = DICT  # the Declared Attack being resolved (combat.attack.AttackRecord)


class NavalAttrs(Record):
    """``piece.attrs`` of a naval unit or a flotilla (NM 27.33, NM 29.1, NM 32.1)."""

    damage: int = 0  # Damage Points (the Number marker on its facsimile)
    supported: bool = False  # gave artillery support from sea: returns to port (NM 29.1)


class GroundAttrs(Record):
    """``piece.attrs`` of a ground unit (NM 28.2, NM 28.12g, NM 30.21, NM 32.2)."""

    dnm: int = 0  # Do Not Move marker: 2, 1 or 0 (none)
    dnm_turn: int = 0  # the turn it landed (2 -> 1) or turned to 1 (1 -> removed); 0: at sea
    evacuated: bool = False  # left a port by evacuation and has not yet landed at a port
    unloaded_phase: int = 0  # the phase number it was unloaded (an MSU: usable after it)
    assault_turn: int = 0  # the turn of its Amphibious Assault (0: none)
    placed_turn: int = 0  # a Naval Base: the turn it was placed (active from the next)


def params(f: Frame) -> dict[str, Any]:
    """A frame's parameters, typed (the core sets them through ``__slots__``, which a type
    checker does not see)."""
    return cast("dict[str, Any]", cast(Any, f).params)


def ef(g: Game) -> EFState:
    """The rule system's record (created with every field at set-up)."""
    return EFState.at(g.state.vars, "ef")


def turn_no(g: Game) -> int:
    """The index of the current game turn (1 = the first)."""
    return int(g.state.turn.get("index", 0))


def other(side: str) -> str:
    """The other side of the two."""
    return other_of((AXIS, SOVIET), side)
