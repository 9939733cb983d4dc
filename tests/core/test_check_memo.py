"""Game.check remembers the actions it found legal for the position (and clones keep them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.game import Game
from grognard.scenario import find, load_scenario


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    calls: list[object] = []
    real = Game._check

    def spy(self: Game, action: object) -> object:
        calls.append(action)
        return real(self, action)

    monkeypatch.setattr(Game, "_check", spy)
    return calls


def test_a_checked_action_is_applied_on_a_clone_without_a_second_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    g = Game.new(find("gw-tutorial"), 1)
    side = g.acting_sides()[0]
    a = next(x for x in g.legal_actions(side) if x["type"] != "end-phase")
    calls = _counting(monkeypatch)
    assert g.is_legal(a)
    assert g.is_legal(dict(a))  # the same action again: remembered
    c = g.clone()
    c.apply(dict(a))
    assert len(calls) == 1
    replay = g.clone()
    replay.apply(a)
    assert replay.state_hash() == c.state_hash()


def test_the_memo_holds_for_one_position_only(tiny_path: Path) -> None:
    g = Game.new(load_scenario(tiny_path), 7)
    side = g.acting_sides()[0]
    legal = g.legal_actions(side)
    first = legal[0]
    assert g.is_legal(first)
    g.apply(first)
    # after the action the position changed: the same action is decided afresh
    again = g.is_legal(first)
    assert again == any(x == first for x in g.legal_actions(g.acting_sides()[0]))


def test_a_refused_action_is_refused_every_time_and_the_stored_action_is_a_copy() -> None:
    g = Game.new(find("gw-tutorial"), 1)
    side = g.acting_sides()[0]
    bad = {"type": "move", "side": side, "piece": "no-such-piece", "to": "0101"}
    for _ in range(2):
        with pytest.raises(IllegalAction):
            g.check(bad)
    a = g.legal_actions(side)[0]
    first = g.check(a)
    second = g.check(a)
    assert first == second and first is not second
