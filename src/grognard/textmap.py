"""A text rendering of the board for the terminal.

Each printed row takes two text lines; with flat-topped hexes in columns, the shifted
columns are drawn one line lower, which keeps neighbours next to each other on
screen. A cell shows the terrain initial and, if pieces are there, the first letter of
the side and how many pieces (or ``?`` for an anonymous stack).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grognard.core.game import Game

CELL = 6


def _cell_text(g: Game, i: int, pieces: dict[int, list[str]], marks: set[int]) -> str:
    t = g.board.terrain_of(i)[:1].upper()
    if g.board.points.get(i):
        t = t.lower() if t else "*"
        t = (
            "*"
            if any(
                p.kind in ("city", "capital", "objective", "fortress") for p in g.board.points[i]
            )
            else t
        )
    occ = pieces.get(i)
    if occ:
        sides = sorted(set(occ))
        body = "".join(s[:1] for s in sides) + str(len(occ))
    elif i in marks:
        body = "?"
    else:
        body = ""
    return f"{t}{body}"[: CELL - 1].ljust(CELL - 1)


def render_board(g: Game, side: str | None, highlight: set[int] | None = None) -> str:
    """Render every sheet as text (what ``side`` may see)."""
    view = g.view(side)
    pieces: dict[int, list[str]] = {}
    for p in view["pieces"]:
        if p["loc"][0] == "hex":
            pieces.setdefault(g.board.idx(p["loc"][1]), []).append(p["side"])
    marks = {g.board.idx(s["loc"][1]) for s in view.get("stacks", []) if s["loc"][0] == "hex"}
    highlight = highlight or set()
    out: list[str] = []
    for name, sheet in g.board.sheets.items():
        coords = [sheet.to_offset(h) for h in g.board.hexes]
        own = [
            (c, r, i)
            for i, (c, r) in enumerate(coords)
            if g.board.labels[i].startswith(name + ":") or len(g.board.sheets) == 1
        ]
        if not own:
            continue
        cols = sorted({c for c, _, _ in own})
        rows = sorted({r for _, r, _ in own})
        at = {(c, r): i for c, r, i in own}
        out.append(f"map {name}")
        header = "     " + "".join(f"{c:02d}".ljust(CELL) for c in cols)
        out.append(header)
        shifted_parity = 0 if sheet.shifted == "even" else 1
        for r in rows:
            if sheet.orientation == "columns":
                for half in (0, 1):
                    line = f"{r:02d}   " if half == 0 else "     "
                    for c in cols:
                        lower = (c & 1) == shifted_parity
                        i = at.get((c, r))
                        if i is None or lower != bool(half):
                            line += " " * CELL
                            continue
                        txt = _cell_text(g, i, pieces, marks)
                        line += ("[" if i in highlight else " ") + txt
                    out.append(line.rstrip())
            else:
                indent = "   " if (r & 1) == shifted_parity else ""
                line = f"{r:02d}   " + indent
                for c in cols:
                    i = at.get((c, r))
                    line += (
                        " " * CELL
                        if i is None
                        else ("[" if i in highlight else " ") + _cell_text(g, i, pieces, marks)
                    )
                out.append(line.rstrip())
        out.append("")
    legend = (
        "cells: terrain initial (lower case / * = place), then side initials and piece count; ? ="
        " unknown stack; [ = highlighted"
    )
    out.append(legend)
    return "\n".join(out)
