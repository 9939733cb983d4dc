"""Movement reach: the fast batched search against the reference, for every ZOC policy."""

from __future__ import annotations

import itertools
import math
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from search_helpers import RandomMap, random_map

import grognard.search.reach as reach_mod
from grognard.board import BoardBuilder
from grognard.hexgrid import SheetGeometry
from grognard.search.grid import rect_neighbors
from grognard.search.reach import (
    ZocPolicy,
    reach_generic,
    reach_many,
    reach_one,
    reach_reference,
)

POLICIES = [
    ZocPolicy(soe, rigid, start, sal, mm)
    for soe, rigid, start, sal, mm in itertools.product(
        [True, False], [False, True], ["normal", "exempt", "locked"], [False, True], [False, True]
    )
]
ALLOWANCES = [0.0, 1.0, 2.5, 4.0, 7.0]


def check_path(
    m: RandomMap, policy: ZocPolicy, path: list[int], allowance: float, cost: float
) -> None:
    """Replay ``path`` under the written rules (independently of the library)."""
    total = 0.0
    left = False
    stopped = False
    for k, (u, v) in enumerate(itertools.pairwise(path)):
        first = k == 0
        assert not stopped, "moved on after the move had to end"
        assert v in m.nbr[u].tolist(), "not adjacent"
        d = m.nbr[u].tolist().index(v)
        assert not m.blocked[v]
        assert math.isfinite(m.step_cost[u, d])
        if first and m.zoc[u]:
            assert policy.start != "locked"
        counts = bool(m.zoc[u]) and not (first and policy.start == "exempt")
        if policy.rigid:
            assert not (counts and m.zoc[v]), "rigid ZOC: ZOC to ZOC"
        total += m.step_cost[u, d] + (m.exit_cost[u] if counts else 0.0)
        left = left or counts
        stopped = bool(m.zoc[v]) and (policy.stop_on_entry or (policy.stop_after_leaving and left))
    assert total == cost
    if total > allowance:
        assert policy.minimum_move and len(path) == 2 and allowance > 0


def compare(m: RandomMap, policy: ZocPolicy, starts: np.ndarray, allowances: np.ndarray) -> None:
    batch = reach_many(
        m.nbr,
        m.step_cost,
        starts,
        allowances,
        zoc=m.zoc,
        blocked=m.blocked,
        exit_cost=m.exit_cost,
        policy=policy,
    )
    assert not batch.fallback_units  # the fast path did the work
    for i, (s, a) in enumerate(zip(starts.tolist(), allowances.tolist())):
        ref = reach_reference(
            m.nbr,
            m.step_cost,
            s,
            a,
            zoc=m.zoc,
            blocked=m.blocked,
            exit_cost=m.exit_cost,
            policy=policy,
        )
        got = batch.costs(i)
        assert got == ref.cost, (policy, i)
        for h, c in got.items():
            check_path(m, policy, batch.path(i, h), a, c)
            check_path(m, policy, ref.path(h), a, c)


@pytest.mark.parametrize("policy", POLICIES, ids=repr)
def test_fast_matches_reference_every_policy(policy: ZocPolicy) -> None:
    rng = np.random.default_rng(zlib.crc32(repr(policy).encode()))
    for _ in range(2):
        cols, rows = rng.integers(3, 12, size=2)
        m = random_map(rng, int(cols), int(rows))
        starts = rng.integers(0, m.n, size=5)
        compare(m, policy, starts, rng.permutation(np.array(ALLOWANCES)))


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(0, len(POLICIES) - 1))
def test_fast_matches_reference_hypothesis(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    m = random_map(rng, int(rng.integers(2, 10)), int(rng.integers(2, 10)), holes=0.15)
    starts = rng.integers(0, m.n, size=4)
    compare(m, POLICIES[k], starts, rng.choice([0.5, 3.0, 5.5, 9.0], size=4))


# ------------------------------------------------------------------------- readable cases on a line


def line(k: int = 7) -> np.ndarray:
    nbr = rect_neighbors(k, 1)
    for i in range(k - 1):
        assert i + 1 in nbr[i].tolist()
    return nbr


def costs(nbr: np.ndarray, start: int, allowance: float, **kw: object) -> dict[int, float]:
    cost = kw.pop("step_cost", None)
    if cost is None:
        cost = np.where(nbr >= 0, 1.0, np.inf)
    return reach_one(nbr, cost, start, allowance, **kw).cost  # type: ignore[arg-type]


def mask(n: int, *hexes: int) -> np.ndarray:
    out = np.zeros(n, dtype=bool)
    out[list(hexes)] = True
    return out


def test_plain_movement_and_blocked() -> None:
    nbr = line()
    assert costs(nbr, 0, 3) == {0: 0, 1: 1, 2: 2, 3: 3}
    assert costs(nbr, 0, 3, blocked=mask(7, 2)) == {0: 0, 1: 1}


def test_stop_on_entry() -> None:
    nbr = line()
    assert costs(nbr, 0, 5, zoc=mask(7, 2)) == {0: 0, 1: 1, 2: 2}
    free = ZocPolicy(stop_on_entry=False)
    assert costs(nbr, 0, 5, zoc=mask(7, 2), policy=free) == {i: i for i in range(6)}


def test_exit_cost() -> None:
    nbr = line()
    free = ZocPolicy(stop_on_entry=False)
    ex = np.full(7, 2.0)
    assert costs(nbr, 0, 4, zoc=mask(7, 2), exit_cost=ex, policy=free) == {0: 0, 1: 1, 2: 2}
    assert costs(nbr, 0, 5, zoc=mask(7, 2), exit_cost=ex, policy=free)[3] == 5
    # leaving the start hex costs too, unless the start is exempt
    assert costs(nbr, 0, 2, zoc=mask(7, 0), exit_cost=ex, policy=free) == {0: 0}
    exempt = ZocPolicy(stop_on_entry=False, start="exempt")
    assert costs(nbr, 0, 2, zoc=mask(7, 0), exit_cost=ex, policy=exempt) == {0: 0, 1: 1, 2: 2}


def test_rigid_zoc() -> None:
    nbr = line()
    rigid = ZocPolicy(stop_on_entry=False, rigid=True)
    assert costs(nbr, 0, 6, zoc=mask(7, 2, 3), policy=rigid) == {0: 0, 1: 1, 2: 2}
    # from a start in ZOC straight into ZOC
    assert costs(nbr, 0, 6, zoc=mask(7, 0, 1), policy=ZocPolicy(rigid=True)) == {0: 0}
    assert costs(nbr, 0, 6, zoc=mask(7, 0, 1), policy=ZocPolicy(rigid=True, start="exempt")) == {
        0: 0,
        1: 1,
    }


def test_start_locked() -> None:
    nbr = line()
    assert costs(nbr, 0, 6, zoc=mask(7, 0), policy=ZocPolicy(start="locked")) == {0: 0}
    assert costs(nbr, 1, 6, zoc=mask(7, 0), policy=ZocPolicy(start="locked")) == {
        1: 0,
        0: 1,
        **{i: i - 1 for i in range(2, 7)},
    }


def test_stop_after_leaving() -> None:
    nbr = line()
    pol = ZocPolicy(stop_on_entry=False, stop_after_leaving=True)
    zoc = mask(7, 0, 3)
    assert costs(nbr, 0, 6, zoc=zoc, policy=pol) == {0: 0, 1: 1, 2: 2, 3: 3}
    assert costs(nbr, 0, 6, zoc=zoc, policy=ZocPolicy(stop_on_entry=False)) == {
        i: i for i in range(7)
    }
    # a unit not starting in ZOC may pass through one ZOC hex, then stops at the next
    assert costs(nbr, 1, 6, zoc=mask(7, 3, 5), policy=pol) == {1: 0, 0: 1, 2: 1, 3: 2, 4: 3, 5: 4}


def test_minimum_move() -> None:
    nbr = line()
    cost = np.where(nbr >= 0, 5.0, np.inf)
    mm = ZocPolicy(minimum_move=True)
    assert costs(nbr, 3, 2, step_cost=cost) == {3: 0}
    assert costs(nbr, 3, 2, step_cost=cost, policy=mm) == {3: 0, 2: 5, 4: 5}
    assert costs(nbr, 3, 0, step_cost=cost, policy=mm) == {3: 0}
    assert costs(nbr, 3, 2, step_cost=cost, policy=mm, blocked=mask(7, 2)) == {3: 0, 4: 5}


# --------------------------------------------------------------------------- fallbacks and API


def test_non_lattice_neighbour_table_falls_back() -> None:
    rng = np.random.default_rng(7)
    n = 40
    nbr = rng.integers(-1, n, size=(n, 6)).astype(np.int32)
    m = RandomMap(
        nbr,
        rng.choice([1.0, 2.0], size=(n, 6)),
        rng.random(n) < 0.2,
        rng.random(n) < 0.1,
        np.zeros(n),
    )
    starts = np.arange(0, n, 3)
    batch = reach_many(m.nbr, m.step_cost, starts, 4.0, zoc=m.zoc, blocked=m.blocked)
    assert batch.fallback_units  # the lattice check caught it
    for i, s in enumerate(starts.tolist()):
        assert (
            batch.costs(i)
            == reach_reference(m.nbr, m.step_cost, s, 4.0, zoc=m.zoc, blocked=m.blocked).cost
        )


def test_zero_cost_steps_and_long_moves_use_reference() -> None:
    rng = np.random.default_rng(3)
    m = random_map(rng, 8, 8)
    cost = m.step_cost.copy()
    cost[cost == 0.5] = 0.0
    b = reach_many(m.nbr, cost, [5, 9], [3.0, 4.0], zoc=m.zoc)
    assert b.fallback_units == [0, 1]
    assert b.costs(1) == reach_reference(m.nbr, cost, 9, 4.0, zoc=m.zoc).cost
    b = reach_many(m.nbr, m.step_cost, [5, 9], [1e6, 2.0])
    assert b.fallback_units == [0]
    assert b.costs(0) == reach_reference(m.nbr, m.step_cost, 5, 1e6).cost


def test_chunks_give_the_same_result(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(11)
    m = random_map(rng, 12, 10)
    starts = rng.integers(0, m.n, size=12)
    al = rng.choice([2.0, 5.0], size=12)
    whole = reach_many(m.nbr, m.step_cost, starts, al, zoc=m.zoc, blocked=m.blocked).dicts()
    monkeypatch.setattr(reach_mod, "_CHUNK_CELLS", 100)
    parts = reach_many(m.nbr, m.step_cost, starts, al, zoc=m.zoc, blocked=m.blocked)
    assert len(parts._windows) > 2
    assert parts.dicts() == whole


def test_batch_api() -> None:
    rng = np.random.default_rng(5)
    m = random_map(rng, 9, 9, holes=0.0)
    starts = np.array([0, 40, 40, 80])
    b = reach_many(m.nbr, m.step_cost, starts, [3.0, 0.0, 4.0, 2.0], zoc=m.zoc)
    assert len(b) == 4
    u, h, c = b.flat()
    dicts = b.dicts()
    for i in range(4):
        sel = u == i
        assert dict(zip(h[sel].tolist(), c[sel].tolist())) == dicts[i] == b.unit(i).cost
        hexes, _ = b.arrays(i)
        assert hexes.tolist() == sorted(dicts[i])
        assert b.unit(i).hexes().tolist() == hexes.tolist()
        assert starts[i] in b.unit(i)
    assert dicts[1] == {40: 0.0}
    assert b.path(1, 40) == [40]
    with pytest.raises(KeyError):
        b.path(1, 41)
    with pytest.raises(IndexError):
        b.unit(4)


def test_input_validation() -> None:
    nbr = line()
    cost = np.where(nbr >= 0, 1.0, np.inf)
    with pytest.raises(ValueError):
        reach_one(nbr, cost[:3], 0, 2)
    with pytest.raises(ValueError):
        reach_one(nbr, -cost, 0, 2)
    with pytest.raises(ValueError):
        reach_one(nbr, cost, 9, 2)
    with pytest.raises(ValueError):
        reach_one(nbr, cost, 0, float("nan"))
    with pytest.raises(ValueError):
        reach_one(nbr, cost, 0, 2, exit_cost=-1.0)
    with pytest.raises(ValueError):
        ZocPolicy(start="sometimes")  # type: ignore[arg-type]
    assert len(reach_many(nbr, cost, [], 3.0)) == 0


def test_on_a_board() -> None:
    cols, rows = 8, 6
    sheet = SheetGeometry("A")
    bb = BoardBuilder()
    bb.declare_terrain(["clear"])
    bb.add_sheet(sheet, range(cols), range(rows))
    board = bb.build()
    rng = np.random.default_rng(2)
    rect = random_map(rng, cols, rows, holes=0.0)
    to_board = np.array(
        [board.index[sheet.to_axial(c, r)] for r in range(rows) for c in range(cols)]
    )
    cost = np.empty_like(rect.step_cost)
    cost[to_board] = rect.step_cost
    zoc = np.empty(board.n, bool)
    zoc[to_board] = rect.zoc
    got = reach_one(board.nbr, cost, int(to_board[17]), 5.0, zoc=zoc).cost
    want = reach_one(rect.nbr, rect.step_cost, 17, 5.0, zoc=rect.zoc).cost
    assert got == {int(to_board[h]): c for h, c in want.items()}


def test_generic_with_custom_states() -> None:
    # A road gives a bonus: a unit that has used only road so far pays half.
    graph = {"a": ["b", "c"], "b": ["a", "d"], "c": ["a", "d"], "d": ["b", "c", "e"], "e": ["d"]}
    road = {("a", "b"), ("b", "d"), ("d", "e")}

    def nbrs(state: tuple[str, bool]) -> list[tuple[str, bool]]:
        h, on_road = state
        return [(v, on_road and (h, v) in road) for v in graph[h]]

    def cost(state: tuple[str, bool], nxt: tuple[str, bool]) -> float:
        return 0.5 if nxt[1] else 1.0

    res = reach_generic(("a", True), 2.0, nbrs, cost, hex_of=lambda s: s[0])
    assert res.cost == {"a": 0.0, "b": 0.5, "c": 1.0, "d": 1.0, "e": 1.5}
    assert res.path("e") == ["a", "b", "d", "e"]
    assert res.state_path(res.best_state["e"])[-1] == ("e", True)
    stop = reach_generic(
        ("a", True), 3.0, nbrs, cost, hex_of=lambda s: s[0], can_continue=lambda s: s[0] != "b"
    )
    assert stop.cost["e"] == 3.0 and stop.path("e") == ["a", "c", "d", "e"]
    with pytest.raises(KeyError):
        res.path("z")
    with pytest.raises(ValueError):
        reach_generic("a", 2.0, lambda s: graph[s], lambda s, t: -1.0)
