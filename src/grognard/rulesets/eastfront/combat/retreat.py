"""Retreat Orders, retreats and advances after combat (EF 12.6, EF 12.7, our design).

Retreat Orders (EF 12.6): with the declaration the attacker gives one order: ``none`` (the
table as printed), ``attacker-retreat`` (an A1 result may be taken by the attackers on land as
a one-hex retreat instead of a step) or ``defender-additional`` (a defender retreat is two
hexes). An Amphibious Assault admits only ``none`` and ``defender-additional`` (NM 30.24a).

Retreat (EF 12.7): each unit moves hex by hex into land hexes free of enemy units, preferring
hexes outside enemy zones of control, then farther from the Defender Hex, then by label, and
must end within stacking limits; a unit that cannot retreat (or cannot move at all, as coast
artillery) loses a step instead. Advance: the
attacker may move attacking units into a vacated Defender Hex (an Amphibious Assault must).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.rulesets.eastfront.map.geography import is_land
from grognard.rulesets.eastfront.map.zoc import zoc_hexes
from grognard.rulesets.eastfront.model import other
from grognard.rulesets.eastfront.movement.enter import entered
from grognard.rulesets.eastfront.units.kinds import allowance, kind
from grognard.rulesets.eastfront.units.losses import lose_step
from grognard.rulesets.eastfront.units.stacking import fits

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("EF 12.6")
def retreat_length(order: str, hexes: int) -> int:
    """EF 12.6: a defender retreat of ``hexes``, one longer under ``defender-additional``."""
    return hexes + 1 if hexes and order == "defender-additional" else hexes


@implements("EF 12.7")
def retreat(g: Game, p: Piece, hexes: int, origin: int) -> bool:
    """EF 12.7: retreat ``p`` ``hexes`` hexes; a unit that cannot loses a step instead.
    Returns True if it retreated."""
    if allowance(p) <= 0 or not kind(g, p).moves:
        g.emit("retreat", f"{p.name or p.id} cannot move and cannot retreat", rule="EF 12.7")
        lose_step(g, p, "EF 12.7")
        return False
    enemy = other(p.side)
    zoc = zoc_hexes(g, enemy)
    here = int(p.loc.ref)
    path: list[int] = []
    for _ in range(hexes):
        options = [
            j
            for j in g.board.neighbors(here)
            if is_land(g, j)
            and j != origin
            and j not in path
            and not any(q.side == enemy for q in g.state.at_hex(j))
        ]
        if not options:
            break
        options.sort(key=lambda j: (j in zoc, -g.board.distance(j, origin), g.board.label(j)))
        here = options[0]
        path.append(here)
    if len(path) < hexes or not fits(g, p, here):
        g.emit("retreat", f"{p.name or p.id} cannot retreat", rule="EF 12.7")
        lose_step(g, p, "EF 12.7")
        return False
    g.state.move(p.id, Loc.hex(here))
    g.emit("retreat", f"{p.name or p.id} retreats to {g.board.label(here)}", rule="EF 12.7")
    entered(g, p, here)
    return True


@implements("EF 12.7")
def advance(g: Game, p: Piece, i: int, rule: str = "EF 12.7") -> None:
    """EF 12.7: ``p`` advances into hex ``i`` (an amphibious unit comes ashore, NM 30.24b)."""
    g.state.move(p.id, Loc.hex(i))
    g.emit("advance", f"{p.name or p.id} advances into {g.board.label(i)}", rule=rule)
    entered(g, p, i)
