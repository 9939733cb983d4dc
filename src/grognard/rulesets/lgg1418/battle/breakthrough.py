"""LGG 17: breakthrough - after a victorious battle, the HQ reserve pushes on.

17 / 17.1: breakthroughs come after all the activation's battles and retreats, from the
conquered hex (never from a hex with an enemy fortress, even taken; a battle born of a
breakthrough never makes another), with the units of the HQ reserve within the HQ's
intervention distance (its ``central`` value). 17.2 (Movement Doctrine): flank breakthrough
(attack a front hex next to one of the attacker's starting hexes and to the conquered hex,
+1 to the attack, artillery reused) and deep breakthrough (advance into or attack a hex
beyond the conquered hex; cavalry 2 hexes in fair weather - Russians also in snow - when the
first hex is plains; artillery not reused); enemy interception and reinforcement (17.2-B,
through the hooks); enemy flight (17.2-C); from an empty hex (17.2-D). 17.3 (Fire Doctrine):
the general's Breakthrough value tested after a bombardment (17.3-A), limited (17.3-B) or major
(17.3-C) breakthroughs, the French level-3 trench block, enemy flight with a provisional +1
trench (17.3-D), breakthrough units' flexible ZoC and provisional trenches (17.3-E), from an
empty hex (17.3-F).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle import battle_retreat
from grognard.rulesets.lgg1418.battle.base import piece, rec_of, say
from grognard.rulesets.lgg1418.map import knowledge, mapdata
from grognard.rulesets.lgg1418.map.fronts import sectors_of
from grognard.rulesets.lgg1418.map.zoc import zoc_map
from grognard.rulesets.lgg1418.military import movement, secondary, trench
from grognard.rulesets.lgg1418.military.interception import offer_interception
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.supply.supply import is_isolated, is_supplied
from grognard.rulesets.lgg1418.units import fog
from grognard.rulesets.lgg1418.units.counters import army_general, command_army, stat

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.lgg1418.battle.base import BattleRecord

PROVISIONAL_TRENCH = {"French": 2, "Italian": 2, "Russian": 1}  # 17.3-E (printed); other sectors 0
BREAKTHROUGH = "breakthrough"  # 17.3-C: the "Breakthrough" marker on breakthrough units (a status)


# ====================================================================== 17.3-A
@implements("LGG 17.3-A")
def breakthrough_reduction(
    g: Game, d6: int, rounds: int, bombardment: str | None, defender_state: str
) -> tuple[int, int]:
    """LGG 17.3-A: the reduction of a general's Breakthrough value after a preliminary bombardment
    -> (reduction, modified roll). D6: 1 -1; 2-3 -2; 4-5 -3; 6 -4; modifiers: battle of 5+ rounds
    +1, blitz bombardment -2, defender eliminated or panicked -2; the modified roll is clamped to
    1-6 (option ``breakthrough-clamp``, digest A-20; without it a roll below 1 reduces nothing
    and one above 6 reduces by 4). No bombardment: no reduction."""
    if not bombardment:
        return 0, d6
    m = d6
    if rounds >= 5:
        m += 1
    if bombardment == "blitz":
        m -= 2
    if defender_state in ("eliminated", "panic"):
        m -= 2
    clamp = bool(g.opt("breakthrough-clamp"))
    if clamp:
        m = max(1, min(6, m))
    if m < 1:
        return 0, m
    if m == 1:
        return 1, m
    if m <= 3:
        return 2, m
    if m <= 5:
        return 3, m
    return 4, m


def _generals(g: Game, rec: BattleRecord) -> list[Piece]:
    out = []
    for a in rec.armies:
        gen = army_general(g, a)
        if gen is not None and gen not in out:
            out.append(gen)
    return out


@implements("LGG 17.3-A", "LGG 17.3-B", "LGG 17.3-C", "LGG 31-B")
def fire_breakthrough(g: Game, rec: BattleRecord) -> tuple[str | None, int]:
    """LGG 17.3-A..C: (level, corps available) after a Fire Doctrine battle won by the attacker.

    Each general's Breakthrough value (minus 1 for the defender's order L, 31-B) is tested after
    a bombardment; a positive result is the number of corps that may break through; order E
    allows a breakthrough in any case. The level is limited when the defender retreats in good
    order, major when in disorder or panic (or eliminated); on the French sector a defender in
    level-3 trenches retreating in good order with 2 combat-fit corps (3 against order E)
    without panic blocks it."""
    orders = rec.spec.get("orders") or {}
    order_e = orders.get("attacker") == "E"
    best = 0
    for gen in _generals(g, rec):
        v = int(gen.stat("breakthrough", 0))
        if orders.get("defender") == "L":
            v -= 1
        bomb = rec.spec.get("bombardment")
        if bomb:
            r = g.roll(
                "d6", f"breakthrough test of the attacking general ({rec.hex})", "LGG 17.3-A"
            )
            red, _m = breakthrough_reduction(g, r.natural, int(rec.round), bomb, rec.defender_state)
            v -= red
        best = max(best, v)
    if best <= 0 and not order_e:
        return None, 0
    state = rec.defender_state
    level = "limited" if state == "good-order" else "major"
    if (
        level == "limited"
        and "French" in sectors_of(g, rec.hex_i)
        and int(rec.spec.get("trench") or 0) >= 3
    ):
        fit = [
            u
            for u in battle.units_of(rec, rec.defender, roles=("front", "rear"), states=("fit",))
            if rec.units[u].get("barred") != rec.round + 1
        ]
        if len(fit) >= (3 if order_e else 2) and rec.panic != rec.defender:
            return None, 0
    return level, max(best, 1 if order_e else 0)


@implements("LGG 17", "LGG 17.1", "LGG 16-C", "LGG 18-B")
def decide_level(g: Game, rec: BattleRecord) -> None:
    """LGG 17 / 17.1: whether (and how) the victorious attacker may break through from this battle:
    never from a hex with an enemy fortress (even taken), after a battle born of a breakthrough,
    after the cavalry retreated before combat (16-C), after a counter-offensive (18-B)."""
    rec.breakthrough_level = None
    rec.breakthrough_corps = None
    if rec.breakthrough_blocked or rec.kind in (
        "breakthrough",
        "counter-offensive",
        "assault",
    ):
        return
    if not rec.spec.get("breakthrough", rec.kind in ("open", "overflow")):
        return
    lab = rec.hex
    if (
        any(q.type == "fortress" and q.side != rec.attacker for q in g.state.at_hex(rec.hex_i))
        or g.state.marker("fortress_fallen", lab) is not None
    ):
        return
    if battle.fire_procedure(g, rec):
        level, n = fire_breakthrough(g, rec)
        rec.breakthrough_level = level
        rec.breakthrough_corps = n
        if level:
            g.emit(
                "breakthrough",
                f"battle at {lab}: {level} breakthrough possible for {n} corps",
                rule="LGG 17.3-A",
            )
    else:
        rec.breakthrough_level = "movement"
    M.touch(g)


# ====================================================================== units and targets
@implements("LGG 17.1", "LGG 39-D")
def eligible_units(
    g: Game, side: str, armies: list[str], i: int, serial: int | None
) -> list[Piece]:
    """LGG 17.1 / 39-D: units in the reserve of an HQ of the activated armies within its
    intervention distance of hex ``i`` (not those put back into reserve after this activation's
    battles, 16.7-D); light tanks may break through, heavy tanks only on the flank."""
    out = []
    for a in armies:
        hq = M.hq_piece(g, a)
        if hq is None or not M.on_map(g, hq):
            continue
        h = M.hex_of(g, hq)
        assert h is not None
        if g.board.distance(h, i) > int(stat(g, hq, "central") or 0):
            continue
        for q in g.state.contents(hq.id):
            barred = q.attrs.get("no_breakthrough")
            if (
                M.in_reserve(q)
                and q.type in ("corps", "tank")
                and (barred is None or barred != serial)
            ):
                out.append(q)
    return sorted(out, key=lambda p: p.id)


def _front_hexes(rec_like: dict[str, Any]) -> list[str]:
    return list(rec_like.get("attacker_from") or [])


def _cavalry_two_hexes(g: Game, units: list[Piece], first: int) -> bool:
    """LGG 17.2-A / 17.3-C: cavalry may advance 2 hexes in fair weather (Russians also in snow) when
    the first breakthrough hex is plains."""
    if (
        not units
        or not all(M.is_cavalry(p) for p in units if p.type == "corps")
        or not any(p.type == "corps" for p in units)
    ):
        return False
    w = mapdata.weather_in(g, first)
    if not (w == "fair" or (w == "snow" and all(p.nation == "RU" for p in units))):
        return False
    return mapdata.effective_terrain(g, first) in ("plains", "floodable")


@implements("LGG 17.3-C")
def rigid_pincer(g: Game, side: str, first: int) -> bool:
    """LGG 17.3-C: two diametrically opposed enemy stacks (or a stack and a prohibited hex) exert
    rigid ZoCs on the first breakthrough hex: the cavalry stops there (stacks that just retreated
    are ignored)."""

    enemy = M.other_side(side)
    nbr = g.board.nbr[first]
    turn = M.turn_index(g)

    def blocks(d: int) -> bool:
        j = int(nbr[d])
        if j < 0 or mapdata.terrain_info(g, j).impassable or mapdata.is_neutral_hex(g, j):
            return "prohibited"  # type: ignore[return-value]
        mk = g.state.marker("retreated", M.label(g, j))
        if mk and mk.get("turn") == turn and mk.get("side") == enemy:
            return False
        return any(M.is_corps(p) for p in M.units_at_hex(g, j, enemy))

    if "rigid" not in zoc_map(g, enemy).get(first, frozenset()):
        return False
    for d in range(3):
        a, b = blocks(d), blocks(d + 3)
        if a and b and not (a == "prohibited" and b == "prohibited"):
            return True
    return False


def targets(g: Game, rec_like: dict[str, Any], units: list[Piece]) -> list[dict[str, Any]]:
    """LGG 17.2-A / 17.3-B / 17.3-C: flank and deep breakthrough destinations from the conquered
    hex."""
    side = rec_like["attacker"]
    i = g.board.idx(rec_like["hex"])
    starts = {g.board.idx(h) for h in _front_hexes(rec_like)}
    level = rec_like.get("breakthrough_level")
    enemy = M.enemy_present_hexes(g, side)
    out: list[dict[str, Any]] = []
    heavy = any(p.type == "tank" and p.attrs.get("category") == "heavy" for p in units)
    for j in g.board.neighbors(i):
        if any(movement.static_step_problem(g, p, i, j) for p in units) or j in starts:
            continue
        next_to_start = any(j in g.board.neighbors(s) for s in starts)
        if next_to_start:
            if j in enemy:
                out.append({"kind": "flank", "to": M.label(g, j), "via": []})
            continue
        if heavy:
            continue
        out.append({"kind": "deep", "to": M.label(g, j), "via": []})
        if j in enemy or level == "limited" or not _cavalry_two_hexes(g, units, j):
            continue
        if level == "major" and rigid_pincer(g, side, j):
            continue
        for k in g.board.neighbors(j):
            if k == i or k in starts or any(k in g.board.neighbors(s) for s in starts):
                continue
            if any(movement.static_step_problem(g, p, j, k) for p in units):
                continue
            out.append({"kind": "deep", "to": M.label(g, k), "via": [M.label(g, j)]})
    return out


# ========================================================= empty-hex breakthroughs (17.2-D, 17.3-F)
@implements("LGG 17.2-D", "LGG 17.3-F")
def empty_hex_origins(
    g: Game, act: dict[str, Any], fought: set[str], refused_empty: list[str] | None = None
) -> list[str]:
    """LGG 17.2-D / 17.3-F: hexes an infantry stack of the activation entered without a battle, by
    normal movement, supplied and not isolated, from which the HQ reserve may break through. Supply
    and isolation are judged from what the side may know of the enemy markers (4-A): a hex is
    offered unless surely barred; when the true position bars it, the announcement is refused
    with a reveal event and the hex is not offered again (``refused``)."""
    out = []
    side = act["side"]
    refused = set(refused_empty or ())
    for i, plist in sorted(M.occupied(g, side).items()):
        lab = M.label(g, i)
        if lab in fought or i in M.enemy_present_hexes(g, side):
            continue
        movers = [
            p
            for p in plist
            if M.is_infantry(p)
            and p.attrs.get("mv_act") == act["serial"]
            and p.attrs.get("mv_mode") == "normal"
            and "mv_from" in p.attrs
            and p.loc.kind == "hex"
        ]
        if not movers:
            continue
        if not knowledge.may_be_true(
            g,
            side,
            lambda movers=movers: _movers_supplied(g, movers),  # type: ignore[misc]
        ):
            continue  # 4-A: judged from what the side may know of the enemy markers
        if lab in refused:
            continue
        out.append(lab)
    return out


def _movers_supplied(g: Game, movers: list[Piece]) -> bool:
    """17.2-D / 17.3-F: every infantry unit that entered the empty hex is supplied and not
    isolated."""
    return all(is_supplied(g, p) and not is_isolated(g, p, "combat") for p in movers)


# ====================================================================== the step
def _origins(g: Game, f: Frame) -> list[dict[str, Any]]:
    """The conquered hexes (and announced empty hexes) still offering a breakthrough."""
    out = []
    for bid in f.params.get("battles", []):
        rec = rec_of(g, bid)
        if rec.winner != rec.attacker or not rec.breakthrough_level:
            continue
        if not any(p.side == rec.attacker for p in M.units_at_hex(g, rec.hex_i, rec.attacker)):
            continue
        out.append(
            {
                "hex": rec.hex,
                "attacker": rec.attacker,
                "armies": rec.armies,
                "battle": bid,
                "attacker_from": rec.attacker_from,
                "breakthrough_level": rec.breakthrough_level,
                "corps_left": rec.breakthrough_corps,
            }
        )
    for e in f.params.get("empty", []):
        i = g.board.idx(e["hex"])
        if (
            not e.get("breakthrough_level")
            or i in M.enemy_present_hexes(g, e["attacker"])
            or not M.units_at_hex(g, i, e["attacker"])
        ):
            continue
        out.append(e)
    return out


@implements("LGG 17", "LGG 17.2", "LGG 17.2-A", "LGG 17.3", "LGG 17.3-B", "LGG 17.3-C")
class Breakthrough(LggStep):
    """LGG 17: the attacker's breakthroughs after its activation's battles and retreats.

    Actions: ``breakthrough`` (reserve units from an HQ within intervention distance go through
    the conquered hex into a flank or deep target: an advance, or a new battle), ``announce-empty``
    (17.2-D/17.3-F), ``end-breakthrough``."""

    name = "breakthrough"
    title = "Breakthrough"
    rule = "LGG 17"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: breakthroughs"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [
            f.params["side"]
        ]  # always asked: whether it has reserves at hand must not show (4-A)

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    def _options(self, g: Game, f: Frame) -> list[Action]:
        def compute() -> list[Action]:
            side = f.params["side"]
            serial = f.params.get("activation")
            out: list[Action] = []
            for o in _origins(g, f):
                i = g.board.idx(o["hex"])
                units = eligible_units(g, side, o["armies"], i, serial)
                cap = o.get("corps_left")
                if not units:
                    continue
                subsets: list[tuple[Piece, ...]] = []
                for k in range(1, min(len(units), 4) + 1):
                    subsets.extend(combinations(units, k))
                for sub in subsets:
                    corps = sum(1 for p in sub if p.type == "corps")
                    if corps == 0 or (cap is not None and corps > int(cap)):
                        continue
                    for t in targets(g, o, list(sub)):
                        out.append(
                            {
                                "type": "breakthrough",
                                "side": side,
                                "from": o["hex"],
                                "units": sorted(p.id for p in sub),
                                "kind": t["kind"],
                                "to": t["to"],
                                "via": t["via"],
                            }
                        )
            act = M.st(g).get("activation")
            if act is not None and not f.params.get("empty_done"):
                fought = {rec_of(g, b).hex for b in f.params.get("battles", [])} | {
                    e["hex"] for e in f.params.get("empty", [])
                }
                for lab in empty_hex_origins(g, act, fought, f.params.get("refused_empty")):
                    if eligible_units(g, side, act["armies"], g.board.idx(lab), serial):
                        out.append({"type": "announce-empty", "side": side, "hex": lab})
            out.append({"type": "end-breakthrough", "side": side})
            return out

        return M.memo(
            g,
            f"breakthrough-options:{f.params['side']}:{len(f.params.get('empty', []))}:"
            f"{f.params.get('empty_done')}:{len(f.params.get('refused_empty', []))}",
            compute,
        )

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return self._options(g, f)

    @handles.apply("end-breakthrough")
    def apply_end(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("breakthrough")
    def apply_breakthrough(self, g: Game, f: Frame, action: Action) -> None:
        self._go(g, f, action)

    @handles.apply("announce-empty")
    def apply_announce_empty(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        act = M.st(g).get("activation")
        lab = action["hex"]
        movers = [
            p
            for p in M.units_at_hex(g, g.board.idx(lab), side)
            if M.is_infantry(p)
            and act is not None
            and p.attrs.get("mv_act") == act["serial"]
            and p.attrs.get("mv_mode") == "normal"
            and "mv_from" in p.attrs
            and p.loc.kind == "hex"
        ]
        if not _movers_supplied(g, movers):
            f.params.setdefault("refused_empty", []).append(lab)
            knowledge.refuse_on_hidden_fact(
                g,
                side,
                f"no breakthrough from the empty hex {lab}: the stack there is out of supply or"
                " isolated (an enemy marker on its supply line holds units)",
                f"{side} finds its supply line cut",
                "LGG 17.2-D",
            )
            return
        entry = {
            "hex": lab,
            "attacker": side,
            "armies": list(act["armies"]) if act else [],
            "attacker_from": sorted(
                {
                    M.label(g, int(p.attrs["mv_from"]))
                    for p in M.units_at_hex(g, g.board.idx(lab), side)
                    if isinstance(p.attrs.get("mv_from"), int)
                }
            ),
            "breakthrough_level": "movement",
            "corps_left": None,
            "battle": None,
        }
        if battle.side_doctrine_at(g, side, g.board.idx(lab)) in battle.FIRE_DOCTRINES:
            hq_close = any(
                M.army_hq_hex(g, a) is not None
                and g.board.distance(M.army_hq_hex(g, a), g.board.idx(lab)) <= 2  # type: ignore[arg-type]
                for a in entry["armies"]
            )
            entry["breakthrough_level"] = "major" if hq_close else None
            M.st(g).setdefault("fictitious_battles", []).append(
                {"turn": M.turn_index(g), "side": side, "hex": lab}
            )
            g.emit(
                "breakthrough",
                f"{side} announces a breakthrough from the empty hex {lab} (a secondary battle "
                "of the sector)",
                rule="LGG 17.3-F",
            )
            f.params.setdefault("empty", []).append(entry)
            g.push("empty-hex-defence", {"side": M.other_side(side), "hex": lab, "attacker": side})
            return
        g.emit(
            "breakthrough",
            f"{side} announces a breakthrough from the empty hex {lab}",
            rule="LGG 17.2-D",
        )
        f.params.setdefault("empty", []).append(entry)

    @implements("LGG 17.2-A", "LGG 17.2-B", "LGG 17.2-C", "LGG 17.3-D", "LGG 17.3-E")
    def _go(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        src = g.board.idx(action["from"])
        dst = g.board.idx(action["to"])
        via = [g.board.idx(h) for h in action.get("via", [])]
        units = [piece(g, u) for u in action["units"]]
        act = M.st(g).get("activation")
        serial = act["serial"] if act else None
        if act is not None:
            act["breakthrough"] = True
        origin = next((o for o in _origins(g, f) if o["hex"] == action["from"]), None)
        if origin is not None and origin.get("battle"):
            rec = rec_of(g, origin["battle"])
            if rec.breakthrough_corps is not None:
                rec.breakthrough_corps = int(rec.breakthrough_corps) - sum(
                    1 for p in units if p.type == "corps"
                )
        path = [src, *via, dst]
        prev = src
        for p in units:
            M.set_status(g, p, M.RESERVE, False)
            M.move_piece(g, p, Loc.hex(src))
        for h in path[1:]:
            for p in units:
                M.move_piece(g, p, Loc.hex(h))
                M.set_attr(g, p, "mv_from", prev)
                M.set_attr(g, p, "mv_act", serial)
                M.set_attr(g, p, "mv_stop", True)
                M.set_attr(g, p, "breakthrough_turn", M.turn_index(g))
            if h not in M.enemy_present_hexes(g, side):
                mapdata.set_control(g, h, side)
            prev = h
        art: list[str] = []
        if action["kind"] == "flank" and origin is not None and origin.get("battle"):
            rec0 = rec_of(g, origin["battle"])
            for uid in sorted(rec0.used_art):
                p = piece(g, uid)
                if M.hex_of(g, p) == src and p.loc.kind == "hex" and p.side == side:
                    M.move_piece(g, p, Loc.hex(dst))
                    M.set_attr(g, p, "mv_from", src)
                    art.append(uid)
        say(
            g,
            side,
            "breakthrough",
            f"{', '.join(action['units'])} break through ({action['kind']}) from "
            f"{action['from']} to {action['to']}",
            f"{side} breaks through ({action['kind']}) from {action['from']} to {action['to']}",
            rule="LGG 17.2-A",
        )
        level = origin.get("breakthrough_level") if origin else None
        if battle.side_doctrine_at(g, side, dst) in battle.FIRE_DOCTRINES:
            sector = (sectors_of(g, dst) or [""])[0]
            g.state.set_marker(
                "breakthrough",
                M.label(g, dst),
                {
                    "turn": M.turn_index(g),
                    "side": side,
                    "level": level,
                    "trench": PROVISIONAL_TRENCH.get(sector, 0),
                },
            )
            mark_breakthrough_units(g, units, str(level or ""), PROVISIONAL_TRENCH.get(sector, 0))
        params = {
            "side": side,
            "hex": M.label(g, dst),
            "units": sorted(action["units"]) + art,
            "kind": action["kind"],
            "level": level,
            "armies": origin["armies"] if origin else [],
        }
        if dst in M.enemy_present_hexes(g, side):
            g.push("breakthrough-battle", params)
        else:
            # an advance: if an interception brings the enemy in (17.2-B), a battle follows in which
            # the interceptor defends; the check waits under the interception
            g.push("breakthrough-battle", {**params, "intercepted": True})
            # asked wherever the mover cannot rule an interception out (4-A: a hidden ZoC is not
            # revealed)
            offer_interception(g, side, dst, sorted(action["units"]), serial, breakthrough=True)  # type: ignore[arg-type]
        M.touch(g)


@implements("LGG 17.3-E", "LGG 17.3-C")
def mark_breakthrough_units(g: Game, units: list[Piece], level: str, trench_level: int) -> None:
    """LGG 17.3-E / 17.3-C: Fire Doctrine breakthrough units defend with the provisional trench of
    their sector (French and Italian +2, Russian +1, others none) until their side's next turn,
    exert flexible ZoCs until then (``breakthrough_until``: the last turn index it lasts); after
    a major breakthrough they carry the "Breakthrough" marker (status ``breakthrough``, read by
    the interception rules) until the end of their side's next turn."""

    until = M.turn_index(g) + 1
    if trench_level > 0:
        trench.set_provisional(g, units, trench_level)
    for p in units:
        M.set_attr(g, p, "breakthrough_until", until)
        if level == "major":
            M.set_status(g, p, BREAKTHROUGH, True)
    M.touch(g)


@implements("LGG 17.3-C", "LGG 17.3-E")
def expire_breakthrough_units(g: Game) -> list[str]:
    """LGG 17.3-C / 17.3-E: the "Breakthrough" marker, flexible ZoCs and provisional trenches of
    breakthrough units end once their side's next turn is over. Returns the units cleared."""
    now = M.turn_index(g)
    out = []
    for p in sorted(g.state.pieces.values(), key=lambda q: q.id):
        until = p.attrs.get("breakthrough_until")
        if until is None or int(until) >= now:
            continue
        M.set_attr(g, p, "breakthrough_until", None)
        if BREAKTHROUGH in p.status:
            M.set_status(g, p, BREAKTHROUGH, False)
        out.append(p.id)
    if out:
        M.touch(g)
    return out


@implements("LGG 17.3-C", "LGG 17.3-E")
class BreakthroughMarkers(Step):
    """LGG 17.3-C / 17.3-E: at the start of each turn (reinforcement phase), the breakthrough
    markers and effects of the turn before last are removed (no choice)."""

    name = "breakthrough-markers"
    title = "Breakthrough markers"
    rule = "LGG 17.3-C"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return []

    def run(self, g: Game, f: Frame) -> None:
        expire_breakthrough_units(g)
        g.finish(f)


@implements("LGG 17.3-E")
def provisional_trench(g: Game, i: int, side: str) -> int | None:
    """LGG 17.3-E: the provisional trench of breakthrough units in hex ``i`` until their side's next
    turn (French and Italian sectors +2, Russian +1, others 0), or None when none applies."""
    mk = g.state.marker("breakthrough", M.label(g, i))
    if not mk or mk.get("side") != side or int(mk.get("turn", -1)) < M.turn_index(g) - 1:
        return None
    return int(mk.get("trench", 0))


@implements("LGG 17.2-C", "LGG 17.3-D", "LGG 17.2-B")
class BreakthroughBattle(Step):
    """LGG 17.2-B / 17.2-C / 17.3-D: breakthrough units entering an enemy hex. Defeated enemy units
    that have just retreated there must retreat one hex further, unless in a city, a friendly
    fortress or behind a river, strait or canal: then they may fight or retreat one hex (in Fire
    Doctrine with a provisional +1 trench, none on the Balkan, Armenian and Oriental fronts).
    The enemy may first reinforce (hook ``enemy-reinforcement``); then the battle."""

    name = "breakthrough-battle"
    title = "Breakthrough battle"
    rule = "LGG 17.2-C"
    composite = True

    def label(self, g: Game, f: Frame) -> str:
        return f"Breakthrough battle at {f.params['hex']}"

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        side = f.params["side"]
        enemy = M.other_side(side)
        lab = f.params["hex"]
        j = g.board.idx(lab)
        stage = f.params.get("stage", "flight")
        if f.params.get("intercepted") and stage == "flight":
            stage = f.params["stage"] = (
                "reinforce"  # only a battle if an interception brought the enemy in
            )
        if stage == "flight":
            f.params["stage"] = "reinforce"
            if _just_retreated(g, enemy, j):
                exception = _flight_exception(g, enemy, j, f)
                # in Fire Doctrine always asked: whether reserve corps may stay must not show (4-A)
                if exception or battle.side_doctrine_at(g, enemy, j) in battle.FIRE_DOCTRINES:
                    return "flight-choice", {
                        "side": enemy,
                        "hex": lab,
                        "attacker": side,
                        "exception": exception,
                    }
                _flee(g, enemy, j, side)
            return self.next_child(g, f)
        if stage == "reinforce":
            f.params["stage"] = "battle"
            if not M.enemy_present_hexes(g, side) & {j}:
                return None
            if battle.side_doctrine_at(g, enemy, j) == "movement":
                h = hooks.child(
                    g,
                    hooks.ENEMY_REINFORCEMENT,
                    {
                        "side": enemy,
                        "attacker": side,
                        "hexes": [lab],
                        "activation": (M.st(g).get("activation") or {}).get("serial"),
                        "breakthrough": True,
                    },
                )
                if h:
                    return h
            return self.next_child(g, f)
        if stage == "battle":
            if j not in M.enemy_present_hexes(g, side):
                f.params["stage"] = "done"
                return None
            if not f.params.get("new_army_asked") and _new_army_asked(g, f.params):
                f.params["new_army_asked"] = True
                return "breakthrough-new-army", {
                    "side": side,
                    "hex": lab,
                    "armies": list(f.params.get("armies") or []),
                }
            f.params["stage"] = "done"
            new = M.st(g).setdefault("breakthrough_new_army", {}).pop(lab, None)
            if new is not None and new.get("turn") != M.turn_index(g):
                new = None
            armies = list(f.params.get("armies") or [])[: 1 if new else 2]
            units = [
                u
                for u in f.params["units"]
                if piece(g, u).loc.kind == "hex" and M.hex_of(g, piece(g, u)) == j
            ]
            extra: dict[str, Any] = {}
            if f.params.get("provisional_trench") is not None:
                extra["trench"] = int(f.params["provisional_trench"])
            if new:
                armies.append(new["army"])
                units += [u for u in new["units"] if u not in units]
                level = extra.get("trench", trench.battle_trench_level(g, lab, enemy))
                extra["trench"] = max(0, int(level) - 1)  # 17.3-B: enemy trenches reduced by 1
                extra["new_army"] = True
            params = battle.battle_params(
                g,
                hex=lab,
                attacker=side,
                kind="breakthrough",
                breakthrough=False,
                counter_offensive=False,
                retreat="immediate",
                flank_breakthrough=f.params["kind"] == "flank",
                artillery_reuse=f.params["kind"] == "flank",
                attacker_units=units,
                armies=armies or None,
                **extra,
            )
            if f.params.get("level") == "major":
                battle.rec_of(g, params["battle"]).spec["major_breakthrough"] = True
            if new:  # 17.3-B: the new army's battle may open with a preliminary bombardment (29-A)
                prepared = hooks.child(g, "battle-preparation", params)
                if prepared:
                    return prepared
            return "battle", params
        return None


@implements("LGG 17.3-B")
def new_army_candidates(g: Game, params: dict[str, Any]) -> list[str]:
    """LGG 17.3-B: armies the attacker may activate for a Fire Doctrine flank breakthrough battle:
    its other formed armies with a corps in a stack adjacent to the newly attacked hex, while the
    sector still has room for a secondary battle this turn (the battle then counts as one)."""

    side = params["side"]
    j = g.board.idx(params["hex"])
    if (
        params.get("kind") != "flank"
        or battle.side_doctrine_at(g, side, j) not in battle.FIRE_DOCTRINES
    ):
        return []
    if params.get("level") not in ("limited", "major"):
        return []
    taken = set(params.get("armies") or [])
    out = set()
    for k in g.board.neighbors(j):
        for p in M.units_at_hex(g, k, side):
            a = command_army(g, p)
            if (
                M.is_corps(p)
                and p.loc.kind == "hex"
                and a
                and a not in taken
                and M.army_formed(g, a)
            ):
                out.add(a)
    found = []
    for a in sorted(out):
        sector = secondary.battle_sector(g, j, side, [a])
        if len(secondary.secondary_battles(g, side, sector)) < secondary.SECONDARY_LIMIT:
            found.append(a)
    return found


def _new_army_asked(g: Game, params: dict[str, Any]) -> bool:
    """Whether the attacker is asked about a new army (17.3-B): on public facts only (a Fire
    Doctrine flank breakthrough battle), so that being asked tells the enemy nothing (4-A)."""
    side = params["side"]
    j = g.board.idx(params["hex"])
    return (
        params.get("kind") == "flank"
        and params.get("level") in ("limited", "major")
        and battle.side_doctrine_at(g, side, j) in battle.FIRE_DOCTRINES
    )


def new_army_units(g: Game, side: str, army: str, j: int) -> list[str]:
    """The corps and artillery of ``army`` in the stacks adjacent to hex ``j`` (17.3-B)."""

    out = []
    for k in g.board.neighbors(j):
        for p in M.units_at_hex(g, k, side):
            if (
                p.type in ("corps", "artillery")
                and p.loc.kind == "hex"
                and not M.in_reserve(p)
                and command_army(g, p) == army
            ):
                out.append(p.id)
    return sorted(out)


@implements("LGG 17.3-B", "LGG 29")
class BreakthroughNewArmy(LggStep):
    """LGG 17.3-B: before a Fire Doctrine flank breakthrough battle, the attacker may activate a new
    army adjacent to the attacked hex (``activate-army``, ``army``): its corps and artillery in
    the adjacent stacks join the attack, the battle counts as a secondary battle of the sector,
    the attacker may be reinforced from outside the HQ reserve, and the enemy trenches are
    reduced by 1; or not (``no-new-army``)."""

    name = "breakthrough-new-army"
    title = "Breakthrough: a new army"
    rule = "LGG 17.3-B"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: activate a new army against {f.params['hex']}?"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    @handles.options("activate-army")
    def new_army_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        params = {
            "side": side,
            "hex": f.params["hex"],
            "armies": f.params["armies"],
            "kind": "flank",
            "level": "limited",
        }
        return [
            {"type": "activate-army", "side": side, "army": a}
            for a in new_army_candidates(g, params)
        ]

    @handles.options("no-new-army")
    def no_new_army_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "no-new-army", "side": side}]

    @handles.apply("no-new-army")
    def apply_no_new_army(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("activate-army")
    def apply_activate_army(self, g: Game, f: Frame, action: Action) -> None:

        g.finish(f)
        side, lab, army = action["side"], f.params["hex"], action["army"]
        j = g.board.idx(lab)
        ids = new_army_units(g, side, army, j)
        for u in ids:
            p = piece(g, u)
            k = M.hex_of(g, p)
            M.move_piece(g, p, Loc.hex(j))
            M.set_attr(g, p, "mv_from", k)
            M.set_attr(g, p, "mv_stop", True)
        secondary.count_battle(g, side, lab, "secondary", [army])
        M.st(g).setdefault("breakthrough_new_army", {})[lab] = {
            "army": army,
            "units": ids,
            "turn": M.turn_index(g),
        }
        say(
            g,
            side,
            "breakthrough",
            f"army {army} joins the flank breakthrough at {lab} ({', '.join(ids)})",
            f"{side} activates another army against {lab}",
            rule="LGG 17.3-B",
        )
        M.touch(g)


def _just_retreated(g: Game, enemy: str, j: int) -> bool:
    mk = g.state.marker("retreated", M.label(g, j))
    return bool(mk) and mk.get("turn") == M.turn_index(g) and mk.get("side") == enemy


def _flight_exception(g: Game, enemy: str, j: int, f: Frame) -> bool:
    """The defeated stack may stay: a city (not a locality), a friendly fortress, or behind a river
    (not a stream), strait or canal as seen from the breakthrough units."""
    if mapdata.is_city(g, j):
        return True
    if any(q.type == "fortress" and q.side == enemy for q in g.state.at_hex(j)):
        return True
    src = None
    for u in f.params["units"]:
        p = piece(g, u)
        if isinstance(p.attrs.get("mv_from"), int):
            src = int(p.attrs["mv_from"])
    return src is not None and mapdata.has_feature(
        g, src, j, "river", "large_river", "strait", "canal"
    )


@implements("LGG 17.3-D")
def reserve_corps_that_may_fight(g: Game, enemy: str, j: int) -> list[str]:
    """LGG 17.3-D (Fire Doctrine only): the corps of the defeated stack that just retreated into
    ``j`` that came out of an HQ or GHQ reserve as reinforcements in that battle: they (and they
    alone) may fight the breakthrough units while the rest of the stack flees."""
    mk = g.state.marker("retreated", M.label(g, j)) or {}
    bid = mk.get("battle")
    if not bid or battle.side_doctrine_at(g, enemy, j) not in battle.FIRE_DOCTRINES:
        return []
    try:
        rec = battle.rec_of(g, str(bid))
    except KeyError:
        return []
    out = []
    for uid, u in sorted(rec.units.items()):
        p = g.state.pieces[uid]
        if (
            u["side"] == enemy
            and u["kind"] == "corps"
            and str(u.get("origin", "")).startswith(("hq:", "ghq:"))
            and u["state"] == "fit"
            and p.loc.kind == "hex"
            and M.hex_of(g, p) == j
        ):
            out.append(uid)
    return out


def _flee(g: Game, enemy: str, j: int, attacker: str, keep: list[str] | None = None) -> None:
    """LGG 17.2-C: the defeated units retreat one hex further (or are eliminated if they cannot);
    ``keep``: corps that stay to fight (17.3-D)."""

    mk = g.state.marker("retreated", M.label(g, j)) or {}
    units = [
        p.id
        for p in g.state.at_hex(j)
        if p.side == enemy and p.type not in ("fortress", "general") and p.id not in (keep or [])
    ]
    if not units:
        return
    entry = {
        "id": f"F{len(battle_retreat.store(g)) + 1}",
        "battle": mk.get("battle"),
        "side": enemy,
        "hex": M.label(g, j),
        "units": units,
        "first": None,
        "min": 1,
        "max": 1,
        "forbid": [],
        "done": False,
    }
    if entry["battle"] is None:
        return
    battle_retreat.store(g).append(entry)
    g.push("retreat-group", {"retreat": entry["id"]})
    g.emit("flight", f"the defeated stack at {M.label(g, j)} flees one more hex", rule="LGG 17.2-C")


@implements("LGG 17.2-C", "LGG 17.3-D")
class FlightChoice(LggStep):
    """LGG 17.2-C / 17.3-D: a defeated stack sheltered by a city, a friendly fortress or a river
    chooses to fight the breakthrough units or to retreat one hex (``stand``, ``flee``); in Fire
    Doctrine the corps that came out of an HQ or GHQ reserve may stay and fight alone while the
    others flee (``reserve-stand``)."""

    name = "flight-choice"
    title = "Stand or flee"
    rule = "LGG 17.2-C"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: stand or flee at {f.params['hex']}"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    @handles.options("stand")
    def stand_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        if not f.params.get("exception", True):
            return []
        return [{"type": "stand", "side": side, "hex": f.params["hex"]}]

    @handles.options("flee")
    def flee_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "flee", "side": side, "hex": f.params["hex"]}]

    @handles.options("reserve-stand")
    def reserve_stand_options(
        self, g: Game, f: Frame, side: str, actor: str | None
    ) -> list[Action]:
        if not reserve_corps_that_may_fight(g, side, g.board.idx(f.params["hex"])):
            return []
        return [{"type": "reserve-stand", "side": side, "hex": f.params["hex"]}]

    @handles.apply("flee")
    def apply_flee(self, g: Game, f: Frame, action: Action) -> None:
        j = g.board.idx(f.params["hex"])
        g.finish(f)
        _flee(g, action["side"], j, f.params["attacker"])

    @handles.apply("reserve-stand")
    def apply_reserve_stand(self, g: Game, f: Frame, action: Action) -> None:
        j = g.board.idx(f.params["hex"])
        g.finish(f)
        keep = reserve_corps_that_may_fight(g, action["side"], j)
        fog.emit_private(
            g,
            action["side"],
            "flight",
            f"{', '.join(keep)} stay at {f.params['hex']} to fight",
            f"part of the defeated stack at {f.params['hex']} stays to fight",
            rule="LGG 17.3-D",
        )
        _flee(g, action["side"], j, f.params["attacker"], keep=keep)

    @handles.apply("stand")
    def apply_stand(self, g: Game, f: Frame, action: Action) -> None:
        j = g.board.idx(f.params["hex"])
        g.finish(f)
        g.emit(
            "flight",
            f"the defeated stack at {f.params['hex']} stands and fights",
            rule="LGG 17.3-D",
        )
        parent = g.state.frames[-2] if len(g.state.frames) >= 2 else None
        if (
            parent is not None
            and parent.step == "breakthrough-battle"
            and battle.side_doctrine_at(g, action["side"], j) in battle.FIRE_DOCTRINES
        ):
            sectors = sectors_of(g, j)
            if not set(sectors) & {"Balkan", "Armenian", "Oriental"}:
                parent.params["provisional_trench"] = 1


@implements("LGG 17.3-F")
class EmptyHexDefence(LggStep):
    """LGG 17.3-F: before a breakthrough from an empty hex, the defender may send a unit adjacent to
    that hex into it to defend, on an even D6 (then a normal battle is fought)."""

    name = "empty-hex-defence"
    title = "Defence of an empty hex"
    rule = "LGG 17.3-F"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: send a unit into {f.params['hex']}?"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    @handles.options("decline")
    def decline_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "decline", "side": side}]

    @handles.options("send")
    def send_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        j = g.board.idx(f.params["hex"])
        out: list[Action] = []
        for k in g.board.neighbors(j):
            for p in M.units_at_hex(g, k, side):
                if (
                    M.is_corps(p)
                    and p.loc.kind == "hex"
                    and movement.static_step_problem(g, p, k, j) is None
                ):
                    out.append({"type": "send", "side": side, "unit": p.id})
        return out

    @handles.apply("decline")
    def apply_decline(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("send")
    def apply_send(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)
        r = g.roll("d6", f"defence of the empty hex {f.params['hex']}", "LGG 17.3-F")
        if r.natural % 2:
            g.emit("breakthrough", "the defending unit does not arrive in time", rule="LGG 17.3-F")
            return
        p = piece(g, action["unit"])
        M.move_piece(g, p, Loc.hex(g.board.idx(f.params["hex"])))
        say(
            g,
            p.side,
            "defence",
            f"{p.id} moves into {f.params['hex']} to defend it",
            f"a {p.side} stack moves into {f.params['hex']} to defend it",
            rule="LGG 17.3-F",
        )
        g.push(
            "battle",
            battle.battle_params(
                g,
                hex=f.params["hex"],
                attacker=f.params["attacker"],
                kind="open",
                retreat="immediate",
                breakthrough=False,
                counter_offensive=False,
            ),
        )


STEPS: tuple[type[Step], ...] = (
    Breakthrough,
    BreakthroughBattle,
    FlightChoice,
    EmptyHexDefence,
    BreakthroughNewArmy,
    BreakthroughMarkers,
)
