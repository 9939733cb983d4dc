"""Save and record files read from outside: checked key by key before a game is rebuilt.

:meth:`grognard.core.game.Game.load` trusts the form of what it is given. A file on disk (or a
save sent to a server) may be truncated, hand-edited or forged, so :func:`check_save` checks its
every key first and refuses the first problem with one line naming the key: a missing ``seed``,
``"seed": "abc"``, ``"actions": null``, ``"checkpoints": [[1]]``, an unknown key, a hash that is
not a SHA-256 hex digest. A save must carry its hashes: the ``checkpoints`` (the state hash at
each turn boundary) and the final ``state_hash``; without them a save whose last actions were
cut off would load as a shorter game, unnoticed.

Hosted games sign the saves they export (:func:`sign`, HMAC-SHA256 with the server's key over
the canonical JSON of the save without its signature); :func:`verify` refuses an unsigned save,
or one whose any byte differs from what was signed (forged scenario text, actions or hashes).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from grognard.core import serial
from grognard.core.errors import GrognardError, SaveError
from grognard.core.game import SAVE_SCHEMA, Game
from grognard.core.inbound import InboundError, parse_json, problem
from grognard.scenario.loader import ScenarioError

FORMATS = ("grognard-save", "grognard-record")
SIGNATURE_ALG = "HMAC-SHA256"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_SEED_LIMIT = 2**63


def _show(v: Any) -> str:
    text = serial.dumps(v, indent=None) if not isinstance(v, str) else repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def _got(v: Any) -> str:
    """What a bad value is, for a message: its kind and (briefly) the value."""
    return _kind(v) if v is None or isinstance(v, bool) else f"{_kind(v)} ({_show(v)})"


def _text(v: Any) -> str | None:
    return None if isinstance(v, str) else f"must be a string, not {_got(v)}"


def _nonempty(v: Any) -> str | None:
    return _text(v) or (None if v else "must not be empty")


def _sha256(v: Any) -> str | None:
    if not isinstance(v, str) or not _HEX64.fullmatch(v):
        return f"must be a SHA-256 digest (64 hex digits), not {_show(v)}"
    return None


def _integer(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, int):
        return f"must be an integer, not {_got(v)}"
    return None


def _seed(v: Any) -> str | None:
    bad = _integer(v)
    if bad is None and not -_SEED_LIMIT < v < _SEED_LIMIT:
        bad = f"must be an integer between -2**63 and 2**63, not {v}"
    return bad


def _format(v: Any) -> str | None:
    if v not in FORMATS:
        return f"must be {' or '.join(repr(f) for f in FORMATS)}, not {_show(v)}"
    return None


def _options(v: Any) -> str | None:
    if not isinstance(v, dict):
        return f"must be an object of option choices, not {_got(v)}"
    for k, x in v.items():
        if isinstance(x, dict | list):
            return f"{k}: must be true, false, a number or a string, not {_kind(x)}"
    return None


def _overrides(v: Any) -> str | None:
    if not isinstance(v, dict):
        return f"must be an object (table id -> TOML text), not {_got(v)}"
    for k, x in v.items():
        if not isinstance(x, str):
            return f"{k}: must be the table's TOML text, not {_got(x)}"
    return None


def _actions(v: Any) -> str | None:
    if not isinstance(v, list):
        return f"must be an array of actions, not {_got(v)}"
    for i, a in enumerate(v):
        if not isinstance(a, dict):
            return f"[{i}] (action {i + 1}): must be an object, not {_got(a)}"
        for key in ("type", "side"):
            if not isinstance(a.get(key), str) or not a[key]:
                return f"[{i}] (action {i + 1}): needs a {key!r} string"
    return None


def _signature(v: Any) -> str | None:
    if not isinstance(v, dict) or set(v) != {"alg", "mac"}:
        return 'must be {"alg": "HMAC-SHA256", "mac": HEX}'
    if v["alg"] != SIGNATURE_ALG:
        return f"alg: must be {SIGNATURE_ALG!r}, not {_show(v['alg'])}"
    return None if _sha256(v["mac"]) is None else "mac: must be 64 hex digits"


# key -> (required, check); the order is the order problems are looked for
def _chain(v: Any) -> str | None:
    if v == "":
        return None  # no action yet
    return _sha256(v)


def _data_files(v: Any) -> str | None:
    if not isinstance(v, dict):
        return f"must be an object of file digests, not {_got(v)}"
    for k, d in v.items():
        if not isinstance(k, str) or _sha256(d) is not None:
            return f"[{_show(k)}]: must map a data file to its SHA-256 digest"
    return None


def _snapshot(v: Any) -> str | None:
    if not isinstance(v, dict):
        return f"must be an object (the state after the last action), not {_got(v)}"
    for key in ("after", "state", "barriers", "digest"):
        if key not in v:
            return f".{key}: missing"
    if _integer(v["after"]) is not None:
        return f".after: must be an action number, not {_show(v['after'])}"
    if not isinstance(v["state"], dict):
        return f".state: must be an object, not {_got(v['state'])}"
    if not isinstance(v["barriers"], list) or not all(isinstance(b, bool) for b in v["barriers"]):
        return ".barriers: must be an array of true/false"
    if _sha256(v["digest"]) is not None:
        return f".digest: must be a SHA-256 digest, not {_show(v['digest'])}"
    return None


KEYS: dict[str, tuple[bool, Callable[[Any], str | None]]] = {
    "format": (True, _format),
    "schema": (True, _integer),
    "engine_version": (False, _text),
    "ruleset": (True, _nonempty),
    "ruleset_version": (False, _text),
    "data_hash": (True, _sha256),
    "scenario_id": (False, _text),
    "scenario_hash": (True, _sha256),
    "scenario_source": (True, _nonempty),
    "scenario_file": (False, _text),
    "table_overrides": (False, _overrides),
    "seed": (True, _seed),
    "options": (True, _options),
    "actions": (True, _actions),
    "checkpoints": (True, lambda v: None),  # checked with the actions below
    "state_hash": (True, _sha256),
    "signature": (False, _signature),
    "chain": (False, _chain),  # schema 2
    "data_files": (False, _data_files),  # schema 2
    "snapshot": (False, _snapshot),  # schema 2 saves
}


def _checkpoints(v: Any, n_actions: int) -> str | None:
    if not isinstance(v, list):
        return f"must be an array of turn checkpoints, not {_got(v)}"
    if not v:
        return "must not be empty (a save holds at least the checkpoint after action 0)"
    last = -1
    for i, c in enumerate(v):
        if not isinstance(c, dict) or set(c) != {"after", "turn", "hash"}:
            return f'[{i}]: must be {{"after": N, "turn": LABEL, "hash": HEX}}, not {_show(c)}'
        after = c["after"]
        if _integer(after) is not None or not last < after <= n_actions:
            return (
                f"[{i}].after: must be an action number above {last} and at most {n_actions}"
                f" (the number of actions), not {_show(after)}"
            )
        if _text(c["turn"]) is not None:
            return f"[{i}].turn: must be a string, not {_kind(c['turn'])}"
        if _sha256(c["hash"]) is not None:
            return f"[{i}].hash: must be a SHA-256 digest (64 hex digits), not {_show(c['hash'])}"
        last = after
    if v[0]["after"] != 0:
        return "[0].after: the first checkpoint is the one after action 0"
    return None


def check_save(data: Any) -> None:
    """Raise :class:`SaveError` naming the first key of ``data`` (a parsed save or record) that
    is missing, unknown or malformed; return None when every key has the right form."""
    if not isinstance(data, dict):
        raise SaveError(
            f"not a grognard save or record: the file holds {_kind(data)}, not an object"
        )
    if "format" not in data:
        raise SaveError("not a grognard save or record (missing 'format')")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise SaveError(f"{unknown[0]}: unknown key (known: {', '.join(KEYS)})")
    for key, (required, check) in KEYS.items():
        if key not in data:
            if required:
                raise SaveError(f"{key}: missing")
            continue
        bad = check(data[key])
        if bad is not None:
            sep = "" if bad.startswith("[") else ": "
            raise SaveError(f"{key}{sep}{bad}")
        if key == "schema" and not 1 <= data[key] <= SAVE_SCHEMA:
            if data[key] > SAVE_SCHEMA:
                raise SaveError(
                    f"schema: {data[key]} is newer than this grognard ({SAVE_SCHEMA}); upgrade"
                    " grognard"
                )
            raise SaveError(f"schema: must be between 1 and {SAVE_SCHEMA}, not {data[key]}")
    bad = _checkpoints(data["checkpoints"], len(data["actions"]))
    if bad is not None:
        raise SaveError(f"checkpoints{'' if bad.startswith('[') else ': '}{bad}")
    text_hash = hashlib.sha256(data["scenario_source"].encode("utf-8", "surrogatepass")).hexdigest()
    if not hmac.compare_digest(text_hash, data["scenario_hash"]):
        raise SaveError(
            "scenario_source: the scenario text does not match its recorded scenario_hash (it"
            " was changed after the game was saved)"
        )
    unusable = problem(data)
    if unusable is not None:
        raise SaveError(unusable)


def parse_save(text: str | bytes) -> dict[str, Any]:
    """Parse and check the text of a save or record (see :func:`check_save`)."""
    try:
        data = parse_json(text, "the file")
    except InboundError as e:
        raise SaveError(str(e)) from None
    check_save(data)
    out: dict[str, Any] = data
    return out


def read_save(path: str | Path) -> dict[str, Any]:
    """Read, parse and check a save or record file; every problem is one line naming the file."""
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise SaveError(f"{path}: cannot read: {e.strerror}") from None
    try:
        return parse_save(raw)
    except SaveError as e:
        raise SaveError(f"{path}: {e}") from None


def load_game(
    data: Mapping[str, Any],
    check: bool = True,
    allow_data_change: bool = False,
    verify: bool = False,
) -> Game:
    """Rebuild the game of a checked save (:func:`check_save`); a failure is a GrognardError.
    ``verify``: replay the whole log and check every recorded hash (not only the snapshot)."""
    try:
        return Game.load(data, check=check, allow_data_change=allow_data_change, verify=verify)
    except ScenarioError as e:
        first = f"{e.problems[0][0]}: {e.problems[0][1]}" if e.problems else str(e)
        more = f" (and {len(e.problems) - 1} more)" if len(e.problems) > 1 else ""
        raise SaveError(f"scenario_source: the scenario does not validate: {first}{more}") from None
    except GrognardError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as e:
        raise SaveError(f"the save cannot be replayed: {type(e).__name__}: {e}") from None


def load_save(
    path: str | Path, check: bool = True, allow_data_change: bool = False, verify: bool = False
) -> Game:
    """The game of a save or record file, every problem one line naming the file."""
    data = read_save(path)
    try:
        return load_game(data, check=check, allow_data_change=allow_data_change, verify=verify)
    except SaveError as e:
        raise SaveError(f"{path}: {e}") from None


# ====================================================================== signatures
def _mac(data: Mapping[str, Any], key: bytes) -> str:
    body = {k: v for k, v in data.items() if k != "signature"}
    return hmac.new(key, serial.canonical(body), hashlib.sha256).hexdigest()


def sign(data: Mapping[str, Any], key: bytes) -> dict[str, Any]:
    """``data`` with its signature: HMAC-SHA256 with ``key`` over the canonical JSON of the rest."""
    return {**dict(data), "signature": {"alg": SIGNATURE_ALG, "mac": _mac(data, key)}}


def verify(data: Mapping[str, Any], key: bytes) -> None:
    """Raise :class:`SaveError` unless ``data`` carries a signature made with ``key`` over exactly
    its other keys (compared in constant time)."""
    sig = data.get("signature")
    if not isinstance(sig, dict) or _signature(sig) is not None:
        raise SaveError("signature: missing (a hosted game imports only saves it signed)")
    if not hmac.compare_digest(str(sig["mac"]), _mac(data, key)):
        raise SaveError(
            "signature: does not match (the save was changed after it was signed, or was signed"
            " by another server)"
        )
