"""articleStatistics over the hand-known catalogue (tests/catalogue_data.py)."""

from __future__ import annotations

import httpx

from tests.catalogue_data import Catalogue
from tests.schema.test_catalogue_queries import graphql

STATISTICS = (
    "query($groupBy: StatisticsGrouping, $filter: ArticleFilterInput, $customer: String) {"
    " articleStatistics(groupBy: $groupBy, filter: $filter, customerNumber: $customer) {"
    " value count minPrice maxPrice avgPrice stock withoutPrice withoutStock } }"
)


def bucket(
    value: str | None, count: int, prices: tuple[float | None, ...], stock: float, without: tuple[int, int]
) -> dict[str, object]:
    low, high, mean = prices
    return {
        "value": value,
        "count": count,
        "minPrice": low,
        "maxPrice": high,
        "avgPrice": mean,
        "stock": stock,
        "withoutPrice": without[0],
        "withoutStock": without[1],
    }


async def test_statistics_per_group(client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]) -> None:
    result = await graphql(client, auth, STATISTICS, groupBy="GROUP")
    # Stock after reservations in released warehouses: the hammer 7 + -3, the drill 0; the screws 50 STK and
    # 3 KAR of 12; the dowel none. Only the hammer has a base-unit price in STD (9.90).
    assert result == {
        "data": {
            "articleStatistics": [
                bucket("WERKZEUG", 3, (9.9, 9.9, 9.9), 4.0, (2, 2)),
                bucket(None, 1, (None, None, None), 0.0, (1, 1)),
                bucket("BEFESTIG", 1, (None, None, None), 86.0, (1, 0)),
            ]
        }
    }


async def test_statistics_of_all_in_a_customers_view(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    result = await graphql(client, auth, STATISTICS, customer="100001", filter={"group": "WERKZEUG"})
    # The reseller's list first: the hammer at 10.00, the drill at 30.00.
    assert result == {"data": {"articleStatistics": [bucket(None, 3, (10.0, 30.0, 20.0), 4.0, (1, 2))]}}
    nothing = await graphql(client, auth, STATISTICS, filter={"group": "NONE"})
    assert nothing == {"data": {"articleStatistics": []}}
