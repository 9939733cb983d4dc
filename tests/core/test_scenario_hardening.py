"""Scenario validation closes what used to pass: printed values out of range, a value code that
is not a string, misspelt keys in free-form tables, unknown nations on places, a file cut short
of its pieces, maps too large to build. Each is refused naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from grognard.scenario import ScenarioError, find, load_scenario, load_scenario_text
from grognard.scenario.loader import MAX_HEXES


def refused(scenario_id: str, old: str, new: str, count: int = 1) -> str:
    sc = find(scenario_id)
    text = sc.source_text
    assert old in text, old
    with pytest.raises(ScenarioError) as e:
        load_scenario_text(text.replace(old, new, count), sc.source_name)
    return str(e.value)


def test_a_printed_value_out_of_range_is_refused() -> None:
    msg = refused(
        "gw-tutorial",
        "faces = { full = { attack = 8, defense = 11, move = 5 }",
        "faces = { full = { attack = -1000000, defense = 11, move = 5 }",
    )
    assert "faces.full.attack: -1000000 is out of range (0..99)" in msg
    msg = refused("lgg-tutorial", "attack = 8, fire = 4", "attack = 8, fire = 400")
    assert "faces.full.fire: 400 is out of range (0..99)" in msg


def test_an_lgg_value_code_must_be_a_string() -> None:
    msg = refused("lgg-tutorial", 'code = "84-9-4"', "code = false")
    assert "attrs.code: must be a string, not False" in msg


def test_a_misspelt_key_in_a_free_form_table_is_refused() -> None:
    msg = refused(
        "lgg-tutorial",
        'attrs = { nation = "FR", production = 1',
        'attrs = { nations = "FR", production = 1',
    )
    assert "attrs.nations: unknown key; did you mean 'nation'?" in msg
    msg = refused("gw-tutorial", 'gauge = "standard"', 'gague = "standard"')
    assert ".attrs.gague: unknown key; did you mean 'gauge'?" in msg


def test_an_unknown_nation_on_a_place_is_refused() -> None:
    msg = refused(
        "lgg-tutorial",
        'attrs = { nation = "FR", production = 1',
        'attrs = { nation = "XX", production = 1',
    )
    assert "attrs.nation: 'XX' is not one of AH, BE, BG," in msg


def test_a_scenario_file_cut_short_of_its_pieces_is_refused(tmp_path: Path) -> None:
    text = find("lgg-tutorial").source_text
    cut = tmp_path / "cut.toml"
    cut.write_text(text[: text.index("[[pieces]]")], encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        load_scenario(cut)
    assert str(e.value) == (
        f"{cut}: pieces: the file has no pieces (is it cut short? write pieces = [] if on purpose)"
    )


def test_a_map_over_the_limit_is_refused_before_it_is_built() -> None:
    msg = refused("gw-tutorial", "cols = [1, 12]", "cols = [1, 200000]")
    assert f"the limit is {MAX_HEXES:,} hexes" in msg and "maps[0]" in msg


@pytest.mark.parametrize(
    ("scenario_id", "old", "new", "said"),
    [
        (
            "gw-tutorial",
            "attack = 8, defense = 11",
            "attack = nan, defense = 11",
            "nan is not a number",
        ),
        (
            "marne-1914",
            "attrs = { amount = 2 }",
            "attrs = { amount = 9223372036854775808 }",
            "out of range (1..99)",
        ),
        (
            "marne-1914",
            'attrs = { size = "division" }',
            "attrs = { size = { x = 1 } }",
            "attrs.size: must be a string",
        ),
        ("marne-1914", "equ = 4, res = 6", "equ = 4, res = []", "params.res: must be an integer"),
        ("lgg-tutorial", 'army = "DE-2", arm', 'army = ["a"], arm', "attrs.army: must be a string"),
    ],
)
def test_values_found_by_fuzzing_are_refused_by_validation(
    scenario_id: str, old: str, new: str, said: str
) -> None:
    """Each passed validation and then broke the game's set-up (a NaN printed value, 2**63 Res
    Pts, a table or a list where the rule code reads a name or a number)."""
    assert said in refused(scenario_id, old, new)
