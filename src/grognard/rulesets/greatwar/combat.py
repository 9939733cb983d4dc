"""OT 9 (combat) -- the combat and reaction combat segments, and the combat-strength and retreat
helpers movement already needs.

:class:`CombatSegment` is the combat segment of the combat phase and of the reaction combat
phase (OT 4A3, 4A5, 9A). Attacks are not implemented yet: the segment is a real step of the
sequence (frame params ``attacker``, ``defender``, ``reaction``) whose only action is ending it.
The combat procedure of OT 9A (CRT choice, strengths, reserve commitment through
:mod:`.reserves`, special effects, odds, results, retreats and advances) goes here.

Implemented here for the movement rules: the modified strengths used by overruns (OT 6F1) and
the retreat priorities used by retreat before overrun (OT 6F2, which applies OT 9F2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.sequence import Action, Step
from grognard.core.state import Frame, Piece
from grognard.rulesets.greatwar import (
    artillery,
    calendar,
    geography,
    nations,
    special_units,
    stacking,
    supply,
    terrain,
    units,
    zoc,
)
from grognard.rulesets.greatwar.isolation import is_isolated

if TYPE_CHECKING:
    from grognard.core.game import Game


class CombatSegment(Step):
    """OT 4A3 / 4A5 / 9: the combat segment of a combat or reaction combat phase. Attacks are not
    implemented yet; the attacker may only end the segment."""

    name = "combat-segment"
    title = "Combat segment"
    rule = "OT 9"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["attacker"]]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return [{"type": "end-phase", "side": side}]

    def check(self, g: Game, f: Frame, action: Action) -> None:
        from grognard.rulesets.greatwar.sequence import reject_unless

        reject_unless(self, g, f, action, ("end-phase",))

    def apply(self, g: Game, f: Frame, action: Action) -> None:
        g.emit("segment", f"{action['side']} ends the combat segment", rule="OT 9")
        g.finish(f)

    def label(self, g: Game, f: Frame) -> str:
        kind = "reaction combat" if f.params.get("reaction") else "combat"
        return f"Combat segment of the {kind} phase ({f.params['attacker']} attacks)"


# ============================================================================ strengths
MODERN_TACTICS = (("Oct I 17", ("Austria-Hungary", "Germany")), ("Jul I 18", ("USA", "Britain", "France")), ("Feb I 19", None))


def uses_modern_tactics(g: Game, p: Piece) -> bool:
    """OT 12B: the date a nation's artillery adopts modern tactics (Germany and Austria-Hungary Oct
    I 17; America, Britain and France Jul I 18; all others Feb I 19)."""
    name = nations.rulebook_name(g, p.nation)
    for when, who in MODERN_TACTICS:
        if who is None or name in who:
            return calendar.on_or_after(g, when)
    return False


def supply_multiplier(g: Game, p: Piece) -> Fraction:
    """OT 11F as used by overruns (general supply status only): in general supply x1/2; first turn
    out x1/4 if isolated (x1/2 otherwise: interpretation default); later turns x1/4."""
    out = supply.turns_out_of_supply(g, p)
    if out == 0:
        return Fraction(1, 2)
    if out == 1:
        h = units.hex_of(g, p)
        return Fraction(1, 4) if h is not None and is_isolated(g, p.side, h) else Fraction(1, 2)
    return Fraction(1, 4)


@implements("OT 6F1")
def overrun_strength(g: Game, p: Piece, role: str, target: int, companions: Sequence[Piece]) -> Fraction:
    """OT 6F1: a unit's modified attack (``role="attack"``) or defense strength in an overrun:
    disruption (OT 3A5), general supply status (OT 11F), support (OT 12A; fast c/m units count as
    supported in clear, rough or stony desert without fortifications, OT 14C4), artillery tactics
    (OT 12B, attack only) and heavy cavalry against cities and fortifications (OT 14D1). Terrain and
    fortification effects come from the combat columns of the TEC/FEC, which are not in the
    charts yet, so none apply."""
    if role == "attack":
        base = units.printed_attack(p)
        if base == 0 and units.printed_defense(p) > 0 and g.opt("marginal-units"):
            base = Fraction(1, 2)
    else:
        base = units.printed_defense(p)
        if base == 0 and units.printed_attack(p) > 0 and g.opt("marginal-units"):
            base = Fraction(1, 2)
    v = base * units.disruption_factors(p)[role]
    v *= supply_multiplier(g, p)
    supported = artillery.is_supported(g, p, companions)
    if not supported and special_units.is_fast_cm(p) and role == "attack" and terrain.terrain(g, target) in ("clear", "rough", "stony-desert") and not fortified(g, target):
        supported = True
    if not supported:
        v /= 2
    if role == "attack" and units.is_artillery(p) and not uses_modern_tactics(g, p):
        v /= 2
    if role == "attack" and "heavy-cavalry" in units.utype(p).tags and (geography.is_major_city_hex(g, target) or fortified(g, target)):
        v /= 2
    return v


def fortified(g: Game, i: int) -> bool:
    """A fortification other than fieldworks, or a fortress, in the hex (OT 15B)."""
    from grognard.rulesets.greatwar.mechanics import marker

    f = marker(g, "fortification", i)
    if f and f != "fieldworks":
        return True
    return any(pt.kind == "fortress" for pt in g.board.points_at(i))


# ============================================================================ retreats
@dataclass(frozen=True)
class RetreatChoice:
    hexes: tuple[int, ...]
    tier: int  # 1: no enemy ZOC, stack legal; 2: no ZOC but over the limit (continue); 3: enemy ZOC


def ignores_zoc_on_retreat(p: Piece) -> bool:
    """OT 9F2: non-artillery units with printed attack 8+, and units with printed MA 6-8, may ignore
    enemy ZOCs when retreating into a friendly-occupied or friendly-owned hex."""
    ma = units.printed_ma_number(p)
    return (not units.is_artillery(p) and units.printed_attack(p) >= 8) or ma in (6, 7, 8)


@implements("OT 6F2")
def retreat_step_options(g: Game, p: Piece, origin: int, here: int, exclude_zoc_of: set[str] | None = None) -> list[RetreatChoice]:
    """The hexes a unit may retreat to next, best priority first, per the order of OT 9F2: a hex
    not in an enemy ZOC and within stacking, then one not in a ZOC but over the limit (the unit
    then keeps retreating), then a hex in an enemy ZOC. Never into prohibited terrain, an
    enemy-occupied/owned hex, a neutral's hex (OT 3B3) or back towards the combat hex (each step must take it farther away:
    interpretation default). Empty: no retreat route (the unit is eliminated)."""
    side = p.side
    enemy = nations.other_side(side)
    ez = zoc.zoc_map(g, enemy, exclude=exclude_zoc_of)
    tags = special_units.movement_tags(g, p)
    out: list[RetreatChoice] = []
    for j in g.board.neighbors(here):
        if j == origin or g.board.distance(origin, j) <= g.board.distance(origin, here):
            continue
        if terrain.hex_entry_cost(g, p, j, tags) is None or terrain.hexside_cost(g, p, g.board.side_between(here, j), j, tags) is None:
            continue
        if g.state.control.get(j) == enemy and units.units_in_hex(g, j, enemy):
            continue
        if not nations.may_enter_command(g, side, j) or nations.neutral_nation_of_hex(g, j) is not None:
            continue
        friendly = g.state.control.get(j) == side or bool(units.units_in_hex(g, j, side))
        in_zoc = j in ez and not (ignores_zoc_on_retreat(p) and friendly)
        over = stacking.stack_problem(g, j, side, extra=[p]) is not None
        if over and g.opt("overstacking") and stacking.has_corps_hq(g, j, side):
            over = False
        tier = 3 if in_zoc else (2 if over else 1)
        out.append(RetreatChoice((j,), tier))
    if not out:
        return []
    best = min(c.tier for c in out)
    return [c for c in out if c.tier == best]
