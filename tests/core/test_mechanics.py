"""Tables, exact arithmetic, modifiers, options, serialisation, rule coverage."""

from fractions import Fraction
from pathlib import Path

import pytest

from grognard.core import arith, rules, serial
from grognard.core.dice import DieSpec
from grognard.core.modifiers import Modifiers
from grognard.core.options import OptionError, OptionSet, OptionSpec
from grognard.core.tables import ResultsTable, TableError

CRT = {
    "id": "crt",
    "title": "test",
    "provisional": True,
    "derived_from": ["X 1"],
    "die": "d6",
    "columns": ["1:2", "1:1", "2:1"],
    "rows": {str(i): [f"a{i}", f"b{i}", f"c{i}"] for i in range(1, 7)},
}


def test_table_lookup_clamps_rolls_and_shifts_columns() -> None:
    t = ResultsTable.from_mapping(CRT)
    assert t.lookup("1:1", 3).result == "b3"
    lk = t.lookup("1:1", 9)
    assert lk.result == "b6" and lk.clamped and lk.row == 6
    assert t.lookup("1:1", -2).result == "b1"
    assert t.lookup("1:1", 4, shift=+5).result == "c4"
    assert t.lookup("1:1", 4, shift=-5).result == "a4"
    assert "clamped" in lk.explain()
    dist = t.distribution("2:1", modifier=2)
    assert dist["c6"] == pytest.approx(3 / 6)
    assert sum(dist.values()) == pytest.approx(1)


def test_table_errors() -> None:
    with pytest.raises(TableError, match="unknown key"):
        ResultsTable.from_mapping({**CRT, "colums": []})
    with pytest.raises(TableError, match="needs 3 cells"):
        ResultsTable.from_mapping({**CRT, "rows": {"1": ["x"]}})
    with pytest.raises(TableError, match="consecutive"):
        ResultsTable.from_mapping({**CRT, "rows": {"1": ["a", "b", "c"], "3": ["a", "b", "c"]}})
    with pytest.raises(TableError, match="derived_from"):
        ResultsTable.from_mapping({**CRT, "derived_from": []})
    with pytest.raises(TableError, match="no column"):
        ResultsTable.from_mapping(CRT).lookup("9:1", 1)


def test_table_file_and_override(tmp_path: Path) -> None:
    from grognard import rulesets

    tiny = rulesets.get("tiny")
    shipped = tiny.tables()["crt"]
    assert shipped.provisional and shipped.derived_from == ("T 4",)
    text = (
        Path(shipped.source).read_text().replace('"AE", "AE", "EX", "DR"', '"DE", "DE", "DE", "DE"')
    )
    replaced = tiny.tables({"crt": text})["crt"]
    assert replaced.lookup("1:2", 1).result == "DE"
    with pytest.raises(ValueError, match="no table"):
        tiny.tables({"nope": text.replace('id = "crt"', 'id = "nope"')})
    assert tiny.data_hash() != tiny.data_hash({"crt": text})


def test_die_specs() -> None:
    assert (DieSpec.parse("2d6").low, DieSpec.parse("2d6").high) == (2, 12)
    assert (DieSpec.parse("d6/2").low, DieSpec.parse("d6/2").high) == (1, 3)
    assert str(DieSpec.parse("d12")) == "d12"
    with pytest.raises(ValueError):
        DieSpec.parse("d1")


def test_exact_arithmetic_and_rounding() -> None:
    assert arith.half(7) == Fraction(7, 2)
    assert (
        arith.fmt(Fraction(7, 2)) == "3½"
        and arith.fmt(Fraction(1, 4)) == "¼"
        and arith.fmt(3) == "3"
    )
    assert arith.frac("3½") == Fraction(7, 2) and arith.frac("1/3") == Fraction(1, 3)
    assert arith.round_down(Fraction(7, 2)) == 3 and arith.round_up(Fraction(7, 2)) == 4
    assert arith.round_half_up(Fraction(5, 2)) == 3 and arith.round_half_down(Fraction(5, 2)) == 2
    assert arith.half_down_min1(1) == 1 and arith.half_up(5) == 3
    # odds rounded in favour of the defender
    assert arith.odds_ratio(17, 6) == (2, 1)
    assert arith.odds_ratio(5, 6) == (1, 2)
    assert arith.odds_ratio(Fraction(7, 2), 7) == (1, 2)
    assert arith.odds_ratio(0, 3) == (0, 1)
    with pytest.raises(ValueError):
        arith.frac(0.1)


def test_modifiers_with_provenance() -> None:
    m = Modifiers().add(1, "X 1", "contested").add(-2, "X 2", "river").add(0, "X 3", "ignored")
    assert m.total() == -1 and len(m) == 2
    assert m.total(low=0) == 0
    assert "contested (X 1)" in m.explain()
    assert serial.to_jsonable(m)[0] == {"value": 1, "rule": "X 1", "reason": "contested"}


def test_options_resolution() -> None:
    specs = OptionSet.of(
        [
            OptionSpec("basic-air", "Basic air", "basic", True, group="air"),
            OptionSpec("advanced-air", "Advanced air", "advanced", False, group="air"),
            OptionSpec("odds", "Incremental odds", "optional", False, requires=("basic-air",)),
            OptionSpec("variant", "Variant", "interpretation", "a", choices=("a", "b")),
        ]
    )
    assert specs.resolve({"odds": True})["odds"] is True
    with pytest.raises(OptionError, match="exclude each other"):
        specs.resolve({"advanced-air": True})
    assert specs.resolve({"advanced-air": True, "basic-air": False})["advanced-air"]
    with pytest.raises(OptionError, match="requires"):
        specs.resolve({"basic-air": False, "odds": True})
    with pytest.raises(OptionError, match="unknown option"):
        specs.resolve({"oods": True}, where="scenario.options")
    with pytest.raises(OptionError, match="one of"):
        specs.resolve({"variant": "c"})


def test_serial_round_trip_keeps_fractions() -> None:
    obj = {"a": Fraction(7, 2), "b": {1, 2}, "c": (1, Fraction(3))}
    back = serial.from_jsonable(serial.to_jsonable(obj))
    assert back["a"] == Fraction(7, 2) and back["b"] == [1, 2] and back["c"][1] == 3
    assert serial.digest({"x": 1, "y": 2}) == serial.digest({"y": 2, "x": 1})


def test_rule_coverage_report() -> None:
    from grognard import rulesets

    tiny = rulesets.get("tiny")
    tiny.load_rule_modules()
    tests = rules.scan_tests([Path(__file__).resolve().parent])
    rows = {r["id"]: r for r in rules.coverage(tiny.rule_list(), rules.implemented(), tests)}
    assert rows["T 3"]["status"] == "tested"
    assert rows["T 7"]["status"] == "outside-seeds"
    assert rows["T 8"]["status"] == "missing"
    assert "test_game.py" in rows["T 3"]["where"]


def test_rule_coverage_parents_follow_children() -> None:
    entries = [
        rules.RuleEntry("X 9", "combat"),
        rules.RuleEntry("X 9A", "a"),
        rules.RuleEntry("X 9B", "b"),
    ]
    impl = {"X 9A": ["m:a"], "X 9B": ["m:b"]}
    rows = rules.coverage(entries, impl, {"X 9A": ["t"], "X 9B": ["t"]})
    assert [r["status"] for r in rows] == ["tested", "tested", "tested"]
    rows = rules.coverage(entries, impl, {"X 9A": ["t"]})
    assert rows[0]["status"] == "implemented"
    assert rules._is_child("LGG 16", "LGG 16.1") and rules._is_child("LGG 16.1", "LGG 16.1-A")
    assert not rules._is_child("OT 1", "OT 10") and rules._is_child("OT 9F", "OT 9F2")
