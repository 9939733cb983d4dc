"""LGG 6: fronts, sectors and initiative."""

from __future__ import annotations

import pytest

from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import fronts

from .helpers import CP, EN, act, army, corps, game, ghq, hq, play_until

SECTORS = [
    {"name": "French", "kind": "sector", "hexes": ["0101", "0102", "0103"]},
    {"name": "Russian", "kind": "sector", "hexes": ["0103", "0104", "0105"]},
    {"name": "Balkan", "kind": "sector", "hexes": ["0106"]},
]


@pytest.mark.rules("LGG 6-A")
def test_lgg_6a_sectors_fronts_and_shared_hexes() -> None:
    g = game(pieces=[corps("a", "DE", "0101")], areas=SECTORS, rules={"default_sector": None})
    i = g.board.idx
    assert fronts.sectors_of(g, i("0101")) == ["French"] and fronts.fronts_of(g, i("0101")) == [
        "West"
    ]
    assert fronts.sectors_of(g, i("0103")) == ["French", "Russian"]
    assert fronts.fronts_of(g, i("0103")) == ["West", "East"]  # a shared hex belongs to both fronts
    assert fronts.fronts_of(g, i("0106")) == ["East"]
    assert fronts.fronts_of(g, i("0808")) == []
    g2 = game(pieces=[corps("a", "DE", "0101")])
    assert fronts.fronts_of(g2, i("0808")) == ["West"]  # the scenario's default sector


def _init_game(prev: str | None = None, **kw: object):
    pieces = [
        ghq("de-ghq", "DE", "0808", init=3),
        ghq("fr-ghq", "FR", "0101", init=2),
        ghq("gb-ghq", "GB", "0102", init=1),
        hq("de-hq", "DE", "0707", "DE-1"),
        hq("fr-hq", "FR", "0202", "FR-1"),
    ]
    rules = {"armies": [army("DE-1", "DE", "de-hq"), army("FR-1", "FR", "fr-hq")]}
    if prev:
        rules["initiative_last"] = {"West": prev}
    return game(pieces=pieces, rules=rules, **kw)


@pytest.mark.rules("LGG 6-B")
def test_lgg_6b_lgg17_tie_goes_to_the_side_without_the_initiative_last_turn() -> None:
    """LGG-17 with the audit's correction: the -2 applies in the same turn."""
    g = _init_game(prev=CP)
    assert fronts.initiative_winner(g, "West", {CP: 5 + 3, EN: 6 + 2}) == EN
    assert fronts.initiative_winner(g, "West", {CP: 9, EN: 8}) == CP
    fronts.set_initiative(g, "West", EN)
    assert fronts.reaction_initiative_modifier(g, CP, "West") == -2
    assert fronts.reaction_initiative_modifier(g, EN, "West") == 0


@pytest.mark.rules("LGG 6-B")
def test_lgg_6b_roll_uses_the_chosen_ghq_and_the_winner_picks_the_first_mover() -> None:
    g = _init_game(prev=EN)
    play_until(g, "secret-choice")
    # the Entente has two GHQs on the West (France or England); the Central Powers only Germany
    assert g.acting_sides() == [EN]
    act(g, EN, type="commit", value="GB")
    rolls = [e for e in g.state.log if e["type"] == "roll" and "initiative" in e["text"]]
    assert len(rolls) == 2
    by_side = {(CP if "Central Powers" in e["text"] else EN): e for e in rolls}
    assert "(Germany)" in by_side[CP]["text"] and "(England)" in by_side[EN]["text"]
    totals = {s: e["data"]["natural"] + (3 if s == CP else 1) for s, e in by_side.items()}
    winner = fronts.initiative_winner(g, "West", totals)
    assert M.st(g)["initiative"]["West"] == winner
    assert g.acting_sides() == [winner]
    act(g, winner, type="first-mover", first=M.other_side(winner))
    assert M.st(g)["first_mover"]["West"] == M.other_side(winner)


@pytest.mark.rules("LGG 6-B")
def test_lgg_6b_east_is_decided_before_the_west() -> None:
    areas = [{"name": "Russian", "kind": "sector", "hexes": ["0808", "0807"]}]
    pieces = [
        ghq("de-ghq", "DE", "0101"),
        ghq("ru-ghq", "RU", "0808"),
        hq("de-hq", "DE", "0102", "DE-1"),
    ]
    g = game(
        pieces=pieces,
        areas=areas,
        rules={"fronts": ["West", "East"], "armies": [army("DE-1", "DE", "de-hq")]},
    )
    play_until(g, "first-mover")
    assert g.current()[1].params["front"] == "East"
