"""The seam between the REST layer and the executor: a route's document + variables + context -> result.

The REST routes' documents are the gateway's own: valid, within every limit of a client's document but the
alias limit (they ask for REST names as aliases: some 60 on the full article list), and a bounded set (one
per route and `fields` choice). They skip what /graphql needs for a client's document (Strawberry's
per-request extensions: the limits, the cost budget, the caches keyed by text): each is parsed and
validated once and kept, and per request graphql-core coerces the variables and the schema's executor runs
the operation on its compiled plans (engine.py), as for /graphql. Errors get their codes as on /graphql
(schema/errors.py), and the time is the request's GraphQL time (Server-Timing).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from inspect import isawaitable
from typing import Any, cast

import strawberry
from graphql import DocumentNode, GraphQLError, execute, parse, validate
from graphql import ExecutionResult as GraphQLExecutionResult
from strawberry.execution.is_awaitable import optimized_is_awaitable
from strawberry.types import ExecutionResult

from datasources.statistics import current_stats
from schema.context import Context
from schema.errors import with_codes
from schema.execution.lru import WeightedLRU, weight
from schema.limits import DocumentLimits

# The REST layer's documents are a few kilobytes each, some hundred of them with every `fields` choice.
DOCUMENT_BYTES = DocumentLimits().cache_bytes


class Executor:
    def __init__(self, schema: strawberry.Schema) -> None:
        self.schema = schema
        self._documents: WeightedLRU[str, DocumentNode | list[GraphQLError]] = WeightedLRU(DOCUMENT_BYTES)

    async def execute(self, document: str, variables: Mapping[str, Any] | None, context: Context) -> ExecutionResult:
        started = time.perf_counter()
        try:
            parsed = self._prepared(document)
            if isinstance(parsed, list):  # a REST document that does not validate: a bug, answered as one
                return self._result(None, parsed, context)
            outcome = execute(
                self.schema._schema,
                parsed,
                variable_values=dict(variables or {}),
                context_value=context,
                is_awaitable=cast(Any, optimized_is_awaitable),
                executor_class=self.schema.execution_context_class,
            )
            result: GraphQLExecutionResult = await outcome if isawaitable(outcome) else outcome
            return self._result(result.data, result.errors, context)
        finally:
            stats = current_stats.get()
            if stats is not None:
                stats.graphql_seconds += time.perf_counter() - started

    def _prepared(self, document: str) -> DocumentNode | list[GraphQLError]:
        prepared = self._documents.get(document)
        if prepared is None:
            parsed = parse(document)
            errors = validate(self.schema._schema, parsed)
            prepared = errors or parsed
            self._documents.put(document, prepared, weight(document))
        return prepared

    @staticmethod
    def _result(data: dict[str, Any] | None, errors: list[GraphQLError] | None, context: Context) -> ExecutionResult:
        if errors:
            errors = with_codes(errors, context.request_id, context.db.availability)
        return ExecutionResult(data=data, errors=errors or None)
