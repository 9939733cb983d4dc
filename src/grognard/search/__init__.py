"""Array searches over the board: movement reach, supply tracing, retreat paths.

Everything here takes plain numpy arrays (a ``(n, 6)`` neighbour table and cost arrays),
so it works on a :class:`grognard.board.Board` (``board.nbr``) as well as on synthetic
maps from :func:`grognard.search.grid.rect_neighbors`.
"""

from grognard.search.grid import rect_axial, rect_index, rect_neighbors
from grognard.search.reach import (
    GenericReach,
    Reach,
    ReachBatch,
    ZocPolicy,
    ZocRules,
    reach_generic,
    reach_many,
    reach_one,
    reach_reference,
)
from grognard.search.retreat import RetreatOptions, by_end, by_entered, combine, retreat_paths
from grognard.search.trace import (
    ChainResult,
    TraceElement,
    TraceResult,
    edge_mask_from_sides,
    trace_elements,
    trace_from_sources,
)

__all__ = [
    "ChainResult",
    "GenericReach",
    "Reach",
    "ReachBatch",
    "RetreatOptions",
    "TraceElement",
    "TraceResult",
    "ZocPolicy",
    "ZocRules",
    "by_end",
    "by_entered",
    "combine",
    "edge_mask_from_sides",
    "reach_generic",
    "reach_many",
    "reach_one",
    "reach_reference",
    "rect_axial",
    "rect_index",
    "rect_neighbors",
    "retreat_paths",
    "trace_elements",
    "trace_from_sources",
]
