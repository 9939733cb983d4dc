"""The one seeded source of randomness.

Each draw is derived from ``(seed, counter)`` with SHA-256, so the whole random
stream of a game is fixed by its seed and the number of draws made so far. The
counter lives in the game state: saving, loading and replaying reproduce every roll.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from fractions import Fraction

_DIE_RE = re.compile(r"^(?P<n>\d*)d(?P<s>\d+)(?P<half>/2)?$")


@dataclass(frozen=True)
class DieSpec:
    """``NdS``: the sum of N dice of S faces; ``d6/2`` halves (rounding up) one d6."""

    count: int
    sides: int
    halved: bool = False

    @classmethod
    def parse(cls, text: str) -> DieSpec:
        m = _DIE_RE.match(text.strip().lower())
        if not m:
            raise ValueError(f"unknown die {text!r} (use d6, 2d6, d10, d12, d6/2, ...)")
        count = int(m.group("n") or 1)
        sides = int(m.group("s"))
        if count < 1 or sides < 2:
            raise ValueError(f"unknown die {text!r}")
        return cls(count, sides, bool(m.group("half")))

    @property
    def low(self) -> int:
        return (self.count + 1) // 2 if self.halved else self.count

    @property
    def high(self) -> int:
        total = self.count * self.sides
        return (total + 1) // 2 if self.halved else total

    def distribution(self) -> dict[int, Fraction]:
        """The exact probability of each value the spec can give (the sum of its dice, halved
        rounding up for ``/2``)."""
        sums: dict[int, int] = {0: 1}
        for _ in range(self.count):
            nxt: dict[int, int] = {}
            for total, ways in sums.items():
                for face in range(1, self.sides + 1):
                    nxt[total + face] = nxt.get(total + face, 0) + ways
            sums = nxt
        whole = self.sides**self.count
        out: dict[int, Fraction] = {}
        for total, ways in sorted(sums.items()):
            value = (total + 1) // 2 if self.halved else total
            out[value] = out.get(value, Fraction(0)) + Fraction(ways, whole)
        return out

    def __str__(self) -> str:
        base = f"{self.count if self.count > 1 else ''}d{self.sides}"
        return base + ("/2" if self.halved else "")


def draw(seed: int | str, counter: int, sides: int) -> int:
    """Uniform integer in ``1..sides`` for draw number ``counter`` of stream ``seed``."""
    h = hashlib.sha256(f"grognard/{seed}/{counter}".encode()).digest()
    return int.from_bytes(h[:8], "big") % sides + 1


def roll_spec(seed: int | str, counter: int, spec: DieSpec) -> tuple[int, list[int], int]:
    """Roll ``spec`` starting at draw ``counter``; returns (value, faces, draws used)."""
    faces = [draw(seed, counter + k, spec.sides) for k in range(spec.count)]
    total = sum(faces)
    if spec.halved:
        total = (total + 1) // 2
    return total, faces, spec.count
