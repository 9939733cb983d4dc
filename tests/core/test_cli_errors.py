"""The command line, run in this process: bad input gets one clear line and changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grognard.cli import EXIT_BROKEN_PIPE, EXIT_ILLEGAL, main

ROOT = Path(__file__).resolve().parents[2]


def new_game(tiny_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    save = tmp_path / "g.json"
    assert main(["new", str(tiny_path), "--seed", "4", "-o", str(save)]) == 0
    capsys.readouterr()
    return save


@pytest.mark.parametrize(
    "action",
    [
        '{"type": "commit", "key": "posture", "value": "bold", "x": "\\ud800"}',
        '{"type": "commit", "key": "posture", "value": "\\udfff", "side": "Blue"}',
        # a command-line byte that is not UTF-8 reaches Python as a lone surrogate
        '{"type": "commit", "key": "posture", "value": "bold", "side": "Blue", "x": "\udcff"}',
    ],
)
def test_do_refuses_a_lone_surrogate_in_the_action(
    tiny_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], action: str
) -> None:
    save = new_game(tiny_path, tmp_path, capsys)
    before = save.read_bytes()
    assert main(["do", str(save), action]) == EXIT_ILLEGAL
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "lone UTF-16 surrogate" in err[0] and "[core:action]" in err[0]
    assert save.read_bytes() == before
    assert json.loads(before)["actions"] == []


def test_actions_prints_a_numbered_labelled_list_and_do_takes_a_number(
    tiny_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save = new_game(tiny_path, tmp_path, capsys)
    assert main(["actions", str(save)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "Blue:",
        "  1. Commit bold as your secret choice for posture",
        "  2. Commit careful as your secret choice for posture",
        "Red:",
        "  3. Commit bold as your secret choice for posture",
        "  4. Commit careful as your secret choice for posture",
        "(do SAVE N applies action N; --json lists the actions as data)",
    ]
    assert main(["actions", str(save), "--side", "Red"]) == 0
    assert capsys.readouterr().out.splitlines()[:3] == [
        "Red:",
        "  3. Commit bold as your secret choice for posture",
        "  4. Commit careful as your secret choice for posture",
    ]
    assert main(["actions", str(save), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["acting"] == ["Blue", "Red"] and len(data["actions"]["Red"]) == 2
    assert main(["do", str(save), "4"]) == 0
    assert "Red commits a secret choice (posture)" in capsys.readouterr().out
    saved = json.loads(save.read_text(encoding="utf-8"))
    assert saved["actions"] == [
        {"type": "commit", "side": "Red", "key": "posture", "value": "careful"}
    ]
    before = save.read_bytes()
    for bad in ("0", "3", "99"):
        assert main(["do", str(save), bad]) == EXIT_ILLEGAL
        err = capsys.readouterr().err.strip()
        assert err == f"illegal: no action {bad}: 'grognard actions' lists 1 to 2 now [core:action]"
    assert save.read_bytes() == before


@pytest.mark.parametrize("verb", [["show"], ["actions"], ["show", "--json"]])
def test_a_reader_that_goes_away_gets_no_traceback(
    tiny_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], verb: list[str]
) -> None:
    """``grognard show SAVE | head``: the pipe closes before the command writes."""
    save = new_game(tiny_path, tmp_path, capsys)
    env = dict(os.environ, GROGNARD_PLUGINS="tests.tinyrules")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    read, write = os.pipe()
    os.close(read)  # no reader at all: the first write fails with EPIPE
    try:
        p = subprocess.run(
            [sys.executable, "-m", "grognard.cli", verb[0], str(save), *verb[1:]],
            stdout=write,
            stderr=subprocess.PIPE,
            env=env,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write)
    assert p.stderr.decode() == ""
    assert p.returncode == EXIT_BROKEN_PIPE
