"""A real `gateway serve` as a process manager sees it: SIGTERM (or Ctrl+C) ends it with exit status 0, and worker
processes that start slowly (a busy host) are waited for, for GATEWAY_WORKER_TIMEOUT, not killed after 5 s."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.server import START_TIMEOUT, GatewayServer, ServerDatabase

# Imported by every Python process of the server whose PYTHONPATH has its folder: a worker process (spawned by
# uvicorn's supervisor) sleeps before anything of it runs, as one does on a host busy with others starting.
SLOW_START = """\
import os, sys, time
if "--multiprocessing-fork" in sys.orig_argv:
    time.sleep(float(os.environ["SLOW_WORKER_START_SECONDS"]))
"""


def _server(directory: Path, *serve_args: str, env: dict[str, str] | None = None) -> GatewayServer:
    directory.mkdir(parents=True, exist_ok=True)
    return GatewayServer(directory, ServerDatabase.create(directory), ("--no-demo", *serve_args), env or {})


def _slow_start_env(directory: Path, seconds: float) -> dict[str, str]:
    site = directory / "site"
    site.mkdir(parents=True)
    (site / "sitecustomize.py").write_text(SLOW_START)
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path, "SLOW_WORKER_START_SECONDS": str(seconds)}


def _stopped_with(server: GatewayServer, sig: int) -> int:
    assert server.process is not None
    os.kill(server.process.pid, sig)  # the process itself, as a process manager signals its child
    try:
        return server.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"gateway serve did not end within 30 s of the signal:\n{server.output()}")


@pytest.mark.parametrize(
    ("sig", "workers"), [(signal.SIGTERM, "1"), (signal.SIGTERM, "2"), (signal.SIGINT, "1")], ids=str
)
def test_a_stop_signal_ends_the_server_with_status_0(tmp_path: Path, sig: signal.Signals, workers: str) -> None:
    server = _server(tmp_path, "--workers", workers)
    try:
        server.start()
        assert _stopped_with(server, sig) == 0, server.output()
    finally:
        server.stop()
        server.database.drop()
    output = server.output()
    assert "Application shutdown complete" in output  # a graceful end, not a kill
    assert "Traceback" not in output


def test_workers_that_start_slowly_are_not_killed(tmp_path: Path) -> None:
    # Slower than uvicorn's own 5 s health check, well within the default GATEWAY_WORKER_TIMEOUT.
    server = _server(tmp_path, "--workers", "2", env=_slow_start_env(tmp_path, 8))
    try:
        server.start()  # one worker answers; the other may still be starting
        deadline = time.monotonic() + START_TIMEOUT
        while server.output().count("Application startup complete") < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        output = server.output()
    finally:
        server.stop()
        server.database.drop()
    assert "died" not in output, output
    assert len(re.findall(r"Started server process \[\d+\]", output)) == 2, output


def test_the_worker_timeout_reaches_uvicorns_supervisor(tmp_path: Path) -> None:
    # A worker that has not answered within GATEWAY_WORKER_TIMEOUT is killed and replaced.
    env = {"GATEWAY_WORKER_TIMEOUT": "1", **_slow_start_env(tmp_path, 4)}
    server = _server(tmp_path, "--workers", "2", env=env)
    try:
        server.launch()
        deadline = time.monotonic() + 60
        while "died" not in server.output() and time.monotonic() < deadline:
            time.sleep(0.2)
        output = server.output()
    finally:
        server.stop()
        server.database.drop()
    assert re.search(r"Child process \[\d+\] died", output), output


def test_a_worker_killed_by_sigbus_says_so_and_is_replaced(tmp_path: Path) -> None:
    # What a memory map of a file that went away does (SQLite's -shm): the process dies at once, no handler runs.
    server = _server(tmp_path, "--workers", "2")
    try:
        server.start()
        deadline = time.monotonic() + START_TIMEOUT
        while server.output().count("Application startup complete") < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        killed = _children(server)[0]
        os.kill(killed, signal.SIGBUS)
        while killed in _children(server) or len(_children(server)) < 2:
            assert time.monotonic() < deadline, server.output()
            time.sleep(0.2)
        assert httpx.get(f"{server.base_url}/healthz", timeout=30).status_code == 200
        output = server.output()
    finally:
        server.stop()
        server.database.drop()
    assert "Fatal Python error: Bus error" in output, output
    assert f"Child process [{killed}] died" in output, output


def _children(server: GatewayServer) -> list[int]:
    assert server.process is not None
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text().split()
    return [int(pid) for pid in children if _is_worker(int(pid))]


def _is_worker(pid: int) -> bool:
    try:
        return b"--multiprocessing-fork" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return False
