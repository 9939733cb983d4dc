"""``python -m tests.golden record|check|stats [--jobs N] [--scenario ID] [--seed S]``."""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from tests.golden import golden


def _record(job: tuple[str, int]) -> tuple[str, int, int, float]:
    sid, seed = job
    t0 = time.process_time()
    data = golden.record(sid, seed)
    golden.write(data, golden.path_of(sid, seed))
    return sid, seed, len(data["actions"]), time.process_time() - t0


def _check(job: tuple[str, int]) -> tuple[str, int, str | None, float]:
    sid, seed = job
    t0 = time.process_time()
    try:
        problem = golden.check(golden.read(golden.path_of(sid, seed)))
    except Exception as e:  # an action refused on replay, or rule code failing
        problem = f"{type(e).__name__}: {e}"
    return sid, seed, problem, time.process_time() - t0


def _stats(job: tuple[str, int]) -> tuple[str, int, dict[str, Any]]:
    sid, seed = job
    data = golden.read(golden.path_of(sid, seed))
    kinds = collections.Counter(a["type"] for a in data["actions"])
    s = data["start"]
    rules: collections.Counter[str] = collections.Counter()
    log_len = len(s["log"])
    for d in data["deltas"]:
        s = golden.patch(s, d)
    for text in s["log"][log_len:]:
        low = text.lower()
        for word in ("battle", "siege", "great battle", "retreat", "eliminated", "breakthrough"):
            if word in low:
                rules[word] += 1
    return sid, seed, {"actions": len(data["actions"]), "types": dict(kinds), "log": dict(rules)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.golden")
    ap.add_argument("verb", choices=["record", "check", "stats"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--scenario", action="append")
    ap.add_argument("--seed", type=int, action="append")
    a = ap.parse_args(argv)
    jobs = [(s, k) for s in a.scenario or golden.SCENARIOS for k in a.seed or golden.SEEDS]
    fn = {"record": _record, "check": _check, "stats": _stats}[a.verb]
    bad = 0
    with ProcessPoolExecutor(a.jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        for out in pool.map(fn, jobs):
            print(*out, flush=True)
            if a.verb == "check" and out[2] is not None:
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
