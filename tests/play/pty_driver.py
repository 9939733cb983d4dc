"""Drive ``grognard play`` through a pseudo-terminal, as a player at a keyboard would.

The program runs with a real terminal on its standard input and output (so ``rich`` and
``input`` behave as for a person); :meth:`Terminal.expect` waits for a text to appear in what
it printed (colour codes stripped), :meth:`Terminal.send` types a line. The time limits only
stop a hung program; no test measures time.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Z0-9]|\r")
ROOT = Path(__file__).resolve().parents[2]


class Terminal:
    def __init__(self, args: Sequence[str], columns: int = 120, lines: int = 50) -> None:
        master, slave = pty.openpty()
        env = dict(os.environ, COLUMNS=str(columns), LINES=str(lines), TERM="xterm")
        env.pop("NO_COLOR", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "grognard.cli", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=ROOT,
            close_fds=True,
        )
        os.close(slave)
        self.fd = master
        self.text = ""  # everything printed so far, colour codes removed
        self.mark = 0  # expect() searches from here

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # the program ended and closed the terminal
            return False
        if not data:
            return False
        self.text += ANSI.sub("", data.decode("utf-8", "replace"))
        return True

    def expect(self, needle: str, limit: float = 300.0) -> str:
        """Wait until ``needle`` appears after the previous match; return the text up to it."""
        waited = 0.0
        while True:
            k = self.text.find(needle, self.mark)
            if k >= 0:
                seen = self.text[self.mark : k + len(needle)]
                self.mark = k + len(needle)
                return seen
            if not self._read(0.5):
                waited += 0.5
                if self.proc.poll() is not None and not self._read(0.1):
                    raise AssertionError(
                        f"program ended before printing {needle!r}:\n{self.text[-4000:]}"
                    )
                if waited > limit:
                    raise AssertionError(f"{needle!r} not printed:\n{self.text[-4000:]}")

    def send(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode("utf-8"))

    def answer(self, prompt: str, line: str) -> str:
        """Wait for ``prompt``, then type ``line``; return what was printed before the prompt."""
        seen = self.expect(prompt)
        self.send(line)
        return seen

    def close(self) -> int:
        try:
            rc = self.proc.wait(timeout=60)
        finally:
            while self._read(0.1):
                pass
            os.close(self.fd)
        return rc

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
