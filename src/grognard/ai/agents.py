"""The agents: ``random``, ``greedy`` and ``planner``.

Every agent plays through the public :class:`~grognard.core.game.Game` API as a person does: it
reads ``g.view(side)`` and the side's legal actions (``families``), and searches only on
determinised clones (:mod:`grognard.ai.determinise`). A decision is a function of the view, the
legal actions and the agent's seed: replaying a game with the same seeds gives the same moves.

* ``random``: self-play's chooser (uniform, ending a phase now and then).
* ``greedy``: one step ahead. It draws a bounded set of candidates from the families (every
  ending action, then actors and options round-robin over the action types, in the rule system's
  order of preference), applies each on the clone and keeps the best by the rule system's
  evaluation (:mod:`grognard.ai.features`).
* ``planner``: the greedy's candidates valued by their expectation over the dice (the exact
  distribution from ``Game.chance_outcomes`` when the rule system gives one, else several
  reseeded rolls), then a search with progressive widening over the best of them: each
  iteration picks a candidate by UCB1 among the first ``1 + sqrt(n)`` (ordered by the one-step
  value), plays it on a fresh determinisation and continues the turn with cheap greedy
  decisions for whoever acts (the opponent's replies inside the turn too) until ``depth`` more
  decisions of either side, and scores the position. The
  budget is counted in iterations (levels ``easy``, ``normal``, ``hard``), never in seconds.
  Each level also caps what one side spends in one game turn (expansions, fewer on a map with
  many pieces): a decision whose share of what is left would not pay for the full search keeps
  the one-step values of fewer candidates, so that a turn of a big scenario (a hundred units
  moving hex by hex) takes about as long as one of a small one.
"""

from __future__ import annotations

import math
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.ai.determinise import decision_rng, determinise, reseed
from grognard.ai.features import Features, features_for, is_ending
from grognard.core.actions import without_mark
from grognard.core.dice import DieSpec
from grognard.core.errors import GrognardError
from grognard.selfplay import random_choice

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.core.sequence import Action, Family

# failures of rule code on a sampled world count as "this candidate is unavailable there"
SIM_ERRORS = (GrognardError, ValueError, KeyError, IndexError, TypeError, AssertionError)
BAD = -1e9


@dataclass
class SearchStats:
    """What an agent has spent so far (benchmarks read it)."""

    decisions: int = 0
    expansions: int = 0  # actions applied on clones
    evaluations: int = 0  # positions scored
    failures: int = 0  # simulated actions refused or failing in a sampled world
    seconds: float = 0.0
    limited: int = 0  # decisions held back to one-step values by the turn's budget

    def to_json(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "expansions": self.expansions,
            "evaluations": self.evaluations,
            "failures": self.failures,
            "limited": self.limited,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class Level:
    """A planner's budget: candidates per decision, dice samples when no exact distribution is
    known, iterations of the search, decisions per rollout, candidates per rollout decision,
    and the expansions one side may spend in one game turn (see :meth:`PlannerAgent.share`)."""

    width: int
    samples: int
    top: int
    iterations: int
    depth: int
    rollout_width: int
    turn_budget: int

    def full_cost(self) -> float:
        """About what one decision searched in full costs, in expansions: the one-step values
        of the candidates (some roll dice), then the rollouts."""
        return 1.5 * self.width + self.iterations * (1 + 2 * self.depth * self.rollout_width)


LEVELS: Mapping[str, Level] = {
    "easy": Level(
        width=12, samples=2, top=2, iterations=2, depth=1, rollout_width=3, turn_budget=3000
    ),
    "normal": Level(
        width=16, samples=3, top=3, iterations=6, depth=2, rollout_width=3, turn_budget=8000
    ),
    "hard": Level(
        width=24, samples=4, top=4, iterations=16, depth=3, rollout_width=5, turn_budget=32000
    ),
}
# a turn's budget is for a map with at most this many pieces on it; on a bigger map it shrinks
# in proportion (every expansion there costs more: clones, listings and evaluations scale with
# the pieces), so that a level takes about as long per turn on a big map as on a small one
BUDGET_PIECES = 24
# the fewest candidates a decision held back by the turn's budget still compares
MIN_WIDTH = 3
GREEDY_WIDTH = 12
# the rule system's preference between action types breaks near-ties of value (an LGG army's
# activation changes nothing by itself, and would otherwise lose to ending the phase); it is
# worth this many strength points of material (Features.point_value), in every scenario alike,
# so that it never outweighs an attack's expected losses on a large map
PRIOR_POINTS = 0.35


class Agent(ABC):
    """Base class: ``choose(g, side)`` returns one of ``side``'s legal actions; each agent
    implements :meth:`decide`."""

    name = "agent"

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)
        self.stats = SearchStats()

    @property
    def spec(self) -> str:
        """The agent as ``make_agent`` names it (``greedy``, ``planner:hard``...): the mark
        its actions carry in a game's record."""
        level = getattr(self, "level", None)
        return f"{self.name}:{level}" if level else self.name

    def choose(self, g: Game, side: str) -> Action:
        t0 = time.perf_counter()
        fams = [f for f in g.families(side)]
        if not fams:
            raise GrognardError(f"{side} has no legal action now")
        view = g.view(side)
        rng = decision_rng(self.seed, view, self.name)
        try:
            return self.decide(g, side, view, rng)
        finally:
            self.stats.decisions += 1
            self.stats.seconds += time.perf_counter() - t0

    @abstractmethod
    def decide(self, g: Game, side: str, view: Mapping[str, Any], rng: random.Random) -> Action:
        """One of ``side``'s legal actions, decided from ``view`` (and search on ``g``'s
        determinised clones) with the decision's own random stream ``rng``."""


class RandomAgent(Agent):
    """Self-play's chooser over the flattened legal actions."""

    name = "random"

    def decide(self, g: Game, side: str, view: Mapping[str, Any], rng: random.Random) -> Action:
        return random_choice(g, side, g.legal_actions(side), rng)


def candidates(
    g: Game,
    side: str,
    feats: Features,
    rng: random.Random,
    width: int,
    fams: list[Family] | None = None,
) -> list[Action]:
    """Up to ``width`` legal actions of ``side`` drawn from its families (plus every ending
    action): the families in the rule system's order of preference, then actors and their
    options round-robin, at random within each. Only the options of the actors drawn are
    listed. ``fams``: the side's families, when the caller has them already."""
    out: list[Action] = []
    ranked: list[tuple[float, float, list[Any], Any, list[Action]]] = []
    if fams is None:
        fams = g.families(side)
    done = own_run(g, side)
    if len(done) >= MAX_RUN:
        return [a for fam in fams for a in fam.all() if is_ending(a)] or [
            a for fam in fams for a in fam.all()
        ][:1]
    for fam in fams:
        order = list(fam.actors())
        rng.shuffle(order)
        first: list[Action] = []
        while order and not first:
            first = list(fam.options(order.pop()))
        if not first:
            continue
        if all(is_ending(a) for a in first):
            out.extend(first)  # ending actions are always candidates
            continue
        ranked.append((-feats.prior(g, side, first[0]), rng.random(), order, fam, first))
    ranked.sort(key=lambda r: (r[0], r[1]))
    pending = [list(r[4]) for r in ranked]
    for opts in pending:
        rng.shuffle(opts)
        feats.order_options(g, side, opts)
    per_actor = feats.options_per_actor
    taken = [0] * len(ranked)
    # how many options a family gives each round: 1, or by its prior with ``draws_by_prior``
    draws = [max(1, int(-r[0])) if feats.draws_by_prior and -r[0] >= 1 else 1 for r in ranked]
    seen = {_key(a) for a in out}
    limit = max(int(width * feats.width_scale), len(out) + 1)
    while len(out) < limit and ranked:
        progressed = False
        for k, (_, _, order, fam, _) in enumerate(ranked):
            for _ in range(draws[k]):
                if len(out) >= limit:
                    break
                if per_actor and taken[k] >= per_actor and order:
                    pending[k] = []  # the next actor: the best options of several actors
                if not pending[k] and order:
                    pending[k] = list(fam.options(order.pop()))
                    rng.shuffle(pending[k])
                    feats.order_options(g, side, pending[k])
                    taken[k] = 0
                if pending[k]:
                    a = pending[k].pop()
                    taken[k] += 1
                    ka = _key(a)
                    if ka not in seen and ka not in done:
                        seen.add(ka)
                        out.append(a)
                    progressed = True
        if not progressed:
            break
    if not out and ranked:
        out.append(ranked[0][4][0])  # everything was done already in this run: repeat one
    return out


def _key(a: Mapping[str, Any]) -> str:
    return repr(sorted(a.items()))


MAX_RUN = 600  # own decisions in a row after which only ending the phase is considered


def own_run(g: Game, side: str) -> set[str]:
    """The side's own actions since another side last acted (what it did itself, so it knows
    them). An action already taken in this run is not a candidate again: it would undo a
    neutral step or repeat a cycle (attach, detach, attach...)."""
    out = set()
    for a in reversed(g.actions):
        if a.get("side") != side:
            break
        out.add(_key(without_mark(a)))
    return out


class GreedyAgent(Agent):
    """One step ahead over a bounded set of candidates (see the module docstring)."""

    name = "greedy"
    width = GREEDY_WIDTH

    def decide(self, g: Game, side: str, view: Mapping[str, Any], rng: random.Random) -> Action:
        feats = features_for(g)
        base = determinise(g, side, view, rng)
        cands = candidates(g, side, feats, rng, self.width)
        if len(cands) == 1:
            return cands[0]
        best, best_v = cands[0], BAD
        for a in cands:
            v = self.score(g, base, side, a, feats, rng)
            if v > best_v + 1e-9:
                best, best_v = a, v
        return best

    def score(
        self, g: Game, base: Game, side: str, a: Action, feats: Features, rng: random.Random
    ) -> float:
        """The greedy's value of ``a`` (:meth:`after` on the determinised ``base``) with the
        rule system's preference for its type added, worth :data:`PRIOR_POINTS` strength points
        a unit (BAD if it cannot be played)."""
        v = self.after(base, side, a, feats, rng, samples=1)
        if v <= BAD:
            return BAD
        return v + PRIOR_POINTS * feats.point_value(g) * feats.prior(g, side, a)

    def after(
        self,
        base: Game,
        side: str,
        a: Action,
        feats: Features,
        rng: random.Random,
        samples: int,
        exact: bool = False,
    ) -> float:
        """The value of ``a`` for ``side``: its expectation over the chance outcomes the rule
        system describes (``exact``); else, when applying it rolls dice, its expectation over
        the first roll it makes (:func:`first_roll`: one apply per value of the die, so that a
        choice between attacks is not decided by one lucky sampled roll); else the mean over
        ``samples`` reseeded plays (none of which rolled)."""
        try:
            # checked on the base first: it is refused there without a clone, and what the check
            # computes stays in the base's cache for every clone made from it
            legal = base.is_legal(a)
        except SIM_ERRORS:
            legal = False
        if not legal:
            self.stats.failures += 1
            return BAD
        outcomes = None
        if exact:
            try:
                outcomes = base.chance_outcomes(a)
            except SIM_ERRORS:
                outcomes = None
        if outcomes:
            total = 0.0
            for o in outcomes:
                c = base.clone()
                c.force_dice(o.naturals)
                v = self._play(c, side, a, feats)
                if v <= BAD:
                    return BAD
                total += float(o.probability) * v
            return total
        c = base.clone()
        since = len(c.state.log)
        dice = c.state.dice_counter
        first = self._play(c, side, a, feats)
        if first <= BAD:
            return BAD
        if c.state.dice_counter == dice:
            # nothing was rolled: the play depends on no die, so a play with other dice would
            # end in the same position (every random draw goes through the dice); the other
            # samples' seeds are still drawn, so that the decision's random stream runs on as
            # it would
            for _ in range(1, max(1, samples)):
                rng.randrange(1, 2**62)  # the seed reseed() would draw
            return first
        rolled = first_roll(c, since)
        if rolled is not None:
            # the action rolled: its expectation over that first roll, each value forced on a
            # clone of the same world (later rolls, if any, come from the clone's own dice)
            natural, dist = rolled
            total = 0.0
            for n, prob in dist.items():
                if n == natural:
                    v = first
                else:
                    c = base.clone()
                    c.force_dice([n])
                    v = self._play(c, side, a, feats)
                    if v <= BAD:
                        return BAD
                total += float(prob) * v
            return total
        vals = [first]  # a roll of a die too big to enumerate: reseeded samples
        for _ in range(1, max(1, samples)):
            c = base.clone()
            reseed(c, rng)
            v = self._play(c, side, a, feats)
            if v <= BAD:
                return BAD
            vals.append(v)
        return sum(vals) / len(vals)

    def _play(self, c: Game, side: str, a: Action, feats: Features) -> float:
        try:
            c.apply(a)
        except SIM_ERRORS:
            self.stats.failures += 1
            return BAD
        self.stats.expansions += 1
        self.stats.evaluations += 1
        return self.value(c, side, feats)

    def value(self, g: Game, side: str, feats: Features) -> float:
        """How good ``g`` is for ``side``: the rule system's :meth:`Features.evaluate`."""
        return feats.evaluate(g, side)


@dataclass
class _Child:
    action: Action
    prior: float
    n: int = 0
    total: float = 0.0
    values: list[float] = field(default_factory=list)

    def mean(self) -> float:
        return self.total / self.n if self.n else self.prior


class PlannerAgent(GreedyAgent):
    """Search with progressive widening over the decision's candidates (module docstring)."""

    name = "planner"

    def __init__(self, seed: int = 0, level: str = "normal") -> None:
        super().__init__(seed)
        if level not in LEVELS:
            raise ValueError(f"unknown AI level {level!r} (one of {', '.join(LEVELS)})")
        self.level = level
        self.budget = LEVELS[level]
        self._turn: tuple[str, str] | None = None  # the game turn and side being spent for
        self._turn_start = 0  # expansions spent before it

    def value(self, g: Game, side: str, feats: Features) -> float:
        """The planner's evaluation: :meth:`Features.search_value` (the greedy's evaluation less
        what the side's objectives risk at the enemy's next move, where the rule system weighs
        it), for the rollouts' decisions of either side too."""
        return feats.search_value(g, side)

    def turn_budget(self, g: Game) -> float:
        """The expansions the level may spend for one side in one game turn on this map: the
        level's budget, in proportion smaller on a map with more than :data:`BUDGET_PIECES`
        pieces on it."""
        on_map = sum(1 for p in g.state.pieces.values() if p.loc.kind == "hex")
        return self.budget.turn_budget * min(1.0, BUDGET_PIECES / max(1, on_map))

    def share(self, g: Game, side: str, actors: int) -> float:
        """The expansions this decision may spend: what is left of the side's budget for the
        game turn, shared between this decision and one more for each actor that may still act
        in the step (a rough count of the decisions ahead in the turn)."""
        key = (g.turn_label(), side)
        if key != self._turn:
            self._turn = key
            self._turn_start = self.stats.expansions
        left = self.turn_budget(g) - (self.stats.expansions - self._turn_start)
        return max(0.0, left) / (1 + actors)

    def decide(self, g: Game, side: str, view: Mapping[str, Any], rng: random.Random) -> Action:
        b = self.budget
        feats = features_for(g)
        base = determinise(g, side, view, rng)
        fams = g.families(side)
        actors = sum(len(fam.actors()) for fam in fams if not is_ending({"type": fam.type}))
        share = self.share(g, side, actors)
        width = b.width
        iterations = b.iterations
        if share < b.full_cost():
            # the turn's budget does not run to a full search of this decision: the one-step
            # values (expectations over the dice) of as many candidates as it pays for
            iterations = 0
            width = max(MIN_WIDTH, min(b.width, int(share / 1.5)))
            self.stats.limited += 1
        cands = candidates(g, side, feats, rng, width, fams)
        if len(cands) == 1:
            return cands[0]
        kids = []
        prior_weight = PRIOR_POINTS * feats.point_value(g)
        for a in cands:
            v = self.after(base, side, a, feats, rng, samples=b.samples, exact=True)
            if v > BAD:
                kids.append(_Child(a, v + prior_weight * feats.prior(g, side, a)))
        if not kids:
            return cands[0]
        kids.sort(key=lambda k: -k.prior)
        kids = kids[: b.top]
        plan = Horizon.of(g, feats)
        if len(kids) == 1 or iterations == 0:
            return kids[0].action
        if plan is not None:
            return self.paired(g, side, view, rng, feats, kids, plan).action
        scale = max(1.0, max(k.prior for k in kids) - min(k.prior for k in kids))
        for it in range(b.iterations):
            allowed = kids[: min(len(kids), 1 + math.isqrt(it + 1))]
            total_n = sum(k.n for k in allowed) + 1
            child = max(
                allowed,
                key=lambda k: (
                    math.inf
                    if k.n == 0
                    else k.mean() + 0.7 * scale * math.sqrt(math.log(total_n) / k.n)
                ),
            )
            world = determinise(g, side, view, rng)
            v = self._play(world, side, child.action, feats)
            if v > BAD:
                v = self.rollout(world, side, feats, rng)
            child.n += 1
            child.total += v
            child.values.append(v)
        # the rollouts' horizon differs from the one-step values': compare like with like
        visited = [k for k in kids if k.n]
        return max(visited, key=lambda k: (k.mean(), k.prior)).action

    def paired(
        self,
        g: Game,
        side: str,
        view: Mapping[str, Any],
        rng: random.Random,
        feats: Features,
        kids: list[_Child],
        plan: Horizon,
    ) -> _Child:
        """The best of ``kids`` by play-outs to the decision's horizon, each candidate played
        out in the same sampled worlds with the same dice (common random numbers: the k-th
        play-out of every candidate starts from the k-th world), so that the candidates differ
        by what they do rather than by their luck; the level's iterations shared equally."""
        rounds = max(1, self.budget.iterations // len(kids))
        seeds = [rng.randrange(1, 2**62) for _ in range(rounds)]
        for k in seeds:
            for kid in kids:
                r = random.Random(k)
                world = determinise(g, side, view, r)
                v = self._play(world, side, kid.action, feats)
                if v > BAD:
                    v = self.play_out(world, side, feats, r, plan)
                kid.n += 1
                kid.total += v
                kid.values.append(v)
        return max(kids, key=lambda k: (k.mean(), k.prior))

    def play_out(
        self, c: Game, side: str, feats: Features, rng: random.Random, plan: Horizon
    ) -> float:
        """Play on to the decision's horizon (:meth:`Features.horizon`) with cheap greedy
        decisions for whoever acts, the decision's own step ended at once whenever it comes
        back to the side (its value is the position it would end in: an activation's battles
        follow its movement), and score the position for ``side``. Bounded by
        :data:`PLAY_OUT_CAP` decisions and by the end of the game turn."""
        end = self.played_out(c, side, feats, rng, plan)
        self.stats.evaluations += 1
        return self.value(end, side, feats)

    def played_out(
        self, c: Game, side: str, feats: Features, rng: random.Random, plan: Horizon
    ) -> Game:
        """The position a play-out (:meth:`play_out`) of ``c`` ends in."""
        turn = c.turn_label()
        for _ in range(PLAY_OUT_CAP):
            if c.is_over() or c.turn_label() != turn or plan.reached(c):
                break
            acting = c.acting_sides()
            if not acting:
                break
            who = side if side in acting else acting[0]
            if who == side and plan.at_own_step(c):
                end = _ending(c, side)
                if end is not None:
                    if self._play(c, side, end, feats) <= BAD:
                        break
                    continue
                # the step may not be ended yet (a breach to cure first): decide as below
            # the world's dice run on (no reseeding here): play-outs of rival candidates from
            # one world roll alike
            opts = candidates(c, who, feats, rng, self.budget.rollout_width)
            best_v, best_c = BAD, None
            for a in opts:
                t = c.clone()
                v = self._play(t, who, a, feats)
                if v > best_v:
                    best_v, best_c = v, t
            if best_c is None:
                break
            c = best_c
        return c

    def rollout(self, c: Game, side: str, feats: Features, rng: random.Random) -> float:
        """Play on with cheap greedy decisions (one sample each) for whoever acts, the
        opponent's replies inside the turn included (a retreat before combat, a reserve...),
        until the side has made the level's ``depth`` more decisions, the opponent ``depth``
        decisions, or the game turn ends; then score the position for ``side``. Every
        candidate is followed the same way, so ending a phase is compared fairly with acting
        in it."""
        turn = c.turn_label()
        own = theirs = 0
        while own < self.budget.depth and theirs < self.budget.depth:
            if c.is_over() or c.turn_label() != turn:
                break
            acting = c.acting_sides()
            if not acting:
                break
            who = side if side in acting else acting[0]
            opts = candidates(c, who, feats, rng, self.budget.rollout_width)
            reseed(c, rng)
            best_v, best_c = BAD, None
            for a in opts:
                t = c.clone()
                v = self._play(t, who, a, feats)
                if v > best_v:
                    best_v, best_c = v, t
            if best_c is None:
                break
            c = best_c
            if who == side:
                own += 1
            else:
                theirs += 1
        self.stats.evaluations += 1
        return self.value(c, side, feats)


PLAY_OUT_CAP = 80  # decisions of either side in one play-out


#: a first roll with more values than this is sampled, not enumerated
MAX_ROLL_VALUES = 20


def first_roll(g: Game, since: int) -> tuple[int, dict[int, Fraction]] | None:
    """The first die roll logged in ``g`` after entry ``since``: its natural value and the
    exact distribution of its die (None: nothing was rolled, or a die of too many values)."""
    for e in g.state.log[since:]:
        if e.get("type") != "roll":
            continue
        data = e.get("data") or {}
        try:
            dist = DieSpec.parse(str(data["die"])).distribution()
            natural = int(data["natural"])
        except (KeyError, TypeError, ValueError):
            return None
        return (natural, dist) if len(dist) <= MAX_ROLL_VALUES else None
    return None


def _ending(g: Game, side: str) -> Action | None:
    """The side's action that ends its current step, if one is offered."""
    for fam in g.families(side):
        for a in fam.all():
            if is_ending(a):
                return a
            break  # a family's actions share a type: one look is enough
    return None


@dataclass(frozen=True)
class Horizon:
    """Where a play-out of one decision stops (:meth:`Features.horizon`): when the frames are
    back to ``depth`` or fewer, once ``moved`` (the procedure the decision runs is over), and,
    when ``own`` is set, the decision's own step (``step`` at ``own`` frames) is ended whenever
    the side comes back to it."""

    depth: int
    step: str
    own: int | None

    @staticmethod
    def of(g: Game, feats: Features) -> Horizon | None:
        frames = g.state.frames
        if not frames:
            return None
        step = frames[-1].step
        name = feats.horizon(step)
        if name is None:
            return None
        if name == step:
            return Horizon(len(frames), step, None)
        for k in range(len(frames) - 2, -1, -1):
            if frames[k].step == name:
                return Horizon(k, step, len(frames))
        return None

    def reached(self, c: Game) -> bool:
        frames = c.state.frames
        if len(frames) < self.depth or (len(frames) == self.depth and self.own is not None):
            return True
        # the decision's own step back, with nothing it started still running
        return (
            self.own is None
            and len(frames) == self.depth
            and frames[-1].step == self.step
            and bool(c.acting_sides())
        )

    def at_own_step(self, c: Game) -> bool:
        frames = c.state.frames
        return self.own is not None and len(frames) == self.own and frames[-1].step == self.step


AGENTS = ("random", "greedy", "planner")


def make_agent(spec: str, seed: int = 0) -> Agent:
    """An agent from ``NAME[:LEVEL]`` (``random``, ``greedy``, ``planner:hard``...)."""
    name, _, level = spec.partition(":")
    name = name.strip().lower()
    if name == "random":
        return RandomAgent(seed)
    if name == "greedy":
        return GreedyAgent(seed)
    if name == "planner":
        return PlannerAgent(seed, level or "normal")
    raise ValueError(f"unknown agent {spec!r} (one of {', '.join(AGENTS)}, planner:LEVEL)")
