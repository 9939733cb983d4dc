"""The computer as a player of hosted games: worker threads that play the sides given to it.

A side is given to the computer when the game is created ("play against the computer" in the
lobby: ``ai = {SIDE: LEVEL}``) or later as a stand-in for an absent player
(``POST /api/games/{id}/ai``; ``level: null`` gives the side back).

The seats live in the database (table ``ai_seats``, schema version 6), not in a process's
memory: a restarted server, and every process of ``--workers N`` over one database, knows which
sides the computer plays. After every change of a game its process's worker is told (``kick``);
a worker thread reads the game's seats from the database, takes a clone of the game under the
game's lock, thinks *outside* the lock on the clone (other games, and the other side's requests
to this one, go on meanwhile), then applies its action through :meth:`GameService.act` exactly
as a player's, but only in the position it thought about (``at``): if the game moved on in
between, here or in another process, it thinks again. A process starting up resumes the games
whose stored status has a computer's side to act (:meth:`AIWorker.resume`); when several
processes think about the same position, the first to store its action wins and the others see
the game moved on.

Every action the computer plays is stored with its agent (``actions.agent``): the log of the
computer's moves, ``GET /api/games/{id}/ai``, is read from there, so it survives restarts too
and an undone move leaves it with its action.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from grognard.ai.agents import LEVELS, make_agent
from grognard.server.service import Conflict, position

if TYPE_CHECKING:
    from grognard.server.service import GameService

log = logging.getLogger("grognard.server.ai")
MAX_MOVES_PER_KICK = 5000
THREADS = 2  # games the computer thinks about at once (one long think does not hold up others)


def agent_spec(level: str) -> str:
    """``easy|normal|hard`` (the planner's levels) or an agent spec (``greedy``...)."""
    spec = f"planner:{level}" if level in LEVELS else level
    make_agent(spec)  # refuses an unknown one with a clear message
    return spec


@dataclass
class Seats:
    """The computer's sides in one game and the moves it made there (as stored)."""

    sides: dict[str, str] = field(default_factory=dict)  # side -> agent spec
    moves: list[dict[str, Any]] = field(default_factory=list)  # {"n", "side", "agent"}

    def json(self) -> dict[str, Any]:
        return {"sides": dict(self.sides), "moves": list(self.moves)}


class AIWorker:
    """Threads playing every computer side of every game of one process (see the module)."""

    def __init__(
        self,
        service: GameService,
        on_moved: Callable[[str], None] | None = None,
        threads: int = THREADS,
    ) -> None:
        self.service = service
        self.on_moved = on_moved
        self._cv = threading.Condition()
        self._queue: deque[str] = deque()  # games to look at, each once
        self._queued: set[str] = set()
        self._busy: set[str] = set()  # games a thread plays now (one thread per game)
        self._again: set[str] = set()  # busy games kicked meanwhile: looked at once more after
        self._stopping = False
        self._threads = [
            threading.Thread(target=self._run, name=f"grognard-ai-{k}", daemon=True)
            for k in range(max(1, threads))
        ]
        for t in self._threads:
            t.start()

    # ------------------------------------------------------------------ seats
    def assign(self, game_id: str, side: str, level: str | None) -> dict[str, Any]:
        """Give ``side`` to the computer at ``level`` (None: give it back to its player); stored
        in the database at once."""
        g = self.service.entry(game_id).game
        if side not in g.state.sides:
            raise ValueError(f"no side {side!r} in this game (sides: {', '.join(g.state.sides)})")
        self.service.store.set_ai_seat(game_id, side, None if level is None else agent_spec(level))
        self.kick(game_id)
        return self.describe(game_id)

    def seats(self, game_id: str) -> Seats:
        store = self.service.store
        return Seats(store.ai_seats(game_id), store.ai_moves(game_id))

    def describe(self, game_id: str) -> dict[str, Any]:
        return self.seats(game_id).json()

    # ------------------------------------------------------------------ the workers
    def kick(self, game_id: str) -> None:
        """Something changed in the game: play the computer's sides if they must act (the seats
        are read by a worker thread, never by the caller, which may hold the game's lock)."""
        with self._cv:
            if game_id in self._busy:
                self._again.add(game_id)
            elif game_id not in self._queued:
                self._queued.add(game_id)
                self._queue.append(game_id)
                self._cv.notify()

    def resume(self) -> list[str]:
        """Look at every game whose stored status has a side of the computer to act (a process
        starting up: the moves a stopped process did not make are made now); the games kicked."""
        waiting = self.service.store.ai_waiting()
        for game_id in waiting:
            self.kick(game_id)
        return waiting

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Block until the workers have nothing left to do, or are stopped (tests)."""
        with self._cv:
            return self._cv.wait_for(
                lambda: self._stopping or (not self._queue and not self._busy), timeout
            )

    def stop(self) -> None:
        with self._cv:
            self._stopping = True
            self._cv.notify_all()
        for t in self._threads:
            t.join(timeout=10)

    def _run(self) -> None:
        while True:
            with self._cv:
                self._cv.wait_for(lambda: self._queue or self._stopping)
                if self._stopping:
                    return
                game_id = self._queue.popleft()
                self._queued.discard(game_id)
                self._busy.add(game_id)
            try:
                self.play(game_id)
            except Exception:  # one game's failure must not stop the others' computer
                log.exception("the computer failed to play in game %s", game_id)
            finally:
                with self._cv:
                    self._busy.discard(game_id)
                    if game_id in self._again:
                        self._again.discard(game_id)
                        if game_id not in self._queued:
                            self._queued.add(game_id)
                            self._queue.append(game_id)
                    self._cv.notify_all()

    def play(self, game_id: str) -> int:
        """Play the computer's sides of the game while one of them must act; returns how many
        actions it made."""
        made = 0
        for _ in range(MAX_MOVES_PER_KICK):
            if self._stopping:
                return made
            sides = self.service.store.ai_seats(game_id)
            if not sides:
                return made
            with self.service.locked(game_id) as e:
                g = e.game
                side = next((s for s in g.acting_sides() if s in sides), None)
                if side is None:
                    return made
                n = len(g.actions)
                at = position(g)
                snapshot = g.clone()
            seed = int.from_bytes(hashlib.sha256(f"{game_id}:{n}".encode()).digest()[:6], "big")
            action = make_agent(sides[side], seed).choose(snapshot, side)
            try:
                self.service.act(game_id, side, action, agent=sides[side], at=at)
            except Conflict:
                continue  # the game moved on while the computer thought: think again
            made += 1
            if self.on_moved is not None:
                self.on_moved(game_id)
        return made
