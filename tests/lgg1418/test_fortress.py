"""LGG 23: fortresses - sieges, siege fire, surrender, assault, fallen fortresses."""

from __future__ import annotations

from typing import Any

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.game import Game
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import fortress as F
from grognard.rulesets.lgg1418.map.zoc import BESIEGED, BESIEGING, zoc_map

from .helpers import (
    CP,
    EN,
    act,
    army,
    artillery,
    corps,
    force_dice,
    fortress,
    game,
    general,
    hq,
    place_at,
    to_activation,
)

V = "0605"  # Verdun


def _pieces(extra: list[dict] | None = None, size: str = "large") -> list[dict]:
    return [
        hq("dh", "DE", "0806", "DE-1"),
        corps("de", "DE", "0706", army="DE-1"),
        corps("de2", "DE", "0706", army="DE-1"),
        artillery("sg", "DE", "0706", army="DE-1", category="siege"),
        fortress("verdun", "FR", V, size=size),
        corps("gar", "FR", {"inside": "verdun"}, garrison="verdun"),
        hq("fh", "FR", "0202", "FR-1"),
        *(extra or []),
    ]


def _rules(**kw: Any) -> dict:
    return {
        "armies": [army("DE-1", "DE", "dh"), army("FR-1", "FR", "fh")],
        "main_armies": {CP: {"West": "DE-1"}, EN: {"West": "FR-1"}},
        **kw,
    }


def _play(g, stop: str, choose: dict[str, Any] | None = None) -> None:
    """Play ending choices (the attacker stays in the battle hex after the battle) until
    ``stop``."""
    for _ in range(200):
        cur = g.current()
        if cur is None or cur[1].step == stop:
            return
        s = g.acting_sides()[0]
        legal = g.legal_actions(s)
        pick = None
        if cur[1].step == "battle-placement":
            pick = next(a for a in legal if a["type"] == "done")
        pick = pick or next(
            (a for a in legal if a["type"].startswith(("end", "no-", "decline", "commit", "done"))),
            legal[0],
        )
        g.apply(pick)
    raise AssertionError(f"never reached {stop}")


def _besieged(extra: list[dict] | None = None, size: str = "large", **rules: Any):
    g = game(pieces=_pieces(extra, size), rules=_rules(**rules))
    to_activation(g, CP, "DE-1")
    g.apply({"type": "move", "side": CP, "units": ["de", "de2", "sg"], "to": V, "mode": "normal"})
    act(g, CP, type="end-movement")
    _play(g, "siege-actions")
    return g


@pytest.mark.rules("LGG 23", "LGG 23-A", "LGG 23-C", "LGG 23-D")
def test_lgg_23c_23d_open_country_won_then_siege_without_zoc() -> None:
    g = game(pieces=_pieces(), rules=_rules())
    assert (
        "fortress" in zoc_map(g, EN)[g.board.idx("0505")]
    )  # 23-A: an unbesieged fortress exerts a ZoC
    g = _besieged()
    f = g.state.pieces["verdun"]
    assert BESIEGED in f.status and g.state.marker("siege", V) == {
        "since": M.turn_index(g),
        "side": CP,
    }
    assert all(BESIEGING in g.state.pieces[u].status for u in ("de", "de2", "sg"))
    assert not any(
        "fortress" in z for z in zoc_map(g, EN).values()
    )  # 9-E / 23-A: no ZoC while besieged
    types = [a["type"] for a in g.legal_actions(CP)]
    assert types[0] == "end-siege" and "siege-fire" in types and "assault" in types
    act(g, CP, type="end-siege")
    assert g.ruleset.invariants(g) == []  # enemy stacks share the hex only in a siege


@pytest.mark.rules("LGG 23-D", "LGG 23-A")
def test_lgg_23d_lgg69_cavalry_alone_may_not_besiege() -> None:
    g = game(
        pieces=_pieces([corps("cav", "DE", "0706", army="DE-1", arm="cavalry")]), rules=_rules()
    )
    to_activation(g, CP, "DE-1")
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "move", "side": CP, "units": ["cav"], "to": V, "mode": "normal"})
    assert e.value.rule == "LGG 23-A"  # cavalry without infantry may not enter (LGG-69)
    place_at(g, "cav", V)  # the infantry that came with it is gone
    assert F.cavalry_alone(g, CP, g.board.idx(V))
    act(g, CP, type="end-movement")
    _play(g, "forced-withdrawal")
    spot = g.legal_actions(CP)[0]["to"]
    act(g, CP, type="withdraw", unit="cav", to=spot)
    assert g.state.marker("siege", V) is None and BESIEGED not in g.state.pieces["verdun"].status


@pytest.mark.rules("LGG 23-F")
def test_lgg_23f_lgg71_strengths_and_halving() -> None:
    g = game(
        pieces=_pieces(
            [
                artillery("h3", "DE", "0706", category="heavy"),
                artillery("h4", "DE", "0706", category="heavy"),
            ]
        ),
        rules=_rules(),
    )
    p = g.state.pieces
    p["sg"].attrs["support"] = 5
    p["h3"].attrs["support"] = 3
    p["h4"].attrs["support"] = 4
    assert F.siege_fire_strength(g, [p["sg"]]) == 2  # siege artillery 5 fires alone at 2
    assert F.siege_fire_strength(g, [p["h3"], p["h4"]]) == 3  # floor(7/2)
    p["h4"].attrs["support"] = 3
    assert F.siege_fire_strength(g, [p["h3"], p["h4"]]) == 3  # half of the sum (A-19 default)
    g.options["siege-heavy-halving"] = "sum-of-halves"
    assert F.siege_fire_strength(g, [p["h3"], p["h4"]]) == 2


@pytest.mark.rules("LGG 23-F", "LGG 15-B")
def test_lgg_23f_lgg71_reduce_neutralise_one_mun_each_and_fire_again() -> None:
    """1 MUN per firing unit; 23-F sets no once-per-activation limit: the siege artillery fires
    again in the same activation and neutralises the reduced fortress."""
    g = _besieged()
    g.state.tracks["mun"] = {"DE": {"stock": 5}}
    g.state.pieces["sg"].attrs["support"] = 4  # strength 2: R on a 5 or 6
    assert [a["artillery"] for a in g.legal_actions(CP) if a["type"] == "siege-fire"] == [["sg"]]
    force_dice(g, 6, 5)
    act(g, CP, type="siege-fire", hex=V, artillery=["sg"])
    f = g.state.pieces["verdun"]
    assert f.face == "reduced" and g.state.tracks["mun"]["DE"]["stock"] == 4
    assert [a["artillery"] for a in g.legal_actions(CP) if a["type"] == "siege-fire"] == [["sg"]]
    force_dice(g, 6, 6)
    act(g, CP, type="siege-fire", hex=V, artillery=["sg"])
    assert F.is_neutralized(g, f)  # R on a reduced large fortress
    assert g.state.tracks["mun"]["DE"]["stock"] == 3
    g2 = game(pieces=_pieces(size="small"), rules=_rules())
    assert (
        F.reduce_fortress(g2, g2.state.pieces["verdun"], "LGG 23-F") == "neutralized"
    )  # a small one


def _besieged_with_heavy(stock: int) -> Game:
    """The siege of Verdun with two heavy artillery units (support 3 and 4) and the siege
    artillery (support 4) besieging; Germany has ``stock`` MUN."""
    g = game(
        pieces=_pieces(
            [
                artillery("h3", "DE", "0706", army="DE-1", category="heavy"),
                artillery("h4", "DE", "0706", army="DE-1", category="heavy"),
            ]
        ),
        rules=_rules(),
    )
    to_activation(g, CP, "DE-1")
    g.apply(
        {
            "type": "move",
            "side": CP,
            "units": ["de", "de2", "sg", "h3", "h4"],
            "to": V,
            "mode": "normal",
        }
    )
    act(g, CP, type="end-movement")
    _play(g, "siege-actions")
    g.state.tracks["mun"] = {"DE": {"stock": stock}}
    for pid, v in (("h3", 3), ("h4", 4), ("sg", 4)):
        g.state.pieces[pid].attrs["support"] = v
    return g


def _firings(g: Game) -> list[list[str]]:
    return [a["artillery"] for a in g.legal_actions(CP) if a["type"] == "siege-fire"]


@pytest.mark.rules("LGG 23-F", "LGG 15-B")
def test_lgg_23f_each_chosen_heavy_artillery_unit_fires_and_pays() -> None:
    """The besieger chooses which heavy artillery fires: the chosen heavy units fire together at
    half their summed support (h3 + h4: 7 // 2 = 3, 2 MUN), or h4 alone at 4 // 2 = 2 for 1 MUN;
    the siege artillery fires by itself."""
    g = _besieged_with_heavy(stock=5)
    assert _firings(g) == [["h3", "h4"], ["h3"], ["h4"], ["sg"]]
    force_dice(g, 6, 1)
    act(g, CP, type="siege-fire", hex=V, artillery=["h4"])
    fire = [e for e in g.state.log if e["type"] == "roll"][-1]
    assert "(strength 2)" in fire["text"] and g.state.tracks["mun"]["DE"]["stock"] == 4
    force_dice(g, 6, 1)
    act(g, CP, type="siege-fire", hex=V, artillery=["h3", "h4"])
    fire = [e for e in g.state.log if e["type"] == "roll"][-1]
    assert "(strength 3)" in fire["text"] and g.state.tracks["mun"]["DE"]["stock"] == 2
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "siege-fire", "side": CP, "hex": V, "artillery": ["h3", "sg"]})
    assert e.value.rule == "LGG 23-F"  # siege artillery never joins the heavy group


@pytest.mark.rules("LGG 23-F", "LGG 15-B")
def test_lgg_23f_a_firing_needs_one_mun_per_chosen_unit() -> None:
    """With 1 MUN left, only one-unit firings are open; with none, no siege fire at all."""
    g = _besieged_with_heavy(stock=1)
    assert _firings(g) == [["h3"], ["h4"], ["sg"]]
    before = g.state_hash()
    with pytest.raises(IllegalAction) as e:
        g.apply({"type": "siege-fire", "side": CP, "hex": V, "artillery": ["h3", "h4"]})
    assert e.value.rule == "LGG 23-F" and g.state_hash() == before
    force_dice(g, 6, 1)
    act(g, CP, type="siege-fire", hex=V, artillery=["sg"])
    assert g.state.tracks["mun"]["DE"]["stock"] == 0 and _firings(g) == []


@pytest.mark.rules("LGG 23-F", "LGG 23-E", "LGG 11.1-D")
def test_lgg_23f_elimination_the_garrison_surrenders_and_the_fortress_falls() -> None:
    g = _besieged()
    g.state.pieces["sg"].attrs["support"] = 9  # strength 4: E on a 6
    force_dice(g, 6, 6)
    act(g, CP, type="siege-fire", hex=V, artillery=["sg"])
    assert (
        g.state.pieces["verdun"].loc.ref == M.ELIMINATED
        and g.state.pieces["gar"].loc.ref == M.ELIMINATED
    )
    mk = g.state.marker("fortress_fallen", V)
    assert mk["turn"] == M.turn_index(g) and mk["side"] == CP
    assert g.state.marker("siege", V) is None and g.state.control[g.board.idx(V)] == CP
    assert (
        M.st(g)["fortress_takers"]["de"]["reaction"] is False
    )  # 20-A: these units may not react this turn
    assert not any(BESIEGING in g.state.pieces[u].status for u in ("de", "de2", "sg"))


@pytest.mark.rules("LGG 23-E")
def test_lgg_23e_lgg70_surrender_modifiers() -> None:
    place = [{"hex": V, "kind": "port", "attrs": {"size": "minor", "sea": "North Sea"}}]
    g = game(
        pieces=_pieces([corps("in1", "FR", {"inside": "verdun"}, army="FR-1")]),
        places=place,
        rules=_rules(),
    )
    f = g.state.pieces["verdun"]
    F.establish_siege(g, f, CP)
    g.state.markers["siege"][V]["since"] = M.turn_index(g) - 2  # second test
    mods = F.surrender_modifiers(g, f)
    assert int(mods.total()) == 2 + 1 - 2 - 2  # siege turns, 1 corps besieged, resistance 2, port
    assert F.SURRENDER_TARGET - int(mods.total()) == 11  # natural 11 or 12 (LGG-70)
    g.options["surrender-first-test"] = 0
    assert int(F.surrender_modifiers(g, f).total()) == 1 + 1 - 2 - 2
    M.st(g)["sea_control"] = {"North Sea": CP}
    assert int(F.surrender_modifiers(g, f).total()) == 1 + 1 - 2


@pytest.mark.rules("LGG 23-E", "LGG 5-H")
def test_lgg_23e_surrender_in_the_final_phase_units_lost_hq_back_generals_captured() -> None:
    extra = [hq("fh2", "FR", {"inside": "verdun"}, "FR-2"), general("gen", "FR", "fh2")]
    g = game(
        pieces=_pieces(extra),
        rules=_rules(
            armies=[army("DE-1", "DE", "dh"), army("FR-1", "FR", "fh"), army("FR-2", "FR", "fh2")]
        ),
    )
    f = g.state.pieces["verdun"]
    place_at(g, "de", V)
    F.establish_siege(g, f, CP)
    g.state.markers["siege"][V]["since"] = (
        M.turn_index(g) - 11
    )  # eleventh test: +11 - 2 resistance, sure to fall
    turn = M.turn_index(g)
    for _ in range(300):
        if M.turn_index(g) != turn:
            break
        s = g.acting_sides()[0]
        legal = g.legal_actions(s)
        g.apply(
            next(
                (
                    a
                    for a in legal
                    if a["type"].startswith(("end", "no-", "decline", "commit", "first"))
                ),
                legal[0],
            )
        )
        if any(e["type"] == "surrender" for e in g.state.log):
            break
    assert any(e["type"] == "surrender" and "surrenders" in e["text"] for e in g.state.log)
    assert g.state.pieces["verdun"].loc.ref == M.ELIMINATED
    assert g.state.pieces["gar"].loc.ref == M.ELIMINATED and g.state.pieces["gar"].attrs["no_loss"]
    assert (
        g.state.pieces["fh2"].loc.ref == M.DESTROYED_HQ
        and g.state.pieces["gen"].loc.ref == F.CAPTURED
    )


@pytest.mark.rules("LGG 23-E")
def test_lgg_23e_coastal_fortress_evacuates_its_corps() -> None:
    places = [
        {"hex": V, "kind": "port", "attrs": {"size": "minor", "sea": "Channel"}},
        {"hex": "0101", "kind": "port", "attrs": {"size": "major", "sea": "Channel"}},
    ]
    g = game(
        pieces=_pieces([corps("in1", "FR", {"inside": "verdun"}, army="FR-1")]),
        places=places,
        rules=_rules(),
        control={"hexes": {EN: ["0101"]}},
    )
    f = g.state.pieces["verdun"]
    f.attrs["coastal"] = True
    assert [g.board.label(j) for j in F.evacuation_ports(g, f)] == ["0101"]
    place_at(g, "de", V)
    F.establish_siege(g, f, CP)
    g.state.markers["siege"][V]["since"] = M.turn_index(g) - 11  # sure to surrender
    turn = M.turn_index(g)
    for _ in range(300):
        if M.turn_index(g) != turn or g.current()[1].step == "fortress-surrender":
            break
        s = g.acting_sides()[0]
        legal = g.legal_actions(s)
        g.apply(
            next(
                (
                    a
                    for a in legal
                    if a["type"].startswith(("end", "no-r", "no-i", "decline", "commit", "first"))
                ),
                legal[0],
            )
        )
    assert g.current()[1].step == "fortress-surrender" and g.acting_sides() == [EN]
    act(g, EN, type="evacuate", unit="in1", to="0101")
    assert (
        g.state.pieces["in1"].loc.kind == "hex"
        and g.board.label(g.state.pieces["in1"].loc.ref) == "0101"
    )
    act(g, EN, type="no-evacuation", fortress="verdun")
    assert f.loc.ref == M.ELIMINATED and g.state.pieces["gar"].loc.ref == M.ELIMINATED


@pytest.mark.rules("LGG 23-G")
def test_lgg_23g_assault_parameters() -> None:
    g = _besieged()
    i = g.board.idx(V)
    spec = F.assault_params(g, i, CP, ["de", "de2"], immediate=True)
    assert (
        spec["kind"] == "assault"
        and spec["great"] is False
        and spec["no_generals"]
        and spec["table"] == "trench"
    )
    assert spec["forced_attacker_result"] == "2" and spec["no_repulse"]
    assert (
        spec["defender_units"] == ["gar", "verdun"]
        and not spec["breakthrough"]
        and not spec["counter_offensive"]
    )
    mods = {(m["target"], m["reason"]): m["value"] for m in spec["modifiers"]}
    assert mods[("combativeness", "fortress")] == 2
    F.reduce_fortress(g, g.state.pieces["verdun"], "LGG 23-F")
    F.reduce_fortress(g, g.state.pieces["verdun"], "LGG 23-F")
    neutral = F.assault_params(g, i, CP, ["de"], immediate=True)
    assert "forced_attacker_result" not in neutral and not neutral.get("no_repulse")
    assert neutral["modifiers"] == []  # the round values: test_audit_fortress_23.py


@pytest.mark.rules("LGG 23-G")
def test_lgg_23g_lgg72_assault_fought_by_the_battle_procedure_losses_marked() -> None:
    g = _besieged()
    act(g, CP, type="assault", hex=V)
    assert g.current()[1].step.startswith("battle")
    _play(g, "choose-activation")
    out = [e for e in g.state.log if e["type"] == "assault"][-1]
    fell = out["data"]["outcome"] == "surrendered"
    assert M.st(g)["fortress_losses"]["FR"] == (2 if fell else 1)  # one corps defended


@pytest.mark.rules("LGG 23-G", "LGG 29")
def test_lgg_23g_lgg73_later_assault_is_a_secondary_battle_in_fire_doctrine() -> None:
    g = game(pieces=_pieces(), rules=_rules(first_turn="1915-01", last_turn="1915-03"))
    place_at(g, "de", V)
    F.establish_siege(g, g.state.pieces["verdun"], CP)
    g.state.markers["siege"][V]["since"] = M.turn_index(g) - 1
    to_activation(g, CP, "DE-1")
    act(g, CP, type="end-movement")
    _play(g, "siege-actions")
    from grognard.rulesets.lgg1418.military import secondary

    act(g, CP, type="assault", hex=V)
    sector = secondary.battle_sector(g, g.board.idx(V), CP, ["DE-1"])
    assert len(secondary.secondary_battles(g, CP, sector)) == 1


@pytest.mark.rules("LGG 23-D")
def test_lgg_23d_a_siege_ends_when_the_besiegers_leave_and_blocks_the_railway() -> None:
    rail = [{"name": "r", "kind": "rail", "paths": [["0505", V, "0705"]]}]
    areas = [
        {"name": "FR", "kind": "country", "attrs": {"nation": "FR"}, "hexes": ["0505", V, "0705"]}
    ]
    g = game(pieces=_pieces(), rules=_rules(), networks=rail, areas=areas)
    from grognard.rulesets.lgg1418.map import railways

    assert railways.rail_usable(g, EN, g.board.idx(V))
    place_at(g, "de", V)
    F.establish_siege(g, g.state.pieces["verdun"], CP)
    assert not railways.rail_usable(g, EN, g.board.idx(V))  # a railway in a siege hex is unusable
    place_at(g, "de", "0706")
    F.refresh_sieges(g)
    assert g.state.marker("siege", V) is None and BESIEGED not in g.state.pieces["verdun"].status


@pytest.mark.rules("LGG 23-C")
def test_lgg_23c_a_defeated_defender_may_withdraw_into_its_fortress() -> None:
    from grognard.core.state import Frame
    from grognard.rulesets.lgg1418.battle import battle_retreat
    from tests.lgg1418.battle_helpers import bgame, de, fr, open_battle

    g = bgame(
        [
            fortress("f", "FR", "0404"),
            corps("gar", "FR", {"inside": "f"}, garrison="f"),
            fr("fa", "0404"),
            fr("fb", "0404"),
            de("da", "0404"),
        ]
    )
    rec = open_battle(g, "0404", CP)
    rec.winner, rec.loser, rec.ended_by = CP, EN, "test"
    battle_retreat.create(g, rec)
    (entry,) = battle_retreat.pending(g, [rec.id])
    step = g.steps["retreat-group"]
    f = Frame("retreat-group", {"retreat": entry["id"]})
    opts = [a for a in step.legal_actions(g, f, EN) if a["type"] == "into-fortress"]
    assert {tuple(a["units"]) for a in opts} == {
        ("fa",),
        ("fb",),
    }  # room for one corps beside the garrison
    step.apply(g, f, opts[0])
    assert g.state.pieces["fa"].loc.ref == "f" and "fa" in entry["stayed"]


@pytest.mark.rules("LGG 23-G", "LGG 29")
def test_lgg_23g_lgg73_assault_right_after_the_open_battle_is_not_counted_no_tanks() -> None:
    from grognard.rulesets.lgg1418.military import secondary

    from .helpers import tank

    g = game(
        pieces=_pieces([tank("tk", "DE", "0706")]),
        rules=_rules(first_turn="1915-01", last_turn="1915-03"),
    )
    to_activation(g, CP, "DE-1")
    g.apply({"type": "move", "side": CP, "units": ["de", "de2", "sg"], "to": V, "mode": "normal"})
    act(g, CP, type="end-movement")
    _play(g, "siege-actions")
    place_at(g, "tk", V)
    assert "tk" not in [
        p.id for p in F.assault_units(g, CP, g.board.idx(V))
    ]  # no tanks in an assault (23-G)
    sector = secondary.battle_sector(g, g.board.idx(V), CP, ["DE-1"])
    before = len(secondary.secondary_battles(g, CP, sector))
    act(g, CP, type="assault", hex=V)
    assert (
        len(secondary.secondary_battles(g, CP, sector)) == before
    )  # right after the open battle: not counted


@pytest.mark.rules("LGG 23-F")
def test_lgg_23f_listing_the_siege_actions_changes_nothing() -> None:
    g = _besieged()
    before = g.state_hash()
    g.legal_actions(CP)
    assert g.state_hash() == before


def _hq_and_decoy_caught_in_the_fortress_hex() -> Game:
    """DE-1's HQ and decoy, with no corps, end their movement in the fortress hex: they must
    withdraw."""
    from .helpers import decoy

    g = game(
        pieces=_pieces([decoy("dd", "DE", "DE-1", at="0806")]),
        rules={
            **_rules(),
            "armies": [army("DE-1", "DE", "dh", decoy_id="dd"), army("FR-1", "FR", "fh")],
        },
    )
    to_activation(g, CP, "DE-1")
    place_at(g, "dh", V)
    place_at(g, "dd", V)
    act(g, CP, type="end-movement")
    _play(g, "forced-withdrawal")
    return g


@pytest.mark.rules("LGG 23-D")
def test_lgg_23d_an_hq_and_decoy_without_corps_withdraw_from_the_fortress_hex() -> None:
    g = _hq_and_decoy_caught_in_the_fortress_hex()
    assert {a["unit"] for a in g.legal_actions(CP)} == {"dh", "dd"}
    _play(g, "choose-activation")
    assert g.state.marker("siege", V) is None
    assert not [p for p in M.pieces_at_hex(g, g.board.idx(V), CP)]
    assert g.ruleset.invariants(g) == []


@pytest.mark.rules("LGG 23-D", "LGG 16-A")
def test_lgg_23d_16a_a_withdrawal_in_progress_is_not_two_sides_sharing_a_hex() -> None:
    """The HQ has withdrawn, the decoy has yet to: the hex is still the battle's aftermath
    (found by self-play of lgg-west-1914)."""
    g = _hq_and_decoy_caught_in_the_fortress_hex()
    g.apply(next(a for a in g.legal_actions(CP) if a["unit"] == "dh"))
    assert [a["unit"] for a in g.legal_actions(CP)] and {
        a["unit"] for a in g.legal_actions(CP)
    } == {"dd"}
    assert g.ruleset.invariants(g) == []
