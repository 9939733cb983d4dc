"""OT 9C (combat results): what each code of the Mobile (9C1) and Positional (9C2) Ground CRTs asks
of each side -- losses, retreats, the optional retreat -- and the order in which the combat
procedure applies them with OT 9D (losses), 9F1 (declarations), 9F2-9F4 (retreats, advances).

Losses are in printed strengths (OT 9D): the attacker's total is the printed attack of the units
that attacked (long-range artillery firing at range left out, OT 12B7); the defender's the printed
defense of the units in the hex (overstacked units and units that retreated into it left out, OT
8C2, 9F2). "Half" means half or more. BX and BXM are named by OT 8C2, 9D and 14H1 but defined
nowhere: interpretation default (the rulebook's "B" for both) -- each side loses half its own total,
non-artillery first, nobody must retreat but the side with the larger loss may; BXM as BX, and the
defender must retreat (as DXM modifies DX).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.arith import fmt
from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar import calendar
from grognard.rulesets.greatwar.combat import combat_hooks
from grognard.rulesets.greatwar.combat.combat_strength import (
    Forces,
    forces,
    is_hq,
    printed_value,
)
from grognard.rulesets.greatwar.combat.losses import eliminate_in_combat, loss_params
from grognard.rulesets.greatwar.combat.retreat import (
    advance_params,
    advance_problem,
    advance_step_ok,
    heavy_siege_cannot_retreat,
    retreat_params,
)
from grognard.rulesets.greatwar.movement import stacking
from grognard.rulesets.greatwar.units import nations, units

if TYPE_CHECKING:
    from grognard.core.game import Game

ATTACKER, DEFENDER, WEAKER = "attacker", "defender", "weaker"


@dataclass(frozen=True)
class ResultSpec:
    """What a CRT result requires (OT 9C1, 9C2)."""

    first: str | None  # attacker, defender, weaker (HX/EX) or None
    amount: str  # all, half, quarter or "" (no loss)
    # mandated (a share of the first side's required loss), actual (of its loss), own (its own
    # total)
    second_basis: str = ""
    second_share: Fraction = Fraction(0)
    retreat: tuple[str, ...] = ()
    optional: bool = False
    nonart: bool = False
    rule: str = "OT 9C1"


HALF = Fraction(1, 2)
RESULTS: dict[str, ResultSpec] = {
    "AE": ResultSpec(ATTACKER, "all", retreat=(ATTACKER,)),
    "DE": ResultSpec(DEFENDER, "all", retreat=(DEFENDER,)),
    "AH": ResultSpec(ATTACKER, "half", retreat=(ATTACKER,)),
    "DH": ResultSpec(DEFENDER, "half", retreat=(DEFENDER,)),
    "AR": ResultSpec(None, "", retreat=(ATTACKER,)),
    "DR": ResultSpec(None, "", retreat=(DEFENDER,)),
    "AQ": ResultSpec(ATTACKER, "quarter"),
    "AS": ResultSpec(None, ""),
    "HX": ResultSpec(WEAKER, "all", "actual", HALF, retreat=(WEAKER,)),
    "EX": ResultSpec(WEAKER, "all", "actual", Fraction(1), retreat=(WEAKER,)),
    "AD": ResultSpec(ATTACKER, "all", retreat=(ATTACKER,), rule="OT 9C2"),
    "DD": ResultSpec(DEFENDER, "all", retreat=(DEFENDER,), rule="OT 9C2"),
    "AL": ResultSpec(
        ATTACKER,
        "half",
        "mandated",
        Fraction(1, 4),
        retreat=(ATTACKER,),
        nonart=True,
        rule="OT 9C2",
    ),
    "DL": ResultSpec(
        DEFENDER,
        "half",
        "mandated",
        Fraction(1, 4),
        retreat=(DEFENDER,),
        nonart=True,
        rule="OT 9C2",
    ),
    "AX": ResultSpec(ATTACKER, "half", "mandated", HALF, optional=True, nonart=True, rule="OT 9C2"),
    "DX": ResultSpec(DEFENDER, "half", "mandated", HALF, optional=True, nonart=True, rule="OT 9C2"),
    "DXM": ResultSpec(
        DEFENDER, "half", "mandated", Fraction(1), retreat=(DEFENDER,), nonart=True, rule="OT 9C2"
    ),
    "BX": ResultSpec(ATTACKER, "half", "own", HALF, optional=True, nonart=True, rule="OT 9C2"),
    "BXM": ResultSpec(
        ATTACKER, "half", "own", HALF, retreat=(DEFENDER,), nonart=True, rule="OT 9C2"
    ),
}
OVERSTACK_RESULTS = ("AX", "BX", "BXM", "DX", "DXM")
SAME_HEX_RETREAT = ("AQ", "AS", "AX")


def other(role: str) -> str:
    return DEFENDER if role == ATTACKER else ATTACKER


def affected(fo: Forces, role: str) -> list[Piece]:
    """The units a result applies to: the attackers (not long-range artillery at range, OT 12B7) or
    every unit in the attacked hex."""
    return list(fo.attackers) if role == ATTACKER else list(fo.defenders)


@implements("OT 9D")
def side_total(g: Game, fo: Forces, role: str) -> Fraction:
    """OT 9D: a side's total strength for losses and exchanges, in printed strengths."""
    if role == ATTACKER:
        return sum(
            (printed_value(g, p, "attack") for p in fo.attackers if not is_hq(p)), Fraction(0)
        )
    return sum((printed_value(g, p, "defense") for p in fo.counted), Fraction(0))


@implements("OT 9C1")
def weaker_side(g: Game, fo: Forces) -> str:
    """OT 9C1 (HX, EX): the side with the lower printed combat strength, the defender on a tie."""
    return ATTACKER if side_total(g, fo, ATTACKER) < side_total(g, fo, DEFENDER) else DEFENDER


def _loss_pool(g: Game, fo: Forces, role: str) -> list[str]:
    if role == ATTACKER:
        return [p.id for p in fo.attackers if not is_hq(p)]
    return [p.id for p in fo.counted]


def _share_rules(g: Game, rec: dict[str, Any], role: str) -> list[dict[str, Any]]:
    fo = forces(g, rec)
    sit = combat_hooks.situation(
        g, fo.participants, fo.defenders, fo.target, rec.get("crt"), rec["reaction"]
    )
    out = []
    for r in combat_hooks.loss_rules(g, sit, role):
        out.append(
            {
                "pieces": list(r["pieces"]),
                "share": Fraction(r.get("share") or 0),
                "last": bool(r.get("last", False)),
                "rule": str(r.get("rule", "")),
                "lost": Fraction(0),
            }
        )
    return out


def _overstack_factor(g: Game, rec: dict[str, Any], fo: Forces, role: str) -> Fraction:
    """OT 8C2: with overstacked units in an attack on the Positional CRT, AX, BX, BXM, DX and DXM
    cost the attacker one and a half times the normal loss."""
    if (
        role == ATTACKER
        and rec.get("crt") == "positional"
        and rec["result"] in OVERSTACK_RESULTS
        and any(stacking.OVERSTACKED in p.status for p in fo.attackers)
    ):
        return Fraction(3, 2)
    return Fraction(1)


def _eliminate_all(g: Game, rec: dict[str, Any], fo: Forces, role: str, rule: str) -> Fraction:
    """Eliminate every affected unit of a side (cadres and remnants stay, OT 9E); returns the
    loss."""
    counted = {p.id for p in (fo.attackers if role == ATTACKER else fo.counted)}
    vrole = "attack" if role == ATTACKER else "defense"
    lost = Fraction(0)
    for p in sorted(affected(fo, role), key=lambda q: q.id):
        if is_hq(p) or units.hex_of(g, p) is None:
            continue
        v = eliminate_in_combat(g, p, rule, f"{rec['result']} result", vrole)
        if p.id in counted:
            lost += v
    return lost


@implements("OT 9C", "OT 9C1", "OT 9C2", "OT 9D", "OT 10")
def start_losses(g: Game, rec: dict[str, Any], first: bool) -> None:
    """Apply the losses of the result ``rec["result"]``: the first side's (all units at once, or a
    ``combat-losses`` step), then (``first=False``) the other side's, whose amount may depend on the
    first side's required or actual loss."""
    spec = RESULTS[rec["result"]]
    if spec.first is None or not spec.amount:
        return
    fo = forces(g, rec)
    if first:
        role = weaker_side(g, fo) if spec.first == WEAKER else spec.first
        rec["first_role"] = role
        total = side_total(g, fo, role)
        if spec.amount == "all":
            rec["mandated"][role] = total
            lost = _eliminate_all(g, rec, fo, role, spec.rule)
            rec["lost"][role] = Fraction(rec["lost"].get(role, 0)) + lost
            g.emit(
                "loss", f"the {role} loses every unit ({fmt(lost)} strength points)", rule=spec.rule
            )
            return
        share = HALF if spec.amount == "half" else Fraction(1, 4)
        need = share * total
        rec["mandated"][role] = need
        need *= _overstack_factor(g, rec, fo, role)
        _push_losses(g, rec, fo, role, need, spec)
        return
    if not spec.second_basis:
        return
    role = other(rec["first_role"])
    if spec.second_basis == "mandated":
        need = spec.second_share * Fraction(rec["mandated"].get(rec["first_role"], 0))
    elif spec.second_basis == "actual":
        need = spec.second_share * Fraction(rec["lost"].get(rec["first_role"], 0))
    else:
        need = spec.second_share * side_total(g, fo, role)
    rec["mandated"][role] = need
    need *= _overstack_factor(g, rec, fo, role)
    _push_losses(g, rec, fo, role, need, spec)


def _push_losses(
    g: Game, rec: dict[str, Any], fo: Forces, role: str, need: Fraction, spec: ResultSpec
) -> None:
    if need <= 0:
        return
    side = rec[role]
    first_re = rec.get("effect_success", {}).get(role, {})
    g.emit(
        "loss",
        f"the {role} must lose at least {fmt(need)} strength points ({rec['result']})",
        rule=spec.rule,
        side=side,
        need=need,
    )
    g.push(
        "combat-losses",
        loss_params(
            side,
            role,
            need,
            _loss_pool(g, fo, role),
            spec.nonart,
            f"{rec['result']} result",
            spec.rule,
            first_re,
            _share_rules(g, rec, role),
        ),
    )


@implements("OT 9C2")
def optional_retreat_side(g: Game, rec: dict[str, Any]) -> str | None:
    """OT 9C2 (AX, DX, BX): the side that suffered the larger loss may retreat (actual strength
    points lost; nobody on a tie: interpretation default)."""
    spec = RESULTS[rec["result"]]
    if not spec.optional:
        return None
    la, ld = Fraction(rec["lost"].get(ATTACKER, 0)), Fraction(rec["lost"].get(DEFENDER, 0))
    if la == ld:
        return None
    role = ATTACKER if la > ld else DEFENDER
    fo = forces(g, rec)
    if not [p for p in affected(fo, role) if units.hex_of(g, p) is not None]:
        return None
    return role


def retreating_roles(g: Game, rec: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(roles that must retreat, roles retreating by choice)."""
    spec = RESULTS[rec["result"]]
    must = {rec.get("first_role", ATTACKER) if r == WEAKER else r for r in spec.retreat}
    chosen: set[str] = set()
    if rec["choices"].get("optional-retreat") == "retreat":
        chosen.add(str(optional_retreat_side(g, rec)))
    return must, chosen


def _can_advance_into(g: Game, rec: dict[str, Any], pieces: list[Piece], j: int) -> bool:
    for p in pieces:
        h = units.hex_of(g, p)
        if h is None or advance_problem(g, p, rec):
            continue
        if advance_step_ok(g, p, h, j, allow_overrun=True) is None:
            return True
    return False


@implements("OT 9F1", "OT 9F2", "OT 9K1", "OT 8C2", "OT 12B4")
def plan_retreats(g: Game, rec: dict[str, Any]) -> None:
    """Who retreats after the result, and which declarations of OT 9F1 are due.

    The defender's units retreat out of the attacked hex; the attackers out of each hex they
    attacked
    from (units that did not attack stay). A retreat that would leave a hex empty of the side's
    units
    needs the opponent's truthful declaration that he will advance a unit of the combat into it;
    if he declines (or none of his units could), that retreat is cancelled. Voluntary retreats and
    same-hex retreats (OT 9K1: attackers in the hex after AQ, AS or AX) need none. Overstacked
    attackers that must retreat are eliminated instead and their cadres retreat (OT 8C2); heavy
    siege artillery and units Rule 14 keeps from retreating are eliminated (OT 12B4; interpretation
    default for the elimination)."""

    fo = forces(g, rec)
    target = fo.target
    must, chosen = retreating_roles(g, rec)
    same_hex_att = [p for p in fo.attackers if units.hex_of(g, p) == target]
    if rec["result"] in SAME_HEX_RETREAT and same_hex_att:
        must.add("same-hex")
    groups: list[dict[str, Any]] = []
    rec["multi_hex"] = multi_hex(g, target, rec["result"])

    def prepare(ps: list[Piece], mandatory: bool) -> list[Piece]:
        out = []
        for p in ps:
            if units.hex_of(g, p) is None:
                continue
            if is_hq(p) and p not in fo.defenders:
                continue
            if mandatory and stacking.OVERSTACKED in p.status and p in fo.attackers:
                eliminate_in_combat(g, p, "OT 8C2", "attacked from an overstack and must retreat")
                if units.hex_of(g, p) is None:
                    continue
            if heavy_siege_cannot_retreat(p):
                eliminate_in_combat(
                    g, p, "OT 12B4", "heavy siege artillery may not retreat", totally=True
                )
                continue
            why = combat_hooks.retreat_eliminates(g, p)
            if why:
                eliminate_in_combat(g, p, "OT 9F2", why, totally=True)
                continue
            out.append(p)
        return out

    if DEFENDER in must or DEFENDER in chosen:
        ps = prepare([p for p in units.units_in_hex(g, target, rec["defender"])], DEFENDER in must)
        if ps:
            key = None
            decl = None
            if DEFENDER in must:
                key = f"advance:{rec['target']}"
                survivors = [
                    p
                    for p in fo.attackers
                    if units.hex_of(g, p) is not None and units.hex_of(g, p) != target
                ]
                if _can_advance_into(g, rec, survivors, target):
                    decl = rec["attacker"]
                else:
                    rec["choices"][key] = "decline"
            groups.append(
                {
                    "side": rec["defender"],
                    "key": key,
                    "decl": decl,
                    "hex": rec["target"],
                    "entries": [
                        {"piece": p.id, "origin": rec["target"], "at": rec["target"]} for p in ps
                    ],
                }
            )
    if ATTACKER in must or ATTACKER in chosen:
        mandatory = ATTACKER in must
        by_hex: dict[int, list[Piece]] = {}
        for p in fo.attackers:
            h = units.hex_of(g, p)
            if h is not None and h != target:
                by_hex.setdefault(h, []).append(p)
        for h, ps0 in sorted(by_hex.items()):
            ps = prepare(ps0, mandatory)
            if not ps:
                continue
            staying = [
                q
                for q in units.units_in_hex(g, h, rec["attacker"])
                if q.id not in {p.id for p in ps}
            ]
            key = None
            decl = None
            if mandatory and not staying:
                key = f"advance:{g.board.label(h)}"
                defs = [
                    g.state.pieces[i]
                    for i in rec.get("defenders_at_start", [])
                    if i in g.state.pieces
                ]
                defs = [p for p in defs if units.hex_of(g, p) == target]
                if _can_advance_into(g, rec, defs, h):
                    decl = rec["defender"]
                else:
                    rec["choices"][key] = "decline"
            groups.append(
                {
                    "side": rec["attacker"],
                    "key": key,
                    "decl": decl,
                    "hex": g.board.label(h),
                    "entries": [
                        {
                            "piece": p.id,
                            "origin": g.board.label(h),
                            "at": g.board.label(h),
                            "avoid": [rec["target"]],
                        }
                        for p in ps
                    ],
                }
            )
    if "same-hex" in must:
        ps = prepare([p for p in same_hex_att if units.hex_of(g, p) == target], True)
        if ps:
            groups.append(
                {
                    "side": rec["attacker"],
                    "key": None,
                    "decl": None,
                    "hex": rec["target"],
                    "entries": [
                        {"piece": p.id, "origin": rec["target"], "at": rec["target"]} for p in ps
                    ],
                }
            )
    rec["retreat_groups"] = groups


def next_declaration(rec: dict[str, Any]) -> dict[str, Any] | None:
    for grp in rec.get("retreat_groups", []):
        if grp["decl"] and grp["key"] not in rec["choices"]:
            return grp
    return None


@implements("OT 9F1", "OT 9F2")
def push_retreats(g: Game, rec: dict[str, Any], second: bool) -> None:
    """Push the retreat steps: the first hex (declined retreats cancelled, OT 9F1) or the second hex
    of an OT 9F4 retreat (units that retreated the first hex and are still in play)."""
    by_side: dict[str, list[dict[str, Any]]] = {}
    if not second:
        done = []
        for grp in rec.get("retreat_groups", []):
            if grp["key"] and rec["choices"].get(grp["key"]) == "decline":
                g.emit(
                    "retreat",
                    f"the retreat from {grp['hex']} is cancelled: the opponent declines to advance"
                    " (OT 9F1)",
                    rule="OT 9F1",
                )
                continue
            by_side.setdefault(grp["side"], []).extend(grp["entries"])
            done.extend(grp["entries"])
        rec["retreat_entries"] = done
    else:
        for e in rec.get("retreat_entries", []):
            p = g.state.pieces.get(e["piece"])
            h = units.hex_of(g, p) if p is not None else None
            if p is None or h is None or g.board.label(h) == e["origin"]:
                continue
            by_side.setdefault(p.side, []).append({**e, "at": g.board.label(h)})
    for side in (rec["defender"], rec["attacker"]):
        if by_side.get(side):
            g.push(
                "combat-retreat",
                retreat_params(side, by_side[side], rule="OT 9F4" if second else "OT 9F2"),
            )


@implements("OT 9F3", "OT 9F4", "OT 9F1")
def push_advances(g: Game, rec: dict[str, Any], second: bool) -> None:
    """Push the advance steps: after the retreats the attacker may advance into the attacked hex if
    the combat cleared it, the defender into hexes the attackers came from that are now clear of
    them; a declared advance must be made (OT 9F1). ``second``: the second advance of OT 9F4 by
    units that advanced the first time."""
    fo = forces(g, rec)
    target = fo.target
    if second:
        for side in (rec["attacker"], rec["defender"]):
            ids = [
                pid
                for pid in sorted(rec.get("advanced", {}))
                if pid in g.state.pieces
                and g.state.pieces[pid].side == side
                and units.hex_of(g, g.state.pieces[pid]) is not None
            ]
            if ids:
                g.push("combat-advance", advance_params(side, [{"units": ids}], second=True))
        return
    targets_def = []
    defs = [g.state.pieces[i] for i in rec.get("defenders_at_start", []) if i in g.state.pieces]
    defs = [p for p in defs if units.hex_of(g, p) == target]
    for lab in rec.get("sources", []):
        h = g.board.idx(lab)
        if h == target or units.units_in_hex(g, h, rec["attacker"]):
            continue
        key = f"advance:{lab}"
        if defs:
            targets_def.append(
                {
                    "to": lab,
                    "units": [p.id for p in defs],
                    "required": rec["choices"].get(key) == "advance",
                }
            )
    if not units.units_in_hex(g, target, rec["defender"]):
        ids = [
            p.id
            for p in fo.attackers
            if units.hex_of(g, p) is not None and units.hex_of(g, p) != target
        ]
        if ids:
            key = f"advance:{rec['target']}"
            g.push(
                "combat-advance",
                advance_params(
                    rec["attacker"],
                    [
                        {
                            "to": rec["target"],
                            "units": ids,
                            "required": rec["choices"].get(key) == "advance",
                        }
                    ],
                ),
            )
    if targets_def:
        g.push("combat-advance", advance_params(rec["defender"], targets_def))


MULTI_HEX_RESULTS = ("AE", "AH", "DH", "DE")


@implements("OT 9F4")
def multi_hex(g: Game, target: int, code: str) -> bool:
    """OT 9F4: AE, AH, DH and DE call for two-hex retreats and advances in the West Theater before
    Feb I 15 and in every other theater before Feb I 16 (a hex without a known theater counts as
    "other")."""
    if code not in MULTI_HEX_RESULTS:
        return False
    theater = nations.theater_of(g, target)
    return calendar.before(g, "Feb I 15" if theater == "West" else "Feb I 16")
