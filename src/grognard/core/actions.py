"""Declared actions: every kind of action a rule system accepts, with its fields, rules and label.

A rule system declares its action types in one place, an :class:`ActionCatalog` of
:class:`ActionType` entries::

    MOVE = ActionType(
        "move",
        fields=(Field.piece("piece"), Field.hex("to")),
        rules=("OT 6",),
        label="Move {piece} to {to}",
    )

The core checks every incoming action against its declaration before any rule code sees it
(:meth:`ActionCatalog.validate`): an unknown type or field, a missing field, a value of the wrong
type, an over-long string, a string that is not valid Unicode, a list too long: each is an
:class:`~grognard.core.errors.IllegalAction` naming the field, and the game is unchanged. Fields
that name pieces are also checked against what the acting side may see: a piece it may not see
is refused with exactly the words used for a piece that does not exist.

Labels are templates over the fields; :meth:`ActionCatalog.label` fills them with the names a
rule system gives to pieces, hexes and other values (``Ruleset.name_of``).
"""

from __future__ import annotations

import builtins
import re
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from grognard.core.errors import IllegalAction

RULE = "core:action"
MAX_STRING = 200
MAX_ITEMS = 400
_SURROGATE = re.compile("[\ud800-\udfff]")
# who chose an action, when the computer did: an optional mark any action may carry ("agent":
# "planner:normal"); recorded with the action and on the events it produced, never seen by rules
AGENT = "agent"
_AGENT = re.compile(r"[a-z][a-z0-9:_.-]{0,39}")


def agent_mark(action: Mapping[str, Any]) -> str | None:
    """The action's ``agent`` mark (a short lower-case spec such as ``planner:normal``), None
    without one; :class:`IllegalAction` when it is not such a string."""
    mark = action.get(AGENT)
    if mark is None:
        return None
    if not isinstance(mark, str) or not _AGENT.fullmatch(mark):
        raise IllegalAction(
            RULE, "the 'agent' mark must be a short lower-case agent spec (planner:normal ...)"
        )
    return mark


def without_mark(action: Mapping[str, Any]) -> dict[str, Any]:
    """The action without its ``agent`` mark (what the rules see)."""
    return {k: v for k, v in action.items() if k != AGENT}


# value kinds of a field
STR = "str"  # a short string (an id or a choice)
INT = "int"
BOOL = "bool"
NUMBER = "number"  # int or a fraction written "a/b"
HEX = "hex"  # a printed hex id
PIECE = "piece"  # the id of a piece (checked against what the side may see)
PIECES = "pieces"  # a list of piece ids
STRS = "strs"  # a list of short strings
HEXES = "hexes"  # a list of printed hex ids
INTS = "ints"
JSON = "json"  # any JSON value (bounded in size)
KINDS = (STR, INT, BOOL, NUMBER, HEX, PIECE, PIECES, STRS, HEXES, INTS, JSON)
LIST_KINDS = {PIECES: PIECE, STRS: STR, HEXES: HEX, INTS: INT}


@dataclass(frozen=True)
class Field:
    """One field of an action: its name, kind, whether it may be left out, allowed values."""

    name: str
    kind: str = STR
    required: bool = True
    choices: tuple[Any, ...] | None = None
    max_len: int = MAX_STRING
    max_items: int = MAX_ITEMS
    doc: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"field {self.name!r}: unknown kind {self.kind!r}")

    # shorthands
    @staticmethod
    def str(
        name: builtins.str, required: builtins.bool = True, choices: Iterable[Any] | None = None
    ) -> Field:
        return Field(name, STR, required, tuple(choices) if choices is not None else None)

    @staticmethod
    def int(name: builtins.str, required: builtins.bool = True) -> Field:
        return Field(name, INT, required)

    @staticmethod
    def bool(name: builtins.str, required: builtins.bool = True) -> Field:
        return Field(name, BOOL, required)

    @staticmethod
    def number(name: builtins.str, required: builtins.bool = True) -> Field:
        return Field(name, NUMBER, required)

    @staticmethod
    def hex(name: builtins.str, required: builtins.bool = True) -> Field:
        return Field(name, HEX, required)

    @staticmethod
    def hexes(name: builtins.str, required: builtins.bool = True) -> Field:
        return Field(name, HEXES, required)

    @staticmethod
    def piece(name: builtins.str, required: builtins.bool = True) -> Field:
        return Field(name, PIECE, required)

    @staticmethod
    def pieces(name: builtins.str, required: builtins.bool = True) -> Field:
        return Field(name, PIECES, required)

    @staticmethod
    def strs(
        name: builtins.str, required: builtins.bool = True, choices: Iterable[Any] | None = None
    ) -> Field:
        return Field(name, STRS, required, tuple(choices) if choices is not None else None)

    @staticmethod
    def ints(name: builtins.str, required: builtins.bool = True) -> Field:
        return Field(name, INTS, required)

    @staticmethod
    def json(name: builtins.str, required: builtins.bool = True) -> Field:
        return Field(name, JSON, required)


@dataclass(frozen=True)
class ActionType:
    """The declaration of one action type."""

    name: str
    fields: tuple[Field, ...] = ()
    rules: tuple[str, ...] = ()
    label: str = ""
    doc: str = ""
    actor: str | None = None  # the field naming who acts (families group options by it)
    _by_name: dict[str, Field] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        names = [f.name for f in self.fields]
        if "type" in names or "side" in names:
            raise ValueError(f"action {self.name!r}: 'type' and 'side' are implicit fields")
        if len(set(names)) != len(names):
            raise ValueError(f"action {self.name!r}: a field is declared twice")
        self._by_name.update({f.name: f for f in self.fields})
        actor = self.actor
        if actor is None:
            actor = next((f.name for f in self.fields if f.kind in (PIECE, PIECES)), None)
            object.__setattr__(self, "actor", actor)
        elif actor not in self._by_name:
            raise ValueError(f"action {self.name!r}: actor field {actor!r} is not declared")
        for key in _template_fields(self.label):
            if key not in self._by_name and key != "side":
                raise ValueError(f"action {self.name!r}: label names undeclared field {key!r}")

    def field_named(self, name: str) -> Field | None:
        return self._by_name.get(name)


def _template_fields(template: str) -> list[str]:
    out = []
    for _, name, _, _ in string.Formatter().parse(template):
        if name:
            out.append(name.split(".")[0].split("[")[0])
    return out


def _bad(field: str, atype: str, why: str) -> IllegalAction:
    return IllegalAction(RULE, f"field {field!r} of a {atype!r} action: {why}")


def _check_string(value: Any, fname: str, atype: str, max_len: int) -> str:
    if not isinstance(value, str):
        raise _bad(fname, atype, f"a string is needed, not {type(value).__name__}")
    if len(value) > max_len:
        raise _bad(fname, atype, f"longer than {max_len} characters")
    if _SURROGATE.search(value):
        raise _bad(fname, atype, "not valid Unicode (a lone surrogate)")
    return value


def _check_json(
    value: Any, fname: str, atype: str, depth: int = 0, budget: list[int] | None = None
) -> Any:
    budget = budget if budget is not None else [2000]
    budget[0] -= 1
    if budget[0] < 0 or depth > 20:
        raise _bad(fname, atype, "too large or too deeply nested")
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return _check_string(value, fname, atype, MAX_STRING * 10)
    if isinstance(value, list):
        return [_check_json(v, fname, atype, depth + 1, budget) for v in value]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            _check_string(k, fname, atype, MAX_STRING)
            out[k] = _check_json(v, fname, atype, depth + 1, budget)
        return out
    raise _bad(fname, atype, f"not a JSON value ({type(value).__name__})")


def _check_scalar(kind: str, value: Any, f: Field, atype: str) -> Any:
    if kind in (STR, HEX, PIECE):
        return _check_string(value, f.name, atype, f.max_len)
    if kind == INT:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _bad(f.name, atype, f"an integer is needed, not {type(value).__name__}")
        if abs(value) > 10**9:
            raise _bad(f.name, atype, "out of range")
        return value
    if kind == BOOL:
        if not isinstance(value, bool):
            raise _bad(f.name, atype, f"true or false is needed, not {type(value).__name__}")
        return value
    if kind == NUMBER:
        if isinstance(value, bool):
            raise _bad(f.name, atype, "a number is needed, not a boolean")
        if isinstance(value, int):
            return value
        if isinstance(value, str) and re.fullmatch(r"-?\d{1,9}(/\d{1,9})?", value):
            return value
        raise _bad(f.name, atype, 'a number (an integer or a fraction such as "3/2") is needed')
    raise AssertionError(kind)


class ActionCatalog:
    """Every action type of a rule system (see the module docstring)."""

    def __init__(self, types: Iterable[ActionType]) -> None:
        self.types: dict[str, ActionType] = {}
        for t in types:
            if t.name in self.types:
                raise ValueError(f"action type {t.name!r} declared twice")
            self.types[t.name] = t

    def __contains__(self, name: object) -> bool:
        return name in self.types

    def __getitem__(self, name: str) -> ActionType:
        return self.types[name]

    def __iter__(self) -> Any:
        return iter(self.types.values())

    def merged(self, *others: ActionCatalog) -> ActionCatalog:
        """This catalogue and ``others`` together (a type declared twice is an error)."""
        return ActionCatalog([*self.types.values(), *(t for o in others for t in o)])

    def validate(
        self,
        action: Any,
        piece_visible: Callable[[str], bool] | None = None,
    ) -> dict[str, Any]:
        """The action as the engine stores it, or :class:`IllegalAction` naming what is wrong.

        ``piece_visible(id)`` says whether the acting side may name that piece (it exists and
        the side may see it); a piece it may not see is refused exactly like a missing one."""
        if not isinstance(action, Mapping):
            raise IllegalAction(RULE, "an action must be a JSON object")
        atype = action.get("type")
        if not isinstance(atype, str) or not atype:
            raise IllegalAction(RULE, "an action needs a 'type' string")
        _check_string(atype, "type", "?", MAX_STRING)
        side = action.get("side")
        if not isinstance(side, str):
            raise IllegalAction(RULE, "an action needs a 'side' string")
        _check_string(side, "side", atype, MAX_STRING)
        decl = self.types.get(atype)
        if decl is None:
            raise IllegalAction(RULE, f"unknown action type {atype!r}")
        out: dict[str, Any] = {"type": atype, "side": side}
        for key in action:
            if key in ("type", "side"):
                continue
            if not isinstance(key, str):
                raise IllegalAction(RULE, f"a {atype!r} action has a field that is not a string")
            if decl.field_named(key) is None:
                shown = key if len(key) <= 60 and not _SURROGATE.search(key) else key[:60]
                raise IllegalAction(
                    RULE,
                    f"unknown field {shown.encode('utf-8', 'replace').decode()!r} in a {atype!r}"
                    f" action (fields: {', '.join(f.name for f in decl.fields) or 'none'})",
                )
        for f in decl.fields:
            if f.name not in action or action[f.name] is None:
                if f.required:
                    raise _bad(f.name, atype, "missing")
                continue
            value = action[f.name]
            if f.kind == JSON:
                out[f.name] = _check_json(value, f.name, atype)
                continue
            item_kind = LIST_KINDS.get(f.kind)
            if item_kind is not None:
                if not isinstance(value, list | tuple):
                    raise _bad(f.name, atype, f"a list is needed, not {type(value).__name__}")
                if len(value) > f.max_items:
                    raise _bad(f.name, atype, f"more than {f.max_items} items")
                items = [_check_scalar(item_kind, v, f, atype) for v in value]
                if f.choices is not None:
                    for v in items:
                        if v not in f.choices:
                            raise _bad(f.name, atype, f"{v!r} is not one of {list(f.choices)}")
                if item_kind == PIECE and piece_visible is not None:
                    for v in items:
                        if not piece_visible(v):
                            raise no_such_piece(v)
                out[f.name] = items
                continue
            v = _check_scalar(f.kind, value, f, atype)
            if f.choices is not None and v not in f.choices:
                raise _bad(f.name, atype, f"{v!r} is not one of {list(f.choices)}")
            if f.kind == PIECE and piece_visible is not None and not piece_visible(v):
                raise no_such_piece(v)
            out[f.name] = v
        return out

    def label(self, action: Mapping[str, Any], name_of: Callable[[str, Any], str]) -> str:
        """The declared label of ``action`` with its fields named by ``name_of(kind, value)``."""
        decl = self.types.get(str(action.get("type")))
        if decl is None or not decl.label:
            return str(action.get("type"))
        values: dict[str, str] = {"side": str(action.get("side", ""))}
        for f in decl.fields:
            v = action.get(f.name)
            if v is None:
                values[f.name] = ""
                continue
            item_kind = LIST_KINDS.get(f.kind)
            if item_kind is not None and isinstance(v, Sequence) and not isinstance(v, str):
                values[f.name] = join_names([name_of(item_kind, x) for x in v])
            else:
                values[f.name] = name_of(f.kind, v)
        try:
            text = decl.label.format_map(_Blank(values))
        except (ValueError, IndexError):
            return decl.label
        return " ".join(text.split())


class _Blank(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return ""


def join_names(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    names = list(names)
    if not names:
        return "nothing"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def no_such_piece(value: str) -> IllegalAction:
    """The refusal for a piece that does not exist or that the acting side may not see (one
    wording for both, so that a refusal never tells whether a hidden piece exists)."""
    shown = value if len(value) <= 60 else value[:60] + "..."
    return IllegalAction(RULE, f"there is no piece {shown!r} that you can name")
