"""A client's GraphQL document is checked in time linear in its size before anything runs: size, depth,
aliases, tokens and cost. The audit's probes, each refused with the work it cost counted (selection sets
visited, parses, SQL statements), not timed."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from graphql import parse

from gateway.app import create_app
from gateway.settings import Settings
from schema import document_cache
from schema.limits import DocumentLimits, aliases, cost, depth
from schema.schema import build_schema
from tests.http import body, statement_count

pytestmark = pytest.mark.usefixtures("catalogue")
FULL_ARTICLE = (
    "number designation status unit taxRate attributes { key contents } "
    "packagingUnits { code factor prices { amount minQuantity } stock { warehouse quantity } } "
    "prices { amount minQuantity } stock { warehouse quantity }"
)


async def graphql(client: httpx.AsyncClient, auth: dict[str, str], query: str, **variables: Any) -> httpx.Response:
    return await client.post("/graphql", json={"query": query, "variables": variables}, headers=auth)


def fan_out(levels: int) -> str:
    """Fragment F_i spreads F_{i+1} twice (the audit's probe): 2^levels spreads when walked naively."""
    fragments = [f"fragment F{i} on Article {{ a{i}: number ...F{i + 1} ...F{i + 1} }}" for i in range(levels)] + [
        f"fragment F{levels} on Article {{ designation }}"
    ]
    return "query FanOut { articles(limit: 1) { items { ...F0 } } }\n" + "\n".join(fragments)


def counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    calls = [0]
    original: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any) -> Any:
        calls[0] += 1
        return original(*args)

    monkeypatch.setattr(module, name, counted)
    return calls


async def test_a_thirty_level_fragment_fan_out_is_refused_in_linear_work(
    client: httpx.AsyncClient, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    depth_visits = counting(monkeypatch, depth, "depth_of")
    alias_visits = counting(monkeypatch, aliases, "aliases_of")

    response = await graphql(client, auth, fan_out(30))

    result = response.json()
    assert result["data"] is None
    assert [error["message"] for error in result["errors"]] == ["more than a billion aliases found. Allowed: 30"]
    # Each of the 31 fragments and the operation's selection sets visited once, not 2^30 times.
    assert depth_visits[0] <= 40
    assert alias_visits[0] <= 40
    assert statement_count(response) == 0


async def test_a_deep_document_is_refused_by_depth(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    nested = "packagingUnits { " * 9 + "code" + " }" * 9  # not valid GraphQL past one level: depth comes first
    response = await graphql(client, auth, f"query Deep {{ articles {{ items {{ {nested} }} }} }}")

    messages = [error["message"] for error in response.json()["errors"]]
    assert "'Deep' exceeds maximum operation depth of 10" in messages


async def test_a_document_over_its_byte_limit_is_refused_before_parsing(
    client: httpx.AsyncClient, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    parses = counting(monkeypatch, document_cache, "parse")
    comment = "#" + "x" * (64 * 1024) + "\n"  # comments count: the token limit does not see them

    response = await client.post(
        "/graphql",
        json={"query": comment + "{ __typename }"},
        headers=auth | {"Accept": "application/graphql-response+json"},
    )

    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["message"] == f"the document has {len(comment) + 14} bytes, more than the limit of 65536"
    assert error["extensions"] == {"code": "invalid_request", "info": {"bytes": len(comment) + 14, "limit": 65536}}
    assert parses[0] == 0


async def test_a_thirty_mib_comment_is_refused_before_it_is_read(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.post(
        "/graphql",
        content=b'{"query": "#' + b"x" * (30 * 1024 * 1024) + b'\\n{ __typename }"}',
        headers=auth | {"Content-Type": "application/json"},
    )

    assert response.status_code == 413
    assert body(response)["error"] == "payload_too_large"


async def test_unlimited_pages_of_heavy_articles_are_too_expensive(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    # The audit's probe: `articles` without limit, three aliases (35 s and 36 MB on 20,000 articles).
    query = "{ " + " ".join(f"a{i}: articles {{ items {{ {FULL_ARTICLE} }} }}" for i in range(3)) + " }"

    response = await client.post(
        "/graphql", json={"query": query}, headers=auth | {"Accept": "application/graphql-response+json"}
    )

    assert response.status_code == 400
    result = response.json()
    assert "data" not in result
    [error] = result["errors"]
    assert error["extensions"]["code"] == "too_expensive"
    assert error["extensions"]["info"]["budget"] == 100_000
    assert error["extensions"]["info"]["cost"] > 400_000  # 3 x a page of 1,000 heavy articles
    assert statement_count(response) == 0  # nothing ran


async def test_the_cost_follows_the_limits_given(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    query = "query($n: Int) { articles(limit: $n) { totalCount items { number designation } } }"

    small = await graphql(client, auth, query, n=3)
    assert small.json()["data"]["articles"]["totalCount"] == 5

    page = DocumentLimits().page_size
    model = cost.CostModel(build_schema()._schema, page)
    document = parse(query)
    operation = document.definitions[0]
    # articles (1) + page x (totalCount 1 + items (1 + 1 x (number 1 + designation 1)))
    assert model.cost(document, operation, {"n": 3}) == 1 + 3 * (1 + 1 + 2)  # type: ignore[arg-type]
    assert model.cost(document, operation, {"n": None}) == 1 + page * (1 + 1 + 2)  # type: ignore[arg-type]


@pytest.fixture
async def small_pages(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    limits = dataclasses.replace(DocumentLimits(), page_size=2)
    app = create_app(dataclasses.replace(settings, document_limits=limits))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield http


async def test_a_client_page_is_at_most_the_page_size(small_pages: httpx.AsyncClient, auth: dict[str, str]) -> None:
    query = "query($n: Int) { articles(limit: $n) { totalCount items { number } } }"

    default = (await graphql(small_pages, auth, query)).json()["data"]["articles"]
    assert default["totalCount"] == 5 and len(default["items"]) == 2

    [error] = (await graphql(small_pages, auth, query, n=3)).json()["errors"]
    assert error["message"] == "limit is at most 2: page with offset (totalCount says how many there are)"
    assert error["extensions"] == {"code": "invalid_request", "field": "limit", "info": {"limit": 2}}

    # The REST routes' own documents keep the specification's limit=0 = all.
    rest = await small_pages.get("/www/artikel?fields=ArtNr", headers=auth)
    assert len(body(rest)["data"]) == 5


async def test_the_catalogue_scope_may_not_name_a_customer(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]]
) -> None:
    catalogue = token_for("catalogue")
    for query in (
        '{ articles(customerNumber: "100007") { totalCount } }',
        '{ article(number: "A-100", customerNumber: "100007") { number } }',
    ):
        [error] = (await graphql(client, catalogue, query)).json()["errors"]
        assert error["extensions"] == {"code": "insufficient_scope"}
        assert error["message"] == "customerNumber needs the shop scope (customer prices are shop data)"

    response = await client.get("/www/artikel?debinr=100007", headers=catalogue)
    assert response.status_code == 403
    assert (await graphql(client, catalogue, "{ articles { totalCount } }")).json() == {
        "data": {"articles": {"totalCount": 5}}
    }


async def test_a_variables_list_longer_than_any_input_is_refused_before_coercion(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    query = "mutation($input: DocumentInput!) { orderCreate(input: $input) { errors { code } } }"
    positions = [{"articleNumber": "A-100", "quantity": 1}] * 10_001  # ten times the positions limit, and one

    response = await graphql(client, auth, query, input={"customerNumber": "100001", "positions": positions})

    assert response.status_code == 400
    assert body(response)["info"] == {"field": "variables.input.positions"}
    assert statement_count(response) == 0


def test_the_document_cache_is_bounded_by_bytes() -> None:
    cache = document_cache.DocumentCache(max_bytes=3 * 1100 * document_cache.MEMORY_PER_BYTE)
    for index in range(10):
        cache.parsed("{ __typename }" + " " * 1082 + f"# {index:02}", {})  # 1,100 bytes each

    assert len(cache) == 3
    assert cache.bytes <= cache.max_bytes
