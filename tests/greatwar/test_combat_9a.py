"""OT 9, 9A, 9B, 9G, 9H, 9L: the combat segment, CRT choice, totals, odds, column limits,
zero-strength
and marginal units, terrain/fortification/weather effects and incremental odds."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.combat import combat, combat_strength
from grognard.rulesets.greatwar.combat.combat_data import ladder
from grognard.rulesets.greatwar.combat.combat_strength import (
    compute,
    crt_choice,
    incremental_eligible,
    incremental_level,
    printed_value,
)
from grognard.rulesets.greatwar.mechanics import set_marker

from .helpers import division, force_dice, frame, idx, run_to, unit
from .test_combat_support import (
    CP,
    EN,
    all_supplied,  # noqa: F401
    attack,
    drive,
    game_with,
    pending,
    rec_of,
)


def seg(g):  # the combat segment frame
    run_to(g, "combat-segment", EN)
    return frame(g)


def record(g, target, attackers):
    f = seg(g)
    return combat.new_record(
        g, f, {"type": "attack", "side": EN, "target": target, "attackers": attackers}
    )


# ============================================================================ OT 9 / 9A procedure
@pytest.mark.rules("OT 9", "OT 9A")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9a_attack_is_declared_and_resolved_through_the_procedure() -> None:
    g = game_with(
        pieces=[
            division("f1", "France", "0403", a=34, d=10),
            division("g1", "Germany", "0503", a=1, d=9),
        ]
    )
    attack(g, "0503", ["f1"])
    drive(g)
    ev = [e for e in g.state.log if e["type"] == "odds"][-1]
    assert ev["data"]["odds"] == "3:1"  # OT-G-47: 34:9 rounds down to 3:1
    assert [e for e in g.state.log if e["type"] == "result"]
    assert "f1" in frame(g).params["attacked"] and "g1" in frame(g).params["defended"]


@pytest.mark.rules("OT 9A")
def test_ot_9a_ot_g_47_odds_round_down_for_the_defender() -> None:
    g = game_with()
    lad = ladder(g, "mobile")
    assert lad.level_label(lad.level_of(Fraction(34, 9))) == "3:1"
    assert lad.level_label(lad.level_of(Fraction(28, 20))) == "1:1"  # OT-G-74 (below 3:2)
    assert lad.level_label(lad.level_of(Fraction(3, 2))) == "3:2"
    assert lad.level_label(lad.level_of(Fraction(1, 4))) == "1:4"
    assert (
        lad.level_of(Fraction(1, 5)) < 0 and lad.level_label(lad.level_of(Fraction(1, 5))) == "1:5"
    )
    assert lad.level_label(lad.level_of(Fraction(116, 8))) == "14:1"


@pytest.mark.rules("OT 9A", "OT 6B4")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9a_ot_g_48_shifts_fatigue_and_gas() -> None:
    """OT-G-48: 3:1, defender fatigue three levels up, a defender gas column shift one down: 5:1."""
    g = game_with(
        pieces=[
            division("f1", "France", "0403", a=30, d=10),
            division("g1", "Germany", "0503", a=1, d=10, fatigue=6),
        ]
    )
    rec = record(g, "0503", ["f1"])
    rec["effect_shifts"] = [[-1, "OT 10D", "defender GEC column shift"]]
    c = compute(g, rec)
    assert c.ladder.level_label(c.base_level) == "3:1" and c.shift == 2 and c.column == "5:1"


@pytest.mark.rules("OT 9A", "OT 9J", "OT 9H")
def test_ot_9a_crt_choice() -> None:
    g = game_with(
        rows=["cccccccc", "cccccccc", "cccccccc", "ccccmccc"],
        places=[("0502", "full-city", "Town")],
        pieces=[
            division("f1", "France", "0403"),
            division("g1", "Germany", "0503"),
            division("g2", "Germany", "0502"),
            division("g3", "Germany", "0504"),
            unit("fi", "infantry", "France", "0404", a=6, d=6, m=5, size="division"),
        ],
    )
    t = lambda lab: idx(g, lab)  # noqa: E731
    f1, fi = g.state.pieces["f1"], g.state.pieces["fi"]
    assert crt_choice(g, t("0503"), [f1], [g.state.pieces["g1"]])[0] == "mobile"
    assert crt_choice(g, t("0502"), [f1], [g.state.pieces["g2"]])[0] == "positional"  # major city
    set_marker(g, "fortification", t("0503"), "fieldworks")
    assert (
        crt_choice(g, t("0503"), [f1], [g.state.pieces["g1"]])[0] == "mobile"
    )  # fieldworks do not count
    set_marker(g, "fortification", t("0503"), "fort")
    assert crt_choice(g, t("0503"), [f1], [g.state.pieces["g1"]])[0] == "positional"
    assert (
        crt_choice(g, t("0503"), [fi], [g.state.pieces["g1"]])[0] == "mobile"
    )  # exception A: infantry-capable attacker
    _, chooser, _ = crt_choice(
        g, t("0504"), [fi], [g.state.pieces["g3"]]
    )  # exception B: mountain, one side capable
    assert chooser == EN
    assert crt_choice(g, t("0504"), [f1], [g.state.pieces["g3"]])[:2] == ("positional", None)
    set_marker(g, "contested", t("0503"), {"holder": CP, "since": [1, 0, 2]})
    assert crt_choice(g, t("0503"), [f1], [g.state.pieces["g1"]])[0] == "mobile"  # OT 9J


@pytest.mark.rules("OT 9A", "OT 6C")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9a_positional_combat_offers_reserve_commitment() -> None:
    g = game_with(
        places=[("0503", "full-city", "Town")],
        pieces=[
            division("f1", "France", "0403"),
            division("g1", "Germany", "0503"),
            division("g2", "Germany", "0603"),
        ],
    )
    attack(g, "0503", ["f1"])
    assert pending(g) == "reserve-commitment" and g.acting_sides() == [CP]


@pytest.mark.rules("OT 9A")
def test_ot_9a_attacker_chooses_the_crt_where_exception_b_lets_him() -> None:
    g = game_with(
        rows=["cccccccc", "cccccccc", "ccccmccc"],
        pieces=[
            unit("fm", "mountain-rifle", "France", "0403", a=6, d=6, size="division"),
            division("g1", "Germany", "0503"),
        ],
    )
    f = seg(g)
    acts = [a for a in g.legal_actions(EN) if a["type"] == "attack"]
    assert {a.get("crt") for a in acts} == {"mobile", "positional"}
    with pytest.raises(IllegalAction):
        combat.check_attack(
            g, f, {"type": "attack", "side": EN, "target": "0503", "attackers": ["fm"]}
        )


# ============================================================================ OT 9A totals
@pytest.mark.rules("OT 9A", "OT 3A5", "OT 12A", "OT 11F")
def test_ot_9a_totals_carry_every_modifier_with_its_rule() -> None:
    g = game_with(
        pieces=[
            unit("b1", "rifle", "France", "0403", a=4, d=6, size="brigade"),
            division("g1", "Germany", "0503", a=1, d=8),
        ]
    )
    g.state.pieces["b1"].status.add("disrupted")
    c = compute(g, record(g, "0503", ["b1"]))
    (ln,) = c.attack_lines
    rules = {r for _, r, _ in ln.factors}
    assert {"OT 3A5", "OT 12A"} <= rules and any(r.startswith("OT 11F") for r in rules)
    assert (
        ln.value
        == Fraction(4)
        * Fraction(1, 2)
        * Fraction(1, 2)
        * dict((r, f) for f, r, _ in ln.factors if r.startswith("OT 11F")).popitem()[1]
    )


@pytest.mark.rules("OT 9A", "OT 12B")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9a_ot_g_98_99_artillery_ratio_in_defense(monkeypatch) -> None:
    """OT-G-98: three 7-8-5 artillery regiments and a 3-4-5 brigade, Feb I 16: 8 + 1 + 4 = 13.
    OT-G-99: German, Feb I 18: 1-2-5 regiment, 5-7-5 artillery, an artillery regiment at 0.5: 9.5.
    """
    g = game_with(
        turns=(("Feb I 16", {}),),
        pieces=[
            division("f1", "France", "0403"),
            *[
                unit(f"a{k}", "heavy-artillery", "Germany", "0503", a=7, d=8, size="regiment")
                for k in range(3)
            ],
            unit("b", "rifle", "Germany", "0503", a=3, d=4, size="brigade"),
        ],
    )
    assert compute(g, record(g, "0503", ["f1"])).defense == 13
    g2 = game_with(
        turns=(("Feb I 18", {}),),
        pieces=[
            division("f1", "France", "0403"),
            unit("r", "rifle", "Germany", "0503", a=1, d=2, size="regiment"),
            unit("a1", "heavy-artillery", "Germany", "0503", a=5, d=7, size="regiment"),
            unit(
                "a2",
                "heavy-artillery",
                "Germany",
                "0503",
                a=2,
                d=2,
                size="regiment",
                supply_out_since=0,
            ),
        ],
    )
    monkeypatch.setattr(
        combat_strength.combat_hooks,
        "combat_supplied",
        lambda g, side, pieces, sit, commit=False: {p.id for p in pieces if p.id != "a2"},
    )
    monkeypatch.setattr(
        combat_strength.supply_status, "turns_out_of_supply", lambda g, p: 2 if p.id == "a2" else 0
    )
    c = compute(g2, record(g2, "0503", ["f1"]))
    assert c.defense == Fraction(19, 2)


@pytest.mark.rules("OT 9A", "OT 8C2", "OT 9F2")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9a_overstacked_and_retreated_defenders_add_nothing() -> None:
    g = game_with(
        pieces=[
            division("f1", "France", "0403"),
            division("g1", "Germany", "0503", d=8),
            division("g2", "Germany", "0503", d=8, status=["overstacked"]),
            division("g3", "Germany", "0503", d=8),
        ]
    )
    rec = record(g, "0503", ["f1"])
    rec["retreated_in"] = ["g3"]
    c = compute(g, rec)
    assert c.defense == 8 and {ln.piece for ln in c.defense_lines} == {"g1"}


# ============================================================================ OT 9B
@pytest.mark.rules("OT 9B")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9b_ot_g_49_top_column() -> None:
    g = game_with(
        pieces=[
            division("f1", "France", "0403", a=90),
            division("g1", "Germany", "0503", d=10),
            unit("fi", "infantry", "France", "0402", a=90, d=9, size="division"),
        ]
    )
    assert compute(g, record(g, "0503", ["f1"])).column == "6:1"
    assert compute(g, record(g, "0503", ["fi"])).column == "9:1"


@pytest.mark.rules("OT 9B")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9b_ot_g_50_automatic_results_below_1_4() -> None:
    g = game_with(
        places=[("0502", "full-city", "Town")],
        pieces=[
            division("f1", "France", "0403", a=1),
            division("g1", "Germany", "0503", d=9),
            division("f2", "France", "0402", a=1),
            division("g2", "Germany", "0502", d=9),
        ],
    )
    c = compute(g, record(g, "0503", ["f1"]))
    assert c.automatic == "AE" and c.distribution() == {"AE": 1.0}
    c2 = compute(g, record(g, "0502", ["f2"]))
    assert c2.crt == "positional" and c2.automatic == "AD"


@pytest.mark.rules("OT 9B")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9b_restrictions() -> None:
    g = game_with(
        hexsides=[("prohibited", ["0402/0502"])],
        pieces=[
            division("f1", "France", "0403"),
            division("f2", "France", "0402"),
            division("g1", "Germany", "0503", a=1, d=1),
            division("g2", "Germany", "0502", a=1, d=1),
            *[unit(f"r{k}", "rifle", "France", "0403", a=1, d=1) for k in range(2)],
        ],
    )
    f = seg(g)
    with pytest.raises(IllegalAction) as e:
        combat.check_attack(
            g, f, {"type": "attack", "side": EN, "target": "0502", "attackers": ["f2"]}
        )
    assert e.value.rule in ("OT 9A", "OT 9B")  # across a prohibited hexside there is no adjacency
    g8 = game_with(
        rows=["cccccccc", "cccccccc", "ccccmccc"],
        pieces=[
            *[division(f"d{k}", "France", "0403", a=1, d=1) for k in range(5)],
            division("gm", "Germany", "0503"),
        ],
    )
    f8 = seg(g8)
    with pytest.raises(
        IllegalAction
    ) as e:  # OT-G-44: the mountain hex's limit caps each source hex
        combat.check_attack(
            g8,
            f8,
            {
                "type": "attack",
                "side": EN,
                "target": "0503",
                "attackers": [f"d{k}" for k in range(5)],
            },
        )
    assert e.value.rule == "OT 8B"
    combat.check_attack(
        g8,
        f8,
        {"type": "attack", "side": EN, "target": "0503", "attackers": [f"d{k}" for k in range(4)]},
    )
    g.apply({"type": "attack", "side": EN, "target": "0503", "attackers": ["f1"]})
    drive(g)
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "attack", "side": EN, "target": "0502", "attackers": ["f1"]})
    assert e.value.rule == "OT 9B"
    if g.state.pieces["g1"].loc.kind == "hex":
        with pytest.raises(IllegalAction):
            g.apply({"type": "attack", "side": EN, "target": "0503", "attackers": ["r0"]})


@pytest.mark.rules("OT 9B", "OT 12B7")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9b_long_range_artillery_joins_only() -> None:
    g = game_with(
        pieces=[
            division("f1", "France", "0403"),
            unit(
                "lr",
                "heavy-artillery",
                "France",
                "0303",
                a=6,
                d=2,
                faces={"front": {"attack": 6, "defense": 2, "move": 4, "range": 2}},
            ),
            division("g1", "Germany", "0503", d=8),
        ]
    )
    f = seg(g)
    with pytest.raises(IllegalAction, match="alone"):
        combat.check_attack(
            g, f, {"type": "attack", "side": EN, "target": "0503", "attackers": ["lr"]}
        )
    rec = record(g, "0503", ["f1", "lr"])
    assert rec["ranged"] == ["lr"]
    ln = next(x for x in compute(g, rec).attack_lines if x.piece == "lr")
    assert any(r == "OT 12B7" for _, r, _ in ln.factors)


# ============================================================================ OT 9G
@pytest.mark.rules("OT 9G", "OT 9G1")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9g1_zero_strength_units() -> None:
    g = game_with(
        pieces=[
            unit("z", "rifle", "France", "0403", a=0, d=2),
            division("f1", "France", "0402"),
            unit("g0", "rifle", "Germany", "0503", a=1, d=0),
        ]
    )
    f = seg(g)
    with pytest.raises(IllegalAction) as e:
        combat.check_attack(
            g, f, {"type": "attack", "side": EN, "target": "0503", "attackers": ["z"]}
        )
    assert e.value.rule == "OT 9G1"
    g.apply(
        {"type": "attack", "side": EN, "target": "0503", "attackers": ["z", "f1"]}
    )  # OT-G-67: alone at 0 defense
    assert g.state.pieces["g0"].loc == Loc.box("eliminated")


@pytest.mark.rules("OT 9G1")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9g1_ot_g_67_zero_defense_with_a_defender_fights() -> None:
    g = game_with(
        pieces=[
            division("f1", "France", "0403"),
            unit("g0", "rifle", "Germany", "0503", a=1, d=0),
            unit("g1", "rifle", "Germany", "0503", a=1, d=2, size="regiment"),
        ]
    )
    attack(g, "0503", ["f1"])
    assert any(e["type"] == "odds" for e in g.state.log)


@pytest.mark.rules("OT 9G2")
def test_ot_9g2_ot_g_66_marginal_units() -> None:
    g = game_with(
        options={"marginal-units": True},
        pieces=[
            unit("a", "rifle", "France", "0403", a=0, d=2),
            unit("b", "rifle", "France", "0403", a=1, d=0),
            unit("c", "rifle", "France", "0402", faces={"front": {"strength": 0, "move": 5}}),
        ],
    )
    p = g.state.pieces
    assert printed_value(g, p["a"], "attack") == Fraction(1, 2)
    assert printed_value(g, p["b"], "defense") == Fraction(1, 2)
    assert printed_value(g, p["c"], "attack") == 0 and printed_value(g, p["c"], "defense") == 0
    g2 = game_with(pieces=[unit("a", "rifle", "France", "0403", a=0, d=2)])
    assert printed_value(g2, g2.state.pieces["a"], "attack") == 0


# ============================================================================ OT 9H
@pytest.mark.rules("OT 9H", "OT 12B6")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9h_terrain_halves_attackers_mortars_exempt() -> None:
    g = game_with(
        rows=["cccccccc", "cccccccc", "ccccmccc"],
        hexsides=[("river", ["0402/0502"])],
        pieces=[
            division("f1", "France", "0403"),
            unit("mo", "heavy-mortar", "France", "0403", a=4, d=1),
            division("f2", "France", "0402"),
            division("g1", "Germany", "0503", d=8),
            division("g2", "Germany", "0502", d=8),
        ],
    )
    c = compute(g, record(g, "0503", ["f1", "mo"]))
    lines = {ln.piece: ln for ln in c.attack_lines}
    assert any(r == "OT 9H" and f == Fraction(1, 2) for f, r, _ in lines["f1"].factors)
    assert not any(r == "OT 9H" for f, r, _ in lines["mo"].factors)
    c2 = compute(g, record(g, "0502", ["f2"]))
    assert any("river" in why for _, _, why in c2.attack_lines[0].factors)


@pytest.mark.rules("OT 9H", "OT 10")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9h_fortification_city_weather_modifiers() -> None:
    """OT 10 example: a full city with a fort gives -3; OT-S-5: -1 instead of -2 against an
    infantry-capable attacker; mud -1 (TEC)."""
    g = game_with(
        places=[("0503", "full-city", "Town")],
        pieces=[
            division("f1", "France", "0403"),
            unit("fi", "infantry", "France", "0402", a=6, d=6, size="division"),
            division("g1", "Germany", "0503", d=8),
        ],
    )
    set_marker(g, "fortification", idx(g, "0503"), "fort")
    c = compute(g, record(g, "0503", ["f1"]))
    assert c.drm == -3 and {m.rule for m in c.drms} == {"OT 9H"}
    c2 = compute(g, record(g, "0503", ["fi"]))
    fec = [m for m in c2.drms if "fortification" in m.reason]
    assert fec[0].value == -1
    g3 = game_with(
        turns=(("Sep I 14", {"weather": "mud"}),),
        pieces=[division("f1", "France", "0403"), division("g1", "Germany", "0503")],
    )
    assert compute(g3, record(g3, "0503", ["f1"])).drm == -1


# ============================================================================ OT 9L
@pytest.mark.rules("OT 9L")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9l_ot_g_73_74_incremental_odds() -> None:
    g = game_with(
        pieces=[
            division("f1", "France", "0403", a=48),
            division("g1", "Germany", "0503", d=20),
            division("f2", "France", "0402", a=28),
            division("g2", "Germany", "0502", d=20),
        ]
    )
    c = compute(g, record(g, "0503", ["f1"]))
    assert combat_strength.rounded_tenths(c.ratio) == Fraction(12, 5) and incremental_eligible(c)
    assert c.ladder.level_label(incremental_level(c, 4)) == "3:1"
    for d in (5, 6, 7, 8, 9, 10):
        assert c.ladder.level_label(incremental_level(c, d)) == "2:1"
    c2 = compute(g, record(g, "0502", ["f2"]))
    assert not incremental_eligible(c2) and c2.column == "1:1"


@pytest.mark.rules("OT 9L")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9l_attacker_option_and_d10() -> None:
    g = game_with(
        options={"incremental-odds": True},
        pieces=[division("f1", "France", "0403", a=48), division("g1", "Germany", "0503", d=20)],
    )
    attack(g, "0503", ["f1"])
    assert pending(g) == "combat-choice" and rec_of(g)["stage"] == "incremental"
    force_dice(g, [4], sides=10)
    g.apply({"type": "choose", "side": EN, "key": "incremental", "choice": "yes"})
    assert any(e["type"] == "odds" and "incremental odds: 3:1" in e["text"] for e in g.state.log)


# ============================================================================ preview
@pytest.mark.rules("OT 9A")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9a_preview_shows_totals_odds_and_distribution() -> None:
    g = game_with(
        pieces=[division("f1", "France", "0403", a=30), division("g1", "Germany", "0503", d=10)]
    )
    seg(g)
    act = {"type": "attack", "side": EN, "target": "0503", "attackers": ["f1"]}
    pv = combat.preview_attack(g, act)
    assert pv["odds"] == "3:1" and pv["column"] == "3:1"
    assert abs(sum(pv["distribution"].values()) - 1) < 1e-9
    assert pv["distribution"] == compute(g, record(g, "0503", ["f1"])).ladder.table.distribution(
        6, 0
    )
    assert "OT 11F" in pv["text"] and "results" in pv["text"]
    assert g.ruleset.preview(g, act) is not None
    bad = combat.preview_attack(
        g, {"type": "attack", "side": EN, "target": "0603", "attackers": ["f1"]}
    )
    assert bad["text"].startswith("illegal")


@pytest.mark.rules("OT 9", "OT 4A5", "OT 14M")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9_reaction_combat_only_in_active_zois() -> None:
    from .helpers import army_hq

    g = game_with(
        pieces=[
            division("f1", "France", "0403"),
            division("g1", "Germany", "0503"),
            division("g2", "Germany", "0702"),
            division("f2", "France", "0401"),
            division("g3", "Germany", "0501"),
            army_hq("ghq", "Germany", "0603"),
        ]
    )
    for _ in range(100):
        cur = g.current()
        if cur[1].step == "combat-segment" and cur[1].params.get("reaction"):
            break
        side = g.acting_sides()[0]
        acts = g.legal_actions(side)
        g.apply(
            next((a for a in acts if a["type"] == "check-hq"), None)
            or next(a for a in acts if a["type"] in ("end-phase", "done", "decline"))
        )
    f = frame(g)
    assert f.params["attacker"] == CP
    hq_ok = g.state.pieces["ghq"].face == "active"
    attackers = {
        pid for a in g.legal_actions(CP) if a["type"] == "attack" for pid in a["attackers"]
    }
    assert ("g1" in attackers) == hq_ok and "g3" not in attackers  # 0501 is 3 hexes from the HQs
    with pytest.raises(IllegalAction) as e:
        combat.check_attack(
            g, f, {"type": "attack", "side": CP, "target": "0401", "attackers": ["g3"]}
        )
    assert e.value.rule == "OT 14M"


@pytest.mark.rules("OT 9G1", "OT 9D")
@pytest.mark.usefixtures("all_supplied")
def test_ot_9g1_headquarters_alone_are_eliminated_when_attacked() -> None:
    from .helpers import army_hq

    g = game_with(pieces=[division("f1", "France", "0403"), army_hq("ghq", "Germany", "0503")])
    attack(g, "0503", ["f1"])
    assert g.state.pieces["ghq"].loc == Loc.box("eliminated")
    assert pending(g) == "combat-advance"
