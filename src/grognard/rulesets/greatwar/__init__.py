"""The Great War series standard rules ("Over There") as the rule system ``greatwar``.

The rules are grouped by concern; imports flow from the base modules up to the rule system class
(no import cycle of more than three modules, no import inside a function):

=================  =========================================================================
where              rules
=================  =========================================================================
``actions``        every action type: fields, rule ids, label
``step``           the step base (one handler per action type, OT 4C) and the extensions of
                   the movement steps and the initial phase
``hooks``          what a basic rule sets off in the rules built on it (``GreatWar``
                   implements it)
``mechanics``      OT 3C fractions, cumulative effects, table rolls, accumulation; OT 3D markers
``calendar``       OT 4 turn labels and dates
``charts``         non-die charts (TEC, ZOC/overrun costs, rail/river rates, Stacking Summary)
``units/``         OT 3A units, OT 3B nations, the catalogue, OT 14 special units, leaders,
                   Army HQs, transport units, OT 15F breakdowns
``map/``           OT 3E geography, the TEC and OT 7B roads, OT 3E6 weather, OT 5 ZOCs and
                   ownership
``movement/``      OT 6 movement and its steps, OT 6C reserves, OT 6F overruns, OT 7A rail,
                   OT 7C rivers, OT 8 stacking, OT 14B2 water-only units; the step list
``supply/``        OT 11 supply, OT 3G isolation, the status both leave
``logistics/``     OT 11C/11H logistics, OT 13 engineers, OT 16 replacements and reinforcements
``combat/``        OT 9-10 combat (the attack is a core ``Procedure``), OT 12 artillery and
                   support, OT 9J contested hexes, OT 15G sieges
``sequence/``      OT 4 the sequence of play, victory
``special_rules``  OT 15 special rules and the Rule 14-15 combat interface
=================  =========================================================================
"""

from grognard.rulesets.greatwar.ruleset import GreatWar

__all__ = ["GreatWar"]
