"""OT 13: engineers -- construction units and what they build, demolish and repair; railroad and
port construction engineers; the combat abilities of combat, assault, flamethrower, siege and gas
engineers; divisional engineers.

**Who** (:func:`construction_kind`): construction engineers and combat engineers (catalogue
``construction = "general"``), railroad engineers (``railroad``), port construction engineers
(``port``), and every divisional unit with a printed attack of 5 or more (divisional engineers,
OT 13I). Assault engineers, flamethrowers, siege and gas engineers are not construction units.

**When and how** (OT 13A): in general supply, in the owner's initial phase (projects measured in
turns: ``begin-project``) and movement phase (work measured in MPs: ``engineer``), never under
accelerated movement, in a contested hex or from an overstack. Poor weather doubles the remaining
work (OT 13A4): MP work is kept as the share of the job still to do, turn work as good-weather
turns. Two construction units together (a brigade counts as two; civilian labour as the second,
OT 13A6 default) share MP work (each pays half) and halve turn durations, rounded up (digest default
A29); a one-turn project begun by two units may be finished in the movement phase by each spending
half its movement allowance (``finish-project``).

Actions -- movement phase: ``{"type": "engineer", "side", "pieces": [1 or 2 ids], "task", "target"
(hex, default the unit's), "hexside" ("AAAA/BBBB"), "mp" (optional, per unit), "civilian_labour"}``
with tasks ``fieldworks``, ``entrenchment``, ``demolish-fortification``, ``demolish-bridge``,
``demolish-port``, ``repair-rail``, ``clear-rail``, ``repair-port``, ``repair-bridge``,
``regauge`` (with ``gauge``), ``pontoon``, ``demolish-pontoon``; ``finish-project``. Initial
phase: ``begin-project`` (tasks ``fort``, ``improved-fort``, ``fortress``, ``road``,
``rail-upgrade``, ``rail-extend``, ``port-upgrade``; ``res_pts`` optional) and
``abandon-port-upgrade``.

Map state: the fortification markers (``fortification``, ``fortress-state``), ``rail-break``
(a number of hits, ``true`` = 1), ``rail-obstructed``, ``bridge-demolished`` and ``port-damage``
markers; gauge and volume changes, pontoon bridges and port upgrades in ``gw["eng"]``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.greatwar import calendar, listing
from grognard.rulesets.greatwar.charts import load_charts
from grognard.rulesets.greatwar.logistics import logistics
from grognard.rulesets.greatwar.map import geography, terrain
from grognard.rulesets.greatwar.map.weather import is_poor_weather, weather_at
from grognard.rulesets.greatwar.mechanics import gw, marker, set_marker
from grognard.rulesets.greatwar.movement import movement, rail, rivers
from grognard.rulesets.greatwar.movement.stacking import OVERSTACKED
from grognard.rulesets.greatwar.step import InitialExtension, MovementExtension
from grognard.rulesets.greatwar.supply import supply, supply_status
from grognard.rulesets.greatwar.units import units

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.greatwar.record import EngRecord, HeadRecord, ProjectRecord

PORT_DUTY = "port-duty"  # status of a port construction engineer maintaining an upgrade (OT 13C2)
MP_TASKS = (
    "fieldworks",
    "entrenchment",
    "demolish-fortification",
    "demolish-bridge",
    "demolish-port",
    "repair-rail",
    "clear-rail",
    "repair-port",
    "repair-bridge",
    "regauge",
    "pontoon",
    "demolish-pontoon",
)
TURN_TASKS = (
    "fort",
    "improved-fort",
    "fortress",
    "road",
    "rail-upgrade",
    "rail-extend",
    "port-upgrade",
)


def chart(g: Game) -> dict[str, Any]:
    """The engineering chart (``data/charts/engineering.toml``; overridable)."""
    over = g.scenario.table_overrides
    key = tuple(sorted((over or {}).items()))
    return g.cache.keyed(
        "gw:engineering-chart", key, lambda: dict(load_charts(over).raw["engineering"].body)
    )


def eng(g: Game) -> EngRecord:
    return gw(g).setdefault("eng", {})


# ============================================================================ who is what
_DIV_ENG: dict[tuple[Any, ...], bool] = {}
_DIV_ENG_BY_FACES: dict[tuple[Any, ...], tuple[Any, bool]] = {}


@implements("OT 13I")
def is_divisional_engineer(p: Piece, cadre_ok: bool = False) -> bool:
    """OT 13I: divisional units with a printed attack of 5 or more have divisional engineers (the
    full-strength side counts; a cadre keeps only the maintenance of fieldworks and entrenchments).
    """
    faces = p.faces
    # first by the identity of the faces (shared by a piece's copies, never changed in play; the
    # entry keeps them, so a reused id is never mistaken), then by their printed values
    quick = (id(faces), p.type, p.face, p.attrs.get("size"), cadre_ok)
    seen = _DIV_ENG_BY_FACES.get(quick)
    if seen is not None and seen[0] is faces:
        return seen[1]
    key = (
        p.type,
        p.face,
        p.attrs.get("size"),
        cadre_ok,
        tuple(sorted((name, str(f.get("attack", f.get("strength")))) for name, f in faces.items())),
    )
    hit = _DIV_ENG.get(key)
    if hit is None:
        hit = _is_divisional_engineer(p, cadre_ok)
        _DIV_ENG[key] = hit
    if len(_DIV_ENG_BY_FACES) > 50_000:
        _DIV_ENG_BY_FACES.clear()
    _DIV_ENG_BY_FACES[quick] = (faces, hit)
    return hit


def _is_divisional_engineer(p: Piece, cadre_ok: bool) -> bool:
    """OT 13I: divisional units with a printed attack of 5 or more have divisional engineers (the
    full-strength side counts; a cadre keeps only the maintenance of fieldworks and entrenchments).
    """
    size = units.catalogue().sizes.get(str(p.attrs.get("size", "")))
    if not units.is_unit(p) or size is None or size.category != "divisional":
        return False
    full = [f for name, f in p.faces.items() if name not in units.SIZES_CADRE]
    best = max(
        (units._val(f.get("attack", f.get("strength", 0))) for f in full),
        default=Fraction(0),
        key=lambda v: v if isinstance(v, Fraction) else Fraction(0),
    )
    if not isinstance(best, Fraction) or best < 5:
        return False
    return cadre_ok or p.face not in units.SIZES_CADRE


@implements("OT 13A", "OT 13B", "OT 13C", "OT 13D", "OT 13E", "OT 13I")
def construction_kind(p: Piece) -> str:
    """OT 13A-13C, 13I: ``general`` (construction and combat engineers), ``railroad``, ``port``,
    ``divisional`` (divisional engineers), or ``""`` (assault, flamethrower, siege and gas engineers
    are not construction units, OT 13E-13H)."""
    c = units.utype(p).construction
    if c:
        return c
    return "divisional" if is_divisional_engineer(p) else ""


def is_construction_unit(p: Piece) -> bool:
    return construction_kind(p) != ""


@implements("OT 13A5")
def engineer_count(p: Piece) -> int:
    """OT 13A5: construction units a unit counts as for quick engineering: a brigade-sized one
    two; a division-sized construction unit two brigades (four; for construction only)."""
    if construction_kind(p) in ("", "divisional"):
        return 1 if construction_kind(p) else 0
    size = units.size_of(p)
    if size in ("division", "divisional-grouping"):
        return 4
    if size in ("brigade", "brigade-grouping"):
        return 2
    return 1


TASK_KINDS = {
    # task -> construction kinds allowed (OT 13A, 13B, 13C, 13I)
    "fieldworks": ("general", "divisional"),
    "entrenchment": ("general", "divisional"),
    "demolish-fortification": ("general",),
    "demolish-bridge": ("general",),
    "demolish-port": ("general", "port"),
    "repair-rail": ("general", "railroad"),
    "clear-rail": ("general", "railroad"),
    "repair-port": ("general", "port"),
    "repair-bridge": ("general",),
    "regauge": ("railroad",),
    "pontoon": ("general",),
    "demolish-pontoon": ("general",),
    "fort": ("general",),
    "improved-fort": ("general",),
    "fortress": ("general",),
    "road": ("general",),
    "rail-upgrade": ("railroad",),
    "rail-extend": ("railroad",),
    "port-upgrade": ("port",),
}


@implements("OT 13B", "OT 13C", "OT 13I")
def can_do(g: Game, p: Piece, task: str) -> bool:
    """Which construction units may do a task: railroad engineers only rail breaks, rail repair and
    clearing, regauging, upgrading and extending rail lines (OT 13B); port construction engineers
    only port demolition, repair and upgrades (OT 13C); divisional engineers only fieldworks, and
    from Jun I 15 entrenchments (OT 13I); construction engineers everything else (OT 13A)."""
    kind = construction_kind(p)
    if kind not in TASK_KINDS.get(task, ()):
        return False
    if kind == "divisional" and task == "entrenchment":
        return calendar.on_or_after(g, str(chart(g)["dates"]["divisional_entrenchment"]))
    return True


@implements("OT 13A", "OT 13A1a", "OT 13I")
def maintains_fieldworks(p: Piece) -> bool:
    """OT 13A1a/13I: units whose presence keeps fieldworks and entrenchments: construction and
    combat engineers and divisional engineers (even at cadre strength). Railroad and port
    engineers only do their own tasks (digest default A31)."""
    return units.utype(p).construction == "general" or is_divisional_engineer(p, cadre_ok=True)


# ----------------------------------------------------------------------------- combat abilities
def _tags(p: Piece) -> frozenset[str]:
    return units.utype(p).tags


def fortification_beyond_fieldworks(g: Game, i: int) -> bool:
    """A fortification other than fieldworks (entrenchment, fort, improved fort) or a fortress."""
    level = marker(g, "fortification", i)
    if level and level != "fieldworks":
        return True
    return any(pt.kind == "fortress" for pt in g.board.points_at(i))


def _improved_fortress(g: Game, i: int) -> str | None:
    for pt in g.board.points_at(i):
        if (
            pt.kind == "fortress"
            and str(marker(g, "fortress-state", i) or pt.attrs.get("state", "unimproved"))
            == "improved"
        ):
            return str(pt.attrs.get("type", "new"))
    return None


@implements("OT 13D", "OT 13E", "OT 13F")
def has_combat_engineer_abilities(p: Piece) -> bool:
    """OT 13D-13F: combat engineers, and assault engineers and flamethrower units (which have their
    combat abilities)."""
    t = _tags(p)
    return "combat-engineer" in t or "assault-engineer" in t


@implements("OT 13D", "OT 13E", "OT 13F")
def auto_supported(g: Game, p: Piece, hex_: int) -> bool:
    """OT 13D: combat engineers (and assault and flamethrower units, OT 13E/13F) are automatically
    supported attacking into or defending in a hex with a major city or a fortification other than
    fieldworks; so supported they support no other unit."""
    if not has_combat_engineer_abilities(p):
        return False
    return geography.is_major_city_hex(g, hex_) or fortification_beyond_fieldworks(g, hex_)


@implements("OT 13D", "OT 13E", "OT 13F", "OT 11F2")
def eec_capable(g: Game, p: Piece, target: int) -> bool:
    """OT 13D: units with combat engineer abilities may make EEC attempts (OT 10C) in attacks on a
    major city or a fortification other than fieldworks; none from the second turn out of general
    supply (OT 11F2)."""

    if not has_combat_engineer_abilities(p) or not supply.has_special_effects(g, p):
        return False
    return geography.is_major_city_hex(g, target) or fortification_beyond_fieldworks(g, target)


@implements("OT 13E", "OT 10C")
def eec_re(g: Game, p: Piece, target: int) -> Fraction:
    """OT 13E: an assault engineer (and flamethrower unit) counts double RE for EEC when attacking a
    major city or an improved fortress; OT 10C doubles them always -- the option
    ``assault-engineer-eec-doubling`` chooses (default OT 10C)."""
    re = units.re_size(g, p)
    if "assault-engineer" not in _tags(p):
        return re
    if g.opt("assault-engineer-eec-doubling") == "always-10C":
        return re * 2
    if geography.is_major_city_hex(g, target) or _improved_fortress(g, target) is not None:
        return re * 2
    return re


@implements("OT 13F")
def flamethrower_bonus(pieces: Sequence[Piece]) -> int:
    """OT 13F: a flamethrower unit included in an EEC attempt gives +1 on the Ground Success
    Table."""
    return 1 if any("flamethrower" in _tags(p) for p in pieces) else 0


@implements("OT 13G", "OT 11F2")
def sec_capable(g: Game, p: Piece, target: int) -> bool:
    """OT 13G: siege engineers may make SEC attempts (OT 10E) in attacks on a major city or a
    fortification other than fieldworks (not from the second turn out of supply, OT 11F2)."""

    if units.utype(p).id != "siege-engineer" or not supply.has_special_effects(g, p):
        return False
    return geography.is_major_city_hex(g, target) or fortification_beyond_fieldworks(g, target)


@implements("OT 13H", "OT 11F2")
def gec_capable(g: Game, p: Piece) -> bool:
    """OT 13H: gas engineers may make a GEC attempt (OT 10D) in any combat they are part of,
    attacking or defending (not from the second turn out of supply, OT 11F2)."""

    return units.utype(p).id == "gas-engineer" and supply.has_special_effects(g, p)


@implements("OT 13E", "OT 13F", "OT 13G")
def strength_factor(g: Game, p: Piece, target: int, role: str) -> tuple[Fraction, str, str] | None:
    """OT 13E/13F: assault engineers and flamethrower units attack x3 into a hex with an improved
    fortress (old), even with a major city; x2 into an improved fortress (new) or a major city
    (without an improved fortress (old)); they defend x2 in a major city, an improved fortress or an
    improved fort. OT 13G: siege engineers defend x2 in those hexes."""
    t = _tags(p)
    kind = _improved_fortress(g, target)
    city = geography.is_major_city_hex(g, target)
    if role == "attack" and "assault-engineer" in t:
        if kind == "old":
            return (Fraction(3), "OT 13E", "assault engineers against an improved fortress (old)")
        if kind == "new" or city:
            return (
                Fraction(2),
                "OT 13E",
                "assault engineers against an improved fortress (new) or major city",
            )
        return None
    strong = city or kind is not None or marker(g, "fortification", target) == "improved-fort"
    if (
        role == "defense"
        and ("assault-engineer" in t or units.utype(p).id == "siege-engineer")
        and strong
    ):
        rule = "OT 13G" if units.utype(p).id == "siege-engineer" else "OT 13E"
        return (
            Fraction(2),
            rule,
            "engineers defending in a major city, improved fortress or improved fort",
        )
    return None


# ============================================================================ costs
def _poor(g: Game, i: int) -> bool:
    return is_poor_weather(weather_at(g, i))


@implements(
    "OT 13A1b", "OT 13A2", "OT 13A3", "OT 13B1", "OT 13B2", "OT 13B3a", "OT 13C1", "OT 13A7"
)
def base_mp_cost(
    g: Game, task: str, kinds: Sequence[str], i: int, s: int | None = None
) -> Fraction:
    """The good-weather MP cost of a job done by units of ``kinds`` (the lower railroad or port
    engineer rate applies when one of them is one, OT 13B2, 13C1)."""
    mp = chart(g)["mp"]
    rr = "railroad" in kinds
    port = "port" in kinds
    cheap = terrain.terrain(g, i) in chart(g)["terrain"]["cheap"]
    if task == "fieldworks":
        return Fraction(mp["fieldworks"])
    if task == "entrenchment":
        return Fraction(mp["entrenchment_clear_rough"] if cheap else mp["entrenchment_other"])
    if task == "demolish-fortification":
        return Fraction(mp["demolish_fortification"])
    if task == "demolish-bridge":
        return Fraction(mp["demolish_bridge"])
    if task == "demolish-port":
        return Fraction(
            mp["port_engineer_demolish_per_hit"] if port else mp["demolish_port_per_hit"]
        )
    if task == "repair-port":
        return Fraction(mp["port_engineer_repair_per_hit"] if port else mp["repair_port_per_hit"])
    if task == "repair-rail":
        return Fraction(mp["railroad_repair_per_hit"] if rr else mp["repair_rail_per_hit"])
    if task == "clear-rail":
        return Fraction(mp["railroad_clear"] if rr else mp["clear_rail"])
    if task == "regauge":
        return Fraction(mp["regauge"])
    if task == "repair-bridge":
        return Fraction(
            mp["repair_bridge_major"]
            if s is not None and _major_crossing(g, s)
            else mp["repair_bridge"]
        )
    if task == "pontoon":
        return Fraction(
            mp["pontoon_bridge_major"]
            if s is not None and _major_crossing(g, s)
            else mp["pontoon_bridge"]
        )
    if task == "demolish-pontoon":
        return Fraction(mp["demolish_pontoon"])
    raise KeyError(task)


def _major_crossing(g: Game, s: int) -> bool:
    return any(
        f.startswith("major-river") or f.startswith("great-river")
        for f in terrain.side_features(g, s)
    )


@implements("OT 13A4", "OT 13I", "OT 13A5")
def job_cost(
    g: Game, task: str, workers: Sequence[Piece], i: int, s: int | None = None
) -> Fraction:
    """The MP cost of a whole job for these workers: the base cost (OT 13A-13C), doubled in poor
    weather (OT 13A4) and for divisional engineers (OT 13I). With quick engineering the workers
    share it (each pays half, never less, OT 13A5)."""
    kinds = [construction_kind(p) for p in workers]
    c = base_mp_cost(g, task, kinds, i, s)
    if _poor(g, i):
        c *= 2
    if "divisional" in kinds:
        c *= 2
    return c


# ============================================================================ general restrictions
def _phase_kind(g: Game, f: Frame | None) -> str:
    if f is not None and f.step != "initial-actions":
        return str(f.params.get("kind", ""))
    return "initial" if str(gw(g).get("phase")) == "initial" else str(gw(g).get("phase", ""))


@implements("OT 13A", "OT 13B3")
def worker_problem(g: Game, f: Frame | None, p: Piece, side: str) -> str | None:
    """OT 13A: construction, demolition and repair (and railroad engineering, OT 13B3) only by units
    in general supply, in the owner's initial and movement phases, not while using accelerated
    movement (OT 6B), not in a contested hex (OT 9J), not from an overstack (OT 8C2)."""

    if p.side != side or not units.is_unit(p):
        return f"{side} has no unit {p.id}"
    if not is_construction_unit(p):
        return f"{p.id} is not a construction unit (OT 13A)"
    kind = _phase_kind(g, f)
    if kind not in ("initial", "movement"):
        return (
            "construction, demolition and repair happen only in the initial and movement phases (OT"
            " 13A)"
        )
    h = units.hex_of(g, p)
    if h is None:
        return f"{p.id} is not on the map"
    if not supply_status.in_general_supply(g, p):
        return f"{p.id} is not in general supply (OT 13A)"
    if marker(g, "contested", h):
        return f"{p.id} is in a contested hex (OT 9J)"
    if OVERSTACKED in p.status:
        return f"{p.id} is overstacked (OT 8C2)"
    if PORT_DUTY in p.status:
        return f"{p.id} is maintaining a port upgrade (OT 13C2)"
    if f is not None and kind == "movement":
        if movement.mode_of(f, p) == "accel":
            return f"{p.id} uses accelerated movement (OT 6B)"
        why = movement.can_move_now(g, f, p)
        if why:
            return why
    return None


@implements("OT 13A1g")
def date_allows(g: Game, side: str, task: str) -> bool:
    """OT 13A1g: the Central Powers may upgrade fieldworks to entrenchments from Oct II 14,
    entrenchments to forts from Feb I 15, forts to improved forts from Feb I 17; the Entente from
    Oct
    II 14, Feb I 16 and Feb I 18."""
    key = {"entrenchment": "entrenchment", "fort": "fort", "improved-fort": "improved_fort"}.get(
        task
    )
    if key is None:
        return True
    return calendar.on_or_after(g, str(chart(g)["dates"][side][key]))


# ========================================================================= MP work (movement phase)
@dataclass
class Job:
    task: str
    workers: list[Piece]
    hex: int
    hexside: int | None
    spend: dict[str, Fraction]  # MPs each worker spends
    progress: Fraction  # share of the job done by this action
    key: str
    remaining_before: Fraction
    res_pt: Piece | None = None


def _workers(g: Game, action: Action) -> list[Piece]:
    ids = action.get("pieces")
    if not isinstance(ids, list) or not 1 <= len(ids) <= 2 or len(set(map(str, ids))) != len(ids):
        raise IllegalAction(
            "OT 13A5", "'pieces' names one construction unit, or two working together"
        )
    out = []
    for pid in ids:
        p = g.state.pieces.get(pid) if isinstance(pid, str) else None
        if p is None or p.side != action["side"]:
            raise IllegalAction("OT 13A", f"{action['side']} has no unit {pid!r}")
        out.append(p)
    return out


def _hexside(g: Game, action: Action) -> int | None:

    raw = action.get("hexside")
    if raw is None:
        return None
    s = rivers._side_from_label(g, raw)
    if s is None:
        raise IllegalAction("OT 13A", f"{raw!r} is not a hexside (write 'AAAA/BBBB')")
    return s


@implements("OT 13A5", "OT 13A6", "OT 13B3", "OT 13C2", "OT 13I")
def quick_engineering(
    g: Game, workers: Sequence[Piece], task: str, civilian: bool, hex_: int
) -> bool:
    """OT 13A5: two construction units stacked together (a brigade-sized one alone counts as two) do
    quick engineering. The pair must be able to do the task together: for railroad engineering and
    port upgrades one railroad / port engineer is enough, the other may be any construction unit
    (OT 13B3, 13C2); divisional engineers pair only with each other (OT 13I). Civilian labour (OT
    13A6, text absent: default) is a second unit in a friendly-owned major city hex in general
    supply, never for divisional engineers. Raises if the pair may not work together."""
    kinds = [construction_kind(p) for p in workers]
    if len(workers) == 2:
        a, b = workers
        if units.hex_of(g, a) != units.hex_of(g, b):
            raise IllegalAction("OT 13A5", "quick engineering needs the two units stacked together")
        if "divisional" in kinds and kinds != ["divisional", "divisional"]:
            raise IllegalAction(
                "OT 13I",
                "a divisional engineer does quick engineering only with another divisional"
                " engineer",
            )
        allowed = TASK_KINDS[task]
        if not any(k in allowed for k in kinds):
            raise IllegalAction("OT 13A", f"neither unit may do {task}")
        for p, k in zip(workers, kinds, strict=True):
            if k not in allowed and not (
                k == "general"
                and task
                in (
                    "regauge",
                    "repair-rail",
                    "clear-rail",
                    "rail-upgrade",
                    "rail-extend",
                    "port-upgrade",
                    "repair-port",
                    "demolish-port",
                )
            ):
                raise IllegalAction("OT 13A", f"{p.id} may not take part in {task}")
        return True
    p = workers[0]
    if not can_do(g, p, task):
        raise IllegalAction("OT 13A", f"{p.id} may not do {task}")
    if civilian:
        if kinds[0] == "divisional":
            raise IllegalAction("OT 13I", "a divisional engineer may not use civilian labour")
        if not (geography.is_major_city_hex(g, hex_) and g.state.control.get(hex_) == p.side):
            raise IllegalAction(
                "OT 13A6",
                "civilian labour is available in a friendly-owned major city hex (default)",
            )
        return True
    return engineer_count(p) >= 2


def _work_key(task: str, i: int, s: int | None) -> str:
    base = {
        "repair-rail": "rail",
        "clear-rail": "clear",
        "demolish-port": "port-",
        "repair-port": "port+",
    }.get(task, task)
    return f"{base}:{i}:{s if s is not None else ''}"


def rail_hits(g: Game, i: int) -> int:
    v = marker(g, "rail-break", i)
    if v is True:
        return 1
    return int(v or 0)


@implements(
    "OT 13A1a",
    "OT 13A1b",
    "OT 13A2",
    "OT 13A3",
    "OT 13A7",
    "OT 13B2",
    "OT 13B3a",
    "OT 13C1",
    "OT 13A4",
    "OT 13A5",
)
def plan_job(g: Game, f: Frame, action: Action) -> Job:
    """Check an ``engineer`` action (see the module docstring) and work out what it does."""

    side = action["side"]
    task = action.get("task")
    if task not in MP_TASKS:
        raise IllegalAction(
            "OT 13A", f"unknown engineering task {task!r} (MP tasks: {', '.join(MP_TASKS)})"
        )
    workers = _workers(g, action)
    for p in workers:
        why = worker_problem(g, f, p, side)
        if why:
            raise IllegalAction("OT 13A", why)
    if _phase_kind(g, f) != "movement":
        raise IllegalAction("OT 13A", "MP-costed engineering is done in the movement phase")
    here = units.hex_of(g, workers[0])
    assert here is not None
    tgt = action.get("target")
    i = g.board.idx(tgt) if isinstance(tgt, str) and g.board.has_label(tgt) else here
    if i != here:
        big = all(
            units.size_of(p) in ("division", "divisional-grouping")
            and construction_kind(p) == "general"
            for p in workers
        )

        if (
            not big
            or i not in g.board.neighbors(here)
            or g.state.control.get(i) != side
            or not supply.hex_in_general_supply(g, side, i)
        ):
            raise IllegalAction(
                "OT 13A5",
                "only a division-sized construction unit works in an adjacent friendly-owned hex in"
                " general supply",
            )
    s = _hexside(g, action)
    civilian = bool(action.get("civilian_labour"))
    quick = quick_engineering(g, workers, str(task), civilian, i)
    if task == "fieldworks":
        if terrain.hex_prohibited_to_all(g, i):
            raise IllegalAction("OT 13A1a", "no fieldworks in prohibited terrain")
        if marker(g, "fortification", i) or any(
            pt.kind == "fortress" for pt in g.board.points_at(i)
        ):
            raise IllegalAction("OT 13A1a", "the hex already holds a fortification")
    elif task == "entrenchment":
        if marker(g, "fortification", i) != "fieldworks":
            raise IllegalAction("OT 13A1b", "entrenchments upgrade fieldworks")
        if not date_allows(g, side, "entrenchment"):
            raise IllegalAction(
                "OT 13A1g",
                f"{side} may not build entrenchments before"
                f" {chart(g)['dates'][side]['entrenchment']}",
            )
    elif task == "demolish-fortification":
        if marker(g, "fortification", i) not in ("entrenchment", "fort", "improved-fort"):
            raise IllegalAction(
                "OT 13A2",
                "only an improved fort, fort or entrenchment can be demolished (fieldworks are"
                " abandoned, fortresses never demolished)",
            )
    elif task in ("demolish-bridge", "repair-bridge", "pontoon", "demolish-pontoon"):
        if s is None or i not in [int(x) for x in g.board.side_hexes[s]]:
            raise IllegalAction("OT 13A2", "name a 'hexside' of the hex the unit works in")
        a, b = (int(x) for x in g.board.side_hexes[s])
        if task == "demolish-bridge":
            if (
                not terrain.bridge_features(g, s)
                or not terrain.road_link(g, s)
                or marker(g, "bridge-demolished", s)
            ):
                raise IllegalAction("OT 13A2", "there is no standing bridge on that hexside")
            owner = marker(g, "bridge-owner", s)
            if owner not in (None, side) and not (
                g.state.control.get(a) == side and g.state.control.get(b) == side
            ):
                raise IllegalAction(
                    "OT 13A2", "the bridge must be friendly-owned or unowned (OT 15A1)"
                )
        elif task == "repair-bridge":
            if not marker(g, "bridge-demolished", s):
                raise IllegalAction("OT 13A3", "the bridge on that hexside is not demolished")
            if not (g.state.control.get(a) == side and g.state.control.get(b) == side):
                raise IllegalAction(
                    "OT 13A3", "a bridge is repaired only by the owner of both hexes next to it"
                )
        elif task == "pontoon":
            if not any(
                f in ("river", "canal", "major-river", "major-river-unfordable")
                for f in terrain.side_features(g, s)
            ):
                raise IllegalAction(
                    "OT 13A7", "a pontoon bridge spans a river, canal or major river hexside"
                )
            if pontoon_owner(g, s) is not None:
                raise IllegalAction("OT 13A7", "a pontoon bridge is already there")
        elif pontoon_owner(g, s) != side:
            raise IllegalAction("OT 13A7", "there is no friendly pontoon bridge on that hexside")
    elif task in ("demolish-port", "repair-port"):
        if supply._port_size(g, i) is None:
            raise IllegalAction("OT 13A2", "there is no port in the hex")
        dmg = supply.port_damage(g, i)
        if task == "repair-port" and dmg == 0:
            raise IllegalAction("OT 13A3", "the port has no damage to repair")
        if task == "demolish-port" and not supply.port_functioning(g, i):
            raise IllegalAction("OT 13A2", "the port already has its maximum damage")
    elif task == "repair-rail":
        if rail_hits(g, i) == 0:
            raise IllegalAction("OT 13A3", "the rail line in the hex is not broken")
    elif task == "clear-rail":
        if not marker(g, "rail-obstructed", i):
            raise IllegalAction("OT 13A3", "the rail line in the hex is not obstructed")
        if rail_hits(g, i):
            raise IllegalAction(
                "OT 13A3", "a broken and obstructed rail line is repaired before it is cleared"
            )
    elif task == "regauge":
        if i not in rail.rail_hexes(g) or rail_hits(g, i) or marker(g, "rail-obstructed", i):
            raise IllegalAction("OT 13B3a", "only a cleared and unbroken rail line is regauged")
        if action.get("gauge") not in rail.GAUGES:
            raise IllegalAction("OT 13B3a", f"'gauge' is one of {', '.join(rail.GAUGES)}")
    cost = job_cost(g, str(task), workers, i, s)
    key = _work_key(str(task), i, s)
    work = eng(g).get("works", {}).get(key)
    remaining = (
        Fraction(work.get("left", 1))
        if work is not None and work.get("task") == task
        else Fraction(1)
    )
    need_total = remaining * cost
    share = Fraction(1, 2) if quick else Fraction(1)
    left_mp = {p.id: movement.remaining(g, f, p) for p in workers}
    spend: dict[str, Fraction] = {}
    raw_mp = action.get("mp")
    for p in workers:
        if raw_mp is not None:
            try:
                want = Fraction(str(raw_mp))
            except (ValueError, TypeError):
                raise IllegalAction("OT 13A", "'mp' must be a number") from None
            if want <= 0:
                raise IllegalAction("OT 13A", "'mp' must be positive")
        else:
            want = need_total * share
        want = min(want, need_total * share)
        if want > left_mp[p.id]:
            raise IllegalAction("OT 13A", f"{p.id} has {left_mp[p.id]} MP left; {want} asked")
        spend[p.id] = want
    done = (
        sum(spend.values(), Fraction(0)) / share
        if len(workers) == 1
        else sum(spend.values(), Fraction(0))
    )
    progress = min(remaining, done / cost)
    if progress <= 0:
        raise IllegalAction("OT 13A", "no work would be done")
    res = None
    if task == "repair-bridge" and s is not None and _major_crossing(g, s) and remaining == 1:
        res = _res_pt_for(g, workers[0], action.get("res_pts"))
    return Job(str(task), workers, i, s, spend, progress, key, remaining, res)


@implements(
    "OT 13A1a",
    "OT 13A1b",
    "OT 13A2",
    "OT 13A3",
    "OT 13A4",
    "OT 13A7",
    "OT 13B2",
    "OT 13B3a",
    "OT 13C1",
)
def do_job(g: Game, f: Frame, job: Job, gauge: str | None = None) -> None:
    """Spend the MPs and record the work; a finished job takes effect at once."""

    for p in job.workers:
        rec = movement.record(f, p, g)
        rec["spent"] = Fraction(rec["spent"]) + job.spend[p.id]
    if job.res_pt is not None:
        logistics.expend(g, job.res_pt, "OT 13A3", "bridge repair across a major river")
    works = eng(g).setdefault("works", {})
    left = job.remaining_before - job.progress
    who = ", ".join(p.id for p in job.workers)
    if left > 0:
        works[job.key] = {"task": job.task, "left": left}
        g.emit(
            "engineering",
            f"{who} work on {job.task} at {g.board.label(job.hex)} ({left} of the job left)",
            rule="OT 13A4",
            task=job.task,
        )
        return
    works.pop(job.key, None)
    _complete_mp_job(g, job, gauge)
    g.emit(
        "engineering",
        f"{who} complete {job.task} at {g.board.label(job.hex)}",
        rule=_TASK_RULE.get(job.task, "OT 13A"),
        task=job.task,
        hex=g.board.label(job.hex),
    )


_TASK_RULE = {
    "fieldworks": "OT 13A1a",
    "entrenchment": "OT 13A1b",
    "demolish-fortification": "OT 13A2",
    "demolish-bridge": "OT 13A2",
    "demolish-port": "OT 13A2",
    "repair-rail": "OT 13A3",
    "clear-rail": "OT 13A3",
    "repair-port": "OT 13A3",
    "repair-bridge": "OT 13A3",
    "regauge": "OT 13B3a",
    "pontoon": "OT 13A7",
    "demolish-pontoon": "OT 13A7",
    "fort": "OT 13A1c",
    "improved-fort": "OT 13A1d",
    "fortress": "OT 13A1e",
    "road": "OT 13A1f",
    "rail-upgrade": "OT 13B3b",
    "rail-extend": "OT 13B3c",
    "port-upgrade": "OT 13C2",
}


def _complete_mp_job(g: Game, job: Job, gauge: str | None) -> None:
    i, s = job.hex, job.hexside
    t = job.task
    if t == "fieldworks":
        set_marker(g, "fortification", i, "fieldworks")
    elif t == "entrenchment":
        set_marker(g, "fortification", i, "entrenchment")
    elif t == "demolish-fortification":
        level = marker(g, "fortification", i)
        set_marker(
            g, "fortification", i, "entrenchment" if level in ("fort", "improved-fort") else None
        )
    elif t == "demolish-bridge":
        assert s is not None
        set_marker(g, "bridge-demolished", s, True)
    elif t == "repair-bridge":
        assert s is not None
        set_marker(g, "bridge-demolished", s, None)
    elif t == "demolish-port":
        set_marker(g, "port-damage", i, int(marker(g, "port-damage", i, 0) or 0) + 1)
    elif t == "repair-port":
        left = int(marker(g, "port-damage", i, 0) or 0) - 1
        set_marker(g, "port-damage", i, left if left > 0 else None)
    elif t == "repair-rail":
        left = rail_hits(g, i) - 1
        set_marker(g, "rail-break", i, left if left > 0 else None)
    elif t == "clear-rail":
        set_marker(g, "rail-obstructed", i, None)
    elif t == "regauge":
        regauge(g, i, str(gauge))
    elif t == "pontoon":
        assert s is not None
        eng(g).setdefault("pontoons", {})[str(s)] = job.workers[0].side
    elif t == "demolish-pontoon":
        eng(g).setdefault("pontoons", {}).pop(str(s), None)


@implements("OT 13B3a")
def regauge(g: Game, i: int, gauge: str) -> None:
    """OT 13B3a: the rail line in the hex gets the new gauge (its links, up to the gauge changepoint
    at the hex's edge where the neighbour keeps its own)."""

    over = eng(g).setdefault("gauge", {})
    for lk in rail.links(g).get(i, []):
        over[str(lk.side)] = gauge


@implements("OT 13A7")
def pontoon_owner(g: Game, s: int) -> str | None:
    """OT 13A7 (text absent; default): the side whose pontoon bridge spans hexside ``s``, if any."""
    return eng(g).get("pontoons", {}).get(str(s))


@implements("OT 13A7", "OT 15A4")
def pontoon_prevents_disruption(g: Game, side: str, s: int) -> bool:
    """OT 13A7 with OT 15A4: units crossing a major river at their own pontoon bridge are not
    disrupted."""
    return pontoon_owner(g, s) == side


def link_overrides(g: Game) -> tuple[dict[str, str], dict[str, str]]:
    """(gauge, volume) changes per rail hexside made by railroad engineers (OT 13B3a, 13B3b)."""
    e = gw(g).get("eng", {})
    return dict(e.get("gauge", {})), dict(e.get("volume", {}))


# ============================================================================ fieldworks upkeep
@implements("OT 13A1a", "OT 13A1b")
def check_abandoned(g: Game) -> None:
    """OT 13A1a/13A1b: fieldworks and entrenchments stay only while a unit able to maintain them
    (any construction unit of the general kind or a divisional engineer, even a cadre; OT 13I) is
    in the hex; otherwise they are abandoned at once."""
    store = g.state.markers.get("fortification", {})
    for key in sorted(store, key=int):
        if store[key] not in ("fieldworks", "entrenchment"):
            continue
        i = int(key)
        if any(maintains_fieldworks(p) for p in units.units_in_hex(g, i)):
            continue
        level = store[key]
        set_marker(g, "fortification", i, None)
        g.emit(
            "fortification",
            f"the {level} at {g.board.label(i)} are abandoned (no construction unit to maintain"
            " them)",
            rule="OT 13A1a",
            hex=g.board.label(i),
        )


# ==================================================================== turn projects (initial phase)
def _res_pt_for(g: Game, p: Piece, ids: Any, count: int = 1) -> Piece:
    """A Res Pt the unit can trace an overland supply line to (OT 11B), the named one if given."""

    h = units.hex_of(g, p)
    assert h is not None
    cands = []
    for r in logistics.res_pts(g, p.side):
        rh = units.hex_of(g, r)
        if rh is None:
            continue
        if supply.overland_ok(g, supply.overland_distances(g, p.side, [rh]), h):
            cands.append(r)
    taken = set(eng(g).get("reserved", []))
    cands = [r for r in cands if r.id not in taken]
    if isinstance(ids, list) and ids:
        named = [r for r in cands if r.id in ids]
        if not named:
            raise IllegalAction(
                "OT 13A1c", f"none of {ids} is a Res Pt {p.id} can trace an overland supply line to"
            )
        return named[0]
    if len(cands) < count:
        raise IllegalAction("OT 13A1c", f"{p.id} can trace an overland supply line to no Res Pt")
    return cands[0]


def _res_pts_for(g: Game, p: Piece, ids: Any, count: int) -> list[Piece]:
    out: list[Piece] = []
    for _ in range(count):
        r = _res_pt_for(
            g,
            p,
            (
                [x for x in ids if x not in {q.id for q in out}]
                if isinstance(ids, list) and ids
                else None
            ),
        )
        eng(g).setdefault("reserved", []).append(r.id)
        out.append(r)
    eng(g)["reserved"] = [x for x in eng(g).get("reserved", []) if x not in {q.id for q in out}]
    return out


def head_of(g: Game, kind: str, i: int) -> HeadRecord | None:
    """The roadhead or railhead (OT 7) whose head hex is ``i``."""
    for h in gw(g).get("heads", []):
        if h["kind"] == kind and int(h["hexes"][0]) == i and len(h["hexes"]) > 1:
            return h
    return None


def _line_links(g: Game, kind: str, i: int) -> list[int]:
    """Neighbours joined to hex ``i`` by a usable road (OT 7B) or rail line."""
    out = []
    for j in g.board.neighbors(i):
        s = g.board.side_between(i, j)
        if terrain.road_link(g, s) if kind == "road" else terrain.rail_link(g, s):
            out.append(j)
    return out


@implements("OT 13A1f", "OT 13B3c")
def extension_target(g: Game, kind: str, i: int, raw: Any) -> int:
    """OT 13A1f / 13B3c: the hex a road (or rail line) is extended into from its head hex ``i``: a
    roadhead (railhead) of the scenario, or the end of a line (a hex with one link of the line);
    the next hex of the planned line by default, or any adjacent hex the line does not reach yet."""
    h = head_of(g, kind, i)
    links = _line_links(g, kind, i)
    if h is None and len(links) != 1:
        raise IllegalAction("OT 13A1f", f"{g.board.label(i)} is not a {kind}head")
    if raw is None:
        if h is not None:
            return int(h["hexes"][1])
        raise IllegalAction("OT 13A1f", f"name the hex to extend the {kind} into ('target')")
    if not isinstance(raw, str) or not g.board.has_label(raw):
        raise IllegalAction("OT 13A1f", "'target' must name a hex")
    t = g.board.idx(raw)
    if t not in g.board.neighbors(i) or t in links:
        raise IllegalAction(
            "OT 13A1f",
            f"{raw} is not a hex next to the {kind}head that the {kind} does not reach yet",
        )
    return t


def _difficult(g: Game, frm: int, to: int) -> tuple[bool, bool]:
    """(slow, always-spend) of extending into ``to`` across the hexside from ``frm`` (OT 13A1f,
    13B3c)."""
    t = chart(g)["terrain"]
    s = g.board.side_between(frm, to)
    feats = set(terrain.side_features(g, s))
    slow = terrain.terrain(g, to) in t["difficult_hexes"] or bool(
        feats & set(t["difficult_hexsides"])
    )
    spend = terrain.terrain(g, to) == "mountain" or bool(feats & set(t["difficult_hexsides"]))
    return slow, spend


@implements(
    "OT 13A1c",
    "OT 13A1d",
    "OT 13A1e",
    "OT 13A1f",
    "OT 13A1g",
    "OT 13B3b",
    "OT 13B3c",
    "OT 13C2",
    "OT 13A4",
    "OT 13A5",
)
def plan_project(g: Game, f: Frame | None, action: Action) -> ProjectRecord:
    """Check a ``begin-project`` action (initial phase) and return the project record.

    Forts (13A1c: an entrenchment, 1 turn in clear or rough, else 2), improved forts (13A1d: a fort,
    2 or 3 turns), fortresses (13A1e: an unimproved fortress, 12 turns, 6 Res Pts, one a month),
    roads
    (13A1f: from the roadhead into the next hex of the road, 4 turns into difficult terrain or
    across
    a mountain or river/canal hexside, else 2; a Res Pt is spent on a roll of 1-2, always into a
    mountain hex or across such a hexside), rail upgrades (13B3b: 2 turns, a Res Pt), rail
    extensions
    (13B3c: 8 or 4 turns, 1 Res Pt, 2 into a mountain hex or across a mountain or river/canal
    hexside), port upgrades (13C2: in the port hex, 12 turns, a Res Pt). Res Pts are reached by an
    overland supply line and spent. Poor weather doubles the duration (13A4); quick engineering
    halves it, rounded up (13A5, default A29)."""
    side = action["side"]
    task = action.get("task")
    if task not in TURN_TASKS:
        raise IllegalAction(
            "OT 13A", f"unknown project {task!r} (projects: {', '.join(TURN_TASKS)})"
        )
    workers = _workers(g, action)
    for p in workers:
        why = worker_problem(g, f, p, side)
        if why:
            raise IllegalAction("OT 13A", why)
        if any(p.id in pr["pieces"] for pr in eng(g).get("projects", [])):
            raise IllegalAction("OT 13A", f"{p.id} is already working on a project")
    if _phase_kind(g, f) != "initial":
        raise IllegalAction("OT 13A1c", "projects measured in turns begin in the initial phase")
    i = units.hex_of(g, workers[0])
    assert i is not None
    quick = quick_engineering(g, workers, str(task), bool(action.get("civilian_labour")), i)
    turns = chart(g)["turns"]
    cheap = terrain.terrain(g, i) in chart(g)["terrain"]["cheap"]
    rp = chart(g)["res_pts"]
    target = i
    n_res = 0
    roll_spend = False
    level = marker(g, "fortification", i)
    if task == "fort":
        if level != "entrenchment":
            raise IllegalAction("OT 13A1c", "a fort upgrades an entrenchment")
        dur = turns["fort_clear_rough"] if cheap else turns["fort_other"]
        n_res = int(rp["fort"])
    elif task == "improved-fort":
        if level != "fort":
            raise IllegalAction("OT 13A1d", "an improved fort upgrades a fort")
        dur = turns["improved_fort_clear_rough"] if cheap else turns["improved_fort_other"]
        n_res = int(rp["improved_fort"])
    elif task == "fortress":
        if (
            not any(pt.kind == "fortress" for pt in g.board.points_at(i))
            or marker(g, "fortress-state", i, "unimproved") != "unimproved"
        ):
            raise IllegalAction(
                "OT 13A1e",
                "only an unimproved fortress can be improved (improved forts never become"
                " fortresses)",
            )
        dur = turns["fortress"]
        n_res = 1
    elif task in ("road", "rail-extend"):
        kind = "road" if task == "road" else "rail"
        target = extension_target(g, kind, i, action.get("target"))
        s = g.board.side_between(i, target)
        bad = set(chart(g)["terrain"]["no_road_hexsides"]) & set(terrain.side_features(g, s))
        if (
            terrain.hex_prohibited_to_all(g, target)
            or bad
            or terrain.terrain(g, target) in chart(g)["terrain"]["no_road_hexes"]
        ):
            raise IllegalAction(
                "OT 13A1f", f"no {kind} can be extended into {g.board.label(target)}"
            )
        slow, spend = _difficult(g, i, target)
        if task == "road":
            if g.state.control.get(target) != side or not supply.hex_in_general_supply(
                g, side, target
            ):
                raise IllegalAction(
                    "OT 13A1f",
                    f"{g.board.label(target)} must be friendly-owned and in general supply",
                )
            dur = turns["road_difficult"] if slow else turns["road_other"]
            n_res = 1 if spend else 0
            roll_spend = not spend
        else:
            dur = turns["rail_extend_difficult"] if slow else turns["rail_extend_other"]
            n_res = int(rp["rail_extend_mountain_or_crossing"] if spend else rp["rail_extend"])
    elif task == "rail-upgrade":
        lows = [lk for lk in rail.links(g).get(i, []) if lk.volume == "low" and not lk.ferry]
        if not lows:
            raise IllegalAction("OT 13B3b", "there is no low-volume rail line in the hex")
        dur = turns["rail_upgrade"]
        n_res = int(rp["rail_upgrade"])
    else:  # port-upgrade
        size = supply._port_size(g, i)
        if size is None or marker_port_upgrade(g, i):
            raise IllegalAction(
                "OT 13C2", "the engineer must be in the hex of a port not yet upgraded"
            )
        dur = turns["port_upgrade"]
        n_res = int(rp["port_upgrade"])
    if not date_allows(g, side, str(task)):
        raise IllegalAction(
            "OT 13A1g",
            f"{side} may not begin {task} before"
            f" {chart(g)['dates'][side][str(task).replace('-', '_')]}",
        )
    if any(pr["hex"] == target and pr["task"] == task for pr in eng(g).get("projects", [])):
        raise IllegalAction("OT 13A", f"{task} is already under way there")
    res: list[Piece] = []
    if n_res or roll_spend:
        res = _res_pts_for(g, workers[0], action.get("res_pts"), max(n_res, 1))
    good = Fraction(dur)
    if quick:
        good = Fraction(math.ceil(Fraction(dur, 2)))
    return {
        "task": task,
        "side": side,
        "pieces": [p.id for p in workers],
        "hex": i,
        "target": target,
        "left": good,
        "res": [r.id for r in res],
        "spend_all": n_res > 0,
        "roll": roll_spend,
        "quick": quick,
        "weather": weather_at(g, target),
        "turns": 0,
        "stalled": False,
    }


def marker_port_upgrade(g: Game, i: int) -> bool:
    return bool(marker(g, "port-upgrade", i))


@implements("OT 13A1c", "OT 13A1f", "OT 13B3b", "OT 13B3c", "OT 13C2")
def begin_project(g: Game, pr: ProjectRecord) -> None:
    """Start a project: spend its Res Pts (a road's only on a roll of 1-2, OT 13A1f) and record
    it."""

    res = [g.state.pieces[x] for x in pr.pop("res")]
    if pr["roll"]:
        r = g.roll(
            "d6", f"does the road into {g.board.label(pr['target'])} need the Res Pt?", "OT 13A1f"
        )
        spend = r.natural <= int(chart(g)["res_pts"]["road_roll_spend_max"])
        if not spend:
            res = []
    for r in res:  # type: ignore[assignment]
        logistics.expend(
            g,
            r,  # type: ignore[arg-type]
            _TASK_RULE[pr["task"]],
            f"{pr['task']} begun at {g.board.label(pr['target'])}",
        )
    pr["id"] = (
        f"{pr['task']}@{g.board.label(pr['target'])}#{int(eng(g).get('project_counter', 0)) + 1}"
    )
    eng(g)["project_counter"] = int(eng(g).get("project_counter", 0)) + 1
    if pr["task"] == "fortress":
        pr["res_spent"] = 1
    eng(g).setdefault("projects", []).append(pr)
    g.emit(
        "engineering",
        f"{', '.join(pr['pieces'])} begin {pr['task']} at {g.board.label(pr['target'])}"
        f" ({pr['left']} turns of work)",
        rule=_TASK_RULE[pr["task"]],
        task=pr["task"],
    )


@implements("OT 13A1c", "OT 13A1e", "OT 13A1f", "OT 13A4", "OT 13C2")
def progress_projects(g: Game, side: str) -> None:
    """In each of its owner's initial phases a project gains one game turn of work -- half a turn if
    the weather was poor in the turn that passed (OT 13A4) -- and completes when none is left. A
    project is cancelled (its Res Pts lost) when its unit has left the hex (OT 13A1c), or for a road
    when the new hex is no longer friendly-owned and in general supply (OT 13A1f). A fortress needs
    a
    further Res Pt at each month (every 2 turns); without one the work stalls (digest default A30).
    Port upgrades whose engineer no longer stands in the port revert (OT 13C2)."""

    keep = []
    for pr in eng(g).get("projects", []):
        if pr["side"] != side:
            keep.append(pr)
            continue
        here = [
            pid
            for pid in pr["pieces"]
            if g.state.pieces.get(pid) is not None and units.hex_of(g, pid) == pr["hex"]
        ]
        if not here:
            g.emit(
                "engineering",
                f"{pr['task']} at {g.board.label(pr['target'])} is cancelled: its unit left"
                " the hex",
                rule=_TASK_RULE[pr["task"]],
            )
            continue
        if pr["task"] == "road" and (
            g.state.control.get(pr["target"]) != side
            or not supply.hex_in_general_supply(g, side, pr["target"])
        ):
            g.emit(
                "engineering",
                f"the road into {g.board.label(pr['target'])} is cancelled: the hex is not"
                " friendly-owned and in general supply",
                rule="OT 13A1f",
            )
            continue
        step = Fraction(1, 2) if is_poor_weather(str(pr["weather"])) else Fraction(1)
        pr["turns"] = int(pr["turns"]) + 1
        if pr["task"] == "fortress" and pr["turns"] % 2 == 0 and int(pr.get("res_spent", 1)) < 6:
            try:
                r = _res_pt_for(g, g.state.pieces[here[0]], None)
            except IllegalAction:
                pr["stalled"] = True
                pr["turns"] -= 1
                pr["weather"] = weather_at(g, pr["target"])
                g.emit(
                    "engineering",
                    f"the fortress work at {g.board.label(pr['target'])} stalls: no Res Pt for this"
                    " month",
                    rule="OT 13A1e",
                )
                keep.append(pr)
                continue
            logistics.expend(g, r, "OT 13A1e", "fortress improvement: monthly Res Pt")
            pr["res_spent"] = int(pr.get("res_spent", 1)) + 1
        pr["left"] = Fraction(pr["left"]) - step
        pr["weather"] = weather_at(g, pr["target"])
        if pr["left"] <= 0:
            complete_project(g, pr)
            continue
        keep.append(pr)
    eng(g)["projects"] = keep
    _check_port_duty(g, side)


@implements("OT 13A1c", "OT 13A1d", "OT 13A1e", "OT 13A1f", "OT 13B3b", "OT 13B3c", "OT 13C2")
def complete_project(g: Game, pr: ProjectRecord) -> None:
    """A finished project takes effect: fort / improved fort markers replace the lower level, a
    fortress becomes improved, a road or railhead advances one hex, a rail line becomes high-volume,
    a port counts as upgraded and its engineer turns to maintaining it."""
    t = pr["task"]
    i = int(pr["target"])
    if t == "fort":
        set_marker(g, "fortification", i, "fort")
    elif t == "improved-fort":
        set_marker(g, "fortification", i, "improved-fort")
    elif t == "fortress":
        set_marker(g, "fortress-state", i, "improved")
    elif t in ("road", "rail-extend"):
        kind = "road" if t == "road" else "rail"
        frm = int(pr["hex"])
        h = head_of(g, kind, frm)
        if h is not None and int(h["hexes"][1]) == i:
            h["hexes"] = h["hexes"][1:]
            if len(h["hexes"]) < 2:
                gw(g)["heads"] = [x for x in gw(g)["heads"] if x is not h]
        else:
            if h is not None:
                gw(g)["heads"] = [x for x in gw(g)["heads"] if x is not h]
            s = g.board.side_between(frm, i)
            built = (
                eng(g).setdefault("roads", {}) if kind == "road" else eng(g).setdefault("rails", {})
            )
            built[str(s)] = pr["side"]
    elif t == "rail-upgrade":
        vol = eng(g).setdefault("volume", {})
        for lk in rail.links(g).get(int(pr["hex"]), []):
            if lk.volume == "low" and not lk.ferry:
                vol[str(lk.side)] = "high"
    elif t == "port-upgrade":
        set_marker(g, "port-upgrade", i, pr["pieces"][0])
        p = g.state.pieces[pr["pieces"][0]]
        p.status.add(PORT_DUTY)
        if "zero-movement" in p.faces:
            p.face = "zero-movement"
    g.emit(
        "engineering",
        f"{t} at {g.board.label(i)} is completed",
        rule=_TASK_RULE[t],
        task=t,
        hex=g.board.label(i),
    )


def _check_port_duty(g: Game, side: str) -> None:
    store = g.state.markers.get("port-upgrade", {})
    for key in sorted(store):
        pid = store[key]
        p = g.state.pieces.get(pid)
        if p is None or p.side != side:
            continue
        if units.hex_of(g, p) != int(key):
            abandon_port_upgrade(g, p, int(key), "its engineer is gone")


@implements("OT 13C2")
def abandon_port_upgrade(g: Game, p: Piece, i: int, why: str = "abandoned") -> None:
    """OT 13C2: the port construction engineer flips back to its mobile side and the port reverts to
    its original status at once."""
    set_marker(g, "port-upgrade", i, None)
    p.status.discard(PORT_DUTY)
    if p.face == "zero-movement":
        p.face = next((k for k in p.faces if k != "zero-movement"), p.face)
    g.emit(
        "engineering",
        f"the port upgrade at {g.board.label(i)} ends ({why})",
        rule="OT 13C2",
        piece=p.id,
    )


@implements("OT 13A5")
def finish_problem(g: Game, f: Frame, action: Action) -> tuple[ProjectRecord, list[Piece]]:
    """OT 13A5: a one-turn project begun by two construction units (or a brigade) may be finished in
    the movement phase by each unit spending half its movement allowance."""

    pid = action.get("project")
    pr = next(
        (
            x
            for x in eng(g).get("projects", [])
            if x.get("id") == pid and x["side"] == action["side"]
        ),
        None,
    )
    if pr is None:
        raise IllegalAction("OT 13A5", f"no project {pid!r} of {action['side']}")
    if not pr["quick"] or Fraction(pr["left"]) > 1 or int(pr["turns"]) > 0:
        raise IllegalAction(
            "OT 13A5",
            "only a one-turn project begun this turn with quick engineering is finished in the"
            " movement phase",
        )
    ws = [g.state.pieces[x] for x in pr["pieces"]]
    for p in ws:
        why = worker_problem(g, f, p, action["side"])
        if why:
            raise IllegalAction("OT 13A", why)
        if units.hex_of(g, p) != pr["hex"]:
            raise IllegalAction("OT 13A5", f"{p.id} is not in the project's hex")
        if movement.spent(f, p) * 2 > movement.movement_allowance(g, p, "movement"):
            raise IllegalAction("OT 13A5", f"{p.id} has not half its movement allowance left")
    return pr, ws


# ============================================================================ step extensions
class MovementWork(MovementExtension):
    """Movement-phase engineering (OT 13A-13C): ``engineer`` and ``finish-project``; a port
    construction engineer on port duty may not move (OT 13C2)."""

    def move_problem(self, g: Game, f: Frame, p: Piece) -> str | None:
        if PORT_DUTY in p.status:
            return f"{p.id} is maintaining a port upgrade and may not move (OT 13C2)"
        return None

    def extension_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        if f.params.get("kind") != "movement":
            return []
        out: list[Action] = []
        frame_sig = repr(sorted((k, v) for k, v in f.params.items() if k != "units"))
        for p in units.on_map_units(g, side):
            if not is_construction_unit(p):
                continue
            h = units.hex_of(g, p)
            carrier = (str(p.loc.ref),) if p.loc.kind == "piece" else ()
            # the jobs of one unit read the unit (and its carrier), its hex, its record and the
            # frame, and the world (markers, works, dates, supply): kept across actions
            tasks = listing.tracked(
                g,
                (
                    "gw:eng-jobs",
                    p.id,
                    h,
                    f.step,
                    frame_sig,
                    repr(f.params.get("units", {}).get(p.id)),
                    listing.world_token(g),
                ),
                (("piece", p.id), ("hex", h), *(("piece", c) for c in carrier)),
                lambda p=p, h=h: self._jobs(g, f, side, p, h),  # type: ignore[misc]
            )
            out.extend(
                {"type": "engineer", "side": side, "pieces": [p.id], "task": task} for task in tasks
            )
        for pr in eng(g).get("projects", []):
            if pr["side"] == side and pr["quick"]:
                a = {"type": "finish-project", "side": side, "project": pr["id"]}
                try:
                    finish_problem(g, f, a)
                except IllegalAction:
                    continue
                out.append(a)
        return out

    def _jobs(self, g: Game, f: Frame, side: str, p: Piece, h: int | None) -> tuple[str, ...]:
        """OT 13A: the MP-costed tasks construction unit ``p`` may do in its hex now."""
        if worker_problem(g, f, p, side):
            return ()
        out = []
        for task in self._candidates(g, p, h):  # type: ignore[arg-type]
            a: Action = {"type": "engineer", "side": side, "pieces": [p.id], "task": task}
            try:
                plan_job(g, f, a)
            except IllegalAction:
                continue
            out.append(task)
        return tuple(out)

    def _candidates(self, g: Game, p: Piece, h: int) -> list[str]:

        out = []
        level = marker(g, "fortification", h)
        if not level and can_do(g, p, "fieldworks"):
            out.append("fieldworks")
        if level == "fieldworks" and can_do(g, p, "entrenchment"):
            out.append("entrenchment")
        if rail_hits(g, h) and can_do(g, p, "repair-rail"):
            out.append("repair-rail")
        elif marker(g, "rail-obstructed", h) and can_do(g, p, "clear-rail"):
            out.append("clear-rail")
        if (
            supply._port_size(g, h) is not None
            and supply.port_damage(g, h)
            and can_do(g, p, "repair-port")
        ):
            out.append("repair-port")
        return out

    @handles.check("engineer")
    def check_engineer(self, g: Game, f: Frame, action: Action) -> None:
        """OT 13A-13C: a job the engineers may do in their hex now."""
        plan_job(g, f, action)

    @handles.apply("engineer")
    def apply_engineer(self, g: Game, f: Frame, action: Action) -> None:
        job = plan_job(g, f, action)
        do_job(g, f, job, action.get("gauge"))

    @handles.check("finish-project")
    def check_finish(self, g: Game, f: Frame, action: Action) -> None:
        """OT 13A5: a quick project finished with half the workers' movement allowance."""
        finish_problem(g, f, action)

    @handles.apply("finish-project")
    def apply_finish(self, g: Game, f: Frame, action: Action) -> None:

        pr, ws = finish_problem(g, f, action)
        for p in ws:
            rec = movement.record(f, p, g)
            rec["spent"] = (
                Fraction(rec["spent"]) + movement.movement_allowance(g, p, "movement") / 2
            )
        eng(g)["projects"] = [x for x in eng(g).get("projects", []) if x is not pr]
        complete_project(g, pr)


class InitialWork(InitialExtension):
    """Initial-phase engineering: ``begin-project`` and ``abandon-port-upgrade`` (OT 13A1c-f, 13B3,
    13C2)."""

    def initial_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = []
        for p in units.on_map_units(g, side):
            if not is_construction_unit(p) or construction_kind(p) == "divisional":
                continue
            if PORT_DUTY in p.status:
                out.append({"type": "abandon-port-upgrade", "side": side, "piece": p.id})
                continue
            if worker_problem(g, f, p, side):
                continue
            for task in TURN_TASKS:
                if not can_do(g, p, task):
                    continue
                a: Action = {"type": "begin-project", "side": side, "pieces": [p.id], "task": task}
                try:
                    plan_project(g, f, a)
                except IllegalAction:
                    continue
                out.append(a)
        return out

    @handles.check("begin-project")
    def check_begin(self, g: Game, f: Frame, action: Action) -> None:
        """OT 13A1c-f, 13B3: a project the engineers may begin."""
        plan_project(g, f, action)

    @handles.apply("begin-project")
    def apply_begin(self, g: Game, f: Frame, action: Action) -> None:
        begin_project(g, plan_project(g, f, action))

    @handles.check("abandon-port-upgrade")
    def check_abandon(self, g: Game, f: Frame, action: Action) -> None:
        """OT 13C2: an engineer maintaining a port upgrade leaves it."""
        p = g.state.pieces.get(action.get("piece"))  # type: ignore[arg-type]
        if p is None or p.side != action["side"] or PORT_DUTY not in p.status:
            raise IllegalAction(
                "OT 13C2", f"{action.get('piece')!r} is not maintaining a port upgrade"
            )

    @handles.apply("abandon-port-upgrade")
    def apply_abandon(self, g: Game, f: Frame, action: Action) -> None:
        self.check_abandon(g, f, action)
        p = g.state.pieces[action["piece"]]
        h = units.hex_of(g, p)
        assert h is not None
        abandon_port_upgrade(g, p, h)
