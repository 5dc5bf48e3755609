"""The executor class Strawberry hands to graphql-core: compiled plans for queries, graphql-core for the rest.

Strawberry parses, validates (with the request limits: depth, aliases, tokens) and coerces the variables
as always; only the execution of a valid query changes. Mutations always run through graphql-core, so
none is ever executed twice; a query whose compiled run diverges (a resolver raised, a null for a
non-null field, ...) is run once more by graphql-core, which gives the exact errors.

Each operation records the path it took in the request's statistics (Server-Timing: `graphql;desc=...`).
"""

from __future__ import annotations

import logging
from typing import Any, cast

from graphql import ExecutionResult, OperationType
from graphql.pyutils import AwaitableOrValue
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from datasources.statistics import current_stats
from schema.execution.cache import PlanCache
from schema.execution.plan import ObjectPlan
from schema.execution.run import Run

log = logging.getLogger("gateway.graphql.execution")

COMPILED = "compiled"
GRAPHQL_CORE = "graphql-core"
FALLBACK = "compiled+graphql-core"  # the compiled run diverged; graphql-core answered


class CompilingExecutor(StrawberryGraphQLCoreExecutionContext):
    def execute_operation(self, serially: bool | None = None) -> AwaitableOrValue[Any]:
        plan = self._plan() if serially is None else None
        if plan is None:
            _record(GRAPHQL_CORE)
            return super().execute_operation(serially)
        return self._run(plan)

    def _plan(self) -> ObjectPlan | None:
        if self.operation.operation is not OperationType.QUERY:
            return None
        if self.middleware_manager is not None and self.middleware_manager.middlewares:
            return None  # an extension hooks resolve(): only graphql-core calls it
        if self.abort_signal is not None or self.hooks is not None:
            return None
        schema = getattr(self.schema, "_strawberry_schema", None)
        plans = getattr(schema, "plans", None)
        if schema is None or not isinstance(plans, PlanCache) or schema.schema_converter.exception_handlers:
            return None
        return plans.plan(self, schema)

    async def _run(self, plan: ObjectPlan) -> ExecutionResult:
        try:
            data = await Run(self).execute(plan, self.root_value)
        except Exception as diverged:
            log.debug("compiled run diverged (%r); graphql-core runs the query", diverged)
            _record(FALLBACK)
            result = super().execute_operation()
            if self.is_awaitable(result):
                result = await result
            return cast(ExecutionResult, result)
        _record(COMPILED)
        return self.build_response(data)  # type: ignore[return-value]


def _record(path: str) -> None:
    stats = current_stats.get()
    if stats is not None:
        stats.graphql_paths.append(path)
