"""The audit's GraphQL probes against a real server, sent while ordinary queries run beside them: each probe
is refused, and the ordinary queries are answered (before, a 25-level fragment fan-out sent by GET kept
the worker busy for minutes and made every other request wait)."""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server import GatewayServer, running_server

USER, SECRET = "analyst", "an-analyst-secret"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    with running_server(tmp_path_factory.mktemp("floods"), users=[(USER, SECRET, ["catalogue"])]) as started:
        yield started


def fan_out(levels: int) -> str:
    fragments = " ".join(f"fragment F{i} on Article {{ a{i}: number ...F{i + 1} ...F{i + 1} }}" for i in range(levels))
    return f"{{ articles(limit: 1) {{ items {{ ...F0 }} }} }} {fragments} fragment F{levels} on Article {{ number }}"


def test_probes_are_refused_while_ordinary_queries_are_answered(server: GatewayServer, tmp_path: Path) -> None:
    headers = {"Authorization": f"Bearer {server.token(USER, SECRET)}"}
    url = f"{server.base_url}/graphql"

    def probe_fan_out() -> httpx.Response:  # by GET, as the audit sent it
        return httpx.get(url, params={"query": fan_out(30)}, headers=headers, timeout=60)

    def probe_comment() -> httpx.Response:
        return httpx.post(
            url, json={"query": "#" + "x" * (60 * 1024 * 1024) + "\n{ __typename }"}, headers=headers, timeout=60
        )

    def ordinary() -> tuple[float, httpx.Response]:
        started = time.monotonic()
        response = httpx.post(
            url, json={"query": '{ article(number: "A-000001") { number } }'}, headers=headers, timeout=60
        )
        return time.monotonic() - started, response

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        probes = [pool.submit(probe_fan_out) for _ in range(3)] + [pool.submit(probe_comment)]
        ordinaries = [pool.submit(ordinary) for _ in range(20)]
        answers = [future.result() for future in ordinaries]
        refused = [future.result() for future in probes]

    for _, response in answers:
        assert response.json() == {"data": {"article": {"number": "A-000001"}}}
    # A generous bound for a busy CI machine; before the limits, minutes.
    assert max(seconds for seconds, _ in answers) < 10
    for response in refused[:3]:
        [error] = response.json()["errors"]
        assert error["message"] == "more than a billion aliases found. Allowed: 30"
    assert refused[3].status_code == 413
