"""Whole numbers in request bodies: a value no GraphQL Int can carry is refused at the REST edge, naming
the body field (graphql-core used to answer with its own text about `$input` and an empty `info`)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

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
