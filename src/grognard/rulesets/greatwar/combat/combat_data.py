"""Combat data (OT 9A, 9B, 9H, 10): the two ground CRTs, the special-effects columns of the Ground
Success Table, the combat columns of the Terrain Effects Chart and the Fortification Effects Chart.

All of them are provisional data files (``data/tables/mobile-crt.toml``, ``positional-crt.toml``,
``gst-effects.toml``, ``data/charts/tec.toml`` combat columns, ``data/charts/fec.toml``) that a
scenario or the command line can replace (``[tables]`` / ``--table``). The chart parts are checked
when the rule system reads the scenario's tables (:func:`check_charts`, called by
``GreatWar.tables``), so a wrong user file is refused with the key that is wrong.

The odds ladder: a CRT's columns are odds levels ("1:4" ... "9:1"). A raw ratio is rounded down in
the defender's favour to a level (OT 9A); shifts move along the ladder, which goes on below the
first column (1:5, 1:6, ... all automatic results, OT 9B) and above the last (10:1, 11:1, ...);
the column used is then capped at the CRT's top column for the attacker (OT 9B).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.core.tables import ResultsTable
from grognard.rulesets.greatwar import charts as chartmod
from grognard.rulesets.greatwar import mechanics
from grognard.rulesets.greatwar.charts import Chart, ChartError, load_charts

if TYPE_CHECKING:
    from grognard.core.game import Game

MOBILE = "mobile"
POSITIONAL = "positional"
CRTS = (MOBILE, POSITIONAL)
CRT_TABLE = {MOBILE: "mobile-crt", POSITIONAL: "positional-crt"}
MOBILE_RESULTS = ("AE", "AH", "AR", "AQ", "AS", "HX", "EX", "DR", "DH", "DE")
POSITIONAL_RESULTS = ("AD", "AL", "AX", "BX", "BXM", "DX", "DXM", "DL", "DD")
EFFECT_RESULTS = ("S", "S*", "F", "F*")
CAPABILITY_COLUMNS = ("AECA", "AECD", "ATEC", "CEC", "EEC", "GEC", "SEC")
FORTIFICATION_LEVELS = ("fieldworks", "entrenchment", "fort", "improved-fort")
FORTRESS_ROWS = ("great-improved", "old-improved", "new-improved", "unimproved")
WEATHERS = ("clear", "mud", "frost", "winter", "snow")


def parse_odds(label: str) -> Fraction:
    """``"3:2"`` -> 3/2."""
    a, b = label.split(":")
    return Fraction(int(a), int(b))


def odds_label(value: Fraction) -> str:
    v = Fraction(value)
    if v >= 1:
        return f"{v.numerator}:{v.denominator}" if v.denominator != 1 else f"{v.numerator}:1"
    return (
        f"1:{Fraction(1) / v}"
        if (Fraction(1) / v).denominator == 1
        else f"{v.numerator}:{v.denominator}"
    )


# ============================================================================ CRT tables
@dataclass(frozen=True)
class Ladder:
    """The odds levels of one CRT: ``values[k]`` is the ratio of column ``k``."""

    table: ResultsTable
    values: tuple[Fraction, ...]
    top: int
    infantry_top: int
    automatic: str

    def level_of(self, ratio: Fraction) -> int:
        """OT 9A: the level a ratio rounds down to (in the defender's favour), on the unbounded
        ladder.

        Below the first column: one level per step of 1:n (1:5 is one level under 1:4). Above the
        last column: one level per whole N:1.
        """
        r = Fraction(ratio)
        if r <= 0:
            return -(10**6)
        if r < self.values[0]:
            first = self.values[0]
            if first.numerator == 1:
                n = math.ceil(1 / r)
                return int(first.denominator) - n
            return -1
        last = self.values[-1]
        if r >= last and last.denominator == 1:
            return len(self.values) - 1 + math.floor(r) - int(last)
        best = 0
        for k, v in enumerate(self.values):
            if v <= r:
                best = k
        return best

    def level_label(self, level: int) -> str:
        if 0 <= level < len(self.values):
            return self.table.columns[level]
        if level < 0:
            first = self.values[0]
            if first.numerator == 1:
                return f"1:{int(first.denominator) - level}"
            return f"below {self.table.columns[0]}"
        last = self.values[-1]
        return f"{int(last) + level - (len(self.values) - 1)}:1"


@implements("OT 9A", "OT 9B")
def ladder(g: Game, crt: str) -> Ladder:
    """The odds ladder of the Mobile or Positional Ground CRT in force (user tables included)."""
    return g.cache.keyed("gw:ladder", crt, lambda: _ladder(g, crt))


def _ladder(g: Game, crt: str) -> Ladder:
    t = tables(g)[CRT_TABLE[crt]]
    values = tuple(parse_odds(c) for c in t.columns)
    top = t.columns.index(str(t.extra.get("top", t.columns[-1])))
    inf = t.columns.index(str(t.extra.get("infantry_top", t.columns[-1])))
    out = Ladder(
        t, values, top, inf, str(t.extra.get("automatic", "AE" if crt == MOBILE else "AD"))
    )
    return out


def tables(g: Game) -> dict[str, ResultsTable]:
    """Every die table in force (:func:`.mechanics.tables`)."""
    return mechanics.tables(g)


def check_crt_table(t: ResultsTable, crt: str) -> None:
    """Validate a (user) CRT: odds columns in increasing order, known result codes, and
    ``extra.top``/``extra.infantry_top`` naming columns."""
    known = MOBILE_RESULTS if crt == MOBILE else POSITIONAL_RESULTS
    try:
        vals = [parse_odds(c) for c in t.columns]
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{t.source}: columns must be odds like '3:2'") from None
    if vals != sorted(vals) or len(set(vals)) != len(vals):
        raise ValueError(f"{t.source}: columns must be in increasing odds")
    for row, cells in t.rows.items():
        for c in cells:
            if c not in known:
                raise ValueError(
                    f"{t.source}: rows.{row}: unknown result {c!r} (known: {', '.join(known)})"
                )
    for key in ("top", "infantry_top"):
        if key in t.extra and str(t.extra[key]) not in t.columns:
            raise ValueError(f"{t.source}: extra.{key} must name a column")


# ========================================================================= TEC / FEC combat columns
@dataclass(frozen=True)
class CombatEffect:
    """A combat effect of terrain, a fortification, a city or the weather (OT 9H)."""

    attack: Fraction = Fraction(1)
    drm: int = 0
    drm_vs_infantry: int | None = None
    no_aec: bool = False
    mortar_exempt: bool = False
    aec: str = "full"


_EFFECT_KEYS = {"attack", "drm", "drm_vs_infantry", "no_aec", "mortar_exempt", "aec"}


def _effect(d: Any, where: str) -> CombatEffect:
    if not isinstance(d, Mapping):
        raise ChartError(f"{where}: must be a table")
    unknown = sorted(set(d) - _EFFECT_KEYS)
    if unknown:
        raise ChartError(f"{where}: unknown key(s) {', '.join(unknown)}")
    try:
        attack = Fraction(str(d.get("attack", 1)))
    except ValueError:
        raise ChartError(f'{where}.attack: must be a number or fraction like "1/2"') from None
    for k in ("drm", "drm_vs_infantry"):
        if k in d and (isinstance(d[k], bool) or not isinstance(d[k], int)):
            raise ChartError(f"{where}.{k}: must be a whole number")
    for k in ("no_aec", "mortar_exempt"):
        if k in d and not isinstance(d[k], bool):
            raise ChartError(f"{where}.{k}: must be true or false")
    aec = d.get("aec", "full")
    if aec not in ("full", "half", "none"):
        raise ChartError(f"{where}.aec: must be 'full', 'half' or 'none'")
    return CombatEffect(
        attack,
        int(d.get("drm", 0)),
        d.get("drm_vs_infantry"),
        bool(d.get("no_aec", False)),
        bool(d.get("mortar_exempt", False)),
        str(aec),
    )


@dataclass(frozen=True)
class CombatCharts:
    """The combat columns of the TEC and the FEC, parsed."""

    hexes: Mapping[str, CombatEffect]
    hexsides: Mapping[str, CombatEffect]
    weather: Mapping[str, CombatEffect]
    places: Mapping[str, CombatEffect]
    fortifications: Mapping[str, CombatEffect]
    fortresses: Mapping[str, CombatEffect]


def _tec_combat(
    ch: Chart,
) -> tuple[
    dict[str, CombatEffect],
    dict[str, CombatEffect],
    dict[str, CombatEffect],
    dict[str, CombatEffect],
]:
    b = ch.body
    hexes = {}  # type: ignore[var-annotated]
    sides = {}  # type: ignore[var-annotated]
    for kind, out in (("hex", hexes), ("hexside", sides)):
        table = b.get(kind, {})
        for name, row in table.items():
            if "same_as" in row:
                row = table.get(row["same_as"], {})
            if "combat" in row:
                out[name] = _effect(row["combat"], f"{ch.source}: {kind}.{name}.combat")
    weather = {}
    for w, d in b.get("combat_weather", {}).items():
        if w not in WEATHERS:
            raise ChartError(f"{ch.source}: combat_weather.{w}: unknown weather")
        weather[w] = _effect(d, f"{ch.source}: combat_weather.{w}")
    places = {
        k: _effect(d, f"{ch.source}: combat_places.{k}")
        for k, d in b.get("combat_places", {}).items()
    }
    return hexes, sides, weather, places


def check_tec(ch: Chart) -> None:
    """Validate the combat columns of a (user) TEC."""
    _tec_combat(ch)


def _fec(ch: Chart) -> tuple[dict[str, CombatEffect], dict[str, CombatEffect]]:
    b = ch.body
    unknown = sorted(set(b) - {"fortification", "fortress"})
    if unknown:
        raise ChartError(f"{ch.source}: unknown key(s) {', '.join(unknown)}")
    forts = {}
    for k, d in b.get("fortification", {}).items():
        if k not in FORTIFICATION_LEVELS:
            raise ChartError(
                f"{ch.source}: fortification.{k}: unknown fortification (known:"
                f" {', '.join(FORTIFICATION_LEVELS)})"
            )
        forts[k] = _effect(d, f"{ch.source}: fortification.{k}")
    fortresses = {}
    for k, d in b.get("fortress", {}).items():
        if k not in FORTRESS_ROWS:
            raise ChartError(
                f"{ch.source}: fortress.{k}: unknown fortress row (known:"
                f" {', '.join(FORTRESS_ROWS)})"
            )
        fortresses[k] = _effect(d, f"{ch.source}: fortress.{k}")
    for need in FORTIFICATION_LEVELS:
        if need not in forts:
            raise ChartError(f"{ch.source}: missing fortification.{need}")
    if "unimproved" not in fortresses:
        raise ChartError(f"{ch.source}: missing fortress.unimproved")
    return forts, fortresses


def check_fec(ch: Chart) -> None:
    """Validate a (user) Fortification Effects Chart."""
    _fec(ch)


def check_charts(charts: chartmod.Charts) -> None:
    """The combat columns of the TEC and the Fortification Effects Chart of ``charts``."""
    check_tec(charts.raw["tec"])
    check_fec(charts.raw["fec"])


@implements("OT 9H")
def combat_charts(g: Game) -> CombatCharts:
    """OT 9H: the combat columns of the TEC and the FEC in force."""

    def compute() -> CombatCharts:
        ch = load_charts(g.scenario.table_overrides)
        hexes, sides, weather, places = _tec_combat(ch.raw["tec"])
        forts, fortresses = _fec(ch.raw["fec"])
        return CombatCharts(hexes, sides, weather, places, forts, fortresses)

    return g.cache.keyed("gw:combat-charts", None, compute)


def effects_table(g: Game) -> ResultsTable:
    """The special-effects columns of the Ground Success Table (OT 10)."""
    return tables(g)["gst-effects"]


def size_modifier(g: Game, re: Fraction) -> int:
    """OT 10: the attempt-size modifier of the Ground Success Table (+1 for a brigade, 2 RE)."""
    brackets = [
        (Fraction(str(a)), int(m)) for a, m in effects_table(g).extra.get("size_modifiers", [])
    ]
    out = 0
    for at_least, mod in sorted(brackets):
        if re >= at_least:
            out = mod
    return out
