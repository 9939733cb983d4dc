"""Naval Evacuation (NM 28.2).

In a friendly movement phase (the Movement Phase; the Motorized Movement Phase as well by the
``evacuation_in_motorized`` option, the digest's default) a player declares the evacuation of
a friendly port: a Naval Evacuation marker goes on it at once. It is complete when the player
says so or when an enemy combat unit enters the hex; the marker comes off in that turn's
interphase. While it is on: loading capacity doubles (after reductions and the Naval Base), no
unloading, no General Supply (see :mod:`.capacity`), arriving naval units stay Ready, and
ground units may move to the port overland and load in the same phase (:mod:`.transport`).
Units that load get a Do Not Move 2 GTs marker counted from the turn they land; an HQ turns
Non-Op (:func:`.transport.load`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grognard.core.rules import implements
from grognard.rulesets.eastfront.map.control import port_record
from grognard.rulesets.eastfront.map.ports import Port, owner
from grognard.rulesets.eastfront.model import GroundAttrs, ef, turn_no

if TYPE_CHECKING:
    from grognard.core.game import Game

RULE = "NM 28.2"


@implements("NM 28.2")
def declare_problem(g: Game, side: str, port: Port | None, phase: str) -> str | None:
    """NM 28.2: why ``side`` may not declare the evacuation of ``port`` now (None: it may)."""
    if port is None:
        return "no such port"
    if phase == "motorized" and not g.opt("evacuation_in_motorized"):
        return "evacuation is declared in the Movement Phase"
    if phase not in ("movement", "motorized"):
        return "evacuation is declared in a friendly movement phase"
    if port.hex is None:
        return "an off-map port is not evacuated"
    if owner(g, port) != side:
        return f"{port.name} is not a friendly port"
    rec = ef(g).ports.get(port.name)
    if rec is not None and rec.evacuation:
        return f"{port.name} already has a Naval Evacuation marker"
    return None


@implements("NM 28.2")
def declare(g: Game, port: Port) -> None:
    """NM 28.2: the evacuation of ``port`` takes effect at once: its Naval Evacuation marker."""
    port_record(g, port.name).evacuation = "declared"
    g.emit("evacuation", f"the evacuation of {port.name} begins", rule=RULE)


@implements("NM 28.2")
def complete(g: Game, port: Port, why: str) -> None:
    """NM 28.2: the evacuation is complete (the marker is removed in the interphase)."""
    rec = port_record(g, port.name)
    if rec.evacuation == "declared":
        rec.evacuation = "complete"
        g.emit("evacuation", f"the evacuation of {port.name} is complete ({why})", rule=RULE)


@implements("NM 28.2")
def interphase(g: Game) -> None:
    """NM 28.2: remove the markers of evacuations completed this turn; NM 28.2 (the example):
    a Do Not Move 1 marker set in an earlier turn comes off at the end of this one."""
    for name, rec in ef(g).ports.items():
        if rec.evacuation == "complete":
            rec.evacuation = ""
            g.emit("evacuation", f"the Naval Evacuation marker of {name} is removed", rule=RULE)
    for p in sorted(g.state.pieces.values(), key=lambda q: q.id):
        a = GroundAttrs(p.attrs)
        if a.dnm == 1 and a.dnm_turn and a.dnm_turn < turn_no(g):
            a.dnm = 0
            a.dnm_turn = 0
            g.emit("dnm", f"{p.name or p.id}'s Do Not Move marker is removed", rule=RULE)


@implements("NM 28.2")
def engineering(g: Game, side: str) -> None:
    """NM 28.2 (the example): in its side's Engineering Phase a landed unit's Do Not Move 2
    marker becomes Do Not Move 1."""
    for p in sorted(g.state.of_side(side), key=lambda q: q.id):
        a = GroundAttrs(p.attrs)
        if a.dnm == 2 and a.dnm_turn and p.loc.kind != "piece":
            a.dnm = 1
            a.dnm_turn = turn_no(g)
            g.emit("dnm", f"{p.name or p.id}'s Do Not Move marker turns to 1 GT", rule=RULE)
