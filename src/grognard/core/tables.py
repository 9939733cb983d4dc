"""Results tables as data: columns, die rows, clamping and column shifts.

A table is loaded from TOML (see ``docs/scenario-format.md``, section *Tables*)::

    id = "mobile-crt"
    title = "Mobile Ground Combat Results Table"
    provisional = true
    derived_from = ["OT 9C1"]
    die = "d6"
    columns = ["1:4", "1:3", "1:2", "1:1", "2:1", "3:1"]
    [rows]
    1 = ["AE", "AE", "AH", "AR", "DR", "DR"]
    ...

``lookup(column, roll, shift)`` moves ``shift`` columns (clamped to the table's ends),
clamps the modified roll to the printed rows, and returns the cell with an explanation.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

from grognard.core.dice import DieSpec


class TableError(ValueError):
    """A results table file is malformed."""


@dataclass(frozen=True)
class Lookup:
    """The outcome of a table lookup, with everything needed to explain it."""

    table: str
    column: str
    column_shift: int
    roll: int
    row: int
    result: Any
    clamped: bool

    def explain(self) -> str:
        parts = [f"{self.table}: column {self.column}"]
        if self.column_shift:
            parts.append(f"(shifted {self.column_shift:+d})")
        parts.append(f"row {self.row}")
        if self.clamped:
            parts.append(f"(roll {self.roll} clamped)")
        parts.append(f"-> {self.result}")
        return " ".join(parts)


@dataclass(frozen=True)
class ResultsTable:
    id: str
    title: str
    die: DieSpec
    columns: tuple[str, ...]
    rows: Mapping[int, tuple[Any, ...]]
    provisional: bool = False
    derived_from: tuple[str, ...] = ()
    notes: str = ""
    source: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def row_min(self) -> int:
        return min(self.rows)

    @property
    def row_max(self) -> int:
        return max(self.rows)

    def column_index(self, column: str) -> int:
        try:
            return self.columns.index(column)
        except ValueError:
            raise TableError(f"table {self.id}: no column {column!r}") from None

    def shift(self, column: str | int, by: int) -> int:
        i = column if isinstance(column, int) else self.column_index(column)
        return max(0, min(len(self.columns) - 1, i + by))

    def clamp(self, roll: int) -> int:
        return max(self.row_min, min(self.row_max, roll))

    def lookup(self, column: str | int, roll: int, shift: int = 0) -> Lookup:
        i = self.shift(column, shift)
        row = self.clamp(roll)
        cells = self.rows.get(row)
        if cells is None:
            raise TableError(f"table {self.id}: no row {row}")
        return Lookup(self.id, self.columns[i], shift, roll, row, cells[i], row != roll)

    def distribution(
        self, column: str | int, modifier: int = 0, shift: int = 0
    ) -> dict[Any, float]:
        """Exact result probabilities for a column, given a die modifier and a shift."""
        out: dict[Any, float] = {}
        faces = range(1, self.die.sides + 1)
        combos = list(product(faces, repeat=self.die.count))
        for combo in combos:
            total = sum(combo)
            if self.die.halved:
                total = (total + 1) // 2
            res = self.lookup(column, total + modifier, shift).result
            out[res] = out.get(res, 0.0) + 1 / len(combos)
        return out

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], source: str = "<table>") -> ResultsTable:
        known = {
            "id",
            "title",
            "die",
            "columns",
            "rows",
            "provisional",
            "derived_from",
            "notes",
            "extra",
        }
        unknown = sorted(set(data) - known)
        if unknown:
            raise TableError(f"{source}: unknown key(s) {', '.join(unknown)}")
        try:
            tid = str(data["id"])
            columns = tuple(str(c) for c in data["columns"])
            die = DieSpec.parse(str(data.get("die", "d6")))
            raw_rows = data["rows"]
        except KeyError as e:
            raise TableError(f"{source}: missing key {e.args[0]!r}") from None
        except ValueError as e:
            raise TableError(f"{source}: {e}") from None
        rows: dict[int, tuple[Any, ...]] = {}
        for key, cells in raw_rows.items():
            try:
                k = int(key)
            except ValueError:
                raise TableError(f"{source}: rows.{key}: row keys must be integers") from None
            if (
                not isinstance(cells, Sequence)
                or isinstance(cells, str)
                or len(cells) != len(columns)
            ):
                raise TableError(
                    f"{source}: rows.{key}: needs {len(columns)} cells, one per column"
                )
            rows[k] = tuple(cells)
        if not rows:
            raise TableError(f"{source}: the table has no rows")
        span = set(range(min(rows), max(rows) + 1))
        if set(rows) != span:
            raise TableError(
                f"{source}: rows must be consecutive; missing {sorted(span - set(rows))}"
            )
        provisional = bool(data.get("provisional", False))
        derived = tuple(str(r) for r in data.get("derived_from", ()))
        if provisional and not derived:
            raise TableError(f"{source}: a provisional table must list derived_from rule ids")
        return cls(
            id=tid,
            title=str(data.get("title", tid)),
            die=die,
            columns=columns,
            rows=rows,
            provisional=provisional,
            derived_from=derived,
            notes=str(data.get("notes", "")),
            source=source,
            extra=dict(data.get("extra", {})),
        )

    @classmethod
    def load(cls, path: str | Path) -> ResultsTable:
        p = Path(path)
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as e:
            raise TableError(f"{p}: {e}") from None
        return cls.from_mapping(data, str(p))
