"""Where the combat rules (OT 9-10) meet the rules that act inside a combat but belong elsewhere:
Rules 14-15 (``special_rules``, ``special_units``, ``leaders``), supply (``supply``, ``logistics``),
artillery (``artillery``) and engineers (``engineers``). The interface is documented in
``docs/rulesets/greatwar.md`` ("Combat interface of Rules 14 and 15" and "Combat (Rules 9-10):
what the combat module reads from other rules").

Each function here calls the function of the rule that decides (named in its docstring); the
combat procedure reads those rules only through this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar import special_rules
from grognard.rulesets.greatwar.combat import artillery
from grognard.rulesets.greatwar.logistics import engineers, logistics
from grognard.rulesets.greatwar.supply import supply
from grognard.rulesets.greatwar.units import leaders, special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game


def situation(
    g: Game,
    attackers: Sequence[Piece],
    defenders: Sequence[Piece],
    target: int,
    crt: str | None,
    reaction: bool,
) -> special_units.CombatSituation:
    """The combat situation object handed to the Rule 14-15 functions (``CombatSituation``)."""
    return special_units.CombatSituation(list(attackers), list(defenders), target, crt, reaction)


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
    if sit is not None:
        return bool(special_rules.capabilities(g, sit, role).infantry)
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
    if sit is not None:
        return bool(special_rules.capabilities(g, sit, role).mountain_infantry)
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
    if sit is not None:
        return bool(special_rules.capabilities(g, sit, "attack").rifle_assault)

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
    """Rule 14-15's checks of a declared attack (:func:`.special_rules.declaration_checks`)."""

    special_rules.declaration_checks(g, sit)


def crt_choice(g: Game, sit: Any) -> tuple[str, str | None] | None:
    """Rule 14-15's CRT choice (:func:`.special_rules.crt_choice`)."""

    crt, chooser = special_rules.crt_choice(g, sit)
    return str(crt), chooser


def mobile_column_cap(g: Game, sit: Any) -> int | None:

    return int(special_rules.mobile_column_cap(g, sit))


def effective_fortification(g: Game, sit: Any) -> Any:

    return special_rules.effective_fortification(g, sit)


def combat_drms(
    g: Game, sit: Any, attacker_hq: Piece | None, defender_hq: Piece | None
) -> Modifiers:

    out = special_rules.combat_drms(g, sit, attacker_hq=attacker_hq, defender_hq=defender_hq)
    return out if isinstance(out, Modifiers) else Modifiers()


def resource_center_check(g: Game, sit: Any) -> int:

    return int(special_rules.resource_center_check(g, sit))


def push_leader_step(g: Game, sit: Any) -> bool:

    return bool(leaders.push_leader_step(g, sit))


def leader_drm(g: Game) -> int:

    return int(leaders.leader_drm(g))


def push_flooding(g: Game, sit: Any) -> bool:

    return bool(special_rules.push_flooding(g, sit))


def flood_called_off(g: Game) -> bool:
    """OT 15A6: whether the attacker called the attack off after the hex was flooded."""

    return bool(special_rules.flood_outcome(g).get("called_off"))


def convert_result(g: Game, sit: Any, code: str) -> str | None:

    return str(special_rules.convert_result(g, sit, code))


def unit_factor(g: Game, p: Piece, sit: Any, role: str) -> Fraction | None:
    """Rule 14's factor on one unit's strength (14D1, 14L, 14C2, 14I2)."""
    if role == "attack":
        return Fraction(special_units.attack_factor(g, p, sit))
    return Fraction(special_units.defense_factor(g, p, sit))


def counts_as_supported(g: Game, p: Piece, sit: Any, role: str) -> bool | None:
    return bool(special_units.counts_as_supported(g, p, sit, role))


def combat_strength(g: Game, p: Piece, key: str) -> Fraction | None:
    return Fraction(special_units.combat_strength(g, p, key))


def loss_rules(g: Game, sit: Any, role: str) -> list[dict[str, Any]]:
    """Rule 14-15 loss constraints as dicts: ``pieces`` (ids), ``share`` or ``last``, ``rule``."""

    out = []
    for r in special_rules.loss_rules(
        g, sit, "attack" if role in ("attacker", "attack") else "defense"
    ):
        d = dict(r)
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
    why = special_units.irregular_attack_problem(
        g, list(attackers), ratio, mandatory=mandatory, strengths=strengths
    )
    return str(why) if why else None


def irregular_must_try_retreat(g: Game, p: Piece, ratio: Fraction, has_retreat_hex: bool) -> bool:
    """OT 14L: whether an irregular unit must try to retreat before this combat."""
    return bool(special_units.irregular_must_try_retreat(g, p, ratio, has_retreat_hex))


def irregular_failed_retreat(g: Game, p: Piece) -> None:
    special_units.irregular_failed_retreat(g, p)


def no_advance(g: Game, p: Piece) -> str | None:
    """Why Rule 14 bars a unit from advancing after combat (rail-only 14B1, water-only 14B2, Army
    HQs 14M), or None."""
    why = special_units.no_advance(g, p)
    return str(why) if why else None


def retreat_eliminates(g: Game, p: Piece) -> str | None:
    """Why a unit forced to retreat is eliminated instead under Rule 14 (14B1, 14B2, 14B3, 14D2,
    14O1), or None."""
    why = special_units.retreat_eliminates(g, p)
    return str(why) if why else None


def retreat_problem(g: Game, p: Piece, here: int, to: int) -> str | None:
    """Why Rule 14 forbids a unit this retreat step (14B1, 14D2), or None."""
    why = special_units.retreat_problem(g, p, here, to)
    return str(why) if why else None


# ============================================================================ supply and artillery
def combat_supplied(
    g: Game, side: str, pieces: Sequence[Piece], sit: Any, commit: bool = False
) -> set[str]:
    """OT 11D: the pieces in combat supply for this combat; with ``commit`` the supply rules record
    the Res Pts drawn on (once per side when the combat starts)."""

    if commit:
        return set(supply.commit_combat_supply(g, side, list(pieces)).supplied)
    return {
        str(x.id if isinstance(x, Piece) else x)
        for x in supply.combat_supplied(g, side, list(pieces), sit)
    }


def end_of_combat_segment(g: Game) -> None:
    """OT 11D: Res Pts that gave combat supply in the segment are removed at its end."""

    supply.end_of_segment(g, "combat")


def supply_factor(g: Game, p: Piece, in_combat_supply: bool) -> Fraction | None:
    """OT 11F: the supply rules' strength multiplier."""

    return Fraction(supply.strength_factor(g, p, in_combat_supply))


def depots(g: Game, side: str) -> list[tuple[int, bool]]:
    """Friendly supply depots (OT 11C1) as (hex, operational)."""

    out = []
    for d in logistics.depots(g, side):
        h = units.hex_of(g, d)
        if h is not None:
            out.append((h, bool(logistics.depot_operational(d))))
    return out


def res_pts(g: Game, side: str) -> list[Piece]:
    """Friendly Res Pts on the map (OT 11G)."""

    return sorted(
        (r for r in logistics.res_pts(g, side) if units.hex_of(g, r) is not None),
        key=lambda r: r.id,
    )


def spend_res_pt(g: Game, rp: Piece, rule: str, why: str) -> None:

    logistics.expend(g, rp, rule, why)


def combat_supply_hq(g: Game, side: str, pieces: Sequence[Piece]) -> Piece | None:

    return supply.combat_supply_hq(g, side, list(pieces))


def overland_line(g: Game, side: str, start: int, goal: int) -> bool:
    """OT 11B1: an overland supply line joins ``start`` and ``goal`` (used by OT 10E)."""

    return bool(supply.overland_line(g, side, start, goal))


def artillery_factors(
    g: Game, p: Piece, sit: Any, role: str
) -> list[tuple[Fraction, str, str]] | None:

    return [
        (Fraction(f), str(r), str(why)) for f, r, why in artillery.combat_factors(g, p, sit, role)
    ]


def support_factor(g: Game, p: Piece, companions: Sequence[Piece], target: int) -> Fraction | None:
    """OT 12A (with OT 13D): the artillery rules' support multiplier (1, or 1/2 unsupported)."""

    return Fraction(artillery.support_strength(g, p, Fraction(1), list(companions), target))


def artillery_ratio(
    g: Game, values: dict[str, Fraction], pieces: Sequence[Piece]
) -> tuple[list[str], Fraction] | None:
    """OT 12B: the artillery rules' choice of full-strength artillery: (ids, artillery total)."""

    full, total = artillery.full_strength_choice(g, values, list(pieces))
    return list(full), Fraction(total)


def engineer_factor(
    g: Game, p: Piece, target: int, role: str
) -> tuple[Fraction, str, str] | bool | None:
    """OT 13E/13F/13G: the engineer rules' strength factor."""

    out = engineers.strength_factor(g, p, target, role)
    return None if out is None else (Fraction(out[0]), str(out[1]), str(out[2]))


def gec_allowed(p: Piece) -> bool:
    """OT 12C: gas artillery that attempted GEC in the bombardment segment may not in the combat."""

    return bool(artillery.gec_allowed_in_combat(p))
