"""A webhook backlog never starves the deadlines, and a recovered receiver is drained at its own pace
(issue #26, items 3 and 4; RULES.md R7.1-R7.5: a deadline is applied at its time), with REAL Celery workers
as production runs them: one for the timers (with the beat) and one for the notifications
(``scripts/supervisord.conf``), on the real Redis.

Games whose human seats never act (nobody reads them either: every deadline is the worker's to apply) send
every event to their players' webhooks, whose receiver fails for a while, then answers again at a fixed
pace. Throughout: every deadline is applied within 2 s of its time; no delivery is ever in the broker twice
(a task queued or running, and another one for the same delivery); the notifications queue stays bounded.
After the recovery the first delivery is accepted within seconds, and the backlog drains as fast as the
receiver takes it."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.utils import timezone

from games.models import Event
from notifications.models import Delivery, DeliveryStatus
from tests.conftest import make_api
from tests.worker import CeleryWorkerProcess, database_url_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GAMES = 3
OUTAGE = 15.0  # seconds the receiver fails
PACE = (
    0.2  # seconds the receiver takes per request, one at a time: 5 a second at most (slower than the worker)
)
PROBE_MAX = 2.0  # WEBHOOK_PROBE_MAX_SECONDS for the workers
WINDOW = 4  # WEBHOOK_ENDPOINT_CONCURRENCY (the default)
DEADLINE_SLACK = 2.0


class PacedReceiver:
    """A webhook receiver on loopback that answers 503 while ``down``, else 204, one request at a time, each
    taking ``PACE`` seconds: its pace. Records (arrival time, webhook-id, status)."""

    def __init__(self) -> None:
        self.down = True
        self.lock = threading.Lock()
        self.serial = threading.Lock()
        self.log: list[tuple[float, str, int]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                with receiver.serial:
                    status = 503 if receiver.down else 204
                    if status == 204:
                        time.sleep(PACE)
                    with receiver.lock:
                        receiver.log.append((time.monotonic(), self.headers["webhook-id"], status))
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def accepted(self) -> list[tuple[float, str]]:
        with self.lock:
            return [(at, msg) for at, msg, status in self.log if status == 204]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class QueueWorker(CeleryWorkerProcess):
    """A worker consuming only ``queues`` (as ``scripts/supervisord.conf`` runs them); with the embedded
    beat or without."""

    def __init__(
        self, workdir: Path, database_url: str, queues: str, beat: bool, env: dict[str, str], pool: list[str]
    ) -> None:
        super().__init__(workdir, database_url, env)
        self.queues = queues
        self.beat = beat
        self.pool = pool

    def command(self) -> list[str]:
        command = [a for a in super().command() if a != "--concurrency=2" and (self.beat or a != "--beat")]
        return [*command, *self.pool, "-Q", self.queues]

    def wait_ready(self, timeout: float = 60.0) -> None:
        self.process.wait_until(
            lambda: " ready." in (text := self.log()) and (not self.beat or "beat: Starting..." in text),
            timeout,
            interval=0.05,
        )


@pytest.fixture
def workers(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[QueueWorker]]:
    from django.db import connection

    from critters_api.celery import app

    app.control.purge()
    env = {
        "WEBHOOK_SWEEP_SECONDS": "1",
        "WEBHOOK_PROBE_MAX_SECONDS": str(PROBE_MAX),
        "WEBHOOK_ENDPOINT_CONCURRENCY": str(WINDOW),
        "TEST_CONN_MAX_AGE": "60",  # the workers keep their database connections, as in production
    }
    url = database_url_for(dict(connection.settings_dict))
    started: list[QueueWorker] = []
    try:
        for name, queues, beat, pool in (  # as scripts/supervisord.conf runs them
            ("timers", "sweeps,timers,celery", True, ["--concurrency=2"]),
            ("notifications", "notifications", False, ["--concurrency=2"]),
        ):
            worker = QueueWorker(tmp_path_factory.mktemp(name), url, queues, beat, env, pool)
            worker.start()
            started.append(worker)
        yield started
    finally:
        for worker in started:
            worker.stop()


class BrokerWatch:
    """Samples the broker every 0.1 s: every ``notifications.deliver`` message waiting in a queue or
    reserved by a worker (kombu's ``unacked``), by delivery id. A delivery with two different messages in two
    consecutive samples was enqueued while a task for it was still queued (a task that enqueues its own
    follow-up just before it is acknowledged shows two messages for an instant, never in two samples)."""

    QUEUES = ("notifications", "celery", "timers", "sweeps")

    def __init__(self) -> None:
        self.client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
        self.max_messages = 0
        self.duplicates: list[tuple[str, frozenset[str]]] = []
        self._last: dict[str, frozenset[str]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> dict[str, set[str]]:
        raw: list[bytes | str] = []
        for queue in self.QUEUES:
            raw += list(self.client.lrange(queue, 0, -1))
        for value in self.client.hvals("unacked"):
            raw.append(json.dumps(json.loads(value)[0]))
        messages: dict[str, set[str]] = {}
        for item in raw:
            message = json.loads(item)
            headers = message.get("headers", {})
            if headers.get("task") != "notifications.deliver":
                continue
            delivery_id = str(headers.get("argsrepr", "")).strip("(),' ")
            messages.setdefault(delivery_id, set()).add(str(headers.get("id")))
        return messages

    def _run(self) -> None:
        while not self._stop.is_set():
            messages = self.sample()
            self.max_messages = max(self.max_messages, sum(len(ids) for ids in messages.values()))
            now = {d: frozenset(ids) for d, ids in messages.items() if len(ids) > 1}
            self.duplicates += [(d, ids) for d, ids in now.items() if self._last.get(d) == ids]
            self._last = now
            time.sleep(0.1)

    def __enter__(self) -> BrokerWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


def _deadline_lateness(game_ids: list[int]) -> list[tuple[int, str, float]]:
    """(game, event type, seconds late) of every deadline applied in the games: a passed deadline or an
    extension, measured from the deadline it applied to."""
    out = []
    for event in Event.objects.filter(game_id__in=game_ids, type__in=["DeadlinePassed", "DeadlineExtended"]):
        due = event.data.get("previous_due_at") or event.data["due_at"]
        out.append(
            (event.game_id, event.type, (event.created_at - datetime.fromisoformat(due)).total_seconds())
        )
    return out


@contextlib.contextmanager
def paced_receiver() -> Iterator[PacedReceiver]:
    receiver = PacedReceiver()
    try:
        yield receiver
    finally:
        receiver.stop()


def test_a_webhook_backlog_never_delays_a_deadline_and_drains_at_the_receivers_pace(
    workers: list[QueueWorker],
) -> None:
    """Issue #26 items 3-4, R7.1/R7.5: a receiver down for 15 s while 1-s deadlines fall due in games nobody
    reads; every deadline applied within 2 s of its time, no delivery enqueued twice, a bounded queue, and
    after the recovery the held deliveries reach the receiver at its pace (5 a second), the first within
    a probe interval."""
    with paced_receiver() as receiver, BrokerWatch() as broker:
        games: list[int] = []
        for _ in range(GAMES):
            alice, bob = make_api(), make_api()
            for api in (alice, bob):
                r = api.post(
                    "/api/v1/me/webhooks",
                    {"url": receiver.url, "events": ["game.your_turn", "game.deadline_near"]},
                )
                assert r.status_code == 201, r.content
            r = alice.post(
                "/api/v1/games",
                {
                    "seats": 4,
                    "bots": ["sensible", "random"],
                    "options": {
                        "deadlines": {"distribute": 1, "choose": 1},
                        "absence": {"extensions": 0, "autopilot_after": None},
                    },
                },
            )
            assert r.status_code == 201, r.content
            games.append(r.json()["id"])
            assert bob.post(f"/api/v1/games/{games[-1]}/join").status_code == 200
        # from here on nobody reads or plays the games: only the timers worker moves them
        started = time.monotonic()
        time.sleep(max(0.0, started + OUTAGE - time.monotonic()))
        with receiver.lock:
            failed = sum(1 for _, _, status in receiver.log if status == 503)
            receiver.down = False
        recovered = time.monotonic()
        recovered_at = timezone.now()
        backlog = set(
            Delivery.objects.filter(status=DeliveryStatus.PENDING, created_at__lt=recovered_at).values_list(
                "pk", flat=True
            )
        )

        def drained() -> bool:
            return (
                not Delivery.objects.filter(pk__in=backlog).exclude(status=DeliveryStatus.DELIVERED).exists()
            )

        limit = time.monotonic() + len(backlog) * PACE * 2 + 30
        while not drained():
            if time.monotonic() > limit:
                rows = Counter(
                    Delivery.objects.filter(pk__in=backlog).values_list("status", "endpoint__failing_since")
                )
                claimed = Delivery.objects.filter(pk__in=backlog, queued_until__gt=timezone.now()).count()
                raise AssertionError(
                    f"backlog of {len(backlog)} not drained: {rows}, claimed {claimed}, accepted "
                    f"{len(receiver.accepted())}; notifications worker:\n{workers[1].log()[-4000:]}"
                )
            time.sleep(0.2)
        done = time.monotonic()
        time.sleep(2.0)  # deadlines keep falling due after the drain too
        checked_until = timezone.now()

    accepted = receiver.accepted()
    lateness = _deadline_lateness(games)
    print(
        f"backlog {len(backlog)}, failed requests {failed}, drained in {done - recovered:.1f} s, first after "
        f"{min(at for at, _ in accepted) - recovered:.1f} s, broker max {broker.max_messages} messages, "
        f"{len(lateness)} deadlines, latest {max(x[2] for x in lateness):.2f} s late"
    )
    # the outage was real and held a backlog
    assert failed >= 1
    assert len(backlog) >= 30, len(backlog)

    # every deadline, during the outage and the drain, applied within 2 s of its time (never early)
    assert len(lateness) >= GAMES * 10, lateness
    late = [x for x in lateness if not 0 <= x[2] < DEADLINE_SLACK]
    assert not late, late
    applied = Event.objects.filter(game_id__in=games, type="DeadlinePassed", created_at__lt=checked_until)
    assert applied.filter(created_at__lt=recovered_at - timedelta(seconds=OUTAGE / 2)).exists()

    # never a delivery in the broker twice; never more queued than the endpoints' windows
    assert not broker.duplicates, broker.duplicates[:10]
    endpoints = 2 * GAMES
    # (each of the notifications worker's 2 running tasks may have enqueued what follows it an instant before
    # its own message is acknowledged)
    assert broker.max_messages <= endpoints * WINDOW + 2, broker.max_messages

    # exactly once by webhook-id
    ids = Counter(msg for _, msg in accepted)
    assert max(ids.values()) == 1, [m for m, n in ids.items() if n > 1][:5]
    assert backlog <= set(ids)

    # the first delivery after the recovery within a probe interval (and a sweep), not minutes later
    first = min(at for at, _ in accepted)
    assert first - recovered <= PROBE_MAX + 2.0, first - recovered
    # the backlog at the receiver's pace: it took them one after another (5 a second at most), so draining
    # N takes N x PACE; allow half that pace again, and the probe interval
    took = done - recovered
    assert took <= len(backlog) * PACE * 1.5 + PROBE_MAX + 3.0, (took, len(backlog))
