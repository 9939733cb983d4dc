"""A PettingZoo AEC environment over any scenario, and a Gymnasium single-agent wrapper.

* Agents are the scenario's sides; the agent to act is the side the game waits for.
* Observations (:func:`encode_view`) are built from ``g.view(side)`` only: per hex, the side's
  own strength, the enemy strength it sees, the enemy's anonymous stacks, who controls the hex
  and its victory points; then the turn's index and whether the side is acting. Each comes as
  ``{"observation": float32 vector, "action_mask": int8 vector}``.
* Actions are a fixed-size encoding: ``Discrete(max_actions)``, the index into the side's legal
  actions listed family by family (ending actions first, then each type's actors and options in
  the engine's order), cut at ``max_actions``; the mask marks the indices in use.
* Rewards come from the rule system's victory: +1 to the winner and -1 to the loser when the
  game ends (0 each for a draw); at ``max_turns`` the game is truncated and the side that gained
  more victory points since the start (then inflicted more losses) gets +1 (the study's rule).

``pettingzoo.test.api_test`` passes on scenarios of different rule systems (``tests/ai``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from grognard.ai.agents import Agent, make_agent
from grognard.ai.features import features_for, is_ending
from grognard.ai.study import snapshot, turn_index
from grognard.core.game import Game
from grognard.core.sequence import Action
from grognard.scenario import Scenario

HEX_FEATURES = 5


def listed_actions(g: Game, side: str, limit: int) -> list[Action]:
    """The side's legal actions in the encoding's order, at most ``limit``."""
    ends: list[Action] = []
    rest: list[Action] = []
    for fam in g.families(side):
        for actor in fam.actors():
            for a in fam.options(actor):
                (ends if is_ending(a) else rest).append(a)
                if len(ends) + len(rest) >= 4 * limit:
                    break
    return (ends + rest)[:limit]


def encode_view(g: Game, view: Mapping[str, Any], side: str) -> np.ndarray:
    """The observation vector of ``view`` (see the module docstring)."""
    n = g.board.n
    out = np.zeros(n * HEX_FEATURES + 2, dtype=np.float32)
    feats = features_for(g)
    idx = g.board.idx
    for d in view.get("pieces", []):
        loc = d.get("loc") or [None, None]
        if loc[0] != "hex":
            continue
        faces = d.get("faces") or {}
        vals = faces.get(d.get("face"), {}) if isinstance(faces, Mapping) else {}
        s = sum(
            float(v)
            for k, v in (vals.items() if isinstance(vals, Mapping) else [])
            if k in ("attack", "defense", "strength", "fire") and isinstance(v, int | float)
        )
        i = idx(str(loc[1]))
        out[i * HEX_FEATURES + (0 if d.get("side") == side else 1)] += s / 10.0
    for m in view.get("stacks", []):
        loc = m.get("loc") or [None, None]
        if loc[0] == "hex":
            out[idx(str(loc[1])) * HEX_FEATURES + 2] += 1.0
    for label, owner in view.get("control", {}).items():
        if owner:
            out[idx(label) * HEX_FEATURES + 3] = 1.0 if owner == side else -1.0
    for i, pts in feats.objectives(g).items():
        out[i * HEX_FEATURES + 4] = pts / 10.0
    out[-2] = float(turn_index(g))
    out[-1] = 1.0 if side in view.get("acting", []) else 0.0
    return out


class GrognardAEC(AECEnv):
    """The AEC environment of one scenario (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "grognard_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        scenario: Scenario,
        max_actions: int = 128,
        max_turns: int | None = None,
        max_steps: int = 5000,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.scenario = scenario
        self.max_actions = int(max_actions)
        self.max_turns = max_turns
        self.max_steps = int(max_steps)
        self.render_mode = render_mode
        self.possible_agents = list(scenario.sides)
        g = Game.new(scenario, 1)
        size = g.board.n * HEX_FEATURES + 2
        self._obs_space = {
            s: spaces.Dict(
                {
                    "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (self.max_actions,), np.int8),
                }
            )
            for s in self.possible_agents
        }
        self._act_space = {s: spaces.Discrete(self.max_actions) for s in self.possible_agents}
        self.game = g
        self._listed: list[Action] = []
        self.steps = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space[agent]

    # ------------------------------------------------------------------ AEC
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            seed = random.SystemRandom().randrange(1, 2**31)
        self.game = Game.new(self.scenario, int(seed))
        self._start = snapshot(self.game)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {s: {} for s in self.agents}
        self.steps = 0
        self._select()

    def _select(self) -> None:
        acting = self.game.acting_sides()
        self.agent_selection = acting[0] if acting else self.agents[0]
        self._listed = listed_actions(self.game, self.agent_selection, self.max_actions)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        g = self.game
        mask = np.zeros(self.max_actions, dtype=np.int8)
        if agent == self.agent_selection and not g.is_over():
            mask[: len(self._listed)] = 1
        return {"observation": encode_view(g, g.view(agent), agent), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not 0 <= int(action) < len(self._listed):
            raise ValueError(
                f"action {action!r} is not one of {agent}'s {len(self._listed)} legal actions"
                " (see the action mask)"
            )
        self._cumulative_rewards[agent] = 0.0
        self.game.apply(self._listed[int(action)])
        self.steps += 1
        self.rewards = dict.fromkeys(self.agents, 0.0)
        g = self.game
        limit = (self.max_turns is not None and turn_index(g) > self.max_turns) or (
            self.steps >= self.max_steps
        )
        if g.is_over() or limit:
            feats = features_for(g)
            res = g.state.result
            winner = res.get("winner") if res is not None else feats.leader(g, self._start)
            for s in self.agents:
                self.rewards[s] = 0.0 if winner is None else (1.0 if s == winner else -1.0)
                if g.is_over():
                    self.terminations[s] = True
                else:
                    self.truncations[s] = True
        self._accumulate_rewards()
        if not (g.is_over() or limit):
            self._select()
        else:
            self._listed = []

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return str(self.game.ruleset.render_text(self.game, None))
        return None

    def close(self) -> None:
        """Nothing to release: the game lives in memory only (PettingZoo API)."""


def env(scenario: Scenario, **kw: Any) -> GrognardAEC:
    """The AEC environment of ``scenario`` (keywords: ``max_actions``, ``max_turns``...)."""
    return GrognardAEC(scenario, **kw)


class SingleAgentEnv(gymnasium.Env):
    """Gymnasium wrapper: the learner plays ``side``, a chosen agent plays the others."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (gymnasium declares it so)

    def __init__(
        self,
        scenario: Scenario,
        side: str | None = None,
        opponent: str | Agent = "random",
        **kw: Any,
    ) -> None:
        self.aec = GrognardAEC(scenario, **kw)
        self.side = side or self.aec.possible_agents[0]
        if self.side not in self.aec.possible_agents:
            raise ValueError(f"no side {self.side!r} in {scenario.id}")
        self.opponent = make_agent(opponent) if isinstance(opponent, str) else opponent
        self.observation_space = self.aec.observation_space(self.side)
        self.action_space = self.aec.action_space(self.side)

    def _play_others(self) -> None:
        a = self.aec
        while a.agents and a.agent_selection != self.side and not self._done():
            choice = self.opponent.choose(a.game, a.agent_selection)
            a.step(a._listed.index(choice) if choice in a._listed else 0)

    def _done(self) -> bool:
        return self.aec.terminations[self.side] or self.aec.truncations[self.side]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        self.opponent.seed = seed or 0
        self._play_others()
        return self.aec.observe(self.side), {}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        a = self.aec
        a.step(int(action))
        self._play_others()
        reward = float(a._cumulative_rewards.get(self.side, 0.0) or a.rewards.get(self.side, 0.0))
        return (
            a.observe(self.side),
            reward,
            bool(a.terminations[self.side]),
            bool(a.truncations[self.side]),
            {},
        )
