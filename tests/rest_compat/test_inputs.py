"""Request bodies at the REST edge. Whole numbers: a value no GraphQL Int can carry is refused, naming the
body field (graphql-core used to answer with its own text about `$input` and an empty `info`). Lists that
name a request limit (Positionen, Zahlung): a longer one is refused before any of its entries is read."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from rest_compat.errors import ApiError
from rest_compat.inputs import In, InputShape
from schema.limits import RequestLimits
from tests.http import body, error

TOO_BIG = 2**31  # one past the largest GraphQL Int
RANGE = "must be a whole number from -2147483648 to 2147483647"
ORDER_POSITION = {"ArtNr": "A-000001", "Menge": 1}


@pytest.mark.parametrize(
    ("method", "path", "payload", "field"),
    [
        (
            "POST",
            "/www/auftrag",
            {"GrundDaten": {"KundNr": "100001", "StaoNr": TOO_BIG}, "Positionen": [ORDER_POSITION]},
            "GrundDaten.StaoNr",
        ),
        (
            "POST",
            "/www/auftrag",
            {"GrundDaten": {"KundNr": "100001"}, "Positionen": [{**ORDER_POSITION, "VisPosNr": -TOO_BIG - 1}]},
            "Positionen.0.VisPosNr",
        ),
        (
            "POST",
            "/www/offerte",
            {"Positionen": [ORDER_POSITION, {**ORDER_POSITION, "VisPosNr": 1e20}]},
            "Positionen.1.VisPosNr",
        ),
        (
            "PATCH",
            "/www/offerte?OffertNr=300001",
            {"Positionen": [{"PosNr": TOO_BIG, "Menge": 0}]},
            "Positionen.0.PosNr",
        ),
        (
            "POST",
            "/www/kunden",
            {"GrundDaten": {"WaehrAbk": "CHF", "FAKTZahlArt": "B", "KreditLimit": 10**12}},
            "GrundDaten.KreditLimit",
        ),
        ("PATCH", "/www/adressen/1", {"AdrAnrede": TOO_BIG}, "AdrAnrede"),
    ],
)
async def test_whole_numbers_beyond_a_graphql_int_are_refused_by_field(
    client: httpx.AsyncClient, auth: dict[str, str], method: str, path: str, payload: dict[str, Any], field: str
) -> None:
    response = await client.request(method, path, json=payload, headers=auth)

    assert response.status_code == 400
    assert body(response) == error("invalid_request", RANGE, field=field)


# --- lists bounded by a request limit ----------------------------------------------------------------

ITEMS = InputShape({"Nr": In("number", int)})
LISTS = InputShape({"Liste": In("items", shape=ITEMS, many=True, limit="payments")})


def test_a_list_longer_than_its_limit_is_refused_before_its_entries_are_read() -> None:
    limits = RequestLimits(payments=2)
    assert LISTS.to_graphql({"Liste": [{"Nr": 1}, {"Nr": 2}]}, limits) == {"items": [{"number": 1}, {"number": 2}]}

    with pytest.raises(ApiError) as raised:
        LISTS.to_graphql({"Liste": ["not even an object"] * 3}, limits)

    assert (raised.value.status_code, raised.value.body()) == (
        400,
        error("invalid_request", "Liste has at most 2 entries", field="Liste", limit=2),
    )


def test_a_bounded_list_needs_the_requests_limits() -> None:
    with pytest.raises(TypeError, match="Liste is bounded by the request's limits"):
        LISTS.to_graphql({"Liste": []})
    assert LISTS.to_graphql({}) == {}  # no list, nothing to bound


@pytest.mark.parametrize("entry", [{"limit": "position"}, {"limit": "positions", "many": False}])
def test_a_limit_must_name_a_request_limit_of_a_list(entry: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="does not name a limit of RequestLimits for a list"):
        In("items", shape=ITEMS, **{"many": True, **entry})
