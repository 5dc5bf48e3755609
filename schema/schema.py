"""The one domain API: every domain's queries and mutations, with the request limits and extensions."""

from __future__ import annotations

from typing import Any

import strawberry
from graphql import ASTValidationRule, GraphQLError
from strawberry.extensions import AddValidationRules, MaxTokensLimiter
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext, ExecutionResult

from schema.catalogue.queries import CatalogueQuery
from schema.customers.mutations import CustomerMutation
from schema.customers.queries import CustomerQuery
from schema.document_cache import CachedDocuments, DocumentCache
from schema.einvoice.mutations import EInvoiceMutation
from schema.errors import with_codes
from schema.execution import CompilingExecutor, PlanCache
from schema.limits import DocumentLimits
from schema.limits.aliases import aliases_rule
from schema.limits.budget import CostBudget
from schema.limits.depth import depth_rule
from schema.limits.operation import OperationLimits
from schema.logs.mutations import LogsMutation
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


Query = merge_types("Query", (CatalogueQuery, CustomerQuery, SalesQuery, WebhookQuery))
Mutation = merge_types("Mutation", (CustomerMutation, SalesMutation, EInvoiceMutation, LogsMutation, WebhookMutation))


class Schema(strawberry.Schema):
    def __init__(
        self,
        *args: Any,
        compiled: bool = True,
        plan_cache_bytes: int = PLAN_CACHE_BYTES,
        documents: DocumentCache | None = None,
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

    async def execute(self, *args: Any, **kwargs: Any) -> ExecutionResult:
        result = await super().execute(*args, **kwargs)
        if result.errors:
            context = kwargs.get("context_value", args[2] if len(args) > 2 else None)
            db = getattr(context, "db", None)
            result.errors = with_codes(
                result.errors, getattr(context, "request_id", "-"), getattr(db, "availability", None)
            )
        return result

    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        # Expected errors are answers, not incidents; with_codes logs the unexpected ones once,
        # with the request id.
        return


def build_schema(*, compiled: bool = True, limits: DocumentLimits | None = None) -> Schema:
    limits = limits or DocumentLimits()
    # The depth and alias rules are made once per schema: the validation cache compares the rules, and
    # rules made per request would never match.
    rules: list[type[ASTValidationRule]] = [depth_rule(limits.max_depth), aliases_rule(limits.max_aliases)]
    documents = DocumentCache(limits.cache_bytes)
    budget = CostBudget()
    return Schema(
        compiled=compiled,
        plan_cache_bytes=limits.cache_bytes,
        documents=documents,
        query=Query,
        mutation=Mutation,
        config=StrawberryConfig(scalar_map=SCALARS),
        extensions=[
            ExecutionTiming,
            # Factories: a fresh extension per request; the document cache is the schema's.
            lambda: AddValidationRules(rules),
            lambda: MaxTokensLimiter(max_token_count=limits.max_tokens),
            lambda: CachedDocuments(documents),
            lambda: OperationLimits(budget),
        ],
    )
