"""Reading saves and game records: checks, schema migrations, snapshot or replay.

Save schema 2 (this version) holds, beside the scenario text, seed, options and the action log:

``chain``
    the head of a hash chain over the actions (:func:`grognard.core.hashing.chain_of`): an edited,
    dropped or added action is refused;
``snapshot``
    the state after the last action (``state``, with its log), the undo barriers, and when the
    last actions can still be taken back the state at the last barrier (``undo_state``); its
    ``digest`` covers the chain head, the state hash and the state, so an edited snapshot is
    refused;
``data_files``
    a digest of each rule-data file the game uses: a save is refused for a change in one of
    them (not for an edit elsewhere in the rule system's data); ``allow_data_change`` loads it
    anyway, by replaying its log;
``checkpoints`` and ``state_hash``
    the state hash at every turn boundary and at the end. A save without them is refused.

Loading a save takes its snapshot (the cost does not grow with the game's length);
``verify=True`` replays the whole log from the start and checks every checkpoint, the final hash
and that the replay ends on the snapshot. A record (``grognard-record``) has no snapshot and is
always replayed.

Schema 1 (grognard up to 0.1 at commit 2815226): no chain, no snapshot, one ``data_hash`` over
all rule data, hashes of the first hash version (:meth:`Game.legacy_state_hash`). Such a file is
replayed and checked against its own hashes; a change of rule data is accepted when the replay
reproduces them. Saving it again writes schema 2.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from grognard.core import hashing, serial
from grognard.core.errors import GrognardError, ReplayMismatch, SaveError
from grognard.core.state import GameState
from grognard.core.tracked import copy_plain
from grognard.scenario.loader import load_scenario_text, recall

if TYPE_CHECKING:
    from grognard.core.game import Game
    from grognard.scenario.model import Scenario

SCHEMA = 2


def migrate(d: dict[str, Any]) -> dict[str, Any]:
    """Check the format and schema of a save or record (and bring older schemas up to date)."""
    fmt = d.get("format")
    if fmt not in ("grognard-save", "grognard-record"):
        raise SaveError("not a grognard save or record (missing 'format')")
    schema = d.get("schema")
    if not isinstance(schema, int) or isinstance(schema, bool):
        raise SaveError("save has no schema version ('schema')")
    if schema > SCHEMA:
        raise SaveError(
            f"save schema {schema} is newer than this grognard ({SCHEMA}); upgrade grognard"
        )
    if schema < 1:
        raise SaveError(f"unknown save schema {schema}")
    # Schema 1 -> 2: nothing to rewrite; the file is replayed with its own (legacy) hashes and
    # saved again as schema 2 (see the module docstring).
    return d


def _need(d: Mapping[str, Any], key: str, types: Any, what: str) -> Any:
    if key not in d:
        raise SaveError(f"save is missing {key!r}")
    v = d[key]
    if not isinstance(v, types) or (isinstance(v, bool) and bool not in _as_tuple(types)):
        raise SaveError(f"save key {key!r} must be {what}")
    return v


def _as_tuple(t: Any) -> tuple[Any, ...]:
    return t if isinstance(t, tuple) else (t,)


def _checked(d: Mapping[str, Any]) -> dict[str, Any]:
    """The keys every loader needs, with their types checked (one clear line per problem)."""
    out: dict[str, Any] = {}
    out["scenario_source"] = _need(d, "scenario_source", str, "the scenario's text (a string)")
    name = d.get("scenario_file") or "<save>"
    if not isinstance(name, str):
        raise SaveError("save key 'scenario_file' must be a string")
    out["scenario_file"] = name
    ov = d.get("table_overrides", {})
    if not isinstance(ov, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in ov.items()
    ):
        raise SaveError("save key 'table_overrides' must map table ids to TOML text")
    out["table_overrides"] = ov
    out["seed"] = _need(d, "seed", int, "an integer")
    opts = d.get("options", {})
    if not isinstance(opts, dict):
        raise SaveError("save key 'options' must be an object")
    out["options"] = opts
    actions = _need(d, "actions", list, "a list of actions")
    for i, a in enumerate(actions, start=1):
        if not isinstance(a, dict):
            raise SaveError(f"save key 'actions': item {i} is not an action object")
    out["actions"] = actions
    cps = _need(d, "checkpoints", list, "a list of checkpoints")
    for i, c in enumerate(cps, start=1):
        if (
            not isinstance(c, dict)
            or not isinstance(c.get("after"), int)
            or not isinstance(c.get("hash"), str)
        ):
            raise SaveError(f"save key 'checkpoints': item {i} needs 'after' and 'hash'")
    out["checkpoints"] = cps
    out["state_hash"] = _need(d, "state_hash", str, "the final state hash (a string)")
    return out


def scenario_of(text: str, name: str, overrides: Mapping[str, str]) -> Scenario:
    """The compiled scenario of a save: the one this process last compiled from the same text,
    name and tables (from a file or another save: a compiled scenario never changes), else
    compiled now."""
    hit = recall(text, name, overrides)
    if hit is not None:
        return hit
    return load_scenario_text(text, name, table_overrides=dict(overrides))


def open_save(
    cls: type[Game],
    data: Mapping[str, Any],
    check: bool = True,
    allow_data_change: bool = False,
    verify: bool = False,
) -> Game:
    """Rebuild a game from a save or record (see the module docstring)."""
    if not isinstance(data, Mapping):
        raise SaveError("a save must be a JSON object")
    d = migrate(dict(data))
    k = _checked(d)
    legacy = d["schema"] == 1
    try:
        scenario = scenario_of(k["scenario_source"], k["scenario_file"], k["table_overrides"])
    except GrognardError as e:
        raise SaveError(f"the scenario in the save does not load: {e}") from None
    if scenario.content_hash != d.get("scenario_hash"):
        raise SaveError("the scenario text in the save does not match its recorded hash")
    rs = scenario.ruleset
    if rs.name != d.get("ruleset"):
        raise SaveError(
            f"save is for rule system {d.get('ruleset')!r}, its scenario uses {rs.name!r}"
        )
    changed = _changed_data(rs, scenario, d, legacy)
    if changed and not legacy and not allow_data_change:
        raise SaveError(
            f"the {rs.name} rule data this game uses changed since it was saved "
            f"({', '.join(changed)}); the game may not replay identically"
        )
    snap = d.get("snapshot")
    fast = (
        not legacy
        and not verify
        and not changed
        and d["format"] == "grognard-save"
        and isinstance(snap, dict)
    )
    if fast:
        return _from_snapshot(cls, scenario, k, d, snap)  # type: ignore[arg-type]
    if not legacy and d["format"] == "grognard-save" and not isinstance(snap, dict):
        raise SaveError("save key 'snapshot' is missing or not an object")
    if not legacy and hashing.chain_of(k["actions"]) != d.get("chain"):
        raise SaveError("the action log does not match its hash chain (the save was edited)")
    try:
        g = cls.new(scenario, k["seed"], k["options"])
    except GrognardError as e:
        raise SaveError(f"cannot start the saved game: {e}") from None
    try:
        g.replay_actions(k["actions"], k["checkpoints"] if check else [], legacy=legacy)
        final = g.legacy_state_hash() if legacy else g.state_hash()
        if check and k["state_hash"] and final != k["state_hash"]:
            raise ReplayMismatch(len(g.actions), g.turn_label(), k["state_hash"], final)
    except (ReplayMismatch, SaveError) as e:
        if changed and not allow_data_change:
            raise SaveError(
                f"the {rs.name} rule data changed since this game was saved "
                f"and the game does not replay identically: {e}"
            ) from None
        raise
    replayed = g.state.to_json(with_log=True) if verify and not legacy else None
    if isinstance(snap, dict) and replayed is not None and snap.get("state") != replayed:
        raise SaveError("the replay does not end on the saved snapshot")
    return g


def _changed_data(rs: Any, scenario: Scenario, d: Mapping[str, Any], legacy: bool) -> list[str]:
    """The rule-data files the game uses that changed since it was saved."""
    if legacy or not isinstance(d.get("data_files"), dict):
        same = hmac.compare_digest(rs.data_hash(scenario.table_overrides), str(d.get("data_hash")))
        return [] if same else ["data"]
    saved: dict[str, str] = d["data_files"]
    now = rs.data_digests(scenario)
    return sorted(f for f in set(saved) | set(now) if saved.get(f) != now.get(f))


def _from_snapshot(
    cls: type[Game],
    scenario: Scenario,
    k: Mapping[str, Any],
    d: Mapping[str, Any],
    snap: Mapping[str, Any],
) -> Game:
    actions = k["actions"]
    chain: list[str] = []
    head = ""
    for a in actions:
        head = hashing.chain_next(head, a)
        chain.append(head)
    if head != d.get("chain"):
        raise SaveError("the action log does not match its hash chain (the save was edited)")
    after = snap.get("after")
    barriers = snap.get("barriers")
    undo_from = snap.get("undo_from", after)
    state_json = snap.get("state")
    if (
        after != len(actions)
        or not isinstance(barriers, list)
        or len(barriers) != len(actions)
        or not isinstance(undo_from, int)
        or not 0 <= undo_from <= len(actions)
        or not isinstance(state_json, dict)
    ):
        raise SaveError("save key 'snapshot' is inconsistent with the action log")
    if snap.get("digest") != hashing.snapshot_digest(head, k["state_hash"], snap):
        raise SaveError("the snapshot does not match its digest (the save was edited)")
    rs = scenario.ruleset
    try:
        options = rs.option_set().resolve(scenario.options, k["options"], where="options")
    except GrognardError as e:
        raise SaveError(f"save key 'options': {e}") from None
    g = cls(rs, scenario, k["seed"], options)
    try:
        g.state = GameState.from_json(copy_plain(state_json))
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise SaveError(f"save key 'snapshot': the state does not load ({e!r})") from None
    if g.state_hash() != k["state_hash"]:
        raise SaveError("the snapshot's state does not match the save's state hash")
    g.actions = serial.from_json_data(list(actions))
    g.chain = chain
    g.barriers = [bool(b) for b in barriers]
    g.checkpoints = [dict(c) for c in k["checkpoints"]]
    if undo_from == len(actions):
        g._snap = g.state.clone()
    else:
        undo_state = snap.get("undo_state")
        if not isinstance(undo_state, dict):
            raise SaveError("save key 'snapshot' lacks the state to undo from")
        g._snap = GameState.from_json(copy_plain(undo_state))
    g._snap_at = undo_from
    return g


def rebuild(
    cls: type[Game],
    scenario_source: str,
    scenario_file: str,
    table_overrides: Mapping[str, str],
    seed: int,
    options: Mapping[str, Any],
    actions: list[dict[str, Any]],
) -> Game:
    """A game rebuilt from trusted parts (a server's own database) by replaying its actions."""
    try:
        scenario = scenario_of(scenario_source, scenario_file or "<game>", table_overrides)
        g = cls.new(scenario, seed, options)
    except GrognardError as e:
        raise SaveError(f"the game's scenario does not load: {e}") from None
    g.replay_actions(actions)
    return g
