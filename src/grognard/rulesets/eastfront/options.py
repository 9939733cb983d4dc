"""Rule options: interpretation switches for the readings the seed leaves open.

Each switch names the rule it reads and the digest's ambiguity (naval-module.md, 6.1) it
settles; the defaults are the digest's proposed defaults. Rule code reads them with
``g.opt(id)`` where the reading is applied, so a variant is one option value, never a list
filled at import time.
"""

from __future__ import annotations

from grognard.core.options import OptionSpec

OPTIONS = (
    OptionSpec(
        "cd_drm",
        "Coast artillery DRM on the Naval Movement Loss Table",
        kind="interpretation",
        default="beyond-first",
        choices=("beyond-first", "total"),
        rule="NM 27.2",
        help="beyond-first: +1 per CD point after the first (27.2); total: the CD points (30.3d)",
    ),
    OptionSpec(
        "damaged_support",
        "Artillery support left to a badly damaged naval unit",
        kind="interpretation",
        default="half-down",
        choices=("half-down", "half-up"),
        rule="NM 27.33",
        help="half-down: the lost half is rounded up; half-up: the half kept is rounded up",
    ),
    OptionSpec(
        "interdiction_level",
        "Interdiction Level from several mission units",
        kind="interpretation",
        default="sum",
        choices=("sum", "max"),
        rule="NM 31.1",
        help="sum (at most 2) or the best single rating",
    ),
    OptionSpec(
        "storm_drm",
        "Storm DRM on the Naval Movement Loss Table (the value is not printed)",
        kind="interpretation",
        default=1,
        choices=(1, 2, 3),
        rule="NM 26.12",
    ),
    OptionSpec(
        "abort_return_sails",
        "A naval unit that aborts back to its port turns to its Sailed side",
        kind="interpretation",
        default=True,
        rule="NM 26.3",
    ),
    OptionSpec(
        "sail_after_motorized",
        "Naval units turn to Sailed after the Motorized Movement Phase as well",
        kind="interpretation",
        default=True,
        rule="NM 26.3",
        help="the K.Kavkas example turns the unit after a Motorized Movement Phase",
    ),
    OptionSpec(
        "evacuation_in_motorized",
        "Evacuation may be declared in the Motorized Movement Phase too",
        kind="interpretation",
        default=True,
        rule="NM 28.2",
    ),
    OptionSpec(
        "flotilla_repair",
        "Flotilla repair in the Naval Readiness Phase",
        kind="interpretation",
        default="full",
        choices=("full", "one"),
        rule="NM 27.43",
        help="full: every Damage Point; one: one point per phase",
    ),
    OptionSpec(
        "naval_support",
        "Which sides' naval units give artillery support",
        kind="interpretation",
        default="soviet",
        choices=("soviet", "both"),
        rule="NM 29.0",
        help="the module writes Soviet naval artillery support only (the digest's 6.1 #9)",
    ),
    OptionSpec(
        "repair_damage_drm",
        "The +1 DRM for damage applies to repair rolls as well",
        kind="interpretation",
        default=False,
        rule="NM 27.41",
    ),
)
