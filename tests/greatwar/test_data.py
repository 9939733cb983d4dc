"""Data files, options, charts and scenario validation of the greatwar rule system."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from grognard.core.options import OptionError
from grognard.rulesets import get
from grognard.rulesets.greatwar import charts as chartmod
from grognard.rulesets.greatwar.units.catalogue import load_catalogue, load_theaters, nation_info
from grognard.scenario import ScenarioError, find, load_scenario_text

from .helpers import CP, EN, division, game, scenario_text, unit

RS = get("greatwar")
DATA = Path(RS.data_dir)


@pytest.mark.rules("OT 1")
def test_ot_1_every_tier_is_an_option() -> None:
    specs = {s.id: s for s in RS.option_specs}
    for oid in (
        "advanced-air",
        "advanced-naval",
        "advanced-production",
        "variable-re-advanced",
        "overstacking",
        "isolated-rail-sections",
        "navigable-waterways",
        "marginal-units",
        "incremental-odds",
        "field-art-as-nonart-losses",
        "marine-units",
        "hq-coordination",
        "limited-intelligence",
        "siege",
        "carpet-bombing",
        "optional-air-crt",
    ):
        assert oid in specs, oid
        assert specs[oid].kind in ("advanced", "optional")
        assert specs[oid].rule.startswith("OT ")
    assert specs["overstacking"].default is False
    g = game(options={"overstacking": True})
    assert g.opt("overstacking") is True
    with pytest.raises(OptionError):
        game(options={"carpet-bombing": True})  # requires the advanced air rules


def test_interpretation_switches_declared() -> None:
    specs = {s.id: s for s in RS.option_specs}
    assert specs["transport-doubling"].choices == ("all-artillery", "he-artillery")
    assert specs["exploitation-eligibility"].default == "all-6E"
    assert specs["rail-break-phases"].default == "all-movement-phases"
    assert all(
        s.kind == "interpretation"
        for k, s in specs.items()
        if k in ("transport-doubling", "gsp-brackets", "odds-shift-before-clamp")
    )


def test_catalogue_loads_and_is_consistent() -> None:
    cat = load_catalogue()
    assert len(cat.types) > 80
    for t in cat.types.values():
        assert t.classes <= {"non-motorized", "artillery", "cm"}
        if "artillery" in t.classes:
            assert t.zoc in ("own-hex", "none")
    assert cat.resolve("army-hq").re == 3
    assert cat.resolve("gsp").re == pytest.approx(0.25)
    assert set(cat.sizes) >= {"division", "brigade", "regiment", "battalion", "cadre", "remnant"}
    data = tomllib.loads((DATA / "units.toml").read_text(encoding="utf-8"))
    assert data["provisional"] is True and data["derived_from"] and data["notes"]


def test_nations_and_theaters_data() -> None:
    assert nation_info("Austro-Hungarian").id == "Austria-Hungary"
    assert nation_info("Germany").power == "great"
    assert nation_info("Italy").side is None
    th = load_theaters()
    assert set(th) == {
        "West",
        "East",
        "South",
        "Africa",
        "Asia",
        "North America",
        "South America",
        "Pacific",
    }
    assert "France/West Germany" in th["West"]


def test_charts_are_provisional_with_sources() -> None:
    for cid, (text, _src) in chartmod.shipped_chart_texts().items():
        ch = chartmod.load_chart_text(text, cid)
        assert ch.provisional and ch.derived_from and ch.notes, cid
    ch = chartmod.load_charts()
    assert ch.tec.hexes["mountain"].crt == "positional"
    assert ch.tec.hexes["clear"].crt == "mobile"
    gst = RS.tables()["gst"]
    assert gst.provisional and gst.derived_from


def test_chart_override_replaces_the_shipped_chart() -> None:
    text = (
        (DATA / "charts" / "zoc-costs.toml")
        .read_text(encoding="utf-8")
        .replace("standard = 2", "standard = 3")
    )
    RS.tables({"zoc-costs": text})
    over = chartmod.load_charts({"zoc-costs": text})
    assert over.zoc_costs.body["exit"]["full"]["standard"] == 3
    with pytest.raises(ValueError):
        RS.tables({"zoc-costs": "id = 'tec'\ntitle = 'x'\n"})
    with pytest.raises(ValueError):
        RS.tables(
            {
                "tec": (
                    (DATA / "charts" / "tec.toml")
                    .read_text(encoding="utf-8")
                    .replace(
                        "[hex.clear]\ncm-art = [1, 3, 1, 2, 3]", "[hex.clear]\ncm-art = [1, 3]"
                    )
                )
            }
        )


def test_tutorial_scenario_loads() -> None:
    sc = find("gw-tutorial")
    assert sc.data.scenario.tutorial
    assert sc.board.n <= 150
    assert len(sc.data.turns) >= 3
    assert sc.data.victory["objectives"]
    kinds = {pt.kind for plist in sc.board.points.values() for pt in plist}
    assert {"partial-city", "point-city"} <= kinds
    feats = set()
    for s in range(sc.board.m):
        feats |= set(sc.board.side_feature_list(s))
    assert "river" in feats
    assert {"rail", "road"} <= {n.kind for n in sc.board.networks.values()}
    assert "forest" in sc.board.terrain_names and any(
        sc.board.terrain_of(i) == "forest" for i in range(sc.board.n)
    )


def _problems(**kw: object) -> list[tuple[str, str]]:
    with pytest.raises(ScenarioError) as e:
        load_scenario_text(scenario_text(**kw), "<t>")  # type: ignore[arg-type]
    return e.value.problems


def test_scenario_validation_reports_bad_pieces_and_turns() -> None:
    probs = _problems(pieces=[unit("b", "zeppelin", "France", "0102")])
    assert {p for p, _ in probs} == {"pieces[1 - 1].type".replace("1 - 1", "0")}
    probs = _problems(
        pieces=[
            unit("a", "rifle", "France", "0101", size="platoon"),
            unit("c", "rifle", "France", "0102", colour="red"),
        ],
        turns=[("Sep I 14", {"weather": "hail"}), ("Sep I 14", {})],
    )
    paths = {p for p, _ in probs}
    assert "pieces[0].attrs.size" in paths
    assert "pieces[1].attrs.colour" in paths
    assert "turns[0].attrs.weather" in paths
    assert "turns[1].label" in paths


def test_scenario_validation_reports_bad_rules_and_victory() -> None:
    probs = _problems(
        rules='commands = { Entente = ["Atlantis"] }\nroad_quality = "dreadful"',
        victory='objectives = [{ hex = "9999" }]',
    )
    paths = {p for p, _ in probs}
    assert any(p.startswith("rules.road_quality") for p in paths)
    probs = _problems(
        rules='commands = { Entente = ["Atlantis"] }',
        victory='objectives = [{ hex = "9999" }]\nmargin = 1',
    )
    text = " ".join(m for _, m in probs)
    assert "Atlantis" in text and "9999" in text
    probs = _problems(victory="bogus = 1")
    assert any(p == "victory.bogus" for p, _ in probs)


def test_scenario_sides_must_be_entente_then_central_powers() -> None:
    text = scenario_text(pieces=[division("f", "France", "0101")]).replace(
        f'sides = ["{EN}", "{CP}"]', f'sides = ["{CP}", "{EN}"]'
    )
    with pytest.raises(ScenarioError) as e:
        load_scenario_text(text, "<t>")
    assert any(p == "scenario.sides" for p, _ in e.value.problems)
