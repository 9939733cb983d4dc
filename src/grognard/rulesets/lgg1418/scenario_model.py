"""The ``[rules]`` table of an lgg1418 scenario (validated with pydantic, unknown keys refused).

A scenario gives, besides the map and the pieces of the common format:

* ``first_turn`` / ``last_turn``: calendar turn ids (``data/calendar.toml``);
* ``fronts``: the fronts in play (``West``, ``East``);
* ``armies``: one entry per army (id, nation, HQ piece, decoy piece, letter, whether it may
  integrate foreign units, the turn it forms);
* ``powers``: per nation, PR stock and flow;
* ``main_armies``: per side and front, the main army at start (LGG 5-F);
* ``initiative_last``: per front, the side that held the initiative on the turn before the
  scenario starts (for ties, LGG 6-B);
* ``war_plans``: per power, the plan followed and the armies it obliges to attack in August
  1914 (LGG [11.4-X]);
* ``pre_turn_armies``: armies activated in the August 1914 pre-turn (LGG 3-B);
* ``entry_into_war``: nations joining a side in the entry-into-war phase (LGG 3-A);
* ``sea_control``: overrides of the default control of the seas (LGG 9-F);
* ``virtual_rail``: rail links that count for supply connections although not printed
  (LGG 9-A, e.g. Varna to Sofia and Plovdiv);
* ``weather``: fixed weather per turn and climatic zone, replacing the roll (for tutorials
  and tests);
* ``doctrine``: doctrine overrides per nation (for scenarios starting later);
* ``default_sector`` / ``default_climate``: for hexes outside every sector or climate area.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from grognard.scenario.freeform import ANY, OTHERS, Bool, Int, Key, Str

Side = Literal["Central Powers", "Entente"]
FrontName = Literal["West", "East"]
WeatherName = Literal["fair", "rain", "snow"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ArmyDef(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9\-_.]*$")
    nation: str
    name: str = ""
    hq: str = Field(description="Piece id of the army's HQ")
    decoy: str | None = Field(default=None, description="Piece id of the army's decoy (LGG 4-B)")
    letter: str = ""
    multinational: bool = Field(default=False, description="May integrate foreign units (LGG 10-C)")
    forms: str | None = Field(
        default=None, description="Calendar turn id from which the army exists (LGG 2-B)"
    )


class PowerDef(_Strict):
    pr_stock: int = Field(default=0, ge=0)
    pr_flow: int = Field(default=0, ge=0)


class WarPlanDef(_Strict):
    plan: str
    must_attack: list[str] = Field(
        default_factory=list, description="Army ids obliged to attack in August 1914"
    )


class EntryDef(_Strict):
    nation: str
    side: Side


class LggRules(_Strict):
    first_turn: str = "1914-08"
    last_turn: str = "1914-08"
    fronts: list[FrontName] = Field(default_factory=lambda: ["West"])  # type: ignore[arg-type]
    armies: list[ArmyDef] = Field(default_factory=list)
    powers: dict[str, PowerDef] = Field(default_factory=dict)
    main_armies: dict[Side, dict[FrontName, str]] = Field(default_factory=dict)
    initiative_last: dict[FrontName, Side] = Field(default_factory=dict)
    war_plans: dict[str, WarPlanDef] = Field(default_factory=dict)
    pre_turn_armies: list[str] = Field(default_factory=list)
    entry_into_war: list[EntryDef] = Field(default_factory=list)
    sea_control: dict[str, Side | Literal[""]] = Field(default_factory=dict)
    virtual_rail: list[list[str]] = Field(default_factory=list)
    weather: dict[str, dict[str, WeatherName]] = Field(default_factory=dict)
    doctrine: dict[str, str] = Field(default_factory=dict)
    default_sector: str | None = None
    default_climate: str = "temperate"


# ====================================================================== free-form tables
_VALUE = Int(0, 99)


# What the free-form tables of an lgg1418 scenario may hold (see grognard.scenario.freeform);
# piece attributes and which printed values each counter type has are checked against the
# counter catalogue by counters.check_pieces.
def free_form_keys(nations: tuple[str, ...]) -> dict[str, dict[str, Key]]:
    """The declarations, with ``nations`` the nation codes of ``data/powers.toml`` (places and
    areas name one of them, the neutral countries included)."""
    nation = Str(*nations)
    return {
        "face": {
            k: _VALUE
            for k in (
                "artillery",
                "attack",
                "bonus",
                "breakthrough",
                "central",
                "combination",
                "command_limit",
                "command_range",
                "coordination",
                "defense",
                "fire",
                "initiative",
                "movement",
                "obstinacy",
                "range",
                "rank",
                "reaction",
                "reserve_capacity",
                "resistance",
                "support",
            )
        },
        "place": {
            "capital": Bool(),
            "nation": nation,
            "production": Int(0, 99),
            "recruitment": Int(0, 99),
            "sea": Str(),
            "size": Str("major", "minor"),
            "vn": Int(0, 99),
            "vn_kind": Str("normal", "objective"),
            "symbol": ANY,
            "naval": ANY,
        },
        # the attributes each counter type may carry are checked against the catalogue
        "piece": {
            "army": Str(),
            "attached": Str(),
            "garrison": Str(),
            "code": Str(),
            "arm": Str(),
            "morale": Str(),
            "size": Str(),
            "category": Str(),
            "coastal": Bool(),
            "spends_no_munitions": Bool(),
            "command_exempt": Key(("list",)),
            OTHERS: ANY,
        },
        "area": {"nation": nation, "zone": Str()},
        "network": {"capacity": Int(0, 99)},
    }
