"""Each rule system's features for the agents (see :mod:`grognard.ai.features.base`)."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

from grognard.ai.features.base import Features, is_ending
from grognard.ai.features.eastfront import EastFrontFeatures
from grognard.ai.features.greatwar import GreatWarFeatures
from grognard.ai.features.lgg1418 import LGGFeatures
from grognard.ai.features.tinyrules import TinyFeatures

if TYPE_CHECKING:
    from grognard.core.game import Game

BY_RULESET = MappingProxyType(
    {
        "greatwar": GreatWarFeatures,
        "lgg1418": LGGFeatures,
        "eastfront": EastFrontFeatures,
        "tiny": TinyFeatures,
    }
)


def features_for(g: Game) -> Features:
    """The features of ``g``'s rule system (the generic ones for a rule system without its own)."""
    return BY_RULESET.get(g.ruleset.name, Features)()


__all__ = ["BY_RULESET", "Features", "features_for", "is_ending"]
