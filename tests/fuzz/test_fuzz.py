"""Bounded, seeded fuzzing (the long version is ``benchmarks/fuzz.py``): 200 mutations of the
shipped scenario files and 100 of saves, each ending in a valid game or a clean error naming the
file and key; schemathesis against the server's OpenAPI description, in process, with no answer
of 5xx and every refusal in the documented shape."""

from __future__ import annotations

from pathlib import Path

# schemathesis imports its OpenAPI loader lazily, inside the first call; under pytest that
# import is compiled by the assertion rewriter, and CPython 3.11's AST builder can then fail
# with "AST constructor recursion depth mismatch" (python/cpython#106905) after other tests
# ran in the same process. Importing it here, at collection, keeps the compile out of the test.
import schemathesis.specs.openapi.schemas  # noqa: F401

from grognard.bench.fuzz import fuzz_api, fuzz_saves, fuzz_scenarios
from grognard.server.app import create_app


def test_200_scenario_mutations_end_in_a_game_or_a_clean_error() -> None:
    rep = fuzz_scenarios(200, seed=1)
    assert rep.cases == 200 and not rep.failures, rep.failures[:5]
    assert rep.refused > 100 and rep.valid > 0


def test_100_save_mutations_end_in_a_game_or_one_clear_line() -> None:
    rep = fuzz_saves(100, seed=1)
    assert rep.cases == 100 and not rep.failures, rep.failures[:5]
    assert rep.refused > 50


def test_schemathesis_finds_no_5xx_and_no_undocumented_error_body(tmp_path: Path) -> None:
    app = create_app(tmp_path / "fuzz.sqlite")
    game_id, tokens = app.state.service.create_game("gw-tutorial", 1)
    try:
        rep = fuzz_api(app, game_id, tokens["Entente"], examples=12, seed=1)
    finally:
        app.state.service.store.close()
    assert not rep.failures, rep.failures[:5]
    assert 150 <= rep.cases <= 400 and rep.valid > 0 and rep.refused > 0
