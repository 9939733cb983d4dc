"""The scenario file format (TOML), as pydantic models.

Every model forbids unknown keys, so a misspelt key is an error, never silently
ignored. :func:`json_schema` exports the format as JSON Schema; the prose
description is ``docs/scenario-format.md``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Scalar = str | int | float | bool


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class ScenarioHeader(Strict):
    id: str = Field(
        pattern=r"^[a-z0-9][a-z0-9\-_]*$", description="Identifier used on the command line"
    )
    title: str
    ruleset: str = Field(description="Name of the rule system, e.g. 'greatwar'")
    version: str = "1"
    description: str = ""
    sides: list[str] = Field(
        min_length=2, description="The sides, in the order the rule system plays them"
    )
    options: dict[str, Scalar] = Field(default_factory=dict, description="Rule option choices")
    sources: list[str] = Field(default_factory=list, description="Historical sources consulted")
    tutorial: bool = False

    @field_validator("sides")
    @classmethod
    def _unique_sides(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("side names must be unique")
        return v


class Nation(Strict):
    side: str | None = Field(
        default=None, description="Side the nation belongs to (omitted: neutral)"
    )
    name: str = ""
    attrs: dict[str, Any] = Field(default_factory=dict)


class MapSheet(Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_\-]+$")
    orientation: Literal["columns", "rows"] = "columns"
    shifted: Literal["even", "odd"] = "even"
    origin: tuple[int, int] = (0, 0)
    digits: tuple[int, int] = (2, 2)
    cols: tuple[int, int] = Field(description="First and last printed column")
    rows: tuple[int, int] = Field(description="First and last printed row")
    legend: dict[str, str | None] = Field(
        default_factory=dict,
        description='Terrain code -> terrain name ("": no hex there, for ragged sheets)',
    )
    terrain: list[str] = Field(
        default_factory=list,
        description=(
            "One string per printed row, one code per column (single characters, or codes separated"
            " by spaces)"
        ),
    )
    default_terrain: str | None = None
    miles_per_hex: float | None = None

    @field_validator("cols", "rows")
    @classmethod
    def _ordered(cls, v: tuple[int, int]) -> tuple[int, int]:
        if v[0] > v[1]:
            raise ValueError("first must not exceed last")
        return v


class HexsideFeature(Strict):
    feature: str
    sides: list[str] = Field(
        description=(
            "Hexsides as 'HEX/HEX' (the two hexes sharing it) or 'HEX DIR' (compass direction)"
        )
    )
    attrs: dict[str, Any] = Field(default_factory=dict)


class Place(Strict):
    hex: str
    kind: str
    name: str = ""
    attrs: dict[str, Any] = Field(default_factory=dict)


class NetworkDef(Strict):
    name: str
    kind: str
    paths: list[list[str]] = Field(description="Chains of adjacent hexes the line runs through")
    attrs: dict[str, Any] = Field(
        default_factory=dict, description="Attributes of every link of this network"
    )


class AreaDef(Strict):
    name: str
    kind: str
    hexes: list[str] = Field(default_factory=list)
    adjacent: list[str] = Field(default_factory=list)
    attrs: dict[str, Any] = Field(default_factory=dict)


class AreaMap(Strict):
    """Areas of one kind authored as a code map over one sheet, like terrain."""

    kind: str
    map: str
    legend: dict[str, str | None]
    rows: list[str]


class BoxLinkDef(Strict):
    to: str
    distance: int = Field(ge=0)
    layer: str = "any"


class BoxDef(Strict):
    name: str
    kind: str
    links: list[BoxLinkDef] = Field(default_factory=list)
    attrs: dict[str, Any] = Field(default_factory=dict)


class PieceAt(Strict):
    hex: str | None = None
    hexside: str | None = None
    area: str | None = None
    box: str | None = None
    inside: str | None = None


class PieceDef(Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9\-_.:/]*$")
    type: str
    nation: str = ""
    side: str | None = None
    name: str = ""
    at: str | PieceAt | None = Field(
        default=None, description="A hex id, or a table naming a hexside/area/box/carrier"
    )
    face: str | None = None
    faces: dict[str, dict[str, Any]] = Field(default_factory=dict)
    status: list[str] = Field(default_factory=list)
    attrs: dict[str, Any] = Field(default_factory=dict)
    hidden: bool = False


class TurnDef(Strict):
    label: str
    attrs: dict[str, Any] = Field(default_factory=dict)


class ScheduleEntry(Strict):
    turn: int | str
    kind: str
    pieces: list[str] = Field(default_factory=list)
    at: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class ControlDef(Strict):
    hexes: dict[str, list[str]] = Field(default_factory=dict, description="side -> hexes it owns")
    areas: dict[str, str] = Field(
        default_factory=dict, description="area name -> side owning all its hexes"
    )


class ScenarioFile(Strict):
    """A whole scenario file."""

    scenario: ScenarioHeader
    nations: dict[str, Nation] = Field(default_factory=dict)
    maps: list[MapSheet] = Field(min_length=1)
    hexsides: list[HexsideFeature] = Field(default_factory=list)
    places: list[Place] = Field(default_factory=list)
    networks: list[NetworkDef] = Field(default_factory=list)
    areas: list[AreaDef] = Field(default_factory=list)
    area_maps: list[AreaMap] = Field(default_factory=list)
    boxes: list[BoxDef] = Field(default_factory=list)
    pieces: list[PieceDef] = Field(default_factory=list)
    control: ControlDef = Field(default_factory=ControlDef)
    turns: list[TurnDef] = Field(default_factory=list)
    schedule: list[ScheduleEntry] = Field(default_factory=list)
    tracks: dict[str, Any] = Field(default_factory=dict)
    victory: dict[str, Any] = Field(default_factory=dict)
    tables: dict[str, str] = Field(
        default_factory=dict, description="table id -> path of a replacement table file"
    )
    rules: dict[str, Any] = Field(default_factory=dict, description="Rule-system specific data")


def json_schema() -> dict[str, Any]:
    schema = ScenarioFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "grognard scenario"
    return schema
