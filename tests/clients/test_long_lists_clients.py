"""The whole catalogue, sent in parts with chunked transfer encoding (rest_compat/streaming.py), read by the
HTTP clients web shops are written with against a real `gateway serve`: PHP's curl and file_get_contents
(its http stream wrapper), Node's fetch, httpx. Each gets the same bytes as a whole; and when a part fails
after the 200 went out, each reports an error instead of taking a shorter list for the catalogue."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from rest_compat.articles import PAGE, PART
from tests.logs import logged
from tests.server import GatewayServer, running_server

HERE = Path(__file__).parent
USER, SECRET = "shop", "a-long-secret"
ARTICLES = 2500  # some 2,250 exposed: the first page and three parts
CLIENT_TIMEOUT = 120

CLIENTS = {
    "php curl": ["php", str(HERE / "php" / "long_list.php"), "curl"],
    "php file_get_contents": ["php", str(HERE / "php" / "long_list.php"), "stream"],
    "node fetch": ["node", str(HERE / "node" / "long_list.mjs")],
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    directory = tmp_path_factory.mktemp("long_lists_clients")
    with running_server(directory, users=[(USER, SECRET, ["shop"])], demo_articles=ARTICLES) as server:
        yield server


@pytest.fixture(scope="module")
def token(server: GatewayServer) -> str:
    return server.token(USER, SECRET)


def client(name: str, server: GatewayServer, token: str) -> dict[str, Any]:
    command = CLIENTS[name]
    if shutil.which(command[0]) is None:
        pytest.skip(f"{command[0]} is not on PATH")  # a failure under CI (tests/clients/conftest.py)
    done = subprocess.run(
        [*command, f"{server.base_url}/www/artikel", token],
        capture_output=True,
        text=True,
        timeout=CLIENT_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def with_httpx(server: GatewayServer, token: str) -> dict[str, Any]:
    try:
        response = httpx.get(f"{server.base_url}/www/artikel", headers={"Authorization": f"Bearer {token}"}, timeout=60)
        return {"articles": len(response.json()["data"]), "sha256": hashlib.sha256(response.content).hexdigest()}
    except (httpx.HTTPError, ValueError) as error:
        return {"error": f"{type(error).__name__}: {error}"}


@pytest.fixture(scope="module")
def whole(server: GatewayServer, token: str) -> dict[str, Any]:
    response = httpx.get(f"{server.base_url}/www/artikel", headers={"Authorization": f"Bearer {token}"}, timeout=60)
    assert response.headers["transfer-encoding"] == "chunked"
    count = len(response.json()["data"])
    assert count > PAGE + 2 * PART  # the first page and several parts
    return {"articles": count, "sha256": hashlib.sha256(response.content).hexdigest()}


@pytest.mark.parametrize("name", list(CLIENTS))
def test_a_client_reads_the_whole_list(server: GatewayServer, token: str, whole: dict[str, Any], name: str) -> None:
    assert client(name, server, token) == whole


def test_every_client_reports_a_list_cut_off(server: GatewayServer, token: str, whole: dict[str, Any]) -> None:
    """The prices of the list's last article become what no reading can convert (as another writer of the
    database could leave them): its part fails after the first ones went out."""
    last = httpx.get(
        f"{server.base_url}/www/artikel?fields=ArtNr,Preis", headers={"Authorization": f"Bearer {token}"}, timeout=60
    ).json()["data"]
    number = next(article["ArtNr"] for article in reversed(last) if article.get("Preis"))
    asyncio.run(_spoil_prices(server.database.url, number))
    results = {name: client(name, server, token) for name in CLIENTS} | {"httpx": with_httpx(server, token)}
    assert {name: "error" in result for name, result in results.items()} == dict.fromkeys(results, True), results
    log = logged(
        server.directory / "logs" / "gateway.log", "a list answered in parts was cut off after", times=len(results)
    )
    assert log.count("a list answered in parts was cut off after") == len(results)


async def _spoil_prices(url: str, number: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            spoilt = await connection.execute(
                text("UPDATE price SET amount = 'NaN' WHERE article_id = (SELECT id FROM article WHERE number = :n)"),
                {"n": number},
            )
            assert spoilt.rowcount > 0
    finally:
        await engine.dispose()
