"""LGG 4: fog of war - what each side may see, HQ and decoy boxes, observation.

4-A: a side never sees the contents of enemy stacks or enemy player aids, except through a
successful aerial reconnaissance or an event. In the engine:

* every enemy piece on the map is shown only as an anonymous stack marker at its hex (one
  marker per hex and side), whatever it is - a corps, an HQ, a GHQ, a decoy (empty or not),
  an HQ's lifted stack;
* fortress counters are public (they are printed values everyone can read); the garrison
  inside is part of the anonymous stack;
* enemy pieces off the map (player-aid boxes, reserves, arrivals, eliminated units) are not
  shown at all;
* an observation (:func:`reveal_stack`) shows a side either the number of front-line corps of
  an enemy stack (``count``, the aerial reconnaissance of 43-G) or the stack's pieces on the
  map (``full``, an event), until the end of the turn;
* events about a side's pieces are logged for that side only; the other side reads a
  neutral sentence ("a stack moves from 0304 to 0405").

4-B: each army has an HQ and a lettered decoy. A stack may be lifted off the map onto the
HQ's or the decoy's box (the pieces go *inside* the HQ or decoy counter and move with it);
decoys may be placed (on a hex holding units of their army), left empty, or taken back at any
time during the owner's own phases.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from grognard.core import serial
from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.units.counters import command_army

if TYPE_CHECKING:
    from grognard.core.game import Game


# ====================================================================== visibility (4-A)
@implements("LGG 4-A")
def piece_visibility(g: Game, piece: Piece, side: str | None) -> str:
    """LGG 4-A: ``full``, ``stack`` (anonymous marker at its hex) or ``hidden`` for ``side``."""
    if not g.opt("fog-of-war") or piece.side == side:
        return "full"
    outer = g.state.where(piece.id)
    if outer.kind != "hex":
        return "hidden"
    if piece.type == "fortress" and piece.loc.kind == "hex":
        return "full"
    if side is not None and piece.loc.kind == "hex" and not M.in_reserve(piece):
        lvl = M.st(g).get("revealed", {}).get(side, {}).get(g.board.label(int(outer.ref)))
        if lvl == "full" and piece.type != "decoy":
            return "full"
    return "stack"


@implements("LGG 4-A")
def reveal_stack(g: Game, to_side: str, hex_index: int, level: str, rule: str, reason: str) -> None:
    """LGG 4-A: let ``to_side`` observe the enemy stack at a hex until the end of the turn.

    ``level`` is ``count`` (the number of front-line corps, as an aerial reconnaissance gives,
    43-G) or ``full`` (the pieces themselves, as an event may give).
    """
    if level not in ("count", "full"):
        raise ValueError(f"unknown observation level {level!r}")
    lab = g.board.label(hex_index)
    rev = M.st(g).setdefault("revealed", {}).setdefault(to_side, {})
    if rev.get(lab) == "full":
        return
    rev[lab] = level
    M.touch(g)
    g.emit(
        "observe",
        f"{to_side} observes the enemy stack at {lab} ({level}; {reason})",
        rule=rule,
        visible_to=[to_side],
        others=f"{to_side} observes an enemy stack at {lab}",
        reveal=True,
    )


def clear_observations(g: Game) -> None:
    """Observations last until the end of the turn."""
    M.st(g)["revealed"] = {}
    M.touch(g)


def front_line_corps(g: Game, i: int, side: str) -> int:
    """Corps of ``side`` standing at hex ``i`` outside reserves and fortresses."""
    return sum(
        1 for p in M.units_at_hex(g, i, side) if M.is_corps(p) and not M.garrison_in_fortress(g, p)
    )


@implements("LGG 4-A")
def decorate_view(g: Game, side: str | None, view: dict[str, Any]) -> None:
    """LGG 4-A: add what an observation shows to the anonymous stack markers of a view."""
    if side is None:
        return
    rev = M.st(g).get("revealed", {}).get(side, {})
    for mk in view.get("stacks", []):
        if mk.get("side") == side or mk.get("loc", [None])[0] != "hex":
            continue
        lab = mk["loc"][1]
        if rev.get(lab) == "count":
            mk["corps"] = front_line_corps(g, g.board.idx(lab), mk["side"])
            mk["observed"] = "count"


@implements("LGG 4-A")
def hidden_tokens(g: Game, side: str) -> set[str]:
    """LGG 4-A: strings that must never appear in ``view(side)``: ids (and distinctive names)
    of every piece the side may not see in full."""
    hidden = [p for p in g.state.pieces.values() if piece_visibility(g, p, side) != "full"]
    shown_names = {
        p.name for p in g.state.pieces.values() if piece_visibility(g, p, side) == "full"
    }
    out = {p.id for p in hidden}
    for p in hidden:
        if p.name and len(p.name) >= 4 and p.name not in shown_names:
            out.add(p.name)
    return out


def plain_copy(obj: Any) -> Any:
    """A copy of JSON-like data equal to ``serial.to_jsonable(obj)``: dicts, lists and plain
    values (str, int, float, bool, None) are copied directly; anything else goes through
    :func:`grognard.core.serial.to_jsonable`."""
    t = type(obj)
    if t is dict:
        out = {}
        for k, v in obj.items():
            tv = type(v)
            out[k if type(k) is str else str(k)] = (
                v
                if (tv is str or tv is int or tv is float or tv is bool or v is None)
                else plain_copy(v)
            )
        return out
    if t is list or t is tuple:
        return [v if (type(v) in _PLAIN or v is None) else plain_copy(v) for v in obj]
    if obj is None or t in _PLAIN:
        return obj
    return serial.to_jsonable(obj)


_PLAIN = (str, int, float, bool)


def emit_private(
    g: Game,
    side: str,
    type: str,
    text: str,
    others: str | None,
    rule: str | None = None,
    **data: Any,
) -> None:
    """Log an event about ``side``'s pieces: the details for ``side``, ``others`` for everybody
    else."""
    if not g.opt("fog-of-war"):
        g.emit(type, text, rule=rule, **data)
        return
    g.emit(type, text, rule=rule, visible_to=[side], others=others, **data)


@implements("LGG 4-A")
def public_view(g: Game, side: str | None) -> dict[str, Any]:
    """LGG 4-A: the rule system's facts a side may read (its own secrets only)."""
    s = M.st(g)
    t = M.current_turn(g)
    own = M.powers_of(g, side) if side else []
    mine_armies = {
        a: _army_public(g, a) for a in M.army_defs(g) if side and M.army_side(g, a) == side
    }
    out: dict[str, Any] = {
        "turn": {"id": t.id, "label": t.label, "period": t.period, "pre_turn": t.pre_turn},
        "fronts": list(M.rules(g).fronts),
        "initiative": dict(s.get("initiative", {})),
        "first_mover": dict(s.get("first_mover", {})),
        "weather": dict(s.get("weather", {})),
        "sea_control": dict(s.get("sea_control", {})),
        "activated": dict(s.get("activated", {})),
        "reacted": {k: list(v) for k, v in s.get("reacted", {}).items()},
        "main_armies": dict(s.get("main_army", {}).get(side, {})) if side else {},
        "doctrine": {n: v for n, v in s.get("doctrine", {}).items() if n in own},
        "pr": {n: v for n, v in g.state.tracks.get("pr", {}).items() if n in own},
        "armies": mine_armies,
        "observed": dict(s.get("revealed", {}).get(side, {})) if side else {},
    }
    for extra in hooks.extensions(g).view_extras():
        out.update(extra(g, side))
    return {
        "lgg": serial.to_jsonable(out),
        "markers": serial.to_jsonable(
            {k: v for k, v in g.state.markers.items() if k in PUBLIC_MARKERS}
        ),
        "tracks": serial.to_jsonable({"national_will": g.state.tracks.get("national_will", {})}),
    }


PUBLIC_MARKERS = (
    "battle",
    "rail_gauge",
    "conquered",
    "siege",
    "fortress_fallen",
    "no_mans_land",
    "disputed",
)


def _army_public(g: Game, army: str) -> dict[str, Any]:
    a = M.army_def(g, army)
    hq = M.hq_piece(g, army)
    h = M.hex_of(g, hq) if hq else None
    return {
        "name": a.name,
        "nation": a.nation,
        "hq": a.hq,
        "hex": g.board.label(h) if h is not None else None,
        "letter": a.letter,
    }


def view_is_clean(g: Game, side: str) -> list[str]:
    """Hidden tokens found in ``view(side)`` (used by tests; the core selfplay does the same)."""
    text = json.dumps(g.view(side), ensure_ascii=False)
    return sorted(t for t in hidden_tokens(g, side) if json.dumps(t, ensure_ascii=False) in text)


# ====================================================================== player-aid boxes (4-B)
def box_holders_at(g: Game, side: str, i: int) -> list[Piece]:
    """HQs and decoys of ``side`` standing on hex ``i``."""
    return [p for p in g.state.at_hex(i) if p.side == side and p.type in ("hq", "decoy")]


def box_contents(g: Game, holder: Piece) -> list[Piece]:
    """The stack lifted onto an HQ's or decoy's box (reserves and generals are not part of it)."""
    return [p for p in g.state.contents(holder.id) if M.is_unit(p) and not M.in_reserve(p)]


@implements("LGG 4-B")
def box_actions(g: Game, side: str, armies: set[str] | None = None) -> list[Action]:
    """LGG 4-B: the lift, drop and decoy actions open to ``side`` (limited to ``armies`` if given).

    Lift: units on a hex go onto the box of an HQ or decoy of their army standing there. Drop:
    a box's units come back onto the map. Decoys are placed on a hex holding units of their
    army, or taken back (their stack is put back on the map first).
    """

    out: list[Action] = []
    for holder in sorted(
        (p for p in g.state.of_side(side) if p.type in ("hq", "decoy")), key=lambda p: p.id
    ):
        army = str(holder.attrs.get("army"))
        if armies is not None and army not in armies:
            continue
        h = M.hex_of(g, holder)
        if holder.type == "decoy" and holder.loc.kind == "box":
            for i in sorted(_decoy_spots(g, army)):
                out.append(
                    {
                        "type": "place-decoy",
                        "side": side,
                        "decoy": holder.id,
                        "at": g.board.label(i),
                    }
                )
            continue
        if h is None or holder.loc.kind != "hex":
            continue
        liftable = [
            p
            for p in g.state.at_hex(h)
            if p.side == side
            and M.is_unit(p)
            and p.type not in ("hq", "ghq")
            and command_army(g, p) == army
            and not M.in_reserve(p)
        ]
        if liftable:
            out.append(
                {
                    "type": "lift",
                    "side": side,
                    "into": holder.id,
                    "units": sorted(p.id for p in liftable),
                }
            )
        inside = box_contents(g, holder)
        if inside:
            out.append(
                {
                    "type": "drop",
                    "side": side,
                    "from": holder.id,
                    "units": sorted(p.id for p in inside),
                }
            )
        if holder.type == "decoy":
            out.append({"type": "remove-decoy", "side": side, "decoy": holder.id})
    return out


def _decoy_spots(g: Game, army: str) -> set[int]:

    out = set()
    for p in g.state.pieces.values():
        if M.is_unit(p) and command_army(g, p) == army and p.loc.kind == "hex":
            out.add(int(p.loc.ref))
    return out


def _holder(g: Game, action: Action, key: str, armies: set[str] | None) -> Piece:
    """LGG 4-B: the HQ or decoy a box action names (``key``), one of the side's, of an army
    acting now (``armies``; None: any)."""
    holder = g.state.pieces.get(str(action.get(key, "")))
    if holder is None or holder.side != action["side"] or holder.type not in ("hq", "decoy"):
        raise IllegalAction("LGG 4-B", f"{action.get(key)!r} is not one of your HQs or decoys")
    return holder


def _army_of(holder: Piece, armies: set[str] | None) -> str:
    army = str(holder.attrs.get("army"))
    if armies is not None and army not in armies:
        raise IllegalAction("LGG 4-B", f"army {army} is not acting now")
    return army


def _decoy(g: Game, action: Action, armies: set[str] | None) -> tuple[Piece, str]:
    holder = _holder(g, action, "decoy", armies)
    if holder.type != "decoy":
        raise IllegalAction("LGG 4-B", f"{holder.id} is not a decoy")
    return holder, _army_of(holder, armies)


def _on_map(holder: Piece) -> int:
    if holder.loc.kind != "hex":
        raise IllegalAction("LGG 4-B", f"{holder.id} is not on the map")
    return int(holder.loc.ref)


def _own_units(g: Game, action: Action) -> list[Piece]:
    units = action.get("units")
    if not isinstance(units, list) or not units:
        raise IllegalAction("LGG 4-B", "name the units to lift or drop")
    out = []
    for uid in units:
        p = g.state.pieces.get(str(uid))
        if p is None or p.side != action["side"]:
            raise IllegalAction("LGG 4-B", f"you have no unit {uid!r}")
        out.append(p)
    return out


@implements("LGG 4-B")
class BoxActions(LggStep):
    """LGG 4-B: the handlers of the box actions (``lift``, ``drop``, ``place-decoy``,
    ``remove-decoy``) for the steps that offer them (:func:`box_actions` lists them); a step
    names the armies acting now (:meth:`box_armies`) and may refuse the actions first
    (:meth:`box_check`)."""

    def box_armies(self, g: Game, f: Frame) -> set[str] | None:
        """The armies whose HQs and decoys may act now (None: any of the side's)."""
        return None

    def box_check(self, g: Game, f: Frame, action: Action) -> None:
        """Raise IllegalAction when the step takes no box action now (default: it does)."""

    @handles.check("place-decoy")
    def check_place_decoy(self, g: Game, f: Frame, action: Action) -> None:
        """LGG 4-B: a decoy from the pool onto a hex holding units of its army."""
        self.box_check(g, f, action)
        holder, army = _decoy(g, action, self.box_armies(g, f))
        if holder.loc.kind != "box":
            raise IllegalAction("LGG 4-B", f"{holder.id} is already on the map")
        at = str(action.get("at", ""))
        if not g.board.has_label(at) or g.board.idx(at) not in _decoy_spots(g, army):
            raise IllegalAction(
                "LGG 4-B", f"a decoy is placed on a hex holding units of its army ({army})"
            )

    @handles.check("remove-decoy")
    def check_remove_decoy(self, g: Game, f: Frame, action: Action) -> None:
        self.box_check(g, f, action)
        holder, _ = _decoy(g, action, self.box_armies(g, f))
        _on_map(holder)

    @handles.check("lift")
    def check_lift(self, g: Game, f: Frame, action: Action) -> None:
        """LGG 4-B: units of the holder's army standing on its hex go onto its box."""

        self.box_check(g, f, action)
        holder = _holder(g, action, "into", self.box_armies(g, f))
        army = _army_of(holder, self.box_armies(g, f))
        h = _on_map(holder)
        for p in _own_units(g, action):
            if (
                p.loc != Loc.hex(h)
                or not M.is_unit(p)
                or p.type in ("hq", "ghq")
                or M.in_reserve(p)
            ):
                raise IllegalAction(
                    "LGG 4-B", f"{p.id} is not a unit standing on {g.board.label(h)}"
                )
            if command_army(g, p) != army:
                raise IllegalAction("LGG 4-B", f"{p.id} is not a unit of army {army}")

    @handles.check("drop")
    def check_drop(self, g: Game, f: Frame, action: Action) -> None:
        """LGG 4-B: units on the holder's box go back onto the map."""
        self.box_check(g, f, action)
        holder = _holder(g, action, "from", self.box_armies(g, f))
        _army_of(holder, self.box_armies(g, f))
        _on_map(holder)
        for p in _own_units(g, action):
            if p.loc != Loc.inside(holder.id) or M.in_reserve(p):
                raise IllegalAction("LGG 4-B", f"{p.id} is not on the box of {holder.id}")

    @handles.apply("place-decoy")
    def apply_place_decoy(self, g: Game, f: Frame, action: Action) -> None:
        d = g.state.pieces[action["decoy"]]
        i = g.board.idx(action["at"])
        M.move_piece(g, d, Loc.hex(i))
        emit_private(
            g,
            action["side"],
            "decoy",
            f"decoy {d.id} placed at {action['at']}",
            None,
            rule="LGG 4-B",
        )

    @handles.apply("remove-decoy")
    def apply_remove_decoy(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        d = g.state.pieces[action["decoy"]]
        i = int(d.loc.ref)
        for p in box_contents(g, d):
            M.move_piece(g, p, Loc.hex(i))
        M.move_piece(g, d, Loc.box(M.decoy_pool(side)))
        emit_private(
            g,
            side,
            "decoy",
            f"decoy {d.id} taken back from {g.board.label(i)}",
            None,
            rule="LGG 4-B",
        )

    @handles.apply("lift")
    def apply_lift(self, g: Game, f: Frame, action: Action) -> None:
        holder = g.state.pieces[action["into"]]
        for uid in action["units"]:
            M.move_piece(g, g.state.pieces[uid], Loc.inside(holder.id))
        _boxed(g, action, "lifted onto the box of", holder)

    @handles.apply("drop")
    def apply_drop(self, g: Game, f: Frame, action: Action) -> None:
        holder = g.state.pieces[action["from"]]
        i = int(holder.loc.ref)
        for uid in action["units"]:
            M.move_piece(g, g.state.pieces[uid], Loc.hex(i))
        _boxed(g, action, "put back on the map from", holder)


def _boxed(g: Game, action: Action, verb: str, holder: Piece) -> None:
    emit_private(
        g,
        action["side"],
        "box",
        f"{', '.join(action['units'])} {verb} {holder.id}",
        None,
        rule="LGG 4-B",
    )
