"""Soviet Surrender (EF 20.0, our design; NM 30.21d, NM 30.4).

In the Soviet Supply Status Phase, each Soviet combat unit that can trace no line of
communication to a friendly port or supply source (an MSU spent for General Supply does not
count, NM 30.4) and is adjacent to an Axis combat unit rolls one d6 on
``data/tables/surrender.toml``: ``S`` and it surrenders. Units that made an Amphibious Assault
this turn do not roll (NM 30.21d).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.eastfront.data import table
from grognard.rulesets.eastfront.model import AXIS, SOVIET, GroundAttrs, turn_no
from grognard.rulesets.eastfront.units.kinds import is_combat
from grognard.rulesets.eastfront.units.losses import eliminate

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("EF 20.0", "NM 30.21")
def must_roll(g: Game) -> list[str]:
    """EF 20.0: the Soviet units that roll for surrender now.

    Rules: EF 20.0, NM 30.21.
    """
    out = []
    for p in sorted(g.state.of_side(SOVIET), key=lambda q: q.id):
        if p.loc.kind != "hex" or not is_combat(g, p) or "no-loc" not in p.status:
            continue
        if GroundAttrs(p.attrs).assault_turn == turn_no(g):
            continue
        i = int(p.loc.ref)
        if any(
            q.side == AXIS and is_combat(g, q)
            for j in g.board.neighbors(i)
            for q in g.state.at_hex(j)
        ):
            out.append(p.id)
    return out


@implements("EF 20.0")
def roll_surrender(g: Game, pid: str) -> bool:
    """EF 20.0: one roll; True if the unit surrenders."""
    p = g.state.pieces[pid]
    t = table(g, "surrender")
    r = g.roll(str(t.die), f"surrender of {p.name or p.id}", "EF 20.0")
    if str(t.lookup("roll", r.natural).result) == "S":
        eliminate(g, p, "EF 20.0", "surrenders")
        return True
    return False
