"""The Naval Movement Loss Table (NM 27.0-27.2, NM 27.32): its column, its DRMs, the roll and
its results, as a procedure in stages.

Column (NM 27.2): **Air Interdiction** when an enemy Interdiction Level marker is in the Naval
Movement Interdiction Box covering the move (+1 at Level 2); **CD Artillery** when enemy coast
artillery reaches the move (+1 per CD point after the first; the ``cd_drm`` option reads
NM 30.3d instead: the points themselves); **Both** when both apply; **Regular** otherwise.
Other DRMs: Storm (NM 26.12; the ``storm_drm`` option), +3 for a forced sortie from Sailed
status (NM 26.12b). One d10 (the example's roll of 10), rows clamped.

Results (NM 27.32, read for this table as the digest proposes): ``Dn`` gives n Damage Points
at once; ``A`` (Abort) lets the owner return to the departure port (no more NMP, no second
roll) or take one more Damage Point and stay; a unit that began at sea, or is forced out of
port, takes the Damage Point (NM 27.32c, NM 26.12b). When Storm was the only DRM the result
gives at most one Damage Point (NM 27.32a). An Axis group rolls once and each of its units
takes the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grognard.core.modifiers import Modifiers
from grognard.core.procedure import Procedure, stage
from grognard.core.record import LIST, Record
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.eastfront.air.zones import nmi_level
from grognard.rulesets.eastfront.data import table
from grognard.rulesets.eastfront.model import ef, params
from grognard.rulesets.eastfront.naval.damage import add_damage
from grognard.rulesets.eastfront.naval.units import afloat
from grognard.rulesets.eastfront.weather import storm

if TYPE_CHECKING:
    from grognard.core.game import Game

SORTIE_DRM = 3  # NM 26.12b
COLUMNS = {
    (False, False): "regular",
    (True, False): "air",
    (False, True): "cd",
    (True, True): "both",
}


class LossRecord(Record):
    """The parameters of a loss roll's frame (NM 27.1)."""

    ships: list[str] = LIST  # the naval unit, an Axis group, or a flotilla
    side: str = ""
    cd: int = 0  # enemy CD points reaching the move
    air: bool = False  # the move is in zones the Interdiction Box covers
    forced: bool = False  # a forced sortie (NM 26.12b): Abort counts as D1
    from_sailed: bool = False  # the forced sortie began in Sailed status (+3)
    at_sea: bool = False  # the move began at sea (NM 27.32c)
    back: list[str | int] = LIST  # where an Abort returns it ([kind, ref])
    sailing: int = -1  # index of its Sailing record in the phase (-1: none)
    result: str = ""
    storm_only: bool = False
    dp: int = 0  # Damage Points the result gave each unit so far


@implements("NM 27.2", "NM 31.1")
def loss_column(g: Game, side: str, cd: int, air: bool) -> tuple[str, Modifiers]:
    """NM 27.2: the column and its DRMs for a move of ``side`` reached by ``cd`` enemy CD points
    and (``air``) in zones the Interdiction Box covers.

    Rules: NM 27.2, NM 31.1.
    """
    mods = Modifiers()
    level = nmi_level(g, side) if air else 0
    if level >= 2:
        mods.add(1, "NM 27.2", "Level 2 Interdiction marker")
    if cd > 0:
        drm = cd - 1 if g.opt("cd_drm") == "beyond-first" else cd
        mods.add(drm, "NM 27.2", f"{cd} coast artillery point{'s' if cd > 1 else ''}")
    return COLUMNS[(level > 0, cd > 0)], mods


def loss_modifiers(
    g: Game, side: str, cd: int, air: bool, from_sailed: bool
) -> tuple[str, Modifiers]:
    """The column and every DRM of a roll (NM 27.2 plus Storm and a sortie from Sailed)."""
    column, mods = loss_column(g, side, cd, air)
    if storm(g):
        mods.add(int(g.opt("storm_drm")), "NM 26.12", "Storm")
    if from_sailed:
        mods.add(SORTIE_DRM, "NM 26.12", "forced sortie from Sailed status")
    return column, mods


def parse(result: str) -> tuple[bool, int]:
    """``'AD1'`` -> (Abort, 1 Damage Point)."""
    abort = result.startswith("A")
    dp = int(result.split("D", 1)[1]) if "D" in result else 0
    return abort, dp


@implements("NM 27.0", "NM 27.1", "NM 27.32")
class NavalLoss(Procedure):
    """NM 27.1: the loss roll of one naval unit (or Axis group, or flotilla) that stopped after
    spending Naval Movement Points; stages: roll, damage, abort.

    Rules: NM 27.0, NM 27.1, NM 27.32.
    """

    name = "naval-loss"
    title = "Naval Movement Loss"
    rule = "NM 27.1"

    def label(self, g: Game, f: Frame) -> str:
        return "Naval Movement Loss Table"

    @stage
    def roll(self, g: Game, f: Frame) -> None:
        """NM 27.2: the column, the DRMs, one d10."""
        r = LossRecord(params(f))
        column, mods = loss_modifiers(g, r.side, r.cd, r.air, r.from_sailed)
        r.storm_only = len(mods) > 0 and all(m.reason == "Storm" for m in mods)
        t = table(g, "nmlt")
        names = ", ".join(unit_names(g, r.ships))
        die = g.roll(str(t.die), f"naval movement loss of {names} ({column})", "NM 27.2", mods)
        r.result = str(t.lookup(column, die.modified).result)
        g.emit("nmlt", f"Naval Movement Loss Table, {column} column: {r.result}", rule="NM 27.2")

    @stage
    def damage(self, g: Game, f: Frame) -> None:
        """NM 27.32d: the Damage Points of the result, at once."""
        r = LossRecord(params(f))
        _, dp = parse(r.result)
        if r.storm_only:
            dp = min(dp, 1)
        r.dp = dp
        for p in pieces(g, r.ships):
            add_damage(g, p, dp, "NM 27.32")

    @stage
    def abort(self, g: Game, f: Frame) -> None:
        """NM 27.32b/c: an Abort: the owner's choice, or one Damage Point for a unit that began at
        sea or was forced out of port."""
        r = LossRecord(params(f))
        abort, _ = parse(r.result)
        alive = [p for p in pieces(g, r.ships) if afloat(g, p)]
        if not abort or not alive:
            return
        if r.forced or r.at_sea or not r.back:
            rule = "NM 26.12" if r.forced else "NM 27.32"
            extra_damage(g, r, alive, rule)
            return
        g.push("abort-choice", {"loss": dict(params(f)), "side": r.side})


def pieces(g: Game, ids: Sequence[str]) -> list[Piece]:
    return [g.state.pieces[i] for i in ids if i in g.state.pieces]


def unit_names(g: Game, ids: Sequence[str]) -> list[str]:
    return [p.name or p.id for p in pieces(g, ids)]


@implements("NM 27.32")
def extra_damage(g: Game, r: LossRecord, alive: list[Piece], rule: str) -> None:
    """NM 27.32b: the Abort ignored: one more Damage Point, unless Storm alone already gave the
    one point a storm-only result may give (NM 27.32a)."""
    if r.storm_only and r.dp >= 1:
        g.emit("nmlt", "the Abort is ignored (storm: at most one Damage Point)", rule="NM 27.32")
        return
    g.emit("nmlt", "the Abort is ignored: one more Damage Point", rule=rule)
    for p in alive:
        add_damage(g, p, 1, rule)


@implements("NM 27.32")
class AbortChoice(Step):
    """NM 27.32b: after an Abort the owner returns to the departure port or takes one more
    Damage Point and stays."""

    name = "abort-choice"
    title = "Abort"
    rule = "NM 27.32"

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [params(f)["side"]]

    @handles.options("return-to-port")
    def return_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "return-to-port", "side": side}]

    @handles.options("take-damage")
    def damage_options(self, g: Game, f: Frame, side: str, actor: str | None) -> list[Action]:
        return [{"type": "take-damage", "side": side}]

    @handles.apply("return-to-port")
    def go_back(self, g: Game, f: Frame, action: Action) -> None:
        """The unit turns back short of its destination: no NMP, no second roll."""
        r = LossRecord(params(f)["loss"])
        back = Loc(str(r.back[0]), r.back[1])
        for p in pieces(g, r.ships):
            if afloat(g, p):
                g.state.move(p.id, back)
        mark_returned(g, r)
        g.emit(
            "abort",
            f"{', '.join(unit_names(g, r.ships))} turn back to port",
            rule="NM 27.32",
        )
        g.finish(f)

    @handles.apply("take-damage")
    def stay(self, g: Game, f: Frame, action: Action) -> None:
        r = LossRecord(params(f)["loss"])
        extra_damage(g, r, [p for p in pieces(g, r.ships) if afloat(g, p)], "NM 27.32")
        g.finish(f)


def mark_returned(g: Game, r: LossRecord) -> None:
    """Note on the phase's record of the move that it ended back at its departure port."""
    if r.sailing < 0:
        return
    sailings = ef(g).move.sailings
    if r.sailing < len(sailings):
        s = sailings[r.sailing]
        s.dest = s.departure


def loss_params(
    ships: list[str],
    side: str,
    cd: int,
    air: bool,
    *,
    forced: bool = False,
    from_sailed: bool = False,
    at_sea: bool = False,
    back: list[Any] | None = None,
    sailing: int = -1,
) -> dict[str, Any]:
    """The frame parameters of a :class:`NavalLoss`."""
    return LossRecord.new(
        ships=list(ships),
        side=side,
        cd=cd,
        air=air,
        forced=forced,
        from_sailed=from_sailed,
        at_sea=at_sea,
        back=list(back or []),
        sailing=sailing,
    )
