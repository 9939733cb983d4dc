"""Rule systems, found by name.

Built-in rule systems are listed in :data:`BUILTIN`; others register with
:func:`register` (tests do) or through the ``grognard.rulesets`` entry-point group.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from importlib.util import find_spec

from grognard.rulesets.base import Ruleset

BUILTIN: dict[str, str] = {
    "greatwar": "grognard.rulesets.greatwar:GreatWar",
    "lgg1418": "grognard.rulesets.lgg1418:LaGrandeGuerre",
    "eastfront": "grognard.rulesets.eastfront:EastFront",
}
_REGISTERED: dict[str, type[Ruleset]] = {}
_INSTANCES: dict[str, Ruleset] = {}


def register(cls: type[Ruleset]) -> type[Ruleset]:
    """Make a rule system available by its name (usable as a class decorator)."""
    if not cls.name:
        raise ValueError("a rule system needs a name")
    _REGISTERED[cls.name] = cls
    _INSTANCES.pop(cls.name, None)
    return cls


def names() -> list[str]:
    found = {n for n, target in BUILTIN.items() if _importable(target)} | set(_REGISTERED)
    for ep in entry_points(group="grognard.rulesets"):
        found.add(ep.name)
    return sorted(found)


def _importable(target: str) -> bool:
    try:
        return find_spec(target.partition(":")[0]) is not None
    except ModuleNotFoundError:
        return False


def get(name: str) -> Ruleset:
    """The (shared, stateless) instance of rule system ``name``."""
    inst = _INSTANCES.get(name)
    if inst is not None:
        return inst
    cls = _REGISTERED.get(name)
    if cls is None and name in BUILTIN:
        mod, _, attr = BUILTIN[name].partition(":")
        cls = getattr(importlib.import_module(mod), attr)
    if cls is None:
        for ep in entry_points(group="grognard.rulesets"):
            if ep.name == name:
                cls = ep.load()
                break
    if cls is None:
        raise KeyError(f"unknown rule system {name!r} (known: {', '.join(names()) or 'none'})")
    inst = cls()
    _INSTANCES[name] = inst
    return inst
