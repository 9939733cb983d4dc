"""Random self-play on a scenario full of supply, artillery and engineering pieces: every listed
action is accepted, no invariant breaks (supply status consistent with a fresh trace included),
replays end on the same state."""

from __future__ import annotations

import pytest

from grognard.scenario import load_scenario_text
from grognard.selfplay import selfplay

from .helpers import CP, EN, army_hq, division, scenario_text, unit

pytestmark = pytest.mark.rules("OT 11", "OT 12", "OT 13")


def _pieces() -> list[dict]:
    def res(pid: str, at: str, nation: str) -> dict:
        return unit(pid, "res-pt", nation, at, size="", faces={})

    def depot(pid: str, at: str, nation: str) -> dict:
        return unit(
            pid,
            "supply-depot",
            nation,
            at,
            size="",
            faces={"operational": {}, "non-operational": {}},
            face="operational",
        )

    return [
        army_hq("fhq", "France", "0304"),
        division("f1", "France", "0404"),
        division("f2", "France", "0405"),
        unit("fh", "heavy-artillery", "France", "0504", a=6, d=2, m=3),
        unit("fg", "gas-heavy-artillery", "France", "0505", a=4, d=2, m=3),
        unit("fce", "construction", "France", "0304"),
        unit("frr", "railroad-engineer", "France", "0203"),
        unit("fpe", "port-construction-engineer", "France", "0106"),
        unit("fco", "combat-engineer", "France", "0405"),
        res("fr1", "0304", "France"),
        res("fr2", "0404", "France"),
        depot("fd", "0203", "France"),
        unit("fgs", "gsp", "France", "0304", size="", faces={}),
        army_hq("ghq", "Germany", "0804"),
        division("g1", "Germany", "0604"),
        division("g2", "Germany", "0605"),
        unit("gh", "heavy-artillery", "Germany", "0604", a=6, d=2, m=3),
        unit("gs", "siege-artillery", "Germany", "0605", a=8, d=2, m=2),
        unit("gce", "construction", "Germany", "0704"),
        unit("gas", "assault-engineer", "Germany", "0605"),
        res("gr1", "0804", "Germany"),
        res("gr2", "0704", "Germany"),
        depot("gd", "0902", "Germany"),
    ]


def stress_text() -> str:
    rows = [
        "cccccccccc",
        "ccwccccccc",
        "cccccfcccc",
        "cccccccccc",
        "ccrccccccc",
        "cccccccccc",
        "xxxxxxxxxx",
    ]
    cols = 10
    allh = [f"{c:02d}{r:02d}" for c in range(1, cols + 1) for r in range(1, 7)]
    control = {EN: [h for h in allh if int(h[:2]) <= 5], CP: [h for h in allh if int(h[:2]) > 5]}
    places = [
        ("0101", "partial-city", "A"),
        ("0103", "partial-city", "B"),
        ("0106", "port", "Port A", {"size": "standard"}),
        ("1001", "partial-city", "C"),
        ("1003", "factory", "D"),
        ("1006", "port", "Port C", {"size": "minor"}),
        ("0504", "fortress", "Fort", {"state": "improved", "type": "new"}),
        ("0405", "entrenchment", "Trench"),
    ]
    networks = [
        {
            "name": "rw",
            "kind": "rail",
            "paths": [
                ["0101", "0102", "0103", "0203", "0303", "0304"],
                ["0103", "0104", "0105", "0106"],
            ],
        },
        {
            "name": "re",
            "kind": "rail",
            "paths": [["1001", "1002", "1003", "0903", "0902"], ["1003", "1004", "1005", "1006"]],
            "attrs": {"volume": "low"},
        },
        {
            "name": "rd",
            "kind": "road",
            "paths": [["0304", "0404", "0504", "0604", "0704", "0804"], ["0304", "0305", "0405"]],
        },
    ]
    rules = (
        '[[rules.rail_nets]]\nname = "W"\narea = "west"\ncapacity = { Entente = 20, "Central'
        ' Powers" = 0 }\n[[rules.rail_nets]]\nname = "E"\narea = "east"\ncapacity = { Entente = 0,'
        ' "Central Powers" = 12 }\n[[rules.heads]]\nkind = "road"\nhex = "0405"\nbeyond ='
        ' ["0406"]\n'
    )
    areas = [
        {"name": "west", "kind": "rail-net", "hexes": [h for h in allh if int(h[:2]) <= 5]},
        {"name": "east", "kind": "rail-net", "hexes": [h for h in allh if int(h[:2]) > 5]},
        {"name": "Germany", "kind": "nation", "hexes": [h for h in allh if int(h[:2]) > 5]},
        {
            "name": "Channel",
            "kind": "sea-area",
            "hexes": [f"{c:02d}07" for c in range(1, cols + 1)],
        },
    ]
    turns = [("Feb I 16", {}), ("Feb II 16", {"weather": "mud"}), ("Mar I 16", {})]
    return scenario_text(
        rows=rows,
        pieces=_pieces(),
        places=places,
        networks=networks,
        rules=rules,
        areas=areas,
        control=control,
        hexsides=[("river", ["0305/0405"])],
        turns=turns,
    )


def test_supply_artillery_engineers_selfplay_without_violations() -> None:
    sc = load_scenario_text(stress_text(), "supply-stress")
    rep = selfplay(sc, games=2, seed=11, max_steps=900)
    assert rep.invariant_violations == 0, rep.problems
    assert rep.refused_legal_actions == 0, rep.problems
    assert rep.replay_mismatches == 0 and rep.view_leaks == 0, rep.problems
