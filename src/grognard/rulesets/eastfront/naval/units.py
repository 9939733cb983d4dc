"""Naval units: their printed values, Ready and Sailed, where they are (NM 25.1-25.3, NM 26.3,
NM 27.33).

Faces: ``ready`` and ``sailed`` (the Sailed side carries the Recovery value, NM 25.1f); the
printed values are ``support`` (Artillery Support Value), ``protection`` (Protection Rating),
``capacity`` (Transport Capacity in stacking points), ``nmp`` (Naval Movement Point Allowance),
``range`` and ``recovery``. Damage Points are ``attrs.damage`` (:class:`~.model.NavalAttrs`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.eastfront.map.geography import is_sea, zone_of
from grognard.rulesets.eastfront.map.ports import Port, naval_port
from grognard.rulesets.eastfront.model import CADRE, ELIMINATED, NavalAttrs

if TYPE_CHECKING:
    from grognard.core.game import Game


def damage(p: Piece) -> int:
    return NavalAttrs(p.attrs).damage


def protection(p: Piece) -> int:
    return int(p.stat("protection", 0))


@implements("NM 27.33")
def badly_damaged(p: Piece) -> bool:
    """NM 27.33: more Damage Points than half the Protection Rating."""
    return 2 * damage(p) > protection(p)


@implements("NM 25.1", "NM 27.33")
def nmp(p: Piece) -> int:
    """NM 25.1d: the Naval Movement Point Allowance, one less when badly damaged (NM 27.33)."""
    base = int(p.stat("nmp", 0))
    return max(0, base - 1) if badly_damaged(p) else base


@implements("NM 25.1", "NM 27.33")
def support(g: Game, p: Piece) -> int:
    """NM 25.1a: the Artillery Support Value; a badly damaged unit loses half of it, the loss
    rounded up (the ``damaged_support`` option keeps the half rounded up instead).

    Rules: NM 25.1, NM 27.33.
    """
    base = int(p.stat("support", 0))
    if not badly_damaged(p):
        return base
    if g.opt("damaged_support") == "half-up":
        return math.ceil(base / 2)
    return base - math.ceil(base / 2)


def capacity(p: Piece) -> int:
    """NM 25.1c / NM 27.33: the Transport Capacity (never changed by damage)."""
    return int(p.stat("capacity", 0))


def art_range(p: Piece) -> int:
    """NM 25.1e: the range, in hexes, counting the Defender Hex and not its own."""
    return int(p.stat("range", 0))


def recovery(p: Piece) -> int:
    """NM 25.1f: the Recovery value (printed on the Sailed side)."""
    return int(p.stat("recovery", p.faces.get("sailed", {}).get("recovery", 0)))


def is_transport(p: Piece) -> bool:
    return p.type == "t"


@implements("NM 25.3", "NM 26.3")
def is_ready(p: Piece) -> bool:
    """NM 25.3: Ready status (its Ready side up).

    Rules: NM 25.3, NM 26.3.
    """
    return p.face == "ready"


@implements("NM 26.3")
def set_sailed(g: Game, p: Piece, sailed: bool) -> None:
    """NM 26.3: turn a naval unit to its Sailed (or back to its Ready) side."""
    want = "sailed" if sailed else "ready"
    if p.face != want and want in p.faces:
        p.face = want


def afloat(g: Game, p: Piece) -> bool:
    """Not sunk: neither in the Eliminated nor in the Cadre Box."""
    if p.loc.kind != "box":
        return True
    b = g.board.boxes.get(str(p.loc.ref))
    return b is None or b.kind not in (ELIMINATED, CADRE)


def in_cadre(g: Game, p: Piece) -> bool:
    b = g.board.boxes.get(str(p.loc.ref)) if p.loc.kind == "box" else None
    return b is not None and b.kind == CADRE


def port_of(g: Game, p: Piece) -> Port | None:
    """The port a naval unit is in (None: at sea, sunk or in the Cadre Box)."""
    return naval_port(g, p)


@implements("NM 26.11")
def sea_zone(g: Game, p: Piece) -> str | None:
    """NM 26.11: the sea zone of a naval unit at sea (in the zone, or on one of its hexes)."""
    if p.loc.kind == "area":
        return str(p.loc.ref)
    if p.loc.kind == "hex" and is_sea(g, int(p.loc.ref)):
        return zone_of(g, int(p.loc.ref))
    return None


def at_sea(g: Game, p: Piece) -> bool:
    return sea_zone(g, p) is not None


def sea_hex(g: Game, p: Piece) -> int | None:
    """The all-sea hex a naval unit occupies on a mission (NM 26.11), if any."""
    if p.loc.kind == "hex" and is_sea(g, int(p.loc.ref)):
        return int(p.loc.ref)
    return None


def cargo(g: Game, p: Piece) -> list[Piece]:
    """The ground units aboard a naval unit (NM 28.12b)."""
    return list(g.state.contents(p.id))
