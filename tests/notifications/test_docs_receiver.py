"""The minimal receiver of docs/NOTIFICATIONS.md, run as written (its secret and port filled in), verifies a
real signed delivery with the standardwebhooks library, ignores a retry of the same id and refuses a forged
signature."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from notifications.delivery import attempt_delivery, body_bytes, signed_headers
from notifications.models import Delivery, DeliveryStatus
from tests.conftest import make_api

from .helpers import free_port, wait_for
from .test_webhooks import new_game, register

DOC = Path(__file__).resolve().parents[2] / "docs" / "NOTIFICATIONS.md"


def receiver_source(secret: str, port: int) -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    (source,) = [b for b in blocks if "HTTPServer(" in b]
    assert 'SECRET = "whsec_…"' in source
    assert '("0.0.0.0", 8080)' in source
    return source.replace('"whsec_…"', repr(secret)).replace('("0.0.0.0", 8080)', f'("127.0.0.1", {port})')


@pytest.mark.django_db
def test_the_documented_receiver_verifies_a_real_delivery(tmp_path: Path) -> None:
    apis = [make_api() for _ in range(4)]
    port = free_port()
    hook = register(apis[0], f"http://127.0.0.1:{port}/hook", ["game.started"])
    script = tmp_path / "receiver.py"
    script.write_text(receiver_source(hook["secret"], port))
    proc = subprocess.Popen(
        [sys.executable, "-u", str(script)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        wait_for(lambda: _listening(port), timeout=15)
        new_game(apis)
        (delivery,) = Delivery.objects.all()
        attempt_delivery(delivery.pk)
        delivery.refresh_from_db()
        assert delivery.status == DeliveryStatus.DELIVERED
        # a retry of the same id is accepted and not handled twice; a forged signature is refused
        body = body_bytes(delivery.payload)
        headers = signed_headers(hook["secret"], delivery.pk, body, datetime.now(UTC))
        assert httpx.post(f"http://127.0.0.1:{port}/", content=body, headers=headers).status_code == 204
        forged = {**headers, "webhook-signature": "v1," + "A" * 44}
        assert httpx.post(f"http://127.0.0.1:{port}/", content=body, headers=forged).status_code == 400
    finally:
        proc.terminate()
        output, _ = proc.communicate(timeout=10)
    handled = [line for line in output.splitlines() if line.startswith("game.")]
    assert handled == [f"game.started {delivery.game_id} None"]


def _listening(port: int) -> bool:
    try:
        httpx.get(f"http://127.0.0.1:{port}/", timeout=0.5)
    except httpx.HTTPError:
        return False
    return True
