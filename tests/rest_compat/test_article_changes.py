"""GET /www/artikelaenderungen and GraphQL's catalogueChanges: a shop follows the ERP's own writes (plain SQL
on the ERP's connection) and gets exactly the articles that changed, as GET /www/artikel gives them, and the
ArtNr of those removed."""

# The ERP's SQL, made of the test's own ids.
# ruff: noqa: S608

from __future__ import annotations

import base64
from typing import Any

import httpx

from datasources.database import Database
from tests.catalogue_data import Catalogue
from tests.erp import erp
from tests.http import body

FEED = "/www/artikelaenderungen"


async def follow(client: httpx.AsyncClient, auth: dict[str, str], cursor: str, **params: Any) -> dict[str, Any]:
    """Every change after `cursor`, the feed followed while MehrVorhanden: {"Artikel", "Entfernt", "Cursor"}."""
    found: dict[str, Any] = {"Artikel": [], "Entfernt": []}
    while True:
        response = await client.get(FEED, params={"seit": cursor, **params}, headers=auth)
        answer = body(response)
        assert answer["success"] is True
        assert answer["count"] == len(answer["data"]["Artikel"]) + len(answer["data"]["Entfernt"])
        found["Artikel"] += answer["data"]["Artikel"]
        found["Entfernt"] += answer["data"]["Entfernt"]
        cursor = found["Cursor"] = answer["data"]["Cursor"]
        if not answer["data"]["MehrVorhanden"]:
            return found


def refused(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    answer: dict[str, Any] = body(response)
    assert answer["success"] is False
    return answer


async def start(client: httpx.AsyncClient, auth: dict[str, str]) -> str:
    answer = body(await client.get(FEED, headers=auth))
    assert answer["data"]["Artikel"] == answer["data"]["Entfernt"] == []
    assert answer["data"]["MehrVorhanden"] is False
    cursor: str = answer["data"]["Cursor"]
    assert cursor == base64.urlsafe_b64encode(base64.urlsafe_b64decode(cursor + "==")).decode().rstrip("=")
    return cursor


async def test_the_feed_lists_the_erps_changes_as_the_article_list_does(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    cursor = await start(client, auth)
    # Nothing yet. (The cursor that comes back may differ: it is stamped with the time of the read, and on
    # PostgreSQL with the snapshot, which other databases' commits on the same server move.)
    nothing = await follow(client, auth, cursor)
    assert (nothing["Artikel"], nothing["Entfernt"]) == ([], [])

    await erp(db, f"UPDATE price SET amount = 12.90 WHERE article_id = {catalogue.hammer.id} AND min_quantity = 1")
    await erp(db, f"UPDATE article_designation SET text = 'Zange' WHERE article_id = {catalogue.pliers.id}")
    await erp(db, f"UPDATE article SET colour = 'rot' WHERE id = {catalogue.hidden.id}")  # not the shop's
    await erp(db, f"DELETE FROM article_attribute WHERE key = 'RESTWEBSHOP' AND article_id = {catalogue.drill.id}")
    changes = await follow(client, auth, cursor, fields="ArtNr,ArtBez,Preis", limit="1")
    assert [article["ArtNr"] for article in changes["Artikel"]] == ["A-100", "A-300"]
    assert changes["Entfernt"] == ["A-500"]
    # The same records as the article list gives, with the same fields.
    listed = body(await client.get("/www/artikel", params={"fields": "ArtNr,ArtBez,Preis"}, headers=auth))["data"]
    by_number = {article["ArtNr"]: article for article in listed}
    assert changes["Artikel"] == [by_number["A-100"], by_number["A-300"]]
    assert by_number["A-100"]["Preis"][0]["PreisList"] == 12.9

    # Read through: nothing more, until the next write; nothing is listed twice.
    again = await follow(client, auth, changes["Cursor"])
    assert (again["Artikel"], again["Entfernt"]) == ([], [])
    await erp(db, f"DELETE FROM article WHERE id = {catalogue.screws.id}")
    later = await follow(client, auth, again["Cursor"], adrsprache="fre")
    assert (later["Artikel"], later["Entfernt"]) == ([], ["A-200"])


async def test_the_view_parameters_shape_the_articles(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    cursor = await start(client, auth)
    await erp(db, f"UPDATE article SET status = 2 WHERE id = {catalogue.hammer.id}")
    changes = await follow(client, auth, cursor, fields="ArtNr,ArtBez,WaehrAbk", adrsprache="fre", waehrabk="EUR")
    assert changes["Artikel"] == [{"ArtNr": "A-100", "ArtBez": "Marteau", "WaehrAbk": "EUR"}]


async def test_bad_cursors_and_limits_are_refused(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    assert refused(await client.get(FEED, params={"seit": "kein-cursor"}, headers=auth), 400)["info"]["field"] == "seit"
    cursor = await start(client, auth)
    for limit in ("1001",):
        answer = refused(await client.get(FEED, params={"seit": cursor, "limit": limit}, headers=auth), 400)
        assert answer["info"]["field"] == "limit"
    assert refused(await client.get(FEED, params={"fields": "Unbekannt"}, headers=auth), 400)["error"] == (
        "invalid_request"
    )


async def test_a_cursor_older_than_the_retention_answers_410(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue
) -> None:
    cursor = await start(client, auth)
    version, position, article, started, since, until = base64.urlsafe_b64decode(cursor + "==").decode().split("|")
    old = "|".join((version, position, article, str(int(started) - 31 * 24 * 3600), since, until))
    stale = base64.urlsafe_b64encode(old.encode()).decode().rstrip("=")
    answer = refused(await client.get(FEED, params={"seit": stale}, headers=auth), 410)
    assert answer["error"] == "gone"


async def test_graphql_gives_the_same_changes(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    query = (
        'query($since: String) { catalogueChanges(since: $since, language: "ita") '
        "{ cursor hasMore removed changed { number designation } } }"
    )

    async def changes(since: str | None) -> dict[str, Any]:
        response = await client.post("/graphql", json={"query": query, "variables": {"since": since}}, headers=auth)
        result: dict[str, Any] = response.json()["data"]["catalogueChanges"]
        return result

    first = await changes(None)
    assert (first["changed"], first["removed"], first["hasMore"]) == ([], [], False)
    await erp(db, f"INSERT INTO media (article_id, file_name, modified_at) VALUES ({catalogue.hammer.id}, 'a.jpg', "
                  "CURRENT_TIMESTAMP)")  # fmt: skip
    await erp(db, f"INSERT INTO article_designation (article_id, language, text) VALUES ({catalogue.pliers.id}, "
                  "'ita', 'Pinza')")  # fmt: skip
    after = await changes(first["cursor"])
    assert after["changed"] == [
        {"number": "A-100", "designation": "Martello"},
        {"number": "A-300", "designation": "Pinza"},
    ]
    assert (after["removed"], after["hasMore"]) == ([], False)
