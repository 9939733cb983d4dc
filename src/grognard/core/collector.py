"""The engine's setting of Python's cyclic garbage collector.

A game's state is a graph of small containers (every piece's status and attributes, the
records of a rule system), and search makes and drops whole copies of it (``Game.clone``):
hundreds of thousands of container objects a second. With Python's default thresholds the
collector then runs its youngest generation every 700 new containers and its full sweep of
every live object often, which measured 28% of the planner's CPU time on marne-1914 and 10% of
random legal play there. :func:`tune` raises the youngest generation's threshold to
:data:`GEN0_THRESHOLD` (the older generations keep theirs), which brings those shares to about
15% and 4% for a few megabytes more of memory.

It is applied once, when the first :class:`~grognard.core.game.Game` is made, and only when the
process still runs Python's default thresholds (an application that set its own keeps them).
Setting the environment variable ``GROGNARD_GC=python`` keeps Python's defaults.
"""

from __future__ import annotations

import gc
import os

#: containers allocated (net of those freed) between two runs of the youngest generation
GEN0_THRESHOLD = 20_000
PYTHON_DEFAULT = (700, 10, 10)
_applied = False


def tune() -> None:
    """Raise the youngest generation's threshold (see the module docstring); idempotent."""
    global _applied
    if _applied:
        return
    _applied = True
    if os.environ.get("GROGNARD_GC", "").strip().lower() == "python":
        return
    current = gc.get_threshold()
    if tuple(current) != PYTHON_DEFAULT:
        return
    gc.set_threshold(GEN0_THRESHOLD, current[1], current[2])
