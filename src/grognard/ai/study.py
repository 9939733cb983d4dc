"""Games between agents, and studies of many games (``grognard study``).

:func:`play_game` plays one game between two agents, with an optional turn limit (at the limit
the side that gained more victory points since the start wins, losses inflicted breaking a tie:
:meth:`Features.leader`). :func:`study` plays
``N`` games, locally in processes or on a Ray cluster, and yields one JSON-able result per game;
game ``k``'s dice and agent seeds are drawn from the study's seed before any game is played, so
a study gives the same results whatever the backend, the number of jobs or the ``start`` of a
part (parts add up to the whole study).
"""

from __future__ import annotations

import multiprocessing
import random
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from grognard.ai.agents import make_agent
from grognard.ai.features import features_for
from grognard.core.errors import IllegalAction
from grognard.core.game import Game
from grognard.scenario import Scenario, find


@dataclass(frozen=True)
class GameJob:
    """One game of a study: everything needed to play it anywhere (pickled to workers)."""

    scenario: str  # a scenario id or file path
    number: int
    game_seed: int
    agent_seeds: tuple[int, int]
    agents: dict[str, str]  # side -> agent spec
    max_turns: int | None
    max_steps: int


def turn_index(g: Game) -> int:
    """How many game turns have started (1 in the first)."""
    return len({c["turn"] for c in g.checkpoints} | {g.turn_label()})


def snapshot(g: Game) -> dict[str, Any]:
    feats = features_for(g)
    return {
        "turn": g.turn_label(),
        "vp": feats.victory_points(g),
        "casualties": feats.casualties(g),
    }


def play_game(
    scenario: Scenario,
    agents: dict[str, str],
    game_seed: int,
    agent_seeds: tuple[int, int] = (1, 2),
    max_turns: int | None = None,
    max_steps: int = 20000,
) -> dict[str, Any]:
    """Play one game; returns its result: winner, score per side, turns, VP and casualties at
    the start of each turn and at the end, the actions' count, illegal actions (must be 0)."""
    g = Game.new(scenario, game_seed)
    sides = list(g.state.sides)
    players = {s: make_agent(agents[s], agent_seeds[k % 2]) for k, s in enumerate(sides)}
    feats = features_for(g)
    by_turn = [snapshot(g)]
    steps = 0
    illegal = 0
    t0 = time.perf_counter()
    limit_reached = False
    while not g.is_over() and steps < max_steps:
        acting = g.acting_sides()
        if not acting:
            break
        side = acting[0]
        action = players[side].choose(g, side)
        try:
            g.apply(action)
        except IllegalAction:
            illegal += 1
            break
        steps += 1
        if g.turn_label() != by_turn[-1]["turn"]:
            if max_turns is not None and turn_index(g) > max_turns:
                limit_reached = True
                break
            by_turn.append(snapshot(g))
    end = snapshot(g)
    score = {s: feats.outcome_score(g, s, by_turn[0]) for s in sides}
    winner: str | None
    if g.state.result is not None:
        winner = g.state.result.get("winner")
        how = "game over"
    else:
        winner = feats.leader(g, by_turn[0])
        how = "turn limit" if limit_reached else "step limit"
    return {
        "winner": winner,
        "how": how,
        "score": score,
        "agents": dict(agents),
        "turns": turn_index(g) - (1 if limit_reached else 0),
        "actions": steps,
        "illegal": illegal,
        "by_turn": by_turn,
        "end": end,
        "seconds": round(time.perf_counter() - t0, 3),
        "decisions": {s: players[s].stats.to_json() for s in sides},
    }


def run_job(job: GameJob) -> dict[str, Any]:
    """Play one study game (the unit of work of every backend)."""
    sc = find(job.scenario)
    out = play_game(sc, job.agents, job.game_seed, job.agent_seeds, job.max_turns, job.max_steps)
    out["game"] = job.number
    out["seed"] = job.game_seed
    return out


def jobs_for(
    scenario: str,
    sides: list[str],
    games: int,
    agents: tuple[str, str],
    seed: int,
    swap: bool,
    start: int = 1,
    max_turns: int | None = None,
    max_steps: int = 20000,
) -> list[GameJob]:
    """The games ``start``..``games`` of a study. Agent A plays the first side in odd games and,
    with ``swap``, the second side in even games."""
    master = random.Random(seed)
    out = []
    for k in range(1, games + 1):
        game_seed = master.randrange(1, 2**31)
        seeds = (master.randrange(1, 2**31), master.randrange(1, 2**31))
        a, b = agents
        if swap and k % 2 == 0:
            a, b = b, a
        if k >= start:
            out.append(
                GameJob(
                    scenario, k, game_seed, seeds, {sides[0]: a, sides[1]: b}, max_turns, max_steps
                )
            )
    return out


def run_local(jobs: list[GameJob], workers: int = 1) -> Iterator[dict[str, Any]]:
    """Results in game order, played here or in ``workers`` processes."""
    if workers <= 1 or len(jobs) <= 1:
        for j in jobs:
            yield run_job(j)
        return
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=ctx) as pool:
        yield from pool.map(run_job, jobs)


def start_local_ray(ray: Any, num_cpus: int) -> None:
    """Start a Ray cluster on this machine with ``num_cpus`` CPUs for a study (``ray`` is the
    optional module, imported by the caller).

    Ray runs its workers at niceness 15 by default; on a machine where anything else runs, a
    game in such a worker then gets a small fraction of a core (measured: games of 2 s took
    60-300 s beside three busy processes). The study's workers run at normal priority instead,
    as the local backend's processes do.
    """
    ray.init(
        num_cpus=num_cpus,
        log_to_driver=False,
        include_dashboard=False,
        _system_config={"worker_niceness": 0},
    )


def run_ray(
    jobs: list[GameJob], address: str | None = None, num_cpus: int | None = None
) -> Iterator[dict[str, Any]]:
    """Results in game order, played as Ray tasks (``pip install grognard[ray]``)."""
    try:
        import ray
    except ImportError as e:  # optional dependency
        raise RuntimeError(
            "--backend ray needs the ray package (pip install 'grognard[ray]')"
        ) from e
    started = False
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            start_local_ray(ray, num_cpus or 2)
        started = True
    try:
        task = ray.remote(run_job)
        refs = [task.remote(j) for j in jobs]
        for r in refs:
            yield ray.get(r)
    finally:
        if started:
            ray.shutdown()


def study(
    jobs: list[GameJob],
    backend: str = "local",
    workers: int = 1,
    address: str | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Play the jobs on a backend (``local`` or ``ray``); results in game order."""
    if backend == "local":
        it = run_local(jobs, workers)
    elif backend == "ray":
        it = run_ray(jobs, address, num_cpus=max(1, workers))
    else:
        raise ValueError(f"unknown backend {backend!r} (local or ray)")
    out = []
    for r in it:
        out.append(r)
        if progress:
            progress(r)
    return out
