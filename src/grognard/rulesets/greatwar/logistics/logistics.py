"""OT 11C1 supply depots, OT 11C2bii GSP generation, OT 11G Res Pts and OT 11H logistics items
(Res Pts and GSPs): their pieces, activation, movement, cartage, capture and removal.

Pieces: ``supply-depot`` (faces ``operational`` / ``non-operational``; ``attrs.net`` the rail net
it was activated on), ``res-pt`` (one piece per Res Pt; a scenario marker with ``attrs.amount = n``
is broken down into n pieces at setup, OT 11G) and ``gsp`` (one piece per GSP, ``attrs.born`` the
initial phase that generated it). Spent items go to the ``expended`` box, eliminated ones to
``eliminated``, deactivated depots to ``pool`` (from where they are activated again).

Actions (initial phase, :class:`DepotActions`): ``activate-depot`` {net, at}, ``flip-depot``
{depot}, ``deactivate-depot`` {depot}, ``generate-gsp`` {depot, amount}. Movement steps
(:class:`LogisticsMoves`): ``depot-move`` {depot, path}, ``item-rail-move`` {item, kind, path},
``item-river-move`` {item, hexsides, to}, ``pick-up`` / ``drop`` {carrier, items},
``eliminate-item`` {item}, ``deactivate-depot`` {depot}.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.rulesets.greatwar import listing
from grognard.rulesets.greatwar.map import zoc
from grognard.rulesets.greatwar.mechanics import gw, table_roll
from grognard.rulesets.greatwar.movement import movement, rail, rivers
from grognard.rulesets.greatwar.step import InitialExtension, MovementExtension
from grognard.rulesets.greatwar.supply import supply, supply_status
from grognard.rulesets.greatwar.supply.supply_status import player_turn_ordinal
from grognard.rulesets.greatwar.units import nations, special_units, units
from grognard.rulesets.greatwar.units.nations import command_of

if TYPE_CHECKING:
    from grognard.core.game import Game

DEPOT = "supply-depot"
RES_PT = "res-pt"
GSP = "gsp"
OPERATIONAL = "operational"
NON_OPERATIONAL = "non-operational"
POOL_BOX = "pool"
EXPENDED_BOX = "expended"


# ============================================================================ pieces
def is_depot(p: Piece) -> bool:
    return units.utype(p).id == DEPOT


def is_res_pt(p: Piece) -> bool:
    return units.utype(p).id == RES_PT


def is_gsp(p: Piece) -> bool:
    return units.utype(p).id == GSP


@implements("OT 11H")
def is_logistics_item(p: Piece) -> bool:
    """OT 11H: Res Pts and GSPs are the logistics items."""
    return is_res_pt(p) or is_gsp(p)


def depot_operational(p: Piece) -> bool:
    """OT 11C1: a depot is operational unless its non-operational side is up."""
    return p.face != NON_OPERATIONAL


def _on_map(g: Game, p: Piece) -> bool:
    return g.state.where(p.id).kind == "hex"


def depots(g: Game, side: str) -> list[Piece]:
    """The supply depots ``side`` has on the map."""
    return sorted(
        (
            p
            for p in g.state.pieces.values()
            if p.side == side and is_depot(p) and p.loc.kind == "hex"
        ),
        key=lambda p: p.id,
    )


def res_pts(g: Game, side: str) -> list[Piece]:
    """``side``'s Res Pts on the map (carried ones included)."""
    return sorted(
        (p for p in g.state.pieces.values() if p.side == side and is_res_pt(p) and _on_map(g, p)),
        key=lambda p: p.id,
    )


def gsps(g: Game, side: str) -> list[Piece]:
    return sorted(
        (p for p in g.state.pieces.values() if p.side == side and is_gsp(p) and _on_map(g, p)),
        key=lambda p: p.id,
    )


def gsp_stacks(g: Game, side: str, usable_now: bool = False) -> dict[int, list[Piece]]:
    """``side``'s GSPs by hex. With ``usable_now``, only those generated before this initial phase
    (OT 11C2bii: a GSP cannot be drawn on in the initial phase that generated it)."""

    now = player_turn_ordinal(g)
    out: dict[int, list[Piece]] = {}
    for p in gsps(g, side):
        if usable_now and int(p.attrs.get("born", 0)) >= now:
            continue
        h = units.hex_of(g, p)
        if h is not None:
            out.setdefault(h, []).append(p)
    return out


@implements("OT 11G")
def res_pt_markers(g: Game, side: str) -> dict[int, int]:
    """OT 11G: the Res Pts of ``side`` per hex. Markers may be built up or broken down freely as
    long as the hex total does not change: the engine keeps one piece per Res Pt, so any make-up
    of markers is a way of showing these totals."""
    out: dict[int, int] = {}
    for p in res_pts(g, side):
        h = units.hex_of(g, p)
        if h is not None:
            out[h] = out.get(h, 0) + 1
    return out


def expend(g: Game, p: Piece, rule: str, why: str) -> None:
    """Remove a spent logistics item from play (to the expended box)."""
    g.state.move(p.id, Loc.box(EXPENDED_BOX))
    g.emit("logistics", f"{p.id} is removed ({why})", rule=rule, piece=p.id)


@implements("OT 11G", "OT 11C2bii")
def setup(g: Game) -> None:
    """At setup: a Res Pt marker worth ``amount`` Res Pts is broken down into one piece per Res Pt
    (OT 11G); GSPs set up by the scenario count as generated just before the first initial phase."""
    for p in sorted(list(g.state.pieces.values()), key=lambda q: q.id):
        if is_res_pt(p):
            n = int(p.attrs.pop("amount", 1) or 1)
            for k in range(2, n + 1):
                q = Piece(
                    f"{p.id}#{k}",
                    p.type,
                    p.side,
                    p.nation,
                    p.face,
                    p.loc,
                    set(p.status),
                    dict(p.attrs),
                    p.faces,
                    p.name,
                )
                g.state.add_piece(q)
                g.state.move(q.id, p.loc)
        elif is_gsp(p):
            p.attrs.setdefault("born", 1)
        elif is_depot(p) and "net" not in p.attrs and p.loc.kind == "hex":
            nets = rail.nets_of_hex(g, int(p.loc.ref))
            if nets:
                p.attrs["net"] = nets[0]


# ============================================================================ OT 11C1 depots
def _phase(g: Game) -> str:
    return str(gw(g).get("phase", ""))


def _phasing(g: Game) -> str:
    return str(gw(g).get("phasing", ""))


@implements("OT 11C1")
def may_deactivate_now(g: Game, side: str) -> bool:
    """OT 11C1: voluntary deactivation in the owner's own initial, movement, combat or exploitation
    phase, or a reaction movement or reaction combat phase in which he reacts."""
    ph = _phase(g)
    if side == _phasing(g):
        return ph in ("initial", "movement", "combat", "exploitation")
    return ph in ("reaction-movement", "reaction-combat")


def _depot(g: Game, action: Action, rule: str = "OT 11C1") -> Piece:
    pid = action.get("depot")
    p = g.state.pieces.get(pid) if isinstance(pid, str) else None
    if p is None or p.side != action["side"] or not is_depot(p) or p.loc.kind != "hex":
        raise IllegalAction(rule, f"{action['side']} has no supply depot {pid!r} on the map")
    return p


@implements("OT 11C1", "OT 7A5e")
def check_activate(g: Game, action: Action) -> tuple[str, int]:
    """OT 11C1: in a friendly initial phase a player may activate a depot on a rail net in a
    command he controls: it needs 3 RE of the net's capacity (2 RE upkeep each turn and 1 RE lost
    for
    good, OT 7A5e), and is placed operational side up in an unisolated, friendly-owned rail hex of
    that net."""

    side = action["side"]
    net = action.get("net")
    if net not in rail.net_names(g):
        raise IllegalAction("OT 11C1", f"no rail net {net!r}")
    at = action.get("at")
    if not isinstance(at, str) or not g.board.has_label(at):
        raise IllegalAction("OT 11C1", "'at' must name a hex")
    h = g.board.idx(at)
    if h not in rail.rail_hexes(g) or str(net) not in rail.nets_of_hex(g, h):
        raise IllegalAction("OT 11C1", f"{at} is not a rail hex of {net}")
    if g.state.control.get(h) != side:
        raise IllegalAction("OT 11C1", f"{at} is not owned by {side}")
    if supply_status.is_isolated(g, side, h):
        raise IllegalAction("OT 11C1", f"{at} is isolated")
    cmds = nations.controlled_commands(g, side)
    cmd = nations.command_of(g, h)
    if cmds is not None and cmd is not None and cmd not in cmds:
        raise IllegalAction("OT 11C1", f"{at} is in {cmd}, a command {side} does not control")
    avail = rail.available(g, side, str(net), at=h)
    if avail is not None and avail < 3:
        raise IllegalAction(
            "OT 11C1", f"activating a depot needs 3 RE of capacity on {net}; {avail} RE left"
        )
    return str(net), h


@implements("OT 11C1", "OT 7A5e")
def activate_depot(g: Game, side: str, net: str, h: int) -> Piece:
    """OT 11C1: place a depot (from the side's pool of deactivated depots, else a new marker); the
    net loses 1 RE of capacity for good (OT 7A5e)."""

    pool = sorted(
        (
            p
            for p in g.state.pieces.values()
            if is_depot(p) and p.side == side and p.loc == Loc.box(POOL_BOX)
        ),
        key=lambda p: p.id,
    )
    if pool:
        d = pool[0]
    else:
        k = int(gw(g).get("depot_counter", 0)) + 1
        gw(g)["depot_counter"] = k
        d = g.state.add_piece(
            Piece(
                f"depot-{side[:2].lower()}-{k}",
                DEPOT,
                side,
                _default_nation(g, side),
                OPERATIONAL,
                faces={OPERATIONAL: {}, NON_OPERATIONAL: {}},
            )
        )
    d.face = OPERATIONAL
    d.attrs["net"] = net
    g.state.move(d.id, Loc.hex(h))
    rail.depot_activated(g, side, net)
    g.emit(
        "depot",
        f"{side} activates supply depot {d.id} at {g.board.label(h)} on {net}",
        rule="OT 11C1",
        piece=d.id,
        hex=g.board.label(h),
    )
    return d


def _default_nation(g: Game, side: str) -> str:
    for n, nd in g.scenario.data.nations.items():
        if nd.side == side:
            return n
    return ""


@implements("OT 11C1")
def deactivate_depot(g: Game, d: Piece, why: str = "voluntary") -> None:
    """OT 11C1: a deactivated depot is removed from the map (to its side's pool)."""
    g.state.move(d.id, Loc.box(POOL_BOX))
    g.emit("depot", f"supply depot {d.id} is deactivated ({why})", rule="OT 11C1", piece=d.id)


@implements("OT 11C1")
def flip_depot(g: Game, d: Piece) -> None:
    """OT 11C1: in a friendly initial phase a depot may be flipped between its operational side
    (part of supply lines, immobile) and its non-operational side (movable, supplies nothing)."""
    d.face = NON_OPERATIONAL if depot_operational(d) else OPERATIONAL
    g.emit("depot", f"supply depot {d.id} is now {d.face}", rule="OT 11C1", piece=d.id)


@implements("OT 11C1")
def check_depot_move(g: Game, f: Frame, action: Action) -> list[int]:
    """OT 11C1: a non-operational depot moves by strategic rail movement only (up to the strategic
    distance, no capacity used), within the rail net it was activated on, once per phase."""

    if f.params.get("kind") != "movement":
        raise IllegalAction(
            "OT 11C1", "supply depots move by strategic rail movement, in the movement phase"
        )
    d = _depot(g, action)
    if depot_operational(d):
        raise IllegalAction("OT 11C1", f"{d.id} is operational and may not move")
    if d.id in f.params.get("items", {}):
        raise IllegalAction("OT 11C1", f"{d.id} already moved this phase")
    path = _path(g, action, "OT 11C1")
    start = int(d.loc.ref)
    net = str(
        d.attrs.get(
            "net", rail.nets_of_hex(g, start)[0] if rail.nets_of_hex(g, start) else rail.ALL_NET
        )
    )
    rates = rail.rail_rates(g)
    if len(path) > int(rates["strategic_hexes"]):
        raise IllegalAction(
            "OT 7A3", f"strategic rail movement is limited to {rates['strategic_hexes']} hexes"
        )
    _check_rail_path(
        g,
        f,
        d.side,
        start,
        path,
        {net},
        zoc.cached_zoc_map(g, nations.other_side(d.side)),
        "OT 11C1",
    )
    return path


def _path(g: Game, action: Action, rule: str) -> list[int]:
    raw = action.get("path")
    if (
        not isinstance(raw, list)
        or not raw
        or not all(isinstance(h, str) and g.board.has_label(h) for h in raw)
    ):
        raise IllegalAction(rule, "'path' must list the hexes of the rail route")
    return [g.board.idx(h) for h in raw]


def _check_rail_path(
    g: Game,
    f: Frame,
    side: str,
    start: int,
    path: list[int],
    nets: set[str] | None,
    ez: dict[int, str],
    rule: str,
) -> bool:
    """A rail route from ``start`` along ``path``: rail links, friendly-owned hexes joined to a
    friendly yard, usable bridges, no breaks, obstructions or enemy ZOCs (OT 7A). Returns whether
    a low-volume line was used."""

    if path and path[0] == start:
        path = path[1:]
    if not path:
        raise IllegalAction(rule, "the rail route does not leave the hex")
    comp = rail.usable_component(g, side)
    if start not in comp:
        raise IllegalAction(
            rule, f"{g.board.label(start)} is not on a friendly rail line linked to a friendly yard"
        )
    why = rail._hex_blocked_for_rail(g, f, side, start, ez, [])
    if why:
        raise IllegalAction(rule, f"no rail move from {g.board.label(start)}: {why}")
    ln = rail.links(g)
    u = start
    low = False
    for v in path:
        lk = next((x for x in ln.get(u, []) if x.to == v), None)
        if lk is None:
            raise IllegalAction(
                rule, f"no rail line joins {g.board.label(u)} and {g.board.label(v)}"
            )
        if v not in comp or not rail._link_ok_for(g, side, lk, u):
            raise IllegalAction(rule, f"{g.board.label(v)} is not a usable friendly rail hex")
        if nets is not None and not (set(rail.nets_of_hex(g, v)) & nets):
            raise IllegalAction(
                rule, f"{g.board.label(v)} is not on the rail net {', '.join(sorted(nets))}"
            )
        why = rail._hex_blocked_for_rail(g, f, side, v, ez, [])
        if why:
            raise IllegalAction(rule, why)
        low = low or lk.volume == "low"
        u = v
    return low


# ======================================================================== OT 11C2bii GSP generation
def _gsp_cap_from_low(low: float) -> int:
    c = math.ceil(low - 1e-9)
    if c <= 0:
        return 16
    if c <= 7:
        return 8
    if c <= 14:
        return 4
    return 1


_PORT_CAPS = (("major", "great"), ("standard",), ("minor",), ("marginal",))


@implements("OT 11C2bii", "OT 11B3")
def gsp_cap(g: Game, d: Piece) -> int:
    """OT 11C2bii: the GSPs depot ``d`` may generate now (memoised per position; see
    :func:`_gsp_cap`)."""
    return int(g.cached(f"gw:gsp-cap:{d.id}:{d.loc}:{d.face}", lambda: _gsp_cap(g, d)))


def _gsp_cap(g: Game, d: Piece) -> int:
    """OT 11C2bii: GSPs a depot may generate this initial phase, by how its rail/naval element to a
    regular source is traced: 16 along high-volume lines through major or great ports only; 8 with
    at
    most 7 low-volume hexes and/or standard ports; 4 with 8-14 low-volume hexes and/or minor ports;
    1 with 15 or more low-volume hexes and/or marginal ports (the best route counts). Interpretation
    default (option ``gsp-brackets``): the brackets apply beyond the 7-hex limit of OT 11B3a; with
    the option off, a depot must be within that limit. 0 if no line can be traced."""

    h = units.hex_of(g, d)
    if h is None or not depot_operational(d):
        return 0
    srcs = [i for i in supply.regular_sources(g, d.side) if supply.source_allowed(g, d.nation, i)]
    if not srcs:
        return 0
    limit = (
        10_000.0 if g.opt("gsp-brackets") else float(supply.summary(g)["rail"]["low_volume_max"])
    )
    best = 0
    caps = supply.summary(g)["gsp"]
    port_cap = [
        int(caps["high_volume_major_ports"]),
        int(caps["low_7_or_standard"]),
        int(caps["low_8_to_14_or_minor"]),
        int(caps["low_15_or_marginal"]),
    ]
    # rail only
    res = supply.rail_element(g, d.side, d.nation, srcs, naval=False, limit=limit)
    if res.dist[h] < float("inf"):
        best = _gsp_cap_from_low(float(res.dist[h]))
    res = supply.rail_element(g, d.side, d.nation, srcs, naval=True, limit=limit)
    if res.dist[h] < float("inf"):
        path = res.path(h)
        ports = supply.line_ports(g, d.side, d.nation, path)
        worst = 0
        for p in ports:
            size = supply._port_size(g, p) or "marginal"
            for k, group in enumerate(_PORT_CAPS):
                if size in group:
                    worst = max(worst, k)
        best = max(best, min(port_cap[worst], _gsp_cap_from_low(float(res.dist[h]))))
    return best


@implements("OT 11C2bii")
def generate_gsps(g: Game, d: Piece, amount: int) -> list[Piece]:
    """OT 11C2bii: place ``amount`` GSPs at a depot (optional for the player)."""

    h = units.hex_of(g, d)
    assert h is not None
    born = supply_status.player_turn_ordinal(g)
    out = []
    for _ in range(amount):
        k = int(gw(g).get("gsp_counter", 0)) + 1
        gw(g)["gsp_counter"] = k
        p = g.state.add_piece(
            Piece(
                f"gsp-{d.side[:2].lower()}-{k}",
                GSP,
                d.side,
                d.nation,
                "front",
                attrs={"born": born},
            )
        )
        g.state.move(p.id, Loc.hex(h))
        out.append(p)
    gen = gw(g).setdefault("gsp_generated", {})
    gen[d.id] = born
    g.emit(
        "logistics",
        f"{amount} GSP(s) generated at {d.id} ({g.board.label(h)})",
        rule="OT 11C2bii",
        piece=d.id,
        amount=amount,
    )
    return out


@implements("OT 11C2bii")
def expire_gsps(g: Game) -> None:
    """OT 11C2bii: a GSP stays in play for three initial phases (the one that generated it and the
    next two) and is removed at the end of the third."""

    now = supply_status.player_turn_ordinal(g)
    for p in sorted(g.state.pieces.values(), key=lambda q: q.id):
        if is_gsp(p) and p.loc.kind != "box" and now >= int(p.attrs.get("born", 0)) + 2:
            expend(g, p, "OT 11C2bii", "end of its third initial phase")


# ============================================================================ OT 11H items
@implements("OT 11H")
def may_eliminate_items_now(g: Game, side: str) -> bool:
    """OT 11H: voluntary elimination in the owner's movement, combat and exploitation phases, and
    in a reaction movement or reaction combat phase in which he reacts."""
    ph = _phase(g)
    if side == _phasing(g):
        return ph in ("movement", "combat", "exploitation")
    return ph in ("reaction-movement", "reaction-combat")


def _item(g: Game, action: Action, rule: str, key: str = "item") -> Piece:
    pid = action.get(key)
    p = g.state.pieces.get(pid) if isinstance(pid, str) else None
    if p is None or p.side != action["side"] or not is_logistics_item(p) or not _on_map(g, p):
        raise IllegalAction(rule, f"{action['side']} has no logistics item {pid!r} on the map")
    return p


@implements("OT 11H")
def eliminate_item(
    g: Game, p: Piece, rule: str = "OT 11H", why: str = "voluntarily eliminated"
) -> None:
    g.state.move(p.id, Loc.box(units.ELIMINATED_BOX))
    g.emit("logistics", f"{p.id} is eliminated ({why})", rule=rule, piece=p.id)


@implements("OT 11H")
def on_capture(g: Game, i: int, old: str, new: str) -> None:
    """OT 11H: when a hex is captured, the captor rolls on the Ground Success Table (no modifiers)
    for each logistics item of the old owner in it: success captures it, failure eliminates it."""
    items = sorted(
        (p for p in g.state.at_hex(i) if is_logistics_item(p) and p.side == old), key=lambda p: p.id
    )
    for p in items:
        res = table_roll(g, "gst", "standard", f"capture of {p.id} at {g.board.label(i)}", "OT 11H")
        if str(res.result).startswith("S"):
            p.side = new
            g.emit("logistics", f"{new} captures {p.id} ({res.result})", rule="OT 11H", piece=p.id)
        else:
            eliminate_item(
                g, p, "OT 11H", f"lost when {g.board.label(i)} was captured ({res.result})"
            )


def _item_rec(f: Frame, p: Piece) -> dict[str, Any]:
    return f.params.setdefault("items", {}).setdefault(
        p.id, {"rail": False, "cart": False, "strategic": False, "transport": False}
    )


@implements("OT 11H4")
def combine_ok(f: Frame, p: Piece, mode: str) -> str | None:
    """OT 11H4: in a movement phase an item moves once by operational rail or river (not both),
    once by cartage and once by air or naval transport; after strategic rail nothing else, and
    strategic rail only if it has not moved otherwise. Returns the reason it may not, or None."""
    rec = f.params.get("items", {}).get(p.id, {})
    if rec.get("strategic"):
        return f"{p.id} moved by strategic rail this phase and may not move otherwise"
    if mode == "strategic":
        if rec.get("rail") or rec.get("cart") or rec.get("transport"):
            return f"{p.id} already moved this phase and may not use strategic rail movement"
        return None
    key = {
        "operational": "rail",
        "river": "rail",
        "cart": "cart",
        "air": "transport",
        "naval": "transport",
    }[mode]
    if rec.get(key):
        what = {
            "rail": "by operational rail or river",
            "cart": "by cartage",
            "transport": "by air or naval transport",
        }[key]
        return f"{p.id} already moved {what} this phase"
    return None


@implements("OT 11H1", "OT 7A4")
def check_item_rail(
    g: Game, f: Frame, action: Action
) -> tuple[Piece, list[int], str, dict[str, Fraction], bool]:
    """OT 11H1: a logistics item moves by rail by itself, in the movement phase, using rail capacity
    (its RE: Res Pt 3, GSP 1/4; doubled on a low-volume line, OT 7A4): at most 40 hexes by
    operational rail movement, 200 by strategic."""

    if f.params.get("kind") != "movement":
        raise IllegalAction("OT 11H1", "rail movement is allowed in the movement phase only")
    p = _item(g, action, "OT 11H1")
    if p.loc.kind != "hex":
        raise IllegalAction("OT 11H1", f"{p.id} is being carried and cannot move by itself")
    kind = action.get("kind", "operational")
    if kind not in ("operational", "strategic"):
        raise IllegalAction("OT 11H1", "'kind' is 'operational' or 'strategic'")
    why = combine_ok(f, p, kind)
    if why:
        raise IllegalAction("OT 11H4", why)
    path = _path(g, action, "OT 11H1")
    start = int(p.loc.ref)
    if path and path[0] == start:
        path = path[1:]
    rates = rail.rail_rates(g)
    cap = int(
        rates["logistics_operational_max"]
        if kind == "operational"
        else rates["logistics_strategic_max"]
    )
    if len(path) > cap:
        raise IllegalAction(
            "OT 11H1", f"a logistics item moving alone by {kind} rail goes at most {cap} hexes"
        )
    low = _check_rail_path(
        g,
        f,
        p.side,
        start,
        path,
        None,
        zoc.cached_zoc_map(g, nations.other_side(p.side)),
        "OT 11H1",
    )
    charges: dict[str, Fraction] = {}
    nets: set[str] = set()
    for h in [start, *path]:
        nets.update(rail.nets_of_hex(g, h))
    for net in sorted(nets):
        rec = rail.ledger(g, net, p.side)
        need = units.re_size(g, p) * (2 if low else 1)
        extra = max(Fraction(0), need - Fraction(rec["charged"].get(p.id, 0)))
        avail = rail.available(g, p.side, net, at=start)
        if avail is not None and extra > avail:
            raise IllegalAction(
                "OT 7A4", f"not enough rail capacity on {net}: {extra} RE needed, {avail} left"
            )
        charges[net] = extra
    return p, path, str(kind), charges, low


@implements("OT 11H1", "OT 7C5")
def check_item_river(
    g: Game, f: Frame, action: Action
) -> tuple[Piece, list[int], int, frozenset[int]]:
    """OT 11H1: a logistics item moves by river by itself (river capacity used: its RE), at most 40
    hexsides, along connected navigable hexsides from a side of its hex (OT 7C)."""

    if not rivers.in_use(g):
        raise IllegalAction("OT 7C", "river movement is not in use in this scenario")
    if f.params.get("kind") != "movement":
        raise IllegalAction("OT 11H1", "river movement is allowed in the movement phase only")
    p = _item(g, action, "OT 11H1")
    if p.loc.kind != "hex":
        raise IllegalAction("OT 11H1", f"{p.id} is being carried and cannot move by itself")
    why = combine_ok(f, p, "river")
    if why:
        raise IllegalAction("OT 11H4", why)
    raw = action.get("hexsides")
    if not isinstance(raw, list) or not raw:
        raise IllegalAction("OT 11H1", "'hexsides' must list the waterway hexsides")
    sides: list[int] = []
    for x in raw:
        s = rivers._side_from_label(g, x)
        if s is None:
            raise IllegalAction("OT 11H1", f"{x!r} is not a hexside (write 'AAAA/BBBB')")
        sides.append(s)
    if len(sides) > 40:
        raise IllegalAction(
            "OT 11H1", "a logistics item moving alone by river goes at most 40 hexsides"
        )
    start = int(p.loc.ref)
    if sides[0] not in rivers.hex_sides(g, start):
        raise IllegalAction("OT 7C2", "the first hexside must be a side of the item's hex")
    for a, b in itertools.pairwise(sides):
        if b not in rivers.connected_sides(g, a):
            raise IllegalAction("OT 7C2", "the hexsides must follow each other along the waterway")
    for s in sides:
        if not rivers.navigable(g, s) or rivers.blocked(g, p.side, s):
            raise IllegalAction(
                "OT 7C1", f"hexside {rivers._label(g, s)} is not a navigable, unblocked waterway"
            )
    to = action.get("to")
    if (
        not isinstance(to, str)
        or not g.board.has_label(to)
        or g.board.idx(to) not in [int(x) for x in g.board.side_hexes[sides[-1]]]
    ):
        raise IllegalAction("OT 7C2", "'to' must be one of the two hexes of the last hexside")
    dest = g.board.idx(to)
    if g.state.control.get(dest) != p.side:
        raise IllegalAction("OT 11H1", f"{to} is not friendly-owned")
    net = rivers.waterway_net(g, sides[0])
    led = rivers._ledger(g, p.side, net)
    need = units.re_size(g, p)
    if Fraction(led["used"]) + need > rivers.river_capacity(g, p.side, net):
        raise IllegalAction("OT 7C5", f"not enough river capacity: {need} RE needed")
    return p, sides, dest, net


# ----------------------------------------------------------------------------- cartage (OT 11H2)
def _carrier_kind(p: Piece) -> str:

    if special_units.is_army_hq(p):
        return "army-hq"
    if "transport" in units.utype(p).tags:
        return "transport"
    return "other"


def cargo(g: Game, carrier: Piece) -> list[Piece]:
    return [q for q in g.state.contents(carrier.id) if is_logistics_item(q)]


@implements("OT 11H2")
def cartage_problem(g: Game, carrier: Piece, items: Sequence[Piece]) -> str | None:
    """OT 11H2: what a ground unit may carry. An Army HQs up to 9 RE of logistics items; a transport
    unit up to 6 RE; any other unit GSPs only, up to twice its RE size -- except that one divisional
    unit per side, per command, per turn may carry a single Res Pt instead. None if allowed."""

    kind = _carrier_kind(carrier)
    total = sum((units.re_size(g, q) for q in items), Fraction(0))
    if kind == "army-hq":
        return (
            None
            if total <= 9
            else f"an Army HQs carries at most 9 RE of logistics items ({total} asked)"
        )
    if kind == "transport":
        return (
            None
            if total <= 6
            else f"a transport unit carries at most 6 RE of logistics items ({total} asked)"
        )
    rps = [q for q in items if is_res_pt(q)]
    if rps:
        if len(rps) > 1 or len(items) > 1:
            return "a unit carrying a Res Pt carries that single Res Pt only"
        if not units.is_divisional(carrier):
            return f"{carrier.id} is not divisional and may carry GSPs only"
        h = units.hex_of(g, carrier)
        cmd = command_of(g, h) if h is not None else None
        key = f"{g.state.turn.get('index', 0)}:{carrier.side}:{cmd}"
        who = gw(g).get("res_pt_carriers", {}).get(key)
        if who is not None and who != carrier.id:
            return (
                f"{who} already carries a Res Pt for {carrier.side} in {cmd or 'this command'} this"
                " turn"
            )
        return None
    cap = 2 * units.re_size(g, carrier)
    return (
        None
        if total <= cap
        else f"{carrier.id} carries at most {cap} RE of GSPs (twice its size; {total} asked)"
    )


@implements("OT 11H2")
def cartage_deduction(g: Game, p: Piece) -> Fraction:
    """OT 11H2: MPs deducted from the movement rating of a carrier other than an Army HQs or a
    transport unit (before any halving or doubling): 1 for GSPs up to its RE size, 2 for more, 3
    for a Res Pt. The deduction of the heaviest load carried this phase counts."""
    items = cargo(g, p)
    trial = _trials().get((id(g), p.id))
    if trial is None and not items and "cartage_mp" not in p.attrs:
        return _ZERO
    now = _deduction_for(g, p, items)
    return max(now, Fraction(p.attrs.get("cartage_mp", 0) if trial is None else trial))


_ZERO = Fraction(0)
# the deduction a pick-up being checked would record on its carrier (check_pick_up): read in place
# of the carrier's ``cartage_mp`` while the check computes its remaining MPs, so that the check
# never writes on the piece (a listing would see the piece changed and recompute what it kept)
# (per thread and game: a server lists several games, and one game, on several threads at once)
_TRIAL_CARTAGE = threading.local()


def _trials() -> dict[tuple[int, str], Fraction]:
    """This thread's trial deductions, by (game, carrier)."""
    d: dict[tuple[int, str], Fraction] | None = getattr(_TRIAL_CARTAGE, "by_carrier", None)
    if d is None:
        d = _TRIAL_CARTAGE.by_carrier = {}
    return d


def _deduction_for(g: Game, p: Piece, items: Sequence[Piece]) -> Fraction:
    if not items or _carrier_kind(p) != "other":
        return Fraction(0)
    if any(is_res_pt(q) for q in items):
        return Fraction(3)
    total = sum((units.re_size(g, q) for q in items), Fraction(0))
    return Fraction(1) if total <= units.re_size(g, p) else Fraction(2)


def _carrier(g: Game, action: Action) -> Piece:
    pid = action.get("carrier")
    p = g.state.pieces.get(pid) if isinstance(pid, str) else None
    if p is None or p.side != action["side"] or not units.is_unit(p) or units.hex_of(g, p) is None:
        raise IllegalAction("OT 11H2", f"{action['side']} has no unit {pid!r} on the map")
    return p


def _items(g: Game, action: Action) -> list[Piece]:
    ids = action.get("items")
    if not isinstance(ids, list) or not ids or len(set(map(str, ids))) != len(ids):
        raise IllegalAction("OT 11H2", "'items' must list the logistics items, each once")
    return [_item(g, {"side": action["side"], "item": x}, "OT 11H2") for x in ids]


@implements("OT 11H2", "OT 11H4")
def check_pick_up(g: Game, f: Frame, action: Action) -> tuple[Piece, list[Piece]]:
    """OT 11H2: a unit picks up logistics items in its hex at any time during its movement, within
    its limit; the MP deduction must still leave it the MPs it has spent."""

    c = _carrier(g, action)
    why = movement.can_move_now(g, f, c)
    if why:
        raise IllegalAction("OT 11H2", why)
    items = _items(g, action)
    h = units.hex_of(g, c)
    for q in items:
        if q.loc != Loc.hex(h):  # type: ignore[arg-type]
            raise IllegalAction("OT 11H2", f"{q.id} is not lying in {c.id}'s hex")
        why = combine_ok(f, q, "cart")
        if why:
            raise IllegalAction("OT 11H4", why)
    load = cargo(g, c) + items
    why = cartage_problem(g, c, load)
    if why:
        raise IllegalAction("OT 11H2", why)
    before = Fraction(c.attrs.get("cartage_mp", 0))
    trials = _trials()
    key = (id(g), c.id)
    outer = trials.get(key)
    trials[key] = max(before, _deduction_for(g, c, load))
    try:
        left = movement.remaining_uncached(g, f, c)
    finally:
        if outer is None:
            trials.pop(key, None)
        else:
            trials[key] = outer
    if left < 0:
        raise IllegalAction(
            "OT 11H2",
            f"{c.id} has already spent more MPs than it would have while carrying this load",
        )
    return c, items


@implements("OT 11H2")
def pick_up(g: Game, f: Frame, c: Piece, items: Sequence[Piece]) -> None:

    load = cargo(g, c) + list(items)
    c.attrs["cartage_mp"] = max(Fraction(c.attrs.get("cartage_mp", 0)), _deduction_for(g, c, load))
    if not c.attrs["cartage_mp"]:
        c.attrs.pop("cartage_mp")
    for q in items:
        g.state.move(q.id, Loc.inside(c.id))
        _item_rec(f, q)["cart"] = True
        if is_res_pt(q) and _carrier_kind(c) == "other":
            h = units.hex_of(g, c)
            cmd = command_of(g, h) if h is not None else None
            key = f"{g.state.turn.get('index', 0)}:{c.side}:{cmd}"
            gw(g).setdefault("res_pt_carriers", {})[key] = c.id
    g.emit(
        "logistics",
        f"{c.id} picks up {', '.join(q.id for q in items)}",
        rule="OT 11H2",
        piece=c.id,
        items=[q.id for q in items],
    )


@implements("OT 11H2")
def drop(g: Game, c: Piece, items: Sequence[Piece]) -> None:
    h = units.hex_of(g, c)
    assert h is not None
    for q in items:
        g.state.move(q.id, Loc.hex(h))
    g.emit(
        "logistics",
        f"{c.id} drops {', '.join(q.id for q in items)} at {g.board.label(h)}",
        rule="OT 11H2",
        piece=c.id,
    )


@implements("OT 11H3", "OT 11H4")
def record_transport(g: Game, f: Frame, item: Piece, mode: str) -> None:
    """OT 11H3: logistics items may be carried by naval transport between ports and beaches (Rules
    26B/31) and by air transport or airdrop (Rule 20H, advanced air rules). Those rules call this
    to check and record the move under the combining limits of OT 11H4 (``mode`` ``naval`` or
    ``air``; air transport needs the advanced air rules)."""
    if mode not in ("naval", "air"):
        raise IllegalAction("OT 11H3", f"unknown transport mode {mode!r}")
    if mode == "air" and not g.opt("advanced-air"):
        raise IllegalAction(
            "OT 11H3", "air transport of logistics items needs the advanced air rules (OT 20H)"
        )
    why = combine_ok(f, item, mode)
    if why:
        raise IllegalAction("OT 11H4", why)
    _item_rec(f, item)["transport"] = True


# ============================================================================ step extensions
class DepotActions(InitialExtension):
    """Initial-phase actions of OT 11C1 (depots) and OT 11C2bii (GSPs)."""

    def initial_actions(self, g: Game, f: Frame, side: str) -> list[Action]:

        out: list[Action] = []
        ds = depots(g, side)
        for d in ds:
            out.append({"type": "flip-depot", "side": side, "depot": d.id})
            cap = (
                gsp_cap(g, d)
                if d.id not in gw(g).get("gsp_generated", {})
                or gw(g)["gsp_generated"][d.id] != _ordinal(g)
                else 0
            )
            if cap:
                out.append({"type": "generate-gsp", "side": side, "depot": d.id, "amount": cap})
        for net in rail.net_names(g):
            avail = rail.available(g, side, net)
            if avail is not None and avail < 3:
                continue
            taken = {int(d.loc.ref) for d in ds}
            for y in rail.yards(g):
                if (
                    y in taken
                    or net not in rail.nets_of_hex(g, y)
                    or g.state.control.get(y) != side
                    or supply_status.is_isolated(g, side, y)
                ):
                    continue
                a: Action = {
                    "type": "activate-depot",
                    "side": side,
                    "net": net,
                    "at": g.board.label(y),
                }
                try:
                    check_activate(g, a)
                except IllegalAction:
                    continue
                out.append(a)
                break
        return out

    @handles.check("activate-depot")
    def check_activate_depot(self, g: Game, f: Frame, action: Action) -> None:
        """OT 11C1: a depot activated at a friendly rail yard of a net with capacity."""
        check_activate(g, action)

    @handles.apply("activate-depot")
    def apply_activate_depot(self, g: Game, f: Frame, action: Action) -> None:
        net, h = check_activate(g, action)
        activate_depot(g, action["side"], net, h)

    @handles.check("flip-depot", "deactivate-depot")
    def check_depot(self, g: Game, f: Frame, action: Action) -> None:
        """OT 11C1: a depot of the side."""
        _depot(g, action)

    @handles.apply("flip-depot")
    def apply_flip(self, g: Game, f: Frame, action: Action) -> None:
        flip_depot(g, _depot(g, action))

    @handles.apply("deactivate-depot")
    def apply_deactivate_depot(self, g: Game, f: Frame, action: Action) -> None:
        deactivate_depot(g, _depot(g, action))

    @handles.check("generate-gsp")
    def check_generate(self, g: Game, f: Frame, action: Action) -> None:
        """OT 11C2bii: a depot generates GSPs once per initial phase, up to its cap."""
        d = _depot(g, action, "OT 11C2bii")
        if gw(g).get("gsp_generated", {}).get(d.id) == _ordinal(g):
            raise IllegalAction(
                "OT 11C2bii", f"{d.id} has already generated GSPs in this initial phase"
            )
        amount = action.get("amount")
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 1:
            raise IllegalAction("OT 11C2bii", "'amount' must be a positive whole number of GSPs")
        cap = gsp_cap(g, d)
        if amount > cap:
            raise IllegalAction("OT 11C2bii", f"{d.id} may generate at most {cap} GSPs now")

    @handles.apply("generate-gsp")
    def apply_generate(self, g: Game, f: Frame, action: Action) -> None:
        self.check_generate(g, f, action)
        generate_gsps(g, _depot(g, action), int(action["amount"]))


def _ordinal(g: Game) -> int:

    return player_turn_ordinal(g)


class LogisticsMoves(MovementExtension):
    """Movement-step actions of OT 11C1 (depot moves and deactivation) and OT 11H (items by rail,
    by river, carried, eliminated)."""

    def extension_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        kind = f.params.get("kind")
        if kind == "reserve":
            return []
        out: list[Action] = []
        if may_deactivate_now(g, side):
            out += [
                {"type": "deactivate-depot", "side": side, "depot": d.id} for d in depots(g, side)
            ]
        items = res_pts(g, side) + gsps(g, side)
        if may_eliminate_items_now(g, side):  # listed once per hex; any item may be named
            seen: set[Any] = set()
            for p in items:
                where = g.state.where(p.id)
                if where not in seen:
                    seen.add(where)
                    out.append({"type": "eliminate-item", "side": side, "item": p.id})

        frame_sig: str | None = None  # the frame's parameters other than the records, once
        by_hex: dict[int, list[Piece]] = {}
        for p in items:
            if p.loc.kind == "hex":
                by_hex.setdefault(int(p.loc.ref), []).append(p)
        for c in units.on_map_units(g, side):
            h = units.hex_of(g, c)
            if c.loc.kind != "hex" or h is None:
                continue
            load = cargo(g, c)
            if load:
                out.append(
                    {"type": "drop", "side": side, "carrier": c.id, "items": [q.id for q in load]}
                )
            here = by_hex.get(h, [])
            if not here or movement.can_move_now(g, f, c):
                continue
            for q in here[:2]:
                a: Action = {"type": "pick-up", "side": side, "carrier": c.id, "items": [q.id]}
                if frame_sig is None:
                    frame_sig = repr(
                        sorted((k, v) for k, v in f.params.items() if k not in ("units", "items"))
                    )
                if self._may_pick_up(g, f, a, c, q, h, frame_sig):
                    out.append(a)
        return out

    @staticmethod
    def _may_pick_up(
        g: Game, f: Frame, a: Action, c: Piece, q: Piece, h: int, frame_sig: str
    ) -> bool:
        """Whether :func:`check_pick_up` allows carrier ``c`` to pick up item ``q`` in hex
        ``h``. While legal actions are listed the answer is kept across actions: it reads the
        two pieces and what the carrier holds (all in the hex), their records, the frame and
        the world (the Res Pt carriers of the turn, OT 11H2)."""

        def allowed() -> bool:
            try:
                check_pick_up(g, f, a)
            except IllegalAction:
                return False
            return True

        if not listing.listing_now(g):
            return allowed()
        return listing.tracked(
            g,
            (
                "gw:pick-up",
                c.id,
                q.id,
                h,
                f.step,
                frame_sig,
                repr(f.params.get("units", {}).get(c.id)),
                repr(f.params.get("items", {}).get(q.id)),
                listing.world_token(g),
            ),
            (("piece", c.id), ("piece", q.id), ("hex", h)),
            allowed,
        )

    @handles.check("depot-move")
    def check_depot_move_action(self, g: Game, f: Frame, action: Action) -> None:
        """OT 11C1: a depot moves by strategic rail."""
        check_depot_move(g, f, action)

    @handles.apply("depot-move")
    def apply_depot_move(self, g: Game, f: Frame, action: Action) -> None:
        path = check_depot_move(g, f, action)
        d = _depot(g, action)
        g.state.move(d.id, Loc.hex(path[-1]))
        f.params.setdefault("items", {})[d.id] = {"strategic": True}
        g.emit(
            "depot",
            f"supply depot {d.id} moves by strategic rail to {g.board.label(path[-1])}",
            rule="OT 11C1",
            piece=d.id,
        )

    @handles.check("item-rail-move")
    def check_item_rail_action(self, g: Game, f: Frame, action: Action) -> None:
        """OT 11H1: a logistics item moves by rail."""
        check_item_rail(g, f, action)

    @handles.apply("item-rail-move")
    def apply_item_rail(self, g: Game, f: Frame, action: Action) -> None:

        p, path, kind, charges, _low = check_item_rail(g, f, action)
        for net, amount in charges.items():
            led = rail.ledger(g, net, p.side)
            led["used"] = Fraction(led["used"]) + amount
            led["charged"][p.id] = Fraction(led["charged"].get(p.id, 0)) + amount
        g.state.move(p.id, Loc.hex(path[-1]))
        rec = _item_rec(f, p)
        rec["rail"] = True
        rec["strategic"] = kind == "strategic"
        g.emit(
            "logistics",
            f"{p.id} moves by {kind} rail to {g.board.label(path[-1])}",
            rule="OT 11H1",
            piece=p.id,
            capacity={k: v for k, v in charges.items() if v},
        )

    @handles.check("item-river-move")
    def check_item_river_action(self, g: Game, f: Frame, action: Action) -> None:
        """OT 11H1: a logistics item moves by river."""
        check_item_river(g, f, action)

    @handles.apply("item-river-move")
    def apply_item_river(self, g: Game, f: Frame, action: Action) -> None:

        p, _sides, dest, net = check_item_river(g, f, action)
        led = rivers._ledger(g, p.side, net, write=True)
        led["used"] = Fraction(led["used"]) + units.re_size(g, p)
        g.state.move(p.id, Loc.hex(dest))
        _item_rec(f, p)["rail"] = True
        g.emit(
            "logistics",
            f"{p.id} moves by river to {g.board.label(dest)}",
            rule="OT 11H1",
            piece=p.id,
        )

    @handles.check("pick-up")
    def check_pick_up_action(self, g: Game, f: Frame, action: Action) -> None:
        """OT 11H2: a unit picks up logistics items in its hex."""
        check_pick_up(g, f, action)

    @handles.apply("pick-up")
    def apply_pick_up(self, g: Game, f: Frame, action: Action) -> None:
        c, items = check_pick_up(g, f, action)
        pick_up(g, f, c, items)

    @handles.check("drop")
    def check_drop(self, g: Game, f: Frame, action: Action) -> None:
        """OT 11H2: a unit sets down items it carries."""
        c = _carrier(g, action)
        for q in _items(g, action):
            if q.loc != Loc.inside(c.id):
                raise IllegalAction("OT 11H2", f"{c.id} is not carrying {q.id}")

    @handles.apply("drop")
    def apply_drop(self, g: Game, f: Frame, action: Action) -> None:
        self.check_drop(g, f, action)
        drop(g, _carrier(g, action), _items(g, action))

    @handles.check("eliminate-item")
    def check_eliminate(self, g: Game, f: Frame, action: Action) -> None:
        check_eliminate_item(g, f, action)

    @handles.apply("eliminate-item")
    def apply_eliminate(self, g: Game, f: Frame, action: Action) -> None:
        apply_eliminate_item(g, f, action)

    @handles.check("deactivate-depot")
    def check_deactivate_depot(self, g: Game, f: Frame, action: Action) -> None:
        check_deactivate(g, f, action)

    @handles.apply("deactivate-depot")
    def apply_deactivate_depot(self, g: Game, f: Frame, action: Action) -> None:
        apply_deactivate(g, f, action)

    def allowance_deduction(self, g: Game, p: Piece) -> Fraction:
        return cartage_deduction(g, p)

    def on_end_phase(self, g: Game, f: Frame) -> None:
        """The heaviest-load deduction of OT 11H2 lasts for the phase."""
        for p in g.state.pieces.values():
            if "cartage_mp" in p.attrs:
                now = _deduction_for(g, p, cargo(g, p))
                if now:
                    p.attrs["cartage_mp"] = now
                else:
                    del p.attrs["cartage_mp"]


@implements("OT 11H")
def check_eliminate_item(g: Game, f: Frame, action: Action) -> None:
    """OT 11H: the owner eliminates a logistics item in his movement, combat or exploitation
    phases, or reaction phases in which he reacts."""
    if not may_eliminate_items_now(g, action["side"]):
        raise IllegalAction(
            "OT 11H",
            "logistics items may be eliminated only in the owner's movement, combat or"
            " exploitation phases, or reaction phases in which he reacts",
        )
    _item(g, action, "OT 11H")


def apply_eliminate_item(g: Game, f: Frame, action: Action) -> None:
    check_eliminate_item(g, f, action)
    eliminate_item(g, _item(g, action, "OT 11H"))


@implements("OT 11C1")
def check_deactivate(g: Game, f: Frame, action: Action) -> None:
    """OT 11C1: depots are deactivated only in the owner's own phases or the reaction phases in
    which he reacts."""
    if not may_deactivate_now(g, action["side"]):
        raise IllegalAction(
            "OT 11C1",
            "depots are deactivated only in the owner's own phases or the reaction phases"
            " in which he reacts",
        )
    _depot(g, action)


def apply_deactivate(g: Game, f: Frame, action: Action) -> None:
    check_deactivate(g, f, action)
    deactivate_depot(g, _depot(g, action))
