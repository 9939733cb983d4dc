"""The log a side is pushed grows with the game: each position converts only the new events, and
what it holds is always the side's whole visible log, renumbered, as if built afresh."""

from __future__ import annotations

import json
import random
from pathlib import Path

from grognard.bench.engine_probe import choose
from grognard.server.db import Store
from grognard.server.service import GameService, jsonable


def _fresh_log(svc: GameService, gid: str, side: str) -> list[dict[str, object]]:
    with svc.locked(gid) as e:
        return list(jsonable(e.game.visible_log(side)))


def test_the_pushed_log_is_the_whole_visible_log_after_every_action_and_undo(
    tmp_path: Path,
) -> None:
    svc = GameService(Store(str(tmp_path / "g.sqlite")))
    gid, tokens = svc.create_game("gw-tutorial", seed=3)
    sides = list(tokens)
    rng = random.Random(5)
    undone = 0
    for k in range(40):
        for side in sides:
            st = svc.state_for(gid, side, 0, False)
            assert st["log"] == _fresh_log(svc, gid, side), (k, side)
            assert [ev["n"] for ev in st["log"]] == list(range(len(st["log"])))
        with svc.locked(gid) as e:
            side = rng.choice(e.game.acting_sides())
            action = choose(e.game.legal_actions(side), rng)
        svc.act(gid, side, action)
        if k % 7 == 6:
            try:
                svc.undo(gid, side)
                undone += 1
            except Exception:
                pass  # an undo refused (information barrier): play on
    assert undone > 0


def test_a_movement_push_offers_the_steps_families_lazily_covering_every_legal_action(
    tmp_path: Path,
) -> None:
    """In greatwar's movement steps the push's families are the step's own (actors who may act,
    their options asked for one by one), not a grouping of the whole list: every legal action
    belongs to a pushed family and actor, each actor's options are legal, and no family is
    pushed without an actor."""
    svc = GameService(Store(str(tmp_path / "g.sqlite")))
    gid, _ = svc.create_game("gw-tutorial", seed=2)
    rng = random.Random(2)
    movement_positions = 0
    for _ in range(60):
        with svc.locked(gid) as e:
            g = e.game
            side = rng.choice(g.acting_sides())
            step = g.current()[0]  # type: ignore[index]
            legal = g.legal_actions(side)
        st = svc.state_for(gid, side, 0, False)
        if step.name.endswith("movement") and st["my_turn"]:
            movement_positions += 1
            fams = {f["type"]: f["actors"] for f in st["families"]}
            assert all(fams.values())
            offered: list[dict[str, object]] = []
            for t, actors in fams.items():
                for actor in actors:
                    got = svc.options(gid, side, t, actor)["options"]
                    offered.extend(o["action"] for o in got)
            key = sorted(json.dumps(a, sort_keys=True) for a in legal)
            assert sorted(json.dumps(a, sort_keys=True) for a in offered) == key
        svc.act(gid, side, choose(legal, rng))
    assert movement_positions > 3
