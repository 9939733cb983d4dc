"""OT 3B: nations and sides; OT 3F: theaters and commands.

The scenario's ``[nations]`` table gives each nation's side (``None`` = neutral). A nation may
name its rulebook identity with ``attrs.nation`` when its key differs (``"DE" -> "Germany"``);
``attrs.power``, ``attrs.contingents``, ``attrs.shaken`` and ``attrs.collapse`` override or add
to the rulebook data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grognard.core.rules import implements
from grognard.core.sequence import other_of
from grognard.core.state import Piece
from grognard.rulesets.greatwar.mechanics import gw, gw_view
from grognard.rulesets.greatwar.units.catalogue import (
    load_theaters,
    nation_info,
    theater_of_command,
)

if TYPE_CHECKING:
    from grognard.core.game import Game

SIDES = ("Entente", "Central Powers")
POWER_CLASSES = ("great", "major", "minor")


def other_side(side: str) -> str:
    """The other of the two sides."""
    return other_of(SIDES, side)


def nation_attrs(g: Game, nation: str) -> dict[str, Any]:
    n = g.scenario.data.nations.get(nation)
    return dict(n.attrs) if n is not None else {}


def rulebook_name(g: Game, nation: str) -> str:
    return str(nation_attrs(g, nation).get("nation", nation))


@implements("OT 3B", "OT 3B1", "OT 3B2")
def side_of_nation(g: Game, nation: str) -> str | None:
    """OT 3B1/3B2: the side controlling a nation's forces now (None while it is neutral, OT 3B3)."""
    if nation in g.state.alignment:
        return g.state.alignment[nation]
    info = nation_info(rulebook_name(g, nation))
    return info.side if info else None


@implements("OT 3B3")
def join_war(g: Game, nation: str, side: str, rule: str = "OT 3B3", reason: str = "") -> None:
    """OT 3B3: a neutral nation joins a side; its forces and its hexes pass to that side."""
    if g.state.alignment.get(nation) is not None:
        return
    g.state.alignment[nation] = side
    for p in g.state.pieces.values():
        if p.nation == nation:
            p.side = side
    tag = f"neutral:{nation}"
    gained = [i for i, owner in g.state.control.items() if owner == tag]
    for i in gained:
        g.state.control[i] = side
    bridges = g.state.markers.get("bridge-owner", {})
    for key, owner in list(bridges.items()):
        if owner == tag:
            bridges[key] = side
    ever = gw_view(g).get("ever_owned")
    if ever is not None:
        for i in gained:
            if side not in ever.get(str(i), []):
                ever.setdefault(str(i), []).append(side)
    g.emit(
        "joins-war",
        f"{nation} joins the {side}" + (f" ({reason})" if reason else ""),
        rule=rule,
        nation=nation,
        side=side,
    )


@implements("OT 3B3")
def attack_neutral(g: Game, nation: str, by_side: str) -> None:
    """OT 3B3: a neutral attacked by one side joins the other side.

    Entering a neutral's hex counts as attacking it (interpretation default, OT 3B3).
    """
    if g.state.alignment.get(nation, "missing") is None:
        join_war(g, nation, other_side(by_side), reason=f"attacked by the {by_side}")


def neutral_nation_of_hex(g: Game, i: int) -> str | None:
    """The neutral nation owning hex ``i`` (control value ``neutral:<nation>``), if any."""
    owner = g.state.control.get(i)
    if owner and owner.startswith("neutral:"):
        nation = owner.split(":", 1)[1]
        if g.state.alignment.get(nation) is None:
            return nation
    return None


@implements("OT 3B4")
def power_class(g: Game, nation: str) -> str:
    """OT 3B4: great, major or minor power; a power whose home district is conquered is minor."""
    if nation in gw_view(g).get("demoted", []):
        return "minor"
    attrs = nation_attrs(g, nation)
    if attrs.get("power") in POWER_CLASSES:
        return str(attrs["power"])
    info = nation_info(rulebook_name(g, nation))
    return info.power if info else "minor"


@implements("OT 3B4")
def demote_power(g: Game, nation: str) -> None:
    """OT 3B4: the home district of a great or major power is conquered: it becomes a minor
    power."""
    dem = gw(g).setdefault("demoted", [])
    if nation not in dem:
        dem.append(nation)
        g.emit("demoted", f"{nation} becomes a minor power", rule="OT 3B4", nation=nation)


def is_great_or_major(g: Game, nation: str) -> bool:
    return power_class(g, nation) in ("great", "major")


@implements("OT 3B5")
def nationality(g: Game, p: Piece) -> str:
    """OT 3B5: a unit's nationality is its nation; all its contingents count as one nationality."""
    return p.nation


def contingents(g: Game, nation: str) -> tuple[str, ...]:
    """OT 3B5: the contingents under a nation's command (scenario attrs, else the rulebook list)."""
    attrs = nation_attrs(g, nation)
    if isinstance(attrs.get("contingents"), list):
        return tuple(attrs["contingents"])
    info = nation_info(rulebook_name(g, nation))
    return info.contingents if info else ()


def is_german(g: Game, p: Piece) -> bool:
    """True for units of Germany (the rulebook nation, whatever the scenario calls it)."""
    info = nation_info(rulebook_name(g, p.nation))
    return (info.id if info else rulebook_name(g, p.nation)) == "Germany"


def nation_flag(g: Game, nation: str, flag: str) -> bool:
    """A morale flag of a nation: ``shaken`` (OT 40B) or ``collapse`` (OT 40C), from the scenario or
    play."""
    live = gw_view(g).get("nation_flags", {}).get(nation, {})
    if flag in live:
        return bool(live[flag])
    return bool(nation_attrs(g, nation).get(flag, False))


# ----------------------------------------------------------------------------- commands (OT 3F)
def command_of(g: Game, i: int) -> str | None:
    """OT 3F: the command a hex belongs to (map areas of kind ``command``)."""
    return g.board.area_of(i, "command")


def theater_of(g: Game, i: int) -> str | None:
    """OT 3F: the theater of a hex (from its command, or the command area's ``theater``
    attribute)."""
    cmd = command_of(g, i)
    if cmd is None:
        return None
    area = g.board.areas[cmd]
    if isinstance(area.attrs.get("theater"), str):
        return str(area.attrs["theater"])
    return theater_of_command(cmd)


@implements("OT 3F")
def controlled_commands(g: Game, side: str) -> set[str] | None:
    """OT 3F: the commands a side controls (None: the scenario places no limit)."""
    rules = g.scenario.rules
    cmds = getattr(rules, "commands", {}) if rules is not None else {}
    if not cmds or side not in cmds:
        return None
    return set(cmds[side])


@implements("OT 3F")
def may_enter_command(g: Game, side: str, i: int) -> bool:
    """OT 3F: a side's forces may not voluntarily enter or attack hexes outside the commands it
    controls."""
    allowed = controlled_commands(g, side)
    if allowed is None:
        return True
    cmd = command_of(g, i)
    return cmd is None or cmd in allowed


def all_commands() -> set[str]:
    return {c for cmds in load_theaters().values() for c in cmds}
