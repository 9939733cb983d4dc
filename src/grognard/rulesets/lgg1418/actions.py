"""Every action the lgg1418 rule system accepts, declared once with its fields, rules and label.

The steps handling each type are named in the comments (module and step name). Several steps
accept a type of the same name (``decline``, ``done``, ``place``, ``retreat``...): the type is
declared once with the union of their fields, the fields one step does not use optional.
Ids of the acting side's own pieces are ``piece``/``pieces`` fields (the core refuses a piece
the side may not see exactly as a missing one); hexes are printed hex labels.
"""

from __future__ import annotations

from grognard.core.actions import ActionCatalog, ActionType, Field

S = Field.str
P = Field.piece
PS = Field.pieces
H = Field.hex
HS = Field.hexes


def _opt(f: Field) -> Field:
    return Field(f.name, f.kind, False, f.choices, f.max_len, f.max_items, f.doc)


def _t(
    name: str, fields: tuple[Field, ...], rules: tuple[str, ...], label: str, doc: str
) -> ActionType:
    return ActionType(name, fields=fields, rules=rules, label=label, doc=doc)


BATTLE = S("battle")
OPT_BATTLE = _opt(BATTLE)

ACTIONS = ActionCatalog(
    [
        # ---- activation (choose-activation, activation-movement, end-of-movement)
        _t("activate", (S("army"),), ("LGG 3-C", "LGG 5-F"), "activate army {army}", "activations"),
        _t(
            "coordinate",
            (Field.strs("armies"),),
            ("LGG 11.3",),
            "coordinate armies {armies}",
            "coordinated activations",
        ),
        _t("end-turn", (), ("LGG 3-C",), "End the military turn", "end the turn"),
        _t(
            "move",
            (PS("units"), H("to"), _opt(S("mode", choices=("normal", "admin")))),
            ("LGG [11.1-A]", "LGG 11.1-C", "LGG 11.2"),
            "move to {to} ({mode})",  # menus show the moving group apart
            "move",
        ),
        _t("rail", (PS("units"), H("to")), ("LGG 11.4-A",), "rail {units} to {to}", "rail"),
        _t(
            "convert",
            (P("unit"), HS("hexes")),
            ("LGG 11.4-D",),
            "{unit} converts the rail gauge of {hexes}",
            "gauge conversions",
        ),
        _t(
            "deploy-reserve",
            (P("unit"),),
            ("LGG 16-B",),
            "Deploy {unit} from its HQ's reserve",
            "reserve deployments",
        ),
        _t("end-movement", (), ("LGG [11.1-A]",), "end movement", "end movement"),
        _t(
            "displace",
            (P("unit"), H("to"), OPT_BATTLE),
            ("LGG 10-D", "LGG 16.7-D"),
            "Displace {unit} to {to}",
            "displacements",
        ),
        _t(
            "eliminate",
            (P("unit"), OPT_BATTLE),
            ("LGG 10-D", "LGG 16.7-D"),
            "Eliminate {unit}",
            "eliminations",
        ),
        # ---- fog of war: HQ and decoy boxes (any step with box actions)
        _t("drop", (P("from"), PS("units")), ("LGG 4-B",), "Drop {units} from {from}", "boxes"),
        _t("lift", (P("into"), PS("units")), ("LGG 4-B",), "Put {units} on {into}", "boxes"),
        _t("place-decoy", (P("decoy"), H("at")), ("LGG 4-C",), "Place {decoy} at {at}", "decoys"),
        _t("remove-decoy", (P("decoy"),), ("LGG 4-C",), "Remove {decoy}", "decoys"),
        # ---- reinforcement-side (5)
        _t(
            "place",
            (P("unit"), _opt(H("at")), _opt(P("reserve")), _opt(H("to")), OPT_BATTLE),
            ("LGG 5-A", "LGG 16.7-D"),
            "Place {unit} {at}{to} {reserve}",
            "placements",
        ),
        _t(
            "attach",
            (P("unit"), S("army")),
            ("LGG 2-B",),
            "Attach {unit} to army {army}",
            "attachments",
        ),
        _t("detach", (P("unit"),), ("LGG 2-B",), "Detach {unit}", "attachments"),
        _t("restore", (P("unit"),), ("LGG 5-D",), "Restore {unit}", "restorations"),
        _t(
            "to-ghq-reserve",
            (P("unit"),),
            ("LGG 5-E",),
            "Put {unit} in the GHQ reserve",
            "GHQ reserves",
        ),
        _t("return-hq", (P("hq"), H("at")), ("LGG 5-G",), "Return {hq} to {at}", "HQ returns"),
        _t(
            "main-army",
            (S("front"), S("army")),
            ("LGG 5-F",),
            "Name army {army} main army on the {front} front",
            "main armies",
        ),
        _t("moujiks", (S("choice"),), ("LGG 5-H",), "Moujiks: {choice}", "moujiks"),
        _t("moujik-pr", (P("unit"),), ("LGG 5-H",), "Pay PR for moujik {unit}", "moujiks"),
        _t(
            "convert-pr",
            (P("unit"), S("how")),
            ("LGG 5-C",),
            "Convert {unit} ({how})",
            "conversions",
        ),
        _t(
            "end-reinforcement",
            (),
            ("LGG 5", "LGG 14-A"),
            "End the reinforcements",
            "end the reinforcements",
        ),
        _t(
            "combined-test",
            (S("power"),),
            ("LGG 36.4",),
            "Test combined arms for {power}",
            "combined-arms tests",
        ),
        _t(
            "to-ghq-artillery",
            (P("unit"),),
            ("LGG 28-C",),
            "Put {unit} in the GHQ artillery",
            "GHQ artillery",
        ),
        _t(
            "from-ghq-artillery",
            (P("unit"),),
            ("LGG 28-C",),
            "Take {unit} from the GHQ artillery",
            "GHQ artillery",
        ),
        # ---- fronts (6)
        _t("first-mover", (S("first"),), ("LGG 6-B",), "{first} moves first", "initiative"),
        # ---- interception (13) and forced withdrawal
        _t("intercept", (PS("units"),), ("LGG 13-A",), "Intercept with {units}", "interceptions"),
        _t("no-interception", (), ("LGG 13-A",), "no interception", "no interception"),
        _t(
            "withdraw",
            (P("unit"), _opt(H("to"))),
            ("LGG 13-A", "LGG 23-D"),
            "Withdraw {unit} to {to}",
            "withdrawals",
        ),
        # ---- enemy reinforcement (14)
        _t(
            "reinforce",
            (_opt(PS("units")), _opt(H("to")), OPT_BATTLE, _opt(Field.json("choice"))),
            ("LGG 14-A", "LGG 16.6-B"),
            "Reinforce {to} with {units}",
            "reinforcements",
        ),
        _t(
            "inter-army-test",
            (S("army"), H("to")),
            ("LGG 14-B",),
            "Inter-army test for army {army} to {to}",
            "inter-army tests",
        ),
        _t("disorganize", (P("unit"),), ("LGG 14-C",), "Disorganize {unit}", "disorganizations"),
        _t(
            "enter-fortress",
            (PS("units"), H("hex")),
            ("LGG 23-C",),
            "Enter the fortress at {hex} with {units}",
            "fortress entries",
        ),
        # ---- battles (16)
        _t("proceed", (BATTLE,), ("LGG 16",), "Go on with the battle", "go on"),
        _t(
            "retreat-before-combat",
            (BATTLE,),
            ("LGG 16-C",),
            "Retreat the cavalry before combat",
            "retreat before combat",
        ),
        _t("join", (BATTLE, P("unit")), ("LGG 16-B",), "{unit} joins the battle", "artillery"),
        _t(
            "leave-out",
            (BATTLE, P("unit")),
            ("LGG 16-A",),
            "Leave {unit} out of the battle",
            "stacking limit",
        ),
        _t(
            "allocate",
            (BATTLE, Field.int("rounds")),
            ("LGG 16.6-C",),
            "Commit an obstinacy of {rounds}",
            "obstinacy",
        ),
        _t(
            "exchange",
            (BATTLE,),
            ("LGG 16.5-A",),
            "Exchange the loss for one more retreat hex",
            "exchange",
        ),
        _t("keep", (_opt(BATTLE),), ("LGG 16.5-A", "LGG 16.4-I"), "Keep it", "keep"),
        _t("pay-pr", (BATTLE,), ("LGG 16.5-B",), "Pay 1 PR for the test", "pay PR"),
        _t("refuse-pr", (BATTLE,), ("LGG 16.5-B",), "Do not pay", "refuse PR"),
        _t("panic-test", (BATTLE, P("unit")), ("LGG 16.5-B",), "Test {unit}", "panic tests"),
        _t("continue", (BATTLE,), ("LGG 16.7-A",), "Continue the battle", "continue"),
        _t(
            "retreat",
            (OPT_BATTLE, _opt(S("retreat")), _opt(PS("units")), _opt(HS("path"))),
            ("LGG 16.7-A", "LGG 16.7-C"),
            "Retreat {units} along {path}",
            "retreats",
        ),
        _t(
            "withdraw-sub",
            (BATTLE, S("sub")),
            ("LGG 16.1-C",),
            "Withdraw from sub-battle {sub}",
            "sub-battle withdrawals",
        ),
        _t("barrage-fire", (BATTLE,), ("LGG 37-F",), "Go on with the barrage", "barrage"),
        _t("barrage-stop", (BATTLE,), ("LGG 37-F",), "Stop the barrage", "barrage"),
        _t(
            "commit",
            (
                OPT_BATTLE,
                _opt(S("kind")),
                _opt(Field.json("choice")),
                _opt(S("key")),
                _opt(Field.json("value")),
            ),
            ("LGG 16.1-B", "LGG 16.2-A", "LGG 16.6-A", "LGG 31-B", "LGG 32.1-C"),
            "Commit the secret choice {kind}{key}: {choice}{value}",
            "secret battle choices",
        ),
        _t(
            "siberian-elite",
            (P("unit"),),
            ("LGG 16.4-I",),
            "Make {unit} Siberian elite",
            "Siberian elite",
        ),
        _t(
            "no-overflow",
            (BATTLE,),
            ("LGG 16.7-F",),
            "No overflow",
            "no overflow",
        ),
        _t(
            "overflow",
            (BATTLE, H("to"), PS("units")),
            ("LGG 16.7-F",),
            "Overflow {units} into {to}",
            "overflows",
        ),
        _t(
            "into-fortress",
            (S("retreat"), PS("units")),
            ("LGG 16.7-C",),
            "Retreat {units} into the fortress",
            "into the fortress",
        ),
        _t(
            "retreat-by-sea",
            (S("retreat"), PS("units"), H("to")),
            ("LGG 16.7-C",),
            "Retreat {units} by sea to {to}",
            "retreats by sea",
        ),
        _t(
            "retreat-stack",
            (BATTLE, H("from"), HS("path")),
            ("LGG 16.7-B",),
            "Retreat the stack at {from} along {path}",
            "retreats",
        ),
        _t("done", (BATTLE,), ("LGG 16.7-B", "LGG 16.7-D"), "Done", "done"),
        # ---- breakthrough (17)
        _t(
            "breakthrough",
            (H("from"), PS("units"), S("kind"), H("to"), HS("via")),
            ("LGG 17", "LGG 17.2"),
            "Break through from {from} to {to} with {units} ({kind})",
            "breakthroughs",
        ),
        _t(
            "announce-empty",
            (H("hex"),),
            ("LGG 17.3-F",),
            "Announce a breakthrough into the empty hex {hex}",
            "empty hexes",
        ),
        _t("end-breakthrough", (), ("LGG 17",), "End the breakthroughs", "end breakthroughs"),
        _t(
            "activate-army",
            (S("army"),),
            ("LGG 17.3-B",),
            "Activate army {army}",
            "new armies",
        ),
        _t("no-new-army", (), ("LGG 17.3-B",), "Activate no new army", "no new army"),
        _t("flee", (H("hex"),), ("LGG 17.2-C",), "Flee from {hex}", "flight"),
        _t("stand", (H("hex"),), ("LGG 17.2-C",), "Stand at {hex}", "flight"),
        _t(
            "reserve-stand",
            (H("hex"),),
            ("LGG 17.3-D",),
            "Stand at {hex} with the reserve",
            "flight",
        ),
        _t("send", (P("unit"),), ("LGG 17.3-F",), "Send {unit}", "empty-hex defence"),
        _t("decline", (OPT_BATTLE,), ("LGG 17.3-F", "LGG 18-A", "LGG 20-A"), "Decline", "decline"),
        # ---- counter-offensives (18)
        _t(
            "co-intercept",
            (BATTLE, S("from")),
            ("LGG 18-A",),
            "Intercept the counter-offensive from {from}",
            "counter-offensive interceptions",
        ),
        _t(
            "no-co-intercept",
            (BATTLE,),
            ("LGG 18-A",),
            "Do not intercept",
            "no interception",
        ),
        _t(
            "counter-attack",
            (BATTLE, H("to")),
            ("LGG 18-A",),
            "Counter-attack {to}",
            "counter-offensives",
        ),
        # ---- strategic retreat (19), reform (12-B)
        _t(
            "strategic-retreat",
            (Field.strs("armies"),),
            ("LGG 19-A",),
            "Strategic retreat of {armies}",
            "strategic retreats",
        ),
        _t("no-retreat", (), ("LGG 19-A",), "No strategic retreat", "no retreat"),
        _t("retreat-loss", (P("unit"),), ("LGG 19-D",), "{unit} takes the loss", "retreat losses"),
        _t("reform-unit", (P("unit"),), ("LGG 12-B",), "Reform {unit}", "reforms"),
        _t(
            "reform",
            (S("army"), P("unit")),
            ("LGG 12-B",),
            "Reform {unit} in army {army}",
            "reforms",
        ),
        # ---- reaction (20)
        _t(
            "react",
            (S("army"), _opt(Field.bool("main"))),
            ("LGG 20-A",),
            "React with army {army}",
            "reactions",
        ),
        # ---- autonomous units (21)
        _t(
            "assign",
            (P("unit"), S("army")),
            ("LGG 21",),
            "Assign {unit} to army {army}",
            "assignments",
        ),
        _t(
            "release-garrison",
            (P("unit"),),
            ("LGG 23-B",),
            "Release {unit} from its garrison",
            "garrisons",
        ),
        _t("end-assignment", (), ("LGG 21",), "End the assignments", "end assignments"),
        # ---- fortresses and sieges (23)
        _t(
            "evacuate",
            (P("unit"), H("to")),
            ("LGG 23-E",),
            "Evacuate {unit} to {to}",
            "evacuations",
        ),
        _t(
            "no-evacuation",
            (S("fortress"),),
            ("LGG 23-E",),
            "Evacuate nobody from {fortress}",
            "no evacuation",
        ),
        _t(
            "assault-support",
            (Field.int("air"), Field.json("gas")),
            ("LGG 23-G", "LGG 32.1-C", "LGG 37-D"),
            "Support the assault with {air} aircraft, gas {gas}",
            "assault support",
        ),
        _t("assault", (H("hex"),), ("LGG 23-G",), "Assault the fortress at {hex}", "assaults"),
        _t(
            "siege-fire",
            (H("hex"), PS("artillery")),
            ("LGG 23-F",),
            "Siege fire on {hex} with {artillery}",
            "siege fire",
        ),
        _t("end-siege", (), ("LGG 23-D",), "End the siege actions", "end siege actions"),
        # ---- great offensives (30)
        _t(
            "plan-offensive",
            (S("sector"),),
            ("LGG 30-A",),
            "Plan an offensive in sector {sector}",
            "offensive plans",
        ),
        _t(
            "no-offensive",
            (S("sector"),),
            ("LGG 30-A",),
            "Plan no offensive in sector {sector}",
            "no offensive",
        ),
        _t(
            "plan-armies",
            (Field.strs("armies"),),
            ("LGG 30-A",),
            "Armies of the offensive: {armies}",
            "offensive armies",
        ),
        _t(
            "plan-objective",
            (HS("hexes"),),
            ("LGG 30-A",),
            "Objective of the offensive: {hexes}",
            "offensive objectives",
        ),
        _t("plan-start", (S("turn"),), ("LGG 30-A",), "Start the offensive in {turn}", "starts"),
        _t(
            "launch-offensive",
            (S("plan"), HS("objective"), _opt(S("third"))),
            ("LGG 30-C",),
            "Launch offensive {plan} against {objective}",
            "offensives",
        ),
        _t(
            "continue-offensive",
            (S("offensive"), HS("objective"), _opt(S("third"))),
            ("LGG 30-D",),
            "Continue offensive {offensive} against {objective}",
            "offensives",
        ),
        _t(
            "cancel-offensive",
            (S("plan"),),
            ("LGG 30-H",),
            "Cancel offensive {plan}",
            "offensives",
        ),
        _t(
            "halt-offensive",
            (S("offensive"),),
            ("LGG 30-D",),
            "Halt offensive {offensive}",
            "offensives",
        ),
        _t(
            "unplanned-offensive",
            (S("sector"),),
            ("LGG 30-A",),
            "Unplanned offensive in sector {sector}",
            "offensives",
        ),
        _t("go-on", (S("offensive"),), ("LGG 30-D",), "Go on with offensive {offensive}", "go on"),
        _t(
            "auxiliary",
            (S("offensive"), Field.bool("launch")),
            ("LGG 30-I",),
            "Auxiliary offensive for {offensive}: {launch}",
            "auxiliary offensives",
        ),
        # ---- main battles (31-32)
        _t(
            "front-reinforce",
            (P("unit"), _opt(S("sub"))),
            ("LGG 31-F",),
            "Reinforce the front with {unit}",
            "front reinforcements",
        ),
        _t("to-rear", (P("unit"),), ("LGG 32.2-B",), "Send {unit} to the rear", "rear"),
        _t("from-rear", (P("unit"),), ("LGG 32.2-B",), "Bring {unit} from the rear", "rear"),
        _t(
            "redeploy",
            (P("unit"), S("sub")),
            ("LGG 32.2-D",),
            "Redeploy {unit} to sub-battle {sub}",
            "redeployments",
        ),
        _t("done-reinforcing", (), ("LGG 31-F",), "Done reinforcing", "done"),
        _t(
            "bombardment",
            (
                S("kind"),
                _opt(Field.int("intensity")),
                _opt(S("use")),
                _opt(Field.json("gas")),
            ),
            ("LGG 31-D", "LGG 32.1-D", "LGG 32.1-B", "LGG 37-D"),
            "Bombardment: {kind} {intensity} {use} {gas}",
            "bombardments",
        ),
        # ---- doctrine (36)
        _t(
            "october-doctrine",
            (S("front"), S("choice")),
            ("LGG 36.2-A",),
            "October 1914 on the {front} front: {choice}",
            "doctrine",
        ),
        # ---- tactics (37-38)
        _t("tactic-test", (S("nation"),), ("LGG 37-A",), "Tactic test for {nation}", "tactics"),
        _t("tactic-target", (S("tactic"),), ("LGG 37-A",), "Aim for tactic {tactic}", "tactics"),
        _t("wait", (), ("LGG 37-A",), "Wait", "wait"),
        _t(
            "assault-marker",
            (P("unit"),),
            ("LGG 38-A",),
            "Give {unit} an assault marker",
            "assault markers",
        ),
        _t(
            "end-assault-markers",
            (),
            ("LGG 38-A",),
            "End the assault markers",
            "end assault markers",
        ),
    ]
)
