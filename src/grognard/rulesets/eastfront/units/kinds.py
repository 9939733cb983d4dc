"""What a unit is and what its counter says (EF 4.0; the naval values of NM 25.1).

Printed values are read from the face that is up (``piece.stat``); the keys are those of the
scenario's faces: ``attack``, ``defense``, ``move``, ``sp`` (stacking points), ``motorized``,
``support`` and ``range`` (artillery), ``aa``, ``command`` and ``activations`` (HQs), ``asp``
(Attack Supply Points of an MSU or Dump), and for naval units ``protection``, ``capacity``,
``nmp``, ``range``, ``support``, ``recovery``; for air units ``interdiction`` and ``fighter``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.eastfront.data import UnitKind, data

if TYPE_CHECKING:
    from grognard.core.game import Game


def kind(g: Game, p: Piece) -> UnitKind:
    return data(g).kinds[p.type]


@implements("EF 4.0")
def unit_class(g: Game, p: Piece) -> str:
    """EF 4.0: combat, flotilla, non-combat, naval, air or marker, by piece type."""
    return kind(g, p).cls


def is_combat(g: Game, p: Piece) -> bool:
    """EF 4.0: a ground combat unit (flotillas are ground units but listed apart: NM 32.1)."""
    return unit_class(g, p) == "combat"


@implements("NM 32.0")
def is_flotilla(g: Game, p: Piece) -> bool:
    """NM 32.0: the special units are flotillas (NM 32.1: ground units, not naval units, that
    take naval damage) and Naval Bases (NM 32.2: non-combat units)."""
    return unit_class(g, p) == "flotilla"


@implements("NM 25.0")
def is_naval(g: Game, p: Piece) -> bool:
    """NM 25.0: a naval unit. Naval units are not combat units (flotillas are not naval units,
    NM 25.2)."""
    return unit_class(g, p) == "naval"


def is_air(g: Game, p: Piece) -> bool:
    return unit_class(g, p) == "air"


def is_ground(g: Game, p: Piece) -> bool:
    """A unit that stands on land: combat, flotilla, non-combat (and point markers)."""
    return unit_class(g, p) in ("combat", "flotilla", "non-combat", "marker")


def is_hq(p: Piece) -> bool:
    return p.type == "hq"


def is_supply(p: Piece) -> bool:
    """An MSU or a Dump (EF 11.5)."""
    return p.type in ("msu", "dump")


def is_artillery(g: Game, p: Piece) -> bool:
    return kind(g, p).artillery


def is_cd(g: Game, p: Piece) -> bool:
    return kind(g, p).coast


def motorized(g: Game, p: Piece) -> bool:
    """EF 4.0: motorized by type, or by a ``motorized`` value on its counter."""
    v = p.stat("motorized")
    return bool(v) if v is not None else kind(g, p).motorized


def stacking_points(g: Game, p: Piece) -> int:
    """EF 4.0 / NM 25.2: a ground unit's stacking points; naval and air units have none."""
    if unit_class(g, p) not in ("combat", "flotilla", "non-combat"):
        return 0
    return int(p.stat("sp", 1 if unit_class(g, p) == "combat" else 0))


def attack(p: Piece) -> int:
    return int(p.stat("attack", 0))


def defense(p: Piece) -> int:
    return int(p.stat("defense", 0))


def allowance(p: Piece) -> int:
    """Movement allowance (EF 7.0)."""
    return int(p.stat("move", 0))


def aa_value(g: Game, p: Piece) -> int:
    """EF 14.4: a ground unit's AA value (AA units, HQs: printed ``aa``)."""
    return int(p.stat("aa", 0))


def aboard(p: Piece) -> bool:
    """Carried by a naval unit (NM 28.1)."""
    return p.loc.kind == "piece"
