"""Canonical JSON: stable encoding of game data, including exact fractions.

Fractions are encoded as ``{"$frac": "7/2"}`` so that saves keep exact values; sets
become sorted lists. :func:`canonical` gives the byte string hashed by
:func:`digest` (sorted keys, no whitespace), so equal states hash equally.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from fractions import Fraction
from typing import Any

import msgspec


class FrozenJSON(dict[str, Any]):
    """A dict already in JSON form and never changed once built (a piece's printed faces as
    JSON, shared by every copy of the piece): converters to JSON pass it through as it is
    instead of walking and copying it. Read it, never write into it."""


_PLAIN = frozenset({str, int, bool, float, type(None), FrozenJSON})


def to_jsonable(obj: Any) -> Any:
    """Convert engine data (fractions, sets, tuples, dataclass-like objects) to JSON types."""
    t = type(obj)
    # the plain types first, by exact type (most of the values walked)
    if t in _PLAIN:
        return obj
    if t is dict:
        return {
            k if type(k) is str else str(k): v if type(v) in _PLAIN else to_jsonable(v)
            for k, v in obj.items()
        }
    if t is list:
        return [v if type(v) in _PLAIN else to_jsonable(v) for v in obj]
    if obj is None or isinstance(obj, bool | str):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return obj
    if isinstance(obj, Fraction):
        if obj.denominator == 1:
            return {"$frac": str(obj.numerator)}
        return {"$frac": f"{obj.numerator}/{obj.denominator}"}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, set | frozenset):
        return sorted((to_jsonable(v) for v in obj), key=lambda v: json.dumps(v, sort_keys=True))
    to_json = getattr(obj, "to_json", None)
    if to_json is not None:
        return to_json()
    if hasattr(obj, "item"):  # numpy scalar
        return obj.item()
    raise TypeError(f"cannot encode {type(obj).__name__} as JSON")


def from_jsonable(obj: Any) -> Any:
    """Inverse of :func:`to_jsonable` for fractions (sets come back as lists)."""
    t = type(obj)
    if t is dict:
        if len(obj) == 1 and "$frac" in obj:
            return Fraction(obj["$frac"])
        return {k: from_jsonable(v) if type(v) in _NESTED else v for k, v in obj.items()}
    if t is list:
        return [from_jsonable(v) if type(v) in _NESTED else v for v in obj]
    return obj


_NESTED = (dict, list)


def from_json_data(obj: Any) -> Any:
    """:func:`from_jsonable` of data read from JSON (a save's parts): the same value, a new copy.

    JSON data without any encoded fraction is copied by a ``marshal`` round trip, in C; other
    data (or data marshal cannot carry) takes :func:`from_jsonable`."""
    try:
        b = marshal.dumps(obj)
    except ValueError:
        return from_jsonable(obj)
    if b"$frac" in b:
        return from_jsonable(obj)
    return marshal.loads(b)


def canonical(obj: Any) -> bytes:
    return json.dumps(
        to_jsonable(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode()


def digest(obj: Any) -> str:
    return hashlib.sha256(canonical(obj)).hexdigest()


def dumps(obj: Any, indent: int | None = 1) -> str:
    return json.dumps(to_jsonable(obj), sort_keys=True, indent=indent, ensure_ascii=False)


# the encodings of the fractions met, by (numerator, denominator): a state holds the same few
# fractions many times over (the movement points of every unit's record), and a fingerprint or
# hash of it encodes them all; the bytes are those of the dict below
_FRACTIONS: dict[tuple[int, int], msgspec.Raw] = {}


def _enc_hook(obj: Any) -> Any:
    if type(obj) is Fraction:
        nd = (obj.numerator, obj.denominator)
        raw = _FRACTIONS.get(nd)
        if raw is None:
            if len(_FRACTIONS) > 10_000:
                _FRACTIONS.clear()
            text = str(nd[0]) if nd[1] == 1 else f"{nd[0]}/{nd[1]}"
            raw = _FRACTIONS[nd] = msgspec.Raw(msgspec.json.encode({"$frac": text}))
        return raw
    if isinstance(obj, Fraction):
        if obj.denominator == 1:
            return {"$frac": str(obj.numerator)}
        return {"$frac": f"{obj.numerator}/{obj.denominator}"}
    to_json = getattr(obj, "to_json", None)
    if to_json is not None:
        return to_json()
    if hasattr(obj, "item"):  # numpy scalar
        return obj.item()
    raise NotImplementedError(f"cannot encode {type(obj).__name__}")


_FAST = msgspec.json.Encoder(enc_hook=_enc_hook, order="sorted")


def fast_canonical(obj: Any) -> bytes:
    """A deterministic encoding of engine data for hashing (sorted keys and sets), fast.

    Not the same bytes as :func:`canonical`; data it cannot sort (keys that are not strings,
    sets of mixed types) falls back to :func:`canonical`."""
    try:
        return _FAST.encode(obj)
    except (TypeError, NotImplementedError):
        return b"~" + canonical(obj)
