"""The ASGI application: REST lobby and game API, WebSocket pushes, the static browser client.

Authentication is per side: ``Authorization: Bearer TOKEN`` on REST calls, and a first
``{"token": ...}`` message on the WebSocket (so tokens never appear in URLs or access
logs; the browser keeps them in the page's ``#fragment`` and local storage).

After every accepted change to a game (action, undo, standing orders that acted) the
server pushes a fresh state to every connected socket of that game, whichever side it
belongs to and whatever changed, so the timing of pushes tells a side nothing it
could not already see.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import os
import re
import secrets
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import msgspec
from fastapi import Body, FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grognard import __version__
from grognard.core.inbound import MAX_DEPTH, problem
from grognard.server import client_api
from grognard.server.ai_worker import AIWorker
from grognard.server.db import PostgresBackend, Store, is_postgresql
from grognard.server.keys import KeyFileError, default_key_file, load_or_create_key
from grognard.server.service import GameService, Illegal, Malformed, ServiceError
from grognard.server.standing import StandingOrders

log = logging.getLogger("grognard.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
MAX_BODY = 256 * 1024
MAX_IMPORT = 16 * 1024 * 1024
WS_AUTH_SECONDS = 15
CLIENT_SUFFIXES = (".html", ".js", ".css", ".svg", ".png")
POLL_SECONDS = 0.1
PUSH_THREADS = 2
PRESENCE_REFRESH = 10.0
# at shutdown, how long the watcher and the pushes still due may take before they are cancelled
STOP_SECONDS = 10.0
CONFIG_ENV = "GROGNARD_SERVER_CONFIG"

Scalar = str | int | float | bool
Auth = Annotated[str | None, Header(description="Bearer TOKEN of one side")]
KEY_CHARS = r"[\x21-\x7e]"  # an idempotency key: 1-200 visible ASCII characters
KEY_PATTERN = re.compile(f"{KEY_CHARS}{{1,200}}")

IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=200,
        pattern=f"^{KEY_CHARS}+$",
        description=(
            "A key of the client's choice (1-200 visible ASCII characters), new for each action:"
            " the same action sent again with the same key is applied once"
        ),
    ),
]


# ============================================================================ request models
class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateGame(Strict):
    scenario: str = Field(
        min_length=1, max_length=200, description="Scenario id (see GET /api/scenarios)"
    )
    seed: int | None = Field(
        default=None, ge=1, le=2**62, description="Dice seed (random when omitted)"
    )
    options: dict[str, Scalar] = Field(default_factory=dict, description="Rule option choices")
    hotseat: bool = Field(default=False, description="Both sides play in one browser")
    ai: dict[str, str] = Field(
        default_factory=dict,
        description="Play against the computer: side -> level (easy, normal, hard)",
    )


class AISeat(Strict):
    side: str = Field(min_length=1, max_length=100, description="The side the computer plays")
    level: str | None = Field(
        default="normal", max_length=40, description="easy, normal, hard; null: give it back"
    )


class SeatLink(BaseModel):
    token: str
    link: str


class CreatedGame(BaseModel):
    game: str
    scenario: str
    hotseat: bool
    sides: dict[str, SeatLink]


class Join(Strict):
    player: str = Field(default="", max_length=60, description="A name shown to the other side")


class MyGames(Strict):
    tokens: list[Annotated[str, Field(max_length=200)]] = Field(max_length=200)


class ActionBody(Strict):
    action: dict[str, Any] = Field(
        description="A legal action as listed in 'legal' (its 'side' may be omitted)"
    )

    @field_validator("action")
    @classmethod
    def _text_only(cls, v: dict[str, Any]) -> dict[str, Any]:
        bad = problem(v, "action")
        if bad is not None:
            raise PydanticCustomError("unusable", bad)
        return v


class ImportBody(Strict):
    save: dict[str, Any] = Field(
        description="A save or record this server signed (GET /api/games/{id}/record)"
    )
    hotseat: bool = Field(default=False, description="Both sides play in one browser")


class ReachBody(Strict):
    pieces: list[Annotated[str, Field(max_length=200)]] = Field(min_length=1, max_length=100)


class ErrorBody(BaseModel):
    error: str
    message: str
    rule: str | None = None


HTTP_CODES = {
    400: "bad-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    406: "not-acceptable",
    411: "length-required",
    413: "too-large",
    415: "unsupported-media-type",
    422: "bad-request",
}

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody},
    403: {"model": ErrorBody},
    404: {"model": ErrorBody},
    409: {"model": ErrorBody, "description": "Illegal action (with the rule id) or a conflict"},
}


_ENCODER = msgspec.json.Encoder()


class SafeJSONResponse(JSONResponse):
    """A JSON answer that always encodes: text that is not Unicode (a lone surrogate kept from
    before such text was refused) is sent as a JSON escape instead of failing the answer."""

    def render(self, content: Any) -> bytes:
        try:
            return _ENCODER.encode(content)  # the same JSON, compact, several times faster
        except (TypeError, ValueError, OverflowError):
            pass  # a value msgspec does not take (a lone surrogate, an unknown type)
        try:
            return super().render(content)
        except UnicodeEncodeError:
            return json.dumps(
                content, ensure_ascii=True, allow_nan=False, indent=None, separators=(",", ":")
            ).encode("ascii")


def encode_json(content: Any) -> bytes:
    """``content`` as :class:`SafeJSONResponse` encodes it (to encode a large answer on a
    worker thread rather than on the event loop)."""
    return SafeJSONResponse(None).render(content)


class BodyLimit:
    """Refuse request bodies larger than :data:`MAX_BODY` (:data:`MAX_IMPORT` for an imported
    save), or of unknown length, before reading them (a plain ASGI middleware: no task or
    stream of its own per request)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal: JSONResponse | None = None
        if "chunked" in headers.get("transfer-encoding", "").lower():
            refusal = JSONResponse(
                {"error": "length-required", "message": "send a Content-Length"}, 411
            )
        else:
            size = headers.get("content-length")
            limit = MAX_IMPORT if scope["path"] == "/api/games/import" else MAX_BODY
            if size is not None and (not size.isdigit() or int(size) > limit):
                refusal = JSONResponse(
                    {"error": "too-large", "message": f"request body over {limit} bytes"}, 413
                )
        if refusal is not None:
            await refusal(scope, receive, send)  # the outer SecurityHeaders heads it
            return
        await self.app(scope, receive, send)


class ClientAssets(StaticFiles):
    """The browser client's files (:data:`CLIENT_SUFFIXES`) and nothing else of the folder (its
    ``__init__.py``, caches, hidden files answer 404)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        name = Path(path)
        if name.suffix not in CLIENT_SUFFIXES or any(
            part.startswith((".", "_")) for part in name.parts
        ):
            raise StarletteHTTPException(404, "Not Found")
        return await super().get_response(path, scope)


class SecurityHeaders:
    """No caching of game data, no framing, no referrer (join links carry tokens in the
    fragment); added to every HTTP answer as it starts (a plain ASGI middleware)."""

    HEADERS = (
        ("Referrer-Policy", "no-referrer"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        (
            "Content-Security-Policy",
            "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src"
            " 'self'; script-src 'self'; frame-ancestors 'none'",
        ),
    )

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    @classmethod
    def wrap(cls, scope: Scope, send: Send) -> Send:
        api = str(scope.get("path", "")).startswith("/api/")

        async def send_headed(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for k, v in cls.HEADERS:
                    headers.setdefault(k, v)
                if api:
                    headers.setdefault("Cache-Control", "no-store")
            await send(message)

        return send_headed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, self.wrap(scope, send))


# ============================================================================ pushes
class Client:
    def __init__(self, ws: WebSocket, side: str) -> None:
        self.ws = ws
        self.side = side
        self.log_len = 0
        self.lock = asyncio.Lock()


class Hub:
    """The sockets this process has open, per game, and the pushes to them.

    A change made here pushes at once (:meth:`changed`); a change made by another process sharing
    the database is seen by :meth:`watch`, which compares the stored revision of every game with
    a socket open here against the last one pushed (PostgreSQL also wakes it at once with a
    notification). Pushes of one game never overlap: changes that come while one is being sent
    are sent together after it.
    """

    def __init__(self, service: GameService, poll: float = POLL_SECONDS) -> None:
        self.service = service
        self.poll = poll
        self.clients: dict[str, set[Client]] = {}
        self.pushed: dict[str, int] = {}
        self._want: dict[str, int] = {}
        self._done: dict[str, int] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._wake: asyncio.Event | None = None
        self._stopping = False
        # pushes build their states on at most PUSH_THREADS threads at a time: under load the
        # answers to requests are not kept waiting for a thread (pushes of one game coalesce)
        self._building = asyncio.Semaphore(PUSH_THREADS)

    def add(self, game_id: str, c: Client) -> None:
        self.clients.setdefault(game_id, set()).add(c)

    def remove(self, game_id: str, c: Client) -> None:
        s = self.clients.get(game_id)
        if s is not None:
            s.discard(c)
            if not s:
                del self.clients[game_id]
                self.pushed.pop(game_id, None)
                if game_id not in self._tasks or self._tasks[game_id].done():
                    self._tasks.pop(game_id, None)
                    self._want.pop(game_id, None)
                    self._done.pop(game_id, None)

    def sockets(self, game_id: str, side: str) -> int:
        return sum(1 for c in self.clients.get(game_id, set()) if c.side == side)

    def connected(self, game_id: str) -> list[str]:
        """The sides with a page open on this game, on this process or another."""
        here = {c.side for c in self.clients.get(game_id, set())}
        return sorted(here | self.service.store.connected_sides(game_id))

    def _state(self, game_id: str, side: str, log_from: int, full: bool = True) -> dict[str, Any]:
        state = self.service.state_for(game_id, side, log_from, full)
        state["connected"] = self.connected(game_id)
        return state

    def _state_text(self, game_id: str, side: str, log_from: int) -> tuple[str, int]:
        """The push for ``side`` as JSON text (encoded off the event loop) and its log length:
        its legal actions as families only (the flat list is asked for, see ``/legal``)."""
        state = self._state(game_id, side, log_from, False)
        return encode_json(state).decode("utf-8"), int(state["log_len"])

    async def send_state(self, game_id: str, c: Client) -> None:
        async with c.lock, self._building:
            text, c.log_len = await anyio.to_thread.run_sync(
                self._state_text, game_id, c.side, c.log_len
            )
            await c.ws.send_text(text)

    def changed(self, game_id: str, revision: int | None = None) -> None:
        """Push the game to its sockets here soon. With the ``revision`` the watcher saw: only if
        no push has read that revision yet, nor is due to read it."""
        if game_id not in self.clients:
            return
        if revision is not None and (
            self.pushed.get(game_id, -1) >= revision
            or self._done.get(game_id, 0) < self._want.get(game_id, 0)
        ):
            return  # pushed already, or a push that will read the revision is due
        self._want[game_id] = self._want.get(game_id, 0) + 1
        task = self._tasks.get(game_id)
        if task is None or task.done():
            self._tasks[game_id] = asyncio.get_running_loop().create_task(self._push(game_id))

    async def touch(self, game_id: str) -> None:
        """After a change made here: push it unless a push has read its revision already (the
        watcher may have seen it first) or is due to."""
        if game_id not in self.clients:
            return
        try:
            rev = await anyio.to_thread.run_sync(self.service.store.revision, game_id)
        except Exception:
            log.exception("game %s: reading its revision failed", game_id)
            rev = None
        self.changed(game_id, rev)

    async def _push(self, game_id: str) -> None:
        while self._done.get(game_id, 0) < self._want.get(game_id, 0):
            target = self._want.get(game_id, 0)
            try:
                rev = await anyio.to_thread.run_sync(self.service.store.revision, game_id)
            except Exception:
                log.exception("game %s: reading its revision failed", game_id)
                self._done[game_id] = target
                return
            self._done[game_id] = target
            if rev is not None:
                self.pushed[game_id] = max(rev, self.pushed.get(game_id, -1))
            await self.broadcast(game_id)

    async def broadcast(self, game_id: str) -> None:
        """Push to every socket of the game here, every side, after any change: first the sides
        not to act (their state needs no listing of legal actions, so it is sent sooner), then
        those to act (each state is the same whatever the order)."""
        acting = set(self.service.acting_hint(game_id))
        clients = sorted(self.clients.get(game_id, set()), key=lambda c: c.side in acting)
        for c in clients:
            try:
                await self.send_state(game_id, c)
            except Exception:  # a dead socket must not stop the others
                self.remove(game_id, c)

    async def idle(self) -> None:
        """Wait until every push asked for so far has been sent (tests, shutdown)."""
        while any(not t.done() for t in self._tasks.values()):
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    def stop(self) -> None:
        """Ask :meth:`watch` to end (it does at its next wake-up). A flag rather than only a
        cancellation: on Python 3.11, ``asyncio.wait_for`` loses a cancellation that comes as
        the event it waits for is set, which a PostgreSQL notification can do at any time."""
        self._stopping = True
        if self._wake is not None:
            self._wake.set()

    def wake(self, game_id: str = "") -> None:
        """Called from any thread (the PostgreSQL listener): look at the revisions now."""
        if self._wake is not None and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed: the server is stopping
                self._loop.call_soon_threadsafe(self._wake.set)

    async def watch(self) -> None:
        """Push the changes other processes make to the games with a socket open here; keep
        this process's open pages marked as open."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        stop = threading.Event()
        backend = self.service.store.backend
        if isinstance(backend, PostgresBackend):
            threading.Thread(
                target=backend.listen, args=(self.wake, stop), name="grognard-listen", daemon=True
            ).start()
        last_presence = time.monotonic()
        try:
            while not self._stopping:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.poll)
                self._wake.clear()
                ids = list(self.clients)
                if not ids or self._stopping:
                    continue
                try:
                    revs = await anyio.to_thread.run_sync(self.service.store.revisions, ids)
                    if time.monotonic() - last_presence > PRESENCE_REFRESH:
                        last_presence = time.monotonic()
                        await anyio.to_thread.run_sync(self.service.store.refresh_presence, ids)
                except Exception:
                    log.exception("watching the games' revisions failed")
                    continue
                for gid, rev in revs.items():
                    self.changed(gid, rev)
        finally:
            stop.set()

    _loop: asyncio.AbstractEventLoop | None = None


# ============================================================================ the app
def create_app(
    db_path: str | Path,
    scenario_dirs: list[str | Path] | None = None,
    notify_cmd: str | None = None,
    cache_size: int = 32,
    allow_data_change: bool = False,
    key_file: str | Path | None = None,
    poll: float = POLL_SECONDS,
) -> FastAPI:
    """Build the server application around a database (an SQLite file or a PostgreSQL URL) and
    the key signing its saves (``key_file``, by default ``DB.key`` beside an SQLite database;
    created if missing). ``poll``: how often (seconds) the revisions of the games with a socket
    open here are compared with the database, to push what other processes changed."""
    if key_file is None and is_postgresql(db_path):
        raise KeyFileError("a PostgreSQL database needs --key-file (the key signing saves)")
    if key_file is None and str(db_path) == ":memory:":
        key = secrets.token_bytes(32)  # a database that lives in memory: so does its key
    else:
        key = load_or_create_key(key_file or default_key_file(db_path))
    store = Store(db_path)
    service = GameService(
        store, scenario_dirs or [], cache_size, notify_cmd, allow_data_change, key
    )
    hub = Hub(service, poll)
    loops: list[asyncio.AbstractEventLoop] = []

    def moved(game_id: str) -> None:
        if loops:
            asyncio.run_coroutine_threadsafe(hub.touch(game_id), loops[0])

    ai = AIWorker(service, on_moved=moved)
    service.after_change = ai.kick

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        loops.append(asyncio.get_running_loop())
        watcher = asyncio.get_running_loop().create_task(hub.watch())
        # the computer's seats are stored: make the moves a stopped process left to make
        try:
            await anyio.to_thread.run_sync(ai.resume)
        except Exception:
            log.exception("resuming the computer's games failed")
        yield
        ai.stop()
        hub.stop()
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(watcher, STOP_SECONDS)
        try:
            await asyncio.wait_for(hub.idle(), STOP_SECONDS)
        except TimeoutError:
            log.warning("pushes still due at shutdown were cancelled after %s s", STOP_SECONDS)
        service.notify.wait(5)
        store.close()

    app = FastAPI(
        title="grognard server",
        version=__version__,
        description=(
            "Play grognard scenarios in the browser, hot-seat or remotely, with the server holding"
            " the truth."
        ),
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
        default_response_class=SafeJSONResponse,
    )
    app.state.service = service
    app.state.hub = hub
    app.state.ai = ai
    app.add_middleware(BodyLimit)
    app.add_middleware(SecurityHeaders)

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        body: dict[str, Any] = {"error": exc.code, "message": exc.message}
        if isinstance(exc, Illegal):
            body["rule"] = exc.rule
        if isinstance(exc, Malformed):
            body["problems"] = [{"path": exc.path, "message": exc.message}]
        return SafeJSONResponse(body, exc.status)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        cause = exc.__cause__
        if exc.status_code == 400 and isinstance(cause, UnicodeDecodeError | RecursionError):
            # the body could not be parsed: bytes that are not UTF-8, or JSON nested so deeply
            # that the parser gave up
            message = (
                f"the body is not UTF-8 text (byte {cause.start})"
                if isinstance(cause, UnicodeDecodeError)
                else f"the body's JSON is nested more than {MAX_DEPTH} levels deep"
            )
            return SafeJSONResponse(
                {
                    "error": "bad-request",
                    "message": message,
                    "problems": [{"path": "", "message": message}],
                },
                422,
            )
        code = HTTP_CODES.get(exc.status_code, "bad-request" if exc.status_code < 500 else "error")
        return SafeJSONResponse(
            {"error": code, "message": str(exc.detail)},
            exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
            msg = (
                "unknown field"
                if err.get("type") == "extra_forbidden"
                else err.get("msg", "invalid")
            )
            if err.get("type") == "json_invalid":
                where = err.get("loc", ("body", "?"))[-1]
                msg = f"the body is not JSON ({err.get('ctx', {}).get('error')}, at character"
                msg += f" {where})"
                loc = ""
            problems.append({"path": loc, "message": msg})
        text = "; ".join(
            f"{p['path']}: {p['message']}" if p["path"] else p["message"] for p in problems
        )
        return SafeJSONResponse(
            {"error": "bad-request", "message": text, "problems": problems}, 422
        )

    def side_of(game_id: str, authorization: str | None) -> str:
        token = None
        if authorization and authorization.lower().startswith("bearer "):
            token = authorization[7:].strip()
        return service.authenticate(game_id, token)

    async def run(fn: Any, *args: Any) -> Any:
        return await anyio.to_thread.run_sync(fn, *args)

    async def presence(game_id: str, side: str) -> None:
        """Record how many pages of ``side`` this process has open (other processes show it)."""
        try:
            await run(store.set_presence, game_id, side, hub.sockets(game_id, side))
        except Exception:
            log.exception("game %s: recording the open pages failed", game_id)

    # ------------------------------------------------------------------ lobby
    @app.get("/api/health", tags=["lobby"])
    async def health() -> dict[str, Any]:
        return {"ok": True, "version": __version__, "process": os.getpid()}

    @app.get("/api/scenarios", tags=["lobby"])
    async def scenarios() -> dict[str, Any]:
        """Scenarios this server can start."""
        return {"scenarios": await run(service.scenario_list)}

    @app.get("/api/scenarios/{scenario_id}", tags=["lobby"], responses=ERRORS)
    async def scenario(scenario_id: str) -> dict[str, Any]:
        """One scenario with its sides and the rule options that may be set."""
        return await run(service.scenario_detail, scenario_id)

    @app.post("/api/games", tags=["lobby"], responses=ERRORS, status_code=201)
    async def create(body: CreateGame, request: Request) -> CreatedGame:
        """Start a game. Returns one secret token and join link per side: give each player only
        their own."""
        game_id, tokens = await run(
            service.create_game, body.scenario, body.seed, body.options, body.hotseat
        )
        for ai_side, level in body.ai.items():
            try:
                await run(ai.assign, game_id, ai_side, level)
            except ValueError as e:
                raise ServiceError(f"ai: {e}") from None
        base = str(request.base_url).rstrip("/")
        return CreatedGame(
            game=game_id,
            scenario=body.scenario,
            hotseat=body.hotseat,
            sides={
                s: SeatLink(token=t, link=f"{base}/#/game/{game_id}?t={t}")
                for s, t in tokens.items()
            },
        )

    @app.post("/api/games/import", tags=["lobby"], responses=ERRORS, status_code=201)
    async def import_save(body: ImportBody, request: Request) -> CreatedGame:
        """Start a game from a save or record this server signed (the record of a finished
        game); saves it did not sign, or changed since, are refused. New tokens for every
        side."""
        game_id, tokens = await run(service.import_game, body.save, body.hotseat)
        base = str(request.base_url).rstrip("/")
        row = service.store.game(game_id)
        return CreatedGame(
            game=game_id,
            scenario=row.scenario_id if row else "",
            hotseat=body.hotseat,
            sides={
                s: SeatLink(token=t, link=f"{base}/#/game/{game_id}?t={t}")
                for s, t in tokens.items()
            },
        )

    @app.post("/api/games/{game_id}/join", tags=["lobby"], responses=ERRORS)
    async def join(
        game_id: str, authorization: Auth = None, body: Join | None = None
    ) -> dict[str, Any]:
        """Take the seat the token belongs to (optionally with a player name)."""
        side = await run(side_of, game_id, authorization)
        res = await run(service.join, game_id, side, body.player if body else "")
        await hub.touch(game_id)
        return res

    @app.post("/api/my-games", tags=["lobby"], responses=ERRORS)
    async def my_games(body: MyGames) -> dict[str, Any]:
        """The games the given tokens play in (the browser remembers its tokens)."""
        return {"games": await run(service.my_games, body.tokens)}

    # ------------------------------------------------------------------ one game
    @app.get("/api/games/{game_id}/board", tags=["game"], responses=ERRORS)
    async def board(game_id: str, authorization: Auth = None) -> dict[str, Any]:
        """The map (static, the same for every side)."""
        await run(side_of, game_id, authorization)
        return await run(service.board, game_id)

    @app.get("/api/games/{game_id}/state", tags=["game"], responses=ERRORS)
    async def state(
        game_id: str,
        authorization: Auth = None,
        legal: Annotated[
            Literal["full", "families"],
            Query(description="full: also the flat list 'legal' and its 'groups' (the default)"),
        ] = "full",
    ) -> Response:
        """What the token's side may know: its view, its log, its legal actions (as ``families``:
        type, title, actors; and unless ``legal=families``, as the flat list ``legal``)."""
        side = await run(side_of, game_id, authorization)
        full = legal == "full"
        body = await run(lambda: encode_json(hub._state(game_id, side, 0, full)))
        return Response(body, media_type="application/json")

    @app.get("/api/games/{game_id}/legal", tags=["game"], responses=ERRORS)
    async def legal_list(game_id: str, authorization: Auth = None) -> Response:
        """Every legal action of the token's side as one flat list (``legal``), with their
        labelled ``groups`` (index into ``legal`` and description), and the ``families``."""
        side = await run(side_of, game_id, authorization)
        body = await run(lambda: encode_json(service.legal_list(game_id, side)))
        return Response(body, media_type="application/json")

    @app.get("/api/games/{game_id}/options", tags=["game"], responses=ERRORS)
    async def options(
        game_id: str,
        type: Annotated[str, Query(min_length=1, max_length=200, description="Action type")],
        authorization: Auth = None,
        actor: Annotated[
            str | None,
            Query(max_length=400, description="One of the family's actors (omit: none)"),
        ] = None,
    ) -> dict[str, Any]:
        """The legal actions of one family (``type``) and actor of the pushed ``families``, each
        with its description: what a page asks for when a player picks a piece."""
        side = await run(side_of, game_id, authorization)
        return await run(service.options, game_id, side, type, actor)

    @app.post("/api/games/{game_id}/actions", tags=["game"], responses=ERRORS)
    async def act(
        game_id: str,
        body: ActionBody,
        authorization: Auth = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        """Apply one action for the token's side. Illegal actions answer 409 with the rule id and
        change nothing. With an ``Idempotency-Key``, a retry of an action already applied answers
        ``repeated`` with its number and applies nothing."""
        side = await run(side_of, game_id, authorization)
        res = await run(service.act, game_id, side, body.action, idempotency_key)
        await hub.touch(game_id)
        return res

    @app.get("/api/games/{game_id}/ai", tags=["game"], responses=ERRORS)
    async def ai_seats(game_id: str, authorization: Auth = None) -> dict[str, Any]:
        """The sides the computer plays and the actions it made (number, side, agent)."""
        await run(side_of, game_id, authorization)
        return ai.describe(game_id)

    @app.post("/api/games/{game_id}/ai", tags=["game"], responses=ERRORS)
    async def ai_seat(game_id: str, body: AISeat, authorization: Auth = None) -> dict[str, Any]:
        """Let the computer stand in for a side (an absent player), or give the side back
        (``level: null``). Any seated player of the game may ask."""
        await run(side_of, game_id, authorization)
        try:
            return await run(ai.assign, game_id, body.side, body.level)
        except ValueError as e:
            raise ServiceError(f"ai: {e}") from None

    @app.post("/api/games/{game_id}/undo", tags=["game"], responses=ERRORS)
    async def undo(game_id: str, authorization: Auth = None) -> dict[str, Any]:
        """Take back the side's last action, unless dice, a reveal or the other side came in
        between."""
        side = await run(side_of, game_id, authorization)
        res = await run(service.undo, game_id, side)
        await hub.touch(game_id)
        return res

    @app.post("/api/games/{game_id}/preview", tags=["game"], responses=ERRORS)
    async def preview(game_id: str, body: ActionBody, authorization: Auth = None) -> dict[str, Any]:
        """What an action would do (odds, result distribution) if the rule system offers a
        preview."""
        side = await run(side_of, game_id, authorization)
        return await run(service.preview, game_id, side, body.action)

    @app.post("/api/games/{game_id}/reachable", tags=["game"], responses=ERRORS)
    async def reachable(
        game_id: str, body: ReachBody, authorization: Auth = None
    ) -> dict[str, Any]:
        """Hexes the selected pieces of the token's side may move to now."""
        side = await run(side_of, game_id, authorization)
        return await run(service.reachable, game_id, side, body.pieces)

    @app.get("/api/games/{game_id}/standing-orders", tags=["game"], responses=ERRORS)
    async def get_orders(game_id: str, authorization: Auth = None) -> dict[str, Any]:
        side = await run(side_of, game_id, authorization)
        return {"side": side, "orders": await run(service.standing_orders, game_id, side)}

    @app.put("/api/games/{game_id}/standing-orders", tags=["game"], responses=ERRORS)
    async def put_orders(
        game_id: str, body: Annotated[StandingOrders, Body()], authorization: Auth = None
    ) -> dict[str, Any]:
        """Replace the side's standing orders; they act at once if they apply now."""
        side = await run(side_of, game_id, authorization)
        orders = [o.model_dump(exclude_none=True) for o in body.orders]
        res = await run(service.set_standing_orders, game_id, side, orders)
        await hub.touch(game_id)
        return res

    @app.get("/api/games/{game_id}/record", tags=["game"], responses=ERRORS)
    async def record(game_id: str, authorization: Auth = None) -> dict[str, Any]:
        """The replayable game record, once the game is over."""
        side = await run(side_of, game_id, authorization)
        return await run(service.record, game_id, side)

    async def answer(game_id: str, c: Client, msg: dict[str, Any]) -> None:
        """A page's question over its socket: ``{"type": "options", "family": T, "actor": A}``,
        ``{"type": "legal"}``, or an action, ``{"type": "act", "action": {...}, "key": K}``
        (``key``: an idempotency key, as the ``Idempotency-Key`` header of ``POST .../actions``;
        the answer is that request's, refusals included). An ``id`` of the page's choice is
        sent back. The socket's process has the side's view of the position already built for
        its pushes, so this costs no second listing of the legal actions on another process,
        and a side that acts over its socket keeps the game's work in one process."""
        rid = msg.get("id")
        if not (rid is None or (isinstance(rid, int | str) and len(str(rid)) <= 100)):
            rid = None
        acted = False
        try:
            if msg["type"] == "legal":
                res = await run(service.legal_list, game_id, c.side)
            elif msg["type"] == "act":
                action, key = msg.get("action"), msg.get("key")
                bad = (
                    problem(action, "action")
                    if isinstance(action, dict)
                    else "action: an object with the action's fields"
                )
                if bad is not None:
                    raise ServiceError(f"act: {bad}")
                if not (key is None or (isinstance(key, str) and KEY_PATTERN.fullmatch(key))):
                    raise ServiceError("act: 'key' is 1-200 printable ASCII characters")
                res = await run(service.act, game_id, c.side, action, key)
                acted = True
            else:
                fam, actor = msg.get("family"), msg.get("actor")
                if not (isinstance(fam, str) and 0 < len(fam) <= 200) or not (
                    actor is None or (isinstance(actor, str) and len(actor) <= 400)
                ):
                    raise ServiceError("options: 'family' (a type) and 'actor' (text or null)")
                res = await run(service.options, game_id, c.side, fam, actor)
            out = {**res, "type": msg["type"], "id": rid}
        except ServiceError as e:
            out = {"type": "error", "id": rid, "error": e.code, "message": e.message}
            if isinstance(e, Illegal):
                out["rule"] = e.rule
        text = await run(encode_json, out)
        async with c.lock:
            await c.ws.send_text(text.decode())
        if acted:
            await hub.touch(game_id)

    @app.websocket("/api/games/{game_id}/ws")
    async def ws(websocket: WebSocket, game_id: str) -> None:
        """Send ``{"token": ...}`` first; then the server pushes ``state`` messages after every
        change."""
        await websocket.accept()
        try:
            first = await asyncio.wait_for(websocket.receive_text(), WS_AUTH_SECONDS)
            token = json.loads(first).get("token")
            side = await run(service.authenticate, game_id, token)
        except (
            TimeoutError,
            ValueError,
            RecursionError,
            AttributeError,
            ServiceError,
            WebSocketDisconnect,
        ) as e:
            msg = e.message if isinstance(e, ServiceError) else 'send {"token": ...} first'
            with contextlib.suppress(Exception):
                await websocket.send_text(json.dumps({"type": "error", "message": msg}))
                await websocket.close(code=4401)
            return
        c = Client(websocket, side)
        hub.add(game_id, c)
        try:
            await presence(game_id, side)  # everyone learns who is connected
            await hub.touch(game_id)  # ... and the newcomer gets its state
            while True:
                text = await websocket.receive_text()
                if len(text) > MAX_BODY:
                    async with c.lock:
                        await websocket.send_text(
                            json.dumps(
                                {
                                    "type": "error",
                                    "error": "too-large",
                                    "message": f"message over {MAX_BODY} bytes",
                                }
                            )
                        )
                    continue
                try:
                    msg = json.loads(text)
                except (ValueError, RecursionError):
                    continue
                if isinstance(msg, dict) and msg.get("type") == "ping":
                    async with c.lock:
                        await websocket.send_text(json.dumps({"type": "pong"}))
                elif isinstance(msg, dict) and msg.get("type") == "resync":
                    c.log_len = 0
                    await hub.send_state(game_id, c)
                elif isinstance(msg, dict) and msg.get("type") in ("options", "legal", "act"):
                    await answer(game_id, c, msg)
        except WebSocketDisconnect:
            pass
        finally:
            hub.remove(game_id, c)
            with contextlib.suppress(Exception):
                await presence(game_id, side)
                await hub.touch(game_id)

    client_api.mount(app)

    # ------------------------------------------------------------------ the browser client
    app.mount("/static", ClientAssets(directory=str(WEB_DIR)), name="static")

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    return app


def from_environment() -> FastAPI:
    """The application of one worker process of ``grognard serve --workers N``: its settings are
    the JSON object in ``GROGNARD_SERVER_CONFIG`` (the keyword arguments of :func:`create_app`);
    the rule-system modules named in ``GROGNARD_PLUGINS`` are imported first."""
    for mod in filter(None, (m.strip() for m in os.environ.get("GROGNARD_PLUGINS", "").split(","))):
        importlib.import_module(mod)
    cfg = json.loads(os.environ[CONFIG_ENV])
    return create_app(**cfg)
