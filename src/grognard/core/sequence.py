"""The sequence of play as a tree of steps, run as a stack of frames.

A rule system defines named :class:`Step` objects. A *composite* step (a turn, a
player turn, a phase, an iterator over fronts or combats) yields its children one at
a time through :meth:`Step.next_child`; a *leaf* step either runs automatically
(:meth:`Step.run`) or waits for actions from the sides returned by
:meth:`Step.actors`.

The game state keeps the active path as a stack of :class:`~grognard.core.state.Frame`
objects (step name + JSON parameters). Any step may push a frame for the other side
(a reserve commitment, a reaction window, a loss choice): it runs on top of the stack
and control returns to the pusher when it finishes. Because frames are plain data,
saving, loading and replaying need nothing special.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from grognard.core import serial
from grognard.core.errors import IllegalAction
from grognard.core.state import Frame

if TYPE_CHECKING:
    from grognard.core.game import Game

Action = dict[str, Any]


class Step:
    """A node of the sequence of play. Subclass and register it with a rule system."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    rule: ClassVar[str] = "core"
    composite: ClassVar[bool] = False

    # ---- common
    def label(self, g: Game, f: Frame) -> str:
        return self.title or self.name

    def enter(self, g: Game, f: Frame) -> None:
        """Called once when the frame first becomes active."""

    def leave(self, g: Game, f: Frame) -> None:
        """Called once when the frame is finished and removed."""

    # ---- composite steps
    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        """The next child step to run (name, params), or None when this step is over."""
        return None

    # ---- leaf steps
    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        """Sides that may act now. Empty: the step is automatic and :meth:`run` is called."""
        return ()

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return []

    def check(self, g: Game, f: Frame, action: Action) -> None:
        """Raise :class:`IllegalAction` naming the forbidding rule if ``action`` is not allowed.

        The default accepts exactly the actions listed by :meth:`legal_actions`.
        Rule systems override it to name the precise rule that forbids an action.
        """
        wanted = serial.canonical(action)
        for a in self.legal_actions(g, f, action["side"]):
            if serial.canonical(a) == wanted:
                return
        raise IllegalAction(
            self.rule, f"{action.get('type')!r} is not a legal action in {self.label(g, f)}"
        )

    def apply(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction(self.rule, f"{self.label(g, f)} takes no actions")

    def run(self, g: Game, f: Frame) -> None:
        """Body of an automatic step. The default simply finishes it."""
        g.finish(f)


class Sequence_(Step):
    """A composite step that runs a fixed list of children in order."""

    composite = True
    children: ClassVar[tuple[str, ...]] = ()

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        i = int(f.params.get("_i", 0))
        kids = self.child_list(g, f)
        if i >= len(kids):
            return None
        f.params["_i"] = i + 1
        name, params = kids[i]
        return name, dict(params)

    def child_list(self, g: Game, f: Frame) -> list[tuple[str, dict[str, Any]]]:
        return [(c, {}) for c in self.children]


class SecretChoice(Step):
    """Simultaneous secret choices: every listed side commits, then all are revealed.

    Frame params: ``key`` (name of the choice), ``sides`` (who must choose), ``options``
    (``{side: [allowed values]}``), optional ``rule``. A commitment is stored in the
    committing side's secrets and nobody else sees it until every side has committed;
    then a ``reveal`` event shows all choices and they are copied to
    ``state.vars["choices"][key]``.
    """

    name = "secret-choice"
    title = "Secret choice"

    def label(self, g: Game, f: Frame) -> str:
        return f"Secret choice: {f.params.get('key')}"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        key = f.params["key"]
        return [s for s in f.params["sides"] if key not in g.state.secrets.get(s, {})]

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        if side not in self.actors(g, f):
            return []
        return [
            {"type": "commit", "side": side, "key": f.params["key"], "value": v}
            for v in f.params["options"][side]
        ]

    def check(self, g: Game, f: Frame, action: Action) -> None:
        rule = f.params.get("rule", self.rule)
        if action.get("type") != "commit":
            raise IllegalAction(rule, "a secret choice is pending: commit a choice first")
        if action.get("key") != f.params["key"]:
            raise IllegalAction(rule, f"the pending choice is {f.params['key']!r}")
        if action["value"] not in f.params["options"][action["side"]]:
            raise IllegalAction(rule, f"{action['value']!r} is not one of the allowed choices")

    def apply(self, g: Game, f: Frame, action: Action) -> None:
        key = f.params["key"]
        side = action["side"]
        g.state.secrets.setdefault(side, {})[key] = action["value"]
        g.emit(
            "commit",
            f"{side} commits a secret choice ({key})",
            rule=f.params.get("rule"),
            key=key,
            by=side,
        )
        g.emit(
            "commit-detail",
            f"you chose {action['value']!r} for {key}",
            visible_to=[side],
            key=key,
            value=action["value"],
        )
        if not self.actors(g, f):
            chosen = {s: g.state.secrets[s].pop(key) for s in f.params["sides"]}
            g.state.vars.setdefault("choices", {})[key] = chosen
            g.emit(
                "reveal",
                f"choices revealed for {key}: {chosen}",
                rule=f.params.get("rule"),
                key=key,
                values=chosen,
                reveal=True,
            )
            g.finish(f)
