"""Rule options and interpretation switches of La Grande Guerre 14-18.

The seed has one optional rule chosen at the start of a game (24, peace in winter 1914)
and leaves many points open. Each open point that affects rules 1-23 or 28-39 is an
``interpretation`` option named after the digest's ambiguity (A-1 .. A-63) or the audit's
finding, with the digest's proposed default (or ours, said in ``help``), so every rule module
reads the same switch. The options used by the rules implemented so far are read through
:func:`grognard.core.game.Game.opt`; the others are declared now for the rules still to be
written (battle, retreats, fortresses, trenches, doctrines).
"""

from __future__ import annotations

from grognard.core.options import OptionSpec

I = "interpretation"  # noqa: E741

OPTIONS: tuple[OptionSpec, ...] = (
    # ------------------------------------------------------------ basic switches and optional rules
    OptionSpec(
        "fog-of-war",
        "Fog of war: enemy stacks shown only as stack markers",
        kind="basic",
        default=True,
        rule="LGG 4-A",
        help="Off only for teaching and testing: every piece is then visible to both sides.",
    ),
    OptionSpec(
        "peace-winter-1914",
        "Peace in winter 1914 (optional rule 24)",
        kind="optional",
        default=False,
        rule="LGG 24",
        help="Chosen at the start of the game.",
    ),
    OptionSpec(
        "pre-turn",
        "Play the August 1914 pre-turn when the scenario starts in August 1914",
        kind="setting",
        default=True,
        rule="LGG 3-B",
    ),
    # ------------------------------------------------------------ rules 1-11 (used now)
    OptionSpec(
        "counter-value-format",
        "A-1: reading of counter value strings such as 83-9-4",
        kind=I,
        default="attack-fire",
        choices=("attack-fire",),
        rule="LGG 2-A",
        help=(
            "attack-fire (digest): the first group is attack then fire (83 = attack 8, fire 3),"
            " then defence, then movement; a group without a fire digit (2.3.3, 2-3-6) has fire 0."
        ),
    ),
    OptionSpec(
        "interphase-cadence",
        "A-2: when interphases fall in the calendar",
        kind=I,
        default="calendar",
        choices=("calendar", "winter-only"),
        rule="LGG 26",
        help=(
            "calendar: after each turn marked with an interphase in data/calendar.toml (autumn"
            " 1914, winter, summer); winter-only: after November-December only."
        ),
    ),
    OptionSpec(
        "isolation-test",
        "A-3: which isolation definition each rule uses (9-H vs 22)",
        kind=I,
        default="9h-combat-22-attrition",
        choices=("9h-combat-22-attrition", "9h-everywhere", "22-everywhere"),
        rule="LGG 9-H",
        help=(
            "Default (digest): 9-H (no free path of 5 hexes to a source or relay) for activation,"
            " combat and PR; 22 (no path of any length to a source) for attrition and destruction."
        ),
    ),
    OptionSpec(
        "pr-restore-cost",
        "A-5: PR cost of restoring one reduced corps",
        kind=I,
        default=1,
        choices=(1, 2),
        rule="LGG 5-B",
    ),
    OptionSpec(
        "pr-cap-1914-15",
        "A-5: the 1914-1915 PR maxima replace the 2 x flow cap, or both apply",
        kind=I,
        default="replace",
        choices=("replace", "both"),
        rule="LGG 5-C",
    ),
    OptionSpec(
        "first-turn-reinforcements",
        "5 vs 3-C: what the reinforcement phase does on a scenario's first turn",
        kind=I,
        default="scheduled-only",
        choices=("scheduled-only", "none"),
        rule="LGG 5",
        help=(
            "Ours: rule 5 skips the phase on a first turn while 3-C brings the August 1914 orders"
            " of battle; scheduled arrivals are placed, nothing else happens."
        ),
    ),
    OptionSpec(
        "front-order",
        "Order in which the fronts play their military phase",
        kind=I,
        default="east-first",
        choices=("east-first", "west-first"),
        rule="LGG 6-B",
        help=(
            "Ours: the seed decides the first mover on the East, then on the West (6-B), but does"
            " not say which front plays first; we follow the same order."
        ),
    ),
    OptionSpec(
        "zoc-bridge-control",
        "8-C: whose city or locality lets a ZoC cross a river",
        kind=I,
        default="zoc-owner",
        choices=("zoc-owner", "any-side"),
        rule="LGG 8-C",
        help=(
            "Ours: 'a controlled city or locality' read as controlled by the side exerting the ZoC."
        ),
    ),
    OptionSpec(
        "zoc-unmoved-stack",
        "A-34: a ZoC does not extend into a hex holding an enemy stack that has not yet moved",
        kind=I,
        default="this-activation",
        choices=("this-activation", "this-turn"),
        rule="LGG 8-C",
        help=(
            "Default (digest): a stack of the moving side that has not moved in the current"
            " activation."
        ),
    ),
    OptionSpec(
        "minor-port-supply",
        "A-42: which army a minor port supplies",
        kind=I,
        default="nearest-army",
        choices=("nearest-army",),
        rule="LGG 9-A",
        help=(
            "A minor port supplies the units of one army only: the army with a unit nearest to it"
            " (ties by army id); never the main army."
        ),
    ),
    OptionSpec(
        "rail-conversion-cost",
        "Audit 5 (LGG-30): MP paid by a unit converting a chain of captured rail hexes",
        kind=I,
        default="conversion-only",
        choices=("conversion-only", "plus-movement"),
        rule="LGG 11.4-D",
        help=(
            "conversion-only: 1 MP (2 for Russian gauge) per hex converted, nothing else;"
            " plus-movement: also the terrain cost of each hex entered."
        ),
    ),
    OptionSpec(
        "coordination-value-source",
        "A-53: the value summed in a coordination test when a general is present",
        kind=I,
        default="general-coordination",
        choices=("general-coordination", "hq-only"),
        rule="LGG 11.3",
    ),
    OptionSpec(
        "unnumbered-command-limit",
        "A-54: the limit on un-numbered corps an HQ commands",
        kind=I,
        default="counter",
        choices=("counter", "unlimited"),
        rule="LGG 2-B",
        help=(
            "counter: the HQ counter's command_limit (the catalogue default when the scenario gives"
            " none); unlimited: no limit."
        ),
    ),
    OptionSpec(
        "events-deck",
        "A-48: the events phase (no event deck in the seed)",
        kind=I,
        default="none",
        choices=("none",),
        rule="LGG 3-C",
        help=(
            "The seed mentions events but gives neither deck nor procedure: the events phase draws"
            " nothing."
        ),
    ),
    OptionSpec(
        "coordination-cap-scope",
        "11.3: against which GHQ's combination value a coordination counts",
        kind=I,
        default="each-nation",
        choices=("each-nation", "leading-army"),
        rule="LGG 11.3",
        help="Ours: each army counts against the combination value of its own nation's GHQ.",
    ),
    # ------------------------------------------------------ rules 12-23 (declared for later stages)
    OptionSpec(
        "strategic-retreat-12",
        "A-4: rule 12 vs rule 19",
        kind=I,
        default="12-activation-19-phase-start",
        choices=("12-activation-19-phase-start", "19-only"),
        rule="LGG 12-A",
        help=(
            "Default (digest): 12 is an option of an army activation in Movement Doctrine, 19 a"
            " declaration at the start of a military phase."
        ),
    ),
    OptionSpec(
        "reaction-distance-bands",
        "A-6: GHQ distance bands of the reaction test",
        kind=I,
        default="exactly-three",
        choices=("exactly-three", "two-to-three"),
        rule="LGG 20-A",
        help="exactly-three: 3 hexes -1, 4-5 -2, 6-9 -3, 10+ -4, closer 0 (agrees with LGG-37).",
    ),
    OptionSpec(
        "sub-battle-split",
        "A-9: splitting front-line corps between sub-battles",
        kind=I,
        default="as-equal-as-possible",
        choices=("as-equal-as-possible", "free"),
        rule="LGG 16.1-B",
    ),
    OptionSpec(
        "two-digit-floor",
        "A-10: floor of a decreasing sum of two-digit modifiers",
        kind=I,
        default="sum-of-right-digits",
        choices=("sum-of-right-digits", "literal"),
        rule="LGG 16.3-B",
    ),
    OptionSpec(
        "combativeness-trigger",
        "A-11: when 'from the second loss' triggers a combativeness test",
        kind=I,
        default="cumulative",
        choices=("cumulative", "per-round", "per-battle"),
        rule="LGG 16.5-A",
        help=(
            "cumulative: a corps already reduced that takes another loss tests (as M and 2 on a"
            " reduced corps do); per-round: only 2 losses in one round test, a loss a reduced corps"
            " cannot absorb eliminates it; per-battle: a test once the corps has 2 losses in this"
            " battle."
        ),
    ),
    OptionSpec(
        "combined-vs-fire-bonus",
        "A-12: D12 bonus of a Combined attacker against a Fire defender",
        kind=I,
        default=1,
        choices=(1, 0),
        rule="LGG 16.4-F",
    ),
    OptionSpec(
        "movement-vs-fire-penalty",
        "A-12: D12 penalty of a Movement attacker against a Fire defender",
        kind=I,
        default=-1,
        choices=(-1, 0),
        rule="LGG 16.4-F",
    ),
    OptionSpec(
        "reserve-reinforcement-frequency",
        "A-13: reinforcements per round",
        kind=I,
        default="one-per-side-per-round",
        choices=("one-per-side-per-round", "one-per-sub-battle-per-round"),
        rule="LGG 16.6-A",
    ),
    OptionSpec(
        "bef-modifier",
        "Audit 8: the BEF +1/-1 is a D12 modifier or an attack/defence value modifier",
        kind=I,
        default="d12",
        choices=("d12", "value"),
        rule="LGG 16.4-C",
    ),
    OptionSpec(
        "breakthrough-clamp",
        "A-20: clamp the modified breakthrough D6 to the printed rows",
        kind=I,
        default=True,
        rule="LGG 17.3-A",
    ),
    OptionSpec(
        "overflow-as-printed",
        "A-45: overflow rounds as printed (1 without superiority, 2 with)",
        kind=I,
        default=True,
        rule="LGG 16.7-F",
    ),
    OptionSpec(
        "panic-test-choice",
        "A-46: who picks the two corps tested after a panic",
        kind=I,
        default="owner",
        choices=("owner", "random"),
        rule="LGG 16.5-B",
    ),
    OptionSpec(
        "august-1914-retreat",
        "A-50: August 1914 attack plans and voluntary retreat",
        kind=I,
        default="no-voluntary-retreat-after-winning",
        choices=("no-voluntary-retreat-after-winning", "until-won"),
        rule="LGG 16.7-A",
    ),
    OptionSpec(
        "great-battle-single-defender",
        "A-60: a Fire defender with 1 corps that sends none into sub-battle B",
        kind=I,
        default="loses-sub-battle",
        choices=("loses-sub-battle",),
        rule="LGG 16.1-A",
    ),
    OptionSpec(
        "fortress-reinforcement-garrisons",
        "A-61: garrison corps as battle reinforcements",
        kind=I,
        default="never",
        choices=("never",),
        rule="LGG 16.6-A",
        help="Garrisons fight only in assaults (23-B).",
    ),
    OptionSpec(
        "surrender-first-test",
        "A-18: siege-duration modifier of the first surrender test",
        kind=I,
        default=1,
        choices=(1, 0),
        rule="LGG 23-E",
    ),
    OptionSpec(
        "siege-heavy-halving",
        "A-19: heavy artillery firing together in siege fire",
        kind=I,
        default="half-of-sum",
        choices=("half-of-sum", "sum-of-halves"),
        rule="LGG 23-F",
    ),
    OptionSpec(
        "garrison-rebuild",
        "A-52: a garrison may be rebuilt after its fortress is destroyed",
        kind=I,
        default=True,
        rule="LGG 23-B",
    ),
    # ------------------------------------------------------ rules 28-39 (declared for later stages)
    OptionSpec(
        "great-offensive-count",
        "A-7: great offensives per side",
        kind=I,
        default="per-sector-per-year",
        choices=("per-sector-per-year", "per-turn"),
        rule="LGG 30",
        help=(
            "per-sector-per-year (digest): one offensive per sector and year, one main battle per"
            " side and turn; per-turn: one main battle per sector and turn (several sectors in the"
            " same turn)."
        ),
    ),
    OptionSpec(
        "battle-orders-e-p",
        "A-8: battle orders E and P (used but never defined)",
        kind=I,
        default="unavailable",
        choices=("unavailable",),
        rule="LGG 31-B",
    ),
    OptionSpec(
        "lull-after-round",
        "A-14: the lull of a main battle follows this round",
        kind=I,
        default=4,
        choices=(4,),
        rule="LGG 32.2",
    ),
    OptionSpec(
        "in-movement-trench",
        "A-15: trench level of a Combined stack 'in movement'",
        kind=I,
        default="level-minus-one",
        choices=("level-minus-one", "none"),
        rule="LGG 36.5-B",
    ),
    OptionSpec(
        "reinforcement-distance-three",
        "A-16: exactly 3 hexes from the battle in Combined Doctrine",
        kind=I,
        default="normal",
        choices=("normal", "odd-rounds"),
        rule="LGG 36.5-C",
    ),
    OptionSpec(
        "weariness-allied-effects",
        "A-21: effects applied by Austria-Hungary and Turkey",
        kind=I,
        default="as-printed",
        choices=("as-printed",),
        rule="LGG 34-D",
    ),
    OptionSpec(
        "mother-russia-list",
        "A-22: which list defines Mother Russia",
        kind=I,
        default="per-rule",
        choices=("per-rule", "30-F-everywhere"),
        rule="LGG 30-F",
    ),
    OptionSpec(
        "offensive-duration-penalty",
        "A-27: -1 VN per turn of a failed great offensive",
        kind=I,
        default="per-turn",
        choices=("per-turn",),
        rule="LGG 33-B",
    ),
    OptionSpec(
        "defence-in-depth-test",
        "A-36: defence-in-depth test against the reaction value",
        kind=I,
        default="below",
        choices=("below", "at-least"),
        rule="LGG 37-I",
    ),
    OptionSpec(
        "lowest-band-below",
        "A-35: rolls below a table's first band use that band",
        kind=I,
        default=True,
        rule="LGG 35-B",
    ),
    OptionSpec(
        "french-fire-penalty",
        "A-44: French -1 fire in forest, marsh, mountain",
        kind=I,
        default="skip-if-plus-one",
        choices=("skip-if-plus-one",),
        rule="LGG 36.1",
    ),
    OptionSpec(
        "october-switch-draw",
        "A-63: a side may switch in October 1914 only if its own draw is even",
        kind=I,
        default="own-draw",
        choices=("own-draw",),
        rule="LGG 36.2-A",
    ),
    OptionSpec(
        "ghq-artillery-east-anchor",
        "Audit 9: the East radius of GHQ artillery is measured from the GHQ",
        kind=I,
        default="ghq",
        choices=("ghq",),
        rule="LGG 28-C",
    ),
    OptionSpec(
        "massive-shift-direction",
        "Audit 10: direction of the massive bombardment shift",
        kind=I,
        default="right",
        choices=("right", "left"),
        rule="LGG 37-C",
        help=(
            "The seed gives no direction (only the mountain shift is 'to the left (penalty)'):"
            " right, toward stronger fire, is our reading; left is the literal alternative."
        ),
    ),
    OptionSpec(
        "infiltration-general-bonus",
        "A-55: '+1 if the general has the @ symbol or a tank'",
        kind=I,
        default="as-printed",
        choices=("as-printed",),
        rule="LGG 37-G",
    ),
    OptionSpec(
        "russian-offensive-target",
        "A-49: the hex 5 hexes from an objective away from the Russian front",
        kind=I,
        default="as-printed",
        choices=("as-printed",),
        rule="LGG 30-D",
    ),
    OptionSpec(
        "terror-roll-die",
        "A-37: the die of the attacker's terror test after a massive first gas use (8+)",
        kind=I,
        default="d12",
        choices=("d12",),
        rule="LGG 37-D",
    ),
    OptionSpec(
        "november-tactic-award-die",
        "A-37: the die deciding which side gets the noted tactic in Nov-Dec",
        kind=I,
        default="d6",
        choices=("d6",),
        rule="LGG 37-A",
    ),
    OptionSpec(
        "great-offensive-obligation-others",
        "A-57: obligations of Russia and Italy",
        kind=I,
        default="not-obliged",
        choices=("not-obliged", "obliged"),
        rule="LGG 30-B",
    ),
    OptionSpec(
        "assault-defenders-alternate",
        "23-G: the (at most 2) corps defending an assault fight alternately",
        kind=I,
        default="strict",
        choices=("strict", "free"),
        rule="LGG 23-G",
        help=(
            "strict: with two corps able to fight, the one engaged in the previous round rests;"
            " free: the defender engages either (the alternation read as a permission)."
        ),
    ),
)


def option_ids() -> set[str]:
    return {o.id for o in OPTIONS}
