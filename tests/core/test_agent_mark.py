"""The ``agent`` mark: an action the computer chose carries it into the record and the log."""

from __future__ import annotations

from pathlib import Path

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.game import Game
from grognard.scenario import load_scenario


def test_a_marked_action_is_recorded_with_its_mark_and_marks_its_events(tiny_path: Path) -> None:
    g = Game.new(load_scenario(tiny_path), seed=7)
    plain = Game.new(load_scenario(tiny_path), seed=7)
    blue = {"type": "commit", "side": "Blue", "key": "posture", "value": "bold"}
    red = {"type": "commit", "side": "Red", "key": "posture", "value": "bold"}
    g.apply(blue)
    events = g.apply({**red, "agent": "planner:normal"})
    plain.apply(blue)
    plain.apply(red)
    # the rules never see the mark: the position is the same as without it
    assert g.state_hash() == plain.state_hash()
    assert g.actions == [blue, {**red, "agent": "planner:normal"}]
    assert events and all(ev["agent"] == "planner:normal" for ev in events)
    assert not any("agent" in ev for ev in g.state.log[: -len(events)])
    # what each side reads: the mark shows even on the text a side sees of a hidden event
    for side in ("Blue", "Red"):
        assert any(ev.get("agent") for ev in g.visible_log(side))
    # the record keeps it (its hash chain covers it), and a replay keeps it
    assert g.chain != plain.chain
    again = Game.load(g.save())
    assert again.actions == g.actions and again.state_hash() == g.state_hash()
    assert [ev.get("agent") for ev in again.state.log] == [ev.get("agent") for ev in g.state.log]


@pytest.mark.parametrize("mark", ["Planner", "", 3, "x" * 41, "planner normal"])
def test_a_malformed_mark_is_refused_and_changes_nothing(tiny_path: Path, mark: object) -> None:
    g = Game.new(load_scenario(tiny_path), seed=7)
    before = g.state_hash()
    with pytest.raises(IllegalAction, match="agent"):
        g.apply(
            {"type": "commit", "side": "Blue", "key": "posture", "value": "bold", "agent": mark}
        )
    assert g.state_hash() == before and g.actions == []
