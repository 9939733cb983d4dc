"""OT 3A: units -- size, class, regimental equivalents, heavy equipment and disruption.

A piece's printed values live on its faces (``attack``, ``defense``, ``move``; a single combat
strength may be given as ``strength``); ``attrs`` hold what the counter shows besides
(``size``, ``support`` indicator, ``contingent``, ``camel``) and what changes in play
(``fatigue``). Disruption is a status: ``disrupted`` or ``badly-disrupted``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.rulesets.greatwar.hooks import reactions
from grognard.rulesets.greatwar.units.catalogue import (
    Catalogue,
    UnitType,
    load_catalogue,
    nation_info,
)

if TYPE_CHECKING:
    from grognard.core.game import Game

DISRUPTED = "disrupted"
BADLY = "badly-disrupted"
OVERSTACKED = "overstacked"  # status (OT 8C2)
SIZES_CADRE = ("cadre", "remnant")
SUPPORT_INDICATORS = ("none", "self", "unsupported")
ELIMINATED_BOX = "eliminated"


def catalogue() -> Catalogue:
    return load_catalogue()


_UT: dict[str, UnitType] = {}


def utype(p: Piece) -> UnitType:
    """The catalogue entry of a piece (its type may be any alias of the symbol, OT 3A)."""
    t = _UT.get(p.type)
    if t is None:
        t = catalogue().resolve(p.type)
        _UT[p.type] = t
    return t


_IS_UNIT: dict[str, bool] = {}


def is_unit(p: Piece) -> bool:
    """OT 3A: "units" are ground units; logistics items, markers and naval units are not."""
    hit = _IS_UNIT.get(p.type)
    if hit is None:
        t = utype(p)
        hit = not (t.logistics or t.naval or "leader" in t.tags or "elite-brigade" in t.tags)
        _IS_UNIT[p.type] = hit
    return hit


# ----------------------------------------------------------------------------- size (OT 3A1)
def size_of(p: Piece) -> str:
    """The unit size shown on the face that is up (a cadre or remnant face is its own size)."""
    face = p.faces.get(p.face, {})
    if "size" in face:
        return str(face["size"])
    if p.face in SIZES_CADRE:
        return p.face
    return str(p.attrs.get("size", ""))


@implements("OT 3A1")
def size_category(p: Piece) -> str:
    """OT 3A1: ``higher-hq`` (army/corps symbol), ``divisional`` or ``non-divisional``; ``""`` for
    non-units."""
    s = catalogue().sizes.get(size_of(p))
    if s is not None:
        return s.category
    t = utype(p)
    if "army-hq" in t.tags or "corps-hq" in t.tags:
        return "higher-hq"
    return ""


def is_divisional(p: Piece) -> bool:
    return size_category(p) == "divisional"


def is_non_divisional(p: Piece) -> bool:
    return size_category(p) == "non-divisional"


# ----------------------------------------------------------------------------- class (OT 3A2)
@implements("OT 3A2")
def unit_classes(p: Piece) -> frozenset[str]:
    """OT 3A2: the set of classes of a unit (a type may be both artillery and c/m)."""
    return utype(p).classes


def is_artillery(p: Piece) -> bool:
    return "artillery" in unit_classes(p)


def is_cm(p: Piece) -> bool:
    return "cm" in unit_classes(p)


def is_non_motorized(p: Piece) -> bool:
    return "non-motorized" in unit_classes(p)


# ----------------------------------------------------------------------------- printed values
_VALS: dict[tuple[type, Any], Fraction | str | None] = {}


def _val(v: Any) -> Fraction | str | None:
    """A printed value as a Fraction (or ``R``/``W``), memoised by value (the answers are
    immutable)."""
    try:
        key = (v.__class__, v)
        hit = _VALS.get(key, _VALS)
    except TypeError:  # an unhashable value: parsed every time
        return _parse_val(v)
    if hit is _VALS:
        hit = _parse_val(v)
        if len(_VALS) < 4096:
            _VALS[key] = hit
    return hit  # type: ignore[return-value]


def _parse_val(v: Any) -> Fraction | str | None:
    if v is None:
        return None
    if isinstance(v, str) and v.strip().upper() in ("R", "W"):
        return v.strip().upper()
    if isinstance(v, Fraction):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return _INT_FRACS.get(v) or Fraction(v)
    return Fraction(str(v))


_INT_FRACS = {k: Fraction(k) for k in range(-2, 41)}


def printed(p: Piece, key: str) -> Fraction | str | None:
    """A printed value of the face that is up; ``attack``/``defense`` fall back to ``strength``."""
    face = p.faces.get(p.face, {})
    if key in face:
        return _val(face[key])
    if key in ("attack", "defense") and "strength" in face:
        return _val(face["strength"])
    return None


def printed_attack(p: Piece) -> Fraction:
    v = printed(p, "attack")
    return v if isinstance(v, Fraction) else Fraction(0)


def printed_defense(p: Piece) -> Fraction:
    v = printed(p, "defense")
    return v if isinstance(v, Fraction) else Fraction(0)


def printed_move(p: Piece) -> Fraction | str:
    """The printed movement rating: a number, or ``"R"`` (rail-only) / ``"W"`` (water-only)."""
    v = printed(p, "move")
    if v is None:
        return Fraction(0)
    return v


def printed_ma_number(p: Piece) -> Fraction:
    v = printed_move(p)
    return v if isinstance(v, Fraction) else Fraction(0)


def printed_combat_strength(p: Piece) -> Fraction:
    """The printed combat strength for OT 5A: the larger of attack and defense (or the single
    strength)."""
    return max(printed_attack(p), printed_defense(p))


def is_rail_only(p: Piece) -> bool:
    return printed_move(p) == "R"


def is_water_only(p: Piece) -> bool:
    return printed_move(p) == "W"


# ----------------------------------------------------------------------------- nationality helpers
def _scenario_nation_name(g: Game, p: Piece) -> str:
    n = g.scenario.data.nations.get(p.nation)
    if n is not None and isinstance(n.attrs.get("nation"), str):
        return str(n.attrs["nation"])
    return p.nation


def is_american(g: Game, p: Piece) -> bool:
    info = nation_info(_scenario_nation_name(g, p))
    return bool(info and info.american)


def is_ottoman(g: Game, p: Piece) -> bool:
    info = nation_info(_scenario_nation_name(g, p))
    return bool(info and info.ottoman)


# ----------------------------------------------------------------------------- RE (OT 3A3)
def support_indicator(p: Piece) -> str:
    """The support indicator printed on the counter: ``none``, ``self`` (black dot) or
    ``unsupported``."""
    return str(p.attrs.get("support", "none"))


@implements("OT 3A3")
def re_size(g: Game, p: Piece) -> Fraction:
    """OT 3A3: the size of a unit or item in regimental equivalents.

    Fixed sizes come from the size (battalion 1/2, regiment 1, brigade 2, ...) or from the
    type (Army HQs 3, Corps HQs 1, GSP 1/4, Res Pt 3, ...). American cadres are 2 RE, American
    divisions 6 and Ottoman divisions 3. Other divisions are 3/4/5 RE for the unsupported,
    self-supported and fully supported indicator (basic rule); with the option
    ``variable-re-advanced`` the scenario's Rule 41 table (``[rules] division_re``) decides,
    falling back to the basic rule where it lists nothing.
    """
    t = utype(p)
    if t.re is not None:
        if t.id in ("man-pt", "equ-pt"):
            return t.re * Fraction(str(p.attrs.get("points", 1)))  # OT 16B3: 1/2 RE per point
        return t.re
    size = size_of(p)
    cat = catalogue().sizes.get(size)
    if cat is None:
        return Fraction(0)
    if size == "cadre" and is_american(g, p):
        return Fraction(2)
    if cat.re is not None:
        return cat.re
    if cat.category != "divisional":
        return Fraction(0)
    if is_american(g, p):
        return Fraction(6)
    if is_ottoman(g, p):
        return Fraction(3)
    if g.opt("variable-re-advanced"):
        adv = _advanced_division_re(g, p)
        if adv is not None:
            return adv
    return {"unsupported": Fraction(3), "self": Fraction(4)}.get(support_indicator(p), Fraction(5))


def _advanced_division_re(g: Game, p: Piece) -> Fraction | None:
    rules = g.scenario.rules
    table = getattr(rules, "division_re", []) if rules is not None else []
    nation = _scenario_nation_name(g, p)
    best: tuple[Fraction, Fraction] | None = None
    for row in table:
        if row.nation not in (nation, p.nation):
            continue
        if row.types and utype(p).id not in {catalogue().resolve(x).id for x in row.types}:
            continue
        if printed_attack(p) < row.min_attack:
            continue
        key = (Fraction(row.min_attack), Fraction(str(row.re)))
        if best is None or key[0] > best[0]:
            best = key
    return None if best is None else best[1]


@implements("OT 3A3")
def transport_re(g: Game, p: Piece, mode: str) -> Fraction:
    """OT 3A3: RE counted for transport -- doubled for c/m units and for artillery.

    ``mode`` is ``rail`` or ``river`` (OT 7A4/7C5 double every artillery unit), ``naval`` or
    ``cartage``, where the interpretation option ``transport-doubling`` chooses between all
    artillery and only artillery with heavy equipment (the rulebook's own example doubles a
    field artillery regiment, which has no HE).
    """
    re = re_size(g, p)
    if is_cm(p):
        return re * 2
    if is_artillery(p) and (
        mode in ("rail", "river") or g.opt("transport-doubling") == "all-artillery" or has_he(g, p)
    ):
        return re * 2
    return re


# ----------------------------------------------------------------------------- HE (OT 3A4)
@implements("OT 3A4")
def has_he(g: Game, p: Piece) -> bool:
    """OT 3A4: HE if the type has it (UIC), or the unit is a fully supported divisional unit."""
    if utype(p).he:
        return True
    return is_divisional(p) and support_indicator(p) == "none"


# ----------------------------------------------------------------------------- disruption (OT 3A5)
def disruption(p: Piece) -> int:
    """0 undisrupted, 1 disrupted, 2 badly disrupted (a disabled tank is badly disrupted, OT
    14C2)."""
    if BADLY in p.status or p.face == "disabled":
        return 2
    if DISRUPTED in p.status:
        return 1
    return 0


@implements("OT 3A5")
def disrupt(g: Game, p: Piece, badly: bool = False, rule: str = "OT 3A5", reason: str = "") -> None:
    """OT 3A5: mark a unit disrupted (or badly disrupted).

    A unit already disrupted stays merely disrupted when disrupted again unless the cause says
    "badly" (interpretation default; only bombardment hits escalate, OT 12C3).
    """
    before = disruption(p)
    after = max(before, 2 if badly else 1)
    if after == before:
        return
    p.status.discard(DISRUPTED)
    p.status.discard(BADLY)
    p.status.add(BADLY if after == 2 else DISRUPTED)
    what = "badly disrupted" if after == 2 else "disrupted"
    g.emit(
        "disrupted",
        f"{p.id} is {what}" + (f" ({reason})" if reason else ""),
        rule=rule,
        piece=p.id,
        level=after,
    )


@implements("OT 3A5")
def recover(g: Game, p: Piece) -> bool:
    """OT 3A5: remove disruption (done at the start of the owner's initial phase)."""
    if disruption(p) == 0:
        return False
    p.status.discard(DISRUPTED)
    p.status.discard(BADLY)
    g.emit("recovered", f"{p.id} recovers from disruption", rule="OT 3A5", piece=p.id)
    return True


@implements("OT 3A5")
def disruption_factors(p: Piece) -> dict[str, Fraction]:
    """OT 3A5: multipliers of a disrupted unit: attack, defense, RE for special effects, movement.

    Disrupted: everything halved. Badly disrupted: attack 0, defense quartered, RE and movement
    halved (movement is halved, not quartered).
    """
    level = disruption(p)
    if level == 0:
        return {
            "attack": Fraction(1),
            "defense": Fraction(1),
            "re": Fraction(1),
            "move": Fraction(1),
            "gunnery": Fraction(1),
            "aa": Fraction(1),
        }
    if level == 1:
        h = Fraction(1, 2)
        return {"attack": h, "defense": h, "re": h, "move": h, "gunnery": h, "aa": h}
    return {
        "attack": Fraction(0),
        "defense": Fraction(1, 4),
        "re": Fraction(1, 2),
        "move": Fraction(1, 2),
        "gunnery": Fraction(0),
        "aa": Fraction(1, 2),
    }


def can_support(p: Piece) -> bool:
    """OT 3A5: a disrupted unit cannot provide support (OT 12A)."""
    return disruption(p) == 0


def can_use_special_effects(p: Piece) -> bool:
    """OT 3A5: a badly disrupted unit takes part in no special combat effects attempt."""
    return disruption(p) < 2


# ----------------------------------------------------------------------------- where pieces are
class _LocIndex:
    """Where the pieces are, derived from the state's own location index only (rebuilt whenever
    a piece is added, removed or moved: :meth:`GameState.move` resets it)."""

    __slots__ = ("at", "by_hex", "hex_of", "n", "state", "units")

    def __init__(self, g: Game) -> None:
        st = g.state
        at = {loc: [pid for _, pid in ids] for loc, ids in st._at.items()}
        self.state = st
        self.at = st.rev_of(("locations",))
        self.n = len(st.pieces)
        pieces = st.pieces
        self.hex_of: dict[str, int] = {}
        by_hex: dict[int, tuple[Piece, ...]] = {}
        for loc, ids in at.items():
            if loc.kind != "hex":
                continue
            i = int(loc.ref)
            out: list[Piece] = []
            stack = list(ids)
            while stack:  # breadth first: the stack, then what its pieces carry
                pid = stack.pop(0)
                out.append(pieces[pid])
                self.hex_of[pid] = i
                stack.extend(at.get(Loc("piece", pid), ()))
            by_hex[i] = tuple(out)
        self.by_hex = by_hex
        self.units: tuple[Piece, ...] = tuple(
            sorted((pieces[pid] for pid in self.hex_of if is_unit(pieces[pid])), key=lambda p: p.id)
        )


def _loc_index(g: Game) -> _LocIndex:
    """The index of the state's pieces by hex, kept in the game's local cache (it holds the
    state's own pieces, so it is never handed to a clone) while it describes the state."""
    st = g.state
    li = g.cache.local.get("gw:loc-index")
    if (
        li is not None
        and li.state is st
        and li.at == st.rev_of(("locations",))
        and li.n == len(st.pieces)
    ):
        return li
    li = _LocIndex(g)
    g.cache.local["gw:loc-index"] = li
    return li


def loc_version(g: Game) -> object:
    """An object that stays the same exactly while no piece is added, removed or moved (for memo
    keys: it is kept alive by the key, so it is never confused with a later one)."""
    return _loc_index(g)


def hex_of(g: Game, p: Piece | str) -> int | None:
    """The map hex a piece is in (following carriers such as a Corps HQs box), or None."""
    st = g.state
    li = g.cache.local.get("gw:loc-index")
    if (
        li is None
        or li.state is not st
        or li.at != st.rev_of(("locations",))
        or li.n != len(st.pieces)
    ):
        li = _loc_index(g)
    return li.hex_of.get(p if isinstance(p, str) else p.id)


def pieces_in_hex(g: Game, i: int) -> list[Piece]:
    """Every piece in hex ``i``, including those inside carriers there (Corps HQs boxes)."""
    return list(_loc_index(g).by_hex.get(i, ()))


def units_in_hex(g: Game, i: int, side: str | None = None) -> list[Piece]:
    return [
        p
        for p in _loc_index(g).by_hex.get(i, ())
        if is_unit(p) and (side is None or p.side == side)
    ]


def on_map_units(g: Game, side: str | None = None) -> list[Piece]:
    """The units on the map (of ``side``), by id."""
    us = _loc_index(g).units
    if side is None:
        return list(us)
    return [p for p in us if p.side == side]


def eliminate(g: Game, p: Piece, rule: str, reason: str = "") -> None:
    """Remove a unit from play; pieces it carries go with it, except a leader, who goes to the
    leader pool (OT 14P), and elite brigade counters, which stay with their division (OT 14Q).
    It goes to the eliminated box, where ``replacements.on_eliminated`` records the replacement
    pool it belongs to and its special replacements (OT 16B2, 16B4)."""
    for q in list(g.state.contents(p.id)):
        if "leader" in utype(q).tags:
            reactions(g).leader_to_pool(g, q, f"{p.id} was eliminated")
            continue
        if "elite-brigade" in utype(q).tags:
            continue
        eliminate(g, q, rule, f"carried by {p.id}")
    reactions(g).unit_eliminated(g, p, rule)
    g.state.move(p.id, Loc.box(ELIMINATED_BOX))
    p.status.discard(DISRUPTED)
    p.status.discard(BADLY)
    g.emit(
        "eliminated",
        f"{p.id} is eliminated" + (f" ({reason})" if reason else ""),
        rule=rule,
        piece=p.id,
    )
