"""Terminal hot-seat play: both sides at one keyboard, the engine as umpire.

The loop shows the map and the phase, prints new log entries (every die roll with its
rule id), and offers the legal actions of the side that must act, grouped by kind and
piece so that long lists stay usable. Commands: a number picks an entry, ``b`` goes
back up a menu, ``u`` undoes, ``m`` redraws the map, ``l`` shows the whole log,
``s FILE`` saves, ``j JSON`` enters an action directly, ``q`` quits (saving first if
a save file was given).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from rich.console import Console
from rich.table import Table

from grognard.core.errors import IllegalAction, UndoError
from grognard.core.game import Game
from grognard.core.serial import dumps

Action = dict[str, Any]


def _group_key(a: Action) -> str:
    return str(a.get("type"))


def _item_label(g: Game, a: Action) -> str:
    return g.ruleset.describe_action(g, a)


class Hotseat:
    def __init__(
        self,
        game: Game,
        console: Console | None = None,
        input_fn: Callable[[str], str] | None = None,
        save_path: Path | None = None,
    ) -> None:
        self.g = game
        self.out = console or Console(highlight=False)
        self.input = input_fn or (lambda prompt: self.out.input(prompt))
        self.save_path = save_path
        self.seen_log = 0

    # ---------------------------------------------------------------- output
    def show_map(self, side: str | None) -> None:
        self.out.print(self.g.ruleset.render_text(self.g, side), markup=False, highlight=False)

    def show_status(self) -> None:
        g = self.g
        phase = " > ".join(g.phase_path())
        acting = ", ".join(g.acting_sides()) or "-"
        self.out.print(
            f"[bold]Turn {g.turn_label()}[/bold]  {phase}  |  to act: [bold]{acting}[/bold]"
        )

    def show_new_log(self, side: str | None) -> None:
        events = self.g.visible_log(side, self.seen_log)
        for ev in events:
            rule = f" [dim]({ev['rule']})[/dim]" if ev.get("rule") else ""
            style = "bold yellow" if ev["type"] == "roll" else ""
            text = ev["text"].replace("[", "\\[")
            self.out.print(f"  [{style}]{text}[/{style}]{rule}" if style else f"  {text}{rule}")
        self.seen_log = len(self.g.state.log)

    def show_targets(self, side: str, actions: list[Action]) -> None:
        """Before a list of moves or attacks, draw the map with their target hexes marked."""
        targets = set()
        for a in actions:
            ref = a.get("to", a.get("target"))
            if isinstance(ref, str) and self.g.board.has_label(ref):
                targets.add(self.g.board.idx(ref))
        if targets and len(targets) == len(actions):
            from grognard.textmap import render_board

            self.out.print(
                render_board(self.g, side, highlight=targets), markup=False, highlight=False
            )

    def save(self, path: Path | None = None) -> None:
        p = path or self.save_path
        if p is None:
            self.out.print("no save file given (use: s FILE)")
            return
        p.write_text(dumps(self.g.save()), encoding="utf-8")
        self.out.print(f"saved to {p}")

    # ---------------------------------------------------------------- menus
    def menu(self, actions: list[Action]) -> list[tuple[str, Any]]:
        """Entries of one menu level: (label, action) or (label, list of actions below it)."""
        by_type: dict[str, list[Action]] = {}
        for a in actions:
            by_type.setdefault(_group_key(a), []).append(a)
        if len(by_type) > 1 and len(actions) > 8:
            return [
                (
                    f"{t} ({len(v)})" if len(v) > 1 else _item_label(self.g, v[0]),
                    v if len(v) > 1 else v[0],
                )
                for t, v in by_type.items()
            ]
        by_piece: dict[str, list[Action]] = {}
        for a in actions:
            by_piece.setdefault(str(a.get("piece", a.get("from", ""))), []).append(a)
        if len(actions) > 12 and len(by_piece) > 1:
            return [
                (
                    f"{k or '-'} ({len(v)})" if len(v) > 1 else _item_label(self.g, v[0]),
                    v if len(v) > 1 else v[0],
                )
                for k, v in by_piece.items()
            ]
        return [(_item_label(self.g, a), a) for a in actions]

    def choose(self, side: str, actions: list[Action]) -> Action | str | None:
        """Walk the grouped menu. Returns an action, None (loop again) or 'quit'."""
        stack: list[list[tuple[str, Any]]] = []
        items = self.menu(actions)
        while True:
            table = Table(show_header=False, box=None, pad_edge=False)
            for n, (label, _) in enumerate(items, start=1):
                table.add_row(f"{n:>3}", label)
            self.out.print(table)
            cmd = self.input(f"{side}> ").strip()
            if not cmd:
                continue
            if cmd == "b":
                if stack:
                    items = stack.pop()
                continue
            res = self.command(cmd, side)
            if res == "quit":
                return "quit"
            if res == "handled":
                return None
            if not cmd.isdigit() or not 1 <= int(cmd) <= len(items):
                self.out.print(f"pick 1..{len(items)}, b to go back, h for help")
                continue
            _, payload = items[int(cmd) - 1]
            if isinstance(payload, list):
                self.show_targets(side, payload)
                stack.append(items)
                items = (
                    self.menu(payload)
                    if len(payload) < len(actions)
                    else [(_item_label(self.g, a), a) for a in payload]
                )
                continue
            chosen: dict[str, Any] = payload
            return chosen

    def command(self, cmd: str, side: str) -> str | None:
        g = self.g
        if cmd in ("q", "quit"):
            if self.save_path:
                self.save()
            return "quit"
        if cmd in ("h", "help", "?"):
            self.out.print(__doc__ or "")
            return "handled"
        if cmd == "m":
            self.show_map(side)
            return "handled"
        if cmd == "l":
            self.seen_log = 0
            self.show_new_log(side)
            return "handled"
        if cmd == "u":
            try:
                a = g.undo()
                self.out.print(f"undone: {_item_label(g, a)}")
                self.seen_log = len(g.state.log)
            except UndoError as e:
                self.out.print(f"cannot undo: {e}")
            return "handled"
        if cmd.startswith("s"):
            rest = cmd[1:].strip()
            self.save(Path(rest) if rest else None)
            return "handled"
        if cmd.startswith("j "):
            try:
                action = json.loads(cmd[2:])
            except json.JSONDecodeError as e:
                self.out.print(f"not JSON: {e}")
                return "handled"
            self.do(action)
            return "handled"
        return None

    def do(self, action: Action) -> bool:
        preview = g_preview(self.g, action)
        if preview:
            self.out.print(preview, markup=False)
            ok = self.input("commit? [Y/n] ").strip().lower()
            if ok not in ("", "y", "yes"):
                return False
        try:
            self.g.apply(action)
        except IllegalAction as e:
            self.out.print(f"[red]illegal:[/red] {e.message} ({e.rule})")
            return False
        return True

    # ---------------------------------------------------------------- loop
    def run(self, max_turns: int | None = None) -> Game:
        g = self.g
        last_side: str | None = None
        self.show_status()
        while not g.is_over():
            sides = g.acting_sides()
            side = sides[0]
            if side != last_side:
                self.out.rule(f"{side} to act")
                self.show_map(side)
                last_side = side
            self.show_new_log(side)
            self.show_status()
            choice = self.choose(side, g.legal_actions(side))
            if choice == "quit":
                return g
            if isinstance(choice, dict):
                self.do(choice)
            if max_turns is not None and int(g.state.turn.get("index", 0)) > max_turns:
                break
        self.show_new_log(None)
        if g.state.result:
            self.out.print(f"[bold]Game over:[/bold] {g.state.result}")
        if self.save_path:
            self.save()
        return g


def g_preview(g: Game, action: Action) -> str | None:
    """The rule system's preview of an action as text (None when it offers none)."""
    raw = g.ruleset.preview(g, action)
    if raw is None:
        return None
    if isinstance(raw, dict):
        return str(raw.get("text") or "\n".join(f"{k}: {v}" for k, v in raw.items()))
    return str(raw)


def play(game: Game, save_path: Path | None = None, stream: IO[str] | None = None) -> Game:
    console = Console(file=stream, highlight=False) if stream else None
    return Hotseat(game, console=console, save_path=save_path).run()
