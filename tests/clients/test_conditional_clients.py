"""Conditional GETs from real clients against a real `gateway serve`: curl sends If-None-Match to the REST
routes and to GET /graphql with a persisted query's hash, and the Python cache of docs/how-to/catalogue-sync.md
runs as the page shows it, while the ERP writes into its tables with plain SQL on its own connection."""

# The ERP's SQL, made of the test's own values.
# ruff: noqa: S608

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.clients.test_catalogue_sync_clients import code_block, erp
from tests.server import GatewayServer, running_server

USER, SECRET = "shop", "a-long-secret"
pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not on PATH")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    with running_server(
        tmp_path_factory.mktemp("conditional"), users=[(USER, SECRET, ["shop"])], demo_articles=300
    ) as s:
        yield s


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def curl(url: str, token: str, *options: str) -> Answer:
    """GET `url` with curl, the status line and headers read from its -i output."""
    command = ["curl", "-sS", "-i", "--max-time", "60", "-H", f"Authorization: Bearer {token}", *options, url]
    output = subprocess.run(command, capture_output=True, check=True, timeout=90).stdout
    head, _, body = output.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return Answer(int(status_line.split()[1]), headers, body)


def write(server: GatewayServer, *numbers: str) -> None:
    """The ERP raises the prices of these articles."""
    statements = [
        f"UPDATE price SET amount = amount + 1 WHERE article_id = (SELECT id FROM article WHERE number = '{number}')"
        for number in numbers
    ]
    asyncio.run(erp(server.database.url, *statements))


def test_curl_gets_304_until_the_erp_changes_the_page(server: GatewayServer) -> None:
    token = server.token(USER, SECRET)
    page = f"{server.base_url}/www/artikel?limit=100&fields=ArtNr,Preis,Verpackungen"
    first = curl(page, token)
    assert first.status == 200
    tag = first.headers["etag"]
    numbers = [article["ArtNr"] for article in json.loads(first.body)["data"]]
    unchanged = curl(page, token, "-H", f"If-None-Match: {tag}")
    assert (unchanged.status, unchanged.body, unchanged.headers["etag"]) == (304, b"", tag)

    listed = httpx.get(
        f"{server.base_url}/www/artikel",
        params={"limit": 0, "fields": "ArtNr"},
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    ).json()["data"]
    outside = next(article["ArtNr"] for article in listed if article["ArtNr"] not in numbers)
    write(server, outside)
    assert curl(page, token, "-H", f"If-None-Match: {tag}").status == 304
    write(server, numbers[42])
    changed = curl(page, token, "-H", f"If-None-Match: {tag}")
    assert changed.status == 200
    assert changed.headers["etag"] != tag

    # Compressed, the answer is other bytes with a tag of its own, and a 304 all the same.
    compressed = curl(page, token, "--compressed")
    assert compressed.headers["content-encoding"] == "gzip"
    assert compressed.headers["etag"] not in (tag, changed.headers["etag"])
    again = curl(page, token, "--compressed", "-H", f"If-None-Match: {compressed.headers['etag']}")
    assert again.status == 304

    article = f"{server.base_url}/www/artikel/{numbers[0]}"
    held = curl(article, token).headers["etag"]
    write(server, numbers[1])
    assert curl(article, token, "-H", f"If-None-Match: {held}").status == 304
    write(server, numbers[0])
    assert curl(article, token, "-H", f"If-None-Match: {held}").status == 200


def test_curl_gets_304_for_a_persisted_query(server: GatewayServer) -> None:
    token = server.token(USER, SECRET)
    query = "query Page($limit: Int) { articles(limit: $limit) { items { number prices { amount } } } }"
    digest = hashlib.sha256(query.encode()).hexdigest()
    extensions = json.dumps({"persistedQuery": {"version": 1, "sha256Hash": digest}})
    url = f"{server.base_url}/graphql"
    by_hash = ("-G", "--data-urlencode", f"extensions={extensions}", "--data-urlencode", 'variables={"limit": 5}')
    missing = curl(url, token, *by_hash)
    assert json.loads(missing.body)["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_FOUND"
    assert curl(url, token, *by_hash, "--data-urlencode", f"query={query}").status == 200
    answer = curl(url, token, *by_hash)
    items = json.loads(answer.body)["data"]["articles"]["items"]
    tag = answer.headers["etag"]
    assert curl(url, token, *by_hash, "-H", f"If-None-Match: {tag}").status == 304
    write(server, items[2]["number"])
    assert curl(url, token, *by_hash, "-H", f"If-None-Match: {tag}").status == 200


def test_the_pages_python_cache(server: GatewayServer, tmp_path: Path) -> None:
    script = tmp_path / "cached.py"
    script.write_text(code_block("python", "cached"), encoding="utf-8")
    paths = ["/www/artikel?limit=100", "/www/artikel?limit=3&offset=100"]
    done = subprocess.run(
        [sys.executable, str(script), server.base_url, USER, SECRET, *paths],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [line.split() for line in done.stdout.splitlines()]
    assert [(status, path) for status, _, path in lines] == [("200", p) for p in paths] + [("304", p) for p in paths]
    assert [size for _, size, _ in lines[:2]] == [size for _, size, _ in lines[2:]]
