"""Board -> JSON for the browser client.

The export is static map data, the same for every side: hex centres (in hex-size
units, screen y growing downwards), the corner template of one hex, printed ids,
terrain with a colour and pattern per terrain type, hexside features as line
segments, places (cities, ports, objectives, ...), line networks (rail, road) as
centre-to-centre segments, areas (with their outline and a centre where their name and the
pieces in them are drawn) and off-map boxes (with an anchor point next to the hex a box's
``attrs.hex`` names, e.g. a port box; boxes without one are listed beside the map).

Geometry follows :mod:`grognard.hexgrid`: flat-topped hexes when the first sheet is
laid out in columns, pointy-topped when in rows. With hex size 1 (centre to corner):

* flat-topped: ``x = 3/2 q``, ``y = sqrt(3) (r + q/2)``
* pointy-topped: ``x = sqrt(3) (q + r/2)``, ``y = 3/2 r``

so direction 0 ``(+1, 0)`` points south-east (flat) or east (pointy), matching
:data:`grognard.hexgrid.COMPASS`.

A rule system may style its terrain by defining ``terrain_styles()`` returning
``{terrain: {"fill": "#rrggbb", "pattern": name}}``; unknown terrain falls back to the
built-in palette, then to a colour derived from the name.
"""

from __future__ import annotations

import hashlib
import math
from typing import TYPE_CHECKING, Any

from grognard import hexgrid

if TYPE_CHECKING:
    from grognard.board import Board
    from grognard.rulesets.base import Ruleset

SQRT3 = math.sqrt(3.0)

# Built-in terrain palette: fill colour and an optional pattern drawn by the client.
PALETTE: dict[str, dict[str, str]] = {
    "clear": {"fill": "#e8e4c4"},
    "open": {"fill": "#e8e4c4"},
    "plain": {"fill": "#e8e4c4"},
    "farmland": {"fill": "#e3e0b0"},
    "steppe": {"fill": "#e6dba6"},
    "desert": {"fill": "#eed9a0", "pattern": "dots"},
    "forest": {"fill": "#9cc48a", "pattern": "trees"},
    "woods": {"fill": "#a9cc93", "pattern": "trees"},
    "wood": {"fill": "#a9cc93", "pattern": "trees"},
    "jungle": {"fill": "#7fb070", "pattern": "trees"},
    "rough": {"fill": "#cdbb92", "pattern": "dots"},
    "broken": {"fill": "#cdbb92", "pattern": "dots"},
    "hills": {"fill": "#d0b88a", "pattern": "hills"},
    "hill": {"fill": "#d0b88a", "pattern": "hills"},
    "mountain": {"fill": "#b59a78", "pattern": "peaks"},
    "mountains": {"fill": "#b59a78", "pattern": "peaks"},
    "alpine": {"fill": "#c9c3bd", "pattern": "peaks"},
    "marsh": {"fill": "#b9d3c0", "pattern": "marsh"},
    "swamp": {"fill": "#aac7b2", "pattern": "marsh"},
    "urban": {"fill": "#c9c2bd", "pattern": "grid"},
    "city": {"fill": "#c9c2bd", "pattern": "grid"},
    "town": {"fill": "#d5cdc4"},
    "fortress": {"fill": "#bfb0a8", "pattern": "grid"},
    "lake": {"fill": "#9cc3e0"},
    "sea": {"fill": "#8db8de", "pattern": "waves"},
    "ocean": {"fill": "#7aaad6", "pattern": "waves"},
    "coastal": {"fill": "#a9cbe6"},
    "water": {"fill": "#9cc3e0"},
    "glacier": {"fill": "#eef3f6"},
    "tundra": {"fill": "#dfe4dc"},
}

# Colour and stroke width of hexside features and line networks, by name or kind.
LINE_STYLES: dict[str, dict[str, Any]] = {
    "river": {"stroke": "#2f6fb3", "width": 0.16},
    "major-river": {"stroke": "#1f5a9c", "width": 0.24},
    "minor-river": {"stroke": "#4a86c4", "width": 0.1},
    "canal": {"stroke": "#3a7bc0", "width": 0.1, "dash": "0.2 0.1"},
    "wall": {"stroke": "#5b4636", "width": 0.14},
    "fortification": {"stroke": "#7a2e2e", "width": 0.14, "dash": "0.15 0.08"},
    "border": {"stroke": "#7a3e8c", "width": 0.08, "dash": "0.25 0.1"},
    "escarpment": {"stroke": "#7b5a3a", "width": 0.12, "dash": "0.05 0.05"},
    "ridge": {"stroke": "#7b5a3a", "width": 0.12},
    "strait": {"stroke": "#2f6fb3", "width": 0.06, "dash": "0.1 0.06"},
    "impassable": {"stroke": "#222222", "width": 0.18},
    "rail": {"stroke": "#222222", "width": 0.07, "dash": "0.18 0.06"},
    "railroad": {"stroke": "#222222", "width": 0.07, "dash": "0.18 0.06"},
    "road": {"stroke": "#8a5a2b", "width": 0.07},
    "track": {"stroke": "#8a5a2b", "width": 0.05, "dash": "0.1 0.08"},
}


def _hashed_colour(name: str) -> str:
    h = hashlib.sha256(name.encode()).digest()
    # pastel: keep every channel in 150..230
    return "#" + "".join(f"{150 + b % 80:02x}" for b in h[:3])


def terrain_style(name: str, ruleset: Ruleset | None = None) -> dict[str, str]:
    """Fill colour and pattern for one terrain type."""
    hook = getattr(ruleset, "terrain_styles", None) if ruleset is not None else None
    if callable(hook):
        styles = hook() or {}
        if name in styles:
            return dict(styles[name])
    if name in PALETTE:
        return dict(PALETTE[name])
    return {"fill": _hashed_colour(name)}


def line_style(name: str, kind: str = "") -> dict[str, Any]:
    for key in (name, kind):
        if key in LINE_STYLES:
            return dict(LINE_STYLES[key])
    for key, style in LINE_STYLES.items():
        if key in name or (kind and key in kind):
            return dict(style)
    return {"stroke": "#555555", "width": 0.08}


def centre(h: tuple[int, int], pointy: bool) -> tuple[float, float]:
    """Centre of axial hex ``h`` for hex size 1."""
    q, r = h
    if pointy:
        return SQRT3 * (q + r / 2.0), 1.5 * r
    return 1.5 * q, SQRT3 * (r + q / 2.0)


def corners(pointy: bool) -> list[list[float]]:
    """Offsets of the six corners of a hex of size 1 from its centre."""
    start = 30.0 if pointy else 0.0
    return [
        [
            round(math.cos(math.radians(start + 60 * k)), 5),
            round(math.sin(math.radians(start + 60 * k)), 5),
        ]
        for k in range(6)
    ]


def _r(x: float) -> float:
    return round(x, 4)


def _side_segment(board: Board, k: int, pointy: bool) -> list[float]:
    a, b = hexgrid.hexside_hexes(board.hexsides[k])
    ax, ay = centre(a, pointy)
    bx, by = centre(b, pointy)
    mx, my = (ax + bx) / 2, (ay + by) / 2
    dx, dy = bx - ax, by - ay
    length = math.hypot(dx, dy)
    # A hexside is perpendicular to the centre line and as long as the hex size (1).
    px, py = -dy / length * 0.5, dx / length * 0.5
    return [_r(mx - px), _r(my - py), _r(mx + px), _r(my + py)]


def _area_shape(board: Board, hexes: list[int], pointy: bool) -> dict[str, Any]:
    """An area's outline (the hexsides between its hexes and the others, as segments) and the
    point where its name and the pieces in it are drawn (the area hex nearest its centroid)."""
    if not hexes:
        return {"outline": [], "centre": None}
    inside = set(hexes)
    outline = []
    for i in hexes:
        for d in range(6):
            j = int(board.nbr[i, d])
            if j < 0 or j not in inside:
                outline.append(_side_segment(board, int(board.side_of[i, d]), pointy))
    pts = [centre(board.hexes[i], pointy) for i in hexes]
    cx = sum(x for x, _ in pts) / len(pts)
    cy = sum(y for _, y in pts) / len(pts)
    x, y = min(pts, key=lambda p: (p[0] - cx) ** 2 + (p[1] - cy) ** 2)
    return {"outline": outline, "centre": [_r(x), _r(y)]}


def _box_anchor(board: Board, attrs: Any, pointy: bool) -> list[float] | None:
    """Where a box is drawn on the map: next to the hex its ``attrs.hex`` names (a port box),
    else nowhere (it is listed beside the map)."""
    label = attrs.get("hex") if hasattr(attrs, "get") else None
    if not isinstance(label, str) or not board.has_label(label):
        return None
    x, y = centre(board.hexes[board.idx(label)], pointy)
    return [_r(x + 0.55), _r(y - 0.5)]


def board_json(board: Board, ruleset: Ruleset | None = None) -> dict[str, Any]:
    """The whole map as JSON-ready data (see the module docstring)."""
    first = next(iter(board.sheets.values()))
    pointy = first.orientation == "rows"
    xs: list[float] = []
    ys: list[float] = []
    hexes: list[list[Any]] = []
    for i, h in enumerate(board.hexes):
        x, y = centre(h, pointy)
        xs.append(x)
        ys.append(y)
        hexes.append([board.labels[i], _r(x), _r(y), int(board.terrain[i]), int(h[0]), int(h[1])])
    terrain = [{"name": t, **terrain_style(t, ruleset)} for t in board.terrain_names]

    sides = []
    for k in range(board.m):
        v = int(board.side_features[k])
        if not v:
            continue
        names = board.side_feature_list(k)
        a, b = (int(x) for x in board.side_hexes[k])
        sides.append(
            {
                "features": names,
                "hexes": [board.labels[a] if a >= 0 else None, board.labels[b] if b >= 0 else None],
                "seg": _side_segment(board, k, pointy),
                "attrs": board.side_attrs.get(k, {}),
            }
        )
    features = {name: line_style(name) for name in board.feature_names}

    places = []
    for i, plist in sorted(board.points.items()):
        for p in plist:
            places.append(
                {"hex": board.labels[i], "kind": p.kind, "name": p.name, "attrs": dict(p.attrs)}
            )

    networks = []
    for name, net in board.networks.items():
        segs = []
        for k in range(board.m):
            if not net.edges[k]:
                continue
            a, b = (int(x) for x in board.side_hexes[k])
            ax, ay = centre(board.hexes[a], pointy)
            bx, by = centre(board.hexes[b], pointy)
            segs.append([_r(ax), _r(ay), _r(bx), _r(by)])
        networks.append(
            {"name": name, "kind": net.kind, "segments": segs, **line_style(name, net.kind)}
        )

    areas = [
        {
            "name": a.name,
            "kind": a.kind,
            "hexes": [board.labels[int(i)] for i in a.hexes],
            "adjacent": list(a.adjacent),
            **_area_shape(board, [int(i) for i in a.hexes], pointy),
        }
        for a in board.areas.values()
    ]
    boxes = [
        {
            "name": b.name,
            "kind": b.kind,
            "links": [[ln.target, ln.distance, ln.layer] for ln in b.links],
            "anchor": _box_anchor(board, b.attrs, pointy),
        }
        for b in board.boxes.values()
    ]
    sheets = [
        {
            "name": s.name,
            "orientation": s.orientation,
            "shifted": s.shifted,
            "origin": list(s.origin),
        }
        for s in board.sheets.values()
    ]
    pad = 1.2
    return {
        "orientation": "pointy" if pointy else "flat",
        "size": 1,
        "corners": corners(pointy),
        "bounds": [
            _r(min(xs) - pad),
            _r(min(ys) - pad),
            _r(max(xs) - min(xs) + 2 * pad),
            _r(max(ys) - min(ys) + 2 * pad),
        ],
        "hex_fields": ["id", "x", "y", "terrain", "q", "r"],
        "hexes": hexes,
        "terrain": terrain,
        "features": features,
        "sides": sides,
        "places": places,
        "networks": networks,
        "areas": areas,
        "boxes": boxes,
        "sheets": sheets,
    }


def pixel_to_hex(x: float, y: float, pointy: bool) -> tuple[int, int]:
    """Axial hex containing point ``(x, y)`` (size 1): the inverse of :func:`centre`."""
    if pointy:
        q = SQRT3 / 3 * x - y / 3
        r = 2 / 3 * y
    else:
        q = 2 / 3 * x
        r = -x / 3 + SQRT3 / 3 * y
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return int(rq), int(rr)
