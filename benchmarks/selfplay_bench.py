"""Self-play speed and correctness probe for one scenario (default: the Marne).

Plays the same games as ``grognard selfplay SCENARIO --seed S`` (game ``k``'s seeds drawn from
``S`` the same way), one game at a time in this process, and prints each game's actions per
second, the hash of its final state (a speed-up must not change it) and every problem as soon as
the game ends. ``--games`` picks how many of those games,
``--first`` the number of the first one (to look at game 7 alone, say)."""

from __future__ import annotations

import argparse
import random
import sys
import time

from grognard.scenario import find
from grognard.selfplay import SelfplayReport, play_one


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("scenario", nargs="?", default="marne-1914")
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-steps", type=int, default=2000)
    ap.add_argument("--no-views", action="store_true", help="skip the view-leak check")
    args = ap.parse_args(argv)
    scenario = find(args.scenario)
    master = random.Random(args.seed)
    seeds = []
    for _ in range(args.first + args.games - 1):
        seeds.append((master.randrange(1, 2**31), master.randrange(1, 2**31)))
    total_actions = 0
    total_time = 0.0
    for k in range(args.first, args.first + args.games):
        game_seed, agent_seed = seeds[k - 1]
        rep = SelfplayReport()
        t0 = time.perf_counter()
        c0 = time.process_time()
        g = play_one(scenario, game_seed, agent_seed, rep, max_steps=args.max_steps,
                     check_views=not args.no_views, game_no=k)
        dt = time.perf_counter() - t0
        cpu = time.process_time() - c0
        total_actions += rep.actions
        total_time += dt
        print(f"game {k}: {rep.actions} actions in {dt:.1f} s = {rep.actions / dt:.1f} actions/s "
              f"({rep.actions / cpu:.1f} per CPU second); "
              f"turn {g.turn_label()}; violations {rep.invariant_violations}, refused {rep.refused_legal_actions}, "
              f"replay {rep.replay_mismatches}, leaks {rep.view_leaks}; state {g.state_hash()[:16]}", flush=True)
        for p in rep.problems:
            print("   ", p, flush=True)
    if total_time:
        print(f"total: {total_actions} actions in {total_time:.1f} s = {total_actions / total_time:.1f} actions/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
