"""The whole catalogue as one CSV answer of /graphql (gateway/graphql_csv_pages.py) from a real `gateway serve`:
the JSON pages' rows, concatenated; the server's memory does not grow with the catalogue; the first rows leave
before the last pages are read, each page counted by the rate limit; a page that fails cuts the answer off.
Runs on SQLite and, with GATEWAY_TEST_DATABASE_URL, on PostgreSQL."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bench.common.process_memory import memory, reset_peaks
from tests.gateway.test_graphql_csv import flattened
from tests.http import dechunked
from tests.logs import logged
from tests.server import GatewayServer, running_server

USER, SECRET = "analyst", "a-long-secret"
# Some 5,400 exposed articles: six pages of the default size (1000); the demo takes a CI run's time.
ARTICLES = 6_000
ITEMS = "number designation group weight prices { amount minQuantity } packagingUnits { code factor ean }"
CSV_HEADERS = {"Accept": "text/csv"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    env = {"GATEWAY_RATE_REQUESTS_PER_USER": "100000/minute"}
    directory = tmp_path_factory.mktemp("csv_whole")
    users = [(USER, SECRET, ["catalogue"])]
    with running_server(directory, users=users, extra_env=env, demo_articles=ARTICLES) as server:
        yield server


@pytest.fixture(scope="module")
def token(server: GatewayServer) -> str:
    return server.token(USER, SECRET)


def post(server: GatewayServer, token: str, query: str, **variables: Any) -> dict[str, Any]:
    answer = httpx.post(
        f"{server.base_url}/graphql",
        json={"query": query, "variables": variables},
        headers={"Authorization": f"Bearer {token}"},
        timeout=120,
    )
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()["data"]
    return data


def csv_answer(server: GatewayServer, token: str, query: str) -> bytes:
    headers = {**CSV_HEADERS, "Authorization": f"Bearer {token}"}
    answer = httpx.post(f"{server.base_url}/graphql", json={"query": query}, headers=headers, timeout=300)
    assert answer.status_code == 200, answer.text
    assert answer.headers["transfer-encoding"] == "chunked"
    return answer.content


def test_the_whole_catalogue_is_the_json_pages_concatenated(server: GatewayServer, token: str) -> None:
    for arguments in ("", "(sort: [{field: GROUP, direction: DESC}, {field: WEIGHT}])"):
        body = csv_answer(server, token, f"{{ articles{arguments} {{ items {{ {ITEMS} }} }} }}")
        rows = list(csv.DictReader(io.StringIO(body.decode("utf-8"), newline="")))
        paged = f"query($offset: Int!) {{ articles{arguments[:-1] or '('} offset: $offset) {{ items {{ {ITEMS} }} }} }}"
        items: list[Any] = []
        while page := post(server, token, paged, offset=len(items))["articles"]["items"]:
            items += page
        assert len(rows) == len(items) > 5 * 1000
        for row, item in zip(rows, items, strict=True):
            assert {path: cell for path, cell in row.items() if cell} == {
                path: cell for path, cell in flattened(item).items() if cell
            }


def test_the_servers_memory_does_not_grow_with_the_catalogue(server: GatewayServer, token: str) -> None:
    """The peak RSS while streaming some 780 articles (a group) and while streaming all 5,400: the same within
    2 MB, where holding the rows read (some 700 bytes an article here) would add 3.2 MB."""
    assert server.process is not None
    pid = server.process.pid
    query = "{{ articles{} {{ items {{ number designation group prices {{ amount }} }} }} }}"
    csv_answer(server, token, query.format(""))  # warm: statement caches, plans, the allocator's arenas
    grown = []
    for arguments in ('(filter: {group: "REINIGUNG"})', ""):
        if not reset_peaks([pid]):
            pytest.skip("the kernel does not let the peak RSS be reset (clear_refs)")
        before = memory(pid)
        body = csv_answer(server, token, query.format(arguments))
        after = memory(pid)
        assert before is not None and after is not None
        grown.append((body.count(b"\n") - 1, (after.hwm - before.rss) / 1024))
    (few, small), (many, large) = grown
    assert many > 5 * few
    assert large - small < 2, grown  # MB


@pytest.fixture(scope="module")
def paced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    """The seeded demo (500 articles) in pages of 100, and one request a second per user."""
    env = {
        "GATEWAY_GRAPHQL_PAGE_SIZE": "100",
        "GATEWAY_RATE_REQUESTS_PER_USER": "1/second",
        "GATEWAY_METRICS_PUBLIC": "1",
    }
    directory = tmp_path_factory.mktemp("csv_paced")
    with running_server(directory, users=[(USER, SECRET, ["catalogue"])], extra_env=env) as server:
        yield server


def test_the_first_rows_leave_before_the_last_pages_are_read(paced: GatewayServer) -> None:
    """Each page after the first counts against the user's rate limit as the JSON page would, and waits for
    room: the first rows arrive at once. Every page is read at the moment the download began: an article the ERP
    hides, one it shows and one it renames while the download runs change nothing in it (read page by page at
    their own moments, the pages would show one article twice or miss one at a border)."""
    token = paced.token(USER, SECRET)
    headers = {**CSV_HEADERS, "Authorization": f"Bearer {token}"}
    query = "{ articles(sort: [{field: NUMBER}]) { items { number designation } } }"
    before = _exposed(paced)
    first_number, last_number = before[0][0], before[-1][0]
    hidden = _first_hidden(paced)
    started = time.monotonic()
    with httpx.stream(
        "POST", f"{paced.base_url}/graphql", json={"query": query}, headers=headers, timeout=60
    ) as answer:
        assert answer.status_code == 200
        chunks = answer.iter_bytes()
        received = b""
        while received.count(b"\r\n") < 101:  # the header and the first page
            received += next(chunks)
        first_at = time.monotonic() - started
        asyncio.run(
            _erp_writes(
                paced.database.url,
                (RENAME, {"text": "umbenannt", "number": last_number}),
                (HIDE, {"number": first_number}),
                (SHOW, {"number": hidden}),
            )
        )
        body = received + b"".join(chunks)
    took = time.monotonic() - started
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8"), newline="")))
    assert [(row["number"], row["designation"]) for row in rows] == before
    after = _exposed(paced)  # the writes were made, and seen by the pages read after them
    assert first_number not in dict(after) and hidden in dict(after) and dict(after)[last_number] == "umbenannt"
    assert took > 3 > 4 * first_at  # four pages waited for the rate limit; the first did not


RENAME = (
    "UPDATE article_designation SET text = :text"
    " WHERE language = 'ger' AND article_id = (SELECT id FROM article WHERE number = :number)"
)
HIDE = (
    "DELETE FROM article_attribute"
    " WHERE key = 'RESTWEBSHOP' AND article_id = (SELECT id FROM article WHERE number = :number)"
)
SHOW = (
    "INSERT INTO article_attribute (article_id, key, contents)"
    " SELECT id, 'RESTWEBSHOP', '1' FROM article WHERE number = :number"
)


def _exposed(server: GatewayServer) -> list[tuple[str, str]]:
    """The exposed articles' numbers and German designations, read from the database, in ArtNr's order."""
    statement = (
        "SELECT l.number, d.text FROM article_listing l JOIN article_designation d"
        " ON d.article_id = l.article_id AND d.language = 'ger' WHERE l.exposed"
    )
    found = [(str(number), str(designation)) for number, designation in _read(server, statement)]
    return sorted(found, key=lambda row: row[0].encode())


def _first_hidden(server: GatewayServer) -> str:
    statement = "SELECT min(number) FROM article_listing WHERE NOT exposed"
    return str(_read(server, statement)[0][0])


def _read(server: GatewayServer, statement: str) -> list[Any]:
    async def read() -> list[Any]:
        engine = create_async_engine(server.database.url)
        try:
            async with engine.connect() as connection:
                return list((await connection.execute(text(statement))).all())
        finally:
            await engine.dispose()

    return asyncio.run(read())


async def _erp_writes(url: str, *statements: tuple[str, dict[str, str]]) -> None:
    """Writes as the ERP makes them, on its own connection."""
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            for statement, params in statements:
                await connection.execute(text(statement), params)
    finally:
        await engine.dispose()


def test_a_page_that_fails_cuts_the_answer_off(paced: GatewayServer) -> None:
    """The status went out with the first rows: a later page that fails must not end the CSV as if it were
    complete. The last chunk never comes and the connection is closed, which clients report as an error; the
    log says why, and the metrics count the answer apart. The fault: on PostgreSQL the download's connection
    is ended by the server (an administrator, a failover); on SQLite a price the ERP stored as text in its
    third page (SQLite keeps what it is given)."""
    time.sleep(1.5)  # the rate limit's window of the test before
    token = paced.token(USER, SECRET)
    postgresql = paced.database.url.startswith("postgresql")
    third_page = _read(paced, PRICED.format(after=_exposed(paced)[250][0]))[0][0]
    if not postgresql:
        asyncio.run(_erp_writes(paced.database.url, (BREAK_PRICE, {"number": third_page})))
    query = json.dumps({"query": "{ articles(sort: [{field: NUMBER}]) { items { number prices { amount } } } }"})
    try:
        with socket.create_connection(("127.0.0.1", paced.port), timeout=60) as sock:
            sock.sendall(
                b"POST /graphql HTTP/1.1\r\nHost: test\r\nConnection: close\r\nAccept: text/csv\r\n"
                b"Content-Type: application/json\r\nAuthorization: Bearer " + token.encode() + b"\r\n"
                b"Content-Length: " + str(len(query)).encode() + b"\r\n\r\n" + query.encode()
            )
            received = sock.recv(65536)
            assert received.startswith(b"HTTP/1.1 200"), received[:300]
            while received.count(b"\r\n") < 110:  # the head, the header and the first page
                received += sock.recv(65536)
            while postgresql and not _read(paced, END_DOWNLOADS):  # until the download's transaction is ended
                time.sleep(0.05)
            received += b"".join(iter(lambda: sock.recv(1 << 20), b""))
    finally:
        if not postgresql:
            asyncio.run(_erp_writes(paced.database.url, (MEND_PRICE, {"number": third_page})))
    head, _, chunked = received.partition(b"\r\n\r\n")
    body, complete = dechunked(chunked)
    assert not complete
    assert body.startswith(b"number,prices.0.amount,") and body.endswith(b"\r\n")  # whole rows of the pages read
    assert body.count(b"\r\n") - 1 < 450
    request_id = re.search(rb"x-request-id: (\w+)", head.lower())
    assert request_id is not None
    # The page's error is logged first; the cut-off line follows once the response has ended (CI read between).
    cut_off = f"[request {request_id[1].decode()}]: the page at offset"
    log = logged(paced.directory / "logs" / "gateway.log", cut_off)
    assert re.search(rf"a list answered in parts was cut off after \d+ bytes {re.escape(cut_off)}", log)
    time.sleep(1.1)
    assert _cut_off(paced, token) == 1.0


PRICED = (
    "SELECT min(l.number) FROM article_listing l WHERE l.exposed AND l.number > '{after}'"
    " AND EXISTS (SELECT 1 FROM price p WHERE p.article_id = l.article_id)"
)
BREAK_PRICE = (
    "UPDATE price SET amount = 'kaputt ' || amount WHERE article_id = (SELECT id FROM article WHERE number = :number)"
)
MEND_PRICE = (
    "UPDATE price SET amount = CAST(substr(amount, 8) AS NUMERIC)"
    " WHERE article_id = (SELECT id FROM article WHERE number = :number)"
)
# The download's transaction, idle between two pages (the rate limit paces them a second apart).
END_DOWNLOADS = (
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
    " WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()"
)


def _cut_off(server: GatewayServer, token: str) -> float:
    metrics = httpx.get(f"{server.base_url}/metrics", timeout=60).text
    for family in text_string_to_metric_families(metrics):
        for sample in family.samples:
            if sample.name == "gateway_http_responses_cut_off_total" and sample.labels == {"route": "/graphql"}:
                return sample.value
    return 0.0
