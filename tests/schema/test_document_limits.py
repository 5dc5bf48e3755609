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
from graphql import GraphQLInputObjectType, GraphQLScalarType, parse
from graphql.execution import executor

from gateway.app import create_app
from gateway.settings import Settings
from schema import document_cache
from schema.execution.lru import MEMORY_PER_BYTE
from schema.limits import DocumentLimits, RequestLimits, aliases, cost, depth, inputs
from schema.schema import build_schema
from tests.http import body, statement_count

pytestmark = pytest.mark.usefixtures("catalogue")
GQL = "application/graphql-response+json"
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

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

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


ORDERS = '{{ customer(number: "100001") {{ orders(limit: {limit}) {{ number }} }} }}'


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        (ORDERS.format(limit="1000000"), {}),
        (ORDERS.format(limit="$n").replace("{ customer", "query($n: Int! = 1000000) { customer", 1), {}),
        (ORDERS.format(limit="$n").replace("{ customer", "query($n: Int!) { customer", 1), {"n": 1000000}),
        (ORDERS.format(limit="$n").replace("{ customer", "query($n: Int!) { customer", 1), {"n": 1e6}),  # an Int too
    ],
)
async def test_a_limit_costs_what_the_resolver_gets_whichever_way_it_is_given(
    client: httpx.AsyncClient, auth: dict[str, str], query: str, variables: dict[str, Any]
) -> None:
    response = await client.post(
        "/graphql",
        json={"query": query, "variables": variables},
        headers=auth | {"Accept": "application/graphql-response+json"},
    )

    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["extensions"] == {"code": "too_expensive", "info": {"cost": 1_000_002, "budget": 100_000}}
    assert statement_count(response) == 0


def test_an_absent_limit_costs_the_arguments_default() -> None:
    model = cost.CostModel(build_schema()._schema, DocumentLimits().page_size)

    def cost_of(query: str, variables: dict[str, Any]) -> int:
        document = parse(query)
        return model.cost(document, document.definitions[0], variables)  # type: ignore[arg-type]

    # Customer.orders(limit: Int! = 0): no orders, whatever the page size.
    assert cost_of('{ customer(number: "1") { orders { number } } }', {}) == 1 + 1 * (1 + 0)
    # A variable neither sent nor declared with a default leaves the argument's default too.
    assert cost_of("query($n: Int) { articles(limit: $n) { items { number } } }", {}) == 1 + 1000 * (1 + 1)
    assert cost_of("query($n: Int = 7) { articles(limit: $n) { items { number } } }", {}) == 1 + 7 * (1 + 1)
    assert cost_of("query($n: Int = 7) { articles(limit: $n) { items { number } } }", {"n": None}) == 1 + 1000 * 2


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
    assert error["extensions"] == {"code": "invalid_request", "field": "limit", "info": {"limit": 2, "field": "limit"}}

    numbers = "query($n: Int) { articleNumbers(limit: $n) }"
    assert len((await graphql(small_pages, auth, numbers)).json()["data"]["articleNumbers"]) == 2
    [error] = (await graphql(small_pages, auth, numbers, n=3)).json()["errors"]
    assert error["extensions"]["info"] == {"limit": 2, "field": "limit"}

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
        '{ articleNumbers(customerNumber: "100007") }',
    ):
        [error] = (await graphql(client, catalogue, query)).json()["errors"]
        assert error["extensions"] == {"code": "insufficient_scope"}
        assert error["message"] == "customerNumber needs the shop scope (customer prices are shop data)"

    response = await client.get("/www/artikel?debinr=100007", headers=catalogue)
    assert response.status_code == 403
    assert (await graphql(client, catalogue, "{ articles { totalCount } }")).json() == {
        "data": {"articles": {"totalCount": 5}}
    }


ORDER = "mutation($input: DocumentInput!) { orderCreate(input: $input) { order { number } errors { code } } }"
HAMMERS = [{"articleNumber": "A-100", "quantity": 1}]


def refusal(message: str, field: str, limit: int) -> dict[str, Any]:
    extensions = {"code": "invalid_request", "info": {"limit": limit, "field": field}, "field": field}
    return {"errors": [{"message": message, "extensions": extensions}]}


@pytest.mark.parametrize(
    ("query", "variables", "expected"),
    [
        # The audit's order: 10,000 positions, 460 KB (graphql-core coerced them for 1.2 s before the refusal).
        (ORDER, {"input": {"customerNumber": "100001", "positions": HAMMERS * 10_000}}, ("positions", 1000)),
        (ORDER, {"input": {"customerNumber": "100001", "positions": HAMMERS * 1001}}, ("positions", 1000)),
        (
            ORDER,
            {"input": {"customerNumber": "100001", "positions": HAMMERS, "payments": [{"designation": "x"}] * 101}},
            ("payments", 100),
        ),
        (  # a list given as a variable of its own, inside an input written in the document
            'mutation($p: [PositionInput!]) { orderCreate(input: {customerNumber: "100001", positions: $p}) '
            "{ errors { code } } }",
            {"p": HAMMERS * 1001},
            ("positions", 1000),
        ),
    ],
    ids=["10,000 positions", "1,001 positions", "101 payments", "a list variable"],
)
async def test_a_list_past_its_limit_is_refused_before_coercion(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    query: str,
    variables: dict[str, Any],
    expected: tuple[str, int],
) -> None:
    coercions = counting(monkeypatch, executor, "get_variable_values")
    entries, limit = expected

    response = await client.post(
        "/graphql", json={"query": query, "variables": variables}, headers=auth | {"Accept": GQL}
    )

    assert response.status_code == 400
    assert response.json() == refusal(f"at most {limit} {entries}", f"input.{entries}", limit)
    assert coercions[0] == 0
    assert statement_count(response) == 0


@pytest.fixture
async def three_positions(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(dataclasses.replace(settings, request_limits=RequestLimits(positions=3, payments=2)))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield http


async def test_the_bound_is_the_configured_limit(
    three_positions: httpx.AsyncClient, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    coercions = counting(monkeypatch, executor, "get_variable_values")

    def order(positions: int) -> dict[str, Any]:
        return {"query": ORDER, "variables": {"input": {"customerNumber": "100001", "positions": HAMMERS * positions}}}

    refused = await three_positions.post("/graphql", json=order(4), headers=auth)
    assert refused.json() == {"data": None, **refusal("at most 3 positions", "input.positions", 3)}
    assert coercions[0] == 0

    placed = await three_positions.post("/graphql", json=order(3), headers=auth)
    assert placed.json() == {"data": {"orderCreate": {"order": {"number": "500001"}, "errors": []}}}
    assert coercions[0] == 1


@pytest.mark.parametrize(
    ("query", "variables", "expected"),
    [
        (
            "query($s: [ArticleSortInput!]) { articles(sort: $s) { totalCount } }",
            {"s": [{"field": "NUMBER"}] * 11},
            refusal("at most 10 sort keys", "sort", 10),
        ),
        (
            "{ articles(sort: [" + ", ".join(["{field: NUMBER}"] * 11) + "]) { totalCount } }",
            {},
            refusal("at most 10 sort keys", "sort", 10),
        ),
        (  # any other list: at most as many entries as the largest of the limits
            "mutation($ids: [Int!]!) { webhookDeliveriesRetry(ids: $ids) { count } }",
            {"ids": list(range(1001))},
            refusal("at most 1000 entries", "ids", 1000),
        ),
        (
            "query($n: [String!]) { articles(filter: {numbers: $n}) { totalCount } }",
            {"n": ["A-100"] * 1001},
            refusal("at most 1000 entries", "filter.numbers", 1000),
        ),
    ],
    ids=["sort keys", "sort keys written", "any other list", "article numbers"],
)
async def test_every_list_is_bounded_before_anything_runs(
    client: httpx.AsyncClient, auth: dict[str, str], query: str, variables: dict[str, Any], expected: dict[str, Any]
) -> None:
    response = await client.post(
        "/graphql", json={"query": query, "variables": variables}, headers=auth | {"Accept": GQL}
    )

    assert (response.status_code, response.json()) == (400, expected)
    assert statement_count(response) == 0


def test_the_list_bounds_name_input_types_of_the_schema() -> None:
    schema = build_schema()._schema
    for name in inputs.list_bounds(RequestLimits()):
        # An input object, or the JSON scalar (articlesUpsert's records: the one list of JSON values).
        assert isinstance(schema.get_type(name), GraphQLInputObjectType | GraphQLScalarType), name


def test_the_document_cache_is_bounded_by_bytes() -> None:
    cache = document_cache.DocumentCache(max_bytes=3 * 1100 * MEMORY_PER_BYTE)
    for index in range(10):
        cache.parsed("{ __typename }" + " " * 1082 + f"# {index:02}", {})  # 1,100 bytes each

    assert len(cache) == 3
    assert cache.bytes <= cache.max_bytes
