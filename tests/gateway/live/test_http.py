"""A subscription sent as a plain HTTP request is refused with the contract's error body (400
invalid_request, naming the WebSocket), not run as a query whose resolver fails."""

from __future__ import annotations

import httpx
import pytest

SUBSCRIPTION = "subscription { orderEvents { orderNumber } }"


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_subscription_over_http_is_refused(
    client: httpx.AsyncClient, auth: dict[str, str], method: str
) -> None:
    if method == "GET":
        response = await client.get("/graphql", params={"query": SUBSCRIPTION}, headers=auth)
    else:
        response = await client.post("/graphql", json={"query": SUBSCRIPTION}, headers=auth)
    assert response.status_code == 400, response.text
    body = response.json()
    assert (body["error"], body["info"]["field"]) == ("invalid_request", "query")
    assert "WebSocket" in body["error_description"]
