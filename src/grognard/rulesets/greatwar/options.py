"""Rule options of the Great War series (OT 1: basic, advanced and optional rules) and the
interpretation switches for places where the rulebook is silent or contradicts itself.

Every option is declared here, including those of rules implemented later, so a scenario can
choose them now and the rules read them with ``g.opt(id)``.
"""

from __future__ import annotations

from grognard.core.options import OptionSpec
from grognard.core.rules import register

ADV, OPT, INT = "advanced", "optional", "interpretation"

OPTION_SPECS: tuple[OptionSpec, ...] = (
    # ------------------------------------------------------------------ tiers (OT 1)
    OptionSpec(
        "advanced-air",
        "Advanced air rules (A17-25) instead of the basic air rules (B17)",
        ADV,
        False,
        "OT A17",
        help="OT 1: use either B17 or A17-25, never both.",
    ),
    OptionSpec(
        "advanced-naval",
        "Advanced naval rules (27-35) instead of the basic naval rules (26)",
        ADV,
        False,
        "OT 27",
        help="OT 1: use either 26 or 27-35, never both.",
    ),
    OptionSpec(
        "advanced-production",
        "Advanced production (Rule 38; Equ/Res Pts per OT 16B1a-iii)",
        ADV,
        False,
        "OT 16B1a-iii",
    ),
    OptionSpec(
        "variable-re-advanced",
        "Divisional RE sizes from the nation tables (advanced OT 3A3)",
        ADV,
        False,
        "OT 3A3",
        help=(
            "Sizes come from the scenario's [rules] division_re (Rule 41 data); the basic rule"
            " fills any gap."
        ),
    ),
    OptionSpec(
        "overstacking", "Overstacking under Corps HQs (advanced OT 8C2)", ADV, False, "OT 8C2"
    ),
    OptionSpec(
        "isolated-rail-sections",
        "Isolated sections of a rail net (optional OT 7A9)",
        OPT,
        False,
        "OT 7A9",
    ),
    OptionSpec(
        "navigable-waterways",
        "Navigable inland waterways and river movement (OT 7C)",
        OPT,
        False,
        "OT 7C",
        help=(
            "Basic with the non-European maps ([rules] map_scale = 'non-european' turns it on),"
            " optional otherwise."
        ),
    ),
    OptionSpec(
        "marginal-units",
        "Marginal units: printed 0 attack or defense counts as 1/2 (optional OT 9G2)",
        OPT,
        False,
        "OT 9G2",
    ),
    OptionSpec(
        "incremental-odds", "Incremental odds with a d10 (optional OT 9L)", OPT, False, "OT 9L"
    ),
    OptionSpec(
        "field-art-as-nonart-losses",
        "Field artillery may be lost as non-artillery (optional clause of OT 9D)",
        OPT,
        False,
        "OT 9D",
    ),
    OptionSpec(
        "marine-units",
        "Marine units: coastal raids and amphibious abilities (advanced OT 14I)",
        ADV,
        False,
        "OT 14I",
        requires=("advanced-naval",),
    ),
    OptionSpec(
        "hq-coordination", "Army HQs coordination (advanced OT 14M3)", ADV, False, "OT 14M3"
    ),
    OptionSpec(
        "limited-intelligence",
        "Corps HQs limited intelligence (advanced OT 14N2)",
        ADV,
        False,
        "OT 14N2",
    ),
    OptionSpec("siege", "Sieges (advanced OT 15G)", ADV, False, "OT 15G"),
    OptionSpec(
        "carpet-bombing",
        "Carpet bombing (optional OT 20G1e)",
        OPT,
        False,
        "OT 20G1e",
        requires=("advanced-air",),
    ),
    OptionSpec(
        "optional-air-crt",
        "Optional Air CRT (OT 21C)",
        OPT,
        False,
        "OT 21C",
        requires=("advanced-air",),
    ),
    # ------------------------------------------------------------------ interpretations (Rules 3-8)
    OptionSpec(
        "transport-doubling",
        "Which artillery counts double for naval transport and cartage (OT 3A3)",
        INT,
        "all-artillery",
        "OT 3A3",
        choices=("all-artillery", "he-artillery"),
        help=(
            "OT 3A3 says artillery with HE, its own example doubles a field artillery regiment;"
            " rail and river (OT 7A4, 7C5) always double all artillery."
        ),
    ),
    OptionSpec(
        "exploitation-eligibility",
        "Who moves in the exploitation phase (OT 4A6 vs 6E)",
        INT,
        "all-6E",
        "OT 6E",
        choices=("all-6E", "listed-4A6"),
        help=(
            "OT 6E: all phasing units with reduced ratings; OT 4A6 lists only c/m, water-only,"
            " cavalry, light, mountain and infantry units."
        ),
    ),
    OptionSpec(
        "zero-movement-stacking-exempt",
        "Zero-movement units do not count for stacking (OT 8A4 / 14B)",
        INT,
        True,
        "OT 8A4",
        help="They are listed under the restricted-movement units of OT 14B, which OT 8A4 exempts.",
    ),
    OptionSpec(
        "rail-break-phases",
        "Phases in which a unit may break a rail line (OT 7A6)",
        INT,
        "all-movement-phases",
        "OT 7A6",
        choices=("all-movement-phases", "movement-only"),
        help=(
            "The rule names no phase; default: whenever the unit may spend MPs moving (movement,"
            " reaction, exploitation)."
        ),
    ),
    # -------------------------------------------------- interpretations (later rules, declared now)
    OptionSpec(
        "assault-engineer-eec-doubling",
        "When assault engineers count double RE for EEC (OT 10C vs 13E)",
        INT,
        "always-10C",
        "OT 10C",
        choices=("always-10C", "cities-fortresses-13E"),
    ),
    OptionSpec(
        "gsp-brackets",
        "GSP generation ignores the 7 low-volume hex limit (OT 11C2bii vs 11B3a)",
        INT,
        True,
        "OT 11C2bii",
    ),
    OptionSpec(
        "u1-not-isolated-halved",
        "A U-1 unit that is not isolated and not in combat supply is halved (OT 11F)",
        INT,
        True,
        "OT 11F",
    ),
    OptionSpec(
        "supply-elimination-every-ip",
        "Out-of-supply elimination checks in every initial phase, not only the owner's (OT 11F3)",
        INT,
        True,
        "OT 11F3",
    ),
    OptionSpec(
        "counterbombardment-halves-defense",
        "Counter-bombarding units are halved in defense too (OT 12C)",
        INT,
        True,
        "OT 12C",
    ),
    OptionSpec(
        "odds-shift-before-clamp",
        "Odds shifts apply on an unbounded ladder before clamping to the CRT (OT 9A)",
        INT,
        True,
        "OT 9A",
    ),
    OptionSpec(
        "basic-air-ground-support",
        "Basic air Ground Support as the mirror of DAS (OT B17B4, text missing)",
        INT,
        True,
        "OT B17B4",
    ),
)


# OT 1: every rule is basic, advanced or optional; advanced and optional rules are switches.
register("OT 1", "grognard.rulesets.greatwar.options:OPTION_SPECS")
