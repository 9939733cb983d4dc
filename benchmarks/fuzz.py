"""The long fuzzing run: 2,000 mutations of the shipped scenario files, 500 of saves, and
schemathesis against the server's OpenAPI description for 3 minutes (in process, nothing leaves
the machine). The test suite runs the short version (tests/fuzz/test_fuzz.py).

    python benchmarks/fuzz.py                 # the counts above, seed 1
    python benchmarks/fuzz.py --seed 2 --api-seconds 60 --json

Prints each part's cases, how many ended in a valid game (or a 2xx answer), how many were
refused cleanly, and every failure with the mutation that produced it; exits 1 if any failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from grognard.bench.fuzz import Report, fuzz_api, fuzz_saves, fuzz_scenarios
from grognard.server.app import create_app


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--scenarios", type=int, default=2000, help="scenario file mutations")
    p.add_argument("--saves", type=int, default=500, help="save file mutations")
    p.add_argument("--api-seconds", type=float, default=180.0, help="schemathesis run time")
    p.add_argument("--api-examples", type=int, default=25, help="requests per operation a round")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    reports: list[Report] = [
        fuzz_scenarios(a.scenarios, a.seed, progress=say),
        fuzz_saves(a.saves, a.seed, progress=say),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Path(tmp) / "fuzz.sqlite")
        game_id, tokens = app.state.service.create_game("gw-tutorial", a.seed)
        try:
            reports.append(
                fuzz_api(
                    app,
                    game_id,
                    tokens["Entente"],
                    examples=a.api_examples,
                    seed=a.seed,
                    deadline=time.perf_counter() + a.api_seconds,
                    progress=say,
                )
            )
        finally:
            app.state.service.store.close()
    data = [r.to_json() for r in reports]
    if a.json:
        print(json.dumps({"seed": a.seed, "parts": data}, indent=2))
    else:
        for r in data:
            print(
                f"{r['what']}: {r['cases']} cases, {r['valid']} valid, {r['refused']} refused"
                f" cleanly, {r['failures']} failures ({r['seconds']} s)"
            )
            for f in r["first_failures"]:
                print(f"  ! {f}")
    return 1 if any(r.failures for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
