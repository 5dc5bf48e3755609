"""The server process against slow, idle, malformed and hostile connections, and its workers when their
supervisor dies: a real `gateway serve`, driven with raw sockets."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server import GatewayServer, running_server

USER, SECRET = "shop", "a-long-secret"
SHORT = {
    "GATEWAY_HEADER_TIMEOUT": "3",  # long enough for a busy CI machine to open 20 connections
    "GATEWAY_BODY_TIMEOUT": "1",
    "GATEWAY_KEEP_ALIVE_TIMEOUT": "2",
    "GATEWAY_MAX_CONNECTIONS": "20",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    directory = tmp_path_factory.mktemp("edges")
    with running_server(directory, users=[(USER, SECRET, ["shop"])], extra_env=SHORT) as started:
        yield started


def connect(server: GatewayServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    return sock


def read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def status_and_body(response: bytes) -> tuple[str, dict[str, object]]:
    head, _, body = response.partition(b"\r\n\r\n")
    assert b"content-type: application/json; charset=iso-8859-1" in head.lower(), head
    return head.split(b"\r\n")[0].decode(), json.loads(body)


def test_a_body_shorter_than_its_length_is_timed_out_with_408(server: GatewayServer) -> None:
    token = server.token(USER, SECRET).encode()
    with connect(server) as sock:
        sock.sendall(
            b"POST /www/kunden HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token + b"\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        started = time.monotonic()
        status, body = status_and_body(read_all(sock))
    assert status == "HTTP/1.1 408 Request Timeout"
    assert body == {
        "success": False,
        "error": "request_timeout",
        "error_description": "the request body did not arrive in time",
        "info": {},
    }
    assert time.monotonic() - started < 5


def test_a_trickling_head_is_timed_out_with_408(server: GatewayServer) -> None:
    with connect(server) as sock:
        sock.sendall(b"GET /www/artikel HTTP/1.1\r\nHost: x\r\n")
        status, body = status_and_body(read_all(sock))
    assert status == "HTTP/1.1 408 Request Timeout"
    assert body["error_description"] == "the request head did not arrive in time"


def test_a_silent_connection_is_closed(server: GatewayServer) -> None:
    with connect(server) as sock:
        started = time.monotonic()
        assert read_all(sock) == b""  # closed without an answer: it asked nothing
    assert time.monotonic() - started < 8


def test_at_the_connection_limit_idle_connections_make_room(server: GatewayServer) -> None:
    idle = [connect(server) for _ in range(20)]
    try:
        time.sleep(0.2)
        # A client that comes now is served: an idle connection is closed to make room.
        assert httpx.post(f"{server.base_url}/www/token", auth=(USER, SECRET), timeout=10).status_code == 200
        assert sum(_closed(sock) for sock in idle) >= 1
    finally:
        for sock in idle:
            sock.close()


def test_past_the_limit_of_busy_connections_a_new_one_is_refused(server: GatewayServer) -> None:
    busy = [connect(server) for _ in range(20)]
    try:
        for sock in busy:  # each in the middle of a request head: not idle
            sock.sendall(b"GET /www/artikel HTTP/1.1\r\n")
        time.sleep(0.2)
        with connect(server) as extra:
            status, body = status_and_body(read_all(extra))
        assert status == "HTTP/1.1 503 Service Unavailable"
        assert body["error"] == "unavailable"
    finally:
        for sock in busy:
            sock.close()


def _closed(sock: socket.socket) -> bool:
    sock.settimeout(0.5)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",  # a request line over 64 KiB
        b"POST /www/kunden HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n",
        b"POST /www/kunden HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
        "GET /www/adressen/Z\u00fcrich HTTP/1.1\r\nHost: x\r\n\r\n".encode(),  # raw UTF-8 in the path
    ],
)
def test_the_servers_own_refusals_have_the_json_error_body(server: GatewayServer, request_bytes: bytes) -> None:
    with connect(server) as sock:
        sock.sendall(request_bytes)
        status, body = status_and_body(read_all(sock))
    assert status.startswith("HTTP/1.1 4"), status
    assert body["success"] is False
    assert body["error"] in ("invalid_request", "payload_too_large")


def test_links_never_follow_the_host_header(server: GatewayServer) -> None:
    token = server.token(USER, SECRET)
    response = httpx.get(
        f"{server.base_url}/www/artikel?limit=1&fields=ArtNr",
        headers={"Authorization": f"Bearer {token}", "Host": "evil.example"},
        timeout=10,
    )
    assert response.status_code == 200
    hrefs = [link["href"] for link in response.json()["links"]]
    assert hrefs and all(href.startswith(f"http://127.0.0.1:{server.port}/www/artikel?") for href in hrefs)


def test_workers_end_when_their_supervisor_is_killed(tmp_path: Path) -> None:
    with running_server(tmp_path, serve_args=["--workers", "2"]) as server:
        assert server.process is not None
        workers = _children(server.process.pid)
        assert len(workers) == 2, workers

        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=10)

        deadline = time.monotonic() + 15
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_alive(pid) for pid in workers), "orphaned workers kept running"
        # The port is free again: a restart on it works.
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(("127.0.0.1", server.port))


def _children(pid: int) -> list[int]:
    # The supervisor's spawned workers (uvicorn also starts a multiprocessing resource tracker).
    out = subprocess.run(["ps", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True, check=False)
    return [
        int(line.split()[0])
        for line in out.stdout.splitlines()
        if "multiprocessing.spawn" in line and "resource_tracker" not in line
    ]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie has exited
        return stat.read().split()[2] != "Z"
