"""Lone UTF-16 surrogates (``"\\ud800"`` in JSON) are not text: an action holding one anywhere
is refused with a 4xx naming where, stores nothing, and no answer fails to encode."""

from __future__ import annotations

import json
from typing import Any

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.game import Game
from grognard.scenario import load_scenario
from grognard.server.app import SafeJSONResponse
from tests.server.conftest import ROOT, Started

RAW_ACTIONS = [
    ('{"type": "commit", "key": "posture", "value": "\\ud800"}', "action.value"),
    ('{"type": "commit", "key": "posture", "value": "bold", "x": "\\udfff"}', "action.x"),
    (
        '{"type": "commit", "key": "posture", "value": "bold", "x": ["a", {"b": "\\ud83d"}]}',
        "action.x[1].b",
    ),
    ('{"type": "commit", "key": "posture", "value": "bold", "\\ud800": 1}', "action"),
]


@pytest.mark.parametrize(("raw", "where"), RAW_ACTIONS)
def test_a_lone_surrogate_in_an_action_is_a_422_naming_the_field(
    start: Any, raw: str, where: str
) -> None:
    g: Started = start("tiny-duel", seed=1)
    for path in ("actions", "preview"):
        r = g.client.post(
            f"/api/games/{g.id}/{path}",
            headers={**g.h("Blue"), "Content-Type": "application/json"},
            content=('{"action": ' + raw + "}").encode(),
        )
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["error"] == "bad-request" and "lone UTF-16 surrogate" in body["message"]
        assert where in body["message"]
    assert g.state("Blue")["seq"] == 0
    assert g.client.app.state.service.store.actions(g.id) == []


def test_the_engine_refuses_a_lone_surrogate_in_any_field() -> None:
    g = Game.new(load_scenario(ROOT / "tests" / "tinyrules" / "scenarios" / "duel.toml"), 1)
    for raw, where in RAW_ACTIONS:
        action = json.loads(raw)
        action["side"] = "Blue"
        with pytest.raises(IllegalAction, match="lone UTF-16 surrogate") as e:
            g.apply(action)
        assert e.value.rule == "core:action"
        assert where.removeprefix("action").lstrip(".") in e.value.message
    assert g.actions == []


def test_an_answer_holding_a_lone_surrogate_still_encodes() -> None:
    body = SafeJSONResponse({"message": "bad \ud800 text", "name": "Liège"}).body
    assert json.loads(body) == {"message": "bad \ud800 text", "name": "Liège"}
    assert SafeJSONResponse({"name": "Liège"}).body == '{"name":"Liège"}'.encode()


def test_answers_encode_as_the_standard_library_would_read_them() -> None:
    """Answers are encoded by msgspec (compact, fast); what a client reads back is what the
    standard encoder gives, and types msgspec refuses take the standard path."""
    content = {"n": 1, "x": [1.5, None, True], "name": "Liège", "nested": {"k": ["a", {}]}}
    body = SafeJSONResponse(content).body
    assert json.loads(body) == json.loads(json.dumps(content))
    assert b" " not in body
