"""OT 12 (artillery): support, artillery units and their types, and bombardment.

* OT 12A support: :func:`intrinsically_supported`, :func:`provides_support`, :func:`is_supported`,
  :func:`support_strength` (with the automatic support of combat engineers, OT 13D).
* OT 12B artillery units: modern tactics (:func:`uses_modern_tactics`), the defense/attack ratio
  (:func:`full_strength_choice`, :func:`ratio_total`), the type factors of 12B1-12B5
  (:func:`type_factor`), mortars (12B6), long-range artillery (12B7), gas artillery (12B8),
  artillery divisions (12B9, text absent: :func:`division_components`), movement disruption
  (12B2-12B4). :func:`combat_factors` is what the combat rules call for every unit in an attack or
  a defense (``combat_hooks.artillery_factors``).
* OT 12C bombardment: the ``bombardment-segment`` step (the phasing player bombards, then the
  non-phasing player counter-bombards with artillery in hexes that were bombarded), the
  Bombardment Table (``data/tables/bombardment.toml``, provisional), fortification reduction, the
  ``bombardment-hits`` step in which the bombarder and then the defender allocate hits (12C3),
  air points and monitors (12C4), terror bombardment (12C5).

Bombard action: ``{"type": "bombard", "side", "pieces": [ids], "target": hex, "gec": bool,
"terror": bool, "air_points": n}``. Hit allocation: ``{"type": "assign-hit", "side", "piece"}``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.greatwar import calendar, mechanics, special_rules
from grognard.rulesets.greatwar.combat.support import (
    is_supported,
)
from grognard.rulesets.greatwar.logistics import engineers, logistics
from grognard.rulesets.greatwar.map import geography, terrain
from grognard.rulesets.greatwar.map.weather import weather_at
from grognard.rulesets.greatwar.mechanics import gw, marker, table_roll
from grognard.rulesets.greatwar.movement import stacking
from grognard.rulesets.greatwar.movement.stacking import OVERSTACKED, overstack_attack_factor
from grognard.rulesets.greatwar.step import GWStep
from grognard.rulesets.greatwar.supply import supply
from grognard.rulesets.greatwar.units import special_units, units
from grognard.rulesets.greatwar.units.nations import other_side, rulebook_name, side_of_nation

if TYPE_CHECKING:
    from grognard.core.game import Game

BOMBARDED = "bombarded"  # status until the end of the combat phase (OT 12C)
GEC_USED = (  # status: a gas unit that attempted GEC in the bombardment segment (OT 12C)
    "gec-in-bombardment"
)
Factor = tuple[Fraction, str, str]


# ============================================================================ OT 12A support


@implements("OT 12A", "OT 13D")
def support_strength(
    g: Game,
    p: Piece,
    value: Fraction,
    companions: Sequence[Piece] | None = None,
    target: int | None = None,
) -> Fraction:
    """OT 12A: an unsupported unit's combat strength is halved. ``companions`` as for
    :func:`is_supported`; ``target`` the attacked hex (for a combat engineer attacking into or
    defending in a major city or fortification other than fieldworks, which is automatically
    supported, OT 13D)."""

    if is_supported(g, p, companions):
        return Fraction(value)
    hex_ = target if target is not None else units.hex_of(g, p)
    if hex_ is not None and engineers.auto_supported(g, p, hex_):
        return Fraction(value)
    return Fraction(value) / 2


# =========================================================================== OT 12B artillery units
MODERN_TACTICS = (
    ("Oct I 17", ("Austria-Hungary", "Germany")),
    ("Jul I 18", ("USA", "United States", "America", "Britain", "Great Britain", "France")),
    ("Feb I 19", None),
)


@implements("OT 12B")
def uses_modern_tactics(g: Game, p: Piece) -> bool:
    """OT 12B: modern artillery tactics from Oct I 17 (Austria-Hungary, Germany), Jul I 18
    (America, Britain, France), Feb I 19 (every other nation)."""

    name = rulebook_name(g, p.nation)
    for when, who in MODERN_TACTICS:
        if who is None or name in who:
            return calendar.on_or_after(g, when)
    return False


def is_hq(p: Piece) -> bool:
    return any(t in units.utype(p).tags for t in ("army-hq", "corps-hq", "art-xx-hq"))


@implements("OT 12B")
def ratio_cost(g: Game, p: Piece) -> Fraction:
    """OT 12B: non-artillery REs an artillery unit needs to use its full strength: twice its REs,
    its REs once its nation uses modern artillery tactics."""
    return units.re_size(g, p) * (1 if uses_modern_tactics(g, p) else 2)


@implements("OT 12B", "OT 8C2")
def non_artillery_re(g: Game, pieces: Sequence[Piece]) -> Fraction:
    """OT 12B: the non-artillery REs that allow artillery its full strength (participating in the
    attack, or in the defending hex). HQs (no combat strength) and overstacked units (OT 8C2) do
    not count (interpretation default)."""

    return sum(
        (
            units.re_size(g, p)
            for p in pieces
            if not units.is_artillery(p)
            and not is_hq(p)
            and OVERSTACKED not in p.status
            and units.is_unit(p)
        ),
        Fraction(0),
    )


@implements("OT 12B")
def full_strength_choice(
    g: Game,
    values: dict[str, Fraction],
    pieces: Sequence[Piece],
    chosen: Sequence[str] | None = None,
) -> tuple[list[str], Fraction]:
    """OT 12B: artillery attacks or defends at full strength only while the non-artillery REs are
    at least twice its REs (equal with modern tactics); the owner picks which artillery is at full
    strength; all the other artillery together counts the lower of 1 and its modified total (the
    list after "the lower of the following values" is missing for attacks: the defense rule is used,
    digest default S6). ``values`` maps each unit id to its modified strength; ``chosen`` is the
    owner's pick (default: the best one for him). Returns (ids at full strength, total of the
    artillery)."""
    by_id = {p.id: p for p in pieces}
    arts = sorted((pid for pid in values if units.is_artillery(by_id[pid])), key=str)
    allowance = non_artillery_re(g, pieces)
    if not arts:
        return [], Fraction(0)

    def total(full: Sequence[str]) -> Fraction:
        rest = sum((values[a] for a in arts if a not in full), Fraction(0))
        return sum((values[a] for a in full), Fraction(0)) + min(Fraction(1), rest)

    def fits(full: Sequence[str]) -> bool:
        return sum((ratio_cost(g, by_id[a]) for a in full), Fraction(0)) <= allowance

    if chosen is not None:
        full = [a for a in arts if a in set(chosen)]
        if not fits(full):
            raise IllegalAction(
                "OT 12B",
                f"{len(full)} artillery units at full strength need more than {allowance}"
                " non-artillery RE",
            )
        return full, total(full)
    if fits(arts):
        return arts, total(arts)
    best: tuple[Fraction, list[str]] = (Fraction(-1), [])
    if len(arts) <= 12:
        for k in range(len(arts) + 1):
            for combo in combinations(arts, k):
                if fits(combo):
                    t = total(combo)
                    if t > best[0]:
                        best = (t, list(combo))
    else:
        order = sorted(
            arts, key=lambda a: (-(values[a] / max(ratio_cost(g, by_id[a]), Fraction(1, 4))), a)
        )
        full: list[str] = []  # type: ignore[no-redef]
        for a in order:
            if fits([*full, a]):
                full.append(a)
        best = (total(full), full)
    return best[1], best[0]


@implements("OT 12B")
def ratio_total(
    g: Game,
    values: dict[str, Fraction],
    pieces: Sequence[Piece],
    chosen: Sequence[str] | None = None,
) -> Fraction:
    """OT 12B: the total strength of a side's units (``values``: modified strengths by unit id) with
    the artillery ratio applied."""
    _full, art_total = full_strength_choice(g, values, pieces, chosen)
    by_id = {p.id: p for p in pieces}
    others = sum(
        (v for pid, v in values.items() if not units.is_artillery(by_id[pid])), Fraction(0)
    )
    return others + art_total


@dataclass(frozen=True)
class HexWorks:
    """The fortress and major city of a hex, as the artillery type rules read them (OT
    12B1-12B4)."""

    old: bool  # improved fortress (old)
    new: bool  # improved fortress (new)
    great: bool  # improved great fortress
    city: bool  # major city


def hex_works(g: Game, i: int) -> HexWorks:
    old = new = great = False
    for pt in g.board.points_at(i):
        if pt.kind == "fortress":
            improved = (
                str(marker(g, "fortress-state", i) or pt.attrs.get("state", "unimproved"))
                == "improved"
            )
            t = str(pt.attrs.get("type", "new"))
            old = old or (improved and t == "old")
            new = new or (improved and t == "new")
            great = great or (improved and t == "great")
    return HexWorks(old, new, great, geography.is_major_city_hex(g, i))


@implements("OT 12B1", "OT 12B2", "OT 12B3", "OT 12B4", "OT 12B5")
def type_factor(g: Game, p: Piece, target: int, bombard: bool = False) -> list[Factor]:
    """OT 12B1-12B5: attack factors of the artillery types against the target hex.

    Field artillery (12B1): x1/2 when bombarding; x1/2 attacking an improved great fortress, an
    improved fortress (new) or a major city unless an improved fortress (old) is there too. Heavy
    artillery (12B2, and coast artillery, 12B5): x2 against an improved fortress (old), x1/2 against
    an improved great fortress, attacking or bombarding. Siege artillery (12B3): x3 against an
    improved fortress (old), x2 against an improved fortress (new) or a major city. Heavy siege
    artillery (12B4): x4 / x3 likewise, and x2 against an improved great fortress."""
    kind = units.utype(p).artillery
    if kind == "coast":
        kind = "heavy"
    w = hex_works(g, target)
    out: list[Factor] = []
    if kind == "field":
        if bombard:
            out.append((Fraction(1, 2), "OT 12B1", "field artillery bombarding"))
        if not bombard and (w.great or w.new or w.city) and not w.old:
            out.append(
                (Fraction(1, 2), "OT 12B1", "field artillery against a fortress or major city")
            )
    elif kind == "heavy":
        if w.old:
            out.append(
                (Fraction(2), "OT 12B2", "heavy artillery against an improved fortress (old)")
            )
        elif w.great:
            out.append(
                (Fraction(1, 2), "OT 12B2", "heavy artillery against an improved great fortress")
            )
    elif kind == "siege":
        if w.old:
            out.append(
                (Fraction(3), "OT 12B3", "siege artillery against an improved fortress (old)")
            )
        elif w.new or w.city:
            out.append(
                (
                    Fraction(2),
                    "OT 12B3",
                    "siege artillery against an improved fortress (new) or major city",
                )
            )
    elif kind == "heavy-siege":
        if w.old:
            out.append(
                (Fraction(4), "OT 12B4", "heavy siege artillery against an improved fortress (old)")
            )
        elif w.new or w.city:
            out.append(
                (
                    Fraction(3),
                    "OT 12B4",
                    "heavy siege artillery against an improved fortress (new) or major city",
                )
            )
        elif w.great:
            out.append(
                (Fraction(2), "OT 12B4", "heavy siege artillery against an improved great fortress")
            )
    return out


@implements("OT 12B6")
def is_mortar(p: Piece) -> bool:
    """OT 12B6: light mortar, motorized light mortar, heavy mortar, gas heavy mortar and siege
    mortar."""
    return units.is_artillery(p) and "mortar" in units.utype(p).tags


@implements("OT 12B6")
def mountain_factor(g: Game, p: Piece, source: int | None, target: int) -> Factor | None:
    """The mountain line of the TEC for artillery attacking or bombarding into a mountain hex or
    across a mountain hexside: x1/2, except mortars (OT 12B6)."""
    if is_mortar(p):
        return None
    mountain = terrain.terrain(g, target) == "mountain"
    if not mountain and source is not None and target in g.board.neighbors(source):
        mountain = "mountain" in terrain.side_features(g, g.board.side_between(source, target))
    return (
        (Fraction(1, 2), "OT 12B6", "attacking into or across mountains (TEC)")
        if mountain
        else None
    )


@implements("OT 12B7")
def range_of(p: Piece) -> int:
    """OT 12B7: the attack/bombardment range of an artillery unit: the printed range when it is 2 or
    more (a printed 1 is an AA strength), else 1."""
    if not units.is_artillery(p):
        return 1
    r = p.faces.get(p.face, {}).get("range", p.attrs.get("range"))
    try:
        return int(r) if r is not None and int(r) >= 2 else 1
    except (TypeError, ValueError):
        return 1


@implements("OT 12B7")
def fires_at_range(g: Game, p: Piece, target: int) -> bool:
    """OT 12B7: a long-range artillery unit more than one hex from the target fires at range: its
    attack is halved in combat (not in bombardment), it is not subject to combat results, may not
    advance, is left out of exchanges, and may not attack alone."""
    h = units.hex_of(g, p)
    return h is not None and range_of(p) >= 2 and g.board.distance(h, target) >= 2


@implements("OT 12B3", "OT 12B4", "OT 12B7")
def may_advance(g: Game, p: Piece, target: int | None = None) -> bool:
    """Siege and heavy siege artillery never advance after combat (OT 12B3, 12B4), nor does
    long-range artillery that fired at range (OT 12B7)."""
    if units.utype(p).artillery in ("siege", "heavy-siege"):
        return False
    return not (target is not None and fires_at_range(g, p, target))


@implements("OT 12B4")
def may_retreat(p: Piece) -> bool:
    """OT 12B4: heavy siege artillery may not retreat after combat (forced to, it is eliminated:
    interpretation default A24)."""
    return units.utype(p).artillery != "heavy-siege"


@implements("OT 12B7")
def subject_to_results(g: Game, p: Piece, target: int) -> bool:
    """OT 12B7: artillery firing at range is not subject to combat results (or exchanges)."""
    return not fires_at_range(g, p, target)


@implements("OT 12B7")
def ranged_attack_problem(g: Game, attackers: Sequence[Piece], target: int) -> str | None:
    """OT 12B7: long-range artillery firing at range may attack only with units adjacent to the
    defending hex; out of range it may not attack at all."""
    adj = False
    for p in attackers:
        h = units.hex_of(g, p)
        if h is None:
            continue
        d = g.board.distance(h, target)
        if d > range_of(p):
            return f"{p.id} is out of range of {g.board.label(target)}"
        if d == 1:
            adj = True
    return (
        None if adj else "long-range artillery may not attack alone from 2 or more hexes (OT 12B7)"
    )


@implements("OT 12B8")
def is_gas_artillery(p: Piece) -> bool:
    """OT 12B8: gas heavy mortar and gas heavy artillery units are gas artillery."""
    return units.is_artillery(p) and "gas" in units.utype(p).tags


@implements("OT 12B8", "OT 12C")
def gec_allowed_in_combat(p: Piece) -> bool:
    """OT 12C: gas artillery that attempted GEC in the bombardment segment may not attempt it in
    the following combat segment (OT 12B8: otherwise any combat with gas artillery may)."""
    return GEC_USED not in p.status


@implements("OT 9D", "OT 12B1")
def counts_as_artillery_for_losses(g: Game, p: Piece) -> bool:
    """OT 12B1 with the optional clause of OT 9D: field artillery may be lost as non-artillery."""
    if not units.is_artillery(p):
        return False
    return not (g.opt("field-art-as-nonart-losses") and units.utype(p).artillery == "field")


@implements("OT 12B9")
def division_components(g: Game, hq: Piece) -> list[Piece]:
    """OT 12B9 (text absent; defaults from OT 12C2 and 8A1): the component artillery units of an
    artillery division -- the artillery units carried in its Art XX HQs' box, or in its hex with
    ``attrs.division`` naming the HQs."""
    out = [q for q in g.state.contents(hq.id) if units.is_artillery(q)]
    h = units.hex_of(g, hq)
    if h is not None:
        out += [
            q
            for q in units.units_in_hex(g, h, hq.side)
            if q.attrs.get("division") == hq.id and q not in out and units.is_artillery(q)
        ]
    return sorted(out, key=lambda q: q.id)


@implements("OT 12B9")
def division_modifier(hq: Piece) -> Fraction:
    """OT 12B9 (text absent): the Art XX HQs' combat strength modifier is its printed attack value,
    added when the whole division bombards as a single unit (interpretation default)."""
    return units.printed_attack(hq)


@implements("OT 12B", "OT 12B1", "OT 12B2", "OT 12B3", "OT 12B4", "OT 12B5", "OT 12B7", "OT 12C")
def combat_factors(g: Game, p: Piece, sit: Any, role: str) -> list[Factor]:
    """The artillery factors of a unit in an attack (``role="attack"``) or a defense
    (``"defense"``) -- what the combat rules multiply in (``combat_hooks.artillery_factors``):
    no modern tactics x1/2 (attack, OT 12B), the type factors (OT 12B1-12B5), long range at range
    x1/2 (OT 12B7), and units that bombarded in this combat phase's bombardment segment x1/2 (OT
    12C;
    in defense only with the option ``counterbombardment-halves-defense``). ``sit`` has the attacked
    hex in ``hex``."""
    target = int(getattr(sit, "hex", sit if isinstance(sit, int) else -1))
    out: list[Factor] = []
    if role == "attack" and units.is_artillery(p):
        if not uses_modern_tactics(g, p):
            out.append((Fraction(1, 2), "OT 12B", "no modern artillery tactics"))
        if target >= 0:
            out.extend(type_factor(g, p, target))
            if fires_at_range(g, p, target):
                out.append((Fraction(1, 2), "OT 12B7", "long-range artillery firing at range"))
    if BOMBARDED in p.status and (role == "attack" or g.opt("counterbombardment-halves-defense")):
        out.append((Fraction(1, 2), "OT 12C", "bombarded in this combat phase"))
    return out


# ============================================================================ OT 12C bombardment
def bombardment_table(g: Game) -> Any:
    return mechanics.tables(g)["bombardment"]


@implements("OT 12C2")
def bombardment_column(g: Game, strength: Fraction) -> str | None:
    """OT 12C2: the column with the highest strength not above the bombardment strength (102 ->
    "100+", 49 -> the column below 50); None below the lowest column."""
    best = None
    for c in bombardment_table(g).columns:
        v = Fraction(c.rstrip("+"))
        if v <= strength:
            best = c
    return best


@implements("OT 12C4", "OT 12C4a", "OT 12C4b")
def bombardment_forms(g: Game) -> dict[str, bool]:
    """OT 12C4: which air and naval bombardment the rules in use allow. Basic rules (12C4a): air
    points on bombardment missions (half strength) and monitors and gunboats bombarding as
    water-only artillery. Advanced rules (12C4b): air units fly aerial bombardment missions (OT
    20G2j) and naval units bombard as OT 33C says, instead of the basic forms."""
    air, naval = bool(g.opt("advanced-air")), bool(g.opt("advanced-naval"))
    return {
        "air_points": not air,
        "monitors": not naval,
        "aerial_missions": air,
        "naval_bombardment": naval,
    }


def _bombarders(g: Game, side: str) -> list[Piece]:
    """Artillery that may bombard: on-map artillery units, and under the basic naval rules the
    monitors and gunboats (water-only artillery, OT 12C4a)."""
    out = []
    for p in g.state.pieces.values():
        if p.side != side or not units.is_artillery(p) or units.hex_of(g, p) is None:
            continue
        if units.utype(p).naval and not bombardment_forms(g)["monitors"]:
            continue
        if "art-xx-hq" in units.utype(p).tags:
            continue
        out.append(p)
    return sorted(out, key=lambda q: q.id)


def _in_army_zoi(g: Game, p: Piece) -> bool:

    return any(special_units.in_zoi(g, hq, p) for hq in special_units.army_hqs(g, p.side))


@implements("OT 12C", "OT 8C2", "OT 11F", "OT 12B1", "OT 12B6")
def bombard_factors(g: Game, p: Piece, target: int, in_combat_supply: bool) -> list[Factor]:
    """OT 12C: the factors of a unit's bombardment strength (its attack strength): disruption
    (OT 3A5), bombarding from an overstack x1/2 (OT 8C2), mountains (TEC; not mortars, OT 12B6),
    supply (OT 11F), artillery type (OT 12B1 field x1/2, 12B2-12B4 against fortresses), outside the
    ZOI of an Army HQs x1/2. Modern tactics and long range do not halve a bombardment."""

    out: list[Factor] = []
    dis = units.disruption_factors(p)["attack"]
    if dis != 1:
        out.append((dis, "OT 3A5", "disrupted"))
    if OVERSTACKED in p.status:
        out.append((overstack_attack_factor(p), "OT 8C2", "bombarding from an overstack"))
    m = mountain_factor(g, p, units.hex_of(g, p), target)
    if m is not None:
        out.append(m)
    if units.is_unit(p):
        sf = supply.strength_factor(g, p, in_combat_supply)
        if sf != 1:
            out.append((sf, "OT 11F", "supply"))
    out.extend(type_factor(g, p, target, bombard=True))
    if units.is_unit(p) and not _in_army_zoi(g, p):
        out.append((Fraction(1, 2), "OT 12C", "outside the ZOI of an Army HQs"))
    return out


@dataclass
class BombardPlan:
    side: str
    pieces: list[Piece]
    target: int
    strength: Fraction
    column: str | None
    details: dict[str, Fraction]
    supply: Any
    gas: list[Piece]
    terror: bool
    air_points: int
    division: Piece | None


def _eligible_now(g: Game, f: Frame, side: str) -> list[Piece]:
    """Artillery of ``side`` that may still bombard in this segment (OT 12C, 12C1): not yet this
    phase; for the counter-bombarding player only units in hexes the enemy bombarded."""
    done = set(f.params.get("bombarded", []))
    hit = {int(h) for h in f.params.get("targets", [])}
    out = []
    for p in _bombarders(g, side):
        if p.id in done:
            continue
        if side != f.params["attacker"] and units.hex_of(g, p) not in hit:
            continue
        out.append(p)
    return out


@implements("OT 12C", "OT 12C1", "OT 12C2", "OT 12C4a", "OT 12C5", "OT 12B8", "OT 12B9", "OT 8B")
def plan_bombardment(g: Game, f: Frame, action: Action, commit: bool = False) -> BombardPlan:
    """Check a bombardment against OT 12C1 and compute its strength (OT 12C2).

    Each unit bombards at most once per combat phase, against one hex holding enemy units (terror
    bombardment, OT 12C5: an enemy-owned major city hex), not into prohibited terrain or across a
    prohibited hexside, from the target's adjacent hexes within the target's stacking limit (OT 8B),
    or from farther away within its printed range (OT 12B7); its strength is not split. Units may
    combine (non-cooperating nations may not, OT 15E3). The bombarding player's units check combat
    supply at the start of the bombardment (OT 11B, 11D). Air points count half (OT 12C4a, basic air
    rules: from ``gw.air_points``); an Art XX HQs bombarding with all its components adds its
    modifier (OT 12B9).
    """

    side = action["side"]
    ids = action.get("pieces", [])
    if not isinstance(ids, list) or len(set(map(str, ids))) != len(ids):
        raise IllegalAction("OT 12C1", "'pieces' must list the bombarding units, each once")
    raw = action.get("target")
    if not isinstance(raw, str) or not g.board.has_label(raw):
        raise IllegalAction("OT 12C1", "'target' must name one hex")
    target = g.board.idx(raw)
    terror = bool(action.get("terror", False))
    air = action.get("air_points", 0)
    if not isinstance(air, int) or isinstance(air, bool) or air < 0:
        raise IllegalAction("OT 12C4a", "'air_points' must be a whole number")
    if air:
        if not bombardment_forms(g)["air_points"]:
            raise IllegalAction(
                "OT 12C4b",
                "with the advanced air rules, air units fly aerial bombardment missions (OT 20G2j)",
            )
        if side != f.params["attacker"]:
            raise IllegalAction("OT 12C4a", "air points join the phasing player's bombardments")
        pool = int(gw(g).get("air_points", {}).get(side, 0)) - int(f.params.get("air_used", 0))
        if air > pool:
            raise IllegalAction(
                "OT 12C4a", f"{side} has {pool} air points for bombardment missions"
            )
    elig = {p.id: p for p in _eligible_now(g, f, side)}
    division = None
    pieces: list[Piece] = []
    for pid in ids:
        p = g.state.pieces.get(pid) if isinstance(pid, str) else None
        if (
            p is not None
            and p.side == side
            and "art-xx-hq" in units.utype(p).tags
            and units.hex_of(g, p) is not None
        ):
            division = p
            continue
        if p is None or p.side != side:
            raise IllegalAction("OT 12C1", f"{side} has no unit {pid!r}")
        if pid not in elig:
            if pid in f.params.get("bombarded", []):
                raise IllegalAction("OT 12C1", f"{pid} has already bombarded this combat phase")
            if side != f.params["attacker"]:
                raise IllegalAction(
                    "OT 12C", f"{pid} may counter-bombard only from a hex the enemy bombarded"
                )
            raise IllegalAction("OT 12C", f"{pid} is not artillery that may bombard")
        pieces.append(p)
    if division is not None:
        comps = division_components(g, division)
        if not comps or any(c.id not in {p.id for p in pieces} for c in comps):
            raise IllegalAction(
                "OT 12B9",
                "an artillery division bombards as a single unit only with all its components"
                f" ({', '.join(c.id for c in comps)})",
            )
    if not pieces and not air:
        raise IllegalAction("OT 12C1", "a bombardment needs at least one bombarding unit")
    if terrain.hex_prohibited_to_all(g, target):
        raise IllegalAction("OT 12C1", f"{raw} is prohibited terrain")
    enemy = other_side(side)
    if terror:
        if side != f.params["attacker"]:
            raise IllegalAction(
                "OT 12C5", "terror bombardment is a bombardment of the phasing player"
            )
        if not geography.is_major_city_hex(g, target) or g.state.control.get(target) != enemy:
            raise IllegalAction("OT 12C5", f"{raw} is not an enemy-owned major city hex")
        nat = g.board.area_of(target, "nation")
        if nat is None or _nation_side(g, nat) != enemy:
            raise IllegalAction("OT 12C5", f"{raw} is not in a nation that has joined {enemy}")
    elif not units.units_in_hex(g, target, enemy):
        raise IllegalAction("OT 12C1", f"{raw} holds no enemy units")
    by_hex: dict[int, list[Piece]] = {}
    for p in pieces:
        h = units.hex_of(g, p)
        assert h is not None
        d = g.board.distance(h, target)
        if d == 0:
            raise IllegalAction("OT 12C1", f"{p.id} is in the target hex")
        if d > range_of(p):
            raise IllegalAction("OT 12C1", f"{p.id} is out of range of {raw}")
        if d == 1:
            if terrain.side_prohibited_to_all(g, g.board.side_between(h, target)):
                raise IllegalAction(
                    "OT 12C1", f"{p.id} may not bombard across a prohibited hexside"
                )
            by_hex.setdefault(h, []).append(p)
    for h, grp in by_hex.items():
        if not stacking.attack_stack_ok(g, [q for q in grp if units.is_unit(q)], target):
            raise IllegalAction(
                "OT 8B",
                f"more units bombard {raw} from {g.board.label(h)} than its stacking limit allows",
            )
    if len({p.nation for p in pieces}) > 1 and not _all_cooperate(g, pieces):
        raise IllegalAction(
            "OT 15E3",
            "units of nations that do not cooperate may not combine their bombardment strength",
        )
    gas: list[Piece] = []
    if action.get("gec"):
        gas = [p for p in pieces if is_gas_artillery(p)]
        if not gas:
            raise IllegalAction(
                "OT 12B8", "a GEC attempt needs gas artillery among the bombarding units"
            )
    unit_pieces = [p for p in pieces if units.is_unit(p)]
    cs = supply.combat_supply(g, side, unit_pieces, "bombardment", commit=commit)
    details: dict[str, Fraction] = {}
    total = Fraction(0)
    for p in pieces:
        v = units.printed_attack(p)
        for fac, _r, _w in bombard_factors(g, p, target, cs.in_supply(p)):
            v *= fac
        details[p.id] = v
        total += v
    if division is not None:
        total += division_modifier(division)
        details[division.id] = division_modifier(division)
    if air:
        total += Fraction(air, 2)
        details["air points"] = Fraction(air, 2)
    col = bombardment_column(g, total)
    return BombardPlan(
        side, pieces, target, total, col, details, cs, gas, terror, int(air), division
    )


def _nation_side(g: Game, nation_area: str) -> str | None:

    for n in g.scenario.data.nations:
        if n == nation_area:
            return side_of_nation(g, n)
    area = g.board.areas.get(nation_area)
    if area is not None and isinstance(area.attrs.get("nation"), str):
        return side_of_nation(g, str(area.attrs["nation"]))
    return None


def _all_cooperate(g: Game, pieces: Sequence[Piece]) -> bool:
    """OT 15E1 cooperation (:func:`.special_rules.cooperate`)."""

    nats = sorted({p.nation for p in pieces})
    return all(bool(special_rules.cooperate(g, a, b)) for a in nats for b in nats if a != b)


def _fortification_key(g: Game, i: int) -> str | None:
    for pt in g.board.points_at(i):
        if pt.kind == "fortress":
            improved = (
                str(marker(g, "fortress-state", i) or pt.attrs.get("state", "unimproved"))
                == "improved"
            )
            return (
                f"fortress:{pt.attrs.get('type', 'new')}-improved"
                if improved
                else "fortress:unimproved"
            )
    level = marker(g, "fortification", i)
    return str(level) if level else None


@implements("OT 12C2")
def bombardment_modifiers(
    g: Game, side: str, target: int, tactical_recon: bool = False, full: bool = True
) -> Modifiers:
    """OT 12C2: the die-roll modifiers of a bombardment (Bombardment Table): tactical reconnaissance
    and weather always; with ``full`` also the fortification, the terrain and the nationalities
    that packed their front lines (used for the effect on units; the fortification check uses only
    the first two)."""

    ex = bombardment_table(g).extra
    mods = Modifiers()
    if tactical_recon:
        mods.add(int(ex["tactical_recon"]), "OT 12C2", "tactical reconnaissance")
    w = int(ex["weather"].get(weather_at(g, target), 0))
    if w:
        mods.add(w, "OT 12C2", f"{weather_at(g, target)} weather")
    if not full:
        return mods
    fk = _fortification_key(g, target)
    if fk is not None and int(ex["fortification"].get(fk, 0)):
        mods.add(
            int(ex["fortification"][fk]),
            "OT 12C2",
            fk.replace("fortress:", "fortress ").replace("-improved", " improved"),
        )
    t = terrain.terrain(g, target)
    if int(ex["terrain"].get(t, 0)):
        mods.add(int(ex["terrain"][t]), "OT 12C2", f"{t} hex")
    packed = set(ex.get("packed_front_line", []))
    if any(
        rulebook_name(g, p.nation) in packed or p.nation in packed
        for p in units.units_in_hex(g, target, other_side(side))
    ):
        mods.add(1, "OT 12C2", "front line packed with troops")
    return mods


def _parse_result(res: str) -> tuple[int, bool]:
    s = str(res).strip()
    star = s.endswith("*")
    s = s.rstrip("*")
    if s == "M":
        return 0, star
    return (int(s[:-1]) if len(s) > 1 else 1), star


@implements("OT 12C2")
def reduce_fortification(g: Game, i: int, rule: str = "OT 12C2") -> bool:
    """OT 12C2: an asterisked result reduces the fortification one level as Rule 15B says
    (:func:`.special_rules.reduce_fortification`, which logs it under its own rule). Returns
    whether anything changed."""

    before = (marker(g, "fortification", i), marker(g, "fortress-state", i))
    special_rules.reduce_fortification(g, i, "bombardment")
    return (marker(g, "fortification", i), marker(g, "fortress-state", i)) != before


def _has_checkable_fortification(g: Game, i: int) -> bool:
    if any(pt.kind == "fortress" for pt in g.board.points_at(i)):
        return True
    return marker(g, "fortification", i) in ("fort", "improved-fort")


@dataclass
class BombardResult:
    die: int
    column: str | None
    fortification_result: str | None
    reduced: bool
    result: str
    hits: int
    column_shift: int


@implements("OT 12C2", "OT 12C5")
def resolve(
    g: Game,
    side: str,
    target: int,
    strength: Fraction,
    tactical_recon: bool = False,
    gec: tuple[int, int] = (0, 0),
    terror: bool = False,
) -> BombardResult:
    """OT 12C2: roll one die for a bombardment of ``strength``. On the 50 or 100+ column against a
    hex with a fort, improved fort or fortress, the same die is first read with the tactical
    reconnaissance and weather modifiers only: an asterisk reduces the fortification one level. Then
    the die is read with every modifier (the fortification as it now is) for the hits. ``gec`` is
    the (die modifier, column shift) won by a GEC attempt (OT 12B8; interpretation default: a shift
    moves one column). Terror bombardment (OT 12C5) turns the hits into terror hits."""
    table = bombardment_table(g)
    col = bombardment_column(g, strength)
    if col is None:
        return BombardResult(0, None, None, False, "M", 0, 0)
    shift = gec[1]
    col_eff = table.columns[table.shift(col, shift)]
    r = g.roll(
        "d6",
        f"bombardment of {g.board.label(target)} ({strength} on the {col_eff} column)",
        "OT 12C2",
    )
    die = r.natural
    fort_res = None
    reduced = False
    if col_eff in table.extra.get(
        "fortification_columns", ["50", "100+"]
    ) and _has_checkable_fortification(g, target):
        m1 = bombardment_modifiers(g, side, target, tactical_recon, full=False)
        fort_res = str(table.lookup(col_eff, die + m1.total()).result)
        if fort_res.endswith("*"):
            reduced = reduce_fortification(g, target)
        g.emit(
            "bombardment",
            f"fortification check: {die}{m1.total():+d} -> {fort_res}",
            rule="OT 12C2",
            result=fort_res,
        )
    m2 = bombardment_modifiers(g, side, target, tactical_recon, full=True)
    total = m2.total() + gec[0]
    res = str(table.lookup(col_eff, die + total).result)
    hits, _star = _parse_result(res)
    g.emit(
        "bombardment",
        f"{side} bombards {g.board.label(target)}: die {die}{total:+d} on the {col_eff} column ->"
        f" {res}" + (" (terror hits)" if terror else ""),
        rule="OT 12C5" if terror else "OT 12C2",
        result=res,
        hits=hits,
        hex=g.board.label(target),
    )
    return BombardResult(die, col_eff, fort_res, reduced, res, hits, shift)


@implements("OT 12B8", "OT 10D")
def gec_bombardment_attempt(g: Game, side: str, gas: Sequence[Piece]) -> tuple[int, int]:
    """OT 12B8: a GEC attempt made with gas artillery in a bombardment (Ground Success Table; a
    success gives the bombardment +1, an asterisked success a second roll that, if successful, also
    moves the bombardment one column to the right -- digest default A28). The gas units may not
    attempt GEC again in the following combat segment (OT 12C)."""

    for p in gas:
        p.status.add(GEC_USED)
    res = table_roll(
        g,
        "gst",
        "standard",
        f"GEC attempt in a bombardment by {', '.join(p.id for p in gas)}",
        "OT 12B8",
    )
    drm, shift = 0, 0
    if str(res.result).startswith("S"):
        drm = 1
        if str(res.result).endswith("*"):
            again = table_roll(g, "gst", "standard", "GEC column shift roll", "OT 12B8")
            if str(again.result).startswith("S"):
                shift = 1
    g.emit(
        "gec",
        f"{side} GEC attempt in bombardment: {res.result} (DRM {drm:+d}, shift {shift:+d})",
        rule="OT 12B8",
    )
    return drm, shift


# ----------------------------------------------------------------------------- hits (OT 12C3)
@implements("OT 12C3")
def hit_size_class(p: Piece, g: Game | None = None) -> str:
    """OT 12C3: ``divisional``; ``large`` non-divisional units (brigades, brigade groupings,
    American
    cadres); ``small`` (every other unit)."""
    if units.is_divisional(p):
        return "divisional"
    size = units.size_of(p)
    if size in ("brigade", "brigade-grouping"):
        return "large"
    if size == "cadre" and g is not None and units.is_american(g, p):
        return "large"
    return "small"


@implements("OT 12C3", "OT 8C2")
def hit_targets(
    g: Game, target: int, owner: str, assigner: str, received: dict[str, int]
) -> list[Piece]:
    """OT 12C3: the units that may receive a bombardment hit: not badly disrupted; not overstacked
    unless every regularly stacked unit in the hex is badly disrupted; and the defender may not give
    hits to units with a defense strength of zero."""

    here = units.units_in_hex(g, target, owner)
    regular = [p for p in here if OVERSTACKED not in p.status]
    all_bad = all(units.disruption(p) == 2 for p in regular)
    out = []
    for p in here:
        if units.disruption(p) == 2:
            continue
        if OVERSTACKED in p.status and not all_bad:
            continue
        if assigner == owner and units.printed_defense(p) == 0:
            continue
        out.append(p)
    return sorted(out, key=lambda q: q.id)


@implements("OT 12C3")
def apply_hit(g: Game, p: Piece, received: dict[str, int]) -> None:
    """OT 12C3: a divisional unit is disrupted by 2 hits (badly disrupted by 2 more, or by 2 when
    already disrupted); a large non-divisional unit by 1 hit (badly by another); a small one is
    badly
    disrupted by 1 hit. Hits on one unit add up within one bombardment only (digest default A26)."""
    received[p.id] = received.get(p.id, 0) + 1
    cls = hit_size_class(p, g)
    if cls == "divisional":
        if received[p.id] % 2:
            g.emit(
                "bombardment",
                f"{p.id} takes a bombardment hit (a division needs 2)",
                rule="OT 12C3",
                piece=p.id,
            )
            return
        badly = units.disruption(p) >= 1
    elif cls == "large":
        badly = units.disruption(p) >= 1
    else:
        badly = True
    units.disrupt(g, p, badly=badly, rule="OT 12C3", reason="bombardment hits")


class BombardmentHits(GWStep):
    """OT 12C3: the bombarder allocates half the hits (rounded up; the example gives 3 of 5), then
    the defender allocates the rest, one ``assign-hit`` at a time. Hits no unit may take are lost.
    Params: ``target``, ``owner`` (defender), ``bombarder``, ``left`` {side: hits}, ``order``,
    ``received``."""

    name = "bombardment-hits"
    title = "Bombardment hits"
    rule = "OT 12C3"

    def _turn(self, g: Game, f: Frame) -> str | None:
        for side in f.params["order"]:
            if int(f.params["left"].get(side, 0)) > 0:
                if hit_targets(
                    g, int(f.params["target"]), f.params["owner"], side, f.params["received"]
                ):
                    return side
                f.params["left"][side] = 0
        return None

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        s = self._turn(g, f)
        return [s] if s else []

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    def label(self, g: Game, f: Frame) -> str:
        return f"Bombardment hits on {g.board.label(int(f.params['target']))}"

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        if self._turn(g, f) != side:
            return []
        return [
            {"type": "assign-hit", "side": side, "piece": p.id}
            for p in hit_targets(
                g, int(f.params["target"]), f.params["owner"], side, f.params["received"]
            )
        ]

    @handles.check("assign-hit")
    def check_hit(self, g: Game, f: Frame, action: Action) -> None:
        """OT 12C3: each side allocates its share of the hits to units that may take them."""
        if self._turn(g, f) != action["side"]:
            raise IllegalAction(
                "OT 12C3", f"{action['side']} has no bombardment hits to allocate now"
            )
        ok = {
            p.id
            for p in hit_targets(
                g, int(f.params["target"]), f.params["owner"], action["side"], f.params["received"]
            )
        }
        if action.get("piece") not in ok:
            raise IllegalAction(
                "OT 12C3",
                f"{action.get('piece')!r} may not receive a bombardment hit from {action['side']}",
            )

    @handles.apply("assign-hit")
    def apply_hit(self, g: Game, f: Frame, action: Action) -> None:
        self.check_hit(g, f, action)
        side = action["side"]
        f.params["left"][side] = int(f.params["left"][side]) - 1
        apply_hit(g, g.state.pieces[action["piece"]], f.params["received"])
        if self._turn(g, f) is None:
            g.finish(f)


@implements("OT 12C3")
def split_hits(hits: int) -> tuple[int, int]:
    """OT 12C3 (rule text missing; default from its example, 5 hits -> 3 and 2): the bombarder
    allocates half the hits rounded up, the defender the rest."""
    return math.ceil(hits / 2), hits // 2


class BombardmentSegment(GWStep):
    """OT 4A3 / OT 12C: the bombardment segment of the combat phase: the phasing player resolves all
    his bombardments, then the non-phasing player counter-bombards with artillery in the hexes the
    enemy bombarded this phase. Each player ends his part with ``end-phase``. Res Pts that gave
    combat
    supply are removed at the end of the segment (OT 11D)."""

    name = "bombardment-segment"
    title = "Bombardment segment"
    rule = "OT 12C"

    def enter(self, g: Game, f: Frame) -> None:

        f.params.setdefault("bombarded", [])
        f.params.setdefault("targets", [])
        f.params.setdefault("stage", "bombard")
        f.params.setdefault("defender", other_side(f.params["attacker"]))

    def _side(self, f: Frame) -> str:
        return str(
            f.params["attacker"]
            if f.params.get("stage", "bombard") == "bombard"
            else f.params["defender"]
        )

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        side = self._side(f)
        if f.params.get("stage") == "counter" and not self._bombard_options(g, f, side):
            return []
        return [side]

    def run(self, g: Game, f: Frame) -> None:
        self._finish(g, f)

    def label(self, g: Game, f: Frame) -> str:
        what = (
            "bombardment"
            if f.params.get("stage", "bombard") == "bombard"
            else "counter-bombardment"
        )
        return f"Bombardment segment ({self._side(f)}: {what})"

    def _bombard_options(self, g: Game, f: Frame, side: str) -> list[Action]:

        elig = _eligible_now(g, f, side)
        if not elig:
            return []
        enemy = other_side(side)
        targets: dict[int, list[Piece]] = {}
        for p in elig:
            h = units.hex_of(g, p)
            assert h is not None
            for t in g.board.within(h, range_of(p)):
                if t != h and units.units_in_hex(g, t, enemy):
                    targets.setdefault(t, []).append(p)
        out: list[Action] = []
        for t in sorted(targets):
            grp = targets[t]
            cands = [[p.id for p in grp]]
            hexes = sorted({units.hex_of(g, p) for p in grp})  # type: ignore[type-var]
            if len(hexes) > 1:
                cands += [[p.id for p in grp if units.hex_of(g, p) == h] for h in hexes]
            for ids in cands:
                a: Action = {
                    "type": "bombard",
                    "side": side,
                    "pieces": ids,
                    "target": g.board.label(t),
                }
                try:
                    plan = plan_bombardment(g, f, a)
                except IllegalAction:
                    continue
                if plan.column is not None:
                    out.append(a)
                    break
        return out

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:

        if side != self._side(f):
            return []
        out = self._bombard_options(g, f, side)
        if logistics.may_deactivate_now(g, side):
            out += [
                {"type": "deactivate-depot", "side": side, "depot": d.id}
                for d in logistics.depots(g, side)
            ]
        out.append({"type": "end-phase", "side": side})
        return out

    def _check_part(self, f: Frame, action: Action) -> None:
        if action["side"] != self._side(f):
            raise IllegalAction(
                "OT 12C", f"it is {self._side(f)}'s part of the bombardment segment"
            )

    @handles.check("bombard")
    def check_bombard(self, g: Game, f: Frame, action: Action) -> None:
        """OT 12C, 12C2: a bombardment the side may make, strong enough for the table."""
        self._check_part(f, action)
        plan = plan_bombardment(g, f, action)
        if plan.column is None:
            raise IllegalAction(
                "OT 12C2",
                f"a bombardment strength of {plan.strength} is below the Bombardment Table",
            )

    @handles.apply("bombard")
    def apply_bombard(self, g: Game, f: Frame, action: Action) -> None:
        plan = plan_bombardment(g, f, action, commit=True)
        bombard(g, f, plan)

    @handles.check("end-phase")
    def check_end(self, g: Game, f: Frame, action: Action) -> None:
        self._check_part(f, action)

    @handles.apply("end-phase")
    def apply_end(self, g: Game, f: Frame, action: Action) -> None:
        """OT 12C: the bombarder ends his bombardments, then the defender his counter-fire."""
        if f.params.get("stage", "bombard") == "bombard":
            g.emit("segment", f"{action['side']} ends his bombardments", rule="OT 12C")
            f.params["stage"] = "counter"
        else:
            self._finish(g, f)

    @handles.check("deactivate-depot")
    def check_deactivate(self, g: Game, f: Frame, action: Action) -> None:

        self._check_part(f, action)
        logistics.check_deactivate(g, f, action)

    @handles.apply("deactivate-depot")
    def apply_deactivate(self, g: Game, f: Frame, action: Action) -> None:

        logistics.apply_deactivate(g, f, action)

    @handles.check("eliminate-item")
    def check_eliminate_item(self, g: Game, f: Frame, action: Action) -> None:

        self._check_part(f, action)
        logistics.check_eliminate_item(g, f, action)

    @handles.apply("eliminate-item")
    def apply_eliminate_item(self, g: Game, f: Frame, action: Action) -> None:

        logistics.apply_eliminate_item(g, f, action)

    def _finish(self, g: Game, f: Frame) -> None:

        supply.end_of_segment(g, "bombardment")
        g.emit("segment", "the bombardment segment ends", rule="OT 12C")
        g.finish(f)


@implements("OT 12C", "OT 12C2", "OT 12C3", "OT 12C5")
def bombard(g: Game, f: Frame, plan: BombardPlan, tactical_recon: bool = False) -> BombardResult:
    """Carry out a checked bombardment: GEC attempt, the roll, fortification reduction, then the hit
    allocation step (terror hits lower the nation's morale instead, OT 12C5). The bombarding units
    are marked: halved in the following combat segment (OT 12C), and the hex becomes a hex from
    which the enemy may counter-bombard."""

    gec = gec_bombardment_attempt(g, plan.side, plan.gas) if plan.gas else (0, 0)
    res = resolve(
        g,
        plan.side,
        plan.target,
        plan.strength,
        tactical_recon=tactical_recon,
        gec=gec,
        terror=plan.terror,
    )
    for p in plan.pieces:
        p.status.add(BOMBARDED)
        f.params.setdefault("bombarded", []).append(p.id)
    if plan.air_points:
        f.params["air_used"] = int(f.params.get("air_used", 0)) + plan.air_points
    if plan.target not in f.params.setdefault("targets", []):
        f.params["targets"].append(plan.target)
    if plan.terror:
        nat = g.board.area_of(plan.target, "nation") or "?"
        morale = gw(g).setdefault("morale_hits", {})
        morale[nat] = int(morale.get(nat, 0)) + res.hits
        if res.hits:
            g.emit(
                "morale",
                f"{nat} loses {res.hits} morale point(s) to terror bombardment",
                rule="OT 12C5",
                nation=nat,
                hits=res.hits,
            )
        return res
    if res.hits:
        owner = other_side(plan.side)
        a, d = split_hits(res.hits)
        g.push(
            "bombardment-hits",
            {
                "target": plan.target,
                "owner": owner,
                "bombarder": plan.side,
                "left": {plan.side: a, owner: d},
                "order": [plan.side, owner],
                "received": {},
            },
        )
    return res


@implements("OT 12C")
def end_of_combat_phase(g: Game) -> None:
    """OT 12C: the halving of units that bombarded lasts for the combat segment that follows; the
    marks are cleared when the combat phase ends."""
    for p in g.state.pieces.values():
        p.status.discard(BOMBARDED)
        p.status.discard(GEC_USED)


@implements("OT 12C")
def phase_end(g: Game, phase_key: str) -> None:
    """OT 12C: the bombardment marks are cleared when a combat phase ends."""
    if phase_key == "combat":
        end_of_combat_phase(g)
