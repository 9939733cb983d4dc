"""The computer as a player of hosted games: a worker thread that plays the sides given to it.

A side is given to the computer when the game is created ("play against the computer" in the
lobby: ``ai = {SIDE: LEVEL}``) or later as a stand-in for an absent player
(``POST /api/games/{id}/ai``). After every change of a game the worker is told (``kick``); it
takes a clone of the game under the game's lock, thinks *outside* the lock on the clone (other
games, and the other side's requests to this one, go on meanwhile), then applies its action
through :meth:`GameService.act` exactly as a player's, unless the game moved on in between (it
then thinks again). Every action it plays is listed with its number, side and agent
(``GET /api/games/{id}/ai``): the log of the computer's moves. The assignments live in the
server's memory: after a restart they are given again.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from grognard.ai.agents import LEVELS, make_agent

if TYPE_CHECKING:
    from grognard.server.service import GameService

log = logging.getLogger("grognard.server.ai")
MAX_MOVES_PER_KICK = 5000


def agent_spec(level: str) -> str:
    """``easy|normal|hard`` (the planner's levels) or an agent spec (``greedy``...)."""
    spec = f"planner:{level}" if level in LEVELS else level
    make_agent(spec)  # refuses an unknown one with a clear message
    return spec


@dataclass
class Seats:
    """The computer's sides in one game and the moves it made there."""

    sides: dict[str, str] = field(default_factory=dict)  # side -> agent spec
    moves: list[dict[str, Any]] = field(default_factory=list)  # {"n", "side", "agent"}


class AIWorker:
    """One background thread playing every computer side of every game (see the module)."""

    def __init__(self, service: GameService, on_moved: Callable[[str], None] | None = None) -> None:
        self.service = service
        self.on_moved = on_moved
        self.games: dict[str, Seats] = {}
        self._lock = threading.Lock()
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._idle = threading.Event()
        self._idle.set()
        self._thread = threading.Thread(target=self._run, name="grognard-ai", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ seats
    def assign(self, game_id: str, side: str, level: str | None) -> dict[str, Any]:
        """Give ``side`` to the computer at ``level`` (None: give it back to its player)."""
        g = self.service.entry(game_id).game
        if side not in g.state.sides:
            raise ValueError(f"no side {side!r} in this game (sides: {', '.join(g.state.sides)})")
        with self._lock:
            seats = self.games.setdefault(game_id, Seats())
            if level is None:
                seats.sides.pop(side, None)
            else:
                seats.sides[side] = agent_spec(level)
        self.kick(game_id)
        return self.describe(game_id)

    def describe(self, game_id: str) -> dict[str, Any]:
        with self._lock:
            seats = self.games.get(game_id, Seats())
            return {"sides": dict(seats.sides), "moves": list(seats.moves)}

    # ------------------------------------------------------------------ the worker
    def kick(self, game_id: str) -> None:
        """Something changed in the game: play the computer's sides if they must act."""
        with self._lock:
            if not self.games.get(game_id, Seats()).sides:
                return
        self._idle.clear()
        self._queue.put(game_id)

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Block until the worker has nothing left to do (tests)."""
        return self._idle.wait(timeout)

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            game_id = self._queue.get()
            if game_id is None:
                return
            try:
                self.play(game_id)
            except Exception:  # one game's failure must not stop the others' computer
                log.exception("the computer failed to play in game %s", game_id)
            finally:
                if self._queue.empty():
                    self._idle.set()

    def play(self, game_id: str) -> int:
        """Play the computer's sides of the game while one of them must act; returns how many
        actions it made."""
        made = 0
        for _ in range(MAX_MOVES_PER_KICK):
            with self._lock:
                sides = dict(self.games.get(game_id, Seats()).sides)
            e = self.service.entry(game_id)
            with e.lock:
                g = e.game
                side = next((s for s in g.acting_sides() if s in sides), None)
                if side is None:
                    return made
                n = len(g.actions)
                snapshot = g.clone()
            seed = int.from_bytes(hashlib.sha256(f"{game_id}:{n}".encode()).digest()[:6], "big")
            action = make_agent(sides[side], seed).choose(snapshot, side)
            with e.lock:
                if len(e.game.actions) != n:
                    continue  # the game moved on while the computer thought: think again
                self.service.act(game_id, side, action)
                with self._lock:
                    self.games[game_id].moves.append(
                        {"n": n + 1, "side": side, "agent": sides[side]}
                    )
            made += 1
            if self.on_moved is not None:
                self.on_moved(game_id)
        return made
