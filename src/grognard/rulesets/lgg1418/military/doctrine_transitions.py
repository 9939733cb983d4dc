"""LGG 36: military doctrines - what each doctrine allows, and the transitions between them.

The doctrine a country has on a front comes from :mod:`.doctrine` (calendar, scenario,
recorded changes). This module holds what the doctrines *mean* for the other rules, and the
transitions the players take part in:

* 36 / 36.1 / 36.3 / 36.5-A: :func:`allows` answers "may this country use X on this front"
  for the procedures each doctrine grants or forbids; :func:`combat_table`,
  :func:`combativeness_table`, :func:`defender_combativeness_bonus`,
  :func:`attacker_d12_modifiers`, :func:`artillery_support_value`,
  :func:`french_fire_modifier`, :func:`general_bonus_cap` give the battle rules the numbers.
* 36.2-A: at the end of September 1914 each side secretly draws one of six numbered markers
  per front; on an even number it secretly decides whether to switch to trenches for October
  (step ``october-trenches``). Nobody learns the other side's draw or choice: both sides are
  always asked, a side with an odd draw may only stay in movement.
* 36.2-B: November-December 1914 (calendar ``transition``): rigid defender ZoCs, +1 to the
  defender's combativeness tests; at the end of that turn the empty hexes between the fronts
  become no man's land for January-February 1915 (markers ``no_mans_land``), and those still
  empty at the end of January-February are ``disputed`` in March-April 1915.
* 36.4: from 1916, in the reinforcement phase, a side may name one of its major powers for
  the Combined Doctrine test (D12 + modifiers >= 12); on success that power is in Combined
  Doctrine at once and every country of both sides from the following turn.
* 36.5-B: the "static" / "in movement" status of a stack in Combined Doctrine
  (:func:`in_movement`) and its effects; 36.5-C: when reinforcements may arrive
  (:func:`combined_reinforcement_allowed`).
* 36.6: Belgium and Serbia follow England and Russia (:func:`.doctrine.doctrine_country`).

Records in ``state.vars["lgg"]``: ``combined_tests`` (power -> failed tests), ``combined_first``
(the first power in Combined Doctrine and its turn index), ``combined_from`` (turn index from
which everybody is in Combined Doctrine, read by :func:`.doctrine.doctrine`),
``combined_tested`` (side -> turn index of its last test). The October draws and choices are
kept in each side's ``state.secrets``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.map.fronts import fronts_of, sectors_of
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.supply.supply import is_supplied
from grognard.rulesets.lgg1418.units import doctrine

if TYPE_CHECKING:
    from grognard.core.game import Game

MOVEMENT, TRENCHES, TRANSITION, FIRE, COMBINED = doctrine.DOCTRINES
TRENCH_WARFARE = (TRENCHES, TRANSITION, FIRE, COMBINED)

#: What each doctrine grants (36.1 advantages, 36.2-A/B, 36.3 disadvantages, 36.5-A).
FEATURES: dict[str, frozenset[str]] = {
    MOVEMENT: frozenset(
        {
            "interception",
            "enemy-reinforcement",
            "counter-offensive",
            "strategic-retreat",
            "retreat-before-combat",
            "loss-for-retreat-hex",
            "flexible-zoc",
        }
    ),
    TRENCHES: frozenset(
        {
            "interception",
            "enemy-reinforcement",
            "counter-offensive",
            "strategic-retreat",
            "retreat-before-combat",
            "loss-for-retreat-hex",
            "flexible-zoc",
            "entrenching",
        }
    ),
    TRANSITION: frozenset(
        {
            "interception",
            "enemy-reinforcement",
            "counter-offensive",
            "strategic-retreat",
            "retreat-before-combat",
            "loss-for-retreat-hex",
            "entrenching",
        }
    ),
    FIRE: frozenset({"entrenching", "preliminary-bombardment", "great-offensive"}),
    COMBINED: frozenset(
        {
            "entrenching",
            "preliminary-bombardment",
            "great-offensive",
            "interception",
            "unplanned-great-offensive",
        }
    ),
}


def doctrine_of(g: Game, nation: str, front: str) -> str:
    return doctrine.doctrine(g, nation, front)


# ================================================== what a doctrine allows (36, 36.1, 36.3, 36.5-A)
@implements("LGG 36", "LGG 36.1", "LGG 36.3", "LGG 36.5-A")
def allows(g: Game, nation: str, front: str, feature: str) -> bool:
    """LGG 36 / 36.1 / 36.3 / 36.5-A: may ``nation`` use ``feature`` on ``front`` this turn?

    Features: ``interception`` (13; in Combined only against units in movement, 36.5-A),
    ``enemy-reinforcement`` (14), ``counter-offensive`` (18), ``strategic-retreat`` (12, 19),
    ``retreat-before-combat`` (16-C), ``loss-for-retreat-hex`` (36.1, 16.5-A),
    ``flexible-zoc`` (8-A), ``entrenching`` (28; forbidden in Movement Doctrine, 36.1),
    ``preliminary-bombardment`` (36.3, 31), ``great-offensive`` (36.3, 30),
    ``unplanned-great-offensive`` (36.5-A: no planning, objective free each turn).

    The movement-warfare procedures stay open in the October and November-December 1914
    partial trench warfare (36.2-A/B only add limits); Fire Doctrine closes them (36.3).
    """
    return feature in FEATURES[doctrine_of(g, nation, front)]


@implements("LGG 36.1", "LGG 28")
def may_entrench(g: Game, nation: str, front: str) -> bool:
    """LGG 36.1 / 28: entrenching is forbidden in Movement Doctrine; from the switch to trenches
    (October 1914 by choice, November-December 1914 for everyone, 1915 on) units entrench
    automatically at the end of their movement."""
    return allows(g, nation, front, "entrenching")


@implements("LGG 36.2-A", "LGG 36.2-B", "LGG 36.3", "LGG 28-B")
def combat_table(g: Game, defender_nation: str, front: str) -> str:
    """LGG 36.2-A / 36.3 / 28-B: the combat table of a battle, chosen by the defender's doctrine:
    ``trench`` once the defender has switched to trenches (by choice in October 1914, for
    everyone from November-December 1914), ``movement`` otherwise."""
    return "trench" if doctrine_of(g, defender_nation, front) in TRENCH_WARFARE else "movement"


@implements("LGG 36.2-A", "LGG 36.2-B", "LGG 36.3")
def combativeness_table(g: Game, nation: str, front: str) -> str:
    """LGG 36.2-A / 36.3: the combativeness table stays the movement-warfare one during the 1914
    transition (October and November-December); the trench table from Fire Doctrine on."""
    return "trench" if doctrine_of(g, nation, front) in (FIRE, COMBINED) else "movement"


@implements("LGG 36.2-B", "LGG 36.3", "LGG 28-B", "LGG 36.5-B")
def defender_combativeness_bonus(
    g: Game,
    defender_nation: str,
    front: str,
    unit: Piece | None = None,
    panic_followup: bool = False,
) -> Modifiers:
    """LGG 36.2-B / 36.3 / 28-B / 36.5-B: the defender's bonus to its combativeness tests:
    +1 in November-December 1914 (36.2-B), +2 in Fire Doctrine (the trench bonus, 28-B,
    36.3) - not for the two other corps tested after a panic (28-B), and in Combined
    Doctrine only for a static stack (36.5-B; option ``in-movement-trench``)."""
    mods = Modifiers()
    doc = doctrine_of(g, defender_nation, front)
    if panic_followup:
        return mods
    if doc == TRANSITION:
        mods.add(1, "LGG 36.2-B", "defender in November-December 1914")
    elif doc == FIRE or (doc == COMBINED and not (unit is not None and in_movement(g, unit))):
        mods.add(2, "LGG 28-B", "defender in trenches")
    return mods


@implements("LGG 36.2-A", "LGG 16.4-F", "LGG 36.5-A")
def attacker_d12_modifiers(
    g: Game, attacker_nation: str, defender_nation: str, front: str
) -> Modifiers:
    """LGG 36.2-A / 16.4-F / 36.5-A: the doctrine modifiers of the attacker's combat D12.

    An attacker still in Movement Doctrine against a defender in trenches: -1 (option
    ``movement-vs-fire-penalty``); a Combined attacker against a defender still in Fire
    Doctrine: +1 (option ``combined-vs-fire-bonus``); the first major power in Combined
    Doctrine: +1 on attack during the turn of its switch (36.5-A)."""
    mods = Modifiers()
    att = doctrine_of(g, attacker_nation, front)
    dfn = doctrine_of(g, defender_nation, front)
    if att == MOVEMENT and dfn in TRENCH_WARFARE:
        mods.add(
            int(g.opt("movement-vs-fire-penalty")),
            "LGG 36.2-A",
            "movement attacker against trenches",
        )
    if att == COMBINED and dfn == FIRE:
        mods.add(
            int(g.opt("combined-vs-fire-bonus")),
            "LGG 16.4-F",
            "combined attacker against fire doctrine",
        )
    first = M.st(g).get("combined_first")
    if (
        first
        and first.get("power") == doctrine.doctrine_country(g, attacker_nation)
        and int(first.get("turn", -1)) == M.turn_index(g)
    ):
        mods.add(1, "LGG 36.5-A", "first major power in Combined Doctrine")
    return mods


@implements("LGG 36.1", "LGG 16.2-B")
def artillery_support_value(g: Game, art: Piece, front: str, siege_fire: bool = False) -> int:
    """LGG 36.1 / 16.2-B: an artillery unit's support value; in Movement Doctrine it is worth only
    2 in support, except in siege fire against a besieged fortress."""
    v = int(art.stat("support", 0))
    if not siege_fire and doctrine_of(g, art.nation, front) == MOVEMENT:
        return min(v, 2)
    return v


@implements("LGG 36", "LGG 36.1", "LGG 36.3")
def french_shock(g: Game, front: str) -> bool:
    """LGG 36 / 36.3: France holds the tactic "le choc a outrance" from the start and abandons it
    for good with Fire Doctrine (1915); it keeps it through the 1914 transition."""
    if "FR" not in g.state.alignment:
        return False
    return doctrine_of(g, "FR", front) in (MOVEMENT, TRENCHES, TRANSITION)


@implements("LGG 36.1")
def french_fire_modifier(g: Game, unit: Piece, hex_index: int, front: str) -> int:
    """LGG 36.1: the fire value of a French corps is +1 on plains and -1 in forest, marsh and
    mountain, unless the printed value is +1 (option ``french-fire-penalty``, digest A-44),
    while France holds its shock tactic; a city or locality counts as its surrounding
    terrain (the terrain of the hex)."""
    if unit.nation != "FR" or not M.is_corps(unit) or not french_shock(g, front):
        return 0
    ter = mapdata.terrain_info(g, hex_index).name
    if ter in ("plains", "floodable"):
        return 1
    if ter in ("forest", "marsh", "mountain", "high_mountain"):
        return 0 if int(unit.stat("fire", 0)) == 1 else -1
    return 0


@implements("LGG 36.5-B", "LGG 16.4-J")
def general_bonus_cap(g: Game, nation: str, front: str, stack_in_movement: bool) -> int | None:
    """LGG 36.5-B / 16.4-J: the cap of the general's D12 bonus/penalty that the doctrine sets:
    a stack in movement in Combined Doctrine may again use up to +/-2 (None: the battle
    rules' ordinary cap applies)."""
    if doctrine_of(g, nation, front) == COMBINED and stack_in_movement:
        return 2
    return None


# ====================================================================== 36.2-A October 1914
def october_draws(g: Game, side: str) -> dict[str, int]:
    return dict(g.state.secrets.get(side, {}).get("october-draw", {}))


def october_choices(g: Game, side: str) -> dict[str, str]:
    return dict(g.state.secrets.get(side, {}).get("october-doctrine", {}))


@implements("LGG 36.2-A")
def october_options(g: Game, side: str, front: str) -> list[str]:
    """LGG 36.2-A (digest A-63, option ``october-switch-draw``): a side may switch to trenches on a
    front only if its own draw for that front was even."""
    draw = october_draws(g, side).get(front)
    if draw is not None and draw % 2 == 0:
        return [MOVEMENT, TRENCHES]
    return [MOVEMENT]


@implements("LGG 36.2-A")
def draw_october_markers(g: Game) -> None:
    """LGG 36.2-A: each side secretly draws one of its six numbered markers for each front."""
    for side in M.SIDES:
        for front in M.rules(g).fronts:
            r = g.roll(
                "d6",
                f"{side}: October 1914 marker draw, {front} front",
                "LGG 36.2-A",
                visible_to=[side],
            )
            g.state.secrets.setdefault(side, {}).setdefault("october-draw", {})[front] = r.natural
    M.touch(g)


@implements("LGG 36.2-A")
class OctoberTrenches(LggStep):
    """LGG 36.2-A: at the end of September 1914 each side secretly decides, front by front,
    whether it switches to trenches in October (only where its draw was even)."""

    name = "october-trenches"
    title = "October 1914: trenches or movement"
    rule = "LGG 36.2-A"

    def enter(self, g: Game, f: Frame) -> None:
        draw_october_markers(g)

    def _pending(self, g: Game, side: str) -> list[str]:
        done = october_choices(g, side)
        return [fr for fr in M.rules(g).fronts if fr not in done]

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [s for s in M.SIDES if self._pending(g, s)]

    @handles.options("october-doctrine")
    def october_doctrine_options(
        self, g: Game, f: Frame, side: str, actor: str | None
    ) -> list[Action]:
        out: list[Action] = []
        for fr in self._pending(g, side)[:1]:
            for c in october_options(g, side, fr):
                out.append({"type": "october-doctrine", "side": side, "front": fr, "choice": c})
        return out

    @handles.check("october-doctrine")
    def check_october_doctrine(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        fr = action.get("front")
        if fr not in self._pending(g, side):
            raise IllegalAction(self.rule, f"no pending decision for the {fr!r} front")
        if action.get("choice") not in october_options(g, side, str(fr)):
            raise IllegalAction(
                self.rule,
                "a side may switch to trenches only on a front where its draw was even "
                "(otherwise it stays in movement)",
            )

    @handles.apply("october-doctrine")
    def apply_october_doctrine(self, g: Game, f: Frame, action: Action) -> None:
        side, fr, choice = action["side"], action["front"], action["choice"]
        g.state.secrets.setdefault(side, {}).setdefault("october-doctrine", {})[fr] = choice
        if choice == TRENCHES:
            for n in sorted({doctrine.doctrine_country(g, p) for p in M.powers_of(g, side)}):
                doctrine.set_doctrine(g, n, fr, TRENCHES)
        M.touch(g)
        g.emit(
            "october-doctrine",
            f"{side} decides for the {fr} front",
            rule=self.rule,
            visible_to=[side],
            others=f"{side} takes its October 1914 decision for the {fr} front",
        )
        g.emit(
            "october-doctrine-detail",
            f"{side} {'switches to trenches' if choice == TRENCHES else 'stays in movement'} "
            f"on the {fr} front in October 1914",
            rule=self.rule,
            visible_to=[side],
        )
        if not self.actors(g, f):
            g.finish(f)


@implements("LGG 36.2-A")
def october_attack_limit(g: Game, side: str, front: str) -> int | None:
    """LGG 36.2-A: a side that switched to trenches on a front in October 1914 is limited to 2
    voluntary attacks per front sector there (None: no such limit)."""
    for n in M.powers_of(g, side):
        if doctrine_of(g, n, front) == TRENCHES:
            return 2
    return None


# ====================================================================== 36.2-B front formation
NO_MANS_LAND = "no_mans_land"
DISPUTED = "disputed"
FRONT_GAP = 3


def _supplied_unit_hexes(g: Game, side: str) -> set[int]:

    out = set()
    for h, plist in M.occupied(g, side).items():
        if any(M.is_corps(p) and not M.in_reserve(p) and is_supplied(g, p) for p in plist):
            out.add(h)
    return out


@implements("LGG 36.2-B")
def gap_hexes(g: Game) -> list[int]:
    """LGG 36.2-B: the empty hexes between the fronts.

    Each power's front is the position of its most advanced supplied units facing the enemy;
    an empty, passable, non-neutral hex lies between the fronts (our reading) when it is on a
    shortest path between a supplied corps of each side at most ``FRONT_GAP`` (3) hexes from
    it on either side."""
    cp, en = _supplied_unit_hexes(g, M.CP), _supplied_unit_hexes(g, M.ENTENTE)
    occupied = set(M.occupied(g, M.CP)) | set(M.occupied(g, M.ENTENTE))
    out = []
    for h in range(g.board.n):
        if h in occupied or mapdata.hex_impassable(g, h) or mapdata.is_neutral_hex(g, h):
            continue
        near_a = [a for a in cp if g.board.distance(a, h) <= FRONT_GAP]
        near_b = [b for b in en if g.board.distance(b, h) <= FRONT_GAP]
        if any(
            g.board.distance(a, h) + g.board.distance(h, b) == g.board.distance(a, b)
            for a in near_a
            for b in near_b
        ):
            out.append(h)
    return out


@implements("LGG 36.2-B")
def form_fronts(g: Game) -> None:
    """LGG 36.2-B: at the end of November-December 1914 the empty hexes between the fronts become
    no man's land for January-February 1915; at the end of January-February 1915 those still
    empty and between the fronts are disputed in March-April 1915."""
    tid = M.current_turn(g).id
    if tid == "1914-11":
        hexes = gap_hexes(g)
        for h in hexes:
            g.state.set_marker(NO_MANS_LAND, g.board.label(h), {"turn": "1915-01"})
        M.touch(g)
        g.emit(
            "no-mans-land",
            f"no man's land for January-February 1915: {', '.join(M.labels(g, hexes)) or 'none'}",
            rule="LGG 36.2-B",
            hexes=M.labels(g, hexes),
        )
    elif tid == "1915-01":
        g.state.clear_markers(NO_MANS_LAND)
        hexes = gap_hexes(g)
        for h in hexes:
            g.state.set_marker(DISPUTED, g.board.label(h), {"turn": "1915-03"})
        M.touch(g)
        g.emit(
            "disputed",
            "the front is not formed: hexes in dispute in March-April 1915: "
            f"{', '.join(M.labels(g, hexes)) or 'none'}",
            rule="LGG 36.2-B",
            hexes=M.labels(g, hexes),
        )
    elif tid == "1915-03":
        g.state.clear_markers(DISPUTED)
        M.touch(g)


@implements("LGG 36.2-B")
def no_mans_land_check(
    g: Game, act: dict[str, Any], members: list[Piece], j: int, mode: str, engage: bool
) -> None:
    """LGG 36.2-B: no man's land may not be taken by simple movement in January-February 1915
    (a move check; an attack on an enemy stack standing there is not simple movement)."""
    mk = g.state.marker(NO_MANS_LAND, g.board.label(j))
    if mk and mk.get("turn") == M.current_turn(g).id and not engage:
        raise IllegalAction(
            "LGG 36.2-B",
            f"{g.board.label(j)} is no man's land in January-February 1915: it may not "
            "be taken by simple movement this turn",
        )


# ====================================================================== 36.4 transition to Combined
TACTICS_FOR_COMBINED = (
    "infiltration",
    "blitz bombardment",
    "combined arms",
    "tactical air support",
)


def acquired_tactics(g: Game, nation: str) -> dict[str, int]:
    """Combat tactics a power acquired, with the turn index of the acquisition (rule 37 records
    them in ``state.vars["lgg"]["tactics"]`` as ``{"tactic", "nation", "turn", ...}``)."""
    out: dict[str, int] = {}
    for rec in M.st(g).get("tactics", []):
        if rec.get("nation") == nation:
            t = str(rec["tactic"])
            out[t] = min(int(rec["turn"]), out.get(t, int(rec["turn"])))
    return out


def technologies(g: Game, nation: str) -> list[str]:
    """Technologies a power has found (rule 42 records them in
    ``state.vars["lgg"]["technologies"]``)."""
    return list(M.st(g).get("technologies", {}).get(nation, []))


def turn_of_year(g: Game) -> int:
    """The number of the current turn within its year (January-February = 1)."""
    t = M.current_turn(g)
    return sum(
        1 for c in M.data(g).calendar if c.year == t.year and c.index <= t.index and not c.pre_turn
    )


def french_sector_victories(g: Game, nation: str) -> int:
    """Victorious battles (hex taken) of ``nation`` on the French sector in the previous turn
    (recorded at the end of each turn by :func:`record_victories`)."""
    prev = M.turn_index(g) - 1
    return sum(
        1
        for v in M.st(g).get("victories", [])
        if int(v["turn"]) == prev and nation in v["nations"] and "French" in v["sectors"]
    )


@implements("LGG 36.4")
def combined_test_modifiers(g: Game, nation: str) -> Modifiers:
    """LGG 36.4: the modifiers of the Combined Doctrine test of ``nation``.

    +1 per turn in 1918+ (the number of the turn in the year); +1 per tactic among
    infiltration, blitz bombardment, combined arms and air support acquired in a previous
    turn; +1 for the technology "Stosstruppen C"; +3 per victorious battle (hex taken) on
    the French sector (in the previous turn - our reading: the test comes before this turn's
    battles); -1 per failed transition test."""
    mods = Modifiers()
    if M.current_turn(g).year >= 1918:
        mods.add(turn_of_year(g), "LGG 36.4", "turn of the year in 1918+")
    cur = M.turn_index(g)
    n = sum(
        1
        for t, since in acquired_tactics(g, nation).items()
        if t in TACTICS_FOR_COMBINED and since < cur
    )
    mods.add(n, "LGG 36.4", "tactics acquired in a previous turn")
    if {"stosstruppen-c", "stosstruppen c"} & set(technologies(g, nation)):
        mods.add(1, "LGG 36.4", "technology Stosstruppen C")
    mods.add(
        3 * french_sector_victories(g, nation),
        "LGG 36.4",
        "victorious battles on the French sector",
    )
    mods.add(
        -int(M.st(g).get("combined_tests", {}).get(nation, 0)),
        "LGG 36.4",
        "failed transition tests",
    )
    return mods


@implements("LGG 36.4")
def combined_test(g: Game, side: str, nation: str) -> bool:
    """LGG 36.4: the test - D12 + modifiers >= 12. On success the power is in Combined Doctrine at
    once (its great offensive's main battle may include only its national units) and every
    country of both sides from the following turn."""
    M.st(g).setdefault("combined_tested", {})[side] = M.turn_index(g)
    r = g.roll(
        "d12",
        f"{M.nation_name(g, nation)}: transition to Combined Doctrine",
        "LGG 36.4",
        modifiers=combined_test_modifiers(g, nation),
    )
    if r.modified >= 12:
        for fr in M.FRONTS:
            doctrine.set_doctrine(g, nation, fr, COMBINED)
        M.st(g)["combined_first"] = {
            "power": doctrine.doctrine_country(g, nation),
            "turn": M.turn_index(g),
        }
        M.st(g)["combined_from"] = M.turn_index(g) + 1
        M.touch(g)
        g.emit(
            "doctrine",
            f"{M.nation_name(g, nation)} switches to Combined Doctrine; every country follows next"
            " turn",
            rule="LGG 36.4",
            nation=nation,
        )
        return True
    tests = M.st(g).setdefault("combined_tests", {})
    tests[nation] = int(tests.get(nation, 0)) + 1
    M.touch(g)
    g.emit(
        "doctrine",
        f"{M.nation_name(g, nation)} fails its transition to Combined Doctrine",
        rule="LGG 36.4",
        nation=nation,
    )
    return False


@implements("LGG 36.4")
def combined_national_units_problem(
    g: Game, act: dict[str, Any], members: list[Piece]
) -> str | None:
    """LGG 36.4: during the turn of its switch, the main battle of the first power in Combined
    Doctrine may include only that power's national units."""
    first = M.st(g).get("combined_first")
    if not first or int(first.get("turn", -1)) != M.turn_index(g) or not act.get("great_offensive"):
        return None
    power = first["power"]
    bad = [
        p.id for p in members if M.is_unit(p) and doctrine.doctrine_country(g, p.nation) != power
    ]
    if bad:
        return (
            "the main battle of the first power in Combined Doctrine takes only its national units"
            f" ({', '.join(bad)})"
        )
    return None


# ====================================================================== 36.5-B static / in movement
@implements("LGG 36.5-B")
def in_movement(g: Game, p: Piece) -> bool:
    """LGG 36.5-B: in Combined Doctrine a stack that moves or attacks is "in movement"; it becomes
    static again if it does not move or attack during its next turn (our reading: once its side
    has ended its military turn on the unit's front without the unit moving). Outside Combined
    Doctrine the status does not exist (False)."""
    h = M.hex_of(g, p)
    fronts = fronts_of(g, h) if h is not None else []
    front = fronts[0] if fronts else M.WEST
    if doctrine_of(g, p.nation, front) != COMBINED:
        return False
    mt = p.attrs.get("moved_turn")
    if mt is None:
        return False
    cur = M.turn_index(g)
    if int(mt) >= cur:
        return True
    if int(mt) == cur - 1:
        return not M.side_turn_state(g, p.side, front).ended
    return False


@implements("LGG 36.5-B")
def stack_in_movement(g: Game, units: list[Piece]) -> bool:
    """LGG 36.5-B: a stack is in movement when one of its corps is."""
    return any(in_movement(g, p) for p in units if M.is_corps(p))


# ====================================================================== 36.5-C reinforcements
@implements("LGG 36.5-C")
def combined_reinforcement_allowed(
    g: Game, distance: int, round_no: int, bombardment: str, front: str, source: str = "unit"
) -> bool:
    """LGG 36.5-C: in Combined Doctrine, reinforcements from 3 hexes or fewer follow the normal
    rules; from farther they arrive only in odd rounds, and the GHQ general artillery reserve
    (``source = "ghq-artillery"``) only from the 2nd round - except after a normal or massive
    bombardment (no restriction). On the Eastern Front HQ/GHQ reinforcements come from 6 hexes
    at most. Exactly 3 hexes is "normal" (option ``reinforcement-distance-three``, A-16)."""
    if front == M.EAST and source in ("hq", "ghq", "ghq-artillery") and distance > 6:
        return False
    if bombardment in ("normal", "massive"):
        return True
    near = distance < 3 or (distance == 3 and g.opt("reinforcement-distance-three") == "normal")
    if near:
        return True
    if source == "ghq-artillery":
        return round_no >= 2
    return round_no % 2 == 1


# ====================================================================== victories (for 36.4)
@implements("LGG 36.4")
def record_victories(g: Game) -> None:
    """Record the battles of this turn that took their hex (victorious battle, hex taken), with the
    attacking nations and the sectors, for the Combined Doctrine test of the next turn (36.4)."""
    out = [v for v in M.st(g).get("victories", []) if int(v["turn"]) >= M.turn_index(g) - 1]
    for lab, mk in sorted(g.state.markers.get("battle", {}).items()):
        if not isinstance(mk, dict) or mk.get("turn") != M.turn_index(g):
            continue
        i = g.board.idx(lab)
        side = mk.get("side")
        if mapdata.controller(g, i) != side or mapdata.conquered_turn(g, i) != M.turn_index(g):
            continue
        armies = [
            a
            for a in mk.get("coordinated") or mk.get("armies") or []
            if a in M.army_defs(g) and M.army_side(g, a) == side
        ]
        nations = sorted({M.army_nation(g, a) for a in armies})
        out.append(
            {
                "turn": M.turn_index(g),
                "hex": lab,
                "side": side,
                "nations": nations,
                "sectors": sectors_of(g, i),
            }
        )
    M.st(g)["victories"] = out
    M.touch(g)


@implements("LGG 4-A", "LGG 36.4")
def view_extra(g: Game, side: str | None) -> dict[str, Any]:
    """LGG 4-A / 36.4: the switch to Combined Doctrine is public."""
    first = M.st(g).get("combined_first")
    return {
        "combined": {
            "first": dict(first) if first else None,
            "everyone_from": M.st(g).get("combined_from"),
        }
    }


STEPS: tuple[type[Step], ...] = (OctoberTrenches,)
