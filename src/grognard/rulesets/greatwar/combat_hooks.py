"""Where the combat rules (OT 9-10) meet the rules that act inside a combat but belong elsewhere:
Rules 14-15 (``special_rules``, ``special_units``, ``leaders``), supply (``supply``) and artillery
(``artillery``). The interface is documented in ``docs/rulesets/greatwar.md`` ("Combat interface of
Rules 14 and 15" and "Combat (Rules 9-10): what the combat module reads from other rules").

Each function here calls the other module's function when it is there; the combat procedure never
imports those modules directly. Where a function is not (yet) provided, the rule that the combat
rules themselves state is applied: OT 9A names infantry-capable and mountain/infantry-capable sides
for the CRT choice, OT 9B the 9:1 column, OT 9C1/9C2 the AQ->AS and DX->DXM conversions; the
unit predicates come from :mod:`.special_units`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar import special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game


def provided(module: str, name: str) -> Callable[..., Any] | None:
    """``module.name`` of the rule system if that module defines it, else None."""
    try:
        mod = importlib.import_module(f"grognard.rulesets.greatwar.{module}")
    except ImportError:
        return None
    fn = getattr(mod, name, None)
    return fn if callable(fn) else None


@dataclass
class Situation:
    """A combat as the other rules see it (mirrors ``special_rules.CombatSituation``)."""

    attackers: list[Piece]
    defenders: list[Piece]
    hex: int
    crt: str | None
    reaction: bool
    extra: dict[str, Any] = field(default_factory=dict)


def situation(
    g: Game,
    attackers: Sequence[Piece],
    defenders: Sequence[Piece],
    target: int,
    crt: str | None,
    reaction: bool,
) -> Any:
    """The combat situation object handed to the Rule 14-15 functions (``CombatSituation``)."""
    for module in ("special_units", "special_rules"):
        try:
            mod = importlib.import_module(f"grognard.rulesets.greatwar.{module}")
        except ImportError:
            continue
        cls = getattr(mod, "CombatSituation", None)
        if cls is not None:
            return cls(list(attackers), list(defenders), target, crt, reaction)
    return Situation(list(attackers), list(defenders), target, crt, reaction)


# ================================================================== side capabilities (OT 9A / 14H)
def _non_art_re(g: Game, pieces: Sequence[Piece]) -> Fraction:
    return sum(
        (units.re_size(g, p) for p in pieces if units.is_unit(p) and not units.is_artillery(p)),
        Fraction(0),
    )


@implements("OT 9A")
def infantry_capable(
    g: Game, pieces: Sequence[Piece], sit: Any = None, role: str = "attack"
) -> bool:
    """OT 9A/9B/9C1 (as defined by OT 14H1): a side is infantry-capable when infantry units make up
    half or more of its REs, artillery left out. Rule 14's ``special_rules.capabilities`` decides
    when it exists (it also knows OT 15E3 pooling)."""
    fn = provided("special_rules", "capabilities")
    if fn is not None and sit is not None:
        return bool(getattr(fn(g, sit, role), "infantry", False))
    total = _non_art_re(g, pieces)
    if total <= 0:
        return False
    inf = sum(
        (
            units.re_size(g, p)
            for p in pieces
            if not units.is_artillery(p) and special_units.is_infantry(g, p)
        ),
        Fraction(0),
    )
    return inf * 2 >= total


@implements("OT 9A")
def mountain_infantry_capable(
    g: Game, pieces: Sequence[Piece], sit: Any = None, role: str = "attack"
) -> bool:
    """OT 9A exception B (as defined by OT 14H2): mountain and infantry units together make up half
    or more of the side's non-artillery REs."""
    fn = provided("special_rules", "capabilities")
    if fn is not None and sit is not None:
        return bool(getattr(fn(g, sit, role), "mountain_infantry", False))
    total = _non_art_re(g, pieces)
    if total <= 0:
        return False
    mi = sum(
        (
            units.re_size(g, p)
            for p in pieces
            if not units.is_artillery(p)
            and (special_units.is_infantry(g, p) or "mountain" in special_units.movement_tags(g, p))
        ),
        Fraction(0),
    )
    return mi * 2 >= total


@implements("OT 9C2")
def rifle_assault_capable(g: Game, pieces: Sequence[Piece], sit: Any = None) -> bool:
    """OT 9C2 (as defined by OT 14R): rifle assault units make up half or more of the attacker's
    REs, leaving out artillery and units with combat or assault engineer abilities."""
    fn = provided("special_rules", "capabilities")
    if fn is not None and sit is not None:
        return bool(getattr(fn(g, sit, "attack"), "rifle_assault", False))

    def counted(p: Piece) -> bool:
        tags = units.utype(p).tags
        return not units.is_artillery(p) and not (
            {"combat-engineer", "assault-engineer", "engineer-tank"} & tags
        )

    total = sum((units.re_size(g, p) for p in pieces if counted(p)), Fraction(0))
    if total <= 0:
        return False
    ra = sum(
        (
            units.re_size(g, p)
            for p in pieces
            if counted(p) and "rifle-assault" in units.utype(p).tags
        ),
        Fraction(0),
    )
    return ra * 2 >= total


# =========================================================================== calls into Rules 14-15
def declaration_checks(g: Game, sit: Any) -> None:
    fn = provided("special_rules", "declaration_checks")
    if fn is not None:
        fn(g, sit)


def crt_choice(g: Game, sit: Any) -> tuple[str, str | None] | None:
    """Rule 14-15's CRT choice, or None to let OT 9A decide."""
    fn = provided("special_rules", "crt_choice")
    if fn is None:
        return None
    crt, chooser = fn(g, sit)
    return str(crt), chooser


def mobile_column_cap(g: Game, sit: Any) -> int | None:
    fn = provided("special_rules", "mobile_column_cap")
    return int(fn(g, sit)) if fn is not None else None


def effective_fortification(g: Game, sit: Any) -> Any:
    fn = provided("special_rules", "effective_fortification")
    return fn(g, sit) if fn is not None else None


def combat_drms(
    g: Game, sit: Any, attacker_hq: Piece | None, defender_hq: Piece | None
) -> Modifiers:
    fn = provided("special_rules", "combat_drms")
    if fn is None:
        return Modifiers()
    out = fn(g, sit, attacker_hq=attacker_hq, defender_hq=defender_hq)
    return out if isinstance(out, Modifiers) else Modifiers()


def resource_center_check(g: Game, sit: Any) -> int:
    fn = provided("special_rules", "resource_center_check")
    return int(fn(g, sit)) if fn is not None else 0


def push_leader_step(g: Game, sit: Any) -> bool:
    fn = provided("leaders", "push_leader_step")
    if fn is None:
        return False
    return bool(fn(g, sit))


def leader_drm(g: Game) -> int:
    fn = provided("leaders", "leader_drm")
    return int(fn(g)) if fn is not None else 0


def push_flooding(g: Game, sit: Any) -> bool:
    fn = provided("special_rules", "push_flooding")
    return bool(fn(g, sit)) if fn is not None else False


def flood_called_off(g: Game) -> bool:
    """OT 15A6: whether the attacker called the attack off after the hex was flooded."""
    fn = provided("special_rules", "flood_outcome")
    if fn is None:
        return False
    out = fn(g)
    if isinstance(out, dict):
        return bool(out.get("called_off"))
    return bool(getattr(out, "called_off", False))


def convert_result(g: Game, sit: Any, code: str) -> str | None:
    fn = provided("special_rules", "convert_result")
    return str(fn(g, sit, code)) if fn is not None else None


def unit_factor(g: Game, p: Piece, sit: Any, role: str) -> Fraction | None:
    """Rule 14's factor on one unit's strength (14D1, 14L, 14C2, 14I2), or None if not provided."""
    fn = provided("special_units", "attack_factor" if role == "attack" else "defense_factor")
    if fn is None:
        return None
    return Fraction(fn(g, p, sit))


def counts_as_supported(g: Game, p: Piece, sit: Any, role: str) -> bool | None:
    fn = provided("special_units", "counts_as_supported")
    return bool(fn(g, p, sit, role)) if fn is not None else None


def combat_strength(g: Game, p: Piece, key: str) -> Fraction | None:
    fn = provided("special_units", "combat_strength")
    return Fraction(fn(g, p, key)) if fn is not None else None


def loss_rules(g: Game, sit: Any, role: str) -> list[dict[str, Any]]:
    """Rule 14-15 loss constraints as dicts: ``pieces`` (ids), ``share`` or ``last``, ``rule``."""
    fn = provided("special_rules", "loss_rules")
    if fn is None:
        return []
    out = []
    for r in fn(g, sit, "attack" if role in ("attacker", "attack") else "defense"):
        d = (
            dict(r)
            if isinstance(r, dict)
            else {k: getattr(r, k) for k in ("pieces", "share", "last", "rule") if hasattr(r, k)}
        )
        d["pieces"] = [q.id if isinstance(q, Piece) else str(q) for q in d.get("pieces", [])]
        out.append(d)
    return out


def irregular_attack_problem(
    g: Game,
    attackers: Sequence[Piece],
    ratio: Fraction,
    mandatory: bool,
    strengths: dict[str, Fraction],
) -> str | None:
    """OT 14L: why irregular units may not make this attack, or None."""
    fn = provided("special_units", "irregular_attack_problem")
    if fn is not None:
        why = fn(g, list(attackers), ratio, mandatory=mandatory, strengths=strengths)
        return str(why) if why else None
    fn = provided("special_units", "irregular_attack_allowed")
    if fn is None:
        return None
    ok = fn(g, list(attackers), ratio, mandatory=mandatory, strengths=strengths)
    if ok is True or ok is None:
        return None
    return (
        ok
        if isinstance(ok, str)
        else "irregular units may not make this attack at these odds (OT 14L)"
    )


def irregular_must_try_retreat(g: Game, p: Piece, ratio: Fraction, has_retreat_hex: bool) -> bool:
    """OT 14L: whether an irregular unit must try to retreat before this combat."""
    fn = provided("special_units", "irregular_must_try_retreat")
    if fn is not None:
        return bool(fn(g, p, ratio, has_retreat_hex))
    return False


def irregular_failed_retreat(g: Game, p: Piece) -> None:
    fn = provided("special_units", "irregular_failed_retreat")
    if fn is not None:
        fn(g, p)


def no_advance(g: Game, p: Piece) -> str | None:
    """Why Rule 14 bars a unit from advancing after combat (rail-only 14B1, water-only 14B2, Army
    HQs 14M), or None."""
    fn = provided("special_units", "no_advance")
    if fn is not None:
        why = fn(g, p)
        return str(why) if why else None
    if units.is_rail_only(p):
        return f"{p.id} is rail-only (OT 14B1)"
    if units.is_water_only(p):
        return f"{p.id} is water-only (OT 14B2)"
    if special_units.is_army_hq(p):
        return f"{p.id} is an Army HQs (OT 14M)"
    return None


def retreat_eliminates(g: Game, p: Piece) -> str | None:
    """Why a unit forced to retreat is eliminated instead under Rule 14 (14B1, 14B2, 14B3, 14D2,
    14O1), or None."""
    fn = provided("special_units", "retreat_eliminates")
    if fn is not None:
        why = fn(g, p)
        return str(why) if why else None
    if units.is_rail_only(p):
        return f"{p.id} is rail-only and cannot retreat overland (OT 14B1)"
    return None


def retreat_problem(g: Game, p: Piece, here: int, to: int) -> str | None:
    """Why Rule 14 forbids a unit this retreat step (14B1, 14D2), or None."""
    fn = provided("special_units", "retreat_problem")
    if fn is None:
        return None
    try:
        why = fn(g, p, here, to)
    except TypeError:
        why = fn(g, p, to)
    return str(why) if why else None


# ============================================================================ supply and artillery
def combat_supplied(
    g: Game, side: str, pieces: Sequence[Piece], sit: Any, commit: bool = False
) -> set[str]:
    """OT 11D: the pieces in combat supply for this combat; with ``commit`` the supply rules record
    the Res Pts drawn on (once per side when the combat starts)."""
    if commit:
        fn = provided("supply", "commit_combat_supply")
        if fn is not None:
            return set(fn(g, side, list(pieces)).supplied)
    fn = provided("supply", "combat_supplied")
    if fn is None:
        return set()
    return {str(x.id if isinstance(x, Piece) else x) for x in fn(g, side, list(pieces), sit)}


def end_of_combat_segment(g: Game) -> None:
    """OT 11D: Res Pts that gave combat supply in the segment are removed at its end."""
    fn = provided("supply", "end_of_segment")
    if fn is not None:
        fn(g, "combat")


def supply_factor(g: Game, p: Piece, in_combat_supply: bool) -> Fraction | None:
    """OT 11F: the supply rules' strength multiplier, or None if they do not provide it."""
    fn = provided("supply", "strength_factor")
    return Fraction(fn(g, p, in_combat_supply)) if fn is not None else None


def depots(g: Game, side: str) -> list[tuple[int, bool]]:
    """Friendly supply depots (OT 11C1) as (hex, operational)."""
    fn = provided("logistics", "depots")
    op = provided("logistics", "depot_operational")
    out = []
    if fn is not None:
        for d in fn(g, side):
            h = units.hex_of(g, d)
            if h is not None:
                out.append((h, bool(op(d)) if op is not None else True))
        return out
    for d in g.state.pieces.values():
        if d.side == side and units.utype(d).id == "supply-depot" and d.loc.kind == "hex":
            out.append((int(d.loc.ref), d.face not in ("non-operational", "nonoperational")))
    return out


def res_pts(g: Game, side: str) -> list[Piece]:
    """Friendly Res Pts on the map (OT 11G)."""
    fn = provided("logistics", "res_pts")
    if fn is not None:
        return sorted(
            (r for r in fn(g, side) if units.hex_of(g, r) is not None), key=lambda r: r.id
        )
    return sorted(
        (
            r
            for r in g.state.pieces.values()
            if r.side == side and units.utype(r).id == "res-pt" and r.loc.kind == "hex"
        ),
        key=lambda r: r.id,
    )


def spend_res_pt(g: Game, rp: Piece, rule: str, why: str) -> None:
    fn = provided("logistics", "expend")
    if fn is not None:
        fn(g, rp, rule, why)
        return
    from grognard.core.state import Loc

    g.state.move(rp.id, Loc.box("expended"))
    g.emit("res-pts", f"{rp.id} is spent ({why})", rule=rule, piece=rp.id)


def combat_supply_hq(g: Game, side: str, pieces: Sequence[Piece]) -> Piece | None:
    fn = provided("supply", "combat_supply_hq")
    return fn(g, side, list(pieces)) if fn is not None else None


def overland_line(g: Game, side: str, start: int, goal: int) -> bool:
    """OT 11B1: an overland supply line joins ``start`` and ``goal`` (used by OT 10E)."""
    fn = provided("supply", "overland_line")
    if fn is not None:
        return bool(fn(g, side, start, goal))
    dist = provided("supply", "overland_distances")
    ok = provided("supply", "overland_ok")
    if dist is not None and ok is not None:
        return bool(ok(g, dist(g, side, [goal], element="overland"), start, "overland"))
    from grognard.rulesets.greatwar import supply

    reach = supply.overland_reach(g, side, {goal})
    return supply.traces_to(g, start, reach)


def artillery_factors(
    g: Game, p: Piece, sit: Any, role: str
) -> list[tuple[Fraction, str, str]] | None:
    fn = provided("artillery", "combat_factors")
    if fn is None:
        return None
    return [(Fraction(f), str(r), str(why)) for f, r, why in fn(g, p, sit, role)]


def support_factor(g: Game, p: Piece, companions: Sequence[Piece], target: int) -> Fraction | None:
    """OT 12A (with OT 13D): the artillery rules' support multiplier (1, or 1/2 unsupported), or
    None if they do not provide it."""
    fn = provided("artillery", "support_strength")
    if fn is None:
        return None
    return Fraction(fn(g, p, Fraction(1), list(companions), target))


def artillery_ratio(
    g: Game, values: dict[str, Fraction], pieces: Sequence[Piece]
) -> tuple[list[str], Fraction] | None:
    """OT 12B: the artillery rules' choice of full-strength artillery: (ids, artillery total)."""
    fn = provided("artillery", "full_strength_choice")
    if fn is None:
        return None
    full, total = fn(g, values, list(pieces))
    return list(full), Fraction(total)


def engineer_factor(
    g: Game, p: Piece, target: int, role: str
) -> tuple[Fraction, str, str] | bool | None:
    """OT 13E/13F/13G: the engineer rules' strength factor; ``False`` if they do not provide one."""
    fn = provided("engineers", "strength_factor")
    if fn is None:
        return False
    out = fn(g, p, target, role)
    return None if out is None else (Fraction(out[0]), str(out[1]), str(out[2]))


def gec_allowed(p: Piece) -> bool:
    """OT 12C: gas artillery that attempted GEC in the bombardment segment may not in the combat."""
    fn = provided("artillery", "gec_allowed_in_combat")
    if fn is not None:
        return bool(fn(p))
    return "gec-in-bombardment" not in p.status
