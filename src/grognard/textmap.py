"""A text rendering of the board for the terminal.

Each printed row takes two text lines; with flat-topped hexes in columns, the shifted
columns are drawn one line lower, which keeps neighbours next to each other on
screen. A cell shows the terrain initial and, if pieces are there, the first letter of
the side and how many pieces (or ``?`` for an anonymous stack). Pieces away from the hexes
(in areas such as sea zones, in boxes such as port boxes, aboard other pieces) are listed
after the map.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
    out.extend(off_map_lines(g, view))
    legend = (
        "cells: terrain initial (lower case / * = place), then side initials and piece count; ? ="
        " unknown stack; [ = highlighted"
    )
    out.append(legend)
    return "\n".join(out)


def off_map_lines(g: Game, view: dict[str, Any]) -> list[str]:
    """The pieces ``view`` shows away from the hexes: in areas (sea zones...), in boxes (port
    boxes, holding boxes...), aboard other pieces; anonymous stacks as ``?``."""
    groups: dict[tuple[str, str], list[str]] = {}
    for p in view["pieces"]:
        kind, ref = p["loc"][0], str(p["loc"][1])
        if kind in ("hex", "none"):
            continue
        groups.setdefault((kind, ref), []).append(f"{p['side'][:1]}:{p.get('name') or p['id']}")
    for st in view.get("stacks", []):
        kind, ref = st["loc"][0], str(st["loc"][1])
        if kind != "hex":
            groups.setdefault((kind, ref), []).append(f"{st['side'][:1]}:?")
    if not groups:
        return []
    lines = ["off the map:"]
    for (kind, ref), names in sorted(groups.items()):
        where = {"piece": "aboard", "area": "area", "box": "box"}.get(kind, kind)
        box = g.board.boxes.get(ref) if kind == "box" else None
        at = box.attrs.get("hex") if box is not None else None
        label = f"{where} {ref}" + (f" (at {at})" if at else "")
        shown = ", ".join(names[:8]) + (f" (+{len(names) - 8})" if len(names) > 8 else "")
        lines.append(f"  {label}: {shown}")
    lines.append("")
    return lines
