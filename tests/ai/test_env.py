"""The PettingZoo AEC environment and the Gymnasium wrapper."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test  # noqa: E402

from grognard.ai.env import SingleAgentEnv, env, listed_actions  # noqa: E402
from grognard.scenario import find, load_scenario  # noqa: E402

TINY = Path(__file__).resolve().parents[1] / "tinyrules" / "scenarios" / "duel.toml"


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_api_test_passes_on_the_tiny_rule_system() -> None:
    api_test(env(load_scenario(TINY), max_actions=64), num_cycles=100, verbose_progress=False)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_api_test_passes_on_over_there() -> None:
    e = env(find("gw-tutorial"), max_actions=64, max_turns=1)
    api_test(e, num_cycles=30, verbose_progress=False)


def test_the_mask_marks_the_legal_actions_in_the_encoding() -> None:
    e = env(load_scenario(TINY), max_actions=8)
    e.reset(seed=2)
    side = e.agent_selection
    obs = e.observe(side)
    legal = listed_actions(e.game, side, 8)
    assert obs["action_mask"].sum() == len(legal) > 0
    assert all(e.game.is_legal(a) for a in legal)
    other = next(s for s in e.possible_agents if s != side)
    assert e.observe(other)["action_mask"].sum() == 0
    with pytest.raises(ValueError, match="action mask"):
        e.step(7 if len(legal) < 8 else 99)


def test_single_agent_wrapper_plays_a_game_to_its_end() -> None:
    s = SingleAgentEnv(load_scenario(TINY), side="Blue", opponent="random", max_actions=32)
    obs, _ = s.reset(seed=3)
    done, steps, reward = False, 0, 0.0
    while not done:
        k = int(np.flatnonzero(obs["action_mask"])[-1])
        obs, reward, term, trunc, _ = s.step(k)
        done = term or trunc
        steps += 1
    assert steps > 0 and reward in (-1.0, 0.0, 1.0)
