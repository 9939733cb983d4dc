"""Fixtures for the browser tests: a live server in a thread and Debian's headless Chromium.

These tests never skip: if Playwright or ``/usr/bin/chromium`` is missing they fail,
naming what to install (``scripts/install-browser-deps.sh``).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tests.server.uirules
import tests.tinyrules  # noqa: F401  (registers tiny)

CHROMIUM = os.environ.get("GROGNARD_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
SCENARIO_DIRS = [
    ROOT / "tests" / "tinyrules" / "scenarios",
    ROOT / "tests" / "server" / "scenarios",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """A uvicorn server running the app in a background thread."""

    def __init__(self, db: Path, scenario_dirs: list[Path]) -> None:
        import uvicorn

        from grognard.server.app import create_app
        from grognard.server.cli import ws_impl

        self.app = create_app(db, scenario_dirs=[str(d) for d in scenario_dirs])
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cfg = uvicorn.Config(
            self.app, host="127.0.0.1", port=self.port, log_level="warning", ws=ws_impl()
        )
        self.server = uvicorn.Server(cfg)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(15)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Python playwright is not installed (run scripts/install-browser-deps.sh)")
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} is missing (run scripts/install-browser-deps.sh: apt-get install chromium)"
        )
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "games.sqlite", SCENARIO_DIRS) as srv:
        yield srv


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """Open pages, each in its own browser profile (separate local storage, like two players)."""
    contexts = []
    errors: list[str] = []

    def make() -> Any:
        # The app's CSP forbids eval; Playwright's wait_for_function needs it, so tests bypass CSP.
        ctx = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_default_timeout(90000)  # a loaded 2-core CI machine is slow, not wrong
        return page

    yield make
    for c in contexts:
        c.close()
    assert not errors, f"JavaScript errors in the page: {errors}"


def choose_scenario(page: Any, scenario: str) -> None:
    """Pick ``scenario`` in the lobby's form and wait until the form shows its rule options (they
    come from the server and push the fields below them down: a click before they arrive may
    land on the wrong field)."""
    page.select_option("#scenario", scenario)
    page.wait_for_function("id => window.__grognard.optionsShown === id", arg=scenario)
