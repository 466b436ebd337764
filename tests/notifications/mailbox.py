"""The mail tests' real SMTP server (a separate process: ``tests/notifications/smtp_server.py``, aiosmtpd) and
what they do with what it received: parse every message, find the links in it."""

from __future__ import annotations

import contextlib
import email
import email.policy
import re
import socket
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from django.test import override_settings

from tests.processes import ManagedProcess, free_port


@dataclass
class Received:
    message: EmailMessage
    at: float  # arrival (time.time())
    raw: bytes

    @property
    def to(self) -> str:
        return str(self.message["To"])

    @property
    def message_id(self) -> str:
        return str(self.message["Message-ID"])

    @property
    def text(self) -> str:
        part = self.message.get_body(("plain",))
        assert part is not None
        return str(part.get_content())

    @property
    def html(self) -> str:
        part = self.message.get_body(("html",))
        assert part is not None
        return str(part.get_content())

    def everything(self) -> str:
        """Headers and every part, decoded: what a leak check searches."""
        parts = [str(k) + ": " + str(v) for k, v in self.message.items()]
        for part in self.message.walk():
            if part.get_content_maintype() == "text":
                parts.append(str(part.get_content()))
        return "\n".join(parts)

    def links(self) -> list[str]:
        return re.findall(r"https?://[^\s<>\"')]+", self.text)


class SmtpServer:
    """``python -m tests.notifications.smtp_server`` on 127.0.0.1:<port>, storing into ``folder``. It can be
    stopped (a real outage: nothing listens) and started again on the same port."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.process = ManagedProcess(
            "the SMTP server", folder.parent / f"{folder.name}-smtp.log", stop_timeout=10
        )

    def start(self) -> SmtpServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "tests.notifications.smtp_server", str(self.port), str(self.folder)]
        self.process.start(command, append=True)
        self.process.wait_until(self._listening, 20, interval=0.05)
        return self

    def _listening(self) -> bool:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s,
        ):
            return s.recv(64).startswith(b"220")
        return False

    def stop(self) -> None:
        self.process.stop()

    @property
    def running(self) -> bool:
        return self.process.running

    def delay_data(self, seconds: float | None) -> None:
        """Hold the answer to DATA (``None``: answer at once)."""
        path = self.folder / "delay"
        if seconds is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(str(seconds))

    def waiting_in_data(self) -> bool:
        return any(self.folder.glob("in-data-*"))

    def received(self) -> list[Received]:
        out = []
        for path in sorted(self.folder.glob("*.eml"), key=lambda p: int(p.name.split("-")[0])):
            raw = path.read_bytes()
            msg = email.message_from_bytes(raw, policy=email.policy.default)
            assert isinstance(msg, EmailMessage)
            out.append(Received(msg, int(path.name.split("-")[0]) / 1e9, raw))
        return out

    def to(self, address: str) -> list[Received]:
        return [m for m in self.received() if address in m.to]

    def wait_for(self, address: str, count: int, timeout: float = 20.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while True:
            got = self.to(address)
            if len(got) >= count:
                return got
            if time.monotonic() > deadline:
                log = self.process.log()
                raise AssertionError(
                    f"{len(got)} mails to {address} within {timeout}s, not {count}; log:\n{log}"
                )
            time.sleep(0.05)

    def settings(self, **more: Any) -> Any:
        """Django settings that send to this server (an ``override_settings``)."""
        return override_settings(
            EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=self.port,
            EMAIL_TIMEOUT=3.0,
            **more,
        )

    def env(self) -> dict[str, str]:
        """The same, as a worker's environment."""
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(self.port),
            "EMAIL_TIMEOUT": "3",
        }


@contextlib.contextmanager
def smtp_server(folder: Path) -> Iterator[SmtpServer]:
    server = SmtpServer(folder).start()
    try:
        yield server
    finally:
        server.stop()


def token_of(url: str) -> str:
    match = re.search(r"[?&]token=([^&\s]+)", url)
    assert match, url
    from urllib.parse import unquote

    return unquote(match.group(1))
