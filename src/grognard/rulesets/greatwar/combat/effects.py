"""OT 10: special combat effects -- armor and antitank (10A), cavalry (10B), engineers (10C), gas
(10D)
and siege (10E) effects capabilities.

Right after the odds of an attack are calculated (interpretation default for the order of OT 9A
and 10: base odds, then the attempts, then every shift and modifier), the attacker announces his
attempts and the units making each (step ``combat-effects``), then the defender announces his,
knowing the attacker's. Then the attacker's attempts are rolled, then the defender's, each on its
column of the Ground Success Table (``gst-effects``). A success modifies the combat roll by +1
(attacker) or -1 (defender); an asterisked success rolls again in the column-shift column for a
shift of one column right (attacker) or left (defender); a disastrous failure eliminates the
attempting units (gas units never). The odds are not recalculated after such an elimination.

Per combat: AECA at most 2 attempts, AECD 1, ATEC as many as the raw REs of the attacking
AECA-capable units plus one (at most 3; it needs AECA-capable attackers, and rules out AECD),
CEC 1 (heavy cavalry, Mobile CRT), EEC 2 (against a major city or a fortification other than
fieldworks), GEC 1 per side, SEC 1 (same targets; the siege engineers must not have moved this
player turn and must trace an overland line to a friendly Res Pt, which is spent).

An attempt's size is the sum of the units' REs, halved for a "1/2" capability, doubled for assault
engineers, flamethrowers and assault engineer tanks in EEC (OT 10C; option
``assault-engineer-eec-doubling``), halved for disrupted units (OT 3A5), and halved again for armor
effects in winter and snow (OT 10A). Badly disrupted units (OT 3A5), units out of general supply for
two turns or more (OT 11F2), overstacked units (OT 8C2) and units that retreated into the hex (OT
9F2) take no part. Armor effects are impossible in mud, into or across "no AEC" terrain and against
fortifications that forbid them (AECA), or defending in such a hex (AECD).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.arith import fmt
from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.greatwar.combat import artillery, combat_hooks
from grognard.rulesets.greatwar.combat.combat_data import MOBILE, effects_table, size_modifier
from grognard.rulesets.greatwar.combat.combat_strength import (
    fec_effect,
    forces,
    hex_effect,
    hexside_effects,
    is_major_city,
    weather_effect,
    works,
)
from grognard.rulesets.greatwar.combat.losses import combat_frame, eliminate_in_combat
from grognard.rulesets.greatwar.mechanics import table_roll
from grognard.rulesets.greatwar.movement import stacking
from grognard.rulesets.greatwar.step import GWStep
from grognard.rulesets.greatwar.supply import supply_status
from grognard.rulesets.greatwar.units import nations, units

if TYPE_CHECKING:
    from grognard.core.game import Game

ATTACK_CAPS = ("AECA", "CEC", "EEC", "GEC", "SEC")
DEFENSE_CAPS = ("AECD", "ATEC", "GEC")
MAX_ATTEMPTS = {"AECA": 2, "AECD": 1, "CEC": 1, "EEC": 2, "GEC": 1, "SEC": 1, "ATEC": 3}
RULE_OF = {
    "AECA": "OT 10A",
    "AECD": "OT 10A",
    "ATEC": "OT 10A",
    "CEC": "OT 10B",
    "EEC": "OT 10C",
    "GEC": "OT 10D",
    "SEC": "OT 10E",
}


# ============================================================================ capabilities of units
def capability_weight(g: Game, p: Piece, cap: str, target: int | None = None) -> Fraction:
    """OT 10A/10C: a unit's weight in an attempt: 1 (full), 1/2 ("1/2" on the UIC), 2 for
    assault engineers, flamethrowers and assault engineer tanks in EEC (always under OT 10C; with
    option ``assault-engineer-eec-doubling = cities-fortresses-13E`` only against a major city or an
    improved fortress), 0 if it lacks the capability."""
    caps = units.utype(p).capabilities
    if cap in caps:
        return Fraction(1)
    if f"{cap}/2" in caps:
        return Fraction(1, 2)
    if cap == "EEC" and "EEC-x2" in caps:
        if g.opt("assault-engineer-eec-doubling") == "cities-fortresses-13E" and target is not None:
            w = works(g, target)
            if not (is_major_city(g, target) or (w.fortress is not None and w.improved)):
                return Fraction(1)
        return Fraction(2)
    return Fraction(0)


def capable(p: Piece, cap: str) -> bool:
    caps = units.utype(p).capabilities
    return cap in caps or f"{cap}/2" in caps or (cap == "EEC" and "EEC-x2" in caps)


@implements("OT 10A")
def aec_level(g: Game, target: int) -> str:
    """OT 10A: armor effects in the weather of the attacked hex: ``full``, ``half`` (winter, snow)
    or ``none`` (mud)."""
    return weather_effect(g, target).aec


@implements("OT 10A")
def aeca_terrain_ok(g: Game, p: Piece, target: int) -> bool:
    """OT 10A: no AECA attacking into a "no AEC" hex (TEC, FEC) or across a "no AEC" hexside."""
    he = hex_effect(g, target)
    if he is not None and he.no_aec:
        return False
    fe = fec_effect(g, works(g, target))
    if fe is not None and fe.no_aec:
        return False
    h = units.hex_of(g, p)
    if h is None or h == target or target not in g.board.neighbors(h):
        return True
    return not any(
        eff.no_aec for _, eff in hexside_effects(g, g.board.side_between(h, target), target)
    )


@implements("OT 10A")
def aecd_terrain_ok(g: Game, target: int) -> bool:
    """OT 10A: no AECD defending in a "no AEC" hex (TEC, FEC)."""
    he = hex_effect(g, target)
    fe = fec_effect(g, works(g, target))
    return not ((he is not None and he.no_aec) or (fe is not None and fe.no_aec))


def moved_this_player_turn(g: Game, pid: str) -> bool:
    """Whether a unit moved (any kind of movement) in the current player turn, read from the log
    (interpretation default for OT 10E: "the same turn" is the player turn)."""
    for ev in reversed(g.state.log):
        if ev.get("type") == "player-turn":
            return False
        if ev.get("type") in ("move", "rail-move", "river-move", "advance", "retreat"):
            data = ev.get("data", {})
            if data.get("piece") == pid or pid in (data.get("pieces") or []):
                return True
    return False


def fortified_target(g: Game, target: int) -> bool:
    """OT 10C/10E: a major city or a fortification other than fieldworks in the attacked hex."""
    return is_major_city(g, target) or works(g, target).beyond_fieldworks()


def res_pt_for(g: Game, side: str, pieces: Sequence[Piece]) -> Piece | None:
    """OT 10E: a friendly-owned Res Pt every attempting unit traces an overland supply line to."""
    for rp in combat_hooks.res_pts(g, side):
        h = units.hex_of(g, rp)
        if h is None or g.state.control.get(h) != side:
            continue
        if all(
            units.hex_of(g, q) is not None
            and combat_hooks.overland_line(g, side, units.hex_of(g, q), h)  # type: ignore[arg-type]
            for q in pieces
        ):
            return rp
    return None


@implements("OT 10", "OT 10A", "OT 10B", "OT 10C", "OT 10D", "OT 10E")
def unit_can_attempt(g: Game, rec: dict[str, Any], p: Piece, cap: str, role: str) -> str | None:
    """Why ``p`` may not take part in a ``cap`` attempt in this combat, or None."""
    target = g.board.idx(rec["target"])
    if capability_weight(g, p, cap, target) == 0:
        return f"{p.id} has no {cap} capability"
    if not units.can_use_special_effects(p):
        return f"{p.id} is badly disrupted (OT 3A5)"
    if supply_status.turns_out_of_supply(g, p) >= 2:
        return f"{p.id} is out of general supply for two turns or more (OT 11F2)"
    if stacking.OVERSTACKED in p.status:
        return f"{p.id} is overstacked (OT 8C2)"
    if p.id in rec.get("retreated_in", []):
        return f"{p.id} retreated into the hex this phase (OT 9F2)"
    if cap in ("AECA", "AECD") and aec_level(g, target) == "none":
        return "no armor effects in mud (OT 10A)"
    if cap == "AECA" and not aeca_terrain_ok(g, p, target):
        return f"{p.id} attacks into or across terrain with no armor effects (OT 10A)"
    if cap == "AECD" and not aecd_terrain_ok(g, target):
        return "no armor effects defending in this hex (OT 10A)"
    if cap == "SEC" and moved_this_player_turn(g, p.id):
        return f"{p.id} moved this turn (OT 10E)"
    if cap == "GEC" and not combat_hooks.gec_allowed(p):
        return f"{p.id} made a GEC attempt in the bombardment segment (OT 12C)"
    return None


def side_units(g: Game, rec: dict[str, Any], role: str) -> list[Piece]:

    fo = forces(g, rec)
    return fo.participants if role == "attacker" else fo.counted


def aeca_capable_raw_re(g: Game, rec: dict[str, Any]) -> Fraction:
    """OT 10A: the raw REs of the AECA-capable units in the attack (whatever their AEC weight)."""
    return sum(
        (units.re_size(g, p) for p in side_units(g, rec, "attacker") if capable(p, "AECA")),
        Fraction(0),
    )


@implements("OT 10A")
def atec_limit(g: Game, rec: dict[str, Any]) -> int:
    """OT 10A: ATEC attempts allowed: raw REs of AECA-capable attackers + 1, at most 3 (a fraction
    of an RE rounds down: interpretation default); none without AECA-capable attackers."""
    re = aeca_capable_raw_re(g, rec)
    if re <= 0:
        return 0
    return min(3, math.floor(re) + 1)


@implements("OT 10", "OT 10A", "OT 10B", "OT 10C", "OT 10E")
def capability_open(
    g: Game, rec: dict[str, Any], cap: str, role: str, announced: Sequence[dict[str, Any]]
) -> str | None:
    """Why ``role`` may not announce (another) ``cap`` attempt in this combat, or None."""
    target = g.board.idx(rec["target"])
    if cap not in (ATTACK_CAPS if role == "attacker" else DEFENSE_CAPS):
        return f"the {role} may not use {cap}"
    n = sum(1 for a in announced if a["capability"] == cap)
    limit = atec_limit(g, rec) if cap == "ATEC" else MAX_ATTEMPTS[cap]
    if n >= limit:
        return f"at most {limit} {cap} attempt(s) per combat"
    if cap == "CEC" and rec.get("crt") != MOBILE:
        return "CEC only on the Mobile CRT (OT 10B)"
    if cap in ("EEC", "SEC") and not fortified_target(g, target):
        return f"{cap} only against a major city or a fortification other than fieldworks"
    if cap == "AECD" and any(a["capability"] == "ATEC" for a in announced):
        return "AECD and ATEC may not both be used (OT 10A)"
    if cap == "ATEC" and any(a["capability"] == "AECD" for a in announced):
        return "AECD and ATEC may not both be used (OT 10A)"
    return None


@implements("OT 10", "OT 10A", "OT 10C")
def attempt_size(g: Game, rec: dict[str, Any], pieces: Sequence[Piece], cap: str) -> Fraction:
    """OT 10: the RE size of an attempt (see the module docstring)."""
    target = g.board.idx(rec["target"])
    total = Fraction(0)
    for p in pieces:
        total += (
            units.re_size(g, p)
            * capability_weight(g, p, cap, target)
            * units.disruption_factors(p)["re"]
        )
    if cap in ("AECA", "AECD") and aec_level(g, target) == "half":
        total /= 2
    return total


def _weak_gas_target(g: Game, p: Piece) -> bool:
    """OT 10D designers' note: Russian, Italian and minor-power units had poor gas masks."""
    names = set(effects_table(g).extra.get("gas_against", []))
    if nations.rulebook_name(g, p.nation) in names:
        return True
    return "minor" in names and nations.power_class(g, p.nation) == "minor"


@implements("OT 10", "OT 10B", "OT 10C", "OT 10D")
def attempt_modifiers(
    g: Game, rec: dict[str, Any], pieces: Sequence[Piece], cap: str, role: str
) -> Modifiers:
    """OT 10: the Ground Success Table modifiers of an attempt: its size (+1 for a brigade, 2 RE),
    a flamethrower in an EEC attempt (+1, OT 13F), gas against Russian, Italian and minor-power
    units (OT 10D), cavalry charges where armor effects are impossible unless every defender is
    unsupported and no machinegun, and against such defenders (OT 10B). Values: ``gst-effects``."""
    extra = effects_table(g).extra
    mods = Modifiers()
    size = attempt_size(g, rec, pieces, cap)
    mods.add(size_modifier(g, size), RULE_OF[cap], f"attempt of {fmt(size)} RE")
    if cap == "EEC" and any("flamethrower" in units.utype(p).tags for p in pieces):
        mods.add(int(extra.get("flamethrower", 1)), "OT 13F", "flamethrower in the attempt")
    target = g.board.idx(rec["target"])
    if cap == "GEC":
        others = side_units(g, rec, "defender" if role == "attacker" else "attacker")
        if others and all(_weak_gas_target(g, q) for q in others):
            mods.add(
                int(extra.get("gas_bonus", 1)),
                "OT 10D",
                "gas against Russian, Italian or minor-power units",
            )
    if cap == "CEC":
        defenders = side_units(g, rec, "defender")
        weak = bool(defenders) and all(
            not artillery.is_supported(g, q) and "machinegun" not in units.utype(q).tags
            for q in defenders
        )
        no_aec = aec_level(g, target) == "none" or not aecd_terrain_ok(g, target)
        if weak:
            mods.add(
                int(extra.get("cavalry_all_unsupported", 1)),
                "OT 10B",
                "every defender unsupported and no machinegun",
            )
        elif no_aec:
            mods.add(
                int(extra.get("cavalry_no_aec", -3)),
                "OT 10B",
                "charge where armor effects are impossible",
            )
    return mods


# ============================================================================ announcement step
@implements("OT 10")
class CombatEffects(GWStep):
    """OT 10: one side announces its special combat effects attempts and the units making each
    (``{"type": "attempt", "capability": "EEC", "pieces": [...]}``), then ``done``. The attacker
    announces first; the defender then announces knowing the attacker's attempts."""

    name = "combat-effects"
    title = "Special combat effects"
    rule = "OT 10"

    def label(self, g: Game, f: Frame) -> str:
        return f"Special combat effects attempts ({f.params['side']})"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [] if f.done else [f.params["side"]]

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    def _rec(self, g: Game) -> dict[str, Any]:
        cf = combat_frame(g)
        assert cf is not None
        return cf.params

    def _announced(self, rec: dict[str, Any], role: str) -> list[dict[str, Any]]:
        return rec.setdefault("attempts", {}).setdefault(role, [])

    def _used(self, rec: dict[str, Any], role: str) -> set[str]:
        return {pid for a in self._announced(rec, role) for pid in a["pieces"]}

    def options(self, g: Game, f: Frame) -> dict[str, list[Piece]]:
        """Capabilities the side may still announce, with the units able to join each."""
        rec = self._rec(g)
        role = f.params["role"]
        used = self._used(rec, role)
        out: dict[str, list[Piece]] = {}
        for cap in ATTACK_CAPS if role == "attacker" else DEFENSE_CAPS:
            if capability_open(g, rec, cap, role, self._announced(rec, role)):
                continue
            ps = [
                p
                for p in side_units(g, rec, role)
                if p.id not in used and unit_can_attempt(g, rec, p, cap, role) is None
            ]
            if cap == "SEC" and ps and res_pt_for(g, p_side(rec, role), ps) is None:
                ps = [p for p in ps if res_pt_for(g, p.side, [p]) is not None]
            if ps:
                out[cap] = ps
        return out

    def enter(self, g: Game, f: Frame) -> None:
        if not self.options(g, f):
            g.finish(f)

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = []
        for cap, ps in self.options(g, f).items():
            out.append(
                {"type": "attempt", "side": side, "capability": cap, "pieces": [p.id for p in ps]}
            )
            if len(ps) > 1:
                out.extend(
                    {"type": "attempt", "side": side, "capability": cap, "pieces": [p.id]}
                    for p in ps[:6]
                )
        out.append({"type": "done", "side": side})
        return out

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction(
            "OT 10", f"{action['type']!r} is not allowed while announcing special effects"
        )

    @handles.apply("done")
    def apply_done(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.check("attempt")
    def check_attempt(self, g: Game, f: Frame, action: Action) -> None:
        """OT 10: an attempt the side may announce with units that may make it."""
        rec = self._rec(g)
        role = f.params["role"]
        cap = action.get("capability")
        if not isinstance(cap, str) or cap not in RULE_OF:
            raise IllegalAction("OT 10", f"unknown capability {cap!r}")
        why = capability_open(g, rec, cap, role, self._announced(rec, role))
        if why:
            raise IllegalAction(RULE_OF[cap], why)
        ids = action.get("pieces")
        if not isinstance(ids, list) or not ids or len(set(ids)) != len(ids):
            raise IllegalAction("OT 10", "name the units making the attempt in 'pieces'")
        mine = {p.id: p for p in side_units(g, rec, role)}
        used = self._used(rec, role)
        for pid in ids:
            if pid not in mine:
                raise IllegalAction(
                    "OT 10", f"{pid!r} is not one of the {role}'s units in this combat"
                )
            if pid in used:
                raise IllegalAction("OT 10", f"{pid} is already making another attempt")
            why = unit_can_attempt(g, rec, mine[pid], cap, role)
            if why:
                raise IllegalAction(RULE_OF[cap], why)
        if cap == "SEC" and res_pt_for(g, f.params["side"], [mine[i] for i in ids]) is None:
            raise IllegalAction(
                "OT 10E", "the siege engineers trace no overland supply line to a friendly Res Pt"
            )

    @handles.apply("attempt")
    def apply_attempt(self, g: Game, f: Frame, action: Action) -> None:
        rec = self._rec(g)
        role = f.params["role"]
        ps = [g.state.pieces[i] for i in action["pieces"]]
        size = attempt_size(g, rec, ps, action["capability"])
        self._announced(rec, role).append(
            {"capability": action["capability"], "pieces": list(action["pieces"])}
        )
        g.emit(
            "effects",
            f"{action['side']} announces a {action['capability']} attempt with"
            f" {', '.join(action['pieces'])} ({fmt(size)} RE)",
            rule=RULE_OF[action["capability"]],
            capability=action["capability"],
            pieces=action["pieces"],
        )
        if not self.options(g, f):
            g.finish(f)


def p_side(rec: dict[str, Any], role: str) -> str:
    return str(rec["attacker"] if role == "attacker" else rec["defender"])


# ============================================================================ resolution
@implements("OT 10", "OT 10A", "OT 10B", "OT 10C", "OT 10D", "OT 10E")
def resolve_attempts(g: Game, rec: dict[str, Any]) -> None:
    """OT 10: roll every announced attempt, the attacker's first, and record the die-roll
    modifiers, column shifts and capabilities used successfully (for the first-RE rule of OT 9D)."""
    table = effects_table(g)
    for role in ("attacker", "defender"):
        sign = 1 if role == "attacker" else -1
        side = p_side(rec, role)
        for att in rec.get("attempts", {}).get(role, []):
            cap = att["capability"]
            rule = RULE_OF[cap]
            ps = [
                g.state.pieces[i]
                for i in att["pieces"]
                if i in g.state.pieces and units.hex_of(g, g.state.pieces[i]) is not None
            ]
            if not ps:
                continue
            if cap == "SEC":
                rp = res_pt_for(g, side, ps)
                if rp is None:
                    g.emit(
                        "effects",
                        f"the SEC attempt of {', '.join(att['pieces'])} has no Res Pt to spend and"
                        " is not made",
                        rule="OT 10E",
                    )
                    continue
                combat_hooks.spend_res_pt(g, rp, "OT 10E", "SEC attempt")
            mods = attempt_modifiers(g, rec, ps, cap, role)
            res = table_roll(
                g,
                "gst-effects",
                cap,
                f"{side} {cap} attempt ({', '.join(att['pieces'])})",
                rule,
                mods,
            )
            code = str(res.result)
            att["result"] = code
            if code in ("S", "S*"):
                rec.setdefault("effect_drms", []).append([sign, rule, f"{role} {cap} success"])
                if cap != "GEC":
                    succ = rec.setdefault("effect_success", {}).setdefault(role, {})
                    succ.setdefault(
                        cap, sorted(q.id for q in side_units(g, rec, role) if capable(q, cap))
                    )
                g.emit(
                    "effects",
                    f"{cap} attempt succeeds: combat roll {sign:+d}",
                    rule=rule,
                    capability=cap,
                    result=code,
                )
                if code == "S*":
                    again = g.roll(
                        str(table.die),
                        f"{side} {cap} column shift",
                        rule,
                        clamp=(table.row_min, table.row_max),
                    )
                    shift = table.lookup("column-shift", int(again["unclamped"])).result
                    if shift == "shift":
                        rec.setdefault("effect_shifts", []).append(
                            [sign, rule, f"{role} {cap} column shift"]
                        )
                        g.emit(
                            "effects",
                            f"{cap} also shifts the odds one column"
                            f" {'right' if sign > 0 else 'left'}",
                            rule=rule,
                        )
            elif code == "F*":
                if cap == "GEC":
                    g.emit(
                        "effects",
                        "GEC attempt fails; gas units are never eliminated by a failed attempt",
                        rule="OT 10D",
                    )
                    continue
                g.emit(
                    "effects",
                    f"{cap} attempt fails disastrously: the attempting units are eliminated",
                    rule=rule,
                    capability=cap,
                )
                for p in ps:
                    if units.hex_of(g, p) is not None and "gas" not in units.utype(p).tags:
                        eliminate_in_combat(g, p, rule, f"disastrous {cap} attempt")
            else:
                g.emit("effects", f"{cap} attempt fails", rule=rule, capability=cap, result=code)
