"""A stopping `gateway serve` cuts its event streams instead of waiting for them: uvicorn waits for every
answer under way before a worker exits, and a subscription's stream never ends by itself. Its client sees
the stream end without `complete` and resumes elsewhere from its last cursor."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.gateway.live.client import ORDER_EVENTS
from tests.gateway.live.sse_client import COMMENT, Event, subscribed
from tests.server import running_server

USER, SECRET = "shop", "a-long-secret-for-stopping"


def test_a_stopping_server_cuts_its_event_streams(tmp_path: Path) -> None:
    env = {"GATEWAY_LIVE_PING_SECONDS": "1"}
    users = [(USER, SECRET, ["shop"])]
    with running_server(tmp_path, users=users, serve_args=["--workers", "2"], extra_env=env) as server:
        token = server.token(USER, SECRET)
        with subscribed(server.base_url, token, ORDER_EVENTS) as stream:
            assert stream.first() == Event(COMMENT, "ping")  # it runs
            assert server.process is not None
            stopped = time.monotonic()
            os.killpg(server.process.pid, signal.SIGTERM)
            with pytest.raises(httpx.RemoteProtocolError):  # cut: no complete, not even the end of the body
                while time.monotonic() - stopped < 10 and stream.first() is not None:
                    pass  # pings, until the server cuts the stream
            assert server.process.wait(timeout=15) == 0
            assert time.monotonic() - stopped < 10
        assert "Waiting for connections to close" not in server.output()
