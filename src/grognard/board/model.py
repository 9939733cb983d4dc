"""The board: map data compiled into flat arrays.

A :class:`Board` is immutable once built. Hexes are numbered ``0..N-1`` and hexsides
``0..M-1``; every per-hex or per-hexside fact is an array indexed by those numbers so
that searches (movement, supply, retreat) run on arrays, not on objects.

What lives here is static map data. Dynamic overlays (ownership, frozen rivers this
turn, rail breaks, port damage) belong to the game state; rule systems combine the two
when they build cost arrays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grognard import hexgrid
from grognard.hexgrid import Hex, Hexside, SheetGeometry

__all__ = ["Area", "Board", "BoardBuilder", "BoardError", "Box", "BoxLink", "Network", "Point"]


class BoardError(ValueError):
    """A map description is inconsistent (unknown hex, bad feature, ...)."""


@dataclass(frozen=True)
class Point:
    """A point feature in a hex: a city, port, fortress, airfield, ..."""

    kind: str
    name: str
    attrs: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Network:
    """A line network (rail, road, navigable river) as a set of hex-to-hex links.

    A link joins two adjacent hexes, so it is identified by the hexside it crosses.
    ``edges`` is a boolean mask over hexsides; ``attrs`` holds per-link attributes
    (gauge, volume, ...) for the links that have any; ``hexes`` marks hexes the
    network touches.
    """

    name: str
    kind: str
    edges: np.ndarray
    hexes: np.ndarray
    attrs: dict[int, dict[str, Any]] = field(default_factory=dict)

    def has_link(self, side: int) -> bool:
        return bool(self.edges[side])


@dataclass
class Area:
    """A named region: a sea zone, weather or climatic zone, country, district, front, ..."""

    name: str
    kind: str
    hexes: np.ndarray
    adjacent: tuple[str, ...] = ()
    attrs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class BoxLink:
    """An off-map box is linked to a map hex (or another box) by a distance on a layer."""

    target: str
    distance: int
    layer: str = "any"


@dataclass
class Box:
    """An off-map holding place: a holding box, port box, reserve pool, outer case, ..."""

    name: str
    kind: str
    links: tuple[BoxLink, ...] = ()
    attrs: Mapping[str, Any] = field(default_factory=dict)


class Board:
    """Compiled map data. Build one with :class:`BoardBuilder`."""

    def __init__(
        self,
        sheets: dict[str, SheetGeometry],
        hexes: list[Hex],
        labels: list[str],
        aliases: dict[str, int],
        terrain_names: list[str],
        terrain: np.ndarray,
        feature_names: list[str],
        hexsides: list[Hexside],
        side_features: np.ndarray,
        side_attrs: dict[int, dict[str, Any]],
        point_kinds: list[str],
        points: dict[int, list[Point]],
        networks: dict[str, Network],
        areas: dict[str, Area],
        boxes: dict[str, Box],
        hex_attrs: dict[int, dict[str, Any]],
    ) -> None:
        self.sheets = sheets
        self.hexes = hexes
        self.labels = labels
        self.n = len(hexes)
        self.index: dict[Hex, int] = {h: i for i, h in enumerate(hexes)}
        self._by_label = dict(aliases)
        self.terrain_names = terrain_names
        self.terrain = terrain
        self.feature_names = feature_names
        self.feature_bit = {name: np.int64(1) << i for i, name in enumerate(feature_names)}
        self.hexsides = hexsides
        self.m = len(hexsides)
        self.side_index: dict[Hexside, int] = {s: i for i, s in enumerate(hexsides)}
        self.side_features = side_features
        self.side_attrs = side_attrs
        self.point_kinds = point_kinds
        self.points = points
        self.networks = networks
        self.areas = areas
        self.boxes = boxes
        self.hex_attrs = hex_attrs
        #: values derived from the board alone, kept for every game played on it (read and
        #: written only through ``Cache.static``)
        self.derived: dict[str, Any] = {}

        n = self.n
        nbr = np.full((n, 6), -1, dtype=np.int32)
        side = np.full((n, 6), -1, dtype=np.int32)
        for i, h in enumerate(hexes):
            for d in range(6):
                j = self.index.get(hexgrid.neighbor(h, d))
                if j is not None:
                    nbr[i, d] = j
                side[i, d] = self.side_index[hexgrid.hexside(h, d)]
        self.nbr = nbr
        self.side_of = side
        ends = np.full((self.m, 2), -1, dtype=np.int32)
        for k, s in enumerate(hexsides):
            a, b = hexgrid.hexside_hexes(s)
            ends[k, 0] = self.index.get(a, -1)
            ends[k, 1] = self.index.get(b, -1)
        self.side_hexes = ends
        flags = np.zeros(n, dtype=np.int64)
        for i, plist in points.items():
            for p in plist:
                flags[i] |= np.int64(1) << point_kinds.index(p.kind)
        self.point_flags = flags
        self._area_kind_maps: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------------ ids and labels
    def idx(self, ref: str | int | Hex) -> int:
        """Hex index from a printed label (``"GW2:0619"`` or ``"0619"``), an axial hex or an
        index."""
        if isinstance(ref, int | np.integer) and not isinstance(ref, Hex):
            i = int(ref)
            if not 0 <= i < self.n:
                raise BoardError(f"hex index {i} is off the board")
            return i
        if isinstance(ref, tuple):
            j = self.index.get(Hex(ref[0], ref[1]))
            if j is None:
                raise BoardError(f"hex {tuple(ref)} is off the board")
            return j
        j = self._by_label.get(str(ref).strip())
        if j is None:
            raise BoardError(f"unknown hex {ref!r}")
        return j

    def label(self, i: int) -> str:
        return self.labels[i]

    def has_label(self, text: str) -> bool:
        return text.strip() in self._by_label

    # ------------------------------------------------------------------ adjacency
    def neighbors(self, i: int) -> list[int]:
        return [int(j) for j in self.nbr[i] if j >= 0]

    def distance(self, i: int, j: int) -> int:
        return hexgrid.distance(self.hexes[i], self.hexes[j])

    def direction(self, i: int, j: int) -> int | None:
        return hexgrid.direction_between(self.hexes[i], self.hexes[j])

    def side_between(self, i: int, j: int) -> int:
        d = self.direction(i, j)
        if d is None:
            raise BoardError(f"{self.label(i)} and {self.label(j)} are not adjacent")
        return int(self.side_of[i, d])

    def within(self, i: int, radius: int) -> list[int]:
        """The board hexes within ``radius`` of hex ``i`` (``i`` first, then ring by ring),
        worked out once per hex and radius (the board never changes)."""
        kept: dict[tuple[int, int], tuple[int, ...]] = self.derived.setdefault("board:within", {})
        hit = kept.get((i, radius))
        if hit is None:
            hit = kept[(i, radius)] = tuple(
                j
                for j in (self.index.get(h) for h in hexgrid.spiral(self.hexes[i], radius))
                if j is not None
            )
        return list(hit)

    def line(self, i: int, j: int, nudge: int = 1) -> list[int]:
        """Board hexes on the straight line from ``i`` to ``j`` (off-board hexes skipped)."""
        return [
            self.index[h]
            for h in hexgrid.line(self.hexes[i], self.hexes[j], nudge)
            if h in self.index
        ]

    def line_sides(self, i: int, j: int, nudge: int = 1) -> list[int]:
        return [
            self.side_index[s] for s in hexgrid.line_hexsides(self.hexes[i], self.hexes[j], nudge)
        ]

    # ------------------------------------------------------------------ terrain and features
    def terrain_of(self, i: int) -> str:
        return self.terrain_names[int(self.terrain[i])]

    def terrain_code(self, name: str) -> int:
        try:
            return self.terrain_names.index(name)
        except ValueError:
            raise BoardError(f"unknown terrain {name!r}") from None

    def side_has(self, side: int, feature: str) -> bool:
        bit = self.feature_bit.get(feature)
        return bool(bit is not None and self.side_features[side] & bit)

    def side_feature_list(self, side: int) -> list[str]:
        v = int(self.side_features[side])
        return [n for k, n in enumerate(self.feature_names) if v >> k & 1]

    def side_mask(self, *features: str) -> np.ndarray:
        """Boolean mask over hexsides having any of ``features``."""
        bits = np.int64(0)
        for f in features:
            bits |= self.feature_bit.get(f, np.int64(0))
        return (self.side_features & bits) != 0

    def points_at(self, i: int, kind: str | None = None) -> list[Point]:
        plist = self.points.get(i, [])
        return [p for p in plist if kind is None or p.kind == kind]

    def point_mask(self, kind: str) -> np.ndarray:
        if kind not in self.point_kinds:
            return np.zeros(self.n, dtype=bool)
        return (self.point_flags & (np.int64(1) << self.point_kinds.index(kind))) != 0

    def find_point(self, name: str) -> tuple[int, Point]:
        for i, plist in self.points.items():
            for p in plist:
                if p.name == name:
                    return i, p
        raise BoardError(f"no place named {name!r} on the board")

    # ------------------------------------------------------------------ areas
    def areas_of(self, i: int, kind: str | None = None) -> list[Area]:
        return [
            a
            for a in self.areas.values()
            if (kind is None or a.kind == kind) and i in set(a.hexes.tolist())
        ]

    def area_map(self, kind: str) -> tuple[np.ndarray, list[str]]:
        """Per-hex index into the areas of ``kind`` (``-1`` = none) and their names.

        Areas of one kind are expected to be disjoint; overlapping ones raise.
        """
        names = sorted(a.name for a in self.areas.values() if a.kind == kind)
        if kind not in self._area_kind_maps:
            arr = np.full(self.n, -1, dtype=np.int32)
            for k, name in enumerate(names):
                hx = self.areas[name].hexes
                if (arr[hx] >= 0).any():
                    raise BoardError(
                        f"areas of kind {kind!r} overlap at {self.label(int(hx[arr[hx] >= 0][0]))}"
                    )
                arr[hx] = k
            arr.setflags(write=False)
            self._area_kind_maps[kind] = arr
        return self._area_kind_maps[kind], names

    def area_of(self, i: int, kind: str) -> str | None:
        arr, names = self.area_map(kind)
        k = int(arr[i])
        return names[k] if k >= 0 else None


class BoardBuilder:
    """Collects map data sheet by sheet and compiles a :class:`Board`."""

    def __init__(self) -> None:
        self.sheets: dict[str, SheetGeometry] = {}
        self._hexes: dict[Hex, str] = {}
        self._labels: dict[str, Hex] = {}
        self._terrain: dict[Hex, str] = {}
        self._terrain_names: list[str] = []
        self._features: dict[Hexside, set[str]] = {}
        self._feature_names: list[str] = []
        self._side_attrs: dict[Hexside, dict[str, Any]] = {}
        self._points: dict[Hex, list[Point]] = {}
        self._point_kinds: list[str] = []
        self._networks: dict[str, tuple[str, dict[Hexside, dict[str, Any]]]] = {}
        self._areas: dict[str, tuple[str, list[Hex], tuple[str, ...], dict[str, Any]]] = {}
        self._boxes: dict[str, Box] = {}
        self._hex_attrs: dict[Hex, dict[str, Any]] = {}

    # -------------------------------------------------------------- declarations
    def declare_terrain(self, names: Iterable[str]) -> None:
        for n in names:
            if n not in self._terrain_names:
                self._terrain_names.append(n)

    def declare_features(self, names: Iterable[str]) -> None:
        for n in names:
            if n not in self._feature_names:
                if len(self._feature_names) >= 63:
                    raise BoardError("at most 63 hexside feature kinds are supported")
                self._feature_names.append(n)

    def declare_point_kinds(self, names: Iterable[str]) -> None:
        for n in names:
            if n not in self._point_kinds:
                if len(self._point_kinds) >= 63:
                    raise BoardError("at most 63 point feature kinds are supported")
                self._point_kinds.append(n)

    # -------------------------------------------------------------- sheets and hexes
    def add_sheet(self, sheet: SheetGeometry, cols: range, rows: range) -> None:
        """Add every hex of a rectangular sheet (printed columns ``cols`` x rows ``rows``)."""
        if sheet.name in self.sheets:
            raise BoardError(f"map sheet {sheet.name!r} given twice")
        self.sheets[sheet.name] = sheet
        for c in cols:
            for r in rows:
                self.add_hex(sheet, sheet.to_axial(c, r))

    def add_hex(self, sheet: SheetGeometry, h: Hex) -> None:
        label = sheet.format_id(h, qualified=True)
        self._labels[label] = h
        # Where two sheets overlap, the first sheet's label stays the canonical one.
        self._hexes.setdefault(h, label)

    def hex(self, ref: str, default_sheet: str | None = None) -> Hex:
        text = ref.strip()
        if ":" not in text:
            if default_sheet is None:
                if len(self.sheets) != 1:
                    raise BoardError(f"hex {ref!r} must name its map (several maps in play)")
                default_sheet = next(iter(self.sheets))
            text = f"{default_sheet}:{text}"
        h = self._labels.get(text)
        if h is None:
            raise BoardError(f"unknown hex {ref!r}")
        return h

    def set_terrain(self, h: Hex, name: str) -> None:
        if h not in self._hexes:
            raise BoardError(f"hex {h} is not on any sheet")
        if name not in self._terrain_names:
            raise BoardError(f"unknown terrain {name!r}")
        self._terrain[h] = name

    def remove_hex(self, h: Hex) -> None:
        """Drop a hex from the board (a sheet's ragged edge, a masked-out area)."""
        label = self._hexes.pop(h, None)
        if label is None:
            raise BoardError(f"hex {h} is not on any sheet")
        for k in [k for k, v in self._labels.items() if v == h]:
            del self._labels[k]
        self._terrain.pop(h, None)

    def set_hex_attrs(self, h: Hex, attrs: Mapping[str, Any]) -> None:
        self._hex_attrs.setdefault(h, {}).update(attrs)

    # -------------------------------------------------------------- hexsides
    def add_side_feature(
        self, a: Hex, b: Hex, feature: str, attrs: Mapping[str, Any] | None = None
    ) -> None:
        if feature not in self._feature_names:
            raise BoardError(f"unknown hexside feature {feature!r}")
        try:
            s = hexgrid.hexside_between(a, b)
        except ValueError as e:
            raise BoardError(str(e)) from None
        self._features.setdefault(s, set()).add(feature)
        if attrs:
            self._side_attrs.setdefault(s, {}).update(attrs)

    # -------------------------------------------------------------- points, networks, areas, boxes
    def add_point(self, h: Hex, point: Point) -> None:
        if point.kind not in self._point_kinds:
            raise BoardError(f"unknown point feature kind {point.kind!r}")
        self._points.setdefault(h, []).append(point)

    def add_network_link(
        self, network: str, kind: str, a: Hex, b: Hex, attrs: Mapping[str, Any] | None = None
    ) -> None:
        net_kind, links = self._networks.setdefault(network, (kind, {}))
        if net_kind != kind:
            raise BoardError(f"network {network!r} declared as {net_kind!r} and {kind!r}")
        try:
            s = hexgrid.hexside_between(a, b)
        except ValueError as e:
            raise BoardError(f"network {network!r}: {e}") from None
        links.setdefault(s, {}).update(attrs or {})

    def add_area(
        self,
        name: str,
        kind: str,
        hexes: Iterable[Hex],
        adjacent: Iterable[str] = (),
        attrs: Mapping[str, Any] | None = None,
    ) -> None:
        if name in self._areas:
            raise BoardError(f"area {name!r} given twice")
        self._areas[name] = (kind, list(hexes), tuple(adjacent), dict(attrs or {}))

    def add_box(self, box: Box) -> None:
        if box.name in self._boxes:
            raise BoardError(f"box {box.name!r} given twice")
        self._boxes[box.name] = box

    # -------------------------------------------------------------- compile
    def build(self) -> Board:
        if not self._hexes:
            raise BoardError("the board has no hexes")
        if not self._terrain_names:
            raise BoardError("no terrain types declared")
        hexes = sorted(self._hexes, key=lambda h: (h[1], h[0]))
        index = {h: i for i, h in enumerate(hexes)}
        single = len(self.sheets) == 1
        labels = []
        for h in hexes:
            lab = self._hexes[h]
            labels.append(lab.split(":", 1)[1] if single else lab)
        aliases: dict[str, int] = {}
        for lab, h in self._labels.items():
            if h in index:
                aliases[lab] = index[h]
                if single:
                    aliases[lab.split(":", 1)[1]] = index[h]
        default = self._terrain_names[0]
        terrain = np.array(
            [self._terrain_names.index(self._terrain.get(h, default)) for h in hexes],
            dtype=np.int16,
        )
        sides: dict[Hexside, None] = {}
        for h in hexes:
            for d in range(6):
                sides[hexgrid.hexside(h, d)] = None
        side_list = list(sides)
        side_idx = {s: k for k, s in enumerate(side_list)}
        feats = np.zeros(len(side_list), dtype=np.int64)
        for s, names in self._features.items():
            k = side_idx.get(s)
            if k is None:
                raise BoardError(f"hexside {s} is off the board")
            for name in names:
                feats[k] |= np.int64(1) << self._feature_names.index(name)
        side_attrs = {side_idx[s]: dict(a) for s, a in self._side_attrs.items() if s in side_idx}
        points = {index[h]: list(p) for h, p in self._points.items() if h in index}
        networks: dict[str, Network] = {}
        for name, (kind, links) in self._networks.items():
            edges = np.zeros(len(side_list), dtype=bool)
            touched = np.zeros(len(hexes), dtype=bool)
            attrs: dict[int, dict[str, Any]] = {}
            for s, a in links.items():
                k = side_idx.get(s)
                if k is None:
                    raise BoardError(f"network {name!r} leaves the board at hexside {s}")
                edges[k] = True
                for h in hexgrid.hexside_hexes(s):
                    if h not in index:
                        raise BoardError(f"network {name!r} runs to an off-board hex {h}")
                    touched[index[h]] = True
                if a:
                    attrs[k] = dict(a)
            networks[name] = Network(name, kind, edges, touched, attrs)
        areas: dict[str, Area] = {}
        for name, (kind, hx, adj, area_attrs) in self._areas.items():
            idxs = []
            for h in hx:
                if h not in index:
                    raise BoardError(f"area {name!r} includes hex {h} which is not on the board")
                idxs.append(index[h])
            areas[name] = Area(
                name, kind, np.array(sorted(set(idxs)), dtype=np.int32), adj, area_attrs
            )
        for name, area in areas.items():
            for other in area.adjacent:
                if other not in areas:
                    raise BoardError(f"area {name!r} is adjacent to unknown area {other!r}")
        for b in self._boxes.values():
            for link in b.links:
                if (
                    link.target not in aliases
                    and link.target not in self._boxes
                    and link.target not in areas
                ):
                    raise BoardError(f"box {b.name!r} links to unknown place {link.target!r}")
        hex_attrs = {index[h]: dict(a) for h, a in self._hex_attrs.items() if h in index}
        return Board(
            sheets=dict(self.sheets),
            hexes=hexes,
            labels=labels,
            aliases=aliases,
            terrain_names=list(self._terrain_names),
            terrain=terrain,
            feature_names=list(self._feature_names),
            hexsides=side_list,
            side_features=feats,
            side_attrs=side_attrs,
            point_kinds=list(self._point_kinds),
            points=points,
            networks=networks,
            areas=areas,
            boxes=dict(self._boxes),
            hex_attrs=hex_attrs,
        )
