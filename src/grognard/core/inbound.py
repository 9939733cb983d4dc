"""Checks on data that comes from outside (request bodies, save files, command lines).

* Text that is not Unicode: JSON's ``\\ud800`` escape (and a command-line byte that is not UTF-8,
  which Python decodes to a lone surrogate) gives a Python string holding a lone UTF-16
  surrogate. It cannot be encoded as UTF-8, so it can be written to no save, database or answer.
* Nesting: JSON nested deeper than :data:`MAX_DEPTH` levels is refused before any code walks it
  (a game's data is a few levels deep; a 100,000-deep array would exhaust the interpreter's
  recursion limit in the parser or the engine).

Such data is refused where it enters, with a sentence naming where.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")

MAX_DEPTH = 64


class InboundError(ValueError):
    """Data from outside that cannot be used; the message says what is wrong and where."""


def parse_json(text: str | bytes, what: str = "the text") -> Any:
    """Parse JSON from outside: one sentence (an :class:`InboundError`) for bytes that are not
    UTF-8, text that is not JSON, or nesting deeper than :data:`MAX_DEPTH` levels."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InboundError(f"{what} is not UTF-8 text (byte {e.start})") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise InboundError(
            f"{what} is not JSON ({e.msg}, line {e.lineno} column {e.colno})"
        ) from None
    except RecursionError:
        raise InboundError(f"{what} is nested more than {MAX_DEPTH} levels deep") from None
    deep = depth_problem(obj, what)
    if deep is not None:
        raise InboundError(deep)
    return obj


def depth_problem(obj: Any, where: str = "the value") -> str | None:
    """The sentence refusing ``obj`` (parsed data) when it nests lists and dicts more than
    :data:`MAX_DEPTH` levels deep; None otherwise."""
    stack: list[tuple[Any, int]] = [(obj, 0)]
    while stack:
        o, d = stack.pop()
        if isinstance(o, dict | list | tuple):
            if d >= MAX_DEPTH:
                return f"{where} is nested more than {MAX_DEPTH} levels deep"
            stack.extend((v, d + 1) for v in (o.values() if isinstance(o, dict) else o))
    return None


def lone_surrogate(obj: Any, where: str = "") -> str | None:
    """Where the first string of ``obj`` (dict keys included) holding a lone surrogate is, as a
    key path (``x[1].b``; ``where`` is its prefix), with the surrogate; None when there is none."""
    stack: list[tuple[Any, str]] = [(obj, where)]
    while stack:
        o, at = stack.pop()
        if isinstance(o, str):
            m = _SURROGATE.search(o)
            if m:
                return f"{at or 'the value'} ({m.group(0)!a})"
        elif isinstance(o, dict):
            for k in o:
                if isinstance(k, str) and _SURROGATE.search(k):
                    return f"{at or 'the value'}, a key ({k!a})"
            stack.extend((v, f"{at}.{k}" if at else str(k)) for k, v in reversed(o.items()))
        elif isinstance(o, list | tuple):
            stack.extend((o[i], f"{at}[{i}]") for i in range(len(o) - 1, -1, -1))
    return None


def surrogate_problem(obj: Any, where: str = "") -> str | None:
    """The sentence refusing ``obj`` when it holds a lone surrogate (see :func:`lone_surrogate`)."""
    found = lone_surrogate(obj, where)
    if found is None:
        return None
    return f"{found}: a lone UTF-16 surrogate is not text (send valid Unicode)"


def problem(obj: Any, where: str = "") -> str | None:
    """The first reason ``obj`` (parsed data from outside) cannot be used: nesting deeper than
    :data:`MAX_DEPTH` or a lone surrogate; None when it can."""
    return depth_problem(obj, where or "the value") or surrogate_problem(obj, where)
