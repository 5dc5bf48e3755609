"""GET /www/artikelmedia/{ArtNr} and GET /www/artikelmediadaten/{IDKey}?type=..."""

from __future__ import annotations

import io
from typing import Any

import httpx
import pytest
from PIL import Image

from tests.factories import Factory
from tests.http import body, error

BASE = "http://gateway.test"


def png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


def jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (30, 30, 200)).save(buffer, format="JPEG")
    return buffer.getvalue()


@pytest.fixture
async def media(factory: Factory) -> dict[str, int]:
    await factory.reference_data()
    article = await factory.article("M-1", group="GARTEN", attributes={"VERWENDUNG": "WEB"})
    image = await factory.media(article, "m1.png", image=png(), image_format="png", usage="SHOP", language="ger")
    both = await factory.media(
        article,
        "m1.jpg",
        image=jpeg(),
        image_format="jpg",
        text="Größe: 3 m² – «fein»",
        text_format="txt",
        country="CH",
        comment="Katalog",
    )
    text = await factory.media(article, "m1.html", text="<p>Säge</p>", text_format="html")
    hidden = await factory.article("M-2", exposed=False)
    secret = await factory.media(hidden, "m2.png", image=png(), image_format="png")
    return {"image": image.id, "both": both.id, "text": text.id, "hidden": secret.id}


def record(id_key: int, **fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "IDKey": id_key,
        "AMDBildFormat": None,
        "AMDTextFormat": None,
        "AMDVerwendung": "WEB",
        "AdrSprache": None,
        "OrtLand": None,
        "Modified_UTC": "2026-03-01T08:30:00Z",
        "ArtGruppe": "GARTEN",
        "ArtNr": "M-1",
        "AMDDateiName": None,
        "AMDText": None,
        "Kommentar": None,
    }
    entry |= fields
    entry["links"] = [
        {"href": f"{BASE}/www/artikelmediadaten/{id_key}", "type": "GET", "rel": "artikelmediadaten/"},
        {"href": f"{BASE}/www/artikel/M-1", "type": "GET", "rel": "artikel/"},
    ]
    return entry


async def test_media_records_of_an_article(
    client: httpx.AsyncClient, media: dict[str, int], auth: dict[str, str]
) -> None:
    response = await client.get("/www/artikelmedia/M-1", headers=auth)
    assert response.status_code == 200
    assert body(response) == {
        "data": [
            # The record's own usage wins; the others take the article's VERWENDUNG.
            record(
                media["image"],
                AMDBildFormat="png",
                AMDVerwendung="SHOP",
                AdrSprache="ger",
                AMDDateiName="m1.png",
            ),
            record(
                media["both"],
                AMDBildFormat="jpg",
                AMDTextFormat="txt",
                OrtLand="CH",
                AMDDateiName="m1.jpg",
                AMDText="Größe: 3 m² – «fein»",
                Kommentar="Katalog",
            ),
            record(media["text"], AMDTextFormat="html", AMDDateiName="m1.html", AMDText="<p>Säge</p>"),
        ]
    }


async def test_media_of_unknown_or_unexposed_article_is_404(
    client: httpx.AsyncClient, media: dict[str, int], auth: dict[str, str]
) -> None:
    for number in ("M-2", "NOPE"):
        response = await client.get(f"/www/artikelmedia/{number}", headers=auth)
        assert response.status_code == 404
        assert body(response) == error("not_found", "no such article", ArtNr=number)


@pytest.mark.parametrize(
    ("key", "kind", "content_type", "content"),
    [
        ("image", "Bild", "image/png", png),
        ("image", "", "image/png", png),
        ("image", "PNG", "image/png", png),
        ("both", "", "image/jpeg", jpeg),
        ("both", "jpg", "image/jpeg", jpeg),
        ("both", "Text", "text/plain; charset=utf-8", lambda: "Größe: 3 m² – «fein»".encode()),
        ("both", "txt", "text/plain; charset=utf-8", lambda: "Größe: 3 m² – «fein»".encode()),
        ("text", "", "text/html; charset=utf-8", lambda: "<p>Säge</p>".encode()),
        ("text", "html", "text/html; charset=utf-8", lambda: "<p>Säge</p>".encode()),
    ],
)
async def test_media_file_is_returned_with_its_content_type(
    client: httpx.AsyncClient,
    media: dict[str, int],
    auth: dict[str, str],
    key: str,
    kind: str,
    content_type: str,
    content: Any,
) -> None:
    response = await client.get(f"/www/artikelmediadaten/{media[key]}?type={kind}", headers=auth)
    assert response.status_code == 200
    assert response.headers["content-type"] == content_type
    assert response.content == content()
    if content_type.startswith("image/"):
        assert Image.open(io.BytesIO(response.content)).size == (4, 4)


@pytest.mark.parametrize(
    ("key", "kind", "status", "expected"),
    [
        (
            "image",
            "Text",
            404,
            error("not_found", "media record {id} has no file of type 'Text'", field="type"),
        ),
        (
            "text",
            "Bild",
            404,
            error("not_found", "media record {id} has no file of type 'Bild'", field="type"),
        ),
        (
            "image",
            "gif",
            404,
            error("not_found", "media record {id} has no file of type 'gif'", field="type"),
        ),
        ("hidden", "", 404, error("not_found", "media record {id} does not exist", field="IDKey")),
    ],
)
async def test_missing_media_files_are_404(
    client: httpx.AsyncClient,
    media: dict[str, int],
    auth: dict[str, str],
    key: str,
    kind: str,
    status: int,
    expected: dict[str, Any],
) -> None:
    response = await client.get(f"/www/artikelmediadaten/{media[key]}?type={kind}", headers=auth)
    assert response.status_code == status
    expected["error_description"] = expected["error_description"].format(id=media[key])
    assert body(response) == expected


@pytest.mark.parametrize("id_key", ["abc", "-1", "99999999999"])
async def test_media_key_must_be_a_number(
    client: httpx.AsyncClient, media: dict[str, int], auth: dict[str, str], id_key: str
) -> None:
    response = await client.get(f"/www/artikelmediadaten/{id_key}", headers=auth)
    assert response.status_code == 400
    assert body(response) == error("invalid_request", f"IDKey must be a whole number, not {id_key!r}", field="IDKey")
