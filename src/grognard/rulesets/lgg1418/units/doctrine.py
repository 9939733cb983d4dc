"""Military doctrine of each country by date (the data side of LGG 36, read by rules 8 and 13).

The doctrine decides the ZoC type (8-A flexible, 8-B rigid) and whether interception exists
(13). Which doctrine a country has on a front at a given turn comes from
``data/doctrines.toml`` (the calendar of 36, 36.2-36.3), from the scenario's overrides, and
from the state (an October 1914 switch to trenches, a later transition to Combined
Doctrine, both written by the doctrine rules). Belgium follows England and Serbia follows
Russia (36.6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.lgg1418 import model as M

if TYPE_CHECKING:
    from grognard.core.game import Game

DOCTRINES = ("movement", "trenches", "transition", "fire", "combined")


@implements("LGG 36.6")
def doctrine_country(g: Game, nation: str) -> str:
    """LGG 36.6: the country whose doctrine a nation follows (Belgium: England; Serbia: Russia)."""
    return str(M.data(g).powers.get("doctrine_follows", {}).get(nation, nation))


def calendar_doctrine(g: Game) -> str:
    """The doctrine every country has at the current turn unless something changed it."""
    current = M.turn_index(g)
    out = "movement"
    for start, doc in M.data(g).doctrine_stages:
        if M.data(g).calendar_index(start) <= current:
            out = doc
    return out


def doctrine(g: Game, nation: str, front: str) -> str:
    """The doctrine of ``nation`` on ``front`` this turn.

    A recorded change wins over the scenario and the calendar, except an October 1914 switch
    to trenches once the calendar has moved past Movement Doctrine (36.2-B); once a power has
    switched to Combined Doctrine, everybody is in it from the turn recorded in
    ``combined_from`` (36.4).
    """
    n = doctrine_country(g, nation)
    everyone = M.st(g).get("combined_from")
    if everyone is not None and M.turn_index(g) >= int(everyone):
        return "combined"
    base = M.rules(g).doctrine.get(n) or calendar_doctrine(g)
    over = M.st(g).get("doctrine", {}).get(n, {}).get(front)
    if over and not (over == "trenches" and base != "movement"):
        return str(over)
    return base


def set_doctrine(g: Game, nation: str, front: str, value: str) -> None:
    """Record a doctrine change of ``nation`` on ``front`` (used by the doctrine rules)."""
    if value not in DOCTRINES:
        raise ValueError(f"unknown doctrine {value!r}")
    M.st(g).setdefault("doctrine", {}).setdefault(doctrine_country(g, nation), {})[front] = value
    M.touch(g)


def zoc_kind(g: Game, nation: str, front: str) -> str:
    """``flexible`` or ``rigid`` (8-A, 8-B) for the ZoCs of ``nation``'s units on ``front``."""
    return M.data(g).doctrines[doctrine(g, nation, front)]["zoc"]


def interception_mode(g: Game, nation: str, front: str) -> str:
    """``yes``, ``even-d6``, ``in-movement`` or ``no``: may ``nation`` intercept on ``front``
    (13)."""
    return M.data(g).doctrines[doctrine(g, nation, front)]["interception"]
