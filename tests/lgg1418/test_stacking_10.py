"""LGG 10: stacking."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.military import stacking

from .helpers import (
    CP,
    EN,
    act,
    army,
    artillery,
    corps,
    game,
    general,
    ghq,
    hq,
    tank,
    to_activation,
)

TERRAIN = [
    "pmddhppp",
    "pppppppp",
    "pppppppp",
    "pppppppp",
    "pppppppp",
    "pppppppp",
    "pppppppp",
    "pppppppp",
]


def _probs(g, side: str, label: str) -> list[str]:
    return [p.rule for p in stacking.hex_problems(g, side, g.board.idx(label))]


@pytest.mark.rules("LGG 10-A")
def test_lgg_10a_lgg27_six_corps_not_counting_hq_support_reserve() -> None:
    pieces = [hq("h", "DE", "0505", "DE-1"), general("gen", "DE", "h")]
    pieces += [corps(f"c{k}", "DE", "0505", army="DE-1") for k in range(6)]
    pieces += [artillery(f"a{k}", "DE", "0505", army="DE-1") for k in range(3)]
    pieces += [corps("res", "DE", {"inside": "h"}, army="DE-1", status=["reserve"])]
    g = game(pieces=pieces, rules={"armies": [army("DE-1", "DE", "h")]})
    assert _probs(g, CP, "0505") == []
    g2 = game(
        pieces=[*pieces, corps("c7", "DE", "0505", army="DE-1")],
        rules={"armies": [army("DE-1", "DE", "h")]},
    )
    assert _probs(g2, CP, "0505") == ["LGG 10-A"]


@pytest.mark.rules("LGG 10-B")
def test_lgg_10b_lgg27_special_terrain() -> None:
    pieces = [corps(f"m{k}", "DE", "0201") for k in range(5)] + [tank("t", "DE", "0201")]
    pieces += [corps(f"d{k}", "DE", "0301") for k in range(3)]
    pieces += [corps("inf", "DE", "0501"), corps("mtn", "FR", "0501", arm="mountain")]
    g = game(terrain=TERRAIN, pieces=pieces)
    assert _probs(g, CP, "0201") == ["LGG 10-B", "LGG 10-B"]  # 5 corps in mountain, and a tank
    assert _probs(g, CP, "0301") == ["LGG 10-B"]  # 3 corps in desert
    assert _probs(g, CP, "0501") == ["LGG 10-B"]  # high mountain: a mountain corps only
    assert _probs(g, EN, "0501") == []
    assert stacking.stacking_limit(g, g.board.idx("0401")) == 2


@pytest.mark.rules("LGG 10-B")
def test_lgg_10b_lgg27_beach_during_a_landing() -> None:
    pieces = [corps(f"c{k}", "GB", "0606") for k in range(4)] + [
        artillery("a1", "GB", "0606"),
        artillery("a2", "GB", "0606"),
    ]
    g = game(pieces=pieces)
    g.state.set_marker("landing", "0606", True)
    M.touch(g)
    assert stacking.stacking_limit(g, g.board.idx("0606")) == 4
    assert _probs(g, EN, "0606") == ["LGG 10-B"]  # two support units
    g.state.pieces["a2"].loc = Loc.hex(g.board.idx("0707"))
    M.touch(g)
    assert _probs(g, EN, "0606") == []


@pytest.mark.rules("LGG 10-A")
def test_lgg_10a_no_two_hqs_ghqs_or_armies_together() -> None:
    pieces = [
        hq("h1", "DE", "0505", "DE-1"),
        hq("h2", "DE", "0505", "DE-2"),
        ghq("g1", "DE", "0303"),
        ghq("g2", "AH", "0303"),
        corps("a", "DE", "0707", army="DE-1"),
        corps("b", "DE", "0707", army="DE-2"),
        corps("free", "DE", "0505"),
    ]
    g = game(pieces=pieces, rules={"armies": [army("DE-1", "DE", "h1"), army("DE-2", "DE", "h2")]})
    assert "LGG 10-A" in _probs(g, CP, "0505")
    assert _probs(g, CP, "0303") == ["LGG 10-A"]
    assert _probs(g, CP, "0707") == ["LGG 10-A"]
    g.state.set_marker(
        "battle", "0707", {"turn": M.turn_index(g), "side": CP, "coordinated": ["DE-1", "DE-2"]}
    )
    M.touch(g)
    assert _probs(g, CP, "0707") == []  # a battle hex of coordinated armies


@pytest.mark.rules("LGG 10-D")
def test_lgg_10d_overstack_allowed_in_movement_then_cured_at_its_end() -> None:
    pieces = [hq("h", "DE", "0404", "DE-1")] + [
        corps(f"c{k}", "DE", "0404", army="DE-1") for k in range(6)
    ]
    pieces += [corps("x", "DE", "0405", army="DE-1"), corps("e", "FR", "0808")]
    g = game(pieces=pieces, rules={"armies": [army("DE-1", "DE", "h")]})
    to_activation(g, CP, "DE-1")
    act(g, CP, type="move", units=["x"], to="0404", mode="normal")
    assert g.ruleset.invariants(g) == []  # overstacking during movement is allowed
    act(g, CP, type="end-movement")
    assert g.current()[1].step == "end-of-movement"
    legal = g.legal_actions(CP)
    assert {a["type"] for a in legal} == {"displace", "eliminate"}
    to = next(a["to"] for a in legal if a["type"] == "displace" and a["unit"] == "x")
    enemy = g.board.idx("0808")
    assert g.board.distance(g.board.idx(to), enemy) >= g.board.distance(
        g.board.idx("0404"), enemy
    )  # toward the rear
    with pytest.raises(IllegalAction):
        g.apply({"type": "displace", "side": CP, "unit": "x", "to": "0606"})
    act(g, CP, type="displace", unit="x", to=to)
    assert g.current()[1].step != "end-of-movement"
    assert g.ruleset.invariants(g) == []
