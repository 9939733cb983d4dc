"""A text rendering of the board for the terminal.

Each printed row takes two text lines; with flat-topped hexes in columns, the shifted columns are
drawn one line lower, which keeps neighbours next to each other on screen. A cell shows the
terrain initial (``*`` for a city or other named place) and, if pieces are there, the first letter
of each side and how many pieces (``?`` for an anonymous stack); an empty hex shows its owner's
initial in lower case. A marked hex (the reach of a move, the targets of a menu) ends with its mark.

Between the two cells of a column, the line in between shows the hexside that separates them:
``~`` a river, ``≈`` a major river, ``-`` a minor river or stream, ``=`` a canal, ``|`` a rail line
crossing it. In the corners of that space a character marks the slanting hexsides there (see
:func:`hexside_overlay`). Pieces away from the hexes (in areas such as sea zones, in boxes such as
port boxes, aboard other pieces) are listed after the map, then a legend of what this board uses.
:func:`hex_report` describes one hex and each of its hexsides in words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grognard.core.game import Game

CELL = 6
# hexside features as text, most important first: (part of the feature name, glyph, meaning)
SIDE_GLYPHS = (
    ("major", "≈", "major river"),
    ("large", "≈", "major river"),
    ("minor", "-", "minor river or stream"),
    ("stream", "-", "minor river or stream"),
    ("river", "~", "river"),
    ("canal", "=", "canal"),
    ("lake", "~", "lake shore"),
    ("border", ":", "border"),
)
RAIL = "|"


def side_glyph(names: list[str]) -> tuple[str, str] | None:
    """The glyph and meaning of the most important of a hexside's features (None: none)."""
    for key, glyph, meaning in SIDE_GLYPHS:
        if any(key in n for n in names):
            return glyph, meaning
    if names:
        return "'", "other hexside feature (" + ", ".join(sorted(set(names))) + ")"
    return None


def rail_sides(g: Game) -> set[int]:
    """Hexsides crossed by a rail link (networks whose kind names rail)."""
    out: set[int] = set()
    for net in g.board.networks.values():
        if "rail" in net.kind:
            out.update(int(k) for k in net.edges.nonzero()[0])
    return out


def hexside_overlay(
    g: Game,
    canvas: list[list[str]],
    cells: Mapping[tuple[int, int], int],
    xs: Mapping[int, int],
    stride: int,
    rails: set[int] | None = None,
) -> set[str]:
    """Draw the hexside features into ``canvas`` (lines of characters) and return the meanings
    drawn (for the legend).

    ``cells`` maps (column position, line) to the hex drawn there, ``xs`` a column position to
    the x of its cells, ``stride`` is the distance between two neighbouring columns. The free
    space of a column on the line between two of its cells is x+1 .. x+stride-2 (at least
    x+1): it draws the side between those two cells. With ``stride`` of 3 or more the first
    and last characters of that space draw the slanting sides too: the first one the sides
    between the cell to the left and the cells above and below it, the last one the same on the
    right (the glyph of the first of the two that has a feature)."""
    b = g.board
    rails = rails if rails is not None else set()
    used: set[str] = set()

    def side(i: int | None, j: int | None) -> int | None:
        if i is None or j is None or b.direction(i, j) is None:
            return None
        return b.side_between(i, j)

    def glyph_of(s: int | None) -> str | None:
        if s is None:
            return None
        got = side_glyph(b.side_feature_list(s))
        if got is not None:
            used.add(f"{got[0]} {got[1]}")
            return got[0]
        if s in rails:
            used.add(f"{RAIL} rail line")
            return RAIL
        return None

    def put(line: int, x: int, ch: str) -> None:
        if 0 <= line < len(canvas) and 0 <= x < len(canvas[line]) and canvas[line][x] == " ":
            canvas[line][x] = ch

    cols = sorted(xs)
    for (c, line), above in cells.items():
        below = cells.get((c, line + 2))
        if below is None:
            continue
        s = line + 1
        x = xs[c]
        mid = side(above, below)
        if mid is not None:
            g_mid = glyph_of(mid)
            span = range(x + 1, x + max(2, stride - 1))
            centre = span[len(span) // 2]
            if g_mid == RAIL:
                put(s, centre, RAIL)
            elif g_mid is not None:
                for k in span:
                    put(s, k, g_mid)
                if mid in rails and len(span) >= 3:
                    used.add(f"{RAIL} rail line")
                    canvas[s][centre] = RAIL
        if stride < 3:
            continue
        k = cols.index(c)
        left = cols[k - 1] if k else None
        right = cols[k + 1] if k + 1 < len(cols) else None
        for nb_col, at in ((left, x), (right, x + stride - 1)):
            if nb_col is None:
                continue
            nb = cells.get((nb_col, s))
            got = [glyph_of(side(above, nb)), glyph_of(side(below, nb))]
            marks = [m for m in got if m is not None]
            if marks:
                put(s, at, marks[0])
    return used


def _cell_text(
    g: Game,
    i: int,
    pieces: dict[int, list[str]],
    stacks: set[int],
    marks: Mapping[int, str],
    size: int = CELL,
) -> str:
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
    elif i in stacks:
        body = "?"
    else:
        owner = g.state.control.get(i)
        body = str(owner)[:1].lower() if owner and not str(owner).startswith("neutral") else ""
    text = f"{t}{body}"[: size - 1]
    if i in marks:
        text = text[: size - 2].ljust(size - 2) + marks[i][:1]
    return text.ljust(size - 1)


def _window(g: Game, hexes: set[int], pad: int = 2) -> tuple[int, int, int, int] | None:
    if not hexes or len(g.board.sheets) != 1:
        return None
    sheet = next(iter(g.board.sheets.values()))
    cr = [sheet.to_offset(g.board.hexes[i]) for i in hexes]
    return (
        min(c for c, _ in cr) - pad,
        max(c for c, _ in cr) + pad,
        min(r for _, r in cr) - pad,
        max(r for _, r in cr) + pad,
    )


def render_board(
    g: Game,
    side: str | None,
    highlight: set[int] | None = None,
    marks: Mapping[str, str] | None = None,
    width: int | None = None,
) -> str:
    """Render every sheet as text (what ``side`` may see). ``marks`` (hex label -> character)
    end some cells and limit the drawing to a window around them; ``highlight`` marks hexes
    with ``@``. Columns are six characters apart, or four when that does not fit in ``width``
    (the terminal's; the cell then shows three characters)."""
    view = g.view(side)
    b = g.board
    pieces: dict[int, list[str]] = {}
    for p in view["pieces"]:
        if p["loc"][0] == "hex":
            pieces.setdefault(b.idx(p["loc"][1]), []).append(p["side"])
    stacks = {b.idx(s["loc"][1]) for s in view.get("stacks", []) if s["loc"][0] == "hex"}
    mk: dict[int, str] = {i: "@" for i in highlight or set()}
    for label, ch in (marks or {}).items():
        if b.has_label(label):
            mk[b.idx(label)] = ch
    window = _window(g, set(mk)) if marks else None
    rails = rail_sides(g)
    used: set[str] = set()
    out: list[str] = []
    for name, sheet in b.sheets.items():
        own = [
            (*sheet.to_offset(h), i)
            for i, h in enumerate(b.hexes)
            if b.labels[i].startswith(name + ":") or len(b.sheets) == 1
        ]
        if window:
            own = [
                (c, r, i)
                for c, r, i in own
                if window[0] <= c <= window[1] and window[2] <= r <= window[3]
            ]
        if not own:
            continue
        cols = sorted({c for c, _, _ in own})
        rows = sorted({r for _, r, _ in own})
        at = {(c, r): i for c, r, i in own}
        out.append(f"map {name}")
        cell = CELL if width is None or 5 + CELL * len(cols) + 1 <= width else 4
        header = "     " + "".join(f"{c:02d}".ljust(cell) for c in cols)
        out.append(header.rstrip())
        shifted_parity = 0 if sheet.shifted == "even" else 1
        if sheet.orientation != "columns":
            for r in rows:
                indent = "   " if (r & 1) == shifted_parity else ""
                line = f"{r:02d}   " + indent
                for c in cols:
                    i = at.get((c, r))
                    line += (
                        " " * cell
                        if i is None
                        else " " + _cell_text(g, i, pieces, stacks, mk, cell)
                    )
                out.append(line.rstrip())
            out.append("")
            continue
        xs = {c: 5 + cell * k for k, c in enumerate(cols)}
        canvas_width = 5 + cell * len(cols) + 1
        canvas: list[list[str]] = []
        cells: dict[tuple[int, int], int] = {}
        for r in rows:
            for half in (0, 1):
                chars = list((f"{r:02d}" if half == 0 else "").ljust(canvas_width))
                for c in cols:
                    lower = (c & 1) == shifted_parity
                    i = at.get((c, r))
                    if i is None or lower != bool(half):
                        continue
                    txt = _cell_text(g, i, pieces, stacks, mk, cell)
                    chars[xs[c] + 1 : xs[c] + cell] = list(txt)
                    cells[(c, len(canvas))] = i
                canvas.append(chars)
        used |= hexside_overlay(g, canvas, cells, xs, cell, rails)
        out.extend("".join(line).rstrip() for line in canvas)
        out.append("")
    if window is None:
        out.extend(off_map_lines(g, view))
    out.append(
        "cells: terrain initial (* = city or other place), then side initials and piece count"
        " (? = unknown stack), or the owner of an empty hex in lower case"
        + ("; a last character marks a hex (cost or target)" if mk else "")
    )
    if used:
        out.append(
            "hexsides: "
            + ", ".join(sorted(used))
            + " (on the line between two hexes of a column; in a corner: a slanting hexside"
            " there); 'hex ID' describes a hex and its hexsides"
        )
    return "\n".join(out)


def hex_report(g: Game, ref: str, side: str | None = None) -> str:
    """One hex in words: terrain, places, owner, the pieces ``side`` sees there and each hexside
    with a feature or a rail line crossing it."""
    b = g.board
    if not b.has_label(ref):
        return f"no hex {ref!r} on this map"
    i = b.idx(ref)
    lines = [f"hex {b.label(i)}: {b.terrain_of(i)}"]
    for pt in b.points_at(i):
        lines.append(f"  {pt.kind}: {pt.name}" if pt.name else f"  {pt.kind}")
    owner = g.state.control.get(i)
    if owner:
        lines.append(f"  controlled by {owner}")
    view = g.view(side)
    here = [p for p in view["pieces"] if p["loc"] == ["hex", b.label(i)]]
    for p in here:
        lines.append(f"  {p['side']}: {p['id']} {p.get('name') or ''}".rstrip())
    for s in view.get("stacks", []):
        if s["loc"] == ["hex", b.label(i)]:
            lines.append(f"  {s['side']}: a stack you cannot see into")
    rails = rail_sides(g)
    for j in b.neighbors(i):
        k = b.side_between(i, j)
        what = [*b.side_feature_list(k), *(["rail line"] if k in rails else [])]
        if what:
            lines.append(f"  side to {b.label(j)}: {', '.join(what)}")
    return "\n".join(lines)


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
