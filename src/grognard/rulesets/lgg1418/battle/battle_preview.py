"""LGG 16.3-16.5: previews of an attack or of a round before it is committed.

``preview(g, action)`` answers the rule system's ``preview`` hook for:

* a ``move`` into a hex holding an enemy stack marker (an attack): the best attacking corps of
  the moving group with its support, the defender modifiers the attacker can see (terrain,
  river crossed, weather, city, fortress, trenches when known), the D12 modifiers it can see
  (its own general, snow, doctrine, BEF), and the exact result distribution of the first round
  for every possible column - or for the exact column when the defender's stack is known
  (fog of war off, or the stack fully observed);
* a ``commit`` of engaged units in a battle: the committing side's totals per sub-battle, and
  the exact distribution against the enemy corps engaged in the previous round (public
  knowledge), else per column.

Nothing hidden from the acting side is used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from grognard.core.modifiers import Modifiers
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import artillery, battle_calc
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle.base import piece
from grognard.rulesets.lgg1418.map import mapdata, weather
from grognard.rulesets.lgg1418.map.fronts import fronts_of
from grognard.rulesets.lgg1418.military import movement
from grognard.rulesets.lgg1418.units.counters import army_general, command_army

if TYPE_CHECKING:
    from grognard.core.game import Game


def _mods_json(m: Modifiers) -> list[dict[str, Any]]:
    return [{"value": int(x.value), "rule": x.rule, "reason": x.reason} for x in m]


def _columns(g: Game, tid: str, d12: int) -> dict[str, dict[str, float]]:
    tbl = battle.table(g, tid)
    out = {}
    for k, col in enumerate(tbl.columns):
        dist: dict[str, float] = {}
        for cell, p in tbl.distribution(k, d12).items():
            dist[str(cell)] = dist.get(str(cell), 0.0) + p
        out[col] = dist
    return out


def preview(g: Game, action: dict[str, Any]) -> dict[str, Any] | None:
    """The preview of an action of a type that has one (:data:`PREVIEWS`), else None."""
    fn = PREVIEWS.get(str(action["type"])) if "type" in action else None
    return fn(g, action) if fn is not None else None


def _commit_preview(g: Game, action: dict[str, Any]) -> dict[str, Any] | None:
    return engage_preview(g, action) if action.get("kind") == "engage" else None


def attack_preview(g: Game, action: dict[str, Any]) -> dict[str, Any] | None:
    """A move into an enemy hex, as the attacker sees it."""
    side = action.get("side")
    to = action.get("to")
    if side not in M.SIDES or not isinstance(to, str) or not g.board.has_label(to):
        return None
    j = g.board.idx(to)
    if j not in M.enemy_present_hexes(g, side):
        return None
    units = [
        g.state.pieces[u]
        for u in action.get("units", [])
        if u in g.state.pieces and g.state.pieces[u].side == side
    ]
    if not units:
        return None
    group = movement.group_members(g, units)
    i = M.hex_of(g, units[0])
    corps = [p for p in group if p.type == "corps"]
    arts = [p for p in group if p.type == "artillery"]
    if not corps:
        return {"hex": to, "note": "no corps in the moving group: it cannot engage"}

    fr = (fronts_of(g, j) or [M.WEST])[0]
    best = max(corps, key=lambda p: (int(p.stat("attack", 0)), p.id))
    amods = Modifiers()
    if arts:
        amods.add(
            max(artillery.support_value(g, a, fr) for a in arts),
            "LGG 16.2-B",
            "best artillery support",
        )
    a_total = max(1, int(best.stat("attack", 0)) + int(amods.total()))
    dmods = Modifiers()
    codes = [mapdata.terrain_info(g, j).defense]
    if i is not None and j in g.board.neighbors(i):
        for f in mapdata.hexside_features(g, i, j):
            if (
                f.defense
                and f.defense != "0"
                and not (f.frozen_in_severe_snow and mapdata.frozen(g, j))
            ):
                codes.append(f.defense)
    v, running = battle.two_digit_total(g, codes, 1)
    if v:
        dmods.add(v, "LGG 16.3-B", f"terrain and hexsides (round 1; running {running})")
    wb = weather.defender_weather_bonus(g, j)
    if wb:
        dmods.add(wb, "LGG 7-B/7-C", "weather")
    if mapdata.is_city(g, j):
        dmods.add(int(battle.bdata(g)["defence"]["city"]), "LGG 16.3-B", "city")
    if (
        any(q.type == "fortress" and q.side != side for q in g.state.at_hex(j))
        and mapdata.effective_terrain(g, j) == "plains"
    ):
        dmods.add(1, "LGG 23-C", "fortress in plains")
    d12 = Modifiers()
    sw = weather.attacker_weather_d12(g, j)
    if sw:
        d12.add(sw, "LGG 7-C", "snow")

    army = command_army(g, best)
    gen = army_general(g, army) if army else None
    if gen is not None and movement.in_command_range(g, army, j):  # type: ignore[arg-type]
        d12.add(int(gen.stat("bonus", 0)), "LGG 16.4-A", "own general")
    enemy_doc = battle.side_doctrine_at(g, M.other_side(side), j)
    own_doc = battle.doctrine.doctrine(g, best.nation, fr)
    if own_doc == "movement" and enemy_doc != "movement":
        d12.add(
            int(g.opt("movement-vs-fire-penalty")),
            "LGG 16.4-F",
            "Movement attacker against trench warfare",
        )
    if own_doc == "combined" and enemy_doc == "fire":
        d12.add(
            int(g.opt("combined-vs-fire-bonus")),
            "LGG 16.4-F",
            "Combined attacker against Fire Doctrine",
        )
    cap = 1 if mapdata.weather_in(g, j) == "snow" else 2
    d12_total = max(-cap, min(cap, int(d12.total())))
    tid = "combat-trench" if enemy_doc in battle.TRENCH_DEFENCE else "combat-movement"
    out: dict[str, Any] = {
        "kind": "attack",
        "hex": to,
        "table": tid,
        "attacker_unit": best.id,
        "attacker_total": a_total,
        "attacker_modifiers": _mods_json(amods),
        "known_defender_modifiers": _mods_json(dmods),
        "known_d12_modifiers": _mods_json(d12),
        "d12_modifier": d12_total,
        "d12_cap": cap,
        "distribution_by_column": _columns(g, tid, d12_total),
    }
    known = not g.opt("fog-of-war") or M.st(g).get("revealed", {}).get(side, {}).get(to) == "full"
    if known:
        defenders = [p for p in M.units_at_hex(g, j, M.other_side(side)) if p.type == "corps"]
        if defenders:
            bestd = max(defenders, key=lambda p: (int(p.stat("defense", 0)), p.id))
            d_total = max(1, int(bestd.stat("defense", 0)) + int(dmods.total()))
            tbl = battle.table(g, tid)
            centre = tbl.columns.index("0")
            idx = max(0, min(len(tbl.columns) - 1, centre + a_total - d_total))
            out["defender_unit"] = bestd.id
            out["defender_total"] = d_total
            out["differential"] = a_total - d_total
            out["column"] = tbl.columns[idx]
            out["distribution"] = out["distribution_by_column"][tbl.columns[idx]]
    return out


def engage_preview(g: Game, action: dict[str, Any]) -> dict[str, Any] | None:
    """An engagement commitment: the round as the committing side can foresee it."""
    bid = action.get("battle")
    side = action.get("side")
    if not isinstance(bid, str) or bid not in battle.battles(g):
        return None
    rec = battle.rec_of(g, bid)
    choice = action.get("choice") or {}
    enemy = battle.other(rec, side)  # type: ignore[arg-type]
    out: dict[str, Any] = {"kind": "engage", "battle": bid, "round": rec.round, "subs": {}}
    for sub, c in choice.items():
        if not c.get("corps"):
            continue
        prev = {}
        for r in range(int(rec.round) - 1, 0, -1):
            hist = rec.history.get(f"{r}:{sub}")
            if hist:
                prev = hist
                break
        eng = {side: dict(c), enemy: {"corps": prev.get(enemy), "art": prev.get(enemy + ":art")}}
        info: dict[str, Any] = {"corps": c["corps"], "art": c.get("art")}
        if eng[enemy]["corps"] and piece(g, eng[enemy]["corps"]).loc.kind == "hex":
            calc = battle_calc.round_calc(g, rec, sub, engaged=eng)  # type: ignore[arg-type]
            info.update(
                {
                    "assumes": (
                        "the enemy engages the same corps and artillery as in the previous round"
                    ),
                    "explain": calc.explain(),
                    "column": calc.column,
                    "d12_modifier": calc.d12_total,
                    "distribution": battle.distribution(g, calc),
                }
            )
        else:
            tid = battle.table_id(g, rec)
            info.update({"distribution_by_column": _columns(g, tid, 0)})
        out["subs"][sub] = info
    return out


#: The previews by action type: a move into an enemy hex, the engagement of a battle's corps.
PREVIEWS: dict[str, Callable[[Game, dict[str, Any]], dict[str, Any] | None]] = {
    "move": attack_preview,
    "commit": _commit_preview,
}
