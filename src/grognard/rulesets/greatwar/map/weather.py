"""Weather in force (OT 3E6 weather zones; the weather rules of Rule 36 are not in the rulebook).

The scenario's turn track carries the weather: each ``[[turns]]`` entry may set
``attrs.weather`` to one weather for the whole map or to a table ``{ A = "snow", B = "mud",
default = "clear" }`` by weather zone, and ``attrs.frozen`` to a list of weather zones (or
``true`` for all) where lakes, rivers, canals and swamps are frozen. Without any entry the
weather is clear and nothing is frozen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.rulesets.greatwar.charts import WEATHERS

if TYPE_CHECKING:
    from grognard.core.game import Game

POOR_WEATHER = ("mud", "frost", "winter", "snow")


def _turn_attrs(g: Game) -> dict[str, Any]:
    idx = int(g.state.turn.get("index", 0))
    turns = g.scenario.data.turns
    if 1 <= idx <= len(turns):
        return dict(turns[idx - 1].attrs)
    return {}


@implements("OT 3E6")
def weather_zone(g: Game, i: int) -> str | None:
    """OT 3E6: the weather zone of a hex (areas of kind ``weather-zone``, named A..I)."""
    return g.board.area_of(i, "weather-zone")


def is_arctic(g: Game, i: int) -> bool:
    """OT 3E6: weather zone A is the Arctic."""
    return weather_zone(g, i) == "A"


def is_desert(g: Game, i: int) -> bool:
    """OT 3E6: weather zones F and G are the Desert."""
    return weather_zone(g, i) in ("F", "G")


class TurnView:
    """Per-turn facts that do not change within a game turn (weather and freezing per hex), with
    memo tables for the terrain lookups that depend only on them."""

    def __init__(self, g: Game, key: tuple[Any, ...]) -> None:
        self.key = key
        attrs = _turn_attrs(g)
        w = attrs.get("weather", "clear")
        fz = attrs.get("frozen", False)
        zone_arr, zone_names = g.board.area_map("weather-zone")
        self.weather: list[str] = []
        self.frozen: list[bool] = []
        # zone name ("-" for hexes in none) -> its weather, zones in the order of their first hex
        self.by_zone: dict[str, str] = {}
        for i in range(g.board.n):
            k = int(zone_arr[i])
            zone = zone_names[k] if k >= 0 else None
            if isinstance(w, dict):
                value = w.get(zone) if zone is not None else None
                self.weather.append(str(value if value is not None else w.get("default", "clear")))
            else:
                self.weather.append(str(w))
            self.frozen.append(fz is True or (isinstance(fz, list) and zone in fz))
            self.by_zone.setdefault(zone or "-", self.weather[-1])
        self.memo: dict[Any, Any] = {}


def view(g: Game) -> TurnView:
    """The :class:`TurnView` of the game turn in progress (rebuilt when the turn changes)."""
    fl = g.state.markers.get("flooded")
    key = (
        g.state.turn.get("index", 0),
        id(g.scenario),
        tuple(sorted(fl.items())) if fl else (),
    )  # OT 15A6 floods change terrain
    return g.cache.keyed("gw:turn-view", key, lambda: TurnView(g, key), limit=4)


def weather_at(g: Game, i: int) -> str:
    """The weather in force in hex ``i`` this game turn (from the scenario's turn track)."""
    return view(g).weather[i]


def weather_by_zone(g: Game) -> dict[str, str]:
    """OT 3E6: the weather in force this game turn in each weather zone of the map (``"-"`` for
    hexes in no zone), the zones in the order of their first hex. A new dict each call."""
    return dict(view(g).by_zone)


def frozen_at(g: Game, i: int) -> bool:
    """True if waterways and swamps in hex ``i`` (and its hexsides) are frozen this turn."""
    return view(g).frozen[i]


def is_poor_weather(weather: str) -> bool:
    return weather in POOR_WEATHER


def check_turn_weather(attrs: dict[str, Any], zones: set[str], where: str) -> list[tuple[str, str]]:
    """Validate a turn's weather attributes: problems as (key path, message)."""
    out = []
    w = attrs.get("weather", "clear")
    if isinstance(w, str):
        if w not in WEATHERS:
            out.append(
                (f"{where}.attrs.weather", f"unknown weather {w!r} (known: {', '.join(WEATHERS)})")
            )
    elif isinstance(w, dict):
        for z, v in w.items():
            if z != "default" and zones and z not in zones:
                out.append((f"{where}.attrs.weather.{z}", f"no weather zone {z!r} on the map"))
            if v not in WEATHERS:
                out.append(
                    (
                        f"{where}.attrs.weather.{z}",
                        f"unknown weather {v!r} (known: {', '.join(WEATHERS)})",
                    )
                )
    else:
        out.append((f"{where}.attrs.weather", "must be a weather name or a table zone -> weather"))
    if not isinstance(attrs.get("production", False), bool):
        out.append((f"{where}.attrs.production", "must be true or false"))
    unknown = set(attrs) - {"weather", "frozen", "production"}
    for k in sorted(unknown):
        out.append(
            (f"{where}.attrs.{k}", "unknown turn attribute (known: weather, frozen, production)")
        )
    fz = attrs.get("frozen", False)
    if not (isinstance(fz, bool) or (isinstance(fz, list) and all(isinstance(z, str) for z in fz))):
        out.append((f"{where}.attrs.frozen", "must be true/false or a list of weather zones"))
    elif isinstance(fz, list):
        for z in fz:
            if zones and z not in zones:
                out.append((f"{where}.attrs.frozen", f"no weather zone {z!r} on the map"))
    return out
