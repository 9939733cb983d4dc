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
