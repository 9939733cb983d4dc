"""The phase step every phase of a player turn builds on (EF 3.0)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame
from grognard.rulesets.eastfront.model import ef, other, params

if TYPE_CHECKING:
    from grognard.core.game import Game


class Phase(Step):
    """A phase of the phasing side (or, with ``by_other``, of the other side), ended by
    ``end-phase``. Entering it numbers it (NM 28.12g counts phases) and names its kind."""

    kind: ClassVar[str] = ""
    by_other: ClassVar[bool] = False

    def phase_kind(self, g: Game, f: Frame) -> str:
        return str(params(f).get("kind", self.kind))

    def label(self, g: Game, f: Frame) -> str:
        return f"{self.side(g, f)} {self.title}"

    def side(self, g: Game, f: Frame) -> str:
        active = ef(g).active
        return other(active) if self.by_other else active

    def enter(self, g: Game, f: Frame) -> None:
        st = ef(g)
        st.phase = self.phase_kind(g, f)
        st.phase_no += 1
        self.begin(g, f)

    def begin(self, g: Game, f: Frame) -> None:
        """What happens as the phase begins (nothing by default)."""

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [self.side(g, f)]

    @handles.options("end-phase")
    def end_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "end-phase", "side": side}]

    @handles.apply("end-phase")
    def end(self, g: Game, f: Frame, action: Action) -> None:
        self.close(g, f)
        g.finish(f)

    def close(self, g: Game, f: Frame) -> None:
        """What ending the phase does before it is over (push a procedure, roll...)."""
