"""Scenario files: format, validation, discovery."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grognard.scenario.loader import ScenarioError, load_scenario, load_scenario_text
from grognard.scenario.model import Scenario

__all__ = [
    "Scenario",
    "ScenarioError",
    "ScenarioInfo",
    "find",
    "list_scenarios",
    "load_scenario",
    "load_scenario_text",
]

SHIPPED = Path(__file__).resolve().parent.parent / "scenarios"


@dataclass(frozen=True)
class ScenarioInfo:
    id: str
    title: str
    ruleset: str
    path: Path
    tutorial: bool = False


def search_dirs() -> list[Path]:
    """Shipped scenarios, then any folders listed in ``GROGNARD_SCENARIO_PATH``."""
    dirs = [SHIPPED]
    extra = os.environ.get("GROGNARD_SCENARIO_PATH", "")
    dirs.extend(Path(p) for p in extra.split(os.pathsep) if p)
    return dirs


def list_scenarios() -> list[ScenarioInfo]:
    out = []
    for d in search_dirs():
        if not d.is_dir():
            continue
        for p in sorted(d.rglob("*.toml")):
            try:
                head = tomllib.loads(p.read_text(encoding="utf-8")).get("scenario")
            except (OSError, tomllib.TOMLDecodeError):
                continue
            if isinstance(head, dict) and "id" in head and "ruleset" in head:
                out.append(
                    ScenarioInfo(
                        str(head["id"]),
                        str(head.get("title", "")),
                        str(head["ruleset"]),
                        p,
                        bool(head.get("tutorial")),
                    )
                )
    return out


def find(ref: str | Path, table_overrides: dict[str, str] | None = None) -> Scenario:
    """Load a scenario from a file path or by the id of a shipped one."""
    p = Path(ref)
    if p.suffix == ".toml" or p.exists():
        return load_scenario(p, table_overrides)
    for info in list_scenarios():
        if info.id == str(ref):
            return load_scenario(info.path, table_overrides)
    known = ", ".join(sorted(i.id for i in list_scenarios())) or "none"
    raise ScenarioError(str(ref), [("", f"no such scenario file or id (shipped: {known})")])
