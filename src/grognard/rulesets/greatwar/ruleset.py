"""The rule system class of the Great War series: vocabulary, options, steps, setup, views and
invariants. The rules themselves live in one module per rule group (see the package docstring).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from grognard.core.options import OptionSpec
from grognard.core.sequence import Step
from grognard.core.tables import ResultsTable
from grognard.rulesets.base import Ruleset
from grognard.rulesets.greatwar import charts as chartmod
from grognard.rulesets.greatwar import intelligence, presentation, special_rules
from grognard.rulesets.greatwar.actions import ACTIONS
from grognard.rulesets.greatwar.combat import combat_data
from grognard.rulesets.greatwar.logistics import engineers, logistics, reinforcements, replacements
from grognard.rulesets.greatwar.map import terrain
from grognard.rulesets.greatwar.map.weather import weather_by_zone
from grognard.rulesets.greatwar.mechanics import gw, set_marker
from grognard.rulesets.greatwar.movement import movement_steps, rail, stacking, water_only
from grognard.rulesets.greatwar.options import OPTION_SPECS
from grognard.rulesets.greatwar.scenario_model import FREE_FORM_KEYS, GreatWarRules, check_scenario
from grognard.rulesets.greatwar.step import InitialExtension, MovementExtension
from grognard.rulesets.greatwar.supply import supply
from grognard.rulesets.greatwar.units import units
from grognard.rulesets.greatwar.units.catalogue import load_catalogue

if TYPE_CHECKING:
    from pydantic import BaseModel

    from grognard.core.game import Game
    from grognard.core.state import Piece
    from grognard.rulesets.greatwar.record import HeadRecord
    from grognard.scenario.freeform import Key

POINT_KINDS = (
    "point-city",
    "partial-city",
    "full-city",
    "fortress",
    "resource-center",
    "factory",
    "port",
    "rail-yard",
    "river-yard",
    "oasis",
    "objective",
    "capital",
    "fieldworks",
    "entrenchment",
    "fort",
    "improved-fort",
)
FORTIFICATION_KINDS = ("fieldworks", "entrenchment", "fort", "improved-fort")


class GreatWar(Ruleset):
    """The Great War series standard rules ("Over There"), ground rules first."""

    name = "greatwar"
    title = "The Great War series (Over There standard rules)"
    version = "0.1"
    rule_prefix = "OT"
    root_step = "game"
    actions = ACTIONS
    step_classes: ClassVar[tuple[type[Step], ...]] = movement_steps.STEP_CLASSES
    # the rules that add actions and effects to the movement steps and the initial phase, in the
    # order their actions are listed and their hooks run (a variant overrides these)
    movement_extensions: ClassVar[tuple[type[MovementExtension], ...]] = (
        movement_steps.MOVEMENT_EXTENSION_CLASSES
    )
    initial_extensions: ClassVar[tuple[type[InitialExtension], ...]] = (
        movement_steps.INITIAL_EXTENSION_CLASSES
    )
    option_specs: ClassVar[tuple[OptionSpec, ...]] = OPTION_SPECS
    terrain_types = terrain.HEX_TERRAIN
    hexside_features = terrain.HEXSIDE_FEATURES
    point_kinds = POINT_KINDS
    area_kinds = (
        "weather-zone",
        "command",
        "district",
        "good-roads",
        "poor-roads",
        "rail-net",
        "nation",
        "sea-area",
    )
    box_kinds = ("eliminated", "pool", "holding", "garrison", "off-map", "expended")
    network_kinds = ("rail", "road", "rail-ferry")
    schedule_kinds = ("rail-capacity", *reinforcements.OB_KINDS)

    @cached_property
    def movement_hooks(self) -> tuple[MovementExtension, ...]:
        """One object of each movement extension, whose hooks the movement rules call."""
        return tuple(c() for c in self.movement_extensions)

    @cached_property
    def initial_hooks(self) -> tuple[InitialExtension, ...]:
        """One object of each initial-phase extension, whose activities the phase lists."""
        return tuple(c() for c in self.initial_extensions)

    # ------------------------------------------------------------------ reactions (hooks.Reactions)
    def unit_eliminated(self, g: Game, p: Piece, rule: str) -> None:
        replacements.on_eliminated(g, p, rule)

    def leader_to_pool(self, g: Game, leader: Piece, why: str) -> None:
        replacements.to_leader_pool(g, leader, why)

    def hex_captured(self, g: Game, i: int, old: str, new: str) -> None:
        rail.on_capture(g, i, old, new)
        logistics.on_capture(g, i, old, new)

    def owner_changed(self, g: Game, i: int, old: str | None, new: str) -> None:
        special_rules.on_capture(g, i, old, new)

    def ownership_updated(self, g: Game) -> None:
        engineers.check_abandoned(g)

    def is_flooded(self, g: Game, i: int) -> bool:
        return special_rules.is_flooded(g, i)

    def pontoon_prevents_disruption(self, g: Game, side: str, s: int) -> bool:
        return engineers.pontoon_prevents_disruption(g, side, s)

    def ferry_usable(self, g: Game, side: str, u: int, v: int) -> bool:
        return special_rules.ferry_usable(g, side, u, v)

    def fortress_unimproved(self, g: Game, i: int, why: str) -> None:
        special_rules.unimprove_fortress(g, i, why)

    def initial_phase_supply_done(self, g: Game, side: str) -> None:
        engineers.progress_projects(g, side)

    def game_turn_started(self, g: Game) -> None:
        special_rules.progress_devastation(g)

    def unified_command(self, g: Game, side: str) -> None:
        special_rules.unified_command_roll(g, side)

    # ------------------------------------------------------------------ data
    def tables(self, overrides: Mapping[str, str] | None = None) -> dict[str, ResultsTable]:
        """Die tables (``data/tables``); overrides of the non-die charts (``data/charts``: TEC, ZOC
        and overrun costs, rail and river rates, Stacking Summary) are accepted and validated too.
        """
        ov = dict(overrides or {})
        chart_ov = {k: v for k, v in ov.items() if k in chartmod.CHART_IDS}
        table_ov = {k: v for k, v in ov.items() if k not in chartmod.CHART_IDS}
        if chart_ov:
            try:
                combat_data.check_charts(chartmod.load_charts(chart_ov))
            except chartmod.ChartError as e:
                raise ValueError(str(e)) from None
        out = super().tables(table_ov)
        for tid, crt in (("mobile-crt", "mobile"), ("positional-crt", "positional")):
            if tid in out:
                combat_data.check_crt_table(out[tid], crt)
        return out

    def charts(self, overrides: Mapping[str, str] | None = None) -> chartmod.Charts:
        return chartmod.load_charts(overrides)

    def piece_types(self) -> set[str]:
        return load_catalogue().all_names()

    def scenario_model(self) -> type[BaseModel]:

        return GreatWarRules

    def free_form_keys(self) -> Mapping[str, Mapping[str, Key]]:

        return FREE_FORM_KEYS

    def check_scenario(self, sc: Any) -> list[tuple[str, str]]:

        return check_scenario(sc)

    # ------------------------------------------------------------------ setup
    def setup(self, g: Game) -> None:
        super().setup(g)
        state = gw(g)
        rules = g.scenario.rules
        heads: list[HeadRecord] = []
        for h in getattr(rules, "heads", []) if rules is not None else []:
            heads.append({"kind": h.kind, "hexes": [g.board.idx(x) for x in (h.hex, *h.beyond)]})
        state["heads"] = heads
        for nation, refs in (
            getattr(rules, "neutral_territory", {}) if rules is not None else {}
        ).items():
            if g.state.alignment.get(nation, "missing") is not None:
                continue
            for ref in refs:
                hexes = g.board.areas[ref].hexes if ref in g.board.areas else [g.board.idx(ref)]
                for i in hexes:
                    g.state.control[int(i)] = f"neutral:{nation}"
        state["ever_owned"] = {
            str(i): [s] for i, s in sorted(g.state.control.items()) if s in g.state.sides
        }
        state["stacking_violations"] = []

        rail.init_ledgers(g)

        logistics.setup(g)

        intelligence.setup(g)
        for i, plist in g.board.points.items():
            for pt in plist:
                if pt.kind in FORTIFICATION_KINDS:
                    set_marker(g, "fortification", int(i), pt.kind)
                if pt.kind == "fortress":
                    set_marker(
                        g, "fortress-state", int(i), str(pt.attrs.get("state", "unimproved"))
                    )
        for s in range(g.board.m):
            if terrain.bridge_features(g, s) and terrain.road_link(g, s):
                a, b = (int(x) for x in g.board.side_hexes[s])
                if (
                    a >= 0
                    and b >= 0
                    and g.state.control.get(a) == g.state.control.get(b)
                    and g.state.control.get(a) is not None
                ):
                    set_marker(g, "bridge-owner", s, g.state.control[a])

    # ------------------------------------------------------------------ views
    def public_extra(self, g: Game, side: str | None) -> dict[str, Any]:
        zones = weather_by_zone(g)
        st = gw(g)
        return {
            "markers": g.state.markers,
            "tracks": g.state.tracks,
            "weather": zones,
            "rail_capacity": st.get("rail", {}),
            "isolated": {
                s: [g.board.label(i) for i in v] for s, v in st.get("isolated", {}).items()
            },
        }

    def name_of(self, g: Game, kind: str, value: Any) -> str:
        """How a label names a field's value: a unit by id and name, a hex by label and place
        (:func:`.presentation.piece_name`, :func:`.presentation.hex_name`)."""

        if kind == "piece":
            return presentation.piece_name(g, value)
        if kind == "hex":
            return presentation.hex_name(g, value)
        return super().name_of(g, kind, value)

    def render_text(
        self,
        g: Game,
        side: str | None,
        marks: Mapping[str, str] | None = None,
        width: int | None = None,
    ) -> str:
        """The map in three characters a hex, with the turn, weather, victory points, rail
        capacity, rivers and the stacks in contact (:func:`.presentation.render_text`); with
        ``marks`` (hex label -> character), the part of the map around the marked hexes."""

        if not marks:
            return presentation.render_text(g, side, width=width)
        at = {g.board.idx(h): c for h, c in marks.items() if g.board.has_label(h)}
        window = presentation.window_around(g, list(at))
        return presentation.render_text(g, side, at, window, stacks=False, width=width)

    def reachable(self, g: Game, piece_ids: list[str]) -> dict[str, Any] | None:
        """Hex label -> MP cost of every hex the pieces can move to now (OT 6; None outside the
        movement steps)."""

        return presentation.reachable(g, piece_ids)

    def preview(self, g: Game, action: Mapping[str, Any]) -> str | dict[str, Any] | None:
        """OT 9A: for a declared attack, the totals with every modifier, the odds column and shifts,
        the die-roll modifiers and the exact distribution of results
        (:func:`.combat.preview_attack`).
        Moves, rail moves and overruns get their cost and what is left (a move also the map of the
        hexes still in reach): :func:`.presentation.preview`, which draws the attack's distribution
        too.
        """

        return presentation.preview(g, action)

    def piece_visibility(self, g: Game, piece: Piece, side: str | None) -> str:
        """OT 14N2 (advanced, option ``limited-intelligence``): the units in the box of an unknown
        enemy corps are hidden; everything else is seen by both sides."""

        return intelligence.piece_visibility(g, piece, side)

    def view(self, g: Game, side: str | None, log: bool = True) -> dict[str, Any]:
        """The common view, with every mention of a unit OT 14N2 hides from ``side`` removed
        (its log concealed already: :meth:`conceal_events`)."""

        return intelligence.redact(g, side, super().view(g, side, log))

    def conceal_events(
        self, g: Game, side: str | None, events: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """OT 14N2: an event naming a unit hidden from ``side`` is shown as a bare notice."""

        return intelligence.conceal_events(g, side, events)

    # ------------------------------------------------------------------ invariants
    def invariants(self, g: Game) -> list[str]:
        """Stacking at phase ends (OT 8B), no unit in terrain no unit may enter, boxes only inside
        Corps HQs, known owners, and general supply status consistent with a fresh trace (OT 11B).
        (Units of both sides may share a hex: OT 6 lets a unit enter
        an enemy-occupied hex its enemy does not own.)"""

        out = list(gw(g).get("stacking_violations", []))
        out.extend(supply.supply_invariant(g))

        out += water_only.setup_check(g)
        sides = set(g.state.sides)
        for p in g.state.pieces.values():
            loc = p.loc
            if loc.kind == "piece" and units.utype(p).logistics:
                carrier = g.state.pieces.get(str(loc.ref))
                if carrier is None or not units.is_unit(carrier) or carrier.side != p.side:
                    out.append(
                        f"OT 11H2: {p.id} is carried by {loc.ref}, which is not a unit of its side"
                    )
            elif loc.kind == "piece":
                carrier = g.state.pieces.get(str(loc.ref))
                if carrier is None or "corps-hq" not in units.utype(carrier).tags:
                    out.append(f"OT 8C1: {p.id} is inside {loc.ref}, which is not a Corps HQs")
                elif carrier.side != p.side:
                    out.append(f"OT 8C1: {p.id} is in an enemy Corps HQs box")
            h = units.hex_of(g, p)
            if h is None or not units.is_unit(p):
                continue
            if terrain.hex_prohibited_to_all(g, h):
                out.append(f"OT 6: {p.id} is in {g.board.label(h)}, terrain no unit may enter")
        for i, owner in g.state.control.items():
            if owner not in sides and not str(owner).startswith("neutral:"):
                out.append(f"OT 5B: {g.board.label(i)} has an unknown owner {owner!r}")
            elif (
                str(owner).startswith("neutral:")
                and g.state.alignment.get(str(owner)[8:], "missing") is not None
            ):
                out.append(
                    f"OT 3B3: {g.board.label(i)} still belongs to {str(owner)[8:]}, which is no"
                    " longer neutral"
                )
        return out

    def stacking_now(self, g: Game) -> list[str]:
        return stacking.violations(g)
