"""The Game API: legal actions, apply, undo, views, hashes, clones, saves and replays.

A game is fully determined by its scenario, rule-system data, options, seed and the list of
actions applied so far. A save holds that list and, beside it, a snapshot of the state after the
last action, so loading costs the same whatever the game's length; a hash chain over the actions
and the snapshot refuses an edited file, and ``verify=True`` replays the whole log from the start
and checks the state hash recorded at every turn boundary.

Every incoming action is checked against its declaration (:mod:`grognard.core.actions`) before
any rule code sees it, then by the current step's handler for its type, and only then applied.
A refused action changes nothing; if rule code fails half-way, the state is rebuilt from the
last snapshot and the actions since it.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard import __version__
from grognard.core import hashing, saves, serial
from grognard.core.actions import agent_mark, without_mark
from grognard.core.cache import Cache
from grognard.core.dice import DieSpec, roll_spec
from grognard.core.errors import IllegalAction, ReplayMismatch, SaveError, UndoError
from grognard.core.inbound import problem
from grognard.core.modifiers import Modifiers
from grognard.core.sequence import Action, Family, Step
from grognard.core.state import Frame, GameState
from grognard.core.tracked import copy_plain

if TYPE_CHECKING:
    from grognard.board import Board
    from grognard.rulesets.base import Ruleset
    from grognard.scenario.model import Scenario

SAVE_SCHEMA = 2
MAX_AUTOMATIC_STEPS = 1_000_000
HASH_VERSION = "grognard-state-2"


class Roll(dict[str, Any]):
    """A die roll event: ``natural``, ``modified``, ``faces``, ``die``, ``reason``, ``rule``."""

    @property
    def natural(self) -> int:
        return int(self["natural"])

    @property
    def modified(self) -> int:
        return int(self["modified"])


@dataclass(frozen=True)
class ChanceOutcome:
    """One possible result of the chance event an action leads to, with its exact probability.

    ``naturals`` are the natural die values that produce it (in the order rolled); a search may
    apply the action on a clone with :meth:`Game.force_dice` to reach the resulting state."""

    probability: Fraction
    label: str
    naturals: tuple[int, ...]


class Game:
    """One game in progress. Create it with :meth:`new` or :meth:`load`."""

    def __init__(
        self, ruleset: Ruleset, scenario: Scenario, seed: int, options: Mapping[str, Any]
    ) -> None:
        self.ruleset = ruleset
        self.scenario = scenario
        self.board: Board = scenario.board
        self.seed = int(seed)
        self.options: dict[str, Any] = dict(options)
        self.state = GameState()
        self.actions: list[Action] = []
        self.barriers: list[bool] = []
        self.checkpoints: list[dict[str, Any]] = []
        self.chain: list[str] = []
        self._snap_at = 0
        self._snap: GameState | None = None
        self._keeps_undo = True  # False: a search copy (see clone)
        self._broken: str | None = None  # why a search copy may not be used any more
        self._revealed = False
        self._forced: list[int] = []
        self.cache = Cache(static=self.board.derived)
        self._hash_memo: tuple[tuple[int, int], str] = ((-1, -1), "")
        self._header = hashing.header_bytes(scenario.id, self.seed, self.options)

    # ================================================================== creation
    @classmethod
    def new(
        cls, scenario: Scenario, seed: int = 1, options: Mapping[str, Any] | None = None
    ) -> Game:
        """Start a game of ``scenario`` with the given seed and option choices."""
        ruleset = scenario.ruleset
        resolved = ruleset.option_set().resolve(scenario.options, options or {}, where="options")
        g = cls(ruleset, scenario, seed, resolved)
        g.state.sides = list(scenario.sides)
        ruleset.setup(g)
        g._advance()
        g.state.sync()
        g._snap = g.state.clone()
        g._snap_at = 0
        g.checkpoints.append({"after": 0, "turn": g.turn_label(), "hash": g.state_hash()})
        return g

    def clone(self, undo: bool = True) -> Game:
        """An independent copy of the game (for search): same position, actions and dice stream.

        The clone shares the scenario, the board and the keyed part of the cache, nothing that
        changes; applying actions to one never affects the other.

        With ``undo`` False, a *search copy* (so are all its own clones): it keeps no snapshot
        for undo, where a game copies its whole state at every action that rolls dice, reveals
        something or hands play to another side (the planner's evaluations apply one such action
        per copy). It cannot undo, and an action refused half-way through its application (rule
        code raising after the check passed) leaves it unusable: every later action on it is
        refused (the agents drop such a copy). A copy whose hidden pieces are dealt out again
        for search is such a copy, so that nothing is ever rebuilt from the true state."""
        g: Game = object.__new__(Game)
        g.ruleset = self.ruleset
        g.scenario = self.scenario
        g.board = self.board
        g.seed = self.seed
        g.options = dict(self.options)
        g.state = self.state.clone()
        g.actions = list(self.actions)
        g.barriers = list(self.barriers)
        g.checkpoints = list(self.checkpoints)
        g.chain = list(self.chain)
        g._keeps_undo = undo and self._keeps_undo
        g._broken = self._broken
        if g._keeps_undo:
            g._snap_at = self._snap_at
            g._snap = self._snap  # snapshots are never changed, only cloned from
        else:
            g._snap_at = len(self.actions)
            g._snap = None
        g._revealed = False
        g._forced = list(self._forced)
        g.cache = self.cache.clone(
            ((self.state.epoch, self.state.revision), (g.state.epoch, g.state.revision))
        )
        g._hash_memo = (
            ((g.state.epoch, g.state.revision), self._hash_memo[1])
            if self._hash_memo[0] == (self.state.epoch, self.state.revision)
            else ((-1, -1), "")
        )
        g._header = self._header
        return g

    # ================================================================== queries
    @property
    def steps(self) -> Mapping[str, Step]:
        return self.ruleset.steps

    def opt(self, key: str) -> Any:
        """The value of a rule option (unknown keys are a programming error)."""
        return self.options[key]

    def turn_label(self) -> str:
        return str(self.state.turn.get("label", self.state.turn.get("index", "")))

    def current(self) -> tuple[Step, Frame] | None:
        if not self.state.frames or self.state.result is not None:
            return None
        f = self.state.frames[-1]
        return self.steps[f.step], f

    def acting_sides(self) -> list[str]:
        cur = self.current()
        if cur is None:
            return []
        step, f = cur
        return list(step.actors(self, f))

    def phase_path(self) -> list[str]:
        return [self.steps[f.step].label(self, f) for f in self.state.frames]

    def families(self, side: str) -> list[Family]:
        """The legal actions of ``side`` grouped by type, then actor, computed on demand."""
        self.state.sync()
        cur = self.current()
        if cur is None:
            return []
        step, f = cur
        if side not in step.actors(self, f):
            return []
        return step.families(self, f, side)

    def legal_actions(self, side: str) -> list[Action]:
        """Every legal action of ``side`` now (the flattening of :meth:`families`)."""
        self.state.sync()
        cur = self.current()
        if cur is None:
            return []
        step, f = cur
        if side not in step.actors(self, f):
            return []
        return step.legal_actions(self, f, side)

    def is_over(self) -> bool:
        return self.state.result is not None or not self.state.frames

    # ================================================================== checking one action
    def piece_visible(self, side: str) -> Any:
        """``f(id) -> bool``: may ``side`` name that piece in an action (it exists and is seen)?"""

        def visible(pid: str) -> bool:
            p = self.state.pieces.get(pid)
            if p is None:
                return False
            if p.side == side:
                return True
            return bool(self.ruleset.piece_visibility(self, p, side) == "full")

        return visible

    def validate(self, action: Any) -> Action:
        """The action as declared (fields checked, unknown ones refused), or IllegalAction. An
        ``agent`` mark (the computer chose it) is checked and left out: rules never see it."""
        if isinstance(action, Mapping) and agent_mark(action) is not None:
            action = without_mark(action)
        if isinstance(action, Mapping):
            unusable = problem(action, "action")
            if unusable is not None:
                raise IllegalAction("core:action", unusable)
        catalog = self.ruleset.actions
        side = action.get("side") if isinstance(action, Mapping) else None
        if catalog is None:
            return self._normalise(action)
        visible = self.piece_visible(side) if isinstance(side, str) else None
        return catalog.validate(action, visible)

    def check(self, action: Any) -> Action:
        """Decide whether ``action`` is legal now, without listing the other actions and without
        changing anything. Returns the action as the engine would store it; raises
        :class:`IllegalAction` naming the rule that forbids it.

        An action found legal is remembered for the position (the position part of the cache,
        which a clone keeps until it changes): checking it again, or applying it after
        ``is_legal`` on this game or on a clone made since, costs a lookup."""
        if self._broken is not None:
            raise IllegalAction("core:search-copy", self._broken)
        self.state.sync()
        try:
            key: Any = ("core:checked", serial.fast_canonical(action))
        except (TypeError, ValueError, OverflowError, RecursionError):  # refused by validate
            key = None
        if key is None:
            return self._check(action)
        legal: Action = self.cache.position(self.state, key, lambda: self._check(action))
        return copy_plain(legal)  # type: ignore[no-any-return]

    def _check(self, action: Any) -> Action:
        """:meth:`check` itself (the state already synced)."""
        action = self.validate(action)
        cur = self.current()
        if cur is None:
            raise IllegalAction("core:game-over", "the game is over")
        step, f = cur
        side = action["side"]
        if side not in self.state.sides:
            raise IllegalAction("core:side", f"unknown side {side!r}")
        if side not in step.actors(self, f):
            raise IllegalAction(step.rule, f"{side} may not act now ({step.label(self, f)})")
        step.check(self, f, action)
        out: Action = action
        return out

    def is_legal(self, action: Any) -> bool:
        """True when :meth:`check` accepts ``action``."""
        try:
            self.check(action)
        except IllegalAction:
            return False
        return True

    def label(self, action: Mapping[str, Any]) -> str:
        """The declared label of an action, with pieces and places named."""
        return self.ruleset.describe_action(self, action)

    def chance_outcomes(self, action: Mapping[str, Any]) -> list[ChanceOutcome] | None:
        """The exact distribution of the chance event ``action`` leads to (None: it leads to
        none the rule system can describe). Probabilities add up to 1."""
        return self.ruleset.chance_outcomes(self, action)

    def force_dice(self, naturals: Iterable[int]) -> None:
        """Make the next rolls come out as ``naturals`` (search on a clone: see
        :class:`ChanceOutcome`). The dice counter advances as for real rolls."""
        self._forced.extend(int(n) for n in naturals)

    # ================================================================== hashing
    def state_hash(self) -> str:
        """Hash of the position, the seed, the scenario id and the rule options.

        Incremental: each piece's encoding is kept until the piece changes; the rest of the state
        is encoded afresh. Equal positions of the same game set-up hash equally."""
        st = self.state
        key = (st.epoch, st.revision)
        if self._hash_memo[0] == key:
            return self._hash_memo[1]
        h = hashlib.sha256(self._header)
        pieces = st.pieces
        for pid in sorted(pieces):
            p = pieces[pid]
            enc = p._enc
            if enc is None:
                enc = hashing.encode_piece(p)
                object.__setattr__(p, "_enc", enc)
            h.update(enc)
        h.update(hashing.encode_rest(st))
        out = h.hexdigest()
        self._hash_memo = (key, out)
        return out

    def legacy_state_hash(self) -> str:
        """The state hash of save schema 1 (used to check files written by older versions)."""
        return serial.digest({"seed": self.seed, "state": self.state.to_json(with_log=False)})

    # ================================================================== rule-code services
    def emit(
        self,
        type: str,
        text: str,
        rule: str | None = None,
        visible_to: Iterable[str] | None = None,
        others: str | None = None,
        reveal: bool = False,
        **data: Any,
    ) -> dict[str, Any]:
        """Append an event to the log.

        ``visible_to`` restricts the event to some sides; ``others`` is the text the
        remaining sides see instead (omit it to hide the event from them entirely).
        ``reveal`` marks an event that shows a side something it did not know: it is an
        information barrier for undo.
        """
        ev: dict[str, Any] = {
            "n": len(self.state.log),
            "type": type,
            "text": text,
            "turn": self.turn_label(),
        }
        if rule:
            ev["rule"] = rule
        if visible_to is not None:
            ev["visible_to"] = sorted(set(visible_to))
            if others is not None:
                ev["others"] = others
        if reveal:
            ev["reveal"] = True
            self._revealed = True
        if data:
            ev["data"] = serial.to_jsonable(data)
        self.state.log.append(ev)
        self.state.changed(("log",))
        return ev

    def roll(
        self,
        die: str,
        reason: str,
        rule: str,
        modifiers: Modifiers | int = 0,
        clamp: tuple[int, int] | None = None,
        visible_to: Iterable[str] | None = None,
    ) -> Roll:
        """Roll dice from the game's seeded stream and log the roll (an undo barrier)."""
        spec = DieSpec.parse(die)
        value, faces, used = roll_spec(self.seed, self.state.dice_counter, spec)
        if self._forced:
            value = self._forced.pop(0)
            faces = [value]
        self.state.dice_counter += used
        mods = (
            modifiers
            if isinstance(modifiers, Modifiers)
            else Modifiers().add(modifiers, rule, "modifier")
        )
        modified = value + int(mods.total())
        clamped = modified
        if clamp is not None:
            clamped = max(clamp[0], min(clamp[1], modified))
        r = Roll(
            die=str(spec),
            faces=faces,
            natural=value,
            modified=clamped,
            unclamped=modified,
            reason=reason,
            rule=rule,
        )
        text = f"{reason}: {spec} rolled {value}"
        if len(mods):
            text += f", modified {modified} ({mods.explain()})"
        if clamped != modified:
            text += f", clamped to {clamped}"
        self.emit(
            "roll",
            text,
            rule=rule,
            visible_to=visible_to,
            others=f"a secret roll ({reason.split(':')[0]})" if visible_to is not None else None,
            die=str(spec),
            faces=faces,
            natural=value,
            modified=clamped,
            modifiers=mods.to_json(),
            reason=reason,
        )
        return r

    def choose_at_random(self, items: list[Any], reason: str, rule: str) -> Any:
        """Pick one item uniformly with the game's dice (logged like a roll)."""
        if not items:
            raise ValueError("nothing to choose from")
        r = self.roll(f"d{len(items)}", reason, rule) if len(items) > 1 else Roll(natural=1)
        return items[r.natural - 1]

    def push(self, step: str, params: Mapping[str, Any] | None = None) -> Frame:
        """Start ``step`` on top of the current one (an interrupt or a sub-procedure)."""
        if step not in self.steps:
            raise KeyError(f"unknown step {step!r}")
        f = Frame(step, dict(params or {}))
        self.state.frames.append(f)
        return f

    def finish(self, f: Frame) -> None:
        """Mark a frame done; it is removed once everything pushed above it has finished."""
        f.done = True

    def end_game(self, winner: str | None, reason: str, rule: str, **data: Any) -> None:
        self.state.result = {
            "winner": winner,
            "reason": reason,
            "rule": rule,
            **serial.to_jsonable(data),
        }
        self.emit(
            "game-over", f"game over: {winner or 'draw'} ({reason})", rule=rule, winner=winner
        )

    def invalidate(self) -> None:
        """Nothing to do: every change of the state is seen by the cache (kept while rule code
        that still calls it is being moved onto the cache)."""

    def cached(self, key: str, compute: Any) -> Any:
        """Memoise a derived value for the current position (:meth:`Cache.position`)."""
        return self.cache.position(self.state, key, compute)

    # ================================================================== running the sequence
    def advance(self) -> None:
        """Run automatic steps until some side must act (after rule code pushed steps itself).

        The engine calls this after every action; tests and set-up code that push steps
        directly call it to let the sequence of play catch up.
        """
        self._advance()

    def _advance(self) -> None:
        frames = self.state.frames
        for _ in range(MAX_AUTOMATIC_STEPS):
            if not frames or self.state.result is not None:
                return
            f = frames[-1]
            step = self.steps[f.step]
            if f.done:
                frames.pop()
                step.leave(self, f)
                continue
            if not f.entered:
                f.entered = True
                step.enter(self, f)
                continue
            if step.composite:
                child = step.next_child(self, f)
                if child is None:
                    f.done = True
                else:
                    self.push(child[0], child[1])
                continue
            if step.actors(self, f):
                return
            depth = len(frames)
            step.run(self, f)
            if not f.done and len(frames) == depth and frames[-1] is f:
                raise RuntimeError(f"automatic step {f.step!r} neither finished nor pushed a step")
        raise RuntimeError("the sequence of play is looping without waiting for any player")

    # ================================================================== actions
    def apply(self, action: Any) -> list[dict[str, Any]]:
        """Check and apply one action; return the events it produced.

        An illegal action raises :class:`IllegalAction` (with the rule id that
        forbids it) and leaves the game exactly as it was. An action marked with the ``agent``
        that chose it (``"agent": "planner:normal"``) is recorded with its mark, and its events
        carry it (the log shows which moves were the computer's; saves and their hash chain
        keep it).
        """
        agent = agent_mark(action) if isinstance(action, Mapping) else None
        action = self.check(action)
        step, f = self.current()  # type: ignore[misc]
        side = action["side"]
        log_mark = len(self.state.log)
        dice_mark = self.state.dice_counter
        turn_before = self.state.turn.get("index")
        self._revealed = False
        self.state.in_action = True
        try:
            step.apply(self, f, action)
            self._advance()
        except BaseException:
            self.state.in_action = False
            if self._snap is None and not self._keeps_undo:
                self._broken = (
                    "this search copy of the game was left half-way through a refused action"
                )
                raise
            self._rebuild()
            raise
        self.state.in_action = False
        events = self.state.log[log_mark:]
        if agent is not None:
            for ev in events:
                ev["agent"] = agent
            action = {**action, "agent": agent}
        self.state.sync()
        self._record(action, side, dice_mark, turn_before)
        return events

    def _record(self, action: Action, side: str, dice_mark: int, turn_before: Any) -> None:
        self.actions.append(action)
        self.chain.append(hashing.chain_next(self.chain[-1] if self.chain else "", action))
        others_now = [s for s in self.acting_sides() if s != side]
        barrier = self.state.dice_counter != dice_mark or self._revealed or bool(others_now)
        self.barriers.append(barrier)
        if barrier:
            # a search copy keeps no snapshot: it never undoes (see clone)
            self._snap = self.state.clone() if self._keeps_undo else None
            self._snap_at = len(self.actions)
        if self.state.turn.get("index") != turn_before or self.is_over():
            self.checkpoints.append(
                {"after": len(self.actions), "turn": self.turn_label(), "hash": self.state_hash()}
            )

    def _normalise(self, action: Any) -> Action:
        if not isinstance(action, dict):
            raise IllegalAction("core:action", "an action must be a JSON object")
        unusable = problem(action, "action")
        if unusable is not None:
            raise IllegalAction("core:action", unusable)
        if not isinstance(action.get("type"), str) or not action["type"]:
            raise IllegalAction("core:action", "an action needs a 'type' string")
        if not isinstance(action.get("side"), str):
            raise IllegalAction("core:action", "an action needs a 'side' string")
        try:
            return serial.from_jsonable(serial.to_jsonable(action))  # type: ignore[no-any-return]
        except TypeError as e:
            raise IllegalAction("core:action", f"action is not plain JSON: {e}") from None

    def _apply_unchecked(self, action: Action) -> None:
        step, f = self.current()  # type: ignore[misc]
        self.state.in_action = True
        try:
            step.apply(self, f, action)
            self._advance()
        finally:
            self.state.in_action = False
        self.state.sync()

    def _rebuild(self) -> None:
        """Restore the state after the last recorded action (used after a failed action)."""
        assert self._snap is not None
        self.cache.reset()
        self._forced = []
        self.state = self._snap.clone()
        self.state.sync()
        for a in self.actions[self._snap_at :]:
            self._apply_unchecked(a)

    def can_undo(self, side: str | None = None) -> bool:
        if not self.actions or self.barriers[-1] or self._snap is None:
            return False
        return side is None or self.actions[-1]["side"] == side

    def undo(self, side: str | None = None) -> Action:
        """Take back the last action, unless that would cross an information barrier.

        A barrier is an action that rolled dice, revealed something, or handed the
        decision to another side. Returns the action taken back.
        """
        if not self.actions:
            raise UndoError("nothing to undo")
        if self.barriers[-1]:
            raise UndoError(
                "the last action rolled dice, revealed information or passed play to the other side"
            )
        if self._snap is None:
            raise UndoError("a search copy of the game keeps nothing to undo from")
        if side is not None and self.actions[-1]["side"] != side:
            raise UndoError(f"the last action was made by {self.actions[-1]['side']}, not {side}")
        last = self.actions.pop()
        self.barriers.pop()
        self.chain.pop()
        while self.checkpoints and self.checkpoints[-1]["after"] > len(self.actions):
            self.checkpoints.pop()
        self._rebuild()
        return last

    # ================================================================== views
    def view(self, side: str | None, log: bool = True) -> dict[str, Any]:
        """What ``side`` may know (``None``: a spectator, who sees only public facts); with
        ``log`` False, without the log (a front end that keeps the log itself, see
        :meth:`visible_log_after`)."""
        self.state.sync()
        return self.ruleset.view(self, side, log)

    def visible_log(self, side: str | None, since: int = 0) -> list[dict[str, Any]]:
        """The log as ``side`` sees it, from global event ``since`` on.

        Events are renumbered per side (``n`` counts only what this side sees), so gaps in
        the numbering never hint that something hidden happened; what the rule system hides
        inside events the side sees is concealed (:meth:`Ruleset.conceal_events`).
        """
        out = []
        seen = 0
        for k, ev in enumerate(self.state.log):
            shown = _shown_event(ev, side)
            if shown is None:
                continue
            shown["n"] = seen
            seen += 1
            if k >= since:
                out.append(shown)
        return self.ruleset.conceal_events(self, side, out)

    def visible_log_after(self, side: str | None, start: int, seen: int) -> list[dict[str, Any]]:
        """The events of :meth:`visible_log` from global event ``start`` on, given that ``side``
        sees ``seen`` events before it (so their numbers follow on): what a front end that
        already holds the side's log up to ``start`` needs, in time proportional to the new
        events only. Logged events never change once emitted."""
        out = []
        for ev in itertools.islice(self.state.log, start, None):
            shown = _shown_event(ev, side)
            if shown is None:
                continue
            shown["n"] = seen
            seen += 1
            out.append(shown)
        return self.ruleset.conceal_events(self, side, out)

    # ================================================================== records and saves
    def record(self) -> dict[str, Any]:
        """The game record: enough to replay the game anywhere and prove the result."""
        sc = self.scenario
        return {
            "format": "grognard-record",
            "schema": SAVE_SCHEMA,
            "engine_version": __version__,
            "ruleset": self.ruleset.name,
            "ruleset_version": self.ruleset.version,
            "data_hash": self.ruleset.data_hash(sc.table_overrides),
            "data_files": self.ruleset.data_digests(sc),
            "scenario_id": sc.id,
            "scenario_hash": sc.content_hash,
            "scenario_source": sc.source_text,
            "scenario_file": sc.source_name,
            "table_overrides": dict(sc.table_overrides),
            "seed": self.seed,
            "options": dict(self.options),
            "actions": list(self.actions),
            "chain": self.chain[-1] if self.chain else "",
            "checkpoints": list(self.checkpoints),
            "state_hash": self.state_hash(),
        }

    def save(self) -> dict[str, Any]:
        """The record plus a snapshot of the state after the last action (fast to load)."""
        d = self.record()
        d["format"] = "grognard-save"
        barriers = list(self.barriers)
        undo_from = self._snap_at
        if self._snap is None and self.actions:
            # a search copy keeps nothing to undo from: its save may not undo either
            barriers[-1] = True
            undo_from = len(self.actions)
        snap: dict[str, Any] = {
            "after": len(self.actions),
            "state": self.state.to_json(with_log=True),
            "barriers": barriers,
            "undo_from": undo_from,
        }
        if self._snap_at < len(self.actions) and self._snap is not None:
            snap["undo_state"] = self._snap.to_json(with_log=True)
        snap["digest"] = hashing.snapshot_digest(d["chain"], d["state_hash"], snap)
        d["snapshot"] = snap
        return d

    @classmethod
    def load(
        cls,
        data: Mapping[str, Any],
        check: bool = True,
        allow_data_change: bool = False,
        verify: bool = False,
    ) -> Game:
        """Rebuild a game from a save or record.

        A save with a snapshot loads from it (the hash chain over its actions and the snapshot's
        digest are checked); ``verify=True``, a record, a file of schema 1, or rule data changed
        since the save replay the whole log and check every recorded state hash."""
        return saves.open_save(
            cls, data, check=check, allow_data_change=allow_data_change, verify=verify
        )

    def replay_actions(
        self,
        actions: Iterable[Action],
        checkpoints: Iterable[Mapping[str, Any]] = (),
        legacy: bool = False,
    ) -> None:
        """Apply recorded actions, checking the state hash at each recorded checkpoint
        (``legacy``: hashes of save schema 1)."""
        hash_of = self.legacy_state_hash if legacy else self.state_hash
        by_index: dict[int, str] = {int(c["after"]): str(c["hash"]) for c in checkpoints}
        if 0 in by_index and by_index[0] != hash_of():
            raise ReplayMismatch(0, self.turn_label(), by_index[0], hash_of())
        for i, a in enumerate(actions, start=1):
            try:
                self.apply(a)
            except IllegalAction as e:
                raise SaveError(f"action {i} of the record is illegal on replay: {e}") from None
            want = by_index.get(i)
            if want is not None:
                got = hash_of()
                if got != want:
                    raise ReplayMismatch(i, self.turn_label(), want, got)


def migrate(d: dict[str, Any]) -> dict[str, Any]:
    """Bring an older save up to the current schema (see :func:`grognard.core.saves.migrate`)."""
    return saves.migrate(d)


def replay(record: Mapping[str, Any]) -> Game:
    """Replay a game record, raising :class:`ReplayMismatch` at the first divergence."""
    return Game.load(record, check=True, verify=True)


def _shown_event(ev: dict[str, Any], side: str | None) -> dict[str, Any] | None:
    """A logged event as ``side`` sees it (a new dict, its number still to set), or None when the
    event is hidden from it: the sides it is not visible to see its ``others`` text, if any."""
    vis = ev.get("visible_to")
    if vis is None or (side is not None and side in vis):
        return {key: v for key, v in ev.items() if key not in ("visible_to", "others")}
    if "others" in ev:
        shown = {"type": ev["type"], "text": ev["others"], "turn": ev["turn"]}
        if "agent" in ev:
            shown["agent"] = ev["agent"]  # who plays a side is no secret
        return shown
    return None
