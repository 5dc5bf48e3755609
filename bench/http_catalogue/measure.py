"""One measured row of `python -m bench http`: wrk (bench/http_catalogue/wrk.lua) against one server for a
warm-up, then for the measured seconds, and meanwhile the CPU the server's process tree spent (utime + stime
from /proc, as bench/common/processes.py reads it) and on PostgreSQL that of the database's backends.

When wrk stops, each connection leaves one request behind that the server still answers (to a closed
socket: nothing cancels it). So every run ends by waiting until the server is idle: the warm-up's leftovers
would otherwise eat into the measured seconds (of this server or the next one), and the measured run's
are counted whole, CPU and requests (the completed ones plus one per connection).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.common import wrk
from bench.common.processes import Backends, process_cpu, process_tree

WRK_SCRIPT = Path(__file__).with_name("wrk.lua")
IDLE_LOOK = 0.2  # seconds between two looks at an idle server's CPU
IDLE_CPU = 0.015  # CPU seconds per look below which it counts as idle (10 ms ticks)
IDLE_LOOKS = 3  # quiet looks in a row: on PostgreSQL the server waits while the database works
IDLE_TIMEOUT = 300.0


@dataclass(frozen=True)
class Load:
    """What wrk sends: GET `paths` in turn, with `authorization` when it is set."""

    paths: Sequence[str]
    authorization: str | None
    expected: int  # the status every answer should have


@dataclass(frozen=True)
class Measured:
    requests: int  # answered within the measured seconds
    sent: int  # and those each connection had outstanding at the end, answered afterwards
    seconds: float
    p50_ms: float
    p99_ms: float
    unexpected: int  # answers with another status than expected, and socket errors
    server_cpu: float  # seconds, the server's processes
    database_cpu: float | None  # seconds, PostgreSQL's backends of the bench's database

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def per_request_ms(self, cpu: float | None) -> float | None:
        return None if cpu is None or not self.sent else cpu * 1000 / self.sent


def script(directory: Path, name: str, load: Load) -> Path:
    paths = "{" + ",".join(json.dumps(path) for path in load.paths) + "}"
    authorization = json.dumps(load.authorization) if load.authorization else "nil"
    return wrk.write_script(
        directory / f"{name}.lua", f"PATHS = {paths}\nAUTHORIZATION = {authorization}\n", WRK_SCRIPT
    )


def measure(
    base_url: str,
    root_pid: int,
    lua: Path,
    load: Load,
    connections: int,
    seconds: float,
    warmup: float,
    backends: Backends | None,
) -> Measured:
    pids = process_tree(root_pid)
    if warmup > 0:
        wrk.run(base_url, lua, connections, warmup)
        pids = process_tree(root_pid)  # every worker is up now
        wait_idle(pids)
    cpu = process_cpu(pids)
    result = asyncio.run(_load(base_url, lua, connections, seconds, backends, pids))
    cpu = process_cpu(pids) - cpu
    statuses = result["statuses"]
    assert isinstance(statuses, dict)
    expected = int(statuses.get(str(load.expected), 0))
    requests = int(str(result["requests"]))
    return Measured(
        requests=requests,
        sent=requests + connections,
        seconds=float(str(result["seconds"])),
        p50_ms=float(str(result["p50_ms"])),
        p99_ms=float(str(result["p99_ms"])),
        unexpected=requests - expected + int(str(result["socket_errors"])),
        server_cpu=cpu,
        database_cpu=backends.cpu if backends else None,
    )


def wait_idle(pids: list[int]) -> None:
    deadline = time.monotonic() + IDLE_TIMEOUT
    quiet, before = 0, process_cpu(pids)
    while quiet < IDLE_LOOKS and time.monotonic() < deadline:
        time.sleep(IDLE_LOOK)
        now = process_cpu(pids)
        quiet = quiet + 1 if now - before < IDLE_CPU else 0
        before = now


async def _load(
    base_url: str, lua: Path, connections: int, seconds: float, backends: Backends | None, pids: list[int]
) -> dict[str, object]:
    stop = asyncio.Event()
    sampler = asyncio.create_task(backends.sample(stop)) if backends else None
    try:
        result = await asyncio.to_thread(wrk.run, base_url, lua, connections, seconds)
        await asyncio.to_thread(wait_idle, pids)  # the requests left behind, the database's work included
        return result
    finally:
        stop.set()
        if sampler is not None:
            await sampler
