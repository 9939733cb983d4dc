"""Shared test fixtures: the tiny test rule system is registered for every test."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import tests.tinyrules  # noqa: E402,F401  (registers the "tiny" rule system)

# property tests are judged on their answers, not on their speed: a loaded CI machine must not
# turn a slow example into a failure
settings.register_profile("no-deadline", deadline=None)
settings.load_profile("no-deadline")

TINY = ROOT / "tests" / "tinyrules" / "scenarios" / "duel.toml"


@pytest.fixture
def tiny_path() -> Path:
    return TINY


@pytest.fixture
def cli_env() -> dict[str, str]:
    """Environment for running the ``grognard`` command with the tiny rule system available."""
    env = dict(os.environ)
    env["GROGNARD_PLUGINS"] = "tests.tinyrules"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


# the files of the suite's longest tests (10-50 s each on a 2-core machine): run first, so that
# the two processes (pytest-xdist) do not end with one of them still running a long test alone
LONG_FIRST = (
    "tests/browser/test_wargamer.py",
    "tests/test_lint.py",
    "tests/ai/test_study.py",
    "tests/greatwar/test_supply_cache.py",
    "tests/server/test_ai_seats.py",
    "tests/lgg1418/test_memo_guard.py",
    "tests/greatwar/test_listing_incremental.py",
    "tests/greatwar/test_listing_memo.py",
    "tests/fuzz/test_fuzz.py",
    "tests/core/test_cli.py",
    "tests/browser/test_perf.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the tests of :data:`LONG_FIRST` to the front, in that order, the rest unchanged."""
    rank = {name: k for k, name in enumerate(LONG_FIRST)}

    def key(item: pytest.Item) -> int:
        return rank.get(item.nodeid.split("::", 1)[0], len(LONG_FIRST))

    items.sort(key=key)  # stable: the order within each group stays the collection's
