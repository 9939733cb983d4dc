"""The ``grognard`` command line."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grognard import __version__

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_ILLEGAL = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command killed by it


def _load_plugins() -> None:
    """Import modules named in GROGNARD_PLUGINS (comma separated) so they can register rule
    systems."""
    for mod in filter(None, (m.strip() for m in os.environ.get("GROGNARD_PLUGINS", "").split(","))):
        importlib.import_module(mod)


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


def _print_json(obj: Any) -> None:
    from grognard.core.serial import dumps

    print(dumps(obj, indent=2))


def _parse_kv(items: Sequence[str] | None, what: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--{what} needs KEY=VALUE, got {item!r}")
        low = value.lower()
        out[key] = True if low == "true" else False if low == "false" else value
    return out


def _table_overrides(items: Sequence[str] | None) -> dict[str, str]:
    out = {}
    for tid, path in _parse_kv(items, "table").items():
        try:
            out[tid] = Path(str(path)).read_text(encoding="utf-8")
        except OSError as e:
            raise SystemExit(f"--table {tid}: cannot read {path}: {e.strerror}") from None
    return out


def _write_atomic(path: Path, text: str) -> None:
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent or Path(".")))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _load_save(path: str, allow_data_change: bool = False, verify: bool = False) -> Any:
    from grognard.core.savefile import load_save

    return load_save(path, allow_data_change=allow_data_change, verify=verify)


def _save_text(game: Any) -> str:
    from grognard.core.serial import dumps

    return dumps(game.save(), indent=1) + "\n"


# ============================================================================ verbs
def cmd_scenarios(a: argparse.Namespace) -> int:
    from grognard.scenario import list_scenarios

    rows = [
        {
            "id": s.id,
            "title": s.title,
            "ruleset": s.ruleset,
            "path": str(s.path),
            "tutorial": s.tutorial,
        }
        for s in list_scenarios()
    ]
    if a.json:
        _print_json({"scenarios": rows})
    else:
        for r in rows:
            print(
                f"{r['id']:<24} {r['ruleset']:<10}"
                f" {r['title']}{'  (tutorial)' if r['tutorial'] else ''}"
            )
        if not rows:
            print("no scenarios found")
    return EXIT_OK


def cmd_validate(a: argparse.Namespace) -> int:
    from grognard.core.errors import GrognardError
    from grognard.scenario import load_scenario

    try:
        sc = load_scenario(a.file, _table_overrides(a.table))
    except GrognardError as e:
        if a.json:
            probs = getattr(e, "problems", [("", str(e))])
            _print_json(
                {
                    "ok": False,
                    "file": a.file,
                    "problems": [{"path": p, "message": m} for p, m in probs],
                }
            )
        else:
            _err(str(e))
        return EXIT_INVALID
    summary = {
        "ok": True,
        "file": a.file,
        "id": sc.id,
        "ruleset": sc.ruleset.name,
        "hexes": sc.board.n,
        "pieces": len(sc.data.pieces),
        "turns": len(sc.data.turns),
    }
    if a.json:
        _print_json(summary)
    else:
        print(
            f"{a.file}: ok ({sc.id}, {sc.ruleset.name}, {sc.board.n} hexes, {len(sc.data.pieces)}"
            " pieces)"
        )
    return EXIT_OK


def cmd_new(a: argparse.Namespace) -> int:
    from grognard import scenario
    from grognard.core.game import Game

    sc = scenario.find(a.scenario, _table_overrides(a.table))
    g = Game.new(sc, a.seed, _parse_kv(a.option, "option"))
    _write_atomic(Path(a.output), _save_text(g))
    print(
        f"new game of {sc.id} (seed {a.seed}) saved to {a.output}; {', '.join(g.acting_sides())}"
        " to act"
    )
    return EXIT_OK


def cmd_show(a: argparse.Namespace) -> int:
    g = _load_save(a.save, a.allow_data_change, a.verify)
    side = a.side
    if side is not None and side not in g.state.sides:
        _err(f"unknown side {side!r} (sides: {', '.join(g.state.sides)})")
        return EXIT_INVALID
    if a.json:
        _print_json(g.view(side))
        return EXIT_OK
    from grognard.play import game_over_text, mixed_numbers, rule_once

    width = shutil.get_terminal_size((100, 24)).columns if sys.stdout.isatty() else None
    print(g.ruleset.render_text(g, side, width=width))
    print(
        f"turn {g.turn_label()}: {' > '.join(g.phase_path())}; to act:"
        f" {', '.join(g.acting_sides()) or '-'}"
    )
    for ev in g.visible_log(side)[-a.last :]:
        print(f"  {mixed_numbers(rule_once(str(ev['text']), ev.get('rule')))}")
    if g.state.result:
        print(game_over_text(g))
    return EXIT_OK


def _numbered(g: Any) -> list[tuple[int, str, dict[str, Any]]]:
    """Every legal action of the sides to act, numbered from 1 in the order ``actions`` lists
    them (each acting side in turn): the numbers ``do SAVE N`` takes."""
    out: list[tuple[int, str, dict[str, Any]]] = []
    for s in g.acting_sides():
        for act in g.legal_actions(s):
            out.append((len(out) + 1, s, act))
    return out


def cmd_actions(a: argparse.Namespace) -> int:
    g = _load_save(a.save, a.allow_data_change, a.verify)
    if a.side is not None and a.side not in g.state.sides:
        _err(f"unknown side {a.side!r} (sides: {', '.join(g.state.sides)})")
        return EXIT_INVALID
    if a.json:
        sides = [a.side] if a.side else g.acting_sides()
        _print_json({"acting": g.acting_sides(), "actions": {s: g.legal_actions(s) for s in sides}})
        return EXIT_OK
    listed = [row for row in _numbered(g) if a.side is None or row[1] == a.side]
    if not listed:
        who = a.side or ", ".join(g.acting_sides())
        print(f"no legal action for {who}" if who else "the game is over: no side acts")
        return EXIT_OK
    width = len(str(listed[-1][0]))
    side = None
    for n, s, act in listed:
        if s != side:
            side = s
            print(f"{s}:")
        print(f"  {n:>{width}}. {g.ruleset.describe_action(g, act)}")
    print("(do SAVE N applies action N; --json lists the actions as data)")
    return EXIT_OK


def cmd_do(a: argparse.Namespace) -> int:
    from grognard.core.errors import IllegalAction

    g = _load_save(a.save, a.allow_data_change, a.verify)
    if a.action.strip().isdigit():
        listed = _numbered(g)
        k = int(a.action)
        if not 1 <= k <= len(listed):
            _err(
                f"illegal: no action {k}: 'grognard actions' lists"
                f" {f'1 to {len(listed)}' if listed else 'none'} now [core:action]"
            )
            return EXIT_ILLEGAL
        action: Any = dict(listed[k - 1][2])
    else:
        try:
            action = json.loads(a.action)
        except json.JSONDecodeError as e:
            _err(f"illegal: the action is neither a number nor JSON ({e}) [core:action]")
            return EXIT_ILLEGAL
        except RecursionError:
            _err("illegal: the action is nested too deeply [core:action]")
            return EXIT_ILLEGAL
    if isinstance(action, dict) and "side" not in action and len(g.acting_sides()) == 1:
        action["side"] = g.acting_sides()[0]
    try:
        events = g.apply(action)
    except IllegalAction as e:
        _err(f"illegal: {e.message} [{e.rule}]")
        return EXIT_ILLEGAL
    _write_atomic(Path(a.save), _save_text(g))
    if a.json:
        _print_json({"events": events, "acting": g.acting_sides()})
    else:
        from grognard.play import mixed_numbers, rule_once

        for ev in events:
            if ev.get("visible_to") is None or action["side"] in ev.get("visible_to", []):
                print(mixed_numbers(rule_once(str(ev["text"]), ev.get("rule"))))
    return EXIT_OK


def cmd_undo(a: argparse.Namespace) -> int:
    from grognard.core.errors import UndoError

    g = _load_save(a.save, a.allow_data_change, a.verify)
    try:
        act = g.undo(a.side)
    except UndoError as e:
        _err(f"cannot undo: {e}")
        return EXIT_ILLEGAL
    _write_atomic(Path(a.save), _save_text(g))
    print(f"undone: {json.dumps(act, sort_keys=True)}")
    return EXIT_OK


def cmd_record(a: argparse.Namespace) -> int:
    from grognard.core.serial import dumps

    g = _load_save(a.save, a.allow_data_change, a.verify)
    _write_atomic(Path(a.output), dumps(g.record(), indent=1) + "\n")
    print(f"record of {len(g.actions)} actions written to {a.output}")
    return EXIT_OK


def cmd_replay(a: argparse.Namespace) -> int:
    from grognard.core.errors import GrognardError, ReplayMismatch
    from grognard.core.savefile import load_game, read_save

    try:
        data = read_save(a.record)
        g = load_game(data, check=True, allow_data_change=a.allow_data_change, verify=True)
    except ReplayMismatch as e:
        if a.json:
            _print_json(
                {
                    "ok": False,
                    "mismatch": {"action": e.action_index, "turn": e.turn},
                    "error": str(e),
                }
            )
        else:
            _err(str(e))
        return EXIT_INVALID
    except GrognardError as e:
        _err(f"{a.record}: {e}")
        return EXIT_INVALID
    res = {
        "ok": True,
        "actions": len(g.actions),
        "checkpoints": len(data.get("checkpoints", [])),
        "state_hash": g.state_hash(),
    }
    if a.json:
        _print_json(res)
    else:
        print(f"replay ok: {res['actions']} actions, {res['checkpoints']} turn checkpoints matched")
    return EXIT_OK


def cmd_selfplay(a: argparse.Namespace) -> int:
    from grognard import scenario
    from grognard.selfplay import selfplay

    sc = scenario.find(a.scenario)

    def progress(k: int, part: Any) -> None:
        print(
            f"game {k}/{a.games}: {part.actions} actions, {_game_outcome(part.results[-1])},"
            f" {part.invariant_violations}"
            f" violations, {part.replay_mismatches} replay mismatches, {part.view_leaks} view"
            f" leaks, {part.refused_legal_actions} refused actions, {part.seconds:.1f} s",
            file=sys.stderr,
            flush=True,
        )

    jobs = a.jobs if a.jobs > 0 else (os.cpu_count() or 1)
    if not 1 <= a.start <= max(a.games, 1):
        _err(f"--start {a.start}: must be between 1 and --games ({a.games})")
        return EXIT_INVALID
    rep = selfplay(
        sc,
        a.games,
        a.seed,
        max_steps=a.max_steps,
        check_views=not a.no_view_check,
        jobs=jobs,
        progress=progress if a.progress else None,
        start=a.start,
    )
    data = rep.to_json()
    if a.json:
        _print_json(data)
    else:
        for k, v in data.items():
            if k not in ("problems", "results", "wins"):
                print(f"{k:>22}: {v}")
        print(f"{'wins':>22}: " + (", ".join(f"{s} {n}" for s, n in data["wins"].items()) or "-"))
        for r in data["results"]:
            print(f"{'game ' + str(r['game']):>22}: {_game_outcome(r)} ({r['actions']} actions)")
        for p in data["problems"][:20]:
            print(f"  ! {p}")
    bad = (
        rep.invariant_violations
        or rep.replay_mismatches
        or rep.view_leaks
        or rep.refused_legal_actions
    )
    return EXIT_INVALID if bad else EXIT_OK


def _game_outcome(r: dict[str, Any]) -> str:
    """``Entente won (objectives held, OT 2)``, ``a draw`` or ``stopped``: one game's end."""
    if not r.get("finished"):
        return "stopped before the end"
    why = r.get("reason") or ""
    rule = r.get("rule")
    extra = f" ({why}{', ' + rule if rule and why else rule or ''})" if why or rule else ""
    return (f"{r['winner']} won" if r.get("winner") else "a draw") + extra


def _find_tests_dir(explicit: str | None) -> list[Path]:
    if explicit:
        return [Path(explicit)]
    cands = [Path.cwd() / "tests", Path(__file__).resolve().parents[2] / "tests"]
    return [c for c in cands if c.is_dir()][:1]


def cmd_rules(a: argparse.Namespace) -> int:
    from grognard import rulesets
    from grognard.core import rules

    try:
        rs = rulesets.get(a.ruleset)
    except KeyError as e:
        _err(str(e.args[0]))
        return EXIT_INVALID
    rs.load_rule_modules()
    entries = rs.rule_list()
    tests_dirs = _find_tests_dir(a.tests)
    tested = rules.scan_tests(tests_dirs) if tests_dirs else None
    rows = rules.coverage(entries, rules.implemented(), tested)
    if a.json:
        _print_json({"ruleset": rs.name, "rules": rows})
    else:
        counts: dict[str, int] = {}
        for r in rows:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
            if not a.summary:
                print(f"{r['id']:<16} {r['status']:<14} {r['title'][:50]:<50} {r['where'][:80]}")
        print(
            f"{rs.name}: {len(rows)} rule ids: "
            + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        )
        if tested is None:
            print(
                "(no tests folder found: 'tested' cannot be told apart from 'implemented'; use"
                " --tests DIR)"
            )
    return EXIT_OK


def cmd_play(a: argparse.Namespace) -> int:
    from grognard import scenario
    from grognard.core.game import Game
    from grognard.play import play

    if a.load:
        g = _load_save(a.load)
    else:
        sc = scenario.find(a.scenario, _table_overrides(a.table))
        g = Game.new(sc, a.seed, _parse_kv(a.option, "option"))
    save_path = Path(a.save) if a.save else (Path(a.load) if a.load else None)
    if a.ai:
        from grognard.ai.terminal import parse_ai_specs, play_against

        try:
            agents = parse_ai_specs(a.ai, list(g.state.sides), a.ai_level, a.seed)
        except ValueError as e:
            _err(str(e))
            return EXIT_INVALID
        play_against(g, agents, save_path=save_path)
        return EXIT_OK
    play(g, save_path=save_path)
    return EXIT_OK


def _ruleset_of(a: argparse.Namespace) -> Any:
    """The rule system named by --ruleset, or the one of the game in --save."""
    from grognard import rulesets

    if a.save:
        g = _load_save(a.save)
        return g.ruleset, g.scenario.table_overrides
    if not a.ruleset:
        raise SystemExit(f"{a.verb}: give --ruleset NAME or --save SAVE")
    try:
        return rulesets.get(a.ruleset), None
    except KeyError as e:
        raise SystemExit(str(e.args[0])) from None


def cmd_chart(a: argparse.Namespace) -> int:
    from grognard import glossary

    rs, overrides = _ruleset_of(a)
    print(glossary.chart_command(rs, " ".join(a.name or []), overrides))
    return EXIT_OK


def cmd_explain(a: argparse.Namespace) -> int:
    from grognard import glossary

    rs, _ = _ruleset_of(a)
    print(glossary.explain_command(rs, a.code or ""))
    return EXIT_OK


def cmd_study(a: argparse.Namespace) -> int:
    from grognard.ai.report import run_study_command

    return run_study_command(a)


def cmd_bench(a: argparse.Namespace) -> int:
    argv = []
    if a.quick:
        argv.append("--quick")
    if a.json:
        argv.append("--json")
    if a.engine:
        from grognard.bench import engine_bench

        if a.baseline:
            argv += ["--baseline", a.baseline]
        for s in a.scenario or ():
            argv += ["--scenario", s]
        return int(engine_bench.main(argv) or 0)
    from grognard.bench import search_bench

    return int(search_bench.main(argv) or 0)


def cmd_schema(a: argparse.Namespace) -> int:
    from grognard.scenario.schema import json_schema

    text = json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
    if a.output:
        Path(a.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="grognard", description="Play hex-and-counter wargames with the rules enforced."
    )
    p.add_argument("--version", action="version", version=f"grognard {__version__}")
    sub = p.add_subparsers(dest="verb", metavar="VERB")
    sub.required = True

    def verb(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help)

    def opts(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--option", action="append", metavar="KEY=VALUE", help="set a rule option (repeatable)"
        )
        sp.add_argument(
            "--table",
            action="append",
            metavar="ID=FILE",
            help="replace a results table with your own file",
        )

    def allow(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--allow-data-change",
            action="store_true",
            help="load even if the rule data changed since the save",
        )
        sp.add_argument(
            "--verify",
            action="store_true",
            help="replay the whole log from the start and check every recorded state hash"
            " (a save otherwise loads from its snapshot)",
        )

    s = verb("scenarios", "list the shipped scenarios")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_scenarios)

    s = verb("validate", "check a scenario file; errors name the file and key path")
    s.add_argument("file")
    s.add_argument("--table", action="append", metavar="ID=FILE")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_validate)

    s = verb("new", "start a game and write its save file")
    s.add_argument("scenario", help="scenario id or path")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("-o", "--output", required=True, help="save file to write")
    opts(s)
    s.set_defaults(fn=cmd_new)

    s = verb("show", "show a saved game (as one side sees it)")
    s.add_argument("save")
    s.add_argument("--side", help="see the game as this side (default: public view)")
    s.add_argument("--last", type=int, default=15, help="log entries to print")
    s.add_argument("--json", action="store_true")
    allow(s)
    s.set_defaults(fn=cmd_show)

    s = verb("actions", "list the legal actions now, numbered (do SAVE N applies number N)")
    s.add_argument("save")
    s.add_argument("--side", help="only this side's actions (numbered as in the full list)")
    s.add_argument("--json", action="store_true", help="the actions as JSON data")
    allow(s)
    s.set_defaults(fn=cmd_actions)

    s = verb("do", "apply one action (JSON) to a saved game; the save is rewritten atomically")
    s.add_argument("save")
    s.add_argument(
        "action",
        help=(
            "the action's number in the 'grognard actions' list, or the action as JSON, e.g."
            ' \'{"type": "end-phase", "side": "Blue"}\''
        ),
    )
    s.add_argument("--json", action="store_true")
    allow(s)
    s.set_defaults(fn=cmd_do)

    s = verb("undo", "take back the last action (never across dice rolls or revealed information)")
    s.add_argument("save")
    s.add_argument("--side")
    allow(s)
    s.set_defaults(fn=cmd_undo)

    s = verb("record", "write the game record (scenario, options, seed, actions, hashes)")
    s.add_argument("save")
    s.add_argument("-o", "--output", required=True)
    allow(s)
    s.set_defaults(fn=cmd_record)

    s = verb("replay", "replay a game record and check the state hash at every turn")
    s.add_argument("record")
    s.add_argument("--json", action="store_true")
    allow(s)
    s.set_defaults(fn=cmd_replay)

    s = verb("selfplay", "play random games, checking invariants, views and replays")
    s.add_argument("scenario")
    s.add_argument("--games", type=int, default=10)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--max-steps", type=int, default=2000)
    s.add_argument(
        "--no-view-check", action="store_true", help="skip the fog-of-war leak check (faster)"
    )
    s.add_argument(
        "--jobs",
        type=int,
        default=0,
        help=(
            "worker processes sharing the games (default: one per CPU); the report does not depend"
            " on it"
        ),
    )
    s.add_argument(
        "--progress", action="store_true", help="print a line per finished game on stderr"
    )
    s.add_argument(
        "--start",
        type=int,
        default=1,
        help="play only games START..GAMES of the run (each game is the same whatever START)",
    )
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_selfplay)

    s = verb("rules", "rule coverage: every rule id of a rule system and its status")
    s.add_argument("--ruleset", required=True)
    s.add_argument("--tests", help="tests folder to scan for rule markers (default: ./tests)")
    s.add_argument("--summary", action="store_true", help="only the totals")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_rules)

    s = verb("play", "play in the terminal, hot-seat")
    s.add_argument("scenario", nargs="?", help="scenario id or path")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--save", help="save file to write on quit")
    s.add_argument("--load", help="continue a saved game")
    s.add_argument(
        "--ai",
        action="append",
        metavar="SIDE[:LEVEL]",
        help="the computer plays SIDE (LEVEL: easy, normal, hard, or random, greedy); repeatable",
    )
    s.add_argument(
        "--ai-level", default="normal", help="the computer's default level (easy, normal, hard)"
    )
    opts(s)
    s.set_defaults(fn=cmd_play)

    s = verb("chart", "show a chart or results table of a rule system (provisional ones marked)")
    s.add_argument("name", nargs="*", help="table or chart id (none: list them)")
    s.add_argument("--ruleset", help="rule system (or --save: the tables of that game)")
    s.add_argument("--save", help="a saved game: its rule system and table overrides")
    s.set_defaults(fn=cmd_chart)

    s = verb("explain", "what a result code means, with its rule ids")
    s.add_argument("code", nargs="?", help="the code (none: list the codes)")
    s.add_argument("--ruleset", help="rule system (or --save)")
    s.add_argument("--save", help="a saved game: its rule system")
    s.set_defaults(fn=cmd_explain)
    s = verb("study", "play many games between agents and write a report (win rates, VP, losses)")
    s.add_argument("scenario", help="scenario id or path")
    s.add_argument("--games", type=int, default=20)
    s.add_argument("--agents", default="greedy,random", help="A,B: agent specs (planner:LEVEL)")
    s.add_argument("--swap", action="store_true", help="swap the sides every other game")
    s.add_argument("--backend", choices=("local", "ray"), default="local")
    s.add_argument("--address", help="ray: the cluster's address (default: a local ray)")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--start", type=int, default=1, help="play only games START..GAMES")
    s.add_argument("--jobs", type=int, default=1, help="worker processes (ray: CPUs)")
    s.add_argument("--max-turns", type=int, help="stop after this many game turns (VP decide)")
    s.add_argument("--max-steps", type=int, default=20000, help="actions per game at most")
    s.add_argument("-o", "--output", help="directory for the report (default: study-SCENARIO)")
    s.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    s.set_defaults(fn=cmd_study)

    s = verb(
        "bench",
        "run the search benchmarks (ratios against networkx and scipy), or with --engine the "
        "engine benchmark (the working tree against a baseline commit)",
    )
    s.add_argument("--quick", action="store_true", help="a shorter run")
    s.add_argument("--json", action="store_true")
    s.add_argument("--engine", action="store_true", help="engine benchmark (needs a git checkout)")
    s.add_argument("--baseline", help="engine benchmark: commit to compare against")
    s.add_argument("--scenario", action="append", help="engine benchmark: scenario id")
    s.set_defaults(fn=cmd_bench)

    s = verb("schema", "print the JSON Schema of the scenario format")
    s.add_argument("-o", "--output")
    s.set_defaults(fn=cmd_schema)

    from grognard.server.cli import add_parser as add_serve_parser

    add_serve_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from grognard.core.errors import GrognardError

    parser = build_parser()
    a = parser.parse_args(argv)
    _load_plugins()
    if a.verb == "play" and not a.scenario and not a.load:
        parser.error("play needs a scenario (or --load SAVE)")
    try:
        return int(a.fn(a) or 0)
    except GrognardError as e:
        _err(str(e))
        return EXIT_INVALID
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (``grognard show SAVE | head``): stop quietly, and send what is
        # still buffered nowhere so the interpreter's final flush does not fail again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
