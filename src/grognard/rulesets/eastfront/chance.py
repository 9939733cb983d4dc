"""Chance handlers: the exact outcomes of the chance event an action leads to, declared on the
step that handles the action, one method per action type (like the core's handler roles).

``Ruleset.chance_outcomes`` asks the current step (:meth:`Chances.chance_outcomes`), which
looks the action's type up in its table, built from the methods marked :func:`chance`; the
outcomes come from the same code the rules roll with (a Readiness roll's Recovery value and
DRMs, an attack's CRT column)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

if TYPE_CHECKING:
    from grognard.core.game import ChanceOutcome, Game
    from grognard.core.state import Frame

F = TypeVar("F", bound=Callable[..., Any])


def chance(*types: str) -> Callable[[F], F]:
    """Mark a step method ``(self, g, f, action) -> list[ChanceOutcome] | None`` as describing
    the chance event of actions of ``types``."""

    def deco(fn: F) -> F:
        fn._chance_types = types  # type: ignore[attr-defined]
        return fn

    return deco


class Chances:
    """A step mixin collecting its :func:`chance` methods by action type (subclasses inherit
    and may override them by name)."""

    chance_handlers: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        table = dict(cls.chance_handlers)
        for attr, obj in cls.__dict__.items():
            for t in getattr(obj, "_chance_types", ()):
                table[t] = attr
        cls.chance_handlers = table

    def chance_outcomes(
        self, g: Game, f: Frame, action: dict[str, Any]
    ) -> list[ChanceOutcome] | None:
        name = self.chance_handlers.get(str(action.get("type")))
        if name is None:
            return None
        out: list[ChanceOutcome] | None = getattr(self, name)(g, f, action)
        return out
