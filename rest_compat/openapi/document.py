"""GET /www/openapi.json: the OpenAPI 3.1 document of /www, built once per process from the shapes."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from rest_compat.openapi.examples import with_examples
from rest_compat.openapi.methods import complete
from rest_compat.openapi.naming import named, tags
from rest_compat.openapi.openapi30 import as_openapi_30
from rest_compat.openapi.operations import operations
from rest_compat.openapi.parts import components
from rest_compat.openapi.schemas import Schemas
from rest_compat.openapi.shared import share_code_lists
from rest_compat.responses import encode_json
from schema.execution import Executor

VERSION = "1.0.0"
DESCRIPTION = """The web-shop REST interface of the ERP, as this gateway serves it. Every JSON body is
`application/json; charset=iso-8859-1` and pure ASCII (characters beyond it as JSON \\u escapes); every error has
the body `{"success": false, "error", "error_description", "info"}`. Get a token with HTTP Basic at
`POST /www/token`, then send `Authorization: Bearer <token>`. The manual (docs/, an mkdocs site) states every
choice the specification leaves open."""


def openapi_document(executor: Executor) -> dict[str, Any]:
    schemas = Schemas(executor.schema._schema)
    shared = components()
    paths, code_lists = share_code_lists(with_examples(named(complete(operations(schemas), shared["responses"]))))
    return {
        "openapi": "3.1.0",
        "info": {"title": "ERP shop gateway: /www", "version": VERSION, "description": DESCRIPTION},
        "security": [{"bearer": []}],
        "tags": tags(),
        "paths": paths,
        "components": {**shared, "schemas": {**shared["schemas"], **code_lists}},
    }


@lru_cache(maxsize=4)
def _encoded(executor: Executor) -> bytes:
    return encode_json(openapi_document(executor))


@lru_cache(maxsize=4)
def _encoded_30(executor: Executor) -> bytes:
    return encode_json(as_openapi_30(openapi_document(executor)))


async def openapi_json(request: Request) -> Response:
    body = _encoded(request.state.executor)  # built once per schema, i.e. once per process
    return Response(body, media_type="application/json", headers={"Cache-Control": "no-cache"})


async def openapi_30_json(request: Request) -> Response:
    """The same document in OpenAPI 3.0's terms, which Swagger UI renders three times faster (openapi30.py)."""
    body = _encoded_30(request.state.executor)
    return Response(body, media_type="application/json", headers={"Cache-Control": "no-cache"})
