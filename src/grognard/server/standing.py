"""Standing orders: routine decisions a side lets the server take for it.

A standing order says "when it is my decision in step S (and an action of type X is
offered), take the first offered action whose fields match these values". Typical
use: "always pass on reserve commitment" = ``{"step": "reserve", "choose": {"type":
"pass"}}``. Orders are private to their side, checked in the order given, and applied
by the server only when that side must act; the action goes through the normal
``Game.apply`` path, so it is checked like any other and logged as that side's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from grognard.core.game import Game

Scalar = str | int | float | bool | None

MAX_ORDERS = 50


class StandingOrder(BaseModel):
    """One rule: in ``step`` (any step if omitted), when ``offered`` is offered, pick ``choose``."""

    model_config = ConfigDict(extra="forbid")

    step: str | None = Field(
        default=None, max_length=100, description="Name of the step this order applies to"
    )
    offered: str | None = Field(
        default=None,
        max_length=100,
        description="Apply only when an action of this type is among the legal ones",
    )
    choose: dict[str, Scalar] = Field(
        description="Field values the chosen action must have; 'type' is required", max_length=20
    )
    note: str = Field(default="", max_length=200)

    @field_validator("choose")
    @classmethod
    def _needs_type(cls, v: dict[str, Scalar]) -> dict[str, Scalar]:
        if not isinstance(v.get("type"), str) or not v["type"]:
            raise ValueError("'choose' must name the action 'type' to pick")
        if "side" in v:
            raise ValueError("'choose' must not name a side: an order always acts for its own side")
        return v


class StandingOrders(BaseModel):
    """The full list of a side's standing orders (replaces the previous list)."""

    model_config = ConfigDict(extra="forbid")

    orders: list[StandingOrder] = Field(default_factory=list, max_length=MAX_ORDERS)


def matches(action: Mapping[str, Any], choose: Mapping[str, Any]) -> bool:
    return all(k in action and action[k] == v for k, v in choose.items())


def current_step(g: Game) -> str | None:
    cur = g.current()
    return None if cur is None else cur[1].step


def pick(g: Game, side: str, orders: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The action ``side``'s standing orders choose now, or None (not its turn, no order
    applies)."""
    if not orders or side not in g.acting_sides():
        return None
    step = current_step(g)
    legal = g.legal_actions(side)
    types = {a.get("type") for a in legal}
    for o in orders:
        if o.get("step") and o["step"] != step:
            continue
        if o.get("offered") and o["offered"] not in types:
            continue
        for a in legal:
            if matches(a, o["choose"]):
                return dict(a)
    return None
