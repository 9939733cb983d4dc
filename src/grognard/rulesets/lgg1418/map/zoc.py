"""LGG 8: zones of control.

Each infantry or cavalry corps (mountain and marine corps included) standing on the map
exerts a ZoC into the six hexes around it (8); an unbesieged fortress does too (23-A, 9-E).
Whether a ZoC is flexible (8-A) or rigid (8-B) depends on the doctrine of the exerting unit's
country on the front of its hex (:mod:`.doctrine`). 8-C lists where a ZoC does not reach.

:func:`zoc_map` gives, for the side exerting the ZoCs, every hex under them with the kinds
present (``flexible``, ``rigid``, ``fortress``); the movement, interception and supply rules
read it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.map.fronts import fronts_of
from grognard.rulesets.lgg1418.units import doctrine

if TYPE_CHECKING:
    from grognard.core.game import Game

BESIEGED = "besieged"
BESIEGING = "besieging"


@implements("LGG 8", "LGG 8-C", "LGG 23-A")
def exerts_zoc(g: Game, p: Piece) -> bool:
    """LGG 8 / 8-C / 23-A: does this piece exert a ZoC?

    Infantry and cavalry corps on the map do (not in a reserve, not a garrison inside its
    fortress); a stack besieging a fortress does not (8-C); an unbesieged fortress does (23-A).
    """
    if p.type == "fortress":
        return p.loc.kind == "hex" and BESIEGED not in p.status
    if not M.is_corps(p) or M.in_reserve(p) or M.garrison_in_fortress(g, p):
        return False
    if BESIEGING in p.status:
        return False
    return M.on_map(g, p)


def _unmoved_stack(g: Game, owner: str, j: int) -> bool:
    """A stack of ``owner``'s enemy in hex ``j`` that has not yet moved (8-C, digest A-34)."""
    mover = M.other_side(owner)
    act = M.st(g).get("activation")
    units = [p for p in M.units_at_hex(g, j, mover)]
    if not units:
        return False
    if g.opt("zoc-unmoved-stack") == "this-turn":
        return any(p.attrs.get("moved_turn") != M.turn_index(g) for p in units)
    if not act or act.get("side") != mover:
        return False
    return any(p.attrs.get("mv_act") != act.get("serial") for p in units)


@implements("LGG 8-C")
def zoc_reaches(g: Game, owner: str, i: int, j: int) -> bool:
    """LGG 8-C: does a ZoC of ``owner`` exerted from hex ``i`` reach the adjacent hex ``j``?

    Not across a river or large river (a stream does not stop it) unless one bank holds a
    city or locality controlled by the ZoC's side (bridges), nor across a lake, a sea hexside
    (straits included) or a ridge; not into high mountain, into a hex held by an enemy stack
    that has not yet moved, into a hex with an enemy fortress, or into a neutral country.
    """
    return _reaches(g, owner, _reach_table(g), i, j)


def _reach_table(g: Game) -> dict[tuple[int, int], int]:
    """The parts of 8-C that depend only on the map, the weather and who is neutral, for the
    current weather and alignment: (hex, adjacent hex) -> ``_BLOCKED``, ``_BRIDGE`` (a river a
    ZoC crosses only at a bridge) or ``_OPEN``; filled in as pairs are asked about."""
    key = (
        "zoc-reach",
        tuple(sorted(M.st(g).get("weather", {}).items())),
        tuple(sorted(g.state.alignment.items())),
    )
    cache = mapdata.static(g)
    table: dict[tuple[int, int], int] | None = cache.get(key)  # type: ignore[call-overload]
    if table is None:
        table = cache[key] = {}  # type: ignore[index]
    return table


_OPEN, _BRIDGE, _BLOCKED = 0, 1, 2


def _static_reach(g: Game, i: int, j: int) -> int:
    code = _OPEN
    for f in mapdata.hexside_features(g, i, j):
        if f.blocks_zoc == "always":
            return _BLOCKED
        if f.blocks_zoc == "unless-bridge":
            code = _BRIDGE
    if (
        mapdata.terrain_info(g, j).blocks_zoc
        or mapdata.hex_impassable(g, j)
        or mapdata.is_neutral_hex(g, j)
    ):
        return _BLOCKED
    return code


def _reaches(
    g: Game,
    owner: str,
    table: dict[tuple[int, int], int],
    i: int,
    j: int,
    entered: dict[int, bool] | None = None,
) -> bool:
    """:func:`zoc_reaches` (LGG 8-C) with the map part looked up in ``table`` (see
    :func:`_reach_table`); ``entered``, when given, keeps the part that depends on hex ``j``
    alone (an enemy fortress or unmoved stack there) for one unchanged position."""
    code = table.get((i, j))
    if code is None:
        code = table[(i, j)] = _static_reach(g, i, j)
    if code == _BLOCKED or (code == _BRIDGE and not _bridge(g, owner, i, j)):
        return False
    if entered is not None:
        ok = entered.get(j)
        if ok is None:
            ok = entered[j] = _may_enter(g, owner, j)
        return ok
    return _may_enter(g, owner, j)


def _may_enter(g: Game, owner: str, j: int) -> bool:
    """LGG 8-C: the part of :func:`zoc_reaches` that depends on hex ``j`` alone: no enemy
    fortress there, no enemy stack that has not yet moved."""
    for p in g.state.at_hex(j):
        if p.type == "fortress" and p.side != owner:
            return False
    return not _unmoved_stack(g, owner, j)


def _bridge(g: Game, owner: str, i: int, j: int) -> bool:
    for h in (i, j):
        if mapdata.is_urban(g, h) and (
            g.opt("zoc-bridge-control") == "any-side" or mapdata.controller(g, h) == owner
        ):
            return True
    return False


@implements("LGG 8-A", "LGG 8-B")
def zoc_kind_of(g: Game, p: Piece) -> str:
    """LGG 8-A / 8-B: ``flexible`` or ``rigid`` according to the doctrine of the piece's country on
    its front;
    Fire Doctrine breakthrough units exert flexible ZoCs until their side's next turn is over
    (17.3-E).
    """
    until = p.attrs.get("breakthrough_until")
    if until is not None and int(until) >= M.turn_index(g):
        return "flexible"
    h = M.hex_of(g, p)
    fronts = fronts_of(g, h) if h is not None else []
    kinds = {doctrine.zoc_kind(g, p.nation, f) for f in fronts} or {
        doctrine.zoc_kind(g, p.nation, M.WEST)
    }
    return "rigid" if "rigid" in kinds else "flexible"


def zoc_map(g: Game, owner: str) -> dict[int, frozenset[str]]:
    """Hexes under the ZoCs of ``owner``'s pieces, with the kinds present there."""

    def compute() -> dict[int, frozenset[str]]:
        out: dict[int, set[str]] = {}
        table = _reach_table(g)
        entered: dict[int, bool] = {}
        for h, plist in M.occupied(g, owner).items():
            sources = [p for p in plist if exerts_zoc(g, p)]
            if not sources:
                continue
            kinds: set[str] = set()
            for p in sources:
                if p.type == "fortress":
                    kinds.add("fortress")
                kinds.add(zoc_kind_of(g, p))
            for j in g.board.neighbors(h):
                if _reaches(g, owner, table, h, j, entered):
                    out.setdefault(j, set()).update(kinds)
        return {k: frozenset(v) for k, v in out.items()}

    return M.memo(g, f"zoc:{owner}", compute)


def exerting_hexes(g: Game, owner: str, j: int) -> list[int]:
    """Hexes from which ``owner``'s pieces exert a ZoC into hex ``j``."""
    out = []
    occ = M.occupied(g, owner)
    for h in g.board.neighbors(j):
        if any(exerts_zoc(g, p) for p in occ.get(h, [])) and zoc_reaches(g, owner, h, j):
            out.append(h)
    return out


def in_enemy_zoc(g: Game, side: str, j: int) -> frozenset[str]:
    """Kinds of enemy ZoC (for ``side``) on hex ``j`` (empty when none)."""
    return zoc_map(g, M.other_side(side)).get(j, frozenset())


def shut_in_besieged_fortress(g: Game, q: Piece) -> bool:
    """Is ``q`` inside a besieged fortress (directly, or riding an HQ that is)?"""
    c = M.carrier(g, q)
    while c is not None:
        if c.type == "fortress":
            return BESIEGED in c.status
        c = M.carrier(g, c)
    return False
