"""Small scenario builder for the lgg1418 tests: maps, pieces and rules written as Python data.

The scenario goes through the ordinary loader (validation and all), so a test exercises the
same path as a shipped scenario.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from grognard.core.game import Game
from grognard.core.state import Loc
from grognard.rulesets.lgg1418 import model as M
from grognard.scenario import load_scenario_text
from grognard.scenario.model import Scenario

CP = M.CP
EN = M.ENTENTE

NATIONS = {
    "DE": CP,
    "AH": CP,
    "FR": EN,
    "GB": EN,
    "RU": EN,
    "BE": EN,
    "SR": EN,
}


def _val(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_val(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_val(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {v!r}")


def dumps(doc: dict[str, Any]) -> str:
    """TOML text: top-level tables and arrays of tables, everything below them inline."""
    out: list[str] = []
    for key, value in doc.items():
        if isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
            for item in value:
                out.append(f"[[{key}]]")
                out.extend(f"{json.dumps(k)} = {_val(v)}" for k, v in item.items())
                out.append("")
        elif isinstance(value, dict):
            out.append(f"[{key}]")
            out.extend(f"{json.dumps(str(k))} = {_val(v)}" for k, v in value.items())
            out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------- pieces
def corps(
    pid: str,
    nation: str,
    at: Any,
    army: str | None = None,
    arm: str = "infantry",
    full: tuple[int, int, int, int] = (6, 3, 8, 4),
    reduced: tuple[int, int, int, int] | None = (4, 2, 6, 4),
    face: str | None = None,
    status: Iterable[str] = (),
    **attrs: Any,
) -> dict[str, Any]:
    faces = {"full": dict(zip(("attack", "fire", "defense", "movement"), full, strict=True))}
    if reduced is not None:
        faces["reduced"] = dict(
            zip(("attack", "fire", "defense", "movement"), reduced, strict=True)
        )
    name = attrs.pop("name", "")
    a = {"arm": arm, "morale": attrs.pop("morale", "active"), **attrs}
    if army:
        a["army"] = army
    d: dict[str, Any] = {"id": pid, "type": "corps", "nation": nation, "attrs": a, "faces": faces}
    if name:
        d["name"] = name
    if at is not None:
        d["at"] = at
    if face:
        d["face"] = face
    if status:
        d["status"] = list(status)
    return d


def hq(
    pid: str,
    nation: str,
    at: Any,
    army: str,
    rng: int = 3,
    coord: int = 3,
    mv: int = 4,
    limit: int = 2,
    reserve: int = 2,
) -> dict[str, Any]:
    return {
        "id": pid,
        "type": "hq",
        "nation": nation,
        "at": at,
        "attrs": {"army": army},
        "faces": {
            "front": {
                "movement": mv,
                "command_range": rng,
                "coordination": coord,
                "command_limit": limit,
                "reserve_capacity": reserve,
            }
        },
    }


def ghq(
    pid: str, nation: str, at: Any, init: int = 2, react: int = 6, comb: int = 3
) -> dict[str, Any]:
    return {
        "id": pid,
        "type": "ghq",
        "nation": nation,
        "at": at,
        "faces": {
            "front": {
                "movement": 4,
                "initiative": init,
                "reaction": react,
                "combination": comb,
                "reserve_capacity": 4,
            }
        },
    }


def general(
    pid: str, nation: str, inside: str, rank: int = 2, obst: int = 2, coord: int = 3
) -> dict[str, Any]:
    return {
        "id": pid,
        "type": "general",
        "nation": nation,
        "at": {"inside": inside},
        "faces": {
            "front": {
                "rank": rank,
                "obstinacy": obst,
                "breakthrough": 1,
                "bonus": 0,
                "coordination": coord,
            }
        },
    }


def fortress(
    pid: str, nation: str, at: str, size: str = "large", status: Iterable[str] = ()
) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": pid,
        "type": "fortress",
        "nation": nation,
        "at": at,
        "attrs": {"size": size},
        "faces": {
            "full": {"defense": 3, "artillery": 3, "resistance": 2},
            "reduced": {"defense": 2, "artillery": 2, "resistance": 2},
        },
    }
    if status:
        d["status"] = list(status)
    return d


def decoy(pid: str, nation: str, army: str, at: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": pid,
        "type": "decoy",
        "nation": nation,
        "attrs": {"army": army},
        "faces": {"front": {"movement": 4}},
    }
    if at:
        d["at"] = at
    return d


def artillery(
    pid: str,
    nation: str,
    at: Any,
    army: str | None = None,
    category: str = "heavy",
    status: Iterable[str] = (),
) -> dict[str, Any]:
    a: dict[str, Any] = {"category": category}
    if army:
        a["army"] = army
    d: dict[str, Any] = {
        "id": pid,
        "type": "artillery",
        "nation": nation,
        "at": at,
        "attrs": a,
        "faces": {"full": {"support": 3, "movement": 3}, "reduced": {"support": 2, "movement": 3}},
    }
    if status:
        d["status"] = list(status)
    return d


def tank(pid: str, nation: str, at: Any) -> dict[str, Any]:
    return {
        "id": pid,
        "type": "tank",
        "nation": nation,
        "at": at,
        "attrs": {"category": "heavy"},
        "faces": {"full": {"support": 2, "movement": 3}, "reduced": {"support": 1, "movement": 3}},
    }


def army(
    aid: str, nation: str, hq_id: str, decoy_id: str | None = None, **kw: Any
) -> dict[str, Any]:
    d: dict[str, Any] = {"id": aid, "nation": nation, "hq": hq_id, **kw}
    if decoy_id:
        d["decoy"] = decoy_id
    return d


# ---------------------------------------------------------------------- scenarios
def scenario_text(
    *,
    terrain: list[str] | None = None,
    legend: dict[str, str] | None = None,
    pieces: list[dict[str, Any]] = (),
    rules: dict[str, Any] | None = None,  # type: ignore[assignment]
    nations: dict[str, str | None] | None = None,
    places: list[dict[str, Any]] = (),  # type: ignore[assignment]
    hexsides: list[dict[str, Any]] = (),
    networks: list[dict[str, Any]] = (),  # type: ignore[assignment]
    areas: list[dict[str, Any]] = (),
    area_maps: list[dict[str, Any]] = (),  # type: ignore[assignment]
    control: dict[str, Any] | None = None,
    schedule: list[dict[str, Any]] = (),  # type: ignore[assignment]
    turns: list[str] | None = None,
    victory: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
    ruleset: str = "lgg1418",
) -> str:
    terrain = terrain or ["pppppppp"] * 8
    legend = legend or {
        "p": "plains",
        "f": "forest",
        "m": "mountain",
        "h": "high_mountain",
        "d": "desert",
        "l": "lake",
        "w": "floodable",
        "s": "marsh",
    }
    nat = NATIONS if nations is None else nations
    doc: dict[str, Any] = {
        "scenario": {
            "id": "test",
            "title": "test",
            "ruleset": ruleset,
            "sides": [CP, EN],
            "options": options or {},
        },
        "nations": {},
        "maps": [
            {
                "name": "T",
                "cols": [1, len(terrain[0])],
                "rows": [1, len(terrain)],
                "legend": legend,
                "terrain": terrain,
            }
        ],
    }
    doc["nations"] = {}
    out = dumps(doc).replace("[nations]\n", "")
    # Neutral nations are simply not declared: a country area of an undeclared nation is
    # neutral territory (TOML has no null for a nation's side).
    out += "\n".join(f'[nations.{n}]\nside = "{s}"\n' for n, s in nat.items() if s) + "\n"
    rest: dict[str, Any] = {}
    for key, val in (
        ("hexsides", hexsides),
        ("places", places),
        ("networks", networks),
        ("areas", areas),
        ("area_maps", area_maps),
        ("pieces", pieces),
        ("schedule", schedule),
    ):
        if val:
            rest[key] = list(val)
    if turns:
        rest["turns"] = [{"label": t} for t in turns]
    if control:
        rest["control"] = control
    if victory:
        rest["victory"] = victory
    merged = {
        "first_turn": "1914-09",
        "last_turn": "1914-10",
        "default_sector": "French",
        **(rules or {}),
    }
    rest["rules"] = {k: v for k, v in merged.items() if v is not None}
    return out + dumps(rest)


def load(**kw: Any) -> Scenario:
    return load_scenario_text(scenario_text(**kw), "<lgg test>")


def game(seed: int = 1, options: dict[str, Any] | None = None, **kw: Any) -> Game:
    return Game.new(load(**kw), seed=seed, options=options or {})


# ---------------------------------------------------------------------- driving a game
def act(g: Game, side: str, **match: Any) -> dict[str, Any]:
    """Apply the first legal action of ``side`` whose keys match ``match``."""
    for a in g.legal_actions(side):
        if all(a.get(k) == v for k, v in match.items()):
            g.apply(a)
            return a
    raise AssertionError(
        f"no legal action {match} for {side} in {g.phase_path()}: "
        f"{[x for x in g.legal_actions(side)][:12]}"
    )


def play_until(g: Game, step: str, chooser: Any = None, limit: int = 500) -> None:
    """Play ending actions (end-*/pass) until the current step is ``step``."""
    for _ in range(limit):
        cur = g.current()
        if cur is None:
            raise AssertionError(f"game over before {step}")
        if cur[1].step == step:
            return
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        pick = None
        if chooser is not None:
            pick = chooser(g, side, legal)
        if pick is None:
            ends = [
                a
                for a in legal
                if a["type"].startswith("end") or a["type"] in ("pass", "commit", "first-mover")
            ]
            pick = ends[0] if ends else legal[0]
        g.apply(pick)
    raise AssertionError(f"never reached {step}: {g.phase_path()}")


def ring(label: str) -> list[str]:
    """Labels of the six hexes around ``label`` on the test maps (flat-topped columns, even
    shifted)."""
    from grognard.hexgrid import SheetGeometry, neighbor

    sheet = SheetGeometry("T", "columns", "even")
    h = sheet.to_axial(int(label[:2]), int(label[2:]))
    out = []
    for d in range(6):
        c, r = sheet.to_offset(neighbor(h, d))
        out.append(f"{c:02d}{r:02d}")
    return out


def hexidx(g: Game, label: str) -> int:
    return g.board.idx(label)


def place_at(g: Game, pid: str, label: str) -> None:
    """Test setup only: put a piece on a hex (through the state's move)."""
    M.move_piece(g, g.state.pieces[pid], Loc.hex(g.board.idx(label)))


def to_activation(
    g: Game, side: str, army: str | None = None, armies: list[str] | None = None
) -> None:
    """Play the turn's opening phases (ending each) until ``side`` activates ``army`` (or
    coordinates ``armies``) and its movement step is open."""

    def chooser(g: Game, s: str, legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        for a in legal:
            if a["type"] == "first-mover" and a["first"] == side:
                return a
            if s == side and army and a["type"] == "activate" and a["army"] == army:
                return a
            if s == side and armies and a["type"] == "coordinate" and a["armies"] == armies:
                return a
        if s != side:
            return next((a for a in legal if a["type"] == "end-turn"), None)
        return None

    play_until(g, "activation-movement", chooser)


def current_act(g: Game) -> dict[str, Any]:
    a = M.st(g)["activation"]
    assert a is not None
    return a  # type: ignore[no-any-return]


def to_turn(g: Game, turn_id: str, step: str, chooser: Any = None) -> None:
    """Play ending actions until turn ``turn_id`` reaches step ``step``."""
    for _ in range(50):
        play_until(g, step, chooser)
        if M.current_turn(g).id == turn_id:
            return
        side = g.acting_sides()[0]
        ends = [a for a in g.legal_actions(side) if a["type"].startswith("end")]
        g.apply(ends[0] if ends else g.legal_actions(side)[0])
    raise AssertionError(f"never reached {turn_id} {step}")


DECLINES = {
    "interception": "no-interception",
    "reaction": "decline",
    "retreat-declaration": "no-retreat",
}


def decline_interrupts(g: Game) -> None:
    """Let the other side pass the interruptions the rules of 13, 19 and 20 open (interception,
    reaction, strategic-retreat declarations) until play returns to a step they do not cover."""
    for _ in range(50):
        cur = g.current()
        if cur is None or cur[1].step not in DECLINES:
            return
        side = g.acting_sides()[0]
        g.apply(
            next(a for a in g.legal_actions(side) if a["type"] in (DECLINES[cur[1].step], "pass"))
        )
    raise AssertionError("interruptions never ended")


def force_dice(g: Game, sides: int, *values: int) -> None:
    """Test setup only: move the game's dice counter to the next draws giving ``values`` on dice of
    ``sides`` faces (the rule code then rolls them through the ordinary dice stream)."""
    from grognard.core.dice import draw

    c = g.state.dice_counter
    for _ in range(100_000):
        if all(draw(g.seed, c + k, sides) == v for k, v in enumerate(values)):
            g.state.dice_counter = c
            return
        c += 1
    raise AssertionError(f"no draw gives {values} on d{sides}")
