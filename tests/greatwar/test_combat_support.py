"""Helpers for the combat tests (Rules 9-10), and tests of the combat data files (CRTs, Ground
Success
Table columns, TEC combat columns, Fortification Effects Chart) and their user overrides."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from grognard.core.game import Game
from grognard.rulesets.greatwar.combat import combat_hooks
from grognard.rulesets.greatwar.combat.combat_data import ladder
from grognard.scenario import load_scenario_text
from grognard.scenario.loader import ScenarioError

from .helpers import CP, EN, run_to, scenario_text

__all__ = [
    "CP",
    "EN",
    "all_supplied",
    "answer",
    "attack",
    "crt_table",
    "drive",
    "pending",
    "rec_of",
]


@pytest.fixture
def all_supplied(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every unit in combat supply (OT 11D): strengths are then the printed ones times the other
    modifiers under test."""
    monkeypatch.setattr(
        combat_hooks,
        "combat_supplied",
        lambda g, side, pieces, sit, commit=False: {p.id for p in pieces},
    )


def crt_table(code: str, positional: bool = False, top: str | None = None) -> str:
    """A user CRT whose every cell is ``code`` (to test one result through the whole procedure)."""
    cols = [
        "1:4",
        "1:3",
        "1:2",
        "1:1",
        "3:2",
        "2:1",
        "3:1",
        "4:1",
        "5:1",
        "6:1",
        "7:1",
        "8:1",
        "9:1",
    ]
    tid = "positional-crt" if positional else "mobile-crt"
    rows = "\n".join(
        f"{r} = [{', '.join(repr(code).replace(chr(39), chr(34)) for _ in cols)}]"
        for r in range(1, 7)
    )
    return (
        f'id = "{tid}"\ntitle = "test"\ndie = "d6"\ncolumns ='
        f" [{', '.join(chr(34) + c + chr(34) for c in cols)}]\n"
        f"[rows]\n{rows}\n[extra]\ntop ="
        f' "{top or ("9:1" if positional else "6:1")}"\ninfantry_top = "9:1"\n'
        f'automatic = "{"AD" if positional else "AE"}"\n'
    )


def game_with(
    seed: int = 1,
    options: dict[str, Any] | None = None,
    tables: dict[str, str] | None = None,
    **kw: Any,
) -> Game:
    sc = load_scenario_text(scenario_text(**kw), "<test>", table_overrides=dict(tables or {}))
    return Game.new(sc, seed, options or {})


def attack(
    g: Game,
    target: str,
    attackers: Sequence[str],
    side: str = EN,
    crt: str | None = None,
    reaction: bool = False,
) -> None:
    """Go to ``side``'s combat segment and declare the attack."""
    step = "combat-segment"
    for _ in range(300):
        cur = g.current()
        assert cur is not None
        if (
            cur[1].step == step
            and cur[1].params.get("attacker") == side
            and bool(cur[1].params.get("reaction")) == reaction
        ):
            break
        a = next(
            a
            for a in g.legal_actions(g.acting_sides()[0])
            if a["type"] in ("end-phase", "done", "decline")
        )
        g.apply(a)
    act: dict[str, Any] = {
        "type": "attack",
        "side": side,
        "target": target,
        "attackers": list(attackers),
    }
    if crt:
        act["crt"] = crt
    g.apply(act)


def pending(g: Game) -> str:
    cur = g.current()
    return cur[1].step if cur else ""


def rec_of(g: Game) -> dict[str, Any]:
    for f in reversed(g.state.frames):
        if f.step == "combat":
            return f.params
    raise AssertionError("no combat in progress")


def answer(g: Game, **fields: Any) -> None:
    """Apply the legal action of the acting side that matches ``fields``."""
    side = g.acting_sides()[0]
    for a in g.legal_actions(side):
        if all(a.get(k) == v for k, v in fields.items()):
            g.apply(a)
            return
    raise AssertionError(f"no legal action like {fields} in {g.legal_actions(side)}")


def drive(g: Game, until: str = "combat-segment", choices: Iterable[dict[str, Any]] = ()) -> None:
    """Answer pending combat steps: first with ``choices`` (matching fields), then by ending each
    step ('done', 'decline', the first choice), until the step ``until`` is current."""
    queue = list(choices)
    for _ in range(200):
        if pending(g) == until or g.is_over():
            return
        side = g.acting_sides()[0]
        legal = g.legal_actions(side)
        hit = None
        for want in list(queue):
            hit = next((a for a in legal if all(a.get(k) == v for k, v in want.items())), None)
            if hit is not None:
                queue.remove(want)
                break
        if hit is None:
            hit = next(
                (a for a in legal if a["type"] in ("done", "decline", "end-phase")), legal[0]
            )
        g.apply(hit)
    raise AssertionError(f"stuck at {g.phase_path()}")


# ============================================================================ data tests
@pytest.mark.rules("OT 9A", "OT 9B")
def test_ot_9a_9b_crt_ladders_from_the_tables() -> None:
    g = game_with()
    mob, pos = ladder(g, "mobile"), ladder(g, "positional")
    assert (
        mob.table.columns[0] == "1:4"
        and mob.level_label(mob.top) == "6:1"
        and mob.level_label(mob.infantry_top) == "9:1"
    )
    assert mob.automatic == "AE" and pos.automatic == "AD"
    assert mob.table.provisional and "OT 9C1" in mob.table.derived_from


@pytest.mark.rules("OT 9A", "OT 9H")
def test_ot_9a_user_tables_are_checked() -> None:
    with pytest.raises(ScenarioError, match="unknown result"):
        game_with(tables={"mobile-crt": crt_table("XX")})
    bad_fec = 'id = "fec"\ntitle = "x"\n[fortification.fieldworks]\ndrm = -1\n'
    with pytest.raises(ScenarioError, match=r"missing fortification\.entrenchment"):
        game_with(tables={"fec": bad_fec})
    g = game_with(tables={"mobile-crt": crt_table("DR")})
    assert ladder(g, "mobile").table.rows[3][5] == "DR"


def test_combat_helpers_build_a_game() -> None:
    g = game_with(pieces=[])
    run_to(g, "combat-segment", EN)
    assert g.legal_actions(EN) == [{"type": "end-phase", "side": EN}]
