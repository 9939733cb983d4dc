"""The rule system's ``preview`` of an attack and of an engagement (LGG 16.3-16.5), from the acting
side's knowledge only."""

from __future__ import annotations

import json

import pytest

from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from tests.lgg1418.battle_helpers import bgame, de, drive, fr, fr_art, in_step
from tests.lgg1418.helpers import EN, act, to_activation


@pytest.mark.rules("LGG 16.3", "LGG 16.4", "LGG 16.5")
def test_lgg_16_3_preview_of_an_attack_uses_only_what_the_attacker_knows() -> None:
    g = bgame([fr("fa", "0405"), fr_art("gun", "0405"), de("secret", "0404")])
    to_activation(g, EN, "FR-1")
    pv = g.ruleset.preview(
        g, {"type": "move", "side": EN, "units": ["fa", "gun"], "to": "0404", "mode": "normal"}
    )
    assert pv["kind"] == "attack" and pv["table"] == "combat-movement"
    assert pv["attacker_total"] == 6 + 2  # attack 6, artillery support 2 in Movement Doctrine
    cols = pv["distribution_by_column"]
    assert len(cols) == 13 and all(abs(sum(d.values()) - 1) < 1e-6 for d in cols.values())
    assert "secret" not in json.dumps(pv) and "distribution" not in pv  # the defender is unknown
    g2 = bgame(
        [fr("fa", "0405"), fr_art("gun", "0405"), de("secret", "0404")],
        options={"fog-of-war": False},
    )
    to_activation(g2, EN, "FR-1")
    pv2 = g2.ruleset.preview(
        g2, {"type": "move", "side": EN, "units": ["fa", "gun"], "to": "0404", "mode": "normal"}
    )
    assert (
        pv2["defender_unit"] == "secret" and pv2["differential"] == 8 - 8 and pv2["column"] == "0"
    )
    assert pv2["distribution"] == pv2["distribution_by_column"]["0"]
    assert (
        g.ruleset.preview(
            g, {"type": "move", "side": EN, "units": ["fa"], "to": "0505", "mode": "normal"}
        )
        is None
    )


@pytest.mark.rules("LGG 16.3", "LGG 16.2-A")
def test_lgg_16_2a_preview_of_an_engagement() -> None:
    g = bgame([fr("fa", "0405"), fr("fb", "0405"), de("da", "0404"), de("db", "0404")], seed=4)
    to_activation(g, EN, "FR-1")
    act(g, EN, type="move", units=["fa", "fb"], to="0404", mode="normal")
    act(g, EN, type="end-movement")
    drive(g, until=in_step("battle-commit"))
    f = g.current()[1]
    assert f.params["kind"] == "engage"
    side = g.acting_sides()[0]
    a = g.legal_actions(side)[0]
    pv = g.ruleset.preview(g, a)
    assert (
        pv["kind"] == "engage" and "A" in pv["subs"] and "distribution_by_column" in pv["subs"]["A"]
    )
    # next round, the corps the enemy engaged before is known: an exact distribution
    drive(
        g,
        until=lambda g: (
            in_step("battle-commit")(g)
            and battle.rec_of(g, g.current()[1].params["battle"]).round == 2
            and g.current()[1].params["kind"] == "engage"
        ),
    )
    side = g.acting_sides()[0]
    a = g.legal_actions(side)[0]
    pv = g.ruleset.preview(g, a)
    sub = pv["subs"]["A"]
    assert "distribution" in sub and abs(sum(sub["distribution"].values()) - 1) < 1e-6
    assert M.other_side(side) in M.SIDES
