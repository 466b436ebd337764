"""The replay page is not a free CPU sink (issue #28 item 9): it is throttled like the anonymous API (per
client address; per user for a logged-in browser), and a finished game's verdict (its record never changes,
R8.3's public record once the game is over) is verified once and kept, not recomputed on every request."""

from __future__ import annotations

import itertools
from unittest.mock import patch

import pytest
from django.test import Client
from django.test.utils import override_settings

from games.api import audit_views
from games.audit import export
from games.audit.verify import verify_record
from games.models import Game
from tests.audit.test_record_api import finished_bot_game
from tests.conftest import Api, assert_problem

pytestmark = pytest.mark.django_db

_addresses = (f"198.51.100.{n}" for n in itertools.count(200))


@pytest.fixture
def over(alice: Api) -> Game:
    return finished_bot_game(alice, 4)


@override_settings(THROTTLE_ANON_RATE="3/min")
def test_issue28_item9_the_replay_page_is_throttled_per_address_like_the_anonymous_api(over: Game) -> None:
    client, peer = Client(), next(_addresses)
    statuses = [client.get(f"/games/{over.pk}/replay", REMOTE_ADDR=peer).status_code for _ in range(3)]
    assert statuses == [200, 200, 200]
    r = client.get(f"/games/{over.pk}/replay", REMOTE_ADDR=peer)
    body = assert_problem(r, 429, "throttled")
    assert 1 <= int(r["Retry-After"]) <= 60
    assert body["instance"] == f"/games/{over.pk}/replay"
    # a forged X-Forwarded-For is no new address (no trusted proxy), a missing game no way around it
    r = client.get(
        f"/games/{over.pk + 1000}/replay", headers={"X-Forwarded-For": "10.0.0.9"}, REMOTE_ADDR=peer
    )
    assert_problem(r, 429, "throttled")
    # another address has its own budget
    assert client.get(f"/games/{over.pk}/replay", REMOTE_ADDR=next(_addresses)).status_code == 200


def test_issue28_item9_a_finished_games_verdict_is_verified_once_and_kept(over: Game) -> None:
    """The second view of the page (from anyone) does not verify the record again, and shows the same
    verdict; a record that differs (another game) is verified on its own."""
    client = Client()
    with patch.object(audit_views, "verify_record", wraps=verify_record) as verify:
        first = client.get(f"/games/{over.pk}/replay", REMOTE_ADDR=next(_addresses))
        second = client.get(f"/games/{over.pk}/replay", REMOTE_ADDR=next(_addresses))
        assert first.status_code == second.status_code == 200
        assert verify.call_count == 1
    assert first.content == second.content
    assert 'data-ok="true"' in second.content.decode()
    # the kept verdict is the verifier's own
    verdict = verify_record(export.game_record(Game.objects.get(pk=over.pk)))
    assert verdict.ok
    assert verdict.text() in second.content.decode().replace("&#x27;", "'")


def test_issue28_item9_a_verdict_is_kept_per_record(over: Game) -> None:
    """Keyed by the whole record's digest: a record that changed in anything is verified afresh."""
    record = export.game_record(Game.objects.get(pk=over.pk))
    with patch.object(audit_views, "verify_record", wraps=verify_record) as verify:
        kept = audit_views.replay_verdict(over.pk, record)
        assert audit_views.replay_verdict(over.pk, record) == kept
        assert verify.call_count == 1
        altered = {**record, "events": record["events"][:-1]}
        assert not audit_views.replay_verdict(over.pk, altered)["ok"]
        assert verify.call_count == 2
