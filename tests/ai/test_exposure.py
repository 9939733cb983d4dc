"""The planner's exposure term: what the side's objectives risk at the enemy's next move."""

from __future__ import annotations

import math
import random

from grognard.ai.agents import GreedyAgent, PlannerAgent
from grognard.ai.features import features_for
from grognard.ai.features.base import _reach, take_chance
from grognard.core.game import Game
from grognard.core.state import Loc
from grognard.rulesets.greatwar.mechanics import gw
from grognard.scenario import find
from grognard.search.reach import reach_generic

# gw-tutorial: the French screen east of Meaux (0405) and the units in it
SCREEN = ("fr-14d", "fr-63rd", "fr-55rd", "fr-1cd", "fr-hart")


def _tutorial() -> Game:
    return Game.new(find("gw-tutorial"), 1)


def test_take_chance_rises_with_the_odds() -> None:
    assert take_chance(0.0, 5.0) == 0.0
    assert take_chance(1.0, 0.0) == 1.0
    assert take_chance(5.0, 10.0) == 0.0
    assert 0.0 < take_chance(10.0, 10.0) < take_chance(20.0, 10.0) < 1.0
    assert take_chance(40.0, 10.0) == 1.0


def test_the_stakes_and_an_empty_objective() -> None:
    g = _tutorial()
    feats = features_for(g)
    meaux, crouy = g.board.idx("0405"), g.board.idx("0603")
    # Meaux is the last hex of the Central Powers' sudden death (they hold Soissons): its stake
    # is the whole game's points; Crouy's its own point (lost by one side, won by the other)
    assert feats.stake(g, "Entente", meaux) == 2 * feats.w_vp * 6
    assert feats.stake(g, "Entente", crouy) == 2 * feats.w_vp * 1
    # Crouy is empty with the Jager battalion next to it across the Ourcq: it falls for sure
    assert feats.exposure(g, "Entente") >= feats.stake(g, "Entente", crouy)
    # the Germans' objectives are theirs to lose, not the Entente's
    assert feats.exposure(g, "Central Powers") < feats.stake(g, "Central Powers", meaux)


def test_reach_pays_terrain_zoc_and_never_enters_the_sides_hexes() -> None:
    g = _tutorial()
    feats = features_for(g)
    steps = feats._steps(g)
    i = g.board.idx("0305")
    nbrs = set(g.board.neighbors(i))
    # one MP: the neighbours (the one-hex move), not beyond
    assert set(_reach(steps, i, 1.0, set(), set(), 1.0)) == nbrs | {i}
    # an occupied neighbour is never entered
    j = g.board.idx("0405")
    assert j not in _reach(steps, i, 3.0, {j}, set(), 1.0)
    # leaving a hex in the side's ZOC costs more: two MPs no longer go two hexes from it
    two = _reach(steps, i, 2.0, set(), set(), 1.0)
    assert set(_reach(steps, i, 2.0, set(), {i}, 1.0)) < set(two)
    # crossing the Ourcq costs 2 more (0605 -> 0705, clear, is a river hexside)
    assert feats.step_cost(g, g.board.idx("0605"), g.board.idx("0705")) == 3.0
    assert feats.attack_factor(g, g.board.idx("0705"), g.board.idx("0605")) == 0.5


def test_reach_equals_the_generic_search_it_writes_out() -> None:
    """``_reach`` is :func:`reach_generic` with the one-hex move, written out for speed: on the
    Marne map (terrain and river costs), from many hexes, with random occupied hexes and zones of
    control, both give the same hexes at the same costs."""
    g = Game.new(find("marne-1914"), 1)
    steps = features_for(g)._steps(g)
    rng = random.Random(3)
    n = g.board.n
    for _ in range(200):
        start = rng.randrange(n)
        occupied = {rng.randrange(n) for _ in range(n // 6)} - {start}
        zoc = {rng.randrange(n) for _ in range(n // 4)}
        allowance = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0])
        exit_cost = rng.choice([0.0, 1.0, 2.0])

        def neighbours(u: int, occupied: set[int] = occupied) -> list[int]:
            return [v for v, c, _ in steps[u] if v not in occupied and c != math.inf]

        def cost(u: int, v: int, zoc: set[int] = zoc, exit_cost: float = exit_cost) -> float:
            step = next(c for w, c, _ in steps[u] if w == v)
            return step + (exit_cost if u in zoc else 0.0)

        ref = reach_generic(start, allowance, neighbours, cost, minimum_move=True).state_cost
        assert _reach(steps, start, allowance, occupied, zoc, exit_cost) == ref


def test_meaux_left_to_its_headquarters_is_exposed() -> None:
    g = _tutorial()
    feats = features_for(g)
    meaux = g.board.idx("0405")
    crouy = g.board.idx("0603")
    # the screen and the artillery march off to the west edge: Meaux keeps only its HQs
    for k, pid in enumerate(SCREEN):
        g.state.move(pid, Loc.hex(g.board.idx(f"01{k + 1:02d}")))
    # any German unit that reaches Meaux or a hex next to it takes it: the whole game at stake
    after = feats.exposure(g, "Entente")
    assert after == feats.stake(g, "Entente", meaux) + feats.stake(g, "Entente", crouy)
    # the planner's evaluation sees it; the greedy's is the plain evaluation
    loss = feats.w_exposure * feats.stake(g, "Entente", meaux)
    assert feats.search_value(g, "Entente") <= feats.evaluate(g, "Entente") - loss
    assert GreedyAgent(1).value(g, "Entente", feats) == feats.evaluate(g, "Entente")
    assert PlannerAgent(1).value(g, "Entente", feats) == feats.search_value(g, "Entente")


def test_a_garrison_lowers_the_exposure() -> None:
    g = _tutorial()
    feats = features_for(g)
    for k, pid in enumerate(SCREEN):
        g.state.move(pid, Loc.hex(g.board.idx(f"01{k + 1:02d}")))
    bare = feats.exposure(g, "Entente")
    for pid in ("fr-14d", "fr-63rd", "fr-55rd"):
        g.state.move(pid, Loc.hex(g.board.idx("0405")))
    assert feats.exposure(g, "Entente") < bare


def _phasing(g: Game, side: str, turn: int) -> None:
    """Make ``side`` the phasing side in game turn ``turn`` (a constructed position)."""
    gw(g)["phasing"] = side
    g.state.turn = {"index": turn, "label": g.scenario.data.turns[turn - 1].label}


def test_no_exposure_when_no_enemy_player_turn_comes() -> None:
    g = _tutorial()
    feats = features_for(g)
    last = len(g.scenario.data.turns)
    # Meaux left to its HQs: the Germans take it in their player turn, which still comes
    for k, pid in enumerate(SCREEN):
        g.state.move(pid, Loc.hex(g.board.idx(f"01{k + 1:02d}")))
    meaux = g.board.idx("0405")
    _phasing(g, "Entente", last)
    assert feats.exposure(g, "Entente") >= feats.stake(g, "Entente", meaux)
    # the Central Powers' player turn of the last game turn: the Entente, which moved first,
    # never moves again; Soissons, emptied with French cavalry near it, risks nothing then (the
    # Entente's objectives still do: the Germans are moving)
    g.state.move("de-iiic", Loc.hex(g.board.idx("1204")))
    g.state.move("fr-1cd", Loc.hex(g.board.idx("0904")))
    _phasing(g, "Central Powers", last)
    assert feats.exposure(g, "Central Powers") == 0.0
    assert feats.search_value(g, "Central Powers") == feats.evaluate(g, "Central Powers")
    assert feats.exposure(g, "Entente") > 0.0
    # the same player turn one game turn earlier, Meaux garrisoned again (the Germans cannot
    # count on taking it and ending the game first): the Entente's next player turn comes
    for pid in ("fr-14d", "fr-63rd", "fr-55rd"):
        g.state.move(pid, Loc.hex(meaux))
    _phasing(g, "Central Powers", last - 1)
    assert 0.0 < feats.enemy_turn_chance(g, "Central Powers") <= 1.0
    assert feats.exposure(g, "Central Powers") > 0.0
    assert feats.search_value(g, "Central Powers") < feats.evaluate(g, "Central Powers")


def test_no_exposure_once_the_phasing_side_holds_its_sudden_death_hexes() -> None:
    g = _tutorial()
    feats = features_for(g)
    meaux, soissons = g.board.idx("0405"), g.board.idx("1104")
    _phasing(g, "Central Powers", 1)
    g.state.move("de-iiic", Loc.hex(g.board.idx("1204")))  # Soissons left empty
    g.state.move("fr-1cd", Loc.hex(g.board.idx("0904")))  # French cavalry near it
    assert feats.exposure(g, "Central Powers") > 0.0
    # the Germans take Meaux in their player turn: they hold Meaux and Soissons, and the check
    # at the end of it ends the game before the Entente moves again
    g.state.control[meaux] = "Central Powers"
    assert feats.owner(g, soissons) == "Central Powers"
    assert feats.exposure(g, "Central Powers") == 0.0
    # in the Entente's player turn the Entente may still take either back
    _phasing(g, "Entente", 1)
    assert feats.exposure(g, "Central Powers") > 0.0


def test_the_enemy_turn_is_discounted_by_the_chance_of_a_sudden_death_first() -> None:
    g = _tutorial()
    feats = features_for(g)
    meaux = g.board.idx("0405")
    g.state.move("de-iiic", Loc.hex(g.board.idx("1204")))  # Soissons left empty
    g.state.move("fr-1cd", Loc.hex(g.board.idx("0904")))  # French cavalry near it
    _phasing(g, "Central Powers", 1)
    # Meaux held by the screen: the Germans may not take it this player turn, so Soissons'
    # risk (the whole game) counts in full
    held = feats.exposure(g, "Central Powers")
    assert feats.enemy_turn_chance(g, "Central Powers") == 1.0
    # Meaux left to its HQs: only the attacks the Germans can make from where they stand
    # count (what movement their units have left is not known): none next to it yet
    for k, pid in enumerate(SCREEN):
        if pid != "fr-1cd":
            g.state.move(pid, Loc.hex(g.board.idx(f"01{k + 1:02d}")))
    assert feats.enemy_turn_chance(g, "Central Powers") == 1.0
    # German cavalry next to it: they take it this player turn and the check at its end ends
    # the game: the Entente's next player turn, and Soissons' risk, never come
    g.state.move("de-2cd", Loc.hex(g.board.idx("0505")))
    assert feats.take_chances(g, "Entente", [meaux], moving=False)[meaux] == 1.0
    assert feats.enemy_turn_chance(g, "Central Powers") == 0.0
    assert feats.exposure(g, "Central Powers") == 0.0 < held
    # the same for the Entente in its own player turn once its cavalry stands next to empty
    # Soissons (two hexes off, it has yet to move: not counted)
    _phasing(g, "Entente", 1)
    assert feats.enemy_turn_chance(g, "Entente") == 1.0
    g.state.move("fr-1cd", Loc.hex(g.board.idx("1004")))
    assert feats.enemy_turn_chance(g, "Entente") == 0.0


def test_the_kept_take_chances_follow_the_units() -> None:
    g = _tutorial()
    feats = features_for(g)
    held = [g.board.idx("0405"), g.board.idx("0603")]
    before = feats.take_chances(g, "Entente", held)
    assert before == feats._take_chances(g, "Entente", held, True)
    # a unit moved: the key changes and the chances are those of the new position
    for k, pid in enumerate(SCREEN):
        g.state.move(pid, Loc.hex(g.board.idx(f"01{k + 1:02d}")))
    after = feats.take_chances(g, "Entente", held)
    assert after == feats._take_chances(g, "Entente", held, True) != before
    # moved back: the first position's chances, from the cache
    g2 = _tutorial()
    assert feats.take_chances(g2, "Entente", held) == before
