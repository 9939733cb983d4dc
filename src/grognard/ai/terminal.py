"""Playing against the computer in the terminal (``grognard play SCENARIO --ai SIDE[:LEVEL]``).

:class:`AIHotseat` is the terminal's hot-seat loop in which some sides are played by agents:
their decisions are printed (marked as the computer's) and applied without a menu.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from rich.console import Console

from grognard.ai.agents import LEVELS, Agent, make_agent
from grognard.core.game import Game
from grognard.core.sequence import Action
from grognard.play import Hotseat


def parse_ai_specs(
    specs: Iterable[str], sides: list[str], default_level: str = "normal", seed: int = 1
) -> dict[str, Agent]:
    """Side -> agent from ``SIDE[:LEVEL]`` texts. A side is named in any case or by a unique
    prefix; LEVEL is a planner level (easy, normal, hard) or an agent (random, greedy,
    planner:LEVEL)."""
    out: dict[str, Agent] = {}
    for k, spec in enumerate(specs):
        name, level = spec, default_level
        head, sep, tail = spec.partition(":")
        if sep:
            name, level = head, tail
        side = match_side(name, sides)
        agent_spec = f"planner:{level}" if level in LEVELS else level
        out[side] = make_agent(agent_spec, seed * 1000 + k)
    return out


def match_side(name: str, sides: list[str]) -> str:
    """The side called ``name`` (case-insensitive, or a unique prefix)."""
    low = name.strip().lower()
    exact = [s for s in sides if s.lower() == low]
    if exact:
        return exact[0]
    pre = [s for s in sides if s.lower().startswith(low)] if low else []
    if len(pre) == 1:
        return pre[0]
    raise ValueError(f"--ai {name!r}: no such side (the sides are {', '.join(sides)})")


class AIHotseat(Hotseat):
    """The hot-seat loop with some sides played by the computer."""

    def __init__(self, game: Game, ai: Mapping[str, Agent], **kw: Any) -> None:
        super().__init__(game, **kw)
        self.ai = dict(ai)
        self._ai_action: Action | None = None

    def choose(self, side: str) -> Action | str | None:
        agent = self.ai.get(side)
        if agent is None:
            return super().choose(side)
        with self.out.status(f"{side}: the computer ({agent.name}) is thinking..."):
            action = agent.choose(self.g, side)
        self.out.print(f"[bold magenta]{side} (computer):[/bold magenta] {self.g.label(action)}")
        self._ai_action = action
        return action

    def do(self, action: Action) -> bool:
        if action is self._ai_action:
            self._ai_action = None
            agent = self.ai.get(str(action.get("side")))
            self.g.apply({**action, "agent": agent.spec} if agent is not None else action)
            return True
        return super().do(action)


def play_against(
    game: Game,
    ai: Mapping[str, Agent],
    save_path: Path | None = None,
    stream: IO[str] | None = None,
    input_fn: Any = None,
) -> Game:
    """Run the terminal game with ``ai`` playing its sides."""
    console = Console(file=stream, highlight=False) if stream else None
    return AIHotseat(game, ai, console=console, save_path=save_path, input_fn=input_fn).run()
