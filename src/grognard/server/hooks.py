"""Optional rule-system hooks used by the browser client, with generic fallbacks.

A rule system may provide, either as a method of its :class:`~grognard.rulesets.base.Ruleset`
or as a function in the package or module that defines it:

``reachable(game, piece_ids) -> list[str] | dict[str, Any]``
    hexes (printed ids) the pieces may move to now, optionally with a cost or path;
``preview(game, action) -> str | dict``
    what an action would do before it is committed: for an attack, the odds and the
    exact result distribution.

Without ``reachable`` the server derives the hexes from the legal actions whose
``piece`` (or ``pieces``) names the selected piece and whose ``to`` names a hex. Without
``preview`` the client shows the action's description only.

Hooks are rule-system code run on the true state; their output is passed through the
caller's redaction of hidden tokens before it reaches a client.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.rulesets.base import Ruleset

MOVE_TARGET_KEYS = ("to", "dest", "destination", "hex")


def find_hook(ruleset: Ruleset, name: str) -> Callable[..., Any] | None:
    """The rule system's ``name`` hook: a Ruleset method, or a function of its module or package."""
    fn = getattr(ruleset, name, None)
    if callable(fn):
        return fn
    modname = type(ruleset).__module__
    candidates = [modname]
    if "." in modname:
        candidates.append(modname.rsplit(".", 1)[0])
    for mod_name in candidates:
        try:
            mod = importlib.import_module(mod_name)
        except ImportError:
            continue
        fn = getattr(mod, name, None)
        if callable(fn) and not inspect.isclass(fn):
            return fn
    return None


def action_pieces(action: Mapping[str, Any]) -> list[str]:
    """The piece ids an action is about (``piece`` and/or ``pieces``)."""
    out: list[str] = []
    p = action.get("piece")
    if isinstance(p, str):
        out.append(p)
    ps = action.get("pieces")
    if isinstance(ps, list | tuple):
        out.extend(x for x in ps if isinstance(x, str))
    return out


def move_target(action: Mapping[str, Any]) -> str | None:
    for key in MOVE_TARGET_KEYS:
        v = action.get(key)
        if isinstance(v, str):
            return v
    return None


def derived_reachable(
    legal: Iterable[Mapping[str, Any]], piece_ids: list[str]
) -> dict[str, dict[str, Any]]:
    """Hexes named by legal actions that move exactly the selected pieces (generic fallback)."""
    wanted = set(piece_ids)
    out: dict[str, dict[str, Any]] = {}
    for a in legal:
        pieces = action_pieces(a)
        if not pieces or set(pieces) != wanted:
            continue
        target = move_target(a)
        if target is None:
            continue
        out.setdefault(target, {"action": dict(a)})
    return out


def reachable(g: Game, side: str, piece_ids: list[str]) -> dict[str, dict[str, Any]]:
    """Hex -> info (``action`` to send when known) for the selected pieces of ``side``."""
    legal = g.legal_actions(side)
    derived = derived_reachable(legal, piece_ids)
    hook = find_hook(g.ruleset, "reachable")
    if hook is None:
        return derived
    raw = hook(g, list(piece_ids))
    if raw is None:  # the rule system offers no reach for these pieces
        return derived
    out: dict[str, dict[str, Any]] = {}
    if isinstance(raw, Mapping):
        items: Iterable[tuple[str, Any]] = raw.items()
    else:
        items = ((h, None) for h in raw or [])
    for hexid, info in items:
        entry: dict[str, Any] = {}
        if info is not None:
            entry["info"] = info
        if hexid in derived:
            entry["action"] = derived[hexid]["action"]
        out[str(hexid)] = entry
    return out


def preview(g: Game, action: Mapping[str, Any]) -> dict[str, Any]:
    """What ``action`` would do, from the rule system's hook (``available`` False without one)."""
    hook = find_hook(g.ruleset, "preview")
    described = g.ruleset.describe_action(g, action)
    if hook is None:
        return {"available": False, "text": described}
    raw = hook(g, dict(action))
    if raw is None:
        return {"available": False, "text": described}
    if isinstance(raw, Mapping):
        return {"available": True, "text": described, **dict(raw)}
    return {"available": True, "text": str(raw)}


def group_actions(g: Game, legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Legal actions grouped by type, in first-seen order: each its index in ``legal`` and a
    description."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for k, a in enumerate(legal):
        groups.setdefault(str(a.get("type")), []).append(
            {"index": k, "text": g.ruleset.describe_action(g, a)}
        )
    return [{"type": t, "actions": acts} for t, acts in groups.items()]
