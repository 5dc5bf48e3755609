"""/graphql: compiled plans, and Apollo's automatic persisted queries (a hash instead of the document)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager

from gateway.app import create_app
from gateway.settings import Settings
from schema.execution.persisted import PersistedQueries, PersistedQueryNotFound
from schema.limits import DocumentLimits

pytestmark = pytest.mark.usefixtures("catalogue")

QUERY = '{ article(number: "A-100") { number designation } }'
DATA = {"article": {"number": "A-100", "designation": "Hammer"}}
NOT_FOUND = {
    "data": None,
    "errors": [{"message": "PersistedQueryNotFound", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}}],
}


def persisted(document: str, version: int = 1) -> dict[str, Any]:
    return {"persistedQuery": {"version": version, "sha256Hash": hashlib.sha256(document.encode()).hexdigest()}}


async def post(client: httpx.AsyncClient, auth: dict[str, str], **payload: Any) -> httpx.Response:
    return await client.post("/graphql", json=payload, headers=auth)


async def test_queries_run_on_compiled_plans(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await post(client, auth, query=QUERY)
    assert response.status_code == 200
    assert response.json() == {"data": DATA}
    assert response.headers["Server-Timing"].endswith('desc="compiled"')


async def test_introspection_runs_on_graphql_core(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await post(client, auth, query='{ __type(name: "Price") { name } }')
    assert response.json() == {"data": {"__type": {"name": "Price"}}}
    assert response.headers["Server-Timing"].endswith('desc="graphql-core"')


async def test_an_unknown_hash_asks_for_the_document(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await post(client, auth, extensions=persisted(QUERY))
    assert response.status_code == 200
    assert response.json() == NOT_FOUND


async def test_a_hash_sent_with_its_document_is_kept(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    first = await post(client, auth, query=QUERY, extensions=persisted(QUERY))
    assert first.json() == {"data": DATA}
    again = await post(client, auth, extensions=persisted(QUERY))
    assert again.json() == {"data": DATA}
    assert again.headers["Server-Timing"].endswith('desc="compiled"')


async def test_get_requests_can_send_the_hash(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    document = "query($n: String!) { article(number: $n) { number } }"
    extensions = json.dumps(persisted(document))
    variables = json.dumps({"n": "A-200"})
    missing = await client.get("/graphql", params={"extensions": extensions, "variables": variables}, headers=auth)
    assert missing.json() == NOT_FOUND
    params = {"query": document, "extensions": extensions, "variables": variables}
    assert (await client.get("/graphql", params=params, headers=auth)).json() == {
        "data": {"article": {"number": "A-200"}}
    }
    hit = await client.get("/graphql", params={"extensions": extensions, "variables": variables}, headers=auth)
    assert hit.json() == {"data": {"article": {"number": "A-200"}}}


@pytest.mark.parametrize(
    ("extensions", "description"),
    [
        (persisted("{ other }"), "provided sha does not match query"),
        (persisted(QUERY, version=2), "Unsupported persisted query version"),
        (
            {"persistedQuery": {"version": 1, "sha256Hash": "ABC"}},
            "extensions.persistedQuery.sha256Hash must be a SHA-256 in lower-case hex",
        ),
        ({"persistedQuery": "abc"}, "extensions.persistedQuery must be an object"),
    ],
)
async def test_a_bad_persisted_query_is_a_bad_request(
    client: httpx.AsyncClient, auth: dict[str, str], extensions: dict[str, Any], description: str
) -> None:
    response = await post(client, auth, query=QUERY, extensions=extensions)
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "error": "invalid_request",
        "error_description": description,
        "info": {"field": "extensions.persistedQuery"},
    }


@pytest.mark.parametrize(
    "document",
    [
        "{ " + " ".join(f"a{i}: __typename" for i in range(31)) + " }",  # past the alias limit
        "{ article(number: ",  # a syntax error
        "{ nothingLikeThis }",  # not valid against the schema
    ],
)
async def test_only_documents_that_ran_are_kept(client: httpx.AsyncClient, auth: dict[str, str], document: str) -> None:
    first = await post(client, auth, query=document, extensions=persisted(document))
    assert first.json()["data"] is None and first.json()["errors"]
    again = await post(client, auth, extensions=persisted(document))
    assert again.json() == NOT_FOUND


def test_persisted_documents_are_bounded_by_their_bytes() -> None:
    store = PersistedQueries(max_bytes=3 * 100)
    documents = ["{ __typename }" + " " * 80 + f"# {index:04}" for index in range(5)]  # 100 bytes each
    for document in documents:
        store.keep(store.document(document, persisted(document)))
    assert (len(store), store.bytes) == (3, 300)
    assert store.document(None, persisted(documents[-1])).text == documents[-1]
    with pytest.raises(PersistedQueryNotFound):
        store.document(None, persisted(documents[0]))


@pytest.fixture
async def small_store(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    limits = dataclasses.replace(DocumentLimits(), persisted_bytes=len(QUERY) + 10)
    app = create_app(dataclasses.replace(settings, document_limits=limits))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield http


async def test_the_persisted_store_is_bounded_by_its_setting(
    small_store: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    larger = QUERY + " " * 11  # the same operation, one byte over the bound
    assert (await post(small_store, auth, query=larger, extensions=persisted(larger))).json() == {"data": DATA}
    assert (await post(small_store, auth, extensions=persisted(larger))).json() == NOT_FOUND

    assert (await post(small_store, auth, query=QUERY, extensions=persisted(QUERY))).json() == {"data": DATA}
    assert (await post(small_store, auth, extensions=persisted(QUERY))).json() == {"data": DATA}
