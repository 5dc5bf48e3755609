"""The filters analysts asked for: list price, modification time, media; on `articles`, its count and
`articleNumbers` alike."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.catalogue_data import Catalogue
from tests.factories import Factory
from tests.schema.test_catalogue_queries import graphql

QUERY = (
    "query($filter: ArticleFilterInput, $currency: String, $customer: String) {"
    " articles(filter: $filter, currency: $currency, customerNumber: $customer, sort: [{field: NUMBER}])"
    " { totalCount items { number } }"
    " articleNumbers(filter: $filter, currency: $currency, customerNumber: $customer, sort: [{field: NUMBER}]) }"
)


@pytest.mark.parametrize(
    ("variables", "numbers"),
    [
        # The hammer's lowest base-unit tier in STD is 9.90; the others have no base-unit price in STD.
        ({"filter": {"priceFrom": 9.9}}, ["A-100"]),
        ({"filter": {"priceFrom": 9.95}}, []),
        ({"filter": {"priceTo": 9.9}}, []),  # below: the bound itself is the next band's
        ({"filter": {"priceTo": 9.95}}, ["A-100"]),
        ({"filter": {"priceFrom": 0, "priceTo": 1000000}}, ["A-100"]),
        ({"filter": {"priceFrom": 13, "priceTo": 13.01}, "currency": "EUR"}, ["A-100"]),
        ({"filter": {"priceFrom": 13}}, []),
        # The reseller's list WV first: the hammer at 10.00, the drill at 30.00 (none in STD).
        ({"filter": {"priceFrom": 10, "priceTo": 10.01}, "customer": "100001"}, ["A-100"]),
        ({"filter": {"priceFrom": 30}, "customer": "100001"}, ["A-500"]),
        ({"filter": {"priceFrom": 10, "group": "WERKZEUG"}, "customer": "100001"}, ["A-100", "A-500"]),
        ({"filter": {"modifiedSince": "2026-03-01T08:30:00Z"}}, ["A-100", "A-200", "A-300", "A-500", "A-600"]),
        ({"filter": {"modifiedSince": "2026-03-01T09:30:01+01:00"}}, []),
        ({"filter": {"hasMedia": True}}, ["A-300"]),
        ({"filter": {"hasMedia": False, "group": "WERKZEUG"}}, ["A-100", "A-500"]),
    ],
)
async def test_new_filters_agree_on_page_count_and_numbers(
    client: httpx.AsyncClient,
    catalogue: Catalogue,
    factory: Factory,
    auth: dict[str, str],
    variables: dict[str, Any],
    numbers: list[str],
) -> None:
    await factory.media(catalogue.pliers, "zange.txt", text="Zange", text_format="TXT")
    await factory.media(catalogue.hidden, "intern.txt", text="intern", text_format="TXT")
    result = await graphql(client, auth, QUERY, **variables)
    assert result == {
        "data": {
            "articles": {"totalCount": len(numbers), "items": [{"number": n} for n in numbers]},
            "articleNumbers": numbers,
        }
    }
