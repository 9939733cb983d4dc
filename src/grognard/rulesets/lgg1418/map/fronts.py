"""LGG 6: fronts, sectors and initiative.

6-A: the map is divided into sectors (areas of kind ``sector`` named French, Italian,
Russian, Balkan, Armenian, Oriental); each sector belongs to a front (West or East, see
``data/powers.toml``); a hex on the boundary may belong to two sectors ("shared hexes belong
to both fronts"). The moving limits of the Russian, Balkan and Armenian sectors described by
6-A (Transylvania, Bessarabia, landings) are drawn by the scenario's sector areas.

6-B: each turn, per front, each side rolls a D12 plus the initiative value of one of its
GHQs; the higher total wins, a tie goes to the side that did not hold the initiative on the
previous turn; the winner decides who moves first on that front, the East first, then the
West. Holding the initiative lets a side react in the opponent's turn on that front without
the -2 penalty, in this same turn (audit correction of LGG-17).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.units.counters import ghq_value

if TYPE_CHECKING:
    from grognard.core.game import Game


# ====================================================================== sectors and fronts (6-A)
@implements("LGG 6-A")
def sectors_of(g: Game, i: int) -> list[str]:
    """LGG 6-A: the sectors a hex belongs to (two on a shared boundary hex). Map facts only: kept
    per board (and default sector) in :func:`.mapdata.static`."""
    return list(_sectors_fronts(g, i)[0])


def _sectors_fronts(g: Game, i: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """LGG 6-A: (sectors, fronts) of hex ``i``, computed once per board and default sector."""
    default = M.rules(g).default_sector
    key = ("sectors-fronts", default)
    cache = mapdata.static(g)
    table: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] | None = cache.get(key)  # type: ignore[call-overload]
    if table is None:
        table = cache[key] = {}  # type: ignore[index]
    found = table.get(i)
    if found is None:
        names = sorted(a.name for a in g.board.areas_of(i, "sector"))
        if not names and default:
            names = [str(default)]
        out: list[str] = []
        for s in names:
            f = M.data(g).sector_front(s)
            if f and f not in out:
                out.append(f)
        found = table[i] = (tuple(names), tuple(sorted(out, key=M.FRONTS.index)))
    return found


@implements("LGG 6-A")
def fronts_of(g: Game, i: int) -> list[str]:
    """LGG 6-A: the fronts of a hex (the fronts of its sectors)."""
    return list(_sectors_fronts(g, i)[1])


def army_fronts(g: Game, army: str) -> list[str]:
    """Fronts on which an army may be activated: those of its HQ's hex."""
    h = M.army_hq_hex(g, army)
    return fronts_of(g, h) if h is not None else []


def front_order(g: Game) -> list[str]:
    """Fronts in play, in the order they are decided and played (East first by default)."""
    fronts = [f for f in M.FRONTS if f in M.rules(g).fronts]
    if g.opt("front-order") == "east-first":
        fronts.sort(key=lambda f: 0 if f == M.EAST else 1)
    return fronts  # type: ignore[return-value]


# ====================================================================== initiative (6-B)
def initiative_candidates(g: Game, side: str, front: str) -> list[str]:
    """LGG 6-B: nations whose GHQ initiative value ``side`` may use on ``front`` (GHQ in play)."""
    listed = M.data(g).powers["initiative_ghqs"].get(front, {}).get(side, [])
    return [n for n in listed if M.ghq_piece(g, n) is not None and M.nation_side(g, n) == side]


@implements("LGG 6-B")
def initiative_winner(g: Game, front: str, totals: dict[str, int]) -> str | None:
    """LGG 6-B: the best total wins; a tie goes to the side that did not hold the initiative
    on the previous turn (None if that is unknown: the roll is then repeated)."""
    a, b = M.SIDES
    if totals[a] != totals[b]:
        return a if totals[a] > totals[b] else b
    prev = M.st(g).get("initiative_prev", {}).get(front) or M.rules(g).initiative_last.get(front)  # type: ignore[call-overload]
    if prev is None:
        return None
    return M.other_side(prev)


@implements("LGG 6-B")
def reaction_initiative_modifier(g: Game, side: str, front: str) -> int:
    """LGG 6-B / 20-A: a side reacting during the opponent's turn takes -2 unless it holds
    the initiative on that front this turn (the initiative rolled at the start of the same turn)."""
    return 0 if M.st(g).get("initiative", {}).get(front) == side else -2


@implements("LGG 6-B")
class InitiativeFront(Step):
    """LGG 6-B: initiative on one front - GHQ choice (secret), roll, first-mover choice."""

    name = "initiative-front"
    title = "Initiative"
    rule = "LGG 6-B"
    composite = True

    def label(self, g: Game, f: Frame) -> str:
        return f"Initiative on the {f.params['front']} front"

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        front = f.params["front"]
        stage = f.params.get("stage", "choose")
        if stage == "choose":
            f.params["stage"] = "roll"
            choosers = {s: initiative_candidates(g, s, front) for s in M.SIDES}
            multi = [s for s in M.SIDES if len(choosers[s]) > 1]
            if multi:
                key = f"initiative-ghq:{front}:{M.current_turn(g).id}"
                f.params["key"] = key
                return "secret-choice", {
                    "key": key,
                    "sides": multi,
                    "options": {s: choosers[s] for s in multi},
                    "rule": "LGG 6-B",
                }
            return self.next_child(g, f)
        if stage == "roll":
            f.params["stage"] = "first"
            return "initiative-roll", {"front": front, "key": f.params.get("key")}
        if stage == "first":
            f.params["stage"] = "done"
            return "first-mover", {"front": front}
        return None


@implements("LGG 6-B")
class InitiativeRoll(Step):
    """LGG 6-B: each side rolls D12 + the initiative value of its chosen GHQ (automatic)."""

    name = "initiative-roll"
    title = "Initiative roll"
    rule = "LGG 6-B"

    def run(self, g: Game, f: Frame) -> None:
        front = f.params["front"]
        chosen = g.state.vars.get("choices", {}).get(f.params.get("key") or "", {})
        for _attempt in range(100):
            totals: dict[str, int] = {}
            for side in M.SIDES:
                cands = initiative_candidates(g, side, front)
                nation = chosen.get(side) or (cands[0] if cands else None)
                value = ghq_value(g, nation, "initiative") if nation else 0
                who = M.nation_name(g, nation) if nation else "no GHQ"
                r = g.roll(
                    "d12",
                    f"initiative on the {front} front: {side} ({who})",
                    "LGG 6-B",
                    modifiers=value,
                )
                totals[side] = r.modified
            win = initiative_winner(g, front, totals)
            if win is not None:
                break
            g.emit(
                "initiative-tie",
                f"tie on the {front} front with no previous holder: roll again",
                rule="LGG 6-B",
            )
        else:  # pragma: no cover - a hundred ties in a row
            win = M.SIDES[0]
        set_initiative(g, front, win)
        g.emit(
            "initiative",
            f"{win} holds the initiative on the {front} front",
            rule="LGG 6-B",
            front=front,
            side=win,
            totals=totals,
        )
        g.finish(f)


def set_initiative(g: Game, front: str, side: str) -> None:
    s = M.st(g)
    s.setdefault("initiative", {})[front] = side
    M.touch(g)


@implements("LGG 6-B")
class FirstMover(LggStep):
    """LGG 6-B: the side holding the initiative on a front decides who moves first there."""

    name = "first-mover"
    title = "Choice of the first mover"
    rule = "LGG 6-B"

    def label(self, g: Game, f: Frame) -> str:
        return f"First mover on the {f.params['front']} front"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [M.st(g)["initiative"][f.params["front"]]]

    @handles.options("first-mover")
    def first_mover_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "first-mover", "side": side, "first": s} for s in M.SIDES]

    @handles.check("first-mover")
    def check_first_mover(self, g: Game, f: Frame, action: Action) -> None:
        if action.get("first") not in M.SIDES:
            raise IllegalAction(
                self.rule, "choose which side moves first: first-mover with first = a side"
            )

    @handles.apply("first-mover")
    def apply_first_mover(self, g: Game, f: Frame, action: Action) -> None:
        front = f.params["front"]
        M.st(g).setdefault("first_mover", {})[front] = action["first"]
        M.touch(g)
        g.emit(
            "first-mover",
            f"{action['first']} moves first on the {front} front",
            rule=self.rule,
            front=front,
            first=action["first"],
        )
        g.finish(f)


STEPS: tuple[type[Step], ...] = (InitiativeFront, InitiativeRoll, FirstMover)
