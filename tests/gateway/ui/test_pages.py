"""The browser pages (gateway/ui): `/`, GraphiQL at /graphql and Swagger UI at /www/docs, each loading
only files the gateway serves itself, without a token, under a strict Content-Security-Policy; and the
503 page when GraphiQL's files were never fetched."""

from __future__ import annotations

import gzip
import logging
import re
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager
from swagger_ui_bundle import swagger_ui_path

from gateway.app import create_app
from gateway.settings import Settings
from gateway.ui import fetch

HTML = {"Accept": "text/html"}


def addresses(page: str) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]+)"', page)


async def assert_served_by_the_gateway(client: httpx.AsyncClient, page: httpx.Response) -> None:
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in page.headers["content-security-policy"]
    loaded = [address for address in addresses(page.text) if address != "data:,"]
    assert loaded
    for address in loaded:
        assert address.startswith("/"), address
        response = await client.get(address)
        assert response.status_code == 200, address
        assert response.headers["cache-control"] in ("no-cache", "public, max-age=31536000, immutable")


async def test_the_home_page_links_the_pages_and_the_health_endpoints(client: httpx.AsyncClient) -> None:
    response = await client.get("/")

    assert response.status_code == 200
    assert "content-security-policy" in response.headers
    assert set(addresses(response.text)) >= {
        "/graphql",
        "/www/docs",
        "/www/openapi.json",
        "/healthz",
        "/readyz",
        "/metrics",
    }


async def test_the_home_page_says_metrics_need_a_token(client: httpx.AsyncClient) -> None:
    text = " ".join((await client.get("/")).text.split())
    assert "it needs a token with the <code>metrics</code> or <code>admin</code> scope" in text
    assert (await client.get("/metrics")).status_code == 401  # what the link answers in a browser


async def test_graphiql_and_its_explorer_come_from_the_gateway(client: httpx.AsyncClient) -> None:
    page = await client.get("/graphql", headers=HTML)

    await assert_served_by_the_gateway(client, page)
    assert "/graphql/static/@graphiql/plugin-explorer@3.2.5/dist/index.umd.js" in page.text
    assert "/graphql/static/_gateway/graphiql.js" in page.text


async def test_swagger_ui_comes_from_the_gateway(client: httpx.AsyncClient) -> None:
    page = await client.get("/www/docs")

    await assert_served_by_the_gateway(client, page)
    # The API's document in OpenAPI 3.0's terms, which Swagger UI renders faster (tests/rest_compat/test_openapi30.py).
    assert 'data-openapi="/www/docs/openapi-3.0.json"' in page.text


def swagger_ui_files() -> tuple[str, list[str]]:
    """The folder name of Swagger UI's package (it names the version) and every file in it."""
    folder = Path(str(swagger_ui_path))
    return folder.name, [path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()]


async def test_of_swagger_ui_s_package_only_the_files_its_page_loads_are_served(client: httpx.AsyncClient) -> None:
    folder, files = swagger_ui_files()
    page = await client.get("/www/docs")
    loaded = {address.removeprefix(f"/www/docs/{folder}/") for address in addresses(page.text)} & set(files)

    assert loaded == {"swagger-ui.css", "swagger-ui-bundle.js"}
    assert {"index.html", "swagger-initializer.js"} <= set(files)  # the stock page, showing the petstore's document
    for name in files:
        status = (await client.get(f"/www/docs/{folder}/{name}")).status_code
        assert status == (200 if name in loaded else 404), name


@pytest.mark.parametrize(
    "address",
    [
        f"/www/docs/{Path(str(swagger_ui_path)).name}/swagger-ui-bundle.js",
        "/graphql/static/graphiql@3.8.3/graphiql.min.js",
    ],
)
async def test_the_pages_large_files_come_gzipped_to_a_browser_that_takes_it(
    client: httpx.AsyncClient, address: str
) -> None:
    # Swagger UI's script is 1.5 MB, GraphiQL's 3.5 MB: a quarter of that on the wire.
    plain = await client.get(address, headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200
    assert "content-encoding" not in plain.headers
    assert plain.headers["vary"] == "Accept-Encoding"

    async with client.stream("GET", address, headers={"Accept-Encoding": "gzip"}) as compressed:
        wire = b"".join([part async for part in compressed.aiter_raw()])
    assert compressed.headers["content-encoding"] == "gzip"
    assert compressed.headers["vary"] == "Accept-Encoding"
    assert compressed.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert int(compressed.headers["content-length"]) == len(wire) < len(plain.content) / 3
    assert gzip.decompress(wire) == plain.content
    assert compressed.headers["etag"] == f"W/{plain.headers['etag']}"  # the same file in another encoding

    again = await client.get(address, headers={"If-None-Match": compressed.headers["etag"]})
    assert again.status_code == 304


async def test_a_path_prefix_of_a_proxy_is_in_every_address(settings: Settings) -> None:
    async with LifespanManager(create_app(settings)) as manager:
        transport = httpx.ASGITransport(app=manager.app, root_path="/erp")
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as client:
            pages = [await client.get(path, headers=HTML) for path in ("/erp/", "/erp/graphql", "/erp/www/docs")]
            loaded = [address for page in pages for address in addresses(page.text) if address != "data:,"]
            assert all(address.startswith("/erp/") for address in loaded), loaded
            files = [address for address in loaded if address.endswith((".js", ".css"))]
            assert len(files) == 10  # GraphiQL: 2 stylesheets, 5 scripts; Swagger UI: 1 and 2
            for address in files:
                assert (await client.get(address)).status_code == 200, address


async def test_without_graphiql_files_the_page_says_how_to_fetch_them(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(fetch, "STATIC", tmp_path / "static")

    with caplog.at_level(logging.ERROR, logger="gateway"):
        response = await client.get("/graphql", headers=HTML)

    assert response.status_code == 503
    assert "python -m gateway.ui.fetch" in response.text
    assert [record.getMessage() for record in caplog.records if record.name == "gateway"] == [
        f"GraphiQL's files are missing from {tmp_path / 'static'}: run python -m gateway.ui.fetch"
    ]


async def test_a_missing_file_is_a_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/graphql/static/graphiql@3.8.3/nothing.js")

    assert response.status_code == 404
