"""The rule list (data/rules.toml): complete, well formed, and listed by `grognard rules`."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from grognard.core import rules as rulereg
from grognard.rulesets import get

RS = get("greatwar")


def ids() -> list[str]:
    return [e.id for e in RS.rule_list()]


def test_rule_list_has_every_rule_and_prefix() -> None:
    entries = RS.rule_list()
    got = set(ids())
    assert len(entries) > 600
    assert all(e.id.startswith("OT ") for e in entries)
    for n in list(range(1, 17)) + list(range(18, 36)):
        assert f"OT {n}" in got, n
    for rid in (
        "OT B17",
        "OT A17",
        "OT 3A5",
        "OT 6B4",
        "OT 7A5g",
        "OT 8C2",
        "OT 9F2",
        "OT 11C2a",
        "OT 11C2biii",
        "OT 12B9",
        "OT 13A6",
        "OT 13A7",
        "OT 14O2b-ii",
        "OT 16A1gg",
        "OT 16C14",
        "OT 20G2k",
        "OT 29B1f",
        "OT 33C1e",
        "OT 35D3",
    ):
        assert rid in got, rid


def test_rule_list_tiers_and_outside_markings() -> None:
    by_id = {e.id: e for e in RS.rule_list()}
    assert by_id["OT 8C2"].tier == "advanced"
    assert by_id["OT 7A9"].tier == "optional"
    assert by_id["OT 9L"].tier == "optional"
    assert by_id["OT 7C"].tier == "optional"
    assert by_id["OT 21C"].tier == "optional"
    assert by_id["OT 27"].tier == "advanced"
    assert by_id["OT 26"].tier == "basic"
    assert by_id["OT 36"].outside and "turn track" in by_id["OT 36"].outside
    assert by_id["OT 42B"].outside
    # text-missing ids are implemented from the digest's default, not outside
    for rid in ("OT 12B9", "OT 13A6", "OT 13A7", "OT B17B4"):
        assert not by_id[rid].outside and by_id[rid].note


def test_rules_3_to_8_all_implemented() -> None:
    RS.load_rule_modules()
    impl = rulereg.implemented()
    all_ids = [rulereg.normalise(x) for x in ids()]
    for e in RS.rule_list():
        m = re.match(r"OT (\d+)", e.id)
        if not m or not 3 <= int(m.group(1)) <= 8:
            continue
        rid = rulereg.normalise(e.id)
        if any(rulereg._is_child(rid, k) for k in all_ids if k != rid):
            continue
        assert rid in impl, f"{e.id} has no implementation"


def test_rules_cli_lists_every_id() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "grognard.cli", "rules", "--ruleset", "greatwar", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    listed = [r["id"] for r in data["rules"]]
    assert listed == ids()
    status = {r["id"]: r["status"] for r in data["rules"]}
    assert status["OT 36"] == "outside-seeds"
    assert status["OT 6B4"] in ("implemented", "tested")
