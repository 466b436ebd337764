"""Every position of a finished game can be shown (issue #22's replay steps through every event): the full
view at each event of a bot game of every ruleset, positions inside one command included (Were-cats' ruling
16: a populate turn whose coin emptied the supply has nothing due; its default play used to raise
StopIteration, a 500 on `GET /games/{id}/states/{seq}`), and the chart's rows are those the replay draws."""

from __future__ import annotations

import pytest

from games.audit import replay
from games.audit.record import simulated_record
from games.rules.registry import get_ruleset
from games.rules.simulate import game_seed

GAMES = [("goodcritters", 5), ("loose_triggers", 4), ("were_cats", 3), ("were_cats", 5)]


@pytest.mark.parametrize(("slug", "players"), GAMES, ids=[f"{s}-{n}" for s, n in GAMES])
def test_every_position_has_a_full_view(slug: str, players: int) -> None:
    for game_no in range(3):
        seed = game_seed(f"positions-{slug}", game_no)
        record = simulated_record(players=players, options={}, seed=seed, salt=game_no, ruleset=slug)
        rs = get_ruleset(slug)
        state = rs.initial_state()
        for event in record["events"]:
            state = rs.evolve(state, rs.event_from_json(event["data"]))
            view = rs.full_view(state)  # type: ignore[attr-defined]
            assert view["ruleset"] == slug
        chart = replay.chart_points(record)
        assert chart is not None
        assert len(chart["seqs"]) == len(chart["series"])
        assert chart["seqs"][-1] == record["events"][-1]["seq"]
        assert all(len(row) == players for row in chart["series"])
