"""Attack Supply (EF 11.5, our design; NM 28.12g, NM 30.3, NM 30.4, NM 30.21d).

A Declared Attack spends one Attack Supply Point from a friendly MSU or Dump within
``rules.attack_supply_range`` (4) hexes of the Defender Hex, the nearest first. One aboard a
naval unit, or unloaded in this phase, may not be used (NM 28.12g); one landed by special
transport may be used in the phase it lands (NM 30.4). Without one the attack goes on: the
attackers that need Attack Supply are halved and the artillery that needs it does not count.
Units making an Amphibious Assault need none (NM 30.21d), nor does Soviet coast artillery
(NM 30.3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.eastfront.model import SOVIET
from grognard.rulesets.eastfront.naval.transport import supply_usable
from grognard.rulesets.eastfront.scenario_model import rules
from grognard.rulesets.eastfront.units.kinds import is_cd, is_naval, is_supply
from grognard.rulesets.eastfront.units.losses import eliminate

if TYPE_CHECKING:
    from grognard.core.game import Game


def asp(p: Piece) -> int:
    return int(p.stat("asp", 0))


@implements("EF 11.5", "NM 28.12", "NM 30.4")
def supply_source(g: Game, side: str, target: int) -> Piece | None:
    """EF 11.5: the MSU or Dump that would supply an attack on hex ``target``.

    Rules: EF 11.5, NM 28.12, NM 30.4.
    """
    reach = rules(g).attack_supply_range
    best: tuple[int, str] | None = None
    found: Piece | None = None
    for p in g.state.of_side(side):
        if not is_supply(p) or asp(p) < 1 or not supply_usable(g, p):
            continue
        d = g.board.distance(int(p.loc.ref), target)
        if d <= reach and (best is None or (d, p.id) < best):
            best = (d, p.id)
            found = p
    return found


@implements("EF 11.5")
def spend(g: Game, p: Piece) -> None:
    """EF 11.5: one Attack Supply Point spent; an empty source is used up."""
    p.attrs["asp"] = asp(p) - 1
    g.emit("attack-supply", f"{p.name or p.id} spends an Attack Supply Point", rule="EF 11.5")
    if asp(p) <= 0:
        eliminate(g, p, "EF 11.5", "used up")


@implements("NM 30.3", "NM 30.21", "EF 11.5", "NM 25.2")
def needs_attack_supply(g: Game, p: Piece, amphibious: bool) -> bool:
    """EF 11.5: a unit needs Attack Supply unless it makes an Amphibious Assault (NM 30.21d), is
    a naval unit (NM 25.2: none needs General or Attack Supply) or is Soviet coast artillery
    (NM 30.3: it always has Attack Supply)."""
    if amphibious or is_naval(g, p):
        return False
    return not (p.side == SOVIET and is_cd(g, p))
