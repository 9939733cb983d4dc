"""A test variant of the rule system with stand-in steps on every hook (rules of later stages).

Each stand-in records that it was pushed, with its parameters, and lets its side pass; the
battle stand-in removes nothing and simply records the hexes. It exists only to test that the
sequence of play pushes each hook at the right moment for the right side.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from grognard import rulesets
from grognard.core.actions import ActionCatalog, ActionType
from grognard.core.game import Game
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418.ruleset import LaGrandeGuerre


def calls(g: Game) -> list[dict[str, Any]]:
    return list(g.state.vars.get("hook_calls", []))


class _Recorder(Step):
    rule = "test"

    def enter(self, g: Game, f: Frame) -> None:
        g.state.vars.setdefault("hook_calls", []).append({"hook": self.name, **f.params})

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        side = f.params.get("side")
        return [side] if side and self.name not in (hooks.BATTLES,) else []

    @handles.options("pass")
    def pass_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "pass", "side": side}]

    @handles.apply("pass")
    def apply_pass(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)


def _make(name: str) -> type[Step]:
    return type(
        f"Dummy_{name.replace('-', '_')}", (_Recorder,), {"name": name, "title": f"hook {name}"}
    )


DUMMIES = tuple(_make(n) for n in hooks.ALL)


class HookedLgg(LaGrandeGuerre):
    """lgg1418 with a stand-in step on every hook."""

    name = "lgg1418-hooked"
    # The stand-ins replace the real steps of the hooks that later rule modules install.
    step_classes = (
        tuple(c for c in LaGrandeGuerre.step_classes if c.name not in hooks.ALL) + DUMMIES
    )

    actions = LaGrandeGuerre.actions.merged(  # type: ignore[union-attr]
        ActionCatalog([ActionType("pass", rules=("test",), label="Pass", doc="pass")])
    )

    @property
    def data_dir(self):
        return LaGrandeGuerre().data_dir


rulesets.register(HookedLgg)
