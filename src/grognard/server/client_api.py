"""Read-only endpoints the browser client needs beside the game API: the rules reference of a
game's rule system (rule ids with title and status, its documentation page), the charts and
tables a game uses (provisional ones marked, result codes explained), the declared action types,
and the game-over summary (victory points by turn).

Everything here is static rule-system data, the same for every side, except the summary, which
is answered only once the game is over (when the whole record is open to both sides anyway).
The map is also served here, encoded once per scenario and cacheable by the browser (its ETag
names the scenario's content), so that a game opens without the server exporting and encoding
the same board again. Mounted on the app by :func:`mount`; a background thread then computes
every rule system's rule table (the slow part of the first reference: reading the tests' rule
markers), so the first game's reference is answered at once.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, FastAPI, Header
from fastapi.responses import PlainTextResponse, Response

from grognard import rulesets
from grognard.core import rules, saves, serial
from grognard.core.errors import GrognardError
from grognard.core.game import Game
from grognard.core.tables import ResultsTable
from grognard.server.service import Forbidden, GameService, NotFound

Auth = Annotated[str | None, Header(description="Bearer TOKEN of one side")]

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
CODES_FILE = WEB_DIR / "codes.toml"
ROOT = Path(__file__).resolve().parents[3]
DOCS_DIR = ROOT / "docs" / "rulesets"
TESTS_DIR = ROOT / "tests"
# data files that are catalogues (orders of battle, unit types, the rule list), not charts
NOT_CHARTS = ("rules.toml", "units.toml", "catalogue.toml", "nations.toml", "theaters.toml")
MAPS_KEPT = 32  # encoded maps kept in memory (one per scenario and options)


@functools.cache
def rule_table(name: str) -> dict[str, dict[str, str]]:
    """Rule id -> title and status (``tested``, ``implemented``, ``missing``,
    ``outside-seeds``), as ``grognard rules`` reports them; computed once per process."""
    rs = rulesets.get(name)
    rs.load_rule_modules()
    rows = rules.coverage(rs.rule_list(), rules.implemented(), tested_rules())
    return {r["id"]: {"title": r["title"], "status": r["status"]} for r in rows}


@functools.cache
def tested_rules() -> dict[str, list[str]] | None:
    """The rule ids the test suite names (None where the tests are not installed)."""
    return rules.scan_tests([TESTS_DIR]) if TESTS_DIR.is_dir() else None


_warm_lock = threading.Lock()


def warm_rule_tables() -> None:
    """Compute every rule system's rule table (in a background thread at start-up)."""
    for name in rulesets.names():
        with _warm_lock:
            try:
                rule_table(name)
            except GrognardError:
                continue


class Reference:
    """Per rule system, computed once and kept: rule statuses, charts, result codes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._maps: dict[str, bytes] = {}
        self._charts: dict[str, list[dict[str, Any]]] = {}
        self._codes: dict[str, Any] | None = None
        self._summaries: dict[tuple[str, int], dict[str, Any]] = {}

    def rule_table(self, name: str) -> dict[str, dict[str, str]]:
        """The rule system's rule table (see :func:`rule_table`)."""
        with _warm_lock:
            return rule_table(name)

    def map_json(self, service: GameService, game_id: str) -> tuple[bytes, str]:
        """The game's board (as :meth:`GameService.board` exports it) encoded once per scenario
        content, options, title and sides, with its ETag."""
        e = service.entry(game_id)
        with e.lock:
            g = e.game
            key = json.dumps(
                [
                    g.ruleset.name,
                    g.scenario.id,
                    g.scenario.content_hash,
                    e.row.title,
                    list(e.row.sides),
                    serial.to_jsonable(g.options),
                ],
                sort_keys=True,
                default=str,
            )
        etag = hashlib.sha256(key.encode()).hexdigest()[:24]
        with self._lock:
            hit = self._maps.get(etag)
        if hit is None:
            hit = json.dumps(service.board(game_id), separators=(",", ":")).encode()
            with self._lock:
                self._maps[etag] = hit
                while len(self._maps) > MAPS_KEPT:
                    self._maps.pop(next(iter(self._maps)))
        return hit, etag

    def codes(self, name: str) -> dict[str, Any]:
        with self._lock:
            if self._codes is None:
                self._codes = tomllib.loads(CODES_FILE.read_text(encoding="utf-8"))
            return dict(self._codes.get(name, {}))

    def charts(self, g: Game) -> list[dict[str, Any]]:
        """Every results table the game uses (with the scenario's overrides) and the rule
        system's other charts, each with its title, provisional flag and derivation."""
        key = f"{g.ruleset.name}/{g.record()['data_hash']}"
        with self._lock:
            hit = self._charts.get(key)
            if hit is not None:
                return hit
        out: list[dict[str, Any]] = []
        tables = g.ruleset.tables(g.scenario.table_overrides)
        for t in tables.values():
            out.append(table_json(t))
        table_files = {p.resolve() for p in g.ruleset.table_files().values()}
        for p in g.ruleset.game_data_files(g.scenario):
            if p.resolve() in table_files or p.name in NOT_CHARTS or p.suffix != ".toml":
                continue
            try:
                data = tomllib.loads(p.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError):
                continue
            out.append(chart_json(p.relative_to(g.ruleset.data_dir), data))
        with self._lock:
            self._charts[key] = out
        return out

    def summary(self, game_id: str, g: Game) -> dict[str, Any]:
        key = (game_id, len(g.actions))
        with self._lock:
            hit = self._summaries.get(key)
        if hit is None:
            hit = summary(g)
            with self._lock:
                self._summaries[key] = hit
        return hit


def table_json(t: ResultsTable) -> dict[str, Any]:
    return {
        "id": t.id,
        "kind": "results",
        "title": t.title,
        "die": str(t.die),
        "columns": list(t.columns),
        "rows": [[k, *map(str, t.rows[k])] for k in sorted(t.rows)],
        "provisional": t.provisional,
        "derived_from": list(t.derived_from),
        "notes": t.notes,
    }


def chart_json(rel: Path, data: Mapping[str, Any]) -> dict[str, Any]:
    meta = ("id", "title", "provisional", "derived_from", "notes")
    return {
        "id": str(data.get("id", rel.with_suffix("").as_posix())),
        "kind": "chart",
        "title": str(data.get("title", rel.stem.replace("-", " ").replace("_", " "))),
        "provisional": bool(data.get("provisional", False)),
        "derived_from": [str(x) for x in data.get("derived_from", [])],
        "notes": str(data.get("notes", "")),
        "data": serial.to_jsonable({k: v for k, v in data.items() if k not in meta}),
    }


def objective_points(g: Game) -> dict[str, int]:
    """The scenario's objectives and their points (``[victory] objectives`` as a list of
    ``{hex, points}`` or a table ``hex = points``)."""
    v = getattr(g.scenario.data, "victory", None)
    obs = v.get("objectives") if isinstance(v, Mapping) else None
    out: dict[str, int] = {}
    if isinstance(obs, Mapping):
        for h, pts in obs.items():
            if isinstance(pts, int):
                out[str(h)] = pts
    elif isinstance(obs, list):
        for ob in obs:
            if isinstance(ob, Mapping) and "hex" in ob:
                out[str(ob["hex"])] = int(ob.get("points", 1))
    return out


def conditions(g: Game) -> str:
    v = getattr(g.scenario.data, "victory", None)
    return str(v.get("description", "")) if isinstance(v, Mapping) else ""


def summary(g: Game) -> dict[str, Any]:
    """Who won, why, and the objective points each side owned at the end of each game turn
    (replayed from the record)."""
    objectives = objective_points(g)
    by_turn: list[dict[str, Any]] = []

    def score(game: Game) -> dict[str, int]:
        pts = dict.fromkeys(game.state.sides, 0)
        for h, n in objectives.items():
            owner = game.state.control.get(game.board.idx(h)) if game.board.has_label(h) else None
            if owner in pts:
                pts[owner] += n
        return pts

    if objectives:
        rec = g.record()
        replay = saves.rebuild(
            Game,
            rec["scenario_source"],
            rec["scenario_file"],
            rec["table_overrides"],
            rec["seed"],
            rec["options"],
            [],
        )
        turn = replay.turn_label()
        for a in g.actions:
            replay.apply(dict(a))
            if replay.turn_label() != turn:
                by_turn.append({"turn": turn, "points": score(replay)})
                turn = replay.turn_label()
        by_turn.append({"turn": turn, "points": score(replay)})
    result = dict(g.state.result or {})
    points = (
        result.get("points") or result.get("scores") or (by_turn[-1]["points"] if by_turn else {})
    )
    margin = None
    if isinstance(points, Mapping) and len(points) >= 2:
        ranked = sorted((int(v) for v in points.values()), reverse=True)
        margin = ranked[0] - ranked[1]
    return serial.to_jsonable(
        {
            "over": True,
            "winner": result.get("winner"),
            "reason": result.get("reason", ""),
            "rule": result.get("rule", ""),
            "points": points,
            "margin": margin,
            "objectives": objectives,
            "conditions": conditions(g),
            "by_turn": by_turn,
            "turn": g.turn_label(),
            "actions": len(g.actions),
        }
    )


def action_types(g: Game) -> dict[str, dict[str, Any]]:
    """The declared action types: title, rule ids, label template and fields."""
    cat = g.ruleset.actions
    if cat is None:
        return {}
    return {
        t.name: {
            "title": g.ruleset.action_title(t.name),
            "rules": list(t.rules),
            "label": t.label,
            "fields": {f.name: f.kind for f in t.fields},
        }
        for t in cat
    }


def doc_text(name: str) -> str:
    p = DOCS_DIR / f"{name}.md"
    if not p.is_file():
        raise NotFound(f"no documentation page for rule system {name!r}")
    return p.read_text(encoding="utf-8")


def router(service: GameService, side_of: Callable[[str, str | None], str]) -> APIRouter:
    ref = Reference()
    api = APIRouter(tags=["client"])

    async def run(fn: Any, *args: Any) -> Any:
        return await anyio.to_thread.run_sync(fn, *args)

    def reference(game_id: str) -> dict[str, Any]:
        e = service.entry(game_id)
        with e.lock:
            g = e.game
            name = g.ruleset.name
            charts = ref.charts(g)
            acts = action_types(g)
        return {
            "ruleset": name,
            "title": g.ruleset.title,
            "doc": f"/api/rulesets/{name}/doc",
            "rules": ref.rule_table(name),
            "charts": charts,
            "codes": ref.codes(name),
            "actions": acts,
        }

    def game_summary(game_id: str) -> dict[str, Any]:
        e = service.entry(game_id)
        with e.lock:
            g = e.game
            if not g.is_over():
                raise Forbidden("the summary is available once the game is over")
            try:
                return ref.summary(game_id, g)
            except GrognardError as err:
                raise NotFound(f"the game cannot be summed up: {err}") from None

    @api.get("/api/games/{game_id}/reference")
    async def get_reference(game_id: str, authorization: Auth = None) -> dict[str, Any]:
        """The game's rule system reference: rule ids (title, status), charts and tables in use
        (provisional ones marked), result codes explained, declared action types."""
        await run(side_of, game_id, authorization)
        return await run(reference, game_id)

    @api.get("/api/games/{game_id}/map", response_class=Response)
    async def get_map(
        game_id: str,
        authorization: Auth = None,
        if_none_match: Annotated[str | None, Header()] = None,
    ) -> Response:
        """The map, as ``/board`` answers it, encoded once per scenario; cacheable (``ETag``,
        private ``max-age``): the browser fetches a game's map once."""
        await run(side_of, game_id, authorization)
        body, etag = await run(ref.map_json, service, game_id)
        headers = {"ETag": f'"{etag}"', "Cache-Control": "private, max-age=86400"}
        if if_none_match and etag in if_none_match:
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="application/json", headers=headers)

    @api.get("/api/games/{game_id}/summary")
    async def get_summary(game_id: str, authorization: Auth = None) -> dict[str, Any]:
        """Once the game is over: the winner, the reason, the margin and the objective points
        each side owned at the end of every turn."""
        await run(side_of, game_id, authorization)
        return await run(game_summary, game_id)

    @api.get("/api/rulesets/{name}/doc", response_class=PlainTextResponse)
    async def get_doc(name: str) -> PlainTextResponse:
        """The rule system's documentation page (Markdown, as plain text)."""
        if name not in rulesets.names():
            raise NotFound(f"no rule system {name!r}")
        return PlainTextResponse(await run(doc_text, name))

    return api


def mount(app: FastAPI) -> None:
    """Add the client endpoints to the app built by :func:`grognard.server.app.create_app`."""
    service: GameService = app.state.service

    def side_of(game_id: str, authorization: str | None) -> str:
        token = None
        if authorization and authorization.lower().startswith("bearer "):
            token = authorization[7:].strip()
        return service.authenticate(game_id, token)

    app.include_router(router(service, side_of))
    threading.Thread(target=warm_rule_tables, name="grognard-rule-tables", daemon=True).start()
