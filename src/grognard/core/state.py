"""Game state: pieces, locations, control, markers, tracks, the turn pointer.

The state is plain data: everything in it serialises to canonical JSON, and its hash
(:meth:`GameState.digest`) identifies a position. Rule code mutates it only through
the game's action processing; front ends read it only through views.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from grognard.core import serial

LOC_KINDS = ("hex", "hexside", "area", "box", "piece", "none")


class Loc(NamedTuple):
    """Where a piece is: a hex index, a hexside index, an area or box name, another piece id."""

    kind: str
    ref: int | str

    @staticmethod
    def hex(i: int) -> Loc:
        return Loc("hex", int(i))

    @staticmethod
    def hexside(i: int) -> Loc:
        return Loc("hexside", int(i))

    @staticmethod
    def area(name: str) -> Loc:
        return Loc("area", name)

    @staticmethod
    def box(name: str) -> Loc:
        return Loc("box", name)

    @staticmethod
    def inside(piece_id: str) -> Loc:
        return Loc("piece", piece_id)

    def to_json(self) -> list[Any]:
        return [self.kind, self.ref]


NOWHERE = Loc("none", "")


@dataclass
class Piece:
    """A counter on the board or off it.

    ``faces`` holds the printed values of each face (``{"full": {"attack": 8, ...},
    "cadre": {...}}``); ``face`` says which one is up. ``attrs`` holds values that
    change in play (hits, fatigue, damage). ``side`` is who controls the piece now,
    ``nation`` whose it is.
    """

    id: str
    type: str
    side: str
    nation: str = ""
    face: str = "front"
    loc: Loc = NOWHERE
    status: set[str] = field(default_factory=set)
    attrs: dict[str, Any] = field(default_factory=dict)
    faces: dict[str, dict[str, Any]] = field(default_factory=dict)
    name: str = ""
    order: int = 0

    def stat(self, key: str, default: Any = None) -> Any:
        """A value of the face that is up, overridden by a changed attribute of the same name."""
        if key in self.attrs:
            return self.attrs[key]
        return self.faces.get(self.face, {}).get(key, default)

    def has(self, status: str) -> bool:
        return status in self.status

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "side": self.side,
            "nation": self.nation,
            "face": self.face,
            "loc": list(self.loc),
            "status": sorted(self.status),
            "attrs": serial.to_jsonable(self.attrs),
            "faces": serial.to_jsonable(self.faces),
            "name": self.name,
            "order": self.order,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Piece:
        return cls(
            id=d["id"],
            type=d["type"],
            side=d["side"],
            nation=d.get("nation", ""),
            face=d.get("face", "front"),
            loc=Loc(d["loc"][0], d["loc"][1]),
            status=set(d.get("status", [])),
            attrs=serial.from_jsonable(d.get("attrs", {})),
            faces=serial.from_jsonable(d.get("faces", {})),
            name=d.get("name", ""),
            order=int(d.get("order", 0)),
        )


@dataclass
class Frame:
    """One active node of the sequence of play (see :mod:`grognard.core.sequence`)."""

    step: str
    params: dict[str, Any] = field(default_factory=dict)
    entered: bool = False
    done: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "params": serial.to_jsonable(self.params),
            "entered": self.entered,
            "done": self.done,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Frame:
        return cls(
            d["step"],
            serial.from_jsonable(d.get("params", {})),
            d.get("entered", False),
            d.get("done", False),
        )


class GameState:
    """Everything that determines the future of a game.

    ``log`` is carried along for convenience but is not part of the hash: two games
    that reached the same position by different routes have the same digest.
    """

    def __init__(self) -> None:
        self.sides: list[str] = []
        self.alignment: dict[str, str | None] = {}
        self.pieces: dict[str, Piece] = {}
        self.control: dict[int, str] = {}
        self.markers: dict[str, dict[str, Any]] = {}
        self.tracks: dict[str, Any] = {}
        self.turn: dict[str, Any] = {"index": 0, "label": ""}
        self.frames: list[Frame] = []
        self.dice_counter: int = 0
        self.secrets: dict[str, dict[str, Any]] = {}
        self.vars: dict[str, Any] = {}
        self.result: dict[str, Any] | None = None
        self.log: list[dict[str, Any]] = []
        self._order = 0
        self._at: dict[Loc, list[str]] | None = None

    # ------------------------------------------------------------------ pieces
    def add_piece(self, piece: Piece) -> Piece:
        if piece.id in self.pieces:
            raise ValueError(f"duplicate piece id {piece.id!r}")
        self._order += 1
        piece.order = self._order
        self.pieces[piece.id] = piece
        self._at = None
        return piece

    def remove_piece(self, piece_id: str) -> Piece:
        p = self.pieces.pop(piece_id)
        self._at = None
        return p

    def move(self, piece_id: str, loc: Loc, on_top: bool = True) -> None:
        """Put a piece somewhere; it goes on top of the stack there (or at the bottom)."""
        p = self.pieces[piece_id]
        p.loc = loc
        self._order += 1
        p.order = self._order if on_top else -self._order
        self._at = None

    def piece(self, piece_id: str) -> Piece:
        return self.pieces[piece_id]

    def at(self, loc: Loc) -> list[Piece]:
        """Pieces at ``loc``, bottom of the stack first."""
        if self._at is None:
            idx: dict[Loc, list[str]] = {}
            for p in sorted(self.pieces.values(), key=lambda p: p.order):
                idx.setdefault(p.loc, []).append(p.id)
            self._at = idx
        return [self.pieces[i] for i in self._at.get(loc, [])]

    def at_hex(self, i: int) -> list[Piece]:
        return self.at(Loc("hex", int(i)))

    def contents(self, piece_id: str) -> list[Piece]:
        return self.at(Loc("piece", piece_id))

    def where(self, piece_id: str) -> Loc:
        """The outermost location of a piece (follows carriers: cargo on a ship at sea)."""
        loc = self.pieces[piece_id].loc
        seen = {piece_id}
        while loc.kind == "piece":
            if loc.ref in seen:
                raise ValueError(f"piece {piece_id!r} is inside itself")
            seen.add(str(loc.ref))
            loc = self.pieces[str(loc.ref)].loc
        return loc

    def of_side(self, side: str) -> Iterator[Piece]:
        return (p for p in self.pieces.values() if p.side == side)

    def occupied_hexes(self, side: str | None = None) -> set[int]:
        return {
            int(p.loc.ref)
            for p in self.pieces.values()
            if p.loc.kind == "hex" and (side is None or p.side == side)
        }

    # ------------------------------------------------------------------ markers and tracks
    def marker(self, kind: str, key: str | int, default: Any = None) -> Any:
        return self.markers.get(kind, {}).get(str(key), default)

    def set_marker(self, kind: str, key: str | int, value: Any) -> None:
        if value is None:
            self.markers.get(kind, {}).pop(str(key), None)
        else:
            self.markers.setdefault(kind, {})[str(key)] = value

    def clear_markers(self, kind: str, keys: Iterable[str | int] | None = None) -> None:
        if keys is None:
            self.markers.pop(kind, None)
            return
        m = self.markers.get(kind, {})
        for k in keys:
            m.pop(str(k), None)

    # ------------------------------------------------------------------ serialisation
    def to_json(self, with_log: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {
            "sides": list(self.sides),
            "alignment": dict(self.alignment),
            "pieces": [p.to_json() for p in sorted(self.pieces.values(), key=lambda p: p.id)],
            "control": {str(k): v for k, v in sorted(self.control.items())},
            "markers": serial.to_jsonable(self.markers),
            "tracks": serial.to_jsonable(self.tracks),
            "turn": serial.to_jsonable(self.turn),
            "frames": [f.to_json() for f in self.frames],
            "dice_counter": self.dice_counter,
            "secrets": serial.to_jsonable(self.secrets),
            "vars": serial.to_jsonable(self.vars),
            "result": serial.to_jsonable(self.result),
            "order": self._order,
        }
        if with_log:
            d["log"] = serial.to_jsonable(self.log)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GameState:
        s = cls()
        s.sides = list(d["sides"])
        s.alignment = dict(d.get("alignment", {}))
        for pd in d["pieces"]:
            p = Piece.from_json(pd)
            s.pieces[p.id] = p
        s.control = {int(k): v for k, v in d.get("control", {}).items()}
        s.markers = serial.from_jsonable(d.get("markers", {}))
        s.tracks = serial.from_jsonable(d.get("tracks", {}))
        s.turn = serial.from_jsonable(d.get("turn", {}))
        s.frames = [Frame.from_json(f) for f in d.get("frames", [])]
        s.dice_counter = int(d.get("dice_counter", 0))
        s.secrets = serial.from_jsonable(d.get("secrets", {}))
        s.vars = serial.from_jsonable(d.get("vars", {}))
        s.result = serial.from_jsonable(d.get("result"))
        s.log = serial.from_jsonable(d.get("log", []))
        s._order = int(d.get("order", 0))
        return s

    def digest(self) -> str:
        return serial.digest(self.to_json(with_log=False))

    def clone(self) -> GameState:
        s = GameState.__new__(GameState)
        s.sides = list(self.sides)
        s.alignment = dict(self.alignment)
        s.pieces = {
            k: Piece(
                p.id,
                p.type,
                p.side,
                p.nation,
                p.face,
                p.loc,
                set(p.status),
                copy.deepcopy(p.attrs),
                p.faces,
                p.name,
                p.order,
            )
            for k, p in self.pieces.items()
        }
        s.control = dict(self.control)
        s.markers = copy.deepcopy(self.markers)
        s.tracks = copy.deepcopy(self.tracks)
        s.turn = copy.deepcopy(self.turn)
        s.frames = [Frame(f.step, copy.deepcopy(f.params), f.entered, f.done) for f in self.frames]
        s.dice_counter = self.dice_counter
        s.secrets = copy.deepcopy(self.secrets)
        s.vars = copy.deepcopy(self.vars)
        s.result = copy.deepcopy(self.result)
        s.log = list(self.log)
        s._order = self._order
        s._at = None
        return s
