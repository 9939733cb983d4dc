"""Self-play: random legal-action agents with invariant checks after every action.

Used by ``grognard selfplay`` to shake out rule bugs: every listed legal action must
be accepted, core and rule-system invariants must hold after every action, no view
may contain a fact hidden from its side, undo must restore the exact prior state, and
the finished game must replay to the same hashes.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from grognard.core.errors import GrognardError, IllegalAction
from grognard.core.game import Game
from grognard.core.state import GameState
from grognard.scenario import Scenario


@dataclass
class SelfplayReport:
    games: int = 0
    finished: int = 0
    actions: int = 0
    undos: int = 0
    invariant_violations: int = 0
    replay_mismatches: int = 0
    view_leaks: int = 0
    refused_legal_actions: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    # one entry per game, in game order: its number, winner (None: a draw or not finished),
    # the reason and rule the game gave, and its actions
    results: list[dict[str, Any]] = field(default_factory=list)

    def wins(self) -> dict[str, int]:
        """Games won per side ("draw" for finished games without a winner, "unfinished")."""
        out: dict[str, int] = {}
        for r in self.results:
            key = r["winner"] or ("draw" if r["finished"] else "unfinished")
            out[key] = out.get(key, 0) + 1
        return dict(sorted(out.items()))

    def note(self, text: str) -> None:
        if len(self.problems) < 50:
            self.problems.append(text)

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "finished": self.finished,
            "actions": self.actions,
            "undos": self.undos,
            "invariant_violations": self.invariant_violations,
            "replay_mismatches": self.replay_mismatches,
            "view_leaks": self.view_leaks,
            "refused_legal_actions": self.refused_legal_actions,
            "seconds": round(self.seconds, 3),
            "wins": self.wins(),
            "results": self.results,
            "problems": self.problems,
        }


def core_invariants(g: Game, initial_ids: set[str]) -> list[str]:
    """Engine-level invariants: every piece somewhere valid, none lost or duplicated."""
    out: list[str] = []
    st = g.state
    ids = set(st.pieces)
    lost = initial_ids - ids
    if lost:
        out.append(f"core: pieces vanished from the game: {sorted(lost)[:5]}")
    for p in st.pieces.values():
        kind, ref = p.loc
        if kind == "hex" and not (isinstance(ref, int) and 0 <= ref < g.board.n):
            out.append(f"core: {p.id} is on a hex that is not on the board ({ref!r})")
        elif kind == "hexside" and not (isinstance(ref, int) and 0 <= ref < g.board.m):
            out.append(f"core: {p.id} is on an unknown hexside ({ref!r})")
        elif kind == "area" and ref not in g.board.areas:
            out.append(f"core: {p.id} is in an unknown area ({ref!r})")
        elif kind == "piece":
            if ref not in st.pieces:
                out.append(f"core: {p.id} is inside a piece that does not exist ({ref!r})")
            else:
                try:
                    st.where(p.id)
                except ValueError as e:
                    out.append(f"core: {e}")
        elif kind not in ("hex", "hexside", "area", "box", "piece", "none"):
            out.append(f"core: {p.id} has an unknown location kind {kind!r}")
    return out


def view_leaks(g: Game) -> list[str]:
    """Hidden tokens of each side found anywhere in that side's view (a full check)."""
    return LeakCheck().check(g)


_WORD = re.compile(r"[\w-]+")


def _json_key(k: Any) -> str:
    """The text JSON writes for a dictionary key."""
    if isinstance(k, str):
        return k
    if k is True or k is False:
        return "true" if k else "false"
    return "null" if k is None else json.dumps(k)


def _strings(obj: Any) -> list[str]:
    """Every string of JSON-like data, keys included (as JSON writes them)."""
    out: list[str] = []
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, str):
            out.append(o)
        elif isinstance(o, dict):
            for k, v in o.items():
                out.append(_json_key(k))
                stack.append(v)
        elif isinstance(o, (list, tuple)):
            stack.extend(o)
    return out


class _Corpus:
    """Strings of part of a view, indexed to find tokens: the strings themselves, their words
    (maximal runs of letters, digits, ``_`` and ``-``) and their text."""

    def __init__(self, obj: Any) -> None:
        self.parts = _strings(obj)
        self.whole = set(self.parts)
        self.words: set[str] = set()
        for x in self.whole:
            self.words.update(_WORD.findall(x))
        self._text: str | None = None

    def has(self, token: str) -> bool:
        """``token`` is one of the strings, or stands inside one as a whole word (not as part of
        a longer word: ``DE-1-II`` is not found in ``DE-1-III``)."""
        if token in self.whole:
            return True
        if _WORD.fullmatch(token):
            return token in self.words
        if self._text is None:
            self._text = "\n".join(self.parts)
        text = self._text
        at = text.find(token)
        while at != -1:
            end = at + len(token)
            if not (at and _WORD.match(text, at - 1, at)) and not (
                end < len(text) and _WORD.match(text, end, end + 1)
            ):
                return True
            at = text.find(token, at + 1)
        return False


class LeakCheck:
    """Finds each side's hidden tokens (:meth:`Ruleset.hidden_tokens`) in its view.

    The view without its log must not hold a hidden token as a string (a key or a value) nor as
    a whole word inside one (a piece id in a label). No log entry may hold one as a whole string
    (a structured field naming a hidden piece); log sentences are the rule system's business
    (what a side was shown when it happened stays in its log: a stack seen in a battle and
    hidden again at the end of the same action is still named in that battle's lines).

    The log only grows between checks (an undo shortens it) and its entries never change: a
    token already found absent from the first ``k`` entries is looked for only in the entries
    added since, a token newly hidden in the whole log.
    """

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}  # log entries already indexed, per side
        self.last: dict[str, str] = {}  # the JSON text of the last of them (to notice a rewrite)
        self.logs: dict[str, set[str]] = {}  # the strings of those entries
        self.clean: dict[str, set[str]] = {}  # tokens known absent from those entries

    def reset(self) -> None:
        """Forget what was checked (after an undo, which rewrites the log's tail)."""
        self.seen.clear()
        self.last.clear()
        self.logs.clear()
        self.clean.clear()

    def check(self, g: Game) -> list[str]:
        out = []
        for side in g.state.sides:
            tokens = g.ruleset.hidden_tokens(g, side)
            if not tokens:
                continue
            view = g.view(side)
            log = view.pop("log", [])
            rest = _Corpus(view)
            n = self.seen.get(side, 0)
            if len(log) < n or (
                n and json.dumps(log[n - 1], sort_keys=True) != self.last.get(side)
            ):
                n = 0  # the log was shortened (undo) or rewritten: start again
            if n == 0:
                self.logs[side] = set()
                self.clean[side] = set()
            fresh = set(_strings(log[n:]))
            old = self.logs[side]
            old |= fresh
            self.seen[side] = len(log)
            if log:
                self.last[side] = json.dumps(log[-1], sort_keys=True)
            clean = self.clean[side]
            now_clean = set()
            for t in sorted(tokens):
                if (t in fresh if t in clean else t in old) or rest.has(t):
                    out.append(f"view leak: {side} can see hidden {t!r}")
                else:
                    now_clean.add(t)
            self.clean[side] = now_clean
        return out


Chooser = Callable[[Game, str, list[dict[str, Any]], random.Random], dict[str, Any]]


ENDING = ("end-phase", "pass")
END_SHARE = 0.04  # the least chance, per decision, of ending the phase when other choices exist


def random_choice(
    g: Game, side: str, actions: list[dict[str, Any]], rng: random.Random
) -> dict[str, Any]:
    """Uniform over legal actions, ending a phase at a fifth of another choice's weight, but
    ending it with at least a 1-in-25 chance per decision, so that phases with hundreds of
    possible one-hex moves still end after a few dozen actions and random games reach combat,
    reactions, later turns and the end of the game."""
    ends = [a for a in actions if a.get("type") in ENDING]
    others = [a for a in actions if a.get("type") not in ENDING]
    if not ends or not others:
        return rng.choice(actions)
    share = max(0.2 * len(ends) / (0.2 * len(ends) + len(others)), END_SHARE)
    if rng.random() < share:
        return rng.choice(ends)
    return rng.choice(others)


def play_one(
    scenario: Scenario,
    seed: int,
    agent_seed: int,
    report: SelfplayReport,
    max_steps: int = 2000,
    chooser: Chooser = random_choice,
    check_views: bool = True,
    undo_rate: float = 0.05,
    game_no: int | None = None,
) -> Game:
    rng = random.Random(agent_seed)
    leaks_check = LeakCheck()
    g = Game.new(scenario, seed)
    initial = set(g.state.pieces)
    report.games += 1
    number = game_no if game_no is not None else report.games
    steps = 0

    def check(where: str) -> None:
        probs = core_invariants(g, initial) + g.ruleset.invariants(g)
        if probs:
            report.invariant_violations += len(probs)
            for p in probs:
                report.note(f"game {number} {where}: {p}")
        if check_views:
            leaks = leaks_check.check(g)
            if leaks:
                report.view_leaks += len(leaks)
                for p in leaks:
                    report.note(f"game {number} {where}: {p}")

    check("setup")
    while not g.is_over() and steps < max_steps:
        sides = g.acting_sides()
        if not sides:
            report.invariant_violations += 1
            report.note(
                f"game {number}: no side may act but the game is not over ({g.phase_path()})"
            )
            break
        side = rng.choice(sides)
        legal = g.legal_actions(side)
        if not legal:
            report.invariant_violations += 1
            report.note(
                f"game {number}: {side} must act in {g.phase_path()[-1]} but has no legal action"
            )
            break
        action = chooser(g, side, legal, rng)
        try_undo = bool(undo_rate) and rng.random() < undo_rate
        before = g.state_hash() if try_undo else None  # hashing the whole state is not free
        try:
            g.apply(action)
        except IllegalAction as e:
            report.refused_legal_actions += 1
            report.note(f"game {number}: listed legal action refused: {action} ({e})")
            # a refused action must change nothing: the state must equal a replay of the record
            if Game.load(g.record()).state_hash() != g.state_hash():
                report.invariant_violations += 1
                report.note(f"game {number}: refused action changed the state")
            break
        steps += 1
        report.actions += 1
        if try_undo and g.can_undo():
            g.undo()
            leaks_check.reset()
            report.undos += 1
            if g.state_hash() != before:
                report.invariant_violations += 1
                report.note(f"game {number}: undo did not restore the state before {action}")
            continue
        check(f"after action {len(g.actions)} {action.get('type')}")
    if g.is_over():
        report.finished += 1
    result = g.state.result or {}
    report.results.append(
        {
            "game": number,
            "finished": g.is_over(),
            "winner": result.get("winner"),
            "reason": result.get("reason"),
            "rule": result.get("rule"),
            "actions": len(g.actions),
        }
    )
    try:
        again = Game.load(g.record())
        if again.state_hash() != g.state_hash():
            report.replay_mismatches += 1
            report.note(f"game {number}: replay ended on a different state")
    except GrognardError as e:
        report.replay_mismatches += 1
        report.note(f"game {number}: replay failed: {e}")
    round_trip = GameState.from_json(json.loads(json.dumps(g.state.to_json())))
    if round_trip.digest() != g.state.digest():
        report.invariant_violations += 1
        report.note(f"game {number}: state does not survive a JSON round trip")
    return g


def _one_game(job: tuple[Scenario, int, int, int, int, bool]) -> SelfplayReport:
    scenario, number, game_seed, agent_seed, max_steps, check_views = job
    rep = SelfplayReport()
    t0 = time.perf_counter()
    play_one(
        scenario,
        game_seed,
        agent_seed,
        rep,
        max_steps=max_steps,
        check_views=check_views,
        game_no=number,
    )
    rep.seconds = time.perf_counter() - t0
    return rep


def merge(total: SelfplayReport, part: SelfplayReport) -> None:
    """Add one game's report to the running total."""
    for name in (
        "games",
        "finished",
        "actions",
        "undos",
        "invariant_violations",
        "replay_mismatches",
        "view_leaks",
        "refused_legal_actions",
    ):
        setattr(total, name, getattr(total, name) + getattr(part, name))
    for text in part.problems:
        total.note(text)
    total.results.extend(part.results)


def selfplay(
    scenario: Scenario,
    games: int,
    seed: int,
    max_steps: int = 2000,
    check_views: bool = True,
    jobs: int = 1,
    progress: Callable[[int, SelfplayReport], None] | None = None,
    start: int = 1,
) -> SelfplayReport:
    """Play ``games`` random games. Game ``k``'s dice and agent seeds are drawn from ``seed``
    before any game is played, so the report is the same whatever the number of ``jobs``
    (worker processes) sharing the games. ``start``: play only games ``start``..``games`` (game
    ``k`` is the same game whatever ``start``: a long run may be split in parts whose reports
    add up to the whole run's). ``progress`` is called after each game, in order, with its number.
    """
    report = SelfplayReport()
    t0 = time.perf_counter()
    master = random.Random(seed)
    todo = []
    for k in range(1, games + 1):
        game_seed = master.randrange(1, 2**31)
        agent_seed = master.randrange(1, 2**31)
        if k >= start:
            todo.append((scenario, k, game_seed, agent_seed, max_steps, check_views))
    if jobs > 1 and len(todo) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(
            max_workers=min(jobs, len(todo)), mp_context=multiprocessing.get_context("fork")
        ) as pool:
            results = pool.map(_one_game, todo)
            for job, part in zip(todo, results, strict=True):
                merge(report, part)
                if progress:
                    progress(job[1], part)
    else:
        for job in todo:
            part = _one_game(job)
            merge(report, part)
            if progress:
                progress(job[1], part)
    report.seconds = time.perf_counter() - t0
    return report
