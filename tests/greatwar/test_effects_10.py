"""OT 10: special combat effects -- the procedure and the rulebook's example (10), armor/antitank
(10A), cavalry (10B), engineers (10C), gas (10D) and siege (10E) effects capabilities."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.greatwar.combat import effects
from grognard.rulesets.greatwar.combat.combat import new_record
from grognard.rulesets.greatwar.combat.combat_strength import compute
from grognard.rulesets.greatwar.mechanics import set_marker

from .helpers import division, force_dice, frame, idx, run_to, unit
from .test_combat_support import (
    CP,
    EN,
    all_supplied,  # noqa: F401
    crt_table,
    drive,
    game_with,
    pending,
    rec_of,
)
from .test_combat_support import attack as declare

pytestmark = pytest.mark.usefixtures("all_supplied")


def to_segment(g):
    for _ in range(50):
        if pending(g) == "combat-segment":
            return frame(g)
        g.apply(
            next(
                a
                for a in g.legal_actions(g.acting_sides()[0])
                if a["type"] in ("end-phase", "done", "decline")
            )
        )
    raise AssertionError(g.phase_path())


def record(g, target, attackers, crt=None):
    rec = new_record(
        g, to_segment(g), {"type": "attack", "side": EN, "target": target, "attackers": attackers}
    )
    rec["crt"] = crt or rec["crt"] or "positional"
    return rec


def to_effects(g, side):
    for _ in range(20):
        if pending(g) == "combat-effects" and frame(g).params["side"] == side:
            return frame(g)
        g.apply(
            next(
                a for a in g.legal_actions(g.acting_sides()[0]) if a["type"] in ("done", "decline")
            )
        )
    raise AssertionError(g.phase_path())


def reg(pid, typ, nation, at, a=1, d=1, m=5, size="regiment"):
    return unit(pid, typ, nation, at, a=a, d=d, m=m, size=size)


# ==================================================================== OT 10: the rulebook's example
@pytest.mark.rules("OT 10", "OT 10C", "OT 10D", "OT 10E")
def test_ot_10_ot_g_75_the_example() -> None:
    """OT-G-75: 1916, German units in a full city with a fort: 3:1, -3. The attacker makes two EEC
    attempts (two combat engineer regiments; one) and an SEC attempt (a siege engineer brigade), the
    defender a GEC attempt (a gas engineer regiment). Rolls: EEC 5+1 = 6 success; EEC 2 disastrous,
    the regiment is eliminated; SEC 5+1 = 6 asterisked, column roll 5: shift; GEC 6 asterisked,
    column roll 6: shift. Interim 4:1, -1; final 3:1, -2."""
    g = game_with(
        turns=(("Mar I 16", {}),),
        places=[("0503", "full-city", "Town")],
        pieces=[
            division("f1", "France", "0403", a=28),
            reg("ce1", "combat-engineer", "France", "0403"),
            reg("ce2", "combat-engineer", "France", "0403"),
            reg("ce3", "combat-engineer", "France", "0403"),
            reg("se", "siege-engineer", "France", "0403", a=2, size="brigade"),
            unit("rp", "res-pt", "France", "0403", size="", faces={}),
            division("g1", "Germany", "0503", d=10),
            reg("ge", "gas-engineer", "Germany", "0503"),
        ],
    )
    set_marker(g, "fortification", idx(g, "0503"), "fort")
    rec = record(g, "0503", ["f1", "ce1", "ce2", "ce3", "se"])
    c = compute(g, rec)
    assert c.column == "3:1" and c.drm == -3
    declare(g, "0503", ["f1", "ce1", "ce2", "ce3", "se"])
    to_effects(g, EN)
    g.apply({"type": "attempt", "side": EN, "capability": "EEC", "pieces": ["ce1", "ce2"]})
    g.apply({"type": "attempt", "side": EN, "capability": "EEC", "pieces": ["ce3"]})
    g.apply({"type": "attempt", "side": EN, "capability": "SEC", "pieces": ["se"]})
    if pending(g) == "combat-effects" and frame(g).params["side"] == EN:
        g.apply({"type": "done", "side": EN})
    to_effects(g, CP)
    force_dice(g, [5, 2, 5, 5, 6, 6])
    g.apply({"type": "attempt", "side": CP, "capability": "GEC", "pieces": ["ge"]})
    if pending(g) == "combat-effects":
        g.apply({"type": "done", "side": CP})
    rec = rec_of(g)
    assert [a["result"] for a in rec["attempts"]["attacker"]] == ["S", "F*", "S*"]
    assert [a["result"] for a in rec["attempts"]["defender"]] == ["S*"]
    assert g.state.pieces["ce3"].loc == Loc.box("eliminated")
    assert all(g.state.pieces[p].loc.kind == "hex" for p in ("ce1", "ce2", "se"))
    assert g.state.pieces["rp"].loc.kind != "hex"  # the Res Pt was spent for the SEC attempt
    c = compute(g, rec)
    assert c.column == "3:1" and c.drm == -2
    assert set(rec["effect_success"]["attacker"]) == {"EEC", "SEC"} and "defender" not in rec.get(
        "effect_success", {}
    )


@pytest.mark.rules("OT 10", "OT 10A", "OT 9D")
def test_ot_10_ot_g_76_first_re_from_capable_units() -> None:
    g = game_with(
        tables={"mobile-crt": crt_table("EX")},
        pieces=[
            division("f1", "France", "0403", a=20),
            unit("tb", "light-tank", "France", "0403", a=1, d=1, m=6, size="battalion"),
            unit("tk", "tank", "France", "0403", a=4, d=4, m=6, size="brigade"),
            division("g1", "Germany", "0503", a=1, d=6),
        ],
    )
    declare(g, "0503", ["f1", "tb", "tk"])
    to_effects(g, EN)
    force_dice(g, [5])
    g.apply({"type": "attempt", "side": EN, "capability": "AECA", "pieces": ["tb", "tk"]})
    drive(g, until="combat-losses")
    f = frame(g)
    assert f.params["side"] == EN and f.params["first_re"] == {"AECA": ["tb", "tk"]}
    assert f.params["taken"] == [
        "tk"
    ]  # the only allowed first loss: the battalion alone cannot make up 1 RE
    assert {a["piece"] for a in g.legal_actions(EN)} == {"f1", "tb"}


# ============================================================================ OT 10A
@pytest.mark.rules("OT 10A")
def test_ot_10a_ot_g_77_attempt_size_and_weather() -> None:
    for weather, size in (("clear", 2), ("winter", 1), ("snow", 1)):
        g = game_with(
            turns=(("Mar I 17", {"weather": weather}),),
            pieces=[
                reg("tr", "tank", "France", "0403", a=2, d=2, m=6),
                reg("et1", "engineer-tank", "France", "0403", a=1, d=1, m=6),
                reg("et2", "engineer-tank", "France", "0403", a=1, d=1, m=6),
                division("g1", "Germany", "0503"),
            ],
        )
        rec = record(g, "0503", ["tr", "et1", "et2"], "mobile")
        ps = [g.state.pieces[i] for i in ("tr", "et1", "et2")]
        assert effects.attempt_size(g, rec, ps, "AECA") == size
    g = game_with(
        turns=(("Mar I 17", {"weather": "mud"}),),
        pieces=[
            reg("tr", "tank", "France", "0403", a=2, d=2, m=6),
            division("g1", "Germany", "0503"),
        ],
    )
    rec = record(g, "0503", ["tr"], "mobile")
    assert "mud" in effects.unit_can_attempt(g, rec, g.state.pieces["tr"], "AECA", "attacker")


@pytest.mark.rules("OT 10A")
def test_ot_10a_ot_g_78_79_atec_limits() -> None:
    g = game_with(
        pieces=[
            reg("t1", "tank", "France", "0403", m=6),
            reg("t2", "engineer-tank", "France", "0403", m=6),
            reg("t3", "engineer-tank", "France", "0403", m=6),
            reg("t4", "tank", "France", "0402", m=6),
            division("g1", "Germany", "0503"),
            reg("at", "antitank", "Germany", "0503"),
        ]
    )
    rec = record(g, "0503", ["t1", "t2", "t3"], "mobile")
    assert effects.atec_limit(g, rec) == 3  # raw 3 RE -> min(3 + 1, 3)
    rec1 = record(g, "0503", ["t4"], "mobile")
    assert effects.atec_limit(g, rec1) == 2
    assert effects.capability_open(
        g, rec, "AECD", "defender", [{"capability": "ATEC", "pieces": ["at"]}]
    )
    assert effects.capability_open(
        g, rec, "ATEC", "defender", [{"capability": "AECD", "pieces": ["x"]}]
    )
    rec0 = record(g, "0503", ["t4"], "mobile")
    rec0["attackers"] = []
    assert effects.atec_limit(g, rec0) == 0


@pytest.mark.rules("OT 10A", "OT 9H")
def test_ot_10a_no_aec_terrain() -> None:
    g = game_with(
        rows=["cccccccc", "cccccccc", "ccccfccc"],
        pieces=[reg("tk", "tank", "France", "0403", m=6), division("g1", "Germany", "0503")],
    )
    rec = record(g, "0503", ["tk"], "mobile")
    assert "terrain" in effects.unit_can_attempt(g, rec, g.state.pieces["tk"], "AECA", "attacker")


# ============================================================================ OT 10B
@pytest.mark.rules("OT 10B")
def test_ot_10b_cavalry_charges() -> None:
    g = game_with(
        rows=["cccccccc", "cccccccc", "ccccfccc"],
        pieces=[
            reg("hc", "heavy-cavalry", "France", "0403", a=3, d=2, m=7, size="brigade"),
            division("g1", "Germany", "0503"),
        ],
    )
    rec = record(g, "0503", ["hc"], "mobile")
    assert effects.capability_open(g, rec, "CEC", "attacker", []) is None
    mods = effects.attempt_modifiers(g, rec, [g.state.pieces["hc"]], "CEC", "attacker")
    assert any(m.value == -3 for m in mods)  # a charge where no armor effects are possible
    rec["crt"] = "positional"
    assert "Mobile" in effects.capability_open(g, rec, "CEC", "attacker", [])


# ============================================================================ OT 10C
@pytest.mark.rules("OT 10C", "OT 13E")
def test_ot_10c_ot_g_80_assault_engineers() -> None:
    g = game_with(
        places=[("0503", "full-city", "Town")],
        pieces=[
            reg("ae", "assault-engineer", "France", "0403", a=1, d=2, m=5),
            division("g1", "Germany", "0503"),
        ],
    )
    rec = record(g, "0503", ["ae"])
    c = compute(g, rec)
    assert c.attack_lines[0].value == 2
    assert effects.attempt_size(g, rec, [g.state.pieces["ae"]], "EEC") == 2
    g2 = game_with(
        pieces=[reg("ce", "combat-engineer", "France", "0403"), division("g1", "Germany", "0503")]
    )
    assert effects.capability_open(
        g2, record(g2, "0503", ["ce"], "mobile"), "EEC", "attacker", []
    )  # no city or fortification


@pytest.mark.rules("OT 10", "OT 10A", "OT 10C", "OT 10D", "OT 10E")
def test_ot_10_ot_g_81_attempt_limits() -> None:
    g = game_with(
        places=[("0503", "full-city", "Town")],
        pieces=[division("f1", "France", "0403"), division("g1", "Germany", "0503")],
    )
    rec = record(g, "0503", ["f1"])
    two = [{"capability": "EEC", "pieces": []}] * 2
    assert effects.capability_open(g, rec, "EEC", "attacker", two[:1]) is None
    assert effects.capability_open(g, rec, "EEC", "attacker", two)
    assert effects.capability_open(
        g, rec, "AECA", "attacker", [{"capability": "AECA", "pieces": []}] * 2
    )
    assert effects.capability_open(g, rec, "SEC", "attacker", [{"capability": "SEC", "pieces": []}])
    assert effects.capability_open(g, rec, "GEC", "attacker", [{"capability": "GEC", "pieces": []}])
    assert effects.capability_open(g, rec, "GEC", "defender", []) is None
    assert effects.capability_open(
        g, rec, "AECD", "defender", [{"capability": "AECD", "pieces": []}]
    )
    assert effects.capability_open(g, rec, "EEC", "defender", [])  # EEC is the attacker's
    assert effects.MAX_ATTEMPTS == {
        "AECA": 2,
        "AECD": 1,
        "CEC": 1,
        "EEC": 2,
        "GEC": 1,
        "SEC": 1,
        "ATEC": 3,
    }


# ============================================================================ OT 10D
@pytest.mark.rules("OT 10D")
def test_ot_10d_gas_never_eliminated_and_bonus() -> None:
    g = game_with(
        nations={"France": EN, "Germany": CP, "Italy": EN},
        pieces=[
            division("f1", "France", "0403"),
            reg("gs", "gas-engineer", "Germany", "0503"),
            division("g1", "Germany", "0503"),
            division("it", "Italy", "0402"),
            reg("gs2", "gas-engineer", "Germany", "0502"),
            division("g2", "Germany", "0502"),
        ],
    )
    rec = record(g, "0502", ["it"], "mobile")
    mods = effects.attempt_modifiers(g, rec, [g.state.pieces["gs2"]], "GEC", "defender")
    assert any(m.rule == "OT 10D" and m.value == 1 for m in mods)
    declare(g, "0503", ["f1"])
    to_effects(g, CP)
    force_dice(g, [1])
    g.apply({"type": "attempt", "side": CP, "capability": "GEC", "pieces": ["gs"]})
    assert g.state.pieces["gs"].loc.kind == "hex"


# ============================================================================ OT 10E
@pytest.mark.rules("OT 10E")
def test_ot_10e_siege_engineers_need_a_res_pt_and_no_move() -> None:
    g = game_with(
        places=[("0503", "full-city", "Town")],
        pieces=[
            reg("se", "siege-engineer", "France", "0403", a=2, size="brigade"),
            division("f1", "France", "0403"),
            division("g1", "Germany", "0503"),
        ],
    )
    rec = record(g, "0503", ["f1", "se"])
    assert effects.unit_can_attempt(g, rec, g.state.pieces["se"], "SEC", "attacker") is None
    assert (
        effects.res_pt_for(g, EN, [g.state.pieces["se"]]) is None
    )  # no Res Pt to spend: no SEC attempt
    g3 = game_with(
        places=[("0503", "full-city", "Town")],
        pieces=[
            reg("se", "siege-engineer", "France", "0403", a=2, size="brigade"),
            division("f1", "France", "0403"),
            unit("rp", "res-pt", "France", "0403", size="", faces={}),
            division("g1", "Germany", "0503"),
        ],
    )
    declare(g3, "0503", ["f1", "se"])
    to_effects(g3, EN)
    assert {
        "type": "attempt",
        "side": EN,
        "capability": "SEC",
        "pieces": ["se"],
    } in g3.legal_actions(EN)
    with pytest.raises(IllegalAction):
        g3.apply({"type": "attempt", "side": EN, "capability": "SEC", "pieces": ["f1"]})
    g2 = game_with(
        places=[("0503", "full-city", "Town")],
        pieces=[
            reg("se", "siege-engineer", "France", "0402", a=2, size="brigade"),
            division("f1", "France", "0403"),
            unit("rp", "res-pt", "France", "0403", size="", faces={}),
            division("g1", "Germany", "0503"),
        ],
    )
    run_to(g2, "ground-movement", EN)
    g2.apply({"type": "move", "side": EN, "piece": "se", "path": ["0403"]})
    rec = record(g2, "0503", ["f1", "se"])
    assert "moved" in effects.unit_can_attempt(g2, rec, g2.state.pieces["se"], "SEC", "attacker")
    assert effects.attempt_size(g2, rec, [g2.state.pieces["se"]], "SEC") == Fraction(2)
