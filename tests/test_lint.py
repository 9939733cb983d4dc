"""The whole project stays ruff clean (the configuration is in pyproject.toml)."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_is_clean() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is part of the test extras: pip install -e '.[test]'"
    r = subprocess.run(
        [ruff, "check", "src", "tests", "benchmarks"], cwd=ROOT, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_is_clean() -> None:
    """The tree is formatted by ``ruff format`` (line length from pyproject.toml)."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is part of the test extras: pip install -e '.[test]'"
    r = subprocess.run(
        [ruff, "format", "--check", "src", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_tests_run_the_command_line_through_this_python() -> None:
    """Tests run ``sys.executable -m grognard.cli``, never a bare ``grognard``: the command is not
    on PATH when the suite runs as ``.venv/bin/python -m pytest`` without activating the venv."""
    bare = re.compile(r"""\[\s*["']grognard["']\s*,""")
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in sorted((ROOT / "tests").rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
        if bare.search(line)
    ]
    assert not found, "bare 'grognard' command in: " + ", ".join(found)


def test_mypy_is_clean() -> None:
    """mypy finds no error in ``src/`` (configuration in pyproject.toml: strict on the core)."""
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
