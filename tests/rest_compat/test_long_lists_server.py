"""A list longer than a part (`GET /www/artikel`, the whole catalogue) against a real `gateway serve`: sent in
parts with the bytes of the pages it is made of, neither skipping nor repeating an article that the ERP
renames, adds or removes while it is on its way, and cut off (not completed) when a part fails. Runs on SQLite
and, with GATEWAY_TEST_DATABASE_URL, on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from rest_compat.articles import PAGE, PART
from rest_compat.responses import encode_json
from tests.http import dechunked
from tests.logs import logged
from tests.server import GatewayServer, running_server

USER, SECRET = "shop", "a-long-secret"
# Some 5,400 exposed articles, every field: a body of some 8 MB, twice what the server's socket buffers
# hold (tcp_wmem's largest, 4 MB), so that a client that stops reading holds the server's parts up.
ARTICLES = 6000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    env = {"GATEWAY_RATE_REQUESTS_PER_TOKEN": "10000/minute", "GATEWAY_METRICS_PUBLIC": "1"}
    directory = tmp_path_factory.mktemp("long_lists")
    with running_server(directory, users=[(USER, SECRET, ["shop"])], extra_env=env, demo_articles=ARTICLES) as server:
        yield server


@pytest.fixture(scope="module")
def token(server: GatewayServer) -> str:
    return server.token(USER, SECRET)


def get(server: GatewayServer, token: str, path: str) -> httpx.Response:
    response = httpx.get(f"{server.base_url}{path}", headers={"Authorization": f"Bearer {token}"}, timeout=60)
    assert response.status_code == 200, response.text
    return response


def test_a_long_list_is_sent_in_parts_with_the_bytes_of_its_pages(server: GatewayServer, token: str) -> None:
    whole = get(server, token, "/www/artikel")
    assert whole.headers["transfer-encoding"] == "chunked"
    assert "content-length" not in whole.headers
    assert whole.headers["content-type"] == "application/json; charset=iso-8859-1"
    assert whole.content.isascii()
    data = whole.json()["data"]
    assert len(data) > PAGE + 4 * PART  # several parts
    pages = [get(server, token, f"/www/artikel?limit={PAGE}&offset={start}") for start in range(0, len(data), PAGE)]
    assert "content-length" in pages[0].headers  # a page of up to PAGE articles is answered at once
    assert data == [article for page in pages for article in page.json()["data"]]
    # The bytes of the body made at once (compact JSON, pure ASCII), not merely the same values.
    assert encode_json(whole.json()) == whole.content
    assert whole.json()["links"] == [_link(server, "/www/artikel?offset=0", "start")]
    head = httpx.head(f"{server.base_url}/www/artikel", headers={"Authorization": f"Bearer {token}"}, timeout=60)
    assert (head.status_code, head.content) == (200, b"")


def test_a_long_page_keeps_its_limit_offset_fields_and_links(server: GatewayServer, token: str) -> None:
    query = "fields=ArtNr,ArtBez,Preis&sorts=-ArtNr&limit=1200&offset=30"
    long_page = get(server, token, f"/www/artikel?{query}")
    assert long_page.headers["transfer-encoding"] == "chunked"
    every = get(server, token, "/www/artikel?fields=ArtNr,ArtBez,Preis&sorts=-ArtNr").json()["data"]
    assert long_page.json()["data"] == every[30:1230]
    assert long_page.json()["links"] == [
        _link(server, "/www/artikel?fields=ArtNr%2CArtBez%2CPreis&sorts=-ArtNr&limit=1200&offset=1230", "next"),
        _link(server, "/www/artikel?fields=ArtNr%2CArtBez%2CPreis&sorts=-ArtNr&limit=1200&offset=0", "prev"),
        _link(server, "/www/artikel?fields=ArtNr%2CArtBez%2CPreis&sorts=-ArtNr&limit=1200&offset=0", "start"),
    ]
    last = get(server, token, f"/www/artikel?fields=ArtNr&sorts=-ArtNr&limit=1500&offset={len(every) - 1200}").json()
    assert [article["ArtNr"] for article in last["data"]] == [article["ArtNr"] for article in every[-1200:]]
    assert [link["rel"] for link in last["links"]] == ["prev", "start"]  # nothing follows


def test_an_http_1_0_client_gets_the_list_whole(server: GatewayServer, token: str) -> None:
    """HTTP/1.0 has no chunks (nginx speaks it to its upstream by default): the list comes whole, with its
    Content-Length, the same bytes."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
        sock.sendall(f"GET /www/artikel HTTP/1.0\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        received = b"".join(iter(lambda: sock.recv(1 << 20), b""))
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"transfer-encoding" not in head.lower()
    assert f"content-length: {len(body)}\r\n".encode() in head.lower()
    assert body == get(server, token, "/www/artikel").content


def test_errors_before_the_first_part_keep_their_status(server: GatewayServer, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    for query, status in (("sorts=Foo", 400), ("debinr=999999", 404), ("adrsprache=xx", 400)):
        response = httpx.get(f"{server.base_url}/www/artikel?{query}", headers=headers, timeout=60)
        assert response.status_code == status, (query, response.text)
        assert response.json()["success"] is False


def test_articles_changed_meanwhile_are_neither_skipped_nor_repeated(server: GatewayServer, token: str) -> None:
    before = [a["ArtNr"] for a in get(server, token, "/www/artikel?fields=ArtNr").json()["data"]]
    early, late, removed = before[10], before[-1], before[-20]
    # Offset pages would miss `late` (it moves to the first page, already read) and repeat `early` (it
    # moves to the last page, not yet read).
    with _StalledRead(server, token, "/www/artikel") as reader:
        asyncio.run(
            _erp_writes(
                server.database.url,
                (RENAME, {"text": "zzz zuletzt", "number": early}),
                (RENAME, {"text": "000 zuerst", "number": late}),
                (UNEXPOSE, {"number": removed}),
            )
        )
        body = reader.resume()
    sent = json.loads(body)["data"]
    assert [a["ArtNr"] for a in sent] == [number for number in before if number != removed]
    renamed = {a["ArtNr"]: a["ArtBez"] for a in sent if a["ArtNr"] in (early, late)}
    assert renamed[late] == "000 zuerst"  # read after the change, in the place it had
    assert renamed[early] != "zzz zuletzt"  # sent before it
    after = [a["ArtNr"] for a in get(server, token, "/www/artikel?fields=ArtNr").json()["data"]]
    # The changes are real: offset pages would have met them.
    assert after[0] == late and after.index(early) > len(after) // 2 and removed not in after


def test_a_part_that_fails_cuts_the_answer_off(server: GatewayServer, token: str) -> None:
    """The status went out with the first part: a later part that fails must not end the answer as if it were
    complete. The last chunk never comes and the connection is closed; clients report that as an error."""
    with _StalledRead(server, token, "/www/artikel") as reader:
        asyncio.run(_erp_writes(server.database.url, ("ALTER TABLE price RENAME TO price_away", {})))
        try:
            received = reader.resume(complete=False)
        finally:
            asyncio.run(_erp_writes(server.database.url, ("ALTER TABLE price_away RENAME TO price", {})))
    body, complete = dechunked(received)
    assert not complete
    assert body.startswith(b'{"data":[{')
    with pytest.raises(json.JSONDecodeError):  # no article list closed, no links
        json.loads(body)
    # Its status said 200: the log names the request, and the metrics count it apart.
    request_id = re.search(rb"x-request-id: (\w+)", reader.head)
    assert request_id is not None
    # Waited for as a whole: the part's own error may be logged for the request before it.
    cut_off = f"a list answered in parts was cut off after {len(body)} bytes [request {request_id[1].decode()}]"
    logged(server.directory / "logs" / "gateway.log", cut_off)
    assert _cut_off(server, token) == 1.0
    assert get(server, token, "/www/artikel?limit=1").json()["data"]  # the server goes on


RENAME = (
    "UPDATE article_designation SET text = :text"
    " WHERE language = 'ger' AND article_id = (SELECT id FROM article WHERE number = :number)"
)
UNEXPOSE = (
    "DELETE FROM article_attribute"
    " WHERE \"key\" = 'RESTWEBSHOP' AND article_id = (SELECT id FROM article WHERE number = :number)"
)


async def _erp_writes(url: str, *statements: tuple[str, dict[str, str]]) -> None:
    """Writes as the ERP makes them, on its own connection: each changes one row (DDL: none)."""
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            for statement, params in statements:
                changed = (await connection.execute(text(statement), params)).rowcount
                assert changed == (1 if params else -1) or statement.startswith("ALTER"), (statement, changed)
    finally:
        await engine.dispose()


class _StalledRead:
    """GET `path` on a socket with a small receive buffer, reading the head and the first bytes, then
    nothing: the server sends until its buffers are full and waits. `resume()` reads the rest (the server
    closes after it: `Connection: close`) and gives the body, de-chunked."""

    def __init__(self, server: GatewayServer, token: str, path: str) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # no autotuning: the window stays small
        self.sock.settimeout(60)
        self.sock.connect(("127.0.0.1", server.port))
        request = f"GET {path} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
        self.sock.sendall(request.encode())
        self.received = self.sock.recv(65536)
        assert self.received.startswith(b"HTTP/1.1 200"), self.received[:200]

    def __enter__(self) -> _StalledRead:
        time.sleep(1.0)  # the server fills its buffers and waits for the client
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def resume(self, *, complete: bool = True) -> bytes:
        """The body; with complete=False, the raw chunked body as it came."""
        chunks = [self.received]
        while chunk := self.sock.recv(1 << 20):
            chunks.append(chunk)
        head, _, chunked = b"".join(chunks).partition(b"\r\n\r\n")
        self.head = head.lower()
        assert b"transfer-encoding: chunked" in self.head
        if not complete:
            return chunked
        body, ended = dechunked(chunked)
        assert ended
        return body


def _cut_off(server: GatewayServer, token: str) -> float:
    for family in text_string_to_metric_families(get(server, token, "/metrics").text):
        for sample in family.samples:
            if sample.name == "gateway_http_responses_cut_off_total" and sample.labels == {"route": "/www/artikel"}:
                return sample.value
    return 0.0


def _link(server: GatewayServer, path: str, rel: str) -> dict[str, str]:
    return {"href": f"{server.base_url}{path}", "type": "GET", "rel": rel}
