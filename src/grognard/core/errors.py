"""Errors raised by the engine."""

from __future__ import annotations


class GrognardError(Exception):
    """Base class of every error the engine raises on purpose."""


class IllegalAction(GrognardError):
    """An action the rules do not allow now. ``rule`` names the rule that forbids it."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} [{rule}]")
        self.rule = rule
        self.message = message

    def __reduce__(self) -> tuple[type[IllegalAction], tuple[str, str]]:
        return (type(self), (self.rule, self.message))


class ReplayMismatch(GrognardError):
    """Replaying a record did not reproduce a recorded state hash."""

    def __init__(self, action_index: int, turn: str, expected: str, got: str) -> None:
        super().__init__(
            f"replay diverged at action {action_index} (turn {turn}): "
            f"recorded state hash {expected[:12]}, replay gave {got[:12]}"
        )
        self.action_index = action_index
        self.turn = turn
        self.expected = expected
        self.got = got

    def __reduce__(self) -> tuple[type[ReplayMismatch], tuple[int, str, str, str]]:
        return (type(self), (self.action_index, self.turn, self.expected, self.got))


class SaveError(GrognardError):
    """A save or record file is unreadable, of the wrong version, or inconsistent."""


class UndoError(GrognardError):
    """Nothing can be undone without crossing an information barrier."""
