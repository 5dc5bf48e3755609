"""GET /www/artikelaenderungen (beyond the specification, in its style): the catalogue's change feed.

`seit` is the cursor of the previous answer; without it the answer is the current cursor and empty lists.
The articles are the output records of GET /www/artikel, with its `fields`, `adrsprache`, `waehrabk` and
`debinr`."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from rest_compat.articles import ARTICLE, PARAMETERS, VIEW_ARGUMENTS, VIEW_VARIABLES, view_variables
from rest_compat.execution import base_url, run_operation
from rest_compat.params import QueryParams
from rest_compat.responses import JsonResponse
from rest_compat.shapes import Shape

CHANGE_PARAMETERS = {**PARAMETERS, "since": "seit"}
MAX_CURSOR = 4096  # a cursor is some 60 characters; PostgreSQL's holds the open transactions' ids too


@lru_cache(maxsize=256)
def changes_operation(fields: tuple[str, ...] | None) -> tuple[Shape, str]:
    shape = ARTICLE.select(fields)
    document = (
        f"query ArticleChanges($since: String, $limit: Int, {VIEW_VARIABLES}) "
        f"{{ catalogueChanges(since: $since, limit: $limit, {VIEW_ARGUMENTS}) "
        f"{{ cursor hasMore removed changed {shape.selection()} }} }}"
    )
    return shape, document


async def article_changes(request: Request) -> Response:
    params = QueryParams(request)
    shape, document = changes_operation(params.names("fields"))
    limit = params.integer("limit", default=0)
    variables: dict[str, Any] = {
        "since": params.text("seit", max_length=MAX_CURSOR),
        "limit": limit or None,  # 0: the default
        **view_variables(params),
    }
    answer = (await run_operation(request, document, variables, CHANGE_PARAMETERS))["catalogueChanges"]
    base = base_url(request)
    data = {
        "Cursor": answer["cursor"],
        "MehrVorhanden": answer["hasMore"],
        "Artikel": [shape.reshape(item, base) for item in answer["changed"]],
        "Entfernt": answer["removed"],
    }
    return JsonResponse({"count": len(data["Artikel"]) + len(data["Entfernt"]), "success": True, "data": data})
