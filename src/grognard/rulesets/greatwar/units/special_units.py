"""OT 14 (special ground units): the unit families the ground rules of Rules 3-8 depend on.

This module holds the definitions that movement, stacking and the sequence of play need now:
which units are cavalry, light, mountain, infantry, irregular, over-snow or fast c/m (OT 14D-14L,
14C4), and the Army HQs' active/inactive sides, zone of influence and activation checks
(OT 14M1, 14M2) that regulate reaction movement. The rest of Rule 14 belongs here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.greatwar import calendar, mechanics
from grognard.rulesets.greatwar.map import geography, terrain
from grognard.rulesets.greatwar.map.weather import view, weather_at, weather_zone
from grognard.rulesets.greatwar.mechanics import marker, table_roll
from grognard.rulesets.greatwar.supply import supply_status
from grognard.rulesets.greatwar.units import units
from grognard.rulesets.greatwar.units.catalogue import nation_info
from grognard.rulesets.greatwar.units.nations import is_german, nationality, other_side

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
    if (
        calendar.on_or_after(g, "Apr I 19")
        and (
            "light" in movement_tags(g, p, dated=False)
            or "mountain" in movement_tags(g, p, dated=False)
        )
        and ma >= 6
    ):
        return True
    if calendar.on_or_after(g, "Jun I 19") and t.id in (
        "rifle",
        "mountain-rifle",
        "mechanized-rifle",
    ):
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

    memo = view(g).memo
    key = (
        "tags",
        p.type,
        bool(p.attrs.get("camel")),
        p.face,
        str(p.faces.get(p.face, {}).get("move")),
        str(p.faces.get(p.face, {}).get("defense")),
        p.attrs.get("size"),
        p.nation,
        p.attrs.get("contingent"),
        dated,
    )
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
    g.emit(
        "hq",
        f"{p.id} is now {'active' if active else 'inactive'}",
        rule=rule,
        piece=p.id,
        active=active,
    )


@implements("OT 14M1")
def reactivate_hqs(g: Game, side: str) -> None:
    """OT 14M1: at the start of his initial phase the phasing player flips all his inactive Army
    HQs."""
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

    if p.side != hq.side:
        return False
    if is_german(g, hq):
        return True
    return nationality(g, p) == nationality(g, hq)


def in_zoi(g: Game, hq: Piece, p: Piece) -> bool:
    """OT 14M1: a unit in the ZOI of an active Army HQs (a water-only unit on a hexside is in it if
    either hex of its hexside is, OT 14B2)."""
    h = units.hex_of(g, p)
    if h is None:
        loc = g.state.where(p.id)
        if loc.kind != "hexside":
            return False
        zoi = zoi_hexes(g, hq)
        return any(
            int(x) in zoi for x in g.board.side_hexes[int(loc.ref)] if int(x) >= 0
        ) and covers(g, hq, p)
    return h in zoi_hexes(g, hq) and covers(g, hq, p)


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
    g.emit(
        "activation",
        f"{hq.id} activation check: {res.result} ({'stays active' if ok else 'becomes inactive'})",
        rule="OT 14M1",
        piece=hq.id,
        result=res.result,
    )
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
        return (
            "OT 14O2a",
            f"{p.id}: motorized transport may not use accelerated movement before Feb I 17",
        )
    if units.is_water_only(p):
        return ("OT 14B2", f"{p.id} is water-only and may not use accelerated movement")
    return None


# ============================================================================ Rule 14 families
def _has_disabled_side(p: Piece) -> bool:
    return "disabled" in p.faces


@implements("OT 14A")
def families(g: Game, p: Piece) -> frozenset[str]:
    """OT 14A: every special-unit family a unit belongs to. A combination unit type has the
    abilities of each of its symbols: the catalogue lists the union of their families (a mountain
    light rifle is ``light`` and ``mountain``); ski units add ``light`` or ``mountain`` by
    nationality (OT 14G), c/m units with MA 7-8 are ``fast-cm`` (OT 14C4), dated infantry is
    included (OT 14H), and the movement classes ``rail-only``, ``water-only``, ``zero-move``
    (``restricted-movement``, OT 14B), ``cm``, ``artillery``, ``cm-artillery`` (OT 14C1) and
    ``unreliable-tank`` (OT 14C2) are added."""
    tags = set(base_tags(p))
    if "ski" in tags:
        tags.add(ski_family(g, p))
    if is_fast_cm(p):
        tags.add("fast-cm")
    if is_infantry(g, p):
        tags.add("infantry")
    if units.is_cm(p):
        tags.add("cm")
    if units.is_artillery(p):
        tags.add("artillery")
        if units.is_cm(p):
            tags.add("cm-artillery")
    if units.is_rail_only(p):
        tags.add("rail-only")
    if units.is_water_only(p):
        tags.add("water-only")
    if is_zero_move(p):
        tags.add("zero-move")
    if tags & {"rail-only", "water-only", "zero-move"}:
        tags.add("restricted-movement")
    if "tank" in tags and _has_disabled_side(p):
        tags.add("unreliable-tank")
    return frozenset(tags)


@implements("OT 14B3")
def is_zero_move(p: Piece) -> bool:
    """OT 14B3: a unit whose printed movement rating is 0 (not "R" or "W")."""
    if not units.is_unit(p):
        return False
    v = units.printed(p, "move")
    return isinstance(v, Fraction) and v == 0


@implements("OT 14B")
def is_restricted_movement(p: Piece) -> bool:
    """OT 14B: rail-only ("R"), water-only ("W") and zero-movement units. They never count
    against stacking limits (applied by ``stacking.exempt``; zero-movement units per the
    interpretation switch ``zero-movement-stacking-exempt``)."""
    return units.is_rail_only(p) or units.is_water_only(p) or is_zero_move(p)


@implements("OT 14C1", "OT 14D4", "OT 14F2")
def terrain_effect_classes(g: Game, p: Piece) -> tuple[str, tuple[str, ...]]:
    """Which TEC columns a unit uses: (movement cost set, combat effect classes best-first).

    OT 14C1: c/m artillery moves with the c/m costs and fights with the artillery terrain effects.
    OT 14D4: horse artillery moves with the cavalry costs and fights as artillery. OT 14F2: mountain
    artillery moves with the mountain costs and uses the better of the artillery and mountain
    combat effects (the combat rules pick the more favourable of the classes returned)."""

    tags = base_tags(p)
    cset = terrain.cost_set(g, p)
    if units.is_artillery(p):
        if "mountain" in tags:
            return cset, ("artillery", "mountain")
        return cset, ("artillery",)
    if units.is_cm(p):
        return cset, ("cm",)
    if "mountain" in tags:
        return cset, ("mountain", "other")
    return cset, ("other",)


@implements("OT 14D")
def is_cavalry_unit(g: Game, p: Piece) -> bool:
    """OT 14D: heavy cavalry, mounted rifle (also mountain and training), irregular cavalry, mixed
    mounted rifle and rifle, pack transport (also mountain and camel), sleigh machinegun, horse
    artillery and bicycle units. Their effects: TEC exception rows (clear/frost advantages, mud
    penalty), reduced ZOC and overrun costs (ZOC/Overrun tables), fatigue per MP (OT 6B4), half
    their rating in reserve commitment and exploitation (OT 6C/6E), retreat before combat and
    overrun with printed MA 7-8 (``overrun.retreat_before_combat_eligible``)."""
    return "cavalry" in base_tags(p)


@implements("OT 14D1")
def heavy_cavalry_halved(g: Game, p: Piece, target: int) -> bool:
    """OT 14D1: heavy cavalry attacks (or overruns) at half strength a hex holding a major city or
    any fortification other than fieldworks. (Its charge, CEC, is a Rule 10 capability.)"""

    if "heavy-cavalry" not in base_tags(p):
        return False
    return geography.is_major_city_hex(g, target) or _fortified_beyond_fieldworks(g, target)


def _fortified_beyond_fieldworks(g: Game, i: int) -> bool:

    f = marker(g, "fortification", i)
    if f and f != "fieldworks":
        return True
    return any(pt.kind == "fortress" for pt in g.board.points_at(i))


CAMEL_ZONES = frozenset("DEFGHI")


@implements("OT 14D2")
def is_camel(p: Piece) -> bool:
    """OT 14D2: cavalry with a "C" printed with its movement rating (attribute ``camel``; camel
    pack transport is always camel, OT 14O2b-ii). Its sand, wadi and salt desert advantages are TEC
    exception rows; it ignores the water line of communications in the Desert (Rule 37D)."""
    return "camel" in base_tags(p)


@implements("OT 14D2")
def camel_zone_problem(g: Game, p: Piece, i: int) -> str | None:
    """OT 14D2: a camel unit may not enter a hex outside weather zones D to I (forced to, it is
    eliminated instead). Hexes with no weather zone are not restricted."""
    if not is_camel(p):
        return None

    z = weather_zone(g, i)
    if z is not None and z not in CAMEL_ZONES:
        return f"{p.id} is a camel unit and may not enter weather zone {z} (OT 14D2)"
    return None


@implements("OT 14D3")
def counts_as_rifle_for(p: Piece, purpose: str) -> bool:
    """OT 14D3: a mixed mounted rifle and rifle unit is a rifle unit (not cavalry) for exploitation
    movement, adverse terrain expertise and the tsetse fly; cavalry for everything else."""
    return "mixed-mounted" in base_tags(p) and purpose in (
        "exploitation",
        "adverse-terrain",
        "tsetse",
    )


@implements("OT 14D5")
def arctic_without_penalty(p: Piece) -> bool:
    """OT 14D5: sleigh machinegun units are the only cavalry that operate in the Arctic (Rule 37C)
    without penalty; they are also over-snow units (OT 14G)."""
    tags = base_tags(p)
    if "cavalry" not in tags:
        return True
    return "over-snow" in tags and "machinegun" in tags


@implements("OT 14E")
def is_light(g: Game, p: Piece) -> bool:
    """OT 14E: light rifle, mountain light rifle, amphibious light rifle and jäger machinegun units,
    and ski units of the nations of OT 14G2. Effects: TEC exception rows in clear and frost, reduced
    ZOC/overrun costs, 1/3 of the rating in reserve commitment and exploitation (OT 6C/6E)."""
    return "light" in families(g, p)


@implements("OT 14F")
def is_mountain(g: Game, p: Piece) -> bool:
    """OT 14F: units with the mountain symbol, and ski units of the nations of OT 14G1. Effects:
    TEC exception rows (mountain terrain above all), mountain/infantry capability (OT 14H2), 1/3
    of the rating in reserve commitment and exploitation."""
    return "mountain" in families(g, p)


@implements("OT 14G1", "OT 14G2")
def ski_is_mountain(g: Game, p: Piece) -> bool:
    """OT 14G1: Bavarian, Württemberg, Austro-Hungarian, Swiss, Norwegian and Swedish ski and ski
    machinegun units are mountain units; OT 14G2: all others are light units."""
    return "ski" in base_tags(p) and ski_family(g, p) == "mountain"


@implements("OT 14G")
def over_snow_retreat_allowed(g: Game, p: Piece, i: int) -> bool:
    """OT 14G: over-snow units with printed MA 7-8 may retreat before combat and overrun in snow."""

    return (
        "over-snow" in base_tags(p)
        and units.printed_ma_number(p) in (7, 8)
        and weather_at(g, i) == "snow"
    )


@implements("OT 14I")
def is_marine(p: Piece) -> bool:
    """OT 14I: marine rifle, marine infantry, naval troops, amphibious light rifle and amphibious
    assault engineer units (not the British amphibious light tank). Their abilities exist only
    with the advanced naval rules (option ``marine-units``)."""
    return "marine" in base_tags(p)


@implements("OT 14J")
def is_fortress_unit(p: Piece) -> bool:
    """OT 14J: fortress and mountain fortress units (never siege artillery, siege mortars or heavy
    siege artillery). One may stack in a hex beyond every other limit (``stacking.fits``)."""
    return "fortress" in base_tags(p)


@implements("OT 14K")
def is_training_replacement(p: Piece) -> bool:
    """OT 14K: units with the training or replacement symbol, march brigades included (OT 16C8).
    Their use on the map can cost reinforcements and replacements (OT 16C9)."""
    return "training" in base_tags(p)


@implements("OT 14R")
def is_rifle_assault(p: Piece) -> bool:
    """OT 14R: rifle assault units (the capability test is ``special_rules.capabilities``)."""
    return "rifle-assault" in base_tags(p)


@implements("OT 14C3")
def engineer_role(g: Game, p: Piece, engineer_modifier_possible: bool) -> str | None:
    """OT 14C3: when attacking a hex where the combat engineer modifier is possible (OT 10C and the
    TEC/Fortification Effects Chart), an engineer tank is a combat engineer, an assault engineer
    tank an assault engineer and a flame-thrower tank a flamethrower unit, in all respects.
    Returns ``combat-engineer``, ``assault-engineer``, ``flamethrower`` or None. Combat and assault
    engineers themselves (OT 13D/13E/13F) return their own role whatever the hex."""
    t = units.utype(p)
    own = {
        "combat-engineer": "combat-engineer",
        "assault-engineer": "assault-engineer",
        "amphibious-assault-engineer": "assault-engineer",
        "flamethrower": "flamethrower",
    }
    if t.id in own:
        return own[t.id]
    if not engineer_modifier_possible:
        return None
    return {
        "engineer-tank": "combat-engineer",
        "assault-engineer-tank": "assault-engineer",
        "flame-thrower-tank": "flamethrower",
    }.get(t.id)


# ========================================================================= transport units (OT 14O)
SUPPLY_LINE = "supply-line"


@implements("OT 14O")
def is_transport(p: Piece) -> bool:
    """OT 14O: motorized transport, pack transport and mountain pack transport units (camel pack
    transport is a pack transport). They never count against stacking; their cargo units do."""
    return "transport" in base_tags(p)


@implements("OT 14O1")
def supply_line_mode(p: Piece) -> bool:
    """OT 14O1: a transport unit is in supply-line mode when its "Extend Supply Line" side (face
    ``supply-line``, or the status ``supply-line`` for a counter written with one face) is up."""
    return p.face == SUPPLY_LINE or SUPPLY_LINE in p.status


# ============================================================================ movement bans


@implements("OT 14B1", "OT 14B2", "OT 14B3", "OT 14D2", "OT 14O1")
def retreat_eliminates(g: Game, p: Piece) -> str | None:
    """Units eliminated when required to retreat, whatever the hexes around: zero-movement units
    (OT 14B3), transport units in supply-line mode (OT 14O1), and rail-only units whose hex has a
    broken rail line (OT 14B1). Returns the reason, or None."""

    if is_zero_move(p):
        return f"{p.id} has a movement rating of 0 and cannot retreat (OT 14B3)"
    if is_transport(p) and supply_line_mode(p):
        return f"{p.id} is in supply-line mode and cannot retreat (OT 14O1)"
    if units.is_rail_only(p):
        h = units.hex_of(g, p)
        if h is not None and marker(g, "rail-break", h):
            return f"{p.id} is rail-only and the rail line in its hex is broken (OT 14B1)"
    return None


@implements("OT 14B1", "OT 14D2")
def retreat_problem(g: Game, p: Piece, here: int, to: int) -> str | None:
    """Why a unit may not retreat from ``here`` into the adjacent hex ``to`` because of its type:
    a rail-only unit only along a usable rail line (OT 14B1); a camel unit never outside zones
    D-I (OT 14D2). A unit with no allowed retreat hex is eliminated (the combat rules)."""

    if units.is_rail_only(p):
        s = g.board.side_between(here, to)
        if (
            not terrain.rail_link(g, s)
            or marker(g, "rail-break", here)
            or marker(g, "rail-break", to)
        ):
            return f"{p.id} is rail-only and may retreat only along a usable rail line (OT 14B1)"
        if not terrain.bridge_usable(g, p.side, s) and terrain.bridge_features(g, s):
            return f"{p.id} may not use the bridge between the hexes (OT 14B1, 15A1)"
    return camel_zone_problem(g, p, to)


@implements("OT 14B1", "OT 14B2", "OT 14M")
def no_advance(g: Game, p: Piece, along_waterway: bool = False) -> str | None:
    """Units that may not advance after combat: rail-only units (OT 14B1), water-only units that
    attacked a hex (they may advance after attacking along a connected waterway hexside, OT 14B2),
    and Army HQs (OT 14M)."""
    if units.is_rail_only(p):
        return f"{p.id} is rail-only and may not advance after combat (OT 14B1)"
    if units.is_water_only(p) and not along_waterway:
        return f"{p.id} is water-only and may not advance into a hex after combat (OT 14B2)"
    if is_army_hq(p):
        return f"{p.id} is an Army HQs and may not advance after combat (OT 14M)"
    return None


# ============================================================================ tanks (OT 14C2)
DISABLED = "disabled"
TANK_REPAIR_EQU = {
    "battalion": Fraction(2),
    "battalion-grouping": Fraction(2),
    "regiment": Fraction(4),
    "regimental-grouping": Fraction(4),
}


@implements("OT 14C2")
def is_unreliable_tank(p: Piece) -> bool:
    """OT 14C2: tank, light tank, amphibious light tank, engineer tank, assault engineer tank and
    flame-thrower tank units whose reverse side is "disabled". They may not use accelerated
    movement (``accel_forbidden``)."""
    return "tank" in base_tags(p) and _has_disabled_side(p)


def is_disabled(p: Piece) -> bool:
    """OT 14C2: a tank on its disabled side (badly disrupted, combat strength and MA 0)."""
    return p.face == DISABLED


def gst(g: Game, activity: str, reason: str, rule: str, mods: Modifiers | int = 0) -> str:
    """Roll on the Ground Success Table: the column named for the activity if the table has one,
    else the ``standard`` column. Returns the result code (S, S*, F, F*)."""
    table = mechanics.tables(g)["gst"]
    column = activity if activity in table.columns else "standard"
    return str(table_roll(g, "gst", column, reason, rule, mods).result)


@implements("OT 14C2")
def tank_check(g: Game, p: Piece, why: str) -> str:
    """OT 14C2: check an unreliable tank after it moved (other than by rail, river or naval
    transport) or when a combat it takes part in is declared: a Ground Success Table roll with no
    modifiers. S: no effect. F: disrupted (badly if it was disrupted; a badly disrupted tank stays
    so, interpretation default). F*: badly disrupted, or disabled if it was already disrupted or
    badly disrupted: flipped to its disabled side. Returns the result code."""
    res = gst(g, "tank", f"reliability check of {p.id} ({why})", "OT 14C2")
    level = units.disruption(p)
    if res.startswith("S"):
        g.emit(
            "tank-check",
            f"{p.id} passes its reliability check ({res})",
            rule="OT 14C2",
            piece=p.id,
            result=res,
        )
    elif res == "F":
        units.disrupt(g, p, badly=level >= 1, rule="OT 14C2", reason="breakdowns")
    else:
        if level >= 1 and not is_disabled(p):
            disable_tank(g, p)
        else:
            units.disrupt(g, p, badly=True, rule="OT 14C2", reason="severe breakdowns")
    return res


@implements("OT 14C2")
def disable_tank(g: Game, p: Piece) -> None:
    """OT 14C2: flip a tank to its disabled side: badly disrupted, combat strength and MA 0."""
    p.attrs["enabled_face"] = p.face
    p.face = DISABLED
    units.disrupt(g, p, badly=True, rule="OT 14C2", reason="disabled")
    g.emit("tank-disabled", f"{p.id} is disabled", rule="OT 14C2", piece=p.id)


@implements("OT 14C2")
def tank_repair_cost(p: Piece) -> Fraction | None:
    """OT 14C2: 2 Equ Pts for a battalion or battalion grouping, 4 for a regiment or regimental
    grouping (no tank brigade or division is unreliable). None: not repairable."""
    return TANK_REPAIR_EQU.get(str(p.attrs.get("size", "")))


@implements("OT 14C2")
def tank_repair_problem(g: Game, p: Piece, side: str) -> str | None:
    """OT 14C2: a disabled tank may be repaired in a friendly initial phase in which it could
    recover from disruption (not in a contested hex, OT 9J), if it is in general supply (OT 11C)."""

    if p.side != side or not is_disabled(p):
        return f"{p.id} is not a disabled tank of {side}"
    h = units.hex_of(g, p)
    if h is None:
        return f"{p.id} is not on the map"
    if marker(g, "contested", h):
        return f"{p.id} is in a contested hex and cannot recover this phase (OT 9J)"
    if supply_status.turns_out_of_supply(g, p) > 0:
        return f"{p.id} is out of general supply (OT 11C)"
    if tank_repair_cost(p) is None:
        return f"{p.id} has no repair cost (only battalions and regiments, OT 14C2)"
    return None


@implements("OT 14C2")
def repair_tank(g: Game, p: Piece) -> None:
    """OT 14C2: flip a repaired tank back to its non-disabled side; its disruption goes too (it is
    repaired in a phase in which it recovers, interpretation default)."""
    p.face = str(p.attrs.pop("enabled_face", next(k for k in p.faces if k != DISABLED)))
    units.recover(g, p)
    g.emit("tank-repaired", f"{p.id} is repaired", rule="OT 14C2", piece=p.id)


@implements("OT 14C2")
def end_of_phase_movement(g: Game, f: Any) -> None:
    """OT 14C2: when a movement-type phase ends, every unreliable tank that moved in it by means
    other than rail, river or naval transport is checked (interpretation default: moves made by
    retreat or advance after combat are not checked)."""
    for pid, rec in sorted(f.params.get("units", {}).items()):
        p = g.state.pieces.get(pid)
        if (
            p is None
            or not rec.get("overland")
            or not is_unreliable_tank(p)
            or units.hex_of(g, p) is None
        ):
            continue
        tank_check(g, p, "after moving")


# ============================================================================ guides (OT 14F1)
@implements("OT 14F1")
def guide_capacity(g: Game, pieces: list[Piece]) -> Fraction:
    """OT 14F1: high mountain units guide up to 4 times their RE size of other mountain units."""
    return sum(
        (4 * units.re_size(g, p) for p in pieces if "high-mountain" in base_tags(p)), Fraction(0)
    )


@implements("OT 14F1")
def guided(g: Game, pieces: list[Piece]) -> set[str]:
    """OT 14F1: which of ``pieces`` (units moving, retreating or stacked together) are guided across
    high mountain hexsides, high mountain passes and impassable escarpments: the other mountain
    units, if their RE total is within the guides' capacity (the owner splits larger groups);
    never non-mountain units."""
    cap = guide_capacity(g, pieces)
    if cap <= 0:
        return set()
    mtn = [
        p for p in pieces if "high-mountain" not in base_tags(p) and "mountain" in families(g, p)
    ]
    if not mtn or sum((units.re_size(g, p) for p in mtn), Fraction(0)) > cap:
        return set()
    return {p.id for p in mtn}


def guided_tags(g: Game, pieces: list[Piece], tags_of: Any) -> dict[str, frozenset[str]]:
    """OT 14F1: movement tags of guided units while they move with their guides (they cross as
    high mountain units do)."""
    return {
        pid: frozenset(tags_of(g.state.pieces[pid]) | {"high-mountain"})
        for pid in guided(g, pieces)
    }


@implements("OT 14F1")
def supply_guided(g: Game, p: Piece) -> bool:
    """OT 14F1: a mountain unit stacked with high mountain units that can guide it traces supply
    across high mountain hexsides as they do (being stacked is enough)."""
    h = units.hex_of(g, p)
    if h is None:
        return False
    return p.id in guided(g, units.units_in_hex(g, h, p.side))


# ============================================================================ irregulars (OT 14L)
@implements("OT 14L")
def is_irregular(p: Piece) -> bool:
    """OT 14L: irregular rifle and irregular cavalry units. They pay reduced ZOC and overrun costs,
    move as light or mountain units at the owner's choice (``movement_tags``; an irregular cavalry
    unit still tires as cavalry, OT 6B4), use 1/3 of their rating in exploitation (OT 6E), fight at
    half strength on the Positional CRT (``attack_factor``), may (at 3:1 or more against them:
    must) try to retreat before combat and overrun, may not attack voluntarily below 3:1 without
    enough regular units, and are the last units lost (``special_rules.loss_rules``)."""
    return "irregular" in base_tags(p)


@implements("OT 14L")
def irregular_attack_allowed(
    g: Game,
    attackers: list[Piece],
    odds: Fraction,
    mandatory: bool = False,
    strengths: dict[str, Fraction] | None = None,
) -> bool:
    """OT 14L: whether the attack is allowed (``irregular_attack_problem``)."""
    return irregular_attack_problem(g, attackers, odds, mandatory, strengths) is None


@implements("OT 14L")
def irregular_attack_problem(
    g: Game,
    attackers: list[Piece],
    odds: Fraction,
    mandatory: bool = False,
    strengths: dict[str, Fraction] | None = None,
) -> str | None:
    """OT 14L: irregular units may not voluntarily attack below 3:1 unless non-irregular units give
    half or more of the attacking strength (the modified strengths at declaration, interpretation
    default). Mandatory attacks are exempt. Returns why the attack is not allowed, or None."""
    if mandatory or not any(is_irregular(p) for p in attackers) or odds >= 3:
        return None
    st = strengths or {p.id: units.printed_attack(p) for p in attackers}
    total = sum((Fraction(st.get(p.id, 0)) for p in attackers), Fraction(0))
    regular = sum(
        (Fraction(st.get(p.id, 0)) for p in attackers if not is_irregular(p)), Fraction(0)
    )
    if total > 0 and regular * 2 >= total:
        return None
    return (
        "irregular units may not attack voluntarily below 3:1 unless regular units give half the"
        " strength (OT 14L)"
    )


@implements("OT 14L")
def irregular_must_try_retreat(
    g: Game, p: Piece, odds: Fraction, has_retreat_hex: bool = True
) -> bool:
    """OT 14L: an irregular unit must try to retreat before combat or overrun when the enemy musters
    3:1 or better (the computed ratio before shifts, interpretation default) and it has a hex to
    retreat to; a failed mandatory attempt disrupts it (``irregular_failed_retreat``)."""
    return is_irregular(p) and odds >= 3 and has_retreat_hex


@implements("OT 14L")
def irregular_failed_retreat(g: Game, p: Piece) -> None:
    """OT 14L: a failed mandatory retreat attempt leaves the irregular unit disrupted."""
    units.disrupt(g, p, rule="OT 14L", reason="failed a mandatory retreat")


# ========================================================================== elite brigades (OT 14Q)
def is_elite_brigade(p: Piece) -> bool:
    return "elite-brigade" in units.utype(p).tags


@implements("OT 14Q")
def elite_brigades(g: Game, div: Piece) -> list[Piece]:
    """OT 14Q: the elite brigade counters assigned to a division (pieces inside it)."""
    return [q for q in g.state.contents(div.id) if is_elite_brigade(q)]


def elite_modifier(q: Piece) -> Fraction:
    """The combat strength modifier printed on an elite brigade counter (its ``attack`` or
    ``strength`` value, e.g. 2 for a +2-5 counter)."""
    v = units.printed(q, "attack")
    return v if isinstance(v, Fraction) else Fraction(0)


@implements("OT 14Q")
def combat_strength(g: Game, p: Piece, key: str) -> Fraction:
    """OT 14Q: a unit's printed ``attack`` or ``defense`` strength raised by the modifiers of the
    elite brigades assigned to it, at full or cadre strength (a 6-9-5 division with a +2-5 and a
    +1-5 brigade is 9-12-5)."""
    base = units.printed_attack(p) if key == "attack" else units.printed_defense(p)
    return base + sum((elite_modifier(q) for q in elite_brigades(g, p)), Fraction(0))


@implements("OT 14Q")
def elite_limit(p: Piece) -> int:
    """OT 14Q: up to two elite brigades on a rifle division, one on any other division, none on
    other units."""
    if not units.is_divisional(p):
        return 0
    return 2 if units.utype(p).id == "rifle" else 1


@implements("OT 14Q")
def elite_assignment_problem(g: Game, brigade: Piece, div: Piece) -> str | None:
    """OT 14Q: an elite brigade may be reassigned in initial phases only, to a division in the same
    hex or the same replacement pool as its present one, within the division's limit."""
    if not is_elite_brigade(brigade):
        return f"{brigade.id} is not an elite brigade counter"
    if div.side != brigade.side or (brigade.nation and div.nation and brigade.nation != div.nation):
        return f"{div.id} is not a division of the brigade's nation"
    if elite_limit(div) <= len([q for q in elite_brigades(g, div) if q.id != brigade.id]):
        return f"{div.id} already has its limit of {elite_limit(div)} elite brigade(s) (OT 14Q)"
    cur = g.state.pieces.get(str(brigade.loc.ref)) if brigade.loc.kind == "piece" else None
    if cur is not None and g.state.where(cur.id) != g.state.where(div.id):
        return f"{div.id} is not in the same hex or replacement pool as {cur.id} (OT 14Q)"
    return None


# ============================================================================ movement ratings
@implements("OT 14Q", "OT 14N1", "OT 14C2", "OT 14O2")
def modified_ma(g: Game, p: Piece, ma: Fraction | str) -> Fraction | str:
    """The movement rating a unit moves with, from its printed one: a disabled tank has 0
    (OT 14C2); a division moves no faster than its slowest elite brigade (OT 14Q); a Corps HQs
    moves at the rating of the slowest unit in its box, or 8 alone (OT 14N1); a transport and its
    cargo move with the transport's rating (OT 14O2)."""
    if not isinstance(ma, Fraction):
        return ma
    if is_disabled(p):
        return Fraction(0)
    ebs = elite_brigades(g, p) if units.is_divisional(p) else []
    if ebs:
        slow = min(units.printed_ma_number(q) for q in ebs)
        ma = min(ma, slow)
    if is_corps_hq(p):
        inside = [q for q in g.state.contents(p.id) if units.is_unit(q)]
        if inside:
            return min(
                modified_ma(g, q, units.printed_move(q))
                if isinstance(units.printed_move(q), Fraction)
                else Fraction(0)
                for q in inside
            )
        return Fraction(8)
    return ma


# ========================================================================== combat effects on units
@dataclass
class CombatSituation:
    """One combat as Rules 14 and 15 see it: the units on each side, the attacked hex, the CRT in
    use (``mobile``/``positional`` once chosen), reaction combat or not, and the units making an
    amphibious landing (OT 14I2)."""

    attackers: list[Piece]
    defenders: list[Piece]
    hex: int
    crt: str | None = None
    reaction: bool = False
    landing: frozenset[str] = frozenset()
    overrun: bool = False

    @property
    def attacker_side(self) -> str:
        return self.attackers[0].side if self.attackers else ""

    @property
    def defender_side(self) -> str:
        return self.defenders[0].side if self.defenders else ""


@implements("OT 14D1", "OT 14L", "OT 14C2", "OT 14I2")
def attack_factor(g: Game, p: Piece, sit: CombatSituation) -> Fraction:
    """The multiplier of a unit's attack strength from Rule 14: 0 for a disabled tank (OT 14C2),
    1/2 for heavy cavalry against a major city or a fortification other than fieldworks (OT 14D1),
    1/2 for irregulars on the Positional CRT (OT 14L); in an amphibious landing (OT 14I2, advanced
    naval rules with ``marine-units``) marines attack at full strength, naval troops at half and all
    other units at a quarter."""
    if is_disabled(p):
        return Fraction(0)
    f = Fraction(1)
    if heavy_cavalry_halved(g, p, sit.hex):
        f /= 2
    if is_irregular(p) and sit.crt == "positional":
        f /= 2
    if p.id in sit.landing:
        f *= landing_factor(g, p)
    return f


@implements("OT 14I2")
def landing_factor(g: Game, p: Piece) -> Fraction:
    """OT 14I2: attack strength in an amphibious landing: marines (except naval troops) full, naval
    troops half, everybody else a quarter. Marine abilities need the advanced naval rules."""
    if g.opt("marine-units") and is_marine(p):
        return Fraction(1, 2) if "half-marine" in base_tags(p) else Fraction(1)
    return Fraction(1, 4)


RAID_TARGET_KINDS = ("coast", "heavy-siege", "siege")


@implements("OT 14I1")
def raid_targets(g: Game, i: int, side: str) -> list[Piece]:
    """OT 14I1: the enemy coast artillery, heavy siege artillery and siege artillery units in hex
    ``i`` (``side`` raids them)."""

    return [
        q
        for q in units.units_in_hex(g, i, other_side(side))
        if units.utype(q).artillery in RAID_TARGET_KINDS
    ]


@implements("OT 14I1")
def raid_problem(
    g: Game, raiders: list[Piece], i: int, targets: list[str], landing_planned: bool, night: bool
) -> str | None:
    """OT 14I1 (advanced naval rules, option ``marine-units``): only marine units raid, each with an
    amphibious landing planned for the hex (OT 32C), carried by a naval group entering it by night
    movement (OT 34A2); at most one raider per coast, heavy siege and siege artillery unit in the
    hex; each raider designates one of them (several may pick the same one, interpretation
    default)."""
    if not g.opt("marine-units"):
        return "coastal raids need the advanced naval rules (option marine-units, OT 14I)"
    if not raiders:
        return "name the raiding units"
    if any(not is_marine(p) for p in raiders):
        return "only marine units make coastal raids (OT 14I1)"
    if not landing_planned or not night:
        return (
            "raiders need an amphibious landing planned for the hex and a night-moving naval group"
            " (OT 14I1)"
        )
    cands = {q.id for q in raid_targets(g, i, raiders[0].side)}
    if len(raiders) > len(cands):
        return (
            f"at most {len(cands)} raiders: one per coast, heavy siege or siege artillery unit in"
            " the hex (OT 14I1)"
        )
    if len(targets) != len(raiders) or any(t not in cands for t in targets):
        return (
            "each raider designates a coast, heavy siege or siege artillery unit of the hex (OT"
            " 14I1)"
        )
    return None


@implements("OT 14I1")
def coastal_raid(g: Game, raiders: list[Piece], targets: list[str], land: bool) -> bool:
    """OT 14I1: the raids are resolved before the coast defenses fire on the naval group: for each
    raider a Ground Success Table roll without modifiers; success disrupts its target (badly if it
    was disrupted already); failure may cost the raider (eliminated on F*). Returns whether the
    naval group must spend 2 MP in the hex before anything else (the raiders did not land)."""
    for p, tid in zip(raiders, targets, strict=True):
        t = g.state.pieces[tid]
        res = gst(g, "coastal-raid", f"coastal raid of {p.id} on {t.id}", "OT 14I1")
        if res.startswith("S"):
            units.disrupt(
                g,
                t,
                badly=units.disruption(t) >= 1,
                rule="OT 14I1",
                reason=f"coastal raid by {p.id}",
            )
        elif res == "F*":
            units.eliminate(g, p, "OT 14I1", "the coastal raid failed")
        else:
            g.emit("raid", f"the coastal raid of {p.id} fails", rule="OT 14I1", piece=p.id)
    return not land


@implements("OT 14I2")
def intrinsically_amphibious(g: Game, p: Piece) -> bool:
    """OT 14I2: marine units may land from any type of water transport (others need landing craft
    or river transports); with the advanced naval rules only."""
    return bool(g.opt("marine-units")) and is_marine(p)


@implements("OT 14L", "OT 14C2")
def defense_factor(g: Game, p: Piece, sit: CombatSituation) -> Fraction:
    """The multiplier of a unit's defense strength from Rule 14: 0 for a disabled tank (OT 14C2),
    1/2 for irregulars on the Positional CRT (OT 14L)."""
    if is_disabled(p):
        return Fraction(0)
    if is_irregular(p) and sit.crt == "positional":
        return Fraction(1, 2)
    return Fraction(1)


OPEN_TERRAIN = ("clear", "rough", "stony-desert")


@implements("OT 14C4")
def counts_as_supported(g: Game, p: Piece, sit: CombatSituation, role: str) -> bool:
    """OT 14C4: a fast c/m unit is treated as supported (OT 12A) whatever its real status when it
    overruns into clear, rough or stony desert with no fortification but fieldworks, and when it
    attacks into or defends in such terrain (fortifications not considered, interpretation
    default) in a combat resolved on the Mobile CRT."""

    if not is_fast_cm(p) or terrain.terrain(g, sit.hex) not in OPEN_TERRAIN:
        return False
    if sit.overrun:
        return role == "attack" and not _fortified_beyond_fieldworks(g, sit.hex)
    return sit.crt == "mobile"
