"""LGG 5: the reinforcement phase and recruit points."""

from __future__ import annotations

import pytest

from grognard.core.errors import IllegalAction
from grognard.core.state import Loc
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.military import reinforcement as R
from grognard.rulesets.lgg1418.units import elimination

from .helpers import CP, EN, act, army, corps, game, ghq, hq, play_until, ring, to_turn

WEST_ONLY = {"DE": CP, "FR": EN, "GB": EN, "BE": EN}

CITIES = [
    {"hex": "0101", "kind": "city", "name": "Lille", "attrs": {"nation": "FR"}},
    {"hex": "0108", "kind": "city", "name": "Reims", "attrs": {"nation": "FR"}},
    {"hex": "0106", "kind": "city", "name": "Cambrai", "attrs": {"nation": "FR"}},
    {"hex": "0801", "kind": "city", "name": "Aachen", "attrs": {"nation": "DE"}},
    {"hex": "0808", "kind": "city", "name": "Trier", "attrs": {"nation": "DE"}},
    {"hex": "0401", "kind": "city", "name": "Mons", "attrs": {"nation": "BE"}},
]
RAIL = [
    {
        "name": "fr",
        "kind": "rail",
        "paths": [["0101", "0102", "0103", "0104", "0105", "0106", "0107", "0108"]],
    },
    {
        "name": "de",
        "kind": "rail",
        "paths": [["0801", "0802", "0803", "0804", "0805", "0806", "0807", "0808"]],
    },
]
COUNTRIES = [
    {
        "kind": "country",
        "map": "T",
        "legend": {"F": "FR", "D": "DE", "B": "BE"},
        "rows": ["FFFBBBDD"] * 8,
    }
]
AREAS = [{"name": n, "kind": "country", "attrs": {"nation": n}} for n in ("FR", "DE", "BE")]


def _g(pieces: list[dict], first: str = "1914-09", powers: dict | None = None, **kw: object):
    base = [
        hq("de-hq", "DE", "0705", "DE-1"),
        hq("fr-hq", "FR", "0204", "FR-1"),
        ghq("fr-ghq", "FR", "0105"),
    ]
    rules = {
        "first_turn": first,
        "last_turn": "1915-03",
        "armies": [army("DE-1", "DE", "de-hq"), army("FR-1", "FR", "fr-hq")],
        "powers": (
            powers or {"FR": {"pr_stock": 10, "pr_flow": 4}, "DE": {"pr_stock": 10, "pr_flow": 4}}
        ),
        "main_armies": {CP: {"West": "DE-1"}, EN: {"West": "FR-1"}},
    }
    rules.update(kw.pop("rules", {}))  # type: ignore[arg-type]
    kw.setdefault("nations", WEST_ONLY)
    return game(
        pieces=base + pieces,
        places=CITIES,
        networks=RAIL,
        areas=AREAS,
        area_maps=COUNTRIES,
        rules=rules,
        **kw,
    )


@pytest.mark.rules("LGG 5")
def test_lgg_5_first_turn_places_scheduled_units_only() -> None:
    g = _g(
        [corps("fr-new", "FR", None)],
        schedule=[
            {"turn": "Sep 1914", "kind": "reinforcement", "pieces": ["fr-new"], "at": "0101"}
        ],
        turns=["Sep 1914", "Oct 1914", "Nov-Dec 1914", "Jan-Feb 1915", "Mar-Apr 1915"],
    )
    play_until(g, "reinforcement-side")
    legal = g.legal_actions(CP)
    assert [a["type"] for a in legal] == ["end-reinforcement"]
    act(g, CP, type="end-reinforcement")
    assert {a["type"] for a in g.legal_actions(EN)} == {"place"}  # must place before ending
    with pytest.raises(IllegalAction):
        g.apply({"type": "restore", "side": EN, "unit": "fr-new"})
    act(g, EN, type="place", unit="fr-new", at="0101")
    assert R.pr_stock(g, "FR") == 10  # no PR flow on the first turn


@pytest.mark.rules("LGG 5")
def test_lgg_5_option_none_skips_the_first_phase() -> None:
    g = _g([], options={"first-turn-reinforcements": "none"})
    play_until(g, "first-mover")
    assert "reinforcement phase skipped on the first turn" in [e["text"] for e in g.state.log]


@pytest.mark.rules("LGG 5-A", "LGG 5-B")
def test_lgg_5a_second_turn_flow_and_placements() -> None:
    g = _g(
        [
            corps("fr-own", "FR", None, army="FR-1"),
            corps("fr-free", "FR", None),
            corps("fr-x", "FR", "0205", army="FR-1"),
        ],
        schedule=[{"turn": "Oct 1914", "kind": "reinforcement", "pieces": ["fr-own", "fr-free"]}],
        turns=["Sep 1914", "Oct 1914", "Nov-Dec 1914", "Jan-Feb 1915", "Mar-Apr 1915"],
    )
    to_turn(g, "1914-10", "reinforcement-side")
    assert R.pr_stock(g, "FR") == 14  # flow added (not in August 1914)
    act(g, CP, type="end-reinforcement")
    targets = {
        a.get("at") or a.get("reserve")
        for a in g.legal_actions(EN)
        if a["type"] == "place" and a["unit"] == "fr-own"
    }
    assert targets == {"0204", "fr-hq"}  # an army's own unit goes with its HQ
    free = {
        a.get("at") or a.get("reserve")
        for a in g.legal_actions(EN)
        if a["type"] == "place" and a["unit"] == "fr-free"
    }
    assert {
        "0101",
        "0106",
        "0108",
        "fr-ghq",
        "fr-hq",
        "0204",
        "0205",
    } <= free  # cities, reserves, army stacks
    assert "0401" not in free  # a Belgian city is not national for a French unit
    act(g, EN, type="place", unit="fr-own", reserve="fr-hq")
    assert M.in_reserve(g.state.pieces["fr-own"]) and g.state.pieces["fr-own"].loc == Loc.inside(
        "fr-hq"
    )


@pytest.mark.rules("LGG 5-A")
def test_lgg_5a_diverted_when_the_city_is_taken_and_belgians_go_to_france() -> None:
    g = _g(
        [corps("fr-new", "FR", None), corps("be-new", "BE", None), corps("de-occ", "DE", "0401")],
        control={"hexes": {CP: ["0101", "0401"]}},
    )
    p = g.state.pieces["fr-new"]
    M.move_piece(g, p, Loc.box(M.arrivals_box("FR")))
    M.set_attr(g, p, "arrive_at", "0101")
    assert R.arrival_cities(g, p) == [
        g.board.idx("0106")
    ]  # Lille is taken: the nearest national city
    be = g.state.pieces["be-new"]
    assert R.arrival_cities(g, be) == [
        g.board.idx("0106"),
        g.board.idx("0108"),
    ]  # Mons is taken: French cities


@pytest.mark.rules("LGG 5-B")
def test_lgg_5b_lgg9_half_the_stock_rounded_up() -> None:
    g = _g(
        [],
        powers={"FR": {"pr_stock": 15, "pr_flow": 0}, "DE": {"pr_stock": 1}, "GB": {"pr_stock": 0}},
        nations=None,
    )
    assert R.restoration_budget(g, "FR") == 8
    assert R.restoration_budget(g, "DE") == 1
    assert R.restoration_budget(g, "GB") == 0


def _restore_game(stock: int):
    pieces = [corps(f"m{k}", "DE", "0705", army="DE-1", face="reduced") for k in range(5)]
    pieces += [hq("viii-hq", "DE", "0703", "DE-8")]
    pieces += [corps(f"v{k}", "DE", "0703", army="DE-8", face="reduced") for k in range(5)]
    pieces += [
        {
            "id": "fort",
            "type": "fortress",
            "nation": "DE",
            "at": "0808",
            "attrs": {"size": "small"},
            "faces": {"full": {"defense": 2, "artillery": 2, "resistance": 1}},
        },
        corps("gar", "DE", {"inside": "fort"}, garrison="fort", face="reduced"),
    ]
    g = _g(
        pieces,
        powers={"DE": {"pr_stock": stock, "pr_flow": 0}, "FR": {"pr_stock": 0}},
        rules={
            "armies": [
                army("DE-1", "DE", "de-hq"),
                army("DE-8", "DE", "viii-hq"),
                army("FR-1", "FR", "fr-hq"),
            ]
        },
    )
    R.open_restorations(g)
    return g


@pytest.mark.rules("LGG 5-B")
def test_lgg_5b_lgg10_restoration_allowances() -> None:
    g = _restore_game(10)  # budget 5 PR, 1 PR each
    p = g.state.pieces
    done = []
    for uid in ["m0", "m1", "m2", "m3", "v0", "v1", "gar"]:
        if R.why_not_restore(g, CP, p[uid]) is None:
            R.restore(g, p[uid])
            done.append(uid)
    assert done == ["m0", "m1", "m2", "m3", "v0"]  # only 5 flips: half the stock
    assert "half its stock" in R.why_not_restore(g, CP, p["v1"])[1]
    g2 = _restore_game(30)
    p2 = g2.state.pieces
    flips = [
        u
        for u in ["v0", "v1", "v2", "v3", "v4"]
        if R.why_not_restore(g2, CP, p2[u]) is None and not R.restore(g2, p2[u])
    ]
    assert flips == ["v0", "v1", "v2", "v3"]  # 2 through the HQ, 2 anywhere
    assert R.why_not_restore(g2, CP, p2["gar"]) is None  # garrisons: no limit


@pytest.mark.rules("LGG 5-B")
def test_lgg_5b_lgg11_isolated_corps_and_minor_countries() -> None:
    pieces = [corps("iso", "FR", "0505", face="reduced")]
    pieces += [corps(f"e{k}", "DE", h) for k, h in enumerate(ring("0505"))]
    pieces += [corps(f"b{k}", "BE", "0301", face="reduced") for k in range(5)]
    g = _g(pieces, powers={"FR": {"pr_stock": 10}, "BE": {"pr_stock": 10}, "DE": {"pr_stock": 0}})
    R.open_restorations(g)
    assert R.why_not_restore(g, EN, g.state.pieces["iso"]) == (
        "LGG 5-B",
        "PR cannot be used for isolated corps",
    )
    flipped = [
        k
        for k in range(5)
        if R.why_not_restore(g, EN, g.state.pieces[f"b{k}"]) is None
        and not R.restore(g, g.state.pieces[f"b{k}"])
    ]
    assert flipped == [0, 1, 2, 3]  # a minor country restores 4 corps per turn


@pytest.mark.rules("LGG 5-C")
@pytest.mark.parametrize(
    "reading, flow, expect", [("replace", 5, 34), ("both", 5, 10), ("both", 20, 34)]
)
def test_lgg_5c_lgg6_1914_maxima(reading: str, flow: int, expect: int) -> None:
    """LGG-6 (audit 4: depends on A-5, so both readings are tested with a given flow)."""
    g = _g(
        [],
        powers={
            "RU": {"pr_stock": 41, "pr_flow": flow},
            "GB": {"pr_stock": 12, "pr_flow": 6},
            "FR": {"pr_stock": 30, "pr_flow": 20},
        },
        options={"pr-cap-1914-15": reading},
        nations=None,
    )
    R.apply_pr_caps(g)
    assert R.pr_stock(g, "RU") == expect
    assert R.pr_stock(g, "GB") == 12
    assert R.pr_stock(g, "FR") == 24


@pytest.mark.rules("LGG 5-C")
def test_lgg_5c_lgg12_twice_the_flow_after_1915() -> None:
    g = _g(
        [],
        first="1916-01",
        powers={"FR": {"pr_stock": 30, "pr_flow": 12}, "DE": {"pr_stock": 5, "pr_flow": 4}},
        rules={"last_turn": "1916-03"},
    )
    R.apply_pr_caps(g)
    assert R.pr_stock(g, "FR") == 24
    assert R.pr_stock(g, "DE") == 5


@pytest.mark.rules("LGG 5-D")
def test_lgg_5d_lgg13_unit_pr_conversions() -> None:
    pieces = [
        corps("c1", "DE", "0705", army="DE-1"),
        corps("c2", "DE", "0705", army="DE-1", face="reduced"),
        corps("unsup", "DE", "0202"),
        corps("e1", "FR", "0102"),
        corps("e2", "FR", "0302"),
        corps("e3", "FR", "0201"),
        corps("e4", "FR", "0203"),
        corps("e5", "FR", "0103"),
        corps("e6", "FR", "0301"),
        {
            "id": "fort",
            "type": "fortress",
            "nation": "DE",
            "at": "0808",
            "attrs": {"size": "small"},
            "faces": {"full": {"defense": 2, "artillery": 2, "resistance": 1}},
        },
        corps("gar", "DE", {"inside": "fort"}, garrison="fort"),
        corps("home", "GB", "0105", reduce_only=True),
    ]
    g = _g(pieces, first="1914-08", powers={"DE": {"pr_stock": 0}, "GB": {"pr_stock": 0}})
    p = g.state.pieces
    assert (
        R.why_not_convert(g, CP, p["c1"], "reduce") is None
        and R.conversion_gain(g, p["c1"], "reduce") == 1
    )
    assert (
        R.conversion_gain(g, p["c1"], "eliminate") == 2
        and R.conversion_gain(g, p["c2"], "eliminate") == 1
    )
    assert "supplied" in R.why_not_convert(g, CP, p["unsup"], "reduce")[1]
    assert R.why_not_convert(g, CP, p["gar"], "reduce") is None
    assert "garrison" in R.why_not_convert(g, CP, p["gar"], "eliminate")[1]
    assert "August 1914" in R.why_not_convert(g, EN, p["home"], "reduce")[1]
    R.apply_conversion(g, p["c1"], "reduce")
    R.apply_conversion(g, p["c2"], "eliminate")
    assert (
        R.pr_stock(g, "DE") == 2
        and p["c1"].face == "reduced"
        and p["c2"].loc == Loc.box(M.ELIMINATED)
    )


@pytest.mark.rules("LGG 5-D")
def test_lgg_5d_reduce_only_units_and_isolated_corps() -> None:
    pieces = [
        corps("home", "GB", "0105", reduce_only=True),
        corps("iso", "DE", "0303"),
        corps("f1", "FR", "0203"),
        corps("f2", "FR", "0204"),
        corps("f3", "FR", "0302"),
        corps("f4", "FR", "0304"),
        corps("f5", "FR", "0402"),
        corps("f6", "FR", "0403"),
    ]
    g = _g(pieces, powers={"GB": {"pr_stock": 0}, "DE": {"pr_stock": 0}})
    assert R.why_not_convert(g, EN, g.state.pieces["home"], "reduce") is None
    assert "only be reduced" in R.why_not_convert(g, EN, g.state.pieces["home"], "eliminate")[1]


@pytest.mark.rules("LGG 5-E")
def test_lgg_5e_lgg14_moujiks() -> None:
    pieces = [hq("ru-hq", "RU", "0402", "RU-1"), corps("ru-a", "RU", "0402", army="RU-1")]
    places = [
        *CITIES,
        {
            "hex": "0302",
            "kind": "city",
            "name": "Warsaw",
            "attrs": {"nation": "RU", "capital": True},
        },
    ]
    g = game(
        pieces=pieces,
        places=places,
        control={"hexes": {EN: ["0302", "0402", "0301", "0401"]}},
        rules={
            "first_turn": "1914-09",
            "last_turn": "1914-11",
            "armies": [army("RU-1", "RU", "ru-hq")],
            "powers": {"RU": {"pr_stock": 0, "pr_flow": 0}},
        },
    )
    assert not R.moujiks_due(g)  # September 1914
    to_turn(g, "1914-10", "reinforcement-side")
    act(g, CP, type="end-reinforcement")
    assert {a["type"] for a in g.legal_actions(EN)} == {"moujiks"}
    act(g, EN, type="moujiks", choice="infantry")
    made = [p for p in R.arrivals(g, EN) if p.attrs.get("moujik")]
    assert (
        len(made) == 2
        and made[0].stat("attack") == 2
        and made[0].stat("defense") == 3
        and made[0].stat("movement") == 3
    )
    targets = {
        a["at"] for a in g.legal_actions(EN) if a["type"] == "place" and a["unit"] == made[0].id
    }
    assert targets == {"0402", "0302"}  # with a supplied HQ or in a Russian city
    act(g, EN, type="moujik-pr", unit=made[0].id)
    act(g, EN, type="moujik-pr", unit=made[1].id)
    assert R.pr_stock(g, "RU") == 4


@pytest.mark.rules("LGG 5-E")
def test_lgg_5e_cossack_converts_to_two_pr() -> None:
    pieces = [hq("ru-hq", "RU", "0402", "RU-1")]
    g = game(
        pieces=pieces,
        rules={
            "first_turn": "1914-10",
            "armies": [army("RU-1", "RU", "ru-hq")],
            "powers": {"RU": {"pr_stock": 0}},
        },
    )
    (p,) = R.create_moujiks(g, "cossack")
    assert p.attrs["arm"] == "cavalry" and p.stat("movement") == 6
    assert R.moujiks_due(g)


@pytest.mark.rules("LGG 5-F")
def test_lgg_5f_lgg15_main_army_change_on_the_east_from_october() -> None:
    pieces = [
        hq("ru1", "RU", "0402", "RU-1"),
        hq("ru2", "RU", "0404", "RU-2"),
        hq("fr2", "FR", "0102", "FR-2"),
    ]
    areas = [{"name": "Russian", "kind": "sector", "hexes": ["0402", "0404"]}]
    rules = {
        "fronts": ["West", "East"],
        "armies": [army("RU-1", "RU", "ru1"), army("RU-2", "RU", "ru2"), army("FR-2", "FR", "fr2")],
        "main_armies": {EN: {"East": "RU-1"}},
    }
    g = game(pieces=pieces, areas=areas, rules={"first_turn": "1914-09", **rules})
    assert "October 1914" in R.why_not_main_army(g, EN, "East", "RU-2")
    assert R.why_not_main_army(g, EN, "West", "FR-2") is None
    assert "not on the East" in R.why_not_main_army(
        g, EN, "East", "FR-2"
    ) or "East" in R.why_not_main_army(g, EN, "East", "FR-2")
    g2 = game(pieces=pieces, areas=areas, rules={"first_turn": "1914-10", **rules})
    assert R.why_not_main_army(g2, EN, "East", "RU-2") is None
    R.set_main_army(g2, EN, "East", "RU-2")
    assert M.main_army(g2, EN, "East") == "RU-2" and M.st(g2)["main_army_stale"] == ["RU-1"]


@pytest.mark.rules("LGG 5-G")
def test_lgg_5g_lgg16_ghq_reserve_conditions() -> None:
    pieces = [
        corps("own", "FR", "0204", army="FR-1"),
        corps("free", "FR", "0203"),
        corps("gb", "GB", "0202"),
        corps("cut", "FR", "0603"),
        corps("d1", "DE", "0502"),
        corps("d2", "DE", "0503"),
        corps("d3", "DE", "0504"),
        corps("d4", "DE", "0602"),
        corps("d5", "DE", "0604"),
        corps("d6", "DE", "0702"),
        corps("d7", "DE", "0703"),
    ]
    g = _g(pieces)
    p = g.state.pieces
    assert R.why_not_ghq_reserve(g, EN, p["free"]) is None
    assert "own unit" in R.why_not_ghq_reserve(g, EN, p["own"])
    assert "GHQ" in R.why_not_ghq_reserve(
        g, EN, p["gb"]
    )  # England has no GHQ here: same nationality needed
    assert "supplied" in R.why_not_ghq_reserve(g, EN, p["cut"])


@pytest.mark.rules("LGG 5-H")
def test_lgg_5h_destroyed_hq_returns_next_turn() -> None:
    pieces = [
        corps("fr-a", "FR", "0303", army="FR-1"),
        corps("fr-res", "FR", {"inside": "fr-hq"}, army="FR-1", status=["reserve"]),
    ]
    g = _g(pieces, turns=["Sep 1914", "Oct 1914", "Nov-Dec 1914", "Jan-Feb 1915", "Mar-Apr 1915"])
    elimination.destroy_hq(g, g.state.pieces["fr-hq"], "LGG 5-H")
    assert g.state.pieces["fr-hq"].loc == Loc.box(M.DESTROYED_HQ)
    assert g.state.pieces["fr-res"].loc == Loc.box(M.ELIMINATED)
    assert R.hqs_due_back(g, EN) == []  # not the same turn
    to_turn(g, "1914-10", "reinforcement-side")
    act(g, CP, type="end-reinforcement")
    spots = {a["at"] for a in g.legal_actions(EN) if a["type"] == "return-hq"}
    assert spots == {"0303"}  # with a unit of its army
    with pytest.raises(IllegalAction):
        g.apply({"type": "end-reinforcement", "side": EN})
    act(g, EN, type="return-hq", hq="fr-hq", at="0303")
    assert M.hex_of(g, g.state.pieces["fr-hq"]) == g.board.idx("0303")


@pytest.mark.rules("LGG 5-H")
def test_lgg_5h_without_units_an_hq_returns_in_a_national_city() -> None:
    g = _g([])
    hqp = g.state.pieces["fr-hq"]
    elimination.destroy_hq(g, hqp, "LGG 5-H")
    assert set(R.hq_return_spots(g, hqp)) == {
        g.board.idx("0101"),
        g.board.idx("0106"),
        g.board.idx("0108"),
    }


@pytest.mark.rules("LGG 5-I")
def test_lgg_5i_what_may_be_rebuilt() -> None:
    pieces = [
        corps("c", "FR", "0303"),
        corps("barred", "FR", "0304", no_rebuild_from="1916-01"),
        {
            "id": "fort",
            "type": "fortress",
            "nation": "FR",
            "at": "0202",
            "attrs": {"size": "small"},
            "faces": {"full": {"defense": 2, "artillery": 2, "resistance": 1}},
        },
        corps("gar", "FR", {"inside": "fort"}, garrison="fort"),
    ]
    from grognard.scenario import ScenarioError

    with pytest.raises(ScenarioError):
        _g(pieces)  # no_rebuild_from is not a catalogue attribute of a scenario corps
    pieces[1] = corps("barred", "FR", "0304")
    g = _g(pieces)
    p = g.state.pieces
    assert R.can_be_rebuilt(g, p["c"])
    assert not R.can_be_rebuilt(g, p["fort"])
    p["barred"].attrs["no_rebuild_from"] = "1914-09"
    assert not R.can_be_rebuilt(g, p["barred"])
    assert R.can_be_rebuilt(g, p["gar"])
