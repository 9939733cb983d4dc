"""Memo tables for listing legal actions in big scenarios (no rule lives here).

Listing the moves of a movement step means checking every unit against every neighbouring hex,
and every rail destination of every unit; after one action almost all of those answers are
unchanged. This module gives the movement and rail listings a way to reuse them: each answer is
stored under a *signature* of everything it depends on, computed cheaply from the position:

* :func:`snapshot` -- per position: a signature of every piece (side, face, status, attributes)
  by hex, and fingerprints of the markers, the neutral nations and the nation flags;
* :func:`local_signature` -- what the one-hex moves out of a hex depend on: the pieces and the
  owners of every hex within two hexes (enemy ZOCs reach one hex past the hex entered);
* :func:`memo` -- a bounded memo table kept with the game (not in its state: it holds derived
  values only, so undo and replays are unaffected).

A signature that forgets a dependency would list stale actions; the self-play harness catches
that (a listed action that ``apply`` refuses). The checks themselves are the rule code's.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from grognard.core.state import Piece

if TYPE_CHECKING:
    from grognard.core.game import Game

MEMO_LIMIT = 20000


def piece_signature(p: Piece) -> tuple[Hashable, ...]:
    """What a piece shows the rules: identity, side, face, status and attributes."""
    return (p.id, p.side, p.face, tuple(sorted(p.status)), repr(sorted(p.attrs.items())), p.loc.kind, p.loc.ref)


class Snapshot:
    """Per-position summaries used to build signatures (see the module docstring)."""

    def __init__(self, g: Game) -> None:
        by_hex: dict[int, list[tuple[Hashable, ...]]] = {}
        for p in g.state.pieces.values():
            loc = g.state.where(p.id)
            if loc.kind == "hex":
                by_hex.setdefault(int(loc.ref), []).append(piece_signature(p))
        self.hexes: dict[int, tuple[tuple[Hashable, ...], ...]] = {h: tuple(sorted(v)) for h, v in by_hex.items()}
        markers = g.state.markers
        # bridge owners change with every change of ownership: they enter local signatures instead
        self.markers = hash(repr(sorted((k, sorted(v.items(), key=repr)) for k, v in markers.items() if k != "bridge-owner")))
        self.bridge_owner = markers.get("bridge-owner", {})
        gwv = g.state.vars.get("gw", {})
        self.base: tuple[Hashable, ...] = (
            g.state.turn.get("index"),
            repr(sorted(g.state.alignment.items(), key=repr)),
            repr(gwv.get("nation_flags")),
            gwv.get("phasing"),
            repr(gwv.get("isolated")),
            self.markers,
        )
        self.control = g.state.control

    def hex_signature(self, i: int) -> tuple[Hashable, ...]:
        return (i, self.control.get(i), self.hexes.get(i, ()))


def snapshot(g: Game) -> Snapshot:
    return g.cached("gw:listing-snapshot", lambda: Snapshot(g))


def within2(g: Game, i: int) -> tuple[int, ...]:
    """Hex ``i`` and every hex within two hexes of it (memoised per board)."""
    memo = g.__dict__.setdefault("_gw_within2", {})
    hit = memo.get(i)
    if hit is None:
        ring1 = set(g.board.neighbors(i))
        ring2 = {k for j in ring1 for k in g.board.neighbors(j)}
        hit = tuple(sorted({i} | ring1 | ring2))
        memo[i] = hit
    return hit


def sides_around(g: Game, i: int) -> tuple[int, ...]:
    """The hexsides of hex ``i`` (memoised per board)."""
    memo = g.__dict__.setdefault("_gw_sides_around", {})
    hit = memo.get(i)
    if hit is None:
        hit = tuple(g.board.side_between(i, j) for j in g.board.neighbors(i))
        memo[i] = hit
    return hit


def local_signature(g: Game, i: int) -> tuple[Hashable, ...]:
    """What moves out of hex ``i`` depend on around it: owners and pieces within two hexes, and
    the owners of the bridges on its hexsides."""
    snap = snapshot(g)
    bridges = tuple(snap.bridge_owner.get(str(s)) for s in sides_around(g, i))
    return (snap.base, bridges, tuple(snap.hex_signature(j) for j in within2(g, i)))


def memo(g: Game, name: str) -> dict[Hashable, Any]:
    """A memo table kept with the game object (emptied when it grows past :data:`MEMO_LIMIT`)."""
    tables = g.__dict__.setdefault("_gw_listing", {})
    table = tables.setdefault(name, {})
    if len(table) > MEMO_LIMIT:
        table.clear()
    return table
