"""Typed records: a rule system's part of the state, with its layout written down in code.

The state serialises to canonical JSON, so a rule system keeps its data as JSON objects (in
``state.vars``, markers, frame parameters). A :class:`Record` subclass gives such an object a
typed, documented shape: each annotated field is an attribute read from and written to the
underlying object, with its default when absent::

    class Movement(Record):
        \"\"\"A unit's movement record in a phase (OT 6).\"\"\"

        spent: Fraction = Fraction(0)     # MP spent so far
        moved: bool = False
        start: int | None = None          # the hex it started from
        path: list[int] = LIST            # a fresh list on first use

    rec = Movement.at(f.params, "units", p.id)   # created with its defaults if missing
    rec.spent += cost

A record is a *view*: it holds no data of its own, so saving, hashing, cloning and undoing need
nothing special. Create records with all their fields (:meth:`Record.new`, :meth:`Record.at`,
:meth:`Record.init`) where the rules create them, so that reading one never writes to the state
(a list or dict field missing from an older object is added when it is first read). Writing an
attribute that is not a declared field is an error; so is reading one. Field types are what the
JSON holds (``int``, ``str``, ``bool``, ``Fraction``, lists and dicts of them, other records).
A field whose type is a Record subclass (or ``list[...]``/``dict[str, ...]`` of one) is returned as
a view of the nested object.

A field the rules write only at some point of a record's life is declared with :func:`later`:
:meth:`Record.new` and :meth:`Record.init` leave it out, and reading it while it is absent gives
its default without storing anything, so reading never changes the state. A list or dict field
of that kind (:data:`LATER_LIST`, :data:`LATER_DICT`) reads as an empty read-only value while
absent; :meth:`Record.ensure` stores a fresh one and returns it, to be filled in place::

    losers: list[str] = LATER_LIST    # absent until a sub-battle is lost
    if side in rec.losers: ...        # reads, stores nothing
    rec.ensure("losers").append(side)
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterator, MutableMapping
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

R = TypeVar("R", bound="Record")
_MISSING = object()


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def _nested(tp: Any) -> tuple[str, type[Record]] | None:
    """Is a field's type a record, a list of records or a dict of records?"""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if isinstance(tp, type) and issubclass(tp, Record):
        return ("one", tp)
    first = args[0] if args else None
    last = args[-1] if args else None
    if origin is list and isinstance(first, type) and issubclass(first, Record):
        return ("list", first)
    if origin is dict and len(args) == 2 and isinstance(last, type) and issubclass(last, Record):
        return ("dict", last)
    if origin is typing.Union or str(origin) == "types.UnionType":
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            return _nested(inner[0])
    return None


def factory(make: Callable[[], Any]) -> Any:
    """Default of a field made by ``make()`` and stored on first read."""
    return _Factory(make)


class _Later:
    """The default of a :func:`later` field: read while absent, never stored by the record."""

    __slots__ = ("make", "value")

    def __init__(self, value: Any, make: Callable[[], Any] | None) -> None:
        self.value = value
        self.make = make


def later(value: Any = None) -> Any:
    """Default of a field absent until the rules write it (see the module docstring): reading it
    while absent gives ``value`` (an immutable value: it is shared), and nothing is stored."""
    return _Later(value, None)


LIST: Any = _Factory(list)  # default of a list field: a new empty list, stored on first read
DICT: Any = _Factory(dict)  # default of a dict field: a new empty dict, stored on first read
# list and dict fields absent until written: read as () and an empty read-only mapping while
# absent, created by Record.ensure
LATER_LIST: Any = _Later((), list)
LATER_DICT: Any = _Later(MappingProxyType({}), dict)


def _field_property(name: str, default: Any, kind: tuple[str, type[Record]] | None) -> property:
    def get(self: Record) -> Any:
        d = self._data
        v = d.get(name, _MISSING)
        if v is _MISSING:
            if isinstance(default, _Factory):
                d[name] = default.make()
                v = d[name]
            elif isinstance(default, _Later):
                v = default.value
            elif default is _MISSING:
                raise AttributeError(f"{type(self).__name__}.{name} is not set")
            else:
                return default
        if kind is None or v is None:
            return v
        how, cls = kind
        if how == "one":
            return cls(v)
        if how == "list":
            return [cls(x) for x in v]
        return {k: cls(x) for k, x in v.items()}

    def set_(self: Record, value: Any) -> None:
        if isinstance(value, Record):
            value = value._data
        self._data[name] = value

    def del_(self: Record) -> None:
        self._data.pop(name, None)

    return property(get, set_, del_)


class Record:
    """A typed view of a JSON object of the state (see the module docstring)."""

    __slots__ = ("_data",)
    _fields: ClassVar[dict[str, Any]] = {}
    _data: MutableMapping[str, Any]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        fields = dict(cls._fields)
        hints = typing.get_type_hints(cls, include_extras=False)
        own = inspect.get_annotations(cls)
        for name in own:
            if name.startswith("_") or typing.get_origin(hints.get(name)) is ClassVar:
                continue
            default = cls.__dict__.get(name, _MISSING)
            fields[name] = default
            setattr(cls, name, _field_property(name, default, _nested(hints.get(name))))
        cls._fields = fields

    def __init__(self, data: MutableMapping[str, Any]) -> None:
        object.__setattr__(self, "_data", data)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._fields:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self._data)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return type(self) is type(other) and dict(self._data) == dict(other._data)

    __hash__ = None  # type: ignore[assignment]

    # ---- creating records
    @classmethod
    def new(cls: type[R], **values: Any) -> dict[str, Any]:
        """A fresh JSON object for this record: the given values, unknown names refused."""
        for k in values:
            if k not in cls._fields:
                raise TypeError(f"{cls.__name__} has no field {k!r}")
        out: dict[str, Any] = {}
        for k, default in cls._fields.items():
            if k in values:
                v = values[k]
                out[k] = v._data if isinstance(v, Record) else v
            elif isinstance(default, _Factory):
                out[k] = default.make()
            elif default is not _MISSING and not isinstance(default, _Later):
                out[k] = default
        return out

    @classmethod
    def init(cls: type[R], data: MutableMapping[str, Any]) -> R:
        """Give ``data`` every field it lacks, with its default, and return its view (for a
        record that lives in an existing object, such as a frame's parameters)."""
        for k, default in cls._fields.items():
            if k in data:
                continue
            if isinstance(default, _Factory):
                data[k] = default.make()
            elif default is not _MISSING and not isinstance(default, _Later):
                data[k] = default
        return cls(data)

    @classmethod
    def at(cls: type[R], parent: MutableMapping[str, Any], *path: Any) -> R:
        """The record stored under ``parent[path[0]][path[1]]...``, created (with its defaults)
        along the way when missing."""
        d = parent
        for k in path[:-1]:
            d = d.setdefault(k, {})
        key = path[-1]
        if key not in d:
            d[key] = cls.new()
        return cls(d[key])

    @classmethod
    def get(cls: type[R], parent: typing.Mapping[str, Any], *path: Any) -> R | None:
        """The record under ``path`` if it exists (nothing is created)."""
        d: Any = parent
        for k in path:
            if not isinstance(d, typing.Mapping) or k not in d:
                return None
            d = d[k]
        return cls(d)

    def ensure(self, name: str) -> Any:
        """The stored value of list or dict field ``name``, a fresh empty one stored first when
        it is absent (for fields declared :data:`LATER_LIST` or :data:`LATER_DICT`, or any field
        with a :data:`LIST`/:data:`DICT` default)."""
        default = self._fields.get(name, _MISSING)
        make = default.make if isinstance(default, _Later | _Factory) else None
        if make is None:
            raise TypeError(f"{type(self).__name__}.{name} is not a list or dict field")
        d = self._data
        v = d.get(name, _MISSING)
        if v is _MISSING:
            v = d[name] = make()
        return v

    def has(self, name: str) -> bool:
        """Is field ``name`` stored (a :func:`later` field once written)?"""
        if name not in self._fields:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        return name in self._data

    # ---- reading
    def raw(self) -> MutableMapping[str, Any]:
        """The JSON object this record is a view of."""
        return self._data

    def items(self) -> Iterator[tuple[str, Any]]:
        for k in self._fields:
            if k in self._data:
                yield k, getattr(self, k)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(cls._fields)
