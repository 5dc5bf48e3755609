"""`Upgrade: h2c` on plain HTTP/1.1, byte for byte over a raw socket.

Java's stock `HttpClient` (HTTP/2 preferred) asks every new plain-http connection to upgrade:
`Connection: Upgrade, HTTP2-Settings`, `Upgrade: h2c`, `HTTP2-Settings: ...`, on a POST with its body too.
The server does not speak h2c; it must ignore the offer and answer the request as HTTP/1.1 (RFC 9110
7.8: a server may ignore Upgrade), with the whole body read, and keep serving the connection: no 101,
no 400, no request body dropped.
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.clients.conftest import Shop
from tests.clients.scenario import CONTENT_TYPE, CUSTOMER_DESIGNATION, customer_body

UPGRADE = {
    "Connection": "Upgrade, HTTP2-Settings",
    "Upgrade": "h2c",
    "HTTP2-Settings": "AAMAAABkAARAAAAAAAIAAAAA",
}
SOCKET_TIMEOUT = 15.0  # seconds; a server that waits for a body it dropped fails the test
FIRST_ARTICLE = "/www/artikel?limit=1&sorts=ArtNr&fields=ArtNr"
PAUSE = 0.3  # seconds between the head and the body when they are sent apart


@dataclass(frozen=True)
class RawResponse:
    status_line: str
    headers: dict[str, str]  # names in lower case
    body: bytes

    def json(self) -> object:
        return json.loads(self.body)


class Connection:
    """One HTTP/1.1 connection: raw bytes out, responses parsed by hand."""

    def __init__(self, port: int) -> None:
        self.host = f"127.0.0.1:{port}"
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT)
        self.buffer = b""

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def head(self, method: str, path: str, headers: dict[str, str]) -> bytes:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}", *(f"{k}: {v}" for k, v in headers.items())]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")

    def _fill(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError(f"the server closed the connection; unread: {self.buffer!r}")
        self.buffer += data

    def _take(self, count: int) -> bytes:
        while len(self.buffer) < count:
            self._fill()
        taken, self.buffer = self.buffer[:count], self.buffer[count:]
        return taken

    def _line(self) -> bytes:
        while b"\r\n" not in self.buffer:
            self._fill()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def response(self) -> RawResponse:
        status_line = self._line().decode("latin-1")
        headers: dict[str, str] = {}
        while line := self._line():
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if status_line.split(" ")[1:2] == ["101"]:
            return RawResponse(status_line, headers, b"")  # what follows would be HTTP/2 frames
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while size := int(self._line().split(b";")[0], 16):
                body += self._take(size)
                self._take(2)
            while self._line():  # trailers up to the empty line
                pass
            return RawResponse(status_line, headers, body)
        return RawResponse(status_line, headers, self._take(int(headers.get("content-length", "0"))))


@pytest.fixture
def connection(shop: Shop) -> Iterator[Connection]:
    conn = Connection(shop.port)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def bearer(shop: Shop) -> str:
    return f"Bearer {shop.token()}"


def customer_bytes() -> bytes:
    return json.dumps(customer_body(), ensure_ascii=False).encode("utf-8")


def assert_created_and_served_on(connection: Connection, response: RawResponse, bearer: str) -> None:
    """201 with a DebiNr, then a plain GET on the same connection reads the customer back."""
    assert response.status_line == "HTTP/1.1 201 Created", (response.status_line, response.body)
    assert response.headers["content-type"] == CONTENT_TYPE
    data = response.json()
    assert isinstance(data, dict) and set(data) == {"data"}, data
    customer = data["data"]["DebiNr"]
    assert re.fullmatch(r"\d{6}", customer), customer

    connection.send(connection.head("GET", f"/www/kunden/{customer}", {"Authorization": bearer}))
    again = connection.response()
    assert again.status_line == "HTTP/1.1 200 OK", (again.status_line, again.body)
    read = again.json()
    assert isinstance(read, dict)
    assert read["data"]["KundBez"] == CUSTOMER_DESIGNATION


def post_head(connection: Connection, bearer: str, **framing: str) -> bytes:
    return connection.head(
        "POST",
        "/www/kunden",
        {**UPGRADE, "Authorization": bearer, "Content-Type": "application/json", **framing},
    )


def test_post_with_upgrade_and_body_in_one_send(connection: Connection, bearer: str) -> None:
    body = customer_bytes()
    connection.send(post_head(connection, bearer, **{"Content-Length": str(len(body))}) + body)
    assert_created_and_served_on(connection, connection.response(), bearer)


def test_post_with_upgrade_and_body_in_a_second_send(connection: Connection, bearer: str) -> None:
    body = customer_bytes()
    connection.send(post_head(connection, bearer, **{"Content-Length": str(len(body))}))
    time.sleep(PAUSE)  # the server has the head alone first, as when a client writes head and body apart
    connection.send(body)
    assert_created_and_served_on(connection, connection.response(), bearer)


def test_post_with_upgrade_and_a_chunked_body(connection: Connection, bearer: str) -> None:
    body = customer_bytes()
    half = len(body) // 2
    chunks = [body[:half], body[half:]]
    connection.send(post_head(connection, bearer, **{"Transfer-Encoding": "chunked"}))
    time.sleep(PAUSE)
    for chunk in chunks:
        connection.send(f"{len(chunk):x}\r\n".encode("ascii") + chunk + b"\r\n")
    connection.send(b"0\r\n\r\n")
    assert_created_and_served_on(connection, connection.response(), bearer)


def test_get_with_upgrade_and_no_body(connection: Connection, bearer: str) -> None:
    connection.send(connection.head("GET", FIRST_ARTICLE, {**UPGRADE, "Authorization": bearer}))
    response = connection.response()
    assert response.status_line == "HTTP/1.1 200 OK", (response.status_line, response.body)
    assert response.headers["content-type"] == CONTENT_TYPE
    first = response.json()

    connection.send(connection.head("GET", FIRST_ARTICLE, {"Authorization": bearer}))
    again = connection.response()
    assert again.status_line == "HTTP/1.1 200 OK", (again.status_line, again.body)
    assert again.json() == first
    assert isinstance(first, dict) and [item["ArtNr"] for item in first["data"]] == ["A-000001"], first
