"""What a Great War series scenario adds to the common scenario format.

* ``[rules]`` -- validated by :class:`GreatWarRules` (:meth:`GreatWar.scenario_model`);
* ``[victory]`` -- validated by :class:`VictoryModel` (in :func:`check_scenario`);
* piece attributes, turn-track weather and map vocabulary -- checked by :func:`check_scenario`.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grognard.rulesets.greatwar import calendar
from grognard.rulesets.greatwar.logistics.reinforcements import check_schedule
from grognard.rulesets.greatwar.map.weather import check_turn_weather
from grognard.rulesets.greatwar.movement.rail import GAUGES
from grognard.rulesets.greatwar.units import catalogue, nations
from grognard.rulesets.greatwar.units.units import SIZES_CADRE, SUPPORT_INDICATORS
from grognard.scenario.freeform import ANY, OTHERS, Bool, Int, Key, Str

if TYPE_CHECKING:
    from grognard.scenario.model import Scenario


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RailNetDef(Strict):
    """A rail net (OT 7A5): its territory, gauge, each side's starting capacity and voluntary
    minimum."""

    name: str
    gauge: str = "standard"
    area: str | None = Field(
        default=None,
        description="map area (kind 'rail-net') holding the net's territory; none: every rail hex",
    )
    capacity: dict[str, int] = Field(
        default_factory=dict, description="side -> starting capacity in REs"
    )
    minimum: dict[str, int] = Field(
        default_factory=dict, description="side -> voluntary minimum capacity (OT 7A5d)"
    )
    controller: str | None = Field(
        default=None,
        description=(
            "nation controlling the net (Rule 41): other nations' supply lines count its"
            " high-volume hexes half low-volume (OT 11E)"
        ),
    )


class HeadDef(Strict):
    """A railhead or roadhead (OT 7): the head hex and the hexes of the line beyond it, in order."""

    kind: Literal["rail", "road"]
    hex: str
    beyond: list[str] = Field(min_length=1)


class DivisionRE(Strict):
    """A row of the advanced divisional RE table (OT 3A3 advanced, Rule 41)."""

    nation: str
    types: list[str] = Field(default_factory=list)
    min_attack: int = 0
    re: int


class BreakdownDef(Strict):
    """A breakdown combination of the game charts (OT 15F2/15F3): a specific one (``parent``) or a
    lettered set (``letter`` and the ``parents`` that may use it)."""

    parent: str | None = None
    parents: list[str] = Field(default_factory=list)
    components: list[str] = Field(min_length=1)
    letter: str = ""
    assemble_only: bool = False
    box: str = ""


class GreatWarRules(Strict):
    """The scenario's ``[rules]`` table."""

    commands: dict[str, list[str]] = Field(
        default_factory=dict, description="side -> commands it controls (OT 3F)"
    )
    road_quality: Literal["good", "poor"] = Field(
        default="good", description="road quality outside good-roads/poor-roads areas (OT 6B1/6B2)"
    )
    map_scale: Literal["european", "non-european"] = "european"
    rail_nets: list[RailNetDef] = Field(default_factory=list)
    heads: list[HeadDef] = Field(default_factory=list, description="railheads and roadheads (OT 7)")
    division_re: list[DivisionRE] = Field(default_factory=list)
    hq_activation_modifiers: dict[str, int] = Field(
        default_factory=dict, description="nation -> Army HQs activation modifier (Rules 41/42B)"
    )
    home_territory: dict[str, list[str]] = Field(
        default_factory=dict,
        description=(
            "nation -> map areas (or hexes) of its home territory (Rule 41): its units trace only"
            " to regular sources there (OT 11E)"
        ),
    )
    breakdowns: list[BreakdownDef] = Field(
        default_factory=list, description="breakdown combinations of the game charts (OT 15F)"
    )
    theaters_out_of_play: list[str] = Field(
        default_factory=list, description="theaters out of play (OT 16C10)"
    )
    neutral_territory: dict[str, list[str]] = Field(
        default_factory=dict,
        description="neutral nation -> map areas (or hexes) it owns while neutral (OT 3B3)",
    )


class Objective(Strict):
    hex: str
    points: int = Field(default=1, ge=0)
    name: str = ""


class SuddenDeath(Strict):
    side: str
    hexes: list[str] = Field(min_length=1)


class VictoryModel(Strict):
    """The scenario's ``[victory]`` table."""

    description: str = ""
    objectives: list[Objective] = Field(default_factory=list)
    margin: int = Field(default=1, ge=1)
    sudden_death: list[SuddenDeath] = Field(default_factory=list)


PIECE_ATTRS = {
    "size",
    "support",
    "contingent",
    "camel",
    "fatigue",
    "supply_out_since",
    "attacked_from_overstack",
    "overstacked_since",
    "ratings",
    "points",
    "pool",
    "pool_isolated",
    "forming",
}
FACE_KEYS = {"attack", "defense", "move", "strength", "size", "range", "aa", "gunnery", "type"}

# Logistics and artillery attributes a scenario may set: a Res Pt marker's ``amount`` (OT 11G), a
# depot's rail
# ``net`` (OT 11C1), a GSP's generating initial phase ``born`` (OT 11C2bii), an artillery division
# component's
# Art XX HQs ``division`` (OT 12B9).
PIECE_ATTRS = PIECE_ATTRS | {"amount", "net", "born", "division"}


def _is_number(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int | float):
        return True
    if isinstance(v, str):
        try:
            Fraction(v)
            return True
        except ValueError:
            return False
    return False


def check_scenario(sc: Scenario) -> list[tuple[str, str]]:
    """Semantic checks of a Great War series scenario: (key path, message) for each problem."""
    out: list[tuple[str, str]] = []
    data = sc.data
    if list(data.scenario.sides) != list(nations.SIDES):
        out.append(
            (
                "scenario.sides",
                f"the Great War series is played by {list(nations.SIDES)} in that order (OT 3B, 4)",
            )
        )
    cat = catalogue.load_catalogue()
    for i, pd in enumerate(data.pieces):
        where = f"pieces[{i}]"
        if not cat.known(pd.type):
            out.append((f"{where}.type", f"unknown unit type {pd.type!r}"))
            continue
        t = cat.resolve(pd.type)
        for k in pd.attrs:
            if k not in PIECE_ATTRS:
                out.append(
                    (
                        f"{where}.attrs.{k}",
                        f"unknown attribute (known: {', '.join(sorted(PIECE_ATTRS))})",
                    )
                )
        size = pd.attrs.get("size")
        is_unit = not (t.logistics or t.naval)
        needs_size = is_unit and t.re is None
        if needs_size and size is None:
            out.append(
                (f"{where}.attrs.size", f"a {t.title} unit needs a size ({', '.join(cat.sizes)})")
            )
        if size is not None and size not in cat.sizes:
            out.append((f"{where}.attrs.size", f"unknown size {size!r} ({', '.join(cat.sizes)})"))
        if pd.attrs.get("support", "none") not in SUPPORT_INDICATORS:
            out.append(
                (f"{where}.attrs.support", f"support indicator must be one of {SUPPORT_INDICATORS}")
            )
        if not pd.faces and is_unit:
            out.append((f"{where}.faces", "a unit needs at least one face with its printed values"))
        for fname, face in pd.faces.items():
            for k, v in face.items():
                fw = f"{where}.faces.{fname}.{k}"
                if k not in FACE_KEYS:
                    out.append(
                        (fw, f"unknown printed value (known: {', '.join(sorted(FACE_KEYS))})")
                    )
                elif k == "move":
                    if not (_is_number(v) or (isinstance(v, str) and v.upper() in ("R", "W"))):
                        out.append(
                            (
                                fw,
                                (
                                    "movement rating must be a number, 'R' (rail-only) or 'W'"
                                    " (water-only)"
                                ),
                            )
                        )
                elif k == "size":
                    if v not in cat.sizes:
                        out.append((fw, f"unknown size {v!r}"))
                elif k == "type":
                    if not (isinstance(v, str) and cat.known(v)):
                        out.append((fw, f"unknown unit type {v!r}"))
                elif not _is_number(v):
                    out.append((fw, "must be a number"))
            if is_unit and t.re is None and not any(k in face for k in ("attack", "strength")):
                out.append(
                    (
                        f"{where}.faces.{fname}",
                        "needs 'attack' and 'defense' (or a single 'strength')",
                    )
                )
            if is_unit and "move" not in face and t.stacking != "exempt":
                out.append((f"{where}.faces.{fname}", "needs a movement rating 'move'"))
        if "army-hq" in t.tags and not {"active", "inactive"} <= set(pd.faces):
            out.append(
                (f"{where}.faces", "an Army HQs needs faces 'active' and 'inactive' (OT 14M1)")
            )
        if pd.face in SIZES_CADRE and pd.face not in pd.faces:
            out.append((f"{where}.face", f"face {pd.face!r} is not among its faces"))
    zones = {a.name for a in sc.board.areas.values() if a.kind == "weather-zone"}
    for k, name in enumerate(zones):  # type: ignore[assignment]
        if name not in "ABCDEFGHI" or len(name) != 1:
            out.append((f"areas.{name}", f"weather zones are named A..I, not {name!r} (OT 3E6)"))
        _ = k
    prev = None
    for i, t in enumerate(data.turns):  # type: ignore[assignment]
        try:
            d = calendar.parse_turn(t.label)  # type: ignore[attr-defined]
        except calendar.TurnLabelError as e:
            out.append((f"turns[{i}].label", str(e)))
            continue
        if prev is not None and d <= prev:
            out.append((f"turns[{i}].label", f"{t.label} does not come after the previous turn"))  # type: ignore[attr-defined]
        prev = d

        out.extend(check_turn_weather(dict(t.attrs), zones, f"turns[{i}]"))  # type: ignore[attr-defined]
    rules = sc.rules
    if rules is not None:
        known_cmds = nations.all_commands()
        for side, cmds in rules.commands.items():  # type: ignore[attr-defined]
            if side not in data.scenario.sides:
                out.append((f"rules.commands.{side}", f"unknown side {side!r}"))
            for c in cmds:
                if c not in known_cmds and c not in sc.board.areas:
                    out.append((f"rules.commands.{side}", f"unknown command {c!r} (OT 3F)"))
        for k, net in enumerate(rules.rail_nets):  # type: ignore[assignment, attr-defined]
            if net.gauge not in GAUGES:
                out.append(
                    (
                        f"rules.rail_nets[{k}].gauge",
                        f"unknown gauge {net.gauge!r} ({', '.join(GAUGES)})",
                    )
                )
            if net.area is not None and net.area not in sc.board.areas:
                out.append((f"rules.rail_nets[{k}].area", f"no map area {net.area!r}"))
            for side in (*net.capacity, *net.minimum):
                if side not in data.scenario.sides:
                    out.append((f"rules.rail_nets[{k}]", f"unknown side {side!r}"))
        for k, h in enumerate(rules.heads):  # type: ignore[assignment, attr-defined]
            for ref in (h.hex, *h.beyond):
                if not sc.board.has_label(ref):
                    out.append((f"rules.heads[{k}]", f"unknown hex {ref!r}"))
            chain = [h.hex, *h.beyond]
            if all(sc.board.has_label(x) for x in chain):
                for a, b in pairwise(chain):
                    if sc.board.idx(b) not in sc.board.neighbors(sc.board.idx(a)):
                        out.append((f"rules.heads[{k}]", f"{a} and {b} are not adjacent"))
        controlled = {h for hexes in data.control.hexes.values() for h in hexes}
        controlled_areas = set(data.control.areas)
        for nation, refs in rules.neutral_territory.items():  # type: ignore[attr-defined]
            where = f"rules.neutral_territory.{nation}"
            nd = data.nations.get(nation)
            if nd is None:
                out.append((where, f"unknown nation {nation!r}"))
            elif nd.side is not None:
                out.append((where, f"{nation} is not neutral (its side is {nd.side!r}) (OT 3B3)"))
            for ref in refs:
                if ref in sc.board.areas:
                    if ref in controlled_areas:
                        out.append(
                            (where, f"area {ref!r} is also given to a side in [control.areas]")
                        )
                    hexes = [sc.board.label(int(i)) for i in sc.board.areas[ref].hexes]
                elif sc.board.has_label(ref):
                    hexes = [ref]
                else:
                    out.append((where, f"no map area or hex {ref!r}"))
                    continue
                both = sorted(set(hexes) & controlled)
                if both:
                    out.append(
                        (where, f"{', '.join(both[:5])} also owned by a side in [control.hexes]")
                    )
        for i, pd in enumerate(data.pieces):
            nd = data.nations.get(pd.nation) if pd.nation else None
            if nd is None or nd.side is not None or pd.at is None:
                continue
            if getattr(pd.at, "box", None) is None:
                out.append(
                    (
                        f"pieces[{i}].at",
                        (
                            f"{pd.nation} is neutral: its forces stay off the map (no 'at', or a"
                            " box) until it joins the war (OT 3B3)"
                        ),
                    )
                )
        ids = {pd.id for pd in data.pieces}
        for k, b in enumerate(rules.breakdowns):  # type: ignore[assignment, attr-defined]
            for ref in ([b.parent] if b.parent else []) + list(b.parents) + list(b.components):
                if ref not in ids:
                    out.append((f"rules.breakdowns[{k}]", f"unknown piece {ref!r}"))
            if not b.parent and not b.parents:
                out.append(
                    (
                        f"rules.breakdowns[{k}]",
                        "give the 'parent' or, for a lettered set, its 'parents' (OT 15F3)",
                    )
                )
        for k, row in enumerate(rules.division_re):  # type: ignore[assignment, attr-defined]
            for tname in row.types:
                if not cat.known(tname):
                    out.append((f"rules.division_re[{k}].types", f"unknown unit type {tname!r}"))

    out.extend(check_schedule(sc))
    try:
        v = VictoryModel.model_validate(data.victory)
    except ValidationError as e:
        for err in e.errors():
            path = ".".join(str(x) for x in ("victory", *err["loc"]))
            out.append((path, "unknown key" if err["type"] == "extra_forbidden" else err["msg"]))
        return out
    for k, ob in enumerate(v.objectives):  # type: ignore[assignment]
        if not sc.board.has_label(ob.hex):
            out.append((f"victory.objectives[{k}].hex", f"unknown hex {ob.hex!r}"))
    for k, sd in enumerate(v.sudden_death):  # type: ignore[assignment]
        if sd.side not in data.scenario.sides:
            out.append((f"victory.sudden_death[{k}].side", f"unknown side {sd.side!r}"))
        for h in sd.hexes:
            if not sc.board.has_label(h):
                out.append((f"victory.sudden_death[{k}].hexes", f"unknown hex {h!r}"))
    return out


# ====================================================================== free-form tables
_VALUE = Key(("number",), 0, 99)
_POINTS = r"-?\d+(?:\.\d+|/\d+)?"  # points written as text: "1.5", "3/2"
# What the free-form tables of a Great War scenario may hold (see grognard.scenario.freeform);
# piece attributes and the names of printed values are checked by check_scenario above, the
# turn track's weather by weather.check_turn_weather.
FREE_FORM_KEYS: dict[str, dict[str, Key]] = {
    "face": {
        "attack": _VALUE,
        "defense": _VALUE,
        "strength": _VALUE,
        "move": Key(("number", "str"), 0, 99),
        "range": _VALUE,
        "aa": _VALUE,
        "gunnery": _VALUE,
        "size": ANY,
        "type": ANY,
    },
    # which attributes a piece may carry is checked by check_scenario; their types here
    "piece": {
        "size": Str(),
        "support": Str(),
        "contingent": Str(),
        "net": Str(),
        "division": Str(),
        "amount": Int(1, 99),  # Res Pts of a marker: one piece each at set-up (OT 11G)
        OTHERS: ANY,
    },
    # the params of schedule entries (production, rail capacity, orders of battle)
    "schedule": {
        "side": Str(),
        "command": Str(),
        "net": Str(),
        "by": Str(),
        "from": Str(),
        "man": Key(("table", "number", "str"), -999, 999, pattern=_POINTS),
        "equ": Key(("number", "str"), -999, 999, pattern=_POINTS),
        "res": Key(("int", "str"), -999, 999, pattern=r"-?\d+"),
        "amount": Key(("number", "str"), -999, 999, pattern=_POINTS),
        "hexes": Key(("list",)),
        "match": Key(("table",)),
        OTHERS: ANY,
    },
    "place": {
        "size": Str("great", "major", "standard", "minor", "marginal"),
        "state": Str("improved", "unimproved"),
        "type": Str("new", "old", "great"),
        "in_production": Bool(),
        "max_damage": Int(0, 99),
        "name": Str(),
    },
    "network": {"volume": Str("high", "low"), "gauge": Str(*GAUGES)},
    "area": {
        "theater": Str(),
        "nation": Str(),
        "home": Bool(),
        "contingent": Str(),
    },
    "hexside": {"name": Str(), "great": Bool(), "po": Bool()},
    "nation": {
        "nation": Str(),
        "power": ANY,
        "contingents": ANY,
        "shaken": ANY,
        "collapse": ANY,
        "nw": ANY,
        "capital": ANY,
        "humanitarian": ANY,
        "trng_repl_missing": ANY,
    },
}
