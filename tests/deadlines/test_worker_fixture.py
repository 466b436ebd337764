"""The ``celery_worker_process`` fixture itself: a real worker with beat, killable and restartable."""

from __future__ import annotations

import pytest

from tests.worker import CeleryWorkerProcess


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_worker_starts_on_the_test_database_and_survives_kill_and_restart(
    celery_worker_process: CeleryWorkerProcess,
) -> None:
    from django.db import connection

    worker = celery_worker_process
    assert worker.running
    assert worker.group_alive()
    assert worker.database_url.endswith("/" + connection.settings_dict["NAME"])
    assert "beat: Starting..." in worker.log()

    worker.kill()
    assert not worker.running
    assert not worker.group_alive()  # no orphaned pool child keeps consuming tasks

    worker.restart()
    assert worker.running
    assert worker.group_alive()
    assert worker.starts == 2
