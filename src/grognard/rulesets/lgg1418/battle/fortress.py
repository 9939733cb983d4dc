"""LGG 23: fortresses - sieges, siege fire, surrender, assault, fallen fortresses.

A fortress is a public counter (faces ``full`` and ``reduced``: ``defense``, ``artillery``,
``resistance``; attrs ``size`` large/small, ``coastal``); garrison corps sit inside it. Its ZoC
(23-A, 8, 9-E) and its one-corps supply (23-A, 9-A) are in :mod:`.zoc` and :mod:`.supply`;
the cavalry rule of 23-A in :mod:`.movement`; no interception into an enemy fortress hex in
:mod:`.interception`; the set-up before an open-country battle (23-C: corps put into the
fortress) in :mod:`.enemy_reinforcement`; the fortress supporting as artillery and its +1 on
plains are applied by the battle procedure (:mod:`.battle`).

Here (``status`` of the fortress piece: ``besieged``, ``neutralized``; of the besiegers:
``besieging``; ``markers["siege"][hex] = {"since": turn, "side": besieger}``):

* 23-C / 23-D: after the battles of an activation, a hex where the active side stands with an
  enemy fortress and no enemy unit outside it is besieged (the open-country battle is won). A
  cavalry stack alone may not besiege: it withdraws one hex. A siege lasts while besiegers stand
  in the hex (:func:`refresh_sieges`); the besieging stack exerts no ZoC, the besieged units
  have no offensive capacity (they are shut in the fortress), a railway in the hex is unusable.
* 23-D / 23-F / 23-G: at the end of each activation the active side's armies holding a siege
  (including one established by its battles, 23-C) may fire at the fortress and launch an
  assault (:class:`SiegeActions`). Siege fire: the besieger chooses the heavy, siege or coastal
  artillery units in the hex that fire; each chosen unit spends 1 MUN (a firing its power cannot
  pay for is not open); the chosen heavy artillery fires as one group, siege and coastal
  artillery unit by unit, as often as the besieger pays for it (23-F sets no other limit), each
  firing at half the support value, rounded down (for the heavy group the option
  ``siege-heavy-halving``, digest A-19: half of the sum by default) on the provisional
  ``siege-fire`` table (D6; R reduces or neutralises, E eliminates the fortress and its garrison
  surrenders). The printed support value counts (the Movement Doctrine cap of 2 does not apply
  to siege fire, 36.1). A neutralised fortress is operational again from the following turn.
* 23-G: the assault is one battle of kind ``assault`` (:class:`FortressAssault`) fought by the
  battle procedure with the fortress's options (:func:`assault_params`): the trench table, no
  generals, terrain and trenches ignored, no tanks nor Stosstruppen, the defending corps (at most
  2, engaged in turn) and, once no corps is left to engage, the fortress itself as the engaged
  unit (its defence value as its base). Not neutralised: the attacker suffers a "2" every round;
  the defender gets the fortress's defence value, +3 organic artillery (cancelled, with no bonus,
  by the attacker's artillery support, which still spends 1 MUN) and a fire value of 3; its
  tests get +2 and cost no PR; "repulsed" does not apply; a result of 1, M or 2 on the fortress
  reduces it (neutralises a reduced one). Neutralised: +1 only, "repulsed" applies, normal
  artillery support for the attacker; a neutralised fortress that must fight surrenders at the
  start of the round and the attacker suffers 2 losses. Nobody retreats: the attacker breaks
  off (a voluntary retreat) and stays besieging. The losses of the defending corps are not
  counted; after the assault every defending corps is marked 1 loss if the fortress held, 2 if
  it fell (``st["fortress_losses"]``).
* 23-E: in the final phase, from the turn after the siege began, a D12 + modifiers >= 10 makes
  the fortress surrender: + the turns of siege counted from the first test (option
  ``surrender-first-test``, digest A-18: the first test counts +1), +1 with 1 or 2 corps besieged
  inside (garrison and other units not counted), - the fortress's resistance value (a counter
  value; the seed prints "?"), -2 in a port unless the besieger controls the sea. A coastal
  fortress's defender may first evacuate its corps to a friendly port of the same sea.
* On a fall (surrender, E, assault): the units inside are eliminated without counting as
  losses (an HQ comes back next turn, 5-H; generals are captured and leave the game), the
  counter leaves the map, ``markers["fortress_fallen"][hex] = {"turn", "pre_turn", "side"}``
  (11.1-D reads it), the hex passes to the besieger; the units that took it are remembered for
  the reaction rule (20-A, ``st["fortress_takers"]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import artillery, main_battle, tactics
from grognard.rulesets.lgg1418.battle import base as battle
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.map.zoc import BESIEGED, BESIEGING
from grognard.rulesets.lgg1418.military import secondary
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.supply.supply import sea_control
from grognard.rulesets.lgg1418.units import fog
from grognard.rulesets.lgg1418.units.counters import command_army
from grognard.rulesets.lgg1418.units.elimination import destroy_hq, eliminate

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.lgg1418.battle.base import BattleRecord

NEUTRALIZED = "neutralized"
CAPTURED = "lgg:captured"
SURRENDER_TARGET = 10
SIEGE_ARTILLERY = ("heavy", "siege", "coastal")


# ====================================================================== queries
def fortress_at(g: Game, i: int) -> Piece | None:
    for q in g.state.at_hex(i):
        if q.type == "fortress":
            return q
    return None


def inside(g: Game, f: Piece) -> list[Piece]:
    """Units shut in the fortress (garrison and the units put in it)."""
    return [q for q in g.state.contents(f.id) if M.is_unit(q)]


def besieged_corps(g: Game, f: Piece) -> list[Piece]:
    """Corps inside the fortress other than its garrison (23-E)."""
    return [q for q in inside(g, f) if M.is_corps(q) and not M.garrison_in_fortress(g, q)]


def _outside(g: Game, side: str, i: int) -> list[Piece]:
    """Units of ``side`` in hex ``i`` outside any fortress."""
    out = []
    for p in M.units_at_hex(g, i, side):
        c = M.carrier(g, p)
        if c is not None and c.type == "fortress":
            continue
        out.append(p)
    return out


def is_neutralized(g: Game, f: Piece) -> bool:
    """23-F / 23-G: neutralised this turn (operational again the following turn)."""
    return NEUTRALIZED in f.status and f.attrs.get("neutralized_turn") == M.turn_index(g)


# ====================================================================== sieges (23-C, 23-D)
@implements("LGG 23-D")
def establish_siege(g: Game, f: Piece, side: str) -> None:
    """LGG 23-D: the fortress is besieged by ``side``'s units in its hex."""
    i = M.hex_of(g, f)
    assert i is not None
    lab = g.board.label(i)
    M.set_status(g, f, BESIEGED, True)
    for p in _outside(g, side, i):
        M.set_status(g, p, BESIEGING, True)
    if g.state.marker("siege", lab) is None:
        g.state.set_marker("siege", lab, {"since": M.turn_index(g), "side": side})
        g.emit(
            "siege", f"{side} besieges the fortress at {lab}", rule="LGG 23-D", hex=lab, side=side
        )
    M.touch(g)


@implements("LGG 23-D")
def lift_siege(g: Game, i: int, reason: str) -> None:
    """LGG 23-D: the siege of hex ``i`` ends (its fortress exerts its ZoC again)."""
    lab = g.board.label(i)
    f = fortress_at(g, i)
    if f is not None:
        M.set_status(g, f, BESIEGED, False)
    for p in M.pieces_at_hex(g, i):
        if BESIEGING in p.status:
            M.set_status(g, p, BESIEGING, False)
    if g.state.marker("siege", lab) is not None:
        g.state.set_marker("siege", lab, None)
        g.emit("siege-lifted", f"the siege of {lab} ends ({reason})", rule="LGG 23-D", hex=lab)
    M.touch(g)


@implements("LGG 23-D", "LGG 8-C")
def refresh_sieges(g: Game) -> None:
    """LGG 23-D / 8-C: every unit of the besieging side in a siege hex is besieging (no ZoC); a
    siege with no besieger left (or no fortress) ends; besiegers who left the hex lose the status.
    """
    for lab, mk in sorted(g.state.markers.get("siege", {}).items()):
        i = g.board.idx(lab)
        f = fortress_at(g, i)
        side = mk.get("side") or (M.other_side(f.side) if f else None)
        besiegers = [p for p in _outside(g, side, i) if M.is_corps(p)] if side else []
        if f is None or not besiegers:
            lift_siege(g, i, "no besieger left" if f is not None else "no fortress")
            continue
        for p in _outside(g, side, i):  # type: ignore[arg-type]
            if BESIEGING not in p.status:
                M.set_status(g, p, BESIEGING, True)
    for p in g.state.pieces.values():
        if BESIEGING in p.status:
            h = M.hex_of(g, p)
            if (
                h is None
                or g.state.marker("siege", g.board.label(h)) is None
                or p.loc.kind != "hex"
            ):
                M.set_status(g, p, BESIEGING, False)


@implements("LGG 23-C", "LGG 23-D")
def siege_candidates(g: Game, side: str) -> list[int]:
    """LGG 23-C / 23-D: hexes where ``side`` stands with an unbesieged enemy fortress and no enemy
    unit outside it: the open-country battle is won and a siege may begin."""
    out = []
    for i in sorted(M.occupied(g, side)):
        f = fortress_at(g, i)
        if f is None or f.side == side or BESIEGED in f.status:
            continue
        if _outside(g, f.side, i):
            continue
        if not [p for p in _outside(g, side, i) if M.is_unit(p)]:
            continue
        out.append(i)
    return out


@implements("LGG 23-D")
def cavalry_alone(g: Game, side: str, i: int) -> bool:
    """LGG 23-D: a cavalry unit alone may not besiege a fortress."""
    corps = [p for p in _outside(g, side, i) if M.is_corps(p)]
    return not corps or all(M.is_cavalry(p) for p in corps)


# ============================================================== withdrawal into the fortress (23-C)
@implements("LGG 23-C")
def withdrawal_into_fortress(g: Game, side: str, i: int, ids: list[str]) -> list[list[str]]:
    """LGG 23-C: groups of the defeated defender's units (``ids``, standing in hex ``i``) that may
    withdraw into its unbesieged fortress there instead of retreating, up to its capacity (2 corps
    with the garrison, any artillery, HQs or GHQs without their reserve) - even isolated, out of
    supply or away from the supply sources. Each single unit, and the largest group that fits."""
    f = fortress_at(g, i)
    if f is None or f.side != side or BESIEGED in f.status or f.loc.kind != "hex":
        return []
    room = 2 - sum(1 for q in inside(g, f) if M.is_corps(q))
    fits = []
    for uid in ids:
        p = g.state.pieces[uid]
        if p.loc.kind != "hex" or p.type not in ("corps", "artillery", "hq", "ghq"):
            continue
        if p.type in ("hq", "ghq") and any(M.in_reserve(q) for q in g.state.contents(p.id)):
            continue
        fits.append(p)
    out: list[list[str]] = [[p.id] for p in fits if not M.is_corps(p) or room >= 1]
    corps = [p.id for p in fits if M.is_corps(p)][: max(room, 0)]
    group = sorted(corps + [p.id for p in fits if not M.is_corps(p)])
    if len(group) > 1:
        out.append(group)
    return out


def withdraw_into_fortress(g: Game, side: str, i: int, ids: list[str]) -> None:
    """LGG 23-C: move the units into the fortress of hex ``i``."""
    f = fortress_at(g, i)
    assert f is not None
    for uid in ids:
        M.move_piece(g, g.state.pieces[uid], Loc.inside(f.id))
    fog.emit_private(
        g,
        side,
        "fortress",
        f"{', '.join(ids)} withdraw into the fortress {f.id}",
        f"{side} withdraws units into the fortress at {g.board.label(i)}",
        rule="LGG 23-C",
    )


# ====================================================================== siege fire (23-F)
def _payable(g: Game, arts: Sequence[Piece]) -> bool:
    """LGG 23-F / 15-B: every power of ``arts`` has 1 MUN for each of its chosen units (a power
    whose munitions are not counted always pays)."""
    need: dict[str, int] = {}
    for p in arts:
        need[p.nation] = need.get(p.nation, 0) + 1
    for nation, n in need.items():
        stock = artillery.mun_stock(g, nation)
        if stock is not None and stock < n:
            return False
    return True


@implements("LGG 23-F", "LGG 36.1")
def siege_fire_options(g: Game, side: str, i: int) -> list[list[str]]:
    """LGG 23-F: the firings open to ``side`` at the besieged fortress of hex ``i``: any chosen
    set of its heavy artillery there, firing together (the largest sets first), or one siege or
    coastal artillery unit; only firings whose powers can pay 1 MUN per chosen unit. 23-F sets no
    limit on how often a unit fires (15-B's one battle per activation is about battle support)."""
    arts = [
        p
        for p in _outside(g, side, i)
        if p.type == "artillery" and p.attrs.get("category") in SIEGE_ARTILLERY
    ]
    heavy = sorted((p for p in arts if p.attrs.get("category") == "heavy"), key=lambda p: p.id)
    groups: list[list[Piece]] = [
        list(c) for n in range(len(heavy), 0, -1) for c in combinations(heavy, n)
    ]
    groups.extend([p] for p in arts if p.attrs.get("category") in ("siege", "coastal"))
    return [[p.id for p in grp] for grp in groups if _payable(g, grp)]


@implements("LGG 23-F")
def siege_fire_strength(g: Game, arts: list[Piece]) -> int:
    """LGG 23-F (digest A-19): half the support value, rounded down; heavy artillery firing together
    take half of the sum (option ``siege-heavy-halving`` = ``half-of-sum``) or the sum of the
    halves.
    """
    values = [int(p.stat("support", 0)) for p in arts]
    if len(arts) > 1 and g.opt("siege-heavy-halving") == "sum-of-halves":
        return sum(v // 2 for v in values)
    return sum(values) // 2


def _column(strength: int) -> str:
    return "5+" if strength >= 5 else str(max(1, strength))


@implements("LGG 23-F")
def reduce_fortress(g: Game, f: Piece, rule: str) -> str:
    """LGG 23-F / 23-G: a large fortress flips to its reduced side, or is neutralised when already
    reduced; a small fortress is neutralised. Returns ``reduced`` or ``neutralized``."""
    if f.attrs.get("size") == "large" and f.face == "full" and "reduced" in f.faces:
        M.set_face(g, f, "reduced")
        g.emit("fortress", f"the fortress {f.id} is reduced", rule=rule, fortress=f.id)
        return "reduced"
    M.set_status(g, f, NEUTRALIZED, True)
    M.set_attr(g, f, "neutralized_turn", M.turn_index(g))
    g.emit(
        "fortress",
        f"the fortress {f.id} is neutralised until the following turn",
        rule=rule,
        fortress=f.id,
    )
    return "neutralized"


@implements("LGG 23-F", "LGG 15-B")
def siege_fire(g: Game, side: str, i: int, ids: list[str]) -> str:
    """LGG 23-F / 15-B: fire the artillery ``ids`` at the fortress of hex ``i``: 1 MUN each, then a
    D6 on the siege-fire table. Returns the result (``-``, ``R``, ``E``)."""
    f = fortress_at(g, i)
    assert f is not None
    arts = [g.state.pieces[u] for u in ids]
    for p in arts:
        artillery.spend_munitions(g, p.nation, 1, "LGG 23-F", f"siege fire of {p.id}")
    strength = siege_fire_strength(g, arts)
    tbl = g.ruleset.tables(g.scenario.table_overrides)["siege-fire"]
    r = g.roll("d6", f"siege fire at {g.board.label(i)} (strength {strength})", "LGG 23-F")
    look = tbl.lookup(_column(strength), r.natural)
    res = str(look.result)
    g.emit(
        "siege-fire",
        f"siege fire at {g.board.label(i)}: {look.explain()}",
        rule="LGG 23-F",
        hex=g.board.label(i),
        result=res,
    )
    if res == "R":
        reduce_fortress(g, f, "LGG 23-F")
    elif res == "E":
        fortress_falls(g, f, side, "LGG 23-F", "destroyed by siege fire")
    M.touch(g)
    return res


# ==================================================================== the fall of a fortress (23-E)
@implements("LGG 23-E", "LGG 5-H", "LGG 11.1-D", "LGG 20-A")
def fortress_falls(g: Game, f: Piece, taker: str, rule: str, reason: str) -> None:
    """LGG 23-E / 5-H / 11.1-D / 20-A: the fortress falls to ``taker``: the units inside are
    eliminated without counting as losses (an HQ comes back next turn; generals are captured),
    the counter leaves the map, the hex passes to the taker, a fallen-fortress marker is set and
    the units that took it are remembered (they may not react in this turn, 20-A)."""

    i = M.hex_of(g, f)
    assert i is not None
    lab = g.board.label(i)
    for q in sorted(g.state.contents(f.id), key=lambda p: p.id):
        if q.type == "general":
            M.move_piece(g, q, Loc.box(CAPTURED))
            continue
        if q.type in ("hq", "ghq"):
            for gen in [x for x in g.state.contents(q.id) if x.type == "general"]:
                M.move_piece(g, gen, Loc.box(CAPTURED))
            destroy_hq(g, q, rule)
            continue
        M.set_attr(g, q, "no_loss", True)
        eliminate(g, q, reason, rule)
    M.move_piece(g, f, Loc.box(M.ELIMINATED))
    act = M.st(g).get("activation") or {}
    takers = M.st(g).setdefault("fortress_takers", {})
    for p in _outside(g, taker, i):
        takers[p.id] = {
            "turn": M.turn_index(g),
            "reaction": bool(act.get("reaction")) and act.get("side") == taker,
        }
    lift_siege(g, i, "the fortress fell")
    g.state.set_marker(
        "fortress_fallen",
        lab,
        {"turn": M.turn_index(g), "pre_turn": bool(M.current_turn(g).pre_turn), "side": taker},
    )
    mapdata.set_control(g, i, taker)
    M.touch(g)
    g.emit(
        "fortress-fallen",
        f"the fortress at {lab} falls to {taker} ({reason})",
        rule=rule,
        hex=lab,
        side=taker,
        reveal=True,
    )


@implements("LGG 23-E")
def surrender_modifiers(g: Game, f: Piece) -> Modifiers:
    """LGG 23-E: +1 per turn of siege counted from the first test (A-18), +1 with 1 or 2 corps
    besieged (garrison not counted), - the resistance value, -2 in a port unless the besieger
    controls the sea."""

    i = M.hex_of(g, f)
    assert i is not None
    mk = g.state.marker("siege", g.board.label(i)) or {}
    since = int(mk.get("since", M.turn_index(g)))
    tests = M.turn_index(g) - since  # 1 at the first test (the turn after the siege began)
    turns = tests - 1 + int(g.opt("surrender-first-test"))
    mods = Modifiers()
    if turns:
        mods.add(turns, "LGG 23-E", f"siege, test {tests}")
    n = len(besieged_corps(g, f))
    if 1 <= n <= 2:
        mods.add(1, "LGG 23-E", f"{n} corps besieged inside")
    res = int(f.stat("resistance", 0))
    if res:
        mods.add(-res, "LGG 23-E", "fortress resistance")
    sea = mapdata.port_sea(g, i) if mapdata.port_size(g, i) else None
    if sea and sea_control(g, sea) != mk.get("side", M.other_side(f.side)):
        mods.add(-2, "LGG 23-E", "port, sea not controlled by the besieger")
    return mods


def surrender_due(g: Game) -> list[Piece]:
    """Besieged fortresses whose siege began before this turn (23-E)."""
    out = []
    for lab, mk in sorted(g.state.markers.get("siege", {}).items()):
        f = fortress_at(g, g.board.idx(lab))
        if (
            f is not None
            and BESIEGED in f.status
            and int(mk.get("since", M.turn_index(g))) < M.turn_index(g)
        ):
            out.append(f)
    return out


def evacuation_ports(g: Game, f: Piece) -> list[int]:
    """LGG 23-E: friendly ports on the same sea as a coastal fortress, free of the enemy."""
    i = M.hex_of(g, f)
    assert i is not None
    sea = mapdata.port_sea(g, i)
    if not f.attrs.get("coastal") or not sea:
        return []
    enemy = M.enemy_present_hexes(g, f.side)
    return [
        j
        for j in g.board.points
        if j != i
        and mapdata.port_size(g, j)
        and mapdata.port_sea(g, j) == sea
        and mapdata.controller(g, j) == f.side
        and j not in enemy
    ]


@implements("LGG 23-E")
class FortressSurrender(LggStep):
    """LGG 23-E: the surrender tests of the final phase (before the national-will adjustments).

    A fortress that surrenders and is coastal lets its owner evacuate its corps first
    (``evacuate`` a corps to a port, or ``no-evacuation``). Neutralised fortresses are operational
    again from the following turn."""

    name = "fortress-surrender"
    title = "Fortress surrender"
    rule = "LGG 23-E"

    def enter(self, g: Game, f: Frame) -> None:
        refresh_sieges(g)
        fallen: list[str] = []
        for fort in surrender_due(g):
            r = g.roll(
                "d12",
                f"surrender test of the fortress {fort.id} (10+)",
                "LGG 23-E",
                modifiers=surrender_modifiers(g, fort),
            )
            if r.modified >= SURRENDER_TARGET:
                g.emit(
                    "surrender",
                    f"the fortress {fort.id} surrenders",
                    rule="LGG 23-E",
                    fortress=fort.id,
                )
                fallen.append(fort.id)
            else:
                g.emit(
                    "surrender", f"the fortress {fort.id} holds", rule="LGG 23-E", fortress=fort.id
                )
        f.params["fallen"] = fallen

    def _pending(self, g: Game, f: Frame) -> Piece | None:
        for fid in f.params.get("fallen", []):
            fort = g.state.pieces[fid]
            if M.hex_of(g, fort) is None:
                continue
            if evacuation_ports(
                g, fort
            ):  # asked even with nobody inside: the besieger learns nothing
                return fort
        return None

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        fort = self._pending(g, f)
        return [fort.side] if fort is not None else []

    def run(self, g: Game, f: Frame) -> None:
        for fid in f.params.get("fallen", []):
            fort = g.state.pieces[fid]
            if M.hex_of(g, fort) is not None:
                mk = g.state.marker("siege", g.board.label(M.hex_of(g, fort) or 0)) or {}
                fortress_falls(
                    g, fort, str(mk.get("side") or M.other_side(fort.side)), "LGG 23-E", "surrender"
                )
        for p in g.state.pieces.values():
            if p.type == "fortress" and NEUTRALIZED in p.status:
                M.set_status(g, p, NEUTRALIZED, False)
                M.set_attr(g, p, "neutralized_turn", None)
        g.finish(f)

    @handles.options("evacuate")
    def evacuate_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        fort = self._fort(g, f)
        out: list[Action] = []
        for q in inside(g, fort):
            if M.is_corps(q):
                out.extend(
                    {"type": "evacuate", "side": side, "unit": q.id, "to": g.board.label(j)}
                    for j in evacuation_ports(g, fort)
                )
        return out

    @handles.options("no-evacuation")
    def no_evacuation_options(
        self, g: Game, f: Frame, side: str, actor: str | None
    ) -> list[Action]:
        return [{"type": "no-evacuation", "side": side, "fortress": self._fort(g, f).id}]

    def _fort(self, g: Game, f: Frame) -> Piece:
        fort = self._pending(g, f)
        if fort is None:
            raise IllegalAction(self.rule, "no evacuation is pending")
        return fort

    @handles.check("no-evacuation")
    def check_no_evacuation(self, g: Game, f: Frame, action: Action) -> None:
        self._fort(g, f)

    @handles.check("evacuate")
    def check_evacuate(self, g: Game, f: Frame, action: Action) -> None:
        fort = self._fort(g, f)
        q = g.state.pieces.get(str(action.get("unit")))
        if q is None or q not in inside(g, fort) or not M.is_corps(q):
            raise IllegalAction(
                "LGG 23-E", "evacuate a corps of the surrendering fortress, or no-evacuation"
            )
        to = action.get("to")
        if (
            not isinstance(to, str)
            or not g.board.has_label(to)
            or g.board.idx(to) not in evacuation_ports(g, fort)
        ):
            raise IllegalAction("LGG 23-E", "evacuate to a friendly port on the fortress's sea")

    @handles.apply("no-evacuation")
    def apply_no_evacuation(self, g: Game, f: Frame, action: Action) -> None:
        fort = self._pending(g, f)
        assert fort is not None
        mk = g.state.marker("siege", g.board.label(M.hex_of(g, fort) or 0)) or {}
        fortress_falls(
            g, fort, str(mk.get("side") or M.other_side(fort.side)), "LGG 23-E", "surrender"
        )

    @handles.apply("evacuate")
    def apply_evacuate(self, g: Game, f: Frame, action: Action) -> None:
        q = g.state.pieces[action["unit"]]
        if M.is_garrison(q):
            M.set_attr(g, q, "garrison_of", q.attrs.get("garrison"))
            M.set_attr(g, q, "garrison", None)
        M.move_piece(g, q, Loc.hex(g.board.idx(action["to"])))
        fog.emit_private(
            g,
            q.side,
            "evacuate",
            f"{q.id} is evacuated by sea to {action['to']}",
            f"{q.side} evacuates a corps by sea",
            rule="LGG 23-E",
        )


# ====================================================================== assault (23-G)
ORGANIC_ARTILLERY = 3  # 23-G (printed)
FORTRESS_FIRE = 3  # 23-G (printed)
NEUTRALIZED_DEFENCE = 1  # 23-G (printed)
ASSAULT_TEST_BONUS = 2  # 23-G (printed)
SURRENDER_LOSSES = 2  # 23-G (printed)


@implements("LGG 23-G")
def assault_defenders(g: Game, f: Piece) -> list[Piece]:
    """LGG 23-G: the corps defending an assault: those inside the fortress (at most 2)."""
    return [q for q in inside(g, f) if M.is_corps(q)][:2]


def assault_fortress(g: Game, rec: BattleRecord) -> Piece | None:
    """The fortress under assault in battle ``rec`` (None for any other battle, or once it fell)."""
    fid = rec.spec.get("fortress")
    if rec.kind != "assault" or not fid:
        return None
    f = g.state.pieces.get(str(fid))
    if f is None or f.loc.kind != "hex" or M.hex_of(g, f) != rec.hex_i:
        return None
    return f


@implements("LGG 23-G", "LGG 28-B")
def assault_params(
    g: Game, i: int, attacker: str, units: list[str], immediate: bool
) -> dict[str, Any]:
    """LGG 23-G: the parameters of the assault battle for the battle procedure (``battle_params``).

    The defenders are the corps inside (at most 2, engaged in turn: ``alternate``) and the
    fortress itself, engaged when no corps is fit (:func:`fortress_hit`); their losses are not
    counted (``uncounted_losses``); nobody retreats (``retreat = none``: the besieger stays in
    the siege hex, the defenders in the fortress). Never a great battle, no generals, the trench
    table, no trenches, the surrounding terrain ignored, no breakthrough, no counter-offensive.
    Not neutralised: the attacker suffers a "2" every round, "repulsed" does not apply to the
    defender, whose combativeness tests get +2 and cost no PR (``free_tests``); the defence
    value, organic artillery and fire value of the fortress are applied round by round by
    :func:`assault_value_mods` and :func:`assault_fire`. ``immediate``: fought right after the
    open-country battle (not a secondary battle, 29)."""
    f = fortress_at(g, i)
    assert f is not None
    defenders = [q.id for q in assault_defenders(g, f)] + [f.id]
    mods: list[dict[str, Any]] = []
    neutral = is_neutralized(g, f)
    if not neutral:
        mods.append(
            {
                "side": "defender",
                "target": "combativeness",
                "value": ASSAULT_TEST_BONUS,
                "rule": "LGG 23-G",
                "reason": "fortress",
            }
        )
    spec: dict[str, Any] = {
        "hex": g.board.label(i),
        "attacker": attacker,
        "kind": "assault",
        "attacker_units": sorted(units),
        "defender_units": defenders,
        "table": "trench",
        "great": False,
        "no_generals": True,
        "modifiers": mods,
        "breakthrough": False,
        "counter_offensive": False,
        "retreat": "none",
        "fortress": f.id,
        "trench": 0,
        "ignore_terrain": True,
        "uncounted_losses": ["defender"],
        "alternate": ["defender"] if g.opt("assault-defenders-alternate") == "strict" else [],
    }
    if not neutral:
        spec["forced_attacker_result"] = "2"
        spec["no_repulse"] = True
        spec["free_tests"] = ["defender"]
    return spec


@implements("LGG 23-G")
def assault_value_mods(
    g: Game, rec: BattleRecord, engaged: Piece | None, attacker_artillery: bool
) -> Modifiers:
    """LGG 23-G: what the fortress adds to the defender's engaged unit in an assault round.

    Not neutralised: its defence value as a defensive bonus (when a corps is engaged; when the
    fortress fights itself that value is its base), and +3 for its organic artillery unless the
    attacker's engaged corps is supported by artillery this round (which only cancels it).
    Neutralised: +1 to the engaged corps, nothing else."""
    mods = Modifiers()
    f = assault_fortress(g, rec)
    if f is None or engaged is None:
        return mods
    if is_neutralized(g, f):
        if engaged.type != "fortress":
            mods.add(NEUTRALIZED_DEFENCE, "LGG 23-G", "neutralised fortress")
        return mods
    if engaged.type != "fortress":
        mods.add(int(f.stat("defense", 0)), "LGG 23-G", "fortress defence")
    if not attacker_artillery:
        mods.add(ORGANIC_ARTILLERY, "LGG 23-G", "fortress organic artillery")
    return mods


@implements("LGG 23-G")
def assault_fire(g: Game, rec: BattleRecord) -> int | None:
    """LGG 23-G: the fire value of the defender's engaged unit in an assault on a fortress that is
    not neutralised: 3, whatever its own (None: its own fire value counts)."""
    f = assault_fortress(g, rec)
    if f is None or is_neutralized(g, f):
        return None
    return FORTRESS_FIRE


@implements("LGG 23-G")
def assault_support_bonus(g: Game, rec: BattleRecord) -> bool:
    """LGG 23-G: whether the attacker's artillery support brings its bonus in this battle (in an
    assault only once the fortress is neutralised; before, it only cancels the organic artillery,
    1 MUN a round all the same)."""
    f = assault_fortress(g, rec)
    return f is None or is_neutralized(g, f)


@implements("LGG 23-G")
def fortress_hit(g: Game, rec: BattleRecord, res: str) -> str:
    """LGG 23-G: the fortress fighting itself suffers the defender's result: 1, M, 2 (or E) reduce a
    full large fortress, neutralise a reduced or small one; "½" (and 0) is ignored. Returns
    ``reduced``, ``neutralized`` or ``held``."""
    f = assault_fortress(g, rec)
    if f is None:
        return "held"
    if res in ("1", "M", "2", "E"):
        return reduce_fortress(g, f, "LGG 23-G")
    g.emit("fortress", f"the fortress {f.id} holds (result {res})", rule="LGG 23-G", fortress=f.id)
    return "held"


@implements("LGG 23-G")
def assault_round_start(g: Game, rec: BattleRecord) -> bool:
    """LGG 23-G: at the start of an assault round, a neutralised fortress that must fight itself (no
    defending corps left to engage) surrenders; the attacker nevertheless suffers 2 losses. True
    when the fortress fell (the attacker wins the assault)."""
    f = assault_fortress(g, rec)
    if f is None or not is_neutralized(g, f):
        return False
    if any(battle.engageable_corps(g, rec, rec.defender, sub) for sub in battle.open_subs(rec)):
        return False
    units = [
        u
        for u, x in sorted(rec.units.items())
        if x["side"] == rec.attacker
        and x["kind"] == "corps"
        and x["state"] in ("fit", "disorganized")
    ]
    _attacker_losses(g, rec, units, SURRENDER_LOSSES)
    rec.units[f.id]["state"] = "eliminated"
    rec.units[f.id]["role"] = "gone"
    fortress_falls(g, f, rec.attacker, "LGG 23-G", "assault")
    return True


def _attacker_losses(g: Game, rec: BattleRecord, units: list[str], n: int) -> None:
    """LGG 23-G: the attacker's losses when the fortress surrenders, one at a time over its corps
    (a loss flips a full corps, eliminates a reduced one), tallied in the battle."""

    corps = [u for u in units if M.on_map(g, g.state.pieces[u])]
    for k in range(n):
        if not corps:
            return
        uid = corps[k % len(corps)]
        battle.apply_losses(g, uid, 1, "LGG 23-G", rec.id)
        if not M.on_map(g, g.state.pieces[uid]):
            corps.remove(uid)


@implements("LGG 23-G", "LGG 38", "LGG 39-A")
def assault_units(g: Game, side: str, i: int) -> list[Piece]:
    """LGG 23-G / 23-C: the besieger's corps and artillery that may assault (corps disorganized in
    the open-country battle are fit again for the assault); no tanks and no Stosstruppen (assault
    corps) take part."""
    return [
        p
        for p in _outside(g, side, i)
        if p.type in ("corps", "artillery") and not p.attrs.get("assault")
    ]


@implements("LGG 23-G", "LGG 5-D")
def mark_assault_losses(g: Game, ids: list[str], fell: bool) -> None:
    """LGG 23-G: after an assault, each defending corps is marked 1 loss (2 if the fortress fell),
    in place of the losses it suffered during the assault (which were not counted): recorded in
    ``st["fortress_losses"]`` and in the losses of the year (37-A)."""
    book = M.st(g).setdefault("fortress_losses", {})
    year = M.st(g).setdefault("losses_year", {}).setdefault(str(M.current_turn(g).year), {})
    for uid in ids:
        p = g.state.pieces[uid]
        n = 2 if fell else 1
        book[p.nation] = int(book.get(p.nation, 0)) + n
        year[p.nation] = int(year.get(p.nation, 0)) + n
    M.touch(g)


@implements("LGG 23-G", "LGG 23-C")
class FortressAssault(Step):
    """LGG 23-G: an assault - one battle of kind ``assault`` against the corps inside and, when no
    corps is left to engage, the fortress itself, round after round until the fortress falls or
    the attacker breaks off (or has nothing left)."""

    name = "fortress-assault"
    title = "Assault on a fortress"
    rule = "LGG 23-G"
    composite = True

    def label(self, g: Game, f: Frame) -> str:
        return f"Assault at {f.params['hex']}"

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:

        p = f.params
        i = g.board.idx(p["hex"])
        fort = fortress_at(g, i)
        stage = p.get("stage", "battle")
        if stage == "battle":
            if fort is None:
                return None
            p["stage"] = "after"
            p["fortress"] = fort.id
            p["defenders"] = [q.id for q in assault_defenders(g, fort)]
            params = battle.battle_params(
                g, **assault_params(g, i, p["side"], p["units"], bool(p.get("immediate")))
            )
            p["battle"] = params["battle"]
            if _support_asked(
                g, params["battle"]
            ):  # on public facts: what it may use must not show (4-A)
                p["stage"] = "support"
                return "assault-support", {
                    "battle": params["battle"],
                    "side": p["side"],
                    "counted": bool(p.get("counted")),
                }
            return "battle", params
        if stage == "support":
            p["stage"] = "after"
            return "battle", {"battle": p["battle"]}
        if stage == "after":
            p["stage"] = "done"
            fell = fort is None or fort.id != p.get("fortress")
            mark_assault_losses(g, p["defenders"], fell)
            g.emit(
                "assault",
                f"the assault at {p['hex']}: the fortress {'falls' if fell else 'holds'}",
                rule="LGG 23-G",
                hex=p["hex"],
                outcome="surrendered" if fell else "held",
            )
            refresh_sieges(g)
        return None


@implements("LGG 23-G", "LGG 32.1-C", "LGG 37-D")
def assault_support_options(g: Game, bid: str, counted: bool) -> list[dict[str, Any]]:
    """LGG 23-G / 32.1-C / 37-D: in Fire and Combined Doctrine the attacker of an assault may use
    tactical air support and a gas attack (no bombardment, tanks or Stosstruppen): the numbers of
    aircraft it may send, with or without the gas it has available (a gas counts against the gas
    battles of the turn: ``counted`` when the assault is a secondary battle)."""

    rec = battle.rec_of(g, bid)
    side = rec.attacker
    if battle.side_doctrine_at(g, side, rec.hex_i) not in battle.FIRE_DOCTRINES:
        return [{"air": 0, "gas": False}]
    nation = main_battle._nation(g, rec, side)
    per_sub = tactics.air_support_aircraft(g, nation)  # an assault has a single sub-battle
    air = [n for n in main_battle.air_support_options(g, rec, side) if n <= per_sub]
    gas = tactics.gas_available(g, nation, "secondary" if counted else "assault")
    return [
        {"air": n, "gas": with_gas} for n in air for with_gas in ([False, True] if gas else [False])
    ]


def _support_asked(g: Game, bid: str) -> bool:
    """The attacker of an assault is asked about air support and gas whenever it is in Fire or
    Combined Doctrine (a public fact)."""

    rec = battle.rec_of(g, bid)
    return battle.side_doctrine_at(g, rec.attacker, rec.hex_i) in battle.FIRE_DOCTRINES


@implements("LGG 23-G", "LGG 32.1-C", "LGG 37-D")
class AssaultSupport(LggStep):
    """LGG 23-G: before an assault in Fire or Combined Doctrine the attacker chooses its tactical
    air support (aircraft sent) and whether it uses a gas attack (``assault-support``, ``air``,
    ``gas``)."""

    name = "assault-support"
    title = "Assault: air support and gas"
    rule = "LGG 23-G"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: air support and gas for the assault"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    @handles.options("assault-support")
    def assault_support_options(
        self, g: Game, f: Frame, side: str, actor: str | None
    ) -> list[Action]:
        return [
            {"type": "assault-support", "side": side, **o}
            for o in assault_support_options(g, f.params["battle"], bool(f.params.get("counted")))
        ]

    @handles.apply("assault-support")
    def apply_assault_support(self, g: Game, f: Frame, action: Action) -> None:

        rec = battle.rec_of(g, f.params["battle"])
        side = f.params["side"]
        mods = list(rec.spec.get("modifiers") or [])
        if int(action.get("air", 0)):
            mods += main_battle.fly_air_support(g, rec, side, int(action["air"]))
        if action.get("gas"):
            nation = main_battle._nation(g, rec, side)
            gas = tactics.gas_available(
                g, nation, "secondary" if f.params.get("counted") else "assault"
            )
            if gas:
                mods.append(
                    tactics.gas_modifier(tactics.use_gas(g, rec.id, nation, gas, massive=False))
                )
        rec.spec["modifiers"] = mods
        M.touch(g)
        g.finish(f)


# ====================================================================== the besieger's actions
def siege_hexes(g: Game, side: str, act: dict[str, Any]) -> list[int]:
    """Siege hexes where units of the activation (its armies, or the autonomous units) besiege."""
    out = []
    armies = set(act.get("armies", []))
    auto = act.get("kind") == "autonomous"
    for lab, mk in sorted(g.state.markers.get("siege", {}).items()):
        i = g.board.idx(lab)
        if mk.get("side") != side or fortress_at(g, i) is None:
            continue
        for p in _outside(g, side, i):
            army = command_army(g, p)
            if (army is None) if auto else (army in armies):
                out.append(i)
                break
    return out


@implements("LGG 23-D", "LGG 23-F", "LGG 23-G")
class SiegeActions(LggStep):
    """LGG 23-D / 23-F / 23-G: the besieger's choices at the end of an activation: ``siege-fire``
    (``hex``, ``artillery``), ``assault`` (``hex``), ``end-siege``."""

    name = "siege-actions"
    title = "Siege"
    rule = "LGG 23-D"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: siege fire and assaults"

    def _hexes(self, g: Game, f: Frame) -> list[int]:
        act = M.st(g).get("activation") or {}
        return [
            i
            for i in siege_hexes(g, f.params["side"], act)
            if g.board.label(i) not in f.params.get("assaulted", [])
        ]

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]] if self._hexes(g, f) else []

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    @handles.options("end-siege")
    def end_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "end-siege", "side": side}]

    @handles.options("siege-fire")
    def fire_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        out: list[Action] = []
        for i in self._hexes(g, f):
            lab = g.board.label(i)
            for ids in siege_fire_options(g, side, i):
                out.append({"type": "siege-fire", "side": side, "hex": lab, "artillery": ids})
        return out

    @handles.options("assault")
    def assault_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        out: list[Action] = []
        for i in self._hexes(g, f):
            lab = g.board.label(i)
            if (
                any(M.is_corps(p) for p in assault_units(g, side, i))
                and self._assault_limit(g, f, side, lab) is None
            ):
                out.append({"type": "assault", "side": side, "hex": lab})
        return out

    def _counts(self, g: Game, f: Frame, side: str, lab: str) -> bool:
        """23-G: in Fire and Combined Doctrine an assault is a secondary battle (29), unless it
        follows
        the open-country battle at once."""

        if lab in f.params.get("new_sieges", []):
            return False
        act = M.st(g).get("activation") or {}
        return secondary.battle_kind(g, act, side, lab, list(act.get("armies", []))) == "secondary"

    def _assault_limit(self, g: Game, f: Frame, side: str, lab: str) -> str | None:

        if not self._counts(g, f, side, lab):
            return None
        act = M.st(g).get("activation") or {}
        sector = secondary.battle_sector(g, g.board.idx(lab), side, list(act.get("armies", [])))
        if len(secondary.secondary_battles(g, side, sector)) >= secondary.SECONDARY_LIMIT:
            return (
                f"{side} has already fought its {secondary.SECONDARY_LIMIT} secondary battles on"
                f" the {sector} sector"
            )
        return None

    @handles.check("end-siege")
    def check_end(self, g: Game, f: Frame, action: Action) -> None:
        return

    def _siege(self, g: Game, f: Frame, action: Action) -> int:
        lab = action.get("hex")
        if (
            not isinstance(lab, str)
            or not g.board.has_label(lab)
            or g.board.idx(lab) not in self._hexes(g, f)
        ):
            raise IllegalAction("LGG 23-D", f"{lab!r} is not a siege of the activated armies")
        return g.board.idx(lab)

    @handles.check("siege-fire")
    def check_fire(self, g: Game, f: Frame, action: Action) -> None:
        i = self._siege(g, f, action)
        lab = action["hex"]
        ids = action.get("artillery")
        if not isinstance(ids, list) or sorted(ids) not in [
            sorted(x) for x in siege_fire_options(g, action["side"], i)
        ]:
            raise IllegalAction(
                "LGG 23-F",
                f"{ids!r} is not a siege firing open at {lab}: chosen heavy artillery fires"
                " together, siege and coastal artillery unit by unit, each chosen unit"
                " paying 1 MUN",
            )

    @handles.check("assault")
    def check_assault(self, g: Game, f: Frame, action: Action) -> None:
        i = self._siege(g, f, action)
        lab = action["hex"]
        if not any(M.is_corps(p) for p in assault_units(g, action["side"], i)):
            raise IllegalAction("LGG 23-G", "an assault needs corps")
        why = self._assault_limit(g, f, action["side"], str(lab))
        if why:
            raise IllegalAction("LGG 29", f"the assault would be a secondary battle (23-G): {why}")

    @handles.apply("end-siege")
    def apply_end(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("siege-fire")
    def apply_fire(self, g: Game, f: Frame, action: Action) -> None:
        i = g.board.idx(action["hex"])
        siege_fire(g, action["side"], i, list(action["artillery"]))
        refresh_sieges(g)

    @handles.apply("assault")
    def apply_assault(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        i = g.board.idx(action["hex"])
        f.params.setdefault("assaulted", []).append(action["hex"])
        units = [p.id for p in assault_units(g, side, i)]
        immediate = action["hex"] in f.params.get("new_sieges", [])
        counted = self._counts(g, f, side, action["hex"])
        if counted:
            act = M.st(g).get("activation") or {}
            secondary.count_battle(g, side, action["hex"], "secondary", list(act.get("armies", [])))
        g.emit(
            "assault-declared",
            f"{side} launches an assault on the fortress at {action['hex']}",
            rule="LGG 23-G",
            hex=action["hex"],
        )
        g.push(
            "fortress-assault",
            {
                "side": side,
                "hex": action["hex"],
                "units": units,
                "immediate": immediate,
                "counted": counted,
            },
        )


STEPS: tuple[type[Step], ...] = (FortressSurrender, FortressAssault, SiegeActions, AssaultSupport)
