"""Ports (NM 26.2): where they are, their category, their sea zone, who holds them.

A port is a place of kind ``port`` on a coastal hex, with ``attrs``: ``category`` (``major``,
``minor`` or ``anchorage``, NM 26.21), ``zone`` (the one sea zone it is adjacent to, NM 26.11),
``box`` (its port box, for major and minor ports, NM 26.22a) and ``river`` (an inland river
port, NM 26.22c). A box of kind ``holding`` with ``attrs`` ``category``, ``zone`` and ``side``
is an off-map port (a Holding Box that is a port, like the Map-T Holding Box of the K.Kavkas
example). Naval units in a port are in its box, or on the hex of an anchorage (which has no
box, NM 26.22b); ground units are on the port hex or in the holding box.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.rulesets.eastfront.map.geography import zone_shallow
from grognard.rulesets.eastfront.units.kinds import is_naval

if TYPE_CHECKING:
    from grognard.core.game import Game

CATEGORIES = ("major", "minor", "anchorage")


@dataclass(frozen=True)
class Port:
    """NM 26.2: one port (static map data)."""

    name: str
    category: str  # NM 26.21
    zone: str  # NM 26.11: the one adjacent sea zone
    hex: int | None  # its map hex (None: an off-map holding box)
    box: str | None  # its port box or holding box (None: an anchorage, NM 26.22b)
    river: bool = False  # NM 26.22c
    side: str = ""  # an off-map holding box: the side that owns it

    @property
    def naval_loc(self) -> Loc:
        """Where its naval units are (NM 26.22a: the port box is the same as the port)."""
        if self.box is not None:
            return Loc.box(self.box)
        assert self.hex is not None
        return Loc.hex(self.hex)

    @property
    def ground_loc(self) -> Loc:
        """Where its ground units are."""
        if self.hex is not None:
            return Loc.hex(self.hex)
        assert self.box is not None
        return Loc.box(self.box)


@dataclass(frozen=True)
class PortMap:
    by_name: Mapping[str, Port]
    by_hex: Mapping[int, Port]
    by_box: Mapping[str, Port]


@implements("NM 26.2", "NM 26.22")
def port_map(g: Game) -> PortMap:
    """NM 26.2 / NM 26.22: every port of the board, by name, hex and box (once per
    scenario)."""

    def build() -> PortMap:
        ports: dict[str, Port] = {}
        for i, plist in g.board.points.items():
            for pt in plist:
                if pt.kind != "port":
                    continue
                a = pt.attrs
                ports[pt.name] = Port(
                    pt.name,
                    str(a.get("category", "minor")),
                    str(a.get("zone", "")),
                    int(i),
                    str(a["box"]) if a.get("box") else None,
                    bool(a.get("river", False)),
                )
        for b in g.board.boxes.values():
            if b.kind == "holding" and b.attrs.get("zone"):
                a = b.attrs
                ports[b.name] = Port(
                    b.name,
                    str(a.get("category", "major")),
                    str(a["zone"]),
                    None,
                    b.name,
                    False,
                    str(a.get("side", "")),
                )
        by_hex = {p.hex: p for p in ports.values() if p.hex is not None}
        by_box = {p.box: p for p in ports.values() if p.box is not None}
        return PortMap(ports, by_hex, by_box)

    return g.cache.keyed("ef:ports", g.scenario.content_hash, build)


def ports(g: Game) -> list[Port]:
    return sorted(port_map(g).by_name.values(), key=lambda p: p.name)


@implements("NM 26.21")
def category(g: Game, name: str) -> str:
    """NM 26.21: a port's category: ``major`` (an anchor in a circle), ``minor`` (an anchor) or
    ``anchorage`` (a coastal city or town without one), as the map gives it."""
    port = port_map(g).by_name[name]
    if port.category not in CATEGORIES:
        raise ValueError(f"port {name}: unknown category {port.category!r}")
    return port.category


def port_named(g: Game, name: str) -> Port | None:
    return port_map(g).by_name.get(name)


def port_at_hex(g: Game, i: int) -> Port | None:
    return port_map(g).by_hex.get(i)


@implements("NM 26.22")
def naval_port(g: Game, p: Piece) -> Port | None:
    """NM 26.22: the port a naval unit is in (its box, or the hex of an anchorage)."""
    loc = p.loc
    pm = port_map(g)
    if loc.kind == "box":
        return pm.by_box.get(str(loc.ref))
    if loc.kind == "hex":
        port = pm.by_hex.get(int(loc.ref))
        if port is not None and port.box is None:
            return port
    return None


def ground_port(g: Game, loc: Loc) -> Port | None:
    """The port a ground unit at ``loc`` is in (its hex, or a holding box)."""
    pm = port_map(g)
    if loc.kind == "hex":
        return pm.by_hex.get(int(loc.ref))
    if loc.kind == "box":
        port = pm.by_box.get(str(loc.ref))
        if port is not None and port.hex is None:
            return port
    return None


def owner(g: Game, port: Port) -> str:
    """Who holds a port: the control of its hex, or the side of a holding box."""
    if port.hex is None:
        return port.side
    return g.state.control.get(port.hex, "")


@implements("NM 26.25")
def is_port(g: Game, port: Port) -> bool:
    """NM 26.25c: an anchorage on Shallow Water (or a lake) is not a port at all."""
    return not zone_shallow(g, port.zone)


def naval_units_in(g: Game, port: Port) -> list[Piece]:
    """The naval units in a port (its box or anchorage hex)."""
    return [q for q in g.state.at(port.naval_loc) if is_naval(g, q)]
