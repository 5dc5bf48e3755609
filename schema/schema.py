"""The one domain API: every domain's queries and mutations, with the request limits and extensions."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterable
from contextlib import aclosing
from typing import Any

import strawberry
from graphql import GraphQLError, parse
from strawberry.extensions import MaxTokensLimiter
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.schema import DEFAULT_ALLOWED_OPERATION_TYPES, StrawberryGraphQLCoreExecutionContext
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext, ExecutionResult
from strawberry.types.graphql import OperationType

from schema.analytics.queries import AnalyticsQuery
from schema.catalogue.changes import CatalogueChangeQuery
from schema.catalogue.mutations import CatalogueMutation
from schema.catalogue.queries import CatalogueQuery
from schema.catalogue.versions import CatalogueVersionQuery
from schema.customers.mutations import CustomerMutation
from schema.customers.queries import CustomerQuery
from schema.document_cache import CachedDocuments, DocumentCache
from schema.einvoice.mutations import EInvoiceMutation
from schema.errors import with_codes
from schema.execution import CompilingExecutor, PlanCache
from schema.limits import DocumentLimits
from schema.limits.budget import CostBudget
from schema.limits.operation import OperationLimits, operation_named
from schema.limits.rules import Rules, ValidationRules, validation_rules
from schema.live.subscriptions import LiveSubscription
from schema.logs.mutations import LogsMutation
from schema.ready import ReadyQueries
from schema.sales.mutations import SalesMutation
from schema.sales.queries import SalesQuery
from schema.scalars import SCALARS
from schema.timing import ExecutionTiming
from schema.webhooks.mutations import WebhookMutation
from schema.webhooks.queries import WebhookQuery

# The default limits (GATEWAY_GRAPHQL_* settings override them). The deepest document the REST layer
# builds (article -> packagingUnits -> prices) is 4 levels and ~150 tokens; these leave room for real
# frontend queries.
MAX_DEPTH = DocumentLimits().max_depth
MAX_ALIASES = DocumentLimits().max_aliases
MAX_TOKENS = DocumentLimits().max_tokens
# Memory for compiled plans where no limits are given: the REST layer builds a few dozen documents (per
# route and `fields` choice); the rest is room for frontends' and analysts' queries.
PLAN_CACHE_BYTES = DocumentLimits().cache_bytes


Query = merge_types(
    "Query",
    (
        CatalogueQuery,
        CatalogueVersionQuery,
        CatalogueChangeQuery,
        AnalyticsQuery,
        CustomerQuery,
        SalesQuery,
        WebhookQuery,
    ),
)
Mutation = merge_types(
    "Mutation",
    (CatalogueMutation, CustomerMutation, SalesMutation, EInvoiceMutation, LogsMutation, WebhookMutation),
)


class Schema(strawberry.Schema):
    def __init__(
        self,
        *args: Any,
        compiled: bool = True,
        plan_cache_bytes: int = PLAN_CACHE_BYTES,
        documents: DocumentCache | None = None,
        budget: CostBudget | None = None,
        rules: Rules | None = None,
        **kwargs: Any,
    ) -> None:
        # compiled=False: graphql-core's executor alone (the reference the compiled plans are tested and
        # measured against).
        kwargs["execution_context_class"] = CompilingExecutor if compiled else StrawberryGraphQLCoreExecutionContext
        super().__init__(*args, **kwargs)
        # Compiled plans of this schema's query documents (schema/execution), by document hash.
        self.plans = PlanCache(plan_cache_bytes)
        # Parsed and validated documents, when an extension parses through them (build_schema's do).
        self.documents = documents
        # The cost models of its client documents' budget (OperationLimits), shared with within_budget.
        self.budget = budget or CostBudget()
        # Queries of documents validated before, run without Strawberry's extensions (where the documents
        # are cached and validated with known rules: build_schema's).
        self.ready = None
        if documents is not None and rules is not None:
            executor = self.execution_context_class or StrawberryGraphQLCoreExecutionContext
            self.ready = ReadyQueries(self._schema, documents, rules, self.budget, executor)

    async def execute(
        self,
        query: str | None,
        variable_values: dict[str, Any] | None = None,
        context_value: Any | None = None,
        root_value: Any | None = None,
        operation_name: str | None = None,
        allowed_operation_types: Iterable[OperationType] | None = None,
        operation_extensions: dict[str, Any] | None = None,
    ) -> ExecutionResult:
        # A subscription runs as a stream (gateway/live), never as one result: refused here, not failed in
        # its resolver.
        allowed = set(allowed_operation_types or DEFAULT_ALLOWED_OPERATION_TYPES) - {OperationType.SUBSCRIPTION}
        if OperationType.QUERY in allowed:
            ready = await self.execute_ready(
                query, variable_values, context_value, root_value, operation_name, operation_extensions
            )
            if ready is not None:
                return ready
        result = await super().execute(
            query,
            variable_values=variable_values,
            context_value=context_value,
            root_value=root_value,
            operation_name=operation_name,
            allowed_operation_types=allowed,
            operation_extensions=operation_extensions,
        )
        return _coded_result(result, context_value)

    async def execute_ready(
        self,
        query: str | None,
        variable_values: dict[str, Any] | None = None,
        context_value: Any | None = None,
        root_value: Any | None = None,
        operation_name: str | None = None,
        operation_extensions: dict[str, Any] | None = None,
    ) -> ExecutionResult | None:
        """A query of a document validated before, run straight through graphql-core (schema/ready.py), with
        the error codes of every answer; None when nothing ran and Strawberry's path must answer it."""
        if self.ready is None:
            return None
        result = await self.ready.execute(
            query, variable_values, context_value, root_value, operation_name, operation_extensions
        )
        return None if result is None else _coded_result(result, context_value)

    async def stream(self, *args: Any, **kwargs: Any) -> Any:
        # A subscription's results (and any operation's over WebSocket or an event stream) get the error
        # codes of every answer, as execute's do: an unexpected error is masked and logged, an outage is
        # `unavailable`, never a database message.
        results = await super().stream(*args, **kwargs)
        context = kwargs.get("context_value", args[2] if len(args) > 2 else None)
        return _coded(results, context)

    def within_budget(self, text: str, operation_name: str | None, variables: Any, limits: DocumentLimits) -> bool:
        """Whether a client's document parses within the token limit and its operation is within the cost
        budget: what a conditional GET checks before it reads any version (the query itself is checked again,
        fully, when it runs)."""
        options = {"max_tokens": limits.max_tokens}
        try:  # through the document cache where there is one: the query's own run then parses nothing
            if self.documents is not None:
                document = self.documents.parsed(text, options)
            else:
                document = parse(text, max_tokens=limits.max_tokens)
        except GraphQLError:
            return False
        operation = operation_named(document, operation_name)
        if operation is None:
            return False
        sent = variables if isinstance(variables, dict) else {}
        return self.budget.refusal(self._schema, limits, document, operation, sent) is None

    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        # Expected errors are answers, not incidents; with_codes logs the unexpected ones once,
        # with the request id.
        return


async def _coded(results: AsyncGenerator[Any, None], context: object) -> AsyncGenerator[Any, None]:
    db = getattr(context, "db", None)
    async with aclosing(results):
        async for result in results:
            if getattr(result, "errors", None):
                result.errors = with_codes(
                    result.errors, getattr(context, "request_id", "-"), getattr(db, "availability", None)
                )
            yield result


def build_schema(*, compiled: bool = True, limits: DocumentLimits | None = None) -> Schema:
    limits = limits or DocumentLimits()
    # The rules are made once per schema: the validation cache compares the rules, and rules made per
    # request would never match.
    rules = validation_rules(limits)
    documents = DocumentCache(limits.cache_bytes)
    budget = CostBudget()
    return Schema(
        compiled=compiled,
        plan_cache_bytes=limits.cache_bytes,
        documents=documents,
        budget=budget,
        rules=rules,
        query=Query,
        mutation=Mutation,
        subscription=LiveSubscription,
        config=StrawberryConfig(scalar_map=SCALARS),
        extensions=[
            ExecutionTiming,
            # Factories: a fresh extension per request; the document cache is the schema's.
            lambda: ValidationRules(rules),
            lambda: MaxTokensLimiter(max_token_count=limits.max_tokens),
            lambda: CachedDocuments(documents),
            lambda: OperationLimits(budget),
        ],
    )


def _coded_result(result: ExecutionResult, context: Any) -> ExecutionResult:
    if result.errors:
        db = getattr(context, "db", None)
        request_id = getattr(context, "request_id", "-")
        result.errors = with_codes(result.errors, request_id, getattr(db, "availability", None))
    return result
