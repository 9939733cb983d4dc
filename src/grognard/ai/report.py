"""Study reports: win rates with 95% confidence intervals, victory points and casualties by
turn, game lengths; PNG plots (matplotlib), a self-contained HTML page, JSON Lines raw results.

A study's directory keeps ``results.jsonl`` (one line per game). A study run in parts
(``--start``) adds its games to the file (a game played again replaces its line) and the report
is written again from every game in it, so the parts add up to the whole study.
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import math
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from grognard.ai.agents import make_agent
from grognard.ai.study import jobs_for, study
from grognard.scenario import ScenarioError, find

Z95 = 1.959963984540054


def wilson(score: float, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion ``score / n`` (a draw counts half)."""
    if n == 0:
        return (0.0, 1.0)
    p = score / n
    d = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / d
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


def read_results(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = {}
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{n}: not a JSON line ({e.msg})") from e
        out[int(r["game"])] = r
    return [out[k] for k in sorted(out)]


def write_results(path: Path, results: Iterable[Mapping[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in results))


def _rate(scores: list[float]) -> dict[str, Any]:
    lo, hi = wilson(sum(scores), len(scores))
    return {
        "games": len(scores),
        "score": sum(scores),
        "rate": round(sum(scores) / len(scores), 4) if scores else None,
        "ci95": [round(lo, 4), round(hi, 4)],
    }


def _by_turn(results: list[dict[str, Any]], key: str, sides: list[str]) -> dict[str, list[float]]:
    longest = max((len(r["by_turn"]) for r in results), default=0)
    out: dict[str, list[float]] = {s: [] for s in sides}
    for t in range(longest):
        for s in sides:
            xs = [float(r["by_turn"][t][key].get(s, 0.0)) for r in results if len(r["by_turn"]) > t]
            out[s].append(round(sum(xs) / len(xs), 3) if xs else math.nan)
    for s in sides:
        xs = [float(r["end"][key].get(s, 0.0)) for r in results]
        out[s].append(round(sum(xs) / len(xs), 3) if xs else math.nan)
    return out


def summarise(results: list[dict[str, Any]], scenario: str) -> dict[str, Any]:
    """The study's table: rates per agent, per side, per agent and side; VP and casualties by
    turn (means; the last point is the end of the game); lengths; illegal actions."""
    if not results:
        return {"scenario": scenario, "games": 0}
    sides = list(results[0]["agents"])
    agents = sorted({a for r in results for a in r["agents"].values()})
    per_agent = {a: [] for a in agents}  # type: dict[str, list[float]]
    per_side = {s: [] for s in sides}  # type: dict[str, list[float]]
    per_pair: dict[str, list[float]] = {}
    for r in results:
        for s, a in r["agents"].items():
            per_agent[a].append(float(r["score"][s]))
            per_side[s].append(float(r["score"][s]))
            per_pair.setdefault(f"{a} as {s}", []).append(float(r["score"][s]))
    turns = [int(r["turns"]) for r in results]
    actions = [int(r["actions"]) for r in results]
    secs = [float(r["seconds"]) for r in results]
    how: dict[str, int] = {}
    for r in results:
        how[r["how"]] = how.get(r["how"], 0) + 1
    return {
        "scenario": scenario,
        "games": len(results),
        "agents": {a: _rate(v) for a, v in per_agent.items()},
        "sides": {s: _rate(v) for s, v in per_side.items()},
        "agent_side": {k: _rate(v) for k, v in sorted(per_pair.items())},
        "draws": sum(1 for r in results if r["winner"] is None),
        "ended_by": how,
        "vp_by_turn": _by_turn(results, "vp", sides),
        "casualties_by_turn": _by_turn(results, "casualties", sides),
        "turns": {"mean": round(sum(turns) / len(turns), 2), "min": min(turns), "max": max(turns)},
        "actions": {
            "mean": round(sum(actions) / len(actions), 1),
            "min": min(actions),
            "max": max(actions),
        },
        "seconds_per_game": round(sum(secs) / len(secs), 2),
        "illegal_actions": sum(int(r["illegal"]) for r in results),
    }


def plots(summary: Mapping[str, Any], results: list[dict[str, Any]], out: Path) -> list[Path]:
    """PNG plots: VP by turn, casualties by turn, game lengths (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files = []
    for key, title in (
        ("vp_by_turn", "Victory points by turn"),
        ("casualties_by_turn", "Casualties by turn"),
    ):
        fig, ax = plt.subplots(figsize=(6, 3.5))
        for side, ys in summary[key].items():
            xs = [*range(1, len(ys)), "end"]
            ax.plot([str(x) for x in xs], ys, marker="o", label=side)
        ax.set_title(f"{summary['scenario']}: {title.lower()} (mean)")
        ax.set_xlabel("game turn (start)")
        ax.legend()
        fig.tight_layout()
        p = out / f"{key}.png"
        fig.savefig(p, dpi=90)
        plt.close(fig)
        files.append(p)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist([int(r["actions"]) for r in results], bins=min(20, max(1, len(results))))
    ax.set_title(f"{summary['scenario']}: game lengths (actions)")
    fig.tight_layout()
    p = out / "lengths.png"
    fig.savefig(p, dpi=90)
    plt.close(fig)
    files.append(p)
    return files


def _table(rows: Mapping[str, Mapping[str, Any]], head: str) -> str:
    body = "".join(
        f"<tr><td>{html.escape(k)}</td><td>{v['games']}</td><td>{v['score']:g}</td>"
        f"<td>{(v['rate'] or 0) * 100:.1f}%</td>"
        f"<td>{v['ci95'][0] * 100:.1f}% – {v['ci95'][1] * 100:.1f}%</td></tr>"
        for k, v in rows.items()
    )
    return (
        f"<table><tr><th>{head}</th><th>games</th><th>score</th><th>rate</th>"
        f"<th>95% CI</th></tr>{body}</table>"
    )


def html_page(summary: Mapping[str, Any], images: list[Path]) -> str:
    """A self-contained page (plots inlined as data URIs)."""
    imgs = "".join(
        f'<img alt="{p.stem}" src="data:image/png;base64,'
        f'{base64.b64encode(p.read_bytes()).decode()}">'
        for p in images
    )
    raw = html.escape(json.dumps(summary, indent=1))
    return f"""<!doctype html><html><head><meta charset="utf-8">
<title>Study: {html.escape(str(summary["scenario"]))}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #999;padding:.2em .6em}}img{{max-width:32%;margin:.3em}}</style></head>
<body><h1>Study of {html.escape(str(summary["scenario"]))}</h1>
<p>{summary["games"]} games, {summary.get("draws", 0)} draws (a draw counts half),
ended by {html.escape(json.dumps(summary.get("ended_by", {})))};
{summary.get("illegal_actions", 0)} illegal actions; turns {summary.get("turns")};
{summary.get("seconds_per_game")} s per game.</p>
<h2>Per agent</h2>{_table(summary.get("agents", {}), "agent")}
<h2>Per side</h2>{_table(summary.get("sides", {}), "side")}
<h2>Per agent and side</h2>{_table(summary.get("agent_side", {}), "agent as side")}
<h2>Plots</h2>{imgs}<h2>Summary</h2><pre>{raw}</pre></body></html>
"""


def write_report(out: Path, scenario: str, plots_too: bool = True) -> dict[str, Any]:
    results = read_results(out / "results.jsonl")
    summary = summarise(results, scenario)
    images: list[Path] = []
    if plots_too and results:
        try:
            images = plots(summary, results, out)
        except ModuleNotFoundError as e:  # matplotlib is an optional extra
            print(
                f"study: no PNG plots ({e.name} is not installed: pip install -e '.[ai]')",
                file=sys.stderr,
            )
    (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    (out / "report.html").write_text(html_page(summary, images))
    return summary


def run_study_command(a: argparse.Namespace) -> int:
    """``grognard study``: play, add to the directory's results, write the report."""
    try:
        sc = find(a.scenario)
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    specs = [s.strip() for s in str(a.agents).split(",")]
    if len(specs) != 2:
        print(f"error: --agents {a.agents!r}: give two agents, A,B", file=sys.stderr)
        return 1
    for s in specs:
        try:
            make_agent(s)
        except ValueError as e:
            print(f"error: --agents: {e}", file=sys.stderr)
            return 1
    if not 1 <= a.start <= max(1, a.games):
        print(
            f"error: --start {a.start}: must be between 1 and --games ({a.games})", file=sys.stderr
        )
        return 1
    out = Path(a.output or f"study-{sc.id}")
    out.mkdir(parents=True, exist_ok=True)
    jobs = jobs_for(
        a.scenario,
        list(sc.sides),
        a.games,
        (specs[0], specs[1]),
        a.seed,
        a.swap,
        a.start,
        a.max_turns,
        a.max_steps,
    )
    path = out / "results.jsonl"
    have = {int(r["game"]): r for r in read_results(path)}
    t0 = time.perf_counter()
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
        transient=False,
    ) as bar:
        task = bar.add_task(f"{sc.id} {specs[0]} v {specs[1]}", total=len(jobs), rate="")

        def progress(r: dict[str, Any]) -> None:
            have[int(r["game"])] = r
            write_results(path, [have[k] for k in sorted(have)])
            done = bar.tasks[0].completed + 1
            rate = done / max(1e-9, time.perf_counter() - t0) * 60
            bar.update(task, advance=1, rate=f"{rate:.2f} games/min")

        try:
            study(jobs, a.backend, max(1, a.jobs), a.address, progress)
        except RuntimeError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    summary = write_report(out, sc.id, plots_too=not a.no_plots)
    for k, v in summary.get("agents", {}).items():
        print(
            f"{k:>16}: {v['score']:g}/{v['games']} = {v['rate']:.3f} (95% CI {v['ci95'][0]:.3f}"
            f"-{v['ci95'][1]:.3f})"
        )
    print(f"report: {out / 'report.html'}")
    return 0
