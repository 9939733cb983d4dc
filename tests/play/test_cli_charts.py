"""The command line's charts, result codes and self-play report, called as a user would."""

from __future__ import annotations

import json
import subprocess
import sys


def grognard(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "grognard.cli", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )


def test_cli_explain_and_chart_name_rule_ids_and_mark_provisional_tables() -> None:
    out = grognard("explain", "HX", "--ruleset", "greatwar")
    assert (
        out.returncode == 0
        and out.stdout.startswith("HX: Half exchange")
        and "(OT 9C1)" in (out.stdout)
    )
    out = grognard("explain", "M/½!", "--ruleset", "lgg1418")
    assert "M: Two losses" in out.stdout and "½: Half a loss" in out.stdout
    assert "!: A result printed in bold" in out.stdout
    listing = grognard("chart", "--ruleset", "lgg1418").stdout
    assert "combat-movement" in listing and "(provisional)" in listing
    chart = grognard("chart", "positional", "--ruleset", "greatwar").stdout
    assert "Positional Ground Combat Results Table" in chart and "PROVISIONAL" in chart
    assert "DX: Defender exchange" in chart and "AL: Attacker loss" in chart
    tec = grognard("chart", "tec", "--ruleset", "greatwar").stdout
    assert "Terrain Effects Chart" in tec and "hex.clear.other: 1 2 1 1 2" in tec
    bad = grognard("explain", "ZZ", "--ruleset", "eastfront").stdout
    assert "no result code 'ZZ'" in bad and "D1R" in bad


def test_cli_selfplay_reports_who_won_each_game() -> None:
    out = grognard(
        "selfplay", "eastfront-tutorial", "--games", "2", "--jobs", "1", "--no-view-check"
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "wins: Axis 2" in out.stdout
    assert "game 1: Axis won (Axis holds 0504, EF 24.0)" in out.stdout
    data = json.loads(
        grognard("selfplay", "eastfront-tutorial", "--games", "2", "--jobs", "1", "--json").stdout
    )
    assert data["wins"] == {"Axis": 2}
    assert [r["winner"] for r in data["results"]] == ["Axis", "Axis"]
