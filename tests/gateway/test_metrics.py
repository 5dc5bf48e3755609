"""GET /metrics: the Prometheus text format, for a token with the admin scope (or anyone, when
GATEWAY_METRICS_PUBLIC opens it). Requests counted by route template and status, their latency and SQL
statements, the executor path of each GraphQL operation, the webhook outbox's backlog."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from asgi_lifespan import LifespanManager
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import update

from datasources.database import Database
from datasources.models import DeliveryStatus, WebhookDelivery
from gateway.app import create_app
from gateway.dispatch import WebhookSettings
from gateway.settings import Settings
from schema.execution import FALLBACKS
from schema.execution.run import Run
from tests.datasources.webhooks.helpers import enable, endpoint
from tests.factories import Factory
from tests.http import body, error, statement_count
from tests.sales_data import CONTACT_FRE, new_customer

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
ARTICLE = "/www/artikel/{ArtNr}"


@contextlib.asynccontextmanager
async def serving(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with LifespanManager(create_app(settings)) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            yield http


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # No dispatcher: a delivery stays pending, as behind a receiver that is down.
    return dataclasses.replace(settings, webhooks=WebhookSettings(dispatch=False))


@pytest.fixture
def admin(token_for: Callable[..., dict[str, str]]) -> dict[str, str]:
    return token_for("admin", name="operator")


async def scrape(client: httpx.AsyncClient, headers: dict[str, str] | None = None) -> Samples:
    response = await client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def test_metrics_need_the_metrics_scope(
    client: httpx.AsyncClient, auth: dict[str, str], admin: dict[str, str]
) -> None:
    missing = await client.get("/metrics")
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == 'Bearer realm="gateway"'
    shop = await client.get("/metrics", headers=auth)
    assert shop.status_code == 403
    assert body(shop) == error("insufficient_scope", "the metrics scope is required")
    assert value(
        await scrape(client, admin), "gateway_http_requests_total", method="GET", route="/metrics", status="403"
    )


async def test_a_setting_opens_metrics_to_a_scraper_without_a_token(settings: Settings) -> None:
    async with serving(dataclasses.replace(settings, metrics_public=True)) as client:
        samples = await scrape(client)
    assert value(samples, "gateway_graphql_operations_total", path="compiled") == 0  # every path, from the start
    assert not [name for name, _ in samples if name.endswith("_created")]  # as with several workers


@pytest.mark.usefixtures("catalogue")
async def test_requests_are_counted_by_route_template_and_status(
    client: httpx.AsyncClient, auth: dict[str, str], admin: dict[str, str]
) -> None:
    before = await scrape(client, admin)
    found = [await client.get(f"/www/artikel/A-100?fields={fields}", headers=auth) for fields in ("ArtNr", "ArtBez")]
    assert {response.status_code for response in found} == {200}
    assert (await client.get("/www/artikel/NOPE", headers=auth)).status_code == 404
    assert (await client.get("/www/artikel/A-100")).status_code == 401  # refused before routing: still its route
    assert (await client.put("/www/artikel/A-100", headers=auth)).status_code == 405
    assert (await client.get("/no/such/path")).status_code == 404
    assert (await client.request("BREW", "/www/artikel/A-100", headers=auth)).status_code == 405
    after = await scrape(client, admin)

    def grown(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    requests = "gateway_http_requests_total"
    assert grown(requests, method="GET", route=ARTICLE, status="200") == 2
    assert grown(requests, method="GET", route=ARTICLE, status="404") == 1
    assert grown(requests, method="GET", route=ARTICLE, status="401") == 1
    assert grown(requests, method="PUT", route=ARTICLE, status="405") == 1
    assert grown(requests, method="other", route=ARTICLE, status="405") == 1  # any token a client sends
    assert grown(requests, method="GET", route="unmatched", status="404") == 1
    assert grown(requests, method="GET", route="/metrics", status="200") == 1  # the first scrape
    # The path itself is never a label: one series per route, whatever the ArtNr.
    assert not [key for key in after if any("A-100" in label for _, label in key[1])]
    assert grown("gateway_http_request_duration_seconds_count", method="GET", route=ARTICLE) == 4
    assert grown("gateway_http_request_duration_seconds_bucket", method="GET", route=ARTICLE, le="+Inf") == 4
    assert grown("gateway_http_request_duration_seconds_sum", method="GET", route=ARTICLE) > 0


@pytest.mark.usefixtures("catalogue")
async def test_sql_statements_per_request_are_observed(
    client: httpx.AsyncClient, auth: dict[str, str], admin: dict[str, str]
) -> None:
    answers = [
        await client.get(f"/www/artikel/A-100?fields={fields}", headers=auth) for fields in ("ArtNr", "ArtBez,Preis")
    ]
    samples = await scrape(client, admin)
    assert value(samples, "gateway_sql_statements_per_request_count", route=ARTICLE) == 2
    # The same count as each answer's Server-Timing header.
    assert value(samples, "gateway_sql_statements_per_request_sum", route=ARTICLE) == sum(map(statement_count, answers))
    assert value(samples, "gateway_sql_statements_per_request_bucket", route=ARTICLE, le="100.0") == 2


@pytest.mark.usefixtures("catalogue")
async def test_graphql_operations_are_counted_by_executor_path(
    client: httpx.AsyncClient, auth: dict[str, str], admin: dict[str, str]
) -> None:
    rest = await client.get("/www/artikel/A-100?fields=ArtNr", headers=auth)
    query = await client.post("/graphql", json={"query": '{ article(number: "A-100") { number } }'}, headers=auth)
    introspection = await client.post("/graphql", json={"query": '{ __type(name: "Price") { name } }'}, headers=auth)
    assert [rest.status_code, query.status_code, introspection.status_code] == [200, 200, 200]
    samples = await scrape(client, admin)
    assert value(samples, "gateway_graphql_operations_total", path="compiled") == 2  # the REST route's, /graphql's
    assert value(samples, "gateway_graphql_operations_total", path="graphql-core") == 1
    assert value(samples, "gateway_graphql_operations_total", path="compiled+graphql-core") == 0


@pytest.mark.fallback
@pytest.mark.usefixtures("catalogue")
async def test_a_fallback_to_graphql_core_is_counted_by_operation(
    client: httpx.AsyncClient, auth: dict[str, str], admin: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(self: Run, root: object) -> None:
        raise RuntimeError("a run bug")

    assert value(await scrape(client, admin), "gateway_graphql_fallbacks_total", operation="Article") == 0
    before = FALLBACKS.copy()
    monkeypatch.setattr(Run, "execute", broken)
    answers = [await client.get("/www/artikel/A-100?fields=ArtNr", headers=auth) for _ in range(2)]
    assert [answer.status_code for answer in answers] == [200, 200]  # graphql-core answered
    samples = await scrape(client, admin)
    assert value(samples, "gateway_graphql_fallbacks_total", operation="Article") == 2
    assert value(samples, "gateway_graphql_operations_total", path="compiled+graphql-core") == 2
    assert FALLBACKS - before == {"Article": 2}  # what the suite's no_graphql_fallback fixture reads


async def test_the_outbox_backlog_is_read_at_each_scrape(
    client: httpx.AsyncClient, factory: Factory, db: Database, auth: dict[str, str], admin: dict[str, str]
) -> None:
    empty = await scrape(client, admin)
    assert value(empty, "gateway_outbox_backlog") == 0
    assert value(empty, "gateway_outbox_backlog_oldest_seconds") == 0
    await factory.reference_data()
    await enable(db)
    await endpoint(db, "http://127.0.0.1:9/hook")  # nothing listens there
    await endpoint(db, "http://127.0.0.1:9/other")
    await new_customer(client, auth, CONTACT_FRE)  # REST_Kunde, one delivery per endpoint
    async with db.writer() as session, session.begin():
        await session.execute(
            update(WebhookDelivery).where(WebhookDelivery.id == 1).values(status=DeliveryStatus.FAILED)
        )

    samples = await scrape(client, admin)
    assert value(samples, "gateway_outbox_backlog") == 1
    assert 0 <= value(samples, "gateway_outbox_backlog_oldest_seconds") < 60
    assert value(samples, "gateway_outbox_failed") == 1
