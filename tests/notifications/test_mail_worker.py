"""Mail with the real parts (issue #23): a real Celery worker process sends to a real SMTP server process
(aiosmtpd). A mail is sent exactly once across a worker killed with SIGKILL in the middle of the SMTP
conversation; an SMTP server that is really stopped delays mail and loses none; twenty turns in a burst give
at most one mail per interval per player; a player with the game's stream open (a real uvicorn server) gets
no turn mail. Short intervals are settings (``MAIL_*``), the logic is the production one."""

from __future__ import annotations

import itertools
import math
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.db import connection
from django.utils import timezone

from games.loading import load_state, ruleset_for
from games.models import Game
from notifications import mail, presence
from notifications.models import MailNotice, MailSettings, MailStatus, NoticeStatus, OutgoingMail
from tests.conftest import Api, make_api
from tests.worker import CeleryWorkerProcess, database_url_for

from .helpers import AsgiServer, wait_for
from .mailbox import SmtpServer, smtp_server
from .test_mail import BASE, new_game, pump

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def verified(api: Api, address: str) -> None:
    MailSettings.objects.update_or_create(
        player=api.player, defaults={"email": address, "verified_at": timezone.now()}
    )


@pytest.fixture
def server(tmp_path: Path) -> Iterator[SmtpServer]:
    with smtp_server(tmp_path / "mail") as s:
        yield s


def start_worker(tmp_path: Path, server: SmtpServer, **env: str) -> CeleryWorkerProcess:
    from critters_api.celery import app

    app.control.purge()
    worker = CeleryWorkerProcess(
        tmp_path / "worker",
        database_url_for(dict(connection.settings_dict)),
        {
            **server.env(),
            "PUBLIC_BASE_URL": BASE,
            "WEBHOOK_SWEEP_SECONDS": "1",
            "MAIL_SEND_LEASE_SECONDS": "5",
            "MAIL_RETRY_BASE_SECONDS": "1",
            "MAIL_RETRY_MAX_SECONDS": "2",
            **env,
        },
    )
    worker.workdir.mkdir(parents=True, exist_ok=True)
    worker.start()
    return worker


@pytest.fixture
def workers() -> Iterator[list[CeleryWorkerProcess]]:
    started: list[CeleryWorkerProcess] = []
    yield started
    for worker in started:
        worker.stop()


def test_a_mail_is_sent_exactly_once_across_a_worker_kill(
    tmp_path: Path, server: SmtpServer, workers: list[CeleryWorkerProcess]
) -> None:
    worker = start_worker(tmp_path, server)
    workers.append(worker)
    alice, bob, carol, dave = (make_api(n) for n in ("alice", "bob", "carol", "dave"))
    verified(alice, "alice@example.com")
    server.delay_data(60)  # the server sits on the end of DATA: the worker is mid-send
    new_game([alice, bob, carol, dave], name="killed mid-send")
    wait_for(server.waiting_in_data, timeout=30)
    (row,) = OutgoingMail.objects.filter(purpose="notice")
    assert row.status == MailStatus.PENDING
    assert row.attempts == 1
    worker.kill()  # SIGKILL, the whole process group, in the middle of the SMTP conversation
    server.delay_data(None)
    time.sleep(0.5)
    assert server.received() == []  # the server never answered: it did not take the message
    worker.start()
    (got,) = server.wait_for("alice@example.com", 1, timeout=30)
    assert got.message_id == f"<{row.message_id}@critters.example>"
    time.sleep(3)  # a second copy would come now (redelivered task, sweeper)
    assert len(server.received()) == 1
    row.refresh_from_db()
    assert row.status == MailStatus.SENT
    assert row.attempts == 2
    assert row.sent_at is not None


def test_an_smtp_server_that_is_down_delays_mail_and_loses_none(
    tmp_path: Path, server: SmtpServer, workers: list[CeleryWorkerProcess]
) -> None:
    workers.append(start_worker(tmp_path, server, MAIL_MIN_INTERVAL_SECONDS="1"))
    apis = {n: make_api(n) for n in ("alice", "bob", "carol", "dave")}
    for name, api in apis.items():
        verified(api, f"{name}@example.com")
    server.stop()  # really down: nothing listens on its port
    down_at = time.monotonic()
    games = []
    order = list(apis.values())
    for i in range(4):  # each player gets the first turn of one game
        seats = order[i:] + order[:i]
        games.append(new_game(seats, name=f"outage {i}"))
    # each player's first mail is tried again and again (the others wait behind it, in order)
    wait_for(
        lambda: (
            OutgoingMail.objects.filter(purpose="notice", attempts__gte=2).values("player").distinct().count()
            == 4
        ),
        timeout=30,
    )
    errors = set(OutgoingMail.objects.exclude(attempts=0).values_list("last_error", flat=True))
    assert all("Connection refused" in e or "ConnectionRefused" in e for e in errors), errors
    time.sleep(max(0.0, 20 - (time.monotonic() - down_at)))  # down for 20 s
    server.start()
    back_at = time.monotonic()
    for name in apis:
        server.wait_for(f"{name}@example.com", 1, timeout=30)
    delay = time.monotonic() - back_at
    assert delay < 10, delay  # retries every MAIL_RETRY_MAX_SECONDS (2 s) at the most
    wait_for(lambda: not OutgoingMail.objects.filter(status=MailStatus.PENDING).exists(), timeout=30)
    time.sleep(1)
    received = server.received()
    ids = [m.message_id for m in received]
    assert len(ids) == len(set(ids)) == OutgoingMail.objects.filter(purpose="notice").count()
    assert set(OutgoingMail.objects.values_list("status", flat=True)) == {MailStatus.SENT}
    text = "\n".join(m.text for m in received)
    for i in range(4):
        assert f"outage {i}" in text
    assert not MailNotice.objects.filter(status=NoticeStatus.PENDING).exists()


def test_twenty_turns_in_a_burst_give_at_most_one_mail_per_interval(
    tmp_path: Path, server: SmtpServer, workers: list[CeleryWorkerProcess]
) -> None:
    interval = 3.0
    workers.append(start_worker(tmp_path, server, MAIL_MIN_INTERVAL_SECONDS=str(interval)))
    alice, bob, carol, dave = (make_api(n) for n in ("alice", "bob", "carol", "dave"))
    verified(alice, "alice@example.com")
    verified(bob, "bob@example.com")
    MailSettings.objects.filter(player__in=[alice.player, bob.player]).update(kinds=["your_turn"])
    started = time.monotonic()
    mine: dict[str, list[int]] = {"alice": [], "bob": []}
    for i in range(20):  # twenty turns for alice, ten for bob, over a few seconds
        mine["alice"].append(new_game([alice, carol, dave, bob], name=f"alice {i}"))
        if i % 2:
            mine["bob"].append(new_game([bob, carol, dave, alice], name=f"bob {i}"))
    burst = time.monotonic() - started

    def all_mailed() -> bool:
        return not MailNotice.objects.filter(status=NoticeStatus.PENDING).exists() and not (
            OutgoingMail.objects.filter(status=MailStatus.PENDING).exists()
        )

    wait_for(all_mailed, timeout=burst + 4 * interval + 20)
    time.sleep(0.5)
    for name in ("alice", "bob"):
        got = server.to(f"{name}@example.com")
        composed = sorted(
            OutgoingMail.objects.filter(player__username=name).values_list("created_at", flat=True)
        )
        assert len(got) == len(composed)
        gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(composed)]
        assert all(gap >= interval for gap in gaps), gaps  # the bound, as written
        arrivals = [m.at for m in got]
        assert all(b - a >= interval - 0.2 for a, b in itertools.pairwise(arrivals)), arrivals
        span = arrivals[-1] - arrivals[0]
        assert len(got) <= math.floor(span / interval) + 1
        assert len(got) < len(mine[name])  # bursts became one mail listing the games
        text = "\n".join(m.text for m in got)
        named = {int(g) for g in re.findall(r"/play/games/(\d+)", text)}
        assert set(mine[name]) <= named  # and none was lost
        print(f"{name}: {len(mine[name])} turns in {burst:.1f} s -> {len(got)} mails, gaps {gaps}")


class Watcher(threading.Thread):
    """A player at the table: the game's live stream open until ``leave()`` closes the connection."""

    def __init__(self, url: str, token: str) -> None:
        super().__init__(daemon=True)
        self.url, self.token = url, token
        self.opened = threading.Event()
        self.client = httpx.Client(timeout=httpx.Timeout(30.0))

    def run(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        try:
            with self.client.stream("GET", self.url, headers=headers) as r:
                assert r.status_code == 200
                for _line in r.iter_lines():
                    self.opened.set()
        except httpx.HTTPError:
            pass  # closed by leave()

    def leave(self) -> None:
        self.client.close()
        self.join(10)


def _play_until_waiting_on(game_id: int, seat: int, apis: list[Api]) -> None:
    """Send bot commands for the other seats until the game waits on ``seat``."""
    from games.api.commands import kebab

    for _ in range(50):
        game = Game.objects.get(pk=game_id)
        rs = ruleset_for(game)
        state = load_state(game, rs)
        waiting = rs.waiting(state)
        assert waiting is not None
        if seat in waiting.seats:
            return
        mover = min(waiting.seats)
        command = rs.bot_command(state, mover, strategy="sensible", salt=0)
        assert command is not None
        body = rs.command_to_json(command)
        kind = body.pop("type")
        assert apis[mover].command(game_id, kebab(kind), body).status_code == 200
    raise AssertionError("the game never waited on the seat")


def test_a_player_at_the_table_gets_no_turn_mail(tmp_path: Path, server: SmtpServer) -> None:
    alice, bob, carol, dave = (make_api(n) for n in ("alice", "bob", "carol", "dave"))
    verified(alice, "alice@example.com")
    MailSettings.objects.filter(player=alice.player).update(kinds=["your_turn"])
    apis = [bob, alice, carol, dave]  # alice is seat 1: the first step is bob's
    game_id = new_game(apis, name="at the table")
    asgi = AsgiServer(tmp_path / "uvicorn.log", {"STREAM_KEEPALIVE_SECONDS": "1"}).start()
    watcher = Watcher(f"{asgi.base_url}/api/v1/games/{game_id}/stream", alice.token)
    try:
        watcher.start()
        assert watcher.opened.wait(20)
        wait_for(lambda: presence.present(alice.player.pk, game_id), timeout=10)
        _play_until_waiting_on(game_id, 1, apis)
        with server.settings(PUBLIC_BASE_URL=BASE):
            pump()
            assert server.to("alice@example.com") == []  # at the table: held
            (held,) = MailNotice.objects.filter(player=alice.player, kind="your_turn")
            assert held.status == NoticeStatus.PENDING
            watcher.leave()  # she closes the page: the stream ends
            wait_for(lambda: not presence.present(alice.player.pk, game_id), timeout=15)
            pump()
            (turn,) = server.wait_for("alice@example.com", 1)
        assert turn.message["Subject"] == "Your turn in at the table"
        assert f"{BASE}/play/games/{game_id}" in turn.text
    finally:
        watcher.leave()
        asgi.stop()


def test_flush_is_idempotent_under_the_bound(server: SmtpServer) -> None:
    alice, bob, carol, dave = (make_api(n) for n in ("alice", "bob", "carol", "dave"))
    verified(alice, "alice@example.com")
    new_game([alice, bob, carol, dave], name="twice")
    results: list[Any] = []

    def flush() -> None:
        try:
            results.append(mail.flush(alice.player.pk))
        finally:
            connection.close()

    threads = [threading.Thread(target=flush) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len([r for r in results if r is not None]) == 1  # four flushes at once: one mail
    assert OutgoingMail.objects.filter(purpose="notice").count() == 1
