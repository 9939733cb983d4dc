"""Air combat and AA fire (EF 14.3, EF 14.4, NM 26.26e, NM 31.3).

Air combat (EF 14.3, our design): each escort fires at one opposing fighter, then each
surviving opposing fighter fires at one mission unit, in order; one d10 plus the firer's
fighter rating minus its target's on ``data/tables/air-combat.toml``; an ``abort`` sends the
target to its Flown box without flying. AA fire (EF 14.4): one roll per mission over a hex by
the defender's best AA unit there (ground units aboard a naval unit have no AA, NM 28.12i);
without one, naval units in a port hex fire (NM 26.26e). Naval AA (NM 31.3): each attacked
naval unit (a transport excepted) fires for itself, adding in port the AA of ground AA units
and HQs in or next to the port hex, at most +2; a transport in port is covered by another naval
unit there that is not itself a target.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.eastfront.air.units import fighter_rating, fly
from grognard.rulesets.eastfront.data import table
from grognard.rulesets.eastfront.map.ports import naval_units_in, port_at_hex
from grognard.rulesets.eastfront.naval.units import is_transport, port_of
from grognard.rulesets.eastfront.units.kinds import aa_value, is_ground, is_naval

if TYPE_CHECKING:
    from grognard.core.game import Game

NAVAL_AA = 1  # NM 25.2: each naval unit counts as an AA unit
GROUND_AA_CAP = 2  # NM 31.3a


def _fire(g: Game, firer: Piece, target: Piece, mods: Modifiers, rule: str, tid: str) -> bool:
    t = table(g, tid)
    r = g.roll(
        str(t.die), f"{firer.name or firer.id} fires at {target.name or target.id}", rule, mods
    )
    return str(t.lookup("fire", r.modified).result) == "abort"


@implements("EF 14.3")
def air_combat(
    g: Game, missions: list[Piece], escorts: list[Piece], interceptors: list[Piece]
) -> list[Piece]:
    """EF 14.3: resolve air combat; returns the mission units that fly on."""
    alive_int = list(interceptors)
    for k, e in enumerate(escorts):
        if not alive_int:
            break
        target = alive_int[k % len(alive_int)]
        mods = Modifiers().add(fighter_rating(e) - fighter_rating(target), "EF 14.3", "ratings")
        if _fire(g, e, target, mods, "EF 14.3", "air-combat"):
            g.emit("air-combat", f"{target.name or target.id} is turned back", rule="EF 14.3")
            alive_int.remove(target)
            fly(g, target)
    alive = list(missions)
    for k, i in enumerate(alive_int):
        if not alive:
            break
        target = alive[k % len(alive)]
        mods = Modifiers().add(fighter_rating(i) - fighter_rating(target), "EF 14.3", "ratings")
        if _fire(g, i, target, mods, "EF 14.3", "air-combat"):
            g.emit("air-combat", f"{target.name or target.id} is turned back", rule="EF 14.3")
            alive.remove(target)
            fly(g, target)
    for i in alive_int:
        fly(g, i)
    return alive


@implements("EF 14.4", "NM 26.26", "NM 28.12")
def hex_aa(g: Game, i: int, side: str) -> Piece | None:
    """EF 14.4: ``side``'s unit firing AA over hex ``i``: its best ground AA unit there, else a
    naval unit (not a transport) in the port of that hex (NM 26.26e).

    Rules: EF 14.4, NM 26.26, NM 28.12.
    """
    best: Piece | None = None
    for q in g.state.at_hex(i):
        if (
            q.side == side
            and is_ground(g, q)
            and aa_value(g, q) > 0
            and (best is None or aa_value(g, q) > aa_value(g, best))
        ):
            best = q
    if best is not None:
        return best
    port = port_at_hex(g, i)
    if port is not None:
        for q in naval_units_in(g, port):
            if q.side == side and not is_transport(q):
                return q
    return None


def aa_of(g: Game, p: Piece) -> int:
    return NAVAL_AA if is_naval(g, p) else aa_value(g, p)


@implements("EF 14.4")
def aa_fire(g: Game, firer: Piece, mission: list[Piece], drm: int = 0) -> Piece | None:
    """EF 14.4: one AA roll by ``firer``; an ``abort`` turns back the first mission unit (which
    goes to its Flown box). Returns it, or None."""
    if not mission:
        return None
    target = mission[0]
    mods = Modifiers().add(aa_of(g, firer), "EF 14.4", "AA value")
    mods.add(drm, "NM 31.3", "ground AA in port")
    if _fire(g, firer, target, mods, "EF 14.4", "aa"):
        g.emit("aa", f"AA fire turns back {target.name or target.id}", rule="EF 14.4")
        fly(g, target)
        return target
    return None


@implements("NM 31.3")
def ground_aa_drm(g: Game, ship: Piece) -> int:
    """NM 31.3a: the AA of friendly ground AA units and HQs in or next to the port hex, at most
    +2; nothing at sea."""
    port = port_of(g, ship)
    if port is None or port.hex is None:
        return 0
    total = 0
    for j in [port.hex, *g.board.neighbors(port.hex)]:
        for q in g.state.at_hex(j):
            if q.side == ship.side and is_ground(g, q):
                total += aa_value(g, q)
    return min(GROUND_AA_CAP, total)


@implements("NM 31.3", "NM 25.2")
def naval_aa_firer(g: Game, ship: Piece, targets: set[str]) -> Piece | None:
    """NM 31.3: who fires AA for an attacked naval unit: itself (not a transport); for a
    transport in port, another naval unit there that is not itself a target.

    Rules: NM 31.3, NM 25.2.
    """
    if not is_transport(ship):
        return ship
    port = port_of(g, ship)
    if port is None:
        return None
    for q in naval_units_in(g, port):
        if q.side == ship.side and not is_transport(q) and q.id not in targets:
            return q
    return None
