"""What the terminal shows of a Marne 1914 game: action descriptions, the text map, previews of
moves, rail moves and attacks, and the reachable hexes offered to front ends."""

from __future__ import annotations

from functools import cache

from grognard.core.game import Game
from grognard.rulesets.greatwar import presentation as P
from grognard.scenario import find

EN = "Entente"
CP = "Central Powers"


@cache
def movement_game() -> Game:
    """The Entente's first ground movement step (read-only for the tests below)."""
    from .test_marne_play import end_until

    g = Game.new(find("marne-1914"), seed=1)
    end_until(g, "ground-movement", EN)
    return g


def test_marne_actions_are_described_with_unit_and_place_names() -> None:
    """The declared labels (greatwar/actions.py) name units with their names and hexes with
    their places."""
    g = movement_game()
    move = {"type": "move", "side": EN, "piece": "fr-45di", "to": "1409"}
    assert g.label(move) == "Move fr-45di 45th (Algerian) Infantry Division to 1409"
    assert g.ruleset.describe_action(g, move) == g.label(move)
    rail = {
        "type": "rail-move",
        "side": EN,
        "piece": "fr-81dt",
        "kind": "operational",
        "path": ["1407", "1408", "1409", "1410"],
    }
    assert (
        g.label(rail)
        == "Rail move (operational) of fr-81dt 81st Territorial Division along 1407, 1408 Creil,"
        " 1409 and 1410 Paris"
    )
    attack = {"type": "attack", "side": EN, "target": "1610", "attackers": ["fr-14di", "fr-63dr"]}
    assert (
        g.label(attack)
        == "Attack 1610 Meaux with fr-14di 14th Infantry Division and fr-63dr 63rd Reserve Division"
    )
    assert g.label({"type": "end-phase", "side": EN}) == "End the phase"
    assert (
        g.label({"type": "commit-reserves", "side": CP, "from": "1810"})
        == "Commit the reserves in 1810 Montmirail"
    )
    every = [t.name for t in g.ruleset.actions]
    assert all(g.ruleset.actions[t].label for t in every)  # every type has a label


def test_marne_text_map_fits_a_terminal_and_shows_the_front() -> None:
    g = movement_game()
    text = g.ruleset.render_text(g, EN)
    lines = text.splitlines()
    assert lines[0].startswith("Marne 1914 -- Sep I 14 -- Movement phase (Entente)")
    assert any(ln.startswith("victory points held: Entente 32, Central Powers 18") for ln in lines)
    assert any(
        ln.startswith("rail capacity left (Entente): NW Europe Standard Gauge") for ln in lines
    )
    rows = [ln for ln in lines if ln[:2].isdigit() and ln[2:4] == "  "]
    assert (
        len(rows) == 20 and max(len(ln) for ln in text.splitlines()[4:46]) <= 80
    )  # fits an 80-column terminal
    paris_row = next(ln for ln in lines if ln.startswith("10  "))
    assert "#E" in paris_row  # Paris holds Entente units
    assert (
        "  1610 Meaux: de-4rk 0-0-8, de-7rd 7-10-5" in text
    )  # the stacks in contact with the enemy
    assert "  1510 Claye: fr-6a 0-0-5" in text


def test_marne_move_preview_shows_cost_and_reach() -> None:
    g = movement_game()
    text = P.preview(g, {"type": "move", "side": EN, "piece": "fr-45di", "to": "1409"})
    assert isinstance(text, str)
    assert "fr-45di 45th (Algerian) Infantry Division: 1 MP, 4 MP left" in text
    assert "reachable now (" in text and "o = here, @ = this move" in text
    assert 'j {"type": "move", "piece": "fr-45di", "to": ' in text
    bad = P.preview(g, {"type": "move", "side": EN, "piece": "fr-73dr", "to": "2711"})
    assert bad is not None and bad.startswith("illegal:") and "(OT 3F)" in bad
    reach = g.ruleset.reachable(g, ["fr-45di"])
    assert reach is not None and reach["1409"] == "1" and "1610" not in reach


def test_marne_rail_preview_shows_the_capacity_used() -> None:
    g = movement_game()
    text = P.preview(
        g,
        {
            "type": "rail-move",
            "side": EN,
            "piece": "fr-81dt",
            "kind": "operational",
            "path": ["1407", "1408", "1409", "1410"],
        },
    )
    assert isinstance(text, str)
    assert "cost: 1 MP" in text and "capacity: 3 RE on NW Europe Standard Gauge" in text
    assert P.preview(g, {"type": "end-phase", "side": EN}) is None


def test_marne_attack_preview_shows_odds_and_the_distribution() -> None:
    from .test_marne_play import end_until

    g = Game.new(find("marne-1914"), seed=1)
    end_until(g, "combat-segment", EN)
    attacks = [a for a in g.legal_actions(EN) if a["type"] == "attack"]
    assert attacks
    a = next(x for x in attacks if x["target"] == "2408")
    pv = g.ruleset.preview(g, a)
    assert isinstance(pv, dict)
    text = pv["text"]
    assert text.startswith("Attack on 2408") and "totals" in text and "column" in text
    assert "distribution of results:" in text
    bars = text.split("distribution of results:")[1].strip().splitlines()
    assert bars and all("%" in b for b in bars)
    assert abs(sum(float(v) for v in pv["distribution"].values()) - 1) < 1e-9
