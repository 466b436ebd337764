"""R7.7 for GoodCritters' own rules: nobody loses a step because the service was down, and an outage
extension never brings a deadline earlier than it was. It is the table's rule, for every game: the three games
are tested in ``tests/rules/table/test_table.py``; the service's side in
``tests/deadlines/test_outage_r7_7_api.py`` and, under ``scripts/serve`` with PostgreSQL stopped for 60 s,
``tests/outside/test_serve_outage.py``."""

from __future__ import annotations

from datetime import timedelta

from tests.rules.table.test_table import T0, start


def test_r7_7_an_outage_extension_of_the_boss_deal_is_never_earlier_and_later_ones_extend() -> None:
    game = start("goodcritters", 4, {"deadlines": {"distribute": 600, "choose": 600}})
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.step == "distribute"
    assert w.due_at is not None
    game.now = T0 + timedelta(seconds=30)
    assert game.do(game.rs.extend_command(w.step_no, 120, "outage")) == []  # 150 s < 600 s: R7.7
    assert game.rs.waiting(game.state) == w
    game.now = T0 + timedelta(seconds=601)  # due during the outage: extended to now + the grace
    [extended] = game.do(game.rs.extend_command(w.step_no, 120, "outage"))
    assert extended.due_at == (T0 + timedelta(seconds=721)).isoformat()
    assert extended.previous_due_at == w.due_at.isoformat()
