"""Async play: standing orders applied by the server, notifications when a side must move."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from grognard.core.game import Game
from grognard.scenario import load_scenario
from grognard.server import standing
from tests.server.conftest import ROOT, Started, commit_postures


def put_orders(g: Started, side: str, orders: list[dict[str, Any]]) -> dict[str, Any]:
    r = g.client.put(
        f"/api/games/{g.id}/standing-orders", headers=g.h(side), json={"orders": orders}
    )
    assert r.status_code == 200, r.text
    return r.json()


def test_always_pass_on_reserve_commitment(start: Any) -> None:
    g: Started = start("ui-skirmish", seed=5)
    commit_postures(g)
    put_orders(
        g,
        "Red",
        [{"step": "reserve", "choose": {"type": "pass"}, "note": "never commit the reserve"}],
    )
    g.ok("Blue", {"type": "end-phase"})
    res = g.ok("Blue", {"type": "attack", "from": "0401", "target": "0502"})
    assert res["standing_applied"] == 1
    red_log = [e["text"] for e in g.state("Red")["log"]]
    assert "Red commits no reserve" in red_log
    blue = g.state("Blue")
    assert blue["my_turn"] and blue["step"] == "combat"
    assert any(e["type"] == "combat-result" for e in blue["log"])


def test_standing_orders_are_private_and_act_at_once_when_they_apply(start: Any) -> None:
    g: Started = start("tiny-duel", seed=2)
    res = put_orders(
        g, "Red", [{"step": "secret-choice", "choose": {"type": "commit", "value": "careful"}}]
    )
    assert res["standing_applied"] == 1
    assert g.state("Red")["acting"] == ["Blue"]
    assert g.client.get(f"/api/games/{g.id}/standing-orders", headers=g.h("Blue")).json() == {
        "side": "Blue",
        "orders": [],
    }
    assert g.state("Blue")["standing_orders"] == []
    assert g.state("Red")["standing_orders"][0]["choose"]["value"] == "careful"
    # the next turn's posture is chosen for Red too, after Blue's choice
    g.ok("Blue", {"type": "commit", "key": "posture", "value": "bold"})
    log = [e["text"] for e in g.state("Red")["log"]]
    assert any("'Red': 'careful'" in t for t in log)


def test_standing_order_matching() -> None:
    g = Game.new(load_scenario(ROOT / "tests" / "tinyrules" / "scenarios" / "duel.toml"), 1)
    orders = [
        {"step": "movement", "choose": {"type": "end-phase"}},
        {"offered": "commit", "choose": {"type": "commit", "value": "bold"}},
    ]
    assert standing.pick(g, "Blue", orders) == {
        "type": "commit",
        "side": "Blue",
        "key": "posture",
        "value": "bold",
    }
    assert standing.pick(g, "Blue", orders[:1]) is None
    assert standing.pick(g, "Blue", [{"choose": {"type": "commit", "value": "nope"}}]) is None
    g.apply({"type": "commit", "side": "Blue", "key": "posture", "value": "bold"})
    assert standing.pick(g, "Blue", orders) is None, "not Blue's decision any more"


def test_standing_order_validation() -> None:
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="must name the action 'type'"):
        standing.StandingOrder.model_validate({"choose": {"value": "x"}})
    with pytest.raises(ValidationError, match="must not name a side"):
        standing.StandingOrder.model_validate({"choose": {"type": "pass", "side": "Red"}})
    with pytest.raises(ValidationError):
        standing.StandingOrder.model_validate({"choose": {"type": "pass"}, "when": "always"})


def test_notify_cmd_runs_when_a_side_must_move(app_factory: Any, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    out = tmp_path / "notified.txt"
    script = tmp_path / "notify.py"
    script.write_text(
        "import sys\nwith open(sys.argv[1], 'a') as f:\n    f.write(' '.join(sys.argv[2:]) +"
        " '\\n')\n",
        encoding="utf-8",
    )
    app = app_factory(notify_cmd=f"{sys.executable} {script} {out}")
    with TestClient(app) as c:
        body = c.post("/api/games", json={"scenario": "tiny-duel", "seed": 1}).json()
        g = Started(c, body["game"], {s: v["token"] for s, v in body["sides"].items()}, body)
        g.ok("Blue", {"type": "commit", "key": "posture", "value": "bold"})
        g.ok(
            "Red", {"type": "commit", "key": "posture", "value": "bold"}
        )  # Blue (done choosing) must move
        g.ok("Blue", {"type": "end-phase"})  # movement -> combat: still Blue, nobody new to notify
        g.ok("Blue", {"type": "end-phase"})  # Blue's player turn ends: Red must move
        app.state.service.notify.wait()
    assert out.read_text(encoding="utf-8").splitlines() == [f"{g.id} Blue", f"{g.id} Red"]


def test_notify_cmd_runs_one_at_a_time_in_the_order_the_sides_became_due(
    app_factory: Any, tmp_path: Path
) -> None:
    """A notification still running (here Blue's, which takes half a second) holds back the next
    one, so the commands run, and report, in the order the sides had to move."""
    out = tmp_path / "notified.txt"
    script = tmp_path / "notify.py"
    script.write_text(
        "import sys, time\n"
        "game, side = sys.argv[2:]\n"
        "with open(sys.argv[1], 'a') as f:\n"
        "    f.write(f'start {side}\\n')\n"
        "if side == 'Blue':\n"
        "    time.sleep(0.5)\n"
        "with open(sys.argv[1], 'a') as f:\n"
        "    f.write(f'end {side}\\n')\n",
        encoding="utf-8",
    )
    app = app_factory(notify_cmd=f"{sys.executable} {script} {out}")
    with TestClient(app) as c:
        body = c.post("/api/games", json={"scenario": "tiny-duel", "seed": 1}).json()
        g = Started(c, body["game"], {s: v["token"] for s, v in body["sides"].items()}, body)
        g.ok("Blue", {"type": "commit", "key": "posture", "value": "bold"})
        g.ok("Red", {"type": "commit", "key": "posture", "value": "bold"})  # Blue notified
        g.ok("Blue", {"type": "end-phase"})
        g.ok("Blue", {"type": "end-phase"})  # Red notified
        app.state.service.notify.wait()
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines == ["start Blue", "end Blue", "start Red", "end Red"]
