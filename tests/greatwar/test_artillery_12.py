"""OT 12 artillery: support (12A), artillery units and types (12B, 12B1-12B9), bombardment (12C,
12C1-12C5), through the rule code."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.greatwar import calendar
from grognard.rulesets.greatwar.combat import artillery, support
from grognard.rulesets.greatwar.mechanics import gw, marker
from grognard.rulesets.greatwar.movement import movement
from grognard.rulesets.greatwar.units import units

from .helpers import CP, EN, division, end, force_dice, frame, game, idx, run_to, step_name, unit

pytestmark = pytest.mark.rules("OT 12")


# A Res Pt for combat supply (OT 11D) and an Army HQs whose ZOI covers the artillery (OT 12C).
SUPPORT = [
    unit("rp", "res-pt", "France", "0402", size="", faces={}),
    unit(
        "hq",
        "army-hq",
        "France",
        "0302",
        faces={
            "active": {"attack": 0, "defense": 0, "move": 5},
            "inactive": {"attack": 0, "defense": 0, "move": 5},
        },
        face="active",
        size="army",
    ),
]


# ============================================================================ OT 12A support
@pytest.mark.rules("OT 12A")
def test_ot_12a_notation_and_indicators() -> None:
    """OT-G-96: "2-3-5*" a supported brigade, "2-3-5" an unsupported brigade, "4-7-5°" an
    unsupported division."""
    g = game(
        pieces=[
            unit("sb", "rifle", "France", "0101", a=2, d=3, m=5, size="brigade", support="self"),
            unit("ub", "rifle", "France", "0102", a=2, d=3, m=5, size="brigade"),
            division("ud", "France", "0103", a=4, d=7, m=5, support="unsupported"),
            division("zd", "France", "0104", a=0, d=0, m=5),
        ]
    )
    P = g.state.pieces
    assert support.is_supported(g, P["sb"]) and not support.provides_support(P["sb"])
    assert not support.is_supported(g, P["ub"]) and not support.is_supported(g, P["ud"])
    assert not support.intrinsically_supported(P["zd"])  # printed combat strength 0


@pytest.mark.rules("OT 12A", "OT 3A5")
def test_ot_12a_disrupted_unit_gives_no_support() -> None:
    """OT-G-97: an unsupported 2-3-5 brigade with a disrupted supported division defends 1.5."""
    g = game(
        pieces=[
            unit("b", "rifle", "France", "0101", a=2, d=3, m=5, size="brigade"),
            division("d", "France", "0101"),
        ]
    )
    P = g.state.pieces
    assert artillery.support_strength(g, P["b"], Fraction(3)) == 3
    units.disrupt(g, P["d"])
    assert artillery.support_strength(g, P["b"], Fraction(3)) == Fraction(3, 2)


@pytest.mark.rules("OT 12A", "OT 13D")
def test_ot_12a_attack_support_needs_the_same_attack_and_engineers_auto_support() -> None:
    g = game(
        places=[("0203", "partial-city", "X")],
        pieces=[
            unit("b", "rifle", "France", "0101", size="brigade"),
            division("d", "France", "0101"),
            unit("ce", "combat-engineer", "France", "0102"),
        ],
    )
    P = g.state.pieces
    assert (
        artillery.support_strength(g, P["b"], Fraction(2), companions=[P["b"]]) == 1
    )  # the division does not attack with it
    assert artillery.support_strength(g, P["b"], Fraction(2), companions=[P["b"], P["d"]]) == 2
    assert (
        artillery.support_strength(
            g, P["ce"], Fraction(2), companions=[P["ce"]], target=idx(g, "0203")
        )
        == 2
    )


# ============================================================================ OT 12B
@pytest.mark.rules("OT 12B")
def test_ot_12b_defense_ratio_example_1() -> None:
    """OT-G-98: Feb I 16, three 7-8-5 artillery regiments and a 3-4-5 rifle brigade: 8 + 1 + 4 =
    13."""
    g = game(
        turns=[("Feb I 16", {})],
        pieces=[unit(f"a{k}", "field-artillery", "France", "0101", a=7, d=8) for k in range(3)]
        + [unit("b", "rifle", "France", "0101", a=3, d=4, size="brigade")],
    )
    pieces = [g.state.pieces[x] for x in ("a0", "a1", "a2", "b")]
    values = {"a0": Fraction(8), "a1": Fraction(8), "a2": Fraction(8), "b": Fraction(4)}
    assert artillery.ratio_total(g, values, pieces) == 13
    full, _ = artillery.full_strength_choice(g, values, pieces)
    assert len(full) == 1


@pytest.mark.rules("OT 12B")
def test_ot_12b_defense_ratio_example_2_modern_tactics() -> None:
    """OT-G-99: Feb I 18, German: a 1-2-5 rifle regiment, a 5-7-5 artillery regiment and an
    artillery
    regiment quartered to 0.5: 2 + 7 + 0.5 = 9.5."""
    g = game(
        turns=[("Feb I 18", {})],
        pieces=[
            unit("r", "rifle", "Germany", "0801"),
            unit("a", "field-artillery", "Germany", "0801", a=5, d=7),
            unit("q", "field-artillery", "Germany", "0801", a=2, d=2),
        ],
    )
    pieces = [g.state.pieces[x] for x in ("r", "a", "q")]
    assert artillery.uses_modern_tactics(g, pieces[1])
    assert artillery.ratio_total(
        g, {"r": Fraction(2), "a": Fraction(7), "q": Fraction(1, 2)}, pieces
    ) == Fraction(19, 2)
    assert artillery.full_strength_choice(
        g, {"r": Fraction(2), "a": Fraction(7), "q": Fraction(1, 2)}, pieces
    )[0] == ["a"]
    with pytest.raises(IllegalAction):
        artillery.full_strength_choice(
            g, {"r": Fraction(2), "a": Fraction(7), "q": Fraction(1, 2)}, pieces, chosen=["a", "q"]
        )


@pytest.mark.rules("OT 12B")
def test_ot_12b_modern_tactics_dates() -> None:
    """OT-G-100: Germany/Austria-Hungary from Oct I 17 (not Sep II 17); Britain, France, USA from
    Jul I
    18; the others from Feb I 19."""
    nations = {"France": EN, "Germany": CP, "Britain": EN, "Russia": EN, "Austria-Hungary": CP}
    turns = [("Sep II 17", {}), ("Oct I 17", {}), ("Jul I 18", {}), ("Feb I 19", {})]
    g = game(
        nations=nations,
        turns=turns,
        pieces=[
            unit(f"a{n[:2]}", "field-artillery", n, "0101" if s == EN else "0801")
            for n, s in nations.items()
        ],
    )
    P = g.state.pieces

    def modern(label: str) -> set[str]:
        g.state.turn = {"index": [t[0] for t in turns].index(label) + 1, "label": label}
        return {pid for pid, p in P.items() if artillery.uses_modern_tactics(g, p)}

    assert modern("Sep II 17") == set()
    assert modern("Oct I 17") == {"aGe", "aAu"}
    assert modern("Jul I 18") == {"aGe", "aAu", "aFr", "aBr"}
    assert modern("Feb I 19") == set(P)


def forts_game():
    places = [
        ("0202", "fortress", "Old", {"state": "improved", "type": "old"}),
        ("0202", "partial-city", "OldCity"),
        ("0204", "fortress", "New", {"state": "improved", "type": "new"}),
        ("0206", "partial-city", "City"),
        ("0208", "fortress", "Great", {"state": "improved", "type": "great"}),
    ]
    kinds = {
        "f": "field-artillery",
        "h": "heavy-artillery",
        "s": "siege-artillery",
        "x": "heavy-siege-artillery",
        "c": "coast-artillery",
    }
    pieces = [unit(k, t, "France", "0101", a=4, d=4) for k, t in kinds.items()]
    return game(places=places, pieces=pieces, nrows=8)


@pytest.mark.rules("OT 12B1", "OT 12B2", "OT 12B3", "OT 12B4", "OT 12B5")
def test_ot_12b_type_multipliers_grid() -> None:
    """OT-G-101: against an improved fortress (old) with a major city / an improved fortress (new) /
    a
    major city / an improved great fortress: field x1, 1/2, 1/2, 1/2; heavy x2, 1, 1, 1/2; siege x3,
    2, 2,
    1; heavy siege x4, 3, 3, 2 (coast artillery as heavy)."""
    g = forts_game()
    targets = [idx(g, h) for h in ("0202", "0204", "0206", "0208")]

    def row(pid: str) -> list[Fraction]:
        out = []
        for t in targets:
            f = Fraction(1)
            for fac, _r, _w in artillery.type_factor(g, g.state.pieces[pid], t):
                f *= fac
            out.append(f)
        return out

    h = Fraction(1, 2)
    assert row("f") == [1, h, h, h]
    assert row("h") == [2, 1, 1, h]
    assert row("s") == [3, 2, 2, 1]
    assert row("x") == [4, 3, 3, 2]
    assert row("c") == row("h")
    assert (
        artillery.type_factor(g, g.state.pieces["f"], idx(g, "0301"), bombard=True)[0][0] == h
    )  # field artillery bombards at 1/2


@pytest.mark.rules("OT 12B2", "OT 12B3", "OT 12B4")
def test_ot_12b4_heavy_siege_artillery_disruption_after_moving() -> None:
    """OT-G-102: heavy siege artillery that moves: French Jan II 17 badly disrupted; French Feb I 17
    disrupted; German any date disrupted. Siege and heavy siege artillery never advance, heavy siege
    never retreats."""
    turns = [("Jan II 17", {}), ("Feb I 17", {})]
    g = game(
        turns=turns,
        pieces=[
            unit("fx", "heavy-siege-artillery", "France", "0101"),
            unit("gx", "heavy-siege-artillery", "Germany", "0801"),
            unit("s", "siege-artillery", "France", "0102"),
            unit("h", "heavy-artillery", "France", "0103"),
        ],
    )
    P = g.state.pieces
    for pid in ("fx", "gx", "s", "h"):
        movement.disruption_after_movement(g, P[pid], "movement")
    assert (
        units.disruption(P["fx"]) == 2
        and units.disruption(P["gx"]) == 1
        and units.disruption(P["s"]) == 1
        and units.disruption(P["h"]) == 1
    )
    g.state.turn = {"index": 2, "label": "Feb I 17"}
    for p in P.values():
        units.recover(g, p)
    for pid in ("fx", "h"):
        movement.disruption_after_movement(g, P[pid], "reaction")
    assert units.disruption(P["fx"]) == 1 and units.disruption(P["h"]) == 0
    assert (
        not artillery.may_advance(g, P["s"])
        and not artillery.may_advance(g, P["fx"])
        and artillery.may_advance(g, P["h"])
    )
    assert not artillery.may_retreat(P["fx"]) and artillery.may_retreat(P["s"])
    assert calendar.on_or_after(g, "Feb I 17")


@pytest.mark.rules("OT 12B6")
def test_ot_12b6_mortars_not_halved_in_mountains() -> None:
    g = game(
        rows=["cccccccc", "cmcccccc"] + ["cccccccc"] * 4,
        pieces=[
            unit("m", "heavy-mortar", "France", "0101"),
            unit("h", "heavy-artillery", "France", "0101"),
        ],
    )
    P = g.state.pieces
    t = idx(g, "0202")
    assert artillery.is_mortar(P["m"]) and not artillery.is_mortar(P["h"])
    assert artillery.mountain_factor(g, P["m"], idx(g, "0101"), t) is None
    assert artillery.mountain_factor(g, P["h"], idx(g, "0101"), t)[0] == Fraction(1, 2)  # type: ignore[index]


@pytest.mark.rules("OT 12B7")
def test_ot_12b7_long_range_artillery() -> None:
    g = game(
        pieces=[
            unit(
                "lr",
                "heavy-artillery",
                "France",
                "0203",
                faces={"front": {"attack": 6, "defense": 2, "move": 3, "range": 3}},
            ),
            unit(
                "aa",
                "heavy-artillery",
                "France",
                "0102",
                faces={"front": {"attack": 6, "defense": 2, "move": 3, "range": 1}},
            ),
            division("d", "France", "0303"),
            division("x", "Germany", "0403"),
        ],
        cols=8,
        nrows=6,
    )
    P = g.state.pieces
    assert (
        artillery.range_of(P["lr"]) == 3 and artillery.range_of(P["aa"]) == 1
    )  # a printed 1 is AA strength
    target = idx(g, "0403")
    assert artillery.fires_at_range(g, P["lr"], target) and not artillery.subject_to_results(
        g, P["lr"], target
    )
    assert not artillery.may_advance(g, P["lr"], target)
    assert artillery.ranged_attack_problem(g, [P["lr"]], target) is not None  # may not attack alone
    assert artillery.ranged_attack_problem(g, [P["lr"], P["d"]], target) is None
    facs = artillery.combat_factors(g, P["lr"], target, "attack")
    assert (Fraction(1, 2), "OT 12B7", "long-range artillery firing at range") in facs


@pytest.mark.rules("OT 12B8", "OT 12C")
def test_ot_12b8_gas_artillery_gec_in_bombardment() -> None:
    g = game(
        pieces=[
            unit("gas", "gas-heavy-artillery", "France", "0402", a=6, d=2),
            unit("fa", "field-artillery", "France", "0402", a=4),
            division("x", "Germany", "0502"),
            *SUPPORT,
        ],
        cols=8,
        nrows=4,
        control={
            EN: [f"0{c}0{r}" for c in range(1, 5) for r in range(1, 5)],
            CP: [f"0{c}0{r}" for c in range(5, 9) for r in range(1, 5)],
        },
    )
    run_to(g, "bombardment-segment", EN)
    P = g.state.pieces
    assert artillery.is_gas_artillery(P["gas"]) and not artillery.is_gas_artillery(P["fa"])
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "bombard", "side": EN, "pieces": ["fa"], "target": "0502", "gec": True})
    assert e.value.rule == "OT 12B8"
    g.apply({"type": "bombard", "side": EN, "pieces": ["gas"], "target": "0502", "gec": True})
    assert any(ev["type"] == "gec" for ev in g.state.log)
    assert not artillery.gec_allowed_in_combat(
        P["gas"]
    )  # not again in the following combat segment


@pytest.mark.rules("OT 12B9")
def test_ot_12b9_artillery_division_bombards_whole_or_in_parts() -> None:
    g = game(
        pieces=[
            unit("axx", "art-xx-hq", "France", "0402", a=2, d=0, m=4, size="division"),
            unit("c1", "heavy-artillery", "France", "0402", a=6, division="axx"),
            unit("c2", "heavy-artillery", "France", "0402", a=6, division="axx"),
            division("x", "Germany", "0502"),
        ],
        cols=8,
        nrows=4,
        control={
            EN: [f"0{c}0{r}" for c in range(1, 5) for r in range(1, 5)],
            CP: [f"0{c}0{r}" for c in range(5, 9) for r in range(1, 5)],
        },
    )
    run_to(g, "bombardment-segment", EN)
    P = g.state.pieces
    assert [p.id for p in artillery.division_components(g, P["axx"])] == ["c1", "c2"]
    f = frame(g)
    whole = artillery.plan_bombardment(
        g, f, {"type": "bombard", "side": EN, "pieces": ["axx", "c1", "c2"], "target": "0502"}
    )
    parts = artillery.plan_bombardment(
        g, f, {"type": "bombard", "side": EN, "pieces": ["c1", "c2"], "target": "0502"}
    )
    assert (
        whole.strength - parts.strength == 2
    )  # the Art XX HQs' modifier counts only for the whole division
    with pytest.raises(IllegalAction):
        artillery.plan_bombardment(
            g, f, {"type": "bombard", "side": EN, "pieces": ["axx", "c1"], "target": "0502"}
        )


# ============================================================================ OT 12C bombardment
def bombard_game(**kw: object):
    ctl = {
        EN: [f"0{c}0{r}" for c in range(1, 5) for r in range(1, 5)],
        CP: [f"0{c}0{r}" for c in range(5, 9) for r in range(1, 5)],
    }
    pieces = [
        unit("h1", "heavy-artillery", "France", "0402", a=10, d=2),
        unit("h2", "heavy-artillery", "France", "0402", a=10, d=2),
        division("f", "France", "0402"),
        unit("gh", "heavy-artillery", "Germany", "0502", a=8, d=2),
        division("x", "Germany", "0502"),
        *SUPPORT,
    ]
    args = {"cols": 8, "nrows": 4, "control": ctl, "pieces": pieces}
    args.update(kw)
    g = game(**args)
    run_to(g, "bombardment-segment", EN)
    return g


@pytest.mark.rules("OT 12C", "OT 12C1", "OT 12C2", "OT 11D", "OT 11F")
def test_ot_12c_bombardment_then_counter_bombardment() -> None:
    g = bombard_game()
    acts = [a for a in g.legal_actions(EN) if a["type"] == "bombard"]
    assert acts and acts[0]["target"] == "0502"
    plan = artillery.plan_bombardment(
        g, frame(g), {"type": "bombard", "side": EN, "pieces": ["h1", "h2"], "target": "0502"}
    )
    assert (
        plan.strength == 20 and plan.column == "20"
    )  # in combat supply, in the ZOI of an Army HQs
    g2 = bombard_game(
        pieces=[
            unit("h1", "heavy-artillery", "France", "0402", a=10, d=2),
            division("x", "Germany", "0502"),
        ]
    )
    facs = artillery.bombard_factors(
        g2, g2.state.pieces["h1"], idx(g2, "0502"), in_combat_supply=False
    )
    assert (Fraction(1, 2), "OT 12C", "outside the ZOI of an Army HQs") in facs
    assert any(r == "OT 11F" for _f, r, _w in facs)
    g.apply({"type": "bombard", "side": EN, "pieces": ["h1", "h2"], "target": "0502"})
    while step_name(g) == "bombardment-hits":
        side = g.acting_sides()[0]
        acts = g.legal_actions(side)
        g.apply(next((a for a in acts if a["piece"] == "x"), acts[0]))  # spare the German artillery
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "bombard", "side": EN, "pieces": ["h1"], "target": "0502"})
    assert e.value.rule == "OT 12C1"  # once per combat phase
    assert artillery.BOMBARDED in g.state.pieces["h1"].status
    g.apply({"type": "end-phase", "side": EN})
    assert g.acting_sides() == [CP]  # counter-bombardment from the bombarded hex
    cp_acts = [a for a in g.legal_actions(CP) if a["type"] == "bombard"]
    assert cp_acts and cp_acts[0]["target"] == "0402"
    g.apply({"type": "end-phase", "side": CP})
    assert step_name(g) != "bombardment-segment"
    facs = artillery.combat_factors(g, g.state.pieces["h1"], idx(g, "0502"), "attack")
    assert (Fraction(1, 2), "OT 12C", "bombarded in this combat phase") in facs


@pytest.mark.rules("OT 12C")
def test_ot_12c_counter_bombardment_only_from_bombarded_hexes() -> None:
    g = bombard_game()
    g.apply({"type": "end-phase", "side": EN})
    assert step_name(g) != "bombardment-segment"  # nothing bombarded: no counter-bombardment


@pytest.mark.rules("OT 12C1", "OT 8B")
def test_ot_12c1_general_restrictions() -> None:
    g = bombard_game()
    f = frame(g)
    with pytest.raises(IllegalAction):
        artillery.plan_bombardment(
            g, f, {"type": "bombard", "side": EN, "pieces": ["h1"], "target": "0302"}
        )  # no enemy units
    with pytest.raises(IllegalAction):
        artillery.plan_bombardment(
            g, f, {"type": "bombard", "side": EN, "pieces": ["h1"], "target": "0702"}
        )  # out of range
    with pytest.raises(IllegalAction):
        artillery.plan_bombardment(
            g, f, {"type": "bombard", "side": EN, "pieces": ["f"], "target": "0502"}
        )  # not artillery
    with pytest.raises(IllegalAction):
        artillery.plan_bombardment(
            g, f, {"type": "bombard", "side": EN, "pieces": ["h1", "h1"], "target": "0502"}
        )
    many = [unit(f"a{k}", "field-artillery", "France", "0402", a=2) for k in range(11)]
    g2 = bombard_game(
        pieces=[*many, division("x", "Germany", "0502")],
        rows=["cccccccc", "ccccmccc", "cccccccc", "cccccccc"],
    )
    with pytest.raises(IllegalAction) as e:
        artillery.plan_bombardment(
            g2,
            frame(g2),
            {
                "type": "bombard",
                "side": EN,
                "pieces": [f"a{k}" for k in range(11)],
                "target": "0502",
            },
        )
    assert (
        e.value.rule == "OT 8B"
    )  # a mountain hex's stacking limit caps the bombarding units per hex
    artillery.plan_bombardment(
        g2,
        frame(g2),
        {"type": "bombard", "side": EN, "pieces": [f"a{k}" for k in range(10)], "target": "0502"},
    )


@pytest.mark.rules("OT 12C2")
def test_ot_12c2_fortification_check_example() -> None:
    """OT-G-103: strength 102 against a woods hex with an improved fortress (new), tactical recon,
    clear weather, die 4: 4+1 = 5 -> 4H* reduces the fortress to unimproved; then 4+1-1-1 = 3 -> 3H.
    """
    rows = ["cccccccc", "ccccwccc", "cccccccc", "cccccccc"]
    g = bombard_game(
        rows=rows, places=[("0502", "fortress", "F", {"state": "improved", "type": "new"})]
    )
    t = idx(g, "0502")
    force_dice(g, [4])
    res = artillery.resolve(g, EN, t, Fraction(102), tactical_recon=True)
    assert res.column == "100+" and res.fortification_result == "4H*" and res.reduced
    assert marker(g, "fortress-state", t) == "unimproved"
    assert res.result == "3H" and res.hits == 3


@pytest.mark.rules("OT 12C2")
def test_ot_12c2_column_is_highest_not_above_strength() -> None:
    """OT-G-104: strength 49 uses the column below 50 -- no fortification check is possible."""
    g = bombard_game(places=[("0502", "fortress", "F", {"state": "improved", "type": "new"})])
    assert artillery.bombardment_column(g, Fraction(49)) == "30"
    assert artillery.bombardment_column(g, Fraction(102)) == "100+"
    assert artillery.bombardment_column(g, Fraction(1, 2)) is None
    force_dice(g, [6])
    res = artillery.resolve(g, EN, idx(g, "0502"), Fraction(49))
    assert res.fortification_result is None and not res.reduced


@pytest.mark.rules("OT 12C3")
def test_ot_12c3_hit_allocation_example() -> None:
    """OT-G-105: 5 hits on a hex with a Corps HQs, an 8-11-5 and a 6-9-5 division, a disrupted
    brigade,
    a regiment and a battalion: the CP assigns 3 (2 to the 8-11-5: disrupted; 1 to the brigade:
    badly
    disrupted), the Entente 2 (1 to the 6-9-5: no effect; 1 to the battalion: badly disrupted); the
    Entente may not hit the Corps HQs."""
    ctl = {
        EN: [f"0{c}0{r}" for c in range(1, 5) for r in range(1, 5)],
        CP: [f"0{c}0{r}" for c in range(5, 9) for r in range(1, 5)],
    }
    corps = unit("chq", "corps-hq", "France", "0402", a=0, d=0, m=5, size="corps")
    pieces = [
        corps,
        division("d8", "France", "0402", a=8, d=11),
        division("d6", "France", "0402", a=6, d=9),
        unit("br", "rifle", "France", "0402", size="brigade"),
        unit("rg", "rifle", "France", "0402"),
        unit("bn", "rifle", "France", "0402", size="battalion"),
        unit("ga", "heavy-artillery", "Germany", "0502", a=9),
    ]
    g = game(cols=8, nrows=4, control=ctl, pieces=pieces)
    assert artillery.split_hits(5) == (3, 2)
    units.disrupt(g, g.state.pieces["br"])  # already disrupted
    g.push(
        "bombardment-hits",
        {
            "target": idx(g, "0402"),
            "owner": EN,
            "bombarder": CP,
            "left": {CP: 3, EN: 2},
            "order": [CP, EN],
            "received": {},
        },
    )
    g.advance()
    assert g.acting_sides() == [CP]
    assert "chq" in {
        a["piece"] for a in g.legal_actions(CP)
    }  # the bombarder may hit a 0-defense unit
    for pid in ("d8", "d8", "br"):
        g.apply({"type": "assign-hit", "side": CP, "piece": pid})
    assert g.acting_sides() == [EN]
    assert "chq" not in {a["piece"] for a in g.legal_actions(EN)}
    assert "br" not in {
        a["piece"] for a in g.legal_actions(EN)
    }  # badly disrupted units take no more hits
    with pytest.raises(IllegalAction):
        g.apply({"type": "assign-hit", "side": EN, "piece": "chq"})
    g.apply({"type": "assign-hit", "side": EN, "piece": "d6"})
    g.apply({"type": "assign-hit", "side": EN, "piece": "bn"})
    P = g.state.pieces
    assert (
        units.disruption(P["d8"]) == 1
        and units.disruption(P["br"]) == 2
        and units.disruption(P["d6"]) == 0
    )
    assert units.disruption(P["bn"]) == 2 and units.disruption(P["rg"]) == 0
    assert (
        artillery.hit_size_class(P["br"]) == "large"
        and artillery.hit_size_class(P["rg"]) == "small"
    )


@pytest.mark.rules("OT 12C3", "OT 8C2")
def test_ot_12c3_overstacked_units_only_when_the_rest_is_badly_disrupted() -> None:
    from grognard.rulesets.greatwar.movement.stacking import OVERSTACKED

    ctl = {EN: ["0101", "0102"], CP: ["0801"]}
    g = game(
        control=ctl,
        pieces=[unit("a", "rifle", "France", "0101"), unit("o", "rifle", "France", "0101")],
    )
    P = g.state.pieces
    P["o"].status.add(OVERSTACKED)
    i = idx(g, "0101")
    assert [p.id for p in artillery.hit_targets(g, i, EN, CP, {})] == ["a"]
    units.disrupt(g, P["a"], badly=True)
    assert [p.id for p in artillery.hit_targets(g, i, EN, CP, {})] == ["o"]


@pytest.mark.rules("OT 12C4", "OT 12C4a", "OT 12C4b")
def test_ot_12c4_air_points_and_monitors() -> None:
    """OT-G-106: 4 air points on a bombardment mission give a bombardment strength of 2."""
    g = bombard_game()
    gw(g)["air_points"] = {EN: 4}
    plan = artillery.plan_bombardment(
        g,
        frame(g),
        {"type": "bombard", "side": EN, "pieces": [], "target": "0502", "air_points": 4},
    )
    assert plan.strength == 2 and plan.details["air points"] == 2
    with pytest.raises(IllegalAction):
        artillery.plan_bombardment(
            g,
            frame(g),
            {"type": "bombard", "side": EN, "pieces": [], "target": "0502", "air_points": 5},
        )
    g2 = bombard_game(options={"advanced-air": True})
    gw(g2)["air_points"] = {EN: 4}
    with pytest.raises(IllegalAction) as e:
        artillery.plan_bombardment(
            g2,
            frame(g2),
            {"type": "bombard", "side": EN, "pieces": [], "target": "0502", "air_points": 4},
        )
    assert e.value.rule == "OT 12C4b"
    assert artillery.bombardment_forms(g2) == {
        "air_points": False,
        "monitors": True,
        "aerial_missions": True,
        "naval_bombardment": False,
    }
    ctl = {
        EN: [f"0{c}0{r}" for c in range(1, 5) for r in range(1, 5)],
        CP: [f"0{c}0{r}" for c in range(5, 9) for r in range(1, 5)],
    }
    g3 = game(
        cols=8,
        nrows=4,
        control=ctl,
        pieces=[
            unit("mt", "monitor", "France", "0402", a=6, d=2, m="W"),
            division("x", "Germany", "0502"),
        ],
    )
    run_to(g3, "bombardment-segment", EN)
    assert (
        artillery.plan_bombardment(
            g3, frame(g3), {"type": "bombard", "side": EN, "pieces": ["mt"], "target": "0502"}
        ).strength
        > 0
    )


@pytest.mark.rules("OT 12C5")
def test_ot_12c5_terror_bombardment() -> None:
    ctl = {
        EN: [f"0{c}0{r}" for c in range(1, 5) for r in range(1, 5)],
        CP: [f"0{c}0{r}" for c in range(5, 9) for r in range(1, 5)],
    }
    areas = [
        {
            "name": "Germany",
            "kind": "nation",
            "hexes": [f"0{c}0{r}" for c in range(5, 9) for r in range(1, 5)],
        }
    ]
    g = game(
        cols=8,
        nrows=4,
        control=ctl,
        areas=areas,
        places=[("0502", "partial-city", "Metz")],
        pieces=[unit("lr", "heavy-artillery", "France", "0402", a=20, d=2)],
    )
    run_to(g, "bombardment-segment", EN)
    force_dice(g, [6])
    g.apply({"type": "bombard", "side": EN, "pieces": ["lr"], "target": "0502", "terror": True})
    assert gw(g)["morale_hits"]["Germany"] >= 1
    with pytest.raises(IllegalAction):
        artillery.plan_bombardment(
            g,
            frame(g),
            {"type": "bombard", "side": EN, "pieces": ["lr"], "target": "0501", "terror": True},
        )
    end(g)
