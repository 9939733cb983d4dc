"""Engine measurements for one scenario, against whichever grognard is importable.

Run as a script (``python engine_probe.py SCENARIO [--actions N] [--seeds K]``) by
:mod:`grognard.bench.engine_bench`, once with the working tree's package and once with the
baseline commit's (``PYTHONPATH`` pointing at its ``src``). It uses only the public ``Game`` API
and detects what an engine offers (``clone``, ``is_legal``), so the same file measures both.
It prints one JSON object. CPU time (``time.process_time``) throughout.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from grognard.core.game import Game
from grognard.scenario import find
from grognard.selfplay import selfplay

ENDING = ("end-phase", "pass")
END_SHARE = 0.04


def choose(actions: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Uniform over the flattened legal actions; an ending action at a fifth of another choice's
    weight but at least a 1-in-25 chance (the self-play chooser of the baseline)."""
    ends = [a for a in actions if a.get("type") in ENDING]
    others = [a for a in actions if a.get("type") not in ENDING]
    if not ends or not others:
        return rng.choice(actions)
    share = max(0.2 * len(ends) / (0.2 * len(ends) + len(others)), END_SHARE)
    if rng.random() < share:
        return rng.choice(ends)
    return rng.choice(others)


def _ms(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {"mean_ms": 0.0, "p95_ms": 0.0, "n": 0}
    s = sorted(xs)
    p95 = s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]
    return {
        "mean_ms": round(1000 * statistics.fmean(xs), 3),
        "p95_ms": round(1000 * p95, 3),
        "n": len(xs),
    }


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.process_time()
    out = fn()
    return out, time.process_time() - t0


def _is_legal(g: Game) -> Callable[[dict[str, Any]], bool] | None:
    fn = getattr(g, "is_legal", None)
    return fn if callable(fn) else None


def _clone(g: Game) -> Game:
    fn = getattr(g, "clone", None)
    if callable(fn):
        return fn()
    return copy.deepcopy(g)


def random_play(scenario: Any, seed: int, actions: int) -> dict[str, Any]:
    """Random legal play, no checks: list, choose, apply; timings of each part."""
    g = Game.new(scenario, seed)
    rng = random.Random(seed)
    listing: list[float] = []
    applying: list[float] = []
    hashing: list[float] = []
    legal_checks: list[float] = []
    is_legal = _is_legal(g)
    t0 = time.process_time()
    done = 0
    while done < actions and not g.is_over():
        side = rng.choice(g.acting_sides())
        legal: list[dict[str, Any]]
        legal, dt = _timed(lambda side=side: g.legal_actions(side))  # type: ignore[misc]
        listing.append(dt)
        a = choose(legal, rng)
        _, dt = _timed(lambda a=a: g.apply(a))  # type: ignore[misc]
        applying.append(dt)
        done += 1
    total = time.process_time() - t0
    # state hash and single-action legality, measured outside the timed play
    rng2 = random.Random(seed + 1)
    for _ in range(20):
        _, dt = _timed(g.state_hash)
        hashing.append(dt)
    if is_legal is not None and not g.is_over():
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        for a in rng2.sample(legal, min(20, len(legal))):
            ok, dt = _timed(lambda a=a: is_legal(a))  # type: ignore[misc]
            legal_checks.append(dt)
            if not ok:
                raise RuntimeError(f"a listed action is not legal: {a}")
    return {
        "actions": done,
        "cpu_s": round(total, 3),
        "actions_per_cpu_s": round(done / total, 2) if total else 0.0,
        "legal_actions": _ms(listing),
        "apply": _ms(applying),
        "state_hash": _ms(hashing),
        "is_legal": _ms(legal_checks) if is_legal is not None else None,
        "game": g,
    }


def selfplay_rate(scenario: Any, games: int, max_steps: int) -> dict[str, Any]:
    """Self-play with every check on (invariants, view leaks, undo, replay): actions per CPU s."""
    t0 = time.process_time()
    rep = selfplay(scenario, games=games, seed=1, max_steps=max_steps, jobs=1)
    dt = time.process_time() - t0
    return {
        "games": rep.games,
        "actions": rep.actions,
        "cpu_s": round(dt, 3),
        "actions_per_cpu_s": round(rep.actions / dt, 2) if dt else 0.0,
        "violations": rep.invariant_violations,
        "mismatches": rep.replay_mismatches,
        "leaks": rep.view_leaks,
        "refused": rep.refused_legal_actions,
    }


def play_to(scenario: Any, seed: int, n: int) -> Game:
    g = Game.new(scenario, seed)
    rng = random.Random(seed)
    while len(g.actions) < n and not g.is_over():
        side = rng.choice(g.acting_sides())
        g.apply(choose(g.legal_actions(side), rng))
    return g


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--actions", type=int, default=300, help="random-play actions per seed")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--selfplay-games", type=int, default=2)
    ap.add_argument("--selfplay-steps", type=int, default=150)
    ap.add_argument("--long", type=int, default=1000, help="actions of the saved game")
    a = ap.parse_args(argv)
    sc = find(a.scenario)
    out: dict[str, Any] = {"scenario": a.scenario}

    news = [_timed(lambda k=k: Game.new(sc, k))[1] for k in range(1, 6)]  # type: ignore[misc]
    out["game_new"] = _ms(news)

    plays = [random_play(sc, seed, a.actions) for seed in range(1, a.seeds + 1)]
    acts = sum(p["actions"] for p in plays)
    cpu = sum(p["cpu_s"] for p in plays)
    out["play"] = {
        "actions": acts,
        "cpu_s": round(cpu, 3),
        "actions_per_cpu_s": round(acts / cpu, 2) if cpu else 0.0,
    }
    for key in ("legal_actions", "apply", "state_hash", "is_legal"):
        parts = [p[key] for p in plays if p[key] is not None]
        if not parts:
            out[key] = None
            continue
        n = sum(x["n"] for x in parts)
        out[key] = {
            "mean_ms": round(sum(x["mean_ms"] * x["n"] for x in parts) / n, 3) if n else 0.0,
            "p95_ms": max(x["p95_ms"] for x in parts),
            "n": n,
        }
    g = plays[0]["game"]
    reps = 3 if not callable(getattr(g, "clone", None)) else 50
    clones = [_timed(lambda: _clone(g))[1] for _ in range(reps)]
    out["clone"] = _ms(clones)
    out["clone"]["method"] = "Game.clone" if callable(getattr(g, "clone", None)) else "deepcopy"

    long_game, dt = _timed(lambda: play_to(sc, 1, a.long))
    out["long_game"] = {"actions": len(long_game.actions), "play_cpu_s": round(dt, 3)}
    saved, dt = _timed(long_game.save)
    out["save_s"] = round(dt, 4)
    text = json.dumps(saved)
    out["save_bytes"] = len(text)
    loaded, dt = _timed(lambda: Game.load(json.loads(text)))
    out["load_s"] = round(dt, 4)
    if loaded.state_hash() != long_game.state_hash():
        raise RuntimeError("the loaded game differs from the saved one")

    out["selfplay"] = selfplay_rate(sc, a.selfplay_games, a.selfplay_steps)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
