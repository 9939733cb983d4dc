"""Self-play speed and correctness probe for one scenario (default: the Marne).

Plays the same games as ``grognard selfplay SCENARIO --seed S`` (game ``k``'s seeds drawn from
``S`` the same way), one game at a time in this process, and prints each game's actions per
second, the hash of its final state (a speed-up must not change it) and every problem as soon as
the game ends. ``--games`` picks how many of those games, ``--first`` the number of the first
one (to look at game 7 alone, say). ``--timings`` adds where the processor time of each game
went: listing legal actions, applying actions, the rule system's invariants, the view-leak
check and the replay at the end.

    python benchmarks/selfplay_bench.py lgg-west-1914 --games 1 --timings
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from grognard import selfplay
from grognard.core.game import Game
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


def install_timers(ruleset_class: type) -> None:
    """Wrap the calls a self-play game spends its time in (for ``--timings``)."""
    Game.legal_actions = _timed("legal_actions", Game.legal_actions)  # type: ignore[method-assign]
    Game.apply = _timed("apply", Game.apply)  # type: ignore[method-assign]
    Game.load = _timed("replay", Game.load)  # type: ignore[method-assign,assignment]
    ruleset_class.invariants = _timed("invariants", ruleset_class.invariants)  # type: ignore[attr-defined]
    selfplay.LeakCheck.check = _timed("view_leaks", selfplay.LeakCheck.check)  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("scenario", nargs="?", default="marne-1914")
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-steps", type=int, default=2000)
    ap.add_argument("--no-views", action="store_true", help="skip the view-leak check")
    ap.add_argument(
        "--timings", action="store_true", help="say where each game's processor time went"
    )
    args = ap.parse_args(argv)
    scenario = find(args.scenario)
    if args.timings:
        install_timers(type(scenario.ruleset))
    master = random.Random(args.seed)
    seeds = [
        (master.randrange(1, 2**31), master.randrange(1, 2**31))
        for _ in range(args.first + args.games - 1)
    ]
    total_actions = 0
    total_time = 0.0
    for k in range(args.first, args.first + args.games):
        game_seed, agent_seed = seeds[k - 1]
        rep = selfplay.SelfplayReport()
        TIMES.clear()
        t0 = time.perf_counter()
        c0 = time.process_time()
        g = selfplay.play_one(
            scenario,
            game_seed,
            agent_seed,
            rep,
            max_steps=args.max_steps,
            check_views=not args.no_views,
            game_no=k,
        )
        dt = time.perf_counter() - t0
        cpu = time.process_time() - c0
        total_actions += rep.actions
        total_time += dt
        print(
            f"game {k}: {rep.actions} actions in {dt:.1f} s = {rep.actions / dt:.1f} actions/s"
            f" ({rep.actions / cpu:.1f} per CPU second); turn {g.turn_label()}; violations"
            f" {rep.invariant_violations}, refused {rep.refused_legal_actions}, replay"
            f" {rep.replay_mismatches}, leaks {rep.view_leaks}; state {g.state_hash()[:16]}",
            flush=True,
        )
        if args.timings:
            apply_only = TIMES["apply"] - TIMES["replay"]  # the replay applies every action again
            parts = ", ".join(
                f"{name} {v:.1f} s" for name, v in sorted(TIMES.items()) if name != "apply"
            )
            timed = apply_only + sum(v for name, v in TIMES.items() if name != "apply")
            print(
                f"    processor time: apply {apply_only:.1f} s, {parts}, other {cpu - timed:.1f} s",
                flush=True,
            )
        for p in rep.problems:
            print("   ", p, flush=True)
    if total_time:
        print(
            f"total: {total_actions} actions in {total_time:.1f} s ="
            f" {total_actions / total_time:.1f} actions/s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
