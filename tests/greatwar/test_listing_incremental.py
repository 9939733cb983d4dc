"""Incremental listings (values kept across actions: ``listing.memo``, ``listing.tracked``,
``Cache.tracked``) equal from-scratch ones, in the same order, along random games: each
listing of the played game (whose memos and cache are kept from action to action) is compared
with the listing of a clone of the position whose every memo and cache entry is forgotten."""

from __future__ import annotations

import random

import pytest

from grognard.core.cache import Cache
from grognard.core.game import Game
from grognard.rulesets.greatwar import listing
from grognard.scenario import find
from grognard.selfplay import random_choice

STATE_MEMOS = ("_gw_loc_index",)


def scratch_listing(g: Game, side: str) -> list[dict]:
    """The listing of ``g``'s position computed from scratch (on a clone; ``g`` keeps its memos)."""
    c = g.clone()
    for k in STATE_MEMOS:
        c.state.__dict__.pop(k, None)
    c.cache = Cache()  # listing memos included
    return c.legal_actions(side)


def run(scenario: str, seed: int, agent_seed: int, steps: int) -> int:
    g = Game.new(find(scenario), seed)
    rng = random.Random(agent_seed)
    compared = 0
    for _ in range(steps):
        if g.is_over():
            break
        side = rng.choice(g.acting_sides())
        listed = g.legal_actions(side)
        fresh = scratch_listing(g, side)
        if listed != fresh:
            only_inc = [a for a in listed if a not in fresh][:3]
            only_fresh = [a for a in fresh if a not in listed][:3]
            raise AssertionError(
                f"action {len(g.actions)} in {g.phase_path()[-1]}: the incremental listing"
                f" differs from a from-scratch one (same order expected): only incremental"
                f" {only_inc}, only from scratch {only_fresh}"
            )
        compared += 1
        g.apply(random_choice(g, side, listed, rng))
    return compared


@pytest.mark.rules("OT 6", "OT 7A", "OT 6A")
def test_ot_6_incremental_listings_equal_scratch_ones_tutorial() -> None:
    assert run("gw-tutorial", 4, 9, 160) > 120


@pytest.mark.slow
@pytest.mark.rules("OT 6", "OT 7A", "OT 6A")
def test_ot_6_incremental_listings_equal_scratch_ones_marne() -> None:
    assert run("marne-1914", 1, 1, 70) > 60


def checked_play(
    monkeypatch: pytest.MonkeyPatch, scenario: str, seed: int, steps: int
) -> dict[str, int]:
    """Random play in which every value kept across actions by ``listing.tracked`` and
    ``listing.kept`` (steps of a move, move stacking checks, engineering jobs, whether a unit may
    move, allowances, the overruns out of a hex, pick-ups) is compared, each time it is read,
    with one computed afresh."""
    tracked, kept = listing.tracked, listing.kept
    checked: dict[str, int] = {}

    def name_of(key: object) -> str:
        return str(key[0]) if isinstance(key, tuple) and key else str(key)

    def check(what: str, got: object, fresh: object) -> None:
        assert got == fresh, f"{what}: the kept value {got!r} differs from a fresh one {fresh!r}"
        checked[what] = checked.get(what, 0) + 1

    def tracked_checked(g: Game, key: object, deps: tuple, compute):  # type: ignore[no-untyped-def]
        got = tracked(g, key, deps, compute)
        check(name_of(key), got, compute())
        return got

    def kept_checked(g: Game, name: str, key: object, compute):  # type: ignore[no-untyped-def]
        got = kept(g, name, key, compute)
        check(name, got, compute())
        return got

    monkeypatch.setattr(listing, "tracked", tracked_checked)
    monkeypatch.setattr(listing, "kept", kept_checked)
    g = Game.new(find(scenario), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if g.is_over():
            break
        side = rng.choice(g.acting_sides())
        g.apply(random_choice(g, side, g.legal_actions(side), rng))
    return checked


@pytest.mark.rules("OT 6", "OT 8B", "OT 13A")
def test_ot_6_kept_listing_values_equal_fresh_ones_tutorial(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked = checked_play(monkeypatch, "gw-tutorial", 3, 200)
    assert checked.get("gw:step", 0) > 50 and checked.get("gw:can-move", 0) > 50


@pytest.mark.slow
@pytest.mark.rules("OT 6", "OT 8B", "OT 13A")
def test_ot_6_kept_listing_values_equal_fresh_ones_marne(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked = checked_play(monkeypatch, "marne-1914", 2, 300)
    kinds = (
        "gw:step",
        "gw:move-stack",
        "gw:can-move",
        "gw:ma",
        "gw:group-moves",
        "gw:overruns",
        "gw:eng-jobs",
        "gw:pick-up",
    )
    for what in kinds:
        assert checked.get(what, 0) > 100, (what, checked)
