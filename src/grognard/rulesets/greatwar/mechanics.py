"""OT 3C game mechanics (fractions, cumulative effects, table rolls, accumulation) and OT 3D
markers."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.tables import Lookup, ResultsTable
from grognard.rulesets.greatwar.record import GWRecord

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("OT 3C1")
def keep(x: int | Fraction | str) -> Fraction:
    """OT 3C1: values keep their fractions unless a rule says to round (half of 7 is 3 1/2)."""
    return Fraction(x)


@implements("OT 3C2")
def apply_multipliers(value: int | Fraction, factors: Iterable[int | Fraction]) -> Fraction:
    """OT 3C2: strength effects are cumulative (halved twice = quartered)."""
    out = Fraction(value)
    for f in factors:
        out *= Fraction(f)
    return out


@implements("OT 3C3")
def table_roll(
    g: Game,
    table_id: str,
    column: str | int,
    reason: str,
    rule: str,
    modifiers: Modifiers | int = 0,
    visible_to: Iterable[str] | None = None,
) -> Lookup:
    """OT 3C3: roll the table's dice, apply every modifier, clamp to the printed rows, read the
    result.

    Modified rolls above the highest row read as the highest, below the lowest as the lowest.
    """
    table = tables(g)[table_id]
    r = g.roll(
        str(table.die),
        reason,
        rule,
        modifiers=modifiers,
        clamp=(table.row_min, table.row_max),
        visible_to=visible_to,
    )
    return table.lookup(column, int(r["unclamped"]))


def clamp_roll(roll: int, low: int, high: int) -> int:
    """OT 3C3: the clamp applied to a modified roll (a 7 on a 1-6 table reads 6, a 0 reads 1)."""
    return max(low, min(high, roll))


# ---------------------------------------------------------------------------- accumulation (OT 3C4)
@implements("OT 3C4")
def allowance_left(
    g: Game, key: str, per_turn: int | Fraction, period: str | None = None
) -> Fraction:
    """OT 3C4: what is left of a per-turn allowance; unused amounts never carry over.

    ``period`` identifies the turn the allowance belongs to (default: the current game turn and
    the player turn in progress); a new period starts from the full allowance again.
    """
    period = period or current_period(g)
    used = gw_view(g).get("allowances", {}).get(key)
    if used is None or used.get("period") != period:
        return Fraction(per_turn)
    return Fraction(per_turn) - Fraction(used.get("used", 0))


@implements("OT 3C4")
def use_allowance(
    g: Game, key: str, amount: int | Fraction, per_turn: int | Fraction, period: str | None = None
) -> None:
    """OT 3C4: spend part of a per-turn allowance (raises ValueError if it would exceed it)."""
    period = period or current_period(g)
    left = allowance_left(g, key, per_turn, period)
    if Fraction(amount) > left:
        raise ValueError(f"allowance {key}: {amount} asked, {left} left this turn")
    store = gw(g).setdefault("allowances", {})
    rec = store.get(key)
    if rec is None or rec.get("period") != period:
        rec = {"period": period, "used": Fraction(0)}
    rec["used"] = Fraction(rec["used"]) + Fraction(amount)
    store[key] = rec


def current_period(g: Game) -> str:
    return f"{g.state.turn.get('index', 0)}:{gw_view(g).get('phasing', '')}"


# ----------------------------------------------------------------------------- markers (OT 3D)
# Markers are state, not units: they never count for stacking and any number may share a hex.
HEX_MARKERS = {
    "rail-break": "rail line broken in the hex (OT 7A6)",
    "rail-obstructed": "rail line obstructed by capture (OT 7A7)",
    "railhead": "end of a usable rail line (OT 7)",
    "roadhead": "end of a usable road (OT 7)",
    "contested": "contested hex (OT 9J)",
    "devastated": "devastated hex (OT 15A8)",
    "fortification": "fieldworks, entrenchment, fort or improved fort (OT 15B)",
    "fortress-state": "improved or unimproved fortress (OT 15B4)",
    "bridge-demolished": "demolished bridge on a hexside, keyed by hexside (OT 15A1)",
    "bridge-owner": "last owner of both hexes of a bridge, keyed by hexside (OT 15A1)",
    "flooded": "partially flooded hex (OT 15A6)",
    "isolated": "hex isolated for its owner at the last check (OT 3G)",
    "port-upgrade": (
        "port upgraded by a port construction engineer, keyed by hex: the engineer's id (OT 13C2)"
    ),
    "port-damage": (
        "hits of damage on the port in the hex (OT 13A2, 13A3; read by the supply rules)"
    ),
}


@implements("OT 3D")
def set_marker(g: Game, kind: str, key: int | str, value: Any = True) -> None:
    """OT 3D: place (or with ``value=None`` remove) a marker; unknown marker kinds are an error."""
    if kind not in HEX_MARKERS:
        raise KeyError(f"unknown marker kind {kind!r}")
    g.state.set_marker(kind, key, value)


@implements("OT 3D")
def marker(g: Game, kind: str, key: int | str, default: Any = None) -> Any:
    """OT 3D: the marker of ``kind`` at ``key`` (a hex or hexside index)."""
    if kind not in HEX_MARKERS:
        raise KeyError(f"unknown marker kind {kind!r}")
    return g.state.marker(kind, key, default)


def gw(g: Game) -> GWRecord:
    """The rule system's own slot in the game state (created empty when missing); its layout is
    :class:`.record.GWRecord`."""
    return cast(GWRecord, g.state.vars.setdefault("gw", {}))


def gw_view(g: Game) -> GWRecord:
    """The rule system's slot for reading only: a fresh empty record when the state has none yet
    (nothing is stored, unlike :func:`gw`)."""
    return cast(GWRecord, g.state.vars.get("gw", {}))


def ip_id(g: Game) -> str:
    """The initial phase in progress (turn index and phasing side)."""
    return f"{g.state.turn.get('index', 0)}:{gw(g).get('phasing', '')}"


def tables(g: Game) -> dict[str, ResultsTable]:
    """Every die table in force (the scenario's overrides applied), read once per game and
    scenario (``Ruleset.tables`` reads and checks the files)."""
    over = g.scenario.table_overrides
    key = tuple(sorted((over or {}).items()))
    return g.cache.keyed("gw:tables", key, lambda: g.ruleset.tables(over))
