"""Helpers for the battle tests (rules 15-18, 37-39): a supplied map with two armies face to
face, direct access to a battle record, and a driver answering the battle's prompts.

Everything goes through the rule code: ``open_battle`` opens a record with
``battle.battle_params`` and runs the battle step's own set-up functions; ``drive`` answers the
prompts of a battle fought through the sequence of play with a policy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grognard.core.game import Game
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import battle_steps
from tests.lgg1418.helpers import CP, EN, army, artillery, corps, game, general, ghq, hq

CAPITALS = [
    {"hex": "0403", "kind": "city", "name": "Berlin", "attrs": {"nation": "DE", "capital": True}},
    {"hex": "0505", "kind": "city", "name": "Paris", "attrs": {"nation": "FR", "capital": True}},
]
HEXES = [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 9)]


def split_control(border: int = 8) -> dict[str, Any]:
    """Central Powers west/north of the diagonal (column + row <= border), the Entente beyond."""
    return {
        "hexes": {
            CP: [h for h in HEXES if int(h[:2]) + int(h[2:]) <= border],
            EN: [h for h in HEXES if int(h[:2]) + int(h[2:]) > border],
        }
    }


def base_pieces(
    fr_hq: str = "0605",
    de_hq: str = "0302",
    fr_obst: int = 2,
    de_obst: int = 2,
    fr_bonus: int = 0,
    de_bonus: int = 0,
) -> list[dict[str, Any]]:
    fg = general("fgen", "FR", "fh", obst=fr_obst)
    fg["faces"]["front"]["bonus"] = fr_bonus
    dg = general("dgen", "DE", "dh", obst=de_obst)
    dg["faces"]["front"]["bonus"] = de_bonus
    return [
        ghq("fr-ghq", "FR", "0707"),
        ghq("de-ghq", "DE", "0202"),
        hq("fh", "FR", fr_hq, "FR-1", rng=3),
        fg,
        hq("dh", "DE", de_hq, "DE-1", rng=3),
        dg,
    ]


def bgame(
    extra: list[dict[str, Any]],
    first: str = "1914-09",
    last: str | None = None,
    seed: int = 1,
    options: dict[str, Any] | None = None,
    rules: dict[str, Any] | None = None,
    base: list[dict[str, Any]] | None = None,
    places: list[dict[str, Any]] | None = None,
    control: dict[str, Any] | None = None,
    pr: int = 10,
    **kw: Any,
) -> Game:
    """A game with both capitals next to the battle hex 0404 (Berlin 0403, Paris 0505: units in 0404
    are supplied on both sides), a split map (the Central Powers where column + row <= 8), GHQs,
    one army each (FR-1's HQ at 0605, DE-1's at 0302)."""
    r: dict[str, Any] = {
        "first_turn": first,
        "last_turn": last or first,
        "armies": [army("FR-1", "FR", "fh"), army("DE-1", "DE", "dh")],
        "powers": {
            "FR": {"pr_stock": pr, "pr_flow": 0},
            "DE": {"pr_stock": pr, "pr_flow": 0},
            "GB": {"pr_stock": pr, "pr_flow": 0},
            "RU": {"pr_stock": pr, "pr_flow": 0},
        },
    }
    r.update(rules or {})
    pieces = (base if base is not None else base_pieces()) + list(extra)
    return game(
        seed=seed,
        pieces=pieces,
        rules=r,
        places=(places if places is not None else CAPITALS),
        control=control or split_control(),
        options=options or {},
        **kw,
    )


def fr(pid: str, at: Any, **kw: Any) -> dict[str, Any]:
    return corps(pid, "FR", at, army=kw.pop("army", "FR-1"), **kw)


def de(pid: str, at: Any, **kw: Any) -> dict[str, Any]:
    return corps(pid, "DE", at, army=kw.pop("army", "DE-1"), **kw)


def fr_art(pid: str, at: Any, **kw: Any) -> dict[str, Any]:
    return artillery(pid, "FR", at, army=kw.pop("army", "FR-1"), **kw)


def de_art(pid: str, at: Any, **kw: Any) -> dict[str, Any]:
    return artillery(pid, "DE", at, army=kw.pop("army", "DE-1"), **kw)


def set_from(g: Game, uid: str, label: str) -> None:
    """Test set-up: the hex a unit entered the battle hex from (what a move records)."""
    M.set_attr(g, g.state.pieces[uid], "mv_from", g.board.idx(label))


def open_battle(
    g: Game, hexlab: str, attacker: str, froms: dict[str, str] | None = None, **spec: Any
) -> battle.BattleRecord:
    """Open a battle record and run its set-up (participants, table, great battle) without
    prompts."""
    for uid, lab in (froms or {}).items():
        set_from(g, uid, lab)
    params = battle.battle_params(g, hex=hexlab, attacker=attacker, **spec)
    rec = battle.rec_of(g, params["battle"])
    battle_steps.setup_participants(g, rec)
    battle_steps.finish_setup(g, rec)
    if rec.round == 0 and rec.phase != "ending":
        rec.round = 1
    return rec


def engage(
    rec: battle.BattleRecord,
    sub: str = "A",
    att: str | None = None,
    dfn: str | None = None,
    att_art: str | None = None,
    def_art: str | None = None,
) -> dict[str, Any]:
    rec.engaged[sub] = {
        rec.attacker: {"corps": att, "art": att_art},
        rec.defender: {"corps": dfn, "art": def_art},
    }
    return rec.engaged[sub]


Policy = Callable[[Game, str, list[dict[str, Any]]], dict[str, Any] | None]


def first_of(types: tuple[str, ...]) -> Policy:
    def pol(g: Game, side: str, legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        for t in types:
            for a in legal:
                if a["type"] == t:
                    return a
        return None

    return pol


DEFAULT_ORDER = (
    "commit",
    "proceed",
    "continue",
    "pay-pr",
    "keep",
    "stand",
    "done",
    "decline",
    "no-overflow",
    "end-breakthrough",
    "end-reinforcement",
    "pass",
    "end-movement",
    "end-turn",
)


def drive(
    g: Game,
    policy: Policy | None = None,
    until: Callable[[Game], bool] | None = None,
    limit: int = 400,
) -> None:
    """Answer prompts (policy first, then the default order) until ``until`` holds or the military
    turn of the attacker ends."""
    default = first_of(DEFAULT_ORDER)
    for _ in range(limit):
        if until is not None and until(g):
            return
        cur = g.current()
        if cur is None:
            return
        sides = g.acting_sides()
        if not sides:
            return
        side = sides[0]
        legal = g.legal_actions(side)
        a = policy(g, side, legal) if policy else None
        if a is None:
            a = default(g, side, legal) or legal[0]
        g.apply(a)
    raise AssertionError(f"drive did not finish: {g.phase_path()}")


def in_step(name: str) -> Callable[[Game], bool]:
    def pred(g: Game) -> bool:
        cur = g.current()
        return cur is not None and cur[1].step == name

    return pred


def last_battle(g: Game) -> battle.BattleRecord:
    store = battle.battles(g)
    return battle.rec_of(g, max(store, key=lambda k: int(k[1:])))


class Dice:
    """Forced dice for a test: the next rolls take these natural values (in order), through the
    game's own ``roll`` (logging, modifiers, clamping unchanged). Install with ``force_dice``."""

    def __init__(self) -> None:
        self.queue: list[int] = []
        self.used: list[tuple[str, int]] = []

    def push(self, *values: int) -> None:
        self.queue.extend(values)


def force_dice(monkeypatch: Any) -> Dice:
    import grognard.core.game as core_game

    dice = Dice()
    real = core_game.roll_spec

    def fake(seed: Any, counter: int, spec: Any) -> tuple[int, list[int], int]:
        if dice.queue:
            v = dice.queue.pop(0)
            dice.used.append((str(spec), v))
            return v, [v], spec.count
        return real(seed, counter, spec)

    monkeypatch.setattr(core_game, "roll_spec", fake)
    return dice


def decide(
    g: Game, child: tuple[str, dict[str, Any]] | None, action_type: str, **extra: Any
) -> None:
    """Answer a decision a battle function returned (``(step name, params)``) through its step."""
    from grognard.core.state import Frame

    assert child is not None, "no decision was asked"
    name, params = child
    step = g.steps[name]
    f = Frame(name, dict(params))
    side = params["side"]
    legal = step.legal_actions(g, f, side)
    for a in legal:
        if a["type"] == action_type and all(a.get(k) == v for k, v in extra.items()):
            step.check(g, f, a)
            step.apply(g, f, a)
            return
    raise AssertionError(f"no {action_type} {extra} among {legal}")
