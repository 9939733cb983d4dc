"""Studies: games in parts add up, backends agree, the report is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from grognard.ai.report import read_results, summarise, wilson, write_report, write_results
from grognard.ai.study import jobs_for, start_local_ray, study

TINY = str(Path(__file__).resolve().parents[1] / "tinyrules" / "scenarios" / "duel.toml")
SIDES = ["Blue", "Red"]


def strip(r: dict) -> dict:
    return {k: v for k, v in r.items() if k not in ("seconds", "decisions")}


def test_wilson_interval() -> None:
    lo, hi = wilson(20, 40)
    assert lo < 0.5 < hi and round(lo, 3) == 0.352 and round(hi, 3) == 0.648
    assert wilson(0, 0) == (0.0, 1.0)


def test_parts_add_up_to_the_whole_study() -> None:
    whole = study(jobs_for(TINY, SIDES, 4, ("greedy", "random"), 5, swap=True))
    part1 = study(jobs_for(TINY, SIDES, 2, ("greedy", "random"), 5, swap=True))
    part2 = study(jobs_for(TINY, SIDES, 4, ("greedy", "random"), 5, swap=True, start=3))
    assert [strip(r) for r in whole] == [strip(r) for r in part1 + part2]
    assert [r["agents"]["Blue"] for r in whole] == ["greedy", "random", "greedy", "random"]
    assert all(r["illegal"] == 0 for r in whole)


def test_processes_give_the_same_results_as_one_process() -> None:
    jobs = jobs_for(TINY, SIDES, 3, ("greedy", "random"), 9, swap=True)
    assert [strip(r) for r in study(jobs)] == [strip(r) for r in study(jobs, workers=2)]


def niceness() -> int:
    return os.nice(0)


def test_ray_backend_gives_the_same_results_as_local() -> None:
    """The same games on a local Ray cluster (2 CPUs, started as ``--backend ray`` starts it)
    give the same results; its workers run at normal priority, since Ray's default niceness of
    15 starves a study's games on a machine doing anything else."""
    ray = pytest.importorskip("ray")
    jobs = jobs_for(
        "gw-tutorial",
        ["Entente", "Central Powers"],
        4,
        ("greedy", "random"),
        3,
        swap=True,
        max_turns=1,
    )
    local = study(jobs)
    start_local_ray(ray, 2)
    try:
        assert ray.get(ray.remote(niceness).remote()) == niceness()
        ray_results = study(jobs, backend="ray", workers=2)
    finally:
        ray.shutdown()
    assert [strip(r) for r in local] == [strip(r) for r in ray_results]


def test_report_files(tmp_path: Path) -> None:
    results = study(jobs_for(TINY, SIDES, 4, ("greedy", "random"), 2, swap=True))
    write_results(tmp_path / "results.jsonl", results)
    assert read_results(tmp_path / "results.jsonl") == json.loads(json.dumps(results))
    s = write_report(tmp_path, "tiny-duel")
    assert s["games"] == 4 and set(s["agents"]) == {"greedy", "random"}
    assert s["agents"]["greedy"]["score"] + s["agents"]["random"]["score"] == 4
    for name in (
        "summary.json",
        "report.html",
        "vp_by_turn.png",
        "casualties_by_turn.png",
        "lengths.png",
    ):
        assert (tmp_path / name).stat().st_size > 0
    page = (tmp_path / "report.html").read_text()
    assert "data:image/png;base64," in page and "95% CI" in page
    assert summarise([], "x") == {"scenario": "x", "games": 0}


def test_study_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from grognard.cli import main

    out = tmp_path / "st"
    rc = main(
        [
            "study",
            TINY,
            "--games",
            "2",
            "--agents",
            "greedy,random",
            "--swap",
            "-o",
            str(out),
            "--no-plots",
        ]
    )
    assert rc == 0
    assert len(read_results(out / "results.jsonl")) == 2
    rc = main(
        [
            "study",
            TINY,
            "--games",
            "3",
            "--start",
            "3",
            "--agents",
            "greedy,random",
            "--swap",
            "-o",
            str(out),
            "--no-plots",
        ]
    )
    assert rc == 0 and len(read_results(out / "results.jsonl")) == 3
    assert main(["study", TINY, "--agents", "greedy"]) == 1
    assert "give two agents" in capsys.readouterr().err
