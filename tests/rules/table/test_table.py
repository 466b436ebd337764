"""The table (games/rules/table/): the play-by-web rules written once, proven on the games it hosts (Loose
Triggers and Were-cats): deadlines written into the log (R7.1, R7.5), what a timeout plays (R7.2, R7.3, LT7.3,
WC4.1), resignation (R7.4, LT7.3, WC4.3), the absent-player policy (extensions, autopilot, take-back,
hand-over), pause and resume (R7.6, rulings 28 and 31), warnings, outage extensions, ready flags (R2.4,
LT3.3), messages, and the Countdown as a deadline that restarts on each aim (LT3.1, LT3.2). Pure."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from games.rules.core import Context, RuleError
from games.rules.loose_triggers.game import LooseTriggers
from games.rules.registry import get_ruleset
from games.rules.table import events as tev
from games.rules.table.ruleset import Table

T0 = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
SEED = bytes(range(32))


@dataclass
class Game:
    """A table game driven step by step at a chosen time; every event is checked to round-trip through
    JSON and the state to equal the fold of the log."""

    rs: Table
    state: Any
    now: datetime = T0
    log: list[Any] = field(default_factory=list)

    def do(self, command: Any) -> list[Any]:
        data = self.rs.command_to_json(command)
        assert (
            self.rs.command_from_json(json.loads(json.dumps(data)), getattr(command, "seat", None)) == command
        )
        events, self.state = self.rs.step(self.state, command, Context(now=self.now))
        for event in events:
            assert self.rs.event_from_json(json.loads(json.dumps(self.rs.event_to_json(event)))) == event
        self.log += events
        assert self.rs.fold(self.log) == self.state
        return events

    def send(self, seat: int, data: dict[str, Any]) -> list[Any]:
        return self.do(self.rs.command_from_json(data, seat))

    def refused(self, seat: int | None, data: dict[str, Any], code: str) -> None:
        command = self.rs.command_from_json(data, seat)
        with pytest.raises(RuleError) as info:
            self.rs.decide(self.state, command, Context(now=self.now))
        assert info.value.code == code, info.value

    def expire(self, *, late: int = 1) -> list[Any]:
        w = self.rs.waiting(self.state)
        assert w is not None
        assert w.due_at is not None
        self.now = max(self.now, w.due_at + timedelta(seconds=late))
        return self.do(self.rs.expire_command(w.step_no))

    def view(self, viewer: int | None = None) -> dict[str, Any]:
        return self.rs.view_for(self.state, viewer)

    @property
    def play(self) -> dict[str, Any]:
        return self.view()["play"]

    def bots(self, *, skip: tuple[int, ...] = (), limit: int = 10_000, until: str | None = None) -> None:
        """Bots play every seat not in ``skip`` until none has anything to do (or step ``until`` opens)."""
        for _ in range(limit):
            w = self.rs.waiting(self.state)
            if until is not None and w is not None and w.step == until:
                return
            for seat in range(self.state.n):
                if seat in skip:
                    continue
                command = self.rs.bot_command(self.state, seat, strategy="sensible", salt=len(self.log))
                if command is not None:
                    self.do(command)
                    break
            else:
                return
        raise AssertionError("the bots did not stop")


def start(slug: str, n: int, options: dict[str, Any] | None = None, **setup: Any) -> Game:
    rs = get_ruleset(slug)
    assert isinstance(rs, Table)
    opts = rs.parse_options(options or {})
    game = Game(rs, rs.initial_state())
    players = [f"p{i}" for i in range(n)]
    game.do(rs.start_command(players=players, creator="p0", options=opts, seed=SEED, setup=setup or None))
    return game


def types(events: list[Any]) -> list[str]:
    return [e.TYPE for e in events]


WC_DEADLINES = {"deadlines": {"setup": 60, "place": 120, "populate": 60, "act": 60}}
LT_DEADLINES = {"deadlines": {"give": 60, "choose": 120, "pick": 60}, "countdown": 30}


# --------------------------------------------------------------------------------------------------
# options
# --------------------------------------------------------------------------------------------------
def test_the_table_options_sit_beside_the_games_and_are_validated_r7_1() -> None:
    rs = get_ruleset("were_cats")
    options = rs.options_to_json(rs.parse_options({"max_rounds": 5, **WC_DEADLINES, "pause_by": "vote"}))
    assert options["max_rounds"] == 5
    assert options["deadlines"] == {"setup": 60, "place": 120, "populate": 60, "act": 60}
    assert options["absence"] == {"extensions": 1, "autopilot_after": 3}
    assert options["pause_by"] == "vote"
    assert rs.options_to_json(rs.parse_options(options)) == options  # the full form reads back
    for bad, key in (
        ({"deadlines": {"give": 10}}, "deadlines.give"),  # a Loose Triggers step, not a Were-cats one
        ({"deadlines": {"act": 0}}, "deadlines.act"),
        ({"absence": {"extensions": -1}}, "absence.extensions"),
        ({"pause_by": "anyone"}, "pause_by"),
        ({"max_pause": 0}, "max_pause"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"countdown": 10}, "countdown"),  # a Loose Triggers option
    ):
        with pytest.raises(RuleError) as info:
            rs.parse_options(bad)
        assert info.value.code == "invalid_options"
        assert info.value.details.get("key") == key, bad
    with pytest.raises(RuleError) as info:
        rs.parse_options({"nope": 1})
    assert "deadlines" in info.value.message  # an unknown key's message names the table's options too
    assert "max_rounds" in info.value.message


# --------------------------------------------------------------------------------------------------
# deadlines and their defaults
# --------------------------------------------------------------------------------------------------
def test_each_waiting_step_writes_its_deadline_into_the_log_r7_1_r7_5() -> None:
    game = start("were_cats", 3, WC_DEADLINES)
    opened = [e for e in game.log if isinstance(e, tev.DeadlineSet)]
    assert len(opened) == 1
    assert opened[0].step == "setup"
    assert opened[0].due_at == (T0 + timedelta(seconds=60)).isoformat()
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.due_at == T0 + timedelta(seconds=60)
    assert w.step_no == opened[0].step_no
    assert game.play["due_at"] == opened[0].due_at


def test_no_deadline_means_none_is_written_and_no_timer_r7_1() -> None:
    game = start("were_cats", 3)
    opened = [e for e in game.log if isinstance(e, tev.DeadlineSet)]
    assert opened
    assert opened[0].due_at is None
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.due_at is None


def test_an_early_or_stale_timer_changes_nothing() -> None:
    game = start("were_cats", 3, WC_DEADLINES)
    w = game.rs.waiting(game.state)
    assert w is not None
    assert game.do(game.rs.expire_command(w.step_no)) == []  # not due yet
    game.now = T0 + timedelta(hours=1)
    assert game.do(game.rs.expire_command(w.step_no + 7)) == []  # another step's timer


def test_a_missed_deadline_spends_an_extension_then_plays_the_default_wc4_1() -> None:
    game = start("were_cats", 2, WC_DEADLINES)
    first = game.rs.waiting(game.state)
    assert first is not None
    (seat,) = first.seats
    events = game.expire()
    assert types(events) == ["DeadlineMissed", "DeadlineExtended"]
    assert events[1].seats == (seat,)
    assert events[1].reason == "absence"
    assert game.play["seats"][seat]["extensions_left"] == 0
    events = game.expire()
    assert types(events)[:3] == ["DeadlineMissed", "DeadlinePassed", "StartingCoinsTaken"]
    taken = events[2]
    assert (taken.seat, taken.kind, taken.reason) == (seat, "penny", "timeout")  # ruling 1: the first kind
    assert game.play["seats"][seat]["misses"] == 2
    # the next step opened with its own deadline
    assert isinstance(events[-1], tev.DeadlineSet)
    assert events[-1].step_no != first.step_no


def test_a_seat_that_acts_again_starts_its_count_of_misses_from_zero() -> None:
    game = start("were_cats", 2, {**WC_DEADLINES, "absence": {"extensions": 0, "autopilot_after": 3}})
    w = game.rs.waiting(game.state)
    assert w is not None
    (seat,) = w.seats
    game.expire()  # seat misses the setup choice
    assert game.play["seats"][seat]["misses"] == 1
    game.bots(until="place")  # the others choose their coins
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.step == "place"
    game.send(seat, {"type": "FinishPlacing"})
    assert game.play["seats"][seat]["misses"] == 0
    assert any(isinstance(e, tev.PlayerReturned) and e.seat == seat for e in game.log)


def test_autopilot_after_missed_deadlines_then_take_back_and_hand_over() -> None:
    game = start("were_cats", 3, {**WC_DEADLINES, "absence": {"extensions": 0, "autopilot_after": 1}})
    w = game.rs.waiting(game.state)
    assert w is not None
    (seat,) = w.seats
    events = game.expire()
    assert tev.AutopilotEngaged(seat=seat, reason="absent") in events
    assert game.rs.autopilot_seats(game.state) == frozenset({seat})
    assert "TakeBackSeat" in game.rs.legal_commands(game.state, seat)
    game.send(seat, {"type": "TakeBackSeat"})
    assert game.rs.autopilot_seats(game.state) == frozenset()
    game.refused(seat, {"type": "TakeBackSeat"}, "not_on_autopilot")
    game.refused(
        None, {"type": "HandOverSeat", "target": seat, "to": "player", "player": "p9"}, "not_on_autopilot"
    )
    # away again: autopilot again, and an organizer hands the seat to a new player
    game.bots(skip=(seat,))
    while not game.rs.autopilot_seats(game.state):
        w = game.rs.waiting(game.state)
        assert w is not None
        game.expire()
        game.bots(skip=(seat,))
    (away,) = game.rs.autopilot_seats(game.state)
    game.refused(
        None, {"type": "HandOverSeat", "target": away, "to": "player", "player": "p1"}, "invalid_hand_over"
    )
    events = game.do(game.rs.hand_over_command(away, to="player", player="p9"))
    assert types(events) == ["AutopilotReleased", "SeatHandedOver"]
    assert game.view()["players"][away] == "p9"
    assert game.play["seats"][away]["extensions_left"] == 0  # the option's budget, afresh


def test_a_step_that_needs_nobody_closes_at_its_deadline_countdown_lt3_1_lt3_2() -> None:
    game = start("loose_triggers", 4, LT_DEADLINES)
    legal = {s: game.rs.legal_commands(game.state, s) for s in range(4)}
    aimer = next(s for s in range(4) if "Aim" in legal[s])
    game.now = T0 + timedelta(seconds=5)
    game.send(aimer, {"type": "Aim", "target": (aimer + 1) % 4})
    w1 = game.rs.waiting(game.state)
    assert w1 is not None
    assert w1.step == "countdown"
    assert w1.seats == frozenset()
    assert w1.due_at == game.now + timedelta(seconds=30)
    # another player joins: the Countdown restarts at full length, with a new step (LT3.2)
    joiner = next(s for s in range(4) if s not in (aimer, (aimer + 1) % 4))
    game.now = T0 + timedelta(seconds=20)
    game.send(joiner, {"type": "Aim", "target": aimer})
    w2 = game.rs.waiting(game.state)
    assert w2 is not None
    assert w2.step == "countdown"
    assert w2.step_no > w1.step_no
    assert w2.due_at == game.now + timedelta(seconds=30)
    game.now = w1.due_at + timedelta(seconds=1)  # the first Countdown's time: stale
    assert game.do(game.rs.expire_command(w1.step_no)) == []
    events = game.expire()  # the second's: the Discussion locks (LT3.3)
    assert "DeadlinePassed" in types(events)
    assert "CountdownEnded" in types(events)
    w3 = game.rs.waiting(game.state)
    assert w3 is not None
    assert w3.step == "choose"


def test_ready_flags_close_the_choice_and_a_change_lowers_them_r2_4_lt3_3() -> None:
    game = start("loose_triggers", 4, LT_DEADLINES)
    aimer = next(s for s in range(4) if "Aim" in game.rs.legal_commands(game.state, s))
    game.send(aimer, {"type": "Aim", "target": (aimer + 1) % 4})  # a Discussion (LT3.1) ...
    game.send((aimer + 1) % 4, {"type": "Aim", "target": aimer})  # ... a second Gunner (LT3.2) ...
    game.expire()  # ... and the Countdown runs out: the Gunners choose (LT3.3)
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.step == "choose"
    assert len(w.seats) == 2, w
    assert game.play["ready_flags"] is True
    gunners = sorted(w.seats)
    first = gunners[0]
    assert "SetReady" not in game.rs.legal_commands(game.state, first)  # not before the choice is made
    game.refused(first, {"type": "SetReady", "ready": True}, "action_not_chosen")
    game.send(first, {"type": "ChooseAction", "card": -1})
    assert "SetReady" in game.rs.legal_commands(game.state, first)
    game.send(first, {"type": "SetReady", "ready": True})
    assert game.play["seats"][first]["ready"] is True
    game.refused(first, {"type": "SetReady", "ready": True}, "no_change")
    events = game.send(first, {"type": "ChooseAction", "card": -1})  # any change lowers the flag
    assert tev.ReadySet(seat=first, ready=False) in events
    for seat in gunners:
        game.send(seat, {"type": "ChooseAction", "card": -1})
        events = game.send(seat, {"type": "SetReady", "ready": True})
    assert "ActionsRevealed" in types(events)  # the last flag closed the step (LT3.4)


# --------------------------------------------------------------------------------------------------
# resignation
# --------------------------------------------------------------------------------------------------
def test_a_resigned_seat_plays_the_defaults_at_once_and_cannot_win_r7_4_wc4_3() -> None:
    game = start("were_cats", 3, WC_DEADLINES)
    w = game.rs.waiting(game.state)
    assert w is not None
    (seat,) = w.seats
    events = game.send(seat, {"type": "Resign"})
    assert types(events)[:3] == ["PlayerResigned", "SeatResigned", "StartingCoinsTaken"]
    assert events[2].reason == "resigned"
    game.refused(seat, {"type": "Pass"}, "resigned")
    assert game.rs.legal_commands(game.state, seat) == ["SendMessage"]
    game.send(seat, {"type": "SendMessage", "text": "good luck"})  # a resigned player may still talk
    for _ in range(2000):
        if game.rs.is_terminal(game.state):
            break
        game.bots(skip=(seat,))
        if not game.rs.is_terminal(game.state):
            game.expire()
    assert game.rs.is_terminal(game.state)
    assert seat not in game.state.game.winners  # WC4.3 as R7.4 (ruling 15)


def test_every_seat_resigned_the_game_still_ends_r7_6_lt7_3() -> None:
    for slug, n in (("loose_triggers", 4), ("were_cats", 2)):
        game = start(slug, n)  # no deadlines at all
        for seat in range(n):
            if not game.rs.is_terminal(game.state):
                game.send(seat, {"type": "Resign"})
        for _ in range(10_000):
            if game.rs.is_terminal(game.state):
                break
            game.expire()  # only the Countdown has a time of its own (LT3.1)
        assert game.rs.is_terminal(game.state), slug
        resigned = {s for s in range(n) if game.play["seats"][s]["resigned"]}
        assert resigned
        assert not resigned & set(game.state.game.winners)


# --------------------------------------------------------------------------------------------------
# pause
# --------------------------------------------------------------------------------------------------
def test_a_pause_stops_the_clock_and_the_resume_moves_the_deadline_r7_6() -> None:
    game = start("were_cats", 3, WC_DEADLINES)
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.due_at is not None
    game.now = T0 + timedelta(seconds=10)
    game.do(game.rs.pause_command(True))
    (seat,) = w.seats
    game.refused(seat, {"type": "ChooseStartingCoins", "kind": "dime"}, "paused")
    paused = game.rs.waiting(game.state)
    assert paused is not None
    assert paused.due_at == game.now + timedelta(days=7)
    game.now = T0 + timedelta(hours=2)
    assert game.do(game.rs.expire_command(w.step_no)) == []  # no deadline runs while paused
    events = game.do(game.rs.pause_command(False))
    assert types(events) == ["GameResumed"]
    assert events[0].due_at == (w.due_at + (game.now - (T0 + timedelta(seconds=10)))).isoformat()


def test_a_pause_ends_by_itself_after_the_longest_pause_r7_6() -> None:
    game = start("were_cats", 3, {**WC_DEADLINES, "max_pause": 3600})
    game.do(game.rs.pause_command(True))
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.due_at == T0 + timedelta(hours=1)
    game.now = T0 + timedelta(hours=1)
    events = game.do(game.rs.expire_command(w.step_no))
    assert types(events) == ["GameResumed"]
    assert events[0].by == "limit"


def test_a_step_opening_in_a_pause_gets_its_full_time_from_the_resume_r7_6() -> None:
    game = start("were_cats", 3, WC_DEADLINES)
    w = game.rs.waiting(game.state)
    assert w is not None
    (seat,) = w.seats
    game.now = T0 + timedelta(seconds=30)
    game.do(game.rs.pause_command(True))
    game.now = T0 + timedelta(seconds=40)
    game.send(seat, {"type": "Resign"})  # its default opens the next step during the pause
    opened = [e for e in game.log if isinstance(e, tev.DeadlineSet)][-1]
    assert opened.due_at == (T0 + timedelta(seconds=30 + 60)).isoformat()  # from the pause's start
    game.now = T0 + timedelta(seconds=500)
    resumed = game.do(game.rs.pause_command(False))[0]
    assert resumed.due_at == (game.now + timedelta(seconds=60)).isoformat()  # its full 60 s from the resume


def test_pause_by_vote_needs_a_majority_of_the_seats_still_playing_ruling_28() -> None:
    game = start("were_cats", 3, {**WC_DEADLINES, "pause_by": "vote"})
    with pytest.raises(RuleError) as info:
        game.rs.decide(game.state, game.rs.pause_command(True), Context(now=game.now))
    assert info.value.code == "pause_by_vote"
    assert types(game.send(0, {"type": "VotePause", "pause": True})) == ["PauseVoted"]
    game.refused(0, {"type": "VotePause", "pause": True}, "no_change")
    events = game.send(1, {"type": "VotePause", "pause": True})
    assert types(events) == ["PauseVoted", "GamePaused"]
    game.send(2, {"type": "VotePause", "pause": False})
    events = game.send(2, {"type": "Resign"})  # two voters left, one vote to resume: not a majority
    assert "GameResumed" not in types(events)
    events = game.send(0, {"type": "VotePause", "pause": False})  # a resigned seat's vote counts no more
    assert "GameResumed" not in types(events)
    events = game.send(1, {"type": "VotePause", "pause": False})
    assert "GameResumed" in types(events)


def test_when_every_seat_resigned_a_pause_ends_ruling_31() -> None:
    game = start("were_cats", 2, WC_DEADLINES)
    game.do(game.rs.pause_command(True))
    game.send(0, {"type": "Resign"})
    events = game.send(1, {"type": "Resign"})
    assert any(isinstance(e, tev.GameResumed) and e.by == "resigned" for e in events)


# --------------------------------------------------------------------------------------------------
# warnings, outages, messages
# --------------------------------------------------------------------------------------------------
def test_a_warning_comes_a_quarter_of_the_step_before_its_deadline_once() -> None:
    game = start("were_cats", 3, WC_DEADLINES)
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.due_at is not None
    at = game.rs.warn_at(game.state)
    assert at == w.due_at - timedelta(seconds=15)
    assert game.do(game.rs.warn_command(w.step_no)) == []  # too early
    game.now = at
    events = game.do(game.rs.warn_command(w.step_no))
    assert types(events) == ["DeadlineNear"]
    assert events[0].seats == tuple(sorted(w.seats))
    assert game.rs.warn_at(game.state) is None
    assert game.do(game.rs.warn_command(w.step_no)) == []


def test_an_outage_extends_the_deadline_without_spending_the_budget() -> None:
    game = start("were_cats", 3, WC_DEADLINES)
    w = game.rs.waiting(game.state)
    assert w is not None
    game.now = T0 + timedelta(minutes=10)
    events = game.do(game.rs.extend_command(w.step_no, 300, "outage"))
    assert types(events) == ["DeadlineExtended"]
    assert events[0].reason == "outage"
    assert game.play["due_at"] == (game.now + timedelta(seconds=300)).isoformat()
    assert all(s["extensions_left"] == 1 for s in game.play["seats"])


OUTAGE_GAMES = [
    ("goodcritters", {"deadlines": {"distribute": 600, "choose": 600}}),
    ("loose_triggers", {"deadlines": {"give": 600, "choose": 600, "pick": 600, "aim": 0}, "countdown": 600}),
    ("were_cats", {"deadlines": {"setup": 600, "place": 600, "populate": 600, "act": 600}}),
]


@pytest.mark.parametrize(("slug", "options"), OUTAGE_GAMES)
def test_an_outage_extension_never_brings_a_deadline_earlier_r7_7(slug: str, options: dict[str, Any]) -> None:
    """R7.7 (issue #28 item 4), for every game on the table: an outage extension to ``seconds`` from now that
    would not end after the step's deadline changes nothing (no event, the deadline stands); one that ends
    later extends it, from the deadline it had."""
    game = start(slug, 4, options)
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.due_at == T0 + timedelta(seconds=600)
    for at in (15, 480):  # now + 120 s: earlier than the deadline, then exactly on it
        game.now = T0 + timedelta(seconds=at)
        assert game.do(game.rs.extend_command(w.step_no, 120, "outage")) == []
        assert game.rs.waiting(game.state) == w
        assert _shown_due(game) == w.due_at.isoformat()
    game.now = T0 + timedelta(seconds=481)
    events = game.do(game.rs.extend_command(w.step_no, 120, "outage"))
    assert events == [
        tev.DeadlineExtended(
            step_no=w.step_no,
            step=w.step,
            due_at=(T0 + timedelta(seconds=601)).isoformat(),
            previous_due_at=w.due_at.isoformat(),
            reason="outage",
            seats=(),
            unready=(),
        )
    ]
    assert _shown_due(game) == (T0 + timedelta(seconds=601)).isoformat()


def _shown_due(game: Game) -> Any:
    """The deadline the view shows (GoodCritters' view keeps its own shape: no ``play``)."""
    view = game.view()
    return view.get("play", view)["due_at"]


def test_an_outage_extension_does_not_cut_a_countdown_short_r7_7_lt3_1() -> None:
    """R7.7 (issue #28 item 4): the 600-second Countdown of Loose Triggers that ended after 135 seconds. An
    outage extension of 120 s sent 15 s into it leaves it at its full 600 s; it ends then, not before."""
    game = start("loose_triggers", 4, {**LT_DEADLINES, "countdown": 600})
    legal = {s: game.rs.legal_commands(game.state, s) for s in range(4)}
    aimer = next(s for s in range(4) if "Aim" in legal[s])
    game.send(aimer, {"type": "Aim", "target": (aimer + 1) % 4})
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.step == "countdown"
    assert w.due_at == T0 + timedelta(seconds=600)
    game.now = T0 + timedelta(seconds=15)
    assert game.do(game.rs.extend_command(w.step_no, 120, "outage")) == []
    game.now = T0 + timedelta(seconds=136)
    assert game.do(game.rs.expire_command(w.step_no)) == []  # not due: the Countdown runs on
    assert "CountdownEnded" in types(game.expire())
    assert game.now == T0 + timedelta(seconds=601)


def test_private_messages_stay_between_their_seats_until_the_end() -> None:
    game = start("were_cats", 3)
    (event,) = game.send(0, {"type": "SendMessage", "text": "psst", "to": [2]})
    for viewer, seen in ((0, True), (2, True), (1, False), (None, False)):
        data = game.rs.redact_event(event, viewer, terminal=False)
        assert (data["text"] == "psst") is seen
        assert (data["to"] == [2]) is seen
    assert game.rs.redact_event(event, 1, terminal=True)["text"] == "psst"
    for bad in ({"text": " "}, {"text": "x" * 2001}, {"text": "hi", "to": [0]}, {"text": "hi", "to": [5]}):
        game.refused(0, {"type": "SendMessage", **bad}, "invalid_message")


# --------------------------------------------------------------------------------------------------
# what a client may and may not send
# --------------------------------------------------------------------------------------------------
def test_clients_cannot_send_system_commands_or_a_defaults_reason() -> None:
    game = start("were_cats", 3)
    w = game.rs.waiting(game.state)
    assert w is not None
    (seat,) = w.seats
    for data in (
        {"type": "ExpireDeadline", "step_no": w.step_no},
        {"type": "StartGame"},
        {"type": "Resign", "target": 1},  # the game's own system Resign is not a client's
        {"type": "ChooseStartingCoins", "kind": "penny", "reason": "timeout"},
        {"type": "CloseStep", "step_no": 1},
        {"type": "NoSuchThing"},
    ):
        with pytest.raises(RuleError) as info:
            game.rs.command_from_json(data, seat)
        assert info.value.code == "invalid_command", data
    game.refused(9, {"type": "SendMessage", "text": "hi"}, "not_seated")


def test_a_game_cannot_take_a_name_of_the_table() -> None:
    lt: Any = get_ruleset("loose_triggers")
    assert isinstance(lt, Table)

    class Clash(LooseTriggers):
        event_classes: tuple[type[Any], ...] = (*lt.game.event_classes, tev.GamePaused)

    with pytest.raises(ValueError, match="GamePaused"):
        Table(Clash())
