"""Every refusal has the documented body ``{"error", "message"}`` (with ``rule`` or ``problems``
where documented), whatever the request: bytes that are not UTF-8, JSON nested too deeply, a path
or method the server does not know; and the static folder serves the browser client only."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.conftest import Started

DOCUMENTED = {"error", "message", "rule", "problems"}


def shaped(r: Any, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body = r.json()
    assert isinstance(body, dict) and {"error", "message"} <= set(body) <= DOCUMENTED, body
    assert isinstance(body["error"], str) and isinstance(body["message"], str) and body["message"]
    return body


BODIES = [
    (b"\xc3\x28", "not UTF-8"),
    (b'{"action": {"type": "\xff"}}', "not UTF-8"),
    (b"[" * 100_000 + b"]" * 100_000, "nested"),
    (b'{"action": {"type": "x", "a": ' + b"[" * 50_000 + b"]" * 50_000 + b"}}", "nested"),
    (b'{"action": {"type": "x", "a": ' + b"[" * 200 + b"]" * 200 + b"}}", "nested"),
    (b"{not json", "not JSON"),
]


@pytest.mark.parametrize(("raw", "said"), BODIES)
def test_an_unreadable_body_is_a_422_in_the_documented_shape(
    start: Any, raw: bytes, said: str
) -> None:
    g: Started = start("tiny-duel", seed=1)
    for path in ("actions", "preview"):
        r = g.client.post(
            f"/api/games/{g.id}/{path}",
            headers={**g.h("Blue"), "Content-Type": "application/json"},
            content=raw,
        )
        body = shaped(r, 422)
        assert body["error"] == "bad-request" and said in body["message"], body
    assert g.state("Blue")["seq"] == 0


def test_unknown_paths_and_methods_answer_in_the_documented_shape(client: Any) -> None:
    assert shaped(client.get("/api/nope"), 404)["error"] == "not-found"
    assert shaped(client.get("/nope"), 404)["error"] == "not-found"
    assert shaped(client.delete("/api/health"), 405)["error"] == "method-not-allowed"
    assert shaped(client.post("/api/games/x/state"), 405)["error"] == "method-not-allowed"


def test_static_serves_the_browser_client_only(client: Any) -> None:
    for asset in ("app.js", "map.js", "style.css", "index.html"):
        assert client.get(f"/static/{asset}").status_code == 200, asset
    for other in ("__init__.py", "__pycache__", "", "../server/app.py", "%2e%2e/server/app.py"):
        shaped(client.get(f"/static/{other}"), 404)
