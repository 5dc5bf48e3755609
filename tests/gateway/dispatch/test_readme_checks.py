"""The signature checks of docs/how-to/webhooks.md run as the page shows them, so that they cannot drift from what the
tests prove: its Python function on a delivery as it arrived at a real receiver, and its PHP script as the
receiver itself (PHP's built-in web server), which the dispatcher delivers to. Both accept the gateway's
messages and refuse a tampered body, another endpoint's secret and (PHP) a stale timestamp."""

from __future__ import annotations

import datetime as dt
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from standardwebhooks import Webhook

from datasources.database import Database
from gateway.dispatch import Dispatcher, WebhookSettings
from tests.datasources.webhooks.helpers import enable, endpoint, record, stored
from tests.gateway.dispatch import readme
from tests.server import free_port
from tests.webhook_receiver import receiving


async def test_the_python_check_accepts_a_delivery_and_refuses_a_tampered_one(db: Database) -> None:
    await enable(db)
    with receiving() as receiver:
        _, secret = await endpoint(db, receiver.url)
        await record(db, AuftNr="500042", KundNr="100001")
        assert await Dispatcher(db, WebhookSettings(allow_private=True)).run_once() == 1
        (received,) = receiver.wait_for(1)
    (snippet,) = readme.code_blocks("python")
    namespace: dict[str, Any] = {}
    exec(snippet, namespace)  # noqa: S102 - the manual's own code, as a reader copies it
    event_of = namespace["event_of"]
    assert event_of(received.body, received.headers, secret) == received.verified(secret)
    with pytest.raises(PermissionError):
        event_of(received.body.replace(b"500042", b"500043"), received.headers, secret)
    _, other_secret = await endpoint(db)
    with pytest.raises(PermissionError):
        event_of(received.body, received.headers, other_secret)


@contextmanager
def php_receiver(directory: Path, port: int, secret: str) -> Iterator[None]:
    """The manual's PHP script served on 127.0.0.1:`port` (every path) with the endpoint's secret in
    WEBHOOK_SECRET, where its comment says it comes from."""
    script = directory / "receiver.php"
    (snippet,) = readme.code_blocks("php")
    script.write_text(snippet)
    with (directory / "php.out").open("wb") as out:
        server = subprocess.Popen(
            ["php", "-S", f"127.0.0.1:{port}", script.name],
            cwd=directory,
            env={"PATH": "/usr/bin:/bin", "WEBHOOK_SECRET": secret},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, (directory / "php.out").read_text()
                time.sleep(0.05)
        yield
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.skipif(shutil.which("php") is None, reason="php is not installed")
async def test_the_php_receiver_accepts_deliveries_and_refuses_forgeries(db: Database, tmp_path: Path) -> None:
    await enable(db)
    port = free_port()
    url = f"http://127.0.0.1:{port}/erp-events"
    ours, secret = await endpoint(db, url)
    theirs, _ = await endpoint(db, url)  # another endpoint's secret, which this receiver does not know
    await record(db, AuftNr="500042", KundNr="100001")
    with php_receiver(tmp_path, port, secret):
        assert await Dispatcher(db, WebhookSettings(allow_private=True)).run_once() == 2
        answers = {delivery.endpoint_id: (delivery.status, delivery.last_status) for delivery in await stored(db)}
        assert answers == {ours.id: ("delivered", 200), theirs.id: ("pending", 401)}
        body = b'{"type":"REST_Auft","timestamp":"2026-11-24T09:15:02Z","data":{"AuftNr":"500042"}}'
        now = dt.datetime.now(dt.UTC)
        async with httpx.AsyncClient(timeout=10) as http:
            assert (await http.post(url, content=body, headers=signed(secret, body, now))).status_code == 200
            tampered = body.replace(b"500042", b"500043")
            assert (await http.post(url, content=tampered, headers=signed(secret, body, now))).status_code == 401
            stale = now - dt.timedelta(minutes=6)
            assert (await http.post(url, content=body, headers=signed(secret, body, stale))).status_code == 401


def signed(secret: str, body: bytes, at: dt.datetime) -> dict[str, str]:
    """Standard Webhooks headers for `body` as sent at `at` (the library's own signature)."""
    signature = Webhook(secret).sign("msg_1", at, body.decode())
    return {"webhook-id": "msg_1", "webhook-timestamp": str(int(at.timestamp())), "webhook-signature": signature}
