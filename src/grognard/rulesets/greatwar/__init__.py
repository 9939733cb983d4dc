"""The Great War series standard rules ("Over There") as the rule system ``greatwar``.

One module per rule group; each phase of the sequence of play hands its work to the module of
the rule that governs it:

=================  =========================================================================
module             rules
=================  =========================================================================
``units``          OT 3A units: size, class, RE, heavy equipment, disruption
``nations``        OT 3B nations and sides, OT 3F theaters and commands
``mechanics``      OT 3C fractions, cumulative effects, table rolls, accumulation; OT 3D markers
``geography``      OT 3E terrain, cities, districts, islands, adjacency
``weather``        OT 3E6 weather zones, the turn track's weather and freezing
``isolation``      OT 3G isolation
``calendar``       OT 4 turn labels and dates
``sequence``       OT 4 the sequence of play (steps of turns, player turns and phases)
``zoc``            OT 5A zones of control, OT 5B ownership
``terrain``        TEC lookups, OT 7B roads, the movement parts of OT 15A
``movement``       OT 6 movement, 6A ZOC costs, 6B accelerated movement and fatigue, 6D, 6E
``reserves``       OT 6C reserve commitment movement
``overrun``        OT 6F overruns
``rail``           OT 7A railroads, rail nets and capacity
``rivers``         OT 7C navigable inland waterways
``stacking``       OT 8 stacking, Corps HQs boxes, overstacking
``combat``         OT 9 combat (segment step; strengths and retreats used by overruns)
``supply``         OT 11 supply (blocking, regular sources, the general supply hook)
``artillery``      OT 12 artillery (support, movement disruption, bombardment segment)
``special_units``  OT 14 special units (families, Army HQs)
``victory``        the scenario's victory conditions
``charts``         non-die charts (TEC, ZOC/overrun costs, rail/river rates, Stacking Summary)
``catalogue``      the unit-type catalogue and the nation list
=================  =========================================================================
"""

from grognard.rulesets.greatwar.ruleset import GreatWar

__all__ = ["GreatWar"]
