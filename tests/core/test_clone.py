"""Game.clone: a clone and its source share no state object, and each replays exactly."""

from __future__ import annotations

import gc
import json
import random
import weakref
from fractions import Fraction

import pytest

from grognard.bench.engine_probe import choose
from grognard.core import serial
from grognard.core.errors import IllegalAction, UndoError
from grognard.core.game import Game
from grognard.core.state import Piece
from grognard.core.tracked import copy_plain
from grognard.rulesets.greatwar.units import units
from grognard.scenario import find


def _play(g: Game, n: int, rng: random.Random) -> None:
    for _ in range(n):
        if g.is_over():
            return
        side = rng.choice(g.acting_sides())
        g.apply(choose(g.legal_actions(side), rng))


def _objects(g: Game) -> set[int]:
    """The ids of every mutable object of a game's state a write could go through."""
    st = g.state
    out = {id(st.pieces), id(st._at), id(st.log), id(st._revs)}
    for p in st.pieces.values():
        out |= {id(p), id(p.status), id(p.attrs)}
        out |= {id(v) for v in p.attrs.values() if isinstance(v, dict | list | set)}
    for part in (st.control, st.markers, st.vars, st.tracks, st.turn, st.secrets, st.frames):
        out.add(id(part))
    for f in st.frames:
        out.add(id(f))
        out.add(id(f.params))
    out |= {id(v) for v in st._at.values()}
    out |= {id(v) for v in st.markers.values()}
    out |= {id(v) for v in st.vars.values()}
    return out


def _replays(g: Game) -> None:
    saved = json.loads(json.dumps(g.save()))
    assert Game.load(saved).state_hash() == g.state_hash()
    fresh = Game.load(saved, verify=True)
    assert fresh.state_hash() == g.state_hash()
    assert fresh.state.to_json(with_log=True) == g.state.to_json(with_log=True)


@pytest.mark.parametrize("scenario", ["lgg-west-1914"])
def test_a_clone_and_its_source_play_apart_and_both_replay(scenario: str) -> None:
    g = Game.new(find(scenario), seed=3)
    _play(g, 25, random.Random(1))
    c = g.clone()
    assert c.state_hash() == g.state_hash()
    assert not _objects(g) & _objects(c)
    before = g.state.to_json(with_log=True)
    _play(c, 25, random.Random(2))
    assert g.state.to_json(with_log=True) == before  # nothing the clone wrote is seen here
    after_clone = c.state.to_json(with_log=True)
    _play(g, 25, random.Random(3))
    assert c.state.to_json(with_log=True) == after_clone  # nor the other way round
    assert g.state_hash() != c.state_hash()
    _replays(g)
    _replays(c)


def test_writes_to_a_copied_piece_are_its_own_and_are_seen() -> None:
    g = Game.new(find("lgg-west-1914"), seed=1)
    c = g.clone()
    pid = next(iter(g.state.pieces))
    p, q = g.state.pieces[pid], c.state.pieces[pid]
    assert p is not q and p.to_json() == q.to_json()
    h, rev = c.state_hash(), c.state.revision
    q.status.add("x-test")
    q.attrs["x-test"] = 1
    assert q.has("x-test") and not p.has("x-test") and "x-test" not in p.attrs
    assert c.state.revision > rev and c.state_hash() != h
    assert g.state_hash() != c.state_hash()
    r = q.copy()
    assert isinstance(r, Piece) and r._state is None and r.to_json() == q.to_json()
    r.status.discard("x-test")
    assert q.has("x-test")
    with pytest.raises(AttributeError):
        _ = q.no_such_field  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        q.no_such_field = 1  # type: ignore[attr-defined]


def test_piece_faces_are_converted_once_and_follow_a_new_faces_value() -> None:
    p = Piece("x", "corps", "Blue", faces={"full": {"attack": Fraction(7, 2)}})
    first = p.to_json()["faces"]
    assert first == serial.to_jsonable({"full": {"attack": Fraction(7, 2)}})
    assert p.to_json()["faces"] is first  # converted once
    assert p.copy().to_json()["faces"] is first  # and shared by copies
    p.faces = {"full": {"attack": 4}}
    assert p.to_json()["faces"] == {"full": {"attack": 4}}
    assert Piece.from_json(p.to_json()) == p


def test_converted_faces_pass_through_json_conversion_and_still_copy_plainly() -> None:
    """The faces' JSON is marked as already converted: conversions hand it on as it is, and a
    plain deep copy of a piece's JSON still gives plain, independent containers."""
    p = Piece("x", "corps", "Blue", faces={"full": {"attack": 3}})
    faces = p.to_json()["faces"]
    assert type(faces) is serial.FrozenJSON
    assert serial.to_jsonable({"f": faces})["f"] is faces
    copied = copy_plain(p.to_json())
    assert copied["faces"] == {"full": {"attack": 3}} and type(copied["faces"]) is dict
    assert json.loads(json.dumps(p.to_json()))["faces"] == {"full": {"attack": 3}}


def test_a_greatwar_clone_indexes_its_own_pieces() -> None:
    """The greatwar index of pieces by hex lives in the game's local cache: a clone builds its
    own, whose pieces are the clone's, never the source's."""
    g = Game.new(find("gw-tutorial"), 1)
    here = next(h for h in range(g.board.n) if units.pieces_in_hex(g, h))
    c = g.clone()
    mine = units.pieces_in_hex(c, here)
    assert mine and all(p is c.state.pieces[p.id] for p in mine)
    assert all(p is g.state.pieces[p.id] for p in units.pieces_in_hex(g, here))


def test_a_dropped_clone_is_freed_at_once_without_the_cyclic_collector() -> None:
    """A state holds its pieces, frames and containers, and they hold it only weakly: a clone
    dropped by search (after playing on) leaves no reference cycle for the collector."""
    g = Game.new(find("gw-tutorial"), seed=2)
    _play(g, 10, random.Random(4))
    was = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        c = g.clone()
        _play(c, 10, random.Random(5))
        state = weakref.ref(c.state)
        piece = weakref.ref(next(iter(c.state.pieces.values())))
        del c
        assert state() is None and piece() is None
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


def test_pieces_and_frames_report_to_their_state_and_detached_ones_to_none() -> None:
    g = Game.new(find("gw-tutorial"), seed=1)
    st = g.state
    p = next(iter(st.pieces.values()))
    assert p.state_of() is st
    rev = st.revision
    p.attrs["x-test"] = 1
    p.status.add("x-test")
    p.attrs = {"y": 2}  # a new container reports too
    p.attrs["z"] = 3
    assert st.revision >= rev + 4 and st.rev_of(("piece", p.id)) == st.revision
    removed = st.remove_piece(p.id)
    assert removed.state_of() is None
    rev = st.revision
    removed.attrs["w"] = 1
    removed.status.add("w")
    assert st.revision == rev  # a detached piece reports to no state
    st.add_piece(removed)
    assert removed.state_of() is st
    removed.attrs["v"] = 1
    assert st.rev_of(("piece", removed.id)) == st.revision
    f = st.frames[-1]
    rev = st.revision
    f.params["x-test"] = True
    f.done = f.done
    assert st.rev_of(("frames",)) > rev


def test_a_piece_changing_sides_changes_both_sides() -> None:
    g = Game.new(find("gw-tutorial"), seed=1)
    st = g.state
    p = next(iter(st.pieces.values()))
    old = p.side
    new = next(s for s in st.sides if s != old)
    before = st.revision
    p.side = new
    assert st.rev_of(("side", old)) > before and st.rev_of(("side", new)) > before


def test_a_search_copy_plays_as_a_clone_but_keeps_nothing_to_undo() -> None:
    """``clone(undo=False)``: the same play as a clone (same states, same replay), without the
    state copy a game keeps at every barrier for undo; so it cannot undo, its clones are search
    copies too, and an action refused half-way leaves it refusing every later action."""
    g = Game.new(find("gw-tutorial"), seed=2)
    _play(g, 10, random.Random(4))
    plain, search = g.clone(), g.clone(undo=False)
    _play(plain, 150, random.Random(5))
    _play(search, 150, random.Random(5))
    assert search.state_hash() == plain.state_hash()
    assert search.actions == plain.actions and search.chain == plain.chain
    assert any(search.barriers) and search._snap is None  # no copy was kept at the barriers
    assert not search.can_undo()
    with pytest.raises(UndoError):
        search.undo()
    _replays(search)  # its save loads (and may not undo either)
    assert Game.load(json.loads(json.dumps(search.save()))).can_undo() is False
    deeper = search.clone()
    assert deeper._keeps_undo is False and deeper.state_hash() == search.state_hash()

    # an action refused half-way through its application
    side = search.acting_sides()[0]
    action = choose(search.legal_actions(side), random.Random(6))

    def refusing(g: Game) -> None:
        """Make ``g``'s next automatic run of the sequence refuse, once (after the step applied
        the action: the state is half-changed)."""
        real = g._advance

        def refuse() -> None:
            g._advance = real  # type: ignore[method-assign]
            raise IllegalAction("test", "refused after the check")

        g._advance = refuse  # type: ignore[method-assign]

    refusing(search)
    with pytest.raises(IllegalAction):
        search.apply(action)
    with pytest.raises(IllegalAction) as ei:
        search.check(action)
    assert ei.value.rule == "core:search-copy"
    # a game that keeps its snapshots is restored instead, and plays on
    before = plain.state_hash()
    refusing(plain)
    side = plain.acting_sides()[0]
    with pytest.raises(IllegalAction):
        plain.apply(choose(plain.legal_actions(side), random.Random(6)))
    assert plain.state_hash() == before and plain.is_legal(plain.legal_actions(side)[0])
