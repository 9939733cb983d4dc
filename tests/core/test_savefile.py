"""Malformed saves: every one is refused by ``show``, ``actions`` and ``do`` with one line naming
the file and the key, and a save without its hashes is refused (it could have lost its last
actions unnoticed)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grognard.cli import EXIT_INVALID, main
from grognard.core import savefile, saves
from grognard.core.errors import SaveError
from grognard.core.game import Game
from grognard.scenario import find

Mutation = Callable[[dict[str, Any]], Any]

MUTATIONS: list[tuple[str, Mutation, str]] = [
    ("seed missing", lambda s: s.pop("seed"), "seed: missing"),
    ("seed a string", lambda s: s.update(seed="abc"), "seed: must be an integer"),
    ("seed null", lambda s: s.update(seed=None), "seed: must be an integer, not null"),
    ("seed true", lambda s: s.update(seed=True), "seed: must be an integer"),
    ("seed huge", lambda s: s.update(seed=2**70), "seed: must be an integer between"),
    ("table_overrides true", lambda s: s.update(table_overrides=True), "table_overrides: must"),
    ("table_overrides of numbers", lambda s: s.update(table_overrides={"crt": 1}), "crt: must"),
    ("checkpoints [[1]]", lambda s: s.update(checkpoints=[[1]]), "checkpoints[0]: must be"),
    ("checkpoints null", lambda s: s.update(checkpoints=None), "checkpoints: must be an array"),
    ("checkpoints missing", lambda s: s.pop("checkpoints"), "checkpoints: missing"),
    ("checkpoints empty", lambda s: s.update(checkpoints=[]), "checkpoints: must not be empty"),
    (
        "checkpoint after the last action",
        lambda s: s["checkpoints"].append({"after": 99, "turn": "T9", "hash": "0" * 64}),
        "checkpoints[1].after",
    ),
    (
        "checkpoint hash not hex",
        lambda s: s["checkpoints"][0].update(hash="xyz"),
        "checkpoints[0].hash",
    ),
    ("actions null", lambda s: s.update(actions=None), "actions: must be an array"),
    ("actions missing", lambda s: s.pop("actions"), "actions: missing"),
    ("an action a number", lambda s: s["actions"].append(1), "actions[2] (action 3)"),
    ("an action without type", lambda s: s["actions"][0].pop("type"), "actions[0] (action 1)"),
    (
        "100,000-deep arrays",
        lambda s: s["actions"][0].update(x="DEEP"),
        "nested more than 64 levels",
    ),
    ("options a list", lambda s: s.update(options=[1]), "options: must be an object"),
    ("an option an object", lambda s: s["options"].update(x={}), "options: x: must be"),
    ("state_hash missing", lambda s: s.pop("state_hash"), "state_hash: missing"),
    ("state_hash short", lambda s: s.update(state_hash="abc"), "state_hash: must be a SHA-256"),
    ("data_hash null", lambda s: s.update(data_hash=None), "data_hash: must be a SHA-256"),
    ("scenario_source a number", lambda s: s.update(scenario_source=5), "scenario_source: must"),
    ("scenario_source missing", lambda s: s.pop("scenario_source"), "scenario_source: missing"),
    ("ruleset empty", lambda s: s.update(ruleset=""), "ruleset: must not be empty"),
    ("schema a string", lambda s: s.update(schema="1"), "schema: must be an integer"),
    ("schema 0", lambda s: s.update(schema=0), "schema: must be between 1 and"),
    ("schema newer", lambda s: s.update(schema=99), "schema: 99 is newer than this grognard"),
    ("format wrong", lambda s: s.update(format="zip"), "format: must be"),
    ("format missing", lambda s: s.pop("format"), "missing 'format'"),
    ("a misspelt key", lambda s: s.update(seeds=1), "seeds: unknown key"),
    ("a lone surrogate", lambda s: s["actions"][0].update(x="\ud800"), "lone UTF-16 surrogate"),
    (
        "the last action and the state hash deleted",
        lambda s: (s["actions"].pop(), s.pop("state_hash")),
        "state_hash: missing",
    ),
    ("a list, not an object", lambda s: "LIST", "not a grognard save or record"),
    ("not JSON", lambda s: "TRUNCATED", "the file is not JSON"),
    (
        "the scenario text changed",
        lambda s: s.update(scenario_source=s["scenario_source"] + "\n# edited\n"),
        "scenario_source: the scenario text does not match its recorded scenario_hash",
    ),
]


@pytest.fixture
def saved(tiny_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    save = tmp_path / "g.json"
    assert main(["new", str(tiny_path), "--seed", "4", "-o", str(save)]) == 0
    for side in ("Blue", "Red"):
        act = {"type": "commit", "side": side, "key": "posture", "value": "bold"}
        assert main(["do", str(save), json.dumps(act)]) == 0
    capsys.readouterr()
    data: dict[str, Any] = json.loads(save.read_text(encoding="utf-8"))
    assert len(data["actions"]) == 2
    return data


def write(tmp_path: Path, data: dict[str, Any], mutate: Mutation) -> Path:
    bad = json.loads(json.dumps(data))
    out = mutate(bad)
    text = json.dumps(bad, ensure_ascii=True)
    if out == "LIST":
        text = "[1, 2]"
    elif out == "TRUNCATED":
        text = text[: len(text) // 2]
    text = text.replace('"DEEP"', "[" * 100_000 + "]" * 100_000)
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("name", "mutate", "said"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_malformed_save_is_one_line_naming_the_key(
    saved: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    mutate: Mutation,
    said: str,
) -> None:
    path = write(tmp_path, saved, mutate)
    before = path.read_bytes()
    for argv in (
        ["show", str(path)],
        ["actions", str(path)],
        ["do", str(path), '{"type": "end-phase", "side": "Blue"}'],
        ["record", str(path), "-o", str(tmp_path / "rec.json")],
        ["replay", str(path)],
    ):
        assert main(argv) == EXIT_INVALID, argv
        out = capsys.readouterr()
        lines = out.err.strip().splitlines()
        assert len(lines) == 1, (argv, out.err[-2000:])
        assert lines[0].startswith(f"{path}: ") and said in lines[0], (argv, lines[0])
        assert out.out == ""
    assert path.read_bytes() == before
    assert not (tmp_path / "rec.json").exists()


def test_the_shipped_form_passes_and_loads(saved: dict[str, Any]) -> None:
    savefile.check_save(saved)
    g = savefile.load_game(saved)
    assert len(g.actions) == 2 and g.state_hash() == saved["state_hash"]


def test_a_signed_save_verifies_only_with_its_key(saved: dict[str, Any]) -> None:
    key = b"k" * 32
    signed = savefile.sign(saved, key)
    savefile.check_save(signed)
    savefile.verify(signed, key)
    with pytest.raises(SaveError, match="signature: does not match"):
        savefile.verify(signed, b"other key")
    forged = dict(signed, scenario_source=signed["scenario_source"] + "\n")
    with pytest.raises(SaveError, match="signature: does not match"):
        savefile.verify(forged, key)
    with pytest.raises(SaveError, match="signature: missing"):
        savefile.verify(saved, key)


def test_a_save_of_a_scenario_compiled_in_this_process_loads_without_compiling_it_again() -> None:
    """A save carries its scenario's text; loading it reuses the scenario this process compiled
    from the same text, name and tables (here from its file), so a long game loads in the time
    of its snapshot; a scenario text it has not compiled is compiled (and kept for the next)."""
    sc = find("gw-tutorial")
    g = Game.new(sc, 1)
    saved = json.loads(json.dumps(g.save()))
    assert Game.load(saved).scenario is sc
    text = saved["scenario_source"] + "\n# a comment\n"
    first = saves.scenario_of(text, saved["scenario_file"], saved["table_overrides"])
    assert first is not sc and first.id == sc.id
    assert saves.scenario_of(text, saved["scenario_file"], saved["table_overrides"]) is first
