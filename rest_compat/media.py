"""GET /www/artikelmedia/{ArtNr} (ArtikelMedia) and GET /www/artikelmediadaten/{IDKey} (the file)."""

from __future__ import annotations

import base64
from functools import lru_cache
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

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

CONTENT_DOCUMENT = (
    "query MediaContent($id: Int!, $kind: String) "
    "{ mediaContent(id: $id, kind: $kind) { fileName contentType content } }"
)


@lru_cache(maxsize=64)
def list_operation(fields: tuple[str, ...] | None) -> tuple[Shape, str]:
    shape = MEDIA.select(fields)
    selection = f"article(number: $number) {{ media {shape.selection()} }}"
    return shape, f"query ArticleMedia($number: String!) {{ {selection} }}"


async def media_list(request: Request) -> Response:
    shape, document = list_operation(QueryParams(request).names("fields"))
    number = request.path_params["number"]
    article = (await run_operation(request, document, {"number": number}))["article"]
    if article is None:
        raise ApiError.not_found("no such article", ArtNr=number)
    base = base_url(request)
    return JsonResponse({"data": [shape.reshape(item, base) for item in article["media"]]})


async def media_content(request: Request) -> Response:
    variables = {"id": path_number(request, "id", "IDKey"), "kind": QueryParams(request).text("type")}
    content = (await run_operation(request, CONTENT_DOCUMENT, variables, {"id": "IDKey", "kind": "type"}))[
        "mediaContent"
    ]
    disposition = f"inline; filename*=UTF-8''{quote(content['fileName'], safe='')}"
    return Response(
        base64.b64decode(content["content"]),
        media_type=content["contentType"],
        headers={"Cache-Control": "no-store", "Content-Disposition": disposition},
    )
