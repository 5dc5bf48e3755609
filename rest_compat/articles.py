"""GET /www/artikel (ArtikelListe) and GET /www/artikel/{ArtNr} (Artikel)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from rest_compat.errors import ApiError
from rest_compat.execution import base_url, run_operation
from rest_compat.links import article_href, link, path_segment, to_article
from rest_compat.params import QueryParams
from rest_compat.responses import JsonResponse
from rest_compat.shapes import Field, Link, Links, Shape, yes_no

ATTRIBUTE = Shape({"Contents": Field("contents"), "PHKey": Field("key")})

PRICE = Shape(
    {
        "ArtNr": Field("articleNumber"),
        "Bereich": Field("priceRange"),
        "AbAnzahl": Field("minQuantity"),
        "BisAnzahl": Field("maxQuantity", omit_null=True),
        "PreisList": Field("amount"),
        "Preisart": Field("priceKind"),
        "VPEinheit": Field("packagingUnit"),
        "GeaendertAmUTC": Field("modifiedAt"),
        "links": to_article("articleNumber"),
    }
)

STOCK = Shape(
    {
        "ArtNr": Field("articleNumber"),
        "LagerOrt": Field("warehouse"),
        "StaoNr": Field("locationNumber"),
        "LagerBestand": Field("quantity"),
        "VPEinheit": Field("packagingUnit"),
        "Bereich": Field("stockRange"),
        "links": to_article("articleNumber"),
    }
)

PACKAGING = Shape(
    {
        "VPEinheit": Field("code"),
        "VPEEANNr": Field("ean"),
        "VPBezeichnung": Field("designation"),
        "Faktor": Field("factor"),
        "Gewicht": Field("weightFactor"),
        "VPEGewicht": Field("weight"),
        "GewichtInhalt": Field("contentWeight"),
        "Preis": Field("prices", omit_null=True, shape=PRICE),
        "Bestand": Field("stock", shape=STOCK),
    }
)

DECLARATION = Shape(
    {
        "Nr": Field("number"),
        "AdrSprache": Field("language"),
        "ArtNr": Field("articleNumber"),
        "Bezeichnung1": Field("designation1"),
        "Bezeichnung2": Field("designation2"),
        "KurzBezeichnung": Field("shortDesignation"),
        "OrtLand": Field("country"),
        "links": to_article("articleNumber"),
    }
)


def _article_links(base: str, number: str) -> list[Link]:
    return [
        link(article_href(base, number), "artikel"),
        link(f"{base}/www/artikelmedia/{path_segment(number)}", "artikelmedia"),
    ]


ARTICLE = Shape(
    {
        "ArtNr": Field("number"),
        "AnLager": Field("stockManaged", yes_no),
        "ArtBez": Field("designation"),
        "ArtikelStatus": Field("status"),
        "Einheit": Field("unit"),
        "Farbe": Field("colour"),
        "WUSTSatz": Field("taxRate"),
        "GeaendertAmUTC": Field("modifiedAt"),
        "ArtGruppe": Field("group"),
        "ArtKlasse": Field("articleClass"),
        "WaehrAbk": Field("currency"),
        "BeschaffungsArt": Field("procurementType"),
        "VerarbeitungsArt": Field("processingType"),
        "links": Links(("number",), _article_links),
        "attributes": Field("attributes", shape=ATTRIBUTE),
        "HatVPE": Field("hasPackagingUnits", yes_no),
        "Verpackungen": Field("packagingUnits", omit_null=True, shape=PACKAGING),
        "Preis": Field("prices", omit_null=True, shape=PRICE),
        "Bestand": Field("stock", omit_null=True, shape=STOCK),
    }
)

# The single article adds what only its samples show.
SINGLE_ARTICLE = ARTICLE.extend(
    ArtGewicht=Field("weight"),
    Deklaration=Field("declarations", shape=DECLARATION),
)

SORTS = {
    "ArtNr": "NUMBER",
    "ArtBez": "DESIGNATION",
    "ArtGruppe": "GROUP",
    "ArtKlasse": "ARTICLE_CLASS",
    "Einheit": "UNIT",
    "ArtikelStatus": "STATUS",
    "Farbe": "COLOUR",
    "AnLager": "STOCK_MANAGED",
    "BeschaffungsArt": "PROCUREMENT_TYPE",
    "VerarbeitungsArt": "PROCESSING_TYPE",
    "WUSTSatz": "TAX_RATE",
    "GeaendertAmUTC": "MODIFIED_AT",
}

# GraphQL argument -> the query parameter it came from, for error bodies.
PARAMETERS = {
    "language": "adrsprache",
    "currency": "waehrabk",
    "customerNumber": "debinr",
    "limit": "limit",
    "offset": "offset",
    "sort": "sorts",
}

VIEW_VARIABLES = "$language: String, $currency: String, $customerNumber: String"
VIEW_ARGUMENTS = "language: $language, currency: $currency, customerNumber: $customerNumber"


@lru_cache(maxsize=256)
def list_operation(fields: tuple[str, ...] | None) -> tuple[Shape, str]:
    shape = ARTICLE.select(fields)
    document = (
        f"query ArticleList($limit: Int, $offset: Int!, $sort: [ArticleSortInput!], {VIEW_VARIABLES}) "
        f"{{ articles(limit: $limit, offset: $offset, sort: $sort, {VIEW_ARGUMENTS}) "
        f"{{ hasNextPage items {shape.selection()} }} }}"
    )
    return shape, document


@lru_cache(maxsize=256)
def single_operation(fields: tuple[str, ...] | None) -> tuple[Shape, str]:
    shape = SINGLE_ARTICLE.select(fields)
    document = (
        f"query Article($number: String!, {VIEW_VARIABLES}) "
        f"{{ article(number: $number, {VIEW_ARGUMENTS}) {shape.selection()} }}"
    )
    return shape, document


def _view_variables(params: QueryParams) -> dict[str, Any]:
    return {
        "language": params.text("adrsprache"),
        "currency": params.text("waehrabk"),
        "customerNumber": params.text("debinr"),
    }


async def article_list(request: Request) -> Response:
    params = QueryParams(request)
    limit = params.integer("limit", default=0)
    offset = params.integer("offset", default=0)
    shape, document = list_operation(params.names("fields"))
    variables = {
        "limit": limit or None,  # 0 means unlimited
        "offset": offset,
        "sort": params.sorts("sorts", SORTS),
        **_view_variables(params),
    }
    page = (await run_operation(request, document, variables, PARAMETERS))["articles"]
    base = base_url(request)
    return JsonResponse(
        {
            "data": [shape.reshape(item, base) for item in page["items"]],
            "links": _page_links(request, params, limit, offset, page["hasNextPage"]),
        }
    )


def _page_links(request: Request, params: QueryParams, limit: int, offset: int, more: bool) -> list[Link]:
    """start always; next while articles follow (the page read one more: nothing is counted); prev when
    the page does not start at 0."""

    def at(new_offset: int) -> str:
        query = [(k, v) for k, v in params.items if k.lower() != "offset"] + [("offset", str(new_offset))]
        return f"{base_url(request)}{request.url.path}?{urlencode(query)}"

    links = []
    if limit and more:
        links.append(link(at(offset + limit), "next"))
    if offset > 0:
        links.append(link(at(max(offset - limit, 0) if limit else 0), "prev"))
    links.append(link(at(0), "start"))
    return links


async def article_detail(request: Request) -> Response:
    params = QueryParams(request)
    shape, document = single_operation(params.names("fields"))
    variables = {"number": request.path_params["number"], **_view_variables(params)}
    article = (await run_operation(request, document, variables, PARAMETERS))["article"]
    if article is None:
        raise ApiError.not_found("no such article", ArtNr=request.path_params["number"])
    return JsonResponse({"data": shape.reshape(article, base_url(request))})
