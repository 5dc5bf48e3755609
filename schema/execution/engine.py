"""The executor class Strawberry hands to graphql-core: compiled plans for queries, graphql-core for the rest.

Strawberry parses, validates (with the request limits: depth, aliases, tokens) and coerces the variables
as always; only the execution of a valid query changes. A compiled run answers with graphql-core's data
and errors (paths, null propagation, order) itself, so every query is executed once. Mutations always
run through graphql-core. graphql-core answers a query the compiled run could not finish only when the
run itself fails, which is a bug (logged), or meets a value its plan does not complete (an async iterable
for a list; none of this schema's resolvers returns one).

Each operation records the path it took in the request's statistics (Server-Timing: `graphql;desc=...`).
A fallback, which runs every resolver a second time, is also recorded by its operation's name: in the
request's statistics (gateway/metrics counts it, `gateway_graphql_fallbacks_total`) and in `FALLBACKS`, the
process's count (the test suite fails on any it did not expect).
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any, cast

from graphql import ExecutionResult, ExperimentalIncrementalExecutionResults, OperationType
from graphql.execution.executor import CollectedErrors
from graphql.pyutils import AwaitableOrValue
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from datasources.statistics import current_stats
from schema.execution.cache import PlanCache
from schema.execution.errors import Diverged
from schema.execution.plan import ObjectPlan
from schema.execution.run import Run

log = logging.getLogger("gateway.graphql.execution")

COMPILED = "compiled"
GRAPHQL_CORE = "graphql-core"
FALLBACK = "compiled+graphql-core"  # the compiled run failed (a bug) or met what it does not complete
# Every fallback of this process, by operation name ("an operation" for an unnamed one).
FALLBACKS: Counter[str] = Counter()


class CompilingExecutor(StrawberryGraphQLCoreExecutionContext):
    def execute_operation(self, serially: bool | None = None) -> AwaitableOrValue[Any]:
        plan = self._plan() if serially is None else None
        if plan is None:
            _record(GRAPHQL_CORE)
            return super().execute_operation(serially)
        return self._run(plan)

    def _plan(self) -> ObjectPlan | None:
        if self.operation.operation is not OperationType.QUERY or not self.error_propagation:
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
            data = await Run(self, plan).execute(self.root_value)
        except Diverged as diverged:
            log.warning("the compiled run of %s met %s; graphql-core runs it", self._name(), diverged)
            return await self._by_graphql_core()
        except Exception:
            log.exception("the compiled run of %s failed; graphql-core runs it", self._name())
            return await self._by_graphql_core()
        _record(COMPILED)
        return self.build_response(data)  # type: ignore[return-value]

    async def _by_graphql_core(self) -> ExecutionResult:
        _record(FALLBACK)
        name = self._name()
        FALLBACKS[name] += 1
        stats = current_stats.get()
        if stats is not None:
            stats.graphql_fallbacks.append(name)
        self.collected_errors = CollectedErrors()  # the compiled run's are not graphql-core's answer
        result = super().execute_operation()
        if self.is_awaitable(result):
            result = await result
        return cast(ExecutionResult, result)

    def build_response(self, data: dict[str, Any] | None) -> ExecutionResult | ExperimentalIncrementalExecutionResults:
        response = super().build_response(data)
        if isinstance(response, ExecutionResult):  # else deferred work runs on
            # graphql-core's executor refers to itself through its resolve-info helpers (bound methods): a
            # cycle only the cyclic collector frees, and with it the request's context, loaders and every
            # record they read (some 15,000 objects per 1000-article page), collected while other requests
            # run. Once the response is built nothing uses them: without them, reference counting frees it.
            vars(self).pop("async_helpers", None)
        return response

    def _name(self) -> str:
        name = self.operation.name
        return name.value if name else "an operation"


def _record(path: str) -> None:
    stats = current_stats.get()
    if stats is not None:
        stats.graphql_paths.append(path)
