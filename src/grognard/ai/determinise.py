"""Determinisation: a copy of the game built from what one side may know.

An agent never reads the true state. It searches on a clone in which

* every enemy piece the side may not fully see is dealt out again from the side's view (the rule
  system's sampler, :meth:`grognard.ai.features.base.Features.sample_hidden`: stack markers,
  pieces inside visible carriers, hidden pieces on the map);
* the other sides' pending secret commitments are taken back, so that the search lets them
  choose again;
* the dice are reseeded from the agent's own random stream, so the search cannot learn the rolls
  the true game will make.

Everything is drawn from ``rng``, which the agent seeds from its seed and the side's view: the
same view and seed give the same clone, whatever the hidden pieces really are.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from grognard.ai.features import features_for
from grognard.core.sequence import SecretChoice

if TYPE_CHECKING:
    from grognard.core.game import Game


def canonical_view(view: Mapping[str, Any]) -> dict[str, Any]:
    """The view without its log, its anonymous stack markers sorted (their order follows the
    hidden pieces' order and tells nothing the markers do not)."""
    rest = {k: v for k, v in view.items() if k != "log"}
    rest["stacks"] = sorted(
        view.get("stacks", []), key=lambda m: json.dumps(m, sort_keys=True, default=str)
    )
    return rest


def view_digest(view: Mapping[str, Any]) -> str:
    """A digest of a side's view (its log counted by length: entries never change)."""
    rest = canonical_view(view)
    rest["log_length"] = len(view.get("log", []))
    text = json.dumps(rest, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def decision_rng(seed: int, view: Mapping[str, Any], salt: str = "") -> random.Random:
    """The random stream of one decision: a function of the agent's seed and the view only."""
    h = hashlib.sha256(f"{seed}:{salt}:{view_digest(view)}".encode()).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def reseed(g: Game, rng: random.Random) -> None:
    """Give a clone dice of its own (the true game's future rolls stay unknown)."""
    g.seed = rng.randrange(1, 2**62)


def determinise(g: Game, side: str, view: Mapping[str, Any], rng: random.Random) -> Game:
    """A clone of ``g`` consistent with ``view`` (``side``'s view of ``g``), its hidden enemy
    pieces, the enemy's pending secret choices and the dice drawn from ``rng``."""
    c = g.clone(undo=False)  # a search copy: nothing is ever rebuilt from the true state
    reseed(c, rng)
    before = c.state.revision
    features_for(c).sample_hidden(c, side, view, rng)
    redrawn = c.state.revision != before
    for f in c.state.frames:
        step = c.steps.get(f.step)
        if isinstance(step, SecretChoice):
            key = f.params.get("key")
            for other, secrets in c.state.secrets.items():
                if other != side and key in secrets:
                    del secrets[key]
                    redrawn = True
    c.state.sync()
    if redrawn:
        c.cache.new_world()  # values held from the true state must not reach the search
    return c
