"""Every action the eastfront rule system accepts, declared once with its fields, rules and label.

The steps that handle each type are in :mod:`grognard.rulesets.eastfront.sequence` (phases),
:mod:`.combat.attack` (declarations), :mod:`.naval.loss` (Abort choices) and
:mod:`.air.missions` (interceptions).
"""

from __future__ import annotations

from grognard.core.actions import ActionCatalog, ActionType, Field

ORDERS = ("none", "attacker-retreat", "defender-additional")  # EF 12.6
ROLES = ("mission", "escort")

ACTIONS = ActionCatalog(
    [
        ActionType("end-phase", rules=("EF 3.0",), label="End the phase", doc="end the phase"),
        ActionType("pass", rules=("EF 3.0",), label="Pass", doc="pass"),
        # ---- Naval Readiness Phase
        ActionType(
            "readiness",
            fields=(Field.piece("ship"),),
            rules=("NM 25.3",),
            label="Roll readiness for {ship}",
            doc="readiness rolls",
        ),
        ActionType(
            "repair",
            fields=(Field.piece("ship"),),
            rules=("NM 27.4", "NM 27.44"),
            label="Roll repair for {ship}",
            doc="repair rolls",
        ),
        # ---- Air Interdiction Phase
        ActionType(
            "fly",
            fields=(Field.piece("air"), Field.str("target"), Field.str("role", choices=ROLES)),
            rules=("EF 14.6", "NM 31.1"),
            label="Fly {air} as {role} over {target}",
            doc="air missions",
        ),
        ActionType(
            "intercept",
            fields=(Field.piece("air"),),
            rules=("EF 14.3", "NM 31.1"),
            label="Intercept with {air}",
            doc="interceptions",
        ),
        # ---- Supply Status Phase
        ActionType(
            "spend-msu",
            fields=(Field.piece("msu"),),
            rules=("NM 30.4", "EF 11.0"),
            label="Spend {msu} for General Supply",
            doc="MSUs",
        ),
        # ---- movement phases
        ActionType(
            "move",
            fields=(Field.piece("piece"), Field.hex("to")),
            rules=("EF 7.0", "EF 7.5", "EF 22.41"),
            label="Move {piece} to {to}",
            doc="moves",
        ),
        ActionType(
            "sail",
            fields=(Field.pieces("ships"), Field.str("to")),
            rules=("NM 26.0", "NM 26.12", "NM 26.14"),
            label="Sail {ships} to {to}",
            doc="naval moves",
        ),
        ActionType(
            "load",
            fields=(Field.piece("piece"), Field.piece("ship"), Field.bool("amphibious")),
            rules=("NM 28.12", "NM 30.1"),
            label="Load {piece} on {ship} (amphibious: {amphibious})",
            doc="loading",
        ),
        ActionType(
            "unload",
            fields=(Field.piece("piece"),),
            rules=("NM 28.12",),
            label="Unload {piece}",
            doc="unloading",
        ),
        ActionType(
            "activate",
            fields=(Field.piece("piece"), Field.piece("hq")),
            rules=("EF 10.25", "EF 8.54a"),
            label="Activate {piece} by {hq}",
            doc="activations",
        ),
        ActionType(
            "declare-evacuation",
            fields=(Field.str("port"),),
            rules=("NM 28.2",),
            label="Declare the evacuation of {port}",
            doc="evacuations",
            actor="port",
        ),
        ActionType(
            "complete-evacuation",
            fields=(Field.str("port"),),
            rules=("NM 28.2",),
            label="Declare the evacuation of {port} complete",
            doc="evacuations completed",
            actor="port",
        ),
        # ---- air Shipping Attack (Combat and Reaction Phases)
        ActionType(
            "strike",
            fields=(Field.piece("air"), Field.piece("target")),
            rules=("NM 31.2",),
            label="Send {air} against {target}",
            doc="shipping attacks",
        ),
        ActionType(
            "escort",
            fields=(Field.piece("air"),),
            rules=("NM 31.2",),
            label="Escort the shipping attack with {air}",
            doc="escorts",
        ),
        ActionType("launch", rules=("NM 31.2",), label="Launch the shipping attack"),
        # ---- Combat Phase
        ActionType(
            "cd-fire",
            fields=(Field.piece("cd"), Field.piece("target")),
            rules=("NM 27.12",),
            label="{cd} fires at {target}",
            doc="coast artillery fire",
        ),
        ActionType(
            "attack",
            fields=(Field.hex("target"),),
            rules=("EF 12.0", "NM 30.23"),
            label="Declare an attack on {target}",
            doc="attacks",
            actor="target",
        ),
        ActionType(
            "add-attacker",
            fields=(Field.piece("piece"),),
            rules=("EF 12.0", "NM 30.22"),
            label="Attack with {piece}",
            doc="attackers",
        ),
        ActionType(
            "add-support",
            fields=(Field.piece("piece"),),
            rules=("EF 12.4", "NM 29.1", "NM 29.2"),
            label="Support with {piece}",
            doc="artillery support",
        ),
        ActionType(
            "set-order",
            fields=(Field.str("order", choices=ORDERS),),
            rules=("EF 12.6",),
            label="Retreat order: {order}",
            doc="retreat orders",
        ),
        ActionType("resolve-attack", rules=("EF 12.0",), label="Resolve the attack"),
        ActionType(
            "advance",
            fields=(Field.piece("piece"),),
            rules=("EF 12.7", "NM 30.24"),
            label="Advance {piece}",
            doc="advances",
        ),
        ActionType(
            "land",
            fields=(Field.piece("piece"), Field.hex("to")),
            rules=("NM 30.4",),
            label="Land {piece} on {to} by special transport",
            doc="special transport landings",
        ),
        # ---- Abort results (NM 27.32b)
        ActionType("return-to-port", rules=("NM 27.32",), label="Abort: return to the port"),
        ActionType(
            "take-damage", rules=("NM 27.32",), label="Ignore the Abort: take one Damage Point"
        ),
    ]
)
