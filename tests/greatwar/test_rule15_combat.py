"""The combat side of Rules 14 and 15: infantry, mountain/infantry, rifle assault and adverse
terrain capabilities (14H1-14H3, 14R, 15C), morale (15D), cooperation (15E) and the CRT choice,
modifiers, conversions and loss rules the combat segment uses (OT-S 5, 6, 21-24, 46, 56-58, 65-67).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.state import Loc, Piece
from grognard.rulesets.greatwar import special_rules
from grognard.rulesets.greatwar.logistics import reinforcements
from grognard.rulesets.greatwar.mechanics import gw
from grognard.rulesets.greatwar.units import special_units, units
from grognard.rulesets.greatwar.units.special_units import CombatSituation

from .helpers import CP, EN, force_dice, game, idx

NATIONS = {
    "France": EN,
    "Germany": CP,
    "Britain": EN,
    "Belgium": EN,
    "Serbia": EN,
    "USA": EN,
    "Italy": EN,
    "Austria-Hungary": CP,
    "Russia": EN,
}


def _g(**kw):
    kw.setdefault("nations", NATIONS)
    return game(pieces=kw.pop("pieces", []), **kw)


def add(
    g, pid: str, typ: str, nation: str, at: str, a=2, d=2, m=5, size="regiment", side=None
) -> Piece:
    side = side or (CP if nation in ("Germany", "Austria-Hungary") else EN)
    p = Piece(
        pid,
        typ,
        side,
        nation,
        "front",
        Loc.hex(idx(g, at)),
        set(),
        {"size": size},
        {"front": {"attack": a, "defense": d, "move": m}},
    )
    g.state.add_piece(p)
    return p


# ============================================================================ 14H
@pytest.mark.rules("OT 14H1")
def test_ot_14h1_infantry_capable_threshold() -> None:
    """OT-S-56: 3 RE infantry, 3 RE rifle, 2 RE artillery: 3/6, capable; 2.5 RE infantry and 3 RE
    rifle: not."""
    g = _g()
    inf = [add(g, f"i{k}", "infantry", "Germany", "0503") for k in range(3)]
    rif = [add(g, f"r{k}", "rifle", "Germany", "0503") for k in range(3)]
    art = [add(g, f"a{k}", "field-artillery", "Germany", "0503") for k in range(2)]
    assert special_rules.infantry_capable(g, inf + rif + art)
    half = add(g, "ib", "infantry", "Germany", "0503", size="battalion")
    assert not special_rules.infantry_capable(g, [*inf[:2], half, *rif])


@pytest.mark.rules("OT 14H1")
def test_ot_14h1_effects_column_drm_conversions() -> None:
    """OT-S-57: a 9:1 attack is resolved at 6:1 unless the attacker is infantry-capable; OT-S-5:
    the fort modifier is -2, -1 against an infantry-capable attacker (FEC)."""
    g = _g()
    att_inf = [add(g, "i", "infantry", "Germany", "0503")]
    att_rif = [add(g, "r", "rifle", "Germany", "0503")]
    dfn_inf = [add(g, "fi", "infantry", "France", "0403")]
    t = idx(g, "0403")
    sit = CombatSituation(att_inf, dfn_inf, t, "mobile")
    assert special_rules.mobile_column_cap(g, sit) == 9
    assert special_rules.mobile_column_cap(g, CombatSituation(att_rif, dfn_inf, t, "mobile")) == 6
    m = special_rules.combat_drms(g, sit)
    assert {(x.rule, x.value) for x in m} >= {("OT 14H1", 1), ("OT 14H1", -1)}
    assert (
        special_rules.convert_result(g, sit, "AQ") == "AS"
        and special_rules.convert_result(g, sit, "BX") == "BXM"
    )
    plain = CombatSituation(att_rif, [add(g, "fr", "rifle", "France", "0403")], t, "mobile")
    assert (
        special_rules.convert_result(g, plain, "AQ") == "AQ"
        and special_rules.convert_result(g, plain, "BX") == "BX"
    )
    g.state.set_marker("fortification", t, "fort")
    assert (
        special_rules.crt_choice(g, plain)[0] == "positional"
        and special_rules.crt_choice(g, sit)[0] == "mobile"
    )
    from grognard.rulesets.greatwar.combat import combat_strength

    eff = combat_strength.fec_effect(g, combat_strength.works(g, t))
    assert eff is not None and eff.drm == -2 and eff.drm_vs_infantry == -1


@pytest.mark.rules("OT 14H2")
def test_ot_14h2_mountain_infantry_capability() -> None:
    """OT-S-6: mountain/infantry-capable but not infantry-capable gives no +1; OT-S-58: in a
    mountain hex without works the only capable side chooses the CRT, and with both capable OT 9A
    decides."""
    g = _g(rows=["cccccccc"] * 2 + ["ccccmccc"] + ["cccccccc"] * 3)
    mtn_att = [add(g, "m", "mountain-rifle", "Germany", "0503")]
    rif_def = [add(g, "fr", "rifle", "France", "0403")]
    mtn_def = [add(g, "fm", "mountain-rifle", "France", "0403")]
    rif_att = [add(g, "gr", "rifle", "Germany", "0503")]
    t = idx(g, "0503") if g.board.terrain_of(idx(g, "0503")) == "mountain" else None
    assert t is not None
    sit = CombatSituation(
        rif_def, mtn_att, t
    )  # the French attack the mountain hex held by mountain troops
    caps = special_rules.capabilities(g, sit, "defense")
    assert caps.mountain_infantry and not caps.infantry
    assert special_rules.crt_choice(g, sit) == ("positional", CP)
    both = CombatSituation(mtn_def, mtn_att, t)
    assert special_rules.crt_choice(g, both) == ("positional", None)
    s2 = CombatSituation(mtn_def, rif_att, t)
    assert not any(x.rule == "OT 14H1" for x in special_rules.combat_drms(g, s2))


@pytest.mark.rules("OT 14H3", "OT 14R", "OT 14L")
def test_ot_14h3_14r_14l_loss_rules() -> None:
    g = _g(nations=NATIONS)
    inf = add(g, "i", "infantry", "Germany", "0503")
    rif = add(g, "r", "rifle", "Germany", "0503", size="battalion")
    irr = add(g, "ir", "irregular-rifle", "Germany", "0503", size="battalion")
    dfn = [add(g, "f", "rifle", "France", "0403")]
    rules = special_rules.loss_rules(
        g, CombatSituation([inf, rif, irr], dfn, idx(g, "0403"), "mobile"), "attack"
    )
    assert {"rule": "OT 14H3", "share": Fraction(1, 2), "pieces": ["i"]} in rules
    assert {"rule": "OT 14L", "last": True, "pieces": ["ir"]} in rules
    ra = [add(g, f"ra{k}", "rifle-assault", "USA", "0303", side=EN) for k in range(2)]
    eng = add(g, "ce", "combat-engineer", "USA", "0303", side=EN)
    sit = CombatSituation([*ra, eng], [inf], idx(g, "0503"), "positional")
    assert special_rules.capabilities(g, sit, "attack").rifle_assault
    assert any(x.rule == "OT 14R" and x.value == 1 for x in special_rules.combat_drms(g, sit))
    assert special_rules.convert_result(g, sit, "DX") == "DXM"
    assert {
        "rule": "OT 14R",
        "share": Fraction(1, 2),
        "pieces": ["ra0", "ra1"],
    } in special_rules.loss_rules(g, sit, "attack")
    assert (
        special_rules.convert_result(
            g, CombatSituation([*ra, eng], [inf], idx(g, "0503"), "mobile"), "DX"
        )
        == "DX"
    )


@pytest.mark.rules("OT 15C")
def test_ot_15c_adverse_terrain_example() -> None:
    """OT-S-21: into wooded rough in winter, 2 mountain rifle brigades, a light rifle brigade, 2
    rifle regiments and 3 artillery regiments: 4 of 8 counted RE qualify: +1, and at least half the
    losses from the mountain brigades."""
    g = _g(
        rows=["cccccccc"] * 2 + ["cccWcccc"] + ["cccccccc"] * 3,
        turns=[("Jan I 15", {"weather": "winter"})],
    )
    t = idx(g, "0403")
    assert g.board.terrain_of(t) == "wooded-rough"
    att = [
        add(g, "m1", "mountain-rifle", "Germany", "0503", size="brigade"),
        add(g, "m2", "mountain-rifle", "Germany", "0503", size="brigade"),
        add(g, "l1", "light-rifle", "Germany", "0503", size="brigade"),
        add(g, "r1", "rifle", "Germany", "0503"),
        add(g, "r2", "rifle", "Germany", "0503"),
    ] + [add(g, f"a{k}", "field-artillery", "Germany", "0503") for k in range(3)]
    sit = CombatSituation(att, [add(g, "f", "rifle", "France", "0403")], t, "mobile")
    assert [p.id for p in att if special_rules.adverse_terrain_unit(g, p, t)] == ["m1", "m2"]
    assert special_rules.capabilities(g, sit, "attack").adverse_terrain
    assert any(x.rule == "OT 15C" and x.value == 1 for x in special_rules.combat_drms(g, sit))
    assert {
        "rule": "OT 15C",
        "share": Fraction(1, 2),
        "pieces": ["m1", "m2"],
    } in special_rules.loss_rules(g, sit, "attack")
    pos = CombatSituation(att, sit.defenders, t, "positional")
    assert not any(x.rule == "OT 15C" for x in special_rules.combat_drms(g, pos))


# ============================================================================ 15D
@pytest.mark.rules("OT 15D1")
def test_ot_15d1_side_nw_and_morale_advantage() -> None:
    """OT-S-22: French NW 3 and Belgian NW 1: the Entente's NW in the combat is 1."""
    g = _g()
    gw(g)["nw"] = {"France": 3, "Belgium": 1, "Germany": 2}
    fr, be = add(g, "fr", "rifle", "France", "0403"), add(g, "be", "rifle", "Belgium", "0403")
    ge = add(g, "ge", "rifle", "Germany", "0503")
    assert special_rules.side_nw(g, [fr, be]) == 1
    assert special_rules.morale_drm(g, CombatSituation([ge], [fr, be], idx(g, "0403"))) == 1
    assert special_rules.morale_drm(g, CombatSituation([ge], [fr], idx(g, "0403"))) == -1
    gw(g)["nw"]["Germany"] = 3
    assert special_rules.morale_drm(g, CombatSituation([ge], [fr], idx(g, "0403"))) == 0


@pytest.mark.rules("OT 15D2")
def test_ot_15d2_home_advantage() -> None:
    """OT-S-23 / OT-S-65: units of a great or major power within 3 hexes of their natural capital
    get +2 NW (none at 4), a minor power's within 1 hex +1 (none at 2); even if the capital is
    enemy-owned."""
    g = _g()
    g.scenario.data.nations["France"].attrs["capital"] = ["0101", "0102"]
    g.scenario.data.nations["Belgium"].attrs["capital"] = ["0801"]
    g.state.control[idx(g, "0101")] = CP
    assert special_rules.home_bonus(g, add(g, "a", "rifle", "France", "0401")) == 2
    assert special_rules.home_bonus(g, add(g, "b", "rifle", "France", "0501")) == 0
    assert special_rules.home_bonus(g, add(g, "c", "rifle", "Belgium", "0701")) == 1
    assert special_rules.home_bonus(g, add(g, "d", "rifle", "Belgium", "0601")) == 0
    gw(g)["nw"] = {"France": 2}
    assert special_rules.side_nw(g, [g.state.pieces["a"]]) == 4


@pytest.mark.rules("OT 15D3")
def test_ot_15d3_unreliable_units() -> None:
    g = _g()
    gw(g)["nation_flags"] = {"Austria-Hungary": {"shaken": True}, "Serbia": {"collapse": True}}
    ah = add(g, "ah", "rifle", "Austria-Hungary", "0503")
    se = add(g, "se", "rifle", "Serbia", "0403")
    assert special_rules.unreliable(g, ah, "attack") and not special_rules.unreliable(
        g, ah, "defense"
    )
    assert special_rules.unreliable(g, se, "defense")
    force_dice(g, [3, 5])
    special_rules.declaration_checks(g, CombatSituation([ah], [se], idx(g, "0403")))
    assert units.disruption(ah) == 1 and units.disruption(se) == 0


@pytest.mark.rules("OT 14C2")
def test_ot_14c2_tank_checked_when_combat_declared() -> None:
    g = _g()
    tk = Piece(
        "tk",
        "tank",
        CP,
        "Germany",
        "front",
        Loc.hex(idx(g, "0503")),
        set(),
        {"size": "battalion"},
        {
            "front": {"attack": 2, "defense": 2, "move": 6},
            "disabled": {"attack": 0, "defense": 0, "move": 0},
        },
    )
    g.state.add_piece(tk)
    force_dice(g, [1])
    special_rules.declaration_checks(
        g, CombatSituation([tk], [add(g, "f", "rifle", "France", "0403")], idx(g, "0403"))
    )
    assert units.disruption(tk) == 2


# ============================================================================ 15E
@pytest.mark.rules("OT 15E1", "OT 15E3")
def test_ot_15e1_15e3_cooperation_and_its_modifiers() -> None:
    """OT-S-66: British and French attacking together -1; Belgian and French none; Belgian and
    Serbian -1 (minor powers do not cooperate with each other)."""
    g = _g()
    assert not special_rules.cooperate(g, "Britain", "France") and special_rules.cooperate(
        g, "Belgium", "France"
    )
    assert not special_rules.cooperate(g, "Belgium", "Serbia") and special_rules.cooperate(
        g, "Austria-Hungary", "Germany"
    )
    target = [add(g, "ge", "rifle", "Germany", "0503")]
    t = idx(g, "0503")

    calls = []

    def drm(*nations):
        calls.append(1)
        ps = [add(g, f"u{len(calls)}{n}{k}", "rifle", n, "0403") for k, n in enumerate(nations)]
        return sum(
            x.value
            for x in special_rules.combat_drms(g, CombatSituation(ps, target, t))
            if x.rule == "OT 15E3"
        )

    assert drm("Britain", "France") == -1
    assert drm("Belgium", "France") == 0
    assert drm("Belgium", "Serbia") == -1
    d = [add(g, "ah", "rifle", "Austria-Hungary", "0503"), add(g, "gx", "rifle", "Germany", "0503")]
    assert (
        sum(
            x.value
            for x in special_rules.combat_drms(
                g, CombatSituation([add(g, "fz", "rifle", "France", "0403")], d, t)
            )
            if x.rule == "OT 15E3"
        )
        == 0
    )
    br, fr = g.state.pieces["u1Britain0"], g.state.pieces["u1France1"]
    assert not special_rules.may_support(g, br, fr) and not special_rules.may_combine(g, [br, fr])
    assert not special_rules.air_naval_support_allowed(g, "Britain", [fr])


@pytest.mark.rules("OT 15E3")
def test_ot_15e3_no_pooling_for_capabilities() -> None:
    g = _g()
    br = add(g, "br", "infantry", "Britain", "0403")
    fr = add(g, "fr", "infantry", "France", "0403")
    it = add(g, "it", "rifle", "Italy", "0403", size="brigade")
    assert not special_rules.infantry_capable(g, [br, fr, it])  # 1 + 1 of 4, never pooled
    gw(g)["unified_command"] = True
    assert special_rules.infantry_capable(g, [br, fr, it])


@pytest.mark.rules("OT 15E2")
def test_ot_15e2_supply_cooperation() -> None:
    """OT-S-24 / OT-S-46: up to 15 RE each of British, Italian and Russian units may trace to French
    regular sources; the USA cooperates with France for supply."""
    g = _g()
    for n in ("Britain", "Italy", "Russia"):
        assert special_rules.supply_cooperation_cap(g, n, "France") == 15
    assert special_rules.supply_cooperation_cap(g, "USA", "France") is None
    assert special_rules.supply_cooperation_cap(g, "Belgium", "France") is None
    assert special_rules.supply_cooperation_cap(g, "Germany", "France") == 0
    assert not special_rules.cooperate(g, "USA", "France")  # for combat they do not


@pytest.mark.rules("OT 15E4")
def test_ot_15e4_unified_command() -> None:
    """OT-S-67: no roll until CR 11 and CR 25 are both triggered; then a 6 makes it permanent."""
    g = _g()
    reinforcements.trigger_cr(g, EN, 11)
    n = g.state.dice_counter
    special_rules.unified_command_roll(g, EN)
    assert g.state.dice_counter == n
    reinforcements.trigger_cr(g, EN, 25)
    force_dice(g, [5])
    special_rules.unified_command_roll(g, EN)
    assert not special_rules.unified_command(g)
    force_dice(g, [6])
    special_rules.unified_command_roll(g, EN)
    assert special_rules.unified_command(g) and special_rules.cooperate(g, "Britain", "France")
    assert special_rules.supply_cooperation_cap(g, "Britain", "France") == 15  # supply unchanged
    assert special_units.is_infantry is not None
