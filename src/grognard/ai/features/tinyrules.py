"""Features of the tiny test rule system (``tiny``, in ``tests/tinyrules``): objectives are the
board's points of kind ``objective`` (T 6), strength is the printed ``strength``; hidden scouts
(T 5) are scattered by the generic sampler over hexes the view shows empty and unobserved."""

from __future__ import annotations

from grognard.ai.features.base import Features


class TinyFeatures(Features):
    """T 6: the side holding more objectives wins; the generic features read it as is."""
