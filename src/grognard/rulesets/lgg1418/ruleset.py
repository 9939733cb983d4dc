"""The ``lgg1418`` rule system: La Grande Guerre 14-18 (the land war, rules 1-11 so far).

Organisation: subpackages by concern, imports flowing one way - the root primitives
(``actions``, ``step``, ``hooks``, ``model``, ``data``, ``options``), then ``units/`` (2, 4, 5-H),
``map/`` (1, 4-A, 6-8, 11.4), ``supply/`` (9, 22), ``military/`` (3, 5, 10-14, 19-21, 28-36),
``battle/`` (15-18, 23, 29-32, 37-39), ``sequence/`` (3-C), and this module (see
``docs/rulesets/lgg1418.md``).

The sequence of play is the explicit list :data:`STEP_CLASSES`; the steps that take the actions
of later rules are combined with them here (:class:`ChooseActivation`,
:class:`ReinforcementSide`), and the checks and view extras of later rules are listed by the
methods of :class:`LaGrandeGuerre` (the extension points of :mod:`.hooks`): a variant overrides
them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from grognard.core.sequence import Step
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.base import Ruleset
from grognard.rulesets.lgg1418 import hooks, strategic
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.actions import ACTIONS
from grognard.rulesets.lgg1418.battle import (
    aftermath,
    battle_activation,
    battle_preview,
    battle_retreat,
    battle_steps,
    breakthrough,
    counteroffensive,
    fortress,
    main_battle,
    tactics,
)
from grognard.rulesets.lgg1418.data import LggData, load_data
from grognard.rulesets.lgg1418.map import fronts, mapdata, victory, weather
from grognard.rulesets.lgg1418.military import (
    activation,
    autonomous,
    campaign,
    doctrine_transitions,
    enemy_reinforcement,
    interception,
    offensive,
    politics,
    reaction,
    reinforcement,
    retreat,
    secondary,
    stacking,
    trench,
)
from grognard.rulesets.lgg1418.options import OPTIONS
from grognard.rulesets.lgg1418.scenario_model import LggRules, free_form_keys
from grognard.rulesets.lgg1418.sequence import naval, turn
from grognard.rulesets.lgg1418.supply import isolation
from grognard.rulesets.lgg1418.units import counters, fog

if TYPE_CHECKING:
    from pydantic import BaseModel

    from grognard.core.game import Game
    from grognard.scenario.freeform import Key
    from grognard.scenario.model import Scenario


class ChooseActivation(
    activation.ChooseActivation, retreat.ReformChoice, offensive.OffensiveActions
):
    """The choice of activation with the actions of 12-A (reform) and 30 (great offensives)."""


class ReinforcementSide(
    reinforcement.ReinforcementSide,
    offensive.CombinedTestActions,
    trench.GhqArtilleryActions,
):
    """One side's reinforcement work with the actions of 36.4 and 28-C."""


#: The steps of the sequence of play, rule group by rule group (a step is found by its name).
STEP_CLASSES: tuple[type[Step], ...] = (
    *turn.STEPS,
    *campaign.STEPS,
    *reinforcement.STEPS,
    ReinforcementSide,
    *fronts.STEPS,
    *weather.STEPS,
    *naval.STEPS,
    *activation.STEPS,
    ChooseActivation,
    *doctrine_transitions.STEPS,
    *offensive.STEPS,
    *politics.STEPS,
    *main_battle.STEPS,
    *retreat.STEPS,
    *interception.STEPS,
    *enemy_reinforcement.STEPS,
    *reaction.STEPS,
    *autonomous.STEPS,
    *isolation.STEPS,
    *fortress.STEPS,
    *aftermath.STEPS,
    *battle_steps.STEPS,
    *battle_retreat.STEPS,
    *battle_activation.STEPS,
    *breakthrough.STEPS,
    *counteroffensive.STEPS,
    *tactics.STEPS,
)


class LaGrandeGuerre(Ruleset):
    """La Grande Guerre 14-18 (English rendering of the rulebook; the land war)."""

    name = "lgg1418"
    title = "La Grande Guerre 14-18"
    version = "0.1"
    rule_prefix = "LGG"
    root_step = "lgg-game"
    step_classes = STEP_CLASSES
    actions = ACTIONS
    option_specs = OPTIONS
    terrain_types = mapdata.TERRAIN_TYPES
    hexside_features = mapdata.HEXSIDE_FEATURES
    point_kinds = mapdata.POINT_KINDS
    area_kinds = mapdata.AREA_KINDS
    network_kinds = mapdata.NETWORK_KINDS
    schedule_kinds = ("reinforcement",)

    # ------------------------------------------------------------------ extension points (hooks)
    def move_checks(self) -> Sequence[hooks.MoveCheck]:
        """The extra checks of a move, in order (21, 16-A, 36.2, 30, 29, 28, 12/19)."""
        return (
            autonomous.autonomous_move_check,
            battle_activation.attack_move_check,
            doctrine_transitions.no_mans_land_check,
            offensive.offensive_attack_check,
            secondary.battle_limit_check,
            trench.autonomous_attack_check,
            retreat.retreat_move_check,
        )

    def rail_checks(self) -> Sequence[hooks.RailCheck]:
        """The extra checks of a rail move (12/19)."""
        return (retreat.retreat_rail_check,)

    def end_movement_checks(self) -> Sequence[hooks.EndMovementCheck]:
        """The extra conditions for ending an activation's movement (30, 12/19)."""
        return (offensive.offensive_end_movement_check, retreat.retreat_end_check)

    def view_extras(self) -> Sequence[hooks.ViewExtra]:
        """The extra public facts of a side's view (36, 30, 28)."""
        return (doctrine_transitions.view_extra, offensive.view_extra, trench.view_extra)

    def reinforcement_hooks(self) -> Sequence[str]:
        """The steps after both sides' reinforcements (17.3-C, 16.4-I, 37-A, 38-A)."""
        return ("breakthrough-markers", "siberian-choice", "combat-tactics", "assault-markers")

    # ------------------------------------------------------------------ data
    @cached_property
    def data(self) -> LggData:
        return load_data(str(self.data_dir))

    def scenario_model(self) -> type[BaseModel]:
        return LggRules

    def piece_types(self) -> set[str]:
        return self.data.piece_types()

    def free_form_keys(self) -> Mapping[str, Mapping[str, Key]]:
        return free_form_keys(tuple(sorted(self.data.powers["names"])))

    # ------------------------------------------------------------------ scenario checks
    def check_scenario(self, sc: Scenario) -> list[tuple[str, str]]:
        problems: list[tuple[str, str]] = []
        d = self.data
        if set(sc.sides) != set(M.SIDES):
            problems.append(("scenario.sides", f"the sides are {M.SIDES[0]!r} and {M.SIDES[1]!r}"))
        names = d.powers["names"]
        for n in sc.data.nations:
            if n not in names:
                problems.append(
                    (f"nations.{n}", f"unknown nation code (known: {', '.join(sorted(names))})")
                )
        problems.extend(counters.check_pieces(sc))
        r: LggRules = sc.rules  # type: ignore[assignment]
        ids = {t.id for t in d.calendar}
        for key in ("first_turn", "last_turn"):
            if getattr(r, key) not in ids:
                problems.append(
                    (
                        f"rules.{key}",
                        f"unknown calendar turn {getattr(r, key)!r} (data/calendar.toml)",
                    )
                )
        if (
            r.first_turn in ids
            and r.last_turn in ids
            and d.calendar_index(r.first_turn) > d.calendar_index(r.last_turn)
        ):
            problems.append(("rules.last_turn", "comes before first_turn"))
        pieces = {p.id: p for p in sc.data.pieces}
        army_ids = set()
        for k, a in enumerate(r.armies):
            path = f"rules.armies[{k}]"
            if a.id in army_ids:
                problems.append((f"{path}.id", f"army {a.id!r} given twice"))
            army_ids.add(a.id)
            if a.nation not in sc.data.nations:
                problems.append((f"{path}.nation", f"unknown nation {a.nation!r}"))
            hq = pieces.get(a.hq)
            if hq is None or hq.type != "hq":
                problems.append((f"{path}.hq", f"{a.hq!r} is not an HQ piece of the scenario"))
            elif hq.attrs.get("army") != a.id:
                problems.append(
                    (
                        f"pieces.{a.hq}.attrs.army",
                        f"the HQ of army {a.id} must carry army = {a.id!r}",
                    )
                )
            if a.decoy is not None:
                dec = pieces.get(a.decoy)
                if dec is None or dec.type != "decoy" or dec.attrs.get("army") != a.id:
                    problems.append(
                        (f"{path}.decoy", f"{a.decoy!r} is not a decoy piece with army = {a.id!r}")
                    )
            if a.forms is not None and a.forms not in ids:
                problems.append((f"{path}.forms", f"unknown calendar turn {a.forms!r}"))
        for i, pd in enumerate(sc.data.pieces):
            for key in ("army", "attached"):
                v = pd.attrs.get(key)
                if v is not None and v not in army_ids:
                    problems.append((f"pieces[{i}].attrs.{key}", f"unknown army {v!r}"))
            gar = pd.attrs.get("garrison")
            if gar is not None and (gar not in pieces or pieces[gar].type != "fortress"):
                problems.append((f"pieces[{i}].attrs.garrison", f"{gar!r} is not a fortress piece"))
            at = pd.at
            inside = (
                getattr(at, "inside", None) if at is not None and not isinstance(at, str) else None
            )
            if pd.type == "general" and (
                inside is None
                or pieces.get(inside) is None
                or pieces[inside].type not in ("hq", "ghq")
            ):
                problems.append((f"pieces[{i}].at", "a general is placed inside an HQ or a GHQ"))
            if "reserve" in pd.status and (
                inside is None
                or pieces.get(inside) is None
                or pieces[inside].type not in ("hq", "ghq")
            ):
                problems.append(
                    (f"pieces[{i}].status", "a unit in reserve is placed inside an HQ or a GHQ")
                )
        for side, fr in r.main_armies.items():
            for front, army in fr.items():
                if army not in army_ids:
                    problems.append((f"rules.main_armies.{side}.{front}", f"unknown army {army!r}"))
        plans = {(p["power"], p["id"]) for p in d.war_plans}
        for nation, wp in r.war_plans.items():
            if (nation, wp.plan) not in plans:
                known = ", ".join(sorted(p for n, p in plans if n == nation)) or "none"
                problems.append(
                    (
                        f"rules.war_plans.{nation}.plan",
                        f"unknown war plan (known for {nation}: {known})",
                    )
                )
            for army in wp.must_attack:
                if army not in army_ids:
                    problems.append(
                        (f"rules.war_plans.{nation}.must_attack", f"unknown army {army!r}")
                    )
        for k, army in enumerate(r.pre_turn_armies):
            if army not in army_ids:
                problems.append((f"rules.pre_turn_armies[{k}]", f"unknown army {army!r}"))
        for nation in r.powers:
            if nation not in sc.data.nations:
                problems.append((f"rules.powers.{nation}", "unknown nation"))
        for tid, zones in r.weather.items():
            if tid not in ids:
                problems.append((f"rules.weather.{tid}", "unknown calendar turn"))
            for z in zones:
                if z not in mapdata.CLIMATES:
                    problems.append(
                        (
                            f"rules.weather.{tid}.{z}",
                            f"unknown climatic zone (known: {', '.join(mapdata.CLIMATES)})",
                        )
                    )
        for k, chain in enumerate(r.virtual_rail):
            for h in chain:
                if not sc.board.has_label(h):
                    problems.append((f"rules.virtual_rail[{k}]", f"unknown hex {h!r}"))
        sectors = set(d.powers["sectors"])
        for area in sc.board.areas.values():
            if area.kind == "sector" and area.name not in sectors:
                problems.append(
                    (f"areas.{area.name}", f"unknown sector (known: {', '.join(sorted(sectors))})")
                )
            if (
                area.kind == "climate"
                and str(area.attrs.get("zone", area.name)) not in mapdata.CLIMATES
            ):
                problems.append(
                    (
                        f"areas.{area.name}",
                        f"unknown climatic zone (known: {', '.join(mapdata.CLIMATES)})",
                    )
                )
            if area.kind == "country" and str(area.attrs.get("nation", area.name)) not in names:
                problems.append(
                    (
                        f"areas.{area.name}",
                        "a country area needs attrs.nation with a known nation code",
                    )
                )
        if r.default_sector is not None and r.default_sector not in sectors:
            problems.append(("rules.default_sector", "unknown sector"))
        if r.default_climate not in mapdata.CLIMATES:
            problems.append(("rules.default_climate", "unknown climatic zone"))
        labels = {t.label for t in d.calendar}
        for k, e in enumerate(sc.data.schedule):
            if isinstance(e.turn, str) and e.turn not in ids and e.turn not in labels:
                problems.append(
                    (f"schedule[{k}].turn", "give a calendar turn id or label (data/calendar.toml)")
                )
        if sc.data.turns and r.first_turn in ids and r.last_turn in ids:
            want = [
                t.label
                for t in d.calendar[
                    d.calendar_index(r.first_turn) : d.calendar_index(r.last_turn) + 1
                ]
            ]
            got = [t.label for t in sc.data.turns]
            if got != want:
                problems.append(
                    (
                        "turns",
                        (
                            f"the turn track must list the calendar turns {want} (first_turn to"
                            " last_turn)"
                        ),
                    )
                )
        problems.extend(victory.check(sc))
        return problems

    # ------------------------------------------------------------------ setup
    def setup(self, g: Game) -> None:
        g.scenario.place_pieces(g.state)
        M.init_state(g)
        r: LggRules = g.scenario.rules  # type: ignore[assignment]
        M.st(g)["turn_id"] = r.first_turn
        for p in g.state.pieces.values():
            if p.type == "decoy" and p.loc.kind == "none":
                g.state.move(p.id, Loc.box(M.decoy_pool(p.side)))
        for nation, pw in r.powers.items():
            g.state.tracks.setdefault("pr", {})[nation] = {"stock": pw.pr_stock, "flow": pw.pr_flow}
        for side, fr in r.main_armies.items():
            for front, a in fr.items():
                M.st(g)["main_army"].setdefault(side, {})[front] = a
        mapdata.initial_control(g)
        strategic.init_tracks(g)

        g.state.frames = [Frame(self.root_step, {})]

    # ------------------------------------------------------------------ views
    def piece_visibility(self, g: Game, piece: Piece, side: str | None) -> str:
        return fog.piece_visibility(g, piece, side)

    def public_extra(self, g: Game, side: str | None) -> dict[str, Any]:
        return fog.public_view(g, side)

    def piece_view(self, g: Game, piece: Piece) -> dict[str, Any]:
        """The same record as :meth:`Ruleset.piece_view`, built without a full JSON conversion of
        the attributes and faces when they hold plain values (see :func:`.fog.plain_copy`)."""
        return {
            "id": piece.id,
            "type": piece.type,
            "side": piece.side,
            "nation": piece.nation,
            "face": piece.face,
            "loc": self.loc_label(g, piece.loc),
            "status": sorted(piece.status),
            "attrs": fog.plain_copy(piece.attrs),
            "faces": fog.plain_copy(piece.faces),
            "name": piece.name,
        }

    def view(self, g: Game, side: str | None, log: bool = True) -> dict[str, Any]:
        v = super().view(g, side, log)
        fog.decorate_view(g, side, v)
        return v

    def hidden_tokens(self, g: Game, side: str) -> set[str]:
        return fog.hidden_tokens(g, side)

    # ------------------------------------------------------------------ invariants
    def invariants(self, g: Game) -> list[str]:
        out: list[str] = []
        act = M.st(g).get("activation")
        moving = [
            f.step for f in g.state.frames if f.step in ("activation-movement", "end-of-movement")
        ]
        for side in M.SIDES:
            for prob in stacking.side_problems(g, side):
                if (
                    moving
                    and act
                    and act.get("side") == side
                    and prob.rule != "LGG 10-C"
                    and self._moved_here(g, act, prob.hex)
                ):
                    continue
                out.append(f"{prob.rule}: {side} at {g.board.label(prob.hex)}: {prob.message}")
        for p in g.state.pieces.values():
            h = M.hex_of(g, p)
            if p.type == "general":
                c = M.carrier(g, p)
                if (c is None or c.type not in ("hq", "ghq")) and p.loc.kind not in ("box", "none"):
                    out.append(f"LGG 2-A: general {p.id} is not with an HQ or GHQ")
            if M.in_reserve(p):
                c = M.carrier(g, p)
                if c is None or c.type not in ("hq", "ghq"):
                    out.append(f"LGG 5-A: {p.id} is in a reserve but not inside an HQ or GHQ")
            if h is None or p.loc.kind != "hex":
                continue
            if mapdata.is_neutral_hex(g, h):
                out.append(
                    f"LGG [11.1-A]: {p.id} stands in a neutral country at {g.board.label(h)}"
                )
            if mapdata.terrain_info(g, h).impassable:
                out.append(f"LGG 1-A: {p.id} stands in an impassable hex {g.board.label(h)}")
        for side in M.SIDES:
            enemy = M.occupied(g, M.other_side(side))
            for i, plist in M.occupied(g, side).items():
                if (
                    i in enemy
                    and any(M.is_unit(q) for q in plist)
                    and not self._shared_ok(g, side, i)
                ):
                    out.append(
                        f"LGG 16-A: both sides stand in {g.board.label(i)} outside a battle or"
                        " siege"
                    )
        for nation, rec in g.state.tracks.get("pr", {}).items():
            if int(rec.get("stock", 0)) < 0:
                out.append(f"LGG 5-B: {nation} has a negative PR stock")
        for p in g.state.pieces.values():
            c = M.carrier(g, p)
            if (
                c is not None
                and c.type in ("hq", "decoy")
                and M.is_unit(p)
                and not M.in_reserve(p)
                and counters.command_army(g, p) != str(c.attrs.get("army"))
            ):
                out.append(f"LGG 4-B: {p.id} is on the box of another army")
        return out

    def _moved_here(self, g: Game, act: dict[str, Any], i: int) -> bool:
        return any(
            q.attrs.get("mv_act") == act["serial"] for q in M.pieces_at_hex(g, i, act["side"])
        )

    def _shared_ok(self, g: Game, side: str, i: int) -> bool:
        """Both sides may share a hex only in a battle (during the activation that started it), a
        siege, or while the pieces a battle left there withdraw (13-A, 23-D)."""
        lab = g.board.label(i)
        if g.state.marker("siege", lab) is not None:
            return True
        if any(
            f.step == "forced-withdrawal" and f.params.get("hex") == lab and not f.done
            for f in g.state.frames
        ):
            return True  # 13-A / 23-D: the pieces caught there are leaving, one at a time
        enemy = M.pieces_at_hex(g, i, M.other_side(side))
        if enemy and all(
            q.type == "fortress"
            or (M.carrier(g, q) is not None and M.carrier(g, q).type == "fortress")  # type: ignore[union-attr]
            for q in enemy
        ):
            fort = [q for q in enemy if q.type == "fortress"]
            if fort and all(zoc_besieged(q) for q in fort):
                return True
        act = M.st(g).get("activation")
        if act is None:
            return False
        # battles are fought by the activated side, and by the other side's counter-offensives
        # (18-A); units shut in a fortress never attack
        return any(activation.battle_hexes(g, s) != [] for s in M.SIDES)

    # ------------------------------------------------------------------ presentation
    def preview(self, g: Game, action: Mapping[str, Any]) -> dict[str, Any] | None:
        """An attack or an engagement before it is committed (LGG 16.3-16.5,
        :mod:`.battle_preview`)."""

        return battle_preview.preview(g, dict(action))

    def name_of(self, g: Game, kind: str, value: Any) -> str:
        """A label's value: pieces by their names, lists joined, a secret battle choice (a JSON
        field) as ``key: value`` pairs, sub-battles apart."""
        if kind == "json":
            return _words(value)
        return super().name_of(g, kind, value)


def _words(v: Any, top: bool = True) -> str:
    """A value of an action written for a menu (lists joined, dicts as 'key: value' pairs, the
    sub-battles of a battle choice apart)."""
    if isinstance(v, list | tuple):
        return ", ".join(_words(x, False) for x in v) if v else "none"
    if isinstance(v, dict):
        parts = [
            f"{k}: {_words(x, False)}" if top else f"{k} {_words(x, False)}"
            for k, x in v.items()
            if x not in (None, [], {})
        ]
        return (" | " if top else ", ").join(parts) if parts else "none"
    return str(v)


def zoc_besieged(p: Piece) -> bool:
    return "besieged" in p.status
