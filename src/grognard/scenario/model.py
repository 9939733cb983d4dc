"""A validated scenario: the compiled board plus everything needed to set up a game."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from grognard.board import Board
from grognard.core.state import GameState, Loc, Piece
from grognard.scenario.schema import PieceDef, ScenarioFile

if TYPE_CHECKING:
    from pydantic import BaseModel

    from grognard.rulesets.base import Ruleset


@dataclass
class Scenario:
    data: ScenarioFile
    board: Board
    ruleset: Ruleset
    source_text: str
    source_name: str
    content_hash: str
    table_overrides: dict[str, str] = field(default_factory=dict)
    rules: BaseModel | None = None
    piece_locs: dict[str, Loc] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.data.scenario.id

    @property
    def title(self) -> str:
        return self.data.scenario.title

    @property
    def sides(self) -> list[str]:
        return list(self.data.scenario.sides)

    @property
    def options(self) -> Mapping[str, Any]:
        return dict(self.data.scenario.options)

    def nation_side(self, nation: str) -> str | None:
        n = self.data.nations.get(nation)
        return n.side if n else None

    def piece_side(self, pd: PieceDef) -> str:
        if pd.side:
            return pd.side
        side = self.nation_side(pd.nation)
        if side is None:
            raise ValueError(
                f"piece {pd.id} has no side (nation {pd.nation!r} is neutral or unknown)"
            )
        return side

    def make_piece(self, pd: PieceDef) -> Piece:
        faces = {k: dict(v) for k, v in pd.faces.items()}
        face = pd.face or (next(iter(faces)) if faces else "front")
        return Piece(
            id=pd.id,
            type=pd.type,
            side=self.piece_side(pd),
            nation=pd.nation,
            face=face,
            loc=self.piece_locs[pd.id],
            status=set(pd.status),
            attrs=dict(pd.attrs),
            faces=faces,
            name=pd.name,
        )

    def place_pieces(self, state: GameState) -> None:
        """Put every scenario piece in the state, set alignment and initial control."""
        for name, n in self.data.nations.items():
            state.alignment[name] = n.side
        # Carriers first so that "inside" references resolve in order of the file.
        for pd in self.data.pieces:
            state.add_piece(self.make_piece(pd))
        for side, hexes in self.data.control.hexes.items():
            for h in hexes:
                state.control[self.board.idx(h)] = side
        for area, side in self.data.control.areas.items():
            for i in self.board.areas[area].hexes:
                state.control[int(i)] = side
        state.tracks.update(self.data.tracks)
