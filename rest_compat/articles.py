"""GET /www/artikel (ArtikelListe) and GET /www/artikel/{ArtNr} (Artikel)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import lru_cache
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from rest_compat.conditional import (
    current_version,
    if_none_match,
    matches,
    not_modified,
    request_tag,
    tagged,
    unchanged,
)
from rest_compat.errors import ApiError
from rest_compat.execution import base_url, run_operation
from rest_compat.links import article_href, link, path_segment, to_article
from rest_compat.params import QueryParams
from rest_compat.responses import JsonResponse
from rest_compat.shapes import Field, Link, Links, Shape, yes_no
from rest_compat.streaming import JsonListResponse

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

# The GraphQL fields of the types these shapes show that REST leaves out, and why: every other field of those
# types must be in a shape (tests/rest_compat/test_field_coverage.py), so a new field is a decision.
GRAPHQL_ONLY = {
    "Article": {
        "media": "GET /www/artikelmedia/{ArtNr} lists them",
        "version": "the answer's ETag is made of it (rest_compat/conditional.py)",
    }
}

# The single article adds what only its samples show.
SINGLE_ARTICLE = ARTICLE.extend(
    ArtGewicht=Field("weight"),
    Deklaration=Field("declarations", shape=DECLARATION),
)

# A list of up to PAGE articles (GraphQL's largest page) is read and answered as one page, with the fewest
# statements. A longer one (`limit=0` on a larger catalogue, or a larger limit) is sent as it is read
# (streaming.py): its first PAGE articles, then parts of PART. A part of full articles is some 800 KB of
# JSON and 45 ms of work: what another request of the worker waits for at most while the list is sent.
PAGE = 1000
PART = 500

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


# The field that holds each article's ArtNr in the parts of a long list, whatever `fields` asks for: the
# articles are put in the order of the list's numbers by it. Removed before reshaping.
ORDER = "_order"
NUMBERS_DOCUMENT = (
    "query ArticleNumbers($limit: Int, $offset: Int!, $sort: [ArticleSortInput!], $language: String, "
    "$customerNumber: String) { articleNumbers(limit: $limit, offset: $offset, sort: $sort, "
    "language: $language, customerNumber: $customerNumber) }"
)


# The version of what an answer holds (schema/catalogue/versions.py), for its ETag: a page's is read with
# it; a single article's under this hidden key, removed before reshaping.
VERSION = "_version"
LIST_ARGUMENTS = "$limit: Int, $offset: Int!, $sort: [ArticleSortInput!]"
LIST_VERSION = (
    f"query ArticleListVersion({LIST_ARGUMENTS}, {VIEW_VARIABLES}) "
    f"{{ articlesVersion(limit: $limit, offset: $offset, sort: $sort, {VIEW_ARGUMENTS}) }}"
)
SINGLE_VERSION = (
    f"query ArticleVersion($number: String!, {VIEW_VARIABLES}) {{ articleVersion(number: $number, {VIEW_ARGUMENTS}) }}"
)


@lru_cache(maxsize=256)
def list_operation(fields: tuple[str, ...] | None, *, numbered: bool = False) -> tuple[Shape, str]:
    """A page; `numbered`: each article with its ArtNr in ORDER too."""
    shape = ARTICLE.select(fields)
    selection = _numbered(shape) if numbered else shape.selection()
    document = (
        f"query ArticleList({LIST_ARGUMENTS}, {VIEW_VARIABLES}) "
        f"{{ articles(limit: $limit, offset: $offset, sort: $sort, {VIEW_ARGUMENTS}) "
        f"{{ hasNextPage version items {selection} }} }}"
    )
    return shape, document


@lru_cache(maxsize=256)
def part_operation(fields: tuple[str, ...] | None) -> tuple[Shape, str]:
    """The articles of one part of a long list, by their numbers, each with its ArtNr in ORDER."""
    shape = ARTICLE.select(fields)
    document = (
        f"query ArticlePart($numbers: [String!]!, {VIEW_VARIABLES}) "
        f"{{ articles(filter: {{numbers: $numbers}}, sort: [{{field: NUMBER}}], {VIEW_ARGUMENTS}) "
        f"{{ items {_numbered(shape)} }} }}"
    )
    return shape, document


def _numbered(shape: Shape) -> str:
    """The shape's selection with each article's ArtNr in ORDER too."""
    return f"{{ {ORDER}: number {shape.selection()[1:]}"


@lru_cache(maxsize=256)
def single_operation(fields: tuple[str, ...] | None) -> tuple[Shape, str]:
    shape = SINGLE_ARTICLE.select(fields)
    document = (
        f"query Article($number: String!, {VIEW_VARIABLES}) "
        f"{{ article(number: $number, {VIEW_ARGUMENTS}) {{ {VERSION}: version {shape.selection()[1:]} }}"
    )
    return shape, document


def view_variables(params: QueryParams) -> dict[str, Any]:
    return {
        "language": params.text("adrsprache"),
        "currency": params.text("waehrabk"),
        "customerNumber": params.text("debinr"),
    }


async def article_list(request: Request) -> Response:
    params = QueryParams(request)
    fields = params.names("fields")  # checked before anything is read
    header = if_none_match(request)
    limit = params.integer("limit", default=0)
    offset = params.integer("offset", default=0)
    variables = {
        "limit": limit or None,  # 0 means unlimited
        "offset": offset,
        "sort": params.sorts("sorts", SORTS),
        **view_variables(params),
    }
    base = base_url(request)
    if limit and limit <= PAGE:
        shape, document = list_operation(fields)
        if (answer := await unchanged(request, document, base, LIST_VERSION, variables)) is not None:
            return answer
        page = (await run_operation(request, document, variables, PARAMETERS))["articles"]
        tag = request_tag(request, document, page["version"], base)
        return tagged(_page(request, params, shape, page["items"], page["hasNextPage"]), tag)
    # A long list's tag is read first, for the whole list: its parts are read one after another.
    version = await current_version(request, LIST_VERSION, variables)
    if version is None:  # it failed: the list reports why
        return await _long_list(request, params, variables)
    tag = request_tag(request, list_operation(fields, numbered=True)[1], version, base)
    if header is not None and matches(header, tag):
        return not_modified(tag)
    return tagged(await _long_list(request, params, variables), tag)


def _page(request: Request, params: QueryParams, shape: Shape, items: list[dict[str, Any]], more: bool) -> Response:
    base = base_url(request)
    links = _page_links(request, params, more)
    return JsonResponse({"data": [shape.reshape(item, base) for item in items], "links": links})


async def _long_list(request: Request, params: QueryParams, variables: dict[str, Any]) -> Response:
    """A list that may be longer than a page (`limit=0`: the whole catalogue). Its first PAGE articles are
    read as a page; when more follow, the list's numbers are read at once and its articles sent a part at a
    time in their order (streaming.py): an article removed meanwhile is left out, none is skipped or
    repeated."""
    fields = params.names("fields")
    shape, document = list_operation(fields, numbered=True)
    page = (await run_operation(request, document, {**variables, "limit": PAGE}, PARAMETERS))["articles"]
    first: list[dict[str, Any]] = page["items"]
    first_numbers = [item.pop(ORDER) for item in first]
    if not page["hasNextPage"]:
        return _page(request, params, shape, first, False)
    limit = variables["limit"]
    asked = {name: value for name, value in variables.items() if name != "currency"}
    asked["limit"] = None if limit is None else limit + 1  # one more: whether more follow
    numbers = (await run_operation(request, NUMBERS_DOCUMENT, asked, PARAMETERS))["articleNumbers"]
    more = limit is not None and len(numbers) > limit
    numbers = numbers[:limit]
    parts = [numbers[start : start + PART] for start in range(PAGE, len(numbers), PART)]
    part_shape, part_document = part_operation(fields)
    view = view_variables(params)
    base = base_url(request)

    async def part(numbers: list[str]) -> list[dict[str, Any]]:
        answer = await run_operation(request, part_document, {"numbers": numbers, **view}, PARAMETERS)
        found = {item.pop(ORDER): item for item in answer["articles"]["items"]}
        return [part_shape.reshape(found[number], base) for number in numbers if number in found]

    async def rest() -> AsyncIterator[list[dict[str, Any]]]:
        if request.method != "HEAD":  # its body is not sent
            for numbers in parts:
                yield await part(numbers)

    if numbers[:PAGE] == first_numbers:  # as good as always: nothing changed between the two reads
        head = [shape.reshape(item, base) for item in first]
    else:
        head = await part(numbers[:PAGE])
    return JsonListResponse(head, rest(), _page_links(request, params, more))


def _page_links(request: Request, params: QueryParams, more: bool) -> list[Link]:
    """start always; next while articles follow (the page read one more: nothing is counted); prev when
    the page does not start at 0."""
    limit = params.integer("limit", default=0)
    offset = params.integer("offset", default=0)

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
    variables = {"number": request.path_params["ArtNr"], **view_variables(params)}
    base = base_url(request)
    if (answer := await unchanged(request, document, base, SINGLE_VERSION, variables)) is not None:
        return answer
    article = (await run_operation(request, document, variables, PARAMETERS))["article"]
    if article is None:
        raise ApiError.not_found("no such article", ArtNr=request.path_params["ArtNr"])
    tag = request_tag(request, document, article.pop(VERSION), base)
    return tagged(JsonResponse({"data": shape.reshape(article, base)}), tag)
