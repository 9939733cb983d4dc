"""The agents: legal, reproducible, and blind to what their side may not see."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest

from grognard.ai import make_agent
from grognard.ai.agents import (
    GreedyAgent,
    Horizon,
    PlannerAgent,
    RandomAgent,
    _Child,
    candidates,
    first_roll,
)
from grognard.ai.determinise import canonical_view, decision_rng, determinise, reseed
from grognard.ai.features import BY_RULESET, features_for, is_ending
from grognard.ai.study import play_game
from grognard.core.dice import DieSpec
from grognard.core.game import Game
from grognard.core.state import Loc
from grognard.scenario import find, load_scenario

TINY = Path(__file__).resolve().parents[1] / "tinyrules" / "scenarios" / "duel.toml"


def tiny() -> Game:
    return Game.new(load_scenario(TINY), 3)


def advance_to_blue_movement(g: Game) -> None:
    """Play random actions until Blue must move (past the secret postures)."""
    rng = random.Random(5)
    while not g.is_over():
        acting = g.acting_sides()
        if acting == ["Blue"] and any(f.type == "move" for f in g.families("Blue")):
            return
        side = acting[0]
        g.apply(rng.choice(g.legal_actions(side)))
    raise AssertionError("the game ended before Blue moved")


def test_make_agent_specs() -> None:
    assert isinstance(make_agent("random"), RandomAgent)
    assert type(make_agent("greedy")) is GreedyAgent
    p = make_agent("planner:easy", 3)
    assert isinstance(p, PlannerAgent) and p.level == "easy" and p.seed == 3
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("alphago")
    with pytest.raises(ValueError, match="unknown AI level"):
        make_agent("planner:godlike")


def test_every_shipped_rule_system_has_features() -> None:
    assert set(BY_RULESET) >= {"greatwar", "lgg1418", "eastfront", "tiny"}


@pytest.mark.parametrize("spec", ["random", "greedy", "planner:easy"])
def test_agents_play_whole_tiny_games_legally(spec: str) -> None:
    sc = load_scenario(TINY)
    r = play_game(sc, {"Blue": spec, "Red": "random"}, 7, (1, 2))
    assert r["illegal"] == 0
    assert r["how"] == "game over"
    assert r["actions"] > 0


def test_greedy_does_not_lose_to_random_on_tiny() -> None:
    sc = load_scenario(TINY)
    score = 0.0
    for k in range(6):
        sides = (
            {"Blue": "greedy", "Red": "random"} if k % 2 else {"Blue": "random", "Red": "greedy"}
        )
        r = play_game(sc, sides, 11 + k, (k, k + 1))
        g_side = "Blue" if sides["Blue"] == "greedy" else "Red"
        score += r["score"][g_side]
    assert score >= 3


@pytest.mark.parametrize("spec", ["greedy", "planner:easy"])
def test_a_decision_is_reproducible_from_the_view_and_the_seed(spec: str) -> None:
    g1, g2 = tiny(), tiny()
    advance_to_blue_movement(g1)
    advance_to_blue_movement(g2)
    a1 = make_agent(spec, 9).choose(g1, "Blue")
    a2 = make_agent(spec, 9).choose(g2, "Blue")
    assert a1 == a2
    assert g1.is_legal(a1)


@pytest.mark.parametrize("spec", ["greedy", "planner:easy"])
def test_moving_the_hidden_scout_does_not_change_the_decision(spec: str) -> None:
    """No cheating (T 5): Red's scout is hidden from Blue; moving it elsewhere out of sight in
    the true state leaves Blue's view, and so Blue's decision, unchanged."""
    g1 = tiny()
    advance_to_blue_movement(g1)
    g2 = Game.load(g1.save())
    scout = g2.state.pieces["r-scout"]
    assert g2.ruleset.piece_visibility(g2, scout, "Blue") == "hidden"
    blue = {int(p.loc.ref) for p in g2.state.of_side("Blue") if p.loc.kind == "hex"}
    far = [
        i
        for i in range(g2.board.n)
        if all(g2.board.distance(i, j) > 2 for j in blue)
        and not g2.state.at_hex(i)
        and i != int(scout.loc.ref)
    ]
    g2.state.move("r-scout", Loc.hex(far[0]))
    assert g1.view("Blue") == g2.view("Blue")
    assert g1.state_hash() != g2.state_hash()
    assert make_agent(spec, 4).choose(g1, "Blue") == make_agent(spec, 4).choose(g2, "Blue")


def test_determinisation_places_the_hidden_scout_from_the_view_only() -> None:
    g1 = tiny()
    advance_to_blue_movement(g1)
    g2 = Game.load(g1.save())
    free = [i for i in range(g2.board.n) if not g2.state.at_hex(i)]
    g2.state.move("r-scout", Loc.hex(free[-1]))
    view = g1.view("Blue")
    c1 = determinise(g1, "Blue", view, decision_rng(1, view))
    c2 = determinise(g2, "Blue", view, decision_rng(1, view))
    assert c1.state.pieces["r-scout"].loc == c2.state.pieces["r-scout"].loc
    assert c1.seed == c2.seed != g1.seed  # the dice of the search are its own


def test_values_held_from_the_true_state_never_reach_a_redrawn_world() -> None:
    """A value the true game holds for the span of a phase (Cache.held) is shared with a
    determinised clone only when nothing hidden was dealt out again: lgg-tutorial hides the
    enemy's stacks (LGG 4-A), gw-tutorial hides nothing."""
    for scen, shared in (("lgg-tutorial", False), ("gw-tutorial", True)):
        g = Game.new(find(scen), 3)
        g.cache.held("probe", 1, "k", lambda: "truth")
        side = g.acting_sides()[0]
        view = g.view(side)
        c = determinise(g, side, view, decision_rng(1, view))
        got = c.cache.held("probe", 1, "k", lambda: "world")
        assert got == ("truth" if shared else "world"), scen


def lgg_decision() -> Game:
    """lgg-tutorial after its first random actions, at a decision of the Entente (the Central
    Powers' corps are anonymous stacks for it, LGG 4-A)."""
    g = Game.new(find("lgg-tutorial"), 2)
    rng = random.Random(3)
    while True:
        acting = g.acting_sides()
        if acting == ["Entente"] and len(g.legal_actions("Entente")) > 3:
            return g
        g.apply(rng.choice(g.legal_actions(acting[0])))


def test_swapping_hidden_stacks_does_not_change_the_decision() -> None:
    """No cheating (LGG 4-A): swapping two anonymous Central Powers pieces between their hexes
    leaves the Entente's view, its determinisation and its decision unchanged."""
    g1 = lgg_decision()
    g2 = Game.load(g1.save())
    hidden = [
        p
        for p in g2.state.pieces.values()
        if p.side != "Entente"
        and p.loc.kind == "hex"
        and g2.ruleset.piece_visibility(g2, p, "Entente") == "stack"
    ]
    a = hidden[0]
    b = next(p for p in hidden if p.loc != a.loc and p.type != a.type)
    la, lb = a.loc, b.loc
    g2.state.move(a.id, lb)
    g2.state.move(b.id, la)
    v1, v2 = g1.view("Entente"), g2.view("Entente")
    assert canonical_view(v1) == canonical_view(v2) and v1["log"] == v2["log"]
    assert g1.state_hash() != g2.state_hash()
    view = g1.view("Entente")
    c1 = determinise(g1, "Entente", view, decision_rng(5, view))
    c2 = determinise(g2, "Entente", view, decision_rng(5, view))
    assert {p.id: p.loc for p in c1.state.pieces.values()} == {
        p.id: p.loc for p in c2.state.pieces.values()
    }
    assert make_agent("greedy", 2).choose(g1, "Entente") == make_agent("greedy", 2).choose(
        g2, "Entente"
    )


def test_candidates_always_offer_the_ending_action() -> None:
    g = tiny()
    advance_to_blue_movement(g)
    cands = candidates(g, "Blue", features_for(g), random.Random(1), 3)
    assert any(a["type"] == "end-phase" for a in cands)
    assert all(g.is_legal(a) for a in cands)


@pytest.mark.parametrize("ref", ["gw-tutorial", "lgg-tutorial", "eastfront-tutorial"])
def test_features_of_each_rule_system(ref: str) -> None:
    g = Game.new(find(ref), 1)
    f = features_for(g)
    vp = f.victory_points(g)
    assert set(vp) == set(g.state.sides)
    assert f.objectives(g)
    assert all(v == 0 for v in f.casualties(g).values())
    assert all(v > 0 for v in f.material(g).values())
    for s in g.state.sides:
        assert isinstance(f.evaluate(g, s), float)


def test_victory_points_read_as_each_rule_system_counts_them() -> None:
    from grognard.rulesets.greatwar.sequence import victory as gw_victory
    from grognard.rulesets.lgg1418.map import victory as lgg_victory

    for ref, own in (("marne-1914", gw_victory.points), ("lgg-west-1914", lgg_victory.scores)):
        g = Game.new(find(ref), 1)
        mine = features_for(g).victory_points(g)
        assert mine == {s: float(n) for s, n in own(g).items()}, ref


def test_an_eliminated_lgg_corps_counts_as_a_casualty() -> None:
    g = Game.new(find("lgg-tutorial"), 1)
    f = features_for(g)
    corps = next(p for p in g.state.pieces.values() if p.type == "corps")
    before = f.material(g)[corps.side]
    g.state.move(corps.id, Loc.box("lgg:eliminated"))
    assert f.eliminated(g, corps)
    assert f.casualties(g)[corps.side] == f.best_value(corps) > 0
    assert f.material(g)[corps.side] == before - f.value(corps)


def test_a_truncated_game_goes_to_the_side_that_gained_points_since_the_start() -> None:
    """At a turn limit the opening position does not decide: marne-1914 starts with the Entente
    14 points ahead; a Central Powers gain of 2 points wins the truncated game, no change with
    more losses inflicted wins on losses, and nothing done at all is a draw."""
    from grognard.ai.study import snapshot

    g = Game.new(find("marne-1914"), 1)
    f = features_for(g)
    start = snapshot(g)
    assert f.leader(g) == "Entente"  # ahead on points, without a baseline
    assert f.leader(g, start) is None
    assert f.outcome_score(g, "Central Powers", start) == 0.5
    brussels = next(
        i for i, pts in f.objectives(g).items() if pts == 2 and f.owner(g, i) == "Entente"
    )
    g.state.control[brussels] = "Central Powers"
    assert f.leader(g, start) == "Central Powers"
    assert f.outcome_score(g, "Central Powers", start) == 1.0
    assert f.outcome_score(g, "Entente", start) == 0.0
    g.state.control[brussels] = "Entente"
    victim = next(
        p
        for p in g.state.pieces.values()
        if p.side == "Central Powers" and f.value(p) > 0 and f.on_map(g, p)
    )
    g.state.move(victim.id, Loc.box("eliminated"))
    assert f.leader(g, start) == "Entente"


def test_lgg_siege_progress_credits_the_besieger_of_an_objective_fortress() -> None:
    """LGG 23-D: infantry standing beside an enemy objective fortress, with no enemy corps outside
    it, is on its way to a siege; cavalry alone is not (LGG 23-D); a reduced fortress (LGG 23-F)
    is worth more to its besieger."""
    g = Game.new(find("lgg-tutorial"), 1)
    f = features_for(g)
    fort = next(
        p
        for p in g.state.pieces.values()
        if p.type == "fortress"
        and p.side == "Entente"
        and g.board.idx(g.board.label(int(p.loc.ref))) in f.objectives(g)
    )
    i = int(fort.loc.ref)
    for p in list(g.state.at_hex(i)):
        if p.type == "corps":
            g.state.move(p.id, Loc.box("lgg:eliminated"))
    assert f.siege_progress(g)["Central Powers"] == 0.0
    cav = next(
        p
        for p in g.state.pieces.values()
        if p.side == "Central Powers" and p.type == "corps" and p.attrs.get("arm") == "cavalry"
    )
    g.state.move(cav.id, Loc.hex(i))
    assert f.siege_progress(g)["Central Powers"] == 0.0
    inf = next(
        p
        for p in g.state.pieces.values()
        if p.side == "Central Powers" and p.type == "corps" and p.attrs.get("arm") == "infantry"
    )
    g.state.move(inf.id, Loc.hex(i))
    pts = f.objectives(g)[i]
    before = f.evaluate(g, "Central Powers")
    assert f.siege_progress(g)["Central Powers"] == pytest.approx(f.siege_credit * pts)
    fort.face = "reduced"
    assert f.siege_progress(g)["Central Powers"] == pytest.approx(
        (f.siege_credit + f.reduced_credit) * pts
    )
    assert f.evaluate(g, "Central Powers") > before


def test_hidden_stacks_are_not_dealt_into_hexes_the_side_stands_in() -> None:
    """The sampler deals anonymous enemy pieces to the view's markers, but not to a marker in a
    hex where the side's own pieces stand (there it shows a visible fortress's garrison)."""
    g = Game.new(find("lgg-tutorial"), 1)
    fort = next(p for p in g.state.pieces.values() if p.type == "fortress" and p.side == "Entente")
    i = int(fort.loc.ref)
    for p in list(g.state.at_hex(i)):
        if p.type == "corps":
            g.state.move(p.id, Loc.box("lgg:eliminated"))
    inf = next(
        p for p in g.state.pieces.values() if p.side == "Central Powers" and p.type == "corps"
    )
    g.state.move(inf.id, Loc.hex(i))
    view = g.view("Central Powers")
    assert any(m.get("loc") == ["hex", g.board.label(i)] for m in view.get("stacks", []))
    for seed in range(5):
        c = determinise(g, "Central Powers", view, random.Random(seed))
        assert not [p.id for p in c.state.at_hex(i) if p.side == "Entente" and p.type != "fortress"]


def test_lgg_assault_waits_for_the_surrender_test_until_the_last_turn() -> None:
    """LGG 23-E / 23-G: a full-strength fortress is assaulted only on the scenario's last turn
    (a failed assault ends the siege and its surrender tests); siege fire comes first (LGG
    23-F); a neutralised fortress is assaulted at once."""
    g = Game.new(find("lgg-tutorial"), 1)
    f = features_for(g)
    fort = next(p for p in g.state.pieces.values() if p.type == "fortress")
    lab = g.board.label(int(fort.loc.ref))
    cp = "Central Powers"
    assault = {"type": "assault", "side": cp, "hex": lab}
    fire = {"type": "siege-fire", "side": cp, "hex": lab, "artillery": []}
    end = {"type": "end-siege", "side": cp}
    assert f.prior(g, cp, assault) < f.prior(g, cp, end) < f.prior(g, cp, fire)
    fort.status.add("neutralized")
    assert f.prior(g, cp, assault) > f.prior(g, cp, fire)
    g2 = Game.new(find("lgg-tutorial"), 1)
    rng = random.Random(3)
    while len(g2.checkpoints) < 1 or g2.turn_label() == g.turn_label():
        g2.apply(rng.choice(g2.legal_actions(g2.acting_sides()[0])))
    assert f.prior(g2, cp, {**assault, "hex": lab}) > f.prior(g2, cp, end)


def lgg_at_step(step: str, side: str = "Central Powers") -> Game:
    """lgg-tutorial played at random up to a decision of ``side`` in ``step``."""
    g = Game.new(find("lgg-tutorial"), 4)
    rng = random.Random(5)
    for _ in range(2000):
        acting = g.acting_sides()
        if acting == [side] and g.state.frames[-1].step == step:
            return g
        g.apply(rng.choice(g.legal_actions(acting[0])))
    raise AssertionError(f"no {step} decision of {side}")


def test_lgg_planner_plays_a_march_out_to_the_end_of_its_activation() -> None:
    """LGG 3-C: an activation's battles follow all its movement, so the planner values a march
    by the position the activation ends in: the play-out ends the movement when it comes back to
    the side and plays the activation's remaining steps out, whoever decides them."""
    g = lgg_at_step("activation-movement")
    feats = features_for(g)
    plan = Horizon.of(g, feats)
    assert plan is not None and plan.own == len(g.state.frames)
    assert g.state.frames[plan.depth].step == "army-activation"
    side = "Central Powers"
    move = next(a for a in g.legal_actions(side) if a["type"] == "move")
    c = g.clone()
    c.apply(move)
    turn = c.turn_label()
    end = PlannerAgent(1).played_out(c, side, feats, random.Random(2), plan)
    assert end.is_over() or end.turn_label() != turn or len(end.state.frames) <= plan.depth
    assert len(end.actions) > len(c.actions) + 1  # the ending and what followed it were played


def test_lgg_planner_plays_an_activation_out_until_the_next_choice() -> None:
    """LGG 3-C: a choice of activation is valued by the whole activation it starts, played out
    until the side chooses again (or its turn is over)."""
    g = lgg_at_step("choose-activation")
    feats = features_for(g)
    plan = Horizon.of(g, feats)
    assert plan is not None and plan.own is None and plan.depth == len(g.state.frames)
    side = "Central Powers"
    act = next(a for a in g.legal_actions(side) if a["type"] == "activate")
    c = g.clone()
    c.apply(act)
    turn = c.turn_label()
    end = PlannerAgent(1).played_out(c, side, feats, random.Random(2), plan)
    done = end.is_over() or end.turn_label() != turn or len(end.state.frames) < plan.depth
    again = len(end.state.frames) == plan.depth and end.state.frames[-1].step == "choose-activation"
    assert done or again
    assert len(end.actions) > len(c.actions)


def test_ot_planner_keeps_its_depth_bounded_rollouts() -> None:
    """Over There names no horizon: the planner's rollouts stay bounded by its level's depth."""
    g = Game.new(find("gw-tutorial"), 1)
    assert Horizon.of(g, features_for(g)) is None


def test_rival_candidates_are_played_out_in_the_same_worlds_with_the_same_dice() -> None:
    """Common random numbers: the planner plays every candidate out from the same sampled
    worlds with the same dice, so that two candidates differ only by what they do (here the same
    march twice: the values are equal sample by sample), each candidate as often as the others."""
    g = lgg_at_step("activation-movement")
    feats = features_for(g)
    plan = Horizon.of(g, feats)
    assert plan is not None
    side = "Central Powers"
    legal = g.legal_actions(side)
    move = next(a for a in legal if a["type"] == "move")
    other = next(a for a in legal if a != move)
    kids = [_Child(move, 0.0), _Child(dict(move), 0.0), _Child(other, 0.0)]
    view = g.view(side)
    PlannerAgent(3).paired(g, side, view, decision_rng(3, view), feats, kids, plan)
    assert kids[0].values == kids[1].values and len(kids[0].values) == 2
    assert [k.n for k in kids] == [2, 2, 2]


def marne_first_attacks() -> tuple[Game, list[dict]]:
    """marne-1914 (seed 1) at the Entente's first combat segment, every phase before it ended."""
    g = Game.new(find("marne-1914"), 1)
    for _ in range(100):
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        attacks = [a for a in legal if a.get("type") == "attack"]
        if attacks:
            return g, attacks
        g.apply(next((a for a in legal if is_ending(a)), legal[0]))
    raise AssertionError("no attack offered")


def test_an_attack_is_valued_by_its_expectation_over_the_combat_roll() -> None:
    """The one-step value of an action that rolls a die is its expectation over that roll (each
    natural forced on a clone of the same world), not the value after one sampled roll: the same
    whatever the dice of the world it is tried in."""
    g, attacks = marne_first_attacks()
    side = g.acting_sides()[0]
    agent = GreedyAgent(seed=1)
    feats = features_for(g)
    a = attacks[0]
    c = g.clone()
    since = len(c.state.log)
    c.apply(a)
    natural, dist = first_roll(c, since)
    assert sorted(dist) == [1, 2, 3, 4, 5, 6] and 1 <= natural <= 6
    by_roll = []
    for n in dist:
        c = g.clone()
        c.force_dice([n])
        c.apply(a)
        by_roll.append(feats.evaluate(c, side))
    assert len(set(by_roll)) > 1, "the roll matters to this attack"
    want = sum(by_roll) / 6
    values = set()
    for seed in (1, 2, 3):
        base = g.clone()
        reseed(base, random.Random(seed))
        values.add(round(agent.after(base, side, a, feats, random.Random(0), samples=1), 9))
    assert values == {round(want, 9)}


def test_die_distributions_are_exact() -> None:
    assert DieSpec.parse("d6").distribution() == {n: Fraction(1, 6) for n in range(1, 7)}
    two = DieSpec.parse("2d6").distribution()
    assert two[7] == Fraction(1, 6) and two[2] == two[12] == Fraction(1, 36)
    assert sum(two.values()) == 1
    assert DieSpec.parse("d6/2").distribution() == {
        1: Fraction(1, 3),
        2: Fraction(1, 3),
        3: Fraction(1, 3),
    }


def test_the_preference_for_attacking_never_outweighs_an_attacks_expected_losses() -> None:
    """On a large map (marne-1914, 3,000 strength points in play) the rule system's preference
    for attacks over ending the segment is worth a fraction of one strength point, as on a small
    one: an attack expected to cost the attacker several points more than the defender loses
    to ending the segment, one expected to gain beats it."""
    g, attacks = marne_first_attacks()
    side = g.acting_sides()[0]
    agent = GreedyAgent(seed=1)
    feats = features_for(g)
    end = next(a for a in g.legal_actions(side) if is_ending(a))
    unit = feats.point_value(g)
    base = g.clone()
    v0 = feats.evaluate(base, side)
    rng = random.Random(0)
    ending = agent.score(g, base, side, end, feats, rng)
    by_gain = {}
    for a in attacks:
        gain = (agent.after(base, side, a, feats, rng, samples=1) - v0) / unit
        by_gain[gain] = a  # in strength points
    costly = [a for gain, a in by_gain.items() if -20 < gain < -3]
    best = by_gain[max(by_gain)]
    assert costly and max(by_gain) > 3
    for a in costly:
        assert agent.score(g, base, side, a, feats, rng) < ending
    assert agent.score(g, base, side, best, feats, rng) > ending
