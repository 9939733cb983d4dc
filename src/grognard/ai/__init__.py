"""Computer opponents, studies and an RL environment (see docs/ai.md).

``make_agent("planner:normal", seed)`` builds an agent; ``agent.choose(g, side)`` returns one of
``side``'s legal actions, computed from ``g.view(side)`` and searches on determinised clones.
"""

from __future__ import annotations

from grognard.ai.agents import AGENTS, LEVELS, Agent, make_agent

__all__ = ["AGENTS", "LEVELS", "Agent", "make_agent"]
