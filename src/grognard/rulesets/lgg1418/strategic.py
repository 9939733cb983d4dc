"""Typed state of the strategic layer (rules 24-26 and 40-47 are not implemented yet).

National will (VN), parliament, regime and the economy are per-power tracks the later
rules read and write. They live in ``g.state.tracks`` (public) so the scenario can set them
(``[tracks.national_will.DE] value = 50``); this module gives them a type and the one
mutation helper those rules will use, so the layout is fixed now.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from grognard.rulesets.lgg1418 import model as M

if TYPE_CHECKING:
    from grognard.core.game import Game

REGIMES = ("autocracy", "constitutional-monarchy", "democracy", "communism")
DEFAULT_REGIMES = {
    "RU": "autocracy",
    "TR": "autocracy",
    "DE": "constitutional-monarchy",
    "AH": "constitutional-monarchy",
    "FR": "democracy",
    "IT": "democracy",
    "GB": "democracy",
    "US": "democracy",
}


@dataclass
class NationalWill:
    """A power's national will record (25, 40.1): the VN value, the parliament box (0 = neutral,
    negative toward defeatism), the regime (40.1-A) and the weariness ban on Stosstruppen (34-D)."""

    value: int = 0
    parliament: int = 0
    regime: str = "democracy"
    weary_until: str = ""

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> NationalWill:
        known = {k: d[k] for k in ("value", "parliament", "regime", "weary_until") if k in d}
        return cls(**known)


def national_will(g: Game, nation: str) -> NationalWill:
    raw = g.state.tracks.get("national_will", {}).get(nation)
    if raw is None:
        return NationalWill(regime=DEFAULT_REGIMES.get(nation, "democracy"))
    return NationalWill.from_json(raw)


def set_national_will(g: Game, nation: str, rec: NationalWill, rule: str, reason: str) -> None:
    """Write a power's record and log the change (every VN change names its rule)."""
    before = national_will(g, nation)
    g.state.tracks.setdefault("national_will", {})[nation] = asdict(rec)
    M.touch(g)
    if before.value != rec.value:
        g.emit(
            "national-will",
            f"{M.nation_name(g, nation)} national will {before.value} -> {rec.value} ({reason})",
            rule=rule,
            nation=nation,
            value=rec.value,
        )


def init_tracks(g: Game) -> None:
    """Give every power in play a national-will record (scenario values kept)."""
    tracks = g.state.tracks.setdefault("national_will", {})
    for nation in sorted(g.state.alignment):
        if M.is_major(g, nation):
            rec = national_will(g, nation)
            tracks[nation] = asdict(rec)


# ====================================================================== political records (35)
def rec(g: Game) -> dict[str, Any]:
    """The political records (read-only use; see :func:`rec_w`)."""
    return M.st(g).get("politics", {})


def rec_w(g: Game) -> dict[str, Any]:
    """The political records, created when first written (only while applying an action)."""
    return M.st(g).setdefault("politics", {})


def queue_patriotic(g: Game, nation: str, reason: str, rule: str) -> None:
    """Queue a patriotic-reaction test for the end of the turn (one per nation per turn)."""
    if not M.is_major(g, nation) or nation not in g.state.alignment:
        return
    due = rec_w(g).setdefault("patriotic_due", {})
    due.setdefault(nation, []).append(reason)
    M.touch(g)
