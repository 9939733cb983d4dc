"""OT 9C (combat results: 9C1 Mobile, 9C2 Positional), 9D (losses) and 9E (cadres and remnants).

Each result is reached through the whole combat procedure with a user CRT whose every cell is that
result (the ``[tables]`` override mechanism), so the tests exercise the rule code end to end."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grognard.core.state import Loc
from grognard.rulesets.greatwar.combat import combat_results
from grognard.rulesets.greatwar.mechanics import set_marker

from .helpers import army_hq, division, frame, idx, unit
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


def result_game(code: str, pieces, positional: bool = False, fort: str | None = None, **kw):
    tables = {"positional-crt" if positional else "mobile-crt": crt_table(code, positional)}
    g = game_with(tables=tables, pieces=pieces, **kw)
    if fort:
        set_marker(g, "fortification", idx(g, "0503"), fort)
    return g


def attack(g, target, attackers, **kw):
    declare(g, target, attackers, **kw)
    resolve(g)


def to_losses(g, side):
    """Answer decline/done until the loss step of ``side`` waits for a choice (None if the combat
    ended first: a loss with a single possible unit is taken at once)."""
    for _ in range(50):
        if pending(g) == "combat-losses" and frame(g).params["side"] == side:
            return frame(g)
        if pending(g) == "combat-segment" or not g.acting_sides():
            return None
        acts = g.legal_actions(g.acting_sides()[0])
        g.apply(next((a for a in acts if a["type"] in ("done", "decline")), acts[0]))
    raise AssertionError(g.phase_path())


def resolve(g):
    """Decline the reserve commitment and special effects steps until the result is known."""
    for _ in range(20):
        if pending(g) not in ("reserve-commitment", "combat-effects", "retreat-before-combat"):
            return
        acts = g.legal_actions(g.acting_sides()[0])
        g.apply(next(a for a in acts if a["type"] in ("done", "decline")))


def required(g, side):
    """The loss last required of ``side`` (from the log)."""
    evs = [
        e
        for e in g.state.log
        if e["type"] == "loss"
        and e.get("data", {}).get("side") == side
        and "need" in e.get("data", {})
    ]
    assert evs, f"no loss required of {side}"
    return (
        Fraction(evs[-1]["data"]["need"]["$frac"])
        if isinstance(evs[-1]["data"]["need"], dict)
        else Fraction(evs[-1]["data"]["need"])
    )


def allowed(g):
    return sorted(
        a["piece"] for a in g.legal_actions(g.acting_sides()[0]) if a["type"] == "eliminate"
    )


def art(pid, nation, at, a, d):
    return unit(pid, "heavy-artillery", nation, at, a=a, d=d, m=4, size="regiment")


def forces_120_50(attacker_type="rifle"):
    """OT 9C2 examples: 120 attack (80 artillery, 40 other) against 50 defense (30 artillery, 20
    other)."""
    return [
        *[art(f"fa{k}", "France", "0403", 20, 5) for k in range(4)],
        *[division(f"fd{k}", "France", "0403", a=20, d=10, typ=attacker_type) for k in range(2)],
        art("ga0", "Germany", "0503", 1, 15),
        art("ga1", "Germany", "0503", 1, 15),
        division("gd", "Germany", "0503", a=1, d=20),
    ]


ATT_120 = [f"fa{k}" for k in range(4)] + ["fd0", "fd1"]


# ============================================================================ OT 9C1 Mobile
@pytest.mark.rules("OT 9C", "OT 9C1")
def test_ot_9c1_ot_g_51_half_exchange() -> None:
    """OT-G-51: 6 attack SPs against 12 defense SPs, HX: the attacker loses his 6 and retreats; the
    defender must lose at least 3."""
    g = result_game(
        "HX",
        [
            division("f1", "France", "0403", a=6, d=8),
            division("g1", "Germany", "0503", a=2, d=12, cadre=(1, 5, 5)),
        ],
    )
    attack(g, "0503", ["f1"])
    assert g.state.pieces["f1"].face == "cadre"
    assert required(g, CP) == 3 and g.state.pieces["g1"].face == "cadre"


@pytest.mark.rules("OT 9C1")
def test_ot_9c1_ot_g_52_exchange() -> None:
    g = result_game(
        "EX",
        [
            division("f1", "France", "0403", a=15),
            unit("g1", "rifle", "Germany", "0503", a=2, d=6, size="brigade"),
        ],
    )
    attack(g, "0503", ["f1"])
    assert g.state.pieces["g1"].loc == Loc.box("eliminated")
    assert required(g, EN) == 6


@pytest.mark.rules("OT 9C1")
def test_ot_9c1_ot_g_53_tie_eliminates_the_defender() -> None:
    g = result_game(
        "HX", [division("f1", "France", "0403", a=10), division("g1", "Germany", "0503", a=1, d=10)]
    )
    attack(g, "0503", ["f1"])
    assert g.state.pieces["g1"].face == "cadre" and rec_of(g)["first_role"] == "defender"


@pytest.mark.rules("OT 9C1")
def test_ot_9c1_ot_g_57_aq_becomes_as_for_infantry() -> None:
    g = result_game(
        "AQ",
        [
            unit("fi", "infantry", "France", "0403", a=8, d=8, size="division"),
            division("g1", "Germany", "0503"),
        ],
    )
    attack(g, "0503", ["fi"])
    drive(g)
    assert [e for e in g.state.log if e["type"] == "result"][-1]["data"]["result"] == "AS"
    assert g.state.pieces["fi"].loc == Loc.hex(idx(g, "0403"))
    g2 = result_game(
        "AQ", [division("f1", "France", "0403", a=8), division("g1", "Germany", "0503")]
    )
    attack(g2, "0503", ["f1"])
    assert required(g2, EN) == 2  # a quarter of 8 (the only unit is taken), no retreat afterwards
    drive(g2)
    assert (
        g2.state.pieces["f1"].loc == Loc.hex(idx(g2, "0403"))
        and g2.state.pieces["f1"].face == "cadre"
    )


@pytest.mark.rules("OT 9C1")
def test_ot_9c1_eliminated_half_eliminated_retreats() -> None:
    g = result_game("DE", [division("f1", "France", "0403"), division("g1", "Germany", "0503")])
    attack(g, "0503", ["f1"])
    assert g.state.pieces["g1"].face == "cadre"
    g = result_game(
        "AH",
        [
            division("f1", "France", "0403", a=8),
            division("f2", "France", "0402", a=8),
            division("g1", "Germany", "0503"),
        ],
    )
    attack(g, "0503", ["f1", "f2"])
    f = to_losses(g, EN)
    assert f.params["need"] == 8 and allowed(g) == ["f1", "f2"]
    g = result_game("DR", [division("f1", "France", "0403"), division("g1", "Germany", "0503")])
    attack(g, "0503", ["f1"])
    assert pending(g) == "combat-choice" and frame(g).params["key"] == "advance:0503"  # OT 9F1


# ============================================================================ OT 9C2 Positional
@pytest.mark.rules("OT 9C2", "OT 9D")
def test_ot_9c2_ot_g_54_attacker_loss() -> None:
    g = result_game("AL", forces_120_50(), positional=True, fort="fort")
    attack(g, "0503", ATT_120)
    f = to_losses(g, EN)
    assert f.params["need"] == 60 and allowed(g) == ["fd0", "fd1"]  # all non-artillery first
    g.apply({"type": "eliminate", "side": EN, "piece": "fd0"})
    g.apply({"type": "eliminate", "side": EN, "piece": "fd1"})
    assert frame(g).params["need"] == 20
    assert set(allowed(g)) == {
        "fa0",
        "fa1",
        "fa2",
        "fa3",
        "fd0",
        "fd1",
    }  # cadres of non-artillery need not go first
    g.apply({"type": "eliminate", "side": EN, "piece": "fa0"})
    assert (
        required(g, CP) == 15 and g.state.pieces["gd"].face == "cadre"
    )  # a quarter of the 60 mandated, non-artillery only
    assert g.state.pieces["ga0"].face == g.state.pieces["ga1"].face == "front"


@pytest.mark.rules("OT 9C2")
def test_ot_9c2_ot_g_55_exchange() -> None:
    g = result_game("AX", forces_120_50(), positional=True, fort="fort")
    attack(g, "0503", ATT_120)
    f = to_losses(g, EN)
    assert f.params["need"] == 60
    for pid in ("fd0", "fd1", "fa0"):
        g.apply({"type": "eliminate", "side": EN, "piece": pid})
    assert (
        required(g, CP) == 30 and g.state.pieces["gd"].face == "cadre"
    )  # the only non-artillery unit goes first
    f = to_losses(g, CP)
    assert f.params["need"] == 10 and set(allowed(g)) >= {"ga0", "ga1"}
    g.apply({"type": "eliminate", "side": CP, "piece": "ga0"})
    assert (
        pending(g) == "combat-choice"
        and frame(g).params["key"] == "optional-retreat"
        and frame(g).params["side"] == EN
    )


@pytest.mark.rules("OT 9C2")
def test_ot_9c2_ot_g_56_dxm_for_rifle_assault() -> None:
    g = result_game("DX", forces_120_50("rifle-assault"), positional=True, fort="fort")
    attack(g, "0503", ATT_120)
    assert rec_of(g)["result"] == "DXM"
    assert required(g, CP) == 25 and g.state.pieces["gd"].face == "cadre"
    to_losses(g, CP)
    g.apply({"type": "eliminate", "side": CP, "piece": allowed(g)[0]})
    f = to_losses(g, EN)
    assert f.params["need"] == 25 and set(allowed(g)) == {"fd0", "fd1"}


@pytest.mark.rules("OT 9C2", "OT 9D")
def test_ot_9c2_bx_and_bxm_defaults() -> None:
    """BX/BXM are not defined in the rulebook; default: each side loses half its own total, nobody
    must retreat (BXM: the defender must)."""
    g = result_game(
        "BX",
        [division("f1", "France", "0403", a=8), division("g1", "Germany", "0503", a=1, d=10)],
        positional=True,
        fort="fort",
    )
    attack(g, "0503", ["f1"])
    assert required(g, EN) == 4 and required(g, CP) == 5
    assert combat_results.RESULTS["BXM"].retreat == ("defender",)
    g2 = result_game(
        "BX",
        [
            division("f1", "France", "0403", a=8),
            unit("gi", "infantry", "Germany", "0503", a=1, d=10, size="division"),
        ],
        positional=True,
        fort="fort",
    )
    attack(g2, "0503", ["f1"])
    assert rec_of(g2)["result"] == "BXM"  # OT 14H1: infantry-capable defender


@pytest.mark.rules("OT 9C2", "OT 8C2")
def test_ot_9c2_overstacked_attackers_lose_half_again() -> None:
    g = result_game(
        "AX",
        [
            division("f1", "France", "0403", a=8),
            division("f2", "France", "0403", a=8),
            unit("fc", "corps-hq", "France", "0403", a=0, d=0, size="corps"),
            division("g1", "Germany", "0503", a=1, d=10),
        ],
        positional=True,
        fort="fort",
        options={"overstacking": True},
    )
    g.state.pieces["f2"].status.add("overstacked")
    g.state.pieces["f2"].attrs["overstacked_since"] = "0:x:initial"
    attack(g, "0503", ["f1", "f2"])
    assert required(g, EN) == Fraction(3, 2) * 8
    order = [
        e["data"]["piece"]
        for e in g.state.log
        if e["type"] == "loss" and "piece" in e.get("data", {})
    ]
    assert order.index("f1") < order.index("f2")  # overstacked units last (OT 8C2)


# ============================================================================ OT 9D / 9E
@pytest.mark.rules("OT 9D")
def test_ot_9d_hqs_are_ignored_and_eliminated_when_alone() -> None:
    g = result_game(
        "DH",
        [
            division("f1", "France", "0403", a=30),
            division("g1", "Germany", "0503", a=1, d=10),
            army_hq("ghq", "Germany", "0503"),
        ],
    )
    attack(g, "0503", ["f1"])
    assert (
        required(g, CP) == 5
        and g.state.pieces["g1"].face == "cadre"
        and g.state.pieces["ghq"].loc.kind == "hex"
    )
    drive(g, choices=[{"type": "choose", "choice": "advance"}])
    hq, cad = g.state.pieces["ghq"], g.state.pieces["g1"]
    assert hq.loc == Loc.box("eliminated") or hq.loc == cad.loc  # eliminated if left alone (OT 9D)


@pytest.mark.rules("OT 9D")
def test_ot_9d_field_artillery_option() -> None:
    pieces = [
        division("f1", "France", "0403", a=30),
        division("g1", "Germany", "0503", a=1, d=10),
        unit("gf", "field-artillery", "Germany", "0503", a=2, d=4, size="regiment"),
    ]
    g = result_game("DL", pieces, positional=True, fort="fort")
    attack(g, "0503", ["f1"])
    assert (
        g.state.pieces["g1"].face == "cadre" and g.state.pieces["gf"].face == "front"
    )  # artillery last
    g2 = result_game(
        "DL", pieces, positional=True, fort="fort", options={"field-art-as-nonart-losses": True}
    )
    attack(g2, "0503", ["f1"])
    to_losses(g2, CP)
    assert allowed(g2) == ["g1", "gf"]


@pytest.mark.rules("OT 9E")
def test_ot_9e_ot_g_58_cadre_counts_full_strength() -> None:
    g = result_game(
        "AH",
        [
            division("f1", "France", "0403", a=9, d=12, cadre=(4, 5, 5)),
            division("f2", "France", "0402", a=9, d=12),
            division("g1", "Germany", "0503", a=1, d=10),
        ],
    )
    attack(g, "0503", ["f1", "f2"])
    f = to_losses(g, EN)
    g.apply({"type": "eliminate", "side": EN, "piece": "f1"})
    assert g.state.pieces["f1"].face == "cadre"
    ev = [e for e in g.state.log if e["type"] == "loss" and e.get("data", {}).get("piece") == "f1"][
        -1
    ]
    assert ev["data"]["value"] == {"$frac": "9"} and f.done
