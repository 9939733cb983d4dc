"""LGG 3: start of the Great Campaign - entry into the war, the pre-turn, the August 1914 turn,
and the August 1914 attack obligations of the war plans ([11.4-X]).

3-A: the entry-into-war booklet is not in the seed; a scenario lists the nations that join a
side in this special phase (``[[rules.entry_into_war]]``) and the engine applies the list.
3-B: the powers that receive a pre-turn activate the armies concerned (``pre_turn_armies``),
in a military phase of its own before August 1914. 3-C: in August 1914 the events and final
phases are skipped, the orders of battle arrive in the reinforcement phase, the initiative is
fixed (West: the Central Powers hold it, the Entente moves first; East: the Entente holds it,
the Central Powers move first), and the weather is fair in August and September 1914.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Step
from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.map.fronts import army_fronts, front_order
from grognard.rulesets.lgg1418.military import movement
from grognard.rulesets.lgg1418.units.counters import command_army

if TYPE_CHECKING:
    from grognard.core.game import Game

AUGUST_1914 = "1914-08"


def is_august_1914(g: Game) -> bool:
    return M.current_turn(g).id == AUGUST_1914


# ====================================================================== 3-A
@implements("LGG 3-A")
def apply_entry_into_war(g: Game) -> list[str]:
    """LGG 3-A: the nations listed by the scenario join their side; their territory becomes
    theirs."""
    joined = []
    for e in M.rules(g).entry_into_war:
        g.state.alignment[e.nation] = e.side
        for area in g.board.areas.values():
            if area.kind == "country" and str(area.attrs.get("nation", area.name)) == e.nation:
                for i in area.hexes.tolist():
                    if mapdata.controller(g, int(i)) is None:
                        g.state.control[int(i)] = e.side
        joined.append(e.nation)
        g.emit(
            "entry-into-war",
            f"{M.nation_name(g, e.nation)} enters the war with the {e.side}",
            rule="LGG 3-A",
            nation=e.nation,
            side=e.side,
        )
    M.touch(g)
    return joined


@implements("LGG 3-A")
class EntryIntoWar(Step):
    """LGG 3-A: the special phase of entry into the war (automatic, scenario list)."""

    name = "entry-into-war"
    title = "Entry into the war"
    rule = "LGG 3-A"

    def run(self, g: Game, f: Frame) -> None:
        apply_entry_into_war(g)
        g.finish(f)


# ====================================================================== 3-B
@implements("LGG 3-B")
class PreTurn(Step):
    """LGG 3-B: the pre-turn - each side with pre-turn armies activates them, one by one."""

    name = "pre-turn"
    title = "Pre-turn"
    rule = "LGG 3-B"
    composite = True

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        i = int(f.params.get("_i", 0))
        plan = []
        for side in M.SIDES:
            armies = [a for a in M.rules(g).pre_turn_armies if M.army_side(g, a) == side]
            if armies:
                plan.append(("side-turn", {"side": side, "front": None, "restrict": armies}))
        if i >= len(plan):
            return None
        f.params["_i"] = i + 1
        return plan[i]


# ====================================================================== 3-C
@implements("LGG 3-C")
def august_1914_initiative(g: Game) -> None:
    """LGG 3-C: August 1914 initiative and first movers, fixed per front."""
    table = M.data(g).powers["august_1914"]
    s = M.st(g)
    for front in M.rules(g).fronts:
        s.setdefault("initiative", {})[front] = table[front]["initiative"]
        s.setdefault("first_mover", {})[front] = table[front]["first"]
        g.emit(
            "initiative",
            f"{table[front]['initiative']} holds the initiative on the {front} front; "
            f"{table[front]['first']} moves first (August 1914)",
            rule="LGG 3-C",
            front=front,
        )
    M.touch(g)


@implements("LGG 6-B", "LGG 3-C", "LGG 7")
class InitiativeWeather(Step):
    """LGG 6-B / 3-C / 7: the initiative and weather phase (fixed in August 1914)."""

    name = "initiative-weather"
    title = "Initiative and weather phase"
    rule = "LGG 6-B"
    composite = True

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:

        plan: list[tuple[str, dict[str, Any]]] = []
        if not is_august_1914(g):
            plan = [("initiative-front", {"front": fr}) for fr in front_order(g)]
        plan.append(("weather", {}))
        i = int(f.params.get("_i", 0))
        if i == 0 and is_august_1914(g):
            august_1914_initiative(g)
        if i >= len(plan):
            return None
        f.params["_i"] = i + 1
        return plan[i]


# ====================================================================== [11.4-X]
@implements("LGG [11.4-X]")
def obligated_armies(g: Game, side: str) -> list[str]:
    """LGG [11.4-X]: the armies a war plan obliges to attack in August 1914 (scenario data)."""
    if not is_august_1914(g):
        return []
    out = []  # type: ignore[var-annotated]
    for nation, plan in M.rules(g).war_plans.items():
        if M.nation_side(g, nation) != side:
            continue
        out.extend(
            a for a in plan.must_attack if M.army_formed(g, a) and M.army_hq_hex(g, a) is not None
        )
    return sorted(out)


@implements("LGG [11.4-X]")
def unmet_attack_obligations(g: Game, side: str, front: str | None) -> list[str]:
    """LGG [11.4-X]: obliged armies on this front that have not been activated yet this turn."""

    out = []
    for a in obligated_armies(g, side):
        if front is not None and front not in army_fronts(g, a):
            continue
        if int(M.st(g).get("activated", {}).get(a, 0)) == 0:
            out.append(a)
    return out


@implements("LGG [11.4-X]")
def attack_obligation_problem(g: Game, act: dict[str, Any]) -> str | None:
    """LGG [11.4-X]: an obliged army attacks with all its stacks, seeking the enemy even out of
    reach: its movement may not end while one of its corps (reserves excepted), not already in
    contact with an enemy stack in its hex, could still step closer to the nearest enemy stack."""

    obliged = set(obligated_armies(g, act["side"])) & set(act["armies"])
    if not obliged:
        return None
    enemy = M.enemy_present_hexes(g, act["side"])
    if not enemy:
        return None
    for p in movement.movable_units(g, act):
        if not M.is_corps(p) or command_army(g, p) not in obliged:
            continue
        i = int(p.loc.ref)
        gap = min(g.board.distance(i, e) for e in enemy)
        for j in g.board.neighbors(i):
            if min(g.board.distance(j, e) for e in enemy) >= gap:
                continue
            try:
                movement.check_move(g, act, [p], j, "normal")
            except IllegalAction:
                continue
            return (
                f"{p.id} can still move toward the enemy (the war plan obliges its army to attack"
                " in August 1914)"
            )
    return None


STEPS: tuple[type[Step], ...] = (EntryIntoWar, PreTurn, InitiativeWeather)
