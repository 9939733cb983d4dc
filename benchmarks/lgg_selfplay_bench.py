"""Where the time of a ``lgg-west-1914`` self-play game goes.

Plays the games ``grognard selfplay lgg-west-1914 --seed S`` plays (same seeds), in this
process, and prints actions per (processor-time) second with the time spent listing legal actions, applying
actions, checking invariants, checking views for leaks and replaying at the end.

    python benchmarks/lgg_selfplay_bench.py --games 1 --max-steps 2000
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from grognard import selfplay
from grognard.core.game import Game
from grognard.rulesets.lgg1418.ruleset import LaGrandeGuerre
from grognard.scenario import find

TIMES: dict[str, float] = defaultdict(float)


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kw: Any) -> Any:
        t0 = time.process_time()
        try:
            return fn(*args, **kw)
        finally:
            TIMES[name] += time.process_time() - t0

    return wrapper


def _strings(obj: Any, out: set[str]) -> None:
    t = type(obj)
    if t is str:
        out.add(obj)
    elif t is dict:
        for k, v in obj.items():
            out.add(str(k))
            _strings(v, out)
    elif t is list or t is tuple:
        for v in obj:
            _strings(v, out)


def view_leaks_by_set(g: Game) -> list[str]:
    """A quicker leak check, proposed for the core: a hidden token leaks when it is one of the
    view's strings (keys included). The core check looks for the quoted token in the view's JSON
    text, which finds the same leaks unless a string of the view itself contains a quote."""
    out = []
    for side in g.state.sides:
        tokens = g.ruleset.hidden_tokens(g, side)
        if not tokens:
            continue
        strings: set[str] = set()
        _strings(g.view(side), strings)
        for t in sorted(tokens & strings):
            out.append(f"view leak: {side} can see hidden {t!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("scenario", nargs="?", default="lgg-west-1914")
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-steps", type=int, default=2000)
    ap.add_argument("--no-views", action="store_true", help="skip the view-leak check")
    ap.add_argument("--set-leak-check", action="store_true",
                    help="check views with view_leaks_by_set (a proposed core change) instead of the core check")
    args = ap.parse_args(argv)
    if args.set_leak_check:
        selfplay.view_leaks = view_leaks_by_set
    Game.legal_actions = _timed("legal_actions", Game.legal_actions)  # type: ignore[method-assign]
    Game.apply = _timed("apply", Game.apply)  # type: ignore[method-assign]
    Game.load = _timed("replay", Game.load)  # type: ignore[method-assign,assignment]
    LaGrandeGuerre.invariants = _timed("invariants", LaGrandeGuerre.invariants)  # type: ignore[method-assign]
    selfplay.view_leaks = _timed("view_leaks", selfplay.view_leaks)
    scenario = find(args.scenario)
    master = random.Random(args.seed)
    seeds = [(master.randrange(1, 2**31), master.randrange(1, 2**31)) for _ in range(args.first + args.games - 1)]
    total_actions = 0
    total_time = 0.0
    for k in range(args.first, args.first + args.games):
        game_seed, agent_seed = seeds[k - 1]
        rep = selfplay.SelfplayReport()
        TIMES.clear()
        t0 = time.process_time()
        g = selfplay.play_one(scenario, game_seed, agent_seed, rep, max_steps=args.max_steps,
                              check_views=not args.no_views, game_no=k)
        dt = time.process_time() - t0
        total_actions += rep.actions
        total_time += dt
        apply_only = TIMES["apply"] - TIMES["replay"]  # the replay applies every action again
        parts = ", ".join(f"{k} {v:.1f} s" for k, v in sorted(TIMES.items()) if k != "apply")
        print(f"game {k}: {rep.actions} actions in {dt:.1f} s = {rep.actions / dt:.1f} actions/s; turn {g.turn_label()}; "
              f"apply {apply_only:.1f} s, {parts}; violations {rep.invariant_violations}, refused "
              f"{rep.refused_legal_actions}, replay {rep.replay_mismatches}, leaks {rep.view_leaks}", flush=True)
        for p in rep.problems:
            print("   ", p, flush=True)
    if total_time:
        print(f"total: {total_actions} actions in {total_time:.1f} s = {total_actions / total_time:.1f} actions/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
