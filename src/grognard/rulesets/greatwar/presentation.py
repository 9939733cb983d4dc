"""What front ends show of a Great War series game: action descriptions, previews and a text map.

Nothing here changes the game. The functions are called through :class:`GreatWar`
(``preview``, ``render_text``, ``reachable``; the one-line labels of actions are declared with
them, :mod:`.actions`, and name units and places with :func:`piece_name` and :func:`hex_name`):

* :func:`preview` -- what committing an action would mean: for a move its MP cost, what is left
  and a map of every hex the unit can still reach with the MPs each costs (so farther moves can be
  typed); for a rail move its MPs or rail hexes and the capacity it uses; for an overrun the odds;
  for an attack the combat rules' own preview (totals with every modifier and rule id, odds,
  shifts and the exact distribution of results), with a bar per result;
* :func:`render_text` -- the map in three characters a hex, two characters between columns, so a
  30 by 20 hex map fits an 80-column terminal (a header with the turn, weather, victory points and
  rail capacity; a legend; the
  stacks on the front line);
* :func:`reachable` -- hex label -> MP cost for the pieces given (the server's hook).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard import textmap
from grognard.core.arith import fmt
from grognard.core.errors import IllegalAction
from grognard.core.state import Piece
from grognard.rulesets.greatwar.combat import combat
from grognard.rulesets.greatwar.map import weather
from grognard.rulesets.greatwar.movement import movement, overrun, rail
from grognard.rulesets.greatwar.sequence import victory
from grognard.rulesets.greatwar.units import units

if TYPE_CHECKING:
    from grognard.core.game import Game

Action = Mapping[str, Any]

# ----------------------------------------------------------------------------- names
TERRAIN_CHAR = {
    "clear": ".",
    "rough": "r",
    "wooded-rough": "R",
    "woods": "w",
    "forest": "f",
    "mountain": "m",
    "swamp": "s",
    "wooded-swamp": "S",
    "ravines": "v",
    "bocage": "b",
    "canal-intensive": "k",
    "karst": "K",
    "sand": "d",
    "stony-desert": "D",
    "salt-desert": "D",
    "permafrost-tundra": "t",
    "glacier": "g",
    "intermittent-lake": "l",
    "intermittent-salt-lake": "l",
    "lake": "~",
    "sea": "~",
}
MAJOR_CITY = ("partial-city", "full-city")
CITY_LIKE = ("point-city", "fortress", "resource-center")


def place_name(g: Game, i: int) -> str:
    """The name of the most important place in hex ``i`` ("" if none)."""
    best = ""
    rank = -1
    for pt in g.board.points_at(i):
        if not pt.name:
            continue
        r = 3 if pt.kind in MAJOR_CITY else 2 if pt.kind in CITY_LIKE else 1
        if r > rank:
            best, rank = pt.name, r
    return best


def hex_name(g: Game, ref: Any) -> str:
    """``"1410 Paris"`` for a hex label or index; anything else unchanged."""
    if isinstance(ref, int) and 0 <= ref < g.board.n:
        i = ref
    elif isinstance(ref, str) and g.board.has_label(ref):
        i = g.board.idx(ref)
    else:
        return str(ref)
    name = place_name(g, i)
    return f"{g.board.label(i)} {name}" if name else g.board.label(i)


def piece_name(g: Game, pid: Any, short: bool = False) -> str:
    """``"fr-45di 45th (Algerian) Infantry Division"`` (or just the id with ``short``). No square
    brackets: terminal front ends may read them as markup."""
    p = g.state.pieces.get(str(pid)) if isinstance(pid, str) else None
    if p is None:
        return str(pid)
    if short or not p.name:
        return p.id
    return f"{p.id} {p.name}"


def values(p: Piece) -> str:
    """The printed values of the face up: ``8-11-5`` (attack-defense-move) or a single strength."""
    face = p.faces.get(p.face, {})
    if "attack" in face:
        return f"{face.get('attack')}-{face.get('defense')}-{face.get('move', '-')}"
    if "strength" in face:
        return f"{face['strength']}-{face.get('move', '-')}"
    return ""


def _names(g: Game, ids: Any, short: bool = False) -> str:
    if not isinstance(ids, list | tuple):
        return str(ids)
    if len(ids) > 3:
        short = True
    return ", ".join(piece_name(g, x, short) for x in ids)


def _hex_of_piece(g: Game, pid: Any) -> str:

    p = g.state.pieces.get(str(pid)) if isinstance(pid, str) else None
    h = units.hex_of(g, p) if p is not None else None
    return hex_name(g, h) if h is not None else "?"


def _step_title(g: Game) -> str:
    if not g.state.frames:
        return "the phase"
    f = g.state.frames[-1]
    st = g.steps.get(f.step)
    return str(getattr(st, "title", "") or f.step)


# ----------------------------------------------------------------------------- the text map
def _visible(g: Game, p: Piece, side: str | None) -> bool:
    """Whether ``side`` sees the piece itself (OT 14N2 may hide the contents of enemy corps)."""
    return g.ruleset.piece_visibility(g, p, side) == "full"


def _cell(g: Game, i: int, counts: dict[int, dict[str, int]], marks: Mapping[int, str]) -> str:
    pts = {pt.kind for pt in g.board.points_at(i)}
    t = TERRAIN_CHAR.get(g.board.terrain_of(i), "?")
    if pts & set(MAJOR_CITY):
        t = "#"
    elif pts & set(CITY_LIKE):
        t = "*"
    here = counts.get(i, {})
    if len(here) > 1:
        body = "**"
    elif here:
        ((side, n),) = here.items()
        body = side[:1].upper() + (str(n) if n < 10 else "+")
    else:
        owner = g.state.control.get(i)
        body = (
            str(owner)[:1].lower()
            if owner and not str(owner).startswith("neutral:")
            else "n"
            if owner
            else " "
        ) + " "
    if i in marks:
        body = body[0] + marks[i][:1]
    return t + body


def map_lines(
    g: Game,
    side: str | None,
    marks: Mapping[int, str] | None = None,
    window: tuple[int, int, int, int] | None = None,
    stride: int = 2,
    legend: set[str] | None = None,
) -> list[str]:
    """The map as text, three characters a hex: a terrain (or city) character, then either the
    side initial and number of units in the hex, or the owner's initial in lower case. Columns
    are ``stride`` characters apart and each printed row takes two lines (the shifted columns on
    the second), so with the default 2, 30 columns fit in 70 characters. On the line between two
    hexes of a column, the hexside between them shows its river or canal (or a rail line
    crossing it); with ``stride`` 3 the slanting hexsides are drawn too
    (:func:`grognard.textmap.hexside_overlay`; what was drawn is added to ``legend``).
    ``marks`` replaces the last character of some hexes (e.g. MP costs); ``window`` = (first
    column, last column, first row, last row) draws part of the map."""

    marks = marks or {}
    counts: dict[int, dict[str, int]] = {}
    for p in units.on_map_units(g):
        if not _visible(g, p, side):
            continue
        h = units.hex_of(g, p)
        if h is not None:
            counts.setdefault(h, {}).setdefault(p.side, 0)
            counts[h][p.side] += 1
    rails = textmap.rail_sides(g)
    out: list[str] = []
    for name, sheet in g.board.sheets.items():
        pos = {}
        for i, hx in enumerate(g.board.hexes):
            if len(g.board.sheets) == 1 or g.board.labels[i].startswith(name + ":"):
                pos[sheet.to_offset(hx)] = i
        if not pos:
            continue
        cols = sorted({c for c, _ in pos})
        rows = sorted({r for _, r in pos})
        if window:
            cols = [c for c in cols if window[0] <= c <= window[1]]
            rows = [r for r in rows if window[2] <= r <= window[3]]
        if not cols or not rows:
            continue
        lower = 0 if sheet.shifted == "even" else 1
        x = {c: 4 + stride * k for k, c in enumerate(cols)}
        width = x[cols[-1]] + 3
        if len(g.board.sheets) > 1:
            out.append(f"map {name}")
        for half in (0, 1):
            line = [" "] * width
            for c in cols:
                if ((c & 1) == lower) == bool(half):
                    line[x[c] : x[c] + 2] = list(f"{c:02d}")
            out.append("".join(line).rstrip())
        canvas: list[list[str]] = []
        cells: dict[tuple[int, int], int] = {}
        for r in rows:
            for half in (0, 1):
                chars = list((f"{r:02d}" if half == 0 else "").ljust(width))
                for c in cols:
                    if ((c & 1) == lower) != bool(half):
                        continue
                    cell_hex = pos.get((c, r))
                    if cell_hex is not None:
                        chars[x[c] : x[c] + 3] = list(_cell(g, cell_hex, counts, marks))
                        cells[(c, len(canvas))] = cell_hex
                canvas.append(chars)
        used = textmap.hexside_overlay(g, canvas, cells, x, stride, rails)
        if legend is not None:
            legend |= used
        out.extend("".join(line).rstrip() for line in canvas)
    return out


LEGEND = (
    "hexes: terrain . clear, f forest, w woods, r rough, R wooded rough, s swamp, b bocage, k"
    " canal-intensive, m mountain, ~ sea; # major city, * other city or fortress; then E3 = 3"
    " Entente units, C6 = 6 Central Powers units, ** = both sides, e / c = empty hex owned by the"
    " Entente / Central Powers, n = neutral; each row takes two lines: the even columns, half a hex"
    " lower, on the second"
)


def header_lines(g: Game, side: str | None) -> list[str]:

    out = [
        f"{g.scenario.data.scenario.title} -- {g.turn_label()} --"
        f" {' > '.join(g.phase_path()[3:] or g.phase_path()[-1:])}"
    ]
    zones: dict[str, str] = {}
    for i in range(g.board.n):
        z = weather.weather_zone(g, i)
        if z is not None:
            zones.setdefault(z, weather.weather_at(g, i))
    if zones:
        out.append("weather: " + ", ".join(f"zone {z} {w}" for z, w in sorted(zones.items())))
    if victory.model(g).objectives:
        out.append(
            "victory points held: " + ", ".join(f"{s} {n}" for s, n in victory.points(g).items())
        )
    if side is not None:
        caps = []
        for net in rail.net_names(g):
            left = rail.available(g, side, net)
            if left is not None:
                caps.append(f"{net} {fmt(left)} RE")
        if caps:
            out.append(f"rail capacity left ({side}): " + ", ".join(caps))
    return out


def front_stacks(g: Game, side: str | None) -> list[str]:
    """One line per hex holding units next to (or with) enemy units: the units and their values."""

    by_hex: dict[int, list[Piece]] = {}
    for p in units.on_map_units(g):
        if not _visible(g, p, side):
            continue
        h = units.hex_of(g, p)
        if h is not None:
            by_hex.setdefault(h, []).append(p)
    out = []
    for h in sorted(by_hex, key=lambda i: g.board.label(i)):
        sides = {p.side for p in by_hex[h]}
        near = {q.side for j in g.board.neighbors(h) for q in by_hex.get(j, [])}
        if not (near - sides) and len(sides) < 2:
            continue
        ps = sorted(by_hex[h], key=lambda p: (p.side, p.order))
        out.append(f"  {hex_name(g, h)}: " + ", ".join(f"{p.id} {values(p)}".rstrip() for p in ps))
    return out


def render_text(
    g: Game,
    side: str | None,
    marks: Mapping[int, str] | None = None,
    window: tuple[int, int, int, int] | None = None,
    stacks: bool = True,
    width: int | None = None,
) -> str:
    """The whole text display: header, map, legend and the stacks in contact with the enemy.
    With a ``width`` (the terminal's) that has room for it, columns are drawn three characters
    apart so that every hexside shows its river; otherwise two apart (80 columns for 30)."""
    lines = header_lines(g, side)
    ncols = _column_count(g, window)
    stride = 3 if width is not None and 4 + 3 * ncols + 3 <= width else 2
    used: set[str] = set()
    lines += map_lines(g, side, marks, window, stride, used)
    lines.append(LEGEND)
    if used:
        lines.append(
            "hexsides: "
            + ", ".join(sorted(used))
            + (
                " (on the line between two hexes of a column"
                + ("; in a corner: a slanting hexside there" if stride > 2 else "")
                + "); 'hex ID' lists a hex's hexsides"
            )
        )
    if stacks:
        front = front_stacks(g, side)
        if front:
            lines.append("stacks in contact:")
            lines += front
    return "\n".join(lines)


def _column_count(g: Game, window: tuple[int, int, int, int] | None) -> int:
    cols: set[int] = set()
    for sheet in g.board.sheets.values():
        for hx in g.board.hexes:
            c, _ = sheet.to_offset(hx)
            if window is None or window[0] <= c <= window[1]:
                cols.add(c)
        break
    return len(cols)


# ----------------------------------------------------------------------------- reach and previews
def reachable(g: Game, piece_ids: Sequence[str]) -> dict[str, str] | None:
    """Hex label -> MP cost of every hex the pieces can move to now (None outside movement)."""

    if movement.current_move_frame(g) is None:
        return None
    return {
        g.board.label(h): fmt(c) for h, c in sorted(movement.reachable(g, list(piece_ids)).items())
    }


def _cost_char(c: Fraction) -> str:
    n = int(c) if c == int(c) else int(c) + 1
    return str(n) if n < 10 else "+"


def window_around(g: Game, hexes: Sequence[int], pad: int = 2) -> tuple[int, int, int, int] | None:
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


def reach_map(g: Game, piece_ids: Sequence[str], side: str, chosen: int | None = None) -> list[str]:
    """A map window with the MP cost (rounded up) of every hex the pieces can reach; ``@`` marks
    the hex chosen, ``o`` the hex they stand in."""

    reach = movement.reachable(g, list(piece_ids))
    p = g.state.pieces.get(piece_ids[0])
    here = units.hex_of(g, p) if p is not None else None
    marks = {h: _cost_char(c) for h, c in reach.items()}
    if here is not None:
        marks[here] = "o"
    if chosen is not None:
        marks[chosen] = "@"
    win = window_around(g, [*reach, *([here] if here is not None else [])])
    lines = map_lines(g, side, marks, win)
    far = sorted(
        (h for h, c in reach.items() if g.board.distance(here, h) > 1) if here is not None else []
    )
    text = [
        f"reachable now ({len(reach)} hexes; digit = MP cost, o = here, @ = this move):",
        *lines,
    ]
    if far:
        example = {"type": "move", "piece": piece_ids[0], "to": g.board.label(far[-1])}
        text.append("to move farther than one hex, enter: j " + json.dumps(example))
    return text


def _move_frame(g: Game) -> Any:

    return movement.current_move_frame(g)


def preview_move(g: Game, action: Action) -> str | None:

    f = _move_frame(g)
    if f is None:
        return None
    a = {**action, "side": action.get("side") or f.params.get("side")}
    try:
        plan = movement.plan_move(g, f, a)
    except IllegalAction as e:
        return f"illegal: {e.message} ({e.rule})"
    lines = [g.label(a)]
    for p in plan.pieces:
        left = movement.remaining(g, f, p) - plan.costs[p.id]
        extra = " (the one-hex move: all its MPs)" if plan.min_move.get(p.id) else ""
        lines.append(
            f"  {piece_name(g, p.id)}: {fmt(plan.costs[p.id])} MP{extra},"
            f" {fmt(max(left, Fraction(0)))} MP left"
        )
        if plan.disrupt_on.get(p.id):
            lines.append(
                "  crossing an unfordable major river without a bridge disrupts it (OT 15A4)"
            )
    ids = [p.id for p in plan.pieces]
    lines += reach_map(g, ids[:1] if len(ids) == 1 else ids, str(a["side"]), plan.path[-1])
    return "\n".join(lines)


def preview_rail(g: Game, action: Action) -> str | None:

    f = _move_frame(g)
    if f is None:
        return None
    a = {**action, "side": action.get("side") or f.params.get("side")}
    try:
        plan = rail.plan_rail_move(g, f, a)
    except IllegalAction as e:
        return f"illegal: {e.message} ({e.rule})"
    cost = (
        f"{fmt(plan.mp)} MP"
        if plan.kind == "operational"
        else f"{plan.hexes} of the 200 strategic rail hexes"
    )
    lines = [g.label(a), f"  cost: {cost}"]
    for net, amt in plan.charges.items():
        left = rail.available(g, str(a["side"]), net)
        after = "" if left is None else f", {fmt(left - amt)} RE left afterwards"
        lines.append(f"  capacity: {fmt(amt)} RE on {net}{after} (OT 7A4)")
    if plan.anchors:
        lines.append(
            f"  enemy ZOC negated by {', '.join(plan.anchors)}, which must stay put this phase"
            " (OT 7A)"
        )
    if plan.kind == "strategic":
        lines.append(
            "  strategic rail: the unit may not attack this player turn nor move in exploitation"
            " (OT 7A3)"
        )
    return "\n".join(lines)


def preview_overrun(g: Game, action: Action) -> str | None:

    f = _move_frame(g)
    if f is None:
        return None
    a = {**action, "side": action.get("side") or f.params.get("side")}
    try:
        plan = overrun.plan_overrun(g, f, a)
    except IllegalAction as e:
        return f"illegal: {e.message} ({e.rule})"
    base, shift, final = plan.odds
    need = overrun.REQUIRED_ODDS
    lines = [
        g.label(a),
        (
            f"  odds {base}:1, fatigue shift {shift:+d}, final {final}:1 --"
            f" {'succeeds' if final >= need else 'fails'} (needs {need}:1, OT 6F1)"
        ),
    ]
    for pid, c in plan.costs.items():
        lines.append(f"  {piece_name(g, pid)}: {fmt(c)} MP")
    return "\n".join(lines)


def _bars(dist: Mapping[str, Any]) -> list[str]:
    out = []
    for k, v in sorted(dist.items(), key=lambda kv: -float(kv[1])):
        p = Fraction(v).limit_denominator(1000) if not isinstance(v, Fraction) else v
        out.append(f"  {k:>4} {float(p):6.1%} {'#' * round(float(p) * 36)}")
    return out


def preview_attack(g: Game, action: Action) -> str | dict[str, Any] | None:
    """The combat rules' preview of an attack, with the distribution of results drawn as bars."""

    raw = combat.preview_attack(g, dict(action))
    if not isinstance(raw, dict):
        return raw
    dist = raw.get("distribution")
    if isinstance(dist, Mapping) and dist:
        raw = dict(raw)
        raw["text"] = "\n".join(
            [str(raw.get("text", "")), "  distribution of results:", *_bars(dist)]
        )
    return raw


PREVIEWS: Mapping[str, Callable[[Game, Action], str | dict[str, Any] | None]] = {
    "move": preview_move,
    "rail-move": preview_rail,
    "overrun": preview_overrun,
    "attack": preview_attack,
}
"""The action types that have a preview, each with the function drawing it."""


def preview(g: Game, action: Action) -> str | dict[str, Any] | None:
    """What an action would do, before it is committed (None when there is nothing to add)."""
    fn = PREVIEWS.get(str(action.get("type")))
    return fn(g, action) if fn is not None else None
