"""OT 15: special ground rules -- terrain features (15A), fortifications (15B), adverse terrain
expertise (15C), morale (15D) and cooperation (15E); and the side capabilities of Rule 14 that act
inside a combat (infantry-capable, mountain/infantry-capable, rifle assault-capable, OT 14H1,
14H2, 14R). Breakdowns (15F) are in :mod:`.breakdowns`, sieges (15G) in :mod:`.siege`.

The combat segment calls the functions listed in ``docs/rulesets/greatwar.md`` ("Combat interface
of Rules 14 and 15"); each takes a :class:`CombatSituation`.

National will (Rule 40) and natural capitals (Rule 41) are not in the rulebook: a scenario gives
them as nation attributes ``nw`` (a number) and ``capital`` (list of hex labels), and the state of
a nation as ``shaken``/``collapse`` (OT 40B/40C).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar import calendar, intelligence
from grognard.rulesets.greatwar.logistics import reinforcements, replacements
from grognard.rulesets.greatwar.map import geography, terrain, zoc
from grognard.rulesets.greatwar.map.weather import is_poor_weather, weather_at
from grognard.rulesets.greatwar.mechanics import gw, marker, set_marker
from grognard.rulesets.greatwar.movement import movement, rail
from grognard.rulesets.greatwar.step import GWStep
from grognard.rulesets.greatwar.supply import supply, supply_status
from grognard.rulesets.greatwar.units import nations, special_units, units
from grognard.rulesets.greatwar.units.catalogue import nation_info
from grognard.rulesets.greatwar.units.special_units import CombatSituation

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.greatwar.record import FloodOutcome

__all__ = ["CombatSituation"]

ADVERSE_WEATHER = ("clear", "frost", "winter", "snow")
FORT_LADDER = {"improved-fort": "fort", "fort": "entrenchment"}


def _weather(g: Game, i: int) -> str:

    return weather_at(g, i)


def _terrain(g: Game, i: int) -> str:

    return terrain.terrain(g, i)


# ============================================================================ 15A terrain
@implements("OT 15A2")
def is_causeway(g: Game, s: int) -> bool:
    """OT 15A2: a road or rail line crossing a sea, lake or great river hexside (or a hexside drawn
    as a causeway). Ground units treat it as a major river for movement and combat (the TEC row
    ``causeway`` is the major river row, and ``terrain.side_features`` reads water hexsides crossed
    by a road or rail line as causeways)."""

    feats = set(terrain.map_side_features(g, s))
    if "causeway" in feats:
        return True
    return bool(feats & {"sea", "lake", "great-river", "great-river-fordable"}) and (
        terrain.road_link(g, s) or terrain.rail_link(g, s)
    )


@implements("OT 15A2")
def causeway_blocks_naval(g: Game, side: str, s: int) -> bool:
    """OT 15A2: a causeway blocks naval movement unless both hexes beside it are owned by the
    moving side (for the naval rules)."""
    if not is_causeway(g, s):
        return False
    a, b = (int(x) for x in g.board.side_hexes[s])
    return not (g.state.control.get(a) == side and g.state.control.get(b) == side)


@implements("OT 15A3")
def port_functioning(g: Game, i: int) -> bool:
    """OT 15A3: a port functions unless it has maximum damage (Port Summary): the hex marker
    ``port-damage`` at or above the port's ``max_damage`` attribute (default 4)."""
    ports = [pt for pt in g.board.points_at(i) if pt.kind == "port"]
    if not ports:
        return False
    limit = int(ports[0].attrs.get("max_damage", 4))
    return int(g.state.marker("port-damage", i, 0) or 0) < limit


@implements("OT 15A3")
def ferry_usable(g: Game, side: str, u: int, v: int) -> bool:
    """OT 15A3: a rail ferry carries rail movement only if the player owns both its ports and both
    function. (It is a low-volume line, charged on each rail net it links, and never a road,
    bridge or causeway: ``rail.links``.)"""
    return (
        g.state.control.get(u) == side
        and g.state.control.get(v) == side
        and port_functioning(g, u)
        and port_functioning(g, v)
    )


@implements("OT 15A5")
def is_great_river(g: Game, s: int) -> bool:
    """OT 15A5: a great river hexside. On the European maps the great rivers (the Severnaya Dvina
    below Kotlas, the Volga below the Kama, the Danube below the Sava) are drawn as ``great-river``
    (or ``great-river-fordable``) hexsides; on other maps a major river section downstream of a
    major-river tributary is great: a ``major-river`` hexside with the attribute ``great = true``
    (e.g. the Niger below CA:3277/3377), read as a great river by
    :func:`.terrain.map_side_features`. Their effects are the TEC's great river rows."""

    return bool(set(terrain.map_side_features(g, s)) & {"great-river", "great-river-fordable"})


# ----------------------------------------------------------------------- partial flooding (OT 15A6)
def _player_turn_key(g: Game) -> str:
    return f"{g.state.turn.get('index', 0)}:{gw(g).get('phasing', '')}"


@implements("OT 15A6")
def flood_eligible(g: Game, i: int) -> bool:
    """OT 15A6: canal-intensive hexes, and any hex next to the major-river section of the Po (a
    major river hexside with the attribute ``po = true``), may be partially flooded."""
    if g.board.terrain_of(i) == "canal-intensive":
        return True
    for j in g.board.neighbors(i):
        s = g.board.side_between(i, j)
        if g.board.side_attrs.get(s, {}).get("po"):
            return True
    return False


def is_flooded(g: Game, i: int) -> bool:
    """OT 15A6: the hex was flooded this player turn (it counts as swamp until the turn ends)."""
    return marker(g, "flooded", i) == _player_turn_key(g)


@implements("OT 15A6")
def push_flooding(g: Game, sit: CombatSituation) -> bool:
    """OT 15A6: the attack on an eligible hex has been announced with its units: the hex's owner
    may try to flood it (pushed step ``flooding``). Returns whether the step was pushed."""
    i = sit.hex
    owner = g.state.control.get(i)
    if owner not in g.state.sides or not flood_eligible(g, i) or is_flooded(g, i):
        gw(g)["flood_outcome"] = {"hex": i, "flooded": is_flooded(g, i), "called_off": False}
        return False
    gw(g)["flood_outcome"] = {"hex": i, "flooded": False, "called_off": False}
    g.push(
        "flooding",
        {
            "side": owner,
            "attacker": sit.attacker_side,
            "hex": g.board.label(i),
            "stage": "owner",
            "attackers": [p.id for p in sit.attackers],
        },
    )
    return True


def flood_outcome(g: Game) -> dict[str, Any]:
    """OT 15A6: after the ``flooding`` step: ``flooded`` (the hex is swamp for the rest of the
    player
    turn) and ``called_off`` (the attacker called the attack off: its units may not attack another
    hex)."""
    return dict(gw(g).get("flood_outcome", {}))


@implements("OT 15A6")
def flood(g: Game, i: int, side: str) -> bool:
    """OT 15A6: a flooding attempt: Ground Success Table with its flooding modifiers (column
    ``flooding`` when the table has one). Success: the hex is swamp for all movement and combat
    for the rest of the player turn. A humanitarian player must spend a Res Pt within overland
    supply range for a hex with or next to a city (``humanitarian_relief``); flooding may count as
    an atrocity (Rule 40A, not in the rulebook)."""
    res = special_units.gst(g, "flooding", f"partial flooding of {g.board.label(i)}", "OT 15A6")
    ok = res.startswith("S")
    if ok:
        set_marker(g, "flooded", i, _player_turn_key(g))
        g.emit(
            "flooded",
            f"{side} floods {g.board.label(i)}: it counts as swamp for the rest of the player turn",
            rule="OT 15A6",
            hex=g.board.label(i),
        )
        near_city = geography.is_city(g, i) or any(
            geography.is_city(g, j) for j in g.board.neighbors(i)
        )
        if near_city:
            humanitarian_relief(g, side, i, "partial flooding")
    else:
        g.emit("flooded", f"{side} fails to flood {g.board.label(i)} ({res})", rule="OT 15A6")
    return ok


@implements("OT 15A6", "OT 15A8")
def humanitarian_relief(g: Game, side: str, i: int, why: str) -> bool:
    """OT 15A6/15A8: a humanitarian player (nation attribute ``humanitarian`` of any of his nations)
    spends 1 Res Pt within overland supply range of the hex, at once; if he cannot, the refusal is
    recorded (a possible atrocity, Rule 40A). Returns whether a Res Pt was spent."""

    humane = any(
        nations.nation_attrs(g, n).get("humanitarian")
        for n, d in g.scenario.data.nations.items()
        if d.side == side
    )
    if not humane:
        return False
    reach = supply.overland_reach(g, side, {i})
    for q in sorted(g.state.pieces.values(), key=lambda q: q.id):
        h = units.hex_of(g, q)
        if (
            q.side == side
            and units.utype(q).id == "res-pt"
            and h is not None
            and supply.traces_to(g, h, reach)
        ):
            g.state.move(q.id, Loc.box("expended"))
            g.emit(
                "relief",
                f"{side} spends {q.id} on disaster relief ({why} of {g.board.label(i)})",
                rule="OT 15A6",
            )
            return True
    gw(g).setdefault("atrocities", []).append(
        {"side": side, "hex": g.board.label(i), "why": f"no relief for {why}"}
    )
    g.emit(
        "relief",
        f"{side} cannot pay for disaster relief after the {why} of {g.board.label(i)}",
        rule="OT 15A6",
    )
    return False


@implements("OT 15A6")
class Flooding(GWStep):
    """OT 15A6: the owner of the attacked hex decides whether to try to flood it; if it floods, the
    attacker decides whether to call the attack off (his announced units then attack no other
    hex)."""

    name = "flooding"
    title = "Partial flooding"
    rule = "OT 15A6"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"] if f.params["stage"] == "owner" else f.params["attacker"]]

    def label(self, g: Game, f: Frame) -> str:
        return f"Partial flooding of {f.params['hex']}"

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        if f.params["stage"] == "owner":
            return [{"type": "flood", "side": side}, {"type": "decline", "side": side}]
        return [{"type": "call-off", "side": side}, {"type": "decline", "side": side}]

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        allowed = ("flood", "decline") if f.params["stage"] == "owner" else ("call-off", "decline")
        raise IllegalAction("OT 15A6", f"choose one of {', '.join(allowed)}")

    def _outcome(self, g: Game, f: Frame) -> FloodOutcome:
        i = g.board.idx(f.params["hex"])
        return gw(g).setdefault("flood_outcome", {"hex": i, "flooded": False, "called_off": False})

    @handles.check("flood")
    def check_flood(self, g: Game, f: Frame, action: Action) -> None:
        """OT 15A6: the owner of the attacked hex decides."""
        if f.params["stage"] != "owner":
            self.refuse(g, f, action)

    @handles.check("call-off")
    def check_call_off(self, g: Game, f: Frame, action: Action) -> None:
        """OT 15A6: the attacker decides once the hex floods."""
        if f.params["stage"] == "owner":
            self.refuse(g, f, action)

    @handles.apply("decline")
    def apply_decline(self, g: Game, f: Frame, action: Action) -> None:
        self._outcome(g, f)
        g.finish(f)

    @handles.apply("flood")
    def apply_flood(self, g: Game, f: Frame, action: Action) -> None:
        """OT 15A6: the owner tries to flood the hex; if it floods, the attacker decides."""
        out = self._outcome(g, f)
        if flood(g, g.board.idx(f.params["hex"]), f.params["side"]):
            out["flooded"] = True
            f.params["stage"] = "attacker"
            return
        g.finish(f)

    @handles.apply("call-off")
    def apply_call_off(self, g: Game, f: Frame, action: Action) -> None:
        """OT 15A6: the attack is called off; its units attack no other hex."""
        out = self._outcome(g, f)
        out["called_off"] = True
        used = gw(g).setdefault("called_off_units", {"key": _player_turn_key(g), "ids": []})
        if used.get("key") != _player_turn_key(g):
            used.update({"key": _player_turn_key(g), "ids": []})
        used["ids"] = sorted(set(used["ids"]) | set(f.params.get("attackers", [])))
        g.emit(
            "flooded",
            f"{f.params['attacker']} calls off the attack on {f.params['hex']}",
            rule="OT 15A6",
        )
        g.finish(f)


@implements("OT 15A6")
def called_off(g: Game, p: Piece) -> bool:
    """OT 15A6: units named for an attack that was called off after flooding may not attack another
    hex this player turn."""
    used = gw(g).get("called_off_units", {})
    return used.get("key") == _player_turn_key(g) and p.id in used.get("ids", [])


# ----------------------------------------------------------------------- resource centers (OT 15A7)
@implements("OT 15A7")
def resource_center_check(g: Game, sit: CombatSituation) -> int:
    """OT 15A7: when a hex with a resource center is attacked, its owner rolls on the Ground Success
    Table (column ``resource-center`` when it exists, with the table's modifiers): success modifies
    the combat roll by -1. Returns the modifier (0 without a resource center)."""
    if not any(pt.kind == "resource-center" for pt in g.board.points_at(sit.hex)):
        return 0
    res = special_units.gst(
        g, "resource-center", f"resource center in {g.board.label(sit.hex)}", "OT 15A7"
    )
    ok = res.startswith("S")
    g.emit(
        "resource-center",
        f"the resource center in {g.board.label(sit.hex)}"
        f" {'helps the defense (-1)' if ok else 'has no effect'}",
        rule="OT 15A7",
    )
    return -1 if ok else 0


# ---------------------------------------------------------------------------- devastation (OT 15A8)
DEVASTATION_RE = Fraction(4)


def _job_turns(g: Game, kind: str, poor: bool) -> int:
    return {"devastate": (2, 4), "repair": (4, 8)}[kind][1 if poor else 0]


@implements("OT 15A8")
def devastation_problem(
    g: Game, side: str, i: int, pieces: Sequence[Piece], kind: str = "devastate"
) -> str | None:
    """OT 15A8: devastating a friendly-owned hex (not before Feb I 16) or repairing a devastated one
    takes 4 RE of construction units in regular general supply in the hex (no quick engineering);
    for a repair they must all trace overland supply to the same Res Pt, spent when the repair
    begins."""

    if kind == "devastate":
        if calendar.before(g, "Feb I 16"):
            return "no hex may be devastated before Feb I 16 (OT 15A8)"
        if marker(g, "devastated", i):
            return f"{g.board.label(i)} is already devastated"
    elif not marker(g, "devastated", i):
        return f"{g.board.label(i)} is not devastated"
    if g.state.control.get(i) != side:
        return f"{g.board.label(i)} is not friendly-owned (OT 15A8)"
    if str(i) in gw(g).get("devastation_jobs", {}):
        return f"work is already under way in {g.board.label(i)}"
    eng = [
        p
        for p in pieces
        if p.side == side and units.utype(p).id == "construction" and units.hex_of(g, p) == i
    ]
    if len(eng) != len(pieces):
        return "only construction units in the hex may do this work (OT 15A8)"
    if sum((units.re_size(g, p) for p in eng), Fraction(0)) < DEVASTATION_RE:
        return "it takes 4 RE of construction units (OT 15A8)"
    if not all(replacements.regular_supply(g, side, i) for _ in (0,)):
        return "the construction units must be in regular general supply (OT 15A8)"
    if kind == "repair" and _repair_res_pt(g, side, i) is None:
        return (
            "the construction units must trace overland supply to a Res Pt, spent for the repair"
            " (OT 15A8)"
        )
    return None


def _repair_res_pt(g: Game, side: str, i: int) -> Piece | None:

    reach = supply.overland_reach(g, side, {i})
    for q in sorted(g.state.pieces.values(), key=lambda q: q.id):
        h = units.hex_of(g, q)
        if (
            q.side == side
            and units.utype(q).id == "res-pt"
            and h is not None
            and (h == i or supply.traces_to(g, h, reach))
        ):
            return q
    return None


@implements("OT 15A8")
def start_devastation_work(g: Game, side: str, i: int, pieces: Sequence[Piece], kind: str) -> None:
    """OT 15A8: the work begins; it lasts 2 game turns to devastate (4 in poor weather) and 4 to
    repair (8 in poor weather), the weather of each turn counting (poor weather doubles the work of
    that turn, OT 13A). Devastating is always an atrocity (Rule 40A) and costs a humanitarian player
    a Res Pt now; a repair spends its Res Pt now."""

    jobs = gw(g).setdefault("devastation_jobs", {})
    jobs[str(i)] = {
        "side": side,
        "kind": kind,
        "work": Fraction(0),
        "units": [p.id for p in pieces],
    }
    if kind == "devastate":
        gw(g).setdefault("atrocities", []).append(
            {"side": side, "hex": g.board.label(i), "why": "devastation"}
        )
        humanitarian_relief(g, side, i, "devastation")
    else:
        rp = _repair_res_pt(g, side, i)
        assert rp is not None
        g.state.move(rp.id, Loc.box("expended"))
    g.emit(
        "devastation",
        f"{side} begins to {'devastate' if kind == 'devastate' else 'repair'} {g.board.label(i)}",
        rule="OT 15A8",
        hex=g.board.label(i),
    )


@implements("OT 15A8")
def progress_devastation(g: Game) -> None:
    """OT 15A8: at the end of each game turn, work in progress advances one turn (half a turn in
    poor weather: mud, frost, winter, snow); a job stops if its units left the hex or fell below
    4 RE. Devastation completes with a devastated marker and the hex's rail line broken (it cannot
    be repaired while devastated); a repair removes both."""

    jobs = gw(g).get("devastation_jobs", {})
    for key in sorted(jobs, key=int):
        job = jobs[key]
        i = int(key)
        here = [
            g.state.pieces[pid]
            for pid in job["units"]
            if pid in g.state.pieces and units.hex_of(g, g.state.pieces[pid]) == i
        ]
        if (
            sum((units.re_size(g, p) for p in here), Fraction(0)) < DEVASTATION_RE
            or g.state.control.get(i) != job["side"]
        ):
            del jobs[key]
            g.emit("devastation", f"work in {g.board.label(i)} stops", rule="OT 15A8")
            continue
        poor = is_poor_weather(_weather(g, i))
        job["work"] = Fraction(job["work"]) + (Fraction(1, 2) if poor else Fraction(1))
        if job["work"] >= _job_turns(g, job["kind"], False):
            del jobs[key]
            if job["kind"] == "devastate":
                set_marker(g, "devastated", i, True)
                if _rail_hex(g, i):
                    set_marker(g, "rail-break", i, True)
                g.emit(
                    "devastation",
                    f"{g.board.label(i)} is devastated",
                    rule="OT 15A8",
                    hex=g.board.label(i),
                )
            else:
                set_marker(g, "devastated", i, None)
                set_marker(g, "rail-break", i, None)
                g.emit(
                    "devastation",
                    f"{g.board.label(i)} is repaired",
                    rule="OT 15A8",
                    hex=g.board.label(i),
                )


def _rail_hex(g: Game, i: int) -> bool:

    return i in rail.rail_hexes(g)


@implements("OT 15A8")
def rail_repair_forbidden(g: Game, i: int) -> bool:
    """OT 15A8: a broken rail line in a devastated hex may not be repaired (OT 13A3) while the hex
    stays devastated."""
    return bool(marker(g, "devastated", i))


@implements("OT 15A8")
def supply_hexes(g: Game, i: int) -> int:
    """OT 15A8: a devastated hex counts as 2 hexes for the overland and road elements of a supply
    line (OT 11B1, 11B2), whatever its terrain; 1 otherwise."""
    return 2 if marker(g, "devastated", i) else 1


@implements("OT 15A8")
def rail_supply_hexes(g: Game, i: int) -> tuple[int, str]:
    """OT 15A8: for the railroad sub-element (OT 11B3a) a devastated hex is 2 low-volume rail hexes.
    Returns (hexes, volume) for a devastated hex, else (1, "")."""
    return (2, "low") if marker(g, "devastated", i) else (1, "")


# ---------------------------------------------------------------------------- open cities (OT 15A9)
@implements("OT 15A9")
def open_city_eligible(g: Game, side: str, city: frozenset[int]) -> bool:
    """OT 15A9: at the start of a combat or reaction combat phase, a major city of ``side`` that is
    isolated, or next to an enemy-owned hex, may be declared open for that phase."""

    if not all(g.state.control.get(h) == side for h in city):
        return False
    enemy = nations.other_side(side)
    if any(supply_status.is_isolated(g, side, h) for h in city):
        return True
    return any(
        g.state.control.get(j) == enemy for h in city for j in g.board.neighbors(h) if j not in city
    )


def _phase_key(g: Game) -> str:
    return f"{_player_turn_key(g)}:{gw(g).get('phase', '')}"


@implements("OT 15A9")
def is_open_city(g: Game, i: int) -> bool:
    """OT 15A9: the hex is part of a major city declared open for this phase: clear terrain for
    bombardment and combat (attacking or bombarding it is likely an atrocity, Rule 40A)."""
    return str(i) in gw(g).get("open_cities", {}).get(_phase_key(g), [])


@implements("OT 15A9")
class OpenCities(GWStep):
    """OT 15A9: at the start of a combat or reaction combat phase each player may declare his
    eligible major cities open for the phase (the attacker first). Skipped when no city is
    eligible."""

    name = "open-cities"
    title = "Open cities"
    rule = "OT 15A9"

    def _eligible(self, g: Game, side: str) -> list[frozenset[int]]:
        done = set(gw(g).get("open_cities", {}).get(_phase_key(g), []))
        return [
            c
            for c in geography.major_cities(g)
            if open_city_eligible(g, side, c) and not {str(h) for h in c} <= done
        ]

    def enter(self, g: Game, f: Frame) -> None:
        f.params["waiting"] = [s for s in f.params["sides"] if self._eligible(g, s)]

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        w = f.params.get("waiting", [])
        return w[:1]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = [
            {"type": "open-city", "side": side, "hex": g.board.label(min(c))}
            for c in self._eligible(g, side)
        ]
        return [*out, {"type": "done", "side": side}]

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction("OT 15A9", "declare open cities ('open-city') or 'done'")

    @handles.apply("done")
    def apply_done(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        f.params["waiting"] = [s for s in f.params["waiting"] if s != side]
        if not f.params["waiting"]:
            g.finish(f)

    @handles.check("open-city")
    def check_open(self, g: Game, f: Frame, action: Action) -> None:
        """OT 15A9: an eligible major city of the side."""
        h = action.get("hex")
        if not isinstance(h, str) or not g.board.has_label(h):
            raise IllegalAction("OT 15A9", f"no hex {h!r}")
        i = g.board.idx(h)
        if not any(i in c for c in self._eligible(g, action["side"])):
            raise IllegalAction(
                "OT 15A9", f"{h} is not a major city {action['side']} may declare open now"
            )

    @handles.apply("open-city")
    def apply_open(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        i = g.board.idx(action["hex"])
        city = next(c for c in geography.major_cities(g) if i in c)
        store = gw(g).setdefault("open_cities", {})
        for k in [k for k in store if k != _phase_key(g)]:
            del store[k]
        store.setdefault(_phase_key(g), []).extend(sorted(str(h) for h in city))
        g.emit(
            "open-city",
            f"{side} declares {action['hex']} an open city for this phase",
            rule="OT 15A9",
            hex=action["hex"],
        )

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)


# ============================================================================ 15B fortifications
def fortification(g: Game, i: int) -> str | None:
    """The fortification marker level of a hex (fieldworks, entrenchment, fort, improved fort)."""
    v = marker(g, "fortification", i)
    return str(v) if v else None


@implements("OT 15B4")
def fortress_of(g: Game, i: int) -> tuple[str, str] | None:
    """OT 15B4: the fortress in a hex as (type, condition): type new, old or great; condition
    improved or unimproved."""
    for pt in g.board.points_at(i):
        if pt.kind == "fortress":
            state = str(marker(g, "fortress-state", i) or pt.attrs.get("state", "unimproved"))
            return str(pt.attrs.get("type", "new")), state
    return None


@implements("OT 15B4")
def fortress_rule_applies(fortress: tuple[str, str], wording: str) -> bool:
    """OT 15B4: a rule about "fortresses" applies to every type and condition; one naming a
    condition ("improved fortresses") only to that condition; one naming both ("improved old
    fortresses") only to that combination."""
    ftype, cond = fortress
    words = wording.lower().split()
    conds = [w for w in words if w in ("improved", "unimproved")]
    types = [w for w in words if w in ("new", "old", "great")]
    return (not conds or cond in conds) and (not types or ftype in types)


@implements("OT 15B", "OT 15B1", "OT 15B3", "OT 15B4")
def reduce_fortification(g: Game, i: int, cause: str) -> None:
    """Fortifications in a hex captured by the enemy (``cause="capture"``) or reduced by bombardment
    (``"bombardment"``, OT 12C2): fieldworks are destroyed on capture (OT 15B1); entrenchments are
    not
    affected by capture (OT 15B2); an improved fort becomes a fort and a fort an entrenchment
    (OT 15B3); an improved fortress becomes unimproved (with a fort marker) and an unimproved one is
    never reduced further (OT 15B4)."""
    level = fortification(g, i)
    fort = fortress_of(g, i)
    if fort is not None and fort[1] == "improved":
        unimprove_fortress(g, i, cause)
        return
    if fort is not None:
        return
    if level == "fieldworks" and cause == "capture":
        set_marker(g, "fortification", i, None)
        g.emit(
            "fortification",
            f"the fieldworks in {g.board.label(i)} are destroyed",
            rule="OT 15B1",
            hex=g.board.label(i),
        )
    elif level in FORT_LADDER:
        set_marker(g, "fortification", i, FORT_LADDER[level])
        g.emit(
            "fortification",
            f"the {level} in {g.board.label(i)} becomes a {FORT_LADDER[level]} ({cause})",
            rule="OT 15B3",
            hex=g.board.label(i),
        )


@implements("OT 15B4")
def unimprove_fortress(g: Game, i: int, why: str) -> None:
    """OT 15B4: an improved fortress becomes unimproved (a fort marker shows it); nothing happens to
    an unimproved one."""
    fort = fortress_of(g, i)
    if fort is None or fort[1] != "improved":
        return
    set_marker(g, "fortress-state", i, "unimproved")
    set_marker(g, "fortification", i, "fort")
    g.emit(
        "fortification",
        f"the fortress in {g.board.label(i)} becomes unimproved ({why})",
        rule="OT 15B4",
        hex=g.board.label(i),
    )


@implements("OT 15B1", "OT 15B2")
def concentric(g: Game, i: int, attackers: Sequence[Piece]) -> bool:
    """OT 15B1: a hex is under concentric attack when the attacking units exert ZOCs into every hex
    adjacent to it (OT 3E5)."""

    covered: set[int] = set()
    for p in attackers:
        covered.update(zoc.zoc_hexes(g, p))
    adj = geography.adjacent_hexes(g, i)
    return bool(adj) and all(j in covered for j in adj)


@implements("OT 15B1", "OT 15B2")
def detached(g: Game, i: int, owner: str | None) -> bool:
    """OT 15B1/15B2: a fortification is detached when no adjacent hex holds friendly fortifications
    of any type (friendly: in hexes its owner owns)."""
    for j in geography.adjacent_hexes(g, i):
        if g.state.control.get(j) == owner and (fortification(g, j) or fortress_of(g, j)):
            return False
    return True


@implements("OT 15B1", "OT 15B2")
def effective_fortification(g: Game, sit: CombatSituation) -> str | None:
    """The fortification level the combat uses: under concentric attack on a detached work,
    fieldworks are ignored (``"none"``, OT 15B1) and an entrenchment counts as fieldworks (OT 15B2).
    None: the marker counts as it is."""
    level = fortification(g, sit.hex)
    if level not in ("fieldworks", "entrenchment") or fortress_of(g, sit.hex) is not None:
        return None
    if not (
        concentric(g, sit.hex, sit.attackers) and detached(g, sit.hex, g.state.control.get(sit.hex))
    ):
        return None
    return "none" if level == "fieldworks" else "fieldworks"


# ============================================================================ capture hook
@implements("OT 15B1", "OT 15B3", "OT 15B4", "OT 16C11")
def on_capture(g: Game, i: int, old: str | None, new: str) -> None:
    """A hex changed hands (OT 5B): fortifications fall a level (OT 15B); the start of enemy
    ownership is remembered and a long-held major city hex liberated may be drafted (OT 16C11)."""

    if old in g.state.sides and new in g.state.sides and old != new:
        reduce_fortification(g, i, "capture")
        c = replacements.local_draft_due(g, i, old, new)
        if c is not None:
            g.push("local-draft", {"side": new, "hex": g.board.label(i), "contingent": c})
    gw(g).setdefault("owned_since", {})[str(i)] = int(g.state.turn.get("index", 0))


@implements("OT 16C11")
class LocalDraft(GWStep):
    """OT 16C11: the liberating player may draft 3 Man Pts from the liberated major city hex."""

    name = "local-draft"
    title = "Local drafting"
    rule = "OT 16C11"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def label(self, g: Game, f: Frame) -> str:
        return f"Local draft in {f.params['hex']} ({f.params['side']})"

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return [{"type": "draft", "side": side}, {"type": "decline", "side": side}]

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction("OT 16C11", "'draft' or 'decline'")

    @handles.apply("draft")
    def apply_draft(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16C11: 3 Man Pts drafted from the liberated city."""

        replacements.local_draft(
            g, f.params["side"], g.board.idx(f.params["hex"]), f.params["contingent"]
        )
        g.finish(f)

    @handles.apply("decline")
    def apply_decline(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)


# ============================================================================ 15D morale
def nation_nw(g: Game, nation: str) -> Fraction:
    """A nation's National Will (Rule 40, not in the rulebook: nation attribute ``nw``, live value
    in
    ``gw(g)["nw"]``)."""
    live = gw(g).get("nw", {})
    if nation in live:
        return Fraction(live[nation])
    v = nations.nation_attrs(g, nation).get("nw", 0)
    return Fraction(str(v))


@implements("OT 15D2")
def home_bonus(g: Game, p: Piece) -> int:
    """OT 15D2: +2 NW for units of a great or major power within 3 hexes of their natural capital,
    +1 for a minor power within 1 hex (nation attribute ``capital``: the hexes of the city), even
    if the government is away or the capital is enemy-owned. Measured from the unit's hex to the
    nearest capital hex (interpretation default)."""
    caps = nations.nation_attrs(g, p.nation).get("capital") or []
    h = units.hex_of(g, p)
    if h is None or not caps:
        return 0
    dist = (
        min(g.board.distance(h, g.board.idx(c)) for c in caps if g.board.has_label(c))
        if any(g.board.has_label(c) for c in caps)
        else 99
    )
    if nations.is_great_or_major(g, p.nation):
        return 2 if dist <= 3 else 0
    return 1 if dist <= 1 else 0


@implements("OT 15D1", "OT 15D2")
def side_nw(g: Game, pieces: Iterable[Piece]) -> Fraction | None:
    """OT 15D1: a side's NW in a combat is the lowest NW among its units there (home advantage of
    OT 15D2 included)."""
    vals = [nation_nw(g, p.nation) + home_bonus(g, p) for p in pieces if units.is_unit(p)]
    return min(vals) if vals else None


@implements("OT 15D1")
def morale_drm(g: Game, sit: CombatSituation) -> int:
    """OT 15D1: +1 when the attacker has the higher NW, -1 when the defender has; 0 on a tie."""
    a, d = side_nw(g, sit.attackers), side_nw(g, sit.defenders)
    if a is None or d is None or a == d:
        return 0
    return 1 if a > d else -1


@implements("OT 15D3")
def unreliable(g: Game, p: Piece, role: str) -> bool:
    """OT 15D3: units of a shaken nation (OT 40B) are unreliable on the attack; of a collapsing one
    (OT 40C) on attack and defense."""
    if nations.nation_flag(g, p.nation, "collapse"):
        return True
    return role == "attack" and nations.nation_flag(g, p.nation, "shaken")


@implements("OT 15D3")
def unreliable_check(g: Game, p: Piece) -> bool:
    """OT 15D3: an unreliable unit checks when the combat is declared (Ground Success Table, no
    modifiers): success, it fights normally; failure, it is disrupted (badly if already disrupted).
    Returns whether it passed."""
    res = special_units.gst(g, "unreliable", f"reliability of {p.id}", "OT 15D3")
    if res.startswith("S"):
        g.emit("unreliable", f"{p.id} fights normally ({res})", rule="OT 15D3", piece=p.id)
        return True
    units.disrupt(g, p, badly=units.disruption(p) >= 1, rule="OT 15D3", reason="unreliable")
    return False


# ============================================================================ 15E cooperation
def _rb(g: Game, nation: str) -> str:

    info = nation_info(nations.rulebook_name(g, nation))
    return info.id if info else nations.rulebook_name(g, nation)


@implements("OT 15E1")
def cooperate(g: Game, a: str, b: str) -> bool:
    """OT 15E1: nations cooperating in combat: a nation with itself; every Entente minor power with
    France (not with each other); every non-German Central Powers nation with Germany (not with
    each other). All other pairs do not cooperate (Britain and France, Britain and Russia...),
    until the Entente Unified Command (OT 15E4) lifts the Entente's penalties."""
    if sa_unified(g, a, b):
        return True
    return base_cooperate(g, a, b)


def sa_unified(g: Game, a: str, b: str) -> bool:
    sa, sb = nations.side_of_nation(g, a), nations.side_of_nation(g, b)
    return sa == sb == "Entente" and unified_command(g)


def base_cooperate(g: Game, a: str, b: str) -> bool:
    """OT 15E1 without Unified Command."""
    if a == b or _rb(g, a) == _rb(g, b):
        return True
    sa, sb = nations.side_of_nation(g, a), nations.side_of_nation(g, b)
    if sa != sb or sa is None:
        return False
    ra, rbn = _rb(g, a), _rb(g, b)
    if sa == "Entente":
        return (ra == "France" and nations.power_class(g, b) == "minor") or (
            rbn == "France" and nations.power_class(g, a) == "minor"
        )
    return ra == "Germany" or rbn == "Germany"


@implements("OT 15E2")
def supply_cooperate(g: Game, unit_nation: str, source_nation: str) -> bool:
    """OT 15E2: for supply purposes only, the USA also cooperates with France, and great or major
    powers of one side cooperate with each other up to 15 RE of each (``supply_cooperation_cap``).
    Unified Command changes nothing here."""
    a, b = _rb(g, unit_nation), _rb(g, source_nation)
    same_side = nations.side_of_nation(g, unit_nation) == nations.side_of_nation(g, source_nation)
    if {a, b} == {"USA", "France"} and same_side:
        return True
    return base_cooperate(g, unit_nation, source_nation)


@implements("OT 15E2")
def supply_cooperation_cap(g: Game, unit_nation: str, source_nation: str) -> Fraction | None:
    """OT 15E2: how many RE of ``unit_nation`` may trace to ``source_nation``'s regular general
    supply
    sources: unlimited (None) for cooperating nations; 15 RE between two great or major powers of
    one side; 0 otherwise."""
    if supply_cooperate(g, unit_nation, source_nation):
        return None
    if (
        nations.side_of_nation(g, unit_nation) == nations.side_of_nation(g, source_nation)
        and nations.is_great_or_major(g, unit_nation)
        and nations.is_great_or_major(g, source_nation)
    ):
        return Fraction(15)
    return Fraction(0)


@implements("OT 15E4")
def unified_command(g: Game) -> bool:
    """OT 15E4: the Entente Unified Command is in effect."""
    return bool(gw(g).get("unified_command"))


@implements("OT 15E4")
def unified_command_roll(g: Game, side: str) -> None:
    """OT 15E4: in each Entente initial phase from the first in which conditional reinforcements 11
    (French Mutiny) and 25 (British National Emergency) have both been triggered, the Entente rolls
    a die: on a 6 the Unified Command is real for the rest of the game (the penalties of OT 15E3 no
    longer apply to the Entente; supply cooperation, OT 15E2, is unchanged). Interpretation
    default: only in Entente initial phases."""

    if side != "Entente" or unified_command(g):
        return
    if not (reinforcements.cr_triggered(g, side, 11) and reinforcements.cr_triggered(g, side, 25)):
        return
    r = g.roll("d6", "Entente Unified Command", "OT 15E4")
    if r.natural == 6:
        gw(g)["unified_command"] = True
        g.emit("unified-command", "the Entente Unified Command becomes a reality", rule="OT 15E4")


@implements("OT 15E3")
def cooperating_groups(g: Game, pieces: Sequence[Piece]) -> list[list[Piece]]:
    """OT 15E3: the largest sets of units whose nations all cooperate with each other (units of
    nations that do not cooperate may not pool their REs, support each other, combine special
    effects, bombardment or quick engineering)."""
    nats = sorted({p.nation for p in pieces})
    cliques: list[set[str]] = []
    for r in range(len(nats), 0, -1):
        for combo in itertools.combinations(nats, r):
            if all(cooperate(g, a, b) for a, b in itertools.combinations(combo, 2)):
                s = set(combo)
                if not any(s <= c for c in cliques):
                    cliques.append(s)
    return [[p for p in pieces if p.nation in c] for c in cliques]


@implements("OT 15E3")
def all_cooperate(g: Game, pieces: Sequence[Piece]) -> bool:
    """OT 15E3: every pair of nations among the units cooperates."""
    nats = sorted({p.nation for p in pieces})
    return all(cooperate(g, a, b) for a, b in itertools.combinations(nats, 2))


@implements("OT 15E3")
def may_support(g: Game, supporter: Piece, supported: Piece) -> bool:
    """OT 15E3 (a): units that do not cooperate cannot support each other (OT 12A)."""
    return cooperate(g, supporter.nation, supported.nation)


@implements("OT 15E3")
def may_combine(g: Game, pieces: Sequence[Piece]) -> bool:
    """OT 15E3 (b)-(d): units that do not cooperate may not combine in a special combat effects
    attempt (Rule 10), combine bombardment strengths (OT 12C) or do quick engineering together
    (OT 13A5)."""
    return all_cooperate(g, pieces)


@implements("OT 15E3")
def air_naval_support_allowed(g: Game, supporting_nation: str, supported: Sequence[Piece]) -> bool:
    """OT 15E3: air units fly tactical reconnaissance, ground support and defensive air support, and
    naval units give gunfire support, only for units they cooperate with."""
    return all(cooperate(g, supporting_nation, p.nation) for p in supported)


# ===================================================================== capabilities (14H, 14R, 15C)
@dataclass(frozen=True)
class Capabilities:
    infantry: bool = False
    mountain_infantry: bool = False
    rifle_assault: bool = False
    adverse_terrain: bool = False


def _non_art(pieces: Iterable[Piece]) -> list[Piece]:
    return [p for p in pieces if units.is_unit(p) and not units.is_artillery(p)]


def _qualifies(g: Game, pieces: Sequence[Piece], counted: Sequence[Piece], test: Any) -> bool:
    """OT 15E3 pooling (interpretation default A): the side qualifies if one group of mutually
    cooperating units alone has qualifying REs of half or more of all the side's counted REs."""
    total = sum((units.re_size(g, p) for p in counted), Fraction(0))
    if total <= 0:
        return False
    groups = (
        cooperating_groups(g, list(counted))
        if not (pieces and _entente_unified(g, pieces))
        else [list(counted)]
    )
    for grp in groups:
        num = sum((units.re_size(g, p) for p in grp if test(p)), Fraction(0))
        if num * 2 >= total:
            return True
    return False


def _entente_unified(g: Game, pieces: Sequence[Piece]) -> bool:
    return unified_command(g) and nations.side_of_nation(g, pieces[0].nation) == "Entente"


@implements("OT 14H1")
def infantry_capable(g: Game, pieces: Sequence[Piece]) -> bool:
    """OT 14H1: a side is infantry-capable in a combat when infantry units (OT 14H) make up half or
    more of its REs there, artillery not counted (non-cooperating nations may not pool, OT 15E3)."""
    counted = _non_art(pieces)
    return _qualifies(g, pieces, counted, lambda p: special_units.is_infantry(g, p))


@implements("OT 14H2")
def mountain_infantry_capable(g: Game, pieces: Sequence[Piece]) -> bool:
    """OT 14H2: mountain units and infantry units together make up half or more of the side's
    non-artillery REs. (Infantry-capable implies it; it is a different status with its own effect.)
    """
    counted = _non_art(pieces)
    return _qualifies(
        g,
        pieces,
        counted,
        lambda p: special_units.is_infantry(g, p) or "mountain" in special_units.families(g, p),
    )


@implements("OT 14R")
def rifle_assault_capable(
    g: Game, pieces: Sequence[Piece], engineer_modifier_possible: bool = True
) -> bool:
    """OT 14R: rifle assault units make up half or more of the attacker's REs, not counting
    artillery
    or units with combat or assault engineer abilities (OT 13D-13F, 14C3)."""
    counted = [
        p
        for p in _non_art(pieces)
        if special_units.engineer_role(g, p, engineer_modifier_possible) is None
    ]
    return _qualifies(g, pieces, counted, special_units.is_rifle_assault)


@implements("OT 15C")
def adverse_terrain_unit(g: Game, p: Piece, i: int) -> bool:
    """OT 15C: a unit would use the TEC "exceptions" movement column entering hex ``i`` in the
    weather there (mixed mounted rifle and rifle units count as rifle, OT 14D3)."""

    tec = terrain.charts(g).tec
    row = tec.hexes.get(_terrain(g, i))
    if row is None:
        return False
    tags = set(special_units.movement_tags(g, p))
    if special_units.counts_as_rifle_for(p, "adverse-terrain"):
        tags.discard("cavalry")
    w = _weather(g, i)
    return any(
        exc.tags & tags and w in exc.cost and exc.cost[w] is not None for exc in row.exceptions
    )


@implements("OT 15C")
def adverse_terrain_capable(g: Game, attackers: Sequence[Piece], i: int) -> bool:
    """OT 15C: the attacker is adverse terrain-capable when half or more of its non-artillery REs
    would use the TEC exceptions column entering the attacked hex (OT 15E3 pooling)."""
    counted = _non_art(attackers)
    return _qualifies(g, attackers, counted, lambda p: adverse_terrain_unit(g, p, i))


@implements("OT 14H1", "OT 14H2", "OT 14R", "OT 15C", "OT 15E3")
def capabilities(g: Game, sit: CombatSituation, role: str) -> Capabilities:
    """The side capabilities in a combat: infantry-capable and mountain/infantry-capable (both
    sides),
    rifle assault-capable and adverse terrain-capable (the attacker only)."""
    pieces = sit.attackers if role == "attack" else sit.defenders
    if not pieces:
        return Capabilities()
    attack = role == "attack"
    return Capabilities(
        infantry=infantry_capable(g, pieces),
        mountain_infantry=mountain_infantry_capable(g, pieces),
        rifle_assault=attack
        and rifle_assault_capable(g, pieces, _engineer_modifier_possible(g, sit)),
        adverse_terrain=attack and adverse_terrain_capable(g, pieces, sit.hex),
    )


def _engineer_modifier_possible(g: Game, sit: CombatSituation) -> bool:
    """OT 10C / 14C3: whether the combat engineer modifier is possible against the attacked hex:
    any fortification beyond fieldworks, or a city."""
    return special_units._fortified_beyond_fieldworks(g, sit.hex) or geography.is_city(g, sit.hex)


# ============================================================================ the combat interface
@implements("OT 14H1", "OT 14H2", "OT 15A6", "OT 15A9")
def crt_choice(g: Game, sit: CombatSituation) -> tuple[str, str | None]:
    """The CRT of a combat and who may choose it. OT 9A: Positional for mountain terrain (a flooded
    hex is swamp, OT 15A6), a major city that is not declared open (OT 15A9) or any fortification
    other than fieldworks (an entrenchment counting as fieldworks under OT 15B2 does not count);
    otherwise Mobile. OT 14H1: an infantry-capable attacker uses the Mobile CRT. OT 14H2: in a
    mountain hex with no fortification but fieldworks, exactly one mountain/infantry-capable side
    chooses. Returns (crt, chooser side or None)."""

    i = sit.hex
    eff = effective_fortification(g, sit)
    level = fortification(g, i) if eff is None else (None if eff == "none" else eff)
    fortified = (level not in (None, "fieldworks")) or fortress_of(g, i) is not None
    open_city = is_open_city(g, i)
    tkind = "clear" if open_city else _terrain(g, i)
    row = terrain.charts(g).tec.hexes.get(tkind)
    mountain = row is not None and row.crt == "positional"
    major = geography.is_major_city_hex(g, i) and not open_city
    crt = "positional" if (mountain or major or fortified) else "mobile"
    att = capabilities(g, sit, "attack")
    dfn = capabilities(g, sit, "defense")
    if att.infantry:
        crt = "mobile"
    chooser = None
    if mountain and not fortified and att.mountain_infantry != dfn.mountain_infantry:
        chooser = sit.attacker_side if att.mountain_infantry else sit.defender_side
    return crt, chooser


@implements("OT 14H1")
def mobile_column_cap(g: Game, sit: CombatSituation) -> int:
    """OT 14H1 / 9B: the Mobile CRT goes up to 6:1, to 9:1 for an infantry-capable attacker."""
    return 9 if capabilities(g, sit, "attack").infantry else 6


@implements("OT 14H1", "OT 14R", "OT 15C", "OT 15D1", "OT 15E3", "OT 15A8", "OT 14M2")
def combat_drms(
    g: Game,
    sit: CombatSituation,
    attacker_hq: Piece | None = None,
    defender_hq: Piece | None = None,
) -> Modifiers:
    """The combat roll modifiers of Rules 14 and 15: infantry-capable attacker +1, defender -1
    (OT 14H1); rifle assault-capable attacker on the Positional CRT +1 (OT 14R); adverse
    terrain-capable attacker on the Mobile CRT in clear, frost, winter or snow +1 (OT 15C); morale
    advantage +1/-1 (OT 15D1); non-cooperating attackers -1, non-cooperating defenders +1, unless
    the
    side has Unified Command (OT 15E3, 15E4); an attacking unit in a devastated hex -2 (OT 15A8);
    combat supply traced to a Res Pt with a disrupted Army HQs: -1 for the attacker's, +1 for the
    defender's (OT 14M2). (Fortifications come from the FEC, leaders from ``leaders.leader_drm``,
    resource centers from ``resource_center_check``.)"""
    m = Modifiers()
    att = capabilities(g, sit, "attack")
    dfn = capabilities(g, sit, "defense")
    if att.infantry:
        m.add(1, "OT 14H1", "infantry-capable attacker")
    if dfn.infantry:
        m.add(-1, "OT 14H1", "infantry-capable defender")
    if att.rifle_assault and sit.crt == "positional":
        m.add(1, "OT 14R", "rifle assault-capable attacker")
    if att.adverse_terrain and sit.crt == "mobile" and _weather(g, sit.hex) in ADVERSE_WEATHER:
        m.add(1, "OT 15C", "adverse terrain-capable attacker")
    mor = morale_drm(g, sit)
    if mor:
        m.add(mor, "OT 15D1", "morale advantage of the " + ("attacker" if mor > 0 else "defender"))
    if (
        sit.attackers
        and not all_cooperate(g, sit.attackers)
        and not _entente_unified(g, sit.attackers)
    ):
        m.add(-1, "OT 15E3", "non-cooperating attackers")
    if (
        sit.defenders
        and not all_cooperate(g, sit.defenders)
        and not _entente_unified(g, sit.defenders)
    ):
        m.add(1, "OT 15E3", "non-cooperating defenders")
    if any(
        (h := units.hex_of(g, p)) is not None and marker(g, "devastated", h) for p in sit.attackers
    ):
        m.add(-2, "OT 15A8", "attacking from a devastated hex")
    if attacker_hq is not None and units.disruption(attacker_hq) > 0:
        m.add(-1, "OT 14M2", f"attacker's combat supply HQs {attacker_hq.id} disrupted")
    if defender_hq is not None and units.disruption(defender_hq) > 0:
        m.add(1, "OT 14M2", f"defender's combat supply HQs {defender_hq.id} disrupted")
    return m


@implements("OT 14H1", "OT 14R")
def convert_result(g: Game, sit: CombatSituation, code: str) -> str:
    """Result conversions: AQ becomes AS for an infantry-capable attacker and BX becomes BXM for an
    infantry-capable defender (OT 14H1); DX becomes DXM on the Positional CRT for a rifle
    assault-capable attacker (OT 14R)."""
    if code == "AQ" and capabilities(g, sit, "attack").infantry:
        return "AS"
    if code == "BX" and capabilities(g, sit, "defense").infantry:
        return "BXM"
    if code == "DX" and sit.crt == "positional" and capabilities(g, sit, "attack").rifle_assault:
        return "DXM"
    return code


@implements("OT 14H3", "OT 14R", "OT 15C", "OT 14L")
def loss_rules(g: Game, sit: CombatSituation, role: str) -> list[dict[str, Any]]:
    """Constraints on the units a side loses (each a dict: ``rule``, ``pieces``, and ``share`` = the
    least part of the loss to take from them "if possible", or ``last`` = lose them only when no
    other unit is left). OT 14H3: an infantry-capable side (else a mountain/infantry-capable side)
    on the Mobile CRT, half from infantry (mountain or infantry) units; OT 14R: a rifle
    assault-capable attacker on the Positional CRT, half from rifle assault units; OT 15C: an
    adverse
    terrain-capable attacker on the Mobile CRT, half from adverse terrain-capable units; OT 14L:
    irregular units last (until every other unit is eliminated or reduced)."""
    pieces = sit.attackers if role == "attack" else sit.defenders
    caps = capabilities(g, sit, role)
    out: list[dict[str, Any]] = []
    half = Fraction(1, 2)
    if sit.crt == "mobile":
        if caps.infantry:
            out.append(
                {
                    "rule": "OT 14H3",
                    "share": half,
                    "pieces": [p.id for p in pieces if special_units.is_infantry(g, p)],
                }
            )
        elif caps.mountain_infantry:
            out.append(
                {
                    "rule": "OT 14H3",
                    "share": half,
                    "pieces": [
                        p.id
                        for p in pieces
                        if special_units.is_infantry(g, p)
                        or "mountain" in special_units.families(g, p)
                    ],
                }
            )
        if role == "attack" and caps.adverse_terrain and _weather(g, sit.hex) in ADVERSE_WEATHER:
            out.append(
                {
                    "rule": "OT 15C",
                    "share": half,
                    "pieces": [p.id for p in pieces if adverse_terrain_unit(g, p, sit.hex)],
                }
            )
    if sit.crt == "positional" and role == "attack" and caps.rifle_assault:
        out.append(
            {
                "rule": "OT 14R",
                "share": half,
                "pieces": [p.id for p in pieces if special_units.is_rifle_assault(p)],
            }
        )
    irr = [p.id for p in pieces if special_units.is_irregular(p)]
    if irr and len(irr) < len(pieces):
        out.append({"rule": "OT 14L", "last": True, "pieces": irr})
    return out


@implements("OT 14N2", "OT 14C2", "OT 15D3", "OT 14P2")
def declaration_checks(g: Game, sit: CombatSituation) -> None:
    """When a combat is declared: unknown corps taking part become known (OT 14N2); each unreliable
    tank taking part checks for breakdowns (OT 14C2); each unreliable unit of a shaken or collapsing
    nation checks (OT 15D3)."""

    for p in [*sit.attackers, *sit.defenders]:
        carrier = g.state.pieces.get(str(p.loc.ref)) if p.loc.kind == "piece" else None
        if carrier is not None and special_units.is_corps_hq(carrier):
            intelligence.reveal(g, carrier, "a combat it takes part in begins")
    for role, pieces in (("attack", sit.attackers), ("defense", sit.defenders)):
        for p in sorted(pieces, key=lambda q: q.id):
            if special_units.is_unreliable_tank(p) and not special_units.is_disabled(p):
                special_units.tank_check(g, p, "engaging in combat")
            if unreliable(g, p, role):
                unreliable_check(g, p)


# ============================================================================ wiring
@implements("OT 15A8")
def devastation_actions(g: Game, f: Frame, side: str) -> list[Action]:
    """Devastation and its repair (OT 15A8) started by construction units in the movement phase."""

    if f.params.get("kind") != movement.MOVEMENT:
        return []
    out: list[Action] = []
    by_hex: dict[int, list[Piece]] = {}
    for p in units.on_map_units(g, side):
        h = units.hex_of(g, p)
        if (
            h is not None
            and units.utype(p).id == "construction"
            and movement.can_move_now(g, f, p) is None
            and not f.params.get("units", {}).get(p.id, {}).get("moved")
        ):
            by_hex.setdefault(h, []).append(p)
    for h, ps in sorted(by_hex.items()):
        for kind in ("devastate", "repair"):
            if devastation_problem(g, side, h, ps, kind) is None:
                out.append(
                    {
                        "type": "devastate" if kind == "devastate" else "repair-devastation",
                        "side": side,
                        "hex": g.board.label(h),
                        "pieces": [p.id for p in ps],
                    }
                )
    return out
