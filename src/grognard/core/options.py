"""Rule options: basic, advanced, optional and interpretation switches.

A rule system declares its options; a scenario gives defaults; players (or the
command line) may change them before the game starts. Options are fixed at setup and
written into every save and game record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from grognard.core.errors import GrognardError

KINDS = ("basic", "advanced", "optional", "interpretation", "setting")


class OptionError(GrognardError):
    """Options given to a game are unknown, of the wrong type, or contradict each other."""


@dataclass(frozen=True)
class OptionSpec:
    """One switch. ``choices`` makes it an enumeration; otherwise it is a boolean.

    ``group``: options sharing a group exclude each other (at most one may be on).
    ``requires``: options that must be on for this one to be on.
    """

    id: str
    title: str
    kind: str = "optional"
    default: Any = False
    rule: str = ""
    group: str = ""
    requires: tuple[str, ...] = ()
    choices: tuple[Any, ...] = ()
    help: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"option {self.id}: kind must be one of {KINDS}")
        if self.choices and self.default not in self.choices:
            raise ValueError(f"option {self.id}: default {self.default!r} is not among its choices")


@dataclass
class OptionSet:
    specs: dict[str, OptionSpec] = field(default_factory=dict)

    @classmethod
    def of(cls, specs: Iterable[OptionSpec]) -> OptionSet:
        s = cls()
        for spec in specs:
            if spec.id in s.specs:
                raise ValueError(f"option {spec.id} declared twice")
            s.specs[spec.id] = spec
        return s

    def defaults(self) -> dict[str, Any]:
        return {k: v.default for k, v in self.specs.items()}

    def resolve(self, *layers: Mapping[str, Any], where: str = "options") -> dict[str, Any]:
        """Merge layers of choices over the defaults and check them."""
        out = self.defaults()
        for layer in layers:
            for key, value in layer.items():
                spec = self.specs.get(key)
                if spec is None:
                    known = ", ".join(sorted(self.specs)) or "none"
                    raise OptionError(f"{where}.{key}: unknown option (known: {known})")
                if spec.choices:
                    if value not in spec.choices:
                        raise OptionError(
                            f"{where}.{key}: {value!r} is not one of {list(spec.choices)}"
                        )
                elif not isinstance(value, bool):
                    raise OptionError(f"{where}.{key}: must be true or false, not {value!r}")
                out[key] = value
        groups: dict[str, list[str]] = {}
        for key, spec in self.specs.items():
            if spec.group and out[key] is True:
                groups.setdefault(spec.group, []).append(key)
        for g, on in groups.items():
            if len(on) > 1:
                raise OptionError(
                    f"{where}: options {', '.join(on)} exclude each other (group {g!r})"
                )
        for key, spec in self.specs.items():
            if out[key] is True:
                for req in spec.requires:
                    if out.get(req) is not True:
                        raise OptionError(f"{where}.{key}: requires option {req} to be on")
        return out
