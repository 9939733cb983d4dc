"""The Game API: legal actions, apply, undo, views, hashes, saves and replays.

A game is fully determined by its scenario, rule-system data, options, seed and the
list of actions applied so far. The state is rebuilt from those whenever needed
(loading a save, undoing, recovering from a failed action), and the state hash is
recorded at every turn boundary so a replay proves it reproduces the game.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from grognard import __version__
from grognard.core import serial
from grognard.core.dice import DieSpec, roll_spec
from grognard.core.errors import IllegalAction, ReplayMismatch, SaveError, UndoError
from grognard.core.inbound import problem
from grognard.core.modifiers import Modifiers
from grognard.core.sequence import Action, Step
from grognard.core.state import Frame, GameState

if TYPE_CHECKING:
    from grognard.board import Board
    from grognard.rulesets.base import Ruleset
    from grognard.scenario.model import Scenario

SAVE_SCHEMA = 1
MAX_AUTOMATIC_STEPS = 1_000_000


class Roll(dict[str, Any]):
    """A die roll event: ``natural``, ``modified``, ``faces``, ``die``, ``reason``, ``rule``."""

    @property
    def natural(self) -> int:
        return int(self["natural"])

    @property
    def modified(self) -> int:
        return int(self["modified"])


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
        self._snap_at = 0
        self._snap: GameState | None = None
        self._revealed = False
        self.cache: dict[str, Any] = {}
        self._cache_key: str | None = None

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
        g._snap = g.state.clone()
        g._snap_at = 0
        g.checkpoints.append({"after": 0, "turn": g.turn_label(), "hash": g.state_hash()})
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

    def legal_actions(self, side: str) -> list[Action]:
        cur = self.current()
        if cur is None:
            return []
        step, f = cur
        if side not in step.actors(self, f):
            return []
        return step.legal_actions(self, f, side)

    def is_over(self) -> bool:
        return self.state.result is not None or not self.state.frames

    def state_hash(self) -> str:
        """Hash of the position and of the dice stream it will draw from (the seed)."""
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

    def cached(self, key: str, compute: Any) -> Any:
        """Memoise a derived value for the current position.

        The memo is dropped whenever an action is applied or undone, a piece moves, an
        event is logged or dice are rolled. Rule code that changes other state (a face,
        a status, a marker) in the middle of an action and then reads a cached value
        must call :meth:`invalidate` first.
        """
        st = self.state
        tag = repr((len(self.actions), len(st.log), st.dice_counter, st._order, len(st.frames)))
        if self._cache_key != tag:
            self.cache.clear()
            self._cache_key = tag
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    def invalidate(self) -> None:
        """Forget every memoised derived value (see :meth:`cached`)."""
        self.cache.clear()
        self._cache_key = None

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
    def apply(self, action: Action) -> list[dict[str, Any]]:
        """Check and apply one action; return the events it produced.

        An illegal action raises :class:`IllegalAction` (with the rule id that
        forbids it) and leaves the game exactly as it was.
        """
        action = self._normalise(action)
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
        log_mark = len(self.state.log)
        dice_mark = self.state.dice_counter
        turn_before = self.state.turn.get("index")
        self._revealed = False
        self.invalidate()
        try:
            step.apply(self, f, action)
            self._advance()
        except BaseException:
            self._rebuild()
            raise
        self.invalidate()
        self.actions.append(action)
        others_now = [s for s in self.acting_sides() if s != side]
        barrier = self.state.dice_counter != dice_mark or self._revealed or bool(others_now)
        self.barriers.append(barrier)
        if barrier:
            self._snap = self.state.clone()
            self._snap_at = len(self.actions)
        if self.state.turn.get("index") != turn_before or self.is_over():
            self.checkpoints.append(
                {"after": len(self.actions), "turn": self.turn_label(), "hash": self.state_hash()}
            )
        return self.state.log[log_mark:]

    def check(self, action: Any) -> None:
        """Raise :class:`IllegalAction` as :meth:`apply` would refuse ``action`` before changing
        anything (its form, the game being over, the side, then the step's own check); return
        None when the action passes. The game is never changed."""
        action = self._normalise(action)
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
            return serial.from_jsonable(serial.to_jsonable(action))
        except TypeError as e:
            raise IllegalAction("core:action", f"action is not plain JSON: {e}") from None

    def _apply_unchecked(self, action: Action) -> None:
        step, f = self.current()  # type: ignore[misc]
        step.apply(self, f, action)
        self._advance()

    def _rebuild(self) -> None:
        """Restore the state after the last recorded action (used after a failed action)."""
        assert self._snap is not None
        self.invalidate()
        self.state = self._snap.clone()
        for a in self.actions[self._snap_at :]:
            self._apply_unchecked(a)

    def can_undo(self, side: str | None = None) -> bool:
        if not self.actions or self.barriers[-1]:
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
        if side is not None and self.actions[-1]["side"] != side:
            raise UndoError(f"the last action was made by {self.actions[-1]['side']}, not {side}")
        last = self.actions.pop()
        self.barriers.pop()
        while self.checkpoints and self.checkpoints[-1]["after"] > len(self.actions):
            self.checkpoints.pop()
        self._rebuild()
        return last

    # ================================================================== views
    def view(self, side: str | None) -> dict[str, Any]:
        """What ``side`` may know (``None``: a spectator, who sees only public facts)."""
        return self.ruleset.view(self, side)

    def visible_log(self, side: str | None, since: int = 0) -> list[dict[str, Any]]:
        """The log as ``side`` sees it, from global event ``since`` on.

        Events are renumbered per side (``n`` counts only what this side sees), so gaps in
        the numbering never hint that something hidden happened.
        """
        out = []
        seen = 0
        for k, ev in enumerate(self.state.log):
            vis = ev.get("visible_to")
            if vis is None or (side is not None and side in vis):
                shown = {key: v for key, v in ev.items() if key not in ("visible_to", "others")}
            elif "others" in ev:
                shown = {"type": ev["type"], "text": ev["others"], "turn": ev["turn"]}
            else:
                continue
            shown["n"] = seen
            seen += 1
            if k >= since:
                out.append(shown)
        return out

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
            "scenario_id": sc.id,
            "scenario_hash": sc.content_hash,
            "scenario_source": sc.source_text,
            "scenario_file": sc.source_name,
            "table_overrides": dict(sc.table_overrides),
            "seed": self.seed,
            "options": dict(self.options),
            "actions": list(self.actions),
            "checkpoints": list(self.checkpoints),
            "state_hash": self.state_hash(),
        }

    def save(self) -> dict[str, Any]:
        d = self.record()
        d["format"] = "grognard-save"
        return d

    @classmethod
    def load(
        cls, data: Mapping[str, Any], check: bool = True, allow_data_change: bool = False
    ) -> Game:
        """Rebuild a game from a save or record, checking every recorded hash."""
        from grognard.scenario.loader import load_scenario_text

        d = migrate(dict(data))
        try:
            scenario = load_scenario_text(
                d["scenario_source"],
                d.get("scenario_file") or "<save>",
                table_overrides=d.get("table_overrides", {}),
            )
        except KeyError as e:
            raise SaveError(f"save is missing {e.args[0]!r}") from None
        if scenario.content_hash != d.get("scenario_hash"):
            raise SaveError("the scenario text in the save does not match its recorded hash")
        rs = scenario.ruleset
        if rs.name != d.get("ruleset"):
            raise SaveError(
                f"save is for rule system {d.get('ruleset')!r}, its scenario uses {rs.name!r}"
            )
        data_hash = rs.data_hash(scenario.table_overrides)
        if not allow_data_change and not hmac.compare_digest(data_hash, str(d.get("data_hash"))):
            raise SaveError(
                f"the {rs.name} rule data changed since this game was saved (version"
                f" {d.get('ruleset_version')} -> {rs.version}); the game may not replay identically"
            )
        g = cls.new(scenario, int(d["seed"]), d.get("options", {}))
        g.replay_actions(d.get("actions", []), d.get("checkpoints", []) if check else [])
        if check and d.get("state_hash") and g.state_hash() != d["state_hash"]:
            raise ReplayMismatch(len(g.actions), g.turn_label(), d["state_hash"], g.state_hash())
        return g

    def replay_actions(
        self, actions: Iterable[Action], checkpoints: Iterable[Mapping[str, Any]] = ()
    ) -> None:
        by_index: dict[int, str] = {int(c["after"]): str(c["hash"]) for c in checkpoints}
        if 0 in by_index and by_index[0] != self.checkpoints[0]["hash"]:
            raise ReplayMismatch(0, self.turn_label(), by_index[0], self.checkpoints[0]["hash"])
        for i, a in enumerate(actions, start=1):
            try:
                self.apply(a)
            except IllegalAction as e:
                raise SaveError(f"action {i} of the record is illegal on replay: {e}") from None
            want = by_index.get(i)
            if want is not None:
                got = self.state_hash()
                if got != want:
                    raise ReplayMismatch(i, self.turn_label(), want, got)


def migrate(d: dict[str, Any]) -> dict[str, Any]:
    """Bring an older save up to the current schema (each step documented here)."""
    fmt = d.get("format")
    if fmt not in ("grognard-save", "grognard-record"):
        raise SaveError("not a grognard save or record (missing 'format')")
    schema = d.get("schema")
    if not isinstance(schema, int):
        raise SaveError("save has no schema version")
    if schema > SAVE_SCHEMA:
        raise SaveError(
            f"save schema {schema} is newer than this grognard ({SAVE_SCHEMA}); upgrade grognard"
        )
    # Schema 1 is the first public one; future migrations go here, one per version.
    return d


def replay(record: Mapping[str, Any]) -> Game:
    """Replay a game record, raising :class:`ReplayMismatch` at the first divergence."""
    return Game.load(record, check=True)
