"""A subscription in GraphiQL, in Chromium, against a real `gateway serve` (graphiql_subscription.mjs): run
from the page with a pasted token over the WebSocket at /graphql (GraphiQL's bundled graphql-ws client),
it shows the event of an order placed through REST, with no request leaving the gateway."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser import driver
from tests.browser.conftest import Served
from tests.gateway.live import shop

pytestmark = driver.requirement()


@pytest.fixture(scope="module")
def shop_token(served: Served) -> str:
    """The shop user's token of the folder's server (subscriptions to orders need the shop scope), with order
    events recorded."""
    served.server.run_cli("attributes", "set", "RESTEVENTS", "*")
    return served.shop_token


def test_a_subscription_in_graphiql_shows_an_order_placed_through_rest(
    served: Served, shop_token: str, tmp_path: Path
) -> None:
    customer = shop.customer(served.server, shop_token)
    result = driver.run_script(
        "graphiql_subscription.mjs", served.base_url, shop_token, customer, screenshot=tmp_path / "graphiql.png"
    )

    driver.assert_nothing_went_wrong(result)
    assert result["sockets"] == ["/graphql"]
    assert result["running"] is True
    event = result["response"]["data"]["orderEvents"]
    assert (event["type"], event["orderNumber"], event["customerNumber"]) == ("REST_Auft", result["placed"], customer)
    assert event["cursor"]
