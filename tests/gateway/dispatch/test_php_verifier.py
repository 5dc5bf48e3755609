"""A delivery as it arrived at a real receiver passes the README's PHP signature check (plain hash_hmac, no
library), and a tampered one does not."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from datasources.database import Database
from gateway.dispatch import Dispatcher, WebhookSettings
from tests.datasources.webhooks.helpers import enable, endpoint, record
from tests.webhook_receiver import Received, receiving

SCRIPT = Path(__file__).with_name("php") / "verify_webhook.php"

pytestmark = pytest.mark.skipif(shutil.which("php") is None, reason="php is not installed")


def php_check(received: Received, secret: str, body: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    headers = {f"HTTP_{name.upper().replace('-', '_')}": value for name, value in received.headers.items()}
    return subprocess.run(
        ["php", str(SCRIPT)],
        input=received.body if body is None else body,
        env={**os.environ, **headers, "SECRET": secret},
        capture_output=True,
        timeout=30,
        check=False,
    )


async def test_the_php_check_accepts_a_delivery_and_refuses_a_tampered_one(db: Database) -> None:
    await enable(db)
    with receiving() as receiver:
        _, secret = await endpoint(db, receiver.url)
        await record(db, AuftNr="500042", KundNr="100001")
        assert await Dispatcher(db, WebhookSettings()).run_once() == 1
        (received,) = receiver.wait_for(1)
    accepted = php_check(received, secret)
    assert accepted.returncode == 0, accepted.stderr
    assert accepted.stdout.decode() == f"{received.headers['webhook-id']} REST_Auft 500042\n"
    tampered = php_check(received, secret, received.body.replace(b"500042", b"500043"))
    assert (tampered.returncode, tampered.stdout) == (1, b"refused\n")
    _, other_secret = await endpoint(db)
    assert php_check(received, other_secret).returncode == 1
