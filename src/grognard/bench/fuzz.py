"""Seeded fuzzing of what comes from outside: scenario files, save files and the server's API.

Each mutator derives its changes from ``random.Random(seed)``, so a run is reproducible from its
seed and count; a case that fails is reported with the mutation that produced it.

* :func:`fuzz_scenarios` mutates the text of the shipped scenario files (lines deleted, repeated
  or swapped, numbers and strings replaced by values of other types or out of range, keys
  misspelt, the file cut short, maps blown up). Each mutant must load as a valid scenario that
  starts a game, or be refused by a :class:`~grognard.scenario.ScenarioError` naming the file and,
  for each problem, the key (or the TOML line).
* :func:`fuzz_saves` mutates saves of short games of shipped scenarios (keys deleted, values
  replaced, hashes and actions changed, 100,000-deep arrays, lone surrogates, the file cut
  short). Each mutant must load, or be refused with one line (a
  :class:`~grognard.core.errors.GrognardError`).
* :func:`fuzz_api` runs schemathesis against the server's OpenAPI description, in process:
  every answer must be below 500 and every refusal in the documented ``{error, message}``
  shape.

The test suite runs small counts; ``benchmarks/fuzz.py`` runs the long version.
"""

from __future__ import annotations

import json
import random
import re
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hseed

from grognard.core.errors import GrognardError
from grognard.core.game import Game
from grognard.core.savefile import load_game, parse_save
from grognard.scenario import ScenarioError, find, load_scenario_text

# shipped scenarios and how many of every 100 mutations each gets (the small ones load fastest)
SCENARIO_WEIGHTS = {"gw-tutorial": 40, "lgg-tutorial": 40, "marne-1914": 10, "lgg-west-1914": 10}
SAVE_SCENARIOS = ("lgg-tutorial", "gw-tutorial")


@dataclass
class Report:
    """What a fuzzing run did: cases, how they ended, and the failures (with their mutation)."""

    what: str
    cases: int = 0
    valid: int = 0
    refused: int = 0
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "cases": self.cases,
            "valid": self.valid,
            "refused": self.refused,
            "failures": len(self.failures),
            "seconds": round(self.seconds, 1),
            "first_failures": self.failures[:10],
        }


# ====================================================================== scenario files
_NUMBER = re.compile(r"(?<![\w.\-])-?\d+(?:\.\d+)?(?![\w.\-])")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_KEY = re.compile(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*=)", re.M)
_MAP_SIZE = re.compile(r"^(cols|rows) = \[\s*-?\d+\s*,\s*-?\d+\s*\]", re.M)
NUMBER_SWAPS = ["-1000000", "-1", "0", "1000000000", "9223372036854775808", "3.5", '"x"', "true"]
NUMBER_SWAPS += ["[]", "{}", "nan", "inf"]
STRING_SWAPS = ['""', "42", "false", '"zz-unknown"', '["a"]', '"\\u0000"', "{ x = 1 }"]


def _typo(word: str, rng: random.Random) -> str:
    k = rng.randrange(len(word))
    op = rng.randrange(3)
    if op == 0:
        return word[:k] + word[k + 1 :] or word + "s"
    if op == 1:
        return word[:k] + rng.choice("aesx_") + word[k:]
    return word + "s"


def mutate_scenario(text: str, rng: random.Random) -> tuple[str, str]:
    """One random change to a scenario's TOML text, and what it was."""
    lines = text.split("\n")
    op = rng.randrange(10)
    i = rng.randrange(len(lines))
    if op == 0:
        return "\n".join(lines[:i] + lines[i + 1 :]), f"line {i + 1} deleted"
    if op == 1:
        return "\n".join(lines[: i + 1] + lines[i:]), f"line {i + 1} repeated"
    if op == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines), f"lines {i + 1} and {j + 1} swapped"
    if op == 3:
        cut = rng.randrange(len(text))
        return text[:cut], f"cut at character {cut}"
    if op in (4, 5):
        found = list(_NUMBER.finditer(text))
        if found:
            m = rng.choice(found)
            new = rng.choice(NUMBER_SWAPS)
            return text[: m.start()] + new + text[
                m.end() :
            ], f"{m.group(0)} -> {new} at {m.start()}"
    if op == 6:
        found = list(_STRING.finditer(text))
        if found:
            m = rng.choice(found)
            new = rng.choice(STRING_SWAPS)
            return text[: m.start()] + new + text[
                m.end() :
            ], f"{m.group(0)} -> {new} at {m.start()}"
    if op == 7:
        found = list(_KEY.finditer(text))
        if found:
            m = rng.choice(found)
            new = _typo(m.group(2), rng)
            return (
                text[: m.start(2)] + new + text[m.end(2) :],
                f"key {m.group(2)} -> {new} at {m.start()}",
            )
    if op == 8 and rng.random() < 0.5:
        found = list(_MAP_SIZE.finditer(text))
        if found:
            m = rng.choice(found)
            new = f"{m.group(1)} = [1, {rng.choice([100_000, 200_000, 10**9])}]"
            return text[: m.start()] + new + text[m.end() :], f"{m.group(0)} -> {new}"
    k = rng.randrange(len(text))
    ch = rng.choice(['"', "[", "]", "{", "=", "\n", "#", "\\", "\x00", "é"])
    return text[:k] + ch + text[k:], f"{ch!r} inserted at {k}"


def check_scenario_mutant(name: str, text: str) -> tuple[str, str | None]:
    """``("valid" | "refused", None)`` when a mutant ends cleanly, else ``("failure", why)``."""
    try:
        sc = load_scenario_text(text, name)
    except ScenarioError as e:
        if not e.problems:
            return "failure", f"a ScenarioError without problems: {e}"
        for path, msg in e.problems:
            if not path and "TOML" not in msg:
                return "failure", f"a problem naming no key: {msg[:200]}"
        if not all(line.startswith(f"{name}: ") for line in str(e).splitlines()):
            return "failure", f"a line not naming the file: {str(e)[:200]}"
        return "refused", None
    except Exception as e:  # anything else is a defect of the validation
        return "failure", f"{type(e).__name__} while loading: {e}"[:300] + _where(e)
    try:
        Game.new(sc, 1)
    except Exception as e:
        return "failure", f"validated, but Game.new raised {type(e).__name__}: {e}"[:300] + _where(
            e
        )
    return "valid", None


def _where(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    own = [f for f in tb if "grognard" in f.filename]
    f = (own or tb)[-1] if tb else None
    return f" [{f.filename.rsplit('/src/', 1)[-1]}:{f.lineno}]" if f else ""


def fuzz_scenarios(
    count: int,
    seed: int = 1,
    deadline: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """``count`` seeded mutations of the shipped scenario files (see :func:`mutate_scenario`)."""
    rep = Report("scenario files")
    start = time.perf_counter()
    sources = {sid: find(sid) for sid in SCENARIO_WEIGHTS}
    plan = [sid for sid, w in SCENARIO_WEIGHTS.items() for _ in range(w)]
    for k in range(count):
        if deadline is not None and time.perf_counter() > deadline:
            break
        rng = random.Random(f"scenario/{seed}/{k}")
        sid = plan[k % len(plan)]
        sc = sources[sid]
        text, what = mutate_scenario(sc.source_text, rng)
        outcome, why = check_scenario_mutant(sc.source_name, text)
        rep.cases += 1
        if outcome == "valid":
            rep.valid += 1
        elif outcome == "refused":
            rep.refused += 1
        else:
            rep.failures.append(f"{sid} mutation {k} ({what}): {why}")
        if progress is not None and (k + 1) % 100 == 0:
            progress(f"scenarios: {k + 1} cases, {len(rep.failures)} failures")
    rep.seconds = time.perf_counter() - start
    return rep


# ====================================================================== save files
DEEP = "__DEEP__"
SAVE_VALUES: list[Any] = [None, True, 0, -1, 2**70, 1.5, "", "abc", "\ud800", [], {}, [[1]], DEEP]


def base_save(scenario_id: str, actions: int, seed: int = 1) -> dict[str, Any]:
    """The save of a short game of a shipped scenario: ``actions`` legal actions chosen by a
    seeded generator."""
    rng = random.Random(f"base/{scenario_id}/{seed}")
    g = Game.new(find(scenario_id), seed)
    for _ in range(actions):
        sides = g.acting_sides()
        if not sides:
            break
        legal = g.legal_actions(sides[0])
        if not legal:
            break
        g.apply(rng.choice(legal))
    out: dict[str, Any] = json.loads(json.dumps(g.save()))
    return out


def _nodes(obj: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k != "scenario_source":
                out.extend(_nodes(v, (*path, k)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.extend(_nodes(v, (*path, i)))
    return out


def _get(obj: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        obj = obj[p]
    return obj


def mutate_save(data: dict[str, Any], rng: random.Random) -> tuple[str, str]:
    """One random change to a save, as the text of the changed file, and what it was."""
    d = json.loads(json.dumps(data))
    op = rng.randrange(9)
    nodes = [p for p in _nodes(d) if p]
    what = ""
    if op == 0:
        p = rng.choice(nodes)
        parent = _get(d, p[:-1])
        del parent[p[-1]]
        what = f"{p} deleted"
    elif op in (1, 2):
        p = rng.choice(nodes)
        v = rng.choice(SAVE_VALUES)
        _get(d, p[:-1])[p[-1]] = v
        what = f"{p} -> {v!r}"
    elif op == 3:
        key = rng.choice(["state_hash", "data_hash", "scenario_hash"])
        h = d[key]
        k = rng.randrange(len(h))
        d[key] = h[:k] + ("0" if h[k] != "0" else "1") + h[k + 1 :]
        what = f"{key} digit {k} changed"
    elif op == 4 and d["actions"]:
        k = rng.randrange(len(d["actions"]))
        kind = rng.randrange(3)
        if kind == 0:
            d["actions"].pop(k)
        elif kind == 1:
            d["actions"].insert(k, dict(d["actions"][k]))
        else:
            j = rng.randrange(len(d["actions"]))
            d["actions"][k], d["actions"][j] = d["actions"][j], d["actions"][k]
        what = f"action {k + 1} {['dropped', 'repeated', 'swapped'][kind]}"
    elif op == 5 and d["actions"]:
        a = rng.choice(d["actions"])
        key = rng.choice(sorted(a))
        a[key] = rng.choice([*SAVE_VALUES, "zz-nope", "Entente", "0101"])
        what = f"an action's {key} -> {a[key]!r}"
    elif op == 6:
        d[_typo(rng.choice(sorted(d)), rng)] = 1
        what = "a key misspelt (added)"
    elif op == 7:
        d["scenario_source"] += rng.choice(["\n# edited\n", "\n[[pieces]]\n", "x"])
        what = "scenario text edited"
    else:
        d["seed"] = d["seed"] + 1
        what = "seed + 1"
    text = json.dumps(d, ensure_ascii=True)
    text = text.replace(json.dumps(DEEP), "[" * 100_000 + "]" * 100_000)
    if rng.random() < 0.08:
        cut = rng.randrange(len(text))
        text = text[:cut]
        what += f", cut at {cut}"
    return text, what


def check_save_mutant(text: str) -> tuple[str, str | None]:
    """``("valid" | "refused", None)`` when a mutated save ends cleanly, else a failure."""
    try:
        load_game(parse_save(text))
    except GrognardError as e:
        msg = str(e)
        if not msg or "\n" in msg:
            return "failure", f"not one line: {msg[:300]!r}"
        return "refused", None
    except Exception as e:
        return "failure", f"{type(e).__name__}: {e}"[:300] + _where(e)
    return "valid", None


def fuzz_saves(
    count: int,
    seed: int = 1,
    actions: int = 12,
    deadline: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """``count`` seeded mutations of saves of short games (see :func:`mutate_save`)."""
    rep = Report("save files")
    start = time.perf_counter()
    bases = {sid: base_save(sid, actions, seed) for sid in SAVE_SCENARIOS}
    for k in range(count):
        if deadline is not None and time.perf_counter() > deadline:
            break
        rng = random.Random(f"save/{seed}/{k}")
        sid = SAVE_SCENARIOS[k % len(SAVE_SCENARIOS)]
        text, what = mutate_save(bases[sid], rng)
        outcome, why = check_save_mutant(text)
        rep.cases += 1
        if outcome == "valid":
            rep.valid += 1
        elif outcome == "refused":
            rep.refused += 1
        else:
            rep.failures.append(f"{sid} save mutation {k} ({what}): {why}")
        if progress is not None and (k + 1) % 100 == 0:
            progress(f"saves: {k + 1} cases, {len(rep.failures)} failures")
    rep.seconds = time.perf_counter() - start
    return rep


# ====================================================================== the server's API
DOCUMENTED_ERROR_KEYS = {"error", "message", "rule", "problems"}


def error_shape_problem(status: int, body: bytes) -> str | None:
    """Why an answer breaks the documented contract (a 5xx, or a refusal not shaped
    ``{"error", "message"}``), or None."""
    if status >= 500:
        return f"status {status}: {body[:200]!r}"
    if status < 400:
        return None
    try:
        doc = json.loads(body)
    except ValueError:
        return f"status {status}: the body is not JSON: {body[:200]!r}"
    if not isinstance(doc, dict) or not {"error", "message"} <= set(doc) <= DOCUMENTED_ERROR_KEYS:
        return f"status {status}: not the documented shape: {body[:200]!r}"
    if not (isinstance(doc["error"], str) and isinstance(doc["message"], str) and doc["message"]):
        return f"status {status}: error and message must be non-empty strings: {body[:200]!r}"
    return None


def without_lifespan(app: Any) -> Any:
    """``app`` with its lifespan left to its owner: schemathesis runs the lifespan of the app it
    is given around every request, and the server's ends by closing its database."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await app(scope, receive, send)
            return
        while True:
            msg = await receive()
            if msg["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif msg["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    return wrapped


def fuzz_api(
    app: Any,
    game_id: str,
    token: str,
    examples: int = 10,
    seed: int = 1,
    deadline: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """schemathesis against ``app``'s OpenAPI description, in process: ``examples`` generated
    requests per operation and round (every other one sent to the real game ``game_id`` with
    ``token``), rounds with seeds ``seed``, ``seed + 1``, ... until ``deadline`` (one round
    without a deadline)."""
    rep = Report("server API (schemathesis)")
    start = time.perf_counter()
    schema = schemathesis.openapi.from_asgi("/openapi.json", without_lifespan(app))
    operations = [r.ok() for r in schema.get_all_operations()]  # type: ignore[union-attr]
    round_seed = seed
    while True:
        for op in operations:
            _api_round(op, examples, round_seed, game_id, token, rep)()
        if progress is not None:
            progress(f"api: round {round_seed}: {rep.cases} cases, {len(rep.failures)} failures")
        round_seed += 1
        if deadline is None or time.perf_counter() > deadline:
            break
    rep.seconds = time.perf_counter() - start
    return rep


def _api_round(
    op: Any, examples: int, round_seed: int, game_id: str, token: str, rep: Report
) -> Callable[[], None]:
    """The hypothesis test sending ``examples`` generated requests for one operation."""
    count = [0]

    @hseed(round_seed)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=op.as_strategy())
    def one(case: Any) -> None:
        count[0] += 1
        if count[0] % 2 == 0:
            if "game_id" in (case.path_parameters or {}):
                case.path_parameters["game_id"] = game_id
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
        rep.cases += 1
        try:
            resp = case.call()
        except Exception as e:  # the in-process client re-raises what the server did not handle
            rep.failures.append(f"{op.method.upper()} {op.path}: {type(e).__name__}: {e}"[:300])
            return
        bad = error_shape_problem(resp.status_code, resp.content)
        if bad is None:
            rep.valid += resp.status_code < 400
            rep.refused += resp.status_code >= 400
        else:
            rep.failures.append(f"{op.method.upper()} {op.path}: {bad}")

    return one
