"""OT 15G (advanced, option ``siege``): sieges.

At the start of his movement phase the phasing player may put under siege a hex holding enemy
units when his units occupy every hex adjacent to it (OT 3E5); he establishes the siege by moving
at least one surrounding unit into the hex (OT 6 lets it enter). While the siege lasts the
besieged units' ZOC stays in their own hex, their side may enter the hex only by air or naval
transport, both sides stack up to the hex's full limit, besieged units may attack only the
sieging units in their hex, and ownership does not change. The siege ends when the sieging units
have all left the hex, or when a unit of the besieged side occupies a hex adjacent to it: the
sieging units in the hex then retreat at once (OT 9F2), and only afterwards do the besieged units'
ZOCs reach beyond their hex again.

State: ``gw(g)["sieges"]`` maps a hex index (string) to ``{"besieged": side, "sieging": side}``;
``gw(g)["siege_candidates"]`` lists the hexes the phasing player may put under siege in the
current movement phase.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar import geography, nations, units
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.step import GWStep

if TYPE_CHECKING:
    from grognard.core.game import Game


def sieges(g: Game) -> dict[str, dict[str, str]]:
    return g.state.vars.get("gw", {}).get("sieges", {})


def siege_at(g: Game, i: int) -> dict[str, str] | None:
    """The siege of hex ``i``, if any."""
    s = g.state.vars.get("gw", {}).get("sieges")
    return s.get(str(i)) if s else None


def is_besieged(g: Game, p: Piece) -> bool:
    """A unit of the besieged side in a hex under siege."""
    h = units.hex_of(g, p)
    if h is None:
        return False
    s = siege_at(g, h)
    return s is not None and s["besieged"] == p.side


@implements("OT 15G")
def surrounded(g: Game, side: str, i: int) -> bool:
    """OT 15G: hex ``i`` holds units of ``side``'s enemy and ``side`` has units in every hex
    adjacent
    to it (adjacency per OT 3E5)."""
    enemy = nations.other_side(side)
    if not units.units_in_hex(g, i, enemy):
        return False
    adj = geography.adjacent_hexes(g, i)
    return bool(adj) and all(units.units_in_hex(g, j, side) for j in adj)


@implements("OT 15G")
def start_of_movement_phase(g: Game, side: str) -> list[int]:
    """OT 15G: at the start of a player's movement phase, the hexes he may put under siege (kept
    for the phase in ``siege_candidates``)."""
    if not g.opt("siege"):
        return []
    enemy = nations.other_side(side)
    cands = sorted(
        {
            h
            for p in units.on_map_units(g, enemy)
            if (h := units.hex_of(g, p)) is not None
            and str(h) not in sieges(g)
            and surrounded(g, side, h)
        }
    )
    gw(g)["siege_candidates"] = {"side": side, "hexes": cands}
    if cands:
        g.emit(
            "siege",
            f"{side} may put under siege: {', '.join(g.board.label(h) for h in cands)}",
            rule="OT 15G",
        )
    return cands


def sieging_entry_allowed(g: Game, side: str, v: int) -> bool:
    """OT 15G / OT 6: the sieging player's units may enter the enemy-occupied hex they besiege, and
    a
    hex they may put under siege this movement phase (entering it establishes the siege)."""
    if not g.opt("siege"):
        return False
    s = siege_at(g, v)
    if s is not None:
        return s["sieging"] == side
    c = gw(g).get("siege_candidates", {})
    return c.get("side") == side and v in c.get("hexes", []) and gw(g).get("phase") == "movement"


@implements("OT 15G")
def entry_problem(g: Game, p: Piece, v: int) -> str | None:
    """OT 15G (b): units of the besieged player enter a hex under siege only by air or naval
    transport (ground movement may not)."""
    s = siege_at(g, v)
    if s is not None and s["besieged"] == p.side:
        return (
            f"{g.board.label(v)} is under siege: {p.side} units enter it only by air or naval"
            " transport (OT 15G)"
        )
    return None


@implements("OT 15G")
def establish(g: Game, side: str, i: int) -> None:
    """OT 15G: a surrounding unit moved into a hex the player may put under siege: the siege
    begins."""
    sieges_ = gw(g).setdefault("sieges", {})
    sieges_[str(i)] = {"besieged": nations.other_side(side), "sieging": side}
    c = gw(g).get("siege_candidates", {})
    if i in c.get("hexes", []):
        c["hexes"] = [h for h in c["hexes"] if h != i]
    g.emit(
        "siege", f"{side} puts {g.board.label(i)} under siege", rule="OT 15G", hex=g.board.label(i)
    )


@implements("OT 15G")
def zoc_only_own_hex(g: Game, p: Piece) -> bool:
    """OT 15G (a): besieged units exert a ZOC in their own hex only (sieging units are
    unaffected)."""
    return is_besieged(g, p)


@implements("OT 15G")
def ownership_frozen(g: Game, i: int) -> bool:
    """OT 15G (e): a siege has no effect on the ownership of the hex."""
    return siege_at(g, i) is not None


@implements("OT 15G")
def attack_problem(g: Game, attackers: Sequence[Piece], target: int) -> str | None:
    """OT 15G (d): besieged units may attack only the sieging units in their own hex, never an
    adjacent hex; sieging units attack from the hex or from adjacent hexes."""
    for p in attackers:
        h = units.hex_of(g, p)
        if h is not None and is_besieged(g, p) and target != h:
            return f"{p.id} is besieged and may attack only the sieging units in its hex (OT 15G)"
    return None


@implements("OT 15G")
def check_sieges(g: Game) -> None:
    """OT 15G: lift sieges that end: every sieging unit has left the hex (or no besieged unit is
    left), or a unit of the besieged side occupies an adjacent hex -- then the sieging units in the
    hex must retreat at once (step ``siege-retreat``)."""
    for key in sorted(sieges(g), key=int):
        s = sieges(g).get(key)
        if s is None or s.get("retreating"):
            continue
        i = int(key)
        sieging = units.units_in_hex(g, i, s["sieging"])
        besieged = units.units_in_hex(g, i, s["besieged"])
        if not sieging or not besieged:
            lift(g, i, "the sieging units have left" if not sieging else "no besieged unit is left")
            continue
        if any(units.units_in_hex(g, j, s["besieged"]) for j in geography.adjacent_hexes(g, i)):
            s["retreating"] = "yes"
            g.emit(
                "siege",
                f"a {s['besieged']} unit next to {g.board.label(i)} lifts the siege: the sieging"
                " units retreat",
                rule="OT 15G",
            )
            g.push("siege-retreat", {"side": s["sieging"], "hex": g.board.label(i)})


def lift(g: Game, i: int, why: str) -> None:
    sieges_ = gw(g).setdefault("sieges", {})
    if sieges_.pop(str(i), None) is not None:
        g.emit(
            "siege",
            f"the siege of {g.board.label(i)} is lifted ({why})",
            rule="OT 15G",
            hex=g.board.label(i),
        )
        from grognard.rulesets.greatwar import zoc

        zoc.update_ownership(g)


@implements("OT 15G")
class SiegeRetreat(GWStep):
    """OT 15G: a siege lifted by a relieving unit: the sieging player retreats each of his units out
    of the besieged hex, one hex by the priorities of OT 9F2 (the owner chooses among equally good
    hexes); a unit with no retreat hex is eliminated. Then the siege ends."""

    name = "siege-retreat"
    title = "Retreat from a lifted siege"
    rule = "OT 15G"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [] if f.done else [f.params["side"]]

    def label(self, g: Game, f: Frame) -> str:
        return f"Retreat from the siege of {f.params['hex']} ({f.params['side']})"

    def _units(self, g: Game, f: Frame) -> list[Piece]:
        return sorted(
            units.units_in_hex(g, g.board.idx(f.params["hex"]), f.params["side"]),
            key=lambda p: p.id,
        )

    def _options(self, g: Game, f: Frame, p: Piece) -> list[int]:
        from grognard.rulesets.greatwar import combat, special_units

        i = g.board.idx(f.params["hex"])
        out = []
        for c in combat.retreat_step_options(g, p, i, i):
            j = c.hexes[0]
            if special_units.retreat_problem(g, p, i, j) is None:
                out.append(j)
        return out

    def enter(self, g: Game, f: Frame) -> None:
        self._settle(g, f)

    def _settle(self, g: Game, f: Frame) -> None:
        from grognard.rulesets.greatwar import special_units

        for p in self._units(g, f):
            why = special_units.retreat_eliminates(g, p)
            if why or not self._options(g, f, p):
                units.eliminate(g, p, "OT 15G", why or "no retreat hex from the lifted siege")
        if not self._units(g, f):
            lift(g, g.board.idx(f.params["hex"]), "relieved")
            g.finish(f)

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return [
            {"type": "retreat", "side": side, "piece": p.id, "to": g.board.label(j)}
            for p in self._units(g, f)
            for j in self._options(g, f, p)
        ]

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction("OT 15G", "the sieging units must retreat first")

    @handles.check("retreat")
    def check_retreat(self, g: Game, f: Frame, action: Action) -> None:
        """OT 15G: a sieging unit retreats one hex by the priorities of OT 9F2."""
        pid = action.get("piece")
        p = next((q for q in self._units(g, f) if q.id == pid), None)
        if p is None:
            raise IllegalAction("OT 15G", f"{pid!r} is not a sieging unit in {f.params['hex']}")
        to = action.get("to")
        if (
            not isinstance(to, str)
            or not g.board.has_label(to)
            or g.board.idx(to) not in self._options(g, f, p)
        ):
            raise IllegalAction("OT 9F2", f"{to!r} is not an allowed retreat hex for {pid}")

    @handles.apply("retreat")
    def apply_retreat(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["piece"]]
        g.state.move(p.id, Loc.hex(g.board.idx(action["to"])))
        g.emit(
            "retreat",
            f"{p.id} retreats from the siege to {action['to']}",
            rule="OT 15G",
            piece=p.id,
            to=action["to"],
        )
        self._settle(g, f)


def candidates_param(g: Game) -> dict[str, Any]:
    return gw(g).get("siege_candidates", {})
