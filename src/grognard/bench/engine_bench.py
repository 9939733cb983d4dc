"""Engine benchmark: the working tree against a baseline commit, same scenarios and seeds.

For each scenario, :mod:`grognard.bench.engine_probe` runs twice in fresh processes: once with
the package of the working tree, once with the package of the baseline commit (checked out in a
temporary git worktree). It measures CPU time of random legal play with no checks (the chooser
picks uniformly from the flattened ``legal_actions(side)``), mean and p95 ``legal_actions``,
``is_legal`` and ``apply``, ``state_hash``, ``clone``, save and load of a long game, ``Game.new``,
and self-play with every check on. The report gives both sets of numbers and the ratios.

``grognard bench --engine [--json] [--quick] [--baseline COMMIT]`` or
``python benchmarks/engine_bench.py`` (same options).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

BASELINE = "2815226"
SCENARIOS = ("marne-1914", "lgg-west-1914")
PROBE = Path(__file__).resolve().with_name("engine_probe.py")
TARGETS = {
    "play_speedup": (">=", 10.0),
    "selfplay_speedup": (">=", 5.0),
    "state_hash_ms": ("<=", 1.0),
    "clone_ms": ("<=", 1.0),
    "load_1000_s": ("<=", 0.2),
}


def _repo_root() -> Path:
    here = Path(__file__).resolve()
    for p in here.parents:
        if (p / ".git").exists() and (p / "src" / "grognard").is_dir():
            return p
    raise SystemExit("the engine benchmark runs from a git checkout of grognard")


def _probe(src: Path, scenario: str, extra: list[str]) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run(
        [sys.executable, str(PROBE), scenario, *extra],
        env=env,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    if r.returncode != 0:
        raise SystemExit(f"probe of {scenario} with {src} failed:\n{r.stderr[-4000:]}")
    out: dict[str, Any] = json.loads(r.stdout.strip().splitlines()[-1])
    return out


def _ratio(a: float, b: float) -> float:
    return round(a / b, 2) if b else 0.0


def summarise(scenario: str, base: dict[str, Any], head: dict[str, Any]) -> dict[str, Any]:
    """One scenario's line of the report: the targets' values, then every measurement."""
    out = {
        "id": scenario,
        "play_speedup": _ratio(
            head["play"]["actions_per_cpu_s"], base["play"]["actions_per_cpu_s"]
        ),
        "selfplay_speedup": _ratio(
            head["selfplay"]["actions_per_cpu_s"], base["selfplay"]["actions_per_cpu_s"]
        ),
        "state_hash_ms": head["state_hash"]["mean_ms"],
        "clone_ms": head["clone"]["mean_ms"],
        "load_1000_s": head["load_s"],
        "legal_actions_ms": {
            "base": base["legal_actions"]["mean_ms"],
            "head": head["legal_actions"]["mean_ms"],
            "head_p95": head["legal_actions"]["p95_ms"],
        },
        "is_legal_ms": head["is_legal"]["mean_ms"] if head.get("is_legal") else None,
        "apply_ms": {"base": base["apply"]["mean_ms"], "head": head["apply"]["mean_ms"]},
        "game_new_ms": {"base": base["game_new"]["mean_ms"], "head": head["game_new"]["mean_ms"]},
        "base": base,
        "head": head,
    }
    out["targets_met"] = {
        k: (out[k] >= v if op == ">=" else out[k] <= v) for k, (op, v) in TARGETS.items()
    }
    return out


def run(
    scenarios: tuple[str, ...] = SCENARIOS,
    baseline: str = BASELINE,
    quick: bool = False,
    jobs: int = 2,
) -> dict[str, Any]:
    root = _repo_root()
    extra = (
        ["--actions", "60", "--seeds", "1", "--long", "200", "--selfplay-steps", "40"]
        if quick
        else []
    )
    with tempfile.TemporaryDirectory(prefix="grognard-baseline-") as tmp:
        wt = Path(tmp) / "tree"
        subprocess.run(
            ["git", "-C", str(root), "worktree", "add", "--detach", "-f", str(wt), baseline],
            check=True,
            capture_output=True,
        )
        try:
            jobs_list = [(src, s) for s in scenarios for src in (wt / "src", root / "src")]
            with ThreadPoolExecutor(max(1, jobs)) as pool:
                results = list(pool.map(lambda j: _probe(j[0], j[1], extra), jobs_list))
        finally:
            subprocess.run(
                ["git", "-C", str(root), "worktree", "remove", "--force", str(wt)],
                capture_output=True,
            )
    lines = []
    for k, s in enumerate(scenarios):
        lines.append(summarise(s, results[2 * k], results[2 * k + 1]))
    return {"baseline": baseline, "quick": quick, "scenarios": lines}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="grognard bench --engine")
    ap.add_argument("--json", action="store_true", help="print the whole report as JSON")
    ap.add_argument("--quick", action="store_true", help="fewer actions (a smoke run)")
    ap.add_argument("--baseline", default=BASELINE, help="commit to compare against")
    ap.add_argument("--scenario", action="append", help="scenario id (repeatable)")
    ap.add_argument("--jobs", type=int, default=2, help="probes run at once")
    a = ap.parse_args(argv)
    rep = run(tuple(a.scenario or SCENARIOS), a.baseline, a.quick, a.jobs)
    if a.json:
        print(json.dumps(rep, indent=1))
        return 0
    print(f"engine benchmark, working tree against {rep['baseline']} (CPU time)")
    for s in rep["scenarios"]:
        print(f"\n{s['id']}")
        for k, (op, v) in TARGETS.items():
            ok = "ok" if s["targets_met"][k] else "MISSED"
            print(f"  {k:18} {s[k]:>10}   target {op} {v:<6} {ok}")
        la = s["legal_actions_ms"]
        print(f"  legal_actions ms   {la['base']} -> {la['head']} (p95 {la['head_p95']})")
        print(f"  apply ms           {s['apply_ms']['base']} -> {s['apply_ms']['head']}")
        print(f"  Game.new ms        {s['game_new_ms']['base']} -> {s['game_new_ms']['head']}")
        print(f"  is_legal ms        {s['is_legal_ms']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
