"""Hex geometry: axial/cube coordinates, printed hex ids, hexsides and vertices.

Everything here is pure math over integer coordinates and knows nothing about games.

Coordinates
    A hex is an axial pair ``(q, r)``; its cube form is ``(q, r, -q - r)``. The six
    directions are numbered 0..5 counter-clockwise starting from ``(+1, 0)``.

Hexsides
    A hexside is shared by two hexes. Its canonical id is ``Hexside(q, r, k)`` with
    ``k`` in ``{0, 1, 2}``: the side of hex ``(q, r)`` facing direction ``k``. The side
    facing direction ``k + 3`` is the canonical side ``k`` of the neighbour in that
    direction, so both hexes name the same ``Hexside`` object.

Vertices
    A vertex is shared by three hexes. Its canonical id is the sorted triple of the
    three hexes around it.

Printed ids
    Wargame maps print a column/row number in each hex (``0619`` = column 6, row 19).
    How columns and rows map onto the hex lattice depends on the map: flat-topped
    hexes in vertical columns (``orientation="columns"``) or pointy-topped hexes in
    horizontal rows (``orientation="rows"``), and which printed columns (rows) are
    shifted half a hex (``shifted="even"`` or ``"odd"``). :class:`SheetGeometry`
    carries these as map data, plus the sheet's placement on the global lattice, so
    several sheets can be stitched into one board.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, NamedTuple

__all__ = [
    "COMPASS",
    "DIRECTIONS",
    "Hex",
    "Hexside",
    "SheetGeometry",
    "Vertex",
    "add",
    "direction_between",
    "distance",
    "hex_vertices",
    "hexside",
    "hexside_between",
    "hexside_hexes",
    "hexsides_of",
    "line",
    "line_hexsides",
    "neighbor",
    "neighbors",
    "parse_hex_id",
    "ring",
    "spiral",
    "vertex_hexes",
]


class Hex(NamedTuple):
    """A hex in axial coordinates."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r


class Hexside(NamedTuple):
    """Canonical hexside: side ``k`` (0..2) of hex ``(q, r)``."""

    q: int
    r: int
    k: int


class Vertex(NamedTuple):
    """Canonical vertex: the sorted triple of hexes meeting at it."""

    a: Hex
    b: Hex
    c: Hex


DIRECTIONS: tuple[Hex, ...] = (
    Hex(1, 0),
    Hex(1, -1),
    Hex(0, -1),
    Hex(-1, 0),
    Hex(-1, 1),
    Hex(0, 1),
)


# Compass names of the six directions, per map orientation (screen y grows downwards).
COMPASS: dict[str, dict[str, int]] = {
    "columns": {"SE": 0, "NE": 1, "N": 2, "NW": 3, "SW": 4, "S": 5},
    "rows": {"E": 0, "NE": 1, "NW": 2, "W": 3, "SW": 4, "SE": 5},
}


def add(a: Hex, b: Hex) -> Hex:
    return Hex(a[0] + b[0], a[1] + b[1])


def neighbor(h: Hex, d: int) -> Hex:
    dq, dr = DIRECTIONS[d % 6]
    return Hex(h[0] + dq, h[1] + dr)


def neighbors(h: Hex) -> list[Hex]:
    q, r = h
    return [Hex(q + dq, r + dr) for dq, dr in DIRECTIONS]


def distance(a: Hex, b: Hex) -> int:
    dq = a[0] - b[0]
    dr = a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def direction_between(a: Hex, b: Hex) -> int | None:
    """Direction index from ``a`` to an adjacent ``b``, or None if not adjacent."""
    d = (b[0] - a[0], b[1] - a[1])
    for i, (dq, dr) in enumerate(DIRECTIONS):
        if (dq, dr) == d:
            return i
    return None


def hexside(h: Hex, d: int) -> Hexside:
    """The canonical id of the side of ``h`` facing direction ``d``."""
    d %= 6
    if d < 3:
        return Hexside(h[0], h[1], d)
    n = neighbor(h, d)
    return Hexside(n[0], n[1], d - 3)


def hexside_between(a: Hex, b: Hex) -> Hexside:
    d = direction_between(a, b)
    if d is None:
        raise ValueError(f"hexes {a} and {b} are not adjacent")
    return hexside(a, d)


def hexside_hexes(s: Hexside) -> tuple[Hex, Hex]:
    """The two hexes sharing hexside ``s`` (the canonical owner first)."""
    h = Hex(s[0], s[1])
    return h, neighbor(h, s[2])


def hexsides_of(h: Hex) -> list[Hexside]:
    return [hexside(h, d) for d in range(6)]


def vertex(h: Hex, d: int) -> Vertex:
    """The vertex of ``h`` between the sides facing directions ``d`` and ``d + 1``."""
    trio = sorted((Hex(h[0], h[1]), neighbor(h, d), neighbor(h, d + 1)))
    return Vertex(*trio)


def hex_vertices(h: Hex) -> list[Vertex]:
    return [vertex(h, d) for d in range(6)]


def vertex_hexes(v: Vertex) -> tuple[Hex, Hex, Hex]:
    return (v.a, v.b, v.c)


def ring(center: Hex, radius: int) -> list[Hex]:
    """Hexes at exactly ``radius`` from ``center`` (the center itself for radius 0)."""
    if radius < 0:
        raise ValueError("radius must be >= 0")
    if radius == 0:
        return [Hex(center[0], center[1])]
    out: list[Hex] = []
    h = Hex(center[0] + DIRECTIONS[4][0] * radius, center[1] + DIRECTIONS[4][1] * radius)
    for d in range(6):
        for _ in range(radius):
            out.append(h)
            h = neighbor(h, d)
    return out


def spiral(center: Hex, radius: int) -> Iterator[Hex]:
    """All hexes within ``radius`` of ``center``, ring by ring."""
    for k in range(radius + 1):
        yield from ring(center, k)


def _cube_round(x: float, y: float, z: float) -> Hex:
    rx, ry, rz = round(x), round(y), round(z)
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    return Hex(int(rx), int(ry))


def line(a: Hex, b: Hex, nudge: int = 1) -> list[Hex]:
    """Hexes on the straight line from ``a`` to ``b`` (both included).

    When the line runs exactly along a hexside, the choice between the two hexes is
    made by a tiny ``nudge`` (+1 or -1); call with both to get the alternatives.
    """
    n = distance(a, b)
    if n == 0:
        return [Hex(a[0], a[1])]
    eps = 1e-6 * nudge
    ax, ay, az = a[0] + eps, a[1] + eps, -a[0] - a[1] - 2 * eps
    bx, by, bz = b[0] + eps, b[1] + eps, -b[0] - b[1] - 2 * eps
    out = []
    for i in range(n + 1):
        t = i / n
        out.append(_cube_round(ax + (bx - ax) * t, ay + (by - ay) * t, az + (bz - az) * t))
    return out


def line_hexsides(a: Hex, b: Hex, nudge: int = 1) -> list[Hexside]:
    """The hexsides crossed, in order, by the line from ``a`` to ``b``."""
    hexes = line(a, b, nudge)
    return [hexside_between(hexes[i], hexes[i + 1]) for i in range(len(hexes) - 1)]


# --------------------------------------------------------------------------- printed ids

Orientation = Literal["columns", "rows"]
Shift = Literal["even", "odd"]

_ID_RE = re.compile(r"^(?:(?P<map>[A-Za-z0-9_\-]+):)?(?P<num>\d+)$")


@dataclass(frozen=True)
class SheetGeometry:
    """How one map sheet's printed numbers sit on the global hex lattice.

    ``orientation``
        ``"columns"``: flat-topped hexes in vertical columns; the printed id is column
        then row. ``"rows"``: pointy-topped hexes in horizontal rows; the printed id
        is still column then row.
    ``shifted``
        Which printed columns (``columns``) or rows (``rows``) sit half a hex lower
        (to the right for rows) than their neighbours: ``"even"`` or ``"odd"``.
    ``origin``
        Global axial coordinates of printed column 0, row 0 (a virtual hex if the
        sheet numbers from 1). Stitched sheets differ only in origin.
    ``digits``
        Digits of column and row in the printed id (``(2, 2)`` gives ``0619``).
    """

    name: str
    orientation: Orientation = "columns"
    shifted: Shift = "even"
    origin: tuple[int, int] = (0, 0)
    digits: tuple[int, int] = (2, 2)

    def __post_init__(self) -> None:
        if self.orientation not in ("columns", "rows"):
            raise ValueError(f"orientation must be 'columns' or 'rows', not {self.orientation!r}")
        if self.shifted not in ("even", "odd"):
            raise ValueError(f"shifted must be 'even' or 'odd', not {self.shifted!r}")

    # The origin is added after converting the sheet-local offset coordinates, so a
    # sheet may sit anywhere on the lattice without changing its own parity rule.
    def to_axial(self, col: int, row: int) -> Hex:
        """Printed (column, row) -> global axial hex."""
        if self.orientation == "columns":
            q, r = col, row - _lift(col, self.shifted)
        else:
            q, r = col - _lift(row, self.shifted), row
        return Hex(q + self.origin[0], r + self.origin[1])

    def to_offset(self, h: Hex) -> tuple[int, int]:
        """Global axial hex -> printed (column, row)."""
        q = h[0] - self.origin[0]
        r = h[1] - self.origin[1]
        if self.orientation == "columns":
            return q, r + _lift(q, self.shifted)
        return q + _lift(r, self.shifted), r

    def format_id(self, h: Hex, qualified: bool = False) -> str:
        col, row = self.to_offset(h)
        if col < 0 or row < 0:
            raise ValueError(f"hex {h} has no printed id on sheet {self.name}")
        cw, rw = self.digits
        text = f"{col:0{cw}d}{row:0{rw}d}"
        return f"{self.name}:{text}" if qualified else text

    def parse_id(self, text: str) -> Hex:
        m = _ID_RE.match(text.strip())
        if not m:
            raise ValueError(f"not a printed hex id: {text!r}")
        if m.group("map") and m.group("map") != self.name:
            raise ValueError(f"hex id {text!r} names map {m.group('map')!r}, not {self.name!r}")
        num = m.group("num")
        cw, rw = self.digits
        if len(num) != cw + rw:
            raise ValueError(f"hex id {text!r} must have {cw + rw} digits on map {self.name}")
        return self.to_axial(int(num[:cw]), int(num[cw:]))


def _lift(n: int, shifted: str) -> int:
    """How far printed line ``n`` is displaced along the axial axis.

    Shifting odd lines: ``(n - (n & 1)) // 2``; shifting even lines: ``(n + (n & 1)) // 2``.
    Python's ``&`` and ``//`` make both exact for negative ``n`` too.
    """
    return (n - (n & 1)) // 2 if shifted == "odd" else (n + (n & 1)) // 2


def parse_hex_id(text: str) -> tuple[str | None, str]:
    """Split ``"GW2:0619"`` into ``("GW2", "0619")`` (map is None when unqualified)."""
    m = _ID_RE.match(text.strip())
    if not m:
        raise ValueError(f"not a hex id: {text!r}")
    return m.group("map"), m.group("num")
