"""The sequence of play as a tree of steps, run as a stack of frames.

A rule system defines :class:`Step` classes. A *composite* step (a turn, a player turn, a phase,
an iterator over fronts or combats) yields its children one at a time through
:meth:`Step.next_child`; a *leaf* step either runs automatically (:meth:`Step.run`) or waits for
actions from the sides returned by :meth:`Step.actors`. :class:`Sequence_` is a composite that
runs a declared list of children; :class:`~grognard.core.procedure.Procedure` is an automatic step
made of named stages.

The game state keeps the active path as a stack of :class:`~grognard.core.state.Frame` objects
(step name + JSON parameters). Any step may push a frame for the other side (a reserve
commitment, a reaction window, a loss choice): it runs on top of the stack and control returns to
the pusher when it finishes. Because frames are plain data, saving, loading and replaying need
nothing special.

Actions
-------
A leaf step accepts the action types it has *handlers* for, one per type, declared with the
decorators of :class:`handles` (``apply``, ``check``, ``options``, ``actors``, ``chance``)::

    class Movement(Step):
        @handles.options("move")
        def move_options(self, g, f, side, actor): ...   # the legal moves of one actor
        @handles.actors("move")
        def movers(self, g, f, side): ...                # who may move (piece ids)
        @handles.check("move")
        def check_move(self, g, f, action): ...          # refuse with the rule that forbids it
        @handles.apply("move")
        def apply_move(self, g, f, action): ...

The core calls exactly one handler per action (no chain of comparisons on the type). Without a
``check`` handler, an action is legal when it is one of its actor's listed options. Legal actions
are offered as :class:`Family` objects (type -> actor -> options), computed lazily;
``legal_actions`` is their flattening. A subclass changes behaviour by overriding the methods.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from grognard.core import serial
from grognard.core.actions import ActionType, Field
from grognard.core.errors import IllegalAction
from grognard.core.state import Frame

if TYPE_CHECKING:
    from grognard.core.game import Game

Action = dict[str, Any]
F = TypeVar("F", bound=Callable[..., Any])
ROLES = ("apply", "check", "options", "actors", "chance")


def _role(role: str, *types: str) -> Callable[[F], F]:
    def deco(fn: F) -> F:
        marks = dict(getattr(fn, "_handler_roles", {}))
        for t in types:
            marks.setdefault(role, []).append(t)
        fn._handler_roles = marks  # type: ignore[attr-defined]
        return fn

    return deco


class handles:
    """The handler roles a step method can take for action types, used as decorators.

    A namespace rather than module functions so the names never collide with the methods of
    :class:`Step` (``check``, ``apply``, ``actors``) inside a class body."""

    @staticmethod
    def apply(*types: str) -> Callable[[F], F]:
        """Mark a method ``(self, g, f, action) -> None`` as applying actions of ``types``."""
        return _role("apply", *types)

    @staticmethod
    def check(*types: str) -> Callable[[F], F]:
        """Mark a method ``(self, g, f, action) -> None`` raising IllegalAction for ``types``."""
        return _role("check", *types)

    @staticmethod
    def options(*types: str) -> Callable[[F], F]:
        """Mark a method ``(self, g, f, side, actor) -> list[Action]`` listing legal actions of
        ``types`` (``actor`` is None when the type has no ``actors`` handler)."""
        return _role("options", *types)

    @staticmethod
    def actors(*types: str) -> Callable[[F], F]:
        """Mark a method ``(self, g, f, side) -> Sequence[str]`` naming who may act (piece ids,
        hex labels...) for ``types``; options are then listed per actor."""
        return _role("actors", *types)

    @staticmethod
    def chance(*types: str) -> Callable[[F], F]:
        """Mark a method ``(self, g, f, action) -> list[ChanceOutcome] | None`` giving the exact
        outcome distribution of the chance event an action of ``types`` leads to (what
        :meth:`Game.chance_outcomes` answers by default)."""
        return _role("chance", *types)


@dataclass(frozen=True)
class Handler:
    """The functions handling one action type in a step class (each takes the step first)."""

    type: str
    apply: Callable[..., None] | None = None
    check: Callable[..., None] | None = None
    options: Callable[..., list[Action]] | None = None
    actors: Callable[..., Sequence[str]] | None = None
    chance: Callable[..., Any] | None = None
    _names: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)


@dataclass
class Family:
    """The legal actions of one type, grouped by actor and computed on demand."""

    type: str
    label: str
    _actors: Callable[[], Sequence[str | None]]
    _options: Callable[[str | None], list[Action]]

    def actors(self) -> list[str | None]:
        return list(self._actors())

    def options(self, actor: str | None = None) -> list[Action]:
        return self._options(actor)

    def all(self) -> list[Action]:
        out: list[Action] = []
        for a in self._actors():
            out.extend(self._options(a))
        return out


class Step:
    """A node of the sequence of play. Subclass it and list it in a rule system's steps."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    rule: ClassVar[str] = "core"
    composite: ClassVar[bool] = False
    handlers: ClassVar[dict[str, Handler]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        # the handlers of every base (a mixin of handlers combined with another step class), in
        # the method resolution order: the nearest base wins each role of a type handled twice,
        # a role it leaves empty is taken from a further base; the types come in that order
        inherited: dict[str, dict[str, str | None]] = {}
        for base in cls.__mro__[1:]:
            table = base.__dict__.get("handlers")
            if not isinstance(table, dict):
                continue
            for t, h in table.items():
                roles = inherited.setdefault(t, dict.fromkeys(ROLES))
                for r, name in h._names.items():
                    if roles.get(r) is None and name is not None:
                        roles[r] = name
        own: dict[str, dict[str, str | None]] = {}
        for attr, obj in cls.__dict__.items():
            marks = getattr(obj, "_handler_roles", None)
            if not marks:
                continue
            for role, types in marks.items():
                for t in types:
                    roles = own.setdefault(t, dict(inherited.get(t, dict.fromkeys(ROLES))))
                    roles[role] = attr
        # the class's own action types first (in definition order), then the inherited ones
        names = {**own, **{t: r for t, r in inherited.items() if t not in own}}
        table = {}
        for t, roles in names.items():
            # resolved now, on this class: a subclass overriding a method gets its own version
            fns = {r: getattr(cls, a) if a else None for r, a in roles.items()}
            table[t] = Handler(t, **fns, _names=roles)
        cls.handlers = table

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

    def action_types(self, g: Game, f: Frame, side: str) -> Sequence[str]:
        """The action types offered now, in the order a front end should show them (default:
        every handled type with an options method, in declaration order)."""
        return [t for t, h in self.handlers.items() if h.options is not None]

    def families(self, g: Game, f: Frame, side: str) -> list[Family]:
        """The legal actions of ``side``, one :class:`Family` per action type, lazily."""
        if type(self).legal_actions is not Step.legal_actions:
            return self._families_of_list(g, f, side)
        out = []
        for t in self.action_types(g, f, side):
            h = self.handlers.get(t)
            if h is None or h.options is None:
                continue
            out.append(self._family(g, f, side, h))
        return out

    def _families_of_list(self, g: Game, f: Frame, side: str) -> list[Family]:
        """Families grouped from a step that lists its actions itself (no handlers)."""
        return families_of_list(g, self.legal_actions(g, f, side))

    def _family(self, g: Game, f: Frame, side: str, h: Handler) -> Family:
        opt = h.options
        act = h.actors
        assert opt is not None

        def actor_list() -> Sequence[str | None]:
            return list(act(self, g, f, side)) if act is not None else [None]

        def option_list(actor: str | None) -> list[Action]:
            return list(opt(self, g, f, side, actor))

        return Family(h.type, g.ruleset.action_title(h.type), actor_list, option_list)

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        """Every legal action of ``side`` (the flattening of :meth:`families`)."""
        out: list[Action] = []
        for t in self.action_types(g, f, side):
            h = self.handlers.get(t)
            if h is None or h.options is None:
                continue
            out.extend(self._family(g, f, side, h).all())
        return out

    def handler(self, action: Action) -> Handler:
        h = self.handlers.get(str(action.get("type")))
        if h is None or h.apply is None:
            raise IllegalAction(self.rule, f"{action.get('type')!r} is not allowed now")
        return h

    def check(self, g: Game, f: Frame, action: Action) -> None:
        """Raise :class:`IllegalAction` naming the forbidding rule if ``action`` is not allowed.

        Dispatches to the type's ``check`` handler; without one, the action must be one of the
        options listed for its actor (only that actor's options are computed). A step that
        declares no handler for the type accepts exactly what its :meth:`legal_actions` lists."""
        if action.get("type") not in self.handlers:
            wanted = serial.canonical(action)
            for a in self.legal_actions(g, f, str(action["side"])):
                if serial.canonical(a) == wanted:
                    return
            raise IllegalAction(
                self.rule, f"{action.get('type')!r} is not a legal action in {self.label(g, f)}"
            )
        h = self.handler(action)
        if h.check is not None:
            h.check(self, g, f, action)
            return
        if h.options is None:
            return
        wanted = serial.canonical(action)
        for a in self.options_for(g, f, action, h):
            if serial.canonical(a) == wanted:
                return
        raise IllegalAction(
            self.rule, f"this {action.get('type')!r} action is not legal in {self.label(g, f)}"
        )

    def options_for(self, g: Game, f: Frame, action: Action, h: Handler) -> list[Action]:
        """The listed options an action is compared with: its actor's, or all of its type."""
        side = str(action["side"])
        opt = h.options
        assert opt is not None
        decl = g.ruleset.actions.types.get(h.type) if g.ruleset.actions else None
        key = decl.actor if decl is not None else None
        if h.actors is not None and key is not None:
            actor = action.get(key)
            if isinstance(actor, list):
                actor = actor[0] if actor else None
            if actor is not None:
                return list(opt(self, g, f, side, str(actor)))
        if h.actors is None:
            return list(opt(self, g, f, side, None))
        out: list[Action] = []
        for a in h.actors(self, g, f, side):
            out.extend(opt(self, g, f, side, a))
        return out

    def apply(self, g: Game, f: Frame, action: Action) -> None:
        h = self.handler(action)
        assert h.apply is not None
        h.apply(self, g, f, action)

    def chance_outcomes(self, g: Game, f: Frame, action: Action) -> Any:
        """The exact outcomes of the chance event ``action`` leads to, from the type's
        ``chance`` handler (None: no handler, or no chance event)."""
        h = self.handlers.get(str(action.get("type")))
        if h is None or h.chance is None:
            return None
        return h.chance(self, g, f, action)

    def run(self, g: Game, f: Frame) -> None:
        """Body of an automatic step. The default simply finishes it."""
        g.finish(f)


class Sequence_(Step):
    """A composite step that runs a declared list of children in order."""

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


class TurnTrack(Step):
    """The game: one child per entry of the scenario's turn track, then the end of the game.

    Sets ``state.turn`` to ``{"index": n, "label": ...}`` (plus :meth:`turn_record`) and logs the
    start of each turn. Subclasses name the child step (:attr:`turn_step`), say what a turn
    record holds and what happens when the track runs out (:meth:`end_of_game`)."""

    composite = True
    turn_step: ClassVar[str] = "turn"

    def turns(self, g: Game) -> Sequence[Any]:
        return g.scenario.data.turns

    def turn_record(self, g: Game, index: int, turn: Any) -> dict[str, Any]:
        return {"index": index, "label": str(turn.label)}

    def start_turn(self, g: Game, index: int, turn: Any) -> None:
        """Log the start of a turn (override to add the turn's weather and the like)."""
        g.emit("turn", f"turn {turn.label} begins", rule=self.rule)

    def child_params(self, g: Game, index: int, turn: Any) -> dict[str, Any]:
        return {}

    def end_of_game(self, g: Game) -> None:
        """The track ran out: judge victory (the default: nothing, the game simply ends)."""

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        turns = self.turns(g)
        i = int(f.params.get("next", 0))
        if i >= len(turns):
            self.end_of_game(g)
            return None
        f.params["next"] = i + 1
        g.state.turn = self.turn_record(g, i + 1, turns[i])
        self.start_turn(g, i + 1, turns[i])
        return self.turn_step, self.child_params(g, i + 1, turns[i])


COMMIT = ActionType(
    "commit",
    fields=(Field.str("key"), Field.json("value")),
    rules=(),
    label="Commit {value} as your secret choice for {key}",
    doc="secret choice",
)
"""The action of :class:`SecretChoice` (a rule system using it declares it among its own)."""


class SecretChoice(Step):
    """Simultaneous secret choices: every listed side commits, then all are revealed.

    Frame params: ``key`` (name of the choice), ``sides`` (who must choose), optional ``options``
    (``{side: [allowed values]}``) and ``rule``. A subclass may instead compute the options from
    the state (:meth:`choices`). A commitment is stored in the committing side's secrets and nobody
    else sees it until every side has committed; then a ``reveal`` event shows all choices and they
    are handed to :meth:`revealed` (by default copied to ``state.vars["choices"][key]``).
    """

    name = "secret-choice"
    title = "Secret choice"

    def label(self, g: Game, f: Frame) -> str:
        return f"Secret choice: {f.params.get('key')}"

    def rule_of(self, f: Frame) -> str:
        return str(f.params.get("rule", self.rule))

    def choices(self, g: Game, f: Frame, side: str) -> list[Any]:
        """The values ``side`` may commit to (default: the frame's ``options``)."""
        return list(f.params.get("options", {}).get(side, []))

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        key = f.params["key"]
        return [s for s in f.params["sides"] if key not in g.state.secrets.get(s, {})]

    @handles.options("commit")
    def commit_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        if side not in self.actors(g, f):
            return []
        return [
            {"type": "commit", "side": side, "key": f.params["key"], "value": v}
            for v in self.choices(g, f, side)
        ]

    @handles.check("commit")
    def check_commit(self, g: Game, f: Frame, action: Action) -> None:
        rule = self.rule_of(f)
        if action.get("key") != f.params["key"]:
            raise IllegalAction(rule, f"the pending choice is {f.params['key']!r}")
        allowed = self.choices(g, f, action["side"])
        if serial.canonical(action.get("value")) not in {serial.canonical(v) for v in allowed}:
            raise IllegalAction(rule, f"{action.get('value')!r} is not one of the allowed choices")

    def handler(self, action: Action) -> Handler:
        if action.get("type") != "commit":
            raise IllegalAction(self.rule, "a secret choice is pending: commit a choice first")
        return super().handler(action)

    @handles.apply("commit")
    def apply_commit(self, g: Game, f: Frame, action: Action) -> None:
        key = f.params["key"]
        side = action["side"]
        rule = f.params.get("rule")
        g.state.secrets.setdefault(side, {})[key] = action["value"]
        g.emit("commit", f"{side} commits a secret choice ({key})", rule=rule, key=key, by=side)
        g.emit(
            "commit-detail",
            f"you chose {action['value']!r} for {key}",
            visible_to=[side],
            key=key,
            value=action["value"],
        )
        if not self.actors(g, f):
            chosen = {s: g.state.secrets[s].pop(key) for s in f.params["sides"]}
            g.emit(
                "reveal",
                f"choices revealed for {key}: {chosen}",
                rule=rule,
                key=key,
                values=chosen,
                reveal=True,
            )
            self.revealed(g, f, chosen)
            g.finish(f)

    def revealed(self, g: Game, f: Frame, chosen: dict[str, Any]) -> None:
        """Every side has committed: keep the choices (``state.vars["choices"][key]``)."""
        g.state.vars.setdefault("choices", {})[f.params["key"]] = chosen


def families_of_list(g: Game, flat: Sequence[Action]) -> list[Family]:
    """The families of an already listed set of legal actions: grouped by type, then by the
    declared actor field of each type (the first of a list of actors), in listing order."""
    by_type: dict[str, dict[str | None, list[Action]]] = {}
    catalog = g.ruleset.actions
    for a in flat:
        t = str(a.get("type"))
        decl = catalog.types.get(t) if catalog is not None else None
        key = decl.actor if decl is not None else None
        actor = a.get(key) if key else None
        if isinstance(actor, list):
            actor = actor[0] if actor else None
        by_type.setdefault(t, {}).setdefault(None if actor is None else str(actor), []).append(a)
    out = []
    for t, groups in by_type.items():

        def actor_list(groups: dict[str | None, list[Action]] = groups) -> list[str | None]:
            return list(groups)

        def option_list(
            actor: str | None, groups: dict[str | None, list[Action]] = groups
        ) -> list[Action]:
            return list(groups.get(actor, []))

        out.append(Family(t, g.ruleset.action_title(t), actor_list, option_list))
    return out


def walk(steps: Sequence[Step]) -> Iterator[tuple[str, Handler]]:
    """Every (step name, handler) of a list of steps (used to check the declarations)."""
    for s in steps:
        for h in s.handlers.values():
            yield s.name, h


def other_of(pair: tuple[str, str], side: str) -> str:
    """The other of a rule system's two sides: the second for the first, else the first.

    Rule systems with fixed side names (greatwar, lgg1418, eastfront) define their
    ``other_side`` with this, so every rule system reads "the other side" the same way."""
    return pair[1] if side == pair[0] else pair[0]


def other_side(g: Game, side: str) -> str:
    """The other side of a two-sided game, from the scenario's sides."""
    others = [s for s in g.state.sides if s != side]
    if len(others) != 1:
        raise ValueError(f"no single other side than {side!r} among {g.state.sides}")
    return others[0]
