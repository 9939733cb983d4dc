"""The East Front series base (ours) and its Naval Module: the rule system ``eastfront``.

See :mod:`grognard.rulesets.eastfront.ruleset` for the layout of the package and
``docs/rulesets/eastfront.md`` for the rules, their readings and the provisional tables.
"""

from __future__ import annotations

from grognard.rulesets.eastfront.ruleset import EastFront

__all__ = ["EastFront"]
