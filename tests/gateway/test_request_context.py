"""Per request: X-Request-Id, Server-Timing, the access log, and the error bodies at the HTTP edge."""

from __future__ import annotations

import re
from typing import Any, NoReturn

import httpx
import pytest

from datasources.catalogue import articles
from gateway.settings import Settings
from rest_compat import articles as rest_articles
from tests.factories import Factory
from tests.logs import logged

GENERATED_ID = re.compile(r"[0-9a-f]{32}")
SERVER_TIMING = re.compile(r'db;dur=(\d+\.\d+);desc="(\d+) queries", graphql;dur=(\d+\.\d+);desc="([^"]+)"')
LEAK = "secret /etc/passwd SELECT"


def internal_body(request_id: str) -> dict[str, Any]:
    return {
        "success": False,
        "error": "internal",
        "error_description": "Unexpected error.",
        "info": {"request_id": request_id},
    }


def assert_nothing_leaks(response: httpx.Response) -> None:
    for text in ("secret", "/etc/passwd", "SELECT", "Traceback", "RuntimeError", ".py"):
        assert text not in response.text
        assert all(text not in value for value in response.headers.values())


async def test_every_response_carries_a_request_id(
    client: httpx.AsyncClient, factory: Factory, auth: dict[str, str]
) -> None:
    await factory.reference_data()

    ok = await client.get("/www/artikel", headers=auth)
    unauthorized = await client.get("/www/artikel")
    missing = await client.get("/www/artikel/NOPE", headers=auth)
    token = await client.post("/www/token")

    assert [r.status_code for r in (ok, unauthorized, missing, token)] == [200, 401, 404, 401]
    ids = [r.headers["X-Request-Id"] for r in (ok, unauthorized, missing, token)]
    assert all(GENERATED_ID.fullmatch(i) for i in ids)
    assert len(set(ids)) == 4


@pytest.mark.parametrize("given", ["shop-42.abc_DEF", "a", "0" * 64, "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"])
async def test_a_harmless_client_request_id_is_echoed(client: httpx.AsyncClient, given: str) -> None:
    response = await client.get("/www/artikel", headers={"X-Request-Id": given})

    assert response.status_code == 401
    assert response.headers["X-Request-Id"] == given


@pytest.mark.parametrize(
    "given",
    [
        "a" * 65,
        "x" * 200,
        "<script>alert(1)</script>",
        "id with spaces",
        "id;dur=1",
        'quote"d',
        "ünïcödé",
    ],
)
async def test_a_suspicious_client_request_id_is_replaced(
    client: httpx.AsyncClient, auth: dict[str, str], factory: Factory, given: str
) -> None:
    await factory.reference_data()

    response = await client.get(
        "/www/artikel",
        headers={b"X-Request-Id": given.encode(), b"Authorization": auth["Authorization"].encode()},
    )

    assert response.status_code == 200
    assert GENERATED_ID.fullmatch(response.headers["X-Request-Id"])


async def test_server_timing_counts_the_queries(
    client: httpx.AsyncClient, factory: Factory, auth: dict[str, str]
) -> None:
    await factory.reference_data()
    await factory.article("A-1")

    listed = await client.get("/www/artikel", headers=auth)
    refused = await client.get("/www/artikel")

    assert listed.status_code == 200
    timing = SERVER_TIMING.fullmatch(listed.headers["Server-Timing"])
    assert timing is not None, listed.headers["Server-Timing"]
    assert int(timing[2]) > 0
    assert float(timing[3]) > 0
    # The executor path each operation took: the whole list reads its version (its ETag), then the list.
    assert timing[4] == "compiled, compiled"
    # Refused before any route runs: no SQL, no GraphQL.
    assert refused.headers["Server-Timing"] == 'db;dur=0.0;desc="0 queries", graphql;dur=0.0'


async def test_an_unknown_www_path_is_not_found(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.get("/www/nirgends", headers=auth)

    assert response.status_code == 404
    assert response.headers["Content-Type"] == "application/json; charset=iso-8859-1"
    assert response.json() == {
        "success": False,
        "error": "not_found",
        "error_description": "no resource at /www/nirgends",
        "info": {},
    }


async def test_an_unknown_path_outside_www_is_not_found_without_a_token(client: httpx.AsyncClient) -> None:
    response = await client.get("/favicon.ico")

    assert response.status_code == 404
    assert response.json()["error"] == "not_found"
    assert response.headers["X-Request-Id"]


async def test_a_wrong_method_is_not_allowed(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.put("/www/artikel", headers=auth, json={})

    assert response.status_code == 405
    allow = response.headers["Allow"]
    assert allow == "GET, HEAD"
    assert response.json() == {
        "success": False,
        "error": "method_not_allowed",
        "error_description": "PUT is not allowed here",
        "info": {"allow": allow},
    }
    assert response.headers["X-Request-Id"]


async def test_an_error_inside_graphql_is_an_opaque_500(
    client: httpx.AsyncClient,
    factory: Factory,
    auth: dict[str, str],
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await factory.reference_data()

    async def explode(*args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError(LEAK)

    monkeypatch.setattr(articles, "find_articles", explode)

    response = await client.get("/www/artikel", headers=auth)

    assert response.status_code == 500
    request_id = response.headers["X-Request-Id"]
    assert response.json() == internal_body(request_id)
    assert response.headers["Content-Type"] == "application/json; charset=iso-8859-1"
    assert_nothing_leaks(response)
    # The details go to the log, under the request id.
    gateway_log = logged(settings.log_dir / "gateway.log", request_id)
    assert LEAK in gateway_log


async def test_an_error_outside_graphql_is_an_opaque_500(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def explode(*args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError(LEAK)

    monkeypatch.setattr(rest_articles, "run_operation", explode)

    response = await client.get("/www/artikel", headers=auth | {"X-Request-Id": "shop-req-7"})

    assert response.status_code == 500
    assert response.headers["X-Request-Id"] == "shop-req-7"
    assert response.json() == internal_body("shop-req-7")
    assert_nothing_leaks(response)
    gateway_log = logged(settings.log_dir / "gateway.log", "shop-req-7")
    assert LEAK in gateway_log
    access_log = logged(settings.log_dir / "access.log", "shop-req-7")
    assert '"GET /www/artikel" 500' in access_log


async def test_the_access_log_has_a_line_per_request(
    client: httpx.AsyncClient, settings: Settings, auth: dict[str, str]
) -> None:
    first = await client.get("/www/artikel")
    second = await client.get("/www/nirgends", headers=auth)

    lines = logged(settings.log_dir / "access.log", second.headers["X-Request-Id"]).splitlines()
    for response, path in ((first, "/www/artikel"), (second, "/www/nirgends")):
        request_id = response.headers["X-Request-Id"]
        [line] = [line for line in lines if f"[request {request_id}]" in line]
        assert f'"GET {path}" {response.status_code} ' in line


async def test_a_path_cannot_forge_access_log_lines(
    client: httpx.AsyncClient, settings: Settings, auth: dict[str, str]
) -> None:
    forged = '2026-01-01 00:00:00,000 INFO gateway.access 10.0.0.1 "DELETE /www/log" 204 1.0ms db=0'
    response = await client.get("/www/x%0A" + forged.replace(" ", "%20"), headers=auth)

    assert response.status_code == 404
    lines = logged(settings.log_dir / "access.log", response.headers["X-Request-Id"]).splitlines()
    assert len(lines) == 1
    assert response.headers["X-Request-Id"] in lines[0]
