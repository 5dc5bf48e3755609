"""GET /www/artikelmedia/{ArtNr} (ArtikelMedia) and GET /www/artikelmediadaten/{IDKey} (the file)."""

from __future__ import annotations

import base64
from functools import lru_cache
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from rest_compat.conditional import request_tag, tagged, unchanged
from rest_compat.errors import ApiError
from rest_compat.execution import base_url, run_operation
from rest_compat.links import article_href, link
from rest_compat.params import QueryParams, path_number
from rest_compat.responses import JsonResponse
from rest_compat.shapes import Field, Link, Links, Shape


def _media_links(base: str, media_id: int, article_number: str) -> list[Link]:
    return [
        link(f"{base}/www/artikelmediadaten/{media_id}", "artikelmediadaten/"),
        link(article_href(base, article_number), "artikel/"),
    ]


MEDIA = Shape(
    {
        "IDKey": Field("id"),
        "AMDBildFormat": Field("imageFormat"),
        "AMDTextFormat": Field("textFormat"),
        "AMDVerwendung": Field("usage"),
        "AdrSprache": Field("language"),
        "OrtLand": Field("country"),
        "Modified_UTC": Field("modifiedAt"),
        "ArtGruppe": Field("articleGroup"),
        "ArtNr": Field("articleNumber"),
        "AMDDateiName": Field("fileName"),
        "AMDText": Field("text"),
        "Kommentar": Field("comment"),
        "links": Links(("id", "articleNumber"), _media_links),
    }
)

# Types a browser renders as a document that may run scripts. Such a file of the ERP's, opened from its
# link, is sandboxed (no scripts, an origin of its own), so it cannot act as a page of the gateway's origin.
ACTIVE_TYPES = frozenset({"text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/xml"})

# The GraphQL fields of the types these shapes show that REST leaves out, and why: every other field of those
# types must be in a shape (tests/rest_compat/test_field_coverage.py), so a new field is a decision.
GRAPHQL_ONLY = {"Media": {"hasImage": "GET /www/artikelmediadaten/{IDKey} serves the file; AMDBildFormat tells"}}

CONTENT_DOCUMENT = (
    "query MediaContent($id: Int!, $kind: String) "
    "{ mediaContent(id: $id, kind: $kind) { fileName contentType content version } }"
)
# The versions of the answers (schema/catalogue/versions.py), for If-None-Match: the media records' are
# their article's.
LIST_VERSION = "query ArticleMediaVersion($number: String!) { articleVersion(number: $number) }"
CONTENT_VERSION = "query MediaContentVersion($id: Int!, $kind: String) { mediaContentVersion(id: $id, kind: $kind) }"
VERSION = "_version"  # the article's version, under this hidden key


@lru_cache(maxsize=64)
def list_operation(fields: tuple[str, ...] | None) -> tuple[Shape, str]:
    shape = MEDIA.select(fields)
    selection = f"article(number: $number) {{ {VERSION}: version media {shape.selection()} }}"
    return shape, f"query ArticleMedia($number: String!) {{ {selection} }}"


async def media_list(request: Request) -> Response:
    shape, document = list_operation(QueryParams(request).names("fields"))
    number = request.path_params["ArtNr"]
    base = base_url(request)
    if (answer := await unchanged(request, document, base, LIST_VERSION, {"number": number})) is not None:
        return answer
    article = (await run_operation(request, document, {"number": number}))["article"]
    if article is None:
        raise ApiError.not_found("no such article", ArtNr=number)
    tag = request_tag(request, document, article[VERSION], base)
    return tagged(JsonResponse({"data": [shape.reshape(item, base) for item in article["media"]]}), tag)


async def media_content(request: Request) -> Response:
    variables = {"id": path_number(request, "IDKey", "IDKey"), "kind": QueryParams(request).text("type")}
    if (answer := await unchanged(request, CONTENT_DOCUMENT, "", CONTENT_VERSION, variables)) is not None:
        return answer
    content = (await run_operation(request, CONTENT_DOCUMENT, variables, {"id": "IDKey", "kind": "type"}))[
        "mediaContent"
    ]
    response = Response(
        base64.b64decode(content["content"]),
        media_type=content["contentType"],
        headers=_content_headers(content["fileName"], content["contentType"]),
    )
    return tagged(response, request_tag(request, CONTENT_DOCUMENT, content["version"], ""))


def _content_headers(file_name: str, content_type: str) -> dict[str, str]:
    headers = {
        "Cache-Control": "no-store",
        "Content-Disposition": f"inline; filename*=UTF-8''{quote(file_name, safe='')}",
        # The declared type only: a browser must not sniff a text or an image into HTML.
        "X-Content-Type-Options": "nosniff",
    }
    if content_type.partition(";")[0].strip().lower() in ACTIVE_TYPES:
        headers["Content-Security-Policy"] = "sandbox"
    return headers
