"""Features of the tiny test rule system (``tiny``, in ``tests/tinyrules``): objectives are the
board's points of kind ``objective`` (T 6), strength is the printed ``strength``; hidden scouts
(T 5) are scattered by the generic sampler over hexes the view shows empty and unobserved."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.ai.features.base import Features

if TYPE_CHECKING:
    from grognard.core.game import Game


class TinyFeatures(Features):
    """T 6: the side holding more objectives wins; a hex held by one side's pieces is that
    side's, as T 6 judges it at the end."""

    def owner(self, g: Game, i: int) -> str | None:
        holders = {p.side for p in g.state.at_hex(i)}
        if len(holders) == 1:
            return holders.pop()
        return g.state.control.get(i)
