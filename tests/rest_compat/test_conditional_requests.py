"""Conditional GETs of the catalogue (RFC 9110): every answer of GET /www/artikel, /www/artikel/{ArtNr},
/www/artikelmedia/{ArtNr} and /www/artikelmediadaten/{IDKey} carries a strong ETag, and If-None-Match with it
answers 304 while what the answer holds is unchanged. The ERP writes as it does, with plain SQL on its own
connection: a list's tag moves when an article enters, leaves or changes within it, not when another one
changes; an article's only when it changes."""

# The ERP's SQL, made of the test's own ids.
# ruff: noqa: S608

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
import pytest

from datasources.database import Database
from tests.catalogue_data import Catalogue
from tests.erp import erp
from tests.http import body

# The default order is ArtBez: Bohrer, Dübel, Hammer, Schrauben, Zange.
PAGE = "/www/artikel?limit=2"
STRONG = re.compile(r'"[0-9a-f]{32}"')


async def tag_of(client: httpx.AsyncClient, path: str, auth: dict[str, str]) -> str:
    response = await client.get(path, headers=auth)
    assert response.status_code == 200, response.text
    tag = response.headers["etag"]
    assert STRONG.fullmatch(tag), tag
    assert "Accept-Encoding" in response.headers["vary"]
    return tag


async def conditional(client: httpx.AsyncClient, path: str, auth: dict[str, str], held: str) -> httpx.Response:
    return await client.get(path, headers={**auth, "If-None-Match": held})


async def unchanged(client: httpx.AsyncClient, path: str, auth: dict[str, str], held: str) -> None:
    response = await conditional(client, path, auth, held)
    assert response.status_code == 304, response.text
    assert response.content == b""
    # As on the 200: the tag, Cache-Control and Vary; nothing about a body.
    assert response.headers["etag"] == held
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["vary"] == "Accept-Encoding"
    assert "content-type" not in response.headers


async def changed(client: httpx.AsyncClient, path: str, auth: dict[str, str], held: str) -> str:
    """The new tag of an answer that changed since `held`: a whole 200 with it."""
    response = await conditional(client, path, auth, held)
    assert response.status_code == 200, response.text
    assert body(response)["data"] is not None
    assert response.headers["etag"] != held
    return response.headers["etag"]


async def test_a_page_keeps_its_tag_until_an_article_enters_leaves_or_changes_within_it(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    held = await tag_of(client, PAGE, auth)
    assert [a["ArtNr"] for a in body(await client.get(PAGE, headers=auth))["data"]] == ["A-500", "A-600"]
    await unchanged(client, PAGE, auth, held)

    # Articles after the page change: its tag stays.
    await erp(db, f"UPDATE price SET amount = 12.90 WHERE article_id = {catalogue.hammer.id}")
    await erp(db, f"UPDATE article SET colour = 'rot' WHERE id = {catalogue.pliers.id}")
    await erp(db, f"UPDATE article SET colour = 'blau' WHERE id = {catalogue.hidden.id}")  # not exposed
    await unchanged(client, PAGE, auth, held)

    # An article within it changes: a stock entry of the drill's.
    await erp(db, f"UPDATE stock SET on_hand = 3 WHERE article_id = {catalogue.drill.id}")
    held = await changed(client, PAGE, auth, held)
    await unchanged(client, PAGE, auth, held)

    # An article enters (the pliers renamed to the front), then leaves again (no longer exposed).
    await erp(db, f"UPDATE article_designation SET text = 'Abisolierzange' WHERE article_id = {catalogue.pliers.id}")
    held = await changed(client, PAGE, auth, held)
    assert [a["ArtNr"] for a in body(await client.get(PAGE, headers=auth))["data"]] == ["A-300", "A-500"]
    await erp(db, f"DELETE FROM article_attribute WHERE key = 'RESTWEBSHOP' AND article_id = {catalogue.pliers.id}")
    held = await changed(client, PAGE, auth, held)
    await unchanged(client, PAGE, auth, held)


async def test_the_last_page_changes_its_tag_when_an_article_follows_it(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    """Whether more follow is part of a page: its `next` link."""
    last = "/www/artikel?limit=2&offset=3"
    held = await tag_of(client, last, auth)
    assert [link["rel"] for link in body(await client.get(last, headers=auth))["links"]] == ["prev", "start"]
    await erp(db, f"INSERT INTO article_attribute (article_id, key, contents) VALUES ({catalogue.hidden.id}, "
                  "'RESTWEBSHOP', '')")  # fmt: skip
    await changed(client, last, auth, held)
    assert "next" in [link["rel"] for link in body(await client.get(last, headers=auth))["links"]]


async def test_an_article_keeps_its_tag_until_it_changes(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    path = "/www/artikel/A-100"
    held = await tag_of(client, path, auth)
    await unchanged(client, path, auth, held)
    await erp(db, f"UPDATE price SET amount = 1 WHERE article_id = {catalogue.drill.id}")
    await unchanged(client, path, auth, held)
    for change in (
        f"UPDATE reservation SET quantity = 0 WHERE article_id = {catalogue.hammer.id}",
        f"UPDATE declaration SET country = 'DE' WHERE article_id = {catalogue.hammer.id}",
        "UPDATE tax_code SET rate = 8.1 WHERE code = 'R26'",
    ):
        await erp(db, change)
        held = await changed(client, path, auth, held)
        await unchanged(client, path, auth, held)


async def test_if_none_match_lists_weak_tags_and_star(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue
) -> None:
    path = "/www/artikel/A-100?fields=ArtNr,Preis"
    held = await tag_of(client, path, auth)
    for header in (f'"other", W/{held}', f'"x,y", {held}', "*", f'W/"other",{held}'):
        response = await conditional(client, path, auth, header)
        assert response.status_code == 304, header
        assert response.headers["etag"] == held
    for header in ('"other"', held.strip('"'), f"W/{held[:-2]}"):
        assert (await conditional(client, path, auth, header)).status_code == 200, header
    # Read within a bound, as every input.
    for long_path in (path, "/www/artikel", "/www/artikelmediadaten/1"):
        too_long = await conditional(client, long_path, auth, f'"x", {held}' + ', "y"' * 2000)
        assert too_long.status_code == 400, long_path
        assert body(too_long)["info"] == {"field": "If-None-Match", "limit": 8192}
    # HEAD as GET.
    head = await client.head(path, headers={**auth, "If-None-Match": held})
    assert (head.status_code, head.headers["etag"]) == (304, held)
    # No article: no tag, and If-None-Match changes nothing.
    missing = await conditional(client, "/www/artikel/A-999", auth, "*")
    assert missing.status_code == 404
    assert "etag" not in missing.headers


async def test_tags_name_every_parameter_and_view(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    paths = [
        "/www/artikel/A-100",
        "/www/artikel/A-100?fields=ArtNr",
        "/www/artikel/A-100?adrsprache=fre",
        "/www/artikel/A-100?waehrabk=EUR",
        "/www/artikel/A-100?debinr=100001",
        "/www/artikel/A-100?debinr=100003",
        "/www/artikel",
        "/www/artikel?limit=2",
        "/www/artikel?limit=2&sorts=-ArtNr",
        "/www/artikel?limit=2&offset=1",
        "/www/artikelmedia/A-100",
    ]
    tags = [await tag_of(client, path, auth) for path in paths]
    assert len(set(tags)) == len(paths)
    # A gzip-compressed answer is other bytes: another strong tag.
    compressed = await client.get("/www/artikel", headers={**auth, "Accept-Encoding": "gzip"})
    identity = await client.get("/www/artikel", headers={**auth, "Accept-Encoding": "identity"})
    assert compressed.headers["etag"] != identity.headers["etag"]
    assert (await conditional(client, "/www/artikel", auth, identity.headers["etag"])).status_code == 200


async def test_the_view_beside_the_articles_moves_the_tags(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    """A customer's language and price list type, and the leading currency, move no article: they are read
    with the positions."""
    for_customer = "/www/artikel/A-100?debinr=100001"
    page = "/www/artikel?limit=2&debinr=100001"
    held, held_page = await tag_of(client, for_customer, auth), await tag_of(client, page, auth)
    await erp(db, "UPDATE customer SET language = 'ita' WHERE number = '100001'")
    assert body(await client.get(for_customer, headers=auth))["data"]["ArtBez"] == "Martello"
    held = await changed(client, for_customer, auth, held)
    held_page = await changed(client, page, auth, held_page)
    await erp(db, "UPDATE customer SET price_list_type = NULL WHERE number = '100001'")
    held = await changed(client, for_customer, auth, held)
    await unchanged(client, for_customer, auth, held)

    plain = "/www/artikel/A-100"
    held = await tag_of(client, plain, auth)
    await erp(db, "UPDATE currency SET is_leading = (code = 'EUR')")
    assert body(await client.get(plain, headers=auth))["data"]["WaehrAbk"] == "EUR"
    await changed(client, plain, auth, held)
    # A customer deleted: the answer is 404 again, not 304.
    await erp(db, "DELETE FROM customer WHERE number = '100001'")
    assert (await conditional(client, page, auth, held_page)).status_code == 404


async def test_the_whole_list_has_a_tag_too(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    for path in ("/www/artikel", "/www/artikel?limit=0&fields=ArtNr", "/www/artikel?limit=5000"):
        held = await tag_of(client, path, auth)
        await unchanged(client, path, auth, held)
    await erp(db, f"UPDATE article SET colour = 'rot' WHERE id = {catalogue.pliers.id}")
    await changed(client, path, auth, held)


async def test_media_lists_and_files_answer_304_until_their_article_changes(
    client: httpx.AsyncClient, auth: dict[str, str], catalogue: Catalogue, db: Database
) -> None:
    await erp(
        db,
        f"INSERT INTO media (id, article_id, file_name, text, text_format, modified_at) VALUES "
        f"(71, {catalogue.hammer.id}, 'hammer.txt', 'Ein Hammer', 'txt', CURRENT_TIMESTAMP)",
    )
    listing, file = "/www/artikelmedia/A-100", "/www/artikelmediadaten/71"
    held_list = await tag_of(client, listing, auth)
    response = await client.get(file, headers=auth)
    assert response.content == b"Ein Hammer"
    held_file = response.headers["etag"]
    await unchanged(client, listing, auth, held_list)
    file_304 = await conditional(client, file, auth, held_file)
    assert (file_304.status_code, file_304.content, file_304.headers["etag"]) == (304, b"", held_file)
    await erp(db, f"UPDATE price SET amount = 1 WHERE article_id = {catalogue.drill.id}")
    await unchanged(client, listing, auth, held_list)

    await erp(db, "UPDATE media SET text = 'Ein Hammer aus Stahl' WHERE id = 71")
    await changed(client, listing, auth, held_list)
    response = await conditional(client, file, auth, held_file)
    assert (response.status_code, response.content) == (200, b"Ein Hammer aus Stahl")
    assert response.headers["etag"] != held_file
    # Another file of the record (type=Text) is other bytes: another tag.
    assert (await client.get(f"{file}?type=Text", headers=auth)).headers["etag"] != response.headers["etag"]
    assert (await conditional(client, "/www/artikelmediadaten/72", auth, "*")).status_code == 404


@pytest.mark.parametrize("path", ["/www/artikel?limit=2&debinr=100001", "/www/artikel/A-100?debinr=100001"])
async def test_a_304_needs_what_the_answer_needs(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    token_for: Callable[..., dict[str, str]],
    catalogue: Catalogue,
    path: str,
) -> None:
    held = await tag_of(client, path, auth)
    assert (await client.get(path, headers={"If-None-Match": held})).status_code == 401
    # A customer's prices are shop data: the catalogue scope gets no 304 for them.
    response = await client.get(path, headers={**token_for("catalogue"), "If-None-Match": held})
    assert response.status_code == 403
