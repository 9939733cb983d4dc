"""The rule list (data/rules.toml) against the seed, and the `grognard rules` listing."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from grognard import rulesets
from grognard.cli import main

SEED = Path("/work/shared/seeds/003_4e615387b3903e22.txt")
RULES = Path(__file__).resolve().parents[2] / "src/grognard/rulesets/lgg1418/data/rules.toml"


def _ids() -> list[dict[str, str]]:
    return tomllib.loads(RULES.read_text(encoding="utf-8"))["rule"]


def test_every_id_has_prefix_and_title_and_is_unique() -> None:
    rows = _ids()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("LGG ") and r.get("title") for i, r in zip(ids, rows, strict=True))
    assert len(rows) >= 400


@pytest.mark.skipif(not SEED.exists(), reason="seed text not available")
def test_every_seed_heading_is_listed() -> None:
    listed = {r["id"][4:] for r in _ids()}
    body = SEED.read_text(encoding="utf-8").splitlines()[120:]
    headings = set()
    for line in body:
        m = re.match(r"^(\d+(?:\.\d+)?(?:-[A-Z]+)?)\.? [A-Z\"]", line)
        if m and not re.match(r"^\d+ (corps|MP|hexes|loss)", line):
            headings.add(m.group(1))
    missing = sorted(h for h in headings if h not in listed)
    assert missing == []


def test_gaps_are_marked() -> None:
    by_id = {r["id"]: r for r in _ids()}
    for gap in ("LGG 27", "LGG 30-G", "LGG 31-C", "LGG 31-E", "LGG 44-H", "LGG 46-D"):
        assert by_id[gap].get("outside"), gap
    for noted in (
        "LGG 12-A",
        "LGG 31",
        "LGG [26-S]",
        "LGG [11.4-X]",
        "LGG [11.1-A]",
        "LGG [25-A]",
        "LGG [33-A]",
        "LGG 1",
        "LGG 4",
    ):
        assert by_id[noted].get("note"), noted


def test_rule_list_loads_through_the_rule_system() -> None:
    rs = rulesets.get("lgg1418")
    entries = rs.rule_list()
    assert {e.id for e in entries} >= {
        "LGG 16.5-B",
        "LGG 36.2-A",
        "LGG 1-A",
        "LGG 3-C",
        "LGG 4",
        "LGG 51.5",
    }


def test_grognard_rules_lists_them_all(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--ruleset", "lgg1418", "--json"]) == 0
    out = capsys.readouterr().out
    import json

    rows = json.loads(out)["rules"]
    assert len(rows) == len(_ids())
    status = {r["id"]: r["status"] for r in rows}
    assert status["LGG 27"] == "outside-seeds"
    assert status["LGG 48.1-A"] == "missing"
    assert status["LGG 9-H"] in ("implemented", "tested")
