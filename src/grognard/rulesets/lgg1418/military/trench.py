"""LGG 28: trench warfare - trench levels, their combat advantage, the GHQ general artillery
reserve, and autonomous units in trench warfare.

* 28: from the switch to trenches (October 1914 by choice, November-December 1914 for
  everyone, 1915 on) units entrench automatically at the end of their movement; Movement
  Doctrine forbids entrenching (36.1). Entrenching needs no action: a defending stack of a
  country that may entrench has its trench level (:func:`battle_trench_level`).
* 28-A: the normal level rises from +0 (the switch to Fire Doctrine) to +3 through
  technologies; it is kept per power in the track ``trench_level`` (``tracks.trench_level.DE
  = 2`` in a scenario; the technology rules raise it). The Russian sector is one level lower,
  the Balkan, Armenian and Oriental sectors two levels lower (never below 0).
* 28-B: the level is added to the defender's defence, the Trench Table resolves the combat
  and the defender has +2 on its combativeness tests (not the two corps tested after a
  panic). The battle procedure applies these (it reads :func:`battle_trench_level`);
  :func:`combat_advantage` states them for a hex.
* 28-C: each GHQ has an "Artillery" box (off-map box ``lgg:ghq-artillery:<GHQ id>``) holding
  up to 2 heavy artillery units, in trench warfare only (reinforcement-phase actions
  ``to-ghq-artillery`` / ``from-ghq-artillery``). They may act at each activation, on attack
  or defence, in several battles a turn but once per activated army, within the limits of
  :func:`ghq_artillery_for_battle`; they go back to the box right after the battle.
* 28-D: in trench warfare autonomous units may not attack, and in a defensive battle their
  reinforcements come only from HQs or the GHQ at most 6 hexes away.

Trench reductions of one battle (31-H, 37-F, 37-G, 17.3-B flank) are the battle's business:
the original level is restored at its end, which is also why a continued great offensive
meets the defender's trenches at their initial level each turn (30-D).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map import mapdata
from grognard.rulesets.lgg1418.map.fronts import fronts_of, sectors_of
from grognard.rulesets.lgg1418.military import doctrine_transitions as DT
from grognard.rulesets.lgg1418.military import movement
from grognard.rulesets.lgg1418.military.reinforcement import _land_connected, why_not_ghq_reserve
from grognard.rulesets.lgg1418.military.reinforcement import _reserve_room as room
from grognard.rulesets.lgg1418.units import fog
from grognard.rulesets.lgg1418.units.counters import command_army, is_army_own
from grognard.rulesets.lgg1418.units.doctrine import doctrine_country

if TYPE_CHECKING:
    from grognard.core.game import Game

MAX_LEVEL = 3
SECTOR_OFFSET = {"French": 0, "Italian": 0, "Russian": 1, "Balkan": 2, "Armenian": 2, "Oriental": 2}
GHQ_ARTILLERY_SLOTS = 2
TRENCH_TRACK = "trench_level"


# ====================================================================== 28-A trench level
@implements("LGG 28-A")
def normal_level(g: Game, nation: str) -> int:
    """LGG 28-A: a power's normal trench level, +0 at the switch to Fire Doctrine, up to +3 with
    technologies (track ``trench_level``; Belgium and Serbia follow England and Russia, 36.6)."""

    raw = g.state.tracks.get(TRENCH_TRACK, {})
    v = raw.get(nation, raw.get(doctrine_country(g, nation), 0))
    return max(0, min(MAX_LEVEL, int(v)))


@implements("LGG 28-A")
def sector_level(g: Game, nation: str, sector: str) -> int:
    """LGG 28-A: the level on a sector: one lower on the Russian sector (0..+2), two lower on
    the Balkan, Armenian and Oriental sectors (0 or +1)."""
    return max(0, normal_level(g, nation) - SECTOR_OFFSET.get(sector, 0))


def raise_level(g: Game, nation: str, rule: str, reason: str) -> int:
    """Raise a power's normal level by one (the technology rules call it), up to +3."""
    tr = g.state.tracks.setdefault(TRENCH_TRACK, {})
    tr[nation] = min(MAX_LEVEL, normal_level(g, nation) + 1)
    M.touch(g)
    fog.emit_private(
        g,
        M.nation_side(g, nation) or "",
        "trench-level",
        f"{M.nation_name(g, nation)} trench level now +{tr[nation]} ({reason})",
        None,
        rule=rule,
    )
    return int(tr[nation])


def _defending_nation(g: Game, units: list[Piece]) -> str | None:
    corps = [p.nation for p in units if M.is_corps(p) and not M.garrison_in_fortress(g, p)]
    if not corps:
        return None
    counts = Counter(corps)
    return sorted(counts, key=lambda n: (-counts[n], n))[0]


@implements("LGG 28", "LGG 28-A", "LGG 36.5-B", "LGG 36.1")
def stack_trench_level(g: Game, i: int, side: str) -> int:
    """LGG 28 / 28-A / 36.1 / 36.5-B: the trench level of ``side``'s stack in hex ``i``.

    0 when the stack's country may not entrench (Movement Doctrine, 36.1); otherwise the
    best level among the hex's sectors (a shared hex belongs to both); a stack "in movement"
    in Combined Doctrine defends one level lower, minimum 0 (option ``in-movement-trench``,
    digest A-15: ``none`` gives it no trench at all). A provisional trench of breakthrough
    units (attribute ``provisional_trench`` with ``provisional_until``, 17.3-D/E) counts when
    it is better."""
    units = M.units_at_hex(g, i, side)
    nation = _defending_nation(g, units)
    if nation is None:
        return 0
    fronts = fronts_of(g, i) or [M.WEST]
    if not any(DT.may_entrench(g, nation, fr) for fr in fronts):
        return 0
    level = max(
        (sector_level(g, nation, s) for s in sectors_of(g, i)), default=normal_level(g, nation)
    )
    if DT.stack_in_movement(g, units):
        level = 0 if g.opt("in-movement-trench") == "none" else max(0, level - 1)
    for p in units:
        prov = p.attrs.get("provisional_trench")
        if prov is not None and int(p.attrs.get("provisional_until", -1)) >= M.turn_index(g):
            level = max(level, int(prov))
    return level


def battle_trench_level(g: Game, hex_label: str, defender: str) -> int:
    """The defender's trench level in a battle at ``hex_label`` (read by the battle procedure)."""
    return stack_trench_level(g, g.board.idx(hex_label), defender)


@implements("LGG 28-B")
def combat_advantage(g: Game, hex_label: str, defender: str) -> dict[str, Any]:
    """LGG 28-B: what trenches give the defender of a hex: the level added to its defence, the
    Trench Table, +2 on its combativeness tests (except the two corps tested after a panic)."""
    i = g.board.idx(hex_label)
    units = M.units_at_hex(g, i, defender)
    nation = _defending_nation(g, units)
    fronts = fronts_of(g, i) or [M.WEST]
    if nation is None:
        return {"level": 0, "table": "movement", "combativeness": 0}
    table = DT.combat_table(g, nation, fronts[0])
    bonus = DT.defender_combativeness_bonus(g, nation, fronts[0], units[0] if units else None)
    return {
        "level": stack_trench_level(g, i, defender),
        "table": table,
        "combativeness": int(bonus.total()) if table == "trench" else 0,
    }


@implements("LGG 17.3-E", "LGG 28-A")
def set_provisional(g: Game, units: list[Piece], level: int) -> None:
    """A provisional trench for units (17.3-D/E) until the end of their side's next turn."""
    for p in units:
        M.set_attr(g, p, "provisional_trench", int(level))
        M.set_attr(g, p, "provisional_until", M.turn_index(g) + 1)


# =============================================================== 28-C GHQ general artillery reserve
def artillery_box(ghq: Piece) -> str:
    return f"lgg:ghq-artillery:{ghq.id}"


def ghq_artillery(g: Game, nation: str) -> list[Piece]:
    """Artillery units in the "Artillery" box of ``nation``'s GHQ."""
    ghq = M.ghq_piece(g, nation)
    if ghq is None:
        return []
    return sorted(g.state.at(Loc.box(artillery_box(ghq))), key=lambda p: p.id)


def _ghq_front(g: Game, ghq: Piece) -> str:
    h = M.hex_of(g, ghq)
    fronts = fronts_of(g, h) if h is not None else []
    return fronts[0] if fronts else M.WEST


@implements("LGG 28-C")
def why_not_to_artillery_box(g: Game, side: str, p: Piece) -> str | None:
    """LGG 28-C: a heavy artillery unit (neither siege nor coastal) of the GHQ's nation goes into
    the GHQ's Artillery box, 2 at most, in trench warfare only; it comes from the GHQ reserve or
    from the map on the conditions of 5-G (same front with a land connection, supplied, not an
    army's own unit)."""

    if p.side != side or p.type != "artillery":
        return "only your own artillery units go into a GHQ's Artillery box"
    if str(p.attrs.get("category")) != "heavy":
        return "only heavy artillery (neither siege nor coastal) goes into the GHQ's Artillery box"
    ghq = M.ghq_piece(g, p.nation)
    if ghq is None or not M.on_map(g, ghq):
        return f"{M.nation_name(g, p.nation)} has no GHQ on the map"
    if p.loc == Loc.box(artillery_box(ghq)):
        return f"{p.id} is already in the Artillery box"
    if not DT.may_entrench(g, p.nation, _ghq_front(g, ghq)):
        return "the GHQ's Artillery box is used only in trench warfare"
    if len(ghq_artillery(g, p.nation)) >= GHQ_ARTILLERY_SLOTS:
        return "the Artillery box holds 2 heavy artillery units"
    if is_army_own(g, p):
        return "an artillery unit bearing an army number supports only its own army (15-B)"
    c = M.carrier(g, p)
    if c is not None and c.id == ghq.id and M.in_reserve(p):
        return None
    if not M.on_map(g, p):
        return f"{p.id} is neither on the map nor in the GHQ reserve"
    why = why_not_ghq_reserve(g, side, p)
    if why and why != "the GHQ reserve is full":
        return why
    return None


@implements("LGG 28-C")
class GhqArtilleryActions(hooks.ReinforcementActions):
    """LGG 28-C: placing heavy artillery into, or taking it out of, a GHQ's Artillery box
    (reinforcement phase; a unit taken out goes to the GHQ reserve). Handlers of the
    reinforcement step, combined with it in :mod:`.ruleset`."""

    @handles.options("to-ghq-artillery")
    def to_artillery_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [
            {"type": "to-ghq-artillery", "side": side, "unit": p.id}
            for p in sorted(M.iter_units(g, side), key=lambda p: p.id)
            if p.type == "artillery" and why_not_to_artillery_box(g, side, p) is None
        ]

    @handles.options("from-ghq-artillery")
    def from_artillery_options(
        self, g: Game, f: Frame, side: str, actor: str | None
    ) -> list[Action]:
        out: list[Action] = []
        for n in M.powers_of(g, side):
            ghq = M.ghq_piece(g, n)
            if ghq is not None and _reserve_room(g, ghq):
                out.extend(
                    {"type": "from-ghq-artillery", "side": side, "unit": p.id}
                    for p in ghq_artillery(g, n)
                )
        return out

    def _artillery_unit(self, g: Game, f: Frame, action: Action) -> Piece:
        self.check_phase(g, f, action)
        p = g.state.pieces.get(str(action.get("unit", "")))
        if p is None or p.side != action["side"]:
            raise IllegalAction("LGG 28-C", f"you have no unit {action.get('unit')!r}")
        return p

    @handles.check("to-ghq-artillery")
    def check_to_artillery(self, g: Game, f: Frame, action: Action) -> None:
        p = self._artillery_unit(g, f, action)
        why = why_not_to_artillery_box(g, action["side"], p)
        if why:
            raise IllegalAction("LGG 28-C", why)

    @handles.check("from-ghq-artillery")
    def check_from_artillery(self, g: Game, f: Frame, action: Action) -> None:
        p = self._artillery_unit(g, f, action)
        ghq = M.ghq_piece(g, p.nation)
        if ghq is None or p not in ghq_artillery(g, p.nation):
            raise IllegalAction("LGG 28-C", f"{p.id} is not in a GHQ's Artillery box")
        if not _reserve_room(g, ghq):
            raise IllegalAction("LGG 28-C", "the GHQ reserve is full")

    @handles.apply("to-ghq-artillery")
    def apply_to_artillery(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["unit"]]
        ghq = M.ghq_piece(g, p.nation)
        assert ghq is not None
        M.set_status(g, p, M.RESERVE, False)
        M.set_attr(g, p, "attached", None)
        M.move_piece(g, p, Loc.box(artillery_box(ghq)))
        fog.emit_private(
            g,
            p.side,
            "ghq-artillery",
            f"{p.id} joins the Artillery box of {ghq.id}",
            None,
            rule="LGG 28-C",
        )

    @handles.apply("from-ghq-artillery")
    def apply_from_artillery(self, g: Game, f: Frame, action: Action) -> None:
        p = g.state.pieces[action["unit"]]
        ghq = M.ghq_piece(g, p.nation)
        assert ghq is not None
        M.move_piece(g, p, Loc.inside(ghq.id))
        M.set_status(g, p, M.RESERVE, True)
        fog.emit_private(
            g,
            p.side,
            "ghq-artillery",
            f"{p.id} leaves the Artillery box for the {ghq.id} reserve",
            None,
            rule="LGG 28-C",
        )


def _reserve_room(g: Game, holder: Piece) -> bool:

    return room(g, holder)


def _sector_reach(g: Game, ghq: Piece) -> set[str]:
    """LGG 28-C: the Western sectors a GHQ's artillery reaches: its own; both French and Italian
    when the Entente GHQ is at Lyon or the Central Powers GHQ at Innsbruck."""
    h = M.hex_of(g, ghq)
    if h is None:
        return set()
    own = {s for s in sectors_of(g, h) if M.data(g).sector_front(s) == M.WEST}
    name = mapdata.place_name(g, h)
    if (ghq.side == M.ENTENTE and name == "Lyon") or (ghq.side == M.CP and name == "Innsbruck"):
        own |= {"French", "Italian"}
    return own


def _moved_far(g: Game, p: Piece, i: int) -> bool:
    """LGG 28-C: a unit that moved its full movement allowance or at least 4 hexes in this
    activation (hexes counted from where it started, our reading)."""
    act = M.st(g).get("activation") or {}
    serial = act.get("serial")
    if serial is None or not movement.has_moved(p, int(serial)):
        return False
    if movement.spent(p, int(serial)) >= movement.allowance(
        g, p, str(p.attrs.get("mv_mode") or "normal")
    ):
        return True
    start = p.attrs.get("mv_start")
    return start is not None and g.board.distance(int(start), i) >= 4


@implements("LGG 28-C")
def ghq_artillery_for_battle(
    g: Game,
    nation: str,
    battle_hex: int,
    attacking: bool,
    attacking_units: list[Piece] | None = None,
    activation: int | None = None,
) -> list[Piece]:
    """LGG 28-C: the units of ``nation``'s GHQ Artillery box that may join a battle at
    ``battle_hex``.

    Trench warfare only. West: a battle of the French or Italian sector the GHQ reaches, with a
    land connection (the Channel ignored for an English GHQ in London). East: both within 3
    hexes of the GHQ, one at a time up to 6 hexes (option ``ghq-artillery-east-anchor``).
    Not on attack if an attacking corps moved its full allowance or at least 4 hexes. Each
    unit once per activated army (activation serial)."""

    ghq = M.ghq_piece(g, nation)
    box = ghq_artillery(g, nation)
    gh = M.hex_of(g, ghq) if ghq else None
    if ghq is None or gh is None or not box:
        return []
    fronts = fronts_of(g, battle_hex)
    if not fronts or not any(DT.may_entrench(g, nation, fr) for fr in fronts):
        return []
    if attacking and any(
        _moved_far(g, p, battle_hex) for p in attacking_units or [] if M.is_corps(p)
    ):
        return []
    serial = (
        activation if activation is not None else (M.st(g).get("activation") or {}).get("serial")
    )
    free = [p for p in box if serial is None or serial not in p.attrs.get("ghq_art_used", [])]
    if M.WEST in fronts and M.WEST in fronts_of(g, gh):
        if not set(sectors_of(g, battle_hex)) & _sector_reach(g, ghq):
            return []
        london = nation == "GB" and mapdata.place_name(g, gh) == "London"
        if not london and not _land_connected(g, gh, battle_hex):
            return []
        return free
    if M.EAST in fronts and M.EAST in fronts_of(g, gh):
        d = g.board.distance(gh, battle_hex)
        if d <= 3:
            return free
        if d <= 6:
            return free[:1]
    return []


@implements("LGG 28-C")
def commit_ghq_artillery(
    g: Game, units: list[Piece], battle_hex: int, activation: int | None
) -> None:
    """LGG 28-C: GHQ artillery joins a battle (it stands in the battle hex for the battle)."""
    for p in units:
        used = list(p.attrs.get("ghq_art_used", []))
        if activation is not None:
            used.append(int(activation))
        M.set_attr(g, p, "ghq_art_used", used)
        M.set_attr(g, p, "ghq_art_battle", g.board.label(battle_hex))
        M.move_piece(g, p, Loc.hex(battle_hex))
        fog.emit_private(
            g,
            p.side,
            "ghq-artillery",
            f"{p.id} of the GHQ general artillery reserve joins the battle "
            f"at {g.board.label(battle_hex)}",
            f"{p.side} artillery joins the battle at {g.board.label(battle_hex)}",
            rule="LGG 28-C",
        )


@implements("LGG 28-C")
def return_ghq_artillery(g: Game, battle_hex: int | None = None) -> None:
    """LGG 28-C: engaged GHQ artillery goes back to its GHQ's Artillery box right after the battle
    (if it still exists; eliminated units stay eliminated)."""
    lab = g.board.label(battle_hex) if battle_hex is not None else None
    for p in sorted(g.state.pieces.values(), key=lambda p: p.id):
        where = p.attrs.get("ghq_art_battle")
        if where is None or (lab is not None and where != lab):
            continue
        M.set_attr(g, p, "ghq_art_battle", None)
        ghq = M.ghq_piece(g, p.nation)
        if ghq is None or not M.on_map(g, p):
            continue
        M.move_piece(g, p, Loc.box(artillery_box(ghq)))


def clear_turn_records(g: Game) -> None:
    """The once-per-activation records of GHQ artillery last one turn."""
    for p in g.state.pieces.values():
        if p.attrs.get("ghq_art_used"):
            M.set_attr(g, p, "ghq_art_used", None)


# ====================================================================== 28-D autonomous units
def is_autonomous(g: Game, p: Piece) -> bool:
    """A unit commanded by no HQ (21)."""
    return M.is_unit(p) and p.type not in ("hq", "ghq") and command_army(g, p) is None


@implements("LGG 28-D")
def autonomous_attack_check(
    g: Game, act: dict[str, Any], members: list[Piece], j: int, mode: str, engage: bool
) -> None:
    """LGG 28-D: in trench warfare autonomous units may not attack (a move check)."""
    if not engage:
        return
    front = act.get("front") or (fronts_of(g, j) or [M.WEST])[0]
    bad = [
        p.id
        for p in members
        if is_autonomous(g, p) and M.is_corps(p) and DT.may_entrench(g, p.nation, front)
    ]
    if bad:
        raise IllegalAction(
            "LGG 28-D", f"in trench warfare autonomous units may not attack ({', '.join(bad)})"
        )


@implements("LGG 28-D")
def autonomous_may_attack(g: Game, p: Piece) -> bool:
    """LGG 28-D: may this autonomous unit attack at all (not in trench warfare)?"""
    h = M.hex_of(g, p)
    fronts = fronts_of(g, h) if h is not None else [M.WEST]
    return not any(DT.may_entrench(g, p.nation, fr) for fr in fronts or [M.WEST])


@implements("LGG 28-D")
def autonomous_defence(g: Game, defenders: list[Piece], battle_hex: int) -> bool:
    """LGG 28-D: a defensive battle fought by autonomous corps in trench warfare."""
    corps = [p for p in defenders if M.is_corps(p)]
    if not corps or not all(is_autonomous(g, p) for p in corps):
        return False
    fronts = fronts_of(g, battle_hex) or [M.WEST]
    return any(DT.may_entrench(g, corps[0].nation, fr) for fr in fronts)


@implements("LGG 28-D")
def autonomous_reinforcement_source_ok(
    g: Game, defenders: list[Piece], source_holder: Piece, battle_hex: int
) -> bool:
    """LGG 28-D: in trench warfare, reinforcements of a defensive battle fought by autonomous
    units come only from an HQ or the GHQ at most 6 hexes away."""
    if not autonomous_defence(g, defenders, battle_hex):
        return True
    h = M.hex_of(g, source_holder)
    return (
        source_holder.type in ("hq", "ghq")
        and h is not None
        and g.board.distance(h, battle_hex) <= 6
    )


@implements("LGG 4-A", "LGG 28-A", "LGG 28-C")
def view_extra(g: Game, side: str | None) -> dict[str, Any]:
    """LGG 4-A: a side sees its own powers' trench levels and GHQ Artillery boxes."""
    if side is None:
        return {}
    own = M.powers_of(g, side)
    return {
        "trench_levels": {n: normal_level(g, n) for n in own if M.is_major(g, n)},
        "ghq_artillery": {
            n: [p.id for p in ghq_artillery(g, n)] for n in own if ghq_artillery(g, n)
        },
    }
