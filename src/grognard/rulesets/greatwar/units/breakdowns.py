"""OT 15F: breaking units down into their components and assembling them again.

The game charts (OT 15F2) are the scenario's ``[rules] breakdowns`` list. Each entry is one
breakdown combination:

* specific (OT 15F3b): ``parent`` = the unit's id, ``components`` = its own breakdown counters;
* lettered (OT 15F3a): ``letter`` = "A", "B"..., ``parents`` = the units (ids) that may use the set,
  ``components`` = the lettered counters; one parent at a time, which waits in the lettered box;
* ``assemble_only = true``: components that may be assembled but whose parent never breaks down
  again (OT 15F3b, e.g. British divisions formed from rifle and artillery parts).

A broken-down parent waits in the box ``breakdown:<side>`` (or the entry's ``box``); components not
in play wait there too. Breakdown happens at the start of a movement, reaction movement or
exploitation phase (before the unit moves), assembly at its end (the parent does not move again in
that phase).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar.logistics import replacements
from grognard.rulesets.greatwar.movement import movement
from grognard.rulesets.greatwar.step import MovementExtension
from grognard.rulesets.greatwar.units import units

if TYPE_CHECKING:
    from grognard.core.game import Game


def box_of(side: str, entry: dict[str, Any] | None = None) -> str:
    if entry and entry.get("box"):
        return str(entry["box"])
    if entry and entry.get("letter"):
        return f"breakdown:{side}:{entry['letter']}"
    return f"breakdown:{side}"


@implements("OT 15F2", "OT 15F3", "OT 15F3a", "OT 15F3b")
def combinations(g: Game) -> list[dict[str, Any]]:
    """OT 15F2: the breakdown combinations of the game charts; only units listed there break down
    (OT 15F3a lettered sets, OT 15F3b specific counters)."""
    rules = g.scenario.rules
    raw = getattr(rules, "breakdowns", []) if rules is not None else []
    out = []
    for d in raw:
        e = d.model_dump() if hasattr(d, "model_dump") else dict(d)
        out.append(e)
    return out


def entry_for(
    g: Game, parent: Piece, comps: Sequence[Piece] | None = None
) -> dict[str, Any] | None:
    for e in combinations(g):
        mine = e.get("parent") == parent.id or parent.id in (e.get("parents") or [])
        if mine and (comps is None or sorted(c.id for c in comps) == sorted(e["components"])):
            return e
    return None


def _in_play(g: Game, p: Piece) -> bool:
    loc = g.state.where(p.id)
    return loc.kind == "hex" or replacements.in_pool(g, p)


@implements("OT 15F1", "OT 15F2", "OT 15F3a", "OT 15F3b")
def breakdown_problem(
    g: Game,
    parent: Piece,
    comps: Sequence[Piece] | None = None,
    ob: bool = False,
    f: Frame | None = None,
) -> str | None:
    """OT 15F1: a unit listed on the game charts may break down at the start of a movement, reaction
    movement or exploitation phase (before it spends MPs; no MP cost), on the map or in its
    replacement pool, if its breakdown counters are free: specific counters serve only their unit,
    a lettered set one unit at a time (OT 15F3); a unit whose chart lists only assembly never breaks
    down (OT 15F3b). An OB breakdown (OT 16A1e) is not bound to the phase."""
    e = entry_for(g, parent, comps)
    if e is None:
        return f"{parent.id} has no breakdown on the game charts (OT 15F2)"
    if e.get("assemble_only") and not ob:
        return f"{parent.id} may be assembled but never broken down again (OT 15F3b)"
    if not _in_play(g, parent):
        return f"{parent.id} is not on the map or in a replacement pool"
    pieces = [g.state.pieces[c] for c in e["components"] if c in g.state.pieces]
    if len(pieces) != len(e["components"]):
        return "a breakdown counter is missing"
    if any(_in_play(g, c) for c in pieces):
        return f"the breakdown counters of {parent.id} are in use (OT 15F2)"
    if f is not None and not ob:
        rec = f.params.get("units", {}).get(parent.id, {})
        if rec.get("moved") or rec.get("spent"):
            return f"{parent.id} has moved: units break down at the start of the phase (OT 15F1)"
    return None


def _rule_named(why: str) -> str:
    """The rule a problem text ends by naming (``... (OT 15F2)``), else OT 15F1."""
    if why.endswith(")") and "(OT " in why:
        return why[why.rindex("(OT ") + 1 : -1]
    return "OT 15F1"


def _worst_state(g: Game, ps: Sequence[Piece]) -> dict[str, Any]:
    level = max((units.disruption(p) for p in ps), default=0)
    fat = max((int(p.attrs.get("fatigue", 0)) for p in ps), default=0)
    since = [int(p.attrs["supply_out_since"]) for p in ps if "supply_out_since" in p.attrs]
    return {"disruption": level, "fatigue": fat, "supply_out_since": min(since) if since else None}


def _give_state(g: Game, p: Piece, st: dict[str, Any]) -> None:
    p.status.discard(units.DISRUPTED)
    p.status.discard(units.BADLY)
    if st["disruption"] == 1:
        p.status.add(units.DISRUPTED)
    elif st["disruption"] >= 2:
        p.status.add(units.BADLY)
    if st["fatigue"]:
        p.attrs["fatigue"] = st["fatigue"]
    else:
        p.attrs.pop("fatigue", None)
    if st["supply_out_since"] is not None:
        p.attrs["supply_out_since"] = st["supply_out_since"]
    else:
        p.attrs.pop("supply_out_since", None)


@implements("OT 15F1")
def breakdown(
    g: Game, parent: Piece, comps: Sequence[Piece] | None = None, rule: str = "OT 15F1"
) -> None:
    """OT 15F1: the parent goes to its box on the game chart; its components take its place (hex or
    replacement pool) and its state. Stacking may be exceeded until the end of the phase."""
    e = entry_for(g, parent, comps)
    assert e is not None
    pieces = [g.state.pieces[c] for c in e["components"]]
    st = _worst_state(g, [parent])
    loc = g.state.where(parent.id)
    in_pool = replacements.in_pool(g, parent)
    for c in pieces:
        if in_pool:
            c.attrs["pool"] = parent.attrs["pool"]
            g.state.move(c.id, Loc.box(units.ELIMINATED_BOX))
        else:
            g.state.move(c.id, loc)
            _give_state(g, c, st)
    for k in ("pool", "pool_isolated", "set_aside"):
        parent.attrs.pop(k, None)
    g.state.move(parent.id, Loc.box(box_of(parent.side, e)))
    g.emit(
        "breakdown",
        f"{parent.id} breaks down into {', '.join(c.id for c in pieces)}",
        rule=rule,
        piece=parent.id,
    )


@implements("OT 15F1")
def assemble_problem(
    g: Game, parent: Piece, comps: Sequence[Piece], f: Frame | None = None
) -> str | None:
    """OT 15F1: the components listed for the parent, all stacked in one hex (or all in one
    replacement pool), assemble; the parent must be free in its box."""
    e = entry_for(g, parent, comps)
    if e is None:
        return f"{', '.join(c.id for c in comps)} do not assemble into {parent.id} (OT 15F2)"
    if _in_play(g, parent):
        return f"{parent.id} is already in play"
    locs = {g.state.where(c.id) for c in comps}
    if len(locs) != 1:
        return "the components must be stacked in one hex (OT 15F1)"
    if next(iter(locs)).kind != "hex" and not all(replacements.in_pool(g, c) for c in comps):
        return "the components must be on the map or in a replacement pool"
    return None


@implements("OT 15F1")
def assemble(g: Game, parent: Piece, comps: Sequence[Piece], rule: str = "OT 15F1") -> None:
    """OT 15F1: the components leave (back to the breakdown box) and the parent takes their place
    with the worst disruption, fatigue and general supply state among them (a badly disrupted and
    an undisrupted brigade make a badly disrupted division)."""
    e = entry_for(g, parent, comps)
    st = _worst_state(g, comps)
    loc = g.state.where(comps[0].id)
    pool = comps[0].attrs.get("pool") if replacements.in_pool(g, comps[0]) else None
    for c in comps:
        for k in ("pool", "pool_isolated", "set_aside"):
            c.attrs.pop(k, None)
        g.state.move(c.id, Loc.box(box_of(c.side, e)))
    if pool:
        parent.attrs["pool"] = pool
        g.state.move(parent.id, Loc.box(units.ELIMINATED_BOX))
    else:
        g.state.move(parent.id, loc)
        _give_state(g, parent, st)
    g.emit(
        "assemble",
        f"{', '.join(c.id for c in comps)} assemble into {parent.id}",
        rule=rule,
        piece=parent.id,
    )


class BreakdownExtension(MovementExtension):
    """The breakdown (start of the phase) and assembly actions of the movement-type steps."""

    def extension_actions(self, g: Game, f: Frame, side: str) -> list[Action]:

        out: list[Action] = []
        if f.params.get("kind") not in (
            movement.MOVEMENT,
            movement.REACTION,
            movement.EXPLOITATION,
        ):
            return out
        for e in combinations(g):
            parents = [e["parent"]] if e.get("parent") else list(e.get("parents") or [])
            for pid in parents:
                p = g.state.pieces.get(pid)
                if p is None or p.side != side:
                    continue
                if (
                    units.hex_of(g, p) is not None
                    and movement.can_move_now(g, f, p) is None
                    and breakdown_problem(g, p, None, f=f) is None
                ):
                    out.append({"type": "breakdown", "side": side, "piece": p.id})
                comps = [g.state.pieces[c] for c in e["components"] if c in g.state.pieces]
                if (
                    comps
                    and all(c.side == side for c in comps)
                    and assemble_problem(g, p, comps) is None
                    and all(units.hex_of(g, c) is not None for c in comps)
                ):
                    out.append(
                        {
                            "type": "assemble",
                            "side": side,
                            "parent": p.id,
                            "components": [c.id for c in comps],
                        }
                    )
        return out

    @implements("OT 15F1")
    def _in_movement(self, f: Frame) -> None:
        """OT 15F1: units break down and assemble only in movement-type phases."""

        if f.params.get("kind") not in (
            movement.MOVEMENT,
            movement.REACTION,
            movement.EXPLOITATION,
        ):
            raise IllegalAction(
                "OT 15F1",
                "units break down and assemble only in movement, reaction movement and exploitation"
                " phases",
            )

    @handles.check("breakdown")
    def check_breakdown(self, g: Game, f: Frame, action: Action) -> None:
        """OT 15F1: a unit that may move breaks down into its components."""

        self._in_movement(f)
        p = g.state.pieces.get(str(action.get("piece")))
        if p is None or p.side != action["side"]:
            raise IllegalAction(
                "OT 15F1", f"{action.get('piece')!r} is not a unit of {action['side']}"
            )
        if units.hex_of(g, p) is not None:
            why = movement.can_move_now(g, f, p)
            if why:
                raise IllegalAction("OT 15F1", why)
        why = breakdown_problem(g, p, None, f=f)
        if why:
            raise IllegalAction(_rule_named(why), why)

    @handles.check("assemble")
    def check_assemble(self, g: Game, f: Frame, action: Action) -> None:
        """OT 15F1: components assemble into their parent."""
        self._in_movement(f)
        p = g.state.pieces.get(str(action.get("parent")))
        comps = [g.state.pieces.get(str(c)) for c in action.get("components", [])]
        if p is None or not comps or any(c is None or c.side != action["side"] for c in comps):
            raise IllegalAction("OT 15F1", "name the parent and its components")
        why = assemble_problem(g, p, [c for c in comps if c is not None])
        if why:
            raise IllegalAction(_rule_named(why), why)

    @handles.apply("breakdown")
    def apply_breakdown(self, g: Game, f: Frame, action: Action) -> None:

        p = g.state.pieces[str(action["piece"])]
        breakdown(g, p)
        e = entry_for(g, p)
        for c in (e or {}).get("components", []):
            movement.record(f, g.state.pieces[c], g)

    @handles.apply("assemble")
    def apply_assemble(self, g: Game, f: Frame, action: Action) -> None:

        p = g.state.pieces[str(action["parent"])]
        comps = [g.state.pieces[str(c)] for c in action["components"]]
        assemble(g, p, comps)
        if units.hex_of(g, p) is not None:
            movement.record(f, p, g)["done"] = True
