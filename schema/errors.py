"""One place that turns failures into GraphQL errors with a contract code in `extensions`.

Domain errors keep their message and gain `code`, `field` and `info` (with the field in `info` too, where
the error contract has it: `info.field`); permission errors already carry
`insufficient_scope`; GraphQL syntax and validation errors are `invalid_request`; anything else is
masked as `internal` and logged with the request id, so no trace, SQL or path reaches a client.

It runs on the finished result (schema.Schema.execute), not in an extension hook: with ParserCache a
syntax error leaves the operation hooks before their closing half runs.
"""

from __future__ import annotations

import logging
from typing import Any

from graphql import GraphQLError
from strawberry.utils.str_converters import to_camel_case

from datasources.availability import RETRY_AFTER, Availability, is_outage
from datasources.errors import DomainError

log = logging.getLogger("gateway.graphql")

INTERNAL = "internal"
UNAVAILABLE = "unavailable"
UNAVAILABLE_MESSAGE = "The database is unavailable or did not answer in time; try again shortly."


def with_codes(
    errors: list[GraphQLError], request_id: str, availability: Availability | None = None
) -> list[GraphQLError]:
    logged: set[int] = set()  # a batch field's error is each of its objects': logged once
    return [_coded(error, request_id, availability, logged) for error in errors]


def _coded(error: GraphQLError, request_id: str, availability: Availability | None, logged: set[int]) -> GraphQLError:
    original = error.original_error
    if original is not None and is_outage(original):
        # An outage, not a bug: no traceback per request; the database's availability logs the episode.
        if availability is not None:
            availability.failed(original)
        return _with(
            error, UNAVAILABLE_MESSAGE, {"code": UNAVAILABLE, "info": {"retry_after": RETRY_AFTER}}, keep=False
        )
    if isinstance(original, DomainError):
        return _with(error, original.message, _domain_extensions(original))
    if error.extensions and "code" in error.extensions:
        return error
    if original is None or isinstance(original, GraphQLError):
        return _with(error, error.message, {"code": "invalid_request"})
    if id(original) not in logged:
        logged.add(id(original))
        log.error("unexpected error in %s [request %s]", error.path, request_id, exc_info=original)
    return _with(error, "Unexpected error.", {"code": INTERNAL, "request_id": request_id}, keep=False)


def _domain_extensions(error: DomainError) -> dict[str, object]:
    if error.field is None:
        return {"code": error.code, "info": error.info}
    # `field` beside `info` as before, for the clients that read it there.
    return {"code": error.code, "info": {**error.info, "field": error.field}, "field": error.field}


def _with(error: GraphQLError, message: str, extensions: dict[str, object], keep: bool = True) -> GraphQLError:
    return GraphQLError(
        message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=error.original_error if keep else None,
        extensions=extensions,
    )


def typed_error_fields(error: DomainError) -> dict[str, Any]:
    """field (camelCase path), message and info of a mutation's typed error; each domain adds its code."""
    field = None if error.field is None else ".".join(to_camel_case(part) for part in error.field.split("."))
    return {"field": field, "message": error.message, "info": error.info}
