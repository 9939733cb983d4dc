"""The encodings behind state hashes, save hash chains and save signatures."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from grognard.core import serial

if TYPE_CHECKING:
    from grognard.core.state import GameState, Piece

HASH_VERSION = "grognard-state-2"


def header_bytes(scenario_id: str, seed: int, options: Mapping[str, Any]) -> bytes:
    """What every state hash of a game starts with: the hash version, scenario, seed, options."""
    return serial.canonical(
        {"v": HASH_VERSION, "scenario": scenario_id, "seed": int(seed), "options": dict(options)}
    )


def encode_piece(p: Piece) -> bytes:
    """A piece's part of the state hash (its printed faces never change and are left out)."""
    return serial.fast_canonical(
        [
            p.id,
            p.type,
            p.side,
            p.nation,
            p.face,
            list(p.loc),
            sorted(p.__dict__.get("status", ())),
            p.attrs,
            p.name,
            p.order,
        ]
    )


def encode_rest(st: GameState) -> bytes:
    """Everything of the position but the pieces (and the log, which is not hashed)."""
    return serial.fast_canonical(
        [
            st.sides,
            dict(st.alignment),
            sorted(st.control.items()),
            st.markers,
            st.tracks,
            st.turn,
            [[f.step, f.params, f.entered, f.done] for f in st.frames],
            st.dice_counter,
            st.secrets,
            st.vars,
            st.result,
            st._order,
        ]
    )


def chain_next(prev: str, action: Mapping[str, Any]) -> str:
    """The next link of a save's hash chain over its actions."""
    return hashlib.sha256(prev.encode() + serial.canonical(action)).hexdigest()


def chain_of(actions: Sequence[Mapping[str, Any]]) -> str:
    """The head of the hash chain over ``actions`` (empty string for no action)."""
    head = ""
    for a in actions:
        head = chain_next(head, a)
    return head


def snapshot_digest(chain: str, state_hash: str, snap: Mapping[str, Any]) -> str:
    """The digest a save's snapshot carries: over the chain head, the state hash and every key
    of the snapshot but the digest itself."""
    body = {k: v for k, v in snap.items() if k != "digest"}
    return hashlib.sha256(
        chain.encode() + state_hash.encode() + serial.fast_canonical(body)
    ).hexdigest()


def hmac_sign(key: bytes, data: Mapping[str, Any]) -> str:
    """An HMAC-SHA256 signature of a save (all keys but ``signature``), for hosted games."""
    body = {k: v for k, v in data.items() if k != "signature"}
    return hmac.new(key, serial.canonical(body), hashlib.sha256).hexdigest()
