"""La Grande Guerre 14-18 (rule system ``lgg1418``).

See :mod:`grognard.rulesets.lgg1418.ruleset` for the organisation of the package and
``docs/rulesets/lgg1418.md`` for the rules covered, the options and the provisional data.
"""

from __future__ import annotations

from grognard.rulesets.lgg1418.ruleset import LaGrandeGuerre

__all__ = ["LaGrandeGuerre"]
