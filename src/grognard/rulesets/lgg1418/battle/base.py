"""LGG 16: the battle - records, force differential, D12 modifiers, results, losses, tests.

This module is the calculator of the battle procedure; the steps that drive a battle round by
round (prompting each side at the right moment) are in :mod:`.battle_steps`, the retreat in
:mod:`.battle_retreat`, breakthroughs in :mod:`.breakthrough`, the counter-offensive in
:mod:`.counteroffensive`. Other rules start a battle with :func:`battle_params` and push the
``battle`` step (see ``docs/rulesets/lgg1418.md``, *Battle procedure*).

A battle record lives in ``g.state.vars["lgg"]["battles"][id]`` (never shown to either side:
the players learn what the events tell them). Units taking part are listed in
``record["units"]`` with their role (``front``, ``rear``, ``idle``, ``defeated``, ``gone``),
sub-battle (``A``/``B``), state (``fit``, ``disorganized``, ``eliminated``, ``out``) and the
losses tallied (16.5-A).

Tables (provisional, ``data/tables``): ``combat-movement``, ``combat-trench`` (cells
``"attacker/defender"``, ``!`` = bold), ``combativeness-movement``, ``combativeness-trench``;
the values the seed leaves open are in ``data/battle.toml``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grognard.core.modifiers import Modifiers
from grognard.core.record import DICT, LATER_DICT, LATER_LIST, LIST, Record, later
from grognard.core.rules import implements
from grognard.core.state import Loc, Piece
from grognard.core.tables import ResultsTable
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import artillery
from grognard.rulesets.lgg1418.map import mapdata, weather
from grognard.rulesets.lgg1418.map.fronts import fronts_of
from grognard.rulesets.lgg1418.military import doctrine_transitions
from grognard.rulesets.lgg1418.military.movement import in_command_range
from grognard.rulesets.lgg1418.military.reinforcement import add_pr, pr_stock
from grognard.rulesets.lgg1418.supply.supply import (
    is_isolated,
    supply_combativeness_modifier,
)
from grognard.rulesets.lgg1418.units import doctrine, fog
from grognard.rulesets.lgg1418.units.counters import army_general, command_army
from grognard.rulesets.lgg1418.units.elimination import eliminate

if TYPE_CHECKING:
    from grognard.core.game import Game

RESULT_CODES = ("0", "½", "1", "M", "2", "E")
TEST_CODES = {
    "X": "exploit",
    "H": "holds",
    "R": "repulsed",
    "D": "disorganized",
    "O": "out of combat",
    "E": "eliminated",
    "P": "panic",
}
KINDS = (
    "open",
    "counter-offensive",
    "breakthrough",
    "overflow",
    "assault",
    "secondary",
    "main",
    "landing",
)
FIRE_DOCTRINES = ("fire", "combined")
TRENCH_DEFENCE = ("trenches", "transition", "fire", "combined")
MORALES = ("elite", "veteran", "active", "reservist", "mobilised")
SUBS = ("A", "B")


# ====================================================================== data
@lru_cache(maxsize=8)
def _battle_toml(path: str) -> dict[str, Any]:
    return tomllib.loads(Path(path).read_text(encoding="utf-8"))


def bdata(g: Game) -> dict[str, Any]:
    """The provisional values of ``data/battle.toml``."""
    return _battle_toml(str(g.ruleset.data_dir / "battle.toml"))


_TABLES: dict[tuple[str, tuple[tuple[str, str], ...]], dict[str, ResultsTable]] = {}


def table(g: Game, tid: str) -> ResultsTable:
    """A results table (the shipped one or the user's replacement)."""
    key = (str(g.ruleset.data_dir), tuple(sorted(g.scenario.table_overrides.items())))
    got = _TABLES.get(key)
    if got is None:
        got = g.ruleset.tables(g.scenario.table_overrides)
        _TABLES[key] = got
    return got[tid]


# ====================================================================== records
def battles(g: Game) -> dict[str, dict[str, Any]]:
    return M.st(g).setdefault("battles", {})


def rec_of(g: Game, bid: str) -> BattleRecord:
    """The typed view of battle ``bid``'s record."""
    try:
        return BattleRecord(battles(g)[bid])
    except KeyError:
        raise KeyError(f"no battle {bid!r}") from None


def result(g: Game, bid: str) -> BattleRecord:
    """The record of a battle (see the module docstring); final once ``ended`` is true."""
    return rec_of(g, bid)


def units_of(
    rec: BattleRecord,
    side: str,
    roles: tuple[str, ...] = ("front",),
    kinds: tuple[str, ...] = ("corps",),
    sub: str | None = None,
    states: tuple[str, ...] | None = ("fit", "disorganized"),
) -> list[str]:
    out = []
    for uid, u in sorted(rec.units.items()):
        if u["side"] != side or u["role"] not in roles or u["kind"] not in kinds:
            continue
        if sub is not None and u.get("sub") != sub:
            continue
        if states is not None and u["state"] not in states:
            continue
        out.append(uid)
    return out


def side_nation(rec: BattleRecord, side: str) -> str:
    return str(rec.nations[side])


def battle_front(g: Game, rec: BattleRecord) -> str:
    fr = fronts_of(g, rec.hex_i)
    if rec.front:
        return str(rec.front)
    return fr[0] if fr else M.WEST


def side_doctrine(g: Game, rec: BattleRecord, side: str) -> str:
    """The doctrine of the side's leading nation on the battle's front."""
    return doctrine.doctrine(g, side_nation(rec, side), battle_front(g, rec))


def side_doctrine_at(g: Game, side: str, i: int) -> str:
    """The doctrine of the side's units in hex ``i`` (their leading nation), or of its first
    power."""
    units = [p for p in M.units_at_hex(g, i, side) if p.type == "corps"] or M.units_at_hex(
        g, i, side
    )
    nation = units[0].nation if units else (M.powers_of(g, side) or [""])[0]
    fr = fronts_of(g, i)
    return doctrine.doctrine(g, nation, fr[0] if fr else M.WEST)


def fire_procedure(g: Game, rec: BattleRecord) -> bool:
    """Rules written for Fire Doctrine (16.1-A, 16.4-E, 16.6-A, 16.7-A/B, 17.3) follow the
    attacker's doctrine."""
    return side_doctrine(g, rec, rec.attacker) in FIRE_DOCTRINES


def other(rec: BattleRecord, side: str) -> str:
    return rec.defender if side == rec.attacker else rec.attacker


def piece(g: Game, uid: str) -> Piece:
    return g.state.pieces[uid]


def describe(g: Game, p: Piece) -> str:
    """A description of a unit that names no piece (what the other side may read)."""
    if p.type == "corps":
        arm = M.arm(p) or "infantry"
        face = " (reduced)" if M.is_reduced(p) else ""
        return (
            f"{M.nation_name(g, p.nation)} {arm} corps {p.stat('attack', 0)}-{p.stat('defense', 0)}"
            f" fire {p.stat('fire', 0)}{face}"
        )
    if p.type == "artillery":
        return (
            f"{M.nation_name(g, p.nation)} {p.attrs.get('category', 'heavy')} artillery (support"
            f" {p.stat('support', 0)})"
        )
    if p.type == "tank":
        return f"{M.nation_name(g, p.nation)} {p.attrs.get('category', 'heavy')} tank"
    if p.type == "fortress":
        return "the fortress"
    return f"{M.nation_name(g, p.nation)} {p.type}"


def say(
    g: Game, side: str, type: str, text: str, others: str | None, rule: str | None = None
) -> None:
    """An event about ``side``'s units: full text for it, ``others`` for everybody else."""
    fog.emit_private(g, side, type, text, others, rule=rule)


# ============================================================== battle parameters (the entry point)
SPEC_KEYS = {
    "hex",
    "attacker",
    "kind",
    "armies",
    "attacker_units",
    "defender_units",
    "table",
    "great",
    "round_cap",
    "min_rounds",
    "obstinacy_from_round",
    "trench",
    "orders",
    "modifiers",
    "no_generals",
    "forced_attacker_result",
    "no_repulse",
    "breakthrough",
    "counter_offensive",
    "retreat",
    "before_round",
    "after_round",
    "bombardment",
    "d12_cap",
    "general_cap",
    "flank_breakthrough",
    "artillery_reuse",
    "no_exchange",
    "retreat_limit",
    "tactics",
    "front",
    "origin_battle",
    "fortress",
    "free_tests",
    "uncounted_losses",
    "alternate",
    "ignore_terrain",
    "new_army",
}
MOD_TARGETS = ("value", "d12", "combativeness", "column")


class BattleRecord(Record):
    """LGG 16: the record of one battle, ``state.vars["lgg"]["battles"][id]`` (created by
    :func:`battle_params` with every field of the first group; the rules read it through this
    view, from :func:`rec_of`). The fields of the second group (declared with ``later``) are
    absent until the rules write them as the battle goes on; reading one while absent gives its
    default and stores nothing, ``rec.ensure(name)`` creates a list or dict one to fill in."""

    id: str = ""  # B<n>
    hex: str = ""  # the battle hex's label
    hex_i: int = 0  # its index
    kind: str = "open"  # open, assault, main, secondary, counter-offensive, ...
    attacker: str = ""
    defender: str = ""
    spec: dict[str, Any] = DICT  # the parameters of battle_params (modifiers, retreat, ...)
    turn: int = 0  # the turn index it was opened in
    activation: int | None = None  # the activation's serial
    phase: str = "new"  # the stage of the battle procedure (BattleStep), hyphenated
    round: int = 0
    units: dict[str, Any] = DICT  # unit id -> its part in the battle (role, sub, state, ...)
    subs: dict[str, Any] = DICT  # sub-battle A/B -> open, winner, flank_for, pending
    engaged: dict[str, Any] = DICT  # this round's engaged corps and artillery per sub-battle
    queue: list[Any] = LIST  # tests and decisions waiting (16.5)
    losses: dict[str, int] = DICT  # side -> losses taken
    unit_losses: dict[str, int] = DICT
    ended: bool = False
    winner: str | None = None
    loser: str | None = None
    ended_by: str = ""  # why it ended
    panic: str | None = None  # the side that panicked (16.5-B)
    bold: bool = False
    exchanges: dict[str, Any] = DICT  # sub-battle -> rounds a loss was exchanged (16.5-A)
    nations: dict[str, str] = DICT  # side -> the nation fighting
    armies: list[str] = LIST  # the attacking armies
    def_armies: list[str] = LIST
    great: bool = False  # a great battle (16.1-A)
    obstinacy: dict[str, Any] = DICT  # 16.6-C
    log: list[Any] = LIST
    budgets: dict[str, Any] = DICT  # side -> the army's PR/MUN budget for the battle
    trench_cuts: list[Any] = LIST
    aggravate: dict[str, Any] = DICT  # 37-B
    breakthrough_units: list[str] = LIST
    sub_wins: list[str] = LIST
    allied_sent: dict[str, Any] = DICT  # 16.6-B
    allied_refused: dict[str, Any] = DICT
    defender_state: str = ""
    attacker_from: list[str] = LIST  # the hexes the attackers came from
    late_split: bool = False  # round 1 fought as one sub-battle (16.1-A)
    used_art: dict[str, Any] = DICT
    tank_value: dict[str, Any] = DICT  # 39-B
    breakthrough_level: str | None = None  # 17
    breakthrough_corps: int | None = None

    # ---- written later (absent until then)
    setup: dict[str, Any] = LATER_DICT  # the dispositions of 16-A/16-B/16-C (rbc, obst_done, ...)
    table: str | None = later()  # the results table's id (36.2-A)
    flank_breakthrough: bool = later(False)  # spec's flank_breakthrough, at set-up
    round_cap: int | None = later()  # the most rounds (16.7-A)
    min_rounds: int | None = later()  # obstinacy: the fewest rounds (16.6-C)
    obstinacy_alloc: int | None = later()  # the rounds of obstinacy chosen (16.6-C)
    obstinacy_count: int = later(0)  # the rounds of obstinacy counted so far
    obstinacy_from: int = later(1)  # the first round obstinacy counts in
    committed: dict[str, list[Any]] = LATER_DICT  # army -> committed rounds (16.6-C)
    retry: list[str] = LATER_LIST  # sides whose allied reinforcement failed (16.6-B)
    offers: list[str] = LATER_LIST  # sides asked to retreat this round
    reserve_choice: dict[str, Any] = LATER_DICT  # the reserves chosen this round (16.6)
    open_during: int = later(1)  # sub-battles open during this round
    same_round_close: bool = later(False)  # two sub-battles closed in the same round
    forced_retreat: str | None = later()  # the side made to retreat (16.5-A)
    retreat_extra: int = later(0)  # extra retreat hexes (16.5-A)
    barrage_stopped: dict[str, bool] = LATER_DICT  # sub-battle -> barrage stopped (37-F)
    breakthrough_blocked: bool = later(False)  # no breakthrough from this battle (17)
    sub_losers: list[str] = LATER_LIST  # the losers of closed sub-battles
    fortress_sub: dict[str, str] = LATER_DICT  # side -> the sub-battle its fortress is in (23-G)
    cohesion_lost: dict[str, int] = LATER_DICT  # sub-battle -> cohesion lost (38)
    prep: dict[str, Any] = LATER_DICT  # the main battle's preparation (29-32)
    tank_minimum: dict[str, int] = LATER_DICT  # side -> tanks needed (39-B)
    step_d: dict[str, Any] = LATER_DICT  # round -> the tactics of step D done (37)
    history: dict[str, Any] = LATER_DICT  # "round:sub" -> what was fought (preview)
    assault_pending: dict[str, Any] = LATER_DICT  # unit -> its pending assault result (37)
    arrived: dict[str, list[Any]] = LATER_DICT  # round -> units arrived in it (16.6)
    had_superiority: bool = later(False)  # a side had superiority (18-A)
    front: str | None = later()  # the front, when not the hex's own (never written today)
    gas_terror: dict[str, Any] | None = later()  # gas terror tests pending (37-C)
    counter_offensive: str | None = later()  # the counter-offensive it started (19)


@implements("LGG 16", "LGG 16-A")
def battle_params(g: Game, **spec: Any) -> dict[str, Any]:
    """LGG 16 / 16-A: check a battle's parameters and open its record; return the ``battle`` step's
    parameters (``{"battle": id}``). See ``docs/rulesets/lgg1418.md`` for every parameter."""
    unknown = sorted(set(spec) - SPEC_KEYS)
    if unknown:
        raise ValueError(f"battle_params: unknown parameter(s) {', '.join(unknown)}")
    lab = spec.get("hex")
    if not isinstance(lab, str) or not g.board.has_label(lab):
        raise ValueError(f"battle_params: hex {lab!r} is not a hex of the map")
    att = spec.get("attacker")
    if att not in M.SIDES:
        raise ValueError(f"battle_params: attacker {att!r} is not a side")
    kind = spec.get("kind", "open")
    if kind not in KINDS:
        raise ValueError(f"battle_params: kind {kind!r} is not one of {', '.join(KINDS)}")
    tbl = spec.get("table")
    if tbl not in (None, "movement", "trench"):
        raise ValueError("battle_params: table is 'movement' or 'trench'")
    if spec.get("retreat", "immediate") not in ("immediate", "deferred", "none"):
        raise ValueError("battle_params: retreat is 'immediate', 'deferred' or 'none'")
    for key in ("free_tests", "uncounted_losses", "alternate"):
        v = spec.get(key)
        if v is not None and (not isinstance(v, list) or not set(v) <= {"attacker", "defender"}):
            raise ValueError(f"battle_params: {key} is a list of roles (attacker, defender)")
    fid = spec.get("fortress")
    if fid is not None and (
        kind != "assault" or fid not in g.state.pieces or g.state.pieces[fid].type != "fortress"
    ):
        raise ValueError(
            f"battle_params: fortress {fid!r} names no fortress (an assault's only, LGG 23-G)"
        )
    for k, m in enumerate(spec.get("modifiers") or []):
        if (
            m.get("side") not in ("attacker", "defender")
            or m.get("target") not in MOD_TARGETS
            or not isinstance(m.get("value"), int)
            or not m.get("rule")
        ):
            raise ValueError(
                f"battle_params: modifiers[{k}] needs side attacker/defender, target "
                f"{'/'.join(MOD_TARGETS)}, an integer value and a rule id"
            )
    for role in ("attacker", "defender"):
        if (
            sum(
                1
                for m in spec.get("modifiers") or []
                if m["side"] == role and m["rule"] == "LGG 16.4-B"
            )
            > 1
        ):
            raise ValueError(
                "battle_params: only one event counter per side affects a battle (LGG 16.4-B;"
                f" {role})"
            )
    for key in ("armies", "attacker_units", "defender_units"):
        v = spec.get(key)
        if v is not None and (not isinstance(v, list) or not all(isinstance(x, str) for x in v)):
            raise ValueError(f"battle_params: {key} is a list of ids")
    for uid in (spec.get("attacker_units") or []) + (spec.get("defender_units") or []):
        if uid not in g.state.pieces:
            raise ValueError(f"battle_params: no piece {uid!r}")
    if len(spec.get("armies") or []) > 2:
        raise ValueError("battle_params: at most two armies attack a hex together (LGG 16-A)")
    for key in ("before_round", "after_round"):
        name = spec.get(key)
        if name is not None and name not in g.steps:
            raise ValueError(f"battle_params: {key} names no step of the rule system ({name!r})")
    s = M.st(g)
    n = int(s.get("battle_serial", 0)) + 1
    s["battle_serial"] = n
    bid = f"B{n}"
    store = battles(g)
    now = M.turn_index(g)
    for old in [k for k, r in store.items() if r.get("turn") != now and r.get("ended")]:
        del store[old]
    act = s.get("activation")
    store[bid] = BattleRecord.new(
        id=bid,
        hex=lab,
        hex_i=g.board.idx(lab),
        kind=kind,
        attacker=att,
        defender=M.other_side(att),
        spec={k: v for k, v in spec.items() if k not in ("hex", "attacker", "kind")},
        turn=now,
        activation=act["serial"] if act else None,
        losses={M.CP: 0, M.ENTENTE: 0},
        armies=list(spec.get("armies") or []),
    )
    M.touch(g)
    return {"battle": bid}


def fight_battle_now(g: Game, **spec: Any) -> str:
    """Open a battle record and push the ``battle`` step; return the battle id."""
    params = battle_params(g, **spec)
    g.push("battle", params)
    return str(params["battle"])


# ====================================================================== set-up helpers
@implements("LGG 16-A", "LGG 16.1-A")
def determine_great(g: Game, rec: BattleRecord) -> bool:
    """LGG 16.1-A: a great battle when, in Movement Doctrine, the attacker and the defender each
    line
    up at least 4 front-line corps; in Fire Doctrine as soon as the attacker lines up 4 (reserves
    excluded). An assault is never a great battle (23-G)."""
    forced = rec.spec.get("great")
    if forced is not None:
        return bool(forced)
    if rec.kind == "assault":
        return False
    a = len(units_of(rec, rec.attacker))
    d = len(units_of(rec, rec.defender))
    if fire_procedure(g, rec):
        return a >= 4
    return a >= 4 and d >= 4


def table_id(g: Game, rec: BattleRecord) -> str:
    """LGG 36.2-A / 36.3 / 18-A / 23-G: which combat table the battle uses."""
    t = rec.spec.get("table")
    if t is None:
        if rec.kind == "counter-offensive":
            t = "movement"
        elif rec.kind == "assault":
            t = "trench"
        else:
            t = "trench" if side_doctrine(g, rec, rec.defender) in TRENCH_DEFENCE else "movement"
    return f"combat-{t}"


# ====================================================================== force differential (16.3)
def _two_digit(s: str) -> tuple[int, int, bool]:
    s = str(s).strip()
    if len(s) == 2 and s.isdigit():
        return int(s[0]), int(s[1]), True
    v = int(s or 0)
    return v, v, False


@implements("LGG 16.3-B")
def two_digit_total(g: Game, codes: list[str], rnd: int) -> tuple[int, int]:
    """LGG 16.3-B: the value of the defender's two-digit modifiers in round ``rnd`` -> (applied,
    running). A single "ab" gives a in round 1, b afterwards. Several: the sum of the left digits
    in round 1, one less each following round (down to the sum of the right digits, or to 0 under
    the option ``two-digit-floor = literal``, digest A-10); the applied bonus is at most +3 while
    the running value is kept above it so that it stays there longer."""
    pairs = [_two_digit(c) for c in codes]
    two = [(a, b) for a, b, t in pairs if t and (a or b)]
    const = sum(a for a, _b, t in pairs if not t)
    if not two:
        return const, const
    if len(two) == 1:
        a, b = two[0]
        v = a if rnd <= 1 else b
        return min(3, v) + const, v + const
    left = sum(a for a, _ in two)
    floor = sum(b for _, b in two) if g.opt("two-digit-floor") == "sum-of-right-digits" else 0
    running = max(floor, left - (rnd - 1))
    return min(3, running) + const, running + const


@implements("LGG 16.4-G")
def is_coastal(g: Game, i: int) -> bool:
    """A hex touching the sea (a sea hexside or a sea hex next to it) or holding a port."""
    if mapdata.port_size(g, i):
        return True
    for j in g.board.neighbors(i):
        if g.board.terrain_of(j) == "sea" or mapdata.has_feature(g, i, j, "sea"):
            return True
    return False


def in_mountains(g: Game, i: int) -> bool:
    return mapdata.effective_terrain(g, i) in ("mountain", "high_mountain")


def unit_army(g: Game, rec: BattleRecord, uid: str) -> str | None:
    return command_army(g, piece(g, uid)) or rec.units.get(uid, {}).get("army")


def is_bef(g: Game, p: Piece) -> bool:
    """LGG 16.4-C: the two British 83-9-4 infantry corps and the 3-3-6 cavalry."""
    return (
        p.nation == "GB"
        and p.type == "corps"
        and str(p.attrs.get("code", "")) in ("83-9-4", "3-3-6")
    )


def bef_active(g: Game) -> bool:
    """LGG 16.4-C: between August and October 1914."""
    t = M.current_turn(g)
    return t.year == 1914 and min(t.months) in (8, 9, 10)


def assault_bonus(g: Game, p: Piece, key: str) -> int:
    """LGG 38-A: the attack or defence bonus of a Stosstruppen marker on an assault corps."""
    mk = p.attrs.get("assault")
    if not mk:
        return 0
    side = "reduced" if mk == "reduced" else "full"
    return int(bdata(g)["assault_marker"][side][key])


@implements("LGG 16.4-G", "LGG 16.4-I", "LGG 38-A")
def morale(g: Game, rec: BattleRecord | None, p: Piece) -> str:
    """The morale column of a corps: printed morale, elite marines in a coastal hex (16.4-G, else
    veteran), elite Siberians (16.4-I), elite assault corps (38-A)."""
    m = str(p.attrs.get("morale", "active"))
    h = M.hex_of(g, p) if rec is None else rec.hex_i
    if M.arm(p) == "marine":
        m = "elite" if h is not None and is_coastal(g, h) else "veteran"
    if p.attrs.get("siberian"):
        snow = h is not None and mapdata.weather_in(g, h) == "snow"
        m = "elite" if snow or siberian_elite(g, p.nation) == p.id else "veteran"
    if p.attrs.get("assault"):
        m = "elite"
    return m if m in MORALES else "active"


@implements("LGG 16.4-I")
def siberian_elite(g: Game, nation: str) -> str | None:
    """LGG 16.4-I: the Siberian corps with elite morale outside snow (the owner's choice this turn,
    :class:`.battle_steps.SiberianChoice`; before any choice, the first one by id)."""
    chosen = M.st(g).get("siberian_elite", {}).get(nation)
    sib = sorted(
        q.id
        for q in g.state.pieces.values()
        if q.nation == nation
        and q.type == "corps"
        and q.attrs.get("siberian")
        and q.loc.kind != "box"
    )
    if chosen in sib:
        return str(chosen)
    return sib[0] if sib else None


@dataclass
class SideForce:
    """One side's total in a round (16.3-A) with its explanation."""

    unit: str | None
    base: int
    mods: Modifiers = field(default_factory=Modifiers)
    total: int = 1
    fire: int = 0
    halved: bool = False


@dataclass
class RoundCalc:
    """Everything that decides one round of one sub-battle."""

    attacker: SideForce
    defender: SideForce
    differential: int
    fire_shift: int
    column_mods: Modifiers
    column_index: int
    column: str
    d12: Modifiers
    d12_total: int
    cap: int
    table: str

    def explain(self) -> str:
        a, d = self.attacker, self.defender
        a_mods = "; " + a.mods.explain() if len(a.mods) else ""
        a_half = "; halved, out of supply" if a.halved else ""
        d_mods = "; " + d.mods.explain() if len(d.mods) else ""
        d_half = "; halved, out of supply" if d.halved else ""
        col_mods = ", " + self.column_mods.explain() if len(self.column_mods) else ""
        return (
            f"attacker {a.total}"
            f" ({a.base}{a_mods}{a_half})"
            f" vs defender {d.total}"
            f" ({d.base}{d_mods}{d_half}):"
            f" differential {self.differential:+d}, fire {a.fire} vs {d.fire} shift"
            f" {self.fire_shift:+d}{col_mods}"
            f" -> column {self.column}; D12 modifier {self.d12_total:+d} ({self.d12.explain()})"
        )


def _spec_mods(rec: BattleRecord, role: str, target: str, sub: str | None, rnd: int) -> Modifiers:
    out = Modifiers()
    for m in rec.spec.get("modifiers") or []:
        if m["side"] != role or m["target"] != target:
            continue
        if m.get("sub") and sub and m["sub"] != sub:
            continue
        rounds = m.get("rounds")
        if rounds and rnd not in rounds:
            continue
        v = int(m["value"])
        decay = int(m.get("decay", 0) or 0)
        if decay:
            first = min(rounds) if rounds else 1
            v = max(0, v - decay * (rnd - first)) if v > 0 else min(0, v + decay * (rnd - first))
        out.add(v, str(m["rule"]), str(m.get("reason", "modifier")))
    return out


@implements("LGG 36.1")
def french_fire(g: Game, p: Piece, i: int, front: str) -> int:
    """LGG 36.1 (France, Movement Doctrine, "le choc a outrance"): French corps fire +1 on plains,
    -1 in forest, marsh and mountain unless the printed value is 1 (option
    ``french-fire-penalty``, digest A-44); a city or locality takes its surrounding terrain."""
    if p.nation != "FR" or p.type != "corps" or not artillery.movement_doctrine(g, p.nation, front):
        return 0
    ter = mapdata.effective_terrain(g, i)
    if ter in ("plains", "floodable"):
        return 1
    if ter in ("forest", "marsh", "mountain", "high_mountain"):
        if int(p.stat("fire", 0)) == 1 and g.opt("french-fire-penalty") == "skip-if-plus-one":
            return 0
        return -1
    return 0


def defender_fortress(g: Game, rec: BattleRecord) -> Piece | None:
    for q in g.state.at_hex(rec.hex_i):
        if q.type == "fortress" and q.side == rec.defender and "neutralized" not in q.status:
            return q
    return None


@implements("LGG 23-C", "LGG 23-D")
def supporting_fortress(g: Game, rec: BattleRecord, side: str) -> Piece | None:
    """LGG 23-C / 23-D: the fortress that may support ``side`` as an artillery unit: the defender's
    fortress in an open-country battle (23-C); the relieving attacker's besieged fortress when it
    attacks the besiegers (23-D). Never a neutralised one, never in an assault (23-G)."""
    if rec.kind == "assault":
        return None
    if side == rec.defender:
        return defender_fortress(g, rec)
    f = attacker_fortress(g, rec)
    if f is None or "neutralized" in f.status or "besieged" not in f.status:
        return None
    return f


def attacker_fortress(g: Game, rec: BattleRecord) -> Piece | None:
    for q in g.state.at_hex(rec.hex_i):
        if q.type == "fortress" and q.side == rec.attacker:
            return q
    return None


def trench_level(g: Game, rec: BattleRecord, sub: str, rnd: int) -> int:
    """The defender's trench level in a sub-battle this round (28-B), after reductions (37-F,
    37-G)."""
    base = int(rec.spec.get("trench") or 0)
    cut = 0
    for c in rec.trench_cuts:
        if c["sub"] in (sub, None) and c["from"] <= rnd <= c["to"]:
            cut += int(c["n"])
    return max(0, base - cut)


def reduce_trench(g: Game, bid: str, sub: str | None, n: int, rounds: int = 1) -> None:
    """Lower the defender's trench level by ``n`` in a sub-battle (None: both) from the current (or
    next, before the first) round, for ``rounds`` rounds (37-F r2/r3, 37-G infiltration)."""
    rec = rec_of(g, bid)
    first = max(1, int(rec.round))
    rec.trench_cuts.append({"sub": sub, "n": int(n), "from": first, "to": first + rounds - 1})
    M.touch(g)


# ====================================================================== D12 (16.4)
def front_count(rec: BattleRecord, side: str) -> int:
    """Front-line corps of a side able to fight (not disorganized, not beaten in a sub-battle)."""
    return len(units_of(rec, side, states=("fit",)))


@implements("LGG 16.4-D", "LGG 16.4-E")
def superiority(g: Game, rec: BattleRecord) -> int:
    """LGG 16.4-D / 16.4-E: +1 (attacker superiority), -1 (defender superiority) or 0.

    Movement: 3 more front-line corps; in a great battle nobody has it before a sub-battle is won.
    Fire: the attacker only in a great battle, with order E or after winning a sub-battle; the
    defender whenever it has 3 more corps. Re-evaluated every round."""
    a, d = front_count(rec, rec.attacker), front_count(rec, rec.defender)
    won = [w for w in rec.sub_wins]
    if fire_procedure(g, rec):
        if d >= a + 3:
            return -1
        if (
            rec.great
            and a >= d + 3
            and (rec.spec.get("orders", {}).get("attacker") == "E" or rec.attacker in won)
        ):
            return 1
        return 0
    if rec.great and not won:
        return 0
    if a >= d + 3:
        return 1
    if d >= a + 3:
        return -1
    return 0


def _general_bonus(g: Game, rec: BattleRecord, side: str, corps: str | None) -> tuple[int, str]:
    """LGG 16.4-A: the bonus of the general of the engaged corps's army, when the battle hex is in
    its HQ's command radius."""
    if rec.spec.get("no_generals") or rec.kind == "assault" or corps is None:
        return 0, ""

    army = unit_army(g, rec, corps)
    if army is None:
        return 0, ""
    gen = army_general(g, army)
    if gen is None or not in_command_range(g, army, rec.hex_i):
        return 0, ""
    v = int(gen.stat("bonus", 0))
    cap = rec.spec.get("general_cap")
    if cap is not None:
        v = max(-int(cap), min(int(cap), v))
    return v, f"general of {army}"


@implements(
    "LGG 16.4",
    "LGG 16.4-A",
    "LGG 16.4-B",
    "LGG 16.4-C",
    "LGG 16.4-F",
    "LGG 16.4-H",
    "LGG 16.4-J",
    "LGG 7-C",
)
def d12_modifiers(
    g: Game, rec: BattleRecord, sub: str, eng: dict[str, Any] | None = None
) -> tuple[Modifiers, int, int]:
    """LGG 16.4: the net modifier of the combat D12 (attacker's point of view) -> (items, capped
    total, cap). Generals (A), events (B, as caller modifiers, one per side), BEF (C, option
    ``bef-modifier``), numerical superiority (D/E), doctrine (F), both mountain corps in mountains
    (H), snow (7-C); capped at +/-2, +/-1 in snow or with defender superiority (J)."""
    eng = eng if eng is not None else rec.engaged.get(sub, {})
    att, dfn = rec.attacker, rec.defender
    ca = eng.get(att, {}).get("corps")
    cd = eng.get(dfn, {}).get("corps")
    i = rec.hex_i
    mods = Modifiers()
    v, why = _general_bonus(g, rec, att, ca)
    if v:
        mods.add(v, "LGG 16.4-A", f"attacker {why}")
    v, why = _general_bonus(g, rec, dfn, cd)
    if v:
        mods.add(-v, "LGG 16.4-A", f"defender {why}")
    ev = {"attacker": 0, "defender": 0}
    for m in _spec_mods(rec, "attacker", "d12", sub, max(1, rec.round)):
        mods.add(m.value, m.rule, m.reason)
        ev["attacker"] += 1
    for m in _spec_mods(rec, "defender", "d12", sub, max(1, rec.round)):
        mods.add(-m.value, m.rule, f"defender: {m.reason}")
        ev["defender"] += 1
    if g.opt("bef-modifier") == "d12" and bef_active(g):
        if ca and is_bef(g, piece(g, ca)):
            mods.add(1, "LGG 16.4-C", "BEF corps attacking")
        if cd and is_bef(g, piece(g, cd)):
            mods.add(1, "LGG 16.4-C", "BEF corps defending (-1 for the defender)")
    sup = superiority(g, rec)
    if sup:
        mods.add(
            sup,
            "LGG 16.4-E" if fire_procedure(g, rec) else "LGG 16.4-D",
            "attacker numerical superiority" if sup > 0 else "defender numerical superiority",
        )
    da, dd = side_doctrine(g, rec, att), side_doctrine(g, rec, dfn)
    if da == "movement" and dd != "movement":
        pen = int(g.opt("movement-vs-fire-penalty"))
        if pen:
            mods.add(pen, "LGG 16.4-F", "Movement attacker against a defender in trench warfare")
    if da == "combined" and dd == "fire":
        bon = int(g.opt("combined-vs-fire-bonus"))
        if bon:
            mods.add(bon, "LGG 16.4-F", "Combined attacker against a Fire defender")
    sw = weather.attacker_weather_d12(g, i)
    if sw:
        mods.add(sw, "LGG 7-C", "snow")
    if (
        ca
        and cd
        and M.arm(piece(g, ca)) == "mountain"
        and M.arm(piece(g, cd)) == "mountain"
        and in_mountains(g, i)
    ):
        mods.add(-1, "LGG 16.4-H", "mountain corps on both sides: defender +1")
    cap = rec.spec.get("d12_cap")
    if cap is None:
        cap = 1 if (mapdata.weather_in(g, i) == "snow" or sup < 0) else 2
    cap = int(cap)
    raw = int(mods.total())
    total = max(-cap, min(cap, raw))
    if total != raw:
        mods.add(total - raw, "LGG 16.4-J", f"final modifier limited to +/-{cap}")
    return mods, total, cap


# ====================================================================== results
def parse_cell(cell: Any) -> tuple[str, str, bool]:
    """A combat table cell ``"A/D"`` (``!`` = bold) -> (attacker result, defender result, bold)."""
    s = str(cell).strip()
    bold = s.endswith("!")
    s = s.rstrip("!")
    a, d = s.split("/")
    if a not in RESULT_CODES or d not in RESULT_CODES:
        raise ValueError(f"bad combat table cell {cell!r}")
    return a, d, bold


def distribution(g: Game, calc: RoundCalc) -> dict[str, float]:
    """Exact probabilities of each cell of the table for a round (natural D12 1-12)."""
    tbl = table(g, calc.table)
    out: dict[str, float] = {}
    for cell, p in tbl.distribution(calc.column_index, calc.d12_total).items():
        out[str(cell)] = out.get(str(cell), 0.0) + p
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


# ====================================================================== losses and tests (16.5)
def tally(g: Game, rec: BattleRecord, uid: str, n: int) -> None:
    if n == 0:
        return
    side = rec.units[uid]["side"] if uid in rec.units else piece(g, uid).side
    role = "attacker" if side == rec.attacker else "defender"
    if role not in (
        rec.spec.get("uncounted_losses") or []
    ):  # 23-G: not the losses of an assault's defenders
        rec.losses[side] = int(rec.losses.get(side, 0)) + n
        year = M.st(g).setdefault("losses_year", {}).setdefault(str(M.current_turn(g).year), {})
        nation = piece(g, uid).nation
        year[nation] = int(year.get(nation, 0)) + n  # losses of the year (37-A)
    rec.unit_losses[uid] = int(rec.unit_losses.get(uid, 0)) + n
    if uid in rec.units:
        u = rec.units[uid]
        u["losses"] = int(u.get("losses", 0)) + n
        rk = str(rec.round)
        u.setdefault("round_losses", {})[rk] = int(u.get("round_losses", {}).get(rk, 0)) + n
    M.touch(g)


def pr_budget(g: Game, rec: BattleRecord, uid: str) -> int | None:
    """PR the unit's power may spend for it in this battle: None = its stock; 0 = nothing (9-H,
    16-D: an isolated unit spends no PR, an isolated army with its HQ has its small budget)."""

    p = piece(g, uid)
    b = rec.budgets.get(p.side)
    if b is not None and command_army(g, p) == b.get("army"):
        return min(int(b["pr"]), pr_stock(g, p.nation))
    if M.on_map(g, p) and is_isolated(g, p, "pr"):
        return 0
    return None


def can_pay_pr(g: Game, rec: BattleRecord, uid: str) -> bool:

    b = pr_budget(g, rec, uid)
    if b is not None:
        return b >= 1
    return pr_stock(g, piece(g, uid).nation) >= 1


@implements("LGG 16.5-B", "LGG 16-D")
def pay_pr(g: Game, rec: BattleRecord, uid: str, rule: str, reason: str) -> bool:
    """LGG 16.5-B / 16-D: spend 1 PR for a unit (from the isolated army's budget when there is
    one)."""

    if not can_pay_pr(g, rec, uid):
        return False
    p = piece(g, uid)
    b = rec.budgets.get(p.side)
    if b is not None and command_army(g, p) == b.get("army"):
        b["pr"] = int(b["pr"]) - 1
    add_pr(g, p.nation, -1, rule, reason)
    return True


@implements("LGG 16.5-B")
def eliminate_unit(g: Game, rec: BattleRecord | None, uid: str, reason: str, rule: str) -> None:
    """Remove a unit from play during a battle; an isolated unit destroyed counts 2 losses (16.5-A).
    An HQ left alone in its hex must retreat (handled by the retreat rules)."""

    p = piece(g, uid)
    if rec is not None and uid in rec.units:
        u = rec.units[uid]
        if M.on_map(g, p) and is_isolated(g, p, "combat"):
            have = int(u.get("losses", 0))
            if have < 2:
                tally(g, rec, uid, 2 - have)
        u["state"] = "eliminated"
        u["role"] = "gone"
    eliminate(g, p, reason, rule)


@implements("LGG 16.5-B")
def out_of_combat(g: Game, rec: BattleRecord, uid: str, rule: str) -> None:
    """LGG 16.5-B: out of combat - reduced side up, into next turn's reinforcement box; an isolated
    unit is eliminated instead."""

    p = piece(g, uid)
    if M.on_map(g, p) and is_isolated(g, p, "combat"):
        eliminate_unit(g, rec, uid, "out of combat while isolated", rule)
        return
    for q in g.state.contents(p.id):
        M.move_piece(g, q, Loc.hex(int(g.state.where(p.id).ref)))
    if "reduced" in p.faces:
        M.set_face(g, p, "reduced")
    M.move_piece(g, p, Loc.box(M.OUT_OF_COMBAT))
    u = rec.units[uid]
    u["state"] = "out"
    u["role"] = "gone"
    say(
        g,
        p.side,
        "out-of-combat",
        f"{p.id} is out of combat (back next turn, reduced)",
        f"a {p.side} corps is out of combat",
        rule=rule,
    )


def flip_reduced(g: Game, uid: str, rule: str) -> bool:
    p = piece(g, uid)
    if p.face == "reduced" or "reduced" not in p.faces:
        return False
    M.set_face(g, p, "reduced")
    say(g, p.side, "flip", f"{p.id} is reduced", f"a {p.side} corps is reduced", rule=rule)
    return True


@implements("LGG 16.5-B", "LGG 16.2-A", "LGG 9-G", "LGG 16.7-C", "LGG 28-B", "LGG 36.2-B")
def test_modifiers(
    g: Game,
    rec: BattleRecord,
    uid: str,
    *,
    reduced_hit: bool = False,
    panic: bool = False,
    away: bool = False,
    terror: bool = False,
) -> Modifiers:
    """LGG 16.5-B: modifiers of a combativeness test. Out of supply -2 (9-G); engaged again after
    the previous round (16.2-A, value in ``data/battle.toml``); a reduced unit hit by "2" -2
    (16.5-A); retreat away from supply while isolated or out of supply -3 (16.7-C); the
    defender's trench bonus +2 with the Trench Table in Fire or Combined Doctrine (28-B, not in
    panic tests) and +1 in November-December 1914 (36.2-B); caller modifiers (battle orders,
    fortress +2 of 23-G ...); a defender's gas terror test has its special bonus in place of the
    trench bonus (37-D, ``terror``)."""

    p = piece(g, uid)
    u = rec.units.get(uid, {})
    mods = Modifiers()
    s = supply_combativeness_modifier(g, p) if M.on_map(g, p) else 0
    if s:
        mods.add(s, "LGG 9-G", "out of supply")
    eng = u.get("engaged", [])
    r = int(rec.round)
    if r in eng and (r - 1) in eng and not panic and not away:
        mods.add(
            int(bdata(g)["combativeness"]["consecutive_engagement"]),
            "LGG 16.2-A",
            "engaged two rounds running",
        )
    if reduced_hit:
        mods.add(-2, "LGG 16.5-A", "already reduced when hit by a 2")
    if away:
        mods.add(-3, "LGG 16.7-C", "retreat away from supply while isolated or out of supply")
    role = "attacker" if p.side == rec.attacker else "defender"
    if role == "defender" and not away:
        doc = side_doctrine(g, rec, p.side)
        if (
            not panic
            and table_id(g, rec) == "combat-trench"
            and doc in FIRE_DOCTRINES
            and rec.kind != "counter-offensive"
            and not _in_movement(g, p)
        ):
            mods.add(2, "LGG 28-B", "defender in trench warfare")
        if doc == "transition":
            mods.add(1, "LGG 36.2-B", "defender, November-December 1914")
        if terror:
            v = int(bdata(g)["combativeness"].get("gas_terror", 0))
            if v:
                mods.add(v, "LGG 37-D", "gas terror (in place of the trench bonus)")
    if not away:
        mods.extend(_spec_mods(rec, role, "combativeness", u.get("sub"), max(1, r)))
    return mods


def _in_movement(g: Game, p: Piece) -> bool:
    """36.5-B: a Combined stack "in movement" has no trench combativeness bonus."""

    return doctrine_transitions.in_movement(g, p)


def test_table(g: Game, rec: BattleRecord, p: Piece) -> str:
    """LGG 36.2-A: units in Fire or Combined Doctrine test on the trench-warfare table, the others
    (October 1914 trenches included) on the movement-warfare table."""
    doc = doctrine.doctrine(g, p.nation, battle_front(g, rec))
    return "combativeness-trench" if doc in FIRE_DOCTRINES else "combativeness-movement"


@implements("LGG 16.5-B")
def roll_test(g: Game, rec: BattleRecord, uid: str, mods: Modifiers, reason: str) -> str:
    """LGG 16.5-B: roll a combativeness test and return its code (X, H, R, D, O, E, P)."""
    p = piece(g, uid)
    tbl = table(g, test_table(g, rec, p))
    col = morale(g, rec, p)
    r = g.roll(
        str(tbl.die),
        f"combativeness test ({reason}; {describe(g, p)}, {col})",
        "LGG 16.5-B",
        modifiers=mods,
    )
    code = str(tbl.lookup(col, r.modified).result)
    return code


def queue_test(g: Game, rec: BattleRecord, uid: str, **kw: Any) -> None:
    """Queue a combativeness test of a unit (bombardment and lull losses of 31-H and 32.2-C may use
    it)."""
    rec.queue.append({"t": "test", "unit": uid, **kw})
    M.touch(g)


def apply_losses(g: Game, uid: str, n: int, rule: str, bid: str | None = None) -> None:
    """Inflict ``n`` losses on a corps outside the combat table (bombardment, lull): the first flips
    it, any further loss on a reduced corps eliminates it; tallied in battle ``bid`` when given."""
    p = piece(g, uid)
    rec = rec_of(g, bid) if bid else None
    for _ in range(n):
        if p.loc.kind == "box":
            break
        if p.face != "reduced" and "reduced" in p.faces:
            flip_reduced(g, uid, rule)
        else:
            eliminate_unit(g, rec, uid, "losses", rule)
        if rec is not None:
            tally(g, rec, uid, 1)


# ============================================================ units of a battle (16-A, 16.2-A)
def kind_of(p: Piece) -> str:
    return {"corps": "corps", "artillery": "artillery", "tank": "tank", "fortress": "fortress"}.get(
        p.type, "other"
    )


def add_unit(
    g: Game,
    rec: BattleRecord,
    p: Piece,
    role: str = "front",
    sub: str | None = None,
    origin: str = "hex",
    joined: int = 0,
) -> None:
    frm = p.attrs.get("mv_from")
    rec.units[p.id] = {
        "side": p.side,
        "kind": kind_of(p),
        "role": role,
        "sub": sub,
        # set aside before the battle (14-A); fit again for an assault (23-C)
        "state": (
            "disorganized" if "disorganized" in p.status and rec.kind != "assault" else "fit"
        ),
        "barred": -1,
        "engaged": [],
        "losses": 0,
        "round_losses": {},
        "from": M.label(g, int(frm)) if isinstance(frm, int) and frm != rec.hex_i else None,
        "origin": origin,
        "joined": joined,
        "army": command_army(g, p),
        "face0": p.face,
    }


def engageable_corps(g: Game, rec: BattleRecord, side: str, sub: str) -> list[str]:
    """LGG 16.2-A / 16.5-B / 23-G: corps of ``side`` in ``sub`` that may be the engaged unit this
    round: not disorganized, not repulsed in the previous round; where the side's corps fight in
    turn (``alternate``: an assault's defenders, 23-G), not the one engaged in the previous round
    while another may be engaged."""
    out = []
    for uid in units_of(rec, side, sub=sub, states=("fit",)):
        u = rec.units[uid]
        if u.get("barred") == rec.round:
            continue
        out.append(uid)
    role = "attacker" if side == rec.attacker else "defender"
    if role in (rec.spec.get("alternate") or []) and len(out) > 1:
        rested = [uid for uid in out if (rec.round - 1) not in rec.units[uid].get("engaged", [])]
        out = rested or out
    return out


def open_subs(rec: BattleRecord) -> list[str]:
    return [s for s in sorted(rec.subs) if rec.subs[s].get("open")]


def test_item(uid: str, **kw: Any) -> dict[str, Any]:
    return {"t": "test", "unit": uid, "stage": "roll", **kw}


@implements("LGG 16.5-B")
def test_effect(
    g: Game, rec: BattleRecord, uid: str, it: dict[str, Any]
) -> tuple[str, dict[str, Any]] | None:
    """LGG 16.5-B: the effect of a test result (exploit, holds, repulsed, disorganized, out of
    combat, eliminated, panic); after an M the unit is then flipped unless already reduced or the
    test was an exploit."""
    p = piece(g, uid)
    u = rec.units.get(uid, {})
    code = it["code"]
    res = it.get("res")
    if it.get("away"):
        if code in ("X", "H", "R"):
            it["survives"] = True
        else:
            eliminate_unit(g, rec, uid, "destroyed retreating away from supply", "LGG 16.7-C")
        return None
    if code == "X":
        back = 1 if res in ("M", "2", "1") else 0
        if back:
            tally(g, rec, uid, -back)
        say(
            g,
            p.side,
            "exploit",
            f"{p.id} resists valiantly (exploit): one loss less",
            f"{describe(g, p)} resists valiantly (exploit)",
            rule="LGG 16.5-B",
        )
        return None
    if code == "H" or (code in ("R", "D") and it.get("keep_fit")):
        pass  # 31-H: a corps repulsed or disorganized by the bombardment stays fit for combat
    elif code == "R":
        if not it.get("terror"):
            u["barred"] = rec.round + 1
        if it.get("panic"):
            u["panic_retreat"] = 3
    elif code == "D":
        u["state"] = "disorganized"
        if it.get("panic"):
            u["panic_retreat"] = 3
    elif code == "O":
        out_of_combat(g, rec, uid, "LGG 16.5-B")
        return None
    elif code == "E":
        eliminate_unit(g, rec, uid, "combativeness test", "LGG 16.5-B")
        return None
    elif code == "P":
        return panic(g, rec, uid)
    if res == "M" and not M.is_reduced(p):
        flip_reduced(g, uid, "LGG 16.5-A")
    return None


@implements("LGG 16.5-B")
def panic(g: Game, rec: BattleRecord, uid: str) -> tuple[str, dict[str, Any]] | None:
    """LGG 16.5-B: panic - the unit is eliminated, 2 other corps of the stack test at once (no
    trench
    bonus), the battle is lost (even a great battle)."""
    p = piece(g, uid)
    side = p.side
    rec.panic = rec.panic or side
    say(
        g,
        side,
        "panic",
        f"{p.id} panics and is eliminated: the battle is lost",
        f"{describe(g, p)} panics: {side} loses the battle",
        rule="LGG 16.5-B",
    )
    eliminate_unit(g, rec, uid, "panic", "LGG 16.5-B")
    others = units_of(rec, side, roles=("front", "rear", "idle"), states=("fit", "disorganized"))
    if not others:
        return None
    if len(others) <= 2 or g.opt("panic-test-choice") == "random":
        chosen = list(others)
        while len(chosen) > 2:
            chosen.remove(
                g.choose_at_random(sorted(chosen), "corps spared by the panic tests", "LGG 16.5-B")
            )
        for o in reversed(chosen):
            rec.queue.insert(0, test_item(o, why="panic", panic=True))
        return None
    rec.queue.insert(
        0, {"t": "test", "unit": others[0], "stage": "panic-pick", "left": 2, "panic_of": uid}
    )
    return None
