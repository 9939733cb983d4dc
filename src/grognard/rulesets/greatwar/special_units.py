"""OT 14 (special ground units): the unit families the ground rules of Rules 3-8 depend on.

This module holds the definitions that movement, stacking and the sequence of play need now:
which units are cavalry, light, mountain, infantry, irregular, over-snow or fast c/m (OT 14D-14L,
14C4), and the Army HQs' active/inactive sides, zone of influence and activation checks
(OT 14M1, 14M2) that regulate reaction movement. The rest of Rule 14 belongs here too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar import calendar, units
from grognard.rulesets.greatwar.catalogue import nation_info
from grognard.rulesets.greatwar.mechanics import table_roll

if TYPE_CHECKING:
    from grognard.core.game import Game

ACTIVE = "active"
INACTIVE = "inactive"


# ----------------------------------------------------------------------------- unit families
def base_tags(p: Piece) -> frozenset[str]:
    tags = set(units.utype(p).tags)
    if p.attrs.get("camel"):
        tags.add("camel")
    return frozenset(tags)


@implements("OT 14G")
def ski_family(g: Game, p: Piece) -> str:
    """OT 14G: ski and ski machinegun units are mountain units for Bavarian, Württemberg,
    Austro-Hungarian, Swiss, Norwegian and Swedish forces, light units for all others."""
    name = units._scenario_nation_name(g, p)
    info = nation_info(name)
    contingent = str(p.attrs.get("contingent", ""))
    if info is not None and (info.ski_mountain or contingent in info.ski_mountain_contingents):
        return "mountain"
    return "light"


@implements("OT 14C4")
def is_fast_cm(p: Piece) -> bool:
    """OT 14C4: c/m units with a printed movement rating of 7 or 8."""
    return units.is_cm(p) and units.printed_ma_number(p) in (7, 8)


@implements("OT 14H")
def is_infantry(g: Game, p: Piece) -> bool:
    """OT 14H: infantry units -- the infantry types, every unit with printed MA 8, assault
    engineers with MA 6, and the dated 1919 extensions."""
    tags = base_tags(p)
    ma = units.printed_ma_number(p)
    if "infantry" in tags or ma == 8:
        return True
    t = units.utype(p)
    if t.id in ("assault-engineer", "amphibious-assault-engineer") and ma == 6:
        return True
    if calendar.on_or_after(g, "Feb I 19") and (units.is_cm(p) or "cavalry" in tags) and ma >= 6:
        return True
    if calendar.on_or_after(g, "Apr I 19") and ("light" in movement_tags(g, p, dated=False) or "mountain" in movement_tags(g, p, dated=False)) and ma >= 6:
        return True
    if calendar.on_or_after(g, "Jun I 19") and t.id in ("rifle", "mountain-rifle", "mechanized-rifle"):
        d = units.printed_defense(p)
        if units.is_divisional(p) and t.id != "mechanized-rifle" and d >= 12:
            return True
        if units.is_non_divisional(p) and d >= 5:
            return True
    return False


def movement_tags(g: Game, p: Piece, dated: bool = True) -> frozenset[str]:
    """Unit families that matter for movement: the catalogue tags plus OT 14G ski families,
    OT 14C4 fast c/m, OT 14H infantry and OT 14L (an irregular unit moves as light or mountain,
    at the owner's choice: it gets both sets of terrain exceptions and uses the better)."""
    from grognard.rulesets.greatwar.weather import view

    memo = view(g).memo
    key = ("tags", p.type, bool(p.attrs.get("camel")), p.face, str(p.faces.get(p.face, {}).get("move")),
           str(p.faces.get(p.face, {}).get("defense")), p.attrs.get("size"), p.nation, p.attrs.get("contingent"), dated)
    hit = memo.get(key)
    if hit is not None:
        return hit
    out = _movement_tags(g, p, dated)
    memo[key] = out
    return out


def _movement_tags(g: Game, p: Piece, dated: bool) -> frozenset[str]:
    tags = set(base_tags(p))
    if "ski" in tags:
        tags.add(ski_family(g, p))
    if is_fast_cm(p):
        tags.add("fast-cm")
    if "irregular" in tags:
        tags.update(("light", "mountain"))
    if dated and is_infantry(g, p):
        tags.add("infantry")
    return frozenset(tags)


def is_cavalry(p: Piece) -> bool:
    return "cavalry" in base_tags(p)


# ----------------------------------------------------------------------------- Army HQs (OT 14M)
def is_army_hq(p: Piece) -> bool:
    return "army-hq" in units.utype(p).tags


def is_corps_hq(p: Piece) -> bool:
    return "corps-hq" in units.utype(p).tags


@implements("OT 14M1")
def hq_active(p: Piece) -> bool:
    """OT 14M1: an Army HQs is active unless its inactive side is face up."""
    return p.face != INACTIVE


@implements("OT 14M1")
def set_hq_active(g: Game, p: Piece, active: bool, rule: str = "OT 14M1") -> None:
    """OT 14M1: flip an Army HQs to its active or inactive side."""
    want = ACTIVE if active else INACTIVE
    if p.face == want:
        return
    p.face = want
    g.emit("hq", f"{p.id} is now {'active' if active else 'inactive'}", rule=rule, piece=p.id, active=active)


@implements("OT 14M1")
def reactivate_hqs(g: Game, side: str) -> None:
    """OT 14M1: at the start of his initial phase the phasing player flips all his inactive Army HQs."""
    for p in sorted(g.state.of_side(side), key=lambda q: q.id):
        if is_army_hq(p) and not hq_active(p):
            set_hq_active(g, p, True)


@implements("OT 14M1")
def zoi_hexes(g: Game, hq: Piece) -> set[int]:
    """OT 14M1: an active Army HQs' zone of influence: its hex and every hex within two hexes."""
    h = units.hex_of(g, hq)
    if h is None or not hq_active(hq):
        return set()
    return set(g.board.within(h, 2))


@implements("OT 14M1")
def covers(g: Game, hq: Piece, p: Piece) -> bool:
    """OT 14M1: a German Army HQs' ZOI covers every Central Powers unit; any other HQs covers
    only units of its own nationality (OT 3B5)."""
    from grognard.rulesets.greatwar.nations import is_german, nationality

    if p.side != hq.side:
        return False
    if is_german(g, hq):
        return True
    return nationality(g, p) == nationality(g, hq)


def in_zoi(g: Game, hq: Piece, p: Piece) -> bool:
    h = units.hex_of(g, p)
    return h is not None and h in zoi_hexes(g, hq) and covers(g, hq, p)


def army_hqs(g: Game, side: str) -> list[Piece]:
    return [p for p in units.on_map_units(g, side) if is_army_hq(p)]


@implements("OT 14M1", "OT 14M2")
def activation_check(g: Game, hq: Piece) -> bool:
    """OT 14M1: the reaction-movement activation check of an Army HQs on the Ground Success Table.

    Modifiers: the nation/scenario modifier (``[rules] hq_activation_modifiers``, from Rules 41
    and 42B) and -1 if the HQs is disrupted (OT 14M2). Success keeps it active; failure flips it
    to its inactive side.
    """
    mods = Modifiers()
    rules = g.scenario.rules
    table = getattr(rules, "hq_activation_modifiers", {}) if rules is not None else {}
    if hq.nation in table:
        mods.add(int(table[hq.nation]), "OT 14M1", f"{hq.nation} activation modifier")
    if units.disruption(hq) > 0:
        mods.add(-1, "OT 14M2", "disrupted Army HQs")
    res = table_roll(g, "gst", "standard", f"activation check of {hq.id}", "OT 14M1", mods)
    ok = str(res.result).startswith("S")
    g.emit("activation", f"{hq.id} activation check: {res.result} ({'stays active' if ok else 'becomes inactive'})", rule="OT 14M1", piece=hq.id, result=res.result)
    if not ok:
        set_hq_active(g, hq, False)
    return ok


@implements("OT 14C2", "OT 14O2a", "OT 14B2")
def accel_forbidden(g: Game, p: Piece) -> tuple[str, str] | None:
    """Units that may never use accelerated movement: unreliable tanks (those with a "disabled"
    side, OT 14C2), motorized transport before Feb I 17 (OT 14O2a) and water-only units (OT 14B2).
    Returns (rule id, reason) or None."""
    t = units.utype(p)
    if "tank" in t.tags and "disabled" in p.faces:
        return ("OT 14C2", f"{p.id} is an unreliable tank and may not use accelerated movement")
    if t.id == "motorized-transport" and calendar.before(g, "Feb I 17"):
        return ("OT 14O2a", f"{p.id}: motorized transport may not use accelerated movement before Feb I 17")
    if units.is_water_only(p):
        return ("OT 14B2", f"{p.id} is water-only and may not use accelerated movement")
    return None
