"""The calculation of a battle round (16.3-16.4): each side's value with its modifiers (terrain,
trenches, doctrine, supply, tactics, artillery, tanks, fortresses), the differential, the column
and the D12 modifiers. Kept apart from :mod:`.battle` (the battle record and its primitives) so
that the rules whose modifiers enter the calculation (:mod:`.fortress`, :mod:`.tactics`,
:mod:`.tanks`) build on the record without a cycle."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import artillery, fortress, tactics, tanks
from grognard.rulesets.lgg1418.battle.base import (
    RoundCalc,
    SideForce,
    _spec_mods,
    assault_bonus,
    battle_front,
    bdata,
    bef_active,
    d12_modifiers,
    defender_fortress,
    distribution,
    french_fire,
    in_mountains,
    is_bef,
    is_coastal,
    piece,
    rec_of,
    table,
    table_id,
    trench_level,
    two_digit_total,
)
from grognard.rulesets.lgg1418.map import mapdata, weather
from grognard.rulesets.lgg1418.supply.supply import supply_combat_value, supply_fire_value

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.lgg1418.battle.base import BattleRecord


def _tactical(g: Game, rec: BattleRecord, sub: str, side: str) -> Modifiers:
    """LGG 16.3-D: flank or encirclement battle for the side that won the other sub-battle."""
    out = Modifiers()
    st = rec.subs.get(sub, {})
    if st.get("encircled_by") == side:
        out.add(int(bdata(g)["tactical"]["encirclement"]), "LGG 16.3-D", "encirclement battle")
    elif st.get("flank_for") == side:
        out.add(int(bdata(g)["tactical"]["flank"]), "LGG 16.3-D", "flank battle")
    return out


def _support(g: Game, rec: BattleRecord, sub: str, side: str, eng: dict[str, Any]) -> Modifiers:
    """LGG 15-B / 16.2-B / 23-C / 39-B: artillery (or fortress) and tank support of the engaged
    corps."""
    out = Modifiers()
    front = battle_front(g, rec)
    art = eng.get("art")
    if art:
        p = piece(g, art)
        if p.type == "fortress":
            out.add(
                artillery.fortress_support_value(g, p, front),
                "LGG 23-C" if side == rec.defender else "LGG 23-D",
                "fortress as artillery",
            )
        elif side != rec.attacker or fortress.assault_support_bonus(g, rec):
            # 23-G: against a fortress not neutralised it only cancels the organic artillery
            out.add(artillery.support_value(g, p, front), "LGG 16.2-B", "artillery support")
    tv = tanks.tank_support(g, rec, sub, side, eng.get("corps"))
    if tv:
        out.add(tv, "LGG 39-B", "tank support")
    return out


@implements(
    "LGG 16.3",
    "LGG 16.3-A",
    "LGG 16.3-B",
    "LGG 16.3-C",
    "LGG 16.3-D",
    "LGG 9-G",
    "LGG 23-C",
    "LGG 36.1",
    "LGG 16.4-G",
    "LGG 16.4-H",
)
def round_calc(
    g: Game,
    rec: BattleRecord,
    sub: str,
    engaged: dict[str, Any] | None = None,
    rnd: int | None = None,
) -> RoundCalc:
    """LGG 16.3 / 16.4: the force differential, fire shift and D12 modifier of a round.

    Attacker: attack value + attacker modifiers + tactical situation + support; defender: defence
    value + defender modifiers (terrain and hexside two-digit modifiers, weather, city, fortress,
    trenches) + tactical situation + support; out of supply: half, rounded down, after everything
    (not when defending in a city); each total at least 1 (16.3-A). The column is the difference,
    shifted by the fire values (our reading, ``data/battle.toml``)."""
    eng = engaged if engaged is not None else rec.engaged.get(sub, {})
    rnd = rnd if rnd is not None else max(1, int(rec.round))
    att_side, def_side = rec.attacker, rec.defender
    i = rec.hex_i
    ea, ed = eng.get(att_side, {}), eng.get(def_side, {})
    pa = piece(g, ea["corps"]) if ea.get("corps") else None
    pd = piece(g, ed["corps"]) if ed.get("corps") else None
    limited = rec.kind == "counter-offensive"
    bef_value = g.opt("bef-modifier") == "value" and bef_active(g)
    # ---- attacker
    af = SideForce(ea.get("corps"), int(pa.stat("attack", 0)) if pa else 0)
    if pa is not None:
        if M.is_cavalry(pa) and pd is not None and M.is_infantry(pd):
            stack = [
                piece(g, u)
                for u in rec.units
                if rec.units[u]["side"] == att_side
                and rec.units[u]["kind"] == "corps"
                and rec.units[u]["role"] in ("front", "rear")
            ]
            if not any(M.is_infantry(q) for q in stack):
                af.mods.add(-2, "LGG 16.3-C", "cavalry without infantry attacking infantry")
        if rec.spec.get("flank_breakthrough"):
            af.mods.add(1, "LGG 17.2-A", "flank breakthrough attack")
        if bef_value and is_bef(g, pa):
            af.mods.add(1, "LGG 16.4-C", "BEF corps attacking")
        b = assault_bonus(g, pa, "attack")
        if b:
            af.mods.add(b, "LGG 38-A", "Stosstruppen marker")
    af.mods.extend(_spec_mods(rec, "attacker", "value", sub, rnd))
    af.mods.extend(_tactical(g, rec, sub, att_side))
    af.mods.extend(_support(g, rec, sub, att_side, ea))
    af.mods.extend(tactics.combined_arms(g, rec, sub, att_side))
    raw = af.base + int(af.mods.total())
    af.total = max(1, raw)
    if pa is not None:
        halved = supply_combat_value(g, pa, af.total, False)
        af.halved = halved != af.total
        af.total = max(1, halved)

    # ---- defender
    df = SideForce(ed.get("corps"), int(pd.stat("defense", 0)) if pd is not None else 0)
    terrain_codes = [mapdata.terrain_info(g, i).defense]
    ignore_terrain = bool(
        rec.spec.get("ignore_terrain")
    )  # 23-G: an assault ignores the surrounding terrain
    if ignore_terrain or (
        limited and mapdata.effective_terrain(g, i) not in ("mountain", "high_mountain")
    ):
        terrain_codes = []
    src = rec.units.get(ea.get("corps") or "", {}).get("from")
    if src and g.board.has_label(src) and not ignore_terrain:
        j = g.board.idx(src)
        if j in g.board.neighbors(i):
            for f in mapdata.hexside_features(g, j, i):
                if f.frozen_in_severe_snow and mapdata.frozen(g, i):
                    continue
                if limited and f.name not in ("river", "large_river", "stream"):
                    continue
                if f.defense and f.defense != "0":
                    terrain_codes.append(f.defense)
    applied, running = two_digit_total(g, terrain_codes, rnd)
    if applied:
        df.mods.add(applied, "LGG 16.3-B", f"terrain and hexsides (running {running})")
    wb = weather.defender_weather_bonus(g, i)
    if wb:
        df.mods.add(wb, "LGG 7-C" if mapdata.weather_in(g, i) == "snow" else "LGG 7-B", "weather")
    if mapdata.is_city(g, i) and not ignore_terrain:
        v = int(bdata(g)["defence"]["city"])
        if v:
            df.mods.add(v, "LGG 16.3-B", "city")
    fort = defender_fortress(g, rec)
    if fort is not None and rec.kind != "assault" and mapdata.effective_terrain(g, i) == "plains":
        df.mods.add(1, "LGG 23-C", "fortress in plains")
    if not limited:
        tr = trench_level(g, rec, sub, rnd)
        if tr:
            df.mods.add(tr, "LGG 28-B", "trenches")
    if pd is not None:
        if bef_value and is_bef(g, pd):
            df.mods.add(-1, "LGG 16.4-C", "BEF corps defending")
        b = assault_bonus(g, pd, "defense")
        if b:
            df.mods.add(b, "LGG 38-A", "Stosstruppen marker")
    if not limited:
        df.mods.extend(_spec_mods(rec, "defender", "value", sub, rnd))
    df.mods.extend(fortress.assault_value_mods(g, rec, pd, bool(ea.get("art"))))
    df.mods.extend(_tactical(g, rec, sub, def_side))
    df.mods.extend(_support(g, rec, sub, def_side, ed))
    df.mods.extend(tactics.combined_arms(g, rec, sub, def_side))
    df.total = max(1, df.base + int(df.mods.total()))
    if pd is not None and pd.type != "fortress":
        halved = supply_combat_value(g, pd, df.total, True)
        df.halved = halved != df.total
        df.total = max(1, halved)

    # ---- fire (our reading: a column shift)
    def fire_of(p: Piece | None) -> int:
        if p is None:
            return 0
        printed = int(p.stat("fire", 0))
        if supply_fire_value(g, p, 1) == 0:
            return 0
        return max(0, printed + french_fire(g, p, i, battle_front(g, rec)))

    def ignores_fire(p: Piece | None) -> str | None:
        if p is None:
            return None
        if M.arm(p) == "marine" and is_coastal(g, i):
            return "LGG 16.4-G"
        if M.arm(p) == "mountain" and in_mountains(g, i):
            return "LGG 16.4-H"
        return None

    af.fire, df.fire = fire_of(pa), fire_of(pd)
    forced_fire = fortress.assault_fire(g, rec)
    if forced_fire is not None and pd is not None:
        # 23-G: the fortress gives the engaged unit a fire value of 3, whatever its own
        df.fire = forced_fire
    if ignores_fire(pd):
        af.fire = 0
    if ignores_fire(pa):
        df.fire = 0
    cfg = bdata(g)["fire"]
    shift = max(-int(cfg["cap"]), min(int(cfg["cap"]), (af.fire - df.fire) * int(cfg["per_point"])))
    diff = af.total - df.total
    cmods = _spec_mods(rec, "attacker", "column", sub, rnd)
    cmods.extend(_spec_mods(rec, "defender", "column", sub, rnd))
    tid = table_id(g, rec)
    tbl = table(g, tid)
    centre = tbl.columns.index("0")
    idx = max(0, min(len(tbl.columns) - 1, centre + diff + shift + int(cmods.total())))
    d12, total, cap = d12_modifiers(g, rec, sub, eng)
    return RoundCalc(af, df, diff, shift, cmods, idx, tbl.columns[idx], d12, total, cap, tid)


def round_distribution(g: Game, bid: str, sub: str) -> dict[str, float]:
    """The distribution of the current round of a sub-battle, once both engaged units are known."""
    rec = rec_of(g, bid)
    return distribution(g, round_calc(g, rec, sub))


def force_differential(g: Game, bid: str, sub: str) -> RoundCalc:
    return round_calc(g, rec_of(g, bid), sub)
