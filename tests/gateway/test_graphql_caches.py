"""What /graphql keeps of the documents clients send: every cache is bounded by bytes, and nothing else holds
on to a document's text. Checked by each cache's own accounting and by a census of the document texts
still reachable in the process (not by RSS: the census counts exactly the texts sent, wherever held)."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from starlette.applications import Starlette
from starlette.routing import Route

from gateway.app import create_app
from gateway.graphql_view import GraphQLView
from gateway.settings import Settings
from schema.execution.lru import MEMORY_PER_BYTE
from schema.schema import Schema

pytestmark = pytest.mark.usefixtures("catalogue")
KiB = 1024


@dataclasses.dataclass(frozen=True)
class Document:
    marker: str  # the test's own, so that its census counts only its documents
    index: int
    size: int


@dataclasses.dataclass
class Gateway:
    client: httpx.AsyncClient
    view: GraphQLView

    @property
    def schema(self) -> Schema:
        assert isinstance(self.view.schema, Schema)
        return self.view.schema

    def cached_text_bytes(self) -> int:
        """What the caches say they hold, in bytes of document text."""
        assert self.schema.documents is not None
        return (
            self.schema.documents.bytes // MEMORY_PER_BYTE
            + self.schema.plans.bytes // MEMORY_PER_BYTE
            + self.view.persisted.bytes
        )


def graphql_view(app: Starlette) -> GraphQLView:
    [view] = [r.app for r in app.routes if isinstance(r, Route) and isinstance(r.app, GraphQLView)]
    return view


@pytest.fixture
async def gateway(settings: Settings) -> AsyncIterator[Gateway]:
    # Room for 8 MiB documents in a body, so that the GraphQL document limit is what refuses them; a store of
    # persisted queries that 150 documents of 60 KiB overflow.
    limits = dataclasses.replace(settings.document_limits, persisted_bytes=1024 * KiB)
    app = create_app(dataclasses.replace(settings, max_json_bytes=16 * 1024 * KiB, document_limits=limits))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield Gateway(http, graphql_view(app))


def held_document_bytes(marker: str) -> int:
    """The characters of every document text starting with `marker` that is still reachable from any object
    the garbage collector tracks, directly or through untracked containers (an lru_cache's dict is one)."""
    gc.collect()
    tracked = gc.get_objects()
    seen = {id(item) for item in tracked}
    texts: dict[int, int] = {}
    frontier: list[Any] = tracked
    while frontier:
        deeper = []
        for item in gc.get_referents(*frontier):
            if isinstance(item, str):
                if item.startswith(marker) and len(item) > len(marker):
                    texts[id(item)] = len(item)
            elif isinstance(item, dict | list | tuple | set | frozenset) and id(item) not in seen:
                seen.add(id(item))
                deeper.append(item)
        frontier = deeper
    return sum(texts.values())


async def send(gateway: Gateway, auth: dict[str, str], document: Document, *, persisted: bool) -> httpx.Response:
    # Built here and dropped on return: the census must find only what the gateway kept.
    text = document.marker + f"{document.index:06}".ljust(document.size - 40, "x") + "\n{ __typename }"
    payload: dict[str, Any] = {"query": text}
    if persisted:
        digest = hashlib.sha256(text.encode()).hexdigest()
        payload["extensions"] = {"persistedQuery": {"version": 1, "sha256Hash": digest}}
    return await gateway.client.post("/graphql", json=payload, headers=auth)


async def test_many_large_distinct_documents_are_held_only_within_the_caches_bounds(
    gateway: Gateway, auth: dict[str, str]
) -> None:
    for index in range(150):  # 150 documents of 60 KiB: 9 MiB of text
        response = await send(gateway, auth, Document("#many-large ", index, 60 * KiB), persisted=index % 2 == 0)
        assert response.json() == {"data": {"__typename": "Query"}}

    assert gateway.schema.documents is not None
    assert 0 < gateway.schema.documents.bytes <= 16 * 1024 * KiB  # GATEWAY_GRAPHQL_CACHE_BYTES
    assert 0 < gateway.schema.plans.bytes <= 16 * 1024 * KiB
    assert 0 < gateway.view.persisted.bytes <= 1024 * KiB
    # Nothing outside the caches keeps a text (the plans' hash cache kept the last 1,024: all 9 MiB here).
    assert held_document_bytes("#many-large ") <= gateway.cached_text_bytes() < 2 * 1024 * KiB


async def test_documents_over_the_size_limit_leave_nothing_behind(gateway: Gateway, auth: dict[str, str]) -> None:
    # The audit's probe: ten distinct 8 MiB documents (they held 80 MiB in the parse and validation caches).
    for index in range(10):
        response = await send(gateway, auth, Document("#over-the-limit ", index, 8 * 1024 * KiB), persisted=True)
        [error] = response.json()["errors"]
        assert error["extensions"]["code"] == "invalid_request"
        assert error["extensions"]["info"]["limit"] == 64 * KiB

    assert gateway.schema.documents is not None
    assert len(gateway.schema.documents) == len(gateway.schema.plans) == len(gateway.view.persisted) == 0
    assert held_document_bytes("#over-the-limit ") == 0
