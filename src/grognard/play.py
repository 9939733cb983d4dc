"""Terminal hot-seat play: both sides at one keyboard, the engine as umpire.

The loop draws the map whenever the phase changes, prints the new log entries (every die roll
with its rule id, each rule id once), and offers the legal actions of the side that must act as
menus grouped by kind of action, then by piece, then the piece's options. In a piece's menu any
hex of the reach shown may be typed to move there (not only the listed neighbours). An action
that has a preview (cost and reach of a move, odds and distribution of an attack, the chances of
a die roll) is shown before it is committed; an illegal action is refused with its rule id and
nothing is asked. The commands are listed in HELP (``h`` at the prompt).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from grognard import glossary
from grognard.core.arith import fmt
from grognard.core.errors import GrognardError, IllegalAction, UndoError
from grognard.core.game import Game
from grognard.core.serial import dumps
from grognard.textmap import hex_report

Action = dict[str, Any]

HELP = """Commands (typed at the prompt):
  NUMBER         pick that entry of the menu
  HEX            in a piece's menu: act towards that hex (e.g. 0803), any hex of the reach
                 shown, not only the listed ones; the move is previewed and checked first
  b              back up one menu
  j JSON         enter an action as JSON; the side to act is filled in, e.g.
                 j {"type": "move", "piece": "fr-14d", "to": "0803"}
  m              redraw the map
  l              the whole log
  chart          list the charts and results tables of the rule system
  chart NAME     show one (a provisional table, invented where the rules print none, is marked)
  explain CODE   what a result code means and its rule ids (e.g. explain DR)
  rule ID        a rule's title and status (e.g. rule OT 9F2)
  hex ID         a hex in words: terrain, places, owner, pieces, rivers and rail on its sides
  u              undo the last action (never across a die roll or revealed information)
  s [FILE]       save (to FILE, or to the save file given)
  q              quit (saving first if a save file was given)
  h              this help
"""

# improper fractions as the engine may write them (243/4): shown as mixed numbers (60¾)
_IMPROPER = re.compile(r"(?<![\w/.:])(\d+)/([2-9]|1[0-2])(?![\w/.:])")
MENU_FLAT = 10  # up to this many actions: one flat menu
ORDER = ("to", "target", "hex", "at", "dest", "destination")


def mixed_numbers(text: str) -> str:
    """``243/4`` -> ``60¾``: improper fractions written by the engine as mixed numbers (proper
    fractions and codes such as ``1/1`` or ``0/2`` are left alone)."""

    def repl(m: re.Match[str]) -> str:
        num, den = int(m.group(1)), int(m.group(2))
        if num <= den or num % den == 0:
            return m.group(0)
        f = Fraction(num, den)
        shown = fmt(f)
        if "/" in shown:
            whole, rest = divmod(num, den)
            shown = f"{whole} {rest}/{den}"
        return shown

    return _IMPROPER.sub(repl, text)


def rule_once(text: str, rule: str | None) -> str:
    """The text of a log entry with its rule id appended, unless the text already cites it."""
    if not rule or f"({rule})" in text or f"[{rule}]" in text:
        return text
    return f"{text} ({rule})"


def plain(text: str) -> str:
    """Documentation text for the terminal: reST literals (double backticks) and roles dropped."""
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text)
    return text.replace("``", "")


# ============================================================================ menus
@dataclass
class Menu:
    """One level of the action menus: entries are (label, action or submenu builder); ``options``
    are the actions a typed hex may choose among (and the template for a farther hex)."""

    title: str
    entries: list[tuple[str, Action | Callable[[], Menu]]]
    options: list[Action] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)


def hex_field(g: Game, options: Sequence[Action]) -> str | None:
    """The field holding the destination (a hex label) of a group of options: the first
    hex-valued field whose value changes between them (or the only option's first one)."""
    if not options:
        return None
    fields: list[str] = []
    for k, v in options[0].items():
        if k in ("type", "side") or not isinstance(v, str) or not g.board.has_label(v):
            continue
        fields.append(k)
    if not fields:
        return None
    varying = [k for k in fields if len({str(a.get(k)) for a in options}) > 1]
    pool = varying or fields
    return sorted(pool, key=lambda k: ORDER.index(k) if k in ORDER else len(ORDER))[0]


@dataclass
class Walk:
    """A move typed to a far hex for pieces the rules move one hex at a time: its side, the
    pieces, the target hex, the destination field and the first listed step (the template)."""

    side: str
    actor: tuple[str, ...]
    target: int
    field: str
    template: Action


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
        self.walking: Walk | None = None

    # ---------------------------------------------------------------- output
    def say(self, text: str) -> None:
        """Print text as it is (no markup)."""
        self.out.print(text, markup=False, highlight=False)

    def show_map(self, side: str | None, marks: Mapping[str, str] | None = None) -> None:
        self.say(self.g.ruleset.render_text(self.g, side, marks=marks, width=self.out.width))

    def show_status(self) -> None:
        g = self.g
        phase = " > ".join(g.phase_path())
        acting = ", ".join(g.acting_sides()) or "-"
        self.out.print(
            f"[bold]Turn {escape(g.turn_label())}[/bold]  {escape(phase)}  |  to act:"
            f" [bold]{escape(acting)}[/bold]"
        )

    def show_new_log(self, side: str | None) -> None:
        events = self.g.visible_log(side, self.seen_log)
        for ev in events:
            text = escape(mixed_numbers(rule_once(str(ev["text"]), ev.get("rule"))))
            if ev["type"] == "roll":
                self.out.print(f"  [bold yellow]{text}[/bold yellow]")
            else:
                self.out.print(f"  {text}")
        self.seen_log = len(self.g.state.log)

    def save(self, path: Path | None = None) -> None:
        p = path or self.save_path
        if p is None:
            self.say("no save file given (use: s FILE)")
            return
        p.write_text(dumps(self.g.save()), encoding="utf-8")
        self.say(f"saved to {p}")

    # ---------------------------------------------------------------- naming
    def label(self, a: Action) -> str:
        return mixed_numbers(self.g.label(a))

    def actor_of(self, a: Action) -> tuple[str, ...]:
        return actor_of(self.g, a)

    def actor_text(self, actor: tuple[str, ...]) -> str:
        g = self.g
        if len(actor) == 1:
            return piece_text(g, actor[0])
        first = piece_text(g, actor[0])
        return f"{', '.join(actor)}" + (first[first.find(" in ") :] if " in " in first else "")

    # ---------------------------------------------------------------- menus
    def top_menu(self, side: str) -> Menu:
        g = self.g
        fams = [(f, f.all()) for f in g.families(side)]
        fams = [(f, opts) for f, opts in fams if opts]
        total = sum(len(o) for _, o in fams)
        if total <= MENU_FLAT:
            flat = [a for _, o in fams for a in o]
            return Menu(side, [(self.label(a), a) for a in flat], flat)
        entries: list[tuple[str, Action | Callable[[], Menu]]] = []
        for f, opts in fams:
            if len(opts) == 1:
                entries.append((self.label(opts[0]), opts[0]))
                continue
            title = g.ruleset.action_title(f.type)

            def sub(title: str = title, opts: list[Action] = opts) -> Menu:
                return self.family_menu(title, opts)

            entries.append((f"{title} ({len(opts)})", sub))
        return Menu(side, entries)

    def family_menu(self, title: str, opts: list[Action]) -> Menu:
        groups: dict[tuple[str, ...], list[Action]] = {}
        for a in opts:
            groups.setdefault(self.actor_of(a), []).append(a)
        if len(groups) == 1:
            ((actor, only),) = groups.items()
            return self.options_menu(title, list(actor), only)
        entries: list[tuple[str, Action | Callable[[], Menu]]] = []
        for actor, v in groups.items():
            if len(v) == 1:
                entries.append((self.label(v[0]), v[0]))
                continue
            name = self.actor_text(actor) if actor else "other"

            def sub(actor: tuple[str, ...] = actor, v: list[Action] = v) -> Menu:
                return self.options_menu(title, list(actor), v)

            entries.append((f"{name} ({len(v)})", sub))
        return Menu(title, entries)

    def options_menu(self, title: str, pieces: list[str], opts: list[Action]) -> Menu:
        return Menu(title, [(self.label(a), a) for a in opts], opts, pieces)

    def enter(self, side: str, menu: Menu) -> None:
        """What a player sees on opening a piece's menu: the hexes it can reach (with their cost)
        or the hexes its options name, marked on the map."""
        g = self.g
        marks: dict[str, str] = {}
        reach = g.ruleset.reachable(g, menu.pieces) if menu.pieces else None
        hf = hex_field(g, menu.options)
        if reach:
            for h, c in reach.items():
                marks[str(h)] = cost_char(c)
        elif hf is not None:
            for a in menu.options:
                marks[str(a[hf])] = "@"
        if len(marks) < 1:
            return
        self.show_map(side, marks)
        if reach:
            shown = ", ".join(f"{h} {mixed_numbers(fmt_cost(c))}" for h, c in reach.items())
            self.say(f"reachable ({len(reach)} hexes, MP cost): {shown}")
            self.say("type a hex id to move there, or pick an entry")
        elif hf is not None:
            self.say("marked on the map: the hexes these options name; type one to pick it")

    def choose(self, side: str) -> Action | str | None:
        """Walk the grouped menus. Returns an action, None (loop again) or 'quit'."""
        stack: list[Menu] = []
        menu = self.top_menu(side)
        while True:
            table = Table(show_header=False, box=None, pad_edge=False)
            for n, (label, payload) in enumerate(menu.entries, start=1):
                table.add_row(f"{n:>3}", escape(label) + (" ..." if callable(payload) else ""))
            self.out.print(table)
            cmd = self.input(f"{side}> ").strip()
            if not cmd:
                continue
            if cmd == "b":
                if stack:
                    menu = stack.pop()
                continue
            if cmd.isdigit() and 1 <= int(cmd) <= len(menu.entries):
                _, payload = menu.entries[int(cmd) - 1]
                if callable(payload):
                    stack.append(menu)
                    menu = payload()
                    self.enter(side, menu)
                    continue
                return payload
            typed = self.typed_hex(menu, cmd)
            if typed == "handled":
                return None
            if isinstance(typed, dict):
                return typed
            res = self.command(cmd, side)
            if res == "quit":
                return "quit"
            if res == "handled":
                return None
            self.say(
                f"pick 1..{len(menu.entries)}"
                + (", or type a hex" if menu.options and hex_field(self.g, menu.options) else "")
                + ", b to go back, h for help"
            )

    def typed_hex(self, menu: Menu, text: str) -> Action | str | None:
        """The action a typed hex label stands for in ``menu``: the first option naming that hex,
        else the first option with its destination changed to it when the rules accept that (a
        long move in one action). When they do not and every option is a one-hex step (the
        rules move pieces hex by hex), the move is planned as a walk of one-hex steps towards
        the hex (:meth:`walk`); otherwise the changed action is returned, to be refused with its
        rule when applied."""
        g = self.g
        if not menu.options or not g.board.has_label(text):
            return None
        hf = hex_field(g, menu.options)
        if hf is None:
            return None
        for a in menu.options:
            if a.get(hf) == text:
                return a
        direct = {**menu.options[0], hf: text}
        if g.is_legal(direct):
            return direct
        actor = actor_of(g, menu.options[0])
        start = self.hex_of(actor)
        if start is None or not all(
            isinstance(a.get(hf), str) and g.board.distance(start, g.board.idx(str(a[hf]))) == 1
            for a in menu.options
        ):
            return direct
        plan = Walk(str(direct["side"]), actor, g.board.idx(text), hf, menu.options[0])
        self.say(
            f"{self.label(menu.options[0])}: the rules move these pieces one hex at a time;"
            f" walk towards {text} one hex per step, each step checked (the walk stops when no"
            " step gets nearer, and waits while the other side answers)"
        )
        ok = self.input("commit? [Y/n] ").strip().lower()
        if ok not in ("", "y", "yes"):
            self.say("not committed")
            return "handled"
        self.walking = plan
        self.walk()
        return "handled"

    def hex_of(self, actor: tuple[str, ...]) -> int | None:
        if not actor or actor[0] not in self.g.state.pieces:
            return None
        kind, ref = self.g.state.where(actor[0])
        return int(ref) if kind == "hex" else None

    def walk(self) -> None:
        """Take the planned walk's next one-hex steps while its side acts and a step gets nearer
        (a step whose rules ask the other side something hands over; the walk goes on when the
        turn comes back)."""
        g = self.g
        plan = self.walking
        while plan is not None and not g.is_over():
            if g.acting_sides()[:1] != [plan.side]:
                return
            here = self.hex_of(plan.actor)
            if here is None or here == plan.target:
                break
            best: Action | None = None
            best_key = (g.board.distance(here, plan.target), 0)
            for fam in g.families(plan.side):
                if fam.type != plan.template.get("type"):
                    continue
                for a in fam.all():
                    if actor_of(g, a) != plan.actor or not isinstance(a.get(plan.field), str):
                        continue
                    same = all(
                        a.get(k) == v
                        for k, v in plan.template.items()
                        if k not in (plan.field, "side") and not isinstance(v, list)
                    )
                    d = g.board.distance(g.board.idx(str(a[plan.field])), plan.target)
                    key = (d, 0 if same else 1)
                    if key < best_key:  # nearer, and like the first listed step
                        best, best_key = a, key
            if best is None:
                self.say(f"the walk stops in {g.board.label(here)}: no legal step gets nearer")
                break
            self.say(f"step: {self.label(best)}")
            try:
                g.apply(best)
            except IllegalAction as e:
                self.say(f"illegal: {e.message} ({e.rule}); the walk stops")
                break
            self.show_new_log(plan.side)
        self.walking = None

    # ---------------------------------------------------------------- commands
    def command(self, cmd: str, side: str) -> str | None:
        g = self.g
        word, _, rest = cmd.partition(" ")
        rest = rest.strip()
        if cmd in ("q", "quit"):
            if self.save_path:
                self.save()
            return "quit"
        if cmd in ("h", "help", "?"):
            self.say(HELP)
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
                self.say(f"undone: {self.label(a)}")
                self.seen_log = len(g.state.log)
            except UndoError as e:
                self.say(f"cannot undo: {e}")
            return "handled"
        if word == "chart":
            self.say(glossary.chart_command(g.ruleset, rest, g.scenario.table_overrides))
            return "handled"
        if word == "explain":
            self.say(glossary.explain_command(g.ruleset, rest))
            return "handled"
        if word == "hex":
            self.say(hex_report(g, rest, side))
            return "handled"
        if word == "rule":
            self.say(glossary.rule_command(g.ruleset, rest))
            return "handled"
        if word == "s" or cmd == "s":
            self.save(Path(rest) if rest else None)
            return "handled"
        if word == "j":
            try:
                action = json.loads(rest)
            except (json.JSONDecodeError, RecursionError) as e:
                self.say(f"not JSON: {e}")
                return "handled"
            if isinstance(action, dict) and "side" not in action:
                action["side"] = side
            self.do(action)
            return "handled"
        return None

    def do(self, action: Any) -> bool:
        """Check the action (refused with its rule id: nothing is asked), show its preview and
        ask before committing it, then apply it."""
        try:
            action = self.g.check(action)
        except IllegalAction as e:
            self.out.print(f"[red]illegal:[/red] {escape(mixed_numbers(e.message))} ({e.rule})")
            return False
        try:
            preview = g_preview(self.g, action)
        except GrognardError as e:  # a preview must never stop the game
            preview = f"(no preview: {e})"
        if preview:
            self.say(mixed_numbers(preview))
            ok = self.input("commit? [Y/n] ").strip().lower()
            if ok not in ("", "y", "yes"):
                self.say("not committed")
                return False
        try:
            self.g.apply(action)
        except IllegalAction as e:
            self.out.print(f"[red]illegal:[/red] {escape(mixed_numbers(e.message))} ({e.rule})")
            return False
        return True

    # ---------------------------------------------------------------- loop
    def run(self, max_turns: int | None = None) -> Game:
        g = self.g
        shown: tuple[str, ...] | None = None
        last_side: str | None = None
        while not g.is_over():
            sides = g.acting_sides()
            side = sides[0]
            if side != last_side:
                self.out.rule(f"{side} to act")
                last_side = side
            here = (side, *g.phase_path())
            if here != shown:
                self.show_map(side)
                shown = here
            self.show_new_log(side)
            if self.walking is not None and self.walking.side == side:
                self.walk()
                continue
            self.show_status()
            choice = self.choose(side)
            if choice == "quit":
                return g
            if isinstance(choice, dict):
                self.do(choice)
            if max_turns is not None and int(g.state.turn.get("index", 0)) > max_turns:
                break
        self.show_new_log(None)
        if g.state.result:
            self.say(game_over_text(g))
        if self.save_path:
            self.save()
        return g


def piece_text(g: Game, pid: str) -> str:
    """``fr-14d 14th Division in 0505``: a piece's id, name and where it is."""
    p = g.state.pieces.get(pid)
    if p is None:
        return pid
    name = g.ruleset.name_of(g, "piece", pid)
    kind, ref = g.state.where(pid)
    where = ""
    if kind == "hex":
        where = f" in {g.board.label(int(ref))}"
    elif kind != "none":
        where = f" ({kind} {ref})"
    return (f"{pid} {name}" if name != pid else pid) + where


def actor_of(g: Game, a: Mapping[str, Any]) -> tuple[str, ...]:
    """Who acts in ``a``: the declared actor field, else the first field naming pieces."""
    decl = g.ruleset.actions.types.get(str(a.get("type"))) if g.ruleset.actions else None
    keys = [decl.actor] if decl is not None and decl.actor else list(a)
    for k in keys:
        if k in ("type", "side") or k not in a:
            continue
        v = a[k]
        if isinstance(v, str) and v in g.state.pieces:
            return (v,)
        if isinstance(v, list) and v and all(isinstance(x, str) and x in g.state.pieces for x in v):
            return tuple(v)
        if decl is not None and decl.actor == k:
            return (str(v),)
    return ()


def cost_char(c: Any) -> str:
    """One character for an MP cost on the map: rounded up, ``+`` from 10."""
    try:
        f = Fraction(str(c))
    except (ValueError, ZeroDivisionError):
        return "@"
    n = int(f) if f == int(f) else int(f) + 1
    return str(n) if n < 10 else "+"


def fmt_cost(c: Any) -> str:
    try:
        return fmt(Fraction(str(c)))
    except (ValueError, ZeroDivisionError):
        return str(c)


def game_over_text(g: Game) -> str:
    """Who won, why, and the scores when the rule system gives them."""
    r = g.state.result or {}
    winner = r.get("winner")
    lines = [f"Game over: {winner + ' wins' if winner else 'no winner (a draw)'}"]
    if r.get("reason"):
        lines.append(f"  why: {r['reason']}" + (f" ({r['rule']})" if r.get("rule") else ""))
    for k, v in r.items():
        if k in ("winner", "reason", "rule"):
            continue
        if isinstance(v, Mapping):
            v = ", ".join(f"{a} {b}" for a, b in v.items())
        lines.append(f"  {k}: {v}")
    return "\n".join(lines)


def g_preview(g: Game, action: Action) -> str | None:
    """What committing ``action`` would mean, as text: the rule system's preview, else the
    action's pieces and destination and the chances of the die roll it leads to (None when
    there is nothing to show, e.g. ending a phase)."""
    raw = g.ruleset.preview(g, action)
    if isinstance(raw, dict):
        return str(raw.get("text") or "\n".join(f"{k}: {v}" for k, v in raw.items()))
    if raw is not None:
        return str(raw)
    lines: list[str] = []
    outcomes = g.chance_outcomes(action)
    actor = tuple(p for p in actor_of(g, action) if p in g.state.pieces)
    hf = hex_field(g, [action])
    if actor and (hf is not None or outcomes):
        lines.append(g.label(action))
        for pid in actor[:8]:
            lines.append(f"  {piece_text(g, pid)}")
        if hf is not None:
            lines.append(f"  {hf}: {action[hf]}")
    if outcomes:
        if not lines:
            lines.append(g.label(action))
        lines.append("  chances:")
        for o in sorted(outcomes, key=lambda o: -o.probability):
            p = float(o.probability)
            lines.append(f"  {o.label:>14} {p:6.1%} {'#' * round(p * 36)}")
    return "\n".join(lines) if lines else None


def play(game: Game, save_path: Path | None = None, stream: IO[str] | None = None) -> Game:
    console = Console(file=stream, highlight=False) if stream else None
    return Hotseat(game, console=console, save_path=save_path).run()
