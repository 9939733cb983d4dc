"""Air units and their boxes (EF 14.0, our design).

Each side has a Ready box (kind ``air-ready``) and a Flown box (kind ``air-flown``), named by
their ``attrs.side``. Air units fly missions from the Ready box and go to the Flown box; at the
start of its Air Interdiction Phase a side's Flown units become Ready again. Values:
``interdiction`` (the Interdiction rating, NM 31.1) and ``fighter`` (air combat rating);
``naval-fighter`` units are the Soviet naval fighters of NM 31.1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.rulesets.eastfront.model import AIR_FLOWN, AIR_READY
from grognard.rulesets.eastfront.units.kinds import is_air, kind

if TYPE_CHECKING:
    from grognard.core.game import Game


def box_of(g: Game, box_kind: str, side: str) -> str | None:
    for b in g.board.boxes.values():
        if b.kind == box_kind and b.attrs.get("side") == side:
            return b.name
    return None


def ready_box(g: Game, side: str) -> str | None:
    return box_of(g, AIR_READY, side)


def flown_box(g: Game, side: str) -> str | None:
    return box_of(g, AIR_FLOWN, side)


def ready_air(g: Game, side: str) -> list[Piece]:
    """``side``'s air units in its Ready box."""
    name = ready_box(g, side)
    if name is None:
        return []
    return sorted(
        (p for p in g.state.at(Loc.box(name)) if is_air(g, p) and p.side == side),
        key=lambda p: p.id,
    )


def interdiction_rating(p: Piece) -> int:
    return int(p.stat("interdiction", 0))


def fighter_rating(p: Piece) -> int:
    return int(p.stat("fighter", 0))


def is_fighter(g: Game, p: Piece) -> bool:
    return kind(g, p).fighter


def is_naval_fighter(g: Game, p: Piece) -> bool:
    return kind(g, p).naval


@implements("EF 14.0")
def fly(g: Game, p: Piece) -> None:
    """EF 14.0: an air unit that flew goes to its side's Flown box."""
    name = flown_box(g, p.side)
    if name is not None:
        g.state.move(p.id, Loc.box(name))


@implements("EF 14.0")
def refit(g: Game, side: str) -> None:
    """EF 14.0: ``side``'s Flown air units become Ready."""
    flown, ready = flown_box(g, side), ready_box(g, side)
    if flown is None or ready is None:
        return
    moved = [p for p in g.state.at(Loc.box(flown)) if p.side == side]
    for p in moved:
        g.state.move(p.id, Loc.box(ready))
    if moved:
        g.emit("refit", f"{side}: {len(moved)} air unit(s) back in the Ready box", rule="EF 14.0")
