"""articleFacets over the hand-known catalogue (tests/catalogue_data.py); tests/schema/test_analytics_properties.py
checks them on random catalogues."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from graphql import parse

from schema.limits import cost
from schema.limits.cost import LIST_SIZE
from schema.schema import build_schema
from tests.catalogue_data import Catalogue
from tests.schema.test_catalogue_queries import graphql

FACETS = (
    "query($filter: ArticleFilterInput, $customer: String, $currency: String, $bounds: [Float!]) {"
    " articleFacets(filter: $filter, customerNumber: $customer, currency: $currency) {"
    " total groups { value count } classes { value count } availability { value count }"
    " priceBands { from to count } given: priceBands(bounds: $bounds) { from to count } withoutPrice } }"
)


async def test_facets_of_the_whole_catalogue(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    result = await graphql(client, auth, FACETS, bounds=[5, 10])
    assert result == {
        "data": {
            "articleFacets": {
                "total": 5,
                "groups": [
                    {"value": "WERKZEUG", "count": 3},
                    {"value": None, "count": 1},
                    {"value": "BEFESTIG", "count": 1},
                ],
                "classes": [{"value": None, "count": 4}, {"value": "HAND", "count": 1}],
                "availability": [{"value": True, "count": 2}, {"value": False, "count": 3}],
                # Only the hammer has a base-unit price in STD: 9.90, in the band 8-10 (steps of 2).
                "priceBands": [{"from": 8.0, "to": 10.0, "count": 1}],
                "given": [{"from": 5.0, "to": 10.0, "count": 1}],
                "withoutPrice": 4,
            }
        }
    }


@pytest.mark.parametrize(
    ("variables", "bands", "without"),
    [
        # The reseller's view: the hammer at 10.00, the drill at 30.00; steps of 5 over 10-30.
        (
            {"customer": "100001"},
            [
                {"from": 10.0, "to": 15.0, "count": 1},
                {"from": 15.0, "to": 20.0, "count": 0},
                {"from": 20.0, "to": 25.0, "count": 0},
                {"from": 25.0, "to": 30.0, "count": 0},
                {"from": 30.0, "to": 35.0, "count": 1},
            ],
            3,
        ),
        ({"filter": {"group": "BEFESTIG"}}, [], 1),
        ({"filter": {"priceFrom": 9.9}}, [{"from": 8.0, "to": 10.0, "count": 1}], 0),
    ],
)
async def test_price_bands_follow_the_view_and_the_filter(
    client: httpx.AsyncClient,
    catalogue: Catalogue,
    auth: dict[str, str],
    variables: dict[str, Any],
    bands: list[dict[str, Any]],
    without: int,
) -> None:
    result = await graphql(client, auth, FACETS, bounds=[10], **variables)
    facets = result["data"]["articleFacets"]
    assert (facets["priceBands"], facets["withoutPrice"]) == (bands, without)


@pytest.mark.parametrize(
    ("bounds", "message"),
    [
        ([], "bounds: 1 to 100 prices"),
        ([2, 1], "bounds must be strictly ascending"),
        ([1.0] * 101, "bounds: 1 to 100 prices"),
    ],
)
async def test_bounds_are_checked(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], bounds: list[float], message: str
) -> None:
    result = await graphql(
        client, auth, "query($b: [Float!]) { articleFacets { priceBands(bounds: $b) { count } } }", b=bounds
    )
    assert result["errors"][0]["message"] == message
    assert result["errors"][0]["extensions"]["code"] == "invalid_request"


def test_facets_cost_the_same_whatever_the_page_size() -> None:
    # A fixed cost: counted in the database, not per article (schema/limits/cost.py).
    document = parse(FACETS)
    operation = document.definitions[0]
    costs = {cost.CostModel(build_schema()._schema, page).cost(document, operation, {}) for page in (10, 1000, 100000)}  # type: ignore[arg-type]
    lists = 3 * (1 + LIST_SIZE * 2) + 2 * (1 + LIST_SIZE * 3)  # groups, classes, availability; two band lists
    assert costs == {1 + (1 + lists + 1)}  # articleFacets: total, the lists, withoutPrice
