"""Scenario builder for the greatwar tests: a small map, pieces and rules written as Python data,
loaded through the ordinary scenario loader (so every test also exercises validation)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from grognard.core.dice import draw
from grognard.core.game import Game
from grognard.scenario import load_scenario_text

EN = "Entente"
CP = "Central Powers"
LEGEND = {
    "c": "clear",
    "m": "mountain",
    "f": "forest",
    "w": "woods",
    "r": "rough",
    "s": "swamp",
    "g": "glacier",
    "x": "sea",
    "l": "lake",
    "k": "karst",
    "b": "bocage",
    "n": "canal-intensive",
    "W": "wooded-rough",
    "d": "sand",
    "t": "salt-desert",
    "o": "stony-desert",
}


def _v(x: Any) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int | float):
        return str(x)
    if isinstance(x, str):
        return json.dumps(x, ensure_ascii=False)
    if isinstance(x, list | tuple):
        return "[" + ", ".join(_v(y) for y in x) + "]"
    if isinstance(x, Mapping):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_v(v)}" for k, v in x.items()) + " }"
    raise TypeError(x)


def unit(
    pid: str,
    typ: str,
    nation: str,
    at: str | None,
    a: Any = 1,
    d: Any = 2,
    m: Any = 5,
    size: str = "regiment",
    faces: Mapping[str, Any] | None = None,
    face: str | None = None,
    status: Iterable[str] = (),
    **attrs: Any,
) -> dict[str, Any]:
    """A piece table: printed attack-defense-move ``a-d-m`` on face ``front`` unless ``faces`` is
    given."""
    out: dict[str, Any] = {"id": pid, "type": typ, "nation": nation}
    if "side" in attrs:
        out["side"] = attrs.pop("side")
    if at is not None:
        out["at"] = at
    out["faces"] = (
        dict(faces) if faces is not None else {"front": {"attack": a, "defense": d, "move": m}}
    )
    if face:
        out["face"] = face
    if status:
        out["status"] = list(status)
    at2 = {"size": size} if size else {}
    at2.update(attrs)
    out["attrs"] = at2
    return out


def division(
    pid: str,
    nation: str,
    at: str,
    a: int = 8,
    d: int = 11,
    m: int = 5,
    cadre: tuple[int, int, int] | None = (3, 5, 5),
    typ: str = "rifle",
    **attrs: Any,
) -> dict[str, Any]:
    faces: dict[str, Any] = {"full": {"attack": a, "defense": d, "move": m}}
    if cadre:
        faces["cadre"] = {"attack": cadre[0], "defense": cadre[1], "move": cadre[2]}
    return unit(pid, typ, nation, at, faces=faces, size="division", **attrs)


def army_hq(pid: str, nation: str, at: str, face: str = "active") -> dict[str, Any]:
    f = {"attack": 0, "defense": 0, "move": 5}
    return unit(
        pid, "army-hq", nation, at, faces={"active": f, "inactive": f}, face=face, size="army"
    )


def scenario_text(
    rows: list[str] | None = None,
    cols: int = 8,
    nrows: int = 6,
    pieces: Iterable[Mapping[str, Any]] = (),
    hexsides: Iterable[tuple[str, list[str]] | tuple[str, list[str], Mapping[str, Any]]] = (),
    places: Iterable[tuple[str, str, str] | tuple[str, str, str, Mapping[str, Any]]] = (),
    networks: Iterable[Mapping[str, Any]] = (),
    areas: Iterable[Mapping[str, Any]] = (),
    control: Mapping[str, list[str]] | str = "split",
    turns: Iterable[tuple[str, Mapping[str, Any]]] = (("Sep I 14", {}), ("Sep II 14", {})),
    rules: str = "",
    options: Mapping[str, Any] | None = None,
    victory: str = "",
    nations: Mapping[str, str | None] | None = None,
    schedule: Iterable[Mapping[str, Any]] = (),
    boxes: Iterable[tuple[str, str]] = (),
) -> str:
    rows = rows or ["c" * cols for _ in range(nrows)]
    nrows = len(rows)
    cols = len(rows[0].split()) if " " in rows[0] else len(rows[0])
    out = [
        "[scenario]",
        'id = "gw-test"',
        'title = "test"',
        'ruleset = "greatwar"',
        f"sides = {_v([EN, CP])}",
    ]
    if options:
        out.append(f"options = {_v(dict(options))}")
    nat = dict(nations) if nations is not None else {"France": EN, "Germany": CP, "Britain": EN}
    for n, side in nat.items():
        out.append(f"[nations.{json.dumps(n)}]")
        if side is not None:
            out.append(f"side = {_v(side)}")
        else:
            out.append(f"name = {_v(n)}")
    out += [
        "[[maps]]",
        'name = "T"',
        f"cols = [1, {cols}]",
        f"rows = [1, {nrows}]",
        f"legend = {_v(LEGEND)}",
        "terrain = [",
    ]
    out += [f"  {_v(r)}," for r in rows]
    out.append("]")
    for feat, sides, *extra in hexsides:
        out += ["[[hexsides]]", f"feature = {_v(feat)}", f"sides = {_v(sides)}"]
        if extra:
            out.append(f"attrs = {_v(dict(extra[0]))}")
    for pl in places:
        out += ["[[places]]", f"hex = {_v(pl[0])}", f"kind = {_v(pl[1])}", f"name = {_v(pl[2])}"]
        if len(pl) > 3:
            out.append(f"attrs = {_v(pl[3])}")  # type: ignore[misc]
    for net in networks:
        out += [
            "[[networks]]",
            f"name = {_v(net['name'])}",
            f"kind = {_v(net['kind'])}",
            f"paths = {_v(net['paths'])}",
        ]
        if net.get("attrs"):
            out.append(f"attrs = {_v(net['attrs'])}")
    for ar in areas:
        out += [
            "[[areas]]",
            f"name = {_v(ar['name'])}",
            f"kind = {_v(ar['kind'])}",
            f"hexes = {_v(ar['hexes'])}",
        ]
        if ar.get("attrs"):
            out.append(f"attrs = {_v(ar['attrs'])}")
    for p in pieces:
        out.append("[[pieces]]")
        for k, v in p.items():
            out.append(f"{k} = {_v(v)}")
    if control == "split":
        half = cols // 2
        control = {
            EN: [f"{c:02d}{r:02d}" for c in range(1, half + 1) for r in range(1, nrows + 1)],
            CP: [f"{c:02d}{r:02d}" for c in range(half + 1, cols + 1) for r in range(1, nrows + 1)],
        }
    out.append("[control.hexes]")
    for side, hexes in control.items():  # type: ignore[union-attr]
        out.append(f"{json.dumps(side)} = {_v(hexes)}")
    for label, attrs in turns:
        out += ["[[turns]]", f"label = {_v(label)}"]
        if attrs:
            out.append(f"attrs = {_v(dict(attrs))}")
    for name, kind in boxes:
        out += ["[[boxes]]", f"name = {_v(name)}", f"kind = {_v(kind)}"]
    for e in schedule:
        out.append("[[schedule]]")
        for k, v in e.items():
            out.append(f"{k} = {_v(v)}")
    if rules:
        out += ["[rules]", rules]
    if victory:
        out += ["[victory]", victory]
    return "\n".join(out) + "\n"


# Initial-phase actions of the later rules (supply depots, GSPs, construction projects): a test
# game skips an initial phase that offers nothing else.
LATER_INITIAL_ACTIONS = (
    "activate-depot",
    "flip-depot",
    "deactivate-depot",
    "generate-gsp",
    "begin-project",
    "abandon-port-upgrade",
)


def game(
    seed: int = 1,
    options: Mapping[str, Any] | None = None,
    table_overrides: Mapping[str, str] | None = None,
    skip_special: bool = True,
    **kw: Any,
) -> Game:
    """A game of a test scenario, at the Entente's movement phase of the first turn (unless its
    initial phase has Rule 3-8 activities to offer). Unless ``skip_special`` is false, the players
    decline to draw on special supply sources (OT 11C2b) at the start."""
    sc = load_scenario_text(
        scenario_text(**kw), "<test>", table_overrides=dict(table_overrides or {})
    )
    g = Game.new(sc, seed, options or {})
    if skip_special:
        skip_special_supply(g)
    skip_later_initial(g)
    return g


def skip_special_supply(g: Game) -> None:
    """Decline every special supply choice in progress (OT 11C2b)."""
    for _ in range(4):
        cur = g.current()
        if cur is None or cur[1].step != "special-supply":
            return
        g.apply({"type": "done", "side": cur[1].params["side"]})


def skip_later_initial(g: Game) -> None:
    """End the initial-phase activities step when it offers only actions of the later rules, and
    the optional reinforcement/replacement activities of Rules 14-16 (step ``reinforcement``)."""
    for _ in range(4):
        cur = g.current()
        if cur is None:
            return
        side = g.acting_sides()[0] if g.acting_sides() else cur[1].params.get("side")
        if cur[1].step == "reinforcement":
            if not any(a["type"] == "end-phase" for a in g.legal_actions(side)):
                return
            try:
                g.apply({"type": "end-phase", "side": side})
            except Exception:
                return
            continue
        if cur[1].step != "initial-actions":
            return
        acts = g.legal_actions(side)
        if all(a["type"] in LATER_INITIAL_ACTIONS or a["type"] == "end-phase" for a in acts):
            g.apply({"type": "end-phase", "side": side})
            continue
        return


def load(**kw: Any) -> Any:
    return load_scenario_text(scenario_text(**kw), "<test>")


def idx(g: Game, label: str) -> int:
    return g.board.idx(label)


def step_name(g: Game) -> str:
    cur = g.current()
    return cur[1].step if cur else ""


def frame(g: Game) -> Any:
    cur = g.current()
    assert cur is not None
    return cur[1]


def end(g: Game) -> None:
    """Apply the 'finish' action of the step in progress (end-phase / done / decline)."""
    side = g.acting_sides()[0]
    for a in g.legal_actions(side):
        if a["type"] in ("end-phase", "done", "decline"):
            g.apply(a)
            return
    raise AssertionError(f"no way to end {g.phase_path()}")


def run_to(g: Game, step: str, side: str | None = None, limit: int = 200) -> None:
    """End steps until ``step`` (for ``side``) is the one in progress."""
    for _ in range(limit):
        cur = g.current()
        if cur is None:
            raise AssertionError("game over before reaching the step")
        if cur[1].step == step and (
            side is None or cur[1].params.get("side", cur[1].params.get("attacker")) == side
        ):
            return
        end(g)
    raise AssertionError(f"did not reach {step}")


def move(g: Game, piece: str, *path: str, **extra: Any) -> list[dict[str, Any]]:
    side = g.state.pieces[piece].side
    return g.apply({"type": "move", "side": side, "piece": piece, "path": list(path), **extra})


def force_dice(g: Game, values: Iterable[int], sides: int = 6) -> None:
    """Choose the game's seed so that the next rolls of ``sides``-sided dice give ``values``."""
    vals = list(values)
    c = g.state.dice_counter
    for seed in range(1, 200_000):
        if all(draw(seed, c + k, sides) == v for k, v in enumerate(vals)):
            g.seed = seed
            return
    raise AssertionError("no seed found")


def hexes_row(row: int, cols: Iterable[int]) -> list[str]:
    return [f"{c:02d}{row:02d}" for c in cols]
