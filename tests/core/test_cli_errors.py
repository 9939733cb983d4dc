"""The command line, run in this process: bad input gets one clear line and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grognard.cli import EXIT_ILLEGAL, main


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
