"""The search benchmark's own correctness checks, on a tiny map (no timing assertions)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from grognard.bench import search_bench as sb

pytest.importorskip("networkx")


def test_tiny_benchmark_agrees_with_networkx() -> None:
    doc = sb.run_maps(
        [{"cols": 24, "rows": 18, "enemy": 12}], seed=3, reps=1, nx_reps=1, friendly=40, sources=3
    )
    json.dumps(doc)  # serialisable
    (row,) = doc["maps"]
    assert row["hexes"] == 24 * 18
    assert row["reach_identical"] and row["reach_paths_ok"] and row["supply_identical"]
    for key in ("supply_speedup_vs_networkx", "supply_time_vs_scipy", "reach_speedup_vs_networkx"):
        assert row[key] > 0 and key in row["targets_met"]
    text = sb._table(doc)
    assert "reach" in text and "supply" in text


def test_make_map() -> None:
    m = sb.make_map(30, 20, 15, n_friendly=25, n_sources=4, seed=1)
    assert m.n == 600 and m.step_cost.shape == (600, 6)
    assert m.blocked.sum() == 15 and m.zoc[m.enemy].all()
    assert not m.blocked[m.friendly].any() and not m.blocked[m.sources].any()
    assert np.isinf(m.step_cost[m.nbr < 0]).all()
    # rivers are symmetric: crossing a side costs the same extra both ways
    i, d = np.nonzero((m.nbr >= 0) & np.isfinite(m.step_cost))
    j = m.nbr[i, d]
    both = np.isfinite(sb.TERRAIN_COST[m.terrain[i]])
    i, d, j = i[both], d[both], j[both]
    extra = m.step_cost[i, d] - sb.TERRAIN_COST[m.terrain[j]]
    back = m.step_cost[j, (d + 3) % 6] - sb.TERRAIN_COST[m.terrain[i]]
    assert np.array_equal(extra, back)
