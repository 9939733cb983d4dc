"""The ``[rules]`` and ``[victory]`` tables of an eastfront scenario (validated by pydantic: an
unknown key is an error)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from grognard.core.game import Game


class EFRules(BaseModel):
    """``[rules]``: scenario settings of the rule system."""

    model_config = ConfigDict(extra="forbid")

    first: str = Field(default="Axis", description="the side whose player turn comes first")
    nmi_zones: list[str] = Field(
        default_factory=list,
        description="sea zones covered by the Naval Movement Interdiction Box (empty: all)",
    )
    supply_range: int = Field(default=5, ge=1, description="EF 11.0 supply line length")
    attack_supply_range: int = Field(default=4, ge=0, description="EF 11.5")
    cadre_ports: dict[str, str] = Field(
        default_factory=dict,
        description="side -> the major port its transports return to from the Cadre Box",
    )


class EFVictory(BaseModel):
    """``[victory]`` (EF 24.0): the hexes each side must control at the end of the last turn."""

    model_config = ConfigDict(extra="forbid")

    axis: list[str] = Field(default_factory=list)
    soviet: list[str] = Field(default_factory=list)


def rules(g: Game) -> EFRules:
    r = g.scenario.rules
    return r if isinstance(r, EFRules) else EFRules()
