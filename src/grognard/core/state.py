"""Game state: pieces, locations, control, markers, tracks, the turn pointer.

The state is plain data: everything in it serialises to canonical JSON, and its hash identifies
a position. Rule code mutates it only while the game processes an action; front ends read it only
through views.

Every change is seen: pieces, the control map, markers, tracks, the turn record, the frames of the
sequence of play, secrets and variables are tracked objects (:mod:`grognard.core.tracked`) that
report each write to the state. The state counts them in :attr:`GameState.revision` and remembers,
per *resource*, the revision of its last change (:meth:`GameState.rev_of`), so derived values can
be memoised against exactly what they read (:mod:`grognard.core.cache`). Resources:

=========================  ==============================================================
``("piece", id)``          anything about that piece (place, face, status, attributes...)
``("hex", i)``             the pieces in hex ``i`` (arrivals, departures, their changes) and
                           its control
``("side", s)``            the pieces of side ``s`` (any change to any of them)
``("pieces",)``            any piece
``("locations",)``         where the pieces are (a piece added, removed or moved)
``("control",)``           any hex's control
``("marker", kind)``       the markers of one kind
``("var", key)``           one entry of :attr:`GameState.vars` (a rule system's record)
``("tracks",)``, ``("turn",)``, ``("frames",)``, ``("secrets",)``, ``("alignment",)``,
``("dice",)``, ``("result",)``
=========================  ==============================================================

``log`` is carried along but is not part of the position (nor of its hash): two games that
reached the same position by different routes have the same digest.
"""

from __future__ import annotations

import bisect
import itertools
import weakref
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple, cast

from grognard.core import serial
from grognard.core.tracked import (
    DETACHED,
    Owner,
    TrackedDict,
    TrackedList,
    TrackedSet,
    WeakOwner,
    copy_plain,
)

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
_new = object.__new__
_PIECE_FIELDS = ("id", "type", "side", "nation", "face", "loc", "status", "attrs", "faces", "name")
_set = object.__setattr__


class Piece:
    """A counter on the board or off it.

    ``faces`` holds the printed values of each face (``{"full": {"attack": 8, ...},
    "cadre": {...}}``; never changed in play); ``face`` says which one is up. ``attrs`` holds
    values that change in play (hits, fatigue, damage). ``side`` is who controls the piece now,
    ``nation`` whose it is. ``order`` places it in its stack (higher is on top).

    Every write to a piece in a game state is reported to it (assigning ``loc`` moves the piece
    within the state's location index, like :meth:`GameState.move`).
    """

    # No __slots__: a piece's fields live in its instance dict, so that copying a piece (every
    # clone of a state copies all of them) is one dict copy rather than a dozen attribute writes.

    id: str
    type: str
    side: str
    nation: str
    face: str
    loc: Loc
    status: TrackedSet[str]
    attrs: TrackedDict[str, Any]
    faces: dict[str, dict[str, Any]]
    name: str
    order: int
    _state: weakref.ReferenceType[GameState] | None
    _enc: bytes | None

    def __init__(
        self,
        id: str,
        type: str,
        side: str,
        nation: str = "",
        face: str = "front",
        loc: Loc = NOWHERE,
        status: Iterable[str] | None = None,
        attrs: Mapping[str, Any] | None = None,
        faces: dict[str, dict[str, Any]] | None = None,
        name: str = "",
        order: int = 0,
    ) -> None:
        owner = DETACHED  # a piece added to a state reports to it (GameState.add_piece)
        _set(self, "_state", None)
        _set(self, "_enc", None)
        _set(self, "id", id)
        _set(self, "type", type)
        _set(self, "side", side)
        _set(self, "nation", nation)
        _set(self, "face", face)
        _set(self, "loc", Loc(*loc))
        _set(self, "status", TrackedSet(status or (), owner=owner))
        _set(self, "attrs", TrackedDict(attrs or {}, owner=owner))
        _set(self, "faces", faces if faces is not None else {})
        _set(self, "name", name)
        _set(self, "order", int(order))

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "status":
            owner, what = self._parts()
            value = TrackedSet(value, owner=owner, what=what)
        elif name == "attrs":
            owner, what = self._parts()
            value = TrackedDict(value, owner=owner, what=what)
        elif name == "loc":
            value = Loc(*value)
            st = self.state_of()
            if st is not None and value != self.loc:
                st._relocate(self, value, True)
                return
        elif name not in _PIECE_FIELDS and name != "order":
            raise AttributeError(f"a piece has no attribute {name!r}")
        old_side = self.__dict__.get("side") if name == "side" else None
        _set(self, name, value)
        st = self.state_of()
        if st is not None:
            st._piece_changed(self)
            if old_side is not None and old_side != value:
                st.changed(("side", old_side))  # the side it left changed too

    def __getattr__(self, name: str) -> Any:
        # only for fields missing from the instance dict: a copied piece with no status gets
        # its (empty, tracked) status set when it is first read
        if name == "status":
            owner, what = self._parts()
            status: TrackedSet[str] = TrackedSet(owner=owner, what=what)
            self.__dict__["status"] = status
            return status
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def state_of(self) -> GameState | None:
        """The game state the piece belongs to, or None (a detached piece). The piece holds its
        state by a weak reference: a state and its pieces form no reference cycle."""
        ref = self._state
        return ref() if ref is not None else None

    def _parts(self) -> tuple[Owner, Any]:
        """What the piece's status and attributes report their writes to: its state's piece
        owner and the piece's id, or nothing for a detached piece."""
        st = self.state_of()
        if st is None:
            return DETACHED, None
        return st._wparts, self.id

    def _adopt_parts(self, owner: Owner, what: Any) -> None:
        d = self.__dict__
        status = d.get("status")
        if status is not None:
            status._adopt(owner, what)
        d["attrs"]._adopt(owner, what)

    def __repr__(self) -> str:
        return (
            f"Piece({self.id!r}, {self.type!r}, {self.side!r}, face={self.face!r}, "
            f"loc={tuple(self.loc)!r})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Piece):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def stat(self, key: str, default: Any = None) -> Any:
        """A value of the face that is up, overridden by a changed attribute of the same name."""
        if key in self.attrs:
            return self.attrs[key]
        return self.faces.get(self.face, {}).get(key, default)

    def has(self, status: str) -> bool:
        return status in self.__dict__.get("status", ())

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "side": self.side,
            "nation": self.nation,
            "face": self.face,
            "loc": list(self.loc),
            "status": sorted(self.__dict__.get("status", ())),
            "attrs": serial.to_jsonable(self.attrs),
            "faces": self._faces_json(),
            "name": self.name,
            "order": self.order,
        }

    def _faces_json(self) -> Any:
        """The printed faces as JSON, converted once: faces never change in play, and the
        result is shared by every ``to_json`` of the piece and its copies (read it, never write
        into it). A new ``faces`` object (assigned to the field) is converted again."""
        faces = self.faces
        kept = self.__dict__.get("_faces_kept")
        if kept is None or kept[0] is not faces:
            kept = (faces, serial.FrozenJSON(serial.to_jsonable(faces)))
            self.__dict__["_faces_kept"] = kept
        return kept[1]

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Piece:
        return cls(
            id=d["id"],
            type=d["type"],
            side=d["side"],
            nation=d.get("nation", ""),
            face=d.get("face", "front"),
            loc=Loc(d["loc"][0], d["loc"][1]),
            status=d.get("status", []),
            attrs=serial.from_jsonable(d.get("attrs", {})),
            faces=serial.from_jsonable(d.get("faces", {})),
            name=d.get("name", ""),
            order=int(d.get("order", 0)),
        )

    def changed(self, what: Any) -> None:
        """A change of the piece reported to its state (its status and attributes report theirs
        through the state's piece owner, :class:`_PieceParts`)."""
        st = self.state_of()
        if st is not None:
            st._piece_changed(self)

    def copy(self) -> Piece:
        """A detached copy (same values, in no state)."""
        return _copy_piece(self, None)


def _copy_piece(p: Piece, st: GameState | None) -> Piece:
    """A copy of ``p`` belonging to ``st``: its fields shared (immutable values and the printed
    faces, never changed in play), its status and attributes new containers owned by the copy."""
    q: Piece = _new(Piece)
    d = p.__dict__.copy()
    if st is None:
        d["_state"] = None
        owner: Owner = DETACHED
        what: Any = None
    else:
        d["_state"] = st._wref
        owner = st._wparts
        what = p.id
    src_status = d.get("status")
    if src_status:
        status: TrackedSet[str] = TrackedSet.__new__(TrackedSet)
        set.update(status, src_status)
        status._owner = owner
        status._what = what
        d["status"] = status
    elif src_status is not None:
        del d["status"]  # an empty status is made when first read (Piece.__getattr__)
    attrs: TrackedDict[str, Any] = TrackedDict.__new__(TrackedDict)
    src = d["attrs"]
    if src:
        dict.update(attrs, src)
        if not _MUTABLE_TYPES.isdisjoint(map(type, dict.values(src))):
            for k, v in dict.items(src):
                if type(v) in _MUTABLE:
                    dict.__setitem__(attrs, k, copy_plain(v))
    attrs._owner = owner
    attrs._what = what
    d["attrs"] = attrs
    _set(q, "__dict__", d)
    return q


_MUTABLE = (dict, list, set, TrackedDict, TrackedList, TrackedSet)
_MUTABLE_TYPES = frozenset(_MUTABLE)


class Frame:
    """One active node of the sequence of play (see :mod:`grognard.core.sequence`).

    ``params`` is the frame's own data (JSON values); writes to it are changes of the position.
    """

    __slots__ = ("_state", "done", "entered", "params", "step")
    step: str
    params: dict[str, Any]
    entered: bool
    done: bool
    _state: weakref.ReferenceType[GameState] | None

    def __init__(
        self,
        step: str,
        params: Mapping[str, Any] | None = None,
        entered: bool = False,
        done: bool = False,
    ) -> None:
        _set(self, "_state", None)
        _set(self, "step", step)
        _set(self, "params", TrackedDict(params or {}, what=("frames",)))
        _set(self, "entered", entered)
        _set(self, "done", done)

    def __setattr__(self, name: str, value: Any) -> None:
        ref = self._state
        st = ref() if ref is not None else None
        if name == "params":
            value = TrackedDict(
                value, owner=st._wowner if st is not None else DETACHED, what=("frames",)
            )
        elif name not in ("step", "entered", "done"):
            raise AttributeError(f"a frame has no attribute {name!r}")
        _set(self, name, value)
        if st is not None:
            st.changed(("frames",))

    def _attach(self, st: GameState | None) -> None:
        _set(self, "_state", st._wref if st is not None else None)
        cast(TrackedDict[str, Any], self.params)._adopt(
            st._wowner if st is not None else DETACHED, ("frames",)
        )

    def __repr__(self) -> str:
        return (
            f"Frame({self.step!r}, {dict(self.params)!r}, entered={self.entered}, done={self.done})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Frame):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

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


class _Frames(TrackedList[Frame]):
    """The stack of frames: frames pushed onto it belong to the state."""

    __slots__ = ()

    def append(self, f: Frame) -> None:
        owner = self._owner
        f._attach(owner.target() if isinstance(owner, WeakOwner) else None)
        list.append(self, f)
        self._changed()

    def pop(self, i: Any = -1) -> Frame:
        f = list.pop(self, i)
        self._changed()
        return f


class _KeyedVars(TrackedDict[str, Any]):
    """``GameState.vars``: each entry is its own resource (``("var", key)``)."""

    __slots__ = ()

    def __init__(self, data: Mapping[str, Any] = (), *, owner: Owner = DETACHED) -> None:  # type: ignore[assignment]
        TrackedDict.__init__(self, data, owner=owner, what=("vars",))

    def __setitem__(self, key: str, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self._owner.changed(("var", key))

    def __delitem__(self, key: str) -> None:
        dict.__delitem__(self, key)
        self._owner.changed(("var", key))

    def pop(self, key: str, *default: Any) -> Any:
        had = key in self
        out = dict.pop(self, key, *default)
        if had:
            self._owner.changed(("var", key))
        return out

    def update(self, *args: Any, **kw: Any) -> None:
        for k, v in dict(*args, **kw).items():
            self[k] = v

    def clear(self) -> None:
        for k in list(self):
            del self[k]


class _Markers(TrackedDict[str, Any]):
    """``GameState.markers``: kind -> {key: value}; each kind is its own resource."""

    __slots__ = ()

    def __init__(self, data: Mapping[str, Any] = (), *, owner: Owner = DETACHED) -> None:  # type: ignore[assignment]
        TrackedDict.__init__(self, data, owner=owner, what=("markers",))

    def __setitem__(self, key: str, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self._owner.changed(("marker", key))

    def __delitem__(self, key: str) -> None:
        dict.__delitem__(self, key)
        self._owner.changed(("marker", key))

    def pop(self, key: str, *default: Any) -> Any:
        had = key in self
        out = dict.pop(self, key, *default)
        if had:
            self._owner.changed(("marker", key))
        return out

    def update(self, *args: Any, **kw: Any) -> None:
        for k, v in dict(*args, **kw).items():
            self[k] = v

    def clear(self) -> None:
        for k in list(self):
            del self[k]


class _Control(TrackedDict[int, str]):
    """``GameState.control``: hex index -> owning side; a change is one of ``("hex", i)``."""

    __slots__ = ()

    def __init__(self, data: Mapping[int, str] = (), *, owner: Owner = DETACHED) -> None:  # type: ignore[assignment]
        TrackedDict.__init__(self, owner=owner, what=("control",))
        for k, v in dict(data).items():
            dict.__setitem__(self, int(k), v)

    def _adopt(self, owner: Owner, what: Any) -> None:
        self._owner = owner

    def _hex(self, key: int) -> None:
        self._owner.changed(("control",))
        self._owner.changed(("hex", key))

    def __setitem__(self, key: int, value: str) -> None:
        if dict.get(self, key, None) != value or key not in self:
            dict.__setitem__(self, key, value)
            self._hex(key)

    def __delitem__(self, key: int) -> None:
        dict.__delitem__(self, key)
        self._hex(key)

    def pop(self, key: int, *default: Any) -> Any:
        had = key in self
        out = dict.pop(self, key, *default)
        if had:
            self._hex(key)
        return out

    def update(self, *args: Any, **kw: Any) -> None:
        for k, v in dict(*args, **kw).items():
            self[k] = v

    def clear(self) -> None:
        for k in list(self):
            del self[k]


_EPOCHS = itertools.count(1)


class _PieceParts:
    """What the status and attributes of a state's pieces report their writes to: the piece,
    named by its id (``what``), is looked up in the state, held by a weak reference."""

    __slots__ = ("_ref",)

    def __init__(self, ref: weakref.ReferenceType[GameState]) -> None:
        self._ref = ref

    def changed(self, what: Any) -> None:
        st = self._ref()
        if st is not None:
            p = st.pieces.get(what)
            if p is not None:
                st._piece_changed(p)


def _bind(s: GameState) -> None:
    """The state's weak handles on itself: its pieces, frames and containers hold it through
    them, so that it forms no reference cycle with them (see :class:`WeakOwner`)."""
    ref = weakref.ref(s)
    _set(s, "_wref", ref)
    _set(s, "_wowner", WeakOwner(ref))
    _set(s, "_wparts", _PieceParts(ref))


_PLAIN_ATTRS = frozenset(
    {
        "sides",
        "pieces",
        "log",
        "_order",
        "_at",
        "revision",
        "_revs",
        "_prints",
        "in_action",
        "epoch",
        "result",
        "dice_counter",
    }
)
_TRACKED_ATTRS = {
    "alignment": ("alignment",),
    "tracks": ("tracks",),
    "turn": ("turn",),
    "secrets": ("secrets",),
}


class GameState:
    """Everything that determines the future of a game (see the module docstring)."""

    sides: list[str]
    alignment: dict[str, str | None]
    pieces: dict[str, Piece]
    control: dict[int, str]
    markers: dict[str, Any]
    tracks: dict[str, Any]
    turn: dict[str, Any]
    frames: list[Frame]
    secrets: dict[str, Any]
    vars: dict[str, Any]
    log: list[dict[str, Any]]
    revision: int
    epoch: int
    in_action: bool
    _revs: dict[Any, int]
    _prints: dict[Any, bytes]
    _order: int
    _at: dict[Loc, list[tuple[int, str]]]
    _dice: int
    _result: dict[str, Any] | None
    _wref: weakref.ReferenceType[GameState]
    _wowner: WeakOwner
    _wparts: _PieceParts

    def __init__(self) -> None:
        _bind(self)
        _set(self, "revision", 0)
        _set(self, "_revs", {})
        _set(self, "sides", [])
        _set(self, "pieces", {})
        w = self._wowner
        _set(self, "control", _Control(owner=w))
        _set(self, "markers", _Markers(owner=w))
        _set(self, "vars", _KeyedVars(owner=w))
        _set(self, "frames", _Frames(owner=w, what=("frames",)))
        for name, what in _TRACKED_ATTRS.items():
            _set(self, name, TrackedDict(owner=w, what=what))
        self.turn.update({"index": 0, "label": ""})
        _set(self, "_dice", 0)
        _set(self, "_result", None)
        _set(self, "log", [])
        _set(self, "_order", 0)
        _set(self, "_at", {})
        _set(self, "_prints", {})
        _set(self, "in_action", False)
        _set(self, "epoch", next(_EPOCHS))

    # ------------------------------------------------------------------ revisions

    def changed(self, what: Any) -> None:
        """Record a change of resource ``what`` (see the module docstring)."""
        r = self.revision + 1
        _set(self, "revision", r)
        if what is not None:
            self._revs[what] = r

    def rev_of(self, what: Any) -> int:
        """The revision of the last change of resource ``what`` (0: never changed)."""
        return self._revs.get(what, 0)

    def max_rev(self, resources: Iterable[Any]) -> int:
        """The latest revision at which any of ``resources`` changed."""
        get = self._revs.get
        return max((get(r, 0) for r in resources), default=0)

    def sync(self) -> int:
        """Notice changes made deep inside the state's records since the last call (values
        inside variables, markers, tracks, the turn record, secrets and frame parameters are
        stored as given, so writes into them are not reported one by one): each part whose
        content changed is recorded as changed. Returns the number of parts that changed."""
        prints = self._prints
        seen: set[Any] = set()
        changed: list[Any] = []
        enc = serial.fast_canonical

        def note(what: Any, value: Any) -> bool:
            seen.add(what)
            b = enc(value)
            old = prints.get(what)
            if old == b:
                return False
            prints[what] = b
            if old is not None:
                changed.append(what)
                return True
            return False

        for k, v in dict.items(self.vars):
            if isinstance(v, dict):
                hit = [note(("var", k, sub), x) for sub, x in v.items()]
                if note(("var", k), sorted(map(str, v))) or any(hit):
                    changed.append(("var", k))
            else:
                note(("var", k), v)
        for kind, v in dict.items(self.markers):
            note(("marker", kind), v)
        note(("tracks",), dict(self.tracks))
        note(("turn",), dict(self.turn))
        note(("secrets",), dict(self.secrets))
        note(("frames",), [[f.step, dict(f.params), f.entered, f.done] for f in self.frames])
        for what in [w for w in prints if w not in seen]:
            del prints[what]
            changed.append(what)
        for what in dict.fromkeys(changed):
            self.changed(what)
        return len(changed)

    def _piece_changed(self, p: Piece) -> None:
        _set(p, "_enc", None)
        p.__dict__.pop("_view", None)  # the piece's record in views (Ruleset.view) is stale
        r = self.revision + 1
        _set(self, "revision", r)
        revs = self._revs
        revs[("piece", p.id)] = r
        revs[("side", p.side)] = r
        revs[("pieces",)] = r
        if p.loc.kind == "hex":
            revs[("hex", p.loc.ref)] = r
        elif p.loc.kind == "piece":
            try:
                outer = self.where(p.id)
            except (KeyError, ValueError):
                return
            if outer.kind == "hex":
                revs[("hex", outer.ref)] = r

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _TRACKED_ATTRS:
            value = TrackedDict(value, owner=self._wowner, what=_TRACKED_ATTRS[name])
            _set(self, name, value)
            self.changed(_TRACKED_ATTRS[name])
            return
        if name == "control":
            _set(self, name, _Control(value, owner=self._wowner))
            self.changed(("control",))
            return
        if name == "markers":
            _set(self, name, _Markers(value, owner=self._wowner))
            for k in value:
                self.changed(("marker", k))
            return
        if name == "vars":
            _set(self, name, _KeyedVars(value, owner=self._wowner))
            for k in value:
                self.changed(("var", k))
            return
        if name == "frames":
            frames = _Frames(owner=self._wowner, what=("frames",))
            for f in value:
                frames.append(f)
            _set(self, name, frames)
            self.changed(("frames",))
            return
        if name in _PLAIN_ATTRS:
            _set(self, name, value)
            return
        raise AttributeError(f"the game state has no attribute {name!r}")

    @property
    def dice_counter(self) -> int:
        return self._dice

    @dice_counter.setter
    def dice_counter(self, n: int) -> None:
        _set(self, "_dice", int(n))
        self.changed(("dice",))

    @property
    def result(self) -> dict[str, Any] | None:
        return self._result

    @result.setter
    def result(self, value: dict[str, Any] | None) -> None:
        _set(self, "_result", None if value is None else dict(value))
        self.changed(("result",))

    # ------------------------------------------------------------------ pieces
    def add_piece(self, piece: Piece) -> Piece:
        if piece.id in self.pieces:
            raise ValueError(f"duplicate piece id {piece.id!r}")
        if piece._state is not None and piece.state_of() is not self:
            piece = piece.copy()
        _set(self, "_order", self._order + 1)
        _set(piece, "order", self._order)
        _set(piece, "_state", self._wref)
        piece._adopt_parts(self._wparts, piece.id)
        self.pieces[piece.id] = piece
        self._index_add(piece)
        self._piece_changed(piece)
        self.changed(("locations",))
        return piece

    def remove_piece(self, piece_id: str) -> Piece:
        p = self.pieces[piece_id]
        self._piece_changed(p)
        self._index_remove(p)
        del self.pieces[piece_id]
        _set(p, "_state", None)
        p._adopt_parts(DETACHED, None)
        self.changed(("locations",))
        return p

    def move(self, piece_id: str, loc: Loc, on_top: bool = True) -> None:
        """Put a piece somewhere; it goes on top of the stack there (or at the bottom)."""
        self._relocate(self.pieces[piece_id], Loc(*loc), on_top)

    def _relocate(self, p: Piece, loc: Loc, on_top: bool) -> None:
        self._piece_changed(p)  # the hex it leaves
        self._index_remove(p)
        _set(self, "_order", self._order + 1)
        _set(p, "loc", loc)
        _set(p, "order", self._order if on_top else -self._order)
        self._index_add(p)
        self._piece_changed(p)  # the hex it enters
        self.changed(("locations",))

    # the location index: loc -> [(order, id)] sorted, bottom of the stack first
    def _index_add(self, p: Piece) -> None:
        bisect.insort(self._at.setdefault(p.loc, []), (p.order, p.id))

    def _index_remove(self, p: Piece) -> None:
        lst = self._at.get(p.loc)
        if lst is not None:
            try:
                lst.remove((p.order, p.id))
            except ValueError:
                return
            if not lst:
                del self._at[p.loc]

    def _reindex(self) -> None:
        idx: dict[Loc, list[tuple[int, str]]] = {}
        for p in self.pieces.values():
            idx.setdefault(p.loc, []).append((p.order, p.id))
        for lst in idx.values():
            lst.sort()
        _set(self, "_at", idx)

    def piece(self, piece_id: str) -> Piece:
        return self.pieces[piece_id]

    def at(self, loc: Loc) -> list[Piece]:
        """Pieces at ``loc``, bottom of the stack first."""
        pieces = self.pieces
        return [pieces[i] for _, i in self._at.get(loc, ())]

    def at_hex(self, i: int) -> list[Piece]:
        return self.at(Loc("hex", int(i)))

    def contents(self, piece_id: str) -> list[Piece]:
        return self.at(Loc("piece", piece_id))

    def locations(self) -> Iterator[Loc]:
        """Every location holding at least one piece."""
        return iter(list(self._at))

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
            m = self.markers.get(kind)
            if m is not None:
                m.pop(str(key), None)
        else:
            self.markers.setdefault(kind, {})[str(key)] = value
        self.changed(("marker", kind))

    def clear_markers(self, kind: str, keys: Iterable[str | int] | None = None) -> None:
        if keys is None:
            self.markers.pop(kind, None)
            return
        m = self.markers.get(kind, {})
        for k in keys:
            m.pop(str(k), None)
        self.changed(("marker", kind))

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
            # events hold JSON values already (Game.emit converts them): copied, not walked
            d["log"] = [dict(ev) for ev in self.log]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GameState:
        s = cls()
        s.sides = list(d["sides"])
        s.alignment = dict(d.get("alignment", {}))
        for pd in d["pieces"]:
            p = Piece.from_json(pd)
            _set(p, "_state", s._wref)
            p._adopt_parts(s._wparts, p.id)
            s.pieces[p.id] = p
        s._reindex()
        s.control = {int(k): v for k, v in d.get("control", {}).items()}
        s.markers = serial.from_jsonable(d.get("markers", {}))
        s.tracks = serial.from_jsonable(d.get("tracks", {}))
        s.turn = serial.from_jsonable(d.get("turn", {}))
        s.frames = [Frame.from_json(f) for f in d.get("frames", [])]
        s.dice_counter = int(d.get("dice_counter", 0))
        s.secrets = serial.from_jsonable(d.get("secrets", {}))
        s.vars = serial.from_jsonable(d.get("vars", {}))
        s.result = serial.from_jsonable(d.get("result"))
        s.log = list(d.get("log", []))  # events hold JSON values already (see Game.emit)
        s._order = int(d.get("order", 0))
        return s

    def digest(self) -> str:
        return serial.digest(self.to_json(with_log=False))

    def clone(self) -> GameState:
        """An independent copy (shares only the pieces' printed faces and the logged events)."""
        s: GameState = object.__new__(GameState)
        _bind(s)
        w = s._wowner
        _set(s, "revision", self.revision)
        _set(s, "_revs", dict(self._revs))
        _set(s, "sides", list(self.sides))
        pieces = {k: _copy_piece(p, s) for k, p in self.pieces.items()}
        _set(s, "pieces", pieces)
        _set(s, "_at", {loc: list(v) for loc, v in self._at.items()})
        _set(s, "control", _Control(owner=w))
        dict.update(s.control, self.control)
        _set(s, "markers", _Markers(copy_plain(dict(self.markers)), owner=w))
        _set(s, "vars", _KeyedVars(copy_plain(dict(self.vars)), owner=w))
        for name, what in _TRACKED_ATTRS.items():
            _set(s, name, TrackedDict(copy_plain(dict(getattr(self, name))), owner=w, what=what))
        frames = _Frames(owner=w, what=("frames",))
        for f in self.frames:
            nf: Frame = object.__new__(Frame)
            _set(nf, "_state", s._wref)
            _set(nf, "step", f.step)
            _set(nf, "params", TrackedDict(copy_plain(dict(f.params)), owner=w, what=("frames",)))
            _set(nf, "entered", f.entered)
            _set(nf, "done", f.done)
            list.append(frames, nf)
        _set(s, "frames", frames)
        _set(s, "_prints", dict(self._prints))
        _set(s, "in_action", False)
        _set(s, "epoch", next(_EPOCHS))
        _set(s, "_dice", self._dice)
        _set(s, "_result", copy_plain(self._result))
        _set(s, "log", list(self.log))
        _set(s, "_order", self._order)
        return s
