"""The simulator CLI and the bots."""

from __future__ import annotations

from typing import Any

import pytest

from games.rules.simulate import game_seed, main, play_game, strategies_for
from tests.rules.gc import RULESET


def test_the_simulator_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["--games", "4", "--players", "5", "--bot", "mix", "--option", "payoffs=true", "--seed", "x"])
        == 0
    )
    out, err = capsys.readouterr()
    assert "games/s" in out
    assert "average rounds" in out
    assert "win share" in out
    assert "4/4 games" in err  # the progress bar


@pytest.mark.parametrize("argv", [["--players", "3"], ["--option", "colour=red"], ["--option", "nokey"]])
def test_the_simulator_refuses_bad_arguments(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--games", "1", "--quiet", *argv])


@pytest.mark.parametrize("bot", ["random", "sensible", "mix"])
def test_bots_are_deterministic_given_a_salt(bot: str) -> None:
    def play() -> list[Any]:
        options = RULESET.parse_options({"payoffs": True})
        strategies = strategies_for(bot, 6, 1)
        return play_game(
            RULESET, players=6, strategies=strategies, options=options, seed=game_seed("d", 1), salt=7
        ).events

    assert play() == play()
