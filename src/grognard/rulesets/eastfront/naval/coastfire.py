"""Coast artillery Shipping Attacks (NM 27.12, NM 27.31).

In the enemy Combat Phase each CD unit may fire at one naval unit or flotilla it reaches (range
and line of fire, :mod:`.coast`): one on an all-sea hex, in a port on the map, or a flotilla
anywhere. A CD unit that fires gives no artillery support in that phase (NM 27.12a). Each
target is rolled for once on the Shipping Attack Table, the column of its type, with a DRM of
the firing CD points less one (several CD units firing at one target add their points,
NM 27.31c); results are Damage Points, applied at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.eastfront.data import table
from grognard.rulesets.eastfront.model import ef
from grognard.rulesets.eastfront.naval.coast import cd_points, reaches
from grognard.rulesets.eastfront.naval.damage import add_damage
from grognard.rulesets.eastfront.naval.units import afloat, port_of, sea_hex
from grognard.rulesets.eastfront.units.kinds import is_cd, is_flotilla, is_naval, kind

if TYPE_CHECKING:
    from grognard.core.game import Game


def target_hex(g: Game, p: Piece) -> int | None:
    """Where a naval unit or flotilla can be fired at: its all-sea hex, its port's hex, a
    flotilla's hex (None: not within reach of any CD, e.g. at sea without a hex)."""
    if is_flotilla(g, p):
        return int(p.loc.ref) if p.loc.kind == "hex" else None
    if not is_naval(g, p) or not afloat(g, p):
        return None
    i = sea_hex(g, p)
    if i is not None:
        return i
    port = port_of(g, p)
    return port.hex if port is not None else None


@implements("NM 27.12")
def cd_fire_problem(g: Game, cd: Piece, target: Piece) -> str | None:
    """NM 27.12: why ``cd`` may not fire at ``target`` (None: it may)."""
    rec = ef(g).combat
    if not is_cd(g, cd) or cd.loc.kind != "hex":
        return f"{cd.name or cd.id} is not a coast artillery unit on the map"
    if cd.id in rec.cd_fired:
        return f"{cd.name or cd.id} has already fired this phase (one target each, NM 27.12b)"
    if target.side == cd.side:
        return "a friendly unit"
    i = target_hex(g, target)
    if i is None:
        return f"{target.name or target.id} is not within reach of coast artillery"
    if not reaches(g, cd, i):
        return f"{target.name or target.id} is out of range or line of fire (NM 30.3)"
    return None


def targets_of(g: Game, cd: Piece) -> list[Piece]:
    return [
        q
        for q in sorted(g.state.pieces.values(), key=lambda x: x.id)
        if q.side != cd.side
        and (is_naval(g, q) or is_flotilla(g, q))
        and cd_fire_problem(g, cd, q) is None
    ]


@implements("NM 27.12", "NM 27.3", "NM 27.31")
def resolve_fire(g: Game, shots: list[tuple[str, str]]) -> None:
    """NM 27.31: one roll per target of the ``(cd, target)`` shots, DRM the CD points less one,
    the column of the target's type.

    Rules: NM 27.12, NM 27.3, NM 27.31.
    """
    by_target: dict[str, int] = {}
    for cd_id, tid in shots:
        by_target[tid] = by_target.get(tid, 0) + cd_points(g.state.pieces[cd_id])
    t = table(g, "shipping-attack")
    for tid, pts in sorted(by_target.items()):
        p = g.state.pieces[tid]
        if target_hex(g, p) is None:
            continue
        mods = Modifiers().add(pts - 1, "NM 27.31", f"{pts} CD points")
        r = g.roll(str(t.die), f"coast artillery fire at {p.name or p.id}", "NM 27.31", mods)
        res = str(t.lookup(kind(g, p).column, r.modified).result)
        g.emit("shipping-attack", f"Shipping Attack Table: {res}", rule="NM 27.31")
        if res.startswith("D"):
            add_damage(g, p, int(res[1:]), "NM 27.31")
