"""Procedures: multi-stage automatic steps (a combat, a battle, a siege).

A procedure declares its stages once, in order, as methods marked with :func:`stage`::

    class Combat(Procedure):
        @stage
        def declared(self, g, f): ...        # runs first
        @stage
        def odds(self, g, f):
            g.push("loss-choice", {...})     # a sub-decision for either side
        @stage
        def resolve(self, g, f):
            if nothing_left:
                return self.goto(f, "cleanup")
        @stage
        def cleanup(self, g, f): ...         # after the last stage the procedure is over

The frame keeps the name of the next stage (``params["stage"]``). Running the procedure calls
stages in order until one pushes a frame (a decision for a side, or a nested procedure): when that
frame is over the procedure goes on with the next stage. A stage changes the order by returning
:meth:`Procedure.goto` (jump), :meth:`Procedure.again` (run this stage once more, e.g. one unit at a
time) or :meth:`Procedure.stop` (the procedure is over). A subclass overrides a stage by defining a
method of the same name (it keeps its place) and may add stages with ``@stage(after="name")`` or
``@stage(before="name")``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from grognard.core.sequence import Step
from grognard.core.state import Frame

if TYPE_CHECKING:
    from grognard.core.game import Game

F = TypeVar("F", bound=Callable[..., Any])
MAX_STAGES_PER_RUN = 10_000
_NEXT = object()


class Goto:
    """Where a stage sends the procedure next (returned by :meth:`Procedure.goto`,
    :meth:`Procedure.again`, :meth:`Procedure.stop`); ``stage`` None ends the procedure."""

    __slots__ = ("stage",)

    def __init__(self, stage: str | None) -> None:
        self.stage = stage


def stage(fn: F | None = None, *, after: str | None = None, before: str | None = None) -> Any:
    """Mark a method ``(self, g, f) -> None | goto`` as a stage (in definition order)."""

    def deco(f: F) -> F:
        f._stage = (after, before)  # type: ignore[attr-defined]
        return f

    if fn is not None:
        return deco(fn)
    return deco


class Procedure(Step):
    """An automatic step made of named stages (see the module docstring)."""

    stages: ClassVar[tuple[str, ...]] = ()
    stage_key: ClassVar[str] = "stage"
    _stage_fns: ClassVar[dict[str, Callable[..., Any]]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        order = list(cls.stages)
        for attr, obj in cls.__dict__.items():
            mark = getattr(obj, "_stage", None)
            if mark is None or attr in order:
                continue
            after, before = mark
            if after is not None:
                order.insert(order.index(after) + 1, attr)
            elif before is not None:
                order.insert(order.index(before), attr)
            else:
                order.append(attr)
        cls.stages = tuple(order)
        cls._stage_fns = {name: getattr(cls, name) for name in order}

    # ---- what stages return
    def goto(self, f: Frame, name: str) -> Goto:
        """Go on with stage ``name`` (instead of the next one)."""
        if name not in self.stages:
            raise ValueError(f"{type(self).__name__} has no stage {name!r}")
        return Goto(name)

    def again(self, f: Frame) -> Goto:
        """Run the current stage once more (after any frame it pushed is over)."""
        return Goto(str(f.params.get("_running", self.stages[0])))

    def stop(self, f: Frame) -> Goto:
        """The procedure is over after this stage."""
        return Goto(None)

    def current_stage(self, f: Frame) -> str | None:
        """The stage that runs next (None when the procedure is over)."""
        s = f.params.get(self.stage_key, self.stages[0] if self.stages else None)
        return None if s == "" else s

    def set_stage(self, f: Frame, name: str | None) -> None:
        f.params[self.stage_key] = "" if name is None else name

    def stage_in(self, g: Game, f: Frame) -> str | None:
        """The stage that runs next, read where the procedure keeps it: by default the frame
        (:meth:`current_stage`); a procedure whose stage is part of the rule system's own record
        (a battle's phase) overrides this and :meth:`put_stage`."""
        return self.current_stage(f)

    def put_stage(self, g: Game, f: Frame, name: str | None) -> None:
        """Record the stage that runs next (None: the procedure is over)."""
        self.set_stage(f, name)

    def run(self, g: Game, f: Frame) -> None:
        frames = g.state.frames
        depth = len(frames)
        for _ in range(MAX_STAGES_PER_RUN):
            if f.done or len(frames) != depth or frames[-1] is not f:
                return
            name = self.stage_in(g, f)
            if name is None:
                g.finish(f)
                return
            if name not in self._stage_fns:
                raise RuntimeError(f"{self.name}: unknown stage {name!r}")
            i = self.stages.index(name)
            following = self.stages[i + 1] if i + 1 < len(self.stages) else None
            self.put_stage(g, f, following)
            f.params["_running"] = name
            out = self._stage_fns[name](self, g, f)
            if isinstance(out, Goto) and not f.done:
                self.put_stage(g, f, out.stage)
        raise RuntimeError(f"{self.name}: the stages are looping ({self.stage_in(g, f)})")
