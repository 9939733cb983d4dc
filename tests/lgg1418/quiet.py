"""A chooser for :func:`helpers.play_until` / :func:`helpers.to_turn` that passes the optional
interruptions other rules open (interception, reaction, strategic-retreat declarations, the
October 1914 decision, great-offensive plans and halts) so a test reaches the step it wants."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

PASSIVE = ("decline", "pass", "no-", "end", "done")


def quiet(chooser: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """Wrap ``chooser``: when it returns None, pick a passive action if one is listed."""

    def pick(g: Any, side: str, legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        if chooser is not None:
            a = chooser(g, side, legal)
            if a is not None:
                return a
        for prefix in PASSIVE:
            for a in legal:
                if a["type"].startswith(prefix):
                    return a
        return None

    return pick
