"""Loading scenario files: TOML -> validated models -> compiled board -> :class:`Scenario`.

Every problem is reported as ``FILE: key.path: message`` and all problems found in a
pass are reported together (:class:`ScenarioError`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import tomllib
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from grognard import hexgrid, rulesets
from grognard.board import BoardBuilder, BoardError, Box, BoxLink, Point
from grognard.core.errors import GrognardError
from grognard.core.options import OptionError
from grognard.core.state import Loc
from grognard.hexgrid import Hex, SheetGeometry
from grognard.scenario import freeform
from grognard.scenario.model import Scenario
from grognard.scenario.schema import PieceAt, ScenarioFile

MAX_HEXES = 250_000  # hexes of all the map sheets of a scenario (docs/scenario-format.md)


class ScenarioError(GrognardError):
    """A scenario file is invalid. ``problems`` lists ``(key path, message)`` pairs."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = [
            f"{source}: {path}: {msg}" if path else f"{source}: {msg}" for path, msg in problems
        ]
        super().__init__("\n".join(lines))


def _loc_path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def parse_file_text(text: str, source: str) -> ScenarioFile:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(source, [("", f"not valid TOML: {e}")]) from None
    try:
        return ScenarioFile.model_validate(raw)
    except ValidationError as e:
        problems = []
        for err in e.errors():
            loc = tuple(
                p
                for p in err["loc"]
                if p not in ("str", "PieceAt", "function-after[_ordered(), tuple[int, int]]")
            )
            msg = err["msg"]
            if err["type"] == "extra_forbidden":
                msg = "unknown key (not part of the scenario format)"
            problems.append((_loc_path(loc), msg))
        # pydantic reports each alternative of a union; keep one line per path and message
        seen: set[tuple[str, str]] = set()
        uniq = []
        for p in problems:
            if p not in seen:
                seen.add(p)
                uniq.append(p)
        raise ScenarioError(source, uniq) from None


# the scenarios last compiled in this process, by their text, source name and table texts (a
# compiled scenario never changes): a save of a game of one of them loads without compiling its
# scenario again (:func:`recall`), whether that scenario came from a file or from another save
_COMPILED: OrderedDict[str, Scenario] = OrderedDict()
COMPILED_MEMO = 16


def _compiled_key(text: str, source: str, overrides: Mapping[str, str]) -> str:
    body = json.dumps([text, source, sorted(overrides.items())], ensure_ascii=False)
    return hashlib.sha256(body.encode()).hexdigest()


def recall(text: str, source: str, overrides: Mapping[str, str]) -> Scenario | None:
    """The scenario this process last compiled from exactly this text, source name and table
    texts (its ``table_overrides``), or None."""
    key = _compiled_key(text, source, overrides)
    hit = _COMPILED.get(key)
    if hit is not None:
        _COMPILED.move_to_end(key)
    return hit


def _remember(sc: Scenario) -> None:
    _COMPILED[_compiled_key(sc.source_text, sc.source_name, sc.table_overrides)] = sc
    if len(_COMPILED) > COMPILED_MEMO:
        _COMPILED.popitem(last=False)


def load_scenario(path: str | Path, table_overrides: dict[str, str] | None = None) -> Scenario:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError(str(p), [("", f"cannot read file: {e.strerror}")]) from None
    sc = load_scenario_text(text, str(p), base_dir=p.parent, table_overrides=table_overrides)
    if not sc.data.pieces and "pieces" not in tomllib.loads(text):
        # a scenario file has pieces; one without any was cut short, unless it says so with an
        # explicit "pieces = []" (a laboratory board whose tests place their own)
        raise ScenarioError(
            str(p),
            [
                (
                    "pieces",
                    "the file has no pieces (is it cut short? write pieces = [] if on purpose)",
                )
            ],
        )
    return sc


def load_scenario_text(
    text: str,
    source: str,
    base_dir: Path | None = None,
    table_overrides: dict[str, str] | None = None,
) -> Scenario:
    """Validate and compile a scenario from its TOML text."""
    data = parse_file_text(text, source)
    problems: list[tuple[str, str]] = []
    try:
        rs = rulesets.get(data.scenario.ruleset)
    except KeyError as e:
        raise ScenarioError(source, [("scenario.ruleset", str(e.args[0]))]) from None
    try:
        rs.option_set().resolve(data.scenario.options, where="scenario.options")
    except OptionError as e:
        problems.append(("", str(e)))
    overrides = dict(table_overrides or {})
    for tid, rel in data.tables.items():
        if tid in overrides:
            continue
        fp = (base_dir or Path(".")) / rel
        try:
            overrides[tid] = fp.read_text(encoding="utf-8")
        except OSError as e:
            problems.append((f"tables.{tid}", f"cannot read {fp}: {e.strerror}"))
    if overrides:
        try:
            rs.tables(overrides)
        except (ValueError, GrognardError) as e:
            problems.append(("tables", str(e)))
    builder, bprob = _build_board(data, rs)
    problems.extend(bprob)
    if problems:
        raise ScenarioError(source, problems)
    try:
        board = builder.build()
    except BoardError as e:
        raise ScenarioError(source, [("maps", str(e))]) from None
    problems.extend(_check_references(data, board, rs))
    rules_model = None
    model_cls = rs.scenario_model()
    if model_cls is not None:
        try:
            rules_model = model_cls.model_validate(data.rules)
        except ValidationError as e:
            for err in e.errors():
                msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
                problems.append((_loc_path(("rules", *err["loc"])), msg))
    elif data.rules:
        problems.append(("rules", f"rule system {rs.name} takes no [rules] table"))
    content_hash = hashlib.sha256(text.encode()).hexdigest()
    sc = Scenario(data, board, rs, text, source, content_hash, overrides, rules_model)
    if not problems:
        try:
            sc.piece_locs = _piece_locs(data, board)
        except _PathError as e:
            problems.append((e.path, e.msg))
    if not problems:
        problems.extend(_check_piece_values(data, rs))
        problems.extend(freeform.check(data, rs.free_form_keys()))
    if not problems:
        problems.extend(rs.check_scenario(sc))
    if problems:
        raise ScenarioError(source, problems)
    _remember(sc)
    return sc


def _check_piece_values(data: ScenarioFile, rs: Any) -> list[tuple[str, str]]:
    """Validate each face's printed values with the rule system's piece model, if it has one."""
    model = rs.piece_attr_model()
    if model is None:
        return []
    problems = []
    for i, pd in enumerate(data.pieces):
        for face, values in pd.faces.items():
            try:
                model.model_validate(values)
            except ValidationError as e:
                for err in e.errors():
                    msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
                    problems.append((_loc_path(("pieces", i, "faces", face, *err["loc"])), msg))
    return problems


class _PathError(Exception):
    def __init__(self, path: str, msg: str) -> None:
        self.path = path
        self.msg = msg


def _split_codes(row: str) -> list[str]:
    return row.split() if any(c.isspace() for c in row.strip()) else list(row)


def _build_board(data: ScenarioFile, rs: Any) -> tuple[BoardBuilder, list[tuple[str, str]]]:
    b = BoardBuilder()
    problems: list[tuple[str, str]] = []
    b.declare_terrain(rs.terrain_types)
    b.declare_features(rs.hexside_features)
    b.declare_point_kinds(rs.point_kinds)
    total = 0
    for mi, m in enumerate(data.maps):
        size = (m.cols[1] - m.cols[0] + 1) * (m.rows[1] - m.rows[0] + 1)
        total += size
        if total > MAX_HEXES:
            problems.append(
                (
                    f"maps[{mi}]",
                    f"{size:,} hexes ({m.cols[1] - m.cols[0] + 1} columns x"
                    f" {m.rows[1] - m.rows[0] + 1} rows) bring the scenario to {total:,}; the"
                    f" limit is {MAX_HEXES:,} hexes",
                )
            )
            return b, problems
    for mi, m in enumerate(data.maps):
        where = f"maps[{mi}]"
        origin = (int(m.origin[0]), int(m.origin[1]))
        digits = (int(m.digits[0]), int(m.digits[1]))
        sheet = SheetGeometry(m.name, m.orientation, m.shifted, origin, digits)
        try:
            b.add_sheet(sheet, range(m.cols[0], m.cols[1] + 1), range(m.rows[0], m.rows[1] + 1))
        except BoardError as e:
            problems.append((where, str(e)))
            continue
        for code, name in m.legend.items():
            if name and name not in rs.terrain_types:
                problems.append(
                    (
                        f"{where}.legend.{code}",
                        f"unknown terrain {name!r} (known: {', '.join(rs.terrain_types)})",
                    )
                )
        if m.default_terrain is not None and m.default_terrain not in rs.terrain_types:
            problems.append((f"{where}.default_terrain", f"unknown terrain {m.default_terrain!r}"))
        ncols = m.cols[1] - m.cols[0] + 1
        nrows = m.rows[1] - m.rows[0] + 1
        if m.terrain and len(m.terrain) != nrows:
            problems.append(
                (
                    f"{where}.terrain",
                    (
                        f"has {len(m.terrain)} rows; the map has {nrows} (rows"
                        f" {m.rows[0]}..{m.rows[1]})"
                    ),
                )
            )
        for ri, row in enumerate(m.terrain[:nrows]):
            codes = _split_codes(row)
            if len(codes) != ncols:
                problems.append(
                    (
                        f"{where}.terrain[{ri}]",
                        f"has {len(codes)} codes; the map has {ncols} columns",
                    )
                )
                continue
            for ci, code in enumerate(codes):
                h = sheet.to_axial(m.cols[0] + ci, m.rows[0] + ri)
                if code not in m.legend:
                    problems.append(
                        (
                            f"{where}.terrain[{ri}]",
                            f"column {ci + 1}: code {code!r} is not in the legend",
                        )
                    )
                    continue
                name = m.legend[code]
                if not name:
                    b.remove_hex(h)
                elif name in rs.terrain_types:
                    b.set_terrain(h, name)
        if not m.terrain:
            name = m.default_terrain or (rs.terrain_types[0] if rs.terrain_types else None)
            if name is None:
                problems.append(
                    (where, "no terrain given and the rule system declares no terrain types")
                )
            else:
                for c in range(m.cols[0], m.cols[1] + 1):
                    for r in range(m.rows[0], m.rows[1] + 1):
                        b.set_terrain(sheet.to_axial(c, r), name)
        elif m.default_terrain:
            pass
    if problems:
        return b, problems

    def hx(ref: str, path: str) -> Hex:
        try:
            return b.hex(ref)
        except BoardError as e:
            raise _PathError(path, str(e)) from None

    def side_pair(text: str, path: str) -> tuple[Hex, Hex]:
        t = text.strip()
        if "/" in t:
            a, _, c = t.partition("/")
            return hx(a, path), hx(c, path)
        parts = t.split()
        if len(parts) != 2:
            raise _PathError(path, f"hexside {text!r}: write 'HEX/HEX' or 'HEX DIR'")
        h = hx(parts[0], path)
        sheet_name = parts[0].split(":")[0] if ":" in parts[0] else next(iter(b.sheets))
        orient = b.sheets[sheet_name].orientation
        d = hexgrid.COMPASS[orient].get(parts[1].upper())
        if d is None:
            raise _PathError(
                path,
                f"hexside {text!r}: direction must be one of {', '.join(hexgrid.COMPASS[orient])}",
            )
        return h, hexgrid.neighbor(h, d)

    for i, hs in enumerate(data.hexsides):
        path = f"hexsides[{i}]"
        if hs.feature not in rs.hexside_features:
            problems.append(
                (
                    f"{path}.feature",
                    (
                        f"unknown hexside feature {hs.feature!r} (known:"
                        f" {', '.join(rs.hexside_features)})"
                    ),
                )
            )
            continue
        for k, text in enumerate(hs.sides):
            try:
                ha, hc = side_pair(text, f"{path}.sides[{k}]")
                if hexgrid.direction_between(ha, hc) is None:
                    raise _PathError(
                        f"{path}.sides[{k}]", f"{text!r}: the two hexes are not adjacent"
                    )
                b.add_side_feature(ha, hc, hs.feature, hs.attrs)
            except _PathError as e:
                problems.append((e.path, e.msg))
    for i, pl in enumerate(data.places):
        path = f"places[{i}]"
        if pl.kind not in rs.point_kinds:
            problems.append(
                (
                    f"{path}.kind",
                    f"unknown place kind {pl.kind!r} (known: {', '.join(rs.point_kinds)})",
                )
            )
            continue
        try:
            b.add_point(hx(pl.hex, f"{path}.hex"), Point(pl.kind, pl.name, dict(pl.attrs)))
        except _PathError as e:
            problems.append((e.path, e.msg))
    for i, net in enumerate(data.networks):
        path = f"networks[{i}]"
        if net.kind not in rs.network_kinds:
            problems.append(
                (
                    f"{path}.kind",
                    f"unknown network kind {net.kind!r} (known: {', '.join(rs.network_kinds)})",
                )
            )
            continue
        for k, chain in enumerate(net.paths):
            try:
                hexes = [hx(h, f"{path}.paths[{k}]") for h in chain]
            except _PathError as e:
                problems.append((e.path, e.msg))
                continue
            if len(hexes) < 2:
                problems.append((f"{path}.paths[{k}]", "a path needs at least two hexes"))
            for ha, hc in itertools.pairwise(hexes):
                if hexgrid.direction_between(ha, hc) is None:
                    problems.append(
                        (
                            f"{path}.paths[{k}]",
                            f"{b._hexes[ha]} and {b._hexes[hc]} are not adjacent",
                        )
                    )
                    break
                b.add_network_link(net.name, net.kind, ha, hc, net.attrs)
    area_hexes: dict[str, tuple[str, list[Hex], list[str], dict[str, Any]]] = {}
    for i, ar in enumerate(data.areas):
        path = f"areas[{i}]"
        if ar.kind not in rs.area_kinds:
            problems.append(
                (
                    f"{path}.kind",
                    f"unknown area kind {ar.kind!r} (known: {', '.join(rs.area_kinds)})",
                )
            )
            continue
        if ar.name in area_hexes:
            problems.append((f"{path}.name", f"area {ar.name!r} given twice"))
            continue
        try:
            area_hexes[ar.name] = (
                ar.kind,
                [hx(h, f"{path}.hexes") for h in ar.hexes],
                list(ar.adjacent),
                dict(ar.attrs),
            )
        except _PathError as e:
            problems.append((e.path, e.msg))
    for i, am in enumerate(data.area_maps):
        path = f"area_maps[{i}]"
        if am.kind not in rs.area_kinds:
            problems.append((f"{path}.kind", f"unknown area kind {am.kind!r}"))
            continue
        sheet_def = next((m for m in data.maps if m.name == am.map), None)
        if sheet_def is None:
            problems.append((f"{path}.map", f"no map named {am.map!r}"))
            continue
        sheet = b.sheets[am.map]
        nrows = sheet_def.rows[1] - sheet_def.rows[0] + 1
        ncols = sheet_def.cols[1] - sheet_def.cols[0] + 1
        if len(am.rows) != nrows:
            problems.append((f"{path}.rows", f"has {len(am.rows)} rows; the map has {nrows}"))
            continue
        for ri, row in enumerate(am.rows):
            codes = _split_codes(row)
            if len(codes) != ncols:
                problems.append(
                    (f"{path}.rows[{ri}]", f"has {len(codes)} codes; the map has {ncols} columns")
                )
                continue
            for ci, code in enumerate(codes):
                if code not in am.legend:
                    problems.append(
                        (
                            f"{path}.rows[{ri}]",
                            f"column {ci + 1}: code {code!r} is not in the legend",
                        )
                    )
                    continue
                name = am.legend[code]
                h = sheet.to_axial(sheet_def.cols[0] + ci, sheet_def.rows[0] + ri)
                if not name or h not in b._hexes:
                    continue
                entry = area_hexes.setdefault(name, (am.kind, [], [], {}))
                if entry[0] != am.kind:
                    problems.append(
                        (f"{path}.legend.{code}", f"area {name!r} already has kind {entry[0]!r}")
                    )
                    continue
                entry[1].append(h)
    for name, (kind, hexes, adj, attrs) in area_hexes.items():
        b.add_area(name, kind, hexes, adj, attrs)
    for i, bx in enumerate(data.boxes):
        path = f"boxes[{i}]"
        if bx.kind not in rs.box_kinds:
            problems.append(
                (f"{path}.kind", f"unknown box kind {bx.kind!r} (known: {', '.join(rs.box_kinds)})")
            )
            continue
        links = []
        for k, ln in enumerate(bx.links):
            target = ln.to
            if (
                ":" not in target
                and len(b.sheets) == 1
                and target in {lab.split(":", 1)[1] for lab in b._labels}
            ):
                target = f"{next(iter(b.sheets))}:{target}"
            links.append(BoxLink(target, ln.distance, ln.layer))
            _ = k
        try:
            b.add_box(Box(bx.name, bx.kind, tuple(links), dict(bx.attrs)))
        except BoardError as e:
            problems.append((path, str(e)))
    return b, problems


def _check_references(data: ScenarioFile, board: Any, rs: Any) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    sides = set(data.scenario.sides)
    for name, n in data.nations.items():
        if n.side is not None and n.side not in sides:
            problems.append(
                (
                    f"nations.{name}.side",
                    f"unknown side {n.side!r} (sides: {', '.join(data.scenario.sides)})",
                )
            )
    types = rs.piece_types()
    ids: set[str] = set()
    for i, pd in enumerate(data.pieces):
        path = f"pieces[{i}]"
        if pd.id in ids:
            problems.append((f"{path}.id", f"piece id {pd.id!r} used twice"))
        ids.add(pd.id)
        if types is not None and pd.type not in types:
            problems.append((f"{path}.type", f"unknown piece type {pd.type!r}"))
        if pd.side is not None and pd.side not in sides:
            problems.append((f"{path}.side", f"unknown side {pd.side!r}"))
        if pd.nation and pd.nation not in data.nations:
            problems.append((f"{path}.nation", f"unknown nation {pd.nation!r}"))
        if pd.side is None and not pd.nation:
            problems.append((path, "a piece needs a side or a nation"))
        elif (
            pd.side is None
            and data.nations.get(pd.nation) is not None
            and data.nations[pd.nation].side is None
        ):
            problems.append(
                (f"{path}.side", f"nation {pd.nation!r} is neutral: give the piece a side")
            )
        if pd.face is not None and pd.faces and pd.face not in pd.faces:
            problems.append(
                (f"{path}.face", f"face {pd.face!r} is not among its faces ({', '.join(pd.faces)})")
            )
    for side, hexes in data.control.hexes.items():
        if side not in sides:
            problems.append((f"control.hexes.{side}", f"unknown side {side!r}"))
        for k, h in enumerate(hexes):
            if not board.has_label(h):
                problems.append((f"control.hexes.{side}[{k}]", f"unknown hex {h!r}"))
    for area, side in data.control.areas.items():
        if area not in board.areas:
            problems.append((f"control.areas.{area}", f"unknown area {area!r}"))
        if side not in sides:
            problems.append((f"control.areas.{area}", f"unknown side {side!r}"))
    for i, e in enumerate(data.schedule):
        path = f"schedule[{i}]"
        if rs.schedule_kinds and e.kind not in rs.schedule_kinds:
            problems.append(
                (
                    f"{path}.kind",
                    f"unknown schedule kind {e.kind!r} (known: {', '.join(rs.schedule_kinds)})",
                )
            )
        for k, pid in enumerate(e.pieces):
            if pid not in ids:
                problems.append((f"{path}.pieces[{k}]", f"unknown piece {pid!r}"))
        if isinstance(e.turn, int) and data.turns and not 1 <= e.turn <= len(data.turns):
            problems.append(
                (f"{path}.turn", f"turn {e.turn} is outside the turn track (1..{len(data.turns)})")
            )
        if isinstance(e.turn, str) and data.turns and e.turn not in {t.label for t in data.turns}:
            problems.append((f"{path}.turn", f"no turn labelled {e.turn!r}"))
        if e.at is not None and not board.has_label(e.at) and e.at not in board.boxes:
            problems.append((f"{path}.at", f"unknown hex or box {e.at!r}"))
    return problems


def _piece_locs(data: ScenarioFile, board: Any) -> dict[str, Loc]:
    out: dict[str, Loc] = {}
    ids = {p.id for p in data.pieces}
    for i, pd in enumerate(data.pieces):
        path = f"pieces[{i}].at"
        at = pd.at
        if at is None:
            out[pd.id] = Loc("none", "")
            continue
        if isinstance(at, str):
            at = PieceAt(hex=at)
        given = [
            k for k in ("hex", "hexside", "area", "box", "inside") if getattr(at, k) is not None
        ]
        if len(given) != 1:
            raise _PathError(path, "give exactly one of hex, hexside, area, box, inside")
        kind = given[0]
        ref = getattr(at, kind)
        if kind == "hex":
            if not board.has_label(ref):
                raise _PathError(path, f"unknown hex {ref!r}")
            out[pd.id] = Loc.hex(board.idx(ref))
        elif kind == "hexside":
            a, _, c = ref.partition("/")
            if not (board.has_label(a) and board.has_label(c)):
                raise _PathError(path, f"hexside {ref!r}: write 'HEX/HEX' with two board hexes")
            try:
                out[pd.id] = Loc.hexside(board.side_between(board.idx(a), board.idx(c)))
            except BoardError as e:
                raise _PathError(path, str(e)) from None
        elif kind == "area":
            if ref not in board.areas:
                raise _PathError(path, f"unknown area {ref!r}")
            out[pd.id] = Loc.area(ref)
        elif kind == "box":
            if ref not in board.boxes:
                raise _PathError(path, f"unknown box {ref!r}")
            out[pd.id] = Loc.box(ref)
        else:
            if ref not in ids or ref == pd.id:
                raise _PathError(path, f"unknown carrier piece {ref!r}")
            out[pd.id] = Loc.inside(ref)
    return out
