"""GraphQL over Server-Sent Events, in process: what ends by itself (a query, a mutation, an operation
refused by validation or scope) answers `next` then `complete`; what every request must pass is answered
before the stream, with the error body. Live subscriptions against a real server: test_sse_server.py."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable

import httpx
import pytest
from starlette.types import Message
from strawberry.types import ExecutionResult

from gateway.live import sse
from gateway.live.settings import LiveSettings
from gateway.live.transport import LiveTransport
from gateway.metrics import Metrics
from gateway.settings import Settings
from tests.gateway.live.client import ORDER_EVENTS
from tests.gateway.live.sse_client import COMMENT, Event, parse
from tests.gateway.test_cors import client_for

EVENT_STREAM = {"Accept": "text/event-stream"}


def events(body: str) -> list[Event]:
    return [event for event in parse(body.split("\n")) if event.event != COMMENT]


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_query_is_one_next_then_complete(client: httpx.AsyncClient, auth: dict[str, str], method: str) -> None:
    query = "{ articles(limit: 1) { totalCount } }"
    headers = {**auth, **EVENT_STREAM, "Accept-Encoding": "gzip"}
    if method == "GET":
        response = await client.get("/graphql", params={"query": query}, headers=headers)
    else:
        response = await client.post("/graphql", json={"query": query}, headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["cache-control"] == "no-store, no-transform"
    assert "content-encoding" not in response.headers
    assert response.headers["x-request-id"]
    assert events(response.text) == [("next", {"data": {"articles": {"totalCount": 0}}}), ("complete", None)]


async def test_a_mutation_runs_over_post_not_get(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]]
) -> None:
    mutation = "mutation { webhookEndpointDelete(id: 987654) { __typename } }"
    headers = {**token_for("admin"), **EVENT_STREAM}
    response = await client.post("/graphql", json={"query": mutation}, headers=headers)
    assert events(response.text) == [
        ("next", {"data": {"webhookEndpointDelete": {"__typename": "WebhookEndpointDeletePayload"}}}),
        ("complete", None),
    ]
    response = await client.get("/graphql", params={"query": mutation}, headers=headers)
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"


async def test_errors_of_the_operation_come_as_a_next(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.post("/graphql", json={"query": "{ nosuchfield }"}, headers={**auth, **EVENT_STREAM})
    assert response.status_code == 200
    [(kind, data), complete] = events(response.text)
    assert (kind, complete) == ("next", ("complete", None))
    assert data["errors"][0]["extensions"]["code"] == "invalid_request"


async def test_a_catalogue_token_cannot_subscribe_to_orders(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]]
) -> None:
    headers = {**token_for("catalogue"), **EVENT_STREAM}
    response = await client.post("/graphql", json={"query": ORDER_EVENTS}, headers=headers)
    [(kind, data), complete] = events(response.text)
    assert (kind, complete) == ("next", ("complete", None))
    assert data["errors"][0]["extensions"]["code"] == "insufficient_scope"


async def test_a_request_without_a_token_is_refused_before_the_stream(client: httpx.AsyncClient) -> None:
    response = await client.post("/graphql", json={"query": ORDER_EVENTS}, headers=EVENT_STREAM)
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_token"


async def test_a_batch_is_refused(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    batch = [{"query": "{ __typename }"}, {"query": "{ __typename }"}]
    response = await client.post("/graphql", json=batch, headers={**auth, **EVENT_STREAM})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


async def test_multipart_subscriptions_are_not_served(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    # Strawberry's multipart transport (Apollo's protocol) would run subscriptions past the live limits: it is
    # off, and such a request is refused as any subscription over plain HTTP.
    headers = {**auth, "Accept": 'multipart/mixed;subscriptionSpec="1.0",application/json'}
    response = await client.post("/graphql", json={"query": ORDER_EVENTS}, headers=headers)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


@pytest.mark.parametrize(
    ("accept", "wanted"),
    [
        ("text/event-stream", True),
        ("Text/Event-Stream; charset=utf-8", True),
        ("application/json, text/event-stream", False),  # tied with JSON: the usual answer
        ("application/json;q=0.5, text/event-stream", True),
        ("text/event-stream;q=0", False),
        ("*/*", False),
        ("", False),
    ],
)
def test_which_requests_ask_for_an_event_stream(accept: str, wanted: bool) -> None:
    assert sse.requested(accept) is wanted


async def test_a_subscription_that_does_not_validate_comes_with_its_code(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    query = "subscription { orderEvents { nosuchfield } }"
    response = await client.post("/graphql", json={"query": query}, headers={**auth, **EVENT_STREAM})
    [(kind, data), complete] = events(response.text)
    assert (kind, complete) == ("next", ("complete", None))
    assert data["errors"][0]["extensions"]["code"] == "invalid_request"


async def test_a_client_that_takes_nothing_is_dropped_after_the_idle_time() -> None:
    """A write that the client does not take within GATEWAY_LIVE_IDLE_SECONDS ends the stream (it holds no
    subscription slot, no buffer, forever); the drop is counted as a slow consumer."""
    live = LiveTransport(LiveSettings(idle_seconds=0.2, ping_seconds=60), metrics=Metrics())

    async def results() -> sse.Results:
        while True:
            yield ExecutionResult(data={"orderEvents": {"orderNumber": "1"}}, errors=None)

    async def encode(result: ExecutionResult) -> bytes:
        return b"{}"

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)
        if message["type"] == "http.response.body":
            await asyncio.Event().wait()  # the socket's buffer is full: the write never ends

    async def receive() -> Message:
        await asyncio.Event().wait()  # the client never leaves either
        return {"type": "http.disconnect"}

    stream = sse.EventStream(results(), encode, live)
    async with asyncio.timeout(5):
        await stream({"type": "http"}, receive, send)
    assert [message["type"] for message in sent] == ["http.response.start", "http.response.body"]
    assert live.metrics is not None
    assert live.metrics.live_dropped.labels("slow")._value.get() == 1
    assert live.metrics.live_connections._value.get() == 0


async def test_a_page_of_an_allowed_origin_may_read_the_stream(settings: Settings, auth: dict[str, str]) -> None:
    shop = "https://shop.example"
    async for http in client_for(dataclasses.replace(settings, cors_origins=(shop,))):
        headers = {**auth, **EVENT_STREAM, "Origin": shop}
        response = await http.post("/graphql", json={"query": "{ __typename }"}, headers=headers)
        assert response.headers["access-control-allow-origin"] == shop
        assert events(response.text) == [("next", {"data": {"__typename": "Query"}}), ("complete", None)]
