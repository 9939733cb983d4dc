"""OT 9D (losses) and 9E (cadres and remnants): which units a side eliminates to satisfy a combat
result, as constraint-checked choices of the owning player.

Losses are counted in printed strengths (attack for the attacker, defense for the defender, OT 9D);
a unit reduced to its cadre or remnant counts its full printed strength (OT 9E) and the cadre stays
in play (it may itself be eliminated later to satisfy the same loss). The owner picks the units one
at a time (``{"type": "eliminate", "piece": id}``) until the requirement is met; the step lists the
units he may pick now:

* Army and Corps HQs are never picked (OT 9D);
* after AL, AX, BX, BXM, DX, DXM and DL every non-artillery unit goes before any artillery (OT 9D;
  the cadres left by non-artillery units need not; option ``field-art-as-nonart-losses`` lets field
  artillery count as non-artillery);
* overstacked units only once every normally stacked unit of their hex is gone (OT 8C2);
* after a successful special effect (other than GEC) the first RE comes from units capable of it
  (OT 10): a capable unit under the RE still missing may be picked only if smaller capable units
  can make it up together (the rulebook's battalion-and-brigade example); when several
  capabilities succeeded each needs its own first RE, and a unit capable of both counts for both;
* Rule 14-15 loss rules (``special_rules.loss_rules``: at least half from infantry, rifle assault or
  adverse-terrain units "if possible", irregulars last) narrow the choice where they can be met.

:func:`grognard.core.losses.meets` and :func:`~grognard.core.losses.minimal_sets` check and suggest
the choices. A player may not go on eliminating once the requirement is met (interpretation default;
the rulebook's "at least" leaves a larger loss unstated). When no constraint can be met the
constraints are relaxed in the order listed above, so a requirement is always met when the units
exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core import losses as core_losses
from grognard.core.arith import fmt
from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Piece
from grognard.rulesets.greatwar.combat.combat_strength import is_hq, printed_value
from grognard.rulesets.greatwar.logistics import replacements
from grognard.rulesets.greatwar.movement import stacking
from grognard.rulesets.greatwar.step import GWStep
from grognard.rulesets.greatwar.units import units

if TYPE_CHECKING:
    from grognard.core.game import Game

CADRE_FACES = ("cadre", "remnant")


def cadre_face(p: Piece) -> str | None:
    """The cadre or remnant face a unit can be reduced to (None if it has none or shows it)."""
    for face in CADRE_FACES:
        if face in p.faces and p.face != face:
            return face
    return None


@implements("OT 9E")
def eliminate_in_combat(
    g: Game, p: Piece, rule: str, reason: str, role: str | None = None, totally: bool = False
) -> Fraction:
    """OT 9E: eliminate a unit in combat -- a unit with a cadre or remnant side is reduced to it,
    any other (or a cadre) is removed. ``totally`` removes it even if it has a cadre (OT 9F2 no
    retreat route). Returns the strength loss counted for it (its full printed ``role`` strength,
    OT 9E), 0 when ``role`` is None."""
    value = printed_value(g, p, role) if role else Fraction(0)
    face = None if totally else cadre_face(p)
    if face is not None:
        old = p.face
        p.face = face
        replacements.on_reduced(
            g, p, old, rule
        )  # OT 16B4a: the loss counts for special replacements
        p.status.discard(stacking.OVERSTACKED)
        g.invalidate()
        g.emit(
            "reduced",
            f"{p.id} is reduced to its {face}" + (f" ({reason})" if reason else ""),
            rule=rule,
            piece=p.id,
            face=face,
        )
    else:
        units.eliminate(g, p, rule, reason)
    return value


def _nonart(g: Game, p: Piece) -> bool:
    if not units.is_artillery(p):
        return True
    return bool(g.opt("field-art-as-nonart-losses")) and units.utype(p).artillery == "field"


def combat_frame(g: Game) -> Frame | None:
    """The frame of the combat being resolved (the nearest ``combat`` frame)."""
    for f in reversed(g.state.frames):
        if f.step == "combat":
            return f
    return None


def loss_params(
    side: str,
    role: str,
    need: Fraction,
    pool: Sequence[str],
    nonart: bool,
    reason: str,
    rule: str,
    first_re: dict[str, list[str]] | None = None,
    rules: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """Frame params of a ``combat-losses`` step."""
    return {
        "side": side,
        "role": role,
        "need": Fraction(need),
        "pool": list(pool),
        "nonart": nonart,
        "reason": reason,
        "rule": rule,
        "first_re": {k: list(v) for k, v in (first_re or {}).items()},
        "first_done": {},
        "lost": Fraction(0),
        "taken": [],
        "share_rules": list(rules),
    }


@implements("OT 9D", "OT 9E", "OT 10")
class CombatLosses(GWStep):
    """OT 9D/9E: the owner eliminates units until the strength loss required of his side is met (see
    the module docstring). Frame params: ``side``, ``role`` (attacker/defender), ``need``, ``pool``,
    ``nonart``, ``first_re``, ``share_rules``, ``reason``, ``rule``; on finishing, the loss taken is
    added to the combat record's ``lost``."""

    name = "combat-losses"
    title = "Combat losses"
    rule = "OT 9D"

    def label(self, g: Game, f: Frame) -> str:
        p = f.params
        return (
            f"{p['side']} eliminates at least {fmt(Fraction(p['need']))} more strength points"
            f" ({p['reason']})"
        )

    def enter(self, g: Game, f: Frame) -> None:
        self._auto(g, f)

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [] if f.done else [f.params["side"]]

    def run(self, g: Game, f: Frame) -> None:
        self._auto(g, f)
        if not f.done:
            g.finish(f)

    # ------------------------------------------------------------------ choices
    def _value_role(self, f: Frame) -> str:
        return "attack" if f.params["role"] == "attacker" else "defense"

    def _pool(self, g: Game, f: Frame) -> list[Piece]:
        out = []
        for pid in f.params["pool"]:
            p = g.state.pieces.get(pid)
            if p is None or units.hex_of(g, p) is None or not units.is_unit(p) or is_hq(p):
                continue
            if printed_value(g, p, self._value_role(f)) <= 0:
                continue
            out.append(p)
        return out

    def allowed(self, g: Game, f: Frame) -> list[Piece]:
        """The units the owner may eliminate next (constraints relaxed only when none can be
        met)."""
        pool = self._pool(g, f)
        if not pool or Fraction(f.params["need"]) <= 0:
            return []
        layers = [
            self._first_re_filter,
            self._share_filter,
            self._order_filter,
            self._overstack_filter,
        ]
        for drop in range(len(layers) + 1):
            cands = list(pool)
            for k, flt in enumerate(layers):
                if k < drop:
                    continue
                narrowed = flt(g, f, cands, pool)
                cands = narrowed
            if cands:
                return cands
        return pool

    def _order_filter(
        self, g: Game, f: Frame, cands: list[Piece], pool: list[Piece]
    ) -> list[Piece]:
        """OT 9D: all non-artillery before any artillery (cadres of non-artillery units exempt)."""
        if not f.params.get("nonart"):
            return cands
        flipped = set(f.params.get("flipped", []))
        nonart_left = [p for p in pool if _nonart(g, p) and p.id not in flipped]
        if nonart_left:
            return [p for p in cands if _nonart(g, p)]
        return cands

    def _overstack_filter(
        self, g: Game, f: Frame, cands: list[Piece], pool: list[Piece]
    ) -> list[Piece]:
        """OT 8C2: overstacked units only after every normally stacked unit of their hex."""
        out = []
        for p in cands:
            if stacking.OVERSTACKED in p.status:
                h = units.hex_of(g, p)
                if any(
                    q.id != p.id
                    and units.hex_of(g, q) == h
                    and stacking.OVERSTACKED not in q.status
                    for q in pool
                ):
                    continue
            out.append(p)
        return out

    def _first_re_filter(
        self, g: Game, f: Frame, cands: list[Piece], pool: list[Piece]
    ) -> list[Piece]:
        """OT 10: the first RE eliminated comes from units capable of a capability used
        successfully."""
        pending = self._pending_caps(g, f, pool)
        if not pending:
            return cands
        out = []
        for p in cands:
            for cap, missing in pending.items():
                capable = [q for q in pool if q.id in f.params["first_re"][cap]]
                if p not in capable:
                    continue
                re = units.re_size(g, p)
                smaller = sum(
                    (units.re_size(g, q) for q in capable if units.re_size(g, q) < missing),
                    Fraction(0),
                )
                if (
                    re >= missing
                    or smaller >= missing
                    or not any(units.re_size(g, q) >= missing for q in capable)
                ):
                    out.append(p)
                    break
        return out

    def _pending_caps(self, g: Game, f: Frame, pool: list[Piece]) -> dict[str, Fraction]:
        out = {}
        for cap, ids in f.params.get("first_re", {}).items():
            done = Fraction(f.params["first_done"].get(cap, 0))
            if done >= 1:
                continue
            if not any(p.id in ids for p in pool):
                continue
            out[cap] = 1 - done
        return out

    def _share_filter(
        self, g: Game, f: Frame, cands: list[Piece], pool: list[Piece]
    ) -> list[Piece]:
        """Rule 14-15 loss rules: at least a share of the loss from the listed units, if possible;
        units listed as ``last`` only when no other unit remains."""
        out = cands
        for r in f.params.get("share_rules", []):
            ids = set(r.get("pieces", []))
            if r.get("last"):
                others = [p for p in out if p.id not in ids]
                if others:
                    out = others
                continue
            share = Fraction(r.get("share", Fraction(1, 2)))
            total = Fraction(f.params["lost"]) + Fraction(f.params["need"])
            from_listed = Fraction(r.get("lost", 0))
            if from_listed < share * total:
                listed = [p for p in out if p.id in ids]
                if listed:
                    out = listed
        return out

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        return [{"type": "eliminate", "side": side, "piece": p.id} for p in self.allowed(g, f)]

    def suggestion(self, g: Game, f: Frame) -> list[tuple[str, ...]]:
        """Minimal sets of the units allowed now that meet the requirement (for front ends)."""
        vals = {p.id: printed_value(g, p, self._value_role(f)) for p in self.allowed(g, f)}
        return core_losses.minimal_sets(vals, Fraction(f.params["need"]), limit=20)

    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        raise IllegalAction(
            "OT 9D", f"{f.params['side']} must first eliminate units for the combat result"
        )

    @handles.check("eliminate")
    def check_eliminate(self, g: Game, f: Frame, action: Action) -> None:
        """OT 9D: a unit the loss may be taken from now."""
        pid = action.get("piece")
        allowed = [p.id for p in self.allowed(g, f)]
        if pid not in allowed:
            raise IllegalAction(
                "OT 9D",
                f"{pid!r} may not be eliminated now (allowed: {', '.join(allowed) or 'none'})",
            )

    @handles.apply("eliminate")
    def apply_eliminate(self, g: Game, f: Frame, action: Action) -> None:
        self._take(g, f, g.state.pieces[action["piece"]])
        self._auto(g, f)

    # ------------------------------------------------------------------ bookkeeping
    def _take(self, g: Game, f: Frame, p: Piece) -> None:
        role = self._value_role(f)
        re = units.re_size(g, p)
        nonart = _nonart(g, p)
        had_cadre = cadre_face(p) is not None
        v = eliminate_in_combat(g, p, f.params["rule"], f.params["reason"], role)
        f.params["need"] = Fraction(f.params["need"]) - v
        f.params["lost"] = Fraction(f.params["lost"]) + v
        f.params["taken"].append(p.id)
        if had_cadre and nonart:
            f.params.setdefault("flipped", []).append(p.id)
        for cap, ids in f.params.get("first_re", {}).items():
            if p.id in ids:
                f.params["first_done"][cap] = Fraction(f.params["first_done"].get(cap, 0)) + re
        for r in f.params.get("share_rules", []):
            if p.id in r.get("pieces", []):
                r["lost"] = Fraction(r.get("lost", 0)) + v
        g.emit(
            "loss",
            f"{p.id} counts {fmt(v)} towards the loss"
            f" ({fmt(max(Fraction(0), Fraction(f.params['need'])))} still due)",
            rule=f.params["rule"],
            piece=p.id,
            value=v,
        )

    def _auto(self, g: Game, f: Frame) -> None:
        """Finish when the loss is met or nothing can be eliminated; take the only choice at
        once."""
        for _ in range(200):
            if f.done:
                return
            allowed = self.allowed(g, f)
            if Fraction(f.params["need"]) <= 0 or not allowed:
                self._finish(g, f)
                return
            if len(allowed) > 1:
                return
            self._take(g, f, allowed[0])

    def _finish(self, g: Game, f: Frame) -> None:
        cf = combat_frame(g)
        if cf is not None:
            lost = cf.params.setdefault("lost", {})
            lost[f.params["role"]] = Fraction(lost.get(f.params["role"], 0)) + Fraction(
                f.params["lost"]
            )
            cf.params.setdefault("eliminated", []).extend(f.params["taken"])
        g.finish(f)
