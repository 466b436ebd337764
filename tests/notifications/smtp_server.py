"""A real SMTP server process for the mail tests (aiosmtpd):
``python -m tests.notifications.smtp_server PORT DIR``.

Each message it accepts is written to ``DIR/<arrival ns>-<n>.eml`` (atomically) before it answers 250, like
an MTA that takes responsibility for a message only when it answers the end of DATA: a client that goes away
before that answer (a worker killed mid-send) has sent nothing. While the file ``DIR/delay`` exists, the
answer to DATA waits that many seconds (the file's content), and ``DIR/in-data-<n>`` marks that message n is
waiting.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller


class Store:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.counter = itertools.count(1)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        n = next(self.counter)
        delay_file = self.folder / "delay"
        if delay_file.exists():
            (self.folder / f"in-data-{n}").write_text(str(time.time()))
            await asyncio.sleep(float(delay_file.read_text() or "0"))  # cancelled if the client goes away
        if server.transport is None or server.transport.is_closing():
            return "451 the client went away"
        content = envelope.original_content or envelope.content
        if isinstance(content, str):
            content = content.encode("utf-8")
        name = f"{time.time_ns()}-{n}.eml"
        tmp = self.folder / f".{name}.tmp"
        tmp.write_bytes(content)
        os.replace(tmp, self.folder / name)
        return "250 OK"


def main() -> None:
    port = int(sys.argv[1])
    folder = Path(sys.argv[2])
    folder.mkdir(parents=True, exist_ok=True)
    controller = Controller(Store(folder), hostname="127.0.0.1", port=port)
    controller.start()
    print(f"smtp server ready on {port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.new_event_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.run_until_complete(stop.wait())
    controller.stop()


if __name__ == "__main__":
    main()
