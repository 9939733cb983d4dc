"""OT 16B and 16C: replacements -- production points, general pools, replacement pools, costs and
limits, replacing, rebuilding and augmenting units, special replacements, and the special
considerations of OT 16C.

Where things are kept:

* **General pools** of Man Pts (by contingent) and Equ Pts, one per side and command (OT 16B3),
  in ``gw(g)["points"][side][command]``; deficits (OT 16B1b) in ``gw(g)["deficit"]``; points that
  may not be spent in the initial phase they were made (OT 16C13) in ``gw(g)["locked"]``.
* **On-map points** are pieces of type ``man-pt`` (a unit, OT 16B3) and ``equ-pt`` (a logistics
  item) with ``attrs.points`` and, for Man Pts, ``attrs.contingent``.
* **Replacement pools** (OT 16B2): an eliminated unit sits in the ``eliminated`` box with
  ``attrs.pool`` = the command it was eliminated in and ``attrs.pool_isolated`` for the
  eliminated-while-isolated section; ``attrs.set_aside`` marks units waiting for the next initial
  phase (OT 16B4a). Units removed from play go to the box ``out-of-play``.
* **Special replacement losses** (OT 16B4) in ``gw(g)["losses"]``; monthly counters of OT 16B3f,
  16C1 and 16C10 in ``gw(g)["monthly"]``.

A "command" is the command area of a hex (OT 3F); on maps without command areas every hex is in
the command ``"map"``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final, Literal, cast

from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.core.state import Piece as P
from grognard.rulesets.greatwar import calendar, intelligence, listing
from grognard.rulesets.greatwar.charts import load_charts
from grognard.rulesets.greatwar.hooks import reactions
from grognard.rulesets.greatwar.map import geography, zoc
from grognard.rulesets.greatwar.mechanics import gw, ip_id, marker
from grognard.rulesets.greatwar.movement import stacking
from grognard.rulesets.greatwar.supply import supply, supply_status
from grognard.rulesets.greatwar.units import nations, special_units, units
from grognard.rulesets.greatwar.units.catalogue import nation_info

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.greatwar.record import LockedRecord, MonthlyRecord, PointsRecord

MAN: Final = "man"
EQU: Final = "equ"
# the monthly counters of OT 16C1 (voluntary disbanding) and OT 16C10 (zero-movement artillery)
MonthlyCounter = Literal["disband", "zero-ma"]
OUT_OF_PLAY = "out-of-play"
NO_COMMAND = "map"
COMBAT_RULE_PREFIXES = ("OT 9", "OT 10", "OT 6F", "OT 14B2")
HALF = Fraction(1, 2)


# ============================================================================ small helpers
def half_down(x: Fraction) -> Fraction:
    """Round down to the nearest 1/2 (OT 16B4a)."""
    return Fraction(math.floor(Fraction(x) * 2), 2)


def half_up(x: Fraction) -> Fraction:
    return Fraction(math.ceil(Fraction(x) * 2), 2)


@implements("OT 16B1")
def valid_amount(kind: str, amount: Fraction) -> bool:
    """OT 16B1: Man Pts and Equ Pts come in steps of 1/2; Res Pts only in whole points."""
    if amount < 0:
        return False
    if kind == "res":
        return amount.denominator == 1
    return (amount * 2).denominator == 1


def command_of(g: Game, i: int | None) -> str:
    """The command a hex is in (OT 3F), or ``"map"`` where the scenario draws no commands."""
    if i is None:
        return NO_COMMAND
    return nations.command_of(g, i) or NO_COMMAND


def command_hexes(g: Game, command: str) -> list[int]:
    if command in g.board.areas:
        return [int(i) for i in g.board.areas[command].hexes]
    if command == NO_COMMAND:
        return list(range(g.board.n))
    return []


def controls_command(g: Game, side: str, command: str) -> bool:
    cmds = nations.controlled_commands(g, side)
    return cmds is None or command == NO_COMMAND or command in cmds


def contingent_of(g: Game, p: Piece) -> str:
    """OT 3B5 / 16B3b: the contingent whose Man Pts a unit uses (its ``contingent`` attribute, else
    its nation's rulebook name)."""
    c = p.attrs.get("contingent")
    return str(c) if c else nations.rulebook_name(g, p.nation)


def current_month(g: Game) -> str:
    d = calendar.current_date(g)
    return d.month_key if d is not None else "?"


def regular_supply(g: Game, side: str, i: int) -> bool:
    """Whether hex ``i`` is in regular general supply for ``side`` (OT 11C2): a general supply line
    from the side's regular sources reaches it (:func:`.supply.hex_in_general_supply`)."""

    if gw(g).get("phase") == "initial":
        # Within an initial phase only the phasing player's reinforcement and replacement
        # activities change the state, and they never change whose lines reach a hex: the
        # answers are held for the whole phase (and shared with the game's clones).
        return bool(
            g.cache.held(
                "gw:ip-supply",
                ip_id(g),
                (side, i),
                lambda: bool(supply.hex_in_general_supply(g, side, i)),
            )
        )
    return bool(
        g.cached(
            f"gw:regular-hex:{side}:{i}", lambda: bool(supply.hex_in_general_supply(g, side, i))
        )
    )


def friendly_cities(g: Game, side: str, hexes: Iterable[int], supplied: bool = False) -> list[int]:
    """Friendly-owned city hexes (OT 3E2) among ``hexes`` (in regular general supply if asked)."""
    out = []
    cities = geography.city_hexes(g)
    control = g.state.control
    for i in hexes:
        if i in cities and control.get(i) == side:
            if supplied and not regular_supply(g, side, i):
                continue
            out.append(i)
    return sorted(out)


def in_enemy_zoc(g: Game, p: Piece) -> bool:

    h = units.hex_of(g, p)
    return h is not None and h in zoc.zoc_map(g, nations.other_side(p.side))


def fortified_beyond_fieldworks(g: Game, i: int) -> bool:
    f = marker(g, "fortification", i)
    if f and f != "fieldworks":
        return True
    return any(pt.kind == "fortress" for pt in g.board.points_at(i))


def to_out_of_play(g: Game, p: Piece, rule: str, why: str) -> None:
    """Remove a piece from play for good (not eliminated, never replaced)."""
    h = units.hex_of(g, p)
    for q in list(g.state.contents(p.id)):
        if "leader" in units.utype(q).tags:
            to_leader_pool(g, q, f"{p.id} left play")
        elif "elite-brigade" in units.utype(q).tags:
            continue
        elif h is not None:
            g.state.move(q.id, Loc.hex(h))
        else:
            to_out_of_play(g, q, rule, why)
    for k in ("pool", "pool_isolated", "set_aside"):
        p.attrs.pop(k, None)
    g.state.move(p.id, Loc.box(OUT_OF_PLAY))
    g.emit("out-of-play", f"{p.id} leaves play ({why})", rule=rule, piece=p.id)


def leader_pool(side: str) -> str:
    return f"leaders:{side}"


def to_leader_pool(g: Game, leader: Piece, why: str) -> None:
    """OT 14P: a leader whose Army HQs is eliminated goes to the available leader pool (it always
    gets away)."""
    g.state.move(leader.id, Loc.box(leader_pool(leader.side)))
    leader.attrs["pool_since"] = ip_id(g)
    g.emit(
        "leader", f"{leader.id} returns to the leader pool ({why})", rule="OT 14P", piece=leader.id
    )


# =========================================================================== the chart (OT 16B3a/b)
def chart(g: Game) -> dict[str, Any]:

    return dict(load_charts(g.scenario.table_overrides).raw["replacement-costs"].body)


def _matches(g: Game, p: Piece, match: dict[str, Any], type_id: str) -> bool:

    fam = special_units.families(g, p)
    if "types" in match and type_id not in match["types"]:
        return False
    if "tags" in match and not (set(match["tags"]) & (fam | units.utype(p).tags)):
        return False
    return not ("classes" in match and not (set(match["classes"]) & set(units.unit_classes(p))))


def face_values(g: Game, p: Piece, face: str) -> tuple[Fraction, Fraction]:
    """The printed attack strength and the RE size of a unit on one of its faces (elite brigades
    included, OT 14Q)."""

    keep = p.face
    p.face = face
    try:
        attack = special_units.combat_strength(g, p, "attack")
        re = units.re_size(g, p)
    finally:
        p.face = keep
    return attack, re


@implements("OT 16B3a", "OT 16B3b")
def replacement_strength(
    g: Game, p: Piece, face: str | None = None, isolated: bool | None = None
) -> dict[str, Fraction]:
    """OT 16B3a: the Man Pts and Equ Pts it costs to replace a unit at ``face`` (default: its face
    now), from the Replacement Costs Chart; doubled while it is in the eliminated-while-isolated
    section of a replacement pool. OT 16B3b: the split between Man Pts and Equ Pts comes from the
    chart's row for the unit's type."""
    face = face or p.face
    body = chart(g)
    tid = units.utype(p).id
    attack, re = face_values(g, p, face)
    size = str(
        p.faces.get(face, {}).get(
            "size", face if face in units.SIZES_CADRE else p.attrs.get("size", "")
        )
    )
    man = equ = None
    for u in body.get("unit", []):
        if (
            tid in u.get("types", [])
            and u.get("size", size) == size
            and Fraction(str(u.get("attack", attack))) == attack
        ):
            man, equ = Fraction(str(u.get("man", 0))), Fraction(str(u.get("equ", 0)))
            break
    if man is None or equ is None:
        row = next(
            (r for r in body.get("row", []) if _matches(g, p, r.get("match", {}), tid)), None
        )
        if row is None:
            man = equ = Fraction(0)
        else:
            man = half_up(
                Fraction(str(row["man_per_attack"])) * attack
                + Fraction(str(row["man_per_re"])) * re
            )
            equ = half_up(
                Fraction(str(row["equ_per_attack"])) * attack
                + Fraction(str(row["equ_per_re"])) * re
            )
    iso = bool(p.attrs.get("pool_isolated")) if isolated is None else isolated
    if iso:
        man, equ = man * 2, equ * 2
    return {MAN: man, EQU: equ}


@implements("OT 16A1i", "OT 16A1v")
def scrap_value(g: Game, p: Piece) -> Fraction:
    """The Scrapping Value Table (OT 16A1i): the Man Pts a unit is worth when scrapped."""
    body = chart(g)
    per = Fraction(str(body.get("scrap", {}).get("scrap_per_re", "1/2")))
    _, re = face_values(g, p, full_face(p))
    return half_down(per * re)


def full_face(p: Piece) -> str:
    """The full-strength face: the strongest face that is not a cadre or remnant."""
    faces = [f for f in p.faces if f not in units.SIZES_CADRE and f != "disabled"]
    if not faces:
        return p.face
    return max(faces, key=lambda f: (_strength(p, f), -list(p.faces).index(f)))


def _strength(p: Piece, face: str) -> Fraction:
    d = p.faces.get(face, {})
    a = d.get("attack", d.get("strength", 0))
    b = d.get("defense", d.get("strength", 0))
    return Fraction(str(a)) + Fraction(str(b))


def reduced_face(p: Piece) -> str | None:
    """The cadre or remnant face, if the counter has one."""
    return next((f for f in units.SIZES_CADRE if f in p.faces), None)


def rebuild_cost(g: Game, p: Piece, from_face: str | None = None) -> dict[str, Fraction]:
    """The cost of bringing a unit from a reduced face (cadre, remnant or weaker side) to full
    strength: the full replacement strength less that of the reduced face (OT 16B3d, 16B4a)."""
    full = replacement_strength(g, p, full_face(p), isolated=False)
    red = replacement_strength(g, p, from_face or p.face, isolated=False)
    return {
        MAN: max(Fraction(0), full[MAN] - red[MAN]),
        EQU: max(Fraction(0), full[EQU] - red[EQU]),
    }


# ========================================================================== general pools (OT 16B3)
def _points_store(g: Game, side: str, command: str) -> PointsRecord:
    store = gw(g).setdefault("points", {}).setdefault(side, {}).setdefault(command, {})
    store.setdefault(MAN, {})
    store.setdefault(EQU, Fraction(0))
    return store


def pool_points(g: Game, side: str, command: str) -> dict[str, Any]:
    """The general pool of ``side`` in ``command``: ``{"man": {contingent: n}, "equ": n}`` (a
    copy)."""
    st = gw(g).get("points", {}).get(side, {}).get(command, {})
    return {MAN: dict(st.get(MAN, {})), EQU: Fraction(st.get(EQU, 0))}


def _locked_of(lk: LockedRecord, side: str, create: bool = False) -> dict[str, PointsRecord]:
    """OT 16C13: the points locked for ``side``, by command (its entry of the ``locked`` record,
    made when ``create``; the record's only other key, ``"ip"``, is never a side)."""
    by_command = lk.setdefault(side, {}) if create else lk.get(side, {})
    assert not isinstance(by_command, str), f"{side!r} is not a side"
    return by_command


def locked_points(g: Game, side: str, command: str) -> dict[str, Any]:
    """OT 16C13: points added to the pool in this initial phase that may not be spent in it."""
    lk = gw(g).get("locked", {})
    if lk.get("ip") != ip_id(g):
        return {MAN: {}, EQU: Fraction(0)}
    st = _locked_of(lk, side).get(command, {})
    return {MAN: dict(st.get(MAN, {})), EQU: Fraction(st.get(EQU, 0))}


def spendable(
    g: Game, side: str, command: str, kind: str, contingent: str | None = None
) -> Fraction:
    """Pool points that may be spent now (OT 16C13 and deficits of OT 16B1b considered)."""
    pool = pool_points(g, side, command)
    lk = locked_points(g, side, command)
    if kind == MAN:
        have = Fraction(pool[MAN].get(contingent, 0)) - Fraction(lk[MAN].get(contingent, 0))
    else:
        have = pool[EQU] - lk[EQU]
    return max(Fraction(0), have)


@implements("OT 16B1b")
def deficit(g: Game, side: str, command: str, kind: str, contingent: str | None = None) -> Fraction:
    """OT 16B1b: the deficit of one type of production (Man Pts by contingent, Equ Pts)."""
    d = gw(g).get("deficit", {}).get(side, {}).get(command, {})
    if kind == MAN:
        assert contingent is not None, "Man Pts are counted by contingent"
        return Fraction(d.get(MAN, {}).get(contingent, 0))
    return Fraction(d.get(EQU, 0))


def _set_deficit(
    g: Game, side: str, command: str, kind: str, contingent: str | None, value: Fraction
) -> None:
    d = (
        gw(g)
        .setdefault("deficit", {})
        .setdefault(side, {})
        .setdefault(command, {MAN: {}, EQU: Fraction(0)})
    )
    if kind == MAN:
        assert contingent is not None, "Man Pts are counted by contingent"
        if value:
            d[MAN][contingent] = value
        else:
            d[MAN].pop(contingent, None)
    else:
        d[EQU] = value


@implements("OT 16B1b", "OT 16C13")
def add_points(
    g: Game,
    side: str,
    command: str,
    man: dict[str, Fraction] | None = None,
    equ: Fraction = Fraction(0),
    rule: str = "OT 16B3",
    why: str = "",
    locked: bool = False,
) -> None:
    """Add Man Pts (by contingent) and Equ Pts to a general pool. Points first pay off any deficit
    of their type (OT 16B1b). With ``locked`` they may not be spent in this initial phase
    (OT 16C13: points from disarming, disbanding, reorganizing, scrapping and full-for-cadre
    withdrawals)."""
    store = _points_store(g, side, command)
    parts = []
    for c, amount in sorted((man or {}).items()):
        amount = Fraction(amount)
        if amount <= 0:
            continue
        owed = deficit(g, side, command, MAN, c)
        pay = min(owed, amount)
        if pay:
            _set_deficit(g, side, command, MAN, c, owed - pay)
            parts.append(f"{pay} {c} Man Pts pay off the deficit")
        rest = amount - pay
        if rest:
            store[MAN][c] = Fraction(store[MAN].get(c, 0)) + rest
            parts.append(f"{rest} {c} Man Pts")
            if locked:
                _lock(g, side, command, MAN, c, rest)
    equ = Fraction(equ)
    if equ > 0:
        owed = deficit(g, side, command, EQU)
        pay = min(owed, equ)
        if pay:
            _set_deficit(g, side, command, EQU, None, owed - pay)
            parts.append(f"{pay} Equ Pts pay off the deficit")
        rest = equ - pay
        if rest:
            store[EQU] = Fraction(store[EQU]) + rest
            parts.append(f"{rest} Equ Pts")
            if locked:
                _lock(g, side, command, EQU, None, rest)
    if parts:
        g.emit(
            "points",
            f"{side} {command} general pool: + " + ", ".join(parts) + (f" ({why})" if why else ""),
            rule=rule,
            side=side,
            command=command,
        )


def _lock(
    g: Game, side: str, command: str, kind: str, contingent: str | None, amount: Fraction
) -> None:
    lk = gw(g).setdefault("locked", {})
    if lk.get("ip") != ip_id(g):
        lk.clear()
        lk["ip"] = ip_id(g)
    st = _locked_of(lk, side, create=True).setdefault(command, {MAN: {}, EQU: Fraction(0)})
    if kind == MAN:
        assert contingent is not None, "Man Pts are counted by contingent"
        st[MAN][contingent] = Fraction(st[MAN].get(contingent, 0)) + amount
    else:
        st[EQU] = Fraction(st[EQU]) + amount


@implements("OT 16B1b")
def pay_points(
    g: Game,
    side: str,
    command: str,
    man: dict[str, Fraction] | None = None,
    equ: Fraction = Fraction(0),
    rule: str = "OT 16B1b",
    why: str = "",
    allow_deficit: bool = True,
) -> None:
    """Pay a required amount from a general pool; what cannot be paid becomes a deficit
    (OT 16B1b) when ``allow_deficit``."""
    store = _points_store(g, side, command)
    for c, amount in sorted((man or {}).items()):
        have = Fraction(store[MAN].get(c, 0))
        take = min(have, Fraction(amount))
        store[MAN][c] = have - take
        if not store[MAN][c]:
            store[MAN].pop(c, None)
        short = Fraction(amount) - take
        if short and allow_deficit:
            _set_deficit(g, side, command, MAN, c, deficit(g, side, command, MAN, c) + short)
            g.emit("deficit", f"{side} owes {short} {c} Man Pts in {command}", rule="OT 16B1b")
    if equ:
        have = Fraction(store[EQU])
        take = min(have, Fraction(equ))
        store[EQU] = have - take
        short = Fraction(equ) - take
        if short and allow_deficit:
            _set_deficit(g, side, command, EQU, None, deficit(g, side, command, EQU) + short)
            g.emit("deficit", f"{side} owes {short} Equ Pts in {command}", rule="OT 16B1b")
    g.emit(
        "points",
        f"{side} pays from the {command} general pool" + (f" ({why})" if why else ""),
        rule=rule,
    )


# ========================================================================== on-map points (OT 16B3)
@implements("OT 16B3")
def point_faces(kind: str, points: Fraction) -> dict[str, dict[str, Any]]:
    """OT 16B3: an on-map Man Pt is an unsupported 1/2-RE static unit of strength 0 attack and 1/2
    defense with a movement rating of 4 (a marker of n points defends with n/2); an on-map Equ Pt
    is a 1/2-RE logistics item."""
    if kind == MAN:
        return {"front": {"attack": 0, "defense": str(points / 2), "move": 4}}
    return {"front": {"move": 0}}


def _new_id(g: Game, prefix: str) -> str:
    st = gw(g)
    n = int(st.get("next_piece", 0)) + 1
    st["next_piece"] = n
    return f"{prefix}-{n}"


def points_in_hex(
    g: Game, side: str, i: int, kind: str, contingent: str | None = None
) -> list[Piece]:
    t = "man-pt" if kind == MAN else "equ-pt"
    return [
        q
        for q in g.state.at_hex(i)
        if q.side == side
        and units.utype(q).id == t
        and (kind != MAN or contingent is None or q.attrs.get("contingent") == contingent)
    ]


def hex_points(g: Game, side: str, i: int, kind: str, contingent: str | None = None) -> Fraction:
    return sum(
        (
            Fraction(str(q.attrs.get("points", 1)))
            for q in points_in_hex(g, side, i, kind, contingent)
        ),
        Fraction(0),
    )


@implements("OT 16B3")
def place_points(
    g: Game,
    side: str,
    i: int,
    kind: str,
    amount: Fraction,
    contingent: str | None = None,
    nation: str = "",
    rule: str = "OT 16B3",
    why: str = "",
) -> Piece | None:
    """Put Man Pts (of a contingent) or Equ Pts on the map in hex ``i``: added to a marker already
    there, or a new marker piece."""

    amount = Fraction(amount)
    if amount <= 0:
        return None
    have = points_in_hex(g, side, i, kind, contingent)
    if have:
        q = have[0]
        total = Fraction(str(q.attrs.get("points", 1))) + amount
        q.attrs["points"] = str(total)
        q.faces = point_faces(kind, total)
    else:
        pid = _new_id(g, "man" if kind == MAN else "equ")
        q = P(
            pid,
            "man-pt" if kind == MAN else "equ-pt",
            side,
            nation or _nation_of_side(g, side),
            faces=point_faces(kind, amount),
            attrs={"points": str(amount), "support": "unsupported"},
        )
        if kind == MAN and contingent:
            q.attrs["contingent"] = contingent
        g.state.add_piece(q)
        g.state.move(q.id, Loc.hex(i))
    g.emit(
        "points",
        f"{amount} {contingent + ' ' if contingent else ''}{'Man' if kind == MAN else 'Equ'} Pts"
        f" placed in {g.board.label(i)}" + (f" ({why})" if why else ""),
        rule=rule,
        hex=g.board.label(i),
    )
    return q


def take_hex_points(
    g: Game, side: str, i: int, kind: str, amount: Fraction, contingent: str | None = None
) -> None:
    """Spend on-map points in hex ``i`` (markers emptied go out of play)."""
    left = Fraction(amount)
    for q in points_in_hex(g, side, i, kind, contingent):
        if left <= 0:
            break
        have = Fraction(str(q.attrs.get("points", 1)))
        use = min(have, left)
        left -= use
        if use == have:
            q.attrs["points"] = "0"
            g.state.move(q.id, Loc.box("expended"))
        else:
            q.attrs["points"] = str(have - use)
            q.faces = point_faces(kind, have - use)
    if left > 0:
        raise ValueError(f"not enough points in {g.board.label(i)}")


def _nation_of_side(g: Game, side: str) -> str:
    for name, n in g.scenario.data.nations.items():
        if n.side == side:
            return name
    return ""


# ====================================================================== replacement pools (OT 16B2)
def in_pool(g: Game, p: Piece, side: str | None = None, command: str | None = None) -> bool:
    """A unit in a replacement pool (eliminated, not set aside)."""
    if (
        g.state.where(p.id) != Loc.box(units.ELIMINATED_BOX)
        or "pool" not in p.attrs
        or p.attrs.get("set_aside")
    ):
        return False
    return (side is None or p.side == side) and (command is None or p.attrs["pool"] == command)


def pool_units(g: Game, side: str, command: str | None = None) -> list[Piece]:
    """OT 16B2: the units of ``side``'s replacement pool in ``command`` (both sections)."""
    return sorted(
        (p for p in g.state.pieces.values() if in_pool(g, p, side, command)), key=lambda p: p.id
    )


def is_combat_loss(rule: str) -> bool:
    """OT 16B4: eliminations by combat or overrun (the rules of 9, 10, 6F and water-only
    interdiction)."""
    return rule.startswith(COMBAT_RULE_PREFIXES)


@implements("OT 16B2", "OT 16B4", "OT 16B4a")
def on_eliminated(g: Game, p: Piece, rule: str) -> None:
    """A unit is eliminated (called by ``units.eliminate`` before it leaves the map).

    OT 16B2: it belongs to the replacement pool of the command it was eliminated in, in the
    eliminated-while-isolated section if it was isolated. OT 16B4: if combat or an overrun
    eliminated it, its full replacement cost counts as a loss for special replacements; a
    non-isolated unit is set aside until the next initial phase (OT 16B4a), an isolated one's
    special replacements are worked out after the combat (OT 16B4b). On-map Man Pts count as
    losses but never enter a pool."""

    h = units.hex_of(g, p)
    if h is None:
        return
    side = p.side
    cmd = command_of(g, h)
    iso = supply_status.is_isolated(g, side, h)
    combat = is_combat_loss(rule)
    kind = units.utype(p).id
    if kind == "man-pt":
        if combat:
            amount = Fraction(str(p.attrs.get("points", 1)))
            _record_loss(g, side, cmd, h, iso, {_loss_key(g, p): amount}, Fraction(0))
        p.attrs["expended"] = True
        return
    if not units.is_unit(p):
        return
    p.attrs["pool"] = cmd
    p.attrs["eliminated_face"] = p.face
    if iso:
        p.attrs["pool_isolated"] = True
    if combat:
        cost = replacement_strength(g, p, full_face(p), isolated=False)
        _record_loss(
            g, side, cmd, h, iso, {_loss_key(g, p): cost[MAN]} if cost[MAN] else {}, cost[EQU]
        )
        if not iso:
            p.attrs["set_aside"] = True


@implements("OT 16B4a")
def on_reduced(g: Game, p: Piece, from_face: str, rule: str) -> None:
    """OT 16B4a: a unit reduced to its cadre or remnant by combat or overrun: its loss for special
    replacements is its full replacement cost less the cadre/remnant replacement strength."""

    h = units.hex_of(g, p)
    if h is None or not is_combat_loss(rule):
        return
    full = replacement_strength(g, p, full_face(p), isolated=False)
    red = replacement_strength(g, p, p.face, isolated=False)
    man = max(Fraction(0), full[MAN] - red[MAN])
    equ = max(Fraction(0), full[EQU] - red[EQU])
    _record_loss(
        g,
        p.side,
        command_of(g, h),
        h,
        supply_status.is_isolated(g, p.side, h),
        {_loss_key(g, p): man} if man else {},
        equ,
    )


def _loss_key(g: Game, p: Piece) -> str:
    return f"{nations.rulebook_name(g, p.nation)}|{contingent_of(g, p)}"


def _record_loss(
    g: Game,
    side: str,
    command: str,
    h: int,
    isolated: bool,
    man: dict[str, Fraction],
    equ: Fraction,
) -> None:
    if isolated:
        led = (
            gw(g)
            .setdefault("iso_losses", {})
            .setdefault(side, {})
            .setdefault(str(h), {MAN: {}, EQU: Fraction(0)})
        )
    else:
        led = (
            gw(g)
            .setdefault("losses", {})
            .setdefault(side, {})
            .setdefault(command, {MAN: {}, EQU: Fraction(0)})
        )
    for k, v in man.items():
        led[MAN][k] = Fraction(led[MAN].get(k, 0)) + Fraction(v)
    led[EQU] = Fraction(led[EQU]) + Fraction(equ)


SPECIAL_DIVISOR_3 = ("France", "Germany")
SPECIAL_DIVISOR_3_CONTINGENTS = ("Anzac", "Canadian")
SPECIAL_DIVISOR_5 = ("USA", "Russia")


@implements("OT 16B4a")
def special_divisor(nation: str, contingent: str) -> int:
    """OT 16B4a: Man Pt losses are divided by 3 for French, German, Anzac and Canadian
    contingents, by 5 for American and Russian ones, by 4 for all others."""

    info = nation_info(nation)
    name = info.id if info else nation
    if contingent in SPECIAL_DIVISOR_3_CONTINGENTS or name in SPECIAL_DIVISOR_3:
        return 3
    if name in SPECIAL_DIVISOR_5:
        return 5
    return 4


@implements("OT 16B4a")
def special_replacements(losses: PointsRecord) -> dict[str, Any]:
    """OT 16B4a: special replacements from a loss total: Equ Pts / 4, Man Pts per contingent
    divided per ``special_divisor``, each rounded down to the nearest 1/2.
    ``losses`` = {"man": {"nation|contingent": n}, "equ": n}; returns {"man": {contingent: n},
    "equ": n}.
    """
    man: dict[str, Fraction] = {}
    for key, amount in sorted(losses.get(MAN, {}).items()):
        nation, _, contingent = key.partition("|")
        got = half_down(Fraction(amount) / special_divisor(nation, contingent))
        if got:
            man[contingent] = man.get(contingent, Fraction(0)) + got
    return {MAN: man, EQU: half_down(Fraction(losses.get(EQU, 0)) / 4)}


@implements("OT 16B4", "OT 16B4a")
def settle_special_replacements(g: Game) -> None:
    """OT 16B4a: in each initial phase (either player's), each player's losses since the previous
    initial phase in each command give special replacements, added to that command's general
    pool; the units set aside then enter their replacement pools."""
    for side in g.state.sides:
        led = gw(g).get("losses", {}).get(side, {})
        for cmd in sorted(led):
            got = special_replacements(led[cmd])
            if got[MAN] or got[EQU]:
                add_points(
                    g, side, cmd, got[MAN], got[EQU], rule="OT 16B4a", why="special replacements"
                )
        gw(g).setdefault("losses", {})[side] = {}
    for p in g.state.pieces.values():
        if p.attrs.get("set_aside"):
            del p.attrs["set_aside"]


@implements("OT 16B4b")
def settle_isolated_losses(g: Game) -> None:
    """OT 16B4b: special replacements from units eliminated while isolated, worked out right after
    the combat result (each combat hex's losses together): placed in the combat hex if it is
    friendly-owned, else in a friendly-owned adjacent hex (the first one), else the Man Pts are
    forfeited and the Equ Pts are captured by the enemy and placed in the combat hex."""
    store = gw(g).get("iso_losses", {})
    for side in sorted(store):
        for key in sorted(store[side], key=int):
            h = int(key)
            got = special_replacements(store[side][key])
            if not (got[MAN] or got[EQU]):
                continue
            if g.state.control.get(h) == side:
                dest: int | None = h
            else:
                adj = [j for j in geography.adjacent_hexes(g, h) if g.state.control.get(j) == side]
                dest = min(adj) if adj else None
            if dest is not None:
                for c, amt in sorted(got[MAN].items()):
                    place_points(
                        g,
                        side,
                        dest,
                        MAN,
                        amt,
                        c,
                        rule="OT 16B4b",
                        why="special replacements (isolated)",
                    )
                if got[EQU]:
                    place_points(
                        g,
                        side,
                        dest,
                        EQU,
                        got[EQU],
                        rule="OT 16B4b",
                        why="special replacements (isolated)",
                    )
            else:
                enemy = nations.other_side(side)
                g.emit(
                    "points",
                    f"{side} forfeits its special replacement Man Pts at {g.board.label(h)}",
                    rule="OT 16B4b",
                )
                if got[EQU]:
                    place_points(
                        g, enemy, h, EQU, got[EQU], rule="OT 16B4b", why=f"captured from {side}"
                    )
        store[side] = {}


# ============================================================================ limits (OT 16B3f)
LIMIT_CATEGORIES = ("cm", "artillery", "engineer", "cavalry", "light-mountain")


@implements("OT 16B3f")
def limit_categories(g: Game, p: Piece) -> dict[str, Fraction]:
    """OT 16B3f: the categories a unit counts against and the RE it counts there: c/m units;
    artillery
    (field artillery at half its RE, siege and heavy siege artillery double); engineers
    (construction engineers half, railroad, port construction, flamethrower, siege and gas engineers
    double); cavalry; light and mountain units. A unit in several categories counts in each."""

    t = units.utype(p)
    re = units.re_size(g, p)
    fam = special_units.families(g, p)
    out: dict[str, Fraction] = {}
    if units.is_cm(p):
        out["cm"] = re
    if units.is_artillery(p):
        factor = {"field": HALF, "siege": Fraction(2), "heavy-siege": Fraction(2)}.get(
            t.artillery, Fraction(1)
        )
        out["artillery"] = re * factor
    if "engineer" in t.tags or "engineer-tank" in t.tags:
        if t.id == "construction":
            factor = HALF
        elif t.id in (
            "railroad-engineer",
            "port-construction-engineer",
            "flamethrower",
            "siege-engineer",
            "gas-engineer",
        ):
            factor = Fraction(2)
        else:
            factor = Fraction(1)
        out["engineer"] = re * factor
    if "cavalry" in fam:
        out["cavalry"] = re
    if fam & {"light", "mountain"}:
        out["light-mountain"] = re
    return out


@implements("OT 16B3f")
def monthly_limit(g: Game, nation: str, category: str) -> Fraction:
    """OT 16B3f: the monthly limit of a nation in a category. Great and major powers: c/m 1 RE
    (Entente 2 from Feb I 18, 4 from Feb I 19), artillery 6 (Entente 3 before Feb I 16), engineers
    2, cavalry 6 (Russia 12), light/mountain 6. Minor powers: half, and never increased."""

    side = nations.side_of_nation(g, nation)
    info = nation_info(nations.rulebook_name(g, nation))
    name = info.id if info else nation
    minor = nations.power_class(g, nation) == "minor"
    base = {
        "cm": Fraction(1),
        "artillery": Fraction(6),
        "engineer": Fraction(2),
        "cavalry": Fraction(6),
        "light-mountain": Fraction(6),
    }[category]
    if category == "cavalry" and name == "Russia":
        base = Fraction(12)
    if side == "Entente":
        if category == "cm" and not minor:
            if calendar.on_or_after(g, "Feb I 19"):
                base = Fraction(4)
            elif calendar.on_or_after(g, "Feb I 18"):
                base = Fraction(2)
        if category == "artillery" and calendar.before(g, "Feb I 16"):
            base = Fraction(3)
    return base / 2 if minor else base


def _monthly(g: Game) -> MonthlyRecord:
    st = gw(g).setdefault("monthly", {})
    if st.get("month") != current_month(g):
        cast("dict[str, Any]", st).clear()  # a new month: every counter starts again
        st["month"] = current_month(g)
    return st


def limit_used(g: Game, nation: str, category: str) -> Fraction:
    st = gw(g).get("monthly", {})
    if st.get("month") != current_month(g):
        return Fraction(0)
    return Fraction(st.get("limits", {}).get(nation, {}).get(category, 0))


@implements("OT 16B3f")
def limit_problem(g: Game, p: Piece, from_isolated: bool = False) -> str | None:
    """OT 16B3f: why replacing, rebuilding or augmenting the unit would exceed a monthly limit
    (a unit from the eliminated-while-isolated section counts double its RE)."""
    for cat, re in limit_categories(g, p).items():
        need = re * (2 if from_isolated else 1)
        left = monthly_limit(g, p.nation, cat) - limit_used(g, p.nation, cat)
        if need > left:
            return (
                f"{p.nation} may replace only {monthly_limit(g, p.nation, cat)} RE of {cat} units"
                f" per month ({left} left; {p.id} counts {need}) (OT 16B3f)"
            )
    return None


def charge_limit(g: Game, p: Piece, from_isolated: bool = False) -> None:
    st = _monthly(g).setdefault("limits", {}).setdefault(p.nation, {})
    for cat, re in limit_categories(g, p).items():
        st[cat] = Fraction(st.get(cat, 0)) + re * (2 if from_isolated else 1)


def monthly_count(g: Game, key: MonthlyCounter, nation: str) -> Fraction:
    st = gw(g).get("monthly", {})
    if st.get("month") != current_month(g):
        return Fraction(0)
    return Fraction(st.get(key, {}).get(nation, 0))


def add_monthly(g: Game, key: MonthlyCounter, nation: str, amount: Fraction) -> None:
    st = _monthly(g).setdefault(key, {})
    st[nation] = Fraction(st.get(nation, 0)) + amount


# ============================================================================ entering play (OT 16)
@implements("OT 16")
def receive_piece(g: Game, p: Piece, i: int, rule: str, why: str = "") -> None:
    """A reinforcement or replacement enters play in hex ``i`` during its owner's initial phase.

    OT 16: a unit entering play at a location that is out of general supply takes that location's
    supply status (its turn count), and at an isolated location out of supply for two turns or more
    it is not checked for supply elimination (OT 11F3) in the player turn it arrives (attribute
    ``arrived_exempt`` = that player turn, read by the supply rules); what the initial-phase supply
    check found for it at its old place, if it was on the map then, no longer applies. OT 14N2: a
    Corps HQs enters
    known or unknown by its distance to the enemy."""

    for k in ("pool", "pool_isolated", "set_aside", "eliminated_face", "supply_out_since"):
        p.attrs.pop(k, None)
    g.state.move(p.id, Loc.hex(i))
    supply.forget_check(g, p)
    since = location_supply_since(g, p.side, i)
    if since is not None:
        p.attrs["supply_out_since"] = since
        if supply_status.is_isolated(g, p.side, i) and supply_status.turns_out_of_supply(g, p) >= 2:
            p.attrs["arrived_exempt"] = supply_status.player_turn_ordinal(g)
    g.emit(
        "reinforcement",
        f"{p.id} enters play in {g.board.label(i)}" + (f" ({why})" if why else ""),
        rule=rule,
        piece=p.id,
        hex=g.board.label(i),
    )

    intelligence.on_enter_play(g, p)


def location_supply_since(g: Game, side: str, i: int) -> int | None:
    """OT 16: the general supply status of a map location: the earliest ``supply_out_since`` of the
    friendly units there, else the current player turn if the hex cannot trace to a regular source,
    else None (in supply)."""

    marks = [
        int(q.attrs["supply_out_since"])
        for q in units.units_in_hex(g, i, side)
        if "supply_out_since" in q.attrs
    ]
    if marks:
        return min(marks)
    if not regular_supply(g, side, i):
        return supply_status.player_turn_ordinal(g)
    return None


def exempt_from_attrition(g: Game, p: Piece) -> bool:
    """OT 16: the unit arrived this player turn at an isolated location out of supply for two turns
    or more and is not checked for elimination (OT 11F3)."""

    return p.attrs.get("arrived_exempt") == supply_status.player_turn_ordinal(g)


# ============================================================================ paying (OT 16B3c/d)
def _cost_for(g: Game, p: Piece, cost: dict[str, Fraction]) -> tuple[str, Fraction, Fraction]:
    return contingent_of(g, p), cost[MAN], cost[EQU]


def payment_problem(
    g: Game,
    side: str,
    command: str,
    hex_: int | None,
    contingent: str,
    man: Fraction,
    equ: Fraction,
    use_pool: bool = True,
) -> str | None:
    """Whether ``side`` can pay ``man`` (contingent) and ``equ`` from the points in one hex (if any)
    and the command's general pool (OT 16B3b-d: Man Pts by contingent, Equ Pts generic, points of
    different hexes never combined)."""
    hm = hex_points(g, side, hex_, MAN, contingent) if hex_ is not None else Fraction(0)
    he = hex_points(g, side, hex_, EQU) if hex_ is not None else Fraction(0)
    pm = spendable(g, side, command, MAN, contingent) if use_pool else Fraction(0)
    pe = spendable(g, side, command, EQU) if use_pool else Fraction(0)
    if deficit(g, side, command, MAN, contingent) and man > hm:
        return f"{side} has a deficit of {contingent} Man Pts to pay off first (OT 16B1b)"
    if deficit(g, side, command, EQU) and equ > he:
        return f"{side} has a deficit of Equ Pts to pay off first (OT 16B1b)"
    if hm + pm < man:
        return f"needs {man} {contingent} Man Pts, has {hm + pm} (OT 16B3b)"
    if he + pe < equ:
        return f"needs {equ} Equ Pts, has {he + pe} (OT 16B3b)"
    return None


def pay(
    g: Game,
    side: str,
    command: str,
    hex_: int | None,
    contingent: str,
    man: Fraction,
    equ: Fraction,
    rule: str,
    why: str,
) -> None:
    """Spend points: the hex's points first, the rest from the general pool."""
    if hex_ is not None:
        hm = min(man, hex_points(g, side, hex_, MAN, contingent))
        he = min(equ, hex_points(g, side, hex_, EQU))
        if hm:
            take_hex_points(g, side, hex_, MAN, hm, contingent)
        if he:
            take_hex_points(g, side, hex_, EQU, he)
        man, equ = man - hm, equ - he
    if man or equ:
        pay_points(
            g,
            side,
            command,
            {contingent: man} if man else {},
            equ,
            rule=rule,
            why=why,
            allow_deficit=False,
        )


# ============================================================================ replacing (OT 16B3c)
@implements("OT 16B3c")
def replacement_faces(p: Piece) -> list[str]:
    """OT 16B3c: the faces an eliminated unit may be replaced at: only its cadre or remnant if it
    has
    one; a two-sided unit without one at either side if both sides have the same unit type and
    movement rating, otherwise only at the side it was eliminated at."""
    red = reduced_face(p)
    if red is not None:
        return [red]
    faces = [f for f in p.faces if f != "disabled"]
    if len(faces) == 2:
        a, b = (p.faces[f] for f in faces)
        if a.get("type", p.type) == b.get("type", p.type) and str(a.get("move")) == str(
            b.get("move")
        ):
            return faces
    return [
        (
            str(p.attrs.get("eliminated_face", p.face))
            if p.attrs.get("eliminated_face", p.face) in p.faces
            else faces[0]
        )
    ]


def replace_hexes(g: Game, side: str, p: Piece) -> list[int]:
    """Where a pool unit may be placed when paid from the general pool: friendly-owned cities in
    regular general supply in its pool's command (OT 16B3c). Remembered while legal actions are
    listed (:func:`.listing.scope`)."""

    cmd = str(p.attrs.get("pool"))
    return list(
        listing.scoped(
            g,
            ("replace-hexes", side, cmd),
            lambda: friendly_cities(g, side, command_hexes(g, cmd), supplied=True),
        )
    )


@implements("OT 16B3c", "OT 16B3f")
def replace_problem(g: Game, side: str, action: dict[str, Any]) -> str | None:
    """OT 16B3c: replacing an eliminated unit in one's own initial phase: a unit of the command's
    replacement pool, at an allowed face, paid from that command's general pool (placed at a
    friendly-owned city in regular general supply) and/or the points of one hex of that command in
    regular general supply (placed there), within the monthly limits (OT 16B3f)."""
    p = g.state.pieces.get(str(action.get("piece")))
    if p is None or not in_pool(g, p, side):
        return f"{action.get('piece')!r} is not in a replacement pool of {side}"
    cmd = str(p.attrs["pool"])
    if not controls_command(g, side, cmd):
        return f"{side} does not control {cmd}"
    face = str(action.get("face") or replacement_faces(p)[0])
    if face not in replacement_faces(p):
        return f"{p.id} may be replaced only at {', '.join(replacement_faces(p))} (OT 16B3c)"
    h = action.get("hex")
    if not isinstance(h, str) or not g.board.has_label(h):
        return "name the hex ('hex') the unit is placed in"
    i = g.board.idx(h)
    if command_of(g, i) != cmd:
        return (
            f"{h} is not in {cmd}: points of a command replace only its own pool's units (OT 16B3c)"
        )
    if g.state.control.get(i) != side or not regular_supply(g, side, i):
        return f"{h} must be friendly-owned and in regular general supply (OT 16B3c)"
    on_map = hex_points(g, side, i, MAN, contingent_of(g, p)) + hex_points(g, side, i, EQU) > 0
    if not on_map and i not in replace_hexes(g, side, p):
        return f"{h} is not a friendly-owned city in regular general supply in {cmd} (OT 16B3c)"
    cost = replacement_strength(g, p, face)
    why = payment_problem(
        g, side, cmd, i if on_map else None, contingent_of(g, p), cost[MAN], cost[EQU]
    )
    if why:
        return f"cannot replace {p.id}: {why}"
    return limit_problem(g, _at_face(p, face), bool(p.attrs.get("pool_isolated")))  # type: ignore[arg-type]


class _at_face:
    """A read-only view of a piece turned to another face (for limit counting)."""

    def __init__(self, p: Piece, face: str) -> None:
        self._p = p
        self._face = face

    def __getattr__(self, k: str) -> Any:
        if k == "face":
            return self._face
        return getattr(self._p, k)


def do_replace(g: Game, side: str, action: dict[str, Any], free: bool = False) -> None:
    """Carry out a checked replacement (OT 16B3c); ``free`` for OB replacements (OT 16A1u), which
    cost nothing and do not count against the limits."""
    p = g.state.pieces[str(action["piece"])]
    cmd = str(p.attrs["pool"])
    face = str(action.get("face") or replacement_faces(p)[0])
    i = g.board.idx(str(action["hex"]))
    iso = bool(p.attrs.get("pool_isolated"))
    if not free:
        cost = replacement_strength(g, p, face)
        on_map = hex_points(g, side, i, MAN, contingent_of(g, p)) + hex_points(g, side, i, EQU) > 0
        pay(
            g,
            side,
            cmd,
            i if on_map else None,
            contingent_of(g, p),
            cost[MAN],
            cost[EQU],
            "OT 16B3c",
            f"replacing {p.id}",
        )
        p.face = face
        charge_limit(g, p, iso)
    else:
        p.face = face
    if p.attrs.pop("awq_pending", None):
        g.state.move(p.id, Loc.box(str(p.attrs.pop("awq_box", f"awq:{cmd}"))))
        for k in ("pool", "pool_isolated", "eliminated_face"):
            p.attrs.pop(k, None)
        g.emit(
            "reinforcement",
            f"{p.id} is replaced into the African Winter Quarters box",
            rule="OT 16A1s",
        )
        return
    receive_piece(
        g, p, i, "OT 16A1u" if free else "OT 16B3c", "free replacement" if free else "replaced"
    )


# ======================================================================== rebuilding and augmenting
@implements("OT 16B3d", "OT 16B3e", "OT 16B3f")
def rebuild_problem(g: Game, side: str, action: dict[str, Any], own_ip: bool) -> str | None:
    """OT 16B3d: a cadre or remnant on the map is rebuilt to full strength in any initial phase
    (friendly or enemy); OT 16B3e: a two-sided unit at its weaker side is augmented the same way,
    in its owner's initial phases only, and never if the two sides' movement ratings differ. Paid
    with the general pool of its command (the unit in regular general supply), with points in its
    own hex, or both (then the hex must be in regular general supply); not in an enemy ZOC unless
    the hex has a fortification other than fieldworks; within the monthly limits. OT 8B: the
    stacking limit is not in force in the initial phase, but units entering play then may not
    break it at the end of the following movement phase; a unit rebuilt in the enemy initial
    phase cannot move in that phase, so it may not put its stack over the limit unless the excess
    can go into an overstack (OT 8C2, :func:`.stacking.after_arrival`)."""
    p = g.state.pieces.get(str(action.get("piece")))
    if p is None or p.side != side or units.hex_of(g, p) is None or not units.is_unit(p):
        return f"{action.get('piece')!r} is not a unit of {side} on the map"
    full = full_face(p)
    if p.face == full:
        return f"{p.id} is already at full strength"
    augment = p.face not in units.SIZES_CADRE
    if augment:
        if not own_ip:
            return f"{p.id} may be augmented only in {side}'s own initial phase (OT 16B3e)"
        if str(p.faces[p.face].get("move")) != str(p.faces[full].get("move")):
            return (
                f"{p.id}'s two sides have different movement ratings: it changes only as the OB"
                " directs (OT 16B3e)"
            )
    h = units.hex_of(g, p)
    assert h is not None
    if in_enemy_zoc(g, p) and not fortified_beyond_fieldworks(g, h):
        return f"{p.id} is in an enemy ZOC in a hex without fortifications (OT 16B3d)"
    if not own_ip:
        over = stacking.stack_problem(g, h, side, extra=[_at_face(p, full)], without={p.id})  # type: ignore[list-item]
        if over and not (g.opt("overstacking") and stacking.has_corps_hq(g, h, side)):
            return (
                f"with {p.id} rebuilt, the {over}; the limit is in force at the end of the enemy "
                "movement phase, in which the stack cannot move (OT 8B)"
            )
    cmd = command_of(g, h)
    cost = rebuild_cost(g, p)
    c = contingent_of(g, p)
    on_map = hex_points(g, side, h, MAN, c) + hex_points(g, side, h, EQU)
    supplied = regular_supply(g, side, h)
    use_pool = supplied and controls_command(g, side, cmd)
    why = payment_problem(g, side, cmd, h, c, cost[MAN], cost[EQU], use_pool=use_pool)
    if why:
        extra = (
            ""
            if use_pool or on_map
            else " (the pool may pay only for a unit in regular general supply)"
        )
        return f"cannot {'augment' if augment else 'rebuild'} {p.id}: {why}{extra}"
    return limit_problem(g, _at_face(p, full))  # type: ignore[arg-type]


def do_rebuild(g: Game, side: str, action: dict[str, Any]) -> None:
    p = g.state.pieces[str(action["piece"])]
    h = units.hex_of(g, p)
    assert h is not None
    rule = "OT 16B3e" if p.face not in units.SIZES_CADRE else "OT 16B3d"
    cost = rebuild_cost(g, p)
    pay(
        g,
        side,
        command_of(g, h),
        h,
        contingent_of(g, p),
        cost[MAN],
        cost[EQU],
        rule,
        f"bringing {p.id} to full strength",
    )
    p.face = full_face(p)
    charge_limit(g, p)
    g.emit("rebuilt", f"{p.id} is brought to full strength", rule=rule, piece=p.id)

    stacking.after_arrival(g, [p], h)  # OT 8C2: an excess under a Corps HQs goes into the overstack


# ======================================================================== transfers (OT 16B2, 16B3)
@implements("OT 16B2", "OT 16B3")
def commands_linked(g: Game, side: str, a: str, b: str) -> bool:
    """OT 16B2/16B3: an overland supply line of any length joins a friendly-owned city in regular
    general supply in command ``a`` to one in command ``b``."""

    ca = friendly_cities(g, side, command_hexes(g, a), supplied=True)
    cb = set(friendly_cities(g, side, command_hexes(g, b), supplied=True))
    if not ca or not cb:
        return False
    reach = supply.overland_reach(g, side, cb)
    return any(supply.traces_to(g, i, reach) for i in ca)


@implements("OT 16B2")
def unit_transfer_problem(g: Game, side: str, action: dict[str, Any]) -> str | None:
    """OT 16B2: at the end of his initial phase the phasing player moves pool units between the
    replacement pools of commands he controls, joined by an overland supply line."""
    p = g.state.pieces.get(str(action.get("piece")))
    to = str(action.get("to"))
    if p is None or not in_pool(g, p, side):
        return f"{action.get('piece')!r} is not in a replacement pool of {side}"
    if not controls_command(g, side, to) or not controls_command(g, side, str(p.attrs["pool"])):
        return f"{side} must control both commands (OT 16B2)"
    if not commands_linked(g, side, str(p.attrs["pool"]), to):
        return (
            f"no overland supply line joins supplied friendly cities of {p.attrs['pool']} and"
            f" {to} (OT 16B2)"
        )
    return None


def _points(action: dict[str, Any]) -> tuple[str, Fraction, str | None] | str:
    """The kind, amount and contingent of a points transfer, or what is wrong with them."""
    kind = str(action.get("kind", MAN))
    if kind not in (MAN, EQU):
        return "'kind' is 'man' or 'equ'"
    try:
        amount = Fraction(str(action.get("amount")))
    except (ValueError, TypeError):
        return "'amount' must be a number"
    if not valid_amount(kind, amount) or amount <= 0:
        return "points move in steps of 1/2 (OT 16B1)"
    c = str(action.get("contingent", "")) if kind == MAN else None
    return kind, amount, c


@implements("OT 16B3")
def pool_transfer_problem(g: Game, side: str, action: dict[str, Any]) -> str | None:
    """OT 16B3: points move between the general pools of two commands the player controls, joined
    by an overland supply line between supplied cities."""
    pts = _points(action)
    if isinstance(pts, str):
        return pts
    kind, amount, c = pts
    a, b = str(action.get("from")), str(action.get("to"))
    if not (controls_command(g, side, a) and controls_command(g, side, b)):
        return f"{side} must control both commands"
    if spendable(g, side, a, kind, c) < amount:
        return f"the {a} general pool does not hold {amount} such points"
    if not commands_linked(g, side, a, b):
        return f"no overland supply line joins supplied friendly cities of {a} and {b} (OT 16B3)"
    return None


def _hex_of_transfer(g: Game, action: dict[str, Any]) -> int | str:
    h = action.get("hex")
    if not isinstance(h, str) or not g.board.has_label(h):
        return "name the hex ('hex')"
    return g.board.idx(h)


@implements("OT 16B3")
def points_to_pool_problem(g: Game, side: str, action: dict[str, Any]) -> str | None:
    """OT 16B3: on-map points go into the pool of their hex's command (the hex in regular general
    supply)."""
    pts = _points(action)
    if isinstance(pts, str):
        return pts
    kind, amount, c = pts
    i = _hex_of_transfer(g, action)
    if isinstance(i, str):
        return i
    h = action["hex"]
    if hex_points(g, side, i, kind, c) < amount:
        return f"{h} does not hold {amount} such points"
    if not regular_supply(g, side, i):
        return f"{h} is not in regular general supply (OT 16B3)"
    return None


@implements("OT 16B3")
def points_to_map_problem(g: Game, side: str, action: dict[str, Any]) -> str | None:
    """OT 16B3: pool points go onto any friendly-owned hex in regular general supply of the pool's
    command."""
    pts = _points(action)
    if isinstance(pts, str):
        return pts
    kind, amount, c = pts
    i = _hex_of_transfer(g, action)
    if isinstance(i, str):
        return i
    h = action["hex"]
    cmd = command_of(g, i)
    if g.state.control.get(i) != side or not regular_supply(g, side, i):
        return f"{h} must be friendly-owned and in regular general supply (OT 16B3)"
    if spendable(g, side, cmd, kind, c) < amount:
        return f"the {cmd} general pool does not hold {amount} such points"
    return None


@implements("OT 16B2")
def do_unit_transfer(g: Game, side: str, action: dict[str, Any]) -> None:
    p = g.state.pieces[str(action["piece"])]
    old = p.attrs["pool"]
    p.attrs["pool"] = str(action["to"])
    g.emit(
        "pool",
        f"{p.id} moves from the {old} replacement pool to the {action['to']} pool",
        rule="OT 16B2",
        piece=p.id,
    )


def _transfer_points(
    action: dict[str, Any],
) -> tuple[str, Fraction, str | None, dict[str, Fraction], Fraction]:
    kind = str(action.get("kind", MAN))
    amount = Fraction(str(action["amount"]))
    c = str(action.get("contingent", "")) if kind == MAN else None
    man = {c: amount} if kind == MAN and c is not None else {}
    equ = amount if kind == EQU else Fraction(0)
    return kind, amount, c, man, equ


@implements("OT 16B3")
def do_pool_transfer(g: Game, side: str, action: dict[str, Any]) -> None:
    _kind, _amount, _c, man, equ = _transfer_points(action)
    pay_points(
        g,
        side,
        str(action["from"]),
        man,
        equ,
        rule="OT 16B3",
        why=f"to the {action['to']} pool",
        allow_deficit=False,
    )
    add_points(
        g,
        side,
        str(action["to"]),
        man,
        equ,
        rule="OT 16B3",
        why=f"from the {action['from']} pool",
    )


@implements("OT 16B3")
def do_points_to_pool(g: Game, side: str, action: dict[str, Any]) -> None:
    kind, amount, c, man, equ = _transfer_points(action)
    i = g.board.idx(str(action["hex"]))
    take_hex_points(g, side, i, kind, amount, c)
    add_points(g, side, command_of(g, i), man, equ, rule="OT 16B3", why=f"from {action['hex']}")


@implements("OT 16B3")
def do_points_to_map(g: Game, side: str, action: dict[str, Any]) -> None:
    kind, amount, c, man, equ = _transfer_points(action)
    i = g.board.idx(str(action["hex"]))
    pay_points(
        g,
        side,
        command_of(g, i),
        man,
        equ,
        rule="OT 16B3",
        why=f"to {action['hex']}",
        allow_deficit=False,
    )
    place_points(g, side, i, kind, amount, c, rule="OT 16B3")


# ============================================================================ OT 16C
@implements("OT 16C1")
def disband_problem(g: Game, side: str, p: Piece | None) -> str | None:
    """OT 16C1: voluntary disbanding in one's own initial phases: on-map units with a printed
    movement rating of 5 or more (never "W" or "R", never units in a pool), in commands the player
    controls, up to 12 RE per great or major power and 4 RE per minor power each month."""
    if p is None or p.side != side or not units.is_unit(p) or units.hex_of(g, p) is None:
        return "only on-map units may be disbanded voluntarily (OT 16C1)"
    ma = units.printed_move(p)
    if not isinstance(ma, Fraction) or ma < 5:
        return f"{p.id} has a printed movement rating below 5 (OT 16C1)"
    h = units.hex_of(g, p)
    if not controls_command(g, side, command_of(g, h)):
        return f"{p.id} is in a command {side} does not control (OT 16C1)"
    limit = Fraction(12) if nations.is_great_or_major(g, p.nation) else Fraction(4)
    used = monthly_count(g, "disband", p.nation)
    if used + units.re_size(g, p) > limit:
        return f"{p.nation} may disband only {limit} RE a month ({used} done) (OT 16C1)"
    return None


@implements("OT 16A1i")
def disband(g: Game, p: Piece, to: str = "pool", rule: str = "OT 16A1i") -> None:
    """OT 16A1i: a unit removed from the map gives its replacement cost plus its scrapping value;
    from a replacement pool only its scrapping value in Man Pts. An isolated unit's points go into
    its hex; otherwise into the hex or the command's pool (``to``). The unit is out of play;
    pool points are not usable until the next initial phase (OT 16C13)."""

    side = p.side
    c = contingent_of(g, p)
    scrap = scrap_value(g, p)
    if in_pool(g, p):
        add_points(
            g,
            side,
            str(p.attrs["pool"]),
            {c: scrap},
            rule=rule,
            why=f"disbanding {p.id} in the pool",
            locked=True,
        )
        to_out_of_play(g, p, rule, "disbanded")
        return
    h = units.hex_of(g, p)
    if h is None:
        to_out_of_play(g, p, rule, "disbanded")
        return
    cost = replacement_strength(g, p, isolated=False)
    man, equ = cost[MAN] + scrap, cost[EQU]
    to_out_of_play(g, p, rule, "disbanded")
    if supply_status.is_isolated(g, side, h) or to == "hex":
        place_points(g, side, h, MAN, man, c, p.nation, rule=rule, why="disbanded")
        place_points(g, side, h, EQU, equ, rule=rule, why="disbanded")
    else:
        add_points(
            g,
            side,
            command_of(g, h),
            {c: man},
            equ,
            rule=rule,
            why=f"disbanding {p.id}",
            locked=True,
        )


@implements("OT 16C2", "OT 16A1v")
def scrap(g: Game, p: Piece, rule: str = "OT 16A1v") -> None:
    """OT 16A1v / 16C2: a unit in a replacement pool is scrapped for its scrapping value in Man Pts
    (not usable in this initial phase, OT 16C13); it is out of play."""
    add_points(
        g,
        p.side,
        str(p.attrs["pool"]),
        {contingent_of(g, p): scrap_value(g, p)},
        rule=rule,
        why=f"scrapping {p.id}",
        locked=True,
    )
    to_out_of_play(g, p, rule, "scrapped")


@implements("OT 16C3", "OT 16A1k")
def foreign_aid_problem(g: Game, side: str, p: Piece | None) -> str | None:
    """OT 16C3: Res Pts and Equ Pts given to a neutral country are delivered by moving them to one
    of its cities (using its ports and rail capacity where needed); on arrival they belong to it."""
    if p is None or p.side != side or units.utype(p).id not in ("res-pt", "equ-pt"):
        return "only Res Pts and Equ Pts may be given as foreign aid (OT 16C3)"
    h = units.hex_of(g, p)
    owner = g.state.control.get(h) if h is not None else None
    if h is None or not (owner or "").startswith("neutral:") or not geography.is_city(g, h):
        return f"{p.id} is not in a city of a neutral country (OT 16C3)"
    return None


def give_aid(g: Game, p: Piece) -> None:
    h = units.hex_of(g, p)
    assert h is not None
    nation = str(g.state.control[h])[len("neutral:") :]
    kind = units.utype(p).id
    amount = Fraction(str(p.attrs.get("points", 1)))
    aid = gw(g).setdefault("aid", {}).setdefault(nation, {})
    aid[kind] = Fraction(aid.get(kind, 0)) + amount
    g.state.move(p.id, Loc.box(f"aid:{nation}"))
    g.emit(
        "foreign-aid",
        f"{p.side} gives {amount} {'Res' if kind == 'res-pt' else 'Equ'} Pt(s) to {nation}; they"
        " now belong to it",
        rule="OT 16C3",
        nation=nation,
    )


@implements("OT 16C4")
def early_activation_problem(g: Game, side: str, p: Piece | None) -> str | None:
    """OT 16C4: a unit in a forming box may try to activate early in any friendly initial phase
    after
    the turn it was placed there, unless no enemy unit in regular general supply is in its command.
    """
    if p is None or p.side != side or "forming" not in p.attrs:
        return "only units in a forming box may be activated early (OT 16C4)"
    info = p.attrs["forming"]
    if int(info.get("turn", 0)) >= int(g.state.turn.get("index", 0)):
        return f"{p.id} entered its forming box this turn (OT 16C4)"
    cmd = str(info.get("command") or NO_COMMAND)
    enemy = nations.other_side(side)
    hexes = set(command_hexes(g, cmd))
    if not any(
        (h := units.hex_of(g, q)) is not None and h in hexes and regular_supply(g, enemy, h)
        for q in units.on_map_units(g, enemy)
    ):
        return f"no enemy unit in regular general supply is in {cmd} (OT 16C4)"
    return None


@implements("OT 16C10")
def zero_ma_limit(g: Game, nation: str) -> Fraction:
    """OT 16C10: the monthly limit (RE) on making zero-movement artillery mobile: minor powers,
    Japan
    and the Ottoman Empire 1/2/3/4; Britain, France, Italy, Russia and the USA 3/6/9/12;
    Austria-Hungary and Germany 6/12/18/24 (Oct-Dec 14, Jan-Mar 15, Apr-Jun 15, from Jul 15), the
    last halved if the East or the West theater is out of play (``[rules] theaters_out_of_play``).
    """

    d = calendar.current_date(g)
    if d is None or d < calendar.parse_turn("Oct I 14"):
        return Fraction(0)
    if d < calendar.parse_turn("Jan I 15"):
        k = 0
    elif d < calendar.parse_turn("Apr I 15"):
        k = 1
    elif d < calendar.parse_turn("Jul I 15"):
        k = 2
    else:
        k = 3
    info = nation_info(nations.rulebook_name(g, nation))
    name = info.id if info else nation
    if name in ("Austria-Hungary", "Germany"):
        lim = Fraction((6, 12, 18, 24)[k])
        out = set(getattr(g.scenario.rules, "theaters_out_of_play", []) or [])
        if out & {"East", "West"}:
            lim /= 2
        return lim
    if (
        name in ("Britain", "France", "Italy", "Russia", "USA")
        and nations.power_class(g, nation) != "minor"
    ):
        return Fraction((3, 6, 9, 12)[k])
    return Fraction((1, 2, 3, 4)[k])


@implements("OT 16C10")
def zero_ma_problem(g: Game, side: str, p: Piece | None) -> str | None:
    """OT 16C10: in his initial phases a player may make mobile zero-movement field or heavy
    artillery (never coast artillery), on the map or in an off-map fortress garrison, from Oct I 14,
    within the nation's monthly RE limit."""

    if (
        p is None
        or p.side != side
        or not special_units.is_zero_move(p)
        or units.utype(p).artillery not in ("field", "heavy")
    ):
        return "only zero-movement field or heavy artillery may be made mobile (OT 16C10)"
    loc = g.state.where(p.id)
    if loc.kind != "hex" and not (loc.kind == "box" and _fortress_garrison(g, str(loc.ref))):
        return f"{p.id} must be on the map or in a fortress garrison (OT 16C10)"
    used = monthly_count(g, "zero-ma", p.nation)
    lim = zero_ma_limit(g, p.nation)
    if used + units.re_size(g, p) > lim:
        return (
            f"{p.nation} may make only {lim} RE of zero-movement artillery mobile this month"
            f" ({used} used) (OT 16C10)"
        )
    return None


def _fortress_garrison(g: Game, box: str) -> bool:
    b = g.board.boxes.get(box)
    return b is not None and b.kind == "garrison" and bool(b.attrs.get("fortress"))


@implements("OT 16C10", "OT 15B4")
def make_mobile(g: Game, p: Piece) -> None:
    """OT 16C10: a non-Russian unit flips to its mobile side if it has one; otherwise (and always
    for
    Russia, after a successful Ground Success Table roll) it is withdrawn for twice its replacement
    strength in points. A failed Russian attempt still counts against the limit. A unit leaving a
    fortress garrison is released from it; an improved fortress in its hex becomes unimproved."""

    add_monthly(g, "zero-ma", p.nation, units.re_size(g, p))
    h = units.hex_of(g, p)
    russian = nations.rulebook_name(g, p.nation) in ("Russia", "Russian")
    if russian:
        res = special_units.gst(g, "russian-artillery", f"making {p.id} mobile", "OT 16C10")
        if not res.startswith("S"):
            g.emit("artillery", f"{p.id} is not made mobile ({res})", rule="OT 16C10", piece=p.id)
            return
    mobile = [
        f
        for f, d in p.faces.items()
        if f != p.face and str(d.get("move", 0)) not in ("0", "R", "W")
    ]
    if h is not None:
        reactions(g).fortress_unimproved(g, h, "zero-movement artillery made mobile")
    if mobile and not russian:
        p.face = mobile[0]
        if g.state.where(p.id).kind == "box":
            g.emit(
                "artillery",
                f"{p.id} is released from its fortress garrison",
                rule="OT 16C10",
                piece=p.id,
            )
        g.emit("artillery", f"{p.id} flips to its mobile side", rule="OT 16C10", piece=p.id)
        return
    cost = replacement_strength(g, p, isolated=False)
    cmd = command_of(g, h) if h is not None else _box_command(g, p)
    to_out_of_play(g, p, "OT 16C10", "withdrawn to be made mobile")
    add_points(
        g,
        p.side,
        cmd,
        {contingent_of(g, p): cost[MAN] * 2},
        cost[EQU] * 2,
        rule="OT 16C10",
        why=f"{p.id} made mobile",
    )


def _box_command(g: Game, p: Piece) -> str:
    loc = g.state.where(p.id)
    b = g.board.boxes.get(str(loc.ref)) if loc.kind == "box" else None
    return str(b.attrs.get("command", NO_COMMAND)) if b is not None else NO_COMMAND


MARCH_BRIGADE_MAN = {
    (1, "march-brigade"): Fraction(4),
    (1, "mountain-march-brigade"): Fraction(4),
    (2, "march-brigade"): Fraction(6),
}


@implements("OT 16C8")
def march_value(g: Game, p: Piece) -> Fraction | None:
    """OT 16C8: a 1-2-4 or 1-2-5 March or Mountain March brigade is worth 4 Man Pts, a 2-3-4 March
    brigade 6 Man Pts."""
    t = units.utype(p).id
    return MARCH_BRIGADE_MAN.get((int(units.printed_attack(p)), t))


@implements("OT 16C8")
def march_assemble_problem(
    g: Game, side: str, brigade: Piece | None, hex_: str | None
) -> str | None:
    """OT 16C8: Man Pts all in one hex are exchanged for a March brigade of the matching strength
    (the rule's opening is missing from the rulebook: the default allows it in the owner's initial
    phases, with Man Pts of the brigade's contingent, from counters not in play)."""
    if brigade is None or brigade.side != side or march_value(g, brigade) is None:
        return "name a March brigade counter of this side"
    if (
        g.state.where(brigade.id).kind == "hex"
        or in_pool(g, brigade)
        or g.state.where(brigade.id) == Loc.box(OUT_OF_PLAY)
    ):
        return f"{brigade.id} is already in play"
    if not isinstance(hex_, str) or not g.board.has_label(hex_):
        return "name the hex holding the Man Pts"
    need = march_value(g, brigade)
    assert need is not None
    have = hex_points(g, side, g.board.idx(hex_), MAN, contingent_of(g, brigade))
    if have < need:
        return (
            f"{hex_} holds {have} {contingent_of(g, brigade)} Man Pts; {brigade.id} needs {need}"
            " (OT 16C8)"
        )
    return None


def march_assemble(g: Game, brigade: Piece, hex_: str) -> None:
    i = g.board.idx(hex_)
    need = march_value(g, brigade)
    assert need is not None
    take_hex_points(g, brigade.side, i, MAN, need, contingent_of(g, brigade))
    g.state.move(brigade.id, Loc.hex(i))
    g.emit(
        "march", f"{need} Man Pts in {hex_} become {brigade.id}", rule="OT 16C8", piece=brigade.id
    )


def march_breakdown(g: Game, brigade: Piece) -> None:
    """OT 16C8: in any friendly initial phase a March brigade may break back into its Man Pts."""
    h = units.hex_of(g, brigade)
    need = march_value(g, brigade)
    assert h is not None and need is not None
    g.state.move(brigade.id, Loc.box(f"march:{brigade.side}"))
    place_points(
        g,
        brigade.side,
        h,
        MAN,
        need,
        contingent_of(g, brigade),
        brigade.nation,
        rule="OT 16C8",
        why=f"{brigade.id} broken down",
    )


@implements("OT 16C11")
def local_draft_due(g: Game, i: int, old: str | None, new: str) -> str | None:
    """OT 16C11: a player who liberates a major city hex in a home district of a nation he controls,
    after the enemy held it for 12 consecutive turns or more, may draft 3 Man Pts per hex of the
    district's contingent. Returns that contingent, or None. (Districts name their nation with the
    area attribute ``nation`` and ``home = true``; ``contingent`` overrides the nation name.)"""
    if (
        old is None
        or old == new
        or old not in g.state.sides
        or not geography.is_major_city_hex(g, i)
    ):
        return None
    dist = geography.district_of(g, i)
    if dist is None:
        return None
    attrs = g.board.areas[dist].attrs
    nation = attrs.get("nation")
    if not nation or not attrs.get("home") or nations.side_of_nation(g, str(nation)) != new:
        return None
    since = gw(g).get("owned_since", {}).get(str(i))
    now = int(g.state.turn.get("index", 0))
    if since is None or now - int(since) < 12:
        return None
    return str(attrs.get("contingent", nations.rulebook_name(g, str(nation))))


def local_draft(g: Game, side: str, i: int, contingent: str) -> None:
    """OT 16C11: 3 Man Pts, to the command's general pool if the hex is in regular general supply,
    otherwise placed in the hex."""
    if regular_supply(g, side, i):
        add_points(
            g,
            side,
            command_of(g, i),
            {contingent: Fraction(3)},
            rule="OT 16C11",
            why=f"local draft in {g.board.label(i)}",
        )
    else:
        place_points(g, side, i, MAN, Fraction(3), contingent, rule="OT 16C11", why="local draft")
