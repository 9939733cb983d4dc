"""Named modifiers with provenance, for strengths, die rolls and column shifts.

Every modifier records the rule that grants it, so a result can be explained line by
line ("+1 contested hex, OT 9J") in the log and in the user interface.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction

from grognard.core.arith import Number, fmt


@dataclass(frozen=True)
class Mod:
    value: Number
    rule: str
    reason: str

    def to_json(self) -> dict[str, object]:
        v = self.value
        return {
            "value": str(v) if isinstance(v, Fraction) else v,
            "rule": self.rule,
            "reason": self.reason,
        }


@dataclass
class Modifiers:
    """An ordered list of additive modifiers, with optional caps on the total."""

    items: list[Mod] = field(default_factory=list)

    def add(self, value: Number, rule: str, reason: str) -> Modifiers:
        if value:
            self.items.append(Mod(value, rule, reason))
        return self

    def extend(self, other: Modifiers) -> Modifiers:
        self.items.extend(other.items)
        return self

    def __iter__(self) -> Iterator[Mod]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def total(self, low: Number | None = None, high: Number | None = None) -> Number:
        t: Number = sum((m.value for m in self.items), 0)
        if low is not None and t < low:
            t = low
        if high is not None and t > high:
            t = high
        return t

    def explain(self) -> str:
        if not self.items:
            return "no modifiers"
        return ", ".join(
            f"{'+' if m.value >= 0 else ''}{fmt(m.value)} {m.reason} ({m.rule})" for m in self.items
        )

    def to_json(self) -> list[dict[str, object]]:
        return [m.to_json() for m in self.items]
