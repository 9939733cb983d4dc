"""Charts that are not die tables: the Terrain Effects Chart, the ZOC and overrun movement cost
tables, the rail and river movement rates and the Stacking Summary.

They live in ``data/charts/*.toml``. Each file carries ``id``, ``title``, ``provisional``,
``derived_from`` and ``notes`` like a :class:`~grognard.core.tables.ResultsTable`, and a scenario
(or the command line) may replace one with its own file through the same ``[tables]`` mechanism
as die tables (see :meth:`GreatWar.tables`). Every chart is validated when loaded, so a wrong
user file is reported with the key that is wrong.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

CHART_DIR = Path(__file__).resolve().parent / "data" / "charts"
WEATHERS = ("clear", "mud", "frost", "winter", "snow")
COST_SETS = ("cm-art", "other")
PROHIBITED = None  # a prohibited cost is represented as None


class ChartError(ValueError):
    """A chart file is malformed."""


Cost = Fraction | None


@dataclass(frozen=True)
class Exception_:
    """One row of the TEC's third cost set: units with any of ``tags`` pay ``cost`` in these
    weathers."""

    tags: frozenset[str]
    cost: Mapping[str, Cost]


@dataclass(frozen=True)
class TerrainRow:
    """Movement costs of one hex terrain or hexside feature."""

    name: str
    costs: Mapping[str, tuple[Cost, ...]]  # cost set -> one cost per weather
    exceptions: tuple[Exception_, ...] = ()
    frozen: Cost | str = "unchanged"  # hexsides: cost when frozen; "unchanged" = no effect
    frozen_as: str = ""  # hexes: terrain whose costs apply when frozen
    crt: str = "mobile"
    extra: Mapping[str, Any] = field(default_factory=dict)

    def cost(self, cost_set: str, weather: str) -> Cost:
        return self.costs[cost_set][WEATHERS.index(weather)]


@dataclass(frozen=True)
class Chart:
    """A loaded chart: header plus its validated body."""

    id: str
    title: str
    provisional: bool
    derived_from: tuple[str, ...]
    notes: str
    body: Mapping[str, Any]
    source: str


@dataclass(frozen=True)
class TEC:
    """The Terrain Effects Chart, movement part."""

    chart: Chart
    hexes: Mapping[str, TerrainRow]
    hexsides: Mapping[str, TerrainRow]
    accel_good_hexes_excluded: frozenset[str]
    accel_good_hexsides_excluded: frozenset[str]
    accel_poor_hexes_allowed: frozenset[str]
    accel_poor_hexsides_allowed: frozenset[str]


@dataclass(frozen=True)
class StackLimit:
    """One line of the Stacking Summary (OT 8A)."""

    name: str
    units: int
    non_divisional_re: Fraction
    artillery: tuple[
        tuple[int, Fraction], ...
    ]  # alternatives: (divisions, RE of non-divisional artillery)
    fortress: int


@dataclass(frozen=True)
class Charts:
    """Every chart of the rule system, parsed."""

    tec: TEC
    zoc_costs: Chart
    overrun_costs: Chart
    rail_rates: Chart
    river_rates: Chart
    stacking: Mapping[str, StackLimit]
    raw: Mapping[str, Chart]


CHART_IDS = (
    "tec",
    "zoc-costs",
    "overrun-costs",
    "rail-rates",
    "river-rates",
    "stacking",
    "supply-lines",
    "engineering",
    "fec",
    "replacement-costs",
    "leaders",
    "coast-defenses",
)


def _num(v: Any, where: str) -> Cost:
    if v == "P":
        return PROHIBITED
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        raise ChartError(f'{where}: expected a number or "P", not {v!r}')
    try:
        return Fraction(str(v))
    except ValueError:
        raise ChartError(f'{where}: expected a number or "P", not {v!r}') from None


def _header(data: Mapping[str, Any], source: str) -> Chart:
    for key in ("id", "title"):
        if not isinstance(data.get(key), str):
            raise ChartError(f"{source}: missing or non-text key {key!r}")
    provisional = bool(data.get("provisional", False))
    derived = tuple(str(x) for x in data.get("derived_from", ()))
    if provisional and not derived:
        raise ChartError(f"{source}: a provisional chart must list derived_from rule ids")
    body = {
        k: v
        for k, v in data.items()
        if k not in ("id", "title", "provisional", "derived_from", "notes")
    }
    return Chart(
        str(data["id"]),
        str(data["title"]),
        provisional,
        derived,
        str(data.get("notes", "")),
        body,
        source,
    )


def _row(
    name: str, d: Mapping[str, Any], where: str, kind: str, table: Mapping[str, Any]
) -> TerrainRow:
    if "same_as" in d:
        other = table.get(d["same_as"])
        if other is None or "same_as" in other:
            raise ChartError(f"{where}.same_as: unknown or chained row {d['same_as']!r}")
        return _row(name, other, where, kind, table)
    known = {
        "cm-art",
        "other",
        "exceptions",
        "frozen",
        "frozen_as",
        "crt",
        "bridgeable",
        "navigable",
        "disrupts",
        "prohibited_to_all",
        "combat",
    }
    unknown = sorted(set(d) - known)
    if unknown:
        raise ChartError(f"{where}: unknown key(s) {', '.join(unknown)}")
    costs: dict[str, tuple[Cost, ...]] = {}
    for cs in COST_SETS:
        vals = d.get(cs)
        if not isinstance(vals, list) or len(vals) != len(WEATHERS):
            raise ChartError(
                f"{where}.{cs}: needs {len(WEATHERS)} costs, one per weather {list(WEATHERS)}"
            )
        costs[cs] = tuple(_num(v, f"{where}.{cs}[{i}]") for i, v in enumerate(vals))
    exc = []
    for k, e in enumerate(d.get("exceptions", [])):
        w = f"{where}.exceptions[{k}]"
        if (
            not isinstance(e, Mapping)
            or not isinstance(e.get("tags"), list)
            or not isinstance(e.get("cost"), Mapping)
        ):
            raise ChartError(f"{w}: needs 'tags' (list) and 'cost' (table weather -> cost)")
        for wx in e["cost"]:
            if wx not in WEATHERS:
                raise ChartError(f"{w}.cost: unknown weather {wx!r}")
        exc.append(
            Exception_(
                frozenset(str(t) for t in e["tags"]),
                {wx: _num(v, f"{w}.cost.{wx}") for wx, v in e["cost"].items()},
            )
        )
    frozen: Cost | str = "unchanged"
    if "frozen" in d:
        frozen = _num(d["frozen"], f"{where}.frozen")
    crt = str(d.get("crt", "mobile"))
    if crt not in ("mobile", "positional"):
        raise ChartError(f"{where}.crt: must be 'mobile' or 'positional'")
    extra = {
        k: d[k]
        for k in ("bridgeable", "navigable", "disrupts", "prohibited_to_all", "combat")
        if k in d
    }
    return TerrainRow(name, costs, tuple(exc), frozen, str(d.get("frozen_as", "")), crt, extra)


def parse_tec(ch: Chart) -> TEC:
    b = ch.body
    if tuple(b.get("weathers", ())) != WEATHERS:
        raise ChartError(f"{ch.source}: weathers must be {list(WEATHERS)}")
    if tuple(b.get("cost_sets", ())) != COST_SETS:
        raise ChartError(f"{ch.source}: cost_sets must be {list(COST_SETS)}")
    hexes = {
        n: _row(n, d, f"{ch.source}: hex.{n}", "hex", b.get("hex", {}))
        for n, d in b.get("hex", {}).items()
    }
    sides = {
        n: _row(n, d, f"{ch.source}: hexside.{n}", "hexside", b.get("hexside", {}))
        for n, d in b.get("hexside", {}).items()
    }
    for n, r in hexes.items():
        if r.frozen_as and r.frozen_as not in hexes:
            raise ChartError(
                f"{ch.source}: hex.{n}.frozen_as names unknown terrain {r.frozen_as!r}"
            )
    acc = b.get("accel", {})
    good, poor = acc.get("good", {}), acc.get("poor", {})
    return TEC(
        ch,
        hexes,
        sides,
        frozenset(good.get("hexes_excluded", [])),
        frozenset(good.get("hexsides_excluded", [])),
        frozenset(poor.get("hexes_allowed", [])),
        frozenset(poor.get("hexsides_allowed", [])),
    )


def parse_stacking(ch: Chart) -> dict[str, StackLimit]:
    out = {}
    for name, d in ch.body.get("limit", {}).items():
        where = f"{ch.source}: limit.{name}"
        try:
            arts = tuple((int(a["divisions"]), Fraction(str(a["re"]))) for a in d["artillery"])
            out[name] = StackLimit(
                name,
                int(d["units"]),
                Fraction(str(d["non_divisional_re"])),
                arts,
                int(d["fortress"]),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ChartError(f"{where}: malformed ({e})") from None
    for need in ("regular", "mountain", "arctic-desert"):
        if need not in out:
            raise ChartError(f"{ch.source}: missing limit.{need}")
    return out


def _require(ch: Chart, keys: tuple[str, ...]) -> None:
    for k in keys:
        if k not in ch.body:
            raise ChartError(f"{ch.source}: missing key {k!r}")


def load_chart_text(text: str, source: str) -> Chart:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ChartError(f"{source}: {e}") from None
    return _header(data, source)


def build(charts: Mapping[str, Chart]) -> Charts:
    """Parse and cross-check a full set of charts."""
    for cid in CHART_IDS:
        if cid not in charts:
            raise ChartError(f"chart {cid!r} is missing")
    tec = parse_tec(charts["tec"])
    for cid, keys in (
        ("zoc-costs", ("reduced_cost_tags", "exit")),
        ("overrun-costs", ("reduced_cost_tags", "standard", "reduced_cost")),
        (
            "rail-rates",
            (
                "operational_hexes_per_mp",
                "strategic_hexes",
                "gauge_change_mp",
                "gauge_change_hexes",
                "accel_multiplier",
            ),
        ),
        ("river-rates", ("hexsides_per_mp", "accel_multiplier")),
        (
            "supply-lines",
            (
                "overland",
                "road",
                "combat",
                "rail",
                "overland_terms",
                "ports",
                "gsp",
                "combat_supply",
                "fortress",
            ),
        ),
        ("engineering", ("mp", "turns", "res_pts", "dates")),
    ):
        _require(charts[cid], keys)
    exits = charts["zoc-costs"].body["exit"]
    for kind in ("full", "reduced"):
        for cls in ("standard", "reduced_cost"):
            try:
                Fraction(str(exits[kind][cls]))
            except (KeyError, TypeError, ValueError):
                raise ChartError(
                    f"{charts['zoc-costs'].source}: exit.{kind}.{cls} must be a number"
                ) from None
    return Charts(
        tec,
        charts["zoc-costs"],
        charts["overrun-costs"],
        charts["rail-rates"],
        charts["river-rates"],
        parse_stacking(charts["stacking"]),
        dict(charts),
    )


def shipped_chart_texts() -> dict[str, tuple[str, str]]:
    """Chart id -> (TOML text, file name) for the charts shipped in ``data/charts``."""
    out = {}
    for p in sorted(CHART_DIR.glob("*.toml")):
        text = p.read_text(encoding="utf-8")
        ch = load_chart_text(text, str(p))
        out[ch.id] = (text, str(p))
    return out


_CACHE: dict[tuple[tuple[str, str], ...], Charts] = {}


def load_charts(overrides: Mapping[str, str] | None = None) -> Charts:
    """The charts in force: shipped ones, with any overrides (chart id -> TOML text) replacing
    them."""
    key = tuple(sorted((k, v) for k, v in (overrides or {}).items() if k in CHART_IDS))
    got = _CACHE.get(key)
    if got is not None:
        return got
    charts = {cid: load_chart_text(text, src) for cid, (text, src) in shipped_chart_texts().items()}
    for cid, text in key:
        ch = load_chart_text(text, f"override for chart {cid}")
        if ch.id != cid:
            raise ChartError(f"override for chart {cid!r} declares id {ch.id!r}")
        charts[cid] = ch
    built = build(charts)
    _CACHE[key] = built
    return built
