"""Checks on text that comes from outside: JSON and command lines can carry strings that are not
Unicode text.

JSON's ``\\ud800`` escape (and a command-line byte that is not UTF-8, which Python decodes to a
lone surrogate) gives a Python string holding a lone UTF-16 surrogate: it cannot be encoded as
UTF-8, so it can be neither written to a save, a database nor an answer. Such strings are refused
where they enter.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


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
