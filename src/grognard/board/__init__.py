"""Map model compiled to flat arrays."""

from grognard.board.model import Area, Board, BoardBuilder, BoardError, Box, BoxLink, Network, Point

__all__ = ["Area", "Board", "BoardBuilder", "BoardError", "Box", "BoxLink", "Network", "Point"]
