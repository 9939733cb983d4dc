"""What follows an army activation's battles (LGG 14-C, 14-A, 23-C, 23-D, 12-B, 47.1-A).

The activation pushes the ``activation-aftermath`` hook after its battles
(:class:`ActivationAftermath`), with ``side``, ``armies``, ``activation`` and ``kind``. In order:

1. the isolation of the units that fought is judged (22-A); the units of another army that
   reinforced a defence go back to their stack and the corps
   disorganized to make room are fit again (14-C, 14-A); a stacking breach this leaves is cured
   as at the end of a movement (10-D);
2. sieges (23-C, 23-D): where a side now stands with an enemy fortress and no enemy unit
   outside it, the open-country battle is won and the siege begins - unless it has no corps but
   cavalry (or none at all: an HQ, a decoy), and then everything it has there withdraws one hex;
   sieges whose besiegers are gone end. The active side is judged first, then the other (whose
   counter-offensive, 18-A, may have carried it into a hex of the active side's fortress);
3. the besieger's siege fire and assaults (``siege-actions``, 23-D, 23-F, 23-G);
4. the reform of rule 12 (12-B) when the activation was one;
5. after the activation of a German or Austro-Hungarian army on the East front, the hook of the
   Russian great retreat (47.1-A) when a rule installs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.core.sequence import Step
from grognard.core.state import Frame
from grognard.rulesets.lgg1418 import hooks
from grognard.rulesets.lgg1418 import model as M
from grognard.rulesets.lgg1418.battle import fortress
from grognard.rulesets.lgg1418.battle.base import BattleRecord
from grognard.rulesets.lgg1418.military import activation, enemy_reinforcement, retreat
from grognard.rulesets.lgg1418.supply import isolation

if TYPE_CHECKING:
    from grognard.core.game import Game

AFTERMATH = hooks.AFTERMATH


@implements("LGG 14-C", "LGG 23-C", "LGG 23-D", "LGG 12-B", "LGG 47", "LGG 22-A")
class ActivationAftermath(Step):
    """LGG 14-C / 23-C / 23-D / 12-B / 47.1-A: the work after an activation's battles."""

    name = AFTERMATH
    title = "After the battles"
    rule = "LGG 23-D"
    composite = True

    def next_child(self, g: Game, f: Frame) -> tuple[str, dict[str, Any]] | None:

        p = f.params
        side = p["side"]
        enemy = M.other_side(side)
        while True:
            stage = p.get("stage", "returns")
            if stage == "returns":
                p["stage"] = "sieges"

                fought = {
                    u
                    for raw in M.st(g).get("battles", {}).values()
                    if (rec := BattleRecord(raw)).activation == p["activation"]
                    for u in rec.units
                }
                isolation.judge(
                    g, [g.state.pieces[u] for u in sorted(fought) if u in g.state.pieces]
                )  # 22-A
                enemy_reinforcement.return_inter_army_units(g, int(p["activation"]))
                if activation.placement_problems(g, enemy):
                    return "end-of-movement", {"side": enemy}
                continue
            if stage == "sieges":
                p["stage"] = "siege-actions"
                fortress.refresh_sieges(g)
                new: list[str] = []
                cavalry: list[list[str]] = []
                # the active side first; then the other side, whose counter-offensive (18-A) may
                # have won the open-country battle in a hex of one of the active side's fortresses
                for who in (side, enemy):
                    for i in fortress.siege_candidates(g, who):
                        f_ = fortress.fortress_at(g, i)
                        assert f_ is not None
                        if fortress.cavalry_alone(g, who, i):
                            cavalry.append([who, g.board.label(i)])
                            continue
                        fortress.establish_siege(g, f_, who)
                        if who == side:
                            new.append(g.board.label(i))
                p["new_sieges"] = new
                if cavalry:
                    p["cavalry"] = cavalry
                    p["stage"] = "cavalry"
                continue
            if stage == "cavalry":
                who, lab = p["cavalry"].pop(0)
                if not p["cavalry"]:
                    p["stage"] = "siege-actions"
                i = g.board.idx(lab)
                units = [
                    q.id
                    for q in M.pieces_at_hex(g, i, who)
                    if q.loc.kind == "hex" and q.type != "fortress"
                ]
                return "forced-withdrawal", {
                    "side": who,
                    "hex": lab,
                    "pieces": units,
                    "mover": who,
                    "activation": p["activation"],
                    "rule": "LGG 23-D",
                }
            if stage == "siege-actions":
                p["stage"] = "reform"
                return "siege-actions", {"side": side, "new_sieges": list(p.get("new_sieges", []))}
            if stage == "reform":
                p["stage"] = "great-retreat"
                act = M.st(g).get("activation") or {}
                if act.get("kind") == retreat.REFORM_KIND:
                    for a in act.get("armies", []):
                        retreat.apply_reform(g, a, act.get("reform_unit"))
                continue
            if stage == "great-retreat":
                p["stage"] = "done"
                act = M.st(g).get("activation") or {}
                nations = {M.army_nation(g, a) for a in p.get("armies", [])}
                if (
                    act.get("front") == M.EAST
                    and side == M.CP
                    and nations & {"DE", "AH"}
                    and "RU" in M.powers_of(g, M.ENTENTE)
                    and M.turn_at_or_after(g, "1914-09")
                ):
                    h = hooks.child(
                        g,
                        retreat.GREAT_RETREAT,
                        {
                            "side": M.ENTENTE,
                            "front": M.EAST,
                            "moment": "after-activation",
                            "activation": p["activation"],
                        },
                    )
                    if h:
                        return h
                continue
            return None


STEPS: tuple[type[Step], ...] = (ActivationAftermath,)
