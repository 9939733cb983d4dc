"""Golden games: recorded games whose every position must be reproduced by later engines.

A golden game is a shipped scenario, a seed and the actions a biased random chooser took
(:func:`choose`), with a *summary* of the state after every action: every piece's location,
face, status and attributes, the control of every hex, the turn pointer (the turn record and
the path of steps) and the text of the log. Summaries are stored as differences from the
previous one (:func:`delta`), gzip-compressed JSON, one file per game under ``games/``.

:func:`summary` reads the state only through the core's public pieces, control, turn, frames
and log. If a rule system's state layout changes, this function is the documented converter:
it must keep producing the same summary for the same position.

``python -m tests.golden record`` (re)records, ``python -m tests.golden check`` replays; the
suite replays every game (``tests/golden/test_golden.py``).
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

from grognard.core import serial
from grognard.core.game import Game
from grognard.scenario import find

HERE = Path(__file__).resolve().parent
GAMES = HERE / "games"
SCENARIOS = ("gw-tutorial", "marne-1914", "lgg-tutorial", "lgg-west-1914", "eastfront-tutorial")
SEEDS = tuple(range(1, 11))
MAX_ACTIONS = 600

# Action types that start or carry a fight: combat, bombardment, overrun, activation of an army
# (battles, sieges and great battles follow from it), reaction, interception, reserve commitment.
FAVOURED = {
    "attack": 12.0,
    "bombard": 6.0,
    "overrun": 6.0,
    "activate": 12.0,
    "coordinate": 6.0,
    "react": 6.0,
    "intercept": 6.0,
    "commit-reserves": 4.0,
    "deploy-reserve": 3.0,
    "assault": 8.0,
    "siege": 8.0,
    "great-offensive": 8.0,
    "offensive": 8.0,
}
ENDING = ("end-phase", "pass", "end-movement", "end-turn", "end-activation")
END_SHARE = 0.04


def near_enemy(g: Game, side: str, radius: int = 2) -> dict[str, int]:
    """Hex label -> distance (0..radius) to the nearest hex holding a piece of another side."""
    out: dict[str, int] = {}
    for p in g.state.pieces.values():
        if p.side == side or p.loc.kind != "hex":
            continue
        for j in g.board.within(int(p.loc.ref), radius):
            lab = g.board.label(j)
            d = g.board.distance(int(p.loc.ref), j)
            if d < out.get(lab, radius + 1):
                out[lab] = d
    return out


def _weight(a: dict[str, Any], near: dict[str, int]) -> float:
    w = FAVOURED.get(str(a.get("type")), 1.0)
    to = a.get("to")
    if w == 1.0 and isinstance(to, str) and to in near:
        w = (10.0, 4.0, 2.0)[min(near[to], 2)]  # moves toward (or into) the enemy
    return w


def choose(
    actions: list[dict[str, Any]], rng: random.Random, near: dict[str, int] | None = None
) -> dict[str, Any]:
    """A random legal action, weighted towards the ones that lead to fights (:data:`FAVOURED`,
    moves ending next to the enemy), ending a phase with at least a 1-in-25 chance when there
    is anything else to do."""
    ends = [a for a in actions if a.get("type") in ENDING]
    others = [a for a in actions if a.get("type") not in ENDING]
    if ends and others and rng.random() < max(END_SHARE, 0.2 * len(ends) / (len(others) + 1)):
        return rng.choice(ends)
    pool = others or ends
    weights = [_weight(a, near or {}) for a in pool]
    # favoured types share a fixed part of the choice however many moves are listed
    fav = sum(w for a, w in zip(pool, weights, strict=True) if a.get("type") in FAVOURED)
    plain = sum(w for a, w in zip(pool, weights, strict=True) if a.get("type") not in FAVOURED)
    if fav and plain:
        scale = max(1.0, plain / (4.0 * fav))
        weights = [
            w * scale if a.get("type") in FAVOURED else w
            for a, w in zip(pool, weights, strict=True)
        ]
    return rng.choices(pool, weights=weights, k=1)[0]


def _piece_rec(p: Any) -> list[Any]:
    return [
        list(p.loc),
        p.face,
        sorted(p.status),
        json.loads(serial.canonical(p.attrs)),
        p.side,
    ]


def summary(g: Game) -> dict[str, Any]:
    """The comparable summary of a position (see the module docstring)."""
    return _summary_with(g, {pid: _piece_rec(p) for pid, p in g.state.pieces.items()})


def _summary_with(g: Game, pieces: dict[str, list[Any]]) -> dict[str, Any]:
    st = g.state
    return {
        "pieces": pieces,
        "control": {str(k): v for k, v in st.control.items()},
        "turn": json.loads(serial.canonical(st.turn)),
        "path": [f.step for f in st.frames],
        "result": json.loads(serial.canonical(st.result)),
        "log": [str(ev.get("text", "")) for ev in st.log],
    }


#: :func:`check` summarises every this many actions from scratch; in between, only the pieces
#: whose revision moved (:class:`Summaries`)
FULL_EVERY = 20


class Summaries:
    """:func:`summary` of one game after each action, redoing only the records of the pieces
    the state reports changed since the last one (``GameState.rev_of(("piece", id))``). The
    summary is made from scratch every :data:`FULL_EVERY` calls, and whenever the state object
    is new or its revision went back, so a change the state failed to report is still caught,
    a few actions later."""

    def __init__(self) -> None:
        self.calls = 0
        self._state: Any = None
        self._rev = -1
        self._pieces: dict[str, list[Any]] = {}

    def of(self, g: Game) -> dict[str, Any]:
        st = g.state
        self.calls += 1
        full = (
            self.calls % FULL_EVERY == 1
            or st is not self._state
            or st.revision < self._rev
            or len(st.pieces) != len(self._pieces)
        )
        if full:
            s = summary(g)
            self._pieces = dict(s["pieces"])
        else:
            old, rev, rev_of = self._pieces, self._rev, st.rev_of
            pieces: dict[str, list[Any]] = {}
            for pid, p in st.pieces.items():
                rec = old.get(pid)
                pieces[pid] = _piece_rec(p) if rec is None or rev_of(("piece", pid)) > rev else rec
            self._pieces = pieces
            s = _summary_with(g, dict(pieces))
        self._state, self._rev = st, st.revision
        return s


def delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed from ``before`` to ``after`` (``None`` marks a removed piece or hex)."""
    out: dict[str, Any] = {}
    pb, pa = before["pieces"], after["pieces"]
    pieces = {k: v for k, v in pa.items() if pb.get(k) != v}
    pieces.update({k: None for k in pb if k not in pa})
    if pieces:
        out["p"] = pieces
    cb, ca = before["control"], after["control"]
    control = {k: v for k, v in ca.items() if cb.get(k) != v}
    control.update({k: None for k in cb if k not in ca})
    if control:
        out["c"] = control
    for key, short in (("turn", "t"), ("path", "f"), ("result", "r")):
        if before[key] != after[key]:
            out[short] = after[key]
    lb, la = before["log"], after["log"]
    if la[: len(lb)] != lb:
        out["L"] = la  # the log was rewritten: store it whole
    elif len(la) > len(lb):
        out["l"] = la[len(lb) :]
    return out


def patch(s: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
    """Apply :func:`delta` output to a summary (returns a new summary)."""
    out = {
        "pieces": dict(s["pieces"]),
        "control": dict(s["control"]),
        "turn": s["turn"],
        "path": s["path"],
        "result": s["result"],
        "log": list(s["log"]),
    }
    for k, v in d.get("p", {}).items():
        if v is None:
            out["pieces"].pop(k, None)
        else:
            out["pieces"][k] = v
    for k, v in d.get("c", {}).items():
        if v is None:
            out["control"].pop(k, None)
        else:
            out["control"][k] = v
    for key, short in (("turn", "t"), ("path", "f"), ("result", "r")):
        if short in d:
            out[key] = d[short]
    if "L" in d:
        out["log"] = list(d["L"])
    elif "l" in d:
        out["log"].extend(d["l"])
    return out


def record(scenario_id: str, seed: int, max_actions: int = MAX_ACTIONS) -> dict[str, Any]:
    """Play and record one golden game (game seed and chooser seed are both ``seed``)."""
    sc = find(scenario_id)
    g = Game.new(sc, seed)
    rng = random.Random(seed)
    start = summary(g)
    prev = start
    actions: list[dict[str, Any]] = []
    deltas: list[dict[str, Any]] = []
    while not g.is_over() and len(actions) < max_actions:
        sides = g.acting_sides()
        side = rng.choice(sides)
        legal = g.legal_actions(side)
        if not legal:
            raise RuntimeError(f"{scenario_id} seed {seed}: {side} has no legal action")
        action = choose(legal, rng, near_enemy(g, side))
        g.apply(action)
        actions.append(action)
        now = summary(g)
        deltas.append(delta(prev, now))
        prev = now
    return {
        "format": "grognard-golden",
        "scenario": scenario_id,
        "seed": seed,
        "options": dict(g.options),
        "actions": serial.to_jsonable(actions),
        "start": start,
        "deltas": deltas,
        "over": g.is_over(),
    }


def path_of(scenario_id: str, seed: int) -> Path:
    return GAMES / scenario_id / f"seed-{seed:02d}.json.gz"


def write(data: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    path.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))


def read(path: Path) -> dict[str, Any]:
    return json.loads(gzip.decompress(path.read_bytes()))


def _first_difference(want: Any, got: Any, where: str = "") -> str:
    if isinstance(want, dict) and isinstance(got, dict):
        for k in sorted(set(want) | set(got), key=str):
            if k not in got:
                return f"{where}/{k}: missing (want {str(want[k])[:200]})"
            if k not in want:
                return f"{where}/{k}: unexpected {str(got[k])[:200]}"
            if want[k] != got[k]:
                return _first_difference(want[k], got[k], f"{where}/{k}")
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{where}[{i}]")
    return f"{where}: want {str(want)[:300]} got {str(got)[:300]}"


def check(data: dict[str, Any]) -> str | None:
    """Replay a golden game; None when every summary matches, else where it first differs."""
    sc = find(data["scenario"])
    g = Game.new(sc, int(data["seed"]), data.get("options") or {})
    want = data["start"]
    summaries = Summaries()
    got = summaries.of(g)
    if got != want:
        return "set-up: " + _first_difference(want, got)
    for n, (action, d) in enumerate(zip(data["actions"], data["deltas"], strict=True), start=1):
        g.apply(serial.from_jsonable(action))
        want = patch(want, d)
        got = summaries.of(g)
        if got != want:
            return f"after action {n} {action}: " + _first_difference(want, got)
    if summary(g) != want:
        return "at the end: " + _first_difference(want, summary(g))
    if g.is_over() != bool(data["over"]):
        return f"game over is {g.is_over()}, recorded {data['over']}"
    return None
