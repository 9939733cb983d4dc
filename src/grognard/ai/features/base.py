"""What an agent knows about a position of one rule system: its features and its hidden state.

:class:`Features` is generic over every rule system on core v2: victory points from the
scenario's objectives and the owners of their hexes, material from the printed values of the
pieces' current faces, casualties from the eliminated box and reduced faces, and an advance term
(own units' distance to the objectives the side does not hold). Each rule system subclasses it in
its own module of this package (:mod:`grognard.ai.features.greatwar`...) to read its victory
points the way its rules do and to order its decisions.

Every feature is read from a position the agent may see: the agent evaluates determinised clones
(:mod:`grognard.ai.determinise`), never the true game, so reading ``g.state`` here is safe.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from grognard.core.state import Loc, Piece

if TYPE_CHECKING:
    from grognard.core.game import Game

# printed values counted as a unit's strength (whichever of them the rule system prints)
STRENGTH_KEYS = ("attack", "defense", "strength", "fire")
# action types that end a phase, a segment or a turn, or decline a decision
ENDING_TYPES = frozenset(
    {
        "end-phase",
        "pass",
        "done",
        "end-turn",
        "end-movement",
        "end-reinforcement",
        "end-assignment",
        "no-retreat",
    }
)
WIN = 1000.0


def is_ending(action: Mapping[str, Any]) -> bool:
    """An action that ends the side's phase or declines (``end-...``, ``pass``, ``done``)."""
    t = str(action.get("type", ""))
    return t in ENDING_TYPES or t.startswith("end-")


class Features:
    """Generic features of a position (see the module docstring)."""

    #: weights of the evaluation's terms
    w_vp = 10.0
    w_material = 1.0
    w_advance = 0.5
    #: weight of the exposure of the side's objectives in the planner's evaluation
    #: (:meth:`search_value`); 0: the planner evaluates as the greedy does
    w_exposure = 0.0
    #: candidates drawn per decision, as a multiple of the agent's width
    width_scale = 1.0
    #: options drawn from one actor before the next actor of its family (0: all of them)
    options_per_actor = 0
    #: a family whose prior is k >= 1 gives k options each round (else one)
    draws_by_prior = False

    #: the planner's horizon for a decision in a step (step name -> the name of a step on the
    #: stack, see :meth:`horizon`); steps not named get the planner's depth-bounded rollouts
    horizons: ClassVar[Mapping[str, str]] = {}

    def __init__(self) -> None:
        # printed strength by face, per printed-faces table (pieces of a clone share the table;
        # the table is kept with its entry so that its id is never reused while the entry lives)
        self._printed: dict[int, tuple[Any, dict[str, float]]] = {}

    # ------------------------------------------------------------------ objectives and points
    def objectives(self, g: Game) -> dict[int, float]:
        """Hex index -> victory points, from the scenario's ``[victory]`` table (``objectives`` as
        a list of ``{hex, points}`` or a table ``hex = points``) or, without one, the board's
        points of kind ``objective`` (1 each)."""

        def compute() -> dict[int, float]:
            v = getattr(g.scenario.data, "victory", None) or {}
            obs = v.get("objectives") if isinstance(v, Mapping) else None
            out: dict[int, float] = {}
            if isinstance(obs, Mapping):
                for h, pts in obs.items():
                    if g.board.has_label(str(h)):
                        out[g.board.idx(str(h))] = float(pts)
            elif isinstance(obs, list):
                for ob in obs:
                    if isinstance(ob, Mapping) and g.board.has_label(str(ob.get("hex"))):
                        out[g.board.idx(str(ob["hex"]))] = float(ob.get("points", 1))
            if not out:
                mask = g.board.point_mask("objective") if "objective" in self._kinds(g) else None
                if mask is not None:
                    for i in range(g.board.n):
                        if mask[i]:
                            out[i] = 1.0
            return out

        return g.cache.keyed("ai:objectives", g.scenario.id, compute)

    def _kinds(self, g: Game) -> set[str]:
        return {p.kind for i in range(g.board.n) for p in g.board.points_at(i)}

    def owner(self, g: Game, i: int) -> str | None:
        """Who holds hex ``i`` for victory (the control map by default)."""
        return g.state.control.get(i)

    def victory_points(self, g: Game) -> dict[str, float]:
        """Victory points each side holds now."""
        out = dict.fromkeys(g.state.sides, 0.0)
        for i, pts in self.objectives(g).items():
            o = self.owner(g, i)
            if o in out:
                out[o] += pts
        return out

    # ------------------------------------------------------------------ material and losses
    def eliminated(self, g: Game, p: Piece) -> bool:
        """The piece is in an eliminated box (named ``eliminated`` or ``<system>:eliminated``, or
        of kind ``eliminated``)."""
        loc = g.state.where(p.id)
        if loc.kind != "box":
            return False
        ref = str(loc.ref)
        box = g.board.boxes.get(ref)
        return (
            ref == "eliminated"
            or ref.endswith(":eliminated")  # a rule system's own box (lgg:eliminated)
            or (box is not None and box.kind == "eliminated")
        )

    def value(self, p: Piece, face: str | None = None) -> float:
        """A piece's printed strength on a face (its current face by default)."""
        faces = p.faces
        f = face or p.face
        entry = self._printed.get(id(faces))
        if entry is None or entry[0] is not faces:
            entry = self._printed[id(faces)] = (faces, {})
        hit = entry[1].get(f)
        if hit is None:
            hit = entry[1][f] = _printed_strength(faces, f)
        return hit

    def best_value(self, p: Piece) -> float:
        faces = p.faces if isinstance(p.faces, Mapping) else {}
        return max((self.value(p, f) for f in faces), default=0.0)

    def on_map(self, g: Game, p: Piece) -> bool:
        return g.state.where(p.id).kind == "hex"

    def material(self, g: Game) -> dict[str, float]:
        """Strength of each side's pieces not eliminated."""
        return {s: self.side_material(g, s) for s in g.state.sides}

    def side_material(self, g: Game, side: str) -> float:
        """Strength of ``side``'s pieces not eliminated, kept in the game's cache while none of
        them changes (``("side", side)``: search applies one action at a time, which mostly
        changes one side's pieces; clones keep the value)."""

        def compute() -> float:
            total = 0.0
            for p in g.state.pieces.values():
                # a piece on the map is never in an eliminated box: the box test only off the map
                if p.side == side and (p.loc.kind == "hex" or not self.eliminated(g, p)):
                    total += self.value(p)
            return total

        return g.cache.tracked(
            g.state, ("ai:material", type(self).__qualname__, side), (("side", side),), compute
        )

    def point_value(self, g: Game) -> float:
        """What one strength point of material is worth in :meth:`evaluate` now (its material
        term is a share of all the material in play)."""
        return self.w_material * 20.0 / max(1.0, sum(self.material(g).values()))

    def casualties(self, g: Game) -> dict[str, float]:
        """Strength each side has lost: eliminated pieces at their best face, reduced pieces by
        the difference between their best and current faces."""
        out = dict.fromkeys(g.state.sides, 0.0)
        for p in g.state.pieces.values():
            if p.side not in out:
                continue
            best = self.best_value(p)
            out[p.side] += best if self.eliminated(g, p) else max(0.0, best - self.value(p))
        return out

    # ------------------------------------------------------------------ position
    def advance(self, g: Game, side: str) -> float:
        """Minus the distance from each objective the side does not hold to the nearest of its
        units (weighted by the objective's points, averaged), and half the mean distance of its
        units to those objectives: one unit is drawn onto each objective, the rest follow."""
        obs = self.objectives(g)
        targets = [i for i in obs if self.owner(g, i) != side]
        if not targets:
            return 0.0
        units = []
        for p in g.state.pieces.values():
            if p.side != side or self.value(p) <= 0:
                continue
            loc = g.state.where(p.id)
            if loc.kind == "hex":
                units.append(int(loc.ref))
        if not units:
            return 0.0
        dist = distances(g, units, targets)
        weights = np.array([obs[t] for t in targets])
        pull = float((dist.min(axis=0) * weights).sum() / weights.sum())
        spread = float(dist.min(axis=1).mean())
        return -(pull + 0.5 * spread)

    def evaluate(self, g: Game, side: str) -> float:
        """How good the position is for ``side`` (higher is better; a won game is +1000)."""
        res = g.state.result
        if res is not None:
            w = res.get("winner")
            return WIN if w == side else (-WIN if w else 0.0)
        vp = self.victory_points(g)
        mat = self.material(g)
        others = [s for s in g.state.sides if s != side]
        v = self.w_vp * (vp.get(side, 0.0) - sum(vp.get(s, 0.0) for s in others))
        own = mat.get(side, 0.0)
        enemy = sum(mat.get(s, 0.0) for s in others)
        v += self.w_material * 20.0 * (own - enemy) / max(1.0, own + enemy)
        v += self.w_advance * self.advance(g, side)
        return v

    # ------------------------------------------------------------------ exposure
    def move_allowance(self, p: Piece) -> float:
        """A piece's printed movement on its current face (0 without one)."""
        return _printed(p.faces, p.face)[2]

    def threat_allowance(self, p: Piece) -> float:
        """What an enemy piece may spend over its next turn to reach an objective of the side
        that no defense strength holds, in :meth:`exposure` (its printed movement by default)."""
        return self.move_allowance(p)

    def step_cost(self, g: Game, u: int, v: int) -> float | None:
        """What a move from hex ``u`` into the adjacent hex ``v`` costs in :meth:`exposure`'s
        reach (None: prohibited); one a hex by default."""
        return 1.0

    def attack_factor(self, g: Game, u: int, v: int) -> float:
        """The share of its strength a unit in ``u`` attacks the adjacent ``v`` with (a river
        between them may halve it); 1 by default."""
        return 1.0

    def zoc_exit_cost(self) -> float:
        """What leaving a hex next to an enemy combat unit adds in :meth:`exposure`'s reach."""
        return 1.0

    def _steps(self, g: Game) -> list[list[tuple[int, float, float]]]:
        """Per hex: (neighbour, step cost, attack factor), kept per scenario."""

        def compute() -> list[list[tuple[int, float, float]]]:
            out: list[list[tuple[int, float, float]]] = []
            for u in range(g.board.n):
                row = []
                for v in g.board.neighbors(u):
                    c = self.step_cost(g, u, v)
                    row.append((v, math.inf if c is None else c, self.attack_factor(g, u, v)))
                out.append(row)
            return out

        return g.cache.keyed("ai:steps", (g.scenario.id, type(self).__qualname__), compute)

    def sudden_death(self, g: Game) -> list[tuple[str, frozenset[int]]]:
        """The scenario's sudden-death lists (``[victory] sudden_death``: a side that owns every
        hex of its list wins at once)."""

        def compute() -> list[tuple[str, frozenset[int]]]:
            v = getattr(g.scenario.data, "victory", None) or {}
            sds = v.get("sudden_death") if isinstance(v, Mapping) else None
            out = []
            for sd in sds if isinstance(sds, list) else []:
                if not isinstance(sd, Mapping):
                    continue
                hexes = [str(h) for h in sd.get("hexes", [])]
                if hexes and all(g.board.has_label(h) for h in hexes):
                    out.append((str(sd.get("side")), frozenset(g.board.idx(h) for h in hexes)))
            return out

        return g.cache.keyed("ai:sudden-death", g.scenario.id, compute)

    def stake(self, g: Game, side: str, i: int) -> float:
        """What losing the objective ``i`` would cost ``side`` in :meth:`evaluate`: the swing of
        its points (the side loses them, the taker gains them), or, when it is the last hex an
        enemy's sudden-death list lacks, the swing of every objective (the game)."""
        obs = self.objectives(g)
        stake = 2.0 * self.w_vp * obs.get(i, 0.0)
        for who, hexes in self.sudden_death(g):
            if who == side or i not in hexes:
                continue
            if all(self.owner(g, h) == who for h in hexes if h != i):
                stake = max(stake, 2.0 * self.w_vp * sum(obs.values()))
        return stake

    def enemy_turn_ahead(self, g: Game, side: str) -> bool:
        """Whether a player turn of the enemy of ``side`` is under way or may still come before
        the game ends, in which :meth:`exposure`'s threats could be carried out (the generic
        features know no turn order: always)."""
        return True

    def own_turn(self, g: Game, side: str) -> bool:
        """Whether ``side`` is moving in its own player turn, which a sudden-death check may end
        before the enemy moves again (the generic features know no turns: never)."""
        return False

    def enemy_turn_chance(self, g: Game, side: str) -> float:
        """The chance that the enemy of ``side`` gets the player turn :meth:`exposure` prices:
        none when :meth:`enemy_turn_ahead` says none comes; in the side's :meth:`own_turn`, the
        chance that the side does not complete one of its sudden-death lists first (the end of
        its player turn would end the game): for each list, the chance that it takes every hex
        of it the enemy holds (:meth:`take_chances` from the enemy's side, not moving: the
        attacks the side's units can make from where they stand, for what movement they have
        left in this turn is not known here and the side's own rollouts do not follow it
        through), the likeliest list counted."""
        if not self.enemy_turn_ahead(g, side):
            return 0.0
        if not self.own_turn(g, side):
            return 1.0
        best = 0.0
        for who, hexes in self.sudden_death(g):
            if who != side:
                continue
            missing = [h for h in hexes if self.owner(g, h) != side]
            by_owner: dict[str | None, list[int]] = {}
            for h in missing:
                by_owner.setdefault(self.owner(g, h), []).append(h)
            p_all = 1.0
            for owner, hs in by_owner.items():
                if owner is None or owner == side or owner not in g.state.sides:
                    continue  # no one's hex: no defender modelled, left as it is
                takes = self.take_chances(g, owner, hs, moving=False)
                for h in hs:
                    p_all *= takes.get(h, 0.0)
            best = max(best, p_all)
        return 1.0 - best

    def exposure(self, g: Game, side: str) -> float:
        """The victory points the side's objectives put at risk of the enemy's next move, as a
        loss in :meth:`evaluate`'s units: for each objective it holds, the chance that the enemy
        takes it (:meth:`take_chances`) times :meth:`stake`, all times the chance that the enemy
        gets that move before the game ends (:meth:`enemy_turn_chance`): a threat that cannot be
        carried out is worth nothing."""
        p_turn = self.enemy_turn_chance(g, side)
        if p_turn <= 0:
            return 0.0
        obs = self.objectives(g)
        held = [i for i in obs if self.owner(g, i) == side]
        if not held:
            return 0.0
        takes = self.take_chances(g, side, held)
        total = 0.0
        for o in held:
            if takes[o] > 0:
                total += takes[o] * self.stake(g, side, o)
        return p_turn * total

    def take_chances(
        self, g: Game, side: str, held: list[int], moving: bool = True
    ) -> dict[int, float]:
        """For each hex of ``held`` (hexes ``side`` holds), the chance that the enemy takes it at
        its next move (:func:`take_chance`); with ``moving`` false, by the attacks its units can
        make from where they stand (next to the hex) without moving.

        Each enemy unit with an attack strength moves as far as :meth:`step_cost` a hex and
        :meth:`zoc_exit_cost` more to leave a hex next to one of the side's combat units pay for,
        never into a hex the side occupies. A hex the side holds with no defense strength in it
        (empty, or only headquarters) falls to any enemy unit that reaches it or a hex next to
        it within :meth:`threat_allowance` (its whole next turn's movement); a defended one to
        the attack strength that reaches the hexes next to it within its printed movement (an
        attack follows the movement phase; :meth:`attack_factor` applied), by the odds against
        the defense.

        The chances read only the units on the map (piece, hex, side, face): they are kept
        under that key in the game's keyed cache (shared with the search's clones), so
        positions that differ elsewhere (a depot, a phase, control) do not compute them again."""
        units = tuple(
            sorted(
                (p.id, int(p.loc.ref), p.side, p.face)
                for p in g.state.pieces.values()
                if p.loc.kind == "hex"
            )
        )
        key = (
            g.scenario.id,
            type(self).__qualname__,
            side,
            tuple(g.state.sides),
            tuple(held),
            moving,
            units,
        )
        return g.cache.keyed(
            "ai:take-chances", key, lambda: self._take_chances(g, side, held, moving)
        )

    def _take_chances(self, g: Game, side: str, held: list[int], moving: bool) -> dict[int, float]:
        """:meth:`take_chances` computed."""
        defense: dict[int, float] = {}
        occupied: set[int] = set()
        zoc: set[int] = set()
        enemies: list[tuple[int, float, float, float]] = []
        board = g.board
        for p in g.state.pieces.values():
            if p.loc.kind != "hex":
                continue
            h = int(p.loc.ref)
            att, dfn, _ = _printed(p.faces, p.face)
            mv = self.move_allowance(p)
            if p.side == side:
                if att <= 0 and dfn <= 0 and mv <= 0:
                    continue  # not a unit (a depot, a marker)
                occupied.add(h)
                defense[h] = defense.get(h, 0.0) + dfn
                if att > 0 or dfn > 0:
                    zoc.update(board.neighbors(h))
            elif p.side in g.state.sides and att > 0 and mv > 0:
                enemies.append((h, att, mv, max(mv, self.threat_allowance(p))))
        if not enemies:
            return dict.fromkeys(held, 0.0)
        steps = self._steps(g)
        exit_cost = self.zoc_exit_cost()
        attack = dict.fromkeys(held, 0.0)
        bare = [o for o in held if defense.get(o, 0.0) <= 0]
        if bare:
            sources = [
                (h, far)
                for h, _, _, far in enemies
                if any(board.distance(h, o) <= far + 1 for o in bare)
            ]
            if sources:
                hit = (
                    _reach_any(steps, sources, occupied, zoc, exit_cost)
                    if moving
                    else {h for h, _ in sources}
                )
                for o in bare:
                    if o in hit or any(n in hit for n, _, _ in steps[o]):
                        attack[o] = 1.0  # any attack takes an undefended hex
        guarded = [o for o in held if defense.get(o, 0.0) > 0]
        for h, att, mv, _ in enemies:
            near = [o for o in guarded if board.distance(h, o) <= mv + 1]
            if not near:
                continue
            cost = _reach(steps, h, mv, occupied, zoc, exit_cost) if moving else {h: 0.0}
            for o in near:
                f = max((fac for n, _, fac in steps[o] if n in cost), default=0.0)
                attack[o] += att * f
        return {o: take_chance(attack[o], defense.get(o, 0.0)) for o in held}

    def search_value(self, g: Game, side: str) -> float:
        """The planner's evaluation: :meth:`evaluate` less ``w_exposure`` times the
        :meth:`exposure` of the side's objectives (the greedy evaluates with :meth:`evaluate`
        alone)."""
        v = self.evaluate(g, side)
        if self.w_exposure and g.state.result is None:
            v -= self.w_exposure * self.exposure(g, side)
        return v

    def outcome_score(
        self, g: Game, side: str, start: Mapping[str, Mapping[str, float]] | None = None
    ) -> float:
        """1 for a win, 0 for a loss, 1/2 for a draw; a game stopped at a turn limit (not over)
        goes to :meth:`leader`."""
        res = g.state.result
        if res is not None:
            w = res.get("winner")
            return 1.0 if w == side else (0.5 if w is None else 0.0)
        leader = self.leader(g, start)
        return 0.5 if leader is None else (1.0 if leader == side else 0.0)

    def leader(self, g: Game, start: Mapping[str, Mapping[str, float]] | None = None) -> str | None:
        """Who is ahead in a game stopped before its end; None when level.

        Without ``start``: the side holding more victory points, then more material. With
        ``start`` (``{"vp": ..., "casualties": ...}`` read when the game began, as
        :mod:`grognard.ai.study` records it): the side that gained more points over the turns
        played than its opponents (a scenario where one side starts far ahead, as the Entente
        does in marne-1914, is not decided by its opening position), then the side that
        inflicted more losses than it suffered over those turns."""
        vp = self.victory_points(g)
        sides = list(g.state.sides)
        if start is None:
            mat = self.material(g)
            keys = {s: (vp.get(s, 0.0), mat.get(s, 0.0)) for s in sides}
        else:
            vp0 = start.get("vp", {})
            cas0 = start.get("casualties", {})
            cas = self.casualties(g)
            lost = {s: cas.get(s, 0.0) - cas0.get(s, 0.0) for s in sides}
            gain = {s: vp.get(s, 0.0) - vp0.get(s, 0.0) for s in sides}
            keys = {
                s: (
                    gain[s] - sum(gain[o] for o in sides if o != s),
                    sum(lost[o] for o in sides if o != s) - lost[s],
                )
                for s in sides
            }
        ranked = sorted(sides, key=lambda s: (-keys[s][0], -keys[s][1]))
        if len(ranked) < 2:
            return ranked[0] if ranked else None
        a, b = ranked[0], ranked[1]
        if keys[a] == keys[b]:
            return None
        return a

    # ------------------------------------------------------------------ decisions
    def prior(self, g: Game, side: str, action: Mapping[str, Any]) -> float:
        """A cheap ordering hint for an action before it is tried (higher first): attacks first,
        then moves towards objectives, ending last."""
        t = str(action.get("type", ""))
        if is_ending(action):
            return -1.0
        if "attack" in t or t in ("overrun", "strike", "fire", "cd-fire"):
            return 2.0
        return 0.0

    def horizon(self, step: str) -> str | None:
        """Where the planner's rollouts of a decision in ``step`` stop: when the frame of the
        named step that holds the decision is over (every step of the procedure it runs played
        out, both sides deciding cheaply), the decision's own step being ended at once when it
        comes back to the side; for the decision's own step, when the procedure the decision
        starts is over and the step is back. None: the planner's depth-bounded rollouts."""
        return self.horizons.get(step)

    def option_key(self, g: Game, side: str, action: Mapping[str, Any]) -> float | None:
        """How promising one option of an actor is before it is tried (higher first), or None
        when the rule system gives no ordering (the options are then drawn at random)."""
        return None

    def order_options(self, g: Game, side: str, opts: list[Any]) -> None:
        """Order an actor's (shuffled) options in place so that the most promising is drawn
        first (candidates pop from the end); unchanged without :meth:`option_key`."""
        if len(opts) < 2:
            return
        keys = [self.option_key(g, side, a) for a in opts]
        if all(k is None for k in keys):
            return
        ranked = sorted(range(len(opts)), key=lambda k: keys[k] or 0.0)  # stable: ties stay random
        opts[:] = [opts[k] for k in ranked]

    # ------------------------------------------------------------------ hidden state
    def sample_hidden(
        self, g: Game, side: str, view: Mapping[str, Any], rng: random.Random
    ) -> None:
        """Redistribute, on the clone ``g``, the enemy pieces ``side`` may not fully see, using
        only ``view`` and ``rng``: pieces shown as anonymous stack markers are dealt out to the
        markers of the view (each marker gets at least one, the rest at random; not the markers
        in hexes where the side's own pieces stand, which show a visible carrier's contents), and
        hidden pieces inside visible carriers are dealt out among those carriers. Which hidden
        piece is where in the true state is never read, so moving or swapping hidden pieces
        changes nothing the agent computes."""
        by_side: dict[str, list[Piece]] = {}
        carried: dict[str, list[Piece]] = {}
        loose: list[Piece] = []
        for p in g.state.pieces.values():
            if p.side == side:
                continue
            vis = g.ruleset.piece_visibility(g, p, side)
            if vis == "stack" and p.loc.kind == "hex":
                by_side.setdefault(p.side, []).append(p)
            elif vis == "hidden" and p.loc.kind == "piece":
                carrier = g.state.pieces.get(str(p.loc.ref))
                if carrier is not None and g.ruleset.piece_visibility(g, carrier, side) == "full":
                    carried.setdefault(p.side, []).append(p)
            elif vis == "hidden" and p.loc.kind == "hex":
                loose.append(p)
        own = self._own_hexes(g, side, view)
        for enemy, pieces in sorted(by_side.items()):
            markers = sorted(
                g.board.idx(str(m["loc"][1]))
                for m in view.get("stacks", [])
                if m.get("side") == enemy and m.get("loc", [None])[0] == "hex"
            )
            # a marker in a hex the side stands in stands for pieces inside a visible carrier
            # (a besieged fortress's garrison): opposing stacks do not otherwise share a hex
            slots = [i for i in markers if i not in own] or markers
            self._deal(g, sorted(pieces, key=lambda p: p.id), [Loc.hex(i) for i in slots], rng)
        for enemy, pieces in sorted(carried.items()):
            holders = sorted({str(p.loc.ref) for p in pieces})
            # the carriers that may hold hidden pieces: every visible enemy carrier of a type
            # that holds some (read from the view: the types of the pieces shown)
            kinds = {g.state.pieces[h].type for h in holders}
            cands = sorted(
                str(d["id"])
                for d in view.get("pieces", [])
                if d.get("side") == enemy and d.get("type") in kinds
            )
            self._deal(g, sorted(pieces, key=lambda p: p.id), [Loc.inside(h) for h in cands], rng)
        if loose:
            self._scatter(g, side, view, sorted(loose, key=lambda p: p.id), rng)

    @staticmethod
    def _own_hexes(g: Game, side: str, view: Mapping[str, Any]) -> set[int]:
        """Hexes where the view shows the side's own pieces."""
        out: set[int] = set()
        for d in list(view.get("pieces", [])) + list(view.get("stacks", [])):
            loc = d.get("loc") or [None, None]
            if loc[0] == "hex" and d.get("side") == side:
                out.add(g.board.idx(str(loc[1])))
        return out

    def _scatter(
        self, g: Game, side: str, view: Mapping[str, Any], pieces: list[Piece], rng: random.Random
    ) -> None:
        """Hidden pieces on the map go to random hexes the view shows empty and out of sight
        (not next to the side's own pieces), on ground their side controls when there is some."""
        seen: set[int] = set()
        own: set[int] = set()
        for d in list(view.get("pieces", [])) + list(view.get("stacks", [])):
            loc = d.get("loc") or [None, None]
            if loc[0] == "hex":
                i = g.board.idx(str(loc[1]))
                seen.add(i)
                if d.get("side") == side:
                    own.add(i)
        near = set(own)
        for i in own:
            near.update(g.board.neighbors(i))
        free = [i for i in range(g.board.n) if i not in seen and i not in near]
        control = view.get("control", {})
        for p in pieces:
            theirs = [i for i in free if control.get(g.board.label(i)) == p.side]
            pool = theirs or free
            if pool:
                g.state.move(p.id, Loc.hex(pool[rng.randrange(len(pool))]))

    def _deal(self, g: Game, pieces: list[Piece], slots: list[Loc], rng: random.Random) -> None:
        if not pieces or not slots:
            return
        order = list(pieces)
        rng.shuffle(order)
        where: list[Loc] = list(slots[: len(order)])
        while len(where) < len(order):
            where.append(slots[rng.randrange(len(slots))])
        for p, loc in zip(order, where, strict=True):
            if p.loc != loc:
                g.state.move(p.id, loc)


def _printed_key(faces: Any, face: str, key: str) -> float:
    """One printed value of a face (0 when it is missing or not a number)."""
    vals = faces.get(face, {}) if isinstance(faces, Mapping) else {}
    x = vals.get(key) if isinstance(vals, Mapping) else None
    if isinstance(x, int | float) and not isinstance(x, bool):
        return float(x)
    return 0.0


# the printed (attack, defense, move) of a face, by the identity of the faces' mapping: the
# faces are the scenario's, shared by every copy of a piece and never changed in play (each entry
# holds the mapping it was read from, so an id reused by another object is never mistaken)
_PRINTED: dict[tuple[int, str], tuple[Any, tuple[float, float, float]]] = {}


def _printed(faces: Any, face: str) -> tuple[float, float, float]:
    """The printed attack, defense and movement of a face (:func:`_printed_key` of each)."""
    hit = _PRINTED.get((id(faces), face))
    if hit is not None and hit[0] is faces:
        return hit[1]
    vals = (
        _printed_key(faces, face, "attack"),
        _printed_key(faces, face, "defense"),
        _printed_key(faces, face, "move"),
    )
    if len(_PRINTED) > 100_000:
        _PRINTED.clear()
    _PRINTED[(id(faces), face)] = (faces, vals)
    return vals


def _reach(
    steps: list[list[tuple[int, float, float]]],
    start: int,
    allowance: float,
    occupied: set[int],
    zoc: set[int],
    exit_cost: float,
) -> dict[int, float]:
    """The hexes a unit in ``start`` reaches with ``allowance`` and what reaching each costs
    (cheapest paths): it never enters an ``occupied`` hex and pays ``exit_cost`` more to leave a
    hex in ``zoc``; it may always move one hex (as most rules allow), never moving on from a hex
    it could not afford. The search of :func:`grognard.search.reach.reach_generic` with
    ``minimum_move``, written out for these arrays (the same order of expansion, so the same
    costs to the last bit): it runs tens of thousands of times per planner turn."""
    best: dict[int, float] = {start: 0.0}
    done: set[int] = set()
    tie = 0
    heap: list[tuple[float, int, int]] = [(0.0, 0, start)]
    pop, push, inf = heapq.heappop, heapq.heappush, math.inf
    may_stretch = allowance > 0
    while heap:
        c, _, u = pop(heap)
        if u in done:
            continue
        done.add(u)
        if c > allowance:
            continue
        stretch = may_stretch and u == start
        extra = exit_cost if u in zoc else 0.0
        for v, step, _ in steps[u]:
            if step == inf or v in occupied:
                continue
            nc = c + (step + extra)
            if nc > allowance and not stretch:
                continue
            if nc < best.get(v, inf):
                best[v] = nc
                tie += 1
                push(heap, (nc, tie, v))
    return best


def _reach_any(
    steps: list[list[tuple[int, float, float]]],
    sources: list[tuple[int, float]],
    occupied: set[int],
    zoc: set[int],
    exit_cost: float,
) -> set[int]:
    """The hexes some unit reaches, each from its hex with its own allowance (``sources``), as
    :func:`_reach` goes (one search for all of them: the most movement left wins a hex)."""
    left: dict[int, float] = {}
    heap: list[tuple[float, int, bool]] = []
    for h, allowance in sources:
        if allowance > left.get(h, -1.0):
            left[h] = allowance
            heapq.heappush(heap, (-allowance, h, True))
    reached = set(left)
    while heap:
        neg, u, first = heapq.heappop(heap)
        rem = -neg
        if rem < left.get(u, -1.0) and not first:
            continue
        extra = exit_cost if u in zoc else 0.0
        for v, cost, _ in steps[u]:
            if v in occupied or cost == math.inf:
                continue
            nr = rem - cost - extra
            if nr < 0:
                if first:
                    reached.add(v)  # the one-hex move: it spends everything
                continue
            reached.add(v)
            if nr > left.get(v, -1.0):
                left[v] = nr
                heapq.heappush(heap, (-nr, v, False))
    return reached


def take_chance(attack: float, defense: float) -> float:
    """The chance that ``attack`` strength takes a hex defended by ``defense``: certain against
    no defense, else rising with the odds from none at 1:2 to certain at 7:2 (a combat results
    table's defender results grow about so)."""
    if attack <= 0:
        return 0.0
    if defense <= 0:
        return 1.0
    return min(1.0, max(0.0, (attack / defense - 0.5) / 3.0))


def _printed_strength(faces: Any, face: str) -> float:
    vals = faces.get(face, {}) if isinstance(faces, Mapping) else {}
    if not isinstance(vals, Mapping):
        return 0.0
    total = 0.0
    for k in STRENGTH_KEYS:
        x = vals.get(k)
        if isinstance(x, int | float) and not isinstance(x, bool):
            total += float(x)
    return total


def distances(g: Game, frm: Sequence[int], to: Sequence[int]) -> np.ndarray:
    """The hex distances from every hex of ``frm`` (rows) to every hex of ``to`` (columns)."""
    q, r = g.cache.keyed("ai:axial", None, lambda: _axial(g))
    a = np.asarray(frm, dtype=np.intp)
    b = np.asarray(to, dtype=np.intp)
    dq = q[a][:, None] - q[b][None, :]
    dr = r[a][:, None] - r[b][None, :]
    return (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2


def _axial(g: Game) -> tuple[np.ndarray, np.ndarray]:
    hexes = [g.board.hexes[i] for i in range(g.board.n)]
    return (
        np.array([h[0] for h in hexes], dtype=np.int64),
        np.array([h[1] for h in hexes], dtype=np.int64),
    )


def hex_distance_gain(g: Game, frm: int, to: int, targets: list[int]) -> float:
    """How much nearer to the nearest target a step from ``frm`` to ``to`` goes."""
    if not targets:
        return 0.0
    a = min(g.board.distance(frm, t) for t in targets)
    b = min(g.board.distance(to, t) for t in targets)
    return float(a - b)


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else math.nan
