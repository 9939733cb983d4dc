"""Benchmark of the array searches against networkx and raw scipy.

Synthetic rectangular maps (200x150 = 30,000 hexes and 512x512 = 262,144 hexes) with
random terrain (clear 1 MP, forest 2, mountain 3, lake prohibited) and rivers (+1 MP to
cross), enemy units (their hexes blocked, their six neighbours in ZOC, stop-on-entry
ZOC), friendly units and supply sources. Two measurements per map:

reach
    500 friendly units, allowance 8: :func:`grognard.search.reach_many` against a loop
    of networkx ``single_source_dijkstra`` (cutoff 8, weight function forbidding to
    leave a ZOC hex other than the start, enemy hexes removed). Results must match.
supply
    whole-map multi-source trace from 30 sources: :func:`grognard.search.trace_from_sources`
    against networkx ``multi_source_dijkstra_path_length`` and one raw
    ``scipy.sparse.csgraph.dijkstra(min_only=True)`` call on a prebuilt CSR matrix of the
    same graph. Distances must match.

Each timing is the best of a few repetitions (``time.perf_counter``). networkx is an
optional dependency (the ``bench`` extra); it is needed here.

Run ``python benchmarks/search_bench.py [--quick] [--json]`` (or ``grognard bench``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from grognard.search.grid import rect_neighbors
from grognard.search.reach import ZocPolicy, reach_many
from grognard.search.trace import trace_from_sources

__all__ = ["MAPS", "SyntheticMap", "main", "make_map", "run", "run_maps"]

MAPS: tuple[dict[str, int], ...] = (
    {"cols": 200, "rows": 150, "enemy": 400},
    {"cols": 512, "rows": 512, "enemy": 3000},
)
FRIENDLY = 500
ALLOWANCE = 8.0
SOURCES = 30
TERRAIN_COST = np.array([1.0, 2.0, 3.0, np.inf])  # clear, forest, mountain, lake
TERRAIN_P = (0.60, 0.20, 0.12, 0.08)
RIVER_P = 0.05

TARGETS = {
    "supply_speedup_vs_networkx": (">=", 15.0),
    "supply_time_vs_scipy": ("<=", 1.5),
    "reach_speedup_vs_networkx": (">=", 10.0),
}


@dataclass
class SyntheticMap:
    """A random test map as arrays."""

    cols: int
    rows: int
    nbr: np.ndarray
    step_cost: np.ndarray
    terrain: np.ndarray
    enemy: np.ndarray
    zoc: np.ndarray
    blocked: np.ndarray
    friendly: np.ndarray
    sources: np.ndarray

    @property
    def n(self) -> int:
        return len(self.nbr)


def make_map(
    cols: int,
    rows: int,
    n_enemy: int,
    n_friendly: int = FRIENDLY,
    n_sources: int = SOURCES,
    seed: int = 0,
) -> SyntheticMap:
    """Random terrain, rivers, enemy units with ZOC, friendly units and sources."""
    rng = np.random.default_rng(seed)
    nbr = rect_neighbors(cols, rows)
    n = len(nbr)
    terrain = rng.choice(len(TERRAIN_COST), size=n, p=TERRAIN_P)
    hex_cost = TERRAIN_COST[terrain]
    # rivers on random hexsides, the same for both hexes sharing the side
    river = np.zeros((n, 6), dtype=bool)
    ii, dd = np.nonzero((nbr[:, :3] >= 0) & (rng.random((n, 3)) < RIVER_P))
    river[ii, dd] = True
    river[nbr[ii, dd], dd + 3] = True
    step = np.where(nbr >= 0, hex_cost[nbr] + river, np.inf)
    passable = np.flatnonzero(np.isfinite(hex_cost))
    enemy = rng.choice(passable, n_enemy, replace=False)
    blocked = np.zeros(n, dtype=bool)
    blocked[enemy] = True
    zoc = np.zeros(n, dtype=bool)
    around = nbr[enemy].ravel()
    zoc[around[around >= 0]] = True
    zoc[enemy] = True
    free = np.setdiff1d(passable, enemy)
    friendly = rng.choice(free, n_friendly, replace=False)
    sources = rng.choice(free, n_sources, replace=False)
    return SyntheticMap(cols, rows, nbr, step, terrain, enemy, zoc, blocked, friendly, sources)


def _best(fn: Callable[[], Any], reps: int) -> tuple[float, Any]:
    best = math.inf
    out = None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _first(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


# --------------------------------------------------------------------------- reach


def _nx_move_graph(m: SyntheticMap) -> Any:
    import networkx as nx

    g = nx.DiGraph()
    ii, dd = np.nonzero((m.nbr >= 0) & np.isfinite(m.step_cost))
    jj = m.nbr[ii, dd]
    keep = ~m.blocked[ii] & ~m.blocked[jj]
    g.add_nodes_from(np.flatnonzero(~m.blocked).tolist())
    g.add_weighted_edges_from(
        zip(ii[keep].tolist(), jj[keep].tolist(), m.step_cost[ii[keep], dd[keep]].tolist())
    )
    return g


def _nx_reach(g: Any, m: SyntheticMap) -> list[tuple[dict[int, float], dict[int, list[int]]]]:
    import networkx as nx

    zoc = m.zoc.tolist()
    out = []
    for s in m.friendly.tolist():

        def weight(u: int, v: int, data: dict[str, float], s: int = s) -> float | None:
            if zoc[u] and u != s:
                return None  # entering an enemy ZOC ended the move
            return data["weight"]

        out.append(nx.single_source_dijkstra(g, s, cutoff=ALLOWANCE, weight=weight))
    return out


def _path_cost(m: SyntheticMap, path: Sequence[int]) -> float:
    total = 0.0
    for a, b in itertools.pairwise(path):
        d = int(np.flatnonzero(m.nbr[a] == b)[0])
        total += float(m.step_cost[a, d])
    return total


def bench_reach(m: SyntheticMap, reps: int, nx_reps: int) -> dict[str, Any]:
    policy = ZocPolicy(stop_on_entry=True)

    def ours() -> Any:
        return reach_many(
            m.nbr, m.step_cost, m.friendly, ALLOWANCE, zoc=m.zoc, blocked=m.blocked, policy=policy
        )

    first = _first(ours)
    t_ours, batch = _best(ours, reps)
    t_dicts, dicts = _best(lambda: ours().dicts(), reps)
    g = _nx_move_graph(m)
    t_nx, nx_res = _best(lambda: _nx_reach(g, m), nx_reps)
    same = all(dict(d) == mine for (d, _), mine in zip(nx_res, dicts))
    # paths: ours must be legal and as cheap as networkx's (ties may pick other paths)
    paths_ok = True
    for i in range(0, len(m.friendly), 25):
        for h in list(dicts[i])[:20]:
            p = batch.path(i, h)
            paths_ok &= p[0] == m.friendly[i] and p[-1] == h
            paths_ok &= _path_cost(m, p) == dicts[i][h]
    return {
        "reach_ours_s": t_ours,
        "reach_ours_with_dicts_s": t_dicts,
        "reach_ours_first_call_s": first,
        "reach_networkx_s": t_nx,
        "reach_speedup_vs_networkx": t_nx / t_ours,
        "reach_speedup_vs_networkx_with_dicts": t_nx / t_dicts,
        "reach_identical": bool(same),
        "reach_paths_ok": bool(paths_ok),
        "reach_mean_hexes": float(np.mean([len(d) for d in dicts])),
    }


# --------------------------------------------------------------------------- supply


def _supply_csr(m: SyntheticMap) -> sp.csr_matrix:
    """The supply search graph, prebuilt: edge j -> i costs the step i -> j (to sources)."""
    ii, dd = np.nonzero(m.nbr >= 0)
    jj = m.nbr[ii, dd]
    w = m.step_cost[ii, dd]
    keep = np.isfinite(w) & ~m.blocked[jj]  # a path may not enter a blocked hex
    return sp.csr_matrix((w[keep], (jj[keep], ii[keep])), shape=(m.n, m.n))


def bench_supply(m: SyntheticMap, reps: int, nx_reps: int) -> dict[str, Any]:
    import networkx as nx

    def ours() -> Any:
        return trace_from_sources(m.nbr, m.step_cost, m.sources, blocked=m.blocked)

    first = _first(ours)
    t_ours, res = _best(ours, reps)
    csr = _supply_csr(m)
    t_scipy, d_scipy = _best(lambda: dijkstra(csr, indices=m.sources, min_only=True), reps)
    coo = csr.tocoo()
    g = nx.DiGraph()
    g.add_nodes_from(range(m.n))
    g.add_weighted_edges_from(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist()))
    srcs = set(m.sources.tolist())
    t_nx, d_nx = _best(lambda: nx.multi_source_dijkstra_path_length(g, srcs), nx_reps)
    nx_dist = np.full(m.n, np.inf)
    nx_dist[list(d_nx)] = list(d_nx.values())
    return {
        "supply_ours_s": t_ours,
        "supply_ours_first_call_s": first,
        "supply_scipy_s": t_scipy,
        "supply_networkx_s": t_nx,
        "supply_speedup_vs_networkx": t_nx / t_ours,
        "supply_time_vs_scipy": t_ours / t_scipy,
        "supply_identical": bool(
            np.array_equal(res.dist, d_scipy) and np.array_equal(res.dist, nx_dist)
        ),
        "supply_reached_hexes": int(np.isfinite(res.dist).sum()),
    }


# --------------------------------------------------------------------------- driver


def _met(row: dict[str, Any]) -> dict[str, bool]:
    out = {}
    for key, (op, bound) in TARGETS.items():
        v = row[key]
        out[key] = bool(v >= bound if op == ">=" else v <= bound)
    return out


def run(quick: bool = False, seed: int = 0) -> dict[str, Any]:
    """Run the benchmark; ``quick`` = the 30k-hex map only. Returns the JSON document."""
    return run_maps(MAPS[:1] if quick else MAPS, seed=seed)


def run_maps(
    specs: Sequence[dict[str, int]],
    seed: int = 0,
    reps: int = 7,
    nx_reps: int = 3,
    friendly: int = FRIENDLY,
    sources: int = SOURCES,
) -> dict[str, Any]:
    """Benchmark the given map specs (``cols``, ``rows``, ``enemy``)."""
    maps = []
    for spec in specs:
        m = make_map(spec["cols"], spec["rows"], spec["enemy"], friendly, sources, seed=seed)
        big = m.n > 100_000
        row: dict[str, Any] = {
            "hexes": m.n,
            "cols": m.cols,
            "rows": m.rows,
            "enemy_units": len(m.enemy),
            "friendly_units": len(m.friendly),
            "sources": len(m.sources),
            "allowance": ALLOWANCE,
        }
        row.update(bench_supply(m, reps=reps, nx_reps=min(nx_reps, 2) if big else nx_reps))
        row.update(bench_reach(m, reps=reps, nx_reps=nx_reps))
        row["targets_met"] = _met(row)
        maps.append(row)
    return {"maps": maps}


def _table(doc: dict[str, Any]) -> str:
    lines = []
    for r in doc["maps"]:
        lines.append(
            f"map {r['cols']}x{r['rows']} = {r['hexes']:,} hexes, {r['enemy_units']} enemy units"
        )
        lines.append(
            f"  reach  ({r['friendly_units']} units, allowance {r['allowance']:g}, "
            f"~{r['reach_mean_hexes']:.0f} hexes each)"
        )
        lines.append(
            f"    ours {r['reach_ours_s'] * 1e3:8.1f} ms   (+ dicts"
            f" {r['reach_ours_with_dicts_s'] * 1e3:.1f} ms, first call"
            f" {r['reach_ours_first_call_s'] * 1e3:.1f} ms)"
        )
        lines.append(f"    networkx {r['reach_networkx_s'] * 1e3:8.1f} ms")
        lines.append(
            f"    speedup {r['reach_speedup_vs_networkx']:6.1f}x   (target >= 10x)  "
            f"identical={r['reach_identical']} paths_ok={r['reach_paths_ok']}"
        )
        lines.append(f"  supply ({r['sources']} sources, whole map)")
        lines.append(
            f"    ours {r['supply_ours_s'] * 1e3:8.1f} ms   (first call"
            f" {r['supply_ours_first_call_s'] * 1e3:.1f} ms)"
        )
        lines.append(f"    raw scipy {r['supply_scipy_s'] * 1e3:8.1f} ms")
        lines.append(f"    networkx {r['supply_networkx_s'] * 1e3:8.1f} ms")
        lines.append(
            f"    speedup {r['supply_speedup_vs_networkx']:6.1f}x vs networkx (target >= 15x),"
            f" {r['supply_time_vs_scipy']:.2f}x raw scipy time (target <= 1.5x) "
            f" identical={r['supply_identical']}"
        )
        lines.append("  targets met: " + ", ".join(f"{k}={v}" for k, v in r["targets_met"].items()))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``[--quick] [--json] [--seed N]``. Returns 0, or 1 if a target is missed."""
    ap = argparse.ArgumentParser(prog="grognard bench", description="search benchmark")
    ap.add_argument("--quick", action="store_true", help="the 30k-hex map only")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        import networkx  # noqa: F401
    except ImportError:
        print("the search benchmark needs networkx: pip install 'grognard[bench]'", file=sys.stderr)
        return 2
    doc = run(quick=args.quick, seed=args.seed)
    print(json.dumps(doc, indent=2) if args.json else _table(doc))
    ok = all(
        all(r["targets_met"].values()) and r["reach_identical"] and r["supply_identical"]
        for r in doc["maps"]
    )
    return 0 if ok else 1
