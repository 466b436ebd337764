"""The order in which the rules check a player command, as every command operation documents it (issue #24;
games.api.command_views.CHECK_ORDER): the step first (409 ``wrong_step``, whoever sends it, whatever the
arguments), then the seat (a 403 does not depend on the arguments), then the arguments (422).

Over bot games of every ruleset: in sampled positions, every player command the bots sent in the game (so
with varied arguments) is sent again from every seat that has not resigned, and the answers are compared.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import Any

import pytest

from games.rules.core import Context, ErrorKind, RuleError
from games.rules.registry import RULESETS, get_ruleset
from games.rules.simulate import EPOCH, play_game

PER_SEAT_STEP = {"SetReady"}
"""Commands whose step is each seat's own: a step that does not wait on the seat is ``wrong_step`` for it
(documented in CHECK_ORDER)."""
NAMES_A_THING = {"AcceptTrade", "DeclineTrade"}
"""Commands whose argument names something of the game (a trade): looked up first (409 ``no_such_trade``),
then whether it is the seat's (403 ``not_your_trade``), so their 403 depends on that argument (documented)."""

SEATS = {"goodcritters": 5, "loose_triggers": 4, "were_cats": 4}
OPTIONS: dict[str, dict[str, Any]] = {
    "goodcritters": {"payoffs": True},
    "loose_triggers": {},
    "were_cats": {},
}


def _answer(rs: Any, state: Any, command: Any) -> tuple[str, str]:
    try:
        rs.decide(state, command, Context(now=EPOCH))
    except RuleError as exc:
        return exc.code, exc.kind.value
    return "ok", "ok"


@pytest.mark.parametrize("slug", sorted(RULESETS))
def test_the_step_is_checked_before_the_seat_and_the_seat_before_the_arguments(slug: str) -> None:
    rs = get_ruleset(slug)
    positions: list[Any] = []
    commands: dict[str, list[Any]] = defaultdict(list)
    player_types = {cls.TYPE for cls in rs.player_commands}  # type: ignore[attr-defined]

    def seen(before: Any, command: Any, events: list[Any]) -> None:
        positions.append(before)
        kind = commands[command.TYPE]
        if command.TYPE in player_types and command not in kind and len(kind) < 8:
            kind.append(command)

    for game_no in range(2):
        n = SEATS[slug]
        play_game(
            rs,
            players=n,
            strategies=["random" if (s + game_no) % 2 else "sensible" for s in range(n)],
            options=rs.parse_options(OPTIONS[slug]),
            seed=bytes([game_no + 1]) * 32,
            salt=game_no,
            on_command=seen,
        )
    assert len(positions) > 20
    sample = positions[:: max(1, len(positions) // 40)]
    checked = 0
    for state in sample:
        if rs.is_terminal(state):
            continue
        view = rs.view_for(state, None)
        resigned = {s["seat"] for s in view.get("play", {}).get("seats", []) if s["resigned"]}
        seats = [s for s in range(SEATS[slug]) if s not in resigned]
        for type_name, variants in commands.items():
            answers = {
                (seat, i): _answer(rs, state, dataclasses.replace(command, seat=seat))
                for seat in seats
                for i, command in enumerate(variants)
            }
            checked += len(answers)
            codes = {code for code, _ in answers.values()}
            if "wrong_step" in codes and type_name not in PER_SEAT_STEP:  # the step first: whoever sends
                assert codes == {"wrong_step"}, (type_name, answers)  # it, whatever the arguments
            for seat in seats:
                if type_name in PER_SEAT_STEP:  # the step is the seat's: wrong_step for one seat is for all
                    own = {answers[(seat, i)][0] for i in range(len(variants))}  # its arguments
                    assert "wrong_step" not in own or own == {"wrong_step"}, (type_name, seat, own)
                if type_name in NAMES_A_THING:
                    continue
                mine = {answers[(seat, i)] for i in range(len(variants))}
                forbidden = {a for a in mine if a[1] == ErrorKind.FORBIDDEN.value}
                if forbidden:  # then the seat, before the arguments: a 403 whatever the arguments
                    assert mine == forbidden, (type_name, seat, mine)
                    assert len(forbidden) == 1, (type_name, seat, mine)
    assert checked > 500
