"""Helpers for the eastfront rule tests: the laboratory map, pieces made to order, phases
entered directly, dice forced.

The laboratory (``scenarios/lab.toml``) has sea zones SZ1 - SZ2 - SZ3 (and the Shallow Water
zone Shoal), the major port Alpha (hex 0404, box "Alpha box", SZ1), the minor port Bravo (0708,
SZ2), the anchorage Charlie (0401, SZ1), the river port Delta (0106, SZ3), the anchorage Mud on
the Shoal, and the holding boxes Haven (Soviet, SZ3) and Axis Haven (Axis, SZ1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grognard.core.game import Game
from grognard.core.state import Loc, Piece
from grognard.rulesets.eastfront.model import ef
from grognard.scenario import load_scenario, load_scenario_text

LAB = Path(__file__).parent / "scenarios" / "lab.toml"

NAVAL = {"bb", "cl", "dl", "dd", "t"}


def lab(
    seed: int = 1, options: dict[str, Any] | None = None, tables: dict[str, str] | None = None
) -> Game:
    """A new game on the laboratory map (stopped at the Axis Naval Readiness Phase)."""
    if tables:
        sc = load_scenario_text(LAB.read_text(), str(LAB), LAB.parent, table_overrides=tables)
    else:
        sc = load_scenario(LAB)
    return Game.new(sc, seed, options or {})


def loc(g: Game, where: str) -> Loc:
    """``"0404"`` a hex, ``"box:NAME"``, ``"area:NAME"``, ``"in:PIECE"``."""
    kind, _, ref = where.partition(":")
    if not ref:
        return Loc.hex(g.board.idx(where))
    return {"box": Loc.box, "area": Loc.area, "in": Loc.inside}[kind](ref)


def unit(
    g: Game,
    pid: str,
    type: str,
    side: str,
    at: str,
    *,
    reduced: dict[str, Any] | None = None,
    face: str | None = None,
    status: tuple[str, ...] = (),
    attrs: dict[str, Any] | None = None,
    name: str = "",
    **values: Any,
) -> Piece:
    """Add a piece made to order: a naval unit gets ``ready`` and ``sailed`` faces, an HQ
    ``operational`` and ``non-op``, a ground unit ``full`` (and ``reduced`` if given)."""
    if type in NAVAL:
        faces = {"ready": dict(values), "sailed": dict(values)}
        face = face or "ready"
    elif type == "hq":
        faces = {"operational": dict(values), "non-op": dict(values)}
        face = face or "operational"
    else:
        faces = {"full": dict(values)}
        if reduced is not None:
            faces["reduced"] = dict(reduced)
        face = face or "full"
    p = Piece(
        pid,
        type,
        side,
        face=face,
        loc=loc(g, at),
        status=status,
        attrs=attrs or {},
        faces=faces,
        name=name,
    )
    return g.state.add_piece(p)


INF = {"attack": 4, "defense": 4, "move": 4, "sp": 2}


def infantry(g: Game, pid: str, side: str, at: str, **over: Any) -> Piece:
    return unit(g, pid, "infantry", side, at, **{**INF, **over})


def cruiser(g: Game, pid: str, side: str, at: str, **over: Any) -> Piece:
    """A light cruiser like the K.Kavkas (NMP 3, Protection 3)."""
    values = dict(support=4, protection=3, capacity=2, nmp=3, range=3, recovery=5)
    values.update(over)
    return unit(g, pid, values.pop("type", "cl"), side, at, **values)


def phase(g: Game, step: str, side: str, **params: Any) -> None:
    """Enter ``step`` for ``side`` now (on top of the game's own sequence)."""
    ef(g).active = side
    g.push(step, params)
    g.advance()


def act(g: Game, type: str, side: str, **fields: Any) -> list[dict[str, Any]]:
    """Apply an action through the game (checked, then applied)."""
    return g.apply({"type": type, "side": side, **fields})


def texts(events: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in events]


def rolls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "roll"]


def hexloc(g: Game, label: str) -> Loc:
    return Loc.hex(g.board.idx(label))
