"""Marne 1914 played end to end in the terminal: ``grognard play marne-1914`` fed a script on its
standard input plays the Entente's whole first player turn -- the placement of the
reinforcements arriving by rail, a move (with the reachable hexes
shown), its undo, the move again, a rail move, the end of movement, both sides' open-city
declarations, an attack (with the odds and the distribution of results shown before committing),
the die roll and result with their rule ids, the losses, the defender's advance decision, the
German reaction movement (Army HQs activation rolls) and reaction combat, the exploitation phase --
until the Central Powers' player turn begins; the game is then saved and reloaded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from grognard.core.game import Game
from grognard.play import g_preview

EN = "Entente"
CP = "Central Powers"


def act(**a: object) -> str:
    return "j " + json.dumps(a)


def placements() -> list[str]:
    """The placements of the Entente's first initial phase (XXI and XV Corps arrive by rail; the
    Res Pts of September's production), each at its first offered hex, as the terminal is told them.
    """
    from grognard.scenario import find

    g = Game.new(find("marne-1914"), seed=1)
    out = []
    while g.state.frames[-1].step == "reinforcement":
        a = next((x for x in g.legal_actions(EN) if x["type"] in ("place", "place-res")), None)
        if a is None:
            break
        out.append("j " + json.dumps(a))
        if g_preview(g, a) is not None:
            out.append("y")  # a placement is shown (the piece, the hex) before it is committed
        g.apply(a)
    return out


SCRIPT = [
    act(type="end-phase", side=EN),  # reinforcements placed
    act(type="end-phase", side=EN),  # initial phase activities
    act(type="move", side=EN, piece="fr-45di", to="1409"),
    "y",  # preview with the reach map
    "u",  # undo the move
    act(type="move", side=EN, piece="fr-45di", to="1409"),
    "y",
    act(
        type="rail-move",
        side=EN,
        piece="fr-81dt",
        kind="operational",
        path=["1407", "1408", "1409", "1410"],
    ),
    "y",
    "m",  # redraw the map
    act(type="end-phase", side=EN),  # end of ground movement
    act(type="done", side=EN),
    act(type="done", side=CP),  # open cities (OT 15A9)
    act(type="end-phase", side=EN),  # bombardment segment
    act(
        type="attack",
        side=EN,
        target="2408",
        attackers=["fr-65dr", "fr-67dr", "fr-72dr", "fr-verdun"],
    ),
    "y",
    "2",  # the defender declines to advance
    act(type="end-phase", side=EN),  # end of the combat segment
    act(type="end-phase", side=CP),  # reaction movement: HQ activation checks
    act(type="done", side=CP),
    act(type="done", side=EN),  # open cities before reaction combat
    act(type="end-phase", side=CP),  # reaction combat segment
    act(type="end-phase", side=EN),  # exploitation
]


def test_marne_terminal_play_of_a_whole_player_turn(tmp_path: Path) -> None:
    save = tmp_path / "marne.json"
    places = placements()
    # XXI and XV Corps, and the Res Pts of September's production
    assert len([p for p in places if p.startswith("j ")]) == 6 + 6
    stdin = "\n".join([*places, *SCRIPT, f"s {save}", "q"]) + "\n"
    env = dict(os.environ, COLUMNS="120")
    out = subprocess.run(
        [sys.executable, "-m", "grognard.cli", "play", "marne-1914", "--seed", "1"],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout
    # the map and its legend at the start, the acting side and the phase
    assert "Marne 1914 -- Sep I 14 -- Initial phase (Entente)" in text
    # reinforcements: IV Corps detrains in Paris, XXI and XV Corps are placed
    assert (
        "fr-7di enters play in 1410" in text
        and "fr-21ca enters play in" in text
        and "places Res Pt" in text
    )
    assert "each row takes two lines" in text and "stacks in contact:" in text
    # the move's preview: cost, MPs left and the reachable hexes, before committing
    assert "fr-45di 45th (Algerian) Infantry Division: 1 MP, 4 MP left" in text
    assert "reachable now (" in text and "commit? [Y/n]" in text
    assert "undone: Move fr-45di 45th (Algerian) Infantry Division to 1409" in text
    assert "fr-45di moves 1410 -> 1409 (OT 6)" in text
    # the rail move with its capacity
    assert "capacity: 3 RE on NW Europe Standard Gauge, 20 RE left afterwards (OT 7A4)" in text
    assert "fr-81dt moves by operational rail 1406 -> 1410" in text
    # the attack: totals, odds, the distribution of results, then the roll and the result with rule
    # ids
    assert "Attack on 2408" in text and "distribution of results:" in text
    assert "Entente attacks 2408 with fr-65dr, fr-67dr, fr-72dr, fr-verdun (OT 9A)" in text
    assert "combat on 2408 at 1:2: d6 rolled" in text
    assert "mobile CRT, 1:2" in text
    # reaction movement of the Central Powers: every Army HQs rolls its activation check
    assert text.count("activation check of de-") == 5 and "(OT 14M1)" in text
    # the player turn is over: the Central Powers move next
    assert "Central Powers player turn" in text
    assert f"saved to {save}" in text
    g = Game.load(json.loads(save.read_text(encoding="utf-8")))
    assert g.turn_label() == "Sep I 14"
    assert "Central Powers player turn" in g.phase_path()
    assert g.acting_sides() == [CP]
