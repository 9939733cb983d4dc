"""The game service: the server's authoritative games, independent of HTTP.

Every game lives in the database (:mod:`grognard.server.db`) as scenario text + options + seed +
actions, with a snapshot every few actions, and while in use as a
:class:`~grognard.core.game.Game` in a small LRU cache, loaded on a miss from the latest snapshot
and the actions after it. The database is the single source of truth: several processes may
serve the same games, each with its own cache. Before a game is used its cached copy is compared
with the stored revision and brought up to date from the stored actions (or reloaded), and every
change is written only if the game's revision is still the one it was computed from; a change
that lost that race is computed again on the new position.

Each side holds a secret token; only its SHA-256 is stored, and tokens are compared with
:func:`hmac.compare_digest`. A token acts for its side only and every answer it gets is built
from ``view(side)`` and the side's own filtered log, with the log renumbered per side (the global
event numbers would reveal how many hidden events happened) and with hidden piece ids scrubbed
from rule-system messages.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import secrets
import shlex
import subprocess
import threading
import time
import tomllib
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grognard import rulesets
from grognard.core import savefile, saves, serial
from grognard.core.errors import GrognardError, IllegalAction, SaveError, UndoError
from grognard.core.game import Game
from grognard.core.sequence import Family, Step, families_of_list
from grognard.scenario import load_scenario, search_dirs
from grognard.server import hooks, standing
from grognard.server.db import SNAPSHOT_EVERY, Duplicate, GameRow, Stale, Store
from grognard.server.export import board_json

log = logging.getLogger("grognard.server")

MAX_STANDING_STEPS = 200
NOTIFY_SECONDS = 60.0
WRITE_ATTEMPTS = 5
SNAPSHOT_DROPPED = ("scenario_source", "actions")


class ServiceError(Exception):
    """A request the service refuses; ``status`` is the HTTP status to answer with."""

    status = 400
    code = "bad-request"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(ServiceError):
    status = 404
    code = "not-found"


class Forbidden(ServiceError):
    status = 403
    code = "forbidden"


class Conflict(ServiceError):
    status = 409
    code = "conflict"


class Malformed(ServiceError):
    """A request whose content has the wrong form (answered like a validation error: 422)."""

    status = 422
    code = "bad-request"

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


class Illegal(ServiceError):
    """An illegal action, carrying the rule id that forbids it (message already redacted)."""

    status = 409
    code = "illegal"

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


_ID_CHARS = r"A-Za-z0-9_\-"


def stored_hash(g: Game) -> str:
    """The state hash the database keeps after each action (marked with its hash version)."""
    return "v2:" + g.state_hash()


def position(g: Game) -> str:
    """The game's position as its history names it: the number of actions and the head of the
    hash chain over them (an undo and another action give another name)."""
    return f"{len(g.actions)}:{g.chain[-1] if g.chain else ''}"


def hash_matches(g: Game, stored: str) -> bool:
    """Does a rebuilt game reach the position the database recorded? Rows written before hash
    version 2 carry the hash of save schema 1 (:meth:`Game.legacy_state_hash`)."""
    if stored.startswith("v2:"):
        return stored == stored_hash(g)
    return stored == g.legacy_state_hash()


def _hidden_pattern(hidden: Iterable[str]) -> re.Pattern[str] | None:
    toks = sorted((t for t in hidden if t), key=len, reverse=True)
    if not toks:
        return None
    return re.compile(
        f"(?<![{_ID_CHARS}])(?:" + "|".join(re.escape(t) for t in toks) + f")(?![{_ID_CHARS}])"
    )


def redact(text: str, hidden: Iterable[str]) -> str:
    """Replace each hidden token (a hidden piece id) standing as a word by 'a hidden piece'."""
    pat = _hidden_pattern(hidden) if text else None
    return text if pat is None else pat.sub("a hidden piece", text)


def redact_obj(obj: Any, hidden: Iterable[str]) -> Any:
    hidden = list(hidden)
    if isinstance(obj, str):
        return redact(obj, hidden)
    if isinstance(obj, dict):
        return {redact(str(k), hidden): redact_obj(v, hidden) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [redact_obj(v, hidden) for v in obj]
    return obj


def mask_unseen(obj: Any, hidden: Iterable[str]) -> tuple[Any, dict[str, str]]:
    """``obj`` (a client's action) with each hidden token standing as a word in its strings, keys
    and values, replaced by a fresh name that no piece has; and the map from those names back to
    the tokens. The rules then answer a side naming a piece it may not see exactly as they answer
    a name that belongs to no piece, and :func:`unmask` puts the side's own words back."""
    pat = _hidden_pattern(hidden)
    names: dict[str, str] = {}
    if pat is None:
        return obj, {}

    def fresh(m: re.Match[str]) -> str:
        tok = m.group(0)
        for name, t in names.items():
            if t == tok:
                return name
        name = f"unseen{secrets.token_hex(6)}"
        names[name] = tok
        return name

    def walk(o: Any) -> Any:
        if isinstance(o, str):
            return pat.sub(fresh, o)
        if isinstance(o, dict):
            return {walk(str(k)): walk(v) for k, v in o.items()}
        if isinstance(o, list | tuple):
            return [walk(v) for v in o]
        return o

    return walk(obj), names


def unmask(obj: Any, names: Mapping[str, str]) -> Any:
    """Inverse of :func:`mask_unseen` on an answer: each fresh name back to the side's words."""
    if not names:
        return obj
    if isinstance(obj, str):
        for name, tok in names.items():
            obj = obj.replace(name, tok)
        return obj
    if isinstance(obj, dict):
        return {unmask(str(k), names): unmask(v, names) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [unmask(v, names) for v in obj]
    return obj


_LEAVES = frozenset({str, int, float, bool, type(None), serial.FrozenJSON})


def jsonable(obj: Any) -> Any:
    """:func:`grognard.core.serial.to_jsonable`, the same answer, faster on the large plain
    dicts and lists of a view: plain leaves are kept without a call, anything else is left to
    ``to_jsonable``."""
    t = type(obj)
    if t in _LEAVES:
        return obj
    if t is dict:
        return {
            (k if type(k) is str else str(k)): (v if type(v) in _LEAVES else jsonable(v))
            for k, v in obj.items()
        }
    if t is list or t is tuple:
        return [v if type(v) in _LEAVES else jsonable(v) for v in obj]
    return serial.to_jsonable(obj)


@dataclass(frozen=True)
class ScenarioEntry:
    id: str
    title: str
    ruleset: str
    sides: list[str]
    path: Path
    tutorial: bool
    description: str


@dataclass
class SideView:
    """What one side is shown of one position, built once and shared by every push and state
    request of that side until the position changes (:meth:`GameService.side_view`).

    ``base`` holds the position's part of the state (view, turn, acting sides ...), ``log`` the
    side's whole renumbered log, ``families`` the summary of its legal actions (type, title,
    actors); the flat labelled list (``legal``, ``groups``) is built only when asked for."""

    key: tuple[int, int]
    base: dict[str, Any] | None
    log: list[dict[str, Any]] | None
    families: list[dict[str, Any]]
    fams: list[Family]
    hidden: set[str]
    legal: list[dict[str, Any]] | None = None  # as the rules list them
    legal_json: list[Any] | None = None
    groups: list[dict[str, Any]] | None = None
    log_upto: int = 0  # how many of the game's events ``log`` covers
    # the side's view of the position before, while this one's log is still to build (its log
    # is extended rather than converted again; dropped once used)
    before: SideView | None = None


@dataclass
class Entry:
    """A game in the cache, with the lock serialising everything done to it."""

    row: GameRow
    game: Game
    revision: int = 0
    lock: threading.RLock = field(default_factory=threading.RLock)
    orders: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    dead: bool = False
    undos: int = 0  # raised by every undo: with the action count it names the position
    views: dict[str, SideView] = field(default_factory=dict)


class Notifier:
    """Runs ``--notify-cmd CMD`` as ``CMD GAME_ID SIDE`` (no shell) when a side must move.

    The commands run one at a time, in the order the sides became due, on a background thread:
    a slow command delays the next notification but never an answer to a player, and one that
    runs longer than :data:`NOTIFY_SECONDS` is killed.
    """

    def __init__(self, cmd: str | None) -> None:
        self.argv = shlex.split(cmd) if cmd else []
        self._queue: deque[tuple[str, str]] = deque()
        self._pending = 0
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def __call__(self, game_id: str, side: str) -> None:
        if not self.argv:
            return
        with self._cond:
            self._queue.append((game_id, side))
            self._pending += 1
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="grognard-notify", daemon=True
                )
                self._thread.start()
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue:
                    self._cond.wait()
                game_id, side = self._queue.popleft()
            try:
                self._one(game_id, side)
            finally:
                with self._cond:
                    self._pending -= 1
                    self._cond.notify_all()

    def _one(self, game_id: str, side: str) -> None:
        try:
            p = subprocess.Popen(
                [*self.argv, game_id, side],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as e:
            log.warning("notify command failed to start: %s", e)
            return
        try:
            p.wait(NOTIFY_SECONDS)
        except subprocess.TimeoutExpired:
            log.warning("notify command still running after %s s: killed", NOTIFY_SECONDS)
            p.kill()
            p.wait()

    def wait(self, timeout: float = 10.0) -> bool:
        """Wait until every notification asked for so far has run (used by tests and at
        shutdown); False if some are still due after ``timeout`` seconds."""
        with self._cond:
            return self._cond.wait_for(lambda: self._pending == 0, timeout)


class GameService:
    """Create, load, play and persist games; every method is safe to call from any thread."""

    def __init__(
        self,
        store: Store,
        scenario_dirs: Iterable[str | Path] = (),
        cache_size: int = 32,
        notify_cmd: str | None = None,
        allow_data_change: bool = False,
        key: bytes | None = None,
    ) -> None:
        self.store = store
        self.key = key or secrets.token_bytes(32)
        self.scenario_dirs = [Path(d) for d in scenario_dirs]
        self.cache_size = max(1, int(cache_size))
        self.notify = Notifier(notify_cmd)
        self.allow_data_change = allow_data_change
        self._cache: OrderedDict[str, Entry] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._load_locks: dict[str, threading.Lock] = {}
        self._boards: dict[str, dict[str, Any]] = {}
        self.after_change: Callable[[str], None] | None = None  # the computer's worker (ai)

    # ================================================================== scenarios
    def scenarios(self) -> list[ScenarioEntry]:
        """Shipped scenarios (and ``GROGNARD_SCENARIO_PATH``) plus the server's extra folders."""
        out: dict[str, ScenarioEntry] = {}
        for d in [*search_dirs(), *self.scenario_dirs]:
            if not d.is_dir():
                continue
            for p in sorted(d.rglob("*.toml")):
                try:
                    head = tomllib.loads(p.read_text(encoding="utf-8")).get("scenario")
                except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
                    continue
                if not (isinstance(head, dict) and "id" in head and "ruleset" in head):
                    continue
                sid = str(head["id"])
                out.setdefault(
                    sid,
                    ScenarioEntry(
                        sid,
                        str(head.get("title", "")),
                        str(head["ruleset"]),
                        [str(s) for s in head.get("sides", [])],
                        p,
                        bool(head.get("tutorial")),
                        str(head.get("description", "")),
                    ),
                )
        return sorted(out.values(), key=lambda s: (not s.tutorial, s.ruleset, s.id))

    def scenario_detail(self, scenario_id: str) -> dict[str, Any]:
        entry = self._scenario_entry(scenario_id)
        try:
            rs = rulesets.get(entry.ruleset)
        except KeyError as e:
            raise NotFound(str(e.args[0])) from None
        return {
            **self._scenario_json(entry),
            "options": [
                {
                    "id": o.id,
                    "title": o.title,
                    "kind": o.kind,
                    "default": o.default,
                    "choices": list(o.choices),
                    "rule": o.rule,
                    "help": o.help,
                }
                for o in rs.option_specs
            ],
        }

    @staticmethod
    def _scenario_json(s: ScenarioEntry) -> dict[str, Any]:
        return {
            "id": s.id,
            "title": s.title,
            "ruleset": s.ruleset,
            "sides": s.sides,
            "tutorial": s.tutorial,
            "description": s.description,
        }

    def scenario_list(self) -> list[dict[str, Any]]:
        return [self._scenario_json(s) for s in self.scenarios()]

    def _scenario_entry(self, scenario_id: str) -> ScenarioEntry:
        for s in self.scenarios():
            if s.id == scenario_id:
                return s
        raise NotFound(f"no scenario {scenario_id!r} on this server")

    # ================================================================== games
    def create_game(
        self,
        scenario_id: str,
        seed: int | None = None,
        options: Mapping[str, Any] | None = None,
        hotseat: bool = False,
    ) -> tuple[str, dict[str, str]]:
        """Start a game; return its id and one fresh secret token per side."""
        entry = self._scenario_entry(scenario_id)
        try:
            sc = load_scenario(entry.path)
            g = Game.new(
                sc, seed if seed is not None else secrets.randbelow(2**31 - 1) + 1, options or {}
            )
        except GrognardError as e:
            raise ServiceError(str(e)) from None
        except KeyError as e:
            raise ServiceError(f"cannot start {scenario_id}: {e.args[0]}") from None
        rec = g.record()
        game_id = secrets.token_hex(8)
        now = time.time()
        row = GameRow(
            id=game_id,
            scenario_id=sc.id,
            title=sc.title,
            ruleset=rec["ruleset"],
            scenario_source=rec["scenario_source"],
            scenario_file=rec["scenario_file"],
            scenario_hash=rec["scenario_hash"],
            data_hash=rec["data_hash"],
            table_overrides=rec["table_overrides"],
            options=rec["options"],
            seed=rec["seed"],
            sides=list(g.state.sides),
            created=now,
            hotseat=hotseat,
            updated=now,
            status=self._status(g),
        )
        tokens = {side: new_token() for side in g.state.sides}
        self.store.create_game(row, {s: hash_token(t) for s, t in tokens.items()})
        self._put(Entry(row, g))
        return game_id, tokens

    @staticmethod
    def _status(g: Game) -> str:
        if g.is_over():
            return "over"
        return "to act: " + ", ".join(g.acting_sides())

    def _load(self, game_id: str) -> Entry:
        """The game rebuilt from the database: from its latest snapshot and the actions after it;
        by replaying every action only when it has no usable snapshot (a game of an older
        database, or rule data changed since the snapshot), after which it gets one."""
        row = self.store.game(game_id)
        if row is None:
            raise NotFound(f"no game {game_id!r}")
        stored = self.store.actions(game_id)
        actions = [json.loads(r["action"]) for r in stored]
        g = self._from_snapshot(row, stored, actions)
        replayed = g is None
        if g is None:
            try:
                g = saves.rebuild(
                    Game,
                    row.scenario_source,
                    row.scenario_file,
                    row.table_overrides,
                    row.seed,
                    row.options,
                    actions,
                )
            except GrognardError as e:
                raise Conflict(f"game {game_id} cannot be rebuilt: {e}") from None
        if stored and not hash_matches(g, stored[-1]["state_hash"]):
            raise Conflict(
                f"game {game_id} does not replay to its recorded position (the rule code changed"
                f" since action {len(stored)}); run the server with the grognard version that"
                " started it"
            )
        if replayed and stored:
            self._snapshot(game_id, g, str(stored[-1]["state_hash"]))
        return Entry(row, g, row.revision)

    def _from_snapshot(
        self, row: GameRow, stored: list[Any], actions: list[dict[str, Any]]
    ) -> Game | None:
        """The game from its latest snapshot and the stored actions after it (None: no snapshot
        that fits the stored actions and this rule data)."""
        snap = self.store.latest_snapshot(row.id)
        if snap is None or snap.n > len(stored) or snap.n < 1:
            return None
        if stored[snap.n - 1]["state_hash"] != snap.state_hash:
            return None
        data = {**snap.data, "scenario_source": row.scenario_source, "actions": actions[: snap.n]}
        try:
            g = Game.load(data)
        except GrognardError as err:
            log.info("game %s: snapshot %s not used (%s); replaying", row.id, snap.n, err)
            return None
        for i, a in enumerate(actions[snap.n :], start=snap.n + 1):
            try:
                g.apply(a)
            except IllegalAction as err:
                raise Conflict(f"game {row.id}: stored action {i} is illegal now: {err}") from None
        return g

    def _snapshot(self, game_id: str, g: Game, state_hash: str) -> None:
        """Store the game's snapshot after its last action (as stored: ``state_hash``). A save is
        JSON data already: it is stored as it is."""
        data = {k: v for k, v in g.save().items() if k not in SNAPSHOT_DROPPED}
        try:
            self.store.put_snapshot(game_id, len(g.actions), state_hash, data)
        except Exception as err:  # a snapshot only speeds up loading: never fail a move for it
            log.warning(
                "game %s: snapshot after action %s not stored: %s", game_id, len(g.actions), err
            )

    def _put(self, e: Entry) -> None:
        with self._cache_lock:
            self._cache[e.row.id] = e
            self._cache.move_to_end(e.row.id)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)[1].dead = True

    def _evict(self, game_id: str) -> None:
        with self._cache_lock:
            e = self._cache.pop(game_id, None)
            if e is not None:
                e.dead = True

    def cached_ids(self) -> list[str]:
        with self._cache_lock:
            return list(self._cache)

    def entry(self, game_id: str) -> Entry:
        """The game, up to date with the database: the cached copy brought up to the stored
        revision, or loaded (one loader per game at a time)."""
        rev = self.store.revision(game_id)
        if rev is None:
            self._evict(game_id)
            raise NotFound(f"no game {game_id!r}")
        with self._cache_lock:
            e = self._cache.get(game_id)
            if e is not None:
                self._cache.move_to_end(game_id)
            lk = self._load_locks.setdefault(game_id, threading.Lock())
        if e is not None:
            if e.revision == rev:
                return e
            with e.lock:
                if not e.dead and e.revision != rev and not self._catch_up(e, rev):
                    self._evict(game_id)
            if not e.dead:
                return e
        with lk:
            with self._cache_lock:
                e = self._cache.get(game_id)
            if e is None:
                e = self._load(game_id)
                self._put(e)
            return e

    def _catch_up(self, e: Entry, rev: int) -> bool:
        """Bring the cached game up to the stored actions (another process changed it); False if
        its history differs from the stored one (an undo elsewhere): it must be reloaded."""
        g = e.game
        n = len(g.actions)
        rows = self.store.actions(e.row.id, after=max(0, n - 1))
        if n > 0 and (
            not rows or int(rows[0]["n"]) != n or not hash_matches(g, rows[0]["state_hash"])
        ):
            return False
        if n == 0 and rows and int(rows[0]["n"]) != 1:
            return False
        for r in rows:
            if int(r["n"]) <= n:
                continue
            try:
                g.apply(json.loads(r["action"]))
            except IllegalAction:
                return False
            if not hash_matches(g, r["state_hash"]):
                return False
        e.revision = rev
        e.orders.clear()
        return True

    @contextmanager
    def locked(self, game_id: str) -> Iterator[Entry]:
        """The up-to-date game, locked for the caller (a game evicted meanwhile is taken again)."""
        while True:
            e = self.entry(game_id)
            with e.lock:
                if e.dead:
                    continue
                yield e
                return

    # ================================================================== tokens and seats
    def authenticate(self, game_id: str, token: str | None) -> str:
        """The side ``token`` plays in ``game_id`` (raises Forbidden otherwise)."""
        if not token or not isinstance(token, str) or len(token) > 200:
            raise Forbidden("a side token is required (Authorization: Bearer TOKEN)")
        seats = self.store.seats(game_id)
        if not seats:
            raise NotFound(f"no game {game_id!r}")
        given = hash_token(token)
        side = None
        for s in seats:
            if hmac.compare_digest(given, s["token_hash"]):
                side = s["side"]
        if side is None:
            raise Forbidden("this token does not belong to a side of this game")
        return str(side)

    def join(self, game_id: str, side: str, player: str) -> dict[str, Any]:
        self.store.mark_joined(game_id, side, player)
        return {"game": game_id, "side": side}

    def my_games(self, tokens: Iterable[str]) -> list[dict[str, Any]]:
        """The games the given tokens play in (a browser keeps its tokens; there are no
        accounts)."""
        out = []
        seen: set[tuple[str, str]] = set()
        for t in list(tokens)[:200]:
            if not isinstance(t, str) or not t or len(t) > 200:
                continue
            h = hash_token(t)
            for s in self.store.seats_by_token_hash(h):
                if not hmac.compare_digest(h, s["token_hash"]) or (s["game_id"], s["side"]) in seen:
                    continue
                seen.add((s["game_id"], s["side"]))
                row = self.store.game(s["game_id"])
                if row is None:
                    continue
                out.append(
                    {
                        "game": row.id,
                        "side": s["side"],
                        "token": t,
                        "scenario": row.scenario_id,
                        "title": row.title,
                        "sides": row.sides,
                        "hotseat": row.hotseat,
                        "status": row.status,
                        "updated": row.updated,
                    }
                )
        return sorted(out, key=lambda r: -float(r["updated"]))

    # ================================================================== what a side sees
    def hidden(self, g: Game, side: str) -> set[str]:
        """The ids hidden from ``side`` (:meth:`Ruleset.hidden_tokens`), worked out once per
        position (a view, a check and a refusal of one position share them)."""
        kept = g.cache.position(
            g.state, ("server:hidden", side), lambda: frozenset(g.ruleset.hidden_tokens(g, side))
        )
        return set(kept)

    def side_log(
        self, g: Game, side: str, before: SideView | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        """The side's visible log as JSON, renumbered 0.. so gaps do not betray hidden events,
        and how many of the game's events it covers. Given the side's view of an earlier
        position of the same line of play (no undo between), only the events logged since are
        converted (:meth:`Game.visible_log_after`)."""
        total = len(g.state.log)
        if before is not None and before.log is not None and before.log_upto <= total:
            new = g.visible_log_after(side, before.log_upto, len(before.log))
            return before.log + jsonable(new), total
        return jsonable(g.visible_log(side)), total

    def side_view(self, e: Entry, side: str, seen: bool = True) -> SideView:
        """The side's :class:`SideView` of the entry's position (built on the first use after
        each change of position; the caller holds ``e.lock``); with ``seen`` False only its
        legal actions (what :meth:`options` needs), the view and log being built when first
        asked for."""
        g = e.game
        key = (len(g.actions), e.undos)
        sv = e.views.get(side)
        if sv is None or sv.key != key:
            acting = g.acting_sides()
            hidden = self.hidden(g, side)
            cur = g.current()
            legal: list[dict[str, Any]] | None = None
            if (
                cur is not None
                and side in acting
                and type(cur[0]).legal_actions is not Step.legal_actions
                and type(cur[0]).families is Step.families
            ):
                # a step that lists its actions itself and offers no families of its own: list
                # them once, group them here
                legal = g.legal_actions(side)
                fams = families_of_list(g, legal)
            else:
                # the step's families, lazily: a step that lists its actions itself may still
                # offer some types unit by unit (greatwar's movement steps), whose actors are
                # then the pieces that may act (an actor may have no option); a family with no
                # actor at all is not shown
                fams = g.families(side)
            summary = [{"type": f.type, "title": f.label, "actors": f.actors()} for f in fams]
            if legal is None:
                fams = [f for f, s in zip(fams, summary, strict=True) if s["actors"]]
                summary = [s for s in summary if s["actors"]]
            # the log of the side's last view grows into this one's, unless an undo came between
            before = sv if sv is not None and sv.key[1] == e.undos and sv.key[0] <= key[0] else None
            if before is not None and before.log is None:
                before = before.before
            sv = SideView(
                key,
                None,
                None,
                redact_obj(jsonable(summary), hidden),
                fams,
                hidden,
                legal,
                before=before,
            )
            e.views[side] = sv
        if seen and (sv.base is None or sv.log is None):
            view = dict(g.view(side, log=False))  # the log is kept apart (side_log)
            acting = g.acting_sides()
            cur = g.current()
            sv.base = jsonable(
                {
                    "turn": g.turn_label(),
                    "phase": g.phase_path(),
                    "step": cur[1].step if cur else None,
                    "acting": acting,
                    "my_turn": side in acting,
                    "over": g.is_over(),
                    "result": g.state.result,
                    "view": view,
                    "can_undo": g.can_undo(side),
                }
            )
            sv.log, sv.log_upto = self.side_log(g, side, sv.before)
            sv.before = None
        return sv

    def _full_list(self, e: Entry, sv: SideView, side: str) -> None:
        """Fill the side view's flat list of legal actions and its labelled groups."""
        if sv.legal is None:
            sv.legal = e.game.legal_actions(side)
        if sv.legal_json is None:
            sv.legal_json = jsonable(sv.legal)
        if sv.groups is None:
            sv.groups = redact_obj(jsonable(hooks.group_actions(e.game, sv.legal)), sv.hidden)

    def state_for(
        self, game_id: str, side: str, log_from: int = 0, full: bool = True
    ) -> dict[str, Any]:
        """Everything ``side`` may know now, with its log from entry ``log_from`` on: its legal
        actions as ``families`` (type, title, actors), and with ``full`` also as the flat list
        ``legal`` with its labelled ``groups`` (pushes leave those out: see :meth:`options`)."""
        with self.locked(game_id) as e:
            g = e.game
            sv = self.side_view(e, side)
            assert sv.base is not None and sv.log is not None
            if log_from > len(sv.log):
                log_from = 0
            seats = {s["side"]: bool(s["joined"]) for s in self.store.seats(game_id)}
            out: dict[str, Any] = {
                "type": "state",
                "game": {
                    "id": e.row.id,
                    "scenario": e.row.scenario_id,
                    "title": e.row.title,
                    "ruleset": e.row.ruleset,
                    "sides": list(e.row.sides),
                    "hotseat": e.row.hotseat,
                    "joined": seats,
                },
                "side": side,
                "seq": len(g.actions),
                **sv.base,
                "log_from": log_from,
                "log_len": len(sv.log),
                "log": sv.log[log_from:],
                "families": sv.families,
                # the database is read only when this process keeps no copy of the orders
                "standing_orders": jsonable(
                    e.orders[side]
                    if side in e.orders
                    else self.store.standing_orders(game_id, side)
                ),
            }
            if full:
                self._full_list(e, sv, side)
                out["legal"] = sv.legal_json
                out["groups"] = sv.groups
            return out

    def legal_list(self, game_id: str, side: str) -> dict[str, Any]:
        """The side's legal actions as one flat list, with their labelled groups (each entry
        an index into ``legal`` and its description)."""
        with self.locked(game_id) as e:
            sv = self.side_view(e, side, seen=False)
            self._full_list(e, sv, side)
            return {
                "seq": len(e.game.actions),
                "families": sv.families,
                "legal": sv.legal_json,
                "groups": sv.groups,
            }

    def options(self, game_id: str, side: str, type_: str, actor: str | None) -> dict[str, Any]:
        """The legal actions of one family (action type) and one of its actors (``None``: the
        family's actions without an actor), each with its label: what a client asks for when a
        player picks a piece or opens a kind of action."""
        with self.locked(game_id) as e:
            g = e.game
            sv = self.side_view(e, side, seen=False)
            fam = next((f for f in sv.fams if f.type == type_), None)
            actors = [] if fam is None else fam.actors()
            if fam is None or actor not in [None if a is None else str(a) for a in actors]:
                raise NotFound(
                    f"{side} has no legal action of type {type_!r}"
                    + (f" for {actor!r}" if actor is not None else " without an actor")
                )
            found = fam.options(next(a for a in actors if (None if a is None else str(a)) == actor))
            return redact_obj(
                jsonable(
                    {
                        "seq": len(g.actions),
                        "type": type_,
                        "actor": actor,
                        "options": [
                            {"action": a, "text": g.ruleset.describe_action(g, a)} for a in found
                        ],
                    }
                ),
                sv.hidden,
            )

    def acting_hint(self, game_id: str) -> list[str]:
        """The sides to act in this process's cached copy of the game, read without its lock
        (empty when not cached or while it changes): only an ordering hint for pushes."""
        with self._cache_lock:
            e = self._cache.get(game_id)
        if e is None:
            return []
        try:
            return list(e.game.acting_sides())
        except Exception:  # the game is being changed by another thread: no hint
            return []

    def board(self, game_id: str) -> dict[str, Any]:
        """The static map of the game's scenario (the same for every side)."""
        cached = self._boards.get(game_id)
        if cached is not None:
            return cached
        e = self.entry(game_id)
        data = board_json(e.game.board, e.game.ruleset)
        data["scenario"] = {"id": e.row.scenario_id, "title": e.row.title, "sides": e.row.sides}
        self._boards[game_id] = data
        if len(self._boards) > 4 * self.cache_size:
            self._boards.pop(next(iter(self._boards)))
        return data

    # ================================================================== acting
    def act(
        self,
        game_id: str,
        side: str,
        action: Mapping[str, Any],
        key: str | None = None,
        agent: str | None = None,
        at: str | None = None,
    ) -> dict[str, Any]:
        """Apply ``action`` for ``side``; then any standing orders that now apply. Persist each
        one.

        With an idempotency ``key``, an action that ``side`` already sent with the same key is
        not applied again: the answer names the stored action (``repeated``); the same key with
        another action is a conflict. An action that another process's change overtook is judged
        again on the new position, unless ``at`` (the :func:`position` it was chosen in) is
        given: it is then applied in that position only (:class:`Conflict` otherwise). ``agent``:
        the computer chose it (stored with the action, see :mod:`grognard.server.ai_worker`).
        """
        act = dict(action)
        if "side" not in act:
            act["side"] = side
        if act["side"] != side:
            raise Forbidden(f"this token acts for {side} only, not for {act['side']!r}")
        if agent is None and "agent" in act:
            raise Illegal(
                "core:action", "the 'agent' mark is the server's, for the computer's moves only"
            )
        if agent is not None:
            act["agent"] = agent  # recorded with the action and on its events (Game.apply)
        for _attempt in range(WRITE_ATTEMPTS):
            with self.locked(game_id) as e:
                g = e.game
                if key is not None:
                    stored = self.store.action_by_key(game_id, side, key)
                    if stored is not None:
                        return self._repeated(stored, act, key)
                if at is not None and position(g) != at:
                    raise Conflict("the game moved on since this action was chosen")
                before = set(g.acting_sides())
                self._check(g, side, act)
                try:
                    events = g.apply(act)
                except IllegalAction as err:
                    raise Illegal(err.rule, redact(err.message, self.hidden(g, side))) from None
                if not self._persist(e, key, agent):
                    continue
                own = [
                    ev
                    for ev in events
                    if ev.get("visible_to") is None or side in ev.get("visible_to", [])
                ]
                auto = self._run_standing_orders(e)
                self._notify_new(e, before)
                if self.after_change is not None:
                    self.after_change(game_id)
                return {
                    "ok": True,
                    "seq": len(g.actions),
                    "events": redact_obj(
                        [
                            {k: v for k, v in ev.items() if k not in ("visible_to", "others", "n")}
                            for ev in g.ruleset.conceal_events(g, side, own)
                        ],
                        self.hidden(g, side),
                    ),
                    "standing_applied": auto,
                }
        raise Conflict("the game kept changing while this action was applied; send it again")

    def _check(self, g: Game, side: str, action: Mapping[str, Any]) -> None:
        """Refuse ``action`` as the rules would if it is illegal now, judged with every name of a
        piece ``side`` may not see replaced by a name no piece has (see :func:`mask_unseen`), so
        the answer never tells whether a name belongs to a hidden piece. An action the rule code
        cannot read at all (a list where it expects a name, ...) is refused as malformed."""
        hidden = self.hidden(g, side)
        masked, names = mask_unseen(dict(action), hidden)
        try:
            g.check(masked)
        except IllegalAction as err:
            raise Illegal(err.rule, unmask(redact(err.message, hidden), names)) from None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
            log.warning("malformed action refused (%s: %s)", type(err).__name__, err)
            raise ServiceError(
                "malformed action: the rule system cannot read it (check the names and types"
                " of its fields against the legal actions)"
            ) from None

    @staticmethod
    def _repeated(stored: Mapping[str, Any], action: Mapping[str, Any], key: str) -> dict[str, Any]:
        """The answer to an action sent again with the idempotency key of stored action ``n``."""
        n = int(stored["n"])
        if serial.canonical(json.loads(stored["action"])) != serial.canonical(action):
            raise Conflict(
                f"this Idempotency-Key ({key!r}) was sent with another action (action {n});"
                " use a new key for a new action"
            )
        return {"ok": True, "seq": n, "repeated": True, "events": [], "standing_applied": 0}

    def _persist(self, e: Entry, key: str | None = None, agent: str | None = None) -> bool:
        """Store the game's last action; False (and the cached game dropped) if another process
        changed the game first or already stored this idempotency key: the caller computes again
        on the stored position."""
        g = e.game
        n = len(g.actions)
        action = serial.to_jsonable(g.actions[-1])
        h = stored_hash(g)
        try:
            e.revision = self.store.append_action(
                e.row.id,
                n,
                action["side"],
                action,
                h,
                self._status(g),
                key,
                expect=e.revision,
                agent=agent,
            )
        except (Stale, Duplicate):
            self._evict(e.row.id)
            return False
        except BaseException:
            # The in-memory game is ahead of the database: drop it so the next use reloads it.
            self._evict(e.row.id)
            raise
        if n % SNAPSHOT_EVERY == 0:
            self._snapshot(e.row.id, g, h)
        return True

    def _run_standing_orders(self, e: Entry) -> int:
        g = e.game
        applied = 0
        for _ in range(MAX_STANDING_STEPS):
            picked = None
            for s in g.acting_sides():
                orders = self._orders(e, s)
                a = standing.pick(g, s, orders)
                if a is not None:
                    picked = a
                    break
            if picked is None:
                return applied
            try:
                g.apply(picked)
            except IllegalAction as err:
                log.warning(
                    "standing order for %s refused by the rules: %s", picked.get("side"), err
                )
                return applied
            if not self._persist(e):
                return applied  # another process changed the game: it runs the orders now due
            applied += 1
        return applied

    def _orders(self, e: Entry, side: str) -> list[dict[str, Any]]:
        if side not in e.orders:
            e.orders[side] = self.store.standing_orders(e.row.id, side)
        return e.orders[side]

    def _notify_new(self, e: Entry, before: set[str]) -> None:
        after = e.game.acting_sides()
        for s in after:
            if s not in before:
                self.notify(e.row.id, s)

    def undo(self, game_id: str, side: str) -> dict[str, Any]:
        with self.locked(game_id) as e:
            g = e.game
            n = len(g.actions)
            before = set(g.acting_sides())
            try:
                taken = g.undo(side)
                e.undos += 1
            except UndoError as err:
                raise Conflict(f"cannot undo: {redact(str(err), self.hidden(g, side))}") from None
            try:
                e.revision = self.store.remove_last_action(
                    game_id, n, self._status(g), expect=e.revision
                )
            except Stale:
                self._evict(game_id)
                raise Conflict("the game changed meanwhile: nothing was undone") from None
            except BaseException:
                self._evict(game_id)
                raise
            self._notify_new(e, before)
            return {"ok": True, "seq": len(g.actions), "undone": taken}

    def set_standing_orders(
        self, game_id: str, side: str, orders: list[dict[str, Any]]
    ) -> dict[str, Any]:
        self.store.set_standing_orders(game_id, side, orders)
        with self.locked(game_id) as e:
            e.orders[side] = list(orders)
            before = set(e.game.acting_sides())
            auto = self._run_standing_orders(e)
            self._notify_new(e, before)
            if auto and self.after_change is not None:
                self.after_change(game_id)  # the orders may have handed the move to the computer
            return {"ok": True, "orders": orders, "standing_applied": auto}

    def standing_orders(self, game_id: str, side: str) -> list[dict[str, Any]]:
        with self.locked(game_id) as e:
            return list(self._orders(e, side))

    def preview(self, game_id: str, side: str, action: Mapping[str, Any]) -> dict[str, Any]:
        with self.locked(game_id) as e:
            g = e.game
            act = dict(action)
            act.setdefault("side", side)
            if act["side"] != side:
                raise Forbidden(f"this token acts for {side} only")
            self._check(g, side, act)
            try:
                out = hooks.preview(g, act)
            except IllegalAction as err:
                raise Illegal(err.rule, redact(err.message, self.hidden(g, side))) from None
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
                log.warning("preview failed (%s: %s)", type(err).__name__, err)
                raise ServiceError("the rule system cannot preview this action") from None
            return redact_obj(serial.to_jsonable(out), self.hidden(g, side))

    def reachable(self, game_id: str, side: str, pieces: list[str]) -> dict[str, Any]:
        with self.locked(game_id) as e:
            g = e.game
            own = {p.id for p in g.state.of_side(side)}
            bad = [p for p in pieces if p not in own]
            if bad:
                raise Forbidden(f"{side} has no piece {bad[0]!r}")
            try:
                hexes = hooks.reachable(g, side, pieces)
            except IllegalAction as err:
                raise Illegal(err.rule, redact(err.message, self.hidden(g, side))) from None
            return redact_obj(
                serial.to_jsonable({"pieces": pieces, "hexes": hexes}), self.hidden(g, side)
            )

    def record(self, game_id: str, side: str) -> dict[str, Any]:
        """The full game record, only once the game is over (it holds every side's secrets)."""
        with self.locked(game_id) as e:
            if not e.game.is_over():
                raise Forbidden(
                    "the game record (with every side's actions) is available once the game is over"
                )
            return self.sign(serial.to_jsonable(e.game.record()))

    # ================================================================== signed saves
    def sign(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """``data`` (a save or record) signed with this server's key."""
        return savefile.sign(data, self.key)

    def import_game(self, data: Any, hotseat: bool = False) -> tuple[str, dict[str, str]]:
        """Start a game from a save or record this server signed (see :meth:`record`), replayed
        with every recorded hash checked; return its id and one fresh token per side."""
        try:
            savefile.check_save(data)
        except SaveError as err:
            raise Malformed("save", f"save: {err}") from None
        try:
            savefile.verify(data, self.key)
        except SaveError as err:
            raise Forbidden(str(err)) from None
        start = {
            **{k: v for k, v in data.items() if k != "snapshot"},
            "actions": [],
            "checkpoints": data["checkpoints"][:1],
            "state_hash": "",
            "chain": "",
        }
        want = {int(c["after"]): str(c["hash"]) for c in data["checkpoints"]}
        try:
            g = savefile.load_game(start, allow_data_change=self.allow_data_change)
            stored: list[tuple[str, dict[str, Any], str]] = []
            for i, a in enumerate(data["actions"], start=1):
                try:
                    g.apply(a)
                except IllegalAction as err:
                    raise SaveError(f"action {i} is illegal on replay: {err}") from None
                h = g.state_hash()
                if want.get(i, h) != h:
                    raise SaveError(f"the replay diverged at action {i} (turn {g.turn_label()})")
                stored.append((a["side"], serial.to_jsonable(g.actions[-1]), "v2:" + h))
            if g.state_hash() != data["state_hash"]:
                raise SaveError("the replay does not reach the save's final state_hash")
        except GrognardError as err:
            raise Conflict(f"the save cannot be imported: {err}") from None
        rec = g.record()
        game_id = secrets.token_hex(8)
        now = time.time()
        row = GameRow(
            id=game_id,
            scenario_id=g.scenario.id,
            title=g.scenario.title,
            ruleset=rec["ruleset"],
            scenario_source=rec["scenario_source"],
            scenario_file=rec["scenario_file"],
            scenario_hash=rec["scenario_hash"],
            data_hash=rec["data_hash"],
            table_overrides=rec["table_overrides"],
            options=rec["options"],
            seed=rec["seed"],
            sides=list(g.state.sides),
            created=now,
            hotseat=hotseat,
            updated=now,
            status=self._status(g),
        )
        tokens = {side: new_token() for side in g.state.sides}
        self.store.create_game(row, {s: hash_token(t) for s, t in tokens.items()}, stored)
        if stored:
            self._snapshot(game_id, g, stored[-1][2])
        self._put(Entry(row, g))
        return game_id, tokens
