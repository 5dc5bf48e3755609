"""The server process against slow, idle, malformed and hostile connections, and its workers when their
supervisor dies: a real `gateway serve`, driven with raw sockets."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from gateway.server.protocol import BODY_RATE_GRACE
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


def read_response(sock: socket.socket) -> bytes:
    """One whole answer on a kept-alive connection: its head, then as many body bytes as it declares (the two
    may arrive in separate segments)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += _more(sock, data)
    head, _, body = data.partition(b"\r\n\r\n")
    declared = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    assert declared is not None, head
    length = int(declared.group(1))
    while len(body) < length:
        body += _more(sock, data + body)
    return head + b"\r\n\r\n" + body


def _more(sock: socket.socket, so_far: bytes) -> bytes:
    chunk = sock.recv(65536)
    assert chunk, f"the server closed the connection before its answer was whole: {so_far!r}"
    return chunk


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


def test_a_trickling_body_is_timed_out_with_408(server: GatewayServer) -> None:
    # Every part comes well within the body timeout (1 s), but the body averages 2 bytes a second.
    token = server.token(USER, SECRET).encode()
    with connect(server) as sock:
        sock.sendall(
            b"POST /www/kunden HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token + b"\r\n"
            b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        )
        started = time.monotonic()
        sock.settimeout(0.5)
        answer = b""
        while not answer and time.monotonic() - started < 15:
            try:
                sock.sendall(b" ")
                answer = sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
        sock.settimeout(10)
        status, body = status_and_body(answer + read_all(sock))
    assert status == "HTTP/1.1 408 Request Timeout"
    assert body["error_description"] == "the request body arrives too slowly"
    assert BODY_RATE_GRACE < time.monotonic() - started < BODY_RATE_GRACE + 4


def test_a_client_gone_mid_body_is_no_server_error(server: GatewayServer) -> None:
    token = server.token(USER, SECRET).encode()
    with connect(server) as sock:
        sock.sendall(
            b"POST /www/kunden HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token + b"\r\n"
            b"X-Request-Id: gone-mid-body\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        time.sleep(0.3)
    deadline = time.monotonic() + 10
    while "gone-mid-body" not in _log(server, "access.log") and time.monotonic() < deadline:
        time.sleep(0.1)
    line = next(line for line in _log(server, "access.log").splitlines() if "gone-mid-body" in line)
    # nginx's "client closed request": not a 500, no traceback (what the gateway cannot answer is no error).
    assert '"POST /www/kunden" 499 ' in line
    assert "unhandled error" not in _log(server, "gateway.log")


@pytest.mark.parametrize(
    "fields",
    [
        [b"X-Big: " + b"a" * 70_000],  # one field over the limit
        [b"X-Field-%d: %s" % (n, b"b" * 40) for n in range(2_000)],  # many small ones
    ],
    ids=["one large field", "many fields"],
)
def test_a_head_over_its_limit_is_431(server: GatewayServer, fields: list[bytes]) -> None:
    with connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(f + b"\r\n" for f in fields) + b"\r\n")
        status, body = status_and_body(read_all(sock))
    assert status == "HTTP/1.1 431 Request Header Fields Too Large"
    assert body == {
        "success": False,
        "error": "invalid_request",
        "error_description": "the request head is larger than 65536 bytes (request line and header fields)",
        "info": {},
    }


def test_a_kept_alive_connection_is_closed_when_idle(server: GatewayServer) -> None:
    with connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answered = read_response(sock)
        assert answered.startswith(b"HTTP/1.1 200 OK"), answered
        idle_since = time.monotonic()
        assert read_all(sock) == b""  # closed, with no answer: it asked nothing more
    # GATEWAY_KEEP_ALIVE_TIMEOUT is 2 s here (the header timeout, 3 s, would close it later).
    assert 1.5 < time.monotonic() - idle_since < 2.9


def _log(server: GatewayServer, name: str) -> str:
    path = server.directory / "logs" / name
    return path.read_text(errors="replace") if path.exists() else ""


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
        # The port is free again: the operator's restart on it serves.
        again = GatewayServer(server.directory, server.database, ["--workers", "2"], port=server.port)
        try:
            again.start()
            assert httpx.get(f"{again.base_url}/healthz", timeout=10).status_code == 200
        finally:
            again.stop()


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
