"""OT 6F: overruns -- the general procedure (6F1), retreat before overrun (6F2) and same-hex
overruns (6F3).

``{"type": "overrun", "side", "pieces": [...], "target": hex, "advance": [...]}``: the units,
gathered in one hex next to the target (or in the target hex itself, OT 6F3), overrun it; those
listed in ``advance`` move into the hex afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar import intelligence, listing
from grognard.rulesets.greatwar.charts import load_charts
from grognard.rulesets.greatwar.combat import retreat
from grognard.rulesets.greatwar.combat.combat_strength import (
    REQUIRED_ODDS,
    overrun_odds,
)
from grognard.rulesets.greatwar.logistics import replacements
from grognard.rulesets.greatwar.map import zoc
from grognard.rulesets.greatwar.map.weather import weather_at
from grognard.rulesets.greatwar.mechanics import table_roll
from grognard.rulesets.greatwar.movement import stacking
from grognard.rulesets.greatwar.movement.movement import (
    RESERVE,
    can_move_now,
    context,
    current_move_frame,
    mode_of,
    record,
    remaining,
    step,
    zoc_exit_cost,
)
from grognard.rulesets.greatwar.step import GWStep
from grognard.rulesets.greatwar.units import nations, special_units, units

if TYPE_CHECKING:
    from grognard.core.game import Game


@implements("OT 6F1")
def overrun_mp_cost(g: Game, p: Piece) -> Fraction:
    """OT 6F1: the Overrun Movement Costs Table (cavalry, fast c/m, light, infantry and irregular
    units pay the reduced cost)."""
    ch = load_charts(g.scenario.table_overrides).overrun_costs.body
    tags = special_units.movement_tags(g, p)
    return Fraction(
        str(ch["reduced_cost"] if tags & set(ch["reduced_cost_tags"]) else ch["standard"])
    )


@dataclass
class OverrunPlan:
    pieces: list[Piece]
    source: int
    target: int
    costs: dict[str, Fraction]
    advance: list[str]
    odds: tuple[int, int, int]
    same_hex: bool


def _defenders(g: Game, side: str, target: int) -> list[Piece]:
    enemy = nations.other_side(side)
    return units.units_in_hex(g, target, enemy)


@implements("OT 6F1", "OT 6F3", "OT 8B", "OT 8C2")
def plan_overrun(g: Game, f: Frame, action: Action, fresh: bool = False) -> OverrunPlan:
    """Check an overrun against OT 6F1/6F3; raise :class:`IllegalAction` naming the rule."""

    side = action["side"]
    kind = f.params.get("kind")
    if kind == RESERVE:
        raise IllegalAction("OT 6C", "no overruns in reserve commitment movement")
    ids = action.get("pieces")
    if not isinstance(ids, list) or not ids:
        raise IllegalAction("OT 6F1", "name the overrunning units in 'pieces'")
    pieces = []
    for pid in ids:
        p = g.state.pieces.get(pid) if isinstance(pid, str) else None
        if p is None or p.side != side:
            raise IllegalAction("OT 6F1", f"{side} has no unit {pid!r}")
        why = can_move_now(g, f, p)
        if why:
            raise IllegalAction("OT 6F1", why)
        if stacking.OVERSTACKED in p.status:
            raise IllegalAction("OT 8C2", f"{p.id} is overstacked and may not overrun")
        if mode_of(f, p) == "accel":
            raise IllegalAction(
                "OT 6B3", f"{p.id} uses accelerated movement: it may not spend MPs on an overrun"
            )
        if units.printed_attack(p) <= 0 and units.printed_defense(p) <= 0:
            raise IllegalAction("OT 6F1", f"{p.id} has no combat strength")
        pieces.append(p)
    if len({p.id for p in pieces}) != len(pieces):
        raise IllegalAction("OT 6F1", "a unit is listed twice")
    sources = {units.hex_of(g, p) for p in pieces}
    if len(sources) != 1:
        raise IllegalAction("OT 6F1", "overrunning units must all be in one hex")
    source = sources.pop()
    assert source is not None
    t = action.get("target")
    if not isinstance(t, str) or not g.board.has_label(t):
        raise IllegalAction("OT 6F1", f"no hex {t!r} on the map")
    target = g.board.idx(t)
    same_hex = target == source
    if not same_hex and target not in g.board.neighbors(source):
        raise IllegalAction("OT 6F1", "the overrunning units must be next to the hex they overrun")
    defenders = _defenders(g, side, target)
    if not defenders:
        raise IllegalAction("OT 6F1", f"there are no enemy units in {t}")
    if not nations.may_enter_command(g, side, target):
        raise IllegalAction("OT 3F", f"{t} is outside the commands {side} controls")
    if not stacking.attack_stack_ok(g, pieces, target):
        raise IllegalAction(
            "OT 8B", f"more units than the stacking limit of {t} may not overrun it from one hex"
        )
    costs: dict[str, Fraction] = {}
    if not same_hex:
        exclude = {p.id for p in defenders}
        ctx = context(g, side, f.params.get("kind", "movement"), exclude=exclude)
        for p in pieces:
            info = step(ctx, p, source, target)
            if info.cost is None:
                raise IllegalAction("OT 6F1", f"{p.id} cannot enter {t}: {info.why}")
            need = info.cost + zoc_exit_cost(ctx, p, source) + overrun_mp_cost(g, p)
            if need > remaining(g, f, p):
                raise IllegalAction(
                    "OT 6F1", f"{p.id} needs {need} MP to overrun {t} and has {remaining(g, f, p)}"
                )
            costs[p.id] = need
    else:
        costs = {p.id: Fraction(0) for p in pieces}
    odds = overrun_odds(g, pieces, defenders, target)

    if odds[2] < REQUIRED_ODDS and not intelligence.unknown_corps_in(
        g, side, target
    ):  # OT 14N2: compared in secret
        raise IllegalAction(
            "OT 6F1",
            f"overrun odds are {odds[0]}:1 shifted {odds[1]:+d} to {odds[2]}:1; 10:1 is needed",
        )
    adv = action.get("advance", [])
    if not isinstance(adv, list) or any(a not in ids for a in adv):
        raise IllegalAction("OT 6F1", "'advance' lists overrunning units that move into the hex")
    if adv and not same_hex:
        movers = [p for p in pieces if p.id in adv]
        if stacking.stack_problem(
            g, target, side, extra=movers, without={p.id for p in defenders}
        ) is not None and not (
            g.opt("overstacking") and stacking.has_corps_hq(g, target, side, movers)
        ):
            raise IllegalAction("OT 8B", f"advancing into {t} would exceed its stacking limit")
    return OverrunPlan(pieces, source, target, costs, list(adv), odds, same_hex)


def retreat_before_combat_eligible(g: Game, p: Piece) -> bool:
    """Units that may retreat before an overrun (OT 6F2, with the list of OT 9I): c/m and cavalry
    units with printed MA 7 or 8, irregular units, and over-snow units with MA 7 or 8 in snow."""
    ma = units.printed_ma_number(p)
    tags = special_units.movement_tags(g, p)
    if (units.is_cm(p) or "cavalry" in tags) and ma in (7, 8):
        return True
    if "irregular" in tags:
        return True
    h = units.hex_of(g, p)
    return "over-snow" in tags and ma in (7, 8) and h is not None and weather_at(g, h) == "snow"


@implements("OT 6F2")
def start_overrun(g: Game, f: Frame, action: Action) -> None:
    """Announce an overrun: if defenders may retreat before it (OT 6F2), the owner first decides
    and rolls; then the overrun is resolved."""

    plan = plan_overrun(g, f, action, fresh=True)
    if intelligence.unknown_corps_in(g, action["side"], plan.target):
        g.emit(
            "overrun",
            f"{action['side']} announces an overrun of {g.board.label(plan.target)} by"
            f" {', '.join(p.id for p in plan.pieces)}",
            rule="OT 14N2",
        )
        if not intelligence.secret_overrun_check(g, action["side"], plan.target, plan.odds[2]):
            for p in plan.pieces:
                record(f, p, g)["done"] = True
            return
    params: dict[str, Any] = {
        "side": nations.other_side(action["side"]),
        "attacker": action["side"],
        "pieces": [p.id for p in plan.pieces],
        "target": g.board.label(plan.target),
        "advance": plan.advance,
        "tried": [],
    }
    g.emit(
        "overrun",
        f"{action['side']} announces an overrun of {g.board.label(plan.target)} by"
        f" {', '.join(p.id for p in plan.pieces)} at {plan.odds[2]}:1",
        rule="OT 6F1",
    )
    eligible = [
        p.id
        for p in _defenders(g, action["side"], plan.target)
        if retreat_before_combat_eligible(g, p)
    ]
    if eligible and not plan.same_hex:
        params["eligible"] = eligible
        g.push("retreat-before-overrun", params)
    else:
        resolve_overrun(g, f, params)


@implements("OT 6F1", "OT 6F3")
def resolve_overrun(g: Game, f: Frame, params: dict[str, Any]) -> None:
    """OT 6F1: the units overrun lose their ZOC at once; every overrunning unit pays terrain, ZOC
    (for enemy units other than those overrun) and overrun MPs; every unit in the hex is
    eliminated (cadres, remnants and overstacked units too); the listed units advance. If every
    unit escaped by retreat before overrun, the overrunning units pay nothing (OT 6F2). Same-hex
    overruns pay no MPs (OT 6F3)."""

    side = params["attacker"]
    target = g.board.idx(params["target"])
    pieces = [g.state.pieces[pid] for pid in params["pieces"]]
    defenders = _defenders(g, side, target)
    if not defenders:
        g.emit(
            "overrun",
            f"every unit in {params['target']} escaped: the overrun costs nothing",
            rule="OT 6F2",
        )
        return
    base, shift, final = overrun_odds(g, pieces, defenders, target)
    if final < REQUIRED_ODDS:
        g.emit(
            "overrun",
            f"after the retreats the overrun of {params['target']} is only {final}:1 and does not"
            " take place",
            rule="OT 6F2",
        )
        return
    source = units.hex_of(g, pieces[0])
    same_hex = source == target
    costs: dict[str, Fraction] = {}
    if not same_hex:
        ctx = context(g, side, f.params.get("kind", "movement"), exclude={p.id for p in defenders})
        for p in pieces:
            info = step(ctx, p, int(source), target)  # type: ignore[arg-type]
            costs[p.id] = (
                (info.cost or Fraction(0))
                + zoc_exit_cost(ctx, p, int(source))  # type: ignore[arg-type]
                + overrun_mp_cost(g, p)
            )
    for d in defenders:
        d.status.add(zoc.NO_ZOC)
    for d in sorted(defenders, key=lambda q: q.id):
        d.status.discard(zoc.NO_ZOC)
        units.eliminate(g, d, "OT 6F1", f"overrun at {final}:1")
    for p in pieces:
        rec = record(f, p, g)
        rec["spent"] = Fraction(rec["spent"]) + costs.get(p.id, Fraction(0))
        rec["moved"] = True
    adv = [g.state.pieces[a] for a in params.get("advance", [])]
    for p in adv:
        if not same_hex:
            g.state.move(p.id, Loc.hex(target))
    if adv and not same_hex:
        stacking.after_arrival(g, adv, target)
    zoc.update_ownership(g)
    g.emit(
        "overrun",
        f"{', '.join(p.id for p in pieces)} overrun {params['target']} at {base}:1 ({shift:+d}"
        f" fatigue) = {final}:1",
        rule="OT 6F1",
        target=params["target"],
        odds=final,
        advance=[p.id for p in adv],
    )


def overrun_actions(g: Game, f: Frame, side: str) -> list[Action]:
    """OT 6F1: the overruns open to ``side`` now: for each hex of its units next to (or holding)
    enemy units, the largest group of its units there that may take part."""

    enemy = nations.other_side(side)
    by_hex: dict[int, list[Piece]] = {}
    for p in units.on_map_units(g, side):
        h = units.hex_of(g, p)
        if h is not None:
            by_hex.setdefault(h, []).append(p)
    frame_sig = (f.step, side, repr(sorted((k, v) for k, v in f.params.items() if k != "units")))
    records = f.params.get("units", {})
    listing_now = listing.listing_now(g)
    world = listing.world_token(g) if listing_now else None
    out: list[Action] = []
    for h, ps in sorted(by_hex.items()):
        if not listing_now:
            out.extend(_overruns_of_hex(g, f, side, enemy, h, ps, frame_sig))
            continue
        # the overruns out of a hex read the pieces and owners within two hexes, the units'
        # records and the world: kept across actions while none of those changes
        hit = listing.tracked(
            g,
            (
                "gw:overruns",
                frame_sig,
                h,
                tuple((p.id, repr(records.get(p.id))) for p in ps),
                world,
            ),
            listing.within2_deps(g, h),
            lambda h=h, ps=ps: _overruns_of_hex(g, f, side, enemy, h, ps, frame_sig),  # type: ignore[misc]
        )
        out.extend(dict(a) for a in hit)
    return out


def _overruns_of_hex(
    g: Game,
    f: Frame,
    side: str,
    enemy: str,
    h: int,
    ps: list[Piece],
    frame_sig: tuple[Any, ...],
) -> list[Action]:
    """The overruns out of hex ``h`` by ``side``'s units ``ps`` there (OT 6F1)."""
    if not any(units.units_in_hex(g, t, enemy) for t in [h, *g.board.neighbors(h)]):
        return []  # nothing to overrun from this hex: the units' own tests are not read
    group = [
        p
        for p in ps
        if not (
            can_move_now(g, f, p)
            or mode_of(f, p) == "accel"
            or stacking.OVERSTACKED in p.status
            or (units.printed_attack(p) <= 0 and units.printed_defense(p) <= 0)
        )
    ]
    if not group:
        return []
    table = listing.memo(g, "overruns")
    records = f.params.get("units", {})
    # the overruns out of a hex depend only on what lies within two hexes and on the units'
    # records (listing.py): reuse them while those are unchanged
    key = (
        frame_sig,
        tuple((p.id, repr(records.get(p.id))) for p in group),
        listing.local_signature(g, h),
    )
    hit = table.get(key)
    if hit is None:
        hit = _overruns_from(g, f, side, enemy, h, group)
        table[key] = hit
    return [dict(a) for a in hit]


def _overruns_from(
    g: Game, f: Frame, side: str, enemy: str, h: int, ps: list[Piece]
) -> list[Action]:
    out: list[Action] = []
    for t in [h, *g.board.neighbors(h)]:
        if not units.units_in_hex(g, t, enemy):
            continue
        group = sorted(ps, key=lambda p: (-units.printed_attack(p), p.id))
        while group and not stacking.attack_stack_ok(g, group, t):
            group = group[:-1]
        if not group:
            continue
        # OT 6F1: an overrun short of 10:1 is refused whatever else holds (unless the odds are
        # compared in secret, OT 14N2); most candidates fail here, so the odds are read before
        # plan_overrun's terrain and MP checks
        if overrun_odds(g, group, units.units_in_hex(g, t, enemy), t)[
            2
        ] < REQUIRED_ODDS and not intelligence.unknown_corps_in(g, side, t):
            continue
        a: Action = {
            "type": "overrun",
            "side": side,
            "pieces": [p.id for p in group],
            "target": g.board.label(t),
        }
        try:
            plan_overrun(g, f, a)
        except IllegalAction:
            continue
        out.append(a)
    return out


class RetreatBeforeOverrun(GWStep):
    """OT 6F2: when an overrun is announced, the owner of units that may retreat before combat
    (OT 9I) may try to retreat each of them (a Ground Success Table roll, no modifiers); successful
    units retreat by the priorities of OT 9F2. Irregular units must try when a retreat hex exists
    (OT 14L). Then the overrun is resolved."""

    name = "retreat-before-overrun"
    title = "Retreat before overrun"
    rule = "OT 6F2"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    def label(self, g: Game, f: Frame) -> str:
        return f"Retreat before overrun of {f.params['target']} ({f.params['side']})"

    def _pending(self, f: Frame) -> dict[str, Any] | None:
        return f.params.get("retreating")

    def _untried(self, g: Game, f: Frame) -> list[Piece]:
        target = g.board.idx(f.params["target"])
        here = {p.id for p in units.units_in_hex(g, target)}
        return [
            g.state.pieces[pid]
            for pid in f.params["eligible"]
            if pid not in f.params["tried"] and pid in here
        ]

    def _options(self, g: Game, f: Frame) -> list[retreat.RetreatChoice]:
        r = self._pending(f)
        assert r is not None
        p = g.state.pieces[r["piece"]]
        return retreat.retreat_step_options(
            g, p, g.board.idx(f.params["target"]), g.board.idx(r["at"])
        )

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        r = self._pending(f)
        if r is not None:
            return [
                {
                    "type": "retreat",
                    "side": side,
                    "piece": r["piece"],
                    "to": g.board.label(c.hexes[0]),
                }
                for c in self._options(g, f)
            ]
        out: list[Action] = [
            {"type": "retreat-attempt", "side": side, "piece": p.id} for p in self._untried(g, f)
        ]
        if not self._must_try(g, f):
            out.append({"type": "done", "side": side})
        return out

    def _must_try(self, g: Game, f: Frame) -> list[Piece]:
        target = g.board.idx(f.params["target"])
        return [
            p
            for p in self._untried(g, f)
            if "irregular" in special_units.base_tags(p)
            and retreat.retreat_step_options(g, p, target, target)
        ]

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        r = self._pending(f)
        if r is not None:
            raise IllegalAction("OT 6F2", f"{r['piece']} must first finish its retreat")
        raise IllegalAction(
            "OT 4C", f"{action['type']!r} is not allowed during retreat before overrun"
        )

    def _not_pending(self, g: Game, f: Frame, action: Action) -> None:
        if self._pending(f) is not None:
            self.refuse(g, f, action)

    @handles.check("retreat")
    def check_retreat(self, g: Game, f: Frame, action: Action) -> None:
        """OT 6F2 / OT 9F2: the unit that succeeded retreats by the priorities of OT 9F2."""
        r = self._pending(f)
        if r is None or action.get("piece") != r["piece"]:
            self.refuse(g, f, action)
            return
        if action.get("to") not in [g.board.label(c.hexes[0]) for c in self._options(g, f)]:
            raise IllegalAction(
                "OT 9F2",
                f"{action.get('to')!r} is not an allowed retreat hex (priorities of OT 9F2)",
            )

    @handles.check("retreat-attempt")
    def check_attempt(self, g: Game, f: Frame, action: Action) -> None:
        """OT 6F2: an untried unit in the overrun hex tries to retreat before the overrun."""
        self._not_pending(g, f, action)
        if action.get("piece") not in [p.id for p in self._untried(g, f)]:
            raise IllegalAction(
                "OT 6F2", f"{action.get('piece')!r} may not try to retreat before this overrun"
            )

    @handles.check("done")
    def check_done(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14L: irregular units must try first."""
        self._not_pending(g, f, action)
        if self._must_try(g, f):
            raise IllegalAction("OT 14L", "irregular units must try to retreat before an overrun")

    @handles.apply("retreat-attempt")
    def apply_attempt(self, g: Game, f: Frame, action: Action) -> None:
        target = g.board.idx(f.params["target"])
        p = g.state.pieces[action["piece"]]
        f.params["tried"].append(p.id)
        res = table_roll(g, "gst", "standard", f"retreat before overrun of {p.id}", "OT 6F2")
        ok = str(res.result).startswith("S")
        g.emit(
            "retreat-attempt",
            f"{p.id} {'may retreat' if ok else 'fails to retreat'} ({res.result})",
            rule="OT 6F2",
            piece=p.id,
        )
        if ok:
            if not retreat.retreat_step_options(g, p, target, target):
                units.eliminate(g, p, "OT 9F2", "no retreat route")
            else:
                f.params["retreating"] = {"piece": p.id, "at": f.params["target"]}
        elif "irregular" in special_units.base_tags(p):
            units.disrupt(g, p, rule="OT 14L", reason="failed a mandatory retreat")

    @handles.apply("retreat")
    def apply_retreat(self, g: Game, f: Frame, action: Action) -> None:
        target = g.board.idx(f.params["target"])
        r = f.params["retreating"]
        p = g.state.pieces[r["piece"]]
        opts = {g.board.label(c.hexes[0]): c for c in self._options(g, f)}
        choice = opts[action["to"]]
        j = choice.hexes[0]
        g.state.move(p.id, Loc.hex(j))
        g.emit(
            "retreat",
            f"{p.id} retreats to {action['to']}",
            rule="OT 9F2",
            piece=p.id,
            to=action["to"],
        )
        if choice.tier == 3:
            _reduce_or_eliminate(g, p)
            f.params["retreating"] = None
        elif choice.tier == 2:
            if retreat.retreat_step_options(g, p, target, j):
                f.params["retreating"] = {"piece": p.id, "at": action["to"]}
            else:
                units.eliminate(g, p, "OT 8B", "could not retreat within the stacking limit")
                f.params["retreating"] = None
        else:
            f.params["retreating"] = None
        zoc.update_ownership(g)

    @handles.apply("done")
    def apply_done(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

        mf = current_move_frame(g)
        if mf is not None:
            resolve_overrun(g, mf, f.params)


def _reduce_or_eliminate(g: Game, p: Piece) -> None:
    """OT 9F2: a unit retreating into an enemy ZOC is reduced to its cadre or remnant, or
    eliminated if it has none (or already is one)."""

    for face in ("cadre", "remnant"):
        if face in p.faces and p.face != face:
            old = p.face
            p.face = face
            replacements.on_reduced(g, p, old, "OT 6F2")
            g.emit(
                "reduced",
                f"{p.id} retreats into an enemy ZOC and is reduced to its {face}",
                rule="OT 9F2",
                piece=p.id,
            )
            return
    units.eliminate(g, p, "OT 9F2", "retreated into an enemy ZOC")
