"""The Game API on the tiny rule system: actions, interrupts, fog of war, undo, replay, saves."""

import json
import random
from pathlib import Path

import pytest

from grognard.bench.engine_probe import choose
from grognard.core.errors import IllegalAction, ReplayMismatch, SaveError, UndoError
from grognard.core.game import Game, replay
from grognard.core.state import Loc
from grognard.scenario import find, load_scenario


@pytest.fixture
def game(tiny_path: Path) -> Game:
    return Game.new(load_scenario(tiny_path), seed=7)


def commit_postures(g: Game) -> None:
    g.apply({"type": "commit", "side": "Blue", "key": "posture", "value": "bold"})
    g.apply({"type": "commit", "side": "Red", "key": "posture", "value": "careful"})


def snapshot(g: Game) -> tuple[str, int, int]:
    return g.state_hash(), len(g.state.log), len(g.actions)


@pytest.mark.rules("T 1", "T 2")
def test_t_1_t_2_sequence_and_secret_choice(game: Game) -> None:
    assert game.phase_path() == ["Game", "Turn", "Secret choice: posture"]
    assert game.acting_sides() == ["Blue", "Red"]
    game.apply({"type": "commit", "side": "Blue", "key": "posture", "value": "bold"})
    # Blue's choice is in Blue's view only, until both have committed
    assert "bold" in json.dumps(game.view("Blue"))
    red_view = json.dumps(game.view("Red"))
    assert "bold" not in red_view
    assert game.acting_sides() == ["Red"]
    game.apply({"type": "commit", "side": "Red", "key": "posture", "value": "careful"})
    assert game.state.vars["choices"]["posture"] == {"Blue": "bold", "Red": "careful"}
    assert "bold" in json.dumps(game.view("Red"))
    assert game.phase_path()[-2:] == ["Blue player turn", "Movement phase"]


@pytest.mark.rules("T 3")
def test_t_3_illegal_action_names_rule_and_changes_nothing(game: Game) -> None:
    commit_postures(game)
    before = snapshot(game)
    with pytest.raises(IllegalAction) as ei:
        game.apply({"type": "move", "side": "Blue", "piece": "b1", "to": "0104"})
    assert ei.value.rule == "T 3" and "one hex" in ei.value.message
    with pytest.raises(IllegalAction) as ei:
        game.apply({"type": "move", "side": "Red", "piece": "r1", "to": "0501"})
    assert "may not act now" in ei.value.message
    with pytest.raises(IllegalAction) as ei:
        game.apply({"side": "Blue"})
    assert ei.value.rule == "core:action"
    assert snapshot(game) == before
    # the wall on the north side of 0303 may not be crossed
    move(game, "b2", "0303")
    legal = game.legal_actions("Blue")
    assert {"type": "move", "side": "Blue", "piece": "b1", "to": "0202"} in legal
    game.state.pieces["b2"].status.clear()
    game2 = Game.new(game.scenario, seed=7)
    commit_postures(game2)
    game2.state.move("b1", Loc.hex(game2.board.idx("0303")))
    assert not any(
        a.get("to") == "0302" and a.get("piece") == "b1" for a in game2.legal_actions("Blue")
    )
    with pytest.raises(IllegalAction, match="walls") as ei:
        game2.apply({"type": "move", "side": "Blue", "piece": "b1", "to": "0302"})
    assert ei.value.rule == "T 3"


def test_failed_apply_restores_state(game: Game) -> None:
    commit_postures(game)
    before = snapshot(game)
    for bad in (
        {"type": "move", "side": "Blue", "piece": "r1", "to": "0402"},
        {"type": "move", "side": "Blue", "piece": "b1", "to": "zz"},
        {"type": "fly", "side": "Blue"},
        {"type": "move", "side": "Purple", "piece": "b1", "to": "0202"},
    ):
        with pytest.raises(IllegalAction):
            game.apply(bad)
        assert snapshot(game) == before


def move(g: Game, piece: str, to: str) -> None:
    g.apply({"type": "move", "side": g.acting_sides()[0], "piece": piece, "to": to})


def test_undo_within_barrier(game: Game) -> None:
    commit_postures(game)
    h0 = game.state_hash()
    with pytest.raises(UndoError):  # the reveal of the postures is a barrier
        game.undo()
    move(game, "b1", "0202")
    h1 = game.state_hash()
    move(game, "b2", "0303")
    assert game.can_undo("Blue") and not game.can_undo("Red")
    with pytest.raises(UndoError):
        game.undo("Red")
    game.undo()
    assert game.state_hash() == h1
    game.undo()
    assert game.state_hash() == h0
    with pytest.raises(UndoError):
        game.undo()


def drive_to_blue_combat(g: Game) -> None:
    commit_postures(g)
    move(g, "b1", "0202")
    move(g, "b2", "0303")
    g.apply({"type": "end-phase", "side": "Blue"})  # -> combat phase
    move_pieces = [a for a in g.legal_actions("Blue") if a["type"] == "attack"]
    assert move_pieces == [] or all(a["side"] == "Blue" for a in move_pieces)


def fight(g: Game, reserve: bool = True) -> None:
    """Red's r1 walks to 0403 over two turns and attacks Blue's b2 at 0304."""
    commit_postures(g)
    move(g, "b2", "0304")
    g.apply({"type": "end-phase", "side": "Blue"})
    g.apply({"type": "end-phase", "side": "Blue"})
    move(g, "r1", "0402")
    g.apply({"type": "end-phase", "side": "Red"})
    g.apply({"type": "end-phase", "side": "Red"})
    commit_postures(g)
    g.apply({"type": "end-phase", "side": "Blue"})
    g.apply({"type": "end-phase", "side": "Blue"})
    move(g, "r1", "0403")
    g.apply({"type": "end-phase", "side": "Red"})
    assert {"type": "attack", "side": "Red", "from": "0403", "target": "0304"} in g.legal_actions(
        "Red"
    )
    g.apply({"type": "attack", "side": "Red", "from": "0403", "target": "0304"})
    assert g.acting_sides() == ["Blue"]
    g.apply(
        {"type": "commit-reserve", "side": "Blue", "piece": "b-res"}
        if reserve
        else {"type": "pass", "side": "Blue"}
    )


@pytest.mark.rules("T 4", "T 4A")
def test_t_4_interrupt_for_defender_and_dice_barrier(tiny_path: Path) -> None:
    g = Game.new(load_scenario(tiny_path), seed=11)
    commit_postures(g)
    move(g, "b2", "0304")
    g.apply({"type": "end-phase", "side": "Blue"})
    assert [a["type"] for a in g.legal_actions("Blue")] == ["end-phase"]
    g.apply({"type": "end-phase", "side": "Blue"})
    assert g.acting_sides() == ["Red"]
    move(g, "r1", "0402")
    g.apply({"type": "end-phase", "side": "Red"})
    g.apply({"type": "end-phase", "side": "Red"})
    commit_postures(g)
    g.apply({"type": "end-phase", "side": "Blue"})
    g.apply({"type": "end-phase", "side": "Blue"})
    move(g, "r1", "0403")
    g.apply({"type": "end-phase", "side": "Red"})
    g.apply({"type": "attack", "side": "Red", "from": "0403", "target": "0304"})
    # the defender (Blue) must now decide on its reserve: an interrupt for the non-phasing side
    assert g.acting_sides() == ["Blue"]
    assert g.phase_path()[-1] == "Reserve commitment"
    assert not g.can_undo()  # control passed to the other side: barrier
    rolls_before = g.state.dice_counter
    g.apply({"type": "commit-reserve", "side": "Blue", "piece": "b-res"})
    assert g.state.pieces["b-res"].loc == Loc.hex(g.board.idx("0304")) or g.state.pieces[
        "b-res"
    ].loc == Loc.box("eliminated")
    assert g.state.dice_counter == rolls_before + 1
    roll = [e for e in g.state.log if e["type"] == "roll"][-1]
    assert roll["rule"] == "T 4" and 1 <= roll["data"]["natural"] <= 6
    assert [e for e in g.state.log if e["type"] == "combat-result"]
    assert g.acting_sides() == ["Red"]
    with pytest.raises(UndoError):
        g.undo()


@pytest.mark.rules("T 5")
def test_t_5_hidden_scout_not_in_enemy_view_until_revealed(game: Game) -> None:
    blue = json.dumps(game.view("Blue"))
    assert "r-scout" not in blue
    assert "r-scout" in json.dumps(game.view("Red"))
    assert game.ruleset.hidden_tokens(game, "Blue") >= {"r-scout"}
    # Red's reserve is shown to Blue only as an anonymous stack in its box
    stacks = game.view("Blue")["stacks"]
    assert {"stack": True, "side": "Red", "loc": ["box", "red-reserve"]} in stacks
    assert "r-res" not in blue
    commit_postures(game)
    move(game, "b2", "0304")
    move(game, "b1", "0202")
    game.apply({"type": "end-phase", "side": "Blue"})
    game.apply({"type": "end-phase", "side": "Blue"})
    # Red moves its scout; still hidden (not adjacent to Blue)
    game.apply({"type": "end-phase", "side": "Red"})
    game.apply({"type": "end-phase", "side": "Red"})
    commit_postures(game)
    move(game, "b2", "0404")
    assert "r-scout" not in json.dumps(game.view("Blue"))
    move(game, "b1", "0203")
    game.apply({"type": "end-phase", "side": "Blue"})
    game.apply({"type": "end-phase", "side": "Blue"})
    game.apply({"type": "end-phase", "side": "Red"})
    game.apply({"type": "end-phase", "side": "Red"})
    commit_postures(game)
    move(game, "b2", "0504")  # next to the scout at 0604
    assert "revealed" in game.state.pieces["r-scout"].status
    assert "r-scout" in json.dumps(game.view("Blue"))
    assert not game.can_undo()  # the reveal is a barrier


def test_spectator_view_hides_both_sides_secrets(game: Game) -> None:
    game.apply({"type": "commit", "side": "Blue", "key": "posture", "value": "bold"})
    v = game.view(None)
    assert v["secrets"] == {}
    assert "bold" not in json.dumps(v)


def play_to_end(g: Game) -> None:
    import random

    rng = random.Random(5)
    while not g.is_over():
        side = g.acting_sides()[0]
        acts = g.legal_actions(side)
        g.apply(rng.choice(acts))


@pytest.mark.rules("T 6")
def test_t_6_game_ends_with_a_result(game: Game) -> None:
    play_to_end(game)
    assert game.state.result is not None
    assert game.state.result["rule"] == "T 6"
    assert game.legal_actions("Blue") == []
    with pytest.raises(IllegalAction):
        game.apply({"type": "end-phase", "side": "Blue"})


def test_replay_and_save_round_trip(game: Game) -> None:
    play_to_end(game)
    rec = json.loads(json.dumps(game.record()))
    again = replay(rec)
    assert again.state_hash() == game.state_hash()
    assert len(rec["checkpoints"]) >= 4  # setup + every turn + end
    loaded = Game.load(json.loads(json.dumps(game.save())))
    assert loaded.state_hash() == game.state_hash()
    assert loaded.state.log == game.state.log


def test_replay_detects_hash_mismatch(game: Game) -> None:
    fight(game)
    play_to_end(game)
    rec = json.loads(json.dumps(game.record()))
    bad = json.loads(json.dumps(rec))
    bad["checkpoints"][2]["hash"] = "0" * 64
    with pytest.raises(ReplayMismatch) as ei:
        replay(bad)
    assert ei.value.action_index == rec["checkpoints"][2]["after"]
    # a different seed gives different dice: the recorded hashes no longer match
    bad = json.loads(json.dumps(rec))
    bad["seed"] = rec["seed"] + 1
    with pytest.raises((ReplayMismatch, SaveError)):
        replay(bad)


def test_save_checks(game: Game) -> None:
    save = game.save()
    with pytest.raises(SaveError, match="newer"):
        Game.load({**save, "schema": 99})
    with pytest.raises(SaveError, match="not a grognard save"):
        Game.load({"hello": 1})
    edited = {**save, "data_files": {**save["data_files"], "tables/crt.toml": "x"}}
    with pytest.raises(SaveError, match="rule data this game uses changed"):
        Game.load(edited)
    Game.load(edited, allow_data_change=True)
    with pytest.raises(SaveError, match="does not match its recorded hash"):
        Game.load({**save, "scenario_source": save["scenario_source"] + "\n# edited\n"})


def test_dice_are_seeded_and_logged(tiny_path: Path) -> None:
    sc = load_scenario(tiny_path)
    a = Game.new(sc, seed=3)
    b = Game.new(sc, seed=3)
    c = Game.new(sc, seed=4)
    ra = [a.roll("d6", "test", "T 4").natural for _ in range(30)]
    rb = [b.roll("d6", "test", "T 4").natural for _ in range(30)]
    rc = [c.roll("d6", "test", "T 4").natural for _ in range(30)]
    assert ra == rb and ra != rc
    assert set(ra) <= set(range(1, 7))
    r = a.roll("2d6", "two dice", "T 4", modifiers=3, clamp=(2, 12))
    assert 2 <= r.modified <= 12 and len(r["faces"]) == 2
    assert a.state.log[-1]["type"] == "roll" and a.state.log[-1]["rule"] == "T 4"
    for die, lo, hi in (("d10", 1, 10), ("d12", 1, 12), ("d6/2", 1, 3)):
        vals = {a.roll(die, "range", "T 4").natural for _ in range(200)}
        assert min(vals) == lo and max(vals) == hi
    secret = a.roll("d12", "secret test: kaiser", "T 4", visible_to=["Blue"])
    red_log = a.visible_log("Red")
    assert (
        red_log[-1]["text"].startswith("a secret roll")
        and str(secret.natural) not in red_log[-1]["text"][15:]
    )


def test_pieces_on_hexsides_in_boxes_and_inside_other_pieces(game: Game) -> None:
    from grognard.selfplay import core_invariants

    st = game.state
    side = game.board.side_between(game.board.idx("0302"), game.board.idx("0402"))
    st.move("b1", Loc.hexside(side))
    st.move("b2", Loc.inside("b1"))
    assert st.where("b2") == Loc.hexside(side)
    assert [p.id for p in st.contents("b1")] == ["b2"]
    view = {p["id"]: p for p in game.view("Blue")["pieces"]}
    assert view["b1"]["loc"] == ["hexside", "0302/0402"]
    assert view["b2"]["loc"] == ["piece", "b1"]
    assert core_invariants(game, set(st.pieces)) == []
    st.move("b1", Loc.inside("b2"))
    assert any("inside itself" in p for p in core_invariants(game, set(st.pieces)))


def test_stack_order_and_markers(game: Game) -> None:
    st = game.state
    hx = Loc.hex(game.board.idx("0102"))
    st.move("b2", hx)
    assert [p.id for p in st.at(hx)] == ["b1", "b2"]
    st.move("b2", hx, on_top=False)
    assert [p.id for p in st.at(hx)] == ["b2", "b1"]
    st.set_marker("rail-break", 17, 2)
    assert st.marker("rail-break", "17") == 2
    st.set_marker("rail-break", 17, None)
    assert st.marker("rail-break", 17) is None


def test_the_visible_log_after_an_event_follows_on_from_the_log_before_it() -> None:
    """``visible_log_after(side, start, seen)`` is the tail of ``visible_log(side)`` from global
    event ``start`` on, numbered on from the ``seen`` events the side sees before it."""
    rng = random.Random(2)
    g = Game.new(find("gw-tutorial"), 2)
    for _ in range(40):
        side = rng.choice(g.acting_sides())
        g.apply(choose(g.legal_actions(side), rng))
    for side in [*g.state.sides, None]:
        whole = g.visible_log(side)
        for start in (0, 1, len(g.state.log) // 2, len(g.state.log)):
            seen = len(whole) - len(g.visible_log(side, start))
            assert g.visible_log_after(side, start, seen) == g.visible_log(side, start)


@pytest.mark.parametrize(
    ("scenario", "options"),
    [
        ("gw-tutorial", {}),
        ("gw-tutorial", {"limited-intelligence": True}),
        ("lgg-tutorial", {}),
        ("eastfront-tutorial", {}),
    ],
)
def test_a_view_without_its_log_is_the_view_less_the_log(
    scenario: str, options: dict[str, bool]
) -> None:
    g = Game.new(find(scenario), 3, options)
    rng = random.Random(3)
    for _ in range(25):
        side = rng.choice(g.acting_sides())
        g.apply(choose(g.legal_actions(side), rng))
    for side in [*g.state.sides, None]:
        whole = g.view(side)
        assert "log" in whole and "log" not in g.view(side, log=False)
        assert g.view(side, log=False) == {k: v for k, v in whole.items() if k != "log"}


@pytest.mark.parametrize("scenario", ["gw-tutorial", "lgg-tutorial"])
def test_the_pieces_of_a_view_are_their_records_of_now_after_every_action(scenario: str) -> None:
    """A piece's record is kept on the piece between views; after every action (and in a clone)
    each view's pieces are still exactly what ``piece_view`` builds afresh."""
    g = Game.new(find(scenario), 4)
    rng = random.Random(4)
    for k in range(30):
        c = g.clone() if k % 10 == 0 else g
        for side in c.state.sides:
            shown = {d["id"]: d for d in c.view(side, log=False)["pieces"]}
            for pid, d in shown.items():
                assert d == c.ruleset.piece_view(c, c.state.pieces[pid]), (k, pid)
        side = rng.choice(g.acting_sides())
        g.apply(choose(g.legal_actions(side), rng))
    p = next(iter(g.state.pieces.values()))
    before = g.ruleset.kept_piece_view(g, p)
    p.attrs["probe"] = 1
    assert g.ruleset.kept_piece_view(g, p) is not before
    assert g.ruleset.kept_piece_view(g, p)["attrs"]["probe"] == 1
