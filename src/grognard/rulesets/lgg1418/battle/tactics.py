"""LGG 37 (combat tactics) and 38 (Stosstruppen).

37-A acquisition: in Fire or Combined Doctrine each side secretly notes a target tactic at the
start of the year; in each reinforcement phase it may test (D12 + modifiers >= 12) for a major
power of its own (not Turkey) or wait, the side with the Western initiative first; at most two
tactics a year for both sides together; after an acquisition the side notes a second target;
in November-December, if only one tactic was acquired that year, one side automatically gets
its noted tactic (a die: even the Entente, odd the Central Powers). 37-B: the other countries
learn an acquired tactic after a delay. 37-C..37-J: what each tactic does (functions called by
the preliminary bombardment and main battle rules, and by the battle procedure at its step D).
38: Stosstruppen markers make assault corps (elite, bonuses, rigid ZoCs ignored, encirclement,
losses).

State: ``st["tactics"]`` (acquisitions ``{"tactic", "nation", "side", "turn", "year"}``),
``st["tactic_tests"]`` (``{"side", "year", "turn", "ok"}``), the secret target of each side in
``g.state.secrets[side]["tactic_target"]``, ``g.state.tracks["assault_markers"][nation]`` (markers
in hand),
``st["defence_in_depth"][side]`` (passed / last failed turn), ``st["infiltration_used"]``.
Technologies (42) are read from ``st["technologies"][nation]`` (names) when present.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import artillery, tanks
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.battle.base import piece, say
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.strategic import national_will
from grognard.rulesets.lgg1418.units import doctrine
from grognard.rulesets.lgg1418.units.counters import army_general, ghq_value

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.lgg1418.battle.base import BattleRecord

TACTICS = (
    "massive bombardment",
    "combat gas",
    "blitz bombardment",
    "creeping barrage",
    "infiltration",
    "tactical air support",
    "defence in depth",
    "combined arms",
)
HARD = (
    "blitz bombardment",
    "infiltration",
    "tactical air support",
    "combined arms",
    "defence in depth",
)
TECH_BONUS = {
    "combat gas": ("chlorine", "phosgene", "mustard"),
    "blitz bombardment": ("flamethrowers", "light machine guns"),
    "infiltration": ("heavy tanks", "stosstruppen", "assault troops", "flamethrowers"),
    "tactical air support": ("aerodynamics", "manoeuvrability"),
    "defence in depth": ("anti-tank guns",),
}
ENTENTE_WEST = ("FR", "GB", "IT", "US", "BE", "NL", "CH")
CP_CORE = ("DE", "AH", "IT", "BE", "NL", "CH")
BALKAN_MINORS = ("BG", "RO", "SR", "GR", "MN", "AL")
GAS_ORDER = ("chlorine", "phosgene", "mustard")
GAS_LIFE = 3  # 37-D (printed): a gas may be used for 3 turns


# ============================================================ acquisition and learning (37-A, 37-B)
def acquisitions(g: Game) -> list[dict[str, Any]]:
    return M.st(g).setdefault("tactics", [])


def _turn_in_year(g: Game) -> int:
    t = M.current_turn(g)
    return sum(
        1 for x in M.data(g).calendar if x.year == t.year and x.index <= t.index and not x.pre_turn
    )


@implements("LGG 37-B")
def learning_delay(source: str, target: str, g: Game) -> int:
    """LGG 37-B: turns before ``target`` learns a tactic ``source`` acquired."""
    s_side, t_side = M.nation_side(g, source), M.nation_side(g, target)
    if source == target:
        return 0
    if s_side != t_side:
        return 3
    if s_side == M.ENTENTE:
        west = {source, target} <= set(ENTENTE_WEST)
        if west:
            return 1
        if "RU" in (source, target) and ({source, target} - {"RU"}) <= set(ENTENTE_WEST):
            return 2
        return 3
    if {source, target} <= set(CP_CORE):
        return 1
    return 3


@implements("LGG 37-B")
def knows(g: Game, nation: str, tactic: str) -> bool:
    """LGG 37-A / 37-B: has ``nation`` the tactic now (acquired, or learned after the delay)? France
    starts with "le choc a outrance" (36), which is not a tactic of this list."""
    now = M.turn_index(g)
    for a in acquisitions(g):
        if a["tactic"] != tactic:
            continue
        if a["nation"] == nation or now >= int(a["turn"]) + learning_delay(a["nation"], nation, g):
            return True
    return False


def side_knows(g: Game, side: str, tactic: str) -> bool:
    return any(knows(g, n, tactic) for n in M.powers_of(g, side))


def _year_acquired(g: Game, year: int) -> list[dict[str, Any]]:
    return [a for a in acquisitions(g) if int(a["year"]) == year and not a.get("learned")]


def _tests(g: Game) -> list[dict[str, Any]]:
    return M.st(g).setdefault("tactic_tests", [])


@implements("LGG 37-A")
def acquisition_modifiers(
    g: Game, side: str, nation: str, tactic: str, *, same_turn_other: bool = False
) -> Modifiers:
    """LGG 37-A: modifiers of an acquisition test for ``nation`` (of ``side``) seeking
    ``tactic``."""
    t = M.current_turn(g)
    year = t.year
    mods = Modifiers()
    mods.add(_turn_in_year(g), "LGG 37-A", "turns of the year")
    losses = int(M.st(g).get("losses_year", {}).get(str(year), {}).get(nation, 0))
    if losses >= 20:
        mods.add(1, "LGG 37-A", "20+ losses this year")
    if year in M.st(g).get("go_defeated", {}).get(nation, []):
        mods.add(1, "LGG 37-A", "defeated during a Great Offensive")
    tests = [x for x in _tests(g) if x["year"] == year]
    if not tests and not same_turn_other:
        mods.add(1, "LGG 37-A", "first test of the year")
    mine = [x for x in tests if x["side"] == side]
    theirs = [x for x in tests if x["side"] != side]
    if (
        theirs
        and not theirs[0]["ok"]
        and not any(x["turn"] == M.turn_index(g) for x in mine)
        and not mine
    ):
        mods.add(2, "LGG 37-A", "the opponent's first test of the year failed")
    techs = set(M.st(g).get("technologies", {}).get(nation, []))
    n = sum(1 for x in TECH_BONUS.get(tactic, ()) if x in techs)
    if n:
        mods.add(n, "LGG 37-A", "particular technologies")
    if doctrine.doctrine(g, nation, M.WEST) == "combined":
        mods.add(2, "LGG 37-A", "Combined Doctrine")
    failed = sum(1 for x in mine if not x["ok"])
    if failed:
        mods.add(-failed, "LGG 37-A", "failed tests")
    if tactic in HARD:
        mods.add(-2, "LGG 37-A", "difficult tactic")
    if any(a["side"] == side for a in _year_acquired(g, year)):
        mods.add(-4, "LGG 37-A", "second tactic of the year")
    return mods


def acquire(g: Game, side: str, nation: str, tactic: str, rule: str, how: str) -> None:
    acquisitions(g).append(
        {
            "tactic": tactic,
            "nation": nation,
            "side": side,
            "turn": M.turn_index(g),
            "year": M.current_turn(g).year,
        }
    )
    g.emit(
        "tactic",
        f"{M.nation_name(g, nation)} acquires the tactic {tactic} ({how})",
        rule=rule,
        reveal=True,
    )
    g.state.secrets.get(side, {}).pop("tactic_target", None)
    M.touch(g)


def _tactic_doctrine_ok(g: Game, side: str) -> bool:
    return any(
        doctrine.doctrine(g, n, fr) in battle.FIRE_DOCTRINES
        for n in M.powers_of(g, side)
        for fr in M.FRONTS
    )


def _targets_open(g: Game, side: str) -> list[str]:
    return [t for t in TACTICS if not side_knows(g, side, t)]


@implements("LGG 37-A")
class CombatTactics(LggStep):
    """LGG 37-A: in the reinforcement phase - secret yearly targets, acquisition tests (the Western
    initiative holder first) or waiting, and the November-December automatic award."""

    name = "combat-tactics"
    title = "Combat tactics"
    rule = "LGG 37-A"

    def label(self, g: Game, f: Frame) -> str:
        return "Combat tactics"

    def _order(self, g: Game) -> list[str]:
        first = M.st(g).get("initiative", {}).get(M.WEST) or M.SIDES[0]
        return [first, M.other_side(first)]

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        for side in self._order(g):
            if self._needs(g, f, side):
                return [side]
        return []

    def _needs(self, g: Game, f: Frame, side: str) -> str | None:
        if not _tactic_doctrine_ok(g, side) or not _targets_open(g, side):
            return None
        if "tactic_target" not in g.state.secrets.get(side, {}):
            return "target"
        if (
            side not in f.params.get("tested", [])
            and len(_year_acquired(g, M.current_turn(g).year)) < 2
        ):
            return "test"
        return None

    def run(self, g: Game, f: Frame) -> None:
        t = M.current_turn(g)
        year = t.year
        if 12 in t.months and len(_year_acquired(g, year)) == 1 and not f.params.get("award_done"):
            f.params["award_done"] = True
            r = g.roll(
                f"d{6 if g.opt('november-tactic-award-die') == 'd6' else 12}",
                "November-December tactic award (even: Entente, odd: Central Powers)",
                "LGG 37-A",
            )
            side = M.ENTENTE if r.natural % 2 == 0 else M.CP
            target = g.state.secrets.get(side, {}).get("tactic_target")
            majors = [n for n in M.powers_of(g, side) if M.is_major(g, n) and n != "TR"]
            if target and majors:
                acquire(g, side, majors[0], target, "LGG 37-A", "automatic November-December award")
        g.finish(f)

    @handles.options("tactic-target")
    def target_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        if self._needs(g, f, side) != "target":
            return []
        return [
            {"type": "tactic-target", "side": side, "tactic": t} for t in _targets_open(g, side)
        ]

    @handles.options("tactic-test")
    def test_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        if self._needs(g, f, side) != "test":
            return []
        majors = [n for n in M.powers_of(g, side) if M.is_major(g, n) and n != "TR"]
        return [{"type": "tactic-test", "side": side, "nation": n} for n in majors]

    @handles.options("wait")
    def wait_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "wait", "side": side}] if self._needs(g, f, side) == "test" else []

    @handles.check("tactic-test")
    def check_test(self, g: Game, f: Frame, action: Action) -> None:
        if action.get("nation") == "TR":
            raise IllegalAction(
                "LGG 37-A", "a tactic is acquired for a major power other than Turkey"
            )
        self.check_listed(g, f, action)

    @handles.apply("tactic-target")
    def apply_target(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        g.state.secrets.setdefault(side, {})["tactic_target"] = action["tactic"]
        g.emit("tactic-target", f"{side} notes a target tactic (secret)", rule="LGG 37-A")
        g.emit("tactic-target-detail", f"your target tactic: {action['tactic']}", visible_to=[side])
        M.touch(g)

    @handles.apply("wait")
    def apply_wait(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        f.params.setdefault("tested", []).append(side)
        g.emit("tactic-test", f"{side} waits (no tactic test this turn)", rule="LGG 37-A")
        M.touch(g)

    @handles.apply("tactic-test")
    def apply_test(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        f.params.setdefault("tested", []).append(side)
        nation = action["nation"]
        target = g.state.secrets[side]["tactic_target"]
        other_now = M.other_side(side) in f.params.get("tested", []) and any(
            x["turn"] == M.turn_index(g) and x["side"] != side for x in _tests(g)
        )
        mods = acquisition_modifiers(g, side, nation, target, same_turn_other=other_now)
        r = g.roll(
            "d12",
            f"{side} tactic acquisition test ({M.nation_name(g, nation)})",
            "LGG 37-A",
            modifiers=mods,
            visible_to=[side],
        )
        ok = r.modified >= 12
        _tests(g).append(
            {"side": side, "year": M.current_turn(g).year, "turn": M.turn_index(g), "ok": ok}
        )
        if ok:
            acquire(g, side, nation, target, "LGG 37-A", "acquisition test")
        else:
            g.emit("tactic-test", f"{side}'s tactic test fails", rule="LGG 37-A")
        M.touch(g)


# ===================================================== preliminary bombardment tactics (37-C, 37-E)
@implements("LGG 37-C")
def massive_bombardment(
    g: Game, nation: str, intensity: int, other_tactics: Sequence[str] = ()
) -> dict[str, int]:
    """LGG 37-C: a massive bombardment of intensity 2 or 3 shifts 1 or 2 columns and costs 2 or 3
    MUN per artillery unit; incompatible with blitz, creeping barrage and infiltration. Raises
    IllegalAction when not allowed."""
    if not knows(g, nation, "massive bombardment"):
        raise IllegalAction("LGG 37-C", "the massive bombardment tactic has not been acquired")
    if intensity not in (2, 3):
        raise IllegalAction("LGG 37-C", "a massive bombardment has intensity 2 or 3")
    bad = set(other_tactics) & {"blitz bombardment", "creeping barrage", "infiltration"}
    if bad:
        raise IllegalAction(
            "LGG 37-C", f"massive bombardment is incompatible with {', '.join(sorted(bad))}"
        )
    return {"shift": intensity - 1, "mun_per_artillery": intensity}


@implements("LGG 37-E")
def blitz_bombardment(
    g: Game, nation: str, artillery_units: Sequence[Piece], other_tactics: Sequence[str] = ()
) -> dict[str, int]:
    """LGG 37-E: a blitz bombardment needs 2 or 3 artillery units (any type) with a total fire of 6
    or
    more, costs 3 MUN per unit, is not divided by the defender's corps; incompatible with massive
    bombardment. Raises IllegalAction when not allowed."""
    if not knows(g, nation, "blitz bombardment"):
        raise IllegalAction("LGG 37-E", "the blitz bombardment tactic has not been acquired")
    if "massive bombardment" in other_tactics:
        raise IllegalAction(
            "LGG 37-E", "blitz bombardment is incompatible with massive bombardment"
        )
    n = len(artillery_units)
    if n not in (2, 3):
        raise IllegalAction("LGG 37-E", "a blitz bombardment uses 2 or 3 artillery units")
    fire = sum(int(p.stat("support", 0)) for p in artillery_units)
    if fire < 6:
        raise IllegalAction(
            "LGG 37-E", f"a blitz bombardment needs a total fire of 6 or more (here {fire})"
        )
    return {
        "fire": fire,
        "mun": 3 * n,
        "groups": 2 if doctrine.doctrine(g, nation, M.WEST) == "combined" else 1,
    }


@implements("LGG 37-C", "LGG 37-E", "LGG 37-F", "LGG 37-G")
def tactics_problem(
    tactics: Sequence[str], bombardment: str | None, mountains: bool = False
) -> str | None:
    """LGG 37-C / 37-E / 37-F / 37-G: why a combination of tactics and bombardment is not allowed
    (None when it is): massive bombardment excludes blitz, creeping barrage and infiltration;
    creeping barrage and infiltration exclude each other, admit only a blitz bombardment (or none),
    and the creeping barrage is forbidden in mountains."""
    t = set(tactics)
    if bombardment == "massive" and t & {"blitz bombardment", "creeping barrage", "infiltration"}:
        return (
            "massive bombardment is incompatible with blitz bombardment, creeping barrage and"
            " infiltration"
        )
    if {"creeping barrage", "infiltration"} <= t:
        return "creeping barrage and infiltration are incompatible"
    if t & {"creeping barrage", "infiltration"} and bombardment not in (None, "none", "blitz"):
        return "creeping barrage and infiltration allow only a blitz preliminary bombardment"
    if "creeping barrage" in t and mountains:
        return "creeping barrage is forbidden in mountains"
    return None


# ====================================================================== combat gas (37-D)
@implements("LGG 37-D")
def gas_battles_left(g: Game, nation: str, kind: str | None = None) -> int:
    """LGG 37-D: battles in which the power may still use a gas this turn: as many as its active gas
    sites (track ``gas_sites``); with none the default value ½ allows a single secondary battle."""
    sites = int(g.state.tracks.get("gas_sites", {}).get(nation, 0) or 0)
    used = int(M.st(g).get("gas_battles", {}).get(f"{M.turn_index(g)}:{nation}", 0))
    if sites <= 0:
        if kind is not None and kind != "secondary":
            return 0
        return 1 - min(1, used)
    return max(0, sites - used)


@implements("LGG 37-D")
def gas_available(g: Game, nation: str, kind: str | None = None) -> str | None:
    """LGG 37-D: the gas a power may use now (the tactic and the gas technology needed; chlorine,
    then phosgene, then mustard, each usable from the turn after the previous one was first used;
    a gas is obsolete 3 turns after its first use; within the gas sites' limit of battles this
    turn), or None."""
    if not knows(g, nation, "combat gas") or gas_battles_left(g, nation, kind) <= 0:
        return None
    techs = set(M.st(g).get("technologies", {}).get(nation, []))
    used = M.st(g).get("gas", {}).get(nation, {})
    now = M.turn_index(g)
    best = None
    for k, gas in enumerate(GAS_ORDER):
        if gas not in techs:
            break
        first = used.get(gas)
        if k > 0:
            prev = used.get(GAS_ORDER[k - 1])
            if prev is None or int(prev) >= now:
                break
        if first is not None and now - int(first) >= GAS_LIFE:
            continue
        best = gas
    return best


@implements("LGG 37-D", "LGG 32.1-B")
def gas_attack_bonus(g: Game, nation: str, gas: str) -> int:
    """LGG 37-D / 32.1-B: roll the Artillery Gas Fire table for the first round's attack bonus; the
    bonus then drops by 1 a round (give it to the battle as a modifier with ``decay = 1``)."""
    tbl = battle.table(g, "gas-fire")
    r = g.roll(str(tbl.die), f"artillery gas fire ({gas})", "LGG 37-D")
    M.st(g).setdefault("gas", {}).setdefault(nation, {}).setdefault(gas, M.turn_index(g))
    key = f"{M.turn_index(g)}:{nation}"
    used = M.st(g).setdefault("gas_battles", {})
    used[key] = int(used.get(key, 0)) + 1
    M.touch(g)
    return int(tbl.lookup(gas, r.natural).result)


@implements("LGG 37-D")
def first_chlorine_use(g: Game, gas: str) -> bool:
    """LGG 37-D: would using ``gas`` now be the very first use of chlorine in the game?"""
    return gas == "chlorine" and not any(
        "chlorine" in used for used in M.st(g).get("gas", {}).values()
    )


@implements("LGG 37-D", "LGG 32.1-B")
def use_gas(g: Game, bid: str, nation: str, gas: str, massive: bool) -> int:
    """LGG 37-D / 32.1-B: a gas attack in battle ``bid`` (after any preliminary bombardment, step
    A):
    the attack bonus it gives (:func:`gas_attack_bonus`) and, at the very first use of chlorine,
    the terror tests, made when the battle begins (:func:`step_d`, :func:`terror_tests`;
    ``massive``: a massive use, our reading: with a massive bombardment). The caller adds
    :func:`gas_modifier` of the bonus to the battle."""
    first = first_chlorine_use(g, gas)
    bonus = gas_attack_bonus(g, nation, gas)
    if first:
        g.emit(
            "gas-terror",
            f"first use of chlorine gas: terror tests ({'massive' if massive else 'limited'} use)",
            rule="LGG 37-D",
            reveal=True,
        )
        battle.rec_of(g, bid).gas_terror = {"massive": bool(massive), "done": False}
        M.touch(g)
    return bonus


def gas_modifier(bonus: int) -> dict[str, Any]:
    """The battle modifier of a gas attack bonus (37-D): attack value, -1 each round."""
    return {
        "side": "attacker",
        "target": "value",
        "value": int(bonus),
        "decay": 1,
        "rule": "LGG 37-D",
        "reason": "combat gas",
    }


@implements("LGG 37-D")
def terror_tests(g: Game, bid: str, massive: bool) -> list[str]:
    """LGG 37-D: the very first use of chlorine: a terror test for the defender at step A - one
    defending corps at random (limited use) or all of them (massive use), and on 8+ (D12, option
    ``terror-roll-die``) all attacking corps too; a "repulsed" corps stays fit. Returns the corps
    queued for a test (tested through the battle's casualty queue)."""
    rec = battle.rec_of(g, bid)
    dfn = battle.units_of(rec, rec.defender, roles=("front",), states=("fit",))
    if not dfn:
        return []
    chosen = (
        dfn
        if massive
        else [g.choose_at_random(dfn, "defending corps tested for terror", "LGG 37-D")]
    )
    out = list(chosen)
    for u in chosen:
        battle.queue_test(g, rec, u, stage="roll", why="gas terror", terror=True)
    if massive:
        r = g.roll("d12", "terror of the attacking corps (8+)", "LGG 37-D")
        if r.natural >= 8:
            for u in battle.units_of(rec, rec.attacker, roles=("front",), states=("fit",)):
                battle.queue_test(g, rec, u, stage="roll", why="gas terror", terror=True)
                out.append(u)
    return out


# =========================================== step D: creeping barrage and infiltration (37-F, 37-G)
def _art_in_sub(rec: BattleRecord, side: str, sub: str) -> list[str]:
    return [
        u
        for u, x in sorted(rec.units.items())
        if x["side"] == side
        and x["kind"] == "artillery"
        and x["state"] == "fit"
        and x["role"] == "front"
        and (not rec.great or x.get("sub") == sub)
    ]


@implements("LGG 37-F")
def creeping_barrage_modifiers(g: Game, rec: BattleRecord, sub: str) -> Modifiers:
    """LGG 37-F: modifiers of the creeping barrage D12 of a sub-battle."""
    att, dfn = rec.attacker, rec.defender
    mods = Modifiers()
    for side, sign in ((att, 1), (dfn, -1)):
        if any(piece(g, u).attrs.get("category") == "siege" for u in _art_in_sub(rec, side, sub)):
            mods.add(sign, "LGG 37-F", f"siege artillery on {'attack' if sign > 0 else 'defence'}")
    ghq = M.ghq_piece(g, battle.side_nation(rec, att))
    gen = M.general_with(g, ghq) if ghq is not None else None
    if gen is not None and "nivelle" in (gen.name or gen.id).lower():
        mods.add(1, "LGG 37-F", "Nivelle at the GHQ")
    orders = rec.spec.get("orders") or {}
    if orders.get("attacker") == "R":
        mods.add(1, "LGG 37-F", "battle order R")
    wins = min(2, int(M.st(g).get("barrage_wins", {}).get(battle.side_nation(rec, att), 0)))
    if wins:
        mods.add(wins, "LGG 37-F", "victorious Great Offensives with creeping barrage")
    lost = int(rec.ensure("cohesion_lost").get(sub, 0))
    if lost:
        mods.add(-lost, "LGG 37-F", "losses of fire cohesion")
    if orders.get("defender") == "P":
        mods.add(-1, "LGG 37-F", "defender battle order P")
    if battle.defender_fortress(g, rec) is not None:
        mods.add(-1, "LGG 37-F", "defender fortress")
    if defence_in_depth_active(g, dfn):
        mods.add(-1, "LGG 37-I", "defence in depth")
    return mods


@implements("LGG 37-F")
def creeping_barrage_effect(roll: int) -> tuple[int, dict[str, str]]:
    """LGG 37-F: (trench reduction, aggravation map) of a modified creeping barrage roll: 8 or less
    loss of fire cohesion (nothing); 9-12 r2 and 0/½ -> 1, 1 -> M, M -> 2, 2 -> E; 13+ r3 and
    0/½ -> M, 1 -> 2, M/2 -> E."""
    if roll <= 8:
        return 0, {}
    if roll <= 12:
        return 2, {"0": "1", "½": "1", "1": "M", "M": "2", "2": "E"}
    return 3, {"0": "M", "½": "M", "1": "2", "M": "E", "2": "E"}


@implements("LGG 37-F")
def aggravated(g: Game, rec: BattleRecord, sub: str, res: str) -> str:
    """LGG 37-F: the defender's result after this round's creeping barrage in ``sub``."""
    agg = rec.aggravate.get(sub, {})
    if agg.get("round") != rec.round:
        return res
    return str(agg["map"].get(res, res))


@implements("LGG 37-G")
def infiltration_modifiers(g: Game, rec: BattleRecord, sub: str, means: str) -> Modifiers:
    """LGG 37-G: modifiers of the infiltration D12 of a sub-battle (``means``: stosstruppen or
    tanks)."""
    att, dfn = rec.attacker, rec.defender
    nation = battle.side_nation(rec, att)
    mods = Modifiers()

    gens = [army_general(g, a) for a in rec.armies]
    if any(gn is not None and gn.attrs.get("symbol") == "@" for gn in gens) or means == "tanks":
        mods.add(1, "LGG 37-G", "general with the @ symbol or a tank (A-55 as printed)")
    wins = min(2, int(M.st(g).get("infiltration_wins", {}).get(nation, 0)))
    if wins:
        mods.add(wins, "LGG 37-G", "victorious Great Offensives with infiltration")
    if M.current_turn(g).year >= 1918:
        mods.add(1, "LGG 37-G", "1918 or later")
    if battle.side_nation(rec, dfn) == "DE" and not rec.spec.get("provisional_trench"):
        mods.add(-1, "LGG 37-G", "German trenches")
    if (rec.spec.get("orders") or {}).get("defender") == "P":
        mods.add(-1, "LGG 37-G", "defender battle order P")
    if rec.prep.get("kind", rec.kind) == "secondary":  # a 17.3-B new army's battle too
        mods.add(-1, "LGG 37-G", "secondary battle")
    techs = set(M.st(g).get("technologies", {}).get(nation, []))
    did = defence_in_depth_active(g, dfn)
    if means == "stosstruppen":
        if "light machine guns" in techs:
            mods.add(1, "LGG 37-G", "light machine guns")
        if nation == "DE" and "stosstruppen B" in techs:
            mods.add(1, "LGG 37-G", "Stosstruppen B")
        if nation == "DE" and "stosstruppen C" in techs:
            mods.add(1, "LGG 37-G", "Stosstruppen C")
        if did:
            mods.add(-2, "LGG 37-I", "defence in depth")
    else:
        v = int(rec.tank_value.get(att, tanks.side_value(g, att)))
        if v:
            mods.add(v, "LGG 37-G", "tank value")
        if did:
            mods.add(-1, "LGG 37-I", "defence in depth")
    return mods


@implements("LGG 37", "LGG 37-F", "LGG 37-G", "LGG 37-I", "LGG 39-B", "LGG 38-B")
def step_d(g: Game, rec: BattleRecord) -> tuple[str, dict[str, Any]] | None:
    """Step D of a round (before the engaged units are committed): the tank value test (39-B,
    round 1), the defence-in-depth test (37-I, round 1), the encirclement of a breakthrough
    battle fought by assault corps (38-B), and in each open sub-battle the creeping barrage
    (the attacker may stop it from the second round on: a decision is returned) and the
    infiltration roll when the battle was started with them (``tactics``). Re-entrant: call it
    until it returns None."""

    att, dfn = rec.attacker, rec.defender
    tac = rec.spec.get("tactics") or {}
    done = rec.ensure("step_d").setdefault(str(rec.round), {})
    if not done.get("start"):
        done["start"] = True
        if rec.round == 1:
            terror = rec.gas_terror
            if terror and not terror.get("done"):
                terror["done"] = True
                terror_tests(
                    g, rec.id, bool(terror.get("massive"))
                )  # 37-D: step A, after the bombardment
            for side in (att, dfn):
                if any(x["side"] == side and x["kind"] == "tank" for x in rec.units.values()):
                    rec.tank_value[side] = tanks.value_test(g, rec, side) if side == att else 1
            defence_in_depth_test(g, dfn)
            if (
                rec.spec.get("major_breakthrough")
                and rec.kind == "breakthrough"
                and battle.defender_fortress(g, rec) is None
                and not defence_in_depth_active(g, dfn)
                and any(
                    piece(g, u).attrs.get("assault") for u in battle.units_of(rec, att, states=None)
                )
            ):
                for s in battle.open_subs(rec):
                    rec.subs[s]["encircled_by"] = att
                g.emit(
                    "battle",
                    f"assault corps break through into {rec.hex}: encirclement battle",
                    rule="LGG 38-B",
                )
    for sub in battle.open_subs(rec):
        key = f"barrage:{sub}"
        if tac.get("creeping_barrage") and not done.get(key):
            stopped = rec.ensure("barrage_stopped")
            arts = _art_in_sub(rec, att, sub)
            if not stopped.get(sub) and len(arts) >= 2 and not battle.in_mountains(g, rec.hex_i):
                if rec.round > 1 and not done.get(key + ":asked"):
                    done[key + ":asked"] = True
                    return "battle-decision", {
                        "battle": rec.id,
                        "kind": "barrage",
                        "side": att,
                        "sub": sub,
                    }
                if not stopped.get(sub) and artillery.spend_munitions(
                    g, piece(g, arts[-1]).nation, 1, "LGG 37-F", "creeping barrage"
                ):
                    mods = creeping_barrage_modifiers(g, rec, sub)
                    r = g.roll(
                        "d12", f"creeping barrage, sub-battle {sub}", "LGG 37-F", modifiers=mods
                    )
                    cut, agg = creeping_barrage_effect(r.modified)
                    if cut:
                        battle.reduce_trench(g, rec.id, sub, cut, 1)
                        rec.aggravate[sub] = {"round": rec.round, "map": agg}
                        g.emit(
                            "barrage",
                            f"creeping barrage in sub-battle {sub}: trenches -{cut}, losses"
                            " aggravated",
                            rule="LGG 37-F",
                        )
                    else:
                        rec.ensure("cohesion_lost")[sub] = int(rec.cohesion_lost.get(sub, 0)) + 1
                        g.emit(
                            "barrage",
                            f"creeping barrage in sub-battle {sub}: loss of fire cohesion",
                            rule="LGG 37-F",
                        )
            done[key] = True
        key = f"infiltration:{sub}"
        means = tac.get("infiltration")
        if means and not done.get(key):
            done[key] = True
            if rec.great and not tanks.tanks_useless(g, rec.hex_i):
                kinds = ("tank",) if means == "tanks" else ("corps",)
                have = [
                    u
                    for u, x in rec.units.items()
                    if x["side"] == att
                    and x["kind"] in kinds
                    and x["state"] == "fit"
                    and x.get("sub") == sub
                    and (means == "tanks" or piece(g, u).attrs.get("assault"))
                ]
                if have:
                    M.st(g).setdefault("infiltration_used", {})[att] = True
                    mods = infiltration_modifiers(g, rec, sub, means)
                    tbl = battle.table(g, "infiltration")
                    r = g.roll("d12", f"infiltration, sub-battle {sub}", "LGG 37-G", modifiers=mods)
                    cell = str(tbl.lookup("result", r.modified).result)
                    if cell.startswith("r"):
                        battle.reduce_trench(g, rec.id, sub, int(cell[1:]), 1)
                        g.emit(
                            "infiltration",
                            f"infiltration in sub-battle {sub}: trenches -{cell[1:]}",
                            rule="LGG 37-G",
                        )
    M.touch(g)
    return None


# ================================================================= other tactics (37-H, 37-I, 37-J)
@implements("LGG 37-H")
def air_support_aircraft(g: Game, nation: str) -> int:
    """LGG 37-H: aircraft per sub-battle in tactical air support (2 with the tactic, else 1)."""
    return 2 if knows(g, nation, "tactical air support") else 1


def defence_in_depth_active(g: Game, side: str) -> bool:
    """LGG 37-I: the side knows defence in depth and has passed its first test."""
    return bool(M.st(g).get("defence_in_depth", {}).get(side, {}).get("passed"))


@implements("LGG 37-I")
def defence_in_depth_test(g: Game, side: str) -> bool | None:
    """LGG 37-I: the first application of defence in depth, during a defensive battle, needs
    infiltration to have been used (by the enemy) and a D12 below the commander-in-chief's
    reaction value (option ``defence-in-depth-test``); passed once for the whole side; after a
    failure, tried again in a later turn. Returns the outcome, or None when no test is due."""
    st = M.st(g).setdefault("defence_in_depth", {}).setdefault(side, {})
    if st.get("passed") or st.get("failed_turn") == M.turn_index(g):
        return None
    if not side_knows(g, side, "defence in depth") or not M.st(g).get("infiltration_used", {}).get(
        M.other_side(side)
    ):
        return None
    nations = [n for n in M.powers_of(g, side) if M.ghq_piece(g, n) is not None]
    if not nations:
        return None

    react = ghq_value(g, nations[0], "reaction")
    r = g.roll("d12", f"{side} defence in depth test (reaction {react})", "LGG 37-I")
    ok = r.natural < react if g.opt("defence-in-depth-test") == "below" else r.natural >= react
    if ok:
        st["passed"] = True
    else:
        st["failed_turn"] = M.turn_index(g)
    g.emit("tactic", f"{side} defence in depth: {'in force' if ok else 'not yet'}", rule="LGG 37-I")
    M.touch(g)
    return ok


@implements("LGG 37-J")
def combined_arms(g: Game, rec: BattleRecord, sub: str, side: str) -> Modifiers:
    """LGG 37-J: with the tactic, a fighter in tactical support together with a tank or assault
    troops, or a tank together with assault troops, gives +1 to the engaged unit's value."""
    mods = Modifiers()
    nation = battle.side_nation(rec, side) if rec.nations else ""
    if not nation or not knows(g, nation, "combined arms"):
        return mods
    here = [
        u
        for u, x in rec.units.items()
        if x["side"] == side
        and x["state"] == "fit"
        and x["role"] == "front"
        and (not rec.great or x.get("sub") == sub)
    ]
    tank = any(rec.units[u]["kind"] == "tank" for u in here)
    assault = any(piece(g, u).attrs.get("assault") for u in here if rec.units[u]["kind"] == "corps")
    fighter = bool(
        (rec.spec.get("tactics") or {})
        .get("air_support", {})
        .get("attacker" if side == rec.attacker else "defender")
    )
    if (fighter and (tank or assault)) or (tank and assault):
        mods.add(1, "LGG 37-J", "combined arms")
    return mods


# ====================================================================== Stosstruppen (38)
def markers_in_hand(g: Game, nation: str) -> int:
    """Stosstruppen markers a power holds (track ``assault_markers``, set by a scenario under
    ``[tracks.assault_markers]`` or by production, 44-O)."""
    return int(g.state.tracks.get("assault_markers", {}).get(nation, 0))


@implements("LGG 38-A")
def why_not_assault(g: Game, p: Piece) -> str | None:
    """LGG 38-A: a marker goes on an intact infantry (or mountain) corps that did not fight the
    previous turn (34-D: not while the power is weary)."""

    if p.type != "corps" or M.arm(p) not in ("infantry", "mountain"):
        return "only an infantry or mountain corps becomes an assault corps"
    if p.face != "full":
        return "the corps must be intact"
    if p.attrs.get("assault"):
        return "the corps already carries a marker"
    if int(p.attrs.get("fought_turn", -9)) == M.turn_index(g) - 1:
        return "the corps fought in the previous turn"
    if markers_in_hand(g, p.nation) <= 0:
        return "no Stosstruppen marker in hand"
    weary = national_will(g, p.nation).weary_until
    if weary and str(M.current_turn(g).year) <= weary[:4]:
        return "a weary power may not use Stosstruppen this year (34-D)"
    return None


@implements("LGG 38-A")
def place_assault_marker(g: Game, p: Piece) -> None:
    why = why_not_assault(g, p)
    if why:
        raise IllegalAction("LGG 38-A", why)
    g.state.tracks.setdefault("assault_markers", {})[p.nation] = markers_in_hand(g, p.nation) - 1
    M.set_attr(g, p, "assault", "full")
    say(g, p.side, "assault", f"{p.id} becomes an assault corps", None, rule="LGG 38-A")


@implements("LGG 38-A")
class AssaultMarkers(LggStep):
    """LGG 38-A: in the reinforcement phase each side may place its Stosstruppen markers."""

    name = "assault-markers"
    title = "Stosstruppen"
    rule = "LGG 38-A"

    def _sides(self, g: Game, f: Frame) -> list[str]:
        # every side from 1915 on (markers in hand are hidden: being asked must not reveal them,
        # 4-A)
        if M.current_turn(g).year < 1915:
            return []
        return [s for s in M.SIDES if s not in f.params.get("done", [])]

    def _cands(self, g: Game, side: str) -> list[Piece]:
        if not any(markers_in_hand(g, n) > 0 for n in M.powers_of(g, side)):
            return []
        return [
            p for p in M.iter_units(g, side) if M.on_map(g, p) and why_not_assault(g, p) is None
        ]

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        s = self._sides(g, f)
        return s[:1]

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    @handles.options("assault-marker")
    def marker_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [
            {"type": "assault-marker", "side": side, "unit": p.id} for p in self._cands(g, side)
        ]

    @handles.options("end-assault-markers")
    def end_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "end-assault-markers", "side": side}]

    @handles.apply("end-assault-markers")
    def apply_end(self, g: Game, f: Frame, action: Action) -> None:
        f.params.setdefault("done", []).append(action["side"])
        self._done(g, f)

    @handles.apply("assault-marker")
    def apply_marker(self, g: Game, f: Frame, action: Action) -> None:
        place_assault_marker(g, g.state.pieces[action["unit"]])
        self._done(g, f)

    def _done(self, g: Game, f: Frame) -> None:
        if not self._sides(g, f):
            g.finish(f)


def encirclement_by_assault(g: Game, rec: BattleRecord, sub: str, winner: str) -> bool:
    """LGG 38-B: an assault corps that wins a sub-battle makes the other one an encirclement battle
    (not against defence in depth)."""
    if defence_in_depth_active(g, battle.other(rec, winner)):
        return False
    return any(
        x["side"] == winner
        and x["kind"] == "corps"
        and x.get("sub") == sub
        and x["state"] != "eliminated"
        and piece(g, u).attrs.get("assault")
        for u, x in rec.units.items()
    )


@implements("LGG 38-C")
def assault_marker_after_loss(g: Game, rec: BattleRecord, uid: str, res: str) -> None:
    """LGG 38-C: an assault corps taking 1 loss flips with its marker."""
    p = piece(g, uid)
    if p.attrs.get("assault") and res in ("1", "½"):
        M.set_attr(g, p, "assault", "reduced")
    if p.attrs.get("assault") and res in ("M", "2"):
        rec.ensure("assault_pending")[uid] = res


@implements("LGG 38-C")
def assault_marker_after_test(g: Game, rec: BattleRecord, uid: str, it: dict[str, Any]) -> None:
    """LGG 38-C: after 2 losses or an M an assault corps loses its marker unless the test is an
    exploit."""
    pend = rec.assault_pending
    if uid not in pend:
        return
    pend.pop(uid)
    p = piece(g, uid)
    if it.get("code") != "X" and p.attrs.get("assault"):
        M.set_attr(g, p, "assault", None)
        say(g, p.side, "assault", f"{p.id} loses its Stosstruppen marker", None, rule="LGG 38-C")
    elif it.get("code") == "X" and p.attrs.get("assault") and it.get("res") == "2":
        M.set_attr(g, p, "assault", "reduced")


@implements("LGG 38-C")
def assault_restore_cost() -> int:
    """LGG 38-C: restoring a reduced assault corps to full strength costs 2 PR."""
    return 2


@implements("LGG 38", "LGG 38-B")
def ignores_rigid_zoc(p: Piece) -> bool:
    """LGG 38-B: assault corps ignore rigid ZoCs (read by the movement rules through
    ``assault``)."""
    return bool(p.attrs.get("assault"))


STEPS: tuple[type[Step], ...] = (CombatTactics, AssaultMarkers)
