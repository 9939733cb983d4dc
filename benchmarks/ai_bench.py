"""The planner's speed: seconds per player turn and expansions per second, per level.

A "player turn" here is the run of consecutive decisions of one side (from the first decision
the side makes after another side acted to the last before another side acts). The planner plays
one side, the random agent the other, from the scenario's start, for ``--turns`` player turns of
the planner's side. Usage::

    python benchmarks/ai_bench.py [--scenario marne-1914 --scenario lgg-west-1914]
        [--level easy --level normal] [--turns 2] [--json]

Target: normal level at most 30 s per Marne player turn on one core (the CPU columns: the
process's own CPU time, so a busy machine does not inflate them).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

from grognard.ai.agents import PlannerAgent, RandomAgent
from grognard.core.game import Game
from grognard.scenario import find


def p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(0.95 * (len(s) - 1)))] if s else float("nan")


def bench(scenario: str, level: str, turns: int, seed: int = 1) -> dict[str, Any]:
    g = Game.new(find(scenario), seed)
    me = g.state.sides[0]
    planner = PlannerAgent(seed, level)
    other = RandomAgent(seed + 1)
    per_turn: list[float] = []
    cpu_turn: list[float] = []
    decisions: list[int] = []
    current = cpu = 0.0
    count = 0
    last = None
    while not g.is_over() and len(per_turn) < turns:
        side = g.acting_sides()[0]
        if side != me and last == me:
            per_turn.append(current)
            cpu_turn.append(cpu)
            decisions.append(count)
            current, cpu, count = 0.0, 0.0, 0
        if side == me:
            t0, c0 = time.perf_counter(), time.process_time()
            a = planner.choose(g, side)
            current += time.perf_counter() - t0
            cpu += time.process_time() - c0
            count += 1
        else:
            a = other.choose(g, side)
        g.apply(a)
        last = side
    st = planner.stats
    return {
        "scenario": scenario,
        "level": level,
        "player_turns": len(per_turn),
        "mean_s": round(statistics.mean(per_turn), 2) if per_turn else None,
        "p95_s": round(p95(per_turn), 2) if per_turn else None,
        # CPU seconds of this process: the target is on one core, whatever else the machine runs
        "mean_cpu_s": round(statistics.mean(cpu_turn), 2) if cpu_turn else None,
        "p95_cpu_s": round(p95(cpu_turn), 2) if cpu_turn else None,
        "decisions_per_turn": round(statistics.mean(decisions), 1) if decisions else None,
        "expansions_per_s": round(st.expansions / st.seconds, 1) if st.seconds else None,
        "evaluations_per_s": round(st.evaluations / st.seconds, 1) if st.seconds else None,
        "failures": st.failures,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", action="append")
    ap.add_argument("--level", action="append")
    ap.add_argument("--turns", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rows = []
    for sc in a.scenario or ["marne-1914", "lgg-west-1914"]:
        for lv in a.level or ["easy", "normal", "hard"]:
            r = bench(sc, lv, a.turns)
            rows.append(r)
            if not a.json:
                print(
                    f"{sc:>14} {lv:>6}: {r['player_turns']} turns, mean {r['mean_s']} s,"
                    f" p95 {r['p95_s']} s (CPU mean {r['mean_cpu_s']} s, p95 {r['p95_cpu_s']} s),"
                    f" {r['decisions_per_turn']} decisions/turn,"
                    f" {r['expansions_per_s']} expansions/s",
                    flush=True,
                )
    if a.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
