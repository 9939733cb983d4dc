"""LGG 11: movement - normal, administrative, coordination, rail, conversion."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import railways
from grognard.rulesets.lgg1418.military import movement

from . import dummy  # noqa: F401
from .helpers import (
    CP,
    EN,
    act,
    army,
    corps,
    current_act,
    decline_interrupts,
    fortress,
    game,
    ghq,
    hq,
    play_until,
    ring,
    to_activation,
)


def _army_game(extra: list[dict] | None = None, rng: int = 3, **kw: object):
    pieces = [
        hq("h", "FR", "0404", "FR-1", rng=rng),
        corps("a", "FR", "0405", army="FR-1"),
        corps("b", "FR", "0405", army="FR-1"),
        corps("slow", "FR", "0403", army="FR-1", full=(6, 3, 8, 2)),
        corps("e", "DE", "0808"),
    ] + (extra or [])
    rules = {"armies": [army("FR-1", "FR", "h")], **kw.pop("rules", {})}  # type: ignore[dict-item]
    return game(pieces=pieces, rules=rules, **kw)


def _move(g, units: list[str], to: str, mode: str = "normal") -> None:
    g.apply({"type": "move", "side": EN, "units": units, "to": to, "mode": mode})
    decline_interrupts(g)  # the enemy passes any interception (13)


@pytest.mark.rules("LGG [11.1-A]")
def test_lgg_11_1a_neutral_countries_and_enemy_hexes() -> None:
    areas = [{"name": "CH", "kind": "country", "attrs": {"nation": "CH"}, "hexes": ["0406"]}]
    g = _army_game(areas=areas)
    to_activation(g, EN, "FR-1")
    with pytest.raises(IllegalAction) as e:
        _move(g, ["a"], "0406")
    assert e.value.rule == "LGG [11.1-A]" and "neutral" in e.value.message
    g2 = _army_game([corps("e2", "DE", "0506")])
    to_activation(g2, EN, "FR-1")
    _move(g2, ["a"], "0506")  # the battle procedure (rules 16-18) is installed: entering engages
    assert g2.state.pieces["a"].attrs["mv_stop"]
    g3 = _army_game([corps("e2", "DE", "0506")], ruleset="lgg1418-hooked")
    to_activation(g3, EN, "FR-1")
    _move(g3, ["a"], "0506")
    assert g3.state.pieces["a"].attrs[
        "mv_stop"
    ]  # entering an enemy hex engages: the move ends there


@pytest.mark.rules("LGG [11.1-A]")
def test_lgg_11_1a_command_range_begin_or_end() -> None:
    g = _army_game([corps("far", "FR", "0104", army="FR-1")], rng=2)
    d = g.board.distance
    i = g.board.idx
    assert d(i("0104"), i("0404")) == 3
    to_activation(g, EN, "FR-1")
    p = g.state.pieces["far"]
    assert not p.attrs["mv_inrange"] and g.state.pieces["a"].attrs["mv_inrange"]
    outside = next(h for h in ring("0104") if g.board.has_label(h) and d(i(h), i("0404")) > 2)
    with pytest.raises(IllegalAction) as e:
        _move(g, ["far"], outside)
    assert e.value.rule == "LGG [11.1-A]"
    inside = next(h for h in ring("0104") if g.board.has_label(h) and d(i(h), i("0404")) == 2)
    _move(g, ["far"], inside)
    # now the HQ may not move away and leave it out of range
    away = next(h for h in ring("0404") if g.board.has_label(h) and d(i(h), i(inside)) > 2)
    with pytest.raises(IllegalAction) as e:
        _move(g, ["h"], away)
    assert "command range" in e.value.message


@pytest.mark.rules("LGG 11.1-B")
def test_lgg_11_1b_costs_rivers_and_the_one_hex_minimum() -> None:
    terrain = [
        "pppppppp",
        "pppppppp",
        "pppppppp",
        "pppppppp",
        "ppppfppp",
        "pppppppp",
        "pppppppp",
        "pppppppp",
    ]
    sides = [{"feature": "river", "sides": ["0405/0406", "0403/0402"]}]
    places = [{"hex": "0402", "kind": "locality", "name": "Pont", "attrs": {"nation": "FR"}}]
    g = _army_game(
        [corps("one", "FR", "0404", army="FR-1", full=(6, 3, 8, 1))],
        terrain=terrain,
        hexsides=sides,
        places=places,
        control={"hexes": {EN: ["0402"]}},
    )
    a, i = g.state.pieces["a"], g.board.idx
    assert movement.step_cost(g, a, i("0405"), i("0406")) == 2  # plains + river
    assert (
        movement.step_cost(g, a, i("0403"), i("0402")) == 1
    )  # into a friendly locality: free crossing
    to_activation(g, EN, "FR-1")
    forest = next(h for h in ring("0404") if g.board.terrain_of(i(h)) == "forest")
    _move(g, ["one"], forest)  # 1 MP, forest costs 2: always one hex
    assert g.state.pieces["one"].attrs["mv_spent"] == 1
    with pytest.raises(IllegalAction) as e:
        _move(g, ["one"], ring(forest)[0])
    assert e.value.rule == "LGG 11.1-B"


@pytest.mark.rules("LGG 11.1-C")
def test_lgg_11_1c_slowest_unit_drop_and_pick_up() -> None:
    g = _army_game()
    to_activation(g, EN, "FR-1")
    _move(g, ["a", "b"], "0505")
    _move(g, ["a"], "0605")  # drop b on the way
    _move(g, ["slow"], "0404")
    _move(g, ["slow"], "0405")
    assert movement.spent(g.state.pieces["slow"], current_act(g)["serial"]) == 2
    with pytest.raises(IllegalAction) as e:
        _move(g, ["slow"], "0406")  # its 2 MP are spent
    assert "slowest" in e.value.message
    assert {a["type"] for a in g.legal_actions(EN)} >= {"move", "end-movement"}


@pytest.mark.rules("LGG 11.1-D")
def test_lgg_11_1d_lgg32_fortress_besieged_since_a_previous_turn() -> None:
    g = _army_game(
        [
            fortress("df", "DE", "0406", status=["besieged"]),
            corps("sieger", "FR", "0406", status=["besieging"]),
        ],
        ruleset="lgg1418-hooked",
    )
    g.state.set_marker("siege", "0406", {"since": M.turn_index(g) - 1})
    M.touch(g)
    a, i = g.state.pieces["a"], g.board.idx
    plain = movement.step_cost(g, a, i("0405"), i("0505"))
    assert movement.step_cost(g, a, i("0405"), i("0406")) == plain + 1
    assert not movement.fortress_blocks(g, EN, i("0406"))
    g.state.set_marker("siege", "0406", {"since": M.turn_index(g)})
    M.touch(g)
    assert movement.fortress_blocks(g, EN, i("0406"))  # besieged this turn: still blocks
    assert movement.step_cost(g, a, i("0405"), i("0406")) == plain
    g2 = _army_game([fortress("df", "DE", "0406")])
    assert movement.fortress_blocks(g2, EN, i("0406"))


@pytest.mark.rules("LGG 23-A")
def test_lgg_23a_lgg69_cavalry_alone_may_not_enter_an_enemy_fortress_hex() -> None:
    g = _army_game(
        [fortress("df", "DE", "0506"), corps("cav", "FR", "0405", army="FR-1", arm="cavalry")],
        ruleset="lgg1418-hooked",
    )
    to_activation(g, EN, "FR-1")
    with pytest.raises(IllegalAction) as e:
        _move(g, ["cav"], "0506")
    assert e.value.rule == "LGG 23-A"
    _move(g, ["cav", "a"], "0506")  # with infantry


@pytest.mark.rules("LGG 11.1-E")
def test_lgg_11_1e_allies_pass_through_a_capital_but_do_not_stop() -> None:
    places = [
        {"hex": "0505", "kind": "city", "name": "Paris", "attrs": {"nation": "FR", "capital": True}}
    ]
    g = game(
        pieces=[
            hq("h", "GB", "0404", "GB-1"),
            corps("gb", "GB", "0405", army="GB-1", full=(6, 3, 8, 2)),
            corps("e", "DE", "0808"),
        ],
        places=places,
        rules={"armies": [army("GB-1", "GB", "h")]},
    )
    to_activation(g, EN, "GB-1")
    p = g.state.pieces["gb"]
    assert movement.foreign_capital(g, p, g.board.idx("0505"))
    _move(g, ["gb"], "0505")  # 1 MP of 2: passing through
    _move(g, ["gb"], ring("0505")[0])
    g2 = game(
        pieces=[
            hq("h", "GB", "0404", "GB-1"),
            corps("gb", "GB", "0405", army="GB-1", full=(6, 3, 8, 1)),
            corps("e", "DE", "0808"),
        ],
        places=places,
        rules={"armies": [army("GB-1", "GB", "h")]},
    )
    to_activation(g2, EN, "GB-1")
    with pytest.raises(IllegalAction) as e:
        g2.apply({"type": "move", "side": EN, "units": ["gb"], "to": "0505", "mode": "normal"})
    assert e.value.rule == "LGG 11.1-E"


@pytest.mark.rules("LGG 11.1-F")
def test_lgg_11_1f_lgg33_battlefields_closed_to_another_activation() -> None:
    g = _army_game()
    to_activation(g, EN, "FR-1")
    act_now = current_act(g)
    g.state.set_marker(
        "battle", "0505", {"turn": M.turn_index(g), "side": EN, "activation": act_now["serial"] - 1}
    )
    M.touch(g)
    with pytest.raises(IllegalAction) as e:
        _move(g, ["a"], "0505")
    assert e.value.rule == "LGG 11.1-F"
    assert not movement.battlefield_closed(g, {**act_now, "reaction": True}, g.board.idx("0505"))
    assert not movement.battlefield_closed(
        g, {**act_now, "breakthrough": True}, g.board.idx("0505")
    )


@pytest.mark.rules("LGG 11.1-G")
def test_lgg_11_1g_sea_transported_units_move_but_do_not_fight() -> None:
    g = _army_game([corps("e2", "DE", "0506")], ruleset="lgg1418-hooked")
    g.state.pieces["a"].attrs["sea_transported"] = True
    to_activation(g, EN, "FR-1")
    with pytest.raises(IllegalAction) as e:
        _move(g, ["a"], "0506")
    assert e.value.rule == "LGG 11.1-G"
    _move(g, ["a"], "0505")


@pytest.mark.rules("LGG 11.2")
def test_lgg_11_2_administrative_movement() -> None:
    enemy = "0705"
    x = next(h for h in ring("0505") if h in ring(enemy))
    y = next(h for h in ring(x) if h in ring(enemy) and h not in ("0505", enemy))
    sides = [{"feature": "canal", "sides": [f"{x}/{enemy}"]}]
    friendly = [
        f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 9) if f"{c:02d}{r:02d}" != enemy
    ]
    g = _army_game(
        [corps("e2", "DE", enemy)], hexsides=sides, control={"hexes": {EN: friendly, CP: [enemy]}}
    )
    to_activation(g, EN, "FR-1")
    a = g.state.pieces["a"]
    _move(g, ["a"], "0505", "admin")
    assert movement.allowance(g, a, "admin") == 8 and a.attrs["mv_mode"] == "admin"
    with pytest.raises(IllegalAction) as e:
        _move(g, ["a"], x, "normal")
    assert e.value.rule == "LGG 11.2"  # one mode per move
    _move(g, ["a"], x, "admin")  # next to the enemy, but behind the canal
    # The marker at 0705 might be a decoy as far as the French know (4-A): the move is accepted,
    # then refused by a reveal event; afterwards the contact is known and the move is illegal.
    events = g.apply({"type": "move", "side": EN, "units": ["a"], "to": y, "mode": "admin"})
    assert M.hex_of(g, a) == g.board.idx(x)
    assert any(
        e["type"] == "move-refused" and e.get("reveal") and e["rule"] == "LGG 11.2" for e in events
    )
    with pytest.raises(IllegalAction) as e:
        _move(g, ["a"], y, "admin")
    assert e.value.rule == "LGG 11.2" and "contact" in e.value.message
    nxt = next(h for h in ring("0405") if g.board.has_label(h) and h not in ("0505", "0404"))
    g.state.set_marker("conquered", nxt, M.turn_index(g))
    M.touch(g)
    with pytest.raises(IllegalAction) as e:
        _move(g, ["b"], nxt, "admin")
    assert e.value.rule == "LGG 11.2" and "conquered this turn" in e.value.message
    _move(g, ["b"], nxt, "normal")


@pytest.mark.rules("LGG 11.1-H")
def test_lgg_11_1h_change_of_front_follows_administrative_passage() -> None:
    areas = [{"name": "Russian", "kind": "sector", "hexes": ["0505", "0506", "0606"]}]
    g = _army_game(
        [corps("e2", "DE", "0706")],
        areas=areas,
        rules={"fronts": ["West", "East"]},
        control={"hexes": {EN: ["0505", "0405"]}},
    )
    act_now = {
        "serial": 1,
        "side": EN,
        "front": "West",
        "armies": ["FR-1"],
        "reaction": False,
        "breakthrough": False,
    }
    i = g.board.idx
    assert movement.changes_front(g, i("0405"), i("0505"))
    movement.check_move(g, act_now, [g.state.pieces["a"]], i("0505"), "normal")
    with pytest.raises(IllegalAction) as e:
        movement.check_move(
            g, act_now, [g.state.pieces["a"]], i("0506"), "normal"
        )  # not friendly territory
    assert e.value.rule == "LGG 11.1-H"


@pytest.mark.rules("LGG 11.3")
def test_lgg_11_3_lgg31_coordination_targets_and_limits() -> None:
    pieces = [
        hq(f"h{k}", n, f"0{k + 1}01", f"A{k}", coord=c)
        for k, (n, c) in enumerate([("FR", 2), ("FR", 3), ("GB", 2), ("FR", 3), ("FR", 1)])
    ]
    pieces += [ghq("fr-ghq", "FR", "0808", comb=4), ghq("gb-ghq", "GB", "0807", comb=2)]
    armies = [army(f"A{k}", n, f"h{k}") for k, n in enumerate(["FR", "FR", "GB", "FR", "FR"])]
    g = game(pieces=pieces, rules={"armies": armies})
    assert movement.coordination_target(g, ["A0", "A1", "A2"]) == 7
    assert movement.coordination_modifiers(g, ["A0", "A1", "A2"]).total() == -3  # natural 10 needed
    assert (
        movement.coordination_target(g, ["A1", "A3"]) == 6
        and movement.coordination_modifiers(g, ["A1", "A3"]).total() == 0
    )
    with pytest.raises(IllegalAction):
        movement.check_coordination(g, EN, ["A0", "A1", "A2", "A3", "A4"])
    movement.coordination_roll(g, EN, ["A0", "A1", "A3"])  # 3 French armies counted, success or not
    movement.check_coordination(g, EN, ["A2", "A4"])  # France 3 + 1, England 1: within both limits
    with pytest.raises(IllegalAction) as e:
        movement.check_coordination(g, EN, ["A1", "A4"])  # 3 + 2 > 4
    assert "4 armies per turn" in e.value.message


@pytest.mark.rules("LGG 11.3")
def test_lgg_11_3_joint_activation_through_the_sequence() -> None:
    pieces = [
        hq("h1", "FR", "0202", "FR-1", coord=1),
        hq("h2", "FR", "0606", "FR-2", coord=1),
        corps("c1", "FR", "0203", army="FR-1"),
        corps("c2", "FR", "0607", army="FR-2"),
        ghq("g", "FR", "0101"),
    ]
    g = game(
        pieces=pieces,
        rules={
            "armies": [army("FR-1", "FR", "h1"), army("FR-2", "FR", "h2")],
            "main_armies": {EN: {"West": "FR-1"}},
        },
    )
    play_until(
        g,
        "choose-activation",
        lambda g, s, legal: next(
            (a for a in legal if a["type"] == "first-mover" and a["first"] == EN), None
        ),
    )
    if g.acting_sides() != [EN]:
        act(g, CP, type="end-turn")
    legal = g.legal_actions(EN)
    assert {"type": "activate", "side": EN, "army": "FR-2"} not in legal  # the main army first
    act(g, EN, type="coordinate", armies=["FR-1", "FR-2"])
    roll = [e for e in g.state.log if e["type"] == "roll"][-1]
    if roll["data"]["natural"] >= 2:
        assert current_act(g)["armies"] == ["FR-1", "FR-2"]
        assert {tuple(a["units"]) for a in g.legal_actions(EN) if a["type"] == "move"} >= {
            ("c1",),
            ("c2",),
        }


def _rail_map(n: int = 44) -> dict:
    terrain = ["p" * n, "p" * n]
    labels = [f"{c:02d}01" for c in range(1, n + 1)]
    places = [
        {"hex": "0101", "kind": "city", "name": "A", "attrs": {"nation": "DE", "capital": True}},
        {"hex": "1601", "kind": "city", "name": "B", "attrs": {"nation": "DE"}},
        {"hex": "2601", "kind": "locality", "name": "C", "attrs": {"nation": "DE"}},
    ]
    places = [p for p in places if int(p["hex"][:2]) <= n]
    return {
        "terrain": terrain,
        "places": places,
        "networks": [{"name": "r", "kind": "rail", "paths": [labels]}],
        "areas": [
            {
                "name": "DE",
                "kind": "country",
                "attrs": {"nation": "DE"},
                "hexes": labels + [f"{c:02d}02" for c in range(1, n + 1)],
            }
        ],
    }


@pytest.mark.rules("LGG 11.4-A", "LGG 11.4-B")
def test_lgg_11_4_lgg29_rail_costs_and_limits() -> None:
    pieces = [
        hq("h", "DE", "0102", "DE-1"),
        corps("inf", "DE", "0101", army="DE-1"),
        corps("cav", "DE", "0101", army="DE-1", arm="cavalry", full=(3, 0, 3, 6)),
        corps("out", "DE", "0201", army="DE-1"),
    ]
    g = game(pieces=pieces, rules={"armies": [army("DE-1", "DE", "h")]}, **_rail_map())
    act_now = {"serial": 7, "side": CP, "front": "West", "armies": ["DE-1"], "reaction": False}
    i, p = g.board.idx, g.state.pieces
    _path, costs, _use = movement.check_rail(g, act_now, [p["inf"]], i("1601"))
    assert costs == {"inf": 2}  # city to city, 15 hexes
    _path, costs, _use = movement.check_rail(g, act_now, [p["cav"]], i("2601"))
    assert costs == {"cav": 5}  # 2 + 2 cavalry + 1 for 25 hexes
    _path, costs, _use = movement.check_rail(g, act_now, [p["out"]], i("1601"))
    assert costs == {"out": 3}  # not from a city or locality
    with pytest.raises(IllegalAction) as e:
        movement.check_rail(g, act_now, [p["inf"]], i("4201"))  # 41 hexes
    assert e.value.rule == "LGG 11.4-A"


@pytest.mark.rules("LGG 11.4-A")
def test_lgg_11_4a_rail_needs_supply_and_ignores_zoc() -> None:
    pieces = [
        hq("h", "DE", "1002", "DE-1"),
        corps("cut", "DE", "1001", army="DE-1"),
        corps("e1", "FR", "0901"),
        corps("e2", "FR", "1101"),
        corps("e3", "FR", "0902"),
        corps("e4", "FR", "1102"),
    ]
    g = game(pieces=pieces, rules={"armies": [army("DE-1", "DE", "h")]}, **_rail_map(20))
    act_now = {"serial": 7, "side": CP, "front": "West", "armies": ["DE-1"], "reaction": False}
    with pytest.raises(IllegalAction) as e:
        movement.check_rail(g, act_now, [g.state.pieces["cut"]], g.board.idx("1201"))
    assert e.value.rule == "LGG 11.4-A"


@pytest.mark.rules("LGG 11.4-B")
def test_lgg_11_4b_lgg5_an_outer_hex_counts_twenty() -> None:
    m = _rail_map(10)
    m["places"].append({"hex": "1001", "kind": "outer_hex"})
    g = game(pieces=[corps("u", "DE", "0101")], **m)
    path = [g.board.idx(f"{c:02d}01") for c in range(10, 4, -1)]
    assert railways.journey_length(g, path) == 5 + 19
    assert (
        railways.rail_cost(
            g, g.state.pieces["u"], path[0], path[-1], railways.journey_length(g, path)
        )
        == 4
    )


@pytest.mark.rules("LGG 11.4-C")
def test_lgg_11_4c_capacity_per_power_and_host_network() -> None:
    pieces = [
        hq("h", "DE", "0102", "DE-1"),
        corps("inf", "DE", "0101", army="DE-1"),
        corps("au", "AH", "0101"),
    ]
    g = game(pieces=pieces, rules={"armies": [army("DE-1", "DE", "h")]}, **_rail_map(20))
    act_now = {"serial": 7, "side": CP, "front": "West", "armies": ["DE-1"], "reaction": False}
    assert railways.rail_capacity(g, "DE") == 12
    assert (
        railways.capacity_owner(g, g.state.pieces["au"], g.board.idx("0101")) == "DE"
    )  # the host's network
    M.st(g)["rail_used"] = {"DE": 12}
    M.touch(g)
    with pytest.raises(IllegalAction) as e:
        movement.check_rail(g, act_now, [g.state.pieces["inf"]], g.board.idx("1601"))
    assert e.value.rule == "LGG 11.4-C"


def _conv_game(country: str, **opts: object):
    labels = [f"{c:02d}01" for c in range(1, 9)]
    areas = [
        {
            "name": "DE",
            "kind": "country",
            "attrs": {"nation": "DE"},
            "hexes": ["0101", "0102", "0201", "0202"],
        },
        {
            "name": country,
            "kind": "country",
            "attrs": {"nation": country},
            "hexes": [f"{c:02d}0{r}" for c in range(3, 9) for r in range(1, 9)],
        },
    ]
    control = {"hexes": {CP: [f"{c:02d}01" for c in range(1, 9)]}}
    pieces = [
        hq("h", "DE", "0102", "DE-1"),
        corps("inf", "DE", "0201", army="DE-1"),
        corps("cav", "DE", "0201", army="DE-1", arm="cavalry"),
    ]
    return game(
        pieces=pieces,
        areas=areas,
        control=control,
        networks=[{"name": "r", "kind": "rail", "paths": [labels]}],
        places=[
            {"hex": "0101", "kind": "city", "name": "A", "attrs": {"nation": "DE", "capital": True}}
        ],
        rules={"armies": [army("DE-1", "DE", "h")]},
        options=opts,
    )


@pytest.mark.rules("LGG 11.4-D")
@pytest.mark.parametrize(
    "reading, russian, french", [("conversion-only", 2, 4), ("plus-movement", 1, 2)]
)
def test_lgg_11_4d_lgg30_conversion(reading: str, russian: int, french: int) -> None:
    """LGG-30 (audit 5: the hexes converted depend on the reading; both are tested)."""
    for country, expect in (("RU", russian), ("FR", french)):
        g = _conv_game(country, **{"rail-conversion-cost": reading})
        act_now = {"serial": 7, "side": CP, "front": "West", "armies": ["DE-1"], "reaction": False}
        inf = g.state.pieces["inf"]
        best = 0
        for k in range(1, 6):
            chain = [g.board.idx(f"{c:02d}01") for c in range(3, 3 + k)]
            try:
                movement.check_convert(g, act_now, inf, chain)
            except IllegalAction:
                break
            best = k
        assert best == expect, (country, reading)


@pytest.mark.rules("LGG 11.4-D")
def test_lgg_11_4d_conversion_rules() -> None:
    g = _conv_game("FR")
    act_now = {"serial": 7, "side": CP, "front": "West", "armies": ["DE-1"], "reaction": False}
    i, p = g.board.idx, g.state.pieces
    with pytest.raises(IllegalAction):
        movement.check_convert(g, act_now, p["cav"], [i("0301")])  # infantry only
    with pytest.raises(IllegalAction):
        movement.check_convert(g, act_now, p["inf"], [i("0401")])  # must start from the own network
    assert railways.rail_gauge(g, i("0301")) == EN
    cost = movement.check_convert(g, act_now, p["inf"], [i("0301"), i("0401")])
    movement.apply_convert(g, act_now, p["inf"], [i("0301"), i("0401")], cost)
    assert railways.rail_gauge(g, i("0401")) == CP and M.hex_of(g, p["inf"]) == i("0401")
    assert i("0401") in railways.own_network(g, CP)
    g2 = _conv_game("FR")  # a besieged enemy fortress on the line blocks conversion
    from grognard.core.state import Loc, Piece

    f = Piece(
        "ff",
        "fortress",
        EN,
        "FR",
        "full",
        Loc.hex(i("0301")),
        {"besieged"},
        {"size": "small"},
        {"full": {"defense": 1, "artillery": 1, "resistance": 1}},
    )
    g2.state.add_piece(f)
    M.touch(g2)
    assert "fortress" in railways.why_not_convertible(g2, CP, i("0301"), entering=True)


@pytest.mark.rules("LGG 11.1-D")
def test_lgg_11_1d_a_fortress_taken_this_turn_still_blocks_not_after_the_pre_turn() -> None:
    g = _army_game(rules={"first_turn": "1914-08P", "last_turn": "1914-08"})
    assert M.current_turn(g).id == "1914-08"  # no pre-turn armies: straight into August
    i = g.board.idx("0506")
    g.state.set_marker("fortress_fallen", "0506", {"turn": M.turn_index(g)})
    M.touch(g)
    assert movement.fortress_blocks(g, EN, i)  # taken this turn
    g.state.set_marker("fortress_fallen", "0506", {"turn": M.data(g).calendar_index("1914-08P")})
    M.touch(g)
    assert not movement.fortress_blocks(g, EN, i)  # taken in the pre-turn


@pytest.mark.rules("LGG 4-B")
def test_lgg_4b_a_decoy_alone_does_not_engage() -> None:
    from .helpers import decoy

    g = _army_game(
        [corps("e2", "DE", "0506"), decoy("dec", "FR", "FR-1", at="0405")],
        ruleset="lgg1418-hooked",
        rules={"armies": [army("FR-1", "FR", "h", "dec")]},
    )
    act_now = {"serial": 3, "side": EN, "front": "West", "armies": ["FR-1"], "reaction": False}
    with pytest.raises(IllegalAction) as e:
        movement.check_move(g, act_now, [g.state.pieces["dec"]], g.board.idx("0506"), "normal")
    assert e.value.rule == "LGG 4-B"


@pytest.mark.rules("LGG 11.1-B", "LGG 11.1-C")
def test_lgg_11_1b_reachable_hexes_match_the_step_rules() -> None:
    terrain = [
        "pppppppp",
        "pppppppp",
        "pppfpppp",
        "pppppppp",
        "pppppppp",
        "pppppppp",
        "pppppppp",
        "pppppppp",
    ]
    g = _army_game(terrain=terrain)
    to_activation(g, EN, "FR-1")
    reach = movement.reachable(g, current_act(g), [g.state.pieces["slow"]])
    i = g.board.idx
    assert all(c <= 2 for c in reach.values())
    assert reach["0404"] == 1
    assert "0808" not in reach
    # every listed one-hex neighbour is a legal move
    for h in reach:
        if i(h) in g.board.neighbors(i("0403")):
            movement.check_move(g, current_act(g), [g.state.pieces["slow"]], i(h), "normal")
    everywhere = [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 9)]
    g2 = _army_game(
        control={"hexes": {EN: [h for h in everywhere if h != "0808"], CP: ["0808"]}},
        options={"fog-of-war": False},
    )  # the French know what the marker at 0808 is
    to_activation(g2, EN, "FR-1")
    admin = movement.reachable(g2, current_act(g2), [g2.state.pieces["a"]], "admin")
    assert max(admin.values()) > 4 and max(admin.values()) <= 8  # doubled allowance
    assert not set(admin) & {"0808", *ring("0808")}  # never in contact with the enemy
