"""The tiny test rule system plus the optional browser hooks (``preview`` and ``reachable``).

``tiny-ui`` plays exactly like ``tiny`` (same steps, same data); it only adds the hooks
the server looks for, so the server and browser tests can exercise both the hooked and
the generic paths.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tests.tinyrules.ruleset as tiny
from grognard.core.arith import odds_ratio
from grognard.core.errors import IllegalAction
from grognard.core.game import Game
from grognard.rulesets import register


class TinyUI(tiny.Tiny):
    name = "tiny-ui"
    title = "Tiny test game with browser hooks"

    @property
    def data_dir(self) -> Path:
        return Path(tiny.__file__).resolve().parent / "data"

    def reachable(self, g: Game, piece_ids: list[str]) -> dict[str, Any]:
        """Hexes the single selected piece may enter this movement phase (T 3), with cost 1."""
        out: dict[str, Any] = {}
        side = tiny.tiny(g).active
        for a in g.legal_actions(side):
            if a.get("type") == "move" and [a.get("piece")] == list(piece_ids):
                out[str(a["to"])] = {"cost": 1}
        return out

    def preview(self, g: Game, action: dict[str, Any]) -> dict[str, Any]:
        """Odds and exact result distribution of a T 4 attack, from what the attacker can see."""
        if action.get("type") != "attack":
            return {"text": self.describe_action(g, action)}
        side = action["side"]
        for key in ("from", "target"):
            if not g.board.has_label(str(action.get(key, ""))):
                raise IllegalAction("T 4", f"no hex {action.get(key)!r}")
        i, j = g.board.idx(action["from"]), g.board.idx(action["target"])
        att = [p for p in g.state.at_hex(i) if p.side == side]
        dfn = [p for p in g.state.at_hex(j) if p.side != side and tiny.visible(g, p, side)]
        a = sum(p.stat("strength", 0) for p in att)
        d = sum(p.stat("strength", 0) for p in dfn)
        crt = self.tables(g.scenario.table_overrides)["crt"]
        ra, rd = odds_ratio(a, d)
        col = f"{ra}:{rd}"
        if col not in crt.columns:
            col = crt.columns[0] if (ra, rd) < (1, 1) or ra == 1 else crt.columns[-1]
        return {
            "text": f"{a} against {d} (before any reserve is committed)",
            "odds": col,
            "attack": a,
            "defense": d,
            "distribution": crt.distribution(col),
        }


register(TinyUI)
