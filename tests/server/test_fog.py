"""Fog of war over the API: no hidden piece in any answer or push, pushes to every side after every
action."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from grognard.server.db import Store
from grognard.server.service import GameService
from tests.greatwar.test_special_hq_14m import overrun_naming_the_hidden_division
from tests.server.conftest import Started

SIDES = ("Blue", "Red")


def strings(obj: Any) -> set[str]:
    """Every string value and key in a JSON document."""
    out: set[str] = set()
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.add(str(k))
            out |= strings(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= strings(v)
    return out


class Watch:
    """Checks every answer a side receives against what it may know at that moment."""

    def __init__(self, g: Started) -> None:
        self.g = g
        self.svc = g.client.app.state.service
        self.seen: dict[str, set[str]] = {s: set() for s in SIDES}
        self.checked = 0
        self.checked_hidden: dict[str, int] = {}

    def game(self) -> Any:
        return self.svc.entry(self.g.id).game

    def note_view(self, side: str, state: dict[str, Any]) -> None:
        self.seen[side] |= {p["id"] for p in state["view"]["pieces"]}

    def check(self, side: str, doc: Any) -> None:
        g = self.game()
        hidden = set(g.ruleset.hidden_tokens(g, side))
        if isinstance(doc, dict) and "view" in doc:
            # no hidden piece id as any value or key of the view, legal actions, groups or families
            vals = strings(
                {
                    k: doc[k]
                    for k in ("view", "legal", "groups", "families", "standing_orders")
                    if k in doc
                }
            )
            assert not (hidden & vals), f"{side} is sent hidden {hidden & vals}"
        for tok in hidden:
            self.checked_hidden[tok] = self.checked_hidden.get(tok, 0) + 1
        text = json.dumps(doc)
        never = hidden - self.seen[side]
        for tok in never:
            assert not re.search(rf"(?<![\w-]){re.escape(tok)}(?![\w-])", text), (
                f"{side} is told about {tok}"
            )
        self.checked += 1


def play_random(
    g: Started,
    steps: int,
    rng: random.Random,
    sockets: dict[str, Any] | None = None,
    probe_every: int = 2,
) -> Watch:
    w = Watch(g)
    c = g.client
    for s in SIDES:
        st = g.state(s)
        w.note_view(s, st)
        w.check(s, st)
    for step in range(steps):
        states = {s: g.state(s) for s in SIDES}
        acting = [s for s in SIDES if states[s]["legal"]]
        if not acting:
            break
        side = rng.choice(acting)
        st = states[side]
        # probes a curious player might send: moves to every hex next to its pieces, attacks, reach,
        # previews
        for p in st["view"]["pieces"] if probe_every and step % probe_every == 0 else []:
            if p["side"] != side or p["loc"][0] != "hex":
                continue
            r = c.post(
                f"/api/games/{g.id}/reachable", headers=g.h(side), json={"pieces": [p["id"]]}
            )
            w.check(side, r.json())
            for target in board_neighbours(w, p["loc"][1]):
                for probe in (
                    {"type": "move", "piece": p["id"], "to": target},
                    {"type": "attack", "from": p["loc"][1], "target": target},
                ):
                    if probe in [{k: v for k, v in a.items() if k != "side"} for a in st["legal"]]:
                        continue
                    r = g.act(side, probe)
                    assert r.status_code == 409, r.text
                    w.check(side, r.json())
                    pv = c.post(
                        f"/api/games/{g.id}/preview", headers=g.h(side), json={"action": probe}
                    )
                    w.check(side, pv.json())
        # the options of every family and actor, asked for one by one, are the flat list
        found = []
        for fam in st["families"]:
            for actor in fam["actors"]:
                params = {"type": fam["type"]} | ({} if actor is None else {"actor": actor})
                r = c.get(f"/api/games/{g.id}/options", headers=g.h(side), params=params)
                assert r.status_code == 200, r.text
                w.check(side, r.json())
                found += [o["action"] for o in r.json()["options"]]
        assert sorted(map(json.dumps, found)) == sorted(map(json.dumps, st["legal"]))
        flat = c.get(f"/api/games/{g.id}/legal", headers=g.h(side)).json()
        assert flat["legal"] == st["legal"] and flat["groups"] == st["groups"]
        w.check(side, flat)
        weights = [0.2 if a["type"] in ("end-phase", "pass") else 1.0 for a in st["legal"]]
        action = rng.choices(st["legal"], weights=weights, k=1)[0]
        res = g.ok(side, {k: v for k, v in action.items() if k != "side"})
        w.check(side, res)
        for s in SIDES:
            st2 = g.state(s)
            w.note_view(s, st2)
            w.check(s, st2)
            if sockets is not None:
                push = sockets[s].receive_json()
                assert (
                    push["type"] == "state"
                    and push["side"] == s
                    and push["seq"] == res["seq"] + res["standing_applied"]
                )
                # a push carries the legal actions as families only, the same as the state's
                assert "legal" not in push and "groups" not in push
                assert push["families"] == st2["families"]
                w.check(s, push)
    return w


def board_neighbours(w: Watch, label: str) -> list[str]:
    b = w.game().board
    return [b.label(j) for j in b.neighbors(b.idx(label))]


def test_no_hidden_piece_reaches_the_other_side_in_any_response(start: Any) -> None:
    for seed in (1, 2):
        g: Started = start("tiny-duel", seed=seed)
        w = play_random(g, 50, random.Random(seed))
        assert w.checked > 100
        # the checks ran while the scout and the reserves were hidden from the other side
        assert w.checked_hidden.get("r-scout", 0) > 20 and w.checked_hidden.get("b-res", 0) > 20


def test_pushes_go_to_every_side_after_every_action(start: Any) -> None:
    g: Started = start("tiny-duel", seed=4)
    c = g.client
    with (
        c.websocket_connect(f"/api/games/{g.id}/ws") as blue,
        c.websocket_connect(f"/api/games/{g.id}/ws") as red,
    ):
        blue.send_json({"token": g.tokens["Blue"]})
        first = blue.receive_json()
        assert first["side"] == "Blue" and first["log_from"] == 0
        red.send_json({"token": g.tokens["Red"]})
        assert red.receive_json()["side"] == "Red"
        assert blue.receive_json()["connected"] == ["Blue", "Red"]
        w = play_random(g, 25, random.Random(4), sockets={"Blue": blue, "Red": red}, probe_every=0)
        assert w.checked > 50
        # a push after an action the other side cannot see at all still arrives, with nothing new in
        # it
        blue.send_json({"type": "ping"})
        assert blue.receive_json() == {"type": "pong"}


def test_websocket_needs_a_valid_token_first(start: Any) -> None:
    g: Started = start()
    with g.client.websocket_connect(f"/api/games/{g.id}/ws") as ws:
        ws.send_json({"token": "wrong"})
        msg = ws.receive_json()
        assert msg["type"] == "error" and "does not belong" in msg["message"]


def test_log_is_renumbered_so_hidden_events_leave_no_gaps(start: Any) -> None:
    g: Started = start("tiny-duel", seed=1)
    g.ok("Blue", {"type": "commit", "key": "posture", "value": "bold"})
    red = g.state("Red")
    # Blue's private "you chose" event exists in the true log but not in Red's, and Red's numbering
    # has no hole
    game = g.client.app.state.service.entry(g.id).game
    assert len(game.state.log) > len(red["log"])
    assert [e["n"] for e in red["log"]] == list(range(len(red["log"])))


def test_hidden_ids_are_scrubbed_from_rule_messages() -> None:
    from grognard.server.service import redact, redact_obj

    assert redact("r-scout blocks the way", {"r-scout"}) == "a hidden piece blocks the way"
    assert redact("r-scouts and xr-scout stay", {"r-scout"}) == "r-scouts and xr-scout stay"
    assert redact_obj({"a": ["r1 here", 3]}, {"r1"}) == {"a": ["a hidden piece here", 3]}


@pytest.mark.rules("OT 14N2")
def test_ot_14n2_the_pushed_log_conceals_a_hidden_units_events() -> None:
    """The log the server pushes and serves (``GameService.side_log``, whole or grown from the
    side's last view) shows an event naming a unit inside an unknown enemy corps as a bare
    notice, as the side's view does."""
    g = overrun_naming_the_hidden_division()
    svc = GameService(Store(":memory:"))
    log, upto = svc.side_log(g, "Entente")
    assert upto == len(g.state.log)
    assert "gd" not in strings(log) and not any("gd" in s for s in strings(log))
    assert any(e["type"] == "concealed" for e in log)
    assert log == g.view("Entente")["log"]
    own, _ = svc.side_log(g, "Central Powers")
    assert any("gd" in s for s in strings(own))
