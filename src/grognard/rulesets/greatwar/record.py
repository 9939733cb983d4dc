"""The layout of the greatwar rule system's record, ``state.vars["gw"]`` (read and written through
:func:`.mechanics.gw`).

The record is plain JSON-like data -- dicts with string keys, lists, strings, numbers, booleans and
``None`` -- and is serialised canonically with the rest of the game state (so it weighs in saves
and state hashes). Exact values are kept as :class:`~fractions.Fraction` where the rules already
use them; the canonical encoding writes those as ``{"$frac": ...}``. Dict keys written as ints by
the code come back as strings after a save, which is why hexes and hexsides used as keys are
always stored as ``str(i)``; tuples come back as lists, so none is stored.

Every key of the record is declared here, with the type of its value and the rule it serves. A
key not listed here must not be stored: add it to :class:`GWRecord` first. Nested records whose
keys are fixed have their own ``TypedDict``; where the keys are data (side, nation, command and
piece names, hex indices as strings) the value is a ``dict[str, ...]``.

This module imports nothing from the rest of the rule system (only the standard library), so any
greatwar module may import it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, TypedDict

# ============================================================================ nested records


class HeadRecord(TypedDict):
    """A railhead or roadhead of the scenario (OT 7): the head hex, then the line beyond it."""

    # "rail" or "road"
    kind: str
    # hex indices: the head hex first, then the hexes of the unusable line beyond
    hexes: list[int]


class SiegeRecord(TypedDict, total=False):
    """A hex under siege (OT 15G)."""

    # the side whose units are besieged in the hex
    besieged: str
    # the side holding the siege
    sieging: str
    # set ("yes") while the sieging units retreat from a siege a relieving unit lifted
    retreating: str


class SiegeCandidates(TypedDict, total=False):
    """The hexes the phasing player may put under siege this movement phase (OT 15G)."""

    # the phasing side
    side: str
    # hex indices, in increasing order
    hexes: list[int]


class SpecialDraw(TypedDict):
    """One use of a special general supply source in an initial phase (OT 11C2b)."""

    # "res-pt", "gsp" or "fortress"
    kind: str
    # the Res Pt's id, or the label of the hex of the GSPs or the fortress
    source: str
    # the ids of the units drawing on it
    pieces: list[str]


class SupplyRecord(TypedDict, total=False):
    """The last initial-phase general supply check (OT 11B) and the special sources drawn on in it
    (OT 11C2b)."""

    # the player turn ordinal of the check (:func:`.supply_status.player_turn_ordinal`)
    ordinal: int
    # per side: the ids of the units with a regular supply line, sorted
    regular: dict[str, list[str]]
    # per side: the ids of the units the check looked at
    checked: dict[str, list[str]]
    # the special sources drawn on (OT 11C2b)
    special: list[SpecialDraw]
    # hex indices of the improved fortresses that gave special supply (OT 11C2biii)
    fortresses_used: list[int]
    # ids of the Res Pts used for general supply, removed at the end of the phase (OT 11C2bi)
    res_pts_used: list[str]


class CombatSupplyLedger(TypedDict, total=False):
    """This phase's combat supply bookkeeping (OT 11D)."""

    # the segment key it belongs to: "<player turn ordinal>:<phase>"
    phase: str
    # the segment last committed: "bombardment" or "combat"
    segment: str
    # per segment: Res Pt id -> RE drawn on it
    used: dict[str, dict[str, Fraction]]
    # ids of the Res Pts spent (removed) at the end of a segment
    spent: list[str]
    # per command: [Res Pt id, RE drawn] under the free allowance (a two-item list)
    free: dict[str, list[str | Fraction]]


class RailLedger(TypedDict):
    """A side's capacity record on one rail net (OT 7A4, OT 7A5, OT 7A9)."""

    # permanent capacity in RE; None when the scenario declares no nets (not limited)
    capacity: Fraction | None
    # captured capacity usable from the side's next player turn (OT 7A5f, OT 7A5d)
    pending: Fraction
    # this player turn's temporary increase (OT 7A5a)
    temp: Fraction
    # RE used this player turn (OT 7A4)
    used: Fraction
    # per unit id: RE charged this turn; "<id>:low" -> True once it used a low-volume line
    charged: dict[str, Fraction | bool]
    # 0 when the ledger is made and never changed or read (it is part of saves and state hashes)
    temp_res_pts: int
    # deterioration checks due in the next initial phase (OT 7A5g)
    deterioration_due: int
    # the capacity at the start of the player turn (half of it caps OT 7A5a)
    start_capacity: Fraction | None
    # capacity locked this turn, not available (OT 7A5d)
    locked: Fraction
    # per receiving net: RE transferred to it this turn (OT 7A5d)
    transfers: dict[str, Fraction]
    # RE of permanent capacity built this player turn (at most one per yard, OT 7A5b)
    builds: int
    # per section id (as a string): RE used this turn in that section (OT 7A9)
    used_by_section: dict[str, Fraction]
    # per section id: the temporary increase made in that section (OT 7A9)
    temp_by_section: dict[str, Fraction]
    # per orphan section id: RE built or lost there beyond its yards and depots (OT 7A9)
    orphan_adjust: dict[str, Fraction]
    # the section of each temporary increase's deterioration check (None: the whole net)
    temp_sections: list[int | None]


class RiverLedger(TypedDict):
    """A side's use of a waterway net's capacity in one player turn (OT 7C5)."""

    # the turn it belongs to (:func:`.mechanics.current_period`)
    period: str
    # RE moved on the net
    used: Fraction
    # per unit id: RE charged
    charged: dict[str, Fraction]


class WorkRecord(TypedDict):
    """Movement-phase engineering work in progress (OT 13A, OT 13A4)."""

    # the task (``engineers.MP_TASKS``)
    task: str
    # the share of the job still to do
    left: Fraction


class ProjectRecord(TypedDict, total=False):
    """A construction project measured in turns (OT 13A1c-f, OT 13B3b-c, OT 13C2)."""

    # "<task>@<hex label>#<n>", given when it begins
    id: str
    # the task (``engineers.TURN_TASKS``)
    task: str
    # the side building it
    side: str
    # ids of the construction units working on it
    pieces: list[str]
    # hex index where the units work
    hex: int
    # hex index built into (the hex itself, or the next hex of a road or rail line)
    target: int
    # good-weather turns of work left (OT 13A4)
    left: Fraction
    # ids of the Res Pts reserved for it (only while it is planned: dropped when it begins)
    res: list[str]
    # whether every reserved Res Pt is spent
    spend_all: bool
    # whether a roll decides if the Res Pt is spent (OT 13A1f)
    roll: bool
    # begun with quick engineering (OT 13A5)
    quick: bool
    # the weather in the target hex in the turn being worked
    weather: str
    # game turns worked so far
    turns: int
    # a fortress waiting for its monthly Res Pt (OT 13A1e)
    stalled: bool
    # Res Pts spent on a fortress so far (OT 13A1e)
    res_spent: int


class EngRecord(TypedDict, total=False):
    """What engineers have built, changed and have under way (OT 13)."""

    # per work key: movement-phase work in progress (OT 13A4)
    works: dict[str, WorkRecord]
    # per hexside (as a string): the side whose pontoon bridge spans it (OT 13A7)
    pontoons: dict[str, str]
    # per rail hexside: the gauge given by regauging (OT 13B3a)
    gauge: dict[str, str]
    # per rail hexside: "high" after an upgrade (OT 13B3b)
    volume: dict[str, str]
    # per hexside: the side that built a road across it (OT 13A1f)
    roads: dict[str, str]
    # per hexside: the side that extended a rail line across it (OT 13B3c)
    rails: dict[str, str]
    # ids of Res Pts held for a project being planned (OT 13A1c)
    reserved: list[str]
    # projects under way (OT 13A1c)
    projects: list[ProjectRecord]
    # the number of projects begun so far (for their ids)
    project_counter: int


# The normalised order-of-battle entry of the side's agenda (OT 16A): ``key``, ``kind``,
# ``pieces``, ``at``, ``params`` and ``turn`` from the scenario's schedule entry, ``state`` (what
# was done of it), ``side``, ``requires``, ``parent`` and the links of a chosen option; the
# entry's parameters are the scenario's own data, so it stays a free-form dict.
AgendaEntry = dict[str, Any]


class OBRecord(TypedDict, total=False):
    """The orders of battle being worked through (OT 16A, OT 16A2)."""

    # per agenda key: how it ended ("done", "ignored", "forfeited", ...)
    done: dict[str, str]
    # per side: the entries due and not yet done, in order
    agenda: dict[str, list[AgendaEntry]]
    # per side: the conditional reinforcements triggered (OT 16A2)
    cr: dict[str, list[int]]
    # the keys of the schedule entries that have joined an agenda
    activated: list[str]
    # per district: the initial phase (:func:`.mechanics.ip_id`) a unit was placed isolated there
    iso_placed: dict[str, str]


class PointsRecord(TypedDict, total=False):
    """Man Pts by contingent and Equ Pts (OT 16B3): a general pool, a deficit, a loss total. Both
    keys are given when the record is made; reads default to an empty record."""

    # contingent (for losses: "<nation>|<contingent>") -> Man Pts
    man: dict[str, Fraction]
    # Equ Pts
    equ: Fraction


# OT 16C13: "ip" -> the initial phase the points were locked in (:func:`.mechanics.ip_id`); every
# other key is a side, mapping its commands to the points locked there.
LockedRecord = dict[str, str | dict[str, PointsRecord]]

# The monthly counters of OT 16B3f, OT 16C1 and OT 16C10 (keys with a dash: functional syntax).
MonthlyRecord = TypedDict(
    "MonthlyRecord",
    {
        # the month they count ("<month key>" of the calendar); older months are cleared
        "month": str,
        # OT 16B3f: per nation, per limit category: RE replaced this month
        "limits": dict[str, dict[str, Fraction]],
        # OT 16C1: per nation: RE disbanded voluntarily this month
        "disband": dict[str, Fraction],
        # OT 16C10: per nation: RE of zero-movement artillery made mobile this month
        "zero-ma": dict[str, Fraction],
    },
    total=False,
)


class ArrivalMark(TypedDict):
    """How a unit arrived, applied in its first movement phase (OT 16A1aa)."""

    # "half-mp", "no-mp" or "strategic-100"
    mark: str
    # the unit's side
    side: str


class AllowanceRecord(TypedDict):
    """A per-turn allowance in use (OT 3C4)."""

    # the turn it belongs to (:func:`.mechanics.current_period` by default)
    period: str
    # the amount used in it
    used: Fraction


class CalledOff(TypedDict):
    """Units of attacks called off after flooding (OT 15A6)."""

    # the player turn it belongs to ("<turn index>:<phasing side>")
    key: str
    # the units' ids, sorted
    ids: list[str]


class FloodOutcome(TypedDict):
    """The flooding step's outcome for the attack being resolved (OT 15A6)."""

    # the attacked hex's index
    hex: int
    # the hex is flooded (swamp for the rest of the player turn)
    flooded: bool
    # the attacker called the attack off
    called_off: bool


class DevastationJob(TypedDict):
    """Devastation or repair of a hex under way (OT 15A8)."""

    # the side doing the work
    side: str
    # "devastate" or "repair"
    kind: str
    # game turns of work done (half a turn in poor weather)
    work: Fraction
    # ids of the construction units doing it
    units: list[str]


class Atrocity(TypedDict):
    """A possible atrocity (OT 40A)."""

    # the side that committed it
    side: str
    # the hex's label
    hex: str
    # what happened
    why: str


# ============================================================================ the record


class GWRecord(TypedDict, total=False):
    """``state.vars["gw"]``: the greatwar rule system's own part of the game state."""

    # ---- sequence of play
    # OT 4B: the phasing side of the player turn in progress
    phasing: str
    # OT 4A: the phase in progress ("initial", "movement", "combat", ...)
    phase: str

    # ---- nations, ownership, isolation
    # OT 3B4: nations demoted to minor powers (home district conquered)
    demoted: list[str]
    # OT 40B, OT 40C: per nation, live morale flags ("shaken", "collapse") over the scenario's
    nation_flags: dict[str, dict[str, bool]]
    # OT 40: per nation, its live National Will over the scenario's
    nw: dict[str, int | Fraction]
    # OT 40A: possible atrocities, in order
    atrocities: list[Atrocity]
    # OT 11C2a, OT 5B: per hex (as a string), every side that has owned it
    ever_owned: dict[str, list[str]]
    # OT 16C11: per hex (as a string), the turn index it last changed owner
    owned_since: dict[str, int]
    # OT 3G: per side, the hex indices isolated at the last check, sorted
    isolated: dict[str, list[int]]

    # ---- mechanics
    # OT 3C4: per allowance key, its use in the current period
    allowances: dict[str, AllowanceRecord]

    # ---- transportation lines
    # OT 7: the scenario's railheads and roadheads (advanced by OT 13A1f, OT 13B3c)
    heads: list[HeadRecord]
    # OT 7A4: per rail net, per side, the capacity ledger
    rail: dict[str, dict[str, RailLedger]]
    # OT 7C5: per waterway net id, per side, this turn's use of its capacity
    river: dict[str, dict[str, RiverLedger]]

    # ---- stacking, ZOC, intelligence
    # OT 8B: the stacking violations found at the ends of phases, as text
    stacking_violations: list[str]
    # OT 14N2: per unknown corps HQs id, True once its owner has told about its ZOCs
    zoc_told: dict[str, bool]

    # ---- supply
    # OT 11B: the last initial-phase general supply check
    supply: SupplyRecord
    # OT 11C2biii: per fortress hex (as a string), True while depleted
    depleted: dict[str, bool]
    # OT 11D: this phase's combat supply bookkeeping
    combat_supply: CombatSupplyLedger
    # OT 11C1: supply depots created so far (for their ids)
    depot_counter: int
    # OT 11C2bii: GSPs created so far (for their ids)
    gsp_counter: int
    # OT 11C2bii: per depot id, the player turn ordinal it last generated GSPs in
    gsp_generated: dict[str, int]
    # OT 11H2: per "<turn index>:<side>:<command>", the divisional unit carrying a Res Pt
    res_pt_carriers: dict[str, str]

    # ---- bombardment and combat
    # OT 12C4a: per side, the air points for bombardment missions
    air_points: dict[str, int]
    # OT 12C5: per nation, the morale hits taken from terror bombardment
    morale_hits: dict[str, int]
    # OT 14P2: the combat roll modifier the leaders produced for the combat being resolved
    leader_drm: int

    # ---- engineers
    # OT 13A: roads, rail lines, gauges, pontoons and projects of the engineers
    eng: EngRecord

    # ---- terrain effects and special rules
    # OT 15A6: the flooding step's outcome for the attack being resolved
    flood_outcome: FloodOutcome
    # OT 15A6: the units of attacks called off after flooding this player turn
    called_off_units: CalledOff
    # OT 15A8: per hex (as a string), the devastation or repair under way
    devastation_jobs: dict[str, DevastationJob]
    # OT 15A9: per phase key, the hexes (as strings) of the cities declared open in it
    open_cities: dict[str, list[str]]
    # OT 15E4: the Entente Unified Command is in effect
    unified_command: bool
    # OT 15G: per hex (as a string), the siege of that hex
    sieges: dict[str, SiegeRecord]
    # OT 15G: the hexes the phasing player may put under siege this movement phase
    siege_candidates: SiegeCandidates

    # ---- reinforcements and replacements
    # OT 16A: the orders of battle being worked through
    ob: OBRecord
    # OT 16A1aa: per unit id, the arrival mark for its next movement phase
    arrivals: dict[str, ArrivalMark]
    # OT 16B3: the transfers of this initial phase have begun (nothing else may follow)
    transfers_done: bool
    # OT 16B3: per side, per command, the general pool
    points: dict[str, dict[str, PointsRecord]]
    # OT 16B3: on-map Man and Equ Pts created so far (for their ids)
    next_piece: int
    # OT 16B1b: per side, per command, the points owed
    deficit: dict[str, dict[str, PointsRecord]]
    # OT 16C13: the points that may not be spent in the initial phase they were added in
    locked: LockedRecord
    # OT 16B4a: per side, per command, the losses since the last initial phase
    losses: dict[str, dict[str, PointsRecord]]
    # OT 16B4b: per side, per combat hex (as a string), the losses of units eliminated isolated
    iso_losses: dict[str, dict[str, PointsRecord]]
    # OT 16B3f, OT 16C1, OT 16C10: this month's counters
    monthly: MonthlyRecord
    # OT 16C3, OT 16A1k: per neutral nation, per kind ("equ-pt", "res-pt"), the points given it
    aid: dict[str, dict[str, Fraction]]
    # OT 16C9a: per nation, its training and replacement forces missing in play (True, or a list
    # of commands) over the scenario's
    trng_repl_missing: dict[str, bool | list[str]]
