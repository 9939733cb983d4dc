"""OT 16 and 16A: reinforcements -- the orders of battle as scenario ``[[schedule]]`` entries, the
OB activities of OT 16A1a-gg, conditional reinforcements (OT 16A2), production (OT 16B1a), and the
initial-phase steps in which they and the replacement activities of OT 16B-16C happen.

An entry becomes due in its side's first initial phase on or after its turn. Due entries join the
side's *agenda* (``gw(g)["ob"]["agenda"][side]``); each initial phase the agenda is worked through
in order: automatic activities are carried out at once, activities with a choice wait for the
owner's action in the step ``reinforcement``, and an activity that cannot happen is delayed to a
later initial phase (OT 16A) unless it is forfeited (OT 16C14, 16C9a). The format of the entries is
documented in ``docs/rulesets/greatwar.md`` ("Orders of battle").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from grognard.core.errors import IllegalAction
from grognard.core.rules import implements
from grognard.core.sequence import Action, Step, handles
from grognard.core.state import Frame, Loc, Piece
from grognard.core.state import Piece as P
from grognard.rulesets.greatwar import calendar, intelligence, listing
from grognard.rulesets.greatwar.hooks import reactions
from grognard.rulesets.greatwar.logistics import replacements
from grognard.rulesets.greatwar.logistics.replacements import EQU, MAN
from grognard.rulesets.greatwar.map import geography, terrain
from grognard.rulesets.greatwar.mechanics import gw, ip_id
from grognard.rulesets.greatwar.movement import movement, rail, stacking
from grognard.rulesets.greatwar.step import GWStep
from grognard.rulesets.greatwar.supply import supply, supply_status
from grognard.rulesets.greatwar.units import (
    breakdowns,
    leaders,
    nations,
    special_units,
    transport_units,
    units,
)
from grognard.rulesets.greatwar.units.catalogue import theater_of_command

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.greatwar.record import OBRecord

OB_KINDS = (
    "receive",
    "arrive",
    "transfer",
    "withdraw",
    "add",
    "assemble",
    "breakdown",
    "assign",
    "switch",
    "move",
    "available",
    "convert",
    "reorganize",
    "upgrade",
    "demobilize",
    "mobilize",
    "remobilize",
    "disarm",
    "disband",
    "scrap",
    "forming",
    "full",
    "release",
    "remove",
    "remove-to-awq",
    "replace",
    "sequester",
    "stand-down",
    "substitute",
    "foreign-aid",
    "historical",
    "special",
    "either",
    "combination",
    "linked",
    "conditional",
    "trigger-cr",
    "production",
)
PLACEMENT_KINDS = ("receive", "arrive", "full", "release", "mobilize", "remobilize", "replace")
OPTIONAL_KINDS = ("convert", "reorganize", "upgrade", "historical")
TRNG_REPL_VERBS = (
    "add",
    "available",
    "convert",
    "forming",
    "full",
    "mobilize",
    "remobilize",
    "receive",
    "reorganize",
    "replace",
    "upgrade",
)
RULE_OF = {
    "add": "OT 16A1a",
    "assemble": "OT 16A1b",
    "assign": "OT 16A1c",
    "available": "OT 16A1d",
    "breakdown": "OT 16A1e",
    "convert": "OT 16A1f",
    "demobilize": "OT 16A1g",
    "disarm": "OT 16A1h",
    "disband": "OT 16A1i",
    "foreign-aid": "OT 16A1k",
    "forming": "OT 16A1l",
    "full": "OT 16A1l",
    "historical": "OT 16A1m",
    "mobilize": "OT 16A1n",
    "remobilize": "OT 16A1n",
    "move": "OT 16A1o",
    "receive": "OT 16A1p",
    "release": "OT 16A1q",
    "remove": "OT 16A1r",
    "remove-to-awq": "OT 16A1s",
    "reorganize": "OT 16A1t",
    "replace": "OT 16A1u",
    "scrap": "OT 16A1v",
    "sequester": "OT 16A1w",
    "stand-down": "OT 16A1x",
    "substitute": "OT 16A1y",
    "switch": "OT 16A1z",
    "arrive": "OT 16A1aa",
    "transfer": "OT 16A1aa",
    "upgrade": "OT 16A1bb",
    "withdraw": "OT 16A1cc",
    "either": "OT 16A1dd",
    "combination": "OT 16A1ee",
    "linked": "OT 16A1ff",
    "special": "OT 16A1gg",
    "conditional": "OT 16A2",
    "trigger-cr": "OT 16A2",
    "production": "OT 16B1a",
}
NAVAL_TRANSPORT_RE = Fraction(3)


# ============================================================================ entries
def _turn_index(g: Game, turn: int | str) -> int:
    if isinstance(turn, int):
        return turn
    for k, t in enumerate(g.scenario.data.turns):
        if t.label == turn:
            return k + 1
    return 0


def _norm(g: Game, key: str, e: Any, turn: int | None = None) -> dict[str, Any]:
    if isinstance(e, dict):
        d = dict(e)
        return {
            "key": key,
            "kind": str(d.get("kind", "")),
            "pieces": list(d.get("pieces", [])),
            "at": d.get("at"),
            "params": dict(d.get("params", {})),
            "turn": turn if turn is not None else _turn_index(g, d.get("turn", 0)),
            "state": {},
        }
    return {
        "key": key,
        "kind": e.kind,
        "pieces": list(e.pieces),
        "at": e.at,
        "params": dict(e.params),
        "turn": _turn_index(g, e.turn),
        "state": {},
    }


def schedule_entries(g: Game) -> list[dict[str, Any]]:
    """The scenario's order-of-battle entries (every schedule kind but ``rail-capacity``)."""
    out = []
    for k, e in enumerate(g.scenario.data.schedule):
        if e.kind in OB_KINDS:
            out.append(_norm(g, str(k), e))
    return out


def entry_side(g: Game, e: dict[str, Any]) -> str | None:
    s = e["params"].get("side")
    if isinstance(s, str):
        return s
    for pid in e["pieces"]:
        p = g.state.pieces.get(pid)
        if p is not None:
            return p.side
    for sub in (
        *e["params"].get("steps", []),
        *e["params"].get("options", []),
        *e["params"].get("then", []),
    ):
        s2 = entry_side(g, _norm(g, "?", sub, 0))
        if s2:
            return s2
    return None


def ob(g: Game) -> OBRecord:
    st = gw(g).setdefault("ob", {})
    st.setdefault("done", {})
    st.setdefault("agenda", {})
    st.setdefault("cr", {})
    st.setdefault("activated", [])
    return st


def agenda(g: Game, side: str) -> list[dict[str, Any]]:
    return ob(g)["agenda"].setdefault(side, [])


def _finish(g: Game, item: dict[str, Any], how: str = "done") -> None:
    ob(g)["done"][item["key"]] = how
    lst = agenda(g, item["side"])
    for k, it in enumerate(lst):
        if it["key"] == item["key"]:
            del lst[k]
            break


def _add_child(
    g: Game,
    parent: dict[str, Any],
    sub: Any,
    idx: int,
    requires: Sequence[str] = (),
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    child = _norm(g, f"{parent['key']}.{idx}", sub, int(g.state.turn.get("index", 0)))
    child["side"] = parent["side"]
    child["requires"] = list(requires)
    child["parent"] = parent["key"]
    if extra:
        child.update(extra)
    agenda(g, parent["side"]).append(child)
    return child


# ======================================================================= conditional reinforcements
@implements("OT 16A2")
def cr_triggered(g: Game, side: str, number: int) -> bool:
    """OT 16A2: whether conditional reinforcement ``number`` of ``side`` has been triggered."""
    return int(number) in ob(g)["cr"].get(side, [])


def trigger_cr(g: Game, side: str, number: int, why: str = "") -> None:
    lst = ob(g)["cr"].setdefault(side, [])
    if int(number) not in lst:
        lst.append(int(number))
        g.emit(
            "cr",
            f"{side}: conditional reinforcement {number} is triggered"
            + (f" ({why})" if why else ""),
            rule="OT 16A2",
            cr=int(number),
        )


@implements("OT 16A2")
def condition_met(g: Game, side: str, when: dict[str, Any]) -> bool:
    """OT 16A2: the conditions of a conditional reinforcement: ``side_owns`` / ``enemy_owns`` (hexes
    owned by the side or its enemy), ``on_or_after`` (a turn), ``crs`` (conditional reinforcements
    already triggered). All listed conditions must hold."""
    enemy = nations.other_side(side)
    for h in when.get("side_owns", []):
        if not g.board.has_label(h) or g.state.control.get(g.board.idx(h)) != side:
            return False
    for h in when.get("enemy_owns", []):
        if not g.board.has_label(h) or g.state.control.get(g.board.idx(h)) != enemy:
            return False
    t = when.get("on_or_after")
    if t and not calendar.on_or_after(g, str(t)):
        return False
    return all(cr_triggered(g, side, int(n)) for n in when.get("crs", []))


# ============================================================================ placement
def _hexes_of_area(g: Game, name: str | None) -> list[int] | None:
    if not name:
        return None
    if name in g.board.areas:
        return [int(i) for i in g.board.areas[name].hexes]
    return None


def _edge(g: Game, i: int) -> bool:
    return len(g.board.neighbors(i)) < 6


def _rail_hexes(g: Game) -> set[int]:

    return set(rail.rail_hexes(g))


def _ports(g: Game) -> set[int]:
    return {int(i) for i, pl in g.board.points.items() if any(pt.kind == "port" for pt in pl)}


@implements("OT 16A", "OT 16A1n", "OT 16A1q", "OT 16A1aa", "OT 16C12")
def placement_options(g: Game, item: dict[str, Any], p: Piece) -> list[int]:
    """OT 16A: where a reinforcement may be placed -- friendly-owned hexes only (enemy ZOCs
    allowed):
    the hex ``at``; else the OB's ``hexes``; an arrival (OT 16A1aa) by rail on a friendly-owned rail
    hex, by sea in a friendly-owned port, overland anywhere, of the receiving command (next to the
    sending command: the ``hexes`` given, else the map edge); a mobilizing unit (OT 16A1n) anywhere
    in its district; otherwise any friendly-owned city of the ``district``, else of the
    ``command``, else of the side. OT 16C12: at most one unit a turn goes to an isolated city of a
    district while an unisolated friendly-owned city is available there. The stacking limit and
    the unit's own bans (camel zones) are respected."""

    side = item["side"]
    params = item["params"]
    kind = item["kind"]
    at = item.get("at")
    if isinstance(at, str) and g.board.has_label(at):
        cands = [g.board.idx(at)]
    elif params.get("hexes"):
        cands = [g.board.idx(h) for h in params["hexes"] if g.board.has_label(h)]
    else:
        area = _hexes_of_area(g, params.get("district")) or _hexes_of_area(g, params.get("command"))
        if kind == "arrive":
            base = _hexes_of_area(g, params.get("command")) or list(range(g.board.n))
            by = params.get("by", "rail")
            if by == "rail":
                rh = _rail_hexes(g)
                cands = [i for i in base if i in rh and _edge(g, i)]
            elif by == "sea":
                ports = _ports(g)
                cands = [i for i in base if i in ports]
            else:
                cands = [i for i in base if _edge(g, i)]
        elif kind in ("mobilize", "remobilize"):
            cands = area or []
        else:
            cands = [
                i
                for i in (area if area is not None else range(g.board.n))
                if geography.is_city(g, i)
            ]
    out = []
    for i in cands:
        if g.state.control.get(i) != side:
            continue
        if movement.entry_problem(g, p, i):
            continue

        if terrain.hex_prohibited_to_all(g, i):
            continue
        if not stacking.exempt(g, p) and stacking.stack_problem(g, i, side, extra=[p]) is not None:
            continue
        out.append(i)
    dist = params.get("district")
    if (
        dist
        and kind not in ("mobilize", "remobilize", "arrive")
        and not params.get("hexes")
        and not isinstance(at, str)
    ):
        uniso = [i for i in out if not supply_status.is_isolated(g, side, i)]
        if uniso and ob(g).get("iso_placed", {}).get(str(dist)) == ip_id(g):
            out = uniso
    return sorted(out)


@implements("OT 16C14")
def all_cities_enemy_owned(g: Game, side: str, area: str | None) -> bool:
    """OT 16C14: every city of a district, command or garrison area is enemy-owned."""
    hexes = _hexes_of_area(g, area)
    if not hexes:
        return False
    cities = [i for i in hexes if geography.is_city(g, i)]
    enemy = nations.other_side(side)
    return bool(cities) and all(g.state.control.get(i) == enemy for i in cities)


def _area_of_item(item: dict[str, Any]) -> str | None:
    p = item["params"]
    return p.get("district") or p.get("garrison_area") or p.get("command")


@implements("OT 16C9a")
def trng_repl_missing(g: Game, side: str, nation: str, command: str | None) -> bool:
    """OT 16C9: the training and replacement forces garrison affiliated with a nation and command is
    missing (released, Rule 37F4; nation attribute ``trng_repl_missing``: true or a list of
    commands, or set during play in ``gw(g)["trng_repl_missing"]``)."""
    live = gw(g).get("trng_repl_missing", {}).get(nation)
    v = (
        live
        if live is not None
        else nations.nation_attrs(g, nation).get("trng_repl_missing", False)
    )
    if isinstance(v, list):
        return command in v
    return bool(v)


@implements("OT 16C9a")
def trng_repl_check(g: Game, item: dict[str, Any]) -> bool:
    """OT 16C9a: with its training and replacement garrison missing, each add, available, convert,
    forming/full, mobilize/remobilize, receive, reorganize, replace or upgrade activity of the
    affiliated nation in the affiliated command needs a Ground Success Table roll (no modifiers):
    on a failure it is forfeited. Returns whether the activity goes ahead."""
    if item["kind"] not in TRNG_REPL_VERBS or item["state"].get("trng_checked"):
        return True
    nation = None
    for pid in item["pieces"]:
        q = g.state.pieces.get(pid)
        if q is not None:
            nation = q.nation
            break
    nation = item["params"].get("nation", nation)
    if nation is None or not trng_repl_missing(
        g, item["side"], str(nation), item["params"].get("command")
    ):
        return True
    item["state"]["trng_checked"] = True
    res = special_units.gst(
        g,
        "trng-repl",
        f"{item['kind']} ({item['key']}) with the training garrison missing",
        "OT 16C9a",
    )
    if res.startswith("S"):
        return True
    g.emit(
        "reinforcement",
        f"the {item['kind']} activity {item['key']} is forfeited ({res})",
        rule="OT 16C9a",
    )
    return False


# ============================================================================ the activities
def _pieces(g: Game, item: dict[str, Any]) -> list[Piece]:
    return [g.state.pieces[pid] for pid in item["pieces"] if pid in g.state.pieces]


def _box(item: dict[str, Any], default: str) -> str:
    at = item.get("at")
    return str(at) if isinstance(at, str) and at else default


def _off_map(g: Game, p: Piece) -> bool:
    return g.state.where(p.id).kind != "hex"


def _out(g: Game, p: Piece, rule: str, why: str) -> None:
    replacements.to_out_of_play(g, p, rule, why)


@implements("OT 16A1cc")
def withdraw_problem(g: Game, p: Piece) -> str | None:
    """OT 16A1cc: an isolated unit may not be withdrawn."""
    h = units.hex_of(g, p)
    if h is not None and supply_status.is_isolated(g, p.side, h):
        return f"{p.id} is isolated and may not be withdrawn (OT 16A1cc)"
    if g.state.where(p.id) == Loc.box(replacements.OUT_OF_PLAY):
        return f"{p.id} is out of play"
    return None


@implements("OT 16A1cc")
def withdraw(
    g: Game, p: Piece, rule: str, why: str = "withdrawn", to_box: str | None = None
) -> None:
    """OT 16A1cc: a withdrawn unit leaves play (or goes to a box: assign, demobilize); from a
    replacement pool its owner forfeits its replacement cost (a deficit if he is short)."""
    if replacements.in_pool(g, p):
        cost = replacements.replacement_strength(g, p, isolated=False)
        c = replacements.contingent_of(g, p)
        replacements.pay_points(
            g,
            p.side,
            str(p.attrs["pool"]),
            {c: cost[MAN]} if cost[MAN] else {},
            cost[EQU],
            rule="OT 16A1cc",
            why=f"withdrawing {p.id} from the pool",
            allow_deficit=True,
        )
    if to_box is None:
        _out(g, p, rule, why)
    else:
        for k in ("pool", "pool_isolated", "set_aside"):
            p.attrs.pop(k, None)
        g.state.move(p.id, Loc.box(to_box))
        g.emit("reinforcement", f"{p.id} goes to {to_box} ({why})", rule=rule, piece=p.id)


def _match(g: Game, p: Piece, m: dict[str, Any]) -> bool:
    if (
        "nation" in m
        and p.nation != m["nation"]
        and nations.rulebook_name(g, p.nation) != m["nation"]
    ):
        return False
    if "contingent" in m and replacements.contingent_of(g, p) != m["contingent"]:
        return False
    if "type" in m and units.utype(p).id != units.catalogue().resolve(str(m["type"])).id:
        return False
    if "size" in m and units.size_of(p) != m["size"]:
        return False
    for k in ("attack", "defense", "move"):
        if k in m and str(units.printed(p, k)) != str(
            Fraction(str(m[k])) if k != "move" or str(m[k]) not in "RW" else m[k]
        ):
            return False
    return True


def withdraw_candidates(g: Game, item: dict[str, Any]) -> list[tuple[str, Piece, bool]]:
    """OT 16A1cc: the units that may satisfy a withdrawal: the listed pieces, or any unit of the
    ``match`` (nationality, contingent, size, type, strength) on the map, in a box or in a pool --
    not isolated. ``cadre = true`` also allows a full-strength unit whose cadre matches (its owner
    then gets the rebuild cost). Returns (action key, piece, full_for_cadre)."""
    side = item["side"]
    out: list[tuple[str, Piece, bool]] = []
    if item["pieces"]:
        for p in _pieces(g, item):
            if withdraw_problem(g, p) is None:
                out.append((p.id, p, False))
        return out
    m = dict(item["params"].get("match", {}))
    for p in sorted(g.state.pieces.values(), key=lambda q: q.id):
        if p.side != side or not units.is_unit(p) or withdraw_problem(g, p) is not None:
            continue
        if g.state.where(p.id) == Loc.box(units.ELIMINATED_BOX) and not replacements.in_pool(g, p):
            continue
        if _match(g, p, m):
            out.append((p.id, p, False))
        elif (
            item["params"].get("cadre")
            and replacements.reduced_face(p)
            and p.face != replacements.reduced_face(p)
        ):
            keep = p.face
            p.face = str(replacements.reduced_face(p))
            try:
                ok = _match(g, p, m)
            finally:
                p.face = keep
            if ok:
                out.append((p.id, p, True))
    return out


def _transfer_capacity(g: Game, item: dict[str, Any], movers: list[Piece]) -> None:
    """OT 16A1aa: a mandatory transfer by rail or sea uses the sending command's rail capacity (with
    Res Pts spent for temporary increases, OT 7A5a, if that is needed and possible) or its naval
    transports (those listed as moving with it first); any shortfall beyond the player's means is
    supplied from outside."""

    side = item["side"]
    by = item["params"].get("by", "rail")
    need = Fraction(
        str(
            item["params"].get(
                "re",
                sum(
                    (units.transport_re(g, p, "rail" if by == "rail" else "naval") for p in movers),
                    Fraction(0),
                ),
            )
        )
    )
    if by == "rail":
        net = item["params"].get("net")
        if not net:
            return
        avail = rail.available(g, side, str(net))
        if avail is None:
            return
        while avail < need:
            ys = set(rail.connected_unisolated_yards(g, side, str(net)))
            res = [
                q
                for q in sorted(g.state.pieces.values(), key=lambda q: q.id)
                if q.side == side and units.utype(q).id == "res-pt" and units.hex_of(g, q) in ys
            ]
            if not res:
                break
            try:
                rail.apply_boost(
                    g, {"type": "rail-boost", "side": side, "net": str(net), "res_pts": [res[0].id]}
                )
            except IllegalAction:
                break
            avail = rail.available(g, side, str(net)) or Fraction(0)
        use = min(need, avail)
        led = rail.ledger(g, str(net), side)
        led["used"] = Fraction(led["used"]) + use
        short = need - use
        g.emit(
            "transfer",
            f"{side} uses {use} RE of rail capacity on {net} for the transfer"
            + (f"; {short} RE come from outside" if short else ""),
            rule="OT 16A1aa",
        )
    elif by == "sea":
        listed = Fraction(len(item["params"].get("transports", []))) * NAVAL_TRANSPORT_RE
        need = max(Fraction(0), need - listed)
        cmd = item["params"].get("from")
        hexes = set(replacements.command_hexes(g, str(cmd))) if cmd else set(range(g.board.n))
        own = [
            q
            for q in sorted(g.state.pieces.values(), key=lambda q: q.id)
            if q.side == side
            and units.utype(q).id == "naval-transport"
            and q.id not in item["params"].get("transports", [])
            and units.hex_of(g, q) in hexes
        ]
        used = []
        for q in own:
            if need <= 0:
                break
            used.append(q.id)
            q.attrs["allocated_turn"] = int(g.state.turn.get("index", 0))
            need -= NAVAL_TRANSPORT_RE
        g.emit(
            "transfer",
            f"{side} allocates naval transports {', '.join(used) or 'none'} to the transfer"
            + (f"; {max(need, Fraction(0))} RE of shipping come from outside" if need > 0 else ""),
            rule="OT 16A1aa",
            transports=used,
        )


def _arrival_mark(g: Game, item: dict[str, Any], rail_kind: str | None) -> str | None:
    """OT 16A1aa: how an arriving unit is marked for its next friendly movement phase."""
    if item["kind"] != "arrive":
        return None
    by = item["params"].get("by", "rail")
    from_cmd = item["params"].get("from")
    to_cmd = item["params"].get("command")

    same = bool(
        from_cmd
        and to_cmd
        and theater_of_command(str(from_cmd)) is not None
        and theater_of_command(str(from_cmd)) == theater_of_command(str(to_cmd))
    )
    if "same_theater" in item["params"]:
        same = bool(item["params"]["same_theater"])
    if by == "rail":
        if same and rail_kind == "operational":
            return "half-mp"
        return "strategic-100"
    if by == "sea":
        return "half-mp" if same else "no-mp"
    return "no-mp"


def _rail_choice_needed(item: dict[str, Any]) -> bool:
    if item["kind"] != "arrive" or item["params"].get("by", "rail") != "rail":
        return False

    if "same_theater" in item["params"]:
        return bool(item["params"]["same_theater"])
    a, b = item["params"].get("from"), item["params"].get("command")
    return bool(
        a
        and b
        and theater_of_command(str(a)) is not None
        and theater_of_command(str(a)) == theater_of_command(str(b))
    )


def _pending_placements(g: Game, item: dict[str, Any]) -> list[Piece]:
    done = set(item["state"].get("placed", []))
    return [p for p in _pieces(g, item) if p.id not in done]


@implements("OT 16A1p", "OT 16A1l", "OT 16A1q", "OT 16A1n")
def _place(g: Game, item: dict[str, Any], p: Piece, i: int, rail_kind: str | None) -> None:
    """OT 16A1p: Receive -- the unit enters as a reinforcement in the chosen hex (OT 16A1l: a
    ``full`` unit from its forming box; OT 16A1q: a ``release``d one from its garrison; OT 16A1n: a
    mobilizing one anywhere in its district), with the marks of an arrival (OT 16A1aa)."""
    rule = RULE_OF.get(item["kind"], "OT 16A")
    if item["kind"] in ("full", "mobilize", "remobilize", "release"):
        p.attrs.pop("forming", None)
        p.attrs.pop("garrison", None)
    if item["kind"] == "release" and "sequestered" in p.status:
        p.status.discard("sequestered")
    replacements.receive_piece(g, p, i, rule, f"{item['kind']} ({item['key']})")
    mark = _arrival_mark(g, item, rail_kind)
    if mark:
        gw(g).setdefault("arrivals", {})[p.id] = {"mark": mark, "side": p.side}
        g.emit(
            "arrival",
            f"{p.id} arrived by {item['params'].get('by', 'rail')}: {mark} in the next movement"
            " phase",
            rule="OT 16A1aa",
            piece=p.id,
            mark=mark,
        )
    dist = item["params"].get("district")
    if dist and supply_status.is_isolated(g, item["side"], i):
        ob(g).setdefault("iso_placed", {})[str(dist)] = ip_id(g)
    item["state"].setdefault("placed", []).append(p.id)


@implements("OT 16A", "OT 16A1ee", "OT 16A1gg", "OT 16A1dd", "OT 16A2", "OT 16C14")
def run_item(g: Game, item: dict[str, Any]) -> str:
    """Carry out what can be done of an agenda item now. Returns ``done``, ``task`` (the owner must
    act), ``optional`` (the owner may act) or ``wait`` (delayed to a later initial phase: OT 16A).
    A reinforcement whose district or command has every city enemy-owned is forfeited (OT 16C14).
    OT 16A1ee: a combination runs its activities in the order listed; OT 16A1gg: a special entry
    announces its instructions and carries out the activities given; OT 16A1dd: the owner chooses
    one of two activities; OT 16A2: a conditional entry is received in the first initial phase its
    conditions hold."""
    kind = item["kind"]
    side = item["side"]
    params = item["params"]
    rule = RULE_OF.get(kind, "OT 16A")
    if not trng_repl_check(g, item):
        for p in _pieces(g, item):
            if _off_map(g, p) and not replacements.in_pool(g, p):
                _out(g, p, "OT 16C9a", "forfeited")
        _finish(g, item, "forfeited")
        return "done"
    if kind in PLACEMENT_KINDS:
        if kind == "replace" and not item["state"].get("resolved"):
            return _run_replace(g, item)
        area = _area_of_item(item)
        if (
            kind != "arrive"
            and not item.get("at")
            and not params.get("hexes")
            and all_cities_enemy_owned(g, side, area)
        ):
            for p in _pending_placements(g, item):
                _out(g, p, "OT 16C14", f"every city of {area} is enemy-owned: forfeited")
            _finish(g, item, "forfeited")
            return "done"
        if kind == "mobilize" or kind == "remobilize":
            for p in list(_pending_placements(g, item)):
                red = replacements.reduced_face(p)
                if g.state.where(p.id).kind == "hex" and red and p.face == red:
                    h = units.hex_of(g, p)
                    assert h is not None
                    if replacements.regular_supply(g, side, h):
                        p.face = replacements.full_face(p)
                        g.emit(
                            "reinforcement",
                            f"{p.id} mobilizes to full strength",
                            rule="OT 16A1n",
                            piece=p.id,
                        )
                    else:
                        cost = replacements.rebuild_cost(g, p)
                        replacements.add_points(
                            g,
                            side,
                            replacements.command_of(g, h),
                            {replacements.contingent_of(g, p): cost[MAN]},
                            cost[EQU],
                            rule="OT 16A1n",
                            why=f"{p.id} mobilizes out of supply",
                        )
                    item["state"].setdefault("placed", []).append(p.id)
        pend = _pending_placements(g, item)
        if not pend:
            _finish(g, item)
            return "done"
        if isinstance(item.get("at"), str) and item["at"] in g.board.boxes:
            for p in pend:
                g.state.move(p.id, Loc.box(item["at"]))
                item["state"].setdefault("placed", []).append(p.id)
            _finish(g, item)
            return "done"
        if (
            isinstance(item.get("at"), str)
            and g.board.has_label(item["at"])
            and not _rail_choice_needed(item)
        ):
            for p in pend:
                if placement_options(g, item, p):
                    _place(g, item, p, g.board.idx(item["at"]), None)
            if not _pending_placements(g, item):
                _finish(g, item)
                return "done"
            g.emit(
                "reinforcement",
                f"{item['kind']} {item['key']} of {side} is delayed: {item['at']} cannot take"
                " it now",
                rule="OT 16A",
            )
            return "wait"
        if any(placement_options(g, item, p) for p in pend):
            return "task"
        g.emit(
            "reinforcement",
            f"{item['kind']} {item['key']} of {side} is delayed: no legal hex",
            rule="OT 16A",
        )
        return "wait"
    if kind in ("withdraw", "assign", "demobilize", "transfer"):
        if kind == "transfer":
            to = params.get("to")
            if (
                to
                and replacements.controls_command(g, side, str(to))
                and nations.controlled_commands(g, side) is not None
            ):
                g.emit(
                    "transfer",
                    f"{item['key']}: a transfer between commands {side} controls is ignored",
                    rule="OT 16A1aa",
                )
                _finish(g, item, "ignored")
                return "done"
        cands = withdraw_candidates(g, item)
        if item["pieces"]:
            need = [
                p
                for p in _pieces(g, item)
                if g.state.where(p.id) != Loc.box(replacements.OUT_OF_PLAY)
            ]
            if any(withdraw_problem(g, p) for p in need):
                return "wait"
            if kind == "transfer":
                _transfer_capacity(g, item, need)
            for p in need:
                _do_withdraw(g, item, p, False)
            _finish(g, item)
            return "done"
        if not cands:
            g.emit(
                "reinforcement",
                f"{item['kind']} {item['key']}: no matching unit can be withdrawn yet; deferred",
                rule="OT 16A1cc",
            )
            return "wait"
        return "task"
    if kind in OPTIONAL_KINDS:
        if kind == "historical" and not params.get("then"):
            g.emit(
                "historical",
                str(params.get("text", f"historical note {item['key']}")),
                rule="OT 16A1m",
            )
            _finish(g, item)
            return "done"
        return "optional"
    if kind == "either":
        return "task"
    if kind == "linked":
        return _run_linked(g, item)
    if kind == "combination":
        if not item["state"].get("spawned"):
            item["state"]["spawned"] = True
            prev: list[str] = []
            for k, sub in enumerate(params.get("steps", [])):
                c = _add_child(g, item, sub, k, prev)
                prev = [c["key"]]
            item["state"]["children"] = [
                f"{item['key']}.{k}" for k in range(len(params.get("steps", [])))
            ]
        if all(k in ob(g)["done"] for k in item["state"]["children"]):
            _finish(g, item)
            return "done"
        return "wait"
    if kind == "conditional":
        if condition_met(g, side, params.get("when", {})):
            if params.get("cr") is not None:
                trigger_cr(g, side, int(params["cr"]), "its conditions are met")
            for k, sub in enumerate(params.get("then", [])):
                _add_child(g, item, sub, k)
            _finish(g, item)
            return "done"
        return "wait"
    if kind == "special":
        g.emit(
            "special",
            str(params.get("text", f"special OB instruction {item['key']}")),
            rule="OT 16A1gg",
        )
        for k, sub in enumerate(params.get("then", [])):
            _add_child(g, item, sub, k)
        _finish(g, item)
        return "done"
    return _run_automatic(g, item, rule)


@implements("OT 16A1c", "OT 16A1g", "OT 16A1cc")
def _do_withdraw(g: Game, item: dict[str, Any], p: Piece, full_for_cadre: bool) -> None:
    """OT 16A1cc: Withdraw (the cadre's full-strength unit instead: its rebuild cost is received,
    usable from the next initial phase, OT 16C13); OT 16A1c: Assign -- withdraw, then into the
    garrison box ``at``; OT 16A1g: Demobilize -- withdraw, then into the district's demobilized
    box."""
    kind = item["kind"]
    rule = RULE_OF[kind]
    if full_for_cadre:
        cost = replacements.rebuild_cost(g, p, replacements.reduced_face(p))
        h = units.hex_of(g, p)
        cmd = (
            replacements.command_of(g, h)
            if h is not None
            else str(item["params"].get("command", replacements.NO_COMMAND))
        )
        replacements.add_points(
            g,
            p.side,
            cmd,
            {replacements.contingent_of(g, p): cost[MAN]},
            cost[EQU],
            rule="OT 16A1cc",
            why=f"{p.id} withdrawn at full strength instead of its cadre",
            locked=True,
        )
    if kind == "withdraw" or kind == "transfer":
        withdraw(
            g,
            p,
            rule,
            "transferred to a command not controlled" if kind == "transfer" else "withdrawn",
        )
    elif kind == "assign":
        withdraw(g, p, rule, "assigned to a garrison", to_box=_box(item, "garrison"))
    elif kind == "demobilize":
        withdraw(
            g,
            p,
            rule,
            "demobilized",
            to_box=_box(item, f"demobilized:{item['params'].get('district', '')}"),
        )


@implements("OT 16A1u")
def _run_replace(g: Game, item: dict[str, Any]) -> str:
    """OT 16A1u: a free replacement -- the unit is taken from the command's replacement pool and
    received as a reinforcement; if no such unit is there, its replacement cost is received in
    points instead."""
    side = item["side"]
    cmd = str(item["params"].get("command", replacements.NO_COMMAND))
    found = []
    for p in _pieces(g, item):
        if replacements.in_pool(g, p, side):
            found.append(p.id)
        else:
            cost = replacements.replacement_strength(
                g, p, replacements.full_face(p), isolated=False
            )
            replacements.add_points(
                g,
                side,
                cmd,
                {replacements.contingent_of(g, p): cost[MAN]},
                cost[EQU],
                rule="OT 16A1u",
                why=f"{p.id} is not in the pool",
            )
    item["pieces"] = found
    item["state"]["resolved"] = True
    if (
        "district" not in item["params"]
        and "hexes" not in item["params"]
        and "command" not in item["params"]
    ):
        item["params"]["command"] = cmd
    return run_item(g, item)


def _run_linked(g: Game, item: dict[str, Any]) -> str:
    """OT 16A1ff: numbered steps in order; lettered sub-steps of one number in any order, all done
    before the next number starts."""
    if not item["state"].get("spawned"):
        item["state"]["spawned"] = True
        item["state"]["labels"] = {}
        for k, sub in enumerate(item["params"].get("steps", [])):
            label = str(sub.get("label", str(k + 1)))
            num = int("".join(ch for ch in label if ch.isdigit()) or 0)
            item["state"]["labels"][label] = {"index": k, "number": num}
    labels = item["state"]["labels"]
    done = set(item["state"].get("finished", []))
    if len(done) == len(labels):
        _finish(g, item)
        return "done"
    return "optional"


def linked_available(item: dict[str, Any], g: Game) -> list[str]:
    """OT 16A1ff: the labels that may be carried out now (the lowest unfinished number)."""
    labels = item["state"].get("labels", {})
    done = set(item["state"].get("finished", []))
    started = set(item["state"].get("started", []))
    open_nums = [v["number"] for k, v in labels.items() if k not in done]
    if not open_nums:
        return []
    low = min(open_nums)
    return sorted(
        k for k, v in labels.items() if v["number"] == low and k not in done and k not in started
    )


def _run_automatic(g: Game, item: dict[str, Any], rule: str) -> str:
    """Carry out an activity that needs no choice (``AUTOMATIC``); returns ``done`` or ``wait``."""
    fn = AUTOMATIC[item["kind"]]
    res = fn(g, item)
    if res == "wait":
        return "wait"
    if item["kind"] == "production" and item["state"].get("res_todo"):
        return "task"
    _finish(g, item)
    return "done"


@implements("OT 16A1a")
def verb_add(g: Game, item: dict[str, Any]) -> str | None:
    """OT 16A1a: Add -- a new unit goes to the named leader pool, breakdown box or replacement pool
    (the box ``at``; a ``pool...`` box or none: the ``command``'s replacement pool), or Man/Equ Pts
    (``man``, ``equ``) go to the command's general pool."""
    params = item["params"]
    side = item["side"]
    cmd = str(params.get("command", replacements.NO_COMMAND))
    if params.get("man") or params.get("equ"):
        man = {str(c): Fraction(str(v)) for c, v in dict(params.get("man", {})).items()}
        replacements.add_points(
            g,
            side,
            cmd,
            man,
            Fraction(str(params.get("equ", 0))),
            rule="OT 16A1a",
            why=f"OB {item['key']}",
        )
    for p in _pieces(g, item):
        box = _box(item, f"pool:{cmd}")
        if box.startswith("pool") or box == units.ELIMINATED_BOX:
            p.attrs["pool"] = cmd
            g.state.move(p.id, Loc.box(units.ELIMINATED_BOX))
        else:
            g.state.move(p.id, Loc.box(box))
        g.emit("reinforcement", f"{p.id} is added to {box}", rule="OT 16A1a", piece=p.id)
    return None


@implements("OT 16A1z", "OT 16A1o")
def verb_switch(g: Game, item: dict[str, Any]) -> str | None:
    """OT 16A1z: Switch -- the unit leaves one garrison for another (box ``at``). OT 16A1o: Move --
    released from the first garrison, moved by the quickest means to the second one's area and
    assigned to it (for an off-map garrison the move is the change of box)."""
    rule = RULE_OF[item["kind"]]
    for p in _pieces(g, item):
        if item["kind"] == "move":
            p.status.discard("sequestered")
        g.state.move(p.id, Loc.box(_box(item, "garrison")))
        g.emit("reinforcement", f"{p.id} moves to {_box(item, 'garrison')}", rule=rule, piece=p.id)
    return None


@implements("OT 16A1d")
def verb_available(g: Game, item: dict[str, Any]) -> str | None:
    """OT 16A1d: Available -- the unit may now be used for assembly/breakdown, reorganization or a
    call-up (attribute ``available``)."""
    for p in _pieces(g, item):
        p.attrs["available"] = str(item["params"].get("for", "assembly"))
        g.emit(
            "reinforcement",
            f"{p.id} is available for {p.attrs['available']}",
            rule="OT 16A1d",
            piece=p.id,
        )
    return None


@implements("OT 16A1w")
def verb_sequester(g: Game, item: dict[str, Any]) -> str | None:
    """OT 16A1w: Sequester -- the garrison units are held apart (status ``sequestered``), to be
    released only as their conditional reinforcement allows (OT 37F)."""
    for p in _pieces(g, item):
        p.status.add("sequestered")
        g.emit(
            "reinforcement", f"{p.id} is sequestered in its garrison", rule="OT 16A1w", piece=p.id
        )
    return None


@implements("OT 16A1x")
def verb_stand_down(g: Game, item: dict[str, Any]) -> str | None:
    """OT 16A1x: Stand Down -- from wherever it is (map, box or pool, isolated or not) the unit goes
    to the "available for call up" box; nothing is forfeited for a pool unit."""
    for p in _pieces(g, item):
        for k in ("pool", "pool_isolated", "set_aside"):
            p.attrs.pop(k, None)
        g.state.move(p.id, Loc.box(_box(item, f"call-up:{item['side']}")))
        g.emit("reinforcement", f"{p.id} stands down", rule="OT 16A1x", piece=p.id)
    return None


@implements("OT 16A1y")
def verb_substitute(g: Game, item: dict[str, Any]) -> str | None:
    """OT 16A1y: Substitute -- the unit is exchanged, wherever it is, for the new one (``into``);
    the
    old unit is out of play."""
    into = [g.state.pieces[x] for x in item["params"].get("into", []) if x in g.state.pieces]
    for old, new in zip(_pieces(g, item), into, strict=False):
        loc = old.loc
        for k in ("pool", "pool_isolated", "set_aside"):
            if k in old.attrs:
                new.attrs[k] = old.attrs[k]
        _out(g, old, "OT 16A1y", f"replaced by {new.id}")
        g.state.move(new.id, loc)
        g.emit(
            "reinforcement", f"{new.id} takes the place of {old.id}", rule="OT 16A1y", piece=new.id
        )
    return None


@implements("OT 16A1r")
def verb_remove(g: Game, item: dict[str, Any]) -> str | None:
    """OT 16A1r: Remove from -- the unit leaves the leader pool, breakdown box or replacement pool,
    out of play."""
    for p in _pieces(g, item):
        _out(g, p, "OT 16A1r", "removed by the OB")
    return None


@implements("OT 16A1s")
def verb_remove_to_awq(g: Game, item: dict[str, Any]) -> str | None:
    """OT 16A1s: Remove to the African Winter Quarters box -- from the map to the command's AWQ box
    (``at``); a unit in the replacement pool stays there and goes to the box when it is replaced."""
    cmd = str(item["params"].get("command", replacements.NO_COMMAND))
    for p in _pieces(g, item):
        if replacements.in_pool(g, p):
            p.attrs["awq_pending"] = True
            p.attrs["awq_box"] = _box(item, f"awq:{cmd}")
            g.emit(
                "reinforcement",
                f"{p.id} will go to the African Winter Quarters box when replaced",
                rule="OT 16A1s",
                piece=p.id,
            )
        else:
            g.state.move(p.id, Loc.box(_box(item, f"awq:{cmd}")))
            g.emit(
                "reinforcement",
                f"{p.id} goes to the African Winter Quarters box",
                rule="OT 16A1s",
                piece=p.id,
            )
    return None


@implements("OT 16A1l")
def verb_forming(g: Game, item: dict[str, Any]) -> str | None:
    """OT 16A1l: Forming -- the unit goes to the forming box of its district or garrison (``at``);
    the later ``full`` entry receives it there as a reinforcement at full strength."""
    params = item["params"]
    cmd = str(params.get("command", replacements.NO_COMMAND))
    for p in _pieces(g, item):
        p.attrs["forming"] = {
            "turn": int(g.state.turn.get("index", 0)),
            "district": params.get("district"),
            "command": params.get("command"),
        }
        g.state.move(p.id, Loc.box(_box(item, f"forming:{params.get('district', cmd)}")))
        g.emit("reinforcement", f"{p.id} begins forming", rule="OT 16A1l", piece=p.id)
    return None


def verb_disarm(g: Game, item: dict[str, Any]) -> str | None:
    for p in _pieces(g, item):
        _disarm(g, p)
    return None


def verb_disband(g: Game, item: dict[str, Any]) -> str | None:
    for p in _pieces(g, item):
        replacements.disband(g, p, str(item["params"].get("to", "pool")))
    return None


def verb_scrap(g: Game, item: dict[str, Any]) -> str | None:
    """OT 16A1v: nothing happens until the unit is in the replacement pool."""
    ps = _pieces(g, item)
    if any(not replacements.in_pool(g, p) for p in ps):
        return "wait"
    for p in ps:
        replacements.scrap(g, p)
    return None


def verb_trigger(g: Game, item: dict[str, Any]) -> str | None:
    trigger_cr(
        g, item["side"], int(item["params"].get("cr", 0)), str(item["params"].get("text", ""))
    )
    return None


def verb_production(g: Game, item: dict[str, Any]) -> str | None:
    produce(g, item)
    return None


def verb_foreign_aid(g: Game, item: dict[str, Any]) -> str | None:
    _mandatory_aid(g, item)
    return None


@implements("OT 16A1b", "OT 16A1e")
def verb_assemble(g: Game, item: dict[str, Any]) -> str | None:
    """OT 16A1b: Assemble -- the named components assemble into the larger unit (OT 15F); OT 16A1e:
    Breakdown -- the unit breaks down into its components. Delayed while impossible."""

    params = item["params"]
    kind = item["kind"]
    rule = RULE_OF[kind]
    parent = g.state.pieces.get(str(params.get("parent")))
    comps = [g.state.pieces[x] for x in params.get("components", []) if x in g.state.pieces]
    if parent is None or not comps:
        return None
    why = (
        breakdowns.assemble_problem(g, parent, comps)
        if kind == "assemble"
        else breakdowns.breakdown_problem(g, parent, comps, ob=True)
    )
    if why:
        g.emit("reinforcement", f"{item['key']}: {why}; delayed", rule=rule)
        return "wait"
    if kind == "assemble":
        breakdowns.assemble(g, parent, comps, rule)
    else:
        breakdowns.breakdown(g, parent, comps, rule)
    return None


AUTOMATIC: dict[str, Any] = {
    "add": verb_add,
    "switch": verb_switch,
    "move": verb_switch,
    "available": verb_available,
    "sequester": verb_sequester,
    "stand-down": verb_stand_down,
    "substitute": verb_substitute,
    "remove": verb_remove,
    "remove-to-awq": verb_remove_to_awq,
    "forming": verb_forming,
    "disarm": verb_disarm,
    "disband": verb_disband,
    "scrap": verb_scrap,
    "trigger-cr": verb_trigger,
    "production": verb_production,
    "foreign-aid": verb_foreign_aid,
    "assemble": verb_assemble,
    "breakdown": verb_assemble,
}


@implements("OT 16A1h")
def _disarm(g: Game, p: Piece) -> None:
    """OT 16A1h: a unit disarmed on the map gives its special replacement value (OT 16B4) halved,
    rounded down to the nearest 1/2 (divided once, interpretation default), into its command's pool
    or its hex -- into the hex if it is isolated; from a pool it gives nothing. It is out of play.
    """
    h = units.hex_of(g, p)
    if h is None:
        _out(g, p, "OT 16A1h", "disarmed")
        return
    side = p.side
    cost = replacements.replacement_strength(g, p, isolated=False)
    nation = nations.rulebook_name(g, p.nation)
    c = replacements.contingent_of(g, p)
    man = replacements.half_down(cost[MAN] / replacements.special_divisor(nation, c) / 2)
    equ = replacements.half_down(cost[EQU] / 4 / 2)
    iso = supply_status.is_isolated(g, side, h)
    _out(g, p, "OT 16A1h", "disarmed")
    if iso:
        replacements.place_points(
            g, side, h, MAN, man, c, p.nation, rule="OT 16A1h", why="disarmed"
        )
        replacements.place_points(g, side, h, EQU, equ, rule="OT 16A1h", why="disarmed")
    else:
        replacements.add_points(
            g,
            side,
            replacements.command_of(g, h),
            {c: man},
            equ,
            rule="OT 16A1h",
            why=f"disarming {p.id}",
            locked=True,
        )


@implements("OT 16A1k")
def _mandatory_aid(g: Game, item: dict[str, Any]) -> None:
    """OT 16A1k: foreign aid the OB lists to a command the player does not control is mandatory:
    the Equ Pts leave his general pool (a deficit if short) and Res Pts his on-map Res Pts."""
    side = item["side"]
    params = item["params"]
    cmd = str(params.get("command", replacements.NO_COMMAND))
    nation = str(params.get("nation", "?"))
    equ = Fraction(str(params.get("equ", 0)))
    if equ:
        replacements.pay_points(
            g, side, cmd, {}, equ, rule="OT 16A1k", why=f"foreign aid to {nation}"
        )
    res = int(params.get("res", 0))
    rp = [
        q
        for q in sorted(g.state.pieces.values(), key=lambda q: q.id)
        if q.side == side and units.utype(q).id == "res-pt" and units.hex_of(g, q) is not None
    ]
    for q in rp[:res]:
        g.state.move(q.id, Loc.box(f"aid:{nation}"))
    aid = gw(g).setdefault("aid", {}).setdefault(nation, {})
    aid["equ-pt"] = Fraction(aid.get("equ-pt", 0)) + equ
    aid["res-pt"] = Fraction(aid.get("res-pt", 0)) + min(res, len(rp))
    g.emit(
        "foreign-aid",
        f"{side} sends {equ} Equ Pts and {min(res, len(rp))} Res Pts to {nation} as the OB"
        " requires",
        rule="OT 16A1k",
    )


# ============================================================================ production (OT 16B1a)
@implements("OT 16B1a", "OT 16B1a-i", "OT 16B1a-ii", "OT 16B1a-iii", "OT 16C9b")
def produce(g: Game, item: dict[str, Any]) -> None:
    """OT 16B1a: production is received on the I turn of each production cycle (Jan, Mar, May, Jul,
    Sep, Nov; or the turn track's ``production`` attribute), in the owner's initial phase.
    (i) Man Pts by contingent per the Manpower Production Charts (the entry's ``man``), halved for a
    nation whose training and replacement garrison is missing (OT 16C9b), into the command's general
    pool (the owner may move them onto the map by the transfers of OT 16B3). (ii) Basic rule: Equ
    Pts
    per the Historical Production Table (``equ``) into the pool, Res Pts (``res``) placed as Res Pt
    markers at friendly-owned cities in regular general supply of the command (the owner chooses).
    (iii) Advanced rule (option ``advanced-production``): Equ and Res Pts come only from the
    ``factories`` listed (hex -> {equ, res}) that are friendly-owned and in production."""
    side = item["side"]
    params = item["params"]
    cmd = str(params.get("command", replacements.NO_COMMAND))
    if item["state"].get("produced"):
        return
    item["state"]["produced"] = True
    if not calendar.is_production_cycle(g):
        g.emit(
            "production",
            f"{item['key']}: {g.turn_label()} is not a production turn; nothing is received",
            rule="OT 16B1a",
        )
        return
    man = {}
    for c, v in dict(params.get("man", {})).items():
        amount = Fraction(str(v))
        nation = str(params.get("nation", c))
        if trng_repl_missing(g, side, nation, cmd):
            amount = replacements.half_down(amount / 2)
            g.emit(
                "production",
                f"{c} Man Pts halved: its training and replacement garrison is missing",
                rule="OT 16C9b",
            )
        man[str(c)] = amount
    equ = Fraction(str(params.get("equ", 0)))
    res = int(params.get("res", 0))
    if g.opt("advanced-production"):
        equ = Fraction(0)
        res = 0
        for h, d in sorted(dict(params.get("factories", {})).items()):
            if not g.board.has_label(h):
                continue
            i = g.board.idx(h)
            fac = [pt for pt in g.board.points_at(i) if pt.kind == "factory"]
            if g.state.control.get(i) == side and fac and fac[0].attrs.get("in_production", True):
                equ += Fraction(str(d.get("equ", 0)))
                res += int(d.get("res", 0))
        g.emit(
            "production",
            f"{side} factories in {cmd} produce {equ} Equ Pts and {res} Res Pts",
            rule="OT 16B1a-iii",
        )
    replacements.add_points(g, side, cmd, man, equ, rule="OT 16B1a", why="production")
    if res:
        item["state"]["res_todo"] = res


def res_cities(g: Game, item: dict[str, Any]) -> list[int]:
    cmd = str(item["params"].get("command", replacements.NO_COMMAND))
    return replacements.friendly_cities(
        g, item["side"], replacements.command_hexes(g, cmd), supplied=True
    )


def place_res_pt(g: Game, item: dict[str, Any], i: int) -> None:

    side = item["side"]
    pid = replacements._new_id(g, "res")
    q = P(pid, "res-pt", side, replacements._nation_of_side(g, side), faces={"front": {}}, attrs={})
    g.state.add_piece(q)
    g.state.move(pid, Loc.hex(i))
    item["state"]["res_todo"] = int(item["state"]["res_todo"]) - 1
    g.emit(
        "production",
        f"{side} places Res Pt {pid} in {g.board.label(i)}",
        rule="OT 16B1a-ii",
        piece=pid,
    )
    if item["state"]["res_todo"] <= 0:
        _finish(g, item)


# ======================================================================= conversions (16A1f, t, bb)
@implements("OT 16A1f", "OT 16A1t", "OT 16A1bb", "OT 16A1j")
def convert_problem(g: Game, item: dict[str, Any]) -> str | None:
    """OT 16A1f: a conversion may be made in any of the owner's initial phases on or after its turn,
    by units in regular general supply and not in an enemy ZOC, several converting units stacked
    together or in one garrison box. OT 16A1t: a reorganization costs (or gives) the Man/Equ Pts of
    the OB, paid from the command's pool or points in the units' hex. OT 16A1bb: an upgrade also
    needs a supply line to an operational friendly-owned factory of the nation's home district
    (``factories``); without one the augment cost is received at such a factory, or forfeited."""
    side = item["side"]
    ps = _pieces(g, item)
    if not ps:
        return "none of the converting units is in play"
    locs = {g.state.where(p.id) for p in ps}
    if len(locs) != 1:
        return "converting units must be stacked together or in the same garrison box (OT 16A1f)"
    loc = next(iter(locs))
    if loc.kind == "hex":
        for p in ps:
            if not replacements.regular_supply(g, side, int(loc.ref)):
                return f"{p.id} is not in regular general supply (OT 16A1f)"
            if replacements.in_enemy_zoc(g, p):
                return f"{p.id} is in an enemy ZOC (OT 16A1f)"
    elif loc.kind != "box":
        return "the converting units are not on the map or in a garrison box"
    if item["kind"] == "reorganize":
        cost_m = Fraction(str(item["params"].get("man", 0)))
        cost_e = Fraction(str(item["params"].get("equ", 0)))
        if cost_m > 0 or cost_e > 0:
            h = int(loc.ref) if loc.kind == "hex" else None
            cmd = (
                replacements.command_of(g, h)
                if h is not None
                else str(item["params"].get("command", replacements.NO_COMMAND))
            )
            c = replacements.contingent_of(g, ps[0])
            why = replacements.payment_problem(
                g, side, cmd, h, c, max(cost_m, Fraction(0)), max(cost_e, Fraction(0))
            )
            if why:
                return f"cannot pay for the reorganization: {why} (OT 16A1t)"
    return None


def _factory_linked(g: Game, item: dict[str, Any], p: Piece) -> int | None:

    h = units.hex_of(g, p)
    for lab in item["params"].get("factories", []):
        if not g.board.has_label(lab):
            continue
        i = g.board.idx(lab)
        fac = [pt for pt in g.board.points_at(i) if pt.kind == "factory"]
        if (
            not fac
            or g.state.control.get(i) != p.side
            or not fac[0].attrs.get("in_production", True)
        ):
            continue
        if h is None or supply.traces_to(g, h, supply.overland_reach(g, p.side, {i})):
            return i
    return None


def do_convert(g: Game, item: dict[str, Any]) -> None:
    """Carry out a checked conversion, reorganization or upgrade (OT 16A1f/t/bb, flip OT 16A1j)."""
    side = item["side"]
    params = item["params"]
    ps = _pieces(g, item)
    loc = g.state.where(ps[0].id)
    h = int(loc.ref) if loc.kind == "hex" else None
    cmd = (
        replacements.command_of(g, h)
        if h is not None
        else str(params.get("command", replacements.NO_COMMAND))
    )
    rule = RULE_OF[item["kind"]]
    if item["kind"] == "upgrade":
        fac = _factory_linked(g, item, ps[0])
        if fac is None:
            cost = replacements.rebuild_cost(g, ps[0])
            eligible = [
                g.board.idx(x)
                for x in params.get("factories", [])
                if g.board.has_label(x) and g.state.control.get(g.board.idx(x)) == side
            ]
            if eligible:
                replacements.place_points(
                    g,
                    side,
                    eligible[0],
                    MAN,
                    cost[MAN],
                    replacements.contingent_of(g, ps[0]),
                    rule=rule,
                    why="upgrade without a factory line",
                )
                replacements.place_points(
                    g,
                    side,
                    eligible[0],
                    EQU,
                    cost[EQU],
                    rule=rule,
                    why="upgrade without a factory line",
                )
            else:
                g.emit(
                    "upgrade",
                    f"{item['key']}: no eligible factory; the points are forfeited",
                    rule=rule,
                )
            _finish(g, item)
            return
    if item["kind"] == "reorganize":
        m = Fraction(str(params.get("man", 0)))
        e = Fraction(str(params.get("equ", 0)))
        c = replacements.contingent_of(g, ps[0])
        if m > 0 or e > 0:
            replacements.pay(
                g,
                side,
                cmd,
                h,
                c,
                max(m, Fraction(0)),
                max(e, Fraction(0)),
                rule,
                f"reorganization {item['key']}",
            )
        if m < 0 or e < 0:
            replacements.add_points(
                g,
                side,
                cmd,
                {c: -m} if m < 0 else {},
                -e if e < 0 else Fraction(0),
                rule=rule,
                why=f"reorganization {item['key']}",
                locked=True,
            )
    full_face = params.get("full_face")
    for p in ps:
        if full_face and p.face == full_face and params.get("from_weaker"):
            weaker = next((f for f in p.faces if f != full_face), None)
            if weaker is not None:
                cost = replacements.rebuild_cost(g, p, weaker)
                p.face = weaker
                replacements.add_points(
                    g,
                    side,
                    cmd,
                    {replacements.contingent_of(g, p): cost[MAN]},
                    cost[EQU],
                    rule="OT 16A1f",
                    why=f"{p.id} already at full strength",
                )
    if params.get("into_face"):
        for p in ps:
            p.face = str(params["into_face"])
            g.emit("convert", f"{p.id} flips to its {p.face} side", rule="OT 16A1j", piece=p.id)
    else:
        into = [g.state.pieces[x] for x in params.get("into", []) if x in g.state.pieces]
        for p in ps:
            _out(g, p, rule, f"{item['kind']} {item['key']}")
        for q in into:
            g.state.move(q.id, loc)
            g.emit("convert", f"{q.id} enters play by {item['kind']}", rule=rule, piece=q.id)
    _finish(g, item)


# ============================================================================ the initial phase
@implements("OT 16A")
def activate_due(g: Game, side: str) -> None:
    """OT 16A: entries due this turn (or earlier and not yet activated) join the side's agenda."""
    now = int(g.state.turn.get("index", 0))
    act = ob(g)["activated"]
    for e in schedule_entries(g):
        if e["key"] in act or e["turn"] > now:
            continue
        s = entry_side(g, e)
        if s != side:
            continue
        act.append(e["key"])
        e["side"] = side
        e["requires"] = []
        agenda(g, side).append(e)


def process_agenda(g: Game, side: str) -> None:
    """Run every agenda item whose prerequisites are done, until nothing more happens by itself."""
    for _ in range(50):
        changed = False
        size = len(agenda(g, side))
        for item in list(agenda(g, side)):
            if item.get("blocked") == ip_id(g):
                continue
            if any(r not in ob(g)["done"] for r in item.get("requires", [])):
                continue
            if item.get("status_ip") == ip_id(g) and item.get("status") in (
                "wait",
                "task",
                "optional",
            ):
                continue
            st = run_item(g, item)
            if st != "done":
                item["status"] = st
                item["status_ip"] = ip_id(g)
            else:
                changed = True
        if not changed and len(agenda(g, side)) == size:
            return


def open_items(g: Game, side: str) -> list[dict[str, Any]]:
    return [
        it
        for it in agenda(g, side)
        if it.get("status_ip") == ip_id(g) and it.get("status") in ("task", "optional")
    ]


def _refresh(g: Game, side: str) -> None:
    """After an action: items whose task changed are run again."""
    for it in agenda(g, side):
        if it.get("status") in ("task", "optional"):
            it.pop("status_ip", None)
    process_agenda(g, side)


@implements(
    "OT 16A",
    "OT 16A1",
    "OT 16A1aa",
    "OT 16A1cc",
    "OT 16A1dd",
    "OT 16A1ff",
    "OT 16A1m",
    "OT 16B1a-ii",
)
def agenda_actions(g: Game, side: str) -> list[Action]:
    """The OB choices open to the owner now: placing reinforcements (and Res Pts), choosing the
    unit to withdraw, choosing between two activities, carrying out an optional conversion,
    reorganization, upgrade, historical action or linked step."""
    out: list[Action] = []
    for it in open_items(g, side):
        k = it["kind"]
        key = it["key"]
        if k in PLACEMENT_KINDS:
            for p in _pending_placements(g, it):
                for i in placement_options(g, it, p):
                    if _rail_choice_needed(it):
                        for rk in ("operational", "strategic"):
                            out.append(
                                {
                                    "type": "place",
                                    "side": side,
                                    "entry": key,
                                    "piece": p.id,
                                    "hex": g.board.label(i),
                                    "rail": rk,
                                }
                            )
                    else:
                        out.append(
                            {
                                "type": "place",
                                "side": side,
                                "entry": key,
                                "piece": p.id,
                                "hex": g.board.label(i),
                            }
                        )
        elif k == "production":
            for i in res_cities(g, it):
                out.append(
                    {"type": "place-res", "side": side, "entry": key, "hex": g.board.label(i)}
                )
        elif k in ("withdraw", "assign", "demobilize", "transfer"):
            for _, p, full in withdraw_candidates(g, it):
                a: Action = {"type": "withdraw", "side": side, "entry": key, "piece": p.id}
                if full:
                    a["full_for_cadre"] = True
                out.append(a)
        elif k == "either":
            for n in range(len(it["params"].get("options", []))):
                out.append({"type": "choose", "side": side, "entry": key, "option": n})
        elif k in ("convert", "reorganize", "upgrade"):
            if convert_problem(g, it) is None:
                out.append({"type": "convert", "side": side, "entry": key})
        elif k == "historical":
            out.append({"type": "follow", "side": side, "entry": key})
        elif k == "linked":
            for lab in linked_available(it, g):
                out.append({"type": "linked-step", "side": side, "entry": key, "label": lab})
    return out


def _item(g: Game, side: str, key: Any) -> dict[str, Any]:
    for it in open_items(g, side):
        if it["key"] == key:
            return it
    raise IllegalAction("OT 16A", f"no open order-of-battle activity {key!r}")


def _listed(g: Game, side: str, action: Action) -> dict[str, Any]:
    """The open order-of-battle entry the action names, if the action is one listed for it."""
    it = _item(g, side, action.get("entry"))
    want = dict(action)
    for a in agenda_actions(g, side):
        if (
            a.get("entry") == it["key"]
            and all(want.get(k) == v for k, v in a.items())
            and set(want) <= set(a) | {"side"}
        ):
            return it
    return {"key": it["key"], "kind": it["kind"], "unlisted": True}


@implements("OT 16A")
def check_agenda_action(g: Game, side: str, action: Action) -> None:
    """OT 16A: the action is one the order of battle lists for its entry now."""
    it = _listed(g, side, action)
    if it.get("unlisted"):
        raise IllegalAction(
            RULE_OF.get(it["kind"], "OT 16A"),
            f"{action['type']!r} with these values is not allowed for {it['key']}",
        )


@implements("OT 16A", "OT 16C12")
def check_placement(g: Game, side: str, action: Action) -> None:
    """OT 16A / 16C12: a placement on a friendly-owned hex of the OB's district or command."""
    if _listed(g, side, action).get("unlisted"):
        raise IllegalAction(
            "OT 16A",
            f"{action.get('hex')!r} is not a legal placement for {action.get('piece')!r}"
            " (friendly-owned hex of the OB's district/command; OT 16C12)",
        )


@implements("OT 16A")
def check_conversion(g: Game, side: str, action: Action) -> None:
    """OT 16A: an entry converted when its conversion is possible."""
    it = _item(g, side, action.get("entry"))
    if {"type": "convert", "side": side, "entry": it["key"]} not in agenda_actions(g, side):
        raise IllegalAction(RULE_OF[it["kind"]], convert_problem(g, it) or "not possible now")
    check_agenda_action(g, side, action)


def _agenda_done(g: Game, side: str) -> None:
    _refresh(g, side)
    _close_links(g, side)


def apply_placement(g: Game, side: str, action: Action) -> None:
    it = _item(g, side, action["entry"])
    _place(g, it, g.state.pieces[action["piece"]], g.board.idx(action["hex"]), action.get("rail"))
    _agenda_done(g, side)


def apply_res_placement(g: Game, side: str, action: Action) -> None:
    it = _item(g, side, action["entry"])
    place_res_pt(g, it, g.board.idx(action["hex"]))
    _agenda_done(g, side)


def apply_withdrawal(g: Game, side: str, action: Action) -> None:
    it = _item(g, side, action["entry"])
    p = g.state.pieces[action["piece"]]
    if it["kind"] == "transfer":
        _transfer_capacity(g, it, [p])
    _do_withdraw(g, it, p, bool(action.get("full_for_cadre")))
    _finish(g, it)
    _agenda_done(g, side)


@implements("OT 16A1dd")
def apply_option(g: Game, side: str, action: Action) -> None:
    """OT 16A1dd: the player chooses one option of the entry."""
    it = _item(g, side, action["entry"])
    n = int(action["option"])
    g.emit("reinforcement", f"{side} chooses option {n + 1} of {it['key']}", rule="OT 16A1dd")
    _add_child(g, it, it["params"]["options"][n], n)
    it["kind"] = "combination"
    it["params"] = {"steps": [it["params"]["options"][n]]}
    it["state"] = {"spawned": True, "children": [f"{it['key']}.{n}"]}
    _agenda_done(g, side)


def apply_conversion(g: Game, side: str, action: Action) -> None:
    do_convert(g, _item(g, side, action["entry"]))
    _agenda_done(g, side)


@implements("OT 16A1m")
def apply_historical(g: Game, side: str, action: Action) -> None:
    """OT 16A1m: the player follows the historical action of the entry."""
    it = _item(g, side, action["entry"])
    g.emit("historical", f"{side} follows the historical action {it['key']}", rule="OT 16A1m")
    for k, sub in enumerate(it["params"].get("then", [])):
        _add_child(g, it, sub, k)
    _finish(g, it)
    _agenda_done(g, side)


@implements("OT 16A1ff")
def apply_linked_step(g: Game, side: str, action: Action) -> None:
    """OT 16A1ff: the player carries out one step of a linked entry."""
    it = _item(g, side, action["entry"])
    lab = str(action["label"])
    info = it["state"]["labels"][lab]
    sub = it["params"]["steps"][info["index"]]
    child = _add_child(
        g, it, sub, info["index"], extra={"link_label": lab, "link_parent": it["key"]}
    )
    it["state"].setdefault("started", []).append(lab)
    g.emit("reinforcement", f"{side} carries out step {lab} of {it['key']}", rule="OT 16A1ff")
    child["on_done"] = {"parent": it["key"], "label": lab}
    _agenda_done(g, side)


def _close_links(g: Game, side: str) -> None:
    for it in agenda(g, side):
        if it["kind"] != "linked":
            continue
        for lab, info in it["state"].get("labels", {}).items():
            if f"{it['key']}.{info['index']}" in ob(g)["done"] and lab not in it["state"].get(
                "finished", []
            ):
                it["state"].setdefault("finished", []).append(lab)
    _refresh_linked(g, side)


def _refresh_linked(g: Game, side: str) -> None:
    for it in list(agenda(g, side)):
        if (
            it["kind"] == "linked"
            and len(it["state"].get("finished", [])) == len(it["state"].get("labels", {}))
            and it["state"].get("labels")
        ):
            _finish(g, it)


@implements("OT 16A")
def mandatory_left(g: Game, side: str) -> list[str]:
    """Activities the owner must still carry out in this initial phase (placements, withdrawals and
    choices that are possible now)."""
    out = []
    for it in open_items(g, side):
        if it["status"] != "task":
            continue
        if it["kind"] in PLACEMENT_KINDS and not any(
            placement_options(g, it, p) for p in _pending_placements(g, it)
        ):
            continue
        if it["kind"] == "production" and not res_cities(g, it):
            continue
        out.append(f"{it['kind']} {it['key']}")
    return out


# ===================================================================== automatic initial-phase work
@implements("OT 16C14")
def loss_of_all_cities(g: Game, side: str) -> None:
    """OT 16C14: in a player's initial phase -- with no city left in a district, his forming and
    demobilized units there are eliminated; with none in a garrison's area, every unit of the
    garrison is; with none in a command, that command's general pool is forfeited and its
    replacement pool's units leave play. (Districts, garrison areas and commands are map areas;
    forming boxes carry ``attrs.forming.district``, garrison and demobilized boxes an ``area``.)"""
    enemy = nations.other_side(side)

    def owns_no_city(area: str | None) -> bool:
        hexes = _hexes_of_area(g, area)
        if not hexes:
            return False
        cities = [i for i in hexes if geography.is_city(g, i)]
        return bool(cities) and all(g.state.control.get(i) != side for i in cities)

    for p in sorted(g.state.pieces.values(), key=lambda q: q.id):
        if p.side != side or g.state.where(p.id).kind != "box":
            continue
        box = str(g.state.where(p.id).ref)
        forming = p.attrs.get("forming")
        area = forming.get("district") if isinstance(forming, dict) else None
        b = g.board.boxes.get(box)
        if area is None and b is not None:
            area = b.attrs.get("area") or b.attrs.get("district")
        if area is None and box.startswith("demobilized:"):
            area = box.split(":", 1)[1]
        if (
            area
            and owns_no_city(str(area))
            and (
                forming
                or box.startswith(("demobilized", "garrison", "forming"))
                or (b is not None and b.kind == "garrison")
            )
        ):
            p.attrs.pop("forming", None)
            p.attrs["pool"] = str(
                (b.attrs.get("command") if b is not None else None) or replacements.NO_COMMAND
            )
            g.state.move(p.id, Loc.box(units.ELIMINATED_BOX))
            g.emit(
                "eliminated",
                f"{p.id} is eliminated: {side} owns no city of {area}",
                rule="OT 16C14",
                piece=p.id,
            )
    cmds = nations.controlled_commands(g, side) or set()
    for cmd in sorted(cmds):
        if owns_no_city(cmd) and cmd in g.board.areas:
            st = gw(g).get("points", {}).get(side, {}).get(cmd)
            if st and (st.get(MAN) or st.get(EQU)):
                gw(g)["points"][side][cmd] = {MAN: {}, EQU: Fraction(0)}
                g.emit(
                    "points",
                    f"{side} forfeits its {cmd} general pool: it owns no city there",
                    rule="OT 16C14",
                )
            for p in replacements.pool_units(g, side, cmd):
                replacements.to_out_of_play(g, p, "OT 16C14", f"no city left in {cmd}")
        _ = enemy


@implements("OT 14N2", "OT 15E4", "OT 16B4a", "OT 16C14", "OT 16A2", "OT 15A8")
class InitialSpecial(Step):
    """The automatic work of Rules 14-16 at the start of an initial phase: corps become known or
    unknown (OT 14N2, any initial phase); both players' special replacements from losses since the
    last initial phase (OT 16B4a, either player's); the Entente's Unified Command roll (OT 15E4);
    the phasing player's losses of all cities (OT 16C14); his due OB entries join his agenda and
    those that happen by themselves are carried out (OT 16A, conditional reinforcements OT 16A2)."""

    name = "initial-special"
    title = "Reinforcement and replacement bookkeeping"
    rule = "OT 16"

    def run(self, g: Game, f: Frame) -> None:

        side = f.params["side"]
        if side == g.state.sides[0] and int(g.state.turn.get("index", 0)) > 1:
            reactions(g).game_turn_started(g)  # the work of the game turn just ended
        fl = g.state.markers.get("flooded", {})
        for k in [
            k
            for k, v in fl.items()
            if not str(v).endswith(f":{side}")
            or not str(v).startswith(f"{g.state.turn.get('index', 0)}:")
        ]:
            del fl[k]
        intelligence.initial_phase(g)
        replacements.settle_isolated_losses(g)
        replacements.settle_special_replacements(g)
        reactions(g).unified_command(g, side)
        loss_of_all_cities(g, side)
        gw(g).pop("transfers_done", None)
        activate_due(g, side)
        process_agenda(g, side)
        g.finish(f)


@implements(
    "OT 16",
    "OT 16B3c",
    "OT 16B3d",
    "OT 16B3e",
    "OT 16C1",
    "OT 16C2",
    "OT 16C4",
    "OT 16C8",
    "OT 16C10",
    "OT 16B2",
    "OT 16B3",
)
class Reinforcement(GWStep):
    """The owner's reinforcement and replacement activities in his initial phase (OT 16): the OB
    choices (``place``, ``place-res``, ``withdraw``, ``choose``, ``convert``, ``follow``,
    ``linked-step``); replacing (``replace``), rebuilding (``rebuild``, also in the enemy's initial
    phase) and augmenting (``augment``) units; voluntary disbanding and scrapping; early activation;
    March brigades; zero-movement artillery made mobile; foreign aid; the initial-phase activities
    of Rule 14 (``repair-tank`` OT 14C2, ``transport-mode`` OT 14O1, ``assign-leader`` and
    ``unassign-leader`` OT 14P, ``assign-elite`` OT 14Q); last, the transfers of pool units and
    points
    (OT 16B2, 16B3), after which no other activity may follow. With ``rebuild_only`` (the other
    player's window in this initial phase) only rebuilding is allowed (OT 16B3d)."""

    name = "reinforcement"
    title = "Reinforcements and replacements"
    rule = "OT 16"

    def enter(self, g: Game, f: Frame) -> None:
        side = f.params["side"]
        if f.params.get("rebuild_only"):
            f.params["skip"] = not self._rebuilds(g, side, cadres_only=True)
        else:
            acts = self.legal_actions(g, f, side)
            f.params["skip"] = not [a for a in acts if a != {"type": "end-phase", "side": side}]

    def actors(self, g: Game, f: Frame) -> Sequence[str]:
        return [] if f.params.get("skip") else [f.params["side"]]

    def run(self, g: Game, f: Frame) -> None:
        g.finish(f)

    def label(self, g: Game, f: Frame) -> str:
        who = f.params["side"]
        return (
            f"Rebuilding in the enemy initial phase ({who})"
            if f.params.get("rebuild_only")
            else f"Reinforcements and replacements ({who})"
        )

    def _rebuilds(self, g: Game, side: str, cadres_only: bool = False) -> list[Action]:
        own = not bool(gw(g).get("phasing") != side)
        out: list[Action] = []
        for p in units.on_map_units(g, side):
            if p.face == replacements.full_face(p):
                continue
            if cadres_only and p.face not in units.SIZES_CADRE:
                continue
            a: Action = {
                "type": "augment" if p.face not in units.SIZES_CADRE else "rebuild",
                "side": side,
                "piece": p.id,
            }
            if replacements.rebuild_problem(g, side, a, own) is None:
                out.append(a)
        return out

    def legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:

        with listing.scope(g):
            return self._legal_actions(g, f, side)

    def _legal_actions(self, g: Game, f: Frame, side: str) -> list[Action]:
        if f.params.get("rebuild_only"):
            return [
                *self._rebuilds(g, side, cadres_only=True),
                {"type": "end-phase", "side": side},
            ]
        out: list[Action] = []
        if not gw(g).get("transfers_done"):
            out += agenda_actions(g, side)
            out += self._replace_actions(g, side)
            out += self._rebuilds(g, side)
            out += self._other_actions(g, side)
        if not mandatory_left(g, side):
            out += self._transfer_actions(g, side)
            out.append({"type": "end-phase", "side": side})
        return out

    # ------------------------------------------------------------------ listings
    def _replace_actions(self, g: Game, side: str) -> list[Action]:
        out: list[Action] = []
        for p in replacements.pool_units(g, side):
            for face in replacements.replacement_faces(p):
                for i in replacements.replace_hexes(g, side, p)[:3]:
                    a: Action = {
                        "type": "replace",
                        "side": side,
                        "piece": p.id,
                        "face": face,
                        "hex": g.board.label(i),
                    }
                    if replacements.replace_problem(g, side, a) is None:
                        out.append(a)
        return out

    def _other_actions(self, g: Game, side: str) -> list[Action]:

        out: list[Action] = []
        for p in units.on_map_units(g, side):
            if (
                special_units.is_disabled(p)
                and special_units.tank_repair_problem(g, p, side) is None
                and _tank_payable(g, p)
            ):
                out.append({"type": "repair-tank", "side": side, "piece": p.id})
            if special_units.is_transport(p):
                out.append({"type": "transport-mode", "side": side, "piece": p.id})
        for p in sorted(g.state.pieces.values(), key=lambda q: q.id):
            if p.side != side or "forming" not in p.attrs or g.state.where(p.id).kind != "box":
                continue
            if replacements.early_activation_problem(g, side, p) is None:
                out.append({"type": "early-activation", "side": side, "piece": p.id})
        out += leaders.ip_actions(g, side)
        out += transport_units.ip_actions(g, side)
        for p in units.on_map_units(g, side):
            if replacements.march_value(g, p) is not None:
                out.append({"type": "march-breakdown", "side": side, "piece": p.id})
        return out

    def _transfer_actions(self, g: Game, side: str) -> list[Action]:
        out: list[Action] = []
        for p in replacements.pool_units(g, side):
            for cmd in sorted(nations.controlled_commands(g, side) or []):
                a: Action = {"type": "pool-unit-transfer", "side": side, "piece": p.id, "to": cmd}
                if (
                    cmd != p.attrs.get("pool")
                    and replacements.unit_transfer_problem(g, side, a) is None
                ):
                    out.append(a)
        return out

    # ------------------------------------------------------------------ check / apply
    def refuse(self, g: Game, f: Frame, action: Action) -> None:
        if f.params.get("rebuild_only"):
            self._only_rebuilds(f)
        raise IllegalAction("OT 4C", f"{action['type']!r} is not allowed in the {self.label(g, f)}")

    @implements("OT 16B3d")
    def _only_rebuilds(self, f: Frame) -> None:
        """OT 16B3d: in the other player's initial phase only cadres and remnants are rebuilt."""
        if f.params.get("rebuild_only"):
            raise IllegalAction(
                "OT 16B3d",
                "in the other player's initial phase only cadres and remnants may be rebuilt",
            )

    @implements("OT 16B3")
    def _before_transfers(self, g: Game, f: Frame) -> None:
        """OT 16B3: the transfers come after every other activity; OT 16B3d: in the other
        player's initial phase only rebuilding."""
        self._only_rebuilds(f)
        if gw(g).get("transfers_done"):
            raise IllegalAction(
                "OT 16B3", "transfers come after every other reinforcement and replacement activity"
            )

    @staticmethod
    def _piece(g: Game, action: Action) -> Piece | None:
        return (
            g.state.pieces.get(str(action.get("piece")))
            if action.get("piece") is not None
            else None
        )

    @handles.check("end-phase")
    def check_end(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16A: the mandatory order-of-battle activities are carried out first."""
        left = [] if f.params.get("rebuild_only") else mandatory_left(g, action["side"])
        if left:
            raise IllegalAction(
                "OT 16A",
                f"reinforcement activities must be carried out first: {', '.join(left)}",
            )

    @handles.apply("end-phase")
    def apply_end(self, g: Game, f: Frame, action: Action) -> None:
        for it in agenda(g, action["side"]):
            it.pop("status_ip", None)
        g.finish(f)

    # ---- transfers (OT 16B2, 16B3): last
    def _transfer_order(self, g: Game, f: Frame, action: Action) -> None:
        self._only_rebuilds(f)
        left = mandatory_left(g, action["side"])
        if left:
            raise IllegalAction(
                "OT 16B3", f"transfers come after the other activities: {', '.join(left)}"
            )

    def _transfer_check(
        self,
        g: Game,
        f: Frame,
        action: Action,
        rule: str,
        problem: Callable[[Game, str, Action], str | None],
    ) -> None:
        """A transfer comes in its turn (OT 16B3) and passes its own rule's test."""
        self._transfer_order(g, f, action)
        why = problem(g, action["side"], action)
        if why:
            raise IllegalAction(rule, why)

    @handles.check("pool-unit-transfer")
    def check_unit_transfer(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16B2: pool units between the replacement pools of two commands."""
        self._transfer_check(g, f, action, "OT 16B2", replacements.unit_transfer_problem)

    @handles.check("pool-transfer")
    def check_pool_transfer(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16B3: points between general pools."""
        self._transfer_check(g, f, action, "OT 16B3", replacements.pool_transfer_problem)

    @handles.check("points-to-pool")
    def check_points_to_pool(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16B3: on-map points into their command's pool."""
        self._transfer_check(g, f, action, "OT 16B3", replacements.points_to_pool_problem)

    @handles.check("points-to-map")
    def check_points_to_map(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16B3: pool points onto the map."""
        self._transfer_check(g, f, action, "OT 16B3", replacements.points_to_map_problem)

    @handles.apply("pool-unit-transfer")
    def apply_unit_transfer(self, g: Game, f: Frame, action: Action) -> None:
        gw(g)["transfers_done"] = True
        replacements.do_unit_transfer(g, action["side"], action)

    @handles.apply("pool-transfer")
    def apply_pool_transfer(self, g: Game, f: Frame, action: Action) -> None:
        gw(g)["transfers_done"] = True
        replacements.do_pool_transfer(g, action["side"], action)

    @handles.apply("points-to-pool")
    def apply_points_to_pool(self, g: Game, f: Frame, action: Action) -> None:
        gw(g)["transfers_done"] = True
        replacements.do_points_to_pool(g, action["side"], action)

    @handles.apply("points-to-map")
    def apply_points_to_map(self, g: Game, f: Frame, action: Action) -> None:
        gw(g)["transfers_done"] = True
        replacements.do_points_to_map(g, action["side"], action)

    # ---- the order-of-battle activities (OT 16A)
    @handles.check("place")
    def check_place(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16A, 16C12: a placement the order of battle lists."""
        self._before_transfers(g, f)
        check_placement(g, action["side"], action)

    @handles.check("convert")
    def check_convert(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16A: a conversion the order of battle allows now."""
        self._before_transfers(g, f)
        check_conversion(g, action["side"], action)

    @handles.check("place-res", "withdraw", "choose", "follow", "linked-step")
    def check_agenda(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16A: an order-of-battle activity listed for its entry."""
        self._before_transfers(g, f)
        check_agenda_action(g, action["side"], action)

    @handles.apply("place")
    def apply_place(self, g: Game, f: Frame, action: Action) -> None:
        apply_placement(g, action["side"], action)

    @handles.apply("place-res")
    def apply_place_res(self, g: Game, f: Frame, action: Action) -> None:
        apply_res_placement(g, action["side"], action)

    @handles.apply("withdraw")
    def apply_withdraw(self, g: Game, f: Frame, action: Action) -> None:
        apply_withdrawal(g, action["side"], action)

    @handles.apply("choose")
    def apply_choose(self, g: Game, f: Frame, action: Action) -> None:
        apply_option(g, action["side"], action)

    @handles.apply("convert")
    def apply_convert(self, g: Game, f: Frame, action: Action) -> None:
        apply_conversion(g, action["side"], action)

    @handles.apply("follow")
    def apply_follow(self, g: Game, f: Frame, action: Action) -> None:
        apply_historical(g, action["side"], action)

    @handles.apply("linked-step")
    def apply_linked(self, g: Game, f: Frame, action: Action) -> None:
        apply_linked_step(g, action["side"], action)

    # ---- replacements (OT 16B3c-e)
    def _raise(self, rule: str, why: str | None) -> None:
        if why:
            raise IllegalAction(rule, why)

    @handles.check("replace")
    def check_replace(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16B3c: replacing a pool unit."""
        self._before_transfers(g, f)
        self._raise("OT 16B3c", replacements.replace_problem(g, action["side"], action))

    @handles.apply("replace")
    def apply_replace(self, g: Game, f: Frame, action: Action) -> None:
        replacements.do_replace(g, action["side"], action)

    @handles.check("rebuild")
    def check_rebuild(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16B3d: rebuilding a cadre or remnant (also in the enemy's initial phase)."""
        side = action["side"]
        if gw(g).get("transfers_done"):
            raise IllegalAction(
                "OT 16B3", "transfers come after every other reinforcement and replacement activity"
            )
        why = replacements.rebuild_problem(g, side, action, gw(g).get("phasing") == side)
        p = self._piece(g, action)
        if why is None and p is not None and p.face not in units.SIZES_CADRE:
            why = f"{p.id} is at a cadre or remnant side: use 'augment'"
        self._raise("OT 16B3d", why)

    @handles.check("augment")
    def check_augment(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16B3e: augmenting a reduced unit."""
        side = action["side"]
        self._before_transfers(g, f)
        why = replacements.rebuild_problem(g, side, action, gw(g).get("phasing") == side)
        p = self._piece(g, action)
        if why is None and p is not None and p.face in units.SIZES_CADRE:
            why = f"{p.id} is not at a cadre or remnant side: use 'rebuild'"
        self._raise("OT 16B3e", why)

    @handles.apply("rebuild", "augment")
    def apply_rebuild(self, g: Game, f: Frame, action: Action) -> None:
        replacements.do_rebuild(g, action["side"], action)

    # ---- other initial-phase activities (OT 16C, Rule 14)
    @handles.check("disband")
    def check_disband(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16C1: voluntary disbanding."""
        self._before_transfers(g, f)
        self._raise(
            "OT 16C1", replacements.disband_problem(g, action["side"], self._piece(g, action))
        )

    @handles.apply("disband")
    def apply_disband(self, g: Game, f: Frame, action: Action) -> None:
        p = self._piece(g, action)
        assert p is not None
        replacements.add_monthly(g, "disband", p.nation, units.re_size(g, p))
        replacements.disband(g, p, str(action.get("to", "pool")), rule="OT 16C1")

    @handles.check("scrap")
    def check_scrap(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16C2: scrapping a pool unit of a command the player controls."""
        self._before_transfers(g, f)
        p = self._piece(g, action)
        side = action["side"]
        ok = (
            p is not None
            and replacements.in_pool(g, p, side)
            and replacements.controls_command(g, side, str(p.attrs["pool"]))
        )
        if not ok:
            self._raise(
                "OT 16C2",
                "only units in a replacement pool of a command you control may be scrapped",
            )

    @handles.apply("scrap")
    def apply_scrap(self, g: Game, f: Frame, action: Action) -> None:
        p = self._piece(g, action)
        assert p is not None
        replacements.scrap(g, p, rule="OT 16C2")

    @handles.check("early-activation")
    def check_early(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16C4: early activation of a forming unit."""
        self._before_transfers(g, f)
        self._raise(
            "OT 16C4",
            replacements.early_activation_problem(g, action["side"], self._piece(g, action)),
        )

    @handles.apply("early-activation")
    def apply_early(self, g: Game, f: Frame, action: Action) -> None:
        p = self._piece(g, action)
        assert p is not None
        _early_activation(g, action["side"], p)

    @handles.check("march-assemble")
    def check_march_assemble(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16C8: assembling a March brigade."""
        self._before_transfers(g, f)
        self._raise(
            "OT 16C8",
            replacements.march_assemble_problem(
                g, action["side"], self._piece(g, action), action.get("hex")
            ),
        )

    @handles.apply("march-assemble")
    def apply_march_assemble(self, g: Game, f: Frame, action: Action) -> None:
        p = self._piece(g, action)
        assert p is not None
        replacements.march_assemble(g, p, str(action["hex"]))

    @handles.check("march-breakdown")
    def check_march_breakdown(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16C8: breaking down a March brigade on the map."""
        self._before_transfers(g, f)
        p = self._piece(g, action)
        ok = (
            p is not None
            and p.side == action["side"]
            and units.hex_of(g, p) is not None
            and replacements.march_value(g, p) is not None
        )
        if not ok:
            self._raise("OT 16C8", "name a March brigade on the map")

    @handles.apply("march-breakdown")
    def apply_march_breakdown(self, g: Game, f: Frame, action: Action) -> None:
        p = self._piece(g, action)
        assert p is not None
        replacements.march_breakdown(g, p)

    @handles.check("mobilize-artillery")
    def check_mobilize(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16C10: zero-movement artillery made mobile."""
        self._before_transfers(g, f)
        self._raise(
            "OT 16C10", replacements.zero_ma_problem(g, action["side"], self._piece(g, action))
        )

    @handles.apply("mobilize-artillery")
    def apply_mobilize(self, g: Game, f: Frame, action: Action) -> None:
        p = self._piece(g, action)
        assert p is not None
        replacements.make_mobile(g, p)

    @handles.check("foreign-aid")
    def check_aid(self, g: Game, f: Frame, action: Action) -> None:
        """OT 16C3: foreign aid."""
        self._before_transfers(g, f)
        self._raise(
            "OT 16C3", replacements.foreign_aid_problem(g, action["side"], self._piece(g, action))
        )

    @handles.apply("foreign-aid")
    def apply_aid(self, g: Game, f: Frame, action: Action) -> None:
        p = self._piece(g, action)
        assert p is not None
        replacements.give_aid(g, p)

    @handles.check("repair-tank")
    def check_repair_tank(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14C2: repairing a disabled tank with Equ Pts."""
        self._before_transfers(g, f)
        p = self._piece(g, action)
        why = (
            special_units.tank_repair_problem(g, p, action["side"])
            if p is not None
            else "name the tank"
        )
        if why is None and p is not None and not _tank_payable(g, p):
            why = f"not enough Equ Pts to repair {p.id} (OT 14C2)"
        self._raise("OT 14C2", why)

    @handles.apply("repair-tank")
    def apply_repair_tank(self, g: Game, f: Frame, action: Action) -> None:
        p = self._piece(g, action)
        assert p is not None
        _pay_tank(g, p)
        special_units.repair_tank(g, p)

    @handles.check("transport-mode")
    def check_transport_mode(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14O1: a transport unit changes mode."""

        self._before_transfers(g, f)
        self._raise(
            "OT 14O1", transport_units.mode_problem(g, action["side"], self._piece(g, action))
        )

    @handles.apply("transport-mode")
    def apply_transport_mode(self, g: Game, f: Frame, action: Action) -> None:

        p = self._piece(g, action)
        assert p is not None
        transport_units.flip_mode(g, p)

    @handles.check("assign-leader")
    def check_assign_leader(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14P: a pooled leader onto an Army HQs."""

        self._before_transfers(g, f)
        self._raise("OT 14P", leaders.assignment_problem(g, action["side"], action))

    @handles.apply("assign-leader")
    def apply_assign_leader(self, g: Game, f: Frame, action: Action) -> None:

        leaders.apply_assignment(g, action["side"], action)

    @handles.check("unassign-leader")
    def check_unassign_leader(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14P: a leader off its Army HQs to the pool."""

        self._before_transfers(g, f)
        self._raise("OT 14P", leaders.unassignment_problem(g, action["side"], action))

    @handles.apply("unassign-leader")
    def apply_unassign_leader(self, g: Game, f: Frame, action: Action) -> None:

        leaders.apply_unassignment(g, action["side"], action)

    @handles.check("assign-elite")
    def check_assign_elite(self, g: Game, f: Frame, action: Action) -> None:
        """OT 14Q: an elite brigade assigned to a division."""
        self._before_transfers(g, f)
        p = self._piece(g, action)
        div = g.state.pieces.get(str(action.get("division")))
        self._raise(
            "OT 14Q",
            special_units.elite_assignment_problem(g, p, div)
            if (p is not None and div is not None)
            else "name the elite brigade and the division",
        )

    @handles.apply("assign-elite")
    def apply_assign_elite(self, g: Game, f: Frame, action: Action) -> None:
        p = self._piece(g, action)
        assert p is not None
        div = g.state.pieces[str(action["division"])]
        g.state.move(p.id, Loc.inside(div.id))
        g.emit("elite", f"{p.id} is assigned to {div.id}", rule="OT 14Q", piece=p.id)


def _tank_payable(g: Game, p: Piece) -> bool:
    h = units.hex_of(g, p)
    cost = special_units.tank_repair_cost(p)
    if h is None or cost is None:
        return False
    return (
        replacements.payment_problem(
            g, p.side, replacements.command_of(g, h), h, "", Fraction(0), cost
        )
        is None
    )


def _pay_tank(g: Game, p: Piece) -> None:
    h = units.hex_of(g, p)
    cost = special_units.tank_repair_cost(p)
    assert h is not None and cost is not None
    replacements.pay(
        g,
        p.side,
        replacements.command_of(g, h),
        h,
        "",
        Fraction(0),
        cost,
        "OT 14C2",
        f"repairing {p.id}",
    )


@implements("OT 16C4")
def _early_activation(g: Game, side: str, p: Piece) -> None:
    """OT 16C4: the early activation roll (Ground Success Table, no modifiers stated): success, the
    unit is received this turn at full strength; failure, at its cadre or remnant strength (without
    one it is eliminated to the replacement pool); failure*, it is eliminated to the pool."""
    info = dict(p.attrs.get("forming", {}))
    res = special_units.gst(g, "early-activation", f"early activation of {p.id}", "OT 16C4")
    cmd = str(info.get("command") or replacements.NO_COMMAND)
    red = replacements.reduced_face(p)
    if res == "F*" or (res == "F" and red is None):
        p.attrs.pop("forming", None)
        p.attrs["pool"] = cmd
        g.state.move(p.id, Loc.box(units.ELIMINATED_BOX))
        g.emit(
            "eliminated",
            f"{p.id} fails to activate ({res}) and goes to the replacement pool",
            rule="OT 16C4",
            piece=p.id,
        )
        return
    p.face = replacements.full_face(p) if res.startswith("S") else str(red)
    item = {
        "key": f"early:{p.id}",
        "kind": "full",
        "pieces": [p.id],
        "at": None,
        "side": side,
        "requires": [],
        "turn": 0,
        "params": {
            k: v
            for k, v in (("district", info.get("district")), ("command", info.get("command")))
            if v
        },
        "state": {},
    }
    agenda(g, side).append(item)
    g.emit(
        "reinforcement",
        f"{p.id} is activated early ({res}) at {'full' if res.startswith('S') else 'reduced'}"
        " strength",
        rule="OT 16C4",
        piece=p.id,
    )
    _refresh(g, side)


# =========================================================================== arrival marks (16A1aa)
@implements("OT 16A1aa")
def apply_arrival_marks(g: Game, f: Frame) -> None:
    """OT 16A1aa: in the first friendly movement phase after arriving, a unit that came by
    operational rail (or by sea from the same theater) has spent half its MPs, one that came by
    strategic rail has used 100 of its 200 hexes (it may only continue by strategic rail), one that
    came by sea from another theater or overland may not spend MPs."""

    if f.params.get("kind") != movement.MOVEMENT:
        return
    marks = gw(g).get("arrivals", {})
    side = f.params["side"]
    for pid in sorted(list(marks)):
        m = marks[pid]
        if m.get("side") != side:
            continue
        p = g.state.pieces.get(pid)
        del marks[pid]
        if p is None or units.hex_of(g, p) is None:
            continue
        rec = movement.record(f, p, g)
        if m["mark"] == "half-mp":
            rec["spent"] = movement.movement_allowance(g, p) / 2
            rec["moved"] = True
        elif m["mark"] == "no-mp":
            rec["done"] = True
        elif m["mark"] == "strategic-100":
            rec["strategic_used"] = 100
            rec["strategic_only"] = True
        g.emit(
            "arrival",
            f"{pid} starts its movement phase marked {m['mark']}",
            rule="OT 16A1aa",
            piece=pid,
        )


# ============================================================================ scenario checks
NEEDS_PIECES = (
    "receive",
    "arrive",
    "assign",
    "switch",
    "move",
    "available",
    "convert",
    "reorganize",
    "upgrade",
    "demobilize",
    "mobilize",
    "remobilize",
    "disarm",
    "disband",
    "scrap",
    "forming",
    "full",
    "release",
    "remove",
    "remove-to-awq",
    "replace",
    "sequester",
    "stand-down",
    "substitute",
)


def check_schedule(sc: Any) -> list[tuple[str, str]]:
    """Semantic checks of the order-of-battle entries of a scenario (``[[schedule]]``): known kinds
    in nested entries, the pieces and parameters each kind needs, hexes and areas that exist."""
    out: list[tuple[str, str]] = []
    data = sc.data
    ids = {pd.id for pd in data.pieces}
    sides = set(data.scenario.sides)
    board = sc.board

    def check(
        where: str,
        kind: str,
        pieces: list[str],
        at: Any,
        params: dict[str, Any],
        inherited: str | None = None,
    ) -> None:
        if kind not in OB_KINDS and kind != "rail-capacity":
            out.append(
                (
                    f"{where}.kind",
                    f"unknown order-of-battle kind {kind!r} (known: {', '.join(OB_KINDS)})",
                )
            )
            return
        if kind == "rail-capacity":
            return
        for pid in pieces:
            if pid not in ids:
                out.append((f"{where}.pieces", f"unknown piece {pid!r}"))
        if kind in NEEDS_PIECES and not pieces:
            out.append(
                (
                    f"{where}.pieces",
                    (
                        f"a {kind!r} entry names the pieces it acts on"
                        f" ({RULE_OF.get(kind, 'OT 16A1')})"
                    ),
                )
            )
        side = params.get("side")
        if side is not None and side not in sides:
            out.append((f"{where}.params.side", f"unknown side {side!r}"))
        side = side or inherited
        if (
            not pieces
            and side is None
            and kind
            in (
                "production",
                "add",
                "trigger-cr",
                "withdraw",
                "conditional",
                "foreign-aid",
                "transfer",
            )
        ):
            out.append((f"{where}.params.side", f"a {kind!r} entry without pieces needs 'side'"))
        for key in ("district", "command"):
            v = params.get(key)
            if v is not None and v not in board.areas and not (key == "command" and v == "map"):
                out.append((f"{where}.params.{key}", f"no map area {v!r}"))
        for h in params.get("hexes", []) or []:
            if not board.has_label(h):
                out.append((f"{where}.params.hexes", f"unknown hex {h!r}"))
        if kind == "arrive" and params.get("by", "rail") not in ("rail", "sea", "overland"):
            out.append(
                (f"{where}.params.by", "an arrival is by 'rail', 'sea' or 'overland' (OT 16A1aa)")
            )
        if (
            kind in ("withdraw", "transfer")
            and not pieces
            and not isinstance(params.get("match"), dict)
        ):
            out.append((f"{where}.params.match", "name the pieces or give 'match' (OT 16A1cc)"))
        if kind == "either" and len(params.get("options", [])) != 2:
            out.append((f"{where}.params.options", "'either' offers two activities (OT 16A1dd)"))
        if kind in ("combination", "linked") and not params.get("steps"):
            out.append((f"{where}.params.steps", f"'{kind}' lists its activities in 'steps'"))
        if kind == "conditional" and (params.get("cr") is None or not params.get("then")):
            out.append(
                (
                    f"{where}.params",
                    "a conditional reinforcement gives 'cr', 'when' and 'then' (OT 16A2)",
                )
            )
        if kind == "trigger-cr" and params.get("cr") is None:
            out.append((f"{where}.params.cr", "name the conditional reinforcement number"))
        if (
            kind in ("convert", "reorganize", "upgrade", "substitute")
            and not params.get("into")
            and not params.get("into_face")
        ):
            out.append(
                (
                    f"{where}.params.into",
                    f"a {kind!r} entry names the resulting pieces ('into') or face ('into_face')",
                )
            )
        for x in params.get("into", []) or []:
            if x not in ids:
                out.append((f"{where}.params.into", f"unknown piece {x!r}"))
        for key in ("options", "steps", "then"):
            for k, sub in enumerate(params.get(key, []) or []):
                if not isinstance(sub, dict):
                    out.append((f"{where}.params.{key}[{k}]", "must be a table with 'kind'"))
                    continue
                check(
                    f"{where}.params.{key}[{k}]",
                    str(sub.get("kind", "")),
                    list(sub.get("pieces", [])),
                    sub.get("at"),
                    dict(sub.get("params", {})),
                    side or _first_side(pieces),
                )

    piece_side = {
        pd.id: pd.side or (data.nations[pd.nation].side if pd.nation in data.nations else None)
        for pd in data.pieces
    }

    def _first_side(pieces: list[str]) -> str | None:
        return next((piece_side[p] for p in pieces if piece_side.get(p)), None)

    for i, e in enumerate(data.schedule):
        check(f"schedule[{i}]", e.kind, list(e.pieces), e.at, dict(e.params))
    return out
