"""LGG 2: the counters - unit catalogue, armies and command, generals, GHQs (and 10-C cooperation).

Armies are declared in the scenario (``[[rules.armies]]``); a unit belongs to an army when
it bears the army's number (``attrs.army``: army-own units, never transferable, 2-B) or when
an un-numbered corps is attached to the army's HQ (``attrs.attached``), within the HQ's
command limit. Support units may be attached without limit. Minor-country HQs command all
their national units (2-B).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.lgg1418 import model as M

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.scenario.model import Scenario

_CODE_RE = re.compile(r"^(\d+)[-.](\d+)[-.](\d+)$")
ENGINE_ATTRS = {"attached"}


# ====================================================================== counters (2-A)
@implements("LGG 2-A")
def parse_value_code(code: str) -> dict[str, int]:
    """LGG 2-A (digest A-1): read a corps value string.

    ``"83-9-4"`` is attack 8, fire 3, defence 9, movement 4; a first group of one digit has
    no fire digit (``"2.3.3"``: attack 2, fire 0, defence 3, movement 3).
    """
    m = _CODE_RE.match(code.strip())
    if not m:
        raise ValueError(f"value string {code!r} is not of the form 83-9-4 or 2.3.3")
    first, defense, movement = m.groups()
    if len(first) == 1:
        attack, fire = int(first), 0
    elif len(first) == 2:
        attack, fire = int(first[0]), int(first[1])
    else:
        raise ValueError(f"value string {code!r}: the first group has one or two digits")
    return {"attack": attack, "fire": fire, "defense": int(defense), "movement": int(movement)}


@implements("LGG 2-A")
def check_pieces(sc: Scenario) -> list[tuple[str, str]]:
    """LGG 2-A: every scenario piece against the counter catalogue (``data/catalogue.toml``)."""
    data = sc.ruleset.data  # type: ignore[attr-defined]
    problems: list[tuple[str, str]] = []
    types = data.catalogue["types"]
    for i, pd in enumerate(sc.data.pieces):
        path = f"pieces[{i}]"
        spec = types.get(pd.type)
        if spec is None:
            continue  # the loader already reports unknown types
        faces = spec.get("faces", ["front"])
        if not pd.faces:
            problems.append(
                (
                    f"{path}.faces",
                    f"a {pd.type} needs its printed values (faces {', '.join(faces)})",
                )
            )
        for fname, fvals in pd.faces.items():
            if fname not in faces:
                problems.append(
                    (f"{path}.faces.{fname}", f"a {pd.type} has faces {', '.join(faces)}")
                )
                continue
            for fld in spec.get("fields", []):
                if fld not in fvals:
                    problems.append((f"{path}.faces.{fname}", f"missing value {fld!r}"))
                elif not isinstance(fvals[fld], int) or isinstance(fvals[fld], bool):
                    problems.append((f"{path}.faces.{fname}.{fld}", "must be a whole number"))
            allowed = set(spec.get("fields", [])) | set(spec.get("optional_fields", []))
            for extra in sorted(set(fvals) - allowed):
                problems.append((f"{path}.faces.{fname}.{extra}", f"unknown value for a {pd.type}"))
        if pd.faces and faces[0] not in pd.faces:
            problems.append((f"{path}.faces", f"the {faces[0]!r} face is required"))
        for req in spec.get("required", []):
            if req not in pd.attrs:
                problems.append((f"{path}.attrs", f"a {pd.type} needs attribute {req!r}"))
        allowed_attrs = set(spec.get("required", [])) | set(spec.get("optional", [])) | ENGINE_ATTRS
        for key in sorted(set(pd.attrs) - allowed_attrs):
            problems.append((f"{path}.attrs.{key}", f"unknown attribute for a {pd.type}"))
        for key, vals in spec.get("values", {}).items():
            if key in pd.attrs and pd.attrs[key] not in vals:
                problems.append(
                    (f"{path}.attrs.{key}", f"{pd.attrs[key]!r} is not one of {', '.join(vals)}")
                )
        code = pd.attrs.get("code")
        if pd.type == "corps" and isinstance(code, str) and "full" in pd.faces:
            try:
                parsed = parse_value_code(code)
            except ValueError as e:
                problems.append((f"{path}.attrs.code", str(e)))
            else:
                for k, v in parsed.items():
                    if pd.faces["full"].get(k) != v:
                        problems.append(
                            (
                                f"{path}.faces.full.{k}",
                                f"is {pd.faces['full'].get(k)} but the code {code} says {v}",
                            )
                        )
    return problems


def stat(g: Game, p: Piece, key: str) -> Any:
    """A printed value, with the catalogue default when the scenario left an optional one out."""
    v = p.stat(key)
    if v is None:
        v = M.data(g).default(p.type, key)
    return v


# ====================================================================== command (2-B, 10-C)
def _minor_army(g: Game, nation: str) -> str | None:
    if M.is_major(g, nation):
        return None
    for a in sorted(M.army_defs(g)):
        if M.army_nation(g, a) == nation and M.army_formed(g, a):
            return a
    return None


@implements("LGG 2-B")
def command_army(g: Game, p: Piece) -> str | None:
    """LGG 2-B: the army commanding a piece.

    An HQ or decoy is its army's; a piece inside an HQ or decoy (its box, its reserve, a
    general) rides with that army; a unit bearing the number of a formed army belongs to it;
    an un-numbered unit belongs to the army it is attached to; an un-numbered unit of a minor
    country is commanded by its country's HQ without limit. Anything else is autonomous (21).
    """
    if p.type in ("hq", "decoy"):
        return str(p.attrs.get("army"))
    c = M.carrier(g, p)
    if c is not None and c.type in ("hq", "decoy"):
        return str(c.attrs.get("army"))
    if c is not None and c.type == "ghq":
        return None
    own = M.army_number(g, p)
    if own:
        return own
    att = p.attrs.get("attached")
    if att:
        return str(att)
    if p.type in ("corps", "artillery", "tank") and not M.is_garrison(p):
        return _minor_army(g, p.nation)
    return None


def army_units(g: Game, army: str) -> list[Piece]:
    """Every piece commanded by ``army`` (HQ, decoy, own and attached units, reserves, generals)."""
    return list(_army_index(g).get(army, ()))


def _army_index(g: Game) -> dict[str | None, list[Piece]]:
    """Army -> the pieces it commands, by id (one pass over the pieces per position)."""

    def compute() -> dict[str | None, list[Piece]]:
        out: dict[str | None, list[Piece]] = {}
        for p in sorted(g.state.pieces.values(), key=lambda p: p.id):
            out.setdefault(command_army(g, p), []).append(p)
        return out

    return M.memo(g, "army-index", compute)


@implements("LGG 2-B")
def is_army_own(g: Game, p: Piece) -> bool:
    """LGG 2-B: a unit bearing an army number (never transferable, never in the GHQ reserve)."""
    return M.army_number(g, p) is not None


@implements("LGG 2-B")
def counts_against_command_limit(g: Game, p: Piece) -> bool:
    """LGG 2-B: an attached un-numbered corps counts against the HQ's limit.

    Support units never count; a corps whose ``command_exempt`` lists the current turn does
    not count (the reduced 63-7-4 corps of the German II and VII Armies in August 1914).
    """
    if not M.is_corps(p) or M.army_number(g, p):
        return False
    exempt = p.attrs.get("command_exempt") or []
    return M.current_turn(g).id not in exempt


def attached_corps(g: Game, army: str) -> list[Piece]:
    def compute() -> dict[str, list[Piece]]:
        out: dict[str, list[Piece]] = {}
        for p in g.state.pieces.values():
            a = p.attrs.get("attached")
            if a and counts_against_command_limit(g, p):
                out.setdefault(str(a), []).append(p)
        return out

    return list(M.memo(g, "attached-corps", compute).get(army, ()))


def command_limit(g: Game, army: str) -> int | None:
    """The number of un-numbered corps an HQ may command (None: no limit - minor countries, or
    the option ``unnumbered-command-limit``, digest A-54)."""
    if (
        not M.is_major(g, M.army_nation(g, army))
        or g.opt("unnumbered-command-limit") == "unlimited"
    ):
        return None
    hq = M.hq_piece(g, army)
    if hq is None:
        return 0
    return int(stat(g, hq, "command_limit"))


@implements("LGG 10-C")
def foreign_allowed(g: Game, army: str, p: Piece) -> str | None:
    """LGG 10-C: why ``army`` may not integrate a unit of another nation (None: it may).

    Only the armies the scenario marks ``multinational`` (Orient, Süd, Zentr, Alpen) take
    foreign units; each English army may take two allied corps.
    """
    nation = M.army_nation(g, army)
    if p.nation == nation:
        return None
    if M.army_def(g, army).multinational:
        return None
    if nation == "GB" and M.is_corps(p):
        cap = int(M.data(g).powers["cooperation"]["english_allied_corps"])
        allied = [
            q for q in army_units(g, army) if M.is_corps(q) and q.nation != nation and q.id != p.id
        ]
        if len(allied) >= cap:
            return f"an English army may integrate only {cap} allied corps"
        return None
    return f"army {army} may not integrate units of another nation"


@implements("LGG 2-B", "LGG 10-C", "LGG 10-A")
def why_not_attach(g: Game, p: Piece, army: str) -> str | None:
    """LGG 2-B / 10-C / 10-A: why ``p`` may not be attached to ``army`` (None when it may); a unit
    standing with units of another army may not join this one there (10-A)."""
    if p.type not in ("corps", "artillery", "tank"):
        return f"only corps and support units are attached to armies, not a {p.type}"
    if M.is_garrison(p):
        return "a garrison corps stays with its fortress"
    if M.army_number(g, p):
        return f"{p.id} belongs to its own army and can never be transferred"
    if not M.army_formed(g, army) or M.hq_piece(g, army) is None:
        return f"army {army} is not in play"
    hq = M.hq_piece(g, army)
    assert hq is not None
    if hq.side != p.side:
        return f"army {army} is not of {p.side}"
    if p.attrs.get("attached") == army:
        return f"{p.id} is already attached to army {army}"
    why = foreign_allowed(g, army, p)
    if why:
        return why
    limit = command_limit(g, army)
    if (
        limit is not None
        and counts_against_command_limit(g, p)
        and len(attached_corps(g, army)) >= limit
    ):
        return f"army {army} already commands {limit} un-numbered corps (its command limit)"
    h = M.hex_of(g, p)
    holder = M.carrier(g, p)
    on_box = holder is not None and holder.type in ("hq", "decoy") and not M.in_reserve(p)
    if on_box and str(holder.attrs.get("army")) != army:  # type: ignore[union-attr]
        return f"{p.id} is on the box of {holder.id}, of another army (4-B, 10-A)"  # type: ignore[union-attr]
    if h is not None and (p.loc.kind == "hex" or on_box) and not M.in_reserve(p):
        others = {
            a
            for q in M.units_at_hex(g, h, p.side)
            if q.id != p.id and (a := command_army(g, q)) is not None
        }
        if others - {army}:
            return (
                f"{p.id} stands with units of another army ({', '.join(sorted(others - {army}))};"
                " 10-A)"
            )
    return None


def attach(g: Game, p: Piece, army: str | None) -> None:
    M.set_attr(g, p, "attached", army)


# ====================================================================== generals, GHQs (2-A, 11.3)
def army_general(g: Game, army: str) -> Piece | None:
    hq = M.hq_piece(g, army)
    return M.general_with(g, hq) if hq is not None else None


@implements("LGG 11.3")
def coordination_value(g: Game, army: str) -> int:
    """LGG 11.3 (digest A-53): the army's coordination value, or its general's when present."""
    gen = army_general(g, army)
    if gen is not None and g.opt("coordination-value-source") == "general-coordination":
        return int(gen.stat("coordination", 0))
    hq = M.hq_piece(g, army)
    return int(hq.stat("coordination", 0)) if hq else 0


@implements("LGG 2-B")
def command_range(g: Game, army: str) -> int:
    """LGG 2-B / [11.1-A]: the HQ's command range in hexes."""
    hq = M.hq_piece(g, army)
    return int(stat(g, hq, "command_range")) if hq else 0


def ghq_value(g: Game, nation: str, key: str) -> int:
    """A value of a power's GHQ (``initiative``, ``reaction``, ``combination``)."""
    ghq = M.ghq_piece(g, nation)
    if ghq is None:
        raise KeyError(f"{M.nation_name(g, nation)} has no GHQ in play")
    return int(ghq.stat(key, 0))


def general_obstinacy(g: Game, army: str) -> int:
    gen = army_general(g, army)
    return int(gen.stat("obstinacy", 1)) if gen else 1
