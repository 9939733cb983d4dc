"""OT 9 (combat) and the procedure of one attack (OT 9A), with OT 9B, 9F1, 9G1, 9I, 9K and the order
in which OT 10 and the results of OT 9C-9F are applied.

**The combat segment** (step ``combat-segment``, frame params ``attacker``, ``defender``,
``reaction``) is the combat segment of the combat phase and of the reaction combat phase (OT 4A3,
4A5). The attacker declares attacks one at a time, in any order, and ends the segment when he
wishes (not while a same-hex attack is still due, OT 9K)::

    {"type": "attack", "side": ..., "target": "0405", "attackers": ["f1", "f2"], "crt":
    "positional"}

``attackers`` are units next to the target (or in it, OT 9K) and long-range artillery within range
(OT 12B7); ``crt`` only where the attacker may choose (OT 9A exception B). In the reaction combat
phase only units in the zone of influence of an active Army HQs of their own nationality attack
(OT 4A5, 14M), except in a same-hex combat.

**The attack** is the automatic step ``combat`` (its frame params are the combat record) which
pushes the decisions of both sides as steps of their own:

1. the CRT (OT 9A step 1), chosen by the defender where exception B lets him (``combat-choice``);
2. retreat before combat (OT 9I, ``retreat-before-combat``); OT 9G1 defenders without strength;
3. the attack total; on the Positional CRT the defender's reserve commitment (OT 6C,
   ``reserve-commitment``); the defense total; the base odds (OT 9A steps 2-4, 6);
4. special combat effects: the attacker's announcements, then the defender's (``combat-effects``),
   then the rolls (OT 10); incremental odds at the attacker's option (OT 9L);
5. the combat roll with every modifier and shift (OT 9A step 7, 9B) and the result (OT 9C);
6. losses (OT 9D/9E, ``combat-losses``), the optional retreat after AX/DX/BX (OT 9C2),
   declarations (OT 9F1, ``combat-choice``), retreats (OT 9F2, ``combat-retreat``), advances (OT
   9F3, ``combat-advance``), the second hex of OT 9F4, contested hexes (OT 9J), and the elimination
   of HQs left alone (OT 9D).

:meth:`GreatWar.preview` shows, for a declared attack, the totals with every modifier, the odds,
the shifts and modifiers and the exact distribution of results (:func:`preview_attack`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.arith import fmt
from grognard.core.errors import IllegalAction
from grognard.core.procedure import Goto, Procedure, stage
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.greatwar.combat import combat_hexes, combat_hooks
from grognard.rulesets.greatwar.combat.combat_data import MOBILE, POSITIONAL
from grognard.rulesets.greatwar.combat.combat_results import (
    next_declaration,
    optional_retreat_side,
    plan_retreats,
    push_advances,
    push_retreats,
    start_losses,
)
from grognard.rulesets.greatwar.combat.combat_strength import (
    Calc,
    compute,
    crt_choice,
    forces,
    incremental_eligible,
    incremental_level,
    is_hq,
    long_range,
    printed_value,
    uses_modern_tactics,
)
from grognard.rulesets.greatwar.combat.effects import resolve_attempts
from grognard.rulesets.greatwar.combat.losses import combat_frame, eliminate_in_combat
from grognard.rulesets.greatwar.combat.retreat import (
    advance_params,
    retreat_options,
    retreat_params,
)
from grognard.rulesets.greatwar.logistics import replacements
from grognard.rulesets.greatwar.map import geography, terrain, zoc
from grognard.rulesets.greatwar.map.weather import weather_at
from grognard.rulesets.greatwar.mechanics import gw_view, table_roll
from grognard.rulesets.greatwar.movement import stacking
from grognard.rulesets.greatwar.step import GWStep
from grognard.rulesets.greatwar.units import nations, special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game

__all__ = ["Combat", "CombatSegment", "uses_modern_tactics"]


# ========================================================== eligibility (OT 9B, 9G1, 9K, 12B7, 14M)
def segment_of(g: Game) -> Frame | None:
    for f in reversed(g.state.frames):
        if f.step == "combat-segment":
            return f
    return None


def _phase_index(phase: str) -> int:
    return combat_hexes.PHASE_ORDER.index(phase) if phase in combat_hexes.PHASE_ORDER else 0


@implements("OT 8C2")
def overstack_may_attack(g: Game, p: Piece, reaction: bool) -> bool:
    """OT 8C2: to attack out of an overstack a unit must have been in it for the whole preceding
    movement (or reaction movement) phase."""
    if stacking.OVERSTACKED not in p.status:
        return True
    since = str(p.attrs.get("overstacked_since", ""))
    try:
        t, side, phase = since.split(":", 2)
    except ValueError:
        return True
    now_turn = int(g.state.turn.get("index", 0))
    phasing = str(gw_view(g).get("phasing", ""))
    need_before = _phase_index("reaction-movement" if reaction else "movement")
    if int(t) != now_turn or side != phasing:
        return True
    return _phase_index(phase) < need_before


@implements("OT 4A5")
def in_active_zoi(g: Game, p: Piece) -> bool:
    """OT 4A5/14M: in the reaction combat phase only units in the zone of influence of an active
    Army HQs (covering their nationality) attack."""
    hqs = g.cached(
        f"gw:army-hqs:{p.side}",
        lambda: [hq for hq in special_units.army_hqs(g, p.side) if special_units.hq_active(hq)],
    )
    return any(special_units.in_zoi(g, hq, p) for hq in hqs)


def due_same_hex(g: Game, seg: Frame) -> list[int]:
    """OT 9K: hexes where a same-hex attack is still due and can be made (some unit there may attack
    the enemy units in the hex, and not all of them were attacked already)."""
    side = seg.params["attacker"]
    out = []
    for h in combat_hexes.mandatory_attacks(g, side, seg.params.get("attacked", [])):
        if target_problem(g, seg, h):
            continue
        if any(attacker_problem(g, seg, p, h) is None for p in units.units_in_hex(g, h, side)):
            out.append(h)
    return out


def _mandatory_hex(g: Game, seg: Frame, p: Piece) -> int | None:
    """The hex of ``p`` if the unit must attack the enemy units there (OT 9K)."""
    h = units.hex_of(g, p)
    if h is None or h not in combat_hexes.mandatory_attacks(
        g, p.side, seg.params.get("attacked", [])
    ):
        return None
    if target_problem(g, seg, h) or attacker_problem(g, seg, p, h):
        return None
    return h


@implements("OT 9B", "OT 9G1", "OT 9K", "OT 9K2", "OT 12B7")
def attacker_problem(g: Game, seg: Frame, p: Piece, target: int) -> str | None:
    """Why ``p`` may not attack ``target`` now (OT 9B, 9K, 9K2, 12B7, 14M, 8C2, 3F), or None."""
    side = seg.params["attacker"]
    if p.side != side or not units.is_unit(p):
        return f"{p.id} is not a unit of {side}"
    h = units.hex_of(g, p)
    if h is None:
        return f"{p.id} is not on the map"
    if is_hq(p):
        return f"{p.id} is a headquarters and does not attack"
    if p.id in seg.params.get("attacked", []):
        return f"{p.id} has already attacked this phase (OT 9B)"
    if p.id in seg.params.get("called_off", []):
        return f"{p.id} was committed to an attack that was called off (OT 15A6)"
    same = h == target
    adjacent = geography.adjacent(g, h, target)
    ranged = not same and not adjacent and 2 <= g.board.distance(h, target) <= long_range(p)
    if not (same or adjacent or ranged):
        return f"{p.id} is not next to {g.board.label(target)} (OT 9A)"
    if combat_hexes.besieged(g, p) and not same:
        return f"{p.id} is besieged and attacks only the sieging units in its hex (OT 9K2)"
    if not same:
        mh = _mandatory_hex(g, seg, p)
        if mh is not None:
            return f"{p.id} must attack the enemy units in its own hex (OT 9K)"
    if seg.params.get("reaction") and not same and not in_active_zoi(g, p):
        return f"{p.id} is not in the zone of influence of an active Army HQs (OT 14M)"
    if not overstack_may_attack(g, p, bool(seg.params.get("reaction"))):
        return f"{p.id} was not overstacked for the whole preceding movement phase (OT 8C2)"
    if adjacent and not ranged:
        tags = special_units.movement_tags(g, p)
        if terrain.hex_entry_cost(g, p, target, tags) is None:
            return f"{p.id} may not attack into prohibited terrain (OT 9B)"
        if terrain.hexside_cost(g, p, g.board.side_between(h, target), target, tags) is None:
            return f"{p.id} may not attack across a prohibited hexside (OT 9B)"
    return None


def is_ranged(g: Game, p: Piece, target: int) -> bool:
    h = units.hex_of(g, p)
    return h is not None and h != target and not geography.adjacent(g, h, target)


def _defenders(g: Game, seg: Frame, target: int) -> list[Piece]:
    return units.units_in_hex(g, target, seg.params["defender"])


def target_problem(g: Game, seg: Frame, target: int) -> str | None:
    """OT 9B: an attack needs enemy units in the hex, not all of them attacked already this phase;
    OT 3F: hexes outside the side's commands may not be attacked."""
    defs = _defenders(g, seg, target)
    if not defs:
        return f"there are no enemy units in {g.board.label(target)}"
    done = set(seg.params.get("defended", []))
    if all(p.id in done for p in defs):
        return f"every unit in {g.board.label(target)} has already been attacked this phase (OT 9B)"
    if not nations.may_enter_command(g, seg.params["attacker"], target):
        return (
            f"{g.board.label(target)} is outside the commands {seg.params['attacker']} controls"
            " (OT 3F)"
        )
    return None


@implements("OT 9B", "OT 8B", "OT 8C2")
def group_problem(g: Game, seg: Frame, pieces: Sequence[Piece], target: int) -> str | None:
    """OT 9B/8B: per hex the attackers may not exceed the stacking limit of the attacked hex (an
    overstack: the limit of its own hex, OT 8C2); long-range artillery at range needs an attacker
    next to the hex (OT 12B7); a unit with no attack strength cannot attack alone (OT 9G1); a
    same-hex attack includes every unit of the hex up to its limit (OT 9K)."""
    by_hex: dict[int, list[Piece]] = {}
    near = []
    for p in pieces:
        h = units.hex_of(g, p)
        assert h is not None
        if is_ranged(g, p, target):
            continue
        near.append(p)
        by_hex.setdefault(h, []).append(p)
    if not near:
        return "long-range artillery may not attack alone (OT 12B7)"
    for h, ps in by_hex.items():
        normal = [p for p in ps if stacking.OVERSTACKED not in p.status]
        over = [p for p in ps if stacking.OVERSTACKED in p.status]
        if normal and not stacking.attack_stack_ok(g, normal, target):
            return (
                f"more units than the stacking limit of {g.board.label(target)} attack from"
                f" {g.board.label(h)} (OT 8B)"
            )
        if over and not stacking.fits(g, over, stacking.limit_for(g, h)):
            return (
                f"more overstacked units than the stacking limit of {g.board.label(h)} attack from"
                " it (OT 8C2)"
            )
    same = by_hex.get(target, [])
    if target in due_same_hex(g, seg):
        ids = {p.id for p in same}
        for q in units.units_in_hex(g, target, seg.params["attacker"]):
            if q.id in ids or attacker_problem(g, seg, q, target):
                continue
            if stacking.attack_stack_ok(g, [*same, q], target):
                return (
                    f"every unit in {g.board.label(target)} must join the same-hex attack, {q.id}"
                    " too (OT 9K)"
                )
        return None
    if not any(
        printed_value(g, p, "attack") * units.disruption_factors(p)["attack"] > 0 for p in near
    ):
        return "units without attack strength may not attack by themselves (OT 9G1)"
    return None


@implements("OT 9I")
def retreat_before_combat_eligible(g: Game, p: Piece) -> bool:
    """OT 9I: c/m and cavalry units with printed MA 7 or 8, irregular units, and over-snow units
    with printed MA 7 or 8 in snow weather may try to retreat before combat."""

    ma = units.printed_ma_number(p)
    tags = special_units.movement_tags(g, p)
    if (units.is_cm(p) or "cavalry" in tags) and ma in (7, 8):
        return True
    if "irregular" in tags:
        return True
    h = units.hex_of(g, p)
    return "over-snow" in tags and ma in (7, 8) and h is not None and weather_at(g, h) == "snow"


# ============================================================================ the combat record
def new_record(g: Game, seg: Frame, action: Action) -> dict[str, Any]:
    target = g.board.idx(action["target"])
    pieces = [g.state.pieces[i] for i in action["attackers"]]
    ranged = [p.id for p in pieces if is_ranged(g, p, target)]
    defs = _defenders(g, seg, target)
    crt, chooser, why = crt_choice(
        g, target, [p for p in pieces if p.id not in ranged], defs, bool(seg.params.get("reaction"))
    )
    rec: dict[str, Any] = {
        "attacker": seg.params["attacker"],
        "defender": seg.params["defender"],
        "reaction": bool(seg.params.get("reaction")),
        "target": action["target"],
        "attackers": list(action["attackers"]),
        "ranged": ranged,
        "crt": (
            action.get("crt")
            if chooser == seg.params["attacker"]
            else (crt if chooser is None else None)
        ),
        "crt_chooser": chooser,
        "crt_reason": why,
        "stage": "declared",
        "defenders_at_start": [p.id for p in defs],
        "retreated_in": list(seg.params.get("retreated_in", [])),
        "sources": sorted(
            {g.board.label(units.hex_of(g, p)) for p in pieces if p.id not in ranged}  # type: ignore[arg-type]
        ),
        "choices": {},
        "lost": {},
        "mandated": {},
    }
    return rec


def check_attack(g: Game, seg: Frame, action: Action) -> None:
    """OT 9A/9B: refuse an attack declaration that breaks a rule (nothing changes)."""
    t = action.get("target")
    if not isinstance(t, str) or not g.board.has_label(t):
        raise IllegalAction("OT 9A", f"no hex {t!r} on the map")
    target = g.board.idx(t)
    why = target_problem(g, seg, target)
    if why:
        raise IllegalAction("OT 9B", why)
    ids = action.get("attackers")
    if not isinstance(ids, list) or not ids or len(set(ids)) != len(ids):
        raise IllegalAction("OT 9A", "name the attacking units in 'attackers' (each once)")
    pieces = []
    for pid in ids:
        p = g.state.pieces.get(pid) if isinstance(pid, str) else None
        if p is None:
            raise IllegalAction("OT 9A", f"no unit {pid!r}")
        why = attacker_problem(g, seg, p, target)
        if why:
            rule = (
                why[why.rindex("(OT ") + 1 : -1] if why.endswith(")") and "(OT " in why else "OT 9A"
            )
            raise IllegalAction(rule, why)
        pieces.append(p)
    why = group_problem(g, seg, pieces, target)
    if why:
        rule = why[why.rindex("(OT ") + 1 : -1] if why.endswith(")") and "(OT " in why else "OT 9B"
        raise IllegalAction(rule, why)
    rec = new_record(g, seg, action)
    chooser = rec["crt_chooser"]
    crt = action.get("crt")
    if chooser == seg.params["attacker"]:
        if crt not in (MOBILE, POSITIONAL):
            raise IllegalAction(
                "OT 9A",
                "the attacker chooses the CRT here (exception B): give 'crt' = 'mobile' or"
                " 'positional'",
            )
    elif crt is not None and chooser is None and crt != rec["crt"]:
        raise IllegalAction(
            "OT 9A", f"this attack is resolved on the {rec['crt']} CRT ({rec['crt_reason']})"
        )
    elif crt is not None and chooser is not None:
        raise IllegalAction("OT 9A", "the defender chooses the CRT for this attack (exception B)")
    why = irregular_problem(g, seg, pieces, target, rec)
    if why:
        raise IllegalAction("OT 14L", why)


def irregular_problem(
    g: Game, seg: Frame, pieces: Sequence[Piece], target: int, rec: dict[str, Any] | None = None
) -> str | None:
    """OT 14L (Rule 14's test): irregular units may not attack voluntarily at low odds unless
    regular units give enough of the strength."""
    if not any("irregular" in special_units.base_tags(p) for p in pieces):
        return None
    if rec is None:
        rec = new_record(
            g,
            seg,
            {
                "type": "attack",
                "side": seg.params["attacker"],
                "target": g.board.label(target),
                "attackers": [p.id for p in pieces],
            },
        )
    calc = compute(g, {**rec, "crt": rec["crt"] or POSITIONAL})
    mandatory = target in due_same_hex(g, seg)
    return combat_hooks.irregular_attack_problem(
        g,
        pieces,
        calc.ratio or Fraction(0),
        mandatory,
        {ln.piece: ln.value for ln in calc.attack_lines},
    )


# ============================================================================ the combat segment
@implements("OT 9", "OT 9A", "OT 9B", "OT 9K")
class CombatSegment(GWStep):
    """OT 9: the combat segment of a combat or reaction combat phase (see the module docstring)."""

    name = "combat-segment"
    title = "Combat segment"
    rule = "OT 9"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["attacker"]]

    def label(self, g: Game, f: Frame) -> str:
        kind = "reaction combat" if f.params.get("reaction") else "combat"
        return f"Combat segment of the {kind} phase ({f.params['attacker']} attacks)"

    def _eligible_by_hex(self, g: Game, f: Frame) -> dict[int, list[Piece]]:
        side = f.params["attacker"]
        done = set(f.params.get("attacked", []))
        out: dict[int, list[Piece]] = {}
        for p in units.on_map_units(g, side):
            if p.id in done or is_hq(p):
                continue
            h = units.hex_of(g, p)
            if h is not None:
                out.setdefault(h, []).append(p)
        return out

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        """One attack per target hex with every eligible unit (the most a source hex may send), and
        one per source hex alone; the attacker's CRT choice where he has one; ending the segment
        (not while a same-hex attack is due)."""
        enemy = f.params["defender"]
        by_hex = self._eligible_by_hex(g, f)
        targets: set[int] = set()
        for h in by_hex:
            if units.units_in_hex(g, h, enemy):
                targets.add(h)
            for j in g.board.neighbors(h):
                if units.units_in_hex(g, j, enemy):
                    targets.add(j)
        rangers = [p for ps in by_hex.values() for p in ps if long_range(p)]
        out: list[Action] = []
        for t in sorted(targets):
            if target_problem(g, f, t):
                continue
            groups: list[list[Piece]] = []
            per_source: list[list[Piece]] = []
            for h in sorted([t, *g.board.neighbors(t)]):
                ps = [p for p in by_hex.get(h, []) if attacker_problem(g, f, p, t) is None]
                if not ps:
                    continue
                normal = sorted(
                    (p for p in ps if stacking.OVERSTACKED not in p.status),
                    key=lambda p: (-printed_value(g, p, "attack"), p.id),
                )
                while normal and not stacking.attack_stack_ok(g, normal, t):
                    normal.pop()
                over = sorted(
                    (p for p in ps if stacking.OVERSTACKED in p.status),
                    key=lambda p: (-printed_value(g, p, "attack"), p.id),
                )
                while over and not stacking.fits(g, over, stacking.limit_for(g, h)):
                    over.pop()
                if normal or over:
                    per_source.append(normal + over)
            if not per_source:
                continue
            everyone = [p for grp in per_source for p in grp]
            ranged = [
                p
                for p in rangers
                if p not in everyone and attacker_problem(g, f, p, t) is None and is_ranged(g, p, t)
            ]
            groups.append(everyone + ranged)
            if len(per_source) > 1:
                groups.extend(per_source)
            for grp in groups:
                if group_problem(g, f, grp, t) or irregular_problem(g, f, grp, t):
                    continue
                a: Action = {
                    "type": "attack",
                    "side": side,
                    "target": g.board.label(t),
                    "attackers": [p.id for p in grp],
                }
                chooser = None
                if (
                    terrain.crt_for_hex(g, t) == POSITIONAL
                ):  # OT 9A exception B arises in mountain hexes only
                    pieces_near = [p for p in grp if not is_ranged(g, p, t)]
                    _, chooser, _ = crt_choice(
                        g, t, pieces_near, _defenders(g, f, t), bool(f.params.get("reaction"))
                    )
                if chooser == side:
                    out.extend({**a, "crt": c} for c in (MOBILE, POSITIONAL))
                else:
                    out.append(a)
        if not due_same_hex(g, f):
            out.append({"type": "end-phase", "side": side})
        return out

    @handles.check("end-phase")
    def check_end(self, g: Game, f: Frame, action: Action) -> None:
        """OT 9K: not while a same-hex attack is still due."""
        due = due_same_hex(g, f)
        if due:
            raise IllegalAction(
                "OT 9K",
                f"the units in {', '.join(g.board.label(h) for h in due)} must attack the enemy"
                " units in their hex first",
            )

    @handles.apply("end-phase")
    def apply_end(self, g: Game, f: Frame, action: Action) -> None:
        end_segment(g, f)

    @handles.check("attack")
    def check_declared_attack(self, g: Game, f: Frame, action: Action) -> None:
        """OT 9A: the attack is one the attacker may declare (:func:`check_attack`)."""
        check_attack(g, f, action)

    @handles.apply("attack")
    def apply_attack(self, g: Game, f: Frame, action: Action) -> None:
        rec = new_record(g, f, action)
        g.emit(
            "attack",
            f"{action['side']} attacks {action['target']} with {', '.join(action['attackers'])}",
            rule="OT 9A",
            target=action["target"],
            attackers=action["attackers"],
        )
        g.push("combat", rec)


@implements("OT 9", "OT 12C")
def end_segment(g: Game, f: Frame) -> None:
    """End the combat segment: units lose the bombardment halving (OT 12C: it lasts the following
    combat segment only)."""
    for p in g.state.pieces.values():
        p.status.discard("bombarded")
    g.emit("segment", f"{f.params['attacker']} ends the combat segment", rule="OT 9")
    g.finish(f)


# ============================================================================ a choice of one side
class CombatChoice(GWStep):
    """A decision one side makes during a combat: the CRT (OT 9A exception B), incremental odds (OT
    9L), an optional retreat (OT 9C2 AX/DX/BX), a declaration of advance (OT 9F1). Frame params:
    ``side``, ``key``, ``options``, ``prompt``, ``rule``; the choice goes to the combat record's
    ``choices``."""

    name = "combat-choice"
    title = "Combat decision"
    rule = "OT 9A"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: {f.params['prompt']}"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return [
            {"type": "choose", "side": side, "key": f.params["key"], "choice": c}
            for c in f.params["options"]
        ]

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction(
            f.params.get("rule", "OT 9A"),
            f"{f.params['side']} must first decide: {f.params['prompt']}",
        )

    @handles.check("choose")
    def check_choose(self, g: Game, f: Frame, action: Action) -> None:
        rule = f.params.get("rule", "OT 9A")
        if action.get("choice") not in f.params["options"]:
            raise IllegalAction(
                rule, f"{action.get('choice')!r} is not one of {f.params['options']}"
            )

    @handles.apply("choose")
    def apply_choose(self, g: Game, f: Frame, action: Action) -> None:
        cf = combat_frame(g)
        if cf is not None:
            cf.params.setdefault("choices", {})[f.params["key"]] = action["choice"]
        g.emit(
            "decision",
            f"{action['side']} decides {f.params['key']}: {action['choice']}",
            rule=f.params.get("rule", "OT 9A"),
            key=f.params["key"],
            choice=action["choice"],
        )
        g.finish(f)


def push_choice(
    g: Game, side: str, key: str, options: Sequence[Any], prompt: str, rule: str
) -> None:
    g.push(
        "combat-choice",
        {"side": side, "key": key, "options": list(options), "prompt": prompt, "rule": rule},
    )


# ==================================================================== retreat before combat (OT 9I)
@implements("OT 9I")
class RetreatBeforeCombat(GWStep):
    """OT 9I: with the attacking forces committed, the defender chooses which eligible units try to
    retreat; each rolls on the Ground Success Table without modifiers; a unit that succeeds
    retreats by OT 9F2 (``combat-retreat``). Irregular units must try (OT 14L, when the rule says
    so). Frame params ``side``, ``target``, ``eligible``, ``tried``."""

    name = "retreat-before-combat"
    title = "Retreat before combat"
    rule = "OT 9I"

    def label(self, g: Game, f: Frame) -> str:
        return f"Retreat before combat from {f.params['target']} ({f.params['side']})"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [] if f.done or not self._untried(g, f) else [f.params["side"]]

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    def _untried(self, g: Game, f: Frame) -> list[Piece]:
        target = g.board.idx(f.params["target"])
        here = {p.id for p in units.units_in_hex(g, target)}
        return [
            g.state.pieces[i]
            for i in f.params["eligible"]
            if i not in f.params["tried"] and i in here
        ]

    def _must(self, g: Game, f: Frame) -> list[Piece]:

        target = g.board.idx(f.params["target"])
        ratio = Fraction(f.params.get("ratio", 0))
        return [
            p
            for p in self._untried(g, f)
            if combat_hooks.irregular_must_try_retreat(
                g, p, ratio, bool(retreat_options(g, p, target, target))
            )
        ]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = [
            {"type": "retreat-attempt", "side": side, "piece": p.id} for p in self._untried(g, f)
        ]
        if not self._must(g, f):
            out.append({"type": "done", "side": side})
        return out

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction(
            "OT 9I", f"{action['type']!r} is not allowed during retreat before combat"
        )

    @handles.check("done")
    def check_done(self, g: Game, f: Frame, action: Action) -> None:
        if self._must(g, f):
            raise IllegalAction("OT 14L", "irregular units must try to retreat before combat")

    @handles.apply("done")
    def apply_done(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.check("retreat-attempt")
    def check_attempt(self, g: Game, f: Frame, action: Action) -> None:
        if action.get("piece") not in [p.id for p in self._untried(g, f)]:
            raise IllegalAction(
                "OT 9I", f"{action.get('piece')!r} may not try to retreat before this combat"
            )

    @handles.apply("retreat-attempt")
    def apply_attempt(self, g: Game, f: Frame, action: Action) -> None:

        p = g.state.pieces[action["piece"]]
        mandatory = p in self._must(g, f)
        f.params["tried"].append(p.id)
        res = table_roll(g, "gst", "standard", f"retreat before combat of {p.id}", "OT 9I")
        ok = str(res.result).startswith("S")
        g.emit(
            "retreat-attempt",
            f"{p.id} {'retreats before combat' if ok else 'fails to retreat before combat'}"
            f" ({res.result})",
            rule="OT 9I",
            piece=p.id,
        )
        if ok:
            t = f.params["target"]
            g.push(
                "combat-retreat",
                retreat_params(p.side, [{"piece": p.id, "origin": t, "at": t}], rule="OT 9I"),
            )
        elif mandatory:
            combat_hooks.irregular_failed_retreat(g, p)
        if not self._untried(g, f):
            g.finish(f)


# ============================================================================ the attack


@implements("OT 9", "OT 9A", "OT 9B", "OT 9C", "OT 9F", "OT 9F1", "OT 9G1", "OT 9K1")
class Combat(Procedure):
    """OT 9A: one attack from declaration to the end of movement after combat (see the module
    docstring). Automatic: it pushes the steps in which the sides decide."""

    name = "combat"
    title = "Combat"
    rule = "OT 9A"

    def label(self, g: Game, f: Frame) -> str:
        return f"Attack on {f.params['target']} ({f.params['attacker']})"

    # ------------------------------------------------------------------ helpers
    def _sit(self, g: Game, f: Frame) -> Any:
        fo = forces(g, f.params)
        return combat_hooks.situation(
            g, fo.participants, fo.defenders, fo.target, f.params.get("crt"), f.params["reaction"]
        )

    def _target(self, g: Game, f: Frame) -> int:
        return g.board.idx(f.params["target"])

    # ------------------------------------------------------------------ stages
    @stage
    def declared(self, g: Game, f: Frame) -> None:
        sit = self._sit(g, f)
        combat_hooks.declaration_checks(g, sit)
        combat_hooks.push_flooding(g, sit)

    @stage
    def flood(self, g: Game, f: Frame) -> None:
        if combat_hooks.flood_called_off(g):
            seg = segment_of(g)
            if seg is not None:
                seg.params.setdefault("called_off", []).extend(f.params["attackers"])
            g.emit(
                "combat",
                f"the attack on {f.params['target']} is called off (flooding)",
                rule="OT 15A6",
            )
            g.finish(f)

    @stage
    def crt(self, g: Game, f: Frame) -> None:
        if f.params.get("crt") is None:
            chooser = f.params.get("crt_chooser") or f.params["defender"]
            push_choice(
                g,
                chooser,
                "crt",
                (MOBILE, POSITIONAL),
                "choose the CRT (mountain hex, OT 9A exception B)",
                "OT 9A",
            )

    @stage
    def rbc(self, g: Game, f: Frame) -> None:
        if f.params.get("crt") is None:
            f.params["crt"] = f.params["choices"].get("crt", POSITIONAL)
        g.emit(
            "combat",
            f"the attack on {f.params['target']} uses the {f.params['crt']} CRT"
            f" ({f.params.get('crt_reason')})",
            rule="OT 9A",
        )
        target = self._target(g, f)
        elig = [
            p.id
            for p in units.units_in_hex(g, target, f.params["defender"])
            if retreat_before_combat_eligible(g, p)
            and not combat_hexes.besieged(g, p)
            and not is_hq(p)
        ]
        if elig:
            calc = compute(g, f.params)
            g.push(
                "retreat-before-combat",
                {
                    "side": f.params["defender"],
                    "target": f.params["target"],
                    "eligible": elig,
                    "tried": [],
                    "ratio": calc.ratio if calc.ratio is not None else Fraction(0),
                },
            )

    @stage
    def zero(self, g: Game, f: Frame) -> Goto | None:
        """OT 9G1 / 9K1 / 9I: defenders gone or without strength; attackers without strength in a
        same-hex combat."""
        target = self._target(g, f)
        fo = forces(g, f.params)
        if not [p for p in fo.defenders if not is_hq(p)]:
            for p in sorted(
                fo.defenders, key=lambda q: q.id
            ):  # headquarters alone: no defense strength (OT 9G1)
                units.eliminate(g, p, "OT 9G1", "no defense strength when attacked")
            g.emit("combat", f"no defending unit remains in {f.params['target']}", rule="OT 9I")
            return self._free_advance(g, f)
        if fo.same_hex and not any(
            printed_value(g, p, "attack") * units.disruption_factors(p)["attack"] > 0
            for p in fo.attackers
        ):
            for p in list(fo.attackers):
                eliminate_in_combat(g, p, "OT 9K1", "same-hex attack without attack strength")
            return self.goto(f, "cleanup")
        def_ok = [
            p
            for p in fo.counted
            if printed_value(g, p, "defense") * units.disruption_factors(p)["defense"] > 0
        ]
        if not def_ok:
            for p in sorted(fo.defenders, key=lambda q: q.id):
                if units.hex_of(g, p) == target:
                    eliminate_in_combat(g, p, "OT 9G1", "no defense strength when attacked")
            return self._free_advance(g, f)
        return None

    def _free_advance(self, g: Game, f: Frame) -> Goto:
        """OT 9I / 9G1: no defender is left: the attackers may advance, then the combat ends."""

        target = self._target(g, f)
        if units.units_in_hex(g, target, f.params["defender"]):
            return self.goto(f, "cleanup")
        fo = forces(g, f.params)
        ids = [p.id for p in fo.attackers if units.hex_of(g, p) != target]
        if ids:
            g.push(
                "combat-advance",
                advance_params(f.params["attacker"], [{"to": f.params["target"], "units": ids}]),
            )
        return self.goto(f, "cleanup")

    @stage
    def reserves(self, g: Game, f: Frame) -> None:
        fo = forces(g, f.params)
        sit = self._sit(g, f)
        f.params.setdefault("combat_supply", {})[f.params["attacker"]] = sorted(
            combat_hooks.combat_supplied(g, f.params["attacker"], fo.participants, sit, commit=True)
        )
        calc = compute(g, f.params)
        f.params["attack_total"] = calc.attack
        for ln in calc.attack_lines:
            g.emit("strength", f"attack {ln.explain()}", rule="OT 9A")
        if f.params["crt"] == POSITIONAL:
            g.push(
                "reserve-commitment",
                {
                    "target": f.params["target"],
                    "side": f.params["defender"],
                    "attacker": f.params["attacker"],
                },
            )

    @stage
    def odds(self, g: Game, f: Frame) -> None:
        target = self._target(g, f)
        f.params["defenders_at_start"] = sorted(
            set(f.params["defenders_at_start"])
            | {p.id for p in units.units_in_hex(g, target, f.params["defender"])}
        )
        fo = forces(g, f.params)
        f.params["combat_supply"][f.params["defender"]] = sorted(
            combat_hooks.combat_supplied(
                g, f.params["defender"], fo.counted, self._sit(g, f), commit=True
            )
        )
        calc = compute(g, f.params)
        for ln in calc.defense_lines:
            g.emit("strength", f"defense {ln.explain()}", rule="OT 9A")
        for v, rule, why in calc.attack_adjust + calc.defense_adjust:
            g.emit("strength", f"{fmt(v)}: {why}", rule=rule)
        f.params["base_odds"] = calc.ladder.level_label(calc.base_level)
        f.params["frozen"] = {
            "attack": calc.attack,
            "defense": calc.defense,
            "ratio": calc.ratio,
            "base_level": calc.base_level,
        }
        g.emit(
            "odds",
            f"attack {fmt(calc.attack)} against defense {fmt(calc.defense)}:"
            f" {f.params['base_odds']}",
            rule="OT 9A",
            attack=calc.attack,
            defense=calc.defense,
            odds=f.params["base_odds"],
        )

    @stage
    def effects_attacker(self, g: Game, f: Frame) -> None:
        g.push("combat-effects", {"side": f.params["attacker"], "role": "attacker"})

    @stage
    def effects_defender(self, g: Game, f: Frame) -> None:
        g.push("combat-effects", {"side": f.params["defender"], "role": "defender"})

    @stage
    def effects_resolve(self, g: Game, f: Frame) -> None:

        resolve_attempts(g, f.params)
        sit = self._sit(g, f)
        rc = combat_hooks.resource_center_check(g, sit)
        if rc:
            f.params.setdefault("roll_drms", []).append([rc, "OT 15A7", "resource center"])
        combat_hooks.push_leader_step(g, sit)

    @stage
    def leader(self, g: Game, f: Frame) -> None:
        ld = combat_hooks.leader_drm(g)
        if ld:
            f.params.setdefault("roll_drms", []).append([ld, "OT 14P2", "leaders"])
        if g.opt("incremental-odds"):
            calc = compute(g, f.params)
            if incremental_eligible(calc) and calc.automatic is None:
                push_choice(
                    g,
                    f.params["attacker"],
                    "incremental",
                    ("yes", "no"),
                    "use incremental odds (OT 9L)?",
                    "OT 9L",
                )

    @stage
    def incremental(self, g: Game, f: Frame) -> None:
        if f.params["choices"].get("incremental") == "yes":
            calc = compute(g, f.params)
            r = g.roll("d10", f"incremental odds ({fmt(calc.ratio)} -> nearest tenth)", "OT 9L")  # type: ignore[arg-type]
            f.params["incremental_level"] = incremental_level(calc, int(r.natural))
            g.emit(
                "odds",
                f"incremental odds: {calc.ladder.level_label(int(f.params['incremental_level']))}",
                rule="OT 9L",
            )

    @stage
    def resolve(self, g: Game, f: Frame) -> None:
        calc = compute(g, f.params)
        sit = self._sit(g, f)
        if calc.automatic is not None:
            code = calc.automatic
            g.emit(
                "result",
                f"odds {calc.ladder.level_label(calc.level)} are below 1:4: automatic {code}",
                rule="OT 9B",
                result=code,
            )
        else:
            r = g.roll(
                "d6",
                f"combat on {f.params['target']} at {calc.column}",
                "OT 9A",
                modifiers=calc.drms,
                clamp=(calc.ladder.table.row_min, calc.ladder.table.row_max),
            )
            code = str(calc.ladder.table.lookup(calc.level, int(r["unclamped"])).result)
            g.emit(
                "result",
                f"{calc.crt} CRT, {calc.column} (base {calc.ladder.level_label(calc.base_level)},"
                f" shift {calc.shift:+d}), roll {r.natural} modified {int(r['unclamped']):+d} ->"
                f" {code}",
                rule="OT 9A",
                result=code,
                column=calc.column,
            )
        code = convert(g, f.params, calc, sit, code)
        f.params["result"] = code
        f.params["calc"] = {
            "attack": calc.attack,
            "defense": calc.defense,
            "column": calc.column or calc.automatic,
        }

    @stage
    def losses(self, g: Game, f: Frame) -> None:

        start_losses(g, f.params, first=True)

    @stage
    def losses_second(self, g: Game, f: Frame) -> None:

        start_losses(g, f.params, first=False)

    @stage
    def optional_retreat(self, g: Game, f: Frame) -> None:

        side_role = optional_retreat_side(g, f.params)
        if side_role is not None:
            side = f.params[side_role]
            push_choice(
                g,
                side,
                "optional-retreat",
                ("retreat", "stay"),
                "retreat after suffering the larger loss (OT 9C2)?",
                "OT 9C2",
            )

    @stage
    def declare(self, g: Game, f: Frame) -> None:

        plan_retreats(g, f.params)

    @stage
    def declarations(self, g: Game, f: Frame) -> Goto | None:
        """OT 9F1: each declaration due, one at a time (the opponent of the retreating side)."""

        grp = next_declaration(f.params)
        if grp is None:
            return None  # every declaration is made: the retreats follow
        push_choice(
            g,
            grp["decl"],
            grp["key"],
            ("advance", "decline"),
            f"advance a unit of the combat into {grp['hex']} if it is vacated? (declining cancels"
            " the retreat)",
            "OT 9F1",
        )
        return self.again(f)  # the next declaration once this one is made

    @stage
    def retreat(self, g: Game, f: Frame) -> None:

        push_retreats(g, f.params, second=False)

    @stage
    def advance(self, g: Game, f: Frame) -> None:

        push_advances(g, f.params, second=False)

    @stage
    def retreat_second(self, g: Game, f: Frame) -> None:

        if f.params.get("multi_hex"):
            push_retreats(g, f.params, second=True)

    @stage
    def advance_second(self, g: Game, f: Frame) -> None:

        if f.params.get("multi_hex"):
            push_advances(g, f.params, second=True)

    @stage
    def cleanup(self, g: Game, f: Frame) -> None:
        finish_combat(g, f)


@implements("OT 9C1", "OT 9C2")
def convert(g: Game, rec: dict[str, Any], calc: Calc, sit: Any, code: str) -> str:
    """Result conversions: AQ becomes AS for an infantry-capable attacker (OT 9C1); DX becomes DXM
    for a rifle-assault-capable attacker (OT 9C2); BX becomes BXM for an infantry-capable defender
    (OT 14H1). Rule 14-15's ``convert_result`` decides when provided."""
    hooked = combat_hooks.convert_result(g, sit, code)
    if hooked is not None:
        new = hooked
    else:
        fo = calc.forces
        new = code
        if code == "AQ" and combat_hooks.infantry_capable(g, fo.participants):
            new = "AS"
        elif code == "DX" and combat_hooks.rifle_assault_capable(g, fo.participants):
            new = "DXM"
        elif code == "BX" and combat_hooks.infantry_capable(g, fo.counted):
            new = "BXM"
    if new != code:
        g.emit(
            "result",
            f"{code} becomes {new}",
            rule="OT 9C1" if code == "AQ" else "OT 9C2",
            result=new,
        )
    return new


@implements("OT 9D", "OT 9B", "OT 8C2")
def finish_combat(g: Game, f: Frame) -> None:
    """End of an attack: Army and Corps HQs of the combat left without other friendly units in their
    hex are eliminated (OT 9D); the contested-hex test (OT 9J); the attacking units and the units
    attacked are marked (OT 9B); units of an overstack an attack came from pay 2 MP to leave it
    next time (OT 8C2); ownership is brought up to date (OT 5B)."""
    rec = f.params
    ps = g.state.pieces

    replacements.settle_isolated_losses(g)  # OT 16B4b: right after the combat result
    combat_hexes.check_creation(g, rec)
    combat_hexes.siege_after_combat(g, rec)
    for pid in rec.get("defenders_at_start", []):
        p = ps.get(pid)
        if p is None or not is_hq(p):
            continue
        h = units.hex_of(g, p)
        if h is None:
            continue
        others = [q for q in units.units_in_hex(g, h, p.side) if not is_hq(q) and q.id != p.id]
        if not others:
            units.eliminate(g, p, "OT 9D", "headquarters left alone after combat")
    seg = segment_of(g)
    if seg is not None:
        for pid in rec["attackers"]:
            if pid not in seg.params.setdefault("attacked", []):
                seg.params["attacked"].append(pid)
        for pid in rec.get("defenders_at_start", []):
            if pid not in seg.params.setdefault("defended", []):
                seg.params["defended"].append(pid)
    for pid in rec["attackers"]:
        p = ps.get(pid)
        if (
            p is not None
            and stacking.OVERSTACKED in p.status
            and p.attrs.get("overstacked_since") is not None
        ):
            h = units.hex_of(g, p)
            if h is not None:
                for q in units.units_in_hex(g, h, p.side):
                    if stacking.OVERSTACKED in q.status:
                        q.attrs["attacked_from_overstack"] = True
    zoc.update_ownership(g)
    g.emit(
        "combat",
        f"the attack on {rec['target']} is over ({rec.get('result', 'no result')})",
        rule="OT 9A",
        result=rec.get("result"),
    )
    g.finish(f)


# ============================================================================ preview
@implements("OT 9A")
def preview_attack(g: Game, action: Action) -> dict[str, Any] | None:
    """For a declared attack: the totals with every modifier (with rule ids), the odds column and
    shifts, the die-roll modifiers and the exact distribution of results, as things stand now
    (reserve commitment, retreat before combat and special effects may still change them)."""
    seg = segment_of(g)
    if seg is None:
        return None
    try:
        check_attack(g, seg, dict(action))
    except IllegalAction as e:
        return {"text": f"illegal: {e.message} ({e.rule})"}
    rec = new_record(g, seg, dict(action))
    if rec["crt"] is None:
        rec["crt"] = POSITIONAL
    calc = compute(g, rec)
    lines = [f"Attack on {action['target']} ({calc.crt} CRT: {rec['crt_reason']})"]
    lines += [f"  attack  {ln.explain()}" for ln in calc.attack_lines]
    lines += [f"  attack  {fmt(v)} {why} ({rule})" for v, rule, why in calc.attack_adjust]
    lines += [f"  defense {ln.explain()}" for ln in calc.defense_lines]
    lines += [f"  defense {fmt(v)} {why} ({rule})" for v, rule, why in calc.defense_adjust]
    lines.append(
        f"  totals {fmt(calc.attack)} : {fmt(calc.defense)} ->"
        f" {calc.ladder.level_label(calc.base_level)}"
    )
    if len(calc.shifts):
        lines.append(f"  shifts {calc.shifts.explain()}")
    lines.append(f"  column {calc.column or ('automatic ' + str(calc.automatic))}")
    lines.append(f"  die roll modifiers {calc.drms.explain()} (net {calc.drm:+d})")
    dist = calc.distribution()
    lines.append(
        "  results "
        + ", ".join(f"{k} {v:.0%}" for k, v in sorted(dist.items(), key=lambda kv: -kv[1]))
    )
    if calc.crt == POSITIONAL:
        lines.append("  (the defender may still commit reserves, OT 6C)")
    lines.append("  (retreat before combat and special combat effects may still change this)")
    out = calc.to_json()
    out["text"] = "\n".join(lines)
    return out


# ================================================================== strengths for overruns (OT 6F1)


# =============================================================== retreats used by overruns (OT 6F2)


# ============================================================================ phase ends
@implements("OT 9J", "OT 8C2")
def phase_end(g: Game, phase: str) -> None:
    """At the end of every phase: contested hexes (OT 9J); after a side's next moving phase its
    units no longer pay the 2 MP of OT 8C2 for leaving an overstack an attack came from."""
    combat_hexes.phase_end(g, phase)
    if phase in ("movement", "reaction-movement", "exploitation"):
        phasing = str(gw_view(g).get("phasing", ""))
        mover = nations.other_side(phasing) if phase == "reaction-movement" else phasing
        for p in units.on_map_units(g, mover):
            p.attrs.pop("attacked_from_overstack", None)
