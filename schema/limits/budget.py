"""The cost budget of a client's operation, checked after validation and before execution.

Only documents from clients (/graphql) are held to it; the REST routes' documents are the gateway's own
and keep the specification's `limit=0` = all. Over budget, nothing runs: the answer is one error with code
`too_expensive` and the computed cost (a request error: 400 under application/graphql-response+json).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from graphql import DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema, OperationDefinitionNode
from strawberry.extensions import SchemaExtension

from schema.limits.cost import CostModel
from schema.limits.values import DocumentLimits

TOO_EXPENSIVE = "too_expensive"


class CostBudget(SchemaExtension):
    def on_execute(self) -> Iterator[None]:
        execution = self.execution_context
        context, document = execution.context, execution.graphql_document
        limits: DocumentLimits | None = getattr(context, "document_limits", None)
        operation = _operation(document, execution.operation_name) if document is not None else None
        if limits is not None and operation is not None and getattr(context, "client_document", False):
            model = _model(execution.schema._schema, limits.page_size)
            cost = model.cost(document, operation, execution.variables or {})
            if cost > limits.max_cost:
                # Set before execution: Strawberry then runs nothing and answers this result.
                execution.result = ExecutionResult(data=None, errors=[_too_expensive(cost, limits.max_cost)])
        yield


@lru_cache(maxsize=8)
def _model(schema: GraphQLSchema, page_size: int) -> CostModel:
    return CostModel(schema, page_size)


def _operation(document: DocumentNode, name: str | None) -> OperationDefinitionNode | None:
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if name is None:
        return operations[0] if len(operations) == 1 else None
    return next((o for o in operations if o.name is not None and o.name.value == name), None)


def _too_expensive(cost: int, budget: int) -> GraphQLError:
    return GraphQLError(
        f"the operation costs {cost}, more than the budget of {budget}: ask for fewer items "
        "(a smaller limit, and page with offset) or fewer fields",
        extensions={"code": TOO_EXPENSIVE, "info": {"cost": cost, "budget": budget}},
    )
