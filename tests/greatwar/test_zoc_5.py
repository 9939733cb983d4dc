"""Rule 5: zones of control and ownership."""

from __future__ import annotations

import pytest

from grognard.rulesets.greatwar import mechanics
from grognard.rulesets.greatwar.map import zoc

from .helpers import CP, EN, army_hq, division, game, idx, unit


def labels(g, hexes):
    return sorted(g.board.label(h) for h in hexes)


def nbrs(g, h):
    return sorted([h, *[g.board.label(j) for j in g.board.neighbors(idx(g, h))]])


@pytest.mark.rules("OT 5A")
def test_ot_5a_divisions_project_into_all_adjacent_hexes() -> None:
    g = game(pieces=[division("d", "Germany", "0603")])
    assert labels(g, zoc.zoc_hexes(g, g.state.pieces["d"])) == nbrs(g, "0603")
    assert zoc.zoc_level(g, g.state.pieces["d"]) == zoc.FULL


@pytest.mark.rules("OT 5A")
def test_ot_5a_small_units_project_only_in_arctic_or_desert() -> None:
    """OT-G-13: a rifle brigade on the A/B boundary has a ZOC in adjacent zone A hexes only."""
    zone_a = ["0101", "0201", "0301", "0401", "0202", "0102", "0302", "0402"]
    rest = [
        f"{c:02d}{r:02d}"
        for c in range(1, 9)
        for r in range(1, 7)
        if f"{c:02d}{r:02d}" not in zone_a
    ]
    g = game(
        pieces=[unit("b", "rifle", "Germany", "0302", a=2, d=3, size="brigade", support="self")],
        areas=[
            {"name": "A", "kind": "weather-zone", "hexes": zone_a},
            {"name": "B", "kind": "weather-zone", "hexes": rest},
        ],
    )
    got = labels(g, zoc.zoc_hexes(g, g.state.pieces["b"]))
    expected = sorted(["0302", *[h for h in nbrs(g, "0302") if h in zone_a and h != "0302"]])
    assert got == expected
    assert any(
        h not in zone_a for h in nbrs(g, "0302")
    )  # some neighbours are in zone B and get no ZOC


@pytest.mark.rules("OT 5A")
def test_ot_5a_unsupported_division_projects_only_in_arctic_desert() -> None:
    g = game(pieces=[division("u", "Germany", "0603", a=4, d=7, support="unsupported")])
    assert labels(g, zoc.zoc_hexes(g, g.state.pieces["u"])) == ["0603"]


@pytest.mark.rules("OT 5A")
def test_ot_5a_no_zoc_across_prohibited_hexsides() -> None:
    """OT-G-14: a unit barred from high mountain hexsides has no ZOC across them."""
    g = game(
        pieces=[
            division("d", "Germany", "0603"),
            division("hm", "Germany", "0306", typ="high-mountain"),
        ],
        hexsides=[("high-mountain", ["0603/0602", "0306/0305"])],
        rows=["cccccccc"] * 5 + ["cgcccccc"],
    )
    hexes = labels(g, zoc.zoc_hexes(g, g.state.pieces["d"]))
    assert "0602" not in hexes and "0604" in hexes
    # a high mountain unit may cross such hexsides (in clear weather), so its ZOC does
    assert "0305" in labels(g, zoc.zoc_hexes(g, g.state.pieces["hm"]))
    # and nobody projects into a glacier hex
    assert "0206" not in labels(g, zoc.zoc_hexes(g, g.state.pieces["hm"]))


@pytest.mark.rules("OT 5A")
def test_ot_5a_units_with_zoc_in_own_hex_only_or_none() -> None:
    """OT-G-15: battalion, remnant, 0-strength brigade and artillery regiment: own hex only; HQs:
    none."""
    g = game(
        pieces=[
            unit("bn", "rifle", "Germany", "0601", size="battalion", support="self"),
            unit("rem", "rifle", "Germany", "0603", size="remnant", support="self"),
            unit("zero", "rifle", "Germany", "0605", a=0, d=0, size="brigade", support="self"),
            unit("art", "field-artillery", "Germany", "0801", a=3, d=4),
            army_hq("ahq", "Germany", "0803"),
            unit("chq", "corps-hq", "Germany", "0805", a=0, d=0, m=8, size="corps"),
            unit("axhq", "art-xx-hq", "Germany", "0806", a=0, d=0, size="division"),
        ]
    )
    for pid, h in (("bn", "0601"), ("rem", "0603"), ("zero", "0605"), ("art", "0801")):
        assert labels(g, zoc.zoc_hexes(g, g.state.pieces[pid])) == [h], pid
    for pid in ("ahq", "chq", "axhq"):
        assert zoc.zoc_level(g, g.state.pieces[pid]) == zoc.NONE
        assert zoc.zoc_hexes(g, g.state.pieces[pid]) == []


@pytest.mark.rules("OT 5A")
def test_ot_5a_reduced_and_lost_zocs() -> None:
    g = game(
        pieces=[
            unit("lone", "rifle", "Germany", "0601", a=2, d=3, size="brigade"),
            unit("with", "rifle", "Germany", "0603", a=2, d=3, size="brigade"),
            division("div", "Germany", "0603"),
            division("acc", "Germany", "0605"),
            division("sh", "Austria-Hungary", "0801"),
        ],
        nations={"France": "Entente", "Germany": CP, "Austria-Hungary": CP},
    )
    P = g.state.pieces
    assert zoc.zoc_level(g, P["lone"]) == zoc.REDUCED  # unsupported
    assert zoc.zoc_level(g, P["with"]) == zoc.FULL  # supported by the division with it
    P["acc"].status.add(zoc.ACCEL)
    assert zoc.zoc_level(g, P["acc"]) == zoc.NONE  # accelerated movement (OT 6B3)
    mechanics.gw(g).setdefault("nation_flags", {})["Austria-Hungary"] = {"shaken": True}
    assert zoc.zoc_level(g, P["sh"]) == zoc.REDUCED
    P["sh"].attrs["supply_out_since"] = 0  # out of general supply long ago: reduced again
    assert zoc.zoc_level(g, P["sh"]) == zoc.NONE
    mechanics.gw(g)["nation_flags"]["Austria-Hungary"] = {"collapse": True}
    del P["sh"].attrs["supply_out_since"]
    assert zoc.zoc_level(g, P["sh"]) == zoc.NONE
    m = zoc.zoc_map(g, CP)
    assert m[idx(g, "0601")] == zoc.REDUCED and m[idx(g, "0603")] == zoc.FULL


@pytest.mark.rules("OT 5B")
def test_ot_5b_ownership_by_occupation_and_uncontested_zoc() -> None:
    g = game(pieces=[division("f", "France", "0403"), division("g", "Germany", "0603")])
    # the French division took 0504 by its uncontested ZOC? 0504 is next to both: contested, no
    # change
    g.state.control[idx(g, "0502")] = CP
    zoc.update_ownership(g)
    owner = g.state.control
    assert owner[idx(g, "0403")] == EN
    # a hex in both sides' ZOC does not change hands
    both = set(zoc.zoc_map(g, EN)) & set(zoc.zoc_map(g, CP))
    for h in both:
        assert owner[h] in (EN, CP)
    # occupation wins whatever enemy ZOCs are there
    from grognard.core.state import Loc

    g.state.move("f", Loc.hex(idx(g, "0503")))
    changes = zoc.update_ownership(g)
    assert owner[idx(g, "0503")] == EN and any(c[0] == idx(g, "0503") for c in changes)
    # an uncontested ZOC gains a hex: move the German away, the French ZOC now owns its neighbours
    g.state.move("g", Loc.box("eliminated"))
    zoc.update_ownership(g)
    for h in g.board.neighbors(idx(g, "0503")):
        assert owner[h] == EN


@pytest.mark.rules("OT 5B")
def test_ot_5b_enemy_city_only_by_occupation_and_contested_hexes_frozen() -> None:
    g = game(
        pieces=[division("f", "France", "0403")],
        places=[("0504", "point-city", "Town"), ("0404", "fortress", "Fort")],
    )
    g.state.control[idx(g, "0504")] = CP
    g.state.control[idx(g, "0502")] = CP
    mechanics.set_marker(g, "contested", idx(g, "0502"), True)
    zoc.update_ownership(g)
    assert g.state.control[idx(g, "0504")] == CP  # a city: ZOC alone is not enough
    assert g.state.control[idx(g, "0502")] == CP  # contested: only OT 9J changes it
    assert g.state.control[idx(g, "0503")] == EN  # ordinary hex in its uncontested ZOC
    assert any(ev["type"] == "ownership" and ev["rule"] == "OT 5B" for ev in g.state.log)
