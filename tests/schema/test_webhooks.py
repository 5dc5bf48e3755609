"""The webhook domain in GraphQL: admins manage endpoints and deliveries; nobody else sees them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager

from datasources.database import Database
from gateway.app import create_app
from gateway.dispatch import WebhookSettings
from gateway.settings import Settings
from tests.datasources.webhooks.helpers import enable, endpoint, record, stored

CREATE = """
mutation ($url: String!, $events: [String!]) {
  webhookEndpointCreate(url: $url, events: $events) {
    endpoint { id url events createdAt }
    secret
    errors { field code message info }
  }
}"""
DELIVERIES = """
query ($status: WebhookDeliveryStatus, $limit: Int! = 100) {
  webhookDeliveries(status: $status, limit: $limit) {
    id eventId messageId event endpointId url status attempts nextAttemptAt claimedUntil lastAttemptAt
    lastStatus lastAnswer lastError createdAt deliveredAt
  }
}"""
RETRY = """
mutation ($ids: [Int!], $failed: Boolean! = false) {
  webhookDeliveriesRetry(ids: $ids, failed: $failed) { count errors { field code message info } }
}"""
DELETE = "mutation ($id: Int!) { webhookEndpointDelete(id: $id) { deleted errors { field code } } }"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # No dispatcher in the app: the deliveries stay as the tests leave them.
    return dataclasses.replace(settings, webhooks=WebhookSettings(allow_private=True, dispatch=False))


@pytest.fixture
def admin(token_for: Callable[..., dict[str, str]]) -> dict[str, str]:
    return token_for("admin", name="operator")


async def graphql(client: httpx.AsyncClient, headers: dict[str, str], query: str, **variables: Any) -> Any:
    response = await client.post("/graphql", json={"query": query, "variables": variables}, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def test_an_admin_adds_lists_and_removes_endpoints(client: httpx.AsyncClient, admin: dict[str, str]) -> None:
    created = (await graphql(client, admin, CREATE, url="https://shop.example/hook", events=["rest_auft"]))["data"]
    payload = created["webhookEndpointCreate"]
    assert payload["errors"] == [] and payload["secret"].startswith("whsec_")
    assert payload["endpoint"]["url"] == "https://shop.example/hook" and payload["endpoint"]["events"] == ["REST_Auft"]
    listed = await graphql(client, admin, "{ webhookEndpoints { id url events } }")
    endpoint_id = payload["endpoint"]["id"]
    assert listed["data"]["webhookEndpoints"] == [
        {"id": endpoint_id, "url": "https://shop.example/hook", "events": ["REST_Auft"]}
    ]
    # The secret is shown once: an endpoint has no such field.
    refused = await graphql(client, admin, "{ webhookEndpoints { secret } }")
    assert refused["data"] is None and refused["errors"][0]["extensions"]["code"] == "invalid_request"
    assert (await graphql(client, admin, DELETE, id=endpoint_id))["data"]["webhookEndpointDelete"] == {
        "deleted": True,
        "errors": [],
    }
    assert (await graphql(client, admin, DELETE, id=endpoint_id))["data"]["webhookEndpointDelete"] == {
        "deleted": False,
        "errors": [{"field": "id", "code": "NOT_FOUND"}],
    }


@pytest.mark.parametrize(
    ("variables", "field"),
    [({"url": "ftp://shop.example/hook"}, "url"), ({"url": "https://shop.example/", "events": ["REST_X"]}, "events")],
)
async def test_refused_endpoints_are_typed_errors(
    client: httpx.AsyncClient, admin: dict[str, str], variables: dict[str, Any], field: str
) -> None:
    payload = (await graphql(client, admin, CREATE, **variables))["data"]["webhookEndpointCreate"]
    assert payload["endpoint"] is None and payload["secret"] is None
    assert [(error["field"], error["code"]) for error in payload["errors"]] == [(field, "INVALID_REQUEST")]


async def test_an_admin_lists_and_retries_deliveries(
    client: httpx.AsyncClient, admin: dict[str, str], db: Database
) -> None:
    await enable(db)
    added, _ = await endpoint(db, "http://127.0.0.1:9/hook")
    await record(db, AuftNr="500001", KundNr="100001")
    (delivery,) = await stored(db)
    listed = (await graphql(client, admin, DELIVERIES, status="PENDING"))["data"]["webhookDeliveries"]
    assert len(listed) == 1
    assert listed[0] | {"nextAttemptAt": None, "createdAt": None, "messageId": None} == {
        "id": delivery.id,
        "eventId": delivery.event_id,
        "messageId": None,
        "event": "REST_Auft",
        "endpointId": added.id,
        "url": "http://127.0.0.1:9/hook",
        "status": "PENDING",
        "attempts": 0,
        "nextAttemptAt": None,
        "claimedUntil": None,
        "lastAttemptAt": None,
        "lastStatus": None,
        "lastAnswer": None,
        "lastError": None,
        "createdAt": None,
        "deliveredAt": None,
    }
    assert listed[0]["messageId"].startswith("msg_")
    assert (await graphql(client, admin, DELIVERIES, status="FAILED"))["data"]["webhookDeliveries"] == []
    retried = await graphql(client, admin, RETRY, ids=[delivery.id])
    assert retried["data"]["webhookDeliveriesRetry"] == {"count": 1, "errors": []}
    assert (await graphql(client, admin, RETRY, failed=True))["data"]["webhookDeliveriesRetry"]["count"] == 0
    missing = (await graphql(client, admin, RETRY, ids=[delivery.id, 404]))["data"]["webhookDeliveriesRetry"]
    message = "there is no webhook delivery 404"
    assert missing == {
        "count": 0,
        "errors": [{"field": "id", "code": "NOT_FOUND", "message": message, "info": {"ids": [404]}}],
    }
    for variables in ({}, {"ids": [delivery.id], "failed": True}):
        both = (await graphql(client, admin, RETRY, **variables))["data"]["webhookDeliveriesRetry"]
        assert [error["code"] for error in both["errors"]] == ["INVALID_REQUEST"]
    too_many = await graphql(client, admin, DELIVERIES, limit=0)
    assert too_many["errors"][0]["extensions"]["code"] == "invalid_request"


@pytest.mark.parametrize(
    "document",
    [
        "{ webhookEndpoints { id } }",
        "{ webhookDeliveries { id } }",
        'mutation { webhookEndpointCreate(url: "https://shop.example/") { secret } }',
        "mutation { webhookEndpointDelete(id: 1) { deleted } }",
        "mutation { webhookDeliveriesRetry(failed: true) { count } }",
    ],
)
async def test_only_admins_may(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]], document: str
) -> None:
    answer = await graphql(client, token_for("shop"), document)
    assert [error["extensions"]["code"] for error in answer["errors"]] == ["insufficient_scope"]


@pytest.mark.parametrize(
    ("url", "what"),
    [
        ("http://127.0.0.1:5432/", "127.0.0.1 is a loopback address"),
        ("http://0x7f000001:6379/", "0x7f000001 (127.0.0.1) is a loopback address"),
        ("http://[::1]/", "::1 is a loopback address"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
    ],
)
async def test_a_private_address_is_refused_unless_allowed(
    settings: Settings, admin: dict[str, str], url: str, what: str
) -> None:
    refused = await created_on(dataclasses.replace(settings, webhooks=WebhookSettings(dispatch=False)), admin, url)
    allowed = await created_on(settings, admin, url)  # GATEWAY_WEBHOOK_ALLOW_PRIVATE=1

    message = (
        f"the URL's host {what}: webhooks are not sent to loopback, private, link-local, multicast, unspecified "
        "or reserved addresses unless GATEWAY_WEBHOOK_ALLOW_PRIVATE=1"
    )
    assert refused == {
        "endpoint": None,
        "secret": None,
        "errors": [{"field": "url", "code": "INVALID_REQUEST", "message": message, "info": {}}],
    }
    assert allowed["errors"] == [] and allowed["endpoint"]["url"] == url


async def test_a_password_in_an_endpoints_url_is_never_shown(
    client: httpx.AsyncClient, admin: dict[str, str], db: Database
) -> None:
    await enable(db)
    created = await graphql(client, admin, CREATE, url="https://erp:s3cret-pass@shop.example/hooks")
    await record(db)
    listed = await graphql(client, admin, "{ webhookEndpoints { url } }")
    delivered = await graphql(client, admin, DELIVERIES)

    shown = "https://erp:***@shop.example/hooks"
    assert created["data"]["webhookEndpointCreate"]["endpoint"]["url"] == shown
    assert listed["data"]["webhookEndpoints"] == [{"url": shown}]
    assert delivered["data"]["webhookDeliveries"][0]["url"] == shown


async def created_on(settings: Settings, headers: dict[str, str], url: str) -> Any:
    async with LifespanManager(create_app(settings)) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            return (await graphql(http, headers, CREATE, url=url))["data"]["webhookEndpointCreate"]
