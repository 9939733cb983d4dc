"""The base class of the lgg1418 steps that wait for actions.

Each step handles its action types with handler methods (``@handles.apply``, ``@handles.check``,
``@handles.options`` from :mod:`grognard.core.sequence`; the types are declared in
:mod:`.actions`). An action whose type has neither a ``check`` nor an ``options`` handler must be
one of the actions the step lists (:meth:`LggStep.check_listed`), as a ``check`` handler may also
ask after its own tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grognard.core import serial
from grognard.core.errors import IllegalAction
from grognard.core.sequence import Action, Step

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.core.state import Frame


def _stored(a: Action) -> bytes:
    """An action as the engine stores it (fields left out rather than null), canonically."""
    return serial.canonical({k: v for k, v in a.items() if v is not None})


class LggStep(Step):
    """A step of the sequence of play of La Grande Guerre (see the module docstring)."""

    def check(self, g: Game, f: Frame, action: Action) -> None:
        h = self.handler(action)
        if h.check is None and h.options is None:
            self.check_listed(g, f, action)
            return
        super().check(g, f, action)

    def check_listed(self, g: Game, f: Frame, action: Action) -> None:
        """Refuse ``action`` unless it is one of the legal actions the step lists now."""
        wanted = _stored(action)
        for a in self.legal_actions(g, f, str(action["side"])):
            if _stored(a) == wanted:
                return
        raise IllegalAction(
            self.rule, f"{action.get('type')!r} is not a legal action in {self.label(g, f)}"
        )

    def handled(self, g: Game, f: Frame, action: Action) -> Any:
        """Apply ``action`` with the handler of its type (for a step passing an action on)."""
        return self.handler(action).apply(self, g, f, action)  # type: ignore[misc]
