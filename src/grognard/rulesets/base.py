"""What a rule system provides to the engine.

A rule system is a subclass of :class:`Ruleset` living in its own folder under
``grognard/rulesets/`` with its data files in ``data/``. The core calls only the
methods below; everything game-specific stays inside the rule system.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import pkgutil
import tomllib
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from grognard.core import serial
from grognard.core.actions import ActionCatalog
from grognard.core.options import OptionSet, OptionSpec
from grognard.core.rules import RuleEntry, load_rule_list
from grognard.core.sequence import SecretChoice, Step
from grognard.core.state import Frame, Piece
from grognard.core.tables import ResultsTable
from grognard.textmap import render_board

if TYPE_CHECKING:
    from pydantic import BaseModel

    from grognard.core.game import ChanceOutcome, Game
    from grognard.scenario.freeform import Key
    from grognard.scenario.model import Scenario


_DIGESTS: dict[tuple[str, int, int], str] = {}
_DATA_HASHES: dict[tuple[Any, ...], str] = {}
# results tables read once per process, by (rule system, files and their mtimes, overrides)
_TABLES: dict[tuple[Any, ...], dict[str, ResultsTable]] = {}
_TABLE_IDS: dict[tuple[Any, ...], dict[str, Path]] = {}


def _file_digest(p: Path) -> str:
    """SHA-256 of a data file (kept per path, size and modification time: read once)."""
    st = p.stat()
    key = (str(p), st.st_size, st.st_mtime_ns)
    hit = _DIGESTS.get(key)
    if hit is None:
        hit = _DIGESTS[key] = hashlib.sha256(p.read_bytes()).hexdigest()
    return hit


class Ruleset:
    """Base class of every rule system. Subclasses set the class attributes."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    version: ClassVar[str] = "0"
    rule_prefix: ClassVar[str] = ""
    step_classes: ClassVar[tuple[type[Step], ...]] = ()
    root_step: ClassVar[str] = ""
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()
    # Map vocabulary a scenario may use; anything else is a validation error.
    terrain_types: ClassVar[tuple[str, ...]] = ()
    hexside_features: ClassVar[tuple[str, ...]] = ()
    point_kinds: ClassVar[tuple[str, ...]] = ()
    area_kinds: ClassVar[tuple[str, ...]] = ()
    box_kinds: ClassVar[tuple[str, ...]] = ()
    network_kinds: ClassVar[tuple[str, ...]] = ()
    schedule_kinds: ClassVar[tuple[str, ...]] = ()
    # Every action type the rule system accepts (None: actions are not declared, and the core
    # only checks that an action is a JSON object with a type and a side).
    actions: ClassVar[ActionCatalog | None] = None

    # ------------------------------------------------------------------ data
    @property
    def package_dir(self) -> Path:
        return Path(inspect.getfile(type(self))).parent

    @property
    def data_dir(self) -> Path:
        return self.package_dir / "data"

    def data_files(self) -> list[Path]:
        d = self.data_dir
        if not d.is_dir():
            return []
        return sorted(
            p for p in d.rglob("*") if p.is_file() and p.suffix in (".toml", ".json", ".txt")
        )

    def data_hash(self, overrides: Mapping[str, str] | None = None) -> str:
        """Content hash of the rule system's data (and any table overrides in use)."""
        files = self.data_files()
        key = (
            self.name,
            self.version,
            tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files),
            tuple(sorted((overrides or {}).items())),
        )
        hit = _DATA_HASHES.get(key)
        if hit is not None:
            return hit
        h = hashlib.sha256(f"{self.name}/{self.version}".encode())
        for p in files:
            h.update(str(p.relative_to(self.data_dir)).encode())
            h.update(p.read_bytes())
        for k in sorted(overrides or {}):
            h.update(f"override:{k}".encode())
            h.update(str((overrides or {})[k]).encode())
        out = _DATA_HASHES[key] = h.hexdigest()
        return out

    def table_files(self) -> dict[str, Path]:
        """Results tables shipped with the rule system, by table id (``data/tables/*.toml``)."""
        d = self.data_dir / "tables"
        paths = sorted(d.glob("*.toml")) if d.is_dir() else []
        key = tuple((str(p), p.stat().st_mtime_ns) for p in paths)
        hit = _TABLE_IDS.get(key)
        if hit is None:
            hit = _TABLE_IDS[key] = {ResultsTable.load(p).id: p for p in paths}
        return dict(hit)

    def tables(self, overrides: Mapping[str, str] | None = None) -> dict[str, ResultsTable]:
        """All results tables, with user overrides (table id -> TOML text) replacing shipped
        ones."""

        files = self.table_files()
        key = (
            type(self).__qualname__,
            tuple((tid, str(p), p.stat().st_mtime_ns) for tid, p in files.items()),
            tuple(sorted((overrides or {}).items())),
        )
        hit = _TABLES.get(key)
        if hit is not None:  # read once per process for the same files and overrides
            return dict(hit)
        out = {tid: ResultsTable.load(p) for tid, p in files.items()}
        for tid, text in (overrides or {}).items():
            t = ResultsTable.from_mapping(tomllib.loads(text), f"override for table {tid}")
            if t.id != tid:
                raise ValueError(f"override for table {tid!r} declares id {t.id!r}")
            if tid not in out:
                raise ValueError(
                    f"no table {tid!r} to override in rule system {self.name} (known:"
                    f" {sorted(out)})"
                )
            out[tid] = t
        _TABLES[key] = out
        return dict(out)

    def rule_list(self) -> list[RuleEntry]:
        p = self.data_dir / "rules.toml"
        return load_rule_list(p) if p.exists() else []

    def game_data_files(self, scenario: Scenario) -> list[Path]:
        """The rule-data files a game of ``scenario`` reads (default: every data file but the
        rule list). A save is refused only when one of them changed."""
        return [p for p in self.data_files() if p.name != "rules.toml"]

    def data_digests(self, scenario: Scenario) -> dict[str, str]:
        """A digest of each rule-data file a game of ``scenario`` uses, and of each override."""
        out = {
            str(p.relative_to(self.data_dir)): _file_digest(p)
            for p in self.game_data_files(scenario)
        }
        for k, v in sorted(scenario.table_overrides.items()):
            out[f"override:{k}"] = hashlib.sha256(v.encode()).hexdigest()
        return out

    def load_rule_modules(self) -> None:
        """Import every module of the rule system so all rule registrations run."""
        pkg = type(self).__module__.rsplit(".", 1)[0]
        mod = importlib.import_module(pkg)
        for info in pkgutil.walk_packages(mod.__path__, pkg + "."):
            importlib.import_module(info.name)

    # ------------------------------------------------------------------ options and steps
    def option_set(self) -> OptionSet:
        return OptionSet.of(self.option_specs)

    @cached_property
    def steps(self) -> dict[str, Step]:
        out: dict[str, Step] = {SecretChoice.name: SecretChoice()}
        for cls in self.step_classes:
            if not cls.name:
                raise ValueError(f"step class {cls.__name__} has no name")
            if cls.name in out and type(out[cls.name]) is not cls and cls.name != SecretChoice.name:
                raise ValueError(f"two steps named {cls.name!r}")
            out[cls.name] = cls()
        return out

    # ------------------------------------------------------------------ scenario
    def scenario_model(self) -> type[BaseModel] | None:
        """Pydantic model validating the scenario's ``[rules]`` table (None: must be empty)."""
        return None

    def piece_attr_model(self) -> type[BaseModel] | None:
        """Pydantic model validating each piece's ``attrs``/face values (None: free-form)."""
        return None

    def piece_types(self) -> set[str] | None:
        """Piece types a scenario may use (None: any)."""
        return None

    def free_form_keys(self) -> Mapping[str, Mapping[str, Key]]:
        """What the scenario's free-form tables may hold, per kind of table (``place``, ``face``,
        ...: see :mod:`grognard.scenario.freeform`), as key -> ``Key``. A kind not given is not
        checked; a key not declared in a given kind is an error."""
        return {}

    def check_scenario(self, sc: Any) -> list[tuple[str, str]]:
        """Semantic checks of a loaded scenario: ``(key path, message)`` for each problem."""
        return []

    def setup(self, g: Game) -> None:
        """Build the initial state from ``g.scenario``. The default places scenario pieces."""
        g.scenario.place_pieces(g.state)
        if not self.root_step:
            raise ValueError(f"rule system {self.name} has no root step")
        g.state.frames = [Frame(self.root_step, {})]

    # ------------------------------------------------------------------ views and fog of war
    def piece_visibility(self, g: Game, piece: Piece, side: str | None) -> str:
        """``"full"``, ``"stack"`` (an anonymous marker at its location) or ``"hidden"``."""
        return "full"

    def piece_view(self, g: Game, piece: Piece) -> dict[str, Any]:
        """A piece's record in a view, as JSON data. It may depend only on the piece and the
        board, never on the rest of the position: :meth:`view` keeps it on the piece until the
        piece changes (:meth:`kept_piece_view`)."""
        d = piece.to_json()
        d["loc"] = self.loc_label(g, piece.loc)
        d.pop("order", None)
        return d

    def kept_piece_view(self, g: Game, piece: Piece) -> dict[str, Any]:
        """:meth:`piece_view`, built once and kept on the piece until it changes (the state
        drops it at every change of the piece); shared by every view that shows the piece, so
        read it, never write into it (marked :class:`~grognard.core.serial.FrozenJSON`, which
        converters to JSON pass through as it is)."""
        kept = piece.__dict__.get("_view")
        if kept is None or kept[0] is not g.board:
            kept = (g.board, serial.FrozenJSON(self.piece_view(g, piece)))
            piece.__dict__["_view"] = kept
        out: dict[str, Any] = kept[1]
        return out

    def loc_label(self, g: Game, loc: Any) -> list[Any]:
        kind, ref = loc
        if kind == "hex":
            return [kind, g.board.label(int(ref))]
        if kind == "hexside":
            a, b = g.board.side_hexes[int(ref)]
            first = g.board.label(int(a)) if a >= 0 else "?"
            second = g.board.label(int(b)) if b >= 0 else "?"
            return [kind, f"{first}/{second}"]
        return [kind, ref]

    def stack_extra(self, g: Game, pieces: list[Piece], side: str | None) -> dict[str, Any]:
        """Extra facts ``side`` may see about an anonymous stack (e.g. observed size). Default
        none."""
        return {}

    def public_extra(self, g: Game, side: str | None) -> dict[str, Any]:
        """Rule-system facts a side may see (tracks, markers), already redacted."""
        return {"markers": g.state.markers, "tracks": g.state.tracks}

    def view(self, g: Game, side: str | None, log: bool = True) -> dict[str, Any]:
        """What ``side`` may know of the position (see :meth:`Game.view`); ``log`` False leaves
        the log out."""
        pieces = []
        stacks: dict[tuple[Any, ...], dict[str, Any]] = {}
        members: dict[tuple[Any, ...], list[Piece]] = {}
        for p in sorted(g.state.pieces.values(), key=lambda p: p.order):
            vis = self.piece_visibility(g, p, side)
            if vis == "full":
                pieces.append(self.kept_piece_view(g, p))
            elif vis == "stack":
                outer = g.state.where(p.id)
                key = (tuple(outer), p.side)
                if key not in stacks:
                    stacks[key] = {"stack": True, "side": p.side, "loc": self.loc_label(g, outer)}
                members.setdefault(key, []).append(p)
        for key, marker in stacks.items():
            marker.update(self.stack_extra(g, members[key], side))
        acting = g.acting_sides()
        v = {
            "side": side,
            "scenario": g.scenario.id,
            "ruleset": self.name,
            "turn": serial.to_jsonable(g.state.turn),
            "phase": g.phase_path(),
            "acting": acting,
            "pieces": pieces,
            "stacks": list(stacks.values()),
            "control": {g.board.label(k): v for k, v in sorted(g.state.control.items())},
            "secrets": serial.to_jsonable(g.state.secrets.get(side, {})) if side else {},
            "result": serial.to_jsonable(g.state.result),
        }
        if log:
            v["log"] = g.visible_log(side)
        v.update(serial.to_jsonable(self.public_extra(g, side)))
        return v

    def conceal_events(
        self, g: Game, side: str | None, events: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The logged events ``side`` sees (already filtered by their ``visible_to`` and
        numbered), with what the rule system hides from the side inside them concealed. Every
        way a side reads the log (views, the server's pushes and answers, the command line, the
        terminal) goes through it. By default the events are shown as they are."""
        return events

    def hidden_tokens(self, g: Game, side: str) -> set[str]:
        """Strings that must never appear in ``view(side)``: ids of pieces hidden from it."""
        return {
            p.id for p in g.state.pieces.values() if self.piece_visibility(g, p, side) != "full"
        }

    # ------------------------------------------------------------------ checks and presentation
    def invariants(self, g: Game) -> list[str]:
        """Rule-system invariants violated in the current state (empty when all hold)."""
        return []

    def describe_action(self, g: Game, action: Mapping[str, Any]) -> str:
        """The action's declared label, its pieces and places named (:meth:`name_of`)."""
        if self.actions is not None and action.get("type") in self.actions:
            return self.actions.label(action, lambda kind, v: self.name_of(g, kind, v))
        return " ".join(f"{k}={v}" for k, v in action.items() if k not in ("side",))

    def name_of(self, g: Game, kind: str, value: Any) -> str:
        """How a label shows a field's value: a piece by its name, anything else as given."""
        if kind == "piece":
            p = g.state.pieces.get(str(value))
            return (p.name or p.id) if p is not None else str(value)
        if isinstance(value, bool):
            return "yes" if value else "no"
        return str(value)

    def action_title(self, action_type: str) -> str:
        """A short title for a family of actions (the declaration's doc, or the type)."""
        if self.actions is not None and action_type in self.actions:
            decl = self.actions[action_type]
            return decl.doc or action_type.replace("-", " ")
        return action_type.replace("-", " ")

    def chance_outcomes(self, g: Game, action: Mapping[str, Any]) -> list[ChanceOutcome] | None:
        """The exact outcome distribution of the chance event ``action`` leads to (None: none
        described): by default the current step's ``chance`` handler for the action's type
        (:meth:`grognard.core.sequence.Step.chance_outcomes`)."""
        cur = g.current()
        if cur is None:
            return None
        step, f = cur
        out: list[ChanceOutcome] | None = step.chance_outcomes(g, f, dict(action))
        return out

    # ------------------------------------------------------------------ optional front-end hooks
    def reachable(self, g: Game, piece_ids: list[str]) -> dict[str, Any] | None:
        """Hexes the given pieces may move to now, ``{hex label: cost}`` (None: not offered).

        Front ends use it to show reachable hexes; the default derives nothing.
        """
        return None

    def preview(self, g: Game, action: Mapping[str, Any]) -> str | dict[str, Any] | None:
        """What committing ``action`` would mean (odds, result distribution) before it is made."""
        return None

    def terrain_styles(self) -> dict[str, dict[str, str]]:
        """Colours/patterns per terrain type for map drawing (``{"forest": {"fill":
        "#2e6b30"}}``)."""
        return {}

    def render_text(
        self,
        g: Game,
        side: str | None,
        marks: Mapping[str, str] | None = None,
        width: int | None = None,
    ) -> str:
        """A text rendering of the board for the terminal (see :mod:`grognard.textmap`):
        ``marks`` (hex label -> one character) mark some hexes and draw only the part of the map
        around them; ``width`` is the terminal's width, which a renderer may use."""
        return render_board(g, side, marks=marks, width=width)
