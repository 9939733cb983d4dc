"""OT 9J (contested hexes) and OT 9K (same-hex combat).

A contested hex carries the marker ``contested`` whose value records the side holding it with a
unit with a ZOC and since when (``{"holder": side, "since": [turn, half, phase]}``). It is owned by
neither side (its entry in the ownership map is removed), its fortifications are ignored (see
:func:`.combat_strength.works`), attacks into it use the Mobile CRT at -1 (:mod:`.combat_strength`),
no unit enters or retreats into it while an enemy unit is there (overruns and sieges aside), and
non-infantry units entering it roll for disruption. At the end of every phase the holder is
brought up to date; a side that has held it continuously with a unit with a ZOC for one full game
turn gains it (the end of the same phase of the next game turn), and the fortifications are then
reduced as for a capture (through the ownership hook).

Same-hex combat: in the combat and reaction combat phases every unit of the attacking side in a
hex that also holds enemy units must attack them (up to the stacking limit of the hex), even
outside an Army HQs' zone of influence; they attack nothing else. If every enemy unit there is
besieged (status ``besieged``, OT 15G) the attack is optional; besieged units attack only the
sieging units in their own hex (OT 9K2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar.combat import retreat, siege
from grognard.rulesets.greatwar.combat.combat_strength import is_hq
from grognard.rulesets.greatwar.map import zoc
from grognard.rulesets.greatwar.mechanics import gw_view, marker, set_marker
from grognard.rulesets.greatwar.step import MovementExtension
from grognard.rulesets.greatwar.units import nations, units

if TYPE_CHECKING:
    from grognard.core.game import Game

PHASE_ORDER = (
    "initial",
    "movement",
    "combat",
    "reaction-movement",
    "reaction-combat",
    "exploitation",
)
BESIEGED = "besieged"


def phase_tag(g: Game) -> list[int]:
    """(game turn, half: 0 Entente / 1 Central Powers, phase) of the phase in progress."""
    st = gw_view(g)
    half = 0 if st.get("phasing") == nations.SIDES[0] else 1
    phase = st.get("phase", "initial")
    return [
        int(g.state.turn.get("index", 0)),
        half,
        PHASE_ORDER.index(phase) if phase in PHASE_ORDER else 0,
    ]


def _holders(g: Game, i: int) -> set[str]:
    return {p.side for p in units.units_in_hex(g, i) if zoc.zoc_level(g, p) != zoc.NONE}


@implements("OT 9J")
def make_contested(g: Game, i: int, holder: str) -> None:
    """OT 9J: the hex becomes contested, owned by neither side, held by ``holder`` from now."""
    old = g.state.control.pop(i, None)
    set_marker(g, "contested", i, {"holder": holder, "since": phase_tag(g), "was": old})
    g.emit("contested", f"{g.board.label(i)} is contested", rule="OT 9J", hex=g.board.label(i))


@implements("OT 9J")
def check_creation(g: Game, rec: dict[str, Any]) -> bool:
    """OT 9J: after a combat on the Positional CRT, the attacked hex becomes contested when a
    surviving attacking unit occupies it and exerts a ZOC there and a surviving defending unit
    occupies an adjacent hex and exerts a ZOC there. The non-infantry units whose advance made it
    contested then roll (interpretation default: the test comes before the rolls)."""

    if rec.get("crt") != "positional":
        return False
    target = g.board.idx(rec["target"])
    if marker(g, "contested", target):
        return False
    ps = g.state.pieces
    att = [ps[i] for i in rec["attackers"] if i in ps and units.hex_of(g, ps[i]) == target]
    if not any(zoc.zoc_level(g, p) != zoc.NONE for p in att):
        return False
    defs = [ps[i] for i in rec.get("defenders_at_start", []) if i in ps]
    ok = False
    for p in defs:
        h = units.hex_of(g, p)
        if h is not None and h in g.board.neighbors(target) and zoc.zoc_level(g, p) != zoc.NONE:
            ok = True
            break
    if not ok:
        return False
    make_contested(g, target, rec["attacker"])
    for pid, where in sorted(rec.get("advanced", {}).items()):
        p = ps.get(pid)  # type: ignore[assignment]
        if p is not None and where == rec["target"] and units.hex_of(g, p) == target:
            retreat.contested_roll(g, p)
    return True


def entered(g: Game, movers: Sequence[Piece], i: int) -> None:
    """OT 9J: units entering a hex already contested roll for disruption (non-infantry)."""

    if not marker(g, "contested", i):
        return
    for p in movers:
        if units.hex_of(g, p) == i:
            retreat.contested_roll(g, p)


@implements("OT 9J")
def blocked(g: Game, side: str, i: int) -> bool:
    """OT 9J: no unit may enter or retreat into an enemy-occupied/contested hex (overruns, sieges
    and
    landings aside)."""
    return bool(marker(g, "contested", i)) and bool(
        units.units_in_hex(g, i, nations.other_side(side))
    )


@implements("OT 9J")
def phase_end(g: Game, phase: str) -> None:
    """OT 9J: at the end of a phase, bring each contested hex's holder up to date; a side that has
    held it with a unit with a ZOC for one complete game turn gains ownership (the marker goes)."""
    now = phase_tag(g)
    for key, val in sorted(g.state.markers.get("contested", {}).items()):
        i = int(key)
        holders = _holders(g, i)
        info = dict(val) if isinstance(val, dict) else {"holder": None, "since": now}
        if len(holders) != 1:
            if info.get("holder") is not None:
                info["holder"] = None
                set_marker(g, "contested", i, info)
            continue
        side = next(iter(holders))
        if info.get("holder") != side:
            info["holder"] = side
            info["since"] = now
            set_marker(g, "contested", i, info)
            continue
        since = list(info.get("since", now))  # type: ignore[arg-type]
        if now >= [since[0] + 1, since[1], since[2]]:
            set_marker(g, "contested", i, None)
            g.state.control[i] = side
            g.emit(
                "contested",
                f"{side} gains uncontested ownership of {g.board.label(i)}",
                rule="OT 9J",
                hex=g.board.label(i),
            )
            zoc.on_ownership_change(g, i, info.get("was"), side)  # type: ignore[arg-type]


# ========================================================================== same-hex combat (OT 9K)
def besieged(g: Game, p: Piece) -> bool:
    """A unit of the besieged side in a hex under siege (OT 15G, ``siege.is_besieged``)."""

    return bool(siege.is_besieged(g, p))


@implements("OT 9K1")
def siege_after_combat(g: Game, rec: dict[str, Any]) -> None:
    """OT 9K1: when both sides still have units in the hex after a same-hex combat, the attacking
    units left there are under siege (OT 15G: the defender's units besiege them)."""
    target = g.board.idx(rec["target"])
    ps = g.state.pieces
    left = [ps[i] for i in rec["attackers"] if i in ps and units.hex_of(g, ps[i]) == target]
    if not left or not units.units_in_hex(g, target, rec["defender"]):
        return

    siege.establish(g, rec["defender"], target)
    g.emit("siege", f"the attacking units left in {rec['target']} are under siege", rule="OT 9K1")


@implements("OT 9K")
def same_hex_hexes(g: Game, side: str) -> list[int]:
    """OT 9K: hexes where ``side``'s units share the hex with enemy units."""

    def compute() -> list[int]:
        occupied: dict[str, set[int]] = {}
        for p in units.on_map_units(g):
            h = units.hex_of(g, p)
            if h is not None:
                occupied.setdefault(p.side, set()).add(h)
        return sorted(occupied.get(side, set()) & occupied.get(nations.other_side(side), set()))

    return list(g.cached(f"gw:same-hex:{side}", compute))


@implements("OT 9K", "OT 9K2")
def mandatory_attacks(g: Game, side: str, done: Sequence[str]) -> list[int]:
    """OT 9K: hexes where the attacking side still must attack the enemy units in its own hex (not
    when every enemy unit there is besieged, OT 15G; units already used this phase are done)."""
    hexes = same_hex_hexes(g, side)
    if not hexes:
        return []
    enemy = nations.other_side(side)
    out = []
    for h in hexes:
        mine = [p for p in units.units_in_hex(g, h, side) if p.id not in done and _can_attack(p)]
        if not mine:
            continue
        foes = units.units_in_hex(g, h, enemy)
        if foes and all(besieged(g, q) for q in foes):
            continue
        out.append(h)
    return out


def _can_attack(p: Piece) -> bool:

    return units.is_unit(p) and not is_hq(p)


class ContestedEntry(MovementExtension):
    """Movement extension: OT 9J -- every non-infantry unit that enters a contested hex by
    movement (regular, reserve commitment, reaction, exploitation) rolls for disruption. It adds
    no actions of its own."""

    @implements("OT 9J")
    def after_move(self, g: Game, f: Any, pieces: Sequence[Piece], path: Sequence[int]) -> None:

        for h in path:
            if marker(g, "contested", h):
                for p in pieces:
                    retreat.contested_roll(g, p)
