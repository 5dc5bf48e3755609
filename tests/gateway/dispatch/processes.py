"""Steps of the tests that deliver through real gateway processes: an endpoint added with the real
`gateway webhooks add`, a real `gateway dispatch` process, and the deliveries as the database holds them."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import TypeVar

from tests import databases
from tests.server import GatewayServer, gateway_command
from tests.webhook_receiver import Receiver

POSTGRES = databases.backend() == "postgresql"
T = TypeVar("T")


def subscribe(site: GatewayServer, receiver: Receiver) -> str:
    """Adds the receiver as an endpoint with `gateway webhooks add`; its secret."""
    out = site.run_cli("webhooks", "add", receiver.url).stdout
    return dict(line.split(": ", 1) for line in out.splitlines())["secret"]


@contextlib.contextmanager
def dispatching(site: GatewayServer, name: str, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """`gateway dispatch` in the site's directory, its GATEWAY_WEBHOOK_<KEY> settings from `env`; its output
    in <name>.out there."""
    with (site.directory / f"{name}.out").open("wb") as out:
        process = subprocess.Popen(
            gateway_command("dispatch"),
            cwd=site.directory,
            env={**site.env, **{f"GATEWAY_WEBHOOK_{key.upper()}": value for key, value in env.items()}},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)


def statuses(url: str) -> dict[str, int]:
    """How many deliveries have each status."""
    aggregate = "string_agg(status, ',')" if POSTGRES else "group_concat(status)"
    joined = databases.run_sql(url, f"SELECT {aggregate} FROM webhook_delivery") or ""  # noqa: S608
    return dict(Counter(joined.split(","))) if joined else {}


def listeners(url: str) -> int:
    """PostgreSQL: the connections of the database that LISTEN for deliveries (a dispatcher's each)."""
    return int(
        databases.run_sql(
            url, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'"
        )
    )


def until_equal(read: Callable[[], T], expected: T, timeout: float = 10.0) -> None:
    """Waits until `read()` gives `expected`; AssertionError with the last value after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while (value := read()) != expected:
        assert time.monotonic() < deadline, f"{value!r} after {timeout} s, not {expected!r}"
        time.sleep(0.05)
