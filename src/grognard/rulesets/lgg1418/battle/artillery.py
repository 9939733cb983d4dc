"""LGG 15 (artillery) and 16-D (isolated army): support values, use limits, munitions.

15-A: heavy, siege and coastal artillery (siege and coastal act as heavy in battle). 15-B: one
artillery unit per combat round and sub-battle adds its support value to the engaged corps;
an artillery unit supports only one battle per activation (a second one only in a flank
breakthrough, 17.2-A); each round of use costs 1 MUN; artillery bearing an army number
supports only its own army. 16.2-B / 36.1: in Movement Doctrine the support value is 2
instead of 3. 23-C: a friendly fortress in an open-country battle acts as an artillery unit
(value 2 in 1914), spending 1 MUN per shot only when reduced (never for Serbian and Belgian
fortresses). 16-B: on defence, heavy artillery of the army adjacent to the battle may join.
16-D: an isolated army (with its HQ) has only 1 PR and 2 MUN for a battle (the blue value of
its national city, or of a city it is rail-connected to, in PR instead).

Munitions are a per-power track ``g.state.tracks["mun"][nation] = {"stock": n}`` (a scenario
sets it under ``[tracks.mun.XX]``); a power without an entry does not count munitions (the
seed gives no stocks for the scenario at hand: every use is still logged).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.core.state import Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.supply.supply import is_isolated
from grognard.rulesets.lgg1418.units import doctrine, fog
from grognard.rulesets.lgg1418.units.counters import command_army

if TYPE_CHECKING:
    from grognard.core.game import Game

MOVEMENT_SUPPORT = 2  # 16.2-B, 36.1 (printed)
FORTRESS_SUPPORT_1914 = 2  # 23-C (printed)
ISOLATED_PR = 1  # 16-D (printed)
ISOLATED_MUN = 2  # 16-D (printed)
MOVEMENT_DOCTRINES = ("movement", "trenches", "transition")


# ====================================================================== munitions (15-B)
def mun_stock(g: Game, nation: str) -> int | None:
    """A power's MUN stock, or None when the game does not count that power's munitions."""
    rec = g.state.tracks.get("mun", {}).get(nation)
    if rec is None:
        return None
    return int(rec.get("stock", 0))


@implements("LGG 15-B")
def spend_munitions(g: Game, nation: str, n: int, rule: str, reason: str) -> bool:
    """LGG 15-B: take ``n`` MUN from a power's stock; False (nothing spent) when it has too few.
    A power whose munitions are not counted always pays (the use is logged)."""
    if n <= 0:
        return True
    stock = mun_stock(g, nation)
    side = M.nation_side(g, nation) or ""
    if stock is None:
        fog.emit_private(
            g,
            side,
            "munitions",
            f"{M.nation_name(g, nation)} uses {n} MUN ({reason}; not counted)",
            None,
            rule=rule,
        )
        return True
    if stock < n:
        return False
    g.state.tracks["mun"][nation]["stock"] = stock - n
    M.touch(g)
    fog.emit_private(
        g,
        side,
        "munitions",
        f"{M.nation_name(g, nation)} spends {n} MUN ({reason}): stock {stock - n}",
        None,
        rule=rule,
    )
    return True


# ================================================================ support values (15, 16.2-B, 23-C)
def is_artillery(p: Piece) -> bool:
    return p.type == "artillery"


def movement_doctrine(g: Game, nation: str, front: str) -> bool:
    """Movement Doctrine in the sense of 16.2-B and 36.1 (including the 1914 transition to
    trenches)."""
    return doctrine.doctrine(g, nation, front) in MOVEMENT_DOCTRINES


@implements("LGG 15-A", "LGG 16.2-B", "LGG 36.1")
def support_value(g: Game, art: Piece, front: str) -> int:
    """LGG 15-A / 16.2-B / 36.1: the support an artillery unit (any category) adds to the engaged
    corps: its printed value on the face that is up, at most 2 in Movement Doctrine."""
    v = int(art.stat("support", 0))
    if movement_doctrine(g, art.nation, front):
        v = min(v, MOVEMENT_SUPPORT)
    return max(0, v)


@implements("LGG 23-C", "LGG 16.2-B")
def fortress_support_value(g: Game, fort: Piece, front: str) -> int:
    """LGG 23-C / 16.2-B: a friendly fortress in an open-country battle acts as an artillery unit:
    value 2 in 1914 whatever is printed, otherwise its printed artillery value (at most 2 in
    Movement Doctrine, 36.1)."""
    if M.current_turn(g).year == 1914:
        return FORTRESS_SUPPORT_1914
    v = int(fort.stat("artillery", 0))
    if movement_doctrine(g, fort.nation, front):
        v = min(v, MOVEMENT_SUPPORT)
    return v


@implements("LGG 23-C")
def fortress_shot_cost(g: Game, fort: Piece) -> int:
    """LGG 23-C: a fortress supporting as artillery spends 1 MUN per shot only when reduced; the
    Serbian and Belgian fortresses (``spends_no_munitions``) never spend."""
    if fort.attrs.get("spends_no_munitions") or fort.nation in ("SR", "BE"):
        return 0
    return 1 if fort.face == "reduced" else 0


@implements("LGG 15-B")
def may_support_army(g: Game, art: Piece, army: str | None) -> bool:
    """LGG 15-B: artillery bearing an army number supports only its own army."""
    own = M.army_number(g, art)
    return own is None or own == army


@implements("LGG 15-B")
def used_elsewhere(g: Game, art: Piece, battle_id: str, serial: int | None) -> bool:
    """LGG 15-B: an artillery unit supports only one battle per activation (the battle rules allow
    a second one in a flank breakthrough, 17.2-A)."""
    use = art.attrs.get("art_used")
    if not use or serial is None:
        return False
    return bool(use.get("act") == serial and use.get("battle") != battle_id)


def mark_used(g: Game, art: Piece, battle_id: str, serial: int | None) -> None:
    if serial is not None:
        M.set_attr(g, art, "art_used", {"act": serial, "battle": battle_id})


@implements("LGG 16-B")
def adjacent_heavy_artillery(g: Game, side: str, i: int, armies: set[str]) -> list[Piece]:
    """LGG 16-B: heavy artillery of the defending army (armies) in hexes adjacent to the battle hex,
    free to join it at once."""
    out = []
    for j in g.board.neighbors(i):
        for p in M.units_at_hex(g, j, side):
            if (
                is_artillery(p)
                and p.attrs.get("category") == "heavy"
                and command_army(g, p) in armies
                and p.loc.kind == "hex"
            ):
                out.append(p)
    return sorted(out, key=lambda p: p.id)


# ====================================================================== isolated army (16-D)
@implements("LGG 16-D")
def isolated_army_budget(g: Game, army: str | None) -> dict[str, Any] | None:
    """LGG 16-D: the PR and MUN an isolated army (with its HQ) may use in one battle, or None when
    the army is not isolated. 1 PR and 2 MUN; when the HQ stands in a national city, or is
    connected by rail to one, that city's blue (recruitment) value in PR instead."""

    if army is None:
        return None
    hq = M.hq_piece(g, army)
    if hq is None or not M.on_map(g, hq) or not is_isolated(g, hq, "combat"):
        return None
    pr = ISOLATED_PR
    h = M.hex_of(g, hq)
    assert h is not None
    nation = M.army_nation(g, army)
    city = _national_city_on_rail(g, h, nation, hq.side)
    if city is not None:
        pr = max(pr, mapdata.recruitment_value(g, city))
    return {"pr": pr, "mun": ISOLATED_MUN, "army": army}


def _national_city_on_rail(g: Game, h: int, nation: str, side: str) -> int | None:
    """A national city at ``h`` or reached from ``h`` along friendly-controlled rail (16-D)."""

    def good(i: int) -> bool:
        return (
            mapdata.is_city(g, i)
            and mapdata.place_nation(g, i) == nation
            and mapdata.controller(g, i) == side
        )

    if good(h):
        return h
    seen = {h}
    todo = [h]
    while todo:
        u = todo.pop()
        for v, _ in mapdata.rail_links(g, u):
            if (
                v in seen
                or mapdata.controller(g, v) != side
                or v in M.enemy_blocking_hexes(g, side)
            ):
                continue
            if good(v):
                return v
            seen.add(v)
            todo.append(v)
    return None
