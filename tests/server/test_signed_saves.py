"""Hosted games sign the saves they export (HMAC-SHA256 with the server's key) and import only
saves they signed, so a client cannot make the server run scenario text, actions or hashes of
its own."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from grognard.core import savefile
from grognard.core.savefile import check_save
from tests.server.conftest import Started


def play_to_the_end(g: Started) -> dict[str, Any]:
    for _ in range(200):
        states = {s: g.state(s) for s in ("Blue", "Red")}
        if states["Blue"]["over"]:
            break
        side = next(s for s, st in states.items() if st["legal"])
        legal = states[side]["legal"]
        a = next((x for x in legal if x["type"] in ("end-phase", "pass")), legal[0])
        g.ok(side, {k: v for k, v in a.items() if k != "side"})
    r = g.client.get(f"/api/games/{g.id}/record", headers=g.h("Blue"))
    assert r.status_code == 200, r.text
    rec: dict[str, Any] = r.json()
    return rec


def games(c: Any) -> int:
    return len(c.app.state.service.store.query("SELECT id FROM games"))


def test_a_finished_game_exports_a_signed_record_that_imports(start: Any) -> None:
    g: Started = start("tiny-duel", seed=1)
    rec = play_to_the_end(g)
    check_save(rec)
    assert rec["signature"]["alg"] == "HMAC-SHA256" and len(rec["signature"]["mac"]) == 64
    r = g.client.post("/api/games/import", json={"save": rec})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["game"] != g.id and set(body["sides"]) == {"Blue", "Red"}
    back = Started(g.client, body["game"], {s: v["token"] for s, v in body["sides"].items()}, body)
    st = back.state("Red")
    assert (
        st["over"] and st["seq"] == len(rec["actions"]) and st["result"] == g.state("Red")["result"]
    )
    again = back.client.get(f"/api/games/{back.id}/record", headers=back.h("Red")).json()
    assert again["actions"] == rec["actions"] and again["state_hash"] == rec["state_hash"]


def test_unsigned_forged_or_foreign_saves_are_refused(
    start: Any, app_factory: Any, new_db: Any
) -> None:
    g: Started = start("tiny-duel", seed=2)
    rec = play_to_the_end(g)
    n = games(g.client)
    unsigned = {k: v for k, v in rec.items() if k != "signature"}
    forged_text = rec["scenario_source"].replace('title = "Tiny duel"', 'title = "Forged"')
    assert forged_text != rec["scenario_source"]
    forged = dict(
        rec,
        scenario_source=forged_text,
        scenario_hash=hashlib.sha256(forged_text.encode()).hexdigest(),
    )
    with TestClient(app_factory(new_db("other"))) as other:
        foreign = other.app.state.service.sign(unsigned)
    for save, said in (
        (unsigned, "signature: missing"),
        (forged, "signature: does not match"),
        (foreign, "signature: does not match"),
        (dict(rec, seed=rec["seed"] + 1), "signature: does not match"),
    ):
        r = g.client.post("/api/games/import", json={"save": save})
        assert r.status_code == 403, r.text
        assert r.json()["error"] == "forbidden" and said in r.json()["message"]
    r = g.client.post("/api/games/import", json={"save": dict(rec, seed="abc")})
    assert r.status_code == 422 and "seed: must be an integer" in r.json()["message"]
    assert games(g.client) == n


def test_the_server_key_is_kept_beside_the_database(app_factory: Any, tmp_path: Path) -> None:
    db = tmp_path / "keyed.sqlite"
    key_file = tmp_path / "keyed.sqlite.key"
    with TestClient(app_factory(db)) as c:
        body = c.post("/api/games", json={"scenario": "tiny-duel", "seed": 3}).json()
        rec = play_to_the_end(
            Started(c, body["game"], {s: v["token"] for s, v in body["sides"].items()}, body)
        )
    assert key_file.is_file() and stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assert len(bytes.fromhex(key_file.read_text(encoding="ascii").strip())) == 32
    with TestClient(app_factory(db)) as c:  # a restart keeps the key: its records still import
        assert c.post("/api/games/import", json={"save": rec}).status_code == 201
    savefile.verify(rec, bytes.fromhex(key_file.read_text(encoding="ascii").strip()))
    assert json.loads(json.dumps(rec)) == rec
