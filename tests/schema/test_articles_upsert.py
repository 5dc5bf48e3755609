"""GraphQL's articlesUpsert: an ERP pushes article records over HTTP, checked and written as `gateway import`
writes a file's (datasources/exchange), in one transaction; the REST answers show them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from schema.limits import RequestLimits
from tests.catalogue_data import Catalogue
from tests.http import body

UPSERT = (
    "mutation($records: [JSON!]!, $dryRun: Boolean! = false, $partial: Boolean! = false) {"
    " articlesUpsert(records: $records, dryRun: $dryRun, partial: $partial) {"
    " new changed unchanged rejected committed rejections { record problems { field expected } } } }"
)
NEW = {"ArtNr": "N-1", "ArtBez": {"ger": "Neu", "fre": "Nouveau"}, "Preis": {"STD": {"CHF": [{"PreisList": 9.9}]}}}
BAD = {"ArtNr": "N-2", "ArtGewicht": "schwer"}


async def upsert(client: httpx.AsyncClient, headers: dict[str, str], records: list[Any], **options: bool) -> Any:
    response = await client.post(
        "/graphql", json={"query": UPSERT, "variables": {"records": records, **options}}, headers=headers
    )
    assert response.status_code == 200, response.text
    return response.json()


async def article(client: httpx.AsyncClient, auth: dict[str, str], number: str) -> httpx.Response:
    return await client.get(f"/www/artikel/{number}", params={"fields": "ArtNr,ArtBez,GeaendertAmUTC"}, headers=auth)


async def test_records_create_and_change_articles_and_an_equal_record_writes_nothing(
    client: httpx.AsyncClient,
    catalogue: Catalogue,
    auth: dict[str, str],
    token_for: Callable[..., dict[str, str]],
) -> None:
    admin = token_for("admin")
    result = (await upsert(client, admin, [NEW]))["data"]["articlesUpsert"]
    assert result == {"new": 1, "changed": 0, "unchanged": 0, "rejected": 0, "committed": True, "rejections": []}
    created = body(await article(client, auth, "N-1"))["data"]
    assert created["ArtBez"] == "Neu"

    again = (await upsert(client, admin, [NEW]))["data"]["articlesUpsert"]
    assert (again["new"], again["changed"], again["unchanged"]) == (0, 0, 1)
    assert body(await article(client, auth, "N-1"))["data"]["GeaendertAmUTC"] == created["GeaendertAmUTC"]

    renamed = {**NEW, "ArtBez": {"ger": "Umbenannt"}}
    assert (await upsert(client, admin, [renamed]))["data"]["articlesUpsert"]["changed"] == 1
    assert body(await article(client, auth, "N-1"))["data"]["ArtBez"] == "Umbenannt"


async def test_a_bad_record_changes_nothing_unless_partial(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str], token_for: Callable[..., dict[str, str]]
) -> None:
    admin = token_for("admin")
    refused = (await upsert(client, admin, [NEW, BAD]))["data"]["articlesUpsert"]
    assert (refused["new"], refused["rejected"], refused["committed"]) == (1, 1, False)
    assert refused["rejections"] == [
        {"record": 2, "problems": [{"field": "ArtGewicht", "expected": "a number or null"}]}
    ]
    assert (await article(client, auth, "N-1")).status_code == 404

    dry = (await upsert(client, admin, [NEW], dryRun=True))["data"]["articlesUpsert"]
    assert (dry["new"], dry["committed"]) == (1, False)
    assert (await article(client, auth, "N-1")).status_code == 404

    partial = (await upsert(client, admin, [NEW, BAD], partial=True))["data"]["articlesUpsert"]
    assert (partial["new"], partial["rejected"], partial["committed"]) == (1, 1, True)
    assert (await article(client, auth, "N-1")).status_code == 200


async def test_no_server_file_is_read_and_the_records_are_bounded(
    client: httpx.AsyncClient, catalogue: Catalogue, token_for: Callable[..., dict[str, str]]
) -> None:
    admin = token_for("admin")
    media = {**NEW, "Media": [{"AMDDateiName": "passwd.png", "Bild": {"Pfad": "/etc/passwd"}}]}
    refused = (await upsert(client, admin, [media]))["data"]["articlesUpsert"]
    assert refused["committed"] is False
    assert refused["rejections"][0]["problems"][0]["field"] == "Media[0].Bild"
    assert "no file is read" in refused["rejections"][0]["problems"][0]["expected"]

    limit = RequestLimits().upsert_records
    too_many = await upsert(client, admin, [{"ArtNr": f"M-{n}"} for n in range(limit + 1)])
    assert too_many["data"] is None
    assert too_many["errors"][0]["message"] == f"at most {limit} article records"
    assert too_many["errors"][0]["extensions"]["code"] == "invalid_request"


async def test_only_the_admin_scope_upserts(
    client: httpx.AsyncClient, catalogue: Catalogue, token_for: Callable[..., dict[str, str]]
) -> None:
    for scope in ("shop", "catalogue"):
        answer = await upsert(client, token_for(scope), [NEW])
        assert answer["data"] is None
        assert answer["errors"][0]["extensions"]["code"] == "insufficient_scope"
