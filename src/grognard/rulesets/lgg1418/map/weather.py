"""LGG 7: weather by climatic zone, for the whole turn.

7-A: five climatic zones (temperate, continental, severe, mediterranean, semi-desert), drawn
on the map as areas of kind ``climate``. Each turn the weather of every zone on the map is
rolled on that zone's table (``data/tables/weather-<zone>.toml``, provisional) in the column
of the turn's period, unless the turn fixes it (August and September 1914 are fair, 3-C) or
the scenario does. 7-B rain and 7-C snow effects are the functions below, read by the
movement, landing and battle rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.sequence import Step
from grognard.core.state import Frame, Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata

if TYPE_CHECKING:
    from grognard.core.game import Game

CODES = {"F": "fair", "R": "rain", "S": "snow"}


@implements("LGG 7", "LGG 7-A", "LGG 3-C")
def determine_weather(g: Game) -> dict[str, str]:
    """LGG 7 / 7-A / 3-C: the weather of each climatic zone on the map for this turn."""
    t = M.current_turn(g)
    fixed = M.rules(g).weather.get(t.id, {})
    tables = g.ruleset.tables(g.scenario.table_overrides)
    out: dict[str, str] = {}
    for zone in mapdata.zones_on_map(g):
        if zone in fixed:
            out[zone] = fixed[zone]
            g.emit(
                "weather",
                f"weather in the {zone} zone: {out[zone]} (scenario)",
                rule="LGG 7",
                zone=zone,
                weather=out[zone],
            )
            continue
        if t.fixed_weather:
            out[zone] = t.fixed_weather
            g.emit(
                "weather",
                f"weather in the {zone} zone: {out[zone]} ({t.label}, LGG 3-C)",
                rule="LGG 3-C",
                zone=zone,
                weather=out[zone],
            )
            continue
        table = tables[f"weather-{zone}"]
        r = g.roll(table.die.__str__(), f"weather in the {zone} zone ({t.period})", "LGG 7")
        cell = table.lookup(t.period, r.natural).result
        out[zone] = CODES[str(cell)]
        g.emit(
            "weather",
            f"weather in the {zone} zone: {out[zone]}",
            rule="LGG 7",
            zone=zone,
            weather=out[zone],
        )
    M.st(g)["weather"] = out
    M.touch(g)
    return out


class WeatherStep(Step):
    """LGG 7: roll the weather of every climatic zone (automatic)."""

    name = "weather"
    title = "Weather"
    rule = "LGG 7"

    def run(self, g: Game, f: Frame) -> None:
        determine_weather(g)
        g.finish(f)


# ====================================================================== effects (7-B, 7-C)
@implements("LGG 7-B")
def rain_extra_cost(g: Game, i: int) -> int:
    """LGG 7-B: +1 MP per hex entered in rain (rail movement is not affected)."""
    return (
        int(M.data(g).weather_effects.get("rain_extra_cost", 1))
        if mapdata.weather_in(g, i) == "rain"
        else 0
    )


@implements("LGG 7-C")
def snow_allowance_change(g: Game, p: Piece, i: int) -> int:
    """LGG 7-C: in snow every unit has -1 to its movement allowance, HQs excepted."""
    if p.type == "hq" or mapdata.weather_in(g, i) != "snow":
        return 0
    return int(M.data(g).weather_effects.get("snow_allowance", -1))


@implements("LGG 7-B", "LGG 7-C")
def defender_weather_bonus(g: Game, i: int) -> int:
    """LGG 7-B / 7-C: defence bonus of the defender in hex ``i``: +1 on plains in rain, +1
    everywhere in snow."""
    w = mapdata.weather_in(g, i)
    if w == "snow":
        return 1
    if (
        w == "rain"
        and g.board.terrain_of(i) in ("plains", "floodable")
        and mapdata.effective_terrain(g, i) == "plains"
    ):
        return 1
    return 0


@implements("LGG 7-C")
def attacker_weather_d12(g: Game, i: int) -> int:
    """LGG 7-C: -1 to the attacker's combat D12 when the battle hex is in snow."""
    return -1 if mapdata.weather_in(g, i) == "snow" else 0


@implements("LGG 7-B", "LGG 7-C")
def landing_allowed(g: Game, i: int) -> bool:
    """LGG 7-B / 7-C: no landing may take place in rain or snow."""
    return mapdata.weather_in(g, i) == "fair"


STEPS: tuple[type[Step], ...] = (WeatherStep,)
