"""Bounded work per request: sort keys, `fields` entries, path numbers, path and query lengths, each
refused with the JSON error body before any work (no statement runs)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.http import body, error, statement_count

pytestmark = pytest.mark.usefixtures("catalogue")


async def refused(client: httpx.AsyncClient, url: str, auth: dict[str, str]) -> dict[str, Any]:
    response = await client.get(url, headers=auth)
    assert response.status_code == 400, response.text
    assert statement_count(response) == 0
    data: dict[str, Any] = body(response)
    return data


async def test_at_most_ten_sort_keys(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    ten = ",".join(["+ArtNr"] * 10)
    assert (await client.get(f"/www/artikel?sorts={ten}&limit=1", headers=auth)).status_code == 200

    data = await refused(client, f"/www/artikel?sorts={ten},-ArtBez", auth)

    assert data == error("invalid_request", "sorts has at most 10 entries", field="sorts", limit=10)


async def test_two_thousand_graphql_sort_keys_are_refused(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    query = "query($sort: [ArticleSortInput!]) { articles(sort: $sort) { totalCount } }"
    variables = {"sort": [{"field": "NUMBER"}] * 2000}  # SQLite refuses ORDER BY past 2,000 terms
    response = await client.post("/graphql", json={"query": query, "variables": variables}, headers=auth)

    [problem] = response.json()["errors"]
    assert problem["message"] == "at most 10 sort keys"
    assert problem["extensions"] == {"code": "invalid_request", "field": "sort", "info": {"limit": 10, "field": "sort"}}
    assert statement_count(response) == 0


async def test_at_most_a_hundred_fields_entries(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    data = await refused(client, "/www/artikel?fields=" + ",".join(["ArtNr"] * 101), auth)

    assert data == error("invalid_request", "fields has at most 100 entries", field="fields", limit=100)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("%C2%B2", "\u00b2"),  # superscript two: isdigit() says yes, int() says no
        ("%EF%BC%91", "\uff11"),  # a full-width one: int() would read 1
        ("9" * 2000, "9" * 37 + "..."),
        ("2147483648", "2147483648"),
        ("-1", "-1"),
    ],
)
async def test_path_numbers_are_ascii_digits_within_range(
    client: httpx.AsyncClient, auth: dict[str, str], raw: str, shown: str
) -> None:
    data = await refused(client, f"/www/artikelmediadaten/{raw}", auth)

    assert data == error("invalid_request", f"IDKey must be a whole number, not {shown!r}", field="IDKey")


async def test_a_path_over_its_limit_is_refused_before_routing(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    data = await refused(client, "/www/artikel/" + "A" * 2100, auth)

    assert data == error("invalid_request", "the path is longer than 2048 bytes", field="path", limit=2048)


async def test_a_query_string_over_its_limit_is_refused(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    data = await refused(client, "/www/artikel?fields=" + "A" * 9000, auth)

    assert data == error("invalid_request", "the query string is longer than 8192 bytes", field="query", limit=8192)


@pytest.mark.parametrize("raw", ["%C2%B2", "%EF%BC%91", "9" * 2000, "2147483648"])
async def test_address_numbers_are_ascii_digits_within_range(
    client: httpx.AsyncClient, auth: dict[str, str], raw: str
) -> None:
    data = await refused(client, f"/www/adressen/{raw}", auth)

    assert data["info"] == {"field": "AdrNr"}
    assert data["error_description"].startswith("AdrNr must be a whole number, not ")


@pytest.mark.parametrize("path", ["/www/auftrag/{}", "/www/kunden/{}", "/www/artikel/{}"])
async def test_a_not_found_answer_repeats_a_long_number_cut_short(
    client: httpx.AsyncClient, auth: dict[str, str], path: str
) -> None:
    response = await client.get(path.format("7" * 1_000), headers=auth)
    assert response.status_code == 404
    (echoed,) = body(response)["info"].values()
    assert echoed == "7" * 37 + "..."
