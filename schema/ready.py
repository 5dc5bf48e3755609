"""A client's query whose document was parsed and validated before, run by graphql-core straight away.

Strawberry's execute builds five extensions and six hook context managers per request, to parse, validate
and check what the document cache (schema/document_cache.py) already holds: about a third of a trivial
query's time in the GraphQL layer. For a document the cache holds as valid under the schema's rules, the
only per-request work left is the operation's limits (schema/limits/operation.py) and the timing; the limits
of an operation without variables depend on its document alone, so they are checked once and kept with it.
Anything else (a new or invalid document, an unknown operation name, a mutation or subscription, an
operation refused) takes Strawberry's path, which answers it as before.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from inspect import isawaitable
from typing import Any, cast

from graphql import DocumentNode, GraphQLError, GraphQLSchema, OperationDefinitionNode, OperationType, execute
from graphql import ExecutionResult as GraphQLExecutionResult
from graphql.execution import Executor
from strawberry.execution.is_awaitable import optimized_is_awaitable
from strawberry.types import ExecutionResult

from datasources.statistics import current_stats
from schema.document_cache import DocumentCache
from schema.limits.budget import CostBudget
from schema.limits.operation import operation_named, refusal

Rules = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class _Checked:
    """An operation found in its document, and whether its limits hold whatever the request sends."""

    operation: OperationDefinitionNode
    within_limits: bool


class ReadyQueries:
    def __init__(
        self,
        schema: GraphQLSchema,
        documents: DocumentCache,
        rules: Rules,
        budget: CostBudget,
        executor_class: type[Executor[Any]],
    ) -> None:
        self.schema = schema
        self.documents = documents
        self.rules = rules
        self.budget = budget
        self.executor_class = executor_class

    async def execute(
        self,
        text: str | None,
        variables: dict[str, Any] | None,
        context: object,
        root_value: object,
        operation_name: str | None,
        operation_extensions: Mapping[str, Any] | None,
    ) -> ExecutionResult | None:
        """The query's result; None when Strawberry's path must answer it."""
        found = self.documents.valid(text, self.rules) if isinstance(text, str) else None
        if found is None:
            return None
        document, kept = found
        client = bool(getattr(context, "client_document", False))
        checked = self._checked(document, kept, operation_name, context, client)
        if checked is None:
            return None
        if (
            client
            and not checked.within_limits
            and refusal(self.budget, self.schema, context, document, checked.operation, variables)
        ):
            return None  # refused: Strawberry's path says why, as before
        started = time.perf_counter()
        try:
            return await self._run(document, variables, context, root_value, operation_name, operation_extensions)
        finally:
            stats = current_stats.get()
            if stats is not None:
                stats.graphql_seconds += time.perf_counter() - started

    def _checked(
        self,
        document: DocumentNode,
        kept: dict[Hashable, Any],
        name: str | None,
        context: object,
        client: bool,
    ) -> _Checked | None:
        # The limits are the process's settings; a context with others (a test's) is checked on its own.
        key = ("ready", name, client, getattr(context, "limits", None), getattr(context, "document_limits", None))
        checked: _Checked | None = kept.get(key)
        if checked is not None:
            return checked
        operation = operation_named(document, name)
        if operation is None or operation.operation is not OperationType.QUERY:
            return None
        # Without variables, what the limits see is the document: one check for every request of it.
        fixed = not operation.variable_definitions
        within = fixed and (not client or refusal(self.budget, self.schema, context, document, operation, {}) is None)
        checked = kept[key] = _Checked(operation, within)
        return checked

    async def _run(
        self,
        document: DocumentNode,
        variables: dict[str, Any] | None,
        context: object,
        root_value: object,
        operation_name: str | None,
        operation_extensions: Mapping[str, Any] | None,
    ) -> ExecutionResult:
        try:
            outcome = execute(
                self.schema,
                document,
                root_value=root_value,
                variable_values=variables,
                operation_name=operation_name,
                context_value=context,
                is_awaitable=cast(Any, optimized_is_awaitable),
                executor_class=self.executor_class,
                operation_extensions=operation_extensions,
            )
            result: GraphQLExecutionResult = await outcome if isawaitable(outcome) else outcome
        except Exception as error:  # as Strawberry's path answers what escapes graphql-core
            coerced = error if isinstance(error, GraphQLError) else GraphQLError(str(error), original_error=error)
            return ExecutionResult(data=None, errors=[coerced])
        return ExecutionResult(data=result.data, errors=result.errors)
