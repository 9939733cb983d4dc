"""Containers that tell the game state when they change.

The game state keeps a *revision*: a number that grows with every change to the position it
sees. The top-level containers of the state (the control map, markers by kind, variables,
tracks, the turn record, secrets, each frame's parameters) and every piece's status and
attributes are the classes below: each knows the :class:`Owner` it belongs to and reports every
write to it.

Values stored *inside* them (a rule system's records: dicts and lists of JSON values) are kept
exactly as stored, never copied, so a reference a caller holds stays the state's own object.
Changes made deep inside such values are seen when the game compares fingerprints of the state's
parts (:meth:`grognard.core.state.GameState.sync`), which it does whenever a front end, an agent
or a test asks it something (legal actions, a check, an action, a view).

Reads cost what they cost on the built-in types (the classes subclass ``dict``, ``list`` and
``set`` and override only the writing methods).
"""

from __future__ import annotations

import marshal
import weakref
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any, Protocol, TypeVar, cast

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


class Owner(Protocol):
    """What a tracked container reports to (the game state, or a detached placeholder)."""

    def changed(self, what: Any) -> None: ...


class _Detached:
    """The owner of containers not (yet) in a game state: changes are not reported."""

    __slots__ = ()

    def changed(self, what: Any) -> None:
        return None


DETACHED: Owner = _Detached()


class WeakOwner:
    """An owner held by a weak reference: a game state's containers report to the state through
    one, so that the state and its containers form no reference cycle and a dropped state (a
    search's clone) is freed at once by reference counting, not later by the cyclic collector.
    Changes reported after the target is gone are ignored."""

    __slots__ = ("_ref",)

    def __init__(self, ref: weakref.ReferenceType[Any]) -> None:
        self._ref = ref

    def target(self) -> Any:
        """The owner itself, or None once it is gone."""
        return self._ref()

    def changed(self, what: Any) -> None:
        t = self._ref()
        if t is not None:
            t.changed(what)


_IMMUTABLE = (str, int, float, bool, type(None), Fraction, bytes)


def copy_plain(value: Any) -> Any:
    """A deep copy of state data as plain containers (immutable values are shared).

    Plain JSON-like data (the common case) is copied by a ``marshal`` round trip, in C; data
    marshal cannot carry (fractions, tracked containers, which it would turn into plain ones
    only by luck of their base type) takes the walk below."""
    t = type(value)
    if t is dict or t is list:
        try:
            return marshal.loads(marshal.dumps(value))
        except ValueError:
            pass
    return _copy_walk(value)


def _copy_walk(value: Any) -> Any:
    t = type(value)
    if t in _IMMUTABLE:
        return value
    if isinstance(value, dict):
        return {k: copy_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_plain(v) for v in value]
    if isinstance(value, set):
        return {_copy_walk(v) for v in value}
    if t is tuple:
        return tuple(_copy_walk(v) for v in value)
    return value


def untrack(value: Any) -> Any:
    """A plain deep copy of a (possibly tracked) value: dicts, lists and sets become built-ins."""
    return copy_plain(value)


class TrackedDict(dict[K, V]):
    """A ``dict`` reporting every write to its owner."""

    __slots__ = ("_owner", "_what")

    def __init__(
        self,
        data: Mapping[K, V] | Iterable[tuple[K, V]] = (),
        *,
        owner: Owner = DETACHED,
        what: Any = None,
    ) -> None:
        self._owner = owner
        self._what = what
        dict.__init__(self, data)

    def _adopt(self, owner: Owner, what: Any) -> None:
        self._owner = owner
        self._what = what

    def __setitem__(self, key: K, value: V) -> None:
        dict.__setitem__(self, key, value)
        self._owner.changed(self._what)

    def __delitem__(self, key: K) -> None:
        dict.__delitem__(self, key)
        self._owner.changed(self._what)

    def pop(self, key: K, *default: Any) -> Any:
        had = key in self
        out = dict.pop(self, key, *default)
        if had:
            self._owner.changed(self._what)
        return out

    def popitem(self) -> tuple[K, V]:
        out = dict.popitem(self)
        self._owner.changed(self._what)
        return out

    def setdefault(self, key: K, default: Any = None) -> Any:
        if key in self:
            return dict.__getitem__(self, key)
        self[key] = default
        return dict.__getitem__(self, key)

    def update(self, *args: Any, **kw: Any) -> None:
        dict.update(self, *args, **kw)
        self._owner.changed(self._what)

    def clear(self) -> None:
        if self:
            dict.clear(self)
            self._owner.changed(self._what)

    def __ior__(self, other: Any) -> TrackedDict[K, V]:  # type: ignore[override,misc]
        self.update(other)
        return self

    def copy(self) -> dict[K, V]:
        """A plain shallow copy (not part of the state)."""
        return dict(self)

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[K, V]:
        return cast(dict[K, V], copy_plain(dict(self)))


class TrackedList(list[T]):
    """A ``list`` reporting every write to its owner."""

    __slots__ = ("_owner", "_what")

    def __init__(self, data: Iterable[T] = (), *, owner: Owner = DETACHED, what: Any = None):
        self._owner = owner
        self._what = what
        list.__init__(self, data)

    def _adopt(self, owner: Owner, what: Any) -> None:
        self._owner = owner
        self._what = what

    def _changed(self) -> None:
        self._owner.changed(self._what)

    def __setitem__(self, i: Any, value: Any) -> None:
        list.__setitem__(self, i, value)
        self._changed()

    def __delitem__(self, i: Any) -> None:
        list.__delitem__(self, i)
        self._changed()

    def append(self, value: T) -> None:
        list.append(self, value)
        self._changed()

    def extend(self, values: Iterable[T]) -> None:
        list.extend(self, values)
        self._changed()

    def insert(self, i: Any, value: T) -> None:
        list.insert(self, i, value)
        self._changed()

    def pop(self, i: Any = -1) -> T:
        out = list.pop(self, i)
        self._changed()
        return out

    def remove(self, value: T) -> None:
        list.remove(self, value)
        self._changed()

    def clear(self) -> None:
        if self:
            list.clear(self)
            self._changed()

    def sort(self, *args: Any, **kw: Any) -> None:
        list.sort(self, *args, **kw)
        self._changed()

    def reverse(self) -> None:
        list.reverse(self)
        self._changed()

    def __iadd__(self, values: Iterable[T]) -> TrackedList[T]:  # type: ignore[override,misc]
        self.extend(values)
        return self

    def __imul__(self, n: Any) -> TrackedList[T]:  # type: ignore[misc]
        list.__imul__(self, n)
        self._changed()
        return self

    def copy(self) -> list[T]:
        """A plain shallow copy (not part of the state)."""
        return list(self)

    def __reduce__(self) -> Any:
        return (list, (list(self),))

    def __deepcopy__(self, memo: dict[int, Any]) -> list[T]:
        return cast(list[T], copy_plain(list(self)))


class TrackedSet(set[T]):
    """A ``set`` reporting every write to its owner."""

    __slots__ = ("_owner", "_what")

    def __init__(self, data: Iterable[T] = (), *, owner: Owner = DETACHED, what: Any = None):
        self._owner = owner
        self._what = what
        set.__init__(self, data)

    def _adopt(self, owner: Owner, what: Any) -> None:
        self._owner = owner
        self._what = what

    def _changed(self) -> None:
        self._owner.changed(self._what)

    def add(self, value: T) -> None:
        if value not in self:
            set.add(self, value)
            self._changed()

    def discard(self, value: Any) -> None:
        if value in self:
            set.discard(self, value)
            self._changed()

    def remove(self, value: T) -> None:
        set.remove(self, value)
        self._changed()

    def pop(self) -> T:
        out = set.pop(self)
        self._changed()
        return out

    def clear(self) -> None:
        if self:
            set.clear(self)
            self._changed()

    def update(self, *others: Iterable[T]) -> None:
        set.update(self, *others)
        self._changed()

    def difference_update(self, *others: Iterable[Any]) -> None:
        set.difference_update(self, *others)
        self._changed()

    def intersection_update(self, *others: Iterable[Any]) -> None:
        set.intersection_update(self, *others)
        self._changed()

    def symmetric_difference_update(self, other: Iterable[T]) -> None:
        set.symmetric_difference_update(self, other)
        self._changed()

    def __ior__(self, other: Any) -> TrackedSet[T]:  # type: ignore[override,misc]
        self.update(other)
        return self

    def __iand__(self, other: Any) -> TrackedSet[T]:  # type: ignore[misc]
        self.intersection_update(other)
        return self

    def __isub__(self, other: Any) -> TrackedSet[T]:  # type: ignore[misc]
        self.difference_update(other)
        return self

    def __ixor__(self, other: Any) -> TrackedSet[T]:  # type: ignore[override,misc]
        self.symmetric_difference_update(other)
        return self

    def copy(self) -> set[T]:
        """A plain shallow copy (not part of the state)."""
        return set(self)

    def __reduce__(self) -> Any:
        return (set, (set(self),))

    def __deepcopy__(self, memo: dict[int, Any]) -> set[T]:
        return cast(set[T], copy_plain(set(self)))
