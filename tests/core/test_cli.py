"""The command line, run as a real subprocess."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

VERBS = [
    "scenarios",
    "validate",
    "new",
    "show",
    "actions",
    "do",
    "undo",
    "record",
    "replay",
    "selfplay",
    "rules",
    "play",
    "bench",
]


def run(
    args: list[str], env: dict[str, str], cwd: Path | None = None, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "grognard.cli", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        input=input,
        timeout=120,
    )


def test_help_lists_every_verb(cli_env: dict[str, str]) -> None:
    out = run(["--help"], cli_env).stdout
    for v in VERBS:
        assert v in out
    for v in VERBS:
        r = run([v, "--help"], cli_env)
        assert r.returncode == 0 and "usage:" in r.stdout


def test_validate_reports_file_and_key_path(
    cli_env: dict[str, str], tiny_path: Path, tmp_path: Path
) -> None:
    assert run(["validate", str(tiny_path)], cli_env).returncode == 0
    bad = tmp_path / "bad.toml"
    bad.write_text(
        tiny_path.read_text().replace('title = "Tiny duel"', 'title = "Tiny duel"\ntitel = 1')
    )
    r = run(["validate", str(bad)], cli_env)
    assert r.returncode != 0
    assert f"{bad}: scenario.titel: unknown key" in r.stderr
    bad.write_text(tiny_path.read_text().replace("rows = [1, 4]", "rows = [1, -4]"))
    r = run(["validate", str(bad), "--json"], cli_env)
    assert r.returncode != 0
    data = json.loads(r.stdout)
    assert data["ok"] is False and data["problems"][0]["path"].startswith("maps[0].rows")


def test_game_through_the_cli(cli_env: dict[str, str], tiny_path: Path, tmp_path: Path) -> None:
    save = tmp_path / "g.json"
    assert run(["new", str(tiny_path), "--seed", "4", "-o", str(save)], cli_env).returncode == 0
    acts = json.loads(run(["actions", str(save), "--json"], cli_env).stdout)
    assert acts["acting"] == ["Blue", "Red"]
    for side in ("Blue", "Red"):
        r = run(
            [
                "do",
                str(save),
                json.dumps({"type": "commit", "side": side, "key": "posture", "value": "bold"}),
            ],
            cli_env,
        )
        assert r.returncode == 0, r.stderr
    before = save.read_bytes()
    r = run(
        ["do", str(save), '{"type": "move", "side": "Blue", "piece": "b1", "to": "0104"}'], cli_env
    )
    assert r.returncode != 0 and "[T 3]" in r.stderr
    assert save.read_bytes() == before
    r = run(["do", str(save), "{not json"], cli_env)
    assert r.returncode != 0 and save.read_bytes() == before
    r = run(
        ["do", str(save), '{"type": "move", "piece": "b1", "to": "0202"}'], cli_env
    )  # side filled in
    assert r.returncode == 0, r.stderr
    assert "b1 moves to 0202" in r.stdout
    assert run(["undo", str(save)], cli_env).returncode == 0
    r = run(["undo", str(save)], cli_env)
    assert r.returncode != 0 and "cannot undo" in r.stderr
    view = json.loads(run(["show", str(save), "--side", "Blue", "--json"], cli_env).stdout)
    assert "r-scout" not in json.dumps(view)
    text = run(["show", str(save), "--side", "Red"], cli_env).stdout
    assert "map T" in text and "Movement phase" in text
    rec = tmp_path / "g.rec.json"
    assert run(["record", str(save), "-o", str(rec)], cli_env).returncode == 0
    r = run(["replay", str(rec), "--json"], cli_env)
    assert r.returncode == 0 and json.loads(r.stdout)["ok"] is True
    data = json.loads(rec.read_text())
    data["checkpoints"][0]["hash"] = "f" * 64
    rec.write_text(json.dumps(data))
    r = run(["replay", str(rec)], cli_env)
    assert r.returncode != 0 and "replay diverged at action 0" in r.stderr


def test_selfplay_json_summary(cli_env: dict[str, str], tiny_path: Path) -> None:
    r = run(
        ["selfplay", str(tiny_path), "--games", "8", "--seed", "1", "--json", "--progress"], cli_env
    )
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stderr.splitlines()
    assert [line.split(":")[0] for line in lines] == [f"game {k}/8" for k in range(1, 9)]
    assert all(", 0 refused actions, " in line for line in lines), lines
    data = json.loads(r.stdout)
    for key in ("games", "actions", "invariant_violations", "replay_mismatches", "view_leaks"):
        assert key in data
    assert (
        data["games"] == 8 and data["invariant_violations"] == 0 and data["replay_mismatches"] == 0
    )
    assert data["view_leaks"] == 0 and data["actions"] > 0


@pytest.mark.rules("T 6")
def test_t_6_play_hotseat_in_terminal(
    cli_env: dict[str, str], tiny_path: Path, tmp_path: Path
) -> None:
    """Drive the terminal game with scripted input: commit postures, move, then quit with a save."""
    save = tmp_path / "hot.json"
    script = "\n".join(["1", "1", "u", "m", "q"]) + "\n"
    r = run(["play", str(tiny_path), "--seed", "2", "--save", str(save)], cli_env, input=script)
    assert r.returncode == 0, r.stderr
    assert "to act" in r.stdout and "map T" in r.stdout
    data = json.loads(save.read_text())
    assert len(data["actions"]) == 2


def test_rules_json(cli_env: dict[str, str]) -> None:
    root = Path(__file__).resolve().parents[2]
    r = run(["rules", "--ruleset", "tiny", "--json"], cli_env, cwd=root)
    data = json.loads(r.stdout)
    assert data["ruleset"] == "tiny"
    statuses = {row["id"]: row["status"] for row in data["rules"]}
    assert (
        statuses["T 3"] == "tested"
        and statuses["T 7"] == "outside-seeds"
        and statuses["T 8"] == "missing"
    )
    for row in data["rules"]:
        assert set(row) == {"id", "title", "status", "where"}


def test_scenarios_lists_shipped(cli_env: dict[str, str], tiny_path: Path) -> None:
    env = dict(cli_env)
    env["GROGNARD_SCENARIO_PATH"] = str(tiny_path.parent)
    data = json.loads(run(["scenarios", "--json"], env).stdout)
    assert "tiny-duel" in {s["id"] for s in data["scenarios"]}
    save = Path(env.get("TMPDIR", "/tmp")) / "tiny-by-id.json"
    assert run(["new", "tiny-duel", "-o", str(save)], env).returncode == 0
