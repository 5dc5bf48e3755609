"""The real HTTP clients web shops are written with, each reading our JSON its ecosystem's standard way
(httpx and requests `response.json()`, Node `fetch` + `res.json()`, PHP curl + `json_decode`, Java's
`HttpClient` + UTF-8 as Jackson reads it), with no charset handling of their own, against a real server.

Every client runs the scenario of `scenario.py` and must read back exactly what it sent: umlauts, "€",
an em dash and an emoji beyond the BMP. The server answers pure ASCII JSON (every character above
U+007F as a \\u escape) under its declared `application/json; charset=iso-8859-1`, which every one of
them decodes the same; raw ISO-8859-1 bytes broke them all (json_decode null, U+FFFD in Node,
UnicodeDecodeError in httpx, a parse error in Jackson).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests

from tests.clients.conftest import Shop
from tests.clients.scenario import ARTICLE, CONTENT_TYPE, Reply, expected_result, run_scenario

HERE = Path(__file__).parent
CLIENT_TIMEOUT = 60  # seconds; a client that hangs fails instead of blocking the run


@dataclass(frozen=True)
class Reference:
    """The first article page ([ArtNr, ArtBez]) and the ordered article's ArtBez, as httpx decodes them."""

    articles: list[list[str]]
    position_text: str


@pytest.fixture(scope="module")
def reference(shop: Shop) -> Reference:
    headers = {"Authorization": f"Bearer {shop.token()}"}
    with httpx.Client(base_url=shop.base_url, headers=headers, timeout=30) as client:
        page = client.get("/www/artikel?limit=5")
        article = client.get(f"/www/artikel/{ARTICLE}")
    for response in (page, article):
        assert response.status_code == 200, response.content
        assert response.headers["content-type"] == CONTENT_TYPE
        assert response.content.isascii(), response.content
        # Read under the declared charset or as UTF-8 (RFC 8259), the body is the same JSON.
        assert json.loads(response.content.decode("iso-8859-1")) == response.json()
    articles = [[item["ArtNr"], item["ArtBez"]] for item in page.json()["data"]]
    position_text: str = article.json()["data"]["ArtBez"]
    assert len(articles) == 5
    # The page is worth comparing only when it holds text beyond ASCII, and none of it is already broken.
    assert any(not text.isascii() for _, text in articles), articles
    assert not position_text.isascii(), position_text
    for text in [*(text for _, text in articles), position_text]:
        assert "\ufffd" not in text and "Ã" not in text, text
    return Reference(articles, position_text)


def check(result: dict[str, Any], reference: Reference) -> None:
    assert "error" not in result, f"{result['error']}\nresponses: {result.get('responses')}"
    customer, order = result.get("DebiNr"), result.get("AuftNr")
    assert isinstance(customer, str) and re.fullmatch(r"\d{6}", customer), customer
    assert isinstance(order, str) and re.fullmatch(r"\d{6}", order), order
    assert result == expected_result(customer, order, reference.articles, reference.position_text)


# --- Python ----------------------------------------------------------------------------------------------


def with_httpx(shop: Shop) -> tuple[dict[str, Any], list[Reply]]:
    with httpx.Client(base_url=shop.base_url, timeout=30) as client:

        def send(
            method: str, path: str, body: dict[str, Any] | None, basic: tuple[str, str] | None, token: str | None
        ) -> Reply:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            response = client.request(method, path, json=body, headers=headers, auth=basic)
            return Reply(response.status_code, response.headers["content-type"], response.content, response.json())

        return run_scenario(send, shop.user, shop.secret)


def with_requests(shop: Shop) -> tuple[dict[str, Any], list[Reply]]:
    with requests.Session() as session:

        def send(
            method: str, path: str, body: dict[str, Any] | None, basic: tuple[str, str] | None, token: str | None
        ) -> Reply:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            response = session.request(method, shop.base_url + path, json=body, headers=headers, auth=basic, timeout=30)
            return Reply(response.status_code, response.headers["Content-Type"], response.content, response.json())

        return run_scenario(send, shop.user, shop.secret)


@dataclass(frozen=True)
class PythonRun:
    result: dict[str, Any]
    replies: list[Reply]


@pytest.fixture(scope="module", params=[with_httpx, with_requests], ids=["httpx", "requests"])
def python_run(request: pytest.FixtureRequest, shop: Shop) -> PythonRun:
    """The scenario through httpx or requests, once per module."""
    client: Callable[[Shop], tuple[dict[str, Any], list[Reply]]] = request.param
    return PythonRun(*client(shop))


def test_python_client_reads_back_exactly_what_it_sent(python_run: PythonRun, reference: Reference) -> None:
    check(python_run.result, reference)


def test_every_json_body_is_ascii_under_the_declared_charset(python_run: PythonRun) -> None:
    assert len(python_run.replies) == 7
    for reply in python_run.replies:
        assert reply.content_type == CONTENT_TYPE
        assert reply.content.isascii(), reply.content
        # What the client's response.json() made of it is what the declared charset reads.
        assert json.loads(reply.content.decode("iso-8859-1")) == reply.data


# --- scripts in other languages ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Script:
    name: str
    command: tuple[str, ...]  # run with the base URL, the user and the secret appended

    @property
    def program(self) -> str:
        return self.command[0]


SCRIPTS = [
    Script("node-fetch", ("node", str(HERE / "node" / "shop_client.mjs"))),
    Script("php-curl", ("php", str(HERE / "php" / "shop_client.php"))),
    Script("java-httpclient", ("java", str(HERE / "java" / "ShopClient.java"))),
]


@pytest.mark.parametrize("script", SCRIPTS, ids=[script.name for script in SCRIPTS])
def test_script_client_reads_back_exactly_what_it_sent(shop: Shop, reference: Reference, script: Script) -> None:
    if shutil.which(script.program) is None:
        pytest.skip(f"{script.program} is not on PATH")
    completed = subprocess.run(
        [*script.command, shop.base_url, shop.user, shop.secret],
        capture_output=True,
        timeout=CLIENT_TIMEOUT,
        check=False,
    )
    stderr = completed.stderr.decode(errors="replace")
    try:
        result = json.loads(completed.stdout)
    except ValueError:
        pytest.fail(f"{script.name} exited with {completed.returncode}: {completed.stdout!r}\n{stderr}")
    check(result, reference)
    assert completed.returncode == 0, stderr
