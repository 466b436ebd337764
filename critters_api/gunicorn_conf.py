"""gunicorn's settings file for every web server we run (``scripts/serve`` and the image):
``gunicorn --config python:critters_api.gunicorn_conf ...``.

Workers die with their master. gunicorn's master watches its workers, but nothing makes a worker notice that
its master is gone: after a ``kill -9`` of the master its workers lived on as orphans holding the listening
socket, so the master that supervisor started next failed to bind ("Connection in use") and exited again and
again, and a dead orphan was never replaced. Each worker therefore asks the kernel to kill it when the process
that forked it dies (``PR_SET_PDEATHSIG``, Linux), as the Celery pool processes do
(``critters_api/celery.py``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from typing import Any

PR_SET_PDEATHSIG = 1  # prctl(2)


def post_fork(server: Any, worker: Any) -> None:
    """In each worker, right after the fork: be killed (SIGKILL) when the master dies."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != server.pid:  # the master died before we asked: do not outlive it
        os._exit(1)
