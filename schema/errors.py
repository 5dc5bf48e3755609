"""One place that turns failures into GraphQL errors with a contract code in `extensions`.

Domain errors keep their message and gain `code`, `field` and `info`; permission errors already carry
`insufficient_scope`; GraphQL syntax and validation errors are `invalid_request`; anything else is
masked as `internal` and logged with the request id, so no trace, SQL or path reaches a client.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from graphql import GraphQLError
from strawberry.extensions import SchemaExtension

from datasources.errors import DomainError

log = logging.getLogger("gateway.graphql")

INTERNAL = "internal"


class ErrorCodes(SchemaExtension):
    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        if result is not None and result.errors:
            result.errors = [self._coded(error) for error in result.errors]

    def _coded(self, error: GraphQLError) -> GraphQLError:
        original = error.original_error
        if isinstance(original, DomainError):
            extensions = {"code": original.code, "info": original.info}
            if original.field is not None:
                extensions["field"] = original.field
            return _with(error, original.message, extensions)
        if error.extensions and "code" in error.extensions:
            return error
        if original is None:
            return _with(error, error.message, {"code": "invalid_request"})
        request_id = getattr(self.execution_context.context, "request_id", "-")
        log.error("unexpected error in %s [request %s]", error.path, request_id, exc_info=original)
        return _with(error, "Unexpected error.", {"code": INTERNAL, "request_id": request_id}, keep=False)


def _with(
    error: GraphQLError, message: str, extensions: dict[str, object], keep: bool = True
) -> GraphQLError:
    return GraphQLError(
        message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=error.original_error if keep else None,
        extensions=extensions,
    )
