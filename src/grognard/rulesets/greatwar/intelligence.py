"""OT 14N2 (advanced, option ``limited-intelligence``): Corps HQs and limited intelligence.

A corps is a Corps HQs and the units in its box (OT 8C1). Each Corps HQs has a known and an
unknown side: the face ``unknown`` (or the status ``corps-unknown`` on a counter written with one
face). The enemy sees a known corps completely; of an unknown corps he sees only the HQs counter --
the units in its box are hidden from his view (``piece_visibility``), and log events that name them
are shown to him as a bare notice (``redact``).

* A corps entering play is known if an enemy unit is within 3 hexes of its entry hex, otherwise
  unknown (scenario setup counts as entering play).
* In every initial phase (either player's), an unknown corps within 3 hexes of an enemy unit
  becomes known, and a known corps with no enemy unit within 3 hexes becomes unknown.
* An unknown corps becomes known when a combat it takes part in begins (OT 9A,
  ``special_rules.declaration_checks``) and when a strategic reconnaissance mission reveals it
  (OT 20F1: ``reveal``).
* When the first enemy unit moves next to an unknown corps, its owner must say whether it holds
  units that exert ZOCs into adjacent hexes (a public event).
* An overrun of a hex holding an unknown corps is announced with the overrunning units; the
  strengths are compared secretly: at 10:1 or more the corps is revealed and the overrun goes on,
  otherwise the overrunning units end their movement and the corps stays unknown.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar.map import zoc
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.units import nations, special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game

UNKNOWN = "corps-unknown"
RANGE = 3


def active(g: Game) -> bool:
    return bool(g.opt("limited-intelligence"))


def is_unknown(p: Piece) -> bool:
    """OT 14N2: the unknown side of a Corps HQs is up."""
    return p.face == "unknown" or UNKNOWN in p.status


def _set(g: Game, hq: Piece, unknown: bool, why: str) -> None:
    if is_unknown(hq) == unknown:
        return
    if "known" in hq.faces and "unknown" in hq.faces:
        hq.face = "unknown" if unknown else "known"
    elif unknown:
        hq.status.add(UNKNOWN)
    else:
        hq.status.discard(UNKNOWN)
    g.emit(
        "corps-status",
        f"{hq.id} is now {'unknown' if unknown else 'known'} ({why})",
        rule="OT 14N2",
        piece=hq.id,
        unknown=unknown,
    )


def corps_hqs(g: Game, side: str | None = None) -> list[Piece]:
    return [p for p in units.on_map_units(g, side) if special_units.is_corps_hq(p)]


def enemy_within(g: Game, side: str, i: int, dist: int = RANGE) -> bool:
    """An enemy unit within ``dist`` hexes of hex ``i``."""
    enemy = nations.other_side(side)
    for p in units.on_map_units(g, enemy):
        h = units.hex_of(g, p)
        if h is not None and g.board.distance(i, h) <= dist:
            return True
    return False


@implements("OT 14N2")
def on_enter_play(g: Game, p: Piece) -> None:
    """OT 14N2: a corps enters play known if the closest enemy unit is within 3 hexes of its entry
    hex, unknown otherwise."""
    if not active(g) or not special_units.is_corps_hq(p):
        return
    h = units.hex_of(g, p)
    if h is not None:
        _set(g, p, not enemy_within(g, p.side, h), "entered play")


@implements("OT 14N2")
def setup(g: Game) -> None:
    """OT 14N2: at the start of the scenario every corps on the map enters play known or unknown."""
    for hq in corps_hqs(g):
        on_enter_play(g, hq)


@implements("OT 14N2")
def initial_phase(g: Game) -> None:
    """OT 14N2: in each initial phase, corps within 3 hexes of an enemy unit become known and corps
    with no enemy unit within 3 hexes become unknown."""
    if not active(g):
        return
    for hq in corps_hqs(g):
        h = units.hex_of(g, hq)
        if h is None:
            continue
        near = enemy_within(g, hq.side, h)
        if is_unknown(hq) and near:
            _set(g, hq, False, "an enemy unit is within 3 hexes")
        elif not is_unknown(hq) and not near:
            _set(g, hq, True, "no enemy unit within 3 hexes")


@implements("OT 14N2")
def reveal(g: Game, hq: Piece, why: str) -> None:
    """OT 14N2: an unknown corps becomes known (combat begins, OT 9A; strategic reconnaissance,
    OT 20F1; a successful 10:1 overrun attempt)."""
    if active(g) and special_units.is_corps_hq(hq) and is_unknown(hq):
        _set(g, hq, False, why)


def hidden_from(g: Game, p: Piece, side: str | None) -> bool:
    """Whether ``p`` is in the box of an unknown corps of the other side of ``side``."""
    if side is None or not active(g) or p.side == side:
        return False
    loc = p.loc
    seen = set()
    while loc.kind == "piece" and loc.ref not in seen:
        seen.add(loc.ref)
        carrier = g.state.pieces.get(str(loc.ref))
        if carrier is None:
            return False
        if special_units.is_corps_hq(carrier) and is_unknown(carrier):
            return True
        loc = carrier.loc
    return False


@implements("OT 14N2")
def piece_visibility(g: Game, p: Piece, side: str | None) -> str:
    """OT 14N2: the enemy may not examine an unknown corps: the units in its box are hidden."""
    return "hidden" if hidden_from(g, p, side) else "full"


def hidden_ids(g: Game, side: str) -> set[str]:
    if not active(g):
        return set()
    return {p.id for p in g.state.pieces.values() if hidden_from(g, p, side)}


@implements("OT 14N2")
def conceal_events(g: Game, side: str | None, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OT 14N2: each logged event that names a unit hidden from ``side`` (an unknown enemy
    corps's contents) becomes a bare notice keeping only its number and turn, so the side
    learns neither the unit nor what happened to it; the other events are shown as they are."""
    if side is None or not events or not active(g):
        return events
    hidden = hidden_ids(g, side)
    if not hidden:
        return events
    out = []
    for ev in events:
        text = json.dumps(ev, ensure_ascii=False)
        if any(h in text for h in hidden):
            out.append(
                {
                    "n": ev.get("n"),
                    "type": "concealed",
                    "text": "activity of an unknown corps (OT 14N2)",
                    "turn": ev.get("turn"),
                }
            )
        else:
            out.append(ev)
    return out


@implements("OT 14N2")
def redact(g: Game, side: str | None, view: dict[str, Any]) -> dict[str, Any]:
    """OT 14N2: any mention of a unit hidden from ``side`` (as a key or a value) is dropped
    from its view; the view's log comes concealed already (:func:`conceal_events`, through
    ``Game.visible_log``)."""
    if side is None or not active(g):
        return view
    hidden = hidden_ids(g, side)
    if not hidden:
        return view
    out = dict(_scrub({k: v for k, v in view.items() if k != "log"}, hidden))
    if "log" in view:
        out["log"] = view["log"]
    return out


def _scrub(x: Any, hidden: set[str]) -> Any:
    if isinstance(x, dict):
        return {k: _scrub(v, hidden) for k, v in x.items() if k not in hidden}
    if isinstance(x, list):
        return [_scrub(v, hidden) for v in x if not (isinstance(v, str) and v in hidden)]
    if isinstance(x, str) and x in hidden:
        return "?"
    return x


# ---------------------------------------------------------------------------- movement and overruns
@implements("OT 14N2")
def zoc_units(g: Game, hq: Piece) -> bool:
    """Whether an unknown corps holds units that exert ZOCs into adjacent hexes."""

    h = units.hex_of(g, hq)
    if h is None:
        return False
    return any(len(zoc.zoc_hexes(g, q)) > 1 for q in g.state.contents(hq.id) if units.is_unit(q))


@implements("OT 14N2")
def after_move(g: Game, movers: list[Piece], dest: int) -> None:
    """OT 14N2: the instant the first enemy unit moves next to an unknown corps, its owner states
    truthfully whether it holds units exerting ZOCs into adjacent hexes (once per approach: told
    again after no enemy unit has been next to it)."""
    if not active(g) or not movers:
        return
    side = movers[0].side
    told = gw(g).setdefault("zoc_told", {})
    for hq in corps_hqs(g, nations.other_side(side)):
        h = units.hex_of(g, hq)
        if h is None:
            continue
        near = any(units.units_in_hex(g, j, side) for j in g.board.neighbors(h))
        if not near:
            told.pop(hq.id, None)
            continue
        if is_unknown(hq) and not told.get(hq.id) and g.board.distance(h, dest) == 1:
            told[hq.id] = True
            says = "holds" if zoc_units(g, hq) else "holds no"
            g.emit(
                "corps-zoc",
                f"{hq.side}: the unknown corps {hq.id} in {g.board.label(h)} {says} units exerting"
                " ZOCs into adjacent hexes",
                rule="OT 14N2",
                piece=hq.id,
            )


def unknown_corps_in(g: Game, side: str, i: int) -> list[Piece]:
    """Unknown corps of ``side``'s enemy in hex ``i``."""
    if not active(g):
        return []
    enemy = nations.other_side(side)
    return [
        p
        for p in g.state.at_hex(i)
        if p.side == enemy and special_units.is_corps_hq(p) and is_unknown(p)
    ]


@implements("OT 14N2")
def secret_overrun_check(g: Game, side: str, target: int, odds: int) -> bool:
    """OT 14N2: an overrun announced against a hex holding unknown enemy corps: the owner compares
    the strengths in secret (the engine does it). At 10:1 or more every unknown corps there is
    revealed and the overrun goes on (True); otherwise the corps stay unknown and the overrunning
    units must end their movement (False), learning nothing else."""
    ok = odds >= 10
    for hq in unknown_corps_in(g, side, target):
        if ok:
            reveal(g, hq, "a 10:1 overrun")
    if not ok:
        g.emit(
            "overrun",
            f"the overrun of {g.board.label(target)} does not reach 10:1 against the unknown corps"
            " there: the overrunning units end their movement",
            rule="OT 14N2",
            hex=g.board.label(target),
        )
    return ok
