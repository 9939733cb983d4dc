"""OT 11 (supply) -- the parts the ground rules of Rules 3-8 need, and the general-supply hook.

Implemented here: supply-line blocking (OT 11A), regular general supply sources (OT 11C2a) and
the overland trace of any length used for isolation (OT 3G, in :mod:`.isolation`).

:func:`determine_general_supply` is the hook the initial phase calls for OT 11B. Until the full
supply rules (overland/road/railroad-naval elements with the Supply Line Summary lengths, depots,
GSPs, Res Pts) are written, it uses a stand-in criterion: a unit is in general supply when an
overland line of any length reaches a regular source (i.e. it is not isolated). It keeps the
count of turns out of general supply (two player turns per turn, OT 11F) that OT 5A and OT 6
read through :func:`turns_out_of_supply`.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar import geography, terrain, units
from grognard.rulesets.greatwar.charts import load_charts
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.weather import weather_at

if TYPE_CHECKING:
    from grognard.core.game import Game


def _prohibited_to_non_motorized(g: Game, i: int) -> bool:
    """Interpretation default (OT 11A): prohibited terrain for supply is what a non-motorized unit may not enter."""
    tec = load_charts(g.scenario.table_overrides).tec
    row = tec.hexes.get(terrain.terrain(g, i))
    if row is None:
        return True
    from grognard.rulesets.greatwar.weather import frozen_at

    if row.frozen_as and frozen_at(g, i):
        row = tec.hexes[row.frozen_as]
    return row.cost("other", weather_at(g, i)) is None


@implements("OT 11A")
def supply_enterable(g: Game, side: str, i: int, enemy_zoc: dict[int, str] | None = None) -> bool:
    """OT 11A: a supply line may not enter an enemy-occupied/owned hex, a hex in an enemy ZOC
    unless a friendly unit occupies it, or prohibited terrain."""
    from grognard.rulesets.greatwar import zoc
    from grognard.rulesets.greatwar.nations import other_side

    enemy = other_side(side)
    owner = g.state.control.get(i)
    here = units.units_in_hex(g, i)
    if owner == enemy and any(p.side == enemy for p in here):
        return False
    if _prohibited_to_non_motorized(g, i):
        return False
    ez = enemy_zoc if enemy_zoc is not None else zoc.zoc_map(g, enemy)
    return not (i in ez and not any(p.side == side for p in here))


def supply_step_ok(g: Game, i: int, j: int) -> bool:
    """OT 11A: no supply line across a prohibited hexside."""
    return not terrain.side_prohibited_to_all(g, g.board.side_between(i, j))


def ever_owned_by(g: Game, i: int) -> set[str]:
    return set(gw(g).get("ever_owned", {}).get(str(i), []))


@implements("OT 11C2a")
def regular_sources(g: Game, side: str) -> set[int]:
    """OT 11C2a: friendly major cities and factories in production that are rail-connected
    (OT 7A1) to another major city or factory, and that the enemy has never owned (a multi-hex
    city counts as enemy-owned only once all its hexes have been)."""
    from grognard.rulesets.greatwar import rail
    from grognard.rulesets.greatwar.nations import other_side

    enemy = other_side(side)
    cities = geography.major_cities(g)
    factories = [int(i) for i, pl in g.board.points.items() if any(pt.kind == "factory" and pt.attrs.get("in_production", True) for pt in pl)]
    groups: list[frozenset[int]] = list(cities)
    for f in factories:
        if not any(f in c for c in cities):
            groups.append(frozenset({f}))
    eligible: list[frozenset[int]] = []
    for grp in groups:
        if all(enemy in ever_owned_by(g, h) for h in grp):
            continue
        owned = frozenset(h for h in grp if g.state.control.get(h) == side)
        if owned:
            eligible.append(owned)
    out: set[int] = set()
    for k, grp in enumerate(eligible):
        others = [h for m, o in enumerate(eligible) if m != k for h in o]
        if any(rail.rail_connected(g, side, a, b) for a in grp for b in others):
            out |= grp
    return out


@implements("OT 3G", "OT 11A")
def overland_reach(g: Game, side: str, sources: set[int]) -> set[int]:
    """Hexes from which an overland supply line of any length reaches one of ``sources`` (OT 3G)."""
    from grognard.rulesets.greatwar import zoc
    from grognard.rulesets.greatwar.nations import other_side

    ez = zoc.zoc_map(g, other_side(side))
    ok = {i for i in sources if supply_enterable(g, side, i, ez)}
    todo = deque(sorted(ok))
    while todo:
        i = todo.popleft()
        for j in g.board.neighbors(i):
            if j in ok or not supply_step_ok(g, i, j):
                continue
            if not supply_enterable(g, side, j, ez):
                continue
            ok.add(j)
            todo.append(j)
    return ok


def traces_to(g: Game, i: int, reach: set[int]) -> bool:
    """OT 11A: a line from hex ``i`` (which it leaves, and so need not be able to enter) reaches the
    set ``reach`` of hexes joined to a source."""
    if i in reach:
        return True
    return any(j in reach and supply_step_ok(g, i, j) for j in g.board.neighbors(i))


def player_turn_ordinal(g: Game) -> int:
    return int(g.state.turn.get("index", 0)) * 2 + (1 if gw(g).get("phasing") == g.state.sides[-1] else 0)


def determine_general_supply(g: Game) -> None:
    """The initial-phase general supply check of both players (OT 4A1, OT 11B) -- stage stand-in.

    A unit counts as in general supply when it is not isolated (see the module docstring). Units
    out of supply keep the player turn they were first found out of supply, so that the turn
    count of OT 11F (two player turns per turn) can be read by other rules.
    """
    from grognard.rulesets.greatwar import isolation

    now = player_turn_ordinal(g)
    for p in units.on_map_units(g):
        h = units.hex_of(g, p)
        if h is None:
            continue
        if isolation.is_isolated(g, p.side, h):
            if "supply_out_since" not in p.attrs:
                p.attrs["supply_out_since"] = now
                g.emit("supply", f"{p.id} is out of general supply", rule="OT 11B", piece=p.id)
        elif "supply_out_since" in p.attrs:
            del p.attrs["supply_out_since"]
            g.emit("supply", f"{p.id} is back in general supply", rule="OT 11B", piece=p.id)


def turns_out_of_supply(g: Game, p: Piece) -> int:
    """0 in general supply, 1 for U-1, 2 for U-2 and later (a turn = two player turns, OT 11F)."""
    since = p.attrs.get("supply_out_since")
    if since is None:
        return 0
    return 1 + (player_turn_ordinal(g) - int(since)) // 2
