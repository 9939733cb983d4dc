"""LGG 14: enemy reinforcement (Movement Doctrine), and the defender's set-up before a battle
in a fortress hex (23-C).

After the activated army has moved and declared its attacks (every hex where its units stand
with enemy units), the sequence opens the ``enemy-reinforcement`` hook for the defender
(:class:`EnemyReinforcement`). The defender is always asked (being asked reveals nothing); it
may, with the units of a nation whose doctrine still has this procedure (Movement Doctrine and
the 1914 partial transition, 36.2-A/B; not Fire Doctrine, 36.3):

* ``reinforce``: move units into an attacked hex, from (14-A) a hex adjacent to it, without
  spending MP and leaving at least one corps behind; from the reserve of an HQ or of the GHQ in
  or adjacent to it; from inside a fortress in it (not the garrison). A stack itself under
  attack may send only its corps in excess of the attacking corps; a stack that received
  reinforcements may not reinforce another. No reinforcement across nationalities, even by a
  unit of the same nationality commanded by an army of another one. Stacking is respected.
* between stacks of the same army reinforcement is automatic (14-B); from another army it needs
  a successful ``inter-army-test`` for that army and hex (14-C): a D12 at least the sum of the
  two HQs' coordination values (not counted against the GHQ's combination value), automatic
  when the GHQ is within 2 hexes of the attacked hex; then the hex may receive 2 corps of that
  army with artillery, which go back to their original stack after the battle
  (:func:`return_inter_army_units`, run by the activation's aftermath);
* ``disorganize``: a corps of the attacked hex is set aside to make room for better troops
  (no PR, no loss; an intact corps is not reduced): it gets the status ``disorganized``, no
  longer counts for stacking while the battle lasts (our reading) and may not be engaged; the
  status is cleared after the activation's battles;
* a stack of autonomous units may be reinforced only within 3 hexes of the GHQ (21).

In any doctrine, before a battle in a hex holding its fortress, the defender may put 1 or 2
corps into the fortress (``enter-fortress``; capacity 2 corps with the garrison, plus
artillery, HQs or GHQs without their reserves, 23-C).

Each new activation allows new reinforcements, even by units that have already served. The
hook is also where the armies attacking in their own turn are recorded (``st["attacked"]``,
read by 36.5-A for reactions in Combined Doctrine).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.modifiers import Modifiers
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.map.fronts import fronts_of
from grognard.rulesets.lgg1418.map.zoc import BESIEGED
from grognard.rulesets.lgg1418.military import doctrine_transitions as DT
from grognard.rulesets.lgg1418.military.movement import static_step_problem
from grognard.rulesets.lgg1418.military.stacking import counts_for_stacking, stacking_limit
from grognard.rulesets.lgg1418.step import LggStep
from grognard.rulesets.lgg1418.units import fog
from grognard.rulesets.lgg1418.units.counters import command_army

if TYPE_CHECKING:
    from grognard.core.game import Game

DISORGANIZED = "disorganized"
INTER_ARMY_CORPS = 2
GHQ_AUTOMATIC = 2
AUTONOMOUS_RANGE = 3
FORTRESS_CORPS = 2


# ====================================================================== helpers
def _front(g: Game, i: int) -> str:
    act = M.st(g).get("activation") or {}
    if act.get("front"):
        return str(act["front"])
    fr = fronts_of(g, i)
    return fr[0] if fr else M.WEST


def reinforcement_open(g: Game, nation: str, front: str) -> bool:
    """LGG 14 / 36.3: does ``nation`` still have the enemy-reinforcement procedure on ``front``?"""

    return DT.allows(g, nation, front, "enemy-reinforcement")


def _fortress(g: Game, side: str, i: int) -> Piece | None:
    for q in g.state.at_hex(i):
        if q.type == "fortress" and q.side == side and BESIEGED not in q.status:
            return q
    return None


def _field(g: Game, side: str, i: int) -> list[Piece]:
    """Units of ``side`` standing on hex ``i`` (not in a fortress, not in a reserve, not on a
    box)."""
    return [p for p in M.units_at_hex(g, i, side) if p.loc.kind == "hex"]


def defending_army(g: Game, side: str, i: int) -> str | None:
    """The army commanding the defenders of hex ``i`` (the first army corps' army; an autonomous
    corps or garrison standing with an army's units does not make the defence autonomous), None
    if autonomous."""
    for p in _field(g, side, i):
        if M.is_corps(p) and DISORGANIZED not in p.status and command_army(g, p) is not None:
            return command_army(g, p)
    for p in _field(g, side, i):
        a = command_army(g, p)
        if a is not None:
            return a
    return None


def defending_nation(g: Game, side: str, i: int) -> str | None:
    """The nationality of the defence of hex ``i`` (its army's nation, or its corps', or its
    fortress's)."""
    a = defending_army(g, side, i)
    if a is not None:
        return M.army_nation(g, a)
    for p in _field(g, side, i):
        if M.is_corps(p):
            return p.nation
    f = _fortress(g, side, i)
    return f.nation if f is not None else None


@implements("LGG 14-A")
def same_nationality(g: Game, p: Piece, nation: str | None) -> bool:
    """LGG 14-A: no reinforcement across nationalities, nor by a unit commanded by an army of
    another
    nationality."""
    if nation is None or p.nation != nation:
        return False
    a = command_army(g, p)
    return a is None or M.army_nation(g, a) == nation


def _attackers(g: Game, side: str, i: int) -> int:
    return sum(1 for q in M.units_at_hex(g, i, M.other_side(side)) if M.is_corps(q))


def _corps_count(g: Game, side: str, i: int) -> int:

    return sum(1 for q in M.units_at_hex(g, i, side) if counts_for_stacking(g, q))


@implements("LGG 17.2-B")
def rounds_fought(g: Game, unit_id: str, serial: int) -> int:
    """LGG 17.2-B: the most battle rounds ``unit_id``'s battles lasted in activation ``serial``."""
    most = 0
    for rec in M.st(g).get("battles", {}).values():
        if rec.get("activation") == serial and unit_id in rec.get("units", {}):
            most = max(most, int(rec.get("round", 0)))
    return most


@implements("LGG 17.2-B")
def breakthrough_barred(g: Game, p: Piece) -> bool:
    """LGG 17.2-B: during a breakthrough, only stacks that fought at most one battle round in this
    activation may intercept or reinforce."""
    act = M.st(g).get("activation") or {}
    if not act.get("breakthrough"):
        return False
    return rounds_fought(g, p.id, int(act["serial"])) > 1


# ====================================================================== sources (14-A)
@implements("LGG 21")
def autonomous_defence_problem(g: Game, side: str, target: int) -> str | None:
    """LGG 21: a stack of autonomous units (no army among the defenders of ``target``) may be
    reinforced only within 3 hexes of its GHQ; why it may not be (None: it may, or it is not
    autonomous)."""
    if defending_army(g, side, target) is not None or not _field(g, side, target):
        return None
    nation = defending_nation(g, side, target)
    ghq = M.ghq_piece(g, nation) if nation else None
    h = M.hex_of(g, ghq) if ghq else None
    if h is not None and g.board.distance(h, target) <= AUTONOMOUS_RANGE:
        return None
    return (
        f"the defenders of {g.board.label(target)} are autonomous units and their GHQ is not"
        f" within {AUTONOMOUS_RANGE} hexes: they may not be reinforced (LGG 21)"
    )


@implements("LGG 14-A", "LGG 21")
def reinforcement_sources(
    g: Game, side: str, target: int, attacked: set[int], reinforced: set[str]
) -> dict[str, list[Piece]]:
    """LGG 14-A / 21: units of ``side`` that may reinforce hex ``target``, by source (a hex label,
    ``reserve:<id>`` or ``fortress:<id>``), before the limits of stacking and of 14-C."""

    nation = defending_nation(g, side, target)
    front = _front(g, target)
    out: dict[str, list[Piece]] = {}
    if autonomous_defence_problem(g, side, target):
        return {}

    def fit(p: Piece, src: int) -> bool:
        if p.type not in ("corps", "artillery", "tank") or not same_nationality(g, p, nation):
            return False
        if breakthrough_barred(g, p):
            return False
        if not reinforcement_open(g, p.nation, front):
            return False
        if command_army(g, p) is None and p.type == "corps":
            ghq = M.ghq_piece(g, p.nation)
            h = M.hex_of(g, ghq) if ghq else None
            if h is None or g.board.distance(h, target) > AUTONOMOUS_RANGE:
                return False
        return src == target or static_step_problem(g, p, src, target) is None

    occ = M.occupied(g, side)
    for h in g.board.neighbors(target):
        lab = g.board.label(h)
        if lab in reinforced:
            continue
        stack = [
            p
            for p in _field(g, side, h)
            if p.type in ("corps", "artillery", "tank")
            and not M.garrison_in_fortress(g, p)
            and "besieging" not in p.status
            and DISORGANIZED not in p.status
        ]
        corps = [p for p in stack if M.is_corps(p)]
        keep = max(1, _attackers(g, side, h)) if h in attacked else 1
        spare = max(0, len(corps) - keep)
        units = [p for p in stack if fit(p, h)]
        units = [p for p in units if not M.is_corps(p)] + [p for p in units if M.is_corps(p)][
            :spare
        ]
        if any(M.is_corps(p) for p in units) or (units and spare >= 0 and h not in attacked):
            out[lab] = sorted(units, key=lambda p: p.id)
    for h in [target, *g.board.neighbors(target)]:
        for holder in occ.get(h, []):
            if holder.type not in ("hq", "ghq") or holder.loc.kind != "hex":
                continue
            res = [q for q in g.state.contents(holder.id) if M.in_reserve(q) and fit(q, h)]
            if res:
                out[f"reserve:{holder.id}"] = sorted(res, key=lambda p: p.id)
    f = _fortress(g, side, target)
    if f is not None:
        inside = [
            q
            for q in g.state.contents(f.id)
            if M.is_unit(q) and not M.garrison_in_fortress(g, q) and fit(q, target)
        ]
        if inside:
            out[f"fortress:{f.id}"] = sorted(inside, key=lambda p: p.id)
    return out


def _source_hex(g: Game, src: str) -> int:
    if src.startswith(("reserve:", "fortress:")):
        h = M.hex_of(g, g.state.pieces[src.split(":", 1)[1]])
        assert h is not None
        return h
    return g.board.idx(src)


# ====================================================================== 14-C
@implements("LGG 14-C")
def inter_army_target(g: Game, army_a: str, army_b: str) -> int:
    """LGG 14-C: the D12 must reach the sum of the two HQs' coordination values."""
    total = 0
    for a in (army_a, army_b):
        hq = M.hq_piece(g, a)
        total += int(hq.stat("coordination", 0)) if hq else 0
    return total


@implements("LGG 14-C")
def ghq_makes_it_automatic(g: Game, nation: str, target: int) -> bool:
    """LGG 14-C: the test succeeds automatically when the GHQ is within 2 hexes of the attacked
    hex."""
    ghq = M.ghq_piece(g, nation)
    h = M.hex_of(g, ghq) if ghq else None
    return h is not None and g.board.distance(h, target) <= GHQ_AUTOMATIC


def _rec(f: Frame, key: str) -> dict[str, Any]:
    """A record of the step's frame, created when first written (only while applying)."""
    return f.params.setdefault(key, {})


def _read(f: Frame, key: str) -> dict[str, Any]:
    """A record of the step's frame, read only (queries never write the state)."""
    return f.params.get(key, {})


def _inter_key(army: str, lab: str) -> str:
    return f"{army}@{lab}"


@implements("LGG 14-A", "LGG 14-B", "LGG 14-C", "LGG 10-A", "LGG 21")
def why_not_reinforce(g: Game, f: Frame, side: str, ids: list[str], to: str) -> str | None:
    """LGG 14-A / 14-B / 14-C / 10-A: why these units may not reinforce hex ``to`` now (None: they
    may)."""

    if to not in f.params["hexes"]:
        return f"{to!r} is not an attacked hex"
    if not ids or len(set(ids)) != len(ids):
        return "name the reinforcing units (each once)"
    target = g.board.idx(to)
    why = autonomous_defence_problem(g, side, target)
    if why:
        return why
    attacked = {g.board.idx(h) for h in f.params["hexes"]}
    reinforced = set(_read(f, "reinforced"))
    src = reinforcement_sources(g, side, target, attacked, reinforced)
    by_id = {q.id: (s, q) for s, lst in src.items() for q in lst}
    chosen = []
    sources = set()
    for uid in ids:
        if uid not in by_id:
            return f"{uid!r} cannot reinforce {to} now"
        s, q = by_id[uid]
        chosen.append(q)
        sources.add(s)
    if len(sources) > 1:
        return "one reinforcement comes from one source at a time"
    (source,) = sources
    if not source.startswith(("reserve:", "fortress:")):
        h = g.board.idx(source)
        corps_left = sum(
            1 for q in _field(g, side, h) if M.is_corps(q) and DISORGANIZED not in q.status
        )
        sent = sum(1 for q in chosen if M.is_corps(q))
        keep = max(1, _attackers(g, side, h)) if h in attacked else 1
        if corps_left - sent < keep:
            return f"the stack at {source} must keep {keep} corps"
    adds = sum(1 for q in chosen if M.is_corps(q))
    if _corps_count(g, side, target) + adds > stacking_limit(g, target):
        return (
            f"at most {stacking_limit(g, target)} corps may stack in {to} (disorganize some first)"
        )
    army = defending_army(g, side, target)
    for q in chosen:
        a = command_army(g, q)
        if a is None or army is None or a == army or source.startswith("fortress:"):
            continue
        rec = _read(f, "inter").get(_inter_key(a, to))
        if not rec or not rec.get("ok"):
            return f"units of army {a} need a successful inter-army test for {to} (14-C)"
        corps = sum(1 for x in chosen if M.is_corps(x) and command_army(g, x) == a)
        if int(rec.get("corps", 0)) + corps > INTER_ARMY_CORPS:
            return (
                f"another army may send only {INTER_ARMY_CORPS} corps (with artillery) to {to}"
                " (14-C)"
            )
    return None


# ====================================================================== the step
@implements("LGG 14", "LGG 14-A", "LGG 14-B", "LGG 14-C", "LGG 23-C", "LGG 36.5-A")
class EnemyReinforcement(LggStep):
    """LGG 14-A / 14-B / 14-C / 23-C: the defender reinforces the attacked hexes before the battles.

    Actions: ``reinforce`` (``units``, ``to``), ``inter-army-test`` (``army``, ``to``),
    ``disorganize`` (``unit``), ``enter-fortress`` (``units``, ``hex``), ``end-reinforcement``."""

    name = hooks.ENEMY_REINFORCEMENT
    title = "Enemy reinforcement"
    rule = "LGG 14-A"

    def label(self, g: Game, f: Frame) -> str:
        return f"{f.params['side']}: reinforcements before the battles"

    def enter(self, g: Game, f: Frame) -> None:
        act = M.st(g).get("activation") or {}
        if act and not act.get("reaction") and act.get("side") == f.params.get("attacker"):
            rec = M.st(g).setdefault("attacked", {})
            for a in act.get("armies", []):
                rec[a] = M.turn_index(g)
            M.touch(g)

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [f.params["side"]]

    # ---------------------------------------------------------------- listing
    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        out: list[Action] = []
        attacked = {g.board.idx(h) for h in f.params["hexes"]}
        reinforced = set(_read(f, "reinforced"))
        for lab in f.params["hexes"]:
            t = g.board.idx(lab)
            src = reinforcement_sources(g, side, t, attacked, reinforced)
            for _source, units in sorted(src.items()):
                corps = [q.id for q in units if M.is_corps(q)]
                support = [q.id for q in units if not M.is_corps(q)]
                options = [[q.id] for q in units] + [corps[:n] for n in range(2, len(corps) + 1)]
                options += (
                    [corps[:n] + support for n in range(1, len(corps) + 1)] if support else []
                )
                seen: set[tuple[str, ...]] = set()
                for ids in options:
                    key = tuple(sorted(ids))
                    if key in seen or not ids:
                        continue
                    seen.add(key)
                    if why_not_reinforce(g, f, side, list(key), lab) is None:
                        out.append(
                            {"type": "reinforce", "side": side, "units": list(key), "to": lab}
                        )
            army = defending_army(g, side, t)
            tested = _read(f, "inter")
            armies = sorted(
                {
                    a
                    for units in src.values()
                    for q in units
                    if (a := command_army(g, q)) is not None and army is not None and a != army
                }
            )
            for a in armies:
                if _inter_key(a, lab) not in tested:
                    out.append({"type": "inter-army-test", "side": side, "army": a, "to": lab})
            for p in _field(g, side, t):
                if (
                    M.is_corps(p)
                    and DISORGANIZED not in p.status
                    and not M.garrison_in_fortress(g, p)
                    and reinforcement_open(g, p.nation, _front(g, t))
                ):
                    out.append({"type": "disorganize", "side": side, "unit": p.id})
            out.extend(fortress_entry_actions(g, side, t))
        out.append({"type": "end-reinforcement", "side": side})
        return out

    # ---------------------------------------------------------------- checking
    @handles.check("end-reinforcement")
    def check_end(self, g: Game, f: Frame, action: Action) -> None:
        return

    @handles.check("reinforce")
    def check_reinforce(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        ids, to = action.get("units"), action.get("to")
        if (
            not isinstance(ids, list)
            or not all(isinstance(u, str) for u in ids)
            or not isinstance(to, str)
        ):
            raise IllegalAction(self.rule, "reinforce names units and the attacked hex")
        why = why_not_reinforce(g, f, side, ids, to)
        if why:
            raise IllegalAction("LGG 21" if why.endswith("(LGG 21)") else "LGG 14-A", why)

    @handles.check("inter-army-test")
    def check_inter_army(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        to, army = action.get("to"), action.get("army")
        if to not in f.params["hexes"]:
            raise IllegalAction("LGG 14-C", f"{to!r} is not an attacked hex")
        if _inter_key(str(army), str(to)) in _read(f, "inter"):
            raise IllegalAction("LGG 14-C", f"army {army} has already been tested for {to}")
        t_i = g.board.idx(str(to))
        own = defending_army(g, side, t_i)
        if (
            army not in M.army_defs(g)
            or M.army_side(g, str(army)) != side
            or own is None
            or army == own
        ):
            raise IllegalAction(
                "LGG 14-C", "the test is for another of your armies reinforcing this hex"
            )
        if M.army_nation(g, str(army)) != defending_nation(g, side, t_i):
            raise IllegalAction("LGG 14-A", "no reinforcement between different nationalities")

    @handles.check("disorganize")
    def check_disorganize(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        p = g.state.pieces.get(str(action.get("unit")))
        hexes = {g.board.idx(h) for h in f.params["hexes"]}
        if (
            p is None
            or p.side != side
            or not M.is_corps(p)
            or M.hex_of(g, p) not in hexes
            or p.loc.kind != "hex"
        ):
            raise IllegalAction("LGG 14-A", "only a corps of an attacked hex may be disorganized")
        if DISORGANIZED in p.status:
            raise IllegalAction("LGG 14-A", f"{p.id} is already disorganized")
        h = M.hex_of(g, p)
        assert h is not None
        if not reinforcement_open(g, p.nation, _front(g, h)):
            raise IllegalAction("LGG 36.3", "enemy reinforcement no longer exists in Fire Doctrine")

    @handles.check("enter-fortress")
    def check_enter_fortress(self, g: Game, f: Frame, action: Action) -> None:
        check_fortress_entry(g, action["side"], action)

    # ---------------------------------------------------------------- applying
    @handles.apply("end-reinforcement")
    def apply_end(self, g: Game, f: Frame, action: Action) -> None:
        g.finish(f)

    @handles.apply("inter-army-test")
    def apply_inter_army(self, g: Game, f: Frame, action: Action) -> None:
        self._test(g, f, action["side"], str(action["army"]), str(action["to"]))

    @handles.apply("disorganize")
    def apply_disorganize(self, g: Game, f: Frame, action: Action) -> None:
        side = action["side"]
        p = g.state.pieces[action["unit"]]
        M.set_status(g, p, DISORGANIZED, True)
        M.set_attr(g, p, "disorganized_by", f.params.get("activation"))
        fog.emit_private(
            g,
            side,
            "disorganize",
            f"{p.id} is disorganized to make room (no loss)",
            None,
            rule="LGG 14-A",
        )

    @handles.apply("enter-fortress")
    def apply_enter_fortress(self, g: Game, f: Frame, action: Action) -> None:
        apply_fortress_entry(g, action)

    @handles.apply("reinforce")
    def apply_reinforce(self, g: Game, f: Frame, action: Action) -> None:
        self._reinforce(g, f, action["side"], list(action["units"]), str(action["to"]))

    def _test(self, g: Game, f: Frame, side: str, army: str, to: str) -> None:
        t_i = g.board.idx(to)
        own = defending_army(g, side, t_i)
        assert own is not None
        nation = M.army_nation(g, army)
        if ghq_makes_it_automatic(g, nation, t_i):
            ok = True
            fog.emit_private(
                g,
                side,
                "inter-army",
                f"army {army} may reinforce {to}: the GHQ is within 2 hexes",
                None,
                rule="LGG 14-C",
            )
        else:
            target = inter_army_target(g, own, army)
            r = g.roll(
                "d12",
                f"inter-army reinforcement: {army} for {to} (needs {target})",
                "LGG 14-C",
                modifiers=Modifiers(),
                visible_to=[side],
            )
            ok = r.modified >= target
            fog.emit_private(
                g,
                side,
                "inter-army",
                f"army {army} {'may' if ok else 'may not'} reinforce {to}",
                None,
                rule="LGG 14-C",
            )
        _rec(f, "inter")[_inter_key(army, to)] = {"ok": ok, "corps": 0}

    def _reinforce(self, g: Game, f: Frame, side: str, ids: list[str], to: str) -> None:
        t_i = g.board.idx(to)
        own = defending_army(g, side, t_i)
        attacked = {g.board.idx(h) for h in f.params["hexes"]}
        src = reinforcement_sources(g, side, t_i, attacked, set(_read(f, "reinforced")))
        source = next(s for s, lst in src.items() if any(q.id == ids[0] for q in lst))
        from_hex = _source_hex(g, source)
        mixed: set[str] = set()
        for uid in ids:
            p = g.state.pieces[uid]
            a = command_army(g, p)
            if (
                a is not None
                and own is not None
                and a != own
                and not source.startswith("fortress:")
            ):
                rec = _rec(f, "inter")[_inter_key(a, to)]
                if M.is_corps(p):
                    rec["corps"] = int(rec.get("corps", 0)) + 1
                M.set_attr(
                    g,
                    p,
                    "reinforce_return",
                    {
                        "hex": g.board.label(from_hex),
                        "activation": f.params.get("activation"),
                        "source": source,
                    },
                )
                mixed.add(a)
            if M.in_reserve(p):
                M.set_status(g, p, M.RESERVE, False)
            if source.startswith("fortress:"):
                M.set_attr(g, p, "left_fortress", f.params.get("activation"))
            M.move_piece(g, p, Loc.hex(t_i))
        _rec(f, "reinforced")[to] = True
        if mixed:
            mk = g.state.marker("reinforced", to) or {}
            armies = sorted(set(mk.get("armies", [])) | mixed | ({own} if own else set()))
            g.state.set_marker(
                "reinforced",
                to,
                {
                    "turn": M.turn_index(g),
                    "activation": f.params.get("activation"),
                    "armies": armies,
                },
            )
        M.touch(g)
        fog.emit_private(
            g,
            side,
            "reinforce",
            f"{', '.join(ids)} reinforce {to} from {source}",
            None,
            rule="LGG 14-A",
        )


# =================================================================== units into the fortress (23-C)
def _fortress_room(g: Game, f: Piece) -> int:
    inside = [q for q in g.state.contents(f.id) if M.is_corps(q)]
    return FORTRESS_CORPS - len(inside)


@implements("LGG 23-C")
def fortress_entry_actions(g: Game, side: str, i: int) -> list[Action]:
    """LGG 23-C: before a battle in a hex holding its fortress, the defender may put 1 or 2 corps
    into it (2 corps with the garrison), and artillery, HQs or GHQs without their reserves."""
    f = _fortress(g, side, i)
    if f is None:
        return []
    out: list[Action] = []
    room = _fortress_room(g, f)
    for p in _field(g, side, i):
        if M.is_corps(p) and room <= 0:
            continue
        if _left_fortress_now(g, p):
            continue
        if p.type in ("hq", "ghq") and any(M.in_reserve(q) for q in g.state.contents(p.id)):
            continue
        if p.type in ("corps", "artillery", "hq", "ghq"):
            out.append(
                {"type": "enter-fortress", "side": side, "units": [p.id], "hex": g.board.label(i)}
            )
    return out


@implements("LGG 23-C")
def check_fortress_entry(g: Game, side: str, action: Action) -> None:
    """LGG 23-C: refuse units that may not go into the fortress."""
    lab = action.get("hex")
    ids = action.get("units")
    if (
        not isinstance(lab, str)
        or not g.board.has_label(lab)
        or not isinstance(ids, list)
        or not ids
    ):
        raise IllegalAction("LGG 23-C", "name the units and the fortress hex")
    i = g.board.idx(lab)
    f = _fortress(g, side, i)
    if f is None:
        raise IllegalAction("LGG 23-C", f"you have no fortress at {lab}")
    room = _fortress_room(g, f)
    field = {p.id: p for p in _field(g, side, i)}
    corps = 0
    for uid in ids:
        p = field.get(str(uid))
        if p is None or p.type not in ("corps", "artillery", "hq", "ghq"):
            raise IllegalAction(
                "LGG 23-C", f"{uid!r} is not a corps, artillery unit, HQ or GHQ standing at {lab}"
            )
        if p.type in ("hq", "ghq") and any(M.in_reserve(q) for q in g.state.contents(p.id)):
            raise IllegalAction("LGG 23-C", f"{p.id} enters a fortress only without its reserve")
        if _left_fortress_now(g, p):
            raise IllegalAction(
                "LGG 23-C", f"{p.id} has just come out of the fortress to reinforce the hex"
            )
        corps += 1 if M.is_corps(p) else 0
    if corps > room:
        raise IllegalAction(
            "LGG 23-C",
            f"the fortress holds 2 corps with its garrison: room for {max(room, 0)} more",
        )


def _left_fortress_now(g: Game, p: Piece) -> bool:
    """LGG 14-A / 23-C: a corps that came out of the fortress as a reinforcement in this
    activation does not go back in before the battle (no endless in-and-out)."""
    act = M.st(g).get("activation")
    return (
        act is not None
        and p.attrs.get("left_fortress") is not None
        and p.attrs.get("left_fortress") == act.get("serial")
    )


def apply_fortress_entry(g: Game, action: Action) -> None:
    i = g.board.idx(action["hex"])
    f = _fortress(g, action["side"], i)
    assert f is not None
    for uid in action["units"]:
        M.move_piece(g, g.state.pieces[uid], Loc.inside(f.id))
    fog.emit_private(
        g,
        action["side"],
        "fortress",
        f"{', '.join(action['units'])} go into the fortress {f.id}",
        None,
        rule="LGG 23-C",
    )


# ====================================================================== after the battles
@implements("LGG 14-C", "LGG 14-A")
def return_inter_army_units(g: Game, serial: int) -> None:
    """LGG 14-C / 14-A: after the battles of activation ``serial``: units of another army go back to
    their original stack (to its hex when it still holds units of their army or nothing of the
    enemy); the corps disorganized to make room are fit again (and a breach of stacking is cured
    like an end of movement, 10-D)."""
    for p in sorted(g.state.pieces.values(), key=lambda p: p.id):
        back = p.attrs.get("reinforce_return")
        if back and back.get("activation") == serial:
            M.set_attr(g, p, "reinforce_return", None)
            h = M.hex_of(g, p)
            if h is None or p.loc.kind != "hex":
                continue
            home = g.board.idx(back["hex"])
            if home in M.enemy_present_hexes(g, p.side) or home == h:
                continue
            M.move_piece(g, p, Loc.hex(home))
            fog.emit_private(
                g,
                p.side,
                "reinforce-return",
                f"{p.id} returns to its stack at {back['hex']}",
                None,
                rule="LGG 14-C",
            )
        if DISORGANIZED in p.status and p.attrs.get("disorganized_by") == serial:
            M.set_status(g, p, DISORGANIZED, False)
            M.set_attr(g, p, "disorganized_by", None)
    for lab in [
        k for k, v in g.state.markers.get("reinforced", {}).items() if v.get("activation") == serial
    ]:
        g.state.set_marker("reinforced", lab, None)
    M.touch(g)


STEPS: tuple[type[Step], ...] = (EnemyReinforcement,)
