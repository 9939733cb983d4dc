"""The unit-type catalogue (``data/units.toml``) and the nation list (``data/nations.toml``).

OT 3A: a rule that names a unit type covers every type sharing its symbol, so each catalogue
entry is one symbol and its other names are aliases resolving to it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from grognard.core.rules import implements

DATA = Path(__file__).resolve().parent.parent / "data"
CLASSES = ("non-motorized", "artillery", "cm")
ZOC_KINDS = ("standard", "own-hex", "none")
CAPABILITIES = (
    "AECA",
    "AECA/2",
    "AECD",
    "AECD/2",
    "ATEC",
    "ATEC/2",
    "CEC",
    "EEC",
    "EEC-x2",
    "GEC",
    "SEC",
)
ARTILLERY_KINDS = ("", "field", "heavy", "siege", "heavy-siege", "coast")
SIZE_CATEGORIES = ("higher-hq", "divisional", "non-divisional")


class CatalogueError(ValueError):
    """The catalogue file is malformed."""


@dataclass(frozen=True)
class UnitType:
    """One unit symbol of the Unit Identification Chart."""

    id: str
    title: str
    aliases: tuple[str, ...]
    classes: frozenset[str]
    tags: frozenset[str]
    he: bool
    capabilities: tuple[str, ...]
    zoc: str
    artillery: str
    re: Fraction | None
    stacking: str
    construction: str
    logistics: bool
    naval: bool
    note: str


@dataclass(frozen=True)
class Size:
    id: str
    category: str
    re: Fraction | None  # None: set by the type (HQs) or variable (divisional units)


@dataclass(frozen=True)
class NationInfo:
    id: str
    aliases: tuple[str, ...]
    power: str
    side: str | None
    contingents: tuple[str, ...]
    ski_mountain: bool
    ski_mountain_contingents: tuple[str, ...]
    american: bool
    ottoman: bool


_RESOLVED: dict[tuple[int, str], UnitType] = {}


def _norm(name: str) -> str:
    return " ".join(name.strip().lower().replace("_", " ").replace("-", " ").split())


@dataclass(frozen=True)
class Catalogue:
    types: dict[str, UnitType]
    names: dict[str, str]
    sizes: dict[str, Size]

    @implements("OT 3A")
    def resolve(self, name: str) -> UnitType:
        """OT 3A: the unit type a name stands for; names sharing a symbol resolve to one type."""
        hit = _RESOLVED.get((id(self), name))
        if hit is not None:
            return hit
        tid = self.names.get(_norm(name))
        if tid is None:
            raise KeyError(f"unknown unit type {name!r}")
        _RESOLVED[(id(self), name)] = self.types[tid]
        return self.types[tid]

    def known(self, name: str) -> bool:
        return _norm(name) in self.names

    def all_names(self) -> set[str]:
        out = set(self.types)
        for t in self.types.values():
            out.update(t.aliases)
        return out


def _parse_re(v: object, where: str) -> Fraction | None:
    if v is None:
        return None
    try:
        return Fraction(str(v))
    except ValueError:
        raise CatalogueError(f"{where}: re must be a number or fraction string") from None


@lru_cache(maxsize=4)
def load_catalogue(path: str | None = None) -> Catalogue:
    p = Path(path) if path else DATA / "units.toml"
    data = tomllib.loads(p.read_text(encoding="utf-8"))
    types: dict[str, UnitType] = {}
    names: dict[str, str] = {}
    known_keys = {
        "id",
        "title",
        "aliases",
        "classes",
        "tags",
        "he",
        "capabilities",
        "zoc",
        "artillery",
        "re",
        "stacking",
        "construction",
        "logistics",
        "naval",
        "note",
    }
    for i, d in enumerate(data.get("type", [])):
        where = f"{p.name}: type[{i}]"
        unknown = set(d) - known_keys
        if unknown:
            raise CatalogueError(f"{where}: unknown key(s) {sorted(unknown)}")
        tid = d["id"]
        for c in d.get("classes", []):
            if c not in CLASSES:
                raise CatalogueError(f"{where}: unknown class {c!r}")
        for c in d.get("capabilities", []):
            if c not in CAPABILITIES:
                raise CatalogueError(f"{where}: unknown capability {c!r}")
        if d.get("zoc", "standard") not in ZOC_KINDS:
            raise CatalogueError(f"{where}: zoc must be one of {ZOC_KINDS}")
        if d.get("artillery", "") not in ARTILLERY_KINDS:
            raise CatalogueError(f"{where}: unknown artillery kind {d.get('artillery')!r}")
        if d.get("stacking", "count") not in ("count", "exempt"):
            raise CatalogueError(f"{where}: stacking must be 'count' or 'exempt'")
        ut = UnitType(
            id=tid,
            title=d.get("title", tid),
            aliases=tuple(d.get("aliases", [])),
            classes=frozenset(d.get("classes", [])),
            tags=frozenset(d.get("tags", [])),
            he=bool(d.get("he", False)),
            capabilities=tuple(d.get("capabilities", [])),
            zoc=d.get("zoc", "standard"),
            artillery=d.get("artillery", ""),
            re=_parse_re(d.get("re"), where),
            stacking=d.get("stacking", "count"),
            construction=d.get("construction", ""),
            logistics=bool(d.get("logistics", False)),
            naval=bool(d.get("naval", False)),
            note=d.get("note", ""),
        )
        if tid in types:
            raise CatalogueError(f"{where}: type {tid!r} listed twice")
        types[tid] = ut
        for n in (tid, *ut.aliases):
            key = _norm(n)
            if key in names and names[key] != tid:
                raise CatalogueError(f"{where}: name {n!r} already names type {names[key]!r}")
            names[key] = tid
    sizes = {}
    for i, d in enumerate(data.get("size", [])):
        if d.get("category") not in SIZE_CATEGORIES:
            raise CatalogueError(f"{p.name}: size[{i}]: category must be one of {SIZE_CATEGORIES}")
        re = d.get("re")
        sizes[d["id"]] = Size(
            d["id"],
            d["category"],
            None if re in (None, "variable") else _parse_re(re, f"size[{i}]"),
        )
    return Catalogue(types, names, sizes)


@lru_cache(maxsize=1)
def load_nations() -> dict[str, NationInfo]:
    data = tomllib.loads((DATA / "nations.toml").read_text(encoding="utf-8"))
    out: dict[str, NationInfo] = {}
    for d in data.get("nation", []):
        ni = NationInfo(
            id=d["id"],
            aliases=tuple(d.get("aliases", [])),
            power=d.get("power", "minor"),
            side=d.get("side"),
            contingents=tuple(d.get("contingents", [])),
            ski_mountain=bool(d.get("ski_mountain", False)),
            ski_mountain_contingents=tuple(d.get("ski_mountain_contingents", [])),
            american=bool(d.get("american", False)),
            ottoman=bool(d.get("ottoman", False)),
        )
        for n in (ni.id, *ni.aliases):
            out[_norm(n)] = ni
    return out


def nation_info(name: str) -> NationInfo | None:
    """Rulebook facts about a nation, by name or alias (None for nations the rulebook does not
    list)."""
    return load_nations().get(_norm(name))


@lru_cache(maxsize=1)
def load_theaters() -> dict[str, tuple[str, ...]]:
    """OT 3F: theater -> its commands."""
    data = tomllib.loads((DATA / "theaters.toml").read_text(encoding="utf-8"))
    return {name: tuple(d["commands"]) for name, d in data["theater"].items()}


def theater_of_command(command: str) -> str | None:
    for th, cmds in load_theaters().items():
        if command in cmds:
            return th
    return None
