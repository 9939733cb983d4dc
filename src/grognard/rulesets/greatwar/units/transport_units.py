"""OT 14O: transport units -- modes (14O1), carrying cargo (14O2, motorized 14O2a, pack 14O2b,
mountain pack 14O2b-i, camel pack 14O2b-ii) and extending supply lines (14O3).

Cargo rides inside its transport (``Loc.inside``): actions ``load`` {transport, cargo} and
``unload`` {cargo} in the movement, reaction movement and exploitation phases. A transport and its
cargo move as one unit with the transport's type and rating (``movement.moving_pieces`` leaves the
cargo to ride along); units are unloaded when the phase ends (no units are carried in combat
phases), logistics items may stay aboard.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar import calendar
from grognard.rulesets.greatwar.map import terrain
from grognard.rulesets.greatwar.map.weather import is_desert
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.movement import movement
from grognard.rulesets.greatwar.step import MovementExtension
from grognard.rulesets.greatwar.units import special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game

UNIT_CAP = Fraction(3)
LOGISTICS_CAP = Fraction(6)
MOUNTAINOUS = ("rough", "wooded-rough", "mountain")


def is_motorized(p: Piece) -> bool:
    return units.utype(p).id == "motorized-transport"


def is_pack(p: Piece) -> bool:
    return special_units.is_transport(p) and not is_motorized(p)


def cargo(g: Game, t: Piece) -> list[Piece]:
    return list(g.state.contents(t.id))


# ----------------------------------------------------------------------------- modes (OT 14O1)
@implements("OT 14O1")
def mode_problem(g: Game, side: str, p: Piece | None) -> str | None:
    """OT 14O1: a transport changes mode (flips) only in its owner's initial phases; in supply-line
    mode it may carry nothing."""
    if (
        p is None
        or p.side != side
        or not special_units.is_transport(p)
        or units.hex_of(g, p) is None
    ):
        return "name a transport unit of yours on the map"
    if gw(g).get("phasing") != side:
        return "transport units change mode only in their owner's initial phase (OT 14O1)"
    if not special_units.supply_line_mode(p) and cargo(g, p):
        return f"{p.id} must unload its cargo before extending a supply line (OT 14O1)"
    return None


def flip_mode(g: Game, p: Piece) -> None:
    """OT 14O1: flip a transport between transport mode and supply-line mode."""
    to_supply = not special_units.supply_line_mode(p)
    if special_units.SUPPLY_LINE in p.faces or "transport" in p.faces:
        if to_supply:
            p.attrs["transport_face"] = p.face
            p.face = special_units.SUPPLY_LINE
        else:
            p.face = str(
                p.attrs.pop(
                    "transport_face", next(f for f in p.faces if f != special_units.SUPPLY_LINE)
                )
            )
    elif to_supply:
        p.status.add(special_units.SUPPLY_LINE)
    else:
        p.status.discard(special_units.SUPPLY_LINE)
    g.emit(
        "transport",
        f"{p.id} is now in {'supply-line' if to_supply else 'transport'} mode",
        rule="OT 14O1",
        piece=p.id,
    )


@implements("OT 14O1")
def enter_transport_mode(g: Game, p: Piece) -> None:
    """OT 14O1: a transport unit always enters play in transport mode."""
    if special_units.is_transport(p) and special_units.supply_line_mode(p):
        flip_mode(g, p)


def ip_actions(g: Game, side: str) -> list[Action]:
    return []


# ----------------------------------------------------------------------------- cargo (OT 14O2)
def cargo_re(g: Game, t: Piece, c: Piece) -> Fraction:
    """OT 14O2: RE of a piece as cargo: c/m units and artillery with HE count double (OT 3A3); a
    motorized transport doubles every artillery unit (OT 14O2a)."""
    if not units.is_unit(c):
        return units.re_size(g, c)
    if is_motorized(t) and units.is_artillery(c):
        return units.re_size(g, c) * 2
    return units.transport_re(g, c, "cartage")


@implements("OT 14O2a", "OT 14O2b")
def may_carry(g: Game, t: Piece, c: Piece) -> str | None:
    """What a transport may carry: a motorized transport (OT 14O2a, c/m) non-motorized units other
    than Army HQs, artillery without HE and logistics items; a pack transport (OT 14O2b, cavalry)
    non-motorized units without HE and logistics items."""
    if not units.is_unit(c):
        return None if units.utype(c).logistics else f"{c.id} cannot be carried"
    if special_units.is_transport(c):
        return f"{c.id} is a transport unit"
    if is_motorized(t):
        if special_units.is_army_hq(c):
            return "a motorized transport may not carry an Army HQs (OT 14O2a)"
        if units.is_artillery(c):
            return None if not units.has_he(g, c) else f"{c.id} is artillery with HE (OT 14O2a)"
        return (
            None if units.is_non_motorized(c) else f"{c.id} is not a non-motorized unit (OT 14O2a)"
        )
    if not units.is_non_motorized(c) or units.has_he(g, c):
        return "a pack transport carries only non-motorized units without HE (OT 14O2b)"
    return None


@implements("OT 14O2")
def capacity_problem(g: Game, t: Piece, load: Sequence[Piece]) -> str | None:
    """OT 14O2: a transport carries up to 3 RE of units, or 3 RE of units and logistics items
    together, or up to 6 RE of logistics items only; nothing while it is disrupted."""
    if units.disruption(t) > 0:
        return f"{t.id} is disrupted and may carry nothing (OT 14O2)"
    total = sum((cargo_re(g, t, c) for c in load), Fraction(0))
    has_units = any(units.is_unit(c) for c in load)
    cap = UNIT_CAP if has_units else LOGISTICS_CAP
    if total > cap:
        return (
            f"{t.id} may carry {cap}"
            f" RE{' with units aboard' if has_units else ' of logistics items'}; this load is"
            f" {total} RE (OT 14O2)"
        )
    return None


@implements("OT 14O2")
def combined(g: Game, t: Piece) -> dict[str, Any]:
    """OT 14O2: a transport and its cargo are one unit with the transport's type and movement
    rating, the sum of their combat strengths and of their RE (a 0-6 mountain pack transport
    regiment with a 2-3-5* rifle brigade and four GSPs is a 2-3-6* unit of 4 RE; the support
    indicator of the cargo units is kept, interpretation default)."""
    load = cargo(g, t)
    att = units.printed_attack(t) + sum(
        (units.printed_attack(c) for c in load if units.is_unit(c)), Fraction(0)
    )
    dfn = units.printed_defense(t) + sum(
        (units.printed_defense(c) for c in load if units.is_unit(c)), Fraction(0)
    )
    re = units.re_size(g, t) + sum((units.re_size(g, c) for c in load), Fraction(0))
    support = next(
        (
            units.support_indicator(c)
            for c in load
            if units.is_unit(c) and units.support_indicator(c) != "none"
        ),
        units.support_indicator(t),
    )
    return {
        "type": units.utype(t).id,
        "move": units.printed_move(t),
        "attack": att,
        "defense": dfn,
        "re": re,
        "support": support,
    }


def _frame_rec(f: Frame, pid: str) -> dict[str, Any]:
    return f.params.get("units", {}).get(pid, {})


@implements("OT 14O2")
def load_problem(g: Game, f: Frame, action: Action) -> str | None:
    """OT 14O2: loading in a movement, reaction movement or exploitation phase (logistics items in
    any phase): a transport in transport mode, not disrupted, in the cargo's hex, within its
    capacity; a unit that moved by itself this phase may not be carried, nor moved by itself after
    being carried."""

    side = action["side"]
    t = g.state.pieces.get(str(action.get("transport")))
    c = g.state.pieces.get(str(action.get("cargo")))
    if t is None or t.side != side or not special_units.is_transport(t):
        return f"{action.get('transport')!r} is not a transport unit of {side}"
    if c is None or c.side != side or c.id == t.id:
        return f"{action.get('cargo')!r} is not a piece of {side}"
    if special_units.supply_line_mode(t):
        return f"{t.id} is in supply-line mode and may not carry cargo (OT 14O1)"
    if units.hex_of(g, t) is None or c.loc != t.loc:
        return f"{c.id} is not loose in the hex of {t.id}"
    why = may_carry(g, t, c)
    if why:
        return why
    if units.is_unit(c):
        if f.params.get("kind") not in (
            movement.MOVEMENT,
            movement.REACTION,
            movement.EXPLOITATION,
        ):
            return (
                "units are carried only in the movement, reaction movement and exploitation phases"
                " (OT 14O2)"
            )
        rc = _frame_rec(f, c.id)
        if rc.get("moved") or Fraction(rc.get("spent", 0)) > 0:
            return f"{c.id} moved by itself this phase and may not also be carried (OT 14O2)"
        if f.params.get("kind") == movement.REACTION and (
            c.id not in f.params.get("eligible", []) or t.id not in f.params.get("eligible", [])
        ):
            return (
                "in reaction movement both the transport and its cargo must be free to move (OT 6D)"
            )
    return capacity_problem(g, t, [*cargo(g, t), c])


def unload_problem(g: Game, f: Frame, action: Action) -> str | None:
    c = g.state.pieces.get(str(action.get("cargo")))
    if c is None or c.side != action["side"] or c.loc.kind != "piece":
        return f"{action.get('cargo')!r} is not being carried"
    t = g.state.pieces.get(str(c.loc.ref))
    if t is None or not special_units.is_transport(t):
        return f"{c.id} is not aboard a transport unit"
    return None


def do_load(g: Game, f: Frame, action: Action) -> None:
    c = g.state.pieces[str(action["cargo"])]
    t = g.state.pieces[str(action["transport"])]
    g.state.move(c.id, Loc.inside(t.id))
    if units.is_unit(c):
        movement.record(f, c, g)["carried"] = True
    g.emit("transport", f"{t.id} picks up {c.id}", rule="OT 14O2", piece=c.id)


def do_unload(g: Game, f: Frame, action: Action) -> None:
    c = g.state.pieces[str(action["cargo"])]
    h = units.hex_of(g, c)
    assert h is not None
    g.state.move(c.id, Loc.hex(h))
    if units.is_unit(c):
        rec = movement.record(f, c, g)
        rec["done"] = True
    g.emit("transport", f"{c.id} is dropped off in {g.board.label(h)}", rule="OT 14O2", piece=c.id)


def unload_units_at_end(g: Game, f: Frame) -> None:
    """OT 14O2: no unit is carried outside the movement-type phases: carried units are set down in
    their transport's hex when the phase ends."""
    for t in units.on_map_units(g):
        if not special_units.is_transport(t):
            continue
        h = units.hex_of(g, t)
        for c in cargo(g, t):
            if units.is_unit(c) and h is not None:
                g.state.move(c.id, Loc.hex(h))
                g.emit("transport", f"{c.id} is set down by {t.id}", rule="OT 14O2", piece=c.id)


class TransportExtension(MovementExtension):
    """The cargo actions of the movement-type steps (``load``, ``unload``)."""

    def extension_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = []
        for t in units.on_map_units(g, side):
            if not special_units.is_transport(t) or t.loc.kind != "hex":
                continue
            for c in cargo(g, t):
                out.append({"type": "unload", "side": side, "cargo": c.id})
            if special_units.supply_line_mode(t) or units.disruption(t) > 0:
                continue
            for c in g.state.at_hex(int(t.loc.ref)):
                if c.id == t.id or c.side != side:
                    continue
                a: Action = {"type": "load", "side": side, "transport": t.id, "cargo": c.id}
                if load_problem(g, f, a) is None:
                    out.append(a)
        return out

    @handles.check("load")
    def check_load(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14O2: a unit boards a transport unit in its hex."""
        why = load_problem(g, f, action)
        if why:
            raise IllegalAction("OT 14O2", why)

    @handles.check("unload")
    def check_unload(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14O2: a unit leaves its transport unit."""
        why = unload_problem(g, f, action)
        if why:
            raise IllegalAction("OT 14O2", why)

    @handles.apply("load")
    def apply_load(self, g: Game, f: Frame, action: Action) -> None:
        do_load(g, f, action)

    @handles.apply("unload")
    def apply_unload(self, g: Game, f: Frame, action: Action) -> None:
        do_unload(g, f, action)

    def move_problem(self, g: Game, f: Frame, p: Piece) -> str | None:
        if (
            p.loc.kind != "piece"
            and not f.params.get("units", {}).get(p.id, {}).get("carried")
            and "transport" not in units.utype(p).tags
        ):
            return None
        if special_units.is_transport(p) and special_units.supply_line_mode(p):
            return f"{p.id} is in supply-line mode and may not move (OT 14O1)"
        if _frame_rec(f, p.id).get("carried") and p.loc.kind != "piece":
            return f"{p.id} was carried this phase and may not also move by itself (OT 14O2)"
        if p.loc.kind == "piece":
            carrier = g.state.pieces.get(str(p.loc.ref))
            if carrier is not None and special_units.is_transport(carrier):
                return f"{p.id} is aboard {carrier.id} and moves with it (OT 14O2)"
        return None

    def on_end_phase(self, g: Game, f: Frame) -> None:
        unload_units_at_end(g, f)

    def movement_share(self, g: Game, p: Piece) -> Fraction | None:
        return reserve_share(g, p)


# -------------------------------------------------------------------------- movement shares (14O2a)
@implements("OT 14O2a")
def reserve_share(g: Game, p: Piece) -> Fraction | None:
    """OT 14O2a: before Feb I 17 a motorized transport moves at half its rating in reserve
    commitment
    and exploitation movement (and may not use accelerated movement:
    ``special_units.accel_forbidden``).
    """
    if is_motorized(p) and calendar.before(g, "Feb I 17"):
        return Fraction(1, 2)
    return None


# --------------------------------------------------------------------------- supply lines (OT 14O3)
@implements("OT 14O2b-i", "OT 14O2b-ii", "OT 14O3")
def extends_in(g: Game, t: Piece, i: int) -> bool:
    """Whether a transport in supply-line mode in hex ``i`` can extend a supply line there: only
    undisrupted ones; among pack transports only mountain pack transports in rough, wooded rough and
    mountain hexes (OT 14O2b-i) and only camel pack transports in the Desert (OT 14O2b-ii)."""

    if (
        not special_units.is_transport(t)
        or not special_units.supply_line_mode(t)
        or units.disruption(t) > 0
    ):
        return False
    if is_pack(t):
        tags = special_units.base_tags(t)
        if terrain.terrain(g, i) in MOUNTAINOUS and "mountain" not in tags:
            return False
        if is_desert(g, i) and "camel" not in tags:
            return False
    return True


@implements("OT 14O3")
def extension(
    g: Game, side: str, hexes: Iterable[int], used: set[str] | None = None
) -> tuple[int, set[str]]:
    """OT 14O3: the extra length of a road or overland element of a supply line traced into or
    through ``hexes``: +1 hex with one undisrupted supply-line transport there, +2 with at least
    three, never more than +2; two count as one (interpretation default). A transport used for one
    element (``used``) may not extend the other. Returns (extra hexes, transports used)."""
    used = set(used or ())
    found: list[str] = []
    for i in hexes:
        for t in units.units_in_hex(g, i, side):
            if t.id not in used and t.id not in found and extends_in(g, t, i):
                found.append(t.id)
    n = len(found)
    bonus = 2 if n >= 3 else (1 if n >= 1 else 0)
    take = found[: (3 if n >= 3 else 1)] if bonus else []
    return bonus, set(take)
