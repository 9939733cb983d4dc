"""Amphibious Assault (NM 30.0-30.25) and special transport (NM 30.4).

Units loaded for an assault (NM 30.1, :mod:`.transport`) sail to an all-sea hex next to the
coast in the friendly movement phase before the Combat Phase, one combat unit per all-sea hex
per phase (NM 30.22a, :mod:`.movement`). In the Combat Phase they attack one adjacent coastal
hex, alone or with units on land (NM 30.23a); an empty one they simply occupy (NM 30.23b).
:class:`AmphibiousAssault` is the Declared Attack with these changes: units from the sea may
join; they need no Attack Supply (NM 30.21d); they take no retreat (NM 30.24a); they must come
ashore into a vacated hex (NM 30.24b), flotillas with them (NM 30.24e); survivors of a failed
landing stay at sea with their carriers (NM 30.25); and assault units and carriers move no
more this turn (NM 30.24f).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.procedure import stage
from grognard.core.rules import implements
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.eastfront.combat.attack import (
    AttackRecord,
    DeclaredAttack,
    current,
    defenders,
    pieces,
)
from grognard.rulesets.eastfront.combat.retreat import advance
from grognard.rulesets.eastfront.map.geography import coast_hexes_next_to, is_land
from grognard.rulesets.eastfront.model import GroundAttrs, turn_no
from grognard.rulesets.eastfront.naval.units import capacity, sea_hex
from grognard.rulesets.eastfront.units.kinds import (
    is_combat,
    is_hq,
    is_naval,
    is_supply,
)
from grognard.rulesets.eastfront.units.stacking import fits

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("NM 30.0", "NM 30.1", "NM 30.21", "NM 30.22", "NM 30.23", "NM 30.24", "NM 30.25")
class AmphibiousAssault(DeclaredAttack):
    """NM 30.0: a Declared Attack that units at sea may join (see the module docstring).

    Rules: NM 30.0, NM 30.1, NM 30.21, NM 30.22, NM 30.23, NM 30.24, NM 30.25.
    """

    name = "amphibious-assault"
    title = "Amphibious Assault"
    rule = "NM 30.0"
    amphibious_ok = True

    def may_retreat_attackers(self, g: Game, r: AttackRecord) -> bool:
        """NM 30.24a: units making an Amphibious Assault ignore retreat results."""
        return not r.amphibious

    @stage
    def advance(self, g: Game, f: Frame) -> None:
        """NM 30.24b: the assault units must come ashore into the vacated hex (as many as
        stacking allows; NM 30.24e: flotillas may, and do); the others may advance by choice."""
        r = current(g)
        i = g.board.idx(r.target)
        if defenders(g, i, r.side):
            return
        for p in pieces(g, r.amphibious):
            if p.loc.kind in ("piece", "hex") and fits(g, p, i):
                if p.loc.kind == "hex" and is_land(g, int(p.loc.ref)):
                    continue
                advance(g, p, i, "NM 30.24")
        super().advance(g, f)

    @stage(after="advance")
    def aftermath(self, g: Game, f: Frame) -> None:
        """NM 30.25 / NM 30.24f: who stays at sea, and no more movement this turn."""
        r = current(g)
        for p in pieces(g, r.amphibious):
            GroundAttrs(p.attrs).assault_turn = turn_no(g)
            p.status.add("assaulted")
            if p.loc.kind == "piece":
                ship = g.state.pieces[str(p.loc.ref)]
                ship.status.add("assaulted")
                g.emit(
                    "landing",
                    f"{p.name or p.id} stays at sea off {r.target} (NM 30.25)",
                    rule="NM 30.25",
                    visible_to=[p.side],
                    others=f"a landing force stays at sea off {r.target}",
                )
            else:
                p.status.discard("amphibious")


@implements("NM 30.4")
def special_landing_problem(g: Game, p: Piece, to: int) -> str | None:
    """NM 30.4: why ``p`` may not land on hex ``to`` by special transport (None: it may): an MSU
    (not a Dump) or an HQ aboard a naval unit with transport capacity, at sea on an all-sea hex
    next to a coastal hex already held by a friendly combat or supply unit."""
    if not (p.type == "msu" or is_hq(p)):
        return "only an MSU or an HQ lands by special transport"
    if p.loc.kind != "piece":
        return f"{p.name or p.id} is not aboard a naval unit"
    ship = g.state.pieces[str(p.loc.ref)]
    if not is_naval(g, ship) or capacity(ship) <= 0:
        return "it must be carried by a naval unit with transport capacity"
    i = sea_hex(g, ship)
    if i is None:
        return "its carrier must be at sea on an all-sea hex next to the coast"
    if to not in coast_hexes_next_to(g, i):
        return f"{g.board.label(to)} is not a coastal hex next to its carrier"
    if not any(q.side == p.side and (is_combat(g, q) or is_supply(q)) for q in g.state.at_hex(to)):
        return f"{g.board.label(to)} holds no friendly combat or supply unit"
    if not fits(g, p, to):
        return f"{g.board.label(to)} has no stacking room"
    return None


@implements("NM 30.4")
def special_landing(g: Game, p: Piece, to: int) -> None:
    """NM 30.4: the MSU or HQ comes ashore; an MSU may supply combat in this very phase."""
    if p.type == "msu":
        p.status.add("special")
    p.status.discard("amphibious")
    g.state.move(p.id, Loc.hex(to))
    g.emit("landing", f"{p.name or p.id} lands on {g.board.label(to)}", rule="NM 30.4")
