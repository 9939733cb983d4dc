"""LGG 33-35 (and the end-of-year part of 30-B): the political effects of great offensives, the
weariness reaction and the patriotic reaction, as national-will changes on the typed tracks of
:mod:`.strategic`.

* 33 ([33-A]): a victorious great offensive gains VN at the end of the turn of its victory -
  French sector +10 / +12 / +15 (no, limited, major breakthrough), Italian +5 / +8 / +10
  (+15 for Italy), Russian +5 / +8 / +10 by cities taken (+15 for Russia), raised later on the
  Russian sector when more cities fall; a multinational attack: the command's country gains,
  the other +4. The attacker ignores the VN effect of its military losses on that front this
  turn (recorded in ``loss_vn_immunity`` for the VN rules of 25).
* 33-B: a failed offensive costs its attacker -4 (1915-16), -9 (1917), -12 (1918+) and -1 per
  turn it lasted (option ``offensive-duration-penalty``), the partner -4; the defender gains
  +5 (+10 for France defending a city or fortress against the Germans without allied
  reinforcements) and ignores the VN effect of its losses on that front this turn.
* 30-B: at the end of November-December an obliged power that conducted or suffered no great
  offensive that year loses 5 VN and tests its weariness at +3 (not in 1915).
* 34: the weariness test (provisional table ``weariness``) in the cases of 34-A with the
  exceptions of 34-B and the modifiers of 34-C; its effects 34-D.
* 35: the patriotic reaction - a major power defeated on its own territory by an enemy great
  offensive, or losing a city or fortress there, tests D12 >= 9 (-2 if its capital is lost);
  effects 35-B.

All of it happens at the end of the turn, in the step ``national-will-adjustment`` (the
final-phase hook of rule 25), which also runs the end-of-turn parts of rules 30 and 36: the
October 1914 decision (36.2-A, after the September turn), the go-on-or-halt decisions of the
offensives under way (30-D), the English auxiliary-offensive decision (30-I), the front
formation of 36.2-B and the record of victorious battles (36.4).

Records in ``state.vars["lgg"]["politics"]``: ``patriotic_due`` and ``weariness_due`` (tests
queued for the end of the turn), ``instability_due`` (instability tests the rules of 25/40
must hold), ``social_penalty`` (nation -> year), ``minor_combativeness_vn`` (side -> -1),
``loss_vn_immunity`` (nation -> front -> turn), ``weariness_tested`` (nation -> year -> list
of reasons), ``capital_pending`` (nation -> turn index of a capital lost in 1914).
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Step
from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418 import strategic
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.military import doctrine_transitions as DT
from grognard.rulesets.lgg1418.military import offensive, trench
from grognard.rulesets.lgg1418.strategic import queue_patriotic, rec, rec_w

if TYPE_CHECKING:
    from grognard.core.game import Game


@lru_cache(maxsize=4)
def _load(path: str) -> dict[str, Any]:
    return tomllib.loads(Path(path).read_text(encoding="utf-8"))


def values(g: Game) -> dict[str, Any]:
    """The political values of ``data/politics.toml`` (provisional where marked)."""
    return _load(str(g.ruleset.data_dir / "politics.toml"))


def year(g: Game) -> int:
    return M.current_turn(g).year


def is_nov_dec(g: Game) -> bool:
    return 11 in M.current_turn(g).months


def last_turn_of_year(g: Game) -> str:
    return [t.id for t in M.data(g).calendar if t.year == year(g)][-1]


# ====================================================================== national will helpers
def vn(g: Game, nation: str) -> int:
    return strategic.national_will(g, nation).value


def unstable(g: Game, nation: str) -> bool:
    """VN in the unstable zone (provisional: below 20)."""
    return vn(g, nation) < int(values(g)["national_will"]["unstable_below"])


def change_vn(g: Game, nation: str, delta: int, rule: str, reason: str) -> None:
    if not delta or nation not in g.state.alignment:
        return
    r = strategic.national_will(g, nation)
    r.value += delta
    strategic.set_national_will(g, nation, r, rule, reason)


def set_vn(g: Game, nation: str, value: int, rule: str, reason: str) -> None:
    r = strategic.national_will(g, nation)
    r.value = value
    strategic.set_national_will(g, nation, r, rule, reason)


def shift_parliament(
    g: Game, nation: str, boxes: int, rule: str, reason: str, to_defeatist: bool = False
) -> None:
    """Move the parliament marker (negative: toward defeatism), within the track."""
    lo, hi = int(values(g)["parliament"]["defeatist"]), int(values(g)["parliament"]["patriotic"])
    r = strategic.national_will(g, nation)
    before = r.parliament
    r.parliament = lo if to_defeatist else max(lo, min(hi, r.parliament + boxes))
    strategic.set_national_will(g, nation, r, rule, reason)
    g.emit(
        "parliament",
        f"{M.nation_name(g, nation)} parliament {before} -> {r.parliament} ({reason})",
        rule=rule,
        nation=nation,
        parliament=r.parliament,
    )


def immune_to_loss_vn(g: Game, nation: str, front: str) -> None:
    """33 / 33-B: the nation ignores the VN effects of its military losses on ``front`` this
    turn."""
    rec_w(g).setdefault("loss_vn_immunity", {}).setdefault(nation, {})[front] = M.turn_index(g)
    M.touch(g)


def ignores_loss_vn(g: Game, nation: str, front: str) -> bool:
    """For the VN rules of 25: does ``nation`` ignore the VN effects of its losses on ``front``
    now?"""
    return rec(g).get("loss_vn_immunity", {}).get(nation, {}).get(front) == M.turn_index(g)


# ====================================================================== 33 political effects
@implements("LGG 33", "LGG [33-A]")
def victory_gain(g: Game, off: dict[str, Any]) -> dict[str, int]:
    """LGG 33 / [33-A]: the VN gain of a victorious offensive, by nation (the total so far on the
    Russian sector, where later cities raise it)."""
    v = values(g)["victory"]
    sector, cmd = off["sector"], off["command"]
    if sector == "Russian":
        k = min(2, len(off.get("cities", [])))
        own = cmd == "RU"
    else:
        k = {"none": 0, "limited": 1, "major": 2}[off.get("breakthrough", "none")]
        own = sector == "Italian" and cmd == "IT"
    gain = int(v[sector][k])
    if own and k == 2 and sector != "French":
        gain = int(v["own_sector_best"])
    out = {cmd: gain}
    for n in off["nations"]:
        if n != cmd:
            out[n] = int(v["partner"])
    return out


@implements("LGG 33-B")
def defeat_effects(g: Game, off: dict[str, Any]) -> dict[str, int]:
    """LGG 33-B: VN changes when an offensive is halted in failure: the command's country -4
    (1915, 1916), -9 (1917), -12 (1918+) and -1 per turn the offensive lasted; the partner -4;
    each defending power +5, France +10 defending a city or fortress against the Germans
    without allied reinforcements."""
    v = values(g)["defeat"]
    by_year = {int(k): int(x) for k, x in v["by_year"].items()}
    y = min(max(year(g), 1915), 1918)
    cmd = off["command"]
    out: dict[str, int] = {cmd: by_year[y] + int(v["per_turn"]) * max(1, int(off.get("turns", 1)))}
    for n in off["nations"]:
        if n != cmd:
            out[n] = int(v["partner"])
    objective_strong = any(
        mapdata.is_city(g, g.board.idx(h)) or offensive._is_fortress_hex(g, g.board.idx(h))
        for h in off["objective"]
    )
    for n in off.get("defender_nations", []):
        if not M.is_major(g, n) or M.nation_side(g, n) == off["side"]:
            continue
        gain = int(v["defender"])
        if n == "FR" and cmd == "DE" and objective_strong and not off.get("allied_defence"):
            gain = int(v["france_alone"])
        out[n] = out.get(n, 0) + gain
    return out


@implements("LGG 33", "LGG [33-A]", "LGG 33-B")
def apply_political_effects(g: Game) -> None:
    """LGG 33 / 33-B: at the end of the turn, the VN effects of the offensives that were victorious
    (or took more Russian cities) or were halted in failure this turn."""
    now = M.turn_index(g)
    for off in sorted(offensive.offensives(g).values(), key=lambda o: o["id"]):
        if off.get("vn_due") == now:
            gains = victory_gain(g, off)
            paid = dict(off.get("vn_paid", {}))
            for n, total in sorted(gains.items()):
                delta = total - int(paid.get(n, 0))
                change_vn(
                    g,
                    n,
                    delta,
                    "LGG 33",
                    f"great offensive on the {off['sector']} sector victorious",
                )
                paid[n] = total
            off["vn_paid"] = paid
            off["cities_paid"] = list(off.get("cities", []))
            for n in off["nations"]:
                immune_to_loss_vn(g, n, off["front"])
            off["vn_due"] = None
        if off.get("halted") == now and off.get("failed") and not off.get("defeat_paid"):
            for n, delta in sorted(defeat_effects(g, off).items()):
                change_vn(
                    g,
                    n,
                    delta,
                    "LGG 33-B",
                    f"great offensive on the {off['sector']} sector "
                    f"{'defeated' if M.nation_side(g, n) == off['side'] else 'repulsed'}",
                )
            for n in off.get("defender_nations", []):
                if M.nation_side(g, n) != off["side"]:
                    immune_to_loss_vn(g, n, off["front"])
            off["defeat_paid"] = True
    M.touch(g)


# ====================================================================== 30-B obligations
def conducted(g: Game, nation: str, y: int) -> bool:
    return any(o["year"] == y and nation in o["nations"] for o in offensive.offensives(g).values())


def suffered(g: Game, nation: str, y: int) -> bool:
    return any(
        o["year"] == y and nation in o.get("defender_nations", [])
        for o in offensive.offensives(g).values()
    )


def _between(g: Game, y: int, a: str, b: str, front: str) -> bool:
    for o in offensive.offensives(g).values():
        if o["year"] != y or o["front"] != front:
            continue
        att, dfn = set(o["nations"]), set(o.get("defender_nations", []))
        if (a in att and b in dfn) or (b in att and a in dfn):
            return True
    return False


@implements("LGG 30-B")
def obliged(g: Game, nation: str, y: int) -> bool:
    """LGG 30-B: must ``nation`` conduct a great offensive in year ``y``?

    Germany: yes (one of the three sectors). Austria-Hungary: not if Germany and Russia fought
    one on the East. France: not if Germany and England fought one on the West. England: not if
    Germany and France fought one on the West. Once Russia has surrendered the Central Powers
    owe no Western offensive that year (except 1918+). Russia and Italy: option
    ``great-offensive-obligation-others`` (digest A-57); the others: no."""
    surrendered = "RU" in M.st(g).get("surrendered", [])
    if nation == "DE":
        return not (surrendered and y < 1918)
    if nation == "AH":
        return not _between(g, y, "DE", "RU", M.EAST)
    if nation == "FR":
        return not _between(g, y, "DE", "GB", M.WEST)
    if nation == "GB":
        return not _between(g, y, "DE", "FR", M.WEST)
    if nation in ("RU", "IT"):
        return g.opt("great-offensive-obligation-others") == "obliged"
    return False


@implements("LGG 30-B")
def apply_obligations(g: Game) -> None:
    """LGG 30-B: at the end of November-December (1915 on), an obliged major power that neither
    conducted nor suffered a great offensive that year loses 5 VN and tests its weariness at +3
    (not in 1915)."""
    y = year(g)
    if not is_nov_dec(g) or y < 1915:
        return
    for n in sorted(g.state.alignment):
        if not M.is_major(g, n) or not obliged(g, n, y) or conducted(g, n, y) or suffered(g, n, y):
            continue
        change_vn(
            g,
            n,
            int(values(g)["national_will"]["no_offensive"]),
            "LGG 30-B",
            "no great offensive this year",
        )
        if y > 1915:
            queue_weariness(
                g,
                n,
                "no great offensive conducted or suffered this year",
                "LGG 30-B",
                no_offensive=True,
            )


# ====================================================================== 34 weariness
def _holds(g: Game, side: str, place: str) -> bool:
    for i in range(g.board.n):
        if mapdata.place_name(g, i) == place and mapdata.is_urban(g, i):
            return mapdata.controller(g, i) == side
    return False


@implements("LGG 34-B")
def weariness_exempt(g: Game, nation: str) -> str | None:
    """LGG 34-B: the exceptions - Central Powers if Germany occupies Paris; the Entente if it
    occupies Berlin; France if Strasbourg and Metz are taken; Russia if Budapest or Vienna is
    taken; the United States never test."""
    side = M.nation_side(g, nation)
    if nation == "US":
        return "the United States never test their weariness"
    if side == M.CP and _holds(g, M.CP, "Paris"):
        return "Germany occupies Paris"
    if side == M.ENTENTE and _holds(g, M.ENTENTE, "Berlin"):
        return "the Entente occupies Berlin"
    if nation == "FR" and _holds(g, M.ENTENTE, "Strasbourg") and _holds(g, M.ENTENTE, "Metz"):
        return "Strasbourg and Metz are taken"
    if nation == "RU" and (_holds(g, M.ENTENTE, "Budapest") or _holds(g, M.ENTENTE, "Vienna")):
        return "Budapest or Vienna is taken"
    return None


def queue_weariness(g: Game, nation: str, reason: str, rule: str, **flags: Any) -> None:
    """Queue a weariness test for the end of the turn (one per nation per turn; the flags of
    several cases add up)."""
    if not M.is_major(g, nation):
        return
    due = rec_w(g).setdefault("weariness_due", {})
    d = due.setdefault(nation, {"reasons": [], "rules": []})
    d["reasons"].append(reason)
    d["rules"].append(rule)
    for k, v in flags.items():
        if v:
            d[k] = v
    M.touch(g)


def _capital_lost(g: Game, nation: str) -> bool:
    for i in range(g.board.n):
        if mapdata.is_capital(g, i) and mapdata.place_nation(g, i) == nation:
            return mapdata.controller(g, i) not in (None, M.nation_side(g, nation))
    return False


def _hqs_destroyed_this_year(g: Game, nation: str) -> int:
    first = min(t.index for t in M.data(g).calendar if t.year == year(g))
    n = 0
    for pid, when in M.st(g).get("destroyed_hq", {}).items():
        p = g.state.pieces.get(pid)
        if p is not None and p.nation == nation and int(when) >= first:
            n += 1
    return n


@implements("LGG 34-C", "LGG 25-B")
def weariness_modifiers(g: Game, nation: str, flags: dict[str, Any]) -> Modifiers:
    """LGG 34-C / 25-B / 30-B: the modifiers of a weariness test.

    The counter-offensive modifier when the enemy launched and won a great offensive against
    the power this year; the 1916 bonus, unless the capital is occupied (Moscow and Petrograd
    for Russia); revolution +1; failure of a great offensive (attacker) or major defeat
    (defender) +1; no great offensive conducted or suffered this year +3 (1916+); capital
    lost: +2 per HQ destroyed during the year."""
    wm = values(g)["weariness_modifiers"]
    mods = Modifiers()
    y = year(g)
    enemy_won = any(
        o["year"] == y
        and nation in o.get("defender_nations", [])
        and o.get("victorious") is not None
        for o in offensive.offensives(g).values()
    )
    if enemy_won:
        mods.add(
            int(wm["counter_offensive"]),
            "LGG 34-C",
            "the enemy won a great offensive (counter-offensive modifier)",
        )
    if y == 1916:
        occupied = _capital_lost(g, nation) or (
            nation == "RU"
            and (not _holds(g, M.ENTENTE, "Moscow") or not _holds(g, M.ENTENTE, "Petrograd"))
            and _russian_capitals_exist(g)
        )
        if not occupied:
            mods.add(int(wm["year_1916"]), "LGG 34-C", "1916")
    if nation in M.st(g).get("revolution", []):
        mods.add(int(wm["revolution"]), "LGG 34-C", "revolution")
    if flags.get("failure") or flags.get("major_defeat"):
        mods.add(
            int(wm["failure_or_major_defeat"]), "LGG 34-C", "failed great offensive or major defeat"
        )
    if flags.get("no_offensive") and y >= 1916:
        mods.add(int(wm["no_offensive"]), "LGG 34-C", "no great offensive this year")
    if flags.get("capital"):
        mods.add(
            int(wm["hq_destroyed"]) * _hqs_destroyed_this_year(g, nation),
            "LGG 25-B",
            "HQs destroyed this year",
        )
    return mods


def _russian_capitals_exist(g: Game) -> bool:
    names = {mapdata.place_name(g, i) for i in range(g.board.n) if mapdata.is_urban(g, i)}
    return "Moscow" in names and "Petrograd" in names


@implements("LGG 34", "LGG 34-D")
def weariness_test(g: Game, nation: str, flags: dict[str, Any], reason: str) -> bool:
    """LGG 34 / 34-D: roll the test; on weariness apply the effects (and those of Germany's
    weariness on Austria-Hungary and Turkey). Returns whether the power showed weariness."""
    why = weariness_exempt(g, nation)
    if why:
        g.emit(
            "weariness",
            f"{M.nation_name(g, nation)} takes no weariness test ({why})",
            rule="LGG 34-B",
        )
        return False
    table = g.ruleset.tables(g.scenario.table_overrides)["weariness"]
    r = g.roll(
        "d12",
        f"{M.nation_name(g, nation)}: weariness test ({reason})",
        "LGG 34",
        modifiers=weariness_modifiers(g, nation, flags),
    )
    res = table.lookup("test", r.modified)
    rec_w(g).setdefault("weariness_tested", {}).setdefault(nation, {}).setdefault(
        str(year(g)), []
    ).append(reason)
    if res.result != "W":
        g.emit("weariness", f"{M.nation_name(g, nation)} holds ({res.explain()})", rule="LGG 34")
        return False
    g.emit(
        "weariness",
        f"{M.nation_name(g, nation)} shows weariness ({res.explain()})",
        rule="LGG 34",
        nation=nation,
    )
    apply_weariness(g, nation, effects=(1, 2, 3, 4))
    if nation == "DE":
        for ally in ("AH", "TR"):
            if M.nation_side(g, ally) == M.CP:
                effects = (1, 2, 3, 4) if not unstable(g, ally) else (1, 2, 4)
                apply_weariness(g, ally, effects=effects, cause="Germany's weariness")
        rec_w(g).setdefault("minor_combativeness_vn", {})[M.CP] = -1
    return True


@implements("LGG 34-D")
def apply_weariness(
    g: Game, nation: str, effects: tuple[int, ...], cause: str = "weariness"
) -> None:
    """LGG 34-D: (1) parliament one box toward defeatism (1918+: straight to the defeatist box);
    (2) VN straight to box 20 unless already unstable, then the loss of a D12 and an
    instability test; (3) social tests -1 (except capitulation) until the end of the year;
    (4) no Stosstruppen received or produced until the end of the year. Austria-Hungary and
    Turkey, when Germany shows weariness, apply 1, 2 and 4, and 3 only if their VN was outside
    the unstable zone (option ``weariness-allied-effects``, digest A-21)."""
    if 1 in effects:
        shift_parliament(g, nation, -1, "LGG 34-D", cause, to_defeatist=year(g) >= 1918)
    if 2 in effects:
        box = int(values(g)["national_will"]["weariness_box"])
        if not unstable(g, nation) and vn(g, nation) > box:
            set_vn(g, nation, box, "LGG 34-D", f"{cause}: straight to box {box}")
        r = g.roll(
            "d12", f"{M.nation_name(g, nation)}: national will lost to weariness", "LGG 34-D"
        )
        change_vn(g, nation, -r.natural, "LGG 34-D", f"{cause}: loss of a D12")
        rec_w(g).setdefault("instability_due", []).append(
            {"nation": nation, "turn": M.turn_index(g), "rule": "LGG 34-D"}
        )
    if 3 in effects:
        rec_w(g).setdefault("social_penalty", {})[nation] = year(g)
    if 4 in effects:
        r = strategic.national_will(g, nation)  # type: ignore[assignment]
        r.weary_until = last_turn_of_year(g)  # type: ignore[attr-defined]
        strategic.set_national_will(g, nation, r, "LGG 34-D", cause)  # type: ignore[arg-type]
    M.touch(g)
    g.emit(
        "weariness-effects",
        f"{M.nation_name(g, nation)}: weariness effects {', '.join(map(str, effects))} ({cause})",
        rule="LGG 34-D",
        nation=nation,
        effects=list(effects),
    )


def social_test_modifier(g: Game, nation: str, capitulation: bool = False) -> int:
    """34-D (3): the extra -1 on social tests other than capitulation, until the end of the year."""
    if capitulation:
        return 0
    return -1 if rec(g).get("social_penalty", {}).get(nation) == year(g) else 0


def stosstruppen_banned(g: Game, nation: str) -> bool:
    """34-D (4): may the power neither receive nor produce Stosstruppen now?"""
    until = strategic.national_will(g, nation).weary_until
    return bool(until) and M.turn_index(g) <= M.data(g).calendar_index(until)


def minor_combativeness_vn_modifier(g: Game, side: str) -> int | None:
    """34-D: after Germany's weariness the VN modifier of the minor countries' combativeness
    tests becomes -1 (None: the ordinary modifier)."""
    v = rec(g).get("minor_combativeness_vn", {}).get(side)
    return int(v) if v is not None else None


@implements("LGG 34-A")
def collect_weariness_cases(g: Game) -> None:
    """LGG 34-A: the cases of the end of this turn.

    Loss of the capital of a major power (in 1914 held until November-December, 25-B). 1915+:
    major defeat after an enemy great offensive - a city and 5 hexes (West) or 10 hexes (East)
    lost. 1916+: failure of a great offensive launched by a major power (except the Central
    Powers on the East after a voluntary halt in fair weather throughout); France, when it
    launched or suffered none and England's failed. 1918+: France and Germany on the halt of
    their French-sector offensive (voluntary or not, even victorious; not at the
    November-December deadline; for France not once Alsace-Lorraine is retaken) or when none
    was launched by September; a major defeat: 2 national cities lost, then one test per new
    city lost in the year."""
    y = year(g)
    now = M.turn_index(g)
    for n in sorted(g.state.alignment):
        if not M.is_major(g, n):
            continue
        lost = _capital_lost_this_turn(g, n)
        pending = rec_w(g).setdefault("capital_pending", {})
        if lost and y == 1914 and not is_nov_dec(g):
            pending[n] = now
        elif lost or (n in pending and is_nov_dec(g)):
            pending.pop(n, None)
            queue_weariness(g, n, "loss of the capital", "LGG 34-A", capital=True)
    for off in sorted(offensive.offensives(g).values(), key=lambda o: o["id"]):
        if y >= 1915 and not off.get("major_defeat_tested"):
            for n in off.get("defender_nations", []):
                if _major_defeat(g, off, n):
                    off["major_defeat_tested"] = True
                    queue_weariness(
                        g,
                        n,
                        "major defeat in an enemy great offensive",
                        "LGG 34-A",
                        major_defeat=True,
                    )
        if off.get("halted") != now:
            continue
        cmd = off["command"]
        if y >= 1916 and off.get("failed"):
            exempt = (
                off["side"] == M.CP
                and off["front"] == M.EAST
                and off.get("halt_reason", "").startswith("voluntary")
                and off.get("fair_throughout", True)
            )
            if not exempt:
                queue_weariness(g, cmd, "failure of its great offensive", "LGG 34-A", failure=True)
            if (
                cmd == "GB"
                and off["front"] == M.WEST
                and not conducted(g, "FR", y)
                and not suffered(g, "FR", y)
            ):
                queue_weariness(
                    g, "FR", "England's great offensive failed and France had none", "LGG 34-A"
                )
        retaken = (
            cmd == "FR" and _holds(g, M.ENTENTE, "Strasbourg") and _holds(g, M.ENTENTE, "Metz")
        )
        if (
            y >= 1918
            and off["sector"] == "French"
            and cmd in ("FR", "DE")
            and off.get("halt_reason") != "end of the year"
            and not retaken
        ):
            queue_weariness(
                g, cmd, "halt of its great offensive (1918+)", "LGG 34-A", failure=off.get("failed")
            )
    if y >= 1918 and 9 in M.current_turn(g).months:
        for n in ("FR", "DE"):
            if n in g.state.alignment and not any(
                o["year"] == y and n in o["nations"] and o["sector"] == "French"
                for o in offensive.offensives(g).values()
            ):
                queue_weariness(
                    g, n, "no great offensive launched by September (1918+)", "LGG 34-A"
                )
    if y >= 1918:
        for n in sorted(g.state.alignment):
            if not M.is_major(g, n):
                continue
            lost = _national_cities_lost_this_year(g, n)  # type: ignore[assignment]
            done = int(rec(g).get("cities_tested", {}).get(f"{n}:{y}", 0))
            if lost >= 2 and lost > done:
                rec_w(g).setdefault("cities_tested", {})[f"{n}:{y}"] = lost
                queue_weariness(
                    g,
                    n,
                    "major defeat: national cities lost (1918+)",
                    "LGG 34-A",
                    major_defeat=True,
                )


def _capital_lost_this_turn(g: Game, nation: str) -> bool:
    for i in range(g.board.n):
        if mapdata.is_capital(g, i) and mapdata.place_nation(g, i) == nation:
            return mapdata.conquered_turn(g, i) == M.turn_index(g) and mapdata.controller(
                g, i
            ) not in (None, M.nation_side(g, nation))
    return False


def _major_defeat(g: Game, off: dict[str, Any], nation: str) -> bool:
    """34-A: an enemy great offensive took a city of ``nation`` and 5 (West) / 10 (East) more
    hexes."""
    if not M.is_major(g, nation) or M.nation_side(g, nation) == off["side"]:
        return False
    mine = [
        h
        for h in off.get("conquered", [])
        if mapdata.place_nation(g, g.board.idx(h)) == nation
        or mapdata.country_of(g, g.board.idx(h)) == nation
    ]
    cities = [h for h in mine if mapdata.is_city(g, g.board.idx(h))]
    need = 5 if off["front"] == M.WEST else 10
    return bool(cities) and len(mine) - 1 >= need


def _national_cities_lost_this_year(g: Game, nation: str) -> int:
    first = min(t.index for t in M.data(g).calendar if t.year == year(g))
    side = M.nation_side(g, nation)
    n = 0
    for i in range(g.board.n):
        if (
            mapdata.is_city(g, i)
            and mapdata.place_nation(g, i) == nation
            and mapdata.controller(g, i) not in (None, side)
        ):
            t = mapdata.conquered_turn(g, i)
            if t is not None and t >= first:
                n += 1
    return n


# ====================================================================== 35 patriotic reaction
@implements("LGG 35-A")
def collect_patriotic_cases(g: Game) -> None:
    """LGG 35-A: a major power defeated on its own territory this turn - by an enemy great
    offensive (its objective there taken) or by the loss of a city or a fortress there, even in
    a secondary battle."""
    now = M.turn_index(g)
    for off in offensive.offensives(g).values():
        if off.get("victorious") == now:
            for h in off["objective"]:
                n = mapdata.country_of(g, g.board.idx(h))
                if n and M.nation_side(g, n) not in (None, off["side"]):
                    queue_patriotic(
                        g, n, "defeated on its territory by an enemy great offensive", "LGG 35-A"
                    )
    for i in range(g.board.n):
        if mapdata.conquered_turn(g, i) != now:
            continue
        n = mapdata.country_of(g, i) or mapdata.place_nation(g, i)
        if not n or not M.is_major(g, n):
            continue
        if mapdata.controller(g, i) in (None, M.nation_side(g, n)):
            continue
        if mapdata.is_city(g, i) or offensive._is_fortress_hex(g, i):
            queue_patriotic(g, n, f"lost {mapdata.place_name(g, i)} on its territory", "LGG 35-A")


@implements("LGG 35-A", "LGG 35-B")
def patriotic_test(g: Game, nation: str, reason: str) -> bool:
    """LGG 35-A / 35-B: D12 >= 9 (-2 when its capital is lost; no event modifier exists) gives a
    patriotic reaction: VN straight to box 35 (never lowered - our reading), parliament 2 / 3 / 4
    boxes to the right on a D12 of 2-8 / 9-10 / 11-12 (a 1 counts as the lowest band, option
    ``lowest-band-below``), civilian production down 1 box (odd) or 2 (even) on a D6 (invented
    die), without VN effect."""
    pv = values(g)["patriotic"]
    mods = Modifiers()
    if _capital_lost(g, nation):
        mods.add(int(pv["capital_lost"]), "LGG 35-A", "capital lost")
    r = g.roll(
        "d12",
        f"{M.nation_name(g, nation)}: patriotic reaction ({reason})",
        "LGG 35-A",
        modifiers=mods,
    )
    if r.modified < int(pv["threshold"]):
        g.emit("patriotic", f"{M.nation_name(g, nation)}: no patriotic reaction", rule="LGG 35-A")
        return False
    g.emit(
        "patriotic",
        f"{M.nation_name(g, nation)}: patriotic reaction",
        rule="LGG 35-A",
        nation=nation,
    )
    box = int(values(g)["national_will"]["patriotic_box"])
    if vn(g, nation) < box:
        set_vn(g, nation, box, "LGG 35-B", "patriotic reaction: straight to box 35")
    p = g.roll(
        "d12", f"{M.nation_name(g, nation)}: parliament after the patriotic reaction", "LGG 35-B"
    )
    shift_parliament(g, nation, parliament_boxes(g, p.natural), "LGG 35-B", "patriotic reaction")
    d = g.roll(
        str(pv["production_die"]),
        f"{M.nation_name(g, nation)}: civilian production after the patriotic reaction",
        "LGG 35-B",
    )
    drop = 1 if d.natural % 2 else 2
    prod = g.state.tracks.setdefault("civilian_production", {})
    prod[nation] = int(prod.get(nation, 0)) - drop
    M.touch(g)
    g.emit(
        "production",
        f"{M.nation_name(g, nation)} civilian production down {drop} box(es) (no VN effect)",
        rule="LGG 35-B",
        nation=nation,
        drop=drop,
    )
    return True


@implements("LGG 35-B")
def parliament_boxes(g: Game, roll: int) -> int:
    """LGG 35-B: 2 boxes on 2-8, 3 on 9-10, 4 on 11-12 (below 2: the lowest band, A-35)."""
    if roll >= 11:
        return 4
    if roll >= 9:
        return 3
    if roll >= 2 or g.opt("lowest-band-below"):
        return 2
    return 0


# ====================================================================== the end-of-turn step
@implements("LGG 33", "LGG 34", "LGG 35", "LGG 30-B", "LGG 30-D", "LGG 36.2-A", "LGG 36.2-B")
class EndOfTurnPolitics(Step):
    """LGG 25 hook ``national-will-adjustment``: the end-of-turn parts of rules 30, 33-36.

    Order: the October 1914 decision (after September 1914, 36.2-A); the offensives' go-on or
    halt decisions (30-D) and the end of the year; the VN effects of offensives (33, 33-B) and
    of missing offensives (30-B); the English auxiliary decision (30-I); the weariness (34) and
    patriotic (35) tests; the front formation (36.2-B) and the turn's records."""

    name = "national-will-adjustment"
    title = "National will adjustments"
    rule = "LGG 33"
    composite = True

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:
        stage = f.params.get("stage", "october")
        if stage == "october":
            f.params["stage"] = "halts"
            if M.current_turn(g).id == "1914-09":
                return "october-trenches", {}
            return self.next_child(g, f)
        if stage == "halts":
            f.params["stage"] = "effects"
            if offensive.active_offensives(g):
                return "offensive-halt-decision", {}
            return self.next_child(g, f)
        if stage == "effects":
            f.params["stage"] = "auxiliary"
            offensive.year_end(g)
            apply_political_effects(g)
            apply_obligations(g)
            return self.next_child(g, f)
        if stage == "auxiliary":
            f.params["stage"] = "tests"
            if M.st(g).get("auxiliary_window"):
                return "auxiliary-offensive-decision", {}
            return self.next_child(g, f)
        if stage == "tests":
            f.params["stage"] = "done"
            collect_weariness_cases(g)
            collect_patriotic_cases(g)
            for n, d in sorted(rec_w(g).pop("weariness_due", {}).items()):
                weariness_test(g, n, d, "; ".join(d["reasons"]))
            for n, reasons in sorted(rec_w(g).pop("patriotic_due", {}).items()):
                patriotic_test(g, n, "; ".join(reasons))
            DT.form_fronts(g)
            DT.record_victories(g)
            trench.clear_turn_records(g)
            M.touch(g)
        return None


STEPS: tuple[type[Step], ...] = (EndOfTurnPolitics,)
