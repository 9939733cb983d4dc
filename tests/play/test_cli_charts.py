"""The command line's charts, result codes and self-play report, called as a user would."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from grognard.cli import main


def grognard(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "grognard.cli", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )


def in_process(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """What ``grognard ARGS`` prints, run in this process (the verb's code, without the cost
    of starting an interpreter for each call)."""
    capsys.readouterr()
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_cli_explain_and_chart_name_rule_ids_and_mark_provisional_tables(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = grognard("explain", "HX", "--ruleset", "greatwar")  # once as a user runs it
    assert (
        out.returncode == 0
        and out.stdout.startswith("HX: Half exchange")
        and "(OT 9C1)" in (out.stdout)
    )
    text = in_process(capsys, "explain", "M/½!", "--ruleset", "lgg1418")
    assert "M: Two losses" in text and "½: Half a loss" in text
    assert "!: A result printed in bold" in text
    listing = in_process(capsys, "chart", "--ruleset", "lgg1418")
    assert "combat-movement" in listing and "(provisional)" in listing
    chart = in_process(capsys, "chart", "positional", "--ruleset", "greatwar")
    assert "Positional Ground Combat Results Table" in chart and "PROVISIONAL" in chart
    assert "DX: Defender exchange" in chart and "AL: Attacker loss" in chart
    tec = in_process(capsys, "chart", "tec", "--ruleset", "greatwar")
    assert "Terrain Effects Chart" in tec and "hex.clear.other: 1 2 1 1 2" in tec
    capsys.readouterr()
    main(["explain", "ZZ", "--ruleset", "eastfront"])
    bad = capsys.readouterr().out
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
