"""LGG 5: the reinforcement phase and recruit points (PR).

The phase (skipped on a scenario's first turn, 5; option ``first-turn-reinforcements``: on
that turn only the scheduled orders of battle are placed, 3-C) opens with the automatic
steps - PR flow (not in August 1914), scheduled arrivals and out-of-combat units to each
power's arrivals box, the moujiks due to Russia - then each side in turn does its
reinforcement work and ends it; at the end of the phase every PR stock is capped (5-C).

A side's work (one action each): place an arrival (5-A), restore a reduced corps with PR
(5-B), convert a unit into PR (5-D, also allowed during the side's activations), choose and
place or convert the moujiks (5-E), name a main army (5-F), send a unit to the GHQ reserve
(5-G), bring back a destroyed HQ or GHQ (5-H), attach or detach an un-numbered corps or
support unit to an army (2-B), and the HQ/decoy box actions (4-B).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import NOWHERE, Frame, Loc, Piece
from grognard.rulesets.lgg1418 import hooks, paths
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import knowledge, mapdata
from grognard.rulesets.lgg1418.map.fronts import fronts_of
from grognard.rulesets.lgg1418.military.movement import in_command_range
from grognard.rulesets.lgg1418.military.stacking import counts_for_stacking, stacking_limit
from grognard.rulesets.lgg1418.model import scenario_turns
from grognard.rulesets.lgg1418.supply import supply
from grognard.rulesets.lgg1418.supply.supply import hex_isolated_9h, is_isolated, is_supplied
from grognard.rulesets.lgg1418.units import fog
from grognard.rulesets.lgg1418.units.counters import command_army, is_army_own, stat, why_not_attach
from grognard.rulesets.lgg1418.units.elimination import eliminate, withdrawers

if TYPE_CHECKING:
    from grognard.core.game import Game

MOUJIK_DUE = "moujiks_due"


# ====================================================================== PR stock (5-B, 5-C)
def pr(g: Game, nation: str) -> dict[str, int]:
    """The PR record of a power, created when first written (use only while applying an action)."""
    return g.state.tracks.setdefault("pr", {}).setdefault(nation, {"stock": 0, "flow": 0})


def pr_stock(g: Game, nation: str) -> int:
    return int(g.state.tracks.get("pr", {}).get(nation, {}).get("stock", 0))


def pr_flow(g: Game, nation: str) -> int:
    return int(g.state.tracks.get("pr", {}).get(nation, {}).get("flow", 0))


def add_pr(g: Game, nation: str, amount: int, rule: str, reason: str) -> None:
    rec = pr(g, nation)
    rec["stock"] = int(rec["stock"]) + amount
    M.touch(g)
    side = M.nation_side(g, nation) or ""
    fog.emit_private(
        g,
        side,
        "pr",
        f"{M.nation_name(g, nation)} PR {amount:+d} ({reason}): stock {rec['stock']}",
        None,
        rule=rule,
    )


@implements("LGG 5-C")
def pr_cap(g: Game, nation: str) -> int:
    """LGG 5-C: the stock a country may carry over: twice its PR flow; in 1914 and 1915 the
    printed maxima (Germany 32, Austria 24, France 24, Russia 34, England 12, Italy 24,
    Turkey 20, minor countries 10), which replace the 2 x flow cap or apply with it
    (option ``pr-cap-1914-15``, digest A-5)."""
    rec = M.data(g).recruits
    twice = int(rec["carry_over_flows"]) * pr_flow(g, nation)
    if M.current_turn(g).year > 1915:
        return twice
    maxima = rec["stock_max_1914_1915"]
    cap = (
        int(maxima.get(nation, maxima["minor"])) if M.is_major(g, nation) else int(maxima["minor"])
    )
    if g.opt("pr-cap-1914-15") == "both":
        return min(cap, twice)
    return cap


@implements("LGG 5-C")
def apply_pr_caps(g: Game) -> None:
    """LGG 5-C: at the end of the reinforcement phase each stock is cut to its cap."""
    for nation in sorted(g.state.tracks.get("pr", {})):
        cap = pr_cap(g, nation)
        stock = pr_stock(g, nation)
        if stock > cap:
            pr(g, nation)["stock"] = cap
            M.touch(g)
            side = M.nation_side(g, nation) or ""
            fog.emit_private(
                g,
                side,
                "pr",
                f"{M.nation_name(g, nation)} PR stock cut from {stock} to {cap}",
                None,
                rule="LGG 5-C",
            )


@implements("LGG 5-B")
def restoration_budget(g: Game, nation: str) -> int:
    """LGG 5-B: half the PR stock, rounded up, may be spent on restorations per turn."""
    return math.ceil(pr_stock(g, nation) / 2)


def _rest(g: Game, nation: str) -> dict[str, Any]:
    """The restoration record of this reinforcement phase (read-only: created by
    :func:`open_restorations`)."""
    rec = M.st(g).get("restorations", {}).get(nation)
    if rec is None:
        return {"budget": restoration_budget(g, nation), "spent": 0, "slots": {}}
    return rec


def open_restorations(g: Game) -> None:
    """LGG 5-B: at the start of the phase each power's restoration budget is half its stock."""
    M.st(g)["restorations"] = {
        n: {"budget": restoration_budget(g, n), "spent": 0, "slots": {}}
        for n in sorted(g.state.tracks.get("pr", {}))
    }
    M.touch(g)


def _main_armies(g: Game) -> set[str]:
    return {a for fr in M.st(g).get("main_army", {}).values() for a in fr.values()}


@implements("LGG 5-B")
def restoration_slot(g: Game, p: Piece) -> tuple[str, int] | None:
    """LGG 5-B: which restoration allowance a corps uses (None when all are used up).

    Minor country: 4 corps per turn. Otherwise a garrison in its fortress (no limit), then 2
    units of an HQ's army (4 for a main army), 2 units of the GHQ reserve, then 2 anywhere.
    """
    rec = M.data(g).recruits
    slots = _rest(g, p.nation)["slots"]
    if not M.is_major(g, p.nation):
        cap = int(rec["minor_country_restorations"])
        return ("minor", cap) if slots.get("minor", 0) < cap else None
    if M.garrison_in_fortress(g, p):
        return ("garrison", 10**6)
    army = command_army(g, p)
    if army:
        cap = int(
            rec["main_army_restorations"] if army in _main_armies(g) else rec["hq_restorations"]
        )
        key = f"hq:{army}"
        if slots.get(key, 0) < cap:
            return (key, cap)
    c = M.carrier(g, p)
    if c is not None and c.type == "ghq" and M.in_reserve(p):
        cap = int(rec["ghq_restorations"])
        if slots.get("ghq", 0) < cap:
            return ("ghq", cap)
    cap = int(rec["anywhere_restorations"])
    return ("anywhere", cap) if slots.get("anywhere", 0) < cap else None


@implements("LGG 5-B")
def why_not_restore(g: Game, side: str, p: Piece) -> tuple[str, str] | None:
    """LGG 5-B: why a reduced corps may not be flipped back with PR now (rule id, reason)."""
    if p.side != side or not M.is_corps(p):
        return ("LGG 5-B", "only your own corps are restored")
    if p.face != "reduced" or "full" not in p.faces:
        return ("LGG 5-B", f"{p.id} is not a reduced corps")
    if M.hex_of(g, p) is None:
        return ("LGG 5-B", f"{p.id} is not in play on the map")
    if not supply.may_be_unisolated(g, p, "pr"):  # 4-A: from what the owner may know
        return ("LGG 5-B", "PR cannot be used for isolated corps")
    cost = restore_cost(g, p)
    rest = _rest(g, p.nation)
    if rest["spent"] + cost > rest["budget"]:
        return (
            "LGG 5-B",
            (
                f"{M.nation_name(g, p.nation)} may spend only {rest['budget']} PR on restorations"
                " this turn (half its stock, rounded up)"
            ),
        )
    if pr_stock(g, p.nation) < cost:
        return ("LGG 5-B", f"{M.nation_name(g, p.nation)} has no PR left")
    if restoration_slot(g, p) is None:
        return ("LGG 5-B", "every restoration allowance this unit could use is spent this turn")
    return None


def restore_cost(g: Game, p: Piece) -> int:
    """PR to restore a reduced corps (option ``pr-restore-cost``); a reduced assault corps costs 2
    PR and gets its Stosstruppen marker back to full (38-C)."""
    if p.attrs.get("assault"):
        return 2
    return int(g.opt("pr-restore-cost"))


def restore(g: Game, p: Piece) -> None:
    if is_isolated(g, p, "pr"):  # 4-A: accepted from what the owner knew; the true position bars it
        knowledge.remember_cut(g, p.side, [p.id], "isolation")
        knowledge.refuse_on_hidden_fact(
            g,
            p.side,
            f"{p.id} cannot be restored: it is isolated (an enemy marker on its "
            "supply line holds units)",
            f"{p.side} finds a supply line cut",
            "LGG 5-B",
        )
        return
    cost = restore_cost(g, p)
    if p.attrs.get("assault") == "reduced":
        M.set_attr(g, p, "assault", "full")
    slot = restoration_slot(g, p)
    assert slot is not None
    rest = M.st(g).setdefault("restorations", {}).setdefault(p.nation, _rest(g, p.nation))
    rest["spent"] += cost
    rest["slots"][slot[0]] = rest["slots"].get(slot[0], 0) + 1
    pr(g, p.nation)["stock"] = pr_stock(g, p.nation) - cost
    M.set_face(g, p, "full")
    fog.emit_private(
        g,
        p.side,
        "restore",
        f"{p.id} restored to full strength ({cost} PR, {slot[0]})",
        None,
        rule="LGG 5-B",
    )


# ====================================================================== conversions (5-D)
@implements("LGG 5-D")
def why_not_convert(g: Game, side: str, p: Piece, how: str) -> tuple[str, str] | None:
    """LGG 5-D: why ``p`` may not be reduced or eliminated for PR now (rule id, reason)."""
    if p.side != side or not M.is_corps(p):
        return ("LGG 5-D", "only your own corps are converted into PR")
    if how not in ("reduce", "eliminate"):
        return ("LGG 5-D", "a conversion reduces or eliminates a corps")
    if p.nation == "GB" and M.current_turn(g).year == 1914 and M.current_turn(g).months == (8,):
        return ("LGG 5-D", "England may not convert units in August 1914")
    out_of_combat = p.loc == Loc.box(M.OUT_OF_COMBAT)
    if M.hex_of(g, p) is None and not out_of_combat:
        return ("LGG 5-D", f"{p.id} is not in play")
    if not out_of_combat and not supply.may_be_supplied(g, p):  # 4-A: from what the owner may know
        return ("LGG 5-D", "the unit to be converted must be supplied")
    if how == "reduce":
        if p.face != "full" or "reduced" not in p.faces:
            return ("LGG 5-D", f"{p.id} is not an intact corps")
        return None
    if p.attrs.get("reduce_only"):
        return ("LGG 5-D", f"{p.id} may only be reduced, never eliminated, for PR")
    if M.is_garrison(p):
        return ("LGG 5-D", "a fortress garrison may not be destroyed this way")
    if not out_of_combat and not supply.may_be_unisolated(g, p, "pr"):
        return ("LGG 5-D", "an isolated corps may not be eliminated for PR")
    return None


@implements("LGG 5-D")
def conversion_gain(g: Game, p: Piece, how: str) -> int:
    """LGG 5-D: reducing an intact corps gives 1 PR; eliminating a corps 2 PR (1 if reduced)."""
    rec = M.data(g).recruits
    if how == "reduce":
        return int(rec["reduce_gain"])
    return int(rec["eliminate_reduced_gain"] if p.face == "reduced" else rec["eliminate_gain"])


def apply_conversion(g: Game, p: Piece, how: str) -> None:
    on_map = p.loc != Loc.box(M.OUT_OF_COMBAT)
    barred = None
    if on_map and not is_supplied(g, p):
        barred = ("supply", "it is out of supply")
    elif on_map and how == "eliminate" and is_isolated(g, p, "pr"):
        barred = ("isolation", "it is isolated")
    if barred:  # 4-A: accepted from what the owner knew; the true position bars it
        knowledge.remember_cut(g, p.side, [p.id], barred[0])
        knowledge.refuse_on_hidden_fact(
            g,
            p.side,
            f"{p.id} cannot be converted into PR: {barred[1]} (an enemy marker "
            "on its supply line holds units)",
            f"{p.side} finds a supply line cut",
            "LGG 5-D",
        )
        return
    gain = conversion_gain(g, p, how)
    h = M.hex_of(g, p) if on_map else None
    if how == "reduce":
        M.set_face(g, p, "reduced")
    else:
        eliminate(g, p, "converted into PR", "LGG 5-D")
    add_pr(g, p.nation, gain, "LGG 5-D", f"{p.id} {'reduced' if how == 'reduce' else 'eliminated'}")
    if how == "eliminate" and h is not None:
        left_alone_with_enemy(g, p.side, h)


@implements("LGG 13-A", "LGG 5-D")
def left_alone_with_enemy(g: Game, side: str, h: int) -> None:
    """LGG 13-A / 5-D: a conversion (allowed at any moment of the turn) that takes the last corps
    out of a hex the enemy also holds leaves its HQ, GHQ or decoy caught alone there: they must
    withdraw one hex as in 13-A (not while a battle is being fought there: the battle decides)."""
    if h not in M.enemy_present_hexes(g, side) or any(
        f.step.startswith("battle") for f in g.state.frames
    ):
        return
    withdraw = withdrawers(g, side, h)
    if not withdraw:
        return
    lab = g.board.label(h)
    act = M.st(g).get("activation") or {}
    g.emit(
        "reveal",
        f"the {side} stack at {lab} holds no corps any more: its headquarters must withdraw",
        rule="LGG 13-A",
        reveal=True,
        hex=lab,
    )
    g.push(
        "forced-withdrawal",
        {
            "side": side,
            "hex": lab,
            "pieces": [q.id for q in withdraw],
            "mover": M.other_side(side),
            "activation": int(act.get("serial", 0)),
            "rule": "LGG 13-A",
        },
    )


def conversion_actions(g: Game, side: str) -> list[Action]:
    out: list[Action] = []
    for p in sorted(M.iter_units(g, side), key=lambda p: p.id):
        if not M.is_corps(p):
            continue
        for how in ("reduce", "eliminate"):
            if why_not_convert(g, side, p, how) is None:
                out.append({"type": "convert-pr", "side": side, "unit": p.id, "how": how})
    return out


def check_conversion(g: Game, action: Action) -> Piece:
    p = g.state.pieces.get(str(action.get("unit", "")))
    if p is None:
        raise IllegalAction("LGG 5-D", f"you have no unit {action.get('unit')!r}")
    why = why_not_convert(g, action["side"], p, str(action.get("how")))
    if why:
        raise IllegalAction(*why)
    return p


# ====================================================================== eliminated units (5-I)
@implements("LGG 5-I")
def can_be_rebuilt(g: Game, p: Piece) -> bool:
    """LGG 5-I: a destroyed unit may be rebuilt at an interphase, except an eliminated fortress, a
    sunk naval unit, and units the player aids bar from a given winter on (``no_rebuild_from``);
    a garrison may be rebuilt once its fortress is destroyed (23-B, option ``garrison-rebuild``)."""
    if p.type == "fortress" or p.attrs.get("naval"):
        return False
    bar = p.attrs.get("no_rebuild_from")
    if bar and M.turn_at_or_after(g, str(bar)):
        return False
    if M.is_garrison(p):
        fort = g.state.pieces.get(str(p.attrs["garrison"]))
        if fort is not None and fort.loc.kind == "hex":
            return True
        return bool(g.opt("garrison-rebuild"))
    return True


# ====================================================================== placement (5-A)
def _stack_after(g: Game, side: str, i: int, p: Piece) -> str | None:
    """Stacking after placing ``p`` in hex ``i`` (10-A)."""
    units = [q for q in M.units_at_hex(g, i, side)]
    corps = sum(1 for q in units if counts_for_stacking(g, q)) + (1 if M.is_corps(p) else 0)
    if corps > stacking_limit(g, i):
        return "the stacking limit would be exceeded"
    armies = {a for q in units if (a := command_army(g, q))}
    mine = command_army(g, p)
    if mine:
        armies.add(mine)
    if len(armies) > 1:
        return "units of different armies may not stack"
    if p.type == "hq" and any(q.type == "hq" for q in units):
        return "two HQs may not stack"
    if p.type == "ghq" and any(q.type == "ghq" for q in units):
        return "two GHQs may not stack"
    return None


def _national_cities(g: Game, side: str, nation: str) -> list[int]:
    out = []
    for i in g.board.points:
        if not mapdata.is_city(g, i) or mapdata.place_nation(g, i) != nation:
            continue
        if mapdata.controller(g, i) != side or i in M.enemy_present_hexes(g, side):
            continue
        if hex_isolated_9h(g, side, i):
            continue
        out.append(i)
    return sorted(out)


@implements("LGG 5-A")
def arrival_cities(g: Game, p: Piece) -> list[int]:
    """LGG 5-A: the cities where an arrival may be placed.

    A non-isolated national city; a unit due at a given city goes there, or, if the enemy
    took it, to the nearest national city; Belgian and Swiss units whose cities are all taken
    come back in the nearest French city.
    """
    side = p.side
    cities = _national_cities(g, side, p.nation)
    if not cities and p.nation in ("BE", "CH"):
        cities = _national_cities(g, side, "FR")
    due = p.attrs.get("arrive_at")
    if due and g.board.has_label(str(due)):
        d = g.board.idx(str(due))
        if d in cities:
            return [d]
        if cities:
            best = min(g.board.distance(d, c) for c in cities)
            return [c for c in cities if g.board.distance(d, c) == best]
    return cities


@implements("LGG 5-A")
def placement_targets(g: Game, p: Piece) -> list[dict[str, str]]:
    """LGG 5-A: where an arrival may be placed (``{"at": hex}`` or ``{"reserve": HQ/GHQ id}``),
    stacking respected.

    An army's own unit goes with its HQ (its hex or its reserve). Another unit may go into an
    army stack of its nation (from 1915 the stack must be supplied and commanded), into a
    non-isolated national city, or into the reserve of an HQ of its nation or its national GHQ.
    A foreign corps of a mixed army back from "out of combat" may rejoin that army directly.
    A unit the order of battle sends to a given city arrives there (diverted when it is taken).
    Moujiks go with a supplied Russian HQ or into a Russian city (5-E).
    """
    side = p.side
    out: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()

    def add(kind: str, ref: str) -> None:
        if (kind, ref) not in seen:
            seen.add((kind, ref))
            out.append({kind: ref})

    if p.attrs.get("arrive_at") and p.type != "ghq":
        for i in arrival_cities(g, p):
            if _stack_after(g, side, i, p) is None:
                add("at", g.board.label(i))
        return out
    own = M.army_number(g, p)
    back_to = p.attrs.get("return_to_army")
    for army in [a for a in (own, back_to) if a]:
        hq = M.hq_piece(g, army)
        h = M.hex_of(g, hq) if hq else None
        if hq is None or h is None:
            continue
        if _stack_after(g, side, h, p) is None:
            add("at", g.board.label(h))
        if _reserve_room(g, hq):
            add("reserve", hq.id)
    if own:
        return out
    if p.attrs.get("moujik"):
        for hq in sorted(g.state.of_side(side), key=lambda q: q.id):
            if hq.type == "hq" and hq.nation == "RU" and M.on_map(g, hq) and is_supplied(g, hq):
                h = M.hex_of(g, hq)
                assert h is not None
                if _stack_after(g, side, h, p) is None:
                    add("at", g.board.label(h))
        for i in _national_cities(g, side, "RU"):
            if _stack_after(g, side, i, p) is None:
                add("at", g.board.label(i))
        return out
    from1915 = M.current_turn(g).year >= 1915
    for army in sorted(M.armies_of(g, side)):
        if M.army_nation(g, army) != p.nation or not M.army_formed(g, army):
            continue
        hq = M.hq_piece(g, army)
        if hq is None or not M.on_map(g, hq):
            continue
        for i, plist in sorted(M.occupied(g, side).items()):
            stack = [
                q
                for q in plist
                if M.is_unit(q) and not M.in_reserve(q) and command_army(g, q) == army
            ]
            if not stack:
                continue
            if from1915 and (
                not all(is_supplied(g, q) for q in stack) or not in_command_range(g, army, i)
            ):
                continue
            if _stack_after(g, side, i, p) is None:
                add("at", g.board.label(i))
        if _reserve_room(g, hq) and p.type != "ghq":
            add("reserve", hq.id)
    for i in arrival_cities(g, p):
        if _stack_after(g, side, i, p) is None:
            add("at", g.board.label(i))
    ghq = M.ghq_piece(g, p.nation)
    if (
        ghq is not None
        and M.on_map(g, ghq)
        and p.type not in ("hq", "ghq")
        and _reserve_room(g, ghq)
    ):
        add("reserve", ghq.id)
    if p.type in ("hq", "ghq"):
        out = [t for t in out if "at" in t]
    return out


def _reserve_room(g: Game, holder: Piece) -> bool:
    cap = stat(g, holder, "reserve_capacity")
    inside = [q for q in g.state.contents(holder.id) if M.in_reserve(q) and M.is_unit(q)]
    return len(inside) < int(cap or 0)


def place(g: Game, p: Piece, target: dict[str, str]) -> None:
    if "at" in target:
        M.move_piece(g, p, Loc.hex(g.board.idx(target["at"])))
        M.set_status(g, p, M.RESERVE, False)
        where = target["at"]
    else:
        M.move_piece(g, p, Loc.inside(target["reserve"]))
        M.set_status(g, p, M.RESERVE, True)
        where = f"the reserve of {target['reserve']}"
    M.set_attr(g, p, "arrive_at", None)
    M.set_attr(g, p, "return_to_army", None)
    fog.emit_private(
        g,
        p.side,
        "reinforcement",
        f"{p.id} arrives at {where}",
        f"{p.side} places reinforcements",
        rule="LGG 5-A",
    )


def arrivals(g: Game, side: str) -> list[Piece]:
    out = []
    for nation in M.powers_of(g, side):
        out.extend(g.state.at(Loc.box(M.arrivals_box(nation))))
    return sorted(out, key=lambda p: p.id)


# ====================================================================== moujiks (5-E)
@implements("LGG 5-E")
def moujiks_due(g: Game) -> bool:
    """LGG 5-E: from October 1914 Russia receives moujiks each turn (if Russia is at war)."""
    rec = M.data(g).recruits
    return (
        M.nation_side(g, "RU") is not None
        and M.turn_at_or_after(g, str(rec["moujiks_from"]))
        and not M.current_turn(g).pre_turn
    )


@implements("LGG 5-E")
def create_moujiks(g: Game, choice: str) -> list[Piece]:
    """LGG 5-E: 2 mobilised infantry 2.3.3 or 1 Cossack cavalry 2-3-6, into Russia's arrivals
    box."""
    spec = M.data(g).recruits["moujiks"][choice]
    side = M.nation_side(g, "RU")
    assert side is not None
    made = []
    for _ in range(int(spec["count"])):
        n = int(M.st(g).get("new_pieces", 0)) + 1
        M.st(g)["new_pieces"] = n
        p = Piece(
            id=f"RU-moujik-{n}",
            type="corps",
            side=side,
            nation="RU",
            face="full",
            loc=NOWHERE,
            attrs={
                "arm": spec["arm"],
                "morale": spec["morale"],
                "code": spec["code"],
                "moujik": True,
            },
            faces={"full": dict(spec["full"]), "reduced": dict(spec["reduced"])},
            name=f"Moujiks {n}",
        )
        g.state.add_piece(p)
        M.move_piece(g, p, Loc.box(M.arrivals_box("RU")))
        made.append(p)
    fog.emit_private(
        g,
        side,
        "moujiks",
        f"Russia receives {spec['title']}",
        "Russia receives its moujiks",
        rule="LGG 5-E",
    )
    return made


# ==================================================== main army (5-F), GHQ reserve (5-G), HQs (5-H)
@implements("LGG 5-F")
def why_not_main_army(g: Game, side: str, front: str, army: str) -> str | None:
    """LGG 5-F: one main army per side and front; on the East the change is allowed only from
    October 1914."""
    if army not in M.army_defs(g) or M.army_side(g, army) != side or not M.army_formed(g, army):
        return f"{army} is not one of your armies in play"
    if front not in M.rules(g).fronts:
        return f"the {front} front is not in play"
    if M.main_army(g, side, front) == army:
        return f"{army} is already the main army on the {front} front"
    h = M.army_hq_hex(g, army)
    if h is None or front not in fronts_of(g, h):
        return f"{army}'s HQ is not on the {front} front"
    if front == M.EAST and not M.turn_at_or_after(g, "1914-10"):
        return "on the Eastern Front the main army may change only from October 1914"
    return None


@implements("LGG 5-F")
def set_main_army(g: Game, side: str, front: str, army: str, rule: str = "LGG 5-F") -> None:
    """LGG 5-F: name the main army; the former one's status is corrected at its next activation."""
    s = M.st(g)
    old = s.setdefault("main_army", {}).setdefault(side, {}).get(front)
    s["main_army"][side][front] = army
    if old and old != army:
        s.setdefault("main_army_stale", []).append(old)
    M.touch(g)
    g.emit(
        "main-army",
        f"{side}: {army} is the main army on the {front} front",
        rule=rule,
        side=side,
        front=front,
        army=army,
    )


def _land_connected(g: Game, a: int, b: int) -> bool:

    def step(u: int) -> list[int]:
        return [
            j
            for j in g.board.neighbors(u)
            if not mapdata.hex_impassable(g, j)
            and not mapdata.is_neutral_hex(g, j)
            and not mapdata.hexside_impassable(g, u, j)
        ]

    if a == b:
        return True
    comp = _land_components(g, step)
    if a in comp:
        return comp.get(b) == comp[a]
    return b in paths.bfs([a], step)


def _land_components(g: Game, step: Any) -> dict[int, int]:
    """Passable hex -> its piece of land (the steps depend only on the weather and on who is
    neutral, so the pieces are computed once per board, weather and alignment)."""

    key = (
        "land-components",
        tuple(sorted(M.st(g).get("weather", {}).items())),
        tuple(sorted(g.state.alignment.items())),
    )
    cache = mapdata.static(g)
    comp: dict[int, int] | None = cache.get(key)  # type: ignore[call-overload]
    if comp is None:
        comp = {}
        for start in range(g.board.n):
            if (
                start in comp
                or mapdata.hex_impassable(g, start)
                or mapdata.is_neutral_hex(g, start)
            ):
                continue
            for h in paths.bfs([start], step):
                comp[h] = start
        cache[key] = comp  # type: ignore[index]
    return comp


@implements("LGG 5-G")
def why_not_ghq_reserve(g: Game, side: str, p: Piece) -> str | None:
    """LGG 5-G: a unit may join its nation's GHQ reserve from anywhere if it is on the GHQ's front
    with a passable land connection, not beyond an outer hex, supplied, and not an army's own."""
    if p.side != side or not M.is_unit(p) or p.type in ("hq", "ghq"):
        return "only your own units join a GHQ reserve"
    ghq = M.ghq_piece(g, p.nation)
    if ghq is None or not M.on_map(g, ghq):
        return (
            f"{M.nation_name(g, p.nation)} has no GHQ on the map (same nationality as the GHQ"
            " required)"
        )
    c = M.carrier(g, p)
    if c is not None and c.id == ghq.id and M.in_reserve(p):
        return f"{p.id} is already in the GHQ reserve"
    if is_army_own(g, p):
        return "no army's own unit may go to the GHQ reserve"
    h, gh = M.hex_of(g, p), M.hex_of(g, ghq)
    if h is None or gh is None:
        return f"{p.id} is not on the map"
    if mapdata.is_outer_hex(g, h):
        return "a unit beyond an outer hex may not join the GHQ reserve"
    if not set(fronts_of(g, h)) & set(fronts_of(g, gh)):
        return "the unit must be on the same front as the GHQ"
    if not _land_connected(g, h, gh):
        return "the unit needs a passable land connection to the GHQ"
    if not is_supplied(g, p):
        return "the unit must be supplied"
    if not _reserve_room(g, ghq):
        return "the GHQ reserve is full"
    return None


@implements("LGG 5-H")
def hqs_due_back(g: Game, side: str) -> list[Piece]:
    out = []
    for pid, t in sorted(M.st(g).get("destroyed_hq", {}).items()):
        p = g.state.pieces.get(pid)
        if (
            p is not None
            and p.side == side
            and p.loc == Loc.box(M.DESTROYED_HQ)
            and int(t) < M.turn_index(g)
        ):
            out.append(p)
    return out


@implements("LGG 5-H")
def hq_return_spots(g: Game, hq: Piece) -> list[int]:
    """LGG 5-H: a destroyed HQ comes back with a unit of its army, or failing that in a national
    city; a destroyed GHQ in a national city."""
    side = hq.side
    spots: list[int] = []
    if hq.type == "hq":
        army = str(hq.attrs.get("army"))
        for i, plist in sorted(M.occupied(g, side).items()):
            mine = any(
                M.is_unit(q) and not M.in_reserve(q) and command_army(g, q) == army for q in plist
            )
            if mine and _stack_after(g, side, i, hq) is None:
                spots.append(i)
        if spots:
            return spots
    return [i for i in _national_cities(g, side, hq.nation) if _stack_after(g, side, i, hq) is None]


# ====================================================================== steps
def schedule_matches(g: Game, when: int | str, t: Any) -> bool:
    """A schedule entry's turn: a calendar id or label, or a 1-based position on the scenario's
    turns."""
    if isinstance(when, int):
        turns = scenario_turns(g)
        return 1 <= when <= len(turns) and turns[when - 1].id == t.id
    return when in (t.id, t.label)


def _mode(g: Game) -> str:
    if M.is_first_turn(g):
        return "none" if g.opt("first-turn-reinforcements") == "none" else "scheduled"
    return "full"


@implements("LGG 5", "LGG 5-A", "LGG 3-C")
class ReinforcementPhase(Step):
    """LGG 5 / 5-A / 3-C: the reinforcement phase (automatic start, each side's work, PR caps)."""

    name = "reinforcement-phase"
    title = "Reinforcement phase"
    rule = "LGG 5"
    composite = True

    def enter(self, g: Game, f: Frame) -> None:
        mode = _mode(g)
        f.params["mode"] = mode
        if mode == "none":
            g.emit("phase", "reinforcement phase skipped on the first turn", rule="LGG 5")
            return
        t = M.current_turn(g)
        if mode == "full" and not (t.year == 1914 and t.months == (8,)):
            for nation in sorted(g.state.tracks.get("pr", {})):
                flow = int(pr(g, nation)["flow"])
                if flow:
                    add_pr(g, nation, flow, "LGG 5-B", "PR flow")
        self._arrivals(g)
        if mode == "full":
            for q in list(g.state.at(Loc.box(M.OUT_OF_COMBAT))):
                M.move_piece(g, q, Loc.box(M.arrivals_box(q.nation)))
            open_restorations(g)
            M.st(g)[MOUJIK_DUE] = moujiks_due(g)

    def _arrivals(self, g: Game) -> None:
        t = M.current_turn(g)
        for e in g.scenario.data.schedule:
            if e.kind != "reinforcement" or not schedule_matches(g, e.turn, t):
                continue
            for pid in e.pieces:
                p = g.state.pieces[pid]
                if p.loc.kind != "none":
                    continue
                M.move_piece(g, p, Loc.box(M.arrivals_box(p.nation)))
                if e.at:
                    M.set_attr(g, p, "arrive_at", e.at)
            if e.pieces:
                side = g.state.pieces[e.pieces[0]].side
                fog.emit_private(
                    g,
                    side,
                    "arrivals",
                    f"reinforcements due: {', '.join(e.pieces)}",
                    f"{side} receives reinforcements",
                    rule="LGG 5-A",
                )

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        if f.params["mode"] == "none":
            return None
        i = int(f.params.get("_i", 0))
        extra = (
            list(hooks.extensions(g).reinforcement_hooks()) if f.params["mode"] == "full" else []
        )
        if i >= len(M.SIDES) + len(extra):
            return None
        f.params["_i"] = i + 1
        if i >= len(M.SIDES):
            return extra[i - len(M.SIDES)], {}
        return "reinforcement-side", {"side": M.SIDES[i], "mode": f.params["mode"]}

    def leave(self, g: Game, f: Frame) -> None:
        if f.params.get("mode") == "full":
            apply_pr_caps(g)


@implements("LGG 5-A", "LGG 5-B", "LGG 5-D", "LGG 5-E", "LGG 5-F", "LGG 5-G", "LGG 5-H", "LGG 2-B")
class ReinforcementSide(hooks.ReinforcementActions, fog.BoxActions):
    """LGG 5-A..5-H / 2-B: one side's reinforcement work, one action at a time, until it ends."""

    name = "reinforcement-side"
    title = "Reinforcements"
    rule = "LGG 5"

    def label(self, g: Game, f: Frame) -> str:
        return f"Reinforcements: {f.params['side']}"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    # ---------------------------------------------------------------- listing
    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return M.memo(g, f"reinf-actions:{side}:{f.params['mode']}", lambda: self._list(g, f, side))

    def _list(self, g: Game, f: Frame, side: str) -> list[Action]:
        full = f.params["mode"] == "full"
        out: list[Action] = []
        if full and self._moujik_choice_pending(g, side):
            return [{"type": "moujiks", "side": side, "choice": c} for c in ("infantry", "cossack")]
        for p in arrivals(g, side):
            if p.attrs.get("moujik") and full:
                out.append({"type": "moujik-pr", "side": side, "unit": p.id})
            for t in placement_targets(g, p):
                out.append({"type": "place", "side": side, "unit": p.id, **t})
        if full:
            for hq in hqs_due_back(g, side):
                for i in hq_return_spots(g, hq):
                    out.append(
                        {"type": "return-hq", "side": side, "hq": hq.id, "at": g.board.label(i)}
                    )
            for p in sorted(M.iter_units(g, side), key=lambda p: p.id):
                if M.is_corps(p) and p.face == "reduced" and why_not_restore(g, side, p) is None:
                    out.append({"type": "restore", "side": side, "unit": p.id})
                if M.on_map(g, p) and why_not_ghq_reserve(g, side, p) is None:
                    out.append({"type": "to-ghq-reserve", "side": side, "unit": p.id})
                if (
                    p.type in ("corps", "artillery", "tank")
                    and not M.is_garrison(p)
                    and not M.army_number(g, p)
                ):
                    if p.attrs.get("attached"):
                        out.append({"type": "detach", "side": side, "unit": p.id})
                    for a in sorted(M.armies_of(g, side)):
                        if why_not_attach(g, p, a) is None:
                            out.append({"type": "attach", "side": side, "unit": p.id, "army": a})
            out.extend(conversion_actions(g, side))
            for front in M.rules(g).fronts:
                for a in sorted(M.armies_of(g, side)):
                    if why_not_main_army(g, side, front, a) is None:
                        out.append({"type": "main-army", "side": side, "front": front, "army": a})
            out.extend(fog.box_actions(g, side))
            out.extend(super().legal_actions(g, f, side))  # the handlers of later rules
        if self._pending(g, side, full) is None:
            out.append({"type": "end-reinforcement", "side": side})
        return out

    def _moujik_choice_pending(self, g: Game, side: str) -> bool:
        return bool(M.st(g).get(MOUJIK_DUE)) and M.nation_side(g, "RU") == side

    def _pending(self, g: Game, side: str, full: bool) -> str | None:
        if full and self._moujik_choice_pending(g, side):
            return "Russia must first choose its moujiks (LGG 5-E)"
        for p in arrivals(g, side):
            if placement_targets(g, p):
                return f"{p.id} must still be placed (LGG 5-A)"
        if full:
            for hq in hqs_due_back(g, side):
                if hq_return_spots(g, hq):
                    return f"{hq.id} must come back into play (LGG 5-H)"
        return None

    # ---------------------------------------------------------------- checking
    def _moujiks_first(self, g: Game, f: Frame, side: str) -> None:
        if f.params["mode"] == "full" and self._moujik_choice_pending(g, side):
            raise IllegalAction(
                "LGG 5-E",
                "Russia must first choose its moujiks: 2 infantry 2.3.3 or 1 Cossack 2-3-6",
            )

    def _need_full(self, f: Frame) -> None:
        if f.params["mode"] != "full":
            raise IllegalAction(
                "LGG 5", "on the first turn only the scheduled reinforcements are placed"
            )

    def check_phase(self, g: Game, f: Frame, action: Action) -> None:
        self._moujiks_first(g, f, action["side"])
        self._need_full(f)

    @handles.check("end-reinforcement")
    def check_end(self, g: Game, f: Frame, action: Action) -> None:
        self._moujiks_first(g, f, action["side"])
        why = self._pending(g, action["side"], f.params["mode"] == "full")
        if why:
            raise IllegalAction("LGG 5-A", f"the reinforcement phase cannot end yet: {why}")

    @handles.check("place")
    def check_place(self, g: Game, f: Frame, action: Action) -> None:
        self._moujiks_first(g, f, action["side"])
        p = self._own(g, action["side"], action, "LGG 5-A")
        if p.loc.kind != "box" or not str(p.loc.ref).startswith("lgg:arrivals:"):
            raise IllegalAction("LGG 5-A", f"{p.id} is not waiting to be placed")
        target = {k: action[k] for k in ("at", "reserve") if k in action}
        if len(target) != 1 or target not in placement_targets(g, p):
            raise IllegalAction(
                "LGG 5-A",
                f"{p.id} may not be placed there (an army stack of its nation, a "
                "non-isolated national city or an HQ/GHQ reserve, its own army's units with "
                "their HQ, stacking respected)",
            )

    @handles.check("moujiks")
    def check_moujiks(self, g: Game, f: Frame, action: Action) -> None:
        self._need_full(f)
        if not self._moujik_choice_pending(g, action["side"]):
            raise IllegalAction("LGG 5-E", "no moujiks are due")
        if action.get("choice") not in ("infantry", "cossack"):
            raise IllegalAction("LGG 5-E", "choose infantry (2 x 2.3.3) or cossack (1 x 2-3-6)")

    @handles.check("moujik-pr")
    def check_moujik_pr(self, g: Game, f: Frame, action: Action) -> None:
        self.check_phase(g, f, action)
        p = self._own(g, action["side"], action, "LGG 5-E")
        if not p.attrs.get("moujik") or p.loc.kind != "box":
            raise IllegalAction("LGG 5-E", f"{p.id} is not a moujik unit waiting to be placed")

    @handles.check("restore")
    def check_restore(self, g: Game, f: Frame, action: Action) -> None:
        self.check_phase(g, f, action)
        p = self._own(g, action["side"], action, "LGG 5-B")
        why = why_not_restore(g, action["side"], p)
        if why:
            raise IllegalAction(*why)

    @handles.check("convert-pr")
    def check_convert_pr(self, g: Game, f: Frame, action: Action) -> None:
        self.check_phase(g, f, action)
        check_conversion(g, action)

    @handles.check("main-army")
    def check_main_army(self, g: Game, f: Frame, action: Action) -> None:
        self.check_phase(g, f, action)
        side = action["side"]
        why = why_not_main_army(g, side, str(action.get("front")), str(action.get("army")))
        if why:
            raise IllegalAction("LGG 5-F", why)

    @handles.check("to-ghq-reserve")
    def check_to_ghq_reserve(self, g: Game, f: Frame, action: Action) -> None:
        self.check_phase(g, f, action)
        p = self._own(g, action["side"], action, "LGG 5-G")
        why = why_not_ghq_reserve(g, action["side"], p)
        if why:
            raise IllegalAction("LGG 5-G", why)

    @handles.check("return-hq")
    def check_return_hq(self, g: Game, f: Frame, action: Action) -> None:
        self.check_phase(g, f, action)
        side = action["side"]
        hq = self._own(g, side, action, "LGG 5-H", key="hq")
        if hq not in hqs_due_back(g, side):
            raise IllegalAction("LGG 5-H", f"{hq.id} is not due back this turn")
        at = str(action.get("at", ""))
        if not g.board.has_label(at) or g.board.idx(at) not in hq_return_spots(g, hq):
            raise IllegalAction(
                "LGG 5-H",
                "a destroyed HQ returns with a unit of its army, failing that in a "
                "national city (a GHQ in a national city)",
            )

    @handles.check("attach")
    def check_attach(self, g: Game, f: Frame, action: Action) -> None:
        self.check_phase(g, f, action)
        p = self._own(g, action["side"], action, "LGG 2-B")
        why = why_not_attach(g, p, str(action.get("army")))
        if why:
            raise IllegalAction("LGG 10-C" if "integrate" in why else "LGG 2-B", why)

    @handles.check("detach")
    def check_detach(self, g: Game, f: Frame, action: Action) -> None:
        self.check_phase(g, f, action)
        p = self._own(g, action["side"], action, "LGG 2-B")
        if not p.attrs.get("attached"):
            raise IllegalAction("LGG 2-B", f"{p.id} is not attached to an army")

    def box_check(self, g: Game, f: Frame, action: Action) -> None:
        self.check_phase(g, f, action)

    def _own(self, g: Game, side: str, action: Action, rule: str, key: str = "unit") -> Piece:
        p = g.state.pieces.get(str(action.get(key, "")))
        if p is None or p.side != side:
            raise IllegalAction(rule, f"you have no unit {action.get(key)!r}")
        return p

    # ---------------------------------------------------------------- applying
    @handles.apply("end-reinforcement")
    def apply_end(self, g: Game, f: Frame, action: Action) -> None:
        g.emit("phase", f"{action['side']} ends its reinforcement phase", rule="LGG 5")
        g.finish(f)

    @handles.apply("place")
    def apply_place(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["unit"]]
        place(g, p, {k: action[k] for k in ("at", "reserve") if k in action})

    @handles.apply("moujiks")
    def apply_moujiks(self, g: Game, f: Frame, action: Action) -> None:
        M.st(g)[MOUJIK_DUE] = False
        create_moujiks(g, action["choice"])

    @handles.apply("moujik-pr")
    def apply_moujik_pr(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["unit"]]
        eliminate(g, p, "converted into PR", "LGG 5-E")
        add_pr(
            g,
            "RU",
            int(M.data(g).recruits["moujik_conversion"]),
            "LGG 5-E",
            f"{p.id} converted",
        )

    @handles.apply("restore")
    def apply_restore(self, g: Game, f: Frame, action: Action) -> None:
        restore(g, g.state.pieces[action["unit"]])

    @handles.apply("convert-pr")
    def apply_convert_pr(self, g: Game, f: Frame, action: Action) -> None:
        apply_conversion(g, g.state.pieces[action["unit"]], action["how"])

    @handles.apply("main-army")
    def apply_main_army(self, g: Game, f: Frame, action: Action) -> None:
        set_main_army(g, action["side"], action["front"], action["army"])

    @handles.apply("to-ghq-reserve")
    def apply_to_ghq_reserve(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["unit"]]
        ghq = M.ghq_piece(g, p.nation)
        assert ghq is not None
        M.move_piece(g, p, Loc.inside(ghq.id))
        M.set_status(g, p, M.RESERVE, True)
        M.set_attr(g, p, "attached", None)
        fog.emit_private(
            g,
            action["side"],
            "ghq-reserve",
            f"{p.id} joins the {ghq.id} reserve",
            None,
            rule="LGG 5-G",
        )

    @handles.apply("return-hq")
    def apply_return_hq(self, g: Game, f: Frame, action: Action) -> None:
        hq = g.state.pieces[action["hq"]]
        M.move_piece(g, hq, Loc.hex(g.board.idx(action["at"])))
        M.st(g)["destroyed_hq"].pop(hq.id, None)
        M.touch(g)
        fog.emit_private(
            g,
            action["side"],
            "hq-return",
            f"{hq.id} returns at {action['at']}",
            f"an {action['side']} headquarters returns",
            rule="LGG 5-H",
        )

    @handles.apply("attach")
    def apply_attach(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["unit"]]
        M.set_attr(g, p, "attached", action["army"])
        fog.emit_private(
            g,
            action["side"],
            "attach",
            f"{p.id} attached to army {action['army']}",
            None,
            rule="LGG 2-B",
        )

    @handles.apply("detach")
    def apply_detach(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["unit"]]
        M.set_attr(g, p, "attached", None)
        fog.emit_private(
            g, action["side"], "attach", f"{p.id} detached from its army", None, rule="LGG 2-B"
        )


STEPS: tuple[type[Step], ...] = (ReinforcementPhase,)
"""The reinforcement steps; :class:`ReinforcementSide` is listed by the rule system combined
with the actions of later rules (:class:`.ruleset.ReinforcementSide`)."""
