"""Readiness and repair in the Naval Readiness Phase (NM 25.3, NM 27.4-27.44).

Each Sailed naval unit rolls one die for Readiness (NM 25.3), or, instead, the owner may roll
for Repair (NM 27.41): a unit does one or the other in a phase. Readiness succeeds when the
modified roll is at most the unit's Recovery value (it turns to Ready and stays so); Repair
then removes one Damage Point. DRMs (the Naval Unit Readiness and Repair Chart as far as the
text gives it): +1 for a damaged unit on its Readiness roll (NM 27.33; on Repair too with the
``repair_damage_drm`` option), +1 per level of enemy air Interdiction on its port
(NM 25.3, NM 27.42). Flotillas recover by themselves (NM 27.43). A transport in the Cadre Box
needs one successful repair to come back, Sailed with two Damage Points, in a friendly major
port (NM 27.44).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from grognard.core.errors import IllegalAction
from grognard.core.game import ChanceOutcome
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.eastfront.air.zones import interdiction_level
from grognard.rulesets.eastfront.map.ports import Port, owner, ports
from grognard.rulesets.eastfront.model import NavalAttrs, other
from grognard.rulesets.eastfront.naval.capacity import allows_type
from grognard.rulesets.eastfront.naval.units import (
    afloat,
    damage,
    in_cadre,
    is_ready,
    is_transport,
    port_of,
    recovery,
    set_sailed,
)
from grognard.rulesets.eastfront.scenario_model import rules
from grognard.rulesets.eastfront.units.kinds import is_flotilla, is_naval

if TYPE_CHECKING:
    from grognard.core.game import Game

DIE = "d10"
CADRE_RETURN_DAMAGE = 2  # NM 27.44


@implements("NM 25.3", "NM 27.42")
def readiness_drms(g: Game, p: Piece, repairing: bool) -> Modifiers:
    """NM 25.3 / NM 27.42: +1 when damaged (Readiness; Repair with the option), +1 per level of
    enemy Interdiction on the unit's port."""
    mods = Modifiers()
    if damage(p) and (not repairing or g.opt("repair_damage_drm")):
        mods.add(1, "NM 27.33", "damaged")
    port = port_of(g, p)
    if port is not None and port.hex is not None:
        level = interdiction_level(g, port.hex, other(p.side))
        mods.add(level, "NM 25.3", f"Level {level} Interdiction on the port")
    return mods


@implements("NM 25.3")
def may_roll_readiness(g: Game, p: Piece) -> str | None:
    """NM 25.3: why ``p`` may not roll for Readiness (None: it may)."""
    if not is_naval(g, p) or not afloat(g, p):
        return "only naval units afloat check Readiness (sunk units do not)"
    if is_ready(p):
        return "it is already Ready"
    if port_of(g, p) is None:
        return "it is not in port"
    return None


@implements("NM 27.41", "NM 27.44")
def may_repair(g: Game, p: Piece) -> str | None:
    """NM 27.41: why ``p`` may not roll for Repair (None: it may): a damaged naval unit in a
    friendly port (Sailed, or Ready with damage), or a transport in the Cadre Box (NM 27.44)."""
    if not is_naval(g, p):
        return "only naval units roll for repair (flotillas recover by themselves)"
    if in_cadre(g, p):
        return None if is_transport(p) else "only transports come back from the Cadre Box"
    if not afloat(g, p):
        return "it is sunk"
    if not damage(p):
        return "it has no damage"
    port = port_of(g, p)
    if port is None or owner(g, port) != p.side:
        return "repairs are made only in a friendly port (NM 26.3)"
    return None


def success_chance(g: Game, p: Piece, repairing: bool) -> Fraction:
    """The exact chance that the roll succeeds (modified roll at most the Recovery value)."""
    drm = int(readiness_drms(g, p, repairing).total()) if not in_cadre(g, p) else 0
    good = sum(1 for n in range(1, 11) if n + drm <= recovery(p))
    return Fraction(good, 10)


def outcomes(g: Game, p: Piece, repairing: bool) -> list[ChanceOutcome]:
    """The two outcomes of a Readiness or Repair roll with their exact probabilities."""
    drm = int(readiness_drms(g, p, repairing).total()) if not in_cadre(g, p) else 0
    ok = [n for n in range(1, 11) if n + drm <= recovery(p)]
    bad = [n for n in range(1, 11) if n + drm > recovery(p)]
    out = []
    if ok:
        out.append(ChanceOutcome(Fraction(len(ok), 10), "success", (ok[0],)))
    if bad:
        out.append(ChanceOutcome(Fraction(len(bad), 10), "failure", (bad[0],)))
    return out


@implements("NM 25.3")
def roll_readiness(g: Game, p: Piece) -> bool:
    """NM 25.3: one die plus DRMs; at most the Recovery value turns the unit Ready."""
    why = may_roll_readiness(g, p)
    if why:
        raise IllegalAction("NM 25.3", f"{p.id}: {why}")
    r = g.roll(DIE, f"readiness of {p.name or p.id}", "NM 25.3", readiness_drms(g, p, False))
    ok = r.modified <= recovery(p)
    if ok:
        set_sailed(g, p, False)
    g.emit(
        "readiness",
        f"{p.name or p.id} {'is Ready' if ok else 'stays Sailed'} (recovery {recovery(p)})",
        rule="NM 25.3",
    )
    return ok


@implements("NM 27.4", "NM 27.41", "NM 27.44")
def roll_repair(g: Game, p: Piece) -> bool:
    """NM 27.41: one die plus DRMs; at most the Recovery value removes one Damage Point (never
    more in a phase). A transport in the Cadre Box then comes back (NM 27.44)."""
    why = may_repair(g, p)
    if why:
        raise IllegalAction("NM 27.41", f"{p.id}: {why}")
    cadre = in_cadre(g, p)
    mods = Modifiers() if cadre else readiness_drms(g, p, True)
    r = g.roll(DIE, f"repair of {p.name or p.id}", "NM 27.41", mods)
    ok = r.modified <= recovery(p)
    if ok:
        rec = NavalAttrs(p.attrs)
        rec.damage = max(0, rec.damage - 1)
    g.emit(
        "repair",
        f"{p.name or p.id}: {'one Damage Point repaired' if ok else 'no repair'}",
        rule="NM 27.41",
    )
    if ok and cadre:
        return_from_cadre(g, p)
    return ok


@implements("NM 27.44")
def return_from_cadre(g: Game, p: Piece) -> None:
    """NM 27.44: the transport comes back Sailed, with two Damage Points, in a friendly major
    port (the scenario's ``rules.cadre_ports``, else the first such port by name)."""
    port = cadre_port(g, p)
    if port is None:
        g.emit(
            "repair", f"{p.name or p.id} has no friendly major port to return to", rule="NM 27.44"
        )
        return
    NavalAttrs(p.attrs).damage = CADRE_RETURN_DAMAGE
    g.state.move(p.id, port.naval_loc)
    set_sailed(g, p, True)
    g.emit("repair", f"{p.name or p.id} returns to play at {port.name}", rule="NM 27.44")


def cadre_port(g: Game, p: Piece) -> Port | None:
    named = rules(g).cadre_ports.get(p.side)
    for port in ports(g):
        if named and port.name != named:
            continue
        if port.category == "major" and owner(g, port) == p.side and allows_type(g, port, p.type):
            return port
    return None


@implements("NM 27.43", "NM 32.1")
def recover_flotillas(g: Game, side: str) -> None:
    """NM 27.43: every damaged flotilla of ``side`` recovers (fully; one point with the
    ``flotilla_repair`` option set to ``one``).

    Rules: NM 27.43, NM 32.1.
    """
    for p in sorted(g.state.of_side(side), key=lambda q: q.id):
        if not is_flotilla(g, p):
            continue
        rec = NavalAttrs(p.attrs)
        if rec.damage:
            rec.damage = rec.damage - 1 if g.opt("flotilla_repair") == "one" else 0
            g.emit("repair", f"{p.name or p.id} recovers", rule="NM 27.43")
