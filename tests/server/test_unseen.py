"""A side naming a piece it may not see gets exactly the answer it gets for a piece that does not
exist, from ``/actions`` and ``/preview`` alike (no existence oracle)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.conftest import Started, commit_postures

NOPE = "zz-no-such-piece"


def answers(g: Started, side: str, make: Any, name: str) -> list[tuple[int, Any]]:
    """The answers of /actions and /preview to the action ``make(name)``, with ``name`` written
    as NAME wherever it is echoed."""
    out = []
    for path in ("actions", "preview"):
        r = g.client.post(
            f"/api/games/{g.id}/{path}", headers=g.h(side), json={"action": make(name)}
        )
        out.append((r.status_code, r.text.replace(name, "NAME")))
    return out


TINY_PROBES = [
    lambda n: {"type": "move", "piece": n, "to": "0103"},
    lambda n: {"type": "move", "piece": "b1", "to": n},
    lambda n: {"type": "attack", "from": "0102", "target": n},
    lambda n: {"type": "move", "piece": f"{n} ", "to": "0103"},
    lambda n: {"type": n},
    lambda n: {"type": "move", n: "b1"},
    lambda n: {"type": "move", "piece": [n, "b1"], "to": "0103"},
]


@pytest.mark.parametrize("probe", range(len(TINY_PROBES)))
def test_a_hidden_piece_is_answered_like_one_that_does_not_exist(start: Any, probe: int) -> None:
    g: Started = start("tiny-duel", seed=1)
    commit_postures(g)
    svc = g.client.app.state.service
    game = svc.entry(g.id).game
    assert "r-scout" in svc.hidden(game, "Blue")
    make = TINY_PROBES[probe]
    hidden = answers(g, "Blue", make, "r-scout")
    assert hidden == answers(g, "Blue", make, NOPE)
    assert all(status in (200, 400, 409) for status, _ in hidden)
    assert "a hidden piece" not in str(hidden)
    assert g.state("Blue")["seq"] == 2


def test_lgg_hidden_hq_is_answered_like_a_unit_that_does_not_exist(start: Any) -> None:
    """The German side naming the BEF's HQ, which it may not see, in the lgg1418 tutorial."""
    g: Started = start("lgg-tutorial", seed=1)
    cp = "Central Powers"
    svc = g.client.app.state.service
    assert "GB-BEF-HQ" in svc.hidden(svc.entry(g.id).game, cp)
    g.ok(cp, {"type": "end-reinforcement"})
    for make in (
        lambda n: {"type": "lift", "hq": n, "units": [n]},
        lambda n: {"type": "move", "units": [n], "to": "0505"},
        lambda n: {"type": "activate", "army": n},
    ):
        assert answers(g, cp, make, "GB-BEF-HQ") == answers(g, cp, make, "FR-NOPE")
