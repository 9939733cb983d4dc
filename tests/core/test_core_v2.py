"""The core's facilities for rule systems: declared actions, handlers and families, procedures,
typed records, the cache, clones, chance outcomes, the incremental hash and snapshot saves."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

import pytest

from grognard.core import hashing
from grognard.core.actions import ActionCatalog, ActionType, Field
from grognard.core.cache import Cache
from grognard.core.errors import IllegalAction, ReplayMismatch, SaveError
from grognard.core.game import Game
from grognard.core.procedure import Procedure, stage
from grognard.core.record import DICT, LATER_DICT, LATER_LIST, LIST, Record, later
from grognard.core.sequence import Step, handles
from grognard.core.state import Frame, GameState, Loc, Piece
from grognard.scenario import load_scenario


@pytest.fixture
def game(tiny_path: Path) -> Game:
    g = Game.new(load_scenario(tiny_path), seed=7)
    for side in ("Blue", "Red"):
        g.apply({"type": "commit", "side": side, "key": "posture", "value": "bold"})
    return g


# ====================================================================== declared actions
CAT = ActionCatalog(
    [
        ActionType("move", fields=(Field.piece("piece"), Field.hex("to")), label="Move {piece}"),
        ActionType("pick", fields=(Field.str("what", choices=("a", "b")),), label="Pick {what}"),
        ActionType("many", fields=(Field.pieces("units"), Field.int("n", required=False))),
    ]
)


def test_declared_action_validation_names_the_field() -> None:
    ok = CAT.validate({"type": "move", "side": "A", "piece": "p", "to": "0101"})
    assert ok == {"type": "move", "side": "A", "piece": "p", "to": "0101"}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"type": "move", "side": "A", "piece": "p", "to": "0101", "x": 1}, "unknown field 'x'"),
        ({"type": "move", "side": "A", "piece": "p"}, "'to'"),
        ({"type": "move", "side": "A", "piece": 3, "to": "0101"}, "'piece'"),
        ({"type": "move", "side": "A", "piece": "p" * 500, "to": "0101"}, "longer than"),
        ({"type": "move", "side": "A", "piece": "p\ud800", "to": "0101"}, "surrogate"),
        ({"type": "pick", "side": "A", "what": "c"}, "not one of"),
        ({"type": "many", "side": "A", "units": "p"}, "a list is needed"),
        ({"type": "many", "side": "A", "units": ["p"], "n": True}, "an integer"),
        ({"type": "nope", "side": "A"}, "unknown action type"),
        ({"side": "A"}, "'type'"),
        ({"type": "move"}, "'side'"),
    ]
    for action, words in cases:
        with pytest.raises(IllegalAction, match=words):
            CAT.validate(action)


def test_a_hidden_piece_is_refused_exactly_like_a_missing_one() -> None:
    visible = {"mine"}
    answers = []
    for pid in ("hidden-enemy", "no-such-piece"):
        with pytest.raises(IllegalAction) as e:
            CAT.validate(
                {"type": "move", "side": "A", "piece": pid, "to": "0101"}, lambda p: p in visible
            )
        answers.append((e.value.rule, e.value.message.replace(pid, "X")))
    assert answers[0] == answers[1]


def test_labels_come_from_the_declaration() -> None:
    a = {"type": "move", "side": "A", "piece": "p1", "to": "0101"}
    assert CAT.label(a, lambda kind, v: f"<{v}>" if kind == "piece" else str(v)) == "Move <p1>"


def test_undeclared_fields_are_refused_by_the_game_and_nothing_changes(game: Game) -> None:
    before = game.state_hash()
    with pytest.raises(IllegalAction, match="unknown field 'note'"):
        game.apply({"type": "end-phase", "side": "Blue", "note": "x" * 10})
    assert game.state_hash() == before and not any("note" in a for a in game.actions)


# ====================================================================== handlers and families
def test_families_are_grouped_and_flatten_to_the_legal_actions(game: Game) -> None:
    fams = game.families("Blue")
    assert [f.type for f in fams] == ["move", "end-phase"]
    moves = fams[0]
    assert moves.actors() == ["b1", "b2", "b-scout"] or set(moves.actors()) >= {"b1"}
    flat = [a for f in fams for a in f.all()]
    assert flat == game.legal_actions("Blue")
    for a in moves.options("b1"):
        assert a["piece"] == "b1"


def test_check_decides_one_action_without_changing_anything(game: Game) -> None:
    legal = game.legal_actions("Blue")
    before = game.state_hash()
    assert all(game.is_legal(a) for a in legal)
    assert not game.is_legal({"type": "move", "side": "Blue", "piece": "b1", "to": "0606"})
    assert not game.is_legal({"type": "move", "side": "Red", "piece": "r1", "to": "0101"})
    with pytest.raises(IllegalAction) as e:
        game.check({"type": "move", "side": "Blue", "piece": "b1", "to": "0606"})
    assert e.value.rule == "T 3"
    assert game.state_hash() == before


# ====================================================================== procedures
class _Proc(Procedure):
    name = "proc"
    log: ClassVar[list[str]] = []

    @stage
    def one(self, g: Any, f: Frame) -> Any:
        self.log.append("one")
        if f.params.get("skip"):
            return self.goto(f, "three")
        return None

    @stage
    def two(self, g: Any, f: Frame) -> Any:
        self.log.append("two")
        f.params["n"] = f.params.get("n", 0) + 1
        if f.params["n"] < 3:
            return self.again(f)
        return None

    @stage
    def three(self, g: Any, f: Frame) -> None:
        self.log.append("three")


class _Proc2(_Proc):
    name = "proc2"

    @stage(after="one")
    def between(self, g: Any, f: Frame) -> None:
        self.log.append("between")

    def three(self, g: Any, f: Frame) -> None:
        self.log.append("THREE")


class _FakeGame:
    def __init__(self) -> None:
        self.state = GameState()

    def finish(self, f: Frame) -> None:
        f.done = True


def test_procedure_stages_run_in_declared_order_with_jumps_and_repeats() -> None:
    assert _Proc.stages == ("one", "two", "three")
    assert _Proc2.stages == ("one", "between", "two", "three")
    g = _FakeGame()
    f = Frame("proc")
    g.state.frames.append(f)
    _Proc.log = []
    _Proc().run(g, f)  # type: ignore[arg-type]
    assert _Proc.log == ["one", "two", "two", "two", "three"] and f.done
    f2 = Frame("proc2", {"skip": True})
    g.state.frames.append(f2)
    _Proc.log = []
    _Proc2().run(g, f2)  # type: ignore[arg-type]
    assert _Proc.log == ["one", "THREE"] and f2.done


class _KeptElsewhere(_Proc):
    """A procedure whose stage lives in the game's own record, not in its frame."""

    name = "kept"

    def stage_in(self, g: Any, f: Frame) -> str | None:
        s = g.state.vars.get("phase", "one")
        return None if s == "over" else str(s)

    def put_stage(self, g: Any, f: Frame, name: str | None) -> None:
        g.state.vars["phase"] = "over" if name is None else name


def test_procedure_may_keep_its_stage_in_the_rule_systems_record() -> None:
    g = _FakeGame()
    f = Frame("kept")
    g.state.frames.append(f)
    _Proc.log = []
    g.state.vars["phase"] = "two"
    _KeptElsewhere().run(g, f)  # type: ignore[arg-type]
    assert _Proc.log == ["two", "two", "two", "three"] and f.done
    assert "stage" not in f.params and g.state.vars["phase"] == "over"


# ====================================================================== records
class _Unit(Record):
    """A test record."""

    spent: Fraction = Fraction(0)
    moved: bool = False
    path: list[int] = LIST


class _Top(Record):
    units: dict[str, _Unit] = DICT
    phase: str = ""


def test_records_are_typed_views_of_the_state() -> None:
    st = GameState()
    top = _Top.at(st.vars, "test")
    u = _Unit.at(st.vars["test"], "units", "p1")
    u.spent += Fraction(3, 2)
    u.path.append(4)
    u.moved = True
    assert st.vars["test"]["units"]["p1"] == {"spent": Fraction(3, 2), "moved": True, "path": [4]}
    assert top.units["p1"].spent == Fraction(3, 2)
    with pytest.raises(AttributeError):
        u.bogus = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        _Unit.new(bogus=1)


class _Late(Record):
    """A test record with fields absent until written."""

    n: int = 0
    cap: int | None = later()
    losers: list[str] = LATER_LIST
    seen: dict[str, int] = LATER_DICT
    units: dict[str, _Unit] = LATER_DICT


def test_later_fields_stay_absent_until_written() -> None:
    data = _Late.new()
    assert data == {"n": 0}
    rec = _Late(data)
    assert rec.cap is None and rec.losers == () and rec.seen == {} and rec.units == {}
    assert data == {"n": 0} and not rec.has("losers")
    with pytest.raises(TypeError):
        rec.seen["x"] = 1  # type: ignore[index]  # the absent value is read-only
    rec.ensure("losers").append("A")
    rec.ensure("seen")["x"] = 1
    assert rec.ensure("losers") is data["losers"]
    rec.cap = 3
    assert data == {"n": 0, "losers": ["A"], "seen": {"x": 1}, "cap": 3} and rec.has("cap")
    assert _Late.init({}).raw() == {"n": 0}
    with pytest.raises(TypeError):
        rec.ensure("n")


# ====================================================================== the state sees changes
def test_every_change_is_seen_even_deep_inside_records() -> None:
    st = GameState()
    st.vars["rs"] = {"battle": {"round": 1}}
    st.sync()
    held = st.vars["rs"]["battle"]  # a reference kept by a caller stays the state's own object
    r0 = st.revision
    held["round"] = 2
    assert st.vars["rs"]["battle"]["round"] == 2
    assert st.sync() >= 1 and st.rev_of(("var", "rs", "battle")) > r0
    assert st.rev_of(("var", "rs")) > r0
    p = st.add_piece(Piece("p", "inf", "A", loc=Loc.hex(3)))
    r1 = st.revision
    p.attrs["hits"] = 1
    assert st.revision > r1 and st.rev_of(("piece", "p")) > r1 and st.rev_of(("hex", 3)) > r1
    p.loc = Loc.hex(4)
    assert [q.id for q in st.at_hex(4)] == ["p"] and st.at_hex(3) == []


def test_cache_kinds(game: Game) -> None:
    st = game.state
    calls: list[str] = []

    def compute(tag: str) -> str:
        calls.append(tag)
        return tag

    assert game.cache.position(st, "k", lambda: compute("pos")) == "pos"
    assert game.cache.position(st, "k", lambda: compute("pos")) == "pos"
    b1 = st.pieces["b1"]
    deps = [("piece", "b1")]
    game.cache.tracked(st, "t", deps, lambda: compute("tr"))
    st.pieces["r1"].attrs["x"] = 1  # another piece: the tracked value holds, the position's not
    game.cache.tracked(st, "t", deps, lambda: compute("tr"))
    game.cache.position(st, "k", lambda: compute("pos"))
    assert calls == ["pos", "tr", "pos"]
    b1.attrs["x"] = 1
    game.cache.tracked(st, "t", deps, lambda: compute("tr"))
    assert calls[-1] == "tr" and calls.count("tr") == 2
    clone = game.clone()
    game.cache.keyed("name", ("a", 1), lambda: compute("keyed"))
    clone.cache.keyed("name", ("a", 1), lambda: compute("keyed"))
    assert calls.count("keyed") == 1


def test_cache_held_values_last_their_scope_and_are_shared_with_clones(game: Game) -> None:
    """core: Cache.held keeps a value while its scope is the same, whatever changes in the
    position; a new scope forgets the table; clones share it unless their world was redrawn
    (Cache.new_world); an undo or a replaced state (reset) forgets it."""
    calls: list[str] = []

    def compute(tag: str) -> str:
        calls.append(tag)
        return tag

    assert game.cache.held("t", "phase-1", "k", lambda: compute("a")) == "a"
    game.state.pieces["b1"].attrs["x"] = 5  # the position changes: the held value stays
    assert game.cache.held("t", "phase-1", "k", lambda: compute("b")) == "a"
    clone = game.clone()
    assert clone.cache.held("t", "phase-1", "k", lambda: compute("c")) == "a"
    assert calls == ["a"]
    redrawn = game.clone()
    redrawn.cache.new_world()  # values read from another world must not reach it
    assert redrawn.cache.held("t", "phase-1", "k", lambda: compute("d")) == "d"
    assert game.cache.held("t", "phase-1", "k", lambda: compute("e")) == "a"
    assert game.cache.held("t", "phase-2", "k", lambda: compute("f")) == "f"
    assert game.cache.held("t", "phase-1", "k", lambda: compute("g")) == "g"  # forgotten
    game.cache.reset()
    assert game.cache.held("t", "phase-1", "k", lambda: compute("h")) == "h"
    assert calls == ["a", "d", "f", "g", "h"]


def test_cache_local_values_stay_with_their_game_object(game: Game) -> None:
    """core: Cache.local holds values of one game object (they may hold its state's own
    pieces): a clone starts without them, and a replaced state (reset) drops them."""
    game.cache.local["probe"] = game.state.pieces["b1"]
    clone = game.clone()
    assert "probe" not in clone.cache.local
    assert game.cache.local["probe"] is game.state.pieces["b1"]
    game.cache.reset()
    assert game.cache.local == {}


def test_cache_static_values_are_kept_with_the_board(tiny_path: Path) -> None:
    """core: Cache.static keeps a value with the board (Board.derived) for every game played
    on it and their clones; a cache made afresh (everything forgotten) computes it again."""
    sc = load_scenario(tiny_path)
    calls: list[int] = []

    def compute() -> int:
        calls.append(1)
        return 17

    g1, g2 = Game.new(sc, 1), Game.new(sc, 2)
    assert g1.cache.static("probe", compute) == 17
    assert g2.cache.static("probe", compute) == 17
    assert g1.clone().cache.static("probe", compute) == 17
    assert calls == [1] and sc.board.derived["probe"] == 17
    assert Cache().static("probe", compute) == 17 and calls == [1, 1]


def test_cache_scoped_values_last_one_listing(game: Game) -> None:
    """core: Cache.scoped keeps a value for the rest of one listing (Cache.listing, nested
    listings sharing the outer one) and computes afresh outside any listing."""
    calls: list[int] = []

    def compute() -> int:
        calls.append(1)
        return len(calls)

    assert not game.cache.in_listing
    assert game.cache.scoped("k", compute) == 1
    assert game.cache.scoped("k", compute) == 2  # no listing: never kept
    with game.cache.listing():
        assert game.cache.in_listing
        assert game.cache.scoped("k", compute) == 3
        game.state.pieces["b1"].attrs["x"] = 1
        with game.cache.listing():
            assert game.cache.scoped("k", compute) == 3
    assert not game.cache.in_listing
    with game.cache.listing():
        assert game.cache.scoped("k", compute) == 4


# ====================================================================== search support
def test_clone_is_independent(game: Game) -> None:
    c = game.clone()
    assert c.state_hash() == game.state_hash()
    a = game.legal_actions("Blue")[0]
    c.apply(a)
    assert c.state_hash() != game.state_hash()
    assert len(game.actions) + 1 == len(c.actions)
    game.apply(a)
    assert c.state_hash() == game.state_hash()


def test_chance_outcomes_are_exact_and_reachable(tiny_path: Path) -> None:
    g = Game.new(load_scenario(tiny_path), seed=3)
    for side in ("Blue", "Red"):
        g.apply({"type": "commit", "side": side, "key": "posture", "value": "bold"})
    g.state.move("b1", Loc.hex(g.board.idx("0402")))  # next to r1 in 0502
    g.apply({"type": "end-phase", "side": "Blue"})
    attacks = [a for a in g.legal_actions("Blue") if a["type"] == "attack"]
    assert attacks == [{"type": "attack", "side": "Blue", "from": "0402", "target": "0502"}]
    outs = g.chance_outcomes(attacks[0])
    assert outs is not None and sum(o.probability for o in outs) == 1
    for o in outs:
        c = g.clone()
        c.force_dice(o.naturals)
        while c.acting_sides() and c.acting_sides()[0] != "Blue":
            c.apply(c.legal_actions(c.acting_sides()[0])[0])
        c.apply(attacks[0])
        c.apply({"type": "pass", "side": "Red"})  # no reserve: the outcome as foreseen
        results = [e for e in c.state.log if e["type"] == "combat-result"]
        assert results and results[-1]["data"]["result"] == o.label


def test_state_hash_covers_options_and_scenario(tiny_path: Path) -> None:
    sc = load_scenario(tiny_path)
    a = Game.new(sc, seed=1)
    b = Game.new(sc, seed=1, options={"fast": True})
    assert a.state.to_json(with_log=False) == b.state.to_json(with_log=False)
    assert a.state_hash() != b.state_hash()


# ====================================================================== saves
def test_saves_load_from_their_snapshot_and_refuse_edits(game: Game) -> None:
    for _ in range(5):
        side = game.acting_sides()[0]
        game.apply(game.legal_actions(side)[0])
    save = json.loads(json.dumps(game.save()))
    g2 = Game.load(save)
    assert g2.state_hash() == game.state_hash() and g2.actions == game.actions
    assert g2.state.log == json.loads(json.dumps(game.state.log))
    Game.load(save, verify=True)
    edited = json.loads(json.dumps(save))
    edited["actions"][0]["value"] = "careful"
    with pytest.raises(SaveError, match="hash chain"):
        Game.load(edited)
    edited = json.loads(json.dumps(save))
    edited["snapshot"]["state"]["dice_counter"] += 1
    with pytest.raises(SaveError, match="digest"):
        Game.load(edited)
    for key in ("state_hash", "checkpoints"):
        missing = {k: v for k, v in save.items() if k != key}
        with pytest.raises(SaveError, match=key):
            Game.load(missing)


def test_undo_works_after_loading_a_snapshot(game: Game) -> None:
    side = game.acting_sides()[0]
    moves = [a for a in game.legal_actions(side) if a["type"] == "move"]
    game.apply(moves[0])
    assert game.can_undo()
    g2 = Game.load(json.loads(json.dumps(game.save())))
    assert g2.can_undo()
    g2.undo()
    game.undo()
    assert g2.state_hash() == game.state_hash()


def test_verify_replays_the_log_and_refuses_a_forged_snapshot(game: Game) -> None:
    """A snapshot rewritten with a consistent digest loads from the snapshot, but ``verify``
    replays the log and finds that it does not lead there."""
    for _ in range(3):
        game.apply(game.legal_actions(game.acting_sides()[0])[0])
    save = json.loads(json.dumps(game.save()))
    forged = json.loads(json.dumps(save))
    state = forged["snapshot"]["state"]
    piece = next(p for p in state["pieces"] if p["id"] == "b1")
    piece["face"] = "reduced"
    fake = GameState.from_json(state)
    probe = game.clone()
    probe.state = fake
    forged["state_hash"] = probe.state_hash()
    forged["snapshot"]["digest"] = hashing.snapshot_digest(
        forged["chain"], forged["state_hash"], forged["snapshot"]
    )
    assert Game.load(forged).state.pieces["b1"].face == "reduced"  # the snapshot is trusted
    with pytest.raises(ReplayMismatch):
        Game.load(forged, verify=True)


def test_cli_verify_flag(tiny_path: Path, tmp_path: Path, cli_env: dict[str, str]) -> None:
    save = tmp_path / "g.json"
    run = [sys.executable, "-m", "grognard.cli"]
    r = subprocess.run(
        [*run, "new", str(tiny_path), "-o", str(save)], env=cli_env, capture_output=True
    )
    assert r.returncode == 0, r.stderr
    r = subprocess.run([*run, "show", str(save), "--verify"], env=cli_env, capture_output=True)
    assert r.returncode == 0, r.stderr


def test_handler_decorators_are_not_shadowed_by_step_methods() -> None:
    """A step that defines its own ``actors``/``check`` before its handlers keeps them apart."""

    class Odd(Step):
        def actors(self, g: Any, f: Any) -> list[str]:
            return ["A"]

        def check(self, g: Any, f: Any, action: Any) -> None:
            Step.check(self, g, f, action)

        @handles.actors("go")
        def goers(self, g: Any, f: Any, side: str) -> list[str]:
            return ["p1"]

        @handles.check("go")
        def check_go(self, g: Any, f: Any, action: Any) -> None:
            raise IllegalAction("T 9", "no")

        @handles.apply("go")
        def apply_go(self, g: Any, f: Any, action: Any) -> None:
            return None

        @handles.chance("go")
        def go_chance(self, g: Any, f: Any, action: Any) -> list[str]:
            return ["heads", "tails"]

    h = Odd.handlers["go"]
    assert h.actors is Odd.goers and h.check is Odd.check_go and h.chance is Odd.go_chance
    assert Odd().chance_outcomes(None, None, {"type": "go"}) == ["heads", "tails"]  # type: ignore[arg-type]
    assert Odd().chance_outcomes(None, None, {"type": "stop"}) is None  # type: ignore[arg-type]


def test_results_tables_are_read_once_per_process(tiny_path: Path) -> None:
    g = Game.new(load_scenario(tiny_path))
    first = g.ruleset.tables()
    again = g.ruleset.tables()
    assert first == again and first is not again  # a fresh mapping, the same table objects
    assert all(first[k] is again[k] for k in first)


def test_handlers_of_mixin_bases_are_inherited() -> None:
    """A step built from a base step and mixin steps handles the types of all of them; the first
    base wins for a type both handle, and a role it leaves empty is taken from a mixin."""

    class Base(Step):
        @handles.apply("go")
        def apply_go(self, g: Any, f: Any, action: Any) -> None:
            return None

    class Extra(Step):
        @handles.check("go")
        def check_go(self, g: Any, f: Any, action: Any) -> None:
            raise IllegalAction("T 1", "no")

        @handles.apply("dig")
        def apply_dig(self, g: Any, f: Any, action: Any) -> None:
            return None

    class Both(Base, Extra):
        pass

    assert list(Both.handlers) == ["go", "dig"]
    assert Both.handlers["go"].apply is Base.apply_go
    assert Both.handlers["go"].check is Extra.check_go
    assert Both.handlers["dig"].apply is Extra.apply_dig
    assert "dig" not in Base.handlers


def test_a_step_inherits_the_handlers_of_every_base_class() -> None:
    """Multiple inheritance: a mixin's handlers join those of the other base, the nearest base
    winning for a type both handle, and a method overridden in the subclass is the one called."""

    class Boxes(Step):
        @handles.apply("box")
        def apply_box(self, g: Any, f: Any, action: Any) -> None:
            return None

        @handles.apply("shared")
        def apply_shared(self, g: Any, f: Any, action: Any) -> None:
            return None

    class Moves(Step):
        @handles.apply("move")
        def apply_move(self, g: Any, f: Any, action: Any) -> None:
            return None

        @handles.apply("shared")
        def apply_shared_too(self, g: Any, f: Any, action: Any) -> None:
            return None

    class Both(Moves, Boxes):
        def apply_box(self, g: Any, f: Any, action: Any) -> None:
            return None

    assert list(Both.handlers) == ["move", "shared", "box"]
    assert Both.handlers["move"].apply is Moves.apply_move
    assert Both.handlers["box"].apply is Both.apply_box
    assert Both.handlers["shared"].apply is Moves.apply_shared_too


def test_a_clone_keeps_the_position_cache_of_its_source_until_it_changes(tiny_path: Path) -> None:
    """core: Game.clone keeps the position entries (Cache.clone with a retag); each copy drops
    its own at its first change and the source keeps its own."""
    g = Game.new(load_scenario(tiny_path), 1)
    calls: list[int] = []

    def compute() -> int:
        calls.append(1)
        return 41

    assert g.cached("probe", compute) == 41
    c = g.clone()
    assert c.cached("probe", compute) == 41 and len(calls) == 1
    side = c.acting_sides()[0]
    c.apply(c.legal_actions(side)[0])
    assert c.cached("probe", lambda: 7) == 7
    assert g.cached("probe", lambda: 7) == 41
