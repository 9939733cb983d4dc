"""OT 9A (CRT choice, strength totals, odds), 9B (column limits, automatic results), 9G
(zero-strength
and marginal units), 9H (terrain, fortification and weather effects), 9L (incremental odds).

Everything here is a pure calculation over the state and a combat record (the frame params of the
``combat`` step, see :mod:`.combat`): the totals with every modifier and the rule that gives it, the
odds level, the column shifts and die-roll modifiers, and the exact distribution of results. The
combat procedure and :meth:`GreatWar.preview` both use :func:`compute`.

Per attacking unit, in order: printed attack (OT 9G2 marginal 1/2; Rule 14's elite brigades),
disruption (OT 3A5), overstack (OT 8C2), terrain of the attacked hex and of the hexside crossed (OT
9H, TEC; mortars exempt from mountain halving, OT 12B6), fortifications (OT 9H, FEC), supply (OT
11F:
x1 in combat supply, else x1/2 in general supply, U-1 x1/4 isolated, U-2 x1/4), support (OT 12A,
with
OT 13D and 14C4), artillery (OT 12B tactics, 12B1-12B4 types, 12B7 range, 12C bombarded), assault
engineers (OT 13E), Rule 14 unit factors (14D1, 14L, 14C2, 14I2). Then artillery beyond the ratio of
OT 12B attacks with the lower of 1 and its modified total. Per defending unit: printed defense,
disruption, supply, support, engineer doubling (OT 13E, 13G), Rule 14 factors, the OT 12B ratio.
Overstacked defenders (OT 8C2) and units that retreated into the hex earlier in the phase (OT 9F2)
add nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING, Any

from grognard.core.arith import fmt
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar import calendar
from grognard.rulesets.greatwar.combat import combat_hooks, support
from grognard.rulesets.greatwar.combat.combat_data import (
    MOBILE,
    POSITIONAL,
    CombatEffect,
    Ladder,
    combat_charts,
    ladder,
)
from grognard.rulesets.greatwar.map import geography, terrain
from grognard.rulesets.greatwar.map.weather import frozen_at, weather_at
from grognard.rulesets.greatwar.mechanics import marker
from grognard.rulesets.greatwar.movement import movement, stacking
from grognard.rulesets.greatwar.movement.movement import combat_fatigue_shift
from grognard.rulesets.greatwar.supply import supply_status
from grognard.rulesets.greatwar.supply.supply_status import is_isolated
from grognard.rulesets.greatwar.units import nations, special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game

Factor = tuple[Fraction, str, str]
BOMBARDED = "bombarded"
BESIEGED = "besieged"
MODERN_TACTICS = (
    ("Oct I 17", ("Austria-Hungary", "Germany")),
    ("Jul I 18", ("USA", "Britain", "France")),
    ("Feb I 19", None),
)


# ============================================================================ small predicates
def uses_modern_tactics(g: Game, p: Piece) -> bool:
    """OT 12B: the date a nation's artillery adopts modern tactics (Germany and Austria-Hungary Oct
    I 17; America, Britain and France Jul I 18; all others Feb I 19)."""
    name = nations.rulebook_name(g, p.nation)
    for when, who in MODERN_TACTICS:
        if who is None or name in who:
            return calendar.on_or_after(g, when)
    return False


def is_hq(p: Piece) -> bool:
    return (
        special_units.is_army_hq(p)
        or special_units.is_corps_hq(p)
        or "art-xx-hq" in units.utype(p).tags
    )


def single_strength(p: Piece) -> bool:
    """A unit printed with one combat strength (``0-X``) rather than attack and defense."""
    face = p.faces.get(p.face, {})
    return "strength" in face and "attack" not in face


@implements("OT 9G2")
def printed_value(g: Game, p: Piece, role: str) -> Fraction:
    """The printed attack (``role="attack"``) or defense strength used for combat and losses
    (OT 9D), with OT 9G2 (option ``marginal-units``): a printed 0 counts as 1/2, except for a unit
    with a single combat strength of 0. Rule 14's elite brigades (14Q) are included when provided.
    """
    key = "attack" if role == "attack" else "defense"
    v = combat_hooks.combat_strength(g, p, key)
    if v is None:
        v = units.printed_attack(p) if role == "attack" else units.printed_defense(p)
    if v == 0 and g.opt("marginal-units") and not single_strength(p):
        return Fraction(1, 2)
    return v


def long_range(p: Piece) -> int:
    """OT 12B7: the printed range of a long-range artillery unit (0 if it has none)."""
    if not units.is_artillery(p):
        return 0
    r = p.faces.get(p.face, {}).get("range", p.attrs.get("range"))
    try:
        return int(r) if r is not None and int(r) >= 2 else 0
    except (TypeError, ValueError):
        return 0


# =============================================================== fortifications and terrain (OT 9H)
@dataclass(frozen=True)
class Works:
    """The fortifications of a hex that count in combat (OT 15B): the marker level and the
    fortress."""

    level: str | None
    fortress: str | None  # FEC fortress row: great-improved, old-improved, new-improved, unimproved
    fortress_type: str | None  # old / new / great
    improved: bool

    def beyond_fieldworks(self) -> bool:
        return (self.level not in (None, "fieldworks")) or self.fortress is not None


NO_WORKS = Works(None, None, None, False)


@implements("OT 9H", "OT 9J")
def works(g: Game, i: int, sit: Any = None) -> Works:
    """OT 9H: the fortifications of hex ``i`` for combat. Fortifications in a contested hex are
    ignored (OT 9J). Rule 15's ``effective_fortification`` (concentric attacks on detached works,
    OT 15B1/15B2) may replace the marker level."""
    if marker(g, "contested", i):
        return NO_WORKS
    level = marker(g, "fortification", i)
    if sit is not None:
        eff = combat_hooks.effective_fortification(g, sit)
        if eff is not None:
            level = (
                None
                if eff in ("", "none")
                else (
                    eff if eff in ("fieldworks", "entrenchment", "fort", "improved-fort") else level
                )
            )
    fortress = None
    ftype = None
    improved = False
    for pt in g.board.points_at(i):
        if pt.kind == "fortress":
            ftype = str(pt.attrs.get("type", "new"))
            state = str(marker(g, "fortress-state", i) or pt.attrs.get("state", "unimproved"))
            improved = state == "improved"
            fortress = f"{ftype}-improved" if improved else "unimproved"
    return Works(str(level) if level else None, fortress, ftype, improved)


def _fec_rows(g: Game, w: Works) -> list[CombatEffect]:
    cc = combat_charts(g)
    rows = []
    if w.level and w.level in cc.fortifications:
        rows.append(cc.fortifications[w.level])
    if w.fortress:
        rows.append(cc.fortresses.get(w.fortress, cc.fortresses["unimproved"]))
    return rows


def fec_effect(g: Game, w: Works) -> CombatEffect | None:
    """OT 9H: the FEC row in force (the strongest one when a hex has both a marker and a
    fortress)."""
    rows = _fec_rows(g, w)
    if not rows:
        return None
    return min(rows, key=lambda r: (r.drm, r.attack))


def hex_effect(g: Game, i: int) -> CombatEffect | None:
    """OT 9H: the TEC combat column of the terrain of hex ``i`` (a frozen swamp or lake reads as the
    terrain it freezes to)."""
    tec = terrain.charts(g).tec
    name = terrain.terrain(g, i)
    row = tec.hexes.get(name)
    if row is not None and row.frozen_as and frozen_at(g, i):
        name = row.frozen_as
    return combat_charts(g).hexes.get(name)


def hexside_effects(g: Game, s: int, entering: int) -> list[tuple[str, CombatEffect]]:
    """OT 9H: the TEC combat columns of the features of hexside ``s`` (frozen features have
    none)."""
    tec = terrain.charts(g).tec
    cc = combat_charts(g)
    out = []
    frozen = frozen_at(g, entering)
    for f in terrain.side_features(g, s):
        eff = cc.hexsides.get(f)
        if eff is None:
            continue
        if frozen and tec.hexsides[f].frozen != "unchanged":
            continue
        out.append((f, eff))
    return out


def weather_effect(g: Game, i: int) -> CombatEffect:
    return combat_charts(g).weather.get(weather_at(g, i), CombatEffect())


def is_major_city(g: Game, i: int) -> bool:
    return geography.is_major_city_hex(g, i)


# ======================================================================== CRT choice (OT 9A step 1)
@implements("OT 9A", "OT 9J")
def crt_choice(
    g: Game,
    target: int,
    attackers: Sequence[Piece],
    defenders: Sequence[Piece],
    reaction: bool = False,
) -> tuple[str, str | None, str]:
    """OT 9A step 1: (CRT, side that may choose or None, reason).

    Positional if the hex has mountain terrain, a major city or a fortification other than
    fieldworks, else Mobile. Exception A: an infantry-capable attacker always uses the Mobile CRT.
    Exception B (overrides A): a mountain hex without fortifications beyond fieldworks where exactly
    one side is mountain/infantry-capable -- that side chooses. Attacks into a contested hex always
    use the Mobile CRT (OT 9J). Rule 14-15's ``crt_choice`` (open cities, flooding) decides when it
    is provided.
    """
    if marker(g, "contested", target):
        return MOBILE, None, "contested hex (OT 9J)"
    att_side = attackers[0].side if attackers else None
    def_side = nations.other_side(att_side) if att_side else None
    sit = combat_hooks.situation(g, attackers, defenders, target, None, reaction)
    hooked = combat_hooks.crt_choice(g, sit)
    if hooked is not None:
        crt, chooser = hooked
        if chooser is not None:
            why = "mountain hex: the mountain/infantry-capable side chooses (OT 9A exception B)"
        elif crt == MOBILE and (
            terrain.crt_for_hex(g, target) == POSITIONAL
            or is_major_city(g, target)
            or works(g, target, sit).beyond_fieldworks()
        ):
            why = "infantry-capable attacker, open city or works ignored (OT 9A, 14H1, 15A9, 15B)"
        else:
            why = (
                "mountain, major city or fortification (OT 9A)"
                if crt == POSITIONAL
                else "open terrain (OT 9A)"
            )
        return crt, chooser, why
    w = works(g, target, sit)
    mountain = terrain.crt_for_hex(g, target) == POSITIONAL
    base = POSITIONAL if (mountain or is_major_city(g, target) or w.beyond_fieldworks()) else MOBILE
    why = (
        "mountain, major city or fortification (OT 9A)"
        if base == POSITIONAL
        else "open terrain (OT 9A)"
    )
    if mountain and not w.beyond_fieldworks():
        a_mi = combat_hooks.mountain_infantry_capable(g, attackers)
        d_mi = combat_hooks.mountain_infantry_capable(g, defenders)
        if a_mi != d_mi:
            return (
                base,
                att_side if a_mi else def_side,
                "mountain hex: the mountain/infantry-capable side chooses (OT 9A exception B)",
            )
    if combat_hooks.infantry_capable(g, attackers):
        return MOBILE, None, "infantry-capable attacker (OT 9A exception A)"
    return base, None, why


# ============================================================================ the combat's forces
@dataclass
class Forces:
    target: int
    attacker: str
    defender: str
    attackers: list[Piece]  # adjacent or same-hex participants
    ranged: list[Piece]  # long-range artillery firing from 2+ hexes (OT 12B7)
    defenders: list[Piece]  # every defending unit in the hex
    counted: list[Piece]  # defenders whose strength counts
    ignored: list[Piece]  # overstacked (OT 8C2) and retreated-in (OT 9F2) defenders
    same_hex: bool = False

    @property
    def participants(self) -> list[Piece]:
        return self.attackers + self.ranged


def forces(g: Game, rec: dict[str, Any]) -> Forces:
    """The units of a combat record: participants and defenders as they are now."""
    target = g.board.idx(rec["target"])
    ps = g.state.pieces
    on_map = [ps[i] for i in rec["attackers"] if i in ps and units.hex_of(g, ps[i]) is not None]
    ranged_ids = set(rec.get("ranged", []))
    attackers = [p for p in on_map if p.id not in ranged_ids]
    ranged = [p for p in on_map if p.id in ranged_ids]
    defenders = [p for p in units.units_in_hex(g, target, rec["defender"])]
    retreated = set(rec.get("retreated_in", []))
    counted = [
        p
        for p in defenders
        if stacking.OVERSTACKED not in p.status and p.id not in retreated and not is_hq(p)
    ]
    counted_ids = {p.id for p in counted}
    ignored = [p for p in defenders if p.id not in counted_ids and not is_hq(p)]
    same = any(units.hex_of(g, p) == target for p in attackers)
    return Forces(
        target,
        rec["attacker"],
        rec["defender"],
        attackers,
        ranged,
        defenders,
        counted,
        ignored,
        same,
    )


# ============================================================================ unit strengths
@dataclass
class Line:
    """One unit's modified strength, factor by factor."""

    piece: str
    base: Fraction
    factors: list[Factor] = field(default_factory=list)

    @property
    def value(self) -> Fraction:
        v = self.base
        for f, _, _ in self.factors:
            v *= f
        return v

    def explain(self) -> str:
        parts = [fmt(self.base)]
        parts += [
            f"x{fmt(f)} {why} ({rule})"
            for f, rule, why in self.factors
            if f != 1 or rule.startswith("OT 11F")
        ]
        return f"{self.piece}: " + " ".join(parts) + f" = {fmt(self.value)}"


def _supply_factor(g: Game, p: Piece, supplied: set[str]) -> Factor:
    """OT 11F: x1 in combat supply; in general supply x1/2; first turn out x1/4 if isolated (x1/2
    otherwise under ``u1-not-isolated-halved``, else x1); later turns x1/4."""
    if p.id in supplied:
        return (Fraction(1), "OT 11F", "combat supply")
    provided = combat_hooks.supply_factor(g, p, False)
    if provided is not None:
        out = supply_status.turns_out_of_supply(g, p)
        why = "general supply only" if out == 0 else ("U-1" if out == 1 else "U-2 or later")
        return (provided, "OT 11F", why)
    out = supply_status.turns_out_of_supply(g, p)
    if out == 0:
        return (Fraction(1, 2), "OT 11F", "general supply only")
    if out == 1:
        h = units.hex_of(g, p)
        if h is not None and is_isolated(g, p.side, h):
            return (Fraction(1, 4), "OT 11F1", "U-1, isolated")
        if g.opt("u1-not-isolated-halved"):
            return (Fraction(1, 2), "OT 11F1", "U-1, not isolated")
        return (Fraction(1), "OT 11F1", "U-1, not isolated")
    return (Fraction(1, 4), "OT 11F2", "U-2 or later")


def _auto_supported_engineer(g: Game, p: Piece, target: int) -> bool:
    """OT 13D/13E/13F: combat and assault engineers are supported attacking into or defending in a
    hex with a major city or a fortification other than fieldworks."""
    tags = units.utype(p).tags
    if not ({"combat-engineer", "assault-engineer"} & tags):
        return False
    return is_major_city(g, target) or works(g, target).beyond_fieldworks()


def _supported(
    g: Game, p: Piece, companions: Sequence[Piece], target: int, sit: Any, role: str
) -> bool:
    """OT 12A: supported intrinsically or by a supporting unit of the same attack from the same hex
    (attack) or in the hex (defense); OT 13D engineers and OT 14C4 fast c/m as those rules say.
    Engineers supported only by OT 13D support nobody else."""
    hooked = combat_hooks.counts_as_supported(g, p, sit, role)
    if hooked:
        return True
    helpers = [
        q
        for q in companions
        if not (_auto_supported_engineer(g, q, target) and not support.intrinsically_supported(q))
    ]
    provided = combat_hooks.support_factor(g, p, helpers, target)
    if provided is not None:
        return provided == 1
    if support.is_supported(g, p, helpers):
        return True
    if _auto_supported_engineer(g, p, target):
        return True
    if hooked is not None:
        return hooked
    return (
        role == "attack"
        and special_units.is_fast_cm(p)
        and terrain.terrain(g, target) in ("clear", "rough", "stony-desert")
        and not works(g, target).level
        and not works(g, target).fortress
    )


def artillery_type_factor(g: Game, p: Piece, target: int) -> Factor | None:
    """OT 12B1-12B4 (and 12B5: coast artillery as heavy): the attack factor of an artillery type
    against the fortresses and major city of the attacked hex."""
    kind = units.utype(p).artillery
    if kind == "coast":
        kind = "heavy"
    w = works(g, target)
    old = w.improved and w.fortress_type == "old"
    new = w.improved and w.fortress_type == "new"
    great = w.improved and w.fortress_type == "great"
    city = is_major_city(g, target)
    if kind == "field":
        if (great or new or city) and not old:
            return (Fraction(1, 2), "OT 12B1", "field artillery against a fortress or major city")
    elif kind == "heavy":
        if old:
            return (Fraction(2), "OT 12B2", "heavy artillery against an improved fortress (old)")
        if great:
            return (Fraction(1, 2), "OT 12B2", "heavy artillery against an improved great fortress")
    elif kind == "siege":
        if old:
            return (Fraction(3), "OT 12B3", "siege artillery against an improved fortress (old)")
        if new or city:
            return (
                Fraction(2),
                "OT 12B3",
                "siege artillery against an improved fortress (new) or major city",
            )
    elif kind == "heavy-siege":
        if old:
            return (
                Fraction(4),
                "OT 12B4",
                "heavy siege artillery against an improved fortress (old)",
            )
        if new or city:
            return (
                Fraction(3),
                "OT 12B4",
                "heavy siege artillery against an improved fortress (new) or major city",
            )
        if great:
            return (
                Fraction(2),
                "OT 12B4",
                "heavy siege artillery against an improved great fortress",
            )
    return None


def _artillery_factors(
    g: Game, p: Piece, target: int, role: str, ranged: bool, sit: Any
) -> list[Factor]:
    hooked = combat_hooks.artillery_factors(g, p, sit, role)
    if hooked is not None:
        return hooked
    out: list[Factor] = []
    if role == "attack" and units.is_artillery(p):
        if not uses_modern_tactics(g, p):
            out.append((Fraction(1, 2), "OT 12B", "no modern artillery tactics"))
        t = artillery_type_factor(g, p, target)
        if t is not None:
            out.append(t)
        if ranged:
            out.append((Fraction(1, 2), "OT 12B7", "long-range artillery firing at range"))
    if BOMBARDED in p.status and (role == "attack" or g.opt("counterbombardment-halves-defense")):
        out.append((Fraction(1, 2), "OT 12C", "bombarded this phase"))
    return out


def _engineer_factor(g: Game, p: Piece, target: int, role: str) -> Factor | None:
    """OT 13E/13F assault engineers and flamethrowers (attack x3 against an improved fortress (old),
    x2 against an improved fortress (new) or a major city; defense x2 in a major city, improved
    fortress or improved fort); OT 13G siege engineers defend x2 in the same places. The engineer
    rules decide when they provide ``engineers.strength_factor``."""
    provided = combat_hooks.engineer_factor(g, p, target, role)
    if provided is not False:
        return provided  # type: ignore[return-value]
    tags = units.utype(p).tags
    w = works(g, target)
    city = is_major_city(g, target)
    if role == "attack" and "assault-engineer" in tags:
        if w.improved and w.fortress_type == "old":
            return (Fraction(3), "OT 13E", "assault engineers against an improved fortress (old)")
        if (w.improved and w.fortress_type == "new") or city:
            return (
                Fraction(2),
                "OT 13E",
                "assault engineers against an improved fortress (new) or major city",
            )
    if (
        role == "defense"
        and ("assault-engineer" in tags or units.utype(p).id == "siege-engineer")
        and (city or w.improved or w.level == "improved-fort")
    ):
        rule = "OT 13G" if units.utype(p).id == "siege-engineer" else "OT 13E"
        return (Fraction(2), rule, "engineers defending in a major city or improved fortification")
    return None


@implements("OT 9A", "OT 9H", "OT 9G2")
def attack_line(g: Game, p: Piece, fo: Forces, supplied: set[str], sit: Any) -> Line:
    """OT 9A step 2: one attacking unit's modified attack strength (see the module docstring)."""
    ranged = p in fo.ranged
    line = Line(p.id, printed_value(g, p, "attack"))
    add = line.factors.append
    d = units.disruption_factors(p)["attack"]
    if d != 1:
        add((d, "OT 3A5", "disrupted" if d else "badly disrupted"))
    if stacking.OVERSTACKED in p.status:
        add((stacking.overstack_attack_factor(p), "OT 8C2", "attacking from an overstack"))
    mortar = "mortar" in units.utype(p).tags
    he = hex_effect(g, fo.target)
    if he is not None and he.attack != 1 and not (mortar and he.mortar_exempt):
        add((he.attack, "OT 9H", f"attacking into {terrain.terrain(g, fo.target)}"))
    h = units.hex_of(g, p)
    if h is not None and h != fo.target and not ranged:
        s = g.board.side_between(h, fo.target)
        for name, eff in hexside_effects(g, s, fo.target):
            if eff.attack != 1 and not (mortar and eff.mortar_exempt):
                add((eff.attack, "OT 9H", f"attacking across {name}"))
    fe = fec_effect(g, works(g, fo.target, sit))
    if fe is not None and fe.attack != 1 and not units.is_artillery(p):
        add((fe.attack, "OT 9H", "fortification (FEC)"))
    add(_supply_factor(g, p, supplied))
    companions = [q for q in fo.attackers if units.hex_of(g, q) == h]
    if not _supported(g, p, companions, fo.target, sit, "attack"):
        add((Fraction(1, 2), "OT 12A", "unsupported"))
    line.factors.extend(_artillery_factors(g, p, fo.target, "attack", ranged, sit))
    e = _engineer_factor(g, p, fo.target, "attack")
    if e is not None:
        add(e)
    uf = combat_hooks.unit_factor(g, p, sit, "attack")
    if (
        uf is None
        and "heavy-cavalry" in units.utype(p).tags
        and (is_major_city(g, fo.target) or works(g, fo.target).beyond_fieldworks())
    ):
        uf = Fraction(1, 2)
    if uf is not None and uf != 1:
        add((uf, "OT 14", "special unit (Rule 14)"))
    line.factors = [f for f in line.factors if f[0] != 1 or f[1] == "OT 11F"]
    return line


@implements("OT 9A", "OT 9G2")
def defense_line(g: Game, p: Piece, fo: Forces, supplied: set[str], sit: Any) -> Line:
    """OT 9A step 4: one defending unit's modified defense strength (see the module docstring)."""
    line = Line(p.id, printed_value(g, p, "defense"))
    add = line.factors.append
    d = units.disruption_factors(p)["defense"]
    if d != 1:
        add((d, "OT 3A5", "disrupted" if d == Fraction(1, 2) else "badly disrupted"))
    add(_supply_factor(g, p, supplied))
    if not _supported(g, p, fo.counted, fo.target, sit, "defense"):
        add((Fraction(1, 2), "OT 12A", "unsupported"))
    line.factors.extend(_artillery_factors(g, p, fo.target, "defense", False, sit))
    e = _engineer_factor(g, p, fo.target, "defense")
    if e is not None:
        add(e)
    uf = combat_hooks.unit_factor(g, p, sit, "defense")
    if uf is not None and uf != 1:
        add((uf, "OT 14", "special unit (Rule 14)"))
    line.factors = [f for f in line.factors if f[0] != 1 or f[1] == "OT 11F"]
    return line


@implements("OT 9A")
def artillery_ratio(
    g: Game, lines: Sequence[Line], pieces: Sequence[Piece]
) -> tuple[list[str], Fraction]:
    """OT 12B (applied to the combat totals): artillery uses its full strength only while the
    non-artillery REs (participating, or in the hex) are at least twice its REs (equal to them for a
    nation with modern tactics); the artillery beyond that counts the lower of 1 and its modified
    total. Overstacked units and HQs do not count as non-artillery (OT 8C2, 12A). The owner's best
    choice of full-strength artillery is made (the rulebook lets him choose). Returns (ids at full
    strength, reduction of the total)."""
    by_id = {p.id: p for p in pieces}
    arts = [ln for ln in lines if units.is_artillery(by_id[ln.piece])]
    if not arts:
        return [], Fraction(0)
    provided = combat_hooks.artillery_ratio(g, {ln.piece: ln.value for ln in lines}, pieces)
    if provided is not None:
        full_ids, art_total = provided
        return full_ids, sum((ln.value for ln in arts), Fraction(0)) - art_total
    allowance = sum(
        (
            units.re_size(g, p)
            for p in pieces
            if not units.is_artillery(p) and not is_hq(p) and stacking.OVERSTACKED not in p.status
        ),
        Fraction(0),
    )

    def cost(ln: Line) -> Fraction:
        p = by_id[ln.piece]
        return units.re_size(g, p) * (1 if uses_modern_tactics(g, p) else 2)

    if sum((cost(ln) for ln in arts), Fraction(0)) <= allowance:
        return [ln.piece for ln in arts], Fraction(0)
    best: tuple[Fraction, tuple[int, ...]] = (Fraction(-1), ())
    if len(arts) <= 12:
        for k in range(len(arts) + 1):
            for combo in combinations(range(len(arts)), k):
                if sum((cost(arts[i]) for i in combo), Fraction(0)) > allowance:
                    continue
                full = sum((arts[i].value for i in combo), Fraction(0))
                rest = sum((arts[i].value for i in range(len(arts)) if i not in combo), Fraction(0))
                total = full + min(Fraction(1), rest)
                if total > best[0]:
                    best = (total, combo)
    else:
        order = sorted(
            range(len(arts)),
            key=lambda i: (-(arts[i].value / max(cost(arts[i]), Fraction(1, 4))), arts[i].piece),
        )
        chosen: list[int] = []
        used = Fraction(0)
        for i in order:
            if used + cost(arts[i]) <= allowance:
                chosen.append(i)
                used += cost(arts[i])
        best = (Fraction(0), tuple(chosen))
    full_ids = [arts[i].piece for i in best[1]]
    rest = sum((arts[i].value for i in range(len(arts)) if i not in best[1]), Fraction(0))
    return full_ids, rest - min(Fraction(1), rest)


# ============================================================================ the calculation
@dataclass
class Calc:
    """Everything OT 9A computes for one attack, with the rule behind each number."""

    target: int
    crt: str
    forces: Forces
    attack_lines: list[Line]
    defense_lines: list[Line]
    attack_adjust: list[Factor]
    defense_adjust: list[Factor]
    attack: Fraction
    defense: Fraction
    ratio: Fraction | None
    base_level: int
    shifts: Modifiers
    drms: Modifiers
    level: int
    top: int
    column: str | None
    automatic: str | None
    infantry: bool
    ladder: Ladder
    notes: list[str] = field(default_factory=list)

    @property
    def drm(self) -> int:
        return int(self.drms.total())

    @property
    def shift(self) -> int:
        return int(self.shifts.total())

    def distribution(self) -> dict[str, float]:
        """The exact probability of each result (OT 9A step 7 with the net DRM)."""
        if self.automatic is not None:
            return {self.automatic: 1.0}
        return self.ladder.table.distribution(self.level, self.drm)

    def to_json(self) -> dict[str, Any]:
        return {
            "crt": self.crt,
            "attack": str(self.attack),
            "defense": str(self.defense),
            "attack_lines": [ln.explain() for ln in self.attack_lines],
            "defense_lines": [ln.explain() for ln in self.defense_lines],
            "attack_adjust": [f"{fmt(v)} {why} ({rule})" for v, rule, why in self.attack_adjust],
            "defense_adjust": [f"{fmt(v)} {why} ({rule})" for v, rule, why in self.defense_adjust],
            "odds": self.ladder.level_label(self.base_level),
            "shifts": self.shifts.to_json(),
            "drm": self.drm,
            "drms": self.drms.to_json(),
            "column": self.column,
            "automatic": self.automatic,
            "distribution": self.distribution(),
        }


def _sum(lines: Iterable[Line]) -> Fraction:
    return sum((ln.value for ln in lines), Fraction(0))


def _combat_hq(g: Game, side: str, pieces: Sequence[Piece]) -> Piece | None:
    return combat_hooks.combat_supply_hq(g, side, pieces)


@implements("OT 9A", "OT 9B", "OT 9H", "OT 9J")
def compute(g: Game, rec: dict[str, Any]) -> Calc:
    """OT 9A steps 2, 4, 6 and 7 for the combat record ``rec``: totals, odds rounded down in the
    defender's favour, net column shifts (fatigue OT 6B4, special effects OT 10), the top-column
    cap (OT 9B: Mobile 6:1, or 9:1 for an infantry-capable attacker) and automatic results below
    1:4, and the net die-roll modifier (terrain, fortifications, weather, cities, contested hex,
    special effects, Rules 14-15)."""
    fo = forces(g, rec)
    crt = (
        rec.get("crt")
        or crt_choice(g, fo.target, fo.participants, fo.counted, bool(rec.get("reaction")))[0]
    )
    sit = combat_hooks.situation(
        g, fo.participants, fo.defenders, fo.target, crt, bool(rec.get("reaction"))
    )
    stored = rec.get("combat_supply", {})
    a_sup = (
        set(stored[fo.attacker])
        if fo.attacker in stored
        else combat_hooks.combat_supplied(g, fo.attacker, fo.participants, sit)
    )
    d_sup = (
        set(stored[fo.defender])
        if fo.defender in stored
        else combat_hooks.combat_supplied(g, fo.defender, fo.counted, sit)
    )
    a_lines = [attack_line(g, p, fo, a_sup, sit) for p in fo.participants]
    d_lines = [defense_line(g, p, fo, d_sup, sit) for p in fo.counted]
    a_adj: list[Factor] = []
    d_adj: list[Factor] = []
    _, cut = artillery_ratio(g, a_lines, fo.participants)
    if cut:
        a_adj.append((-cut, "OT 12B", "artillery beyond the ratio counts at most 1"))
    _, cut = artillery_ratio(g, d_lines, fo.counted)
    if cut:
        d_adj.append((-cut, "OT 12B", "artillery beyond the ratio counts at most 1"))
    for v, rule, why in rec.get("additions", {}).get("attack", []):
        a_adj.append((Fraction(v), rule, why))
    for v, rule, why in rec.get("additions", {}).get("defense", []):
        d_adj.append((Fraction(v), rule, why))
    attack = _sum(a_lines) + sum((v for v, _, _ in a_adj), Fraction(0))
    defense = _sum(d_lines) + sum((v for v, _, _ in d_adj), Fraction(0))
    lad = ladder(g, crt)
    infantry = combat_hooks.infantry_capable(g, fo.participants, sit, "attack")
    ratio: Fraction | None = None
    if attack <= 0:
        base = -(10**6)
    elif defense <= 0:
        base = len(lad.values) - 1 + 100
    else:
        ratio = attack / defense
        base = lad.level_of(ratio)
    frozen = rec.get("frozen")
    if frozen:  # OT 10: units lost in special effects attempts do not change the odds
        attack, defense = Fraction(frozen["attack"]), Fraction(frozen["defense"])
        ratio = None if frozen.get("ratio") is None else Fraction(frozen["ratio"])
        base = int(frozen["base_level"])
    if rec.get("incremental_level") is not None:
        base = int(rec["incremental_level"])
    shifts = Modifiers()
    a_hq = _combat_hq(g, fo.attacker, fo.participants)
    d_hq = _combat_hq(g, fo.defender, fo.counted)

    fat = combat_fatigue_shift(fo.participants, fo.counted, a_hq, d_hq)
    shifts.add(fat, "OT 6B4", "fatigue")
    for e in rec.get("effect_shifts", []):
        shifts.add(int(e[0]), str(e[1]), str(e[2]))
    drms = Modifiers()
    he = hex_effect(g, fo.target)
    if he is not None and he.drm:
        drms.add(he.drm, "OT 9H", f"{terrain.terrain(g, fo.target)} (TEC)")
    we = weather_effect(g, fo.target)
    if we.drm:
        drms.add(we.drm, "OT 9H", f"{weather_at(g, fo.target)} weather (TEC)")
    cc = combat_charts(g)
    city_drm = min(
        (cc.places[pt.kind].drm for pt in g.board.points_at(fo.target) if pt.kind in cc.places),
        default=0,
    )
    if city_drm:
        drms.add(city_drm, "OT 9H", "city (TEC)")
    fe = fec_effect(g, works(g, fo.target, sit))
    if fe is not None:
        v = fe.drm_vs_infantry if (infantry and fe.drm_vs_infantry is not None) else fe.drm
        drms.add(
            v,
            "OT 9H",
            "fortification (FEC)"
            + (
                " against an infantry-capable attacker (OT 14H1)"
                if infantry and fe.drm_vs_infantry is not None
                else ""
            ),
        )
    if marker(g, "contested", fo.target):
        drms.add(-1, "OT 9J", "attack into a contested hex")
    for e in rec.get("effect_drms", []):
        drms.add(int(e[0]), str(e[1]), str(e[2]))
    drms.extend(combat_hooks.combat_drms(g, sit, a_hq, d_hq))
    for e in rec.get("roll_drms", []):
        drms.add(int(e[0]), str(e[1]), str(e[2]))
    cap = combat_hooks.mobile_column_cap(g, sit) if crt == MOBILE else None
    if cap is not None:
        top = lad.level_of(Fraction(cap))
    else:
        top = lad.infantry_top if (crt == MOBILE and infantry) else lad.top
    if g.opt("odds-shift-before-clamp"):
        level = base + int(shifts.total())
        level = min(level, top)
    else:
        level = max(min(base, top), -(10**6)) + int(shifts.total())
        level = min(level, top)
    automatic = None
    column = None
    if level < 0:
        automatic = lad.automatic
    else:
        column = lad.table.columns[level]
    return Calc(
        fo.target,
        crt,
        fo,
        a_lines,
        d_lines,
        a_adj,
        d_adj,
        attack,
        defense,
        ratio,
        base,
        shifts,
        drms,
        level,
        top,
        column,
        automatic,
        infantry,
        lad,
    )


# =========================================================================== OT 9L incremental odds
@implements("OT 9L")
def incremental_eligible(calc: Calc) -> bool:
    """OT 9L: the attacker may use incremental odds when the ratio is 2:1 or more."""
    return calc.ratio is not None and calc.ratio >= 2


@implements("OT 9L")
def incremental_level(calc: Calc, d10: int) -> int:
    """OT 9L: the ratio to the nearest tenth; a d10 roll (0 counts as 10) at or under its tenths
    digit rounds it up to the next whole N:1, otherwise down. Returns the odds level."""
    assert calc.ratio is not None
    tenths = math.floor(calc.ratio * 10 + Fraction(1, 2))
    whole, digit = divmod(tenths, 10)
    n = whole + 1 if d10 <= digit else whole
    return calc.ladder.level_of(Fraction(n))


def rounded_tenths(ratio: Fraction) -> Fraction:
    """OT 9L: a ratio rounded to the nearest tenth (48/20 -> 2.4)."""
    return Fraction(math.floor(ratio * 10 + Fraction(1, 2)), 10)


def supply_multiplier(g: Game, p: Piece) -> Fraction:
    """OT 11F as used by overruns (general supply status only): in general supply x1/2; first turn
    out x1/4 if isolated (x1/2 otherwise: interpretation default); later turns x1/4."""
    out = supply_status.turns_out_of_supply(g, p)
    if out == 0:
        return Fraction(1, 2)
    if out == 1:
        h = units.hex_of(g, p)
        return Fraction(1, 4) if h is not None and is_isolated(g, p.side, h) else Fraction(1, 2)
    return Fraction(1, 4)


@implements("OT 6F1")
def overrun_strength(
    g: Game, p: Piece, role: str, target: int, companions: Sequence[Piece]
) -> Fraction:
    """OT 6F1: a unit's modified attack (``role="attack"``) or defense strength in an overrun:
    disruption (OT 3A5), general supply status (OT 11F), support (OT 12A; fast c/m units count as
    supported in clear, rough or stony desert without fortifications, OT 14C4), artillery tactics
    (OT 12B, attack only) and heavy cavalry against cities and fortifications (OT 14D1). Terrain and
    fortification effects are those of combat (OT 9H): halving of attackers by the hex attacked."""
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
    supported = support.is_supported(g, p, companions)
    if (
        not supported
        and special_units.is_fast_cm(p)
        and role == "attack"
        and terrain.terrain(g, target) in ("clear", "rough", "stony-desert")
        and not fortified(g, target)
    ):
        supported = True
    if not supported:
        v /= 2
    if role == "attack" and units.is_artillery(p) and not uses_modern_tactics(g, p):
        v /= 2
    if (
        role == "attack"
        and "heavy-cavalry" in units.utype(p).tags
        and (geography.is_major_city_hex(g, target) or fortified(g, target))
    ):
        v /= 2
    return v


def fortified(g: Game, i: int) -> bool:
    """A fortification other than fieldworks, or a fortress, in the hex (OT 15B)."""
    f = marker(g, "fortification", i)
    if f and f != "fieldworks":
        return True
    return any(pt.kind == "fortress" for pt in g.board.points_at(i))


REQUIRED_ODDS = 10


ZERO_DEFENSE_ODDS = 12


@implements("OT 6F1", "OT 6B4")
def overrun_odds(
    g: Game, attackers: Sequence[Piece], defenders: Sequence[Piece], target: int
) -> tuple[int, int, int]:
    """OT 6F1: (odds before shifts, net fatigue shift, final odds) of an overrun, as N for N:1.

    Attack and defense totals of modified strengths (overstacked defenders ignored, OT 8C2); the
    ratio is rounded down for the defender; a defense of 0 is overrun at 12:1 by any positive
    attack; then the fatigue shifts (OT 6B4): down one level per hit on the most fatigued
    overrunning unit, up one per hit on the most fatigued unit overrun.
    """
    att = sum((overrun_strength(g, p, "attack", target, attackers) for p in attackers), Fraction(0))
    counted = [p for p in defenders if stacking.OVERSTACKED not in p.status]
    dfn = sum((overrun_strength(g, p, "defense", target, counted) for p in counted), Fraction(0))
    base = overrun_ratio(att, dfn)
    shift = max((movement.fatigue(p) for p in defenders), default=0) - max(
        (movement.fatigue(p) for p in attackers), default=0
    )
    return base, shift, base + shift


@implements("OT 6F1")
def overrun_ratio(attack: Fraction | int, defense: Fraction | int) -> int:
    """OT 6F1: attack/defense rounded down to N:1 in favour of the units overrun; a defense of 0 is
    overrun at 12:1 by any attack above 0."""
    att, dfn = Fraction(attack), Fraction(defense)
    if att <= 0:
        return 0
    if dfn <= 0:
        return ZERO_DEFENSE_ODDS
    return math.floor(att / dfn)


@implements("OT 6F1")
def overrun_succeeds(base: int, shift: int) -> bool:
    """OT 6F1: the final odds, after the fatigue shifts, must be 10:1 or more."""
    return base + shift >= REQUIRED_ODDS
