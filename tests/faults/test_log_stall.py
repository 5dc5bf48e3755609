"""A log disk that stops taking writes holds up no request: a real `gateway serve` whose access.log is a pipe
that nobody reads (open, but full after a few dozen lines, as a write to a stalled disk blocks) answers every
request at once while its log writer is stuck, counts the lines it drops, and still stops on SIGTERM."""

from __future__ import annotations

import fcntl
import os
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.server import GatewayServer, running_server

REQUESTS = 600
QUEUE_SIZE = 50  # GATEWAY_LOG_QUEUE_SIZE: the lines a stuck writer holds before the next ones are dropped
PIPE_BYTES = 4096  # the least a pipe holds: some 30 access lines


@pytest.fixture
def stalled_access_log(tmp_path: Path) -> Iterator[Path]:
    """The server's directory, whose logs/access.log takes PIPE_BYTES and then blocks every write."""
    logs = tmp_path / "server" / "logs"
    logs.mkdir(parents=True)
    os.mkfifo(logs / "access.log")
    # A reader that never reads: the server's open succeeds, its writes block once the pipe is full.
    reader = os.open(logs / "access.log", os.O_RDONLY | os.O_NONBLOCK)
    try:
        fcntl.fcntl(reader, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        yield tmp_path / "server"
    finally:
        os.close(reader)


def _dropped(server: GatewayServer, http: httpx.Client) -> float:
    response = http.get("/metrics")
    assert response.status_code == 200, response.text
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            if sample.name == "gateway_log_lines_dropped_total":
                return sample.value
    raise AssertionError("no gateway_log_lines_dropped_total")


def test_a_stalled_log_write_holds_up_no_request(stalled_access_log: Path) -> None:
    env = {"GATEWAY_METRICS_PUBLIC": "1", "GATEWAY_LOG_QUEUE_SIZE": str(QUEUE_SIZE)}
    with running_server(stalled_access_log, serve_args=["--no-demo"], extra_env=env) as server:
        seconds = []
        with httpx.Client(base_url=server.base_url, timeout=10) as http:
            # Far more lines than the pipe and the queue hold: most requests come while the writer is stuck.
            for number in range(REQUESTS):
                started = time.perf_counter()
                response = http.get("/healthz" if number % 2 else "/readyz")
                seconds.append(time.perf_counter() - started)
                assert response.status_code == 200, response.text
            dropped = _dropped(server, http)
        process = server.process
        assert process is not None
    # The longest a request waited is what the event loop was blocked at most: never a write's time.
    assert statistics.median(seconds) < 0.1, sorted(seconds)[-10:]
    assert max(seconds) < 1.0, sorted(seconds)[-10:]
    # The lines the pipe and the queue could not take (all but some 80), counted rather than waited for.
    assert dropped >= REQUESTS // 2, dropped
    # Stopped by running_server with SIGTERM: it waits for the stuck writer a few seconds, not for ever.
    assert process.returncode == 0, server.output()
