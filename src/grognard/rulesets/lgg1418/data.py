"""Typed access to the data files of the rule system (``data/*.toml``).

Each file is read once and turned into frozen dataclasses. The die tables (weather) are
loaded through :meth:`Ruleset.tables` like every results table, so a user's file can replace
them; the other provisional charts (terrain, rail capacities, counter defaults) are plain
TOML files marked ``provisional = true`` with ``derived_from`` and ``notes``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "CalendarTurn",
    "HexsideInfo",
    "LggData",
    "TerrainInfo",
    "load_data",
]


@dataclass(frozen=True)
class TerrainInfo:
    """One line of the movement cost and terrain chart (``terrain.toml``)."""

    name: str
    cost: int = 1
    stacking: int = 6
    defense: str = "0"
    impassable: bool = False
    rain_as: str = ""
    mountain_corps_only: bool = False
    no_support_units: bool = False
    no_tanks: bool = False
    blocks_zoc: bool = False
    supply_range: int = 2


@dataclass(frozen=True)
class HexsideInfo:
    """A hexside feature of the chart: crossing cost and effects."""

    name: str
    cost: int = 0
    impassable: bool = False
    blocks_zoc: str = ""
    frozen_in_severe_snow: bool = False
    shelters_administrative: bool = False
    as_terrain: str = ""
    supply_if_friendly: bool = False
    defense: str = "0"


@dataclass(frozen=True)
class CalendarTurn:
    """A turn of the campaign calendar (``calendar.toml``)."""

    index: int
    id: str
    label: str
    year: int
    months: tuple[int, ...]
    period: str
    pre_turn: bool = False
    fixed_weather: str = ""
    interphase: str = ""


@dataclass(frozen=True)
class LggData:
    """Everything the rule system reads from ``data/`` (except die tables)."""

    catalogue: dict[str, Any]
    terrain: dict[str, TerrainInfo]
    hexsides: dict[str, HexsideInfo]
    weather_effects: dict[str, int]
    calendar: tuple[CalendarTurn, ...]
    doctrine_stages: tuple[tuple[str, str], ...]
    doctrines: dict[str, dict[str, str]]
    powers: dict[str, Any]
    rail: dict[str, Any]
    recruits: dict[str, Any]
    war_plans: tuple[dict[str, Any], ...]
    provisional: dict[str, dict[str, Any]] = field(default_factory=dict)

    # ------------------------------------------------------------------ calendar
    def turn_by_id(self, turn_id: str) -> CalendarTurn:
        for t in self.calendar:
            if t.id == turn_id:
                return t
        raise KeyError(f"no turn {turn_id!r} in the calendar")

    def turn_by_label(self, label: str) -> CalendarTurn:
        for t in self.calendar:
            if t.label == label:
                return t
        raise KeyError(f"no turn labelled {label!r} in the calendar")

    def calendar_index(self, turn_id: str) -> int:
        return self.turn_by_id(turn_id).index

    # ------------------------------------------------------------------ catalogue
    def piece_types(self) -> set[str]:
        return set(self.catalogue["types"])

    def type_spec(self, piece_type: str) -> dict[str, Any]:
        return dict(self.catalogue["types"][piece_type])

    def default(self, piece_type: str, key: str) -> Any:
        return self.catalogue.get("defaults", {}).get(piece_type, {}).get(key)

    # ------------------------------------------------------------------ powers
    @property
    def majors(self) -> tuple[str, ...]:
        return tuple(self.powers["majors"])

    def sector_front(self, sector: str) -> str | None:
        return self.powers["sectors"].get(sector)


def _read(p: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{p}: {e}") from None


def _provisional_meta(name: str, d: dict[str, Any]) -> dict[str, Any] | None:
    if not d.get("provisional"):
        return None
    derived = d.get("derived_from")
    if not derived or not d.get("notes"):
        raise ValueError(f"data/{name}: a provisional file must give derived_from and notes")
    return {"derived_from": list(derived), "notes": d["notes"]}


@lru_cache(maxsize=4)
def load_data(data_dir: str) -> LggData:
    """Read and check the data files in ``data_dir`` (cached per folder)."""
    base = Path(data_dir)
    files = {
        name: _read(base / f"{name}.toml")
        for name in (
            "catalogue",
            "terrain",
            "calendar",
            "doctrines",
            "powers",
            "rail",
            "recruits",
            "war_plans",
        )
    }
    provisional = {}
    for name, d in files.items():
        meta = _provisional_meta(name, d)
        if meta:
            provisional[name] = meta
    t = files["terrain"]
    terrain = {
        name: TerrainInfo(name=name, **{k: v for k, v in spec.items() if k != "title"})
        for name, spec in t["terrain"].items()
    }
    hexsides = {
        name: HexsideInfo(name=name, **{k: v for k, v in spec.items() if k != "title"})
        for name, spec in t["hexside"].items()
    }
    cal = []
    for i, row in enumerate(files["calendar"]["turn"]):
        cal.append(
            CalendarTurn(
                index=i,
                id=row["id"],
                label=row["label"],
                year=int(row["year"]),
                months=tuple(row["months"]),
                period=row["period"],
                pre_turn=bool(row.get("pre_turn", False)),
                fixed_weather=row.get("fixed_weather", ""),
                interphase=row.get("interphase", ""),
            )
        )
    ids = [c.id for c in cal]
    if len(set(ids)) != len(ids):
        raise ValueError("data/calendar: duplicate turn ids")
    doc = files["doctrines"]
    stages = tuple((s["from"], s["doctrine"]) for s in doc["stage"])
    for _, d in stages:
        if d not in doc["doctrine"]:
            raise ValueError(f"data/doctrines: stage uses unknown doctrine {d!r}")
    return LggData(
        catalogue=files["catalogue"],
        terrain=terrain,
        hexsides=hexsides,
        weather_effects=dict(t.get("weather", {})),
        calendar=tuple(cal),
        doctrine_stages=stages,
        doctrines={k: dict(v) for k, v in doc["doctrine"].items()},
        powers=files["powers"],
        rail=files["rail"],
        recruits=files["recruits"],
        war_plans=tuple(files["war_plans"].get("plan", [])),
        provisional=provisional,
    )
