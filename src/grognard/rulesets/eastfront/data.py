"""The rule system's data files, loaded once per file set: unit types (``data/units.toml``),
terrain (``data/terrain.toml``) and the results tables (``data/tables``, each replaceable by a
scenario's or a user's file)."""

from __future__ import annotations

import functools
import inspect
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grognard.core.tables import ResultsTable

if TYPE_CHECKING:
    from grognard.core.game import Game

CLASSES = ("combat", "flotilla", "non-combat", "naval", "air", "marker")


@dataclass(frozen=True)
class UnitKind:
    """One piece type (EF 4.0; see ``data/units.toml`` for the meaning of each flag)."""

    name: str
    cls: str
    title: str = ""
    amphibious: bool = False
    transportable: bool = True
    artillery: bool = False
    coast: bool = False
    motorized: bool = False
    moves: bool = True
    column: str = ""
    fighter: bool = False
    naval: bool = False


@dataclass(frozen=True)
class Terrain:
    """A terrain type (EF 2.0, EF 7.0): costs to enter, the CRT shift it gives the defender."""

    name: str
    cost: int | None = None
    motorized: int | None = None
    shift: int = 0
    sea: bool = False
    shallow: bool = False


@dataclass(frozen=True)
class EFData:
    kinds: Mapping[str, UnitKind]
    terrain: Mapping[str, Terrain]
    place_shift: Mapping[str, int]


def _read(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=8)
def load_data(directory: str) -> EFData:
    """Read and check the data files of ``directory`` (an error names the file and the key)."""
    d = Path(directory)
    kinds: dict[str, UnitKind] = {}
    for name, v in _read(d / "units.toml").get("types", {}).items():
        cls = v.get("class")
        if cls not in CLASSES:
            raise ValueError(f"{d / 'units.toml'}: types.{name}.class: one of {CLASSES}")
        known = set(UnitKind.__dataclass_fields__) - {"name", "cls"} | {"class"}
        extra = set(v) - known
        if extra:
            raise ValueError(f"{d / 'units.toml'}: types.{name}: unknown key(s) {sorted(extra)}")
        kinds[name] = UnitKind(name, **{("cls" if k == "class" else k): x for k, x in v.items()})
    tdata = _read(d / "terrain.toml")
    terrain = {name: Terrain(name, **v) for name, v in tdata.get("terrain", {}).items()}
    return EFData(kinds, terrain, dict(tdata.get("places", {})))


@functools.lru_cache(maxsize=8)
def _dir_of(module: str) -> str:
    """The data folder of the rule system defined in ``module``."""
    return str(Path(inspect.getfile(sys.modules[module])).parent / "data")


def data_of_ruleset(rs: object) -> EFData:
    """The data of a rule system instance (read once per folder)."""
    return load_data(_dir_of(type(rs).__module__))


def data(g: Game) -> EFData:
    """The data of the game's rule system (read once per folder)."""
    return data_of_ruleset(g.ruleset)


def tables(g: Game) -> Mapping[str, ResultsTable]:
    """The results tables of this game (the scenario's replacements included), loaded once per
    set of replacements and shared by every game and clone (the cache's keyed part)."""
    over = g.scenario.table_overrides
    key = (_dir_of(type(g.ruleset).__module__), tuple(sorted(over.items())))
    return g.cache.keyed("ef:tables", key, lambda: g.ruleset.tables(over))


def table(g: Game, tid: str) -> ResultsTable:
    return tables(g)[tid]
