"""The engine's collector setting (grognard.core.collector)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

from grognard.core import collector
from grognard.core.game import Game
from grognard.scenario import load_scenario

CODE = (
    "import gc, sys\n"
    "from grognard.core.game import Game\n"
    "from grognard.scenario import find\n"
    "{before}\n"
    "Game.new(find('gw-tutorial'), 1)\n"
    "print(gc.get_threshold())\n"
)


def _run(before: str = "", env: dict[str, str] | None = None) -> str:
    e = dict(os.environ)
    e.pop("GROGNARD_GC", None)
    e.update(env or {})
    r = subprocess.run(
        [sys.executable, "-c", CODE.format(before=before)],
        capture_output=True,
        text=True,
        env=e,
        check=True,
    )
    return r.stdout.strip().splitlines()[-1]


def test_the_first_game_raises_the_youngest_generations_threshold() -> None:
    assert _run() == str((collector.GEN0_THRESHOLD, 10, 10))


def test_an_application_that_set_its_own_thresholds_keeps_them() -> None:
    assert _run("gc.set_threshold(1234, 5, 6)") == "(1234, 5, 6)"


def test_grognard_gc_python_keeps_pythons_defaults() -> None:
    assert _run(env={"GROGNARD_GC": "python"}) == "(700, 10, 10)"


def test_the_collector_still_frees_dropped_clones(tiny_path: Path) -> None:
    """Copies of a state dropped by search are reclaimed (the threshold is raised, not off)."""
    g = Game.new(load_scenario(tiny_path), 1)
    assert gc.isenabled()
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(200):
        g.clone()
    gc.collect()
    assert len(gc.get_objects()) < before + 1000
