"""The naval phase (LGG 3-C; rules 48-51 are not implemented yet).

The turn sequence of 3-C has a naval phase between the initiative-and-weather phase and the
military phase. This step is its place in the sequence: it records the control of the seas
in force (the defaults of 9-F / 48.1-A, read by the supply rules through
:func:`.supply.sea_control`) and does nothing else until the naval rules (48-51: missions,
naval battles, transport and landings) are written; those rules replace its body and keep
its name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.sequence import Step
from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.supply.supply import sea_control

if TYPE_CHECKING:
    from grognard.core.game import Game


def seas_on_map(g: Game) -> list[str]:
    return sorted(a.name for a in g.board.areas.values() if a.kind == "sea")


@implements("LGG 3-C")
class NavalPhase(Step):
    """LGG 3-C: the naval phase of the turn sequence (naval rules 48-51 not implemented)."""

    name = "naval-phase"
    title = "Naval phase"
    rule = "LGG 3-C"

    def run(self, g: Game, f: Frame) -> None:

        control = {sea: sea_control(g, sea) or "" for sea in seas_on_map(g)}
        if control:
            g.emit(
                "naval-phase",
                "naval phase: control of the seas "
                + ", ".join(f"{k}: {v or 'contested'}" for k, v in control.items()),
                rule="LGG 9-F",
                control=control,
            )
        M.touch(g)
        g.finish(f)


STEPS: tuple[type[Step], ...] = (NavalPhase,)
