"""The catalogue's /www operations: the article list, one article, its media and their files (each with
its ETag, If-None-Match and 304: rest_compat/conditional.py), and the change feed."""

from __future__ import annotations

from typing import Any

from rest_compat import article_changes, articles, media
from rest_compat.openapi.parts import (
    CUSTOMER_NUMBER,
    IF_NONE_MATCH,
    LINKS,
    NOT_MODIFIED,
    READS,
    TEXT,
    WHOLE_NUMBER,
    WHOLE_NUMBER_OR_EMPTY,
    answer,
    code_query,
    column_text,
    envelope,
    fields_query,
    file_answer,
    list_query,
    path,
    query,
    responses,
    tagged,
)
from rest_compat.openapi.schemas import JsonSchema, Schemas
from schema.limits import RequestLimits

Paths = dict[str, dict[str, Any]]


def catalogue(schemas: Schemas) -> Paths:
    view = [
        code_query("waehrabk", "currency", "Currency of the prices, ISO 4217; default the leading one"),
        query(
            "debinr", CUSTOMER_NUMBER, "Customer number: the customer's price list and language (needs the shop scope)"
        ),
        code_query("adrsprache", "language", "Output language, ISO 639-2/B (ger, fre, ita, eng, ...); default ger"),
    ]
    sorts = list_query(
        "sorts",
        [f"{sign}{name}" for name in articles.SORTS for sign in ("", "+", "-")],
        most=RequestLimits().sort_keys,
        description=f"REST names, - for descending; default +ArtBez; sortable: {', '.join(articles.SORTS)}",
    )
    article_list = schemas.output(articles.ARTICLE, "Article", every_field=False)
    article = schemas.output(articles.SINGLE_ARTICLE, "Article", every_field=False)
    media_record = schemas.output(media.MEDIA, "Media", every_field=False)
    number = path("ArtNr", column_text("Article", "number"), "ArtNr")
    return {
        "/www/artikel": {
            "get": {
                "summary": "Exposed articles (ArtikelListe)",
                "description": (
                    f"A list longer than {articles.PAGE} articles (limit=0 on a larger catalogue) is sent as it "
                    "is read, with chunked transfer encoding (HTTP/1.0: one body with its Content-Length): a "
                    "part that fails after the 200 went out cuts the answer off, incomplete."
                ),
                "parameters": [
                    *view,
                    query("limit", WHOLE_NUMBER_OR_EMPTY, "Articles per page; 0 = all (default)"),
                    query("offset", WHOLE_NUMBER_OR_EMPTY, "Start at article N; default 0"),
                    fields_query(articles.ARTICLE),
                    sorts,
                    IF_NONE_MATCH,
                ],
                "responses": responses(
                    {
                        200: tagged(answer("A page", envelope({"type": "array", "items": article_list}, links=LINKS))),
                        304: NOT_MODIFIED,
                    },
                    READS,
                ),
            }
        },
        "/www/artikelaenderungen": _article_changes(view, article_list),
        "/www/artikel/{ArtNr}": {
            "get": {
                "summary": "One exposed article (Artikel)",
                "parameters": [number, *view, fields_query(articles.SINGLE_ARTICLE), IF_NONE_MATCH],
                "responses": responses(
                    {200: tagged(answer("The article", envelope(article))), 304: NOT_MODIFIED}, READS
                ),
            }
        },
        "/www/artikelmedia/{ArtNr}": {
            "get": {
                "summary": "The media records of an article (ArtikelMedia)",
                "parameters": [number, fields_query(media.MEDIA), IF_NONE_MATCH],
                "responses": responses(
                    {
                        200: tagged(answer("Its media records", envelope({"type": "array", "items": media_record}))),
                        304: NOT_MODIFIED,
                    },
                    READS,
                ),
            }
        },
        "/www/artikelmediadaten/{IDKey}": {
            "get": {
                "summary": "A media file itself (ArtikelMediaDaten), with its MIME type",
                "parameters": [
                    path("IDKey", WHOLE_NUMBER, "IDKey"),
                    query(
                        "type",
                        column_text("Media", "imageFormat"),
                        "Bild, Text, or one of the record's formats; default the image, else the text",
                    ),
                    IF_NONE_MATCH,
                ],
                "responses": responses(
                    {200: tagged(file_answer("The file", "image/*", "text/*")), 304: NOT_MODIFIED}, READS
                ),
            }
        },
    }


def _article_changes(view: list[JsonSchema], article: JsonSchema) -> dict[str, Any]:
    cursor = {"type": "string", "pattern": "^[A-Za-z0-9_-]+$"}
    changes = {
        "type": "object",
        "properties": {
            "Cursor": cursor,
            "MehrVorhanden": {"type": "boolean"},
            "Artikel": {"type": "array", "items": article},
            "Entfernt": {"type": "array", "items": {"type": "string", "maxLength": 15}},
        },
        "required": ["Cursor", "MehrVorhanden", "Artikel", "Entfernt"],
    }
    return {
        "get": {
            "summary": "The catalogue's changes after a cursor (beyond the specification)",
            "description": (
                "Without seit: the current Cursor and empty lists (take it, then read the whole list). With "
                "the Cursor of the previous answer: the exposed articles changed after it, as GET /www/artikel "
                "gives them, the ArtNr of those removed (deleted or no longer exposed), and the Cursor to ask "
                "with next; MehrVorhanden: ask again at once. Every change is listed once, including what the "
                "ERP writes itself. A cursor older than GATEWAY_CHANGES_RETENTION answers 410 gone."
            ),
            "parameters": [
                query("seit", {**TEXT, "maxLength": article_changes.MAX_CURSOR}, "The Cursor of the previous answer"),
                query("limit", WHOLE_NUMBER_OR_EMPTY, "Changes per answer, up to 1000; 0 = 100 (default)"),
                *view,
                fields_query(articles.ARTICLE),
            ],
            "responses": responses({200: answer("The changes", envelope(changes, counted=True))}, (*READS, 410)),
        }
    }
