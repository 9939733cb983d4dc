"""LGG 30: the great offensive - planning, launch, course, halts, victory (and 30-I, 36.5-A).

* 30: a side conducts great offensives on the French, Russian and Italian sectors only;
  option ``great-offensive-count`` (digest A-7): ``per-sector-per-year`` (default: one
  offensive per sector and year, one main battle per sector and turn) or ``per-turn`` (also
  at most one main battle per side and turn).
* 30-A: at the end of the winter interphase each side secretly writes, for each sector,
  whether it will conduct a great offensive in the coming year and, if so, the first turn it
  may start, the objective and its 2 armies (step ``great-offensive-planning``; the plans
  stay in the side's ``state.secrets`` until launched). The objective may not be attacked
  the turn before the start turn. The two armies are coordinated without a test and cannot
  change while the main battle lasts; a third may join through a coordination test (11.3).
  Armies of two nationalities: the command goes to the army with more corps, which must
  commit at least as many corps as the other. The defender may not change the army holding
  the objective, which may never counter-attack; no army of the main battle may react.
* 30-B: obligations and the end-of-year penalty (applied by :mod:`.politics`).
* 30-C: the objective (French/Italian: a hex on the front, not high mountain; Russian: a city,
  a fortress or 2 localities within 5 hexes of the front, plus 5 more hexes connected to it);
  at launch an objective already taken, encircled or out of reach is replaced by one within 3
  hexes of it (else the nearest).
* 30-D: at least 4 corps attack the objective (Russian sector, objective away from the front:
  a front hex within 5 hexes of it); the attacker alone decides, turn after turn, to go on;
  a voluntary halt is announced at the end of the turn or at the start of its next turn.
* 30-E: the panic of an attacking corps halts the offensive.
* 30-F: victory is assessed at the end of the attacker's military turn on that front (after
  the enemy's reactions): the objective is taken (our reading, digest A-27). A victorious
  offensive may go on against hexes next to its conquests or to breakthrough units; it halts
  when it loses 1 (West) or 3 (East) of its conquered hexes. A German offensive in Mother
  Russia makes Russia test its patriotic reaction (35).
* 30-H: a power that suffered a great offensive before its own began may cancel its own
  without penalty (cancelling is always possible; it then counts as "no offensive").
* 30-I: after a failed French or Franco-English offensive on the French sector, England may
  secretly decide to launch one alone within the 2 following turns.
* 36.5-A: in Combined Doctrine a great offensive needs no planning and its objective may
  change each turn; a victory no longer halts the enemy's offensive.

State: plans in ``state.secrets[side]["go-plans"]`` (a draft being written in
``go-draft``); launched offensives in ``state.vars["lgg"]["offensives"]`` (public once
launched: the attacks show them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.lgg1418 import hooks, strategic
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.map.fronts import fronts_of, sectors_of
from grognard.rulesets.lgg1418.military import activation, movement
from grognard.rulesets.lgg1418.military import doctrine_transitions as DT
from grognard.rulesets.lgg1418.military.activation import activatable
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.units.counters import army_units, command_army

if TYPE_CHECKING:
    from grognard.core.game import Game

GO_SECTORS = ("French", "Russian", "Italian")
WEST_SECTORS = ("French", "Italian")
CAPITAL_OBJECTIVES = ("Budapest", "Vienna", "Berlin", "Petrograd", "Moscow")
MOTHER_RUSSIA = ("Ukraine", "Belarus", "Estonia", "Russia")


# ====================================================================== records
def plans(g: Game, side: str) -> list[dict[str, Any]]:
    """The side's written plans (secret)."""
    return list(g.state.secrets.get(side, {}).get("go-plans", []))


def _plans_w(g: Game, side: str) -> list[dict[str, Any]]:
    return g.state.secrets.setdefault(side, {}).setdefault("go-plans", [])


def offensives(g: Game) -> dict[str, dict[str, Any]]:
    """Launched great offensives by id (public records)."""
    return M.st(g).get("offensives", {})


def active_offensives(g: Game, side: str | None = None) -> list[dict[str, Any]]:
    return [
        o
        for o in sorted(offensives(g).values(), key=lambda o: o["id"])
        if o["status"] in ("active", "victorious") and (side is None or o["side"] == side)
    ]


def sector_front(g: Game, sector: str) -> str:
    return M.data(g).sector_front(sector) or M.WEST


def _turn(g: Game, tid: str) -> int:
    return M.data(g).calendar_index(tid)


def _nations(g: Game, armies: list[str]) -> list[str]:
    return sorted({M.army_nation(g, a) for a in armies})


def _corps_of(g: Game, army: str) -> int:
    return sum(1 for p in army_units(g, army) if M.is_corps(p) and M.on_map(g, p))


@implements("LGG 30-A")
def command_of(g: Game, armies: list[str]) -> str:
    """LGG 30-A: the army in command - with two nationalities, the one with more corps (ties: the
    first named)."""
    if len(_nations(g, armies[:2])) < 2:
        return armies[0]
    return sorted(armies[:2], key=lambda a: -_corps_of(g, a))[0]


# ====================================================================== objectives (30-C)
def _own_unit_hexes(g: Game, side: str) -> set[int]:
    return {
        h
        for h, plist in M.occupied(g, side).items()
        if any(M.is_unit(p) and not M.in_reserve(p) for p in plist)
    }


def _enemy_held(g: Game, side: str, i: int) -> bool:
    return mapdata.controller(g, i) == M.other_side(side) or movement.enemy_stack_at(g, side, i)


def _in_sector(g: Game, i: int, sector: str) -> bool:
    return sector in sectors_of(g, i)


@implements("LGG 30-C")
def front_hexes(g: Game, side: str, sector: str) -> list[int]:
    """LGG 30-C: hexes "directly on the front" for ``side`` in ``sector``: held by the enemy
    (control or a stack marker - what the side can see) and next to a hex with its units; never
    high mountain."""
    own = _own_unit_hexes(g, side)
    out = []
    for i in range(g.board.n):
        if not _in_sector(g, i, sector) or not _enemy_held(g, side, i):
            continue
        if mapdata.hex_impassable(g, i) or mapdata.is_neutral_hex(g, i):
            continue
        if g.board.terrain_of(i) == "high_mountain":
            continue
        if any(j in own for j in g.board.neighbors(i)):
            out.append(i)
    return out


def _front_distance(g: Game, side: str, i: int) -> int:
    own = _own_unit_hexes(g, side)
    return min((g.board.distance(i, h) for h in own), default=99)


def _is_fortress_hex(g: Game, i: int) -> bool:
    return any(q.type == "fortress" for q in g.state.at_hex(i))


@implements("LGG 30-C")
def objective_candidates(g: Game, side: str, sector: str) -> list[list[int]]:
    """LGG 30-C: the objectives ``side`` may name in ``sector`` now.

    French or Italian sector: any hex directly on the front (not high mountain). Russian
    sector: an enemy-held city or fortress within 5 hexes of the front, or two enemy-held
    localities within 5 hexes of the front and at most 2 hexes apart (our bound)."""
    if sector in WEST_SECTORS:
        return [[i] for i in front_hexes(g, side, sector)]
    out: list[list[int]] = []
    locs = []
    for i in range(g.board.n):
        if (
            not _in_sector(g, i, sector)
            or not _enemy_held(g, side, i)
            or _front_distance(g, side, i) > 5
        ):
            continue
        if mapdata.is_city(g, i) or _is_fortress_hex(g, i):
            out.append([i])
        elif mapdata.is_locality(g, i):
            locs.append(i)
    for a, b in combinations(sorted(locs), 2):
        if g.board.distance(a, b) <= 2:
            out.append([a, b])
    return out


def objective_valid(g: Game, side: str, sector: str, hexes: list[int]) -> bool:
    return sorted(hexes) in [sorted(c) for c in objective_candidates(g, side, sector)]


@implements("LGG 30-C")
def retarget_options(g: Game, side: str, sector: str, former: list[int]) -> list[list[int]]:
    """LGG 30-C: at launch, an objective already taken, encircled or too far is replaced by one
    within 3 hexes of the former (failing that, the nearest). A still-valid objective stays."""
    cands = objective_candidates(g, side, sector)
    encircled = all(mapdata.controller(g, j) == side for h in former for j in g.board.neighbors(h))
    if sorted(former) in [sorted(c) for c in cands] and not encircled:
        return [former]
    cands = [c for c in cands if sorted(c) != sorted(former)]
    if not cands:
        return []

    def dist(c: list[int]) -> int:
        return min(g.board.distance(a, b) for a in c for b in former)

    near = [c for c in cands if dist(c) <= 3]
    if near:
        return near
    best = min(dist(c) for c in cands)
    return [c for c in cands if dist(c) == best]


# ================================================================= main-battle targets (30-D, 30-F)
def _breakthrough_unit_hexes(g: Game, side: str) -> set[int]:
    out = set()
    for h, plist in M.occupied(g, side).items():
        for p in plist:
            until = p.attrs.get("breakthrough_until")
            if "breakthrough" in p.status or (until is not None and int(until) >= M.turn_index(g)):
                out.add(h)
    return out


@implements("LGG 30-D", "LGG 30-F")
def main_battle_targets(g: Game, off: dict[str, Any]) -> list[int]:
    """LGG 30-D / 30-F: hexes the main battle of an offensive may be fought in this turn.

    Before victory: the objective; on the Russian sector, when the objective is not on the front,
    a front hex within 5 hexes of it (digest A-49, as printed). After victory: a hex next to a
    hex conquered in this offensive (connected to the objective) or next to a unit in
    breakthrough."""
    side, sector = off["side"], off["sector"]
    obj = [g.board.idx(h) for h in off["objective"]]
    fronts = set(front_hexes(g, side, sector))
    if off["status"] == "victorious":
        won = {g.board.idx(h) for h in off.get("conquered", [])} | set(obj)
        connected = _connected_to(g, won, obj)
        bases = connected | _breakthrough_unit_hexes(g, side)
        return sorted(
            i
            for i in range(g.board.n)
            if _enemy_held(g, side, i)
            and _in_sector(g, i, sector)
            and any(j in bases for j in g.board.neighbors(i))
        )
    if sector in WEST_SECTORS:
        return [i for i in obj if _enemy_held(g, side, i)]
    if any(i in fronts for i in obj):
        return [i for i in obj if i in fronts]
    return sorted(i for i in fronts if min(g.board.distance(i, o) for o in obj) <= 5)


def _connected_to(g: Game, hexes: set[int], seeds: list[int]) -> set[int]:
    seen = set()
    todo = [s for s in seeds if s in hexes]
    while todo:
        h = todo.pop()
        if h in seen:
            continue
        seen.add(h)
        todo.extend(j for j in g.board.neighbors(h) if j in hexes and j not in seen)
    return seen


# ====================================================================== planning (30-A)
def planning_sectors(g: Game, side: str) -> list[str]:
    """Sectors where ``side`` may plan: French, Russian, Italian, present on the map, where it has
    an army."""
    out = []
    for s in GO_SECTORS:
        if any(s in _army_sectors(g, a) for a in M.armies_of(g, side) if M.army_formed(g, a)):
            out.append(s)
    return out


def _army_sectors(g: Game, army: str) -> list[str]:
    h = M.army_hq_hex(g, army)
    return sectors_of(g, h) if h is not None else []


def army_pairs(g: Game, side: str, sector: str) -> list[list[str]]:
    armies = sorted(
        a for a in M.armies_of(g, side) if M.army_formed(g, a) and sector in _army_sectors(g, a)
    )
    return [list(c) for c in combinations(armies, 2)]


def year_turns(g: Game, year: int) -> list[str]:
    return [t.id for t in M.data(g).calendar if t.year == year and not t.pre_turn]


def _draft(g: Game, side: str) -> dict[str, Any]:
    """A side's plan being written (created when first written: only while applying)."""
    return g.state.secrets.setdefault(side, {}).setdefault("go-draft", {})


def _draft_r(g: Game, side: str) -> dict[str, Any]:
    return g.state.secrets.get(side, {}).get("go-draft", {})


@implements("LGG 30-A", "LGG 30-I", "LGG 36.5-A")
class GreatOffensivePlanning(LggStep):
    """LGG 30-A / 30-I / 36.5-A: each side writes its great-offensive plans in secret.

    Params: ``sides``, ``year``, ``mode`` (``winter``: one decision per sector for the coming
    year, then start turn, objective and armies; ``immediate``: one offensive on ``sector``
    starting now - Combined Doctrine 36.5-A or the English auxiliary offensive 30-I with
    ``nation``). Both sides write at the same time; nobody sees the other's draft."""

    name = "great-offensive-planning"
    title = "Great offensive plans"
    rule = "LGG 30-A"

    def label(self, g: Game, f: Frame) -> str:
        return f"Great offensive plans ({f.params.get('year')})"

    def enter(self, g: Game, f: Frame) -> None:
        for side in f.params["sides"]:
            d = _draft(g, side)
            d.clear()
            d["todo"] = list(f.params.get("sectors") or planning_sectors(g, side))
            d["stage"] = "sector" if f.params.get("mode", "winter") == "winter" else "objective"
            if d["stage"] == "objective":
                d["current"] = {"sector": d["todo"][0], "start": M.current_turn(g).id}
            d["mode"] = f.params.get("mode", "winter")
            d["nation"] = f.params.get("nation")
        M.touch(g)

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [s for s in f.params["sides"] if _draft_r(g, s).get("todo")]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        d = _draft_r(g, side)
        if not d.get("todo"):
            return []
        sector = d["todo"][0]
        stage = d["stage"]
        if stage == "sector":
            return [
                {"type": "plan-offensive", "side": side, "sector": sector},
                {"type": "no-offensive", "side": side, "sector": sector},
            ]
        if stage == "start":
            return [
                {"type": "plan-start", "side": side, "turn": t}
                for t in year_turns(g, int(f.params["year"]))
            ]
        if stage == "objective":
            out = [
                {"type": "plan-objective", "side": side, "hexes": M.labels(g, c)}
                for c in objective_candidates(g, side, sector)
            ]
            if not out or d["mode"] != "winter":
                out.append({"type": "no-offensive", "side": side, "sector": sector})
            return out
        pairs = army_pairs(g, side, sector)
        if d.get("nation"):
            pairs = [p for p in pairs if all(M.army_nation(g, a) == d["nation"] for a in p)]
        out = [{"type": "plan-armies", "side": side, "armies": p} for p in pairs]
        if not out:
            out.append({"type": "no-offensive", "side": side, "sector": sector})
        return out

    def _refuse(self, g: Game, f: Frame, action: Action) -> IllegalAction:
        d = _draft_r(g, action["side"])
        what = {
            "sector": "plan an offensive on the sector or not",
            "start": "name the first turn it may start",
            "objective": "name an objective on the front (30-C)",
            "armies": "name 2 of your armies on the sector",
        }
        return IllegalAction(
            self.rule, f"{action.get('type')!r} is not possible now: {what[d['stage']]}"
        )

    def _planning(self, g: Game, f: Frame, action: Action) -> list[Action]:
        side = action["side"]
        if side not in self.actors(g, f):
            raise IllegalAction(self.rule, f"{side} has finished its plans")
        return self.legal_actions(g, f, side)

    @handles.check("no-offensive", "plan-offensive", "plan-start")
    def check_plan(self, g: Game, f: Frame, action: Action) -> None:
        if dict(action) not in self._planning(g, f, action):
            raise self._refuse(g, f, action)

    @handles.check("plan-armies")
    def check_armies(self, g: Game, f: Frame, action: Action) -> None:
        """The two armies in any order."""
        want = sorted(action["armies"])
        if not any(sorted(a.get("armies", [])) == want for a in self._planning(g, f, action)):
            raise self._refuse(g, f, action)

    @handles.check("plan-objective")
    def check_objective(self, g: Game, f: Frame, action: Action) -> None:
        """The objective's hexes in any order."""
        want = sorted(action["hexes"])
        if not any(sorted(a.get("hexes", [])) == want for a in self._planning(g, f, action)):
            raise self._refuse(g, f, action)

    @handles.apply("no-offensive")
    def apply_no_offensive(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        d = _draft(g, side)
        sector = d["todo"][0]
        if d["mode"] == "winter":
            _plans_w(g, side).append(
                {
                    "id": f"{side}:{f.params['year']}:{sector}",
                    "side": side,
                    "sector": sector,
                    "year": int(f.params["year"]),
                    "offensive": False,
                }
            )
        self._next(g, d)
        self._written(g, f, side)

    @handles.apply("plan-offensive")
    def apply_plan_offensive(self, g: Game, f: Frame, action: Action) -> None:
        d = _draft(g, action["side"])
        d["current"] = {"sector": d["todo"][0]}
        d["stage"] = "start"
        self._written(g, f, action["side"])

    @handles.apply("plan-start")
    def apply_plan_start(self, g: Game, f: Frame, action: Action) -> None:
        d = _draft(g, action["side"])
        d["current"]["start"] = action["turn"]
        d["stage"] = "objective"
        self._written(g, f, action["side"])

    @handles.apply("plan-objective")
    def apply_plan_objective(self, g: Game, f: Frame, action: Action) -> None:
        d = _draft(g, action["side"])
        d["current"]["objective"] = list(action["hexes"])
        d["stage"] = "armies"
        self._written(g, f, action["side"])

    @handles.apply("plan-armies")
    def apply_plan_armies(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        d = _draft(g, side)
        sector = d["todo"][0]
        cur = d["current"]
        armies = list(action["armies"])
        pid = f"{side}:{f.params['year']}:{sector}"
        if d["mode"] != "winter":
            pid += f":{M.current_turn(g).id}"
        plan = {
            "id": pid,
            "side": side,
            "sector": sector,
            "year": int(f.params["year"]),
            "offensive": True,
            "start": cur["start"],
            "objective": cur["objective"],
            "armies": armies,
            "mode": d["mode"],
        }
        _plans_w(g, side)[:] = [p for p in plans(g, side) if p["id"] != pid]
        _plans_w(g, side).append(plan)
        self._next(g, d)
        self._written(g, f, side)

    def _written(self, g: Game, f: Frame, side: str) -> None:
        M.touch(g)
        g.emit(
            "plan",
            f"{side} writes its plan",
            rule=self.rule,
            visible_to=[side],
            others=f"{side} writes its plan",
        )
        if not self.actors(g, f):
            for s in f.params["sides"]:
                g.state.secrets.get(s, {}).pop("go-draft", None)
            g.emit("plans", "the great-offensive plans are written", rule=self.rule)
            g.finish(f)

    def _next(self, g: Game, d: dict[str, Any]) -> None:
        d["todo"].pop(0)
        d.pop("current", None)
        d["stage"] = "sector" if d["mode"] == "winter" else "objective"
        if d["todo"] and d["stage"] == "objective":
            d["current"] = {"sector": d["todo"][0], "start": ""}


# ====================================================================== launch and continuation
def _doctrine_allows_go(g: Game, nation: str, front: str) -> bool:
    return DT.allows(g, nation, front, "great-offensive")


def _side_front(f: Frame) -> str | None:
    return f.params.get("front")


def launchable_plans(g: Game, side: str, front: str | None) -> list[dict[str, Any]]:
    """LGG 30-A / 30-H: the side's plans it may launch now: written, not launched, start turn
    reached in its year, on this front, the doctrine allowing great offensives."""
    t = M.current_turn(g)
    launched = {o.get("plan") for o in offensives(g).values()}
    out = []
    for p in plans(g, side):
        if (
            not p.get("offensive")
            or p["id"] in launched
            or p.get("cancelled")
            or p["year"] != t.year
        ):
            continue
        if p.get("start") and _turn(g, p["start"]) > t.index:
            continue
        if front is not None and sector_front(g, p["sector"]) != front:
            continue
        if not all(
            _doctrine_allows_go(g, M.army_nation(g, a), sector_front(g, p["sector"]))
            for a in p["armies"]
        ):
            continue
        out.append(p)
    return out


def _count_allows(g: Game, side: str, sector: str) -> bool:
    """LGG 30 / 36.3 (option ``great-offensive-count``, digest A-7): ``per-sector-per-year`` - one
    offensive per sector and year (the plans) and one main battle per side and turn;
    ``per-turn`` - one main battle per sector and turn (offensives on several sectors may fight
    in the same turn)."""
    now = M.turn_index(g)
    for o in offensives(g).values():
        if o["side"] != side or now not in o.get("battle_turns", []):
            continue
        if o["sector"] == sector or g.opt("great-offensive-count") == "per-sector-per-year":
            return False
    return True


def can_launch_or_continue(g: Game, side: str, nation: str) -> bool:
    """For 36.4: ``nation`` may launch or continue a great offensive this turn."""
    for p in launchable_plans(g, side, None):
        if nation in _nations(g, p["armies"]):
            return True
    return any(nation in o["nations"] for o in active_offensives(g, side))


def _third_options(g: Game, f: Frame, side: str, armies: list[str]) -> list[str | None]:

    out: list[str | None] = [None]
    for a in activatable(g, side, _side_front(f), f.params.get("restrict")):
        if a in armies:
            continue
        try:
            movement.check_coordination(g, side, [*armies, a])
        except IllegalAction:
            continue
        out.append(a)
    return out


@implements("LGG 30", "LGG 30-A", "LGG 30-C", "LGG 30-D", "LGG 30-H", "LGG 36.5-A")
class OffensiveActions(hooks.ActivationChoiceActions):
    """LGG 30 / 30-A / 30-C / 30-D / 30-H / 36.5-A: actions of the activation choice.

    ``launch-offensive`` (a written plan whose start turn has come: its 2 armies activate
    together without a test, a third may try a coordination test; an objective gone stale is
    replaced, 30-C), ``continue-offensive`` (an offensive under way, same armies; in Combined
    Doctrine the objective may be changed), ``halt-offensive`` (a voluntary halt at the start
    of the side's turn, 30-D), ``cancel-offensive`` (30-H), ``unplanned-offensive`` (Combined
    Doctrine 36.5-A, or the English auxiliary offensive 30-I: write a plan now)."""

    def _may_activate(self, g: Game, f: Frame, side: str, armies: list[str], sector: str) -> bool:
        front = _side_front(f)
        ok = set(activation.activatable(g, side, front, f.params.get("restrict")))
        main = activation.main_army_required(g, side, front)
        return (
            set(armies) <= ok
            and not (main and main not in armies)
            and _count_allows(g, side, sector)
        )

    @handles.options("launch-offensive")
    def launch_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        front = _side_front(f)
        if front is None:
            return []
        out: list[Action] = []
        for p in launchable_plans(g, side, front):
            if not self._may_activate(g, f, side, p["armies"], p["sector"]):
                continue
            for obj in retarget_options(
                g, side, p["sector"], [g.board.idx(h) for h in p["objective"]]
            ):
                for third in _third_options(g, f, side, p["armies"]):
                    a: Action = {
                        "type": "launch-offensive",
                        "side": side,
                        "plan": p["id"],
                        "objective": M.labels(g, obj),
                    }
                    if third is not None:
                        a["third"] = third
                    out.append(a)
        return out

    @handles.options("cancel-offensive")
    def cancel_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        front = _side_front(f)
        if front is None:
            return []
        return [
            {"type": "cancel-offensive", "side": side, "plan": p["id"]}
            for p in launchable_plans(g, side, front)
        ]

    def _own_offensives(self, g: Game, f: Frame, side: str) -> list[dict[str, Any]]:
        front = _side_front(f)
        if front is None:
            return []
        return [o for o in active_offensives(g, side) if sector_front(g, o["sector"]) == front]

    @handles.options("halt-offensive")
    def halt_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        front = _side_front(f)
        if front is None or M.side_turn_state(g, side, front).done != 0:
            return []
        return [
            {"type": "halt-offensive", "side": side, "offensive": o["id"]}
            for o in self._own_offensives(g, f, side)
        ]

    @handles.options("continue-offensive")
    def continue_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        front = _side_front(f)
        out: list[Action] = []
        for o in self._own_offensives(g, f, side):
            if M.turn_index(g) in o.get("battle_turns", []) or not self._may_activate(
                g, f, side, o["armies"], o["sector"]
            ):
                continue
            objs: list[list[int]] = [[g.board.idx(h) for h in o["objective"]]]
            if (
                DT.allows(g, o["command"], front, "unplanned-great-offensive")  # type: ignore[arg-type]
                and o["status"] == "active"
            ):
                objs = [c for c in objective_candidates(g, side, o["sector"])] or objs
            for obj in objs:
                for third in _third_options(g, f, side, o["armies"]):
                    a: Action = {
                        "type": "continue-offensive",
                        "side": side,
                        "offensive": o["id"],
                        "objective": M.labels(g, obj),
                    }
                    if third is not None:
                        a["third"] = third
                    out.append(a)
        return out

    @handles.options("unplanned-offensive")
    def unplanned_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        front = _side_front(f)
        if front is None:
            return []
        return [
            {"type": "unplanned-offensive", "side": side, "sector": sector}
            for sector in unplanned_sectors(g, side, front)
        ]

    def _listed(self, options: list[Action], action: Action, rule: str, why: str) -> None:
        want = _canon(action)
        if not any(_canon(a) == want for a in options):
            raise IllegalAction(rule, why)

    @handles.check("launch-offensive")
    def check_launch(self, g: Game, f: Frame, action: Action) -> None:
        self._listed(
            self.launch_options(g, f, action["side"], None),
            action,
            "LGG 30-A",
            "a plan may be launched from its start turn on, on its front, with its 2 "
            "armies still to activate and an objective valid now (30-C)",
        )
        p = next(p for p in plans(g, action["side"]) if p["id"] == action["plan"])
        self.check_armies(g, f, action, list(p["armies"]))

    @handles.check("continue-offensive")
    def check_continue(self, g: Game, f: Frame, action: Action) -> None:
        self._listed(
            self.continue_options(g, f, action["side"], None),
            action,
            "LGG 30-D",
            "an offensive goes on once per turn with the same armies",
        )
        self.check_armies(g, f, action, list(offensives(g)[action["offensive"]]["armies"]))

    @handles.check("halt-offensive")
    def check_halt(self, g: Game, f: Frame, action: Action) -> None:
        self._listed(
            self.halt_options(g, f, action["side"], None),
            action,
            "LGG 30-D",
            "a voluntary halt is announced at the start of the side's turn (or at the "
            "end of the turn)",
        )

    @handles.check("cancel-offensive")
    def check_cancel(self, g: Game, f: Frame, action: Action) -> None:
        self._listed(
            self.cancel_options(g, f, action["side"], None),
            action,
            "LGG 30-H",
            "only a written plan not yet launched may be cancelled",
        )

    @handles.check("unplanned-offensive")
    def check_unplanned(self, g: Game, f: Frame, action: Action) -> None:
        self._listed(
            self.unplanned_options(g, f, action["side"], None),
            action,
            "LGG 36.5-A",
            "an offensive without a plan needs Combined Doctrine (36.5-A) or England's "
            "auxiliary offensive (30-I)",
        )

    @handles.apply("cancel-offensive")
    def apply_cancel(self, g: Game, f: Frame, action: Action) -> None:
        cancel_plan(g, action["side"], action["plan"])
        self.activation_chosen(g, f, action, [], {})

    @handles.apply("halt-offensive")
    def apply_halt(self, g: Game, f: Frame, action: Action) -> None:
        halt(
            g,
            offensives(g)[action["offensive"]],
            "voluntary halt at the start of the turn",
            "LGG 30-D",
        )
        self.activation_chosen(g, f, action, [], {})

    @handles.apply("unplanned-offensive")
    def apply_unplanned(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        aux = _auxiliary_due(g, side, action["sector"]) and not any(
            DT.allows(g, n, sector_front(g, action["sector"]), "unplanned-great-offensive")
            for n in M.powers_of(g, side)
            if M.is_major(g, n)
        )
        g.push(
            "great-offensive-planning",
            {
                "sides": [side],
                "year": M.current_turn(g).year,
                "mode": "auxiliary" if aux else "immediate",
                "sectors": [action["sector"]],
                "nation": "GB" if aux else None,
            },
        )
        self.activation_chosen(g, f, action, [], {})

    @handles.apply("launch-offensive")
    def apply_launch(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        p = next(p for p in plans(g, side) if p["id"] == action["plan"])
        self._go(g, f, action, launch(g, side, p, action["objective"]))

    @handles.apply("continue-offensive")
    def apply_continue(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        off = offensives(g)[action["offensive"]]
        if action["objective"] != off["objective"]:
            off["objective"] = list(action["objective"])
            g.emit(
                "objective",
                f"{side} great offensive {off['id']}: new objective {', '.join(off['objective'])}",
                rule="LGG 36.5-A",
            )
        g.emit(
            "offensive",
            f"{side} continues its great offensive on the {off['sector']} sector",
            rule="LGG 30-D",
        )
        self._go(g, f, action, off)

    def _go(self, g: Game, f: Frame, action: Action, off: dict[str, Any]) -> None:
        side = action["side"]
        armies = list(off["armies"])
        third = action.get("third")
        if third and movement.coordination_roll(g, side, [*armies, third]):
            armies.append(third)
            off["third"] = third
            sync_no_reaction(g)
        off.setdefault("battle_turns", []).append(M.turn_index(g))
        off["turns"] = len(set(off["battle_turns"]))
        if any(mapdata.weather_in(g, g.board.idx(h)) != "fair" for h in off["objective"]):
            off["fair_throughout"] = False
        M.touch(g)
        self.activation_chosen(g, f, action, armies, {"great_offensive": off["id"]})


def _canon(a: Action) -> tuple[Any, ...]:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in a.items()))


@implements("LGG 30-A", "LGG 30-C")
def launch(g: Game, side: str, plan: dict[str, Any], objective: list[str]) -> dict[str, Any]:
    """LGG 30-A / 30-C: a plan becomes an offensive under way (public from now on)."""
    armies = list(plan["armies"])
    cmd = command_of(g, armies)
    front = sector_front(g, plan["sector"])
    obj = [g.board.idx(h) for h in objective]
    defender_army = None
    for h in obj:
        for q in M.units_at_hex(g, h, M.other_side(side)):
            if M.is_corps(q):
                defender_army = command_army(g, q)
                break
    off = {
        "id": plan["id"],
        "plan": plan["id"],
        "side": side,
        "sector": plan["sector"],
        "front": front,
        "year": plan["year"],
        "objective": list(objective),
        "original_objective": list(plan["objective"]),
        "armies": armies,
        "third": None,
        "command": M.army_nation(g, cmd),
        "command_army": cmd,
        "nations": _nations(g, armies),
        "status": "active",
        "launched": M.turn_index(g),
        "turns": 0,
        "battle_turns": [],
        "conquered": [],
        "lost": [],
        "defender_army": defender_army,
        "defender_nations": (
            sorted(
                {
                    q.nation
                    for h in obj
                    for q in M.units_at_hex(g, h, M.other_side(side))
                    if M.is_corps(q)
                }
            )
            or sorted({n for h in obj if (n := mapdata.country_of(g, h))})
        ),
        "allied_defence": False,
        "breakthrough": "none",
        "cities": [],
        "panic": False,
        "control_at_launch": {
            M.label(g, i): mapdata.controller(g, i)
            for i in range(g.board.n)
            if _in_sector(g, i, plan["sector"])
        },
        "auxiliary": plan.get("mode") == "auxiliary",
    }
    offs = M.st(g).setdefault("offensives", {})
    offs[off["id"]] = off
    off = offs[off["id"]]  # the stored (tracked) copy
    sync_no_reaction(g)
    g.emit(
        "offensive",
        f"{side} launches a great offensive on the {plan['sector']} sector (objective "
        f"{', '.join(objective)})",
        rule="LGG 30-A",
        reveal=True,
        offensive=off["id"],
        objective=objective,
    )
    g.emit(
        "offensive-armies",
        f"the great offensive is conducted by {', '.join(armies)} (command: {cmd})",
        rule="LGG 30-A",
        visible_to=[side],
    )
    return off


PUBLIC_FIELDS = (
    "id",
    "side",
    "sector",
    "front",
    "year",
    "objective",
    "status",
    "launched",
    "turns",
    "victorious",
    "halted",
    "halt_reason",
    "breakthrough",
    "cities",
    "command",
)


@implements("LGG 4-A", "LGG 30-A")
def view_extra(g: Game, side: str | None) -> dict[str, Any]:
    """LGG 4-A / 30-A: the offensives under way as a side may know them: the public facts of every
    launched offensive, the armies only for the side conducting it (its plans are in its own
    secrets)."""
    out = []
    for o in sorted(offensives(g).values(), key=lambda o: o["id"]):
        rec = {k: o.get(k) for k in PUBLIC_FIELDS}
        if side == o["side"]:
            rec["armies"] = list(o["armies"])
            rec["third"] = o.get("third")
        out.append(rec)
    return {"offensives": out}


@implements("LGG 30-H")
def cancel_plan(g: Game, side: str, plan_id: str) -> None:
    """LGG 30-H: cancel a written plan (without penalty when the power has already suffered a
    great offensive; otherwise the power simply conducts none)."""
    for p in _plans_w(g, side):
        if p["id"] == plan_id:
            p["cancelled"] = M.turn_index(g)
    M.touch(g)
    g.emit(
        "cancel",
        f"{side} cancels a planned great offensive",
        rule="LGG 30-H",
        visible_to=[side],
        others=f"{side} takes a decision about its plans",
    )


@implements("LGG 30-D", "LGG 30-E", "LGG 30-F")
def halt(g: Game, off: dict[str, Any], reason: str, rule: str) -> None:
    """LGG 30-D / 30-E / 30-F: an offensive stops (its political effects come at the end of the
    turn)."""
    if off["status"] not in ("active", "victorious"):
        return
    off["failed"] = off["status"] != "victorious"
    off["status"] = "halted"
    off["halted"] = M.turn_index(g)
    off["halt_reason"] = reason
    sync_no_reaction(g)
    g.emit(
        "offensive-halt",
        f"{off['side']} great offensive on the {off['sector']} sector halts ({reason})",
        rule=rule,
        offensive=off["id"],
    )
    if (
        off["failed"]
        and off["sector"] == "French"
        and off["side"] == M.ENTENTE
        and "FR" in off["nations"]
        and not off.get("auxiliary")
        and "GB" in g.state.alignment
    ):
        M.st(g).setdefault("auxiliary_window", {})[off["id"]] = M.turn_index(g)


# ======================================================== attacks during an offensive (move checks)
def _plan_objectives_next_turn(g: Game, side: str) -> set[int]:
    nxt = M.turn_index(g) + 1
    out: set[int] = set()
    launched = {o.get("plan") for o in offensives(g).values()}
    for p in plans(g, side):
        if (
            p.get("offensive")
            and p.get("start")
            and _turn(g, p["start"]) == nxt
            and p["id"] not in launched
            and not p.get("cancelled")
        ):
            out |= {g.board.idx(h) for h in p["objective"]}
    return out


@implements("LGG 30-A", "LGG 30-D", "LGG 29", "LGG 36.4")
def offensive_attack_check(
    g: Game, act: dict[str, Any], members: list[Piece], j: int, mode: str, engage: bool
) -> None:
    """LGG 30-A / 30-D / 29 / 36.4 (a move check, from the mover's own plans):

    * the objective of an offensive starting next turn may not be attacked this turn (30-A);
    * in a great offensive's activation the armies attack only the main-battle hex of the turn,
      one hex (30-D; the armies of secondary battles differ from those of a main battle, 29),
      breakthroughs excepted;
    * the first power in Combined Doctrine commits only its national units to its main battle
      (36.4).
    """
    if not engage:
        return
    for q in members:
        a = command_army(g, q)
        if a and M.is_corps(q):
            start = q.attrs.get("mv_start", M.hex_of(g, q))
            why = counter_attack_forbidden(
                g, a, own_turn=True, from_hex=int(start) if start is not None else None
            )
            if why:
                raise IllegalAction("LGG 30-A", why)
    if j in _plan_objectives_next_turn(g, act["side"]):
        raise IllegalAction(
            "LGG 30-A",
            f"{g.board.label(j)} is the objective of a great offensive starting next turn: "
            "it may not be attacked this turn",
        )
    oid = act.get("great_offensive")
    if not oid or act.get("breakthrough"):
        return
    off = offensives(g)[oid]
    targets = main_battle_targets(g, off)
    if j not in targets:
        raise IllegalAction(
            "LGG 30-D",
            "the armies of the great offensive attack only its main-battle hex "
            f"({', '.join(M.labels(g, targets)) or 'none reachable'})",
        )
    engaged = _engaged_targets(g, act)
    if engaged and j not in engaged:
        raise IllegalAction("LGG 30-D", "a great offensive fights one main battle per turn")
    why = DT.combined_national_units_problem(g, act, members)
    if why:
        raise IllegalAction("LGG 36.4", why)


def _engaged_targets(g: Game, act: dict[str, Any]) -> set[int]:
    out = set()
    for i in range(g.board.n):
        if not movement.enemy_stack_at(g, act["side"], i):
            continue
        for p in M.occupied(g, act["side"]).get(i, []):
            if p.attrs.get("mv_act") == act["serial"] and M.is_unit(p):
                out.add(i)
    return out


def main_battle_hex(g: Game, act: dict[str, Any]) -> int | None:
    """The hex of the main battle of a great offensive's activation (None when not engaged)."""
    if not act.get("great_offensive"):
        return None
    engaged = sorted(_engaged_targets(g, act))
    return engaged[0] if engaged else None


@implements("LGG 30-D", "LGG 30-A")
def offensive_end_movement_check(g: Game, act: dict[str, Any]) -> tuple[str, str] | None:
    """LGG 30-D / 30-A: a great offensive's movement ends with at least 4 corps attacking the main
    battle hex - the commanding army with at least as many as the other nationality's. (With no
    corps engaged at all, the offensive is simply not conducted this turn.)"""
    oid = act.get("great_offensive")
    if not oid or act.get("breakthrough"):
        return None
    h = main_battle_hex(g, act)
    if h is None:
        return None
    off = offensives(g)[oid]
    corps = [
        p
        for p in M.units_at_hex(g, h, act["side"])
        if M.is_corps(p) and p.attrs.get("mv_act") == act["serial"]
    ]
    if len(corps) < 4 and _more_corps_can_join(g, act, h):
        return (
            "LGG 30-D",
            (
                f"at least 4 corps must attack the main-battle hex {g.board.label(h)} ({len(corps)}"
                " so far)"
            ),
        )
    if len(off["nations"]) > 1:
        cmd = sum(1 for p in corps if command_army(g, p) == off["command_army"])
        other = sum(
            1
            for p in corps
            if command_army(g, p) in off["armies"] and command_army(g, p) != off["command_army"]
        )
        if cmd < other:
            return (
                "LGG 30-A",
                (
                    f"the commanding army {off['command_army']} must commit at least as many corps"
                    f" as the other army ({cmd} against {other})"
                ),
            )
    return None


def _more_corps_can_join(g: Game, act: dict[str, Any], h: int) -> bool:
    """Can a corps of the offensive's armies still enter the main-battle hex now (our reading of
    30-D: the 4 corps are required while more can come; when none can, the battle is fought with
    what is there rather than leaving the activation unable to end)."""
    for p in movement.movable_units(g, act):
        i = M.hex_of(g, p)
        if not M.is_corps(p) or i is None or i == h or h not in g.board.neighbors(i):
            continue
        try:
            movement.check_move(g, act, [p], h, "normal")
        except IllegalAction:
            continue
        return True
    return False


def note_main_battle(g: Game, off: dict[str, Any], hex_index: int, result: dict[str, Any]) -> None:
    """Record a main battle's outcome in its offensive (30-E panic halt, 33 breakthrough level,
    33-B allied defence)."""
    side = off["side"]
    if result.get("panic") == side:
        off["panic"] = True
        halt(g, off, "panic of an attacking corps", "LGG 30-E")
    level = {"none": 0, "limited": 1, "major": 2}
    got = "none"
    if result.get("winner") == side:
        st = result.get("defender_state")
        got = "major" if st in ("disorder", "panic", "eliminated") else "limited"
    if level[got] > level[off.get("breakthrough", "none")]:
        off["breakthrough"] = got
    defenders = result.get("defender_nations") or []
    off["defender_nations"] = sorted(set(off.get("defender_nations", [])) | set(defenders))
    if len(set(defenders)) > 1:
        off["allied_defence"] = True
    off.setdefault("battles", []).append(
        {"turn": M.turn_index(g), "hex": g.board.label(hex_index), "winner": result.get("winner")}
    )
    M.touch(g)


# ====================================================================== victory assessment (30-F)
@implements("LGG 30-F", "LGG 30-C")
def objective_taken(g: Game, off: dict[str, Any]) -> bool:
    """LGG 30-F / 30-C: the objective counts as taken when the attacker holds it (both localities
    of a pair); on the Russian sector also 5 more hexes conquered in the offensive and connected
    to it, unless it is Budapest, Vienna, Berlin, Petrograd or Moscow; taking any other city
    there counts as taking the objective hex."""
    side = off["side"]
    obj = [g.board.idx(h) for h in off["objective"]]
    held = all(mapdata.controller(g, i) == side for i in obj)
    if off["sector"] != "Russian":
        return held
    conquered = {g.board.idx(h) for h in conquered_hexes(g, off)}
    if not held:
        cities = [i for i in conquered if mapdata.is_city(g, i)]
        if not cities:
            return False
        obj = cities[:1]
    if any(mapdata.place_name(g, i) in CAPITAL_OBJECTIVES for i in obj):
        return True
    extra = _connected_to(g, conquered | set(obj), obj) - set(obj)
    return len(extra) >= 5


def conquered_hexes(g: Game, off: dict[str, Any]) -> list[str]:
    """Hexes of the sector held by the attacker now that it did not hold at launch."""
    side = off["side"]
    out = []
    for lab, before in off.get("control_at_launch", {}).items():
        i = g.board.idx(lab)
        if before != side and mapdata.controller(g, i) == side:
            out.append(lab)
    return sorted(out)


@implements("LGG 30-F")
def assess(g: Game, side: str, front: str) -> None:
    """LGG 30-F: at the end of ``side``'s military turn on ``front`` (after the enemy reactions),
    assess its offensives: a first victory, conquests lost (halt), patriotic reaction due."""
    for off in active_offensives(g, side):
        if off["front"] != front:
            continue
        now = conquered_hexes(g, off)
        lost = sorted(set(off.get("conquered", [])) - set(now))
        off["conquered"] = sorted(set(off.get("conquered", [])) | set(now))
        off["cities"] = sorted(
            {
                h
                for h in off["conquered"]
                if mapdata.is_city(g, g.board.idx(h))
                and mapdata.controller(g, g.board.idx(h)) == side
            }
        )
        if (
            off["status"] == "active"
            and M.turn_index(g) in off.get("battle_turns", [])
            and objective_taken(g, off)
        ):
            off["status"] = "victorious"
            off["victorious"] = M.turn_index(g)
            off["vn_due"] = M.turn_index(g)
            g.emit(
                "offensive-victory",
                f"{side} great offensive on the {off['sector']} sector is victorious",
                rule="LGG 30-F",
                offensive=off["id"],
            )
            _halt_enemy_offensives(g, off)
            _mother_russia_test(g, off)
        elif off["status"] == "victorious":
            off["lost"] = sorted(set(off.get("lost", [])) | set(lost))
            limit = 1 if front == M.WEST else 3
            if len(off["lost"]) >= limit:
                halt(g, off, f"lost {len(off['lost'])} conquered hex(es)", "LGG 30-F")
            elif off["sector"] == "Russian" and len(off["cities"]) > len(
                off.get("cities_paid", [])
            ):
                off["vn_due"] = M.turn_index(g)
    M.touch(g)


def _halt_enemy_offensives(g: Game, off: dict[str, Any]) -> None:
    """36.5-A read backwards: in Fire Doctrine the success of a great offensive halts the enemy's
    offensive on the same front; in Combined Doctrine it no longer does."""
    if DT.doctrine_of(g, off["command"], off["front"]) == DT.COMBINED:
        return
    for o in active_offensives(g, M.other_side(off["side"])):
        if o["front"] == off["front"]:
            halt(g, o, "the enemy's great offensive succeeded", "LGG 36.5-A")


@implements("LGG 30-F")
def in_mother_russia(g: Game, i: int) -> bool:
    """LGG 30-F: Ukraine, Belarus, Estonia, Russia and beyond (an area of kind ``region`` named so,
    else Russian territory); not Poland, Lithuania, Latvia, Finland, Moldavia, Georgia, Armenia,
    the Caucasus or Azerbaijan (option ``mother-russia-list``)."""
    regions = [a.name for a in g.board.areas_of(i, "region")] if "region" in _area_kinds(g) else []
    if regions:
        return any(r in MOTHER_RUSSIA for r in regions)
    return mapdata.country_of(g, i) == "RU"


def _area_kinds(g: Game) -> set[str]:
    return {a.kind for a in g.board.areas.values()}


def _mother_russia_test(g: Game, off: dict[str, Any]) -> None:
    if off["command"] != "DE" or "RU" not in g.state.alignment:
        return
    if any(in_mother_russia(g, g.board.idx(h)) for h in off["objective"]):
        strategic.queue_patriotic(g, "RU", "German great offensive in Mother Russia", "LGG 30-F")


@implements("LGG 30-F")
class EndOfMilitaryTurn(Step):
    """LGG 30-F: hook ``end-of-military-turn`` - when a side has ended its military turn on a front
    (the enemy's reactions included), its great offensives there are assessed."""

    name = hooks.END_OF_MILITARY_TURN
    title = "End of the military turn"
    rule = "LGG 30-F"

    def run(self, g: Game, f: Frame) -> None:
        assess(g, f.params["side"], f.params["front"])
        g.finish(f)


# ============================================================ voluntary halt at the end of the turn
@implements("LGG 30-D")
class OffensiveHaltDecision(LggStep):
    """LGG 30-D: at the end of the turn (the VN adjustments) each side with an offensive under way
    announces whether it halts it; an offensive under way at the end of November-December stops
    with the year."""

    name = "offensive-halt-decision"
    title = "Great offensives: go on or halt"
    rule = "LGG 30-D"

    def _pending(self, g: Game, f: Frame, side: str) -> list[dict[str, Any]]:
        done = set(f.params.get("decided", []))
        return [o for o in active_offensives(g, side) if o["id"] not in done]

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [s for s in M.SIDES if self._pending(g, f, s)]

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    @handles.options("go-on")
    def go_on_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [
            {"type": "go-on", "side": side, "offensive": o["id"]}
            for o in self._pending(g, f, side)[:1]
        ]

    @handles.options("halt-offensive")
    def halt_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [
            {"type": "halt-offensive", "side": side, "offensive": o["id"]}
            for o in self._pending(g, f, side)[:1]
        ]

    @handles.apply("halt-offensive")
    def apply_halt(self, g: Game, f: Frame, action: Action) -> None:
        off = offensives(g)[action["offensive"]]
        f.params.setdefault("decided", []).append(off["id"])
        halt(g, off, "voluntary halt at the end of the turn", "LGG 30-D")
        self._decided(g, f)

    @handles.apply("go-on")
    def apply_go_on(self, g: Game, f: Frame, action: Action) -> None:
        off = offensives(g)[action["offensive"]]
        f.params.setdefault("decided", []).append(off["id"])
        g.emit(
            "offensive",
            f"{off['side']} goes on with its great offensive on the {off['sector']} sector",
            rule="LGG 30-D",
        )
        self._decided(g, f)

    def _decided(self, g: Game, f: Frame) -> None:
        if not self.actors(g, f):
            g.finish(f)


@implements("LGG 30-D")
def year_end(g: Game) -> None:
    """The offensives still under way at the end of November-December stop with the year (the
    deadline of 34-A); one never victorious has failed."""
    if 11 not in M.current_turn(g).months:
        return
    for off in active_offensives(g):
        halt(g, off, "end of the year", "LGG 30-D")


# ================================================================= 30-I English auxiliary offensive
def _auxiliary_due(g: Game, side: str, sector: str) -> bool:
    if side != M.ENTENTE or sector != "French" or "GB" not in g.state.alignment:
        return False
    now = M.turn_index(g)
    for oid, when in M.st(g).get("auxiliary_window", {}).items():
        dec = g.state.secrets.get(side, {}).get("auxiliary", {}).get(oid)
        if dec == "launch" and when < now <= int(when) + 2:
            return True
    return False


def unplanned_sectors(g: Game, side: str, front: str) -> list[str]:
    """Sectors where ``side`` may write an offensive now: Combined Doctrine (36.5-A) or England's
    auxiliary offensive (30-I) - one per sector, none already under way or written there."""
    out = []
    year = M.current_turn(g).year
    for sector in GO_SECTORS:
        if sector_front(g, sector) != front or sector not in planning_sectors(g, side):
            continue
        if any(o["sector"] == sector for o in active_offensives(g, side)):
            continue
        if any(
            p["sector"] == sector
            and p.get("offensive")
            and not p.get("cancelled")
            and p["year"] == year
            and p.get("mode") != "winter"
            and p["id"] not in {o.get("plan") for o in offensives(g).values()}
            for p in plans(g, side)
        ):
            continue
        combined = any(
            DT.allows(g, n, front, "unplanned-great-offensive")
            for n in M.powers_of(g, side)
            if M.is_major(g, n)
        )
        if combined or _auxiliary_due(g, side, sector):
            out.append(sector)
    return out


@implements("LGG 30-I")
class AuxiliaryDecision(LggStep):
    """LGG 30-I: at the halt of a failed French or Franco-English offensive on the French sector,
    the Entente secretly decides whether England launches one alone within the 2 following
    turns."""

    name = "auxiliary-offensive-decision"
    title = "English auxiliary offensive"
    rule = "LGG 30-I"

    def _pending(self, g: Game) -> list[str]:
        done = g.state.secrets.get(M.ENTENTE, {}).get("auxiliary", {})
        return [oid for oid in sorted(M.st(g).get("auxiliary_window", {})) if oid not in done]

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [M.ENTENTE] if self._pending(g) and _english_armies_on(g, "French") else []

    def run(self, g: Game, f: Frame) -> None:
        for oid in self._pending(g):
            g.state.secrets.setdefault(M.ENTENTE, {}).setdefault("auxiliary", {})[oid] = "no"
        g.finish(f)

    @handles.options("auxiliary")
    def auxiliary_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        oid = self._pending(g)[0]
        return [
            {"type": "auxiliary", "side": side, "offensive": oid, "launch": v}
            for v in (True, False)
        ]

    @handles.apply("auxiliary")
    def apply_auxiliary(self, g: Game, f: Frame, action: Action) -> None:
        g.state.secrets.setdefault(M.ENTENTE, {}).setdefault("auxiliary", {})[
            action["offensive"]
        ] = "launch" if action["launch"] else "no"
        M.touch(g)
        g.emit(
            "auxiliary",
            "the Entente takes a secret decision about an English offensive",
            rule=self.rule,
        )
        if not self._pending(g):
            g.finish(f)


def _english_armies_on(g: Game, sector: str) -> bool:
    return any(
        M.army_nation(g, a) == "GB" and sector in _army_sectors(g, a)
        for a in M.armies_of(g, M.ENTENTE)
    )


# ======================================================== reactions, counter-attacks (30-A, 36.5-A)
@implements("LGG 30-A", "LGG 36.5-A")
def reaction_forbidden(g: Game, army: str) -> str | None:
    """LGG 30-A / 36.5-A: why an army may not react in the opponent's turn: an army of a main battle
    under way (attacker or defender of the objective) may not; in Combined Doctrine an army that
    attacked in its own turn may be neither reactivated nor have its units commanded."""
    for off in active_offensives(g):
        if army in off["armies"] or army == off.get("third") or army == off.get("defender_army"):
            return "no army of a great offensive's main battle (attacker or defender) may react"
    nation = M.army_nation(g, army)
    front = (
        (fronts_of(g, M.army_hq_hex(g, army)) or [M.WEST])[0]  # type: ignore[arg-type]
        if M.army_hq_hex(g, army) is not None
        else M.WEST
    )
    if DT.doctrine_of(g, nation, front) == DT.COMBINED:
        mk = g.state.markers.get("battle", {})
        for v in mk.values():
            if (
                isinstance(v, dict)
                and v.get("turn") == M.turn_index(g)
                and army in (v.get("coordinated") or [])
                and v.get("side") == M.army_side(g, army)
            ):
                return (
                    "in Combined Doctrine an army that attacked in its own turn may not be"
                    " reactivated in a reaction"
                )
    return None


@implements("LGG 30-A", "LGG 36.5-A")
def counter_attack_forbidden(
    g: Game, army: str, own_turn: bool = False, from_hex: int | None = None
) -> str | None:
    """LGG 30-A / 36.5-A: the army defending a great offensive's objective may never counter-attack
    (our reading: it attacks nobody while the offensive lasts) - except, in Combined Doctrine, on
    its own turn from the hex attacked."""
    for off in active_offensives(g):
        if off["side"] == M.army_side(g, army) or army != off.get("defender_army"):
            continue
        if (
            own_turn
            and DT.doctrine_of(g, M.army_nation(g, army), off["front"]) == DT.COMBINED
            and (from_hex is None or g.board.label(from_hex) in off["objective"])
        ):
            return None
        return "the army defending a great offensive's objective may never counter-attack"
    return None


@implements("LGG 30-A")
def sync_no_reaction(g: Game) -> None:
    """LGG 30-A: list the armies of the main battles under way (attackers and the defending army)
    in ``st["no_reaction"]``, which the reaction rules (20) read; the entries of offensives that
    ended are removed."""
    bar = M.st(g).setdefault("no_reaction", {})
    for a in [a for a, why in bar.items() if str(why).startswith("LGG 30-A")]:
        del bar[a]
    for off in active_offensives(g):
        for a in [*off["armies"], off.get("third"), off.get("defender_army")]:
            if a:
                bar[a] = "LGG 30-A: an army of a great offensive's main battle may not react"
    M.touch(g)


def defender_army_locked(g: Game, army: str, hex_index: int) -> str | None:
    """LGG 30-A: the defender may not change the army defending the objective hex (units of
    another army may not join that hex)."""
    lab = g.board.label(hex_index)
    for off in active_offensives(g):
        if lab in off["objective"] and off.get("defender_army") and army != off["defender_army"]:
            return (
                f"the army {off['defender_army']} defends the objective {lab} and may not be"
                " changed"
            )
    return None


# ====================================================================== the interphase
# : Extra children of the interphase procedures: callables ``(g, interphase name) -> [(step,
# params)]``
#: (later rules - tactics targets of 37-A, political actions of 40 - may register theirs).
INTERPHASE_CHILDREN: list[Callable[[Game, str], list[tuple[str, dict[str, Any]]]]] = []


@implements("LGG 30-A", "LGG 26")
class InterphaseProcedures(Step):
    """LGG 26 / 30-A: the procedures of an interphase; at the end of the winter interphase, the
    great-offensive plans of the coming year (both sides, in secret; not in Combined Doctrine,
    where no planning is needed, 36.5-A)."""

    name = hooks.INTERPHASE_PROCEDURES
    title = "Interphase procedures"
    rule = "LGG 26"
    composite = True

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        kids: list[tuple[str, dict[str, Any]]] = []
        for fn in INTERPHASE_CHILDREN:
            kids.extend(fn(g, f.params["name"]))
        if f.params["name"] == "winter":
            year = M.current_turn(g).year + 1
            sides = [s for s in M.SIDES if planning_sectors(g, s) and _plans_needed(g, s, year)]
            if sides:
                kids.append(
                    ("great-offensive-planning", {"sides": sides, "year": year, "mode": "winter"})
                )
        i = int(f.params.get("_i", 0))
        if i >= len(kids):
            return None
        f.params["_i"] = i + 1
        return kids[i]


def _plans_needed(g: Game, side: str, year: int) -> bool:
    """Plans are written for 1915 on, when the scenario goes on into that year."""
    if year < 1915 or M.data(g).turn_by_id(M.rules(g).last_turn).year < year:
        return False
    if M.st(g).get("combined_from") is not None:
        return False
    return not any(p["year"] == year for p in plans(g, side))


STEPS: tuple[type[Step], ...] = (
    GreatOffensivePlanning,
    OffensiveHaltDecision,
    AuxiliaryDecision,
    InterphaseProcedures,
    EndOfMilitaryTurn,
)


# ====================================================================== 36.4 combined arms test
def combined_candidates(g: Game, side: str) -> list[str]:
    """Major powers ``side`` may name for the test this turn (36.4): from 1916, one test per side
    per turn, nobody yet in Combined Doctrine, and the power must launch or continue a great
    offensive this turn (planned for now or already under way)."""
    if M.current_turn(g).year < 1916 or M.st(g).get("combined_first"):
        return []
    if M.st(g).get("combined_tested", {}).get(side) == M.turn_index(g):
        return []
    out = []
    for n in M.powers_of(g, side):
        if not M.is_major(g, n):
            continue
        if can_launch_or_continue(g, side, n):
            out.append(n)
    return out


@implements("LGG 36.4")
class CombinedTestActions(hooks.ReinforcementActions):
    """LGG 36.4: the ``combined-test`` action of the reinforcement phase (a handler of the
    reinforcement step, combined with it in :mod:`.ruleset`)."""

    @handles.options("combined-test")
    def combined_test_options(
        self, g: Game, f: Frame, side: str, actor: str | None
    ) -> list[Action]:
        return [
            {"type": "combined-test", "side": side, "power": n}
            for n in combined_candidates(g, side)
        ]

    @handles.check("combined-test")
    def check_combined_test(self, g: Game, f: Frame, action: Action) -> None:
        self.check_phase(g, f, action)
        if action.get("power") not in combined_candidates(g, action["side"]):
            raise IllegalAction(
                "LGG 36.4",
                "from 1916 a side may name, once per turn, one of its major powers that "
                "launches or continues a great offensive this turn, while nobody is in Combined "
                "Doctrine yet",
            )

    @handles.apply("combined-test")
    def apply_combined_test(self, g: Game, f: Frame, action: Action) -> None:
        DT.combined_test(g, action["side"], action["power"])
